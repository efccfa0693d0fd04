//! Saved cards in the shop (docs/design.md §8): a card saved at any desk is known to the shop
//! by its mask only (schema step 7), pushed through the desk's outbox like its links. A
//! resend changes nothing; a card saved again (the server answered anew) takes the newer
//! mask, brand and bank.

use super::batch::PushError;
use super::{Shop, ShopError};
use crate::store::CardRow;

/// Schema step 7: the shop's saved cards, by account and card id, with the desk that saved
/// each; a mask, never a number.
pub const SCHEMA: &str = "
CREATE TABLE saved_cards (
    base_url     text NOT NULL,
    api_key_id   text NOT NULL,
    sandbox_desk text NOT NULL,
    card_id      text NOT NULL,
    desk_id      text NOT NULL REFERENCES desks (desk_id),
    masked_pan   text,
    brand        text,
    card_type    text,
    bank_name    text,
    stored_at    timestamptz NOT NULL,
    PRIMARY KEY (base_url, api_key_id, sandbox_desk, card_id)
);
";

/// Applies card rows of desk `desk_id` in one transaction; returns how many cards changed.
pub async fn apply_cards(
    shop: &mut Shop,
    desk_id: &str,
    rows: &[CardRow],
) -> Result<u64, PushError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PushError::Shop(ShopError::from_pg(e, &url));
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    let upsert = tx
        .prepare(
            "INSERT INTO saved_cards AS c (base_url, api_key_id, sandbox_desk, card_id, desk_id,
                 masked_pan, brand, card_type, bank_name, stored_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (base_url, api_key_id, sandbox_desk, card_id) DO UPDATE SET
                 masked_pan = EXCLUDED.masked_pan, brand = EXCLUDED.brand,
                 card_type = EXCLUDED.card_type, bank_name = EXCLUDED.bank_name
             WHERE (c.masked_pan, c.brand, c.card_type, c.bank_name)
                 IS DISTINCT FROM (EXCLUDED.masked_pan, EXCLUDED.brand, EXCLUDED.card_type,
                     EXCLUDED.bank_name)",
        )
        .await
        .map_err(pg)?;
    let mut changed = 0;
    for row in rows {
        let c = &row.card;
        changed += tx
            .execute(
                &upsert,
                &[
                    &c.account.base_url,
                    &c.account.api_key_id,
                    &c.account.sandbox_desk,
                    &c.card_id,
                    &desk_id,
                    &c.masked_pan,
                    &c.brand,
                    &c.card_type,
                    &c.bank_name,
                    &c.stored_at,
                ],
            )
            .await
            .map_err(pg)?;
    }
    tx.commit().await.map_err(pg)?;
    Ok(changed)
}
