//! The mail queue sent to a real SMTP server (aiosmtpd, `tests/support/smtp.rs`): a queued
//! link arrives once with its `Message-ID`, subject and both parts; a server that is down, or
//! one that cuts the connection after the data and before its 250, leaves the message queued
//! and it goes again, with the same `Message-ID`, once the wait is over; plain SMTP off this
//! computer is refused before anything is sent; SMTPS checks the server's certificate against
//! a CA file and its name; a hostile server (an endless line, a byte at a time) is cut at the
//! reply cap or given up at the message's deadline.

use std::path::{Path, PathBuf};

use chrono::Duration;
use paydesk::clock::{Clock, ManualClock, Zone};
use paydesk::domain::share::{ItemLine, LinkFacts, Purpose, compose};
use paydesk::domain::{Currency, EmailAddress};
use paydesk::lang::Lang;
use paydesk::mail::{MailError, Security, SmtpSettings, send_queued};
use paydesk::store::{NewMail, Store};
use rust_decimal::Decimal;

use crate::support::ports::free_port;
use crate::support::smtp::{SinkMode, SmtpSink};
use crate::support::time::t0;

const URL: &str = "https://pay.example/l/lnk_1?a=1&b=2";

fn from() -> EmailAddress {
    EmailAddress::parse("kasa@kuzey.example").expect("address")
}

fn settings(host: &str, port: u16, security: Security) -> SmtpSettings {
    let mut s = SmtpSettings::new(host, security, from(), "Kuzey Giyim");
    s.port = port;
    s.timeout = std::time::Duration::from_secs(10);
    s
}

/// A store with one Turkish message for `ayse@example.com` queued at t0; returns its id.
fn queued(store: &mut Store, clock: &ManualClock) -> i64 {
    let facts = LinkFacts {
        shop_name: "Kuzey Giyim".into(),
        amount: Decimal::new(123_450, 2),
        currency: Currency::Try,
        purpose: Purpose::Items(vec![ItemLine {
            name: "Kazak <XL> & atkı".into(),
            quantity: 2,
            line_total: Some(Decimal::new(123_450, 2)),
        }]),
        order_number: Some("KG-0042".into()),
        expiry: Some(t0() + Duration::days(1)),
        payment_url: URL.into(),
    };
    let message = compose(&facts, Lang::Tr, Zone::hours(3));
    let to = EmailAddress::parse("ayse@example.com").expect("address");
    let from = from();
    store
        .mail_enqueue(
            &NewMail {
                link_id: "lnk_1",
                to: &to,
                from: &from,
                message: &message,
            },
            clock.now(),
        )
        .expect("queued")
        .id
}

/// A store in memory with one queued link message: the store, the message's row id and its
/// Message-ID.
fn one_queued(clock: &ManualClock) -> (Store, i64, String) {
    let mut store = Store::open_in_memory().expect("store");
    let id = queued(&mut store, clock);
    let message_id = store
        .mail_queue()
        .get(id)
        .expect("read")
        .expect("row")
        .message_id;
    (store, id, message_id)
}

/// One sending pass over `store` (which `send_queued` takes behind its lock, as the service
/// holds it), the store given back afterwards.
async fn pass(
    store: &mut Store,
    clock: &ManualClock,
    settings: &SmtpSettings,
    password: Option<&paydesk::mail::SmtpPassword>,
) -> Result<paydesk::mail::SendReport, MailError> {
    let placeholder = Store::open_in_memory().expect("store");
    let locked = std::sync::Mutex::new(std::mem::replace(store, placeholder));
    let report = send_queued(&locked, clock, settings, password).await;
    *store = locked.into_inner().expect("not poisoned");
    report
}

#[tokio::test]
async fn a_queued_link_arrives_once_with_its_message_id_subject_and_both_parts() {
    let sink = SmtpSink::start(SinkMode::Accept);
    let clock = ManualClock::new(t0());
    let (mut store, id, message_id) = one_queued(&clock);
    let s = settings("127.0.0.1", sink.port, Security::None);

    let report = pass(&mut store, &clock, &s, None).await.expect("a pass");
    assert_eq!(report.sent, [id], "{report:?}\n{}", sink.log());
    assert!(report.failed.is_empty());
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert_eq!((row.sent_at, row.attempts), (Some(t0()), 1));

    // A second pass finds nothing due: the message arrived once.
    let again = pass(&mut store, &clock, &s, None).await.expect("a pass");
    assert!(again.sent.is_empty() && again.failed.is_empty());
    let received = sink.received();
    assert_eq!(received.len(), 1, "{received:?}");
    let m = &received[0];
    assert_eq!(m.rcpt, ["ayse@example.com"]);
    assert_eq!(m.message_id, message_id);
    assert_eq!(
        m.subject,
        "Kuzey Giyim: 1.234,50 ₺ tutarında ödeme linkiniz"
    );
    assert_eq!(m.from, "Kuzey Giyim <kasa@kuzey.example>");
    assert_eq!(m.to, "ayse@example.com");
    assert_eq!(m.content_type, "multipart/alternative");
    let types: Vec<&str> = m.parts.iter().map(|p| p.content_type.as_str()).collect();
    assert_eq!(types, ["text/plain", "text/html"]);
    let text = &m.parts[0].content;
    assert!(text.contains(&format!("\n{URL}\n")), "{text}");
    assert!(text.contains("2 × Kazak <XL> & atkı: 1.234,50 ₺"), "{text}");
    let html = &m.parts[1].content;
    assert!(html.contains("Kazak &lt;XL&gt; &amp; atkı"), "{html}");
    assert!(
        html.contains("href=\"https://pay.example/l/lnk_1?a=1&amp;b=2\""),
        "{html}"
    );
}

#[tokio::test]
async fn a_server_that_is_down_leaves_the_message_queued_until_it_is_up() {
    let port = free_port();
    let clock = ManualClock::new(t0());
    let (mut store, id, message_id) = one_queued(&clock);
    let s = settings("127.0.0.1", port, Security::None);

    let report = pass(&mut store, &clock, &s, None).await.expect("a pass");
    assert!(report.sent.is_empty());
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert_eq!(report.failed[0].2, t0() + Duration::seconds(30));
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert_eq!((row.sent_at, row.attempts), (None, 1));
    assert!(row.last_error.is_some());

    let sink = SmtpSink::start_on(port, SinkMode::Accept, None);
    // Up now, but the message waits its 30 s.
    clock.advance(Duration::seconds(29));
    let early = pass(&mut store, &clock, &s, None).await.expect("a pass");
    assert!(early.sent.is_empty() && early.failed.is_empty());
    assert!(sink.received().is_empty());
    clock.advance(Duration::seconds(1));
    let report = pass(&mut store, &clock, &s, None).await.expect("a pass");
    assert_eq!(report.sent, [id], "{report:?}\n{}", sink.log());
    let received = sink.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].message_id, message_id);
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert_eq!((row.attempts, row.last_error), (2, None));
}

#[tokio::test]
async fn a_connection_cut_before_the_250_sends_again_with_the_same_message_id() {
    let sink = SmtpSink::start(SinkMode::DropFirst);
    let clock = ManualClock::new(t0());
    let (mut store, id, message_id) = one_queued(&clock);
    let s = settings("localhost", sink.port, Security::None);

    let report = pass(&mut store, &clock, &s, None).await.expect("a pass");
    assert!(report.sent.is_empty(), "no 250, not sent: {report:?}");
    assert_eq!(report.failed.len(), 1);
    // The server had the whole message when it cut the connection.
    let dropped = sink.dropped().expect("the data reached the server");
    assert!(
        dropped.contains(&format!("Message-ID: {message_id}")),
        "{dropped}"
    );
    assert!(sink.received().is_empty());
    assert_eq!(
        store
            .mail_queue()
            .get(id)
            .expect("read")
            .expect("row")
            .sent_at,
        None
    );

    clock.advance(Duration::seconds(30));
    let report = pass(&mut store, &clock, &s, None).await.expect("a pass");
    assert_eq!(report.sent, [id], "{report:?}\n{}", sink.log());
    let received = sink.received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        received[0].message_id, message_id,
        "the same message, again"
    );
}

#[tokio::test]
async fn plain_smtp_to_another_computer_is_refused_before_anything_is_sent() {
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let id = queued(&mut store, &clock);
    let s = settings("mail.example.com", 25, Security::None);
    let e = pass(&mut store, &clock, &s, None)
        .await
        .expect_err("refused");
    assert!(
        matches!(&e, MailError::PlainNotLoopback { host } if host == "mail.example.com"),
        "{e:?}"
    );
    assert!(e.message(Lang::En).contains("only to this computer"), "{e}");
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert_eq!((row.attempts, row.next_try_at), (0, t0()), "untouched");
}

/// A throw-away CA and a certificate it signed for `localhost`: (CA file, cert, key).
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
        IsCa, KeyPair, KeyUsagePurpose,
    };
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "paydesk mail test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().expect("a key")).expect("a CA");
    let mut params = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
    params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let key = KeyPair::generate().expect("a key");
    let cert = params.signed_by(&key, &ca).expect("the server cert");
    let (ca_path, cert_path, key_path) = (
        dir.join("ca.pem"),
        dir.join("server.crt"),
        dir.join("server.key"),
    );
    std::fs::write(&ca_path, ca.pem()).expect("ca.pem");
    std::fs::write(&cert_path, cert.pem()).expect("server.crt");
    std::fs::write(&key_path, key.serialize_pem()).expect("server.key");
    (ca_path, cert_path, key_path)
}

#[tokio::test]
async fn smtps_is_verified_against_the_ca_file_and_the_server_name() {
    let dir = tempfile::tempdir().expect("dir");
    let (ca, cert, key) = certificates(dir.path());
    let port = free_port();
    let sink = SmtpSink::start_on(port, SinkMode::Accept, Some((&cert, &key)));
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let id = queued(&mut store, &clock);

    // Without the CA file the server's certificate is of an unknown issuer: not sent.
    let unknown = settings("localhost", port, Security::Tls);
    let report = pass(&mut store, &clock, &unknown, None)
        .await
        .expect("a pass");
    assert!(report.sent.is_empty(), "{report:?}");
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert!(report.failed[0].1.contains("UnknownIssuer"), "{report:?}");
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert!(row.last_error.is_some_and(|e| e.contains("UnknownIssuer")));
    // With it, but by another name than the certificate's: not sent either.
    clock.advance(Duration::seconds(30));
    let mut by_address = settings("127.0.0.1", port, Security::Tls);
    by_address.ca_file = Some(ca.clone());
    let report = pass(&mut store, &clock, &by_address, None)
        .await
        .expect("a pass");
    assert!(report.sent.is_empty(), "{report:?}");
    assert!(
        report.failed[0].1.contains("not valid for name"),
        "{report:?}"
    );
    assert!(sink.received().is_empty());

    clock.advance(Duration::seconds(60));
    let mut trusted = settings("localhost", port, Security::Tls);
    trusted.ca_file = Some(ca);
    let report = pass(&mut store, &clock, &trusted, None)
        .await
        .expect("a pass");
    assert_eq!(report.sent, [id], "{report:?}\n{}", sink.log());
    assert_eq!(sink.received().len(), 1);
}

#[tokio::test]
async fn starttls_upgrades_a_plain_connection_checked_against_the_ca_file() {
    let dir = tempfile::tempdir().expect("dir");
    let (ca, cert, key) = certificates(dir.path());
    let port = free_port();
    let sink = SmtpSink::start_starttls(port, &cert, &key);
    let clock = ManualClock::new(t0());
    let mut store = Store::open_in_memory().expect("store");
    let id = queued(&mut store, &clock);

    // The throw-away certificate's issuer is unknown without the CA file: nothing is sent,
    // not even in the clear (the upgrade is required before anything is said).
    let unknown = settings("localhost", port, Security::StartTls);
    let report = pass(&mut store, &clock, &unknown, None)
        .await
        .expect("a pass");
    assert!(report.sent.is_empty(), "{report:?}");
    assert!(report.failed[0].1.contains("UnknownIssuer"), "{report:?}");
    assert!(sink.received().is_empty());

    clock.advance(Duration::seconds(30));
    let mut trusted = settings("localhost", port, Security::StartTls);
    trusted.ca_file = Some(ca);
    let report = pass(&mut store, &clock, &trusted, None)
        .await
        .expect("a pass");
    assert_eq!(report.sent, [id], "{report:?}\n{}", sink.log());
    let received = sink.received();
    assert_eq!(received.len(), 1);
    let text = received[0]
        .parts
        .iter()
        .find(|p| p.content_type == "text/plain")
        .map(|p| p.content.clone())
        .unwrap_or_default();
    assert!(text.contains(URL), "{text}");
}

/// A hostile SMTP server on a loopback port: each connection gets `greet`, then `then` is
/// written again and again, `gap` apart, until the client goes.
fn hostile_server(greet: &'static [u8], then: &'static [u8], gap: std::time::Duration) -> u16 {
    use std::io::Write as _;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                if stream.write_all(greet).is_err() {
                    return;
                }
                while stream.write_all(then).is_ok() {
                    std::thread::sleep(gap);
                }
            });
        }
    });
    port
}

#[tokio::test]
async fn a_server_sending_an_endless_line_is_cut_at_the_reply_cap_and_the_message_waits() {
    // "220 " and then megabytes of one line with no end: lettre alone would keep reading it.
    static CHUNK: [u8; 64 * 1024] = [b'A'; 64 * 1024];
    let port = hostile_server(b"220 ", &CHUNK, std::time::Duration::ZERO);
    let clock = ManualClock::new(t0());
    let (mut store, id, _) = one_queued(&clock);
    let s = settings("127.0.0.1", port, Security::None);
    let report = pass(&mut store, &clock, &s, None).await.expect("a pass");
    assert!(report.sent.is_empty(), "{report:?}");
    assert_eq!(report.failed.len(), 1, "{report:?}");
    let cap = paydesk::mail::REPLY_CAP / 1024;
    assert!(
        report.failed[0]
            .1
            .contains(&format!("more than {cap} KiB of replies")),
        "{report:?}"
    );
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert_eq!(
        (row.sent_at, row.attempts),
        (None, 1),
        "it waits for the next try"
    );
}

#[tokio::test]
async fn a_server_answering_a_byte_at_a_time_is_given_up_at_the_messages_deadline() {
    // Each byte comes well within the step timeout, so only the whole message's bound ends it.
    let port = hostile_server(b"220-", b"x", std::time::Duration::from_millis(50));
    let clock = ManualClock::new(t0());
    let (mut store, id, _) = one_queued(&clock);
    let mut s = settings("127.0.0.1", port, Security::None);
    s.deadline = std::time::Duration::from_secs(1);
    let started = std::time::Instant::now();
    let report = pass(&mut store, &clock, &s, None).await.expect("a pass");
    let took = started.elapsed();
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert!(
        report.failed[0]
            .1
            .contains("the mail server did not finish within 1 s"),
        "{report:?}"
    );
    assert!(
        took < std::time::Duration::from_secs(8),
        "given up near the 1 s deadline, not the 10 s step timeout: {took:?}"
    );
    let row = store.mail_queue().get(id).expect("read").expect("row");
    assert_eq!(row.sent_at, None);
}
