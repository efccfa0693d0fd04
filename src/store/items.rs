//! The items of the links this install created, for the day report's best-selling items.
//!
//! The link answer carries no items, but the journal row of a link create holds the exact
//! request body, `items[]` included, until the link completes. So the unit of work "a link was
//! created" (`store::changes`) also copies the items here, in the same transaction: a free item with
//! its name and unit price, a catalog item with its variant id and quantity (the body has no
//! price for it) plus the local catalog's name and price at that moment when the catalog knows
//! the variant in the link's currency. A body that cannot be read leaves the link without items;
//! it never fails the completion.

use std::str::FromStr;

use rusqlite::params;
use rust_decimal::Decimal;
use serde::Deserialize;

use super::repo::{Write, repository};
use super::{ItemPush, StoreError};
use crate::api::endpoints;
use crate::api::wire::{PaymentLink, amount_opt};
use crate::domain::Currency;

/// The part of a link-create body the items table needs.
#[derive(Deserialize)]
struct Body {
    #[serde(default)]
    currency: Option<String>,
    #[serde(default)]
    items: Vec<BodyItem>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BodyItem {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    product_variant_id: Option<String>,
    #[serde(default, with = "amount_opt")]
    unit_price: Option<Decimal>,
    #[serde(default)]
    quantity: Option<u32>,
}

/// An item of a link as `link_items` keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ItemRow {
    /// Its name (a catalog item's from the local catalog).
    pub name: Option<String>,
    /// The catalog variant, for a catalog item.
    pub variant_id: Option<String>,
    /// Its unit price; `None` for a catalog item the catalog does not price in the link's
    /// currency.
    pub unit_price: Option<Decimal>,
    /// How many.
    pub quantity: u32,
}

/// What the catalog says of a variant: its name, unit price and currency, as stored.
pub(super) type VariantPrice = (String, String, String);

/// The items of a completed link-create request (`body`, as journaled for `endpoint`) as
/// `link_items` keeps them, each catalog item named and priced by `variant` (the local
/// catalog at this moment). `None` (nothing to keep) for other endpoints, and for a body that
/// cannot be read: it never fails the completion.
pub(super) fn request_items(
    endpoint: &str,
    body: &[u8],
    link: &PaymentLink,
    mut variant: impl FnMut(&str) -> Result<Option<VariantPrice>, StoreError>,
) -> Result<Option<Vec<ItemRow>>, StoreError> {
    if endpoint != endpoints::LINK_CREATE.name {
        return Ok(None);
    }
    let body: Body = match serde_json::from_slice(body) {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(link = %link.id, error = %e, "link-create body unreadable; no items kept");
            return Ok(None);
        }
    };
    let currency = link
        .currency
        .or_else(|| {
            body.currency
                .as_deref()
                .and_then(|c| Currency::from_str(c).ok())
        })
        .unwrap_or_default();
    let mut rows = Vec::with_capacity(body.items.len());
    for item in body.items {
        let (mut name, mut unit_price) = (item.name, item.unit_price);
        if let Some(id) = &item.product_variant_id {
            if let Some((catalog_name, price, price_currency)) = variant(id)? {
                name = Some(catalog_name);
                unit_price = (price_currency == currency.as_str())
                    .then(|| Decimal::from_str(&price).ok())
                    .flatten();
            } else {
                unit_price = None;
            }
        }
        rows.push(ItemRow {
            name,
            variant_id: item.product_variant_id,
            unit_price,
            quantity: item.quantity.unwrap_or(1),
        });
    }
    Ok(Some(rows))
}

repository!(
    /// The `link_items` table: the items of the links this install created.
    Items
);

impl<A> Items<'_, A> {
    /// The items of link `id` of `profile`, in their order, as the shop takes them (empty: a
    /// link made without items, or elsewhere).
    pub fn of_link(&self, profile: &str, id: &str) -> Result<Vec<ItemPush>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT position, name, variant_id, unit_price, quantity FROM link_items
             WHERE profile = ?1 AND link_id = ?2 ORDER BY position",
        )?;
        let items = stmt
            .query_map(params![profile, id], |r| {
                Ok(ItemPush {
                    position: r.get(0)?,
                    name: r.get(1)?,
                    variant_id: r.get(2)?,
                    unit_price: r.get(3)?,
                    quantity: r.get(4)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(items)
    }
}

impl super::Store {
    /// The link items' reads.
    pub fn items(&self) -> Items<'_> {
        Items::read(&self.conn)
    }
}

impl Items<'_, Write> {
    /// Makes `rows` the items of link `id` of `profile`, in their order.
    pub(super) fn replace(
        &self,
        profile: &str,
        id: &str,
        rows: &[ItemRow],
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "DELETE FROM link_items WHERE profile = ?1 AND link_id = ?2",
            params![profile, id],
        )?;
        let mut insert = self.conn.prepare_cached(
            "INSERT INTO link_items (profile, link_id, position, name, variant_id, unit_price, quantity)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for (position, item) in rows.iter().enumerate() {
            insert.execute(params![
                profile,
                id,
                i64::try_from(position).unwrap_or(i64::MAX),
                item.name,
                item.variant_id,
                item.unit_price.map(|p| p.to_string()),
                item.quantity,
            ])?;
        }
        Ok(())
    }
}
