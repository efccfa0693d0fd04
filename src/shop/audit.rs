//! The audit in the shop (docs/design.md §8): one chain per desk, pushed whole and walked
//! from PostgreSQL.
//!
//! - The desk's `audit` table is append-only and each row commits with the change it records,
//!   so it is its own outbox: [`push_audit`] asks the shop for the highest `seq` it holds of
//!   this desk and sends the rows after it, in batches of [`super::push::BATCH`], one
//!   transaction each. The chain goes from its first row, those written before the desk
//!   joined included, so the shop can walk it from the seed.
//! - Rows are inserted `ON CONFLICT DO NOTHING`: a resent batch changes nothing. A trigger
//!   refuses `UPDATE` and `DELETE` in the shop as on the desk.
//! - [`verify_shop`] walks every desk's chain with the desk's own rule
//!   (`store::ChainWalk`), in pages, in constant memory.
//! - A desk whose data file was put back from an older copy and then written on has rows
//!   under numbers the shop already holds, with other hashes. Before sending, [`push_audit`]
//!   compares the last row both hold; when they differ it finds the first differing row by
//!   halving, records it in `audit_forks` (schema step 9), and sends nothing more, so the
//!   shop's record of the desk's past is never overwritten or silently extended from another
//!   past. [`verify_shop`] reports the fork as the chain's break.
//! - Since schema step 14 ([`SHOP_CHAIN`]) a desk appends its rows only through
//!   `paydesk_push_audit`, which takes a row only when it follows the desk's chain as the shop
//!   holds it (the next number, the previous hash, its own hash), and chains every row it takes
//!   into the shop's own chain, across desks, in the order it took them ([`shop_link`]). No desk
//!   can change, delete, truncate or reorder what the shop holds; [`verify_shop_chain`] walks
//!   that chain. What it proves: the order and presence of every row once pushed. What it
//!   cannot: the truth of what a desk wrote before it pushed.

use std::sync::Mutex;

use chrono::DateTime;

use super::batch::{BATCH, PushError};
use super::{Shop, ShopError};
use crate::store::with_locked;
use crate::store::{AuditRow, ChainCheck, ChainWalk, Store, StoreError};

/// Schema step 6: every desk's audit chain.
pub const SCHEMA: &str = "
-- Every desk's audit rows, as the desk chained them (docs/design.md §7 has the hash).
CREATE TABLE audit (
    desk_id     text NOT NULL REFERENCES desks (desk_id),
    seq         bigint NOT NULL CHECK (seq >= 1),
    -- Unix milliseconds, as hashed.
    at_ms       bigint NOT NULL,
    staff       text,
    approved_by text,
    action      text NOT NULL,
    subject     text NOT NULL,
    prev_hash   text NOT NULL,
    hash        text NOT NULL,
    PRIMARY KEY (desk_id, seq)
);

CREATE FUNCTION paydesk_audit_append_only() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'the audit record is append-only';
    END $$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit
    FOR EACH ROW EXECUTE FUNCTION paydesk_audit_append_only();
";

/// Schema step 14 (issue 28): the shop's own chain over every desk's audit rows, and a desk's
/// rows appended only through `paydesk_push_audit` (see the module's doc); a fork recorded
/// through `paydesk_audit_fork`.
pub const SHOP_CHAIN: &str = r"
-- The shop's own chain over every desk's audit rows, in the order the shop took them: each
-- row's link is SHA-256 over `paydesk-shop-audit-1\n`, then the shop's number, the time the
-- shop took it (Unix ms), the desk, the desk's number, the desk's hash and the previous
-- link, each as its length in bytes, `:`, the bytes and `\n`; the first previous link is 64
-- zeros. Rows take turns on the owner-only row audit_turn, so the numbers commit in order.
CREATE TABLE audit_turn (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row));
INSERT INTO audit_turn VALUES (true);

ALTER TABLE audit ADD COLUMN shop_seq bigint UNIQUE;
ALTER TABLE audit ADD COLUMN shop_at_ms bigint;
ALTER TABLE audit ADD COLUMN shop_prev text;
ALTER TABLE audit ADD COLUMN shop_hash text;

CREATE FUNCTION paydesk_field(p text) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, public, pg_temp
    AS $$ SELECT convert_to(octet_length(coalesce(p, ''))::text || ':' || coalesce(p, ''),
        'UTF8') || '\x0a'::bytea $$;

-- A desk's row hash, as the desk makes it (store::audit::row_hash).
CREATE FUNCTION paydesk_audit_row_hash(p_seq bigint, p_at bigint, p_staff text,
    p_approved text, p_action text, p_subject text, p_prev text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, public, pg_temp
    AS $$ SELECT encode(digest(convert_to('paydesk-audit-1', 'UTF8') || '\x0a'::bytea
        || paydesk_field(p_seq::text) || paydesk_field(p_at::text) || paydesk_field(p_staff)
        || paydesk_field(p_approved) || paydesk_field(p_action) || paydesk_field(p_subject)
        || paydesk_field(p_prev), 'sha256'), 'hex') $$;

-- The shop's link of a row (shop::audit::shop_link).
CREATE FUNCTION paydesk_shop_link(p_shop_seq bigint, p_shop_at bigint, p_desk text,
    p_seq bigint, p_hash text, p_prev text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, public, pg_temp
    AS $$ SELECT encode(digest(convert_to('paydesk-shop-audit-1', 'UTF8') || '\x0a'::bytea
        || paydesk_field(p_shop_seq::text) || paydesk_field(p_shop_at::text)
        || paydesk_field(p_desk) || paydesk_field(p_seq::text) || paydesk_field(p_hash)
        || paydesk_field(p_prev), 'sha256'), 'hex') $$;

-- The rows the shop held before this step, chained in the order of their desks' times.
ALTER TABLE audit DISABLE TRIGGER audit_append_only;
DO $$
DECLARE
    r record;
    v_prev text := repeat('0', 64);
    v_n bigint := 0;
    v_at bigint := floor(extract(epoch FROM now()) * 1000);
BEGIN
    FOR r IN SELECT desk_id, seq, hash FROM audit ORDER BY at_ms, desk_id, seq LOOP
        v_n := v_n + 1;
        UPDATE audit SET shop_seq = v_n, shop_at_ms = v_at, shop_prev = v_prev,
            shop_hash = paydesk_shop_link(v_n, v_at, r.desk_id, r.seq, r.hash, v_prev)
            WHERE desk_id = r.desk_id AND seq = r.seq
            RETURNING shop_hash INTO v_prev;
    END LOOP;
END $$;
ALTER TABLE audit ENABLE TRIGGER audit_append_only;
ALTER TABLE audit ALTER COLUMN shop_seq SET NOT NULL;
ALTER TABLE audit ALTER COLUMN shop_at_ms SET NOT NULL;
ALTER TABLE audit ALTER COLUMN shop_prev SET NOT NULL;
ALTER TABLE audit ALTER COLUMN shop_hash SET NOT NULL;

-- A desk's audit rows after those the shop holds of it, taken in order and chained in the
-- shop. A row the shop holds already is skipped (a resend); a row that does not follow the
-- desk's chain in the shop (a gap, another previous hash, a hash that is not its own) stops
-- the push there, recorded in push_refusals. o_taken: rows taken.
CREATE FUNCTION paydesk_push_audit(p_desk text, p_seqs bigint[], p_ats bigint[],
    p_staff text[], p_approved text[], p_actions text[], p_subjects text[], p_prevs text[],
    p_hashes text[]) RETURNS bigint LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_last_seq bigint;
    v_last_hash text;
    v_shop_seq bigint;
    v_shop_prev text;
    v_at bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
    v_link text;
    v_taken bigint := 0;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    PERFORM 1 FROM audit_turn FOR UPDATE;
    SELECT seq, hash INTO v_last_seq, v_last_hash FROM audit
        WHERE desk_id = p_desk ORDER BY seq DESC LIMIT 1;
    v_last_seq := coalesce(v_last_seq, 0);
    v_last_hash := coalesce(v_last_hash, repeat('0', 64));
    SELECT shop_seq, shop_hash INTO v_shop_seq, v_shop_prev FROM audit
        ORDER BY shop_seq DESC LIMIT 1;
    v_shop_seq := coalesce(v_shop_seq, 0);
    v_shop_prev := coalesce(v_shop_prev, repeat('0', 64));
    FOR i IN 1 .. coalesce(cardinality(p_seqs), 0) LOOP
        CONTINUE WHEN p_seqs[i] <= v_last_seq;
        IF p_seqs[i] <> v_last_seq + 1 OR p_prevs[i] <> v_last_hash
            OR p_hashes[i] <> paydesk_audit_row_hash(p_seqs[i], p_ats[i], p_staff[i],
                p_approved[i], p_actions[i], p_subjects[i], p_prevs[i])
        THEN
            INSERT INTO push_refusals (desk_id, kind, detail)
            VALUES (p_desk, 'an audit row that does not follow',
                format('row %s after %s', p_seqs[i], v_last_seq));
            EXIT;
        END IF;
        v_shop_seq := v_shop_seq + 1;
        v_link := paydesk_shop_link(v_shop_seq, v_at, p_desk, p_seqs[i], p_hashes[i],
            v_shop_prev);
        INSERT INTO audit (desk_id, seq, at_ms, staff, approved_by, action, subject,
            prev_hash, hash, shop_seq, shop_at_ms, shop_prev, shop_hash)
        VALUES (p_desk, p_seqs[i], p_ats[i], p_staff[i], p_approved[i], p_actions[i],
            p_subjects[i], p_prevs[i], p_hashes[i], v_shop_seq, v_at, v_shop_prev, v_link);
        v_shop_prev := v_link;
        v_last_seq := p_seqs[i];
        v_last_hash := p_hashes[i];
        v_taken := v_taken + 1;
    END LOOP;
    RETURN v_taken;
END $$;

-- Where this desk's own chain parts from the shop's copy: recorded when the shop's hash of
-- that row is the one given.
CREATE FUNCTION paydesk_audit_fork(p_desk text, p_seq bigint, p_desk_hash text,
    p_shop_hash text) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    INSERT INTO audit_forks (desk_id, seq, desk_hash, shop_hash)
    SELECT p_desk, p_seq, p_desk_hash, p_shop_hash
    WHERE EXISTS (SELECT 1 FROM audit
        WHERE desk_id = p_desk AND seq = p_seq AND hash = p_shop_hash)
    ON CONFLICT DO NOTHING;
END $$;
";

/// The shop's link of a row: SHA-256 over `paydesk-shop-audit-1\n`, then the shop's number,
/// the time the shop took it (Unix ms), the desk, the desk's number, the desk's hash and the
/// previous link, each as its length in bytes, `:`, the bytes and `\n` (as the desk's own
/// hash is made, `store::row_hash`).
pub fn shop_link(
    shop_seq: i64,
    shop_at_ms: i64,
    desk_id: &str,
    seq: i64,
    hash: &str,
    prev: &str,
) -> String {
    let (shop_seq, shop_at, seq) = (
        shop_seq.to_string(),
        shop_at_ms.to_string(),
        seq.to_string(),
    );
    crate::store::hash_fields(
        b"paydesk-shop-audit-1\n",
        &[&shop_seq, &shop_at, desk_id, &seq, hash, prev],
    )
}

/// Walks the shop's own chain from its first row, in pages: each row's link made again and
/// its previous link compared; `Whole` with the head, or `Broken` at the first shop number
/// whose link does not hold.
pub async fn verify_shop_chain(shop: &Shop) -> Result<ChainCheck, PushError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PushError::Shop(ShopError::from_pg(e, &url));
    let page = shop
        .client()
        .prepare(
            "SELECT shop_seq, shop_at_ms, desk_id, seq, hash, shop_prev, shop_hash FROM audit
             WHERE shop_seq > $1 ORDER BY shop_seq LIMIT $2",
        )
        .await
        .map_err(pg)?;
    let mut prev = crate::store::AUDIT_SEED.to_owned();
    let mut after = 0_i64;
    let mut rows = 0_u64;
    loop {
        let page = shop
            .client()
            .query(&page, &[&after, &PAGE])
            .await
            .map_err(pg)?;
        if page.is_empty() {
            return Ok(ChainCheck::Whole { rows, head: prev });
        }
        for r in &page {
            let shop_seq: i64 = r.get(0);
            let (desk_id, seq, hash): (String, i64, String) = (r.get(2), r.get(3), r.get(4));
            let (stored_prev, stored): (String, String) = (r.get(5), r.get(6));
            let why = if shop_seq != after + 1 {
                Some(SHOP_GAP)
            } else if stored_prev != prev {
                Some(SHOP_NOT_FOLLOWING)
            } else if shop_link(shop_seq, r.get(1), &desk_id, seq, &hash, &prev) != stored {
                Some(SHOP_EDITED)
            } else {
                None
            };
            if let Some(why) = why {
                return Ok(ChainCheck::Broken { seq: shop_seq, why });
            }
            prev = stored;
            after = shop_seq;
            rows += 1;
        }
    }
}

/// The head of the shop's own chain: its last row's link (64 zeros with no row).
pub async fn shop_head(shop: &Shop) -> Result<String, ShopError> {
    Ok(shop
        .client()
        .query_opt(
            "SELECT shop_hash FROM audit ORDER BY shop_seq DESC LIMIT 1",
            &[],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?
        .map_or_else(|| crate::store::AUDIT_SEED.to_owned(), |r| r.get(0)))
}

/// Why the shop's own chain is broken at a row: a number missing before it.
pub const SHOP_GAP: &str = "a row of the shop's own chain is missing before this one";
/// Why the shop's own chain is broken at a row: it names another previous link.
pub const SHOP_NOT_FOLLOWING: &str = "this row does not follow the one before it in the shop";
/// Why the shop's own chain is broken at a row: its fields are not those it was chained with.
pub const SHOP_EDITED: &str = "this row was changed after the shop chained it";

/// Schema step 9: where a desk's chain forked from the shop's copy of it.
pub const FORKS_SCHEMA: &str = "
-- A desk whose own chain no longer matches the shop's copy (its data file restored from an
-- older copy, then written on: new rows under numbers the shop already holds). seq is the
-- first row that differs; the desk's rows from there are not taken, so the shop's record of
-- what the desk did before stays as it was, and `audit verify` names the fork.
CREATE TABLE audit_forks (
    desk_id    text NOT NULL REFERENCES desks (desk_id),
    seq        bigint NOT NULL CHECK (seq >= 1),
    desk_hash  text NOT NULL,
    shop_hash  text NOT NULL,
    seen_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (desk_id, seq)
);
";

/// Why [`verify_shop`] calls a forked chain broken.
pub const FORKED: &str = "the desk's own record holds other rows under these numbers than the \
    shop (its data file was put back from an older copy); the shop keeps what it had";

/// Rows read from the shop per page when walking a chain.
const PAGE: i64 = 5_000;

/// What [`push_audit`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AuditPushed {
    /// Rows the shop did not have.
    pub rows: u64,
    /// The first row where this desk's chain and the shop's copy differ: nothing more is
    /// sent, and the shop records the fork.
    pub fork: Option<i64>,
}

/// The hash the shop holds for the desk's row `seq`.
async fn shop_hash(shop: &Shop, desk_id: &str, seq: i64) -> Result<Option<String>, PushError> {
    Ok(shop
        .client()
        .query_opt(
            "SELECT hash FROM audit WHERE desk_id = $1 AND seq = $2",
            &[&desk_id, &seq],
        )
        .await
        .map_err(|e| PushError::Shop(ShopError::from_pg(e, shop.url())))?
        .map(|r| r.get(0)))
}

/// Where this desk's chain and the shop's copy part, if they do: compared at the last row
/// both hold (`both`); when they differ there, the first differing row is found by halving
/// (a chain that differs at one row differs at every row after it). The fork's row, with
/// the desk's and the shop's hash of it.
async fn fork_of(
    shop: &Shop,
    store: &Mutex<Store>,
    desk_id: &str,
    both: i64,
) -> Result<Option<(i64, String, String)>, PushError> {
    let differs = async |seq: i64| -> Result<Option<(String, String)>, PushError> {
        let (mine, _) = with_locked(store, |s| s.audit().hash_at(seq))?;
        let theirs = shop_hash(shop, desk_id, seq).await?;
        Ok(match (mine, theirs) {
            (Some(m), Some(t)) if m != t => Some((m, t)),
            _ => None,
        })
    };
    let Some(at_end) = differs(both).await? else {
        return Ok(None);
    };
    // Rows 1..lo agree; `hi` differs.
    let (mut lo, mut hi, mut found) = (0_i64, both, at_end);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match differs(mid).await? {
            Some(pair) => {
                hi = mid;
                found = pair;
            }
            None => lo = mid,
        }
    }
    Ok(Some((hi, found.0, found.1)))
}

/// Sends this desk's audit rows the shop does not have yet. A desk whose chain differs from
/// the shop's copy (a data file put back from an older copy, then written on) sends nothing
/// more: the fork is recorded in the shop (`audit_forks`) and returned.
pub async fn push_audit(
    shop: &mut Shop,
    store: &Mutex<Store>,
    desk_id: &str,
) -> Result<AuditPushed, PushError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PushError::Shop(ShopError::from_pg(e, &url));
    let mut sent = 0;
    let mut checked = false;
    loop {
        let have: i64 = shop
            .client()
            .query_one(
                "SELECT coalesce(max(seq), 0) FROM audit WHERE desk_id = $1",
                &[&desk_id],
            )
            .await
            .map_err(pg)?
            .get(0);
        if !checked {
            checked = true;
            let (_, last) = with_locked(store, |s| s.audit().hash_at(0))?;
            let both = have.min(last);
            if both > 0
                && let Some((seq, desk_hash, shop_hash)) =
                    fork_of(shop, store, desk_id, both).await?
            {
                shop.client()
                    .execute(
                        "SELECT paydesk_audit_fork($1, $2, $3, $4)",
                        &[&desk_id, &seq, &desk_hash, &shop_hash],
                    )
                    .await
                    .map_err(pg)?;
                return Ok(AuditPushed {
                    rows: sent,
                    fork: Some(seq),
                });
            }
        }
        let rows = with_locked(store, |s| s.audit().after(have, BATCH))?;
        if rows.is_empty() {
            return Ok(AuditPushed {
                rows: sent,
                fork: None,
            });
        }
        let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
        let ats: Vec<i64> = rows.iter().map(|r| r.at.timestamp_millis()).collect();
        let staff: Vec<Option<&str>> = rows.iter().map(|r| r.staff.as_deref()).collect();
        let approved: Vec<Option<&str>> = rows.iter().map(|r| r.approved_by.as_deref()).collect();
        let actions: Vec<&str> = rows.iter().map(|r| r.action.as_str()).collect();
        let subjects: Vec<&str> = rows.iter().map(|r| r.subject.as_str()).collect();
        let prevs: Vec<&str> = rows.iter().map(|r| r.prev_hash.as_str()).collect();
        let hashes: Vec<&str> = rows.iter().map(|r| r.hash.as_str()).collect();
        let taken: i64 = shop
            .client()
            .query_one(
                "SELECT paydesk_push_audit($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                &[
                    &desk_id, &seqs, &ats, &staff, &approved, &actions, &subjects, &prevs, &hashes,
                ],
            )
            .await
            .map_err(pg)?
            .get(0);
        let n = u64::try_from(taken).unwrap_or(0);
        sent += n;
        if n == 0 {
            // The shop holds these already (a resend), or took none (a row that does not
            // follow its chain there, recorded in the shop): nothing further to send.
            return Ok(AuditPushed {
                rows: sent,
                fork: None,
            });
        }
    }
}

/// One desk's chain in the shop, walked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskChain {
    /// The desk's device id.
    pub desk_id: String,
    /// Its shown name.
    pub name: String,
    /// What the walk found.
    pub check: ChainCheck,
}

/// Walks every desk's chain in the shop, desk by desk (by name, then id), each from its first
/// row. A desk with no audit row has an empty, whole chain.
pub async fn verify_shop(shop: &Shop) -> Result<Vec<DeskChain>, PushError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PushError::Shop(ShopError::from_pg(e, &url));
    let desks = shop
        .client()
        .query(
            "SELECT desk_id, name FROM desks ORDER BY name, desk_id",
            &[],
        )
        .await
        .map_err(pg)?;
    let page = shop
        .client()
        .prepare(
            "SELECT seq, at_ms, staff, approved_by, action, subject, prev_hash, hash FROM audit
             WHERE desk_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        )
        .await
        .map_err(pg)?;
    let forks: std::collections::HashMap<String, i64> = shop
        .client()
        .query(
            "SELECT desk_id, min(seq) FROM audit_forks GROUP BY desk_id",
            &[],
        )
        .await
        .map_err(pg)?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut out = Vec::new();
    for desk in desks {
        let desk_id: String = desk.get(0);
        let mut walk = ChainWalk::new(None);
        let mut after = 0_i64;
        let check = 'walk: loop {
            let rows = shop
                .client()
                .query(&page, &[&desk_id, &after, &PAGE])
                .await
                .map_err(pg)?;
            if rows.is_empty() {
                break walk.finish();
            }
            for r in &rows {
                let at_ms: i64 = r.get(1);
                let row = AuditRow {
                    seq: r.get(0),
                    at: DateTime::from_timestamp_millis(at_ms).ok_or_else(|| {
                        PushError::Store(StoreError::Corrupt {
                            what: "shop audit time",
                            value: at_ms.to_string(),
                        })
                    })?,
                    staff: r.get(2),
                    approved_by: r.get(3),
                    action: r.get(4),
                    subject: r.get(5),
                    prev_hash: r.get(6),
                    hash: r.get(7),
                };
                after = row.seq;
                if let Some(broken) = walk.step(&row) {
                    break 'walk broken;
                }
            }
        };
        // A fork before the first break the walk found is what the manager needs to know.
        let check = match (forks.get(&desk_id), check) {
            (Some(&seq), ChainCheck::Broken { seq: at, .. }) if seq <= at => {
                ChainCheck::Broken { seq, why: FORKED }
            }
            (Some(&seq), ChainCheck::Whole { .. } | ChainCheck::HeadNotFound { .. }) => {
                ChainCheck::Broken { seq, why: FORKED }
            }
            (_, check) => check,
        };
        out.push(DeskChain {
            desk_id,
            name: desk.get(1),
            check,
        });
    }
    Ok(out)
}
