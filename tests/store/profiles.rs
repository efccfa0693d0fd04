//! Profiles and order numbers: the CRUD rules (validation, the undeletable sandbox, no removal
//! while requests are pending) and order numbers that never repeat, within one install, across
//! two connections to one file, and across two installs ("devices").

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed unwrap is a failed test with its location"
)]

use std::collections::HashSet;

use chrono::{DateTime, NaiveDate};
use paydesk::api::wire::PaymentLink;
use paydesk::store::{JournalKey, NewJournalRow, Profile, SANDBOX_PROFILE, Store, StoreError};
use rust_decimal::Decimal;

/// When the test's profiles are added or changed.
fn t() -> DateTime<chrono::Utc> {
    "2026-11-22T10:00:00Z".parse().expect("an RFC 3339 time")
}

fn shop() -> Profile {
    Profile {
        amount_limit: Some("5000.00".parse().unwrap()),
        max_items: Some(20),
        order_prefix: "MAG".into(),
        ..Profile::new("shop", "https://api.example.com", "pk_live_1")
    }
}

fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
}

#[test]
fn profiles_are_added_listed_updated_and_removed() {
    let mut store = Store::open_in_memory().unwrap();
    store.profile_add(&shop(), t()).unwrap();
    store
        .profile_add(&Profile::new("another", "https://b.example", "pk_2"), t())
        .unwrap();
    let names: Vec<String> = store
        .profiles()
        .list()
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, [SANDBOX_PROFILE, "another", "shop"]);
    let got = store.profiles().get("shop").unwrap().unwrap();
    assert_eq!(got, shop());
    assert_eq!(got.amount_limit.unwrap().to_string(), "5000.00");

    let mut changed = shop();
    changed.base_url = "https://api2.example.com".into();
    changed.amount_limit = None;
    changed.max_items = None;
    store.profile_update(&changed, t()).unwrap();
    assert_eq!(store.profiles().get("shop").unwrap().unwrap(), changed);

    assert!(
        matches!(store.profile_add(&shop(), t()), Err(StoreError::ProfileExists(n)) if n == "shop")
    );
    let ghost = Profile::new("ghost", "https://x", "k");
    assert!(matches!(
        store.profile_update(&ghost, t()),
        Err(StoreError::NoProfile(_))
    ));
    store.profile_remove("another").unwrap();
    assert_eq!(store.profiles().get("another").unwrap(), None);
    assert!(matches!(
        store.profile_remove("another"),
        Err(StoreError::NoProfile(_))
    ));
}

/// Makes one field of a valid profile invalid.
type Spoil = fn(&mut Profile);

#[test]
fn invalid_profiles_are_refused_with_the_reason() {
    let cases: [(Spoil, &str); 9] = [
        (|p| p.name = String::new(), "1 to 64 characters"),
        (|p| p.name = " shop".into(), "1 to 64 characters"),
        (|p| p.name = "a:b".into(), "cannot contain `:`"),
        (|p| p.base_url = " ".into(), "base URL is empty"),
        (|p| p.api_key = String::new(), "API key id is empty"),
        (|p| p.order_prefix = "MA G".into(), "order prefix"),
        (|p| p.order_prefix = "ABCDEFGHIJKLM".into(), "order prefix"),
        (|p| p.amount_limit = Some(Decimal::ZERO), "greater than 0"),
        (|p| p.max_items = Some(0), "at least 1"),
    ];
    let mut store = Store::open_in_memory().unwrap();
    for (spoil, reason) in cases {
        let mut p = shop();
        spoil(&mut p);
        let err = store.profile_add(&p, t()).unwrap_err();
        assert!(
            matches!(&err, StoreError::InvalidProfile(m) if m.contains(reason)),
            "{reason}: {err}"
        );
    }
    assert_eq!(store.profiles().list().unwrap().len(), 1);
}

#[test]
fn the_sandbox_can_be_configured_but_not_removed() {
    let mut store = Store::open_in_memory().unwrap();
    let mut sandbox = store.profiles().get(SANDBOX_PROFILE).unwrap().unwrap();
    sandbox.base_url = "http://127.0.0.1:47011".into();
    sandbox.api_key = "pk_sandbox_demo".into();
    sandbox.is_sandbox = false; // the built-in one stays a sandbox anyway
    store.profile_update(&sandbox, t()).unwrap();
    let got = store.profiles().get(SANDBOX_PROFILE).unwrap().unwrap();
    assert_eq!(got.base_url, "http://127.0.0.1:47011");
    assert!(got.is_sandbox);
    assert!(matches!(
        store.profile_remove(SANDBOX_PROFILE),
        Err(StoreError::SandboxProfile)
    ));
}

#[test]
fn a_profile_with_pending_requests_cannot_be_removed() {
    let mut store = Store::open_in_memory().unwrap();
    store.profile_add(&shop(), t()).unwrap();
    let key = JournalKey::new("shop", "link.create", "link-MAG-1");
    let now = DateTime::from_timestamp(1_790_000_000, 0).unwrap();
    store
        .journal_begin(&NewJournalRow {
            key: key.clone(),
            body: paydesk::secrets::Redacted(b"{}".to_vec()),
            order_number: Some("MAG-1".into()),
            amount: None,
            currency: None,
            now,
            began_by: None,
        })
        .unwrap();
    let err = store.profile_remove("shop").unwrap_err();
    assert!(
        matches!(err, StoreError::ProfileBusy { pending: 1, .. }),
        "{err}"
    );
    store.journal_abandon(&key, now).unwrap();
    store.profile_remove("shop").unwrap();
}

fn shape_ok(number: &str, prefix: &str, device: &str) -> bool {
    let want = format!("{prefix}-20261122-{device}");
    number.starts_with(&want)
        && number.len() == want.len() + 4
        && number[want.len()..].bytes().all(|b| b.is_ascii_digit())
}

#[test]
fn order_numbers_have_the_documented_shape_and_count_per_day() {
    let mut store = Store::open_in_memory().unwrap();
    store.profile_add(&shop(), t()).unwrap();
    store.set_device_id("7kq3").unwrap();
    assert_eq!(store.profiles().device_id().unwrap(), "7KQ3");
    let n1 = store.next_order_number("shop", day()).unwrap();
    let n2 = store.next_order_number("shop", day()).unwrap();
    assert_eq!(n1, "MAG-20261122-7KQ30001");
    assert_eq!(n2, "MAG-20261122-7KQ30002");
    assert!(shape_ok(&n2, "MAG", "7KQ3"));
    // A new day starts again at 1; another profile counts on its own.
    let next_day = day().succ_opt().unwrap();
    assert_eq!(
        store.next_order_number("shop", next_day).unwrap(),
        "MAG-20261123-7KQ30001"
    );
    assert_eq!(
        store.next_order_number(SANDBOX_PROFILE, day()).unwrap(),
        "PD-20261122-7KQ30001"
    );
    assert!(matches!(
        store.next_order_number("nobody", day()),
        Err(StoreError::NoProfile(_))
    ));
    assert!(matches!(
        store.set_device_id("OIL1"),
        Err(StoreError::InvalidDeviceId(_))
    ));
}

#[test]
fn numbers_already_in_history_or_the_journal_are_skipped() {
    let mut store = Store::open_in_memory().unwrap();
    store.set_device_id("AB12").unwrap();
    let now = DateTime::from_timestamp(1_790_000_000, 0).unwrap();
    // Typed by hand earlier: the counter's next two numbers are taken.
    let link: PaymentLink =
        serde_json::from_str(r#"{"id":"lnk_1","orderNumber":"PD-20261122-AB120001"}"#).unwrap();
    store.upsert_link(SANDBOX_PROFILE, &link, now).unwrap();
    store
        .journal_begin(&NewJournalRow {
            key: JournalKey::new(SANDBOX_PROFILE, "link.create", "link-PD-20261122-AB120002"),
            body: paydesk::secrets::Redacted(b"{}".to_vec()),
            order_number: Some("PD-20261122-AB120002".into()),
            amount: None,
            currency: None,
            now,
            began_by: None,
        })
        .unwrap();
    assert_eq!(
        store.next_order_number(SANDBOX_PROFILE, day()).unwrap(),
        "PD-20261122-AB120003"
    );
}

#[test]
fn two_connections_to_one_file_never_get_the_same_number() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let path = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let mut store = Store::open(&path).unwrap();
                (0..300)
                    .map(|_| store.next_order_number(SANDBOX_PROFILE, day()).unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let all: Vec<String> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    let unique: HashSet<&String> = all.iter().collect();
    assert_eq!(unique.len(), 600);
    // Together they used exactly 1..=600.
    let mut seqs: Vec<u32> = all
        .iter()
        .map(|n| n[n.len() - 4..].parse().unwrap())
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=600).collect::<Vec<_>>());
}

#[test]
fn two_devices_with_the_same_prefix_never_collide() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut till_a = Store::open(a.path()).unwrap();
    let mut till_b = Store::open(b.path()).unwrap();
    // Fresh installs draw their own device ids (4 of 32 symbols each).
    let (da, db) = (
        till_a.profiles().device_id().unwrap(),
        till_b.profiles().device_id().unwrap(),
    );
    assert_ne!(
        da, db,
        "two fresh installs drew the same device id (1 in 2^20)"
    );
    let mut all = HashSet::new();
    for _ in 0..500 {
        let na = till_a.next_order_number(SANDBOX_PROFILE, day()).unwrap();
        let nb = till_b.next_order_number(SANDBOX_PROFILE, day()).unwrap();
        assert!(shape_ok(&na, "PD", &da), "{na}");
        assert!(shape_ok(&nb, "PD", &db), "{nb}");
        assert!(all.insert(na));
        assert!(all.insert(nb));
    }
    // The counter is durable: a reopened install goes on where it stopped.
    drop(till_a);
    let mut till_a = Store::open(a.path()).unwrap();
    assert_eq!(
        till_a.next_order_number(SANDBOX_PROFILE, day()).unwrap(),
        format!("PD-20261122-{da}0501")
    );
}
