//! `paydesk link renew` (issue 30), as the real binary against a sandbox over loopback HTTP:
//! a cancelled link nobody paid is made again with every field it had, under the order number
//! of its chain with the next suffix (`REM-2` → `REM-2-2` → `REM-2-3`); a link is renewed once;
//! an open or paid link is not renewed; a renewal whose answer is lost is finished by `pending
//! retry` under the same key, and the server holds one link for it.

use paydesk::sandbox::{FaultKind, FaultRule};
use serde_json::Value;

use crate::support::cli::{Cli, Out, sandbox, server_orders};

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "expected success:\n{out:?}");
}

/// `paydesk --profile test link ARGS…`.
fn link(cli: &Cli, args: &[&str]) -> Out {
    let mut all = vec!["--profile", "test", "link"];
    all.extend_from_slice(args);
    cli.run(&all)
}

/// The sandbox's record of the link of order `order` (with its items).
fn record(server: &paydesk::sandbox::SandboxHandle, order: &str) -> Value {
    server.admin().state()["links"]
        .as_array()
        .expect("links")
        .iter()
        .find(|l| l["orderNumber"] == order)
        .unwrap_or_else(|| panic!("the sandbox holds {order}"))
        .clone()
}

/// The link of `id` as `link list --json` lists it.
fn listed(cli: &Cli, id: &str) -> Value {
    let out = link(cli, &["list", "--json"]);
    ok(&out);
    out.json()
        .as_array()
        .expect("a list")
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("{id} is listed"))
        .clone()
}

#[test]
fn a_cancelled_link_renews_with_every_field_and_its_chain_of_order_numbers() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let created = cli.link_create(
        "test",
        &[
            "--amount",
            "230.00",
            "--order-number",
            "REM-2",
            "--description",
            "Paket servis: Kadıköy",
            "--item",
            "Filtre kahve:75.00x2",
            "--item",
            "Cheesecake:80.00",
            "--installments",
            "1,3",
            "--partial",
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
    ok(&created);
    let first = created.json();
    let first_id = first["id"].as_str().expect("an id").to_owned();

    // An open link is not renewed: nothing is asked of the server.
    let open = link(&cli, &["renew", &first_id]);
    assert_eq!(open.code, 3, "{open:?}");
    assert!(open.stderr.contains("expired or cancelled"), "{open:?}");
    ok(&link(&cli, &["cancel", &first_id]));

    let renewed = link(&cli, &["renew", &first_id, "--json"]);
    ok(&renewed);
    let second = renewed.json();
    let second_id = second["id"].as_str().expect("an id").to_owned();
    assert_eq!(second["orderNumber"], "REM-2-2");
    assert_eq!(second["renews"], first_id.as_str());
    for field in [
        "amount",
        "currency",
        "description",
        "allowPartialPayment",
        "enableInstallment",
        "availableInstallments",
        "email",
        "phoneCountryCode",
        "phoneNumber",
    ] {
        assert_eq!(second[field], first[field], "{field} is kept");
    }
    assert_ne!(second["paymentUrl"], first["paymentUrl"]);
    // The items went again, priced as before; a new expiry, two hours from now again.
    let items = |order| record(&server, order)["items"].clone();
    assert_eq!(items("REM-2-2"), items("REM-2"));
    let expiry = |v: &Value| {
        chrono::DateTime::parse_from_rfc3339(v["expiryDate"].as_str().expect("an expiry"))
            .expect("a time")
    };
    let life = expiry(&second) - chrono::Utc::now().fixed_offset();
    assert!(
        life > chrono::TimeDelta::minutes(115) && life <= chrono::TimeDelta::hours(2),
        "{life:?}"
    );

    // Once only.
    let again = link(&cli, &["renew", &first_id]);
    assert_eq!(again.code, 3, "{again:?}");
    assert!(again.stderr.contains("REM-2-2"), "{again:?}");
    assert_eq!(server_orders(&server).len(), 2, "nothing more was asked");

    // The renewal renewed in its turn takes the chain's next number.
    ok(&link(&cli, &["cancel", &second_id]));
    let third = link(&cli, &["renew", &second_id, "--json"]);
    ok(&third);
    assert_eq!(third.json()["orderNumber"], "REM-2-3");
    let third_id = third.json()["id"].as_str().expect("an id").to_owned();

    // History says which renews which.
    assert_eq!(listed(&cli, &first_id)["renewedAs"], second_id.as_str());
    assert_eq!(listed(&cli, &second_id)["renews"], first_id.as_str());
    assert_eq!(listed(&cli, &second_id)["renewedAs"], third_id.as_str());
    assert!(listed(&cli, &third_id).get("renewedAs").is_none());
}

/// A sandbox, a CLI with its profile `test`, and a cancelled link of order `order`, whose
/// next five creates' answers the sandbox loses (it makes the link, the desk does not learn
/// it); the link's id.
fn cancelled_with_answers_lost(
    order: &str,
    amount: &str,
) -> (paydesk::sandbox::SandboxHandle, Cli, String) {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.add_profile("test", &server);
    let created = cli.link_create(
        "test",
        &["--amount", amount, "--order-number", order, "--json"],
    );
    ok(&created);
    let id = created.json()["id"].as_str().expect("an id").to_owned();
    ok(&link(&cli, &["cancel", &id]));
    server
        .admin()
        .add_fault(FaultRule {
            endpoint: "link.create".into(),
            kind: FaultKind::Lost,
            delay_ms: None,
            next: Some(5),
            probability: None,
        })
        .expect("a valid rule");
    (server, cli, id)
}

#[test]
fn a_renewal_whose_answer_is_lost_is_finished_under_the_same_key_and_made_once() {
    let (server, cli, id) = cancelled_with_answers_lost("LOST-R", "40.00");
    let lost = link(&cli, &["renew", &id]);
    assert_eq!(lost.code, 5, "the outcome is unknown: {lost:?}");
    assert_eq!(
        server_orders(&server)["LOST-R-2"].len(),
        1,
        "the server made it"
    );
    // Renewing again sends nothing: the renewal is pending under its key.
    let again = link(&cli, &["renew", &id]);
    assert_eq!(again.code, 5, "{again:?}");
    let retried = cli.run(&["--profile", "test", "pending", "retry", "--all"]);
    ok(&retried);
    let held = server_orders(&server);
    assert_eq!(held["LOST-R-2"].len(), 1, "one link for the renewal");
    assert!(!held.contains_key("LOST-R-3"), "no second renewal");
    assert_eq!(
        listed(&cli, &id)["renewedAs"],
        held["LOST-R-2"][0].id.as_str()
    );
    let after = link(&cli, &["renew", &id]);
    assert_eq!(after.code, 3, "renewed once: {after:?}");
}

#[test]
fn a_renewal_given_up_on_after_a_lost_answer_is_never_sent_again() {
    let (server, cli, id) = cancelled_with_answers_lost("GIVEN-UP", "41.00");
    assert_eq!(link(&cli, &["renew", &id]).code, 5);
    // A manager gives up on knowing whether the renewal was made (the server did make it).
    ok(&cli.run(&["--profile", "test", "pending", "abandon", "link-GIVEN-UP-2"]));
    let again = link(&cli, &["renew", &id]);
    assert_eq!(again.code, 3, "{again:?}");
    assert!(again.stderr.contains("GIVEN-UP-2"), "{again:?}");
    let held = server_orders(&server);
    assert_eq!(held["GIVEN-UP-2"].len(), 1);
    assert!(!held.contains_key("GIVEN-UP-3"), "no second renewal");
}
