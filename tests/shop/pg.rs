//! The shop's PostgreSQL, for real: the private cluster of `tests/support/pg.rs` (Debian's
//! `postgresql` package; skipped with a sentence naming it when it is not installed, a failure
//! under `PAYDESK_REQUIRE_POSTGRES=1`).

use std::process::Command;

use crate::support::pg::{self, PASSWORD, PLAIN_ROLE, Pg, ROLE};
use paydesk::lang::Lang;
use paydesk::shop::{self, ShopError, ShopUrl, Weakness, schema};
use paydesk::store::Store;
use zeroize::Zeroizing;

/// `psql` over loopback TCP as the desk role, with `password`; its exit status and stderr.
fn psql_tcp(pg: &Pg, db: &str, password: &str, sql: &str) -> (bool, String) {
    let out = Command::new(pg::bin_dir().join("psql"))
        .args(["-X", "-q", "-A", "-t", "-c", sql])
        .arg(format!(
            "host=127.0.0.1 port={} user={ROLE} dbname={db} sslmode=require",
            pg.port()
        ))
        .env("PGPASSWORD", password)
        .output()
        .expect("psql runs");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn the_private_cluster_asks_tcp_clients_for_the_password_over_tls() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let (ok, out) = psql_tcp(
        &pg,
        &db,
        PASSWORD,
        "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
    );
    assert!(ok, "{out}");
    assert_eq!(out.trim(), "t", "the connection is encrypted");
    let (ok, out) = psql_tcp(&pg, &db, "not the password", "SELECT 1");
    assert!(!ok);
    assert!(out.contains("password authentication failed"), "{out}");
    // Every TCP line asks for SCRAM, but PLAIN_ROLE's, which are there to ask in plain text.
    let method = |role: &str| {
        pg.admin_sql(
            "postgres",
            &format!(
                "SELECT string_agg(DISTINCT auth_method, ',') FROM pg_hba_file_rules \
                 WHERE type = 'host' AND ('{PLAIN_ROLE}' = ANY(user_name)) = {role}"
            ),
        )
    };
    assert_eq!(method("false"), "scram-sha-256");
    assert_eq!(method("true"), "password");
}

/// Runs one test of this binary again, in a fresh process, with `env` set.
fn rerun(test: &str, env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env_remove(pg::REQUIRE_ENV);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the test binary runs again")
}

#[test]
fn without_postgresql_a_shop_test_says_skipped_unless_postgresql_is_required() {
    let empty = tempfile::tempdir().expect("a temp dir");
    let nowhere = empty.path().to_str().expect("a UTF-8 path");
    let test = "pg::the_private_cluster_asks_tcp_clients_for_the_password_over_tls";
    let skipped = rerun(test, &[(pg::BIN_DIR_ENV, nowhere)]);
    let stdout = String::from_utf8_lossy(&skipped.stdout);
    assert!(skipped.status.success(), "{stdout}");
    assert!(stdout.contains(pg::SKIPPED), "{stdout}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    let required = rerun(test, &[(pg::BIN_DIR_ENV, nowhere), (pg::REQUIRE_ENV, "1")]);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&required.stdout),
        String::from_utf8_lossy(&required.stderr)
    );
    assert!(!required.status.success(), "{all}");
    assert!(all.contains(pg::SKIPPED), "{all}");
}

#[test]
fn the_cluster_stops_at_once_and_starts_again() {
    let Some(pg) = pg::alone() else { return };
    let db = pg.fresh_db();
    pg.stop_immediate();
    let (ok, out) = psql_tcp(&pg, &db, PASSWORD, "SELECT 1");
    assert!(!ok, "a stopped cluster answered: {out}");
    pg.start();
    let (ok, out) = psql_tcp(&pg, &db, PASSWORD, "SELECT 1");
    assert!(ok, "{out}");
}

/// The password as paydesk holds it.
fn password(text: &str) -> Zeroizing<String> {
    Zeroizing::new(text.to_owned())
}

async fn connect(url: &str, pw: &str) -> Result<shop::Shop, ShopError> {
    let url = ShopUrl::parse(url).expect("a valid shop URL");
    shop::connect(&url, &password(pw), shop::CONNECT_TIMEOUT).await
}

/// `sslmode=MODE&sslrootcert=FILE`.
fn verifying(mode: &str, root: &std::path::Path) -> String {
    format!("sslmode={mode}&sslrootcert={}", root.display())
}

#[tokio::test]
async fn verify_full_connects_encrypted_with_the_right_root_and_host() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let url = pg.url("localhost", &db, &verifying("verify-full", &pg.ca_pem));
    let shop = connect(&url, PASSWORD).await.expect("verify-full connects");
    assert!(shop.is_encrypted().await.expect("a query runs"));
    let who: String = shop
        .client()
        .query_one("SELECT current_user::text", &[])
        .await
        .expect("a query runs")
        .get(0);
    assert_eq!(who, ROLE);
}

#[tokio::test]
async fn verify_full_refuses_a_server_signed_by_another_root() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &verifying("verify-full", &pg.other_ca_pem),
    );
    let e = connect(&url, PASSWORD).await.expect_err("the wrong root");
    assert!(matches!(e, ShopError::Certificate { .. }), "{e:?}");
    assert!(e.is_refusal());
    let sentence = e.sentence(Lang::En);
    assert!(sentence.contains("certificate was refused"), "{sentence}");
    let verify_ca = pg.url("127.0.0.1", &db, &verifying("verify-ca", &pg.other_ca_pem));
    let e = connect(&verify_ca, PASSWORD)
        .await
        .expect_err("the wrong root");
    assert!(matches!(e, ShopError::Certificate { .. }), "{e:?}");
}

#[tokio::test]
async fn verify_full_refuses_a_host_name_the_certificate_does_not_name_and_verify_ca_accepts_it() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    // The certificate names `localhost`, not 127.0.0.1.
    let full = pg.url("127.0.0.1", &db, &verifying("verify-full", &pg.ca_pem));
    let e = connect(&full, PASSWORD)
        .await
        .expect_err("a host-name mismatch");
    match &e {
        ShopError::Certificate { reason } => {
            assert!(reason.contains("not valid for name"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let chain_only = pg.url("127.0.0.1", &db, &verifying("verify-ca", &pg.ca_pem));
    let shop = connect(&chain_only, PASSWORD)
        .await
        .expect("verify-ca checks the chain only");
    assert!(shop.is_encrypted().await.expect("a query runs"));
}

#[tokio::test]
async fn require_encrypts_without_checking_and_the_socket_is_plain() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let shop = connect(&pg.url("127.0.0.1", &db, "sslmode=require"), PASSWORD)
        .await
        .expect("require connects");
    assert!(shop.is_encrypted().await.expect("a query runs"));
    let socket = format!(
        "postgres://{ROLE}@/{db}?host={}&port={}",
        pg.socket_dir().display(),
        pg.port()
    );
    let shop = connect(&socket, PASSWORD)
        .await
        .expect("the socket connects");
    assert!(!shop.url().plain_off_machine());
    assert!(!shop.is_encrypted().await.expect("a query runs"));
}

#[tokio::test]
async fn a_wrong_password_and_an_unreachable_port_each_get_their_sentence() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let url = pg.url("localhost", &db, &verifying("verify-full", &pg.ca_pem));
    let e = connect(&url, "not the password")
        .await
        .expect_err("a wrong password");
    assert!(matches!(e, ShopError::WrongPassword { .. }), "{e:?}");
    assert_eq!(
        e.sentence(Lang::En),
        "PostgreSQL refused the password for the user desk."
    );
    assert!(e.sentence(Lang::Tr).contains("parolasını kabul etmedi"));
    let closed = crate::support::ports::free_port();
    let url = format!("postgres://{ROLE}@127.0.0.1:{closed}/{db}?sslmode=require");
    let e = connect(&url, PASSWORD).await.expect_err("nobody listens");
    assert!(e.is_no_answer(), "{e:?}");
    let sentence = e.sentence(Lang::En);
    assert!(
        sentence.starts_with(&format!(
            "The shop's PostgreSQL at 127.0.0.1:{closed} cannot be reached"
        )),
        "{sentence}"
    );
}

#[tokio::test]
async fn a_server_that_asks_for_the_password_in_plain_text_never_gets_it_unless_the_url_allows() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db_of(PLAIN_ROLE);
    let strict = pg.url_as(
        PLAIN_ROLE,
        "localhost",
        &db,
        &verifying("verify-full", &pg.ca_pem),
    );
    // Under TLS the default is channel binding: the server's plain-text request is refused
    // before the password leaves, so a wrong one is not even reported by the server.
    let failed = format!("password authentication failed for user \"{PLAIN_ROLE}\"");
    assert!(!pg.log_text().contains(&failed));
    let e = connect(&strict, "a wrong password")
        .await
        .expect_err("no channel binding");
    assert!(matches!(e, ShopError::NoChannelBinding), "{e:?}");
    assert!(e.is_refusal());
    assert!(
        e.sentence(Lang::En).contains("channel_binding=prefer"),
        "{e}"
    );
    assert!(e.sentence(Lang::Tr).contains("parola gönderilmedi"), "{e}");
    let e = connect(&strict, PASSWORD)
        .await
        .expect_err("no channel binding");
    assert!(matches!(e, ShopError::NoChannelBinding), "{e:?}");
    assert!(
        !pg.log_text().contains(&failed),
        "the server saw a password"
    );

    // The URL that accepts the risk connects, and says what it gave up.
    let loose = format!("{strict}&channel_binding=prefer");
    let shop = connect(&loose, PASSWORD).await.expect("prefer connects");
    assert!(shop.is_encrypted().await.expect("a query runs"));
    assert_eq!(shop.url().weaknesses(), [Weakness::NoChannelBinding]);
    // And there the server does get the password: the same wrong one is now reported.
    connect(&loose, "a wrong password")
        .await
        .expect_err("a wrong password");
    assert!(pg.log_text().contains(&failed), "{}", pg.log_text());
}

/// A session as the shop's owner over verified TLS, to a database with no shop yet: the tests
/// here migrate it themselves, as `shop init` does.
async fn fresh_shop(pg: &Pg) -> shop::Shop {
    let db = pg.empty_db();
    let shop = connect(&pg.owner_url(&db), PASSWORD)
        .await
        .expect("the shop connects");
    // The owner works on the tables, as `shop init` does, not on the desks' views.
    shop.client()
        .batch_execute("SET search_path = public")
        .await
        .expect("the path is set");
    shop
}

/// What a refused migration must leave as it was: every relation and function of the
/// database with its definition's row version, and the version row's value and row version.
async fn snapshot(c: &tokio_postgres::Client) -> Vec<String> {
    let mut rows: Vec<String> = c
        .query(
            "SELECT relname || ':' || relkind::text || ':' || xmin::text FROM pg_class
             WHERE relnamespace = 'public'::regnamespace
             UNION ALL
             SELECT proname || ':f:' || xmin::text FROM pg_proc
             WHERE pronamespace = 'public'::regnamespace
             UNION ALL
             SELECT 'version=' || version || ':' || xmin::text FROM paydesk_schema",
            &[],
        )
        .await
        .expect("the catalog is read")
        .iter()
        .map(|r| r.get(0))
        .collect();
    rows.sort();
    rows
}

#[tokio::test]
async fn the_schema_is_created_once_and_a_second_migration_finds_it_done() {
    let Some(pg) = pg::cluster() else { return };
    let mut shop = fresh_shop(&pg).await;
    let url = shop.url().clone();
    let first = schema::migrate(shop.client_mut(), &url)
        .await
        .expect("migrates");
    assert_eq!(
        first,
        schema::Migrated {
            from: 0,
            to: schema::latest_version()
        }
    );
    let before = snapshot(shop.client()).await;
    for table in [
        "desks",
        "links",
        "link_items",
        "outbox_acks",
        "paydesk_schema",
    ] {
        assert!(
            before.iter().any(|r| r.starts_with(&format!("{table}:r:"))),
            "{table}: {before:?}"
        );
    }
    let again = schema::migrate(shop.client_mut(), &url)
        .await
        .expect("migrates");
    let latest = schema::latest_version();
    assert_eq!(
        again,
        schema::Migrated {
            from: latest,
            to: latest
        }
    );
    assert_eq!(snapshot(shop.client()).await, before);
    assert_eq!(
        schema::version(shop.client(), &url).await.expect("reads"),
        latest
    );
}

#[tokio::test]
async fn owners_migrating_at_once_take_turns_under_the_advisory_lock() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.empty_db();
    let url = pg.owner_url(&db);
    let mut desks = Vec::new();
    for _ in 0..4 {
        desks.push(connect(&url, PASSWORD).await.expect("connects"));
    }
    let parsed = ShopUrl::parse(&url).expect("a URL");
    let runs = desks
        .iter_mut()
        .map(|d| schema::migrate(d.client_mut(), &parsed));
    let results = futures_join_all(runs).await;
    let froms: Vec<i32> = results
        .into_iter()
        .map(|r| r.expect("every run migrates").from)
        .collect();
    // One run created the schema; the others found it done.
    assert_eq!(froms.iter().filter(|f| **f == 0).count(), 1, "{froms:?}");
    let latest = schema::latest_version();
    assert_eq!(
        froms.iter().filter(|f| **f == latest).count(),
        3,
        "{froms:?}"
    );
}

/// Runs the futures at once on this task and gives their results in order.
async fn futures_join_all<F: std::future::Future>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output> {
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    let mut out: Vec<Option<F::Output>> = set.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in set.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter()
        .map(|o| o.expect("every future finished"))
        .collect()
}

#[tokio::test]
async fn a_schema_newer_than_this_paydesk_is_refused_and_nothing_is_touched() {
    let Some(pg) = pg::cluster() else { return };
    let mut shop = fresh_shop(&pg).await;
    let url = shop.url().clone();
    schema::migrate(shop.client_mut(), &url)
        .await
        .expect("migrates");
    let newer = schema::latest_version() + 1;
    pg.admin_sql(
        url.dbname(),
        &format!("UPDATE paydesk_schema SET version = {newer}"),
    );
    let before = snapshot(shop.client()).await;
    let e = schema::migrate(shop.client_mut(), &url)
        .await
        .expect_err("a newer schema");
    assert!(
        matches!(e, ShopError::SchemaTooNew { found, known } if found == newer && known == newer - 1),
        "{e:?}"
    );
    assert_eq!(
        e.sentence(Lang::En),
        format!(
            "The shop's database has schema version {newer}, newer than this paydesk knows ({}). \
             Nothing was touched: update paydesk on this desk.",
            newer - 1
        )
    );
    assert_eq!(snapshot(shop.client()).await, before, "nothing changed");
    // The lock was let go with the rolled-back transaction: another session can take it.
    let free: bool = shop
        .client()
        .query_one(
            "SELECT pg_try_advisory_lock($1)",
            &[&schema::MIGRATION_LOCK],
        )
        .await
        .expect("a query runs")
        .get(0);
    assert!(free);
}

/// One observation of the link `L1` pushed by desk `D1`: rows changed (0 or 1).
async fn observe(
    c: &tokio_postgres::Client,
    status: &str,
    paid: &str,
    staff: Option<&str>,
    cancelled: Option<chrono::DateTime<chrono::Utc>>,
    observed_at: chrono::DateTime<chrono::Utc>,
) -> u64 {
    let amount = rust_decimal::Decimal::from_str_exact("100.00").expect("an amount");
    let paid = rust_decimal::Decimal::from_str_exact(paid).expect("an amount");
    let stored = chrono::DateTime::parse_from_rfc3339("2026-11-26T09:00:00Z")
        .expect("a time")
        .to_utc();
    let answer = format!(r#"{{"id":"L1","status":"{status}","paidAmount":{paid}}}"#);
    let changed: bool = c
        .query_one(
            schema::PUSH_LINK,
            &[
                &"D1",
                &"https://api.example",
                &"key-1",
                &"",
                &"L1",
                &"D1",
                &staff,
                &"PD-20261126-D10001",
                &status,
                &"TRY",
                &amount,
                &paid,
                &cancelled,
                &stored,
                &observed_at,
                &answer,
            ],
        )
        .await
        .expect("the upsert runs")
        .get(0);
    u64::from(changed)
}

#[tokio::test]
async fn a_replayed_or_out_of_order_push_changes_nothing_and_a_status_never_goes_back() {
    let Some(pg) = pg::cluster() else { return };
    let mut shop = fresh_shop(&pg).await;
    let url = shop.url().clone();
    schema::migrate(shop.client_mut(), &url)
        .await
        .expect("migrates");
    let c = shop.client();
    c.execute(
        "INSERT INTO desks (desk_id, name, joined_at, seen_at) VALUES ('D1', 'Counter 1', now(), now())",
        &[],
    )
    .await
    .expect("a desk");
    let at = |s: &str| {
        chrono::DateTime::parse_from_rfc3339(&format!("2026-11-26T{s}Z"))
            .expect("a time")
            .to_utc()
    };
    let state = || async {
        let r = c
            .query_one(
                "SELECT status, paid_amount::text, coalesce(staff, ''), cancelled_at IS NOT NULL,
                        answer->>'status', xmin::text
                 FROM links WHERE link_id = 'L1'",
                &[],
            )
            .await
            .expect("the link");
        (
            r.get::<_, String>(0),
            r.get::<_, String>(1),
            r.get::<_, String>(2),
            r.get::<_, bool>(3),
            r.get::<_, String>(4),
            r.get::<_, String>(5),
        )
    };
    assert_eq!(
        observe(c, "PENDING", "0", None, None, at("09:00:00")).await,
        1
    );
    let first = state().await;
    // A replay: not even a new row version.
    assert_eq!(
        observe(c, "PENDING", "0", None, None, at("09:00:00")).await,
        0
    );
    assert_eq!(state().await, first);
    // A partial payment is newer by paid amount, whatever the clock says.
    assert_eq!(
        observe(c, "PENDING", "40.00", None, None, at("08:00:00")).await,
        1
    );
    assert_eq!(state().await.1, "40.00");
    // An older observation arriving late (less paid) changes nothing.
    assert_eq!(
        observe(c, "PENDING", "0", None, None, at("10:00:00")).await,
        0
    );
    assert_eq!(state().await.1, "40.00");
    // Paid in full.
    assert_eq!(
        observe(c, "COMPLETED", "100.00", None, None, at("09:30:00")).await,
        1
    );
    let paid = state().await;
    assert_eq!(
        (paid.0.as_str(), paid.1.as_str(), paid.4.as_str()),
        ("COMPLETED", "100.00", "COMPLETED")
    );
    // The status never goes back: not to PENDING, not to EXPIRED (a lower rank), even with
    // a later clock and as much paid.
    for (status, amount) in [
        ("PENDING", "100.00"),
        ("EXPIRED", "100.00"),
        ("PENDING", "40.00"),
    ] {
        assert_eq!(
            observe(c, status, amount, None, None, at("23:00:00")).await,
            0,
            "{status}"
        );
    }
    assert_eq!(state().await, paid);
    // The marks are set once: the member who began it, the first cancel.
    assert_eq!(
        observe(c, "PENDING", "0", Some("Ayşe"), None, at("09:00:00")).await,
        1
    );
    assert_eq!(
        observe(
            c,
            "PENDING",
            "0",
            Some("Berk"),
            Some(at("11:00:00")),
            at("09:00:00")
        )
        .await,
        1
    );
    let marked = state().await;
    assert_eq!(
        (marked.0.as_str(), marked.2.as_str(), marked.3),
        ("COMPLETED", "Ayşe", true)
    );
    assert_eq!(
        observe(
            c,
            "PENDING",
            "0",
            Some("Berk"),
            Some(at("12:00:00")),
            at("09:00:00")
        )
        .await,
        0
    );
    assert_eq!(state().await, marked);
}

/// A data folder's store that has joined the shop at `url`, registered there as `desk`.
async fn joined_store(
    dir: &std::path::Path,
    shop: &shop::Shop,
) -> (std::sync::Mutex<Store>, String) {
    let mut store = Store::open(dir).expect("the store opens");
    store
        .join_shop(&shop.url().to_string(), crate::support::time::t_stored())
        .expect("joined");
    let id = store.profiles().device_id().expect("a device id");
    let identity = shop::desk::DeskIdentity {
        id: id.clone(),
        name: "Counter 1".to_owned(),
        named: true,
    };
    shop::desk::register(shop, &identity)
        .await
        .expect("the desk is registered");
    (std::sync::Mutex::new(store), id)
}

#[tokio::test]
async fn the_outbox_reaches_the_shop_in_batches_and_a_resent_batch_changes_nothing() {
    let Some(pg) = pg::cluster() else { return };
    let mut shop = fresh_shop(&pg).await;
    let url = shop.url().clone();
    schema::migrate(shop.client_mut(), &url)
        .await
        .expect("migrates");
    let dir = tempfile::tempdir().expect("a temp dir");
    let (store, desk_id) = joined_store(dir.path(), &shop).await;
    let now = crate::support::time::t_stored();
    let profile = paydesk::store::SANDBOX_PROFILE;
    let n = shop::push::BATCH + 20;
    {
        let mut s = store.lock().expect("the store");
        for i in 0..n {
            s.upsert_link(
                profile,
                &crate::support::links::pending_link(&format!("L{i}"), None),
                now,
            )
            .expect("stored");
        }
        // A refresh of L0: paid in full, a second row of the outbox.
        let mut paid = crate::support::links::pending_link("L0", None);
        paid.status = Some(paydesk::domain::LinkStatus::Completed);
        paid.paid_amount = paid.amount;
        s.upsert_link(profile, &paid, now).expect("stored");
        assert_eq!(s.outbox().count().expect("counted"), n as u64 + 1);
    }
    // A desk killed after the shop committed its first batch and before deleting it locally:
    // the batch is sent again and changes nothing.
    let first = store
        .lock()
        .expect("the store")
        .outbox()
        .batch(shop::push::BATCH)
        .expect("a batch");
    let changed = shop::push::apply_batch(&mut shop, &desk_id, &first)
        .await
        .expect("applied");
    assert_eq!(changed, shop::push::BATCH as u64);
    let xmins = pg.admin_sql(
        url.dbname(),
        "SELECT string_agg(xmin::text, ',' ORDER BY link_id) FROM links",
    );
    let again = shop::push::apply_batch(&mut shop, &desk_id, &first)
        .await
        .expect("applied again");
    assert_eq!(again, 0, "a replayed batch changes nothing");
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            "SELECT string_agg(xmin::text, ',' ORDER BY link_id) FROM links"
        ),
        xmins,
        "not even a new row version"
    );
    let pushed = shop::push::push(&mut shop, &store, || now)
        .await
        .expect("pushed");
    assert_eq!(pushed.batches, 2);
    assert_eq!(pushed.rows, n as u64 + 1);
    // The resent first batch changes nothing; the rest and the refresh do.
    assert_eq!(pushed.changed, 20 + 1);
    {
        let s = store.lock().expect("the store");
        assert_eq!(s.outbox().count().expect("counted"), 0);
        assert_eq!(s.shop().desk().expect("the row").last_push_at, Some(now));
    }
    assert_eq!(
        pg.admin_sql(url.dbname(), "SELECT count(*) FROM links"),
        n.to_string()
    );
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            &format!(
                "SELECT status || ' ' || paid_amount || ' ' || (sandbox_desk = '{desk_id}') \
                 || ' ' || desk_id FROM links WHERE link_id = 'L0'"
            )
        ),
        format!("COMPLETED 1234.50 true {desk_id}")
    );
    assert_eq!(
        pg.admin_sql(
            url.dbname(),
            &format!("SELECT acked_seq FROM outbox_acks WHERE desk_id = '{desk_id}'")
        ),
        (n + 1).to_string()
    );
    let nothing = shop::push::push(&mut shop, &store, || now)
        .await
        .expect("pushed");
    assert_eq!(nothing, shop::push::Pushed::default());
}

#[test]
fn a_desk_that_has_not_joined_writes_no_outbox() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut store = Store::open(dir.path()).expect("the store opens");
    let now = crate::support::time::t_stored();
    let profile = paydesk::store::SANDBOX_PROFILE;
    store
        .upsert_link(
            profile,
            &crate::support::links::pending_link("L1", None),
            now,
        )
        .expect("stored");
    assert_eq!(store.outbox().count().expect("counted"), 0);
    store
        .join_shop("postgres://desk@localhost:5432/shop?sslmode=prefer", now)
        .expect("joined");
    store
        .record_cancel(
            profile,
            &crate::support::links::pending_link("L1", None),
            now,
        )
        .expect("cancelled");
    // Joining brought the link along; its cancel follows it.
    let rows = store.outbox().batch(10).expect("the outbox");
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r.link.link_id == "L1"));
    assert_eq!(rows[0].link.cancelled_at, None);
    assert_eq!(rows[1].link.cancelled_at, Some(now));
}
