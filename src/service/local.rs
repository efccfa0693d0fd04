//! This desk's own file, as the front ends reach it: staff and their PINs, the audit, the
//! profiles, the catalog and the desk's place in a shop.
//!
//! Every operation is named here; neither the app nor the CLI gets the store itself, a lock on
//! it or a closure run under that lock. A write names who does it (`actor`): the audit row
//! goes with the change in its transaction. "Now" is the services' clock.

use std::path::Path;

use crate::domain::{Actor, CatalogVariant, StaffMember};
use crate::store::{AuditAction, AuditFilter, AuditRow, ChainCheck, CsvParsed, Profile, ShopDesk};

use super::{DeskError, Services};

impl Services {
    /// Whether staff are on (a member here, or a shop's staff mirrored: `Store::staff_on`).
    pub fn staff_on(&self) -> Result<bool, DeskError> {
        self.with_store_locked(|s| s.staff_on())
    }

    /// The members, by name.
    pub fn staff_list(&self) -> Result<Vec<StaffMember>, DeskError> {
        self.with_store_locked(|s| s.staff().list())
    }

    /// One member, by name (any case).
    pub fn staff_member(&self, name: &str) -> Result<Option<StaffMember>, DeskError> {
        self.with_store_locked(|s| s.staff().member(name))
    }

    /// The audit rows matching `filter`, oldest first.
    pub fn audit_list(&self, filter: &AuditFilter) -> Result<Vec<AuditRow>, DeskError> {
        self.with_store_locked(|s| s.audit().list(filter))
    }

    /// Walks the audit chain, checking every hash, and its head against `head` when given.
    pub fn audit_verify(&self, head: Option<&str>) -> Result<ChainCheck, DeskError> {
        self.with_store_locked(|s| s.audit().verify(head))
    }

    /// The audit chain's head now.
    pub fn audit_head(&self) -> Result<String, DeskError> {
        self.with_store_locked(|s| s.audit().head())
    }

    /// The rows matching `filter` and the whole chain's check, read together.
    pub fn audit_with_check(
        &self,
        filter: &AuditFilter,
    ) -> Result<(Vec<AuditRow>, ChainCheck), DeskError> {
        self.with_store_locked(|s| Ok((s.audit().list(filter)?, s.audit().verify(None)?)))
    }

    /// Writes the audit rows matching `filter` as CSV to `path`, a file only its owner can
    /// read; returns how many rows.
    pub fn export_audit_csv(&self, filter: &AuditFilter, path: &Path) -> Result<usize, DeskError> {
        let rows = self.audit_list(filter)?;
        let file = crate::store::create_private_file(path).map_err(|source| {
            DeskError::Store(crate::store::StoreError::Io {
                path: path.to_path_buf(),
                source,
            })
        })?;
        crate::store::write_audit_csv(file, &rows)?;
        Ok(rows.len())
    }

    /// Records that `actor` stored the secret of `subject` (a profile and its key): the
    /// keyring holds the secret, so no change of the file comes with the row.
    pub fn record_secret_stored(&self, actor: &Actor, subject: &str) -> Result<(), DeskError> {
        let now = self.clock().now();
        self.with_store_locked(|s| s.audit_append(actor, AuditAction::SecretStore, subject, now))
    }

    /// Records that `actor` sent link `link_id` by WhatsApp to `phone` (the desk opened or
    /// printed its `wa.me` address): one audit row, the number masked.
    pub fn record_whatsapp_send(
        &self,
        actor: &Actor,
        link_id: &str,
        phone: &crate::domain::phone::Phone,
    ) -> Result<(), DeskError> {
        let now = self.clock().now();
        self.with_store_locked(|s| {
            s.as_actor(actor, now, |s| s.record_whatsapp_send(link_id, phone, now))
        })
    }

    /// The profiles, the sandbox first.
    pub fn profile_list(&self) -> Result<Vec<Profile>, DeskError> {
        self.with_store_locked(|s| s.profiles().list())
    }

    /// One profile, by name.
    pub fn profile_get(&self, name: &str) -> Result<Option<Profile>, DeskError> {
        self.with_store_locked(|s| s.profiles().get(name))
    }

    /// Adds `profile`, or changes the one of its name when `existing`; returns the profiles
    /// after it.
    pub fn profile_save(
        &self,
        actor: &Actor,
        profile: &Profile,
        existing: bool,
    ) -> Result<Vec<Profile>, DeskError> {
        let now = self.clock().now();
        self.with_store_locked(|s| {
            s.as_actor(actor, now, |s| {
                if existing {
                    s.profile_update(profile, now)
                } else {
                    s.profile_add(profile, now)
                }
            })?;
            s.profiles().list()
        })
    }

    /// Removes a profile (never the sandbox's); returns the profiles after it.
    pub fn profile_remove(&self, actor: &Actor, name: &str) -> Result<Vec<Profile>, DeskError> {
        let now = self.clock().now();
        self.with_store_locked(|s| {
            s.as_actor(actor, now, |s| s.profile_remove(name))?;
            s.profiles().list()
        })
    }

    /// The catalog, by name.
    pub fn catalog_list(&self) -> Result<Vec<CatalogVariant>, DeskError> {
        self.with_store_locked(|s| s.catalog().list())
    }

    /// What importing this CSV would do, changing nothing.
    pub fn catalog_preview_csv(&self, bytes: &[u8]) -> Result<CsvParsed, DeskError> {
        self.with_store_locked(|s| s.catalog_preview_csv(bytes))
    }

    /// How many changes wait to go to the shop.
    pub fn outbox_len(&self) -> Result<u64, DeskError> {
        self.with_store_locked(|s| s.outbox().count())
    }

    /// The sequence number of the last change queued for the shop (0: none ever).
    pub fn outbox_last_seq(&self) -> Result<i64, DeskError> {
        self.with_store_locked(|s| s.outbox().last_seq())
    }

    /// This desk's place in a shop: its name, the shop joined, when it last pushed.
    pub fn shop_desk(&self) -> Result<ShopDesk, DeskError> {
        self.with_store_locked(|s| s.shop().desk())
    }

    /// Names this desk (shown to the other desks), or takes its name away.
    pub fn set_desk_name(&self, name: Option<&str>) -> Result<(), DeskError> {
        self.with_store_locked(|s| s.set_desk_name(name))
    }

    /// The last shop revision this desk read (its catalog and staff are that new).
    pub fn shop_read_rev(&self) -> Result<i64, DeskError> {
        self.with_store_locked(|s| s.shop().read_rev())
    }

    /// Remembers the last shop revision read.
    pub fn set_shop_read_rev(&self, rev: i64) -> Result<(), DeskError> {
        self.with_store_locked(|s| s.set_shop_read_rev(rev))
    }
}

/// Reads a catalog file, at most the catalog's limit, before the store is locked.
pub fn read_catalog_file(path: &Path) -> Result<Vec<u8>, DeskError> {
    Ok(crate::store::read_catalog_file(path)?)
}

/// A catalog file to start from, as Catalog's "Save a sample file" writes it: the header the
/// import reads (`id`, `name`, `unit_price`, `currency`, and `barcode` optional), `;`-separated
/// with decimal commas as a Turkish spreadsheet saves it, and three items.
pub const CATALOG_SAMPLE_CSV: &str = "id;name;unit_price;currency;barcode\n\
simit;Susamlı simit;25,00;TRY;8690000000012\n\
turk-kahvesi;Türk kahvesi;85,00;TRY;\n\
cheesecake;San Sebastian cheesecake;190,00;TRY;\n";

/// Writes [`CATALOG_SAMPLE_CSV`] to `path`; returns how many items it holds.
pub fn write_catalog_sample(path: &Path) -> std::io::Result<usize> {
    use std::io::Write as _;
    let mut file = std::fs::File::create(path)?;
    file.write_all(CATALOG_SAMPLE_CSV.as_bytes())?;
    file.sync_all()?;
    Ok(CATALOG_SAMPLE_CSV.lines().count() - 1)
}

/// Creates (or empties) a file only its owner can read and write: exports hold payers' and
/// staff's data.
pub fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    crate::store::create_private_file(path)
}
