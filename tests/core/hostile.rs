//! The client against a server that sends more, or other, than it should (issue 21):
//! - an answer without end is cut at 1 MiB: the real CLI stays under 100 MB of memory whatever
//!   the server streams, and says why it stopped;
//! - an announced `Content-Length` over the cap is refused before a byte is read;
//! - control characters, terminal escapes and bidi overrides in a server's text never reach
//!   the terminal, and a full card number in a saved card's answer is masked when printed;
//! - an API key id the HTTP library cannot send fails the order as "nothing sent" instead of
//!   leaving it pending for ever.
//!
//! Each server here is a raw TCP socket in this test process, so the bytes are exactly what
//! a broken or hostile server sends.

use std::io::{BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::support::cli::Cli;
use crate::support::links::link_request;
use crate::support::raw::read_request;
use crate::support::scripted::Scripted;
use crate::support::services::library_services;
use paydesk::api::client::{ApiClient, CallError, ClientConfig, MAX_ANSWER_BYTES};
use paydesk::api::endpoints;
use paydesk::api::wire::InstallmentList;
use paydesk::clock::SystemClock;
use paydesk::sandbox::{DEMO_API_KEY, DEMO_API_SECRET};
use paydesk::secrets::MemoryStore;
use paydesk::service::{CreateError, Services};
use paydesk::store::{JournalKey, JournalState, Store};
use zeroize::Zeroizing;

/// What a raw server answers: the head (status line and headers, without the blank line) and
/// then `body_len` bytes of one JSON string, sent in 64 KiB writes until the client goes away.
#[derive(Clone)]
struct Flood {
    head: &'static str,
    body_len: usize,
}

/// A raw server answering every request with `flood`; counts the body bytes it managed to
/// write (all connections together).
fn flood_server(flood: Flood) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    let written = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&written);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let flood = flood.clone();
            let counter = Arc::clone(&counter);
            std::thread::spawn(move || serve_flood(stream, &flood, &counter));
        }
    });
    (url, written)
}

fn serve_flood(stream: std::net::TcpStream, flood: &Flood, written: &AtomicUsize) {
    let mut reader = BufReader::new(stream);
    if read_request(&mut reader).is_none() {
        return;
    }
    let stream = reader.get_mut();
    if write!(stream, "{}\r\n\r\n{{\"content\":\"", flood.head).is_err() {
        return;
    }
    let chunk = vec![b'a'; 64 * 1024];
    let mut sent = 0;
    while sent < flood.body_len {
        let n = chunk.len().min(flood.body_len - sent);
        if stream.write_all(&chunk[..n]).is_err() {
            return;
        }
        sent += n;
        written.fetch_add(n, Ordering::Relaxed);
    }
    let _ = stream.write_all(b"\"}");
}

/// Runs `cmd` to its end and returns its output and its peak resident memory in bytes: the
/// kernel's high-water mark of the program's own memory (`VmHWM` of `/proc/PID/status`), read
/// every 2 ms while it runs (a high-water mark only grows, so the last reading is the peak
/// up to a couple of milliseconds before it ended). Not `wait4`'s `ru_maxrss`: a child spawned
/// from this test process first shares its memory, and Linux folds that high-water mark into
/// the child's at `exec`, so `ru_maxrss` measured this whole test binary under load (160 MB
/// once in CI) rather than paydesk.
#[cfg(target_os = "linux")]
fn run_measured(mut cmd: std::process::Command) -> (std::process::Output, u64) {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let mut child = cmd.spawn().expect("paydesk starts");
    let status_file = format!("/proc/{}/status", child.id());
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut peak_kb = 0_u64;
            while !done.load(Ordering::Relaxed) {
                let hwm = std::fs::read_to_string(&status_file).ok().and_then(|t| {
                    t.lines()
                        .find_map(|l| l.strip_prefix("VmHWM:"))
                        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                });
                if let Some(kb) = hwm {
                    peak_kb = peak_kb.max(kb);
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            peak_kb
        })
    };
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out_reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stdout.read_to_end(&mut text);
        text
    });
    let mut err_text = Vec::new();
    let _ = stderr.read_to_end(&mut err_text);
    let status = child.wait().expect("paydesk ends");
    done.store(true, Ordering::Relaxed);
    let peak_kb = watcher.join().expect("the watcher");
    assert!(peak_kb > 0, "the program's memory was read while it ran");
    let output = std::process::Output {
        status,
        stdout: out_reader.join().expect("stdout read"),
        stderr: err_text,
    };
    (output, peak_kb * 1024)
}

#[cfg(target_os = "linux")]
#[test]
fn an_endless_answer_is_cut_at_one_mebibyte_and_the_cli_stays_under_100_mb() {
    const TOTAL: usize = 300 * 1024 * 1024;
    let (url, written) = flood_server(Flood {
        head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close",
        body_len: TOTAL,
    });
    let cli = cli_for(&url);
    let cmd = cli.command(&["--profile", "shop", "installments", "--bin", "540061"]);
    let (out, peak) = run_measured(cmd);
    println!("peak resident memory of the CLI: {} MB", peak / 1024 / 1024);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "an unknown outcome: {stderr}");
    assert!(stderr.contains("larger than 1 MiB"), "says why: {stderr}");
    assert!(
        peak < 100 * 1024 * 1024,
        "peak resident memory {} MB",
        peak / 1024 / 1024
    );
    // Three attempts (reads are retried), each stopped near the cap, not at the end.
    let sent = written.load(Ordering::Relaxed);
    assert!(sent < TOTAL, "the client read all {sent} bytes");
}

#[tokio::test]
async fn an_announced_length_over_the_cap_is_refused_before_reading() {
    let (url, _) = flood_server(Flood {
        head: "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: 3145731",
        body_len: 3 * 1024 * 1024,
    });
    let client = ApiClient::new(
        ClientConfig::new(
            url,
            DEMO_API_KEY,
            Zeroizing::new(DEMO_API_SECRET.to_owned()),
        ),
        Arc::new(SystemClock),
    )
    .expect("a client");
    let err = client
        .call::<InstallmentList>(&endpoints::INSTALLMENT_LIST, b"{}", None)
        .await
        .expect_err("too large");
    assert!(
        matches!(err, CallError::TooLarge { status: 500, limit } if limit == MAX_ANSWER_BYTES),
        "{err:?}"
    );
    assert!(
        err.is_unknown_outcome(),
        "unread: whether it acted is unknown"
    );
}

/// A raw server answering every request with `status` and this JSON `body`.
fn fixed_server(head: &'static str, body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream);
                if read_request(&mut reader).is_some() {
                    let _ = write!(
                        reader.get_mut(),
                        "{head}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                }
            });
        }
    });
    url
}

/// A profile `shop` at `url` with the demo key, its secret in the environment.
fn cli_for(url: &str) -> Cli {
    let mut cli = Cli::new();
    cli.add_profile_at("shop", url);
    cli
}

#[test]
fn a_servers_control_characters_never_reach_the_terminal() {
    let url = fixed_server(
        "HTTP/1.1 400 Bad Request",
        "{\"success\":false,\"message\":\"bad \\u001b]0;owned\\u0007\\u001b[31mred\\u202etxt.exe\\r\\nforged line\\u009b2J\"}",
    );
    let out = cli_for(&url).run(&["--profile", "shop", "installments", "--bin", "540061"]);
    assert_eq!(out.code, 4, "a rejection: {out:?}");
    let all = out.all();
    for bad in ['\u{1b}', '\u{7}', '\u{202e}', '\r', '\u{9b}'] {
        assert!(!all.contains(bad), "{bad:?} reached the terminal: {all:?}");
    }
    assert!(
        all.contains("forged line"),
        "the text itself is kept: {all}"
    );
}

#[test]
fn a_full_card_number_in_a_saved_cards_answer_is_printed_masked() {
    let url = fixed_server(
        "HTTP/1.1 200 OK",
        r#"{"success":true,"content":{"id":"card_1","maskedPan":"5400610000000001","alias":"4111111111111111","cardHolderName":"A 5400610000000001","status":"ACTIVE"}}"#,
    );
    let cli = cli_for(&url);
    let out = cli.run_with(
        &[
            "--profile",
            "shop",
            "card",
            "save",
            "--expiry-month",
            "12",
            "--expiry-year",
            "2031",
            "--json",
        ],
        Some("5400610000000001\n123\n"),
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let all = out.all();
    assert!(all.contains("540061******0001"), "{all}");
    for full in ["5400610000000001", "4111111111111111"] {
        assert!(!all.contains(full), "a full number was printed: {all}");
    }
}

/// The services of the store in `dir`, as the CLI opens them, the demo secret given.
fn reopened(dir: &std::path::Path) -> Services {
    Services::with_store(
        Store::open(dir).expect("a store"),
        None,
        Arc::new(MemoryStore::new()),
        Arc::new(SystemClock),
        Some(Zeroizing::new(DEMO_API_SECRET.to_owned())),
    )
    .with_timeouts(Duration::from_secs(2), Duration::from_secs(3))
}

#[tokio::test]
async fn an_api_key_id_the_http_library_cannot_send_fails_the_order_and_sends_nothing() {
    let server = Scripted::start([127, 0, 0, 1]).await;
    let dir = tempfile::tempdir().expect("a temp dir");
    // A profile saved by an older paydesk, before key ids were checked.
    drop(library_services(
        Store::open(dir.path()).expect("a store"),
        &server.base_url(),
        Duration::from_secs(3),
    ));
    let file = dir.path().join("paydesk.sqlite3");
    let set_key = |key: &str| {
        rusqlite::Connection::open(&file)
            .expect("the file opens")
            .execute(
                "UPDATE profiles SET api_key = ?1 WHERE name = 'test'",
                [key],
            )
            .expect("the key is set");
    };
    set_key("demo\u{7}key");
    let services = reopened(dir.path());
    let desk = services.desk("test").expect("a desk");
    let err = desk
        .create_link(&link_request("HOSTILE-KEY-1", "10"))
        .await
        .expect_err("not sent");
    assert!(
        matches!(&err, CreateError::Desk(_)),
        "a local failure, not an unknown outcome: {err:?}"
    );
    assert!(
        err.sentence(paydesk::lang::Lang::En)
            .contains("nothing was sent"),
        "{}",
        err.sentence(paydesk::lang::Lang::En)
    );
    assert!(server.seen().is_empty(), "nothing reached the server");
    let row = services
        .inspect(|s| {
            s.journal().get(&JournalKey::new(
                "test",
                "link.create",
                "link-HOSTILE-KEY-1",
            ))
        })
        .expect("the journal reads")
        .expect("the row exists");
    assert_eq!(row.state, JournalState::Failed, "not left pending");
    drop(desk);
    drop(services);

    // With the key fixed, the same order goes through once.
    set_key(DEMO_API_KEY);
    let services = reopened(dir.path());
    let desk = services.desk("test").expect("a desk");
    desk.create_link(&link_request("HOSTILE-KEY-1", "10"))
        .await
        .expect("created");
    assert_eq!(server.links_of("HOSTILE-KEY-1").len(), 1);
}

#[test]
fn a_profile_with_a_control_character_in_its_key_id_is_refused_when_saved() {
    let cli = Cli::new();
    let out = cli.run(&[
        "profile",
        "add",
        "shop",
        "--base-url",
        "https://api.example.com",
        "--api-key",
        "key\u{7}id",
    ]);
    assert_ne!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("API key id"),
        "names the field: {out:?}"
    );
    let listed = cli.run(&["profile", "list"]);
    assert!(!listed.stdout.contains("shop"), "nothing saved: {listed:?}");
}
