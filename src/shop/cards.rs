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

/// Schema step 17 (issue 28): a desk's saved cards reach the shop through
/// `paydesk_push_card` only (`SECURITY DEFINER`, owned by `<database>_definer`, `search_path` pinned and
/// ending in `pg_temp`), which acts for a desk the session's login registered (`PDK03`). A
/// card the shop has not seen is recorded as the pushing desk's; a card saved again (the
/// server answered anew) takes the newer mask, brand and bank, whoever pushes it, since every
/// desk of the account may save it; a time more than 5 minutes past the shop's clock is refused
/// into `push_refusals`. Whether a row changed is the answer.
pub const AUTHORITY: &str = "
CREATE FUNCTION paydesk_push_card(p_desk text, p_base_url text, p_api_key_id text,
    p_sandbox_desk text, p_card_id text, p_masked_pan text, p_brand text, p_card_type text,
    p_bank_name text, p_stored_at timestamptz) RETURNS boolean LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_changed bigint;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    IF p_stored_at > now() + interval '5 minutes' THEN
        INSERT INTO push_refusals (desk_id, kind, link_id, detail)
        VALUES (p_desk, 'time in the future', NULL,
            format('card %s stored %s', p_card_id, p_stored_at));
        RETURN false;
    END IF;
    INSERT INTO saved_cards AS c (base_url, api_key_id, sandbox_desk, card_id, desk_id,
        masked_pan, brand, card_type, bank_name, stored_at)
    VALUES (p_base_url, p_api_key_id, p_sandbox_desk, p_card_id, p_desk, p_masked_pan,
        p_brand, p_card_type, p_bank_name, p_stored_at)
    ON CONFLICT (base_url, api_key_id, sandbox_desk, card_id) DO UPDATE SET
        masked_pan = EXCLUDED.masked_pan, brand = EXCLUDED.brand,
        card_type = EXCLUDED.card_type, bank_name = EXCLUDED.bank_name
    WHERE (c.masked_pan, c.brand, c.card_type, c.bank_name)
        IS DISTINCT FROM (EXCLUDED.masked_pan, EXCLUDED.brand, EXCLUDED.card_type,
            EXCLUDED.bank_name);
    GET DIAGNOSTICS v_changed = ROW_COUNT;
    RETURN v_changed > 0;
END $$;
";

/// Pushes card rows of desk `desk_id` in one transaction, through [`AUTHORITY`]'s function;
/// returns how many cards changed.
pub async fn apply_cards(
    shop: &mut Shop,
    desk_id: &str,
    rows: &[CardRow],
) -> Result<u64, PushError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PushError::Shop(ShopError::from_pg(e, &url));
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    let push = tx
        .prepare("SELECT paydesk_push_card($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
        .await
        .map_err(pg)?;
    let mut changed = 0;
    for row in rows {
        let c = &row.card;
        let row = tx
            .query_one(
                &push,
                &[
                    &desk_id,
                    &c.account.base_url,
                    &c.account.api_key_id,
                    &c.account.sandbox_desk,
                    &c.card_id,
                    &c.masked_pan,
                    &c.brand,
                    &c.card_type,
                    &c.bank_name,
                    &c.stored_at,
                ],
            )
            .await
            .map_err(pg)?;
        if row.get::<_, bool>(0) {
            changed += 1;
        }
    }
    tx.commit().await.map_err(pg)?;
    Ok(changed)
}
