//! The shop-wide staff (docs/design.md §8): one list of members for the whole shop, which
//! every desk mirrors into its own file, and since schema step 12 ([`AUTHORITY`]) the shop's
//! own authority over it: a desk's login can neither read nor write the tables, only call
//! the functions below, which take the desk from the session's login.
//!
//! - **Managers' PINs are the shop's.** The owner makes a manager (`shop add-manager`,
//!   [`super::owner::add_manager`]), and a manager may add another through the shop; the PIN
//!   becomes a Blowfish verifier (`pgcrypto`'s `crypt()`, cost 10) that no desk reads.
//!   [`manager_check`] checks it, counting wrong PINs in the shop for every desk at once, and a
//!   sign-in returns a token (kept as its SHA-256, bound to the desk and its login, ended by
//!   sign-out, the member's disabling or 15 idle minutes).
//! - **Staff changes go through a signed-in manager's token** ([`add`], [`set_active`],
//!   [`reset_pin`]) while the shop answers; nothing of them is queued. The shop checks the
//!   last-manager rule, logs the change in `staff_log` with the manager who made it, and a
//!   manager's PIN is reset only by the owner.
//! - **Clerks sign in on the desk**, offline too, against the Argon2id string the desk
//!   mirrors; each try leaves a `pin` row in the outbox, and [`apply_staff`] sends it to
//!   `paydesk_push_pin`: a wrong PIN adds to the shop's count (misses on two desks add up), the
//!   wait of `domain::staff::wait_after` starts from the desk's time of the fifth, a right PIN
//!   clears it. A resend (same desk, sequence number and time, found in `staff_applied`), a
//!   manager's try and a time more than 5 minutes past the shop's clock change nothing.
//! - **A desk brings its members along at its join** (`staff` rows), taken only while the shop
//!   has no manager it can check: managers without a verifier (the owner runs `add-manager`),
//!   clerks with theirs.
//! - Every write takes its turn on the owner-only row `staff_turn`, so versions commit in order
//!   and a desk that read up to a version never misses one below it; no desk can hold that
//!   turn. Every change sends `NOTIFY paydesk_staff` (payload: the highest version);
//!   [`pull_staff`] mirrors the members when the shop's highest version is above the one the
//!   desk has read.
//! - A member is keyed by the name with ASCII letters in lower case ([`folded`]), as the desks'
//!   `SQLite` `NOCASE` compares names.

use std::sync::Mutex;

use chrono::{DateTime, Utc};
use zeroize::Zeroizing;

use super::catalog::{Invalid, PullError};
use super::{Shop, ShopError};
use crate::domain::{Pin, Role};
use crate::store::with_locked;
use crate::store::{StaffChange, StaffMirror, StaffRow, Store, StoreError};

/// The channel a staff change is notified on (payload: the highest version).
pub const CHANNEL: &str = "paydesk_staff";

/// Schema step 5: the shop's staff and the staff rows already applied.
pub const SCHEMA: &str = "
CREATE SEQUENCE staff_versions;

-- Every member of the shop, as the last change left them.
CREATE TABLE staff (
    -- The name with ASCII letters in lower case (SQLite's NOCASE on the desks).
    folded       text PRIMARY KEY,
    name         text NOT NULL,
    role         text NOT NULL CHECK (role IN ('counter', 'manager')),
    -- The Argon2id PHC string; never the PIN.
    pin_hash     text NOT NULL,
    active       boolean NOT NULL,
    -- Wrong PINs in a row, counted on every desk.
    misses       integer NOT NULL DEFAULT 0 CHECK (misses >= 0),
    locked_until timestamptz,
    -- Raised by every change (under the staff lock): what a desk has read up to.
    version      bigint NOT NULL,
    changed_by   text NOT NULL REFERENCES desks (desk_id),
    changed_at   timestamptz NOT NULL
);
CREATE INDEX staff_by_version ON staff (version);

-- Each desk's staff and PIN rows already applied: a resent one changes nothing.
CREATE TABLE staff_applied (
    desk_id  text NOT NULL REFERENCES desks (desk_id),
    desk_seq bigint NOT NULL,
    at       timestamptz NOT NULL,
    PRIMARY KEY (desk_id, desk_seq, at)
);
";

/// A member's key in the shop: the name with ASCII letters in lower case.
pub fn folded(name: &str) -> String {
    name.trim().to_ascii_lowercase()
}

/// Schema step 12 (issue 28): the staff under the shop's own authority (see the module's
/// doc). Desks lose every privilege on `staff` and `staff_applied` (`owner::grants`); they
/// read the members through `paydesk_staff_read`, which returns no manager's verifier, and
/// write through the functions below.
pub const AUTHORITY: &str = r"
CREATE EXTENSION IF NOT EXISTS pgcrypto;

-- Staff writes take turns on this row (owner-only: a desk can neither lock nor hold it), so
-- versions commit in order and a desk that read up to N never misses one below it.
CREATE TABLE staff_turn (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row));
INSERT INTO staff_turn VALUES (true);

-- A manager's PIN is the shop's alone: pgcrypto's crypt() with Blowfish, cost 10. Their
-- Argon2 strings go (the shop cannot check them, and desks must not hold them): each manager
-- signs in again once the owner has run `shop add-manager` for them.
ALTER TABLE staff ADD COLUMN shop_verifier text;
ALTER TABLE staff ALTER COLUMN pin_hash DROP NOT NULL;
ALTER TABLE staff ALTER COLUMN changed_by DROP NOT NULL;
UPDATE staff SET pin_hash = NULL, misses = 0, locked_until = NULL,
    version = nextval('staff_versions')
    WHERE role = 'manager';
ALTER TABLE staff ADD CONSTRAINT staff_verifiers CHECK (CASE role
    WHEN 'manager' THEN pin_hash IS NULL
    ELSE pin_hash IS NOT NULL AND shop_verifier IS NULL END);

-- A signed-in manager's token, kept as its SHA-256: bound to the desk and login that signed
-- in, ended by sign-out (the desk's lock) or 15 idle minutes.
CREATE TABLE staff_tokens (
    token_hash bytea PRIMARY KEY,
    folded     text NOT NULL REFERENCES staff (folded),
    login      text NOT NULL DEFAULT session_user,
    desk_id    text NOT NULL REFERENCES desks (desk_id),
    created_at timestamptz NOT NULL DEFAULT now(),
    used_at    timestamptz NOT NULL DEFAULT now(),
    ended_at   timestamptz
);

-- What the shop checked itself: managers' PINs (right and wrong) and the staff changes made
-- with their authority, and what it refused.
CREATE TABLE staff_log (
    id      bigserial PRIMARY KEY,
    at      timestamptz NOT NULL DEFAULT now(),
    login   text NOT NULL DEFAULT session_user,
    desk_id text,
    manager text,
    action  text NOT NULL,
    subject text NOT NULL
);

-- The wait after `misses` wrong PINs in a row (domain::staff::wait_after).
CREATE FUNCTION paydesk_wait_after(p_misses integer) RETURNS interval
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE
        WHEN p_misses < 5 THEN NULL
        WHEN p_misses - 5 >= 12 THEN interval '86400 seconds'
        ELSE make_interval(secs => least(30 * 2 ^ (p_misses - 5), 86400)) END $$;

-- Every member, when the shop's highest version is above p_known: no manager's verifier.
CREATE FUNCTION paydesk_staff_read(p_known bigint) RETURNS TABLE (o_version bigint,
    o_name text, o_role text, o_pin_hash text, o_active boolean, o_misses integer,
    o_locked_until timestamptz) LANGUAGE plpgsql STABLE
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_top bigint := (SELECT max(version) FROM staff);
BEGIN
    IF v_top IS NULL OR v_top <= coalesce(p_known, -1) THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT v_top, s.name, s.role, s.pin_hash, s.active, s.misses, s.locked_until
        FROM staff AS s ORDER BY s.folded;
END $$;

CREATE FUNCTION paydesk_staff_changed() RETURNS void LANGUAGE sql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
    AS $$ SELECT pg_notify('paydesk_staff', (SELECT max(version) FROM staff)::text) $$;

-- A clerk's PIN try a desk counted (its outbox's `pin` row): a wrong one adds to the shop's
-- count, a right one clears it. A resend, a manager's try (the shop counts those itself) and
-- a time more than 5 minutes past the shop's clock change nothing.
CREATE FUNCTION paydesk_push_pin(p_desk text, p_seq bigint, p_at timestamptz, p_folded text,
    p_right boolean) RETURNS text LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v staff%ROWTYPE;
    v_misses integer;
    v_until timestamptz;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    PERFORM 1 FROM staff_turn FOR UPDATE;
    IF p_at > now() + interval '5 minutes' THEN
        INSERT INTO push_refusals (desk_id, kind, detail)
        VALUES (p_desk, 'time in the future', format('a PIN try of %s at %s', p_folded, p_at));
        RETURN 'refused';
    END IF;
    INSERT INTO staff_applied (desk_id, desk_seq, at) VALUES (p_desk, p_seq, p_at)
        ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        RETURN 'skipped';
    END IF;
    SELECT * INTO v FROM staff WHERE folded = p_folded FOR UPDATE;
    IF NOT FOUND OR v.role <> 'counter' THEN
        RETURN 'skipped';
    END IF;
    IF p_right THEN
        v_misses := 0;
        v_until := NULL;
    ELSE
        v_misses := v.misses + 1;
        v_until := greatest(v.locked_until, p_at + paydesk_wait_after(v_misses));
    END IF;
    UPDATE staff SET misses = v_misses, locked_until = v_until,
        version = nextval('staff_versions')
        WHERE folded = p_folded AND (misses, locked_until) IS DISTINCT FROM (v_misses, v_until);
    IF NOT FOUND THEN
        RETURN 'skipped';
    END IF;
    PERFORM paydesk_staff_changed();
    RETURN 'changed';
END $$;

-- A member a desk brings along when it joins (its outbox's `staff` row): taken only while the
-- shop has no manager it can check (before the owner's first `add-manager`) and no member of
-- that name. A manager comes without a verifier; a clerk with their Argon2 string.
CREATE FUNCTION paydesk_seed_staff(p_desk text, p_seq bigint, p_at timestamptz, p_folded text,
    p_name text, p_role text, p_pin_hash text, p_active boolean) RETURNS text LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    PERFORM 1 FROM staff_turn FOR UPDATE;
    INSERT INTO staff_applied (desk_id, desk_seq, at) VALUES (p_desk, p_seq, p_at)
        ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        RETURN 'skipped';
    END IF;
    IF EXISTS (SELECT 1 FROM staff WHERE shop_verifier IS NOT NULL)
        OR EXISTS (SELECT 1 FROM staff WHERE folded = p_folded)
        OR p_role NOT IN ('counter', 'manager')
        OR (p_role = 'counter' AND p_pin_hash NOT LIKE '$argon2id$%')
    THEN
        INSERT INTO staff_log (desk_id, action, subject)
        VALUES (p_desk, 'refused: a member pushed by a desk', format('%s (%s)', p_name, p_role));
        RETURN 'refused';
    END IF;
    INSERT INTO staff (folded, name, role, pin_hash, active, version, changed_by, changed_at)
    VALUES (p_folded, p_name, p_role, CASE WHEN p_role = 'counter' THEN p_pin_hash END,
        p_active, nextval('staff_versions'), p_desk, now());
    PERFORM paydesk_staff_changed();
    RETURN 'changed';
END $$;

-- Checks a manager's PIN in the shop, counting wrong ones for every desk at once. o_outcome:
-- ok, wrong, waiting, disabled, unknown, not_manager, no_pin (the owner has not run
-- add-manager). With p_sign_in, a right PIN returns a new token.
CREATE FUNCTION paydesk_manager_check(p_desk text, p_folded text, p_pin text,
    p_sign_in boolean, p_what text) RETURNS TABLE (o_outcome text, o_name text, o_token text,
    o_wait_seconds integer) LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v staff%ROWTYPE;
    v_token text;
    v_misses integer;
    v_wait interval;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    PERFORM 1 FROM staff_turn FOR UPDATE;
    SELECT * INTO v FROM staff WHERE folded = p_folded FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unknown', p_folded, NULL::text, NULL::integer;
        RETURN;
    END IF;
    IF NOT v.active THEN
        RETURN QUERY SELECT 'disabled', v.name, NULL::text, NULL::integer;
        RETURN;
    END IF;
    IF v.role <> 'manager' THEN
        RETURN QUERY SELECT 'not_manager', v.name, NULL::text, NULL::integer;
        RETURN;
    END IF;
    IF v.locked_until > now() THEN
        RETURN QUERY SELECT 'waiting', v.name, NULL::text,
            ceil(extract(epoch FROM v.locked_until - now()))::integer;
        RETURN;
    END IF;
    IF v.shop_verifier IS NULL THEN
        RETURN QUERY SELECT 'no_pin', v.name, NULL::text, NULL::integer;
        RETURN;
    END IF;
    IF crypt(p_pin, v.shop_verifier) = v.shop_verifier THEN
        UPDATE staff SET misses = 0, locked_until = NULL, version = nextval('staff_versions')
            WHERE folded = v.folded AND (misses > 0 OR locked_until IS NOT NULL);
        IF FOUND THEN
            PERFORM paydesk_staff_changed();
        END IF;
        IF p_sign_in THEN
            v_token := encode(gen_random_bytes(32), 'hex');
            INSERT INTO staff_tokens (token_hash, folded, desk_id)
            VALUES (digest(v_token, 'sha256'), v.folded, p_desk);
        END IF;
        INSERT INTO staff_log (desk_id, manager, action, subject)
        VALUES (p_desk, v.name, CASE WHEN p_sign_in THEN 'sign-in' ELSE 'approve' END, p_what);
        RETURN QUERY SELECT 'ok', v.name, v_token, NULL::integer;
        RETURN;
    END IF;
    v_misses := v.misses + 1;
    v_wait := paydesk_wait_after(v_misses);
    UPDATE staff SET misses = v_misses, locked_until = greatest(locked_until, now() + v_wait),
        version = nextval('staff_versions')
        WHERE folded = v.folded;
    PERFORM paydesk_staff_changed();
    INSERT INTO staff_log (desk_id, manager, action, subject)
    VALUES (p_desk, v.name, 'wrong PIN', p_what);
    RETURN QUERY SELECT 'wrong', v.name, NULL::text, extract(epoch FROM v_wait)::integer;
END $$;

-- The manager signed in with p_token at this desk's login, not idle for 15 minutes, still
-- an active manager (PDK04 otherwise); the token's idle time starts again.
CREATE FUNCTION paydesk_manager_of(p_desk text, p_token text) RETURNS staff LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_folded text;
    v staff%ROWTYPE;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    UPDATE staff_tokens SET used_at = now()
        WHERE token_hash = digest(p_token, 'sha256') AND login = session_user
            AND desk_id = p_desk AND ended_at IS NULL
            AND used_at > now() - interval '15 minutes'
        RETURNING folded INTO v_folded;
    IF FOUND THEN
        SELECT * INTO v FROM staff WHERE folded = v_folded;
        IF v.active AND v.role = 'manager' AND v.shop_verifier IS NOT NULL THEN
            RETURN v;
        END IF;
    END IF;
    RAISE EXCEPTION 'no manager is signed in at this desk with this token'
        USING ERRCODE = 'PDK04';
END $$;

-- Ends a manager's token (the desk locked or signed out).
CREATE FUNCTION paydesk_sign_out(p_desk text, p_token text) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    UPDATE staff_tokens SET ended_at = now()
        WHERE token_hash = digest(p_token, 'sha256') AND login = session_user
            AND ended_at IS NULL;
END $$;

-- A member added by a signed-in manager: a clerk with the Argon2 string the desk made, a
-- manager with the PIN itself, which only the shop turns into a verifier. PDK05: the name is
-- taken.
CREATE FUNCTION paydesk_staff_add(p_desk text, p_token text, p_folded text, p_name text,
    p_role text, p_pin_hash text, p_pin text) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_by staff;
BEGIN
    v_by := paydesk_manager_of(p_desk, p_token);
    PERFORM 1 FROM staff_turn FOR UPDATE;
    IF EXISTS (SELECT 1 FROM staff WHERE folded = p_folded) THEN
        RAISE EXCEPTION 'a member named % exists already', p_name USING ERRCODE = 'PDK05';
    END IF;
    IF p_role = 'manager' THEN
        IF p_pin !~ '^[0-9]{4,8}$' THEN
            RAISE EXCEPTION 'a PIN is 4 to 8 digits' USING ERRCODE = '22023';
        END IF;
        INSERT INTO staff (folded, name, role, pin_hash, shop_verifier, active, version,
            changed_by, changed_at)
        VALUES (p_folded, p_name, 'manager', NULL, crypt(p_pin, gen_salt('bf', 10)), true,
            nextval('staff_versions'), p_desk, now());
    ELSIF p_role = 'counter' AND p_pin_hash LIKE '$argon2id$%' THEN
        INSERT INTO staff (folded, name, role, pin_hash, active, version, changed_by,
            changed_at)
        VALUES (p_folded, p_name, 'counter', p_pin_hash, true, nextval('staff_versions'),
            p_desk, now());
    ELSE
        RAISE EXCEPTION 'no such role or PIN: %', p_role USING ERRCODE = '22023';
    END IF;
    INSERT INTO staff_log (desk_id, manager, action, subject)
    VALUES (p_desk, v_by.name, 'staff add', format('%s (%s)', p_name, p_role));
    PERFORM paydesk_staff_changed();
END $$;

-- A member disabled or enabled by a signed-in manager; the shop keeps its last active
-- manager (PDK06). PDK07: no such member.
CREATE FUNCTION paydesk_staff_set_active(p_desk text, p_token text, p_folded text,
    p_active boolean) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_by staff;
    v staff%ROWTYPE;
BEGIN
    v_by := paydesk_manager_of(p_desk, p_token);
    PERFORM 1 FROM staff_turn FOR UPDATE;
    SELECT * INTO v FROM staff WHERE folded = p_folded FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no member named %', p_folded USING ERRCODE = 'PDK07';
    END IF;
    IF NOT p_active AND v.active AND v.role = 'manager' AND NOT EXISTS (
        SELECT 1 FROM staff WHERE role = 'manager' AND active AND folded <> p_folded)
    THEN
        RAISE EXCEPTION '% is the last active manager', v.name USING ERRCODE = 'PDK06';
    END IF;
    UPDATE staff SET active = p_active, misses = 0, locked_until = NULL,
        version = nextval('staff_versions'), changed_by = p_desk, changed_at = now()
        WHERE folded = p_folded;
    IF NOT p_active THEN
        UPDATE staff_tokens SET ended_at = now() WHERE folded = p_folded AND ended_at IS NULL;
    END IF;
    INSERT INTO staff_log (desk_id, manager, action, subject)
    VALUES (p_desk, v_by.name, CASE WHEN p_active THEN 'staff enable' ELSE 'staff disable' END,
        v.name);
    PERFORM paydesk_staff_changed();
END $$;

-- A clerk's new PIN (its Argon2 string) from a signed-in manager. A manager's PIN is the
-- owner's to reset (`shop add-manager`): PDK08.
CREATE FUNCTION paydesk_staff_reset_pin(p_desk text, p_token text, p_folded text,
    p_pin_hash text) RETURNS void LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_by staff;
    v staff%ROWTYPE;
BEGIN
    v_by := paydesk_manager_of(p_desk, p_token);
    PERFORM 1 FROM staff_turn FOR UPDATE;
    SELECT * INTO v FROM staff WHERE folded = p_folded FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no member named %', p_folded USING ERRCODE = 'PDK07';
    END IF;
    IF v.role <> 'counter' OR p_pin_hash NOT LIKE '$argon2id$%' THEN
        RAISE EXCEPTION 'a manager''s PIN is reset by the shop''s owner' USING ERRCODE = 'PDK08';
    END IF;
    UPDATE staff SET pin_hash = p_pin_hash, misses = 0, locked_until = NULL,
        version = nextval('staff_versions'), changed_by = p_desk, changed_at = now()
        WHERE folded = p_folded;
    INSERT INTO staff_log (desk_id, manager, action, subject)
    VALUES (p_desk, v_by.name, 'staff reset-pin', v.name);
    PERFORM paydesk_staff_changed();
END $$;
";

/// The shop's functions a desk may not call: the signed-in manager's row (with their
/// verifier), which the staff's and catalog's functions read after checking the token.
pub const INTERNAL_FUNCTIONS: &str = "paydesk_manager_of(text, text)";

/// The SQLSTATE of a staff change made with no valid manager's token.
pub const NO_MANAGER: &str = "PDK04";
/// The SQLSTATE of a member added under a name that is taken.
pub const NAME_TAKEN: &str = "PDK05";
/// The SQLSTATE of a change that would leave the shop without an active manager.
pub const LAST_MANAGER: &str = "PDK06";
/// The SQLSTATE of a change of a member the shop does not have.
pub const NO_MEMBER: &str = "PDK07";
/// The SQLSTATE of a manager's PIN reset tried from a desk (the owner's to do).
pub const MANAGER_PIN_IS_OWNERS: &str = "PDK08";

/// What [`apply_staff`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StaffApplied {
    /// Rows that changed the shop's staff.
    pub changed: u64,
    /// Rows the shop refused: a member pushed once the shop checks its managers itself, or a
    /// PIN try dated in the future.
    pub refused: u64,
    /// Rows already applied before (a resend), a manager's PIN try (the shop counts those
    /// itself) or about a member the shop does not know.
    pub skipped: u64,
}

/// Sends `rows` of desk `desk_id` (its outbox's `staff` and `pin` rows) through the shop's
/// functions in one transaction; the shop decides what each may change (see the module's
/// doc). Nothing is deleted from the outbox here.
pub async fn apply_staff(
    shop: &mut Shop,
    desk_id: &str,
    rows: &[StaffRow],
) -> Result<StaffApplied, ShopError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(e, &url);
    let mut done = StaffApplied::default();
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    for row in rows {
        let key = folded(row.name());
        let outcome: String = match &row.change {
            StaffChange::Member(m) => tx
                .query_one(
                    "SELECT paydesk_seed_staff($1, $2, $3, $4, $5, $6, $7, $8)",
                    &[
                        &desk_id,
                        &row.seq,
                        &row.at,
                        &key,
                        &m.name.trim(),
                        &m.role,
                        &m.pin_hash,
                        &m.active,
                    ],
                )
                .await
                .map_err(pg)?
                .get(0),
            StaffChange::Pin(p) => tx
                .query_one(
                    "SELECT paydesk_push_pin($1, $2, $3, $4, $5)",
                    &[&desk_id, &row.seq, &row.at, &key, &p.right],
                )
                .await
                .map_err(pg)?
                .get(0),
        };
        match outcome.as_str() {
            "changed" => done.changed += 1,
            "refused" => done.refused += 1,
            _ => done.skipped += 1,
        }
    }
    tx.commit().await.map_err(pg)?;
    Ok(done)
}

/// The shop's members and their highest version, read through `paydesk_staff_read` (no
/// manager's verifier: a manager's `pin_hash` is empty, the shop checks their PIN); `None`
/// when the shop has no member or nothing above `known`.
pub async fn current_staff(
    shop: &mut Shop,
    known: Option<i64>,
) -> Result<Option<(i64, Vec<StaffMirror>)>, PullError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PullError::Shop(ShopError::from_pg(e, &url));
    let rows = shop
        .client()
        .query("SELECT * FROM paydesk_staff_read($1)", &[&known])
        .await
        .map_err(pg)?;
    let Some(top) = rows.first().map(|r| r.get::<_, i64>(0)) else {
        return Ok(None);
    };
    let members = rows
        .iter()
        .map(|r| {
            let role: String = r.get(2);
            if Role::parse(&role).is_none() {
                return Err(PullError::Invalid {
                    what: Invalid::Role,
                    value: role,
                });
            }
            Ok(StaffMirror {
                name: r.get(1),
                role,
                pin_hash: r.get::<_, Option<String>>(3).unwrap_or_default(),
                active: r.get(4),
                misses: u32::try_from(r.get::<_, i32>(5)).unwrap_or(0),
                locked_until: r.get(6),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some((top, members)))
}

/// What the shop said of a manager's PIN ([`manager_check`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManagerChecked {
    /// Right: the manager's name as the shop keeps it, and the sign-in's token when asked.
    Right {
        /// The manager's name.
        name: String,
        /// The token of a sign-in (none for an approval).
        token: Option<Zeroizing<String>>,
    },
    /// Wrong; counted in the shop, and the wait it started, if any.
    Wrong {
        /// The member's name.
        name: String,
        /// Seconds of the wait this miss started.
        wait_seconds: Option<i64>,
    },
    /// The member waits after wrong PINs: not checked, not counted.
    Waiting {
        /// The member's name.
        name: String,
        /// Seconds left.
        seconds: i64,
    },
    /// The member is disabled.
    Disabled(String),
    /// No member of this name in the shop.
    Unknown(String),
    /// The member is a clerk.
    NotManager(String),
    /// The shop holds no PIN for this manager yet: the owner runs `shop add-manager`.
    NoPin(String),
}

/// Checks manager `name`'s PIN in the shop for desk `desk_id` (counted for every desk);
/// `sign_in` asks for a token, `what` is what the PIN was given for (the shop's log).
pub async fn manager_check(
    shop: &Shop,
    desk_id: &str,
    name: &str,
    pin: &Pin,
    sign_in: bool,
    what: &str,
) -> Result<ManagerChecked, ShopError> {
    let digits = Zeroizing::new(String::from_utf8_lossy(pin.expose()).into_owned());
    let row = shop
        .client()
        .query_one(
            "SELECT * FROM paydesk_manager_check($1, $2, $3, $4, $5)",
            &[&desk_id, &folded(name), &&**digits, &sign_in, &what],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    let outcome: String = row.get(0);
    let name: String = row.get(1);
    let seconds = row.get::<_, Option<i32>>(3).map(i64::from);
    Ok(match outcome.as_str() {
        "ok" => ManagerChecked::Right {
            name,
            token: row.get::<_, Option<String>>(2).map(Zeroizing::new),
        },
        "wrong" => ManagerChecked::Wrong {
            name,
            wait_seconds: seconds,
        },
        "waiting" => ManagerChecked::Waiting {
            name,
            seconds: seconds.unwrap_or(1),
        },
        "disabled" => ManagerChecked::Disabled(name),
        "not_manager" => ManagerChecked::NotManager(name),
        "no_pin" => ManagerChecked::NoPin(name),
        _ => ManagerChecked::Unknown(name),
    })
}

/// Runs one of the shop's staff functions, `sql` with `params`.
async fn call(
    shop: &Shop,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<(), ShopError> {
    shop.client()
        .execute(sql, params)
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(())
}

/// Ends a manager's token in the shop (the desk locked, or the command ended).
pub async fn sign_out(shop: &Shop, desk_id: &str, token: &str) -> Result<(), ShopError> {
    call(shop, "SELECT paydesk_sign_out($1, $2)", &[&desk_id, &token]).await
}

/// A member's new PIN as the shop takes it: a clerk's Argon2id string made on the desk, a
/// manager's PIN itself (the shop makes its verifier and keeps it from every desk).
#[derive(Clone)]
pub enum NewPin {
    /// A clerk's Argon2id PHC string.
    Clerk(String),
    /// A manager's PIN.
    Manager(Pin),
}

impl std::fmt::Debug for NewPin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NewPin::Clerk(_) => "NewPin::Clerk(..)",
            NewPin::Manager(_) => "NewPin::Manager(..)",
        })
    }
}

/// Adds member `name` with the authority of the manager signed in with `token`.
pub async fn add(
    shop: &Shop,
    desk_id: &str,
    token: &str,
    name: &str,
    pin: &NewPin,
) -> Result<(), ShopError> {
    let (role, hash, digits) = match pin {
        NewPin::Clerk(hash) => (Role::Counter, Some(hash.as_str()), None),
        NewPin::Manager(pin) => (
            Role::Manager,
            None,
            Some(Zeroizing::new(
                String::from_utf8_lossy(pin.expose()).into_owned(),
            )),
        ),
    };
    call(
        shop,
        "SELECT paydesk_staff_add($1, $2, $3, $4, $5, $6, $7)",
        &[
            &desk_id,
            &token,
            &folded(name),
            &name.trim(),
            &role.as_str(),
            &hash,
            &digits.as_deref().map(String::as_str),
        ],
    )
    .await
}

/// Disables or enables member `name` with the authority of the manager signed in with `token`.
pub async fn set_active(
    shop: &Shop,
    desk_id: &str,
    token: &str,
    name: &str,
    active: bool,
) -> Result<(), ShopError> {
    call(
        shop,
        "SELECT paydesk_staff_set_active($1, $2, $3, $4)",
        &[&desk_id, &token, &folded(name), &active],
    )
    .await
}

/// Gives clerk `name` the new PIN hash `pin_hash` with the authority of the manager signed in
/// with `token`.
pub async fn reset_pin(
    shop: &Shop,
    desk_id: &str,
    token: &str,
    name: &str,
    pin_hash: &str,
) -> Result<(), ShopError> {
    call(
        shop,
        "SELECT paydesk_staff_reset_pin($1, $2, $3, $4)",
        &[&desk_id, &token, &folded(name), &pin_hash],
    )
    .await
}

/// What [`pull_staff`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaffPulled {
    /// Nothing new in the shop.
    Unchanged,
    /// Members written into the desk's file, up to this version.
    Mirrored {
        /// The shop's highest version read.
        version: i64,
        /// Members written (those with a change of this desk still waiting are left).
        members: usize,
    },
}

/// Mirrors the shop's staff into the desk's file when the shop has a change the desk has not
/// read (one `SQLite` transaction).
pub async fn pull_staff(
    shop: &mut Shop,
    store: &Mutex<Store>,
    now: DateTime<Utc>,
) -> Result<StaffPulled, PullError> {
    // A desk whose staff rows are gone (emptied by hand) reads the shop's members again
    // whatever version it noted.
    let known = with_locked(store, |s| {
        Ok::<_, StoreError>(if s.staff().on()? {
            s.shop().staff_version()?
        } else {
            None
        })
    })?;
    let Some((version, members)) = current_staff(shop, known).await? else {
        return Ok(StaffPulled::Unchanged);
    };
    let written = with_locked(store, |s| s.staff_mirror(version, &members, now))?;
    Ok(StaffPulled::Mirrored {
        version,
        members: written,
    })
}
