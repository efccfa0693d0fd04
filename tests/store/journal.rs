//! The pending-request journal's state machine (docs/design.md §2), table-driven: what a second
//! submit does in every state, which transitions each state allows, the 24-hour boundary, and
//! that a committed row survives the process and a race between two connections.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed unwrap is a failed test with its location"
)]

use crate::support::time::t_stored;
use std::sync::{Arc, Barrier};

use chrono::{DateTime, TimeDelta, Utc};
use paydesk::api::wire::PaymentLink;
use paydesk::domain::{Currency, LinkStatus};
use paydesk::store::{
    IDEMPOTENCY_RETENTION, JOURNAL_BODY_RETENTION, JournalBegin, JournalKey, JournalState,
    NewJournalRow, Refusal, STALE_AFTER, Store, StoreError,
};
use rust_decimal::Decimal;

const PROFILE: &str = "shop";
const ENDPOINT: &str = "link.create";

fn key(k: &str) -> JournalKey {
    JournalKey::new(PROFILE, ENDPOINT, k)
}

fn new_row(k: &str, body: &str, now: DateTime<Utc>) -> NewJournalRow {
    NewJournalRow {
        key: key(k),
        body: paydesk::secrets::Redacted(body.as_bytes().to_vec()),
        order_number: Some(k.trim_start_matches("link-").to_owned()),
        amount: Some("1250.50".parse().unwrap()),
        currency: Some(Currency::Try),
        now,
        began_by: None,
    }
}

fn link(id: &str) -> PaymentLink {
    serde_json::from_str(&format!(
        r#"{{"id":"{id}","orderNumber":"PD-1","amount":1250.50,"currency":"TRY","status":"PENDING",
            "paymentUrl":"https://pay.example/{id}","paidAmount":0,"remainingAmount":1250.50}}"#
    ))
    .unwrap()
}

/// Brings `link-PD-1` into `state` (committed at `t0`, with one attempt).
fn row_in(store: &mut Store, state: JournalState) {
    let k = key("link-PD-1");
    let started = store
        .journal_begin(&new_row("link-PD-1", "v1", t_stored()))
        .unwrap();
    assert!(matches!(started, JournalBegin::Started(_)));
    store
        .journal_attempt(&k, Some("connection reset"), t_stored())
        .unwrap();
    let later = t_stored() + TimeDelta::seconds(5);
    match state {
        JournalState::Pending => {}
        JournalState::Completed => {
            store.journal_complete(&k, &link("lnk_1"), later).unwrap();
        }
        JournalState::Failed => {
            store
                .journal_refused(&k, Refusal::Rejected, "items.total.mismatch", later)
                .unwrap();
        }
        JournalState::Conflict => {
            store
                .journal_refused(&k, Refusal::KeyReused, "idempotency.key.reused", later)
                .unwrap();
        }
        JournalState::Stale => {
            let n = store.journal_mark_stale(t_stored() + STALE_AFTER).unwrap();
            assert_eq!(n, 1);
        }
        JournalState::Abandoned => {
            store.journal_abandon(&k, later).unwrap();
        }
    }
    assert_eq!(store.journal().get(&k).unwrap().unwrap().state, state);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Started,
    AlreadyPending,
    AlreadyDone,
}

#[test]
fn a_second_submit_does_what_the_state_allows() {
    // (state before, decision, body afterwards, attempts afterwards, state afterwards)
    let table = [
        (None, Decision::Started, "v2", 0, JournalState::Pending),
        (
            Some(JournalState::Pending),
            Decision::AlreadyPending,
            "v1",
            1,
            JournalState::Pending,
        ),
        (
            Some(JournalState::Completed),
            Decision::AlreadyDone,
            "v1",
            1,
            JournalState::Completed,
        ),
        (
            Some(JournalState::Conflict),
            Decision::AlreadyDone,
            "v1",
            1,
            JournalState::Conflict,
        ),
        (
            Some(JournalState::Failed),
            Decision::Started,
            "v2",
            0,
            JournalState::Pending,
        ),
        (
            Some(JournalState::Abandoned),
            Decision::Started,
            "v2",
            0,
            JournalState::Pending,
        ),
        // The server may have forgotten a stale row's key: a new submit of the same order
        // must not re-send it (only `journal_revive`, the user's explicit say, does).
        (
            Some(JournalState::Stale),
            Decision::AlreadyDone,
            "v1",
            1,
            JournalState::Stale,
        ),
    ];
    for (before, decision, body, attempts, after) in table {
        let mut store = Store::open_in_memory().unwrap();
        if let Some(state) = before {
            row_in(&mut store, state);
        }
        let before_row = store.journal().get(&key("link-PD-1")).unwrap();
        let t2 = t_stored() + TimeDelta::hours(30);
        let got = store
            .journal_begin(&new_row("link-PD-1", "v2", t2))
            .unwrap();
        let got_decision = match &got {
            JournalBegin::Started(_) => Decision::Started,
            JournalBegin::AlreadyPending(_) => Decision::AlreadyPending,
            JournalBegin::AlreadyDone(_) => Decision::AlreadyDone,
        };
        assert_eq!(got_decision, decision, "{before:?}");
        let stored = store.journal().get(&key("link-PD-1")).unwrap().unwrap();
        assert_eq!(
            &stored,
            got.row(),
            "{before:?}: the returned row is the stored row"
        );
        assert_eq!(*stored.begun.body, body.as_bytes(), "{before:?}");
        assert_eq!(stored.attempts, attempts, "{before:?}");
        assert_eq!(stored.state, after, "{before:?}");
        if decision == Decision::Started {
            assert_eq!(stored.begun.now, t2, "{before:?}: the 23 h clock restarts");
            assert_eq!(stored.last_error, None, "{before:?}");
            assert_eq!(stored.link_id, None, "{before:?}");
        } else {
            assert_eq!(Some(stored), before_row, "{before:?}: nothing written");
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Attempt,
    Complete,
    Fail,
    Conflict,
    Abandon,
}

fn apply(store: &mut Store, op: Op) -> Result<JournalState, StoreError> {
    let k = key("link-PD-1");
    let now = t_stored() + TimeDelta::minutes(1);
    let row = match op {
        Op::Attempt => store.journal_attempt(&k, Some("timeout"), now)?,
        Op::Complete => store.journal_complete(&k, &link("lnk_2"), now)?,
        Op::Fail => store.journal_refused(&k, Refusal::Rejected, "items.invalid", now)?,
        Op::Conflict => {
            store.journal_refused(&k, Refusal::KeyReused, "idempotency.key.reused", now)?
        }
        Op::Abandon => store.journal_abandon(&k, now)?,
    };
    Ok(row.state)
}

#[test]
fn each_state_allows_only_its_transitions() {
    use JournalState::{Abandoned, Completed, Conflict, Failed, Pending, Stale};
    // For each operation: the resulting state from each starting state, `None` = refused.
    let table: [(Op, [Option<JournalState>; 6]); 5] = [
        // from: Pending, Completed, Failed, Conflict, Stale, Abandoned
        (Op::Attempt, [Some(Pending), None, None, None, None, None]),
        (
            Op::Complete,
            [Some(Completed), None, None, None, None, None],
        ),
        (Op::Fail, [Some(Failed), None, None, None, None, None]),
        (Op::Conflict, [Some(Conflict), None, None, None, None, None]),
        (
            Op::Abandon,
            [Some(Abandoned), None, None, None, Some(Abandoned), None],
        ),
    ];
    let from = [Pending, Completed, Failed, Conflict, Stale, Abandoned];
    for (op, results) in table {
        for (state, want) in from.into_iter().zip(results) {
            let mut store = Store::open_in_memory().unwrap();
            row_in(&mut store, state);
            let got = apply(&mut store, op);
            match (want, got) {
                (Some(w), Ok(g)) => assert_eq!(g, w, "{op:?} from {state}"),
                (None, Err(StoreError::JournalState { state: s, .. })) => {
                    assert_eq!(s, state, "{op:?} from {state}");
                    let row = store.journal().get(&key("link-PD-1")).unwrap().unwrap();
                    assert_eq!(row.state, state, "{op:?} from {state}: unchanged");
                }
                (w, g) => panic!("{op:?} from {state}: wanted {w:?}, got {g:?}"),
            }
        }
    }
}

#[test]
fn attempts_count_and_keep_the_last_error() {
    let mut store = Store::open_in_memory().unwrap();
    let k = key("link-PD-7");
    store
        .journal_begin(&new_row("link-PD-7", "{}", t_stored()))
        .unwrap();
    store
        .journal_attempt(&k, Some("connect refused"), t_stored())
        .unwrap();
    store
        .journal_attempt(&k, Some("HTTP 503"), t_stored())
        .unwrap();
    let row = store
        .journal_attempt(&k, Some("timeout"), t_stored() + TimeDelta::seconds(3))
        .unwrap();
    assert_eq!(row.attempts, 3);
    assert_eq!(row.last_error.as_deref(), Some("timeout"));
    assert_eq!(row.updated_at, t_stored() + TimeDelta::seconds(3));
    assert_eq!(row.begun.now, t_stored());
    let row = store
        .journal_refused(&k, Refusal::Rejected, "items.invalid", t_stored())
        .unwrap();
    assert_eq!(row.last_error.as_deref(), Some("items.invalid"));
    let missing = store.journal_attempt(&key("link-nope"), None, t_stored());
    assert!(matches!(missing, Err(StoreError::NoJournalRow(k)) if k == "link-nope"));
}

#[test]
fn completing_stores_the_link_and_the_outcome_together() {
    let mut store = Store::open_in_memory().unwrap();
    let k = key("link-PD-1");
    store
        .journal_begin(&new_row("link-PD-1", "{}", t_stored()))
        .unwrap();
    let done_at = t_stored() + TimeDelta::seconds(2);
    let row = store.journal_complete(&k, &link("lnk_9"), done_at).unwrap();
    assert_eq!(row.state, JournalState::Completed);
    assert_eq!(row.link_id.as_deref(), Some("lnk_9"));
    let stored = store.links().get(PROFILE, "lnk_9").unwrap().unwrap();
    assert_eq!(stored.link.amount, Some(Decimal::new(125_050, 2)));
    assert_eq!(stored.link.status, LinkStatus::Pending);
    assert_eq!(stored.created_at, done_at);
    // A retry of the same order now shows the link instead of sending.
    let again = store
        .journal_begin(&new_row("link-PD-1", "{}", done_at))
        .unwrap();
    assert!(
        matches!(&again, JournalBegin::AlreadyDone(r) if r.link_id.as_deref() == Some("lnk_9"))
    );
}

#[test]
fn the_23_hour_boundary_splits_resumable_from_stale() {
    let mut store = Store::open_in_memory().unwrap();
    let now = t_stored() + STALE_AFTER;
    let ms = TimeDelta::milliseconds(1);
    // (key, committed at, profile)
    let rows = [
        ("link-old", t_stored() - TimeDelta::hours(1), PROFILE),
        ("link-exactly-23h", t_stored(), PROFILE),
        ("link-23h-minus-1ms", t_stored() + ms, PROFILE),
        ("link-young", now - TimeDelta::minutes(5), PROFILE),
        ("link-middle", t_stored() + TimeDelta::hours(12), PROFILE),
        (
            "link-other-profile",
            t_stored() + TimeDelta::hours(12),
            "other",
        ),
    ];
    for (k, at, profile) in rows {
        let mut row = new_row(k, "{}", at);
        row.key.profile = profile.to_owned();
        store.journal_begin(&row).unwrap();
    }
    let resumable: Vec<String> = store
        .journal()
        .resumable(PROFILE, now)
        .unwrap()
        .into_iter()
        .map(|r| r.begun.key.key)
        .collect();
    assert_eq!(
        resumable,
        ["link-23h-minus-1ms", "link-middle", "link-young"]
    );
    assert_eq!(store.journal_mark_stale(now).unwrap(), 2);
    let stale: Vec<String> = store
        .journal()
        .list(PROFILE, &[JournalState::Stale])
        .unwrap()
        .into_iter()
        .map(|r| r.begun.key.key)
        .collect();
    assert_eq!(stale, ["link-old", "link-exactly-23h"]);
    assert_eq!(store.journal().pending_count(PROFILE).unwrap(), 3);
    assert_eq!(store.journal().pending_count("other").unwrap(), 1);
    // Marking again changes nothing.
    assert_eq!(store.journal_mark_stale(now).unwrap(), 0);
    let old = store.journal().get(&key("link-old")).unwrap().unwrap();
    assert!(old.is_stale_at(now));
    // An hour inside the server's 24 h: the margin for a server clock ahead of ours.
    assert!(STALE_AFTER + TimeDelta::hours(1) == IDEMPOTENCY_RETENTION);
}

#[test]
fn only_revive_brings_a_stale_row_back_with_its_bytes_and_a_fresh_clock() {
    let mut store = Store::open_in_memory().unwrap();
    store
        .journal_begin(&new_row("link-PD-1", "v1", t_stored()))
        .unwrap();
    let k = key("link-PD-1");
    let pending = store.journal_revive(&k, t_stored());
    assert!(
        matches!(pending, Err(StoreError::JournalState { .. })),
        "a pending row is not revived: {pending:?}"
    );
    let later = t_stored() + TimeDelta::hours(30);
    store.journal_mark_stale(later).unwrap();
    let revived = store.journal_revive(&k, later).unwrap();
    assert_eq!(revived.state, JournalState::Pending);
    assert_eq!(*revived.begun.body, b"v1", "the exact bytes are kept");
    assert_eq!(revived.begun.now, later, "a fresh 23 h clock");
    assert_eq!(store.journal().resumable(PROFILE, later).unwrap().len(), 1);
}

#[test]
fn lists_filter_by_state_and_prune_keeps_what_is_unresolved() {
    let mut store = Store::open_in_memory().unwrap();
    for (i, k) in ["link-a", "link-b", "link-c", "link-d"]
        .into_iter()
        .enumerate()
    {
        let at = t_stored() + TimeDelta::minutes(i64::try_from(i).unwrap());
        store.journal_begin(&new_row(k, "{}", at)).unwrap();
    }
    store
        .journal_refused(
            &key("link-b"),
            Refusal::Rejected,
            "items.invalid",
            t_stored(),
        )
        .unwrap();
    store
        .journal_complete(&key("link-c"), &link("lnk_c"), t_stored())
        .unwrap();
    let names = |store: &Store, states: &[JournalState]| -> Vec<String> {
        store
            .journal()
            .list(PROFILE, states)
            .unwrap()
            .into_iter()
            .map(|r| r.begun.key.key)
            .collect()
    };
    assert_eq!(names(&store, &[]), ["link-a", "link-b", "link-c", "link-d"]);
    assert_eq!(
        names(&store, &[JournalState::Pending]),
        ["link-a", "link-d"]
    );
    assert_eq!(
        names(&store, &[JournalState::Failed, JournalState::Completed]),
        ["link-b", "link-c"]
    );
    assert_eq!(store.journal().find(PROFILE, "link-b").unwrap().len(), 1);
    assert!(store.journal().find("other", "link-b").unwrap().is_empty());
    // Pruning clears the bodies of the finished rows and keeps every row.
    let pruned = store
        .journal_prune(t_stored() + JOURNAL_BODY_RETENTION)
        .unwrap();
    assert_eq!(pruned, 2);
    assert_eq!(names(&store, &[]), ["link-a", "link-b", "link-c", "link-d"]);
}

/// The bytes of the database file and its log, as a thief with the disk would read them.
fn file_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for name in ["paydesk.sqlite3", "paydesk.sqlite3-wal"] {
        if let Ok(b) = std::fs::read(dir.join(name)) {
            bytes.extend(b);
        }
    }
    bytes
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Each row's body length, read with plain SQL.
fn body_lengths(dir: &std::path::Path) -> Vec<(String, String, i64)> {
    let conn = rusqlite::Connection::open(dir.join("paydesk.sqlite3")).unwrap();
    let mut stmt = conn
        .prepare("SELECT idem_key, state, length(body) FROM journal ORDER BY idem_key")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_finished_row_loses_its_body_after_a_week_and_its_order_is_still_done() {
    let dir = tempfile::tempdir().unwrap();
    let body = |who: &str| {
        format!(
            r#"{{"amount":1250.50,"currency":"TRY","orderNumber":"PD-1","email":"{who}@example.com","phone":{{"countryCode":"+90","number":"5321234567"}}}}"#
        )
    };
    let mut store = Store::open(dir.path()).unwrap();
    let finished = t_stored() + TimeDelta::seconds(5);
    for (k, who) in [
        ("link-PD-1", "completed.payer"),
        ("link-PD-2", "failed.payer"),
        ("link-PD-3", "pending.payer"),
        ("link-PD-4", "stale.payer"),
    ] {
        let started = store
            .journal_begin(&new_row(k, &body(who), t_stored()))
            .unwrap();
        assert!(matches!(started, JournalBegin::Started(_)));
    }
    store
        .journal_complete(&key("link-PD-1"), &link("lnk_1"), finished)
        .unwrap();
    store
        .journal_refused(
            &key("link-PD-2"),
            Refusal::Rejected,
            "items.invalid",
            finished,
        )
        .unwrap();
    // Both unfinished rows go stale; the user sends link-PD-3 again, link-PD-4 stays stale.
    store.journal_mark_stale(t_stored() + STALE_AFTER).unwrap();
    store
        .journal_revive(&key("link-PD-3"), t_stored() + STALE_AFTER)
        .unwrap();

    // A day short of the week: every body is kept.
    assert_eq!(
        store
            .journal_prune(finished + JOURNAL_BODY_RETENTION - TimeDelta::seconds(1))
            .unwrap(),
        0
    );
    assert!(contains(
        &file_bytes(dir.path()),
        "completed.payer@example.com"
    ));

    // A week after they finished: the finished rows' bodies are gone, from the table and
    // from the file's bytes; the pending and stale rows keep theirs for a re-send.
    let later = finished + JOURNAL_BODY_RETENTION;
    assert_eq!(store.journal_prune(later).unwrap(), 2);
    assert_eq!(
        store.journal_prune(later).unwrap(),
        0,
        "nothing left to clear"
    );
    assert_eq!(
        body_lengths(dir.path())
            .into_iter()
            .map(|(k, state, len)| (k, state, len > 0))
            .collect::<Vec<_>>(),
        [
            ("link-PD-1".to_owned(), "completed".to_owned(), false),
            ("link-PD-2".to_owned(), "failed".to_owned(), false),
            ("link-PD-3".to_owned(), "pending".to_owned(), true),
            ("link-PD-4".to_owned(), "stale".to_owned(), true),
        ]
    );
    let bytes = file_bytes(dir.path());
    assert!(!contains(&bytes, "completed.payer@example.com"));
    assert!(!contains(&bytes, "failed.payer@example.com"));
    assert!(contains(&bytes, "pending.payer@example.com"));
    assert!(contains(&bytes, "stale.payer@example.com"));
    assert_eq!(
        *store
            .journal()
            .get(&key("link-PD-3"))
            .unwrap()
            .unwrap()
            .begun
            .body,
        body("pending.payer").as_bytes()
    );

    // The completed order is still done: a second create of it sends nothing and gets its
    // link, past the server's 24 hours too.
    let again = store
        .journal_begin(&new_row("link-PD-1", &body("completed.payer"), later))
        .unwrap();
    let JournalBegin::AlreadyDone(row) = again else {
        panic!("the order must be refused as done: {again:?}");
    };
    assert_eq!(row.state, JournalState::Completed);
    assert_eq!(row.link_id.as_deref(), Some("lnk_1"));
    assert!(row.begun.body.is_empty());
    // The failed one may be sent again, with the new request's bytes.
    let retried = store
        .journal_begin(&new_row("link-PD-2", &body("failed.payer"), later))
        .unwrap();
    assert!(matches!(retried, JournalBegin::Started(_)));
    assert_eq!(
        *retried.row().begun.body,
        body("failed.payer").as_bytes(),
        "a restarted row sends its new body"
    );
}

#[test]
fn opening_the_services_clears_old_bodies_and_a_second_create_gets_the_link_without_sending() {
    use paydesk::clock::{Clock, ManualClock};
    use paydesk::service::{CreateError, Services};

    let dir = tempfile::tempdir().unwrap();
    let draft = paydesk::domain::link::LinkDraft {
        amount: "1250.50".to_owned(),
        order_number: "PD-20260921-0001".to_owned(),
        email: "ayse.payer@example.com".to_owned(),
        ..paydesk::domain::link::LinkDraft::default()
    };
    let catalog: Vec<paydesk::domain::CatalogVariant> = Vec::new();
    let request = draft
        .validate(&paydesk::domain::link::LinkContext {
            now: t_stored(),
            catalog: &catalog,
            limits: paydesk::domain::link::KeyLimits::default(),
        })
        .unwrap();
    let journal_key = JournalKey::new(
        PROFILE,
        paydesk::api::endpoints::LINK_CREATE.name,
        request.idempotency_key(),
    );
    let mut answer = link("lnk_1");
    answer.order_number = Some(request.order_number().to_owned());
    {
        // The link was made at t0 (as `create_link` leaves it).
        let mut store = Store::open(dir.path()).unwrap();
        // A server nothing listens on: a request sent would fail, not answer.
        store
            .profile_add(
                &paydesk::store::Profile::new(PROFILE, "http://127.0.0.1:9", "pk_test_shop"),
                t_stored(),
            )
            .unwrap();
        let row = NewJournalRow {
            key: journal_key.clone(),
            body: paydesk::secrets::Redacted(request.body_bytes()),
            order_number: Some(request.order_number().to_owned()),
            amount: Some(request.amount()),
            currency: Some(request.currency()),
            now: t_stored(),
            began_by: None,
        };
        assert!(matches!(
            store.journal_begin(&row).unwrap(),
            JournalBegin::Started(_)
        ));
        store
            .journal_complete(&journal_key, &answer, t_stored())
            .unwrap();
    }
    assert!(contains(&file_bytes(dir.path()), "ayse.payer@example.com"));

    let open_at = |at: DateTime<Utc>| {
        let clock = Arc::new(ManualClock::new(at));
        Services::open(
            dir.path(),
            Arc::new(paydesk::secrets::MemoryStore::new()),
            Arc::clone(&clock) as Arc<dyn Clock>,
            Some(zeroize::Zeroizing::new("sk_test_anything".to_owned())),
        )
        .unwrap()
    };
    // Six days later the body is kept; a week later it is gone, the row kept.
    drop(open_at(t_stored() + TimeDelta::days(6)));
    assert!(body_lengths(dir.path())[0].2 > 0);
    let services = open_at(t_stored() + JOURNAL_BODY_RETENTION);
    assert_eq!(body_lengths(dir.path())[0].2, 0);
    assert!(!contains(&file_bytes(dir.path()), "ayse.payer@example.com"));

    // Creating the same order again answers with the stored link; nothing is sent (a send
    // would meet a closed port and end in an unknown outcome).
    let desk = services.desk(PROFILE).unwrap();
    let outcome = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(desk.create_link(&request));
    match outcome {
        Err(CreateError::AlreadyHasLink(link)) => assert_eq!(link.id, "lnk_1"),
        other => panic!("the order must be refused as done: {other:?}"),
    }
    let row = services
        .inspect(|s| s.journal().get(&journal_key))
        .unwrap()
        .unwrap();
    assert_eq!((row.state, row.attempts), (JournalState::Completed, 0));
}

#[test]
fn a_committed_row_survives_the_process_with_its_exact_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let body = "{\"amount\":1250.50,\"email\":\"ayşe@example.com\"}\u{0}\u{ff}"
        .as_bytes()
        .to_vec();
    {
        let mut store = Store::open(dir.path()).unwrap();
        let mut row = new_row("link-PD-1", "", t_stored());
        row.body.0.clone_from(&body);
        assert!(matches!(
            store.journal_begin(&row).unwrap(),
            JournalBegin::Started(_)
        ));
        // No complete: the process dies here.
    }
    let mut store = Store::open(dir.path()).unwrap();
    let resumable = store
        .journal()
        .resumable(PROFILE, t_stored() + TimeDelta::minutes(1))
        .unwrap();
    assert_eq!(resumable.len(), 1);
    assert_eq!(*resumable[0].begun.body, body);
    assert_eq!(resumable[0].begun.amount.unwrap().to_string(), "1250.50");
    assert_eq!(resumable[0].begun.currency, Some(Currency::Try));
    assert_eq!(resumable[0].begun.order_number.as_deref(), Some("PD-1"));
    // Clicking "create" again for that order sends nothing.
    let again = store
        .journal_begin(&new_row("link-PD-1", "{}", t_stored()))
        .unwrap();
    assert!(matches!(again, JournalBegin::AlreadyPending(_)));
}

#[test]
fn two_connections_racing_on_one_key_start_it_once() {
    const KEYS: usize = 100;
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    let barrier = Arc::new(Barrier::new(2));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let path = dir.path().to_path_buf();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let mut store = Store::open(&path).unwrap();
                let mut started = Vec::new();
                for i in 0..KEYS {
                    barrier.wait();
                    let k = format!("link-PD-{i}");
                    if let JournalBegin::Started(_) =
                        store.journal_begin(&new_row(&k, "{}", t_stored())).unwrap()
                    {
                        started.push(i);
                    }
                }
                started
            })
        })
        .collect();
    let mut all: Vec<usize> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    all.sort_unstable();
    assert_eq!(
        all,
        (0..KEYS).collect::<Vec<_>>(),
        "each key started exactly once"
    );
}

#[test]
fn debug_output_never_shows_a_body() {
    let mut store = Store::open_in_memory().unwrap();
    let row = new_row("link-PD-1", "{\"email\":\"ayse@example.com\"}", t_stored());
    assert!(!format!("{row:?}").contains("ayse"));
    let begun = store.journal_begin(&row).unwrap();
    let text = format!("{begun:?}");
    assert!(!text.contains("ayse"), "{text}");
    assert!(text.contains("body: <redacted>"), "{text}");
}
