//! The link e-mail's inline QR code and the receipt (issue 30), as the real binary against a
//! sandbox and a real SMTP server (aiosmtpd, `tests/support/smtp.rs`) on loopback: the link's
//! message arrives with a PNG part whose `Content-ID` the HTML names and whose QR code reads
//! back (`rqrr`) as the exact payment URL; a link paid in full and heard so by `link show
//! --refresh` sends one receipt to the payer on its own (a second refresh none), with a PDF
//! whose text (`pdftotext`) holds the link's figures, its order number and transaction
//! reference; `link receipt` sends one more on request, and refuses a link not paid in full, a
//! bad address and a desk without e-mail (exit 3); `mail set --receipts off` stops the
//! automatic one.

use std::process::Command;

use crate::support::cli::{Cli, Out, sandbox};
use crate::support::qr::{decode, grey_png};
use crate::support::smtp::{Received, SinkMode, SmtpSink};

const PAYER: &str = "ayse.yilmaz@example.com";

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "expected success:\n{out:?}");
}

/// A link of 250 TRY numbered `order` with two item lines and the payer's e-mail: its id and
/// payment URL.
fn a_link_with_items(cli: &Cli, order: &str) -> (String, String) {
    let out = cli.link_create(
        "test",
        &[
            "--amount",
            "250",
            "--order-number",
            order,
            "--item",
            "Filtre kahve:75x2",
            "--item",
            "Kurabiye:100",
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

fn mail_set(cli: &Cli, port: u16, extra: &[&str]) -> Out {
    let port = port.to_string();
    let mut args = vec![
        "mail",
        "set",
        "--host",
        "127.0.0.1",
        "--port",
        &port,
        "--from",
        "kasa@kuzey.example",
        "--name",
        "Kuzey Giyim",
        "--security",
        "none",
    ];
    args.extend_from_slice(extra);
    cli.run(&args)
}

fn pdf_text(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("receipt.pdf");
    std::fs::write(&path, bytes).expect("write");
    let out = Command::new("pdftotext")
        .args(["-layout"])
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils) runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn receipts(sink: &SmtpSink) -> Vec<Received> {
    sink.received()
        .into_iter()
        .filter(|m| m.parts.iter().any(|p| p.content_type == "application/pdf"))
        .collect()
}

#[test]
fn the_link_email_carries_its_qr_code_inline_as_a_png_of_the_exact_url() {
    let sink = SmtpSink::start(SinkMode::Accept);
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let (id, url) = a_link_with_items(&cli, "PKT-9");
    ok(&mail_set(&cli, sink.port, &[]));
    ok(&cli.run(&[
        "--profile",
        "test",
        "link",
        "send",
        &id,
        "--lang",
        "tr",
        "--email",
    ]));
    let received = sink.received();
    assert_eq!(received.len(), 1, "{received:?}\n{}", sink.log());
    let m = &received[0];
    assert_eq!(m.content_type, "multipart/related", "{}", m.raw);
    let text = m.parts.iter().find(|p| p.content_type == "text/plain");
    assert!(
        text.expect("a text part")
            .content
            .contains(&format!("\n{url}\n"))
    );
    let html = m.parts.iter().find(|p| p.content_type == "text/html");
    let html = &html.expect("an HTML part").content;
    let png = m
        .parts
        .iter()
        .find(|p| p.content_type == "image/png")
        .expect("an image part");
    let cid = png.content_id.as_deref().expect("a Content-ID");
    let cid = cid.trim_start_matches('<').trim_end_matches('>');
    assert!(html.contains(&format!("src=\"cid:{cid}\"")), "{html}");
    let bytes = png.bytes();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(decode(&grey_png(&bytes)).0, url);
}

#[test]
fn a_link_heard_paid_sends_one_receipt_with_its_figures_and_on_request_another() {
    let sink = SmtpSink::start(SinkMode::Accept);
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let (id, _) = a_link_with_items(&cli, "PKT-9");
    // Not paid yet: refused, nothing queued.
    ok(&mail_set(&cli, sink.port, &[]));
    let early = cli.run(&[
        "--profile",
        "test",
        "link",
        "receipt",
        &id,
        "--email",
        PAYER,
    ]);
    assert_eq!(early.code, 3, "{early:?}");
    assert!(early.stderr.contains("not paid in full"), "{early:?}");

    let paid = server.admin().pay(&id, None).expect("paid");
    let tx = paid
        .transaction_ref
        .clone()
        .expect("a transaction reference");
    ok(&cli.run(&["--profile", "test", "link", "show", &id, "--refresh"]));
    ok(&cli.run(&["mail", "flush"]));
    ok(&cli.run(&["--profile", "test", "link", "show", &id, "--refresh"]));
    ok(&cli.run(&["mail", "flush"]));
    let got = receipts(&sink);
    assert_eq!(got.len(), 1, "{got:?}\n{}", sink.log());
    let r = &got[0];
    assert_eq!(r.rcpt, [PAYER]);
    assert_eq!(
        r.subject,
        "Kuzey Giyim: 250,00 ₺ tutarındaki ödemenizin makbuzu"
    );
    let text = &r.parts[0].content;
    for want in [
        "- 2 × Filtre kahve: 150,00 ₺",
        "- 1 × Kurabiye: 100,00 ₺",
        "Toplam: 250,00 ₺",
        "Ödenen: 250,00 ₺",
        "Sipariş numarası: PKT-9",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    assert!(text.contains(&format!("İşlem referansı: {tx}")), "{text}");
    let pdf = r
        .parts
        .iter()
        .find(|p| p.content_type == "application/pdf")
        .expect("a PDF");
    assert_eq!(pdf.filename.as_deref(), Some("makbuz-PKT-9.pdf"));
    let bytes = pdf.bytes();
    assert!(bytes.starts_with(b"%PDF-"));
    let words = pdf_text(&bytes);
    for want in [
        "Kuzey Giyim",
        "Makbuz",
        "2 × Filtre kahve",
        "150,00 ₺",
        "100,00 ₺",
        "Toplam",
        "250,00 ₺",
        "PKT-9",
        &tx,
    ] {
        assert!(words.contains(want), "{want}\n{words}");
    }

    // On request, to another address, in English: sent now.
    let asked = cli.run(&[
        "--profile",
        "test",
        "link",
        "receipt",
        &id,
        "--email",
        "muhasebe@example.com",
        "--lang",
        "en",
    ]);
    ok(&asked);
    assert!(asked.stdout.contains("m***@example.com"), "{asked:?}");
    let got = receipts(&sink);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1].rcpt, ["muhasebe@example.com"]);
    assert!(
        got[1].parts[0].content.contains("Total: ₺250.00"),
        "{:?}",
        got[1].parts[0]
    );
    // Both audited as receipts, the addresses masked.
    let audit = cli.run(&["audit", "list", "--json"]);
    ok(&audit);
    let rows = audit.json();
    let subjects: Vec<&str> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["action"] == "link.receipt")
        .map(|r| r["subject"].as_str().expect("a subject"))
        .collect();
    // Newest first.
    assert_eq!(
        subjects,
        [
            format!("{id} e-mail m***@example.com"),
            format!("{id} e-mail a***@example.com")
        ]
    );
    // A bad address is refused.
    let bad = cli.run(&["--profile", "test", "link", "receipt", &id, "--email", "x@"]);
    assert_eq!(bad.code, 3, "{bad:?}");
}

#[test]
fn receipts_turned_off_send_nothing_on_their_own_and_a_desk_without_email_refuses() {
    let sink = SmtpSink::start(SinkMode::Accept);
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let (id, _) = a_link_with_items(&cli, "PKT-9");
    server.admin().pay(&id, None).expect("paid");
    // No e-mail set up: the refresh stores the payment and queues nothing; asked, exit 3.
    ok(&cli.run(&["--profile", "test", "link", "show", &id, "--refresh"]));
    let asked = cli.run(&[
        "--profile",
        "test",
        "link",
        "receipt",
        &id,
        "--email",
        PAYER,
    ]);
    assert_eq!(asked.code, 3, "{asked:?}");
    assert!(asked.stderr.contains("mail set"), "{asked:?}");

    let (id, _) = a_link_with_items(&cli, "PKT-10");
    let set = mail_set(&cli, sink.port, &["--receipts", "off"]);
    ok(&set);
    server.admin().pay(&id, None).expect("paid");
    ok(&cli.run(&["--profile", "test", "link", "show", &id, "--refresh"]));
    ok(&cli.run(&["mail", "flush"]));
    assert!(receipts(&sink).is_empty(), "{:?}", sink.received());
    let status = cli.run(&["mail", "status", "--json"]);
    ok(&status);
    assert_eq!(
        status.json().as_array().map(Vec::len),
        Some(0),
        "{status:?}"
    );
}
