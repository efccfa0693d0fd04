//! Several desks in one shop, and the shop failing under them, end to end: the real `paydesk`
//! binary on separate data folders, one sandbox shared through a profile with the same base
//! URL and key id on every desk, and one database of the private PostgreSQL cluster of
//! `tests/support/pg.rs` (skipped with a sentence naming the package when PostgreSQL is not
//! installed; a failure under `PAYDESK_REQUIRE_POSTGRES=1`).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::cli::{Cli, Out, sandbox, server_orders};
use crate::support::pg::{self, PASSWORD, Pg};
use chrono::Utc;
use paydesk::sandbox::SandboxHandle;
use paydesk::store::{DESK_CSV_COLUMN, SANDBOX_PROFILE, Store};
use rust_decimal::Decimal;
use serde_json::Value;

/// The profile every desk makes its links on: the one shared sandbox.
const PROFILE: &str = "shared";

/// What `link create` says when the shop did not take the change before the command ended.
const WAITS: &str = "The change is saved on this desk and waits to be sent to the shop";

/// What `link list` and `report` say when they show this desk only.
const OFFLINE: &str = "Offline from the shop, showing this desk only";

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "{out:?}");
}

/// A fresh database and its URL, over TLS checked in full.
fn shop_url(pg: &Pg) -> (String, String) {
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    (db, url)
}

/// A desk: its own data folder, no keyring (the password comes from the environment), the
/// Istanbul clock, the shared sandbox's profile; joined to `url` and named `name`. Returns it
/// with its device id.
fn desk(sandbox: &SandboxHandle, url: &str, name: &str) -> (Cli, String) {
    let mut cli = Cli::new();
    cli.env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/paydesk-bus",
    )
    .env("TZ", "Europe/Istanbul")
    .env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    cli.add_profile(PROFILE, sandbox);
    ok(&cli.run(&["shop", "join", url]));
    ok(&cli.run(&["shop", "name", name]));
    let id = cli.run(&["shop", "status", "--json"]).json()["deskId"]
        .as_str()
        .expect("a desk id")
        .to_owned();
    (cli, id)
}

/// Sends whatever waits in the desk's outbox (`shop sync`), and checks nothing is left.
fn settle(cli: &Cli) {
    ok(&cli.run(&["shop", "sync"]));
    assert_eq!(cli.run(&["shop", "status", "--json"]).json()["outbox"], 0);
}

/// `link create` on the shared profile; the new link's id.
fn create(cli: &Cli, args: &[&str]) -> (String, Out) {
    let mut all = vec!["--profile", PROFILE, "link", "create", "--json"];
    all.extend_from_slice(args);
    let out = cli.run(&all);
    ok(&out);
    let id = out.json()["id"].as_str().expect("an id").to_owned();
    (id, out)
}

/// `link list --json` (with `extra`): each listed link's id, with its `desk` and `deskId`.
fn listed(cli: &Cli, extra: &[&str]) -> BTreeMap<String, (String, String)> {
    let mut args = vec![
        "--profile",
        PROFILE,
        "link",
        "list",
        "--json",
        "--limit",
        "500",
    ];
    args.extend_from_slice(extra);
    let out = cli.run(&args);
    ok(&out);
    assert!(!out.stderr.contains(OFFLINE), "{out:?}");
    out.json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|l| {
            (
                l["id"].as_str().expect("an id").to_owned(),
                (
                    l["desk"].as_str().expect("a desk name").to_owned(),
                    l["deskId"].as_str().expect("a desk id").to_owned(),
                ),
            )
        })
        .collect()
}

/// `link list --csv FILE` read back: each row's link id and desk column.
fn listed_csv(cli: &Cli) -> BTreeMap<String, String> {
    let file = tempfile::NamedTempFile::new().expect("a temp file");
    let path = file.path().to_str().expect("a UTF-8 path").to_owned();
    // The file must not exist yet: paydesk creates it private.
    drop(file);
    let out = cli.run(&["--profile", PROFILE, "link", "list", "--csv", &path]);
    ok(&out);
    let mut reader = csv::Reader::from_path(&path).expect("the CSV reads");
    let header = reader.headers().expect("a header").clone();
    assert_eq!(
        header.iter().next_back(),
        Some(DESK_CSV_COLUMN),
        "the desk column comes last: {header:?}"
    );
    let id_at = header.iter().position(|h| h == "id").expect("an id column");
    let desk_at = header.len() - 1;
    let rows: BTreeMap<String, String> = reader
        .records()
        .map(|r| {
            let r = r.expect("a row");
            (r[id_at].to_owned(), r[desk_at].to_owned())
        })
        .collect();
    let _ = std::fs::remove_file(&path);
    rows
}

/// `n` desks each make links; every desk lists every desk's links with the right desk, and
/// `--this-desk` its own only; the CSV rows carry the desk.
fn every_desk_sees_every_desks_links(n: usize) {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let server = sandbox();
    let desks: Vec<(Cli, String, String)> = (1..=n)
        .map(|i| {
            let name = format!("Counter {i}");
            let (cli, id) = desk(&server, &url, &name);
            (cli, id, name)
        })
        .collect();
    let ids: BTreeSet<&str> = desks.iter().map(|(_, id, _)| id.as_str()).collect();
    assert_eq!(ids.len(), n, "each data folder is its own desk");
    // Who made which link: two each, the desks taking turns.
    let mut made: BTreeMap<String, (String, String)> = BTreeMap::new();
    for round in 0..2 {
        for (cli, id, name) in &desks {
            let amount = format!("{}.50", 10 + round);
            let (link, _) = create(cli, &["--amount", &amount]);
            made.insert(link, (name.clone(), id.clone()));
        }
    }
    // A create pushes its own link when the shop answers within a second (tests/shop/cli.rs
    // holds it to that); on a loaded machine one may wait in the outbox, which a sync sends.
    for (cli, _, _) in &desks {
        settle(cli);
    }
    assert_eq!(
        pg.admin_sql(&db, "SELECT count(DISTINCT link_id) FROM links"),
        (2 * n).to_string()
    );
    for (cli, id, name) in &desks {
        assert_eq!(listed(cli, &[]), made, "{name} lists the whole shop");
        let own: BTreeMap<String, (String, String)> = made
            .iter()
            .filter(|(_, (_, desk))| desk == id)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(own.len(), 2);
        assert_eq!(listed(cli, &["--this-desk"]), own, "{name}: --this-desk");
        let by_name: BTreeMap<String, String> = made
            .iter()
            .map(|(link, (desk, _))| (link.clone(), desk.clone()))
            .collect();
        assert_eq!(listed_csv(cli), by_name, "{name}: the CSV's desk column");
    }
}

/// The `sent` list `link list --json` gives for link `id` on desk `cli`: each send's channel
/// and who sent it.
fn sent_list(cli: &Cli, id: &str) -> Vec<(String, String)> {
    let out = cli.run(&[
        "--profile",
        PROFILE,
        "link",
        "list",
        "--json",
        "--limit",
        "500",
    ]);
    ok(&out);
    out.json()
        .as_array()
        .expect("a list")
        .iter()
        .find(|l| l["id"] == id)
        .expect("the link is listed")["sent"]
        .as_array()
        .expect("a sent list")
        .iter()
        .map(|s| {
            (
                s["channel"].as_str().expect("a channel").to_owned(),
                s["by"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_send_from_one_desk_is_on_every_desks_list_masked_in_the_shop() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let server = sandbox();
    let (first, _) = desk(&server, &url, "Counter 1");
    let (second, _) = desk(&server, &url, "Counter 2");
    let (link, _) = create(&first, &["--amount", "75.00"]);
    let sent = first.run(&[
        "--profile",
        PROFILE,
        "link",
        "send",
        &link,
        "--whatsapp",
        "--phone",
        "0532 123 45 67",
    ]);
    ok(&sent);
    assert!(
        sent.stdout.starts_with("https://wa.me/905321234567?text="),
        "{sent:?}"
    );
    settle(&first);
    // The other desk reads the send from the shop's copy of the first desk's audit; the desk
    // that made it has no staff, so the send is the desk's by name.
    let expected = vec![("whatsapp".to_owned(), "Counter 1".to_owned())];
    assert_eq!(sent_list(&second, &link), expected);
    assert_eq!(sent_list(&first, &link), expected);
    // The shop holds the number masked, never whole.
    let subjects = pg.admin_sql(
        &db,
        "SELECT string_agg(subject, '|') FROM audit WHERE action = 'link.send'",
    );
    assert_eq!(subjects, format!("{link} whatsapp 0532 *** ** 67"));
}

#[test]
fn every_desks_sends_are_counted_in_the_day_close_with_the_links_paid_after_sending() {
    let Some(pg) = pg::cluster() else { return };
    let (_, url) = shop_url(&pg);
    let server = sandbox();
    let (first, _) = desk(&server, &url, "Counter 1");
    let (second, _) = desk(&server, &url, "Counter 2");
    let whatsapp = |cli: &Cli, id: &str| {
        ok(&cli.run(&[
            "--profile",
            PROFILE,
            "link",
            "send",
            id,
            "--whatsapp",
            "--phone",
            "05321234567",
        ]));
    };
    let (own, _) = create(&first, &["--amount", "30.00"]);
    let (paid, _) = create(&first, &["--amount", "40.00"]);
    let (theirs, _) = create(&second, &["--amount", "50.00"]);
    let (_unsent, _) = create(&second, &["--amount", "60.00"]);
    whatsapp(&first, &own);
    // The second desk sends a link of the first desk's (after asking the server about it)
    // and one of its own.
    ok(&second.run(&["--profile", PROFILE, "link", "show", &paid, "--refresh"]));
    whatsapp(&second, &paid);
    whatsapp(&second, &theirs);
    server.admin().pay(&paid, None).expect("paid");
    ok(&first.run(&["--profile", PROFILE, "link", "show", &paid, "--refresh"]));
    settle(&first);
    settle(&second);
    let sent = |extra: &[&str]| {
        let mut args = vec!["--profile", PROFILE, "report", "--json"];
        args.extend_from_slice(extra);
        let out = first.run(&args);
        ok(&out);
        out.json()["sent"].clone()
    };
    assert_eq!(sent(&[]), serde_json::json!({"links": 3, "paidAfter": 1}));
    assert_eq!(
        sent(&["--this-desk"]),
        serde_json::json!({"links": 2, "paidAfter": 1}),
        "the first desk's links, whoever sent them"
    );
}

#[test]
fn a_link_is_renewed_once_across_the_shop_and_not_while_the_shop_is_silent() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let server = sandbox();
    let (first, _) = desk(&server, &url, "Counter 1");
    let (second, _) = desk(&server, &url, "Counter 2");
    let (link, _) = create(&first, &["--amount", "64.00", "--order-number", "DEL-9"]);
    ok(&first.run(&["--profile", PROFILE, "link", "cancel", &link]));
    // The second desk asks the server about it: the link is in its history too, expired.
    ok(&second.run(&["--profile", PROFILE, "link", "show", &link, "--refresh"]));
    // The first desk's claim is in the shop but its own record of it was lost (a crash, an
    // answer lost after the shop committed): renewing takes it up again under its number.
    pg.admin_sql(
        &db,
        &format!(
            "INSERT INTO renewals (account, original_id, original_order, order_id, desk_id)
             SELECT base_url || chr(31) || api_key_id || chr(31) || sandbox_desk, link_id,
                 'DEL-9', 'DEL-9-2', desk_id FROM links WHERE link_id = '{link}'"
        ),
    );
    let renewed = first.run(&["--profile", PROFILE, "link", "renew", &link, "--json"]);
    ok(&renewed);
    assert_eq!(renewed.json()["orderNumber"], "DEL-9-2");
    // The second desk is told the first one's renewal and asks the server for nothing.
    let twice = second.run(&["--profile", PROFILE, "link", "renew", &link]);
    assert_eq!(twice.code, 3, "{twice:?}");
    assert!(twice.stderr.contains("DEL-9-2"), "{twice:?}");
    let orders = server_orders(&server);
    assert_eq!(orders.len(), 2, "{:?}", orders.keys());
    assert_eq!(
        pg.admin_sql(&db, "SELECT string_agg(order_id, ',') FROM renewals"),
        "DEL-9-2"
    );
    // A joined desk whose shop is silent cannot know whether another desk renewed a link,
    // so it does not renew.
    let (other, _) = create(&second, &["--amount", "12.00", "--order-number", "DEL-10"]);
    ok(&second.run(&["--profile", PROFILE, "link", "cancel", &other]));
    let silent = second.run_with(
        &["--profile", PROFILE, "link", "renew", &other],
        None,
        &[("PAYDESK_SHOP_PASSWORD", "not-the-password")],
    );
    assert_eq!(silent.code, 3, "{silent:?}");
    assert!(
        silent.stderr.contains("renewed once across the shop"),
        "{silent:?}"
    );
    assert!(!server_orders(&server).contains_key("DEL-10-2"));
}

#[test]
fn a_link_both_desks_sent_by_email_is_reminded_once_across_the_shop() {
    use crate::support::smtp::{SinkMode, SmtpSink};
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let server = sandbox();
    let sink = SmtpSink::start(SinkMode::Accept);
    let (first, _) = desk(&server, &url, "Counter 1");
    let (second, _) = desk(&server, &url, "Counter 2");
    let port = sink.port.to_string();
    for cli in [&first, &second] {
        ok(&cli.run(&[
            "mail",
            "set",
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--from",
            "kasa@kuzey.example",
            "--security",
            "none",
        ]));
    }
    // Due 20 seconds after it is made: it expires 2 hours and 20 seconds from now (room for
    // both desks' sends on a loaded machine).
    let made = std::time::Instant::now();
    let (link, _) = create(
        &first,
        &[
            "--amount",
            "35.00",
            "--expires-in",
            "7220s",
            "--email",
            "ayse@example.com",
        ],
    );
    ok(&second.run(&["--profile", PROFILE, "link", "show", &link, "--refresh"]));
    for cli in [&first, &second] {
        ok(&cli.run(&["--profile", PROFILE, "link", "send", &link, "--email"]));
    }
    std::thread::sleep(std::time::Duration::from_secs(21).saturating_sub(made.elapsed()));
    for cli in [&first, &second, &first, &second] {
        ok(&cli.run(&["--profile", PROFILE, "mail", "flush"]));
    }
    let reminders = sink
        .received()
        .into_iter()
        .filter(|m| m.subject.starts_with("Hatırlatma: "))
        .count();
    assert_eq!(reminders, 1, "{}", sink.log());
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT count(*) FROM mail_claims WHERE kind = 'reminder'"
        ),
        "1"
    );
}

#[test]
fn two_desks_each_list_both_desks_links() {
    every_desk_sees_every_desks_links(2);
}

#[test]
fn three_desks_each_list_the_three_desks_links() {
    every_desk_sees_every_desks_links(3);
}

#[test]
fn a_desk_that_joins_mid_day_keeps_its_morning_in_history_and_the_day_close() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let server = sandbox();
    // The morning, alone: three links, one paid.
    let mut cli = Cli::new();
    cli.env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/paydesk-bus",
    )
    .env("TZ", "Europe/Istanbul")
    .env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    cli.add_profile(PROFILE, &server);
    let mut morning = BTreeSet::new();
    for amount in ["190.00", "45.50", "24.50"] {
        let (id, _) = create(&cli, &["--amount", amount]);
        morning.insert(id);
    }
    let paid = morning.iter().next().expect("a link").clone();
    server.admin().pay(&paid, None).expect("paid");
    ok(&cli.run(&["--profile", PROFILE, "link", "show", &paid, "--refresh"]));
    let alone = report(&cli, &[], &[]);
    let before = figures(&alone.json());
    assert_eq!(before.0, 3);

    // Joined at noon: nothing of the morning disappears, on this desk or shop-wide.
    ok(&cli.run(&["shop", "join", &url]));
    settle(&cli);
    assert_eq!(
        pg.admin_sql(&db, "SELECT count(DISTINCT link_id) FROM links"),
        "3",
        "the morning's links are in the shop"
    );
    let shop_wide: BTreeSet<String> = listed(&cli, &[]).into_keys().collect();
    assert_eq!(shop_wide, morning, "History lists the morning");
    let this_desk: BTreeSet<String> = listed(&cli, &["--this-desk"]).into_keys().collect();
    assert_eq!(this_desk, morning, "--this-desk too");
    assert_eq!(
        figures(&report(&cli, &[], &[]).json()),
        before,
        "the day close"
    );
    assert_eq!(
        figures(&report(&cli, &["--this-desk"], &[]).json()),
        before,
        "the day close of this desk"
    );
    // An afternoon link joins them; joining again sends nothing twice.
    create(&cli, &["--amount", "70.00"]);
    ok(&cli.run(&["shop", "join", &url]));
    settle(&cli);
    assert_eq!(
        pg.admin_sql(&db, "SELECT count(DISTINCT link_id) FROM links"),
        "4"
    );
    assert_eq!(figures(&report(&cli, &[], &[]).json()).0, 4);
}

/// A report's amount as an exact decimal (JSON numbers are kept as written).
fn money(v: &Value) -> Decimal {
    Decimal::from_str_exact(&v.to_string()).unwrap_or_else(|e| panic!("{v}: {e}"))
}

/// What the day close says per currency, as figures that add up over desks: links created,
/// paid (count, sum), partly paid (count, sum), pending, expired, cancelled, collected,
/// issued (outstanding is read on its own: [`outstanding`]).
type Figures = BTreeMap<String, [Decimal; 10]>;

fn figures(report: &Value) -> (u64, Figures) {
    let mut out = Figures::new();
    for c in report["currencies"].as_array().expect("a list") {
        let count = |v: &Value| Decimal::from(v.as_u64().expect("a count"));
        out.insert(
            c["currency"].as_str().expect("a currency").to_owned(),
            [
                count(&c["created"]),
                count(&c["paid"]["count"]),
                money(&c["paid"]["sum"]),
                count(&c["partiallyPaid"]["count"]),
                money(&c["partiallyPaid"]["sum"]),
                count(&c["pending"]),
                count(&c["expired"]),
                count(&c["cancelled"]),
                money(&c["collected"]),
                money(&c["issued"]),
            ],
        );
    }
    (report["links"].as_u64().expect("a count"), out)
}

fn outstanding(report: &Value) -> BTreeMap<String, Decimal> {
    report["currencies"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| {
            (
                c["currency"].as_str().expect("a currency").to_owned(),
                money(&c["outstanding"]),
            )
        })
        .collect()
}

/// The desks' figures added up.
fn sum(parts: &[(u64, Figures)]) -> (u64, Figures) {
    let mut total = Figures::new();
    for (_, f) in parts {
        for (currency, values) in f {
            let t = total.entry(currency.clone()).or_insert([Decimal::ZERO; 10]);
            for (a, b) in t.iter_mut().zip(values) {
                *a += *b;
            }
        }
    }
    (parts.iter().map(|(n, _)| n).sum(), total)
}

fn sum_outstanding(parts: &[BTreeMap<String, Decimal>]) -> BTreeMap<String, Decimal> {
    let mut total = BTreeMap::new();
    for p in parts {
        for (c, v) in p {
            *total.entry(c.clone()).or_insert(Decimal::ZERO) += *v;
        }
    }
    total
}

/// Today and yesterday in Istanbul (UTC+3 all year): the report's range, so a test that runs
/// across midnight still covers every link it made.
fn report_days() -> (String, String) {
    let today = (Utc::now() + chrono::Duration::hours(3)).date_naive();
    (
        (today - chrono::Duration::days(1)).to_string(),
        today.to_string(),
    )
}

/// `report --json` over the two days, with `extra` arguments and environment.
fn report(cli: &Cli, extra: &[&str], env: &[(&str, &str)]) -> Out {
    let (from, to) = report_days();
    let mut args = vec![
        "--profile",
        PROFILE,
        "report",
        "--from",
        &from,
        "--to",
        &to,
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = cli.run_with(&args, None, env);
    ok(&out);
    out
}

// A day of a shop told in order: the morning, the outage, the restart, the close.
#[allow(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
#[test]
fn after_the_shop_stops_mid_day_every_link_arrives_once_and_the_day_close_adds_up() {
    let Some(pg) = pg::alone() else { return };
    let (db, url) = shop_url(&pg);
    let server = sandbox();
    let (one, one_id) = desk(&server, &url, "Counter 1");
    let (two, two_id) = desk(&server, &url, "Counter 2");
    let desks = [(&one, &one_id), (&two, &two_id)];
    let mut made: Vec<String> = Vec::new();
    let mut mine: BTreeMap<String, String> = BTreeMap::new();
    // The morning, with the shop up: each desk sells, in TRY and USD, partial payments allowed
    // on some.
    let mut morning: Vec<(usize, String)> = Vec::new();
    for (i, (cli, id)) in desks.iter().enumerate() {
        for args in [
            &["--amount", "150"][..],
            &["--amount", "80", "--partial", "--item", "Çay:20x4"],
            &["--amount", "25", "--currency", "USD"],
            &["--amount", "40"],
        ] {
            let (link, _) = create(cli, args);
            mine.insert(link.clone(), (*id).clone());
            made.push(link.clone());
            morning.push((i, link));
        }
    }
    // Customers pay on the sandbox: in full, in part, in dollars; each desk refreshes its own.
    let pay = |(desk, link): &(usize, String), amount: Option<Decimal>| {
        server.admin().pay(link, amount).expect("paid");
        ok(&desks[*desk]
            .0
            .run(&["--profile", PROFILE, "link", "show", link, "--refresh"]));
    };
    pay(&morning[0], None);
    pay(&morning[1], Some(Decimal::new(3000, 2)));
    pay(&morning[2], None);
    pay(&morning[5], Some(Decimal::new(2000, 2)));
    pay(&morning[6], None);
    ok(&one.run(&["--profile", PROFILE, "link", "cancel", &morning[3].1]));
    for (cli, _) in &desks {
        settle(cli);
    }
    assert_eq!(
        pg.admin_sql(&db, "SELECT count(*) FROM links WHERE paid_amount > 0"),
        "5"
    );

    // The shop's PostgreSQL stops dead; both desks keep selling, refreshing and cancelling.
    pg.stop_immediate();
    let mut afternoon: Vec<(usize, String)> = Vec::new();
    for round in 0..3 {
        for (i, (cli, id)) in desks.iter().enumerate() {
            let amount = format!("{}", 60 + 10 * round + i);
            let args: Vec<&str> = if round == 1 {
                vec!["--amount", &amount, "--currency", "USD"]
            } else {
                vec!["--amount", &amount, "--partial"]
            };
            let (link, out) = create(cli, &args);
            assert!(out.stderr.contains(WAITS), "{out:?}");
            mine.insert(link.clone(), (*id).clone());
            made.push(link.clone());
            afternoon.push((i, link));
        }
    }
    let offline_pay = |(desk, link): &(usize, String), amount: Option<Decimal>| {
        server.admin().pay(link, amount).expect("paid");
        let out = desks[*desk]
            .0
            .run(&["--profile", PROFILE, "link", "show", link, "--refresh"]);
        ok(&out);
        assert!(out.stderr.contains(WAITS), "{out:?}");
    };
    offline_pay(&afternoon[0], None);
    offline_pay(&afternoon[1], Some(Decimal::new(1500, 2)));
    offline_pay(&afternoon[2], None);
    // A morning link paid in the afternoon: the newer observation must win in the shop.
    offline_pay(&morning[4], None);
    let cancelled = two.run(&["--profile", PROFILE, "link", "cancel", &afternoon[5].1]);
    ok(&cancelled);
    assert!(cancelled.stderr.contains(WAITS), "{cancelled:?}");
    for (cli, _) in &desks {
        let status = cli.run(&["shop", "status", "--json"]).json();
        assert_eq!(status["connected"], false, "{status}");
        assert!(status["outbox"].as_u64().expect("a count") > 0, "{status}");
    }

    pg.start();
    for (cli, _) in &desks {
        settle(cli);
    }

    // Every link is in the shop exactly once, under the desk that made it.
    assert_eq!(made.len(), 14);
    let rows = pg.admin_sql(&db, "SELECT link_id || ' ' || desk_id FROM links");
    let in_shop: Vec<(String, String)> = rows
        .lines()
        .map(|l| {
            let (link, desk) = l.split_once(' ').expect("two columns");
            (link.to_owned(), desk.to_owned())
        })
        .collect();
    assert_eq!(in_shop.len(), made.len(), "{rows}");
    let expected: BTreeMap<String, String> = mine.clone();
    let got: BTreeMap<String, String> = in_shop.into_iter().collect();
    assert_eq!(got, expected, "each link once, with its desk");
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!(
                "SELECT status || ' ' || paid_amount FROM links WHERE link_id = '{}'",
                morning[4].1
            )
        ),
        "COMPLETED 150.00",
        "the payment seen offline reached the shop"
    );

    // The shop's day close is the sum of the desks' own, read three ways.
    let shop = report(&one, &[], &[]).json();
    assert_eq!(
        report(&two, &[], &[]).json()["currencies"],
        shop["currencies"],
        "both desks close the same shop day"
    );
    let mut this_desk = Vec::new();
    let mut local = Vec::new();
    let mut this_desk_out = Vec::new();
    let mut local_out = Vec::new();
    for (cli, id) in &desks {
        let own = report(cli, &["--this-desk"], &[]);
        assert!(!own.stderr.contains(OFFLINE), "{own:?}");
        let own = own.json();
        let by_desk = shop["byDesk"]
            .as_array()
            .expect("byDesk")
            .iter()
            .find(|d| d["deskId"] == id.as_str())
            .expect("the desk in byDesk");
        let created: u64 = by_desk["currencies"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|c| c["created"].as_u64().expect("a count"))
            .sum();
        assert_eq!(created, own["links"].as_u64().expect("a count"));
        this_desk.push(figures(&own));
        this_desk_out.push(outstanding(&own));
        // The desk's own history, as it shows when the shop refuses it.
        let alone = report(cli, &[], &[("PAYDESK_SHOP_PASSWORD", "not the password")]);
        assert!(
            alone.stderr.contains(&format!(
                "{OFFLINE}: PostgreSQL refused the password for the user desk."
            )),
            "{alone:?}"
        );
        let alone = alone.json();
        assert!(alone.get("byDesk").is_none(), "one desk's own report");
        local.push(figures(&alone));
        local_out.push(outstanding(&alone));
    }
    let whole = figures(&shop);
    assert_eq!(whole.0, 14);
    assert_eq!(sum(&this_desk), whole, "the shop = the sum of --this-desk");
    assert_eq!(sum(&local), whole, "the shop = the sum of the desks' own");
    assert_eq!(sum_outstanding(&this_desk_out), outstanding(&shop));
    assert_eq!(sum_outstanding(&local_out), outstanding(&shop));
    let try_ = &whole.1["TRY"];
    assert_eq!(try_[1], Decimal::from(3), "paid in full in TRY: {whole:?}");
    assert_eq!(try_[7], Decimal::from(2), "cancelled in TRY: {whole:?}");
}

/// The ids `L00000`, `L00001`, …
fn link_id(i: usize) -> String {
    format!("L{i:05}")
}

/// Polls `probe` until it gives `Some`, for at most `limit`.
fn wait_for<T>(what: &str, limit: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

// The seeding, the gate, the kill and the resume, in order.
#[allow(clippy::too_many_lines, reason = "one scenario, read top to bottom")]
#[test]
fn a_desk_killed_in_the_middle_of_a_push_resumes_and_every_link_arrives_once() {
    const LINKS: usize = 1_400;
    /// Links from this one on wait for the gate inside the push's transaction.
    const GATED_FROM: usize = 2 * paydesk::shop::push::BATCH;
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let server = sandbox();
    let (cli, _) = desk(&server, &url, "Counter 1");
    // A large outbox: links stored through the desk's own store while joined, as a long
    // outage leaves it.
    {
        let mut store = Store::open(cli.data_dir()).expect("the store opens");
        let now = Utc::now();
        for i in 0..LINKS {
            store
                .upsert_link(
                    SANDBOX_PROFILE,
                    &crate::support::links::pending_link(&link_id(i), None),
                    now,
                )
                .expect("stored");
        }
        // A later observation of the first link: paid in full.
        let mut paid = crate::support::links::pending_link(&link_id(0), None);
        paid.status = Some(paydesk::domain::LinkStatus::Completed);
        paid.paid_amount = paid.amount;
        store
            .upsert_link(SANDBOX_PROFILE, &paid, now)
            .expect("stored");
        assert_eq!(store.outbox().count().expect("counted"), LINKS as u64 + 1);
    }
    // A gate in the shop: writing a link from GATED_FROM on takes a shared advisory lock that
    // a session of ours holds, so the third batch stops in the middle of its transaction.
    pg.admin_sql(
        &db,
        &format!(
            "CREATE FUNCTION test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 IF NEW.link_id >= '{}' THEN PERFORM pg_advisory_xact_lock_shared(4242); END IF;
                 RETURN NEW;
             END $$;
             CREATE TRIGGER test_gate BEFORE INSERT ON links
                 FOR EACH ROW EXECUTE FUNCTION test_gate();",
            link_id(GATED_FROM)
        ),
    );
    let mut holder = Command::new(pg::bin_dir().join("psql"))
        .args(["-X", "-q", "-h"])
        .arg(pg.socket_dir())
        .args(["-p", &pg.port().to_string(), "-U", "postgres", "-d", &db])
        .env("PGAPPNAME", "test_gate_holder")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("psql starts");
    let mut holder_in = holder.stdin.take().expect("stdin");
    writeln!(holder_in, "SELECT pg_advisory_lock(4242);\n\\echo held").expect("psql reads");
    let mut line = String::new();
    let mut holder_out = BufReader::new(holder.stdout.take().expect("stdout"));
    while !line.contains("held") {
        line.clear();
        assert_ne!(
            holder_out.read_line(&mut line).expect("psql writes"),
            0,
            "psql ended"
        );
    }

    let mut sync = cli
        .command(&["shop", "sync"])
        .spawn()
        .expect("paydesk starts");
    let count = || -> usize {
        pg.admin_sql(&db, "SELECT count(*) FROM links")
            .parse()
            .expect("a count")
    };
    // Two batches committed, the third waiting at the gate: the push is in the middle.
    wait_for("the push to reach the gate", Duration::from_mins(1), || {
        let waiting = pg.admin_sql(
            &db,
            "SELECT count(*) FROM pg_stat_activity
             WHERE application_name = 'paydesk' AND wait_event_type = 'Lock'",
        );
        (waiting == "1").then_some(())
    });
    assert_eq!(count(), GATED_FROM, "two batches in the shop, not all");
    sync.kill().expect("kill -9");
    let status = sync.wait().expect("reaped");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "{status:?}"
    );
    // What the shop committed left the outbox; the rest waits there.
    let left = cli.run(&["shop", "status", "--json"]).json()["outbox"].clone();
    assert_eq!(left, LINKS + 1 - GATED_FROM);

    // The gate opens: the killed desk's transaction is rolled back when its server session
    // finds the client gone.
    drop(holder_in);
    holder.wait().expect("psql ends");
    wait_for(
        "the killed desk's session to end",
        Duration::from_secs(30),
        || {
            let sessions = pg.admin_sql(
                &db,
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'paydesk'",
            );
            (sessions == "0").then_some(())
        },
    );
    assert_eq!(count(), GATED_FROM, "the cut batch left nothing behind");
    pg.admin_sql(&db, "DROP TRIGGER test_gate ON links");

    let resumed = cli.run(&["shop", "sync"]);
    ok(&resumed);
    assert!(
        resumed.stdout.contains(&format!(
            "Pushed {} changes in 1 batch",
            LINKS + 1 - GATED_FROM
        )),
        "{resumed:?}"
    );
    assert_eq!(cli.run(&["shop", "status", "--json"]).json()["outbox"], 0);
    let ids = pg.admin_sql(
        &db,
        "SELECT count(*) || ' ' || count(DISTINCT link_id) || ' ' || min(link_id) || ' '
             || max(link_id) FROM links",
    );
    assert_eq!(
        ids,
        format!("{LINKS} {LINKS} {} {}", link_id(0), link_id(LINKS - 1))
    );
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!(
                "SELECT status || ' ' || paid_amount FROM links WHERE link_id = '{}'",
                link_id(0)
            )
        ),
        "COMPLETED 1234.50"
    );
    // The kept day-close totals saw each link once too: the cut batch's tallies rolled back.
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT sum(paid_links + part_links + cancelled + expired + other + pending + forever)
             FROM report_sums WHERE span = 3"
        ),
        LINKS.to_string()
    );
}

/// `shop status` says `reason` and ends with `exit` (4 refused, 5 no answer), and the desk
/// works on alone: `link list` shows its own links (`own`), saying so, and a new link is saved
/// and waits for the shop (added to `own`).
fn works_on_alone(
    cli: &Cli,
    env: &[(&str, &str)],
    (reason, exit): (&str, i32),
    own: &mut BTreeSet<String>,
) {
    let status = cli.run_with(&["shop", "status"], None, env);
    assert_eq!(status.code, exit, "{status:?}");
    assert!(
        status.stdout.contains(&format!("not connected: {reason}")),
        "{status:?}"
    );
    let json = cli
        .run_with(&["shop", "status", "--json"], None, env)
        .json();
    assert_eq!(json["connected"], false, "{json}");
    assert!(
        json["reason"]
            .as_str()
            .expect("a reason")
            .starts_with(reason),
        "{json}"
    );
    let list = cli.run_with(&["--profile", PROFILE, "link", "list", "--json"], None, env);
    ok(&list);
    assert!(
        list.stderr.contains(&format!("{OFFLINE}: {reason}")),
        "{list:?}"
    );
    let ids: BTreeSet<String> = list
        .json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|l| l["id"].as_str().expect("an id").to_owned())
        .collect();
    assert_eq!(&ids, own, "the desk's own history");
    let before = cli.run(&["shop", "status", "--json"]).json()["outbox"]
        .as_u64()
        .expect("a count");
    let created = cli.run_with(
        &[
            "--profile",
            PROFILE,
            "link",
            "create",
            "--amount",
            "12",
            "--json",
        ],
        None,
        env,
    );
    ok(&created);
    assert!(created.stderr.contains(WAITS), "{created:?}");
    assert!(created.stderr.contains(reason), "{created:?}");
    own.insert(created.json()["id"].as_str().expect("an id").to_owned());
    assert_eq!(
        cli.run(&["shop", "status", "--json"]).json()["outbox"],
        before + 1,
        "the new link waits in the outbox"
    );
}

#[test]
fn a_wrong_password_and_an_unreachable_host_each_get_a_sentence_and_the_desk_works_on() {
    let Some(pg) = pg::cluster() else { return };
    let (_, url) = shop_url(&pg);
    let server = sandbox();
    let (cli, _) = desk(&server, &url, "Counter 1");
    let mut own: BTreeSet<String> = [create(&cli, &["--amount", "30"]).0].into();
    works_on_alone(
        &cli,
        &[("PAYDESK_SHOP_PASSWORD", "not the password")],
        ("PostgreSQL refused the password for the user desk.", 4),
        &mut own,
    );

    // The shop's server moved away: nobody answers at the port the desk knows.
    let closed = crate::support::ports::free_port();
    let gone = format!("postgres://desk@127.0.0.1:{closed}/shop?sslmode=require");
    Store::open(cli.data_dir())
        .expect("the store opens")
        .join_shop(&gone, Utc::now())
        .expect("the URL is recorded");
    works_on_alone(
        &cli,
        &[],
        (
            &format!("The shop's PostgreSQL at 127.0.0.1:{closed} cannot be reached"),
            5,
        ),
        &mut own,
    );
}
