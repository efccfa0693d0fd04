//! The outcome table of exactly-once link creation (`service::create`, docs/design.md §2), against
//! a scripted fake server (a tiny axum app answering what each test chooses, counting and
//! recording every request): 2xx → completed; a known 400 → failed and the key free again;
//! 406 `idempotency.key.reused` → conflict; 406 without a key, 5xx, 429, a timeout → retried,
//! then pending; a second submit while pending sends nothing; an order already in history is
//! refused; pending rows resume on start; rows older than 24 hours become stale.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::links::link_request;
use crate::support::policy::FAST_POLICY;
use crate::support::time::t0;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use paydesk::api::signer::{HEADER_IDEMPOTENCY_KEY, HEADER_SIGNATURE, HEADER_TIMESTAMP};
use paydesk::clock::ManualClock;
use paydesk::secrets::MemoryStore;
use paydesk::service::{CreateError, Desk, Services};
use paydesk::store::{JournalKey, JournalRow, JournalState, Profile, Store};
use serde_json::{Value, json};
use zeroize::Zeroizing;

/// One scripted answer.
#[derive(Debug, Clone)]
enum Reply {
    /// 200 with a link for the request's order number.
    Link,
    /// This status with an error envelope carrying `key` (if any).
    Error(u16, Option<&'static str>),
    /// Waits this long (past the client's timeout), then answers with a link.
    Hang(Duration),
}

/// What the fake server saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    key: Option<String>,
    timestamp: String,
    signature: String,
    body: Vec<u8>,
}

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
    /// The client's manual clock, moved on 5 ms by every request so that time passes between
    /// attempts as it does with a real clock.
    clock: Mutex<Option<Arc<ManualClock>>>,
}

impl Script {
    fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        self.replies.lock().expect("script lock").extend(replies);
    }
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("script lock").clone()
    }
    fn count(&self) -> usize {
        self.seen.lock().expect("script lock").len()
    }
}

async fn link_create(
    State(script): State<Arc<Script>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    script.seen.lock().expect("script lock").push(Seen {
        key: header(HEADER_IDEMPOTENCY_KEY),
        timestamp: header(HEADER_TIMESTAMP).unwrap_or_default(),
        signature: header(HEADER_SIGNATURE).unwrap_or_default(),
        body: body.to_vec(),
    });
    if let Some(clock) = script.clock.lock().expect("script lock").as_ref() {
        clock.advance(chrono::Duration::milliseconds(5));
    }
    let reply = script
        .replies
        .lock()
        .expect("script lock")
        .pop_front()
        .unwrap_or(Reply::Error(500, Some("script.exhausted")));
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let link = || {
        let order = request["orderNumber"].as_str().unwrap_or_default();
        let id = format!("lnk_{order}");
        json!({"success": true, "content": {
            "id": id,
            "orderNumber": order,
            "referenceNumber": "REF1",
            "paymentUrl": format!("https://pay.example/{id}"),
            "amount": request["amount"],
            "paidAmount": 0,
            "remainingAmount": request["amount"],
            "currency": "TRY",
            "status": "PENDING",
            "transactionRef": null,
        }})
        .to_string()
    };
    match reply {
        Reply::Link => (StatusCode::OK, link()).into_response(),
        Reply::Hang(wait) => {
            tokio::time::sleep(wait).await;
            (StatusCode::OK, link()).into_response()
        }
        Reply::Error(status, key) => {
            let body = json!({"success": false, "messageKey": key, "message": "scripted", "httpStatus": status});
            (
                StatusCode::from_u16(status).expect("a valid status"),
                body.to_string(),
            )
                .into_response()
        }
    }
}

struct Fake {
    script: Arc<Script>,
    base_url: String,
}

async fn fake_server() -> Fake {
    let script = Arc::new(Script::default());
    let app = Router::new()
        .route("/partner/1.0/payment/link/create", post(link_create))
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("a bound address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Fake {
        script,
        base_url: format!("http://{addr}"),
    }
}

/// Services over `store` for the fake server, with a manual clock, the fast retry policy and
/// a 300 ms timeout.
fn services(store: Store, fake: &Fake, clock: Arc<ManualClock>) -> Services {
    let mut store = store;
    if store
        .profiles()
        .get("fake")
        .expect("profiles read")
        .is_none()
    {
        store
            .profile_add(
                &Profile::new("fake", fake.base_url.clone(), "pk_fake"),
                t0(),
            )
            .expect("the profile is stored");
    }
    Services::with_store(
        store,
        None,
        Arc::new(MemoryStore::new()),
        clock,
        Some(Zeroizing::new("sk_fake".to_owned())),
    )
    .with_retry_policy(FAST_POLICY)
    .with_timeouts(Duration::from_secs(1), Duration::from_millis(300))
}

fn setup(fake: &Fake) -> (Services, Desk, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(t0()));
    *fake.script.clock.lock().expect("script lock") = Some(clock.clone());
    let services = services(
        Store::open_in_memory().expect("a store"),
        fake,
        clock.clone(),
    );
    let desk = services.desk("fake").expect("a desk");
    (services, desk, clock)
}

fn row(services: &Services, key: &str) -> JournalRow {
    services
        .inspect(|s| {
            s.journal()
                .get(&JournalKey::new("fake", "link.create", key))
        })
        .expect("the journal reads")
        .expect("the row exists")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2xx_completes_the_row_and_stores_the_link_in_history() {
    let fake = fake_server().await;
    let (services, desk, _) = setup(&fake);
    fake.script.push([Reply::Link]);
    let request = link_request("ORD-1", "150.50");
    let link = desk.create_link(&request).await.expect("created");
    assert_eq!(link.id, "lnk_ORD-1");
    let seen = fake.script.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].key.as_deref(), Some("link-ORD-1"));
    assert_eq!(
        seen[0].body,
        request.body_bytes(),
        "the exact bytes built once"
    );
    let r = row(&services, "link-ORD-1");
    assert_eq!(r.state, JournalState::Completed);
    assert_eq!(r.link_id.as_deref(), Some("lnk_ORD-1"));
    assert_eq!(
        desk.history_link("lnk_ORD-1")
            .expect("in history")
            .order_number
            .as_deref(),
        Some("ORD-1")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_known_rejection_fails_the_row_and_frees_the_key_for_a_fixed_resubmit() {
    let fake = fake_server().await;
    let (services, desk, _) = setup(&fake);
    fake.script
        .push([Reply::Error(400, Some("items.invalid")), Reply::Link]);
    let err = desk
        .create_link(&link_request("ORD-2", "10"))
        .await
        .expect_err("rejected");
    match &err {
        CreateError::Rejected(api) => {
            assert_eq!(
                (api.status, api.key.as_deref()),
                (400, Some("items.invalid"))
            );
        }
        other => panic!("expected Rejected, got {other:?}"),
    }
    assert_eq!(fake.script.count(), 1, "a rejection is not retried");
    assert_eq!(row(&services, "link-ORD-2").state, JournalState::Failed);
    // The corrected request goes out with the same key and its own new bytes.
    let fixed = link_request("ORD-2", "12");
    desk.create_link(&fixed)
        .await
        .expect("the fixed request is created");
    let seen = fake.script.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].key.as_deref(), Some("link-ORD-2"));
    assert_eq!(seen[1].body, fixed.body_bytes());
    assert_eq!(row(&services, "link-ORD-2").state, JournalState::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn key_reused_is_a_conflict_and_is_not_sent_again() {
    let fake = fake_server().await;
    let (services, desk, _) = setup(&fake);
    fake.script
        .push([Reply::Error(406, Some("idempotency.key.reused"))]);
    let err = desk
        .create_link(&link_request("ORD-3", "10"))
        .await
        .expect_err("conflict");
    assert!(
        matches!(&err, CreateError::Conflict { key, existing: None } if key == "link-ORD-3"),
        "{err:?}"
    );
    assert_eq!(row(&services, "link-ORD-3").state, JournalState::Conflict);
    let again = desk
        .create_link(&link_request("ORD-3", "10"))
        .await
        .expect_err("still a conflict");
    assert!(matches!(again, CreateError::Conflict { .. }), "{again:?}");
    assert_eq!(fake.script.count(), 1, "nothing sent for a known conflict");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_outcomes_are_retried_with_the_same_bytes_and_fresh_signatures_then_left_pending() {
    let fake = fake_server().await;
    let table: [(&str, Reply); 5] = [
        ("406 without a key", Reply::Error(406, None)),
        (
            "406 in progress",
            Reply::Error(406, Some("idempotency.request.in.progress")),
        ),
        ("500", Reply::Error(500, Some("sandbox.fault.injected"))),
        ("429", Reply::Error(429, Some("rate.limited"))),
        ("timeout", Reply::Hang(Duration::from_millis(600))),
    ];
    for (i, (label, reply)) in table.into_iter().enumerate() {
        let (services, desk, _clock) = setup(&fake);
        let order = format!("UNK-{i}");
        let key = format!("link-{order}");
        let before = fake.script.count();
        let attempts = usize::try_from(FAST_POLICY.max_attempts).expect("small");
        fake.script.push(std::iter::repeat_n(reply, attempts));
        let request = link_request(&order, "20");
        let err = desk.create_link(&request).await.expect_err(label);
        assert!(
            matches!(&err, CreateError::Unknown { key: k, .. } if *k == key),
            "{label}: {err:?}"
        );
        let seen: Vec<Seen> = fake.script.seen()[before..].to_vec();
        assert_eq!(seen.len(), attempts, "{label}: every attempt was made");
        assert!(
            seen.iter().all(|s| s.body == request.body_bytes()),
            "{label}: same bytes"
        );
        assert!(
            seen.iter().all(|s| s.key.as_deref() == Some(key.as_str())),
            "{label}: same key"
        );
        let mut signatures: Vec<&str> = seen.iter().map(|s| s.signature.as_str()).collect();
        signatures.sort_unstable();
        signatures.dedup();
        assert_eq!(
            signatures.len(),
            attempts,
            "{label}: a fresh signature per attempt"
        );
        let stamps: Vec<i64> = seen
            .iter()
            .map(|s| {
                s.timestamp
                    .parse()
                    .expect("X-Timestamp is Unix milliseconds")
            })
            .collect();
        assert!(
            stamps.windows(2).all(|w| w[0] < w[1]),
            "{label}: a fresh X-Timestamp per attempt: {stamps:?}"
        );
        assert_eq!(
            stamps[0],
            t0().timestamp_millis(),
            "{label}: signed with the injected clock"
        );
        let r = row(&services, &key);
        assert_eq!(
            (r.state, r.attempts),
            (JournalState::Pending, FAST_POLICY.max_attempts),
            "{label}"
        );

        // A second submit while pending sends nothing.
        let count = fake.script.count();
        let second = desk.create_link(&request).await.expect_err("in progress");
        assert!(
            matches!(second, CreateError::InProgress { .. }),
            "{label}: {second:?}"
        );
        assert_eq!(fake.script.count(), count, "{label}: no second request");

        // The user's Retry sends the same bytes with the same key, and completes it.
        tokio::time::sleep(Duration::from_millis(700)).await;
        fake.script.push([Reply::Link]);
        let link = desk
            .retry_pending(&key, false)
            .await
            .expect("the retry completes");
        assert_eq!(link.order_number.as_deref(), Some(order.as_str()));
        let last = fake.script.seen().pop().expect("a request");
        assert_eq!(last.body, request.body_bytes());
        assert_eq!(row(&services, &key).state, JournalState::Completed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_submits_of_one_order_send_one_request() {
    let fake = fake_server().await;
    let (_services, desk, _) = setup(&fake);
    fake.script.push([Reply::Hang(Duration::from_millis(100))]);
    let request = link_request("TWIN-1", "5");
    let (a, b) = tokio::join!(desk.create_link(&request), desk.create_link(&request));
    let created = [&a, &b].iter().filter(|r| r.is_ok()).count();
    assert_eq!(created, 1, "{a:?} {b:?}");
    assert!(
        [&a, &b]
            .iter()
            .any(|r| matches!(r, Err(CreateError::InProgress { .. }))),
        "{a:?} {b:?}"
    );
    assert_eq!(fake.script.count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_already_in_history_is_refused_without_a_request() {
    let fake = fake_server().await;
    let (_services, desk, clock) = setup(&fake);
    fake.script.push([Reply::Link]);
    let first = desk
        .create_link(&link_request("HIST-1", "5"))
        .await
        .expect("created");
    // Another request for the same order, even with another amount: refused, showing the link.
    clock.advance(chrono::Duration::hours(23));
    let err = desk
        .create_link(&link_request("HIST-1", "6"))
        .await
        .expect_err("refused");
    match &err {
        CreateError::AlreadyHasLink(existing) => assert_eq!(existing.id, first.id),
        other => panic!("expected AlreadyHasLink, got {other:?}"),
    }
    assert!(
        err.sentence(paydesk::lang::Lang::En)
            .contains("https://pay.example/lnk_HIST-1")
    );
    assert_eq!(fake.script.count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_rows_resume_on_the_next_start_over_the_same_database() {
    let fake = fake_server().await;
    let dir = tempfile::tempdir().expect("a temp dir");
    let clock = Arc::new(ManualClock::new(t0()));
    {
        let services = services(
            Store::open(dir.path()).expect("a store"),
            &fake,
            clock.clone(),
        );
        let desk = services.desk("fake").expect("a desk");
        fake.script
            .push(std::iter::repeat_n(Reply::Error(503, None), 8));
        let err = desk
            .create_link(&link_request("RES-1", "30"))
            .await
            .expect_err("unknown");
        assert!(matches!(err, CreateError::Unknown { .. }), "{err:?}");
    }
    // "Restart": a new store over the same file, an hour later.
    clock.advance(chrono::Duration::hours(1));
    let store = Store::open(dir.path()).expect("the store reopens");
    let services = services(store, &fake, clock.clone());
    let desk = services.desk("fake").expect("a desk");
    fake.script.push([Reply::Link]);
    let resumed = desk.resume_pending().await.expect("resume runs");
    assert_eq!(resumed.len(), 1);
    assert_eq!(resumed[0].0, "link-RES-1");
    assert_eq!(resumed[0].1.as_ref().expect("completed").id, "lnk_RES-1");
    assert_eq!(row(&services, "link-RES-1").state, JournalState::Completed);
    assert_eq!(fake.script.count(), 9);
    assert!(
        desk.resume_pending().await.expect("resume runs").is_empty(),
        "nothing left"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_23_hours_old_become_stale_and_are_sent_only_when_forced() {
    let fake = fake_server().await;
    let (services, desk, clock) = setup(&fake);
    fake.script
        .push(std::iter::repeat_n(Reply::Error(500, None), 8));
    let err = desk
        .create_link(&link_request("OLD-1", "40"))
        .await
        .expect_err("unknown");
    assert!(matches!(err, CreateError::Unknown { .. }), "{err:?}");

    clock.advance(chrono::Duration::hours(22) + chrono::Duration::minutes(59));
    fake.script.push([Reply::Error(500, None)]);
    let young = desk.resume_pending().await.expect("resume runs");
    assert_eq!(young.len(), 1, "22 h 59 min old: still resumed");
    let sent = fake.script.count();
    // An hour before the server's 24 h: a server clock ahead of ours may forget the key now.
    clock.set(t0() + chrono::Duration::hours(23) + chrono::Duration::seconds(1));
    let resumed = desk.resume_pending().await.expect("resume runs");
    assert!(
        resumed.is_empty(),
        "a stale row is not re-sent: {resumed:?}"
    );
    assert_eq!(row(&services, "link-OLD-1").state, JournalState::Stale);
    let refused = desk
        .retry_pending("link-OLD-1", false)
        .await
        .expect_err("stale");
    assert!(matches!(refused, CreateError::Stale { .. }), "{refused:?}");
    assert!(
        refused
            .sentence(paydesk::lang::Lang::En)
            .contains("23 hours")
    );
    // An ordinary create of the same order sends nothing either, and says why.
    let again = desk
        .create_link(&link_request("OLD-1", "40"))
        .await
        .expect_err("stale");
    assert!(matches!(again, CreateError::Stale { .. }), "{again:?}");
    assert!(
        again
            .sentence(paydesk::lang::Lang::En)
            .contains("nothing was sent")
    );
    assert_eq!(fake.script.count(), sent, "nothing sent for a stale row");
    assert_eq!(
        desk.pending().expect("the journal reads")[0].state,
        JournalState::Stale
    );

    // The user checked the server and forces it: the same bytes go out again.
    fake.script.push([Reply::Link]);
    let link = desk
        .retry_pending("link-OLD-1", true)
        .await
        .expect("forced retry");
    assert_eq!(link.id, "lnk_OLD-1");
    let last = fake.script.seen().pop().expect("a request");
    assert_eq!(last.body, link_request("OLD-1", "40").body_bytes());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_retrying_one_row_both_get_the_link_and_history_keeps_one() {
    // The app and the CLI share the journal: two `Services` over one database file.
    let fake = fake_server().await;
    let dir = tempfile::tempdir().expect("a temp dir");
    let clock = Arc::new(ManualClock::new(t0()));
    let first = services(
        Store::open(dir.path()).expect("a store"),
        &fake,
        clock.clone(),
    );
    let second = services(
        Store::open(dir.path()).expect("a store"),
        &fake,
        clock.clone(),
    );
    let (a, b) = (
        first.desk("fake").expect("a desk"),
        second.desk("fake").expect("a desk"),
    );
    fake.script
        .push(std::iter::repeat_n(Reply::Error(500, None), 8));
    let err = a
        .create_link(&link_request("DUO-1", "8"))
        .await
        .expect_err("unknown");
    assert!(matches!(err, CreateError::Unknown { .. }), "{err:?}");
    // The first retry's answer comes late; the second's at once (the server replays the
    // stored result of the same key).
    fake.script
        .push([Reply::Hang(Duration::from_millis(150)), Reply::Link]);
    let slow = a.retry_pending("link-DUO-1", false);
    let fast = async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        b.retry_pending("link-DUO-1", false).await
    };
    let (slow, fast) = tokio::join!(slow, fast);
    let (slow, fast) = (
        slow.expect("the slow retry gets the link"),
        fast.expect("the fast one too"),
    );
    assert_eq!(slow.id, fast.id);
    assert_eq!(row(&first, "link-DUO-1").state, JournalState::Completed);
    let history = crate::support::services::history_orders(&a);
    assert_eq!(history["DUO-1"].len(), 1);
}
