//! The client against servers that answer the way a merchant's network can, not the way our
//! sandbox does (a scripted raw-HTTP server, `crate::support::scripted`):
//! - a redirect to another host is never followed, for every endpoint: the other host (a
//!   second loopback address) receives nothing, and the redirect is not taken as the answer;
//! - after an attempt whose answer was lost, an answer that proves nothing (auth errors, a
//!   proxy's 404 page, 405, 410, unknown keys, a redirect) keeps the order pending instead of
//!   failing it; only a named rejection of the request fails it;
//! - `Retry-After` on 429 and 503 is waited for, up to the policy's cap.

use std::time::Duration;

use crate::support::cli::Cli;
use crate::support::links::link_request;
use crate::support::scripted::{Answer, LINK_CREATE, Scripted};
use crate::support::services::library_services;
use paydesk::api::client::CallError;
use paydesk::api::retry::RetryPolicy;
use paydesk::domain::CardDraft;
use paydesk::domain::installment::InstallmentDraft;
use paydesk::service::{CreateError, Desk, DeskError, Services};
use paydesk::store::{JournalState, Store};
use zeroize::Zeroizing;

const CARD_SAVE: &str = "/partner/1.0/card/save";
const INSTALLMENTS: &str = "/partner/1.0/pos/installment/list";
const DETAIL: &str = "/partner/1.0/payment/link/detail";
const CANCEL: &str = "/partner/1.0/payment/link/cancel";
const PAN: &str = "4111111111111111";

fn services_for(server: &Scripted) -> Services {
    library_services(
        Store::open_in_memory().expect("an in-memory store"),
        &server.base_url(),
        Duration::from_secs(3),
    )
}

fn state_of(services: &Services, order: &str) -> JournalState {
    crate::support::services::create_row(services, order)
        .expect("the row exists")
        .state
}

fn card_request() -> paydesk::domain::card::CardRequest {
    CardDraft {
        card_number: Zeroizing::new(PAN.to_owned()),
        expiry_month: "11".into(),
        expiry_year: "2031".into(),
        cvv: Zeroizing::new("123".to_owned()),
        card_holder_name: "AYSE YILMAZ".into(),
        usage: String::new(),
        alias: String::new(),
        set_as_default: false,
        customer_id: String::new(),
    }
    .validate(chrono::Utc::now().date_naive())
    .expect("a valid card")
}

fn installment_query() -> paydesk::domain::installment::InstallmentQuery {
    let mut draft = InstallmentDraft::default();
    draft.set_bin_from_input("979200");
    draft.validate().expect("a valid query")
}

/// Two servers: the profile's, on 127.0.0.1, and "another host" on 127.0.0.2.
async fn two_hosts() -> (Scripted, Scripted) {
    (
        Scripted::start([127, 0, 0, 1]).await,
        Scripted::start([127, 0, 0, 2]).await,
    )
}

fn redirect_to(other: &Scripted, path: &str, status: u16) -> Answer {
    Answer::Redirect(status, format!("{}{path}", other.base_url()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_is_never_followed_and_never_taken_as_the_answer_for_any_endpoint() {
    let (server, other) = two_hosts().await;
    let services = services_for(&server);
    let desk = services.desk("test").expect("a desk");

    for (i, status) in [301_u16, 302, 303, 307, 308].into_iter().enumerate() {
        // Link create: the order stays pending (the server may have acted), nothing is in
        // history, and a quick retry is not tried (it would meet the same redirect).
        let order = format!("RED-{i}");
        server.script_order(&order, [redirect_to(&other, LINK_CREATE, status)]);
        let before = server.seen().len();
        let err = desk
            .create_link(&link_request(&order, "10"))
            .await
            .expect_err("a redirect is not a link");
        assert!(
            matches!(
                &err,
                CreateError::Unknown {
                    error: CallError::Redirected { .. },
                    ..
                }
            ),
            "{status}: {err:?}"
        );
        assert_eq!(state_of(&services, &order), JournalState::Pending);
        assert_eq!(server.seen().len(), before + 1, "{status}: sent once");
        assert!(!crate::support::services::history_orders(&desk).contains_key(&order));
        let sentence = err.sentence(paydesk::lang::Lang::En);
        assert!(
            sentence.contains("does not follow redirects") && sentence.contains("127.0.0.2"),
            "{sentence}"
        );
    }

    // Card save: never re-sent, reported as an unknown outcome, the card number went nowhere
    // but the profile's own server.
    server.script_path(CARD_SAVE, [redirect_to(&other, CARD_SAVE, 307)]);
    let err = desk
        .save_card(&card_request())
        .await
        .expect_err("a redirect is not a saved card");
    assert!(err.is_unknown_outcome(), "{err:?}");
    assert!(desk.saved_cards().expect("cards read").is_empty());

    // The reads: a plain error, not retried.
    server.script_path(INSTALLMENTS, [redirect_to(&other, INSTALLMENTS, 307)]);
    let err = desk
        .installments(&installment_query())
        .await
        .expect_err("redirected");
    assert!(
        matches!(err, DeskError::Call(CallError::Redirected { .. })),
        "{err:?}"
    );
    server.script_path(DETAIL, [redirect_to(&other, DETAIL, 302)]);
    let err = desk.link_detail("lnk_1").await.expect_err("redirected");
    assert!(
        matches!(err, DeskError::Call(CallError::Redirected { .. })),
        "{err:?}"
    );
    server.script_path(CANCEL, [redirect_to(&other, CANCEL, 308)]);
    let err = desk.cancel_link("lnk_1").await.expect_err("redirected");
    assert!(
        matches!(err, DeskError::Call(CallError::Redirected { .. })),
        "{err:?}"
    );

    let paths: Vec<String> = server.seen().iter().map(|s| s.path.clone()).collect();
    for path in [CARD_SAVE, INSTALLMENTS, DETAIL, CANCEL] {
        assert_eq!(
            paths.iter().filter(|p| *p == path).count(),
            1,
            "{path} sent once, never retried after a redirect"
        );
    }
    assert!(
        other.seen().is_empty(),
        "the other host received {:?}",
        other.seen()
    );
}

#[test]
fn the_cli_follows_no_redirect_for_link_create_or_card_save() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (server, other) = runtime.block_on(two_hosts());
    let cli = shop_cli(&server);
    let env = [("PAYDESK_API_SECRET", "sk_shop")];

    server.script_order("CLI-RED-1", [redirect_to(&other, LINK_CREATE, 307)]);
    let create = cli.run_with(
        &Cli::link_create_args("shop", &["--amount", "25", "--order-number", "CLI-RED-1"]),
        None,
        &env,
    );
    assert_eq!(create.code, 5, "unknown outcome, kept pending: {create:?}");
    let pending = cli.run_with(
        &["--profile", "shop", "pending", "list", "--json"],
        None,
        &env,
    );
    assert_eq!(
        pending.json()[0]["order_number"],
        "CLI-RED-1",
        "{pending:?}"
    );
    let history = cli.run_with(&["--profile", "shop", "link", "list", "--json"], None, &env);
    assert_eq!(history.json(), serde_json::json!([]), "no link recorded");

    server.script_path(CARD_SAVE, [redirect_to(&other, CARD_SAVE, 307)]);
    let card = cli.run_with(
        &[
            "--profile",
            "shop",
            "card",
            "save",
            "--expiry-month",
            "11",
            "--expiry-year",
            "2031",
        ],
        Some(&format!("{PAN}\n123\n")),
        &env,
    );
    assert_eq!(card.code, 5, "{card:?}");
    assert!(card.stderr.contains("redirect"), "{card:?}");
    assert!(!card.all().contains(PAN));

    assert!(other.seen().is_empty(), "the other host received a request");
    let card_sent = server
        .seen()
        .into_iter()
        .filter(|s| s.path == CARD_SAVE)
        .count();
    assert_eq!(card_sent, 1, "card save is never re-sent");
}

/// A CLI whose profile `shop` points at `server` (its secret: `sk_shop`, given per run).
fn shop_cli(server: &Scripted) -> Cli {
    let cli = Cli::new();
    let add = cli.run(&[
        "profile",
        "add",
        "shop",
        "--base-url",
        &server.base_url(),
        "--api-key",
        "pk_shop",
    ]);
    assert_eq!(add.code, 0, "{add:?}");
    cli
}

/// An order whose first answer is lost after the server committed the link, then `second`.
async fn lost_then(server: &Scripted, desk: &Desk, order: &str, second: Answer) -> CreateError {
    server.script_order(order, [Answer::LostAfterCommit, second]);
    desk.create_link(&link_request(order, "42"))
        .await
        .expect_err("no link read")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_lost_answer_an_answer_that_proves_nothing_keeps_the_order_pending() {
    let (server, other) = two_hosts().await;
    let services = services_for(&server);
    let desk = services.desk("test").expect("a desk");
    let proves_nothing = [
        Answer::error(401, Some("auth.timestamp.skew")),
        Answer::error(401, Some("auth.signature.invalid")),
        Answer::error(403, Some("auth.scope.missing")),
        Answer::Html(404),
        Answer::error(404, None),
        Answer::error(405, None),
        Answer::error(410, None),
        Answer::error(400, Some("idempotency.key.missing")),
        Answer::error(422, Some("coupon.expired")),
        Answer::error(400, None),
        redirect_to(&other, LINK_CREATE, 307),
    ];
    for (i, second) in proves_nothing.into_iter().enumerate() {
        let order = format!("HOLD-{i}");
        let err = lost_then(&server, &desk, &order, second.clone()).await;
        assert!(
            matches!(err, CreateError::Unknown { .. }),
            "{second:?}: {err:?}"
        );
        assert_eq!(
            state_of(&services, &order),
            JournalState::Pending,
            "{second:?}: the server holds the link, the order must stay pending"
        );
        assert_eq!(server.links_of(&order).len(), 1);
        // The network heals: the retry gets the very link the server made, once.
        let link = desk
            .retry_pending(&format!("link-{order}"), false)
            .await
            .expect("the healed retry gets the link");
        assert_eq!(server.links_of(&order).len(), 1, "{second:?}: one link");
        assert_eq!(link.id, server.links_of(&order)[0]["id"], "{second:?}");
        assert_eq!(state_of(&services, &order), JournalState::Completed);
        assert_eq!(
            crate::support::services::history_orders(&desk)[&order].len(),
            1
        );
    }
    assert!(other.seen().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_rejection_fails_the_order_even_after_a_lost_answer_and_before_one_anything_does() {
    let server = Scripted::start([127, 0, 0, 1]).await;
    let services = services_for(&server);
    let desk = services.desk("test").expect("a desk");

    // Lost before the server did anything, then the server rejects the request itself: it
    // holds no link, so the order is failed and the form may be fixed and sent again.
    server.script_order(
        "REJ-1",
        [
            Answer::LostBeforeCommit,
            Answer::Business(406, "items.total.mismatch"),
        ],
    );
    let err = desk
        .create_link(&link_request("REJ-1", "42"))
        .await
        .expect_err("rejected");
    assert!(matches!(err, CreateError::Rejected(_)), "{err:?}");
    assert_eq!(state_of(&services, "REJ-1"), JournalState::Failed);
    assert!(server.links_of("REJ-1").is_empty());

    // Before any unknown outcome, a refusal is final as it always was.
    for (i, first) in [
        Answer::error(401, Some("auth.signature.invalid")),
        Answer::Html(404),
    ]
    .into_iter()
    .enumerate()
    {
        let order = format!("REJ-CLEAN-{i}");
        server.script_order(&order, [first.clone()]);
        let err = desk
            .create_link(&link_request(&order, "42"))
            .await
            .expect_err("rejected");
        assert!(
            matches!(err, CreateError::Rejected(_)),
            "{first:?}: {err:?}"
        );
        assert_eq!(state_of(&services, &order), JournalState::Failed);
    }
}

#[test]
fn the_cli_exits_5_and_keeps_the_order_when_a_lost_answer_is_followed_by_a_401() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let server = runtime.block_on(Scripted::start([127, 0, 0, 1]));
    let cli = shop_cli(&server);
    let env = [("PAYDESK_API_SECRET", "sk_shop")];
    server.script_order(
        "CLI-401",
        [
            Answer::LostAfterCommit,
            Answer::error(401, Some("auth.timestamp.skew")),
        ],
    );
    let create = cli.run_with(
        &Cli::link_create_args("shop", &["--amount", "25", "--order-number", "CLI-401"]),
        None,
        &env,
    );
    assert_eq!(create.code, 5, "{create:?}");
    assert!(
        create
            .stderr
            .contains("does not show whether the link was made"),
        "{create:?}"
    );
    let retry = cli.run_with(
        &["--profile", "shop", "pending", "retry", "--all"],
        None,
        &env,
    );
    assert_eq!(retry.code, 0, "{retry:?}");
    let history = cli.run_with(&["--profile", "shop", "link", "list", "--json"], None, &env);
    assert_eq!(history.json()[0]["orderNumber"], "CLI-401");
    assert_eq!(server.links_of("CLI-401").len(), 1);
}

/// The gap between the first two requests to `path`.
fn gap(server: &Scripted, path: &str) -> Duration {
    let times: Vec<_> = server
        .seen()
        .into_iter()
        .filter(|s| s.path == path)
        .map(|s| s.at)
        .collect();
    assert!(times.len() >= 2, "{path}: {} requests", times.len());
    times[1] - times[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_is_waited_for_up_to_the_policys_cap() {
    // A policy whose own backoff is about a millisecond, capped at 400 ms.
    let policy = RetryPolicy {
        base: Duration::from_millis(1),
        cap: Duration::from_millis(400),
        max_attempts: 4,
    };
    for (status, order) in [(429_u16, "WAIT-429"), (503, "WAIT-503")] {
        let server = Scripted::start([127, 0, 0, 1]).await;
        let services = services_for(&server).with_retry_policy(policy);
        let desk = services.desk("test").expect("a desk");
        server.script_order(
            order,
            [Answer::Error {
                status,
                key: None,
                retry_after: Some("30".into()),
            }],
        );
        desk.create_link(&link_request(order, "5"))
            .await
            .expect("the second attempt gets the link");
        let waited = gap(&server, LINK_CREATE);
        assert!(
            waited >= Duration::from_millis(380),
            "{status}: asked for 30 s, waited {waited:?} (capped at 400 ms)"
        );
        assert!(
            waited < Duration::from_secs(10),
            "{status}: capped: {waited:?}"
        );
    }

    // A read waits too (the read policy's cap is 1 s).
    let server = Scripted::start([127, 0, 0, 1]).await;
    let desk = services_for(&server).desk("test").expect("a desk");
    server.script_path(
        INSTALLMENTS,
        [Answer::Error {
            status: 429,
            key: None,
            retry_after: Some("1".into()),
        }],
    );
    desk.installments(&installment_query())
        .await
        .expect("the second attempt answers");
    let waited = gap(&server, INSTALLMENTS);
    assert!(
        waited >= Duration::from_millis(950),
        "read waited {waited:?}"
    );
}
