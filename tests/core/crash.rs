//! Crash test of exactly-once link creation: the real CLI is killed with SIGKILL during creates,
//! against a sandbox in this test process that outlives every CLI run, with slow and lost
//! answers mixed in. Then `pending retry --all` runs once: every order that has a journal row
//! has exactly one link on the server, the same one in history; orders without a row have none.
//!
//! The kills are aimed, not scattered: probe runs measure when a create commits its journal row
//! and when it completes (the log lines `journal row committed` and `link created`, read as they
//! arrive), and each kill is timed into one of three phases in turn: before the commit, between
//! the commit and completion, after completion. Where each kill really landed is read back from
//! the journal (no row, `pending`, `completed`), and the test asserts every phase was hit.
//! `cargo test --test core crash:: -- --ignored --nocapture` runs 200 kills.
//!
//! A second test makes the phase the journal exists for on purpose: a stalled answer (the
//! server has committed the link, the CLI has not heard of it) during which the CLI is killed,
//! then `pending retry` of that row's key returns the link the server already holds.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::cli::{Cli, sandbox, server_orders};
use paydesk::sandbox::{FaultKind, FaultRule, SandboxHandle};
use paydesk::store::{JournalKey, JournalState, Store};
use rand::Rng;

/// When the phases of one create end, measured from the spawn of the process.
#[derive(Debug, Clone, Copy)]
struct Phases {
    committed: Duration,
    completed: Duration,
}

fn create_args(order: &str, amount: &str) -> Vec<String> {
    [
        "--profile",
        "test",
        "link",
        "create",
        "--amount",
        amount,
        "--order-number",
        order,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Runs one create to its end, noting when its log says the row was committed and completed.
fn probe(cli: &Cli, order: &str) -> Phases {
    let args = create_args(order, "1");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut cmd = cli.command(&args);
    cmd.env("PAYDESK_LOG", "paydesk=debug")
        .stderr(Stdio::piped());
    let spawned = Instant::now();
    let mut child = cmd.spawn().expect("paydesk starts");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (mut committed, mut completed) = (None, None);
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("utf-8 log lines");
        if line.contains("journal row committed") {
            committed.get_or_insert(spawned.elapsed());
        }
        if line.contains("link created") {
            completed.get_or_insert(spawned.elapsed());
        }
    }
    assert!(
        child.wait().expect("reaped").success(),
        "the probe create runs"
    );
    Phases {
        committed: committed.expect("the log says when the row is committed"),
        completed: completed.expect("the log says when the link is created"),
    }
}

/// The median of each phase over a few probes.
fn measure(cli: &Cli) -> Phases {
    let mut runs: Vec<Phases> = (0..5).map(|i| probe(cli, &format!("PROBE-{i}"))).collect();
    runs.sort_by_key(|p| p.committed);
    let committed = runs[2].committed;
    runs.sort_by_key(|p| p.completed);
    Phases {
        committed,
        completed: runs[2].completed.max(committed + Duration::from_millis(1)),
    }
}

/// Where a kill landed, as the journal tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Landed {
    BeforeCommit,
    BetweenCommitAndCompletion,
    AfterCompletion,
}

fn landed(cli: &Cli, order: &str) -> Landed {
    let store = Store::open(cli.data_dir()).expect("the store opens after a kill");
    let row = store
        .journal()
        .get(&JournalKey::new(
            "test",
            "link.create",
            format!("link-{order}"),
        ))
        .expect("the journal reads");
    match row.map(|r| r.state) {
        None => Landed::BeforeCommit,
        Some(JournalState::Pending) => Landed::BetweenCommitAndCompletion,
        Some(JournalState::Completed) => Landed::AfterCompletion,
        Some(other) => panic!("{order}: a killed create left a `{other}` row"),
    }
}

fn faults(server: &SandboxHandle) {
    for (kind, delay_ms, p) in [
        (FaultKind::Delay, Some(60), 0.4),
        (FaultKind::Lost, None, 0.2),
    ] {
        server
            .admin()
            .add_fault(FaultRule {
                endpoint: "link.create".into(),
                kind,
                delay_ms,
                next: None,
                probability: Some(p),
            })
            .expect("a valid rule");
    }
}

fn crash_campaign(runs: usize) {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    faults(&server);
    let phases = measure(&cli);

    let mut rng = rand::rng();
    let mut hits: HashMap<Landed, usize> = HashMap::new();
    let mut aimed_at = [0_usize; 3];
    for i in 0..runs {
        let order = format!("CRASH-{i:03}");
        let args = create_args(&order, &format!("{}.50", 100 + i));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // Each phase in turn, at a random point inside it.
        let phase = i % 3;
        aimed_at[phase] += 1;
        let mut span = |from: Duration, to: Duration| {
            let (from, to) = (from.as_micros(), to.as_micros().max(from.as_micros() + 1));
            Duration::from_micros(u64::try_from(rng.random_range(from..to)).unwrap_or(0))
        };
        let wait = match phase {
            0 => span(phases.committed / 5, phases.committed * 9 / 10),
            1 => {
                let gap = phases.completed.saturating_sub(phases.committed);
                span(phases.committed + gap / 10, phases.committed + gap * 9 / 10)
            }
            _ => span(
                phases.completed,
                phases.completed + Duration::from_millis(15),
            ),
        };
        let mut child = cli.command(&args).spawn().expect("paydesk starts");
        std::thread::sleep(wait);
        // SIGKILL: no destructor, no flush, no chance to tidy the journal.
        let _ = child.kill();
        let _ = child.wait().expect("the child is reaped");
        *hits.entry(landed(&cli, &order)).or_default() += 1;
    }
    server.admin().clear_faults();
    // Let any request a killed CLI left on the server finish its delay.
    std::thread::sleep(Duration::from_millis(200));

    let pending_before = hits
        .get(&Landed::BetweenCommitAndCompletion)
        .copied()
        .unwrap_or(0);
    let retry = cli.run(&["--profile", "test", "pending", "retry", "--all"]);
    assert_eq!(retry.code, 0, "{retry:?}");

    let store = Store::open(cli.data_dir()).expect("the store opens after the crashes");
    let rows: HashMap<String, paydesk::store::JournalRow> = store
        .journal()
        .list("test", &JournalState::ALL)
        .expect("the journal reads")
        .into_iter()
        .map(|r| (r.begun.order_number.clone().unwrap_or_default(), r))
        .collect();
    let held = server_orders(&server);
    for i in 0..runs {
        let order = format!("CRASH-{i:03}");
        let on_server = held.get(&order).map_or(0, Vec::len);
        match rows.get(&order) {
            Some(row) => {
                assert_eq!(
                    on_server, 1,
                    "{order}: journaled, {on_server} links on the server"
                );
                assert_eq!(row.state, JournalState::Completed, "{order}");
                assert_eq!(
                    row.link_id.as_deref(),
                    Some(held[&order][0].id.as_str()),
                    "{order}"
                );
                let local = store
                    .links()
                    .get("test", &held[&order][0].id)
                    .expect("history reads");
                assert!(local.is_some(), "{order}: history lacks the link");
            }
            None => assert_eq!(
                on_server, 0,
                "{order}: no journal row but a link on the server"
            ),
        }
    }
    let count = |l| hits.get(&l).copied().unwrap_or(0);
    println!(
        "{runs} kills (commit at {:?}, completion at {:?} after spawn; aimed {aimed_at:?} before/between/after): {} before the journal commit, {} between commit and completion (pending, finished by retry --all), {} after completion",
        phases.committed,
        phases.completed,
        count(Landed::BeforeCommit),
        count(Landed::BetweenCommitAndCompletion),
        count(Landed::AfterCompletion),
    );
    assert_eq!(
        retry.stdout.lines().count(),
        pending_before,
        "retry --all finished each pending row: {retry:?}"
    );
    for phase in [
        Landed::BeforeCommit,
        Landed::BetweenCommitAndCompletion,
        Landed::AfterCompletion,
    ] {
        assert!(count(phase) > 0, "no kill landed {phase:?}: {hits:?}");
    }
}

/// The case the journal exists for, made on purpose: each create meets a stalled answer (the
/// server commits the link and its idempotency key, then holds the answer for 60 s), and the
/// CLI is killed once the server holds the order's link. The row is `pending` while the server
/// holds exactly one link; `pending retry` with the row's key gets that same link back.
fn kill_while_the_server_holds_the_answer(runs: usize) {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let mut made = Vec::new();
    for i in 0..runs {
        let order = format!("STALL-{i:02}");
        server
            .admin()
            .add_fault(FaultRule {
                endpoint: "link.create".into(),
                kind: FaultKind::Stall,
                delay_ms: Some(60_000),
                next: Some(1),
                probability: None,
            })
            .expect("a valid rule");
        let args = create_args(&order, &format!("{}.25", 200 + i));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = cli.command(&args).spawn().expect("paydesk starts");
        // Wait for the event: the server holds the order's link (its answer held back).
        while !server_orders(&server).contains_key(&order) {
            if let Some(status) = child.try_wait().expect("the child's status") {
                panic!("{order}: the CLI ended ({status}) before the server held the link");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = child.kill();
        let _ = child.wait().expect("the child is reaped");
        assert_eq!(
            landed(&cli, &order),
            Landed::BetweenCommitAndCompletion,
            "{order}: the row is pending"
        );
        let held = server_orders(&server);
        assert_eq!(held[&order].len(), 1, "{order}: one link on the server");
        let id = held[&order][0].id.clone();
        made.push((order, id));
    }
    server.admin().clear_faults();

    let store = Store::open(cli.data_dir()).expect("the store opens after the kills");
    for (order, id) in &made {
        let key = format!("link-{order}");
        let retry = cli.run(&["--profile", "test", "pending", "retry", &key]);
        assert_eq!(retry.code, 0, "{retry:?}");
        assert_eq!(
            retry.stdout.split('\t').next(),
            Some(id.as_str()),
            "{order}: the retry returned the link the server made: {retry:?}"
        );
        let held = server_orders(&server);
        assert_eq!(
            held[order].len(),
            1,
            "{order}: still one link on the server"
        );
        let row = store
            .journal()
            .get(&JournalKey::new("test", "link.create", key.clone()))
            .expect("the journal reads")
            .expect("the row is kept");
        assert_eq!(row.state, JournalState::Completed, "{order}");
        assert_eq!(row.link_id.as_deref(), Some(id.as_str()), "{order}");
        assert!(
            store
                .links()
                .get("test", id)
                .expect("history reads")
                .is_some(),
            "{order}: history lacks the link"
        );
        // The server answered the retry from the key the first request completed.
        let state = server.admin().state();
        let completed = state["idempotency"]["completed"]
            .as_array()
            .expect("the completed keys");
        let answer = completed
            .iter()
            .find(|r| r["key"] == key.as_str())
            .expect("the server knows the key");
        assert!(
            answer["response"]
                .as_str()
                .is_some_and(|r| r.contains(id.as_str())),
            "{order}: {answer}"
        );
    }
    assert_eq!(
        server.admin().request_totals()["link.create"],
        u64::try_from(2 * runs).expect("a count"),
        "one first request and one retry per order"
    );
}

#[test]
fn a_kill_while_the_server_holds_the_answer_is_finished_by_retry_with_the_same_link() {
    kill_while_the_server_holds_the_answer(5);
}

#[test]
fn sigkill_in_every_phase_then_retry_all_gives_exactly_one_link_per_journaled_order() {
    crash_campaign(60);
}

#[test]
#[ignore = "long run: 200 kills"]
fn two_hundred_kills() {
    crash_campaign(200);
}
