//! Every desk's audit chain in the shop, against a real PostgreSQL (the private cluster of
//! `tests/support/pg.rs`): pushed whole (rows from before joining included), walked from the
//! shop desk by desk, a resend changing nothing, an edit in the shop breaking only that chain.

use std::sync::Mutex;

use crate::support::pg;
use crate::support::shop::{connect, fresh_shop, register};
use paydesk::domain::{Actor, Pin, Role, StaffName};
use paydesk::shop::audit::{self, DeskChain};
use paydesk::shop::{ShopUrl, push};
use paydesk::store::{AuditAction, ChainCheck, Store};

/// A desk with a few audit rows written before it joins and one after.
async fn desk(url: &ShopUrl, name: &str, manager: &str) -> (tempfile::TempDir, Mutex<Store>) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut store = Store::open(dir.path()).expect("the store opens");
    let now = crate::support::time::t_stored();
    store
        .staff_add(
            &Actor::nobody(),
            &StaffName::parse(manager).expect("a name"),
            Role::Manager,
            &Pin::parse("9999").expect("a PIN"),
            now,
        )
        .expect("added");
    store
        .staff_sign_in(manager, &Pin::parse("9999").expect("a PIN"), "app", now)
        .expect("signed in");
    store.join_shop(&url.to_string(), now).expect("joined");
    store
        .catalog_import_csv("id,name,unit_price,currency\nv-1,Çay,10,TRY\n".as_bytes())
        .expect("imported");
    register(url, &store, name).await;
    (dir, Mutex::new(store))
}

fn local_chain(store: &Mutex<Store>) -> ChainCheck {
    store
        .lock()
        .expect("the store")
        .audit()
        .verify(None)
        .expect("verified")
}

#[tokio::test]
async fn every_desks_chain_reaches_the_shop_whole_and_a_resend_changes_nothing() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let (_a_dir, a) = desk(&url, "Back office", "Zeynep").await;
    let (_b_dir, b) = desk(&url, "Counter 1", "Mert").await;
    let mut shop = connect(&url).await.expect("the shop connects");
    let now = crate::support::time::t_stored;
    for store in [&a, &b] {
        let pushed = push::push(&mut shop, store, now).await.expect("pushed");
        assert_eq!(pushed.audit_rows, 3, "the rows from before joining too");
    }
    let chains = audit::verify_shop(&shop).await.expect("walked");
    let want = |name: &str, store: &Mutex<Store>| {
        let desk_id = store
            .lock()
            .expect("the store")
            .profiles()
            .device_id()
            .expect("an id");
        DeskChain {
            desk_id,
            name: name.to_owned(),
            check: local_chain(store),
        }
    };
    assert_eq!(chains, vec![want("Back office", &a), want("Counter 1", &b)]);
    assert!(matches!(chains[0].check, ChainCheck::Whole { rows: 3, .. }));

    // A resend (the desk died before it knew) changes nothing, not even a row version.
    let versions = || {
        pg.admin_sql(
            url.dbname(),
            "SELECT string_agg(xmin::text, ',' ORDER BY desk_id, seq) FROM audit",
        )
    };
    let before = versions();
    let again = push::push(&mut shop, &a, now).await.expect("pushed");
    assert_eq!(again.audit_rows, 0);
    assert_eq!(versions(), before);

    // A new row on A goes on its chain; B's is untouched.
    sign_in(&a, now());
    let pushed = push::push(&mut shop, &a, now).await.expect("pushed");
    assert_eq!(pushed.audit_rows, 1);
    let chains = audit::verify_shop(&shop).await.expect("walked");
    assert_eq!(chains[0].check, local_chain(&a));
    assert!(matches!(chains[0].check, ChainCheck::Whole { rows: 4, .. }));
    assert_eq!(chains[1].check, local_chain(&b));
}

#[tokio::test]
async fn the_shops_audit_is_append_only_and_an_edit_breaks_only_that_desks_chain() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let (_a_dir, a) = desk(&url, "Back office", "Zeynep").await;
    let (_b_dir, b) = desk(&url, "Counter 1", "Mert").await;
    let mut shop = connect(&url).await.expect("the shop connects");
    for store in [&a, &b] {
        push::push(&mut shop, store, crate::support::time::t_stored)
            .await
            .expect("pushed");
    }
    // A desk's login may not write the shop's audit at all (its rows go through the shop's
    // function); the owner's trigger refuses too.
    for sql in [
        "UPDATE audit SET subject = 'other' WHERE seq = 2",
        "DELETE FROM audit",
        "INSERT INTO audit_forks (desk_id, seq, desk_hash, shop_hash) VALUES ('x', 1, 'a', 'b')",
    ] {
        let refused = shop.client().execute(sql, &[]).await.expect_err(sql);
        assert_eq!(
            refused.code(),
            Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
            "{sql}: {refused}"
        );
    }

    // Someone with the database's owner rights edits A's second row past the trigger.
    let a_id = a
        .lock()
        .expect("the store")
        .profiles()
        .device_id()
        .expect("an id");
    pg.admin_sql(
        url.dbname(),
        &format!(
            "ALTER TABLE audit DISABLE TRIGGER audit_append_only;
             UPDATE audit SET subject = 'someone else' WHERE desk_id = '{a_id}' AND seq = 2;"
        ),
    );
    let chains = audit::verify_shop(&shop).await.expect("walked");
    assert_eq!(chains[0].desk_id, a_id);
    assert_eq!(
        chains[0].check,
        ChainCheck::Broken {
            seq: 2,
            why: "its fields do not match its hash"
        }
    );
    assert_eq!(chains[1].check, local_chain(&b));
    assert!(matches!(chains[1].check, ChainCheck::Whole { rows: 3, .. }));
}

/// Desk `store`'s manager signs in at `at` (one audit row; on a joined desk the shop checks a
/// manager's PIN, so the row is written as the sign-in writes it).
fn sign_in(store: &Mutex<Store>, at: chrono::DateTime<chrono::Utc>) {
    store
        .lock()
        .expect("the store")
        .audit_append(
            &Actor::member("Zeynep", Role::Manager),
            AuditAction::SignIn,
            "app",
            at,
        )
        .expect("signed in");
}

#[tokio::test]
async fn a_desk_put_back_from_an_older_copy_is_named_as_a_fork_and_the_shops_record_kept() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let (dir, a) = desk(&url, "Back office", "Zeynep").await;
    let (_b_dir, b) = desk(&url, "Counter 1", "Mert").await;
    let mut shop = connect(&url).await.expect("the shop connects");
    let t = crate::support::time::t_stored;
    for store in [&a, &b] {
        push::push(&mut shop, store, t).await.expect("pushed");
    }
    // A copy of Back office's file with its first 3 rows, then 2 more rows reach the shop.
    let file = dir.path().join(paydesk::store::DB_FILE);
    let copy = dir.path().join("older-copy.sqlite3");
    rusqlite::Connection::open(&file)
        .expect("the file opens")
        .execute("VACUUM INTO ?1", [copy.to_str().expect("a UTF-8 path")])
        .expect("copied");
    sign_in(&a, t() + chrono::Duration::minutes(1));
    sign_in(&a, t() + chrono::Duration::minutes(2));
    assert_eq!(
        push::push(&mut shop, &a, t)
            .await
            .expect("pushed")
            .audit_rows,
        2
    );
    let kept = || {
        pg.admin_sql(
            url.dbname(),
            "SELECT string_agg(seq || ':' || hash, ',' ORDER BY seq) FROM audit a
             JOIN desks d USING (desk_id) WHERE d.name = 'Back office'",
        )
    };
    let before = kept();

    // The file is put back from the copy: behind the shop, but no row differs yet.
    drop(a.into_inner().expect("the store"));
    for extra in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{extra}", file.display()));
    }
    std::fs::copy(&copy, &file).expect("put back");
    let a = Mutex::new(Store::open(dir.path()).expect("the store opens"));
    let behind = push::push(&mut shop, &a, t).await.expect("pushed");
    assert_eq!((behind.audit_rows, behind.audit_fork), (0, None));

    // Then it writes on: its row 4 is not the shop's row 4.
    sign_in(&a, t() + chrono::Duration::minutes(5));
    sign_in(&a, t() + chrono::Duration::minutes(6));
    let forked = push::push(&mut shop, &a, t).await.expect("pushed");
    assert_eq!(forked.audit_fork, Some(4), "{forked:?}");
    assert_eq!(forked.audit_rows, 0);
    assert_eq!(
        kept(),
        before,
        "the shop's record of the desk's past is kept"
    );
    let again = push::push(&mut shop, &a, t).await.expect("pushed");
    assert_eq!((again.audit_rows, again.audit_fork), (0, Some(4)));

    let chains = audit::verify_shop(&shop).await.expect("walked");
    assert_eq!(
        chains[0].check,
        ChainCheck::Broken {
            seq: 4,
            why: audit::FORKED
        }
    );
    assert_eq!(chains[1].check, local_chain(&b), "the other desk is whole");
}

#[tokio::test]
async fn the_shops_own_chain_holds_every_desks_rows_and_catches_a_desk_chain_rewritten_whole() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let (_a_dir, a) = desk(&url, "Back office", "Zeynep").await;
    // A name of more bytes than letters: the shop makes each row's hash as the desk does.
    let (_b_dir, b) = desk(&url, "Counter 1", "Şule Ağaoğlu").await;
    let mut shop = connect(&url).await.expect("the shop connects");
    for store in [&a, &b] {
        push::push(&mut shop, store, crate::support::time::t_stored)
            .await
            .expect("pushed");
    }
    let db = url.dbname();
    let head = pg.admin_sql(
        db,
        "SELECT shop_hash FROM audit ORDER BY shop_seq DESC LIMIT 1",
    );
    assert_eq!(
        audit::verify_shop_chain(&shop).await.expect("walked"),
        ChainCheck::Whole { rows: 6, head }
    );
    assert_eq!(
        pg.admin_sql(
            db,
            "SELECT string_agg(shop_seq::text, ',' ORDER BY shop_seq) FROM audit"
        ),
        "1,2,3,4,5,6",
        "one order across desks, as the shop took the rows"
    );
    // A forged row pushed through the function (not the desk's next row by its hash) is not
    // taken, and the shop says so.
    let a_id = a
        .lock()
        .expect("the store")
        .profiles()
        .device_id()
        .expect("an id");
    let taken: i64 = shop
        .client()
        .query_one(
            "SELECT paydesk_push_audit($1, '{4}', '{0}', '{Zeynep}', '{NULL}', '{sign-in}',
                 '{app}', ARRAY[(SELECT hash FROM audit WHERE desk_id = $1 AND seq = 3)],
                 '{forged}')",
            &[&a_id],
        )
        .await
        .expect("answered")
        .get(0);
    assert_eq!(taken, 0);
    assert_eq!(
        pg.admin_sql(
            db,
            "SELECT detail FROM push_refusals WHERE kind LIKE 'an audit%'"
        ),
        "row 4 after 3"
    );

    // Someone with the owner's rights rewrites A's last row whole, its hash made again so
    // that A's own chain still holds: the shop's chain does not.
    pg.admin_sql(
        db,
        &format!(
            "ALTER TABLE audit DISABLE TRIGGER audit_append_only;
             UPDATE audit SET subject = 'nothing happened',
                 hash = paydesk_audit_row_hash(seq, at_ms, staff, approved_by, action,
                     'nothing happened', prev_hash)
             WHERE desk_id = '{a_id}' AND seq = 3;"
        ),
    );
    let chains = audit::verify_shop(&shop).await.expect("walked");
    let a_chain = chains.iter().find(|c| c.desk_id == a_id).expect("A");
    assert!(
        matches!(a_chain.check, ChainCheck::Whole { rows: 3, .. }),
        "a desk's chain rewritten whole passes its own walk: {a_chain:?}"
    );
    let at: i64 = pg
        .admin_sql(
            db,
            &format!("SELECT shop_seq FROM audit WHERE desk_id = '{a_id}' AND seq = 3"),
        )
        .parse()
        .expect("a number");
    assert_eq!(
        audit::verify_shop_chain(&shop).await.expect("walked"),
        ChainCheck::Broken {
            seq: at,
            why: audit::SHOP_EDITED
        }
    );
    // A row taken out of the shop's chain leaves a gap there.
    pg.admin_sql(db, "DELETE FROM audit WHERE shop_seq = 1");
    assert_eq!(
        audit::verify_shop_chain(&shop).await.expect("walked"),
        ChainCheck::Broken {
            seq: 2,
            why: audit::SHOP_GAP
        }
    );
}
