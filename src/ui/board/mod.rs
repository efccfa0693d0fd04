//! The open-links board: every link of today and every link still waiting for payment from
//! the last week, with its order number, amount, age, expiry countdown, status and, for a
//! partly paid link, a paid / remaining bar. As a view of its own, and as a narrow panel beside
//! New link when the window is wide.
//!
//! The rows come from the store (the app reloads them after a create and on opening the view)
//! and change in place as the background refresh answers (`crate::board` decides when to ask);
//! this file only draws. Ages and countdowns are computed from `now` each frame, and the view
//! notes when the soonest figure on screen will change ([`BoardView::next_change`]) so the app
//! repaints then and not before.
//!
//! Each row is one clickable element whose accessible label is the whole line (order, amount,
//! status); its cells are painted, not separate widgets, so screen readers read a row once.
//! Clicking a row opens the link's result view (QR, customer display).

use chrono::{DateTime, NaiveDate, Utc};
use egui::text::{LayoutJob, TextWrapping};
use egui::{Align2, Color32, FontId, Rect, RichText, Sense, TextFormat, Ui, Vec2, pos2, vec2};
use rust_decimal::prelude::ToPrimitive;

use crate::board::{self, Span};
use crate::clock::Zone;
use crate::domain::Link;
use crate::domain::{LinkStatus, format_amount};
use crate::lang::Lang;
use crate::store::StoredLink;
use crate::ui::ViewCtx;
use crate::ui::command::BoardCommand;
use crate::ui::link_result::status_with_payment;
use crate::ui::text::UiText;
use crate::ui::theme::{Palette, StatusMeaning};
use crate::ui::widgets;
use crate::ui::{Command, View};

mod notice;

pub use notice::notice_for;

/// Height of a row of the view, in points.
pub const ROW_HEIGHT: f32 = 30.0;
/// Height of a row of the narrow panel.
pub const PANEL_ROW_HEIGHT: f32 = 50.0;
/// From this window width on, New link has the narrow board beside it.
pub const WIDE: f32 = 1200.0;
/// Width of the narrow panel.
pub const PANEL_WIDTH: f32 = 300.0;
/// The longest paid / remaining bar of the view.
const BAR_WIDTH: f32 = 280.0;

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
    pub rows: Vec<BoardRow>,
    /// The profile the rows belong to.
    pub profile: Option<String>,
    /// When the rows were read from the store.
    pub loaded_at: Option<DateTime<Utc>>,
    /// The local day they were read on ("today" moves at midnight).
    pub day: Option<NaiveDate>,
    /// A reload is out.
    pub loading: bool,
    /// The rows must be read again (a create, the view opened).
    pub stale: bool,
    /// The last reload's error.
    pub error: Option<crate::ui::problem::Problem>,
    /// When the soonest age or countdown drawn this frame changes (the app repaints then).
    pub next_change: Option<DateTime<Utc>>,
    /// The zone whose local day is the board's "today" (the machine's unless a test sets one).
    pub zone: Zone,
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

    /// Takes the rows read from the store. A link of an earlier day whose expiry has passed
    /// is no longer waiting for anything and is left out.
    pub fn set_rows(&mut self, profile: &str, links: Vec<StoredLink>, now: DateTime<Utc>) {
        let today = board::local_day_start(now, self.zone);
        self.rows = links
            .into_iter()
            .filter(|s| s.created_at >= today || s.link.expiry.is_none_or(|e| e > now))
            .map(|s| BoardRow {
                link: s.link,
                created_at: s.created_at,
                cancelled: s.cancelled_at.is_some(),
                staff: s.staff,
            })
            .collect();
        self.profile = Some(profile.to_owned());
        self.loaded_at = Some(now);
        self.day = Some(self.zone.date_of(now));
        self.loading = false;
        self.error = None;
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

    /// Puts an answer about a link into its row; returns whether its status or paid amount
    /// changed.
    pub fn apply(&mut self, link: &Link) -> bool {
        let Some(row) = self.rows.iter_mut().find(|r| r.link.id == link.id) else {
            return false;
        };
        let changed = row.link.status != link.status || row.link.paid != link.paid;
        row.link = link.clone();
        changed
    }

    /// Forgets the rows (another profile).
    pub fn clear(&mut self) {
        *self = Self {
            stale: true,
            ..Self::default()
        };
    }

    fn note_change(&mut self, at: Option<DateTime<Utc>>) {
        if let Some(at) = at {
            self.next_change = Some(self.next_change.map_or(at, |n| n.min(at)));
        }
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

    /// Draws the view.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        ui.heading(UiText::NavBoard.get(lang));
        widgets::hint_ui(ui, &cx.palette, UiText::BoardExplained.get(lang));
        if let Some(e) = &self.error {
            crate::ui::problem::problem_ui(ui, cx, e);
        }
        let (open, paid) = self.counts(cx.now);
        ui.label(
            RichText::new(format!(
                "{}: {open}   ·   {}: {paid}",
                UiText::BoardOpen.get(lang),
                UiText::StatusCompleted.get(lang)
            ))
            .strong(),
        );
        if self.rows.is_empty() {
            let t = if self.loading {
                UiText::Loading
            } else {
                UiText::BoardEmpty
            };
            widgets::hint_ui(ui, &cx.palette, t.get(lang));
            return;
        }
        ui.add_space(4.0);
        let header = ui.allocate_exact_size(vec2(ui.available_width(), 20.0), Sense::hover());
        let columns = Columns::of(header.0);
        let strong = FontId::proportional(13.0);
        let text = ui.visuals().strong_text_color();
        for (x, t) in columns.headers() {
            // Amounts are right-aligned (digits under digits), and so is their header.
            let (x, align) = if t == UiText::Amount {
                (columns.amount_right(), Align2::RIGHT_CENTER)
            } else {
                (x, Align2::LEFT_CENTER)
            };
            ui.painter().text(
                pos2(x, header.0.center().y),
                align,
                t.get(lang),
                strong.clone(),
                text,
            );
        }
        self.rows_ui(ui, cx, "board-rows", ROW_HEIGHT, row_ui);
    }

    /// Draws the narrow panel beside New link.
    pub fn panel_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        ui.add_space(6.0);
        ui.horizontal(|ui| {
            ui.label(RichText::new(UiText::NavBoard.get(lang)).strong());
            let (open, _) = self.counts(cx.now);
            ui.label(RichText::new(format!("({open})")).color(cx.palette.muted));
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.small_button(UiText::ShowAll.get(lang)).clicked() {
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
        self.rows_ui(ui, cx, "board-panel-rows", PANEL_ROW_HEIGHT, panel_row_ui);
    }

    /// The rows, `height` points each, drawn by `draw`; only the visible ones are laid out.
    /// A click opens the row's result view; what each drawn row says about when it next
    /// changes (an age, a countdown) decides the next repaint.
    fn rows_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        id_salt: &str,
        height: f32,
        draw: RowDrawer,
    ) {
        let mut picked = None;
        let count = self.rows.len();
        egui::ScrollArea::vertical()
            .id_salt(id_salt)
            .auto_shrink([false, false])
            .show_rows(ui, height, count, |ui, range| {
                for i in range {
                    let row = &self.rows[i];
                    let (rect, response) =
                        ui.allocate_exact_size(vec2(ui.available_width(), height), Sense::click());
                    let changes = draw(ui, cx, row, rect, &response, i % 2 == 1);
                    if response.clicked() {
                        picked = Some(row.link.id.clone());
                    }
                    for c in changes {
                        self.note_change(c);
                    }
                }
            });
        if let Some(id) = picked {
            cx.emit(Command::Board(BoardCommand::Show { id }));
        }
    }
}

/// Draws one board row into its rect; returns when what it shows next changes.
type RowDrawer =
    fn(&Ui, &ViewCtx<'_>, &BoardRow, Rect, &egui::Response, bool) -> [Option<DateTime<Utc>>; 2];

/// Where each column of the view starts.
struct Columns {
    order: f32,
    amount: f32,
    age: f32,
    expires: f32,
    status: f32,
    bar: f32,
    right: f32,
}

impl Columns {
    fn of(rect: Rect) -> Self {
        let x = rect.left() + 8.0;
        Self {
            order: x,
            amount: x + 200.0,
            age: x + 330.0,
            expires: x + 440.0,
            status: x + 560.0,
            bar: x + 730.0,
            right: rect.right() - 8.0,
        }
    }

    /// Where the amount column's figures end.
    fn amount_right(&self) -> f32 {
        self.age - 30.0
    }

    fn headers(&self) -> [(f32, UiText); 6] {
        [
            (self.order, UiText::OrderNumber),
            (self.amount, UiText::Amount),
            (self.age, UiText::BoardAge),
            (self.expires, UiText::ExpiresIn),
            (self.status, UiText::Status),
            (self.bar, UiText::PaidRemaining),
        ]
    }
}

/// A span in the app's language: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h` (Turkish `45 sn`,
/// `12 dk`, `3 sa 5 dk`, `2 gün 4 sa`).
pub fn span_text(span: Span, lang: Lang) -> String {
    let (sec, min, hour, day) = (
        UiText::UnitSeconds.get(lang),
        UiText::UnitMinutes.get(lang),
        UiText::UnitHours.get(lang),
        UiText::UnitDays.get(lang),
    );
    match span {
        Span::Seconds(n) => format!("{n} {sec}"),
        Span::Minutes(n) => format!("{n} {min}"),
        Span::HoursMinutes(hours, 0) => format!("{hours} {hour}"),
        Span::HoursMinutes(hours, mins) => format!("{hours} {hour} {mins} {min}"),
        Span::DaysHours(days, 0) => format!("{days} {day}"),
        Span::DaysHours(days, hours) => format!("{days} {day} {hours} {hour}"),
    }
}

/// How long ago `since` was, as a sentence part: "3 min ago", or "just now" under a minute.
pub fn ago_text(since: DateTime<Utc>, now: DateTime<Utc>, lang: Lang) -> String {
    match board::age(since, now) {
        Span::Seconds(_) => UiText::JustNow.get(lang).to_owned(),
        span => format!("{} {}", span_text(span, lang), UiText::Ago.get(lang)),
    }
}

/// How old a link is, as the board says it ("just now" under a minute).
pub fn age_text(since: DateTime<Utc>, now: DateTime<Utc>, lang: Lang) -> String {
    match board::age(since, now) {
        Span::Seconds(_) => UiText::JustNow.get(lang).to_owned(),
        span => span_text(span, lang),
    }
}

/// The expiry countdown of a row and when it changes next (`None`: it will not change).
fn countdown_text(
    row: &BoardRow,
    now: DateTime<Utc>,
    lang: Lang,
) -> (String, Option<DateTime<Utc>>) {
    let status = row.status(now);
    match row.link.expiry {
        _ if status.is_final() && status != LinkStatus::Expired => (String::new(), None),
        None => (UiText::NoExpiry.get(lang).to_owned(), None),
        Some(e) => match board::countdown(e, now) {
            Some(span) if !status.is_final() => {
                (span_text(span, lang), board::countdown_changes_at(e, now))
            }
            _ => (UiText::StatusExpired.get(lang).to_owned(), None),
        },
    }
}

/// The accessible label of a row: what a screen reader (and a test) reads.
pub fn row_label(row: &BoardRow, now: DateTime<Utc>, lang: Lang) -> String {
    format!(
        "{} {} {}",
        row.order_and_staff(),
        row.amount_text(lang),
        status_with_payment(
            &row.status(now),
            row.cancelled,
            row.part_paid().is_some(),
            lang
        )
    )
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
    job.wrap = TextWrapping::truncate_at_width(width.max(10.0));
    ui.painter().layout_job(job)
}

fn paint_line(ui: &Ui, at: egui::Pos2, text: &str, font: FontId, color: Color32, width: f32) {
    let galley = line(ui, text, font, color, width);
    let pos = pos2(at.x, at.y - galley.size().y / 2.0);
    ui.painter().galley(pos, galley, color);
}

/// The status pill, left-aligned at `left` and centred on `y`; returns its right edge.
fn paint_badge(
    ui: &Ui,
    palette: &Palette,
    left: f32,
    y: f32,
    (status, cancelled, partly_paid): (&LinkStatus, bool, bool),
    lang: Lang,
) -> f32 {
    let badge = palette.pill(StatusMeaning::of(status, cancelled, partly_paid));
    let galley = line(
        ui,
        &status_with_payment(status, cancelled, partly_paid, lang),
        FontId::proportional(13.0),
        badge.text,
        160.0,
    );
    let size = galley.size() + vec2(14.0, 4.0);
    let rect = Rect::from_min_size(pos2(left, y - size.y / 2.0), size);
    ui.painter().rect_filled(rect, 8.0, badge.fill);
    ui.painter()
        .galley(rect.min + vec2(7.0, 2.0), galley, badge.text);
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
    ui.painter()
        .rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
    let mut done = rect;
    done.set_width(rect.width() * fraction);
    ui.painter().rect_filled(done, 3.0, palette.ok);
    ui.painter().rect_stroke(
        rect,
        3.0,
        ui.visuals().widgets.noninteractive.bg_stroke,
        egui::StrokeKind::Inside,
    );
}

/// The row's accessible label, its stripe (every other row) and its hover or focus frame.
fn row_frame(ui: &Ui, rect: Rect, response: &egui::Response, label: &str, striped: bool) {
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, label));
    if striped {
        ui.painter()
            .rect_filled(rect, 3.0, ui.visuals().faint_bg_color);
    }
    if response.hovered() || response.has_focus() {
        ui.painter()
            .rect_filled(rect, 3.0, ui.visuals().widgets.hovered.weak_bg_fill);
        ui.painter().rect_stroke(
            rect,
            3.0,
            ui.visuals().widgets.hovered.bg_stroke,
            egui::StrokeKind::Inside,
        );
    }
}

/// One row of the view; returns when its figures change.
fn row_ui(
    ui: &Ui,
    cx: &ViewCtx<'_>,
    row: &BoardRow,
    rect: Rect,
    response: &egui::Response,
    striped: bool,
) -> [Option<DateTime<Utc>>; 2] {
    let lang = cx.lang;
    let now = cx.now;
    row_frame(ui, rect, response, &row_label(row, now, lang), striped);
    let c = Columns::of(rect);
    let y = rect.center().y;
    let text = ui.visuals().text_color();
    let font = FontId::proportional(15.0);
    let status = row.status(now);
    paint_line(
        ui,
        pos2(c.order, y),
        &row.order_and_staff(),
        FontId::monospace(14.0),
        text,
        c.amount - c.order - 10.0,
    );
    let amount = line(
        ui,
        &row.amount_text(lang),
        font.clone(),
        text,
        c.amount_right() - c.amount,
    );
    let size = amount.size();
    ui.painter().galley(
        pos2(c.amount_right() - size.x, y - size.y / 2.0),
        amount,
        text,
    );
    let age = age_text(row.made_at(), now, lang);
    paint_line(
        ui,
        pos2(c.age, y),
        &age,
        font.clone(),
        cx.palette.muted,
        c.expires - c.age - 10.0,
    );
    let (countdown, countdown_change) = countdown_text(row, now, lang);
    paint_line(
        ui,
        pos2(c.expires, y),
        &countdown,
        font.clone(),
        text,
        c.status - c.expires - 10.0,
    );
    paint_badge(
        ui,
        &cx.palette,
        c.status,
        y,
        (&status, row.cancelled, row.part_paid().is_some()),
        lang,
    );
    if let Some((paid, total)) = row.part_paid() {
        let currency = row.link.currency;
        let width = (c.right - c.bar).clamp(60.0, BAR_WIDTH);
        // Under the "Paid / remaining" header: the two figures, which fit a 1024 px window.
        let figures = format!(
            "{} / {}",
            format_amount(paid, currency, lang),
            format_amount(total - paid, currency, lang)
        );
        let galley = line(ui, &figures, FontId::proportional(12.0), text, width);
        let bar = Rect::from_min_size(pos2(c.bar, y + 3.0), vec2(width, 7.0));
        ui.painter()
            .galley(pos2(c.bar, y + 1.0 - galley.size().y), galley, text);
        paint_bar(ui, &cx.palette, bar, paid, total);
    }
    [
        Some(board::age_changes_at(row.made_at(), now)),
        countdown_change,
    ]
}

/// One row of the narrow panel: order and amount, then the status and the countdown (or the
/// age), and the bar of a partly paid link.
fn panel_row_ui(
    ui: &Ui,
    cx: &ViewCtx<'_>,
    row: &BoardRow,
    rect: Rect,
    response: &egui::Response,
    striped: bool,
) -> [Option<DateTime<Utc>>; 2] {
    let lang = cx.lang;
    let now = cx.now;
    row_frame(ui, rect, response, &row_label(row, now, lang), striped);
    let text = ui.visuals().text_color();
    let inner = rect.shrink2(vec2(6.0, 4.0));
    let top = inner.top() + 8.0;
    let bottom = inner.bottom() - 13.0;
    let amount = row.amount_text(lang);
    let amount_galley = line(
        ui,
        &amount,
        FontId::proportional(15.0),
        text,
        inner.width() / 2.0,
    );
    let amount_width = amount_galley.size().x;
    ui.painter().galley(
        pos2(
            inner.right() - amount_width,
            top - amount_galley.size().y / 2.0,
        ),
        amount_galley,
        text,
    );
    paint_line(
        ui,
        pos2(inner.left(), top),
        row.order(),
        FontId::monospace(13.0),
        text,
        inner.width() - amount_width - 8.0,
    );
    let status = row.status(now);
    paint_badge(
        ui,
        &cx.palette,
        inner.left(),
        bottom,
        (&status, row.cancelled, row.part_paid().is_some()),
        lang,
    );
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
    let right = line(
        ui,
        &right_text,
        FontId::proportional(12.0),
        cx.palette.muted,
        120.0,
    );
    let right_width = right.size().x;
    ui.painter().galley(
        pos2(inner.right() - right_width, bottom - right.size().y / 2.0),
        right,
        cx.palette.muted,
    );
    // A partly paid link: a thin paid / remaining bar along the row's foot.
    if let Some((paid, total)) = row.part_paid() {
        let bar = Rect::from_min_size(
            pos2(inner.left(), rect.bottom() - 4.0),
            Vec2::new(inner.width(), 4.0),
        );
        paint_bar(ui, &cx.palette, bar, paid, total);
    }
    [change, None]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_in_the_apps_language() {
        let cases = [
            (Span::Seconds(45), "45 s", "45 sn"),
            (Span::Minutes(12), "12 min", "12 dk"),
            (Span::HoursMinutes(3, 5), "3 h 5 min", "3 sa 5 dk"),
            (Span::HoursMinutes(2, 0), "2 h", "2 sa"),
            (Span::DaysHours(2, 4), "2 d 4 h", "2 gün 4 sa"),
        ];
        for (span, en, tr) in cases {
            assert_eq!(span_text(span, Lang::En), en);
            assert_eq!(span_text(span, Lang::Tr), tr);
        }
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        assert_eq!(
            age_text(now - chrono::TimeDelta::seconds(20), now, Lang::Tr),
            "az önce"
        );
    }

    #[test]
    fn a_pending_link_past_its_expiry_reads_expired() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let mut link = Link::from(
            serde_json::from_value::<crate::api::wire::PaymentLink>(
                serde_json::json!({"id": "l", "status": "PENDING"}),
            )
            .unwrap(),
        );
        link.expiry = Some(now - chrono::TimeDelta::seconds(1));
        let mut row = BoardRow {
            link,
            created_at: now,
            cancelled: false,
            staff: None,
        };
        assert_eq!(row.status(now), LinkStatus::Expired);
        assert_eq!(countdown_text(&row, now, Lang::En).0, "Expired");
        assert!(row_label(&row, now, Lang::En).ends_with("Expired"));
        // Cancelled through paydesk: the server says EXPIRED, the board says what happened.
        row.cancelled = true;
        assert!(row_label(&row, now, Lang::En).ends_with("Cancelled"));
        assert!(row_label(&row, now, Lang::Tr).ends_with("İptal edildi"));
    }

    #[test]
    fn an_open_link_with_money_on_it_reads_partially_paid_as_in_history() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let link = Link::from(
            serde_json::from_value::<crate::api::wire::PaymentLink>(serde_json::json!({
                "id": "l", "status": "PENDING", "amount": "450.00", "paidAmount": "200.00",
                "currency": "TRY"
            }))
            .unwrap(),
        );
        let mut row = BoardRow {
            link,
            created_at: now,
            cancelled: false,
            staff: None,
        };
        assert!(row_label(&row, now, Lang::En).ends_with("Partially paid"));
        // Who made it follows the order number.
        row.staff = Some("Ayşe".into());
        assert!(row_label(&row, now, Lang::En).starts_with("l · Ayşe "));
    }
}
