//! The app under an unknown outcome, driven like `tests/ui/app.rs` (kittest, by role and
//! label) against the in-process sandbox: the New link form locked on a pending order and
//! re-sending through the journal's row, "New link" asking first, the background re-send after
//! a network drop flipping the form to the QR with no click, and a stale row re-sent only
//! after the Pending view's confirmation.

use std::path::Path;
use std::time::Duration;

use crate::support::app::{AppEnv, NEVER, Start};
use chrono::Utc;
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use paydesk::app::{Connection, View};
use paydesk::domain::link::{KeyLimits, LinkContext};
use paydesk::domain::{CatalogVariant, LinkDraft};
use paydesk::store::{JournalBegin, JournalKey, JournalState, NewJournalRow, Store};
use paydesk::ui::new_link::FormLock;

const CREATE: &str = "Create link";
const SEND_AGAIN: &str = "Send again (Ctrl+Enter)";
const LOCKED: &str = "The last send of this order has no answer yet; sending again uses the same request and cannot make a second link.";
const NEW_SALE: &str = "The last sale may already have a link. Start a new sale anyway?";

/// The shared app harness, with this file's fault and journal helpers.
type Env = AppEnv;

/// Background re-sends: `first` wait, doubling up to `max`.
fn start(first: Duration, max: Duration) -> Env {
    start_with(first, max, |_| {})
}

/// Starts the app on a fresh data folder, after `prepare` wrote into it.
fn start_with(first: Duration, max: Duration, prepare: impl FnOnce(&Path)) -> Env {
    AppEnv::start(Start::default(), prepare, |options, _| {
        options.resend_first = first;
        options.resend_max = max;
    })
}

impl AppEnv {
    /// Every link creation's answer is lost from now on (the server makes the link, then
    /// drops the connection): more than any number of retries in a test.
    fn lose_every_answer(&self) {
        self.admin(
            reqwest::Method::POST,
            "/sandbox/faults",
            r#"[{"endpoint":"link.create","kind":"lost","next":100000}]"#,
        );
    }

    fn clear_faults(&self) {
        self.admin(reqwest::Method::DELETE, "/sandbox/faults", "");
    }

    /// The links the sandbox holds for `order`, and the idempotency keys it completed for it.
    fn server_has(&self, order: &str) -> (usize, Vec<String>) {
        let body: serde_json::Value =
            serde_json::from_str(&self.admin(reqwest::Method::GET, "/sandbox/state", ""))
                .expect("the state is JSON");
        let state = &body["content"];
        let links = state["links"]
            .as_array()
            .expect("links")
            .iter()
            .filter(|l| l["orderNumber"] == order)
            .count();
        let keys = state["idempotency"]["completed"]
            .as_array()
            .expect("completed keys")
            .iter()
            .filter(|k| k["endpoint"] == "link.create")
            .filter_map(|k| k["key"].as_str())
            .filter(|k| k.contains(order))
            .map(str::to_owned)
            .collect();
        (links, keys)
    }

    /// Types an amount, presses Create under lost answers, and waits until the form is locked
    /// on the order's pending row. Returns the order number.
    fn create_with_unknown_outcome(&mut self, amount: &str) -> String {
        self.lose_every_answer();
        self.type_into("Amount", amount);
        self.type_into("Description", "Filtre kahve");
        let order = self.app().views.new_link.draft().order_number.clone();
        self.click(CREATE);
        self.until("the create gives up with the form locked", |app| {
            !app.views.new_link.is_sending() && app.form_lock().is_some()
        });
        self.harness.run_steps(2);
        order
    }
}

#[test]
fn an_unknown_outcome_locks_the_form_and_create_sends_the_same_request_again() {
    let mut env = start(NEVER, NEVER);
    let order = env.create_with_unknown_outcome("99.90");

    // Said in one sentence with its action (issue 29); the reason the fields cannot be
    // changed, and what the server said, behind Details.
    env.harness
        .get_by_label("The server has not confirmed this sale yet; press Send again, it cannot make a second link.");
    assert!(env.harness.query_by_label(LOCKED).is_none(), "folded");
    env.click("Details");
    env.harness.get_by_label_contains(LOCKED);
    assert!(env.app().views.shown.is_none());
    assert_eq!(env.app().views.pending.count(), 1);
    assert!(matches!(
        env.app().form_lock(),
        Some(FormLock::Pending { ref key }) if *key == format!("link-{order}")
    ));

    // What would be re-sent cannot be edited: not the order number, not the amount.
    assert!(env.disabled("Order number"), "the order number is editable");
    assert!(env.disabled("Amount"), "the amount is editable");
    assert!(env.disabled("Description"), "the description is editable");
    env.type_into("Amount", "5");
    env.type_into("Order number", "X");
    assert_eq!(env.app().views.new_link.draft().amount, "99.90");
    assert_eq!(env.app().views.new_link.draft().order_number, order);

    // Create is now "Send again"; under the same faults it stays unknown and locked.
    assert!(env.harness.query_by_label(CREATE).is_none());
    let attempts = env.app().views.pending.rows()[0].attempts;
    env.click(SEND_AGAIN);
    env.until("the re-send gives up", |app| {
        !app.views.new_link.is_sending()
            && app
                .views
                .pending
                .rows()
                .first()
                .is_some_and(|r| r.attempts > attempts)
    });
    assert!(env.app().form_lock().is_some());
    assert!(env.app().views.shown.is_none());

    // The network is back: Send again gets the link the first attempt made.
    env.clear_faults();
    env.harness.run_steps(2);
    assert!(
        !env.harness
            .get_by_role_and_label(Role::Button, SEND_AGAIN)
            .accesskit_node()
            .is_disabled()
    );
    env.click(SEND_AGAIN);
    env.until("the link is shown", |app| app.views.shown.is_some());
    let shown = env.app().views.shown.as_ref().expect("shown");
    assert_eq!(shown.link().order_number.as_deref(), Some(order.as_str()));
    assert_eq!(env.app().views.pending.count(), 0);
    // One link on the server, under the one key `link-{order}`.
    let (links, keys) = env.server_has(&order);
    assert_eq!(links, 1, "links for {order}");
    assert_eq!(keys, vec![format!("link-{order}")]);
}

#[test]
fn new_link_asks_first_while_the_order_is_pending() {
    let mut env = start(NEVER, NEVER);
    let order = env.create_with_unknown_outcome("45.00");

    // Cancel keeps everything as it was.
    env.click("New link");
    env.harness.get_by_label(NEW_SALE);
    // The answers name the verbs (issue 29), never Yes/No or Cancel.
    env.click("Keep this sale");
    assert!(env.harness.query_by_label(NEW_SALE).is_none());
    assert_eq!(env.app().views.new_link.draft().order_number, order);
    assert_eq!(env.app().views.new_link.draft().amount, "45.00");
    assert!(env.app().form_lock().is_some());
    env.harness
        .get_by_label("The server has not confirmed this sale yet; press Send again, it cannot make a second link.");

    // Confirmed: a fresh form with the next order number; the old row stays in Pending.
    env.click("New link");
    env.click("Start a new sale");
    env.until("the next order number arrives", |app| {
        let n = &app.views.new_link.draft().order_number;
        !n.is_empty() && *n != order
    });
    env.harness.run_steps(2);
    let app = env.app();
    assert!(app.form_lock().is_none());
    assert!(app.views.new_link.draft().amount.is_empty());
    assert_eq!(app.views.pending.count(), 1);
    assert!(env.harness.query_by_label(NEW_SALE).is_none());
    assert!(!env.disabled("Amount"));
    env.harness.get_by_label(CREATE);
}

#[test]
fn after_a_network_drop_the_pending_order_completes_by_itself_and_its_qr_shows() {
    let mut env = start(Duration::from_millis(100), Duration::from_millis(400));
    let order = env.create_with_unknown_outcome("75.50");
    assert!(matches!(
        env.app().holds.connection,
        Connection::Disconnected(_)
    ));

    // While the server stays silent, the app keeps trying on its own (the row's attempts
    // grow) and the form stays locked.
    let attempts = env.app().views.pending.rows()[0].attempts;
    env.until("a background re-send has run", |app| {
        app.views
            .pending
            .rows()
            .first()
            .is_some_and(|r| r.attempts > attempts)
            && !app.is_resending()
    });
    assert!(env.app().views.shown.is_none());
    assert!(env.app().form_lock().is_some());

    // The network heals; no click at all from here on.
    env.clear_faults();
    env.until("the QR of the order shows", |app| app.views.shown.is_some());
    env.harness.run_steps(2);
    let app = env.app();
    let shown = app.views.shown.as_ref().expect("shown");
    assert_eq!(shown.link().order_number.as_deref(), Some(order.as_str()));
    assert_eq!(app.view, View::NewLink);
    assert_eq!(app.holds.connection, Connection::Connected);
    assert_eq!(app.views.pending.count(), 0);
    env.harness.get_by_label("Scan to pay");
    env.harness.get_by_label("Waiting for payment");

    // History holds it; the server made one link.
    let stored = env
        .services
        .inspect(|s| {
            s.links().find_recent_by_order(
                "sandbox",
                &order,
                Utc::now() - chrono::Duration::hours(1),
            )
        })
        .expect("history reads");
    assert_eq!(
        stored.map(|s| s.link.order_number),
        Some(Some(order.clone()))
    );
    assert_eq!(env.server_has(&order).0, 1);
}

/// A journal row for `order`, committed 25 hours ago and never answered.
fn write_old_pending_row(dir: &Path, order: &str) {
    let now = Utc::now();
    let draft = LinkDraft {
        amount: "42.00".into(),
        order_number: order.into(),
        ..LinkDraft::default()
    };
    let catalog: Vec<CatalogVariant> = Vec::new();
    let request = draft
        .validate(&LinkContext {
            now,
            catalog: &catalog,
            limits: KeyLimits::default(),
        })
        .expect("a valid draft");
    let mut store = Store::open(dir).expect("test set-up");
    let begun = store
        .journal_begin(&NewJournalRow {
            key: JournalKey::new("sandbox", "link.create", request.idempotency_key()),
            body: paydesk::secrets::Redacted(request.body_bytes()),
            order_number: Some(order.into()),
            amount: Some(request.amount()),
            currency: Some(request.currency()),
            now: now - chrono::Duration::hours(25),
            began_by: None,
        })
        .expect("test set-up");
    assert!(matches!(begun, JournalBegin::Started(_)));
}

#[test]
fn a_stale_row_is_sent_again_only_after_the_pending_views_confirmation() {
    let order = "PD-OLD-0001";
    let mut env = start_with(
        Duration::from_millis(100),
        Duration::from_millis(400),
        |dir| {
            write_old_pending_row(dir, order);
        },
    );
    env.until("start-up marked the row stale", |app| {
        app.views
            .pending
            .rows()
            .iter()
            .any(|r| r.state == JournalState::Stale)
    });
    env.nav(View::Pending);
    env.harness.get_by_label(order);
    env.harness.get_by_label("Too old");

    // Retry first says what could go wrong; nothing is sent.
    let retry = format!("Retry {order}");
    env.click(&retry);
    env.harness
        .get_by_label_contains("the server may have forgotten it");
    env.harness
        .get_by_label_contains("First check that this order has no link");
    env.settle("the click's work, if any, is done");
    assert_eq!(env.server_has(order).0, 0, "sent before the confirmation");

    // Don't send: still nothing sent, and the background re-send leaves stale rows alone.
    env.click("Don't send");
    assert!(
        env.harness
            .query_by_label_contains("the server may have forgotten it")
            .is_none()
    );
    env.settle("no re-send is under way or due");
    assert_eq!(env.server_has(order).0, 0, "sent without the confirmation");
    assert_eq!(env.app().views.pending.rows()[0].state, JournalState::Stale);

    // Confirmed: sent once, completed.
    env.click(&retry);
    env.click("I checked, send it again");
    env.until("the re-send completes", |app| {
        app.views.pending.count() == 0
    });
    assert_eq!(env.server_has(order).0, 1);
}
