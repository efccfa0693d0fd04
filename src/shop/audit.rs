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

use std::sync::Mutex;

use chrono::DateTime;

use super::push::{BATCH, PushError};
use super::{Shop, ShopError};
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

/// Rows read from the shop per page when walking a chain.
const PAGE: i64 = 5_000;

/// Sends this desk's audit rows the shop does not have yet; returns how many were new.
pub async fn push_audit(
    shop: &mut Shop,
    store: &Mutex<Store>,
    desk_id: &str,
) -> Result<u64, PushError> {
    let lock = || {
        store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PushError::Shop(ShopError::from_pg(&e, &url));
    let mut sent = 0;
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
        let rows = lock().audit_after(have, BATCH)?;
        if rows.is_empty() {
            return Ok(sent);
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
            return Ok(sent);
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
    let pg = |e: tokio_postgres::Error| PushError::Shop(ShopError::from_pg(&e, &url));
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
        out.push(DeskChain {
            desk_id,
            name: desk.get(1),
            check,
        });
    }
    Ok(out)
}
