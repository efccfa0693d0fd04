//! Sending a link to a payer who is not at the counter, from the result view (issue 30): the
//! Send form, a real SMTP server on loopback (Debian's `python3-aiosmtpd`), and the window's
//! own sending passes of the mail queue.

use std::time::Duration;

use egui_kittest::kittest::{NodeT, Queryable};

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
    let url = env.shown_link().payment_url;
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

/// A fake `xdg-open` in a folder of its own: it writes the address it is given to `opened`.
#[cfg(unix)]
fn fake_opener(dir: &std::path::Path) -> (paydesk::opener::Opener, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let record = dir.join("opened");
    let script = dir.join("xdg-open");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" > '{}'\n",
            record.display()
        ),
    )
    .expect("the fake opener");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    (
        paydesk::opener::Opener {
            program: script.into_os_string(),
        },
        record,
    )
}

/// The board's row label of link `id` (its accessible name: what a screen reader reads).
fn board_label(env: &AppEnv, id: &str) -> Option<String> {
    let row = env
        .app()
        .views
        .board
        .rows()
        .iter()
        .find(|r| r.link.id == id)?;
    let order = row.link.order_or_id().to_owned();
    env.harness
        .query_all_by(|n| {
            n.label()
                .is_some_and(|l| l.contains(&order) && l.contains("Waiting for payment"))
        })
        .find_map(|n| n.accesskit_node().label())
}

/// The app on its built-in sandbox, its desktop opener the fake of `dir` (whose record
/// file is returned), in a window tall enough for the Send form under the result view.
#[cfg(unix)]
fn app_opening_into(dir: &std::path::Path) -> (AppEnv, std::path::PathBuf) {
    let (opener, record) = fake_opener(dir);
    let mut env = AppEnv::start(
        Start::default(),
        |_| {},
        |options, _| {
            options.opener = opener;
        },
    );
    env.harness.set_size(egui::vec2(1280.0, 1400.0));
    (env, record)
}

/// Sends the link shown to the payer by WhatsApp, the number typed as clerks say it, and
/// waits for the view to say so.
fn send_by_whatsapp(env: &mut AppEnv) {
    env.click("Send to customer");
    env.click("WhatsApp");
    env.type_into("Phone number", "0532 123 45 67");
    env.click("Open in WhatsApp");
    env.until_label("WhatsApp opened with the message to 0532 *** ** 67");
}

/// Creates a link of `amount` from New link and returns it as shown.
fn create(env: &mut AppEnv, amount: &str) -> paydesk::domain::Link {
    env.type_into("Amount", amount);
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    env.shown_link()
}

#[cfg(unix)]
#[test]
fn a_link_sent_by_whatsapp_says_so_on_the_board_whose_filter_and_row_menu_find_it() {
    use paydesk::app::View;
    let bin = tempfile::tempdir().expect("a folder");
    let (mut env, record) = app_opening_into(bin.path());
    let first = create(&mut env, "40");
    env.click("New link");
    env.until("New link is back", |app| app.views.shown.is_none());
    let second = create(&mut env, "55");
    let ids = [first.id, second.id];
    // The second link goes to the payer by WhatsApp, the number typed as clerks say it.
    send_by_whatsapp(&mut env);
    let handed = std::fs::read_to_string(&record).expect("the opener ran");
    assert!(
        handed.starts_with("https://wa.me/905321234567?text="),
        "{handed}"
    );

    env.nav(View::Board);
    env.until("the board shows the send", |app| {
        app.views.board.rows().iter().any(|r| r.sent.is_some())
    });
    env.harness.run_steps(2);
    let sent = board_label(&env, &ids[1]).expect("the sent row");
    assert!(sent.contains("· Sent by WhatsApp "), "{sent}");
    let unsent = board_label(&env, &ids[0]).expect("the other row");
    assert!(!unsent.contains("Sent by"), "{unsent}");

    // "Sent to customers (1)" keeps only the sent link.
    env.click("Sent to customers (1)");
    assert!(board_label(&env, &ids[1]).is_some());
    assert!(
        board_label(&env, &ids[0]).is_none(),
        "the unsent link is filtered out"
    );
    env.click("Sent to customers (1)");

    // The row's menu opens the link with its Send form, to send it again.
    let order = env
        .app()
        .views
        .board
        .rows()
        .iter()
        .find(|r| r.link.id == ids[0])
        .expect("row")
        .link
        .order_or_id()
        .to_owned();
    env.harness
        .query_all_by(|n| {
            n.label()
                .is_some_and(|l| l.contains(&order) && l.contains("Waiting"))
        })
        .next()
        .expect("the row")
        .click_secondary();
    env.harness.run_steps(2);
    env.click("Send to customer…");
    env.until("the link opens with its Send form", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.link().id == ids[0] && s.send_form().is_some())
    });
}

#[cfg(unix)]
#[test]
fn a_cancelled_link_sent_by_whatsapp_is_sent_again_as_a_new_link_that_history_ties_to_it() {
    use paydesk::app::View;
    let bin = tempfile::tempdir().expect("a folder");
    let (mut env, _record) = app_opening_into(bin.path());
    let old = create(&mut env, "85");
    let old_order = old.order_or_id().to_owned();
    send_by_whatsapp(&mut env);
    env.click("Cancel link");
    env.click("Cancel link");
    env.until("the cancel is answered", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(paydesk::ui::link_result::ShownLink::is_cancelled)
    });

    env.click("Send a new link");
    env.until("the new link is shown", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.link().id != old.id)
    });
    let shown = env.app().views.shown.as_ref().expect("shown");
    let new = shown.link().clone();
    assert_eq!(new.order_or_id(), format!("{old_order}-2"));
    assert_eq!(new.amount, old.amount);
    assert!(!new.status.is_final());
    // The old one went by WhatsApp: the new one's Send form is open on WhatsApp.
    let form = shown.send_form().expect("the Send form is open");
    assert_eq!(form.channel, paydesk::ui::link_result::Channel::WhatsApp);
    env.until_label(&format!(
        "The new link {old_order}-2 was made (it renews {old_order})."
    ));

    // History ties the two together.
    env.nav(View::History);
    env.until("History lists both", |app| {
        app.views.history.rows().len() == 2
    });
    // Opening History asks about its open rows; the marks stay through that refresh.
    env.until("History's refresh is over", |app| {
        app.views
            .history
            .refresh()
            .is_some_and(|r| r.done() == r.ids().len())
    });
    let renewal = |id: &str| {
        env.app()
            .views
            .history
            .rows()
            .iter()
            .find(|r| r.id == id)
            .map(|r| r.renewal.clone())
            .expect("a row")
    };
    assert_eq!(renewal(&old.id), format!("Renewed as {old_order}-2"));
    assert_eq!(renewal(&new.id), format!("Renews {old_order}"));
    let label = format!("Renewed as {old_order}-2");
    assert!(
        env.harness
            .query_all_by(|n| n.label().is_some_and(|l| l.contains(&label)))
            .next()
            .is_some(),
        "the row says it"
    );
    // Opened again, the old link says so and offers no second renewal.
    let row = format!("{old_order} ");
    env.harness
        .query_all_by(|n| {
            n.label()
                .is_some_and(|l| l.starts_with(&row) && l.contains("Cancelled"))
        })
        .next()
        .expect("the old link's row")
        .click();
    env.until("the old link opens", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.link().id == old.id)
    });
    env.until_label(&label);
    assert!(env.harness.query_by_label("Send a new link").is_none());
}

#[cfg(unix)]
#[test]
fn a_link_sent_by_whatsapp_lights_remind_on_the_board_which_sends_its_one_reminder() {
    use paydesk::app::View;
    let bin = tempfile::tempdir().expect("a folder");
    let (mut env, record) = app_opening_into(bin.path());
    // A link without an expiry: no reminder on its own, its Remind is there once it is sent.
    let link = create(&mut env, "72");
    let order = link.order_or_id().to_owned();
    send_by_whatsapp(&mut env);

    env.nav(View::Board);
    let remind = format!("Remind {order}");
    env.until("Remind lights up", |app| {
        app.views.board.rows().iter().any(|r| r.sent.is_some())
    });
    env.until_label(&remind);
    // A touch till's finger finds it: its target is touch height, though the pill is small.
    let target = env.harness.get_by_label(&remind).rect();
    assert!(
        target.height() >= paydesk::ui::theme::TOUCH_HEIGHT,
        "{target:?}"
    );
    env.click(&remind);
    env.until("the reminder form opens", |app| {
        app.views
            .shown
            .as_ref()
            .and_then(|s| s.send_form())
            .is_some_and(|f| f.reminder)
    });
    std::fs::remove_file(&record).expect("the first send's record");
    // The number is not kept whole (only masked, in the audit): the clerk types it again
    // unless the link carries the payer's phone.
    env.type_into("Phone number", "0532 123 45 67");
    env.click("Open in WhatsApp");
    env.until_label("WhatsApp opened with the message to 0532 *** ** 67");
    let handed = std::fs::read_to_string(&record).expect("the opener ran");
    let text = url::Url::parse(handed.trim())
        .expect("a URL")
        .query_pairs()
        .find(|(k, _)| k == "text")
        .map(|(_, v)| v.into_owned())
        .expect("a text");
    assert!(text.contains("still waiting for your payment"), "{text}");

    // Once: the board reads the reminder and Remind goes out.
    env.nav(View::Board);
    env.app_mut().views.board.read_again();
    env.until("the board is read again", |app| {
        !app.views.board.is_loading()
    });
    env.harness.run_steps(3);
    assert!(
        env.harness.query_by_label(&remind).is_none(),
        "reminded once: no Remind any more"
    );
}

/// README's first sale: on the sandbox, the result view opens the link's payment page through
/// the desktop's opener, so a newcomer pays the test link in a browser.
#[cfg(unix)]
#[test]
fn on_the_sandbox_the_result_view_opens_the_payment_page() {
    let bin = tempfile::tempdir().expect("a folder");
    let (mut env, record) = app_opening_into(bin.path());
    let link = create(&mut env, "25");
    env.click("Open payment page");
    let url = link.payment_url.clone().expect("a payment page");
    let mut handed = String::new();
    for _ in 0..200 {
        env.harness.run_steps(1);
        handed = std::fs::read_to_string(&record).unwrap_or_default();
        if !handed.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(handed.trim(), url);
}
