//! The real `App`, driven by role and label through AccessKit (`egui_kittest`, no GPU), against
//! the in-process sandbox that the built-in `sandbox` profile starts.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::support::app::{AppEnv, Start};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use paydesk::app::View;
use paydesk::domain::LinkStatus;
use paydesk::lang::Lang;
use paydesk::slip::Paper;

fn start() -> AppEnv {
    start_with_shop(crate::support::app::SHOP)
}

/// The app on the built-in sandbox profile, with `shop` as the shop name of Settings.
fn start_with_shop(shop: &str) -> AppEnv {
    let start = Start {
        shop: shop.to_owned(),
        ..Start::default()
    };
    AppEnv::start(
        start,
        |_| {},
        |options, _| {
            options.board_pace = paydesk::board::Budget::default().board;
            options.request_gap = Duration::from_millis(50);
        },
    )
}

impl AppEnv {
    /// Moves the focus away from the current field (the field counts as left).
    fn leave(&mut self) {
        self.harness.key_press(egui::Key::Escape);
        self.harness.run_steps(2);
    }

    /// Sets the sandbox's fault rules (a JSON array, as the README's admin routes say).
    fn faults(&self, rules: &str) {
        self.admin(reqwest::Method::POST, "/sandbox/faults", rules);
    }

    /// Cancels the shown link through its confirmation and waits for the server's answer.
    fn cancel_shown(&mut self) {
        // Through AccessKit, not the pointer: the harness draws the customer display's window
        // inside the same screen, where it may lie over the button (on a counter it is a
        // window of its own, on another screen).
        self.harness
            .get_all_by_label("Cancel link")
            .last()
            .expect("a Cancel link button")
            .click_accesskit();
        self.harness.run_steps(2);
        self.harness
            .get_by_label("A cancelled link can no longer be paid.");
        // The confirmation sits apart at the bottom of the view, where the customer display
        // may lie over it too.
        self.harness
            .get_by_role_and_label(Role::Button, "Cancel link")
            .click_accesskit();
        self.harness.run_steps(2);
        self.until("the cancel is answered", |app| {
            app.views
                .shown
                .as_ref()
                .is_some_and(paydesk::ui::link_result::ShownLink::is_cancelled)
        });
    }
}

#[test]
fn items_mismatch_is_fixed_with_one_click_then_the_link_is_created_shown_and_turns_paid() {
    let mut env = start();
    // First start shows New link, with a pre-filled order number.
    let order = env.app().views.new_link.draft().order_number.clone();
    assert!(order.starts_with("PD-"), "{order}");

    env.type_into("Amount", "150");
    env.click("Add item");
    env.type_into("Item name, row 1", "Filtre kahve");
    env.type_into("Unit price, row 1", "70");
    env.type_into("Quantity, row 1", "2");
    env.leave();
    // 2 × 70.00 = 140.00: the amount typed before (150.00) follows the items (issue 29), so
    // no difference to reconcile and Create is enabled.
    assert_eq!(env.app().views.new_link.draft().amount, "140.00");
    assert!(
        env.harness
            .query_by_label_contains("less than the amount")
            .is_none()
    );
    assert!(env.create_button_enabled());

    // Ctrl+Enter creates.
    env.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    env.until("the link is shown", |app| app.views.shown.is_some());
    let link = env.app().views.shown.as_ref().unwrap().link().clone();
    assert_eq!(link.amount.unwrap().to_string(), "140.00");
    assert_eq!(link.order_number.as_deref(), Some(order.as_str()));
    env.harness.get_by_label("Waiting for payment");
    env.harness
        .get_by_role_and_label(Role::Image, "Scan to pay");
    env.harness.get_by_label(&order);

    // The customer pays through the sandbox; the poll turns the view to Paid.
    env.admin(
        reqwest::Method::POST,
        &format!("/sandbox/links/{}/pay", link.id),
        r#"{"amount":"140.00"}"#,
    );
    env.until("the link reads as paid", |app| {
        app.views.shown.as_ref().unwrap().status() == LinkStatus::Completed
    });
    env.harness.run_steps(2);
    // Said as large as the customer display says it, in place of the status pill.
    env.harness.get_by_label("Paid ✓");
    assert!(env.harness.query_by_label("Waiting for payment").is_none());
    env.harness.get_by_label_contains("Paid: ₺140.00");

    // "New link" clears the form with the next order number.
    env.click("New link");
    env.until("the next order number arrives", |app| {
        !app.views.new_link.draft().order_number.is_empty()
            && app.views.new_link.draft().order_number != order
    });
    assert!(env.app().views.shown.is_none());
    assert_eq!(env.app().views.new_link.draft().amount, "");
}

#[test]
fn a_row_typed_name_tab_quantity_tab_price_matches_the_amount_and_the_link_is_created() {
    let mut env = start();
    env.type_into("Amount", "240");
    env.click("Add item");
    // The new row's name has the focus: typed as a clerk does, Tab between the fields.
    assert!(env.harness.get_by_label("Item name, row 1").is_focused());
    for (i, text) in ["Espresso", "3", "80"].into_iter().enumerate() {
        if i > 0 {
            env.harness.key_press(egui::Key::Tab);
            env.harness.run_steps(2);
        }
        env.harness
            .get_by_label(["Item name, row 1", "Quantity, row 1", "Unit price, row 1"][i])
            .type_text(text);
        env.harness.run_steps(2);
    }
    env.leave();
    assert_eq!(env.app().views.new_link.draft().items[0].quantity, "3");
    assert!(env.create_button_enabled());
    env.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    env.until("the link is shown", |app| app.views.shown.is_some());
    let link = env.app().views.shown.as_ref().unwrap().link().clone();
    assert_eq!(link.amount.unwrap().to_string(), "240.00");
    // The sandbox refuses items whose total is not the amount (items.total.mismatch, see
    // the_servers_expected_amount_is_offered_as_a_one_click_fix), so the row went out as
    // 3 × 80.00.
}

#[test]
fn the_servers_expected_amount_is_offered_as_a_one_click_fix() {
    let mut env = start();
    env.type_into("Amount", "40");
    env.click("Add from catalog");
    // The local catalog does not know this variant: the server prices it (25.00 each).
    env.type_into("Search the catalog", "var_simit");
    env.click("Add by catalog id: var_simit");
    env.type_into("Quantity, row 1", "2");
    env.click("Create link");
    env.until_label("The server expects the amount: ₺50.00");
    assert!(env.app().views.shown.is_none(), "the form stays as it was");
    assert_eq!(env.app().views.new_link.draft().amount, "40");
    env.click("Use this amount");
    assert_eq!(env.app().views.new_link.draft().amount, "50.00");
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    let link = &env.app().views.shown.as_ref().unwrap().link();
    assert_eq!(link.amount.unwrap().to_string(), "50.00");
}

#[test]
fn a_past_expiry_is_refused_in_the_form() {
    let mut env = start();
    env.type_into("Amount", "75");
    env.open_options();
    env.click("Date and time");
    // Typed as the clerk writes a day ("27 Nov 2026"), not ISO.
    let yesterday = paydesk::ui::words::day_text(
        (chrono::Local::now() - chrono::Duration::days(1)).date_naive(),
        paydesk::lang::Lang::En,
    );
    let date = env.harness.get_by_label("Date");
    date.focus();
    env.harness
        .key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
    env.harness.get_by_label("Date").type_text(&yesterday);
    env.harness.run_steps(2);
    env.leave();
    env.harness
        .get_by_label("It cannot be in the past; pick a later moment.");
    assert!(!env.create_button_enabled());
    env.harness
        .get_by_label_contains("Cannot create yet: Expiry date: It cannot be in the past");
}

#[test]
fn a_luhn_error_shows_on_the_card_form_and_a_saved_card_is_shown_masked() {
    let mut env = start();
    env.nav(View::Card);
    env.type_into("Card number", "4111111111111112");
    // Grouped as typed, brand shown.
    assert_eq!(
        env.app().views.card.draft().card_number.as_str(),
        "4111 1111 1111 1112"
    );
    env.harness.get_by_label("Brand: Visa");
    env.leave();
    env.harness
        .get_by_label("The card number is wrong (its check digit fails); check it again.");

    // Fix the last digit, fill the rest, save: the number and CVV are wiped.
    let field = env.harness.get_by_label("Card number");
    field.focus();
    env.harness.key_press(egui::Key::Backspace);
    env.harness.get_by_label("Card number").type_text("1");
    env.harness.run_steps(2);
    env.type_into("Expiry month (MM)", "12");
    env.type_into("Expiry year (YYYY)", "2030");
    env.type_into("CVV", "123");
    env.type_into("Cardholder name", "AYŞE YILMAZ");
    env.click("Save card");
    assert!(env.app().views.card.draft().card_number.is_empty());
    assert!(env.app().views.card.draft().cvv.is_empty());
    env.until_label("Card saved");
    env.harness.get_by_label("411111******1111");
}

#[test]
fn a_bin_lookup_keeps_six_digits_and_fills_the_table() {
    let mut env = start();
    env.nav(View::Installments);
    env.type_into("BIN (first 6 digits of the card)", "5549 6012 3456 7890");
    assert_eq!(env.app().views.installments.draft().bin.as_str(), "554960");
    env.type_into("Amount (optional)", "1000");
    env.click("Look up");
    env.until_label("Garanti BBVA");
    env.harness.get_by_label("Bonus");
    env.harness.get_by_label("Credit card");
    // A row per count: the table's header and the count column, under the fold.
    env.click("Every option (by provider)");
    env.harness.get_by_label("Per installment");
    let rows = match env.app().views.installments.outcome().as_ref().unwrap() {
        paydesk::ui::installments::InstallmentOutcome::List(l) => l.installments.len(),
        paydesk::ui::installments::InstallmentOutcome::Error(e) => panic!("{e:?}"),
    };
    assert!(rows >= 2, "{rows} options");
    // The summary's header names its columns and their currency (issue 29: no chart).
    env.harness.get_by_label("Per month (₺)");
    env.harness.get_by_label("In all (₺)");
}

#[test]
fn on_the_sandbox_a_test_bin_chip_looks_it_up_and_the_cheapest_single_payment_is_marked() {
    let mut env = start();
    env.nav(View::Installments);
    env.harness
        .get_by_label_contains("Type the first 6 digits of the card");
    env.type_into("Amount (optional)", "1000");
    env.click("Bonus Mastercard");
    assert_eq!(env.app().views.installments.draft().bin.as_str(), "554960");
    env.until_label("Garanti BBVA");
    env.click("Every option (by provider)");
    // The fixture offers a single payment through four providers (the food wallet's 1.20 %
    // is the cheapest) and every other count through one: one mark, on that row.
    let marks: Vec<_> = env.harness.get_all_by_label("✓ lowest").collect();
    assert_eq!(marks.len(), 1);
    let mark = marks[0].rect();
    let cheapest = env
        .harness
        .get_all_by_label("₺1,012.00")
        .last()
        .unwrap()
        .rect();
    assert!((mark.center().y - cheapest.center().y).abs() < 2.0);
    // Money is right-aligned: the 12-installment total ends where the single payment's does.
    let long = env.harness.get_by_label("₺1,224.90").rect();
    assert!(
        (long.right() - cheapest.right()).abs() < 0.5,
        "{long:?} {cheapest:?}"
    );
}

#[test]
fn the_customer_display_names_the_shop_only_when_set_never_the_profile() {
    let mut env = start_with_shop("");
    env.create_link("64.00", "");
    // Nodes naming the profile (in the main window: the profile picker, the sandbox badge).
    // A label's text is its AccessKit value, other widgets' their label.
    let profile = env.app().profile_name();
    assert_eq!(profile, "sandbox");
    let naming = |env: &AppEnv| {
        env.harness
            .query_all_by(|n| {
                [n.label(), n.value()]
                    .into_iter()
                    .flatten()
                    .any(|t| t.to_lowercase().contains(&profile))
            })
            .count()
    };
    let before = naming(&env);
    env.click("Customer display");
    assert!(env.app().views.customer.is_open());
    env.harness.run_steps(2);
    env.harness
        .get_by_role_and_label(Role::Label, "Scan to pay");
    assert!(env.harness.get_all_by_label("₺64.00").count() >= 2);
    assert_eq!(
        naming(&env),
        before,
        "the customer display names the profile"
    );

    // With a shop name in Settings, the display greets with it.
    env.app_mut().saved.merchant_name = "Kadıköy Kahve Evi".into();
    // (The top bar names the shop too, after its icon: the display's is the name alone.)
    env.until_ui("the display names the shop", |h| {
        h.query_all_by_label("Kadıköy Kahve Evi").next().is_some()
    });
    // The top bar named the profile as the shop while Settings had no name (issue 29); with
    // one, it names the shop: fewer nodes name the profile, none of them the display's.
    assert!(naming(&env) < before, "{} {before}", naming(&env));
}

#[test]
fn a_lost_response_leaves_a_pending_row_that_retry_completes() {
    let mut env = start();
    // Every attempt's answer is lost (the server creates the link, the client never hears).
    env.faults(r#"[{"endpoint":"link.create","kind":"lost","next":50}]"#);
    env.type_into("Amount", "99.90");
    let order = env.app().views.new_link.draft().order_number.clone();
    env.click("Create link");
    env.until("the create gives up", |app| {
        !app.views.new_link.is_sending()
    });
    env.harness.run_steps(2);
    env.harness
        .get_by_label_contains("The server has not confirmed this sale yet");
    // One sentence for the clerk; the transport's own words only behind "Details" (closed).
    let technical = "no answer from the server";
    assert!(env.harness.query_by_label_contains(technical).is_none());
    env.click("Details");
    env.harness.get_by_label_contains(technical);
    env.click("Details");
    assert!(env.app().views.shown.is_none());
    assert_eq!(
        env.app().views.new_link.draft().amount,
        "99.90",
        "the form is kept"
    );
    assert_eq!(env.app().views.pending.count(), 1);
    // The sale waiting shows Unsent in the navigation, with its count (issue 29).
    env.harness.get_by_label("Unsent (1)");

    env.admin(reqwest::Method::DELETE, "/sandbox/faults", "");
    env.nav(View::Pending);
    env.harness.get_by_label(&order);
    env.click(&format!("Retry {order}"));
    env.until("the retry completes", |app| app.views.pending.count() == 0);
    env.harness.run_steps(2);
    // It was the form's order: the customer is waiting, so its QR opens.
    assert_eq!(env.app().view, View::NewLink);
    let shown = env.app().views.shown.as_ref().expect("the link is shown");
    assert_eq!(shown.link().order_number.as_deref(), Some(order.as_str()));
    env.harness.get_by_label("Scan to pay");
    // The server made exactly one link for this order.
    let links = env.admin(reqwest::Method::GET, "/sandbox/links", "");
    assert_eq!(links.matches(&order).count(), 1, "{links}");
}

#[test]
fn cancel_can_be_clicked_while_a_status_poll_is_out() {
    let mut env = start();
    // Every status poll takes 1.5 s on the server, so one is nearly always out.
    env.faults(r#"[{"endpoint":"link.detail","kind":"delay","delayMs":1500}]"#);
    env.create_link("30.00", "");
    env.until("a status poll is out", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.polling().is_some())
    });

    env.cancel_shown();
    env.until_label("Cancelled");
    // The poll still out is answered later and never brings "waiting for payment" back.
    env.until("the poll is answered", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.polling().is_none())
    });
    env.harness.run_steps(2);
    assert!(env.app().views.shown.as_ref().unwrap().is_final());
    env.harness.get_by_label("Cancelled");
    assert!(env.harness.query_by_label("Waiting for payment").is_none());
}

/// A TCP proxy in front of the embedded sandbox with a gate: while it is closed, every byte
/// the app sends (on a new or a pooled connection) waits at the gate and never reaches the
/// server.
struct Gate {
    url: String,
    state: Arc<(Mutex<GateState>, Condvar)>,
}

#[derive(Default)]
struct GateState {
    closed: bool,
    /// Sends waiting at the gate now.
    held: usize,
    /// A send waited longer than `Gate::WATCHDOG`: the gate opened by itself.
    gave_up: bool,
}

impl Gate {
    /// Longer than any test holds the gate; only a window that stopped drawing (its frame
    /// waiting for the held request) lets it run out.
    const WATCHDOG: Duration = Duration::from_secs(30);

    fn new(upstream: &str) -> Gate {
        let upstream: SocketAddr = upstream
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .expect("the sandbox's address");
        let listener = TcpListener::bind("127.0.0.1:0").expect("test set-up");
        let url = format!("http://{}", listener.local_addr().expect("test set-up"));
        let state = Arc::new((Mutex::new(GateState::default()), Condvar::new()));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(upstream) else {
                    return;
                };
                let (mut from_server, mut to_client) = (
                    server.try_clone().expect("a socket"),
                    client.try_clone().expect("a socket"),
                );
                std::thread::spawn(move || std::io::copy(&mut from_server, &mut to_client));
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || Gate::forward(client, server, &shared));
            }
        });
        Gate { url, state }
    }

    /// Copies what the app sends to the server, each read past the gate.
    fn forward(mut from: TcpStream, mut to: TcpStream, state: &(Mutex<GateState>, Condvar)) {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            {
                let (lock, cond) = state;
                let mut gate = lock.lock().expect("the gate");
                if gate.closed {
                    gate.held += 1;
                    cond.notify_all();
                    let (mut after, timeout) = cond
                        .wait_timeout_while(gate, Gate::WATCHDOG, |g| g.closed)
                        .expect("the gate");
                    after.held -= 1;
                    if timeout.timed_out() {
                        after.gave_up = true;
                        after.closed = false;
                        cond.notify_all();
                    }
                }
            }
            if to.write_all(&buf[..n]).is_err() {
                return;
            }
        }
    }

    fn set_closed(&self, closed: bool) {
        let (lock, cond) = &*self.state;
        lock.lock().expect("the gate").closed = closed;
        cond.notify_all();
    }

    /// Blocks until a send waits at the closed gate.
    fn wait_held(&self) {
        let (lock, cond) = &*self.state;
        let (gate, timeout) = cond
            .wait_timeout_while(
                lock.lock().expect("the gate"),
                Duration::from_secs(15),
                |g| g.held == 0,
            )
            .expect("the gate");
        assert!(!timeout.timed_out(), "the request never reached the gate");
        drop(gate);
    }

    fn gave_up(&self) -> bool {
        self.state.0.lock().expect("the gate").gave_up
    }
}

#[test]
fn frames_keep_running_while_a_request_is_held_at_the_server() {
    // A profile whose server is the embedded sandbox behind the gate.
    let mut gate = None;
    let mut env = AppEnv::start(
        Start::default(),
        |_| {},
        |options, services| {
            let g = Gate::new(&services.sandbox_url().expect("the sandbox"));
            let now = services.clock().now();
            let profile =
                paydesk::store::Profile::new("gated", &g.url, paydesk::sandbox::DEMO_API_KEY);
            services
                .inspect(|s| s.profile_add(&profile, now))
                .expect("test set-up");
            services
                .secrets()
                .set(
                    "gated",
                    paydesk::sandbox::DEMO_API_KEY,
                    paydesk::sandbox::DEMO_API_SECRET,
                )
                .expect("test set-up");
            options.profile = Some("gated".into());
            gate = Some(g);
        },
    );
    let gate = gate.expect("the gate");
    assert_eq!(env.app().profile_name(), "gated");

    env.type_into("Amount", "12.50");
    gate.set_closed(true);
    env.click("Create link");
    gate.wait_held();
    // The create is out and the server has not got it: the window keeps drawing frames, each
    // saying so. A frame that waited for the request would wait for the gate, which opens by
    // itself only after its watchdog.
    for _ in 0..30 {
        env.harness.step();
        assert!(env.app().views.new_link.is_sending());
        env.harness.get_by_label("Sending…");
    }
    assert!(!gate.gave_up(), "a frame waited for the held request");
    assert!(env.app().views.shown.is_none());

    gate.set_closed(false);
    env.until("the link is shown", |app| app.views.shown.is_some());
    assert_eq!(
        env.app()
            .views
            .shown
            .as_ref()
            .and_then(|s| s.link().amount)
            .map(|a| a.to_string())
            .as_deref(),
        Some("12.50")
    );
}

#[test]
fn every_sentence_renders_in_both_languages_with_the_shipped_fonts() {
    // kittest panics on a glyph no font can draw; lay out every sentence and symbol.
    let mut harness = Harness::builder().build_ui(|ui| {
        paydesk::ui::fonts::install(ui.ctx());
        for lang in Lang::ALL {
            for e in crate::support::catalogues::every_sentence() {
                ui.label(lang.pick(e.tr, e.en));
            }
        }
        for c in paydesk::domain::Currency::ALL {
            ui.label(c.symbol());
        }
        ui.label("ç ğ ı İ ö ş ü Ç Ğ Ö Ş Ü ₺ ✓ ✗ ▲ ▼ ❐ ✖ –");
    });
    harness.run();
    for s in ["₺", "₼", "₽", "✓", "İ"] {
        assert!(
            harness
                .ctx
                .fonts_mut(|f| f.has_glyphs(&egui::FontId::proportional(14.0), s)),
            "{s}"
        );
    }
}

impl AppEnv {
    /// Creates a link for `amount` from the New link view and waits for its result view.
    fn create_link(&mut self, amount: &str, description: &str) -> paydesk::domain::Link {
        self.type_into("Amount", amount);
        if !description.is_empty() {
            self.type_into("Description", description);
        }
        self.click("Create link");
        self.until("the link is shown", |app| app.views.shown.is_some());
        self.shown_link()
    }
}

#[test]
fn a_cancelled_link_reads_cancelled_and_the_customer_display_follows_it() {
    let mut env = start();
    let link = env.create_link("64.00", "");
    env.click("Customer display");
    assert!(env.app().views.customer.is_open());
    // The customer display (embedded in the test harness) shows the amount and the QR.
    // (The top bar names the shop too, after its icon: the display's is the name alone.)
    env.until_ui("the display names the shop", |h| {
        h.query_all_by_label("Kadıköy Kahve Evi").next().is_some()
    });
    env.harness
        .get_by_role_and_label(Role::Label, "Scan to pay");
    assert!(env.harness.get_all_by_label("₺64.00").count() >= 2);

    env.cancel_shown();
    // Both windows say so (the customer display may draw it a frame or two later); no poll
    // runs on a final state.
    env.until_ui("both windows say Cancelled", |h| {
        h.query_all_by_label("Cancelled").count() >= 2
    });
    assert_eq!(env.harness.get_all_by_label("Cancelled").count(), 2);
    let status = env.app().views.shown.as_ref().unwrap().status();
    assert_eq!(
        status,
        LinkStatus::Expired,
        "the server reports a cancel as EXPIRED"
    );

    // Esc closes the customer display.
    env.harness.key_press(egui::Key::Escape);
    env.harness.run_steps(2);
    assert!(!env.app().views.customer.is_open());
    let _ = link;
}

#[test]
fn the_customer_display_flips_to_paid() {
    let mut env = start();
    let link = env.create_link("250.00", "");
    env.click("Full screen");
    assert!(env.app().views.customer.is_open() && env.app().views.customer.is_fullscreen());
    env.admin(
        reqwest::Method::POST,
        &format!("/sandbox/links/{}/pay", link.id),
        r#"{"amount":"250.00"}"#,
    );
    // Both windows say so: the customer display ("Paid" under a large tick, issue 29) and, as
    // large, the result view.
    env.until_ui("both windows say Paid", |h| {
        h.query_all_by_label("Paid ✓").count() == 1 && h.query_all_by_label("Paid").count() == 1
    });
    // The customer display's "Scan to pay" line is gone (the main view's QR image keeps its
    // alternative text).
    assert!(
        env.harness
            .query_by_role_and_label(Role::Label, "Scan to pay")
            .is_none()
    );
}

#[test]
fn history_finds_a_link_by_order_number_and_opens_it() {
    let mut env = start();
    let first = env.create_link("10.00", "Çay ve simit");
    env.click("New link");
    env.until("the next order number arrives", |app| {
        app.views.new_link.draft().order_number != first.order_number.clone().unwrap_or_default()
    });
    let second = env.create_link("20.00", "Türk kahvesi");
    env.nav(View::History);
    env.until("both links are listed", |app| {
        app.views.history.rows().len() == 2
    });
    // Newest first.
    assert_eq!(env.app().views.history.rows()[0].id, second.id);
    assert_eq!(env.app().views.history.rows()[1].id, first.id);

    let first_order = first.order_number.clone().unwrap();
    env.type_into(
        "Search (order number, reference, description)",
        &first_order,
    );
    env.until("the search narrows the list", |app| {
        app.views.history.rows().len() == 1 && !app.views.history.is_loading()
    });
    env.harness.run_steps(2);
    env.harness
        .get_by_label_contains(&format!("{first_order} ₺10.00"))
        .click();
    env.until("the link opens", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.link().id == first.id)
    });
    env.harness.run_steps(2);
    env.harness
        .get_by_role_and_label(Role::Image, "Scan to pay");
    env.harness.get_by_label("Çay ve simit");
    env.click("Back");
    assert!(env.app().views.shown.is_none());
}

/// A link paid after it was made reads "Waiting for payment" in the store; opening History asks
/// the server about the open rows on screen, so the row says how it is now and since when.
#[test]
fn opening_history_refreshes_open_rows_and_each_status_says_how_old_it_is() {
    let mut env = start();
    let link = env.create_link("42.00", "Limonata");
    env.click("New link");
    // A refresh of the link still out would come back after the payment and say so first.
    env.settle("no refresh of the link is out");
    env.admin(
        reqwest::Method::POST,
        &format!("/sandbox/links/{}/pay", link.id),
        "",
    );
    env.nav(View::History);
    env.until("opening the view refreshed the open row", |app| {
        app.views
            .history
            .refresh()
            .is_some_and(|r| r.ids() == [link.id.clone()])
    });
    let order = link.order_number.clone().expect("an order number");
    env.until_label(&format!("{order} ₺42.00 Paid · just now"));
    // Opening the view again with nothing open asks nothing.
    env.nav(View::NewLink);
    env.nav(View::History);
    env.settle("opening History again has asked what it asks");
    let refresh = env
        .app()
        .views
        .history
        .refresh()
        .cloned()
        .expect("the first refresh");
    assert_eq!((refresh.ids().len(), refresh.done()), (1, 1));
}

#[test]
fn a_secret_typed_in_settings_goes_to_the_secret_store_and_is_only_reported() {
    let mut env = start();
    env.nav(View::Settings);
    env.click("Add profile");
    env.type_into("Profile name", "magaza");
    env.type_into("Base URL", "https://api.example.com");
    env.type_into("API key id", "pk_live_1");
    env.type_into("Amount limit (empty: none)", "5000");
    env.click("Save");
    env.until("the profile is saved", |app| {
        app.holds.profiles.iter().any(|p| p.name == "magaza")
    });
    let saved = env
        .app()
        .holds
        .profiles
        .iter()
        .find(|p| p.name == "magaza")
        .unwrap()
        .clone();
    assert_eq!(saved.amount_limit.unwrap().to_string(), "5000.00");

    // (An AccessKit click: a pointer click right after the Save click is not seen as one.)
    env.harness
        .get_by_label("Edit profile magaza")
        .click_accesskit();
    env.harness.run_steps(2);
    env.until_label("No keyring is available");
    env.type_into("New secret", "sk_live_very_secret");
    env.click("Store in the keyring");
    assert!(
        !env.app().views.settings.has_typed_secret(),
        "wiped from the form"
    );
    // The tests' secret store has no keyring: the app says so plainly.
    env.until_label("No keyring is available");
    assert!(
        env.harness
            .query_by_label_contains("sk_live_very_secret")
            .is_none()
    );
    let stored = paydesk::secrets::SecretStore::get(&*env.secrets, "magaza", "pk_live_1").unwrap();
    assert_eq!(
        stored.as_deref().map(String::as_str),
        Some("sk_live_very_secret")
    );
}

/// The app with a second profile, `magaza`, added before start (`options` set as given), and
/// its form open in Settings.
fn with_profile_magaza_open(options: impl FnOnce(&mut paydesk::app::AppOptions)) -> AppEnv {
    let mut env = AppEnv::start(
        Start::default(),
        |_| {},
        |app_options, services| {
            options(app_options);
            let now = services.clock().now();
            let profile =
                paydesk::store::Profile::new("magaza", "https://api.example.com", "pk_live_1");
            services
                .inspect(|s| s.profile_add(&profile, now))
                .expect("test set-up");
        },
    );
    env.nav(View::Settings);
    env.until_label("Edit profile magaza");
    // (An AccessKit click: the entry is found by its accessible name.)
    env.harness
        .get_by_label("Edit profile magaza")
        .click_accesskit();
    env.harness.run_steps(2);
    env
}

#[test]
fn removing_a_profile_is_asked_again_and_keep_changes_nothing() {
    let mut env = with_profile_magaza_open(|_| {});
    let question = "The profile magaza is removed from this desk. The links made with it stay in this desk's file.";
    // The first press only asks; "Keep profile" leaves it as it was.
    env.click("Remove profile");
    env.until_shown(question);
    env.click("Keep profile");
    env.harness.run_steps(4);
    assert!(env.harness.query_by_label(question).is_none());
    assert!(env.app().holds.profiles.iter().any(|p| p.name == "magaza"));
    // Asked again and answered with the verb: removed.
    env.click("Remove profile");
    env.until_shown(question);
    env.click("Remove profile");
    env.until("the profile is removed", |app| {
        !app.holds.profiles.iter().any(|p| p.name == "magaza")
    });
}

/// A keyring that answers, but with two secrets for one entry.
#[derive(Debug)]
struct AmbiguousKeyring;

impl paydesk::secrets::SecretStore for AmbiguousKeyring {
    fn get(
        &self,
        profile: &str,
        api_key: &str,
    ) -> Result<Option<zeroize::Zeroizing<String>>, paydesk::secrets::SecretError> {
        Err(paydesk::secrets::SecretError::Ambiguous {
            user: format!("{profile}:{api_key}"),
            count: 2,
        })
    }
    fn set(&self, _: &str, _: &str, _: &str) -> Result<(), paydesk::secrets::SecretError> {
        Ok(())
    }
    fn delete(&self, _: &str, _: &str) -> Result<(), paydesk::secrets::SecretError> {
        Ok(())
    }
}

#[test]
fn a_keyring_that_fails_says_what_to_do_instead_of_checking_forever() {
    let mut env = with_profile_magaza_open(|options| {
        options.secrets = std::sync::Arc::new(AmbiguousKeyring);
    });
    env.until_label(
        "The keyring holds more than one secret for this profile. Remove the extra ones with your keyring tool.",
    );
    assert!(env.harness.query_by_label("Working…").is_none());
    // The keyring's own words (the entry's user) stay out of the sentence.
    assert!(
        env.harness
            .query_by_label_contains("magaza:pk_live_1")
            .is_none()
    );
}

#[test]
fn a_catalog_csv_is_previewed_with_line_errors_then_imported_and_offered_in_the_form() {
    let mut env = start();
    let csv = env.dir.path().join("katalog.csv");
    std::fs::write(
        &csv,
        "id;name;unit_price;currency\nv_cay;Çay;15,50;TRY\nv_bad;Bozuk;-3;TRY\nv_eur;Fincan;18,50;EUR\n",
    )
    .unwrap();
    env.nav(View::Catalog);
    env.type_into("CSV file", csv.to_str().unwrap());
    env.click("Preview");
    env.until_label("To import: 2");
    env.harness.get_by_label("Lines with errors: 1");
    env.harness.get_by_label("3");
    assert!(
        env.app().holds.catalog.is_empty(),
        "a preview writes nothing"
    );
    env.click("Import");
    env.until_label("Imported: 2");
    assert_eq!(env.app().holds.catalog.len(), 2);

    env.nav(View::NewLink);
    env.click("Add from catalog");
    env.type_into("Search the catalog", "ça");
    env.click("Çay — ₺15.50");
    env.harness.run_steps(2);
    // The amount is the item's price: nothing to type.
    assert_eq!(env.app().views.new_link.draft().amount, "15.50");
}

#[test]
fn print_slip_saves_the_slip_without_a_printer_and_prints_it_on_the_default_one() {
    let mut env = start();
    let link = env.create_link("150.00", "");
    let order = link.order_number.clone().expect("an order number");

    // No default printer: the PDF is saved in the folder and the note says where.
    env.click("Print slip");
    env.until_label("No default printer; the slip was saved as a PDF to");
    let saved = env.cups.saved().join(format!("paydesk-slip-{order}.pdf"));
    let note = format!(
        "No default printer; the slip was saved as a PDF to {}",
        saved.display()
    );
    env.harness.get_by_label(&note);
    assert!(
        std::fs::read(&saved)
            .expect("the slip")
            .starts_with(b"%PDF-")
    );

    // The shop picks A6 in Settings and a default printer appears: the slip goes to it.
    env.nav(View::Settings);
    env.click("Slip paper");
    env.click("A6 sheet (105 × 148 mm)");
    assert_eq!(env.app().saved.slip_paper, Paper::A6);
    env.nav(View::NewLink);
    env.cups.set_printer(Some("Counter_80"));
    env.click("Print slip");
    env.until_label("Slip sent to the printer Counter_80");
    let args = env.cups.read("lp-args").expect("lp ran");
    assert_eq!(
        args.lines().collect::<Vec<_>>(),
        [
            "-d",
            "Counter_80",
            "-t",
            &format!("paydesk {order}"),
            "-o",
            "media=A6"
        ]
    );
    let sent = env.cups.lp_stdin().expect("lp read the slip");
    assert!(sent.starts_with(b"%PDF-"));
}

/// The navigation has one width on every page and in both languages, so every view's title
/// starts at the same x.
#[test]
fn every_view_starts_at_one_x_in_each_language() {
    let mut env = start();
    let mut lefts = Vec::new();
    for lang in [paydesk::lang::Lang::En, paydesk::lang::Lang::Tr] {
        env.app_mut().saved.lang = lang;
        env.harness.run_steps(2);
        for view in [View::History, View::Report, View::Catalog, View::Settings] {
            env.app_mut().view = view;
            env.harness.run_steps(2);
            let title = view.title().get(lang);
            let heading = env
                .harness
                .query_all_by(|n| {
                    n.role() == egui::accesskit::Role::Label && n.value().as_deref() == Some(title)
                })
                .next()
                .unwrap_or_else(|| panic!("no heading {title}"));
            lefts.push((title.to_owned(), heading.rect().left()));
        }
    }
    // One x per language: the navigation is as wide as its longest entry in the language
    // shown (issue 29), so Turkish's may be wider, but every view of a language starts at it.
    for language in lefts.chunks(4) {
        let first = language[0].1;
        assert!(
            language.iter().all(|(_, x)| (x - first).abs() < 0.5),
            "the views start at different x: {lefts:?}"
        );
    }
}

/// Settings names each profile once and says where it points in words: the built-in sandbox
/// never shows its loopback address and port, not even in its edit form.
#[test]
fn settings_name_the_built_in_sandbox_in_words_never_by_its_loopback_address() {
    let mut env = start();
    env.nav(View::Settings);
    env.harness.get_by_label("built-in sandbox");
    env.harness
        .get_by_label("Edit profile sandbox")
        .click_accesskit();
    env.harness.run_steps(2);
    env.harness
        .get_by_label_contains("Built-in sandbox profile");
    for hidden in ["127.0.0.1", "http://", "localhost"] {
        assert!(
            env.harness
                .query_all_by(|n| {
                    [n.label(), n.value()]
                        .into_iter()
                        .flatten()
                        .any(|t| t.contains(hidden))
                })
                .next()
                .is_none(),
            "{hidden} is on screen"
        );
    }
}

/// At 1024×768, the smallest screen paydesk is made for, an answer's line per installment
/// count under its header row are on screen without scrolling (issue 29 left the chart out:
/// the table says every count exactly).
#[test]
fn installments_show_a_line_per_count_under_a_header_above_the_fold_at_1024_by_768() {
    let start = Start {
        size: [1024.0, 768.0],
        ..Start::default()
    };
    let mut env = AppEnv::start(start, |_| {}, |_, _| {});
    env.nav(View::Installments);
    env.type_into("BIN (first 6 digits of the card)", "554960");
    env.type_into("Amount (optional)", "1000");
    env.click("Look up");
    env.until_label("Garanti BBVA");
    env.harness.run_steps(2);
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1024.0, 768.0));
    for header in ["Installments", "Per month (₺)", "In all (₺)"] {
        let r = env
            .harness
            .get_by_role_and_label(Role::ColumnHeader, header)
            .rect();
        assert!(screen.contains_rect(r), "{header} at {r:?}");
    }
    for line in ["Single payment", "6 installments", "12 installments"] {
        let r = env.harness.get_by_label(line).rect();
        assert!(screen.contains_rect(r), "{line} at {r:?}");
    }
    // The figures without repeated units: the header names the currency.
    env.harness.get_by_label("1,224.90");
    // The full table waits under its fold.
    assert!(env.harness.query_by_label("Per installment").is_none());
}

/// Whether New link now holds a new sale: empty amount and items, an order number that is not
/// `sent`'s, and nothing locked or refused.
fn is_a_new_sale(env: &AppEnv, sent: &str) -> bool {
    let form = &env.app().views.new_link;
    let draft = form.draft();
    draft.amount.is_empty()
        && draft.items.is_empty()
        && !draft.order_number.is_empty()
        && draft.order_number != sent
        && form.note().is_none()
        && env.app().form_lock().is_none()
}

/// The clerk looks at the sale in History, opens it there, and comes back to New link by the
/// sidebar: a new sale, whose Create makes a second link (never "This order number already
/// has a link").
#[test]
fn new_link_after_a_sale_opened_from_history_is_a_new_sale() {
    let mut env = start();
    let first = env.create_link("30.00", "Masa 3");
    let sent = first.order_number.clone().expect("an order number");
    env.nav(View::History);
    env.until("History lists the sale", |app| {
        app.views.history.rows().len() == 1
    });
    env.harness.run_steps(2);
    env.harness
        .query_all_by(|n| {
            n.role() == Role::Button && n.label().is_some_and(|l| l.contains(sent.as_str()))
        })
        .next()
        .expect("the sale's row in History")
        .click();
    env.until("the sale opens from History", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.origin() == paydesk::ui::link_result::Origin::History)
    });
    env.nav(View::NewLink);
    env.until("New link holds a new sale", |app| {
        let d = app.views.new_link.draft();
        !d.order_number.is_empty() && d.order_number != sent
    });
    assert!(is_a_new_sale(&env, &sent));
    env.type_into("Amount", "45.00");
    env.click("Create link");
    let second = env.until_another_link_shown("the second sale's link is shown", &first.id);
    assert!(env.app().views.new_link.note().is_none(), "no refusal");
    assert_ne!(second.order_number.as_deref(), Some(sent.as_str()));
}

/// Straight from the result view to another view and back by the sidebar: the sale's QR is
/// still there to show the customer, and "New link" from it is a new sale.
#[test]
fn new_link_by_the_sidebar_after_a_sale_is_a_new_sale() {
    let mut env = start();
    let first = env.create_link("12.00", "");
    let sent = first.order_number.clone().expect("an order number");
    env.nav(View::Report);
    env.nav(View::NewLink);
    env.harness.get_by_label(&sent);
    env.click("New link");
    env.until("the form is back", |app| app.views.shown.is_none());
    env.until("New link holds a new sale", |app| {
        let d = app.views.new_link.draft();
        !d.order_number.is_empty() && d.order_number != sent
    });
    assert!(is_a_new_sale(&env, &sent));
}

/// A manager adds an item of the shop's own in Catalog and sells it: the link the server made
/// carries it as a typed item (its name and unit price), never with a variant id.
#[test]
fn an_item_added_in_catalog_is_sold_by_its_name_and_price() {
    let mut env = start();
    env.nav(View::Catalog);
    env.harness
        .get_all_by_role_and_label(Role::Button, "Add item")
        .last()
        .expect("Catalog's Add item")
        .click();
    env.harness.run_steps(2);
    env.type_into("Item name", "Demlik çay");
    env.type_into("Unit price", "70");
    env.click("Save item");
    env.until("the catalog holds the item", |app| {
        app.holds.catalog.values().any(|v| v.name == "Demlik çay")
    });
    let item = env
        .app()
        .holds
        .catalog
        .values()
        .find(|v| v.name == "Demlik çay")
        .cloned()
        .expect("the item");
    assert!(item.is_own(), "{item:?}");
    // Each row's Edit is named with its item.
    env.harness.run_steps(2);
    env.harness
        .get_by_role_and_label(Role::Button, "Edit Demlik çay");

    env.nav(View::NewLink);
    env.click("Add from catalog");
    env.click("Demlik çay — ₺70.00");
    env.harness.run_steps(2);
    assert_eq!(env.app().views.new_link.draft().amount, "70.00");
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    let id = env.shown_link().id;
    let state: serde_json::Value =
        serde_json::from_str(&env.admin(reqwest::Method::GET, "/sandbox/state", ""))
            .expect("the sandbox's state");
    let text = state.to_string();
    assert!(!text.contains(&item.id), "the own id went to the server");
    let links = state["content"]["links"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let link = links
        .iter()
        .find(|l| l["id"] == id.as_str())
        .unwrap_or_else(|| panic!("the link in the sandbox: {text}"));
    // A typed item: its name and price, no variant id.
    let items = link["items"].as_array().expect("the link's items");
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["name"], "Demlik çay");
    assert!(items[0]["productVariantId"].is_null(), "{items:?}");
    assert_eq!(items[0]["unitPrice"].to_string(), "70.00");
    assert_eq!(items[0]["quantity"], 1);
}
