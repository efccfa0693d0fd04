//! One poller per link for the whole shop (docs/design.md §8, "One poller per link").
//!
//! Before a desk asks the API about a link's status it asks the shop ([`ask`]). The shop's
//! answer comes from one PostgreSQL function, [`ASK_FUNCTION`], run as one statement:
//!
//! 1. a link of a desk's own built-in sandbox (`sandbox_desk` not `''`) is only ever the
//!    desk's that made it: any other desk is told [`Ask::Foreign`];
//! 2. every ask of the shop takes its turn on the one row of `poll_budget` (`FOR UPDATE`), so
//!    two desks asking at once are answered one after the other, and "now" is read after the
//!    lock with `clock_timestamp()`: **every time is PostgreSQL's**, never a desk's (desks'
//!    clocks disagree);
//! 3. another desk holds a live lease on the link: [`Ask::Held`], for how long;
//! 4. the link was asked about (by any desk) less than the asker's `fresh_for` ago:
//!    [`Ask::Fresh`], the shop's row is as good as an answer;
//! 5. the shop-wide budget's next token is not due: [`Ask::Spent`], retry after;
//! 6. else [`Ask::Granted`]: the lease is this desk's for [`LEASE`] from now (a new one, a
//!    renewal, or one taken over from a desk whose lease ran out), the link's `polled_at` is
//!    now, and the budget's next token is one `gap` (1 s) away.
//!
//! Nothing is written unless the answer is `Granted`, and then lease and token are written in
//! the same statement: a desk never holds a token without the lease or the other way round.
//!
//! A desk that stops cleanly gives its leases back ([`release_all`]); one that dies loses them
//! when they run out, at most [`LEASE`] after its last grant. Whether the asking desk's
//! profile can reach the link at all (the same base URL and API key id) only the desk knows:
//! [`ask`] checks it against the [`Account`] it is given before anything is sent.

use std::time::Duration;

use super::{Shop, ShopError};

/// How long a granted lease lasts: renewed by each grant, so a desk that dies loses its
/// leases within this (and within the 10 s with room for a slow takeover).
pub const LEASE: Duration = Duration::from_secs(8);

/// The shop-wide gap between two status requests a new shop starts with (the board's one
/// request a second). It lives in the shop (`poll_budget.gap`), so every desk spends one
/// budget whatever its version.
pub const BUDGET_GAP: Duration = Duration::from_secs(1);

/// `paydesk_poll_ask`'s body from the look-up of the link's lease on, as steps 3 and 16 write
/// it: `$lease` and `$fresh` name what holds the lease's and the freshness' milliseconds.
macro_rules! poll_ask_rest {
    ($lease:literal, $fresh:literal) => {
        concat!(
            "    SELECT * INTO l FROM poll_leases
        WHERE base_url = p_base_url AND api_key_id = p_api_key_id
          AND sandbox_desk = p_sandbox_desk AND link_id = p_link_id;
    IF FOUND AND l.desk_id <> p_desk_id AND l.expires_at > t THEN
        outcome := 'held';
        holder := l.desk_id;
        wait_ms := ceil(extract(epoch FROM l.expires_at - t) * 1000)::bigint;
        RETURN;
    END IF;
    IF FOUND AND l.polled_at > t - ",
            $fresh,
            " * interval '1 millisecond' THEN
        outcome := 'fresh';
        holder := l.desk_id;
        wait_ms := floor(extract(epoch FROM t - l.polled_at) * 1000)::bigint;
        RETURN;
    END IF;
    IF b.next_at > t THEN
        outcome := 'spent';
        wait_ms := ceil(extract(epoch FROM b.next_at - t) * 1000)::bigint;
        RETURN;
    END IF;
    INSERT INTO poll_leases AS x (base_url, api_key_id, sandbox_desk, link_id, desk_id,
            expires_at, polled_at)
        VALUES (p_base_url, p_api_key_id, p_sandbox_desk, p_link_id, p_desk_id,
            t + ",
            $lease,
            " * interval '1 millisecond', t)
        ON CONFLICT (base_url, api_key_id, sandbox_desk, link_id) DO UPDATE SET
            desk_id = EXCLUDED.desk_id, expires_at = EXCLUDED.expires_at,
            polled_at = EXCLUDED.polled_at;
    UPDATE poll_budget SET next_at = t + b.gap;
    outcome := 'granted';
    holder := p_desk_id;
    wait_ms := ",
            $lease,
            ";
END $$;
"
        )
    };
}

/// The schema step of this module: the leases, the one-row budget and the ask function.
pub const SCHEMA: &str = concat!(
    "
-- Who asks the API about a link now: one desk at a time, until expires_at (PostgreSQL's
-- clock). polled_at is when the shop last granted an ask about the link, to any desk.
CREATE TABLE poll_leases (
    base_url     text NOT NULL,
    api_key_id   text NOT NULL,
    sandbox_desk text NOT NULL,
    link_id      text NOT NULL,
    desk_id      text NOT NULL REFERENCES desks (desk_id),
    expires_at   timestamptz NOT NULL,
    polled_at    timestamptz NOT NULL,
    PRIMARY KEY (base_url, api_key_id, sandbox_desk, link_id)
);
CREATE INDEX poll_leases_by_desk ON poll_leases (desk_id);

-- The shop's one budget of status requests: the next token is due at next_at.
CREATE TABLE poll_budget (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    gap      interval NOT NULL DEFAULT interval '1 second' CHECK (gap > interval '0'),
    next_at  timestamptz NOT NULL DEFAULT '-infinity'
);
INSERT INTO poll_budget DEFAULT VALUES;

CREATE FUNCTION paydesk_poll_ask(
    p_base_url text, p_api_key_id text, p_sandbox_desk text, p_link_id text,
    p_desk_id text, p_lease_ms bigint, p_fresh_ms bigint,
    OUT outcome text, OUT holder text, OUT wait_ms bigint)
LANGUAGE plpgsql AS $$
DECLARE
    b poll_budget%ROWTYPE;
    l poll_leases%ROWTYPE;
    t timestamptz;
BEGIN
    IF p_sandbox_desk <> '' AND p_sandbox_desk <> p_desk_id THEN
        outcome := 'foreign';
        RETURN;
    END IF;
    -- Every ask of the shop takes its turn here; now is read once the turn came.
    SELECT * INTO STRICT b FROM poll_budget FOR UPDATE;
    t := clock_timestamp();
",
    poll_ask_rest!("p_lease_ms", "p_fresh_ms")
);

/// Schema step 16 (issue 28): the leases and the budget are written by the shop's functions
/// only, as the links are. `paydesk_poll_ask` becomes `SECURITY DEFINER` (owned by
/// `<database>_definer`, `search_path` pinned and ending in `pg_temp`) and acts only for a desk the session's
/// login registered (`PDK03`); the lease and freshness a desk asks for are held to what a desk
/// can need (a lease of at most a minute, freshness of at most a day), so a desk cannot take a
/// link's polling for a year. `paydesk_release_leases` ends the calling desk's leases and
/// prunes the rows nobody asked about for a day. The desks' role then writes no table of the
/// leases or the budget: a clerk with `psql` cannot spend the shop's budget ahead or keep
/// another desk from a link.
pub const AUTHORITY: &str = concat!(
    "
CREATE OR REPLACE FUNCTION paydesk_poll_ask(
    p_base_url text, p_api_key_id text, p_sandbox_desk text, p_link_id text,
    p_desk_id text, p_lease_ms bigint, p_fresh_ms bigint,
    OUT outcome text, OUT holder text, OUT wait_ms bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    b poll_budget%ROWTYPE;
    l poll_leases%ROWTYPE;
    t timestamptz;
    v_lease bigint := least(greatest(p_lease_ms, 0), 60000);
    v_fresh bigint := least(greatest(p_fresh_ms, 0), 86400000);
BEGIN
    PERFORM paydesk_acting_desk(p_desk_id);
    IF p_sandbox_desk <> '' AND p_sandbox_desk <> p_desk_id THEN
        outcome := 'foreign';
        RETURN;
    END IF;
    SELECT * INTO STRICT b FROM poll_budget FOR UPDATE;
    t := clock_timestamp();
",
    poll_ask_rest!("v_lease", "v_fresh"),
    "
-- The desk's leases end now (their polled_at stays, so a link asked a moment ago is still
-- fresh for the next desk); the rows of links nobody asked about for a day go (a link stays
-- on the board at most 7 days, and nobody asks about it once it is final).
CREATE FUNCTION paydesk_release_leases(p_desk text) RETURNS bigint LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_ended bigint;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    UPDATE poll_leases SET expires_at = least(expires_at, clock_timestamp())
        WHERE desk_id = p_desk;
    GET DIAGNOSTICS v_ended = ROW_COUNT;
    DELETE FROM poll_leases WHERE polled_at < clock_timestamp() - interval '1 day';
    RETURN v_ended;
END $$;
"
);

/// The statement [`ask`] runs (the rule is the module's).
pub const ASK_FUNCTION: &str =
    "SELECT outcome, holder, wait_ms FROM paydesk_poll_ask($1, $2, $3, $4, $5, $6, $7)";

/// What [`release_all`] runs ([`AUTHORITY`] has the rule).
const RELEASE: &str = "SELECT paydesk_release_leases($1)";

pub use crate::store::Account;

/// A link of the shop, by its key in `links` (and `poll_leases`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LinkKey {
    /// The account it was made on.
    pub account: Account,
    /// Its id.
    pub link_id: String,
}

impl LinkKey {
    /// The link `id` of `account`.
    pub fn new(account: Account, id: impl Into<String>) -> LinkKey {
        LinkKey {
            account,
            link_id: id.into(),
        }
    }
}

/// The shop's answer to a desk about to ask the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// Ask now: the lease is this desk's for `lease`, and the token is taken.
    Granted {
        /// How long the lease lasts.
        lease: Duration,
    },
    /// Another desk holds the lease: read the shop's row instead.
    Held {
        /// The desk holding it.
        by: String,
        /// How long it still holds it (by PostgreSQL's clock).
        remaining: Duration,
    },
    /// The link was asked about `age` ago, less than the asker's `fresh_for`: read the shop's
    /// row instead.
    Fresh {
        /// The desk that asked.
        by: String,
        /// How long ago.
        age: Duration,
    },
    /// The shop's budget has no token now: nothing asked, try again after this.
    Spent {
        /// When the next token is due, from now.
        retry_after: Duration,
    },
    /// The link is not of the account this desk would ask through (another account, or
    /// another desk's built-in sandbox): never asked from here.
    Foreign,
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn duration(ms: Option<i64>) -> Duration {
    Duration::from_millis(ms.and_then(|m| u64::try_from(m).ok()).unwrap_or(0))
}

/// Asks the shop whether desk `desk_id`, through a profile reaching `through`, may ask the API
/// about the link `key` now; `fresh_for` is how old an answer the caller takes as good as its
/// own (zero: any). See the module for the rule; only [`Ask::Granted`] writes anything.
pub async fn ask(
    shop: &Shop,
    desk_id: &str,
    key: &LinkKey,
    through: &Account,
    fresh_for: Duration,
) -> Result<Ask, ShopError> {
    if key.account != *through {
        return Ok(Ask::Foreign);
    }
    let a = &key.account;
    let row = shop
        .client()
        .query_one(
            ASK_FUNCTION,
            &[
                &a.base_url,
                &a.api_key_id,
                &a.sandbox_desk,
                &key.link_id,
                &desk_id,
                &millis(LEASE),
                &millis(fresh_for),
            ],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    let outcome: String = row.get(0);
    let holder: Option<String> = row.get(1);
    let wait = duration(row.get(2));
    Ok(match outcome.as_str() {
        "granted" => Ask::Granted { lease: wait },
        "held" => Ask::Held {
            by: holder.unwrap_or_default(),
            remaining: wait,
        },
        "fresh" => Ask::Fresh {
            by: holder.unwrap_or_default(),
            age: wait,
        },
        "spent" => Ask::Spent { retry_after: wait },
        "foreign" => Ask::Foreign,
        other => {
            return Err(ShopError::Database {
                code: "paydesk".to_owned(),
                message: format!("paydesk_poll_ask answered `{other}`"),
            });
        }
    })
}

/// Gives back every lease of desk `desk_id` (a desk leaving the shop or shutting down
/// cleanly), so another desk can poll its links at once; returns how many ended.
pub async fn release_all(shop: &Shop, desk_id: &str) -> Result<u64, ShopError> {
    let row = shop
        .client()
        .query_one(RELEASE, &[&desk_id])
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

/// What the shop knows of the link `key` now: the last answer any desk pushed (`None`: no
/// desk pushed it yet).
pub async fn known(shop: &Shop, key: &LinkKey) -> Result<Option<crate::domain::Link>, ShopError> {
    let a = &key.account;
    let row = shop
        .client()
        .query_opt(
            "SELECT answer::text FROM links
             WHERE base_url = $1 AND api_key_id = $2 AND sandbox_desk = $3 AND link_id = $4",
            &[&a.base_url, &a.api_key_id, &a.sandbox_desk, &key.link_id],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    let Some(row) = row else {
        return Ok(None);
    };
    let text: String = row.get(0);
    let answer: crate::api::wire::PaymentLink =
        serde_json::from_str(&text).map_err(|e| ShopError::Database {
            code: "paydesk".to_owned(),
            message: format!("the shop's answer for {} is not a link: {e}", key.link_id),
        })?;
    Ok(Some(crate::domain::Link::from(answer)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_read_from_postgresql_are_never_negative() {
        assert_eq!(duration(Some(-5)), Duration::ZERO);
        assert_eq!(duration(None), Duration::ZERO);
        assert_eq!(duration(Some(1500)), Duration::from_millis(1500));
        assert_eq!(millis(LEASE), 8000);
        const { assert!(LEASE.as_secs() <= 10) };
    }
}
