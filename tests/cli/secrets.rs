//! Secrets and card numbers at the command line, with the real binary: a card number given
//! as `installments --bin` is refused (exit 3) before anything leaves the machine, a hidden
//! prompt interrupted with Ctrl+C leaves the terminal as it was (echo on), and `--help`
//! says both and lists the exit codes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::cli::Cli;
use paydesk::sandbox::DEMO_API_SECRET;

/// A server that counts the connections it gets and answers each request with a 400 error
/// envelope, so a command that does send something ends at once (exit 4).
fn counting_server() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            seen.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" {
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    let answer = r#"{"success":false,"messageKey":"binnumber.invalid","message":"counted","httpStatus":400}"#;
                    let _ = write!(
                        reader.get_mut(),
                        "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\
                         Content-Length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                    length = 0;
                }
            }
        }
    });
    (url, count)
}

#[test]
fn installments_refuses_a_card_number_as_bin_and_sends_nothing() {
    let (url, connections) = counting_server();
    let mut cli = Cli::new();
    cli.add_profile_at("shop", &url);

    for pan in [
        "5400610000000001",
        "5400 6100 0000 0001",
        "5400-6100-0",
        "540061000",
    ] {
        let out = cli.run(&["--profile", "shop", "installments", "--bin", pan]);
        assert_eq!(out.code, 3, "{pan}: {out:?}");
        assert!(out.stderr.starts_with("--bin: "), "names the flag: {out:?}");
        assert!(out.stderr.contains("at most 8 digits"), "{out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        assert!(
            !out.all().contains("54006100"),
            "the digits are not echoed: {out:?}"
        );
    }
    let turkish = cli.run_with(
        &[
            "--profile",
            "shop",
            "installments",
            "--bin",
            "5400610000000001",
        ],
        None,
        &[("LC_ALL", "tr_TR.UTF-8")],
    );
    assert_eq!(turkish.code, 3, "{turkish:?}");
    assert!(
        turkish.stderr.starts_with("--bin: en fazla 8 rakam"),
        "{turkish:?}"
    );
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "nothing reached the server"
    );

    // The same server does count a request that is sent: 8 digits are a BIN (6 are used).
    let sent = cli.run(&["--profile", "shop", "installments", "--bin", "54006100"]);
    assert_eq!(sent.code, 4, "{sent:?}");
    assert!(sent.stderr.contains("binnumber.invalid"), "{sent:?}");
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[test]
fn help_lists_the_exit_codes_and_the_bin_refusal() {
    let cli = Cli::new();
    let help = cli.run(&["--help"]);
    assert_eq!(help.code, 0, "{help:?}");
    for words in [
        "3    invalid input; nothing was sent",
        "4    refused by the server, and it holds no link",
        "5    outcome unknown",
        "a redirect (never followed)",
        "23 hours old: nothing is sent",
        "130  stopped with Ctrl+C",
        "PAYDESK_API_SECRET and PAYDESK_STAFF_PIN are read once",
        "6    `audit verify`: the audit chain is broken",
        "more than 8 digits is refused (exit 3)",
    ] {
        assert!(help.stdout.contains(words), "--help lacks {words:?}");
    }
    let installments = cli.run(&["installments", "--help"]);
    assert!(
        installments
            .stdout
            .contains("More than 8 digits is refused with exit 3"),
        "{}",
        installments.stdout
    );
}

/// `paydesk profile set-secret` on a real terminal (a pseudo-terminal made by `script`), with
/// Ctrl+C typed at the hidden prompt: paydesk stops with 130, nothing typed was shown, and
/// the terminal has echo, line editing and Ctrl+C back, also under a shell that does not
/// restore the terminal itself (`sh` here).
#[cfg(unix)]
#[test]
fn ctrl_c_at_a_hidden_prompt_gives_the_terminal_back() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let cli = Cli::new();
    let script = format!(
        "'{bin}' --data-dir '{dir}' profile set-secret sandbox; echo \"rc=$?\"; stty -a; echo done",
        bin = crate::support::cli::BIN,
        dir = cli.data_dir().display()
    );
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &script, "/dev/null"])
        .env("SHELL", "/bin/sh")
        .env("LC_ALL", "C")
        .env_remove("PAYDESK_API_SECRET")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(1024);
    std::thread::spawn(move || {
        let mut buf = [0; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut screen = String::new();
    let read_until = |marker: &str, screen: &mut String| {
        let start = Instant::now();
        while !screen.contains(marker) {
            assert!(
                start.elapsed() < Duration::from_mins(1),
                "no {marker:?} in {screen:?}"
            );
            if let Ok(bytes) = rx.recv_timeout(Duration::from_millis(100)) {
                screen.push_str(&String::from_utf8_lossy(&bytes));
            }
        }
    };
    read_until("API secret: ", &mut screen);
    // The prompt is written just before the terminal is switched to hidden input.
    std::thread::sleep(Duration::from_millis(500));
    stdin
        .write_all(b"typed-secret\x03")
        .expect("keys reach the terminal");
    read_until("done", &mut screen);
    drop(stdin);
    let _ = child.wait();

    assert!(screen.contains("rc=130"), "{screen}");
    assert!(!screen.contains("typed-secret"), "echo was off: {screen}");
    let modes: Vec<&str> = screen.split_whitespace().collect();
    for mode in ["echo", "icanon", "isig"] {
        assert!(
            modes.contains(&mode) && !modes.contains(&format!("-{mode}").as_str()),
            "{mode} should be on again: {screen}"
        );
    }
}

/// The secret given in the environment is gone from what the kernel shows of the running
/// process (`/proc/PID/environ` reads the block the process started with: removing the
/// variable from the environment list alone leaves it readable there for the whole run).
#[cfg(target_os = "linux")]
#[test]
fn the_api_secret_and_staff_pin_are_unreadable_in_proc_environ_while_paydesk_runs() {
    let secret = "sk_environ_marker_7c1e9b";
    let pin = "73910482";
    let cli = Cli::new();
    let mut cmd = cli.command(&["sandbox", "--addr", "127.0.0.1:0"]);
    cmd.env("PAYDESK_API_SECRET", secret)
        .env("PAYDESK_STAFF_PIN", pin)
        .env("PAYDESK_VISIBLE_MARKER", "still_here_4d2");
    let mut child = cmd.spawn().expect("paydesk starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    // Once it listens, `main` is long past reading the secret.
    let listening = lines
        .find_map(|l| l.ok().filter(|l| l.contains("listening on")))
        .is_some();
    let environ = std::fs::read(format!("/proc/{}/environ", child.id()));
    let _ = child.kill();
    let _ = child.wait();
    assert!(listening, "the sandbox started");
    let environ = environ.expect("the process's environment is readable by its owner");
    let text = String::from_utf8_lossy(&environ);
    assert!(
        text.contains("PAYDESK_VISIBLE_MARKER=still_here_4d2"),
        "the test reads the real block: {text}"
    );
    assert!(
        !text.contains(secret),
        "the secret is still in /proc/PID/environ"
    );
    assert!(
        !text.contains(pin),
        "the staff PIN is still in /proc/PID/environ"
    );
}

/// How many times `needle` stands in the writable memory of process `pid` (its heap, stacks
/// and data), read through `/proc/PID/mem` as a debugger would.
#[cfg(target_os = "linux")]
fn copies_in_memory(pid: u32, needle: &[u8]) -> usize {
    use std::os::unix::fs::FileExt;
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("the maps read");
    let mem = std::fs::File::open(format!("/proc/{pid}/mem")).expect("the memory opens");
    let mut found = 0;
    for line in maps.lines() {
        let mut fields = line.split_whitespace();
        let (Some(range), Some(perms)) = (fields.next(), fields.next()) else {
            continue;
        };
        if !perms.starts_with("rw") {
            continue;
        }
        let Some((start, end)) = range.split_once('-') else {
            continue;
        };
        let start = u64::from_str_radix(start, 16).expect("an address");
        let end = u64::from_str_radix(end, 16).expect("an address");
        let mut region = vec![0; usize::try_from(end - start).expect("a size")];
        if mem.read_exact_at(&mut region, start).is_ok() {
            found += region
                .windows(needle.len())
                .filter(|w| *w == needle)
                .count();
        }
    }
    found
}

/// Whether a thread of `pid` is blocked in `read(2)`.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
fn blocked_in_read(pid: u32) -> bool {
    let read_nr = if cfg!(target_arch = "x86_64") {
        "0"
    } else {
        "63"
    };
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|task| {
            std::fs::read_to_string(task.path().join("syscall"))
                .is_ok_and(|s| s.split_whitespace().next() == Some(read_nr))
        })
}

/// A card number piped to `card save` is kept once, in the zeroizing buffer that holds it: not
/// also in std's shared stdin buffer, nor in the copies a growing line leaves behind. Checked
/// in the running process's memory while it waits for the CVV line.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
#[test]
fn a_piped_card_number_is_held_once_in_memory_while_the_cli_reads_on() {
    let pan = b"6011987612349870";
    let mut cli = Cli::new();
    cli.env("PAYDESK_API_SECRET", DEMO_API_SECRET);
    let mut cmd = cli.command(&[
        "card",
        "save",
        "--expiry-month",
        "12",
        "--expiry-year",
        "2031",
    ]);
    cmd.stdin(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("paydesk starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin
        .write_all(b"6011987612349870\n")
        .expect("the number is written");
    stdin.flush().expect("flushed");
    // Wait for the event: the number read into the process, and a thread back in read(2)
    // for the next line.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let copies = loop {
        let copies = copies_in_memory(pid, pan);
        if copies > 0 && blocked_in_read(pid) && copies_in_memory(pid, pan) == copies {
            break copies;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the CLI never read the number"
        );
        std::thread::yield_now();
    };
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(copies, 1, "the number stands {copies} times in memory");
}

/// A server that takes one request, hands its body over, and never answers.
fn silent_server() -> (String, std::sync::mpsc::Receiver<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    let (tx, rx) = std::sync::mpsc::sync_channel(16);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let mut reader = BufReader::new(stream);
            if let Some(body) = crate::support::raw::read_request(&mut reader) {
                let _ = tx.send(body);
            }
            held.push(reader);
        }
    });
    (url, rx)
}

/// While card save waits for the server's answer, the number stands in memory only where it
/// is still needed (the validated request and the body being sent): the copy handed to the
/// HTTP library is wiped when the library lets go of it.
#[cfg(target_os = "linux")]
#[test]
fn a_sent_card_number_leaves_no_unwiped_copy_while_the_answer_is_awaited() {
    let pan = b"6011987612349870";
    let (url, bodies) = silent_server();
    let mut cli = Cli::new();
    cli.add_profile_at("shop", &url);
    let mut cmd = cli.command(&[
        "--profile",
        "shop",
        "card",
        "save",
        "--expiry-month",
        "12",
        "--expiry-year",
        "2031",
    ]);
    cmd.stdin(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("paydesk starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin
        .write_all(b"6011987612349870\n123\n")
        .expect("the card is written");
    drop(stdin);
    let body = bodies
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the card reached the server");
    assert!(String::from_utf8_lossy(&body).contains("6011987612349870"));
    // The request is out; what the process still holds settles as the HTTP library finishes
    // with the body. The fewest copies seen over a run of scans is what is really kept.
    let fewest = (0..5)
        .map(|_| {
            std::thread::yield_now();
            copies_in_memory(pid, pan)
        })
        .min()
        .unwrap_or(usize::MAX);
    let _ = child.kill();
    let _ = child.wait();
    assert!(fewest <= 2, "the number stands {fewest} times in memory");
}
