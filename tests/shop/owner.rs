//! The shop's owner and the desks' own logins (issue 28), end to end: the real binary, the
//! private cluster of `tests/support/pg.rs`, an owner that is not a superuser (a login that owns
//! the database and may create roles, as a managed PostgreSQL gives).
//!
//! - `shop init` sets the shop up, reads the owner's password from stdin only, and runs again
//!   changing nothing; two shops on one cluster get roles of their own;
//! - `shop add-desk` makes a login a desk joins with; `shop desks` lists it with that desk;
//! - a desk's login reads and writes only what a desk does: no `TRUNCATE`, `DROP`, DDL,
//!   trigger change, temporary table, `DELETE` only of expired leases, and no write of the
//!   staff or the catalog but through the shop's functions;
//! - `shop join` refuses the owner, a superuser, a login that may create roles and a member of
//!   the owner (exit 3, naming `shop add-desk`);
//! - a desk never migrates: no schema, or an older one, is refused with the owner's command
//!   named, and nothing is written;
//! - `shop remove-desk` ends the desk's sessions at once; the desk sells on alone and says why.

use super::cli::{desk, ok};
use crate::support::cli::{Cli, Out};
use crate::support::pg::{self, OWNER, PASSWORD, Pg, ROLE};
use paydesk::shop::{self, ShopUrl, schema};
use zeroize::Zeroizing;

/// The owner's password on stdin, as a script gives it.
fn owner_stdin() -> String {
    format!("{PASSWORD}\n")
}

/// `paydesk shop SUBCOMMAND …` run by the owner from `cli`, the password on stdin.
pub(super) fn as_owner(cli: &Cli, args: &[&str]) -> Out {
    let mut all = vec!["shop"];
    all.extend_from_slice(args);
    cli.run_with(&all, Some(&owner_stdin()), &[])
}

/// A desk login made by `shop add-desk NAME --json` on database `db`: its URL and password.
fn add_desk(owner: &Cli, pg: &Pg, db: &str, name: &str) -> (String, String) {
    let out = as_owner(owner, &["add-desk", name, &pg.owner_url(db), "--json"]);
    ok(&out);
    let v = out.json();
    (
        v["url"].as_str().expect("a URL").to_owned(),
        v["password"].as_str().expect("a password").to_owned(),
    )
}

/// `paydesk shop add-manager NAME` by the owner of database `db`: the owner's password, then
/// the manager's PIN, on stdin.
pub(super) fn add_manager(pg: &Pg, db: &str, name: &str, pin: &str) -> Out {
    owner().run_with(
        &["shop", "add-manager", name, &pg.owner_url(db)],
        Some(&format!("{PASSWORD}\n{pin}\n")),
        &[],
    )
}

/// The shop's owner, from a folder of its own.
pub(super) fn owner() -> Cli {
    Cli::in_new_folder("owner")
}

#[test]
fn the_owner_sets_the_shop_up_without_superuser_and_a_desk_joins_with_its_own_login() {
    let Some(pg) = pg::cluster() else { return };
    assert_eq!(
        pg.admin_sql(
            "postgres",
            &format!("SELECT rolsuper::text || rolcreaterole::text FROM pg_roles WHERE rolname = '{OWNER}'")
        ),
        "falsetrue"
    );
    let db = pg.empty_db();
    let owner_url = pg.owner_url(&db);
    let owner = owner();
    // The owner's password is never taken from the environment a desk's password comes from.
    let from_env = owner.run_with(
        &["shop", "init", &owner_url],
        Some(""),
        &[("PAYDESK_SHOP_PASSWORD", PASSWORD)],
    );
    assert_eq!(from_env.code, 3, "{from_env:?}");
    assert_eq!(
        pg.admin_sql(&db, "SELECT to_regclass('paydesk_schema') IS NULL"),
        "t"
    );
    let latest = schema::latest_version();
    let init = as_owner(&owner, &["init", &owner_url]);
    ok(&init);
    assert!(
        init.stdout.contains(&format!(
            "(schema version 0 → {latest}); its desks' role is {db}_desks"
        )),
        "{init:?}"
    );
    let again = as_owner(&owner, &["init", &owner_url]);
    ok(&again);
    assert!(
        again
            .stdout
            .contains(&format!("(schema version {latest} → {latest})")),
        "{again:?}"
    );

    let added = as_owner(&owner, &["add-desk", "Kasa 1", &owner_url, "--json"]);
    ok(&added);
    let v = added.json();
    let login = format!("{db}_desk_1");
    assert_eq!(v["login"], login.as_str(), "{v}");
    let url = v["url"].as_str().expect("a URL");
    let password = v["password"].as_str().expect("a password");
    assert!(
        url.starts_with(&format!("postgres://{login}@localhost:")),
        "{url}"
    );
    // The URL carries no password; the password is 24 letters and digits (139 bits).
    assert!(!url.contains(password), "{url}");
    assert_eq!(password.len(), 24);
    assert!(
        password.chars().all(|c| c.is_ascii_alphanumeric()),
        "{password}"
    );
    // The server holds a SCRAM verifier, not the password.
    assert!(
        pg.admin_sql(
            "postgres",
            &format!("SELECT rolpassword FROM pg_authid WHERE rolname = '{login}'")
        )
        .starts_with("SCRAM-SHA-256$")
    );
    let taken = as_owner(&owner, &["add-desk", "Kasa 1", &owner_url]);
    assert_eq!(taken.code, 3, "{taken:?}");
    assert!(
        taken
            .stderr
            .contains("A desk named Kasa 1 has a login already"),
        "{taken:?}"
    );

    let mut kasa = desk();
    kasa.env("PAYDESK_SHOP_PASSWORD", password);
    let joined = kasa.run(&["shop", "join", url]);
    ok(&joined);
    // The owner's name for the desk is its first shown name, here and in the shop.
    assert!(joined.stdout.contains("Kasa 1"), "{joined:?}");
    let status = kasa.run(&["shop", "status", "--json"]).json();
    let device = status["deskId"].as_str().expect("a desk id").to_owned();
    assert_eq!(status["deskName"], "Kasa 1", "{status}");
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!("SELECT name FROM desks WHERE desk_id = '{device}'")
        ),
        "Kasa 1"
    );
    ok(&kasa.link_create("sandbox", &["--amount", "45", "--json"]));
    ok(&kasa.run(&["shop", "sync"]));

    let listed = as_owner(&owner, &["desks", &owner_url, "--json"]);
    ok(&listed);
    let rows = listed.json();
    let rows = rows.as_array().expect("a list");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["name"], "Kasa 1");
    assert_eq!(rows[0]["login"], login.as_str());
    assert_eq!(rows[0]["device"], device.as_str());
    assert!(rows[0]["joinedAt"].is_string(), "{rows:?}");
    assert!(rows[0]["lastPushAt"].is_string(), "{rows:?}");
    assert_eq!(rows[0]["removed"], false);
    // The shop learnt the desk's login from the connection, not from the desk.
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!("SELECT login FROM desks WHERE desk_id = '{device}'")
        ),
        login
    );

    a_second_shop_is_closed_to_this_desks_login(&pg, &db, url, password);
}

/// A second shop on the same cluster as database `db` has roles of its own, and the login of
/// `url` (a desk of `db`) cannot even connect to it.
fn a_second_shop_is_closed_to_this_desks_login(pg: &Pg, db: &str, url: &str, password: &str) {
    let other = pg.empty_db();
    ok(&as_owner(&owner(), &["init", &pg.owner_url(&other)]));
    assert_eq!(
        pg.admin_sql(
            "postgres",
            &format!(
                "SELECT count(*) FROM pg_roles WHERE rolname IN ('{db}_desks', '{other}_desks')"
            )
        ),
        "2"
    );
    let mut stranger = desk();
    stranger.env("PAYDESK_SHOP_PASSWORD", password);
    let elsewhere = url.replace(&format!("/{db}?"), &format!("/{other}?"));
    let refused = stranger.run(&["shop", "join", &elsewhere]);
    assert_eq!(refused.code, 4, "{refused:?}");
    assert!(
        refused.stderr.contains("permission denied for database"),
        "{refused:?}"
    );
}

/// Connects as `user` with `password` to `db`.
async fn session(pg: &Pg, user: &str, password: &str, db: &str) -> shop::Shop {
    let url = ShopUrl::parse(&pg.url_as(user, "localhost", db, &pg.verify_full())).expect("a URL");
    shop::connect(
        &url,
        &Zeroizing::new(password.to_owned()),
        shop::CONNECT_TIMEOUT,
    )
    .await
    .expect("connects")
}

/// The SQLSTATE a statement ends with (`None`: it ran).
async fn state_of(shop: &shop::Shop, sql: &str) -> Option<String> {
    shop.client().batch_execute(sql).await.err().map(|e| {
        e.code()
            .map_or_else(|| e.to_string(), |c| c.code().to_owned())
    })
}

#[tokio::test]
async fn a_desks_login_can_truncate_drop_alter_or_delete_nothing_and_makes_no_tables() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let owner = owner();
    let (_, password) = add_desk(&owner, &pg, &db, "Kasa 1");
    let login = format!("{db}_desk_1");
    let desk = session(&pg, &login, &password, &db).await;
    let relations = pg.admin_sql(
        &db,
        "SELECT string_agg(relname || ' ' || (SELECT attname FROM pg_attribute
                 WHERE attrelid = c.oid AND attnum > 0 AND attidentity = ''
                     AND attgenerated = '' ORDER BY attnum LIMIT 1), ',' ORDER BY relname)
         FROM pg_class AS c
         WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p')",
    );
    let relations: Vec<(&str, &str)> = relations
        .split(',')
        .map(|r| r.split_once(' ').expect("table and column"))
        .collect();
    assert!(relations.len() > 20, "{relations:?}");
    let denied = Some("42501".to_owned());
    for (table, column) in &relations {
        // The tables themselves, not the views a desk reads through.
        let table = format!("public.{table}");
        for sql in [
            format!("TRUNCATE {table}"),
            format!("DROP TABLE {table}"),
            format!("ALTER TABLE {table} DISABLE TRIGGER ALL"),
            format!("ALTER TABLE {table} ADD COLUMN x integer"),
            format!(
                "CREATE TRIGGER t BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION paydesk_desks_login()"
            ),
        ] {
            assert_eq!(state_of(&desk, &sql).await, denied, "{sql}");
        }
        // Every write is a function's and every read a view's: not one table is read, takes a
        // row, a change or a delete.
        for sql in [
            format!("SELECT * FROM {table} LIMIT 1"),
            format!("DELETE FROM {table} WHERE false"),
            format!("UPDATE {table} SET {column} = {column} WHERE false"),
            format!("INSERT INTO {table} ({column}) SELECT {column} FROM {table} WHERE false"),
        ] {
            assert_eq!(state_of(&desk, &sql).await, denied, "{sql}");
        }
    }
    let sequences = pg.admin_sql(
        &db,
        "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class
         WHERE relnamespace = 'public'::regnamespace AND relkind = 'S'",
    );
    for sequence in sequences.split(',') {
        for sql in [
            format!("SELECT nextval('{sequence}')"),
            format!("SELECT setval('{sequence}', 1)"),
            format!("SELECT last_value FROM {sequence}"),
        ] {
            assert_eq!(state_of(&desk, &sql).await, denied, "{sql}");
        }
    }
    for sql in [
        "CREATE TABLE mine (a integer)",
        "CREATE TEMP TABLE mine (a integer)",
        "CREATE FUNCTION mine() RETURNS integer LANGUAGE sql AS 'SELECT 1'",
        "SELECT * FROM desk_logins",
        "UPDATE paydesk_schema SET version = version",
        // The leases and the budget: no desk spends the shop's budget ahead or keeps a link.
        "UPDATE poll_budget SET next_at = 'infinity'",
        "INSERT INTO poll_leases SELECT base_url, api_key_id, sandbox_desk, link_id, desk_id,
             'infinity', now() FROM links",
        "DELETE FROM poll_leases",
        "UPDATE saved_cards SET masked_pan = '4242 42** **** 4242'",
        "SELECT nextval('desk_login_numbers')",
        "CREATE ROLE mine",
        // A desk's links, their items, acknowledgements, desks and kept totals are written by
        // the shop's functions only: a clerk with psql cannot mark a link paid.
        "UPDATE links SET status = 'COMPLETED', paid_amount = amount",
        "INSERT INTO desks (desk_id, name, joined_at, seen_at) VALUES ('X', 'X', now(), now())",
        "UPDATE desks SET name = 'X'",
        "UPDATE outbox_acks SET acked_seq = 0",
        "DELETE FROM link_items",
        "UPDATE report_sums SET paid = 0",
        "UPDATE report_money SET paid = 0",
        "SELECT * FROM push_refusals",
        // The staff and the catalog are changed by the shop's functions only: no clerk made a
        // manager, no PIN hash read, no item repriced or barcode moved.
        "SELECT pin_hash FROM staff",
        "UPDATE staff SET role = 'manager'",
        "UPDATE catalog_variants SET unit_price = 0.01",
        "INSERT INTO catalog_current (snapshot) VALUES (1)",
        "SELECT paydesk_catalog_make('X', NULL, 'x', now(), 'X', '{}', '{}', '{}', '{}', '{}')",
        // A signed-in manager's row holds their verifier: never handed to a desk.
        "SELECT shop_verifier FROM paydesk_manager_of('X', 'token')",
    ] {
        assert_eq!(state_of(&desk, sql).await, denied, "{sql}");
    }
    functions_are_the_definers_and_the_ungranted_refused(&pg, &db, &desk).await;
    // The desk's own work still runs: it reads the links and registers.
    assert_eq!(state_of(&desk, "SELECT count(*) FROM links").await, None);
}

/// Every function of the shop the desks' role is not granted, called through `desk`'s login
/// with arguments of its types, is refused before it runs; every function that runs with its
/// owner's rights is owned by a role nobody logs in as.
async fn functions_are_the_definers_and_the_ungranted_refused(
    pg: &Pg,
    db: &str,
    desk: &shop::Shop,
) {
    let denied = Some("42501".to_owned());
    // Every function of the shop a desk is not granted, called through the desk's login with
    // arguments of its types, is refused before it runs.
    let ungranted = pg.admin_sql(
        db,
        "SELECT string_agg(format('SELECT public.%I(%s)', p.proname,
                   (SELECT coalesce(string_agg('NULL::' || format_type(a.t, NULL), ', '
                        ORDER BY a.i), '')
                    FROM unnest(p.proargtypes) WITH ORDINALITY AS a (t, i))), E'\n'
                   ORDER BY p.proname)
         FROM pg_proc AS p
         WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f'
             AND p.prorettype <> 'trigger'::regtype
             AND NOT has_function_privilege(current_database() || '_desks', p.oid, 'EXECUTE')",
    );
    let calls: Vec<&str> = ungranted.lines().collect();
    assert!(
        calls.iter().any(|c| c.contains("paydesk_manager_of"))
            && calls.iter().any(|c| c.contains("paydesk_catalog_make")),
        "{calls:?}"
    );
    for call in calls {
        assert_eq!(state_of(desk, call).await, denied, "{call}");
    }
    // Every function that runs with its owner's rights is owned by a role nobody logs in as,
    // which holds the tables' rows and nothing of the owner's login.
    assert_eq!(
        pg.admin_sql(
            db,
            "SELECT count(*) FILTER (WHERE r.rolname <> current_database() || '_definer'
                                       OR r.rolcanlogin OR r.rolcreaterole)
                    || ' of ' || count(*)
             FROM pg_proc AS p JOIN pg_roles AS r ON r.oid = p.proowner
             WHERE p.pronamespace = 'public'::regnamespace AND p.prosecdef",
        )
        .split_once(" of ")
        .map(|(wrong, all)| (wrong.to_owned(), all.parse::<u32>().unwrap_or(0) > 20)),
        Some(("0".to_owned(), true))
    );
}

#[test]
fn join_refuses_the_owner_a_superuser_and_any_login_that_may_do_more_than_a_desk() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    // A member of the owner, with no rights of its own: it still holds the owner's.
    let member = format!("{db}_member");
    pg.admin_sql(
        "postgres",
        &format!(
            "CREATE ROLE {member} LOGIN PASSWORD '{}' IN ROLE {OWNER}",
            PASSWORD.replace('\'', "''")
        ),
    );
    let mut cli = desk();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    for (user, why) in [
        (OWNER, "it may create roles (CREATEROLE)"),
        ("postgres", "it is a superuser"),
        (member.as_str(), "it owns the shop's tables"),
    ] {
        let url = pg.url_as(user, "localhost", &db, &pg.verify_full());
        let out = cli.run(&["shop", "join", &url]);
        assert_eq!(out.code, 3, "{user}: {out:?}");
        assert!(out.stderr.contains(why), "{user}: {out:?}");
        assert!(
            out.stderr.contains("paydesk shop add-desk NAME OWNER_URL"),
            "{user}: {out:?}"
        );
        assert_eq!(
            cli.run(&["shop", "status", "--json"]).json()["joined"],
            false
        );
    }
    assert_eq!(pg.admin_sql(&db, "SELECT count(*) FROM desks"), "0");
    // The tests' desk login is a desk's: it joins.
    ok(&cli.run(&["shop", "join", &pg.url("localhost", &db, &pg.verify_full())]));
    assert_eq!(pg.admin_sql(&db, "SELECT login FROM desks"), ROLE);
}

#[tokio::test]
async fn a_desk_never_migrates_and_names_the_owners_command_until_it_has_run() {
    let Some(pg) = pg::cluster() else { return };
    let mut cli = desk();
    cli.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    // No shop in the database at all.
    let empty = pg.empty_db();
    let out = cli.run(&[
        "shop",
        "join",
        &pg.url("localhost", &empty, &pg.verify_full()),
    ]);
    assert_eq!(out.code, 4, "{out:?}");
    assert!(
        out.stderr
            .contains("holds no paydesk shop yet: the shop's owner first runs `paydesk shop init"),
        "{out:?}"
    );
    assert_eq!(
        pg.admin_sql(&empty, "SELECT to_regclass('paydesk_schema') IS NULL"),
        "t"
    );

    // A shop made before this issue, one step behind this paydesk: its desks joined with the
    // login that owns the database (here one that may also create roles, as `shop init`
    // needs), and it holds a desk already.
    let older = pg.empty_db();
    let legacy = format!("{older}_legacy");
    pg.admin_sql(
        "postgres",
        &format!(
            "CREATE ROLE {legacy} LOGIN CREATEROLE PASSWORD '{}';
             ALTER DATABASE {older} OWNER TO {legacy}",
            PASSWORD.replace('\'', "''")
        ),
    );
    let latest = schema::latest_version();
    let device = cli.run(&["shop", "status", "--json"]).json()["deskId"]
        .as_str()
        .expect("a desk id")
        .to_owned();
    an_older_shop_with_two_owner_desks(&pg, (&legacy, &older), &device, latest - 1).await;
    let legacy_url = pg.url_as(&legacy, "localhost", &older, &pg.verify_full());
    let out = cli.run(&["shop", "join", &legacy_url]);
    assert_eq!(out.code, 4, "{out:?}");
    assert!(
        out.stderr.contains(&format!(
            "has schema version {}; this paydesk needs {latest}. This desk sells on alone until the shop's owner runs `paydesk shop init`",
            latest - 1
        )),
        "{out:?}"
    );
    assert_eq!(
        pg.admin_sql(&older, "SELECT version FROM paydesk_schema"),
        (latest - 1).to_string(),
        "the desk migrated nothing"
    );
    // The owner brings it up to date, losing nothing; the owner's login no longer serves at a
    // desk, and the desk joins with a login of its own.
    let owner = owner();
    let init = cli.run_with(&["shop", "init", &legacy_url], Some(&owner_stdin()), &[]);
    ok(&init);
    assert_eq!(
        pg.admin_sql(
            &older,
            "SELECT string_agg(d.name || ':' || l.link_id, ',' ORDER BY d.name)
             FROM desks AS d JOIN links AS l USING (desk_id)"
        ),
        format!("Old counter:lnk_{device},Old counter 2:lnk_OLD2"),
        "both desks and their links survive the migration"
    );
    assert_eq!(
        pg.admin_sql(
            &older,
            &format!("SELECT name FROM desks WHERE desk_id = '{device}'")
        ),
        "Old counter"
    );
    let out = cli.run(&["shop", "join", &legacy_url]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("paydesk shop add-desk"), "{out:?}");
    let added = owner.run_with(
        &["shop", "add-desk", "Old counter", &legacy_url, "--json"],
        Some(&owner_stdin()),
        &[],
    );
    ok(&added);
    // `add-desk` with the old desk's name makes the new login that desk's: no other computer
    // joins with it, and the old desk does, keeping its name.
    let own = added.json();
    assert_eq!(own["adopted"], device.as_str(), "{own}");
    let new_url = own["url"].as_str().expect("a URL");
    let new_password = own["password"].as_str().expect("a password");
    let mut stranger = desk();
    stranger.env("PAYDESK_SHOP_PASSWORD", new_password);
    let refused = stranger.run(&["shop", "join", new_url]);
    assert_eq!(refused.code, 4, "{refused:?}");
    assert!(
        refused.stderr.contains("belongs to another desk"),
        "{refused:?}"
    );
    cli.env("PAYDESK_SHOP_PASSWORD", new_password);
    let joined = cli.run(&["shop", "join", new_url]);
    ok(&joined);
    assert!(joined.stdout.contains("Old counter"), "{joined:?}");
    assert_eq!(
        pg.admin_sql(
            &older,
            &format!("SELECT login FROM desks WHERE desk_id = '{device}'")
        ),
        format!("{older}_desk_1")
    );
}

/// Database `older` as a paydesk from before issue 28 left it, at schema `version`, owned by
/// `legacy` (a login that may create roles): two desks registered with that login, `device`
/// and `OLD2`, each with a pending link of the morning.
async fn an_older_shop_with_two_owner_desks(
    pg: &Pg,
    (legacy, older): (&str, &str),
    device: &str,
    version: i32,
) {
    let mut shop = session(pg, legacy, PASSWORD, older).await;
    let url = shop.url().clone();
    schema::migrate_to(shop.client_mut(), &url, version)
        .await
        .expect("migrates");
    // Two desks, as that paydesk registered them (straight into the table), each with a
    // link of the morning.
    for (desk, name) in [(device, "Old counter"), ("OLD2", "Old counter 2")] {
        shop.client()
            .execute(
                "INSERT INTO desks (desk_id, name, joined_at, seen_at)
                 VALUES ($1, $2, now(), now())",
                &[&desk, &name],
            )
            .await
            .expect("registers");
        let amount = rust_decimal::Decimal::from(25);
        let now = chrono::Utc::now();
        let link = format!("lnk_{desk}");
        let answer = format!(r#"{{"id":"{link}","status":"PENDING","amount":25}}"#);
        shop.client()
            .query_one(
                schema::PUSH_LINK,
                &[
                    &desk,
                    &"https://api.example",
                    &"key-1",
                    &"",
                    &link,
                    &desk,
                    &None::<String>,
                    &format!("PD-{desk}"),
                    &"PENDING",
                    &"TRY",
                    &amount,
                    &rust_decimal::Decimal::ZERO,
                    &None::<chrono::DateTime<chrono::Utc>>,
                    &now,
                    &now,
                    &answer,
                ],
            )
            .await
            .expect("the link is pushed");
    }
}

#[tokio::test]
async fn a_removed_desk_loses_its_sessions_at_once_and_sells_on_alone_saying_why() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let owner = owner();
    let (url, password) = add_desk(&owner, &pg, &db, "Kasa 2");
    let login = format!("{db}_desk_1");
    let mut kasa = desk();
    kasa.env("PAYDESK_SHOP_PASSWORD", &password);
    ok(&kasa.run(&["shop", "join", &url]));
    // A session of the desk that stays open, as the app's does.
    let held = session(&pg, &login, &password, &db).await;
    assert_eq!(state_of(&held, "SELECT 1").await, None);

    let removed = as_owner(&owner, &["remove-desk", "Kasa 2", &pg.owner_url(&db)]);
    ok(&removed);
    assert!(
        removed.stdout.contains(&format!(
            "The desk Kasa 2's login {login} may no longer connect (1 session ended)"
        )),
        "{removed:?}"
    );
    assert!(
        state_of(&held, "SELECT 1").await.is_some(),
        "the session ended"
    );

    let status = kasa.run(&["shop", "status"]);
    assert_eq!(status.code, 4, "{status:?}");
    assert!(
        status.stdout.contains(&format!(
            "The shop's owner removed this desk's login {login}: the desk sells on alone"
        )),
        "{status:?}"
    );
    // It sells on alone: the link is made and waits in the outbox.
    ok(&kasa.link_create("sandbox", &["--amount", "20", "--json"]));
    assert_eq!(kasa.run(&["shop", "status", "--json"]).json()["outbox"], 1);

    let listed = as_owner(&owner, &["desks", &pg.owner_url(&db), "--json"]).json();
    assert_eq!(listed[0]["removed"], true, "{listed}");
    let text = as_owner(&owner, &["desks", &pg.owner_url(&db)]);
    ok(&text);
    assert!(
        text.stdout.contains(&format!("Kasa 2: {login}; desk ")),
        "{text:?}"
    );
    assert!(text.stdout.contains("(removed)"), "{text:?}");
    let unknown = as_owner(&owner, &["remove-desk", "Kasa 9", &pg.owner_url(&db)]);
    assert_eq!(unknown.code, 3, "{unknown:?}");
    assert!(
        unknown.stderr.contains("No desk login is named Kasa 9"),
        "{unknown:?}"
    );
}

#[tokio::test]
async fn a_login_is_bound_to_its_first_desk_and_no_login_takes_another_desks_device() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let owner = owner();
    let (url, password) = add_desk(&owner, &pg, &db, "Kasa 1");
    let mut first = desk();
    first.env("PAYDESK_SHOP_PASSWORD", &password);
    ok(&first.run(&["shop", "join", &url]));
    let device = first.run(&["shop", "status", "--json"]).json()["deskId"]
        .as_str()
        .expect("a desk id")
        .to_owned();
    // The same desk joins again with its login: still its own.
    ok(&first.run(&["shop", "join", &url]));

    // Another computer given Kasa 1's password cannot join with it.
    let mut second = desk();
    second.env("PAYDESK_SHOP_PASSWORD", &password);
    let refused = second.run(&["shop", "join", &url]);
    assert_eq!(refused.code, 4, "{refused:?}");
    assert!(
        refused.stderr.contains(&format!(
            "The login {db}_desk_1 belongs to another desk: each login is bound to the desk it first joined with"
        )),
        "{refused:?}"
    );
    assert_eq!(
        pg.admin_sql(&db, "SELECT count(*) FROM desks"),
        "1",
        "nothing of the second computer reached the shop"
    );

    // Nor can another desk's login register as Kasa 1's device.
    let (_, other_password) = add_desk(&owner, &pg, &db, "Kasa 2");
    let other = session(&pg, &format!("{db}_desk_2"), &other_password, &db).await;
    let e = shop::desk::register(
        &other,
        &shop::desk::DeskIdentity {
            id: device.clone(),
            name: "Kasa 1".to_owned(),
            named: true,
        },
    )
    .await
    .expect_err("another desk's device");
    assert!(matches!(e, shop::ShopError::DeviceTaken), "{e:?}");
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!("SELECT login FROM desks WHERE desk_id = '{device}'")
        ),
        format!("{db}_desk_1")
    );
    // Once the owner removes Kasa 1's login, the device may join with a new one.
    ok(&as_owner(
        &owner,
        &["remove-desk", "Kasa 1", &pg.owner_url(&db)],
    ));
    let (new_url, new_password) = add_desk(&owner, &pg, &db, "Kasa 1 again");
    first.env("PAYDESK_SHOP_PASSWORD", &new_password);
    ok(&first.run(&["shop", "join", &new_url]));
}

#[tokio::test]
async fn a_desk_pushes_only_as_itself_and_the_shop_refuses_another_desks_new_link_and_future_times()
{
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let (_, password) = add_desk(&owner(), &pg, &db, "Kasa 1");
    let login = format!("{db}_desk_1");
    let desk = session(&pg, &login, &password, &db).await;
    let identity = shop::desk::DeskIdentity {
        id: "DA01".to_owned(),
        name: "Kasa 1".to_owned(),
        named: true,
    };
    shop::desk::register(&desk, &identity)
        .await
        .expect("registers");
    let now = chrono::Utc::now();
    let push = |acting: &'static str, link: &'static str, owner: &'static str, stored| {
        let desk = &desk;
        async move {
            let amount = rust_decimal::Decimal::from(100);
            let paid = rust_decimal::Decimal::ZERO;
            let answer = format!(r#"{{"id":"{link}","status":"PENDING"}}"#);
            let cancelled: Option<chrono::DateTime<chrono::Utc>> = None;
            desk.client()
                .query_one(
                    schema::PUSH_LINK,
                    &[
                        &acting,
                        &"https://api.example",
                        &"key-1",
                        &"",
                        &link,
                        &owner,
                        &None::<String>,
                        &None::<String>,
                        &"PENDING",
                        &"TRY",
                        &Some(amount),
                        &paid,
                        &cancelled,
                        &stored,
                        &stored,
                        &answer,
                    ],
                )
                .await
                .map(|row| row.get::<_, bool>(0))
        }
    };
    assert_eq!(push("DA01", "L1", "DA01", now).await.ok(), Some(true));
    // Acting as a desk this login did not register is refused outright.
    let e = push("DB02", "L2", "DB02", now)
        .await
        .expect_err("not its desk");
    assert_eq!(
        e.code().map(tokio_postgres::error::SqlState::code),
        Some(schema::NOT_THIS_DESK)
    );
    // Another desk's new link, and a time in 2100, are refused and recorded; nothing changes.
    assert_eq!(push("DA01", "L3", "DB02", now).await.ok(), Some(false));
    let later = chrono::DateTime::parse_from_rfc3339("2100-01-01T00:00:00Z")
        .expect("a time")
        .to_utc();
    assert_eq!(push("DA01", "L4", "DA01", later).await.ok(), Some(false));
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT string_agg(link_id, ',' ORDER BY link_id) FROM links"
        ),
        "L1"
    );
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT string_agg(login || ' ' || desk_id || ' ' || link_id || ': ' || kind, '; ' ORDER BY id)
             FROM push_refusals"
        ),
        format!(
            "{login} DA01 L3: another desk's new link; {login} DA01 L4: time in the future"
        )
    );
}

#[test]
fn the_owners_manager_signs_in_only_through_the_shop_and_adds_a_clerk_there_from_a_desk() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let url = pg.url("localhost", &db, &pg.verify_full());
    let mut till = desk();
    till.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    ok(&till.run(&["shop", "join", &url]));
    let as_member = |args: &[&str], name: &str, pin: &str, stdin: Option<&str>| {
        let mut all = args.to_vec();
        all.extend(["--as", name]);
        till.run_with(&all, stdin, &[("PAYDESK_STAFF_PIN", pin)])
    };

    let added = add_manager(&pg, &db, "Zeynep", "9999");
    ok(&added);
    assert!(
        added.stdout.contains("Zeynep is now a manager of the shop"),
        "{added:?}"
    );
    // The desk learns of the shop's first manager at once: PINs are on without a sync.
    let anyone = till.run(&["staff", "list"]);
    assert_eq!(anyone.code, 3, "{anyone:?}");
    let clerk = as_member(
        &["staff", "add", "Ayşe", "--role", "counter"],
        "Zeynep",
        "9999",
        Some("2468\n"),
    );
    ok(&clerk);
    let shop = |sql: &str| pg.admin_sql(&db, sql);
    assert!(
        shop("SELECT pin_hash FROM staff WHERE folded = 'ayşe'").starts_with("$argon2id$"),
        "the clerk's PIN hash was made at the desk"
    );
    assert_eq!(
        shop(
            "SELECT string_agg(manager || ':' || action || ':' || subject, ' | ' ORDER BY id)
             FROM staff_log WHERE manager IS NOT NULL"
        ),
        "Zeynep:sign-in:cli: staff add | Zeynep:staff add:Ayşe (counter)"
    );
    assert_eq!(
        shop("SELECT count(*) FROM staff_tokens WHERE ended_at IS NULL"),
        "0",
        "the command's sign-in ended with it"
    );
    let audit = as_member(&["audit", "list", "--json"], "Zeynep", "9999", None);
    ok(&audit);
    assert!(
        audit.json().as_array().expect("rows").iter().any(|r| {
            r["action"] == "staff.add" && r["staff"] == "Zeynep" && r["subject"] == "Ayşe (counter)"
        }),
        "the desk's own record names who added the clerk: {audit:?}"
    );
    // The manager's catalog import is made in the shop, whole, and comes back as the shop's.
    let csv = till.data_dir().join("catalog.csv");
    std::fs::write(
        &csv,
        "id,name,unit_price,currency,barcode\nvar_cay,Çay,15.00,TRY,1000001\n",
    )
    .expect("the CSV is written");
    let csv = csv.to_str().expect("a UTF-8 path");
    ok(&as_member(
        &["catalog", "import", csv],
        "Zeynep",
        "9999",
        None,
    ));
    assert_eq!(
        shop(
            "SELECT string_agg(v.name || ':' || v.unit_price, ',') FROM catalog_variants v
              JOIN catalog_current c USING (snapshot)"
        ),
        "Çay:15.00"
    );
    assert_eq!(
        shop("SELECT manager FROM catalog_snapshots ORDER BY snapshot DESC LIMIT 1"),
        "Zeynep"
    );
    let clerk_import = as_member(&["catalog", "import", csv], "Ayşe", "2468", None);
    assert_eq!(clerk_import.code, 3, "{clerk_import:?}");
    // A wrong manager PIN is counted in the shop.
    let wrong = as_member(&["staff", "list"], "Zeynep", "1111", None);
    assert_eq!(wrong.code, 3, "{wrong:?}");
    assert!(wrong.stderr.contains("Wrong PIN for Zeynep"), "{wrong:?}");
    assert_eq!(
        shop("SELECT misses FROM staff WHERE folded = 'zeynep'"),
        "1"
    );

    // The shop stops answering: the clerk sells on, the manager waits for the shop.
    let dead = crate::support::ports::free_port();
    let file = rusqlite::Connection::open(till.data_dir().join("paydesk.sqlite3"))
        .expect("the data file opens");
    file.execute(
        "UPDATE shop_desk SET shop_url = replace(shop_url, ?1, ?2)",
        [format!(":{}/", pg.port()), format!(":{dead}/")],
    )
    .expect("the shop's address changed");
    ok(&as_member(&["staff", "list"], "Ayşe", "2468", None));
    let offline = as_member(&["staff", "list"], "Zeynep", "9999", None);
    assert_eq!(offline.code, 3, "{offline:?}");
    assert!(
        offline.stderr.contains(
            "Zeynep is a manager: the shop checks managers' PINs, and the shop is not answering"
        ),
        "{offline:?}"
    );
}
