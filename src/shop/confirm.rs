//! Paid only from the payment API (issue 28, docs/design.md §8 "Paid only from the payment
//! API"): a desk's claim that a link was paid is confirmed by another desk's own call.
//!
//! - The shop records which desk's observation set a link's status (`claim_desk`) and, while
//!   that status is a payment (`COMPLETED`, or money paid) only that desk has seen, the last
//!   status a second desk confirmed (`confirmed_status`, `confirmed_paid`; [`CONFIRMATIONS`]).
//!   Any desk's push of the same status and amount confirms it, the maker's own poll included.
//! - A desk that reads such a claim of another desk on its own account asks the payment API
//!   itself ([`confirm`] after a token of the shop's one budget, [`budget_token`]; no lease:
//!   the claim's desk may hold it) and hands the answer to `paydesk_confirm_link`: the same
//!   confirms, a newer one becomes the claim, an older one is a contradiction, recorded in
//!   `link_contradictions` while the claim stays unconfirmed.
//! - Until confirmed, other desks show the claim as "not yet confirmed by the server"; the
//!   maker desk never takes a payment from the shop into its own history without its own
//!   call (`Desk::take_shared`). A desk's built-in sandbox is its own: its links' claims
//!   cannot be confirmed elsewhere and stay labelled.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::lease::LinkKey;
use super::{Shop, ShopError};
use crate::api::wire::PaymentLink;
use crate::domain::Link;

/// Schema step 15: who claimed a link's status, the last confirmed one, contradictions, the
/// push rule that confirms, the confirming call and one token of the shop's budget.
pub const CONFIRMATIONS: &str = r"
-- Who claimed a link's status, and the last status a second desk's own call confirmed.
-- A claim of payment (COMPLETED, or money paid) by one desk is confirmed when another desk's
-- own call to the payment API gives the same status and paid amount. confirmed_status NULL:
-- the current status is confirmed (not a payment, confirmed, or held before this step).
ALTER TABLE links ADD COLUMN claim_desk text;
ALTER TABLE links ADD COLUMN confirmed_status text;
ALTER TABLE links ADD COLUMN confirmed_paid numeric;
ALTER TABLE links ADD COLUMN confirmed_by text;

-- A claim another desk's own call contradicted (its answer older than the claim).
CREATE TABLE link_contradictions (
    id            bigserial PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT now(),
    login         text NOT NULL DEFAULT session_user,
    desk_id       text NOT NULL,
    base_url      text NOT NULL,
    api_key_id    text NOT NULL,
    sandbox_desk  text NOT NULL,
    link_id       text NOT NULL,
    claim_desk    text,
    claimed       text NOT NULL,
    claimed_paid  numeric NOT NULL,
    seen          text NOT NULL,
    seen_paid     numeric NOT NULL
);
-- One record per desk, link and claim: a desk that asks again while the claim stands adds
-- nothing.
CREATE UNIQUE INDEX link_contradictions_once ON link_contradictions
    (desk_id, base_url, api_key_id, sandbox_desk, link_id, claimed, claimed_paid);

CREATE FUNCTION paydesk_paid_claim(p_status text, p_paid numeric) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT p_status = 'COMPLETED' OR p_paid > 0 $$;

CREATE OR REPLACE FUNCTION paydesk_push_link(p_desk text, p_base_url text, p_api_key_id text,
    p_sandbox_desk text, p_link_id text, p_link_desk text, p_staff text, p_order_number text,
    p_status text, p_currency text, p_amount numeric, p_paid numeric,
    p_cancelled_at timestamptz, p_stored_at timestamptz, p_observed_at timestamptz,
    p_answer text) RETURNS boolean LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_latest timestamptz := now() + interval '5 minutes';
    v_old record;
    v_newer boolean;
    v_same boolean;
    v_claim boolean := paydesk_paid_claim(p_status, p_paid);
    v_changed bigint;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    IF p_stored_at > v_latest OR p_observed_at > v_latest OR p_cancelled_at > v_latest THEN
        INSERT INTO push_refusals (desk_id, kind, link_id, detail)
        VALUES (p_desk, 'time in the future', p_link_id, format(
            'stored %s, observed %s, cancelled %s', p_stored_at, p_observed_at, p_cancelled_at));
        RETURN false;
    END IF;
    SELECT status, paid_amount, claim_desk, confirmed_status, confirmed_paid INTO v_old
        FROM links
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
            observed_at, answer, claim_desk, confirmed_status, confirmed_paid)
        VALUES (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id, p_link_desk, p_staff,
            p_order_number, p_status, p_currency, p_amount, p_paid, p_cancelled_at,
            p_stored_at, p_observed_at, p_answer::jsonb, p_desk,
            CASE WHEN v_claim THEN 'PENDING' END, CASE WHEN v_claim THEN 0 END)
        ON CONFLICT DO NOTHING;
        GET DIAGNOSTICS v_changed = ROW_COUNT;
        IF v_changed > 0 THEN
            RETURN true;
        END IF;
        -- Another push stored it meanwhile: this observation is weighed against that one.
        SELECT status, paid_amount, claim_desk, confirmed_status, confirmed_paid INTO v_old
            FROM links
            WHERE (base_url, api_key_id, sandbox_desk, link_id)
                = (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id)
            FOR UPDATE;
    END IF;
    v_newer := (paydesk_status_rank(p_status), p_paid)
        > (paydesk_status_rank(v_old.status), v_old.paid_amount);
    -- The same status and amount seen by a desk other than the one that claimed it: the
    -- claim is confirmed.
    v_same := NOT v_newer AND v_old.confirmed_status IS NOT NULL
        AND p_desk IS DISTINCT FROM v_old.claim_desk
        AND (paydesk_status_rank(p_status), p_paid)
            = (paydesk_status_rank(v_old.status), v_old.paid_amount);
    UPDATE links SET
        status = CASE WHEN v_newer THEN p_status ELSE status END,
        paid_amount = CASE WHEN v_newer THEN p_paid ELSE paid_amount END,
        observed_at = CASE WHEN v_newer THEN p_observed_at ELSE observed_at END,
        answer = CASE WHEN v_newer THEN p_answer::jsonb ELSE answer END,
        staff = coalesce(staff, p_staff),
        cancelled_at = coalesce(cancelled_at, p_cancelled_at),
        claim_desk = CASE WHEN v_newer THEN p_desk ELSE claim_desk END,
        -- A newer claim of payment keeps the last confirmed status (the old one, when that
        -- was confirmed); any other newer status, and a confirmation, is confirmed as it is.
        confirmed_status = CASE
            WHEN v_same THEN NULL
            WHEN v_newer AND v_claim THEN coalesce(confirmed_status, status)
            WHEN v_newer THEN NULL
            ELSE confirmed_status END,
        confirmed_paid = CASE
            WHEN v_same THEN NULL
            WHEN v_newer AND v_claim THEN coalesce(confirmed_paid, paid_amount)
            WHEN v_newer THEN NULL
            ELSE confirmed_paid END,
        confirmed_by = CASE WHEN v_same THEN p_desk WHEN v_newer THEN NULL
            ELSE confirmed_by END
    WHERE (base_url, api_key_id, sandbox_desk, link_id)
            = (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id)
        AND (v_newer OR v_same
            OR (staff IS NULL AND p_staff IS NOT NULL)
            OR (cancelled_at IS NULL AND p_cancelled_at IS NOT NULL));
    GET DIAGNOSTICS v_changed = ROW_COUNT;
    RETURN v_changed > 0;
END $$;

-- This desk's own call to the payment API about a link another desk claimed paid (its
-- answer's status, paid amount and body): the same confirms the claim, a newer one becomes
-- the claim, an older one contradicts it (link_contradictions; the claim stays unconfirmed).
-- o_outcome: confirmed, newer, contradicted, unchanged, unknown (no such link).
CREATE FUNCTION paydesk_confirm_link(p_desk text, p_base_url text, p_api_key_id text,
    p_sandbox_desk text, p_link_id text, p_status text, p_paid numeric,
    p_observed_at timestamptz, p_answer text) RETURNS text LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v links%ROWTYPE;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    SELECT * INTO v FROM links
        WHERE (base_url, api_key_id, sandbox_desk, link_id)
            = (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id)
        FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'unknown';
    END IF;
    IF (paydesk_status_rank(p_status), p_paid)
        < (paydesk_status_rank(v.status), v.paid_amount)
    THEN
        IF v.confirmed_status IS NOT NULL THEN
            INSERT INTO link_contradictions (desk_id, base_url, api_key_id, sandbox_desk,
                link_id, claim_desk, claimed, claimed_paid, seen, seen_paid)
            VALUES (p_desk, p_base_url, p_api_key_id, p_sandbox_desk, p_link_id,
                v.claim_desk, v.status, v.paid_amount, p_status, p_paid)
            ON CONFLICT DO NOTHING;
            RETURN 'contradicted';
        END IF;
        RETURN 'unchanged';
    END IF;
    IF paydesk_push_link(p_desk, p_base_url, p_api_key_id, p_sandbox_desk, p_link_id,
        v.desk_id, v.staff, v.order_number, p_status, v.currency, v.amount, p_paid,
        v.cancelled_at, v.stored_at, p_observed_at, p_answer)
    THEN
        RETURN CASE WHEN (paydesk_status_rank(p_status), p_paid)
            > (paydesk_status_rank(v.status), v.paid_amount) THEN 'newer' ELSE 'confirmed' END;
    END IF;
    RETURN 'unchanged';
END $$;

-- One token of the shop's status budget for a confirming call, which asks about a link
-- another desk polls (no lease is taken or needed): NULL when granted, else the wait in ms.
CREATE FUNCTION paydesk_budget_token() RETURNS bigint LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    b poll_budget%ROWTYPE;
    t timestamptz;
BEGIN
    SELECT * INTO STRICT b FROM poll_budget FOR UPDATE;
    t := clock_timestamp();
    IF b.next_at > t THEN
        RETURN ceil(extract(epoch FROM b.next_at - t) * 1000)::bigint;
    END IF;
    UPDATE poll_budget SET next_at = t + b.gap;
    RETURN NULL;
END $$;
";

/// Schema step 18: what Day close counts apart. `paydesk_report_claims` returns the links of
/// a report's range (its account, and desk when given) whose status is a payment no second
/// desk has confirmed, each with its last confirmed status, the money's time, its items (as
/// JSON: variant, name, quantity, line sum) and the latest contradiction another desk's own
/// call recorded (that desk, what it was told). `SECURITY DEFINER`, since desks cannot read
/// `link_contradictions`; it returns nothing else of that table. A partial index keeps the
/// read to the claims themselves, a handful in a month.
pub const DAY_CLOSE: &str = r"
CREATE INDEX links_claims ON links (stored_at) WHERE confirmed_status IS NOT NULL;
CREATE INDEX link_contradictions_by_link ON link_contradictions
    (base_url, api_key_id, sandbox_desk, link_id);

CREATE FUNCTION paydesk_report_claims(p_from timestamptz, p_to timestamptz, p_account text,
    p_desk text)
RETURNS TABLE (link_id text, order_number text, desk_id text, staff text, currency text,
    amount text, status text, paid text, confirmed_status text, confirmed_paid text,
    claim_desk text, cancelled boolean, expires_at timestamptz, money_at timestamptz,
    items text, contradicted_by text, seen text, seen_paid text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT l.link_id, l.order_number, l.desk_id, coalesce(l.staff, ''), l.currency,
        coalesce(l.amount, 0)::text, l.status, l.paid_amount::text, l.confirmed_status,
        coalesce(l.confirmed_paid, 0)::text, coalesce(l.claim_desk, ''),
        l.cancelled_at IS NOT NULL, l.expires_at,
        coalesce(paydesk_time(l.answer->>'completedDate'), l.observed_at),
        (SELECT coalesce(jsonb_agg(jsonb_build_array(i.variant_id, btrim(i.name),
                i.quantity::text, (i.unit_price * i.quantity)::text) ORDER BY i.position),
                '[]')::text
            FROM link_items AS i
            WHERE (i.base_url, i.api_key_id, i.sandbox_desk, i.link_id)
                = (l.base_url, l.api_key_id, l.sandbox_desk, l.link_id)),
        c.desk_id, c.seen, c.seen_paid::text
    FROM links AS l
    LEFT JOIN LATERAL (SELECT x.desk_id, x.seen, x.seen_paid FROM link_contradictions AS x
        WHERE (x.base_url, x.api_key_id, x.sandbox_desk, x.link_id)
            = (l.base_url, l.api_key_id, l.sandbox_desk, l.link_id)
            AND (x.claimed, x.claimed_paid) = (l.status, l.paid_amount)
        ORDER BY x.at DESC, x.id DESC LIMIT 1) AS c ON true
    WHERE l.confirmed_status IS NOT NULL AND l.stored_at >= p_from AND l.stored_at < p_to
        AND paydesk_account(l.base_url, l.api_key_id, l.sandbox_desk) = p_account
        AND (p_desk IS NULL OR l.desk_id = p_desk)
    ORDER BY l.order_number, l.link_id
$$;
";

/// What the shop did with a desk's own answer about a claimed link ([`confirm`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmed {
    /// The same status and amount: the claim is confirmed.
    Confirmed,
    /// A newer status: it is now this desk's claim.
    Newer,
    /// An older status: the claim is contradicted (recorded) and stays unconfirmed.
    Contradicted,
    /// Nothing changed (a claim confirmed already, or this desk's own).
    Unchanged,
    /// The shop has no such link.
    Unknown,
}

/// A token of the shop's one status budget for a confirming call: `None` when granted, else
/// how long until the next one.
pub async fn budget_token(shop: &Shop) -> Result<Option<Duration>, ShopError> {
    let wait: Option<i64> = shop
        .client()
        .query_one("SELECT paydesk_budget_token()", &[])
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?
        .get(0);
    Ok(wait.map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0))))
}

/// Hands the shop desk `desk_id`'s own answer about the link `key` (the payment API's, seen
/// at `now`).
pub async fn confirm(
    shop: &Shop,
    desk_id: &str,
    key: &LinkKey,
    answer: &PaymentLink,
    now: DateTime<Utc>,
) -> Result<Confirmed, ShopError> {
    let link = Link::from(answer.clone());
    let body = serde_json::to_string(answer)
        .map_err(|e| ShopError::Unreadable(format!("link {}: {e}", key.link_id)))?;
    let a = &key.account;
    let outcome: String = shop
        .client()
        .query_one(
            "SELECT paydesk_confirm_link($1, $2, $3, $4, $5, $6, $7, $8, $9::text)",
            &[
                &desk_id,
                &a.base_url,
                &a.api_key_id,
                &a.sandbox_desk,
                &key.link_id,
                &link.status.as_str(),
                &link.paid.unwrap_or_default(),
                &now,
                &body,
            ],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?
        .get(0);
    Ok(match outcome.as_str() {
        "confirmed" => Confirmed::Confirmed,
        "newer" => Confirmed::Newer,
        "contradicted" => Confirmed::Contradicted,
        "unknown" => Confirmed::Unknown,
        _ => Confirmed::Unchanged,
    })
}
