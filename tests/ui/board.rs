//! The open-links board and the paid alerts, driving the real `App` (kittest, by role and
//! label) against the in-process sandbox: links paid through the sandbox's admin route turn
//! paid on the board with no click and each sends one notification; a partial payment makes
//! its own; the narrow board beside New link on a wide window opens a link's QR; and, on a
//! manual clock that the app and the sandbox share, the background refresh keeps its budget
//! (the sandbox counts the requests).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::support::app::{AppEnv, Start};
use chrono::{DateTime, TimeDelta, Utc};
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use paydesk::app::View;
use paydesk::board::{Budget, Pace};
use paydesk::clock::{Clock, ManualClock, SystemClock};
use paydesk::domain::LinkStatus;
use paydesk::domain::link::{KeyLimits, LinkContext};
use paydesk::domain::{CatalogVariant, LinkDraft};
use paydesk::service::Services;
use paydesk::ui::link_result::{Origin, ShownLink};
use serde_json::Value;

/// Fast paces for flows on the real clock: a link is asked about 100 ms after it is seen,
/// backing off to 400 ms, requests 50 ms apart.
fn fast() -> Budget {
    let pace = Pace {
        first: Duration::from_millis(100),
        max: Duration::from_millis(400),
    };
    Budget {
        board: pace,
        focused: pace,
        gap: Duration::from_millis(50),
    }
}

fn start(clock: Arc<dyn Clock>, budget: Budget, size: [f32; 2]) -> AppEnv {
    start_with(clock, budget, size, |_| {})
}

/// Starts the app on a fresh data folder, after `prepare` used the services (the embedded
/// sandbox included) before the window exists.
fn start_with(
    clock: Arc<dyn Clock>,
    budget: Budget,
    size: [f32; 2],
    prepare: impl FnOnce(&Services),
) -> AppEnv {
    let start = Start {
        clock,
        size,
        ..Start::default()
    };
    AppEnv::start(
        start,
        |_| {},
        |options, services| {
            prepare(services);
            options.poll_interval = budget.focused.first;
            options.poll_max = budget.focused.max;
            options.board_pace = budget.board;
            options.request_gap = budget.gap;
        },
    )
}

impl AppEnv {
    fn create(&mut self, amount: &str, partial: bool) -> paydesk::domain::Link {
        self.type_into("Amount", amount);
        if partial {
            self.open_options();
            self.click("Allow partial payment");
        }
        self.harness
            .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
        self.until("the link is shown", |app| app.views.shown.is_some());
        let link = self.shown_link();
        self.click("New link");
        self.until("the next sale's order number arrives", |app| {
            app.views.shown.is_none() && !app.views.new_link.draft().order_number.is_empty()
        });
        link
    }

    /// Pays `amount` (all that is left when `None`) through the sandbox's admin route.
    fn pay(&self, id: &str, amount: Option<&str>) {
        let body = amount.map_or_else(String::new, |a| format!(r#"{{"amount":"{a}"}}"#));
        self.admin(
            reqwest::Method::POST,
            &format!("/sandbox/links/{id}/pay"),
            &body,
        );
    }

    fn board_status(&self, id: &str) -> Option<LinkStatus> {
        self.app()
            .views
            .board
            .rows()
            .iter()
            .find(|r| r.link.id == id)
            .map(|r| r.link.status.clone())
    }
}

fn order(link: &paydesk::domain::Link) -> String {
    link.order_number
        .clone()
        .expect("links get an order number")
}

#[test]
fn three_open_links_two_paid_through_the_sandbox_turn_paid_on_the_board_with_a_notification_each() {
    let mut env = start(Arc::new(SystemClock), fast(), [1400.0, 1000.0]);
    let links = [
        env.create("10.00", false),
        env.create("20.00", false),
        env.create("30.00", false),
    ];
    env.click("Show all");
    assert_eq!(env.app().view, View::Board);
    env.until("the board lists the three links", |app| {
        app.views.board.rows().len() == 3
    });
    for (link, amount) in links.iter().zip(["₺10.00", "₺20.00", "₺30.00"]) {
        env.harness.get_by_role_and_label(
            Role::Button,
            &format!("{} {amount} Waiting for payment", order(link)),
        );
    }

    // The customers of the first and the third pay; nobody touches the app.
    env.pay(&links[0].id, None);
    env.pay(&links[2].id, None);
    env.until("both read as paid on the board", |app| {
        [&links[0], &links[2]].iter().all(|l| {
            app.views
                .board
                .rows()
                .iter()
                .any(|r| r.link.id == l.id && r.link.status == LinkStatus::Completed)
        })
    });
    env.harness.run_steps(2);
    env.harness
        .get_by_role_and_label(Role::Button, &format!("{} ₺10.00 Paid", order(&links[0])));
    env.harness
        .get_by_role_and_label(Role::Button, &format!("{} ₺30.00 Paid", order(&links[2])));
    env.harness.get_by_role_and_label(
        Role::Button,
        &format!("{} ₺20.00 Waiting for payment", order(&links[1])),
    );
    assert_eq!(env.board_status(&links[1].id), Some(LinkStatus::Pending));

    // One notification for each, with its amount and order number.
    env.until("both notifications are out", |app| !app.is_busy());
    let notices = env.notices.notices();
    assert_eq!(notices.len(), 2, "{notices:#?}");
    for (link, amount) in [(&links[0], "₺10.00"), (&links[2], "₺30.00")] {
        let n = notices
            .iter()
            .find(|n| n.body.contains(&order(link)))
            .unwrap_or_else(|| panic!("no notification for {}: {notices:#?}", order(link)));
        assert_eq!(n.summary, format!("Paid: {amount}"));
        assert_eq!(n.sound, None, "the sound is off by default");
    }

    // The same refresh wrote history: paid there too.
    let history = env
        .services
        .desk("sandbox")
        .expect("the desk")
        .history(&paydesk::store::LinkQuery::default())
        .expect("history reads");
    let status: HashMap<_, _> = history
        .links
        .iter()
        .map(|l| (l.link.id.clone(), l.link.status.clone()))
        .collect();
    assert_eq!(status[&links[0].id], LinkStatus::Completed);
    assert_eq!(status[&links[2].id], LinkStatus::Completed);
    assert_eq!(status[&links[1].id], LinkStatus::Pending);

    // Later answers about paid links alert no more. The refresh has one request out at a
    // time: once it asks about the open link, every answer before is in; two such rounds.
    let open = links[1].id.clone();
    let (mut rounds, mut was_asking) = (0, false);
    env.until("the refresh asked about the open link twice more", |app| {
        let asking = app.refresher.asking() == Some(open.as_str());
        if was_asking && !asking {
            rounds += 1;
        }
        was_asking = asking;
        rounds >= 2
    });
    env.until("the worker is idle", |app| !app.is_busy());
    assert_eq!(env.notices.notices().len(), 2);
}

#[test]
fn a_partial_payment_alerts_with_what_came_and_what_is_left_then_the_rest_alerts_paid() {
    let mut env = start(Arc::new(SystemClock), fast(), [1400.0, 1000.0]);
    let link = env.create("100.00", true);
    assert!(link.allow_partial_payment);
    env.pay(&link.id, Some("40.00"));
    env.until("the partial payment is noticed", |app| {
        app.views
            .board
            .rows()
            .iter()
            .any(|r| r.link.id == link.id && r.link.paid.is_some_and(|p| p.to_string() == "40.00"))
    });
    env.until("the notification is out", |app| !app.is_busy());
    let notices = env.notices.notices();
    assert_eq!(notices.len(), 1, "{notices:#?}");
    assert_eq!(notices[0].summary, "Partial payment: ₺40.00");
    assert_eq!(
        notices[0].body,
        format!("Order {} · Remaining: ₺60.00", order(&link))
    );
    // Still open: the board keeps asking, and reads it as History does, partially paid.
    assert_eq!(env.board_status(&link.id), Some(LinkStatus::Pending));
    env.harness.get_by_role_and_label(
        Role::Button,
        &format!("{} ₺100.00 Partially paid", order(&link)),
    );

    assert_eq!(notices[0].sound, None, "the sound is off by default");

    // The clerk turns the sound on; the next alert asks the notification service for it.
    env.nav(View::Settings);
    env.click("Play a short sound with the notification");
    assert!(env.app().saved.alert_sound);
    env.pay(&link.id, None);
    env.until("the rest is noticed", |app| {
        app.views
            .board
            .rows()
            .iter()
            .any(|r| r.link.id == link.id && r.link.status == LinkStatus::Completed)
    });
    env.until("the notification is out", |app| !app.is_busy());
    let notices = env.notices.notices();
    assert_eq!(notices.len(), 2, "{notices:#?}");
    assert_eq!(notices[1].summary, "Paid: ₺100.00");
    assert_eq!(notices[1].sound, Some("complete"));
}

#[test]
fn a_wide_window_has_the_board_beside_new_link_and_a_row_opens_the_links_qr() {
    let mut env = start(Arc::new(SystemClock), fast(), [1400.0, 1000.0]);
    let link = env.create("12.00", false);
    let row = format!("{} ₺12.00 Waiting for payment", order(&link));
    env.until("the panel lists the link", |app| {
        app.views.board.rows().len() == 1
    });
    env.harness.run_steps(2);
    // New link (the form) is there, and beside it the row.
    env.harness.get_by_label("Amount");
    env.harness
        .get_by_role_and_label(Role::Button, &row)
        .click();
    env.harness.run_steps(2);
    let app = env.app();
    assert_eq!(app.view, View::Board);
    let shown = app.views.shown.as_ref().expect("the link opens");
    assert_eq!(shown.link().id, link.id);
    assert_eq!(shown.origin(), Origin::Board);
    env.harness
        .get_by_role_and_label(Role::Image, "Scan to pay");
    env.harness.get_by_label(&order(&link));
    env.click("Customer display");
    assert!(env.app().views.customer.is_open());
    env.harness.key_press(egui::Key::Escape);
    env.harness.run_steps(2);
    assert!(!env.app().views.customer.is_open());
    env.click("Back");
    assert!(env.app().views.shown.is_none());
    env.harness.get_by_role_and_label(Role::Button, &row);

    // A narrow window keeps New link to itself.
    env.harness.set_size(egui::vec2(1000.0, 900.0));
    env.click("New link");
    env.harness.run_steps(3);
    env.harness.get_by_label("Amount");
    assert!(env.harness.query_by_label(&row).is_none());
}

#[test]
fn a_sale_made_is_never_brought_back_to_new_link_with_create_enabled() {
    let mut env = start(Arc::new(SystemClock), fast(), [1000.0, 900.0]);
    env.type_into("Amount", "30.00");
    env.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    env.until("the link is shown", |app| app.views.shown.is_some());
    let first = env.shown_link();
    let sent = first.order_number.clone().expect("an order number");
    env.until("the form has the next sale's order number", |app| {
        let n = &app.views.new_link.draft().order_number;
        !n.is_empty() && *n != sent
    });

    // The clerk looks at the sale in Open links, then goes back to New link by the sidebar.
    env.nav(View::Board);
    env.until("the board lists the link", |app| {
        app.views.board.rows().len() == 1
    });
    env.harness.run_steps(2);
    let row = format!("{} ₺30.00 Waiting for payment", order(&first));
    env.harness
        .get_by_role_and_label(Role::Button, &row)
        .click();
    env.harness.run_steps(2);
    assert_eq!(
        env.app().views.shown.as_ref().map(ShownLink::origin),
        Some(Origin::Board)
    );
    env.nav(View::NewLink);
    env.harness.run_steps(2);

    // A new sale: empty amount, the next order number, and Create makes a second link.
    let draft = env.app().views.new_link.draft().clone();
    assert!(
        draft.amount.is_empty(),
        "the sent amount came back: {draft:?}"
    );
    assert!(!draft.order_number.is_empty());
    assert_ne!(draft.order_number, sent);
    assert!(env.app().form_lock().is_none());
    env.type_into("Amount", "45.00");
    env.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    let second = env.until_another_link_shown("the second link is shown", &first.id);
    assert_eq!(
        second.order_number.as_deref(),
        Some(draft.order_number.as_str())
    );
    assert!(
        env.app().views.new_link.note().is_none(),
        "no refusal under the form"
    );
}

/// One link-detail request as the sandbox saw it: (its time, link id).
fn detail_requests(env: &AppEnv) -> Vec<(DateTime<Utc>, String)> {
    let seen: Value =
        serde_json::from_str(&env.admin(reqwest::Method::GET, "/sandbox/requests", ""))
            .expect("the request log is JSON");
    seen["content"]["recent"]
        .as_array()
        .expect("a list of requests")
        .iter()
        .filter(|r| r["endpoint"] == "link.detail")
        .map(|r| {
            (
                DateTime::from_timestamp_millis(r["atMs"].as_i64().expect("a time"))
                    .expect("a time"),
                r["linkId"].as_str().expect("a link id").to_owned(),
            )
        })
        .collect()
}

#[test]
// Long on purpose: one manual-clock run whose steps depend on the ones before.
#[allow(clippy::too_many_lines)]
fn on_a_manual_clock_the_refresh_keeps_its_budget_and_asks_nothing_of_final_or_expired_links() {
    let t0: DateTime<Utc> = "2026-11-22T09:00:00Z".parse().expect("a time");
    let clock = Arc::new(ManualClock::new(t0));
    let expiry = t0 + TimeDelta::seconds(50);
    let mut made = Vec::new();
    // Before the window opens: six links on the sandbox (its clock is this manual clock),
    // one expiring after 50 s, one cancelled, one paid.
    let env_clock: Arc<dyn Clock> = clock.clone();
    let mut env = start_with(env_clock, Budget::default(), [1400.0, 1000.0], |services| {
        let desk = services.desk("sandbox").expect("the desk");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("test set-up");
        for (amount, expires) in [
            ("11.00", None),
            ("12.00", None),
            ("13.00", None),
            ("14.00", Some(expiry)),
            ("15.00", None),
            ("16.00", None),
        ] {
            let draft = LinkDraft {
                amount: amount.into(),
                order_number: desk.next_order_number().expect("an order number"),
                expiry: expires,
                ..LinkDraft::default()
            };
            let catalog: HashMap<String, CatalogVariant> = HashMap::new();
            let request = draft
                .validate(&LinkContext {
                    now: clock.now(),
                    catalog: &catalog,
                    limits: KeyLimits::default(),
                })
                .expect("a valid draft");
            made.push(rt.block_on(desk.create_link(&request)).expect("a link"));
            // Each create a second apart (the manual clock would repeat signatures otherwise).
            clock.advance(TimeDelta::seconds(1));
        }
        rt.block_on(desk.cancel_link(&made[5].id))
            .expect("the cancel");
        // Paid before the window opens, and refreshed into the store (as `link show
        // --refresh` would): the board starts with it paid.
        let base = services.sandbox_url().expect("the sandbox");
        rt.block_on(async {
            let r = paydesk::api::client::http_client_builder()
                .build()
                .expect("an HTTP client")
                .post(format!("{base}/sandbox/links/{}/pay", made[4].id))
                .header("Content-Type", "application/json")
                .send()
                .await
                .expect("the pay route");
            assert!(r.status().is_success());
        });
        let paid = rt
            .block_on(desk.link_detail(&made[4].id))
            .expect("the detail");
        assert_eq!(paid.status, LinkStatus::Completed);
    });
    let [open_a, open_b, paid_later, expiring, paid_before, cancelled] = &made[..] else {
        unreachable!()
    };
    env.admin(reqwest::Method::DELETE, "/sandbox/requests", "");

    // Five minutes of the manual clock, a quarter of a second at a time, each step's request
    // (if any) answered before the clock moves on. `paid_later` is paid at +20 s.
    let start = clock.now();
    let paid_at = start + TimeDelta::seconds(20);
    let mut paid = false;
    while clock.now() < start + TimeDelta::minutes(5) {
        clock.advance(TimeDelta::milliseconds(250));
        if !paid && clock.now() >= paid_at {
            env.pay(&paid_later.id, None);
            paid = true;
        }
        env.until("the step's work is done", |app| !app.is_busy());
    }
    env.until("the notification is out", |app| !app.is_busy());
    let asked = detail_requests(&env);
    let ids = |id: &str| -> Vec<DateTime<Utc>> {
        asked
            .iter()
            .filter(|(_, l)| l == id)
            .map(|(at, _)| *at)
            .collect()
    };

    // At most one request a second, in all.
    for pair in asked.windows(2) {
        assert!(
            pair[1].0 - pair[0].0 >= TimeDelta::seconds(1),
            "two requests within a second: {pair:?}"
        );
    }
    // Nothing about a link paid or cancelled before: final is final.
    assert!(ids(&paid_before.id).is_empty(), "{asked:?}");
    assert!(ids(&cancelled.id).is_empty(), "{asked:?}");
    // The link paid at +20 s: asked until an answer said paid, never after.
    let after_paid: Vec<_> = ids(&paid_later.id)
        .into_iter()
        .filter(|at| *at >= paid_at)
        .collect();
    assert_eq!(after_paid.len(), 1, "{asked:?}");
    // The link past its expiry: asked before it, never after (the server would still say
    // PENDING for a moment; the rule is the app's).
    let expiring_asked = ids(&expiring.id);
    assert!(!expiring_asked.is_empty());
    assert!(expiring_asked.iter().all(|at| *at < expiry), "{asked:?}");
    // An open link backs off from 5 s to 60 s: 5, 15, 35, 75, 135, 195, 255 s (plus the
    // queue behind the other links, at most a few seconds).
    for link in [open_a, open_b] {
        let times = ids(&link.id);
        let gaps: Vec<i64> = times
            .windows(2)
            .map(|p| (p[1] - p[0]).num_seconds())
            .collect();
        assert!((6..=8).contains(&times.len()), "{}: {times:?}", link.id);
        assert!(gaps.windows(2).all(|g| g[1] >= g[0] - 3), "{gaps:?}");
        assert!(gaps.iter().all(|g| *g <= 63), "{gaps:?}");
    }
    // In all: far below one a second (five minutes, six links).
    assert!(asked.len() < 40, "{} requests: {asked:?}", asked.len());

    // The board shows it; one notification, for that link only.
    assert_eq!(
        env.board_status(&paid_later.id),
        Some(LinkStatus::Completed)
    );
    let notices = env.notices.notices();
    assert_eq!(notices.len(), 1, "{notices:#?}");
    assert!(notices[0].body.contains(&order(paid_later)));
    assert_eq!(notices[0].summary, "Paid: ₺13.00");

    // With every open link final or expired, the refresh has nothing to wake up for.
    env.pay(&open_a.id, None);
    env.pay(&open_b.id, None);
    let before = detail_requests(&env).len();
    for _ in 0..(4 * 70) {
        clock.advance(TimeDelta::milliseconds(250));
        env.until("the step's work is done", |app| !app.is_busy());
    }
    let after = detail_requests(&env).len();
    assert_eq!(after - before, 2, "one last answer each, saying paid");
    assert_eq!(env.app().refresher.counts(clock.now()).1, 0);
    assert_eq!(env.notices.notices().len(), 3);
}
