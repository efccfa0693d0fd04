//! *Unsent* (the View is still `Pending`): the journal's open rows, sales whose link creation
//! has no known outcome yet (or that need the user's decision). Retry re-sends the same bytes with the same key, so it can never make a
//! second link; Abandon gives up on a row. Rows 23 hours old (an hour short of the server's
//! 24-hour key retention) are `stale` (by their state, or by their age before anything marked them): a retry could then
//! duplicate, so Retry first opens a confirmation that says so, and only its "I checked" button
//! re-sends the row (`force`).

use chrono::{DateTime, Utc};
use egui::{RichText, Ui};

use crate::domain::{Link, format_amount};
use crate::lang::Lang;
use crate::service::CreateError;
use crate::store::{JournalRow, JournalState};
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::PendingCommand;
use crate::ui::problem::{Explain, Note};
use crate::ui::table::{Align, Table, WidgetRows};
use crate::ui::text::UiText;
use crate::ui::theme::{self, icon};
use crate::ui::widgets;

/// "ORDER: completed", said when a row's link was made.
fn completed(link: &Link, lang: Lang) -> Note {
    let order = link.order_or_id();
    Note::Done(format!("{order}: {}", UiText::StateCompleted.get(lang)))
}

/// The state of the Unsent view.
#[derive(Debug, Default)]
pub struct PendingView {
    /// The rows, newest first.
    rows: Vec<JournalRow>,
    /// Keys with a retry or abandon out.
    busy: Vec<String>,
    /// The last message (a retry's outcome).
    note: Option<Note>,
    /// The key of the stale row whose re-send waits for the user's confirmation.
    confirm_stale: Option<String>,
    /// The key of the row the user asked to give up, waiting for the confirmation.
    confirm_abandon: Option<String>,
}

impl PendingView {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.busy.clear();
    }

    /// The journal's open rows, newest first.
    pub fn rows(&self) -> &[JournalRow] {
        &self.rows
    }

    /// The keys with a retry or abandon out.
    pub fn busy(&self) -> &[String] {
        &self.busy
    }

    /// The last message (a retry's outcome).
    pub fn note(&self) -> Option<&Note> {
        self.note.as_ref()
    }

    /// The journal's rows as read again (after a create, a retry, a re-send, a start).
    pub fn on_rows(&mut self, rows: Vec<JournalRow>) {
        self.rows = rows;
    }

    /// A retry of `key` ended, with the rows read after it: its link made, or why not.
    pub fn on_retried(
        &mut self,
        key: &str,
        rows: Option<Vec<JournalRow>>,
        result: &Result<Link, CreateError>,
        lang: Lang,
    ) {
        self.busy.retain(|k| k != key);
        if let Some(rows) = rows {
            self.rows = rows;
        }
        self.note = Some(match result {
            Ok(link) => completed(link, lang),
            Err(e) => Note::Failed(e.problem(lang)),
        });
    }

    /// Giving up on `key` ended: the rows read after it, or why it failed.
    pub fn on_abandoned(
        &mut self,
        key: &str,
        result: Result<Vec<JournalRow>, impl Explain>,
        lang: Lang,
    ) {
        self.busy.retain(|k| k != key);
        match result {
            Ok(rows) => self.rows = rows,
            Err(e) => self.note = Some(Note::Failed(e.problem(lang))),
        }
    }

    /// The background re-send made this link.
    pub fn on_resent(&mut self, link: &Link, lang: Lang) {
        self.note = Some(completed(link, lang));
    }

    /// The background re-send could not run.
    pub fn on_resend_failed(&mut self, error: &impl Explain, lang: Lang) {
        self.note = Some(Note::Failed(error.problem(lang)));
    }

    /// Test set-up: a retry or abandon of `key` is out, as after its button.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_busy(&mut self, key: &str) {
        self.busy.push(key.to_owned());
    }

    /// How many rows wait for the user (the top bar's badge).
    pub fn count(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r.state, JournalState::Pending | JournalState::Stale))
            .count()
    }

    /// Draws the view.
    // Long on purpose: the table's rows with their two actions, kept apart, in one place.
    #[allow(clippy::too_many_lines)]
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        widgets::page_header_ui(
            ui,
            UiText::NavPending.get(lang),
            UiText::PendingExplained.get(lang),
            |_| {},
        );
        if let Some(note) = &self.note {
            crate::ui::problem::note_ui(ui, cx, note);
        }
        if cx.resend.running {
            widgets::hint_ui(ui, &cx.palette, UiText::ResendingNow.get(lang));
        }
        if self.rows.is_empty() {
            widgets::empty_state_ui(
                ui,
                icon::PENDING,
                UiText::NoPending.get(lang),
                UiText::UnsentEmptyHelp.get(lang),
            );
            return;
        }
        egui::ScrollArea::vertical()
            .id_salt("pending-rows")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                self.table_ui(ui, cx);
                if self.rows.iter().any(|r| is_stale(r, cx.now)) {
                    ui.add_space(theme::SPACE_S);
                    ui.label(
                        RichText::new(UiText::StaleExplained.get(lang)).color(cx.palette.warn),
                    );
                }
            });
        self.confirm_ui(ui, cx, Confirm::Stale);
        self.confirm_ui(ui, cx, Confirm::Abandon);
    }
}

impl PendingView {
    /// The rows as a table: the sale (its description over the order number), the amount,
    /// the state, the attempts, the age, and Retry and Abandon.
    fn table_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let amounts: Vec<String> = self.rows.iter().map(|r| amount_text(r, lang)).collect();
        let states: Vec<&str> = [
            JournalState::Pending,
            JournalState::Stale,
            JournalState::Failed,
        ]
        .into_iter()
        .map(|s| state_text(s, lang))
        .collect();
        let ages: Vec<String> = self
            .rows
            .iter()
            .map(|r| age(r.begun.now, cx.now, lang))
            .collect();
        let actions = widgets::text_width(ui, UiText::Retry.get(lang))
            + widgets::text_width(ui, UiText::Abandon.get(lang))
            + 3.0 * theme::SPACE_L
            + 4.0 * ui.spacing().button_padding.x
            + 2.0 * ui.spacing().icon_width;
        let mut table = Table::new()
            .fill(ui, UiText::Description.get(lang), theme::NAME_BUTTON_WIDTH)
            .column(
                ui,
                UiText::Amount.get(lang),
                Align::Right,
                amounts.iter().map(String::as_str),
            )
            .column(ui, UiText::State.get(lang), Align::Left, states)
            .column(ui, UiText::Attempts.get(lang), Align::Right, ["00"])
            .column(
                ui,
                UiText::BoardAge.get(lang),
                Align::Left,
                ages.iter().map(String::as_str),
            )
            .fixed(ui, "", Align::Left, actions)
            // Text on the centre line of the row's buttons.
            .rows_at_least(theme::BUTTON_HEIGHT);
        let rows = std::mem::take(&mut self.rows);
        table.widget_rows_ui(ui, "pending-grid", |t| {
            for (row, amount) in rows.iter().zip(&amounts) {
                self.row_ui(t, cx, row, amount);
            }
        });
        self.rows = rows;
    }

    /// One row of the table.
    fn row_ui(
        &mut self,
        t: &mut WidgetRows<'_>,
        cx: &mut ViewCtx<'_>,
        row: &JournalRow,
        amount: &str,
    ) {
        let lang = cx.lang;
        let key = row.begun.key.key.clone();
        let order = row
            .begun
            .order_number
            .clone()
            .unwrap_or_else(|| key.clone());
        // The sale as staff know it, the order number smaller under it.
        t.cell(|ui| {
            ui.vertical(|ui| {
                if let Some(d) = description(row) {
                    ui.add(egui::Label::new(RichText::new(d).strong()).truncate());
                }
                ui.add(
                    egui::Label::new(RichText::new(&order).small().color(cx.palette.muted))
                        .truncate(),
                );
            });
        });
        t.text(amount);
        let stale = is_stale(row, cx.now);
        let shown_state = if stale {
            JournalState::Stale
        } else {
            row.state
        };
        let text = state_text(shown_state, lang);
        // The technical reason only on hover, never in the row.
        let why = row.last_error.as_deref().unwrap_or_default();
        t.cell(|ui| {
            if stale {
                ui.label(RichText::new(text).color(cx.palette.warn))
                    .on_hover_text(UiText::StaleExplained.get(lang));
            } else if why.is_empty() {
                ui.label(text);
            } else {
                ui.label(text).on_hover_text(why);
            }
        });
        t.text(row.attempts.to_string());
        t.text(RichText::new(age(row.begun.now, cx.now, lang)).color(cx.palette.muted));
        let busy = self.busy.contains(&key);
        let open = matches!(row.state, JournalState::Pending | JournalState::Stale);
        let mut clicked = (false, false);
        t.cell(|ui| {
            let retry = widgets::Action::secondary(UiText::Retry.get(lang))
                .icon(icon::SEND)
                .enabled(open && !busy)
                .show_ui(ui);
            // Apart from Retry (space and a separator between), quiet, and asked again.
            ui.add_space(theme::SPACE_S);
            ui.separator();
            let abandon = widgets::Action::quiet(UiText::Abandon.get(lang))
                .icon(icon::CANCEL)
                .enabled(open && !busy)
                .show_ui(ui);
            let label = format!("{} {order}", UiText::Retry.get(lang));
            retry.widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::Button, open && !busy, &label)
            });
            let label = format!("{} {order}", UiText::Abandon.get(lang));
            abandon.widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::Button, open && !busy, &label)
            });
            clicked = (retry.clicked(), abandon.clicked());
        });
        t.end_row();
        if clicked.0 {
            if stale {
                // Never one click: say what could go wrong first.
                self.confirm_stale = Some(key.clone());
            } else {
                self.busy.push(key.clone());
                cx.emit(Command::Pending(PendingCommand::Retry {
                    key: key.clone(),
                    force: false,
                }));
            }
        }
        if clicked.1 {
            self.confirm_abandon = Some(key);
        }
    }
}

/// A row's amount with its currency (empty when the sale had none).
fn amount_text(row: &JournalRow, lang: Lang) -> String {
    row.begun
        .amount
        .map(|a| format_amount(a, row.begun.currency.unwrap_or_default(), lang))
        .unwrap_or_default()
}

/// What a confirmation asks before it acts on a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Confirm {
    /// A stale row sent again: what the risk is, and what to check.
    Stale,
    /// A row given up: the sale is then not sent again, by the app or the background re-send.
    Abandon,
}

impl PendingView {
    /// The row key `kind` waits to confirm.
    fn confirming(&mut self, kind: Confirm) -> &mut Option<String> {
        match kind {
            Confirm::Stale => &mut self.confirm_stale,
            Confirm::Abandon => &mut self.confirm_abandon,
        }
    }

    /// The confirmation `kind` asks before a row is sent again or given up: the row's order,
    /// amount (and a stale row's age), what the step means, and the two answers; closing the
    /// dialog answers no.
    fn confirm_ui(&mut self, ui: &Ui, cx: &mut ViewCtx<'_>, kind: Confirm) {
        let Some(key) = self.confirming(kind).clone() else {
            return;
        };
        let Some(row) = self.rows.iter().find(|r| r.begun.key.key == key) else {
            *self.confirming(kind) = None;
            return;
        };
        let lang = cx.lang;
        let order = row
            .begun
            .order_number
            .clone()
            .unwrap_or_else(|| key.clone());
        let amount = row
            .begun
            .amount
            .map(|a| format_amount(a, row.begun.currency.unwrap_or_default(), lang))
            .unwrap_or_default();
        // Each answer's button and whether it says yes, in order; the gap between them.
        let (id, title, line, text, answers, gap) = match kind {
            Confirm::Stale => (
                "stale-retry-confirm",
                RichText::new(UiText::StaleConfirmTitle.get(lang))
                    .strong()
                    .color(cx.palette.warn),
                format!(
                    "{order}   {amount}   ({})",
                    age(row.begun.now, cx.now, lang)
                ),
                UiText::StaleConfirm,
                [
                    (
                        widgets::Action::secondary(UiText::SendAnyway.get(lang)).icon(icon::SEND),
                        true,
                    ),
                    (widgets::Action::quiet(UiText::DontSend.get(lang)), false),
                ],
                None,
            ),
            Confirm::Abandon => (
                "abandon-confirm",
                RichText::new(UiText::AbandonConfirmTitle.get(lang)).strong(),
                format!("{order}   {amount}"),
                UiText::AbandonConfirm,
                [
                    (widgets::Action::quiet(UiText::KeepIt.get(lang)), false),
                    (
                        widgets::Action::destructive(icon::CANCEL, UiText::Abandon.get(lang)),
                        true,
                    ),
                ],
                Some(theme::SPACE_L),
            ),
        };
        let mut answer = None;
        let modal = egui::Modal::new(egui::Id::unique(id)).show(ui.ctx(), |ui| {
            ui.set_max_width(theme::NARROW_COLUMN_WIDTH);
            ui.label(title);
            ui.label(RichText::new(line).monospace());
            ui.label(text.get(lang));
            ui.add_space(theme::SPACE_S);
            ui.horizontal(|ui| {
                for (i, (action, yes)) in answers.into_iter().enumerate() {
                    if let Some(gap) = gap.filter(|_| i > 0) {
                        ui.add_space(gap);
                    }
                    if action.show_ui(ui).clicked() {
                        answer = Some(yes);
                    }
                }
            });
        });
        if modal.should_close() {
            answer = Some(false);
        }
        if answer.is_some() {
            *self.confirming(kind) = None;
        }
        if answer == Some(true) {
            self.busy.push(key.clone());
            cx.emit(Command::Pending(match kind {
                Confirm::Stale => PendingCommand::Retry { key, force: true },
                Confirm::Abandon => PendingCommand::Abandon { key },
            }));
        }
    }
}

/// The description of the sale a row would create, read from its request body.
fn description(row: &JournalRow) -> Option<String> {
    let body: serde_json::Value = serde_json::from_slice(&row.begun.body).ok()?;
    let text = body.get("description")?.as_str()?.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// Whether a row is past the server's key retention: marked `stale`, or a `pending` row old
/// enough that the next look at the journal will mark it.
pub fn is_stale(row: &JournalRow, now: DateTime<Utc>) -> bool {
    row.state == JournalState::Stale || (row.state == JournalState::Pending && row.is_stale_at(now))
}

/// A journal state as people read it.
pub fn state_text(state: JournalState, lang: Lang) -> &'static str {
    match state {
        JournalState::Pending => UiText::StatePending,
        JournalState::Stale => UiText::StateStale,
        JournalState::Failed => UiText::StateFailed,
        JournalState::Conflict => UiText::StateConflict,
        JournalState::Completed => UiText::StateCompleted,
        JournalState::Abandoned => UiText::StateAbandoned,
    }
    .get(lang)
}

/// How old a row is, as the board says it, in the app's language: "just now", `12 min`,
/// `3 h 5 min` (Turkish `12 dk`, `3 sa 5 dk`).
pub fn age(since: DateTime<Utc>, now: DateTime<Utc>, lang: Lang) -> String {
    crate::ui::words::age_text(since, now, lang)
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    #[test]
    fn ages_are_short_never_negative_and_in_the_apps_language() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let cases = [
            (Duration::seconds(-5), "just now", "az önce"),
            (Duration::seconds(45), "just now", "az önce"),
            (Duration::minutes(12), "12 min", "12 dk"),
            (Duration::hours(3), "3 h", "3 sa"),
            (Duration::hours(49), "2 d 1 h", "2 gün 1 sa"),
        ];
        for (ago, en, tr) in cases {
            assert_eq!(age(now - ago, now, Lang::En), en);
            assert_eq!(age(now - ago, now, Lang::Tr), tr);
        }
    }
}
