//! Every link of the profile, newest first, with search, a status filter and a range of local
//! days; the totals of the filtered set; "Refresh statuses" for the unfinished rows on screen;
//! and the export of the filtered set as CSV.
//!
//! A busy shop makes hundreds of links a day, so the list must stay smooth at a million rows:
//! only the rows on screen are laid out (`ScrollArea::show_rows`), their display text is built
//! once when a page arrives (not every frame), and pages are fetched from the store by keyset
//! as the user scrolls near the end. The totals are counted by a job of their own, so a long
//! count never holds the first page back. Picking a row opens the link result view.

use std::ops::Range;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use egui::Ui;

use crate::clock::Zone;
use crate::domain::Link;
use crate::domain::{LinkStatus, format_amount};
use crate::lang::Lang;
use crate::store::{LinkTotals, StoredLink};
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::calendar;
use crate::ui::command::HistoryCommand;
use crate::ui::link_result::{status_text, status_with_payment};
use crate::ui::problem::{Explain, Note, Problem, note_ui, problem_ui};
use crate::ui::table::{self, Align, Table, Widest};
use crate::ui::text::UiText;
use crate::ui::theme::{self, StatusMeaning};
use crate::ui::widgets;
use crate::ui::words::{ago_text, local_time, span_text};

/// The search of the list, defined with the commands that carry it.
pub use crate::ui::command::HistoryFilter;

/// Rows fetched per page.
pub const PAGE: usize = 200;

/// Height of one row, in points.
pub const ROW_HEIGHT: f32 = table::TWO_LINE_ROW;

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
    /// Cancelled through paydesk (the server says EXPIRED).
    pub cancelled: bool,
    /// Not completed, but something was paid.
    pub partly_paid: bool,
    /// When this install last heard the status (stored, or refreshed here).
    pub known_at: DateTime<Utc>,
    /// The staff member who began it (empty when unknown).
    pub staff: String,
    /// The desk that made it, on a desk in a shop (empty: this desk's own history).
    pub desk: String,
    /// Made at another desk of the shop: its status is that desk's to ask about.
    pub foreign: bool,
    /// Read from a shop: another desk says it was paid and no second desk's own call to the
    /// payment API has confirmed it (the status shown is the last confirmed one).
    pub unconfirmed: bool,
    /// Its renewals, as words: "Renewed as REM-2-2", "Renews REM-2" (empty: none).
    pub renewal: String,
}

impl HistoryRow {
    /// The display row of a link of history (a link cancelled here reads "Cancelled").
    pub fn of_stored(stored: &StoredLink, lang: Lang, zone: Zone) -> Self {
        let mut row = Self::of(&stored.link, stored.updated_at, lang, zone);
        row.set_cancelled(stored.cancelled_at.is_some(), lang);
        row.staff = stored.staff.clone().unwrap_or_default();
        row.unconfirmed = stored.unconfirmed.is_some();
        row
    }

    /// Marks the row as cancelled through paydesk (or not).
    pub fn set_cancelled(&mut self, cancelled: bool, lang: Lang) {
        self.cancelled = cancelled;
        self.status_text = status_with_payment(&self.status, cancelled, self.partly_paid, lang);
    }

    /// Whether the link can still change (a refresh may tell something new).
    pub fn is_open(&self) -> bool {
        !self.status.is_final() && !self.cancelled
    }

    /// The display row of a link whose status was heard at `known_at`, its time in `zone`.
    pub fn of(link: &Link, known_at: DateTime<Utc>, lang: Lang, zone: Zone) -> Self {
        let status = link.status.clone();
        let partly_paid =
            status != LinkStatus::Completed && link.paid_so_far() > rust_decimal::Decimal::ZERO;
        Self {
            id: link.id.clone(),
            created: link
                .created
                .map(|at| local_time(at, zone, lang))
                .unwrap_or_default(),
            order: link.order_text().to_owned(),
            reference: link.reference_text().to_owned(),
            amount: link
                .amount
                .map(|a| format_amount(a, link.currency, lang))
                .unwrap_or_default(),
            status_text: status_with_payment(&status, false, partly_paid, lang),
            status,
            description: link.description_text().to_owned(),
            cancelled: false,
            partly_paid,
            known_at,
            staff: String::new(),
            desk: String::new(),
            foreign: false,
            renewal: String::new(),
            unconfirmed: false,
        }
    }
}

/// "Refresh statuses" under way: one detail request per row, a second apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusRefresh {
    /// The rows asked about.
    ids: Vec<String>,
    /// How many have answered.
    done: usize,
    /// How many answers changed the row.
    changed: usize,
    /// The first failure, as a sentence.
    failed: Option<Problem>,
}

impl StatusRefresh {
    /// The rows asked about.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// How many have answered.
    pub fn done(&self) -> usize {
        self.done
    }
}

/// A page of History as read for the view: its rows and whether more follow, with what was
/// read beside a first page.
#[derive(Debug)]
pub struct HistoryPage {
    /// The filter the page was read for.
    pub filter: HistoryFilter,
    /// A first page (replaces the rows) or a further one (appended).
    pub first: bool,
    /// The rows, newest first.
    pub rows: Vec<HistoryRow>,
    /// No page follows.
    pub exhausted: bool,
    /// How many links the profile has (unfiltered first pages only).
    pub total: Option<usize>,
    /// The staff members' names, when read with the page.
    pub staff_names: Option<Vec<String>>,
}

/// The state of the History view.
#[derive(Debug, Default)]
pub struct HistoryView {
    /// The shop's staff members, for the Staff filter and column (empty: staff are off).
    staff_names: Vec<String>,
    /// The filter as the user set it.
    filter: HistoryFilter,
    /// The filter of the rows shown.
    loaded_filter: Option<HistoryFilter>,
    /// Rows loaded so far, newest first.
    rows: Vec<HistoryRow>,
    /// Whether any row loaded is the shop's (has a desk): kept with the pages, never scanned
    /// for in a frame (a million rows took 22 ms a frame to scan).
    shop_rows: bool,
    /// No more pages.
    exhausted: bool,
    /// A page is being fetched.
    loading: bool,
    /// The last error.
    error: Option<Problem>,
    /// How many links the profile has (unfiltered lists only).
    total: Option<usize>,
    /// The zone whose local days the date filter means (the machine's unless a test sets one).
    zone: Zone,
    /// The first day as typed.
    from_text: String,
    /// The last day as typed.
    to_text: String,
    /// The totals of the filtered set, and the filter they count (`None` while counting).
    totals: Option<(HistoryFilter, Result<LinkTotals, Problem>)>,
    /// The rows on screen in the last frame.
    visible: Range<usize>,
    /// A "Refresh statuses" under way or just ended.
    refresh: Option<StatusRefresh>,
    /// The widest text of each measured column, kept with the pages.
    widest: HistoryWidest,
    /// An export is being written.
    exporting: bool,
    /// The last refresh or export note.
    note: Option<Note>,
    /// The last frame the view was drawn (opening it refreshes the open rows).
    last_frame: Option<u64>,
    /// The view was just opened: refresh its open rows once they are on screen.
    refresh_on_show: bool,
}

impl HistoryView {
    /// Forgets the rows, totals and notes of the profile left behind (another profile
    /// opened), keeping what the clerk typed into the filter.
    pub fn reset_keeping_filter(&mut self) {
        *self = HistoryView {
            filter: std::mem::take(&mut self.filter),
            from_text: std::mem::take(&mut self.from_text),
            to_text: std::mem::take(&mut self.to_text),
            zone: self.zone,
            ..Default::default()
        };
    }

    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.loading = false;
        self.exporting = false;
    }

    /// A page arrived: a first page replaces the rows (with the unfiltered count, if one was
    /// made), a further page of the filter shown is appended, and one of a filter since left
    /// is dropped. The staff's names, when read with it, are the Staff filter's.
    pub fn on_page(&mut self, page: HistoryPage) {
        if let Some(names) = page.staff_names {
            self.staff_names = names;
        }
        if page.first {
            self.set_first_page(page.filter, page.rows, page.exhausted);
            self.total = page.total;
        } else if self.loaded_filter.as_ref() == Some(&page.filter) {
            self.append_page(page.rows, page.exhausted);
        } else {
            self.loading = false;
        }
    }

    /// A page of `filter` could not be read: said instead of the rows.
    pub fn on_page_failed(&mut self, filter: HistoryFilter, error: &impl Explain, lang: Lang) {
        self.loading = false;
        self.loaded_filter = Some(filter);
        self.error = Some(error.problem(lang));
    }

    /// "More" was asked with no further page to fetch (or no rows shown): nothing is loading.
    pub fn on_no_more_page(&mut self) {
        self.loading = false;
    }

    /// A search was started: the totals of the last filter are no longer shown.
    pub fn on_search(&mut self) {
        self.totals = None;
    }

    /// A link picked in the list could not be read.
    pub fn on_link_failed(&mut self, error: &impl Explain, lang: Lang) {
        self.error = Some(error.problem(lang));
    }

    /// The totals of `filter` were counted (or could not be).
    pub fn on_totals(
        &mut self,
        filter: HistoryFilter,
        result: Result<LinkTotals, impl Explain>,
        lang: Lang,
    ) {
        self.totals = Some((filter, result.map_err(|e| e.problem(lang))));
    }

    /// The CSV export ended: how many rows went where (the dialog's choice, else the
    /// Downloads folder, said so), nothing when the dialog was closed, or why it failed.
    pub fn on_exported(
        &mut self,
        result: Result<Option<(usize, PathBuf, bool)>, impl Explain>,
        lang: Lang,
    ) {
        self.exporting = false;
        self.note = Note::of_export(result, lang, |rows, path| {
            UiText::ExportedTo.fill(lang, &[("n", &rows), ("path", &path.display())])
        });
    }

    /// Replaces the rows with a first page.
    fn set_first_page(&mut self, filter: HistoryFilter, rows: Vec<HistoryRow>, exhausted: bool) {
        self.loaded_filter = Some(filter);
        self.shop_rows = rows.iter().any(|r| !r.desk.is_empty());
        self.widest = HistoryWidest::default();
        self.widest.see(&rows);
        self.rows = rows;
        self.exhausted = exhausted;
        self.loading = false;
        self.error = None;
        self.total = None;
    }

    /// Appends a further page.
    fn append_page(&mut self, rows: Vec<HistoryRow>, exhausted: bool) {
        self.shop_rows |= rows.iter().any(|r| !r.desk.is_empty());
        self.widest.see(&rows);
        self.rows.extend(rows);
        self.exhausted = exhausted;
        self.loading = false;
    }

    /// The filter of the rows shown (`None`: none read yet, or forgotten to be read again).
    pub fn loaded_filter(&self) -> Option<&HistoryFilter> {
        self.loaded_filter.as_ref()
    }

    /// The filter as the user set it.
    pub fn filter(&self) -> &HistoryFilter {
        &self.filter
    }

    /// The last day of the filter as typed.
    pub fn to_text(&self) -> &str {
        &self.to_text
    }

    /// The zone whose local days the date filter means.
    pub fn zone(&self) -> Zone {
        self.zone
    }

    /// Whether a page is being fetched.
    pub fn is_loading(&self) -> bool {
        self.loading
    }

    /// Whether every page has been read.
    pub fn is_exhausted(&self) -> bool {
        self.exhausted
    }

    /// How many links the profile has (unfiltered lists only).
    pub fn total(&self) -> Option<usize> {
        self.total
    }

    /// The totals of the filtered set, and the filter they count (`None` while counting).
    pub fn totals(&self) -> Option<&(HistoryFilter, Result<LinkTotals, Problem>)> {
        self.totals.as_ref()
    }

    /// The staff members' names of the Staff filter.
    pub fn staff_names(&self) -> &[String] {
        &self.staff_names
    }

    /// The last error.
    pub fn error(&self) -> Option<&Problem> {
        self.error.as_ref()
    }

    /// Whether an export is being written.
    pub fn is_exporting(&self) -> bool {
        self.exporting
    }

    /// The last refresh or export note.
    pub fn note(&self) -> Option<&Note> {
        self.note.as_ref()
    }

    /// The "Refresh statuses" under way or just ended.
    pub fn refresh(&self) -> Option<&StatusRefresh> {
        self.refresh.as_ref()
    }

    /// Test set-up: a page is being fetched, as after a search.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_loading(&mut self) {
        self.loading = true;
    }

    /// Test set-up: an export is being written, as after Export CSV.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_exporting(&mut self) {
        self.exporting = true;
    }

    /// Forgets the rows (after a profile switch or a new link), so they are fetched again.
    pub fn invalidate(&mut self) {
        self.loaded_filter = None;
    }

    /// The open rows on screen, for "Refresh statuses".
    pub fn visible_open(&self) -> Vec<String> {
        let end = self.visible.end.min(self.rows.len());
        let start = self.visible.start.min(end);
        self.rows[start..end]
            .iter()
            .filter(|r| r.is_open() && !r.foreign)
            .map(|r| r.id.clone())
            .collect()
    }

    /// A refreshed link arrived at `now`; returns whether the refresh is over.
    pub fn on_status_refreshed(
        &mut self,
        id: &str,
        result: Result<Link, Problem>,
        now: DateTime<Utc>,
        lang: Lang,
    ) -> bool {
        let Some(refresh) = &mut self.refresh else {
            return false;
        };
        if !refresh.ids.iter().any(|i| i == id) {
            return false;
        }
        refresh.done += 1;
        match result {
            Ok(link) => {
                if let Some(row) = self.rows.iter_mut().find(|r| r.id == id) {
                    let mut fresh = HistoryRow::of(&link, row.known_at, lang, self.zone);
                    fresh.set_cancelled(row.cancelled, lang);
                    fresh.staff.clone_from(&row.staff);
                    fresh.desk.clone_from(&row.desk);
                    fresh.renewal.clone_from(&row.renewal);
                    if fresh != *row {
                        refresh.changed += 1;
                        *row = fresh;
                    }
                    row.known_at = now;
                }
            }
            Err(e) => {
                refresh.failed.get_or_insert(e);
            }
        }
        if refresh.done < refresh.ids.len() {
            return false;
        }
        self.note = Some(match &refresh.failed {
            None => Note::Done(format!(
                "{} {}",
                UiText::StatusesRefreshed.get(lang),
                refresh.changed
            )),
            Some(e) => Note::Failed(Problem {
                sentence: format!("{} {}", UiText::SomeNotRefreshed.get(lang), e.sentence),
                detail: e.detail.clone(),
            }),
        });
        true
    }

    /// Reads the typed days into the filter; returns what is wrong with them, if anything
    /// (the filter then keeps its last good days).
    fn read_days(&mut self) -> Option<UiText> {
        let parse = |t: &str| {
            let t = t.trim();
            if t.is_empty() {
                Ok(None)
            } else {
                crate::ui::words::parse_day(t)
                    .map(Some)
                    .ok_or(UiText::BadDay)
            }
        };
        match (parse(&self.from_text), parse(&self.to_text)) {
            (Ok(Some(a)), Ok(Some(b))) if b < a => Some(UiText::DaysBackwards),
            (Ok(from), Ok(to)) => {
                self.filter.from = from;
                self.filter.to = to;
                None
            }
            (Err(t), _) | (_, Err(t)) => Some(t),
        }
    }

    /// Whether the rows are the whole shop's (read from its PostgreSQL).
    pub fn from_shop(&self) -> bool {
        self.shop_rows
    }

    /// The rows loaded so far, newest first.
    pub fn rows(&self) -> &[HistoryRow] {
        &self.rows
    }

    /// The summary strip: how many links the filter finds and, per currency, what they
    /// asked and what was collected ("12 links · Asked ₺1.250,00 · Collected ₺800,00"),
    /// from the totals counted beside the pages.
    fn totals_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        let parts = match &self.totals {
            Some((filter, Ok(totals))) if Some(filter) == self.loaded_filter.as_ref() => {
                let mut parts = vec![UiText::SummaryLinks.fill(lang, &[("n", &totals.count)])];
                for t in &totals.by_currency {
                    let asked = t.amount.show(lang, |d| format_amount(d, t.currency, lang));
                    let paid = t.paid.show(lang, |d| format_amount(d, t.currency, lang));
                    parts.push(UiText::SummaryAsked.fill(lang, &[("amount", &asked)]));
                    parts.push(UiText::SummaryCollected.fill(lang, &[("amount", &paid)]));
                }
                parts
            }
            Some((filter, Err(e))) if Some(filter) == self.loaded_filter.as_ref() => {
                let problem = Problem {
                    sentence: format!("{} {}", UiText::TotalsFailed.get(lang), e.sentence),
                    detail: e.detail.clone(),
                };
                problem_ui(ui, cx, &problem);
                return;
            }
            _ => vec![UiText::Counting.get(lang).to_owned()],
        };
        table::summary_ui(ui, &parts);
    }

    /// "Refresh statuses" of these rows: one detail job per row, a second apart (the app's
    /// `Command::RefreshStatuses`, the same for the button and for opening the view).
    fn start_refresh(&mut self, cx: &mut ViewCtx<'_>, ids: Vec<String>) {
        self.note = None;
        self.refresh = Some(StatusRefresh {
            ids: ids.clone(),
            ..StatusRefresh::default()
        });
        cx.emit(Command::History(HistoryCommand::RefreshStatuses { ids }));
    }

    /// Whether a refresh is under way.
    fn refreshing(&self) -> bool {
        self.refresh.as_ref().is_some_and(|r| r.done < r.ids.len())
    }

    /// The header's actions: "Refresh statuses" and "Export CSV".
    fn actions_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let open = self.visible_open();
        let refreshing = self.refreshing();
        // Right to left: the export outermost, the refresh beside it.
        let export = widgets::Action::secondary(UiText::ExportCsv.get(lang))
            .icon(theme::icon::DOWNLOAD)
            .enabled(!self.exporting && self.loaded_filter.is_some())
            .show_ui(ui)
            .on_hover_text(UiText::ExportCsvHelp.get(lang));
        if export.clicked()
            && let Some(filter) = self.loaded_filter.clone()
        {
            self.note = None;
            self.exporting = true;
            cx.emit(Command::History(HistoryCommand::Export { filter }));
        }
        let hint = if open.is_empty() {
            UiText::NothingToRefresh
        } else {
            UiText::RefreshStatusesHelp
        };
        let button = widgets::Action::secondary(UiText::RefreshStatuses.get(lang))
            .icon(theme::icon::REFRESH)
            .enabled(!open.is_empty() && !refreshing)
            .show_ui(ui)
            .on_hover_text(hint.get(lang))
            .on_disabled_hover_text(hint.get(lang));
        if button.clicked() {
            self.start_refresh(cx, open);
        }
    }

    /// What the refresh and the export are doing, and their last note.
    fn progress_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        if let Some(r) = &self.refresh
            && r.done < r.ids.len()
        {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!(
                    "{} {}/{}",
                    UiText::RefreshingStatuses.get(lang),
                    r.done,
                    r.ids.len()
                ));
            });
        }
        if self.exporting {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(UiText::Exporting.get(lang));
            });
        }
        if let Some(note) = &self.note {
            note_ui(ui, cx, note);
        }
    }

    /// The Staff filter, with staff on.
    fn staff_filter_ui(&mut self, ui: &mut Ui, lang: Lang) {
        if self.staff_names.is_empty() {
            return;
        }
        ui.vertical(|ui| {
            let l = ui.label(UiText::StaffFilter.get(lang));
            let selected = self
                .filter
                .staff
                .clone()
                .unwrap_or_else(|| UiText::AllStaff.get(lang).to_owned());
            let combo = egui::ComboBox::from_id_salt("history-staff")
                .selected_text(selected)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.filter.staff, None, UiText::AllStaff.get(lang));
                    for name in &self.staff_names {
                        ui.selectable_value(&mut self.filter.staff, Some(name.clone()), name);
                    }
                });
            let _ = combo.response.labelled_by(l.id);
        });
    }

    /// The filter in one row, each label above its field: search, status, staff, the days.
    fn filter_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        let today = self.zone.date_of(cx.now);
        ui.horizontal_wrapped(|ui| {
            ui.vertical(|ui| {
                let l = ui.label(UiText::Search.get(lang));
                let width = theme::field_width_ui(ui, SEARCH_CHARS);
                ui.add(egui::TextEdit::singleline(&mut self.filter.text).desired_width(width))
                    .labelled_by(l.id);
            });
            ui.vertical(|ui| {
                let s = ui.label(UiText::StatusFilter.get(lang));
                let selected = self.filter.status.as_ref().map_or_else(
                    || UiText::AllStatuses.get(lang).to_owned(),
                    |st| status_text(st, false, lang),
                );
                let combo = egui::ComboBox::from_id_salt("history-status")
                    .selected_text(selected)
                    .show_ui(ui, |ui| {
                        ui.selectable_value(
                            &mut self.filter.status,
                            None,
                            UiText::AllStatuses.get(lang),
                        );
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
            self.staff_filter_ui(ui, lang);
            calendar::date_field_ui(
                ui,
                UiText::HistoryFrom.get(lang),
                &mut self.from_text,
                today,
                lang,
            );
            calendar::date_field_ui(
                ui,
                UiText::HistoryTo.get(lang),
                &mut self.to_text,
                today,
                lang,
            );
        });
    }

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        if widgets::newly_shown(ui, &mut self.last_frame) {
            self.refresh_on_show = true;
        }
        widgets::page_header_ui(
            ui,
            UiText::NavHistory.get(lang),
            if self.from_shop() {
                UiText::HistoryHelpShop.get(lang)
            } else {
                UiText::HistoryHelp.get(lang)
            },
            |ui| self.actions_ui(ui, cx),
        );
        self.filter_ui(ui, cx);
        if let Some(problem) = self.read_days() {
            widgets::error_text_ui(ui, &cx.palette, problem.get(lang));
        }
        if self.loaded_filter.as_ref() != Some(&self.filter) && !self.loading {
            self.loading = true;
            cx.emit(Command::History(HistoryCommand::Search {
                filter: self.filter.clone(),
            }));
        }
        if let Some(e) = &self.error {
            problem_ui(ui, cx, e);
        }
        self.progress_ui(ui, cx);
        ui.add_space(theme::SPACE_XS);
        self.totals_ui(ui, cx);
        let count = self.rows.len();
        if count == 0 {
            self.visible = 0..0;
            if self.loading {
                widgets::hint_ui(ui, &cx.palette, UiText::Loading.get(lang));
            } else if self.filter == HistoryFilter::default() {
                widgets::empty_state_ui(
                    ui,
                    theme::icon::HISTORY,
                    UiText::NoLinks.get(lang),
                    UiText::NoLinksHelp.get(lang),
                );
            } else {
                widgets::empty_state_ui(
                    ui,
                    theme::icon::SEARCH,
                    UiText::NoMatchingLinks.get(lang),
                    UiText::NoMatchingHelp.get(lang),
                );
            }
            return;
        }
        let shown = Optional {
            staff: !self.staff_names.is_empty(),
            desk: self.shop_rows,
        };
        let mut menu_pick = None;
        let (mut table, cols) = self.table(ui, lang, shown);
        table.header_ui(ui);
        let rows = &self.rows;
        let (picked, visible) = table.rows_ui(
            ui,
            "history-rows",
            (ROW_HEIGHT, count),
            |row, i| row_ui(row, cx, &rows[i], cols),
            |response, i| row_menu_ui(response, cx, &rows[i], &mut menu_pick),
        );
        let want_more = visible.end + PAGE / 2 >= count;
        self.visible = visible;
        let picked = picked
            .map(|i| HistoryCommand::Show {
                id: self.rows[i].id.clone(),
            })
            .or(menu_pick);
        // Opening the view asks about its open rows once they are on screen: the statuses
        // shown are then as fresh as the board's.
        if self.refresh_on_show
            && !self.loading
            && self.loaded_filter.as_ref() == Some(&self.filter)
        {
            self.refresh_on_show = false;
            let open = self.visible_open();
            if !open.is_empty() && !self.refreshing() {
                self.start_refresh(cx, open);
            }
        }
        if want_more && !self.exhausted && !self.loading {
            self.loading = true;
            cx.emit(Command::History(HistoryCommand::More));
        }
        if let Some(command) = picked {
            cx.emit(Command::History(command));
        }
    }
}

/// A row's menu (a right click, or the menu key on a focused row): open the link, and send an
/// open one to its payer.
fn row_menu_ui(
    response: &egui::Response,
    cx: &ViewCtx<'_>,
    row: &HistoryRow,
    picked: &mut Option<HistoryCommand>,
) {
    let lang = cx.lang;
    response.context_menu(|ui| {
        if ui.button(UiText::Open.get(lang)).clicked() {
            *picked = Some(HistoryCommand::Show { id: row.id.clone() });
            ui.close();
        }
        if row.is_open()
            && !row.foreign
            && ui
                .button(format!("{}…", UiText::SendToCustomer.get(lang)))
                .clicked()
        {
            *picked = Some(HistoryCommand::ShowToSend { id: row.id.clone() });
            ui.close();
        }
    });
}

/// The search field's width, in characters.
const SEARCH_CHARS: usize = 28;

/// The least width of the description column.
const DESCRIPTION_COLUMN: f32 = 160.0;

/// The columns shown only sometimes.
#[derive(Debug, Clone, Copy)]
struct Optional {
    /// Staff, with staff on.
    staff: bool,
    /// Desk, when the rows come from the shop.
    desk: bool,
}

/// Which column of the table holds what (Staff and Desk only when shown).
#[derive(Debug, Clone, Copy)]
struct HistoryColumns {
    staff: Option<usize>,
    desk: Option<usize>,
}

/// The widest text of each measured column of the rows loaded, kept with the pages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct HistoryWidest {
    amount: Widest,
    created: Widest,
    staff: Widest,
    desk: Widest,
}

impl HistoryWidest {
    fn see(&mut self, rows: &[HistoryRow]) {
        for r in rows {
            self.amount.see(&r.amount);
            self.created.see(&r.created);
            self.staff.see(&r.staff);
            self.desk.see(&r.desk);
        }
    }
}

impl HistoryView {
    /// The table's columns: the description (the order number under it) takes the room
    /// left; the others are as wide as the widest of the rows loaded.
    fn table(&self, ui: &Ui, lang: Lang, shown: Optional) -> (Table, HistoryColumns) {
        let w = &self.widest;
        let age = format!(
            "{} {}",
            span_text(crate::board::Span::HoursMinutes(23, 59), lang),
            UiText::Ago.get(lang)
        );
        let statuses = crate::ui::board::status_samples(lang);
        let mut table = Table::new()
            .fill(ui, UiText::Description.get(lang), DESCRIPTION_COLUMN)
            .column(ui, UiText::Amount.get(lang), Align::Right, [w.amount.get()])
            .pill_column(
                ui,
                UiText::Status.get(lang),
                statuses.iter().map(String::as_str),
            )
            .column(
                ui,
                UiText::Created.get(lang),
                Align::Left,
                [w.created.get()],
            )
            .column(ui, UiText::Updated.get(lang), Align::Left, [age.as_str()]);
        let mut cols = HistoryColumns {
            staff: None,
            desk: None,
        };
        if shown.staff {
            cols.staff = Some(table.len());
            table = table.column(
                ui,
                UiText::StaffColumn.get(lang),
                Align::Left,
                [w.staff.get()],
            );
        }
        if shown.desk {
            cols.desk = Some(table.len());
            table = table.column(
                ui,
                UiText::DeskColumn.get(lang),
                Align::Left,
                [w.desk.get()],
            );
        }
        (table, cols)
    }
}

/// A row's status as last known, with its age: "Paid · 3 min ago".
pub fn known_status_text(row: &HistoryRow, now: DateTime<Utc>, lang: Lang) -> String {
    format!(
        "{} · {}",
        row.status_text,
        ago_text(row.known_at, now, lang)
    )
}

/// Paints one row; returns its accessible label (the whole line).
fn row_ui(
    painted: &mut table::Row<'_>,
    cx: &ViewCtx<'_>,
    row: &HistoryRow,
    cols: HistoryColumns,
) -> String {
    let lang = cx.lang;
    let age = ago_text(row.known_at, cx.now, lang);
    // The order number under the description, its renewal and an unconfirmed payment after
    // it (in the warning colour).
    let mut second = row.order.clone();
    if !row.renewal.is_empty() {
        second = format!("{second} · {}", row.renewal);
    }
    let mut second_color = cx.palette.muted;
    if row.unconfirmed {
        second = format!("{second} · {}", UiText::BoardUnconfirmed.get(lang));
        second_color = cx.palette.warn;
    }
    painted.name(0, &row.description, &second, second_color);
    let strong = painted.strong_color();
    let body = painted.body_font();
    painted.styled(1, &row.amount, (body.clone(), strong));
    let badge = cx.palette.pill(StatusMeaning::of(
        &row.status,
        row.cancelled,
        row.partly_paid,
    ));
    painted.pill(2, &row.status_text, badge);
    painted.text(3, &row.created);
    painted.styled(4, &age, (body, cx.palette.muted));
    if let Some(i) = cols.staff {
        painted.text(i, &row.staff);
    }
    if let Some(i) = cols.desk {
        painted.text(i, &row.desk);
    }
    let mut label = format!(
        "{} {} {}",
        row.order,
        row.amount,
        known_status_text(row, cx.now, lang)
    );
    // Then who made it, the description (painted first on the row, read after what
    // identifies the link and its state), its renewal, and last a payment not confirmed.
    for part in [&row.staff, &row.desk, &row.description, &row.renewal] {
        if !part.is_empty() {
            label = format!("{label} · {part}");
        }
    }
    if row.unconfirmed {
        label = format!("{label} · {}", UiText::BoardUnconfirmed.get(lang));
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, desk: &str) -> HistoryRow {
        let link = serde_json::from_value::<crate::api::wire::PaymentLink>(serde_json::json!({
            "id": id, "orderNumber": format!("O-{id}"), "amount": 10, "currency": "TRY",
            "status": "PENDING",
        }))
        .map(Link::from)
        .unwrap();
        let mut row = HistoryRow::of(&link, Utc::now(), Lang::En, Zone::hours(3));
        desk.clone_into(&mut row.desk);
        row
    }

    #[test]
    fn whether_the_rows_are_the_shops_follows_the_pages_as_they_come() {
        let mut view = HistoryView::default();
        view.set_first_page(HistoryFilter::default(), vec![row("a", "")], false);
        assert!(!view.from_shop(), "this desk's own rows");
        view.append_page(vec![row("b", "Kasa 2")], false);
        assert!(view.from_shop(), "a later page brought the shop's rows");
        assert_eq!(view.rows().len(), 2);
        view.set_first_page(HistoryFilter::default(), vec![row("c", "")], true);
        assert!(!view.from_shop(), "a new first page starts over");
    }
}
