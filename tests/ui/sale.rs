//! The result view and the customer display on their own (no server): what comes first,
//! which button is loud, Cancel link apart and confirmed, the payment page named by host
//! alone, and the customer display's status in the pill of its meaning. Driven by role and
//! label (`egui_kittest`), with the visual system's record of what was drawn
//! (`widgets::shown`).

use std::collections::HashMap;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use paydesk::app::Command;
use paydesk::domain::{BarcodeIndex, Link};
use paydesk::lang::Lang;
use paydesk::ui::ViewCtx;
use paydesk::ui::link_result::{Origin, ShownLink};
use paydesk::ui::theme::{ButtonKind, Palette, StatusMeaning};
use paydesk::ui::widgets::{Shown, ShownWhat, shown};
use paydesk::ui::{LinkCommand, theme};

struct Result {
    shown: ShownLink,
    commands: Vec<Command>,
}

fn link(json: serde_json::Value) -> Link {
    serde_json::from_value::<paydesk::api::wire::PaymentLink>(json)
        .map(Link::from)
        .expect("a link")
}

fn waiting() -> Link {
    link(serde_json::json!({
        "id": "lnk_1",
        "orderNumber": "PD-20261126-A1B20001",
        "description": "Table 12",
        "amount": 250.00,
        "currency": "TRY",
        "status": "PENDING",
        "paymentUrl": "http://127.0.0.1:47110/pay/lnk_1?token=abcdef",
    }))
}

/// The result view of `link` in the counter's window (1024×768 less the navigation).
fn result_view(link: Link) -> Harness<'static, Result> {
    let state = Result {
        shown: ShownLink::new(link, Origin::Created),
        commands: Vec::new(),
    };
    Harness::builder()
        .with_size([1024.0, 768.0])
        .with_context_setup(theme::install)
        .build_ui_state(
            |ui, s: &mut Result| {
                paydesk::ui::fonts::install(ui.ctx());
                let catalog = HashMap::new();
                let barcodes = BarcodeIndex::default();
                let mut cx = ViewCtx {
                    lang: Lang::En,
                    palette: Palette::for_mode(false),
                    now: "2026-11-26T09:00:00Z".parse().expect("a time"),
                    zone: paydesk::clock::Zone::hours(3),
                    catalog: &catalog,
                    barcodes: &barcodes,
                    limits: paydesk::domain::KeyLimits::default(),
                    sandbox: true,
                    resend: paydesk::ui::ResendView::default(),
                    form_lock: None,
                    commands: &mut s.commands,
                };
                egui::Panel::left("nav")
                    .exact_size(theme::NAV_WIDTH)
                    .show(ui, |_| {});
                egui::CentralPanel::default().show(ui, |ui| s.shown.ui(ui, &mut cx, false));
            },
            state,
        )
}

fn buttons(h: &Harness<'_, Result>) -> Vec<Shown> {
    shown(&h.ctx)
        .into_iter()
        .filter(|s| matches!(s.what, ShownWhat::Button(_)))
        .collect()
}

fn button(h: &Harness<'_, Result>, text: &str) -> Shown {
    buttons(h)
        .into_iter()
        .find(|s| s.text == text)
        .unwrap_or_else(|| panic!("a button {text}"))
}

/// Every node whose label or value holds `needle`.
fn saying(h: &Harness<'_, Result>, needle: &str) -> usize {
    h.query_all_by(|n| {
        [n.label(), n.value()]
            .into_iter()
            .flatten()
            .any(|t| t.contains(needle))
    })
    .count()
}

#[test]
fn the_customer_display_is_the_one_primary_and_cancel_link_sits_apart_quiet_until_asked() {
    let mut h = result_view(waiting());
    h.run_steps(2);
    let all = buttons(&h);
    let primaries: Vec<&Shown> = all
        .iter()
        .filter(|s| s.what == ShownWhat::Button(ButtonKind::Primary))
        .collect();
    assert_eq!(primaries.len(), 1, "{all:#?}");
    assert_eq!(primaries[0].text, "Customer display");
    assert!(primaries[0].icon);
    assert_eq!(
        button(&h, "Print slip").what,
        ShownWhat::Button(ButtonKind::Secondary)
    );
    // The QR, the amount and the status come first.
    h.get_by_role_and_label(Role::Image, "Scan to pay");
    let amount = h.get_by_label("₺250.00").rect();
    let status = h.get_by_label("Waiting for payment").rect();
    let display = button(&h, "Customer display").rect;
    assert!(amount.bottom() <= status.top() && status.bottom() <= display.top());

    // Cancel link: quiet (issue 29: nothing red to press by mistake), in a row of its own
    // below every other button, with room between; red only in its confirmation.
    let cancel = button(&h, "Cancel link");
    assert_eq!(cancel.what, ShownWhat::Button(ButtonKind::Quiet));
    assert!(cancel.icon);
    for other in all.iter().filter(|s| s.text != "Cancel link") {
        assert!(
            cancel.rect.top() >= other.rect.bottom() + theme::SPACE_M,
            "Cancel link at {:?} is close to {} at {:?}",
            cancel.rect,
            other.text,
            other.rect
        );
    }

    // One click asks; only the confirmation's Cancel link sends the cancel.
    h.get_by_label("Cancel link").click();
    h.run_steps(2);
    assert!(h.state().commands.is_empty());
    h.get_by_label("A cancelled link can no longer be paid.");
    // The confirmation names the verbs, never Yes and No.
    assert!(h.query_by_role_and_label(Role::Button, "Yes").is_none());
    h.get_by_role_and_label(Role::Button, "Keep link").click();
    h.run_steps(2);
    assert!(h.state().commands.is_empty());
    h.get_by_label("Cancel link").click();
    h.run_steps(2);
    assert_eq!(
        button(&h, "Cancel link").what,
        ShownWhat::Button(ButtonKind::Destructive)
    );
    h.get_by_role_and_label(Role::Button, "Cancel link").click();
    h.run_steps(2);
    assert!(matches!(
        h.state().commands.as_slice(),
        [Command::Link(LinkCommand::Cancel { id })] if id == "lnk_1"
    ));
}

#[test]
fn the_payment_page_is_named_by_host_and_a_loopback_one_reads_this_computer() {
    let mut referenced = waiting();
    referenced.reference_number = Some("SBX000000009".into());
    let mut h = result_view(referenced);
    h.run_steps(2);
    // Where the page is and the provider's reference wait behind Details (issue 29).
    assert_eq!(saying(&h, "Payment page"), 0, "folded at first");
    assert_eq!(saying(&h, "SBX"), 0, "no reference on the working view");
    h.get_by_label("Details").click();
    h.run_steps(2);
    h.get_by_label("Payment page: this computer");
    h.get_by_label("Reference: SBX000000009");
    assert_eq!(saying(&h, "127.0.0.1"), 0, "no loopback address on screen");
    assert_eq!(saying(&h, "http"), 0, "no address at all");

    let mut real = waiting();
    real.payment_url = Some("https://pay.example.com.tr/l/abc?token=secret".into());
    let mut h = result_view(real);
    h.run_steps(2);
    h.get_by_label("Details").click();
    h.run_steps(2);
    h.get_by_label("Payment page: pay.example.com.tr");
    assert_eq!(saying(&h, "token"), 0);
    // Copy link still copies the whole address (it sits under More).
    h.get_by_label("More").click();
    h.run_steps(2);
    h.get_by_label("Copy link").click();
    h.run_steps(2);
    assert!(matches!(
        h.state().commands.as_slice(),
        [Command::Link(LinkCommand::CopyText { text })]
            if text == "https://pay.example.com.tr/l/abc?token=secret"
    ));
}

#[test]
fn a_paid_link_says_paid_across_the_view_as_large_as_the_customer_display() {
    let mut paid = waiting();
    paid.status = paydesk::domain::LinkStatus::Completed;
    paid.paid = Some("250.00".parse().expect("a decimal"));
    let mut h = result_view(paid);
    h.run_steps(2);
    let banner = h.get_by_label("Paid ✓").rect();
    // The banner's text is drawn at the customer display's size: its line is at least that
    // tall, and it comes before the QR.
    assert!(
        banner.height() >= paydesk::ui::link_result::CUSTOMER_FINAL_SIZE,
        "{banner:?}"
    );
    let qr = h.get_by_role_and_label(Role::Image, "Scan to pay").rect();
    assert!(banner.bottom() <= qr.top());
    // No Cancel link on a final link.
    assert!(buttons(&h).iter().all(|s| s.text != "Cancel link"));
}

#[test]
fn a_paid_sale_offers_the_next_sale_first_and_the_customer_display_after_it() {
    let mut paid = waiting();
    paid.status = paydesk::domain::LinkStatus::Completed;
    paid.paid = Some("250.00".parse().expect("a decimal"));
    let mut h = result_view(paid);
    h.run_steps(2);
    let primaries: Vec<Shown> = buttons(&h)
        .into_iter()
        .filter(|s| s.what == ShownWhat::Button(ButtonKind::Primary))
        .collect();
    assert_eq!(primaries.len(), 1, "{primaries:#?}");
    assert_eq!(primaries[0].text, "New sale");
    let display = button(&h, "Customer display");
    assert_eq!(display.what, ShownWhat::Button(ButtonKind::Secondary));
    assert!(primaries[0].rect.bottom() <= display.rect.top());
    h.get_by_label("New sale").click();
    h.run_steps(2);
    assert!(matches!(
        h.state().commands.as_slice(),
        [Command::Link(LinkCommand::New)]
    ));
}

#[test]
fn a_cancelled_or_expired_link_shows_no_qr_and_hands_out_no_address() {
    for (cancelled, says) in [(true, "Cancelled"), (false, "Expired")] {
        let mut over = waiting();
        over.status = paydesk::domain::LinkStatus::Expired;
        let mut h = result_view(over);
        h.state_mut().shown.on_known_cancelled(cancelled);
        h.run_steps(2);
        assert!(
            h.query_by_role_and_label(Role::Image, "Scan to pay")
                .is_none(),
            "{says}: a scannable QR is still shown"
        );
        assert!(saying(&h, "This link can no longer be paid") > 0, "{says}");
        assert!(saying(&h, says) > 0, "{says}: its status is said");
        for gone in [
            "Customer display",
            "Full screen",
            "Print slip",
            "Cancel link",
        ] {
            assert!(
                buttons(&h).iter().all(|s| s.text != gone),
                "{says}: {gone} is still offered"
            );
        }
        // No menu to copy, save or mail the address.
        assert!(
            h.query_by_role_and_label(Role::Button, "More").is_none(),
            "{says}"
        );
        assert_eq!(
            button(&h, "New sale").what,
            ShownWhat::Button(ButtonKind::Primary),
            "{says}"
        );
    }
}

struct Display {
    shown: ShownLink,
}

fn customer_display(link: Link) -> Harness<'static, Display> {
    Harness::builder()
        .with_size([900.0, 760.0])
        .with_context_setup(theme::install)
        .build_ui_state(
            |ui, s: &mut Display| {
                paydesk::ui::fonts::install(ui.ctx());
                let palette = Palette::for_mode(false);
                egui::CentralPanel::default()
                    .frame(egui::Frame::new().fill(palette.customer_background))
                    .show(ui, |ui| {
                        s.shown
                            .customer_ui(ui, &palette, Lang::En, "Kadıköy Kahve Evi");
                    });
            },
            Display {
                shown: ShownLink::new(link, Origin::Created),
            },
        )
}

/// Whether the last frame painted a rectangle filled with `fill` around `rect` (a pill
/// behind its text).
fn filled_behind(h: &Harness<'_, Display>, rect: egui::Rect, fill: egui::Color32) -> bool {
    fn any(shape: &egui::Shape, rect: egui::Rect, fill: egui::Color32) -> bool {
        match shape {
            egui::Shape::Rect(r) => r.fill == fill && r.rect.contains_rect(rect),
            egui::Shape::Vec(shapes) => shapes.iter().any(|s| any(s, rect, fill)),
            _ => false,
        }
    }
    h.output().shapes.iter().any(|c| any(&c.shape, rect, fill))
}

#[test]
fn the_customer_display_shows_waiting_and_part_paid_in_their_pills() {
    let palette = Palette::for_mode(false);
    let mut h = customer_display(waiting());
    h.run_steps(2);
    h.get_by_label("Waiting for payment");
    h.get_by_role_and_label(Role::Label, "Scan to pay");
    let waiting_rect = h.get_by_label("Waiting for payment").rect();

    let mut part = waiting();
    part.allow_partial_payment = true;
    part.paid = Some("200.00".parse().expect("a decimal"));
    part.remaining = Some("50.00".parse().expect("a decimal"));
    let mut h2 = customer_display(part);
    h2.run_steps(2);
    h2.get_by_label("Partially paid");
    h2.get_by_label("₺200.00 paid · ₺50.00 left");
    let part_rect = h2.get_by_label("Partially paid").rect();

    // Each pill in the colour of its meaning, the same as in every list.

    assert!(filled_behind(
        &h,
        waiting_rect,
        palette.pill(StatusMeaning::Waiting).fill
    ));
    assert!(filled_behind(
        &h2,
        part_rect,
        palette.pill(StatusMeaning::PartlyPaid).fill
    ));
    assert!(!filled_behind(
        &h2,
        part_rect,
        palette.pill(StatusMeaning::Waiting).fill
    ));

    // A final state still fills the screen.
    let mut paid = waiting();
    paid.status = paydesk::domain::LinkStatus::Completed;
    let mut h = customer_display(paid);
    h.run_steps(2);
    h.get_by_label("Paid");
    assert!(h.query_by_label("Waiting for payment").is_none());
}

/// The customer display faces the customer: centred both ways, not a word about keys, and
/// once paid, "Paid", the amount and the shop in type read from across the room, filling
/// the middle of the screen rather than its top.
#[test]
fn the_customer_display_is_centred_says_nothing_of_keys_and_its_paid_screen_reads_from_afar() {
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(900.0, 760.0));
    let mut h = customer_display(waiting());
    h.run_steps(3);
    assert!(h.query_by_label_contains("Esc").is_none());
    let qr = h.get_by_role_and_label(Role::Image, "Scan to pay").rect();
    let name = h.get_by_label("Kadıköy Kahve Evi").rect();
    let (top, bottom) = (name.top(), qr.bottom());
    assert!(
        (top - (window.height() - bottom)).abs() <= 24.0,
        "as much room above ({top}) as below ({})",
        window.height() - bottom
    );
    assert!((qr.center().x - window.center().x).abs() <= 2.0, "{qr:?}");

    let mut paid = waiting();
    paid.status = paydesk::domain::LinkStatus::Completed;
    let mut h = customer_display(paid);
    h.run_steps(3);
    assert!(h.query_by_label_contains("Esc").is_none());
    let word = h.get_by_label("Paid").rect();
    let shop = h.get_by_label("Kadıköy Kahve Evi").rect();
    // Large: "Paid" at least 96 points high on a 760-point window.
    assert!(word.height() >= 96.0, "{word:?}");
    // The tick, "Paid", the amount and the shop sit in the middle, as much room above as below.
    let top = h
        .query_all_by(|n| n.role() == Role::Label)
        .map(|n| n.rect().top())
        .fold(f32::INFINITY, f32::min);
    let below = window.height() - shop.bottom();
    assert!(
        (top - below).abs() <= 24.0 && top > window.height() * 0.15,
        "the paid screen sits in the middle, not at the top: {top} above, {below} below"
    );
}
