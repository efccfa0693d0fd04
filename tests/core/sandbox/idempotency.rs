//! The spec's idempotency table over real HTTP, including the concurrent case, and fault
//! injection (delay, 500, 429, lost response, stalled answer), set at start and through the
//! admin route.

use std::time::Duration as StdDuration;

use crate::support::sandbox::{Client, admin_get, admin_post, config, manual_clock, start};
use chrono::Duration;
use paydesk::api::endpoints::{INSTALLMENT_LIST, LINK_CREATE};
use paydesk::api::keys;
use paydesk::sandbox::{DEMO_BUSINESS, FaultRule, Sandbox};
use serde_json::json;

const CREATE: &str = LINK_CREATE.path;
const BODY: &str = r#"{"amount":"140.00","orderNumber":"KK-1"}"#;
const OTHER: &str = r#"{"amount":"150.00","orderNumber":"KK-1"}"#;

#[tokio::test]
async fn missing_key_is_400_and_nothing_is_created() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    for key in [None, Some("")] {
        let a = c.post(CREATE, BODY, key).await;
        assert_eq!(
            a.status_key(),
            (400, keys::IDEMPOTENCY_KEY_MISSING.to_owned())
        );
    }
    assert_eq!(sb.admin().links(None).len(), 0);
    // Endpoints outside the list do not need it.
    assert_eq!(
        c.post(INSTALLMENT_LIST.path, r#"{"binNumber":"554960"}"#, None)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn a_completed_key_returns_the_first_result_and_does_not_run_again() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let first = c.post(CREATE, BODY, Some("link-KK-1")).await;
    assert_eq!(first.status, 200);
    clock.advance(Duration::minutes(10));
    // Same body, keys in another order and other blanks: the same JSON value.
    let again = c
        .post(
            CREATE,
            r#"{ "orderNumber": "KK-1", "amount": "140.00" }"#,
            Some("link-KK-1"),
        )
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.text, first.text, "byte-identical first answer");
    assert_eq!(sb.admin().links(Some(DEMO_BUSINESS)).len(), 1);

    let reused = c.post(CREATE, OTHER, Some("link-KK-1")).await;
    assert_eq!(
        reused.status_key(),
        (406, keys::IDEMPOTENCY_KEY_REUSED.to_owned())
    );
    assert_eq!(sb.admin().links(None).len(), 1);
}

#[tokio::test]
async fn a_running_first_request_makes_the_repeat_406_in_progress() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    sb.admin()
        .add_fault("link.create:delay=800@next=1".parse().unwrap())
        .unwrap();
    let c = Client::demo(&sb, clock.clone());
    let c2 = c.clone();
    let first = tokio::spawn(async move { c2.post(CREATE, BODY, Some("link-KK-1")).await });
    // Wait until the server holds the in-progress marker.
    let mut waited = 0;
    while sb.admin().state()["idempotency"]["inProgress"]
        .as_array()
        .unwrap()
        .is_empty()
    {
        tokio::time::sleep(StdDuration::from_millis(10)).await;
        waited += 1;
        assert!(waited < 200, "first request never arrived");
    }
    let repeat = c.post(CREATE, BODY, Some("link-KK-1")).await;
    assert_eq!(
        repeat.status_key(),
        (406, keys::IDEMPOTENCY_IN_PROGRESS.to_owned())
    );
    let different = c.post(CREATE, OTHER, Some("link-KK-1")).await;
    assert_eq!(
        different.status_key(),
        (406, keys::IDEMPOTENCY_KEY_REUSED.to_owned())
    );
    let first = first.await.unwrap();
    assert_eq!(first.status, 200);
    let after = c.post(CREATE, BODY, Some("link-KK-1")).await;
    assert_eq!(after.text, first.text);
    assert_eq!(sb.admin().links(None).len(), 1);
}

#[tokio::test]
async fn a_failed_first_request_frees_the_key() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let items = r#"[{"name":"Kahve","unitPrice":"70.00","quantity":2}]"#;
    let bad = c
        .post(
            CREATE,
            &format!(r#"{{"amount":150,"items":{items}}}"#),
            Some("link-KK-2"),
        )
        .await;
    assert_eq!(
        bad.status_key(),
        (406, keys::ITEMS_TOTAL_MISMATCH.to_owned())
    );
    let fixed = c
        .post(
            CREATE,
            &format!(r#"{{"amount":140,"items":{items}}}"#),
            Some("link-KK-2"),
        )
        .await;
    assert_eq!(fixed.status, 200, "{}", fixed.text);
    // A 500 before anything is done frees it too.
    sb.admin()
        .add_fault("link.create:error500@next=1".parse().unwrap())
        .unwrap();
    let boom = c.post(CREATE, BODY, Some("link-KK-3")).await;
    assert_eq!(
        boom.status_key(),
        (500, "sandbox.fault.injected".to_owned())
    );
    assert_eq!(c.post(CREATE, BODY, Some("link-KK-3")).await.status, 200);
    assert_eq!(sb.admin().links(None).len(), 2);
}

#[tokio::test]
async fn keys_are_per_business_and_forgotten_after_24_hours() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let butik = Client::new(
        &sb,
        clock.clone(),
        "pk_test_butik_demo",
        "sk_test_butik_demo_secret",
    );
    let mine = c.post(CREATE, BODY, Some("shared-key")).await;
    let theirs = butik.post(CREATE, OTHER, Some("shared-key")).await;
    assert_eq!(theirs.status, 200, "{}", theirs.text);
    assert_ne!(mine.content()["id"], theirs.content()["id"]);

    clock.advance(Duration::hours(24) - Duration::seconds(1));
    assert_eq!(
        c.post(CREATE, OTHER, Some("shared-key")).await.key(),
        keys::IDEMPOTENCY_KEY_REUSED
    );
    clock.advance(Duration::seconds(2));
    let fresh = c.post(CREATE, OTHER, Some("shared-key")).await;
    assert_eq!(fresh.status, 200, "{}", fresh.text);
    assert_eq!(sb.admin().links(Some(DEMO_BUSINESS)).len(), 2);
}

#[tokio::test]
async fn a_lost_response_commits_the_work_and_the_retry_gets_it() {
    let clock = manual_clock();
    let mut cfg = config(clock.clone());
    cfg.faults = vec!["link.create:lost@next=1".parse().unwrap()];
    let sb = Sandbox::start_with(cfg).await.unwrap();
    let c = Client::demo(&sb, clock.clone());
    let lost = c.request(CREATE, BODY, Some("link-KK-9")).send().await;
    let err = lost.expect_err("the client must see a connection error, not an answer");
    assert!(err.is_request() || err.is_connect(), "{err:?}");
    let held = sb.admin().links(None);
    assert_eq!(held.len(), 1, "the work was committed");
    let retry = c.post(CREATE, BODY, Some("link-KK-9")).await;
    assert_eq!(retry.status, 200);
    assert_eq!(retry.content()["id"], json!(held[0].id));
    assert_eq!(sb.admin().links(None).len(), 1);
}

#[tokio::test]
async fn a_stalled_answer_commits_first_and_a_retry_meanwhile_gets_the_same_link() {
    let clock = manual_clock();
    let mut cfg = config(clock.clone());
    cfg.faults = vec!["link.create:stall=60000@next=1".parse().unwrap()];
    let sb = Sandbox::start_with(cfg).await.unwrap();
    let c = Client::demo(&sb, clock.clone());
    let first = tokio::spawn({
        let c = c.clone();
        async move { c.post(CREATE, BODY, Some("link-KK-7")).await }
    });
    // Wait for the event: the server holds the link while the first answer is held back.
    while sb.admin().links(None).is_empty() {
        assert!(
            !first.is_finished(),
            "the first request ended before its work"
        );
        tokio::time::sleep(StdDuration::from_millis(2)).await;
    }
    let held = sb.admin().links(None);
    let retry = c.post(CREATE, BODY, Some("link-KK-7")).await;
    assert_eq!(retry.status, 200, "{}", retry.text);
    assert_eq!(retry.content()["id"], json!(held[0].id));
    assert!(
        !first.is_finished(),
        "the first answer is still held for 60 s"
    );
    assert_eq!(sb.admin().links(None).len(), 1);
    first.abort();
}

#[tokio::test]
async fn faults_through_the_admin_route_429_then_cleared() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let set = admin_post(
        &sb,
        "/sandbox/faults",
        r#"[{"endpoint":"*","kind":"rate_limit","next":2},{"endpoint":"card.save","kind":"error500","probability":1.0}]"#,
    )
    .await;
    assert_eq!(set.status, 200, "{}", set.text);
    let bad = admin_post(
        &sb,
        "/sandbox/faults",
        r#"{"endpoint":"nowhere","kind":"lost"}"#,
    )
    .await;
    assert_eq!(bad.status_key(), (400, "fault.invalid".to_owned()));
    let listed = admin_get(&sb, "/sandbox/faults").await;
    assert_eq!(listed.content().as_array().unwrap().len(), 2);

    let r = c.request(CREATE, BODY, Some("k")).send().await.unwrap();
    assert_eq!(r.status(), 429);
    assert_eq!(r.headers()["retry-after"], "1");
    let a = crate::support::sandbox::answer(r).await;
    assert_eq!(a.key(), "rate.limited");
    assert_eq!(
        c.post(INSTALLMENT_LIST.path, r#"{"binNumber":"554960"}"#, None)
            .await
            .status,
        429
    );
    assert_eq!(c.post(CREATE, BODY, Some("k")).await.status, 200);

    let cleared = paydesk::api::client::http_client_builder()
        .build()
        .expect("an HTTP client")
        .delete(format!("{}/sandbox/faults", sb.base_url()))
        .header("Content-Type", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), 200);
    assert!(sb.admin().state()["faults"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn probabilistic_faults_and_ids_repeat_with_the_same_seed() {
    async fn run() -> (Vec<u16>, Vec<String>) {
        let clock = manual_clock();
        let mut cfg = config(clock.clone());
        cfg.faults = vec!["link.create:error500@p=0.5".parse::<FaultRule>().unwrap()];
        let sb = Sandbox::start_with(cfg).await.unwrap();
        let c = Client::demo(&sb, clock.clone());
        let mut statuses = Vec::new();
        for i in 0..16 {
            statuses.push(c.post(CREATE, BODY, Some(&format!("k-{i}"))).await.status);
        }
        let ids = sb.admin().links(None).into_iter().map(|l| l.id).collect();
        (statuses, ids)
    }
    let (a, ids_a) = run().await;
    let (b, ids_b) = run().await;
    assert_eq!(a, b);
    assert_eq!(ids_a, ids_b);
    assert!(a.contains(&500) && a.contains(&200), "{a:?}");
}
