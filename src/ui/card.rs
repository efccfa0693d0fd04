//! The card form: save a card without a payment.
//!
//! A card number is the most sensitive thing paydesk touches. The number and the CVV live in
//! zeroizing buffers (the domain's [`CardDraft`]); the text field's undo history, which would
//! keep copies, is cleared every frame; the CVV is masked; and as soon as the request is handed
//! to the worker, the number and CVV are wiped from the form. The result shows the masked
//! number only. `card/save` takes no idempotency key, so an unknown outcome is said plainly and
//! never retried automatically.

use std::collections::HashSet;

use chrono::NaiveDate;
use egui::text::{CCursor, CCursorRange};
use egui::{RichText, Ui};

use crate::api::wire::SavedCard;
use crate::app::Command;
use crate::domain::{CardBrand, CardDraft, CardUsage, Field, FieldErrors};
use crate::ui::ViewCtx;
use crate::ui::text::T;
use crate::ui::widgets;

/// What the last save gave.
#[derive(Debug, Clone)]
pub enum CardOutcome {
    /// Saved: the server's record (masked number only).
    Saved(Box<SavedCard>),
    /// Refused or failed, with a sentence.
    Error(String),
    /// No answer: the card may or may not be saved.
    Unknown(String),
}

/// The state of the card form.
#[derive(Debug, Default)]
pub struct CardForm {
    /// The form (number and CVV zeroizing).
    pub draft: CardDraft,
    touched: HashSet<Field>,
    /// A save is out.
    pub sending: bool,
    /// The last outcome.
    pub outcome: Option<CardOutcome>,
}

impl CardForm {
    /// Marks a field as left, so that its errors show.
    pub fn touch(&mut self, field: Field) {
        self.touched.insert(field);
    }

    /// Draws the form.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let today = cx.now.with_timezone(&chrono::Local).date_naive();
        let validation = self.draft.validate(today);
        let errors = validation.as_ref().err().cloned().unwrap_or_default();

        egui::ScrollArea::vertical()
            .id_salt("card-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.set_max_width(640.0);
                ui.heading(T::NavCard.get(lang));

                // Card number: grouped as typed, brand shown, Luhn error live once left.
                let label = ui.label(Field::CardNumber.label(lang));
                ui.horizontal(|ui| {
                    let id = ui.make_persistent_id("card-number");
                    let mut output = egui::TextEdit::singleline(&mut *self.draft.card_number)
                        .id(id)
                        .desired_width(260.0)
                        .font(egui::TextStyle::Monospace)
                        .hint_text("0000 0000 0000 0000")
                        .show(ui);
                    let response = output.response.response.clone().labelled_by(label.id);
                    if response.changed() {
                        let at_end = output.cursor_range.is_none_or(|r| {
                            r.primary.index
                                >= egui::text::CharIndex(self.draft.card_number.chars().count())
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
                    if response.lost_focus() {
                        self.touched.insert(Field::CardNumber);
                    }
                    let brand = self.draft.brand();
                    if brand != CardBrand::Unknown {
                        ui.label(
                            RichText::new(format!("{}: {}", T::Brand.get(lang), brand.name()))
                                .strong(),
                        );
                    }
                });
                self.errors_ui(ui, cx, &errors, Field::CardNumber);

                ui.horizontal_top(|ui| {
                    ui.vertical(|ui| {
                        let r = widgets::labelled_text_ui(
                            ui,
                            T::ExpiryMonth.get(lang),
                            &mut self.draft.expiry_month,
                        );
                        self.track(&r, Field::ExpiryMonth);
                        self.errors_ui(ui, cx, &errors, Field::ExpiryMonth);
                    });
                    ui.vertical(|ui| {
                        let r = widgets::labelled_text_ui(
                            ui,
                            T::ExpiryYear.get(lang),
                            &mut self.draft.expiry_year,
                        );
                        self.track(&r, Field::ExpiryYear);
                        self.errors_ui(ui, cx, &errors, Field::ExpiryYear);
                    });
                    ui.vertical(|ui| {
                        let l = ui.label(T::Cvv.get(lang));
                        let id = ui.make_persistent_id("card-cvv");
                        let mut output = egui::TextEdit::singleline(&mut *self.draft.cvv)
                            .id(id)
                            .password(true)
                            .desired_width(60.0)
                            .show(ui);
                        output.state.clear_undoer();
                        let r = output.response.response.clone().labelled_by(l.id);
                        output.state.store(ui.ctx(), id);
                        self.track(&r, Field::Cvv);
                        self.errors_ui(ui, cx, &errors, Field::Cvv);
                    });
                });

                let r = widgets::labelled_text_ui(
                    ui,
                    T::CardHolder.get(lang),
                    &mut self.draft.card_holder_name,
                );
                self.track(&r, Field::CardHolderName);
                self.errors_ui(ui, cx, &errors, Field::CardHolderName);

                let usage_label = ui.label(T::Usage.get(lang));
                let current = if self.draft.usage.trim().is_empty() {
                    CardUsage::default()
                } else {
                    self.draft.usage.parse().unwrap_or_default()
                };
                let mut usage = current;
                let combo = egui::ComboBox::from_id_salt("card-usage")
                    .selected_text(usage.as_str())
                    .show_ui(ui, |ui| {
                        for u in CardUsage::ALL {
                            ui.selectable_value(&mut usage, *u, u.as_str());
                        }
                    });
                let _ = combo.response.labelled_by(usage_label.id);
                if usage != current || self.draft.usage.is_empty() {
                    usage.as_str().clone_into(&mut self.draft.usage);
                }

                let r = widgets::labelled_text_ui(ui, T::Alias.get(lang), &mut self.draft.alias);
                self.track(&r, Field::Alias);
                self.errors_ui(ui, cx, &errors, Field::Alias);
                ui.checkbox(&mut self.draft.set_as_default, T::SetDefault.get(lang));
                let r = widgets::labelled_text_ui(
                    ui,
                    T::CustomerId.get(lang),
                    &mut self.draft.customer_id,
                );
                self.track(&r, Field::CustomerId);
                self.errors_ui(ui, cx, &errors, Field::CustomerId);

                ui.add_space(8.0);
                let ready = validation.is_ok() && !self.sending;
                let label = if self.sending {
                    T::Sending.get(lang)
                } else {
                    T::SaveCard.get(lang)
                };
                let clicked = ui.add_enabled(ready, egui::Button::new(label)).clicked();
                if !ready
                    && !self.sending
                    && let Some(first) = errors.iter().next()
                {
                    widgets::hint_ui(
                        ui,
                        &cx.palette,
                        &format!("{} {}", T::CannotCreate.get(lang), first.message(lang)),
                    );
                }
                if clicked && let Ok(request) = validation {
                    self.sending = true;
                    self.outcome = None;
                    // Hand the request over and wipe the form's copy at once.
                    self.draft.wipe();
                    self.touched.remove(&Field::CardNumber);
                    self.touched.remove(&Field::Cvv);
                    cx.emit(Command::SaveCard(Box::new(request)));
                }

                self.outcome_ui(ui, cx);
            });
    }

    fn outcome_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        match &self.outcome {
            Some(CardOutcome::Saved(card)) => {
                ui.separator();
                ui.label(
                    RichText::new(T::CardSaved.get(lang))
                        .color(cx.palette.ok)
                        .strong(),
                );
                egui::Grid::new("card-result")
                    .num_columns(2)
                    .show(ui, |ui| {
                        let rows = [
                            (T::MaskedPan, card.masked_pan.clone()),
                            (T::Brand, card.brand.clone()),
                            (T::Bank, card.bank_name.clone()),
                            (T::CardType, card.card_type.clone()),
                            (T::Status, card.status.as_ref().map(ToString::to_string)),
                            (T::Usage, card.usage.map(|u| u.as_str().to_owned())),
                            (T::Alias, card.alias.clone()),
                        ];
                        for (label, value) in rows {
                            ui.label(label.get(lang));
                            ui.label(value.unwrap_or_else(|| "–".to_owned()));
                            ui.end_row();
                        }
                    });
                widgets::hint_ui(ui, &cx.palette, T::CardWiped.get(lang));
            }
            Some(CardOutcome::Error(text)) => {
                ui.separator();
                widgets::error_text_ui(ui, &cx.palette, text.as_str());
                widgets::hint_ui(ui, &cx.palette, T::CardWiped.get(lang));
            }
            Some(CardOutcome::Unknown(text)) => {
                ui.separator();
                ui.label(RichText::new(T::CardUnknownOutcome.get(lang)).color(cx.palette.warn));
                widgets::hint_ui(ui, &cx.palette, text);
                widgets::hint_ui(ui, &cx.palette, T::CardWiped.get(lang));
            }
            None => {}
        }
    }

    fn track(&mut self, r: &egui::Response, field: Field) {
        if r.lost_focus() {
            self.touched.insert(field);
        }
    }

    fn errors_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors, field: Field) {
        if !self.touched.contains(&field) {
            return;
        }
        let lines: Vec<String> = errors
            .for_field(&field)
            .map(|e| e.problem.message(cx.lang))
            .collect();
        widgets::error_lines_ui(ui, &cx.palette, lines.iter().map(String::as_str));
    }
}

/// The local date of `now`, for the card's expiry check (a card is valid through its month).
pub fn local_today(now: chrono::DateTime<chrono::Utc>) -> NaiveDate {
    now.with_timezone(&chrono::Local).date_naive()
}
