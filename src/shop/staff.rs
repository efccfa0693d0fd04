//! The shop-wide staff (docs/design.md §8): one list of members for the whole shop, which
//! every desk mirrors into its own file so PINs are checked without the shop.
//!
//! - A staff change on a joined desk (add, disable, enable, PIN reset) leaves a `staff` row in
//!   its outbox holding the member as the change left them (the Argon2id PHC string, never the
//!   PIN); a PIN tried leaves a `pin` row, right or wrong. The pusher applies them in order in
//!   one transaction per batch ([`apply_staff`]) under the advisory lock [`STAFF_LOCK`], so
//!   the `version` each change gets commits in order and a desk that read up to a version
//!   never misses one below it.
//! - A member is keyed by the name with ASCII letters in lower case, as the desks' `SQLite`
//!   `NOCASE` compares names.
//! - **Wrong PINs are counted shop-wide**: a wrong PIN adds one to the shop's count (so misses
//!   on two desks add up, including those counted on a desk while it was offline, merged when
//!   its outbox drains), the wait of `domain::staff::wait_after` starts from the desk's time
//!   of the fifth miss on, and a right PIN anywhere clears the count.
//! - **The last-manager rule is shop-wide**: a change that would leave the shop with no
//!   active manager is refused (counted in [`StaffApplied::refused`]); the member's version
//!   moves on, so every desk, the one that made the change included, reads the member back
//!   as the shop has them.
//! - A resent row (same desk, outbox sequence number and time) is found in `staff_applied`
//!   and changes nothing: a wrong PIN is never counted twice.
//! - Every batch that changed something sends `NOTIFY paydesk_staff` (payload: the highest
//!   version) on commit. [`pull_staff`] mirrors the shop's members when the shop's highest
//!   version is above the one the desk has read.

use std::sync::Mutex;

use chrono::{DateTime, Utc};

use super::catalog::{Invalid, PullError};
use super::{Shop, ShopError};
use crate::domain::Role;
use crate::domain::staff::wait_after;
use crate::store::with_locked;
use crate::store::{StaffChange, StaffMirror, StaffRow, Store, StoreError};

/// The channel a staff change is notified on (payload: the highest version).
pub const CHANNEL: &str = "paydesk_staff";

/// The advisory lock staff changes are applied under (`paydesk` in ASCII, then `S`).
pub const STAFF_LOCK: i64 = 0x7061_7964_6573_6b53;

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

/// What [`apply_staff`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StaffApplied {
    /// Rows that changed the shop's staff.
    pub changed: u64,
    /// Changes refused because they would leave the shop without an active manager.
    pub refused: u64,
    /// Rows already applied before (a resend) or about a member the shop does not know.
    pub skipped: u64,
}

/// Applies `rows` of desk `desk_id` to the shop's staff in one transaction (see the module's
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
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&STAFF_LOCK])
        .await
        .map_err(pg)?;
    for row in rows {
        let fresh = tx
            .execute(
                "INSERT INTO staff_applied (desk_id, desk_seq, at) VALUES ($1, $2, $3)
                 ON CONFLICT DO NOTHING",
                &[&desk_id, &row.seq, &row.at],
            )
            .await
            .map_err(pg)?;
        if fresh == 0 {
            done.skipped += 1;
            continue;
        }
        let key = folded(row.name());
        let current = tx
            .query_opt(
                "SELECT role, active, misses, locked_until FROM staff WHERE folded = $1
                 FOR UPDATE",
                &[&key],
            )
            .await
            .map_err(pg)?;
        match &row.change {
            StaffChange::Member(m) => {
                let was_manager = current.as_ref().is_some_and(|c| {
                    c.get::<_, String>(0) == Role::Manager.as_str() && c.get::<_, bool>(1)
                });
                let stays_manager = m.active && m.role == Role::Manager.as_str();
                if was_manager && !stays_manager {
                    let others: i64 = tx
                        .query_one(
                            "SELECT count(*) FROM staff
                             WHERE role = 'manager' AND active AND folded <> $1",
                            &[&key],
                        )
                        .await
                        .map_err(pg)?
                        .get(0);
                    if others == 0 {
                        // Every desk reads the member back as the shop keeps them.
                        tx.execute(
                            "UPDATE staff SET version = nextval('staff_versions')
                             WHERE folded = $1",
                            &[&key],
                        )
                        .await
                        .map_err(pg)?;
                        done.refused += 1;
                        continue;
                    }
                }
                tx.execute(
                    "INSERT INTO staff (folded, name, role, pin_hash, active, misses,
                         locked_until, version, changed_by, changed_at)
                     VALUES ($1, $2, $3, $4, $5, 0, NULL, nextval('staff_versions'), $6, $7)
                     ON CONFLICT (folded) DO UPDATE SET role = EXCLUDED.role,
                         pin_hash = EXCLUDED.pin_hash, active = EXCLUDED.active, misses = 0,
                         locked_until = NULL, version = EXCLUDED.version,
                         changed_by = EXCLUDED.changed_by, changed_at = EXCLUDED.changed_at",
                    &[
                        &key,
                        &m.name.trim(),
                        &m.role,
                        &m.pin_hash,
                        &m.active,
                        &desk_id,
                        &row.at,
                    ],
                )
                .await
                .map_err(pg)?;
                done.changed += 1;
            }
            StaffChange::Pin(p) => {
                let Some(current) = current else {
                    // A member only this desk knows (added before it joined).
                    done.skipped += 1;
                    continue;
                };
                let (misses, locked_until) = if p.right {
                    (0, None)
                } else {
                    let before: i32 = current.get(2);
                    let misses = before.saturating_add(1);
                    let kept: Option<DateTime<Utc>> = current.get(3);
                    let wait =
                        wait_after(u32::try_from(misses).unwrap_or(u32::MAX)).map(|w| row.at + w);
                    (misses, kept.max(wait))
                };
                // A right PIN with nothing to clear changes nothing: no new version, no
                // pull on every desk after each sign-in.
                let n = tx
                    .execute(
                        "UPDATE staff SET misses = $2, locked_until = $3,
                             version = nextval('staff_versions')
                         WHERE folded = $1
                           AND (misses, locked_until) IS DISTINCT FROM ($2, $3)",
                        &[&key, &misses, &locked_until],
                    )
                    .await
                    .map_err(pg)?;
                done.changed += n;
            }
        }
    }
    if done.changed + done.refused > 0 {
        tx.execute(
            "SELECT pg_notify($1, (SELECT max(version) FROM staff)::text)",
            &[&CHANNEL],
        )
        .await
        .map_err(pg)?;
    }
    tx.commit().await.map_err(pg)?;
    Ok(done)
}

/// The shop's members and their highest version, read in one read-only transaction; `None`
/// when the shop has no member or nothing above `known`.
pub async fn current_staff(
    shop: &mut Shop,
    known: Option<i64>,
) -> Result<Option<(i64, Vec<StaffMirror>)>, PullError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PullError::Shop(ShopError::from_pg(e, &url));
    let tx = shop.snapshot().await.map_err(pg)?;
    let top: Option<i64> = tx
        .query_one("SELECT max(version) FROM staff", &[])
        .await
        .map_err(pg)?
        .get(0);
    let Some(top) = top.filter(|t| known.is_none_or(|k| *t > k)) else {
        tx.commit().await.map_err(pg)?;
        return Ok(None);
    };
    let rows = tx
        .query(
            "SELECT name, role, pin_hash, active, misses, locked_until FROM staff ORDER BY folded",
            &[],
        )
        .await
        .map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    let members = rows
        .iter()
        .map(|r| {
            let role: String = r.get(1);
            if Role::parse(&role).is_none() {
                return Err(PullError::Invalid {
                    what: Invalid::Role,
                    value: role,
                });
            }
            Ok(StaffMirror {
                name: r.get(0),
                role,
                pin_hash: r.get(2),
                active: r.get(3),
                misses: u32::try_from(r.get::<_, i32>(4)).unwrap_or(0),
                locked_until: r.get(5),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some((top, members)))
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
