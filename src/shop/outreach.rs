//! What reached the shop's payers who were not at the counter (issue 30, docs/design.md
//! §"Sent, reminded, renewed"): every desk's sends, read from the shop's copy of the desks'
//! audit, and the renewals, one per link across the shop.
//!
//! - **Sends** are not a table of their own: a send is a `link.send` row of the desk's audit
//!   (link id, channel, masked recipient), which reaches the shop through
//!   `paydesk_push_audit` with the rest of the chain. [`sends_since`] reads them by time
//!   through [`SCHEMA`]'s partial index, so the board of every desk shows "Sent by WhatsApp
//!   10:42 · Ayşe" from the one record that cannot be changed afterwards.
//! - **Renewals** ("Send a new link" for an expired or cancelled unpaid link) are claimed in
//!   the shop before the new link is asked of the API: `paydesk_claim_renewal` records the
//!   link renewed and the new link's order number, and answers the order number of the
//!   renewal that stands, this one or an earlier one from any desk. A second desk that tries
//!   to renew the same link is told the first one's number and sends nothing.

use chrono::{DateTime, Utc};

use rust_decimal::Decimal;

use super::lease::LinkKey;
use super::{Shop, ShopError};
use crate::domain::share::{ItemLine, SendMark};

/// Schema step 21 (issue 30): the partial indexes of the sends in the shop's audit (by time,
/// and by link), the
/// links by order number (a renewal's next free number), the renewals and the function that
/// claims one. `account` is the link's account key
/// (`paydesk_account`'s shape, as the outbox's `Account::key` makes it); a link is renewed at
/// most once per account and link id, and an order number is a renewal's only once.
pub const SCHEMA: &str = "
CREATE INDEX audit_link_sends ON audit (at_ms) WHERE action = 'link.send';
CREATE INDEX audit_sends_by_link ON audit ((split_part(subject, ' ', 1)))
    WHERE action = 'link.send';
CREATE INDEX links_by_order ON links (order_number);

CREATE TABLE renewals (
    account        text NOT NULL,
    original_id    text NOT NULL,
    original_order text NOT NULL,
    order_id       text NOT NULL UNIQUE,
    desk_id        text NOT NULL REFERENCES desks (desk_id),
    staff          text,
    at             timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account, original_id)
);

-- A desk claims for its own account only: another desk's built-in sandbox is not its to
-- renew or write to (the account's third part is empty, or this desk).
CREATE FUNCTION paydesk_own_account(p_desk text, p_account text) RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    IF split_part(p_account, chr(31), 3) NOT IN ('', p_desk) THEN
        RAISE EXCEPTION 'the account % is not desk %''s', p_account, p_desk
            USING ERRCODE = 'PDK03';
    END IF;
END $$;

CREATE FUNCTION paydesk_claim_renewal(p_desk text, p_account text, p_original text,
    p_original_order text, p_order text, p_staff text) RETURNS TABLE (order_id text, desk_id text)
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    PERFORM paydesk_own_account(p_desk, p_account);
    IF length(p_order) NOT BETWEEN 1 AND 64 THEN
        RAISE EXCEPTION 'an order number of % characters', length(p_order)
            USING ERRCODE = '22023';
    END IF;
    INSERT INTO renewals AS r (account, original_id, original_order, order_id, desk_id, staff)
    VALUES (p_account, p_original, p_original_order, p_order, p_desk, left(p_staff, 64))
    ON CONFLICT (account, original_id) DO NOTHING;
    RETURN QUERY SELECT r.order_id, r.desk_id FROM renewals AS r
        WHERE r.account = p_account AND r.original_id = p_original;
END $$;

CREATE VIEW desk_read.renewals AS SELECT * FROM public.renewals;
";

/// Schema step 22 (issue 30): one automatic message of a kind per link across the shop (a
/// receipt, a reminder), whichever desk sends it. `paydesk_claim_mail` records the claim and
/// answers whether this desk holds it: `true` for the first desk to claim (and for that desk
/// asking again, whose own record keeps it to once: a failure after the claim is tried again),
/// `false` for every other desk. Acting for the desk its login registered, on its own account
/// (`PDK03`).
pub const CLAIMS: &str = "
CREATE TABLE mail_claims (
    account text NOT NULL,
    link_id text NOT NULL,
    kind    text NOT NULL CHECK (kind IN ('receipt', 'reminder')),
    desk_id text NOT NULL REFERENCES desks (desk_id),
    at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account, link_id, kind)
);

CREATE FUNCTION paydesk_claim_mail(p_desk text, p_account text, p_link text, p_kind text)
    RETURNS boolean LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    PERFORM paydesk_own_account(p_desk, p_account);
    INSERT INTO mail_claims (account, link_id, kind, desk_id)
    VALUES (p_account, p_link, p_kind, p_desk)
    ON CONFLICT (account, link_id, kind) DO NOTHING;
    RETURN EXISTS (SELECT 1 FROM mail_claims AS c
        WHERE (c.account, c.link_id, c.kind) = (p_account, p_link, p_kind)
          AND c.desk_id = p_desk);
END $$;

CREATE VIEW desk_read.mail_claims AS SELECT * FROM public.mail_claims;
";

/// Schema step 23: each link keeps the time of its first send (`first_sent_ms`, the earliest
/// `link.send` row of the shop's audit for it) and, once a sent link is paid in full, when it
/// was paid (`sent_paid_at`: its `completedDate`, else when the desk heard it, read as the desk
/// reads it: a time without a zone is UTC). Day close counts a month's sent links, and those
/// paid after sending, from one range of a partial index over the month's links
/// (`links_sent`), whose rows lie together, instead of looking up the link of each send by key
/// (4,246 look-ups made a month's day close at 1,000,000 links 22 ms; docs/benchmarks.md).
///
/// Triggers keep them, whichever arrives first: a send pushed after its link marks the link
/// (`audit_marks_sent`); a link pushed after its send reads the send (`links_read_sent`); and
/// every write of a sent link sets its payment time again (`links_sent_paid`, after
/// `links_read_sent` as triggers fire by name). A desk pushes its own link before or after its
/// own audit, never at once, and sends another desk's link only after reading it from the
/// shop, so the two cannot miss each other. The mark is a write of the link, so its `rev`
/// moves and desks read it again, as for any change.
pub const SENT_MARKS: &str = "
ALTER TABLE links ADD COLUMN first_sent_ms bigint, ADD COLUMN sent_paid_at timestamptz;

CREATE FUNCTION paydesk_mark_sent() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    UPDATE links SET first_sent_ms = NEW.at_ms
        WHERE link_id = split_part(NEW.subject, ' ', 1)
          AND (sandbox_desk = '' OR sandbox_desk = NEW.desk_id)
          AND (first_sent_ms IS NULL OR first_sent_ms > NEW.at_ms);
    RETURN NULL;
END $$;
CREATE TRIGGER audit_marks_sent AFTER INSERT ON audit
    FOR EACH ROW WHEN (NEW.action = 'link.send') EXECUTE FUNCTION paydesk_mark_sent();

CREATE FUNCTION paydesk_read_sent() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    SELECT min(a.at_ms) INTO NEW.first_sent_ms FROM audit AS a
        WHERE a.action = 'link.send' AND split_part(a.subject, ' ', 1) = NEW.link_id
          AND (NEW.sandbox_desk = '' OR NEW.sandbox_desk = a.desk_id);
    RETURN NEW;
END $$;
CREATE TRIGGER links_read_sent BEFORE INSERT ON links
    FOR EACH ROW EXECUTE FUNCTION paydesk_read_sent();

CREATE FUNCTION paydesk_sent_paid() RETURNS trigger LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp SET timezone = 'UTC' AS $$
BEGIN
    NEW.sent_paid_at := CASE
        WHEN NEW.first_sent_ms IS NOT NULL
            AND 'COMPLETED' IN (NEW.status, NEW.confirmed_status)
        THEN coalesce(paydesk_time(NEW.answer->>'completedDate'), NEW.observed_at) END;
    RETURN NEW;
END $$;
CREATE TRIGGER links_sent_paid BEFORE INSERT OR UPDATE ON links
    FOR EACH ROW EXECUTE FUNCTION paydesk_sent_paid();

UPDATE links AS l SET first_sent_ms = (SELECT min(a.at_ms) FROM audit AS a
        WHERE a.action = 'link.send' AND split_part(a.subject, ' ', 1) = l.link_id
          AND (l.sandbox_desk = '' OR l.sandbox_desk = a.desk_id))
    WHERE l.link_id IN (SELECT split_part(subject, ' ', 1) FROM audit
        WHERE action = 'link.send');

CREATE INDEX links_sent ON links (stored_at) WHERE first_sent_ms IS NOT NULL;

CREATE OR REPLACE VIEW desk_read.links AS SELECT * FROM public.links;
";

/// What an automatic message is, as the shop's claims name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailClaim {
    /// The receipt of a link paid in full.
    Receipt,
    /// The one reminder of a link sent and not paid.
    Reminder,
}

impl MailClaim {
    fn as_str(self) -> &'static str {
        match self {
            MailClaim::Receipt => "receipt",
            MailClaim::Reminder => "reminder",
        }
    }
}

/// Claims the automatic `kind` message of link `link_id` (of account key `account`) for desk
/// `desk_id`: `true` when this call claimed it (send it), `false` when a desk claimed it before.
///
/// # Errors
/// [`ShopError`] when the shop refuses or does not answer.
pub async fn claim_mail(
    shop: &Shop,
    desk_id: &str,
    account: &str,
    link_id: &str,
    kind: MailClaim,
) -> Result<bool, ShopError> {
    let row = shop
        .client()
        .query_one(
            "SELECT paydesk_claim_mail($1, $2, $3, $4)",
            &[&desk_id, &account, &link_id, &kind.as_str()],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(row.get(0))
}

/// The links whose reminder a desk claimed at or after `since` (every desk's).
///
/// # Errors
/// [`ShopError`] when the shop does not answer.
pub async fn reminded_since(shop: &Shop, since: DateTime<Utc>) -> Result<Vec<String>, ShopError> {
    let rows = shop
        .client()
        .query(
            "SELECT link_id FROM mail_claims WHERE kind = 'reminder' AND at >= $1",
            &[&since],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// The items link `key` was made with, as its desk pushed them (the receipt of another
/// desk's link, sent by the desk that took over its polling), in their order.
///
/// # Errors
/// [`ShopError`] when the shop does not answer.
pub async fn item_lines(shop: &Shop, key: &LinkKey) -> Result<Vec<ItemLine>, ShopError> {
    let a = &key.account;
    let rows = shop
        .client()
        .query(
            "SELECT coalesce(name, variant_id, ''), quantity::text,
                 (unit_price * quantity)::text
             FROM link_items
             WHERE base_url = $1 AND api_key_id = $2 AND sandbox_desk = $3 AND link_id = $4
             ORDER BY position",
            &[&a.base_url, &a.api_key_id, &a.sandbox_desk, &key.link_id],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(rows
        .iter()
        .map(|r| ItemLine {
            name: r.get(0),
            quantity: r
                .get::<_, &str>(1)
                .parse::<Decimal>()
                .ok()
                .and_then(|q| u32::try_from(q.trunc().mantissa()).ok())
                .unwrap_or(0),
            line_total: r
                .get::<_, Option<&str>>(2)
                .and_then(|t| t.parse::<Decimal>().ok()),
        })
        .collect())
}

/// The sends of rows holding a `link.send` audit row's subject, its time and who sent it, read as the audit wrote
/// them.
fn marks(rows: &[tokio_postgres::Row]) -> Vec<SendMark> {
    rows.iter()
        .filter_map(|r| {
            let at = DateTime::from_timestamp_millis(r.get(1))?;
            SendMark::of_audit(r.get(0), at, r.get(2))
        })
        .collect()
}

/// Every send any desk recorded at or after `since`, oldest first, with who sent it: the
/// member, else (a desk without staff) the desk's shown name.
pub async fn sends_since(shop: &Shop, since: DateTime<Utc>) -> Result<Vec<SendMark>, ShopError> {
    let rows = shop
        .client()
        .query(
            "SELECT a.subject, a.at_ms, coalesce(a.staff, d.name, a.desk_id)
             FROM audit AS a LEFT JOIN desks AS d USING (desk_id)
             WHERE a.action = 'link.send' AND a.at_ms >= $1
             ORDER BY a.at_ms, a.desk_id, a.seq",
            &[&since.timestamp_millis()],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(marks(&rows))
}

/// The sends of links `ids` (every desk's), oldest first, through the index of the sends by
/// link.
pub async fn sends_of(shop: &Shop, ids: &[String]) -> Result<Vec<SendMark>, ShopError> {
    let rows = shop
        .client()
        .query(
            "SELECT a.subject, a.at_ms, coalesce(a.staff, d.name, a.desk_id)
             FROM audit AS a LEFT JOIN desks AS d USING (desk_id)
             WHERE a.action = 'link.send' AND split_part(a.subject, ' ', 1) = ANY($1)
             ORDER BY a.at_ms, a.desk_id, a.seq",
            &[&ids],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(marks(&rows))
}

/// A renewal as the shop records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopRenewal {
    /// The link renewed.
    pub original_id: String,
    /// Its order number.
    pub original_order: String,
    /// The new link's order number.
    pub order_id: String,
    /// The new link, once the shop has it.
    pub renewed_as: Option<String>,
}

/// Claims the renewal of link `original` (of account key `account`) as order `order` for
/// desk `desk_id`; answers the renewal that stands, with the desk that claimed it: `order`
/// and this desk when this call claimed it (or this desk claimed it before), another when the
/// link was renewed before.
///
/// # Errors
/// [`ShopError`] when the shop refuses (an order number another renewal holds: a unique
/// violation) or does not answer.
pub async fn claim_renewal(
    shop: &Shop,
    desk_id: &str,
    (account, original, original_order): (&str, &str, &str),
    order: &str,
    staff: Option<&str>,
) -> Result<(String, String), ShopError> {
    let row = shop
        .client()
        .query_one(
            "SELECT * FROM paydesk_claim_renewal($1, $2, $3, $4, $5, $6)",
            &[
                &desk_id,
                &account,
                &original,
                &original_order,
                &order,
                &staff,
            ],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok((row.get(0), row.get(1)))
}

/// The renewal of link `original` (of account key `account`) the shop holds, if any: its
/// order number and the desk that claimed it.
///
/// # Errors
/// [`ShopError`] when the shop does not answer.
pub async fn renewal_claimed(
    shop: &Shop,
    account: &str,
    original: &str,
) -> Result<Option<(String, String)>, ShopError> {
    let row = shop
        .client()
        .query_opt(
            "SELECT order_id, desk_id FROM renewals WHERE account = $1 AND original_id = $2",
            &[&account, &original],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(row.map(|r| (r.get(0), r.get(1))))
}

/// Whether `order` is an order number the shop knows: a link's, or a renewal's claimed.
///
/// # Errors
/// [`ShopError`] when the shop does not answer.
pub async fn order_taken(shop: &Shop, order: &str) -> Result<bool, ShopError> {
    let row = shop
        .client()
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM links WHERE order_number = $1)
                 OR EXISTS (SELECT 1 FROM renewals WHERE order_id = $1)",
            &[&order],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(row.get(0))
}

/// The renewals touching links `ids` (as the link renewed, or as the new link by its order
/// number among `orders`), each with the new link's id once the shop has it: what History
/// marks "renewed as …" and "renews …".
///
/// # Errors
/// [`ShopError`] when the shop does not answer.
pub async fn renewals_of(
    shop: &Shop,
    ids: &[String],
    orders: &[String],
) -> Result<Vec<ShopRenewal>, ShopError> {
    let rows = shop
        .client()
        .query(
            "SELECT r.original_id, r.original_order, r.order_id,
                 (SELECT l.link_id FROM links AS l WHERE l.order_number = r.order_id
                  ORDER BY l.stored_at LIMIT 1)
             FROM renewals AS r
             WHERE r.original_id = ANY($1) OR r.order_id = ANY($2)",
            &[&ids, &orders],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(rows
        .iter()
        .map(|r| ShopRenewal {
            original_id: r.get(0),
            original_order: r.get(1),
            order_id: r.get(2),
            renewed_as: r.get(3),
        })
        .collect())
}
