//! A private PostgreSQL cluster for the shop tests: Debian's `postgresql` binaries, one cluster
//! per test binary, started at first use and stopped when the binary ends.
//!
//! - `initdb` in a temporary folder (owned by `postgres` and run through `runuser -u postgres
//!   --` when the tests run as root, as they do in CI: PostgreSQL refuses to run as root);
//! - its own loopback port and socket folder (`-k`), so the package's `main` cluster, if any,
//!   is never touched;
//! - TLS on (`ssl=on`) with a throw-away CA and a server certificate for `localhost` made here
//!   with `rcgen`, plus a second CA that signed nothing (the "wrong root");
//! - the role [`ROLE`] with the password [`PASSWORD`], authenticated by SCRAM-SHA-256 on every
//!   TCP line of `pg_hba.conf`, so password handling is really tested; the Unix socket trusts
//!   the superuser `postgres` (what [`Pg::admin_sql`] uses to set tests up); and the role
//!   [`PLAIN_ROLE`], whose lines ask for the password in plain text, as a weak server would;
//!
//! Tests share the cluster ([`cluster`]); one that stops it takes it [`alone`] (`pg_ctl stop -m
//! immediate`, then [`Pg::start`]).
//!
//! Without the binaries, [`cluster`] prints [`SKIPPED`] and returns `None` (each test then
//! returns), unless `PAYDESK_REQUIRE_POSTGRES=1` (`.ci/test` sets it), where it panics with the
//! same sentence. Nothing is downloaded.
//!
//! The cluster is stopped (`pg_ctl stop -m immediate`) and its folder removed by an `atexit`
//! handler: statics are never dropped, and the test harness ends the process through `exit`
//! whether the tests passed or not.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::ports::free_port;

/// Where Debian's `postgresql` package puts its binaries.
pub const BIN_DIR: &str = "/usr/lib/postgresql/15/bin";

/// Names another folder for the binaries; the skip test points it at a folder without them.
pub const BIN_DIR_ENV: &str = "PAYDESK_PG_BIN_DIR";

/// The folder of the binaries: [`BIN_DIR_ENV`] when set, else [`BIN_DIR`].
pub fn bin_dir() -> PathBuf {
    std::env::var_os(BIN_DIR_ENV).map_or_else(|| PathBuf::from(BIN_DIR), PathBuf::from)
}

/// What a shop test prints when PostgreSQL is not installed.
pub const SKIPPED: &str = "skipped: PostgreSQL not installed (apt-get install postgresql)";

/// Set to `1` to turn a skip into a failure (CI).
pub const REQUIRE_ENV: &str = "PAYDESK_REQUIRE_POSTGRES";

/// The password-authenticated role the desks connect as.
pub const ROLE: &str = "desk";

/// Its password: URL-special characters and a space, so a password that leaked into a URL or
/// was cut at the first space would not authenticate.
pub const PASSWORD: &str = "pw with:@/?# and spaces";

/// The login that owns each test database and sets its shop up (`shop init`), with
/// [`PASSWORD`]: it may create roles and is not a superuser, as a managed PostgreSQL's admin
/// login.
pub const OWNER: &str = "shop_owner";

/// A role (with [`PASSWORD`]) whose `pg_hba.conf` lines ask for the password in plain text
/// (the `password` method), as a careless or hostile server would: channel binding cannot
/// happen with it.
pub const PLAIN_ROLE: &str = "desk_plain";

/// The running cluster.
#[derive(Debug)]
pub struct Pg {
    root: PathBuf,
    data: PathBuf,
    socket_dir: PathBuf,
    log: PathBuf,
    port: u16,
    as_postgres: bool,
    /// The CA that signed the server's certificate (PEM).
    pub ca_pem: PathBuf,
    /// A CA that signed nothing here (PEM): the wrong root.
    pub other_ca_pem: PathBuf,
}

static CLUSTER: OnceLock<Option<Pg>> = OnceLock::new();
static NEXT_DB: AtomicU32 = AtomicU32::new(1);

/// Tests that stop the cluster ([`alone`]) wait for every other test to let it go, and the
/// others wait for them.
static IN_USE: RwLock<()> = RwLock::new(());

/// The binary's cluster, started at the first call, held up for the caller's test while the
/// value lives; `None` after printing [`SKIPPED`] when PostgreSQL is not installed (a panic
/// instead when [`REQUIRE_ENV`] is `1`).
pub fn cluster() -> Option<Held> {
    let pg = started()?;
    let guard = IN_USE.read().unwrap_or_else(PoisonError::into_inner);
    Some(Held {
        pg,
        _guard: Guard::Shared(guard),
    })
}

/// The cluster for a test that stops and starts it: no other test of the binary uses it
/// meanwhile.
pub fn alone() -> Option<Held> {
    let pg = started()?;
    let guard = IN_USE.write().unwrap_or_else(PoisonError::into_inner);
    Some(Held {
        pg,
        _guard: Guard::Alone(guard),
    })
}

fn started() -> Option<&'static Pg> {
    let pg = CLUSTER.get_or_init(|| {
        if !installed() {
            return None;
        }
        let pg = Pg::start_new();
        register_stop_at_exit();
        Some(pg)
    });
    if pg.is_none() {
        assert!(
            std::env::var(REQUIRE_ENV).as_deref() != Ok("1"),
            "{SKIPPED}"
        );
        println!("{SKIPPED}");
    }
    pg.as_ref()
}

/// The cluster, held for one test.
#[derive(Debug)]
pub struct Held {
    pg: &'static Pg,
    _guard: Guard,
}

#[derive(Debug)]
enum Guard {
    Shared(RwLockReadGuard<'static, ()>),
    Alone(RwLockWriteGuard<'static, ()>),
}

impl std::ops::Deref for Held {
    type Target = Pg;
    fn deref(&self) -> &Pg {
        self.pg
    }
}

/// Whether the binaries a cluster needs are there.
pub fn installed() -> bool {
    ["initdb", "pg_ctl", "postgres", "psql"]
        .iter()
        .all(|b| bin_dir().join(b).is_file())
}

fn running_as_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("`id` runs");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// `postgres`'s uid and gid.
fn postgres_ids() -> (u32, u32) {
    let id = |flag: &str| -> u32 {
        let out = Command::new("id")
            .args([flag, "postgres"])
            .output()
            .expect("`id` runs");
        assert!(
            out.status.success(),
            "running as root needs the `postgres` user (the postgresql package makes it)"
        );
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a numeric id")
    };
    (id("-u"), id("-g"))
}

fn check(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Pg {
    fn start_new() -> Pg {
        let as_postgres = running_as_root();
        let tmp = tempfile::Builder::new()
            .prefix("paydesk-pg-")
            .tempdir()
            .expect("a temp dir");
        // Kept until the atexit handler removes it.
        let root = tmp.keep();
        let socket_dir = root.join("sock");
        let tls_dir = root.join("tls");
        std::fs::create_dir(&socket_dir).expect("the socket folder");
        std::fs::create_dir(&tls_dir).expect("the TLS folder");
        let port = free_port();
        let pg = Pg {
            data: root.join("data"),
            log: root.join("postgres.log"),
            ca_pem: tls_dir.join("ca.pem"),
            other_ca_pem: tls_dir.join("other-ca.pem"),
            root,
            socket_dir,
            port,
            as_postgres,
        };
        let (server_cert, server_key) = pg.write_certificates(&tls_dir);
        let pwfile = pg.root.join("pwfile");
        std::fs::write(&pwfile, format!("{PASSWORD}\n")).expect("the password file");
        if as_postgres {
            let (uid, gid) = postgres_ids();
            for p in [
                &pg.root,
                &pg.socket_dir,
                &tls_dir,
                &server_cert,
                &server_key,
                &pwfile,
            ] {
                std::os::unix::fs::chown(p, Some(uid), Some(gid)).expect("chown to postgres");
            }
        }
        let out = pg
            .tool("initdb")
            .arg("-D")
            .arg(&pg.data)
            .args([
                "-U",
                "postgres",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync",
            ])
            .arg(format!("--pwfile={}", pwfile.display()))
            .output()
            .expect("initdb runs");
        check("initdb", &out);
        let mut conf = std::fs::OpenOptions::new()
            .append(true)
            .open(pg.data.join("postgresql.conf"))
            .expect("postgresql.conf");
        write!(
            conf,
            "\n# paydesk's test cluster\nport = {port}\nlisten_addresses = '127.0.0.1'\n\
             unix_socket_directories = '{}'\nssl = on\nssl_cert_file = '{}'\n\
             ssl_key_file = '{}'\nfsync = off\nmax_connections = 60\nshared_buffers = 16MB\n",
            pg.socket_dir.display(),
            server_cert.display(),
            server_key.display()
        )
        .expect("postgresql.conf is written");
        drop(conf);
        // PLAIN_ROLE's lines come first: pg_hba.conf's first matching line decides.
        let hba = pg.data.join("pg_hba.conf");
        let rest = std::fs::read_to_string(&hba).expect("pg_hba.conf");
        std::fs::write(
            &hba,
            format!(
                "host all {PLAIN_ROLE} 127.0.0.1/32 password\nhost all {PLAIN_ROLE} ::1/128 password\n{rest}"
            ),
        )
        .expect("pg_hba.conf is written");
        pg.start();
        for (role, may) in [(ROLE, ""), (PLAIN_ROLE, ""), (OWNER, " CREATEROLE")] {
            pg.admin_sql(
                "postgres",
                &format!(
                    "CREATE ROLE {role} LOGIN{may} PASSWORD '{}'",
                    PASSWORD.replace('\'', "''")
                ),
            );
        }
        pg
    }

    /// The CA, the other CA, and the server's certificate and key (for `localhost` only, so a
    /// connection to 127.0.0.1 is a host-name mismatch).
    fn write_certificates(&self, dir: &Path) -> (PathBuf, PathBuf) {
        use rcgen::{
            BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
            IsCa, KeyPair, KeyUsagePurpose,
        };
        let ca = |name: &str| {
            let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
            params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            params.distinguished_name.push(DnType::CommonName, name);
            params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
            CertifiedIssuer::self_signed(params, KeyPair::generate().expect("a key")).expect("a CA")
        };
        let shop_ca = ca("paydesk test CA");
        let other_ca = ca("paydesk other CA");
        let mut params =
            CertificateParams::new(vec!["localhost".to_owned()]).expect("server params");
        params
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        let key = KeyPair::generate().expect("a key");
        let cert = params.signed_by(&key, &shop_ca).expect("the server cert");
        std::fs::write(&self.ca_pem, shop_ca.pem()).expect("ca.pem");
        std::fs::write(&self.other_ca_pem, other_ca.pem()).expect("other-ca.pem");
        let cert_path = dir.join("server.crt");
        let key_path = dir.join("server.key");
        std::fs::write(&cert_path, cert.pem()).expect("server.crt");
        std::fs::write(&key_path, key.serialize_pem()).expect("server.key");
        // PostgreSQL refuses a key others can read.
        std::fs::set_permissions(
            &key_path,
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .expect("chmod server.key");
        (cert_path, key_path)
    }

    /// A command for one of the cluster's binaries, as `postgres` when the tests run as root.
    fn tool(&self, name: &str) -> Command {
        let bin = bin_dir().join(name);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(bin);
            c
        } else {
            Command::new(bin)
        }
    }

    /// Starts the (stopped) cluster and waits until it accepts connections.
    pub fn start(&self) {
        let out = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(&self.log)
            .args(["-w", "-t", "60", "start"])
            .output()
            .expect("pg_ctl runs");
        if !out.status.success() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            check(&format!("pg_ctl start (log: {log})"), &out);
        }
    }

    /// Stops the cluster at once, as a crash would (`pg_ctl stop -m immediate`): no
    /// checkpoint, every connection cut.
    pub fn stop_immediate(&self) {
        let out = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .output()
            .expect("pg_ctl runs");
        check("pg_ctl stop", &out);
    }

    /// The loopback TCP port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The folder holding the Unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.socket_dir
    }

    /// Runs `sql` as the superuser over the Unix socket in database `db` and returns psql's
    /// unaligned output (one row a line, columns split by `|`).
    pub fn admin_sql(&self, db: &str, sql: &str) -> String {
        let out = Command::new(bin_dir().join("psql"))
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h"])
            .arg(&self.socket_dir)
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                "-d",
                db,
                "-c",
                sql,
            ])
            .env_remove("PGPASSWORD")
            .output()
            .expect("psql runs");
        check(&format!("psql {sql}"), &out);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// A new shop for one test: a database owned by [`OWNER`], set up by its `shop init`, with
    /// [`ROLE`] a member of its desks' role, as a login that `shop add-desk` made is (tests of
    /// several desks on one login share it: the shop does not bind a login to one desk yet).
    pub fn fresh_db(&self) -> String {
        let db = self.empty_db();
        self.init_shop(&db);
        self.admin_sql("postgres", &format!("GRANT \"{db}_desks\" TO {ROLE}"));
        db
    }

    /// A new database owned by [`OWNER`], with no shop in it yet.
    pub fn empty_db(&self) -> String {
        self.fresh_db_of(OWNER)
    }

    /// The URL of database `db` as its owner, over TLS checked in full.
    pub fn owner_url(&self, db: &str) -> String {
        self.url_as(OWNER, "localhost", db, &self.verify_full())
    }

    /// `sslmode=verify-full&sslrootcert=…` with this cluster's CA.
    pub fn verify_full(&self) -> String {
        format!("sslmode=verify-full&sslrootcert={}", self.ca_pem.display())
    }

    /// Runs `shop init` (the library's) as [`OWNER`] on database `db`, on a thread of its own
    /// (a caller may be inside a tokio runtime already).
    pub fn init_shop(&self, db: &str) {
        let url = paydesk::shop::ShopUrl::parse(&self.owner_url(db)).expect("the owner's URL");
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime")
                .block_on(paydesk::shop::owner::init(
                    &url,
                    &zeroize::Zeroizing::new(PASSWORD.to_owned()),
                ))
                .expect("shop init")
        })
        .join()
        .expect("the init thread");
    }

    /// A new empty database owned by `owner`, for one test.
    pub fn fresh_db_of(&self, owner: &str) -> String {
        let name = format!("shop{}", NEXT_DB.fetch_add(1, Ordering::SeqCst));
        self.admin_sql("postgres", &format!("CREATE DATABASE {name} OWNER {owner}"));
        name
    }

    /// A superuser's session on database `db` over the socket, its connection driven on
    /// the current runtime (a test's hand past every grant, or a bench's floor).
    pub async fn superuser(&self, db: &str) -> tokio_postgres::Client {
        let (client, connection) = tokio_postgres::Config::new()
            .host_path(self.socket_dir())
            .port(self.port())
            .user("postgres")
            .dbname(db)
            .connect(tokio_postgres::NoTls)
            .await
            .expect("the superuser connects");
        tokio::spawn(connection);
        client
    }

    /// Makes link `link_id` of database `db` a payment desk `desk_id` claims and nobody
    /// confirmed (as a push of a desk's hand-edited file leaves it in the shop).
    pub fn claim_paid(&self, db: &str, link_id: &str, desk_id: &str) {
        self.admin_sql(
            db,
            &format!(
                "UPDATE links SET status = 'COMPLETED', paid_amount = amount,
                     answer = jsonb_set(answer, '{{status}}', '\"COMPLETED\"'),
                     claim_desk = '{desk_id}', confirmed_status = 'PENDING', confirmed_paid = 0
                 WHERE link_id = '{link_id}'"
            ),
        );
    }

    /// What the server has written to its log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// [`Self::url`] as `user` instead of [`ROLE`].
    pub fn url_as(&self, user: &str, host: &str, db: &str, query: &str) -> String {
        let url = self.url(host, db, query);
        url.replacen(
            &format!("postgres://{ROLE}@"),
            &format!("postgres://{user}@"),
            1,
        )
    }

    /// A paydesk shop URL to database `db` over loopback TCP, as [`ROLE`]; `query` is added
    /// after `?` when not empty (`sslmode=verify-full&sslrootcert=…`).
    pub fn url(&self, host: &str, db: &str, query: &str) -> String {
        let mut url = format!("postgres://{ROLE}@{host}:{}/{db}", self.port);
        if !query.is_empty() {
            url.push('?');
            url.push_str(query);
        }
        url
    }

    /// Stops the cluster and removes its folder (the atexit handler).
    fn shut_down(&self) {
        let _ = self
            .tool("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

extern "C" fn stop_at_exit() {
    if let Some(Some(pg)) = CLUSTER.get() {
        pg.shut_down();
    }
}

#[allow(unsafe_code)]
fn register_stop_at_exit() {
    // SAFETY: `atexit` stores a plain `extern "C" fn` with no captured state; the handler
    // only reads a static that is set before the registration and never changes after.
    let rc = unsafe { libc::atexit(stop_at_exit) };
    assert_eq!(rc, 0, "atexit refused the stop handler");
}
