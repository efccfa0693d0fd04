//! Profiles (one per API key the shop uses) and the order-number counter.
//!
//! A profile holds what is needed to reach the API and to check a form before sending: base
//! URL, the API key *id* (the secret is in the keyring, `crate::secrets`), the key's amount
//! upper bound and item ceiling when known, and the order-number prefix. The built-in
//! [`SANDBOX_PROFILE`] exists from the first open (its base URL and key are filled in by the
//! caller that starts the sandbox) and cannot be removed.
//!
//! Order numbers have the shape `{prefix}-{yyyyMMdd}-{device}{seq:04}`, e.g.
//! `PD-20261122-7KQ30042`:
//! - `device` is 4 characters of Crockford's base 32 (`0-9A-Z` without `I L O U`), chosen at
//!   random once per install and kept in the `meta` table (settable, for shops that prefer to
//!   number their tills). Two installs therefore only collide if they drew the same device id
//!   (about 1 in a million per pair); set the ids by hand to rule it out.
//! - `seq` counts per profile and day, starting at 1, incremented by one atomic durable
//!   statement (so the GUI and the CLI sharing the file never get the same number); past 9999
//!   it simply grows a digit. A number history or the journal already holds for the profile
//!   is skipped.

use chrono::{DateTime, NaiveDate, Utc};
use rand::Rng;
use rusqlite::{OptionalExtension, ToSql, params};
use rust_decimal::Decimal;

use super::audit::{Audit, AuditAction};
use super::journal::Journal;
use super::links::Links;
use super::outbox::Account;
use super::repo::{Write, repository};
use super::{Store, StoreError, parse_decimal_opt, write_tx};

/// The built-in profile's name.
pub const SANDBOX_PROFILE: &str = "sandbox";

/// The order-number prefix of a new profile.
pub const DEFAULT_ORDER_PREFIX: &str = "PD";

/// The device-id alphabet (Crockford's base 32: no I, L, O, U).
const DEVICE_ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The length of a device id.
const DEVICE_ID_LEN: usize = 4;

const META_DEVICE_ID: &str = "device_id";

/// A profile: how to reach the API with one API key, and the key's known limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// Unique name (no `:`; it is part of the keyring entry name).
    pub name: String,
    /// Base URL of the API.
    pub base_url: String,
    /// The API key id (`X-Api-Key`), not the secret.
    pub api_key: String,
    /// The key's amount upper bound, when known.
    pub amount_limit: Option<Decimal>,
    /// The key's item-count ceiling (`link.max_items`), when known.
    pub max_items: Option<u32>,
    /// Order-number prefix.
    pub order_prefix: String,
    /// Whether this profile talks to a sandbox.
    pub is_sandbox: bool,
}

impl Profile {
    /// A profile with no known limits and the default order prefix.
    pub fn new(
        name: impl Into<String>,
        base_url: impl Into<String>,
        api_key: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            base_url: base_url.into(),
            api_key: api_key.into(),
            amount_limit: None,
            max_items: None,
            order_prefix: DEFAULT_ORDER_PREFIX.to_owned(),
            is_sandbox: false,
        }
    }

    /// Checks the fields the store relies on.
    pub fn validate(&self) -> Result<(), StoreError> {
        let bad = |m: String| Err(StoreError::InvalidProfile(m));
        let name = &self.name;
        if name.trim().is_empty() || name.trim() != name || name.chars().count() > 64 {
            return bad(format!(
                "the name `{name}` must be 1 to 64 characters without surrounding blanks"
            ));
        }
        if name.contains(':') || name.chars().any(char::is_control) {
            return bad(format!(
                "the name `{name}` cannot contain `:` or control characters"
            ));
        }
        if self.base_url.trim().is_empty() {
            return bad("the base URL is empty".into());
        }
        if self.api_key.trim().is_empty() {
            return bad("the API key id is empty".into());
        }
        // It travels as the `X-Api-Key` header: visible ASCII only, so a control character
        // or a blank pasted with it is refused here, not by the HTTP library at send time.
        if self.api_key.len() > 256 || !self.api_key.bytes().all(|b| b.is_ascii_graphic()) {
            return bad(
                "the API key id must be 1 to 256 visible ASCII characters (no spaces or control characters)"
                    .into(),
            );
        }
        let p = &self.order_prefix;
        if p.is_empty()
            || p.len() > 12
            || !p
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return bad(format!(
                "the order prefix `{p}` must be 1 to 12 of A-Z, a-z, 0-9, - and _"
            ));
        }
        if self.amount_limit.is_some_and(|a| a <= Decimal::ZERO) {
            return bad("the amount limit must be greater than 0".into());
        }
        if self.max_items == Some(0) {
            return bad("the item ceiling must be at least 1".into());
        }
        Ok(())
    }
}

const COLUMNS: &str = "name, base_url, api_key, amount_limit, max_items, order_prefix, is_sandbox";

fn read_profile(r: &rusqlite::Row<'_>) -> Result<Profile, StoreError> {
    let max_items: Option<i64> = r.get(4)?;
    Ok(Profile {
        name: r.get(0)?,
        base_url: r.get(1)?,
        api_key: r.get(2)?,
        amount_limit: parse_decimal_opt(r.get(3)?, "profile amount limit")?,
        max_items: max_items
            .map(|n| {
                u32::try_from(n).map_err(|_| StoreError::Corrupt {
                    what: "profile item ceiling",
                    value: n.to_string(),
                })
            })
            .transpose()?,
        order_prefix: r.get(5)?,
        is_sandbox: r.get(6)?,
    })
}

/// A new random device id.
fn random_device_id() -> String {
    let mut rng = rand::rng();
    (0..DEVICE_ID_LEN)
        .map(|_| char::from(DEVICE_ALPHABET[rng.random_range(0..DEVICE_ALPHABET.len())]))
        .collect()
}

fn normalize_device_id(id: &str) -> Result<String, StoreError> {
    let up = id.trim().to_ascii_uppercase();
    if up.len() == DEVICE_ID_LEN && up.bytes().all(|b| DEVICE_ALPHABET.contains(&b)) {
        Ok(up)
    } else {
        Err(StoreError::InvalidDeviceId(id.to_owned()))
    }
}

/// Adds a profile. Parameters, as [`UPDATE_PROFILE`]'s: `?1` name, `?2` base URL, `?3` API
/// key id, `?4` amount limit, `?5` item limit, `?6` order prefix, `?7` sandbox, `?8` now (and
/// `?9`, the built-in sandbox's name, which only the update names).
const INSERT_PROFILE: &str = "
INSERT OR IGNORE INTO profiles (name, base_url, api_key, amount_limit, max_items, order_prefix,
    is_sandbox, created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)";

/// Replaces a profile's fields, found by name; the built-in sandbox stays a sandbox.
/// Parameters: [`INSERT_PROFILE`]'s.
const UPDATE_PROFILE: &str = "
UPDATE profiles SET base_url = ?2, api_key = ?3, amount_limit = ?4, max_items = ?5,
    order_prefix = ?6, is_sandbox = (?7 OR name = ?9), updated_at = ?8
WHERE name = ?1";

repository!(
    /// The `profiles` table and this install's device id (`meta`).
    Profiles
);

impl<A> Profiles<'_, A> {
    /// The account of `profile` as the shop keys it, and this desk's device id.
    pub(super) fn account(&self, profile: &str) -> Result<(Account, String), StoreError> {
        let (base_url, api_key_id, is_sandbox) = self.conn.query_row(
            "SELECT base_url, api_key, is_sandbox FROM profiles WHERE name = ?1",
            [profile],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, bool>(2)?,
                ))
            },
        )?;
        let desk_id: String =
            self.conn
                .query_row("SELECT value FROM meta WHERE key = 'device_id'", [], |r| {
                    r.get(0)
                })?;
        let account = Account {
            base_url,
            api_key_id,
            sandbox_desk: if is_sandbox {
                desk_id.clone()
            } else {
                String::new()
            },
        };
        Ok((account, desk_id))
    }

    /// Every profile, the sandbox first, then by name.
    pub fn list(&self) -> Result<Vec<Profile>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM profiles ORDER BY name != ?1, name"
        ))?;
        let mut rows = stmt.query([SANDBOX_PROFILE])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(read_profile(r)?);
        }
        Ok(out)
    }

    /// A profile by name.
    pub fn get(&self, name: &str) -> Result<Option<Profile>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM profiles WHERE name = ?1"))?;
        let mut rows = stmt.query([name])?;
        rows.next()?.map(read_profile).transpose()
    }

    /// This install's device id (4 characters, see the module docs).
    pub fn device_id(&self) -> Result<String, StoreError> {
        self.conn
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                [META_DEVICE_ID],
                |r| r.get(0),
            )
            .optional()?
            .ok_or(StoreError::Corrupt {
                what: "device id",
                value: String::new(),
            })
    }

    /// The order-number prefix of `profile`, `None` when there is no such profile.
    fn order_prefix(&self, profile: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT order_prefix FROM profiles WHERE name = ?1",
                [profile],
                |r| r.get(0),
            )
            .optional()?)
    }
}

impl Profiles<'_, Write> {
    /// The sandbox profile and a random device id, each unless there already.
    fn ensure_builtin(&self) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT OR IGNORE INTO profiles (name, base_url, api_key, order_prefix, is_sandbox,
                 created_at, updated_at)
             VALUES (?1, '', '', ?2, 1, 0, 0)",
            params![SANDBOX_PROFILE, DEFAULT_ORDER_PREFIX],
        )?;
        self.conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
            params![META_DEVICE_ID, random_device_id()],
        )?;
        Ok(())
    }

    /// Writes `profile` at `now` with `sql` ([`INSERT_PROFILE`] or [`UPDATE_PROFILE`]);
    /// returns how many rows it wrote.
    fn save(&self, profile: &Profile, now: DateTime<Utc>, sql: &str) -> Result<usize, StoreError> {
        let amount_limit = profile.amount_limit.map(|a| a.to_string());
        let millis = now.timestamp_millis();
        let fields: [&dyn ToSql; 9] = [
            &profile.name,
            &profile.base_url,
            &profile.api_key,
            &amount_limit,
            &profile.max_items,
            &profile.order_prefix,
            &profile.is_sandbox,
            &millis,
            &SANDBOX_PROFILE,
        ];
        let mut statement = self.conn.prepare(sql)?;
        let used = statement.parameter_count();
        Ok(statement.execute(&fields[..used])?)
    }

    /// Deletes the profile `name`; whether there was one.
    fn remove(&self, name: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .execute("DELETE FROM profiles WHERE name = ?1", [name])?
            > 0)
    }

    /// Sets the device id (already normalized).
    fn set_device_id(&self, id: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![META_DEVICE_ID, id],
        )?;
        Ok(())
    }

    /// Counts one more order number of `profile` on `day` (`YYYYMMDD`); returns its number.
    fn next_counter(&self, profile: &str, day: &str) -> Result<i64, StoreError> {
        Ok(self.conn.query_row(
            "INSERT INTO order_counters (profile, day, seq) VALUES (?1, ?2, 1)
             ON CONFLICT (profile, day) DO UPDATE SET seq = seq + 1
             RETURNING seq",
            params![profile, day],
            |r| r.get(0),
        )?)
    }
}

impl Store {
    /// The profiles' reads (and the device id).
    pub fn profiles(&self) -> Profiles<'_> {
        Profiles::read(&self.conn)
    }

    /// Creates the rows every install has: the sandbox profile and the device id. Each is an
    /// `INSERT OR IGNORE`, so two processes opening a new file at once agree on one device id.
    pub(super) fn ensure_builtin_rows(&mut self) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        Profiles::write(&tx).ensure_builtin()?;
        tx.commit()?;
        Ok(())
    }

    /// Adds a profile, created at `now`.
    pub fn profile_add(&mut self, profile: &Profile, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.profile_save(profile, now, INSERT_PROFILE, StoreError::ProfileExists)
    }

    /// Replaces a profile's fields (found by name) at `now`. The built-in sandbox stays a
    /// sandbox.
    pub fn profile_update(
        &mut self,
        profile: &Profile,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.profile_save(profile, now, UPDATE_PROFILE, StoreError::NoProfile)
    }

    /// Writes `profile` at `now` with `sql` ([`INSERT_PROFILE`] or [`UPDATE_PROFILE`]), audited
    /// in the same transaction; `missing` with the profile's name when `sql` wrote no row.
    fn profile_save(
        &mut self,
        profile: &Profile,
        now: DateTime<Utc>,
        sql: &str,
        missing: fn(String) -> StoreError,
    ) -> Result<(), StoreError> {
        profile.validate()?;
        let tx = write_tx(&mut self.conn)?;
        if Profiles::write(&tx).save(profile, now, sql)? == 0 {
            return Err(missing(profile.name.clone()));
        }
        let subject = format!("{} {} {}", profile.name, profile.base_url, profile.api_key);
        Audit::write(&tx).append(&self.actor, AuditAction::ProfileSave, &subject, now)?;
        tx.commit()?;
        Ok(())
    }

    /// Removes a profile. Refused for the sandbox and for a profile with pending requests.
    /// Its link history, saved cards and finished journal rows are kept (adding the profile
    /// again shows them).
    pub fn profile_remove(&mut self, name: &str) -> Result<(), StoreError> {
        if name == SANDBOX_PROFILE {
            return Err(StoreError::SandboxProfile);
        }
        let tx = write_tx(&mut self.conn)?;
        let pending = Journal::read(&tx).pending_count(name)?;
        if pending > 0 {
            return Err(StoreError::ProfileBusy {
                profile: name.to_owned(),
                pending,
            });
        }
        if !Profiles::write(&tx).remove(name)? {
            return Err(StoreError::NoProfile(name.to_owned()));
        }
        let at = super::audit_time(self.acting_at);
        Audit::write(&tx).append(&self.actor, AuditAction::ProfileRemove, name, at)?;
        tx.commit()?;
        Ok(())
    }

    /// Sets this install's device id (case-insensitive; stored in capitals).
    pub fn set_device_id(&mut self, id: &str) -> Result<(), StoreError> {
        let id = normalize_device_id(id)?;
        let tx = write_tx(&mut self.conn)?;
        Profiles::write(&tx).set_device_id(&id)?;
        tx.commit()?;
        Ok(())
    }

    /// The next order number of a profile for `date` (the shop's local date), committed
    /// durably before it is returned: the same number is never handed out twice (nor one that
    /// history or the journal holds).
    pub fn next_order_number(
        &mut self,
        profile: &str,
        date: NaiveDate,
    ) -> Result<String, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let profiles = Profiles::write(&tx);
        let prefix = profiles
            .order_prefix(profile)?
            .ok_or_else(|| StoreError::NoProfile(profile.to_owned()))?;
        let device = profiles.device_id()?;
        let day = date.format("%Y%m%d").to_string();
        let number = loop {
            let seq = profiles.next_counter(profile, &day)?;
            let candidate = format!("{prefix}-{day}-{device}{seq:04}");
            let taken = Links::read(&tx).has_order_number(profile, &candidate)?
                || Journal::read(&tx).has_order_number(profile, &candidate)?;
            if !taken {
                break candidate;
            }
        };
        tx.commit()?;
        Ok(number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_ids_use_the_unambiguous_alphabet() {
        for _ in 0..200 {
            let id = random_device_id();
            assert_eq!(normalize_device_id(&id).unwrap(), id);
        }
        assert_eq!(normalize_device_id(" 7kq3 ").unwrap(), "7KQ3");
        for bad in ["7KQ", "7KQ34", "IOLU", "7KQ-", ""] {
            assert!(normalize_device_id(bad).is_err(), "{bad}");
        }
    }
}
