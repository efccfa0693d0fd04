//! One poller per link for the whole shop, for real: desks on their own data folders, one
//! sandbox (its request log counts what the API was asked), and the private PostgreSQL
//! cluster of `tests/support/pg.rs` (skipped with a sentence naming the package when it is not
//! installed, a failure under `PAYDESK_REQUIRE_POSTGRES=1`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::pg::{self, PASSWORD, Pg};
use chrono::Utc;
use paydesk::api::endpoints;
use paydesk::board::{Budget, Next, Pace, Refresher};
use paydesk::domain::{Link, LinkStatus};
use paydesk::sandbox::SandboxHandle;
use paydesk::service::poll::{self, BUDGET_PATIENCE, Polled};
use paydesk::service::{Desk, SANDBOX_PROFILE, Services};
use paydesk::shop::lease::{self, Ask, LinkKey};
use paydesk::shop::push::Pushed;
use paydesk::shop::session::{ShopReader, Timing};
use paydesk::shop::{self, Shop, ShopUrl, schema};
use paydesk::store::Store;
use tokio::sync::OwnedMappedMutexGuard;
use zeroize::Zeroizing;

/// The shop's password as paydesk holds it.
fn password() -> Zeroizing<String> {
    Zeroizing::new(PASSWORD.to_owned())
}

/// A new shop: a fresh database over loopback (plain: this machine), its schema migrated.
pub(crate) async fn new_shop(pg: &Pg) -> ShopUrl {
    let db = pg.fresh_db();
    let url = ShopUrl::parse(&pg.url("127.0.0.1", &db, "sslmode=disable")).expect("a shop URL");
    let shop = shop::connect(&url, &password(), shop::CONNECT_TIMEOUT)
        .await
        .expect("the shop connects");
    // The owner's `shop init` made it (a desk never migrates); the desk reads its version.
    let version = schema::version(shop.client(), &url)
        .await
        .expect("the version reads");
    assert_eq!(version, schema::latest_version());
    url
}

/// The reader's limits in these tests: a question may take long on a loaded machine.
fn timing() -> Timing {
    Timing {
        query: Duration::from_secs(10),
        ..Timing::default()
    }
}

/// A desk of the shop: its own data folder and services, joined and registered, with the
/// profile `test` at `base_url` (the demo key) and a reader over a connection of its own,
/// as the session gives the app.
pub(crate) struct ShopDesk {
    pub(crate) id: String,
    pub(crate) services: Services,
    pub(crate) reader: ShopReader,
    _dir: tempfile::TempDir,
}

impl ShopDesk {
    pub(crate) async fn join(url: &ShopUrl, name: &str, base_url: &str) -> ShopDesk {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut store = Store::open(dir.path()).expect("the store opens");
        let now = Utc::now();
        store
            .join_shop(&url.to_string(), now)
            .expect("the join is recorded");
        let id = store.profiles().device_id().expect("a device id");
        let identity = shop::desk::DeskIdentity {
            id: id.clone(),
            name: name.to_owned(),
            named: true,
        };
        shop::desk::join(url, &password(), &identity)
            .await
            .expect("the desk joins");
        let services =
            crate::support::services::library_services(store, base_url, Duration::from_secs(10));
        let shop = shop::connect(url, &password(), shop::CONNECT_TIMEOUT)
            .await
            .expect("the shop connects");
        ShopDesk {
            id,
            services,
            reader: ShopReader::over(shop, timing()),
            _dir: dir,
        }
    }

    /// The link `id` of `profile` in this desk's own history.
    pub(crate) fn local(&self, profile: &str, id: &str) -> Option<paydesk::store::StoredLink> {
        self.services
            .inspect(|s| s.links().get(profile, id))
            .expect("the data file answers")
    }

    /// The desk's connection, for a question of the test's own.
    pub(crate) async fn conn(&self) -> OwnedMappedMutexGuard<Option<Shop>, Shop> {
        self.reader
            .connection()
            .await
            .expect("the shop's connection")
    }

    /// Pushes the desk's outbox to the shop, as its session does after a change.
    pub(crate) async fn push(&self) -> Pushed {
        self.services
            .push_to_shop(&mut *self.conn().await)
            .await
            .expect("the outbox reaches the shop")
    }

    pub(crate) fn desk(&self, profile: &str) -> Desk {
        self.services
            .desk(profile)
            .expect("the desk of the profile")
    }

    /// Creates a link of `amount` TRY on `profile` and pushes it to the shop; its key there.
    async fn create(&mut self, profile: &str, amount: &str) -> (LinkKey, Link) {
        let desk = self.desk(profile);
        let order = desk.next_order_number().expect("an order number");
        let link = desk
            .create_link(&crate::support::links::link_request(&order, amount))
            .await
            .expect("the link is created");
        self.push().await;
        (desk.shop_key(&link.id).expect("its key"), link)
    }
}

/// The link-detail requests the sandbox received, oldest first (sandbox times, ms).
fn status_requests(sandbox: &SandboxHandle) -> Vec<i64> {
    sandbox
        .admin()
        .requests()
        .into_iter()
        .filter(|r| r.endpoint == endpoints::LINK_DETAIL.name)
        .map(|r| r.at_ms)
        .collect()
}

/// The board's schedule in these tests: each link every 4 s (no doubling), one request a
/// second in all.
fn test_budget() -> Budget {
    let pace = Pace {
        first: Duration::from_secs(4),
        max: Duration::from_secs(4),
    };
    Budget {
        board: pace,
        focused: pace,
        gap: Duration::from_secs(1),
    }
}

/// What one desk's board did.
#[derive(Debug, Default, Clone)]
struct BoardRun {
    asked: u32,
    shared: u32,
    spent: u32,
    /// When each ask that ended in a status request began (Unix ms).
    asked_from: Vec<i64>,
}

/// The shop's budget held: the grants of the status requests were at least a second apart.
///
/// PostgreSQL granted each request between the moment its ask began (`began`) and the moment
/// it reached the sandbox (`arrived`); the machine's clock is the one of both and of
/// PostgreSQL. Sorted apart, the k-th ask to begin began no later than the k-th grant, and the
/// (k+1)-th request to arrive arrived no sooner than the (k+1)-th grant, so grants a second
/// apart mean `arrived[k+1] - began[k] >= 1000` however late the machine's scheduling made a
/// request: the assertion cannot fail on a loaded machine, only when the budget let two
/// requests go within a second.
fn assert_a_second_between_grants(began: &[i64], arrived: &[i64]) {
    let mut began = began.to_vec();
    began.sort_unstable();
    assert_eq!(began.len(), arrived.len(), "{began:?} {arrived:?}");
    for k in 1..arrived.len() {
        assert!(
            arrived[k] - began[k - 1] >= 1000,
            "grants less than a second apart: began {began:?}, arrived {arrived:?}"
        );
    }
}

/// Unix milliseconds now.
fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// Runs one desk's board as the app will: its own [`Refresher`] over `links`, each `Ask`
/// going through the shop ([`poll::poll_in_shop`], fresh for the link's interval), each answer
/// (the server's, or the shop's) fed back, until `until`.
async fn run_board(
    desk: ShopDesk,
    links: Vec<(LinkKey, Link)>,
    until: Instant,
) -> (ShopDesk, BoardRun) {
    let through = desk.desk("test");
    let keys: BTreeMap<String, LinkKey> = links
        .iter()
        .map(|(k, l)| (l.id.clone(), k.clone()))
        .collect();
    let mut refresher = Refresher::new(test_budget());
    refresher.sync_board(links.into_iter().map(|(_, l)| (l, Utc::now())), Utc::now());
    let mut run = BoardRun::default();
    let mut seq = 0;
    while Instant::now() < until {
        match refresher.next(Utc::now()) {
            Next::Ask(id) => {
                seq += 1;
                let fresh_for = refresher.interval_of(&id).unwrap_or_default();
                let began = now_ms();
                let polled = poll::poll_in_shop(
                    &desk.reader,
                    &through,
                    &keys[&id],
                    fresh_for,
                    BUDGET_PATIENCE,
                )
                .await
                .expect("the shop and the sandbox answer");
                match polled {
                    Polled::Asked { link } => {
                        desk.push().await;
                        run.asked += 1;
                        run.asked_from.push(began);
                        refresher.answered(&id, seq, Some(&link), Utc::now());
                    }
                    Polled::Shared { known, .. } => {
                        run.shared += 1;
                        refresher.answered(&id, seq, known.as_ref(), Utc::now());
                    }
                    Polled::BudgetSpent { .. } => {
                        run.spent += 1;
                        refresher.lost();
                    }
                    Polled::Foreign => panic!("a link of the shop's account is this desk's"),
                }
            }
            Next::At(at) => {
                let wait = (at - Utc::now()).to_std().unwrap_or_default();
                tokio::time::sleep(wait.min(until.saturating_duration_since(Instant::now()))).await;
            }
            Next::Waiting | Next::Idle => panic!("one desk, open links: always a next ask"),
        }
    }
    (desk, run)
}

/// A shop of `desks` desks on one sandbox, whose first desk made two open links: each desk's
/// board runs for `window`; the sandbox's status requests and what each board did.
async fn boards(pg: &Pg, desks: usize, window: Duration) -> (Vec<i64>, Vec<BoardRun>) {
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(pg).await;
    let mut all = Vec::new();
    for i in 0..desks {
        all.push(ShopDesk::join(&url, &format!("Counter {}", i + 1), &sandbox.base_url()).await);
    }
    let first = all.first_mut().expect("a desk");
    let links = vec![
        first.create("test", "10.00").await,
        first.create("test", "20.00").await,
    ];
    sandbox.admin().clear_requests();
    let until = Instant::now() + window;
    let runs: Vec<_> = all
        .into_iter()
        .map(|d| tokio::spawn(run_board(d, links.clone(), until)))
        .collect();
    let mut done = Vec::new();
    for r in runs {
        done.push(r.await.expect("the board ran").1);
    }
    (status_requests(&sandbox), done)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_desks_ask_the_api_no_more_than_one_desk_and_never_twice_within_a_second() {
    let Some(pg) = pg::cluster() else { return };
    // Two links, each due every 4 s: one desk asks at about 4, 5, 8 and 9 s. The window ends
    // 2 s after that and 1 s before the next, so a loaded machine's delays change no count.
    let window = Duration::from_secs(11);
    let ((one, one_runs), (five, five_runs)) =
        tokio::join!(boards(&pg, 1, window), boards(&pg, 5, window));
    println!("1 desk: {one:?} {one_runs:?}\n5 desks: {five:?} {five_runs:?}");
    assert!(one.len() >= 2, "one desk asked: {one:?} {one_runs:?}");
    assert!(
        five.len() <= one.len(),
        "5 desks made {} status requests, 1 desk {} ({five_runs:?})",
        five.len(),
        one.len()
    );
    assert!(
        five_runs.iter().filter(|r| r.shared > 0).count() >= 4,
        "the other desks read the shop's answer instead: {five_runs:?}"
    );
    let began: Vec<i64> = five_runs
        .iter()
        .flat_map(|r| r.asked_from.iter().copied())
        .collect();
    assert_a_second_between_grants(&began, &five);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn day_close_refreshes_of_five_desks_at_once_share_one_request_a_second() {
    let Some(pg) = pg::cluster() else { return };
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(&pg).await;
    let mut desks = Vec::new();
    for i in 0..5 {
        let mut d = ShopDesk::join(&url, &format!("Counter {}", i + 1), &sandbox.base_url()).await;
        let (key, _) = d.create("test", "15.00").await;
        desks.push((d, key));
    }
    sandbox.admin().clear_requests();
    let began = now_ms();
    // Every desk's Refresh at the same moment, each about its own link.
    let runs: Vec<_> = desks
        .into_iter()
        .map(|(d, key)| {
            tokio::spawn(async move {
                let desk = d.desk("test");
                let polled = poll::refresh_for_day_close(&d.reader, &desk, &key)
                    .await
                    .expect("the shop and the sandbox answer");
                (polled.asked(), d)
            })
        })
        .collect();
    for r in runs {
        let (asked, _desk) = r.await.expect("the refresh ran");
        assert!(asked, "each desk's own link is asked about");
    }
    let asked = status_requests(&sandbox);
    println!("5 day close refreshes: {asked:?}");
    assert_eq!(asked.len(), 5);
    // Every grant came after `began`, a second after the one before: the k-th request (from
    // 0) arrived at least k seconds after `began`, however the machine scheduled it.
    for (k, at) in asked.iter().enumerate() {
        let k = i64::try_from(k).expect("five");
        assert!(
            at - began >= 1000 * k,
            "request {k} arrived {} ms after the refreshes began: {asked:?}",
            at - began
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_paid_on_the_sandbox_reads_completed_on_every_desk_after_one_poll() {
    let Some(pg) = pg::cluster() else { return };
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(&pg).await;
    let mut desks = Vec::new();
    for name in ["Counter 1", "Counter 2", "Back office"] {
        desks.push(ShopDesk::join(&url, name, &sandbox.base_url()).await);
    }
    let (key, link) = desks[0].create("test", "42.50").await;
    assert_eq!(link.status, LinkStatus::Pending);
    sandbox
        .admin()
        .pay(&link.id, None)
        .expect("the link is paid");
    sandbox.admin().clear_requests();
    // Counter 2 holds the lease and asks; the answer is pushed after the poll.
    let holder = desks[1].id.clone();
    let through = desks[1].desk("test");
    let polled = poll::poll_in_shop(
        &desks[1].reader,
        &through,
        &key,
        Duration::ZERO,
        BUDGET_PATIENCE,
    )
    .await
    .expect("polled");
    let Polled::Asked { link: answer } = polled else {
        panic!("the first desk to ask polls: {polled:?}");
    };
    assert_eq!(answer.status, LinkStatus::Completed);
    assert_eq!(desks[1].push().await.rows, 1);
    // Counter 2 asked for Counter 1: the link stays out of Counter 2's own history (and so its
    // day close), and the shop keeps it as Counter 1's.
    assert!(
        desks[1].local("test", &link.id).is_none(),
        "not Counter 2's link"
    );
    let claimed = shop_row(&desks[2], &link.id).await;
    assert_eq!(claimed.desk_id, desks[0].id);
    // Counter 2's answer is a claim of payment until a second desk's own call confirms it.
    assert!(claimed.unconfirmed(), "{claimed:?}");
    assert_eq!(claimed.claim_desk.as_deref(), Some(holder.as_str()));
    assert_eq!(
        claimed.stored("test", &desks[2].id).unconfirmed,
        Some(LinkStatus::Completed),
        "the other desks read the last confirmed status, the claim beside it"
    );
    maker_confirms_with_its_own_call(&desks[0], &key, &claimed.link).await;
    assert!(
        !shop_row(&desks[2], &link.id).await.unconfirmed(),
        "confirmed by the maker's own call"
    );
    // Every desk reads the confirmed answer from the shop; Back office asks nothing more.
    for d in &mut desks {
        let known = lease::known(&*d.conn().await, &key)
            .await
            .expect("the shop answers")
            .expect("the shop knows the link");
        assert_eq!(known.status, LinkStatus::Completed, "desk {}", d.id);
        assert_eq!(known.paid_so_far(), link.amount_or_zero());
    }
    let through = desks[2].desk("test");
    let again = poll::poll_in_shop(
        &desks[2].reader,
        &through,
        &key,
        Duration::ZERO,
        BUDGET_PATIENCE,
    )
    .await
    .expect("asked");
    match again {
        Polled::Shared {
            by,
            held: true,
            known: Some(l),
        } => {
            assert_eq!(by, holder);
            assert_eq!(l.status, LinkStatus::Completed);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        status_requests(&sandbox).len(),
        2,
        "the poller's call and the maker's own, no more"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payment_one_desk_made_up_is_contradicted_by_another_desks_own_call_and_never_shown_paid()
{
    let Some(pg) = pg::cluster() else { return };
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(&pg).await;
    let mut till = ShopDesk::join(&url, "Counter 1", &sandbox.base_url()).await;
    let office = ShopDesk::join(&url, "Back office", &sandbox.base_url()).await;
    let (key, link) = till.create("test", "100").await;
    // A clerk at the till marks the link paid in the desk's file; its push reaches the shop
    // (the shop cannot tell a desk's own answer from one written by hand).
    push_paid(&till, &key, &link).await;
    // Back office reads the claim: paid, not yet confirmed; its views show the link pending.
    let shown = shop_row(&office, &link.id).await.stored("test", &office.id);
    assert_eq!(shown.link.status, LinkStatus::Pending);
    assert_eq!(shown.unconfirmed, Some(LinkStatus::Completed));
    // Its own call asks the API, which says pending: the claim is contradicted, on record.
    let through = office.desk("test");
    let polled = poll_until_asked_with(&office, &through, &key).await;
    assert!(
        matches!(&polled, Polled::Asked { link } if link.status == LinkStatus::Pending),
        "{polled:?}"
    );
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT claimed || ' ' || seen || ' ' || (claim_desk = desk_id)::text
             FROM link_contradictions"
        ),
        "COMPLETED PENDING false"
    );
    let after = shop_row(&office, &link.id).await;
    assert!(after.unconfirmed(), "still a claim no desk confirmed");
    assert_eq!(
        after.stored("", &office.id).link.status,
        LinkStatus::Pending
    );
    // The contradiction is on the back office's own audit record, naming claim and answer.
    let filter = paydesk::store::AuditFilter {
        action: Some("link.contradicted".to_owned()),
        ..Default::default()
    };
    let rows = office
        .services
        .inspect(|s| s.audit().list(&filter))
        .expect("the audit reads");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0].subject.starts_with(&link.id)
            && rows[0]
                .subject
                .contains(&format!("claimed COMPLETED 100.00 by {}", till.id))
            && rows[0]
                .subject
                .ends_with("the payment API said PENDING 0.00"),
        "{rows:?}"
    );

    // A second link the till claims paid that nobody has asked about yet.
    let (key2, link2) = till.create("test", "40").await;
    pg.claim_paid(url.dbname(), &link2.id, &till.id);
    // Day close at the back office counts neither payment: both apart, by their last
    // confirmed state (pending), the contradicted one saying what the API told whom.
    let office_close = day_close(&office, &key, &office.id).await;
    let try_ = &office_close.currencies[0];
    assert_eq!(try_.paid.count, 0, "{office_close:?}");
    assert!(try_.collected.is_zero(), "{office_close:?}");
    assert_eq!(try_.pending, 2);
    assert_eq!(try_.unconfirmed.count, 2);
    assert_eq!(
        try_.unconfirmed.sum.exact(),
        Some(rust_decimal::Decimal::from(140))
    );
    assert_eq!(office_close.claims_apart.len(), 2);
    let contradicted = office_close
        .claims_apart
        .iter()
        .find(|c| c.link_id == link.id)
        .expect("the contradicted claim");
    assert_eq!(contradicted.claimed_by, "Counter 1");
    assert_eq!(contradicted.claimed_status, LinkStatus::Completed);
    assert_eq!(contradicted.confirmed_status, LinkStatus::Pending);
    let seen = contradicted.contradicted.as_ref().expect("contradicted");
    assert_eq!(
        (seen.by.as_str(), &seen.status),
        ("Back office", &LinkStatus::Pending)
    );
    assert!(
        office_close
            .claims_apart
            .iter()
            .any(|c| c.link_id == link2.id && c.contradicted.is_none())
    );
    // At the till, its own uncontradicted claim is what its own call told it (a shop of one
    // desk counts its payments); the contradicted one stays apart there too.
    let till_close = day_close(&till, &key2, &till.id).await;
    let try_ = &till_close.currencies[0];
    assert_eq!(try_.paid.count, 1, "{till_close:?}");
    assert_eq!(
        try_.collected.exact(),
        Some(rust_decimal::Decimal::from(40))
    );
    assert_eq!(try_.unconfirmed.count, 1);
    assert_eq!(till_close.claims_apart.len(), 1);
    assert_eq!(till_close.claims_apart[0].link_id, link.id);
}

/// Today's day close of the shop as desk `viewer` reads it, for the account of `key`, from
/// the kept totals; the same report read from the links must agree.
async fn day_close(d: &ShopDesk, key: &LinkKey, viewer: &str) -> paydesk::store::DayReport {
    let zone = paydesk::clock::Zone::hours(3);
    let today = zone.date_of(Utc::now());
    let account = key.account.key();
    let scope = shop::report::ReportScope {
        from: today,
        to: today,
        zone,
        now: Utc::now(),
        desk: None,
        account: &account,
        viewer,
    };
    let kept = shop::report::day_report(&mut *d.conn().await, &scope, String::new())
        .await
        .expect("the day close");
    let read = shop::report::day_report_from_links(&mut *d.conn().await, &scope)
        .await
        .expect("the day close from the links");
    assert_eq!(kept, read, "the kept totals and the links disagree");
    kept
}

/// Pushes `link` of desk `d` to the shop as paid in full, as a push of the desk's file edited
/// by hand would.
async fn push_paid(d: &ShopDesk, key: &LinkKey, link: &Link) {
    let mut answer =
        serde_json::to_value(paydesk::api::wire::PaymentLink::from(link)).expect("a body");
    answer["status"] = "COMPLETED".into();
    answer["paidAmount"] = answer["amount"].clone();
    let a = &key.account;
    let pushed: bool = d
        .conn()
        .await
        .client()
        .query_one(
            paydesk::shop::schema::PUSH_LINK,
            &[
                &d.id,
                &a.base_url,
                &a.api_key_id,
                &a.sandbox_desk,
                &link.id,
                &d.id,
                &None::<String>,
                &link.order_number,
                &"COMPLETED",
                &"TRY",
                &link.amount,
                &link.amount,
                &None::<chrono::DateTime<Utc>>,
                &Utc::now(),
                &Utc::now(),
                &answer.to_string(),
            ],
        )
        .await
        .expect("pushed")
        .get(0);
    assert!(pushed);
}

/// Asks about `key` from `d` until it asks the API itself (a confirming call waits for the
/// shop's budget), at most 10 tries.
async fn poll_until_asked_with(d: &ShopDesk, through: &Desk, key: &LinkKey) -> Polled {
    for _ in 0..10 {
        let polled = poll::poll_in_shop(&d.reader, through, key, Duration::ZERO, BUDGET_PATIENCE)
            .await
            .expect("asked");
        if polled.asked() {
            return polled;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the desk never asked the API");
}

/// The shop's row of link `id`, read by desk `d`.
async fn shop_row(d: &ShopDesk, id: &str) -> shop::read::ShopLink {
    shop::read::link(&*d.conn().await, id)
        .await
        .expect("the shop answers")
        .expect("the shop has it")
}

/// The maker `d` of the link `key`, which another desk claims paid (`claimed`): it never takes
/// the payment from the shop into its history, but asks the API itself within the shop's
/// budget (the lease is the other desk's), and its own answer goes into its history.
async fn maker_confirms_with_its_own_call(d: &ShopDesk, key: &LinkKey, claimed: &Link) {
    let through = d.desk("test");
    let status = || {
        d.local("test", &key.link_id)
            .expect("its own link")
            .link
            .status
    };
    assert!(!through.take_shared(claimed).expect("the file answers"));
    assert_eq!(status(), LinkStatus::Pending);
    let polled = poll::poll_in_shop(&d.reader, &through, key, Duration::ZERO, BUDGET_PATIENCE)
        .await
        .expect("asked");
    assert!(
        matches!(&polled, Polled::Asked { link } if link.status == LinkStatus::Completed),
        "{polled:?}"
    );
    assert_eq!(status(), LinkStatus::Completed);
}

/// Asks (through the shop) until this desk polls the link, every 100 ms up to `deadline`:
/// the first answer, and when the desk polled.
async fn poll_until_asked(
    d: &mut ShopDesk,
    key: &LinkKey,
    deadline: Duration,
) -> (Polled, Instant) {
    let through = d.desk("test");
    let end = Instant::now() + deadline;
    let mut first = None;
    loop {
        let polled = poll::poll_in_shop(&d.reader, &through, key, Duration::ZERO, BUDGET_PATIENCE)
            .await
            .expect("asked");
        if polled.asked() {
            return (first.unwrap_or(polled), Instant::now());
        }
        first.get_or_insert(polled);
        assert!(
            Instant::now() < end,
            "not polled within {deadline:?}: {first:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desk_that_dies_loses_its_leases_within_ten_seconds_and_another_takes_over() {
    let Some(pg) = pg::cluster() else { return };
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(&pg).await;
    let mut a = ShopDesk::join(&url, "Counter 1", &sandbox.base_url()).await;
    let mut b = ShopDesk::join(&url, "Counter 2", &sandbox.base_url()).await;
    let (key, _) = a.create("test", "12.00").await;
    let through = a.desk("test");
    let polled = poll::poll_in_shop(&a.reader, &through, &key, Duration::ZERO, BUDGET_PATIENCE)
        .await
        .expect("polled");
    assert!(polled.asked(), "{polled:?}");
    // Counter 1 dies: its session and services go, nothing given back.
    let a_id = a.id.clone();
    drop(through);
    drop(a);
    let died = Instant::now();
    let (first, took_over) = poll_until_asked(&mut b, &key, Duration::from_secs(15)).await;
    let after = took_over - died;
    println!("taken over {after:?} after the holder died");
    assert!(
        matches!(&first, Polled::Shared { by, held: true, .. } if *by == a_id),
        "the dead desk's lease held first: {first:?}"
    );
    assert!(
        after <= Duration::from_secs(10),
        "taken over after {after:?}"
    );
    assert!(
        b.local("test", &key.link_id).is_none(),
        "asked for the desk that died, not taken into Counter 2's history"
    );
    assert_eq!(
        status_requests(&sandbox).len(),
        2,
        "one poll each, never two at once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desk_that_leaves_cleanly_gives_its_leases_back_at_once() {
    let Some(pg) = pg::cluster() else { return };
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(&pg).await;
    let mut a = ShopDesk::join(&url, "Counter 1", &sandbox.base_url()).await;
    let mut b = ShopDesk::join(&url, "Counter 2", &sandbox.base_url()).await;
    let (key, _) = a.create("test", "13.00").await;
    let through = a.desk("test");
    let polled = poll::poll_in_shop(&a.reader, &through, &key, Duration::ZERO, BUDGET_PATIENCE)
        .await
        .expect("polled");
    assert!(polled.asked(), "{polled:?}");
    assert_eq!(
        lease::release_all(&*a.conn().await, &a.id)
            .await
            .expect("released"),
        1
    );
    let waited = Instant::now();
    let (first, _) = poll_until_asked(&mut b, &key, Duration::from_secs(5)).await;
    assert!(first.asked(), "the lease was free at once: {first:?}");
    // Only the budget's one second stood between the two polls.
    assert!(
        waited.elapsed() < Duration::from_secs(3),
        "{:?}",
        waited.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desks_sandbox_links_and_another_accounts_links_are_never_granted_elsewhere() {
    let Some(pg) = pg::cluster() else { return };
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(&pg).await;
    let mut a = ShopDesk::join(&url, "Counter 1", &sandbox.base_url()).await;
    let b = ShopDesk::join(&url, "Counter 2", &sandbox.base_url()).await;
    // A link of Counter 1's built-in sandbox, listed shop-wide under Counter 1's id.
    let (own, _) = a.create(SANDBOX_PROFILE, "9.00").await;
    assert_eq!(own.account.sandbox_desk, a.id);
    assert!(
        lease::known(&*b.conn().await, &own)
            .await
            .expect("read")
            .is_some(),
        "listed shop-wide"
    );
    // Counter 2's own sandbox is not Counter 1's: refused before and inside PostgreSQL, even
    // for a desk that claims the link's account.
    let b_sandbox = b.desk(SANDBOX_PROFILE);
    let polled = poll::poll_in_shop(&b.reader, &b_sandbox, &own, Duration::ZERO, BUDGET_PATIENCE)
        .await
        .expect("asked");
    assert!(matches!(polled, Polled::Foreign), "{polled:?}");
    let claimed = lease::ask(&*b.conn().await, &b.id, &own, &own.account, Duration::ZERO)
        .await
        .expect("asked");
    assert_eq!(claimed, Ask::Foreign);
    // Counter 1 itself is granted.
    let granted = lease::ask(&*a.conn().await, &a.id, &own, &own.account, Duration::ZERO)
        .await
        .expect("asked");
    assert!(matches!(granted, Ask::Granted { .. }), "{granted:?}");

    // A link of the shared account, and desks whose profile is another account: another key
    // id on the same server, the same key id on another server, the built-in sandbox.
    let (shared, _) = a.create("test", "11.00").await;
    sandbox.admin().clear_requests();
    let base = sandbox.base_url();
    for (name, base_url, key_id) in [
        ("other-key", base.as_str(), "another-key"),
        (
            "other-server",
            "http://127.0.0.1:9",
            paydesk::sandbox::DEMO_API_KEY,
        ),
    ] {
        b.services
            .inspect(|s| {
                s.profile_add(
                    &paydesk::store::Profile::new(name, base_url, key_id),
                    Utc::now(),
                )
            })
            .expect("a profile");
        let other = b.desk(name);
        let polled =
            poll::poll_in_shop(&b.reader, &other, &shared, Duration::ZERO, BUDGET_PATIENCE)
                .await
                .expect("asked");
        assert!(matches!(polled, Polled::Foreign), "{name}: {polled:?}");
    }
    let polled = poll::poll_in_shop(
        &b.reader,
        &b_sandbox,
        &shared,
        Duration::ZERO,
        BUDGET_PATIENCE,
    )
    .await
    .expect("asked");
    assert!(matches!(polled, Polled::Foreign), "sandbox: {polled:?}");
    assert!(status_requests(&sandbox).is_empty(), "nothing was asked");
    let leases = pg.admin_sql(
        url.dbname(),
        &format!(
            "SELECT count(*) FROM poll_leases WHERE desk_id = '{}'",
            b.id
        ),
    );
    assert_eq!(leases, "0", "Counter 2 holds no lease");
    // Through the matching profile, Counter 2 is granted.
    let matching = b.desk("test");
    let polled = poll::poll_in_shop(
        &b.reader,
        &matching,
        &shared,
        Duration::ZERO,
        BUDGET_PATIENCE,
    )
    .await
    .expect("asked");
    assert!(polled.asked(), "{polled:?}");
}

/// The one component that decides shop or desk (`service::shared::Reads`): while the shop
/// answers, History's pages, the day close and the CSV export are every desk's, each row
/// naming its desk; while the shop's connection stays busy past the reader's limit, the same
/// reads are this desk's own file's, and say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_come_from_the_shop_while_it_answers_and_from_the_desk_when_it_does_not() {
    use paydesk::service::LinkQuery;
    use paydesk::service::shared::{Reads, Source};

    let Some(pg) = pg::cluster() else { return };
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(&pg).await;
    let mut a = ShopDesk::join(&url, "Counter 1", &sandbox.base_url()).await;
    let mut b = ShopDesk::join(&url, "Counter 2", &sandbox.base_url()).await;
    a.create("test", "10.00").await;
    a.create("test", "20.00").await;
    let (_, from_b) = b.create("test", "30.00").await;
    // A reader of A's own with a short limit, so that holding its connection is "no answer".
    let conn = shop::connect(&url, &password(), shop::CONNECT_TIMEOUT)
        .await
        .expect("the shop connects");
    let quick = Timing {
        query: Duration::from_secs(1),
        ..Timing::default()
    };
    let reader = ShopReader::over(conn, quick);
    let reads = Reads::new(a.desk("test"), Some((reader.clone(), a.id.clone())));
    let query = LinkQuery {
        text: None,
        status: None,
        limit: 50,
        before: None,
        staff: None,
    };
    let zone = paydesk::clock::Zone::Local;
    let today = zone.date_of(Utc::now());

    let page = reads.page(&query, None, false).await.expect("a page");
    assert_eq!(page.source, Source::Shop);
    assert_eq!(page.rows.len(), 3, "{page:?}");
    let b_row = page
        .rows
        .iter()
        .find(|l| l.stored.link.id == from_b.id)
        .expect("B's link is on A's page");
    let made_by = b_row.desk.as_ref().expect("a shop row names its desk");
    assert_eq!(made_by.name, "Counter 2");
    assert!(made_by.elsewhere);
    let own = reads.page(&query, None, true).await.expect("a page");
    assert_eq!((own.source, own.rows.len()), (Source::Shop, 2));
    let (report, source) = reads
        .day_report((today, today), zone, false)
        .await
        .expect("a report");
    assert_eq!((source, report.links), (Source::Shop, 3));
    let mut csv = Vec::new();
    let (rows, source) = reads
        .export_csv(&query, None, false, zone, &mut csv)
        .await
        .expect("an export");
    assert_eq!((rows, source), (3, Source::Shop));
    assert!(String::from_utf8_lossy(&csv).contains("Counter 2"));

    // Another question holds the shop's one connection past the reader's limit.
    let held = reader.connection().await.expect("the connection");
    let page = reads.page(&query, None, false).await.expect("a page");
    assert_eq!(page.source, Source::Desk);
    assert_eq!(page.rows.len(), 2, "only this desk's own links: {page:?}");
    assert!(page.rows.iter().all(|l| l.desk.is_none()));
    let (report, source) = reads
        .day_report((today, today), zone, false)
        .await
        .expect("a report");
    assert_eq!((source, report.links), (Source::Desk, 2));
    let mut csv = Vec::new();
    let (rows, source) = reads
        .export_csv(&query, None, false, zone, &mut csv)
        .await
        .expect("an export");
    assert_eq!((rows, source), (2, Source::Desk));
    drop(held);
    let page = reads.page(&query, None, false).await.expect("a page");
    assert_eq!((page.source, page.rows.len()), (Source::Shop, 3));
}

/// `paydesk_poll_ask` for `key` in desk `desk`'s name, asking a lease of `lease_ms`, through
/// `shop`'s login: the outcome and the wait, or PostgreSQL's refusal.
async fn ask_as(
    shop: &Shop,
    key: &LinkKey,
    desk: &str,
    lease_ms: i64,
) -> Result<(String, i64), tokio_postgres::Error> {
    let k = &key.account;
    let row = shop
        .client()
        .query_one(
            "SELECT outcome, wait_ms FROM paydesk_poll_ask($1, $2, $3, $4, $5, $6, 0)",
            &[
                &k.base_url,
                &k.api_key_id,
                &k.sandbox_desk,
                &key.link_id,
                &desk,
                &lease_ms,
            ],
        )
        .await?;
    Ok((row.get(0), row.get::<_, Option<i64>>(1).unwrap_or(-1)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desk_asks_and_releases_only_as_itself_and_holds_a_link_a_minute_at_most() {
    let Some(pg) = pg::cluster() else { return };
    let sandbox = crate::support::cli::sandbox();
    let url = new_shop(&pg).await;
    let mut a = ShopDesk::join(&url, "Counter 1", &sandbox.base_url()).await;
    let b = ShopDesk::join(&url, "Counter 2", &sandbox.base_url()).await;
    let (key, _) = a.create("test", "12.00").await;
    // Another desk's login, one of the shop's desks, cannot take a lease or give one back in
    // Counter 1's name.
    let db = url.dbname().to_owned();
    let other = format!("{db}_other");
    pg.admin_sql(
        "postgres",
        &format!(
            "CREATE ROLE {other} LOGIN PASSWORD '{}' IN ROLE \"{db}_desks\"",
            PASSWORD.replace('\'', "''")
        ),
    );
    let other_url = ShopUrl::parse(&pg.url_as(&other, "127.0.0.1", &db, "sslmode=disable"))
        .expect("a shop URL");
    let stranger = shop::connect(&other_url, &password(), shop::CONNECT_TIMEOUT)
        .await
        .expect("connects");
    let refused = ask_as(&stranger, &key, &a.id, 8000)
        .await
        .expect_err("refused");
    assert_eq!(
        refused.code().map(tokio_postgres::error::SqlState::code),
        Some("PDK03"),
        "{refused}"
    );
    let released = stranger
        .client()
        .query_one("SELECT paydesk_release_leases($1)", &[&a.id])
        .await
        .expect_err("refused");
    assert_eq!(
        released.code().map(tokio_postgres::error::SqlState::code),
        Some("PDK03"),
        "{released}"
    );
    // Asking for a year in its own name gets a minute.
    let granted = ask_as(&*b.conn().await, &key, &b.id, 365 * 24 * 3600 * 1000)
        .await
        .expect("asked");
    assert_eq!(granted, ("granted".to_owned(), 60_000));
    let held = lease::ask(&*a.conn().await, &a.id, &key, &key.account, Duration::ZERO)
        .await
        .expect("asked");
    match held {
        Ask::Held { by, remaining } => {
            assert_eq!(by, b.id);
            assert!(remaining <= Duration::from_mins(1), "{remaining:?}");
        }
        other => panic!("{other:?}"),
    }
    // Counter 2 gives its own back: Counter 1 may ask once the budget's second is up.
    let ended = lease::release_all(&*b.conn().await, &b.id)
        .await
        .expect("released");
    assert_eq!(ended, 1);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let again = lease::ask(&*a.conn().await, &a.id, &key, &key.account, Duration::ZERO)
        .await
        .expect("asked");
    assert!(matches!(again, Ask::Granted { .. }), "{again:?}");
}
