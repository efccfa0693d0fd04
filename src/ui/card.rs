//! The card form: save a card without a payment.
//!
//! A card number is the most sensitive thing paydesk touches. The number and the CVV live in
//! zeroizing buffers (the domain's [`CardDraft`]); the text field's undo history, which would
//! keep copies, is cleared every frame; the CVV is masked; the number reads on screen as typed
//! but never leaves the window (no copy, no cut, nothing on the primary selection, only `•`s
//! for assistive technologies); and as soon as the request is handed to the worker, the
//! number and CVV are wiped from the form. The result shows the masked
//! number only. `card/save` takes no idempotency key, so an unknown outcome is said plainly and
//! never retried automatically.
//!
//! The form reads as two groups: *Card* (number with the first focus, expiry MM / YYYY side by
//! side under one label, CVV, holder) and *Storage* (usage, alias; the default flag and the
//! customer id folded, as most saves leave them). Each field is as wide as what it holds
//! (`theme::field_width_ui`). While Save is disabled the first problem is said under it,
//! "Cannot save yet: …".

use egui::text::{CCursor, CCursorRange};
use egui::{RichText, Ui};

use crate::api::wire::SavedCard;
use crate::domain::{CardBrand, CardDraft, CardUsage, Field, FieldErrors, FieldProblem};
use crate::lang::Lang;
use crate::service::DeskError;
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::CardCommand;
use crate::ui::problem::Explain;
use crate::ui::text::UiText;
use crate::ui::{theme, widgets, words};

/// What the last save gave.
#[derive(Debug, Clone)]
pub enum CardOutcome {
    /// Saved: the server's record (masked number only).
    Saved(Box<SavedCard>),
    /// Refused or failed.
    Error(crate::ui::problem::Problem),
    /// No answer: the card may or may not be saved.
    Unknown(crate::ui::problem::Problem),
}

/// The state of the card form.
#[derive(Debug, Default)]
pub struct CardForm {
    /// The form (number and CVV zeroizing).
    draft: CardDraft,
    touched: widgets::Touched,
    /// A save is out.
    sending: bool,
    /// The last outcome.
    outcome: Option<CardOutcome>,
    /// The last frame the form was drawn (the card number takes the focus when it reappears).
    last_frame: Option<u64>,
}

impl CardForm {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.sending = false;
    }

    /// The form as typed (number and CVV zeroizing).
    pub fn draft(&self) -> &CardDraft {
        &self.draft
    }

    /// Whether a save is out.
    pub fn is_sending(&self) -> bool {
        self.sending
    }

    /// The last outcome.
    pub fn outcome(&self) -> Option<&CardOutcome> {
        self.outcome.as_ref()
    }

    /// The save's answer: the card as saved, an outcome not known (the server may hold it),
    /// or why not.
    pub fn on_saved(&mut self, result: Result<SavedCard, DeskError>, lang: Lang) {
        self.sending = false;
        self.outcome = Some(match result {
            Ok(card) => CardOutcome::Saved(Box::new(card)),
            Err(e) if e.is_unknown_outcome() => CardOutcome::Unknown(e.problem(lang)),
            Err(e) => CardOutcome::Error(e.problem(lang)),
        });
    }

    /// Test set-up: a save is out, as after Save.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_sending(&mut self) {
        self.sending = true;
    }

    /// Marks a field as touched, so that its errors show.
    pub fn touch(&mut self, field: Field) {
        self.touched.touch(field);
    }

    /// Draws the form: the card in one group, how it is stored in another (the rarely used
    /// default flag and customer id folded), then Save with the reason it is disabled.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let today = cx.zone.date_of(cx.now);
        let validation = self.draft.validate(today);
        let errors = validation.as_ref().err().cloned().unwrap_or_default();
        let focus_number = widgets::newly_shown(ui, &mut self.last_frame);

        egui::ScrollArea::vertical()
            .id_salt("card-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.set_max_width(theme::CONTENT_MAX_WIDTH);
                widgets::page_header_ui(
                    ui,
                    UiText::NavCard.get(lang),
                    UiText::CardHelp.get(lang),
                    |_| {},
                );
                widgets::group_ui(ui, UiText::CardGroup.get(lang), |ui| {
                    self.card_group_ui(ui, cx, &errors, focus_number);
                });
                widgets::group_ui(ui, UiText::StorageGroup.get(lang), |ui| {
                    self.storage_group_ui(ui, cx, &errors);
                });

                let ready = validation.is_ok() && !self.sending;
                let label = if self.sending {
                    UiText::Sending.get(lang)
                } else {
                    UiText::SaveCard.get(lang)
                };
                let clicked = widgets::Action::primary(theme::icon::CARD, label)
                    .enabled(ready)
                    .show_ui(ui)
                    .clicked();
                if !ready
                    && !self.sending
                    && let Some(first) = errors.iter().next()
                {
                    // A form not begun is not wrong: it says what comes first.
                    let text = if first.field == Field::CardNumber
                        && first.problem == FieldProblem::Required
                    {
                        UiText::SaveNeedsNumber.get(lang).to_owned()
                    } else {
                        format!("{} {}", UiText::CannotSave.get(lang), first.message(lang))
                    };
                    widgets::hint_ui(ui, &cx.palette, &text);
                }
                if clicked && let Ok(request) = validation {
                    self.sending = true;
                    self.outcome = None;
                    // Hand the request over and wipe the form's copy at once.
                    self.draft.wipe();
                    self.touched
                        .retain(|f| !matches!(f, Field::CardNumber | Field::Cvv));
                    cx.emit(Command::Card(CardCommand::Save {
                        request: Box::new(request),
                    }));
                }

                self.outcome_ui(ui, cx);
            });
    }

    /// Number (with the brand), expiry MM / YYYY side by side with the CVV, holder.
    // Long on purpose: the card's fields in tab order, the number's no-copy guard beside it.
    #[allow(clippy::too_many_lines)]
    fn card_group_ui(
        &mut self,
        ui: &mut Ui,
        cx: &ViewCtx<'_>,
        errors: &FieldErrors,
        focus_number: bool,
    ) {
        let lang = cx.lang;
        // Card number: grouped as typed, brand shown, Luhn error live once left. Wide enough
        // for the longest number grouped (19 digits, 4 spaces).
        let label = ui.label(Field::CardNumber.label(lang));
        ui.horizontal(|ui| {
            let id = ui.make_persistent_id("card-number");
            // No copy, and no cut, which would take the number out of the field for a clipboard
            // that never gets it.
            if ui.memory(|m| m.has_focus(id)) {
                ui.input_mut(|i| {
                    i.events
                        .retain(|e| !matches!(e, egui::Event::Cut | egui::Event::Copy));
                });
            }
            let font = egui::TextStyle::Monospace.resolve(ui.style());
            let color = ui
                .visuals()
                .override_text_color
                .unwrap_or_else(|| ui.visuals().widgets.inactive.text_color());
            // Drawn as typed: egui's password mode keeps the number off the clipboard, the
            // primary selection, the input method's learning and the events it reports, and
            // this layouter puts the digits back on screen only.
            let mut as_typed = |ui: &Ui, text: &dyn egui::TextBuffer, _wrap: f32| {
                let job = egui::text::LayoutJob::simple_singleline(
                    text.as_str().to_owned(),
                    font.clone(),
                    color,
                );
                ui.fonts_mut(|f| f.layout_job(job))
            };
            let mut output = egui::TextEdit::singleline(&mut *self.draft.card_number)
                .id(id)
                .password(true)
                .layouter(&mut as_typed)
                .desired_width(theme::mono_field_width_ui(ui, 23))
                .font(egui::TextStyle::Monospace)
                .hint_text("0000 0000 0000 0000")
                .show(ui);
            let response = output.response.response.clone().labelled_by(label.id);
            widgets::speak_as(
                ui.ctx(),
                id,
                &output.galley,
                &spoken_number(&self.draft.card_number),
            );
            if focus_number {
                response.request_focus();
            }
            if response.changed() {
                let at_end = output.cursor_range.is_none_or(|r| {
                    r.primary.index >= egui::text::CharIndex(self.draft.card_number.chars().count())
                });
                self.draft.regroup_number();
                if at_end {
                    let end = CCursor::new(self.draft.card_number.chars().count());
                    output
                        .state
                        .cursor
                        .set_char_range(Some(CCursorRange::one(end)));
                }
            }
            // The undo history would keep copies of the number: never keep one.
            output.state.clear_undoer();
            output.state.store(ui.ctx(), id);
            // The view puts the focus here by itself: leaving it untouched (to another view,
            // say) is not a mistake to point out; the reason under Save still names it.
            self.touched.track(&response, Field::CardNumber);
            let brand = self.draft.brand();
            if brand != CardBrand::Unknown {
                ui.label(
                    RichText::new(format!("{}: {}", UiText::Brand.get(lang), brand.name()))
                        .strong(),
                );
            }
        });
        self.touched.errors_ui(ui, cx, errors, &Field::CardNumber);
        ui.add_space(theme::SPACE_XS);

        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                // One label for both parts; each field keeps its own name for screen readers.
                ui.label(UiText::CardExpiry.get(lang));
                ui.horizontal(|ui| {
                    let draft = &mut self.draft;
                    // Each part: its field, its width in characters and its value.
                    let parts = [
                        (Field::ExpiryMonth, 2, &mut draft.expiry_month),
                        (Field::ExpiryYear, 4, &mut draft.expiry_year),
                    ];
                    for (field, chars, value) in parts {
                        let (hint, name) = if field == Field::ExpiryMonth {
                            (UiText::HintMonth, UiText::ExpiryMonth)
                        } else {
                            ui.label("/");
                            (UiText::HintYear, UiText::ExpiryYear)
                        };
                        let hint = hint.get(lang);
                        let r = ui
                            .add(
                                egui::TextEdit::singleline(value)
                                    .desired_width(theme::field_width_with_hint_ui(ui, chars, hint))
                                    .hint_text(hint),
                            )
                            .accessible_name(name.get(lang));
                        self.touched.track(&r, field);
                    }
                });
            });
            ui.add_space(theme::SPACE_M);
            ui.vertical(|ui| {
                let l = ui.label(UiText::Cvv.get(lang));
                let id = ui.make_persistent_id("card-cvv");
                let mut output = egui::TextEdit::singleline(&mut *self.draft.cvv)
                    .id(id)
                    .password(true)
                    .desired_width(theme::field_width_ui(ui, 4))
                    .show(ui);
                output.state.clear_undoer();
                let r = output.response.response.clone().labelled_by(l.id);
                output.state.store(ui.ctx(), id);
                self.touched.track(&r, Field::Cvv);
            });
        });
        // Under the row, so that a long sentence never moves the fields beside it.
        for field in [Field::ExpiryMonth, Field::ExpiryYear, Field::Cvv] {
            self.touched.errors_ui(ui, cx, errors, &field);
        }
        ui.add_space(theme::SPACE_XS);

        let spec = widgets::FormField::new(Field::CardHolderName, UiText::CardHolder.get(lang))
            .width(theme::field_width_ui(ui, 26));
        self.touched
            .field_ui(ui, cx, errors, spec, &mut self.draft.card_holder_name);
    }

    /// Usage and alias; the default flag and the customer id folded (most saves leave them).
    fn storage_group_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors) {
        let lang = cx.lang;
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                let usage_label = ui.label(UiText::Usage.get(lang));
                let current = if self.draft.usage.trim().is_empty() {
                    CardUsage::default()
                } else {
                    self.draft.usage.parse().unwrap_or_default()
                };
                let mut usage = current;
                let combo = egui::ComboBox::from_id_salt("card-usage")
                    .width(theme::field_width_ui(ui, 13))
                    .selected_text(words::card_usage(usage.as_str(), lang).text)
                    .show_ui(ui, |ui| {
                        for u in CardUsage::ALL {
                            let word = words::card_usage(u.as_str(), lang);
                            ui.selectable_value(&mut usage, *u, word.text)
                                .on_hover_text(word.raw);
                        }
                    });
                let _ = combo.response.labelled_by(usage_label.id);
                if usage != current || self.draft.usage.is_empty() {
                    usage.as_str().clone_into(&mut self.draft.usage);
                }
            });
            ui.add_space(theme::SPACE_M);
            ui.vertical(|ui| {
                let spec = widgets::FormField::new(Field::Alias, UiText::Alias.get(lang))
                    .width(theme::field_width_ui(ui, 24));
                self.touched
                    .field_ui(ui, cx, errors, spec, &mut self.draft.alias);
            });
        });
        ui.add_space(theme::SPACE_XS);
        // Open by itself when a folded field has something to say.
        let folded_error = [Field::CustomerId]
            .iter()
            .any(|f| self.touched.has_error(errors, f));
        egui::CollapsingHeader::new(UiText::CardMoreOptions.get(lang))
            .id_salt("card-more")
            .open(folded_error.then_some(true))
            .show(ui, |ui| {
                ui.checkbox(&mut self.draft.set_as_default, UiText::SetDefault.get(lang));
                ui.add_space(theme::SPACE_XS);
                let spec = widgets::FormField::new(Field::CustomerId, UiText::CustomerId.get(lang))
                    .width(theme::field_width_ui(ui, 24));
                self.touched
                    .field_ui(ui, cx, errors, spec, &mut self.draft.customer_id);
            });
    }

    fn outcome_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        match &self.outcome {
            Some(CardOutcome::Saved(card)) => {
                ui.separator();
                ui.label(
                    RichText::new(UiText::CardSaved.get(lang))
                        .color(cx.palette.ok)
                        .strong(),
                );
                egui::Grid::new("card-result")
                    .num_columns(2)
                    .show(ui, |ui| {
                        // API values in words, the server's spelling in the tooltip.
                        let plain = |v: Option<String>| {
                            v.map(|text| words::Word {
                                raw: text.clone(),
                                text,
                            })
                        };
                        let rows = [
                            (UiText::MaskedPan, plain(card.masked_pan.clone())),
                            (
                                UiText::Brand,
                                card.brand.as_deref().map(|b| words::card_brand(b, lang)),
                            ),
                            (UiText::Bank, plain(card.bank_name.clone())),
                            (
                                UiText::CardType,
                                card.card_type.as_deref().map(|t| words::card_type(t, lang)),
                            ),
                            (
                                UiText::Status,
                                card.status
                                    .as_ref()
                                    .map(|s| words::card_status(s.as_str(), lang)),
                            ),
                            (
                                UiText::Usage,
                                card.usage.map(|u| words::card_usage(u.as_str(), lang)),
                            ),
                            (UiText::Alias, plain(card.alias.clone())),
                        ];
                        for (label, value) in rows {
                            ui.label(RichText::new(label.get(lang)).color(cx.palette.muted));
                            match value {
                                Some(word) if word.text == word.raw => {
                                    ui.label(word.text);
                                }
                                Some(word) => {
                                    words::word_ui(ui, &word);
                                }
                                None => {
                                    ui.label(RichText::new("–").color(cx.palette.muted));
                                }
                            }
                            ui.end_row();
                        }
                    });
                widgets::hint_ui(ui, &cx.palette, UiText::CardWiped.get(lang));
            }
            Some(CardOutcome::Error(text)) => {
                ui.separator();
                crate::ui::problem::problem_ui(ui, cx, text);
                widgets::hint_ui(ui, &cx.palette, UiText::CardWiped.get(lang));
            }
            Some(CardOutcome::Unknown(text)) => {
                ui.separator();
                // One sentence with its action; what the server or the network said behind
                // Details (issue 29).
                let detail = [Some(text.sentence.clone()), text.detail.clone()];
                let folded = crate::ui::problem::Problem {
                    sentence: UiText::CardUnknownOutcome.get(lang).to_owned(),
                    detail: Some(detail.into_iter().flatten().collect::<Vec<_>>().join("\n")),
                };
                crate::ui::problem::warning_ui(ui, cx, &folded);
                widgets::hint_ui(ui, &cx.palette, UiText::CardWiped.get(lang));
            }
            None => {}
        }
    }
}

/// The card number as assistive technologies get it: every digit a `•`, the grouping kept, one
/// character for each character on screen. (AccessKit's platform adapters mask a password
/// field's text themselves; this keeps the digits out of the tree the app hands them too.)
fn spoken_number(grouped: &str) -> String {
    grouped
        .chars()
        .map(|c| if c.is_ascii_digit() { '•' } else { c })
        .collect()
}
