//! One poller per link for the whole shop, for real: desks on their own data folders, one
//! sandbox (its request log counts what the API was asked), and the private PostgreSQL
//! cluster of `tests/support/pg.rs` (skipped with a sentence naming the package when it is not
//! installed, a failure under `PAYDESK_REQUIRE_POSTGRES=1`).

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use chrono::Utc;
use paydesk::api::endpoints;
use paydesk::board::{Budget, Next, Pace, Refresher};
use paydesk::domain::{Link, LinkStatus};
use paydesk::sandbox::SandboxHandle;
use paydesk::service::poll::{self, BUDGET_PATIENCE, Polled};
use paydesk::service::{Desk, SANDBOX_PROFILE, Services};
use paydesk::shop::lease::{self, Account, Ask, LinkKey};
use paydesk::shop::{self, Shop, ShopUrl, schema};
use paydesk::store::Store;
use support::pg::{self, PASSWORD, Pg};
use zeroize::Zeroizing;

/// The shop's password as paydesk holds it.
fn password() -> Zeroizing<String> {
    Zeroizing::new(PASSWORD.to_owned())
}

/// A new shop: a fresh database over loopback (plain: this machine), its schema migrated.
async fn new_shop(pg: &Pg) -> ShopUrl {
    let db = pg.fresh_db();
    let url = ShopUrl::parse(&pg.url("127.0.0.1", &db, "sslmode=disable")).expect("a shop URL");
    let mut shop = shop::connect(&url, &password(), shop::CONNECT_TIMEOUT)
        .await
        .expect("the shop connects");
    let migrated = schema::migrate(shop.client_mut(), &url)
        .await
        .expect("the schema migrates");
    assert_eq!(migrated.to, schema::latest_version());
    url
}

/// A desk of the shop: its own data folder and services, joined and registered, with the
/// profile `test` at `base_url` (the demo key) and a session with the shop of its own.
struct ShopDesk {
    id: String,
    services: Services,
    shop: Shop,
    _dir: tempfile::TempDir,
}

impl ShopDesk {
    async fn join(url: &ShopUrl, name: &str, base_url: &str) -> ShopDesk {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut store = Store::open(dir.path()).expect("the store opens");
        let now = Utc::now();
        store
            .join_shop(&url.to_string(), now)
            .expect("the join is recorded");
        let id = store.device_id().expect("a device id");
        let identity = shop::desk::DeskIdentity {
            id: id.clone(),
            name: name.to_owned(),
        };
        shop::desk::join(url, &password(), &identity, now)
            .await
            .expect("the desk joins");
        let services =
            support::services::library_services(store, base_url, Duration::from_secs(10));
        let shop = shop::connect(url, &password(), shop::CONNECT_TIMEOUT)
            .await
            .expect("the shop connects");
        ShopDesk {
            id,
            services,
            shop,
            _dir: dir,
        }
    }

    fn desk(&self, profile: &str) -> Desk {
        self.services.desk(profile).expect("the desk of the profile")
    }

    /// Creates a link of `amount` TRY on `profile` and pushes it to the shop; its key there.
    async fn create(&mut self, profile: &str, amount: &str) -> (LinkKey, Link) {
        let desk = self.desk(profile);
        let order = desk.next_order_number().expect("an order number");
        let link = desk
            .create_link(&support::links::link_request(&order, amount))
            .await
            .expect("the link is created");
        shop::push::push(&mut self.shop, self.services.store(), Utc::now)
            .await
            .expect("the link reaches the shop");
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
#[derive(Debug, Default, Clone, Copy)]
struct BoardRun {
    asked: u32,
    shared: u32,
    spent: u32,
}

/// Runs one desk's board as the app will: its own [`Refresher`] over `links`, each `Ask`
/// going through the shop ([`poll::poll_in_shop`], fresh for the link's interval), each answer
/// (the server's, or the shop's) fed back, until `until`.
async fn run_board(
    mut desk: ShopDesk,
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
                let polled =
                    poll::poll_in_shop(&mut desk.shop, &through, &keys[&id], fresh_for, BUDGET_PATIENCE)
                        .await
                        .expect("the shop and the sandbox answer");
                match polled {
                    Polled::Asked { link, pushed } => {
                        pushed.expect("the answer reaches the shop");
                        run.asked += 1;
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
                tokio::time::sleep(wait.min(until.saturating_duration_since(Instant::now())))
                    .await;
            }
            Next::Waiting | Next::Idle => panic!("one desk, open links: always a next ask"),
        }
    }
    (desk, run)
}

/// A shop of `desks` desks on one sandbox, whose first desk made two open links: each desk's
/// board runs for `window`; the sandbox's status requests and what each board did.
async fn boards(pg: &Pg, desks: usize, window: Duration) -> (Vec<i64>, Vec<BoardRun>) {
    let sandbox = support::cli::sandbox();
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
    // The shop's clock spaces grants by a second; what reaches the sandbox may be late by the
    // machine's scheduling, never early by more.
    for pair in five.windows(2) {
        assert!(
            pair[1] - pair[0] >= 750,
            "two status requests {} ms apart: {five:?}",
            pair[1] - pair[0]
        );
    }
}
