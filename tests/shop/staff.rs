//! The shop's staff under its own authority (schema step 12) against a real PostgreSQL (the
//! private cluster of `tests/support/pg.rs`, a non-superuser owner): the owner makes the first
//! manager, whose PIN only the shop holds and checks; a signed-in manager's token carries
//! staff changes, and ends at sign-out, idle and disabling; wrong PINs add up across desks;
//! what a clerk writes into the desk's outbox (a manager made, a manager's PIN tried, a try
//! dated 2100) changes nothing in the shop.

use crate::support::pg::{self, PASSWORD, ROLE};
use crate::support::shop::{Desk, fresh_shop};
use chrono::{DateTime, Duration, Utc};
use paydesk::domain::{Actor, Pin, Role, StaffName};
use paydesk::shop::staff::{self, ManagerChecked, NewPin, StaffPulled};
use paydesk::shop::{ShopError, ShopUrl, push};
use paydesk::store::{StaffError, Store, StoreError, hash_pin};
use zeroize::Zeroizing;

fn pin(p: &str) -> Pin {
    Pin::parse(p).expect("a valid PIN")
}

fn now() -> DateTime<Utc> {
    crate::support::time::t_stored()
}

/// The owner's URL of the shop at `url`.
fn owner_of(pg: &pg::Pg, url: &ShopUrl) -> ShopUrl {
    ShopUrl::parse(&pg.owner_url(url.dbname())).expect("the owner's URL")
}

/// `shop add-manager NAME` as the owner.
async fn add_manager(pg: &pg::Pg, url: &ShopUrl, name: &str, p: &str) {
    paydesk::shop::owner::add_manager(
        &owner_of(pg, url),
        &Zeroizing::new(PASSWORD.to_owned()),
        &StaffName::parse(name).expect("a name"),
        &pin(p),
    )
    .await
    .expect("the owner adds a manager");
}

/// The SQLSTATE of a shop refusal.
fn code(e: &ShopError) -> &str {
    match e {
        ShopError::Database { code, .. } => code,
        other => panic!("not a database refusal: {other:?}"),
    }
}

impl Desk {
    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().expect("the store")
    }

    fn sign_in(&self, name: &str, p: &str, at: DateTime<Utc>) -> Result<(), StaffError> {
        match self.store().staff_sign_in(name, &pin(p), "app", at) {
            Ok(_) => Ok(()),
            Err(StoreError::Staff(e)) => Err(e),
            Err(e) => panic!("not a staff refusal: {e}"),
        }
    }

    async fn check(&self, name: &str, p: &str) -> ManagerChecked {
        staff::manager_check(&self.shop, &self.id, name, &pin(p), true, "app")
            .await
            .expect("the shop answers")
    }

    /// A manager's token: their right PIN checked by the shop.
    async fn token(&self, name: &str, p: &str) -> Zeroizing<String> {
        match self.check(name, p).await {
            ManagerChecked::Right {
                token: Some(token), ..
            } => token,
            other => panic!("not signed in: {other:?}"),
        }
    }

    async fn add_clerk(&self, token: &str, name: &str, p: &str) -> Result<(), ShopError> {
        let hash = hash_pin(&pin(p)).expect("hashed");
        staff::add(&self.shop, &self.id, token, name, &NewPin::Clerk(hash)).await
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

    fn members(&self) -> Vec<(String, Role, bool)> {
        self.store()
            .staff()
            .list()
            .expect("the list")
            .into_iter()
            .map(|m| (m.name, m.role, m.active))
            .collect()
    }
}

#[tokio::test]
async fn the_owners_manager_adds_a_clerk_who_signs_in_at_every_desk_and_no_desk_reads_a_verifier() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let office = Desk::join(&url, "Back office").await;
    let mut counter = Desk::join(&url, "Counter 1").await;
    add_manager(&pg, &url, "Zeynep", "9999").await;
    let token = office.token("Zeynep", "9999").await;
    office
        .add_clerk(&token, "Ayşe", "2468")
        .await
        .expect("the manager adds a clerk");
    assert!(matches!(
        counter.pull_staff().await,
        StaffPulled::Mirrored { members: 2, .. }
    ));
    assert_eq!(
        counter.members(),
        vec![
            ("Ayşe".to_owned(), Role::Counter, true),
            ("Zeynep".to_owned(), Role::Manager, true)
        ]
    );
    counter
        .sign_in("Ayşe", "2468", now())
        .expect("the clerk signs in from the mirror");
    assert!(matches!(
        counter.sign_in("Ayşe", "1111", now()),
        Err(StaffError::WrongPin { .. })
    ));
    // The manager's PIN is nowhere on the desk: only the shop checks it.
    assert_eq!(
        counter.sign_in("Zeynep", "9999", now()),
        Err(StaffError::ManagerNeedsShop("Zeynep".to_owned()))
    );
    let shop_pins = pg.admin_sql(
        url.dbname(),
        "SELECT coalesce(pin_hash, '-') || ' ' || coalesce(shop_verifier, '-') FROM staff
         ORDER BY folded",
    );
    let lines: Vec<&str> = shop_pins.lines().collect();
    assert!(
        lines[0].starts_with("$argon2id$") && lines[0].ends_with(" -"),
        "{shop_pins}"
    );
    assert!(lines[1].starts_with("- $2a$10$"), "{shop_pins}");
    assert!(!shop_pins.contains("9999") && !shop_pins.contains("2468"));
    // A desk's login reads no member, verifier or token, and writes none.
    for sql in [
        "SELECT pin_hash FROM staff",
        "SELECT * FROM staff_tokens",
        "SELECT * FROM staff_log",
        "UPDATE staff SET role = 'manager'",
        "INSERT INTO staff_applied VALUES ('x', 1, now())",
        "SELECT * FROM staff_turn FOR UPDATE",
    ] {
        let refused = counter
            .shop
            .client()
            .batch_execute(sql)
            .await
            .expect_err(sql);
        assert_eq!(
            refused.code(),
            Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
            "{sql}: {refused}"
        );
    }

    // A reset by the manager reaches the counter: the old PIN stops working.
    let hash = hash_pin(&pin("1357")).expect("hashed");
    staff::reset_pin(&office.shop, &office.id, &token, "Ayşe", &hash)
        .await
        .expect("reset");
    // The counter's own PIN tries go first; a member with a try still waiting is not mirrored.
    counter.push().await;
    counter.pull_staff().await;
    assert!(matches!(
        counter.sign_in("Ayşe", "2468", now()),
        Err(StaffError::WrongPin { .. })
    ));
    counter.sign_in("Ayşe", "1357", now()).expect("the new PIN");
    // A manager's PIN is the owner's to reset, and a name is taken once.
    let manager_hash = hash_pin(&pin("0000")).expect("hashed");
    let e = staff::reset_pin(&office.shop, &office.id, &token, "Zeynep", &manager_hash)
        .await
        .expect_err("not from a desk");
    assert_eq!(code(&e), staff::MANAGER_PIN_IS_OWNERS);
    let e = office
        .add_clerk(&token, "AYşE", "1111")
        .await
        .expect_err("taken");
    assert_eq!(code(&e), staff::NAME_TAKEN);
    // A manager added by a manager gets a verifier only the shop makes.
    staff::add(
        &office.shop,
        &office.id,
        &token,
        "Mert",
        &NewPin::Manager(pin("8888")),
    )
    .await
    .expect("a second manager");
    assert!(matches!(
        counter.check("Mert", "8888").await,
        ManagerChecked::Right { .. }
    ));
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT string_agg(coalesce(manager, '-') || ':' || action || ':' || subject, ' | '
                 ORDER BY id) FROM staff_log WHERE action LIKE 'staff%'"
        ),
        "Zeynep:staff add:Ayşe (counter) | Zeynep:staff reset-pin:Ayşe | \
         Zeynep:staff add:Mert (manager)"
    );
}

#[tokio::test]
async fn manager_pins_are_counted_in_the_shop_and_a_token_ends_at_sign_out_idle_and_disabling() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let a = Desk::join(&url, "Counter 1").await;
    let b = Desk::join(&url, "Counter 2").await;
    add_manager(&pg, &url, "Zeynep", "9999").await;
    add_manager(&pg, &url, "Mert", "8888").await;

    // Three misses at A and two at B: the fifth starts the wait on every desk at once.
    for _ in 0..3 {
        assert!(matches!(
            a.check("Zeynep", "0000").await,
            ManagerChecked::Wrong {
                wait_seconds: None,
                ..
            }
        ));
    }
    assert!(matches!(
        b.check("Zeynep", "0000").await,
        ManagerChecked::Wrong {
            wait_seconds: None,
            ..
        }
    ));
    assert_eq!(
        b.check("Zeynep", "0000").await,
        ManagerChecked::Wrong {
            name: "Zeynep".to_owned(),
            wait_seconds: Some(30)
        }
    );
    for desk in [&a, &b] {
        assert!(
            matches!(
                desk.check("Zeynep", "9999").await,
                ManagerChecked::Waiting { .. }
            ),
            "the right PIN waits on every desk"
        );
    }
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT misses FROM staff WHERE folded = 'zeynep'"
        ),
        "5",
        "a try during the wait is not counted"
    );
    // The owner's reset clears the count.
    add_manager(&pg, &url, "Zeynep", "9999").await;

    // A token works at its own desk only, until sign-out.
    let token = a.token("Zeynep", "9999").await;
    a.add_clerk(&token, "Can", "4321").await.expect("added");
    let e = staff::add(
        &b.shop,
        &b.id,
        &token,
        "Deniz",
        &NewPin::Clerk(hash_pin(&pin("1111")).expect("hashed")),
    )
    .await
    .expect_err("another desk's token");
    assert_eq!(code(&e), staff::NO_MANAGER);
    staff::sign_out(&a.shop, &a.id, &token)
        .await
        .expect("signed out");
    let e = a
        .add_clerk(&token, "Deniz", "1111")
        .await
        .expect_err("signed out");
    assert_eq!(code(&e), staff::NO_MANAGER);

    // 15 idle minutes end it.
    let token = a.token("Zeynep", "9999").await;
    pg.admin_sql(
        url.dbname(),
        "UPDATE staff_tokens SET used_at = now() - interval '16 minutes' WHERE ended_at IS NULL",
    );
    let e = a
        .add_clerk(&token, "Deniz", "1111")
        .await
        .expect_err("idle");
    assert_eq!(code(&e), staff::NO_MANAGER);

    // Disabling a manager ends their tokens; the last active manager stays one, even when two
    // desks each disable one at once.
    let mert = b.token("Mert", "8888").await;
    let zeynep = a.token("Zeynep", "9999").await;
    staff::set_active(&a.shop, &a.id, &zeynep, "Mert", false)
        .await
        .expect("Zeynep disables Mert");
    let e = staff::set_active(&b.shop, &b.id, &mert, "Zeynep", false)
        .await
        .expect_err("Mert's token ended with him");
    assert_eq!(code(&e), staff::NO_MANAGER);
    let zeynep_at_b = b.token("Zeynep", "9999").await;
    let e = staff::set_active(&b.shop, &b.id, &zeynep_at_b, "Zeynep", false)
        .await
        .expect_err("the last active manager");
    assert_eq!(code(&e), staff::LAST_MANAGER);
    assert_eq!(
        b.check("Mert", "8888").await,
        ManagerChecked::Disabled("Mert".to_owned())
    );
    assert_eq!(
        b.check("Can", "4321").await,
        ManagerChecked::NotManager("Can".to_owned())
    );
}

#[tokio::test]
async fn wrong_clerk_pins_on_two_desks_add_up_and_a_resent_push_counts_nothing_twice() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Counter 1").await;
    let mut b = Desk::join(&url, "Counter 2").await;
    add_manager(&pg, &url, "Zeynep", "9999").await;
    let token = a.token("Zeynep", "9999").await;
    a.add_clerk(&token, "Can", "4321").await.expect("added");
    a.pull_staff().await;
    b.pull_staff().await;

    // Three misses on A, two on B (not yet pushed, as on a desk offline): neither desk alone
    // reached the fifth, so neither waits.
    for (desk, n) in [(&a, 3), (&b, 2)] {
        for i in 0..n {
            let e = desk.sign_in("Can", "0000", now() + Duration::seconds(i));
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
    // A right PIN with nothing to clear changes nothing in the shop: no desk has to pull.
    b.sign_in("Can", "4321", later).expect("the PIN");
    assert_eq!(b.push().await.staff_rows, 1);
    assert_eq!(a.pull_staff().await, StaffPulled::Unchanged);
}

#[tokio::test]
async fn what_a_clerk_writes_into_the_outbox_changes_nothing_in_the_shop() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut till = Desk::join(&url, "Counter 1").await;
    add_manager(&pg, &url, "Zeynep", "9999").await;
    let token = till.token("Zeynep", "9999").await;
    till.add_clerk(&token, "Ayşe", "2468").await.expect("added");
    till.pull_staff().await;
    let before = pg.admin_sql(
        url.dbname(),
        "SELECT string_agg(name || ':' || role || ':' || active || ':' || misses || ':' ||
             coalesce(locked_until::text, '-') || ':' || coalesce(shop_verifier, '-'), ' '
             ORDER BY folded) FROM staff",
    );
    // What a clerk with `sqlite3` and the desk's own code can queue while the shop is down:
    // herself a manager, a PIN of her own for the manager, the manager's PIN tried until
    // locked out, and a wrong PIN of hers dated 2100.
    {
        let mut store = till.store();
        store
            .staff_add(
                &Actor::nobody(),
                &StaffName::parse("Kötü").expect("a name"),
                Role::Manager,
                &pin("1111"),
                now(),
            )
            .expect("queued on the desk");
        store
            .staff_reset_pin(&Actor::nobody(), "Zeynep", &pin("1111"), now())
            .expect("queued on the desk");
    }
    // The PIN she wrote into the file for the manager signs nobody in: on a joined desk a
    // manager's PIN is checked by the shop alone.
    assert_eq!(
        till.sign_in("Zeynep", "1111", now()),
        Err(StaffError::ManagerNeedsShop("Zeynep".to_owned()))
    );
    for i in 0..6 {
        let _ = till.sign_in("Zeynep", "0000", now() + Duration::seconds(i));
    }
    let year_2100 = "2100-01-01T00:00:00Z".parse().expect("a time");
    let _ = till.sign_in("Ayşe", "0000", year_2100);
    let pushed = till.push().await;
    assert_eq!(pushed.staff_refused, 3, "{pushed:?}");
    let after = pg.admin_sql(
        url.dbname(),
        "SELECT string_agg(name || ':' || role || ':' || active || ':' || misses || ':' ||
             coalesce(locked_until::text, '-') || ':' || coalesce(shop_verifier, '-'), ' '
             ORDER BY folded) FROM staff",
    );
    assert_eq!(after, before, "the shop's staff are as they were");
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT string_agg(action || ':' || subject, ' | ' ORDER BY id) FROM staff_log
             WHERE action LIKE 'refused%'"
        ),
        "refused: a member pushed by a desk:Kötü (manager) | \
         refused: a member pushed by a desk:Zeynep (manager)"
    );
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT kind || ':' || login FROM push_refusals"
        ),
        format!("time in the future:{ROLE}")
    );
    // The desk reads the shop's staff back: the manager's PIN is the shop's again.
    till.pull_staff().await;
    assert_eq!(
        till.members(),
        vec![
            ("Ayşe".to_owned(), Role::Counter, true),
            ("Zeynep".to_owned(), Role::Manager, true)
        ]
    );
    assert_eq!(
        till.sign_in("Zeynep", "1111", now()),
        Err(StaffError::ManagerNeedsShop("Zeynep".to_owned()))
    );
    assert!(matches!(
        till.check("Zeynep", "9999").await,
        ManagerChecked::Right { .. }
    ));
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
    add_manager(&pg, &url, "Zeynep", "9999").await;
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
