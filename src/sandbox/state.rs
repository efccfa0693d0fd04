//! What the sandbox holds: payment links and saved cards, in memory, mirrored to the `SQLite`
//! state file when one is given (`--state`). Records never contain a PAN or a CVV: a card is
//! kept as its mask and the provider's token only.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::http::StatusCode;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::persist::Db;
pub use super::records::{CardRecord, ItemRecord, LinkRecord, PaymentRecord};
use super::respond::Rejection;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn state_failed(e: &rusqlite::Error) -> Rejection {
    Rejection::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "sandbox.state.failed",
        format!("the sandbox could not write its state file: {e}"),
    )
}

/// Links and cards, with the optional state file behind them.
#[derive(Debug, Default)]
pub struct LiveStore {
    links: Mutex<HashMap<String, LinkRecord>>,
    cards: Mutex<Vec<CardRecord>>,
    db: Option<Arc<Db>>,
}

impl LiveStore {
    /// A store starting from what the state file holds (or empty, in memory).
    pub fn new(db: Option<Arc<Db>>, links: Vec<LinkRecord>, cards: Vec<CardRecord>) -> LiveStore {
        LiveStore {
            links: Mutex::new(links.into_iter().map(|l| (l.id.clone(), l)).collect()),
            cards: Mutex::new(cards),
            db,
        }
    }

    /// Whether an id is taken by a link or a card.
    pub fn id_taken(&self, id: &str) -> bool {
        lock(&self.links).contains_key(id) || lock(&self.cards).iter().any(|c| c.id == id)
    }

    /// Number of links.
    pub fn link_count(&self) -> usize {
        lock(&self.links).len()
    }

    /// Adds a new link.
    pub fn insert_link(&self, link: LinkRecord) -> Result<(), Rejection> {
        let mut links = lock(&self.links);
        if let Some(db) = &self.db {
            db.put_link(&link).map_err(|e| state_failed(&e))?;
        }
        links.insert(link.id.clone(), link);
        Ok(())
    }

    /// A copy of one link.
    pub fn link(&self, id: &str) -> Option<LinkRecord> {
        lock(&self.links).get(id).cloned()
    }

    /// Changes one link with `change`; the change is kept only when it returns `Ok`.
    pub fn update_link<R>(
        &self,
        id: &str,
        change: impl FnOnce(&mut LinkRecord) -> Result<R, Rejection>,
    ) -> Option<Result<R, Rejection>> {
        let mut links = lock(&self.links);
        let current = links.get(id)?;
        let mut next = current.clone();
        let result = change(&mut next);
        let changed = next != *current;
        Some(result.and_then(|r| {
            if changed {
                if let Some(db) = &self.db {
                    db.put_link(&next).map_err(|e| state_failed(&e))?;
                }
                links.insert(next.id.clone(), next);
            }
            Ok(r)
        }))
    }

    /// Links, of one business or all, oldest first.
    pub fn links(&self, business: Option<&str>) -> Vec<LinkRecord> {
        let mut out: Vec<LinkRecord> = lock(&self.links)
            .values()
            .filter(|l| business.is_none_or(|b| l.business == b))
            .cloned()
            .collect();
        out.sort_by(|a, b| a.created_date.cmp(&b.created_date).then(a.id.cmp(&b.id)));
        out
    }

    /// Adds a saved card; a default card clears the previous default of the same usage for
    /// the same owner (business and customer).
    pub fn insert_card(&self, card: CardRecord) -> Result<(), Rejection> {
        let mut cards = lock(&self.cards);
        let mut changed = Vec::new();
        if card.is_default {
            for other in cards.iter() {
                if other.is_default
                    && other.business == card.business
                    && other.customer_id == card.customer_id
                    && other.usage == card.usage
                {
                    let mut cleared = other.clone();
                    cleared.is_default = false;
                    changed.push(cleared);
                }
            }
        }
        if let Some(db) = &self.db {
            for c in changed.iter().chain(std::iter::once(&card)) {
                db.put_card(c).map_err(|e| state_failed(&e))?;
            }
        }
        for c in changed {
            if let Some(slot) = cards.iter_mut().find(|x| x.id == c.id) {
                *slot = c;
            }
        }
        cards.push(card);
        Ok(())
    }

    /// Every saved card, oldest first.
    pub fn cards(&self) -> Vec<CardRecord> {
        lock(&self.cards).clone()
    }
}

/// Identifiers and reference numbers, from a generator seeded with `--seed` (or entropy).
#[derive(Debug)]
pub struct IdGen {
    rng: Mutex<StdRng>,
    seq: AtomicU64,
}

impl IdGen {
    /// A generator; reference numbers continue after `issued` earlier links.
    pub fn new(seed: u64, issued: u64) -> IdGen {
        IdGen {
            rng: Mutex::new(StdRng::seed_from_u64(seed)),
            seq: AtomicU64::new(issued),
        }
    }

    /// `{prefix}_{16 hex digits}`.
    pub fn id(&self, prefix: &str) -> String {
        let n: u64 = lock(&self.rng).random();
        format!("{prefix}_{n:016x}")
    }

    /// A provider token: `tok_{32 hex digits}`.
    pub fn token(&self) -> String {
        let (a, b): (u64, u64) = {
            let mut rng = lock(&self.rng);
            (rng.random(), rng.random())
        };
        format!("tok_{a:016x}{b:016x}")
    }

    /// The next reference number, `SBX` and nine digits.
    pub fn reference(&self) -> String {
        format!("SBX{:09}", self.seq.fetch_add(1, Ordering::Relaxed) + 1)
    }
}
