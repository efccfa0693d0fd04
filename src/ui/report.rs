//! The day close: what the links created over a day (or a range of days) came to, per
//! currency, as cards; what was collected in each hour, as a bar chart; and the best-selling
//! items. Today by default, with a step to the previous and the next day.
//!
//! The report itself is computed by the store (`store::report`) on the worker; this view only
//! keeps the days asked for, asks for the report when they change, and draws the answer.

use chrono::{NaiveDate, TimeDelta};
use egui::{RichText, Ui};
use egui_plot::{Bar, BarChart, GridMark, Plot};
use rust_decimal::prelude::ToPrimitive;

use crate::clock::Zone;
use crate::domain::{Currency, format_amount};
use crate::lang::Lang;
use crate::store::{CurrencyReport, DayReport, Total};
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::ReportCommand;
use crate::ui::text::UiText;
use crate::ui::widgets;

/// Width of one currency card, in points.
const CARD_WIDTH: f32 = 300.0;

/// The state of the Report view.
#[derive(Debug, Default)]
pub struct ReportView {
    /// The zone whose local days are reported (the machine's own unless a test sets one).
    pub zone: Zone,
    /// The first day as typed.
    pub first_text: String,
    /// The last day as typed.
    pub last_text: String,
    /// The days of the report shown (or being made).
    pub loaded: Option<(NaiveDate, NaiveDate)>,
    /// The report shown.
    pub report: Option<DayReport>,
    /// A report is being made.
    pub loading: bool,
    /// Why the last report failed.
    pub error: Option<crate::ui::problem::Problem>,
    /// The currency whose hours the chart shows.
    pub chart: Option<Currency>,
}

impl ReportView {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.loading = false;
    }

    /// Forgets which days are shown, so the report is made again (a profile switch, or the
    /// view opened again after links changed).
    pub fn invalidate(&mut self) {
        self.loaded = None;
    }

    /// A report arrived for `days`.
    pub fn set_report(
        &mut self,
        days: (NaiveDate, NaiveDate),
        result: Result<DayReport, crate::ui::problem::Problem>,
    ) {
        self.loading = false;
        self.loaded = Some(days);
        match result {
            Ok(report) => {
                let with_money = |c: &&CurrencyReport| !c.collected.is_zero();
                if !self.chart.is_some_and(|ch| {
                    report
                        .currencies
                        .iter()
                        .filter(with_money)
                        .any(|c| c.currency == ch)
                }) {
                    self.chart = report
                        .currencies
                        .iter()
                        .find(with_money)
                        .map(|c| c.currency);
                }
                self.report = Some(report);
                self.error = None;
            }
            Err(e) => {
                self.report = None;
                self.error = Some(e);
            }
        }
    }

    /// The days typed, or the sentence saying what is wrong with them.
    fn days(&self) -> Result<(NaiveDate, NaiveDate), UiText> {
        let parse =
            |t: &str| NaiveDate::parse_from_str(t.trim(), "%Y-%m-%d").map_err(|_| UiText::BadDay);
        let first = parse(&self.first_text)?;
        let last = if self.last_text.trim().is_empty() {
            first
        } else {
            parse(&self.last_text)?
        };
        if last < first {
            return Err(UiText::DaysBackwards);
        }
        Ok((first, last))
    }

    fn set_days(&mut self, first: NaiveDate, last: NaiveDate) {
        self.first_text = first.to_string();
        self.last_text = last.to_string();
    }

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let today = self.zone.date_of(cx.now);
        if self.first_text.is_empty() && self.last_text.is_empty() {
            self.set_days(today, today);
        }
        ui.heading(UiText::NavReport.get(lang));
        let days = self.days();
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(UiText::FirstDay.get(lang));
            ui.add(egui::TextEdit::singleline(&mut self.first_text).desired_width(110.0))
                .labelled_by(l.id);
            let l = ui.label(UiText::LastDay.get(lang));
            ui.add(egui::TextEdit::singleline(&mut self.last_text).desired_width(110.0))
                .labelled_by(l.id);
            ui.separator();
            let (back, forward) = match days {
                Ok((a, b)) if a != b => (UiText::PreviousPeriod, UiText::NextPeriod),
                _ => (UiText::PreviousDay, UiText::NextDay),
            };
            let shift = |d: (NaiveDate, NaiveDate), sign: i64| {
                let len = (d.1 - d.0).num_days() + 1;
                let by = TimeDelta::days(len * sign);
                (d.0 + by, d.1 + by)
            };
            if ui
                .add_enabled(days.is_ok(), egui::Button::new(back.get(lang)))
                .clicked()
                && let Ok(d) = days
            {
                let (a, b) = shift(d, -1);
                self.set_days(a, b);
            }
            if ui.button(UiText::Today.get(lang)).clicked() {
                self.set_days(today, today);
            }
            if ui
                .add_enabled(days.is_ok(), egui::Button::new(forward.get(lang)))
                .clicked()
                && let Ok(d) = days
            {
                let (a, b) = shift(d, 1);
                self.set_days(a, b);
            }
            if ui
                .add_enabled(!self.loading, egui::Button::new(UiText::Refresh.get(lang)))
                .clicked()
            {
                self.invalidate();
            }
            if self.loading {
                ui.spinner();
            }
        });
        let days = self.days();
        match days {
            Ok(d) if self.loaded != Some(d) && !self.loading => {
                self.loading = true;
                cx.emit(Command::Report(ReportCommand::Load {
                    first: d.0,
                    last: d.1,
                    zone: self.zone,
                }));
            }
            Ok(_) => {}
            Err(t) => {
                widgets::error_text_ui(ui, &cx.palette, t.get(lang));
            }
        }
        let offset = self
            .report
            .as_ref()
            .map(|r| r.utc_offset.clone())
            .unwrap_or_default();
        widgets::hint_ui(
            ui,
            &cx.palette,
            &format!(
                "{}{offset}. {}",
                UiText::LocalDays.get(lang),
                UiText::ReportSource.get(lang)
            ),
        );
        ui.add_space(6.0);
        if let Some(e) = &self.error {
            let problem = crate::ui::problem::Problem {
                sentence: format!("{} {}", UiText::ReportFailed.get(lang), e.sentence),
                detail: e.detail.clone(),
            };
            crate::ui::problem::problem_ui(ui, cx, &problem);
            return;
        }
        let Some(report) = &self.report else {
            widgets::hint_ui(ui, &cx.palette, UiText::Loading.get(lang));
            return;
        };
        if report.currencies.is_empty() {
            ui.label(RichText::new(UiText::ReportEmpty.get(lang)).size(16.0));
            return;
        }
        egui::ScrollArea::vertical()
            .id_salt("report-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    for c in self.report.iter().flat_map(|r| &r.currencies) {
                        card_ui(ui, c, lang);
                    }
                });
                ui.add_space(12.0);
                self.hours_ui(ui, cx);
                ui.add_space(12.0);
                self.items_ui(ui, lang);
                ui.add_space(12.0);
                self.staff_ui(ui, lang);
                self.audit_head_ui(ui, cx);
            });
    }

    /// The table per staff member, when any link of the days has one.
    fn staff_ui(&self, ui: &mut Ui, lang: Lang) {
        let Some(report) = &self.report else {
            return;
        };
        if report.by_staff.iter().all(|m| m.name.is_none()) {
            return;
        }
        ui.label(RichText::new(UiText::ByStaff.get(lang)).strong().size(16.0));
        let row_ui = |ui: &mut Ui, cells: [egui::WidgetText; 5]| {
            ui.horizontal(|ui| {
                for ((text, width), align) in cells.into_iter().zip(STAFF_COLUMNS).zip(STAFF_ALIGN)
                {
                    widgets::cell_ui(ui, egui::vec2(width, STAFF_ROW), align, |ui| {
                        ui.label(text);
                    });
                }
            });
        };
        let strong = |t: UiText| egui::WidgetText::from(RichText::new(t.get(lang)).strong());
        row_ui(
            ui,
            [
                strong(UiText::StaffColumn),
                strong(UiText::Currency),
                strong(UiText::LinksMade),
                strong(UiText::PaidInFull),
                strong(UiText::Collected),
            ],
        );
        for member in &report.by_staff {
            let name = member
                .name
                .as_deref()
                .unwrap_or_else(|| UiText::NobodyKnown.get(lang));
            for (i, c) in member.currencies.iter().enumerate() {
                let collected = c
                    .collected
                    .show(lang, |d| format_amount(d, c.currency, lang));
                // The name once, on the member's first currency.
                row_ui(
                    ui,
                    [
                        (if i == 0 { name } else { "" }).into(),
                        c.currency.as_str().into(),
                        c.created.to_string().into(),
                        c.paid.count.to_string().into(),
                        collected.into(),
                    ],
                );
            }
        }
    }

    /// The audit chain's head when the report was made, to note down at the day close.
    fn audit_head_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let Some(report) = &self.report else {
            return;
        };
        ui.add_space(12.0);
        let text = UiText::AuditHeadAtClose.fill(cx.lang, &[("head", &report.audit_head)]);
        ui.add(
            egui::Label::new(RichText::new(text).monospace().color(cx.palette.muted))
                .selectable(true),
        )
        .on_hover_text(UiText::AuditHeadHelp.get(cx.lang));
    }

    fn hours_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        let Some(report) = &self.report else {
            return;
        };
        let with_money: Vec<&CurrencyReport> = report
            .currencies
            .iter()
            .filter(|c| !c.collected.is_zero())
            .collect();
        ui.horizontal(|ui| {
            ui.label(
                RichText::new(UiText::CollectedPerHour.get(lang))
                    .strong()
                    .size(16.0),
            );
            if with_money.len() > 1 {
                let l = ui.label(UiText::Currency.get(lang));
                let shown = self.chart.map(Currency::as_str).unwrap_or_default();
                let combo = egui::ComboBox::from_id_salt("report-chart-currency")
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        for c in &with_money {
                            ui.selectable_value(
                                &mut self.chart,
                                Some(c.currency),
                                c.currency.as_str(),
                            );
                        }
                    });
                let _ = combo.response.labelled_by(l.id);
            }
        });
        let Some(shown) = with_money
            .iter()
            .find(|c| Some(c.currency) == self.chart)
            .or(with_money.first())
        else {
            widgets::hint_ui(ui, &cx.palette, UiText::NothingCollected.get(lang));
            return;
        };
        let currency = shown.currency;
        // Display only: bar heights are screen positions; the amounts shown in words and sent
        // anywhere are the exact decimals of the report.
        let bars: Vec<Bar> = shown
            .collected_by_hour
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.is_zero())
            .map(|(hour, d)| {
                let hour = u32::try_from(hour).unwrap_or_default();
                // An hour out of range has a bar of no height; its name says why.
                let height = d.exact().and_then(|d| d.to_f64()).unwrap_or_default();
                Bar::new(f64::from(hour), height).width(0.8).name(format!(
                    "{hour:02}:00  {}",
                    d.show(lang, |d| format_amount(d, currency, lang))
                ))
            })
            .collect();
        let color = cx.palette.plot_line();
        let symbol = currency.symbol();
        let highest = bars.iter().map(|b| b.value).fold(0.0, f64::max);
        let step = nice_step(highest / 4.0);
        Plot::new("report-hours")
            .height(180.0)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .include_x(-0.6)
            .include_x(23.6)
            .include_y(0.0)
            .x_axis_label(UiText::Hour.get(lang))
            // A mark at every hour of the day, whatever the width.
            .x_grid_spacer(|_| {
                (0..24)
                    .map(|h| GridMark {
                        value: f64::from(h),
                        step_size: if h % 6 == 0 { 6.0 } else { 1.0 },
                    })
                    .collect()
            })
            .x_axis_formatter(|mark, _| {
                let h = mark.value;
                if (0.0..24.0).contains(&h) && h.fract() == 0.0 {
                    format!("{h:02}")
                } else {
                    String::new()
                }
            })
            // Four or five labelled lines at a round step, whatever the height.
            .y_grid_spacer(move |input| {
                let top = input.bounds.1.max(step);
                (0..=100)
                    .map(|i| f64::from(i) * step)
                    .take_while(|v| *v <= top)
                    .map(|value| GridMark {
                        value,
                        step_size: step,
                    })
                    .collect()
            })
            .y_axis_formatter(move |mark, _| match lang {
                Lang::Tr => format!("{} {symbol}", mark.value),
                Lang::En => format!("{symbol}{}", mark.value),
            })
            .show(ui, |p| {
                p.bar_chart(
                    BarChart::new(UiText::Collected.get(lang), bars)
                        .color(color)
                        .element_formatter(Box::new(|bar, _| bar.name.clone())),
                );
            });
    }

    fn items_ui(&self, ui: &mut Ui, lang: Lang) {
        let Some(report) = &self.report else {
            return;
        };
        ui.label(
            RichText::new(UiText::BestSelling.get(lang))
                .strong()
                .size(16.0),
        );
        if report.top_items.is_empty() {
            ui.label(UiText::NoItemsSold.get(lang));
            return;
        }
        egui::Grid::new("report-items")
            .num_columns(3)
            .striped(true)
            .spacing([24.0, 6.0])
            .show(ui, |ui| {
                ui.label(RichText::new(UiText::ItemName.get(lang)).strong());
                right_ui(ui, 70.0, RichText::new(UiText::Quantity.get(lang)).strong());
                right_ui(ui, 110.0, RichText::new(UiText::Total.get(lang)).strong());
                ui.end_row();
                for item in &report.top_items {
                    ui.label(item.name.as_str());
                    right_ui(ui, 70.0, item.quantity.to_string());
                    match item.sum {
                        Some(sum) => {
                            let text = sum.show(lang, |d| format_amount(d, item.currency, lang));
                            right_ui(ui, 110.0, text);
                        }
                        None => {
                            right_ui(ui, 110.0, "—").on_hover_text(UiText::PriceUnknown.get(lang));
                        }
                    }
                    ui.end_row();
                }
            });
    }
}

/// The day close's staff table: column widths, alignment (numbers on the right), row height.
const STAFF_COLUMNS: [f32; 5] = [170.0, 90.0, 110.0, 120.0, 130.0];
const STAFF_ALIGN: [egui::Align; 5] = [
    egui::Align::Min,
    egui::Align::Min,
    egui::Align::Max,
    egui::Align::Max,
    egui::Align::Max,
];
const STAFF_ROW: f32 = 24.0;

/// The smallest of 1, 2, 5 × 10ⁿ at least `at_least` (a round axis step).
fn nice_step(at_least: f64) -> f64 {
    if at_least.is_nan() || at_least <= 0.0 {
        return 1.0;
    }
    let mut magnitude = 10f64.powf(at_least.log10().floor());
    loop {
        for m in [1.0, 2.0, 5.0] {
            if m * magnitude >= at_least {
                return m * magnitude;
            }
        }
        magnitude *= 10.0;
    }
}

/// One currency's card: collected in large type, then the counts.
fn card_ui(ui: &mut Ui, c: &CurrencyReport, lang: Lang) {
    let money = |t: Total| t.show(lang, |d| format_amount(d, c.currency, lang));
    egui::Frame::group(ui.style())
        .inner_margin(12.0)
        .show(ui, |ui| {
            ui.set_width(CARD_WIDTH);
            ui.vertical(|ui| {
                ui.label(RichText::new(c.currency.as_str()).strong().size(15.0));
                ui.label(
                    RichText::new(format!(
                        "{} {}",
                        UiText::Collected.get(lang),
                        money(c.collected)
                    ))
                    .strong()
                    .size(22.0),
                );
                ui.add_space(6.0);
                egui::Grid::new(("report-card", c.currency.as_str()))
                    .num_columns(3)
                    .min_col_width(40.0)
                    .spacing([16.0, 5.0])
                    .show(ui, |ui| {
                        let mut row = |label: UiText, count: usize, sum: Option<Total>| {
                            ui.label(label.get(lang));
                            right_ui(ui, 40.0, RichText::new(count.to_string()).strong());
                            right_ui(ui, 110.0, sum.map(money).unwrap_or_default());
                            ui.end_row();
                        };
                        row(UiText::LinksCreated, c.created, None);
                        row(UiText::PaidInFull, c.paid.count, Some(c.paid.sum));
                        row(
                            UiText::PartiallyPaid,
                            c.partially_paid.count,
                            Some(c.partially_paid.sum),
                        );
                        row(UiText::StillPending, c.pending, None);
                        row(UiText::StatusExpired, c.expired, None);
                        row(UiText::StatusCancelled, c.cancelled, None);
                        if c.other > 0 {
                            row(UiText::OtherStatuses, c.other, None);
                        }
                    });
                ui.add_space(6.0);
                egui::Grid::new(("report-card-money", c.currency.as_str()))
                    .num_columns(2)
                    .spacing([16.0, 5.0])
                    .show(ui, |ui| {
                        for (label, total) in [
                            (UiText::ValueIssued, c.issued),
                            (UiText::StillOutstanding, c.outstanding),
                        ] {
                            ui.label(label.get(lang));
                            right_ui(ui, 166.0, money(total));
                            ui.end_row();
                        }
                    });
            });
        });
}

/// A grid cell with its text on the right (numbers line up on their last digit), at least
/// `width` wide.
fn right_ui(ui: &mut Ui, width: f32, text: impl Into<egui::WidgetText>) -> egui::Response {
    let height = ui.spacing().interact_size.y;
    ui.allocate_ui_with_layout(
        egui::vec2(width, height),
        egui::Layout::right_to_left(egui::Align::Center),
        |ui| {
            ui.set_min_width(width);
            ui.label(text)
        },
    )
    .inner
}
