//! The server side of the spec's idempotency table, written once for every write endpoint
//! that takes `Idempotency-Key` (link create here; card/pay, capture and recurring/create
//! could use it unchanged).
//!
//! Keys are scoped per business × endpoint × key and kept 24 hours (by the injected clock).
//! "Same body" means an equal JSON value; the store keeps only a SHA-256 of the body's
//! canonical form (keys sorted), so a body that carries card data is never retained.
//! While the first request runs the key holds an in-progress marker; a request that ends in
//! failure, or is dropped before it completes, frees the key.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use chrono::Duration;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// How long a key is remembered.
pub const RETENTION: Duration = Duration::hours(24);

/// Where a key lives: the business, the endpoint and the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    /// The caller's business.
    pub business: String,
    /// The endpoint name (`link.create`).
    pub endpoint: String,
    /// The `Idempotency-Key` header.
    pub key: String,
}

/// The answer bound to a key once its first request completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    /// HTTP status of the first answer.
    pub status: u16,
    /// Its exact body bytes.
    pub body: Arc<[u8]>,
}

/// A completed key, as persisted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Where the key lives.
    pub scope: Scope,
    /// SHA-256 of the canonical body.
    pub body_digest: [u8; 32],
    /// When the first request arrived (Unix ms).
    pub created_ms: i64,
    /// The first answer.
    pub response: StoredResponse,
}

/// Receives every completed key (the `SQLite` state file implements it).
pub trait Sink: Send + Sync + std::fmt::Debug {
    /// A key completed; keep it.
    fn completed(&self, record: &Record);
}

/// What a request with a key may do.
#[derive(Debug)]
pub enum Claim {
    /// First request (or the earlier one failed / expired): run it, then complete the guard.
    Proceed(Guard),
    /// Same key and body, completed: send this answer again, do not run.
    Replay(StoredResponse),
    /// Same key and body, the first request still runs: 406.
    InProgress,
    /// Same key, different body: 406.
    Reused,
}

#[derive(Debug)]
enum State {
    InProgress { generation: u64 },
    Done(StoredResponse),
}

#[derive(Debug)]
struct Entry {
    digest: [u8; 32],
    created_ms: i64,
    state: State,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<Scope, Entry>,
    /// Insertion order, for pruning expired keys in amortized O(1).
    order: VecDeque<(i64, Scope)>,
    generation: u64,
}

/// The idempotency store. Cheap to share: clone the `Arc`.
#[derive(Debug, Default)]
pub struct KeyStore {
    inner: Mutex<Inner>,
    sink: Option<Arc<dyn Sink>>,
}

/// Digest of a JSON value's canonical form: object keys sorted at every level, numbers with
/// their exact text. Equal values give equal digests.
pub fn body_digest(value: &Value) -> [u8; 32] {
    fn write(v: &Value, out: &mut Sha256) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.update(b"{");
                for k in keys {
                    out.update(serde_json::to_string(k).unwrap_or_default().as_bytes());
                    out.update(b":");
                    write(&map[k], out);
                    out.update(b",");
                }
                out.update(b"}");
            }
            Value::Array(items) => {
                out.update(b"[");
                for item in items {
                    write(item, out);
                    out.update(b",");
                }
                out.update(b"]");
            }
            other => out.update(other.to_string().as_bytes()),
        }
    }
    let mut hasher = Sha256::new();
    write(value, &mut hasher);
    hasher.finalize().into()
}

impl KeyStore {
    /// An in-memory store.
    pub fn new() -> Self {
        Self::default()
    }

    /// A store that reports completed keys to `sink`, starting from `records` (loaded from
    /// the state file; expired ones are skipped by the caller or on first use).
    pub fn with_sink(sink: Arc<dyn Sink>, records: Vec<Record>) -> Self {
        let store = KeyStore {
            inner: Mutex::new(Inner::default()),
            sink: Some(sink),
        };
        {
            let mut inner = store.lock();
            for r in records {
                inner.order.push_back((r.created_ms, r.scope.clone()));
                inner.entries.insert(
                    r.scope,
                    Entry {
                        digest: r.body_digest,
                        created_ms: r.created_ms,
                        state: State::Done(r.response),
                    },
                );
            }
        }
        store
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Decides what a request with `scope` and `body` may do at `now_ms`.
    pub fn claim(self: &Arc<Self>, scope: Scope, body: &Value, now_ms: i64) -> Claim {
        let digest = body_digest(body);
        let mut inner = self.lock();
        prune(&mut inner, now_ms);
        if let Some(entry) = inner.entries.get(&scope)
            && now_ms - entry.created_ms < RETENTION.num_milliseconds()
        {
            if entry.digest != digest {
                return Claim::Reused;
            }
            return match &entry.state {
                State::InProgress { .. } => Claim::InProgress,
                State::Done(response) => Claim::Replay(response.clone()),
            };
        }
        inner.generation += 1;
        let generation = inner.generation;
        inner.order.push_back((now_ms, scope.clone()));
        inner.entries.insert(
            scope.clone(),
            Entry {
                digest,
                created_ms: now_ms,
                state: State::InProgress { generation },
            },
        );
        Claim::Proceed(Guard {
            store: Arc::clone(self),
            scope: Some(scope),
            generation,
        })
    }

    /// Every completed key (for the admin state dump).
    pub fn completed(&self) -> Vec<Record> {
        let inner = self.lock();
        let mut out: Vec<Record> = inner
            .entries
            .iter()
            .filter_map(|(scope, e)| match &e.state {
                State::Done(response) => Some(Record {
                    scope: scope.clone(),
                    body_digest: e.digest,
                    created_ms: e.created_ms,
                    response: response.clone(),
                }),
                State::InProgress { .. } => None,
            })
            .collect();
        out.sort_by(|a, b| a.scope.cmp(&b.scope));
        out
    }

    /// Keys whose first request is still running.
    pub fn in_progress(&self) -> Vec<Scope> {
        let inner = self.lock();
        let mut out: Vec<Scope> = inner
            .entries
            .iter()
            .filter(|(_, e)| matches!(e.state, State::InProgress { .. }))
            .map(|(s, _)| s.clone())
            .collect();
        out.sort();
        out
    }
}

fn prune(inner: &mut Inner, now_ms: i64) {
    let horizon = now_ms - RETENTION.num_milliseconds();
    while let Some((created, _)) = inner.order.front() {
        if *created > horizon {
            break;
        }
        let Some((created, scope)) = inner.order.pop_front() else {
            break;
        };
        let expired = inner
            .entries
            .get(&scope)
            .is_some_and(|e| e.created_ms == created && matches!(e.state, State::Done(_)));
        if expired {
            inner.entries.remove(&scope);
        }
    }
}

/// The right to run the first request of a key. Complete it with the answer; dropping it
/// without completing (a failure, or the client went away first) frees the key.
#[derive(Debug)]
pub struct Guard {
    store: Arc<KeyStore>,
    scope: Option<Scope>,
    generation: u64,
}

impl Guard {
    /// Binds the answer to the key.
    pub fn complete(mut self, response: StoredResponse) {
        let Some(scope) = self.scope.take() else {
            return;
        };
        let record = {
            let mut inner = self.store.lock();
            let Some(entry) = inner.entries.get_mut(&scope) else {
                return;
            };
            if !matches!(entry.state, State::InProgress { generation } if generation == self.generation)
            {
                return;
            }
            entry.state = State::Done(response.clone());
            Record {
                scope,
                body_digest: entry.digest,
                created_ms: entry.created_ms,
                response,
            }
        };
        if let Some(sink) = &self.store.sink {
            sink.completed(&record);
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(scope) = self.scope.take() {
            let mut inner = self.store.lock();
            let ours = inner.entries.get(&scope).is_some_and(
                |e| matches!(e.state, State::InProgress { generation } if generation == self.generation),
            );
            if ours {
                inner.entries.remove(&scope);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(key: &str) -> Scope {
        Scope {
            business: "b".into(),
            endpoint: "link.create".into(),
            key: key.into(),
        }
    }

    fn response(text: &str) -> StoredResponse {
        StoredResponse {
            status: 200,
            body: Arc::from(text.as_bytes()),
        }
    }

    #[test]
    fn digest_ignores_key_order_but_not_number_text() {
        let a: Value = serde_json::from_str(r#"{"a":1,"b":{"x":[1,2],"y":"z"}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b":{"y":"z","x":[1,2]},"a":1}"#).unwrap();
        let c: Value = serde_json::from_str(r#"{"a":1.0,"b":{"x":[1,2],"y":"z"}}"#).unwrap();
        assert_eq!(body_digest(&a), body_digest(&b));
        assert_ne!(body_digest(&a), body_digest(&c));
    }

    #[test]
    fn the_six_situations_of_the_spec() {
        let store = Arc::new(KeyStore::new());
        let body: Value = serde_json::from_str(r#"{"amount":10}"#).unwrap();
        let other: Value = serde_json::from_str(r#"{"amount":11}"#).unwrap();
        let Claim::Proceed(first) = store.claim(scope("k"), &body, 0) else {
            panic!("first request must proceed");
        };
        assert!(matches!(
            store.claim(scope("k"), &body, 1),
            Claim::InProgress
        ));
        assert!(matches!(store.claim(scope("k"), &other, 1), Claim::Reused));
        first.complete(response("one"));
        match store.claim(scope("k"), &body, 2) {
            Claim::Replay(r) => assert_eq!(&*r.body, b"one"),
            other => panic!("expected replay, got {other:?}"),
        }
        assert!(matches!(store.claim(scope("k"), &other, 2), Claim::Reused));
        // A failed first request frees the key.
        let Claim::Proceed(failing) = store.claim(scope("f"), &body, 3) else {
            panic!("must proceed");
        };
        drop(failing);
        assert!(matches!(
            store.claim(scope("f"), &other, 4),
            Claim::Proceed(_)
        ));
        // Other endpoint, other business: other keys.
        let mut s = scope("k");
        s.endpoint = "card.pay".into();
        assert!(matches!(store.claim(s, &other, 5), Claim::Proceed(_)));
        let mut s = scope("k");
        s.business = "other".into();
        assert!(matches!(store.claim(s, &other, 5), Claim::Proceed(_)));
    }

    #[test]
    fn keys_are_forgotten_after_24_hours() {
        let store = Arc::new(KeyStore::new());
        let body: Value = serde_json::from_str(r#"{"amount":10}"#).unwrap();
        let other: Value = serde_json::from_str(r#"{"amount":11}"#).unwrap();
        let Claim::Proceed(g) = store.claim(scope("k"), &body, 0) else {
            panic!("must proceed");
        };
        g.complete(response("one"));
        let day = RETENTION.num_milliseconds();
        assert!(matches!(
            store.claim(scope("k"), &other, day - 1),
            Claim::Reused
        ));
        assert!(matches!(
            store.claim(scope("k"), &other, day),
            Claim::Proceed(_)
        ));
    }
}
