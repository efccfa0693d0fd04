//! What the sandbox holds: payment links and saved cards, in memory, mirrored to the `SQLite`
//! state file when one is given (`--state`). Records never contain a PAN or a CVV: a card is
//! kept as its mask and the provider's token only.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::persist::Db;
use super::respond::ApiError;
use crate::api::wire::{self, PaymentLink, SavedCard};
use crate::domain::{CardStatus, CardUsage, Currency, LinkStatus};

/// One item of a link, with the price the server settled on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemRecord {
    /// Catalog variant, when it is a catalog item.
    pub product_variant_id: Option<String>,
    /// Item name (the variant's name for catalog items).
    pub name: String,
    /// Unit price.
    #[serde(with = "wire::amount")]
    pub unit_price: Decimal,
    /// Quantity.
    pub quantity: u32,
    /// Per-item note.
    pub special_note: Option<String>,
}

/// One payment made on a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRecord {
    /// Transaction reference.
    pub transaction_ref: String,
    /// Amount paid.
    #[serde(with = "wire::amount")]
    pub amount: Decimal,
    /// When.
    pub paid_at: DateTime<Utc>,
}

/// A payment link as the sandbox keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkRecord {
    /// Identifier.
    pub id: String,
    /// Owning business.
    pub business: String,
    /// Generated reference number.
    pub reference_number: String,
    /// The caller's order number.
    pub order_number: Option<String>,
    /// Total.
    #[serde(with = "wire::amount")]
    pub amount: Decimal,
    /// Cart amount (equal to `amount` when omitted).
    #[serde(with = "wire::amount")]
    pub cart_amount: Decimal,
    /// Currency.
    pub currency: Currency,
    /// Collected so far.
    #[serde(with = "wire::amount")]
    pub paid_amount: Decimal,
    /// Stored status (expiry is applied when read, see [`LinkRecord::status_at`]).
    pub status: LinkStatus,
    /// Reference of the latest payment.
    pub transaction_ref: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Partial payment allowed.
    pub allow_partial_payment: bool,
    /// Installments enabled.
    pub enable_installment: bool,
    /// Allowed installment counts.
    pub available_installments: Option<String>,
    /// Whether the pay page asks for contact data.
    pub contact_required: bool,
    /// Payer e-mail.
    pub email: Option<String>,
    /// Payer phone country code.
    pub phone_country_code: Option<String>,
    /// Payer phone number.
    pub phone_number: Option<String>,
    /// Last valid moment.
    #[serde(with = "wire::time_opt")]
    pub expiry_date: Option<DateTime<Utc>>,
    /// Completion moment.
    #[serde(with = "wire::time_opt")]
    pub completed_date: Option<DateTime<Utc>>,
    /// Creation moment.
    pub created_date: DateTime<Utc>,
    /// Items.
    pub items: Vec<ItemRecord>,
    /// Payments.
    pub payments: Vec<PaymentRecord>,
}

impl LinkRecord {
    /// The status as read at `now`: a pending link past its expiry reads as EXPIRED.
    pub fn status_at(&self, now: DateTime<Utc>) -> LinkStatus {
        match (&self.status, self.expiry_date) {
            (LinkStatus::Pending, Some(expiry)) if expiry <= now => LinkStatus::Expired,
            (status, _) => status.clone(),
        }
    }

    /// Amount left to pay.
    pub fn remaining(&self) -> Decimal {
        self.amount - self.paid_amount
    }

    /// The link as the API returns it.
    pub fn view(&self, base_url: &str, now: DateTime<Utc>) -> PaymentLink {
        PaymentLink {
            id: self.id.clone(),
            reference_number: Some(self.reference_number.clone()),
            order_number: self.order_number.clone(),
            payment_url: Some(format!("{base_url}/pay/{}", self.id)),
            transaction_ref: self.transaction_ref.clone(),
            amount: Some(self.amount),
            paid_amount: Some(self.paid_amount),
            remaining_amount: Some(self.remaining()),
            currency: Some(self.currency),
            status: Some(self.status_at(now)),
            description: self.description.clone(),
            allow_partial_payment: Some(self.allow_partial_payment),
            enable_installment: Some(self.enable_installment),
            available_installments: self.available_installments.clone(),
            email: self.email.clone(),
            phone_country_code: self.phone_country_code.clone(),
            phone_number: self.phone_number.clone(),
            expiry_date: self.expiry_date,
            completed_date: self.completed_date,
            created_date: Some(self.created_date),
        }
    }
}

/// A saved card as the sandbox keeps it: the mask and the provider's token, never the PAN.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardRecord {
    /// Identifier (`savedCardId`).
    pub id: String,
    /// Owning business.
    pub business: String,
    /// Customer it is stored for; `None` for the business's own card.
    pub customer_id: Option<String>,
    /// The POS provider that tokenized it.
    pub provider_id: String,
    /// The provider's token.
    pub provider_token: String,
    /// First six, stars, last four.
    pub masked_pan: String,
    /// Reminder name.
    pub alias: Option<String>,
    /// Name on the card.
    pub card_holder_name: Option<String>,
    /// Brand from the BIN table.
    pub brand: Option<String>,
    /// Bank from the BIN table.
    pub bank_name: Option<String>,
    /// Card type from the BIN table.
    pub card_type: Option<String>,
    /// Card family from the BIN table.
    pub card_family: Option<String>,
    /// MM.
    pub expiry_month: String,
    /// YYYY.
    pub expiry_year: String,
    /// Usage.
    pub usage: CardUsage,
    /// Status.
    pub status: CardStatus,
    /// Default card of its usage for its owner.
    pub is_default: bool,
    /// Creation moment.
    pub created_date: DateTime<Utc>,
}

impl CardRecord {
    /// The card as the API returns it.
    pub fn view(&self) -> SavedCard {
        SavedCard {
            id: self.id.clone(),
            masked_pan: Some(self.masked_pan.clone()),
            alias: self.alias.clone(),
            card_holder_name: self.card_holder_name.clone(),
            brand: self.brand.clone(),
            bank_name: self.bank_name.clone(),
            card_type: self.card_type.clone(),
            expiry_month: Some(self.expiry_month.clone()),
            expiry_year: Some(self.expiry_year.clone()),
            usage: Some(self.usage),
            status: Some(self.status.clone()),
            is_default: Some(self.is_default),
            customer_id: self.customer_id.clone(),
            created_date: Some(self.created_date),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn state_failed(e: &rusqlite::Error) -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "sandbox.state.failed",
        format!("the sandbox could not write its state file: {e}"),
    )
}

/// Links and cards, with the optional state file behind them.
#[derive(Debug, Default)]
pub struct Store {
    links: Mutex<HashMap<String, LinkRecord>>,
    cards: Mutex<Vec<CardRecord>>,
    db: Option<Arc<Db>>,
}

impl Store {
    /// A store starting from what the state file holds (or empty, in memory).
    pub fn new(db: Option<Arc<Db>>, links: Vec<LinkRecord>, cards: Vec<CardRecord>) -> Store {
        Store {
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
    pub fn insert_link(&self, link: LinkRecord) -> Result<(), ApiError> {
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
        change: impl FnOnce(&mut LinkRecord) -> Result<R, ApiError>,
    ) -> Option<Result<R, ApiError>> {
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
    pub fn insert_card(&self, card: CardRecord) -> Result<(), ApiError> {
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
