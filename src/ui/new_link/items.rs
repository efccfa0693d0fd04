//! The item table of New link and the sale lines: the one header row and a row per item
//! (free rows and catalog rows, add / duplicate / move / remove, Enter adds a row below),
//! only the rows near the visible part laid out; the catalog picker; and the lines "This sale"
//! lists, with whether the items add up to the amount and the one-click fix.

use std::fmt::Write as _;

use egui::{Key, Response, RichText, Ui};
use rust_decimal::Decimal;

use crate::domain::link::LinkFigures;
use crate::domain::{
    CatalogLookup, CatalogVariant, Field, FieldErrors, FieldProblem, ItemDraft, ItemField,
    ItemKind, format_amount,
};
use crate::lang::Lang;
use crate::ui::ViewCtx;
use crate::ui::text::UiText;
use crate::ui::{theme, widgets};

use super::NewLinkForm;

/// The tallest the catalog picker's list grows before it scrolls.
pub const PICKER_HEIGHT: f32 = 180.0;

impl NewLinkForm {
    /// Whether a catalog row has no line total (its price is not in the local catalog).
    fn catalog_price_missing(&self, figures: &LinkFigures) -> bool {
        self.draft.items.iter().enumerate().any(|(row, item)| {
            matches!(item.kind, ItemKind::Catalog { .. })
                && figures.line_totals.get(row).copied().flatten().is_none()
        })
    }

    /// The rows something was typed in or picked for (a row Enter just added is none yet).
    pub(super) fn typed_lines(&self) -> Vec<usize> {
        self.draft
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| is_typed(i))
            .map(|(row, _)| row)
            .collect()
    }

    /// One line per item of `rows`: "2 × Simit" and its line total, right-aligned.
    pub(super) fn sale_lines_ui(
        &self,
        ui: &mut Ui,
        cx: &ViewCtx<'_>,
        figures: &LinkFigures,
        rows: &[usize],
    ) {
        let lang = cx.lang;
        let currency = self.draft.currency;
        for &row in rows {
            let item = &self.draft.items[row];
            let Some(name) = line_name(item, cx) else {
                continue;
            };
            let total = figures.line_totals.get(row).copied().flatten();
            ui.horizontal(|ui| {
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(
                        total.map_or_else(|| "–".to_owned(), |t| format_amount(t, currency, lang)),
                    );
                    ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                        let qty = item.quantity.trim();
                        let text = if name.is_empty() {
                            format!("{qty} ×")
                        } else {
                            format!("{qty} × {name}")
                        };
                        ui.add(egui::Label::new(text).truncate());
                    });
                });
            });
        }
    }

    /// What "This sale" says of the items: nothing to add while the amount is their total;
    /// when a row's price is not known here (the server prices it), that the total is
    /// unknown; when the amount typed differs from them, by how much.
    pub(super) fn items_state_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>, figures: &LinkFigures) {
        let lang = cx.lang;
        let currency = self.draft.currency;
        if !self.draft.items.iter().any(is_typed) {
            widgets::hint_ui(ui, &cx.palette, UiText::SaleNoItems.get(lang));
            return;
        }
        if figures.totals_match {
            return;
        }
        if let Some(diff) = figures.difference {
            let words = if diff.is_sign_negative() {
                UiText::ItemsUnder
            } else {
                UiText::ItemsOver
            };
            let diff = format_amount(diff.abs(), currency, lang);
            ui.label(RichText::new(words.fill(lang, &[("diff", &diff)])).color(cx.palette.error));
        } else if figures.items_total.is_none() && self.catalog_price_missing(figures) {
            // (A typed row without its price is said under its field, not here.)
            widgets::hint_ui(ui, &cx.palette, UiText::TotalUnknown.get(lang));
        }
    }

    pub(super) fn items_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        figures: &LinkFigures,
        errors: &FieldErrors,
        line_totals: bool,
    ) {
        let lang = cx.lang;
        self.scan_ui(ui, cx);
        let mut action: Option<RowAction> = None;
        let rows = self.draft.items.len();
        let cols = Columns::measure(ui, line_totals);
        if rows > 0 {
            row_frame(ui, 0).show(ui, |ui| header_ui(ui, cols, lang));
        }
        // Only rows near the visible part are laid out; the others take their last measured
        // height, so a long cart (hundreds of rows) costs no more per frame than a short one.
        self.row_heights.resize(rows, 0.0);
        let visible = ui.clip_rect().expand(ROWS_AHEAD);
        for row in 0..rows {
            let top = ui.cursor().top();
            let height = self.row_heights[row];
            if height > 0.0
                && self.focus_row != Some(row)
                && (top > visible.bottom() || top + height < visible.top())
            {
                ui.allocate_space(egui::vec2(ui.available_width(), height));
                continue;
            }
            let line_total = figures.line_totals.get(row).copied().flatten();
            // Striped rows: every second one on the faint background.
            let framed = row_frame(ui, row + 1).show(ui, |ui| {
                ui.horizontal_top(|ui| {
                    if let Some(a) = self.row_ui(ui, cx, row, cols, line_total, errors) {
                        action = Some(a);
                    }
                });
            });
            self.row_heights[row] = framed.response.rect.height();
        }
        if let Some(a) = action {
            self.apply(a);
        }

        ui.scope(|ui| {
            // Add item and the catalog's toggle at touch height.
            ui.spacing_mut().interact_size.y = theme::TOUCH_HEIGHT;
            ui.horizontal(|ui| {
                if widgets::Action::secondary(UiText::AddFreeItem.get(lang))
                    .icon(ICON_ADD_ROW)
                    .show_ui(ui)
                    .clicked()
                {
                    self.add_free_row(self.draft.items.len());
                }
                widgets::toggle_button_ui(
                    ui,
                    &mut self.picker_open,
                    UiText::AddCatalogItem.get(lang),
                );
            });
        });
        if self.picker_open {
            self.picker_ui(ui, cx);
        }

        // What is wrong with the list as a whole, under it ("This sale" says whether the items
        // add up).
        Self::field_errors_always_ui(ui, cx, errors, Field::Items);
    }

    /// Errors of the whole item list are shown as soon as there are items (they are about
    /// the rows, which the user sees).
    fn field_errors_always_ui(ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors, field: Field) {
        let lines: Vec<String> = errors
            .for_field(&field)
            // "This sale" says in words whether the items add up: not again here.
            .filter(|e| !matches!(e.problem, FieldProblem::TotalMismatch { .. }))
            .map(|e| e.problem.message(cx.lang))
            .collect();
        widgets::error_lines_ui(ui, &cx.palette, lines.iter().map(String::as_str));
    }

    /// The error lines of one item field, once the field was left.
    fn item_errors(
        &self,
        lang: Lang,
        errors: &FieldErrors,
        row: usize,
        field: ItemField,
    ) -> Vec<String> {
        self.touched
            .lines(errors, &Field::Item { row, field }, lang)
    }

    /// One row of the item table, in the header's columns: item, quantity, unit price, line
    /// total, note, then the row's buttons. Tab follows that order (the order the fields are
    /// laid out). Each field is named with its row ("Quantity, row 2") for screen readers and
    /// tests, since the header above names the column only once. A field's errors sit under it.
    // Long on purpose: one item row's widgets, written in tab order.
    #[allow(clippy::too_many_lines)]
    fn row_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        row: usize,
        cols: Columns,
        line_total: Option<Decimal>,
        errors: &FieldErrors,
    ) -> Option<RowAction> {
        let lang = cx.lang;
        let currency = self.draft.currency;
        let n = row + 1;
        let named = |t: UiText| format!("{}, {} {n}", t.get(lang), UiText::RowWord.get(lang));
        let err = |f: ItemField| self.item_errors(lang, errors, row, f);
        let (variant_err, name_err, price_err, qty_err, note_err) = (
            err(ItemField::Variant),
            err(ItemField::Name),
            err(ItemField::UnitPrice),
            err(ItemField::Quantity),
            err(ItemField::Note),
        );
        let mut action = None;
        let focus_here = self.focus_row == Some(row);
        let mut qty_focus = self.qty_focus;
        let rows = self.draft.items.len();
        let item = &mut self.draft.items[row];
        let mut enter_pressed = false;
        // (field, changed, left): handed to the touched tracker once the row is drawn.
        let mut seen: Vec<(Field, bool, bool)> = Vec::new();
        let mut track = |ui: &Ui, r: &Response, field: ItemField| {
            enter_pressed |= entered(ui, r);
            seen.push((Field::Item { row, field }, r.changed(), r.lost_focus()));
        };
        let palette = &cx.palette;

        // Item: the name typed in, or the catalog item's name.
        cell_ui(ui, cols.item, egui::Align::Min, |ui| match &mut item.kind {
            ItemKind::Catalog { variant_id } => {
                label_at_field_height(ui);
                if let Some(v) = cx.catalog.variant(variant_id) {
                    ui.label(RichText::new(&v.name).strong());
                    if v.currency != currency {
                        widgets::badge_ui(
                            ui,
                            format!("{} ({})", UiText::OtherCurrency.get(lang), v.currency),
                            palette.status(&crate::domain::LinkStatus::Rejected),
                        );
                    }
                } else {
                    ui.label(variant_id.as_str());
                    widgets::hint_ui(ui, palette, UiText::UnknownVariant.get(lang));
                }
                widgets::error_lines_ui(ui, palette, variant_err.iter().map(String::as_str));
            }
            ItemKind::Free { name, .. } => {
                let r = ui
                    .add(
                        egui::TextEdit::singleline(name)
                            .desired_width(f32::INFINITY)
                            .min_size(egui::vec2(0.0, theme::TOUCH_HEIGHT))
                            .align(egui::Align2::LEFT_CENTER),
                    )
                    .accessible_name(named(UiText::ItemName));
                if focus_here {
                    r.request_focus();
                }
                track(ui, &r, ItemField::Name);
                widgets::error_lines_ui(ui, palette, name_err.iter().map(String::as_str));
            }
        });

        // Quantity: pre-filled 1 and selected when the field is entered, so typing replaces it.
        let qty_id = egui::Id::unique(("link-item-quantity", row));
        cell_ui(ui, cols.qty, egui::Align::Max, |ui| {
            // The focus may arrive before the field is drawn (a click, a screen reader) or while
            // it is drawn (Tab from the field before): select the text in either case.
            let select_all = |ui: &Ui, text: &str| {
                let mut state =
                    egui::text_edit::TextEditState::load(ui.ctx(), qty_id).unwrap_or_default();
                state
                    .cursor
                    .set_char_range(Some(egui::text::CCursorRange::select_all_str(text)));
                state.store(ui.ctx(), qty_id);
            };
            if ui.memory(|m| m.has_focus(qty_id)) && qty_focus != Some(row) {
                select_all(ui, &item.quantity);
                qty_focus = Some(row);
            }
            let mut step = None;
            let r = ui
                .with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                    if step_button_ui(ui, ICON_FEWER, &named(UiText::QtyFewer)).clicked() {
                        step = Some(-1);
                    }
                    let field = ui
                        .add(
                            egui::TextEdit::singleline(&mut item.quantity)
                                .id(qty_id)
                                .desired_width(cols.qty_field)
                                .min_size(egui::vec2(0.0, theme::TOUCH_HEIGHT))
                                .align(egui::Align2::RIGHT_CENTER)
                                .hint_text("1"),
                        )
                        .accessible_name(named(UiText::Quantity));
                    if step_button_ui(ui, ICON_MORE, &named(UiText::QtyMore)).clicked() {
                        step = Some(1);
                    }
                    field
                })
                .inner;
            if let Some(step) = step {
                item.quantity = step_quantity(&item.quantity, step);
            }
            if r.has_focus() {
                if qty_focus != Some(row) {
                    select_all(ui, &item.quantity);
                }
                qty_focus = Some(row);
            } else if qty_focus == Some(row) {
                qty_focus = None;
            }
            track(ui, &r, ItemField::Quantity);
            widgets::error_lines_ui(ui, palette, qty_err.iter().map(String::as_str));
        });

        // Unit price: typed in, or the catalog's.
        cell_ui(ui, cols.price, egui::Align::Max, |ui| {
            match &mut item.kind {
                ItemKind::Catalog { variant_id } => {
                    if let Some(v) = cx.catalog.variant(variant_id) {
                        label_at_field_height(ui);
                        ui.label(format_amount(v.unit_price, v.currency, lang));
                    }
                }
                ItemKind::Free { unit_price, .. } => {
                    let r = ui
                        .add(
                            egui::TextEdit::singleline(unit_price)
                                .desired_width(f32::INFINITY)
                                .min_size(egui::vec2(0.0, theme::TOUCH_HEIGHT))
                                .align(egui::Align2::RIGHT_CENTER),
                        )
                        .accessible_name(named(UiText::UnitPrice));
                    track(ui, &r, ItemField::UnitPrice);
                    widgets::error_lines_ui(ui, palette, price_err.iter().map(String::as_str));
                }
            }
        });

        if let Some(width) = cols.total {
            cell_ui(ui, width, egui::Align::Max, |ui| {
                label_at_field_height(ui);
                ui.label(
                    line_total.map_or_else(|| "–".to_owned(), |t| format_amount(t, currency, lang)),
                );
            });
        }

        // Note: typed-in items only (the API has none for catalog items).
        cell_ui(ui, cols.note, egui::Align::Min, |ui| {
            if let ItemKind::Free { note, .. } = &mut item.kind {
                let r = ui
                    .add(
                        egui::TextEdit::singleline(note)
                            .desired_width(f32::INFINITY)
                            .min_size(egui::vec2(0.0, theme::TOUCH_HEIGHT))
                            .align(egui::Align2::LEFT_CENTER),
                    )
                    .accessible_name(named(UiText::Note));
                track(ui, &r, ItemField::Note);
                widgets::error_lines_ui(ui, palette, note_err.iter().map(String::as_str));
            }
        });

        // The row's actions at touch height: the rarer ones (move, duplicate) in a menu, Remove
        // beside it.
        ui.horizontal(|ui| {
            let menu = egui::containers::menu::MenuButton::from_button(
                egui::Button::new(ICON_ROW_MENU.rich_text().size(theme::HEADING_SIZE))
                    .min_size(egui::vec2(theme::TOUCH_HEIGHT, theme::TOUCH_HEIGHT)),
            );
            let (r, _) = menu.ui(ui, |ui| {
                let entries = [
                    (named(UiText::MoveUp), row > 0, RowAction::Up(row)),
                    (
                        named(UiText::MoveDown),
                        row + 1 < rows,
                        RowAction::Down(row),
                    ),
                    (
                        format!("{} {n}", UiText::DuplicateRow.get(lang)),
                        true,
                        RowAction::Duplicate(row),
                    ),
                ];
                for (text, enabled, what) in entries {
                    if widgets::Action::quiet(&text)
                        .enabled(enabled)
                        .show_ui(ui)
                        .clicked()
                    {
                        action = Some(what);
                        ui.close();
                    }
                }
            });
            let label = named(UiText::RowActions);
            r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
            if icon_button_ui(
                ui,
                ICON_REMOVE_ROW,
                &format!("{} {n}", UiText::RemoveRow.get(lang)),
                true,
            )
            .clicked()
            {
                action = Some(RowAction::Remove(row));
            }
        });
        if focus_here {
            self.focus_row = None;
        }
        self.qty_focus = qty_focus;
        for (field, changed, left) in seen {
            self.touched.note(field, changed, left);
        }
        if enter_pressed && action.is_none() {
            action = Some(RowAction::AddAfter(row));
        }
        action
    }
    fn picker_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            // Each item a button a finger can press.
            ui.spacing_mut().interact_size.y = theme::TOUCH_HEIGHT;
            let l = ui.label(UiText::CatalogSearch.get(lang));
            ui.add(
                egui::TextEdit::singleline(&mut self.catalog_search)
                    .desired_width(theme::field_width_ui(ui, 30)),
            )
            .labelled_by(l.id);
            let typed = self.catalog_search.trim().to_owned();
            if !typed.is_empty()
                && cx.catalog.variant(&typed).is_none()
                && ui
                    .button(format!("{} {typed}", UiText::AddVariantId.get(lang)))
                    .clicked()
            {
                // A variant the local catalog does not know: the server prices it.
                self.draft.items.push(ItemDraft::catalog(typed, "1"));
            }
            if cx.catalog.is_empty() {
                widgets::hint_ui(ui, &cx.palette, UiText::CatalogEmpty.get(lang));
                return;
            }
            let needle = self.catalog_search.trim().to_lowercase();
            let mut matches: Vec<&CatalogVariant> = cx
                .catalog
                .values()
                .filter(|v| {
                    needle.is_empty()
                        || v.name.to_lowercase().contains(&needle)
                        || v.id.to_lowercase().contains(&needle)
                })
                .collect();
            matches.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
            if matches.is_empty() {
                widgets::hint_ui(ui, &cx.palette, UiText::CatalogNoMatch.get(lang));
            }
            let mut picked = None;
            egui::ScrollArea::vertical()
                .id_salt("catalog-picker")
                .max_height(PICKER_HEIGHT)
                .show(ui, |ui| {
                    for v in matches.iter().take(200) {
                        let mut text = format!(
                            "{} — {}",
                            v.name,
                            format_amount(v.unit_price, v.currency, lang)
                        );
                        if v.currency != self.draft.currency {
                            let _ = write!(text, "  ({})", UiText::OtherCurrency.get(lang));
                        }
                        if ui.button(text).clicked() {
                            picked = Some(v.id.clone());
                        }
                    }
                });
            if let Some(id) = picked {
                self.draft.items.push(ItemDraft::catalog(id, "1"));
            }
        });
    }

    fn add_free_row(&mut self, at: usize) {
        let at = at.min(self.draft.items.len());
        self.draft.items.insert(at, ItemDraft::free("", "", "1"));
        self.focus_row = Some(at);
    }

    fn apply(&mut self, action: RowAction) {
        // Rows move: measure them again.
        self.row_heights.clear();
        let items = &mut self.draft.items;
        match action {
            RowAction::Up(i) if i > 0 && i < items.len() => items.swap(i, i - 1),
            RowAction::Down(i) if i + 1 < items.len() => items.swap(i, i + 1),
            RowAction::Duplicate(i) if i < items.len() => {
                let copy = items[i].clone();
                items.insert(i + 1, copy);
            }
            RowAction::Remove(i) if i < items.len() => {
                items.remove(i);
                // Row-numbered errors now point at other rows: forget which rows were left.
                self.touched.retain(|f| !matches!(f, Field::Item { .. }));
            }
            RowAction::AddAfter(i) => self.add_free_row(i + 1),
            _ => {}
        }
    }
}

/// A change to the rows, applied after they are drawn.
#[derive(Debug, Clone, Copy)]
enum RowAction {
    Up(usize),
    Down(usize),
    Duplicate(usize),
    Remove(usize),
    AddAfter(usize),
}

/// The item table's column widths, measured from the body font (a digit's width) and the
/// width the table has, so the header and every row line up and fit beside "This sale".
#[derive(Debug, Clone, Copy)]
struct Columns {
    item: f32,
    /// The quantity cell: its − and + buttons and the field between them.
    qty: f32,
    /// The quantity field alone.
    qty_field: f32,
    price: f32,
    /// The line total, when "This sale" does not list it beside the table.
    total: Option<f32>,
    note: f32,
}

impl Columns {
    fn measure(ui: &Ui, line_totals: bool) -> Self {
        let digit = theme::digit_width_ui(ui, &egui::TextStyle::Body);
        let gap = ui.spacing().item_spacing.x;
        let qty_field = 4.0 * digit;
        let qty = qty_field + 2.0 * (theme::TOUCH_HEIGHT + gap);
        let price = 10.0 * digit;
        let total = line_totals.then_some(12.0 * digit);
        // The row's two buttons (its menu and Remove), square at touch height, and the gaps
        // between cells.
        let buttons = 2.0 * theme::TOUCH_HEIGHT + gap;
        let fixed = qty + price + total.unwrap_or_default() + buttons + 6.0 * gap;
        let free = (ui.available_width() - fixed - 2.0 * ROW_MARGIN).max(0.0);
        Columns {
            item: (free * 0.6).max(12.0 * digit),
            qty,
            qty_field,
            price,
            total,
            note: (free * 0.4).max(8.0 * digit),
        }
    }
}

/// How far outside the visible part item rows are still laid out (points).
const ROWS_AHEAD: f32 = 120.0;

/// The space around each row of the item table (points).
const ROW_MARGIN: f32 = 4.0;
/// The same, as the rows' frame takes it (a little less above and below).
const ROW_PADDING: egui::Margin = egui::Margin::symmetric(4, 2);

/// The frame of the header (`stripe` 0) and of each row (`stripe` = row number): every second
/// row on the faint background, all with the same margin so the columns line up.
fn row_frame(ui: &Ui, stripe: usize) -> egui::Frame {
    let frame = egui::Frame::NONE.inner_margin(ROW_PADDING);
    if stripe > 0 && stripe.is_multiple_of(2) {
        frame.fill(ui.visuals().faint_bg_color)
    } else {
        frame
    }
}

/// A table cell of `width`, its content aligned left (text) or right (numbers and money).
fn cell_ui<R>(ui: &mut Ui, width: f32, align: egui::Align, add: impl FnOnce(&mut Ui) -> R) -> R {
    ui.allocate_ui_with_layout(
        egui::vec2(width, 0.0),
        egui::Layout::top_down(align),
        |ui| {
            ui.set_width(width);
            add(ui)
        },
    )
    .inner
}

/// Space above a label in a row of touch-height fields, so its text sits on their middle line.
fn label_at_field_height(ui: &mut Ui) {
    let text = ui.text_style_height(&egui::TextStyle::Body);
    ui.add_space(((theme::TOUCH_HEIGHT - text) / 2.0).max(0.0));
}

/// The item table's one header row.
fn header_ui(ui: &mut Ui, cols: Columns, lang: Lang) {
    ui.horizontal_top(|ui| {
        let head = |t: UiText| RichText::new(t.get(lang)).strong();
        cell_ui(ui, cols.item, egui::Align::Min, |ui| {
            ui.label(head(UiText::ItemColumn))
        });
        cell_ui(ui, cols.qty, egui::Align::Max, |ui| {
            ui.label(head(UiText::QtyColumn))
        });
        cell_ui(ui, cols.price, egui::Align::Max, |ui| {
            ui.label(head(UiText::UnitPrice))
        });
        if let Some(total) = cols.total {
            cell_ui(ui, total, egui::Align::Max, |ui| {
                ui.label(head(UiText::LineTotal))
            });
        }
        cell_ui(ui, cols.note, egui::Align::Min, |ui| {
            ui.label(head(UiText::Note))
        });
    });
}

/// The name of an item's line in "This sale": the catalog's name, or the name typed; `None`
/// for a row nothing was typed in yet.
fn line_name(item: &ItemDraft, cx: &ViewCtx<'_>) -> Option<String> {
    if !is_typed(item) {
        return None;
    }
    match &item.kind {
        ItemKind::Catalog { variant_id } => Some(
            cx.catalog
                .variant(variant_id)
                .map_or_else(|| variant_id.clone(), |v| v.name.clone()),
        ),
        ItemKind::Free { name, .. } => Some(name.trim().to_owned()),
    }
}

/// Whether something was typed in or picked for the row (a row Enter just added is not).
pub(super) fn is_typed(item: &ItemDraft) -> bool {
    match &item.kind {
        ItemKind::Catalog { .. } => true,
        ItemKind::Free {
            name, unit_price, ..
        } => !name.trim().is_empty() || !unit_price.trim().is_empty(),
    }
}

/// Whether Enter was pressed in this single-line field (it loses focus on Enter).
fn entered(ui: &Ui, r: &Response) -> bool {
    r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter) && !i.modifiers.command)
}

/// Moves an item row up (a meaning the theme's icons do not have yet).
pub const ICON_MOVE_UP: theme::icon::Icon = egui_material_icons::icons::ICON_ARROW_UPWARD;
/// Moves an item row down.
pub const ICON_MOVE_DOWN: theme::icon::Icon = egui_material_icons::icons::ICON_ARROW_DOWNWARD;
/// Removes an item row.
pub const ICON_REMOVE_ROW: theme::icon::Icon = egui_material_icons::icons::ICON_DELETE;
/// Adds an item row.
pub const ICON_ADD_ROW: theme::icon::Icon = egui_material_icons::icons::ICON_ADD;

/// One less of an item.
pub const ICON_FEWER: theme::icon::Icon = egui_material_icons::icons::ICON_REMOVE;
/// One more of an item.
pub const ICON_MORE: theme::icon::Icon = egui_material_icons::icons::ICON_ADD;
/// A row's menu (move, duplicate).
pub const ICON_ROW_MENU: theme::icon::Icon = egui_material_icons::icons::ICON_MORE_VERT;

/// The quantity one `step` up or down from `typed`, never under 1; a quantity that cannot be
/// read becomes 1.
fn step_quantity(typed: &str, step: i64) -> String {
    let now = typed.trim().parse::<i64>().unwrap_or(1);
    (now + step).clamp(1, i64::from(u32::MAX)).to_string()
}

/// A quantity's − or + at touch height, for a finger or the mouse: not a Tab stop (the keyboard
/// types the quantity), named `label` for assistive technologies.
fn step_button_ui(ui: &mut Ui, icon: theme::icon::Icon, label: &str) -> Response {
    let r = ui
        .add(
            egui::Button::new(icon.rich_text().size(theme::HEADING_SIZE))
                .min_size(egui::vec2(theme::TOUCH_HEIGHT, theme::TOUCH_HEIGHT))
                .sense(egui::Sense::CLICK),
        )
        .on_hover_text(label);
    let text = label.to_owned();
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &text));
    r
}

/// A square framed button with an icon at touch height, whose accessible name and tooltip is
/// `label`.
fn icon_button_ui(ui: &mut Ui, icon: theme::icon::Icon, label: &str, enabled: bool) -> Response {
    let r = ui
        .add_enabled(
            enabled,
            egui::Button::new(icon.rich_text().size(theme::HEADING_SIZE))
                .min_size(egui::vec2(theme::TOUCH_HEIGHT, theme::TOUCH_HEIGHT)),
        )
        .on_hover_text(label);
    let text = label.to_owned();
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, &text));
    r
}
