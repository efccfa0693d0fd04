//! The one table of paydesk (issue 29): the board, History, Unsent, Audit, Staff, Catalog,
//! Installments and Day close draw their lists with it, so every list reads the same way.
//!
//! - One header row, its titles small and muted, each over its column (money right-aligned,
//!   over right-aligned figures).
//! - Columns as wide as their content: the caller hands each column its title and the few
//!   texts that decide its width (the widest it keeps with its rows, never a scan of every
//!   row in a frame); one column (the description) takes the room left. A column nothing
//!   fills is not added: no width is kept for something hidden.
//! - The description first with the order number under it ([`Row::name`]).
//! - Pills with room inside the row ([`Row::pill`]: a row is a pill and [`theme::SPACE_S`]
//!   above and below it), so the pills of two rows never touch.
//! - Text that does not fit ends in "…" and the row's tooltip, under the pointer, shows the
//!   whole value ([`Row::finish`]).
//!
//! Two ways of drawing rows share the columns: painted rows ([`Table::rows_ui`], and
//! [`Row`] for a view that lays out its own list, like the board's groups), where a row is
//! one clickable element read once by a screen reader and only the visible rows of a long
//! list are laid out; and rows of widgets ([`Table::widget_rows_ui`]) for the short tables
//! whose cells hold buttons or fields (Staff, Unsent).

use std::ops::Range;
use std::sync::Arc;

use egui::text::{LayoutJob, TextWrapping};
use egui::{Color32, FontId, Galley, Rect, Response, Sense, TextFormat, TextStyle, Ui, pos2, vec2};

use crate::ui::theme::{self, Badge};

/// Height of a painted row that shows two lines (the description over the order number).
pub const TWO_LINE_ROW: f32 = 44.0;

/// How a column's content lines up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text: from the left edge.
    Left,
    /// Numbers and money: on their last digit.
    Right,
}

impl Align {
    fn egui(self) -> egui::Align {
        match self {
            Align::Left => egui::Align::Min,
            Align::Right => egui::Align::Max,
        }
    }
}

/// One column: its title, how its content lines up, and where it sits once placed.
#[derive(Debug, Clone)]
struct Column {
    title: String,
    align: Align,
    /// The content's width (the title's when wider).
    width: f32,
    /// Takes the room the others leave.
    fill: bool,
    /// The least width of a fill column on a narrow window.
    least: f32,
    /// Its left edge, once placed.
    left: f32,
}

/// The columns of one table, measured from their titles and content, placed in the width a
/// view has.
#[derive(Debug, Clone, Default)]
pub struct Table {
    columns: Vec<Column>,
    /// Rows are read, not opened: no click, and read as rows, not buttons.
    read_only: bool,
    /// The least height of a row of widgets (a field and a button beside text).
    row_floor: f32,
}

/// The space between two columns.
const GAP: f32 = theme::SPACE_M;

/// The least width of a fill column when the window is too narrow for its wish.
const FILL_LEAST: f32 = 4.0 * theme::SPACE_L;

/// The width of `text` in `font`.
fn width_of(ui: &Ui, text: &str, font: FontId) -> f32 {
    if text.is_empty() {
        return 0.0;
    }
    ui.fonts_mut(|f| {
        f.layout_no_wrap(text.to_owned(), font, Color32::PLACEHOLDER)
            .size()
            .x
    })
}

/// The font of a table's titles and secondary lines (the order number, ages).
pub fn small_font(ui: &Ui) -> FontId {
    TextStyle::Small.resolve(ui.style())
}

/// The font of a table's text.
pub fn body_font(ui: &Ui) -> FontId {
    TextStyle::Body.resolve(ui.style())
}

/// The font of a pill's words.
fn pill_font(ui: &Ui) -> FontId {
    let mut font = TextStyle::Body.resolve(ui.style());
    font.family = egui::FontFamily::Proportional;
    font
}

/// The width a pill of `text` takes.
pub fn pill_width(ui: &Ui, text: &str) -> f32 {
    width_of(ui, text, pill_font(ui)) + theme::PILL_MARGIN.sum().x
}

/// The height of a pill, and of a one-line painted row (a pill with room above and below).
pub fn pill_height(ui: &Ui) -> f32 {
    ui.fonts_mut(|f| f.row_height(&pill_font(ui))) + theme::PILL_MARGIN.sum().y
}

/// The height of a one-line row: a pill with [`theme::SPACE_S`] above and below.
pub fn one_line_row(ui: &Ui) -> f32 {
    pill_height(ui) + 2.0 * theme::SPACE_S
}

impl Table {
    /// A table with no columns yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(&mut self, ui: &Ui, title: &str, align: Align, width: f32, fill: bool) {
        let title_width = width_of(ui, title, small_font(ui));
        self.columns.push(Column {
            title: title.to_owned(),
            align,
            width: width.max(title_width),
            fill,
            least: title_width.max(FILL_LEAST),
            left: 0.0,
        });
    }

    /// A column of text as wide as the widest of its title and `samples` (in the body font).
    #[must_use]
    pub fn column<'s>(
        mut self,
        ui: &Ui,
        title: &str,
        align: Align,
        samples: impl IntoIterator<Item = &'s str>,
    ) -> Self {
        let font = body_font(ui);
        let width = samples
            .into_iter()
            .map(|s| width_of(ui, s, font.clone()))
            .fold(0.0, f32::max);
        self.push(ui, title, align, width, false);
        self
    }

    /// A column of pills as wide as the widest pill of `samples`.
    #[must_use]
    pub fn pill_column<'s>(
        mut self,
        ui: &Ui,
        title: &str,
        samples: impl IntoIterator<Item = &'s str>,
    ) -> Self {
        let width = samples
            .into_iter()
            .map(|s| pill_width(ui, s))
            .fold(0.0, f32::max);
        self.push(ui, title, Align::Left, width, false);
        self
    }

    /// A column of a set content `width` (a bar, buttons), or its title's when wider.
    #[must_use]
    pub fn fixed(mut self, ui: &Ui, title: &str, align: Align, width: f32) -> Self {
        self.push(ui, title, align, width, false);
        self
    }

    /// The column that takes the room the others leave (the description), at least `min`.
    #[must_use]
    pub fn fill(mut self, ui: &Ui, title: &str, min: f32) -> Self {
        self.push(ui, title, Align::Left, min, true);
        self
    }

    /// Rows of widgets at least `height` high (before the gap), so the text of a row sits on
    /// the centre line of the fields and buttons beside it.
    #[must_use]
    pub fn rows_at_least(mut self, height: f32) -> Self {
        self.row_floor = height;
        self
    }

    /// Rows that are read, not opened (the Audit's): they take no click.
    #[must_use]
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// How many columns it has.
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    /// Whether it has no column.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The width of every column and the gaps between them (once placed, as placed).
    pub fn content_width(&self) -> f32 {
        let widths: f32 = self.columns.iter().map(|c| c.width).sum();
        let gaps: f32 = self.columns.iter().skip(1).map(|_| GAP).sum();
        widths + gaps + 2.0 * theme::SPACE_S
    }

    /// Places the columns in `rect` (a row's or the header's): left to right, the fill
    /// column given what is left over.
    fn place(&mut self, rect: Rect) {
        // A narrow window takes from the fill column first (down to its title's width, or
        // a few characters), so the other columns stay whole.
        let spare = rect.width() - self.content_width();
        let mut x = rect.left() + theme::SPACE_S;
        for c in &mut self.columns {
            c.left = x;
            if c.fill {
                c.width = (c.width + spare).max(c.least);
            }
            x += c.width + GAP;
        }
    }

    /// Column `i`'s part of `row`.
    pub fn cell(&self, i: usize, row: Rect) -> Rect {
        let c = &self.columns[i];
        Rect::from_x_y_ranges(c.left..=c.left + c.width, row.y_range())
    }

    /// The header row: allocated as wide as the view, the titles painted over their columns;
    /// places the columns in that width.
    pub fn header_ui(&mut self, ui: &mut Ui) {
        let height = ui.spacing().interact_size.y;
        let width = ui.available_width();
        let (rect, _) = ui.allocate_exact_size(vec2(width, height), Sense::hover());
        self.place(rect);
        let font = small_font(ui);
        let muted = ui.visuals().weak_text_color();
        for i in 0..self.columns.len() {
            let cell = self.cell(i, rect);
            let c = &self.columns[i];
            let galley = line(ui, &c.title, font.clone(), muted, cell.width());
            let x = match c.align {
                Align::Left => cell.left(),
                Align::Right => cell.right() - galley.size().x,
            };
            let y = rect.bottom() - galley.size().y - theme::SPACE_XS;
            ui.painter().galley(pos2(x, y), galley, muted);
            // The title is painted; assistive technologies (and tests) read it as the
            // column's header.
            if !c.title.is_empty() {
                let title = c.title.clone();
                let id = ui.scope_id().with(("table-header", i));
                let response = ui.interact(cell, id, Sense::hover());
                response.widget_info(|| {
                    egui::WidgetInfo::labeled(egui::Role::ColumnHeader, true, &title)
                });
            }
        }
        // Under the columns only: a table without a column that takes the room left ends
        // where its last column does, and so does its line.
        let end = match self.columns.len() {
            0 => rect.right(),
            _ if self.columns.iter().any(|c| c.fill) => rect.right(),
            n => (self.cell(n - 1, rect).right() + theme::SPACE_S).min(rect.right()),
        };
        ui.painter().hline(
            rect.left()..=end,
            rect.bottom(),
            ui.visuals().widgets.noninteractive.bg_stroke,
        );
    }

    /// Painted rows under the header, `height` points each, `count` of them: only the
    /// visible ones are laid out. `draw` paints row `i` and returns its accessible label
    /// (the whole line, so a screen reader reads a row once). Returns the row clicked and the
    /// rows on screen; `menu` adds a row's right-click menu.
    pub fn rows_ui(
        &self,
        ui: &mut Ui,
        id_salt: &str,
        (height, count): (f32, usize),
        mut draw: impl FnMut(&mut Row<'_>, usize) -> String,
        mut menu: impl FnMut(&Response, usize),
    ) -> (Option<usize>, Range<usize>) {
        let mut picked = None;
        let mut visible = 0..0;
        egui::ScrollArea::vertical()
            .id_salt(id_salt)
            .auto_shrink([false, false])
            .show_rows(ui, height, count, |ui, range| {
                visible = range.clone();
                let sense = if self.read_only {
                    Sense::hover()
                } else {
                    Sense::click()
                };
                for i in range {
                    let (rect, response) = ui.allocate_exact_size(
                        vec2(ui.available_width().max(self.content_width()), height),
                        sense,
                    );
                    let frame_at = ui.painter().add(egui::Shape::Noop);
                    let mut row = Row::new(ui, self, rect);
                    let label = draw(&mut row, i);
                    if self.read_only {
                        response.widget_info(|| {
                            egui::WidgetInfo::labeled(egui::Role::Row, true, &label)
                        });
                        if i % 2 == 1 {
                            let stripe = ui.visuals().faint_bg_color;
                            let shape =
                                egui::Shape::rect_filled(rect, theme::CORNER_RADIUS, stripe);
                            ui.painter().set(frame_at, shape);
                        }
                    } else {
                        row_frame(ui, (rect, frame_at), &response, &label, i % 2 == 1);
                    }
                    row.finish(&response);
                    if response.clicked() {
                        picked = Some(i);
                    }
                    menu(&response, i);
                }
            });
        (picked, visible)
    }

    /// Rows of widgets under a header (for short tables whose cells hold buttons or fields):
    /// `add` is called with a [`WidgetRows`] that lays out each row's cells in the columns.
    pub fn widget_rows_ui(
        &mut self,
        ui: &mut Ui,
        id_salt: impl std::hash::Hash + std::fmt::Debug,
        add: impl FnOnce(&mut WidgetRows<'_>),
    ) {
        self.header_ui(ui);
        let row_height = ui
            .spacing()
            .interact_size
            .y
            .max(pill_height(ui))
            .max(self.row_floor)
            + theme::SPACE_XS;
        egui::Grid::new(id_salt)
            .striped(true)
            .num_columns(self.columns.len())
            .spacing(vec2(GAP, theme::SPACE_XS))
            .min_col_width(0.0)
            .min_row_height(row_height)
            .show(ui, |ui| {
                // The grid starts at the header's left edge; the first cell gives back the
                // row's inner margin.
                let mut rows = WidgetRows {
                    ui,
                    table: self,
                    next: 0,
                    height: row_height,
                };
                add(&mut rows);
            });
    }
}

/// The rows of a widget table being laid out: one [`WidgetRows::cell`] per column, then
/// [`WidgetRows::end_row`].
pub struct WidgetRows<'a> {
    ui: &'a mut Ui,
    table: &'a Table,
    next: usize,
    height: f32,
}

impl std::fmt::Debug for WidgetRows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WidgetRows")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl WidgetRows<'_> {
    /// The next cell of the row, as wide as its column, its content aligned as the column.
    pub fn cell(&mut self, add: impl FnOnce(&mut Ui)) {
        let Some(c) = self.table.columns.get(self.next) else {
            return;
        };
        let mut width = c.width;
        if self.next == 0 {
            width += theme::SPACE_S;
        }
        let align = c.align.egui();
        self.next += 1;
        crate::ui::widgets::cell_ui(self.ui, vec2(width, self.height), align, |ui| {
            if self.next == 1 {
                ui.add_space(theme::SPACE_S);
            }
            add(ui);
        });
    }

    /// A cell of text that ends in "…" with the whole value on hover when it does not fit.
    pub fn text(&mut self, text: impl Into<egui::WidgetText>) {
        let text = text.into();
        self.cell(|ui| {
            ui.add(egui::Label::new(text).truncate());
        });
    }

    /// A cell holding a pill.
    pub fn pill(&mut self, text: &str, badge: Badge) {
        self.cell(|ui| {
            crate::ui::widgets::badge_ui(ui, text, badge);
        });
    }

    /// Ends the row (cells not given stay empty).
    pub fn end_row(&mut self) {
        while self.next < self.table.columns.len() {
            self.cell(|_| {});
        }
        self.ui.end_row();
        self.next = 0;
    }
}

/// A row's stripe (every other row), its accessible label and its hover or focus frame,
/// painted under the row's cells at `frame_at`.
pub fn row_frame(
    ui: &Ui,
    (rect, frame_at): (Rect, egui::layers::ShapeIdx),
    response: &Response,
    label: &str,
    striped: bool,
) {
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, label));
    let radius = theme::CORNER_RADIUS;
    let hovered = response.hovered() || response.has_focus();
    let fill = if hovered {
        ui.visuals().widgets.hovered.weak_bg_fill
    } else if striped {
        ui.visuals().faint_bg_color
    } else {
        return;
    };
    ui.painter()
        .set(frame_at, egui::Shape::rect_filled(rect, radius, fill));
    if hovered {
        ui.painter().rect_stroke(
            rect,
            radius,
            ui.visuals().widgets.hovered.bg_stroke,
            egui::StrokeKind::Inside,
        );
    }
}

/// Lays out `text` on one line, cut with "…" at `width`.
pub fn line(ui: &Ui, text: &str, font: FontId, color: Color32, width: f32) -> Arc<Galley> {
    let mut job = LayoutJob::single_section(text.to_owned(), TextFormat::simple(font, color));
    job.wrap = TextWrapping::truncate_at_width(width.max(theme::SPACE_M));
    ui.painter().layout_job(job)
}

/// One painted row: its cells are painted into the table's columns; what was cut is shown
/// whole in the row's tooltip ([`Row::finish`]).
pub struct Row<'a> {
    ui: &'a Ui,
    table: &'a Table,
    /// The row's rectangle.
    pub rect: Rect,
    /// The cells cut short, and their whole text.
    cut: Vec<(Rect, String)>,
    /// The cells with a hover text of their own.
    hover: Vec<(Rect, String)>,
}

impl std::fmt::Debug for Row<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Row")
            .field("rect", &self.rect)
            .finish_non_exhaustive()
    }
}

impl<'a> Row<'a> {
    /// A row in `rect` (allocated by the caller) of `table`.
    pub fn new(ui: &'a Ui, table: &'a Table, rect: Rect) -> Self {
        Self {
            ui,
            table,
            rect,
            cut: Vec::new(),
            hover: Vec::new(),
        }
    }

    /// The `Ui` the row is painted in.
    pub fn ui(&self) -> &'a Ui {
        self.ui
    }

    /// The text colour.
    pub fn text_color(&self) -> Color32 {
        self.ui.visuals().text_color()
    }

    /// The colour of what stands out (the description, the amount).
    pub fn strong_color(&self) -> Color32 {
        self.ui.visuals().strong_text_color()
    }

    /// The body font.
    pub fn body_font(&self) -> FontId {
        body_font(self.ui)
    }

    /// The small font (secondary lines).
    pub fn small_font(&self) -> FontId {
        small_font(self.ui)
    }

    /// The height of a line in `font`.
    pub fn row_height(&self, font: &FontId) -> f32 {
        self.ui.fonts_mut(|f| f.row_height(font))
    }

    /// Column `i`'s part of the row.
    pub fn cell(&self, i: usize) -> Rect {
        self.table.cell(i, self.rect)
    }

    /// Paints `text` in `font` and `color` on one line of `cell`, centred on `y` and aligned
    /// as `align`; cut with "…" (whole in the tooltip) when it does not fit.
    pub fn paint(
        &mut self,
        cell: Rect,
        y: f32,
        text: &str,
        (font, color): (FontId, Color32),
        align: Align,
    ) {
        if text.is_empty() {
            return;
        }
        let galley = line(self.ui, text, font, color, cell.width());
        let size = galley.size();
        let x = match align {
            Align::Left => cell.left(),
            Align::Right => cell.right() - size.x,
        };
        let at = pos2(x, y - size.y / 2.0);
        if galley.elided {
            self.cut
                .push((Rect::from_min_size(at, size), text.to_owned()));
        }
        self.ui.painter().galley(at, galley, color);
    }

    /// Column `i`'s text, in the body font and text colour, centred in the row.
    pub fn text(&mut self, i: usize, text: &str) {
        let color = self.ui.visuals().text_color();
        self.styled(i, text, (body_font(self.ui), color));
    }

    /// Column `i`'s text in a font and colour of its own (an age in the muted colour).
    pub fn styled(&mut self, i: usize, text: &str, style: (FontId, Color32)) {
        let cell = self.cell(i);
        let align = self.table.columns[i].align;
        self.paint(cell, self.rect.center().y, text, style, align);
    }

    /// The description over the order number (smaller, muted) in column `i`: how staff know
    /// a sale first ("Table 12"), the number under it. Without a description the order
    /// number stands alone, in the text colour.
    pub fn name(&mut self, i: usize, description: &str, order: &str, order_color: Color32) {
        let cell = self.cell(i);
        let order_font = FontId::monospace(theme::SMALL_SIZE);
        if description.is_empty() {
            let text = self.ui.visuals().text_color();
            self.paint(
                cell,
                self.rect.center().y,
                order,
                (order_font, text),
                Align::Left,
            );
            return;
        }
        let strong = self.ui.visuals().strong_text_color();
        let body = body_font(self.ui);
        let top_height = self.ui.fonts_mut(|f| f.row_height(&body));
        let bottom_height = self.ui.fonts_mut(|f| f.row_height(&order_font));
        let top = self.rect.center().y - f32::midpoint(top_height, bottom_height);
        self.paint(
            cell,
            top + top_height / 2.0,
            description,
            (body, strong),
            Align::Left,
        );
        self.paint(
            cell,
            top + top_height + bottom_height / 2.0,
            order,
            (order_font, order_color),
            Align::Left,
        );
    }

    /// A pill of `text` in column `i`, centred on the row's middle; returns its right edge.
    pub fn pill(&mut self, i: usize, text: &str, badge: Badge) -> f32 {
        let cell = self.cell(i);
        self.pill_at(
            cell.left(),
            self.rect.center().y,
            (text, cell.width()),
            badge,
        )
    }

    /// A pill of `text` from `left`, centred on `y`, at most `max` wide; returns its right
    /// edge.
    pub fn pill_at(&mut self, left: f32, y: f32, (text, max): (&str, f32), badge: Badge) -> f32 {
        let margin = theme::PILL_MARGIN;
        let galley = line(
            self.ui,
            text,
            pill_font(self.ui),
            badge.text,
            max - margin.sum().x,
        );
        let size = galley.size() + margin.sum();
        let rect = Rect::from_min_size(pos2(left, y - size.y / 2.0), size);
        if galley.elided {
            self.cut.push((rect, text.to_owned()));
        }
        let painter = self.ui.painter();
        painter.rect_filled(rect, theme::PILL_RADIUS, badge.fill);
        painter.galley(
            rect.min + vec2(margin.leftf(), margin.topf()),
            galley,
            badge.text,
        );
        rect.right()
    }

    /// Column `i`'s hover text (a value's raw form, kept off the row), shown under the
    /// pointer when nothing there was cut.
    pub fn hover(&mut self, i: usize, text: &str) {
        let cell = self.cell(i);
        self.hover.push((cell, text.to_owned()));
    }

    /// The row is painted: under the pointer, a cell that was cut shows its whole text.
    pub fn finish(self, response: &Response) {
        let Some(pointer) = response.hover_pos() else {
            return;
        };
        let under = |list: &[(Rect, String)]| {
            list.iter()
                .find(|(r, _)| r.contains(pointer))
                .map(|(_, t)| t.clone())
        };
        if let Some(text) = under(&self.cut).or_else(|| under(&self.hover)) {
            response.clone().on_hover_text_at_pointer(text);
        }
    }
}

/// The summary strip over a table (a count and the totals of what is shown): its `parts`
/// in one line of body text, a dot between them (one label, read at once).
pub fn summary_ui(ui: &mut Ui, parts: &[String]) {
    if parts.is_empty() {
        return;
    }
    ui.add_space(theme::SPACE_XS);
    let strong = ui.visuals().strong_text_color();
    ui.add(egui::Label::new(egui::RichText::new(parts.join("  ·  ")).color(strong)).wrap());
    ui.add_space(theme::SPACE_XS);
}

/// The longest of some texts by characters: what a column keeps to be measured by, updated
/// as rows arrive (never by a scan of every row in a frame).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Widest(String);

impl Widest {
    /// Keeps `text` when it is longer than the longest so far.
    pub fn see(&mut self, text: &str) {
        if text.chars().count() > self.0.chars().count() {
            text.clone_into(&mut self.0);
        }
    }

    /// The longest text seen.
    pub fn get(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widest_keeps_the_longest_text_seen() {
        let mut w = Widest::default();
        for t in ["₺5,00", "₺1.250,00", "₺12,00"] {
            w.see(t);
        }
        assert_eq!(w.get(), "₺1.250,00");
    }

    #[test]
    fn the_fill_column_takes_the_room_left_and_the_others_their_content() {
        let ctx = egui::Context::default();
        let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
            let mut table = Table::new()
                .fill(ui, "Description", 100.0)
                .column(ui, "Amount", Align::Right, ["₺1.250,00"])
                .pill_column(ui, "Status", ["Ödeme bekliyor"]);
            let content = table.content_width();
            let rect = Rect::from_min_size(pos2(0.0, 0.0), vec2(content + 300.0, 40.0));
            table.place(rect);
            assert!((table.cell(0, rect).width() - 400.0).abs() < 0.5);
            let amount = table.cell(1, rect);
            assert!(amount.width() >= width_of(ui, "₺1.250,00", body_font(ui)));
            assert!(table.cell(2, rect).right() <= rect.right());
            // A window too narrow: the fill column gives way, down to its least width.
            let narrow = Rect::from_min_size(pos2(0.0, 0.0), vec2(content - 200.0, 40.0));
            let mut table = Table::new().fill(ui, "Description", 100.0).column(
                ui,
                "Amount",
                Align::Right,
                ["₺1.250,00"],
            );
            table.place(narrow);
            assert!((table.cell(0, narrow).width() - FILL_LEAST).abs() < 0.5);
        });
        output.textures_delta.clear();
    }
}
