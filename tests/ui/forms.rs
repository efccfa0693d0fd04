//! The forms on their own (no server): what staff type, what they see under each field, and
//! the exact request a view hands to the app. Driven by role and label (`egui_kittest`).

use std::collections::HashMap;

use chrono::{DateTime, Datelike, Utc};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use paydesk::app::Command;
use paydesk::domain::{BarcodeIndex, CatalogVariant, Currency, KeyLimits};
use paydesk::lang::Lang;
use paydesk::ui::ViewCtx;
use paydesk::ui::card::CardForm;
use paydesk::ui::installments::InstallmentsForm;
use paydesk::ui::new_link::NewLinkForm;
use paydesk::ui::theme::Palette;
use paydesk::ui::{CardCommand, InstallmentsCommand, LinkCommand};
use rust_decimal::Decimal;

struct Form<F> {
    view: F,
    catalog: HashMap<String, CatalogVariant>,
    barcodes: BarcodeIndex,
    limits: KeyLimits,
    commands: Vec<Command>,
    now: DateTime<Utc>,
    /// The profile in use is a sandbox (`ViewCtx::sandbox`).
    sandbox: bool,
}

/// The forms' "now": a fixed moment (the views take it from `ViewCtx`, never the wall clock),
/// so every date rule is tested the same on every day.
fn now() -> DateTime<Utc> {
    "2026-11-20T09:00:00Z".parse().expect("an RFC 3339 time")
}

fn catalog() -> HashMap<String, CatalogVariant> {
    [
        ("var_simit", "Simit", "25.00", Currency::Try),
        ("var_fincan_eur", "Kahve fincanı", "18.50", Currency::Eur),
    ]
    .into_iter()
    .map(|(id, name, price, currency)| {
        (
            id.to_owned(),
            CatalogVariant {
                id: id.to_owned(),
                name: name.to_owned(),
                unit_price: price.parse::<Decimal>().expect("a price"),
                currency,
                barcode: None,
            },
        )
    })
    .collect()
}

fn harness<F: 'static>(
    form: F,
    draw: impl Fn(&mut F, &mut egui::Ui, &mut ViewCtx<'_>) + 'static,
) -> Harness<'static, Form<F>> {
    harness_at(now(), form, draw)
}

fn harness_at<F: 'static>(
    now: DateTime<Utc>,
    form: F,
    draw: impl Fn(&mut F, &mut egui::Ui, &mut ViewCtx<'_>) + 'static,
) -> Harness<'static, Form<F>> {
    let catalog = catalog();
    let state = Form {
        view: form,
        barcodes: BarcodeIndex::of(catalog.values()),
        catalog,
        limits: KeyLimits::default(),
        commands: Vec::new(),
        now,
        sandbox: false,
    };
    Harness::builder()
        .with_size([1200.0, 1000.0])
        // The type and spacing scales, as the app sets them at start.
        .with_context_setup(paydesk::ui::theme::install)
        .build_ui_state(
            move |ui, s: &mut Form<F>| {
                paydesk::ui::fonts::install(ui.ctx());
                let mut cx = ViewCtx {
                    lang: Lang::En,
                    palette: Palette::for_mode(false),
                    now: s.now,
                    zone: paydesk::clock::Zone::Local,
                    catalog: &s.catalog,
                    barcodes: &s.barcodes,
                    limits: s.limits,
                    sandbox: s.sandbox,
                    resend: paydesk::ui::ResendView::default(),
                    form_lock: None,
                    commands: &mut s.commands,
                };
                egui::CentralPanel::default().show(ui, |ui| draw(&mut s.view, ui, &mut cx));
            },
            state,
        )
}

fn type_into<S>(h: &mut Harness<'_, S>, label: &str, text: &str) {
    let f = h.get_by_label(label);
    f.focus();
    f.type_text(text);
    h.run_steps(2);
}

fn leave<S>(h: &mut Harness<'_, S>) {
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
}

fn new_link() -> Harness<'static, Form<NewLinkForm>> {
    new_link_at(now())
}

fn new_link_at(now: DateTime<Utc>) -> Harness<'static, Form<NewLinkForm>> {
    harness_at(
        now,
        NewLinkForm::new("PD-20261122-A1B20001".into()),
        |f, ui, cx| {
            f.ui(ui, cx);
        },
    )
}

fn create_enabled<S>(h: &Harness<'_, S>) -> bool {
    !h.get_by_role_and_label(Role::Button, "Create link")
        .accesskit_node()
        .is_disabled()
}

#[test]
fn the_items_total_fix_and_create_hand_over_the_exact_body() {
    let mut h = new_link();
    // The amount has the first focus.
    assert!(h.get_by_label("Amount").is_focused());
    type_into(&mut h, "Amount", "150");
    h.get_by_label("Add item").click();
    h.run_steps(2);
    // The new row's name field takes the focus.
    assert!(h.get_by_label("Item name, row 1").is_focused());
    h.get_by_label("Item name, row 1")
        .type_text("Filter coffee");
    type_into(&mut h, "Unit price, row 1", "70");
    type_into(&mut h, "Quantity, row 1", "2");
    leave(&mut h);
    // The amount follows the items (issue 29): the 150 typed before is their 140 now, and
    // nothing asks the clerk to reconcile two figures.
    assert_eq!(h.state().view.draft().amount, "140.00");
    assert!(
        h.query_by_label("Use the items total as the amount")
            .is_none()
    );
    assert!(create_enabled(&h));
    h.get_by_label("Create link").click();
    h.run_steps(2);
    let commands = std::mem::take(&mut h.state_mut().commands);
    let [Command::Link(LinkCommand::Create { request })] = commands.as_slice() else {
        panic!("expected one CreateLink, got {commands:?}");
    };
    let body = String::from_utf8(request.body_bytes()).unwrap();
    assert!(
        body.starts_with(
            r#"{"amount":140.00,"currency":"TRY","orderNumber":"PD-20261122-A1B20001""#
        ),
        "{body}"
    );
    assert!(
        body.contains(r#""items":[{"name":"Filter coffee","unitPrice":70.00,"quantity":2}]"#),
        "{body}"
    );
    assert_eq!(request.idempotency_key(), "link-PD-20261122-A1B20001");
    // While it is out, the button says so and a second press sends nothing.
    assert!(h.state().view.is_sending());
    h.get_by_label("Sending…");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    h.run_steps(2);
    assert!(h.state().commands.is_empty());
}

#[test]
fn enter_adds_a_row_and_rows_can_be_duplicated_moved_and_removed() {
    let mut h = new_link();
    h.get_by_label("Add item").click();
    h.run_steps(2);
    h.get_by_label("Item name, row 1").type_text("Çay");
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    assert_eq!(h.state().view.draft().items.len(), 2, "Enter adds a row");
    assert!(h.get_by_label("Item name, row 2").is_focused());
    h.get_by_label("Item name, row 2").type_text("Simit");
    h.run_steps(2);

    let names = |h: &Harness<'_, Form<NewLinkForm>>| -> Vec<String> {
        h.state()
            .view
            .draft()
            .items
            .iter()
            .map(|i| match &i.kind {
                paydesk::domain::ItemKind::Free { name, .. } => name.clone(),
                paydesk::domain::ItemKind::Catalog { variant_id } => variant_id.clone(),
            })
            .collect()
    };
    // Moving and duplicating are in the row's menu (its buttons at touch height).
    let from_menu = |h: &mut Harness<'_, Form<NewLinkForm>>, row: usize, entry: &str| {
        h.get_by_label(&format!("Row actions, row {row}")).click();
        h.run_steps(2);
        h.get_by_label(entry).click();
        h.run_steps(2);
    };
    from_menu(&mut h, 2, "Move up, row 2");
    assert_eq!(names(&h), ["Simit", "Çay"]);
    from_menu(&mut h, 1, "Duplicate row 1");
    assert_eq!(names(&h), ["Simit", "Simit", "Çay"]);
    from_menu(&mut h, 1, "Move down, row 1");
    h.get_by_label("Remove row 2").click();
    h.run_steps(2);
    assert_eq!(names(&h), ["Simit", "Çay"]);
}

#[test]
fn a_catalog_item_in_another_currency_is_marked_and_blocks_create() {
    let mut h = new_link();
    type_into(&mut h, "Amount", "18.50");
    h.get_by_label("Add from catalog").click();
    h.run_steps(2);
    h.get_by_label("Kahve fincanı — €18.50  (Other currency)")
        .click();
    h.run_steps(2);
    h.get_by_label("Other currency (EUR)");
    assert!(!create_enabled(&h));
}

#[test]
fn a_past_expiry_is_refused_under_its_field() {
    let mut h = new_link();
    type_into(&mut h, "Amount", "75");
    h.get_by_label("Options").click();
    h.run_steps(2);
    h.get_by_label("Date and time").click();
    h.run_steps(2);
    let yesterday = (now().with_timezone(&chrono::Local) - chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    h.state_mut().view.type_expiry_date(&yesterday);
    h.run_steps(2);
    h.get_by_label("It cannot be in the past; pick a later moment.");
    assert!(!create_enabled(&h));
    // A date that cannot be read says so.
    h.state_mut().view.type_expiry_date("2026-13-40");
    h.run_steps(2);
    h.get_by_label(
        "Date and time could not be read: write them as, for example, 28 Nov 2026 and 14:05, or pick the day in the calendar.",
    );
    assert!(!create_enabled(&h));
}

/// Every day of a 31-day month, the first and the last included: the days before today are
/// disabled, today and later are not, the month before cannot be shown, and a day picked in
/// the next month becomes the expiry.
#[test]
fn the_expiry_day_is_picked_on_a_calendar_that_refuses_past_days() {
    use chrono::TimeZone;
    for day in 1..=31 {
        let local_noon = chrono::Local
            .with_ymd_and_hms(2031, 1, day, 12, 0, 0)
            .single()
            .expect("a plain local noon");
        let now = local_noon.with_timezone(&Utc);
        let mut h = new_link_at(now);
        type_into(&mut h, "Amount", "75");
        h.get_by_label("Options").click();
        h.run_steps(2);
        h.get_by_label("Date and time").click();
        h.run_steps(2);
        h.get_by_label("Calendar").click();
        h.run_steps(2);
        let today = local_noon.date_naive();
        assert_eq!(today.day(), day);
        h.get_by_label("January 2031");
        for weekday in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] {
            h.get_by_label(weekday);
        }
        // The current month is the earliest: nothing to go back to.
        assert!(
            h.get_by_label("Previous month")
                .accesskit_node()
                .is_disabled(),
            "day {day}"
        );
        for d in 1..=31_u32 {
            // The grid's last row may show the first days of February too: January's come first.
            let disabled = h
                .get_all_by_label(&d.to_string())
                .next()
                .expect("a day cell")
                .accesskit_node()
                .is_disabled();
            assert_eq!(disabled, d < day, "on January {day}, day {d}");
        }

        h.get_by_label("Next month").click();
        h.run_steps(2);
        h.get_by_label("February 2031");
        h.get_by_label("15").click();
        h.run_steps(2);
        assert_eq!(h.state().view.expiry_date(), "15 Feb 2031", "day {day}");
        // The calendar closes on a pick, and the link is valid with that expiry.
        assert!(h.query_by_label("Next month").is_none());
        assert!(h.state().view.draft().expiry.is_some_and(|e| e > now));
        assert!(create_enabled(&h), "day {day}");
    }
}

#[test]
fn errors_appear_only_after_leaving_the_field_then_follow_typing() {
    let mut h = new_link();
    type_into(&mut h, "Amount", "12,345");
    // Only the Create button's reason mentions it while the field is first typed in.
    assert_eq!(h.query_all_by_label_contains("ambiguous").count(), 1);
    leave(&mut h);
    // Left once: the error is under the field too.
    assert_eq!(h.query_all_by_label_contains("ambiguous").count(), 2);
    // Fixing it removes the error as it is typed.
    let f = h.get_by_label("Amount");
    f.focus();
    h.key_press(egui::Key::End);
    f.type_text(".00");
    h.run_steps(2);
    assert_eq!(h.state().view.draft().amount, "12,345.00");
    assert!(h.query_by_label_contains("ambiguous").is_none());
}

#[test]
fn the_card_number_is_grouped_its_luhn_error_shown_and_the_form_wiped_on_save() {
    let mut h = harness(CardForm::default(), CardForm::ui);
    type_into(&mut h, "Card number", "4111111111111112");
    assert_eq!(
        h.state().view.draft().card_number.as_str(),
        "4111 1111 1111 1112"
    );
    h.get_by_label("Brand: Visa");
    leave(&mut h);
    h.get_by_label("The card number is wrong (its check digit fails); check it again.");
    assert!(
        h.get_by_role_and_label(Role::Button, "Save card")
            .accesskit_node()
            .is_disabled()
    );

    let f = h.get_by_label("Card number");
    f.focus();
    h.key_press(egui::Key::End);
    h.key_press(egui::Key::Backspace);
    h.get_by_label("Card number").type_text("1");
    h.run_steps(2);
    assert_eq!(
        h.state().view.draft().card_number.as_str(),
        "4111 1111 1111 1111"
    );
    assert!(h.query_by_label_contains("check digit").is_none());
    type_into(&mut h, "Expiry month (MM)", "12");
    type_into(&mut h, "Expiry year (YYYY)", "2030");
    type_into(&mut h, "CVV", "123");
    type_into(&mut h, "Cardholder name", "AYŞE YILMAZ");
    h.get_by_role_and_label(Role::Button, "Save card").click();
    h.run_steps(2);
    let commands = std::mem::take(&mut h.state_mut().commands);
    let [Command::Card(CardCommand::Save { request })] = commands.as_slice() else {
        panic!("expected one SaveCard, got {commands:?}");
    };
    assert_eq!(
        std::str::from_utf8(&request.body_bytes()).unwrap(),
        r#"{"cardNumber":"4111111111111111","expiryMonth":"12","expiryYear":"2030","cardHolderName":"AYŞE YILMAZ","cvv":"123","usage":"POS_PAYMENT"}"#
    );
    // Wiped from the form at once; the CVV field never showed the digits.
    assert!(h.state().view.draft().card_number.is_empty());
    assert!(h.state().view.draft().cvv.is_empty());
    assert_eq!(h.state().view.draft().card_holder_name, "AYŞE YILMAZ");
    assert!(!format!("{commands:?}").contains("4111111111111111"));
}

#[test]
fn a_pasted_card_number_keeps_only_the_bin_and_look_up_sends_the_exact_query() {
    let mut h = harness(InstallmentsForm::default(), InstallmentsForm::ui);
    type_into(
        &mut h,
        "BIN (first 6 digits of the card)",
        "5549 6012 3456 7890",
    );
    assert_eq!(h.state().view.draft().bin.as_str(), "554960");
    type_into(&mut h, "Amount (optional)", "1250.50");
    h.get_by_label("Look up").click();
    h.run_steps(2);
    let commands = std::mem::take(&mut h.state_mut().commands);
    let [Command::Installments(InstallmentsCommand::List { query })] = commands.as_slice() else {
        panic!("expected one ListInstallments, got {commands:?}");
    };
    assert_eq!(
        String::from_utf8(query.body_bytes()).unwrap(),
        r#"{"binNumber":"554960","type":"DEFAULT","subType":"DEFAULT","amount":1250.50}"#
    );
}

#[test]
fn installment_results_show_every_field_and_a_plot() {
    let list: paydesk::api::wire::InstallmentList = serde_json::from_str(
        r#"{"binNumber":"979200","bankName":"Ziraat Bankası","cardFamily":"Bankkart","campaign":"Kasım",
            "installments":[
              {"installmentCount":1,"commissionRate":0,"installmentAmount":1000.00,"totalAmount":1000.00,"posType":"VIRTUAL","posSubType":"DEFAULT"},
              {"installmentCount":3,"commissionRate":2.15,"installmentAmount":340.72,"totalAmount":1021.50,"posType":"VIRTUAL","posSubType":"DEFAULT","bonus":"x2"}]}"#,
    )
    .unwrap();
    let mut form = InstallmentsForm::default();
    form.on_listed(Ok::<_, paydesk::service::DeskError>(list), Lang::En);
    let mut h = harness(form, InstallmentsForm::ui);
    h.run_steps(2);
    h.get_by_label("Ziraat Bankası");
    h.get_by_label("Kasım");
    // Above the fold: a line per count under a header (issue 29: the units in the header,
    // not in every cell; no chart).
    h.get_by_label("Per month (₺)");
    h.get_by_label("In all (₺)");
    h.get_by_label("3 installments");
    h.get_by_label("340.72");
    h.get_by_label("1,021.50");
    // Every field of every option, in the table folded under them.
    assert!(h.query_by_label("x2").is_none());
    h.get_by_label("Every option (by provider)").click();
    h.run_steps(2);
    h.get_by_label("bonus");
    h.get_by_label("x2");
    h.get_by_label("₺1,021.50");
    h.get_by_label("2.15");
    // The POS type in words, not the API's VIRTUAL.
    assert!(h.get_all_by_label("Online (virtual POS)").count() >= 2);
    assert!(h.query_by_label("VIRTUAL").is_none());
}

fn installments(sandbox: bool) -> Harness<'static, Form<InstallmentsForm>> {
    let mut h = harness(InstallmentsForm::default(), InstallmentsForm::ui);
    h.state_mut().sandbox = sandbox;
    h.run_steps(2);
    h
}

#[test]
fn save_card_has_groups_fields_as_wide_as_their_content_and_says_why_it_cannot_save() {
    let mut h = harness(CardForm::default(), CardForm::ui);
    h.run_steps(2);
    // The card number has the first focus; the fields sit under two titles.
    assert!(h.get_by_label("Card number").is_focused());
    h.get_by_label("Card");
    h.get_by_label("Storage");
    // The disabled button says why, with this view's verb.
    assert!(
        h.get_by_role_and_label(Role::Button, "Save card")
            .accesskit_node()
            .is_disabled()
    );
    // Not begun is not wrong: it says what comes first, not "required".
    h.get_by_label("Type the card number to save the card.");
    assert!(h.query_by_label_contains("required").is_none());
    assert!(h.query_by_label_contains("Cannot create").is_none());

    // MM and YYYY are as wide as two and four digits: side by side, each narrower than a
    // quarter of the card number (which holds 23 characters).
    let number = h.get_by_label("Card number").rect();
    let month = h.get_by_label("Expiry month (MM)").rect();
    let year = h.get_by_label("Expiry year (YYYY)").rect();
    let cvv = h.get_by_label("CVV").rect();
    for (name, r) in [("MM", month), ("YYYY", year), ("CVV", cvv)] {
        assert!(
            r.width() < number.width() / 4.0,
            "{name} is {} wide, the card number {}",
            r.width(),
            number.width()
        );
    }
    assert!(month.width() < year.width(), "{month:?} {year:?}");
    assert!((month.center().y - year.center().y).abs() < 1.0, "one row");
    assert!(month.right() < year.left());

    // The rarely used fields are folded until asked for.
    assert!(
        h.query_by_label("Customer id (empty: for the business)")
            .is_none()
    );
    h.get_by_label("Default card and customer id").click();
    h.run_steps(2);
    h.get_by_label("Customer id (empty: for the business)");
    h.get_by_label("Make it the default for this usage");

    // Once the number is right, the reason names the next missing field.
    type_into(&mut h, "Card number", "4111111111111111");
    h.get_by_label("Cannot save yet: Expiry month: This field is required.");
}

#[test]
fn installments_says_what_to_type_and_on_the_sandbox_a_bin_chip_runs_the_query() {
    let mut h = installments(true);
    assert!(
        h.get_by_label("BIN (first 6 digits of the card)")
            .is_focused()
    );
    h.get_by_label(
        "Type the first 6 digits of the card (its BIN) and press Look up; add an amount to see what the customer pays in total.",
    );
    h.get_by_label("Sandbox test cards:");
    for chip in [
        "Bonus Mastercard",
        "World Mastercard",
        "Maximum Visa",
        "Axess Visa",
        "CardFinans Visa",
        "Paraf Mastercard",
        "Bankkart Troy",
    ] {
        h.get_by_role_and_label(Role::Button, chip);
    }
    type_into(&mut h, "Amount (optional)", "1000");
    h.get_by_role_and_label(Role::Button, "Bankkart Troy")
        .click();
    h.run_steps(2);
    assert_eq!(h.state().view.draft().bin.as_str(), "979200");
    let commands = std::mem::take(&mut h.state_mut().commands);
    let [Command::Installments(InstallmentsCommand::List { query })] = commands.as_slice() else {
        panic!("expected one ListInstallments, got {commands:?}");
    };
    assert_eq!(
        String::from_utf8(query.body_bytes()).unwrap(),
        r#"{"binNumber":"979200","type":"DEFAULT","subType":"DEFAULT","amount":1000.00}"#
    );
    // While it is out, a spinner takes the empty state's place and no second chip click sends.
    assert!(
        h.query_by_label_contains("Type the first 6 digits")
            .is_none()
    );
    h.get_by_role_and_label(Role::Button, "Bonus Mastercard")
        .click();
    h.run_steps(2);
    assert!(h.state().commands.is_empty());
}

#[test]
fn installments_offers_no_test_bins_off_the_sandbox() {
    let h = installments(false);
    h.get_by_label_contains("Type the first 6 digits of the card");
    assert!(h.query_by_label("Sandbox test cards:").is_none());
    assert!(h.query_by_label("Bonus Mastercard").is_none());
    assert!(h.query_by_label("Bankkart Troy").is_none());
}

#[test]
fn installment_money_is_right_aligned_and_the_cheapest_of_a_count_is_marked() {
    // Four providers offer a single payment; one offers 3 installments (nothing to compare).
    let list: paydesk::api::wire::InstallmentList = serde_json::from_str(
        r#"{"binNumber":"554960","bankName":"Garanti BBVA","installments":[
            {"installmentCount":1,"commissionRate":1.99,"installmentAmount":1019.90,"totalAmount":1019.90,"posType":"PHYSICAL","posSubType":"DEFAULT"},
            {"installmentCount":1,"commissionRate":2.79,"installmentAmount":1027.90,"totalAmount":1027.90,"posType":"VIRTUAL","posSubType":"DEFAULT"},
            {"installmentCount":1,"commissionRate":1.20,"installmentAmount":1012.00,"totalAmount":1012.00,"posType":"SOFTWALLET","posSubType":"FOOD"},
            {"installmentCount":3,"commissionRate":7.19,"installmentAmount":357.30,"totalAmount":1071.90,"posType":"VIRTUAL","posSubType":"DEFAULT"}]}"#,
    )
    .unwrap();
    let mut form = InstallmentsForm::default();
    form.on_listed(Ok::<_, paydesk::service::DeskError>(list), Lang::En);
    let mut h = harness(form, InstallmentsForm::ui);
    h.run_steps(2);
    // The empty state is gone once there is an answer.
    assert!(
        h.query_by_label_contains("Type the first 6 digits")
            .is_none()
    );
    // The single payment's line is the lowest total of every count.
    h.get_by_label("✓ lowest total");
    h.get_by_label("Every option (by provider)").click();
    h.run_steps(2);
    // The wallet's food POS, in words.
    h.get_by_label("Wallet app");
    h.get_by_label("Food");

    // One column ("Per installment"): a long and a short amount end at the same x, as does
    // the header; their left edges differ.
    let header = h.get_by_label("Per installment").rect();
    let long = h.get_all_by_label("₺1,019.90").next().unwrap().rect();
    let short = h.get_by_label("₺357.30").rect();
    assert!(
        (long.right() - short.right()).abs() < 0.5,
        "{long:?} {short:?}"
    );
    assert!(
        (header.right() - short.right()).abs() < 0.5,
        "{header:?} {short:?}"
    );
    assert!(short.left() > long.left() + 5.0, "{long:?} {short:?}");
    // The total column too.
    let total_header = h.get_by_label("Total").rect();
    let total = h.get_by_label("₺1,071.90").rect();
    assert!((total_header.right() - total.right()).abs() < 0.5);

    // Exactly one mark, on the row of the ₺1,012.00 option.
    let marks: Vec<_> = h.get_all_by_label("✓ lowest").collect();
    assert_eq!(marks.len(), 1);
    let mark = marks[0].rect();
    let cheapest = h.get_all_by_label("₺1,012.00").last().unwrap().rect();
    assert!(
        (mark.center().y - cheapest.center().y).abs() < 2.0,
        "{mark:?} {cheapest:?}"
    );
    assert!(mark.left() > cheapest.right(), "the mark follows the total");
    h.get_by_label_contains("✓ lowest: the option that costs the customer least");
}

/// The label of the focused node, or "" when nothing has the focus.
fn focused_label<S>(h: &Harness<'_, S>) -> String {
    // A closure, not the method path: the node's lifetime must stay generic.
    #[allow(clippy::redundant_closure_for_method_calls)]
    let focused = h.query_by(|n| n.is_focused());
    focused
        .and_then(|n| n.accesskit_node().label())
        .unwrap_or_default()
}

/// The labels the focus visits from the amount on, pressing Tab until it comes back round.
fn tab_order<S>(h: &mut Harness<'_, S>) -> Vec<String> {
    h.get_by_label("Amount").focus();
    h.run_steps(2);
    let mut order = vec![focused_label(h)];
    for _ in 0..80 {
        h.key_press(egui::Key::Tab);
        h.run_steps(2);
        let now = focused_label(h);
        if now.is_empty() || order.contains(&now) {
            break;
        }
        order.push(now);
    }
    order
}

#[test]
fn tab_follows_the_reading_order_of_new_link() {
    let mut h = new_link();
    h.get_by_label("Add item").click();
    h.run_steps(2);
    h.get_by_label("Add item").click();
    h.run_steps(2);
    let items: Vec<String> = [
        // The items area: the scan field first, then each row as the header reads it.
        "Scan barcode",
        "Item name, row 1",
        "Quantity, row 1",
        "Unit price, row 1",
        "Note, row 1",
        "Row actions, row 1",
        "Remove row 1",
        "Item name, row 2",
        "Quantity, row 2",
        "Unit price, row 2",
        "Note, row 2",
        "Row actions, row 2",
        "Remove row 2",
        "Add item",
        "Add from catalog",
    ]
    .map(String::from)
    .into();

    // Folded, Options and Payer are one stop each: the counter's way is amount, order
    // number, description, then the items.
    let mut expected: Vec<String> = ["Amount", "Currency", "Order number", "Description"]
        .map(String::from)
        .into();
    expected.extend(["Options", "Payer"].map(String::from));
    expected.extend(items.iter().cloned());
    assert_eq!(tab_order(&mut h), expected);

    // Unfolded, their fields follow their titles in reading order.
    h.get_by_label("Options").click();
    h.run_steps(2);
    h.get_by_label("Payer").click();
    h.run_steps(2);
    let mut expected: Vec<String> = [
        "Amount",
        "Currency",
        "Order number",
        "Description",
        "Options",
        "Expires",
        "15 min",
        "1 h",
        "24 h",
        "7 d",
        "Date and time",
        "Installments allowed",
        "Allowed installment counts (none selected: no restriction)",
    ]
    .map(String::from)
    .into();
    expected.extend((2..=12).map(|c| c.to_string()));
    expected.extend(
        [
            "Allow partial payment",
            "Cart amount",
            "Payer",
            "Ask the payer for contact details",
            "Payer e-mail",
            "Country code",
            "Phone number",
        ]
        .map(String::from),
    );
    expected.extend(items);
    assert_eq!(tab_order(&mut h), expected);
}

/// Merely passing through the amount (it has the focus when the view opens) and leaving it
/// shows no error; typing and leaving does; a create attempt (Ctrl+Enter) shows every field's.
#[test]
fn a_field_shows_its_error_only_once_edited_and_left_or_after_a_create_attempt() {
    let mut h = new_link();
    h.run_steps(2);
    assert!(h.get_by_label("Amount").is_focused());
    // Leaving the field (another view, Escape, Tab) without typing.
    leave(&mut h);
    h.key_press(egui::Key::Tab);
    h.run_steps(2);
    // A form not begun is not wrong: nothing says "required", the line under Create says
    // what comes first.
    assert_eq!(h.query_all_by_label_contains("required").count(), 0);
    h.get_by_label("Type the amount or scan the items to create the link.");
    // Typed in and emptied again, then left: the field says so too.
    type_into(&mut h, "Amount", "5");
    h.key_press(egui::Key::Backspace);
    leave(&mut h);
    assert_eq!(h.state().view.draft().amount, "");
    assert_eq!(h.query_all_by_label_contains("required").count(), 1);

    // On a fresh form, Ctrl+Enter with the amount never typed in is a create attempt: the
    // amount shows its error, and nothing is sent.
    let mut h = new_link();
    h.run_steps(2);
    assert_eq!(h.query_all_by_label_contains("required").count(), 0);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    h.run_steps(2);
    assert_eq!(h.query_all_by_label_contains("required").count(), 1);
    assert!(h.state().commands.is_empty(), "nothing was sent");
}

/// The words a clerk must never read: the form's checks by name, counted, or ticked off.
fn test_speak<S>(h: &Harness<'_, S>) -> Vec<String> {
    let words = ["passed", "is valid", "Checks", "✗", "well formed"];
    h.query_all_by(|n| {
        [n.label(), n.value()]
            .into_iter()
            .flatten()
            .any(|t| words.iter().any(|w| t.contains(w)))
    })
    .filter_map(|n| n.accesskit_node().label().or(n.accesskit_node().value()))
    .collect()
}

/// While everything passes the form says nothing about its checks; when one fails, one plain
/// reason sits under Create and the field it is about is named once more under itself.
#[test]
fn the_checks_say_nothing_while_all_pass_and_one_reason_when_one_fails() {
    let mut h = new_link();
    type_into(&mut h, "Amount", "150");
    leave(&mut h);
    assert!(create_enabled(&h));
    assert_eq!(test_speak(&h), Vec::<String>::new());
    assert_eq!(
        h.query_all_by_label_contains("Cannot create yet").count(),
        0
    );
    // Ready: the shortcut is offered instead of a reason.
    h.get_by_label("or press Ctrl+Enter");

    // An amount the form cannot read: one reason under Create, the same problem under the
    // field once left, and still no check names.
    type_into(&mut h, "Amount", "x");
    leave(&mut h);
    assert!(!create_enabled(&h));
    assert_eq!(
        h.query_all_by_label_contains("Cannot create yet:").count(),
        1
    );
    assert_eq!(test_speak(&h), Vec::<String>::new());
    let reason = h.get_by_label_contains("Cannot create yet:");
    let below = reason.rect().top() >= h.get_by_label("Create link").rect().bottom();
    assert!(below, "the reason sits under the button");
}

/// The counter's window: 1024×768, the app's default size.
fn new_link_counter() -> Harness<'static, Form<NewLinkForm>> {
    new_link_sized([1024.0, 768.0], false)
}

/// New link in a window of `size`, with a stand-in for the shell's narrow board under "This
/// sale" when `board`.
fn new_link_sized(size: [f32; 2], board: bool) -> Harness<'static, Form<NewLinkForm>> {
    let catalog = catalog();
    let state = Form {
        view: NewLinkForm::new("PD-20261122-A1B20001".into()),
        barcodes: BarcodeIndex::of(catalog.values()),
        catalog,
        limits: KeyLimits::default(),
        commands: Vec::new(),
        now: now(),
        sandbox: false,
    };
    Harness::builder()
        .with_size(size)
        .with_context_setup(paydesk::ui::theme::install)
        .build_ui_state(
            move |ui, s: &mut Form<NewLinkForm>| {
                paydesk::ui::fonts::install(ui.ctx());
                let mut cx = ViewCtx {
                    lang: Lang::En,
                    palette: Palette::for_mode(false),
                    now: s.now,
                    zone: paydesk::clock::Zone::Local,
                    catalog: &s.catalog,
                    barcodes: &s.barcodes,
                    limits: s.limits,
                    sandbox: s.sandbox,
                    resend: paydesk::ui::ResendView::default(),
                    form_lock: None,
                    commands: &mut s.commands,
                };
                // The app's fixed navigation takes the left of the window.
                egui::Panel::left("nav")
                    .exact_size(paydesk::ui::theme::NAV_WIDTH)
                    .show(ui, |_| {});
                egui::CentralPanel::default().show(ui, |ui| {
                    if board {
                        let mut below = |ui: &mut egui::Ui, _: &mut ViewCtx<'_>| {
                            ui.label("Open links (board)");
                        };
                        s.view.sale_ui(ui, &mut cx, Some(&mut below));
                    } else {
                        s.view.ui(ui, &mut cx);
                    }
                });
            },
            state,
        )
}

/// With ten items in the cart at 1024×768, the total and Create stay in the window without
/// scrolling: "This sale" sits beside the form, and a click on Create sends the link.
#[test]
fn with_ten_items_at_1024_by_768_the_total_and_create_stay_on_screen() {
    let mut h = new_link_counter();
    h.run_steps(2);
    type_into(&mut h, "Amount", "250");
    for _ in 0..10 {
        h.state_mut()
            .view
            .draft_mut()
            .items
            .push(paydesk::domain::ItemDraft::catalog("var_simit", "1"));
    }
    h.run_steps(3);
    assert_eq!(h.state().view.draft().items.len(), 10);
    assert!(create_enabled(&h), "ten simits make the 250.00");
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 768.0));
    let create = h.get_by_label("Create link").rect();
    assert!(window.contains_rect(create), "Create at {create:?}");
    // The button is the full width of "This sale", beside the form.
    assert!(create.width() >= 280.0, "{create:?}");
    assert!(create.left() > 1024.0 / 2.0, "{create:?}");
    let total = h.get_by_label("Total: ₺250.00").rect();
    assert!(window.contains_rect(total), "the total at {total:?}");
    assert!(total.bottom() <= create.top(), "the total above Create");
    // Each line once, in "This sale" (the table beside it has no line totals then).
    assert_eq!(h.query_all_by_label("10 × Simit").count(), 0);
    assert_eq!(h.query_all_by_label("1 × Simit").count(), 10);
    // Clicked where it is drawn (the pointer, not AccessKit): it sends.
    h.get_by_label("Create link").click();
    h.run_steps(2);
    assert!(matches!(
        h.state().commands.as_slice(),
        [Command::Link(LinkCommand::Create { .. })]
    ));
}

#[test]
fn a_row_is_typed_name_tab_quantity_tab_price_and_enter_in_the_note_adds_the_next() {
    let mut h = new_link();
    type_into(&mut h, "Amount", "240");
    h.get_by_label("Add item").click();
    h.run_steps(2);
    // A new row's quantity is 1 before anything is typed.
    assert_eq!(h.state().view.draft().items[0].quantity, "1");
    assert!(h.get_by_label("Item name, row 1").is_focused());
    for (text, field) in [
        ("Espresso", "Item name, row 1"),
        ("3", "Quantity, row 1"),
        ("80", "Unit price, row 1"),
        ("double", "Note, row 1"),
    ] {
        assert!(h.get_by_label(field).is_focused(), "{field} has the focus");
        h.get_by_label(field).type_text(text);
        h.run_steps(2);
        if field == "Note, row 1" {
            h.key_press(egui::Key::Enter);
        } else {
            h.key_press(egui::Key::Tab);
        }
        h.run_steps(2);
    }
    let items = &h.state().view.draft().items;
    // Entering the quantity selected the 1, so the typed 3 replaced it.
    assert_eq!(items[0].quantity, "3");
    let paydesk::domain::ItemKind::Free {
        name,
        unit_price,
        note,
    } = &items[0].kind
    else {
        panic!("a typed-in row");
    };
    assert_eq!(
        (name.as_str(), unit_price.as_str(), note.as_str()),
        ("Espresso", "80", "double")
    );
    // Enter in the last field added a row below, with the focus on its name.
    assert_eq!(items.len(), 2);
    assert!(h.get_by_label("Item name, row 2").is_focused());
    // 3 × 80.00 on the row's line total.
    h.get_by_label("₺240.00");
}

/// A key pressed with Ctrl (Cmd on a Mac), as egui-winit hands it over.
fn command_key(key: egui::Key) -> egui::Event {
    egui::Event::Key {
        key,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: egui::Modifiers::COMMAND,
    }
}

/// Sends `events` to the focused field, a frame each, and returns what the window handed to
/// the system meanwhile: `CopyText` goes to the clipboard, `TextSelectionSettled` to the
/// X11/Wayland primary selection.
fn handed_out<S>(h: &mut Harness<'_, S>, events: Vec<egui::Event>) -> Vec<egui::OutputCommand> {
    let mut out = Vec::new();
    for event in events {
        h.event(event);
        h.step();
        out.extend(h.output().platform_output.commands.iter().cloned());
    }
    h.step();
    out.extend(h.output().platform_output.commands.iter().cloned());
    out
}

/// Whether `text` holds 8 or more consecutive digits of `pan` (spaces and other separators
/// between them ignored).
fn holds_digits_of(text: &str, pan: &str) -> bool {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    pan.as_bytes()
        .windows(8)
        .any(|w| digits.contains(std::str::from_utf8(w).expect("digits")))
}

#[test]
fn the_card_number_shows_as_typed_but_never_reaches_the_clipboard_selection_or_screen_reader() {
    const PAN: &str = "4111111111111111";
    let mut h = harness(CardForm::default(), CardForm::ui);
    type_into(&mut h, "Card number", PAN);
    assert_eq!(
        h.state().view.draft().card_number.as_str(),
        "4111 1111 1111 1111"
    );
    // On screen it reads as typed, grouped (not as password dots).
    let drawn: Vec<String> = h
        .output()
        .shapes
        .iter()
        .filter_map(|s| match &s.shape {
            egui::epaint::Shape::Text(t) => Some(t.galley.text().to_owned()),
            _ => None,
        })
        .collect();
    assert!(
        drawn.iter().any(|t| t == "4111 1111 1111 1111"),
        "the number is not drawn as typed: {drawn:?}"
    );

    // Select all, copy, cut, select all again: nothing leaves the window.
    let out = handed_out(
        &mut h,
        vec![
            command_key(egui::Key::A),
            egui::Event::Copy,
            egui::Event::Cut,
            command_key(egui::Key::A),
            egui::Event::Copy,
        ],
    );
    assert!(out.is_empty(), "handed to the system: {out:?}");
    // Cut took nothing away either (it would have put it nowhere).
    assert_eq!(
        h.state().view.draft().card_number.as_str(),
        "4111 1111 1111 1111"
    );

    // A screen reader hears a password field, one `•` for each character on screen, and no
    // node of the window (the field, its text runs, any other) holds the digits.
    let field = h.get_by_label("Card number");
    assert_eq!(field.accesskit_node().role(), Role::PasswordInput);
    assert_eq!(
        field.accesskit_node().value().as_deref(),
        Some("•".repeat(19).as_str())
    );
    let exposed: Vec<String> = h
        .query_all_by(|n| {
            [n.label(), n.value()]
                .into_iter()
                .flatten()
                .any(|t| holds_digits_of(&t, PAN))
        })
        .map(|n| format!("{n:?}"))
        .collect();
    assert!(exposed.is_empty(), "nodes holding the number: {exposed:#?}");

    // The CVV, a password field, gives nothing out either.
    type_into(&mut h, "CVV", "123");
    let out = handed_out(
        &mut h,
        vec![
            command_key(egui::Key::A),
            egui::Event::Copy,
            egui::Event::Cut,
        ],
    );
    assert!(out.is_empty(), "handed to the system: {out:?}");

    // The same keys in an ordinary field of the form do copy: the check above sees copies.
    type_into(&mut h, "Cardholder name", "AYSE YILMAZ");
    let out = handed_out(&mut h, vec![command_key(egui::Key::A), egui::Event::Copy]);
    assert!(
        out.contains(&egui::OutputCommand::CopyText("AYSE YILMAZ".into())),
        "{out:?}"
    );
    assert!(
        out.contains(&egui::OutputCommand::TextSelectionSettled(
            "AYSE YILMAZ".into()
        )),
        "{out:?}"
    );
}

/// On a wide window the shell's narrow board goes under "This sale", in its column; under
/// 1024 px one column, "This sale" under the form.
#[test]
fn the_board_sits_under_this_sale_and_a_narrow_window_has_one_column() {
    let mut h = new_link_sized([1280.0, 800.0], true);
    h.run_steps(2);
    let create = h.get_by_label("Create link").rect();
    let board = h.get_by_label("Open links (board)").rect();
    assert!(board.top() >= create.bottom(), "{board:?} under {create:?}");
    assert!((board.left() - create.left()).abs() < 1.0, "in one column");
    let amount = h.get_by_label("Amount").rect();
    assert!(amount.right() < create.left(), "the form beside This sale");

    let mut h = new_link_sized([900.0, 700.0], false);
    h.run_steps(2);
    let create = h.get_by_label("Create link").rect();
    let amount = h.get_by_label("Amount").rect();
    assert!(create.top() > amount.bottom(), "This sale under the form");
    assert!(
        create.right() <= 900.0,
        "nothing past the window's edge: {create:?}"
    );
    // The line totals stay in the table when This sale lists no lines.
    h.get_by_label("Add item").click();
    h.run_steps(2);
    h.get_by_label("Line total");
}

/// With a catalog, the sale is scanned: the items sit above the amount, which is their total
/// while they have one (−/+ change it, at touch height) and empty again when the last goes;
/// a sale without items takes the amount typed.
#[test]
fn with_a_catalog_the_items_come_first_and_the_amount_follows_them() {
    let mut h = new_link();
    let top = |h: &Harness<'_, Form<NewLinkForm>>, label: &str| h.get_by_label(label).rect().top();
    assert!(top(&h, "Scan barcode") < top(&h, "Amount"));
    h.get_by_label("Add item").click();
    h.run_steps(2);
    h.get_by_label("Item name, row 1").type_text("Çay");
    type_into(&mut h, "Unit price, row 1", "15");
    leave(&mut h);
    assert_eq!(h.state().view.draft().amount, "15.00");
    for label in ["One more, row 1", "One fewer, row 1", "Remove row 1"] {
        let r = h.get_by_label(label).rect();
        assert!(
            r.height() >= paydesk::ui::theme::TOUCH_HEIGHT,
            "{label}: {r:?}"
        );
    }
    h.get_by_label("One more, row 1").click();
    h.run_steps(2);
    h.get_by_label("One more, row 1").click();
    h.run_steps(2);
    assert_eq!(h.state().view.draft().items[0].quantity, "3");
    assert_eq!(h.state().view.draft().amount, "45.00");
    h.get_by_label("One fewer, row 1").click();
    h.run_steps(2);
    assert_eq!(h.state().view.draft().amount, "30.00");
    assert!(create_enabled(&h));
    h.get_by_label("Remove row 1").click();
    h.run_steps(2);
    assert!(h.state().view.draft().amount.is_empty());
    // Without items, the amount is typed as before.
    type_into(&mut h, "Amount", "12.50");
    assert_eq!(h.state().view.draft().amount, "12.50");
    assert!(create_enabled(&h));
}
