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
//! An answer reads first as the card on one line (bank, brand, type, programme, in words),
//! then one line per installment count ([`count_lines`]: its cheapest option's monthly amount
//! and total, the lowest total of all counts marked) beside a plot of the same, so both fit a
//! 1024×768 screen. The full table is folded under them, with one header row (every field,
//! known or not: a server that adds a field is still shown). Numbers and money are
//! right-aligned, money with its currency (the contract's installment answer carries none:
//! amounts are in lira). Where one installment count has several options (several POS
//! providers), the lowest total of that count is marked "✓ lowest" (the lowest rate when no
//! amount was asked, so no totals came); a count with a single option has nothing to compare
//! and no mark. POS types read as words (`SOFTWALLET` → "Wallet app"), the raw value on hover.

use std::sync::OnceLock;

use egui::{RichText, Ui};
use rust_decimal::Decimal;
use zeroize::Zeroizing;

use crate::api::wire::InstallmentList;
use crate::domain::{
    Currency, Field, FieldErrors, InstallmentDraft, PosSubType, PosType, format_amount,
};
use crate::lang::Lang;
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::InstallmentsCommand;
use crate::ui::problem::Explain;
use crate::ui::table::{Align, Table};
use crate::ui::text::UiText;
use crate::ui::{theme, widgets, words};

/// The characters a POS filter shows ("Online (virtual POS)").
const FILTER_CHARS: usize = 14;

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
                label: format!("{} {}", b.family, words::title_case(&b.brand)),
                bin: b.bin.clone(),
                bank: b.bank.clone(),
            })
            .collect()
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
    draft: InstallmentDraft,
    bin_touched: bool,
    /// A lookup is out.
    loading: bool,
    /// The last outcome.
    outcome: Option<InstallmentOutcome>,
    /// The last frame the view was drawn (the BIN takes the focus when it reappears).
    last_frame: Option<u64>,
}

impl InstallmentsForm {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.loading = false;
    }

    /// The lookup form as typed.
    pub fn draft(&self) -> &InstallmentDraft {
        &self.draft
    }

    /// Whether a lookup is out.
    pub fn is_loading(&self) -> bool {
        self.loading
    }

    /// The last outcome.
    pub fn outcome(&self) -> Option<&InstallmentOutcome> {
        self.outcome.as_ref()
    }

    /// The lookup's answer: the options, or why not.
    pub fn on_listed(&mut self, result: Result<InstallmentList, impl Explain>, lang: Lang) {
        self.loading = false;
        self.outcome = Some(match result {
            Ok(list) => InstallmentOutcome::List(Box::new(list)),
            Err(e) => InstallmentOutcome::Error(e.problem(lang)),
        });
    }

    /// Test set-up: a lookup is out, as after Show options.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_loading(&mut self) {
        self.loading = true;
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
                widgets::page_header_ui(
                    ui,
                    UiText::NavInstallments.get(lang),
                    UiText::InstallmentsHelp.get(lang),
                    |_| {},
                );
                let ready = validation.is_ok() && !self.loading;
                let enter = ui.input(|i| i.key_pressed(egui::Key::Enter));
                let clicked = self.fields_ui(ui, cx, &errors, focus_bin, ready);
                if (clicked || (enter && ready))
                    && let Ok(query) = validation
                {
                    self.loading = true;
                    cx.emit(Command::Installments(InstallmentsCommand::List {
                        query: Box::new(query),
                    }));
                }
                ui.add_space(theme::SPACE_S);
                // Empty: what to type, then (on a sandbox) BINs to try. After an answer the
                // chips stay above it, to try another card.
                if self.outcome.is_none() && !self.loading {
                    ui.label(UiText::InstallmentsEmpty.get(lang));
                    ui.add_space(theme::SPACE_S);
                }
                if cx.sandbox {
                    self.sandbox_chips_ui(ui, cx);
                    ui.add_space(theme::SPACE_S);
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

    /// BIN and amount (what is typed), then the POS filters (rarely changed), and Look up at
    /// the end of the row; returns whether Look up was clicked.
    fn fields_ui(
        &mut self,
        ui: &mut Ui,
        cx: &ViewCtx<'_>,
        errors: &FieldErrors,
        focus: bool,
        ready: bool,
    ) -> bool {
        let lang = cx.lang;
        let clicked = ui.horizontal_top(|ui| {
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
                // As a filter, the server's DEFAULT means "any".
                let word = |t: PosType| match t {
                    PosType::Default => UiText::PosAny.get(lang).to_owned(),
                    t => words::pos_type(t.as_str(), lang).text,
                };
                let combo = egui::ComboBox::from_id_salt("pos-type")
                    .width(theme::field_width_ui(ui, FILTER_CHARS))
                    .selected_text(word(v))
                    .show_ui(ui, |ui| {
                        for t in PosType::ALL {
                            ui.selectable_value(&mut v, *t, word(*t))
                                .on_hover_text(t.as_str());
                        }
                    });
                let _ = combo.response.labelled_by(l.id);
                v.as_str().clone_into(&mut self.draft.pos_type);
            });
            ui.vertical(|ui| {
                let l = ui.label(UiText::PosSubType.get(lang));
                let mut v: PosSubType = self.draft.sub_type.parse().unwrap_or_default();
                let word = |t: PosSubType| match t {
                    PosSubType::Default => UiText::PosAny.get(lang).to_owned(),
                    t => words::pos_sub_type(t.as_str(), lang).text,
                };
                let combo = egui::ComboBox::from_id_salt("pos-sub-type")
                    .width(theme::field_width_ui(ui, FILTER_CHARS))
                    .selected_text(word(v))
                    .show_ui(ui, |ui| {
                        for t in PosSubType::ALL {
                            ui.selectable_value(&mut v, *t, word(*t))
                                .on_hover_text(t.as_str());
                        }
                    });
                let _ = combo.response.labelled_by(l.id);
                v.as_str().clone_into(&mut self.draft.sub_type);
            });
            ui.add_space(theme::SPACE_S);
            // Level with the fields: under a label's height of space.
            ui.vertical(|ui| {
                ui.add_space(ui.text_style_height(&egui::TextStyle::Body));
                ui.horizontal(|ui| {
                    let label = if self.loading {
                        UiText::Loading.get(lang)
                    } else {
                        UiText::LookUp.get(lang)
                    };
                    // A toolbar's button: the normal size (issue 29), its icon kept.
                    let clicked = widgets::Action::secondary(label)
                        .icon(theme::icon::SEARCH)
                        .enabled(ready)
                        .show_ui(ui)
                        .clicked();
                    if self.loading {
                        ui.spinner();
                    }
                    clicked
                })
                .inner
            })
            .inner
        });
        // Under the row, so that a sentence never moves the fields beside it.
        if self.bin_touched {
            errors_ui(ui, cx, errors, Field::BinNumber);
        }
        // The amount is optional: its errors show as soon as something is typed.
        if !self.draft.amount.is_empty() {
            errors_ui(ui, cx, errors, Field::InstallmentAmount);
        }
        clicked.inner
    }

    /// The sandbox's BINs as chips: a click fills the BIN and looks it up.
    fn sandbox_chips_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(UiText::SandboxBins.get(cx.lang)).color(cx.palette.muted));
            for chip in sandbox_bins() {
                let r = ui
                    .add_enabled(
                        !self.loading,
                        egui::Button::new(chip.label.as_str()).corner_radius(theme::PILL_RADIUS),
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

/// One installment count as the summary says it: its cheapest option's monthly amount and
/// total (or its rate, when no amount was asked), and whether it is the lowest of all counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountLine {
    /// How many installments.
    pub count: u32,
    /// What the customer pays each month (the cheapest option of the count).
    pub monthly: Option<Decimal>,
    /// What the customer pays in all.
    pub total: Option<Decimal>,
    /// The commission rate of that option.
    pub rate: Option<Decimal>,
    /// The lowest total (or rate) of every count (ties all marked; one count alone is not).
    pub lowest: bool,
}

/// One line per installment count, in count order, each with its cheapest option (the lowest
/// total, or the lowest rate when the server sent no totals).
pub fn count_lines(list: &InstallmentList) -> Vec<CountLine> {
    let cost = |o: &crate::api::wire::InstallmentOption| o.total_amount.or(o.commission_rate);
    let mut best: std::collections::BTreeMap<u32, &crate::api::wire::InstallmentOption> =
        std::collections::BTreeMap::new();
    for o in &list.installments {
        let (Some(count), Some(c)) = (o.installment_count, cost(o)) else {
            continue;
        };
        let entry = best.entry(count).or_insert(o);
        if cost(entry).is_none_or(|low| c < low) {
            *entry = o;
        }
    }
    let low = best.values().filter_map(|o| cost(o)).min();
    let several = best.len() > 1;
    best.into_iter()
        .map(|(count, o)| CountLine {
            count,
            monthly: o.installment_amount,
            total: o.total_amount,
            rate: o.commission_rate,
            lowest: several && cost(o) == low,
        })
        .collect()
}

fn list_ui(ui: &mut Ui, cx: &ViewCtx<'_>, list: &InstallmentList) {
    let lang = cx.lang;
    bin_info_ui(ui, cx, list);
    if list.installments.is_empty() {
        widgets::hint_ui(ui, &cx.palette, UiText::NoOptions.get(lang));
        return;
    }
    ui.add_space(theme::SPACE_S);
    // Above the fold: a line per count, the lowest total marked. (The chart of the same
    // figures went: the table says every count exactly, the chart only a slope.)
    let lines = count_lines(list);
    summary_ui(ui, cx, &lines);
    ui.add_space(theme::SPACE_S);
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
    egui::CollapsingHeader::new(UiText::EveryOption.get(lang))
        .id_salt("installment-every-option")
        .show(ui, |ui| options_table_ui(ui, cx, list, &extra_keys));
}

/// The card as the server knows it, on one line: bank, brand, type, programme (each API value
/// in words, its spelling in the tooltip), then any field this version does not know.
fn bin_info_ui(ui: &mut Ui, cx: &ViewCtx<'_>, list: &InstallmentList) {
    let lang = cx.lang;
    ui.horizontal_wrapped(|ui| {
        let mut first = true;
        let mut dot = |ui: &mut Ui| {
            if !std::mem::take(&mut first) {
                ui.label(RichText::new("·").color(cx.palette.muted));
            }
        };
        if let Some(bank) = &list.bank_name {
            dot(ui);
            ui.label(RichText::new(bank).strong());
        }
        let values = [
            list.card_brand
                .as_deref()
                .map(|b| words::card_brand(b, lang)),
            list.card_type.as_deref().map(|t| words::card_type(t, lang)),
            list.card_family.as_deref().map(words::card_family),
        ];
        for word in values.into_iter().flatten() {
            dot(ui);
            words::word_ui(ui, &word);
        }
        if let Some(bin) = &list.bin_number {
            dot(ui);
            ui.label(RichText::new(bin).monospace().color(cx.palette.muted))
                .on_hover_text(UiText::Bin.get(lang));
        }
        for (k, v) in &list.extra {
            dot(ui);
            ui.label(RichText::new(k).color(cx.palette.muted));
            ui.label(json_text(v));
        }
    });
}

/// A row per installment count under one header (Installments · Per month · In all): the
/// count, its cheapest option's monthly amount and total (figures only, the currency in the
/// header), the lowest total marked.
fn summary_ui(ui: &mut Ui, cx: &ViewCtx<'_>, lines: &[CountLine]) {
    let lang = cx.lang;
    let count_text = |l: &CountLine| {
        if l.count == 1 {
            UiText::SinglePayment.get(lang).to_owned()
        } else {
            UiText::InstallmentsN.fill(lang, &[("count", &l.count)])
        }
    };
    // A single payment has no months: its total says it all.
    let monthly_text = |l: &CountLine| {
        l.monthly
            .filter(|_| l.count > 1)
            .map_or_else(String::new, |m| figure(m, lang))
    };
    let total_text = |l: &CountLine| match (l.total, l.rate) {
        (Some(t), _) => figure(t, lang),
        (None, Some(r)) => UiText::RateOnly.fill(lang, &[("rate", &rate(r, lang))]),
        (None, None) => String::new(),
    };
    let cells: Vec<[String; 3]> = lines
        .iter()
        .map(|l| [count_text(l), monthly_text(l), total_text(l)])
        .collect();
    let column = |i: usize| cells.iter().map(move |c| c[i].as_str());
    let symbol = Currency::Try.symbol();
    let per_month = format!("{} ({symbol})", UiText::PerMonthColumn.get(lang));
    let in_all = format!("{} ({symbol})", UiText::InAllColumn.get(lang));
    let lowest = UiText::LowestTotal.get(lang);
    let any_lowest = lines.iter().any(|l| l.lowest);
    let mut table = Table::new()
        .column(
            ui,
            UiText::InstallmentCount.get(lang),
            Align::Left,
            column(0),
        )
        .column(ui, &per_month, Align::Right, column(1))
        .column(ui, &in_all, Align::Right, column(2));
    if any_lowest {
        table = table.pill_column(ui, "", [lowest]);
    }
    table.widget_rows_ui(ui, "installment-summary", |t| {
        for (l, [count, monthly, total]) in lines.iter().zip(&cells) {
            t.text(RichText::new(count).strong());
            t.text(monthly.as_str());
            t.text(total.as_str());
            if l.lowest {
                t.pill(lowest, cx.palette.lowest);
            }
            t.end_row();
        }
    });
}

/// An amount in Turkish lira as a figure without its symbol ("1.071,90"): the column's
/// header names the currency.
fn figure(d: Decimal, lang: Lang) -> String {
    crate::domain::format_number(d, Currency::Try, lang)
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
    // The POS type and sub-type columns, after the mark.
    const POS_TYPE: usize = 5;
    const POS_SUB_TYPE: usize = 6;
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
                o.pos_type
                    .as_deref()
                    .map(|t| words::pos_type(t, lang).text)
                    .unwrap_or_default(),
                o.pos_sub_type
                    .as_deref()
                    .map(|t| words::pos_sub_type(t, lang).text)
                    .unwrap_or_default(),
            ];
            cells.extend(
                extra
                    .iter()
                    .map(|k| o.extra.get(k).map(json_text).unwrap_or_default()),
            );
            cells
        })
        .collect();

    let mut table = Table::new();
    for (i, (h, align)) in headers.iter().enumerate() {
        let align = match align {
            CellAlign::Left => Align::Left,
            CellAlign::Right => Align::Right,
        };
        table = if i == MARK {
            let marked = lowest.iter().any(|l| *l);
            table.pill_column(ui, h, marked.then(|| UiText::Lowest.get(lang)))
        } else {
            table.column(ui, h, align, rows.iter().map(|r| r[i].as_str()))
        };
    }
    table.widget_rows_ui(ui, "installment-table", |t| {
        for ((row, low), option) in rows.iter().zip(&lowest).zip(&list.installments) {
            for (i, cell) in row.iter().enumerate() {
                // The POS columns in words; the server's spelling on hover.
                let raw = match i {
                    POS_TYPE => option.pos_type.as_deref(),
                    POS_SUB_TYPE => option.pos_sub_type.as_deref(),
                    _ => None,
                };
                if i == MARK {
                    if *low {
                        t.pill(UiText::Lowest.get(lang), cx.palette.lowest);
                    } else {
                        t.cell(|_| {});
                    }
                } else if let Some(raw) = raw {
                    t.cell(|ui| {
                        ui.label(cell.as_str()).on_hover_text(raw);
                    });
                } else {
                    t.text(cell.as_str());
                }
            }
            t.end_row();
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
    fn each_count_has_one_line_with_its_cheapest_option_and_the_lowest_total_is_marked() {
        let l = list(
            r#"{"installments":[
                {"installmentCount":3,"commissionRate":7.19,"installmentAmount":357.30,"totalAmount":1071.90},
                {"installmentCount":1,"commissionRate":1.99,"installmentAmount":1019.90,"totalAmount":1019.90},
                {"installmentCount":1,"commissionRate":1.20,"installmentAmount":1012.00,"totalAmount":1012.00},
                {"installmentCount":6,"commissionRate":11.39,"installmentAmount":185.69,"totalAmount":1114.10}]}"#,
        );
        let lines = count_lines(&l);
        let counts: Vec<u32> = lines.iter().map(|l| l.count).collect();
        assert_eq!(counts, [1, 3, 6]);
        assert_eq!(lines[0].total, Some(Decimal::new(101_200, 2)));
        assert_eq!(lines[0].monthly, Some(Decimal::new(101_200, 2)));
        let marked: Vec<bool> = lines.iter().map(|l| l.lowest).collect();
        assert_eq!(marked, [true, false, false]);
        // One count alone has nothing to compare.
        let one = list(r#"{"installments":[{"installmentCount":1,"totalAmount":10}]}"#);
        assert!(!count_lines(&one)[0].lowest);
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
