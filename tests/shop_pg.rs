//! The shop's PostgreSQL, for real: the private cluster of `tests/support/pg.rs` (Debian's
//! `postgresql` package; skipped with a sentence naming it when it is not installed, a failure
//! under `PAYDESK_REQUIRE_POSTGRES=1`).

mod support;

use std::process::Command;

use support::pg::{self, PASSWORD, Pg, ROLE};

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
