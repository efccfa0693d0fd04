//! Crash test of exactly-once link creation: the real CLI is killed with SIGKILL at random
//! moments during creates (60 times, against a sandbox in this test process that outlives
//! every CLI run, with slow and lost answers mixed in so kills land mid-request too). Then
//! `pending retry --all` runs once: every order that has a journal row has exactly one link
//! on the server, the same one in history; orders without a row have none.

mod core_support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use core_support::{Cli, sandbox, server_orders};
use paydesk::sandbox::{FaultKind, FaultRule};
use paydesk::store::{JournalState, Store};
use rand::Rng;

const RUNS: usize = 60;

#[test]
fn sigkill_at_random_moments_then_retry_all_gives_exactly_one_link_per_journaled_order() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    // How long one create takes here (no fault), to spread the kills over its whole life.
    let probe = Instant::now();
    let out = cli.run(&[
        "--profile",
        "test",
        "link",
        "create",
        "--amount",
        "1",
        "--order-number",
        "PROBE",
    ]);
    let span = probe.elapsed().max(Duration::from_millis(50));
    assert_eq!(out.code, 0, "{out:?}");

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
    let mut rng = rand::rng();
    let mut finished_alone = 0;
    for i in 0..RUNS {
        let order = format!("CRASH-{i:03}");
        let mut child = cli
            .command(&[
                "--profile",
                "test",
                "link",
                "create",
                "--amount",
                &format!("{}.50", 100 + i),
                "--order-number",
                &order,
            ])
            .spawn()
            .expect("paydesk starts");
        // From mid start-up to well into the retries a faulty answer causes.
        let span_us = u64::try_from(span.as_micros()).unwrap_or(200_000);
        let wait_us = rng.random_range(span_us / 2..=span_us * 3);
        std::thread::sleep(Duration::from_micros(wait_us));
        // SIGKILL: no destructor, no flush, no chance to tidy the journal.
        let _ = child.kill();
        let status = child.wait().expect("the child is reaped");
        if status.success() {
            finished_alone += 1;
        }
    }
    server.admin().clear_faults();
    // Let any request a killed CLI left on the server finish its delay.
    std::thread::sleep(Duration::from_millis(200));

    let pending_before = Store::open(cli.data_dir())
        .and_then(|s| s.journal_list("test", &[JournalState::Pending]))
        .expect("the journal reads after the crashes")
        .len();
    let retry = cli.run(&["--profile", "test", "pending", "retry", "--all"]);
    assert_eq!(retry.code, 0, "{retry:?}");

    let store = Store::open(cli.data_dir()).expect("the store opens after the crashes");
    let rows: HashMap<String, paydesk::store::JournalRow> = store
        .journal_list("test", &JournalState::ALL)
        .expect("the journal reads")
        .into_iter()
        .map(|r| (r.order_number.clone().unwrap_or_default(), r))
        .collect();
    let held = server_orders(&server);
    let mut journaled = 0;
    for i in 0..RUNS {
        let order = format!("CRASH-{i:03}");
        let on_server = held.get(&order).map_or(0, Vec::len);
        match rows.get(&order) {
            Some(row) => {
                journaled += 1;
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
                    .get_link("test", &held[&order][0].id)
                    .expect("history reads");
                assert!(local.is_some(), "{order}: history lacks the link");
            }
            None => assert_eq!(
                on_server, 0,
                "{order}: no journal row but a link on the server"
            ),
        }
    }
    println!(
        "{RUNS} kills (create takes about {span:?}): {journaled} orders journaled ({pending_before} left pending, finished by retry --all), {} never sent, {finished_alone} finished before the kill",
        RUNS - journaled
    );
    assert!(
        retry.stdout.lines().count() == pending_before,
        "retry --all finished each pending row: {retry:?}"
    );
    assert!(journaled > 0, "some kills came after the journal commit");
    assert!(
        finished_alone < RUNS,
        "some kills landed before the create ended"
    );
}
