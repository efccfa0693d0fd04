//! The shop's PostgreSQL schema, which the shop's owner creates and migrates with `paydesk shop
//! init` ([`super::owner::init`]); a desk only checks its version (docs/design.md §8).
//!
//! - `paydesk_schema` holds one row, the schema's version: how many of [`MIGRATIONS`] ran.
//! - [`migrate`] runs in one transaction under a transaction-scoped advisory lock
//!   ([`MIGRATION_LOCK`]), so two runs of `shop init` at once take turns: the second finds the
//!   work done. A step that fails rolls every step of the run back.
//! - A version above what this build knows is refused ([`ShopError::SchemaTooNew`]) before
//!   anything is written: the transaction is rolled back, so an older paydesk touches nothing.
//! - Migrations are append-only: a released step is never edited; a change is a new step.
//!
//! # The links rule
//!
//! [`PUSH_LINK`] (step 11, [`DESK_WRITES`]) is how a desk's observation of a link reaches the
//! shop. A link's key is its
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
/// (`store::tallies`). Step 8 ([`REPORT_V2`]) replaced `report_cells` and `paydesk_tally`.
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

/// The day close's totals again, laid out for a month (docs/design.md §8, "The shop's day
/// close"; docs/benchmarks.md, "The shop at 1,000,000 links"): step 2's `report_cells` held a
/// row per kind in one table for every span, so a month read some 12,700 rows scattered among
/// the quarter-hours' and sorted them on a misjudged estimate (44.7 ms). Here a link's share
/// goes to one row per span, account, bucket, desk, member and currency holding every kind in
/// columns (`report_sums`, partitioned by span, with three hours and a week as spans of the
/// shop's own), and the money collected to `report_money`, with a row for the whole shop
/// beside each desk's. Both are
/// filled from the links already there; `report_cells` and its functions are dropped.
/// `report_items` (best sellers) stays as step 2 made it.
pub const REPORT_V2: &str = "
-- The bucket of a time (or any number) in spans of length: its floor division, exact.
CREATE FUNCTION paydesk_bucket(t bigint, length bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT (t - ((t % length) + length) % length) / length $$;

-- A link's share of the day close, the one rule both the trigger and the fill below follow
-- (as the desk's store::tallies): its account (paydesk_account), creation time (Unix ms), kind
-- (0 paid, 1 partly paid, 2 cancelled, 3 expired, 4 pending, 5 other), whether it is pending
-- with no readable expiry (forever), its expiry (Unix ms; none: the largest bigint; a partly
-- paid link that can no longer be paid: 0), and for money paid on it the UTC day it came in
-- and the quarter-hour of that day (1 to 96; NULL without money).
CREATE FUNCTION paydesk_share(l links, OUT account text, OUT created bigint, OUT kind smallint,
    OUT forever boolean, OUT expiry bigint, OUT money_day bigint, OUT money_quarter integer)
    LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_money bigint;
BEGIN
    account := paydesk_account(l.base_url, l.api_key_id, l.sandbox_desk);
    created := floor(extract(epoch FROM l.stored_at) * 1000);
    kind := CASE
        WHEN l.status = 'COMPLETED' THEN 0
        WHEN l.paid_amount > 0 THEN 1
        WHEN l.cancelled_at IS NOT NULL THEN 2
        WHEN l.status = 'PENDING' THEN 4
        WHEN l.status = 'EXPIRED' THEN 3
        ELSE 5 END;
    forever := kind = 4 AND l.expires_at IS NULL;
    expiry := coalesce(floor(extract(epoch FROM l.expires_at) * 1000), 9223372036854775807);
    IF kind = 1 AND (l.status <> 'PENDING' OR l.cancelled_at IS NOT NULL) THEN
        expiry := 0;
    END IF;
    IF kind IN (0, 1) AND l.paid_amount > 0 THEN
        v_money := floor(extract(epoch FROM coalesce(paydesk_time(l.answer->>'completedDate'),
            l.observed_at)) * 1000 / 900000);
        money_day := paydesk_bucket(v_money, 96);
        money_quarter := (v_money - money_day * 96)::integer + 1;
    END IF;
END $$;

-- The totals of links: per span (0 a UTC quarter-hour, 1 an hour, 2 three hours, 3 a day, 4 a
-- week of 7 UTC days counted from 1970-01-01), account, bucket (the span's number since 1970),
-- desk, staff member ('' nobody) and currency, each kind in its own columns: a month over ten
-- desks and four members in two currencies is some 1,100 rows of weeks, days and the edges'
-- three hours, not one per kind, day and hour. amount is every link's (what was issued); paid_* are paid in full,
-- part_* partly paid, pending_* pending with an expiry, forever pending without one. Pending
-- and partly paid keep the earliest and latest expiry ever added (Unix ms): a report judges
-- the rows whose links all expired or all did not from the sums, and reads the links of a row
-- that straddles its time. Each span is a partition: its rows lie together and the planner
-- judges a range of buckets by that span's alone. Text keys compare bytewise (COLLATE \"C\"),
-- whatever the database's collation.
CREATE TABLE report_sums (
    span           smallint NOT NULL,
    account        text COLLATE \"C\" NOT NULL,
    bucket         bigint NOT NULL,
    desk_id        text COLLATE \"C\" NOT NULL,
    staff          text COLLATE \"C\" NOT NULL,
    currency       text COLLATE \"C\" NOT NULL,
    amount         numeric NOT NULL,
    paid_links     bigint NOT NULL,
    paid           numeric NOT NULL,
    part_links     bigint NOT NULL,
    part_amount    numeric NOT NULL,
    part_paid      numeric NOT NULL,
    part_min       bigint,
    part_max       bigint,
    cancelled      bigint NOT NULL,
    expired        bigint NOT NULL,
    other          bigint NOT NULL,
    pending        bigint NOT NULL,
    pending_amount numeric NOT NULL,
    pending_min    bigint,
    pending_max    bigint,
    forever        bigint NOT NULL,
    forever_amount numeric NOT NULL,
    PRIMARY KEY (span, account, bucket, desk_id, staff, currency)
) PARTITION BY LIST (span);
CREATE TABLE report_sums_quarter PARTITION OF report_sums FOR VALUES IN (0);
CREATE TABLE report_sums_hour PARTITION OF report_sums FOR VALUES IN (1);
CREATE TABLE report_sums_3hours PARTITION OF report_sums FOR VALUES IN (2);
CREATE TABLE report_sums_day PARTITION OF report_sums FOR VALUES IN (3);
CREATE TABLE report_sums_week PARTITION OF report_sums FOR VALUES IN (4);

-- The money paid on the links: per span (0 to 2, no week: a week's money comes in on some
-- eight days, as many rows as its days), account, bucket of the links' creation, desk ('' the
-- whole shop, kept beside each desk's so that the shop's report reads a row per day and
-- currency), currency and at (the UTC day number it came in), its sum and the day's 96
-- quarter-hour sums (by_quarter, the first quarter first; NULL: nothing came in then), for the
-- hourly chart in any zone.
CREATE TABLE report_money (
    span       smallint NOT NULL,
    account    text COLLATE \"C\" NOT NULL,
    bucket     bigint NOT NULL,
    desk_id    text COLLATE \"C\" NOT NULL,
    currency   text COLLATE \"C\" NOT NULL,
    at         bigint NOT NULL,
    paid       numeric NOT NULL,
    by_quarter numeric[] NOT NULL,
    PRIMARY KEY (span, account, bucket, desk_id, currency, at)
) PARTITION BY LIST (span);
CREATE TABLE report_money_quarter PARTITION OF report_money FOR VALUES IN (0);
CREATE TABLE report_money_hour PARTITION OF report_money FOR VALUES IN (1);
CREATE TABLE report_money_day PARTITION OF report_money FOR VALUES IN (2);

-- Adds a link's share (sign 1) or takes it away (-1): one statement per table, a row per span.
CREATE FUNCTION paydesk_report_put(l links, sign integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    s record;
    v_amount numeric := sign * coalesce(l.amount, 0);
    v_paid numeric := sign * l.paid_amount;
    v_quarters numeric[];
BEGIN
    SELECT * INTO s FROM paydesk_share(l);
    INSERT INTO report_sums AS c (span, account, bucket, desk_id, staff, currency, amount,
        paid_links, paid, part_links, part_amount, part_paid, part_min, part_max, cancelled,
        expired, other, pending, pending_amount, pending_min, pending_max, forever,
        forever_amount)
    SELECT p.span, s.account, paydesk_bucket(s.created, p.length), l.desk_id,
        coalesce(l.staff, ''), l.currency, v_amount,
        CASE WHEN s.kind = 0 THEN sign ELSE 0 END,
        CASE WHEN s.kind = 0 THEN v_paid ELSE 0 END,
        CASE WHEN s.kind = 1 THEN sign ELSE 0 END,
        CASE WHEN s.kind = 1 THEN v_amount ELSE 0 END,
        CASE WHEN s.kind = 1 THEN v_paid ELSE 0 END,
        CASE WHEN s.kind = 1 THEN s.expiry END,
        CASE WHEN s.kind = 1 THEN s.expiry END,
        CASE WHEN s.kind = 2 THEN sign ELSE 0 END,
        CASE WHEN s.kind = 3 THEN sign ELSE 0 END,
        CASE WHEN s.kind = 5 THEN sign ELSE 0 END,
        CASE WHEN s.kind = 4 AND NOT s.forever THEN sign ELSE 0 END,
        CASE WHEN s.kind = 4 AND NOT s.forever THEN v_amount ELSE 0 END,
        CASE WHEN s.kind = 4 AND NOT s.forever THEN s.expiry END,
        CASE WHEN s.kind = 4 AND NOT s.forever THEN s.expiry END,
        CASE WHEN s.forever THEN sign ELSE 0 END,
        CASE WHEN s.forever THEN v_amount ELSE 0 END
    FROM (VALUES (0::smallint, 900000), (1::smallint, 3600000), (2::smallint, 10800000),
                 (3::smallint, 86400000), (4::smallint, 604800000)) AS p(span, length)
    ON CONFLICT (span, account, bucket, desk_id, staff, currency) DO UPDATE SET
        amount = c.amount + EXCLUDED.amount,
        paid_links = c.paid_links + EXCLUDED.paid_links,
        paid = c.paid + EXCLUDED.paid,
        part_links = c.part_links + EXCLUDED.part_links,
        part_amount = c.part_amount + EXCLUDED.part_amount,
        part_paid = c.part_paid + EXCLUDED.part_paid,
        part_min = least(c.part_min, EXCLUDED.part_min),
        part_max = greatest(c.part_max, EXCLUDED.part_max),
        cancelled = c.cancelled + EXCLUDED.cancelled,
        expired = c.expired + EXCLUDED.expired,
        other = c.other + EXCLUDED.other,
        pending = c.pending + EXCLUDED.pending,
        pending_amount = c.pending_amount + EXCLUDED.pending_amount,
        pending_min = least(c.pending_min, EXCLUDED.pending_min),
        pending_max = greatest(c.pending_max, EXCLUDED.pending_max),
        forever = c.forever + EXCLUDED.forever,
        forever_amount = c.forever_amount + EXCLUDED.forever_amount;
    IF s.money_day IS NOT NULL THEN
        v_quarters := array_fill(NULL::numeric, ARRAY[96]);
        v_quarters[s.money_quarter] := v_paid;
        INSERT INTO report_money AS c (span, account, bucket, desk_id, currency, at, paid,
            by_quarter)
        SELECT p.span, s.account, paydesk_bucket(s.created, p.length), d.desk_id, l.currency,
            s.money_day, v_paid, v_quarters
        FROM (VALUES (0::smallint, 900000), (1::smallint, 3600000),
                     (2::smallint, 86400000)) AS p(span, length),
             (VALUES (l.desk_id), ('')) AS d(desk_id)
        ON CONFLICT (span, account, bucket, desk_id, currency, at) DO UPDATE SET
            paid = c.paid + EXCLUDED.paid,
            by_quarter[s.money_quarter] = coalesce(c.by_quarter[s.money_quarter], 0)
                + EXCLUDED.paid;
    END IF;
END $$;

-- Step 2's trigger on links now keeps these tables.
CREATE OR REPLACE FUNCTION paydesk_links_tally() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        PERFORM paydesk_report_put(OLD, -1);
    END IF;
    PERFORM paydesk_report_put(NEW, 1);
    RETURN NULL;
END $$;

-- Filled from the links already there, in one pass per table.
INSERT INTO report_sums (span, account, bucket, desk_id, staff, currency, amount, paid_links,
    paid, part_links, part_amount, part_paid, part_min, part_max, cancelled, expired, other,
    pending, pending_amount, pending_min, pending_max, forever, forever_amount)
SELECT p.span, x.account, paydesk_bucket(x.created, p.length), x.desk_id, x.staff,
    x.currency, sum(x.amount),
    count(*) FILTER (WHERE x.kind = 0),
    coalesce(sum(x.paid) FILTER (WHERE x.kind = 0), 0),
    count(*) FILTER (WHERE x.kind = 1),
    coalesce(sum(x.amount) FILTER (WHERE x.kind = 1), 0),
    coalesce(sum(x.paid) FILTER (WHERE x.kind = 1), 0),
    min(x.expiry) FILTER (WHERE x.kind = 1),
    max(x.expiry) FILTER (WHERE x.kind = 1),
    count(*) FILTER (WHERE x.kind = 2),
    count(*) FILTER (WHERE x.kind = 3),
    count(*) FILTER (WHERE x.kind = 5),
    count(*) FILTER (WHERE x.kind = 4 AND NOT x.forever),
    coalesce(sum(x.amount) FILTER (WHERE x.kind = 4 AND NOT x.forever), 0),
    min(x.expiry) FILTER (WHERE x.kind = 4 AND NOT x.forever),
    max(x.expiry) FILTER (WHERE x.kind = 4 AND NOT x.forever),
    count(*) FILTER (WHERE x.forever),
    coalesce(sum(x.amount) FILTER (WHERE x.forever), 0)
FROM (SELECT l.desk_id, coalesce(l.staff, '') AS staff, l.currency,
             coalesce(l.amount, 0) AS amount, l.paid_amount AS paid, s.*
      FROM links AS l, paydesk_share(l) AS s) AS x,
     (VALUES (0::smallint, 900000), (1::smallint, 3600000), (2::smallint, 10800000),
             (3::smallint, 86400000), (4::smallint, 604800000)) AS p(span, length)
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO report_money (span, account, bucket, desk_id, currency, at, paid, by_quarter)
SELECT span, account, bucket, desk_id, currency, at, paid,
    (SELECT array_agg(m.paid ORDER BY q.quarter) FROM generate_series(1, 96) AS q(quarter)
         LEFT JOIN unnest(quarters, sums) AS m(quarter, paid) ON m.quarter = q.quarter)
FROM (SELECT span, account, bucket, desk_id, currency, at, sum(paid) AS paid,
             array_agg(quarter) AS quarters, array_agg(paid) AS sums
      FROM (SELECT p.span, x.account, paydesk_bucket(x.created, p.length) AS bucket,
                   d.desk_id, x.currency, x.money_day AS at, x.money_quarter AS quarter,
                   sum(x.paid) AS paid
            FROM (SELECT l.desk_id, l.currency, l.paid_amount AS paid, s.*
                  FROM links AS l, paydesk_share(l) AS s) AS x,
                 (VALUES (0::smallint, 900000), (1::smallint, 3600000),
                         (2::smallint, 86400000)) AS p(span, length),
                 LATERAL (VALUES (x.desk_id), ('')) AS d(desk_id)
            WHERE x.money_day IS NOT NULL
            GROUP BY 1, 2, 3, 4, 5, 6, 7) AS per_quarter
      GROUP BY 1, 2, 3, 4, 5, 6) AS per_day;

DROP TABLE report_cells;
DROP FUNCTION paydesk_tally(links, integer);
DROP FUNCTION paydesk_add_quarters(numeric[], numeric[]);
";

/// The SQLSTATE the shop raises when a desk login that `add-desk` made registers a second
/// device.
pub const LOGIN_BOUND: &str = "PDK01";

/// The SQLSTATE the shop raises when a login registers a device another desk login holds.
pub const DEVICE_TAKEN: &str = "PDK02";

/// Step 10 (issue 28, [`super::owner`]): the owner's list of desk logins, and which login registered
/// each desk (set by the shop from `session_user`, never taken from the desk). A login that
/// `add-desk` made is bound to the device of its first join ([`LOGIN_BOUND`]), and a device
/// registered by such a login, not removed, cannot be taken over by another ([`DEVICE_TAKEN`]).
/// The trigger runs as the owner (`SECURITY DEFINER`, its `search_path` pinned and ending in
/// `pg_temp`): desks cannot read `desk_logins`.
pub const DESK_LOGINS: &str = "
CREATE TABLE desk_logins (
    login      text PRIMARY KEY,
    name       text NOT NULL UNIQUE CHECK (name <> ''),
    created_at timestamptz NOT NULL DEFAULT now(),
    removed_at timestamptz
);
CREATE SEQUENCE desk_login_numbers;

ALTER TABLE desks ADD COLUMN login text;
CREATE FUNCTION paydesk_desks_login() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_other text;
BEGIN
    NEW.login := session_user;
    IF EXISTS (SELECT 1 FROM desk_logins WHERE login = session_user) THEN
        SELECT desk_id INTO v_other FROM desks
            WHERE login = session_user AND desk_id <> NEW.desk_id LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'the login % belongs to the desk %', session_user, v_other
                USING ERRCODE = 'PDK01';
        END IF;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.login IS DISTINCT FROM session_user
        AND EXISTS (SELECT 1 FROM desk_logins WHERE login = OLD.login AND removed_at IS NULL)
    THEN
        RAISE EXCEPTION 'the desk % joined with the login %', NEW.desk_id, OLD.login
            USING ERRCODE = 'PDK02';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER desks_login BEFORE INSERT OR UPDATE ON desks
    FOR EACH ROW EXECUTE FUNCTION paydesk_desks_login();
";

/// The steps, in order; the version is how many have run. Step 3 is the poller's leases and
/// the shop's status budget ([`super::lease::SCHEMA`]), step 4 the shop-wide catalog
/// ([`super::catalog::SCHEMA`]), step 5 the shop-wide staff ([`super::staff::SCHEMA`]), step 6
/// every desk's audit chain ([`super::audit::SCHEMA`]), step 7 saved cards' masks
/// ([`super::cards::SCHEMA`]), step 8 the day close's totals laid out for a month
/// ([`REPORT_V2`]), step 9 where a desk's audit chain forked from the shop's copy
/// ([`super::audit::FORKS_SCHEMA`]), step 10 the owner's desk logins ([`DESK_LOGINS`]), step
/// 11 a desk's writes of its links through functions ([`DESK_WRITES`]), step 12 the staff
/// under the shop's authority ([`super::staff::AUTHORITY`]), step 13 the catalog under it
/// ([`super::catalog::AUTHORITY`]), step 14 the shop's own audit chain
/// ([`super::audit::SHOP_CHAIN`]), step 15 payments confirmed by a second desk's own call
/// ([`super::confirm::CONFIRMATIONS`]), step 16 the leases and the budget written through
/// functions ([`super::lease::AUTHORITY`]), step 17 the saved cards ([`super::cards::AUTHORITY`]), step 18 what Day close counts
/// apart ([`super::confirm::DAY_CLOSE`]), step 19 a desk's first name its login's
/// ([`DESK_NAMES`]), step 20 the views a desk reads through ([`DESK_READS`]), step 21 the
/// sends and renewals of links for payers not at the counter ([`super::outreach::SCHEMA`]),
/// step 22 one automatic receipt and reminder per link ([`super::outreach::CLAIMS`]), step 23
/// each link's first send kept on it for Day close ([`super::outreach::SENT_MARKS`]).
pub const MIGRATIONS: &[&str] = &[
    V1,
    V2,
    super::lease::SCHEMA,
    super::catalog::SCHEMA,
    super::staff::SCHEMA,
    super::audit::SCHEMA,
    super::cards::SCHEMA,
    REPORT_V2,
    super::audit::FORKS_SCHEMA,
    DESK_LOGINS,
    DESK_WRITES,
    super::staff::AUTHORITY,
    super::catalog::AUTHORITY,
    super::audit::SHOP_CHAIN,
    super::confirm::CONFIRMATIONS,
    super::lease::AUTHORITY,
    super::cards::AUTHORITY,
    super::confirm::DAY_CLOSE,
    DESK_NAMES,
    DESK_READS,
    super::outreach::SCHEMA,
    super::outreach::CLAIMS,
    super::outreach::SENT_MARKS,
];

/// Step 19 (issue 28): a desk's first shown name is the one the owner gave its login at
/// `shop add-desk`. `paydesk_register` takes whether the desk was named at the desk (`shop
/// name`, Settings) and answers the name the shop keeps: a desk named there is shown by that
/// name; one nobody named keeps the name the shop has for it, else its login's, else the host
/// name it sent. The two-argument function of step 11 goes.
pub const DESK_NAMES: &str = "
DROP FUNCTION paydesk_register(text, text);
CREATE FUNCTION paydesk_register(p_desk text, p_name text, p_named boolean) RETURNS text
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_name text := p_name;
BEGIN
    IF NOT p_named THEN
        v_name := coalesce(
            (SELECT name FROM desks WHERE desk_id = p_desk),
            (SELECT name FROM desk_logins WHERE login = session_user),
            p_name);
    END IF;
    INSERT INTO desks (desk_id, name, joined_at, seen_at) VALUES (p_desk, v_name, now(), now())
    ON CONFLICT (desk_id) DO UPDATE SET name = EXCLUDED.name, seen_at = EXCLUDED.seen_at;
    RETURN v_name;
END $$;
";

/// The schema a desk reads the shop through ([`DESK_READS`]); a desk's connection puts it
/// first on its `search_path`, so the desk's statements name the same relations as the
/// owner's and reach the views.
pub const DESK_READ_SCHEMA: &str = "desk_read";

/// Step 20 (issue 28): a desk reads the shop only through views. Desks lose `SELECT` on every
/// table (`owner::grants`); they read the relations below, each a view of the same name in
/// `desk_read` selecting every column of the table, owned by the owner, which PostgreSQL checks with the owner's rights and
/// plans as the table itself (a simple view is inlined: the month's Day close keeps its
/// partition pruning and index ranges, which a `SECURITY DEFINER` set-returning function would
/// hide behind a full read). Nothing a view returns is a verifier, a token or another desk's
/// secret: the staff's, the owner's and the contradictions' tables have no view and are read
/// only through functions. A later step that adds a column a desk reads recreates that view.
pub const DESK_READS: &str = "
CREATE SCHEMA desk_read;
CREATE VIEW desk_read.paydesk_schema AS SELECT * FROM public.paydesk_schema;
CREATE VIEW desk_read.links AS SELECT * FROM public.links;
CREATE VIEW desk_read.link_items AS SELECT * FROM public.link_items;
CREATE VIEW desk_read.desks AS SELECT * FROM public.desks;
CREATE VIEW desk_read.outbox_acks AS SELECT * FROM public.outbox_acks;
CREATE VIEW desk_read.report_sums AS SELECT * FROM public.report_sums;
CREATE VIEW desk_read.report_money AS SELECT * FROM public.report_money;
CREATE VIEW desk_read.report_items AS SELECT * FROM public.report_items;
CREATE VIEW desk_read.audit AS SELECT * FROM public.audit;
CREATE VIEW desk_read.audit_forks AS SELECT * FROM public.audit_forks;
CREATE VIEW desk_read.catalog_snapshots AS SELECT * FROM public.catalog_snapshots;
CREATE VIEW desk_read.catalog_variants AS SELECT * FROM public.catalog_variants;
CREATE VIEW desk_read.catalog_current AS SELECT * FROM public.catalog_current;
CREATE VIEW desk_read.saved_cards AS SELECT * FROM public.saved_cards;
";

/// The version this build migrates to.
pub fn latest_version() -> i32 {
    i32::try_from(MIGRATIONS.len()).expect("fewer than 2 billion migrations")
}

/// The SQLSTATE the shop raises when a login acts for a desk it did not register.
pub const NOT_THIS_DESK: &str = "PDK03";

/// Step 11 (issue 28): a desk writes its links, their items, its acknowledgement and its own
/// registration through functions only, never through the tables. Each function is `SECURITY
/// DEFINER` (owned by `<database>_definer`, `owner::definer_grants`; `search_path` pinned and
/// ending in `pg_temp`) and acts for a desk the session's login registered ([`NOT_THIS_DESK`] otherwise), so a login acts as its
/// own desk and no other. What a desk may push:
///
/// - an observation of a link (`paydesk_push_link`): the links rule (newer by *status order,
///   then `paid_amount`*: `PENDING` 0, `UNDER_REVIEW` and unknown 1, `EXPIRED` and `REJECTED` 2,
///   `COMPLETED` 3; never by the desks' clocks, so a replay or an older observation changes
///   nothing and a status never goes back; the maker member and the first cancel only ever
///   set), plus two rules of the shop: a **new** link only as its own desk's, and no time
///   (stored, observed, cancelled) more than 5 minutes past the shop's clock. A refused
///   observation is written to `push_refusals` (when, login, desk, kind, link, what) and
///   changes nothing; the push goes on, so one bad row cannot stall a desk's outbox;
/// - a link's items (`paydesk_push_item`), only onto its own links, never changed once there;
/// - its outbox acknowledgement (`paydesk_push_ack`), timed by the shop's clock;
/// - its name (`paydesk_register`), its joining and last-seen times the shop's.
pub const DESK_WRITES: &str = "
CREATE TABLE push_refusals (
    id      bigserial PRIMARY KEY,
    at      timestamptz NOT NULL DEFAULT now(),
    login   text NOT NULL DEFAULT session_user,
    desk_id text NOT NULL,
    kind    text NOT NULL,
    link_id text,
    detail  text NOT NULL
);

CREATE FUNCTION paydesk_acting_desk(p_desk text) RETURNS void LANGUAGE plpgsql STABLE
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM desks WHERE desk_id = p_desk AND login = session_user) THEN
        RAISE EXCEPTION 'the login % has not registered the desk %', session_user, p_desk
            USING ERRCODE = 'PDK03';
    END IF;
END $$;

CREATE FUNCTION paydesk_register(p_desk text, p_name text) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    INSERT INTO desks (desk_id, name, joined_at, seen_at) VALUES (p_desk, p_name, now(), now())
    ON CONFLICT (desk_id) DO UPDATE SET name = EXCLUDED.name, seen_at = EXCLUDED.seen_at;
END $$;

CREATE FUNCTION paydesk_push_link(p_desk text, p_base_url text, p_api_key_id text,
    p_sandbox_desk text, p_link_id text, p_link_desk text, p_staff text, p_order_number text,
    p_status text, p_currency text, p_amount numeric, p_paid numeric,
    p_cancelled_at timestamptz, p_stored_at timestamptz, p_observed_at timestamptz,
    p_answer text) RETURNS boolean LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_latest timestamptz := now() + interval '5 minutes';
    v_old record;
    v_newer boolean;
    v_changed bigint;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    IF p_stored_at > v_latest OR p_observed_at > v_latest OR p_cancelled_at > v_latest THEN
        INSERT INTO push_refusals (desk_id, kind, link_id, detail)
        VALUES (p_desk, 'time in the future', p_link_id, format(
            'stored %s, observed %s, cancelled %s', p_stored_at, p_observed_at, p_cancelled_at));
        RETURN false;
    END IF;
    SELECT status, paid_amount INTO v_old FROM links
        WHERE (base_url, api_key_id, sandbox_desk, link_id)
            = (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id)
        FOR UPDATE;
    IF NOT FOUND THEN
        IF p_link_desk <> p_desk THEN
            INSERT INTO push_refusals (desk_id, kind, link_id, detail)
            VALUES (p_desk, 'another desk''s new link', p_link_id,
                format('a link the shop does not have, as desk %s''s', p_link_desk));
            RETURN false;
        END IF;
        INSERT INTO links (base_url, api_key_id, sandbox_desk, link_id, desk_id, staff,
            order_number, status, currency, amount, paid_amount, cancelled_at, stored_at,
            observed_at, answer)
        VALUES (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id, p_link_desk, p_staff,
            p_order_number, p_status, p_currency, p_amount, p_paid, p_cancelled_at,
            p_stored_at, p_observed_at, p_answer::jsonb)
        ON CONFLICT DO NOTHING;
        GET DIAGNOSTICS v_changed = ROW_COUNT;
        IF v_changed > 0 THEN
            RETURN true;
        END IF;
        -- Another push stored it meanwhile: this observation is weighed against that one.
        SELECT status, paid_amount INTO v_old FROM links
            WHERE (base_url, api_key_id, sandbox_desk, link_id)
                = (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id)
            FOR UPDATE;
    END IF;
    v_newer := (paydesk_status_rank(p_status), p_paid)
        > (paydesk_status_rank(v_old.status), v_old.paid_amount);
    UPDATE links SET
        status = CASE WHEN v_newer THEN p_status ELSE status END,
        paid_amount = CASE WHEN v_newer THEN p_paid ELSE paid_amount END,
        observed_at = CASE WHEN v_newer THEN p_observed_at ELSE observed_at END,
        answer = CASE WHEN v_newer THEN p_answer::jsonb ELSE answer END,
        staff = coalesce(staff, p_staff),
        cancelled_at = coalesce(cancelled_at, p_cancelled_at)
    WHERE (base_url, api_key_id, sandbox_desk, link_id)
            = (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id)
        AND (v_newer
            OR (staff IS NULL AND p_staff IS NOT NULL)
            OR (cancelled_at IS NULL AND p_cancelled_at IS NOT NULL));
    GET DIAGNOSTICS v_changed = ROW_COUNT;
    RETURN v_changed > 0;
END $$;

CREATE FUNCTION paydesk_push_item(p_desk text, p_base_url text, p_api_key_id text,
    p_sandbox_desk text, p_link_id text, p_position integer, p_name text, p_variant_id text,
    p_quantity numeric, p_unit_price numeric) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    INSERT INTO link_items (base_url, api_key_id, sandbox_desk, link_id, position, name,
        variant_id, quantity, unit_price)
    SELECT p_base_url, p_api_key_id, p_sandbox_desk, p_link_id, p_position, p_name,
        p_variant_id, p_quantity, p_unit_price
    WHERE EXISTS (SELECT 1 FROM links
        WHERE (base_url, api_key_id, sandbox_desk, link_id)
            = (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id) AND desk_id = p_desk)
    ON CONFLICT DO NOTHING;
END $$;

CREATE FUNCTION paydesk_push_ack(p_desk text, p_seq bigint) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    INSERT INTO outbox_acks (desk_id, acked_seq, acked_at) VALUES (p_desk, p_seq, now())
    ON CONFLICT (desk_id) DO UPDATE SET
        acked_seq = greatest(outbox_acks.acked_seq, EXCLUDED.acked_seq),
        acked_at = EXCLUDED.acked_at;
END $$;
";

/// How a desk sends one observation of a link: `$1` the pushing desk, then `$2` base URL, `$3`
/// API key id, `$4` sandbox desk (`''` for a real account), `$5` link id, `$6` the link's desk,
/// `$7` staff, `$8` order number, `$9` status, `$10` currency, `$11` amount, `$12` paid amount,
/// `$13` cancelled at, `$14` stored at, `$15` observed at, `$16` the answer as JSON text.
/// Whether the shop's row changed ([`DESK_WRITES`] has the rules).
pub const PUSH_LINK: &str = "SELECT paydesk_push_link($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
    $11, $12, $13, $14, $15, $16::text)";

/// What [`migrate`] found and left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migrated {
    /// The version before.
    pub from: i32,
    /// The version after (this build's latest, unless [`migrate_to`] asked for less).
    pub to: i32,
}

/// Brings the shop's schema to this build's version, or refuses a newer one untouched.
pub async fn migrate(client: &mut Client, url: &ShopUrl) -> Result<Migrated, ShopError> {
    migrate_to(client, url, latest_version()).await
}

/// Brings the shop's schema to version `target` (at most this build's), as [`migrate`] does;
/// a schema at or above `target` is left as it is. The tests stop before a step to hold what
/// it fills from existing rows to what its triggers keep.
pub async fn migrate_to(
    client: &mut Client,
    url: &ShopUrl,
    target: i32,
) -> Result<Migrated, ShopError> {
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(e, url);
    let tx = client.transaction().await.map_err(pg)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(pg)?;
    // Every step names the shop's own schema's objects, whatever the session's path (a desk's
    // connection reads through `desk_read` first: [`DESK_READS`]).
    tx.batch_execute("SET LOCAL search_path = public")
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
    let target = target.min(known);
    if from >= target {
        tx.commit().await.map_err(pg)?;
        return Ok(Migrated { from, to: from });
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
    let end = usize::try_from(target).unwrap_or(0);
    for step in &MIGRATIONS[start..end] {
        tx.batch_execute(step).await.map_err(pg)?;
    }
    tx.execute("UPDATE paydesk_schema SET version = $1", &[&target])
        .await
        .map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    Ok(Migrated { from, to: target })
}

/// The shop's schema version now (0 before the first migration).
pub async fn version(client: &Client, url: &ShopUrl) -> Result<i32, ShopError> {
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(e, url);
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
