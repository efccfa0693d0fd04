//! Fault campaign of exactly-once link creation (issue 4 "Done when"): hundreds of creates per
//! fault kind — lost answers after the server committed, 500s, 429s, delays past the client's
//! timeout, two concurrent submits of one order — against an in-process sandbox over loopback
//! HTTP, then the unfinished rows are resumed. Afterwards the sandbox holds exactly one link
//! per order and the local history agrees with it: no duplicate, nothing lost.
//!
//! A file-backed variant keeps the journal and history in a real `SQLite` file and kills the
//! client mid-campaign, more than once: every create in flight is dropped at whatever await
//! it had reached (a request on the wire, an answer not yet read, a backoff), the store is
//! closed and opened again from the file, the pending rows are resumed as a start does, and the
//! campaign goes on. Afterwards every order with a journal row has exactly one link on the
//! server, the same one in history; an order killed before its row was written has none.
//!
//! `cargo test --test core fault_campaign:: -- --ignored --nocapture` runs the same campaigns at
//! 10,000 creates and the file-backed one at 2,000 creates and 10 kills, and prints figures.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::cli::server_orders;
use crate::support::links::link_request;
use crate::support::services::{history_orders, library_services};
use paydesk::sandbox::{FaultKind, FaultRule};
use paydesk::sandbox::{Fixture, Sandbox, SandboxConfig};
use paydesk::service::{CreateError, Desk, Services};
use paydesk::store::{JournalRow, JournalState, Store};
use rust_decimal::Decimal;

/// One fault kind of the campaign (failures at a rate that makes some creates use up all
/// their attempts, so the resume pass is exercised too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The server commits the link, then resets the connection without an answer.
    Lost,
    /// 500 before anything is done.
    Error500,
    /// 429 before anything is done.
    RateLimit,
    /// The server waits longer than the client's whole-exchange timeout.
    DelayPastTimeout,
    /// The same order submitted twice at once (with some lost answers and delays mixed in).
    ConcurrentSubmits,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Lost => "LOST",
            Kind::Error500 => "E500",
            Kind::RateLimit => "R429",
            Kind::DelayPastTimeout => "SLOW",
            Kind::ConcurrentSubmits => "TWIN",
        }
    }

    fn rules(self) -> Vec<FaultRule> {
        let rule = |kind, delay_ms, p| FaultRule {
            endpoint: "link.create".to_owned(),
            kind,
            delay_ms,
            next: None,
            probability: Some(p),
        };
        match self {
            // Often enough that some orders use up all eight attempts (0.7^8 ≈ 6 %), so the
            // resume pass has rows to finish.
            Kind::Lost => vec![rule(FaultKind::Lost, None, 0.7)],
            Kind::Error500 => vec![rule(FaultKind::Error500, None, 0.6)],
            Kind::RateLimit => vec![rule(FaultKind::RateLimit, None, 0.6)],
            Kind::DelayPastTimeout => vec![rule(FaultKind::Delay, Some(TIMEOUT_MS * 3), 0.3)],
            Kind::ConcurrentSubmits => vec![
                rule(FaultKind::Delay, Some(15), 0.5),
                rule(FaultKind::Lost, None, 0.2),
            ],
        }
    }

    /// The client's whole-exchange timeout in this campaign.
    fn timeout(self) -> Duration {
        match self {
            Kind::DelayPastTimeout => Duration::from_millis(TIMEOUT_MS),
            _ => Duration::from_secs(5),
        }
    }
}

/// The short client timeout of the delay campaign (the fault waits three times as long).
const TIMEOUT_MS: u64 = 120;

/// What a campaign did.
#[derive(Debug, Default)]
struct Figures {
    creates: usize,
    /// Attempts that met an unknown outcome (each was retried, or left pending).
    unknown_attempts: u64,
    /// Creates that ended `Unknown` and were finished by the resume pass.
    resumed: usize,
    /// Second submits answered `InProgress` / `AlreadyHasLink` without a second link.
    refused_twins: usize,
    elapsed: Duration,
}

async fn campaign(kind: Kind, orders: usize, concurrency: usize) -> Figures {
    let mut config = SandboxConfig::new(Fixture::shipped());
    config.seed = Some(0x00C0_FFEE ^ kind as u64);
    config.faults = kind.rules();
    let sandbox = Sandbox::spawn_background(config).expect("the sandbox starts");
    let services = library_services(
        Store::open_in_memory().expect("an in-memory store"),
        &sandbox.base_url(),
        kind.timeout(),
    );
    let desk = services.desk("test").expect("the test profile's desk");
    let prefix = kind.prefix();
    let started = Instant::now();
    let limit = Arc::new(tokio::sync::Semaphore::new(concurrency));
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..orders {
        let desk = desk.clone();
        let limit = limit.clone();
        tasks.spawn(async move {
            let _permit = limit
                .acquire_owned()
                .await
                .expect("the semaphore stays open");
            let order = format!("{prefix}-{i:05}");
            let amount = format!("{}.{:02}", 10 + i % 900, i % 100);
            let request = link_request(&order, &amount);
            if kind == Kind::ConcurrentSubmits {
                let (a, b) = tokio::join!(desk.create_link(&request), desk.create_link(&request));
                (order, vec![a, b])
            } else {
                (order, vec![desk.create_link(&request).await])
            }
        });
    }
    let mut figures = Figures {
        creates: orders,
        ..Figures::default()
    };
    let mut unknown = 0usize;
    while let Some(joined) = tasks.join_next().await {
        let (order, results) = joined.expect("a create task does not panic");
        let mut got_link = 0;
        for result in results {
            match result {
                Ok(link) => {
                    assert_eq!(link.order_number.as_deref(), Some(order.as_str()));
                    got_link += 1;
                }
                Err(CreateError::Unknown { .. }) => unknown += 1,
                Err(CreateError::InProgress { .. } | CreateError::AlreadyHasLink(_))
                    if kind == Kind::ConcurrentSubmits =>
                {
                    figures.refused_twins += 1;
                }
                Err(other) => panic!("{order}: unexpected outcome {other:?}"),
            }
        }
        assert!(got_link <= 1, "{order}: two submits both created a link");
    }

    // Finish what is left, as a restart (or the user's Retry) would, once the faults stop
    // and every delayed server handler has ended.
    sandbox.admin().clear_faults();
    tokio::time::sleep(Duration::from_millis(TIMEOUT_MS * 4)).await;
    let pending_rows = desk.pending().expect("the journal reads");
    // A loaded machine can time out a healthy request too: a few rounds, as restarts would.
    for _round in 0..20 {
        if desk.pending().expect("the journal reads").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        for (key, result) in desk.resume_pending().await.expect("resume runs") {
            if let Ok(link) = result {
                figures.resumed += 1;
                assert_eq!(
                    format!("link-{}", link.order_number.unwrap_or_default()),
                    key
                );
            }
        }
    }
    assert!(
        pending_rows.len() <= unknown,
        "{} pending rows for {unknown} unknown outcomes",
        pending_rows.len()
    );
    assert_eq!(
        figures.resumed,
        pending_rows.len(),
        "every pending row was finished by a resume"
    );
    figures.elapsed = started.elapsed();
    verify(&services, &desk, &sandbox, prefix, orders, &mut figures);
    figures
}

/// Exactly one link per order on the server, the same one in history, no row left open.
fn verify(
    services: &Services,
    desk: &Desk,
    sandbox: &paydesk::sandbox::SandboxHandle,
    prefix: &str,
    orders: usize,
    figures: &mut Figures,
) {
    let server = server_orders(sandbox);
    let history = history_orders(desk);
    let duplicates: Vec<&String> = server
        .iter()
        .filter(|(_, l)| l.len() > 1)
        .map(|(o, _)| o)
        .collect();
    assert!(
        duplicates.is_empty(),
        "duplicated on the server: {duplicates:?}"
    );
    let mut lost = Vec::new();
    for i in 0..orders {
        let order = format!("{prefix}-{i:05}");
        let Some(on_server) = server.get(&order) else {
            lost.push(order);
            continue;
        };
        let local = history.get(&order).map(Vec::as_slice).unwrap_or_default();
        assert_eq!(
            local.len(),
            1,
            "{order}: history holds {} links",
            local.len()
        );
        assert_eq!(
            local[0].id, on_server[0].id,
            "{order}: history and server disagree"
        );
        let expected: Decimal = format!("{}.{:02}", 10 + i % 900, i % 100)
            .parse()
            .expect("a decimal");
        assert_eq!(on_server[0].amount, Some(expected), "{order}");
    }
    assert!(
        lost.is_empty(),
        "{} orders have no link: {:?}",
        lost.len(),
        &lost[..lost.len().min(5)]
    );
    assert_eq!(
        server.len(),
        orders,
        "the server holds links of no other order"
    );
    assert_eq!(
        history.len(),
        orders,
        "history holds links of no other order"
    );
    assert!(
        desk.pending().expect("the journal reads").is_empty(),
        "no row left open"
    );
    figures.unknown_attempts = unknown_attempts(services, prefix, orders);
}

/// The attempts with an unknown outcome recorded in the journal rows of the campaign; every
/// row is completed.
fn unknown_attempts(services: &Services, prefix: &str, orders: usize) -> u64 {
    let rows: Vec<_> = services
        .inspect(|s| s.journal().list("test", &JournalState::ALL))
        .expect("the journal reads")
        .into_iter()
        .filter(|r| r.begun.key.key.starts_with(&format!("link-{prefix}-")))
        .collect();
    assert_eq!(rows.len(), orders, "one journal row per order");
    rows.iter()
        .map(|r| {
            assert_eq!(r.state, JournalState::Completed, "{}", r.begun.key.key);
            assert!(r.link_id.is_some(), "{}", r.begun.key.key);
            u64::from(r.attempts)
        })
        .sum()
}

fn report(kind: Kind, f: &Figures) {
    let secs = f.elapsed.as_secs_f64();
    println!(
        "{kind:?}: {} orders in {secs:.2} s ({:.0} creates/s), {} attempts with an unknown outcome, {} finished by resume, {} twin submits refused",
        f.creates,
        f64::from(u32::try_from(f.creates).unwrap_or(u32::MAX)) / secs,
        f.unknown_attempts,
        f.resumed,
        f.refused_twins
    );
}

async fn run(kind: Kind, orders: usize) {
    let figures = campaign(kind, orders, 24).await;
    report(kind, &figures);
    match kind {
        Kind::ConcurrentSubmits => assert_eq!(
            figures.refused_twins, orders,
            "one of each twin pair is refused"
        ),
        Kind::Lost => {
            assert!(figures.unknown_attempts > 0, "the faults did fire");
            assert!(
                figures.resumed > 0,
                "some lost answers outlasted every attempt and the resume finished them"
            );
        }
        _ => assert!(figures.unknown_attempts > 0, "the faults did fire"),
    }
}

const PER_KIND: usize = 300;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_answers_after_commit_give_exactly_one_link_per_order() {
    run(Kind::Lost, PER_KIND).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_give_exactly_one_link_per_order() {
    run(Kind::Error500, PER_KIND).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_give_exactly_one_link_per_order() {
    run(Kind::RateLimit, PER_KIND).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delays_past_the_client_timeout_give_exactly_one_link_per_order() {
    run(Kind::DelayPastTimeout, PER_KIND).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_submits_of_one_order_give_exactly_one_link() {
    run(Kind::ConcurrentSubmits, PER_KIND).await;
}

/// 10,000 creates: 2,000 per fault kind. It prints its figures per fault kind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: run with --ignored --nocapture for its figures"]
async fn ten_thousand_creates_under_faults() {
    let started = Instant::now();
    for kind in [
        Kind::Lost,
        Kind::Error500,
        Kind::RateLimit,
        Kind::DelayPastTimeout,
        Kind::ConcurrentSubmits,
    ] {
        run(kind, 2_000).await;
    }
    println!(
        "all: 10,000 orders in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// What a file-backed campaign with kills did.
#[derive(Debug, Default)]
struct KillFigures {
    /// Creates started (a kill can come before a queued create sends anything).
    creates: usize,
    kills: usize,
    /// Rows found `pending` when the store was opened again after a kill: creates the kill
    /// cut off after their row was committed.
    pending_after_kill: usize,
    /// Orders whose create was queued but killed before its row was written.
    never_journaled: usize,
    elapsed: Duration,
}

/// The campaign's services over the store file in `dir`, opened (again) as a start does.
fn open_file_services(dir: &std::path::Path, base_url: &str) -> Services {
    library_services(
        Store::open(dir).expect("the store file opens"),
        base_url,
        Duration::from_secs(5),
    )
}

fn journal_rows(services: &Services, prefix: &str) -> Vec<JournalRow> {
    services
        .inspect(|s| s.journal().list("test", &JournalState::ALL))
        .expect("the journal reads")
        .into_iter()
        .filter(|r| r.begun.key.key.starts_with(&format!("link-{prefix}-")))
        .collect()
}

/// `orders` creates in `kills + 1` runs over one store file; each run but the last is killed
/// once half of its creates have ended.
async fn killed_campaign(orders: usize, kills: usize, concurrency: usize) -> KillFigures {
    const PREFIX: &str = "KILL";
    let mut config = SandboxConfig::new(Fixture::shipped());
    config.seed = Some(0x00C0_FFEE_0015);
    // Lost answers after commit, and slow answers, so that a kill finds creates with a request
    // on the wire, with an answer the server committed but the client has not read, and in
    // backoff.
    config.faults = vec![
        FaultRule {
            endpoint: "link.create".to_owned(),
            kind: FaultKind::Lost,
            delay_ms: None,
            next: None,
            probability: Some(0.4),
        },
        FaultRule {
            endpoint: "link.create".to_owned(),
            kind: FaultKind::Delay,
            delay_ms: Some(20),
            next: None,
            probability: Some(0.5),
        },
    ];
    let sandbox = Sandbox::spawn_background(config).expect("the sandbox starts");
    let base_url = sandbox.base_url();
    let dir = tempfile::tempdir().expect("a temp dir");
    let started = Instant::now();
    let mut figures = KillFigures::default();
    let runs = kills + 1;
    let per_run = orders.div_ceil(runs);
    for run in 0..runs {
        let services = open_file_services(dir.path(), &base_url);
        let desk = services.desk("test").expect("the test profile's desk");
        if run > 0 {
            let pending = desk.pending().expect("the journal reads");
            assert!(
                pending.iter().all(|r| r.state == JournalState::Pending),
                "a kill leaves rows pending, nothing else: {pending:?}"
            );
            figures.pending_after_kill += pending.len();
            // A start resumes what the kill left (still under faults: some stay pending).
            desk.resume_pending().await.expect("resume runs");
        }
        let first = run * per_run;
        let last = orders.min(first + per_run);
        let limit = Arc::new(tokio::sync::Semaphore::new(concurrency));
        let mut tasks = tokio::task::JoinSet::new();
        for i in first..last {
            let desk = desk.clone();
            let limit = limit.clone();
            tasks.spawn(async move {
                let _permit = limit
                    .acquire_owned()
                    .await
                    .expect("the semaphore stays open");
                let order = format!("{PREFIX}-{i:05}");
                let amount = format!("{}.{:02}", 10 + i % 900, i % 100);
                let result = desk.create_link(&link_request(&order, &amount)).await;
                (order, result)
            });
        }
        figures.creates += last - first;
        let kill_after = if run + 1 < runs {
            (last - first) / 2
        } else {
            usize::MAX
        };
        let mut ended = 0;
        while ended < kill_after {
            let Some(joined) = tasks.join_next().await else {
                break;
            };
            let (order, result) = joined.expect("a create task does not panic");
            match result {
                Ok(link) => assert_eq!(link.order_number.as_deref(), Some(order.as_str())),
                Err(CreateError::Unknown { .. }) => {}
                Err(other) => panic!("{order}: unexpected outcome {other:?}"),
            }
            ended += 1;
        }
        if kill_after != usize::MAX {
            // The kill: every create still running is dropped where it stands, then the
            // store is closed with nothing written after.
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
            figures.kills += 1;
        }
        drop(desk);
        drop(services);
    }

    // The faults stop; a last start resumes the rest (a few rounds: a key whose killed
    // request the server is still working on answers "in progress" until it is done).
    sandbox.admin().clear_faults();
    let services = open_file_services(dir.path(), &base_url);
    let desk = services.desk("test").expect("the test profile's desk");
    for _round in 0..20 {
        if desk.pending().expect("the journal reads").is_empty() {
            break;
        }
        desk.resume_pending().await.expect("resume runs");
    }
    figures.elapsed = started.elapsed();
    figures.never_journaled = verify_journaled(&services, &desk, &sandbox, PREFIX, orders);
    figures
}

/// Every order with a journal row has exactly one link on the server, the same one in
/// history, its row completed; an order without a row has no link anywhere. Returns how many
/// orders have no row.
fn verify_journaled(
    services: &Services,
    desk: &Desk,
    sandbox: &paydesk::sandbox::SandboxHandle,
    prefix: &str,
    orders: usize,
) -> usize {
    let server = server_orders(sandbox);
    let history = history_orders(desk);
    let rows: std::collections::HashMap<String, JournalRow> = journal_rows(services, prefix)
        .into_iter()
        .map(|r| (r.begun.key.key.clone(), r))
        .collect();
    let mut unjournaled = 0;
    for i in 0..orders {
        let order = format!("{prefix}-{i:05}");
        let on_server = server.get(&order).map(Vec::as_slice).unwrap_or_default();
        let local = history.get(&order).map(Vec::as_slice).unwrap_or_default();
        let Some(row) = rows.get(&format!("link-{order}")) else {
            assert!(
                on_server.is_empty() && local.is_empty(),
                "{order}: no journal row, yet a link (server {on_server:?}, history {local:?})"
            );
            unjournaled += 1;
            continue;
        };
        assert_eq!(
            on_server.len(),
            1,
            "{order}: {} links on the server",
            on_server.len()
        );
        assert_eq!(local.len(), 1, "{order}: {} links in history", local.len());
        assert_eq!(
            local[0].id, on_server[0].id,
            "{order}: history and server disagree"
        );
        assert_eq!(row.state, JournalState::Completed, "{order}");
        assert_eq!(
            row.link_id.as_deref(),
            Some(on_server[0].id.as_str()),
            "{order}"
        );
    }
    assert_eq!(
        server.len(),
        rows.len(),
        "the server holds links of no other order"
    );
    assert_eq!(
        history.len(),
        rows.len(),
        "history holds links of no other order"
    );
    unjournaled
}

async fn run_killed(orders: usize, kills: usize) {
    let f = killed_campaign(orders, kills, 16).await;
    println!(
        "file-backed: {} creates in {:.2} s, {} kills, {} rows pending after a kill, {} orders killed before their row",
        f.creates,
        f.elapsed.as_secs_f64(),
        f.kills,
        f.pending_after_kill,
        f.never_journaled
    );
    assert_eq!(f.kills, kills);
    assert!(
        f.pending_after_kill > 0,
        "the kills cut off creates between their row and their answer"
    );
    assert!(
        f.never_journaled > 0,
        "the kills also stopped creates before their row was written"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_backed_campaign_killed_and_reopened_twice_gives_one_link_per_journaled_order() {
    run_killed(240, 2).await;
}

/// 2,000 creates over one store file, killed ten times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: run with --ignored --nocapture for the figures"]
async fn two_thousand_file_backed_creates_with_ten_kills() {
    run_killed(2_000, 10).await;
}
