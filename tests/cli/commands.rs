//! Every `paydesk` command, run as the real binary against a sandbox over loopback HTTP:
//! profiles and secrets, link create (QR, JSON, items, variants, expiry forms, invalid input,
//! server rejection), link list/show/refresh/cancel/qr, pending list/retry/abandon, card save,
//! installments, catalog, help and version — with the exit codes scripts rely on.

use crate::support::cli::{Cli, Out, sandbox, server_orders};
use crate::support::money::{dec, money};
use chrono::{DateTime, Duration, Utc};
use paydesk::sandbox::{FaultKind, FaultRule};
use rust_decimal::Decimal;
use serde_json::Value;

fn fault(endpoint: &str, kind: FaultKind, next: u32) -> FaultRule {
    FaultRule {
        endpoint: endpoint.to_owned(),
        kind,
        delay_ms: None,
        next: Some(next),
        probability: None,
    }
}

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "expected success:\n{out:?}");
}

/// Runs a `--help` and checks it says each of `texts`.
fn help_says(cli: &Cli, args: &[&str], texts: &[&str]) {
    let help = cli.run(args);
    ok(&help);
    for text in texts {
        assert!(
            help.stdout.contains(text),
            "`{}` lacks {text}:\n{}",
            args.join(" "),
            help.stdout
        );
    }
}

#[test]
fn help_documents_every_command_and_version_names_the_build() {
    let cli = Cli::new();
    help_says(
        &cli,
        &["--help"],
        &[
            "profile",
            "link",
            "pending",
            "card",
            "installments",
            "catalog",
            "report",
            "sandbox",
        ],
    );
    help_says(
        &cli,
        &["link", "create", "--help"],
        &[
            "--amount",
            "--currency",
            "--description",
            "--order-number",
            "--expires-in",
            "--expiry",
            "--installments",
            "--no-installment",
            "--partial",
            "--contact-required",
            "--email",
            "--phone-country-code",
            "--phone",
            "--item",
            "--variant",
            "--qr",
            "--json",
        ],
    );
    // The day report and the CSV export are documented where people look.
    help_says(
        &cli,
        &["report", "--help"],
        &[
            "--from",
            "--to",
            "--json",
            "paid in full",
            "partially paid",
            "cancelled",
            "best-selling",
        ],
    );
    help_says(
        &cli,
        &["link", "list", "--help"],
        &["--csv", "--from", "--to", "--status", "--search", "CSV"],
    );
    let version = cli.run(&["--version"]);
    ok(&version);
    assert_eq!(
        version.stdout.trim(),
        format!("paydesk {}", env!("CARGO_PKG_VERSION"))
    );
    // Usage errors are exit 2, whatever the command.
    assert_eq!(cli.run(&["link", "frobnicate"]).code, 2);
    assert_eq!(cli.run(&["link", "create"]).code, 2, "--amount is required");
    assert_eq!(
        cli.run(&["link", "create", "--amount", "5", "--expires-in", "0h"])
            .code,
        2
    );
    assert_eq!(
        cli.run(&["pending", "retry"]).code,
        2,
        "a key or --all is required"
    );
}

#[test]
fn profiles_are_added_listed_and_removed_and_the_sandbox_profile_stays() {
    let cli = Cli::new();
    let list = cli.run(&["profile", "list", "--json"]);
    ok(&list);
    let names: Vec<String> = list
        .json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|p| p["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        names,
        vec!["sandbox"],
        "a fresh install has the sandbox profile"
    );
    assert_eq!(list.json()[0]["sandbox"], Value::Bool(true));

    ok(&cli.run(&[
        "profile",
        "add",
        "magaza",
        "--base-url",
        "https://api.example.com",
        "--api-key",
        "pk_live_1",
        "--amount-limit",
        "5000.50",
        "--max-items",
        "12",
        "--order-prefix",
        "KDK",
    ]));
    let list = cli.run(&["profile", "list", "--json"]).json();
    let added = list
        .as_array()
        .expect("a list")
        .iter()
        .find(|p| p["name"] == "magaza")
        .expect("the new profile is listed")
        .clone();
    assert_eq!(added["baseUrl"], "https://api.example.com");
    assert_eq!(added["apiKey"], "pk_live_1");
    assert_eq!(added["amountLimit"], "5000.50");
    assert_eq!(added["maxItems"], 12);
    assert_eq!(added["orderPrefix"], "KDK");
    assert_eq!(added["sandbox"], Value::Bool(false));
    let text = cli.run(&["profile", "list"]);
    ok(&text);
    assert!(
        text.stdout
            .contains("magaza\thttps://api.example.com\tpk_live_1")
    );

    // Plain http only on this machine: input error, nothing saved.
    let insecure = cli.run(&[
        "profile",
        "add",
        "bad",
        "--base-url",
        "http://api.example.com",
        "--api-key",
        "k",
    ]);
    assert_eq!(insecure.code, 3, "{insecure:?}");
    assert!(insecure.stderr.contains("https://"), "{insecure:?}");
    let bad_limit = cli.run(&[
        "profile",
        "add",
        "bad",
        "--base-url",
        "https://a.example",
        "--api-key",
        "k",
        "--amount-limit",
        "lots",
    ]);
    assert_eq!(bad_limit.code, 3, "{bad_limit:?}");
    assert!(bad_limit.stderr.contains("--amount-limit"));

    let taken = cli.run(&[
        "profile",
        "add",
        "magaza",
        "--base-url",
        "https://other.example.com",
        "--api-key",
        "pk_live_2",
    ]);
    assert_eq!(taken.code, 1, "{taken:?}");
    assert!(taken.stderr.contains("exists already"), "{taken:?}");
    ok(&cli.run(&["profile", "remove", "magaza"]));
    let after = cli.run(&["profile", "list", "--json"]).json();
    assert_eq!(after.as_array().map(Vec::len), Some(1), "{after}");
    let sandbox_stays = cli.run(&["profile", "remove", "sandbox"]);
    assert_eq!(sandbox_stays.code, 1, "{sandbox_stays:?}");
    assert!(
        sandbox_stays.stderr.contains("sandbox"),
        "{sandbox_stays:?}"
    );
}

#[test]
fn set_secret_without_a_keyring_fails_clearly_and_the_environment_secret_works_instead() {
    let server = sandbox();
    let mut cli = Cli::new();
    // No Secret Service reachable: a bus address that leads nowhere.
    cli.env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/paydesk-bus",
    );
    ok(&cli.run(&[
        "profile",
        "add",
        "test",
        "--base-url",
        &server.base_url(),
        "--api-key",
        paydesk::sandbox::DEMO_API_KEY,
    ]));
    let secret = paydesk::sandbox::DEMO_API_SECRET;
    let set = cli.run_with(
        &["profile", "set-secret", "test"],
        Some(&format!("{secret}\n")),
        &[],
    );
    assert_eq!(set.code, 1, "{set:?}");
    assert!(set.stderr.contains("no keyring available"), "{set:?}");
    assert!(!set.all().contains(secret), "the secret is never echoed");
    let no_such = cli.run_with(&["profile", "set-secret", "nobody"], Some("x\n"), &[]);
    assert_eq!(no_such.code, 3, "{no_such:?}");
    // Nothing was written as a fallback: the secret is in no file of the data dir.
    for file in crate::support::cli::files_under(cli.data_dir()) {
        let bytes = std::fs::read(&file).expect("readable");
        assert!(
            !crate::support::cli::contains_bytes(&bytes, secret.as_bytes()),
            "{} holds the secret",
            file.display()
        );
    }

    // Without the secret, a create says how to give one, and sends nothing.
    let without = cli.link_create("test", &["--amount", "10"]);
    assert_eq!(without.code, 1, "{without:?}");
    assert!(without.stderr.contains("keyring"), "{without:?}");
    assert!(server.admin().links(None).is_empty());

    let with_env = cli.run_with(
        &Cli::link_create_args("test", &["--amount", "10"]),
        None,
        &[("PAYDESK_API_SECRET", secret)],
    );
    ok(&with_env);
    assert_eq!(server.admin().links(None).len(), 1);
}

#[test]
fn link_create_on_the_built_in_sandbox_prints_id_status_url_and_a_terminal_qr() {
    let cli = Cli::new();
    let out = cli.run(&[
        "link",
        "create",
        "--amount",
        "150",
        "--description",
        "Masa 4",
        "--order-number",
        "MASA-4",
        "--qr",
    ]);
    ok(&out);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("lnk_"), "{}", out.stdout);
    assert_eq!(lines[1], "PENDING");
    assert!(
        lines[2].starts_with("http://127.0.0.1:")
            && lines[2].ends_with(&format!("/pay/{}", lines[0])),
        "{}",
        lines[2]
    );
    // The QR: square blocks of half-block characters, every row the same width.
    let qr: Vec<&str> = lines[3..]
        .iter()
        .copied()
        .filter(|l| !l.is_empty())
        .collect();
    assert!(qr.len() >= 12, "{}", out.stdout);
    let width = qr[0].chars().count();
    assert!(qr.iter().all(|row| row.chars().count() == width));
    assert!(qr.iter().all(|row| row.chars().all(|c| "█▀▄ ".contains(c))));
    assert!(width >= 2 * qr.len() - 2 && width <= 2 * qr.len() + 1);

    // History knows it; the built-in sandbox kept it across processes.
    let show = cli.run(&["link", "show", lines[0], "--refresh", "--json"]);
    ok(&show);
    let link = show.json();
    assert_eq!(link["orderNumber"], "MASA-4");
    assert_eq!(money(&link["amount"]), dec("150.00"));
    assert_eq!(link["description"], "Masa 4");
}

#[test]
fn link_create_sends_items_variants_contact_and_expiry_exactly() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let csv = cli.data_dir().join("catalog.csv");
    std::fs::write(
        &csv,
        "id,name,unit_price,currency\nvar_turk_kahvesi,Türk Kahvesi,85.00,TRY\nvar_simit,Susamlı Simit,25.00,TRY\n",
    )
    .expect("write csv");
    ok(&cli.run(&["catalog", "import", csv.to_str().expect("utf-8 path")]));

    let before = Utc::now();
    let out = cli.link_create(
        "test",
        &[
            "--amount",
            "225.50",
            "--order-number",
            "SEPET-1",
            "--item",
            "Çay:15.25x2",
            "--variant",
            "var_turk_kahvesix2",
            "--variant",
            "var_simit",
            "--installments",
            "1,3,6",
            "--partial",
            "--contact-required",
            "--email",
            "ayse@example.com",
            "--phone-country-code",
            "90",
            "--phone",
            "5321234567",
            "--expires-in",
            "2h",
            "--json",
        ],
    );
    ok(&out);
    let link = out.json();
    assert_eq!(money(&link["amount"]), dec("225.50"));
    assert_eq!(link["orderNumber"], "SEPET-1");
    assert_eq!(link["availableInstallments"], "1,3,6");
    assert_eq!(link["allowPartialPayment"], Value::Bool(true));
    assert_eq!(link["email"], "ayse@example.com");
    assert_eq!(link["phoneCountryCode"], "90");
    assert_eq!(link["phoneNumber"], "5321234567");
    let expiry: DateTime<Utc> = link["expiryDate"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("an expiry date");
    assert!(expiry >= before + Duration::hours(2) - Duration::seconds(1));
    assert!(expiry <= Utc::now() + Duration::hours(2));

    // The server got the free item with its price and the catalog items by id only.
    let state = server.admin().state();
    let items = &state["links"][0]["items"];
    let mut seen: Vec<(String, String, u64)> = items
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            (
                i["productVariantId"].as_str().unwrap_or("-").to_owned(),
                i["name"].as_str().unwrap_or_default().to_owned(),
                i["quantity"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    seen.sort();
    let quantities: u64 = seen
        .iter()
        .filter(|(id, _, _)| id == "var_turk_kahvesi")
        .map(|(_, _, q)| q)
        .sum();
    assert_eq!(quantities, 2, "{items}");
    assert!(
        seen.iter()
            .any(|(id, name, q)| id == "-" && name == "Çay" && *q == 2),
        "{items}"
    );
    assert!(
        seen.iter().any(|(id, _, q)| id == "var_simit" && *q == 1),
        "{items}"
    );
    let free = items
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["name"] == "Çay")
        .expect("the free item");
    assert_eq!(money(&free["unitPrice"]), dec("15.25"));

    // An ISO expiry is sent as given (UTC, Z).
    let iso = cli.link_create(
        "test",
        &[
            "--amount",
            "10",
            "--expiry",
            "2030-01-02T03:04:05Z",
            "--json",
        ],
    );
    ok(&iso);
    let expiry: DateTime<Utc> = iso.json()["expiryDate"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("an expiry date");
    assert_eq!(
        expiry,
        "2030-01-02T03:04:05Z"
            .parse::<DateTime<Utc>>()
            .expect("time")
    );
    let not_iso = cli.link_create("test", &["--amount", "10", "--expiry", "next tuesday"]);
    assert_eq!(not_iso.code, 3, "{not_iso:?}");
    assert!(not_iso.stderr.contains("--expiry"));
    assert_eq!(
        server.admin().links(None).len(),
        2,
        "nothing sent for the bad expiry"
    );
}

#[test]
fn invalid_input_exits_3_with_every_field_error_and_sends_nothing() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let out = cli.link_create(
        "test",
        &[
            "--amount",
            "1.234",
            "--email",
            "not-an-address",
            "--item",
            "Çay:0x2",
            "--expiry",
            "2001-01-01T00:00:00Z",
        ],
    );
    assert_eq!(out.code, 3, "{out:?}");
    let errors: Vec<&str> = out.stderr.lines().collect();
    assert!(
        errors.len() >= 4,
        "one line per field error:\n{}",
        out.stderr
    );
    for field in ["Amount", "E-mail", "Item 1", "xpir"] {
        assert!(
            errors.iter().any(|l| l.contains(field)),
            "no error about {field}:\n{}",
            out.stderr
        );
    }
    let currency = cli.link_create("test", &["--amount", "5", "--currency", "XYZ"]);
    assert_eq!(currency.code, 3, "{currency:?}");
    assert!(currency.stderr.contains("--currency"));
    assert!(server.admin().links(None).is_empty(), "nothing was sent");
    let pending = cli.run(&["--profile", "test", "pending", "list", "--json"]);
    ok(&pending);
    assert_eq!(pending.json(), serde_json::json!([]), "nothing journaled");
}

#[test]
fn a_server_rejection_exits_4_with_the_key_and_the_order_can_be_sent_again_fixed() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let args = |amount: &'static str| {
        vec![
            "--profile",
            "test",
            "link",
            "create",
            "--amount",
            amount,
            "--order-number",
            "BUYUK-1",
        ]
    };
    let refused = cli.run(&args("300000"));
    assert_eq!(refused.code, 4, "{refused:?}");
    let mut lines = refused.stderr.lines();
    assert_eq!(lines.next(), Some("partner.api.amount.limit.exceeded"));
    assert!(
        lines.next().is_some_and(|l| l.contains("limit")),
        "{refused:?}"
    );
    assert!(server.admin().links(None).is_empty());
    // The rejection freed the key: the corrected order goes through.
    let fixed = cli.run(&args("3000"));
    ok(&fixed);
    let held = server_orders(&server);
    assert_eq!(held["BUYUK-1"].len(), 1);
    assert_eq!(held["BUYUK-1"][0].amount, Some(dec("3000.00")));
    // And the same order again is refused locally, showing the existing link.
    let again = cli.run(&args("3000"));
    assert_eq!(again.code, 4, "{again:?}");
    assert!(again.stderr.contains(&held["BUYUK-1"][0].id), "{again:?}");
    assert_eq!(server.admin().links(None).len(), 1);
}

#[test]
// Long on purpose: one link's life through list, show, refresh, cancel and QR.
#[allow(clippy::too_many_lines)]
fn link_list_show_refresh_cancel_and_qr_png() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let create = |order: &str, desc: &str| {
        let out = cli.link_create(
            "test",
            &[
                "--amount",
                "42.50",
                "--order-number",
                order,
                "--description",
                desc,
                "--json",
            ],
        );
        ok(&out);
        out.json()["id"].as_str().expect("an id").to_owned()
    };
    let paid = create("LST-1", "kahve");
    let other = create("LST-2", "simit");

    let list = cli.run(&["--profile", "test", "link", "list", "--json"]);
    ok(&list);
    let ids: Vec<&str> = list
        .json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|l| l["id"].as_str().unwrap_or_default())
        .map(|s| {
            if s == paid {
                "paid"
            } else if s == other {
                "other"
            } else {
                "?"
            }
        })
        .collect();
    assert_eq!(ids, vec!["other", "paid"], "newest first");
    let search = cli.run(&["--profile", "test", "link", "list", "--search", "simit"]);
    ok(&search);
    assert_eq!(search.stdout.lines().count(), 1);
    assert!(
        search.stdout.starts_with(&format!("{other}\tLST-2\t")),
        "{}",
        search.stdout
    );
    let limited = cli.run(&[
        "--profile",
        "test",
        "link",
        "list",
        "--limit",
        "1",
        "--json",
    ]);
    assert_eq!(limited.json().as_array().map(Vec::len), Some(1));

    // Paid on the server: history shows it once refreshed.
    server
        .admin()
        .pay(&paid, None)
        .expect("the sandbox takes the payment");
    let stale = cli.run(&["--profile", "test", "link", "show", &paid, "--json"]);
    ok(&stale);
    assert_eq!(
        stale.json()["status"],
        "PENDING",
        "no refresh: the history as it was"
    );
    let fresh = cli.run(&["--profile", "test", "link", "show", &paid, "--refresh"]);
    ok(&fresh);
    assert!(
        fresh
            .stdout
            .lines()
            .any(|l| l.starts_with("status") && l.ends_with("COMPLETED")),
        "{}",
        fresh.stdout
    );
    let completed = cli.run(&[
        "--profile",
        "test",
        "link",
        "list",
        "--status",
        "COMPLETED",
        "--json",
    ]);
    let only: Vec<Value> = completed.json().as_array().cloned().unwrap_or_default();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0]["id"], paid.as_str());
    assert_eq!(money(&only[0]["paidAmount"]), dec("42.50"));

    let cancel = cli.run(&["--profile", "test", "link", "cancel", &other, "--json"]);
    ok(&cancel);
    assert_eq!(cancel.json()["status"], "EXPIRED");
    let listed = cli.run(&[
        "--profile",
        "test",
        "link",
        "list",
        "--status",
        "EXPIRED",
        "--json",
    ]);
    assert_eq!(
        listed.json()[0]["id"],
        other.as_str(),
        "cancel updated history"
    );
    let not_cancellable = cli.run(&["--profile", "test", "link", "cancel", &paid]);
    assert_eq!(not_cancellable.code, 4, "{not_cancellable:?}");
    assert_eq!(
        not_cancellable.stderr.lines().next(),
        Some("link.not.cancellable"),
        "the key first, then the sentence: {not_cancellable:?}"
    );
    let unknown = cli.run(&["--profile", "test", "link", "show", "lnk_nope"]);
    assert_eq!(unknown.code, 1, "{unknown:?}");
    assert!(unknown.stderr.contains("lnk_nope"));

    // The PNG decodes back to the payment URL.
    let png = cli.data_dir().join("qr.png");
    let qr = cli.run(&[
        "--profile",
        "test",
        "link",
        "qr",
        &paid,
        "--png",
        png.to_str().expect("utf-8 path"),
    ]);
    ok(&qr);
    let url = format!("{}/pay/{paid}", server.base_url());
    assert_eq!(crate::support::qr::decode_png_file(&png), url);
}

#[test]
fn pending_rows_are_listed_retried_and_abandoned_and_a_second_submit_sends_nothing() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    // Ten 500s: two creates running side by side use five attempts each, then give up.
    server
        .admin()
        .add_fault(fault("link.create", FaultKind::Error500, 10))
        .expect("a valid rule");
    let spawn = |order: &str| {
        cli.command(&[
            "--profile",
            "test",
            "link",
            "create",
            "--amount",
            "77",
            "--order-number",
            order,
        ])
        .spawn()
        .expect("paydesk starts")
    };
    let (a, b) = (spawn("PND-A"), spawn("PND-B"));
    for child in [a, b] {
        let out = child.wait_with_output().expect("paydesk ends");
        assert_eq!(out.status.code(), Some(5), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The app's word, with the command that lists them (issue 29: one word per thing).
        assert!(stderr.contains("Unsent (paydesk pending)"), "{stderr}");
    }
    assert!(server.admin().links(None).is_empty());

    let list = cli.run(&["--profile", "test", "pending", "list", "--json"]);
    ok(&list);
    let rows = list.json();
    let mut keys: Vec<(String, String, String, u64)> = rows
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap_or_default().to_owned(),
                r["state"].as_str().unwrap_or_default().to_owned(),
                r["amount"].as_str().unwrap_or_default().to_owned(),
                r["attempts"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        vec![
            ("link-PND-A".into(), "pending".into(), "77.00".into(), 5),
            ("link-PND-B".into(), "pending".into(), "77.00".into(), 5),
        ]
    );
    let text = cli.run(&["--profile", "test", "pending", "list"]);
    assert!(
        text.stdout
            .lines()
            .any(|l| l.starts_with("link-PND-A\tpending\t77.00 TRY\t5\t")),
        "{}",
        text.stdout
    );

    // A second submit of a pending order sends nothing: the armed fault is not consumed.
    server
        .admin()
        .add_fault(fault("link.create", FaultKind::Error500, 1))
        .expect("a valid rule");
    let second = cli.link_create("test", &["--amount", "77", "--order-number", "PND-A"]);
    assert_eq!(second.code, 5, "{second:?}");
    assert!(second.stderr.contains("no second request"), "{second:?}");
    assert_eq!(
        server.admin().state()["faults"][0]["next"],
        1,
        "no request reached the server"
    );
    server.admin().clear_faults();

    let retried = cli.run(&["--profile", "test", "pending", "retry", "link-PND-A"]);
    ok(&retried);
    let held = server_orders(&server);
    let link = &held["PND-A"];
    assert_eq!(link.len(), 1);
    assert_eq!(
        retried.stdout.trim(),
        format!("{}\t{}/pay/{}", link[0].id, server.base_url(), link[0].id)
    );

    ok(&cli.run(&["--profile", "test", "pending", "abandon", "link-PND-B"]));
    let all = cli.run(&["--profile", "test", "pending", "retry", "--all"]);
    ok(&all);
    assert!(all.stdout.is_empty(), "nothing left to resume: {all:?}");
    let abandoned = cli.run(&["--profile", "test", "pending", "retry", "link-PND-B"]);
    assert_ne!(
        abandoned.code, 0,
        "an abandoned row is not re-sent: {abandoned:?}"
    );
    assert!(!server_orders(&server).contains_key("PND-B"));
    let none = cli.run(&["--profile", "test", "pending", "retry", "link-NOPE"]);
    assert_eq!(none.code, 3, "{none:?}");
    let list = cli.run(&["--profile", "test", "pending", "list", "--json"]);
    assert_eq!(list.json(), serde_json::json!([]));
    // History agrees with the server.
    let history = cli
        .run(&["--profile", "test", "link", "list", "--json"])
        .json();
    assert_eq!(history.as_array().map(Vec::len), Some(1));
    assert_eq!(history[0]["id"], link[0].id.as_str());
}

#[test]
fn pending_retry_all_finishes_a_create_whose_answer_was_lost() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    // Every answer lost: the first attempt creates the link, the four retries get the
    // stored answer but lose it too; then the user's retry gets it.
    server
        .admin()
        .add_fault(fault("link.create", FaultKind::Lost, 5))
        .expect("a valid rule");
    let out = cli.link_create("test", &["--amount", "12.34", "--order-number", "LOST-1"]);
    assert_eq!(out.code, 5, "{out:?}");
    assert_eq!(
        server_orders(&server)["LOST-1"].len(),
        1,
        "the server did create it"
    );
    let history = cli
        .run(&["--profile", "test", "link", "list", "--json"])
        .json();
    assert_eq!(
        history,
        serde_json::json!([]),
        "history does not know it yet"
    );
    let all = cli.run(&["--profile", "test", "pending", "retry", "--all"]);
    ok(&all);
    let held = server_orders(&server);
    assert_eq!(held["LOST-1"].len(), 1, "no duplicate");
    assert!(
        all.stdout
            .starts_with(&format!("link-LOST-1\t{}\t", held["LOST-1"][0].id)),
        "{all:?}"
    );
    let history = cli
        .run(&["--profile", "test", "link", "list", "--json"])
        .json();
    assert_eq!(history[0]["id"], held["LOST-1"][0].id.as_str());
}

#[test]
fn card_save_reads_the_pan_from_stdin_and_never_echoes_it() {
    let cli = Cli::new();
    let pan = "5400610000000001";
    let out = cli.run_with(
        &[
            "card",
            "save",
            "--expiry-month",
            "12",
            "--expiry-year",
            "2030",
            "--holder",
            "AYSE YILMAZ",
            "--alias",
            "is",
            "--default",
        ],
        Some(&format!("{pan}\n000\n")),
        &[],
    );
    ok(&out);
    assert!(!out.all().contains(pan), "{out:?}");
    assert!(!out.all().contains("0000000001"), "{out:?}");
    let fields: Vec<&str> = out.stdout.trim().split('\t').collect();
    assert!(fields[0].starts_with("card_"), "{out:?}");
    assert_eq!(
        &fields[1..],
        ["540061******0001", "MASTERCARD", "Yapı Kredi", "ACTIVE"]
    );

    let json = cli.run_with(
        &[
            "card",
            "save",
            "--expiry-month",
            "12",
            "--expiry-year",
            "2030",
            "--json",
        ],
        Some("5549 6078 1234 5675\n"),
        &[],
    );
    ok(&json);
    let card = json.json();
    assert_eq!(card["maskedPan"], "554960******5675");
    assert_eq!(card["usage"], "POS_PAYMENT");
    assert!(!json.stdout.contains("5549607812345675") && !json.stdout.contains("cardNumber"));

    let bad = cli.run_with(
        &[
            "card",
            "save",
            "--expiry-month",
            "13",
            "--expiry-year",
            "2030",
        ],
        Some("5400610000000002\n"),
        &[],
    );
    assert_eq!(bad.code, 3, "{bad:?}");
    assert!(bad.stderr.lines().count() >= 2, "both errors: {bad:?}");
    assert!(!bad.all().contains("5400610000000002"));
}

#[test]
fn installments_list_the_bins_options_with_exact_totals() {
    let cli = Cli::new();
    let out = cli.run(&[
        "installments",
        "--bin",
        "540061",
        "--amount",
        "1000",
        "--json",
    ]);
    ok(&out);
    let list = out.json();
    assert_eq!(list["binNumber"], "540061");
    assert_eq!(list["bankName"], "Yapı Kredi");
    let options = list["installments"].as_array().expect("options");
    assert!(options.len() >= 2, "{list}");
    for o in options {
        let count = o["installmentCount"].as_u64().expect("a count");
        let total = money(&o["totalAmount"]);
        let rate = money(&o["commissionRate"]);
        let expected = (dec("1000") * (Decimal::ONE + rate / dec("100")))
            .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
        assert_eq!(total, expected, "{o}");
        assert_eq!(
            money(&o["installmentAmount"]),
            (total / Decimal::from(count))
                .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
        );
    }
    // Up to 8 digits are taken (6 are used); a whole card number is refused (cli_secrets.rs).
    let text = cli.run(&["installments", "--bin", "54006100"]);
    ok(&text);
    assert!(
        text.stdout.starts_with("540061 Yapı Kredi"),
        "{}",
        text.stdout
    );
    let bad = cli.run(&["installments", "--bin", "12"]);
    assert_eq!(bad.code, 3, "{bad:?}");
}

#[test]
fn catalog_import_and_list() {
    let cli = Cli::new();
    let csv = cli.data_dir().join("urunler.csv");
    std::fs::write(
        &csv,
        "id;name;unit_price;currency\nvar_simit;Susamlı Simit;25,00;TRY\nvar_fincan;Fincan;18.50;EUR\n",
    )
    .expect("write csv");
    let out = cli.run(&["catalog", "import", csv.to_str().expect("utf-8 path")]);
    ok(&out);
    assert!(out.stdout.starts_with("2 "), "{out:?}");
    let list = cli.run(&["catalog", "list", "--json"]);
    ok(&list);
    let mut rows: Vec<(String, String, Decimal, String)> = list
        .json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap_or_default().to_owned(),
                v["name"].as_str().unwrap_or_default().to_owned(),
                money(&v["unit_price"]),
                v["currency"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        vec![
            (
                "var_fincan".into(),
                "Fincan".into(),
                dec("18.50"),
                "EUR".into()
            ),
            (
                "var_simit".into(),
                "Susamlı Simit".into(),
                dec("25.00"),
                "TRY".into()
            ),
        ]
    );
    let text = cli.run(&["catalog", "list"]);
    assert!(
        text.stdout
            .lines()
            .any(|l| l.starts_with("var_simit\tSusamlı Simit\t"))
    );

    let bad = cli.data_dir().join("bad.csv");
    std::fs::write(
        &bad,
        "id,name,unit_price,currency\nvar_x,X,-3,TRY\nvar_y,Y,4.00,XXX\n",
    )
    .expect("write csv");
    let out = cli.run(&["catalog", "import", bad.to_str().expect("utf-8 path")]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr.contains("bad.csv:2:") && out.stderr.contains("bad.csv:3:"),
        "{out:?}"
    );
    let missing = cli.run(&["catalog", "import", "/nonexistent/x.csv"]);
    assert_eq!(missing.code, 1);
}

/// Journals a create of `order` from 23.5 hours ago whose outcome was never learnt: inside the
/// server's 24 h key retention, but past paydesk's 23 h margin.
fn journal_stale_create(cli: &Cli, order: &str) {
    let mut store = paydesk::store::Store::open(cli.data_dir()).expect("the store opens");
    let request = crate::support::links::link_request(order, "5");
    let begun = store
        .journal_begin(&paydesk::store::NewJournalRow {
            key: paydesk::store::JournalKey::new("test", "link.create", format!("link-{order}")),
            body: paydesk::secrets::Redacted(request.body_bytes()),
            order_number: Some(order.into()),
            amount: Some(request.amount()),
            currency: Some(request.currency()),
            now: Utc::now() - Duration::minutes(23 * 60 + 30),
            began_by: None,
        })
        .expect("the row is committed");
    assert!(matches!(begun, paydesk::store::JournalBegin::Started(_)));
}

#[test]
fn a_row_23_hours_old_is_not_resent_by_retry_all_or_a_new_create_and_is_reported() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    journal_stale_create(&cli, "OLD-1");
    let all = cli.run(&["--profile", "test", "pending", "retry", "--all"]);
    assert_eq!(all.code, 5, "{all:?}");
    assert!(
        all.stderr.starts_with("link-OLD-1\t") && all.stderr.contains("23 hours"),
        "{all:?}"
    );
    let one = cli.run(&["--profile", "test", "pending", "retry", "link-OLD-1"]);
    assert_eq!(one.code, 5, "{one:?}");
    // The same order created again: nothing is sent, and the clerk is told why.
    let again = cli.link_create("test", &["--amount", "5", "--order-number", "OLD-1"]);
    assert_eq!(again.code, 5, "{again:?}");
    assert!(
        again.stderr.contains("nothing was sent") && again.stderr.contains("link-OLD-1"),
        "{again:?}"
    );
    assert!(
        server.admin().links(None).is_empty(),
        "a stale row is never re-sent"
    );
    let list = cli
        .run(&["--profile", "test", "pending", "list", "--json"])
        .json();
    assert!(
        list[0]["state"]
            .as_str()
            .is_some_and(|s| s.starts_with("stale")),
        "{list}"
    );
    ok(&cli.run(&["--profile", "test", "pending", "abandon", "link-OLD-1"]));
    let list = cli
        .run(&["--profile", "test", "pending", "list", "--json"])
        .json();
    assert_eq!(list, serde_json::json!([]));
    ok(&cli.run(&["--profile", "test", "pending", "retry", "--all"]));
}

#[test]
fn a_stale_row_is_re_sent_only_with_force_and_then_completes() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    journal_stale_create(&cli, "OLD-2");
    let refused = cli.run(&["--profile", "test", "pending", "retry", "link-OLD-2"]);
    assert_eq!(refused.code, 5, "{refused:?}");
    assert!(server.admin().links(None).is_empty());
    let both = cli.run(&["--profile", "test", "pending", "retry", "--all", "--force"]);
    assert_eq!(both.code, 2, "--force is for one checked row: {both:?}");

    let forced = cli.run(&[
        "--profile",
        "test",
        "pending",
        "retry",
        "link-OLD-2",
        "--force",
    ]);
    ok(&forced);
    let links = server.admin().links(None);
    assert_eq!(links.len(), 1, "{links:?}");
    assert!(
        forced.stdout.starts_with(&format!("{}\t", links[0].id)),
        "{forced:?}"
    );
    let list = cli
        .run(&["--profile", "test", "pending", "list", "--json"])
        .json();
    assert_eq!(list, serde_json::json!([]), "the row is completed");
    let history = cli
        .run(&["--profile", "test", "link", "list", "--json"])
        .json();
    assert_eq!(history[0]["orderNumber"], "OLD-2", "{history}");
}

#[test]
fn catalog_barcodes_are_imported_listed_and_checked_per_line() {
    let cli = Cli::new();
    let csv = cli.data_dir().join("barkodlu.csv");
    std::fs::write(
        &csv,
        "id;name;unit_price;currency;barcode\n\
         var_simit;Susamlı Simit;25,00;TRY;8690000000005\n\
         var_fincan;Fincan;18.50;EUR;8690000000006\n",
    )
    .expect("write csv");
    let out = cli.run(&["catalog", "import", csv.to_str().expect("utf-8 path")]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr
            .contains("barkodlu.csv:3: the barcode `8690000000006`: check digit is 6, expected 5"),
        "{out:?}"
    );
    let list = cli.run(&["catalog", "list", "--json"]);
    ok(&list);
    assert_eq!(list.json()[0]["barcode"], "8690000000005", "{list:?}");
    let text = cli.run(&["catalog", "list"]);
    assert!(
        text.stdout
            .lines()
            .any(|l| l.starts_with("var_simit\t") && l.ends_with("\t8690000000005")),
        "{text:?}"
    );
}

/// Today in Istanbul (UTC+3 all year), where the report tests put the CLI with `TZ`.
fn istanbul_today() -> chrono::NaiveDate {
    (Utc::now() + Duration::hours(3)).date_naive()
}

/// The day report and the CSV export, end to end: links made, paid, partly paid and cancelled
/// through the CLI and the sandbox, then `report --json` against figures computed here from
/// what was done, and `link list --csv` read back with the `csv` crate against `link list
/// --json`.
#[test]
// Long on purpose: one scenario checked end to end against the report and the CSV.
#[allow(clippy::too_many_lines)]
fn report_json_and_link_list_csv_agree_with_what_was_done() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    cli.env("TZ", "Europe/Istanbul");
    let catalog = cli.data_dir().join("catalog.csv");
    std::fs::write(
        &catalog,
        "id,name,unit_price,currency\nvar_simit,Susamlı Simit,25.00,TRY\n",
    )
    .expect("write csv");
    ok(&cli.run(&["catalog", "import", catalog.to_str().expect("utf-8 path")]));
    let create = |args: &[&str]| -> String {
        let mut all = vec!["--profile", "test", "link", "create", "--json"];
        all.extend_from_slice(args);
        let out = cli.run(&all);
        ok(&out);
        out.json()["id"].as_str().expect("an id").to_owned()
    };
    let coffee = create(&[
        "--amount",
        "150",
        "--item",
        "Filtre kahve:75x2",
        "--description",
        "Masa 4, \"pencere\" yanı\nikinci satır",
    ]);
    let tea = create(&["--amount", "100", "--partial", "--item", "Çay:20x5"]);
    let simit = create(&["--amount", "50", "--variant", "var_simitx2"]);
    let cancelled = create(&["--amount", "10", "--description", "İptal: ığdır şal"]);
    let euro = create(&["--amount", "20", "--currency", "EUR", "--item", "Fincan:20"]);

    server.admin().pay(&coffee, None).expect("paid");
    server
        .admin()
        .pay(&tea, Some(dec("30.00")))
        .expect("partly paid");
    server.admin().pay(&simit, None).expect("paid");
    for id in [&coffee, &tea, &simit] {
        ok(&cli.run(&["--profile", "test", "link", "show", id, "--refresh"]));
    }
    ok(&cli.run(&["--profile", "test", "link", "cancel", &cancelled]));

    let today = istanbul_today().to_string();
    let report = cli.run(&[
        "--profile",
        "test",
        "report",
        "--from",
        &today,
        "--to",
        &today,
        "--json",
    ]);
    ok(&report);
    let r = report.json();
    assert_eq!(r["utcOffset"], "+03:00");
    assert_eq!(r["links"], 5);
    let currencies = r["currencies"].as_array().expect("a list");
    assert_eq!(currencies.len(), 2);
    let tr = &currencies[0];
    assert_eq!(tr["currency"], "TRY");
    assert_eq!(tr["created"], 4);
    assert_eq!(tr["paid"]["count"], 2);
    assert_eq!(money(&tr["paid"]["sum"]), dec("150") + dec("50"));
    assert_eq!(tr["partiallyPaid"]["count"], 1);
    assert_eq!(money(&tr["partiallyPaid"]["sum"]), dec("30"));
    assert_eq!(
        tr["cancelled"], 1,
        "the sandbox says EXPIRED; paydesk knows"
    );
    assert_eq!(tr["expired"], 0);
    assert_eq!(tr["pending"], 0);
    assert_eq!(money(&tr["collected"]), dec("230.00"));
    let hours: Decimal = tr["collectedByHour"]
        .as_array()
        .expect("24 hours")
        .iter()
        .map(money)
        .sum();
    assert_eq!(hours, dec("230.00"));
    // The coffee's money sits in the Istanbul hour of its completion.
    let shown = cli
        .run(&["--profile", "test", "link", "show", &coffee, "--json"])
        .json();
    let completed: DateTime<Utc> = shown["completedDate"]
        .as_str()
        .expect("a completion date")
        .parse()
        .expect("ISO-8601");
    let hour = usize::try_from(
        (completed + Duration::hours(3))
            .format("%H")
            .to_string()
            .parse::<u32>()
            .expect("an hour"),
    )
    .expect("small");
    assert!(money(&tr["collectedByHour"][hour]) >= dec("150"));
    let eur = &currencies[1];
    assert_eq!(eur["currency"], "EUR");
    assert_eq!(
        (eur["created"].clone(), eur["pending"].clone()),
        (1.into(), 1.into())
    );
    // Best-selling items: the paid links' items; the simit named by the local catalog.
    let items: Vec<(String, u64, Decimal)> = r["topItems"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|i| {
            (
                i["name"].as_str().unwrap_or_default().to_owned(),
                i["quantity"].as_u64().unwrap_or_default(),
                money(&i["sum"]),
            )
        })
        .collect();
    assert_eq!(
        items,
        vec![
            ("Filtre kahve".to_owned(), 2, dec("150.00")),
            ("Susamlı Simit".to_owned(), 2, dec("50.00")),
        ]
    );
    // The text form, and a day without links.
    let text = cli.run(&["--profile", "test", "report"]);
    ok(&text);
    assert!(
        text.stdout
            .starts_with(&format!("Day close {today} (UTC+03:00)")),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("Filtre kahve"), "{}", text.stdout);
    let yesterday = (istanbul_today() - Duration::days(1)).to_string();
    let empty = cli.run(&["--profile", "test", "report", "--from", &yesterday]);
    ok(&empty);
    assert!(
        empty
            .stdout
            .contains("No links were created on these days."),
        "{}",
        empty.stdout
    );
    let backwards = cli.run(&[
        "--profile",
        "test",
        "report",
        "--from",
        &today,
        "--to",
        &yesterday,
    ]);
    assert_eq!(backwards.code, 3, "{backwards:?}");
    assert_eq!(cli.run(&["report", "--from", "21.11.2026"]).code, 2);

    // The CSV export equals `link list --json`, field for field, with Istanbul local times.
    let csv_path = cli.data_dir().join("history.csv");
    let csv_arg = csv_path.to_str().expect("utf-8 path");
    let out = cli.run(&[
        "--profile",
        "test",
        "link",
        "list",
        "--csv",
        csv_arg,
        "--from",
        &today,
    ]);
    ok(&out);
    assert!(out.stdout.starts_with("5 links written to"), "{out:?}");
    let listed = cli
        .run(&["--profile", "test", "link", "list", "--json"])
        .json();
    let mut reader = csv::Reader::from_path(&csv_path).expect("the CSV opens");
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(header, paydesk::store::LINK_CSV_HEADER);
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a record")).collect();
    let links = listed.as_array().expect("a list");
    assert_eq!(rows.len(), links.len());
    for (row, link) in rows.iter().zip(links) {
        let field = |name: &str| &row[header.iter().position(|h| h == name).expect("a column")];
        for name in [
            "id",
            "referenceNumber",
            "orderNumber",
            "paymentUrl",
            "transactionRef",
            "currency",
            "status",
            "description",
            "availableInstallments",
        ] {
            assert_eq!(
                field(name),
                link[name].as_str().unwrap_or_default(),
                "{name}"
            );
        }
        for name in ["amount", "paidAmount", "remainingAmount"] {
            assert_eq!(dec(field(name)), money(&link[name]), "{name}");
            assert!(!field(name).contains(','), "a dot, never a comma");
        }
        for name in ["allowPartialPayment", "enableInstallment"] {
            assert_eq!(
                field(name),
                link[name]
                    .as_bool()
                    .map(|b| b.to_string())
                    .unwrap_or_default()
            );
        }
        for name in ["expiryDate", "completedDate", "createdDate"] {
            let utc = link[name].as_str().unwrap_or_default();
            assert_eq!(field(name), utc, "{name}");
            let local = field(&format!("{name}Local"));
            if utc.is_empty() {
                assert!(local.is_empty());
            } else {
                let a: DateTime<chrono::FixedOffset> =
                    local.parse().expect("ISO-8601 with an offset");
                assert!(local.ends_with("+03:00"), "{local}");
                assert_eq!(
                    a.with_timezone(&Utc),
                    utc.parse::<DateTime<Utc>>().expect("ISO-8601")
                );
            }
        }
        let cancelled_here = !field("cancelledAt").is_empty();
        assert_eq!(cancelled_here, link["id"] == cancelled.as_str());
    }
    assert!(rows.iter().any(|r| r[0] == euro && &r[8] == "EUR"));
    let descriptions: Vec<&str> = rows.iter().map(|r| &r[10]).collect();
    // Quotes and commas survive the CSV; the line break, a control character in the server's
    // answer, was made a space before it was stored (docs/design.md §3).
    assert!(descriptions.contains(&"Masa 4, \"pencere\" yanı ikinci satır"));
    assert!(descriptions.contains(&"İptal: ığdır şal"));

    // Filters: a status, and a day without links (a header only).
    let paid_csv = cli.data_dir().join("paid.csv");
    ok(&cli.run(&[
        "--profile",
        "test",
        "link",
        "list",
        "--status",
        "COMPLETED",
        "--csv",
        paid_csv.to_str().expect("utf-8 path"),
    ]));
    let ids: Vec<String> = csv::Reader::from_path(&paid_csv)
        .expect("the CSV opens")
        .records()
        .map(|r| r.expect("a record")[0].to_owned())
        .collect();
    assert_eq!(ids, vec![simit.clone(), coffee.clone()], "newest first");
    let none_csv = cli.data_dir().join("none.csv");
    let out = cli.run(&[
        "--profile",
        "test",
        "link",
        "list",
        "--to",
        &yesterday,
        "--csv",
        none_csv.to_str().expect("utf-8 path"),
    ]);
    ok(&out);
    assert!(out.stdout.starts_with("0 links"), "{out:?}");
    let text = std::fs::read_to_string(&none_csv).expect("written");
    assert_eq!(text.lines().count(), 1, "the header only: {text}");
    // --from/--to also narrow the plain list.
    let listed_today = cli.run(&[
        "--profile",
        "test",
        "link",
        "list",
        "--from",
        &today,
        "--to",
        &today,
        "--json",
    ]);
    assert_eq!(listed_today.json().as_array().map(Vec::len), Some(5));
    let listed_before = cli.run(&[
        "--profile",
        "test",
        "link",
        "list",
        "--to",
        &yesterday,
        "--json",
    ]);
    assert_eq!(listed_before.json().as_array().map(Vec::len), Some(0));
}
