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
                        "INSERT INTO audit_forks (desk_id, seq, desk_hash, shop_hash)
                         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
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
        let tx = shop.client_mut().transaction().await.map_err(pg)?;
        let n = tx
            .execute(
                "INSERT INTO audit (desk_id, seq, at_ms, staff, approved_by, action, subject,
                     prev_hash, hash)
                 SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[],
                     $6::text[], $7::text[], $8::text[], $9::text[])
                 ON CONFLICT (desk_id, seq) DO NOTHING",
                &[
                    &desk_id, &seqs, &ats, &staff, &approved, &actions, &subjects, &prevs, &hashes,
                ],
            )
            .await
            .map_err(pg)?;
        tx.commit().await.map_err(pg)?;
        sent += n;
        if n == 0 {
            // The shop holds these already (a resend): nothing further to send.
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
