//! The local `SQLite` store: the pending-request journal, link history, saved cards, the
//! catalog and profiles, in one file (`paydesk.sqlite3`) in the data directory.
//!
//! Why one file and these settings: the journal is what makes link creation exactly-once
//! (docs/design.md §2), so its commits must survive a crash or power loss before the first byte is
//! sent: `journal_mode=WAL` with `synchronous=FULL`. The GUI's worker thread and the CLI may
//! use the file at the same time, so every connection waits on a busy timeout rather than
//! failing, and writes that read-then-write run in `BEGIN IMMEDIATE` transactions.
//!
//! What is never stored here: API secrets (they live in the keyring, `crate::secrets`), card
//! numbers and CVVs (no type of this module can carry one; saved cards are response content
//! with the masked number only). Journal bodies may hold payer e-mail and phone (personal
//! data), so on Unix the data folder is 0700 (an existing one is tightened too) and the
//! database file is created 0600 before `SQLite` opens it ([`private_dir`],
//! [`private_sqlite_file`]); `SQLite` gives its `-wal` and `-shm` files the same mode. A finished
//! row's body is cleared a week after it finished (`Store::journal_prune`, run when the
//! services open), and the connection runs `secure_delete`, so freed bytes are zeroed.
//!
//! How the code is laid out (issue 27, `repo`): each table family has a repository
//! (`Journal`, `Links`, `Items`, `Tallies`, `Audit`, `Outbox`, `Staff`, `Cards`, `MailQueue`,
//! `Profiles`, `Catalog`, `Shop`) holding the SQL of its own tables, and [`History`] reads the
//! links and the kept totals. The `Store` methods that change the file are the units of work:
//! each opens one transaction (`write_tx`, `BEGIN IMMEDIATE`) and composes the repositories
//! inside it, so what a change writes (a link created: journal row, link, items, totals, audit
//! row, outbox row) commits or rolls back together.
//!
//! Times are stored as Unix milliseconds (`INTEGER`) for ordering, except the server's own
//! timestamps, which are kept as ISO-8601 text exactly as `wire::format_time` writes them.
//! Amounts are `TEXT` holding the exact decimal.

mod audit;
mod cards;
mod catalog;
mod changes;
mod export;
mod items;
mod join;
mod journal;
mod links;
mod mail;
pub mod messages;
pub mod migrations;
mod mirror;
mod outbox;
mod profiles;
mod reminders;
mod renewals;
mod repo;
mod report;
mod search;
mod shop;
mod staff;
mod tallies;
mod total;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use rust_decimal::Decimal;

pub use audit::{
    AUDIT_CSV_HEADER, Audit, AuditAction, AuditFilter, AuditRow, ChainCheck, ChainWalk,
    SEED as AUDIT_SEED, hash_fields, row_hash, write_audit_csv,
};
pub use cards::{Cards, StoredCard};
pub use catalog::{
    CATALOG_FILE_LIMIT, Catalog, CatalogEdit, CsvFileProblem, CsvImport, CsvLineError, CsvParsed,
    CsvProblem, QuoteMistake, Separator, parse_csv_records, read_catalog_file,
};
pub(crate) use changes::link_subject;
pub use export::{DESK_CSV_COLUMN, LINK_CSV_HEADER, LinkCsvWriter};
pub use join::{Carried, Carry, ShopHeld};
pub use journal::{
    IDEMPOTENCY_RETENTION, JOURNAL_BODY_RETENTION, Journal, JournalBegin, JournalKey, JournalRow,
    JournalState, NewJournalRow, Refusal, STALE_AFTER,
};
pub use links::{LinkCursor, Links, StoredLink, TimeRange};
pub use mail::{
    MAIL_ADDRESS_RETENTION, MAIL_RETRY_FIRST, MAIL_RETRY_MAX, MailKind, MailPart, MailQueue,
    NewMail, QueuedMail, ReceiptSettings, SmtpAccount, mail_backoff, send_subject,
};
pub use mirror::CatalogOwed;
pub use outbox::{
    Account, BarcodeEdit, CardPush, CardRow, ItemPush, LinkPush, Outbox, OutboxRow, PinPush,
    StaffChange, StaffPush, StaffRow,
};
pub use profiles::{DEFAULT_ORDER_PREFIX, Profile, Profiles, SANDBOX_PROFILE};
pub use reminders::{
    DEFAULT_REMIND_BEFORE_MIN, REMIND_BEFORE_MAX, REMIND_BEFORE_MIN, Reminders, SendingSettings,
};
pub use renewals::{Renewal, RenewalClaim, Renewals};
pub use repo::{Read, Write};
pub use report::{
    ClaimApart, Contradiction, CurrencyReport, DayReport, DeskReport, ItemSales, Sent,
    StaffCurrency, StaffReport, TOP_ITEMS, Tally,
};
pub(crate) use report::{Counted, Sheet, Sign, add_sale, judged, remove_sale, top};
pub use search::{
    CANDIDATE_LIMIT, CurrencyTotal, DEFAULT_PAGE, History, LinkPage, LinkQuery, LinkTotals,
    MAX_PAGE,
};
pub use shop::{DESK_NAME_MAX, Shop, ShopDesk};
pub use staff::{
    PIN_HASH_MEMORY_KIB, PIN_HASH_PASSES, Staff, StaffError, StaffMirror, hash_pin, pin_matches,
};
pub(crate) use tallies::{Kind, QUARTER_MS, SPANS, cover, cover_in};
pub use total::Total;

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "paydesk.sqlite3";

/// The environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "PAYDESK_DATA_DIR";

/// How long a connection waits for another writer (GUI worker vs CLI) before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The data folder or file could not be created or read.
    #[error("cannot use {path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// `SQLite` reported an error.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The file was written by a newer paydesk.
    #[error(
        "the database has schema version {found}, newer than this paydesk knows ({known}); update paydesk"
    )]
    TooNew {
        /// The file's `user_version`.
        found: u32,
        /// The newest version this build knows.
        known: u32,
    },
    /// A stored value could not be read back (hand-edited or damaged file).
    #[error("the database holds an invalid {what}: `{value}`")]
    Corrupt {
        /// What was being read.
        what: &'static str,
        /// The value found.
        value: String,
    },
    /// No profile has this name.
    #[error("no profile named `{0}`")]
    NoProfile(String),
    /// A profile with this name exists already.
    #[error("a profile named `{0}` exists already")]
    ProfileExists(String),
    /// The built-in sandbox profile cannot be removed.
    #[error("the built-in `sandbox` profile cannot be removed")]
    SandboxProfile,
    /// The profile still has requests whose outcome is unknown.
    #[error(
        "profile `{profile}` has {pending} pending request(s); retry or abandon them before removing it"
    )]
    ProfileBusy {
        /// The profile.
        profile: String,
        /// How many journal rows are pending.
        pending: usize,
    },
    /// A profile field is not acceptable.
    #[error("invalid profile: {0}")]
    InvalidProfile(String),
    /// A device id is not 4 characters of the order-number alphabet.
    #[error("invalid device id `{0}`: 4 characters of 0-9 and A-Z without I, L, O, U")]
    InvalidDeviceId(String),
    /// No journal row has this key.
    #[error("no pending request with key `{0}`")]
    NoJournalRow(String),
    /// The journal row is not in a state that allows the operation.
    #[error("the request `{key}` is {state}; cannot {action}")]
    JournalState {
        /// The idempotency key.
        key: String,
        /// Its current state.
        state: JournalState,
        /// What was attempted.
        action: &'static str,
    },
    /// The CSV file cannot be imported at all (not its lines: see `CsvImport::errors`).
    #[error("CSV: {0}")]
    Csv(CsvFileProblem),
    /// No catalog variant has this id.
    #[error("no catalog item with id `{0}`")]
    NoVariant(String),
    /// A server variant's price (or currency) was to change outside an import: the server's
    /// variant is the price authority, so only its name shown and its barcode are edited.
    #[error("the price of catalog item `{0}` is the payment system's")]
    PriceFromServer(String),
    /// A catalog item without a name, or without a price above zero.
    #[error("a catalog item needs a name and a price above zero")]
    BadItem,
    /// Another catalog variant has this barcode.
    #[error("the barcode {barcode} is already the barcode of {name} (`{id}`)")]
    BarcodeTaken {
        /// The barcode.
        barcode: String,
        /// The variant that has it.
        id: String,
        /// Its name.
        name: String,
    },
    /// A staff change or PIN check was refused.
    #[error("{0}")]
    Staff(#[from] StaffError),
}

/// The data directory: `PAYDESK_DATA_DIR` when set and not empty, else the platform's data
/// folder for paydesk (`~/.local/share/paydesk` on Linux, `~/Library/Application
/// Support/paydesk` on macOS, `%APPDATA%\paydesk\data` on Windows). `None` when the platform
/// has no home folder to put it in.
pub fn default_data_dir() -> Option<PathBuf> {
    data_dir_from(std::env::var_os(DATA_DIR_ENV))
}

/// [`default_data_dir`] with the environment value passed in.
pub fn data_dir_from(env_value: Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(dir) = env_value.filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "paydesk").map(|d| d.data_dir().to_path_buf())
}

/// The durability-relevant settings of a connection, read back with `PRAGMA`s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pragmas {
    /// `journal_mode` (`wal` for a file, `memory` in memory).
    pub journal_mode: String,
    /// `synchronous` (2 = FULL).
    pub synchronous: i64,
    /// `foreign_keys` (1 = on).
    pub foreign_keys: i64,
    /// `busy_timeout` in milliseconds.
    pub busy_timeout_ms: i64,
}

/// The local store. Owns one `SQLite` connection; `Send`, so one worker thread can own it.
pub struct Store {
    conn: Connection,
    path: Option<PathBuf>,
    /// What the last history search or board read cost (see [`Store::last_query_cost`]).
    cost: std::cell::Cell<QueryCost>,
    /// Who the audit names for the writes of [`Store::as_actor`] (nobody otherwise), and the
    /// time its rows carry where the write takes none.
    actor: crate::domain::Actor,
    acting_at: Option<DateTime<Utc>>,
}

/// What `SQLite` did for one history search or board read, summed over its statements
/// (`sqlite3_stmt_status`): the measure the tests hold first pages to, independent of timing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryCost {
    /// Virtual machine steps (each row read from a table, an index or a full-text index is a
    /// few of them).
    pub vm_steps: u64,
    /// Steps of full scans of a table or an index.
    pub fullscan_steps: u64,
    /// Sorts.
    pub sorts: u64,
}

impl Store {
    /// The cost of the last [`History::search_links_in`] (or `search_links`, `board_links`,
    /// `link_totals`, `day_report`).
    pub fn last_query_cost(&self) -> QueryCost {
        self.cost.get()
    }

    /// Runs `write` with `actor` named in the audit rows its changes append (in the same
    /// transactions, at `now` where the write takes no time of its own), then goes back to
    /// nobody, so an approval never outlives its one action.
    pub fn as_actor<T>(
        &mut self,
        actor: &crate::domain::Actor,
        now: DateTime<Utc>,
        write: impl FnOnce(&mut Store) -> T,
    ) -> T {
        self.actor = actor.clone();
        self.acting_at = Some(now);
        let out = write(self);
        self.actor = crate::domain::Actor::nobody();
        self.acting_at = None;
        out
    }

    /// Runs the statements of `read` in one read transaction ([`in_one_snapshot`]).
    fn in_one_snapshot<T>(
        &self,
        read: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        in_one_snapshot(&self.conn, read)
    }
}

/// Runs the statements of `read` on `conn` in one read transaction, so that they all see the
/// file as it was at its first statement, whatever another process writes meanwhile.
fn in_one_snapshot<T>(
    conn: &Connection,
    read: impl FnOnce() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let tx = conn.unchecked_transaction()?;
    let out = read()?;
    tx.commit()?;
    Ok(out)
}

/// Adds a statement's counters to the current query's cost and resets them.
fn add_cost(cost: &std::cell::Cell<QueryCost>, stmt: &rusqlite::Statement<'_>) {
    use rusqlite::StatementStatus as S;
    let take = |s| u64::try_from(stmt.reset_status(s)).unwrap_or(0);
    let mut c = cost.get();
    c.vm_steps += take(S::VmStep);
    c.fullscan_steps += take(S::FullscanStep);
    c.sorts += take(S::Sort);
    cost.set(c);
}

/// A write transaction on `conn` that takes the file's write lock at its start (`BEGIN
/// IMMEDIATE`), so what it reads before it writes cannot change under it, nor its first write
/// wait on another writer's.
fn write_tx(conn: &mut Connection) -> rusqlite::Result<rusqlite::Transaction<'_>> {
    conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (creating when needed) `paydesk.sqlite3` in `dir`, creating `dir` too, and brings
    /// its schema up to date.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Io { path, source }
        };
        private_dir(dir).map_err(io(dir))?;
        let path = dir.join(DB_FILE);
        private_sqlite_file(&path).map_err(io(&path))?;
        let conn = Connection::open(&path)?;
        Self::setup(conn, Some(path))
    }

    /// A store in memory, for tests. Same schema; `journal_mode` is `memory`.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Self::setup(Connection::open_in_memory()?, None)
    }

    fn setup(mut conn: Connection, path: Option<PathBuf>) -> Result<Store, StoreError> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // WAL first: it is persistent in the file, and switching needs no open transaction.
        let _mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // Freed content (a cleared journal body, a replaced row) is overwritten with zeros,
        // so payers' data leaves the file and not only the table.
        conn.pragma_update(None, "secure_delete", "ON")?;
        migrations::migrate(&mut conn)?;
        let mut store = Store {
            conn,
            path,
            cost: std::cell::Cell::default(),
            actor: crate::domain::Actor::nobody(),
            acting_at: None,
        };
        store.ensure_builtin_rows()?;
        store.rebuild_totals_if_stale()?;
        Ok(store)
    }

    /// The database file, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The connection's durability settings, as `SQLite` reports them.
    pub fn pragmas(&self) -> Result<Pragmas, StoreError> {
        let q = |name: &str| -> Result<i64, StoreError> {
            Ok(self.conn.pragma_query_value(None, name, |r| r.get(0))?)
        };
        Ok(Pragmas {
            journal_mode: self
                .conn
                .pragma_query_value(None, "journal_mode", |r| r.get(0))?,
            synchronous: q("synchronous")?,
            foreign_keys: q("foreign_keys")?,
            busy_timeout_ms: q("busy_timeout")?,
        })
    }

    /// The schema version of the open file (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        migrations::schema_version(&self.conn)
    }
}

/// Makes `dir` a folder only its owner can open (0700 on Unix): it is created with that mode
/// (missing parents too), and an existing folder with other permissions is set to 0700. The
/// store's data folder and the sandbox's state folder both come through here.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    if !dir.is_dir() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    #[cfg(unix)]
    set_mode(dir, 0o700)?;
    Ok(())
}

/// Gets an `SQLite` file ready to be opened privately (0600 on Unix): a missing file is created
/// empty with mode 0600 before `SQLite` opens it (so it is never readable by others, whatever
/// the umask), an existing one is set to 0600, and so are its `-wal`, `-shm` and `-journal`
/// files when they exist. `SQLite` creates those files later with the database file's mode.
pub fn private_sqlite_file(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path);
        match created {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        set_mode(path, 0o600)?;
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            match set_mode(Path::new(&side), 0o600) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                other => other?,
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Runs `f` on the locked store: the one way the rest of paydesk calls its `SQLite` file (the
/// services, the shop's pusher, mirrors and session). On a worker thread of a multi-threaded
/// runtime (the app's worker, the CLI) it runs through `tokio::task::block_in_place`, so the
/// runtime hands that worker's other tasks to a thread of its blocking pool while the file's
/// lock is waited for and `SQLite` works; anywhere else (a plain thread, a test's
/// current-thread runtime) it runs right here.
pub fn with_locked<T>(store: &std::sync::Mutex<Store>, f: impl FnOnce(&mut Store) -> T) -> T {
    run_blocking(|| {
        f(&mut store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner))
    })
}

/// Runs blocking work `f` (the file, the keyring) as [`with_locked`] does: through
/// `block_in_place` on a worker of a multi-threaded runtime, right here anywhere else.
pub fn run_blocking<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// Creates (or empties) a file that only its owner can read (0600 on Unix, whatever the umask;
/// an existing file is set to 0600 too) and opens it for writing: for files paydesk writes
/// that hold payers' data, such as a History export.
pub fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if file.metadata()?.permissions().mode() & 0o7777 != 0o600 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(file)
}

/// Sets the permission bits of `path` to `mode` when they differ (a folder that is already
/// private is left alone, even when it belongs to someone else).
#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let current = std::fs::metadata(path)?.permissions().mode() & 0o7777;
    if current == mode {
        return Ok(());
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// The time of an audit row for a write that takes no time of its own: the one given to
/// [`Store::as_actor`]; outside it (tests, benches) the system clock's.
pub(crate) fn audit_time(acting_at: Option<DateTime<Utc>>) -> DateTime<Utc> {
    use crate::clock::Clock;
    acting_at.unwrap_or_else(|| crate::clock::SystemClock.now())
}

/// A timestamp as stored: Unix milliseconds.
pub(crate) fn to_millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// A stored Unix-milliseconds value as a timestamp.
pub(crate) fn from_millis(ms: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_millis(ms).ok_or_else(|| StoreError::Corrupt {
        what: "timestamp",
        value: ms.to_string(),
    })
}

/// A stored currency code (of a link, or of a kept total).
pub(crate) fn read_currency(c: &str) -> Result<crate::domain::Currency, StoreError> {
    crate::domain::Currency::from_str(c).map_err(|_| StoreError::Corrupt {
        what: "currency",
        value: c.to_owned(),
    })
}

/// A stored exact decimal.
pub(crate) fn parse_decimal(text: &str, what: &'static str) -> Result<Decimal, StoreError> {
    Decimal::from_str(text).map_err(|_| StoreError::Corrupt {
        what,
        value: text.to_owned(),
    })
}

/// An optional stored exact decimal.
pub(crate) fn parse_decimal_opt(
    text: Option<String>,
    what: &'static str,
) -> Result<Option<Decimal>, StoreError> {
    text.map(|t| parse_decimal(&t, what)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_dir_override_wins_when_not_empty() {
        assert_eq!(
            data_dir_from(Some("/tmp/pd-data".into())),
            Some(PathBuf::from("/tmp/pd-data"))
        );
        let platform = data_dir_from(Some(String::new().into()));
        assert_eq!(platform, data_dir_from(None));
        if let Some(p) = platform {
            assert!(p.ends_with("paydesk") || p.ends_with("data"), "{p:?}");
        }
    }

    #[test]
    fn store_is_send() {
        fn assert_send<T: Send>() {}
        assert_send::<Store>();
    }

    #[test]
    fn millis_round_trip() {
        let t = DateTime::from_timestamp_millis(1_795_435_200_123).unwrap();
        assert_eq!(from_millis(to_millis(t)).unwrap(), t);
    }
}

/// A table's column list, the one place its `SELECT` text and its row readers take their
/// columns from: the text is made from the list ([`Columns::list`]) and a value is read by
/// name (`row.get(col!(LIST, "name"))`): the name's position is found at compile time, and a
/// name not in the list does not compile. No row is parsed by a hand-written position.
#[derive(Debug)]
pub(crate) struct Columns<const N: usize>(pub(crate) [&'static str; N]);

impl<const N: usize> Columns<N> {
    /// `a, b, c`, for `SELECT {list} FROM ...`.
    pub(crate) fn list(&self) -> String {
        self.0.join(", ")
    }

    /// The position of `name` in the list (used in a `const` block by [`col!`]).
    pub(crate) const fn at(&self, name: &str) -> usize {
        let mut i = 0;
        while i < N {
            let (a, b) = (self.0[i].as_bytes(), name.as_bytes());
            if a.len() == b.len() {
                let mut j = 0;
                while j < a.len() && a[j] == b[j] {
                    j += 1;
                }
                if j == a.len() {
                    return i;
                }
            }
            i += 1;
        }
        panic!("the column is not in the list");
    }
}

/// The position of a named column of a [`Columns`] list, found at compile time.
macro_rules! col {
    ($list:expr, $name:literal) => {
        const { $list.at($name) }
    };
}
pub(crate) use col;
