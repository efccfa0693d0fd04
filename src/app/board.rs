//! The open-links board: its rows from the store (from the shop while the desk is joined and
//! the shop answers), the link opened from it, and the background refresh of its open links
//! and of the shown link.

use std::collections::HashSet;

use super::msg::{BoardResult, LinkResult, Msg};
use super::{App, View};
use crate::board::Next;
use crate::service::shared::LeaseAnswer;
use crate::ui::BoardCommand;
use crate::ui::board::BoardMarks;
use crate::ui::link_result::{Origin, ShownLink};

impl App {
    /// Runs a board command.
    pub(crate) fn run_board(&mut self, command: BoardCommand) {
        let (id, form) = match command {
            BoardCommand::Show { id } => (id, None),
            BoardCommand::Send { id } => (id, Some(false)),
            BoardCommand::Remind { id } => (id, Some(true)),
        };
        if let Some(row) = self.views.board.rows().iter().find(|r| r.link.id == id) {
            let link = row.link.clone();
            let cancelled = row.cancelled;
            let lang = self.lang();
            self.show_link(link, Origin::Board);
            // A link cancelled here reads "Cancelled", not the server's "Expired".
            if let Some(shown) = self.views.shown.as_mut() {
                shown.on_known_cancelled(cancelled);
            }
            if let (Some(reminder), Some(shown)) = (form, self.views.shown.as_mut()) {
                if reminder {
                    shown.open_reminder(lang);
                } else {
                    shown.open_send(lang);
                }
            }
            self.view = View::Board;
        }
    }

    /// Takes a board result into the state: the refresh follows the rows' open links (a row
    /// the store changed since, say by the command line, may alert), the view shows them.
    pub(crate) fn apply_board(&mut self, result: BoardResult) {
        let (profile, result, polled, elsewhere, marks) = match result {
            BoardResult::Rows {
                profile,
                result,
                polled,
                elsewhere,
                marks,
            } => (profile, result, polled, elsewhere, marks),
            BoardResult::Leased { id, seq, answer } => {
                return self.apply_leased(id, seq, *answer);
            }
        };
        let now = self.options.clock.now();
        if self.holds.desk.as_ref().map(|d| d.profile().name.as_str()) != Some(profile.as_str()) {
            self.views.board.on_rows_of_another_profile();
            return;
        }
        match result {
            Ok(rows) => {
                self.shop.made_elsewhere = elsewhere;
                // Another account's links are on the board, never asked about from here.
                let alerts = self.refresher.sync_board(
                    rows.iter()
                        .filter(|s| polled.as_ref().is_none_or(|p| p.contains(&s.link.id)))
                        .map(|s| (s.link.clone(), s.updated_at)),
                    now,
                );
                self.views.board.on_rows(&profile, rows, *marks, now);
                for alert in alerts {
                    self.alert(&alert);
                }
            }
            Err(e) => {
                self.views.board.on_rows_failed(&e, now, self.lang());
            }
        }
    }

    /// A lease's answer: the server's as any refresh; the shop's as what the refresher heard
    /// (an alert from either is this desk's only when it made the link: [`App::alert`]);
    /// nothing, and the refresher's one-second gap spaces the next ask.
    fn apply_leased(&mut self, id: String, seq: u64, answer: LeaseAnswer) {
        match answer {
            LeaseAnswer::Asked(result) => {
                self.apply_link(LinkResult::Detail { id, seq, result });
            }
            LeaseAnswer::Shared(known) => {
                let now = self.options.clock.now();
                let heard = self.refresher.answered(&id, seq, known.as_ref(), now);
                match known {
                    Some(link) => self.link_answered(&id, seq, Ok(link), heard.applied, false),
                    None => self.stop_polling_shown(&id, seq),
                }
                if let Some(alert) = heard.alert {
                    self.alert(&alert);
                }
            }
            LeaseAnswer::Nothing => {
                self.refresher.lost();
                self.stop_polling_shown(&id, seq);
            }
        }
    }

    /// The shown link's request `seq` ended without an answer.
    fn stop_polling_shown(&mut self, id: &str, seq: u64) {
        if let Some(shown) = self.views.shown.as_mut().filter(|s| s.link().id == id) {
            shown.on_poll_ended(seq);
        }
    }

    /// The background refresh, after each frame: reads the board's rows again when they are
    /// out of date, sends the one link-detail request the refresher says is due (one at a
    /// time, at most one a second), and asks for a repaint when the next one or the next
    /// change of a figure on screen is due. Nothing due, nothing open: no repaint at all.
    pub(crate) fn schedule_board(&mut self) {
        let Some(desk) = self.holds.desk.clone() else {
            return;
        };
        let now = self.options.clock.now();
        let profile = desk.profile().name.clone();
        let shown = self.views.shown.as_ref().map(ShownLink::link);
        if self.refresher.focused() != shown.map(|l| l.id.as_str()) {
            self.refresher.focus(shown, now);
        }
        if self.views.board.needs_reload(&profile, now) {
            self.views.board.on_reload_sent();
            let reads = self.reads(desk.clone());
            let zone = self.zone;
            let duty = self.own_duty();
            self.spawn(&duty, async move {
                let (result, polled, elsewhere, marks) = match reads.board(zone).await {
                    Ok(b) => {
                        let marks = BoardMarks {
                            sends: b.sends,
                            reminded: b.reminded,
                            sending: b.sending,
                            mail: b.mail,
                            foreign: b.foreign,
                        };
                        (Ok(b.rows), b.polled, b.elsewhere, Box::new(marks))
                    }
                    Err(e) => (Err(e), None, HashSet::new(), Box::default()),
                };
                Msg::Board(BoardResult::Rows {
                    profile,
                    result,
                    polled,
                    elsewhere,
                    marks,
                })
            });
        }
        let mut wake = self.views.board.next_change();
        match self.refresher.next(now) {
            Next::Ask(id) => {
                let seq = self.next_seq();
                if let Some(shown) = &mut self.views.shown
                    && shown.link().id == id
                {
                    shown.on_poll_sent(seq);
                }
                // Joined and online: one poller per link and one budget for the whole shop.
                let reads = self.reads(desk);
                let fresh_for = self.refresher.interval_of(&id).unwrap_or_default();
                let duty = self.own_duty();
                self.spawn(&duty, async move {
                    let answer = reads.poll(&id, fresh_for).await;
                    Msg::Board(BoardResult::Leased {
                        id,
                        seq,
                        answer: Box::new(answer),
                    })
                });
            }
            Next::At(at) => wake = Some(wake.map_or(at, |w| w.min(at))),
            Next::Waiting | Next::Idle => {}
        }
        if let Some(at) = wake {
            self.ctx
                .request_repaint_after((at - now).to_std().unwrap_or_default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Command;
    use crate::app::testing::{answers, app, make_link};
    use crate::service::DeskError;
    use crate::ui::BoardCommand;

    #[test]
    fn a_stale_board_reads_its_rows_and_shows_them() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        app.views.shown = None;
        app.views.board.read_again();
        app.schedule_board();
        assert!(app.views.board.is_loading());
        let rows = answers(&mut app)
            .into_iter()
            .find(|m| matches!(m, Msg::Board(_)))
            .expect("the rows are read");
        let Msg::Board(BoardResult::Rows {
            profile,
            result: Ok(links),
            ..
        }) = &rows
        else {
            panic!("{rows:?}");
        };
        assert_eq!(profile, crate::service::SANDBOX_PROFILE);
        assert_eq!(links.len(), 1);
        app.on_msg(rows);
        assert!(!app.views.board.is_loading());
        assert_eq!(app.views.board.rows().len(), 1);
        assert_eq!(app.views.board.rows()[0].link.id, link.id);
    }

    #[test]
    fn rows_of_another_profile_are_dropped() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        let stored = app
            .holds
            .desk
            .clone()
            .unwrap()
            .board_links_in(app.zone)
            .unwrap();
        assert_eq!(stored.len(), 1);
        app.views.board.set_loading();
        app.apply_board(BoardResult::Rows {
            profile: "another".into(),
            result: Ok(stored),
            polled: None,
            elsewhere: HashSet::new(),
            marks: Box::default(),
        });
        assert!(!app.views.board.is_loading());
        assert!(app.views.board.rows().iter().all(|r| r.link.id != link.id));
    }

    #[test]
    fn rows_that_cannot_be_read_are_said() {
        let mut app = app();
        app.apply_board(BoardResult::Rows {
            profile: crate::service::SANDBOX_PROFILE.into(),
            result: Err(DeskError::NoProfile("x".into())),
            polled: None,
            elsewhere: HashSet::new(),
            marks: Box::default(),
        });
        assert!(app.views.board.error().is_some());
        assert!(app.views.board.loaded_at().is_some());
    }

    #[test]
    fn a_lease_that_gave_nothing_frees_the_refresher_and_the_shown_link() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        app.views.shown.as_mut().expect("shown").on_poll_sent(7);
        app.apply_board(BoardResult::Leased {
            id: link.id.clone(),
            seq: 7,
            answer: Box::new(LeaseAnswer::Nothing),
        });
        assert_eq!(app.refresher.asking(), None);
        assert_eq!(app.views.shown.as_ref().expect("shown").polling(), None);
        // The shop's answer counts as heard.
        app.views.shown.as_mut().expect("shown").on_poll_sent(8);
        let mut paid = link.clone();
        paid.status = crate::domain::LinkStatus::Completed;
        app.apply_board(BoardResult::Leased {
            id: link.id.clone(),
            seq: 8,
            answer: Box::new(LeaseAnswer::Shared(Some(paid))),
        });
        let shown = app.views.shown.as_ref().expect("shown");
        assert_eq!(shown.polling(), None);
        assert_eq!(shown.link().status, crate::domain::LinkStatus::Completed);
    }

    #[test]
    fn show_opens_a_row_in_the_result_view_on_the_board() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        app.views.shown = None;
        app.views.board.read_again();
        app.schedule_board();
        crate::app::testing::settle(&mut app);
        app.view = View::History;
        app.run(Command::Board(BoardCommand::Show {
            id: link.id.clone(),
        }));
        let shown = app.views.shown.as_ref().expect("shown");
        assert_eq!(shown.link().id, link.id);
        assert_eq!(shown.origin(), Origin::Board);
        assert_eq!(app.view, View::Board);
    }
}
