//! The shop's PostgreSQL, for real: the private cluster of `tests/support/pg.rs` (Debian's
//! `postgresql` package; skipped with a sentence naming it when it is not installed, a failure
//! under `PAYDESK_REQUIRE_POSTGRES=1`).

mod support;

use std::process::Command;

use paydesk::lang::Lang;
use paydesk::shop::{self, ShopError, ShopUrl};
use support::pg::{self, PASSWORD, Pg, ROLE};
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
    let method = pg.admin_sql(
        "postgres",
        "SELECT DISTINCT auth_method FROM pg_hba_file_rules WHERE type = 'host'",
    );
    assert_eq!(method, "scram-sha-256");
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
    let test = "the_private_cluster_asks_tcp_clients_for_the_password_over_tls";
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
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a port")
        .port();
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
