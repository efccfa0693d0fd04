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
        self.report
            .set_report(days, result.map_err(|e| e.problem(lang)));
    }
}
