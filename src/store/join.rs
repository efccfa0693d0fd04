//! A shop was joined, one unit of work in one transaction: the shop recorded, every link this
//! desk made before owed to it, and the desk's staff and catalog either brought to a shop that
//! has none or replaced by the shop's (docs/design.md §8, "Joining brings the desk along").

use chrono::{DateTime, Utc};

use super::catalog::Catalog;
use super::changes::owe_link;
use super::links::Links;
use super::outbox::{CatalogChange, enqueue_catalog, enqueue_staff};
use super::shop::Shop;
use super::staff::{Staff, StaffMirror, read_role};
use super::{Store, StoreError, write_tx};
use crate::domain::CatalogVariant;

/// What the shop held of the shared kinds when the desk joined: its staff (at a version) and
/// its current catalog snapshot, each `None` when it has none.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShopHeld<'a> {
    /// The shop's members and the highest version read.
    pub staff: Option<(i64, &'a [StaffMirror])>,
    /// The shop's current catalog snapshot and its variants.
    pub catalog: Option<(i64, &'a [CatalogVariant])>,
}

/// What joining did with one of this desk's shared kinds (its staff, its catalog).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carry {
    /// The shop had none: this desk's `n` members (or items) go to it with the first push.
    ToShop(usize),
    /// The shop had its own: its `theirs` replace this desk's `ours` here.
    Replaced {
        /// This desk's, before the join.
        ours: usize,
        /// The shop's, now this desk's too.
        theirs: usize,
    },
}

/// What joining did with this desk's staff and catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Carried {
    /// The staff.
    pub staff: Carry,
    /// The catalog.
    pub catalog: Carry,
}

impl Store {
    /// Records the shop this desk joined (its canonical URL, never a password), which held
    /// `held` of the shared kinds.
    ///
    /// The desk brings its links along: those made before it joined go to the shop with the
    /// first push, oldest first, so History and Day close lose nothing, on this desk or
    /// shop-wide; joining again sends them again, which the shop takes as a replay. Its staff
    /// and catalog go to a shop that has none; a shop that has them wins, and this desk
    /// mirrors them at once (never a moment with no staff, which would turn PINs off).
    pub fn join_shop_holding(
        &mut self,
        url: &str,
        at: DateTime<Utc>,
        held: ShopHeld<'_>,
    ) -> Result<Carried, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        Shop::write(&tx).join(url, at)?;
        for (profile, id) in &Links::read(&tx).keys_in_order()? {
            owe_link(&tx, profile, id, at)?;
        }
        let ours = Staff::read(&tx).list()?;
        let staff = if let Some((version, members)) =
            held.staff.filter(|(_, members)| !members.is_empty())
        {
            for m in members {
                read_role(&m.role)?;
            }
            let write = Staff::write(&tx);
            write.clear()?;
            for m in members {
                write.mirror(m, at)?;
            }
            Shop::write(&tx).set_staff_version(version)?;
            Carry::Replaced {
                ours: ours.len(),
                theirs: members.len(),
            }
        } else {
            for member in &ours {
                enqueue_staff(&tx, Staff::read(&tx).push_of(&member.name)?, at)?;
            }
            Carry::ToShop(ours.len())
        };
        let ours = Catalog::read(&tx).count()?;
        let catalog = if let Some((snapshot, variants)) =
            held.catalog.filter(|(_, variants)| !variants.is_empty())
        {
            Catalog::write(&tx).replace_all(variants)?;
            Shop::write(&tx).set_catalog_snapshot(snapshot)?;
            Carry::Replaced {
                ours,
                theirs: variants.len(),
            }
        } else {
            if ours > 0 {
                enqueue_catalog(&tx, CatalogChange::Whole, at)?;
            }
            Carry::ToShop(ours)
        };
        tx.commit()?;
        Ok(Carried { staff, catalog })
    }

    /// Records the shop this desk joined, as [`Store::join_shop_holding`] with a shop that
    /// holds no staff and no catalog yet (a new shop's first desk; the tests' set-ups).
    pub fn join_shop(&mut self, url: &str, at: DateTime<Utc>) -> Result<Carried, StoreError> {
        self.join_shop_holding(url, at, ShopHeld::default())
    }
}
