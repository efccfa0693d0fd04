//! Create and what a send said: "This sale" with the total and Create (Ctrl+Enter) under it,
//! disabled with one reason while the draft is invalid; the server's answer above it.
//!
//! Once sent, the form stands for those exact bytes: its fields are read-only while the request
//! is out and for as long as the journal keeps the order pending (an unknown outcome). Create
//! then becomes "Send again", which re-sends the journal's row with the same key
//! ([`PendingCommand::Retry`]), and starting a new sale asks first, since the last one may
//! already have a link.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};

use crate::domain::{Field, FieldErrors, FieldProblem, format_amount};
use crate::lang::Lang;
use crate::store::{JournalRow, JournalState};
use crate::ui::Command;
use crate::ui::command::{LinkCommand, PendingCommand};
use crate::ui::text::UiText;
use crate::ui::{FormLock, ViewCtx};
use crate::ui::{theme, widgets};

use super::{MARK_STROKE, NewLinkForm, Sale};

/// What the server said about the last send, shown above the Create button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendNote {
    /// A refusal or error.
    Error(crate::ui::problem::Problem),
    /// The outcome is not known; the journal keeps the request.
    Unknown(crate::ui::problem::Problem),
    /// A request for this order is already out.
    AlreadyPending,
}

/// What "This sale" keeps for the total, the state, Create and its reason under the lines, so
/// the lines scroll before Create leaves the window.
pub const SALE_RESERVE: f32 = 260.0;
/// The least room the lines get.
pub const SALE_LINES_MIN: f32 = 60.0;
/// The space inside the "This sale" card.
pub const SALE_MARGIN: i8 = 12;
/// The widest the "new sale?" confirmation grows.
pub const CONFIRM_WIDTH: f32 = 420.0;

impl NewLinkForm {
    /// The lock for these journal rows at `now`: the form's last sent request is still open
    /// (`pending`, or `stale` once older than the key retention) and the form still shows its
    /// order.
    pub fn lock_of(&self, rows: &[JournalRow], now: DateTime<Utc>) -> Option<FormLock> {
        let key = self.sent_key.as_deref()?;
        if key.strip_prefix("link-") != Some(self.draft.order_number.trim()) {
            return None;
        }
        let row = rows.iter().find(|r| r.begun.key.key == key)?;
        match row.state {
            JournalState::Pending if !row.is_stale_at(now) => Some(FormLock::Pending {
                key: key.to_owned(),
            }),
            JournalState::Pending | JournalState::Stale => Some(FormLock::Stale),
            _ => None,
        }
    }

    /// Whether the fields are read-only: a request is out, or the journal holds the order
    /// (`lock`, the frame's [`ViewCtx::form_lock`]).
    pub fn is_read_only(&self, lock: Option<&FormLock>) -> bool {
        self.sending || lock.is_some()
    }

    /// "This sale": the lines (when `sale.lines`), the total, whether the items add up to the
    /// amount in words, and Create full width under them, with one reason when it cannot
    /// create yet.
    pub(super) fn this_sale_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, sale: Sale<'_>) {
        let lang = cx.lang;
        let figures = sale.figures;
        let currency = self.draft.currency;
        ui.label(
            RichText::new(UiText::ThisSale.get(lang))
                .heading()
                .strong()
                .color(ui.visuals().strong_text_color()),
        );
        ui.add_space(theme::SPACE_XS);
        egui::Frame::group(ui.style())
            .fill(ui.visuals().faint_bg_color)
            .corner_radius(theme::CORNER_RADIUS)
            .inner_margin(egui::Margin::same(SALE_MARGIN))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                let lines = if sale.lines {
                    self.typed_lines()
                } else {
                    Vec::new()
                };
                if !lines.is_empty() {
                    let room = (ui.available_height() - SALE_RESERVE).max(SALE_LINES_MIN);
                    // Only the lines in view are laid out: a sale of 200 items stays a frame
                    // well under a millisecond.
                    let height = ui.spacing().interact_size.y;
                    egui::ScrollArea::vertical()
                        .id_salt("sale-lines")
                        .max_height(room)
                        .auto_shrink([false, true])
                        .show_rows(ui, height, lines.len(), |ui, range| {
                            self.sale_lines_ui(ui, cx, figures, &lines[range]);
                        });
                    ui.separator();
                }
                let total = figures.amount.or(figures.items_total);
                // "Total" centred on the figure beside it (a row is as tall as the interact
                // size when it starts).
                let row = ui.text_style_height(&theme::amount_style());
                ui.scope(|ui| {
                    ui.spacing_mut().interact_size.y = row;
                    ui.horizontal(|ui| {
                        ui.label(RichText::new(UiText::SaleTotal.get(lang)).strong());
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                            let text = format_amount(total.unwrap_or_default(), currency, lang);
                            let mut rich = RichText::new(&text).text_style(theme::amount_style());
                            if total.is_none() {
                                rich = rich.color(cx.palette.muted);
                            } else {
                                rich = rich.strong();
                            }
                            let spoken = format!("{}: {text}", UiText::SaleTotal.get(lang));
                            ui.label(rich).widget_info(|| {
                                egui::WidgetInfo::labeled(egui::Role::Label, true, &spoken)
                            });
                        });
                    });
                });
                self.items_state_ui(ui, cx, figures);
            });
        ui.add_space(theme::SPACE_S);
        match sale.lock.clone() {
            Some(lock) => self.locked_send_ui(ui, cx, &lock),
            None => self.send_ui(ui, cx, sale.validation, sale.expiry_readable, lang),
        }
    }

    /// Why the fields cannot be edited, above them: one sentence in one colour (issue 29), what
    /// the server said, the HTTP status and the automatic re-send's next try behind Details.
    pub(super) fn lock_banner_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>, lock: &FormLock) {
        let lang = cx.lang;
        egui::Frame::group(ui.style())
            .stroke(egui::Stroke::new(MARK_STROKE, cx.palette.warn))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                let (sentence, details) = match lock {
                    FormLock::Pending { .. } => {
                        let sentence = if cx.resend.running {
                            UiText::ResendingNow
                        } else {
                            UiText::UnknownOutcome
                        };
                        let mut details = vec![UiText::FormLocked.get(lang).to_owned()];
                        if let Some(SendNote::Unknown(why)) = &self.note {
                            details.push(why.sentence.clone());
                            details.extend(why.detail.clone());
                        }
                        let mut again = UiText::ResendsByItself.get(lang).to_owned();
                        if let Some(at) = cx.resend.next {
                            let at = cx.zone.local(at).format("%H:%M:%S");
                            let _ = write!(again, " {} {at}.", UiText::NextTry.get(lang));
                        }
                        details.push(again);
                        (sentence, details)
                    }
                    FormLock::Stale => (UiText::FormStale, Vec::new()),
                };
                let problem = crate::ui::problem::Problem {
                    sentence: sentence.get(lang).to_owned(),
                    detail: (!details.is_empty()).then(|| details.join("\n")),
                };
                crate::ui::problem::warning_ui(ui, cx, &problem);
            });
    }

    /// The buttons of a locked form: send the journal's row again (never a new request), or
    /// start a new sale after a confirmation.
    fn locked_send_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, lock: &FormLock) {
        let lang = cx.lang;
        if let Some(SendNote::Error(problem)) = &self.note {
            crate::ui::problem::problem_ui(ui, cx, problem);
        }
        if self.note == Some(SendNote::AlreadyPending) {
            ui.label(RichText::new(UiText::AlreadyPending.get(lang)).color(cx.palette.warn));
        }
        let shortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);
        let pressed = ui.input_mut(|i| i.consume_shortcut(&shortcut));
        match lock {
            FormLock::Pending { key } => {
                let ready = !self.sending && !cx.resend.running;
                // The banner says whose send it is (the form's or the background's).
                let label = if self.sending || cx.resend.running {
                    UiText::Sending
                } else {
                    UiText::SendAgain
                };
                let button = widgets::Action::primary(theme::icon::SEND, label.get(lang))
                    .enabled(ready)
                    .full_width(ui)
                    .show_ui(ui);
                if (button.clicked() || pressed) && ready {
                    self.sending = true;
                    self.note = None;
                    cx.emit(Command::Pending(PendingCommand::Retry {
                        key: key.clone(),
                        force: false,
                    }));
                }
            }
            FormLock::Stale => {
                if widgets::Action::primary(theme::icon::PENDING, UiText::OpenPending.get(lang))
                    .full_width(ui)
                    .show_ui(ui)
                    .clicked()
                {
                    cx.emit(Command::Navigate {
                        view: crate::ui::View::Pending,
                    });
                }
            }
        }
        ui.add_space(theme::SPACE_S);
        if widgets::Action::secondary(UiText::NewLink.get(lang))
            .icon(theme::icon::NEW_LINK)
            .enabled(!self.sending)
            .full_width(ui)
            .show_ui(ui)
            .clicked()
        {
            self.confirm_new = true;
        }
    }

    /// "New link" while the last sale has no known outcome: ask first.
    pub(super) fn confirm_new_ui(&mut self, ui: &Ui, cx: &mut ViewCtx<'_>) {
        if !self.confirm_new {
            return;
        }
        let lang = cx.lang;
        let modal = egui::Modal::new(egui::Id::unique("new-sale-confirm")).show(ui.ctx(), |ui| {
            ui.set_max_width(CONFIRM_WIDTH);
            ui.label(RichText::new(UiText::NewSaleConfirm.get(lang)).strong());
            ui.label(UiText::NewSaleExplained.get(lang));
            ui.add_space(theme::SPACE_S);
            ui.horizontal(|ui| {
                if ui.button(UiText::StartNewSale.get(lang)).clicked() {
                    self.confirm_new = false;
                    cx.emit(Command::Link(LinkCommand::New));
                }
                if ui.button(UiText::KeepSale.get(lang)).clicked() {
                    self.confirm_new = false;
                }
            });
        });
        if modal.should_close() {
            self.confirm_new = false;
        }
    }

    fn send_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        validation: Result<crate::domain::LinkRequest, FieldErrors>,
        expiry_readable: bool,
        lang: Lang,
    ) {
        if let Some(expected) = self.server_expected {
            ui.horizontal(|ui| {
                ui.label(format!(
                    "{} {}",
                    UiText::ServerExpects.get(lang),
                    format_amount(expected, self.draft.currency, lang)
                ));
                if widgets::Action::secondary(UiText::UseExpected.get(lang))
                    .show_ui(ui)
                    .clicked()
                {
                    // The server prices the items (the catalog here may be behind): its
                    // total stands while the items do.
                    self.draft.expected_amount_fix(expected);
                    self.server_expected = None;
                    self.note = None;
                }
            });
        }
        match &self.note {
            Some(SendNote::Error(problem)) => {
                crate::ui::problem::problem_ui(ui, cx, problem);
            }
            Some(SendNote::Unknown(problem)) => {
                // One sentence; what the server said goes behind Details with its status.
                let detail = [Some(problem.sentence.clone()), problem.detail.clone()];
                let folded = crate::ui::problem::Problem {
                    sentence: UiText::UnknownOutcome.get(lang).to_owned(),
                    detail: Some(detail.into_iter().flatten().collect::<Vec<_>>().join("\n")),
                };
                crate::ui::problem::warning_ui(ui, cx, &folded);
            }
            Some(SendNote::AlreadyPending) => {
                ui.label(RichText::new(UiText::AlreadyPending.get(lang)).color(cx.palette.warn));
            }
            None => {}
        }

        let shortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);
        let pressed = ui.input_mut(|i| i.consume_shortcut(&shortcut));
        let ready = validation.is_ok() && expiry_readable && !self.sending;
        let label = if self.sending {
            UiText::Sending.get(lang)
        } else {
            UiText::Create.get(lang)
        };
        let button = widgets::Action::primary(theme::icon::CREATE, label)
            .enabled(ready)
            .full_width(ui)
            .show_ui(ui);
        let create = (button.clicked() || pressed) && ready;
        if pressed && !ready && !self.sending {
            // A create attempt: every field now says what is wrong with it.
            self.touched.show_all();
        }
        if !ready && !self.sending {
            // One plain reason, the first in the form's order; each field says its own.
            let first = validation.as_ref().err().and_then(|e| e.iter().next());
            // A form not begun is not wrong: it says what comes first, not "required".
            let text = match first {
                Some(e) if e.field == Field::Amount && e.problem == FieldProblem::Required => {
                    UiText::CreateNeedsAmount.get(lang).to_owned()
                }
                Some(e) => format!("{} {}", UiText::CannotCreate.get(lang), e.message(lang)),
                None => format!(
                    "{} {}",
                    UiText::CannotCreate.get(lang),
                    UiText::ExpiryBadDate.get(lang)
                ),
            };
            ui.label(RichText::new(text).color(cx.palette.muted));
        } else if !self.sending {
            widgets::hint_ui(ui, &cx.palette, UiText::CreateShortcut.get(lang));
        }
        if create && let Ok(request) = validation {
            self.sending = true;
            self.note = None;
            self.sent_key = Some(request.idempotency_key());
            cx.emit(Command::Link(LinkCommand::Create {
                request: Box::new(request),
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use crate::store::JournalKey;

    use super::*;

    fn row(key: &str, state: JournalState, created_at: DateTime<Utc>) -> JournalRow {
        JournalRow {
            id: 1,
            begun: crate::store::NewJournalRow {
                key: JournalKey::new("sandbox", "link.create", key),
                body: crate::secrets::Redacted(b"{}".to_vec()),
                order_number: key.strip_prefix("link-").map(str::to_owned),
                amount: None,
                currency: None,
                now: created_at,
                began_by: None,
            },
            updated_at: created_at,
            state,
            attempts: 5,
            last_error: None,
            link_id: None,
        }
    }

    #[test]
    fn the_form_is_locked_only_by_the_open_row_of_the_request_it_sent() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let mut form = NewLinkForm::new("PD-1".into());
        let pending = [row("link-PD-1", JournalState::Pending, now)];
        // A row for the order that this form did not send (another counter, the CLI).
        assert_eq!(form.lock_of(&pending, now), None);

        form.sent_key = Some("link-PD-1".into());
        let locked = Some(FormLock::Pending {
            key: "link-PD-1".into(),
        });
        assert_eq!(form.lock_of(&pending, now), locked);
        // Past the key retention, the form no longer re-sends it.
        let later = now + Duration::hours(24);
        assert_eq!(form.lock_of(&pending, later), Some(FormLock::Stale));
        let stale = [row("link-PD-1", JournalState::Stale, now)];
        assert_eq!(form.lock_of(&stale, now), Some(FormLock::Stale));
        // Finished rows free the form.
        for state in [
            JournalState::Completed,
            JournalState::Failed,
            JournalState::Conflict,
            JournalState::Abandoned,
        ] {
            assert_eq!(form.lock_of(&[row("link-PD-1", state, now)], now), None);
        }
        assert_eq!(form.lock_of(&[], now), None);
        // A new sale (another order number) is not locked by the old row.
        form.draft.order_number = "PD-2".into();
        assert_eq!(form.lock_of(&pending, now), None);
    }
}
