//! The items of the links this install created, for the day report's best-selling items.
//!
//! The link answer carries no items, but the journal row of a link create holds the exact
//! request body, `items[]` included, until the link completes. So when `journal_complete`
//! stores the link, it also copies the items here, in the same transaction: a free item with
//! its name and unit price, a catalog item with its variant id and quantity (the body has no
//! price for it) plus the local catalog's name and price at that moment when the catalog knows
//! the variant in the link's currency. A body that cannot be read leaves the link without items;
//! it never fails the completion.

use std::str::FromStr;

use rusqlite::{Connection, OptionalExtension, params};
use rust_decimal::Decimal;
use serde::Deserialize;

use super::StoreError;
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

/// Copies the items of a completed link-create request (`body`, as journaled for `endpoint`)
/// to `link_items`. Other endpoints, and bodies that cannot be read, store nothing.
pub(crate) fn record_request_items(
    tx: &Connection,
    profile: &str,
    endpoint: &str,
    body: &[u8],
    link: &PaymentLink,
) -> Result<(), StoreError> {
    if endpoint != endpoints::LINK_CREATE.name {
        return Ok(());
    }
    let body: Body = match serde_json::from_slice(body) {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(link = %link.id, error = %e, "link-create body unreadable; no items kept");
            return Ok(());
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
    tx.execute(
        "DELETE FROM link_items WHERE profile = ?1 AND link_id = ?2",
        params![profile, link.id],
    )?;
    let mut catalog =
        tx.prepare_cached("SELECT name, unit_price, currency FROM catalog_variants WHERE id = ?1")?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO link_items (profile, link_id, position, name, variant_id, unit_price, quantity)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (position, item) in body.items.iter().enumerate() {
        let (mut name, mut unit_price) = (item.name.clone(), item.unit_price);
        if let Some(variant) = &item.product_variant_id {
            let known: Option<(String, String, String)> = catalog
                .query_row([variant], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .optional()?;
            if let Some((catalog_name, price, price_currency)) = known {
                name = Some(catalog_name);
                unit_price = (price_currency == currency.as_str())
                    .then(|| Decimal::from_str(&price).ok())
                    .flatten();
            } else {
                unit_price = None;
            }
        }
        insert.execute(params![
            profile,
            link.id,
            i64::try_from(position).unwrap_or(i64::MAX),
            name,
            item.product_variant_id,
            unit_price.map(|p| p.to_string()),
            item.quantity.unwrap_or(1),
        ])?;
    }
    Ok(())
}
