//! The day close: what the links of some days came to, and Refresh: the status of the days'
//! open links asked of the server (one a second, as History's refresh), then the report again.

use chrono::NaiveDate;

use super::App;
use super::history::STATUS_REFRESH_GAP;
use super::msg::{Duty, Msg, ReportResult};
use crate::clock::Zone;
use crate::service::{Desk, DeskError};
use crate::service::{LinkQuery, TimeRange};
use crate::ui::ReportCommand;
use crate::ui::history::PAGE;

impl App {
    /// Runs a report command.
    pub(crate) fn run_report(&mut self, command: ReportCommand, duty: &Duty) {
        let Some(desk) = self.desk_for(duty) else {
            return;
        };
        match command {
            ReportCommand::Load { first, last, zone } => {
                let reads = self.reads(desk);
                self.spawn(duty, async move {
                    let result = reads
                        .day_report((first, last), zone, false)
                        .await
                        .map(|(report, _)| report);
                    Msg::Report(ReportResult::Made {
                        days: (first, last),
                        result,
                    })
                });
            }
            ReportCommand::RefreshStatuses { first, last, zone } => {
                let carried = duty.clone();
                self.spawn(duty, async move {
                    let result = open_links(&desk, first, last, zone);
                    Msg::Report(ReportResult::OpenLinks {
                        result,
                        duty: carried,
                    })
                });
            }
        }
    }

    /// Takes a report result into the state.
    pub(crate) fn apply_report(&mut self, result: ReportResult) {
        let lang = self.lang();
        match result {
            ReportResult::Made { days, result } => {
                self.views.report.on_report(days, result, lang);
            }
            ReportResult::OpenLinks {
                result: Ok(ids),
                duty,
            } => {
                self.views.report.on_open_links(ids.len());
                let Some(desk) = self.desk_for(&duty) else {
                    self.views.report.on_refresh_failed();
                    return;
                };
                // As History's "Refresh statuses": one request a second at most; in a shop,
                // each through the lease and the shop's one budget (docs/design.md §8).
                let reads = self.reads(desk);
                for (i, id) in ids.into_iter().enumerate() {
                    let reads = reads.clone();
                    let wait = STATUS_REFRESH_GAP * u32::try_from(i).unwrap_or(u32::MAX);
                    self.spawn(&duty, async move {
                        tokio::time::sleep(wait).await;
                        let result = reads.refresh_for_day_close(&id).await;
                        Msg::Report(ReportResult::StatusRefreshed { id, result })
                    });
                }
            }
            ReportResult::OpenLinks { result: Err(e), .. } => {
                tracing::warn!(error = %e, "the day close's open links could not be listed");
                self.views.report.on_refresh_failed();
            }
            ReportResult::StatusRefreshed { id, result } => {
                self.note_call(result.as_ref().err());
                if let Err(e) = &result {
                    tracing::warn!(link = %id, error = %e, "a day close refresh failed");
                }
                self.views.report.on_link_refreshed(result.is_ok());
                if !self.views.report.is_refreshing() {
                    // History's rows and totals may have changed too.
                    self.views.history.invalidate();
                }
            }
        }
    }
}

/// The open links (not final, not cancelled here) created on local days `first..=last`.
fn open_links(
    desk: &Desk,
    first: NaiveDate,
    last: NaiveDate,
    zone: Zone,
) -> Result<Vec<String>, DeskError> {
    let range = TimeRange::between(Some(first), Some(last), zone);
    let mut query = LinkQuery {
        text: None,
        status: None,
        limit: PAGE,
        before: None,
        staff: None,
    };
    let mut ids = Vec::new();
    loop {
        let page = desk.history_in(&query, range)?;
        ids.extend(
            page.links
                .iter()
                .filter(|l| !l.link.status.is_final() && l.cancelled_at.is_none())
                .map(|l| l.link.id.clone()),
        );
        match page.next {
            Some(next) => query.before = Some(next),
            None => return Ok(ids),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Command;
    use crate::app::testing::{app, only, run};
    use crate::clock::Zone;

    /// The view asked for the report of `day`: the worker's answer.
    fn load(app: &mut App, day: NaiveDate) -> Msg {
        app.views.report.set_loading();
        only(run(
            app,
            Command::Report(ReportCommand::Load {
                first: day,
                last: day,
                zone: Zone::Local,
            }),
        ))
    }

    #[test]
    fn load_makes_the_days_report_and_its_answer_is_shown() {
        let mut app = app();
        let day = chrono::Utc::now().date_naive();
        let answer = load(&mut app, day);
        let Msg::Report(ReportResult::Made {
            days,
            result: Ok(report),
        }) = &answer
        else {
            panic!("a report: {answer:?}");
        };
        assert_eq!(*days, (day, day));
        assert_eq!(report.links, 0, "a fresh store has no links");
        app.on_msg(answer);
        assert!(!app.views.report.is_loading());
        assert_eq!(app.views.report.loaded(), Some((day, day)));
        assert!(app.views.report.report().is_some());
    }

    #[test]
    fn links_that_change_while_a_report_is_read_make_it_again_when_it_comes() {
        let mut app = app();
        let day = chrono::Utc::now().date_naive();
        let answer = load(&mut app, day);
        // Another desk's link reached the shop after the report was read.
        app.views.report.invalidate();
        app.on_msg(answer);
        assert!(
            app.views.report.report().is_some(),
            "the older report is shown"
        );
        assert_eq!(
            app.views.report.loaded(),
            None,
            "and made again at the next frame"
        );
    }

    #[test]
    fn a_failed_report_is_said() {
        let mut app = app();
        let day = chrono::Utc::now().date_naive();
        app.apply_report(ReportResult::Made {
            days: (day, day),
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(app.views.report.error().is_some());
        assert!(app.views.report.report().is_none());
    }
}
