//! Staff at the command line, as the real binary against a sandbox: the first member, `--as`
//! with the PIN from `PAYDESK_STAFF_PIN` or stdin, the role table refusing before anything is
//! sent (exit 3), a clerk cancelling only his or her own unpaid links, and `audit verify`
//! finding a row edited with the `sqlite3` tool.

use crate::support::cli::{Cli, Out, sandbox, server_orders};

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "expected success:\n{out:?}");
}

fn refused(out: &Out, words: &str) {
    assert_eq!(out.code, 3, "expected exit 3:\n{out:?}");
    assert!(
        out.stderr.contains(words),
        "stderr lacks {words:?}:\n{out:?}"
    );
}

/// A shop with a profile on `sandbox`, the manager Zeynep (PIN 9999) and the clerks Ayşe
/// (1234) and Mehmet (5678).
fn shop(cli: &mut Cli, sandbox: &paydesk::sandbox::SandboxHandle) {
    cli.add_profile("shop", sandbox);
    ok(&cli.run_with(
        &["staff", "add", "Zeynep", "--role", "manager"],
        Some("9999\n"),
        &[],
    ));
    for (name, pin) in [("Ayşe", "1234"), ("Mehmet", "5678")] {
        ok(&cli.run_with(
            &["staff", "add", name, "--role", "counter", "--as", "Zeynep"],
            Some(&format!("9999\n{pin}\n")),
            &[],
        ));
    }
}

/// Two text fields of each object of a JSON array (empty when absent).
fn pairs(rows: &serde_json::Value, a: &str, b: &str) -> Vec<(String, String)> {
    let text = |r: &serde_json::Value, k: &str| r[k].as_str().unwrap_or("").to_owned();
    rows.as_array()
        .expect("an array")
        .iter()
        .map(|r| (text(r, a), text(r, b)))
        .collect()
}

/// A 10 TRY link for `order` made by `who` (JSON out), which must succeed.
fn create_as(cli: &Cli, who: &str, pin: &str, order: &str) -> Out {
    let out = cli.run_with(
        &[
            "--profile",
            "shop",
            "link",
            "create",
            "--amount",
            "10",
            "--order-number",
            order,
            "--json",
            "--as",
            who,
        ],
        None,
        &as_pin(pin),
    );
    ok(&out);
    out
}

fn as_pin(pin: &str) -> [(&str, &str); 1] {
    [("PAYDESK_STAFF_PIN", pin)]
}

#[test]
fn the_first_member_is_a_manager_then_every_command_wants_a_member() {
    let cli = Cli::new();
    refused(
        &cli.run_with(
            &["staff", "add", "Ayşe", "--role", "counter"],
            Some("1234\n"),
            &[],
        ),
        "first staff member must be a manager",
    );
    // Staff off: everything runs without --as, which is ignored.
    ok(&cli.run(&["report", "--as", "nobody"]));
    ok(&cli.run_with(
        &["staff", "add", "Zeynep", "--role", "manager"],
        Some("9999\n"),
        &[],
    ));
    refused(&cli.run(&["report"]), "give --as NAME");
    refused(
        &cli.run_with(&["report", "--as", "Zeynep"], None, &as_pin("1111")),
        "Wrong PIN for Zeynep",
    );
    refused(
        &cli.run_with(&["report", "--as", "Zeynep"], None, &as_pin("12")),
        "4 to 8 digits",
    );
    ok(&cli.run_with(&["report", "--as", "Zeynep"], None, &as_pin("9999")));
    // The PIN from the first line of stdin, before the command's own lines.
    ok(&cli.run_with(
        &[
            "staff", "add", "Ayşe", "--role", "counter", "--as", "Zeynep",
        ],
        Some("9999\n1234\n"),
        &[],
    ));
    refused(
        &cli.run_with(&["report", "--as", "Ayşe"], None, &as_pin("1234")),
        "Ayşe (counter) may not run `report`",
    );
    refused(
        &cli.run_with(
            &["staff", "disable", "Zeynep", "--as", "Zeynep"],
            None,
            &as_pin("9999"),
        ),
        "last active manager",
    );
    // `audit verify` is anyone's; the list a manager's.
    let verify = cli.run(&["audit", "verify"]);
    ok(&verify);
    assert!(verify.stdout.contains("whole"), "{verify:?}");
    let list = cli.run_with(
        &["audit", "list", "--json", "--as", "Zeynep"],
        None,
        &as_pin("9999"),
    );
    ok(&list);
    let rows = list.json();
    let actions: Vec<&str> = rows
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| r["action"].as_str().expect("action"))
        .collect();
    assert!(
        actions.contains(&"staff.add") && actions.contains(&"sign-in"),
        "{actions:?}"
    );
    let first = &rows[0];
    for field in ["at", "staff", "approvedBy", "action", "subject", "hash"] {
        assert!(first.get(field).is_some(), "no {field} in {first}");
    }
    // No PIN in any field a person reads. The chain's hashes (hex) and the times are left
    // out of the look: 64 hex digits hold "1234" by chance once in a few hundred rows.
    for row in rows.as_array().expect("an array") {
        for (field, value) in row.as_object().expect("a row") {
            if field.to_lowercase().contains("hash") || field == "at" {
                continue;
            }
            let text = value.to_string();
            assert!(
                !text.contains("9999") && !text.contains("1234"),
                "{field}: {text}"
            );
        }
    }
}

#[test]
fn a_clerk_cancels_only_own_unpaid_links_and_a_refusal_sends_nothing() {
    let sandbox = sandbox();
    let mut cli = Cli::new();
    shop(&mut cli, &sandbox);
    let create = |who: &str, pin: &str, order: &str| {
        let out = create_as(&cli, who, pin, order);
        out.json()["id"].as_str().expect("an id").to_owned()
    };
    let ayse_link = create("Ayşe", "1234", "PD-A1");
    let mehmet_link = create("Mehmet", "5678", "PD-M1");
    let cancel = |id: &str, who: &str, pin: &str| {
        cli.run_with(
            &["--profile", "shop", "link", "cancel", id, "--as", who],
            None,
            &as_pin(pin),
        )
    };
    refused(
        &cancel(&mehmet_link, "Ayşe", "1234"),
        "manager's PIN is needed",
    );
    let orders = server_orders(&sandbox);
    assert_eq!(
        orders["PD-M1"][0].status,
        Some(paydesk::domain::LinkStatus::Pending),
        "nothing was sent"
    );
    ok(&cancel(&ayse_link, "Ayşe", "1234"));
    ok(&cancel(&mehmet_link, "Zeynep", "9999"));
    // A counter clerk may not save a card: refused before the card number is read.
    refused(
        &cli.run_with(
            &[
                "--profile",
                "shop",
                "card",
                "save",
                "--expiry-month",
                "12",
                "--expiry-year",
                "2030",
                "--holder",
                "A B",
                "--as",
                "Ayşe",
            ],
            Some("4111111111111111\n"),
            &as_pin("1234"),
        ),
        "may not run `card save`",
    );
    let audit = cli.run_with(
        &[
            "audit",
            "list",
            "--json",
            "--action",
            "link.cancel",
            "--as",
            "Zeynep",
        ],
        None,
        &as_pin("9999"),
    );
    ok(&audit);
    let who = pairs(&audit.json(), "staff", "subject");
    assert_eq!(
        who,
        [
            ("Zeynep".to_owned(), format!("{mehmet_link} PD-M1")),
            ("Ayşe".to_owned(), format!("{ayse_link} PD-A1")),
        ]
    );
    let creates = cli.run_with(
        &[
            "audit",
            "list",
            "--json",
            "--action",
            "link.create",
            "--as",
            "Zeynep",
        ],
        None,
        &as_pin("9999"),
    );
    let owners: Vec<String> = creates
        .json()
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["staff"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(owners, ["Mehmet", "Ayşe"]);
}

#[test]
fn audit_verify_names_a_row_edited_with_the_sqlite3_tool() {
    let cli = Cli::new();
    ok(&cli.run_with(
        &["staff", "add", "Zeynep", "--role", "manager"],
        Some("9999\n"),
        &[],
    ));
    for name in ["Ayşe", "Mehmet", "Can"] {
        ok(&cli.run_with(
            &["staff", "add", name, "--role", "counter", "--as", "Zeynep"],
            Some("9999\n1234\n"),
            &[],
        ));
    }
    let whole = cli.run(&["audit", "verify"]);
    ok(&whole);
    let head = whole
        .stdout
        .split_whitespace()
        .last()
        .expect("the head")
        .to_owned();
    ok(&cli.run(&["audit", "verify", "--head", &head]));
    let db = cli.data_dir().join("paydesk.sqlite3");
    // The trigger stops an edit; dropping it first is what a person with the file can do.
    let blocked = std::process::Command::new("sqlite3")
        .arg(&db)
        .arg("UPDATE audit SET subject = 'Eve (manager)' WHERE seq = 3;")
        .output()
        .expect("sqlite3 runs (Debian package sqlite3)");
    assert!(!blocked.status.success());
    assert!(String::from_utf8_lossy(&blocked.stderr).contains("append-only"));
    let edit = std::process::Command::new("sqlite3")
        .arg(&db)
        .arg("DROP TRIGGER audit_no_update; UPDATE audit SET subject = 'Eve (manager)' WHERE seq = 3;")
        .output()
        .expect("sqlite3 runs");
    assert!(edit.status.success(), "{edit:?}");
    let broken = cli.run(&["audit", "verify"]);
    assert_eq!(broken.code, 6, "{broken:?}");
    assert!(broken.stderr.contains("broken at row 3"), "{broken:?}");
}

#[test]
fn the_day_close_names_each_clerks_links_and_the_audit_head() {
    let sandbox = sandbox();
    let mut cli = Cli::new();
    shop(&mut cli, &sandbox);
    for (who, pin, order) in [("Ayşe", "1234", "PD-A2"), ("Mehmet", "5678", "PD-M2")] {
        create_as(&cli, who, pin, order);
    }
    let report = cli.run_with(
        &["--profile", "shop", "report", "--json", "--as", "Zeynep"],
        None,
        &as_pin("9999"),
    );
    ok(&report);
    let report = report.json();
    let by_staff: Vec<(String, u64)> = report["byStaff"]
        .as_array()
        .expect("byStaff")
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap_or("?").to_owned(),
                m["currencies"][0]["created"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(by_staff, [("Ayşe".to_owned(), 1), ("Mehmet".to_owned(), 1)]);
    assert_eq!(report["currencies"][0]["issued"].as_f64(), Some(20.0));
    assert_eq!(report["currencies"][0]["outstanding"].as_f64(), Some(20.0));
    // The head noted at the close still proves the chain after later rows.
    let head = report["auditHead"].as_str().expect("auditHead").to_owned();
    let text = cli.run_with(
        &["--profile", "shop", "report", "--as", "Zeynep"],
        None,
        &as_pin("9999"),
    );
    ok(&text);
    assert!(text.stdout.contains("By staff member") && text.stdout.contains("Mehmet"));
    assert!(
        text.stdout.contains("Audit chain head: "),
        "{}",
        text.stdout
    );
    assert!(
        !text.stdout.contains(&head),
        "a later sign-in moved the head"
    );
    ok(&cli.run(&["audit", "verify", "--head", &head]));
    the_list_and_its_csv_name_each_clerk(&cli);
}

/// `link list --json` and a manager's CSV export name each link's clerk (the shop of the test
/// above); a clerk may not export.
fn the_list_and_its_csv_name_each_clerk(cli: &Cli) {
    let list = cli.run_with(
        &[
            "--profile",
            "shop",
            "link",
            "list",
            "--json",
            "--as",
            "Ayşe",
        ],
        None,
        &as_pin("1234"),
    );
    ok(&list);
    let staff = pairs(&list.json(), "orderNumber", "staff");
    assert_eq!(
        staff,
        [
            ("PD-M2".to_owned(), "Mehmet".to_owned()),
            ("PD-A2".to_owned(), "Ayşe".to_owned())
        ]
    );
    assert!(
        list.json()[0]["amount"].is_number(),
        "amounts stay JSON numbers"
    );
    let csv_path = cli.data_dir().join("links.csv");
    let csv_arg = csv_path.to_str().expect("a UTF-8 path");
    refused(
        &cli.run_with(
            &[
                "--profile",
                "shop",
                "link",
                "list",
                "--csv",
                csv_arg,
                "--as",
                "Ayşe",
            ],
            None,
            &as_pin("1234"),
        ),
        "may not run `link list --csv`",
    );
    ok(&cli.run_with(
        &[
            "--profile",
            "shop",
            "link",
            "list",
            "--csv",
            csv_arg,
            "--as",
            "Zeynep",
        ],
        None,
        &as_pin("9999"),
    ));
    let csv = std::fs::read_to_string(&csv_path).expect("the CSV");
    let mut lines = csv.lines();
    assert!(lines.next().expect("a header").ends_with(",staff"));
    let last_cells: Vec<&str> = lines.map(|l| l.rsplit(',').next().unwrap_or("")).collect();
    assert_eq!(last_cells, ["Mehmet", "Ayşe"]);
}

/// A command whose own audit row names the member (a link made, a member added) writes no
/// second "signed in" row; a read-only one (an export) keeps its sign-in row, its only record.
#[test]
fn a_command_that_records_itself_writes_no_second_sign_in_row_and_an_export_keeps_its_own() {
    let sandbox = sandbox();
    let mut cli = Cli::new();
    shop(&mut cli, &sandbox);
    create_as(&cli, "Ayşe", "1234", "PD-R1");
    let csv = cli.data_dir().join("links.csv");
    ok(&cli.run_with(
        &[
            "--profile",
            "shop",
            "link",
            "list",
            "--csv",
            csv.to_str().expect("a path"),
            "--as",
            "Zeynep",
        ],
        None,
        &as_pin("9999"),
    ));
    let list = cli.run_with(
        &["audit", "list", "--json", "--as", "Zeynep"],
        None,
        &as_pin("9999"),
    );
    ok(&list);
    let rows = list.json();
    let rows: Vec<(String, String, String)> = rows
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            let text = |k: &str| r[k].as_str().unwrap_or("").to_owned();
            (text("staff"), text("action"), text("subject"))
        })
        .collect();
    let of = |who: &str| -> Vec<&str> {
        rows.iter()
            .filter(|(s, ..)| s == who)
            .map(|(_, a, _)| a.as_str())
            .collect()
    };
    assert_eq!(of("Ayşe"), ["link.create"], "{rows:?}");
    assert!(
        rows.iter()
            .any(|(s, a, subj)| s == "Zeynep" && a == "sign-in" && subj == "cli: link list --csv"),
        "{rows:?}"
    );
    // Adding the two clerks left Zeynep's two staff.add rows and no sign-in row for them.
    assert!(
        !rows
            .iter()
            .any(|(s, a, subj)| s == "Zeynep" && a == "sign-in" && subj == "cli: staff add"),
        "{rows:?}"
    );
}
