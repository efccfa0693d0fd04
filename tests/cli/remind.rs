//! The one reminder of a link sent by e-mail and not paid (issue 30), as the real binary
//! against a sandbox and a real SMTP server (aiosmtpd) on loopback: `mail flush` queues the
//! reminders whose time has come (by default 2 hours before the expiry) with what waits, and
//! sends each once; a link whose time has not come, or that was paid, gets none.

use crate::support::cli::{Cli, Out, sandbox};
use crate::support::smtp::{SinkMode, SmtpSink};

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "expected success:\n{out:?}");
}

const PAYER: &str = "ayse.yilmaz@example.com";

/// A link of `amount` for order `order`, expiring in `expires_in`, to [`PAYER`]: its id and
/// payment address.
fn link(cli: &Cli, order: &str, amount: &str, expires_in: &str) -> (String, String) {
    let out = cli.link_create(
        "test",
        &[
            "--amount",
            amount,
            "--order-number",
            order,
            "--expires-in",
            expires_in,
            "--email",
            PAYER,
            "--json",
        ],
    );
    ok(&out);
    let link = out.json();
    (
        link["id"].as_str().expect("an id").to_owned(),
        link["paymentUrl"].as_str().expect("a URL").to_owned(),
    )
}

#[test]
fn a_link_sent_by_email_is_reminded_once_when_its_time_comes_and_a_paid_one_never() {
    let sink = SmtpSink::start(SinkMode::Accept);
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    ok(&cli.run(&[
        "mail",
        "set",
        "--host",
        "127.0.0.1",
        "--port",
        &sink.port.to_string(),
        "--from",
        "kasa@kuzey.example",
        "--name",
        "Kuzey Giyim",
        "--security",
        "none",
    ]));
    // Due: it expires 2 hours and 20 seconds from now, so its reminder time (2 hours before)
    // comes 20 seconds after it was made (room for the sends on a loaded machine). Not yet: in 5 hours. Paid: due, but the payer paid.
    // Just had it: sent 90 minutes before it expires, inside its reminder time.
    let made = std::time::Instant::now();
    let (due, due_url) = link(&cli, "REM-DUE", "40.00", "7220s");
    let (later, _) = link(&cli, "REM-LATER", "50.00", "5h");
    let (paid, _) = link(&cli, "REM-PAID", "60.00", "7220s");
    let (inside, _) = link(&cli, "REM-INSIDE", "70.00", "90m");
    for id in [&due, &later, &paid, &inside] {
        ok(&cli.run(&["--profile", "test", "link", "send", id, "--email"]));
    }
    assert_eq!(sink.received().len(), 4, "{}", sink.log());
    // Before its time, a pass sends no reminder.
    ok(&cli.run(&["--profile", "test", "mail", "flush"]));
    assert!(
        sink.received()
            .iter()
            .all(|m| !m.subject.starts_with("Hatırlatma: ")),
        "{}",
        sink.log()
    );
    std::thread::sleep(std::time::Duration::from_secs(21).saturating_sub(made.elapsed()));
    server
        .admin()
        .pay(&paid, None)
        .expect("the sandbox takes the payment");
    ok(&cli.run(&["--profile", "test", "link", "show", &paid, "--refresh"]));

    ok(&cli.run(&["--profile", "test", "mail", "flush"]));
    // The paid link gets its receipt (it has a payer e-mail), not a reminder.
    let reminders = || {
        sink.received()
            .into_iter()
            .filter(|m| m.subject.starts_with("Hatırlatma: "))
            .collect::<Vec<_>>()
    };
    let received = reminders();
    assert_eq!(received.len(), 1, "one reminder: {}", sink.log());
    let reminder = &received[0];
    assert!(reminder.subject.contains("40,00"), "{}", reminder.subject);
    assert_eq!(reminder.rcpt, [PAYER]);
    let text = &reminder
        .parts
        .iter()
        .find(|p| p.content_type == "text/plain")
        .expect("a plain-text part")
        .content;
    assert!(text.contains(&due_url), "the exact payment URL: {text}");
    assert!(text.contains("süresi"), "it says when it expires: {text}");

    // Once: later passes send nothing more for it.
    let all = sink.received().len();
    ok(&cli.run(&["--profile", "test", "mail", "flush"]));
    ok(&cli.run(&["--profile", "test", "mail", "flush"]));
    assert_eq!(sink.received().len(), all, "{}", sink.log());
    let audit = cli.run(&["audit", "list", "--json"]);
    ok(&audit);
    let sends_of_due = audit
        .json()
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["action"] == "link.send")
        .filter(|r| {
            r["subject"]
                .as_str()
                .is_some_and(|s| s.starts_with(&format!("{due} ")))
        })
        .count();
    assert_eq!(sends_of_due, 2, "the send and its reminder, each on record");
    let _ = (later, inside);
}
