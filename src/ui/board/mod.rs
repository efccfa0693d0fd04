//! The open-links board: every link of today and every link still waiting for payment from
//! the last week, in two groups, *Waiting* and *Done today*. A row names the sale as staff
//! know it, by its description ("Table 12"), the order number smaller under it; then the
//! amount, the age, the expiry countdown (nothing for a link that never expires), the status
//! pill and, for a partly paid link, "₺200 paid · ₺250 left" over a bar. As a view of its own,
//! and as a narrow panel beside New link when the window is wide.
//!
//! The rows come from the store (the app reloads them after a create and on opening the view)
//! and change in place as the background refresh answers (`crate::board` decides when to ask);
//! this file only draws. Ages and countdowns are computed from `now` each frame, and the view
//! notes when the soonest figure on screen will change ([`BoardView::next_change`]) so the app
//! repaints then and not before.
//!
//! Each row is one clickable element whose accessible label is the whole line (description,
//! order, amount, status); its cells are painted, not separate widgets, so screen readers read a row once.
//! Clicking a row opens the link's result view (QR, customer display).

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use egui::text::{LayoutJob, TextWrapping};
use egui::{Color32, FontId, Rect, RichText, Sense, TextFormat, TextStyle, Ui, pos2, vec2};
use rust_decimal::prelude::ToPrimitive;

use crate::board;
use crate::clock::Zone;
use crate::domain::Link;
use crate::domain::share::{MailState, SendChannel, SendMark};
use crate::domain::{LinkStatus, format_amount};
use crate::lang::Lang;
use crate::store::StoredLink;
use crate::ui::ViewCtx;
use crate::ui::command::BoardCommand;
use crate::ui::link_result::status_with_payment;
use crate::ui::problem::Explain;
use crate::ui::table::{self, Align, Table};
use crate::ui::text::UiText;
use crate::ui::theme::{self, Palette, StatusMeaning, icon};
use crate::ui::widgets;
use crate::ui::words::{age_text, ago_text, clock_time, span_text};
use crate::ui::{Command, View};

mod notice;

pub use notice::notice_for;

/// Height of a row of the view, in points: the description over the order number.
pub const ROW_HEIGHT: f32 = 44.0;
/// Height of a row of the narrow panel: three lines.
pub const PANEL_ROW_HEIGHT: f32 = 66.0;
/// From this window width on, New link has the narrow board beside it.
pub const WIDE: f32 = 1200.0;
/// Width of the narrow panel.
pub const PANEL_WIDTH: f32 = 300.0;
/// The longest paid / remaining bar of the view.
const BAR_WIDTH: f32 = 240.0;

/// One link on the board.
#[derive(Debug, Clone, PartialEq)]
pub struct BoardRow {
    /// The server's last word on it.
    pub link: Link,
    /// When this install first stored it.
    pub created_at: DateTime<Utc>,
    /// Whether paydesk cancelled it (the server then says EXPIRED; the board says Cancelled).
    pub cancelled: bool,
    /// The staff member who began it (`None`: unknown).
    pub staff: Option<String>,
    /// The payment another desk claims, not yet confirmed by the server (`link` holds the
    /// last confirmed status).
    pub unconfirmed: Option<LinkStatus>,
    /// The last time it was sent to its payer (by any desk of a shop).
    pub sent: Option<SendMark>,
    /// Its e-mail, while this desk's queue holds it unsent.
    pub mail: Option<MailState>,
    /// Made at another desk of the shop: sent and reminded from there.
    pub foreign: bool,
    /// From when its "Remind" lights up: last sent by WhatsApp, not reminded, reminders on
    /// (a link without an expiry: at once; `None`: never).
    pub remind_from: Option<DateTime<Utc>>,
}

/// What the board shows beside its rows: the sends, the reminders and when one is due.
#[derive(Debug, Default)]
pub struct BoardMarks {
    /// The last send of each link, by id.
    pub sends: HashMap<String, SendMark>,
    /// The links reminded (by any desk of a shop).
    pub reminded: std::collections::HashSet<String>,
    /// When a reminder is due.
    pub sending: crate::store::SendingSettings,
    /// This desk's e-mails still in its queue, by link id.
    pub mail: HashMap<String, MailState>,
    /// The rows other desks made: sent and reminded from their own desks.
    pub foreign: std::collections::HashSet<String>,
}

impl BoardMarks {
    /// From when link `link` (last sent `sent`) may be reminded by hand on WhatsApp.
    fn remind_from(&self, link: &Link, sent: Option<&SendMark>) -> Option<DateTime<Utc>> {
        let by_whatsapp = sent.is_some_and(|m| m.channel == SendChannel::WhatsApp);
        if !by_whatsapp || self.reminded.contains(&link.id) || self.foreign.contains(&link.id) {
            return None;
        }
        self.sending.remind_before()?;
        match link.expiry {
            None => Some(DateTime::<Utc>::MIN_UTC),
            // Sent at or after its reminder time: the payer has just had it.
            expiry => self
                .sending
                .due_at(expiry)
                .filter(|due| sent.is_some_and(|m| m.at < *due)),
        }
    }
}

impl BoardRow {
    /// The status as the board shows it: a `PENDING` link past its expiry reads as expired
    /// (as the server will say; the board no longer asks).
    pub fn status(&self, now: DateTime<Utc>) -> LinkStatus {
        let status = self.link.status.clone();
        match self.link.expiry {
            Some(e) if status == LinkStatus::Pending && e <= now => LinkStatus::Expired,
            _ => status,
        }
    }

    /// When the link was made (the server's time, else when it was stored).
    fn made_at(&self) -> DateTime<Utc> {
        self.link.created_or(self.created_at)
    }

    /// Paid so far and the total, when part of the amount is paid and the link is open.
    fn part_paid(&self) -> Option<(rust_decimal::Decimal, rust_decimal::Decimal)> {
        let paid = self.link.paid?;
        let total = self.link.amount?;
        let open = !self.link.status.is_final();
        (open && paid > rust_decimal::Decimal::ZERO && paid < total).then_some((paid, total))
    }

    fn amount_text(&self, lang: Lang) -> String {
        self.link
            .amount
            .map(|a| format_amount(a, self.link.currency, lang))
            .unwrap_or_default()
    }

    fn order(&self) -> &str {
        self.link.order_or_id()
    }

    /// Whether its "Remind" is lit at `now`: its time has come and the link is still open with
    /// nothing paid.
    pub fn remind_lit(&self, now: DateTime<Utc>) -> bool {
        self.remind_from.is_some_and(|t| t <= now)
            && self.status(now) == LinkStatus::Pending
            && !self.cancelled
            && self.link.paid_so_far().is_zero()
    }

    /// The description staff gave the sale ("Table 12"), trimmed; empty when none.
    fn description(&self) -> &str {
        self.link.description_text().trim()
    }

    /// The order and, when known, who made it: "PD-20261123-A1B20007 · Ayşe".
    fn order_and_staff(&self) -> String {
        match &self.staff {
            Some(name) => format!("{} · {name}", self.order()),
            None => self.order().to_owned(),
        }
    }
}

/// The state of the board (the view and the narrow panel share it).
#[derive(Debug, Default)]
pub struct BoardView {
    /// The rows, newest first.
    rows: Vec<BoardRow>,
    /// The profile the rows belong to.
    profile: Option<String>,
    /// When the rows were read from the store.
    loaded_at: Option<DateTime<Utc>>,
    /// The local day they were read on ("today" moves at midnight).
    day: Option<NaiveDate>,
    /// A reload is out.
    loading: bool,
    /// The rows must be read again (a create, the view opened).
    stale: bool,
    /// The last reload's error.
    error: Option<crate::ui::problem::Problem>,
    /// When the soonest age or countdown drawn this frame changes (the app repaints then).
    next_change: Option<DateTime<Utc>>,
    /// The zone whose local day is the board's "today" (the machine's unless a test sets one).
    zone: Zone,
    /// Only the links sent to their payers are listed ("Sent to customers").
    only_sent: bool,
    /// What the rows say as a whole, kept with them (worked out when rows arrive or change,
    /// never by a scan in a frame).
    facts: BoardFacts,
}

/// What the board's rows say as a whole: the widest amount (the amount column's width),
/// whether a row can expire or has a payment's progress to show (else those columns are
/// left out), how many were sent, and the summary strip's money per currency.
#[derive(Debug, Default)]
struct BoardFacts {
    widest_amount: Option<(rust_decimal::Decimal, crate::domain::Currency)>,
    expiring: bool,
    progress: bool,
    sent: usize,
    summary: Vec<CurrencySummary>,
}

/// The money of one currency on the board: what open links still wait for, and what was
/// paid on its links.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurrencySummary {
    /// The currency.
    pub currency: crate::domain::Currency,
    /// Left to pay on the open links.
    pub waiting: rust_decimal::Decimal,
    /// Paid on the board's links.
    pub collected: rust_decimal::Decimal,
}

impl BoardFacts {
    fn of(rows: &[BoardRow]) -> Self {
        let mut facts = Self::default();
        let mut widest_len = 0;
        for r in rows {
            let link = &r.link;
            if let Some(a) = link.amount {
                let len = format_amount(a, link.currency, Lang::En).chars().count();
                if len > widest_len {
                    widest_len = len;
                    facts.widest_amount = Some((a, link.currency));
                }
            }
            let open = !link.status.is_final() && !r.cancelled;
            facts.expiring |= open && link.expiry.is_some();
            facts.progress |=
                r.sent.is_some() || r.unconfirmed.is_some() || r.part_paid().is_some();
            facts.sent += usize::from(r.sent.is_some());
            let at = if let Some(i) = facts
                .summary
                .iter()
                .position(|s| s.currency == link.currency)
            {
                i
            } else {
                facts.summary.push(CurrencySummary {
                    currency: link.currency,
                    waiting: rust_decimal::Decimal::ZERO,
                    collected: rust_decimal::Decimal::ZERO,
                });
                facts.summary.len() - 1
            };
            let paid = link.paid_so_far();
            let s = &mut facts.summary[at];
            s.collected += paid;
            if open {
                s.waiting +=
                    (link.amount.unwrap_or_default() - paid).max(rust_decimal::Decimal::ZERO);
            }
        }
        facts.summary.sort_by_key(|s| {
            crate::domain::Currency::ALL
                .iter()
                .position(|c| *c == s.currency)
        });
        facts
    }
}

/// How long rows read from the store are trusted before a frame that runs anyway reads them
/// again (links made meanwhile by the command line then appear).
pub const RELOAD_AFTER: chrono::TimeDelta = chrono::TimeDelta::minutes(1);

impl BoardView {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.loading = false;
    }

    /// The rows, newest first.
    pub fn rows(&self) -> &[BoardRow] {
        &self.rows
    }

    /// Whether a reload is out.
    pub fn is_loading(&self) -> bool {
        self.loading
    }

    /// Whether the rows are marked to be read again.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// The last reload's error.
    pub fn error(&self) -> Option<&crate::ui::problem::Problem> {
        self.error.as_ref()
    }

    /// When the rows were last read (or failed to be).
    pub fn loaded_at(&self) -> Option<DateTime<Utc>> {
        self.loaded_at
    }

    /// When the soonest age or countdown drawn this frame changes (the app repaints then).
    pub fn next_change(&self) -> Option<DateTime<Utc>> {
        self.next_change
    }

    /// A frame begins: the rows drawn in it say again when their figures next change.
    pub fn on_frame_start(&mut self) {
        self.next_change = None;
    }

    /// Something may have changed the links (a link made, the view opened, the shop's news or
    /// reach): the rows are read again after this frame.
    pub fn read_again(&mut self) {
        self.stale = true;
    }

    /// The app sent the reload [`BoardView::needs_reload`] asked for.
    pub fn on_reload_sent(&mut self) {
        self.stale = false;
        self.loading = true;
    }

    /// The reload's rows are another profile's (the profile changed meanwhile): dropped.
    pub fn on_rows_of_another_profile(&mut self) {
        self.loading = false;
    }

    /// The rows could not be read at `now`: said, and read again after [`RELOAD_AFTER`].
    pub fn on_rows_failed(&mut self, error: &impl Explain, now: DateTime<Utc>, lang: Lang) {
        self.loading = false;
        self.loaded_at = Some(now);
        self.error = Some(error.problem(lang));
    }

    /// Test set-up: whether the rows are marked to be read again.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_stale(&mut self, stale: bool) {
        self.stale = stale;
    }

    /// Test set-up: a reload is out.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_loading(&mut self) {
        self.loading = true;
    }

    /// Takes the rows read from the store. A link of an earlier day whose expiry has passed
    /// is no longer waiting for anything and is left out.
    pub fn on_rows(
        &mut self,
        profile: &str,
        links: Vec<StoredLink>,
        mut marks: BoardMarks,
        now: DateTime<Utc>,
    ) {
        let today = board::local_day_start(now, self.zone);
        self.rows = links
            .into_iter()
            .filter(|s| s.created_at >= today || s.link.expiry.is_none_or(|e| e > now))
            .map(|s| {
                let sent = marks.sends.remove(&s.link.id);
                BoardRow {
                    foreign: marks.foreign.contains(&s.link.id),
                    remind_from: marks.remind_from(&s.link, sent.as_ref()),
                    mail: marks.mail.get(&s.link.id).copied(),
                    sent,
                    link: s.link,
                    created_at: s.created_at,
                    cancelled: s.cancelled_at.is_some(),
                    staff: s.staff,
                    unconfirmed: s.unconfirmed,
                }
            })
            .collect();
        self.profile = Some(profile.to_owned());
        self.loaded_at = Some(now);
        self.day = Some(self.zone.date_of(now));
        self.loading = false;
        self.error = None;
        self.facts = BoardFacts::of(&self.rows);
    }

    /// Whether the rows should be read again: marked stale, another profile, another day, or
    /// read more than [`RELOAD_AFTER`] ago.
    pub fn needs_reload(&self, profile: &str, now: DateTime<Utc>) -> bool {
        if self.loading {
            return false;
        }
        self.stale
            || self.profile.as_deref() != Some(profile)
            || self.day != Some(self.zone.date_of(now))
            || self.loaded_at.is_none_or(|at| now - at >= RELOAD_AFTER)
    }

    /// An answer about a link, into its row; returns whether its status or paid amount
    /// changed.
    pub fn on_link(&mut self, link: &Link) -> bool {
        let Some(row) = self.rows.iter_mut().find(|r| r.link.id == link.id) else {
            return false;
        };
        let changed = row.link.status != link.status || row.link.paid != link.paid;
        row.link = link.clone();
        if changed {
            self.facts = BoardFacts::of(&self.rows);
        }
        changed
    }

    /// A board with no rows yet, to be read after the first frame.
    pub fn new() -> Self {
        Self {
            stale: true,
            ..Self::default()
        }
    }

    /// Forgets the rows (another profile).
    pub fn clear(&mut self) {
        *self = Self::new();
    }

    fn note_change(&mut self, at: Option<DateTime<Utc>>) {
        if let Some(at) = at {
            self.next_change = Some(self.next_change.map_or(at, |n| n.min(at)));
        }
    }

    /// How many rows are open (waiting for payment): on a shop's board, every desk's.
    pub fn open_count(&self, now: DateTime<Utc>) -> usize {
        self.counts(now).0
    }

    /// How many rows are open (waiting for payment) and how many are paid.
    fn counts(&self, now: DateTime<Utc>) -> (usize, usize) {
        let open = self
            .rows
            .iter()
            .filter(|r| !r.status(now).is_final())
            .count();
        let paid = self
            .rows
            .iter()
            .filter(|r| r.status(now) == LinkStatus::Completed)
            .count();
        (open, paid)
    }

    /// The rows in the order the board lists them: a group heading (when `headings`), then
    /// its rows; *Waiting* (open links) first, then *Done today* (paid, expired, cancelled).
    /// A group with no rows has no heading.
    fn entries(&self, now: DateTime<Utc>, headings: bool) -> Vec<Entry> {
        let (waiting, done): (Vec<usize>, Vec<usize>) = (0..self.rows.len())
            .filter(|i| !self.only_sent || self.rows[*i].sent.is_some())
            .partition(|i| !self.rows[*i].status(now).is_final());
        let mut entries = Vec::with_capacity(self.rows.len() + 2);
        for (group, rows) in [
            (UiText::BoardWaiting, waiting),
            (UiText::BoardDoneToday, done),
        ] {
            if rows.is_empty() {
                continue;
            }
            if headings {
                entries.push(Entry::Heading(group, rows.len()));
            }
            entries.extend(rows.into_iter().map(Entry::Row));
        }
        entries
    }

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let sent = self.facts.sent;
        let only_sent = &mut self.only_sent;
        widgets::page_header_ui(
            ui,
            UiText::NavBoard.get(lang),
            UiText::BoardExplained.get(lang),
            |ui| {
                // The filter is there once a link was sent (or while it is on).
                if sent > 0 || *only_sent {
                    let words = format!("{} ({sent})", UiText::BoardSentFilter.get(lang));
                    widgets::toggle_button_ui(ui, only_sent, &words);
                }
            },
        );
        if let Some(e) = &self.error {
            crate::ui::problem::problem_ui(ui, cx, e);
        }
        if self.rows.is_empty() {
            self.empty_ui(ui, cx);
            return;
        }
        summary_ui(ui, cx, &self.facts.summary);
        let (mut table, cols) = self.table(ui, cx);
        table.header_ui(ui);
        let picked = self.rows_ui(
            ui,
            cx,
            ("board-rows", true),
            (ROW_HEIGHT, &table),
            &mut |row, cx, link| row_ui(row, cx, link, cols),
        );
        if let Some(command) = picked {
            cx.emit(Command::Board(command));
        }
    }

    /// The view's columns: the description takes the room left; the amount, the age, the
    /// status and (when a row has something to say there) the expiry and the payment's
    /// progress are as wide as their content. A column no row fills is left out.
    fn table(&self, ui: &Ui, cx: &ViewCtx<'_>) -> (Table, BoardColumns) {
        let lang = cx.lang;
        let amount = self
            .facts
            .widest_amount
            .map(|(a, c)| format_amount(a, c, lang))
            .unwrap_or_default();
        // The widest age and countdown a row can show: "23 h 59 min".
        let span = span_text(crate::board::Span::HoursMinutes(23, 59), lang);
        let statuses = status_samples(lang);
        let mut table = Table::new()
            .fill(ui, UiText::Description.get(lang), FIRST_COLUMN)
            .column(
                ui,
                UiText::Amount.get(lang),
                Align::Right,
                [amount.as_str()],
            )
            .column(ui, UiText::BoardAge.get(lang), Align::Left, [span.as_str()]);
        let mut cols = BoardColumns {
            expires: None,
            status: 3,
            progress: None,
        };
        if self.facts.expiring {
            table = table.column(
                ui,
                UiText::ExpiresIn.get(lang),
                Align::Left,
                [span.as_str()],
            );
            cols.expires = Some(3);
            cols.status = 4;
        }
        table = table.pill_column(
            ui,
            UiText::Status.get(lang),
            statuses.iter().map(String::as_str),
        );
        if self.facts.progress {
            cols.progress = Some(table.len());
            table = table.fixed(ui, UiText::BoardProgress.get(lang), Align::Left, BAR_WIDTH);
        }
        (table, cols)
    }
    /// The board with no rows: what will be here, and the way to make the first link.
    fn empty_ui(&self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        if self.loading {
            widgets::hint_ui(ui, &cx.palette, UiText::Loading.get(lang));
            return;
        }
        widgets::empty_state_ui(
            ui,
            icon::OPEN_LINKS,
            UiText::BoardEmptyTitle.get(lang),
            UiText::BoardEmptyHelp.get(lang),
        );
        ui.vertical_centered(|ui| {
            let new_link = widgets::Action::secondary(UiText::NavNewLink.get(lang))
                .icon(icon::NEW_LINK)
                .show_ui(ui);
            if new_link.clicked() {
                cx.emit(Command::Navigate {
                    view: View::NewLink,
                });
            }
        });
    }

    /// Draws the narrow panel beside New link.
    pub fn panel_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        ui.add_space(theme::SPACE_S);
        ui.horizontal(|ui| {
            ui.label(RichText::new(UiText::NavBoard.get(lang)).strong());
            let (open, _) = self.counts(cx.now);
            ui.label(RichText::new(format!("({open})")).color(cx.palette.muted));
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if widgets::Action::quiet(UiText::ShowAll.get(lang))
                    .show_ui(ui)
                    .clicked()
                {
                    cx.emit(Command::Navigate { view: View::Board });
                }
            });
        });
        ui.separator();
        if self.rows.is_empty() {
            let t = if self.loading {
                UiText::Loading
            } else {
                UiText::BoardEmpty
            };
            widgets::hint_ui(ui, &cx.palette, t.get(lang));
            return;
        }
        // The narrow panel: the same order, no headings (a heading as tall as a row would
        // take a row's room; the pills say which is which).
        let table = Table::new();
        let picked = self.rows_ui(
            ui,
            cx,
            ("board-panel-rows", false),
            (PANEL_ROW_HEIGHT, &table),
            &mut panel_row_ui,
        );
        if let Some(command) = picked {
            cx.emit(Command::Board(command));
        }
    }

    /// The groups and their rows, `height` points each (a heading too), in `table`'s
    /// columns, drawn by `draw`; only the visible ones are laid out. A click opens the row's
    /// result view (returned); what each drawn row says about when it next changes (an age,
    /// a countdown) decides the next repaint.
    fn rows_ui(
        &mut self,
        ui: &mut Ui,
        cx: &ViewCtx<'_>,
        (id_salt, headings): (&str, bool),
        (height, table): (f32, &Table),
        draw: &mut RowDrawer<'_>,
    ) -> Option<BoardCommand> {
        let mut picked = None;
        let entries = self.entries(cx.now, headings);
        let width = table.content_width();
        egui::ScrollArea::vertical()
            .id_salt(id_salt)
            .auto_shrink([false, false])
            .show_rows(ui, height, entries.len(), |ui, range| {
                let mut stripe = 0;
                for entry in &entries[range] {
                    match *entry {
                        Entry::Heading(group, count) => {
                            stripe = 0;
                            heading_ui(ui, cx, group, count, height);
                        }
                        Entry::Row(i) => {
                            let row = &self.rows[i];
                            let (rect, response) = ui.allocate_exact_size(
                                vec2(ui.available_width().max(width), height),
                                Sense::click(),
                            );
                            stripe += 1;
                            let frame_at = ui.painter().add(egui::Shape::Noop);
                            let label = row_label(row, cx.now, cx.zone, cx.lang);
                            let mut painted = table::Row::new(ui, table, rect);
                            let changes = draw(&mut painted, cx, row);
                            table::row_frame(
                                ui,
                                (rect, frame_at),
                                &response,
                                &label,
                                stripe % 2 == 0,
                            );
                            painted.finish(&response);
                            if response.clicked() {
                                picked = Some(BoardCommand::Show {
                                    id: row.link.id.clone(),
                                });
                            }
                            row_menu_ui(&response, cx, row, &mut picked);
                            let lights_at = row.remind_from.filter(|at| *at > cx.now);
                            if headings
                                && row.remind_lit(cx.now)
                                && remind_button_ui(ui, cx, row, rect)
                            {
                                picked = Some(BoardCommand::Remind {
                                    id: row.link.id.clone(),
                                });
                            }
                            self.note_change(lights_at);
                            for c in changes {
                                self.note_change(c);
                            }
                        }
                    }
                }
            });
        picked
    }
}

/// The lit "Remind" of a row of the view, at its right end: a button of its own (its
/// accessible name "Remind", the order number after it); whether it was clicked.
fn remind_button_ui(ui: &Ui, cx: &ViewCtx<'_>, row: &BoardRow, rect: Rect) -> bool {
    let words = UiText::Remind.get(cx.lang);
    let font = TextStyle::Button.resolve(ui.style());
    let galley = line(ui, words, font, cx.palette.on_accent, f32::INFINITY);
    let margin = theme::PILL_MARGIN;
    let size = remind_pill_size(ui, cx);
    let pill = Rect::from_min_size(
        pos2(
            rect.right() - theme::SPACE_S - size.x,
            rect.center().y - size.y / 2.0,
        ),
        size,
    );
    // A finger's target: the pill, and the row's height around it up to touch height.
    let target = Rect::from_center_size(
        pill.center(),
        vec2(
            pill.width() + theme::SPACE_S,
            theme::TOUCH_HEIGHT.min(rect.height()).max(pill.height()),
        ),
    );
    let response = ui.interact(
        target,
        ui.make_persistent_id(("remind", &row.link.id)),
        Sense::click(),
    );
    let label = format!("{words} {}", row.order());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
    ui.painter()
        .rect_filled(pill, theme::PILL_RADIUS, cx.palette.accent);
    if response.hovered() || response.has_focus() {
        ui.painter().rect_stroke(
            pill,
            theme::PILL_RADIUS,
            ui.visuals().widgets.hovered.fg_stroke,
            egui::StrokeKind::Outside,
        );
    }
    ui.painter().galley(
        pill.min + vec2(margin.leftf(), margin.topf()),
        galley,
        cx.palette.on_accent,
    );
    response.clicked()
}

/// The size of a row's lit "Remind": its words and the pill's margins.
fn remind_pill_size(ui: &Ui, cx: &ViewCtx<'_>) -> egui::Vec2 {
    let font = TextStyle::Button.resolve(ui.style());
    let words = UiText::Remind.get(cx.lang);
    let galley = line(ui, words, font, cx.palette.on_accent, f32::INFINITY);
    galley.size() + theme::PILL_MARGIN.sum()
}

/// A row's menu (a right click, or the menu key on a focused row): open it, and send an open
/// link to its payer.
fn row_menu_ui(
    response: &egui::Response,
    cx: &ViewCtx<'_>,
    row: &BoardRow,
    picked: &mut Option<BoardCommand>,
) {
    let lang = cx.lang;
    let id = &row.link.id;
    response.context_menu(|ui| {
        if ui.button(UiText::Open.get(lang)).clicked() {
            *picked = Some(BoardCommand::Show { id: id.clone() });
            ui.close();
        }
        let open = !row.status(cx.now).is_final() && row.link.payment_url.is_some() && !row.foreign;
        if open
            && ui
                .button(format!("{}…", UiText::SendToCustomer.get(lang)))
                .clicked()
        {
            *picked = Some(BoardCommand::Send { id: id.clone() });
            ui.close();
        }
    });
}

/// "Sent by WhatsApp 10:42 · Ayşe": how and when a link last went to its payer (the time
/// alone today, with its day before), and who sent it when known.
pub fn sent_text(
    row: &BoardRow,
    mark: &SendMark,
    now: DateTime<Utc>,
    zone: Zone,
    lang: Lang,
) -> String {
    let words = match (mark.channel, row.mail) {
        (SendChannel::WhatsApp, _) => UiText::SentByWhatsApp,
        (SendChannel::Email, None) => UiText::SentByEmail,
        (SendChannel::Email, Some(MailState::Waiting)) => UiText::SentEmailWaitingSince,
        (SendChannel::Email, Some(MailState::Refused)) => UiText::SentEmailRefused,
    };
    let sent = words.fill(lang, &[("time", &clock_time(mark.at, now, zone, lang))]);
    match &mark.by {
        Some(who) => format!("{sent} · {who}"),
        None => sent,
    }
}

/// The short form of [`sent_text`] where the row has no room for it: "WhatsApp 10:42".
fn short_sent_text(mark: &SendMark, now: DateTime<Utc>, zone: Zone, lang: Lang) -> String {
    let words = match mark.channel {
        SendChannel::WhatsApp => UiText::SentShortWhatsApp,
        SendChannel::Email => UiText::SentShortEmail,
    };
    words.fill(lang, &[("time", &clock_time(mark.at, now, zone, lang))])
}

/// One line of the board: a group's heading, or the row at this index of `rows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// *Waiting* or *Done today*, with how many rows it has.
    Heading(UiText, usize),
    /// A link.
    Row(usize),
}

/// A group's heading, as tall as a row: "Waiting · 3".
fn heading_ui(ui: &mut Ui, cx: &ViewCtx<'_>, group: UiText, count: usize, height: f32) {
    let (rect, _) = ui.allocate_exact_size(vec2(ui.available_width(), height), Sense::hover());
    let font = TextStyle::Button.resolve(ui.style());
    let text = format!("{} · {count}", group.get(cx.lang));
    let galley = line(
        ui,
        &text,
        font,
        ui.visuals().strong_text_color(),
        rect.width(),
    );
    let pos = pos2(
        rect.left() + theme::SPACE_XS,
        rect.bottom() - galley.size().y - theme::SPACE_XS,
    );
    ui.painter()
        .galley(pos, galley, ui.visuals().strong_text_color());
}

/// Draws one board row (its frame and stripe drawn by `rows_ui`); returns when what it
/// shows next changes.
type RowDrawer<'a> =
    dyn FnMut(&mut table::Row<'_>, &ViewCtx<'_>, &BoardRow) -> [Option<DateTime<Utc>>; 2] + 'a;

/// Which column of the view's table holds what (the expiry and the progress only when a row
/// has something to show there).
#[derive(Debug, Clone, Copy)]
struct BoardColumns {
    expires: Option<usize>,
    status: usize,
    progress: Option<usize>,
}

/// The least width of the board's first column (the description and the order number).
const FIRST_COLUMN: f32 = 160.0;
/// The width of the status column of the narrow panel's pills.
const STATUS_COLUMN: f32 = 150.0;

/// The font of secondary text on a row (the order number, ages, headers).
fn small_font(ui: &Ui) -> FontId {
    TextStyle::Small.resolve(ui.style())
}

/// The expiry countdown of a row and when it changes next (`None`: it will not change). A
/// link that never expires, or is final, says nothing: the status pill says it all.
fn countdown_text(
    row: &BoardRow,
    now: DateTime<Utc>,
    lang: Lang,
) -> (String, Option<DateTime<Utc>>) {
    let status = row.status(now);
    match row.link.expiry {
        None => (String::new(), None),
        _ if status.is_final() && status != LinkStatus::Expired => (String::new(), None),
        Some(e) => match board::countdown(e, now) {
            Some(span) if !status.is_final() => {
                (span_text(span, lang), board::countdown_changes_at(e, now))
            }
            _ => (UiText::StatusExpired.get(lang).to_owned(), None),
        },
    }
}

/// "₺200.00 paid · ₺250.00 left" of a partly paid row.
pub fn paid_left_text(row: &BoardRow, lang: Lang) -> Option<String> {
    let (paid, total) = row.part_paid()?;
    let currency = row.link.currency;
    Some(UiText::BoardPaidLeft.fill(
        lang,
        &[
            ("paid", &format_amount(paid, currency, lang)),
            ("left", &format_amount(total - paid, currency, lang)),
        ],
    ))
}

/// The accessible label of a row: what a screen reader (and a test) reads: the description
/// (when there is one), the order and who made it, the amount, the status.
pub fn row_label(row: &BoardRow, now: DateTime<Utc>, zone: Zone, lang: Lang) -> String {
    let status = status_with_payment(
        &row.status(now),
        row.cancelled,
        row.part_paid().is_some(),
        lang,
    );
    let description = row.description();
    let lead = if description.is_empty() {
        row.order_and_staff()
    } else {
        format!("{description} · {}", row.order_and_staff())
    };
    let label = format!("{lead} {} {status}", row.amount_text(lang));
    match &row.sent {
        Some(mark) => format!("{label} · {}", sent_text(row, mark, now, zone, lang)),
        None => label,
    }
}

/// Lays out `text` on one line, cut with "…" at `width`.
fn line(
    ui: &Ui,
    text: &str,
    font: FontId,
    color: Color32,
    width: f32,
) -> std::sync::Arc<egui::Galley> {
    let mut job = LayoutJob::single_section(text.to_owned(), TextFormat::simple(font, color));
    job.wrap = TextWrapping::truncate_at_width(width.max(theme::SPACE_M));
    ui.painter().layout_job(job)
}

/// Paints `text` ending at `right` (centred on `y`); returns its width.
fn paint_right(ui: &Ui, right: f32, y: f32, text: &str, font: FontId, color: Color32) -> f32 {
    let galley = line(ui, text, font, color, f32::INFINITY);
    let size = galley.size();
    ui.painter()
        .galley(pos2(right - size.x, y - size.y / 2.0), galley, color);
    size.x
}

/// The status pill (the same shape, colours and text as `widgets::badge_ui`), left-aligned
/// at `left` and centred on `y`; returns its right edge.
fn paint_badge(
    ui: &Ui,
    palette: &Palette,
    left: f32,
    y: f32,
    (status, cancelled, partly_paid): (&LinkStatus, bool, bool),
    lang: Lang,
) -> f32 {
    let badge = palette.pill(StatusMeaning::of(status, cancelled, partly_paid));
    let mut font = TextStyle::Body.resolve(ui.style());
    font.family = egui::FontFamily::Proportional;
    let galley = line(
        ui,
        &status_with_payment(status, cancelled, partly_paid, lang),
        font,
        badge.text,
        STATUS_COLUMN,
    );
    let margin = theme::PILL_MARGIN;
    let size = galley.size() + vec2(margin.sum().x, margin.sum().y);
    let rect = Rect::from_min_size(pos2(left, y - size.y / 2.0), size);
    ui.painter()
        .rect_filled(rect, theme::PILL_RADIUS, badge.fill);
    ui.painter().galley(
        rect.min + vec2(margin.leftf(), margin.topf()),
        galley,
        badge.text,
    );
    rect.right()
}

/// The paid / remaining bar in `rect`.
fn paint_bar(
    ui: &Ui,
    palette: &Palette,
    rect: Rect,
    paid: rust_decimal::Decimal,
    total: rust_decimal::Decimal,
) {
    // A fraction for drawing only: the amounts themselves stay exact.
    let fraction = (paid / total).to_f32().unwrap_or(0.0).clamp(0.0, 1.0);
    let radius = rect.height() / 2.0;
    ui.painter()
        .rect_filled(rect, radius, ui.visuals().extreme_bg_color);
    let mut done = rect;
    done.set_width(rect.width() * fraction);
    ui.painter()
        .rect_filled(done, radius, palette.pill(StatusMeaning::PartlyPaid).fill);
    ui.painter().rect_stroke(
        rect,
        radius,
        ui.visuals().widgets.noninteractive.bg_stroke,
        egui::StrokeKind::Inside,
    );
}

/// One row of the view; returns when its figures change.
fn row_ui(
    painted: &mut table::Row<'_>,
    cx: &ViewCtx<'_>,
    row: &BoardRow,
    cols: BoardColumns,
) -> [Option<DateTime<Utc>>; 2] {
    let lang = cx.lang;
    let now = cx.now;
    let ui_text = painted.text_color();
    let strong = painted.strong_color();
    let body = painted.body_font();
    let status = row.status(now);
    painted.name(
        0,
        row.description(),
        &row.order_and_staff(),
        cx.palette.muted,
    );
    painted.styled(1, &row.amount_text(lang), (body.clone(), strong));
    let age = age_text(row.made_at(), now, lang);
    painted.styled(2, &age, (body.clone(), cx.palette.muted));
    let (countdown, countdown_change) = countdown_text(row, now, lang);
    if let Some(i) = cols.expires {
        painted.styled(i, &countdown, (body, ui_text));
    }
    let partly_paid = row.part_paid().is_some();
    let badge = cx
        .palette
        .pill(StatusMeaning::of(&status, row.cancelled, partly_paid));
    painted.pill(
        cols.status,
        &status_with_payment(&status, row.cancelled, partly_paid, lang),
        badge,
    );
    if let Some(i) = cols.progress {
        progress_ui(painted, cx, row, i);
    }
    [
        Some(board::age_changes_at(row.made_at(), now)),
        countdown_change,
    ]
}

/// The progress column of a row: "₺200 paid · ₺250 left" over a bar, or how and when it
/// was sent, or that another desk's payment is not confirmed yet.
fn progress_ui(painted: &mut table::Row<'_>, cx: &ViewCtx<'_>, row: &BoardRow, i: usize) {
    let lang = cx.lang;
    let now = cx.now;
    let cell = painted.cell(i);
    let y = painted.rect.center().y;
    let small = painted.small_font();
    let text = painted.text_color();
    if row.unconfirmed.is_some() {
        // Another desk says it was paid; no second desk's own call has confirmed it yet.
        let words = UiText::BoardUnconfirmed.get(lang);
        painted.paint(cell, y, words, (small, cx.palette.warn), Align::Left);
    } else if let (Some((paid, total)), Some(words)) = (row.part_paid(), paid_left_text(row, lang))
    {
        // "₺200 paid · ₺250 left" over a thin bar of the same.
        let height = painted.row_height(&small);
        painted.paint(cell, y - height / 2.0, &words, (small, text), Align::Left);
        let bar = Rect::from_min_size(
            pos2(cell.left(), y + theme::SPACE_XS),
            vec2(cell.width(), theme::SPACE_XS),
        );
        paint_bar(painted.ui(), &cx.palette, bar, paid, total);
    } else if let Some(mark) = &row.sent {
        // Room for a lit "Remind" at the row's end.
        let mut cell = cell;
        if row.remind_lit(now) {
            let remind = remind_pill_size(painted.ui(), cx).x + theme::SPACE_M;
            cell.set_right((painted.rect.right() - remind).max(cell.left() + theme::SPACE_L));
        }
        // An e-mail that has not gone yet (or never will) is said in the warning colour,
        // whole; a sent one shortly where the whole does not fit.
        let waiting = mark.channel == SendChannel::Email && row.mail.is_some();
        let mut words = sent_text(row, mark, now, cx.zone, lang);
        let whole = line(
            painted.ui(),
            &words,
            small.clone(),
            cx.palette.muted,
            f32::INFINITY,
        );
        if !waiting && whole.size().x > cell.width() {
            words = short_sent_text(mark, now, cx.zone, lang);
        }
        let color = if waiting {
            cx.palette.warn
        } else {
            cx.palette.muted
        };
        painted.paint(cell, y, &words, (small, color), Align::Left);
    }
}

/// One row of the narrow panel: the description (or the order number) and the amount; the
/// order number and the countdown (or the age) smaller under it; the status pill and, for a
/// partly paid link, what is paid and left.
fn panel_row_ui(
    painted: &mut table::Row<'_>,
    cx: &ViewCtx<'_>,
    row: &BoardRow,
) -> [Option<DateTime<Utc>>; 2] {
    let ui = painted.ui();
    let rect = painted.rect;
    let lang = cx.lang;
    let now = cx.now;
    let strong = ui.visuals().strong_text_color();
    let muted = cx.palette.muted;
    let inner = rect.shrink2(vec2(theme::SPACE_S, theme::SPACE_XS));
    let third = inner.height() / 3.0;
    let (top, middle, bottom) = (
        inner.top() + third / 2.0,
        inner.center().y,
        inner.bottom() - third / 2.0,
    );
    let body = TextStyle::Body.resolve(ui.style());
    let small = small_font(ui);
    let amount_width = paint_right(
        ui,
        inner.right(),
        top,
        &row.amount_text(lang),
        body.clone(),
        strong,
    );
    let description = row.description();
    let name_width = inner.width() - amount_width - theme::SPACE_S;
    let first = if description.is_empty() {
        row.order()
    } else {
        description
    };
    // What is cut short shows whole in the row's tooltip (the table's `Row::paint`).
    let name_cell =
        Rect::from_x_y_ranges(inner.left()..=inner.left() + name_width, inner.y_range());
    painted.paint(name_cell, top, first, (body, strong), Align::Left);
    let status = row.status(now);
    let (countdown, countdown_change) = countdown_text(row, now, lang);
    // An open link that expires shows its countdown ("14 min left"); any other its age
    // ("3 min ago"): without column headers, the word says which.
    let (right_text, change) = if status.is_final() || row.link.expiry.is_none() {
        let age = ago_text(row.made_at(), now, lang);
        (age, Some(board::age_changes_at(row.made_at(), now)))
    } else if countdown_change.is_some() {
        (
            format!("{countdown} {}", UiText::Left.get(lang)),
            countdown_change,
        )
    } else {
        (countdown, None)
    };
    let right_width = paint_right(ui, inner.right(), middle, &right_text, small.clone(), muted);
    if !description.is_empty() {
        let width = inner.width() - right_width - theme::SPACE_S;
        let cell = Rect::from_x_y_ranges(inner.left()..=inner.left() + width, inner.y_range());
        let order_font = FontId::monospace(theme::SMALL_SIZE);
        painted.paint(cell, middle, row.order(), (order_font, muted), Align::Left);
    }
    let pill_right = paint_badge(
        ui,
        &cx.palette,
        inner.left(),
        bottom,
        (&status, row.cancelled, row.part_paid().is_some()),
        lang,
    );
    if let (Some(mut words), Some((paid, total))) = (paid_left_text(row, lang), row.part_paid()) {
        let cell =
            Rect::from_x_y_ranges(pill_right + theme::SPACE_S..=inner.right(), inner.y_range());
        // Where "₺200 paid · ₺250 left" does not fit beside the pill (Turkish, mostly), what
        // is left to pay says it: the pill already says part of it was paid.
        if line(ui, &words, small.clone(), muted, f32::INFINITY)
            .size()
            .x
            > cell.width()
        {
            let left = format_amount(total - paid, row.link.currency, lang);
            words = UiText::BoardLeftOnly.fill(lang, &[("left", &left)]);
        }
        painted.paint(cell, bottom, &words, (small, muted), Align::Right);
    }
    [change, None]
}

/// The statuses a row can show, in `lang` (what the status column is measured by).
pub fn status_samples(lang: Lang) -> Vec<String> {
    let mut all: Vec<String> = LinkStatus::KNOWN
        .iter()
        .map(|s| status_with_payment(s, false, false, lang))
        .collect();
    all.push(status_with_payment(&LinkStatus::Expired, true, false, lang));
    all.push(status_with_payment(&LinkStatus::Pending, false, true, lang));
    all
}

/// The summary strip over the rows: "Waiting ₺1.250,00 · Collected ₺3.400,00", a part per
/// currency.
fn summary_ui(ui: &mut Ui, cx: &ViewCtx<'_>, summary: &[CurrencySummary]) {
    let lang = cx.lang;
    let parts: Vec<String> = summary
        .iter()
        .flat_map(|s| {
            // Nothing waiting (or nothing collected) in a currency is not said.
            let waiting = (!s.waiting.is_zero()).then(|| {
                let amount = format_amount(s.waiting, s.currency, lang);
                UiText::SummaryWaiting.fill(lang, &[("amount", &amount)])
            });
            let collected = (!s.collected.is_zero()).then(|| {
                let amount = format_amount(s.collected, s.currency, lang);
                UiText::SummaryCollected.fill(lang, &[("amount", &amount)])
            });
            [waiting, collected].into_iter().flatten()
        })
        .collect();
    table::summary_ui(ui, &parts);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pending_link_past_its_expiry_reads_expired() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let mut row = row(serde_json::json!({"id": "l", "status": "PENDING"}), now);
        row.link.expiry = Some(now - chrono::TimeDelta::seconds(1));
        assert_eq!(row.status(now), LinkStatus::Expired);
        assert_eq!(countdown_text(&row, now, Lang::En).0, "Expired");
        assert!(row_label(&row, now, Zone::hours(3), Lang::En).ends_with("Expired"));
        // Cancelled through paydesk: the server says EXPIRED, the board says what happened.
        row.cancelled = true;
        assert!(row_label(&row, now, Zone::hours(3), Lang::En).ends_with("Cancelled"));
        assert!(row_label(&row, now, Zone::hours(3), Lang::Tr).ends_with("İptal edildi"));
    }

    #[test]
    fn an_open_link_with_money_on_it_reads_partially_paid_as_in_history() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let mut row = row(
            serde_json::json!({
                "id": "l", "status": "PENDING", "amount": "450.00", "paidAmount": "200.00",
                "currency": "TRY"
            }),
            now,
        );
        assert!(row_label(&row, now, Zone::hours(3), Lang::En).ends_with("Partially paid"));
        // Who made it follows the order number.
        row.staff = Some("Ayşe".into());
        assert!(row_label(&row, now, Zone::hours(3), Lang::En).starts_with("l · Ayşe "));
    }

    fn row(json: serde_json::Value, now: DateTime<Utc>) -> BoardRow {
        BoardRow {
            link: Link::from(
                serde_json::from_value::<crate::api::wire::PaymentLink>(json).unwrap(),
            ),
            created_at: now,
            cancelled: false,
            staff: None,
            unconfirmed: None,
            sent: None,
            remind_from: None,
            mail: None,
            foreign: false,
        }
    }

    #[test]
    fn a_row_is_named_by_its_description_and_a_part_paid_one_says_what_is_paid_and_left() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let row = row(
            serde_json::json!({
                "id": "l", "status": "PENDING", "amount": "250.00", "paidAmount": "200.00",
                "currency": "TRY", "orderNumber": "KDK-20261123-862F0009",
                "description": "Table 12"
            }),
            now,
        );
        assert_eq!(
            row_label(&row, now, Zone::hours(3), Lang::En),
            "Table 12 · KDK-20261123-862F0009 ₺250.00 Partially paid"
        );
        assert_eq!(
            paid_left_text(&row, Lang::En).as_deref(),
            Some("₺200.00 paid · ₺50.00 left")
        );
        assert_eq!(
            paid_left_text(&row, Lang::Tr).as_deref(),
            Some("200,00 ₺ ödendi · 50,00 ₺ kaldı")
        );
        // A link that never expires says nothing about its expiry ("never" on every row is
        // noise).
        assert_eq!(countdown_text(&row, now, Lang::En), (String::new(), None));
    }

    #[test]
    fn open_links_are_listed_under_waiting_and_final_ones_under_done_today() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let mut board = BoardView::default();
        for (id, status) in [
            ("a", "COMPLETED"),
            ("b", "PENDING"),
            ("c", "EXPIRED"),
            ("d", "PENDING"),
        ] {
            board
                .rows
                .push(row(serde_json::json!({"id": id, "status": status}), now));
        }
        assert_eq!(
            board.entries(now, true),
            [
                Entry::Heading(UiText::BoardWaiting, 2),
                Entry::Row(1),
                Entry::Row(3),
                Entry::Heading(UiText::BoardDoneToday, 2),
                Entry::Row(0),
                Entry::Row(2),
            ]
        );
        board
            .rows
            .retain(|r| r.link.status == LinkStatus::Completed);
        assert_eq!(
            board.entries(now, true),
            [Entry::Heading(UiText::BoardDoneToday, 1), Entry::Row(0)]
        );
        // The narrow panel lists the same rows in the same order, without headings.
        assert_eq!(board.entries(now, false), [Entry::Row(0)]);
    }

    #[test]
    fn a_sent_row_says_how_when_and_by_whom_and_the_filter_keeps_only_those() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let istanbul = Zone::hours(3);
        let mut board = BoardView::default();
        let links = ["a", "b", "c"].map(|id| StoredLink {
            profile: "p".into(),
            link: row(serde_json::json!({"id": id, "status": "PENDING"}), now).link,
            created_at: now,
            updated_at: now,
            cancelled_at: None,
            staff: None,
            unconfirmed: None,
        });
        let mark = |id: &str, channel, minutes_ago, by: Option<&str>| SendMark {
            link_id: id.into(),
            channel,
            at: now - chrono::TimeDelta::minutes(minutes_ago),
            by: by.map(str::to_owned),
        };
        let sends = HashMap::from([
            (
                "b".to_owned(),
                mark("b", SendChannel::WhatsApp, 5, Some("Ayşe")),
            ),
            ("c".to_owned(), mark("c", SendChannel::Email, 60 * 24, None)),
        ]);
        let marks = BoardMarks {
            sends,
            ..BoardMarks::default()
        };
        board.on_rows("p", links.into(), marks, now);
        let label = |i: usize, lang| row_label(&board.rows[i], now, istanbul, lang);
        // 12:00 UTC is 15:00 in Istanbul; a send of another day names its day.
        assert!(!label(0, Lang::En).contains("Sent"));
        assert!(
            label(1, Lang::En).ends_with("· Sent by WhatsApp 14:55 · Ayşe"),
            "{}",
            label(1, Lang::En)
        );
        assert!(label(1, Lang::Tr).ends_with("· WhatsApp ile gönderildi 14:55 · Ayşe"));
        assert!(
            label(2, Lang::En).ends_with("· Sent by e-mail 22 Nov 2026, 15:00"),
            "{}",
            label(2, Lang::En)
        );
        // An e-mail still in this desk's queue says so instead.
        let mut waiting = board.rows[2].clone();
        waiting.mail = Some(MailState::Waiting);
        let said = row_label(&waiting, now, istanbul, Lang::En);
        assert!(
            said.ends_with("· E-mail waiting to be sent (22 Nov 2026, 15:00)"),
            "{said}"
        );
        waiting.mail = Some(MailState::Refused);
        let said = row_label(&waiting, now, istanbul, Lang::Tr);
        assert!(
            said.contains("E-posta sunucu tarafından reddedildi"),
            "{said}"
        );
        board.only_sent = true;
        assert_eq!(
            board.entries(now, true),
            [
                Entry::Heading(UiText::BoardWaiting, 2),
                Entry::Row(1),
                Entry::Row(2)
            ]
        );
    }

    #[test]
    fn remind_lights_up_for_a_link_sent_by_whatsapp_at_its_time_and_once() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let stored = |id: &str, expires_in: Option<i64>| {
            let mut link = row(serde_json::json!({"id": id, "status": "PENDING"}), now).link;
            link.expiry = expires_in.map(|m| now + chrono::TimeDelta::minutes(m));
            StoredLink {
                profile: "p".into(),
                link,
                created_at: now,
                updated_at: now,
                cancelled_at: None,
                staff: None,
                unconfirmed: None,
            }
        };
        let whatsapp = |id: &str| SendMark {
            link_id: id.into(),
            channel: SendChannel::WhatsApp,
            at: now - chrono::TimeDelta::hours(1),
            by: None,
        };
        let email = SendMark {
            channel: SendChannel::Email,
            ..whatsapp("email")
        };
        let marks = BoardMarks {
            sends: HashMap::from([
                ("later".to_owned(), whatsapp("later")),
                ("due".to_owned(), whatsapp("due")),
                ("never-expires".to_owned(), whatsapp("never-expires")),
                ("reminded".to_owned(), whatsapp("reminded")),
                ("email".to_owned(), email),
            ]),
            reminded: ["reminded".to_owned()].into(),
            sending: crate::store::SendingSettings::default(),
            mail: HashMap::new(),
            foreign: std::collections::HashSet::new(),
        };
        let mut board = BoardView::default();
        let links = vec![
            stored("later", Some(180)),
            stored("due", Some(90)),
            stored("never-expires", None),
            stored("reminded", Some(90)),
            stored("email", Some(90)),
            stored("unsent", Some(90)),
        ];
        board.on_rows("p", links, marks, now);
        let lit: Vec<&str> = board
            .rows
            .iter()
            .filter(|r| r.remind_lit(now))
            .map(|r| r.link.id.as_str())
            .collect();
        // Two hours before the expiry by default; a link that never expires at once; an
        // e-mail send is reminded by the mail queue on its own, not by hand.
        assert_eq!(lit, ["due", "never-expires"]);
        let later = &board.rows[0];
        assert_eq!(
            later.remind_from,
            Some(now + chrono::TimeDelta::minutes(60))
        );
        assert!(later.remind_lit(now + chrono::TimeDelta::minutes(60)));
    }
}
