//! The operations of paydesk over one profile: what the app's worker and the CLI both call.
//!
//! `Services` owns the local store, the secret store, the clock and the embedded sandbox;
//! `Services::desk(profile)` gives a `Desk` — a signed client for that profile's server plus the
//! store — whose methods are the operations: exactly-once link creation (`create`), pending
//! rows, link detail and cancel, card save, installments, history and catalog. `Services`
//! names the rest of what the front ends do to the desk's file (`local`: staff, audit,
//! profiles, catalog) and to its shop ([`shop`]): this module is the only door to the data,
//! and hands out no store, lock or connection.
//!
//! When the desk has joined a shop, [`poll::poll_in_shop`] stands in for `Desk::poll_link`:
//! the shop's lease and budget decide whether this desk asks the API about a link; [`shared`]
//! reads the board, History and the day close from the shop while it answers.
//!
//! `DeskError::sentence` and `CreateError::sentence` word a failure for the user from the
//! layer's catalogue, [`messages::ServiceMessage`].
//!
//! The store is synchronous (`SQLite`): every call goes through `store::with_locked`, which on
//! a runtime's worker thread (the app's worker, the CLI) hands the runtime's other tasks to its
//! blocking pool while `SQLite` works; never on the UI thread.

pub mod create;
mod local;
pub mod mail;
pub mod messages;
pub mod poll;
pub mod receipt;
pub mod remind;
pub mod renew;
pub mod shared;
pub mod shop;
mod staff;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, NaiveDate, Utc};
use zeroize::Zeroizing;

pub use create::CreateError;
use messages::ServiceMessage;

use crate::api::client::{ApiClient, CallError, ClientConfig, ClientError};
use crate::api::endpoints;
use crate::api::error::{Disposition, Prior};
use crate::api::retry::RetryPolicy;
use crate::api::wire::{InstallmentList, LinkIdBody, PaymentLink, SavedCard};
use crate::clock::{Clock, Zone};
use crate::domain::card::CardRequest;
use crate::domain::installment::InstallmentQuery;
use crate::domain::link::KeyLimits;
use crate::domain::roles::{self, Need, Ownership, Permit};
use crate::domain::{Actor, CatalogVariant, Link};
use crate::lang::Lang;
use crate::sandbox::{self, SandboxHandle};
use crate::secrets::{self, SecretError, SecretStore};
use crate::store::Store;

/// Name of the built-in sandbox profile (the store's, which creates it).
pub use crate::store::SANDBOX_PROFILE;

/// What the front ends read and hand back: rows and queries of this desk's file, as values.
pub use crate::store::{
    AuditAction, AuditFilter, AuditRow, CatalogEdit, ChainCheck, CsvImport, CsvParsed, DayReport,
    JournalRow, JournalState, LinkCsvWriter, LinkCursor, LinkPage, LinkQuery, LinkTotals, Profile,
    REMIND_BEFORE_MAX, REMIND_BEFORE_MIN, SendingSettings, ShopDesk, StaffError, StoreError,
    StoredCard, StoredLink, TimeRange, default_data_dir,
};
pub use local::{CATALOG_SAMPLE_CSV, create_private_file, read_catalog_file, write_catalog_sample};

/// The port the embedded sandbox prefers, so that `paymentUrl`s in history still open after a
/// restart; another free port is taken when it is busy.
pub const SANDBOX_PREFERRED_ADDR: &str = "127.0.0.1:47110";

/// The embedded sandbox's state file in the data folder.
pub const SANDBOX_STATE_FILE: &str = "sandbox-state.sqlite3";

/// How often a process using another process's built-in sandbox looks whether it is gone.
pub const SANDBOX_TAKEOVER_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// How long `Services::sandbox_url` waits for another process that holds the data folder's
/// sandbox lock to answer (it may be starting, or stopping) before giving up.
pub const SANDBOX_FOLLOW_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Local failures of an operation.
#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    /// The local database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The secret could not be read.
    #[error(transparent)]
    Secret(#[from] SecretError),
    /// The profile's configuration cannot make a client.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// No such profile.
    #[error("no profile named `{0}`")]
    NoProfile(String),
    /// The profile has no secret stored.
    #[error(
        "profile `{0}` has no API secret: set one with `paydesk profile set-secret {0}` or PAYDESK_API_SECRET"
    )]
    NoSecret(String),
    /// The embedded sandbox could not start.
    #[error("the built-in sandbox could not start: {0}")]
    Sandbox(String),
    /// Another process holds the data folder's sandbox but its server does not answer.
    #[error(
        "the built-in sandbox of this data folder is held by another paydesk ({0}) that does not answer"
    )]
    SandboxElsewhere(String),
    /// The server did not give an answer (for a read or a non-journaled write).
    #[error(transparent)]
    Call(#[from] CallError),
    /// The link is not in the local history.
    #[error("no link `{0}` in the history of this profile")]
    NoLink(String),
    /// Staff are on and nobody is signed in.
    #[error("sign in first: staff are on")]
    SignInFirst,
    /// The acting clerk's role may not run this; a manager's approval is needed.
    #[error("a manager's PIN is needed for: {0}")]
    NeedsManager(String),
    /// The shop's one status budget stayed taken by other desks (or the shop did not answer
    /// in time): nothing was asked.
    #[error("the shop's status budget was busy: nothing was asked")]
    ShopBusy,
    /// The shop stopped answering in the middle of a read of many pages (a CSV export): what
    /// was written is incomplete.
    #[error("the shop stopped answering during the export; the file is incomplete")]
    ShopStopped,
    /// Sending settings out of their bounds (a country code of 1 to 3 digits, a reminder from
    /// 30 minutes to 24 hours before the expiry).
    #[error("the sending settings are out of their bounds")]
    BadSendingSettings,
    /// The shop's PostgreSQL refused or failed a read.
    #[error(transparent)]
    Shop(#[from] crate::shop::ShopError),
    /// A background task of the worker ended before it answered (it panicked, or the worker
    /// is stopping): what it was doing may or may not have happened.
    #[error("a background task ended before it answered: {0}")]
    Interrupted(#[from] tokio::task::JoinError),
}

impl DeskError {
    /// A sentence for the user.
    pub fn sentence(&self, lang: Lang) -> String {
        match self {
            DeskError::Call(e) => e.sentence(lang),
            DeskError::Secret(e) => e.to_string(),
            DeskError::NoProfile(name) => ServiceMessage::NoProfile.fill(lang, &[("name", name)]),
            DeskError::NoSecret(name) => ServiceMessage::NoSecret.fill(lang, &[("name", name)]),
            DeskError::Store(StoreError::BarcodeTaken { barcode, id, name }) => {
                ServiceMessage::BarcodeTaken
                    .fill(lang, &[("barcode", barcode), ("name", name), ("id", id)])
            }
            DeskError::Store(StoreError::NoVariant(id)) => {
                ServiceMessage::NoVariant.fill(lang, &[("id", id)])
            }
            DeskError::Store(StoreError::PriceFromServer(_)) => {
                ServiceMessage::PriceFromServer.get(lang).to_owned()
            }
            DeskError::Store(StoreError::BadItem) => ServiceMessage::BadItem.get(lang).to_owned(),
            DeskError::Store(StoreError::Csv(problem)) => {
                ServiceMessage::CsvFile.fill(lang, &[("problem", &problem.message(lang))])
            }
            DeskError::NoLink(id) => ServiceMessage::NoLink.fill(lang, &[("id", id)]),
            DeskError::SandboxElsewhere(holder) => {
                ServiceMessage::SandboxElsewhere.fill(lang, &[("holder", holder)])
            }
            DeskError::SignInFirst => ServiceMessage::SignInFirst.get(lang).to_owned(),
            DeskError::ShopBusy => ServiceMessage::ShopBusy.get(lang).to_owned(),
            DeskError::ShopStopped => ServiceMessage::ShopStopped.get(lang).to_owned(),
            DeskError::BadSendingSettings => {
                ServiceMessage::BadSendingSettings.get(lang).to_owned()
            }
            DeskError::Shop(e) => e.sentence(lang),
            DeskError::NeedsManager(what) => {
                ServiceMessage::NeedsManager.fill(lang, &[("what", what)])
            }
            DeskError::Store(StoreError::Staff(e)) => staff_sentence(e, lang),
            other => other.to_string(),
        }
    }

    /// Whether the outcome of the call is unknown (no answer, or a redirect not followed), as
    /// opposed to refused.
    pub fn is_unknown_outcome(&self) -> bool {
        matches!(self, DeskError::Call(e) if e.is_unknown_outcome())
    }
}

/// A staff refusal as a sentence.
pub fn staff_sentence(e: &crate::store::StaffError, lang: Lang) -> String {
    use crate::store::StaffError as E;
    match e {
        E::NameTaken(name) => ServiceMessage::StaffNameTaken.fill(lang, &[("name", name)]),
        E::NoMember(name) => ServiceMessage::StaffNoMember.fill(lang, &[("name", name)]),
        E::FirstMustBeManager => ServiceMessage::StaffFirstManager.get(lang).to_owned(),
        E::LastManager(name) => ServiceMessage::StaffLastManager.fill(lang, &[("name", name)]),
        E::Disabled(name) => ServiceMessage::StaffDisabled.fill(lang, &[("name", name)]),
        E::WrongPin {
            name,
            wait_seconds: None,
        } => ServiceMessage::StaffWrongPin.fill(lang, &[("name", name)]),
        E::WrongPin {
            name,
            wait_seconds: Some(seconds),
        } => ServiceMessage::StaffWrongPinWait
            .fill(lang, &[("name", name), ("seconds", &seconds.to_string())]),
        E::Waiting { name, seconds } => ServiceMessage::StaffWaiting
            .fill(lang, &[("name", name), ("seconds", &seconds.to_string())]),
        E::NotManager(name) => ServiceMessage::StaffNotManager.fill(lang, &[("name", name)]),
        E::ManagerNeedsShop(name) => {
            ServiceMessage::StaffManagerNeedsShop.fill(lang, &[("name", name)])
        }
        E::NoShopPin(name) => ServiceMessage::StaffNoShopPin.fill(lang, &[("name", name)]),
        E::SignInAgain(name) => ServiceMessage::StaffSignInAgain.fill(lang, &[("name", name)]),
        E::ManagerPinIsOwners(name) => {
            ServiceMessage::StaffManagerPinIsOwners.fill(lang, &[("name", name)])
        }
        E::OwnerMakesFirstManager => ServiceMessage::StaffOwnerMakesFirst.get(lang).to_owned(),
        E::ChangesNeedShop => ServiceMessage::StaffChangesNeedShop.get(lang).to_owned(),
        E::CatalogNeedsShop => ServiceMessage::CatalogNeedsShop.get(lang).to_owned(),
        E::Hash(_) => e.to_string(),
    }
}

/// Shared by every desk: store, secrets, clock, the embedded sandbox.
pub struct Services {
    store: Arc<Mutex<Store>>,
    secrets: Arc<dyn SecretStore>,
    clock: Arc<dyn Clock>,
    data_dir: Option<PathBuf>,
    env_secret: Option<Zeroizing<String>>,
    sandbox: Arc<Mutex<Option<SandboxHandle>>>,
    /// The port of the other process's sandbox last used (0: none), tried first when this
    /// process serves the folder's sandbox itself, so desks made for it keep working.
    followed_port: Arc<std::sync::atomic::AtomicU16>,
    /// Whether a thread waits to take over from the other process.
    watching: std::sync::atomic::AtomicBool,
    policy: RetryPolicy,
    timeouts: Option<(std::time::Duration, std::time::Duration)>,
    /// `PAYDESK_SHOP_PASSWORD` as `main` read it, for the staff's questions to the shop.
    shop_env: Mutex<Option<Zeroizing<String>>>,
    /// The shop's tokens of the managers signed in here (`service::staff`).
    tokens: staff::Tokens,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

impl Drop for Services {
    /// Stops the embedded sandbox and waits for it, so that its state file is closed and its
    /// lock released when the services are gone (the CLI ends right after).
    fn drop(&mut self) {
        if let Some(handle) = lock(&self.sandbox).take() {
            handle.stop_and_wait();
        }
    }
}

impl Services {
    /// Opens the store in `data_dir` (the embedded sandbox keeps its state there too).
    /// `env_secret` is `PAYDESK_API_SECRET`, passed in by the caller; it is never written.
    pub fn open(
        data_dir: &Path,
        secrets: Arc<dyn SecretStore>,
        clock: Arc<dyn Clock>,
        env_secret: Option<Zeroizing<String>>,
    ) -> Result<Self, DeskError> {
        let mut store = Store::open(data_dir)?;
        // The payer data of journal rows finished a week ago goes (the rows stay). Both front
        // ends open the services, so this runs at every CLI command and app start; a failure
        // (another process holding the file) waits for the next open.
        if let Err(e) = store.journal_prune(clock.now()) {
            tracing::warn!(error = %e, "could not clear old journal bodies");
        }
        Ok(Self::with_store(
            store,
            Some(data_dir.to_owned()),
            secrets,
            clock,
            env_secret,
        ))
    }

    /// Services over an already open store (tests use an in-memory one).
    pub fn with_store(
        store: Store,
        data_dir: Option<PathBuf>,
        secrets: Arc<dyn SecretStore>,
        clock: Arc<dyn Clock>,
        env_secret: Option<Zeroizing<String>>,
    ) -> Self {
        Self {
            store: Arc::new(Mutex::new(store)),
            secrets,
            clock,
            data_dir,
            env_secret,
            sandbox: Arc::new(Mutex::new(None)),
            followed_port: Arc::new(std::sync::atomic::AtomicU16::new(0)),
            watching: std::sync::atomic::AtomicBool::new(false),
            policy: create::DEFAULT_POLICY,
            timeouts: None,
            shop_env: Mutex::new(None),
            tokens: staff::Tokens::default(),
        }
    }

    /// Services over a store in memory, gone with them: for tests and trials.
    pub fn open_in_memory(
        secrets: Arc<dyn SecretStore>,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, DeskError> {
        Ok(Self::with_store(
            Store::open_in_memory()?,
            None,
            secrets,
            clock,
            None,
        ))
    }

    /// A look into the desk's file for the integration tests' set-ups and assertions. Only
    /// with the `inspect` feature, which the crate's dev-dependency on itself turns on for
    /// test builds: the app and the CLI never reach the store but through named operations.
    #[cfg(feature = "inspect")]
    pub fn inspect<T>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, StoreError>,
    ) -> Result<T, DeskError> {
        self.with_store_locked(f)
    }

    /// The store's lock itself, for tests that drive the shop's pusher by hand (feature
    /// `inspect`, as [`Services::inspect`]).
    #[cfg(feature = "inspect")]
    pub fn inspect_store(&self) -> &Mutex<Store> {
        &self.store
    }

    /// Uses `policy` for link-create retries (tests use a fast one).
    #[must_use]
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Uses these connect and total timeouts for every client.
    #[must_use]
    pub fn with_timeouts(
        mut self,
        connect: std::time::Duration,
        total: std::time::Duration,
    ) -> Self {
        self.timeouts = Some((connect, total));
        self
    }

    /// Runs `f` with the store locked: the door of this module's operations, never handed out.
    fn with_store_locked<T>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, StoreError>,
    ) -> Result<T, DeskError> {
        Ok(crate::store::with_locked(&self.store, f)?)
    }

    /// The store itself, for the shop's pusher and membership, which lock it call by call
    /// between awaits; never hold the lock across an await. Not handed out of `service`.
    pub(crate) fn store(&self) -> &Mutex<Store> {
        &self.store
    }

    /// The clock.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// The secret store.
    pub fn secrets(&self) -> &Arc<dyn SecretStore> {
        &self.secrets
    }

    /// The base URL of the embedded sandbox, starting it on first use.
    ///
    /// One sandbox per data folder: when another process (the app, or the CLI while it runs)
    /// already serves the folder's sandbox state, its server is used instead of a second one
    /// on the same file (see `sandbox::lock`); this process then asks again on each call, and
    /// serves the folder itself once that process is gone: at the next call, or sooner from a
    /// thread that looks every [`SANDBOX_TAKEOVER_POLL`], on that process's port when it is
    /// free, so a desk made for it goes on working. A process still starting its server is
    /// waited for up to [`SANDBOX_FOLLOW_PATIENCE`].
    pub fn sandbox_url(&self) -> Result<String, DeskError> {
        let mut slot = self
            .sandbox
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(h) = slot.as_ref() {
            return Ok(h.base_url());
        }
        let deadline = std::time::Instant::now() + SANDBOX_FOLLOW_PATIENCE;
        let state_file = self.data_dir.as_ref().map(|d| d.join(SANDBOX_STATE_FILE));
        loop {
            let followed = self.followed_port.load(std::sync::atomic::Ordering::SeqCst);
            match start_embedded(state_file.clone(), &self.clock, followed) {
                Ok(handle) => {
                    let url = handle.base_url();
                    *slot = Some(handle);
                    return Ok(url);
                }
                Err(sandbox::SandboxError::StateInUse { holder, .. }) => {
                    if let Some(holder) = holder.as_ref().filter(|h| sandbox::lock::answers(h)) {
                        tracing::info!(%holder, "using the built-in sandbox another process serves for this data folder");
                        self.followed_port
                            .store(holder.port, std::sync::atomic::Ordering::SeqCst);
                        if let Some(state_file) = state_file {
                            self.watch_for_takeover(state_file);
                        }
                        return Ok(holder.base_url());
                    }
                    if std::time::Instant::now() >= deadline {
                        return Err(DeskError::SandboxElsewhere(holder.map_or_else(
                            || "pid ?".to_owned(),
                            |h| format!("pid {}, 127.0.0.1:{}", h.pid, h.port),
                        )));
                    }
                    // The holder is starting (or stopping): look again shortly.
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(e) => return Err(DeskError::Sandbox(e.to_string())),
            }
        }
    }

    /// Starts the thread (once) that serves the folder's sandbox as soon as the process
    /// whose sandbox this one uses is gone (its lock free). It ends then, or when these
    /// services are dropped.
    fn watch_for_takeover(&self, state_file: PathBuf) {
        use std::sync::atomic::Ordering;
        if self.watching.swap(true, Ordering::SeqCst) {
            return;
        }
        let slot = Arc::downgrade(&self.sandbox);
        let followed = Arc::clone(&self.followed_port);
        let clock = Arc::clone(&self.clock);
        let spawned = std::thread::Builder::new()
            .name("paydesk-sandbox-watch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(SANDBOX_TAKEOVER_POLL);
                    let Some(slot) = slot.upgrade() else {
                        return;
                    };
                    let mut slot = lock(&slot);
                    if slot.is_some() {
                        return;
                    }
                    // A cheap look first: most of the time the other process is still there.
                    match sandbox::lock::StateLock::acquire(&state_file) {
                        Ok(free) => drop(free),
                        Err(sandbox::SandboxError::StateInUse { holder, .. }) => {
                            if let Some(h) = holder {
                                followed.store(h.port, Ordering::SeqCst);
                            }
                            continue;
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "cannot watch the built-in sandbox's lock");
                            return;
                        }
                    }
                    let port = followed.load(Ordering::SeqCst);
                    match start_embedded(Some(state_file.clone()), &clock, port) {
                        Ok(handle) => {
                            tracing::info!(url = %handle.base_url(), "the other process is gone: serving the built-in sandbox here");
                            *slot = Some(handle);
                            return;
                        }
                        Err(sandbox::SandboxError::StateInUse { .. }) => {}
                        Err(e) => {
                            tracing::warn!(error = %e, "the built-in sandbox could not start");
                            return;
                        }
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot watch the built-in sandbox's lock");
            self.watching.store(false, Ordering::SeqCst);
        }
    }

    /// The desk of `profile`: its client (secret resolved) and the store.
    pub fn desk(&self, profile: &str) -> Result<Desk, DeskError> {
        let profile = self
            .with_store_locked(|s| s.profiles().get(profile))?
            .ok_or_else(|| DeskError::NoProfile(profile.to_owned()))?;
        let (base_url, secret) = if profile.is_sandbox {
            (
                self.sandbox_url()?,
                Zeroizing::new(sandbox::DEMO_API_SECRET.to_owned()),
            )
        } else {
            let env = self.env_secret.as_ref().map(|s| s.as_str());
            let resolved = secrets::resolve_secret(
                env,
                self.secrets.as_ref(),
                &profile.name,
                &profile.api_key,
            )?
            .ok_or_else(|| DeskError::NoSecret(profile.name.clone()))?;
            (profile.base_url.clone(), resolved.secret.0)
        };
        let api_key = if profile.is_sandbox {
            sandbox::DEMO_API_KEY.to_owned()
        } else {
            profile.api_key.clone()
        };
        let mut config = ClientConfig::new(base_url, api_key, secret);
        if let Some((connect, total)) = self.timeouts {
            config.connect_timeout = connect;
            config.total_timeout = total;
        }
        let client = ApiClient::new(config, self.clock.clone())?;
        Ok(Desk {
            inner: Arc::new(DeskInner {
                profile,
                client,
                store: self.store.clone(),
                clock: self.clock.clone(),
                policy: self.policy,
                inflight: Mutex::new(std::collections::HashSet::new()),
            }),
            actor: Actor::nobody(),
        })
    }
}

/// The body of link detail and cancel.
fn id_body(id: &str) -> Vec<u8> {
    serde_json::to_vec(&LinkIdBody { id: id.to_owned() })
        .expect("a struct of one string always serializes")
}

/// Starts the embedded sandbox over `state_file` on the services' clock (the sandbox keeps the
/// same "now" as the app: a test's manual clock moves both, so signatures stay fresh and expiry
/// reads alike on both sides): on `port` when not 0 (the port of a process it takes over from),
/// else or when busy on the preferred port, else on any free port. `StateInUse` when another
/// process serves the state file.
fn start_embedded(
    state_file: Option<PathBuf>,
    clock: &Arc<dyn Clock>,
    port: u16,
) -> Result<SandboxHandle, sandbox::SandboxError> {
    let mut config = sandbox::SandboxConfig {
        state_file,
        clock: Arc::clone(clock),
        ..sandbox::SandboxConfig::default()
    };
    let mut addrs: Vec<std::net::SocketAddr> = Vec::new();
    if port != 0 {
        addrs.push(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    addrs.extend(SANDBOX_PREFERRED_ADDR.parse::<std::net::SocketAddr>().ok());
    addrs.push(std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    let mut result = Err(sandbox::SandboxError::ThreadGone);
    for addr in addrs {
        config.addr = addr;
        result = sandbox::Sandbox::spawn_background(config.clone());
        match &result {
            Err(sandbox::SandboxError::Io(e)) => {
                tracing::info!(%addr, error = %e, "sandbox port busy, trying the next");
            }
            _ => break,
        }
    }
    result
}

/// Locks a mutex, recovering from a poisoned lock (a panicked holder cannot leave `SQLite`
/// half-written: its transaction rolled back).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub use crate::domain::share::{SendChannel, SendMark};

/// The operations of one profile. Cheap to clone.
#[derive(Clone)]
pub struct Desk {
    inner: Arc<DeskInner>,
    /// Who acts through this desk (nobody: staff are off, or the desk's own background work).
    actor: Actor,
}

struct DeskInner {
    profile: Profile,
    client: ApiClient,
    store: Arc<Mutex<Store>>,
    clock: Arc<dyn Clock>,
    policy: RetryPolicy,
    inflight: Mutex<std::collections::HashSet<String>>,
}

impl std::fmt::Debug for Desk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desk")
            .field("profile", &self.inner.profile.name)
            .finish_non_exhaustive()
    }
}

/// Marks a key as being sent by this process until dropped.
struct InflightGuard<'a> {
    desk: &'a Desk,
    key: String,
}

impl Drop for InflightGuard<'_> {
    fn drop(&mut self) {
        lock(&self.desk.inner.inflight).remove(&self.key);
    }
}

impl Desk {
    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.inner.profile
    }

    /// The same desk with `actor` acting: named in the audit, owner of the links it begins.
    #[must_use]
    pub fn acting_as(&self, actor: Actor) -> Desk {
        Desk {
            inner: Arc::clone(&self.inner),
            actor,
        }
    }

    /// Who acts through this desk.
    pub fn actor(&self) -> &Actor {
        &self.actor
    }

    /// Refuses when `need` (the role table's, for the command named `command`) does not let
    /// this desk's actor run it (with staff off, everything runs). `ownership` is the link's
    /// for [`Need::OwnUnpaidOrManager`].
    pub fn authorize(
        &self,
        need: Need,
        command: &str,
        ownership: Option<&Ownership>,
    ) -> Result<(), DeskError> {
        let staff_on = self.with_store(|s| s.staff_on())?;
        match roles::permit(need, staff_on, &self.actor, ownership) {
            Permit::Allowed => Ok(()),
            Permit::SignInFirst => Err(DeskError::SignInFirst),
            Permit::NeedsManager => Err(DeskError::NeedsManager(command.to_owned())),
        }
    }

    /// Who owns a stored link, for a cancel (`None` owner: made before staff existed).
    pub fn ownership(&self, id: &str) -> Result<Ownership, DeskError> {
        let stored = self
            .with_store(|s| s.links().get(self.profile_name(), id))?
            .ok_or_else(|| DeskError::NoLink(id.to_owned()))?;
        let link = stored.link;
        Ok(Ownership {
            began_by: stored.staff,
            nothing_paid: link.paid_so_far().is_zero(),
        })
    }

    fn profile_name(&self) -> &str {
        &self.inner.profile.name
    }

    /// "Now", from the clock the services were given (a manual one in tests).
    pub fn now(&self) -> DateTime<Utc> {
        self.inner.clock.now()
    }

    fn client(&self) -> &ApiClient {
        &self.inner.client
    }

    fn retry_policy(&self) -> RetryPolicy {
        self.inner.policy
    }

    fn with_store<T>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, StoreError>,
    ) -> Result<T, DeskError> {
        Ok(crate::store::with_locked(&self.inner.store, f)?)
    }

    fn claim(&self, key: &str) -> Option<InflightGuard<'_>> {
        lock(&self.inner.inflight)
            .insert(key.to_owned())
            .then(|| InflightGuard {
                desk: self,
                key: key.to_owned(),
            })
    }

    /// The base URL this desk talks to.
    pub fn base_url(&self) -> &str {
        self.inner.client.base_url()
    }

    /// The key's limits, as far as the profile knows them.
    pub fn limits(&self) -> KeyLimits {
        KeyLimits {
            amount_limit: self.inner.profile.amount_limit,
            max_items: self.inner.profile.max_items,
        }
    }

    /// The next order number of this counter (durable, unique per device).
    pub fn next_order_number(&self) -> Result<String, DeskError> {
        let today = self.now().date_naive();
        self.with_store(|s| s.next_order_number(self.profile_name(), today))
    }

    /// Journal rows that are not completed, newest first.
    pub fn pending(&self) -> Result<Vec<JournalRow>, DeskError> {
        let open = [
            JournalState::Pending,
            JournalState::Stale,
            JournalState::Conflict,
        ];
        self.with_store(|s| s.journal().list(self.profile_name(), &open))
    }

    /// Asks the server for the link and refreshes history (reads are retried); a link it
    /// turns paid in full gets its receipt without asking a shop
    /// (`Desk::receipt_without_shop`; a joined desk reads through `shared::Reads::link_detail`).
    pub async fn link_detail(&self, id: &str) -> Result<Link, DeskError> {
        let heard = self.detail_heard(id).await?;
        self.receipt_without_shop(&heard);
        Ok(heard.link)
    }

    /// [`Desk::link_detail`] without the receipt: the answer as heard, for the caller to
    /// decide with the shop.
    pub(crate) async fn detail_heard(&self, id: &str) -> Result<receipt::Heard, DeskError> {
        let link: PaymentLink = self.read(&endpoints::LINK_DETAIL, &id_body(id)).await?;
        self.store_own_answer(&link)
    }

    /// Asks the server for the link once (no retry) and refreshes history: the app's
    /// background refresh, whose own schedule is the retry and whose budget (one request a
    /// second in all) a retry loop here would break. A link it turns paid in full gets its
    /// receipt without asking a shop (a joined desk asks through `service::poll`).
    pub async fn poll_link(&self, id: &str) -> Result<Link, DeskError> {
        let heard = self.poll_heard(id).await?;
        self.receipt_without_shop(&heard);
        Ok(heard.link)
    }

    /// [`Desk::poll_link`] without the receipt: the answer as heard.
    pub(crate) async fn poll_heard(&self, id: &str) -> Result<receipt::Heard, DeskError> {
        let link: PaymentLink = self
            .client()
            .call(&endpoints::LINK_DETAIL, &id_body(id), None)
            .await?;
        self.store_own_answer(&link)
    }

    /// Stores the payment API's own answer about a link of this desk in history; whether it
    /// turned the link paid in full is the caller's to act on (`service::receipt`).
    fn store_own_answer(&self, link: &PaymentLink) -> Result<receipt::Heard, DeskError> {
        let before = self.with_store(|s| s.links().get(self.profile_name(), &link.id))?;
        self.with_store(|s| s.upsert_link(self.profile_name(), link, self.now()))?;
        let answer = Link::from(link.clone());
        let held = before.is_some();
        Ok(receipt::Heard::of(
            before.as_ref().map(|b| &b.link),
            answer,
            held,
        ))
    }

    /// Asks the server once about `row`, a link another desk made on this desk's account
    /// (this desk holds its lease in the shop: its maker stopped asking), and queues the answer
    /// for the shop under the maker's name. The link stays out of this desk's history, day
    /// close and alerts: it is the maker's; whether the answer turned it paid in full is
    /// judged against the shop's row (`service::poll` then claims its receipt in the shop).
    pub async fn poll_foreign(
        &self,
        row: &crate::shop::read::ShopLink,
    ) -> Result<receipt::Heard, DeskError> {
        let link: PaymentLink = self
            .client()
            .call(&endpoints::LINK_DETAIL, &id_body(&row.link.id), None)
            .await?;
        let now = self.now();
        let push = row.observed(&link, now)?;
        self.with_store(|s| s.enqueue_observed(&push, now))?;
        Ok(receipt::Heard::of(Some(&row.link), Link::from(link), false))
    }

    /// Takes `link`, the shop's answer for a link of this desk's history (another desk polled
    /// it while this one could not), into history when it is newer by status order and paid
    /// amount than what history holds, and not a payment (this desk takes a payment only
    /// from its own call to the payment API: `shop::confirm`); returns whether it was. A link
    /// this desk never stored is not taken: it is another desk's.
    pub fn take_shared(&self, link: &Link) -> Result<bool, DeskError> {
        let order = |l: &Link| (l.status.rank(), l.paid.unwrap_or_default());
        let newer = match self.with_store(|s| s.links().get(self.profile_name(), &link.id))? {
            // A payment is never taken from the shop: only from this desk's own call
            // (`shop::confirm`), whoever claimed it.
            Some(stored) => {
                order(link) > order(&stored.link)
                    && link.status != crate::domain::LinkStatus::Completed
                    && link.paid.unwrap_or_default() <= stored.link.paid.unwrap_or_default()
            }
            None => false,
        };
        if newer {
            let answer = PaymentLink::from(link);
            self.with_store(|s| s.upsert_link(self.profile_name(), &answer, self.now()))?;
        }
        Ok(newer)
    }

    /// Records in the audit that this desk's own call to the payment API answered `seen` for
    /// a link whose payment desk `claimed_by` claimed (`claimed`: its status and paid amount
    /// in the shop), less than the claim (a joined desk's confirming call,
    /// `service::poll`).
    pub fn record_contradiction(
        &self,
        seen: &Link,
        (claimed, claimed_paid): (&crate::domain::LinkStatus, rust_decimal::Decimal),
        claimed_by: &str,
    ) -> Result<(), DeskError> {
        let subject = format!(
            "{} claimed {claimed} {claimed_paid} by {claimed_by}; the payment API said {} {}",
            crate::store::link_subject(&seen.id, seen.order_number.as_deref()),
            seen.status,
            seen.paid.unwrap_or_default(),
        );
        let now = self.now();
        self.with_store(|s| {
            s.audit_append(
                self.actor(),
                crate::store::AuditAction::LinkContradicted,
                &subject,
                now,
            )
        })
    }

    /// The links of the open-links board, newest first: every link stored today (in `zone`),
    /// and every link still `PENDING` stored in the last 7 days.
    pub fn board_links_in(&self, zone: Zone) -> Result<Vec<StoredLink>, DeskError> {
        let now = self.now();
        let today = crate::board::local_day_start(now, zone);
        let week = now - chrono::Duration::days(crate::board::PENDING_DAYS);
        self.with_store(|s| {
            s.history()
                .board_links(self.profile_name(), today, week, crate::board::MAX_ROWS)
        })
    }

    /// Cancels the link and records the server's answer in history, marked as cancelled here
    /// (the server answers EXPIRED; the day report counts it as cancelled).
    pub async fn cancel_link(&self, id: &str) -> Result<Link, DeskError> {
        if self.with_store(|s| s.staff_on())? {
            let ownership = match self.ownership(id) {
                Ok(o) => o,
                // A link this desk never stored is nobody's: a manager's.
                Err(DeskError::NoLink(_)) => Ownership {
                    began_by: None,
                    nothing_paid: false,
                },
                Err(e) => return Err(e),
            };
            let need = Need::OwnUnpaidOrManager;
            match roles::permit(need, true, &self.actor, Some(&ownership)) {
                Permit::Allowed => {}
                Permit::SignInFirst => return Err(DeskError::SignInFirst),
                Permit::NeedsManager => {
                    return Err(DeskError::NeedsManager(format!("CancelLink {id}")));
                }
            }
        }
        let link: PaymentLink = self.read(&endpoints::LINK_CANCEL, &id_body(id)).await?;
        let now = self.now();
        self.with_store(|s| {
            s.as_actor(&self.actor, now, |s| {
                s.record_cancel(self.profile_name(), &link, now)
            })
        })?;
        Ok(Link::from(link))
    }

    /// Saves a card. Never journaled, never retried (the body holds a PAN and the endpoint
    /// takes no idempotency key): an unknown outcome is reported as such.
    pub async fn save_card(&self, request: &CardRequest) -> Result<SavedCard, DeskError> {
        // The body is handed over whole: the HTTP stack sends from it and wipes it.
        let card: SavedCard = self
            .client()
            .call_wiped(&endpoints::CARD_SAVE, request.body_bytes(), None)
            .await?;
        let now = self.now();
        self.with_store(|s| {
            s.as_actor(&self.actor, now, |s| {
                s.insert_card(self.profile_name(), &card, now)
            })
        })?;
        Ok(card)
    }

    /// Lists installment options (a read: retried freely).
    pub async fn installments(
        &self,
        query: &InstallmentQuery,
    ) -> Result<InstallmentList, DeskError> {
        self.read(&endpoints::INSTALLMENT_LIST, &query.body_bytes())
            .await
    }

    /// A page of the local history, newest first.
    pub fn history(&self, query: &LinkQuery) -> Result<LinkPage, DeskError> {
        self.with_store(|s| s.history().search_links(self.profile_name(), query))
    }

    /// A page of the local history of the links stored in `range` (when given).
    pub fn history_in(
        &self,
        query: &LinkQuery,
        range: Option<TimeRange>,
    ) -> Result<LinkPage, DeskError> {
        self.with_store(|s| {
            s.history()
                .search_links_in(self.profile_name(), query, range)
        })
    }

    /// How many links of the local history match, and their sums per currency.
    pub fn history_totals(
        &self,
        query: &LinkQuery,
        range: Option<TimeRange>,
    ) -> Result<LinkTotals, DeskError> {
        self.with_store(|s| s.history().link_totals(self.profile_name(), query, range))
    }

    /// Writes the matching links of the local history as CSV (see `store::LinkCsvWriter`).
    /// The store stays locked while it writes: a million links take a few seconds.
    pub fn export_history_csv<W: std::io::Write>(
        &self,
        query: &LinkQuery,
        range: Option<TimeRange>,
        zone: Zone,
        out: W,
    ) -> Result<usize, DeskError> {
        self.with_store(|s| {
            s.history()
                .export_links_csv(self.profile_name(), query, range, zone, out)
        })
    }

    /// The day report of local days `from..=to` in `zone`, judged now.
    pub fn day_report(
        &self,
        from: NaiveDate,
        to: NaiveDate,
        zone: Zone,
    ) -> Result<DayReport, DeskError> {
        let now = self.now();
        self.with_store(|s| {
            s.history()
                .day_report(self.profile_name(), from, to, zone, now)
        })
    }

    /// The audit chain's head now (shown with a day close).
    pub fn audit_head(&self) -> Result<String, DeskError> {
        self.with_store(|s| s.audit().head())
    }

    /// One link of the local history, with whether it was cancelled through paydesk.
    pub fn history_entry(&self, id: &str) -> Result<StoredLink, DeskError> {
        self.with_store(|s| s.links().get(self.profile_name(), id))?
            .ok_or_else(|| DeskError::NoLink(id.to_owned()))
    }

    /// One link of the local history.
    pub fn history_link(&self, id: &str) -> Result<Link, DeskError> {
        self.with_store(|s| s.links().get(self.profile_name(), id))?
            .map(|s| s.link)
            .ok_or_else(|| DeskError::NoLink(id.to_owned()))
    }

    /// The cart lines of link `id` as a message to its payer names them: each item's name (a
    /// catalog item without a known name by its variant id), how many, and the line's total
    /// when its unit price is known. Empty for a link made without items.
    pub fn link_item_lines(
        &self,
        id: &str,
    ) -> Result<Vec<crate::domain::share::ItemLine>, DeskError> {
        let items = self.with_store(|s| s.items().of_link(self.profile_name(), id))?;
        Ok(items
            .into_iter()
            .map(|i| {
                let quantity = u32::try_from(i.quantity).unwrap_or(0);
                let line_total = i
                    .unit_price
                    .as_deref()
                    .and_then(|p| p.parse::<rust_decimal::Decimal>().ok())
                    .and_then(|p| p.checked_mul(rust_decimal::Decimal::from(quantity)));
                crate::domain::share::ItemLine {
                    name: i.name.or(i.variant_id).unwrap_or_default(),
                    quantity,
                    line_total,
                }
            })
            .collect())
    }

    /// Where link `id` was sent from this desk, oldest first: by which channel (`e-mail`,
    /// `whatsapp`), when and by whom, as the audit recorded each send.
    pub fn link_sends(&self, id: &str) -> Result<Vec<SendMark>, DeskError> {
        let rows = self.with_store(|s| s.audit().sends_of(id))?;
        Ok(rows
            .into_iter()
            .filter_map(|r| SendMark::of_audit(&r.subject, r.at, r.staff))
            .collect())
    }

    /// Every send this desk recorded at or after `since`, oldest first.
    pub fn sends_since(&self, since: DateTime<Utc>) -> Result<Vec<SendMark>, DeskError> {
        self.with_store(|s| s.audit().sends_since(since))
    }

    /// How many links the local history holds for this profile.
    pub fn history_count(&self) -> Result<usize, DeskError> {
        self.with_store(|s| s.history().count_links(self.profile_name()))
    }

    /// The saved cards of this profile.
    pub fn saved_cards(&self) -> Result<Vec<StoredCard>, DeskError> {
        self.with_store(|s| s.cards().list(self.profile_name()))
    }

    /// The local catalog, by variant id.
    pub fn catalog(&self) -> Result<HashMap<String, CatalogVariant>, DeskError> {
        self.with_store(|s| s.catalog().map())
    }

    /// A read with the read retry policy: retried on unknown outcomes only (never after a
    /// redirect, which asking again would only repeat), waiting at least what `Retry-After`
    /// asked for, up to the policy's cap.
    async fn read<T: serde::de::DeserializeOwned>(
        &self,
        endpoint: &endpoints::Endpoint,
        body: &[u8],
    ) -> Result<T, DeskError> {
        let policy = RetryPolicy::READ;
        let mut attempts = 0;
        loop {
            attempts += 1;
            match self.client().call::<T>(endpoint, body, None).await {
                Ok(v) => return Ok(v),
                Err(e) if e.disposition(Prior::Clean) == Disposition::Unknown => {
                    let jitter = rand::random_range(0..=1000);
                    match policy.delay_after(attempts, jitter, e.retry_after()) {
                        Some(wait) => tokio::time::sleep(wait).await,
                        None => return Err(e.into()),
                    }
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// The session reaches the desk's file through the services that hold it.
impl crate::shop::session::StoreAccess for Services {
    fn store(&self) -> &Mutex<Store> {
        Services::store(self)
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::CsvFileProblem;

    #[test]
    fn a_task_that_ended_without_answering_is_said_as_such_not_as_the_sandbox() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let joined = runtime.block_on(async {
            let task = tokio::spawn(std::future::pending::<()>());
            task.abort();
            task.await.unwrap_err()
        });
        let e = DeskError::from(joined);
        assert!(matches!(e, DeskError::Interrupted(_)), "{e:?}");
        assert!(!e.sentence(Lang::En).contains("sandbox"), "{e}");
    }

    #[test]
    fn desk_errors_read_in_the_users_language_with_their_values() {
        let cases = [
            (
                DeskError::NoProfile("kasa".into()),
                "Böyle bir profil yok: `kasa`",
                "No such profile: `kasa`",
            ),
            (
                DeskError::Store(StoreError::BarcodeTaken {
                    barcode: "4006381333931".into(),
                    id: "v1".into(),
                    name: "Çay".into(),
                }),
                "4006381333931 barkodu zaten Çay (`v1`) ürününde.",
                "The barcode 4006381333931 is already the barcode of Çay (`v1`).",
            ),
            (
                DeskError::Store(StoreError::Csv(CsvFileProblem::NotUtf8)),
                "CSV dosyası içe aktarılamadı: dosya UTF-8 metin değil; hesap tablosundan \
                 \"CSV UTF-8\" olarak kaydedin",
                "CSV: the file is not UTF-8 text; save it from the spreadsheet as \"CSV UTF-8\"",
            ),
            (
                DeskError::NoLink("lnk_9".into()),
                "Geçmişte böyle bir link yok: lnk_9",
                "No such link in the history: lnk_9",
            ),
            (
                DeskError::SandboxElsewhere("pid 41, 127.0.0.1:47110".into()),
                "Bu veri klasörünün yerleşik deneme sunucusunu başka bir paydesk çalıştırıyor \
                 (pid 41, 127.0.0.1:47110) ama yanıt vermiyor. O paydesk'i kapatıp yeniden deneyin.",
                "Another paydesk runs the built-in sandbox of this data folder (pid 41, \
                 127.0.0.1:47110) but it does not answer. Close that paydesk and try again.",
            ),
        ];
        for (error, tr, en) in cases {
            assert_eq!(error.sentence(Lang::Tr), tr);
            assert_eq!(error.sentence(Lang::En), en);
        }
        let csv = DeskError::Store(StoreError::Csv(CsvFileProblem::Empty));
        assert_eq!(csv.sentence(Lang::En), csv.to_string());
    }
}
