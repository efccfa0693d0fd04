//! A link after creation (or picked from History): its QR, amount, order number, reference and
//! status, with copy, save-as-PNG, print slip, share, cancel and "New link"; and the customer
//! display, a second window facing the customer with the QR as large as the screen allows,
//! which flips to a large "Paid ✓", "Expired" or "Cancelled" when the link reaches a final
//! state.
//!
//! While a link is shown and not final, the app's background refresh (`crate::board`) asks for
//! its detail every few seconds with backoff, through the same schedule as the open-links
//! board; this view only draws what the last answer said.

use egui::{Align, Layout, RichText, Ui, ViewportBuilder, ViewportId};
use rust_decimal::Decimal;

use crate::domain::Link;
use crate::domain::wire_format::percent_encode;
use crate::domain::{Currency, LinkStatus, format_amount};
use crate::lang::Lang;
use crate::printer::Delivered;
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::LinkCommand;
use crate::ui::problem::{Explain, Note, Problem};
use crate::ui::text::UiText;
use crate::ui::theme::{self, Badge, Palette, StatusMeaning};
use crate::ui::widgets::{self, QrView};
use crate::ui::words::local_time;

/// The id of the customer display's window.
pub fn customer_viewport_id() -> ViewportId {
    ViewportId::from_hash_of("paydesk-customer-display")
}

/// What an answer did to the shown link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// The poll or cancel it answered is over (the next poll can be scheduled).
    pub request_done: bool,
    /// The status or the paid amount on screen changed.
    pub changed: bool,
}

/// Where a shown link was opened from (which view shows it, and where Back goes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Just created: New link shows it, with "New link" to start the next sale.
    Created,
    /// Opened from History.
    History,
    /// Opened from the open-links board.
    Board,
}

/// The customer display's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CustomerDisplay {
    /// Shown.
    open: bool,
    /// Full screen.
    fullscreen: bool,
}

impl CustomerDisplay {
    /// Whether the window is shown.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Whether it fills its screen.
    pub fn is_fullscreen(&self) -> bool {
        self.fullscreen
    }

    /// Staff opened it (full screen or not) or closed it.
    pub fn on_asked(&mut self, open: bool, fullscreen: bool) {
        self.open = open;
        self.fullscreen = open && fullscreen;
    }

    /// The link it shows was put away, or its window closed: it closes.
    pub fn close(&mut self) {
        self.open = false;
    }
}

/// A link on screen.
#[derive(Debug)]
pub struct ShownLink {
    /// The server's last word on the link.
    link: Link,
    /// Whether this app cancelled it (the server reports a cancelled link as EXPIRED).
    cancelled: bool,
    /// The QR in the main window.
    qr: QrView,
    /// The QR on the customer display.
    customer_qr: QrView,
    /// The cancel confirmation is open.
    confirm_cancel: bool,
    /// A short note (copied, saved to ..., an error).
    note: Option<Note>,
    /// A cancel request is out (Refresh and Cancel wait for it).
    cancelling: bool,
    /// A slip is being printed (Print slip waits for it, so one click is one slip).
    printing: bool,
    /// The number of the detail request that is out (a status poll or Refresh), if any. It never
    /// disables a button: staff can cancel while the status is being fetched.
    polling: Option<u64>,
    /// The number of the request whose answer is on screen; an older answer arriving later is
    /// dropped, so a poll sent before a cancel never shows the link as pending again. Requests
    /// are numbered by the app, across links, in the order they are sent.
    applied: u64,
    /// Where it was opened from (History and the board show "Back").
    origin: Origin,
    /// The Send form, while open: what was typed stays through a failed send.
    send: Option<SendForm>,
    /// A send is out (its button waits for it).
    sending: bool,
    /// A renewal ("Send a new link") is out (its button waits for it).
    renewing: bool,
    /// The order number of its renewal, once known: no second one is offered.
    renewed_as: Option<String>,
}

/// How the Send form sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// WhatsApp, through the desktop's opener.
    WhatsApp,
    /// E-mail, through the shop's SMTP account.
    Email,
    /// Onto the clipboard, for any other channel.
    Copy,
}

/// What the Send form holds.
#[derive(Debug, Clone)]
pub struct SendForm {
    /// The channel chosen.
    pub channel: Channel,
    /// The number, as typed (filled from the link's payer phone).
    pub phone: String,
    /// The address, as typed (filled from the link's payer e-mail).
    pub email: String,
    /// The message's language.
    pub lang: Lang,
    /// The link's one reminder, not a first send (the board's "Remind").
    pub reminder: bool,
}

impl SendForm {
    /// A form for `link`, its payer's contact filled in, the message in `lang`.
    fn of(link: &Link, lang: Lang) -> Self {
        let phone = match (&link.phone_country_code, &link.phone_number) {
            (Some(cc), Some(n)) if !n.trim().is_empty() => {
                format!("+{} {}", cc.trim().trim_start_matches('+'), n.trim())
            }
            _ => String::new(),
        };
        let channel = if phone.is_empty() && link.email.is_some() {
            Channel::Email
        } else {
            Channel::WhatsApp
        };
        Self {
            channel,
            phone,
            email: link.email.clone().unwrap_or_default(),
            lang,
            reminder: false,
        }
    }
}

impl ShownLink {
    /// Shows `link`.
    pub fn new(link: Link, origin: Origin) -> Self {
        Self {
            link,
            cancelled: false,
            qr: QrView::default(),
            customer_qr: QrView::default(),
            confirm_cancel: false,
            note: None,
            cancelling: false,
            printing: false,
            polling: None,
            applied: 0,
            origin,
            send: None,
            sending: false,
            renewing: false,
            renewed_as: None,
        }
    }

    /// Opens the Send form (the board's and History's row menus).
    pub fn open_send(&mut self, lang: Lang) {
        if self.send.is_none() {
            self.send = Some(SendForm::of(&self.link, lang));
        }
    }

    /// The Send form, while open.
    pub fn send_form(&self) -> Option<&SendForm> {
        self.send.as_ref()
    }

    /// Opens the Send form for the link's one reminder, on WhatsApp (the board's "Remind").
    pub fn open_reminder(&mut self, lang: Lang) {
        let mut form = SendForm::of(&self.link, lang);
        form.channel = Channel::WhatsApp;
        form.reminder = true;
        self.send = Some(form);
    }

    /// Opens the Send form on `channel` (a renewal goes the way the link it renews went).
    pub fn open_send_by(&mut self, channel: Channel, lang: Lang) {
        let mut form = SendForm::of(&self.link, lang);
        form.channel = channel;
        self.send = Some(form);
    }

    /// Whether the link was renewed, and as which order number.
    pub fn on_renewal_known(&mut self, renewed_as: Option<String>) {
        self.renewed_as = renewed_as;
    }

    /// The renewal was asked for.
    pub fn on_renew_sent(&mut self) {
        self.renewing = true;
    }

    /// The renewal ended without a new link: why, in the note.
    pub fn on_renew_failed(&mut self, sentence: String) {
        self.renewing = false;
        self.note = Some(Note::Failed(Problem {
            sentence,
            detail: None,
        }));
    }

    /// A note that something went well (a renewal's "Renews …").
    pub fn note_done(&mut self, words: String) {
        self.note = Some(Note::Done(words));
    }

    /// A send ended: its outcome in the note; the form keeps what was typed.
    pub fn on_sent(&mut self, result: Result<String, String>) {
        self.sending = false;
        self.note = Some(match result {
            Ok(words) => Note::Done(words),
            Err(sentence) => Note::Failed(Problem {
                sentence,
                detail: None,
            }),
        });
    }

    /// The server's last word on the link.
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// Whether this app cancelled it (the server reports a cancelled link as EXPIRED).
    pub fn is_cancelled(&self) -> bool {
        self.cancelled
    }

    /// Where it was opened from.
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The number of the detail request that is out, if any.
    pub fn polling(&self) -> Option<u64> {
        self.polling
    }

    /// Whether a slip is being printed.
    pub fn is_printing(&self) -> bool {
        self.printing
    }

    /// Whether a cancel request is out.
    pub fn is_cancelling(&self) -> bool {
        self.cancelling
    }

    /// The short note under the actions (copied, saved to ..., an error).
    pub fn note(&self) -> Option<&Note> {
        self.note.as_ref()
    }

    /// Whether this app cancelled the link, as its history says (opened from History).
    pub fn on_known_cancelled(&mut self, cancelled: bool) {
        self.cancelled = cancelled;
    }

    /// The detail request `seq` (a status poll or Refresh) was sent.
    pub fn on_poll_sent(&mut self, seq: u64) {
        self.polling = Some(seq);
    }

    /// The detail request `seq` ended without an answer.
    pub fn on_poll_ended(&mut self, seq: u64) {
        if self.polling == Some(seq) {
            self.polling = None;
        }
    }

    /// The cancel request was sent.
    pub fn on_cancel_sent(&mut self) {
        self.cancelling = true;
    }

    /// The cancel needs a manager's approval: nothing is out until it is given.
    pub fn on_cancel_held(&mut self) {
        self.cancelling = false;
    }

    /// A detail or cancel request failed: why, under the actions.
    pub fn on_request_failed(&mut self, problem: Problem) {
        self.note = Some(Note::Failed(problem));
    }

    /// The slip was sent to print.
    pub fn on_printing(&mut self, lang: Lang) {
        self.printing = true;
        self.note = Some(Note::Done(UiText::Printing.get(lang).to_owned()));
    }

    /// The slip was printed on `printer`, saved as a PDF, or not.
    pub fn on_printed(&mut self, result: Result<Delivered, impl Explain>, lang: Lang) {
        self.printing = false;
        self.note = Some(match result {
            Ok(Delivered::Printed { printer }) => {
                Note::Done(format!("{} {printer}", UiText::SlipPrinted.get(lang)))
            }
            Ok(Delivered::Saved(path)) => Note::Done(format!(
                "{} {}",
                UiText::SlipSaved.get(lang),
                path.display()
            )),
            Err(e) => Note::Failed(e.problem(lang)),
        });
    }

    /// The QR was saved (the note says where), the dialog closed (`None`), or it failed.
    pub fn on_qr_saved(&mut self, note: Option<Note>) {
        self.note = note;
    }

    /// The desktop's opener did not take the address.
    pub fn on_open_failed(&mut self, detail: String, lang: Lang) {
        self.note = Some(Note::Failed(Problem {
            sentence: UiText::OpenFailed.get(lang).to_owned(),
            detail: Some(detail),
        }));
    }

    /// The worker is gone: no request of this link is out any more.
    pub fn on_worker_lost(&mut self) {
        self.cancelling = false;
        self.polling = None;
        self.printing = false;
    }

    /// Test set-up: the link as the server would have said it.
    #[cfg(any(test, feature = "inspect"))]
    pub fn link_mut(&mut self) -> &mut Link {
        &mut self.link
    }

    /// The link's status (PENDING when the server did not say).
    pub fn status(&self) -> LinkStatus {
        self.link.status.clone()
    }

    /// Takes the answer to request `seq` (a cancel when `cancel`); `link` is `None` when the
    /// request failed. The link on screen is replaced only by an answer newer than the one it
    /// came from, so a status poll sent before a cancel and answered after it is dropped.
    pub fn take_answer(&mut self, seq: u64, cancel: bool, link: Option<Link>) -> Answer {
        let poll_done = self.polling == Some(seq);
        if poll_done {
            self.polling = None;
        }
        if cancel {
            self.cancelling = false;
        }
        let mut changed = false;
        if let Some(link) = link {
            self.cancelled |= cancel;
            if seq > self.applied {
                self.applied = seq;
                changed = link.status != self.link.status || link.paid != self.link.paid;
                self.link = link;
            }
        }
        Answer {
            request_done: poll_done || cancel,
            changed,
        }
    }

    /// Whether polling should stop.
    pub fn is_final(&self) -> bool {
        self.status().is_final()
    }

    /// Whether the result view's QR shows this link's payment page (it was drawn).
    pub fn qr_drawn(&self) -> bool {
        self.link
            .payment_url
            .as_deref()
            .is_some_and(|u| self.qr.text() == u)
    }

    /// Whether the link can no longer be paid at all (cancelled, expired, refused): its QR
    /// and address are not shown to anyone any more.
    pub fn is_void(&self) -> bool {
        self.is_final() && self.status() != LinkStatus::Completed
    }

    /// The status as people read it.
    pub fn status_text(&self, lang: Lang) -> String {
        status_text(&self.status(), self.cancelled, lang)
    }

    /// Whether money came in and more is to come (not cancelled, not paid in full).
    pub fn partly_paid(&self) -> bool {
        self.link.paid_so_far() > Decimal::ZERO
            && self.status() != LinkStatus::Completed
            && !self.cancelled
    }

    /// Draws the result view: the QR, the amount and the status first (a paid link says so as
    /// large as the customer display); the customer display as the primary action and the
    /// slip beside it; the rest secondary; Cancel link apart at the bottom, confirmed.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, customer_open: bool) {
        let lang = cx.lang;
        let status = self.status();
        let url = self.link.payment_url.clone();
        let origin = self.origin;
        // Once the sale is over, "New sale" is the view's main action: no second one here.
        let over = self.is_final();
        let help = if self.is_void() {
            UiText::LinkHelpVoid
        } else {
            UiText::LinkHelp
        };
        widgets::page_header_ui(ui, UiText::LinkTitle.get(lang), help.get(lang), |ui| {
            // The way to the next sale, at touch height, its words on its middle line.
            ui.spacing_mut().interact_size.y = theme::TOUCH_HEIGHT;
            let row = egui::vec2(0.0, theme::TOUCH_HEIGHT);
            ui.allocate_ui_with_layout(row, egui::Layout::right_to_left(Align::Center), |ui| {
                if origin == Origin::Created {
                    if !over
                        && widgets::Action::secondary(UiText::NewLink.get(lang))
                            .icon(theme::icon::NEW_LINK)
                            .show_ui(ui)
                            .clicked()
                    {
                        cx.emit(Command::Link(LinkCommand::New));
                    }
                } else if widgets::Action::secondary(UiText::Back.get(lang))
                    .show_ui(ui)
                    .clicked()
                {
                    cx.emit(Command::Link(LinkCommand::Close));
                }
            });
        });
        if status == LinkStatus::Completed {
            paid_banner_ui(ui, &cx.palette, lang);
            ui.add_space(theme::SPACE_M);
        }
        egui::ScrollArea::vertical()
            .id_salt("link-result-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.horizontal_top(|ui| {
                    ui.vertical(|ui| {
                        let side = ui
                            .available_height()
                            .min(ui.available_width() * QR_SHARE)
                            .clamp(QR_MIN_SIDE, QR_MAX_SIDE);
                        if self.is_void() {
                            // Nothing a customer could scan: the link takes no payment (its
                            // status is in the pill beside).
                            let words = UiText::NoLongerPayable.get(lang);
                            widgets::void_qr_ui(ui, &cx.palette, side, words);
                        } else {
                            self.qr_ui(ui, cx, url.as_deref(), side);
                        }
                    });
                    ui.add_space(theme::SPACE_M);
                    ui.vertical(|ui| {
                        self.facts_ui(ui, cx, customer_open);
                    });
                });
                if !self.is_final() {
                    ui.add_space(theme::SPACE_L);
                    ui.separator();
                    self.cancel_ui(ui, cx);
                }
            });
    }

    /// The QR of the payment address, or why there is none.
    fn qr_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, url: Option<&str>, side: f32) {
        let lang = cx.lang;
        match url {
            Some(url) => {
                if self
                    .qr
                    .show_ui(ui, url, side, UiText::ScanToPay.get(lang))
                    .is_none()
                {
                    widgets::error_text_ui(
                        ui,
                        &cx.palette,
                        format!(
                            "{}: {}",
                            UiText::QrError.get(lang),
                            self.qr.error().unwrap_or_default()
                        ),
                    );
                }
            }
            None => {
                widgets::error_text_ui(ui, &cx.palette, UiText::NoPaymentUrl.get(lang));
            }
        }
    }

    /// The amount, the status pill, what is paid, the facts and the actions.
    fn facts_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, customer_open: bool) {
        let lang = cx.lang;
        let currency = self.link.currency;
        let status = self.status();
        if let Some(amount) = self.link.amount {
            ui.label(
                RichText::new(format_amount(amount, currency, lang))
                    .text_style(theme::amount_style())
                    .strong(),
            );
        }
        if status != LinkStatus::Completed {
            let meaning = StatusMeaning::of(&status, self.cancelled, self.partly_paid());
            pill_ui(
                ui,
                &self.status_text(lang),
                cx.palette.pill(meaning),
                theme::HEADING_SIZE,
            );
        }
        if self.link.allow_partial_payment || status == LinkStatus::Completed {
            paid_lines_ui(ui, &self.link, currency, lang);
        }
        ui.add_space(theme::SPACE_S);
        egui::Grid::new("link-facts").num_columns(2).show(ui, |ui| {
            let facts = [
                (UiText::Description, self.link.description.clone()),
                (UiText::OrderNumber, self.link.order_number.clone()),
                (
                    UiText::Expiry,
                    self.link.expiry.map(|at| local_time(at, cx.zone, lang)),
                ),
                (
                    UiText::Created,
                    self.link.created.map(|at| local_time(at, cx.zone, lang)),
                ),
            ];
            for (label, value) in facts {
                if let Some(v) = value.filter(|v| !v.is_empty()) {
                    ui.label(RichText::new(label.get(lang)).color(cx.palette.muted));
                    ui.label(v);
                    ui.end_row();
                }
            }
        });
        if !self.is_final() {
            widgets::hint_ui(ui, &cx.palette, UiText::Polling.get(lang));
        }
        ui.add_space(theme::SPACE_M);
        self.actions_ui(ui, cx, customer_open);
        self.send_ui(ui, cx);
        if let Some(note) = &self.note {
            crate::ui::problem::note_ui(ui, cx, note);
        }
        // What a clerk does not act on (the provider's reference, where the page is) waits
        // behind Details, for a call to the provider: last, under the actions.
        let reference = self.link.reference_number.clone().filter(|r| !r.is_empty());
        let page = self
            .link
            .payment_url
            .as_ref()
            .filter(|_| !self.is_void())
            .map(|url| UiText::PayPageOn.fill(lang, &[("host", &host_words(url, lang))]));
        if reference.is_some() || page.is_some() {
            egui::CollapsingHeader::new(UiText::Details.get(lang))
                .id_salt("link-details")
                .default_open(false)
                .show(ui, |ui| {
                    if let Some(r) = &reference {
                        ui.label(format!("{}: {r}", UiText::Reference.get(lang)));
                    }
                    if let Some(page) = &page {
                        widgets::hint_ui(ui, &cx.palette, page);
                    }
                });
        }
    }

    /// The customer display (primary) and the slip, then the rest; once the sale is over
    /// (paid, cancelled, expired), "New sale" first, and nothing that would show or hand out
    /// the address of a link that takes no payment.
    fn actions_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, customer_open: bool) {
        let lang = cx.lang;
        // Every action here at touch height.
        ui.spacing_mut().interact_size.y = theme::TOUCH_HEIGHT;
        let void = self.is_void();
        let url = self.link.payment_url.clone().filter(|_| !void);
        // The two main actions one above the other, as wide as each other.
        let width = ui.available_width().min(ACTION_WIDTH);
        let over = self.is_final();
        if over
            && self.origin == Origin::Created
            && widgets::Action::primary(theme::icon::NEW_LINK, UiText::NewSale.get(lang))
                .min_width(width)
                .show_ui(ui)
                .clicked()
        {
            cx.emit(Command::Link(LinkCommand::New));
        }
        self.renew_ui(ui, cx, width);
        if !void {
            let display = if over {
                widgets::Action::secondary(UiText::CustomerDisplay.get(lang))
                    .icon(theme::icon::CUSTOMER_DISPLAY)
            } else {
                widgets::Action::primary(
                    theme::icon::CUSTOMER_DISPLAY,
                    UiText::CustomerDisplay.get(lang),
                )
            };
            if display.min_width(width).show_ui(ui).clicked() {
                cx.emit(Command::Link(LinkCommand::CustomerDisplay {
                    open: !customer_open,
                    fullscreen: false,
                }));
            }
        }
        if url.is_some()
            && widgets::Action::secondary(UiText::PrintSlip.get(lang))
                .icon(theme::icon::PRINT)
                .enabled(!self.printing)
                .min_width(width)
                .show_ui(ui)
                .clicked()
        {
            cx.emit(Command::Link(LinkCommand::PrintSlip {
                link: Box::new(self.link.clone()),
            }));
        }
        // Sending to a customer not at the counter, and on the sandbox the test link's page
        // (the README's first sale pays it in a browser, through the desktop's opener): as
        // wide as the slip's button, so the row under them never wraps.
        if url.is_some()
            && !over
            && widgets::Action::secondary(UiText::SendToCustomer.get(lang))
                .icon(theme::icon::SEND)
                .min_width(width)
                .show_ui(ui)
                .clicked()
        {
            self.send = match self.send.take() {
                Some(_) => None,
                None => Some(SendForm::of(&self.link, lang)),
            };
        }
        if let Some(url) = url.as_ref().filter(|_| cx.sandbox && !over)
            && widgets::Action::secondary(UiText::OpenPayPage.get(lang))
                .icon(theme::icon::PAYMENTS)
                .min_width(width)
                .show_ui(ui)
                .clicked()
        {
            cx.emit(Command::Link(LinkCommand::OpenUrl { url: url.clone() }));
        }
        ui.add_space(theme::SPACE_S);
        ui.horizontal_wrapped(|ui| {
            // Every button here at touch height, "More" as tall as the others.
            ui.spacing_mut().interact_size.y = theme::TOUCH_HEIGHT;
            if !void
                && widgets::Action::secondary(UiText::FullScreen.get(lang))
                    .show_ui(ui)
                    .clicked()
            {
                cx.emit(Command::Link(LinkCommand::CustomerDisplay {
                    open: true,
                    fullscreen: true,
                }));
            }
            if widgets::Action::secondary(UiText::Refresh.get(lang))
                .icon(theme::icon::REFRESH)
                .enabled(!self.cancelling)
                .show_ui(ui)
                .clicked()
            {
                cx.emit(Command::Link(LinkCommand::Refresh {
                    id: self.link.id.clone(),
                }));
            }
            if let Some(url) = &url {
                self.more_menu_ui(ui, cx, url);
            }
        });
    }

    /// "More": copy the address, save the QR, e-mail it.
    fn more_menu_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, url: &str) {
        let lang = cx.lang;
        let url = url.to_owned();
        ui.menu_button(UiText::MoreActions.get(lang), |ui| {
            if widgets::Action::quiet(UiText::CopyUrl.get(lang))
                .icon(theme::icon::COPY)
                .show_ui(ui)
                .clicked()
            {
                cx.emit(Command::Link(LinkCommand::CopyText { text: url.clone() }));
                self.note = Some(crate::ui::problem::Note::Done(
                    UiText::Copied.get(lang).to_owned(),
                ));
                ui.close();
            }
            if widgets::Action::quiet(UiText::SaveQr.get(lang))
                .icon(theme::icon::DOWNLOAD)
                .show_ui(ui)
                .clicked()
            {
                cx.emit(Command::Link(LinkCommand::SaveQrPng {
                    url: url.clone(),
                    name: self.link.order_or_id().to_owned(),
                }));
                ui.close();
            }
            if widgets::Action::quiet(UiText::ShareMail.get(lang))
                .icon(theme::icon::MAIL)
                .show_ui(ui)
                .clicked()
            {
                cx.emit(Command::Link(LinkCommand::OpenUrl {
                    url: mailto(&self.link, lang),
                }));
                ui.close();
            }
        });
    }

    /// "Send a new link", for a link that can no longer be paid and took nothing.
    fn renew_ui(&self, ui: &mut Ui, cx: &mut ViewCtx<'_>, width: f32) {
        if let Some(order) = &self.renewed_as {
            let words = UiText::RenewedAs.fill(cx.lang, &[("order", order)]);
            ui.label(RichText::new(words).strong());
            return;
        }
        let nothing_paid = self.link.paid_so_far() == rust_decimal::Decimal::ZERO;
        // "New sale" is the main action of a sale just made: then this one is secondary.
        let action = if self.origin == Origin::Created {
            widgets::Action::secondary(UiText::RenewLink.get(cx.lang)).icon(theme::icon::SEND)
        } else {
            widgets::Action::primary(theme::icon::SEND, UiText::RenewLink.get(cx.lang))
        };
        if self.is_void()
            && nothing_paid
            && action
                .enabled(!self.renewing)
                .min_width(width)
                .show_ui(ui)
                .clicked()
        {
            cx.emit(Command::Link(LinkCommand::Renew {
                id: self.link.id.clone(),
            }));
        }
    }

    /// The Send form: the channel, the message's language, the number or address, and the
    /// one button that sends (or copies).
    fn send_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        if self.is_void() || self.is_final() {
            self.send = None;
        }
        let lang = cx.lang;
        let id = self.link.id.clone();
        let sending = self.sending;
        let Some(form) = &mut self.send else {
            return;
        };
        let mut send = None;
        let channel_before = form.channel;
        let reminder = form.reminder;
        let title = if reminder {
            UiText::RemindCustomer
        } else {
            UiText::SendToCustomer
        };
        ui.add_space(theme::SPACE_S);
        widgets::group_ui(ui, title.get(lang), |ui| {
            ui.horizontal_wrapped(|ui| {
                for (channel, text) in [
                    (Channel::WhatsApp, UiText::SendViaWhatsApp),
                    (Channel::Email, UiText::SendViaEmail),
                    (Channel::Copy, UiText::SendViaCopy),
                ] {
                    ui.selectable_value(&mut form.channel, channel, text.get(lang));
                }
            });
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(UiText::SendMessageLang.get(lang)).color(cx.palette.muted));
                for (choice, text) in [(Lang::Tr, "Türkçe"), (Lang::En, "English")] {
                    ui.selectable_value(&mut form.lang, choice, text);
                }
            });
            let (field, value, button, icon) = match form.channel {
                Channel::WhatsApp => (
                    Some(UiText::SendPhone),
                    &mut form.phone,
                    UiText::SendOpenWhatsApp,
                    theme::icon::SEND,
                ),
                Channel::Email => (
                    Some(UiText::SendEmailAddress),
                    &mut form.email,
                    UiText::SendByEmail,
                    theme::icon::MAIL,
                ),
                Channel::Copy => (
                    None,
                    &mut form.phone,
                    UiText::SendViaCopy,
                    theme::icon::COPY,
                ),
            };
            if let Some(field) = field {
                let label = ui.label(field.get(lang));
                ui.add(egui::TextEdit::singleline(value).desired_width(ACTION_WIDTH))
                    .labelled_by(label.id);
            }
            ui.add_space(theme::SPACE_XS);
            if widgets::Action::secondary(button.get(lang))
                .icon(icon)
                .enabled(!sending)
                .show_ui(ui)
                .clicked()
            {
                send = Some(match form.channel {
                    Channel::WhatsApp => crate::ui::command::SendVia::WhatsApp {
                        phone: form.phone.clone(),
                    },
                    Channel::Email => crate::ui::command::SendVia::Email {
                        to: form.email.clone(),
                    },
                    Channel::Copy => crate::ui::command::SendVia::Copy,
                });
            }
        });
        if form.channel != channel_before {
            // What another channel's send said no longer applies.
            self.note = None;
        }
        if let Some(via) = send {
            let message_lang = form.lang;
            self.sending = true;
            self.note = None;
            cx.emit(Command::Link(LinkCommand::Send {
                id,
                via,
                lang: message_lang,
                reminder,
            }));
        }
    }

    /// Cancel link, apart from everything else and asked twice.
    fn cancel_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        ui.add_space(theme::SPACE_S);
        if self.confirm_cancel {
            ui.label(RichText::new(UiText::CancelConfirm.get(lang)).color(cx.palette.warn));
            ui.horizontal(|ui| {
                if widgets::Action::secondary(UiText::KeepLink.get(lang))
                    .show_ui(ui)
                    .clicked()
                {
                    self.confirm_cancel = false;
                }
                ui.add_space(theme::SPACE_L);
                if widgets::Action::destructive(theme::icon::CANCEL, UiText::CancelLink.get(lang))
                    .enabled(!self.cancelling)
                    .show_ui(ui)
                    .clicked()
                {
                    self.confirm_cancel = false;
                    cx.emit(Command::Link(LinkCommand::Cancel {
                        id: self.link.id.clone(),
                    }));
                }
            });
            return;
        }
        // The words centred on the button beside them (a row is as tall as the interact size
        // when it starts), at touch height.
        ui.spacing_mut().interact_size.y = theme::TOUCH_HEIGHT;
        ui.horizontal(|ui| {
            ui.label(RichText::new(UiText::CancelApart.get(lang)).color(cx.palette.muted));
            // Quiet until asked again: the red button is the confirmation's.
            if widgets::Action::quiet(UiText::CancelLink.get(lang))
                .icon(theme::icon::CANCEL)
                .enabled(!self.cancelling)
                .show_ui(ui)
                .clicked()
            {
                self.confirm_cancel = true;
            }
        });
    }

    /// Draws the customer display's content (inside its own window), centred both ways.
    /// `merchant` is the shop name from Settings; when it is empty the display shows no name
    /// line (never a profile's name). While the link waits, its status shows in the pill of
    /// its meaning (waiting, or partly paid with what is left) above the QR; a final state
    /// fills the screen in its colour, in type sized to the window so a customer a few
    /// metres away reads it: a paid link says "Paid" with a tick, the amount and the shop.
    /// Nothing here speaks of keys: the screen faces the customer.
    pub fn customer_ui(&mut self, ui: &mut Ui, palette: &Palette, lang: Lang, merchant: &str) {
        let status = self.status();
        let rect = ui.max_rect();
        let final_badge = if status.is_final() {
            Some(palette.customer_final(&status))
        } else {
            None
        };
        let background = final_badge.map_or(palette.customer_background, |b| b.fill);
        let text_color = final_badge.map_or(palette.customer_text, |b| b.text);
        ui.painter().rect_filled(rect, 0.0, background);
        // Centred on last frame's height (kept by egui across links and states; the first
        // one is measured in a sizing pass, drawn on the next frame).
        let key = egui::Id::unique(("customer-display-height", status.is_final()));
        let known: Option<f32> = ui.ctx().data(|d| d.get_temp(key));
        let height = known.unwrap_or_default().min(rect.height());
        let top = ((rect.height() - height) / 2.0).max(0.0);
        let inner = egui::Rect::from_min_max(rect.min + egui::vec2(0.0, top), rect.max);
        let mut builder = egui::UiBuilder::new()
            .max_rect(inner)
            .layout(Layout::top_down(Align::Center));
        if known.is_none() {
            builder = builder.sizing_pass();
        }
        let drawn = ui.scope_builder(builder, |ui| {
            if status.is_final() {
                self.customer_final_ui(ui, text_color, lang, merchant, rect);
            } else {
                self.customer_waiting_ui(ui, palette, text_color, lang, merchant, rect);
            }
        });
        let drawn = drawn.response.rect.height();
        if known.is_none_or(|h| (drawn - h).abs() > 0.5) {
            ui.ctx().data_mut(|d| d.insert_temp(key, drawn));
            ui.ctx().request_repaint();
        }
    }

    /// The customer display while the link waits: the shop, the amount, the status, "Scan to
    /// pay" and the QR as large as the window leaves it.
    fn customer_waiting_ui(
        &mut self,
        ui: &mut Ui,
        palette: &Palette,
        text_color: egui::Color32,
        lang: Lang,
        merchant: &str,
        window: egui::Rect,
    ) {
        let status = self.status();
        let currency = self.link.currency;
        let partly_paid = self.partly_paid();
        let top = ui.cursor().top();
        if !merchant.trim().is_empty() {
            ui.label(
                RichText::new(merchant)
                    .size(CUSTOMER_NAME_SIZE)
                    .color(text_color),
            );
        }
        if let Some(amount) = self.link.amount {
            ui.label(
                RichText::new(format_amount(amount, currency, lang))
                    .size(CUSTOMER_AMOUNT_SIZE)
                    .strong()
                    .color(text_color),
            );
        }
        let Some(url) = self.link.payment_url.clone() else {
            return;
        };
        let meaning = StatusMeaning::of(&status, self.cancelled, partly_paid);
        let words = status_with_payment(&status, self.cancelled, partly_paid, lang);
        pill_ui(ui, &words, palette.pill(meaning), CUSTOMER_STATUS_SIZE);
        if partly_paid && let Some(left) = self.link.remaining {
            let paid = format_amount(self.link.paid_so_far(), currency, lang);
            let left = format_amount(left, currency, lang);
            ui.label(
                RichText::new(UiText::PaidOf.fill(lang, &[("paid", &paid), ("left", &left)]))
                    .size(CUSTOMER_STATUS_SIZE)
                    .color(text_color),
            );
        }
        ui.add_space(theme::SPACE_S);
        ui.label(
            RichText::new(UiText::ScanToPay.get(lang))
                .size(CUSTOMER_PROMPT_SIZE)
                .color(text_color),
        );
        // The QR takes what the window has left under the words above it.
        let above = ui.cursor().top() - top;
        let side = (window.height() - above - 2.0 * CUSTOMER_QR_ROOM)
            .min(window.width() - 2.0 * CUSTOMER_QR_ROOM);
        self.customer_qr.show_ui(
            ui,
            &url,
            side.max(CUSTOMER_QR_MIN_SIDE),
            UiText::ScanToPay.get(lang),
        );
    }

    /// The customer display once the link is over: a paid link's tick and "Paid", the amount
    /// and the shop; another end's status in words. Sized to the window.
    fn customer_final_ui(
        &self,
        ui: &mut Ui,
        text_color: egui::Color32,
        lang: Lang,
        merchant: &str,
        window: egui::Rect,
    ) {
        let status = self.status();
        // Read across a room: the sizes grow with the window (its first size is 1).
        let scale = (window.height() / CUSTOMER_WINDOW[1]).clamp(0.6, 2.5);
        if status == LinkStatus::Completed {
            ui.label(
                theme::icon::CHECK
                    .rich_text()
                    .size(CUSTOMER_FINAL_SIZE * 1.5 * scale)
                    .color(text_color),
            );
            ui.label(
                RichText::new(UiText::PaidWord.get(lang))
                    .size(CUSTOMER_FINAL_SIZE * scale)
                    .strong()
                    .color(text_color),
            );
        } else {
            ui.label(
                RichText::new(status_text(&status, self.cancelled, lang))
                    .size(CUSTOMER_FINAL_SIZE * 0.75 * scale)
                    .strong()
                    .color(text_color),
            );
        }
        if let Some(amount) = self.link.amount {
            ui.add_space(theme::SPACE_M * scale);
            ui.label(
                RichText::new(format_amount(amount, self.link.currency, lang))
                    .size(CUSTOMER_AMOUNT_SIZE * scale)
                    .strong()
                    .color(text_color),
            );
        }
        if !merchant.trim().is_empty() {
            ui.add_space(theme::SPACE_L * scale);
            ui.label(
                RichText::new(merchant)
                    .size(CUSTOMER_NAME_SIZE * scale)
                    .color(text_color),
            );
        }
    }
}

/// The share of the result view's width the QR takes at most.
pub const QR_SHARE: f32 = 0.55;
/// The smallest side of the result view's QR (points).
pub const QR_MIN_SIDE: f32 = 160.0;
/// The largest side of the result view's QR (points).
pub const QR_MAX_SIDE: f32 = 520.0;
/// The width of the result view's two main actions, one above the other.
pub const ACTION_WIDTH: f32 = 300.0;
// The customer display's type sizes are the theme's (read from a step away and more).
pub use crate::ui::theme::{
    CUSTOMER_AMOUNT_SIZE, CUSTOMER_FINAL_SIZE, CUSTOMER_NAME_SIZE, CUSTOMER_PROMPT_SIZE,
    CUSTOMER_STATUS_SIZE,
};
/// What the customer display keeps free around its QR (points).
pub const CUSTOMER_QR_ROOM: f32 = 40.0;
/// The smallest side of the customer display's QR (points).
pub const CUSTOMER_QR_MIN_SIDE: f32 = 120.0;
/// The customer display window's first size (points).
pub const CUSTOMER_WINDOW: [f32; 2] = [900.0, 760.0];

/// A status pill with its text at `size` points (the result view's and the customer
/// display's large pill; lists use `widgets::badge_ui`).
fn pill_ui(ui: &mut Ui, text: &str, badge: Badge, size: f32) -> egui::Response {
    // As wide as its words wherever it stands (a frame in a centred column would stretch).
    let rich = RichText::new(text).size(size).color(badge.text).strong();
    let galley = egui::WidgetText::from(rich.clone()).into_galley(
        ui,
        Some(egui::TextWrapMode::Extend),
        f32::INFINITY,
        egui::TextStyle::Body,
    );
    let margin = egui::vec2(
        f32::from(theme::PILL_MARGIN.left) * 2.0,
        f32::from(theme::PILL_MARGIN.top) * 2.0,
    );
    let (rect, _) = ui.allocate_exact_size(galley.size() + 2.0 * margin, egui::Sense::hover());
    ui.painter()
        .rect_filled(rect, theme::PILL_RADIUS, badge.fill);
    ui.put(rect.shrink2(margin), egui::Label::new(rich))
}

/// "Paid ✓" across the result view, as large as on the customer display.
fn paid_banner_ui(ui: &mut Ui, palette: &Palette, lang: Lang) {
    let badge = palette.customer_final(&LinkStatus::Completed);
    egui::Frame::new()
        .fill(badge.fill)
        .corner_radius(theme::CORNER_RADIUS)
        .inner_margin(egui::Margin::same(theme::PILL_MARGIN.left * 2))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.vertical_centered(|ui| {
                ui.label(
                    RichText::new(UiText::PaidCheck.get(lang))
                        .size(CUSTOMER_FINAL_SIZE)
                        .strong()
                        .color(badge.text),
                );
            });
        });
}

/// Where a payment address points, as staff read it: its host, or "this computer" for the
/// built-in sandbox on a loopback address; never the whole address.
pub fn host_words(url: &str, lang: Lang) -> String {
    let Ok(parsed) = url::Url::parse(url) else {
        return String::new();
    };
    match parsed.host() {
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => UiText::ThisComputer.get(lang).to_owned(),
        Some(url::Host::Ipv6(ip)) if ip.is_loopback() => UiText::ThisComputer.get(lang).to_owned(),
        Some(url::Host::Domain(d)) if d.eq_ignore_ascii_case("localhost") => {
            UiText::ThisComputer.get(lang).to_owned()
        }
        Some(host) => host.to_string(),
        None => String::new(),
    }
}

/// The viewport builder of the customer display.
pub fn customer_viewport(lang: Lang, fullscreen: bool) -> ViewportBuilder {
    ViewportBuilder::default()
        .with_title(format!("paydesk – {}", UiText::CustomerDisplay.get(lang)))
        .with_inner_size(CUSTOMER_WINDOW)
        .with_fullscreen(fullscreen)
}

fn paid_lines_ui(ui: &mut Ui, link: &Link, currency: Currency, lang: Lang) {
    if let Some(paid) = link.paid {
        ui.label(
            RichText::new(format!(
                "{}: {}",
                UiText::Paid.get(lang),
                format_amount(paid, currency, lang)
            ))
            .heading(),
        );
    }
    // Nothing left on a paid link is no news: not said.
    if let Some(rest) = link.remaining.filter(|r| !r.is_zero()) {
        ui.label(format!(
            "{}: {}",
            UiText::Remaining.get(lang),
            format_amount(rest, currency, lang)
        ));
    }
}

/// A link's status as a list row reads it (History, the board): "Cancelled" for a cancel made here, "Partially paid" for
/// an unfinished link with money on it.
pub fn status_with_payment(
    status: &LinkStatus,
    cancelled: bool,
    partly_paid: bool,
    lang: Lang,
) -> String {
    if partly_paid && !cancelled {
        return UiText::PartiallyPaid.get(lang).to_owned();
    }
    status_text(status, cancelled, lang)
}

/// A status as people read it; a link this app cancelled reads "Cancelled".
pub fn status_text(status: &LinkStatus, cancelled: bool, lang: Lang) -> String {
    let t = match status {
        LinkStatus::Expired if cancelled => UiText::StatusCancelled,
        LinkStatus::Pending => UiText::StatusPending,
        LinkStatus::Completed => UiText::StatusCompleted,
        LinkStatus::Rejected => UiText::StatusRejected,
        LinkStatus::Expired => UiText::StatusExpired,
        LinkStatus::UnderReview => UiText::StatusUnderReview,
        LinkStatus::Other(s) => return s.clone(),
    };
    t.get(lang).to_owned()
}

/// A `mailto:` URL carrying the payment URL (to the payer's e-mail when the link has one).
pub fn mailto(link: &Link, lang: Lang) -> String {
    let to = link.email_text();
    let body = format!("{} {}", UiText::ShareBody.get(lang), link.url());
    format!(
        "mailto:{}?subject={}&body={}",
        percent_encode(to),
        percent_encode(UiText::ShareSubject.get(lang)),
        percent_encode(&body)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link() -> Link {
        serde_json::from_str::<crate::api::wire::PaymentLink>(
            r#"{"id":"lnk_1","paymentUrl":"http://127.0.0.1:47110/pay/lnk_1?a=1&b=2","email":"ayşe@example.com"}"#,
        )
        .map(Link::from)
        .unwrap()
    }

    #[test]
    fn mailto_carries_the_exact_url_percent_encoded() {
        let m = mailto(&link(), Lang::En);
        assert_eq!(
            m,
            "mailto:ay%C5%9Fe%40example.com?subject=Your%20payment%20link&body=You%20can%20pay%20at%20this%20address%3A%20http%3A%2F%2F127.0.0.1%3A47110%2Fpay%2Flnk_1%3Fa%3D1%26b%3D2"
        );
    }

    fn with_status(status: &str) -> Link {
        serde_json::from_value::<crate::api::wire::PaymentLink>(
            serde_json::json!({"id": "lnk_1", "status": status}),
        )
        .map(Link::from)
        .unwrap()
    }

    #[test]
    fn a_poll_sent_before_a_cancel_and_answered_after_it_is_dropped() {
        let mut shown = ShownLink::new(with_status("PENDING"), Origin::Created);
        let poll = 1;
        shown.polling = Some(poll);
        // Staff cancel while the poll is out.
        shown.cancelling = true;
        let cancel = 2;

        let a = shown.take_answer(cancel, true, Some(with_status("EXPIRED")));
        assert_eq!(
            a,
            Answer {
                request_done: true,
                changed: true
            }
        );
        assert!(shown.cancelled && !shown.cancelling);
        assert_eq!(shown.status_text(Lang::En), "Cancelled");

        // The poll read the link before the cancel; its answer must not bring "pending" back.
        let a = shown.take_answer(poll, false, Some(with_status("PENDING")));
        assert_eq!(
            a,
            Answer {
                request_done: true,
                changed: false
            }
        );
        assert_eq!(shown.polling, None);
        assert_eq!(shown.status(), LinkStatus::Expired);
        assert!(shown.is_final());
    }

    #[test]
    fn a_failed_cancel_leaves_the_link_as_it_was_and_cancellable() {
        let mut shown = ShownLink::new(with_status("PENDING"), Origin::Created);
        shown.cancelling = true;
        let a = shown.take_answer(1, true, None);
        assert!(a.request_done && !a.changed);
        assert!(!shown.cancelled && !shown.cancelling);
        assert_eq!(shown.status(), LinkStatus::Pending);
    }

    #[test]
    fn a_newer_poll_answer_replaces_the_link() {
        let mut shown = ShownLink::new(with_status("PENDING"), Origin::Created);
        let first = 1;
        shown.polling = Some(first);
        assert!(
            !shown
                .take_answer(first, false, Some(with_status("PENDING")))
                .changed
        );
        let second = 2;
        shown.polling = Some(second);
        let a = shown.take_answer(second, false, Some(with_status("COMPLETED")));
        assert!(a.request_done && a.changed);
        assert_eq!(shown.status(), LinkStatus::Completed);
    }

    #[test]
    fn a_payment_address_reads_as_its_host_and_loopback_as_this_computer() {
        for url in [
            "http://127.0.0.1:47110/pay/lnk_1?a=1",
            "http://localhost:8080/pay/x",
            "http://[::1]:9000/pay/x",
        ] {
            assert_eq!(host_words(url, Lang::En), "this computer", "{url}");
        }
        assert_eq!(host_words(url_tr(), Lang::Tr), "bu bilgisayar");
        assert_eq!(
            host_words("https://pay.example.com.tr/l/abc?token=s", Lang::En),
            "pay.example.com.tr"
        );
        // A LAN address is another machine: its address is what staff can check.
        assert_eq!(
            host_words("http://192.168.1.20:47110/pay/x", Lang::En),
            "192.168.1.20"
        );
        assert_eq!(host_words("not a url", Lang::En), "");
    }

    fn url_tr() -> &'static str {
        "http://127.0.0.1:1/pay"
    }

    #[test]
    fn statuses_read_as_people_expect() {
        let cases = [
            (LinkStatus::Pending, false, Lang::En, "Waiting for payment"),
            (LinkStatus::Completed, false, Lang::Tr, "Ödendi"),
            (LinkStatus::Expired, false, Lang::En, "Expired"),
            (LinkStatus::Expired, true, Lang::En, "Cancelled"),
            (LinkStatus::Expired, true, Lang::Tr, "İptal edildi"),
            (
                LinkStatus::Other("REFUNDED".into()),
                false,
                Lang::Tr,
                "REFUNDED",
            ),
        ];
        for (s, cancelled, lang, want) in cases {
            assert_eq!(status_text(&s, cancelled, lang), want, "{s}");
        }
    }
}
