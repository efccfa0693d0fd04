//! The shop-wide catalog and staff on this desk (docs/design.md §8): what the pusher reads of
//! the outbox's shared kinds (`catalog`, `staff`, `pin`), and the desk's mirror of what the
//! shop holds, written when the desk pulls.
//!
//! The mirror is what scanning and PIN checks read, joined or not, so both go on when the shop
//! cannot be reached. A pull replaces the catalog whole, in one transaction, and never while a
//! catalog change of this desk still waits in the outbox (the push, which comes first, carries
//! it to the shop; the pull after it brings back whichever snapshot won). Staff members with
//! a change or a PIN try still waiting are left as they are for the same reason.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension as _, params};

use super::catalog::variant_of;
use super::outbox::{BarcodeEdit, Outbox, PinPush, StaffPush};
use super::{Store, StoreError, from_millis, to_millis};
use crate::domain::{Barcode, CatalogVariant};

/// The catalog the shop is owed: the waiting `catalog` row's sequence number and the catalog
/// as it is now, read in one snapshot of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogOwed {
    /// The outbox row.
    pub seq: i64,
    /// When the change was made.
    pub at: DateTime<Utc>,
    /// Every variant, by id.
    pub variants: Vec<CatalogVariant>,
    /// `None`: the whole catalog is owed (an import). Else only these barcode edits, to
    /// apply on top of the shop's current catalog.
    pub edits: Option<Vec<BarcodeEdit>>,
}

/// A staff change or a PIN try waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaffChange {
    /// A member as a change left them.
    Member(StaffPush),
    /// A PIN tried.
    Pin(PinPush),
}

/// One `staff` or `pin` row of the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaffRow {
    /// Its place in the order of changes.
    pub seq: i64,
    /// When the change was made (this desk's clock).
    pub at: DateTime<Utc>,
    /// What changed.
    pub change: StaffChange,
}

impl StaffRow {
    /// The member's name the row is about.
    pub fn name(&self) -> &str {
        match &self.change {
            StaffChange::Member(m) => &m.name,
            StaffChange::Pin(p) => &p.name,
        }
    }
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

impl Store {
    /// The catalog the shop is owed, if a catalog change waits: the row and every variant as
    /// the file holds them now, read in one snapshot.
    pub fn outbox_catalog(&self) -> Result<Option<CatalogOwed>, StoreError> {
        self.in_one_snapshot(|| {
            let row: Option<(i64, i64, String)> = self
                .conn
                .query_row(
                    "SELECT seq, at, payload FROM shop_outbox WHERE kind = 'catalog'
                     ORDER BY seq DESC LIMIT 1",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            let Some((seq, at, payload)) = row else {
                return Ok(None);
            };
            let edits = if payload.is_empty() {
                None
            } else {
                Some(
                    serde_json::from_str(&payload).map_err(|e| StoreError::Corrupt {
                        what: "catalog outbox row",
                        value: e.to_string(),
                    })?,
                )
            };
            let mut stmt = self.conn.prepare_cached(
                "SELECT id, name, unit_price, currency, barcode FROM catalog_variants ORDER BY id",
            )?;
            let mut rows = stmt.query([])?;
            let mut variants = Vec::new();
            while let Some(r) = rows.next()? {
                variants.push(variant_of(r)?);
            }
            Ok(Some(CatalogOwed {
                seq,
                at: from_millis(at)?,
                variants,
                edits,
            }))
        })
    }

    /// The shop committed the catalog change of the row `seq` (or already had it): the row
    /// leaves the outbox. `snapshot` is the shop's snapshot when it holds exactly this desk's
    /// catalog (the desk mirrors it); `None` when it holds more (edits applied on top of
    /// another desk's import), which the next pull brings. A catalog change made meanwhile (a
    /// later row) stays.
    pub fn catalog_pushed(
        &mut self,
        seq: i64,
        snapshot: Option<i64>,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        tx.execute(
            "DELETE FROM shop_outbox WHERE kind = 'catalog' AND seq <= ?1",
            [seq],
        )?;
        tx.execute(
            "UPDATE shop_desk SET catalog_snapshot = ?1, last_push_at = ?2 WHERE id = 1",
            params![snapshot, to_millis(at)],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The shop's catalog snapshot this desk mirrors (`None`: none yet).
    pub fn catalog_snapshot_mirrored(&self) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT catalog_snapshot FROM shop_desk WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Replaces the catalog with the shop's snapshot `snapshot`, whole, in one transaction,
    /// and remembers it. Returns `false` and changes nothing when a catalog change of this
    /// desk still waits in the outbox (its push comes first). No audit row: the desk that
    /// made the change recorded it.
    pub fn catalog_mirror(
        &mut self,
        snapshot: i64,
        variants: &[CatalogVariant],
    ) -> Result<bool, StoreError> {
        let tx = super::write_tx(&mut self.conn)?;
        let waiting: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM shop_outbox WHERE kind = 'catalog')",
            [],
            |r| r.get(0),
        )?;
        if waiting {
            return Ok(false);
        }
        tx.execute("DELETE FROM catalog_variants", [])?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO catalog_variants (id, name, unit_price, currency, barcode)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for v in variants {
                let mut price = v.unit_price;
                price.rescale(v.currency.minor_units());
                insert.execute(params![
                    v.id,
                    v.name,
                    price.to_string(),
                    v.currency.as_str(),
                    v.barcode.as_ref().map(Barcode::as_str)
                ])?;
            }
        }
        tx.execute(
            "UPDATE shop_desk SET catalog_snapshot = ?1 WHERE id = 1",
            [snapshot],
        )?;
        tx.commit()?;
        Ok(true)
    }

    /// The oldest `limit` staff and PIN rows of the outbox, in order.
    pub fn outbox_staff(&self, limit: usize) -> Result<Vec<StaffRow>, StoreError> {
        Outbox::read(&self.conn)
            .rows(&["staff", "pin"], limit)?
            .into_iter()
            .map(|r| {
                let change = if r.kind == "staff" {
                    StaffChange::Member(r.decode()?)
                } else {
                    StaffChange::Pin(r.decode()?)
                };
                Ok(StaffRow {
                    seq: r.seq,
                    at: from_millis(r.at)?,
                    change,
                })
            })
            .collect()
    }

    /// The shop committed every staff and PIN row up to `seq`: they leave the outbox.
    pub fn staff_pushed(&mut self, seq: i64, at: DateTime<Utc>) -> Result<(), StoreError> {
        self.outbox_done(&["staff", "pin"], seq, at)
    }

    /// The highest staff version of the shop this desk has mirrored (`None`: none yet).
    pub fn staff_version_mirrored(&self) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT staff_version FROM shop_desk WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Writes the shop's members into this desk's staff, in one transaction: each is added or
    /// brought to the shop's role, PIN hash, active flag and wrong-PIN count. A member with a
    /// change or a PIN try of this desk still in the outbox is left as it is (its push comes
    /// first), and then `version` is not remembered, so the next pull reads them again. A
    /// member the shop does not know (added here before the desk joined) stays. Returns how
    /// many members were written. No audit row: the desk that made the change recorded it.
    pub fn staff_mirror(
        &mut self,
        version: i64,
        members: &[StaffMirror],
        now: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        let tx = super::write_tx(&mut self.conn)?;
        let mut written = 0;
        let mut skipped = false;
        {
            let mut waiting = tx
                .prepare_cached("SELECT payload FROM shop_outbox WHERE kind IN ('staff', 'pin')")?;
            let waiting: Vec<String> = waiting
                .query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<_, _>>()?;
            let names: Vec<String> = waiting
                .iter()
                .filter_map(|p| {
                    let v: serde_json::Value = serde_json::from_str(p).ok()?;
                    Some(v.get("name")?.as_str()?.to_owned())
                })
                .collect();
            let mut upsert = tx.prepare_cached(
                "INSERT INTO staff (name, role, pin_hash, active, misses, locked_until,
                     created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
                 ON CONFLICT (name) DO UPDATE SET role = excluded.role,
                     pin_hash = excluded.pin_hash, active = excluded.active,
                     misses = excluded.misses, locked_until = excluded.locked_until,
                     updated_at = excluded.updated_at",
            )?;
            for m in members {
                super::staff::read_role(&m.role)?;
                if names.iter().any(|n| n.eq_ignore_ascii_case(&m.name)) {
                    skipped = true;
                    continue;
                }
                upsert.execute(params![
                    m.name,
                    m.role,
                    m.pin_hash,
                    m.active,
                    m.misses,
                    m.locked_until.map(to_millis),
                    to_millis(now)
                ])?;
                written += 1;
            }
        }
        if !skipped {
            tx.execute(
                "UPDATE shop_desk SET staff_version = ?1 WHERE id = 1",
                [version],
            )?;
        }
        tx.commit()?;
        Ok(written)
    }
}
