//! One built-in sandbox per data folder (issue 21, item 13). The app's embedded sandbox keeps
//! its state in `sandbox-state.sqlite3` in the data folder; the CLI opens the same folder. While
//! a process serves that state, every other process uses its server instead of starting a
//! second copy of the same file: the CLI's links are on the app's port and held by the app's
//! sandbox, a CLI cancel is the app's cancel, and `paydesk sandbox --state` on that file is
//! refused. A holder killed with SIGKILL leaves its lock file behind, holding no lock; the next
//! start takes it over.
//!
//! Real processes: the "app" is `Services::open` in this test process (the app's own path to
//! its embedded sandbox), the other side the `paydesk` binary.

#![cfg(unix)]

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;

use crate::support::cli::{Cli, Out, sandbox_process};
use paydesk::domain::Link;
use paydesk::domain::LinkStatus;
use paydesk::sandbox::lock::lock_path;
use paydesk::service::{SANDBOX_PROFILE, SANDBOX_STATE_FILE, Services};

/// The app's side: services over the data folder, as the app opens them.
/// One test at a time: every built-in sandbox first tries the same preferred port, so a port
/// one test frees (its app quits) could be taken by another test's sandbox before the test's
/// own follower takes it over, which is a race between tests, not the takeover under test.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn open_app(dir: &Path) -> Services {
    Services::open(
        dir,
        Arc::new(paydesk::secrets::MemoryStore::new()),
        Arc::new(paydesk::clock::SystemClock),
        None,
    )
    .expect("the services open")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "{out:?}");
}

/// The link as the sandbox behind `services` holds it now (a link detail through its desk).
fn detail(rt: &tokio::runtime::Runtime, services: &Services, id: &str) -> Link {
    let desk = services.desk(SANDBOX_PROFILE).expect("the sandbox desk");
    rt.block_on(desk.link_detail(id))
        .unwrap_or_else(|e| panic!("the sandbox behind {} knows {id}: {e}", desk.base_url()))
}

/// The `port=` and `pid=` the lock file of the folder's sandbox state names.
fn lock_names(dir: &Path) -> (u16, u32) {
    let text = std::fs::read_to_string(lock_path(&dir.join(SANDBOX_STATE_FILE)))
        .expect("the lock file is readable");
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name}= in the lock file:\n{text}"))
            .to_owned()
    };
    (
        field("port").parse().expect("a port"),
        field("pid").parse().expect("a pid"),
    )
}

fn port_of(url: &str) -> u16 {
    url.rsplit_once(':')
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url}"))
}

#[test]
fn the_cli_uses_the_apps_sandbox_for_links_and_cancels_and_no_second_server_opens_its_state() {
    let _serial = one_at_a_time();
    let cli = Cli::new();
    let rt = runtime();
    let app = open_app(cli.data_dir());
    let app_url = app
        .sandbox_url()
        .expect("the app's embedded sandbox starts");

    let created = cli.run(&[
        "link",
        "create",
        "--amount",
        "42.50",
        "--order-number",
        "ONE-1",
        "--json",
    ]);
    ok(&created);
    let link = created.json();
    let id = link["id"].as_str().expect("an id").to_owned();
    let url = link["paymentUrl"].as_str().expect("a paymentUrl");
    assert_eq!(
        url,
        format!("{app_url}/pay/{id}"),
        "the CLI's link is paid on the app's sandbox, which outlives the CLI"
    );
    let held = detail(&rt, &app, &id);
    assert_eq!(held.order_number.as_deref(), Some("ONE-1"));
    assert_eq!(held.status, LinkStatus::Pending);

    let cancelled = cli.run(&["link", "cancel", &id, "--json"]);
    ok(&cancelled);
    let seen = detail(&rt, &app, &id);
    assert_ne!(seen.status, LinkStatus::Pending, "{seen:?}");
    assert_eq!(
        cancelled.json()["status"],
        serde_json::to_value(seen.status).expect("a status"),
        "the app's sandbox holds the CLI's cancel"
    );

    // The lock file names the app's server, and a foreground sandbox on the same state file
    // is refused instead of serving a second copy of it.
    assert_eq!(
        lock_names(cli.data_dir()),
        (port_of(&app_url), std::process::id())
    );
    let (mut second, first_line) =
        sandbox_process(&cli.data_dir().join(SANDBOX_STATE_FILE), Stdio::piped());
    if !first_line.is_empty() {
        let _ = second.kill();
        let _ = second.wait();
        panic!("a second server opened the state file: {first_line}");
    }
    let refused = second.wait_with_output().expect("the refused sandbox ends");
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("already served by")
            && stderr.contains(&format!("process {}", std::process::id()))
            && stderr.contains(&app_url),
        "{stderr}"
    );
    // The app's sandbox is still the one serving.
    assert_eq!(detail(&rt, &app, &id).id, id);
}

#[test]
fn a_second_app_uses_the_first_ones_sandbox_and_takes_it_over_on_its_port_once_it_is_gone() {
    let _serial = one_at_a_time();
    let dir = tempfile::tempdir().expect("a temp dir");
    let rt = runtime();
    let first = open_app(dir.path());
    let second = open_app(dir.path());
    let first_url = first.sandbox_url().expect("the first sandbox starts");
    assert_eq!(
        second.sandbox_url().expect("the second finds the first"),
        first_url
    );
    // The second app's desk is made now, for the first one's server.
    let second_desk = second.desk(SANDBOX_PROFILE).expect("a desk");
    let desk = first.desk(SANDBOX_PROFILE).expect("a desk");
    let link = rt
        .block_on(desk.create_link(&crate::support::links::link_request("TWO-1", "9.90")))
        .expect("a link");
    drop(desk);

    // The first one quits: its server stops and the lock goes with it. Nobody asks the
    // second for its sandbox; it takes the folder's sandbox over by itself, on the same
    // port, so the desk it made goes on working (its create retries while the port is shut).
    drop(first);
    let after = rt
        .block_on(second_desk.create_link(&crate::support::links::link_request("TWO-2", "4.50")))
        .expect("the second app's desk works after the first one quit");
    assert!(
        after
            .payment_url
            .as_deref()
            .is_some_and(|u| u.starts_with(&first_url)),
        "{after:?}"
    );
    assert_eq!(second.sandbox_url().expect("served here"), first_url);
    assert_eq!(
        lock_names(dir.path()),
        (port_of(&first_url), std::process::id())
    );
    // Its server opened the same state: the first one's link is there.
    assert_eq!(detail(&rt, &second, &link.id).id, link.id);
}

#[test]
fn a_lock_left_by_a_killed_holder_is_taken_over() {
    let _serial = one_at_a_time();
    let cli = Cli::new();
    let dir = cli.data_dir();
    let rt = runtime();
    // A foreground sandbox serves the folder's state first; the app's path uses it.
    let (mut holder, said) = sandbox_process(&dir.join(SANDBOX_STATE_FILE), Stdio::piped());
    let holder_url = said
        .trim()
        .strip_prefix("paydesk sandbox listening on ")
        .unwrap_or_else(|| panic!("the holder serves: {said:?}"))
        .to_owned();
    assert_eq!(lock_names(dir), (port_of(&holder_url), holder.id()));
    let app = open_app(dir);
    assert_eq!(app.sandbox_url().expect("the holder's sandbox"), holder_url);
    let desk = app.desk(SANDBOX_PROFILE).expect("a desk");
    let link = rt
        .block_on(desk.create_link(&crate::support::links::link_request("KILL-1", "5.00")))
        .expect("a link on the holder's sandbox");
    assert!(
        link.payment_url
            .as_deref()
            .is_some_and(|u| u.starts_with(&holder_url)),
        "{link:?}"
    );
    drop(desk);

    // SIGKILL: no clean-up runs; the lock file stays with the dead process's port in it.
    holder.kill().expect("SIGKILL");
    holder.wait().expect("the holder is gone");
    // The file names the dead holder until the app notices (its watch may already have).
    let named = lock_names(dir).1;
    assert!(
        named == holder.id() || named == std::process::id(),
        "the file names {named}"
    );

    let own_url = app
        .sandbox_url()
        .expect("the app takes the stale lock over");
    assert_eq!(lock_names(dir), (port_of(&own_url), std::process::id()));
    // It serves the state the killed holder kept, and the CLI now uses it.
    assert_eq!(detail(&rt, &app, &link.id).id, link.id);
    let created = cli.run(&["link", "create", "--amount", "7", "--json"]);
    ok(&created);
    let url = created.json()["paymentUrl"]
        .as_str()
        .expect("a paymentUrl")
        .to_owned();
    assert!(url.starts_with(&format!("{own_url}/pay/")), "{url}");
}
