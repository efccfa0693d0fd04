//! Sending a link to a payer who is not at the counter, from the result view (issue 30): the
//! Send form, a real SMTP server on loopback (Debian's `python3-aiosmtpd`), and the window's
//! own sending passes of the mail queue.

use std::time::Duration;

use crate::support::app::{AppEnv, Start};
use crate::support::ports::free_port;
use crate::support::smtp::{SinkMode, SmtpSink, python_with_aiosmtpd};
use paydesk::domain::{Actor, EmailAddress};
use paydesk::mail::{Security, SmtpSettings};

/// The app on its built-in sandbox with the shop's e-mail account set to a plain server on
/// this computer's `port` (no login), its queue looked at every 200 ms.
fn app_mailing_to(port: u16) -> AppEnv {
    AppEnv::start(
        Start::default(),
        |_| {},
        |options, services| {
            options.mail_pass_every = Duration::from_millis(200);
            let from = EmailAddress::parse("kasa@kuzey.example").expect("an address");
            let mut settings = SmtpSettings::new("127.0.0.1", Security::None, from, "Kuzey Giyim");
            settings.port = port;
            services
                .set_mail_account(&Actor::default(), &settings, None)
                .expect("the account is kept");
        },
    )
}

#[test]
fn a_link_sent_by_email_while_the_server_is_down_goes_once_when_it_is_back() {
    if python_with_aiosmtpd().is_none() {
        eprintln!("skipped: python3-aiosmtpd is not installed");
        return;
    }
    let port = free_port();
    let mut env = app_mailing_to(port);
    env.type_into("Amount", "40");
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    let url = env
        .app()
        .views
        .shown
        .as_ref()
        .expect("shown")
        .link()
        .payment_url
        .clone();
    let url = url.expect("a payment URL");

    // Nobody answers on the port yet: the message waits, and the form keeps the address.
    env.click("Send to customer");
    env.click("E-mail");
    env.type_into("E-mail address", "ayse@example.com");
    env.click("Türkçe");
    env.click("Send by e-mail");
    env.until_label("Waiting to be sent (a***@example.com)");
    assert_eq!(
        env.app()
            .views
            .shown
            .as_ref()
            .and_then(|s| s.send_form())
            .map(|f| f.email.clone()),
        Some("ayse@example.com".to_owned())
    );

    // The server comes up: the window's own pass sends it, once, in Turkish, with the URL.
    let sink = SmtpSink::start_on(port, SinkMode::Accept, None);
    let waited = std::time::Instant::now();
    while sink.received().is_empty() && waited.elapsed() < Duration::from_secs(90) {
        env.harness.run_steps(5);
        std::thread::sleep(Duration::from_millis(100));
    }
    let got = sink.received();
    assert_eq!(got.len(), 1, "{}", sink.log());
    let text = &got[0]
        .parts
        .iter()
        .find(|p| p.content_type == "text/plain")
        .expect("a plain-text part")
        .content;
    assert!(text.contains(&url), "{text}");
    assert!(text.contains("40,00 ₺"), "Turkish amounts: {text}");
    assert_eq!(got[0].rcpt, ["ayse@example.com"]);
    // More passes send nothing again.
    for _ in 0..10 {
        env.harness.run_steps(5);
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(sink.received().len(), 1);
}

#[test]
fn settings_email_keeps_an_account_checked_and_sends_a_test_message() {
    if python_with_aiosmtpd().is_none() {
        eprintln!("skipped: python3-aiosmtpd is not installed");
        return;
    }
    let sink = SmtpSink::start(SinkMode::Accept);
    let mut env = AppEnv::start(Start::default(), |_| {}, |_, _| {});
    // Tall enough for Settings' last section to be on screen, where a click lands.
    env.harness.set_size(egui::vec2(1280.0, 3000.0));
    env.nav(paydesk::ui::command::View::Settings);
    env.until_label("Sender address");
    env.type_into("Server", "127.0.0.1");
    env.click("None (this computer only)");
    env.type_into("Port number", &sink.port.to_string());
    env.type_into("Sender address", "kasa@kuzey.example");
    env.type_into("Sender name", "Kuzey Giyim");
    // Receipts are on until turned off here.
    env.click("E-mail a receipt to the payer when a link is paid in full");
    env.click("Save the e-mail settings");
    env.until_label("The e-mail settings are saved: 127.0.0.1:");
    let receipts = env.services.receipt_settings().expect("read");
    assert!(!receipts.on, "{receipts:?}");
    let kept = env
        .services
        .mail_account()
        .expect("read")
        .expect("an account");
    assert_eq!((kept.host.as_str(), kept.port), ("127.0.0.1", sink.port));
    assert_eq!(kept.from, "kasa@kuzey.example");
    // A test message goes outside the queue and arrives.
    env.type_into("Test message to", "ayse@example.com");
    env.click("Send a test message");
    env.until_label("The test message was sent: a***@example.com");
    let got = sink.received();
    assert_eq!(got.len(), 1, "{}", sink.log());
    assert_eq!(got[0].rcpt, ["ayse@example.com"]);
    assert!(
        got[0].from.contains("kasa@kuzey.example"),
        "{:?}",
        got[0].from
    );
}
