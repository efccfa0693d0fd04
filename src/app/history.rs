//! The history of links: pages of a filter, their totals, a link opened from it, the status
//! refresh of the links shown, and the CSV export.

use std::path::Path;
use std::time::Duration;

use super::errors::JobError;
use super::files::FileKind;
use super::msg::{Duty, HistoryResult, Msg};
use super::{App, View};
use crate::clock::Zone;
use crate::lang::Lang;
use crate::service::renew::RenewalMarks;
use crate::service::shared::Reads;
use crate::service::{Desk, LinkCursor, LinkQuery, TimeRange};
use crate::ui::HistoryCommand;
use crate::ui::history::{HistoryFilter, HistoryPage, HistoryRow, PAGE};
use crate::ui::link_result::Origin;
use crate::ui::problem::Explain;
use crate::ui::text::UiText;

/// The gap between two requests of "Refresh statuses": at most one a second.
pub const STATUS_REFRESH_GAP: Duration = Duration::from_secs(1);

impl App {
    /// Runs a history command.
    pub(crate) fn run_history(&mut self, command: HistoryCommand, duty: &Duty) {
        let Some(desk) = self.desk_for(duty) else {
            return;
        };
        let lang = self.lang();
        let zone = self.views.history.zone();
        match command {
            HistoryCommand::Search { filter } => {
                self.history_next = None;
                let services = self.holds.services.clone();
                self.views.history.on_search();
                let totals_filter = filter.clone();
                let reads = self.reads(desk.clone());
                let totals_reads = reads.clone();
                self.spawn(duty, async move {
                    totals(&totals_reads, totals_filter, zone).await
                });
                self.spawn(duty, async move {
                    let mut msg = history_page(&reads, filter, None, zone, lang).await;
                    if let (
                        HistoryResult::Page {
                            filter,
                            total,
                            staff_names,
                            ..
                        },
                        Some(services),
                    ) = (&mut msg, services)
                    {
                        if *filter == HistoryFilter::default() {
                            *total = desk.history_count().ok();
                        }
                        *staff_names = services
                            .staff_list()
                            .ok()
                            .map(|list| list.into_iter().map(|m| m.name).collect());
                    }
                    Msg::History(msg)
                });
            }
            HistoryCommand::More => {
                let (Some(filter), Some(next)) = (
                    self.views.history.loaded_filter().cloned(),
                    self.history_next.clone(),
                ) else {
                    self.views.history.on_no_more_page();
                    return;
                };
                let reads = self.reads(desk);
                self.spawn(duty, async move {
                    Msg::History(history_page(&reads, filter, Some(next), zone, lang).await)
                });
            }
            HistoryCommand::Show { id } => self.open_history_link(desk, duty, id, false),
            HistoryCommand::ShowToSend { id } => self.open_history_link(desk, duty, id, true),
            HistoryCommand::RefreshStatuses { ids } => {
                // One detail request a second at most: the n-th waits n seconds, then asks.
                // Through the shop while joined: a link heard paid has its receipt claimed
                // there, once across the shop.
                for (i, id) in ids.into_iter().enumerate() {
                    let reads = self.reads(desk.clone());
                    let wait = STATUS_REFRESH_GAP * u32::try_from(i).unwrap_or(u32::MAX);
                    self.spawn(duty, async move {
                        tokio::time::sleep(wait).await;
                        let result = reads.link_detail(&id).await;
                        Msg::History(HistoryResult::StatusRefreshed { id, result })
                    });
                }
            }
            HistoryCommand::Export { filter } => {
                let dir = self.export_dir.clone();
                let now = self.options.clock.now();
                let dialogs = self.options.file_dialogs.clone();
                let title = UiText::ExportWhere.get(lang).to_owned();
                let stamp = zone.local(now).format("%Y%m%d-%H%M%S");
                let name = format!("paydesk-history-{stamp}.csv");
                let reads = self.reads(desk);
                self.spawn(duty, async move {
                    let result = match dialogs.save_path(FileKind::Csv, &title, dir, &name).await {
                        Ok(Some((path, by_dialog))) => export_history(&reads, &filter, zone, &path)
                            .await
                            .map(|rows| Some((rows, path, by_dialog))),
                        Ok(None) => Ok(None),
                        Err(e) => Err(e),
                    };
                    Msg::History(HistoryResult::Exported { result })
                });
            }
        }
    }

    /// Reads link `id` of History to show it (with its Send form open when `send`).
    fn open_history_link(&mut self, desk: Desk, duty: &Duty, id: String, send: bool) {
        let reads = self.reads(desk);
        self.spawn(duty, async move {
            // Another desk's link is in the shop, not in this desk's file.
            let result = reads.link(&id).await;
            Msg::History(HistoryResult::Link { send, result })
        });
    }

    /// Takes a history result into the state.
    pub(crate) fn apply_history(&mut self, result: HistoryResult) {
        let lang = self.lang();
        match result {
            HistoryResult::Page {
                filter,
                first,
                result,
                total,
                staff_names,
            } => match result {
                Ok((rows, next)) => {
                    let exhausted = next.is_none();
                    self.history_next = next;
                    self.views.history.on_page(HistoryPage {
                        filter,
                        first,
                        rows,
                        exhausted,
                        total,
                        staff_names,
                    });
                }
                Err(e) => self.views.history.on_page_failed(filter, &e, lang),
            },
            HistoryResult::Link {
                send,
                result: Ok(stored),
            } => {
                self.show_link(stored.link, Origin::History);
                // A link cancelled here reads "Cancelled" when opened again, not "Expired".
                if let Some(shown) = &mut self.views.shown {
                    shown.on_known_cancelled(stored.cancelled_at.is_some());
                    if send {
                        shown.open_send(lang);
                    }
                }
                self.view = View::History;
            }
            HistoryResult::Link { result: Err(e), .. } => {
                self.views.history.on_link_failed(&e, lang);
            }
            HistoryResult::Totals { filter, result } => {
                self.views.history.on_totals(filter, result, lang);
            }
            HistoryResult::StatusRefreshed { id, result } => {
                self.note_call(result.as_ref().err());
                let now = self.options.clock.now();
                let over = self.views.history.on_status_refreshed(
                    &id,
                    result.map_err(|e| e.problem(lang)),
                    now,
                    lang,
                );
                if over {
                    // Paid amounts may have changed: count the filtered set again.
                    self.history_totals();
                    self.views.report.invalidate();
                }
            }
            HistoryResult::Exported { result } => self.views.history.on_exported(result, lang),
        }
    }

    /// Counts the shown History filter's links again (after statuses changed).
    pub(crate) fn history_totals(&mut self) {
        let (Some(desk), Some(filter)) = (
            self.holds.desk.clone(),
            self.views.history.loaded_filter().cloned(),
        ) else {
            return;
        };
        let zone = self.views.history.zone();
        let reads = self.reads(desk);
        let duty = self.own_duty();
        self.spawn(&duty, async move { totals(&reads, filter, zone).await });
    }
}

/// The store's query and date range of a History filter.
fn history_query(filter: &HistoryFilter, zone: Zone) -> (LinkQuery, Option<TimeRange>) {
    let query = LinkQuery {
        text: Some(filter.text.trim().to_owned()).filter(|t| !t.is_empty()),
        status: filter.status.clone(),
        limit: PAGE,
        before: None,
        staff: filter.staff.clone(),
    };
    (query, TimeRange::between(filter.from, filter.to, zone))
}

/// The totals of a filter, as a message: the whole shop's while it answers (History's rows
/// are the shop's then), else the desk's own.
async fn totals(reads: &Reads, filter: HistoryFilter, zone: Zone) -> Msg {
    let (query, range) = history_query(&filter, zone);
    let result = reads.totals(&query, range).await.map(|(totals, _)| totals);
    Msg::History(HistoryResult::Totals { filter, result })
}

/// One page of History for `filter`, after `before`: the shop's (each row naming the desk
/// that made it) while it answers, else the desk's own.
async fn history_page(
    reads: &Reads,
    filter: HistoryFilter,
    before: Option<LinkCursor>,
    zone: Zone,
    lang: Lang,
) -> HistoryResult {
    let first = before.is_none();
    let (mut query, range) = history_query(&filter, zone);
    query.before = before;
    let result = match reads.page(&query, range, false).await {
        Ok(page) => {
            // The marks are a line of the row: a page without them is still the page.
            let mut marks = reads
                .renewal_marks_of(&page.rows)
                .await
                .inspect_err(|e| tracing::warn!(error = %e, "History's renewals were not read"))
                .unwrap_or_default();
            let rows = page
                .rows
                .iter()
                .map(|listed| {
                    let mut row = HistoryRow::of_stored(&listed.stored, lang, zone);
                    if let Some(desk) = &listed.desk {
                        row.desk.clone_from(&desk.name);
                        row.foreign = desk.elsewhere;
                    }
                    if let Some(mark) = marks.remove(&listed.stored.link.id) {
                        row.renewal = renewal_words(&mark, lang);
                    }
                    row
                })
                .collect();
            Ok((rows, page.next))
        }
        Err(e) => Err(e),
    };
    HistoryResult::Page {
        filter,
        first,
        result,
        total: None,
        staff_names: None,
    }
}

/// A row's renewals as History says them: "Renews REM-2", "Renewed as REM-2-2", or both.
fn renewal_words(mark: &RenewalMarks, lang: Lang) -> String {
    let renews = mark
        .renews
        .as_ref()
        .map(|(order, _)| UiText::Renews.fill(lang, &[("order", order)]));
    let renewed = mark
        .renewed_as
        .as_ref()
        .map(|(order, _)| UiText::RenewedAs.fill(lang, &[("order", order)]));
    [renews, renewed]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Writes the History links matching `filter` as CSV to `path` (chosen in the desktop's
/// dialog, else named after the local time in the export folder); returns how many links.
/// The rows History shows: the whole shop's (with the desk column) while the shop answers,
/// else the desk's own.
async fn export_history(
    reads: &Reads,
    filter: &HistoryFilter,
    zone: Zone,
    path: &Path,
) -> Result<usize, JobError> {
    let file = crate::service::create_private_file(path).map_err(JobError::file(path))?;
    let (query, range) = history_query(filter, zone);
    let (rows, _) = reads.export_csv(&query, range, false, zone, file).await?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::{answers, app, make_link, only, run};
    use crate::app::{Command, Connection};
    use crate::service::DeskError;
    use crate::ui::problem::Note;

    fn search(app: &mut App) {
        app.run(Command::History(HistoryCommand::Search {
            filter: HistoryFilter::default(),
        }));
        for m in answers(app) {
            app.on_msg(m);
        }
    }

    #[test]
    fn search_reads_the_first_page_its_count_and_its_totals() {
        let mut app = app();
        make_link(&mut app, "A-1");
        make_link(&mut app, "A-2");
        app.views.history.set_loading();
        let msgs = run(
            &mut app,
            Command::History(HistoryCommand::Search {
                filter: HistoryFilter::default(),
            }),
        );
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(
            msgs.iter()
                .any(|m| matches!(m, Msg::History(HistoryResult::Totals { result: Ok(_), .. })))
        );
        assert!(msgs.iter().any(|m| matches!(
            m,
            Msg::History(HistoryResult::Page { first: true, total: Some(2), result: Ok((rows, None)), .. })
                if rows.len() == 2
        )));
        for m in msgs {
            app.on_msg(m);
        }
        assert!(!app.views.history.is_loading());
        assert_eq!(app.views.history.rows().len(), 2);
        assert_eq!(app.views.history.total(), Some(2));
        assert!(matches!(app.views.history.totals(), Some((_, Ok(_)))));
        assert!(app.views.history.is_exhausted());
    }

    #[test]
    fn the_staff_filter_lists_one_members_links_and_names_come_with_the_first_page() {
        let mut app = app();
        make_link(&mut app, "A-1");
        let services = app.holds.services.clone().expect("services");
        crate::app::testing::block_on(services.staff_add(
            &crate::domain::Actor::nobody(),
            &crate::domain::StaffName::parse("Zeynep").expect("name"),
            crate::domain::Role::Manager,
            &crate::domain::Pin::parse("9999").expect("pin"),
        ))
        .expect("a manager");
        // Staff are on: History is a member's, so Zeynep signs in first.
        app.run(Command::Staff(crate::ui::command::StaffCommand::LoadStaff));
        crate::app::testing::settle(&mut app);
        app.run(Command::Staff(crate::ui::command::StaffCommand::SignIn {
            name: "Zeynep".into(),
            pin: zeroize::Zeroizing::new("9999".to_owned()),
        }));
        crate::app::testing::settle(&mut app);
        search(&mut app);
        assert_eq!(app.views.history.staff_names(), ["Zeynep"]);
        assert_eq!(app.views.history.rows().len(), 1);
        assert_eq!(
            app.views.history.rows()[0].staff,
            "",
            "made before staff existed"
        );
        let only_zeynep = HistoryFilter {
            staff: Some("Zeynep".into()),
            ..HistoryFilter::default()
        };
        app.run(Command::History(HistoryCommand::Search {
            filter: only_zeynep,
        }));
        for m in answers(&mut app) {
            app.on_msg(m);
        }
        assert!(app.views.history.rows().is_empty(), "Zeynep made no link");
    }

    #[test]
    fn more_without_a_next_page_stops_loading() {
        let mut app = app();
        make_link(&mut app, "A-1");
        search(&mut app);
        app.views.history.set_loading();
        app.run(Command::History(HistoryCommand::More));
        assert!(!app.views.history.is_loading());
        assert!(app.jobs.is_empty(), "nothing to ask");
    }

    #[test]
    fn a_later_page_of_the_filter_shown_is_appended_another_is_dropped() {
        let mut app = app();
        make_link(&mut app, "A-1");
        search(&mut app);
        let row = app.views.history.rows()[0].clone();
        app.apply_history(HistoryResult::Page {
            filter: HistoryFilter::default(),
            first: false,
            result: Ok((vec![row.clone()], None)),
            total: None,
            staff_names: None,
        });
        assert_eq!(app.views.history.rows().len(), 2);
        app.views.history.set_loading();
        app.apply_history(HistoryResult::Page {
            filter: HistoryFilter {
                text: "other".into(),
                ..HistoryFilter::default()
            },
            first: false,
            result: Ok((vec![row], None)),
            total: None,
            staff_names: None,
        });
        assert_eq!(app.views.history.rows().len(), 2);
        assert!(!app.views.history.is_loading());
    }

    #[test]
    fn a_page_that_failed_is_said() {
        let mut app = app();
        app.views.history.set_loading();
        app.apply_history(HistoryResult::Page {
            filter: HistoryFilter::default(),
            first: true,
            result: Err(DeskError::NoProfile("x".into())),
            total: None,
            staff_names: None,
        });
        assert!(!app.views.history.is_loading());
        assert!(app.views.history.error().is_some());
        assert_eq!(
            app.views.history.loaded_filter(),
            Some(&HistoryFilter::default())
        );
    }

    #[test]
    fn show_opens_a_link_of_history_in_the_result_view() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        app.views.shown = None;
        app.view = View::Board;
        let answer = only(run(
            &mut app,
            Command::History(HistoryCommand::Show {
                id: link.id.clone(),
            }),
        ));
        assert!(matches!(
            &answer,
            Msg::History(HistoryResult::Link { result: Ok(s), send: false }) if s.link.id == link.id
        ));
        app.on_msg(answer);
        let shown = app.views.shown.as_ref().expect("shown");
        assert_eq!(shown.origin(), Origin::History);
        assert!(!shown.is_cancelled());
        assert_eq!(app.view, View::History);
    }

    #[test]
    fn a_link_that_cannot_be_read_is_said() {
        let mut app = app();
        app.apply_history(HistoryResult::Link {
            send: false,
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(app.views.history.error().is_some());
        assert!(app.views.shown.is_none());
    }

    #[test]
    fn refresh_statuses_asks_for_each_link_and_an_answer_means_connected() {
        let mut app = app();
        let link = make_link(&mut app, "A-1");
        search(&mut app);
        let answer = only(run(
            &mut app,
            Command::History(HistoryCommand::RefreshStatuses {
                ids: vec![link.id.clone()],
            }),
        ));
        assert!(matches!(
            &answer,
            Msg::History(HistoryResult::StatusRefreshed { id, result: Ok(l) }) if *id == link.id && l.id == link.id
        ));
        app.holds.connection = Connection::Disconnected("no answer".into());
        app.on_msg(answer);
        assert_eq!(app.holds.connection, Connection::Connected);
    }

    #[test]
    fn export_writes_the_csv_and_says_where() {
        let mut app = app();
        make_link(&mut app, "A-1");
        let dir = tempfile::tempdir().unwrap();
        app.export_dir = Some(dir.path().to_owned());
        app.views.history.set_exporting();
        let answer = only(run(
            &mut app,
            Command::History(HistoryCommand::Export {
                filter: HistoryFilter::default(),
            }),
        ));
        let Msg::History(HistoryResult::Exported {
            result: Ok(Some((rows, path, by_dialog))),
        }) = &answer
        else {
            panic!("{answer:?}");
        };
        assert_eq!(*rows, 1);
        assert!(!by_dialog, "the handler tests have no dialog");
        assert!(path.starts_with(dir.path()));
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains("A-1"));
        let path = path.clone();
        app.on_msg(answer);
        assert!(!app.views.history.is_exporting());
        assert!(matches!(
            &app.views.history.note(),
            Some(Note::Done(t)) if t.contains(&path.display().to_string())
        ));
    }

    #[test]
    fn totals_arrive_with_their_filter() {
        let mut app = app();
        app.apply_history(HistoryResult::Totals {
            filter: HistoryFilter::default(),
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(matches!(
            &app.views.history.totals(),
            Some((f, Err(_))) if *f == HistoryFilter::default()
        ));
    }
}
