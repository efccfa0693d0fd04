//! Every link of the profile, newest first, with search and a status filter.
//!
//! A busy shop makes hundreds of links a day, so the list must stay smooth at a million rows:
//! only the rows on screen are laid out (`ScrollArea::show_rows`), their display text is built
//! once when a page arrives (not every frame), and pages are fetched from the store by keyset
//! as the user scrolls near the end. Picking a row opens the link result view.

use egui::{RichText, Ui};

use crate::api::wire::PaymentLink;
use crate::app::Command;
use crate::domain::{LinkStatus, format_amount};
use crate::lang::Lang;
use crate::ui::ViewCtx;
use crate::ui::link_result::status_text;
use crate::ui::new_link::local_time;
use crate::ui::text::T;
use crate::ui::widgets;

/// Rows fetched per page.
pub const PAGE: usize = 200;

/// Height of one row, in points.
pub const ROW_HEIGHT: f32 = 22.0;

/// One row of the list, with its text ready to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRow {
    /// The link id.
    pub id: String,
    /// Creation time, local.
    pub created: String,
    /// Order number.
    pub order: String,
    /// Reference number.
    pub reference: String,
    /// Amount with currency.
    pub amount: String,
    /// Status.
    pub status: LinkStatus,
    /// Status as text.
    pub status_text: String,
    /// Description.
    pub description: String,
}

impl HistoryRow {
    /// The display row of a link.
    pub fn of(link: &PaymentLink, lang: Lang) -> Self {
        let status = link.status.clone().unwrap_or(LinkStatus::Pending);
        Self {
            id: link.id.clone(),
            created: link.created_date.map(local_time).unwrap_or_default(),
            order: link.order_number.clone().unwrap_or_default(),
            reference: link.reference_number.clone().unwrap_or_default(),
            amount: link
                .amount
                .map(|a| format_amount(a, link.currency.unwrap_or_default(), lang))
                .unwrap_or_default(),
            status_text: status_text(&status, false, lang),
            status,
            description: link.description.clone().unwrap_or_default(),
        }
    }
}

/// The search of the list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HistoryFilter {
    /// Order number / reference prefix or description words.
    pub text: String,
    /// Only this status.
    pub status: Option<LinkStatus>,
}

/// The state of the History view.
#[derive(Debug, Default)]
pub struct HistoryView {
    /// The filter as the user set it.
    pub filter: HistoryFilter,
    /// The filter of the rows shown.
    pub loaded_filter: Option<HistoryFilter>,
    /// Rows loaded so far, newest first.
    pub rows: Vec<HistoryRow>,
    /// No more pages.
    pub exhausted: bool,
    /// A page is being fetched.
    pub loading: bool,
    /// The last error.
    pub error: Option<String>,
    /// How many links the profile has (unfiltered lists only).
    pub total: Option<usize>,
}

impl HistoryView {
    /// Replaces the rows with a first page.
    pub fn set_first_page(
        &mut self,
        filter: HistoryFilter,
        rows: Vec<HistoryRow>,
        exhausted: bool,
    ) {
        self.loaded_filter = Some(filter);
        self.rows = rows;
        self.exhausted = exhausted;
        self.loading = false;
        self.error = None;
        self.total = None;
    }

    /// Appends a further page.
    pub fn append_page(&mut self, rows: Vec<HistoryRow>, exhausted: bool) {
        self.rows.extend(rows);
        self.exhausted = exhausted;
        self.loading = false;
    }

    /// Forgets the rows (after a profile switch or a new link), so they are fetched again.
    pub fn invalidate(&mut self) {
        self.loaded_filter = None;
    }

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        ui.heading(T::NavHistory.get(lang));
        ui.horizontal(|ui| {
            let l = ui.label(T::Search.get(lang));
            ui.add(egui::TextEdit::singleline(&mut self.filter.text).desired_width(260.0))
                .labelled_by(l.id);
            let s = ui.label(T::StatusFilter.get(lang));
            let selected = self.filter.status.as_ref().map_or_else(
                || T::AllStatuses.get(lang).to_owned(),
                |st| status_text(st, false, lang),
            );
            let combo = egui::ComboBox::from_id_salt("history-status")
                .selected_text(selected)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.filter.status, None, T::AllStatuses.get(lang));
                    for st in LinkStatus::KNOWN {
                        ui.selectable_value(
                            &mut self.filter.status,
                            Some(st.clone()),
                            status_text(st, false, lang),
                        );
                    }
                });
            let _ = combo.response.labelled_by(s.id);
        });
        if self.loaded_filter.as_ref() != Some(&self.filter) && !self.loading {
            self.loading = true;
            cx.emit(Command::SearchHistory(self.filter.clone()));
        }
        if let Some(e) = &self.error {
            widgets::error_text_ui(ui, &cx.palette, e.as_str());
        }
        let count = self.rows.len();
        let more = if self.exhausted { "" } else { "+" };
        widgets::hint_ui(
            ui,
            &cx.palette,
            &format!("{count}{more} {}", T::LinksShown.get(lang)),
        );
        if count == 0 {
            let t = if self.loading { T::Loading } else { T::NoLinks };
            widgets::hint_ui(ui, &cx.palette, t.get(lang));
            return;
        }
        header_ui(ui, lang);
        let mut want_more = false;
        let mut picked = None;
        egui::ScrollArea::vertical()
            .id_salt("history-rows")
            .auto_shrink([false, false])
            .show_rows(ui, ROW_HEIGHT, count, |ui, range| {
                if range.end + PAGE / 2 >= count {
                    want_more = true;
                }
                for row in &self.rows[range] {
                    if row_ui(ui, cx, row).clicked() {
                        picked = Some(row.id.clone());
                    }
                }
            });
        if want_more && !self.exhausted && !self.loading {
            self.loading = true;
            cx.emit(Command::MoreHistory);
        }
        if let Some(id) = picked {
            cx.emit(Command::ShowHistoryLink(id));
        }
    }
}

const COLUMNS: [f32; 5] = [130.0, 190.0, 120.0, 110.0, 130.0];

fn header_ui(ui: &mut Ui, lang: Lang) {
    ui.horizontal(|ui| {
        for (w, t) in COLUMNS.iter().zip([
            T::Created,
            T::OrderNumber,
            T::Reference,
            T::Amount,
            T::Status,
        ]) {
            ui.add_sized(
                [*w, ROW_HEIGHT],
                egui::Label::new(RichText::new(t.get(lang)).strong()),
            );
        }
        ui.label(RichText::new(T::Description.get(lang)).strong());
    });
}

fn row_ui(ui: &mut Ui, cx: &ViewCtx<'_>, row: &HistoryRow) -> egui::Response {
    let response = ui
        .horizontal(|ui| {
            ui.set_height(ROW_HEIGHT);
            let cells = [&row.created, &row.order, &row.reference, &row.amount];
            for (w, text) in COLUMNS.iter().zip(cells) {
                ui.add_sized([*w, ROW_HEIGHT], egui::Label::new(text.as_str()).truncate());
            }
            let badge = cx.palette.status(&row.status);
            ui.add_sized(
                [COLUMNS[4], ROW_HEIGHT],
                egui::Label::new(
                    RichText::new(&row.status_text)
                        .color(badge.text)
                        .background_color(badge.fill),
                ),
            );
            ui.add(egui::Label::new(row.description.as_str()).truncate());
        })
        .response;
    let id = ui.make_persistent_id(("history-row", &row.id));
    let r = ui.interact(response.rect, id, egui::Sense::click());
    let label = format!("{} {} {}", row.order, row.amount, row.status_text);
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
    if r.hovered() {
        ui.painter().rect_stroke(
            r.rect,
            2.0,
            ui.visuals().widgets.hovered.bg_stroke,
            egui::StrokeKind::Inside,
        );
    }
    r
}
