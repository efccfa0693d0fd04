//! The journal's open rows: link creations whose outcome is not known yet (or that need the
//! user's decision). Retry re-sends the same bytes with the same key, so it can never make a
//! second link; Abandon gives up on a row. Rows 23 hours old (an hour short of the server's
//! 24-hour key retention) are `stale` (by their state, or by their age before anything marked them): a retry could then
//! duplicate, so Retry first opens a confirmation that says so, and only its "I checked" button
//! re-sends the row (`force`).

use chrono::{DateTime, Utc};
use egui::{RichText, Ui};

use crate::domain::format_amount;
use crate::lang::Lang;
use crate::store::{JournalRow, JournalState};
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::PendingCommand;
use crate::ui::text::UiText;
use crate::ui::widgets;

/// The state of the Pending view.
#[derive(Debug, Default)]
pub struct PendingView {
    /// The rows, newest first.
    pub rows: Vec<JournalRow>,
    /// Keys with a retry or abandon out.
    pub busy: Vec<String>,
    /// The last message (a retry's outcome).
    pub note: Option<crate::ui::problem::Note>,
    /// The key of the stale row whose re-send waits for the user's confirmation.
    pub confirm_stale: Option<String>,
}

impl PendingView {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.busy.clear();
    }

    /// How many rows wait for the user (the top bar's badge).
    pub fn count(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r.state, JournalState::Pending | JournalState::Stale))
            .count()
    }

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        ui.heading(UiText::NavPending.get(lang));
        widgets::hint_ui(ui, &cx.palette, UiText::PendingExplained.get(lang));
        if let Some(note) = &self.note {
            crate::ui::problem::note_ui(ui, cx, note);
        }
        if cx.resend.running {
            widgets::hint_ui(ui, &cx.palette, UiText::ResendingNow.get(lang));
        }
        if self.rows.is_empty() {
            ui.label(UiText::NoPending.get(lang));
            return;
        }
        egui::ScrollArea::vertical()
            .id_salt("pending-rows")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("pending-grid")
                    .striped(true)
                    .num_columns(8)
                    .show(ui, |ui| {
                        for h in [
                            UiText::OrderNumber,
                            UiText::Amount,
                            UiText::State,
                            UiText::Attempts,
                            UiText::LastError,
                            UiText::Age,
                        ] {
                            ui.label(RichText::new(h.get(lang)).strong());
                        }
                        ui.label("");
                        ui.label("");
                        ui.end_row();
                        for row in &self.rows {
                            let key = row.key.key.clone();
                            let order = row.order_number.clone().unwrap_or_else(|| key.clone());
                            ui.label(&order);
                            ui.label(
                                row.amount
                                    .map(|a| {
                                        format_amount(a, row.currency.unwrap_or_default(), lang)
                                    })
                                    .unwrap_or_default(),
                            );
                            let stale = is_stale(row, cx.now);
                            let shown_state = if stale {
                                JournalState::Stale
                            } else {
                                row.state
                            };
                            let text = state_text(shown_state, lang);
                            if stale {
                                ui.label(RichText::new(text).color(cx.palette.warn))
                                    .on_hover_text(UiText::StaleExplained.get(lang));
                            } else {
                                ui.label(text);
                            }
                            ui.label(row.attempts.to_string());
                            ui.add(
                                egui::Label::new(row.last_error.clone().unwrap_or_default())
                                    .truncate(),
                            );
                            ui.label(age(row.created_at, cx.now));
                            let busy = self.busy.contains(&key);
                            let open =
                                matches!(row.state, JournalState::Pending | JournalState::Stale);
                            let retry = ui.add_enabled(
                                open && !busy,
                                egui::Button::new(UiText::Retry.get(lang)),
                            );
                            let label = format!("{} {order}", UiText::Retry.get(lang));
                            retry.widget_info(|| {
                                egui::WidgetInfo::labeled(egui::Role::Button, open && !busy, &label)
                            });
                            if retry.clicked() {
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
                            let abandon = ui.add_enabled(
                                open && !busy,
                                egui::Button::new(UiText::Abandon.get(lang)),
                            );
                            let label = format!("{} {order}", UiText::Abandon.get(lang));
                            abandon.widget_info(|| {
                                egui::WidgetInfo::labeled(egui::Role::Button, open && !busy, &label)
                            });
                            if abandon.clicked() {
                                self.busy.push(key.clone());
                                cx.emit(Command::Pending(PendingCommand::Abandon { key }));
                            }
                            ui.end_row();
                        }
                    });
                if self.rows.iter().any(|r| is_stale(r, cx.now)) {
                    ui.add_space(6.0);
                    ui.label(
                        RichText::new(UiText::StaleExplained.get(lang)).color(cx.palette.warn),
                    );
                }
            });
        self.confirm_stale_ui(ui, cx);
    }
}

impl PendingView {
    /// The confirmation before a stale row is sent again: what the risk is, and what to check.
    fn confirm_stale_ui(&mut self, ui: &Ui, cx: &mut ViewCtx<'_>) {
        let Some(key) = self.confirm_stale.clone() else {
            return;
        };
        let Some(row) = self.rows.iter().find(|r| r.key.key == key) else {
            self.confirm_stale = None;
            return;
        };
        let lang = cx.lang;
        let order = row.order_number.clone().unwrap_or_else(|| key.clone());
        let amount = row
            .amount
            .map(|a| format_amount(a, row.currency.unwrap_or_default(), lang))
            .unwrap_or_default();
        let age = age(row.created_at, cx.now);
        let mut answer = None;
        let modal =
            egui::Modal::new(egui::Id::unique("stale-retry-confirm")).show(ui.ctx(), |ui| {
                ui.set_max_width(460.0);
                ui.label(
                    RichText::new(UiText::StaleConfirmTitle.get(lang))
                        .strong()
                        .color(cx.palette.warn),
                );
                ui.label(RichText::new(format!("{order}   {amount}   ({age})")).monospace());
                ui.label(UiText::StaleConfirm.get(lang));
                ui.add_space(8.0);
                ui.horizontal(|ui| {
                    if ui.button(UiText::SendAnyway.get(lang)).clicked() {
                        answer = Some(true);
                    }
                    if ui.button(UiText::CancelDialog.get(lang)).clicked() {
                        answer = Some(false);
                    }
                });
            });
        if modal.should_close() {
            answer = Some(false);
        }
        match answer {
            Some(true) => {
                self.confirm_stale = None;
                self.busy.push(key.clone());
                cx.emit(Command::Pending(PendingCommand::Retry { key, force: true }));
            }
            Some(false) => self.confirm_stale = None,
            None => {}
        }
    }
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

/// How long ago, shortly: `45 s`, `12 min`, `3 h`, `2 d`.
pub fn age(since: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let secs = (now - since).num_seconds().max(0);
    match secs {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", s / 60),
        s if s < 86_400 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    #[test]
    fn ages_are_short_and_never_negative() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let cases = [
            (Duration::seconds(-5), "0 s"),
            (Duration::seconds(45), "45 s"),
            (Duration::minutes(12), "12 min"),
            (Duration::hours(3), "3 h"),
            (Duration::hours(49), "2 d"),
        ];
        for (ago, want) in cases {
            assert_eq!(age(now - ago, now), want);
        }
    }
}
