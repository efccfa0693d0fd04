//! `paydesk link send` (issue 30), as the real binary against a sandbox over loopback HTTP: the
//! message a clerk copies into any channel, in the language asked for; the `wa.me` address to
//! the link's payer phone or a typed Turkish number, which carries the exact payment address;
//! the send in the audit with the number masked; a number that is not a mobile refused with a
//! sentence naming the field and nothing recorded; `--open` handing the address to the
//! desktop's opener without paydesk's secrets.

use crate::support::cli::{Cli, Out, sandbox};
use paydesk::domain::phone::Phone;
use paydesk::domain::share::wa_me_url;

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "expected success:\n{out:?}");
}

/// A link of 125.50 TRY for "Doğum günü pastası", its payer's phone 0532 123 45 67; its id
/// and payment address.
fn link_with_payer(cli: &Cli) -> (String, String) {
    let out = cli.link_create(
        "test",
        &[
            "--amount",
            "125.50",
            "--order-number",
            "PKT-7",
            "--description",
            "Doğum günü pastası",
            "--phone-country-code",
            "90",
            "--phone",
            "5321234567",
            "--json",
        ],
    );
    ok(&out);
    let link = out.json();
    (
        link["id"].as_str().expect("an id").to_owned(),
        link["paymentUrl"]
            .as_str()
            .expect("a payment URL")
            .to_owned(),
    )
}

/// A sandbox, a CLI with its profile `test`, and a link with a payer phone: its id and payment
/// address.
fn a_link_with_payer() -> (paydesk::sandbox::SandboxHandle, Cli, String, String) {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let (id, url) = link_with_payer(&cli);
    (server, cli, id, url)
}

/// `paydesk --profile test link send ID ARGS…`.
fn send(cli: &Cli, id: &str, args: &[&str]) -> Out {
    let mut all = vec!["--profile", "test", "link", "send", id];
    all.extend_from_slice(args);
    cli.run(&all)
}

/// The text of a `wa.me` address, decoded.
fn text_of(url: &str) -> String {
    let parsed = url::Url::parse(url).expect("a URL");
    parsed
        .query_pairs()
        .find(|(k, _)| k == "text")
        .map(|(_, v)| v.into_owned())
        .expect("a text")
}

fn audit_subjects(cli: &Cli) -> Vec<String> {
    let audit = cli.run(&["audit", "list", "--json"]);
    ok(&audit);
    audit
        .json()
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["action"] == "link.send")
        .map(|r| r["subject"].as_str().expect("a subject").to_owned())
        .collect()
}

#[test]
fn the_message_names_the_shop_amount_purpose_order_and_the_exact_payment_address() {
    let (_server, cli, id, url) = a_link_with_payer();
    let tr = send(&cli, &id, &["--lang", "tr", "--shop", "Kadıköy Fırın"]);
    ok(&tr);
    for part in [
        "Kadıköy Fırın",
        "125,50",
        "Doğum günü pastası",
        "PKT-7",
        &url,
    ] {
        assert!(tr.stdout.contains(part), "lacks {part}:\n{}", tr.stdout);
    }
    let en = send(&cli, &id, &["--lang", "en"]);
    ok(&en);
    assert!(en.stdout.contains("125.50"), "{}", en.stdout);
    assert!(en.stdout.lines().any(|l| l.trim() == url), "{}", en.stdout);
    assert!(
        audit_subjects(&cli).is_empty(),
        "printing a message sends nothing"
    );
}

#[test]
fn whatsapp_goes_to_the_payers_phone_or_a_typed_number_and_is_audited_masked() {
    let (_server, cli, id, url) = a_link_with_payer();

    let to_payer = send(&cli, &id, &["--whatsapp"]);
    ok(&to_payer);
    let wa = to_payer.stdout.trim();
    assert!(wa.starts_with("https://wa.me/905321234567?text="), "{wa}");
    let text = text_of(wa);
    assert!(text.contains(&url), "the exact payment address: {text}");
    assert!(text.contains("PKT-7"), "{text}");

    let typed = send(&cli, &id, &["--whatsapp", "--phone", "0544 987 65 43"]);
    ok(&typed);
    assert!(
        typed
            .stdout
            .trim()
            .starts_with("https://wa.me/905449876543?text="),
        "{}",
        typed.stdout
    );
    let expected = Phone::parse("0544 987 65 43", 90).expect("a mobile");
    assert_eq!(
        typed.stdout.trim().split('?').next(),
        wa_me_url(&expected, "x").split('?').next()
    );

    let subjects = audit_subjects(&cli);
    assert_eq!(subjects.len(), 2, "{subjects:?}");
    for masked in ["0532 *** ** 67", "0544 *** ** 43"] {
        assert!(
            subjects
                .iter()
                .any(|s| s.ends_with(&format!("whatsapp {masked}"))),
            "{masked} in {subjects:?}"
        );
    }
    for s in &subjects {
        assert!(s.starts_with(&id), "names the link: {s}");
        assert!(
            !s.contains("5321234567") && !s.contains("987 65"),
            "masked: {s}"
        );
    }
}

#[test]
fn a_number_that_is_not_a_mobile_is_refused_naming_the_field_and_nothing_is_recorded() {
    let (_server, cli, id, _) = a_link_with_payer();
    let landline = send(&cli, &id, &["--whatsapp", "--phone", "0216 123 45 67"]);
    assert_eq!(landline.code, 3, "{landline:?}");
    assert!(
        landline.stderr.contains("Phone number"),
        "{}",
        landline.stderr
    );
    assert!(
        landline.stdout.is_empty(),
        "no address: {}",
        landline.stdout
    );
    assert!(audit_subjects(&cli).is_empty());
}

#[cfg(unix)]
#[test]
fn open_hands_the_address_to_the_desktops_opener_without_paydesks_secrets() {
    use std::os::unix::fs::PermissionsExt;
    let (_server, cli, id, _) = a_link_with_payer();
    let bin = tempfile::tempdir().expect("a folder");
    let record = bin.path().join("opened");
    let script = bin.path().join("xdg-open");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" > '{0}'\nenv | grep -c '^PAYDESK_' >> '{0}'\n",
            record.display()
        ),
    )
    .expect("the fake opener");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = cli.run_with(
        &[
            "--profile",
            "test",
            "link",
            "send",
            &id,
            "--whatsapp",
            "--open",
        ],
        None,
        &[("PATH", &path)],
    );
    ok(&out);
    let opened = std::fs::read_to_string(&record).expect("the opener ran");
    let mut lines = opened.lines();
    assert_eq!(lines.next(), Some(out.stdout.trim()), "the same address");
    assert_eq!(lines.next(), Some("0"), "no PAYDESK_ variable reaches it");
}

#[test]
fn a_link_with_items_is_sent_with_its_cart_lines_instead_of_a_description() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let out = cli.link_create(
        "test",
        &[
            "--amount",
            "170",
            "--item",
            "Filtre kahve:75x2",
            "--item",
            "Kurabiye:20",
            "--json",
        ],
    );
    let id = out.link_id();
    let message = send(&cli, &id, &["--lang", "tr"]);
    ok(&message);
    assert!(
        message.stdout.contains("2 × Filtre kahve: 150,00 ₺"),
        "{}",
        message.stdout
    );
    assert!(
        message.stdout.contains("1 × Kurabiye: 20,00 ₺"),
        "{}",
        message.stdout
    );
}

/// `link create` of `amount` TRY on profile `test`: the new link's id.
fn a_link(cli: &Cli, amount: &str) -> String {
    let out = cli.link_create("test", &["--amount", amount, "--json"]);
    ok(&out);
    out.json()["id"].as_str().expect("an id").to_owned()
}

#[test]
fn the_day_close_counts_the_links_sent_and_those_paid_after_sending() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let whatsapp = ["--whatsapp", "--phone", "05321234567"];
    let (paid_after, unpaid, paid_before, never_sent) = (
        a_link(&cli, "40"),
        a_link(&cli, "50"),
        a_link(&cli, "60"),
        a_link(&cli, "70"),
    );
    // Paid, and heard so, before it was sent: sent, not paid after sending.
    server.admin().pay(&paid_before, None).expect("paid");
    ok(&cli.run(&[
        "--profile",
        "test",
        "link",
        "show",
        &paid_before,
        "--refresh",
    ]));
    for id in [&paid_after, &unpaid, &paid_before] {
        ok(&send(&cli, id, &whatsapp));
    }
    // Sent twice: one link.
    ok(&send(&cli, &unpaid, &whatsapp));
    server.admin().pay(&paid_after, None).expect("paid");
    server.admin().pay(&never_sent, None).expect("paid");
    for id in [&paid_after, &never_sent] {
        ok(&cli.run(&["--profile", "test", "link", "show", id, "--refresh"]));
    }
    let report = cli.run(&["--profile", "test", "report", "--json"]);
    ok(&report);
    let report = report.json();
    assert_eq!(report["links"], 4, "{report}");
    assert_eq!(
        report["sent"],
        serde_json::json!({"links": 3, "paidAfter": 1}),
        "{report}"
    );
    let text = cli.run(&["--profile", "test", "report"]);
    ok(&text);
    assert!(
        text.stdout
            .contains("Sent to customers: 3 links, 1 paid after sending"),
        "{text:?}"
    );
}
