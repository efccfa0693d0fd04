//! The shop-wide staff against a real PostgreSQL (the private cluster of `tests/support/pg.rs`):
//! a PIN set on one desk works on another after a pull, wrong PINs counted on two desks add up,
//! a resent push counts nothing twice, and the last active manager of the shop stays one.

use crate::support::pg;
use crate::support::shop::{Desk, fresh_shop};
use chrono::{DateTime, Duration, Utc};
use paydesk::domain::{Actor, Pin, Role, StaffName};
use paydesk::shop::push;
use paydesk::shop::staff::{self, StaffPulled};
use paydesk::store::{StaffError, Store, StoreError};

fn pin(p: &str) -> Pin {
    Pin::parse(p).expect("a valid PIN")
}

fn now() -> DateTime<Utc> {
    crate::support::time::t_stored()
}

impl Desk {
    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().expect("the store")
    }

    fn add(&self, name: &str, role: Role, p: &str) {
        self.store()
            .staff_add(
                &Actor::nobody(),
                &StaffName::parse(name).expect("a name"),
                role,
                &pin(p),
                now(),
            )
            .expect("added");
    }

    fn sign_in(&self, name: &str, p: &str, at: DateTime<Utc>) -> Result<(), StaffError> {
        match self.store().staff_sign_in(name, &pin(p), "app", at) {
            Ok(_) => Ok(()),
            Err(StoreError::Staff(e)) => Err(e),
            Err(e) => panic!("not a staff refusal: {e}"),
        }
    }

    async fn push(&mut self) -> push::Pushed {
        push::push(&mut self.shop, &self.store, now)
            .await
            .expect("pushed")
    }

    async fn pull_staff(&mut self) -> StaffPulled {
        staff::pull_staff(&mut self.shop, &self.store, now())
            .await
            .expect("pulled")
    }
}

#[tokio::test]
async fn a_pin_set_on_one_desk_works_on_another_after_a_pull() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut office = Desk::join(&url, "Back office").await;
    let mut counter = Desk::join(&url, "Counter 1").await;
    office.add("Zeynep", Role::Manager, "9999");
    office.add("Ayşe", Role::Counter, "2468");
    assert_eq!(office.push().await.staff_rows, 2);
    assert_eq!(
        counter.pull_staff().await,
        StaffPulled::Mirrored {
            version: 2,
            members: 2
        }
    );
    let names: Vec<(String, Role, bool)> = counter
        .store()
        .staff()
        .list()
        .expect("the list")
        .into_iter()
        .map(|m| (m.name, m.role, m.active))
        .collect();
    assert_eq!(
        names,
        vec![
            ("Ayşe".to_owned(), Role::Counter, true),
            ("Zeynep".to_owned(), Role::Manager, true)
        ]
    );
    counter
        .sign_in("Ayşe", "2468", now())
        .expect("the PIN set in the back office works at the counter");
    assert!(matches!(
        counter.sign_in("Ayşe", "1111", now()),
        Err(StaffError::WrongPin { .. })
    ));
    // The hash went through the shop, never the PIN.
    let hashes = pg.admin_sql(url.dbname(), "SELECT string_agg(pin_hash, ' ') FROM staff");
    assert!(
        hashes.contains("$argon2id$") && !hashes.contains("2468"),
        "{hashes}"
    );

    // A reset in the back office reaches the counter: the old PIN stops working.
    office
        .store()
        .staff_reset_pin(&Actor::nobody(), "Ayşe", &pin("1357"), now())
        .expect("reset");
    office.push().await;
    counter.push().await;
    assert!(matches!(
        counter.pull_staff().await,
        StaffPulled::Mirrored { .. }
    ));
    assert!(matches!(
        counter.sign_in("Ayşe", "2468", now()),
        Err(StaffError::WrongPin { .. })
    ));
    counter.sign_in("Ayşe", "1357", now()).expect("the new PIN");
    // Its own PIN tries come back from the shop once pushed; then nothing is new.
    counter.push().await;
    assert!(matches!(
        counter.pull_staff().await,
        StaffPulled::Mirrored { members: 2, .. }
    ));
    assert_eq!(counter.pull_staff().await, StaffPulled::Unchanged);
    // A right PIN with no miss to clear changes nothing in the shop: no desk has to pull.
    counter.sign_in("Ayşe", "1357", now()).expect("the PIN");
    assert_eq!(counter.push().await.staff_rows, 1);
    assert_eq!(
        office.pull_staff().await,
        StaffPulled::Mirrored {
            version: pg
                .admin_sql(url.dbname(), "SELECT max(version) FROM staff")
                .parse()
                .expect("a number"),
            members: 2
        }
    );
    assert_eq!(counter.pull_staff().await, StaffPulled::Unchanged);
}

#[tokio::test]
async fn wrong_pins_on_two_desks_add_up_and_a_resent_push_counts_nothing_twice() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Counter 1").await;
    let mut b = Desk::join(&url, "Counter 2").await;
    a.add("Zeynep", Role::Manager, "9999");
    a.add("Can", Role::Counter, "4321");
    a.push().await;
    b.pull_staff().await;

    // Three misses on A, two on B (not yet pushed, as on a desk offline): neither desk alone
    // reached the fifth, so neither waits.
    for i in 0..3 {
        let e = a.sign_in("Can", "0000", now() + Duration::seconds(i));
        assert!(
            matches!(
                e,
                Err(StaffError::WrongPin {
                    wait_seconds: None,
                    ..
                })
            ),
            "{e:?}"
        );
    }
    for i in 0..2 {
        let e = b.sign_in("Can", "0000", now() + Duration::seconds(i));
        assert!(
            matches!(
                e,
                Err(StaffError::WrongPin {
                    wait_seconds: None,
                    ..
                })
            ),
            "{e:?}"
        );
    }
    let rows = a.store().outbox().staff_rows(100).expect("the outbox");
    assert_eq!(rows.len(), 3);
    a.push().await;
    // A's push resent (A died before deleting it): nothing is counted twice.
    let again = staff::apply_staff(&mut a.shop, &a.id, &rows)
        .await
        .expect("resent");
    assert_eq!((again.changed, again.skipped), (0, 3));
    b.push().await;
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT misses || ' ' || (locked_until IS NOT NULL) FROM staff WHERE folded = 'can'"
        ),
        "5 true",
        "3 + 2 misses: the fifth starts the wait"
    );
    a.pull_staff().await;
    b.pull_staff().await;
    let soon = now() + Duration::seconds(5);
    for desk in [&a, &b] {
        assert!(
            matches!(
                desk.sign_in("Can", "4321", soon),
                Err(StaffError::Waiting { .. })
            ),
            "the right PIN waits on every desk"
        );
    }
    // After the wait, a right PIN on B clears the count for the whole shop.
    let later = now() + Duration::seconds(60);
    b.sign_in("Can", "4321", later).expect("after the wait");
    b.push().await;
    a.pull_staff().await;
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT misses FROM staff WHERE folded = 'can'"
        ),
        "0"
    );
    let e = a.sign_in("Can", "0000", later);
    assert!(
        matches!(
            e,
            Err(StaffError::WrongPin {
                wait_seconds: None,
                ..
            })
        ),
        "A counts from zero again: {e:?}"
    );
}

#[tokio::test]
async fn the_last_active_manager_of_the_shop_cannot_be_disabled_from_two_desks_at_once() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Counter 1").await;
    let mut b = Desk::join(&url, "Counter 2").await;
    a.add("Zeynep", Role::Manager, "9999");
    a.add("Mert", Role::Manager, "8888");
    a.push().await;
    b.pull_staff().await;
    // Each desk sees another active manager, so each disables one.
    a.store()
        .staff_set_active(&Actor::nobody(), "Zeynep", false, now())
        .expect("A disables Zeynep");
    b.store()
        .staff_set_active(&Actor::nobody(), "Mert", false, now())
        .expect("B disables Mert");
    let (pa, pb) = (a.push().await, b.push().await);
    assert_eq!(pa.staff_refused, 0);
    assert_eq!(
        pb.staff_refused, 1,
        "the shop keeps its last active manager"
    );
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT string_agg(name || ':' || active, ' ' ORDER BY folded) FROM staff"
        ),
        "Mert:true Zeynep:false"
    );
    for desk in [&mut a, &mut b] {
        desk.pull_staff().await;
        let list: Vec<(String, bool)> = desk
            .store()
            .staff()
            .list()
            .expect("the list")
            .into_iter()
            .map(|m| (m.name, m.active))
            .collect();
        assert_eq!(
            list,
            vec![("Mert".to_owned(), true), ("Zeynep".to_owned(), false)],
            "every desk reads the shop's staff back"
        );
    }
    b.sign_in("Mert", "8888", now())
        .expect("the manager B disabled signs in again");
}

#[tokio::test]
async fn a_staff_change_is_notified_on_paydesk_staff() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let (listener, mut connection) = tokio_postgres::Config::new()
        .host_path(pg.socket_dir())
        .port(pg.port())
        .user("postgres")
        .dbname(url.dbname())
        .connect(tokio_postgres::NoTls)
        .await
        .expect("the listener connects");
    // The test's own listener on its own connection: waiting on a full channel stalls only it.
    let (tx, mut heard) = tokio::sync::mpsc::channel(1024);
    tokio::spawn(async move {
        while let Some(Ok(message)) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            if let tokio_postgres::AsyncMessage::Notification(n) = message {
                let _ = tx
                    .send((n.channel().to_owned(), n.payload().to_owned()))
                    .await;
            }
        }
    });
    listener
        .batch_execute(&format!("LISTEN {}", staff::CHANNEL))
        .await
        .expect("listening");
    let mut office = Desk::join(&url, "Back office").await;
    office.add("Zeynep", Role::Manager, "9999");
    office.push().await;
    let (channel, payload) = tokio::time::timeout(std::time::Duration::from_secs(10), heard.recv())
        .await
        .expect("notified within 10 s")
        .expect("a notification");
    assert_eq!(channel, "paydesk_staff");
    assert_eq!(
        payload,
        pg.admin_sql(url.dbname(), "SELECT max(version) FROM staff")
    );
}
