//! The app's long-lived link to the shop (docs/design.md §8, "The app in a shop"). No egui.
//!
//! A [`ShopSession`] is one tokio task on the app's worker runtime. It finds the password
//! (`PAYDESK_SHOP_PASSWORD` as `main` handed it over, else the keyring's entry, as the CLI
//! does), connects with [`super::connect_listening`], brings the schema up to date (a newer
//! one is refused untouched), registers the desk, and `LISTEN`s on [`CHANNELS`]. Then it
//! pushes the outbox after each local change ([`ShopSession::push_soon`]) and every
//! [`Timing::push_every`], passes each `NOTIFY` on, and every [`Timing::poll_every`] checks
//! that the shop still answers and asks the app to read again (the slow poll: the fallback
//! for a notification that was missed). When the shop cannot be reached it says since when
//! ([`Presence`]) and tries again after a wait that doubles up to a cap ([`Backoff`]).
//!
//! Everything reaches the app as a [`SessionEvent`] through a mailbox the UI drains without
//! waiting, and each one calls the waker. Both ways are fixed-size and never wait: the app's
//! asks are a set (`Asks`: asking twice before the session looks is asking once), and the
//! session's news keeps the latest of each kind (`News`: the reach, the push's outcome with
//! its counts summed, the channels that changed, a slow poll, the end), so a window that draws
//! no frame for a while neither stalls the pusher nor finds a stale state when it comes back.
//! Every call to PostgreSQL has a time limit, so a server whose port accepts and never
//! answers makes the desk offline, never stuck. Readers (the shop-wide board) borrow the open connection through a [`ShopReader`].

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::mpsc::Receiver;
use tokio::sync::{Mutex as AsyncMutex, Notify, OwnedMappedMutexGuard, OwnedMutexGuard};
use zeroize::Zeroizing;

use super::push::{self, PushError, Pushed};
use super::{CONNECT_TIMEOUT, Shop, ShopError, ShopUrl, desk, membership};
use crate::clock::Clock;
use crate::secrets::SecretStore;
use crate::store::Store;

/// The channels a desk listens on: links, the catalog and the staff changed (the payload is
/// the id of the desk that changed them).
pub const CHANNELS: [&str; 3] = ["paydesk_links", "paydesk_catalog", "paydesk_staff"];

/// What changed in the shop, by channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// `paydesk_links`: a link row.
    Links,
    /// `paydesk_catalog`: the catalog.
    Catalog,
    /// `paydesk_staff`: the staff.
    Staff,
}

impl Channel {
    /// The channel of a notification's name.
    pub fn of(name: &str) -> Option<Channel> {
        match name {
            "paydesk_links" => Some(Channel::Links),
            "paydesk_catalog" => Some(Channel::Catalog),
            "paydesk_staff" => Some(Channel::Staff),
            _ => None,
        }
    }
}

/// The session's waits and limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// A connection attempt (TCP, TLS, authentication).
    pub connect: Duration,
    /// One query (a ping, a registration, a read).
    pub query: Duration,
    /// A whole push of the outbox.
    pub push: Duration,
    /// How often the outbox is pushed when nothing asked for it.
    pub push_every: Duration,
    /// How often the shop is checked and the app asked to read again (the slow poll).
    pub poll_every: Duration,
    /// The first wait before connecting again.
    pub backoff_first: Duration,
    /// The longest wait before connecting again.
    pub backoff_max: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            connect: CONNECT_TIMEOUT,
            query: Duration::from_secs(5),
            push: Duration::from_secs(30),
            push_every: Duration::from_secs(3),
            poll_every: Duration::from_secs(30),
            backoff_first: Duration::from_secs(1),
            backoff_max: Duration::from_secs(30),
        }
    }
}

/// The wait before the next connection attempt: `first`, doubled after each failure up to
/// `max`, back to `first` after a success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    /// A backoff from `first` to `max`.
    pub fn new(first: Duration, max: Duration) -> Self {
        let max = max.max(first);
        Backoff {
            first,
            max,
            next: first,
        }
    }

    /// The wait after a failure (and the next one doubled).
    pub fn failed(&mut self) -> Duration {
        let wait = self.next;
        self.next = self.next.saturating_mul(2).min(self.max);
        wait
    }

    /// A connection succeeded: the next failure waits `first` again.
    pub fn reset(&mut self) {
        self.next = self.first;
    }
}

/// Whether the shop answers, and since when it does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Presence {
    /// Nothing tried yet.
    #[default]
    Unknown,
    /// Connected since.
    Online(DateTime<Utc>),
    /// Not reachable since.
    Offline(DateTime<Utc>),
}

impl Presence {
    /// The shop answered at `at`.
    pub fn online(&mut self, at: DateTime<Utc>) {
        if !matches!(self, Presence::Online(_)) {
            *self = Presence::Online(at);
        }
    }

    /// The shop could not be reached: by an attempt begun at `at`, or a connection found
    /// broken at `at`. Returns since when the desk is offline, which later failures keep.
    pub fn offline(&mut self, at: DateTime<Utc>) -> DateTime<Utc> {
        if let Presence::Offline(since) = *self {
            return since;
        }
        *self = Presence::Offline(at);
        at
    }
}

/// What the session tells the app.
#[derive(Debug)]
pub enum SessionEvent {
    /// Connected (and registered, listening), since.
    Online {
        /// When.
        since: DateTime<Utc>,
    },
    /// The shop cannot be reached (or refused), since.
    Offline {
        /// Since when the desk is offline.
        since: DateTime<Utc>,
        /// Why, this time.
        reason: ShopError,
        /// When the next attempt is.
        retry_in: Duration,
    },
    /// Outbox rows reached the shop.
    Pushed {
        /// What moved.
        pushed: Pushed,
    },
    /// A push failed while the shop answered (a damaged row, the data file): kept in the
    /// outbox and tried again.
    PushFailed {
        /// Why.
        reason: String,
    },
    /// Another desk (or this one) changed something in the shop.
    Changed {
        /// What.
        channel: Channel,
        /// The desk that changed it (the notification's payload).
        desk: String,
    },
    /// The slow poll: read the shop again, a notification may have been missed.
    Poll,
    /// The session ended after [`ShopSession::close`] (its leases given back if it was online).
    Closed,
}

/// What the app asks of the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ask {
    /// Push the outbox now (a local change).
    Push,
    /// Tell the shop the desk's name again.
    Register,
    /// Connect now if offline (no waiting for the backoff).
    Reconnect,
    /// The app is closing: push, give the leases back, end.
    Close,
}

impl Ask {
    /// Every ask, the one taken first first.
    const BY_PRIORITY: [Ask; 4] = [Ask::Close, Ask::Reconnect, Ask::Register, Ask::Push];
}

/// The app's asks: a set, not a queue. Each kind is pending at most once until the session
/// takes it (asking again meanwhile is the same ask), so asking never waits and nothing piles
/// up however often the app asks.
#[derive(Debug, Default)]
struct Asks {
    pending: Mutex<Vec<Ask>>,
    ready: Notify,
}

impl Asks {
    fn ask(&self, ask: Ask) {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if !pending.contains(&ask) {
            pending.push(ask);
        }
        drop(pending);
        self.ready.notify_one();
    }

    fn take(&self) -> Option<Ask> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        let ask = Ask::BY_PRIORITY.into_iter().find(|a| pending.contains(a))?;
        pending.retain(|a| *a != ask);
        Some(ask)
    }

    /// The next ask, waiting for one.
    async fn next(&self) -> Ask {
        loop {
            if let Some(ask) = self.take() {
                return ask;
            }
            // A permit left by an ask made since `take` looked wakes this at once.
            self.ready.notified().await;
        }
    }
}

/// The session's news for the app, the latest of each kind: at most one reach (online or
/// offline), one push outcome (the pushes since the app last looked, their counts summed, and
/// a failure only when it came after them), one change per channel, one slow poll, the end.
/// Fixed in size: the session never waits on the app, and the app loses nothing it shows.
#[derive(Debug, Default)]
struct News {
    reach: Option<SessionEvent>,
    pushed: Option<Pushed>,
    failed: Option<String>,
    changed: Vec<(Channel, String)>,
    poll: bool,
    closed: bool,
}

impl News {
    fn put(&mut self, event: SessionEvent) {
        match event {
            SessionEvent::Online { .. } | SessionEvent::Offline { .. } => {
                self.reach = Some(event);
            }
            SessionEvent::Pushed { pushed } => {
                self.failed = None;
                let sum = self.pushed.get_or_insert_with(Pushed::default);
                sum.add(&pushed);
            }
            SessionEvent::PushFailed { reason } => self.failed = Some(reason),
            SessionEvent::Changed { channel, desk } => {
                self.changed.retain(|(c, _)| *c != channel);
                self.changed.push((channel, desk));
            }
            SessionEvent::Poll => self.poll = true,
            SessionEvent::Closed => self.closed = true,
        }
    }

    /// The news as events, in the order the app takes them, and empty again.
    fn take(&mut self) -> Vec<SessionEvent> {
        let news = std::mem::take(self);
        let mut events: Vec<SessionEvent> = news.reach.into_iter().collect();
        events.extend(news.pushed.map(|pushed| SessionEvent::Pushed { pushed }));
        events.extend(
            news.failed
                .map(|reason| SessionEvent::PushFailed { reason }),
        );
        events.extend(
            news.changed
                .into_iter()
                .map(|(channel, desk)| SessionEvent::Changed { channel, desk }),
        );
        if news.poll {
            events.push(SessionEvent::Poll);
        }
        if news.closed {
            events.push(SessionEvent::Closed);
        }
        events
    }
}

/// The mailbox between the session and the app: the news, and a signal for `close`.
#[derive(Debug, Default)]
struct Mailbox {
    news: Mutex<News>,
    arrived: Condvar,
}

impl Mailbox {
    fn lock(&self) -> std::sync::MutexGuard<'_, News> {
        self.news.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What a session needs to run.
#[derive(Clone)]
pub struct SessionConfig {
    /// The shop joined.
    pub url: ShopUrl,
    /// `PAYDESK_SHOP_PASSWORD` as `main` read it.
    pub env_password: Option<Zeroizing<String>>,
    /// The keyring (or this run's memory).
    pub secrets: Arc<dyn SecretStore>,
    /// The desk's data file (the outbox, the desk's id and name).
    pub store: Arc<dyn StoreAccess>,
    /// The app's clock.
    pub clock: Arc<dyn Clock>,
    /// Waits and limits.
    pub timing: Timing,
}

impl std::fmt::Debug for SessionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionConfig")
            .field("url", &self.url.to_string())
            .field(
                "env_password",
                &self.env_password.as_ref().map(|_| "<redacted>"),
            )
            .field("timing", &self.timing)
            .finish_non_exhaustive()
    }
}

/// The desk's data file as the session reaches it (the app's services hold it).
pub trait StoreAccess: Send + Sync {
    /// The store.
    fn store(&self) -> &Mutex<Store>;
}

type Slot = Arc<AsyncMutex<Option<Shop>>>;

/// The open connection, borrowed by a reader for one query; `None` while offline.
#[derive(Clone)]
pub struct ShopReader {
    slot: Slot,
    timing: Timing,
}

impl std::fmt::Debug for ShopReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShopReader").finish_non_exhaustive()
    }
}

impl ShopReader {
    /// A reader over a connection of one's own (the command line's, a test's), with
    /// `timing`'s query limit.
    pub fn over(shop: Shop, timing: Timing) -> ShopReader {
        ShopReader {
            slot: Arc::new(AsyncMutex::new(Some(shop))),
            timing,
        }
    }

    /// The connection, when the desk is online; waits at most the query limit for a push or
    /// another read to let it go.
    pub async fn connection(&self) -> Option<OwnedMappedMutexGuard<Option<Shop>, Shop>> {
        let guard = tokio::time::timeout(self.timing.query, Arc::clone(&self.slot).lock_owned())
            .await
            .ok()?;
        OwnedMutexGuard::try_map(guard, Option::as_mut).ok()
    }

    /// The limit a reader puts on one query.
    pub fn query_limit(&self) -> Duration {
        self.timing.query
    }
}

/// The app's link to the shop. Dropping it stops the task and closes the connection.
pub struct ShopSession {
    url: ShopUrl,
    asks: Arc<Asks>,
    mailbox: Arc<Mailbox>,
    reader: ShopReader,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for ShopSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShopSession")
            .field("url", &self.url.to_string())
            .finish_non_exhaustive()
    }
}

impl Drop for ShopSession {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ShopSession {
    /// Starts the session on `runtime`; `wake` is called after each event.
    pub fn start(
        runtime: &tokio::runtime::Handle,
        config: SessionConfig,
        wake: crate::worker::Waker,
    ) -> ShopSession {
        let asks = Arc::new(Asks::default());
        let mailbox = Arc::new(Mailbox::default());
        let slot: Slot = Arc::new(AsyncMutex::new(None));
        let reader = ShopReader {
            slot: Arc::clone(&slot),
            timing: config.timing,
        };
        let url = config.url.clone();
        let out = Out {
            mailbox: Arc::clone(&mailbox),
            wake,
        };
        let task = runtime.spawn(run(config, slot, Arc::clone(&asks), out));
        ShopSession {
            url,
            asks,
            mailbox,
            reader,
            task,
        }
    }

    /// The shop this session is with.
    pub fn url(&self) -> &ShopUrl {
        &self.url
    }

    /// A local change is in the outbox: push it now (when online).
    pub fn push_soon(&self) {
        self.asks.ask(Ask::Push);
    }

    /// The desk's name changed: tell the shop (now when online, else on connecting).
    pub fn register_again(&self) {
        self.asks.ask(Ask::Register);
    }

    /// Try to connect now rather than after the backoff.
    pub fn reconnect_now(&self) {
        self.asks.ask(Ask::Reconnect);
    }

    /// The news since the last call, the latest of each kind; never waits.
    pub fn events(&self) -> Vec<SessionEvent> {
        self.mailbox.lock().take()
    }

    /// Closes the session as the app exits: pushes what waits and gives the desk's poll
    /// leases back when online, waiting at most `limit` (the one wait of the UI thread, at
    /// exit only: the window is gone). Whether the session ended within it.
    pub fn close(self, limit: Duration) -> bool {
        if self.task.is_finished() {
            return false;
        }
        self.asks.ask(Ask::Close);
        let news = self.mailbox.lock();
        let (news, _) = self
            .mailbox
            .arrived
            .wait_timeout_while(news, limit, |n| !n.closed)
            .unwrap_or_else(PoisonError::into_inner);
        news.closed
    }

    /// A handle for reading from the shop over the session's connection.
    pub fn reader(&self) -> ShopReader {
        self.reader.clone()
    }
}

/// The way events go to the app: into the mailbox, never waiting, then the waker.
struct Out {
    mailbox: Arc<Mailbox>,
    wake: crate::worker::Waker,
}

impl Out {
    fn send(&self, event: SessionEvent) {
        self.mailbox.lock().put(event);
        self.mailbox.arrived.notify_all();
        (self.wake)();
    }
}

/// Why a connected session ended.
enum Ended {
    /// The connection broke or stopped answering.
    Lost(ShopError),
    /// The app dropped the session.
    Stopped,
}

async fn run(config: SessionConfig, slot: Slot, asks: Arc<Asks>, out: Out) {
    connected(&config, &slot, &asks, &out).await;
    out.send(SessionEvent::Closed);
}

/// Connects, serves, and connects again, until the app drops or closes the session.
async fn connected(config: &SessionConfig, slot: &Slot, asks: &Asks, out: &Out) {
    let mut presence = Presence::default();
    let mut backoff = Backoff::new(config.timing.backoff_first, config.timing.backoff_max);
    loop {
        let started = config.clock.now();
        match open(config).await {
            Ok((shop, notes)) => {
                *slot.lock().await = Some(shop);
                backoff.reset();
                let now = config.clock.now();
                presence.online(now);
                out.send(SessionEvent::Online { since: now });
                // Anything may have changed while the desk was away.
                out.send(SessionEvent::Poll);
                let ended = serve(config, slot, notes, asks, out).await;
                *slot.lock().await = None;
                match ended {
                    Ended::Stopped => return,
                    Ended::Lost(reason) => {
                        let since = presence.offline(config.clock.now());
                        // Straight back to connecting once: a restarted server is back at once.
                        out.send(SessionEvent::Offline {
                            since,
                            reason,
                            retry_in: Duration::ZERO,
                        });
                    }
                }
            }
            Err(reason) => {
                let since = presence.offline(started);
                let wait = backoff.failed();
                out.send(SessionEvent::Offline {
                    since,
                    reason,
                    retry_in: wait,
                });
                if !wait_or_reconnect(wait, asks).await {
                    return;
                }
            }
        }
    }
}

/// Waits `wait`, or less when the app asks to reconnect now; `false` when the app closed
/// the session (a dropped session's task is aborted).
async fn wait_or_reconnect(wait: Duration, asks: &Asks) -> bool {
    let sleep = tokio::time::sleep(wait);
    tokio::pin!(sleep);
    loop {
        tokio::select! {
            () = &mut sleep => return true,
            ask = asks.next() => match ask {
                // Closing while offline: no leases to give back.
                Ask::Close => return false,
                Ask::Reconnect => return true,
                // Pushed and registered once connected.
                Ask::Push | Ask::Register => {}
            },
        }
    }
}

/// A limit on one step, as a "did not answer" error.
async fn limited<T>(
    limit: Duration,
    url: &ShopUrl,
    step: impl Future<Output = Result<T, ShopError>>,
) -> Result<T, ShopError> {
    tokio::time::timeout(limit, step).await.unwrap_or_else(|_| {
        Err(ShopError::Timeout {
            target: super::target(url),
            seconds: limit.as_secs().max(1),
        })
    })
}

/// Connects, checks the schema and the login, registers and listens.
async fn open(
    config: &SessionConfig,
    // The notifications of the new connection.
) -> Result<(Shop, Receiver<tokio_postgres::Notification>), ShopError> {
    let url = &config.url;
    let secrets = Arc::clone(&config.secrets);
    let env = config.env_password.clone();
    let key_url = url.clone();
    let password =
        tokio::task::spawn_blocking(move || membership::stored_password(&*secrets, env, &key_url))
            .await
            .map_err(ShopError::Interrupted)??;
    let (notes_tx, notes) = tokio::sync::mpsc::channel(super::NOTES);
    let shop = super::connect_listening(url, &password, config.timing.connect, notes_tx).await?;
    drop(password);
    let limit = config.timing.query;
    // The schema is the owner's to migrate; a desk checks it and its own login.
    limited(limit, url, desk::admit(&shop)).await?;
    register(config, &shop).await?;
    let listen = CHANNELS.map(|c| format!("LISTEN {c};")).concat();
    limited(limit, url, async {
        shop.client()
            .batch_execute(&listen)
            .await
            .map_err(|e| ShopError::from_pg(e, url))
    })
    .await?;
    Ok((shop, notes))
}

/// Tells the shop the desk's current name, and that it was seen now.
async fn register(config: &SessionConfig, shop: &Shop) -> Result<(), ShopError> {
    let identity = membership::identity(config.store.store()).map_err(ShopError::DataFile)?;
    limited(
        config.timing.query,
        &config.url,
        desk::register(shop, &identity),
    )
    .await
    .map(drop)
}

/// The connected loop: notifications, asks, the push and the slow poll.
async fn serve(
    config: &SessionConfig,
    slot: &Slot,
    mut notes: Receiver<tokio_postgres::Notification>,
    asks: &Asks,
    out: &Out,
) -> Ended {
    let start = tokio::time::Instant::now();
    let mut push_tick =
        tokio::time::interval_at(start + config.timing.push_every, config.timing.push_every);
    push_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut poll_tick =
        tokio::time::interval_at(start + config.timing.poll_every, config.timing.poll_every);
    poll_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // What was left in the outbox while offline goes first.
    if let Err(e) = push_now(config, slot, out).await {
        return Ended::Lost(e);
    }
    loop {
        let step = tokio::select! {
            note = notes.recv() => match note {
                Some(n) => {
                    if let Some(channel) = Channel::of(n.channel()) {
                        out.send(SessionEvent::Changed { channel, desk: n.payload().to_owned() });
                    }
                    Ok(())
                }
                None => Err(ShopError::Closed),
            },
            ask = asks.next() => match ask {
                Ask::Push => push_now(config, slot, out).await,
                Ask::Register => {
                    let guard = slot.lock().await;
                    match guard.as_ref() {
                        Some(shop) => register(config, shop).await,
                        None => Ok(()),
                    }
                }
                Ask::Reconnect => Ok(()),
                Ask::Close => {
                    close(config, slot, out).await;
                    return Ended::Stopped;
                }
            },
            _ = push_tick.tick() => push_now(config, slot, out).await,
            _ = poll_tick.tick() => {
                let pinged = ping(config, slot).await;
                if pinged.is_ok() {
                    out.send(SessionEvent::Poll);
                }
                pinged
            }
        };
        if let Err(e) = step {
            return Ended::Lost(e);
        }
    }
}

/// The app is closing: what waits in the outbox goes, and the desk's poll leases are given
/// back (`lease::release_all`), so another desk polls its links at once rather than after
/// the lease; each within the query's limit, failures logged (the leases run out anyway).
async fn close(config: &SessionConfig, slot: &Slot, out: &Out) {
    if let Err(e) = push_now(config, slot, out).await {
        tracing::warn!(error = %e, "the outbox was not pushed on closing");
    }
    let desk_id = match membership::identity(config.store.store()) {
        Ok(identity) => identity.id,
        Err(e) => {
            tracing::warn!(error = %e, "the desk's id could not be read on closing");
            return;
        }
    };
    // Taken out of the slot: no board ask renews a lease after it was given back.
    let Some(shop) = slot.lock().await.take() else {
        return;
    };
    let released = limited(
        config.timing.query,
        &config.url,
        super::lease::release_all(&shop, &desk_id),
    )
    .await;
    if let Err(e) = released {
        tracing::warn!(error = %e, "the desk's poll leases were not given back on closing");
    }
}

/// Checks that the shop answers.
async fn ping(config: &SessionConfig, slot: &Slot) -> Result<(), ShopError> {
    let guard = slot.lock().await;
    let Some(shop) = guard.as_ref() else {
        return Ok(());
    };
    limited(config.timing.query, &config.url, async {
        shop.client()
            .simple_query("SELECT 1")
            .await
            .map(|_| ())
            .map_err(|e| ShopError::from_pg(e, &config.url))
    })
    .await
}

/// Pushes the outbox; a shop that stops answering is the `Err` (the connection is lost), any
/// other failure an event (the rows stay in the outbox).
async fn push_now(config: &SessionConfig, slot: &Slot, out: &Out) -> Result<(), ShopError> {
    let store = config.store.store();
    let waiting = crate::store::with_locked(store, |s| s.outbox().count());
    match waiting {
        Ok(0) => return Ok(()),
        Ok(_) => {}
        Err(e) => {
            out.send(SessionEvent::PushFailed {
                reason: e.to_string(),
            });
            return Ok(());
        }
    }
    let mut guard = slot.lock().await;
    let Some(shop) = guard.as_mut() else {
        return Ok(());
    };
    let clock = Arc::clone(&config.clock);
    let pushed =
        tokio::time::timeout(config.timing.push, push::push(shop, store, || clock.now())).await;
    match pushed {
        Err(_) => Err(ShopError::Timeout {
            target: super::target(&config.url),
            seconds: config.timing.push.as_secs().max(1),
        }),
        Ok(Ok(pushed)) => {
            out.send(SessionEvent::Pushed { pushed });
            Ok(())
        }
        Ok(Err(PushError::Shop(e))) if e.is_no_answer() => Err(e),
        Ok(Err(e)) => {
            out.send(SessionEvent::PushFailed {
                reason: e.to_string(),
            });
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;

    use super::*;

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 27, h, m, 0).unwrap()
    }

    fn push_of(rows: u64, fork: Option<i64>) -> SessionEvent {
        SessionEvent::Pushed {
            pushed: Pushed {
                rows,
                batches: 1,
                audit_fork: fork,
                ..Pushed::default()
            },
        }
    }

    #[test]
    fn news_keeps_the_latest_of_each_kind_and_sums_the_pushes() {
        let mut news = News::default();
        // An app that drew no frame for a long while: thousands of events, a fixed mailbox.
        for i in 0..5_000 {
            news.put(SessionEvent::Offline {
                since: at(9, 0),
                reason: ShopError::Timeout {
                    target: format!("try {i}"),
                    seconds: 1,
                },
                retry_in: Duration::from_secs(1),
            });
            news.put(push_of(2, None));
            news.put(SessionEvent::Changed {
                channel: Channel::Links,
                desk: format!("d{i}"),
            });
            news.put(SessionEvent::Poll);
        }
        news.put(SessionEvent::Online { since: at(9, 5) });
        news.put(SessionEvent::PushFailed {
            reason: "a damaged row".into(),
        });
        news.put(push_of(1, Some(7)));
        news.put(SessionEvent::Changed {
            channel: Channel::Staff,
            desk: "d".into(),
        });
        let events = news.take();
        assert_eq!(events.len(), 5, "{events:?}");
        assert!(matches!(events[0], SessionEvent::Online { since } if since == at(9, 5)));
        let SessionEvent::Pushed { pushed } = &events[1] else {
            panic!("{events:?}")
        };
        assert_eq!(
            pushed.rows, 10_001,
            "every pushed row counts for the outbox"
        );
        assert_eq!(pushed.batches, 5_001);
        assert_eq!(pushed.audit_fork, Some(7), "the latest push's fork");
        // The failure came before the last push: it is over, not said.
        assert!(matches!(
            &events[2],
            SessionEvent::Changed { channel: Channel::Links, desk } if desk == "d4999"
        ));
        assert!(matches!(
            &events[3],
            SessionEvent::Changed {
                channel: Channel::Staff,
                ..
            }
        ));
        assert!(matches!(events[4], SessionEvent::Poll));
        assert!(news.take().is_empty(), "taken once");

        news.put(push_of(1, None));
        news.put(SessionEvent::PushFailed {
            reason: "a damaged row".into(),
        });
        let events = news.take();
        assert!(
            matches!(
                &events[..],
                [SessionEvent::Pushed { .. }, SessionEvent::PushFailed { .. }]
            ),
            "a failure after the push is said after it: {events:?}"
        );
    }

    #[test]
    fn asks_are_a_set_taken_close_first() {
        let asks = Asks::default();
        for _ in 0..1_000 {
            asks.ask(Ask::Push);
            asks.ask(Ask::Register);
        }
        asks.ask(Ask::Close);
        assert_eq!(asks.take(), Some(Ask::Close));
        assert_eq!(asks.take(), Some(Ask::Register));
        assert_eq!(asks.take(), Some(Ask::Push));
        assert_eq!(asks.take(), None, "asking a thousand times is asking once");
    }

    #[tokio::test]
    async fn an_ask_made_before_the_session_waits_is_not_missed() {
        let asks = Arc::new(Asks::default());
        asks.ask(Ask::Reconnect);
        let next = tokio::time::timeout(Duration::from_secs(5), asks.next()).await;
        assert_eq!(next.ok(), Some(Ask::Reconnect));
        let waiting = {
            let asks = Arc::clone(&asks);
            tokio::spawn(async move { asks.next().await })
        };
        tokio::task::yield_now().await;
        asks.ask(Ask::Push);
        let got = tokio::time::timeout(Duration::from_secs(5), waiting).await;
        assert_eq!(got.ok().and_then(Result::ok), Some(Ask::Push));
    }

    #[test]
    fn the_wait_doubles_up_to_the_cap_and_starts_over_after_a_success() {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(30));
        let waits: Vec<u64> = (0..7).map(|_| b.failed().as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30, 30]);
        b.reset();
        assert_eq!(b.failed(), Duration::from_secs(1));
        // A cap below the first wait is the first wait.
        let mut odd = Backoff::new(Duration::from_secs(5), Duration::from_secs(1));
        assert_eq!(
            (odd.failed(), odd.failed()),
            (Duration::from_secs(5), Duration::from_secs(5))
        );
    }

    #[test]
    fn offline_since_is_the_first_failure_and_survives_later_ones() {
        let mut p = Presence::default();
        // Never connected: since the first attempt began.
        assert_eq!(p.offline(at(10, 42)), at(10, 42));
        assert_eq!(p.offline(at(10, 43)), at(10, 42));
        assert_eq!(p.offline(at(11, 0)), at(10, 42));
        p.online(at(11, 5));
        assert_eq!(p, Presence::Online(at(11, 5)));
        // Online again keeps its first moment.
        p.online(at(11, 6));
        assert_eq!(p, Presence::Online(at(11, 5)));
        // Lost later: since it was found broken, not since the old outage.
        assert_eq!(p.offline(at(12, 30)), at(12, 30));
        assert_eq!(p.offline(at(12, 31)), at(12, 30));
    }

    struct Memory(Mutex<Store>);

    impl StoreAccess for Memory {
        fn store(&self) -> &Mutex<Store> {
            &self.0
        }
    }

    /// A port that accepts connections and never answers: the session says offline within
    /// the connection limit, keeps the first moment, waits longer each time, and a reconnect
    /// asked for skips the wait.
    #[test]
    fn a_shop_that_never_answers_is_offline_since_the_first_attempt_with_growing_waits() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        // Accepted and held open, never a byte back (the thread ends with the test binary).
        std::thread::spawn(move || {
            let kept: Vec<_> = listener.incoming().collect();
            drop(kept);
        });
        let clock = Arc::new(crate::clock::ManualClock::new(at(10, 42)));
        let config = SessionConfig {
            url: ShopUrl::parse(&format!("postgres://desk@127.0.0.1:{port}/shop")).unwrap(),
            env_password: Some(Zeroizing::new("pw".to_owned())),
            secrets: Arc::new(crate::secrets::OsSecrets::without_keyring(
                crate::secrets::WithoutKeyring::ThisRunOnly,
                "test",
            )),
            store: Arc::new(Memory(Mutex::new(Store::open_in_memory().unwrap()))),
            clock: clock.clone(),
            timing: Timing {
                connect: Duration::from_millis(200),
                backoff_first: Duration::from_millis(100),
                backoff_max: Duration::from_millis(150),
                ..Timing::default()
            },
        };
        let wakes = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let w = Arc::clone(&wakes);
        let session = ShopSession::start(
            runtime.handle(),
            config,
            Arc::new(move || {
                w.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }),
        );
        let next = |session: &ShopSession| {
            let until = std::time::Instant::now() + Duration::from_secs(5);
            loop {
                if let Some(e) = session.events().into_iter().next() {
                    return e;
                }
                assert!(std::time::Instant::now() < until, "no event");
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        let t = std::time::Instant::now();
        let SessionEvent::Offline {
            since,
            reason,
            retry_in,
        } = next(&session)
        else {
            panic!("offline first");
        };
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        assert_eq!(since, at(10, 42));
        assert!(matches!(reason, ShopError::Timeout { .. }), "{reason:?}");
        assert_eq!(retry_in, Duration::from_millis(100));
        clock.set(at(10, 50));
        let SessionEvent::Offline {
            since, retry_in, ..
        } = next(&session)
        else {
            panic!("offline again");
        };
        assert_eq!(since, at(10, 42), "the first moment is kept");
        assert_eq!(
            retry_in,
            Duration::from_millis(150),
            "doubled, up to the cap"
        );
        assert!(wakes.load(std::sync::atomic::Ordering::SeqCst) >= 2);
        drop(session);
        drop(runtime);
    }

    #[test]
    fn channels_are_read_by_name() {
        assert_eq!(Channel::of("paydesk_links"), Some(Channel::Links));
        assert_eq!(Channel::of("paydesk_catalog"), Some(Channel::Catalog));
        assert_eq!(Channel::of("paydesk_staff"), Some(Channel::Staff));
        assert_eq!(Channel::of("other"), None);
        for c in CHANNELS {
            assert!(Channel::of(c).is_some());
        }
    }
}
