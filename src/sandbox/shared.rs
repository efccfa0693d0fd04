//! What every request handler of the sandbox shares: the fixture's look-up tables, the clock,
//! the replay cache, the idempotency store, links and cards, fault rules and identifiers. The
//! server builds it; the handlers only read it, so both look down at this module.

use std::net::SocketAddr;
use std::sync::Arc;

use super::auth::ReplayCache;
use super::faults::Board;
use super::fixture::Fixture;
use super::idempotency;
use super::index::Index;
use super::requests::RequestLog;
use super::state::{IdGen, LiveStore};
use crate::clock::Clock;

/// Everything a request handler may use.
#[derive(Debug)]
pub struct Shared {
    /// The fixture as look-up tables.
    pub index: Index,
    /// The fixture itself (for the admin summary).
    pub fixture: Fixture,
    /// "Now".
    pub clock: Arc<dyn Clock>,
    /// Recently seen signatures.
    pub replay: ReplayCache,
    /// Idempotency keys.
    pub idem: Arc<idempotency::KeyStore>,
    /// Links and cards.
    pub store: LiveStore,
    /// Fault rules.
    pub faults: Board,
    /// Identifiers.
    pub ids: IdGen,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// The address the listener is bound to (`0.0.0.0:PORT` when bound to every address).
    pub bound: SocketAddr,
    /// Whether a state file backs the store.
    pub persistent: bool,
    /// Every API request received (tests hold the app to a traffic budget with it).
    pub requests: RequestLog,
    /// A random name of this run, in the admin summary: how a process that finds the state
    /// file's lock taken knows the port named there is still this server (`lock::answers`).
    pub instance: String,
}
