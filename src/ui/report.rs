//! The day close: what the links created over a day (or a range of days) came to, per
//! currency, as cards; what was collected in each hour, as a bar chart; and the best-selling
//! items. Today by default, with a step to the previous and the next day.
//!
//! The report itself is computed by the store (`store::report`) on the worker; this view only
//! keeps the days asked for, asks for the report when they change, and draws the answer.

use chrono::{Datelike, NaiveDate, TimeDelta};
use egui::{RichText, Ui};
use egui_plot::{Bar, BarChart, GridMark, Plot};
use rust_decimal::prelude::ToPrimitive;

use crate::clock::Zone;
use crate::domain::{Currency, format_amount};
use crate::lang::Lang;
use crate::store::{CurrencyReport, DayReport, StaffCurrency, Total};
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::calendar;
use crate::ui::command::ReportCommand;
use crate::ui::problem::Explain;
use crate::ui::table::{Align, Table};
use crate::ui::text::UiText;
use crate::ui::theme::{self, icon::Icon};
use crate::ui::widgets;

/// The step arrows beside the presets (a day or a period back and forward).
pub const ICON_BACK: Icon = egui_material_icons::icons::ICON_CHEVRON_LEFT;
/// See [`ICON_BACK`].
pub const ICON_FORWARD: Icon = egui_material_icons::icons::ICON_CHEVRON_RIGHT;

/// Width of one currency card, in points.
const CARD_WIDTH: f32 = 300.0;
/// Height of the hourly chart.
const CHART_HEIGHT: f32 = 200.0;
/// The chart and the best sellers sit side by side from this width on (else one under the
/// other).
const SIDE_BY_SIDE_WIDTH: f32 = 640.0;
/// The share of the width the chart takes beside the best sellers (at 1024 × 768 the best
/// sellers' three columns then fit beside it).
const CHART_SHARE: f32 = 0.5;
/// The outline of a bar, in points.
const BAR_OUTLINE: f32 = 1.0;
/// Width of a bar, in hours.
const BAR_WIDTH: f64 = 0.8;
/// The least width of a card's first column.
const CARD_COUNT_WIDTH: f32 = 40.0;

/// A quick choice of days in the toolbar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// Today alone.
    Today,
    /// Yesterday alone.
    Yesterday,
    /// Monday of this week to today.
    ThisWeek,
    /// The 1st of this month to today.
    ThisMonth,
}

impl Preset {
    /// Every preset, in the toolbar's order.
    pub const ALL: [Preset; 4] = [
        Preset::Today,
        Preset::Yesterday,
        Preset::ThisWeek,
        Preset::ThisMonth,
    ];

    /// The days of the preset, `today` being today.
    pub fn days(self, today: NaiveDate) -> (NaiveDate, NaiveDate) {
        match self {
            Preset::Today => (today, today),
            Preset::Yesterday => {
                let day = today - TimeDelta::days(1);
                (day, day)
            }
            Preset::ThisWeek => (
                today - TimeDelta::days(i64::from(today.weekday().num_days_from_monday())),
                today,
            ),
            Preset::ThisMonth => (today.with_day(1).unwrap_or(today), today),
        }
    }

    fn text(self) -> UiText {
        match self {
            Preset::Today => UiText::Today,
            Preset::Yesterday => UiText::Yesterday,
            Preset::ThisWeek => UiText::ThisWeek,
            Preset::ThisMonth => UiText::ThisMonth,
        }
    }
}

/// Refresh under way: the open links of the days asked about, one a second.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReportRefresh {
    /// The days whose open links are asked about.
    pub days: Option<(NaiveDate, NaiveDate)>,
    /// How many open links there are (`None` while they are looked up).
    pub total: Option<usize>,
    /// How many have answered.
    pub done: usize,
    /// Whether any could not be asked about.
    pub failed: bool,
}

impl ReportRefresh {
    /// Whether answers are still awaited.
    pub fn running(&self) -> bool {
        self.total.is_none_or(|t| self.done < t)
    }
}

/// The state of the Report view.
#[derive(Debug, Default)]
pub struct ReportView {
    /// The zone whose local days are reported (the machine's own unless a test sets one).
    zone: Zone,
    /// The first day as typed.
    first_text: String,
    /// The last day as typed.
    last_text: String,
    /// The days of the report shown (or being made).
    loaded: Option<(NaiveDate, NaiveDate)>,
    /// The report shown.
    report: Option<DayReport>,
    /// A report is being made.
    loading: bool,
    /// Links changed while the report being made was read: it is made again when it comes.
    stale: bool,
    /// Why the last report failed.
    error: Option<crate::ui::problem::Problem>,
    /// The currency whose hours the chart shows.
    chart: Option<Currency>,
    /// Refresh: the status of the days' open links asked about, then the report made again.
    refresh: Option<ReportRefresh>,
}

impl ReportView {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.loading = false;
        self.stale = false;
        self.refresh = None;
    }

    /// Forgets which days are shown, so the report is made again (a profile switch, or the
    /// view opened again after links changed).
    pub fn invalidate(&mut self) {
        self.loaded = None;
        self.stale = self.loading;
    }

    /// The open links of the refreshed days are known: `count` of them will answer.
    pub fn on_open_links(&mut self, count: usize) {
        if let Some(r) = &mut self.refresh {
            r.total = Some(count);
        }
        self.refresh_maybe_over();
    }

    /// One open link answered (`ok`: with its status); the report is made again after the last.
    pub fn on_link_refreshed(&mut self, ok: bool) {
        if let Some(r) = &mut self.refresh {
            r.done += 1;
            r.failed |= !ok;
        }
        self.refresh_maybe_over();
    }

    /// The open links could not be looked up: the report is made again from what is known.
    pub fn on_refresh_failed(&mut self) {
        if let Some(r) = &mut self.refresh {
            r.total = Some(r.done);
            r.failed = true;
        }
        self.refresh_maybe_over();
    }

    fn refresh_maybe_over(&mut self) {
        if self.refresh.as_ref().is_some_and(|r| !r.running()) {
            self.invalidate();
        }
    }

    fn refreshing(&self) -> bool {
        self.refresh.as_ref().is_some_and(ReportRefresh::running)
    }

    /// The report shown.
    pub fn report(&self) -> Option<&DayReport> {
        self.report.as_ref()
    }

    /// The days of the report shown (or being made).
    pub fn loaded(&self) -> Option<(NaiveDate, NaiveDate)> {
        self.loaded
    }

    /// Whether a report is being made.
    pub fn is_loading(&self) -> bool {
        self.loading
    }

    /// Why the last report failed.
    pub fn error(&self) -> Option<&crate::ui::problem::Problem> {
        self.error.as_ref()
    }

    /// The first day as typed.
    pub fn first_text(&self) -> &str {
        &self.first_text
    }

    /// The last day as typed.
    pub fn last_text(&self) -> &str {
        &self.last_text
    }

    /// The Refresh under way or just ended.
    pub fn refresh(&self) -> Option<&ReportRefresh> {
        self.refresh.as_ref()
    }

    /// Whether a Refresh still waits for answers.
    pub fn is_refreshing(&self) -> bool {
        self.refreshing()
    }

    /// Another profile was opened: its report is made afresh, the last one's not shown.
    pub fn on_profile_opened(&mut self) {
        self.report = None;
        self.invalidate();
    }

    /// Test set-up: a report is being made, as after the view asked for one.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_loading(&mut self) {
        self.loading = true;
    }

    /// Test set-up: the report of `days` is shown.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_loaded(&mut self, days: (NaiveDate, NaiveDate)) {
        self.loaded = Some(days);
    }

    /// A report arrived for `days` (or could not be made).
    pub fn on_report(
        &mut self,
        days: (NaiveDate, NaiveDate),
        result: Result<DayReport, impl Explain>,
        lang: Lang,
    ) {
        self.loading = false;
        self.loaded = (!std::mem::take(&mut self.stale)).then_some(days);
        match result.map_err(|e| e.problem(lang)) {
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
        let parse = |t: &str| crate::ui::words::parse_day(t).ok_or(UiText::BadDay);
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

    fn set_days(&mut self, first: NaiveDate, last: NaiveDate, lang: Lang) {
        self.first_text = crate::ui::words::day_text(first, lang);
        self.last_text = crate::ui::words::day_text(last, lang);
    }

    /// Refresh: asks about the days' open links (the app makes the report again after the
    /// last answer); with days typed wrong, nothing to ask.
    fn start_refresh(&mut self, cx: &mut ViewCtx<'_>) {
        let Ok((first, last)) = self.days() else {
            return;
        };
        self.refresh = Some(ReportRefresh {
            days: Some((first, last)),
            ..ReportRefresh::default()
        });
        cx.emit(Command::Report(ReportCommand::RefreshStatuses {
            first,
            last,
            zone: self.zone,
        }));
    }

    /// The toolbar in one row: the two day fields, the presets and the step arrows.
    fn toolbar_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, today: NaiveDate) {
        let lang = cx.lang;
        let days = self.days();
        ui.horizontal_wrapped(|ui| {
            calendar::date_field_ui(
                ui,
                UiText::FirstDay.get(lang),
                &mut self.first_text,
                today,
                lang,
            );
            calendar::date_field_ui(
                ui,
                UiText::LastDay.get(lang),
                &mut self.last_text,
                today,
                lang,
            );
            ui.separator();
            ui.vertical(|ui| {
                // The presets line up with the fields, under the labels' line.
                ui.label("");
                ui.horizontal(|ui| {
                    for preset in Preset::ALL {
                        let on = days.ok() == Some(preset.days(today));
                        let button = egui::Button::selectable(on, preset.text().get(lang))
                            .min_size(egui::vec2(0.0, theme::BUTTON_HEIGHT));
                        if ui.add(button).clicked() {
                            let (a, b) = preset.days(today);
                            self.set_days(a, b, cx.lang);
                        }
                    }
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
                    for (icon, text, sign) in [(ICON_BACK, back, -1), (ICON_FORWARD, forward, 1)] {
                        if step_ui(ui, icon, text.get(lang), days.is_ok()).clicked()
                            && let Ok(d) = days
                        {
                            let (a, b) = shift(d, sign);
                            self.set_days(a, b, cx.lang);
                        }
                    }
                });
            });
        });
    }

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let today = self.zone.date_of(cx.now);
        if self.first_text.is_empty() && self.last_text.is_empty() {
            self.set_days(today, today, cx.lang);
        }
        let busy = self.loading || self.refreshing();
        let mut refresh = false;
        widgets::page_header_ui(
            ui,
            UiText::NavReport.get(lang),
            UiText::ReportHelp.get(lang),
            |ui| {
                refresh = widgets::Action::secondary(UiText::Refresh.get(lang))
                    .icon(theme::icon::REFRESH)
                    .enabled(!busy && self.days().is_ok())
                    .show_ui(ui)
                    .on_hover_text(UiText::ReportRefreshHelp.get(lang))
                    .clicked();
            },
        );
        if refresh {
            self.start_refresh(cx);
        }
        self.toolbar_ui(ui, cx, today);
        let days = self.days();
        match days {
            Ok(d) if self.loaded != Some(d) && !self.loading && !self.refreshing() => {
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
                if self.report.as_ref().is_some_and(|r| !r.by_desk.is_empty()) {
                    UiText::ReportSourceShop.get(lang)
                } else {
                    UiText::ReportSource.get(lang)
                }
            ),
        );
        self.status_ui(ui, cx);
        ui.add_space(theme::SPACE_S);
        self.body_ui(ui, cx);
    }

    /// Refresh's progress, its failure, or the spinner of a report being made.
    fn status_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        match &self.refresh {
            Some(r) if r.running() => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    let total = r.total.map(|t| t.to_string()).unwrap_or_default();
                    ui.label(
                        UiText::ReportRefreshing
                            .fill(lang, &[("done", &r.done), ("total", &total)]),
                    );
                });
            }
            Some(r) if r.failed => {
                widgets::error_text_ui(ui, &cx.palette, UiText::ReportRefreshFailed.get(lang));
            }
            _ if self.loading => {
                ui.spinner();
            }
            _ => {}
        }
    }

    /// The report: the cards, the chart beside the best sellers, the staff table.
    fn body_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
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
            widgets::empty_state_ui(
                ui,
                theme::icon::REPORT,
                UiText::ReportEmpty.get(lang),
                UiText::ReportEmptyHelp.get(lang),
            );
            return;
        }
        egui::ScrollArea::vertical()
            .id_salt("report-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    for c in self.report.iter().flat_map(|r| &r.currencies) {
                        card_ui(ui, c, cx);
                    }
                });
                self.sent_ui(ui, cx);
                ui.add_space(theme::SPACE_M);
                if ui.available_width() >= SIDE_BY_SIDE_WIDTH {
                    let chart_width = ui.available_width() * CHART_SHARE;
                    ui.horizontal_top(|ui| {
                        ui.allocate_ui_with_layout(
                            egui::vec2(chart_width, CHART_HEIGHT),
                            egui::Layout::top_down(egui::Align::Min),
                            |ui| {
                                ui.set_width(chart_width);
                                self.hours_ui(ui, cx);
                            },
                        );
                        ui.add_space(theme::SPACE_L);
                        ui.vertical(|ui| self.items_ui(ui, lang));
                    });
                } else {
                    self.hours_ui(ui, cx);
                    ui.add_space(theme::SPACE_M);
                    self.items_ui(ui, lang);
                }
                ui.add_space(theme::SPACE_M);
                self.staff_ui(ui, lang);
                self.desks_ui(ui, lang);
                // No audit chain head here (issue 29): a clerk cannot act on a hash; the Audit
                // view shows the desk's and the shop's, the printed report and `report --json`
                // keep them.
                self.claims_ui(ui, cx);
            });
    }

    /// One line: the links of the days sent to customers (every desk's in a shop) and how
    /// many were paid in full after their first send; none when nothing was sent.
    fn sent_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let Some(report) = &self.report else {
            return;
        };
        if report.sent.links == 0 {
            return;
        }
        let lang = cx.lang;
        ui.add_space(theme::SPACE_S);
        ui.label(UiText::SentToCustomers.fill(
            lang,
            &[("n", &report.sent.links), ("paid", &report.sent.paid_after)],
        ))
        .on_hover_text(UiText::SentToCustomersHelp.get(lang));
    }

    /// The table per staff member, when any link of the days has one.
    fn staff_ui(&self, ui: &mut Ui, lang: Lang) {
        let Some(report) = &self.report else {
            return;
        };
        if report.by_staff.iter().all(|m| m.name.is_none()) {
            return;
        }
        let rows = report.by_staff.iter().map(|m| {
            (
                m.name
                    .as_deref()
                    .unwrap_or_else(|| UiText::NobodyKnown.get(lang)),
                m.currencies.as_slice(),
            )
        });
        parties_ui(ui, lang, (UiText::ByStaff, UiText::StaffColumn), rows);
    }

    /// The table per desk, for a shop's report.
    fn desks_ui(&self, ui: &mut Ui, lang: Lang) {
        let Some(report) = &self.report else {
            return;
        };
        if report.by_desk.is_empty() {
            return;
        }
        ui.add_space(theme::SPACE_M);
        let rows = report
            .by_desk
            .iter()
            .map(|d| (d.name.as_str(), d.currencies.as_slice()));
        parties_ui(ui, lang, (UiText::ByDesk, UiText::DeskColumn), rows);
    }

    /// A shop's payments counted apart, one line each, with the contradiction when one came.
    fn claims_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let Some(report) = &self.report else {
            return;
        };
        if report.claims_apart.is_empty() {
            return;
        }
        let lang = cx.lang;
        ui.add_space(theme::SPACE_M);
        ui.label(section_title(UiText::ClaimsApartTitle.get(lang)).color(cx.palette.warn));
        widgets::hint_ui(ui, &cx.palette, UiText::ClaimsApartHelp.get(lang));
        for c in &report.claims_apart {
            let money = |t: Total| t.show(lang, |d| format_amount(d, c.currency, lang));
            let order = c.order_number.as_deref().unwrap_or(&c.link_id);
            ui.label(UiText::ClaimApartLine.fill(
                lang,
                &[
                    ("order", &order),
                    ("desk", &c.claimed_by),
                    ("claimed", &money(c.claimed_paid)),
                    ("counted", &money(c.confirmed_paid)),
                ],
            ));
            if let Some(x) = &c.contradicted {
                let seen = money(x.paid);
                ui.label(
                    RichText::new(
                        UiText::ClaimApartContradicted
                            .fill(lang, &[("desk", &x.by), ("seen", &seen)]),
                    )
                    .color(cx.palette.error),
                );
            }
        }
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
            ui.label(section_title(UiText::CollectedPerHour.get(lang)));
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
                Bar::new(f64::from(hour), height)
                    .width(BAR_WIDTH)
                    .name(format!(
                        "{hour:02}:00  {}",
                        d.show(lang, |d| format_amount(d, currency, lang))
                    ))
            })
            .collect();
        let color = cx.palette.accent;
        let bars: Vec<Bar> = bars
            .into_iter()
            .map(|b| b.fill(color).stroke(egui::Stroke::new(BAR_OUTLINE, color)))
            .collect();
        let symbol = currency.symbol();
        let highest = bars.iter().map(|b| b.value).fold(0.0, f64::max);
        let step = nice_step(highest / 4.0);
        Plot::new("report-hours")
            .height(CHART_HEIGHT)
            // Light lines: the faint stroke egui draws separators with.
            .grid_color(ui.visuals().widgets.noninteractive.bg_stroke.color)
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
        ui.label(section_title(UiText::BestSelling.get(lang)));
        if report.top_items.is_empty() {
            ui.label(UiText::NoItemsSold.get(lang));
            return;
        }
        // One table per currency (₺ and € never share a column), its symbol in the header;
        // the server's order (best first) kept within each.
        let mut currencies: Vec<crate::domain::Currency> = Vec::new();
        for item in &report.top_items {
            if !currencies.contains(&item.currency) {
                currencies.push(item.currency);
            }
        }
        currencies.sort_by_key(|c| crate::domain::Currency::ALL.iter().position(|a| a == c));
        // Every currency's table has the same columns, measured over all the items.
        let sum_text = |i: &crate::store::ItemSales| {
            i.sum.map_or_else(
                || "—".to_owned(),
                |s| s.show(lang, |d| crate::domain::format_number(d, i.currency, lang)),
            )
        };
        let all = &report.top_items;
        let sums: Vec<String> = all.iter().map(sum_text).collect();
        let quantities: Vec<String> = all.iter().map(|i| i.quantity.to_string()).collect();
        for currency in currencies {
            let total = format!("{} ({})", UiText::Total.get(lang), currency.symbol());
            let mut table = Table::new()
                .column(
                    ui,
                    UiText::ItemName.get(lang),
                    Align::Left,
                    all.iter().map(|i| i.name.as_str()),
                )
                .column(
                    ui,
                    UiText::Quantity.get(lang),
                    Align::Right,
                    quantities.iter().map(String::as_str),
                )
                .column(ui, &total, Align::Right, sums.iter().map(String::as_str));
            table.widget_rows_ui(ui, ("report-items", currency.as_str()), |t| {
                let items = all.iter().zip(&quantities).zip(&sums);
                for ((item, quantity), sum) in items.filter(|((i, _), _)| i.currency == currency) {
                    t.text(item.name.as_str());
                    t.text(quantity.as_str());
                    if item.sum.is_some() {
                        t.text(sum.as_str());
                    } else {
                        t.cell(|ui| {
                            ui.label("—").on_hover_text(UiText::PriceUnknown.get(lang));
                        });
                    }
                    t.end_row();
                }
            });
            ui.add_space(theme::SPACE_S);
        }
    }
}

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

/// A section's title (the chart, the best sellers, the staff table).
fn section_title(text: &str) -> RichText {
    RichText::new(text)
        .text_style(egui::TextStyle::Button)
        .strong()
}

/// One currency's card: collected in large type, then the counts (a zero muted).
/// A table of links made, paid in full and collected per currency, for each staff member or
/// desk (`(title, first column)`): the name once, on its first currency.
fn parties_ui<'a>(
    ui: &mut Ui,
    lang: Lang,
    (title, column): (UiText, UiText),
    rows: impl Iterator<Item = (&'a str, &'a [StaffCurrency])>,
) {
    ui.label(section_title(title.get(lang)));
    let lines: Vec<[String; 5]> = rows
        .flat_map(|(name, currencies)| {
            currencies.iter().enumerate().map(move |(i, c)| {
                [
                    (if i == 0 { name } else { "" }).to_owned(),
                    c.currency.as_str().to_owned(),
                    c.created.to_string(),
                    c.paid.count.to_string(),
                    c.collected
                        .show(lang, |d| format_amount(d, c.currency, lang)),
                ]
            })
        })
        .collect();
    let cells = |i: usize| lines.iter().map(move |l| l[i].as_str());
    let mut table = Table::new()
        .column(ui, column.get(lang), Align::Left, cells(0))
        .column(ui, UiText::Currency.get(lang), Align::Left, cells(1))
        .column(ui, UiText::LinksMade.get(lang), Align::Right, cells(2))
        .column(ui, UiText::PaidInFull.get(lang), Align::Right, cells(3))
        .column(ui, UiText::Collected.get(lang), Align::Right, cells(4));
    table.widget_rows_ui(ui, ("report-parties", title.get(lang)), |t| {
        for line in &lines {
            for cell in line {
                t.text(cell.as_str());
            }
            t.end_row();
        }
    });
}

fn card_ui(ui: &mut Ui, c: &CurrencyReport, cx: &ViewCtx<'_>) {
    let lang = cx.lang;
    let muted = cx.palette.muted;
    let money = |t: Total| t.show(lang, |d| format_amount(d, c.currency, lang));
    egui::Frame::group(ui.style())
        .inner_margin(theme::SPACE_M)
        .show(ui, |ui| {
            ui.set_width(CARD_WIDTH);
            ui.vertical(|ui| {
                ui.label(section_title(c.currency.as_str()).color(muted));
                ui.label(
                    RichText::new(format!(
                        "{} {}",
                        UiText::Collected.get(lang),
                        money(c.collected)
                    ))
                    .heading()
                    .strong(),
                );
                ui.add_space(theme::SPACE_S);
                card_table_ui(ui, c, cx);
            });
        });
}

/// A card's table under one header (what · links · amount): the counts by status with
/// their sums, then the money issued and still outstanding (a zero muted).
fn card_table_ui(ui: &mut Ui, c: &CurrencyReport, cx: &ViewCtx<'_>) {
    let lang = cx.lang;
    let muted = cx.palette.muted;
    let money = |t: Total| t.show(lang, |d| format_amount(d, c.currency, lang));
    let mut counts = vec![
        (
            UiText::LinksCreated.get(lang).to_owned(),
            Some(c.created),
            None,
        ),
        (
            UiText::PaidInFull.get(lang).to_owned(),
            Some(c.paid.count),
            Some(money(c.paid.sum)),
        ),
        (
            UiText::PartiallyPaid.get(lang).to_owned(),
            Some(c.partially_paid.count),
            Some(money(c.partially_paid.sum)),
        ),
        (
            UiText::StillPending.get(lang).to_owned(),
            Some(c.pending),
            None,
        ),
        (
            UiText::StatusExpired.get(lang).to_owned(),
            Some(c.expired),
            None,
        ),
        (
            UiText::StatusCancelled.get(lang).to_owned(),
            Some(c.cancelled),
            None,
        ),
    ];
    if c.other > 0 {
        counts.push((
            UiText::OtherStatuses.get(lang).to_owned(),
            Some(c.other),
            None,
        ));
    }
    counts.push((
        UiText::ValueIssued.get(lang).to_owned(),
        None,
        Some(money(c.issued)),
    ));
    counts.push((
        UiText::StillOutstanding.get(lang).to_owned(),
        None,
        Some(money(c.outstanding)),
    ));
    let unconfirmed = (c.unconfirmed.count > 0).then(|| {
        (
            UiText::UnconfirmedPaid.fill(lang, &[("n", &c.unconfirmed.count)]),
            money(c.unconfirmed.sum),
        )
    });
    let numbers: Vec<String> = counts
        .iter()
        .map(|(_, n, _)| n.map(|n| n.to_string()).unwrap_or_default())
        .collect();
    let mut table = Table::new()
        .fill(ui, "", CARD_COUNT_WIDTH)
        .column(
            ui,
            UiText::LinksColumn.get(lang),
            Align::Right,
            numbers.iter().map(String::as_str),
        )
        .column(
            ui,
            UiText::Amount.get(lang),
            Align::Right,
            counts.iter().filter_map(|(_, _, m)| m.as_deref()),
        );
    table.widget_rows_ui(ui, ("report-card", c.currency.as_str()), |t| {
        for ((label, count, sum), number) in counts.iter().zip(&numbers) {
            let zero = *count == Some(0);
            let tone = |t: RichText| if zero { t.color(muted) } else { t };
            t.text(tone(RichText::new(label)));
            t.text(tone(RichText::new(number).strong()));
            t.text(tone(RichText::new(sum.clone().unwrap_or_default())));
            t.end_row();
        }
        if let Some((label, sum)) = &unconfirmed {
            let warn = cx.palette.warn;
            t.text(RichText::new(label).color(warn));
            t.text("");
            t.text(RichText::new(sum).color(warn));
            t.end_row();
        }
    });
}

/// A step arrow: the icon alone on screen, heard and hovered as `text`.
fn step_ui(ui: &mut Ui, icon: Icon, text: &str, enabled: bool) -> egui::Response {
    let button = egui::Button::new(icon.rich_text())
        .min_size(egui::vec2(theme::BUTTON_HEIGHT, theme::BUTTON_HEIGHT));
    let response = ui.add_enabled(enabled, button).on_hover_text(text);
    let owned = text.to_owned();
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, &owned));
    response
}
