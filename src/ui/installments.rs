//! Installment options for a card BIN: what a customer will pay in 1 to 12 installments.
//!
//! Staff often paste a whole card number into the BIN field: only its first 6 digits are kept
//! (the domain's `set_bin_from_input`, in a zeroizing buffer) and the field's undo history is
//! cleared, so the rest of the number is not kept anywhere. Results show as a table (every
//! field, known or not: a server that adds a field is still shown) and a plot of the total
//! cost by installment count.

use egui::{RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints, Points};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use zeroize::Zeroizing;

use crate::api::wire::InstallmentList;
use crate::app::Command;
use crate::domain::{
    Currency, Field, FieldErrors, InstallmentDraft, PosSubType, PosType, format_amount,
};
use crate::lang::Lang;
use crate::ui::ViewCtx;
use crate::ui::text::T;
use crate::ui::widgets;

/// What the last lookup gave.
#[derive(Debug, Clone)]
pub enum InstallmentOutcome {
    /// The options.
    List(Box<InstallmentList>),
    /// An error sentence.
    Error(String),
}

/// The state of the installments view.
#[derive(Debug, Default)]
pub struct InstallmentsForm {
    /// The lookup form.
    pub draft: InstallmentDraft,
    bin_touched: bool,
    /// A lookup is out.
    pub loading: bool,
    /// The last outcome.
    pub outcome: Option<InstallmentOutcome>,
}

impl InstallmentsForm {
    /// Sets the BIN field as if `text` was typed or pasted into it.
    pub fn input_bin(&mut self, text: &str) {
        self.draft.set_bin_from_input(text);
    }

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let validation = self.draft.validate();
        let errors = validation.as_ref().err().cloned().unwrap_or_default();
        egui::ScrollArea::vertical()
            .id_salt("installments-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.heading(T::NavInstallments.get(lang));
                ui.horizontal_top(|ui| {
                    ui.vertical(|ui| {
                        let l = ui.label(T::Bin.get(lang));
                        let id = ui.make_persistent_id("bin");
                        let mut text = Zeroizing::new((*self.draft.bin).clone());
                        let mut output = egui::TextEdit::singleline(&mut *text)
                            .id(id)
                            .desired_width(120.0)
                            .font(egui::TextStyle::Monospace)
                            .show(ui);
                        let r = output.response.response.clone().labelled_by(l.id);
                        if r.changed() {
                            self.draft.set_bin_from_input(&text);
                            let end = egui::text::CCursor::new(self.draft.bin.chars().count());
                            output
                                .state
                                .cursor
                                .set_char_range(Some(egui::text::CCursorRange::one(end)));
                        }
                        output.state.clear_undoer();
                        output.state.store(ui.ctx(), id);
                        if r.lost_focus() {
                            self.bin_touched = true;
                        }
                        if self.bin_touched {
                            errors_ui(ui, cx, &errors, Field::BinNumber);
                        }
                    });
                    ui.vertical(|ui| {
                        let l = ui.label(T::PosType.get(lang));
                        let mut v: PosType = self.draft.pos_type.parse().unwrap_or_default();
                        let combo = egui::ComboBox::from_id_salt("pos-type")
                            .selected_text(v.as_str())
                            .show_ui(ui, |ui| {
                                for t in PosType::ALL {
                                    ui.selectable_value(&mut v, *t, t.as_str());
                                }
                            });
                        let _ = combo.response.labelled_by(l.id);
                        v.as_str().clone_into(&mut self.draft.pos_type);
                    });
                    ui.vertical(|ui| {
                        let l = ui.label(T::PosSubType.get(lang));
                        let mut v: PosSubType = self.draft.sub_type.parse().unwrap_or_default();
                        let combo = egui::ComboBox::from_id_salt("pos-sub-type")
                            .selected_text(v.as_str())
                            .show_ui(ui, |ui| {
                                for t in PosSubType::ALL {
                                    ui.selectable_value(&mut v, *t, t.as_str());
                                }
                            });
                        let _ = combo.response.labelled_by(l.id);
                        v.as_str().clone_into(&mut self.draft.sub_type);
                    });
                    ui.vertical(|ui| {
                        let r = widgets::labelled_text_ui(
                            ui,
                            T::InstallmentAmount.get(lang),
                            &mut self.draft.amount,
                        );
                        if r.lost_focus() || !self.draft.amount.is_empty() {
                            errors_ui(ui, cx, &errors, Field::InstallmentAmount);
                        }
                    });
                });
                let ready = validation.is_ok() && !self.loading;
                let label = if self.loading {
                    T::Loading.get(lang)
                } else {
                    T::LookUp.get(lang)
                };
                let enter = ui.input(|i| i.key_pressed(egui::Key::Enter));
                let clicked = ui.add_enabled(ready, egui::Button::new(label)).clicked();
                if (clicked || (enter && ready))
                    && let Ok(query) = validation
                {
                    self.loading = true;
                    cx.emit(Command::ListInstallments(Box::new(query)));
                }
                ui.add_space(8.0);
                match &self.outcome {
                    Some(InstallmentOutcome::List(list)) => list_ui(ui, cx, list),
                    Some(InstallmentOutcome::Error(text)) => {
                        widgets::error_text_ui(ui, &cx.palette, text.as_str());
                    }
                    None => {}
                }
            });
    }
}

fn errors_ui(ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors, field: Field) {
    let lines: Vec<String> = errors
        .for_field(&field)
        .map(|e| e.problem.message(cx.lang))
        .collect();
    widgets::error_lines_ui(ui, &cx.palette, lines.iter().map(String::as_str));
}

fn money(v: Option<Decimal>, lang: Lang) -> String {
    v.map_or_else(|| "–".to_owned(), |d| format_amount(d, Currency::Try, lang))
}

fn list_ui(ui: &mut Ui, cx: &ViewCtx<'_>, list: &InstallmentList) {
    let lang = cx.lang;
    egui::Grid::new("bin-info").num_columns(2).show(ui, |ui| {
        let rows = [
            (T::Bin.get(lang).to_owned(), list.bin_number.clone()),
            (T::Bank.get(lang).to_owned(), list.bank_name.clone()),
            (T::Brand.get(lang).to_owned(), list.card_brand.clone()),
            (T::CardType.get(lang).to_owned(), list.card_type.clone()),
            (T::CardFamily.get(lang).to_owned(), list.card_family.clone()),
        ];
        for (label, value) in rows {
            if let Some(v) = value {
                ui.label(label);
                ui.label(v);
                ui.end_row();
            }
        }
        for (k, v) in &list.extra {
            ui.label(k);
            ui.label(json_text(v));
            ui.end_row();
        }
    });
    if list.installments.is_empty() {
        widgets::hint_ui(ui, &cx.palette, T::NoOptions.get(lang));
        return;
    }
    let extra_keys: Vec<String> = {
        let mut keys: Vec<String> = list
            .installments
            .iter()
            .flat_map(|o| o.extra.keys().cloned())
            .collect();
        keys.sort();
        keys.dedup();
        keys
    };
    ui.add_space(6.0);
    egui::Grid::new("installment-table")
        .striped(true)
        .num_columns(6 + extra_keys.len())
        .show(ui, |ui| {
            for h in [
                T::InstallmentCount,
                T::Rate,
                T::PerInstallment,
                T::Total,
                T::PosType,
                T::PosSubType,
            ] {
                ui.label(RichText::new(h.get(lang)).strong());
            }
            for k in &extra_keys {
                ui.label(RichText::new(k).strong());
            }
            ui.end_row();
            for o in &list.installments {
                ui.label(
                    o.installment_count
                        .map_or_else(|| "–".to_owned(), |c| c.to_string()),
                );
                ui.label(
                    o.commission_rate
                        .map_or_else(|| "–".to_owned(), |r| r.to_string()),
                );
                ui.label(money(o.installment_amount, lang));
                ui.label(money(o.total_amount, lang));
                ui.label(o.pos_type.clone().unwrap_or_default());
                ui.label(o.pos_sub_type.clone().unwrap_or_default());
                for k in &extra_keys {
                    ui.label(o.extra.get(k).map(json_text).unwrap_or_default());
                }
                ui.end_row();
            }
        });

    // The plot: total cost by count (or the rate when no amount was asked).
    let points: Vec<[f64; 2]> = list
        .installments
        .iter()
        .filter_map(|o| {
            let count = f64::from(o.installment_count?);
            let y = o.total_amount.or(o.commission_rate)?;
            // Display only: plot coordinates are screen positions; no amount is computed
            // from them, sent or stored.
            Some([count, y.to_f64()?])
        })
        .collect();
    if points.len() >= 2 {
        ui.add_space(6.0);
        ui.label(RichText::new(T::TotalByCount.get(lang)).strong());
        let color = cx.palette.plot_line();
        Plot::new("installment-plot")
            .height(220.0)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .x_axis_label(T::InstallmentCount.get(lang))
            .y_axis_label(T::Total.get(lang))
            .show(ui, |p| {
                p.line(
                    Line::new(T::Total.get(lang), PlotPoints::from(points.clone()))
                        .stroke((2.0, color)),
                );
                p.points(
                    Points::new(T::Total.get(lang), PlotPoints::from(points))
                        .radius(3.0)
                        .color(color),
                );
            });
    }
}

fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
