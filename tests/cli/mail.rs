//! `paydesk mail …` and `paydesk link send --email` (issue 30), as the real binary against a
//! sandbox and a real SMTP server (aiosmtpd, `tests/support/smtp.rs`) on loopback: the link
//! arrives once with the exact payment address and its Turkish text intact, the queue says it
//! was sent under the Message-ID it arrived with, the audit holds the address masked; a server
//! that is down leaves the link waiting (exit 0, said) and `mail flush` sends it once the
//! server is back, whatever its wait; a bad address, a link without payer
//! e-mail, a desk without e-mail set up and plain SMTP off this computer are refused (exit 3)
//! with nothing queued; `mail test` reaches a real server, and exits 5 when none answers.

use crate::support::cli::{Cli, Out, sandbox};
use crate::support::ports::free_port;
use crate::support::smtp::{SinkMode, SmtpSink};

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "expected success:\n{out:?}");
}

const PAYER: &str = "ayse.yilmaz@example.com";

/// A sandbox, a CLI with its profile `test`, and a link of 125.50 TRY for "Doğum günü
/// pastası" whose payer e-mail is [`PAYER`]: its id and payment address.
fn a_link_with_payer_email() -> (paydesk::sandbox::SandboxHandle, Cli, String, String) {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let out = cli.link_create(
        "test",
        &[
            "--amount",
            "125.50",
            "--order-number",
            "PKT-9",
            "--description",
            "Doğum günü pastası",
            "--email",
            PAYER,
            "--json",
        ],
    );
    ok(&out);
    let link = out.json();
    let id = link["id"].as_str().expect("an id").to_owned();
    let url = link["paymentUrl"].as_str().expect("a URL").to_owned();
    (server, cli, id, url)
}

/// `paydesk mail set` to a plain server on this computer's `port`, without login.
fn mail_set(cli: &Cli, port: u16) -> Out {
    cli.run(&[
        "mail",
        "set",
        "--host",
        "127.0.0.1",
        "--port",
        &port.to_string(),
        "--from",
        "kasa@kuzey.example",
        "--name",
        "Kuzey Giyim",
        "--security",
        "none",
    ])
}

fn send_email(cli: &Cli, id: &str, extra: &[&str]) -> Out {
    let mut args = vec![
        "--profile",
        "test",
        "link",
        "send",
        id,
        "--lang",
        "tr",
        "--shop",
        "Kuzey Giyim",
        "--email",
    ];
    args.extend_from_slice(extra);
    cli.run(&args)
}

fn queue(cli: &Cli) -> Vec<serde_json::Value> {
    let out = cli.run(&["mail", "status", "--json"]);
    ok(&out);
    out.json().as_array().expect("a list").clone()
}

#[test]
fn a_link_sent_by_email_arrives_once_with_the_exact_address_and_the_queue_and_audit_say_so() {
    let sink = SmtpSink::start(SinkMode::Accept);
    let (_server, cli, id, url) = a_link_with_payer_email();
    ok(&mail_set(&cli, sink.port));

    let out = send_email(&cli, &id, &[]);
    ok(&out);
    assert!(out.stdout.contains("a***@example.com"), "{out:?}");

    let received = sink.received();
    assert_eq!(received.len(), 1, "{received:?}\n{}", sink.log());
    let m = &received[0];
    assert_eq!(m.rcpt, [PAYER]);
    assert_eq!(m.from, "Kuzey Giyim <kasa@kuzey.example>");
    assert!(
        m.subject.starts_with("Kuzey Giyim: 125,50 ₺"),
        "{}",
        m.subject
    );
    let text = &m.parts[0].content;
    assert!(text.contains(&format!("\n{url}\n")), "{text}");
    assert!(text.contains("Doğum günü pastası"), "{text}");
    assert!(text.contains("PKT-9"), "{text}");

    let queued = queue(&cli);
    assert_eq!(queued.len(), 1, "{queued:?}");
    assert_eq!(queued[0]["state"], "sent");
    assert_eq!(queued[0]["to"], PAYER);
    assert_eq!(queued[0]["messageId"].as_str(), Some(m.message_id.as_str()));

    // The link's record of where it went.
    let listed = cli.run(&["--profile", "test", "link", "list", "--json"]);
    ok(&listed);
    let listed = listed.json();
    let entry = listed
        .as_array()
        .expect("links")
        .iter()
        .find(|l| l["id"] == id.as_str())
        .expect("the link is listed")
        .clone();
    let sent = entry["sent"].as_array().expect("sent");
    assert_eq!(sent.len(), 1, "{entry}");
    assert_eq!(sent[0]["channel"], "e-mail");
    assert!(
        sent[0]["at"].is_string() && sent[0]["by"].is_null(),
        "{entry}"
    );

    let audit = cli.run(&["audit", "list", "--json"]);
    ok(&audit);
    let rows = audit.json();
    let rows = rows.as_array().expect("rows");
    let sent: Vec<&str> = rows
        .iter()
        .filter(|r| r["action"] == "link.send")
        .map(|r| r["subject"].as_str().expect("a subject"))
        .collect();
    assert_eq!(sent.len(), 1, "{rows:?}");
    assert!(sent[0].contains("a***@example.com") && !sent[0].contains(PAYER));
    assert!(
        rows.iter().any(|r| r["action"] == "mail.settings"),
        "{rows:?}"
    );
}

#[test]
fn with_the_mail_server_down_the_link_waits_to_be_sent_and_says_so() {
    let port = free_port();
    let (_server, cli, id, _) = a_link_with_payer_email();
    ok(&mail_set(&cli, port));
    let out = send_email(&cli, &id, &["musteri@example.com"]);
    ok(&out);
    assert!(out.stdout.contains("m***@example.com"), "{out:?}");
    let queued = queue(&cli);
    assert_eq!(queued.len(), 1, "{queued:?}");
    assert_eq!(queued[0]["state"], "waiting");
    assert_eq!(queued[0]["to"], "musteri@example.com");
    assert!(queued[0]["error"].as_str().is_some_and(|e| !e.is_empty()));

    // The server is back: `mail flush` sends it now, inside its 30 s wait, and only once.
    let sink = SmtpSink::start_on(port, SinkMode::Accept, None);
    let flush = cli.run(&["mail", "flush"]);
    ok(&flush);
    assert!(flush.stdout.contains("1 message sent"), "{flush:?}");
    ok(&cli.run(&["mail", "flush"]));
    let received = sink.received();
    assert_eq!(received.len(), 1, "{received:?}\n{}", sink.log());
    assert_eq!(received[0].rcpt, ["musteri@example.com"]);
    let queued = queue(&cli);
    assert_eq!(queued[0]["state"], "sent", "{queued:?}");
    assert_eq!(
        queued[0]["messageId"].as_str(),
        Some(received[0].message_id.as_str())
    );
}

#[test]
fn bad_addresses_a_desk_without_email_and_plain_smtp_elsewhere_are_refused_with_nothing_queued() {
    let (_server, cli, id, _) = a_link_with_payer_email();
    // Not set up yet.
    let out = send_email(&cli, &id, &[]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("mail set"), "{out:?}");
    // Plain SMTP to another computer: refused, nothing kept.
    let plain = cli.run(&[
        "mail",
        "set",
        "--host",
        "mail.example.com",
        "--from",
        "kasa@kuzey.example",
        "--security",
        "none",
    ]);
    assert_eq!(plain.code, 3, "{plain:?}");
    assert!(plain.stderr.contains("mail.example.com"), "{plain:?}");
    assert_eq!(send_email(&cli, &id, &[]).code, 3);

    ok(&mail_set(&cli, free_port()));
    let bad = send_email(&cli, &id, &["not-an-address"]);
    assert_eq!(bad.code, 3, "{bad:?}");
    assert!(bad.stderr.to_lowercase().contains("e-mail"), "{bad:?}");
    // A link without payer e-mail and no address typed.
    let other = cli.link_create("test", &["--amount", "10", "--json"]);
    let other_id = other.link_id();
    let none = send_email(&cli, &other_id, &[]);
    assert_eq!(none.code, 3, "{none:?}");
    assert!(none.stderr.contains("--email"), "{none:?}");
    assert!(queue(&cli).is_empty());
}

#[test]
fn mail_test_reaches_a_real_server_and_exits_5_when_none_answers() {
    let sink = SmtpSink::start(SinkMode::Accept);
    let cli = Cli::new();
    ok(&mail_set(&cli, sink.port));
    let out = cli.run(&["mail", "test", "kasa@kuzey.example"]);
    ok(&out);
    let received = sink.received();
    assert_eq!(received.len(), 1, "{received:?}");
    assert_eq!(received[0].rcpt, ["kasa@kuzey.example"]);
    drop(sink);

    let down = Cli::new();
    ok(&mail_set(&down, free_port()));
    let out = down.run(&["mail", "test", "kasa@kuzey.example"]);
    assert_eq!(out.code, 5, "{out:?}");
}

#[test]
fn a_message_the_server_refuses_for_good_exits_4_with_its_words_and_is_kept_not_retried() {
    let sink = SmtpSink::start(SinkMode::Refuse);
    let (_server, cli, id, _) = a_link_with_payer_email();
    ok(&mail_set(&cli, sink.port));
    let out = send_email(&cli, &id, &[]);
    assert_eq!(out.code, 4, "{out:?}");
    assert!(out.stderr.contains("sender not allowed"), "{out:?}");
    let queued = queue(&cli);
    assert_eq!(queued.len(), 1, "{queued:?}");
    assert_eq!(queued[0]["state"], "refused");
    assert!(
        queued[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("sender not allowed")),
        "{queued:?}"
    );
    // A pass now sends nothing again: the refusal is final, not a wait.
    let flush = cli.run(&["mail", "flush"]);
    ok(&flush);
    assert_eq!(queue(&cli)[0]["attempts"], 1, "{:?}", queue(&cli));
    assert!(sink.received().is_empty());
}
