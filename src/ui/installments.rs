//! Installment options for a card BIN: what a customer will pay in 1 to 12 installments.
//!
//! Staff often paste a whole card number into the BIN field: only its first 6 digits are kept
//! (the domain's `set_bin_from_input`, in a zeroizing buffer) and the field's undo history is
//! cleared, so the rest of the number is not kept anywhere. The BIN has the first focus.
//!
//! Before the first lookup the view says what to type. On a sandbox profile it also offers the
//! sandbox's BINs as one-click chips, one credit BIN per card programme of the shipped fixture
//! (the fixture the built-in sandbox serves; the view reads it once, compiled in, never from
//! disk): a click fills the BIN and looks it up. Other profiles get no chips: those BINs mean
//! nothing to a real server.
//!
//! Results show as a table with one header row (every field, known or not: a server that adds
//! a field is still shown). Numbers and money are right-aligned, money with its currency (the
//! contract's installment answer carries none: amounts are in lira). Where one installment count
//! has several options (several POS providers), the lowest total of that count is marked
//! "✓ lowest" (the lowest rate when no amount was asked, so no totals came); a count with a
//! single option has nothing to compare and no mark. A plot shows the total cost by
//! installment count.

use std::sync::OnceLock;

use egui::{Align, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints, Points};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use zeroize::Zeroizing;

use crate::api::wire::InstallmentList;
use crate::domain::{
    Currency, Field, FieldErrors, InstallmentDraft, PosSubType, PosType, format_amount,
};
use crate::lang::Lang;
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::InstallmentsCommand;
use crate::ui::text::UiText;
use crate::ui::{theme, widgets};

/// A BIN of the built-in sandbox, offered as a chip on a sandbox profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxBin {
    /// The chip's text: card programme and brand ("Bonus Mastercard").
    pub label: String,
    /// The six digits the chip fills in.
    pub bin: String,
    /// The issuing bank (the chip's tooltip).
    pub bank: String,
}

/// One credit BIN per card programme of the shipped sandbox fixture, in the fixture's order
/// (Bonus, World, Maximum, Axess, `CardFinans`, Paraf, Bankkart: the last one a Troy card).
/// Read once.
pub fn sandbox_bins() -> &'static [SandboxBin] {
    static BINS: OnceLock<Vec<SandboxBin>> = OnceLock::new();
    BINS.get_or_init(|| {
        let fixture = crate::sandbox::fixture::Fixture::shipped();
        let mut seen = std::collections::HashSet::new();
        fixture
            .bins
            .iter()
            .filter(|b| b.card_type == "CREDIT" && seen.insert(b.family.clone()))
            .map(|b| SandboxBin {
                label: format!("{} {}", b.family, title_case(&b.brand)),
                bin: b.bin.clone(),
                bank: b.bank.clone(),
            })
            .collect()
    })
}

/// `MASTERCARD` → `Mastercard`.
fn title_case(word: &str) -> String {
    let lower = word.to_lowercase();
    let mut chars = lower.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// What the last lookup gave.
#[derive(Debug, Clone)]
pub enum InstallmentOutcome {
    /// The options.
    List(Box<InstallmentList>),
    /// An error sentence.
    Error(crate::ui::problem::Problem),
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
    /// The last frame the view was drawn (the BIN takes the focus when it reappears).
    last_frame: Option<u64>,
}

impl InstallmentsForm {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.loading = false;
    }

    /// Sets the BIN field as if `text` was typed or pasted into it.
    pub fn input_bin(&mut self, text: &str) {
        self.draft.set_bin_from_input(text);
    }

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let validation = self.draft.validate();
        let errors = validation.as_ref().err().cloned().unwrap_or_default();
        let focus_bin = widgets::newly_shown(ui, &mut self.last_frame);
        egui::ScrollArea::vertical()
            .id_salt("installments-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.set_max_width(theme::CONTENT_MAX_WIDTH);
                ui.heading(UiText::NavInstallments.get(lang));
                ui.add_space(theme::SPACE_S);
                self.fields_ui(ui, cx, &errors, focus_bin);
                ui.add_space(theme::SPACE_S);
                let ready = validation.is_ok() && !self.loading;
                let label = if self.loading {
                    UiText::Loading.get(lang)
                } else {
                    UiText::LookUp.get(lang)
                };
                let enter = ui.input(|i| i.key_pressed(egui::Key::Enter));
                let clicked = ui
                    .horizontal(|ui| {
                        let clicked = ui.add_enabled(ready, egui::Button::new(label)).clicked();
                        if self.loading {
                            ui.spinner();
                        }
                        clicked
                    })
                    .inner;
                if (clicked || (enter && ready))
                    && let Ok(query) = validation
                {
                    self.loading = true;
                    cx.emit(Command::Installments(InstallmentsCommand::List {
                        query: Box::new(query),
                    }));
                }
                ui.add_space(theme::SPACE_M);
                // Empty: what to type, then (on a sandbox) BINs to try. After an answer the
                // chips stay above it, to try another card.
                if self.outcome.is_none() && !self.loading {
                    ui.label(UiText::InstallmentsEmpty.get(lang));
                    ui.add_space(theme::SPACE_S);
                }
                if cx.sandbox {
                    self.sandbox_chips_ui(ui, cx);
                    ui.add_space(theme::SPACE_M);
                }
                match &self.outcome {
                    Some(InstallmentOutcome::List(list)) => list_ui(ui, cx, list),
                    Some(InstallmentOutcome::Error(problem)) => {
                        crate::ui::problem::problem_ui(ui, cx, problem);
                    }
                    None => {}
                }
            });
    }

    /// BIN and amount (what is typed), then the POS filters (rarely changed).
    fn fields_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors, focus: bool) {
        let lang = cx.lang;
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                let l = ui.label(UiText::Bin.get(lang));
                let id = ui.make_persistent_id("bin");
                let mut text = Zeroizing::new((*self.draft.bin).clone());
                let mut output = egui::TextEdit::singleline(&mut *text)
                    .id(id)
                    .desired_width(theme::mono_field_width_ui(ui, 6))
                    .font(egui::TextStyle::Monospace)
                    .hint_text("000000")
                    .show(ui);
                let r = output.response.response.clone().labelled_by(l.id);
                if focus {
                    r.request_focus();
                }
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
                // The view focuses the BIN by itself: leaving it empty is no mistake to show.
                if r.lost_focus() && !self.draft.bin.is_empty() {
                    self.bin_touched = true;
                }
            });
            ui.add_space(theme::SPACE_S);
            ui.vertical(|ui| {
                widgets::labelled_text_width_ui(
                    ui,
                    UiText::InstallmentAmount.get(lang),
                    &mut self.draft.amount,
                    theme::field_width_ui(ui, 12),
                );
            });
            ui.add_space(theme::SPACE_S);
            ui.vertical(|ui| {
                let l = ui.label(UiText::PosType.get(lang));
                let mut v: PosType = self.draft.pos_type.parse().unwrap_or_default();
                let combo = egui::ComboBox::from_id_salt("pos-type")
                    .width(theme::field_width_ui(ui, 10))
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
                let l = ui.label(UiText::PosSubType.get(lang));
                let mut v: PosSubType = self.draft.sub_type.parse().unwrap_or_default();
                let combo = egui::ComboBox::from_id_salt("pos-sub-type")
                    .width(theme::field_width_ui(ui, 10))
                    .selected_text(v.as_str())
                    .show_ui(ui, |ui| {
                        for t in PosSubType::ALL {
                            ui.selectable_value(&mut v, *t, t.as_str());
                        }
                    });
                let _ = combo.response.labelled_by(l.id);
                v.as_str().clone_into(&mut self.draft.sub_type);
            });
        });
        // Under the row, so that a sentence never moves the fields beside it.
        if self.bin_touched {
            errors_ui(ui, cx, errors, Field::BinNumber);
        }
        // The amount is optional: its errors show as soon as something is typed.
        if !self.draft.amount.is_empty() {
            errors_ui(ui, cx, errors, Field::InstallmentAmount);
        }
    }

    /// The sandbox's BINs as chips: a click fills the BIN and looks it up.
    fn sandbox_chips_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(UiText::SandboxBins.get(cx.lang)).color(cx.palette.muted));
            for chip in sandbox_bins() {
                let r = ui
                    .add_enabled(
                        !self.loading,
                        egui::Button::new(chip.label.as_str()).corner_radius(12.0),
                    )
                    .on_hover_text(format!("{} · {}", chip.bin, chip.bank));
                if r.clicked() {
                    self.draft.set_bin_from_input(&chip.bin);
                    self.bin_touched = true;
                    if let Ok(query) = self.draft.validate() {
                        self.loading = true;
                        cx.emit(Command::Installments(InstallmentsCommand::List {
                            query: Box::new(query),
                        }));
                    }
                }
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

/// A commission rate with its exact digits, the decimal mark as the language writes it.
fn rate(r: Decimal, lang: Lang) -> String {
    let text = r.to_string();
    match lang {
        Lang::Tr => text.replace('.', ","),
        Lang::En => text,
    }
}

fn list_ui(ui: &mut Ui, cx: &ViewCtx<'_>, list: &InstallmentList) {
    let lang = cx.lang;
    egui::Grid::new("bin-info").num_columns(2).show(ui, |ui| {
        let rows = [
            (UiText::Bin.get(lang).to_owned(), list.bin_number.clone()),
            (UiText::Bank.get(lang).to_owned(), list.bank_name.clone()),
            (UiText::Brand.get(lang).to_owned(), list.card_brand.clone()),
            (
                UiText::CardType.get(lang).to_owned(),
                list.card_type.clone(),
            ),
            (
                UiText::CardFamily.get(lang).to_owned(),
                list.card_family.clone(),
            ),
        ];
        for (label, value) in rows {
            if let Some(v) = value {
                ui.label(RichText::new(label).color(cx.palette.muted));
                ui.label(v);
                ui.end_row();
            }
        }
        for (k, v) in &list.extra {
            ui.label(RichText::new(k).color(cx.palette.muted));
            ui.label(json_text(v));
            ui.end_row();
        }
    });
    if list.installments.is_empty() {
        widgets::hint_ui(ui, &cx.palette, UiText::NoOptions.get(lang));
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
    ui.add_space(theme::SPACE_S);
    options_table_ui(ui, cx, list, &extra_keys);

    // The plot: the lowest total at each count (or the rate when no amount was asked), one
    // point per count, so several providers of one count draw no vertical zigzag.
    let mut lowest_by_count: std::collections::BTreeMap<u32, Decimal> =
        std::collections::BTreeMap::new();
    for o in &list.installments {
        if let (Some(count), Some(y)) = (o.installment_count, o.total_amount.or(o.commission_rate))
        {
            lowest_by_count
                .entry(count)
                .and_modify(|low| *low = (*low).min(y))
                .or_insert(y);
        }
    }
    let points: Vec<[f64; 2]> = lowest_by_count
        .into_iter()
        // Display only: plot coordinates are screen positions; no amount is computed from
        // them, sent or stored.
        .filter_map(|(count, y)| Some([f64::from(count), y.to_f64()?]))
        .collect();
    if points.len() >= 2 {
        ui.add_space(theme::SPACE_M);
        ui.label(RichText::new(UiText::TotalByCount.get(lang)).strong());
        let color = cx.palette.plot_line();
        Plot::new("installment-plot")
            .height(220.0)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .x_axis_label(UiText::InstallmentCount.get(lang))
            .y_axis_label(UiText::Total.get(lang))
            .show(ui, |p| {
                p.line(
                    Line::new(UiText::Total.get(lang), PlotPoints::from(points.clone()))
                        .stroke((2.0, color)),
                );
                p.points(
                    Points::new(UiText::Total.get(lang), PlotPoints::from(points))
                        .radius(3.0)
                        .color(color),
                );
            });
    }
}

/// For each option of `list`, whether it is the cheapest of its installment count among
/// several options of that count (ties all marked). Cheapest is the lowest total; without an
/// amount the server sends no totals, and the lowest commission rate says the same. A count
/// offered once, or an option without a count or a cost, is not marked: nothing to compare.
pub fn lowest_totals(list: &InstallmentList) -> Vec<bool> {
    let cost = |o: &crate::api::wire::InstallmentOption| o.total_amount.or(o.commission_rate);
    let mut best: std::collections::HashMap<u32, (Decimal, usize)> =
        std::collections::HashMap::new();
    for o in &list.installments {
        if let (Some(count), Some(c)) = (o.installment_count, cost(o)) {
            best.entry(count)
                .and_modify(|(low, n)| {
                    *low = (*low).min(c);
                    *n += 1;
                })
                .or_insert((c, 1));
        }
    }
    list.installments
        .iter()
        .map(|o| match (o.installment_count, cost(o)) {
            (Some(count), Some(c)) => best.get(&count).is_some_and(|(low, n)| *n > 1 && c == *low),
            _ => false,
        })
        .collect()
}

/// How a column's cells line up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CellAlign {
    /// Text.
    Left,
    /// Numbers and money.
    Right,
}

/// The options as a table: one header row, striped rows, numbers and money right-aligned in
/// columns as wide as their widest cell (measured before drawing, so the first frame is right).
fn options_table_ui(ui: &mut Ui, cx: &ViewCtx<'_>, list: &InstallmentList, extra: &[String]) {
    // The column of the "✓ lowest" pill, right after the total.
    const MARK: usize = 4;
    let lang = cx.lang;
    let lowest = lowest_totals(list);
    let mut headers: Vec<(String, CellAlign)> = vec![
        (
            UiText::InstallmentCount.get(lang).to_owned(),
            CellAlign::Right,
        ),
        (UiText::Rate.get(lang).to_owned(), CellAlign::Right),
        (
            UiText::PerInstallment.get(lang).to_owned(),
            CellAlign::Right,
        ),
        (UiText::Total.get(lang).to_owned(), CellAlign::Right),
        (String::new(), CellAlign::Left),
        (UiText::PosType.get(lang).to_owned(), CellAlign::Left),
        (UiText::PosSubType.get(lang).to_owned(), CellAlign::Left),
    ];
    headers.extend(extra.iter().map(|k| (k.clone(), CellAlign::Left)));
    let rows: Vec<Vec<String>> = list
        .installments
        .iter()
        .map(|o| {
            let mut cells = vec![
                o.installment_count
                    .map_or_else(|| "–".to_owned(), |c| c.to_string()),
                o.commission_rate
                    .map_or_else(|| "–".to_owned(), |r| rate(r, lang)),
                money(o.installment_amount, lang),
                money(o.total_amount, lang),
                String::new(),
                o.pos_type.clone().unwrap_or_default(),
                o.pos_sub_type.clone().unwrap_or_default(),
            ];
            cells.extend(
                extra
                    .iter()
                    .map(|k| o.extra.get(k).map(json_text).unwrap_or_default()),
            );
            cells
        })
        .collect();

    let text_width = widgets::text_width;
    let pill_margin = 8.0;
    let mut widths: Vec<f32> = headers.iter().map(|(h, _)| text_width(ui, h)).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = w.max(text_width(ui, cell));
        }
    }
    if lowest.iter().any(|l| *l) {
        widths[MARK] = text_width(ui, UiText::Lowest.get(lang)) + 2.0 * pill_margin;
    }
    let height = ui.spacing().interact_size.y;

    let cell_ui = |ui: &mut Ui, width: f32, align: CellAlign, add: &mut dyn FnMut(&mut Ui)| {
        let align = match align {
            CellAlign::Left => Align::Min,
            CellAlign::Right => Align::Max,
        };
        widgets::cell_ui(ui, egui::vec2(width, height), align, add);
    };

    egui::Grid::new("installment-table")
        .striped(true)
        .num_columns(headers.len())
        .spacing(egui::vec2(theme::SPACE_M, theme::SPACE_XS))
        .show(ui, |ui| {
            for ((h, align), w) in headers.iter().zip(&widths) {
                cell_ui(ui, *w, *align, &mut |ui| {
                    ui.label(RichText::new(h.as_str()).strong());
                });
            }
            ui.end_row();
            for (row, low) in rows.iter().zip(&lowest) {
                for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
                    let align = headers[i].1;
                    cell_ui(ui, *w, align, &mut |ui| {
                        if i == MARK {
                            if *low {
                                widgets::badge_ui(ui, UiText::Lowest.get(lang), cx.palette.lowest);
                            }
                        } else {
                            ui.label(cell.as_str());
                        }
                    });
                }
                ui.end_row();
            }
        });
    if lowest.iter().any(|l| *l) {
        widgets::hint_ui(ui, &cx.palette, UiText::LowestExplained.get(lang));
    }
}

fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(json: &str) -> InstallmentList {
        serde_json::from_str(json).expect("a list")
    }

    #[test]
    fn the_cheapest_of_each_count_is_marked_only_where_there_is_a_choice() {
        let l = list(
            r#"{"installments":[
                {"installmentCount":1,"commissionRate":1.99,"totalAmount":1019.90},
                {"installmentCount":1,"commissionRate":1.20,"totalAmount":1012.00},
                {"installmentCount":1,"commissionRate":1.20,"totalAmount":1012.00},
                {"installmentCount":3,"commissionRate":7.19,"totalAmount":1071.90},
                {"installmentCount":6,"commissionRate":12.29},
                {"installmentCount":6,"commissionRate":11.39},
                {"commissionRate":0.5,"totalAmount":1.00}]}"#,
        );
        assert_eq!(
            lowest_totals(&l),
            [false, true, true, false, false, true, false],
            "ties are all marked; one option of a count is not; without totals, the rate decides"
        );
    }

    #[test]
    fn the_sandbox_chips_are_one_credit_bin_per_programme_of_the_shipped_fixture() {
        let labels: Vec<&str> = sandbox_bins().iter().map(|b| b.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "Bonus Mastercard",
                "World Mastercard",
                "Maximum Visa",
                "Axess Visa",
                "CardFinans Visa",
                "Paraf Mastercard",
                "Bankkart Troy"
            ]
        );
        let fixture = crate::sandbox::fixture::Fixture::shipped();
        for chip in sandbox_bins() {
            assert!(
                fixture
                    .bins
                    .iter()
                    .any(|b| b.bin == chip.bin && b.bank == chip.bank)
            );
            assert_eq!(chip.bin.len(), 6);
        }
    }
}
