//! The journal's open rows: Retry and Abandon in the Pending view, and the background
//! re-send of every pending row (start-up, the connection back, a probe while it is down).

use std::time::Instant;

use super::App;
use super::Connection;
use super::link::server_answered;
use super::msg::{Duty, Msg, PendingResult, RowOutcomes};
use crate::service::{CreateError, DeskError};
use crate::service::{JournalRow, JournalState};
use crate::ui::PendingCommand;

impl App {
    /// Runs a pending command.
    pub(crate) fn run_pending(&mut self, command: PendingCommand, duty: &Duty) {
        let Some(desk) = self.desk_for(duty) else {
            return;
        };
        match command {
            PendingCommand::Retry { key, force } => {
                self.spawn(duty, async move {
                    let result = Box::new(desk.retry_pending(&key, force).await);
                    let rows = desk.pending().ok();
                    Msg::Pending(PendingResult::Retried { key, result, rows })
                });
            }
            PendingCommand::Abandon { key } => {
                self.spawn(duty, async move {
                    let result = desk.abandon_pending(&key).and_then(|()| desk.pending());
                    Msg::Pending(PendingResult::Abandoned { key, result })
                });
            }
        }
    }

    /// Takes a pending result into the state.
    pub(crate) fn apply_pending(&mut self, result: PendingResult) {
        let lang = self.lang();
        match result {
            PendingResult::Retried { key, result, rows } => {
                let result = *result;
                self.views.pending.on_retried(&key, rows, &result, lang);
                self.note_create(&result);
                if let Ok(link) = &result {
                    self.link_made(link);
                    self.views.history.invalidate();
                }
                if self.form_key() == Some(key.as_str()) {
                    self.form_answer(result);
                }
            }
            PendingResult::Abandoned { key, result } => {
                self.views.pending.on_abandoned(&key, result, lang);
            }
            PendingResult::Resumed {
                profile,
                result,
                rows,
            } => self.resumed(&profile, result, rows),
        }
    }

    /// Sends every pending row of the profile again, in the background (the desk's resume:
    /// the retry policy's backoff per row; a row another request is driving is skipped).
    pub(crate) fn start_resend(&mut self) {
        let Some(desk) = self.holds.desk.clone() else {
            return;
        };
        self.resend.running = true;
        self.resend.due = false;
        self.resend.next = None;
        let profile = desk.profile().name.clone();
        let duty = self.own_duty();
        self.spawn(&duty, async move {
            let result = desk.resume_pending().await;
            let rows = desk.pending().ok();
            Msg::Pending(PendingResult::Resumed {
                profile,
                result,
                rows,
            })
        });
    }

    /// A background re-send ended: each row's outcome goes where it belongs (the form's order
    /// to the form), and the connection and the next try follow from whether anything answered.
    fn resumed(
        &mut self,
        profile: &str,
        result: Result<RowOutcomes, DeskError>,
        rows: Option<Vec<JournalRow>>,
    ) {
        if self.holds.desk.as_ref().map(|d| d.profile().name.as_str()) != Some(profile) {
            return;
        }
        let lang = self.lang();
        self.resend.running = false;
        if let Some(rows) = rows {
            self.views.pending.on_rows(rows);
        }
        let outcomes = match result {
            Ok(outcomes) => outcomes,
            Err(e) => {
                self.views.pending.on_resend_failed(&e, lang);
                self.resend_later();
                return;
            }
        };
        let mut silent = None;
        let mut answered = false;
        for (key, outcome) in outcomes {
            // Another request of this app is sending the row; its own answer will come.
            if matches!(outcome, Err(CreateError::InProgress { .. })) {
                continue;
            }
            match (server_answered(&outcome), &outcome) {
                (Some(false), Err(CreateError::Unknown { error, .. })) => {
                    silent = Some(error.sentence(lang));
                }
                (Some(true), _) => answered = true,
                _ => {}
            }
            if let Ok(link) = &outcome {
                self.link_made(link);
                self.views.history.invalidate();
                self.views.pending.on_resent(link, lang);
            }
            if self.form_key() == Some(key.as_str()) {
                self.form_answer(outcome);
            }
        }
        // Set directly: this answer must not count as "the connection came back" and start
        // another re-send at once.
        if let Some(why) = silent {
            self.holds.connection = Connection::Disconnected(why);
            self.resend_later();
        } else {
            if answered {
                self.holds.connection = Connection::Connected;
            }
            self.resend.interval = self.options.resend_first;
            self.resend.next = None;
        }
    }

    /// The server still does not answer: try again after twice the last wait (capped).
    fn resend_later(&mut self) {
        self.resend.interval = (self.resend.interval * 2).min(self.options.resend_max);
        self.resend.next = Some(Instant::now() + self.resend.interval);
    }

    /// Starts a background re-send when one is due: at once when the connection has come back,
    /// on the backoff while it is down. Asks for a repaint when the next one will be due, so an
    /// idle window wakes for it and for nothing else.
    pub(crate) fn schedule_resend(&mut self) {
        if self.resend.running
            || self.holds.desk.is_none()
            || self.views.new_link.is_sending()
            || !self.views.pending.busy().is_empty()
        {
            return;
        }
        let now = self.options.clock.now();
        let open = self
            .views
            .pending
            .rows()
            .iter()
            .any(|r| r.state == JournalState::Pending && !r.is_stale_at(now));
        if !open {
            self.resend.due = false;
            self.resend.next = None;
            self.resend.interval = self.options.resend_first;
            return;
        }
        if self.resend.due {
            self.start_resend();
            return;
        }
        if !matches!(self.holds.connection, Connection::Disconnected(_)) {
            self.resend.next = None;
            return;
        }
        let at = Instant::now();
        if self.resend.next.is_none() {
            self.resend.next = Some(at + self.resend.interval);
            // Draw the planned time now rather than when it is due.
            self.ctx.request_repaint();
        }
        let next = self.resend.next.unwrap_or(at);
        if next <= at {
            self.start_resend();
        } else {
            self.ctx.request_repaint_after(next - at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Command;
    use crate::app::testing::{answers, app, only, pending_row, run};
    use crate::ui::problem::Note;

    #[test]
    fn retry_sends_the_row_and_its_link_is_said_done() {
        let mut app = app();
        let key = pending_row(&app, "P-1");
        app.views.pending.set_busy(&key);
        let answer = only(run(
            &mut app,
            Command::Pending(PendingCommand::Retry {
                key: key.clone(),
                force: false,
            }),
        ));
        let Msg::Pending(PendingResult::Retried {
            key: k,
            result,
            rows: Some(rows),
        }) = &answer
        else {
            panic!("{answer:?}");
        };
        let Ok(link) = result.as_ref() else {
            panic!("{answer:?}");
        };
        assert_eq!(*k, key);
        assert_eq!(link.order_number.as_deref(), Some("P-1"));
        assert!(rows.iter().all(|r| r.state != JournalState::Pending));
        app.on_msg(answer);
        assert!(app.views.pending.busy().is_empty());
        assert!(matches!(&app.views.pending.note(), Some(Note::Done(t)) if t.starts_with("P-1")));
        assert!(app.views.board.is_stale(), "the board shows the new link");
    }

    #[test]
    fn abandon_gives_up_on_the_row() {
        let mut app = app();
        let key = pending_row(&app, "P-1");
        app.views
            .pending
            .on_rows(app.holds.desk.clone().unwrap().pending().unwrap());
        assert_eq!(app.views.pending.rows().len(), 1);
        app.views.pending.set_busy(&key);
        let answer = only(run(
            &mut app,
            Command::Pending(PendingCommand::Abandon { key: key.clone() }),
        ));
        assert!(matches!(
            &answer,
            Msg::Pending(PendingResult::Abandoned { key: k, result: Ok(_) }) if *k == key
        ));
        app.on_msg(answer);
        assert!(app.views.pending.busy().is_empty());
        assert!(
            app.views
                .pending
                .rows()
                .iter()
                .all(|r| r.state != JournalState::Pending)
        );
    }

    #[test]
    fn an_abandon_that_failed_is_said() {
        let mut app = app();
        app.views.pending.set_busy("k");
        app.apply_pending(PendingResult::Abandoned {
            key: "k".into(),
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(app.views.pending.busy().is_empty());
        assert!(matches!(app.views.pending.note(), Some(Note::Failed(_))));
    }

    #[test]
    fn a_resend_sends_every_open_row_and_an_answer_means_connected() {
        let mut app = app();
        pending_row(&app, "P-1");
        app.holds.connection = Connection::Disconnected("no answer".into());
        app.start_resend();
        assert!(app.resend.running);
        let answer = only(answers(&mut app));
        let Msg::Pending(PendingResult::Resumed {
            result: Ok(outcomes),
            ..
        }) = &answer
        else {
            panic!("{answer:?}");
        };
        assert_eq!(outcomes.len(), 1);
        assert!(outcomes[0].1.is_ok());
        app.on_msg(answer);
        assert!(!app.resend.running);
        assert_eq!(app.holds.connection, Connection::Connected);
        assert!(matches!(&app.views.pending.note(), Some(Note::Done(t)) if t.starts_with("P-1")));
    }

    #[test]
    fn a_resend_of_another_profile_is_dropped() {
        let mut app = app();
        app.resend.running = true;
        app.apply_pending(PendingResult::Resumed {
            profile: "another".into(),
            result: Err(DeskError::NoProfile("x".into())),
            rows: None,
        });
        assert!(
            app.resend.running,
            "this profile's own re-send is still out"
        );
        assert!(app.views.pending.note().is_none());
    }
}
