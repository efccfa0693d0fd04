//! Staff members in the file: names, roles, PINs as Argon2id hashes, the lock-out after wrong
//! PINs (kept across restarts), each change recorded in the audit in its own transaction.
//!
//! A PIN is hashed with Argon2id at OWASP's minimum for it (19 MiB of memory, 2 passes, one
//! lane) and a 16-byte random salt per hash, kept as a PHC string; checking one takes tens of
//! milliseconds in the release build (docs/benchmarks.md), so callers run it on the worker.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use chrono::{DateTime, Duration, Utc};
use rusqlite::{OptionalExtension, Transaction, params};

use super::audit::{Audit, AuditAction};
use super::outbox::{StaffPush, enqueue_pin, enqueue_staff};
use super::repo::{Write, repository};
use super::{Store, StoreError, from_millis, to_millis, write_tx};
use crate::domain::staff::{self, Actor, Pin, Role, StaffMember, StaffName};

/// Argon2id memory in KiB (OWASP's minimum: 19 MiB).
pub const PIN_HASH_MEMORY_KIB: u32 = 19 * 1024;
/// Argon2id passes (OWASP's minimum with 19 MiB: 2).
pub const PIN_HASH_PASSES: u32 = 2;

/// Why a staff change or a PIN was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StaffError {
    /// A member of this name exists (names are compared regardless of case).
    #[error("a staff member named `{0}` exists already")]
    NameTaken(String),
    /// No member has this name.
    #[error("no staff member named `{0}`")]
    NoMember(String),
    /// The first member of a shop must be a manager.
    #[error("the first staff member must be a manager")]
    FirstMustBeManager,
    /// The last active manager cannot be disabled.
    #[error("`{0}` is the last active manager and cannot be disabled")]
    LastManager(String),
    /// The member is disabled.
    #[error("`{0}` is disabled")]
    Disabled(String),
    /// The PIN is wrong.
    #[error("wrong PIN for `{name}`")]
    WrongPin {
        /// The member.
        name: String,
        /// The wait that now starts, when this miss began one.
        wait_seconds: Option<i64>,
    },
    /// The member must wait after wrong PINs; the try was not counted.
    #[error("`{name}` must wait {seconds} s after wrong PINs")]
    Waiting {
        /// The member.
        name: String,
        /// Seconds left.
        seconds: i64,
    },
    /// The approving member is not a manager.
    #[error("`{0}` is not a manager")]
    NotManager(String),
    /// On a joined desk a manager's PIN is checked by the shop, which does not answer.
    #[error("`{0}` is a manager: the shop checks managers' PINs and it does not answer")]
    ManagerNeedsShop(String),
    /// The shop holds no PIN for this manager yet (the owner runs `shop add-manager`).
    #[error("the shop holds no PIN for manager `{0}`: the owner runs `paydesk shop add-manager`")]
    NoShopPin(String),
    /// The shop ended the manager's sign-in (idle, disabled, signed out): sign in again.
    #[error("the shop ended the sign-in of `{0}`: sign in again")]
    SignInAgain(String),
    /// A manager's PIN is reset by the shop's owner, not at a desk.
    #[error("the PIN of manager `{0}` is reset by the shop's owner (`paydesk shop add-manager`)")]
    ManagerPinIsOwners(String),
    /// On a joined desk the first manager is made by the shop's owner.
    #[error("the shop's first manager is made by its owner (`paydesk shop add-manager`)")]
    OwnerMakesFirstManager,
    /// On a joined desk staff changes are made in the shop, which does not answer.
    #[error("staff changes are made in the shop, and it does not answer")]
    ChangesNeedShop,
    /// On a joined desk catalog changes are made in the shop, which does not answer.
    #[error("catalog changes are made in the shop, and it does not answer")]
    CatalogNeedsShop,
    /// Hashing failed (never with the fixed parameters; kept so nothing panics).
    #[error("the PIN could not be hashed: {0}")]
    Hash(String),
}

fn hasher() -> Result<Argon2<'static>, StaffError> {
    let params = Params::new(PIN_HASH_MEMORY_KIB, PIN_HASH_PASSES, 1, None)
        .map_err(|e| StaffError::Hash(e.to_string()))?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// The PHC string of `pin` with a fresh random salt.
pub fn hash_pin(pin: &Pin) -> Result<String, StaffError> {
    let salt_bytes: [u8; 16] = rand::random();
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| StaffError::Hash(e.to_string()))?;
    Ok(hasher()?
        .hash_password(pin.expose(), &salt)
        .map_err(|e| StaffError::Hash(e.to_string()))?
        .to_string())
}

/// Whether `pin` matches a stored PHC string (its own parameters and salt are used).
pub fn pin_matches(pin: &Pin, phc: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(phc) else {
        return false;
    };
    let Ok(argon) = hasher() else {
        return false;
    };
    argon.verify_password(pin.expose(), &parsed).is_ok()
}

struct Row {
    member: StaffMember,
    pin_hash: String,
    misses: u32,
    locked_until: Option<DateTime<Utc>>,
}

pub(super) fn read_role(role: &str) -> Result<Role, StoreError> {
    Role::parse(role).ok_or_else(|| StoreError::Corrupt {
        what: "staff role",
        value: role.to_owned(),
    })
}

/// A member as the shop holds them, to mirror on this desk. The PIN hash never shows in
/// `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct StaffMirror {
    /// The name as first written.
    pub name: String,
    /// `counter` or `manager`.
    pub role: String,
    /// The Argon2id PHC string.
    pub pin_hash: String,
    /// Whether the member may sign in.
    pub active: bool,
    /// Wrong PINs in a row, counted on every desk.
    pub misses: u32,
    /// The end of the current wait, if any.
    pub locked_until: Option<DateTime<Utc>>,
}

impl std::fmt::Debug for StaffMirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaffMirror")
            .field("name", &self.name)
            .field("role", &self.role)
            .field("pin_hash", &"<hidden>")
            .field("active", &self.active)
            .field("misses", &self.misses)
            .field("locked_until", &self.locked_until)
            .finish()
    }
}

repository!(
    /// The `staff` table: members, their PIN hashes and wrong-PIN counts.
    Staff
);

impl<A> Staff<'_, A> {
    /// Whether staff are on: at least one member is defined.
    pub fn on(&self) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT EXISTS (SELECT 1 FROM staff)", [], |r| r.get(0))?)
    }

    /// Every member, by name.
    pub fn list(&self) -> Result<Vec<StaffMember>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT name, role, active FROM staff ORDER BY name COLLATE NOCASE")?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let role: String = r.get(1)?;
            out.push(StaffMember {
                name: r.get(0)?,
                role: read_role(&role)?,
                active: r.get(2)?,
            });
        }
        Ok(out)
    }

    /// One member, by name (any case).
    pub fn member(&self, name: &str) -> Result<Option<StaffMember>, StoreError> {
        Ok(self.row(name)?.map(|r| r.member))
    }

    /// The member `name`, or [`StaffError::NoMember`].
    fn existing(&self, name: &str) -> Result<Row, StoreError> {
        self.row(name)?
            .ok_or_else(|| StaffError::NoMember(name.to_owned()).into())
    }

    /// The member `name` (any case) with its PIN hash and wrong-PIN count.
    fn row(&self, name: &str) -> Result<Option<Row>, StoreError> {
        let raw: Option<(String, String, String, bool, i64, Option<i64>)> = self
            .conn
            .query_row(
                "SELECT name, role, pin_hash, active, misses, locked_until FROM staff
             WHERE name = ?1",
                [name.trim()],
                |r| r.try_into(),
            )
            .optional()?;
        let Some((name, role, pin_hash, active, misses, locked_until)) = raw else {
            return Ok(None);
        };
        Ok(Some(Row {
            member: StaffMember {
                name,
                role: read_role(&role)?,
                active,
            },
            pin_hash,
            misses: u32::try_from(misses).unwrap_or(u32::MAX),
            locked_until: locked_until.map(from_millis).transpose()?,
        }))
    }

    fn active_managers(&self) -> Result<i64, StoreError> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM staff WHERE role = 'manager' AND active = 1",
            [],
            |r| r.get(0),
        )?)
    }

    /// The member `name` as the shop takes a staff change (PIN hash included).
    pub(super) fn push_of(&self, name: &str) -> Result<Option<StaffPush>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT name, role, pin_hash, active FROM staff WHERE name = ?1",
                [name],
                |r| {
                    Ok(StaffPush {
                        name: r.get(0)?,
                        role: r.get(1)?,
                        pin_hash: r.get(2)?,
                        active: r.get(3)?,
                    })
                },
            )
            .optional()?)
    }
}

impl Staff<'_, Write> {
    /// Removes every member (the shop's staff replace this desk's at a join).
    /// Removes member `name` (a mirror's member the shop does not have).
    pub(super) fn remove(&self, name: &str) -> Result<(), StoreError> {
        self.conn
            .execute("DELETE FROM staff WHERE name = ?1", params![name])?;
        Ok(())
    }

    pub(super) fn clear(&self) -> Result<(), StoreError> {
        self.conn.execute("DELETE FROM staff", [])?;
        Ok(())
    }

    /// Adds the shop's member `m`, or brings the member of that name to its role, PIN hash,
    /// active flag and wrong-PIN count.
    pub(super) fn mirror(&self, m: &StaffMirror, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT INTO staff (name, role, pin_hash, active, misses, locked_until,
                     created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
                 ON CONFLICT (name) DO UPDATE SET role = excluded.role,
                     pin_hash = excluded.pin_hash, active = excluded.active,
                     misses = excluded.misses, locked_until = excluded.locked_until,
                     updated_at = excluded.updated_at",
            )?
            .execute(params![
                m.name,
                m.role,
                m.pin_hash,
                m.active,
                m.misses,
                m.locked_until.map(to_millis),
                to_millis(now)
            ])?;
        Ok(())
    }

    fn insert(
        &self,
        name: &StaffName,
        role: Role,
        pin_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO staff (name, role, pin_hash, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?4)",
            params![name.as_str(), role.as_str(), pin_hash, to_millis(now)],
        )?;
        Ok(())
    }

    /// Sets member `name`'s `active` flag or PIN hash, and starts their wrong-PIN count afresh.
    fn set_afresh(
        &self,
        name: &str,
        change: Afresh<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (column, value): (&str, &dyn rusqlite::ToSql) = match &change {
            Afresh::Active(active) => ("active", active),
            Afresh::PinHash(hash) => ("pin_hash", hash),
        };
        self.conn.execute(
            &format!(
                "UPDATE staff SET {column} = ?2, misses = 0, locked_until = NULL, updated_at = ?3
                 WHERE name = ?1"
            ),
            params![name, value, to_millis(now)],
        )?;
        Ok(())
    }

    fn set_misses(
        &self,
        name: &str,
        misses: u32,
        locked_until: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE staff SET misses = ?2, locked_until = ?3 WHERE name = ?1",
            params![name, misses, locked_until.map(to_millis)],
        )?;
        Ok(())
    }
}

/// Ends the unit of work `tx` that changed the member `name`: the audit row (`action` on
/// `subject`) and, while joined, the member as the change left them for the shop, then the
/// commit.
fn member_changed(
    tx: Transaction<'_>,
    actor: &Actor,
    action: AuditAction,
    name: &str,
    subject: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    Audit::write(&tx).append(actor, action, subject, now)?;
    enqueue_staff(&tx, Staff::read(&tx).push_of(name)?, now)?;
    tx.commit()?;
    Ok(())
}

/// A change of a member that starts their wrong-PIN count afresh.
#[derive(Clone, Copy)]
enum Afresh<'a> {
    /// Enabled or disabled.
    Active(bool),
    /// A new PIN's hash.
    PinHash(&'a str),
}

impl Store {
    /// The staff's reads.
    pub fn staff(&self) -> Staff<'_> {
        Staff::read(&self.conn)
    }

    /// Adds a member. The first must be a manager. Whether `actor` may add staff is the
    /// caller's check (the role table); this records who did.
    pub fn staff_add(
        &mut self,
        actor: &Actor,
        name: &StaffName,
        role: Role,
        pin: &Pin,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let pin_hash = hash_pin(pin)?;
        let tx = write_tx(&mut self.conn)?;
        let staff = Staff::write(&tx);
        if !staff.on()? && role != Role::Manager {
            return Err(StaffError::FirstMustBeManager.into());
        }
        if staff.row(name.as_str())?.is_some() {
            return Err(StaffError::NameTaken(name.to_string()).into());
        }
        staff.insert(name, role, &pin_hash, now)?;
        let subject = format!("{name} ({role})");
        member_changed(
            tx,
            actor,
            AuditAction::StaffAdd,
            name.as_str(),
            &subject,
            now,
        )
    }

    /// Disables or enables a member. The last active manager cannot be disabled.
    pub fn staff_set_active(
        &mut self,
        actor: &Actor,
        name: &str,
        active: bool,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let staff = Staff::write(&tx);
        let member = staff.existing(name)?.member;
        if !active && member.active && member.role == Role::Manager && staff.active_managers()? <= 1
        {
            return Err(StaffError::LastManager(member.name).into());
        }
        staff.set_afresh(&member.name, Afresh::Active(active), now)?;
        let action = if active {
            AuditAction::StaffEnable
        } else {
            AuditAction::StaffDisable
        };
        member_changed(tx, actor, action, &member.name, &member.name, now)
    }

    /// Gives a member a new PIN and clears the wrong-PIN count.
    pub fn staff_reset_pin(
        &mut self,
        actor: &Actor,
        name: &str,
        pin: &Pin,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let pin_hash = hash_pin(pin)?;
        let tx = write_tx(&mut self.conn)?;
        let name = Staff::read(&tx).existing(name)?.member.name;
        Staff::write(&tx).set_afresh(&name, Afresh::PinHash(&pin_hash), now)?;
        member_changed(tx, actor, AuditAction::StaffResetPin, &name, &name, now)
    }
    /// Checks a member's PIN and records the sign-in. A wrong PIN counts a miss; from the
    /// fifth in a row the member waits (30 s, doubling), and a try during the wait is refused
    /// without being counted or checked. `subject` says where (`app`, `cli: report`).
    pub fn staff_sign_in(
        &mut self,
        name: &str,
        pin: &Pin,
        subject: &str,
        now: DateTime<Utc>,
    ) -> Result<StaffMember, StoreError> {
        let member = self.check_pin(name, pin, now)?;
        let tx = write_tx(&mut self.conn)?;
        let actor = Actor::member(&member.name, member.role);
        Audit::write(&tx).append(&actor, AuditAction::SignIn, subject, now)?;
        tx.commit()?;
        Ok(member)
    }

    /// Checks `name`'s PIN as a sign-in does (misses counted, waits kept) without a sign-in
    /// row: for a command whose own audit row names the member who ran it.
    pub fn staff_check(
        &mut self,
        name: &str,
        pin: &Pin,
        now: DateTime<Utc>,
    ) -> Result<StaffMember, StoreError> {
        self.check_pin(name, pin, now)
    }

    /// A manager's PIN approving one action of `clerk` (`what` names it for the record).
    /// Returns the clerk with the approval; misses count as at sign-in.
    pub fn staff_approve(
        &mut self,
        clerk: &Actor,
        manager: &str,
        pin: &Pin,
        what: &str,
        now: DateTime<Utc>,
    ) -> Result<Actor, StoreError> {
        let member = self.check_pin(manager, pin, now)?;
        if member.role != Role::Manager {
            return Err(StaffError::NotManager(member.name).into());
        }
        let approved = clerk.clone().approved_by(&member.name);
        let tx = write_tx(&mut self.conn)?;
        Audit::write(&tx).append(&approved, AuditAction::Approve, what, now)?;
        tx.commit()?;
        Ok(approved)
    }

    fn check_pin(
        &mut self,
        name: &str,
        pin: &Pin,
        now: DateTime<Utc>,
    ) -> Result<StaffMember, StoreError> {
        let row = self.staff().existing(name)?;
        if !row.member.active {
            return Err(StaffError::Disabled(row.member.name).into());
        }
        if let Err(left) = staff::may_try(row.locked_until, now) {
            return Err(StaffError::Waiting {
                name: row.member.name,
                seconds: ceil_seconds(left),
            }
            .into());
        }
        // A manager mirrored from a shop: only the shop holds their verifier. On a joined desk
        // a manager is never checked here, whatever this file holds for them.
        if row.pin_hash.is_empty()
            || (row.member.role == Role::Manager && super::shop::Shop::read(&self.conn).joined()?)
        {
            return Err(StaffError::ManagerNeedsShop(row.member.name).into());
        }
        // The slow part, outside any transaction.
        let good = pin_matches(pin, &row.pin_hash);
        let tx = write_tx(&mut self.conn)?;
        if good {
            Staff::write(&tx).set_misses(&row.member.name, 0, None)?;
            enqueue_pin(&tx, &row.member.name, true, now)?;
            tx.commit()?;
            return Ok(row.member);
        }
        // Read again: another desk process may have counted a miss meanwhile.
        let staff = Staff::write(&tx);
        let misses = staff.row(name)?.map_or(row.misses, |r| r.misses) + 1;
        let wait = staff::wait_after(misses);
        staff.set_misses(&row.member.name, misses, wait.map(|w| now + w))?;
        enqueue_pin(&tx, &row.member.name, false, now)?;
        if let Some(w) = wait {
            let subject = format!(
                "{} ({} wrong PINs, {} s)",
                row.member.name,
                misses,
                w.num_seconds()
            );
            let who = Actor::member(&row.member.name, row.member.role);
            Audit::write(&tx).append(&who, AuditAction::Lockout, &subject, now)?;
        }
        tx.commit()?;
        Err(StaffError::WrongPin {
            name: row.member.name,
            wait_seconds: wait.map(|w| w.num_seconds()),
        }
        .into())
    }
}

/// Whole seconds, rounded up, so "wait 0 s" is never said.
fn ceil_seconds(d: Duration) -> i64 {
    let ms = d.num_milliseconds();
    (ms + 999) / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_is_argon2id_at_owasp_minimum_with_its_own_salt() {
        let pin = Pin::parse("2468").expect("valid");
        let a = hash_pin(&pin).expect("hash");
        let b = hash_pin(&pin).expect("hash");
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "a salt per hash");
        assert!(!a.contains("2468"));
        assert!(pin_matches(&pin, &a));
        assert!(!pin_matches(&Pin::parse("2469").expect("valid"), &a));
        assert!(!pin_matches(&pin, "not a hash"));
    }
}
