//! The New link form: the home view, where staff spend most of their day.
//!
//! Everything the server would refuse and the app can know is caught here, live: the amount,
//! the items adding up to it (with one click to take the items total), a catalog item in the
//! wrong currency, a past expiry, the installment counts, the key's limits. A field's errors
//! appear under it once the user has left it, and then follow every keystroke; Create stays
//! disabled and says why. The form holds text as typed ([`LinkDraft`]); the domain turns it
//! into the exact wire request, and the view only emits
//! [`LinkCommand::Create`](crate::ui::command::LinkCommand::Create) with it.
//!
//! This file holds the form itself and its public face: the state, the two-column layout, the
//! amount, order, options and payer fields. The item table and "This sale"'s lines are in
//! `items.rs`, the barcode scan field in `scan.rs`, and Create, what a send said and the lock
//! under an unknown outcome in `sending.rs`.

mod items;
mod scan;
mod sending;

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};

use crate::clock::Zone;
use egui::{Key, Modifiers, RichText, Ui};
use rust_decimal::Decimal;

use crate::domain::link::{Check, CheckStatus, LinkContext, LinkFigures};
use crate::domain::{Currency, Field, FieldErrors, Link, LinkDraft};
use crate::lang::Lang;
use crate::service::CreateError;
use crate::ui::ViewCtx;
use crate::ui::calendar;
use crate::ui::problem::{Explain, Problem};
use crate::ui::text::UiText;
use crate::ui::words::local_time;
use crate::ui::{theme, widgets};

pub use crate::ui::FormLock;
pub use items::{ICON_ADD_ROW, ICON_MOVE_DOWN, ICON_MOVE_UP, ICON_REMOVE_ROW, PICKER_HEIGHT};
pub use scan::ScanNote;
pub use sending::{CONFIRM_WIDTH, SALE_LINES_MIN, SALE_MARGIN, SALE_RESERVE, SendNote};

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
/// From this window width (the app's default) New link shows two columns: the form, and
/// "This sale" beside it.
pub const TWO_COLUMNS_FROM: f32 = 1024.0;
/// The width of the "This sale" column (the open-links panel's width, so the board fits
/// under it).
pub const SALE_COLUMN_WIDTH: f32 = 300.0;

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
    draft: LinkDraft,
    /// Fields edited and left, or all after a create attempt (their errors are shown).
    touched: widgets::Touched,
    /// Expiry choice.
    expiry: ExpiryChoice,
    /// Custom expiry date as typed, local (`28.11.2026`, `28 Nov 2026`, ISO).
    expiry_date: String,
    /// Custom expiry time as typed, local, `HH:MM`.
    expiry_time: String,
    /// The month the expiry calendar shows, while it is open.
    calendar: Option<NaiveDate>,
    /// Allowed installment counts 1–12 (index 0 is 1).
    counts: [bool; 12],
    /// The catalog picker's search text.
    catalog_search: String,
    /// The catalog picker is open.
    picker_open: bool,
    /// The amount the server said it expects (`items.total.mismatch`).
    server_expected: Option<Decimal>,
    /// Whether a create request is out.
    sending: bool,
    /// What the last send said.
    note: Option<SendNote>,
    /// The idempotency key of the last request this form sent (its journal row decides the
    /// lock).
    sent_key: Option<String>,
    /// "New link" was pressed while the order is pending: the confirmation is open.
    confirm_new: bool,
    /// Focus the amount field on the next frame (first start, after "New link").
    focus_amount: bool,
    /// The scan field's text.
    scan: String,
    /// What the last scan did.
    scan_note: Option<ScanNote>,
    /// Focus the scan field on the next frame (F2).
    focus_scan: bool,
    /// Focus the first field of this item row on the next frame (after Enter adds a row).
    focus_row: Option<usize>,
    /// Last measured height of each item row (for laying out only the visible ones).
    row_heights: Vec<f32>,
    /// The row whose quantity field had the focus last frame (entering it selects the text).
    qty_focus: Option<usize>,
    /// The amount is the items' total (set each frame while the items have one); cleared
    /// with the last item.
    amount_follows: bool,
}
impl NewLinkForm {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.sending = false;
    }

    /// The form's content, as typed.
    pub fn draft(&self) -> &LinkDraft {
        &self.draft
    }

    /// Whether a create request is out.
    pub fn is_sending(&self) -> bool {
        self.sending
    }

    /// What the last send said.
    pub fn note(&self) -> Option<&SendNote> {
        self.note.as_ref()
    }

    /// The scan field's text.
    pub fn scan_text(&self) -> &str {
        &self.scan
    }

    /// The key of the request this form sent, while the form still shows its order.
    pub fn sent_key(&self) -> Option<&str> {
        let key = self.sent_key.as_deref()?;
        (key.strip_prefix("link-") == Some(self.draft.order_number.trim())).then_some(key)
    }

    /// The answer to the form's create request, however it was sent (Create, Send again,
    /// Retry in Pending, the background re-send): the request is no longer out; a refusal or
    /// an unknown outcome is said above Create (a refusal's expected amount offered as a
    /// fix). A link made needs nothing here: the app starts the next sale.
    pub fn on_created(&mut self, result: &Result<Link, CreateError>, lang: Lang) {
        self.sending = false;
        match result {
            Ok(_) => {}
            Err(CreateError::Rejected(e)) => {
                self.server_expected = e.expected_amount();
                self.note = Some(SendNote::Error(e.problem(lang)));
            }
            Err(CreateError::Unknown { error, .. }) => {
                self.note = Some(SendNote::Unknown(error.problem(lang)));
            }
            Err(CreateError::InProgress { .. }) => self.note = Some(SendNote::AlreadyPending),
            Err(e) => self.note = Some(SendNote::Error(e.problem(lang))),
        }
    }

    /// Nothing was journaled by the form's last send (a row of this order already open, stale
    /// or done), or the profile changed: no open row is the form's to re-send.
    pub fn on_send_not_journaled(&mut self) {
        self.sent_key = None;
    }

    /// The next order number arrived.
    pub fn on_order_number(&mut self, order_number: String) {
        self.draft.order_number = order_number;
    }

    /// The next order number could not be read: said above Create.
    pub fn on_order_number_failed(&mut self, error: &impl Explain, lang: Lang) {
        self.note = Some(SendNote::Error(error.problem(lang)));
    }

    /// The worker is gone: what it would have answered is said above Create.
    pub fn on_worker_lost(&mut self, text: &str) {
        self.note = Some(SendNote::Error(Problem::plain(text.to_owned())));
    }

    /// The form comes back to its clerk after a sign-in: the amount gets the focus.
    pub fn on_back(&mut self) {
        self.focus_amount = true;
    }

    /// The custom expiry date as typed, local (`28.11.2026`, `28 Nov 2026`, ISO).
    pub fn expiry_date(&self) -> &str {
        &self.expiry_date
    }

    /// Test set-up: the custom expiry date as if typed into its field.
    #[cfg(any(test, feature = "inspect"))]
    pub fn type_expiry_date(&mut self, text: &str) {
        text.clone_into(&mut self.expiry_date);
    }

    /// Test set-up: a create request is out, as after Create.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_sending(&mut self) {
        self.sending = true;
    }

    /// Test set-up: the draft as a clerk would have typed it.
    #[cfg(any(test, feature = "inspect"))]
    pub fn draft_mut(&mut self) -> &mut LinkDraft {
        &mut self.draft
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
    pub fn set_custom_expiry(&mut self, at: DateTime<Utc>, zone: Zone, lang: Lang) {
        let local = zone.local(at);
        self.expiry = ExpiryChoice::Custom;
        self.expiry_date = crate::ui::words::day_text(local.date_naive(), lang);
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
        if !self.is_read_only(cx.form_lock.as_ref()) {
            self.follow_items_total(&ctx);
        }
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
                        self.form_ui(ui, cx, &errors, &sale);
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
                    self.form_ui(ui, cx, &errors, &sale);
                    ui.add_space(theme::SPACE_M);
                    self.this_sale_ui(ui, cx, sale);
                });
        }
        self.confirm_new_ui(ui, cx);
    }

    /// The form: why it is locked, the amount, order and description, the folded options
    /// and payer, then the items (with their line totals when "This sale" does not list the
    /// lines beside them).
    fn form_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        errors: &FieldErrors,
        sale: &Sale<'_>,
    ) {
        let lang = cx.lang;
        let lock = cx.form_lock.clone();
        if let Some(lock) = &lock {
            self.lock_banner_ui(ui, cx, lock);
            ui.add_space(theme::SPACE_S);
        }
        // What was sent is what a re-send sends: nothing here may change meanwhile.
        ui.add_enabled_ui(!self.is_read_only(lock.as_ref()), |ui| {
            // With a catalog, the sale is scanned: the items come first, and the amount
            // under them is their total.
            let items_first = !cx.catalog.is_empty();
            if items_first {
                widgets::group_ui(ui, UiText::Items.get(lang), |ui| {
                    self.items_ui(ui, cx, sale.figures, errors, !sale.lines);
                });
                ui.add_space(theme::SPACE_S);
            }
            self.amount_ui(ui, cx, errors);
            ui.add_space(theme::SPACE_M);
            widgets::group_ui(ui, UiText::PaymentGroup.get(lang), |ui| {
                self.payment_group_ui(ui, cx, errors);
            });
            self.options_group_ui(ui, cx, errors, sale);
            self.payer_group_ui(ui, cx, errors);
            if !items_first {
                ui.add_space(theme::SPACE_S);
                widgets::group_ui(ui, UiText::Items.get(lang), |ui| {
                    self.items_ui(ui, cx, sale.figures, errors, !sale.lines);
                });
            }
        });
    }

    /// The amount follows the items: while they have a total it is theirs (the clerk types
    /// no second figure that could disagree); with the last item gone it is empty again. A
    /// sale without items keeps the amount typed.
    ///
    /// After "Use this amount" the items' total is the server's (see
    /// [`crate::domain::ServerPriced`]) until the items change.
    fn follow_items_total(&mut self, ctx: &LinkContext<'_>) {
        if self.draft.items.iter().any(items::is_typed) {
            self.amount_follows = self.draft.use_items_total_as_amount(ctx);
        } else if self.amount_follows {
            self.draft.amount.clear();
            self.amount_follows = false;
        }
    }

    /// The amount, the largest field on screen (the `Amount` text style), with the currency
    /// beside it; its failed checks beside both once the amount shows its errors. While it is
    /// the items' total, it says so and is not typed in.
    fn amount_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors) {
        let lang = cx.lang;
        let marked = self.touched.has_error(errors, &Field::Amount);
        let follows = self.amount_follows;
        let currency = self.draft.currency;
        ui.horizontal_top(|ui| {
            let mut height = 0.0;
            ui.vertical(|ui| {
                mark_ui(ui, &cx.palette, marked);
                let label = Field::Amount.label(lang);
                if follows {
                    // The items' total, as large as the field it replaces; not typed in.
                    let label = ui.label(&label);
                    let shown = ui
                        .label(
                            RichText::new(
                                crate::domain::parse_amount(&self.draft.amount, currency)
                                    .map_or_else(
                                        |_| self.draft.amount.clone(),
                                        |a| crate::domain::format_number(a, currency, lang),
                                    ),
                            )
                            .text_style(theme::amount_style())
                            .strong(),
                        )
                        .labelled_by(label.id);
                    height = shown.rect.height();
                    widgets::hint_ui(ui, &cx.palette, UiText::AmountOfItems.get(lang));
                    self.focus_amount = false;
                    return;
                }
                let spec = widgets::FormField::new(Field::Amount, &label)
                    .style(theme::amount_style())
                    .width(theme::text_field_width_ui(ui, &theme::amount_style(), 9))
                    .hint("0,00");
                let amount = self
                    .touched
                    .field_ui(ui, cx, errors, spec, &mut self.draft.amount);
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

    /// Order number and description, side by side, each marked while it shows an error.
    fn payment_group_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, errors: &FieldErrors) {
        let columns = [
            (Field::OrderNumber, 22, &mut self.draft.order_number),
            (Field::Description, 28, &mut self.draft.description),
        ];
        let touched = &mut self.touched;
        ui.horizontal_top(|ui| {
            for (i, (field, chars, value)) in columns.into_iter().enumerate() {
                if i > 0 {
                    ui.add_space(theme::SPACE_S);
                }
                ui.vertical(|ui| {
                    mark_ui(ui, &cx.palette, touched.has_error(errors, &field));
                    let label = field.label(cx.lang);
                    let spec = widgets::FormField::new(field, &label)
                        .width(theme::field_width_ui(ui, chars));
                    touched.field_ui(ui, cx, errors, spec, value);
                });
            }
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
        sale: &Sale<'_>,
    ) {
        let (lang, expiry_readable) = (cx.lang, sale.expiry_readable);
        let checks = [Check::ExpiryInFuture, Check::InstallmentsShape];
        let must_show = !expiry_readable
            || checks
                .iter()
                .any(|c| sale.figures.status(*c) == CheckStatus::Fail)
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
                    self.set_custom_expiry(cx.now + Duration::hours(1), cx.zone, lang);
                }
                self.expiry = choice;
                self.touched.touch(Field::ExpiryDate);
            }
        });
        match self.expiry {
            ExpiryChoice::Custom => {
                let today = cx.zone.date_of(cx.now);
                let typed_day = crate::ui::words::parse_day(&self.expiry_date);
                ui.horizontal(|ui| {
                    // The day and the time, each under its own label; both are the expiry.
                    let parts = [
                        (UiText::ExpiryDate, 12, &mut self.expiry_date),
                        (UiText::ExpiryTime, 5, &mut self.expiry_time),
                    ];
                    for (name, chars, value) in parts {
                        let label = ui.label(name.get(lang));
                        let r = ui
                            .add(
                                egui::TextEdit::singleline(value)
                                    .desired_width(theme::field_width_ui(ui, chars)),
                            )
                            .labelled_by(label.id);
                        self.touched.track(&r, Field::ExpiryDate);
                    }
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
                    self.expiry_date = crate::ui::words::day_text(day, lang);
                    self.calendar = None;
                }
                if !expiry_readable {
                    widgets::error_text_ui(ui, &cx.palette, UiText::ExpiryBadDate.get(lang));
                }
            }
            ExpiryChoice::In(_) => {
                if let Some(at) = self.draft.expiry {
                    widgets::hint_ui(ui, &cx.palette, &local_time(at, cx.zone, lang));
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
        self.touched
            .field_ui(ui, cx, errors, spec, &mut self.draft.cart_amount);
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
                        self.touched
                            .field_ui(ui, cx, errors, spec, &mut self.draft.email);
                    });
                    ui.vertical(|ui| {
                        let spec = widgets::FormField::new(
                            Field::PhoneCountryCode,
                            UiText::PhoneCountryCode.get(lang),
                        )
                        .width(theme::field_width_with_hint_ui(ui, 4, "+90"))
                        .hint("+90");
                        self.touched.field_ui(
                            ui,
                            cx,
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
                        self.touched
                            .field_ui(ui, cx, errors, spec, &mut self.draft.phone_number);
                    });
                });
            },
        );
    }
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

fn currency_text(c: Currency) -> String {
    format!("{} {}", c.as_str(), c.symbol())
}

/// Reads a date (as [`crate::ui::words::parse_day`] reads it: `28.11.2026`, `28 Nov 2026`,
/// ISO) and time (`HH:MM`) of `zone` into UTC.
pub fn parse_local(date: &str, time: &str, zone: Zone) -> Option<DateTime<Utc>> {
    let d = crate::ui::words::parse_day(date)?;
    let t = NaiveTime::parse_from_str(time.trim(), "%H:%M").ok()?;
    zone.instant_of(d.and_time(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_expiry_is_read_and_shown_in_the_zone_given() {
        let istanbul = Zone::hours(3);
        let at = parse_local("2026-11-23", "18:30", istanbul).expect("a valid moment");
        assert_eq!(at.to_rfc3339(), "2026-11-23T15:30:00+00:00");
        assert_eq!(local_time(at, istanbul, Lang::Tr), "23.11.2026 18:30");
        assert_eq!(
            local_time(at, Zone::hours(-5), Lang::En),
            "23 Nov 2026, 10:30"
        );
        let mut form = NewLinkForm::new(String::new());
        form.set_custom_expiry(at, Zone::hours(-5), Lang::Tr);
        assert_eq!(
            (form.expiry_date.as_str(), form.expiry_time.as_str()),
            ("23.11.2026", "10:30")
        );
        assert!(form.sync(at, Zone::hours(-5)));
        assert_eq!(form.draft.expiry, Some(at));
    }
}
