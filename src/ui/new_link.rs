//! The New link form: the home view, where staff spend most of their day.
//!
//! Everything the server would refuse and the app can know is caught here, live: the amount,
//! the items adding up to it (with one click to take the items total), a catalog item in the
//! wrong currency, a past expiry, the installment counts, the key's limits. A field's errors
//! appear under it once the user has left it, and then follow every keystroke; Create stays
//! disabled and says why. The form holds text as typed ([`LinkDraft`]); the domain turns it
//! into the exact wire request, and the view only emits [`LinkCommand::Create`] with it.
//!
//! A barcode scanner that types like a keyboard (digits, then Enter) fills the scan field, the
//! first thing in the items area (F2 goes there): a known barcode adds its catalog item, or 1
//! to that item's row, from the catalog in memory; anything else is said next to the field,
//! which keeps the text selected and the focus, and nothing else changes.
//!
//! Once sent, the form stands for those exact bytes: its fields are read-only while the request
//! is out and for as long as the journal keeps the order pending (an unknown outcome). Create
//! then becomes "Send again", which re-sends the journal's row with the same key
//! ([`PendingCommand::Retry`]), and starting a new sale asks first, since the last one may
//! already have a link.

use std::fmt::Write as _;

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};

use crate::clock::Zone;
use egui::{Key, KeyboardShortcut, Modifiers, Response, RichText, Ui};
use rust_decimal::Decimal;

use crate::domain::link::{Check, CheckStatus, LinkContext, LinkFigures};
use crate::domain::{
    Barcode, BarcodeError, CatalogLookup, CatalogVariant, Currency, Field, FieldError, FieldErrors,
    FieldProblem, ItemDraft, ItemField, ItemKind, LinkDraft, format_amount,
};
use crate::lang::Lang;
use crate::store::{JournalRow, JournalState};
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::calendar;
use crate::ui::command::{LinkCommand, PendingCommand};
use crate::ui::text::UiText;
use crate::ui::{theme, widgets};

/// The expiry choices of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExpiryChoice {
    /// No expiry sent (the server's default applies).
    #[default]
    None,
    /// Now + the duration, computed when the request is built (never in the past).
    In(ExpiryPreset),
    /// A date and time typed by the user, in local time.
    Custom,
}

/// The expiry presets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpiryPreset {
    /// 15 minutes.
    Minutes15,
    /// One hour.
    Hour1,
    /// 24 hours.
    Hours24,
    /// Seven days.
    Days7,
}

impl ExpiryPreset {
    /// Every preset, in the order shown.
    pub const ALL: [ExpiryPreset; 4] = [
        ExpiryPreset::Minutes15,
        ExpiryPreset::Hour1,
        ExpiryPreset::Hours24,
        ExpiryPreset::Days7,
    ];

    /// How far ahead.
    pub fn duration(self) -> Duration {
        match self {
            ExpiryPreset::Minutes15 => Duration::minutes(15),
            ExpiryPreset::Hour1 => Duration::hours(1),
            ExpiryPreset::Hours24 => Duration::hours(24),
            ExpiryPreset::Days7 => Duration::days(7),
        }
    }

    fn label(self) -> UiText {
        match self {
            ExpiryPreset::Minutes15 => UiText::Expiry15Min,
            ExpiryPreset::Hour1 => UiText::Expiry1Hour,
            ExpiryPreset::Hours24 => UiText::Expiry24Hours,
            ExpiryPreset::Days7 => UiText::Expiry7Days,
        }
    }
}

/// What the server said about the last send, shown above the Create button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendNote {
    /// A refusal or error.
    Error(crate::ui::problem::Problem),
    /// The outcome is not known; the journal keeps the request.
    Unknown(crate::ui::problem::Problem),
    /// A request for this order is already out.
    AlreadyPending,
}

/// What the last scan did, shown next to the scan field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanNote {
    /// The item was added, or 1 added to its row.
    Added {
        /// The item's name.
        name: String,
        /// Its row's quantity now.
        quantity: String,
    },
    /// A valid barcode no catalog item has.
    Unknown(Barcode),
    /// The text is not a barcode.
    Invalid {
        /// What was scanned or typed.
        text: String,
        /// Why.
        error: BarcodeError,
    },
    /// The item's row has a quantity that cannot be read, so 1 cannot be added to it.
    Quantity(FieldError),
}

/// Why the form cannot be edited: the journal holds its order without a known outcome. Derived
/// each frame from the journal rows the app already holds (no I/O).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormLock {
    /// The order's row is pending: Create re-sends that row (same bytes, same key).
    Pending {
        /// The idempotency key of the row.
        key: String,
    },
    /// The row is past the server's key retention: the form does not re-send it; the Pending
    /// view does, after the user confirmed they checked.
    Stale,
}

/// From this window width (the app's default) New link shows two columns: the form, and
/// "This sale" beside it.
pub const TWO_COLUMNS_FROM: f32 = 1024.0;
/// The width of the "This sale" column (the open-links panel's width, so the board fits
/// under it).
pub const SALE_COLUMN_WIDTH: f32 = 300.0;
/// What "This sale" keeps for the total, the state, Create and its reason under the lines, so
/// the lines scroll before Create leaves the window.
pub const SALE_RESERVE: f32 = 260.0;
/// The least room the lines get.
pub const SALE_LINES_MIN: f32 = 60.0;
/// The space inside the "This sale" card.
pub const SALE_MARGIN: i8 = 12;
/// The widest the "new sale?" confirmation grows.
pub const CONFIRM_WIDTH: f32 = 420.0;
/// The tallest the catalog picker's list grows before it scrolls.
pub const PICKER_HEIGHT: f32 = 180.0;

/// What the shell draws under "This sale" (the narrow open-links board).
pub type Below<'b> = dyn FnMut(&mut Ui, &mut ViewCtx<'_>) + 'b;

/// What "This sale" needs of the frame's figures.
struct Sale<'a> {
    figures: &'a LinkFigures,
    validation: Result<crate::domain::LinkRequest, FieldErrors>,
    expiry_readable: bool,
    lock: Option<FormLock>,
    /// List the lines (two columns: the table beside it has no line totals).
    lines: bool,
}

/// The state of the New link form.
#[derive(Debug, Default)]
pub struct NewLinkForm {
    /// The form's content, as typed.
    pub draft: LinkDraft,
    /// Fields edited and left, or all after a create attempt (their errors are shown).
    touched: widgets::Touched,
    /// Expiry choice.
    pub expiry: ExpiryChoice,
    /// Custom expiry date as typed, local, `YYYY-MM-DD`.
    pub expiry_date: String,
    /// Custom expiry time as typed, local, `HH:MM`.
    pub expiry_time: String,
    /// The month the expiry calendar shows, while it is open.
    pub calendar: Option<NaiveDate>,
    /// Allowed installment counts 1–12 (index 0 is 1).
    pub counts: [bool; 12],
    /// The catalog picker's search text.
    pub catalog_search: String,
    /// The catalog picker is open.
    pub picker_open: bool,
    /// The amount the server said it expects (`items.total.mismatch`).
    pub server_expected: Option<Decimal>,
    /// Whether a create request is out.
    pub sending: bool,
    /// What the last send said.
    pub note: Option<SendNote>,
    /// The idempotency key of the last request this form sent (its journal row decides the
    /// lock).
    pub sent_key: Option<String>,
    /// "New link" was pressed while the order is pending: the confirmation is open.
    pub confirm_new: bool,
    /// Focus the amount field on the next frame (first start, after "New link").
    pub focus_amount: bool,
    /// The scan field's text.
    pub scan: String,
    /// What the last scan did.
    pub scan_note: Option<ScanNote>,
    /// Focus the scan field on the next frame (F2).
    pub focus_scan: bool,
    /// Focus the first field of this item row on the next frame (after Enter adds a row).
    focus_row: Option<usize>,
    /// Last measured height of each item row (for laying out only the visible ones).
    row_heights: Vec<f32>,
    /// The row whose quantity field had the focus last frame (entering it selects the text).
    qty_focus: Option<usize>,
}

impl NewLinkForm {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.sending = false;
    }

    /// A fresh form with a pre-filled order number; the amount gets the focus.
    pub fn new(order_number: String) -> Self {
        let mut form = Self {
            focus_amount: true,
            ..Self::default()
        };
        form.draft.order_number = order_number;
        form
    }

    /// Clears the form for the next link, keeping the currency, with the next order number.
    pub fn reset(&mut self, order_number: String) {
        let currency = self.draft.currency;
        *self = Self::new(order_number);
        self.draft.currency = currency;
    }

    /// The lock for these journal rows at `now`: the form's last sent request is still open
    /// (`pending`, or `stale` once older than the key retention) and the form still shows its
    /// order.
    pub fn lock_of(&self, rows: &[JournalRow], now: DateTime<Utc>) -> Option<FormLock> {
        let key = self.sent_key.as_deref()?;
        if key.strip_prefix("link-") != Some(self.draft.order_number.trim()) {
            return None;
        }
        let row = rows.iter().find(|r| r.key.key == key)?;
        match row.state {
            JournalState::Pending if !row.is_stale_at(now) => Some(FormLock::Pending {
                key: key.to_owned(),
            }),
            JournalState::Pending | JournalState::Stale => Some(FormLock::Stale),
            _ => None,
        }
    }

    /// Whether the fields are read-only: a request is out, or the journal holds the order
    /// (`lock`, the frame's [`ViewCtx::form_lock`]).
    pub fn is_read_only(&self, lock: Option<&FormLock>) -> bool {
        self.sending || lock.is_some()
    }

    /// Marks a field as touched, so that its errors show (tests and the app use it).
    pub fn touch(&mut self, field: Field) {
        self.touched.touch(field);
    }

    /// Brings the draft's derived fields (expiry, installment counts) up to date for `now`, a
    /// custom expiry read in `zone`. Returns whether the custom expiry text could be read.
    pub fn sync(&mut self, now: DateTime<Utc>, zone: Zone) -> bool {
        self.draft.installments = self
            .counts
            .iter()
            .enumerate()
            .filter(|(_, on)| **on)
            .map(|(i, _)| (i + 1).to_string())
            .collect::<Vec<_>>()
            .join(",");
        match self.expiry {
            ExpiryChoice::None => {
                self.draft.expiry = None;
                true
            }
            ExpiryChoice::In(preset) => {
                self.draft.expiry = Some(now + preset.duration());
                true
            }
            ExpiryChoice::Custom => {
                self.draft.expiry = parse_local(&self.expiry_date, &self.expiry_time, zone);
                self.draft.expiry.is_some()
            }
        }
    }

    /// Sets the custom expiry fields from a UTC moment (shown in `zone`'s local time).
    pub fn set_custom_expiry(&mut self, at: DateTime<Utc>, zone: Zone) {
        let local = zone.local(at);
        self.expiry = ExpiryChoice::Custom;
        self.expiry_date = local.format("%Y-%m-%d").to_string();
        self.expiry_time = local.format("%H:%M").to_string();
    }

    /// Draws New link without the open-links board.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        self.sale_ui(ui, cx, None);
    }

    /// Draws New link as a sale screen: from [`TWO_COLUMNS_FROM`] wide, the form on the left
    /// and "This sale" on the right (the lines, the total, whether the items add up, and
    /// Create), with `below` (the shell's narrow open-links board) under it; narrower, one
    /// column with "This sale" under the form.
    pub fn sale_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, below: Option<&mut Below<'_>>) {
        let expiry_readable = self.sync(cx.now, cx.zone);
        let ctx = LinkContext {
            now: cx.now,
            catalog: cx.catalog,
            limits: cx.limits,
        };
        let figures = self.draft.figures(&ctx);
        let validation = self.draft.validate(&ctx);
        let errors = validation.as_ref().err().cloned().unwrap_or_default();
        let lang = cx.lang;
        let lock = cx.form_lock.clone();
        if !self.is_read_only(lock.as_ref())
            && ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::F2))
        {
            self.focus_scan = true;
        }
        widgets::page_header_ui(
            ui,
            UiText::NavNewLink.get(lang),
            UiText::NewLinkHelp.get(lang),
            |_| {},
        );
        let two_columns = ui.ctx().content_rect().width() >= TWO_COLUMNS_FROM;
        let sale = Sale {
            figures: &figures,
            validation,
            expiry_readable,
            lock: lock.clone(),
            lines: two_columns,
        };
        if two_columns {
            let area = ui.available_rect_before_wrap();
            let form_width =
                (area.width() - SALE_COLUMN_WIDTH - theme::SPACE_M).min(theme::CONTENT_MAX_WIDTH);
            let form_rect =
                egui::Rect::from_min_size(area.min, egui::vec2(form_width, area.height()));
            let sale_rect = egui::Rect::from_min_size(
                egui::pos2(form_rect.right() + theme::SPACE_M, area.top()),
                egui::vec2(SALE_COLUMN_WIDTH, area.height()),
            );
            ui.scope_builder(egui::UiBuilder::new().max_rect(form_rect), |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("new-link-scroll")
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        self.form_ui(ui, cx, &errors, &figures, expiry_readable, false);
                    });
            });
            ui.scope_builder(egui::UiBuilder::new().max_rect(sale_rect), |ui| {
                self.this_sale_ui(ui, cx, sale);
                if let Some(below) = below {
                    ui.add_space(theme::SPACE_M);
                    below(ui, cx);
                }
            });
        } else {
            egui::ScrollArea::vertical()
                .id_salt("new-link-scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    ui.set_max_width(ui.available_width().min(theme::CONTENT_MAX_WIDTH));
                    self.form_ui(ui, cx, &errors, &figures, expiry_readable, true);
                    ui.add_space(theme::SPACE_M);
                    self.this_sale_ui(ui, cx, sale);
                });
        }
        self.confirm_new_ui(ui, cx);
    }

    /// The form: why it is locked, the amount, order and description, the folded options
    /// and payer, then the items (with their line totals when `line_totals`, that is when
    /// "This sale" does not list the lines beside them).
    fn form_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        errors: &FieldErrors,
        figures: &LinkFigures,
        expiry_readable: bool,
        line_totals: bool,
    ) {
        let lang = cx.lang;
        let lock = cx.form_lock.clone();
        if let Some(lock) = &lock {
            self.lock_banner_ui(ui, cx, lock);
            ui.add_space(theme::SPACE_S);
        }
        // What was sent is what a re-send sends: nothing here may change meanwhile.
        ui.add_enabled_ui(!self.is_read_only(lock.as_ref()), |ui| {
            self.amount_ui(ui, cx, errors);
            ui.add_space(theme::SPACE_M);
            widgets::group_ui(ui, UiText::PaymentGroup.get(lang), |ui| {
                self.payment_group_ui(ui, cx, errors);
            });
            self.options_group_ui(ui, cx, errors, figures, expiry_readable);
            self.payer_group_ui(ui, cx, errors);
            ui.add_space(theme::SPACE_S);
            widgets::group_ui(ui, UiText::Items.get(lang), |ui| {
                self.items_ui(ui, cx, figures, errors, line_totals);
            });
        });
    }

    /// "This sale": the lines (when `sale.lines`), the total, whether the items add up to the
    /// amount in words, and Create full width under them, with one reason when it cannot
    /// create yet.
    fn this_sale_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, sale: Sale<'_>) {
        let lang = cx.lang;
        let figures = sale.figures;
        let currency = self.draft.currency;
        ui.label(
            RichText::new(UiText::ThisSale.get(lang))
                .heading()
                .strong()
                .color(ui.visuals().strong_text_color()),
        );
        ui.add_space(theme::SPACE_XS);
        egui::Frame::group(ui.style())
            .fill(ui.visuals().faint_bg_color)
            .corner_radius(theme::CORNER_RADIUS)
            .inner_margin(egui::Margin::same(SALE_MARGIN))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                let lines = if sale.lines {
                    self.typed_lines()
                } else {
                    Vec::new()
                };
                if !lines.is_empty() {
                    let room = (ui.available_height() - SALE_RESERVE).max(SALE_LINES_MIN);
                    // Only the lines in view are laid out: a sale of 200 items stays a frame
                    // well under a millisecond.
                    let height = ui.spacing().interact_size.y;
                    egui::ScrollArea::vertical()
                        .id_salt("sale-lines")
                        .max_height(room)
                        .auto_shrink([false, true])
                        .show_rows(ui, height, lines.len(), |ui, range| {
                            self.sale_lines_ui(ui, cx, figures, &lines[range]);
                        });
                    ui.separator();
                }
                let total = figures.amount.or(figures.items_total);
                // "Total" centred on the figure beside it (a row is as tall as the interact
                // size when it starts).
                let row = ui.text_style_height(&theme::amount_style());
                ui.scope(|ui| {
                    ui.spacing_mut().interact_size.y = row;
                    ui.horizontal(|ui| {
                        ui.label(RichText::new(UiText::SaleTotal.get(lang)).strong());
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                            let text = format_amount(total.unwrap_or_default(), currency, lang);
                            let mut rich = RichText::new(&text).text_style(theme::amount_style());
                            if total.is_none() {
                                rich = rich.color(cx.palette.muted);
                            } else {
                                rich = rich.strong();
                            }
                            let spoken = format!("{}: {text}", UiText::SaleTotal.get(lang));
                            ui.label(rich).widget_info(|| {
                                egui::WidgetInfo::labeled(egui::Role::Label, true, &spoken)
                            });
                        });
                    });
                });
                self.items_state_ui(ui, cx, figures);
            });
        ui.add_space(theme::SPACE_S);
        match sale.lock.clone() {
            Some(lock) => self.locked_send_ui(ui, cx, &lock),
            None => self.send_ui(ui, cx, sale.validation, sale.expiry_readable, lang),
        }
    }

    /// Whether a catalog row has no line total (its price is not in the local catalog).
    fn catalog_price_missing(&self, figures: &LinkFigures) -> bool {
        self.draft.items.iter().enumerate().any(|(row, item)| {
            matches!(item.kind, ItemKind::Catalog { .. })
                && figures.line_totals.get(row).copied().flatten().is_none()
        })
    }

    /// The rows something was typed in or picked for (a row Enter just added is none yet).
    fn typed_lines(&self) -> Vec<usize> {
        self.draft
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| is_typed(i))
            .map(|(row, _)| row)
            .collect()
    }

    /// One line per item of `rows`: "2 × Simit" and its line total, right-aligned.
    fn sale_lines_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>, figures: &LinkFigures, rows: &[usize]) {
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

    /// Whether the items add up to the amount, in words, with the one-click fix.
    fn items_state_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, figures: &LinkFigures) {
        let lang = cx.lang;
        let currency = self.draft.currency;
        if !self.draft.items.iter().any(is_typed) {
            widgets::hint_ui(ui, &cx.palette, UiText::SaleNoItems.get(lang));
            return;
        }
        if figures.totals_match {
            ui.label(RichText::new(UiText::TotalsMatch.get(lang)).color(cx.palette.ok));
        } else if let Some(diff) = figures.difference {
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
        if let Some(total) = figures.items_total.filter(|_| figures.amount.is_none()) {
            ui.label(format!(
                "{}: {}",
                UiText::ItemsTotal.get(lang),
                format_amount(total, currency, lang)
            ));
        }
        if figures.items_total.is_some()
            && !figures.totals_match
            && !self.is_read_only(cx.form_lock.as_ref())
            && widgets::Action::secondary(UiText::UseItemsTotal.get(lang))
                .full_width(ui)
                .show_ui(ui)
                .clicked()
        {
            let ctx = LinkContext {
                now: cx.now,
                catalog: cx.catalog,
                limits: cx.limits,
            };
            self.draft.use_items_total_as_amount(&ctx);
            self.server_expected = None;
        }
    }

    /// Why the fields cannot be edited, above them.
    fn lock_banner_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>, lock: &FormLock) {
        let lang = cx.lang;
        egui::Frame::group(ui.style())
            .stroke(egui::Stroke::new(MARK_STROKE, cx.palette.warn))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.label(
                    RichText::new(UiText::UnknownOutcome.get(lang))
                        .color(cx.palette.warn)
                        .strong(),
                );
                match lock {
                    FormLock::Pending { .. } => {
                        ui.label(UiText::FormLocked.get(lang));
                        if let Some(SendNote::Unknown(why)) = &self.note {
                            crate::ui::problem::warning_ui(ui, cx, why);
                        }
                        if cx.resend.running {
                            ui.label(UiText::ResendingNow.get(lang));
                        } else {
                            let mut text = UiText::ResendsByItself.get(lang).to_owned();
                            if let Some(at) = cx.resend.next {
                                let at = cx.zone.local(at).format("%H:%M:%S");
                                let _ = write!(text, " {} {at}.", UiText::NextTry.get(lang));
                            }
                            ui.label(text);
                        }
                    }
                    FormLock::Stale => {
                        ui.label(UiText::FormStale.get(lang));
                    }
                }
            });
    }

    /// The buttons of a locked form: send the journal's row again (never a new request), or
    /// start a new sale after a confirmation.
    fn locked_send_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, lock: &FormLock) {
        let lang = cx.lang;
        if let Some(SendNote::Error(problem)) = &self.note {
            crate::ui::problem::problem_ui(ui, cx, problem);
        }
        if self.note == Some(SendNote::AlreadyPending) {
            ui.label(RichText::new(UiText::AlreadyPending.get(lang)).color(cx.palette.warn));
        }
        let shortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);
        let pressed = ui.input_mut(|i| i.consume_shortcut(&shortcut));
        match lock {
            FormLock::Pending { key } => {
                let ready = !self.sending && !cx.resend.running;
                // The banner says whose send it is (the form's or the background's).
                let label = if self.sending || cx.resend.running {
                    UiText::Sending
                } else {
                    UiText::SendAgain
                };
                let button = widgets::Action::primary(theme::icon::SEND, label.get(lang))
                    .enabled(ready)
                    .full_width(ui)
                    .show_ui(ui);
                if (button.clicked() || pressed) && ready {
                    self.sending = true;
                    self.note = None;
                    cx.emit(Command::Pending(PendingCommand::Retry {
                        key: key.clone(),
                        force: false,
                    }));
                }
            }
            FormLock::Stale => {
                if widgets::Action::primary(theme::icon::PENDING, UiText::OpenPending.get(lang))
                    .full_width(ui)
                    .show_ui(ui)
                    .clicked()
                {
                    cx.emit(Command::Navigate {
                        view: crate::ui::View::Pending,
                    });
                }
            }
        }
        ui.add_space(theme::SPACE_S);
        if widgets::Action::secondary(UiText::NewLink.get(lang))
            .icon(theme::icon::NEW_LINK)
            .enabled(!self.sending)
            .full_width(ui)
            .show_ui(ui)
            .clicked()
        {
            self.confirm_new = true;
        }
    }

    /// "New link" while the last sale has no known outcome: ask first.
    fn confirm_new_ui(&mut self, ui: &Ui, cx: &mut ViewCtx<'_>) {
        if !self.confirm_new {
            return;
        }
        let lang = cx.lang;
        let modal = egui::Modal::new(egui::Id::unique("new-sale-confirm")).show(ui.ctx(), |ui| {
            ui.set_max_width(CONFIRM_WIDTH);
            ui.label(RichText::new(UiText::NewSaleConfirm.get(lang)).strong());
            ui.label(UiText::NewSaleExplained.get(lang));
            ui.add_space(theme::SPACE_S);
            ui.horizontal(|ui| {
                if ui.button(UiText::StartNewSale.get(lang)).clicked() {
                    self.confirm_new = false;
                    cx.emit(Command::Link(LinkCommand::New));
                }
                if ui.button(UiText::CancelDialog.get(lang)).clicked() {
                    self.confirm_new = false;
                }
            });
        });
        if modal.should_close() {
            self.confirm_new = false;
        }
    }

    /// The amount, the largest field on screen (the `Amount` text style), with the currency
    /// beside it; its failed checks beside both once the amount shows its errors.
    fn amount_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors) {
        let lang = cx.lang;
        let marked = self.touched.has_error(errors, &Field::Amount);
        ui.horizontal_top(|ui| {
            let mut height = 0.0;
            ui.vertical(|ui| {
                mark_ui(ui, &cx.palette, marked);
                let label = Field::Amount.label(lang);
                let spec = widgets::FormField::new(Field::Amount, &label)
                    .style(theme::amount_style())
                    .width(theme::text_field_width_ui(ui, &theme::amount_style(), 9))
                    .hint("0,00");
                let amount = widgets::form_field_ui(
                    ui,
                    cx,
                    &mut self.touched,
                    errors,
                    spec,
                    &mut self.draft.amount,
                );
                height = amount.rect.height();
                if self.focus_amount {
                    amount.request_focus();
                    self.focus_amount = false;
                }
            });
            ui.vertical(|ui| {
                let label = ui.label(Field::Currency.label(lang));
                // As tall as the amount beside it: one row, one height.
                ui.spacing_mut().interact_size.y = height;
                let currency = &mut self.draft.currency;
                let combo = egui::ComboBox::from_id_salt("link-currency")
                    .selected_text(
                        RichText::new(currency_text(*currency))
                            .text_style(egui::TextStyle::Heading),
                    )
                    .show_ui(ui, |ui| {
                        for c in Currency::ALL {
                            ui.selectable_value(currency, *c, currency_text(*c));
                        }
                    });
                let _ = combo.response.labelled_by(label.id);
            });
        });
    }

    /// Order number and description, side by side.
    fn payment_group_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors) {
        let lang = cx.lang;
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                mark_ui(
                    ui,
                    &cx.palette,
                    self.touched.has_error(errors, &Field::OrderNumber),
                );
                let label = Field::OrderNumber.label(lang);
                let spec = widgets::FormField::new(Field::OrderNumber, &label)
                    .width(theme::field_width_ui(ui, 22));
                widgets::form_field_ui(
                    ui,
                    cx,
                    &mut self.touched,
                    errors,
                    spec,
                    &mut self.draft.order_number,
                );
            });
            ui.add_space(theme::SPACE_S);
            ui.vertical(|ui| {
                mark_ui(
                    ui,
                    &cx.palette,
                    self.touched.has_error(errors, &Field::Description),
                );
                let label = Field::Description.label(lang);
                let spec = widgets::FormField::new(Field::Description, &label)
                    .width(theme::field_width_ui(ui, 28));
                widgets::form_field_ui(
                    ui,
                    cx,
                    &mut self.touched,
                    errors,
                    spec,
                    &mut self.draft.description,
                );
            });
        });
    }

    /// A folded group under a title: opened by itself while it holds something to fix (a
    /// failed check, an error shown), so nothing wrong is ever hidden.
    fn folded_group_ui(
        ui: &mut Ui,
        title: &str,
        salt: &str,
        must_show: bool,
        add_contents: impl FnOnce(&mut Ui),
    ) {
        egui::CollapsingHeader::new(
            RichText::new(title)
                .text_style(egui::TextStyle::Button)
                .strong(),
        )
        .id_salt(salt)
        .open(must_show.then_some(true))
        .show(ui, add_contents);
        ui.add_space(theme::SPACE_S);
    }

    /// Expiry, installments, partial payment and the cart amount: folded, as most links keep
    /// the defaults.
    fn options_group_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        errors: &FieldErrors,
        figures: &LinkFigures,
        expiry_readable: bool,
    ) {
        let lang = cx.lang;
        let checks = [Check::ExpiryInFuture, Check::InstallmentsShape];
        let must_show = !expiry_readable
            || checks
                .iter()
                .any(|c| figures.status(*c) == CheckStatus::Fail)
            || [
                Field::ExpiryDate,
                Field::AvailableInstallments,
                Field::CartAmount,
            ]
            .iter()
            .any(|f| self.touched.has_error(errors, f));
        Self::folded_group_ui(
            ui,
            UiText::OptionsGroup.get(lang),
            "link-options",
            must_show,
            |ui| {
                self.options_ui(ui, cx, errors, expiry_readable);
            },
        );
    }

    fn options_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        errors: &FieldErrors,
        expiry_readable: bool,
    ) {
        let lang = cx.lang;
        // Expiry.
        let expiry_label = ui.label(UiText::Expiry.get(lang));
        ui.horizontal_wrapped(|ui| {
            let mut choice = self.expiry;
            ui.selectable_value(
                &mut choice,
                ExpiryChoice::None,
                UiText::ExpiryNone.get(lang),
            )
            .labelled_by(expiry_label.id);
            for p in ExpiryPreset::ALL {
                ui.selectable_value(&mut choice, ExpiryChoice::In(p), p.label().get(lang));
            }
            ui.selectable_value(
                &mut choice,
                ExpiryChoice::Custom,
                UiText::ExpiryCustom.get(lang),
            );
            if choice != self.expiry {
                if choice == ExpiryChoice::Custom && self.expiry_date.is_empty() {
                    // Start from an hour ahead, in local time.
                    self.set_custom_expiry(cx.now + Duration::hours(1), cx.zone);
                }
                self.expiry = choice;
                self.touched.touch(Field::ExpiryDate);
            }
        });
        match self.expiry {
            ExpiryChoice::Custom => {
                let today = cx.zone.date_of(cx.now);
                let typed_day = NaiveDate::parse_from_str(self.expiry_date.trim(), "%Y-%m-%d").ok();
                ui.horizontal(|ui| {
                    let d = ui.label(UiText::ExpiryDate.get(lang));
                    let rd = ui
                        .add(
                            egui::TextEdit::singleline(&mut self.expiry_date)
                                .desired_width(theme::field_width_ui(ui, 10)),
                        )
                        .labelled_by(d.id);
                    let t = ui.label(UiText::ExpiryTime.get(lang));
                    let rt = ui
                        .add(
                            egui::TextEdit::singleline(&mut self.expiry_time)
                                .desired_width(theme::field_width_ui(ui, 5)),
                        )
                        .labelled_by(t.id);
                    self.touched.track(&rd, Field::ExpiryDate);
                    self.touched.track(&rt, Field::ExpiryDate);
                    let mut open = self.calendar.is_some();
                    if ui
                        .toggle_value(&mut open, UiText::Calendar.get(lang))
                        .changed()
                    {
                        self.calendar = open.then(|| typed_day.unwrap_or(today));
                    }
                    widgets::hint_ui(ui, &cx.palette, UiText::ExpiryLocal.get(lang));
                });
                if let Some(month) = &mut self.calendar
                    && let Some(day) = calendar::calendar_ui(ui, month, typed_day, today, lang)
                {
                    self.expiry_date = day.format("%Y-%m-%d").to_string();
                    self.calendar = None;
                }
                if !expiry_readable {
                    widgets::error_text_ui(ui, &cx.palette, UiText::ExpiryBadDate.get(lang));
                }
            }
            ExpiryChoice::In(_) => {
                if let Some(at) = self.draft.expiry {
                    widgets::hint_ui(ui, &cx.palette, &local_time(at, cx.zone));
                }
            }
            ExpiryChoice::None => {}
        }
        self.touched.errors_ui(ui, cx, errors, &Field::ExpiryDate);
        ui.add_space(theme::SPACE_S);

        // Installments.
        ui.checkbox(
            &mut self.draft.enable_installment,
            UiText::EnableInstallment.get(lang),
        );
        if self.draft.enable_installment {
            let counts_label = ui.label(UiText::AllowedCounts.get(lang));
            ui.horizontal_wrapped(|ui| {
                for (i, on) in self.counts.iter_mut().enumerate() {
                    let r = ui.toggle_value(on, (i + 1).to_string());
                    if i == 0 {
                        let _ = r.labelled_by(counts_label.id);
                    }
                }
            });
            self.touched
                .errors_ui(ui, cx, errors, &Field::AvailableInstallments);
        }
        ui.checkbox(
            &mut self.draft.allow_partial_payment,
            UiText::PartialPayment.get(lang),
        );
        ui.add_space(theme::SPACE_S);
        let label = Field::CartAmount.label(lang);
        let spec =
            widgets::FormField::new(Field::CartAmount, &label).width(theme::field_width_ui(ui, 12));
        widgets::form_field_ui(
            ui,
            cx,
            &mut self.touched,
            errors,
            spec,
            &mut self.draft.cart_amount,
        );
    }

    /// The payer's contact: folded, as a counter sale rarely asks for it.
    fn payer_group_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors) {
        let lang = cx.lang;
        let fields = [Field::Email, Field::PhoneCountryCode, Field::PhoneNumber];
        let must_show = fields.iter().any(|f| self.touched.has_error(errors, f));
        Self::folded_group_ui(
            ui,
            UiText::PayerGroup.get(lang),
            "link-payer",
            must_show,
            |ui| {
                ui.checkbox(
                    &mut self.draft.contact_required,
                    UiText::ContactRequired.get(lang),
                );
                ui.horizontal_top(|ui| {
                    ui.vertical(|ui| {
                        let spec = widgets::FormField::new(Field::Email, UiText::Email.get(lang))
                            .width(theme::field_width_ui(ui, 26));
                        widgets::form_field_ui(
                            ui,
                            cx,
                            &mut self.touched,
                            errors,
                            spec,
                            &mut self.draft.email,
                        );
                    });
                    ui.vertical(|ui| {
                        let spec = widgets::FormField::new(
                            Field::PhoneCountryCode,
                            UiText::PhoneCountryCode.get(lang),
                        )
                        .width(theme::field_width_with_hint_ui(ui, 4, "+90"))
                        .hint("+90");
                        widgets::form_field_ui(
                            ui,
                            cx,
                            &mut self.touched,
                            errors,
                            spec,
                            &mut self.draft.phone_country_code,
                        );
                    });
                    ui.vertical(|ui| {
                        let spec = widgets::FormField::new(
                            Field::PhoneNumber,
                            UiText::PhoneNumber.get(lang),
                        )
                        .width(theme::field_width_ui(ui, 14));
                        widgets::form_field_ui(
                            ui,
                            cx,
                            &mut self.touched,
                            errors,
                            spec,
                            &mut self.draft.phone_number,
                        );
                    });
                });
            },
        );
    }

    fn items_ui(
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
            // The catalog's toggle as tall as Add item beside it.
            ui.spacing_mut().interact_size.y = theme::BUTTON_HEIGHT;
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

    /// The scan field and what the last scan did. The scanner's Enter is read here rather than
    /// by the field (which would give up the focus), so the focus stays for the next scan.
    fn scan_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        // The label above its field, as everywhere else.
        let label = ui.label(UiText::ScanBarcode.get(lang));
        ui.horizontal_wrapped(|ui| {
            let mut output = egui::TextEdit::singleline(&mut self.scan)
                .desired_width(theme::field_width_ui(ui, 20))
                .char_limit(32)
                .hint_text("F2")
                .return_key(None)
                .show(ui);
            let response = output.response.response.labelled_by(label.id);
            if self.focus_scan {
                response.request_focus();
                response.scroll_to_me(None);
                self.focus_scan = false;
            }
            let entered = response.has_focus()
                && ui.input(|i| i.key_pressed(Key::Enter) && !i.modifiers.command);
            if entered && !self.scanned(cx) {
                // Kept, selected: the next scan replaces it.
                output
                    .state
                    .cursor
                    .set_char_range(Some(egui::text::CCursorRange::select_all_str(&self.scan)));
                output.state.store(ui.ctx(), response.id);
            }
            if entered {
                // The totals above were drawn before the scan.
                ui.ctx().request_repaint();
            }
            widgets::hint_ui(ui, &cx.palette, UiText::ScanHint.get(lang));
        });
        match &self.scan_note {
            Some(ScanNote::Added { name, quantity }) => {
                ui.label(
                    RichText::new(format!(
                        "✓ {} {name} · {} {quantity}",
                        UiText::ScanAdded.get(lang),
                        UiText::Quantity.get(lang)
                    ))
                    .color(cx.palette.ok),
                );
            }
            Some(ScanNote::Unknown(code)) => {
                widgets::error_text_ui(
                    ui,
                    &cx.palette,
                    format!("{} {code}", UiText::ScanUnknown.get(lang)),
                );
                widgets::hint_ui(ui, &cx.palette, UiText::ScanUnknownHint.get(lang));
            }
            Some(ScanNote::Invalid { text, error }) => {
                widgets::error_text_ui(
                    ui,
                    &cx.palette,
                    format!(
                        "{} {text}: {}",
                        UiText::Barcode.get(lang),
                        error.message(lang)
                    ),
                );
            }
            Some(ScanNote::Quantity(e)) => {
                widgets::error_text_ui(
                    ui,
                    &cx.palette,
                    format!("{} {}", e.message(lang), UiText::ScanFixFirst.get(lang)),
                );
            }
            None => {}
        }
    }

    /// A scan ended with Enter: adds the item (or 1 to its row) and clears the field. Returns
    /// `false` when nothing was added (the note says why; the field keeps its text).
    fn scanned(&mut self, cx: &ViewCtx<'_>) -> bool {
        let text = self.scan.trim().to_owned();
        if text.is_empty() {
            self.scan_note = None;
            return true;
        }
        let code = match Barcode::parse(&text) {
            Ok(code) => code,
            Err(error) => {
                self.scan_note = Some(ScanNote::Invalid { text, error });
                return false;
            }
        };
        let Some(id) = cx.barcodes.variant_id(&code).map(str::to_owned) else {
            self.scan_note = Some(ScanNote::Unknown(code));
            return false;
        };
        let ctx = LinkContext {
            now: cx.now,
            catalog: cx.catalog,
            limits: cx.limits,
        };
        match self.draft.add_catalog_unit(&id, &ctx) {
            Ok(row) => {
                let name = cx.catalog.get(&id).map_or(id, |v| v.name.clone());
                self.scan_note = Some(ScanNote::Added {
                    name,
                    quantity: self.draft.items[row].quantity.clone(),
                });
                self.scan.clear();
                true
            }
            Err(e) => {
                self.scan_note = Some(ScanNote::Quantity(e));
                false
            }
        }
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
                    .add(egui::TextEdit::singleline(name).desired_width(f32::INFINITY))
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
            let r = ui
                .add(
                    egui::TextEdit::singleline(&mut item.quantity)
                        .id(qty_id)
                        .desired_width(f32::INFINITY)
                        .align(egui::Align2::RIGHT_TOP)
                        .hint_text("1"),
                )
                .accessible_name(named(UiText::Quantity));
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
                        ui.label(format_amount(v.unit_price, v.currency, lang));
                    }
                }
                ItemKind::Free { unit_price, .. } => {
                    let r = ui
                        .add(
                            egui::TextEdit::singleline(unit_price)
                                .desired_width(f32::INFINITY)
                                .align(egui::Align2::RIGHT_TOP),
                        )
                        .accessible_name(named(UiText::UnitPrice));
                    track(ui, &r, ItemField::UnitPrice);
                    widgets::error_lines_ui(ui, palette, price_err.iter().map(String::as_str));
                }
            }
        });

        if let Some(width) = cols.total {
            cell_ui(ui, width, egui::Align::Max, |ui| {
                ui.label(
                    line_total.map_or_else(|| "–".to_owned(), |t| format_amount(t, currency, lang)),
                );
            });
        }

        // Note: typed-in items only (the API has none for catalog items).
        cell_ui(ui, cols.note, egui::Align::Min, |ui| {
            if let ItemKind::Free { note, .. } = &mut item.kind {
                let r = ui
                    .add(egui::TextEdit::singleline(note).desired_width(f32::INFINITY))
                    .accessible_name(named(UiText::Note));
                track(ui, &r, ItemField::Note);
                widgets::error_lines_ui(ui, palette, note_err.iter().map(String::as_str));
            }
        });

        ui.horizontal(|ui| {
            if icon_button_ui(ui, ICON_MOVE_UP, &named(UiText::MoveUp), row > 0).clicked() {
                action = Some(RowAction::Up(row));
            }
            if icon_button_ui(ui, ICON_MOVE_DOWN, &named(UiText::MoveDown), row + 1 < rows)
                .clicked()
            {
                action = Some(RowAction::Down(row));
            }
            if icon_button_ui(
                ui,
                theme::icon::COPY,
                &format!("{} {n}", UiText::DuplicateRow.get(lang)),
                true,
            )
            .clicked()
            {
                action = Some(RowAction::Duplicate(row));
            }
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

    fn send_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        validation: Result<crate::domain::LinkRequest, FieldErrors>,
        expiry_readable: bool,
        lang: Lang,
    ) {
        if let Some(expected) = self.server_expected {
            ui.horizontal(|ui| {
                ui.label(format!(
                    "{} {}",
                    UiText::ServerExpects.get(lang),
                    format_amount(expected, self.draft.currency, lang)
                ));
                if widgets::Action::secondary(UiText::UseExpected.get(lang))
                    .show_ui(ui)
                    .clicked()
                {
                    self.draft.expected_amount_fix(expected);
                    self.server_expected = None;
                    self.note = None;
                }
            });
        }
        match &self.note {
            Some(SendNote::Error(problem)) => {
                crate::ui::problem::problem_ui(ui, cx, problem);
            }
            Some(SendNote::Unknown(problem)) => {
                ui.label(RichText::new(UiText::UnknownOutcome.get(lang)).color(cx.palette.warn));
                crate::ui::problem::warning_ui(ui, cx, problem);
            }
            Some(SendNote::AlreadyPending) => {
                ui.label(RichText::new(UiText::AlreadyPending.get(lang)).color(cx.palette.warn));
            }
            None => {}
        }

        let shortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Enter);
        let pressed = ui.input_mut(|i| i.consume_shortcut(&shortcut));
        let ready = validation.is_ok() && expiry_readable && !self.sending;
        let label = if self.sending {
            UiText::Sending.get(lang)
        } else {
            UiText::Create.get(lang)
        };
        let button = widgets::Action::primary(theme::icon::CREATE, label)
            .enabled(ready)
            .full_width(ui)
            .show_ui(ui);
        let create = (button.clicked() || pressed) && ready;
        if pressed && !ready && !self.sending {
            // A create attempt: every field now says what is wrong with it.
            self.touched.show_all();
        }
        if !ready && !self.sending {
            // One plain reason, the first in the form's order; each field says its own.
            let reason = match &validation {
                Err(errors) => errors
                    .iter()
                    .next()
                    .map(|e| e.message(lang))
                    .unwrap_or_default(),
                Ok(_) => UiText::ExpiryBadDate.get(lang).to_owned(),
            };
            ui.label(
                RichText::new(format!("{} {reason}", UiText::CannotCreate.get(lang)))
                    .color(cx.palette.muted),
            );
        } else if !self.sending {
            widgets::hint_ui(ui, &cx.palette, UiText::CreateShortcut.get(lang));
        }
        if create && let Ok(request) = validation {
            self.sending = true;
            self.note = None;
            self.sent_key = Some(request.idempotency_key());
            cx.emit(Command::Link(LinkCommand::Create {
                request: Box::new(request),
            }));
        }
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
    qty: f32,
    price: f32,
    /// The line total, when "This sale" does not list it beside the table.
    total: Option<f32>,
    note: f32,
}

impl Columns {
    fn measure(ui: &Ui, line_totals: bool) -> Self {
        let digit = theme::digit_width_ui(ui, &egui::TextStyle::Body);
        let gap = ui.spacing().item_spacing.x;
        let qty = 5.0 * digit;
        let price = 10.0 * digit;
        let total = line_totals.then_some(12.0 * digit);
        // The row's four small buttons (a symbol each, framed) and the gaps between cells.
        let buttons = 4.0 * (2.0 * digit + 2.0 * ui.spacing().button_padding.x) + 3.0 * gap;
        let fixed = qty + price + total.unwrap_or_default() + buttons + 6.0 * gap;
        let free = (ui.available_width() - fixed - 2.0 * ROW_MARGIN).max(0.0);
        Columns {
            item: (free * 0.6).max(12.0 * digit),
            qty,
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

/// The width of the outline that marks a field holding the reason Create is disabled.
pub const MARK_STROKE: f32 = 2.0;

/// Outlines the next fields drawn in `ui` in the error colour when `marked`: the field that
/// stops Create is found at a glance.
fn mark_ui(ui: &mut Ui, palette: &theme::Palette, marked: bool) {
    if marked {
        let stroke = egui::Stroke::new(MARK_STROKE, palette.error);
        let widgets = &mut ui.visuals_mut().widgets;
        widgets.inactive.bg_stroke = stroke;
        widgets.hovered.bg_stroke = stroke;
    }
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
fn is_typed(item: &ItemDraft) -> bool {
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

/// A small frameless button with an icon, whose accessible name and tooltip is `label`.
fn icon_button_ui(ui: &mut Ui, icon: theme::icon::Icon, label: &str, enabled: bool) -> Response {
    let r = ui
        .add_enabled(
            enabled,
            egui::Button::new(icon.rich_text().size(theme::BODY_SIZE)).frame(false),
        )
        .on_hover_text(label);
    let text = label.to_owned();
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, &text));
    r
}

fn currency_text(c: Currency) -> String {
    format!("{} {}", c.as_str(), c.symbol())
}

/// Reads a date (`YYYY-MM-DD`) and time (`HH:MM`) of `zone` into UTC.
pub fn parse_local(date: &str, time: &str, zone: Zone) -> Option<DateTime<Utc>> {
    let d = NaiveDate::parse_from_str(date.trim(), "%Y-%m-%d").ok()?;
    let t = NaiveTime::parse_from_str(time.trim(), "%H:%M").ok()?;
    zone.instant_of(d.and_time(t))
}

/// A UTC moment in `zone`'s local time, as the form shows it.
pub fn local_time(at: DateTime<Utc>, zone: Zone) -> String {
    zone.local(at).format("%Y-%m-%d %H:%M").to_string()
}

#[cfg(test)]
mod tests {
    use crate::store::JournalKey;

    use super::*;

    #[test]
    fn a_typed_expiry_is_read_and_shown_in_the_zone_given() {
        let istanbul = Zone::hours(3);
        let at = parse_local("2026-11-23", "18:30", istanbul).expect("a valid moment");
        assert_eq!(at.to_rfc3339(), "2026-11-23T15:30:00+00:00");
        assert_eq!(local_time(at, istanbul), "2026-11-23 18:30");
        assert_eq!(local_time(at, Zone::hours(-5)), "2026-11-23 10:30");
        let mut form = NewLinkForm::new(String::new());
        form.set_custom_expiry(at, Zone::hours(-5));
        assert_eq!(
            (form.expiry_date.as_str(), form.expiry_time.as_str()),
            ("2026-11-23", "10:30")
        );
        assert!(form.sync(at, Zone::hours(-5)));
        assert_eq!(form.draft.expiry, Some(at));
    }

    fn row(key: &str, state: JournalState, created_at: DateTime<Utc>) -> JournalRow {
        JournalRow {
            id: 1,
            key: JournalKey::new("sandbox", "link.create", key),
            body: crate::secrets::Redacted(b"{}".to_vec()),
            order_number: key.strip_prefix("link-").map(str::to_owned),
            amount: None,
            currency: None,
            created_at,
            updated_at: created_at,
            state,
            attempts: 5,
            last_error: None,
            link_id: None,
            began_by: None,
        }
    }

    #[test]
    fn the_form_is_locked_only_by_the_open_row_of_the_request_it_sent() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let mut form = NewLinkForm::new("PD-1".into());
        let pending = [row("link-PD-1", JournalState::Pending, now)];
        // A row for the order that this form did not send (another counter, the CLI).
        assert_eq!(form.lock_of(&pending, now), None);

        form.sent_key = Some("link-PD-1".into());
        let locked = Some(FormLock::Pending {
            key: "link-PD-1".into(),
        });
        assert_eq!(form.lock_of(&pending, now), locked);
        // Past the key retention, the form no longer re-sends it.
        let later = now + Duration::hours(24);
        assert_eq!(form.lock_of(&pending, later), Some(FormLock::Stale));
        let stale = [row("link-PD-1", JournalState::Stale, now)];
        assert_eq!(form.lock_of(&stale, now), Some(FormLock::Stale));
        // Finished rows free the form.
        for state in [
            JournalState::Completed,
            JournalState::Failed,
            JournalState::Conflict,
            JournalState::Abandoned,
        ] {
            assert_eq!(form.lock_of(&[row("link-PD-1", state, now)], now), None);
        }
        assert_eq!(form.lock_of(&[], now), None);
        // A new sale (another order number) is not locked by the old row.
        form.draft.order_number = "PD-2".into();
        assert_eq!(form.lock_of(&pending, now), None);
    }
}
