//! Staff in the data file: the first member is a manager, the last active manager stays, the
//! PIN lock-out (counted across a reopen of the file, waits on a manual clock), approvals, and
//! the audit rows each change leaves in its own transaction.

use crate::support::time::t0;
use chrono::{DateTime, Duration, Utc};
use paydesk::domain::{Actor, Pin, Role, StaffName};
use paydesk::store::{AuditFilter, ChainCheck, StaffError, Store, StoreError};

fn pin(p: &str) -> Pin {
    Pin::parse(p).expect("a valid PIN")
}

fn name(n: &str) -> StaffName {
    StaffName::parse(n).expect("a valid name")
}

fn staff_error(r: Result<impl std::fmt::Debug, StoreError>) -> StaffError {
    match r {
        Err(StoreError::Staff(e)) => e,
        other => panic!("expected a staff refusal, got {other:?}"),
    }
}

fn shop(dir: &std::path::Path, now: DateTime<Utc>) -> Store {
    let mut store = Store::open(dir).expect("store");
    let nobody = Actor::nobody();
    store
        .staff_add(&nobody, &name("Zeynep"), Role::Manager, &pin("9999"), now)
        .expect("first manager");
    let zeynep = Actor::member("Zeynep", Role::Manager);
    store
        .staff_add(&zeynep, &name("Ayşe"), Role::Counter, &pin("1234"), now)
        .expect("a clerk");
    store
}

#[test]
fn the_first_member_is_a_manager_and_staff_turn_on() {
    let mut store = Store::open_in_memory().expect("store");
    assert!(!store.staff().on().expect("read"));
    let refused = store.staff_add(
        &Actor::nobody(),
        &name("Ayşe"),
        Role::Counter,
        &pin("1234"),
        t0(),
    );
    assert_eq!(staff_error(refused), StaffError::FirstMustBeManager);
    assert!(!store.staff().on().expect("read"), "nothing was written");
    store
        .staff_add(
            &Actor::nobody(),
            &name("Zeynep"),
            Role::Manager,
            &pin("9999"),
            t0(),
        )
        .expect("a manager first");
    assert!(store.staff().on().expect("read"));
    let taken = store.staff_add(
        &Actor::member("Zeynep", Role::Manager),
        &name("ZEYNEP"),
        Role::Counter,
        &pin("1111"),
        t0(),
    );
    assert_eq!(
        staff_error(taken),
        StaffError::NameTaken("ZEYNEP".to_owned())
    );
}

#[test]
fn the_last_active_manager_cannot_be_disabled() {
    let dir = tempfile::tempdir().expect("dir");
    let mut store = shop(dir.path(), t0());
    let zeynep = Actor::member("Zeynep", Role::Manager);
    let refused = store.staff_set_active(&zeynep, "Zeynep", false, t0());
    assert_eq!(
        staff_error(refused),
        StaffError::LastManager("Zeynep".to_owned())
    );
    // A clerk can be disabled, and cannot sign in then.
    store
        .staff_set_active(&zeynep, "ayşe", false, t0())
        .expect("disable");
    assert_eq!(
        staff_error(store.staff_sign_in("Ayşe", &pin("1234"), "app", t0())),
        StaffError::Disabled("Ayşe".to_owned())
    );
    // With a second manager the first may go.
    store
        .staff_add(&zeynep, &name("Can"), Role::Manager, &pin("5555"), t0())
        .expect("second manager");
    store
        .staff_set_active(&zeynep, "Zeynep", false, t0())
        .expect("not the last any more");
}

#[test]
fn wrong_pins_lock_a_member_out_across_a_reopen_and_the_wait_doubles() {
    let dir = tempfile::tempdir().expect("dir");
    let start = t0();
    drop(shop(dir.path(), start));
    let wrong = pin("0000");
    let mut now = start;
    for miss in 1..=4 {
        let mut store = Store::open(dir.path()).expect("reopen");
        let e = staff_error(store.staff_sign_in("Ayşe", &wrong, "app", now));
        assert_eq!(
            e,
            StaffError::WrongPin {
                name: "Ayşe".into(),
                wait_seconds: None
            },
            "miss {miss}"
        );
    }
    // The fifth miss in a row, after a reopen: the count was kept in the file.
    let mut store = Store::open(dir.path()).expect("reopen");
    let e = staff_error(store.staff_sign_in("Ayşe", &wrong, "app", now));
    assert_eq!(
        e,
        StaffError::WrongPin {
            name: "Ayşe".into(),
            wait_seconds: Some(30)
        }
    );
    drop(store);
    // During the wait even the right PIN is refused, and the try is not counted.
    let mut store = Store::open(dir.path()).expect("reopen");
    now += Duration::seconds(10);
    assert_eq!(
        staff_error(store.staff_sign_in("Ayşe", &pin("1234"), "app", now)),
        StaffError::Waiting {
            name: "Ayşe".into(),
            seconds: 20
        }
    );
    // After the wait, another miss doubles it (the refused try did not count).
    now += Duration::seconds(20);
    assert_eq!(
        staff_error(store.staff_sign_in("Ayşe", &wrong, "app", now)),
        StaffError::WrongPin {
            name: "Ayşe".into(),
            wait_seconds: Some(60)
        }
    );
    now += Duration::seconds(60);
    let member = store
        .staff_sign_in("Ayşe", &pin("1234"), "app", now)
        .expect("the right PIN after the wait");
    assert_eq!(member.role, Role::Counter);
    // The count starts again from zero.
    for _ in 1..=4 {
        let e = staff_error(store.staff_sign_in("Ayşe", &wrong, "app", now));
        assert!(
            matches!(
                e,
                StaffError::WrongPin {
                    wait_seconds: None,
                    ..
                }
            ),
            "{e:?}"
        );
    }
    // The record names the lock-outs and the sign-in.
    let rows = store.audit().list(&AuditFilter::default()).expect("audit");
    let actions: Vec<&str> = rows.iter().rev().map(|r| r.action.as_str()).collect();
    assert_eq!(
        actions,
        ["staff.add", "staff.add", "lockout", "lockout", "sign-in"]
    );
}

#[test]
fn a_reset_pin_clears_the_wait() {
    let dir = tempfile::tempdir().expect("dir");
    let mut store = shop(dir.path(), t0());
    for _ in 0..5 {
        let _ = store.staff_sign_in("Ayşe", &pin("0000"), "app", t0());
    }
    let zeynep = Actor::member("Zeynep", Role::Manager);
    store
        .staff_reset_pin(&zeynep, "Ayşe", &pin("4321"), t0())
        .expect("reset");
    store
        .staff_sign_in("Ayşe", &pin("4321"), "app", t0())
        .expect("the new PIN, at once");
    assert!(
        store
            .staff_sign_in("Ayşe", &pin("1234"), "app", t0())
            .is_err()
    );
}

#[test]
fn an_approval_needs_a_managers_pin_and_names_both() {
    let dir = tempfile::tempdir().expect("dir");
    let mut store = shop(dir.path(), t0());
    let ayse = Actor::member("Ayşe", Role::Counter);
    assert_eq!(
        staff_error(store.staff_approve(&ayse, "Ayşe", &pin("1234"), "CancelLink L1", t0())),
        StaffError::NotManager("Ayşe".to_owned())
    );
    assert!(
        store
            .staff_approve(&ayse, "Zeynep", &pin("0000"), "CancelLink L1", t0())
            .is_err()
    );
    let approved = store
        .staff_approve(&ayse, "Zeynep", &pin("9999"), "CancelLink L1", t0())
        .expect("approved");
    assert_eq!(approved.name(), Some("Ayşe"));
    assert_eq!(approved.approved_by.as_deref(), Some("Zeynep"));
    let last = &store.audit().list(&AuditFilter::default()).expect("audit")[0];
    assert_eq!(
        (
            last.action.as_str(),
            last.staff.as_deref(),
            last.approved_by.as_deref(),
            last.subject.as_str()
        ),
        ("approve", Some("Ayşe"), Some("Zeynep"), "CancelLink L1")
    );
}

#[test]
fn the_pin_and_its_hash_never_reach_the_record_or_the_list() {
    let dir = tempfile::tempdir().expect("dir");
    let store = shop(dir.path(), t0());
    let rows = store.audit().list(&AuditFilter::default()).expect("audit");
    let text = format!("{rows:?} {:?}", store.staff().list().expect("list"));
    assert!(
        !text.contains("9999") && !text.contains("1234") && !text.contains("argon2"),
        "{text}"
    );
    assert!(matches!(
        store.audit().verify(None).expect("verify"),
        ChainCheck::Whole { rows: 2, .. }
    ));
}
