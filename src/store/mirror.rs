//! The shop-wide catalog and staff on this desk (docs/design.md §8): what the pusher reads of
//! the outbox's shared kinds (`catalog`, `staff`, `pin`), and the desk's mirror of what the
//! shop holds, written when the desk pulls.
//!
//! The mirror is what scanning and PIN checks read, joined or not, so both go on when the shop
//! cannot be reached. A pull replaces the catalog whole, in one transaction, and never while a
//! catalog change of this desk still waits in the outbox (the push, which comes first, carries
//! it to the shop; the pull after it brings back whichever snapshot won). Staff members with
//! a change or a PIN try still waiting are left as they are for the same reason.

use super::catalog::Catalog;
use super::outbox::{BarcodeEdit, Outbox};
use super::shop::Shop;
use super::staff::Staff;
use super::staff::StaffMirror;
use super::{Store, StoreError, from_millis, write_tx};
use crate::domain::CatalogVariant;
use chrono::{DateTime, Utc};

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

impl Store {
    /// The catalog the shop is owed, if a catalog change waits: the row and every variant as
    /// the file holds them now, read in one snapshot.
    pub fn outbox_catalog(&self) -> Result<Option<CatalogOwed>, StoreError> {
        self.in_one_snapshot(|| {
            let Some((seq, at, payload)) = self.outbox().waiting_catalog_row()? else {
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
            Ok(Some(CatalogOwed {
                seq,
                at: from_millis(at)?,
                variants: self.catalog().list_by_id()?,
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
        let tx = write_tx(&mut self.conn)?;
        Outbox::write(&tx).delete_through(&["catalog"], seq)?;
        Shop::write(&tx).catalog_pushed(snapshot, at)?;
        tx.commit()?;
        Ok(())
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
        let tx = write_tx(&mut self.conn)?;
        if Outbox::read(&tx).catalog_waits()? {
            return Ok(false);
        }
        Catalog::write(&tx).replace_all(variants)?;
        Shop::write(&tx).set_catalog_snapshot(snapshot)?;
        tx.commit()?;
        Ok(true)
    }

    /// Whether staff are on: a member is defined here, or this desk mirrors a shop that has
    /// staff. On a joined desk, emptying the `staff` table turns nothing off: nobody can sign
    /// in until the next pull brings the shop's members back (`shop::staff::pull_staff`).
    pub fn staff_on(&self) -> Result<bool, StoreError> {
        Ok(self.staff().on()? || self.shop().staff_version()?.is_some())
    }

    /// The shop committed every staff and PIN row up to `seq`: they leave the outbox. When it
    /// refused some (`refused`), the staff version read is forgotten, so the next pull
    /// writes the shop's members over what this file made of them.
    pub fn staff_pushed(
        &mut self,
        seq: i64,
        refused: bool,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.outbox_done(&["staff", "pin"], seq, at)?;
        if refused {
            self.conn
                .execute("UPDATE shop_desk SET staff_version = NULL WHERE id = 1", [])?;
        }
        Ok(())
    }

    /// Writes the shop's members into this desk's staff, in one transaction: each is added or
    /// brought to the shop's role, PIN hash, active flag and wrong-PIN count. A member with a
    /// change or a PIN try of this desk still in the outbox is left as it is (its push comes
    /// first), and then `version` is not remembered, so the next pull reads them again. A
    /// member the shop does not have and no row of the outbox names goes. Returns how many
    /// members were written. No audit row: the desk that made the change recorded it.
    pub fn staff_mirror(
        &mut self,
        version: i64,
        members: &[StaffMirror],
        now: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let mut written = 0;
        let mut skipped = false;
        let names: Vec<String> = Outbox::read(&tx)
            .staff_payloads()?
            .iter()
            .filter_map(|p| {
                let v: serde_json::Value = serde_json::from_str(p).ok()?;
                Some(v.get("name")?.as_str()?.to_owned())
            })
            .collect();
        let staff = Staff::write(&tx);
        for m in members {
            super::staff::read_role(&m.role)?;
            if names.iter().any(|n| n.eq_ignore_ascii_case(&m.name)) {
                skipped = true;
                continue;
            }
            staff.mirror(m, now)?;
            written += 1;
        }
        // A member the shop does not have (made in this file by hand, or a change the shop
        // refused) goes: a joined desk's staff are the shop's.
        for local in staff.list()? {
            let known = members
                .iter()
                .any(|m| m.name.eq_ignore_ascii_case(&local.name))
                || names.iter().any(|n| n.eq_ignore_ascii_case(&local.name));
            if !known {
                staff.remove(&local.name)?;
            }
        }
        if !skipped {
            Shop::write(&tx).set_staff_version(version)?;
        }
        tx.commit()?;
        Ok(written)
    }
}
