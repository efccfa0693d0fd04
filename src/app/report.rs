//! The day close: what the links of some days came to.

use chrono::NaiveDate;

use super::App;
use super::logic::Msg;
use crate::service::DeskError;
use crate::store::DayReport;
use crate::ui::ReportCommand;
use crate::ui::problem::Explain;

/// A background result of the day close.
#[derive(Debug)]
pub enum ReportResult {
    /// A day report.
    Made {
        /// The first and the last day it covers.
        days: (NaiveDate, NaiveDate),
        /// The report, or why there is none.
        result: Result<DayReport, DeskError>,
    },
}

impl App {
    /// Runs a report command.
    pub(crate) fn run_report(&mut self, command: ReportCommand) {
        let ReportCommand::Load { first, last, zone } = command;
        let Some(desk) = self.desk_or_idle() else {
            return;
        };
        self.spawn(async move {
            let result = tokio::task::spawn_blocking(move || desk.day_report(first, last, zone))
                .await
                .unwrap_or_else(|e| Err(DeskError::Sandbox(e.to_string())));
            Msg::Report(ReportResult::Made {
                days: (first, last),
                result,
            })
        });
    }

    /// Takes a report result into the state.
    pub(crate) fn apply_report(&mut self, result: ReportResult) {
        let lang = self.lang();
        let ReportResult::Made { days, result } = result;
        self.views
            .report
            .set_report(days, result.map_err(|e| e.problem(lang)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Command;
    use crate::app::testing::{app, only, run};
    use crate::clock::Zone;

    #[test]
    fn load_makes_the_days_report_and_its_answer_is_shown() {
        let mut app = app();
        let day = chrono::Utc::now().date_naive();
        app.views.report.loading = true;
        let answer = only(run(
            &mut app,
            Command::Report(ReportCommand::Load {
                first: day,
                last: day,
                zone: Zone::Local,
            }),
        ));
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
        assert!(!app.views.report.loading);
        assert_eq!(app.views.report.loaded, Some((day, day)));
        assert!(app.views.report.report.is_some());
    }

    #[test]
    fn a_failed_report_is_said() {
        let mut app = app();
        let day = chrono::Utc::now().date_naive();
        app.apply_report(ReportResult::Made {
            days: (day, day),
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(app.views.report.error.is_some());
        assert!(app.views.report.report.is_none());
    }
}
