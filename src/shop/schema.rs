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

/// Step 2: what desks read back. Every write of a link takes a new revision number (`rev`,
/// from one sequence) and tells listening desks (`NOTIFY paydesk_links`, the payload the desk
/// that pushed); the link's expiry is kept as a time for the open-links board; History's and
/// the board's indexes; and the day close's totals kept per quarter-hour, hour and day as
/// links are written (`report_cells`, `report_items`), as the desk keeps them in `SQLite`
/// (`store::tallies`).
const V2: &str = "
CREATE FUNCTION paydesk_time(t text) RETURNS timestamptz
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$ BEGIN RETURN t::timestamptz; EXCEPTION WHEN others THEN RETURN NULL; END $$;

CREATE SEQUENCE links_rev;
ALTER TABLE links ADD COLUMN rev bigint NOT NULL DEFAULT nextval('links_rev');
ALTER TABLE links ADD COLUMN expires_at timestamptz;
UPDATE links SET expires_at = paydesk_time(answer->>'expiryDate');

CREATE FUNCTION paydesk_links_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.rev := nextval('links_rev');
    NEW.expires_at := paydesk_time(NEW.answer->>'expiryDate');
    RETURN NEW;
END $$;
CREATE TRIGGER links_stamp BEFORE INSERT OR UPDATE ON links
    FOR EACH ROW EXECUTE FUNCTION paydesk_links_stamp();

-- One notification per pushing desk and transaction (PostgreSQL folds equal payloads).
CREATE FUNCTION paydesk_links_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('paydesk_links', NEW.desk_id);
    RETURN NULL;
END $$;
CREATE TRIGGER links_notify AFTER INSERT OR UPDATE ON links
    FOR EACH ROW EXECUTE FUNCTION paydesk_links_notify();

-- History's and the board's order is (stored_at DESC, link_id DESC): each index holds it
-- exactly, so a page is one index range with no sort, even where many links share a time.
DROP INDEX links_by_time;
CREATE INDEX links_by_time ON links (stored_at DESC, link_id DESC);
DROP INDEX links_by_desk;
CREATE INDEX links_by_desk ON links (desk_id, stored_at DESC, link_id DESC);
CREATE INDEX links_by_rev ON links (rev);
CREATE INDEX links_by_id ON links (link_id);
CREATE INDEX links_by_status ON links (status, stored_at DESC, link_id DESC);
CREATE INDEX links_by_staff ON links (staff, stored_at DESC, link_id DESC);
CREATE INDEX links_open ON links (stored_at DESC, link_id DESC)
    WHERE paydesk_status_rank(status) < 2;
CREATE INDEX links_pending_expiry ON links (expires_at) WHERE status = 'PENDING';

-- The day close's totals (docs/design.md §8, as store::tallies for the desk): per span
-- (0 a UTC quarter-hour, 1 an hour, 2 a day of creation), bucket, desk, staff member
-- ('' nobody), currency, kind (0 paid, 1 partly paid, 2 cancelled, 3 expired, 4 pending,
-- 5 other, 6 collected) and at (collected: the UTC day number the money came in; a pending
-- link that never expires: 1; else 0). Pending and partly paid cells keep the earliest and
-- latest expiry ever added (Unix ms; a partly paid link that can no longer be paid adds 0).
-- Collected cells, as the desk's, are not split by member (the report does not ask) and
-- hold the day's money per UTC quarter-hour in by_quarter (96 sums, quarter 0 first): a
-- month of ten desks is a few hundred collected rows, not one per quarter-hour with money.
CREATE TABLE report_cells (
    span       smallint NOT NULL,
    -- The account (base URL, API key id, sandbox desk, joined by U+001F): a report is one
    -- account's, as a desk's is one profile's; sandbox money never adds to a real account's.
    account    text NOT NULL,
    bucket     bigint NOT NULL,
    desk_id    text NOT NULL,
    staff      text NOT NULL,
    currency   text NOT NULL,
    kind       smallint NOT NULL,
    at         bigint NOT NULL,
    links      bigint NOT NULL,
    amount     numeric NOT NULL,
    paid       numeric NOT NULL,
    expiry_min bigint,
    expiry_max bigint,
    by_quarter numeric[],
    PRIMARY KEY (span, account, bucket, desk_id, staff, currency, kind, at)
);

-- A link's account as the report keys it.
CREATE FUNCTION paydesk_account(base_url text, api_key_id text, sandbox_desk text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT base_url || chr(31) || api_key_id || chr(31) || sandbox_desk $$;

-- Two days' money per quarter-hour added slot by slot.
CREATE FUNCTION paydesk_add_quarters(a numeric[], b numeric[]) RETURNS numeric[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY i)
          FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i) $$;

CREATE FUNCTION paydesk_tally(l links, sign integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_created bigint := floor(extract(epoch FROM l.stored_at) * 1000);
    v_kind smallint;
    v_expiry bigint;
    v_at bigint := 0;
    v_money bigint;
    v_quarters numeric[];
    v_len bigint;
    v_span smallint := 0;
BEGIN
    v_kind := CASE
        WHEN l.status = 'COMPLETED' THEN 0
        WHEN l.paid_amount > 0 THEN 1
        WHEN l.cancelled_at IS NOT NULL THEN 2
        WHEN l.status = 'PENDING' THEN 4
        WHEN l.status = 'EXPIRED' THEN 3
        ELSE 5 END;
    v_expiry := coalesce(floor(extract(epoch FROM l.expires_at) * 1000), 9223372036854775807);
    IF v_kind = 4 AND l.expires_at IS NULL THEN
        v_at := 1;
    ELSIF v_kind = 1 AND (l.status <> 'PENDING' OR l.cancelled_at IS NOT NULL) THEN
        v_expiry := 0;
    END IF;
    IF v_kind IN (0, 1) AND l.paid_amount > 0 THEN
        v_money := floor(extract(epoch FROM coalesce(paydesk_time(l.answer->>'completedDate'),
            l.observed_at)) * 1000 / 900000);
        v_quarters := array_fill(0::numeric, ARRAY[96]);
        v_quarters[mod(v_money, 96) + 1] := sign * l.paid_amount;
        v_money := floor(v_money::numeric / 96);
    END IF;
    FOREACH v_len IN ARRAY ARRAY[900000, 3600000, 86400000]::bigint[] LOOP
        INSERT INTO report_cells AS c (span, account, bucket, desk_id, staff, currency, kind, at,
            links, amount, paid, expiry_min, expiry_max)
        VALUES (v_span, paydesk_account(l.base_url, l.api_key_id, l.sandbox_desk),
            floor(v_created::numeric / v_len), l.desk_id, coalesce(l.staff, ''),
            l.currency, v_kind, v_at, sign, sign * coalesce(l.amount, 0), sign * l.paid_amount,
            CASE WHEN v_kind IN (1, 4) THEN v_expiry END,
            CASE WHEN v_kind IN (1, 4) THEN v_expiry END)
        ON CONFLICT (span, account, bucket, desk_id, staff, currency, kind, at) DO UPDATE SET
            links = c.links + EXCLUDED.links,
            amount = c.amount + EXCLUDED.amount,
            paid = c.paid + EXCLUDED.paid,
            expiry_min = least(c.expiry_min, EXCLUDED.expiry_min),
            expiry_max = greatest(c.expiry_max, EXCLUDED.expiry_max);
        IF v_kind IN (0, 1) AND l.paid_amount > 0 THEN
            INSERT INTO report_cells AS c (span, account, bucket, desk_id, staff, currency, kind,
                at, links, amount, paid, by_quarter)
            VALUES (v_span, paydesk_account(l.base_url, l.api_key_id, l.sandbox_desk),
                floor(v_created::numeric / v_len), l.desk_id, '',
                l.currency, 6, v_money, 0, 0, sign * l.paid_amount, v_quarters)
            ON CONFLICT (span, account, bucket, desk_id, staff, currency, kind, at)
            DO UPDATE SET
                paid = c.paid + EXCLUDED.paid,
                by_quarter = paydesk_add_quarters(c.by_quarter, EXCLUDED.by_quarter);
        END IF;
        v_span := v_span + 1;
    END LOOP;
END $$;

CREATE FUNCTION paydesk_links_tally() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        PERFORM paydesk_tally(OLD, -1);
    END IF;
    PERFORM paydesk_tally(NEW, 1);
    RETURN NULL;
END $$;
CREATE TRIGGER links_tally AFTER INSERT OR UPDATE ON links
    FOR EACH ROW EXECUTE FUNCTION paydesk_links_tally();
-- The best sellers' totals: per span, bucket, desk, currency and item ('v:' the catalog
-- variant, else 'n:' the name sent), the quantity sold on paid links, its sum and how many
-- lines had no price; kept as a link becomes paid (or its items arrive after it did).
CREATE TABLE report_items (
    span     smallint NOT NULL,
    account  text NOT NULL,
    bucket   bigint NOT NULL,
    desk_id  text NOT NULL,
    currency text NOT NULL,
    item     text NOT NULL,
    variant_id text,
    name     text,
    quantity numeric NOT NULL,
    sum      numeric NOT NULL,
    unpriced bigint NOT NULL,
    PRIMARY KEY (span, account, bucket, desk_id, currency, item)
);

CREATE FUNCTION paydesk_tally_item(l links, i link_items, sign integer) RETURNS void
    LANGUAGE plpgsql AS $$
DECLARE
    v_created bigint := floor(extract(epoch FROM l.stored_at) * 1000);
    v_len bigint;
    v_span smallint := 0;
BEGIN
    FOREACH v_len IN ARRAY ARRAY[900000, 3600000, 86400000]::bigint[] LOOP
        INSERT INTO report_items AS t (span, account, bucket, desk_id, currency, item,
            variant_id, name, quantity, sum, unpriced)
        VALUES (v_span, paydesk_account(l.base_url, l.api_key_id, l.sandbox_desk),
            floor(v_created::numeric / v_len), l.desk_id, l.currency,
            CASE WHEN i.variant_id IS NOT NULL THEN 'v:' || i.variant_id
                 ELSE 'n:' || btrim(coalesce(i.name, '')) END,
            i.variant_id, btrim(i.name), sign * i.quantity,
            sign * coalesce(i.unit_price * i.quantity, 0),
            CASE WHEN i.unit_price IS NULL THEN sign ELSE 0 END)
        ON CONFLICT (span, account, bucket, desk_id, currency, item) DO UPDATE SET
            quantity = t.quantity + EXCLUDED.quantity,
            sum = t.sum + EXCLUDED.sum,
            unpriced = t.unpriced + EXCLUDED.unpriced,
            name = coalesce(t.name, EXCLUDED.name);
        v_span := v_span + 1;
    END LOOP;
END $$;

CREATE FUNCTION paydesk_links_tally_items() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_item link_items;
    v_was boolean := TG_OP = 'UPDATE' AND OLD.status = 'COMPLETED';
    v_is boolean := NEW.status = 'COMPLETED';
BEGIN
    IF v_was <> v_is THEN
        FOR v_item IN SELECT * FROM link_items AS i
            WHERE (i.base_url, i.api_key_id, i.sandbox_desk, i.link_id)
                = (NEW.base_url, NEW.api_key_id, NEW.sandbox_desk, NEW.link_id) LOOP
            PERFORM paydesk_tally_item(NEW, v_item, CASE WHEN v_is THEN 1 ELSE -1 END);
        END LOOP;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER links_tally_items AFTER INSERT OR UPDATE ON links
    FOR EACH ROW EXECUTE FUNCTION paydesk_links_tally_items();

CREATE FUNCTION paydesk_items_tally() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_link links;
BEGIN
    SELECT * INTO v_link FROM links AS l
        WHERE (l.base_url, l.api_key_id, l.sandbox_desk, l.link_id)
            = (NEW.base_url, NEW.api_key_id, NEW.sandbox_desk, NEW.link_id);
    IF v_link.status = 'COMPLETED' THEN
        PERFORM paydesk_tally_item(v_link, NEW, 1);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER link_items_tally AFTER INSERT ON link_items
    FOR EACH ROW EXECUTE FUNCTION paydesk_items_tally();

SELECT paydesk_tally(l, 1) FROM links AS l;
SELECT paydesk_tally_item(l, i, 1) FROM links AS l JOIN link_items AS i
    USING (base_url, api_key_id, sandbox_desk, link_id) WHERE l.status = 'COMPLETED';
";

/// The steps, in order; the version is how many have run. Step 3 is the poller's leases and
/// the shop's status budget ([`super::lease::SCHEMA`]), step 4 the shop-wide catalog
/// ([`super::catalog::SCHEMA`]), step 5 the shop-wide staff ([`super::staff::SCHEMA`]), step 6
/// every desk's audit chain ([`super::audit::SCHEMA`]), step 7 saved cards' masks
/// ([`super::cards::SCHEMA`]), step 8 where a desk's audit chain forked from the shop's copy
/// ([`super::audit::FORKS_SCHEMA`]).
pub const MIGRATIONS: &[&str] = &[
    V1,
    V2,
    super::lease::SCHEMA,
    super::catalog::SCHEMA,
    super::staff::SCHEMA,
    super::audit::SCHEMA,
    super::cards::SCHEMA,
    super::audit::FORKS_SCHEMA,
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
