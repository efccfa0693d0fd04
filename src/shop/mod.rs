//! The shop: desks sharing one PostgreSQL (issue 19, docs/design.md §8). No egui here.
//!
//! - [`url`]: the shop's `postgres://` URL, the only way to connect ([`ShopUrl`]);
//! - [`tls`]: paydesk's own reading of `sslmode` (`verify-ca`, `verify-full`) over rustls;
//! - [`desk`]: joining (connect, check the schema and the login, register the desk) and the
//!   shop's state for a desk;
//! - [`owner`]: the shop's owner: `shop init`, a login per desk, removing one, listing them;
//! - [`schema`]: the PostgreSQL schema the owner creates and migrates, under a version;
//! - [`push`]: the pusher, which drains the desk's outbox to the shop in batches;
//! - [`batch`]: what the pushers share: the batch size and [`batch::PushError`];
//! - [`membership`]: joining and leaving, shared by the CLI and the app's Settings;
//! - [`session`]: the app's long-lived link (reconnects, pushes, `LISTEN`, offline since);
//! - [`lease`]: one poller per link for the whole shop, and the shop's one status budget;
//! - [`catalog`]: the shop-wide catalog, one current snapshot, and its mirror on each desk;
//! - [`staff`]: the shop-wide staff, wrong-PIN counts and the last-manager rule;
//! - [`audit`]: every desk's audit chain, pushed whole and walked from the shop;
//! - [`cards`]: saved cards, their masks only;
//! - [`messages`]: every [`ShopError`] as a sentence in Turkish and English.
//!
//! [`connect`] opens a session with tokio-postgres on the caller's tokio runtime; the
//! connection's own task is spawned there and ends with the [`Shop`].

pub mod audit;
pub mod batch;
pub mod cards;
pub mod catalog;
pub mod confirm;
pub mod desk;
pub mod lease;
pub mod membership;
pub mod messages;
pub mod outreach;
pub mod owner;
pub mod push;
pub mod read;
pub mod report;
pub mod schema;
pub mod session;
pub mod staff;
pub mod tls;
pub mod url;

use std::time::Duration;

use zeroize::Zeroizing;

pub use url::{ChannelBinding, ShopHost, ShopUrl, SslMode, UrlError, Weakness};

use crate::lang::Lang;
use messages::ShopMessage;

/// How long a connection attempt (TCP, TLS, authentication) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The environment variable of the shop's password (defined with the other secrets').
pub use crate::secrets::SHOP_PASSWORD_ENV;

/// The keyring "profile" the shop's password is kept under. Profile names cannot hold `:`, so
/// no API profile's entry can be this one.
pub const KEYRING_PROFILE: &str = "shop:";

/// Why the shop could not be used. Each is a sentence in both languages ([`Self::sentence`]).
#[derive(Debug, thiserror::Error)]
pub enum ShopError {
    /// The URL was refused.
    #[error(transparent)]
    Url(#[from] UrlError),
    /// The `sslrootcert` file cannot serve as the root.
    #[error("the CA file {path} cannot be used: {reason}")]
    RootCert {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// TLS could not be set up on this side.
    #[error("TLS could not be set up: {0}")]
    Tls(#[source] rustls::Error),
    /// No password: none in the keyring, and `PAYDESK_SHOP_PASSWORD` unset.
    #[error(
        "no password for the shop: the keyring holds none and PAYDESK_SHOP_PASSWORD is not set"
    )]
    NoPassword,
    /// The keyring failed while reading the password.
    #[error("the shop's password could not be read from the keyring: {0}")]
    Keyring(#[source] crate::secrets::SecretError),
    /// The keyring's call ended without an answer (its thread panicked or was cancelled).
    #[error("the keyring call ended without an answer: {0}")]
    Interrupted(#[source] tokio::task::JoinError),
    /// This desk's own data file failed (its id, its name) while talking to the shop.
    #[error("this desk's data file failed: {0}")]
    DataFile(#[source] crate::store::StoreError),
    /// The server could not be reached (refused, unreachable, reset).
    #[error("the shop's PostgreSQL at {target} cannot be reached: {reason}")]
    Unreachable {
        /// Host and port (or socket folder).
        target: String,
        /// The system's reason.
        reason: String,
    },
    /// No answer within [`CONNECT_TIMEOUT`].
    #[error("the shop's PostgreSQL at {target} did not answer within {seconds} s")]
    Timeout {
        /// Host and port.
        target: String,
        /// The limit.
        seconds: u64,
    },
    /// The server's certificate was refused (unknown CA, wrong name, expired).
    #[error("the shop's server certificate was refused: {reason}")]
    Certificate {
        /// rustls's reason.
        reason: String,
    },
    /// The server asked for the password some other way than SCRAM bound to the TLS channel
    /// (in plain text, as an MD5 hash, or SCRAM without binding) while the URL requires
    /// binding: refused before anything of the password was sent.
    #[error(
        "the shop's PostgreSQL did not use SCRAM with channel binding, which channel_binding=require asks for"
    )]
    NoChannelBinding,
    /// The server does not speak TLS although the URL asks for it.
    #[error("the shop's PostgreSQL does not offer TLS, which sslmode asks for")]
    NoTlsOffered,
    /// Wrong password (or unknown role: PostgreSQL does not tell which).
    #[error("PostgreSQL refused the password for user {user}")]
    WrongPassword {
        /// The role.
        user: String,
    },
    /// `pg_hba.conf` or the role refuses this connection.
    #[error("PostgreSQL refused the connection: {reason}")]
    Refused {
        /// The server's message.
        reason: String,
    },
    /// The database does not exist.
    #[error("the database {dbname} does not exist on the shop's PostgreSQL")]
    NoDatabase {
        /// The database.
        dbname: String,
    },
    /// The database holds no shop schema: the owner has not run `shop init`.
    #[error("the database {dbname} holds no paydesk shop yet; the owner runs paydesk shop init")]
    NoSchema {
        /// The database.
        dbname: String,
    },
    /// The shop's schema is older than this paydesk needs: the owner runs `shop init`.
    #[error(
        "the shop's database has schema version {found}; this paydesk needs {needed}, which the owner's paydesk shop init makes"
    )]
    SchemaOld {
        /// The shop's version.
        found: i32,
        /// This build's.
        needed: i32,
    },
    /// The login may do more than a desk's: a desk joins with the login `shop add-desk` made.
    #[error(
        "{user} is not a desk's login ({why:?}); the owner makes one with paydesk shop add-desk"
    )]
    NotADeskLogin {
        /// The login.
        user: String,
        /// What it may do that a desk must not.
        why: NotADeskWhy,
    },
    /// The login belongs to another desk: `add-desk` made it for the device of its first join.
    #[error("the login {user} belongs to another desk")]
    LoginBound {
        /// The login.
        user: String,
    },
    /// This desk's device is another desk login's (a login of its own must be used).
    #[error("this desk joined the shop with another login of its own")]
    DeviceTaken,
    /// The owner removed this desk's login (`shop remove-desk`).
    #[error("the shop's owner removed the login {user}")]
    DeskRemoved {
        /// The login.
        user: String,
    },
    /// The login cannot act as the shop's owner.
    #[error("{user} cannot set the shop up ({why:?})")]
    NotOwner {
        /// The login.
        user: String,
        /// Why not.
        why: owner::NotOwnerWhy,
    },
    /// The database's name leaves no room for the shop's role names.
    #[error("the database name {dbname} is too long for the shop's role names")]
    DatabaseNameTooLong {
        /// The database.
        dbname: String,
    },
    /// A desk's name that is empty, too long or holds control characters.
    #[error("a desk's name is 1 to 40 characters, none a control character")]
    DeskNameShape,
    /// `add-desk` with a name another desk login has.
    #[error("a desk named {name} has a login already")]
    DeskNameTaken {
        /// The name.
        name: String,
    },
    /// `remove-desk` with a name no desk login has.
    #[error("no desk login is named {name}")]
    NoSuchDesk {
        /// The name.
        name: String,
    },
    /// The shop's schema is newer than this paydesk knows: nothing was touched.
    #[error(
        "the shop's database has schema version {found}, newer than this paydesk knows ({known}); update paydesk on this desk"
    )]
    SchemaTooNew {
        /// The shop's version.
        found: i32,
        /// This build's.
        known: i32,
    },
    /// Any other answer of the server (SQLSTATE and message).
    #[error("PostgreSQL answered {code}: {message}")]
    Database {
        /// SQLSTATE.
        code: String,
        /// The server's message.
        message: String,
    },
    /// The connection broke or failed otherwise.
    #[error("the connection to the shop failed: {0}")]
    Connection(#[source] tokio_postgres::Error),
    /// The connection was closed (the session lost it meanwhile).
    #[error("the connection to the shop was closed")]
    Closed,
    /// A value in the shop this build cannot read (a damaged or foreign row).
    #[error("the shop's database holds a value this paydesk cannot read: {0}")]
    Unreadable(String),
}

impl ShopError {
    /// The error as a sentence for the user.
    pub fn sentence(&self, lang: Lang) -> String {
        use ShopMessage as M;
        match self {
            ShopError::Url(e) => url_sentence(e, lang),
            ShopError::RootCert { path, reason } => {
                M::RootCert.fill(lang, &[("path", path), ("reason", reason)])
            }
            ShopError::Tls(e) => M::Tls.fill(lang, &[("reason", e)]),
            ShopError::NoPassword => M::NoPassword.get(lang).to_owned(),
            ShopError::Keyring(e) => M::Keyring.fill(lang, &[("reason", e)]),
            ShopError::Interrupted(e) => M::Keyring.fill(lang, &[("reason", e)]),
            ShopError::DataFile(e) => M::DataFile.fill(lang, &[("reason", e)]),
            ShopError::Unreachable { target, reason } => {
                M::Unreachable.fill(lang, &[("target", target), ("reason", reason)])
            }
            ShopError::Timeout { target, seconds } => {
                M::Timeout.fill(lang, &[("target", target), ("seconds", seconds)])
            }
            ShopError::Certificate { reason } => M::Certificate.fill(lang, &[("reason", reason)]),
            ShopError::NoTlsOffered => M::NoTlsOffered.get(lang).to_owned(),
            ShopError::NoChannelBinding => M::NoChannelBinding.get(lang).to_owned(),
            ShopError::WrongPassword { user } => M::WrongPassword.fill(lang, &[("user", user)]),
            ShopError::Refused { reason } => M::Refused.fill(lang, &[("reason", reason)]),
            ShopError::NoDatabase { dbname } => M::NoDatabase.fill(lang, &[("dbname", dbname)]),
            ShopError::SchemaTooNew { found, known } => {
                M::SchemaTooNew.fill(lang, &[("found", found), ("known", known)])
            }
            ShopError::NoSchema { dbname } => M::NoSchema.fill(lang, &[("dbname", dbname)]),
            ShopError::SchemaOld { found, needed } => {
                M::SchemaOld.fill(lang, &[("found", found), ("needed", needed)])
            }
            ShopError::NotADeskLogin { user, why } => {
                let why = match why {
                    NotADeskWhy::Superuser => M::WhySuperuser,
                    NotADeskWhy::CreatesRoles => M::WhyCreatesRoles,
                    NotADeskWhy::BypassesRls => M::WhyBypassesRls,
                    NotADeskWhy::OwnsShop => M::WhyOwnsShop,
                };
                M::NotADeskLogin.fill(lang, &[("user", user), ("why", &why.get(lang))])
            }
            ShopError::DeskRemoved { user } => M::DeskRemoved.fill(lang, &[("user", user)]),
            ShopError::LoginBound { user } => M::LoginBound.fill(lang, &[("user", user)]),
            ShopError::DeviceTaken => M::DeviceTaken.get(lang).to_owned(),
            ShopError::NotOwner { user, why } => {
                let why = match why {
                    owner::NotOwnerWhy::DoesNotOwnDatabase => M::WhyNotDatabaseOwner,
                    owner::NotOwnerWhy::CannotCreateRoles => M::WhyNoCreateRole,
                };
                M::NotOwner.fill(lang, &[("user", user), ("why", &why.get(lang))])
            }
            ShopError::DatabaseNameTooLong { dbname } => {
                M::DatabaseNameTooLong.fill(lang, &[("dbname", dbname)])
            }
            ShopError::DeskNameShape => M::DeskNameShape.get(lang).to_owned(),
            ShopError::DeskNameTaken { name } => M::DeskNameTaken.fill(lang, &[("name", name)]),
            ShopError::NoSuchDesk { name } => M::NoSuchDesk.fill(lang, &[("name", name)]),
            ShopError::Database { code, message } => {
                M::Database.fill(lang, &[("code", code), ("message", message)])
            }
            ShopError::Connection(e) => M::Connection.fill(lang, &[("reason", e)]),
            ShopError::Closed => M::Closed.get(lang).to_owned(),
            ShopError::Unreadable(reason) => M::Unreadable.fill(lang, &[("reason", reason)]),
        }
    }

    /// Whether the shop did not answer at all (unreachable, timeout, a broken connection), as
    /// opposed to answering with a refusal.
    pub fn is_no_answer(&self) -> bool {
        matches!(
            self,
            ShopError::Unreachable { .. }
                | ShopError::Timeout { .. }
                | ShopError::Connection(_)
                | ShopError::Closed
        )
    }

    /// Whether the server answered and refused (password, role, database, certificate, schema).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            ShopError::WrongPassword { .. }
                | ShopError::Refused { .. }
                | ShopError::NoDatabase { .. }
                | ShopError::Certificate { .. }
                | ShopError::NoTlsOffered
                | ShopError::NoChannelBinding
                | ShopError::SchemaTooNew { .. }
                | ShopError::NoSchema { .. }
                | ShopError::SchemaOld { .. }
                | ShopError::NotADeskLogin { .. }
                | ShopError::DeskRemoved { .. }
                | ShopError::LoginBound { .. }
                | ShopError::DeviceTaken
                | ShopError::NotOwner { .. }
                | ShopError::Database { .. }
        )
    }

    /// A tokio-postgres error as one of ours. `target` names the server for sentences.
    pub fn from_pg(e: tokio_postgres::Error, url: &ShopUrl) -> ShopError {
        use tokio_postgres::error::SqlState;
        if let Some(db) = e.as_db_error() {
            let code = db.code();
            return if code.code() == schema::LOGIN_BOUND {
                ShopError::LoginBound {
                    user: url.user().to_owned(),
                }
            } else if code.code() == schema::DEVICE_TAKEN {
                ShopError::DeviceTaken
            } else if *code == SqlState::INVALID_PASSWORD {
                ShopError::WrongPassword {
                    user: url.user().to_owned(),
                }
            } else if *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION
                && db.message().contains("is not permitted to log in")
            {
                ShopError::DeskRemoved {
                    user: url.user().to_owned(),
                }
            } else if *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION {
                ShopError::Refused {
                    reason: db.message().to_owned(),
                }
            } else if *code == SqlState::INVALID_CATALOG_NAME {
                ShopError::NoDatabase {
                    dbname: url.dbname().to_owned(),
                }
            } else {
                ShopError::Database {
                    code: code.code().to_owned(),
                    message: db.message().to_owned(),
                }
            };
        }
        // The cause, with rustls's error found inside the io::Error tokio-rustls wraps it in.
        let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(&e);
        while let Some(s) = source {
            if let Some(tls) = s.downcast_ref::<rustls::Error>() {
                return ShopError::Certificate {
                    reason: tls.to_string(),
                };
            }
            if let Some(io) = s.downcast_ref::<std::io::Error>() {
                if let Some(tls) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                    return ShopError::Certificate {
                        reason: tls.to_string(),
                    };
                }
                return ShopError::Unreachable {
                    target: target(url),
                    reason: io.to_string(),
                };
            }
            let said = s.to_string();
            if said.contains("does not support TLS") {
                return ShopError::NoTlsOffered;
            }
            // tokio-postgres's words when the server's way of asking for the password would
            // skip the binding that `channel_binding=require` asks for.
            if said.contains("did not use channel binding") {
                return ShopError::NoChannelBinding;
            }
            source = s.source();
        }
        ShopError::Connection(e)
    }
}

/// A URL refusal as a sentence.
fn url_sentence(e: &UrlError, lang: Lang) -> String {
    use ShopMessage as M;
    match e {
        UrlError::Unreadable(why) => M::UrlUnreadable.fill(lang, &[("reason", why)]),
        UrlError::Scheme(s) => M::UrlScheme.fill(lang, &[("scheme", s)]),
        UrlError::Password(field) => M::UrlPassword.fill(lang, &[("field", field)]),
        UrlError::NoHost => M::UrlNoHost.get(lang).to_owned(),
        UrlError::NoUser => M::UrlNoUser.get(lang).to_owned(),
        UrlError::Port(p) => M::UrlPort.fill(lang, &[("port", p)]),
        UrlError::SeveralHosts => M::UrlSeveralHosts.get(lang).to_owned(),
        UrlError::SocketFolder(p) => M::UrlSocketFolder.fill(lang, &[("host", p)]),
        UrlError::Parameter(p) => M::UrlParameter.fill(lang, &[("name", p)]),
        UrlError::Twice(p) => M::UrlTwice.fill(lang, &[("name", p)]),
        UrlError::SslMode(m) => M::UrlSslMode.fill(lang, &[("mode", m)]),
        UrlError::ChannelBinding(v) => M::UrlChannelBinding.fill(lang, &[("value", v)]),
        UrlError::BindingWithoutTls(m) => M::UrlBindingWithoutTls.fill(lang, &[("mode", m)]),
        UrlError::RootCertNeeded(m) => M::UrlRootCertNeeded.fill(lang, &[("mode", m)]),
        UrlError::RootCertUnused(m) => M::UrlRootCertUnused.fill(lang, &[("mode", m)]),
        UrlError::PlainOffMachine { mode, host } => {
            M::UrlPlainOffMachine.fill(lang, &[("mode", mode), ("host", host)])
        }
    }
}

/// What a login may do that a desk's must not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotADeskWhy {
    /// A superuser.
    Superuser,
    /// It may create roles (`CREATEROLE`).
    CreatesRoles,
    /// It bypasses row-level security (`BYPASSRLS`).
    BypassesRls,
    /// It owns the shop's tables, or is a member of the role that does.
    OwnsShop,
}

impl ShopError {
    /// Whether the error is the caller's to mend before anything is tried again: a URL, a login
    /// that is not what the command needs, a name (the CLI's exit 3).
    pub fn is_wrong_input(&self) -> bool {
        matches!(
            self,
            ShopError::Url(_)
                | ShopError::NotADeskLogin { .. }
                | ShopError::NotOwner { .. }
                | ShopError::DatabaseNameTooLong { .. }
                | ShopError::DeskNameShape
                | ShopError::DeskNameTaken { .. }
                | ShopError::NoSuchDesk { .. }
        )
    }
}

impl Weakness {
    /// The warning shown for it (Settings, `shop status`, `shop join`).
    pub fn sentence(self, lang: Lang) -> &'static str {
        use ShopMessage as M;
        match self {
            Weakness::PlainOffMachine => M::WeakPlainOffMachine.get(lang),
            Weakness::ServerUnchecked => M::WeakServerUnchecked.get(lang),
            Weakness::NameUnchecked => M::WeakNameUnchecked.get(lang),
            Weakness::NoChannelBinding => M::WeakNoChannelBinding.get(lang),
        }
    }

    /// Its name in `shop status --json` (`weaknesses`).
    pub fn key(self) -> &'static str {
        match self {
            Weakness::PlainOffMachine => "plainOffMachine",
            Weakness::ServerUnchecked => "serverUnchecked",
            Weakness::NameUnchecked => "nameUnchecked",
            Weakness::NoChannelBinding => "noChannelBinding",
        }
    }
}

/// The server as sentences name it: `host:port` or the socket folder.
fn target(url: &ShopUrl) -> String {
    match url.host() {
        ShopHost::Tcp(h) if h.contains(':') => format!("[{h}]:{}", url.port()),
        ShopHost::Tcp(h) => format!("{h}:{}", url.port()),
        ShopHost::Unix(p) => p.display().to_string(),
    }
}

/// A session with the shop's PostgreSQL. The connection's task runs on the runtime that
/// connected and is stopped when the `Shop` is dropped.
#[derive(Debug)]
pub struct Shop {
    client: tokio_postgres::Client,
    connection: tokio::task::JoinHandle<()>,
    url: ShopUrl,
}

impl Drop for Shop {
    fn drop(&mut self) {
        self.connection.abort();
    }
}

impl Shop {
    /// The client, for queries.
    pub fn client(&self) -> &tokio_postgres::Client {
        &self.client
    }

    /// The client, for transactions.
    pub fn client_mut(&mut self) -> &mut tokio_postgres::Client {
        &mut self.client
    }

    /// A read-only `REPEATABLE READ` transaction: every statement in it reads one snapshot of
    /// the shop (a pull, a report).
    pub async fn snapshot(
        &mut self,
    ) -> Result<tokio_postgres::Transaction<'_>, tokio_postgres::Error> {
        self.client
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
    }

    /// The URL this session was opened with.
    pub fn url(&self) -> &ShopUrl {
        &self.url
    }

    /// Whether the session is encrypted, as the server sees it (`pg_stat_ssl`); a Unix socket
    /// never is.
    pub async fn is_encrypted(&self) -> Result<bool, ShopError> {
        let row = self
            .client
            .query_one(
                "SELECT coalesce((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false)",
                &[],
            )
            .await
            .map_err(|e| ShopError::from_pg(e, &self.url))?;
        Ok(row.get(0))
    }
}

/// Connects to the shop at `url` with `password`, within `timeout` (TCP, TLS and
/// authentication together).
pub async fn connect(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    timeout: Duration,
) -> Result<Shop, ShopError> {
    open(url, password, timeout, None).await
}

/// How many `NOTIFY`s wait for the listener at most (`connect_listening`'s channel). When it
/// is full a new one is dropped: a notification is a hint to read again, the queue already
/// holds reasons to, and the session's slow poll reads again whatever was missed. The
/// connection's task never waits on it: the session's own queries go through that task.
pub const NOTES: usize = 64;

/// Connects as [`connect`] does, and hands every `NOTIFY` the session receives (after its
/// `LISTEN`) to `notes` (a channel of [`NOTES`]). `notes` is dropped when the connection
/// ends, which is how a listener learns that the connection broke.
pub async fn connect_listening(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    timeout: Duration,
    notes: tokio::sync::mpsc::Sender<tokio_postgres::Notification>,
) -> Result<Shop, ShopError> {
    open(url, password, timeout, Some(notes)).await
}

async fn open(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    timeout: Duration,
    notes: Option<tokio::sync::mpsc::Sender<tokio_postgres::Notification>>,
) -> Result<Shop, ShopError> {
    use tokio_postgres::config::{ChannelBinding as PgBinding, SslMode as PgMode};
    let mut config = tokio_postgres::Config::new();
    match url.host() {
        ShopHost::Tcp(h) => config.host(h),
        ShopHost::Unix(p) => config.host_path(p),
    };
    config
        .port(url.port())
        // A desk reads the shop through its views (schema step 20), named as the tables are;
        // the owner's session and every migration set the path back to the tables.
        .options(format!(
            "-c search_path={},public",
            schema::DESK_READ_SCHEMA
        ))
        .user(url.user())
        .dbname(url.dbname())
        .password(password.as_bytes())
        .application_name("paydesk")
        .connect_timeout(timeout);
    // PostgreSQL does not do TLS over a Unix socket: a socket is this machine.
    let mode = match (url.host(), url.sslmode()) {
        (ShopHost::Unix(_), _) | (_, SslMode::Disable) => PgMode::Disable,
        (_, SslMode::Prefer) => PgMode::Prefer,
        _ => PgMode::Require,
    };
    config.ssl_mode(mode);
    // Bound to the TLS channel as the URL says; a plain connection has nothing to bind to.
    config.channel_binding(match (mode, url.channel_binding()) {
        (PgMode::Disable, _) | (_, ChannelBinding::Disable) => PgBinding::Disable,
        (_, ChannelBinding::Prefer) => PgBinding::Prefer,
        (_, ChannelBinding::Require) => PgBinding::Require,
    });
    let tls = tokio_postgres_rustls::MakeRustlsConnect::new(tls::client_config(
        url.sslmode(),
        url.sslrootcert(),
    )?);
    let connected = tokio::time::timeout(timeout, config.connect(tls)).await;
    // The password's copy in the config is gone with it.
    drop(config);
    let (client, connection) = match connected {
        Err(_) => {
            return Err(ShopError::Timeout {
                target: target(url),
                seconds: timeout.as_secs().max(1),
            });
        }
        Ok(Err(e)) => return Err(ShopError::from_pg(e, url)),
        Ok(Ok(pair)) => pair,
    };
    let connection = tokio::spawn(async move {
        let mut connection = connection;
        // Polled message by message (awaiting the connection drops notifications).
        loop {
            match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(tokio_postgres::AsyncMessage::Notification(n))) => {
                    if let Some(tx) = &notes {
                        // Full: dropped, a hint (see `NOTES`); closed: nobody listens.
                        let _ = tx.try_send(n);
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    tracing::warn!("shop connection ended: {e}");
                    break;
                }
                None => break,
            }
        }
    });
    Ok(Shop {
        client,
        connection,
        url: url.clone(),
    })
}
