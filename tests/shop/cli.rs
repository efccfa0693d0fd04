//! `paydesk shop …` end to end: the real binary, a temporary data folder, and the private
//! PostgreSQL cluster of `tests/support/pg.rs` (skipped with a sentence naming the package when
//! PostgreSQL is not installed; a failure under `PAYDESK_REQUIRE_POSTGRES=1`).

use crate::support::cli::{Cli, Out, contains_bytes, files_under};
use crate::support::money::{dec, money};
use crate::support::pg::{self, PASSWORD, PLAIN_ROLE, Pg};
use paydesk::sandbox::SandboxHandle;

/// A data folder whose runs see no keyring (a bus address that leads nowhere).
pub(super) fn desk() -> Cli {
    let mut cli = Cli::new();
    cli.env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/paydesk-bus",
    );
    cli
}

/// The shop URL of a fresh database, over TLS checked in full.
fn shop_url(pg: &Pg) -> (String, String) {
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    (db, url)
}

pub(super) fn ok(out: &Out) {
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn a_desk_joins_shows_its_status_is_renamed_and_leaves() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut cli = desk();
    let before = cli.run(&["shop", "status"]);
    ok(&before);
    assert!(
        before.stdout.contains("This desk has not joined a shop"),
        "{before:?}"
    );
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    let joined = cli.run(&["shop", "join", &url]);
    ok(&joined);
    assert!(
        joined
            .stdout
            .contains("joined the shop postgres://desk@localhost:"),
        "{joined:?}"
    );
    let v = paydesk::shop::schema::latest_version();
    assert!(
        joined.stdout.contains(&format!("(schema version {v})")),
        "{joined:?}"
    );
    assert!(
        joined
            .stdout
            .contains("The password came from PAYDESK_SHOP_PASSWORD and was not stored"),
        "{joined:?}"
    );
    let status = cli.run(&["shop", "status", "--json"]);
    ok(&status);
    let s = status.json();
    assert_eq!(s["joined"], true, "{s}");
    assert_eq!(s["connected"], true, "{s}");
    assert_eq!(s["schemaVersion"], v, "{s}");
    assert_eq!(s["outbox"], 0, "{s}");
    assert!(s["lastPush"].is_null(), "{s}");
    assert_eq!(s["plainOffMachine"], false, "{s}");
    assert_eq!(s["weaknesses"], serde_json::json!([]), "{s}");
    let desk_id = s["deskId"].as_str().expect("a desk id").to_owned();
    let host_name = s["deskName"].as_str().expect("a name").to_owned();
    assert!(!host_name.is_empty());
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!("SELECT name FROM desks WHERE desk_id = '{desk_id}'")
        ),
        host_name,
        "the desk is registered under its host name"
    );
    let text = cli.run(&["shop", "status"]);
    ok(&text);
    for line in [
        &*format!("connected (schema version {v})"),
        &*format!("desk: {desk_id} {host_name}"),
        "outbox: 0 changes",
        "last push: never",
    ] {
        assert!(text.stdout.contains(line), "{line}: {text:?}");
    }

    ok(&cli.run(&["shop", "name", "Counter 2"]));
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!("SELECT name FROM desks WHERE desk_id = '{desk_id}'")
        ),
        "Counter 2"
    );
    assert_eq!(
        cli.run(&["shop", "status", "--json"]).json()["deskName"],
        "Counter 2"
    );
    let bad_name = cli.run(&["shop", "name", "   "]);
    assert_eq!(bad_name.code, 3, "{bad_name:?}");

    // The password is in no file of the data folder.
    for file in files_under(cli.data_dir()) {
        let bytes = std::fs::read(&file).expect("readable");
        assert!(
            !contains_bytes(&bytes, PASSWORD.as_bytes()),
            "{} holds the password",
            file.display()
        );
    }

    let left = cli.run(&["shop", "leave"]);
    ok(&left);
    assert!(left.stdout.contains("This desk left the shop"), "{left:?}");
    let after = cli.run(&["shop", "status", "--json"]).json();
    assert_eq!(after["joined"], false, "{after}");
    assert_eq!(
        after["deskName"], "Counter 2",
        "the name stays with the desk"
    );
}

#[test]
fn a_url_holding_a_password_exits_3_and_nothing_is_recorded() {
    let Some(pg) = pg::cluster() else { return };
    let (db, _) = shop_url(&pg);
    let cli = desk();
    let url = format!(
        "postgres://desk:hunter2@localhost:{}/{db}?sslmode=require",
        pg.port()
    );
    let out = cli.run_with(&["shop", "join", &url], Some("x\n"), &[]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr
            .contains("The shop URL holds a password (user:password@); leave it out"),
        "{out:?}"
    );
    assert!(!out.all().contains("hunter2"), "{out:?}");
    assert_eq!(
        cli.run(&["shop", "status", "--json"]).json()["joined"],
        false
    );
    assert_eq!(
        pg.admin_sql(&db, "SELECT count(*) FROM desks"),
        "0",
        "nothing reached the shop"
    );
}

#[test]
fn a_wrong_password_exits_4_and_an_unreachable_shop_5_each_with_its_sentence() {
    let Some(pg) = pg::cluster() else { return };
    let (_, url) = shop_url(&pg);
    let cli = desk();
    let wrong = cli.run_with(
        &["shop", "join", &url],
        None,
        &[("PAYDESK_SHOP_PASSWORD", "not the password")],
    );
    assert_eq!(wrong.code, 4, "{wrong:?}");
    assert!(
        wrong
            .stderr
            .contains("PostgreSQL refused the password for the user desk."),
        "{wrong:?}"
    );
    let closed = crate::support::ports::free_port();
    let nowhere = format!("postgres://desk@127.0.0.1:{closed}/shop?sslmode=require");
    let unreachable = cli.run_with(
        &["shop", "join", &nowhere],
        None,
        &[("PAYDESK_SHOP_PASSWORD", PASSWORD)],
    );
    assert_eq!(unreachable.code, 5, "{unreachable:?}");
    assert!(
        unreachable.stderr.contains(&format!(
            "The shop's PostgreSQL at 127.0.0.1:{closed} cannot be reached"
        )),
        "{unreachable:?}"
    );
    assert_eq!(
        cli.run(&["shop", "status", "--json"]).json()["joined"],
        false
    );
}

#[test]
fn a_typed_password_without_a_keyring_is_not_kept_and_join_says_to_use_the_environment() {
    let Some(pg) = pg::cluster() else { return };
    let (_, url) = shop_url(&pg);
    let cli = desk();
    let out = cli.run_with(&["shop", "join", &url], Some(&format!("{PASSWORD}\n")), &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("No keyring can keep the shop's password"),
        "{out:?}"
    );
    assert!(out.stderr.contains("PAYDESK_SHOP_PASSWORD"), "{out:?}");
    assert!(
        !out.all().contains(PASSWORD),
        "the password is never echoed"
    );
    assert_eq!(
        cli.run(&["shop", "status", "--json"]).json()["joined"],
        false
    );
}

#[test]
fn a_shop_that_asks_for_the_password_in_plain_text_is_not_joined_unless_the_url_says_so() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    pg.admin_sql("postgres", &format!("GRANT \"{db}_desks\" TO {PLAIN_ROLE}"));
    let url = pg.url_as(
        PLAIN_ROLE,
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    let mut cli = desk();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    let refused = cli.run(&["shop", "join", &url]);
    assert_eq!(refused.code, 4, "{refused:?}");
    assert!(
        refused
            .stderr
            .contains("did not ask for the password by SCRAM bound to the TLS channel"),
        "{refused:?}"
    );
    assert_eq!(
        cli.run(&["shop", "status", "--json"]).json()["joined"],
        false
    );
    assert_eq!(pg.admin_sql(&db, "SELECT count(*) FROM desks"), "0");

    // The owner who accepts the risk says so in the URL; every status then says it too.
    let loose = format!("{url}&channel_binding=prefer");
    let joined = cli.run(&["shop", "join", &loose]);
    ok(&joined);
    assert!(
        joined
            .stdout
            .contains("Warning: channel binding is not required"),
        "{joined:?}"
    );
    let status = cli.run(&["shop", "status", "--json"]);
    ok(&status);
    let s = status.json();
    assert_eq!(s["connected"], true, "{s}");
    assert_eq!(
        s["weaknesses"],
        serde_json::json!(["noChannelBinding"]),
        "{s}"
    );
    assert!(
        s["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("&channel_binding=prefer")),
        "{s}"
    );
    let text = cli.run(&["shop", "status"]);
    ok(&text);
    assert!(
        text.stdout
            .contains("Warning: channel binding is not required"),
        "{text:?}"
    );
}

#[test]
fn with_the_shop_down_status_says_why_and_the_desk_still_answers() {
    let Some(pg) = pg::alone() else { return };
    let (_, url) = shop_url(&pg);
    let mut cli = desk();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    ok(&cli.run(&["shop", "join", &url]));
    pg.stop_immediate();
    let down = cli.run(&["shop", "status"]);
    let down_json = cli.run(&["shop", "status", "--json"]);
    pg.start();
    // Everything it knows is said, then it ends as every shop command does when the shop
    // does not answer.
    assert_eq!(down.code, 5, "{down:?}");
    assert_eq!(down_json.code, 5, "{down_json:?}");
    assert_eq!(down_json.json()["connected"], false, "{down_json:?}");
    assert_eq!(down_json.json()["outbox"], 0, "{down_json:?}");
    assert!(
        down.stdout.contains(&format!(
            "not connected: The shop's PostgreSQL at localhost:{} cannot be reached",
            pg.port()
        )),
        "{down:?}"
    );
    // The desk works on alone: a local command runs as before.
    ok(&cli.run(&["catalog", "list"]));
    assert_eq!(
        cli.run(&["shop", "status", "--json"]).json()["connected"],
        true
    );
}

#[test]
fn a_link_made_while_joined_reaches_the_shop_before_the_command_exits() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut cli = desk();
    // A link from before joining: joining brings it along (tests/shop/desks.rs has the day).
    let before = cli.link_create("sandbox", &["--amount", "10", "--json"]);
    ok(&before);
    let before_id = before.json()["id"].as_str().expect("an id").to_owned();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    ok(&cli.run(&["shop", "join", &url]));
    let created = cli.link_create(
        "sandbox",
        &["--amount", "150", "--item", "Filter coffee:75x2", "--json"],
    );
    ok(&created);
    let link_id = created.json()["id"].as_str().expect("an id").to_owned();
    // The create pushed its own change: nothing waits, the shop has it.
    let status = cli.run(&["shop", "status", "--json"]);
    ok(&status);
    let status = status.json();
    assert_eq!(status["outbox"], 0, "{status}");
    assert!(status["lastPush"].is_string(), "{status}");
    let desk_id = status["deskId"].as_str().expect("a desk id").to_owned();
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT link_id || ' ' || status || ' ' || amount || ' ' || desk_id || ' ' || sandbox_desk FROM links ORDER BY amount"
        ),
        format!("{before_id} PENDING 10.00 {desk_id} {desk_id}\n{link_id} PENDING 150.00 {desk_id} {desk_id}")
    );
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT name || ' ' || quantity || ' ' || unit_price FROM link_items"
        ),
        "Filter coffee 2 75.00"
    );

    ok(&cli.run(&["link", "cancel", &link_id]));
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!("SELECT status || ' ' || (cancelled_at IS NOT NULL) FROM links WHERE link_id = '{link_id}'")
        ),
        "EXPIRED true"
    );
    // The first sync reads back the two links (the one from before joining, and the one made
    // and cancelled since); the next finds nothing new.
    let synced = cli.run(&["shop", "sync"]);
    ok(&synced);
    assert!(
        synced
            .stdout
            .contains("Pushed 0 changes in 0 batches; 0 links changed in the shop."),
        "{synced:?}"
    );
    assert!(
        synced
            .stdout
            .contains("Since the last sync 2 links changed in the shop: 0 at other desks, 0 paid."),
        "{synced:?}"
    );
    let again = cli.run(&["shop", "sync"]);
    ok(&again);
    assert!(
        again
            .stdout
            .contains("Since the last sync 0 links changed in the shop"),
        "{again:?}"
    );
}

#[test]
fn sync_with_the_shop_down_exits_5_and_keeps_the_outbox() {
    let Some(pg) = pg::alone() else { return };
    let (db, url) = shop_url(&pg);
    let mut cli = desk();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    ok(&cli.run(&["shop", "join", &url]));
    pg.stop_immediate();
    // The desk sells on while the shop is down, and says the change waits.
    let created = cli.link_create("sandbox", &["--amount", "20"]);
    let down = cli.run(&["shop", "sync"]);
    pg.start();
    ok(&created);
    assert!(
        created.stderr.contains(
            "The change is saved on this desk and waits to be sent to the shop (1 change)"
        ),
        "{created:?}"
    );
    assert_eq!(down.code, 5, "{down:?}");
    assert!(down.stderr.contains("cannot be reached"), "{down:?}");
    assert_eq!(cli.run(&["shop", "status", "--json"]).json()["outbox"], 1);
    ok(&cli.run(&["shop", "sync"]));
    assert_eq!(pg.admin_sql(&db, "SELECT count(*) FROM links"), "1");
}

#[test]
fn a_catalog_imported_at_one_desk_reaches_another_with_shop_sync() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut office = desk();
    let mut counter = desk();
    for d in [&mut office, &mut counter] {
        d.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
        ok(&d.run(&["shop", "join", &url]));
    }
    let csv = office.data_dir().join("catalog.csv");
    std::fs::write(
        &csv,
        "id,name,unit_price,currency\nvar_cay,Çay,15.00,TRY\nvar_simit,Simit,25.00,TRY\n",
    )
    .expect("the CSV is written");
    let csv = csv.to_str().expect("a UTF-8 path");
    // The shop's catalog is changed with a manager's authority only, and the shop has none yet.
    let nobody = office.run(&["catalog", "import", csv]);
    assert_eq!(nobody.code, 3, "{nobody:?}");
    assert!(
        nobody
            .stderr
            .contains("The shop's first manager is added by the shop's owner"),
        "{nobody:?}"
    );
    ok(&super::owner::add_manager(&pg, &db, "Zeynep", "9999"));
    // The import is made in the shop before the command ends; nothing waits.
    ok(&signed(
        &office,
        &["catalog", "import", csv],
        ("Zeynep", "9999"),
    ));
    assert_eq!(
        office.run(&["shop", "status", "--json"]).json()["outbox"],
        0
    );
    let synced = counter.run(&["shop", "sync"]);
    ok(&synced);
    assert!(
        synced
            .stdout
            .contains("The shop's catalog is now on this desk: 2 items."),
        "{synced:?}"
    );
    let list = signed(&counter, &["catalog", "list", "--json"], ("Zeynep", "9999"));
    ok(&list);
    let names: Vec<String> = list
        .json()
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v["name"].as_str().expect("a name").to_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&"Çay".to_owned()), "{names:?}");
    // A second sync finds nothing new to mirror.
    let again = counter.run(&["shop", "sync"]);
    ok(&again);
    assert!(!again.stdout.contains("catalog is now"), "{again:?}");
}

#[test]
fn audit_verify_on_a_joined_desk_walks_every_desks_chain_in_the_shop() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut one = desk();
    let mut two = desk();
    for (d, name) in [(&mut one, "Counter 1"), (&mut two, "Counter 2")] {
        d.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
        ok(&d.run(&["shop", "join", &url]));
        ok(&d.run(&["shop", "name", name]));
        ok(&d.link_create("sandbox", &["--amount", "30"]));
        ok(&d.run(&["shop", "sync"]));
    }
    let verified = one.run(&["audit", "verify"]);
    ok(&verified);
    for name in ["Counter 1", "Counter 2"] {
        assert!(
            verified.stdout.contains(&format!(
                "Desk {name}: the audit chain in the shop is whole"
            )),
            "{verified:?}"
        );
    }
    // The shop's own chain across both desks, and its head in the day close's JSON.
    let head = pg.admin_sql(
        &db,
        "SELECT shop_hash FROM audit ORDER BY shop_seq DESC LIMIT 1",
    );
    assert!(
        verified.stdout.contains(&format!(
            "The shop's own chain (every desk, in the order the shop took them) is whole: \
             {} rows, head {head}",
            pg.admin_sql(&db, "SELECT count(*) FROM audit")
        )),
        "{verified:?}"
    );
    let report = one.run(&["report", "--json"]);
    ok(&report);
    assert_eq!(report.json()["shopAuditHead"], head.as_str(), "{report:?}");
    // A row edited in the shop behind the trigger's back breaks that desk's chain only.
    let two_id = two.run(&["shop", "status", "--json"]).json()["deskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    let tables = pg.admin_sql(
        &db,
        "SELECT string_agg(tgname, ',') FROM pg_trigger WHERE tgrelid = 'audit'::regclass AND NOT tgisinternal",
    );
    for t in tables.split(',').filter(|t| !t.is_empty()) {
        pg.admin_sql(&db, &format!("ALTER TABLE audit DISABLE TRIGGER {t}"));
    }
    pg.admin_sql(
        &db,
        &format!(
            "UPDATE audit SET subject = 'rewritten' WHERE desk_id = '{two_id}' AND seq = (SELECT min(seq) FROM audit WHERE desk_id = '{two_id}')"
        ),
    );
    let broken = one.run(&["audit", "verify"]);
    assert_eq!(broken.code, 6, "{broken:?}");
    assert!(
        broken
            .stdout
            .contains("Desk Counter 1: the audit chain in the shop is whole"),
        "{broken:?}"
    );
    assert!(
        broken
            .stderr
            .contains("Desk Counter 2: the audit chain in the shop is broken at row"),
        "{broken:?}"
    );
}

#[test]
fn a_card_saved_at_a_joined_desk_reaches_the_shop_as_its_mask_only() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut cli = desk();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    ok(&cli.run(&["shop", "join", &url]));
    let pan = "5400610000000001";
    let saved = cli.run_with(
        &[
            "card",
            "save",
            "--expiry-month",
            "12",
            "--expiry-year",
            "2030",
            "--holder",
            "AYSE YILMAZ",
            "--customer-id",
            "cust-77",
        ],
        Some(&format!("{pan}\n000\n")),
        &[],
    );
    ok(&saved);
    // Pushed before the command ended.
    assert_eq!(cli.run(&["shop", "status", "--json"]).json()["outbox"], 0);
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT masked_pan || ' ' || brand || ' ' || bank_name FROM saved_cards"
        ),
        "540061******0001 MASTERCARD Yapı Kredi"
    );
    // Nothing else of the card is in the shop: not the number, the holder or the customer.
    let whole = pg.admin_sql(&db, "SELECT row_to_json(c)::text FROM saved_cards AS c");
    for secret in ["0000000001", "AYSE", "cust-77", "000\n"] {
        assert!(!whole.contains(secret), "{secret}: {whole}");
    }
}

#[test]
fn the_command_line_refuses_a_shop_schema_newer_than_it_knows_and_touches_nothing() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut cli = desk();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    ok(&cli.run(&["shop", "join", &url]));
    let newer = paydesk::shop::schema::latest_version() + 1;
    pg.admin_sql(&db, &format!("UPDATE paydesk_schema SET version = {newer}"));
    // A link made now stays on the desk: its own push is refused, nothing is written.
    let made = cli.link_create("sandbox", &["--amount", "12"]);
    ok(&made);
    assert!(
        made.stderr.contains("newer than this paydesk knows"),
        "{made:?}"
    );
    let synced = cli.run(&["shop", "sync"]);
    assert_eq!(synced.code, 4, "{synced:?}");
    assert!(synced.stderr.contains("Nothing was touched"), "{synced:?}");
    assert_eq!(pg.admin_sql(&db, "SELECT count(*) FROM links"), "0");
    assert_eq!(cli.run(&["shop", "status", "--json"]).json()["outbox"], 1);
    // The listing says so and shows this desk's own links.
    let listed = cli.run(&["link", "list"]);
    ok(&listed);
    assert!(
        listed
            .stderr
            .contains("Offline from the shop, showing this desk only"),
        "{listed:?}"
    );
    assert_eq!(listed.stdout.lines().count(), 1, "{listed:?}");
}

#[test]
fn audit_verify_with_the_shop_out_of_reach_exits_5_after_the_desks_own_chain() {
    let Some(pg) = pg::alone() else { return };
    let (_db, url) = shop_url(&pg);
    let mut cli = desk();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    ok(&cli.run(&["shop", "join", &url]));
    pg.stop_immediate();
    let verified = cli.run(&["audit", "verify"]);
    pg.start();
    assert_eq!(verified.code, 5, "{verified:?}");
    assert!(
        verified.stdout.contains("The audit chain is whole"),
        "the desk's own chain is checked first: {verified:?}"
    );
    assert!(
        verified
            .stderr
            .contains("The other desks' chains were not checked: the shop cannot be reached."),
        "{verified:?}"
    );
}

/// `cli` runs `args` signed in as `member` (name, PIN).
fn signed(cli: &Cli, args: &[&str], member: (&str, &str)) -> Out {
    let mut args = args.to_vec();
    args.extend(["--as", member.0]);
    cli.run_with(&args, None, &[("PAYDESK_STAFF_PIN", member.1)])
}

#[test]
fn a_desk_brings_its_staff_and_catalog_to_an_empty_shop_and_the_next_desk_takes_the_shops() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let import = |cli: &Cli, manager: (&str, &str), csv: &str| {
        let path = cli.data_dir().join("catalog.csv");
        std::fs::write(&path, csv).expect("the CSV is written");
        let path = path.to_str().expect("a UTF-8 path");
        ok(&signed(cli, &["catalog", "import", path], manager));
    };
    let shop_staff = "SELECT string_agg(name, ',' ORDER BY name) FROM staff";
    // The first desk sold alone for a while: a manager, a clerk and two items.
    let mut first = desk();
    ok(&first.run_with(
        &["staff", "add", "Zeynep", "--role", "manager"],
        Some("9999\n"),
        &[],
    ));
    ok(&first.run_with(
        &[
            "staff", "add", "Ayşe", "--role", "counter", "--as", "Zeynep",
        ],
        Some("9999\n1234\n"),
        &[],
    ));
    import(
        &first,
        ("Zeynep", "9999"),
        "id,name,unit_price,currency\nvar_cay,Çay,15.00,TRY\nvar_simit,Simit,25.00,TRY\n",
    );
    first.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    let joined = signed(&first, &["shop", "join", &url], ("Zeynep", "9999"));
    ok(&joined);
    assert!(
        joined
            .stdout
            .contains("This desk's staff go to the shop (members: 2)"),
        "{joined:?}"
    );
    assert!(
        joined
            .stdout
            .contains("This desk's catalog goes to the shop (items: 2)."),
        "{joined:?}"
    );
    ok(&first.run(&["shop", "sync"]));
    assert_eq!(pg.admin_sql(&db, shop_staff), "Ayşe,Zeynep");
    // The clerk came with her PIN; the manager's PIN is the shop's to check, and the shop
    // holds none for her until the owner sets one.
    ok(&signed(&first, &["staff", "list"], ("Ayşe", "1234")));
    let unchecked = signed(&first, &["staff", "list"], ("Zeynep", "9999"));
    assert_eq!(unchecked.code, 3, "{unchecked:?}");
    assert!(
        unchecked
            .stderr
            .contains("The shop holds no PIN for manager Zeynep yet"),
        "{unchecked:?}"
    );
    let init = super::owner::as_owner(&super::owner::owner(), &["init", &pg.owner_url(&db)]);
    ok(&init);
    assert!(
        init.stdout
            .contains("The shop holds no PIN yet for these managers")
            && init.stdout.contains("— Zeynep"),
        "{init:?}"
    );
    ok(&super::owner::add_manager(&pg, &db, "Zeynep", "9999"));
    ok(&signed(&first, &["staff", "list"], ("Zeynep", "9999")));
    let shop_items = "SELECT string_agg(v.name, ',' ORDER BY v.name) FROM catalog_variants v \
                      JOIN catalog_current c USING (snapshot)";
    assert_eq!(pg.admin_sql(&db, shop_items), "Simit,Çay");

    // A second desk with its own manager and one item of its own joins: the shop's win.
    let mut second = desk();
    ok(&second.run_with(
        &["staff", "add", "Mehmet", "--role", "manager"],
        Some("5678\n"),
        &[],
    ));
    import(
        &second,
        ("Mehmet", "5678"),
        "id,name,unit_price,currency\nvar_tost,Tost,60.00,TRY\n",
    );
    second.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    let joined = signed(&second, &["shop", "join", &url], ("Mehmet", "5678"));
    ok(&joined);
    assert!(
        joined.stdout.contains(
            "The shop's staff replaced this desk's (members in the shop: 2, here before: 1)"
        ),
        "{joined:?}"
    );
    assert!(
        joined.stdout.contains(
            "The shop's catalog replaced this desk's (items in the shop: 2, here before: 1)."
        ),
        "{joined:?}"
    );
    // At once, before any sync: the shop's manager signs in here, this desk's own does not.
    let list = signed(&second, &["staff", "list", "--json"], ("Zeynep", "9999"));
    ok(&list);
    let members = list.json();
    let names: Vec<&str> = members
        .as_array()
        .expect("a list")
        .iter()
        .map(|m| m["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["Ayşe", "Zeynep"], "{list:?}");
    let mehmet = signed(&second, &["staff", "list"], ("Mehmet", "5678"));
    assert_ne!(mehmet.code, 0, "{mehmet:?}");
    let items = signed(&second, &["catalog", "list", "--json"], ("Ayşe", "1234"));
    ok(&items);
    assert_eq!(items.json().as_array().map(Vec::len), Some(2), "{items:?}");
    // Nothing of the second desk's own went to the shop.
    ok(&second.run(&["shop", "sync"]));
    assert_eq!(pg.admin_sql(&db, shop_staff), "Ayşe,Zeynep");
    assert_eq!(pg.admin_sql(&db, shop_items), "Simit,Çay");
}

#[test]
fn emptying_a_joined_desks_staff_rows_turns_no_pin_off_and_shop_sync_brings_them_back() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut cli = desk();
    ok(&cli.run_with(
        &["staff", "add", "Zeynep", "--role", "manager"],
        Some("9999\n"),
        &[],
    ));
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    ok(&signed(&cli, &["shop", "join", &url], ("Zeynep", "9999")));
    // Anyone may sync: the manager reaches the shop, and its staff are mirrored here.
    ok(&cli.run(&["shop", "sync"]));
    ok(&super::owner::add_manager(&pg, &db, "Zeynep", "9999"));
    // A clerk at the till empties the staff table of the desk's own file.
    rusqlite::Connection::open(cli.data_dir().join("paydesk.sqlite3"))
        .expect("the data file opens")
        .execute("DELETE FROM staff", [])
        .expect("the rows are gone");
    let cancel = cli.run(&["link", "cancel", "lnk_anything"]);
    assert_eq!(cancel.code, 3, "{cancel:?}");
    assert!(
        cancel.stderr.contains("give --as NAME for `link cancel`"),
        "{cancel:?}"
    );
    let list = cli.run(&["staff", "list"]);
    assert_eq!(list.code, 3, "PINs are still on: {list:?}");
    // The next sync reads the shop's members again, whatever version the file noted.
    ok(&cli.run(&["shop", "sync"]));
    let back = signed(&cli, &["staff", "list", "--json"], ("Zeynep", "9999"));
    ok(&back);
    assert_eq!(back.json()[0]["name"], "Zeynep", "{back:?}");
}

#[test]
fn a_payment_only_one_desk_claims_is_listed_with_the_last_confirmed_status_beside_it() {
    let Some(pg) = pg::cluster() else { return };
    let (db, _sandbox, till, office) = till_and_office(&pg);
    let made = made_and_claimed(&pg, &db, &till, &["--amount", "100"]);
    let id = made["id"].as_str().expect("an id").to_owned();
    let listed = office.run(&["--profile", "shop", "link", "list", "--json"]);
    ok(&listed);
    let rows = listed.json();
    let row = rows
        .as_array()
        .expect("a list")
        .iter()
        .find(|r| r["id"] == id.as_str())
        .expect("the till's link")
        .clone();
    assert_eq!(row["status"], "PENDING", "{row}");
    assert_eq!(row["unconfirmedStatus"], "COMPLETED", "{row}");
    let text = office.run(&["--profile", "shop", "link", "list"]);
    ok(&text);
    assert!(
        text.stdout
            .contains("said to be COMPLETED, not yet confirmed by the server"),
        "{text:?}"
    );
    // Filtered by status, the office finds it pending, not completed; the till, whose claim
    // it is, finds it completed.
    let by_status = |d: &Cli, status: &str| -> Vec<String> {
        let out = d.run(&[
            "--profile",
            "shop",
            "link",
            "list",
            "--status",
            status,
            "--json",
        ]);
        ok(&out);
        out.json()
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|r| r["id"].as_str().map(str::to_owned))
            .collect()
    };
    assert!(!by_status(&office, "COMPLETED").contains(&id));
    assert!(by_status(&office, "PENDING").contains(&id));
    assert!(by_status(&till, "COMPLETED").contains(&id));
}

#[test]
fn day_close_asks_about_another_desks_claim_and_counts_it_apart_items_included() {
    let Some(pg) = pg::cluster() else { return };
    let (db, _sandbox, till, office) = till_and_office(&pg);
    let made = made_and_claimed(
        &pg,
        &db,
        &till,
        &["--amount", "150", "--item", "Filter coffee:75x2"],
    );
    let id = made["id"].as_str().expect("an id").to_owned();
    let order = made["orderNumber"]
        .as_str()
        .expect("an order number")
        .to_owned();
    // The office's day close asks the payment API itself first, which says pending: nothing
    // paid or collected, no coffee sold; the claim apart, contradicted.
    let report = office.run(&["--profile", "shop", "report", "--json"]);
    ok(&report);
    let r = report.json();
    let try_ = &r["currencies"][0];
    assert_eq!(try_["paid"]["count"], 0, "{r}");
    assert_eq!(money(&try_["collected"]), dec("0"), "{r}");
    assert_eq!(try_["pending"], 1, "{r}");
    assert_eq!(try_["unconfirmed"]["count"], 1, "{r}");
    assert_eq!(money(&try_["unconfirmed"]["sum"]), dec("150"), "{r}");
    assert_eq!(r["topItems"].as_array().map(Vec::len), Some(0), "{r}");
    let apart = &r["claimsApart"][0];
    assert_eq!(apart["linkId"], id.as_str());
    assert_eq!(apart["orderNumber"], order.as_str());
    assert_eq!(apart["claimedStatus"], "COMPLETED");
    assert_eq!(apart["confirmedStatus"], "PENDING");
    assert_eq!(apart["contradicted"]["status"], "PENDING", "{r}");
    assert_eq!(money(&apart["contradicted"]["paid"]), dec("0"), "{r}");
    let text = office.run(&["--profile", "shop", "report"]);
    ok(&text);
    assert!(
        text.stdout.contains("Payments not counted")
            && text.stdout.contains(&format!("{order}: "))
            && text.stdout.contains("was paid; counted")
            && text.stdout.contains("the payment system told"),
        "{text:?}"
    );
    let audit = office.run(&["audit", "list", "--json"]);
    ok(&audit);
    assert!(
        audit.stdout.contains("link.contradicted") && audit.stdout.contains(&id),
        "{audit:?}"
    );
    // The till's own claim, once contradicted, is apart at the till too.
    let own = till.run(&["--profile", "shop", "report", "--json"]).json();
    assert_eq!(own["currencies"][0]["paid"]["count"], 0, "{own}");
    assert_eq!(own["claimsApart"][0]["linkId"], id.as_str(), "{own}");
}

/// Two desks of one new shop, a till and a back office, each with the profile `shop` on one
/// sandbox (kept running by the handle): the database, the sandbox, the till, the office.
fn till_and_office(pg: &Pg) -> (String, SandboxHandle, Cli, Cli) {
    let (db, url) = shop_url(pg);
    let sandbox = crate::support::cli::sandbox();
    let mut till = desk();
    let mut office = desk();
    for d in [&mut till, &mut office] {
        d.add_profile("shop", &sandbox);
        d.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
        ok(&d.run(&["shop", "join", &url]));
    }
    (db, sandbox, till, office)
}

/// A link the till makes with `args` and pushes, whose payment the till's desk then claims in
/// the shop, as a push of its hand-edited file would (nobody else has seen it): its JSON.
fn made_and_claimed(pg: &Pg, db: &str, till: &Cli, args: &[&str]) -> serde_json::Value {
    let mut args = args.to_vec();
    args.push("--json");
    let made = till.link_create("shop", &args);
    ok(&made);
    let link = made.json();
    ok(&till.run(&["shop", "sync"]));
    let till_id = till.run(&["shop", "status", "--json"]).json()["deskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    pg.claim_paid(db, link["id"].as_str().expect("an id"), &till_id);
    link
}
