//! The shop-wide catalog against a real PostgreSQL (the private cluster of
//! `tests/support/pg.rs`): desks on their own data folders import, push and pull; each ends
//! with one whole catalog, never half of one or a union of two, and scans on with its mirror
//! while the shop is away.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::support::pg::{self, Pg};
use crate::support::shop::{Desk, connect, fresh_shop};
use paydesk::domain::{Barcode, CatalogVariant};
use paydesk::shop::catalog::{self, CatalogPulled};
use paydesk::shop::{ShopUrl, push};
use paydesk::store::{CatalogOwed, Store};

impl Desk {
    fn import(&self, csv: &str) {
        let done = self
            .store
            .lock()
            .expect("the store")
            .catalog_import_csv(csv.as_bytes())
            .expect("imported");
        assert!(done.errors.is_empty(), "{:?}", done.errors);
    }

    /// Gives variant `id` the barcode `code` on this desk.
    fn set_barcode(&self, id: &str, code: &str) {
        let code = Barcode::parse(code).expect("a shop code");
        self.store
            .lock()
            .expect("the store")
            .catalog_set_barcode(id, Some(&code))
            .expect("edited");
    }

    fn catalog(&self) -> Vec<CatalogVariant> {
        self.store
            .lock()
            .expect("the store")
            .catalog()
            .list()
            .expect("the catalog")
    }

    fn scan(&self, code: &str) -> Option<String> {
        let code = Barcode::parse(code).expect("a barcode");
        self.store
            .lock()
            .expect("the store")
            .catalog()
            .by_barcode(&code)
            .expect("a look-up")
            .map(|v| v.id)
    }

    async fn push_stored(&mut self) -> push::Pushed {
        push::push(&mut self.shop, &self.store, crate::support::time::t_stored)
            .await
            .expect("pushed")
    }

    async fn pull_catalog(&mut self) -> CatalogPulled {
        catalog::pull_catalog(&mut self.shop, &self.store)
            .await
            .expect("pulled")
    }
}

/// A catalog CSV of `n` variants `PREFIX-i` (shop-code barcodes from `first_code`).
fn catalog_csv(prefix: &str, n: usize, first_code: usize) -> String {
    let mut csv = String::from("id,name,unit_price,currency,barcode\n");
    for i in 0..n {
        writeln!(
            csv,
            "{prefix}-{i:04},{prefix} item {i},{}.50,TRY,{}",
            10 + i,
            first_code + i
        )
        .expect("written");
    }
    csv
}

fn ids(variants: &[CatalogVariant]) -> BTreeSet<String> {
    variants.iter().map(|v| v.id.clone()).collect()
}

fn expected(prefix: &str, n: usize) -> BTreeSet<String> {
    (0..n).map(|i| format!("{prefix}-{i:04}")).collect()
}

/// A session that reads the shop's catalog over and over until `done`, asserting that every
/// read is nothing yet, all of `one` or all of `other`; how many reads it made.
fn watch(
    url: &ShopUrl,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
    one: BTreeSet<String>,
    other: BTreeSet<String>,
) -> tokio::task::JoinHandle<usize> {
    let url = url.clone();
    tokio::spawn(async move {
        let mut reader = connect(&url).await.expect("the reader connects");
        let mut reads = 0;
        loop {
            let last = done.load(std::sync::atomic::Ordering::SeqCst);
            let read = catalog::current_catalog(&mut reader, None)
                .await
                .expect("read");
            let got = read.map(|(_, v)| ids(&v));
            assert!(
                got.as_ref().is_none_or(|g| *g == one || *g == other),
                "a reader saw {} variants, neither one catalog",
                got.map_or(0, |g| g.len())
            );
            reads += 1;
            if last {
                return reads;
            }
        }
    })
}

/// Holds the catalog lock in its own session until `waiters` sessions wait for it, then
/// lets go: the pushes that wait run at once.
async fn hold_catalog_lock_until(url: &ShopUrl, waiters: i64) -> impl Future<Output = ()> {
    let holder = connect(url).await.expect("the holder connects");
    holder
        .client()
        .execute("BEGIN", &[])
        .await
        .expect("a transaction");
    holder
        .client()
        .execute(
            "SELECT pg_advisory_xact_lock($1)",
            &[&catalog::CATALOG_LOCK],
        )
        .await
        .expect("locked");
    async move {
        loop {
            let waiting: i64 = holder
                .client()
                .query_one(
                    "SELECT count(*) FROM pg_locks
                     WHERE locktype = 'advisory' AND NOT granted
                       AND database = (SELECT oid FROM pg_database
                                       WHERE datname = current_database())",
                    &[],
                )
                .await
                .expect("pg_locks")
                .get(0);
            if waiting == waiters {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        holder
            .client()
            .execute("COMMIT", &[])
            .await
            .expect("released");
    }
}

#[tokio::test]
async fn two_desks_importing_at_once_each_end_with_one_whole_catalog() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Counter 1").await;
    let mut b = Desk::join(&url, "Back office").await;
    let (na, nb) = (800, 600);
    a.import(&catalog_csv("a", na, 1_000_000));
    b.import(&catalog_csv("b", nb, 2_000_000));
    let (want_a, want_b) = (expected("a", na), expected("b", nb));

    // A third session reads the shop's catalog over and over while both pushes run; a fourth
    // holds the catalog lock until both pushes wait for it, so they run at once.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = watch(&url, done.clone(), want_a.clone(), want_b.clone());
    let release = hold_catalog_lock_until(&url, 2).await;
    let (pa, pb, ()) = tokio::join!(a.push_stored(), b.push_stored(), release);
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(watcher.await.expect("the reader ran") > 0);
    assert_eq!(
        (pa.catalogs, pb.catalogs),
        (1, 1),
        "each push made a snapshot"
    );

    // The last commit won, whole.
    let db = url.dbname();
    let snapshots = pg.admin_sql(
        db,
        "SELECT desk_id || ':' || snapshot FROM catalog_snapshots ORDER BY snapshot",
    );
    let last_desk = snapshots
        .lines()
        .last()
        .and_then(|l| l.split(':').next())
        .expect("two snapshots")
        .to_owned();
    assert_eq!(snapshots.lines().count(), 2, "{snapshots}");
    let winner = if last_desk == a.id {
        want_a.clone()
    } else {
        want_b.clone()
    };
    assert_eq!(
        pg.admin_sql(
            db,
            "SELECT (SELECT snapshot FROM catalog_current) = max(snapshot) FROM catalog_snapshots"
        ),
        "t"
    );
    assert_eq!(
        pg.admin_sql(db, "SELECT count(*) FROM catalog_variants"),
        winner.len().to_string(),
        "only the current snapshot's variants are kept"
    );

    for desk in [&mut a, &mut b] {
        let pulled = desk.pull_catalog().await;
        let mine = desk.id == last_desk;
        if mine {
            assert!(matches!(pulled, CatalogPulled::Unchanged(_)), "{pulled:?}");
        } else {
            assert!(
                matches!(pulled, CatalogPulled::Mirrored { variants, .. } if variants == winner.len()),
                "{pulled:?}"
            );
        }
    }
    let (ca, cb) = (a.catalog(), b.catalog());
    assert_eq!(ids(&ca), winner, "desk A holds exactly the winning catalog");
    assert_eq!(
        ca, cb,
        "both desks hold the same catalog, prices and barcodes too"
    );
    // The loser's barcodes are gone with its catalog; the winner's scan on both desks.
    let (hit, gone) = if last_desk == a.id {
        ("1000007", "2000007")
    } else {
        ("2000007", "1000007")
    };
    for desk in [&a, &b] {
        assert!(desk.scan(hit).is_some());
        assert_eq!(desk.scan(gone), None);
    }
    // A second pull finds nothing new.
    assert!(matches!(
        a.pull_catalog().await,
        CatalogPulled::Unchanged(_)
    ));
}

/// `desk` sends `owed` again: the shop finds its snapshot and makes nothing current.
async fn resend_changes_nothing(desk: &mut Desk, owed: &CatalogOwed, snapshot: i64) {
    let again = catalog::apply_catalog(
        &mut desk.shop,
        &desk.id,
        owed,
        crate::support::time::t_stored(),
    )
    .await
    .expect("applied again");
    assert_eq!(
        again,
        catalog::CatalogApplied {
            snapshot,
            made_current: false,
            as_on_desk: true,
        }
    );
}

#[tokio::test]
async fn a_resent_catalog_push_changes_nothing() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Counter 1").await;
    let mut b = Desk::join(&url, "Counter 2").await;
    let db = url.dbname();
    let now = crate::support::time::t_stored();
    a.import(&catalog_csv("a", 50, 1_000_000));
    let owed = a
        .store
        .lock()
        .expect("the store")
        .outbox_catalog()
        .expect("read")
        .expect("a catalog is owed");
    assert_eq!(owed.variants.len(), 50);
    let first = catalog::apply_catalog(&mut a.shop, &a.id, &owed, now)
        .await
        .expect("applied");
    assert!(first.made_current);
    // Desk A dies before deleting its outbox row; meanwhile desk B's catalog becomes current.
    b.import(&catalog_csv("b", 30, 2_000_000));
    assert_eq!(b.push_stored().await.catalogs, 1);
    let state = || {
        pg.admin_sql(
            db,
            "SELECT (SELECT snapshot || ':' || xmin::text FROM catalog_current) || ' '
                 || (SELECT count(*) FROM catalog_snapshots) || ' '
                 || (SELECT count(*) FROM catalog_variants)",
        )
    };
    let before = state();
    resend_changes_nothing(&mut a, &owed, first.snapshot).await;
    assert_eq!(
        state(),
        before,
        "the resend changed nothing, not even a row version"
    );
    // A restarts: its push resends the row, changes nothing, and the pull brings B's catalog.
    let pushed = a.push_stored().await;
    assert_eq!(pushed.catalogs, 0);
    assert_eq!(state(), before);
    assert_eq!(
        a.store
            .lock()
            .expect("the store")
            .outbox()
            .count()
            .expect("len"),
        0
    );
    assert!(matches!(
        a.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 30, .. }
    ));
    assert_eq!(ids(&a.catalog()), expected("b", 30));

    // A barcode edit resent after another import became current is found by its outbox row
    // (what it gave depended on the catalog it went on) and changes nothing either.
    b.set_barcode("b-0001", "7777777");
    let owed = b
        .store
        .lock()
        .expect("the store")
        .outbox_catalog()
        .expect("read")
        .expect("an edit is owed");
    assert_eq!(owed.edits.as_ref().map(Vec::len), Some(1));
    let first = catalog::apply_catalog(&mut b.shop, &b.id, &owed, now)
        .await
        .expect("applied");
    assert!(first.made_current && first.as_on_desk, "{first:?}");
    a.import(&catalog_csv("b", 31, 2_000_000));
    assert_eq!(a.push_stored().await.catalogs, 1);
    let before = state();
    resend_changes_nothing(&mut b, &owed, first.snapshot).await;
    assert_eq!(state(), before);
}

#[tokio::test]
async fn a_barcode_edit_made_before_another_desks_import_goes_on_top_of_it_not_over_it() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Back office").await;
    let mut b = Desk::join(&url, "Counter 1").await;
    assert_eq!(b.pull_catalog().await, CatalogPulled::NoneShared);
    a.import(&catalog_csv("a", 20, 1_000_000));
    a.push_stored().await;
    assert!(matches!(
        b.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 20, .. }
    ));
    assert_eq!(b.scan("1000003").as_deref(), Some("a-0003"));

    // B gives a-0003 a new barcode; before B pushes, A imports again and pushes.
    b.set_barcode("a-0003", "7777777");
    a.import(&catalog_csv("a", 25, 1_000_000));
    a.push_stored().await;
    // B's pull does not overwrite its waiting edit.
    assert_eq!(b.pull_catalog().await, CatalogPulled::Waiting);
    assert_eq!(b.scan("7777777").as_deref(), Some("a-0003"));
    // B's push puts its edit on top of A's newer import, not its older copy of the catalog:
    // the shop has A's 25 items with B's barcode on a-0003, and both desks mirror that.
    assert_eq!(b.push_stored().await.catalogs, 1);
    assert!(matches!(
        a.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 25, .. }
    ));
    assert_eq!(a.scan("7777777").as_deref(), Some("a-0003"));
    assert_eq!(a.scan("1000003"), None);
    assert_eq!(
        a.scan("1000024").as_deref(),
        Some("a-0024"),
        "A's import kept"
    );
    assert!(matches!(
        b.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 25, .. }
    ));
    assert_eq!(a.catalog(), b.catalog());
}

#[tokio::test]
async fn a_desk_cut_off_from_the_shop_scans_with_its_mirror_and_sends_its_edit_on_reconnect() {
    let Some(pg) = pg::alone() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Back office").await;
    let mut b = Desk::join(&url, "Counter 1").await;
    a.import(&catalog_csv("a", 40, 1_000_000));
    a.push_stored().await;
    assert!(matches!(
        b.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 40, .. }
    ));

    pg.stop_immediate();
    let away = connect(&url).await.expect_err("the shop is down");
    assert!(away.is_no_answer(), "{away:?}");
    // Scanning goes on with the mirror, and an edit waits in the outbox.
    assert_eq!(b.scan("1000039").as_deref(), Some("a-0039"));
    b.set_barcode("a-0001", "5555555");
    assert_eq!(b.scan("5555555").as_deref(), Some("a-0001"));
    let failed = push::push(&mut b.shop, &b.store, crate::support::time::t_stored).await;
    assert!(failed.is_err(), "the old session is gone");
    assert_eq!(
        b.store
            .lock()
            .expect("the store")
            .outbox()
            .count()
            .expect("len"),
        1
    );

    pg.start();
    b.shop = connect(&url).await.expect("back");
    a.shop = connect(&url).await.expect("back");
    assert_eq!(b.push_stored().await.catalogs, 1);
    assert!(matches!(
        a.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 40, .. }
    ));
    assert_eq!(a.scan("5555555").as_deref(), Some("a-0001"));
    assert_eq!(a.catalog(), b.catalog());
}

#[test]
fn a_desk_that_has_not_joined_owes_the_shop_no_catalog() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut store = Store::open(dir.path()).expect("the store opens");
    store
        .catalog_import_csv(catalog_csv("a", 3, 1_000_000).as_bytes())
        .expect("imported");
    assert_eq!(store.outbox().count().expect("len"), 0);
    assert_eq!(store.outbox_catalog().expect("read"), None);
    store
        .join_shop(
            "postgres://desk@localhost:5432/shop?sslmode=prefer",
            crate::support::time::t_stored(),
        )
        .expect("joined");
    store
        .catalog_import_csv(catalog_csv("a", 4, 1_000_000).as_bytes())
        .expect("imported");
    store.catalog_set_barcode("a-0000", None).expect("edited");
    // Two changes, one row: the catalog goes whole, as it is when pushed.
    assert_eq!(store.outbox().count().expect("len"), 1);
    let owed = store.outbox_catalog().expect("read").expect("owed");
    assert_eq!(owed.variants.len(), 4);
    assert_eq!(owed.variants[0].barcode, None);
}

/// Listens on `channel` in the shop's database `db` (as the superuser, over the socket) and
/// hands each notification's payload over the returned channel.
async fn listen(
    pg: &Pg,
    db: &str,
    channel: &str,
) -> (tokio_postgres::Client, tokio::sync::mpsc::Receiver<String>) {
    let (client, mut connection) = tokio_postgres::Config::new()
        .host_path(pg.socket_dir())
        .port(pg.port())
        .user("postgres")
        .dbname(db)
        .connect(tokio_postgres::NoTls)
        .await
        .expect("the listener connects");
    // The test's own listener on its own connection: waiting on a full channel stalls only it.
    let (tx, rx) = tokio::sync::mpsc::channel(1024);
    tokio::spawn(async move {
        while let Some(Ok(message)) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            if let tokio_postgres::AsyncMessage::Notification(n) = message {
                let _ = tx.send(n.payload().to_owned()).await;
            }
        }
    });
    client
        .batch_execute(&format!("LISTEN {channel}"))
        .await
        .expect("listening");
    (client, rx)
}

#[tokio::test]
async fn a_new_current_snapshot_is_notified_with_its_number_and_a_resend_is_not() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let (_listener, mut heard) = listen(&pg, url.dbname(), catalog::CHANNEL).await;
    let mut a = Desk::join(&url, "Back office").await;
    a.import(&catalog_csv("a", 5, 1_000_000));
    let owed = a
        .store
        .lock()
        .expect("the store")
        .outbox_catalog()
        .expect("read")
        .expect("owed");
    let applied =
        catalog::apply_catalog(&mut a.shop, &a.id, &owed, crate::support::time::t_stored())
            .await
            .expect("applied");
    let payload = tokio::time::timeout(std::time::Duration::from_secs(10), heard.recv())
        .await
        .expect("notified within 10 s")
        .expect("a payload");
    assert_eq!(payload, applied.snapshot.to_string());
    // A resend makes nothing current, so nothing is notified: the next notification heard is
    // the next snapshot's.
    catalog::apply_catalog(&mut a.shop, &a.id, &owed, crate::support::time::t_stored())
        .await
        .expect("resent");
    a.import(&catalog_csv("a", 6, 1_000_000));
    assert_eq!(a.push_stored().await.catalogs, 1);
    let next = tokio::time::timeout(std::time::Duration::from_secs(10), heard.recv())
        .await
        .expect("notified within 10 s")
        .expect("a payload");
    assert_ne!(next, payload);
    assert_eq!(
        pg.admin_sql(url.dbname(), "SELECT snapshot FROM catalog_current"),
        next
    );
}
