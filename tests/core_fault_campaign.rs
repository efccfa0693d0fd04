//! Fault campaign of exactly-once link creation (issue 4 "Done when"): hundreds of creates per
//! fault kind — lost answers after the server committed, 500s, 429s, delays past the client's
//! timeout, two concurrent submits of one order — against an in-process sandbox over loopback
//! HTTP, then the unfinished rows are resumed. Afterwards the sandbox holds exactly one link
//! per order and the local history agrees with it: no duplicate, nothing lost.
//!
//! `cargo test --test core_fault_campaign -- --ignored --nocapture` runs the same campaign at
//! 10,000 creates and prints its figures.

mod core_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use core_support::{history_orders, library_services, link_request, server_orders};
use paydesk::sandbox::{FaultKind, FaultRule};
use paydesk::sandbox::{Fixture, Sandbox, SandboxConfig};
use paydesk::service::{CreateError, Desk, Services};
use paydesk::store::{JournalState, Store};
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
        .with_store_locked(|s| s.journal_list("test", &JournalState::ALL))
        .expect("the journal reads")
        .into_iter()
        .filter(|r| r.key.key.starts_with(&format!("link-{prefix}-")))
        .collect();
    assert_eq!(rows.len(), orders, "one journal row per order");
    rows.iter()
        .map(|r| {
            assert_eq!(r.state, JournalState::Completed, "{}", r.key.key);
            assert!(r.link_id.is_some(), "{}", r.key.key);
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

/// 10,000 creates: 2,000 per fault kind. Figures go to the README.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: run with --ignored --nocapture for the README figures"]
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
