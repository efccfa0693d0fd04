//! The shop-wide catalog under the shop's authority (schema step 13) against a real PostgreSQL
//! (the private cluster of `tests/support/pg.rs`): managers' imports and barcode edits made in
//! the shop with their tokens each end with one whole catalog, never half of one or a union of
//! two; a barcode another item has is refused; a desk's outbox brings its catalog only into a
//! shop that has none; a desk scans on with its mirror while the shop is away, and what it
//! changed meanwhile does not reach the shop.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::support::pg::{self, PASSWORD, Pg};
use crate::support::shop::{Desk, connect, fresh_shop};
use paydesk::domain::{Barcode, CatalogVariant, Pin, StaffName};
use paydesk::shop::catalog::{self, CatalogPulled};
use paydesk::shop::staff::{self, ManagerChecked};
use paydesk::shop::{ShopError, ShopUrl, push};
use paydesk::store::{CatalogOwed, Store};
use zeroize::Zeroizing;

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

/// The owner adds manager Zeynep (PIN 9999) to the shop at `url`.
async fn zeynep(pg: &Pg, url: &ShopUrl) {
    paydesk::shop::owner::add_manager(
        &ShopUrl::parse(&pg.owner_url(url.dbname())).expect("the owner's URL"),
        &Zeroizing::new(PASSWORD.to_owned()),
        &StaffName::parse("Zeynep").expect("a name"),
        &Pin::parse("9999").expect("a PIN"),
    )
    .await
    .expect("a manager");
}

impl Desk {
    /// Zeynep's token at this desk.
    async fn manager(&self) -> Zeroizing<String> {
        let pin = Pin::parse("9999").expect("a PIN");
        match staff::manager_check(&self.shop, &self.id, "Zeynep", &pin, true, "test")
            .await
            .expect("the shop answers")
        {
            ManagerChecked::Right {
                token: Some(token), ..
            } => token,
            other => panic!("not signed in: {other:?}"),
        }
    }

    /// A manager's import of `csv` at this desk with `token`, made in the shop: its snapshot.
    async fn put_csv(&self, token: &str, csv: &str) -> i64 {
        catalog::put(&self.shop, &self.id, token, &self.after_import(csv))
            .await
            .expect("imported")
    }

    /// The desk's catalog with `csv` imported, as a joined desk sends it; nothing written.
    fn after_import(&self, csv: &str) -> Vec<CatalogVariant> {
        self.store
            .lock()
            .expect("the store")
            .catalog_after_import(csv.as_bytes())
            .expect("parsed")
            .1
    }
}

/// The SQLSTATE of a shop refusal.
fn code_of(e: &ShopError) -> &str {
    match e {
        ShopError::Database { code, .. } => code,
        other => panic!("not a database refusal: {other:?}"),
    }
}

/// Holds the catalog's turn (the owner-only row) in a superuser's session until `waiters`
/// sessions wait for a lock, then lets go: the changes that wait run at once.
async fn hold_catalog_turn_until(pg: &Pg, db: &str, waiters: i64) -> impl Future<Output = ()> {
    let holder = pg.superuser(db).await;
    holder
        .batch_execute("BEGIN; SELECT 1 FROM catalog_turn FOR UPDATE;")
        .await
        .expect("the turn held");
    async move {
        loop {
            let waiting: i64 = holder
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity
                     WHERE wait_event_type = 'Lock' AND datname = current_database()",
                    &[],
                )
                .await
                .expect("pg_stat_activity")
                .get(0);
            if waiting == waiters {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        holder.batch_execute("COMMIT").await.expect("released");
    }
}

#[tokio::test]
async fn two_managers_importing_at_once_each_end_with_one_whole_catalog() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Counter 1").await;
    let mut b = Desk::join(&url, "Back office").await;
    zeynep(&pg, &url).await;
    let (ta, tb) = (a.manager().await, b.manager().await);
    let (na, nb) = (800, 600);
    let (cat_a, cat_b) = (
        a.after_import(&catalog_csv("a", na, 1_000_000)),
        b.after_import(&catalog_csv("b", nb, 2_000_000)),
    );
    let (want_a, want_b) = (expected("a", na), expected("b", nb));

    // A desk's own login cannot take the catalog's turn, and an advisory lock it holds on the
    // key the catalog used before stalls nobody.
    let e = a
        .shop
        .client()
        .batch_execute("BEGIN; SELECT 1 FROM catalog_turn FOR UPDATE")
        .await
        .expect_err("owner-only");
    assert_eq!(
        e.code(),
        Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE)
    );
    a.shop
        .client()
        .batch_execute("ROLLBACK")
        .await
        .expect("ended");
    let squatter = connect(&url).await.expect("a desk's session");
    squatter
        .client()
        .batch_execute("SELECT pg_advisory_lock(8097887077094615875)")
        .await
        .expect("any session may take an advisory lock");

    // A third session reads the shop's catalog over and over while both imports run; a fourth
    // holds the turn until both wait for it, so they run at once.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = watch(&url, done.clone(), want_a.clone(), want_b.clone());
    let release = hold_catalog_turn_until(&pg, url.dbname(), 2).await;
    let (pa, pb, ()) = tokio::join!(
        catalog::put(&a.shop, &a.id, &ta, &cat_a),
        catalog::put(&b.shop, &b.id, &tb, &cat_b),
        release
    );
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(watcher.await.expect("the reader ran") > 0);
    let (sa, sb) = (pa.expect("A's import"), pb.expect("B's import"));

    // The last commit won, whole.
    let db = url.dbname();
    let winner = if sa > sb {
        want_a.clone()
    } else {
        want_b.clone()
    };
    assert_eq!(
        pg.admin_sql(db, "SELECT snapshot FROM catalog_current"),
        sa.max(sb).to_string()
    );
    assert_eq!(
        pg.admin_sql(db, "SELECT count(*) FROM catalog_variants"),
        winner.len().to_string(),
        "only the current snapshot's variants are kept"
    );
    assert_eq!(
        pg.admin_sql(
            db,
            "SELECT string_agg(manager || ':' || action || ':' || subject, ' | ' ORDER BY id)
             FROM staff_log WHERE action LIKE 'catalog%'"
        )
        .lines()
        .count(),
        1
    );
    for desk in [&mut a, &mut b] {
        assert!(matches!(
            desk.pull_catalog().await,
            CatalogPulled::Mirrored { variants, .. } if variants == winner.len()
        ));
    }
    let (ca, cb) = (a.catalog(), b.catalog());
    assert_eq!(ids(&ca), winner, "desk A holds exactly the winning catalog");
    assert_eq!(
        ca, cb,
        "both desks hold the same catalog, prices and barcodes too"
    );
    assert!(matches!(
        a.pull_catalog().await,
        CatalogPulled::Unchanged(_)
    ));
}

/// `desk` sends `owed` again: the shop finds its snapshot and makes nothing current.
async fn resend_changes_nothing(desk: &mut Desk, owed: &CatalogOwed, snapshot: i64) {
    let again = catalog::apply_catalog(&mut desk.shop, &desk.id, owed)
        .await
        .expect("applied again");
    assert_eq!(
        again,
        catalog::CatalogApplied {
            snapshot: Some(snapshot),
            made_current: false,
        }
    );
}

#[tokio::test]
async fn a_desk_brings_its_catalog_to_an_empty_shop_once_and_a_repriced_one_is_refused() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Counter 1").await;
    let mut b = Desk::join(&url, "Counter 2").await;
    let db = url.dbname();
    // A's catalog, queued as a join queues it.
    a.import(&catalog_csv("a", 50, 1_000_000));
    let owed = a
        .store
        .lock()
        .expect("the store")
        .outbox_catalog()
        .expect("read")
        .expect("a catalog is owed");
    assert_eq!(owed.variants.len(), 50);
    let first = catalog::apply_catalog(&mut a.shop, &a.id, &owed)
        .await
        .expect("applied");
    assert!(first.made_current);
    let snapshot = first.snapshot.expect("taken into an empty shop");
    let state = || {
        pg.admin_sql(
            db,
            "SELECT (SELECT snapshot || ':' || xmin::text FROM catalog_current) || ' '
                 || (SELECT count(*) FROM catalog_snapshots) || ' '
                 || (SELECT count(*) FROM catalog_variants)",
        )
    };
    let before = state();
    // A dies before deleting its outbox row: the resend finds its snapshot.
    resend_changes_nothing(&mut a, &owed, snapshot).await;
    assert_eq!(state(), before, "not even a row version");
    assert_eq!(a.push_stored().await.catalogs, 0);
    assert_eq!(state(), before);

    // B, a clerk at the till with `sqlite3` or the desk's own code while the shop was away,
    // reprices the catalog in its file: the shop has a catalog, so it refuses it.
    assert!(matches!(
        b.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 50, .. }
    ));
    b.import("id,name,unit_price,currency\na-0001,a item 1,0.01,TRY\n");
    assert_eq!(b.scan("1000001").as_deref(), Some("a-0001"));
    assert_eq!(b.push_stored().await.catalogs, 0);
    assert_eq!(state(), before, "the shop's catalog is as it was");
    assert_eq!(
        pg.admin_sql(db, "SELECT kind FROM push_refusals"),
        "a catalog pushed by a desk"
    );
    // B forgot its snapshot: the next pull puts the shop's prices back.
    assert!(matches!(
        b.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 50, .. }
    ));
    assert_eq!(a.catalog(), b.catalog());
}

#[tokio::test]
async fn a_barcode_moved_onto_another_item_is_refused_and_an_edit_goes_on_the_current_catalog() {
    let Some(pg) = pg::cluster() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Back office").await;
    let mut b = Desk::join(&url, "Counter 1").await;
    zeynep(&pg, &url).await;
    let (ta, tb) = (a.manager().await, b.manager().await);
    a.put_csv(&ta, &catalog_csv("a", 20, 1_000_000)).await;
    b.pull_catalog().await;
    // The cheap item's barcode cannot go onto the dear one while the cheap one has it.
    let code = |c: &str| Barcode::parse(c).expect("a barcode");
    let e = catalog::set_barcode(&b.shop, &b.id, &tb, "a-0019", Some(&code("1000000")))
        .await
        .expect_err("taken");
    assert_eq!(code_of(&e), catalog::BARCODE_TAKEN);
    assert!(e.to_string().contains("a-0000|a item 0"), "{e}");
    let e = catalog::set_barcode(&b.shop, &b.id, &tb, "nope", Some(&code("7777777")))
        .await
        .expect_err("no such item");
    assert_eq!(code_of(&e), catalog::NO_ITEM);
    let e = catalog::set_barcode(&b.shop, &b.id, "not a token", "a-0003", None)
        .await
        .expect_err("no manager");
    assert_eq!(code_of(&e), staff::NO_MANAGER);

    // B's edit, made after A imports again, goes on A's newer import.
    a.put_csv(&ta, &catalog_csv("a", 25, 1_000_000)).await;
    catalog::set_barcode(&b.shop, &b.id, &tb, "a-0003", Some(&code("7777777")))
        .await
        .expect("edited");
    for desk in [&mut a, &mut b] {
        assert!(matches!(
            desk.pull_catalog().await,
            CatalogPulled::Mirrored { variants: 25, .. }
        ));
        assert_eq!(desk.scan("7777777").as_deref(), Some("a-0003"));
        assert_eq!(desk.scan("1000003"), None);
        assert_eq!(
            desk.scan("1000024").as_deref(),
            Some("a-0024"),
            "A's import kept"
        );
    }
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT string_agg(manager || ':' || action || ':' || subject, ' | ' ORDER BY id)
             FROM staff_log WHERE action LIKE 'catalog%'"
        ),
        "Zeynep:catalog import:20 items | Zeynep:catalog import:25 items | \
         Zeynep:catalog edit:a-0003 barcode 7777777"
    );
}

#[tokio::test]
async fn a_desk_cut_off_from_the_shop_scans_with_its_mirror_and_its_edit_never_reaches_the_shop() {
    let Some(pg) = pg::alone() else { return };
    let url = fresh_shop(&pg).await;
    let mut a = Desk::join(&url, "Back office").await;
    let mut b = Desk::join(&url, "Counter 1").await;
    zeynep(&pg, &url).await;
    let token = a.manager().await;
    a.put_csv(&token, &catalog_csv("a", 40, 1_000_000)).await;
    assert!(matches!(
        b.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 40, .. }
    ));

    pg.stop_immediate();
    let away = connect(&url).await.expect_err("the shop is down");
    assert!(away.is_no_answer(), "{away:?}");
    // Scanning goes on with the mirror. An edit written into the desk's file meanwhile (the
    // app refuses it offline; a clerk with `sqlite3` does not ask) waits in the outbox.
    assert_eq!(b.scan("1000039").as_deref(), Some("a-0039"));
    b.set_barcode("a-0001", "5555555");
    assert_eq!(b.scan("5555555").as_deref(), Some("a-0001"));

    pg.start();
    b.shop = connect(&url).await.expect("back");
    // The shop refuses it; the desk takes the shop's catalog back.
    assert_eq!(b.push_stored().await.catalogs, 0);
    assert!(matches!(
        b.pull_catalog().await,
        CatalogPulled::Mirrored { variants: 40, .. }
    ));
    assert_eq!(b.scan("5555555"), None);
    assert_eq!(b.scan("1000001").as_deref(), Some("a-0001"));
    a.shop = connect(&url).await.expect("back");
    assert!(matches!(
        a.pull_catalog().await,
        CatalogPulled::Mirrored { .. } | CatalogPulled::Unchanged(_)
    ));
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
    let applied = catalog::apply_catalog(&mut a.shop, &a.id, &owed)
        .await
        .expect("applied");
    let payload = tokio::time::timeout(std::time::Duration::from_secs(10), heard.recv())
        .await
        .expect("notified within 10 s")
        .expect("a payload");
    assert_eq!(payload, applied.snapshot.expect("taken").to_string());
    // A resend makes nothing current, so nothing is notified: the next notification heard is
    // the next snapshot's.
    catalog::apply_catalog(&mut a.shop, &a.id, &owed)
        .await
        .expect("resent");
    zeynep(&pg, &url).await;
    let token = a.manager().await;
    a.put_csv(&token, &catalog_csv("a", 6, 1_000_000)).await;
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
