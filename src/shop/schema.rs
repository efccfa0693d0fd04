//! The shop's PostgreSQL schema, which paydesk creates and migrates itself (docs/design.md §8).
//!
//! - `paydesk_schema` holds one row, the schema's version: how many of [`MIGRATIONS`] ran.
//! - [`migrate`] runs in one transaction under a transaction-scoped advisory lock
//!   ([`MIGRATION_LOCK`]), so two desks joining at once take turns: the second finds the work
//!   done. A step that fails rolls every step of the run back.
//! - A version above what this build knows is refused ([`ShopError::SchemaTooNew`]) before
//!   anything is written: the transaction is rolled back, so an older paydesk touches nothing.
//! - Migrations are append-only: a released step is never edited; a change is a new step.
//!
//! # The links rule
//!
//! [`UPSERT_LINK`] is how a desk's observation of a link reaches the shop. A link's key is its
//! account (the profile's base URL and API key id; for a desk's built-in sandbox, also that
//! desk) and its id. An observation replaces the stored one only when it is newer by *status
//! order, then `paid_amount`* (`paydesk_status_rank`: `PENDING` 0, `UNDER_REVIEW` and unknown 1,
//! `EXPIRED` and `REJECTED` 2, `COMPLETED` 3); never by the desks' clocks, which disagree. So a
//! replayed push changes nothing (not even a new row version), an out-of-order push of an
//! older observation changes nothing, and a status never goes back. Two marks only ever get
//! set: the member who began the link and the time of its first cancel through paydesk.

use tokio_postgres::Client;

use super::{ShopError, ShopUrl};

/// The key of the advisory lock migrations run under (`paydesk` in ASCII, then 1).
pub const MIGRATION_LOCK: i64 = 0x7061_7964_6573_6b01;

/// Step 1: desks, links with their items, and each desk's outbox acknowledgement.
const V1: &str = "
CREATE FUNCTION paydesk_status_rank(status text) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE status
        WHEN 'PENDING' THEN 0
        WHEN 'EXPIRED' THEN 2
        WHEN 'REJECTED' THEN 2
        WHEN 'COMPLETED' THEN 3
        ELSE 1 END::smallint $$;

-- One row per desk: its per-install device id and its shown name.
CREATE TABLE desks (
    desk_id   text PRIMARY KEY,
    name      text NOT NULL CHECK (name <> ''),
    joined_at timestamptz NOT NULL,
    seen_at   timestamptz NOT NULL
);

-- The highest outbox sequence number of each desk the shop has applied: a push of rows at or
-- below it is a replay and is skipped.
CREATE TABLE outbox_acks (
    desk_id   text PRIMARY KEY REFERENCES desks (desk_id),
    acked_seq bigint NOT NULL CHECK (acked_seq >= 0),
    acked_at  timestamptz NOT NULL
);

-- Every link of the shop, as last observed (the rule is in UPSERT_LINK).
CREATE TABLE links (
    base_url     text NOT NULL,
    api_key_id   text NOT NULL,
    -- The desk whose built-in sandbox made the link; '' for a real account's link.
    sandbox_desk text NOT NULL DEFAULT '',
    link_id      text NOT NULL,
    desk_id      text NOT NULL REFERENCES desks (desk_id),
    staff        text,
    order_number text,
    status       text NOT NULL,
    currency     text NOT NULL,
    amount       numeric,
    paid_amount  numeric NOT NULL DEFAULT 0 CHECK (paid_amount >= 0),
    cancelled_at timestamptz,
    -- When the desk first stored the link: the local day it belongs to.
    stored_at    timestamptz NOT NULL,
    -- The desk's clock when it read this status: shown, never compared.
    observed_at  timestamptz NOT NULL,
    -- The link as the server answered, every field kept.
    answer       jsonb NOT NULL,
    PRIMARY KEY (base_url, api_key_id, sandbox_desk, link_id)
);
CREATE INDEX links_by_time ON links (stored_at DESC, link_id);
CREATE INDEX links_by_desk ON links (desk_id, stored_at DESC);

-- A link's items as the create sent them; they never change.
CREATE TABLE link_items (
    base_url     text NOT NULL,
    api_key_id   text NOT NULL,
    sandbox_desk text NOT NULL,
    link_id      text NOT NULL,
    position     integer NOT NULL,
    name         text,
    variant_id   text,
    quantity     numeric NOT NULL,
    unit_price   numeric,
    PRIMARY KEY (base_url, api_key_id, sandbox_desk, link_id, position),
    FOREIGN KEY (base_url, api_key_id, sandbox_desk, link_id) REFERENCES links ON DELETE CASCADE
);
";

/// The steps, in order; the version is how many have run. Step 2 is the shop-wide catalog
/// ([`super::catalog::SCHEMA`]), step 3 the shop-wide staff ([`super::staff::SCHEMA`]), step 4
/// every desk's audit chain ([`super::audit::SCHEMA`]).
pub const MIGRATIONS: &[&str] = &[
    V1,
    super::catalog::SCHEMA,
    super::staff::SCHEMA,
    super::audit::SCHEMA,
];

/// The version this build migrates to.
pub fn latest_version() -> i32 {
    i32::try_from(MIGRATIONS.len()).expect("fewer than 2 billion migrations")
}

/// An observation of a link, pushed by a desk. Parameters: `$1` base URL, `$2` API key id,
/// `$3` sandbox desk (`''` for a real account), `$4` link id, `$5` desk id, `$6` staff,
/// `$7` order number, `$8` status, `$9` currency, `$10` amount, `$11` paid amount,
/// `$12` cancelled at, `$13` stored at, `$14` observed at, `$15` the answer as JSON text.
/// The rule is the module's: newer by status order then paid amount, never by clocks.
pub const UPSERT_LINK: &str = "
INSERT INTO links AS l (base_url, api_key_id, sandbox_desk, link_id, desk_id, staff,
    order_number, status, currency, amount, paid_amount, cancelled_at, stored_at, observed_at,
    answer)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::text::jsonb)
ON CONFLICT (base_url, api_key_id, sandbox_desk, link_id) DO UPDATE SET
    status = CASE WHEN (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
                     > (paydesk_status_rank(l.status), l.paid_amount)
             THEN EXCLUDED.status ELSE l.status END,
    paid_amount = CASE WHEN (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
                     > (paydesk_status_rank(l.status), l.paid_amount)
             THEN EXCLUDED.paid_amount ELSE l.paid_amount END,
    observed_at = CASE WHEN (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
                     > (paydesk_status_rank(l.status), l.paid_amount)
             THEN EXCLUDED.observed_at ELSE l.observed_at END,
    answer = CASE WHEN (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
                     > (paydesk_status_rank(l.status), l.paid_amount)
             THEN EXCLUDED.answer ELSE l.answer END,
    staff = coalesce(l.staff, EXCLUDED.staff),
    cancelled_at = coalesce(l.cancelled_at, EXCLUDED.cancelled_at)
WHERE (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
        > (paydesk_status_rank(l.status), l.paid_amount)
   OR (l.staff IS NULL AND EXCLUDED.staff IS NOT NULL)
   OR (l.cancelled_at IS NULL AND EXCLUDED.cancelled_at IS NOT NULL)
";

/// What [`migrate`] found and left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migrated {
    /// The version before.
    pub from: i32,
    /// The version after (this build's latest).
    pub to: i32,
}

/// Brings the shop's schema to this build's version, or refuses a newer one untouched.
pub async fn migrate(client: &mut Client, url: &ShopUrl) -> Result<Migrated, ShopError> {
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(&e, url);
    let tx = client.transaction().await.map_err(pg)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(pg)?;
    // Read before writing anything: a newer schema is refused with nothing changed.
    let exists: bool = tx
        .query_one("SELECT to_regclass('paydesk_schema') IS NOT NULL", &[])
        .await
        .map_err(pg)?
        .get(0);
    let from: i32 = if exists {
        tx.query_opt("SELECT version FROM paydesk_schema", &[])
            .await
            .map_err(pg)?
            .map_or(0, |r| r.get(0))
    } else {
        0
    };
    let known = latest_version();
    if from > known {
        // Dropping the transaction rolls it back: the lock is released, nothing was written.
        return Err(ShopError::SchemaTooNew { found: from, known });
    }
    if from == known {
        tx.commit().await.map_err(pg)?;
        return Ok(Migrated { from, to: known });
    }
    if !exists {
        tx.batch_execute(
            "CREATE TABLE paydesk_schema (
                 only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                 version integer NOT NULL CHECK (version >= 0)
             );
             INSERT INTO paydesk_schema (version) VALUES (0);",
        )
        .await
        .map_err(pg)?;
    }
    let start = usize::try_from(from).unwrap_or(0);
    for step in &MIGRATIONS[start..] {
        tx.batch_execute(step).await.map_err(pg)?;
    }
    tx.execute("UPDATE paydesk_schema SET version = $1", &[&known])
        .await
        .map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    Ok(Migrated { from, to: known })
}

/// The shop's schema version now (0 before the first migration).
pub async fn version(client: &Client, url: &ShopUrl) -> Result<i32, ShopError> {
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(&e, url);
    let exists: bool = client
        .query_one("SELECT to_regclass('paydesk_schema') IS NOT NULL", &[])
        .await
        .map_err(pg)?
        .get(0);
    if !exists {
        return Ok(0);
    }
    Ok(client
        .query_opt("SELECT version FROM paydesk_schema", &[])
        .await
        .map_err(pg)?
        .map_or(0, |r| r.get(0)))
}
