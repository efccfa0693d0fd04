//! Saved cards as the server described them: the response content of card save, so the back
//! office can list what it stored. The table has no column that could hold a card number
//! except `masked_pan`, `alias` and `card_holder_name`, and those are read masked from the
//! answer (`api::wire::SavedCard`) and masked again before they are written (at most the first
//! 6 and the last 4 digits), so even a faulty server cannot make paydesk write a PAN to disk.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension as _, params};

use super::audit::{Audit, AuditAction};
use super::outbox::{Account, CardPush, Outbox};
use super::profiles::Profiles;
use super::repo::{Write, repository};
use super::shop::Shop;
use super::{Columns, Store, StoreError, col, from_millis, to_millis, write_tx};
use crate::api::wire::{SavedCard, format_time, parse_time};
use crate::domain::card::safe_masked_pan;
use crate::domain::{CardStatus, CardUsage};

/// A saved card in the local list.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredCard {
    /// The profile it was saved through.
    pub profile: String,
    /// The response content.
    pub card: SavedCard,
    /// When this install stored it.
    pub stored_at: DateTime<Utc>,
}

/// The columns of `saved_cards` a card is read from.
const CARD: Columns<16> = Columns([
    "profile",
    "id",
    "masked_pan",
    "alias",
    "card_holder_name",
    "brand",
    "bank_name",
    "card_type",
    "expiry_month",
    "expiry_year",
    "usage",
    "status",
    "is_default",
    "customer_id",
    "created_date",
    "stored_at",
]);

repository!(
    /// The `saved_cards` table: saved cards as response content (masks only).
    Cards
);

impl<A> Cards<'_, A> {
    /// A profile's saved cards, most recently stored first.
    pub fn list(&self, profile: &str) -> Result<Vec<StoredCard>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {} FROM saved_cards WHERE profile = ?1 ORDER BY stored_at DESC, id",
            CARD.list()
        ))?;
        let mut rows = stmt.query([profile])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let usage: Option<String> = r.get(col!(CARD, "usage"))?;
            let status: Option<String> = r.get(col!(CARD, "status"))?;
            let created: Option<String> = r.get(col!(CARD, "created_date"))?;
            out.push(StoredCard {
                profile: r.get(col!(CARD, "profile"))?,
                card: SavedCard {
                    id: r.get(col!(CARD, "id"))?,
                    masked_pan: r.get(col!(CARD, "masked_pan"))?,
                    alias: r.get(col!(CARD, "alias"))?,
                    card_holder_name: r.get(col!(CARD, "card_holder_name"))?,
                    brand: r.get(col!(CARD, "brand"))?,
                    bank_name: r.get(col!(CARD, "bank_name"))?,
                    card_type: r.get(col!(CARD, "card_type"))?,
                    expiry_month: r.get(col!(CARD, "expiry_month"))?,
                    expiry_year: r.get(col!(CARD, "expiry_year"))?,
                    usage: usage
                        .map(|u| {
                            CardUsage::from_str(&u).map_err(|_| StoreError::Corrupt {
                                what: "card usage",
                                value: u,
                            })
                        })
                        .transpose()?,
                    status: status.map(|s| CardStatus::from_wire(&s)),
                    is_default: r.get(col!(CARD, "is_default"))?,
                    customer_id: r.get(col!(CARD, "customer_id"))?,
                    created_date: created
                        .map(|t| {
                            parse_time(&t).ok_or(StoreError::Corrupt {
                                what: "card timestamp",
                                value: t,
                            })
                        })
                        .transpose()?,
                },
                stored_at: from_millis(r.get(col!(CARD, "stored_at"))?)?,
            });
        }
        Ok(out)
    }

    /// The saved card `id` of `profile` (which reaches `account`) as the shop is sent it: its
    /// mask and what the server said of its kind, never a holder's name or a customer id.
    fn push_of(
        &self,
        profile: &str,
        account: Account,
        id: &str,
    ) -> Result<Option<CardPush>, StoreError> {
        let profile_card = self
            .conn
            .query_row(
                "SELECT masked_pan, brand, card_type, bank_name, stored_at FROM saved_cards
                 WHERE profile = ?1 AND id = ?2",
                params![profile, id],
                |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get::<_, i64>(4)?,
                    ))
                },
            )
            .optional()?;
        let Some((masked_pan, brand, card_type, bank_name, stored_at)) = profile_card else {
            return Ok(None);
        };
        Ok(Some(CardPush {
            account,
            card_id: id.to_owned(),
            masked_pan: masked_pan.as_deref().map(safe_masked_pan),
            brand,
            card_type,
            bank_name,
            stored_at: from_millis(stored_at)?,
        }))
    }
}

impl Cards<'_, Write> {
    /// Stores (or refreshes) a saved card's response content, masked again.
    fn upsert(
        &self,
        profile: &str,
        card: &SavedCard,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO saved_cards (profile, id, masked_pan, alias, card_holder_name, brand,
                 bank_name, card_type, expiry_month, expiry_year, usage, status, is_default,
                 customer_id, created_date, stored_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
             ON CONFLICT (profile, id) DO UPDATE SET
                 masked_pan = excluded.masked_pan, alias = excluded.alias,
                 card_holder_name = excluded.card_holder_name, brand = excluded.brand,
                 bank_name = excluded.bank_name, card_type = excluded.card_type,
                 expiry_month = excluded.expiry_month, expiry_year = excluded.expiry_year,
                 usage = excluded.usage, status = excluded.status,
                 is_default = excluded.is_default, customer_id = excluded.customer_id,
                 created_date = excluded.created_date",
            params![
                profile,
                card.id,
                card.masked_pan.as_deref().map(safe_masked_pan),
                card.alias.as_deref().map(safe_masked_pan),
                card.card_holder_name.as_deref().map(safe_masked_pan),
                card.brand,
                card.bank_name,
                card.card_type,
                card.expiry_month,
                card.expiry_year,
                card.usage.map(CardUsage::as_str),
                card.status.as_ref().map(CardStatus::as_str),
                card.is_default,
                card.customer_id,
                card.created_date.map(format_time),
                to_millis(now),
            ],
        )?;
        Ok(())
    }
}

impl Store {
    /// The saved cards' reads.
    pub fn cards(&self) -> Cards<'_> {
        Cards::read(&self.conn)
    }

    /// Stores (or refreshes) a saved card's response content, with its audit row and its
    /// outbox row, in one transaction.
    pub fn insert_card(
        &mut self,
        profile: &str,
        card: &SavedCard,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        Cards::write(&tx).upsert(profile, card, now)?;
        let subject = card.masked_pan.as_deref().map_or_else(
            || card.id.clone(),
            |pan| format!("{} {}", card.id, safe_masked_pan(pan)),
        );
        Audit::write(&tx).append(&self.actor, AuditAction::CardSave, &subject, now)?;
        if Shop::read(&tx).joined()? {
            let (account, _) = Profiles::read(&tx).account(profile)?;
            if let Some(push) = Cards::read(&tx).push_of(profile, account, &card.id)? {
                Outbox::write(&tx).push("card", &push, now)?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}
