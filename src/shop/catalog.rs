//! The shop-wide catalog (docs/design.md §8): one current snapshot for the whole shop, which
//! every desk mirrors into its own file so scanning goes on without the shop.
//!
//! - A catalog change on a joined desk leaves one `catalog` row in its outbox. After an import
//!   the pusher sends the desk's whole catalog as it then is; after barcode edits alone it
//!   sends the edits, applied on top of the shop's current catalog ([`with_edits`]), so an
//!   edit made offline never undoes another desk's newer import ([`apply_catalog`]). In one
//!   PostgreSQL transaction, under the advisory lock [`CATALOG_LOCK`], the result becomes a
//!   new snapshot and the current one, the previous snapshots' variants are deleted, and
//!   `NOTIFY paydesk_catalog` (payload: the snapshot's number) is sent on commit. Two desks
//!   importing at once take turns under the lock: the last to commit wins whole; no snapshot
//!   is ever a union of two imports, and a reader in one `REPEATABLE READ` transaction never
//!   sees half of one.
//! - A resent push (the desk killed after the shop's commit, before its own delete) finds its
//!   snapshot (a whole catalog by desk, outbox sequence number and digest; edits by desk and
//!   sequence number) and changes nothing, even when another snapshot became current since.
//! - [`pull_catalog`] mirrors the current snapshot when it is not the one the desk mirrors:
//!   one read-only `REPEATABLE READ` transaction in the shop, one `SQLite` transaction on the
//!   desk (`Store::catalog_mirror`), skipped while a catalog change of the desk still waits
//!   in its outbox.

use std::str::FromStr as _;
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use sha2::{Digest as _, Sha256};

use super::{Shop, ShopError, ShopUrl};
use crate::domain::{Barcode, CatalogVariant, Currency};
use crate::lang::Lang;
use crate::store::with_locked;
use crate::store::{BarcodeEdit, CatalogOwed, Store, StoreError};

/// The channel a change of the current snapshot is notified on (payload: its number).
pub const CHANNEL: &str = "paydesk_catalog";

/// The advisory lock catalog snapshots are made under (`paydesk` in ASCII, then `C`).
pub const CATALOG_LOCK: i64 = 0x7061_7964_6573_6b43;

/// Schema step 4: catalog snapshots, their variants, and which one is current.
pub const SCHEMA: &str = "
-- One row per catalog a desk pushed: the desk, its outbox row, the SHA-256 of the content
-- (a resent push finds its row and changes nothing).
CREATE TABLE catalog_snapshots (
    snapshot  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    desk_id   text NOT NULL REFERENCES desks (desk_id),
    desk_seq  bigint NOT NULL,
    digest    text NOT NULL,
    variants  integer NOT NULL CHECK (variants >= 0),
    -- The desk's clock when the change was made: shown, never compared.
    made_at   timestamptz NOT NULL,
    pushed_at timestamptz NOT NULL,
    UNIQUE (desk_id, desk_seq, digest)
);

-- The variants of the current snapshot (those of older snapshots are deleted when a new one
-- becomes current).
CREATE TABLE catalog_variants (
    snapshot   bigint NOT NULL REFERENCES catalog_snapshots ON DELETE CASCADE,
    variant_id text NOT NULL,
    name       text NOT NULL,
    unit_price numeric NOT NULL CHECK (unit_price > 0),
    currency   text NOT NULL,
    barcode    text,
    PRIMARY KEY (snapshot, variant_id)
);

-- Which snapshot is the shop's catalog.
CREATE TABLE catalog_current (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    snapshot bigint NOT NULL REFERENCES catalog_snapshots
);
";

/// Why a pull stopped.
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    /// The shop failed; the desk's mirror is as it was.
    #[error(transparent)]
    Shop(#[from] ShopError),
    /// The local file failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The shop holds a value this desk cannot use (written by hand, or by a newer paydesk).
    #[error("the shop holds an invalid {what}: `{value}`")]
    Invalid {
        /// What was read.
        what: Invalid,
        /// The value.
        value: String,
    },
}

/// What kind of value the shop held that this desk cannot use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invalid {
    /// A catalog variant's currency.
    Currency,
    /// A catalog variant's barcode.
    Barcode,
    /// A staff member's role.
    Role,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Invalid::Currency => "catalog currency",
            Invalid::Barcode => "catalog barcode",
            Invalid::Role => "staff role",
        })
    }
}

impl PullError {
    /// The error as a sentence for the user; `None` for a local failure, which the caller
    /// words as it words the store's.
    pub fn sentence(&self, lang: Lang) -> Option<String> {
        match self {
            PullError::Shop(e) => Some(e.sentence(lang)),
            PullError::Store(_) => None,
            PullError::Invalid { what, value } => Some(what.sentence(value, lang)),
        }
    }
}

impl Invalid {
    /// The shop's unusable `value` of this kind, as a sentence for the user.
    pub fn sentence(self, value: &str, lang: Lang) -> String {
        use super::messages::ShopMessage as M;
        let m = match self {
            Invalid::Currency => M::InvalidCurrency,
            Invalid::Barcode => M::InvalidBarcode,
            Invalid::Role => M::InvalidRole,
        };
        m.fill(lang, &[("value", &value)])
    }
}

/// The SHA-256 of a catalog, by variant id: each field as its UTF-8 length, `:`, the bytes
/// and `\n` (the audit's encoding), the price at the currency's minor units.
pub fn digest(variants: &[CatalogVariant]) -> String {
    let mut sorted: Vec<&CatalogVariant> = variants.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let mut h = Sha256::new();
    h.update(b"paydesk-catalog-1\n");
    for v in sorted {
        let price = price_text(v);
        for field in [
            v.id.as_str(),
            v.name.as_str(),
            price.as_str(),
            v.currency.as_str(),
            v.barcode.as_ref().map_or("", Barcode::as_str),
        ] {
            h.update(field.len().to_string().as_bytes());
            h.update(b":");
            h.update(field.as_bytes());
            h.update(b"\n");
        }
    }
    hex::encode(h.finalize())
}

fn price_text(v: &CatalogVariant) -> String {
    let mut p = v.unit_price;
    p.rescale(v.currency.minor_units());
    p.to_string()
}

/// What [`apply_catalog`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogApplied {
    /// The snapshot that holds the pushed change.
    pub snapshot: i64,
    /// Whether it is new and became current (a resent push changes nothing).
    pub made_current: bool,
    /// Whether it holds exactly the desk's catalog (else the desk's edits went on top of
    /// another desk's newer import, and the desk mirrors the result at its next pull).
    pub as_on_desk: bool,
}

/// The catalog `current` with `edits` made on it in order: an edit of a variant the catalog
/// no longer has is dropped (the import that removed it is newer), and so is one that would
/// give a variant a barcode another variant holds (nothing is moved silently, as on the desk).
pub fn with_edits(mut current: Vec<CatalogVariant>, edits: &[BarcodeEdit]) -> Vec<CatalogVariant> {
    for edit in edits {
        let code = match edit.barcode.as_deref().map(Barcode::parse) {
            Some(Ok(code)) => Some(code),
            Some(Err(_)) => continue,
            None => None,
        };
        if code.as_ref().is_some_and(|c| {
            current
                .iter()
                .any(|v| v.id != edit.id && v.barcode.as_ref() == Some(c))
        }) {
            continue;
        }
        if let Some(v) = current.iter_mut().find(|v| v.id == edit.id) {
            v.barcode = code;
        }
    }
    current
}

/// Makes the catalog change `owed` by desk `desk_id` the shop's current snapshot, in one
/// transaction (see the module's doc): the desk's whole catalog after an import, else its
/// barcode edits on top of the current snapshot.
pub async fn apply_catalog(
    shop: &mut Shop,
    desk_id: &str,
    owed: &CatalogOwed,
    now: DateTime<Utc>,
) -> Result<CatalogApplied, ShopError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(e, &url);
    let on_desk = digest(&owed.variants);
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&CATALOG_LOCK])
        .await
        .map_err(pg)?;
    // A resend finds its snapshot: by content for a whole catalog, by the outbox row for edits
    // (what they gave depends on the snapshot they went on).
    let resent = tx
        .query_opt(
            "SELECT snapshot, digest FROM catalog_snapshots
             WHERE desk_id = $1 AND desk_seq = $2 AND ($3 OR digest = $4)",
            &[&desk_id, &owed.seq, &owed.edits.is_some(), &on_desk],
        )
        .await
        .map_err(pg)?;
    if let Some(row) = resent {
        tx.commit().await.map_err(pg)?;
        let digest: String = row.get(1);
        return Ok(CatalogApplied {
            snapshot: row.get(0),
            made_current: false,
            as_on_desk: digest == on_desk,
        });
    }
    let current: Option<i64> = tx
        .query_opt("SELECT snapshot FROM catalog_current", &[])
        .await
        .map_err(pg)?
        .map(|r| r.get(0));
    let merged = match (&owed.edits, current) {
        (Some(edits), Some(current)) => {
            let variants = read_variants(&tx, &url, current)
                .await
                .map_err(|e| match e {
                    PullError::Shop(e) => e,
                    other => ShopError::Unreadable(other.to_string()),
                })?;
            Some(with_edits(variants, edits))
        }
        // No catalog in the shop yet, or an import: this desk's catalog, whole.
        _ => None,
    };
    let variants = merged.as_deref().unwrap_or(&owed.variants);
    let digest = digest(variants);
    let count = i32::try_from(variants.len()).unwrap_or(i32::MAX);
    let snapshot: i64 = tx
        .query_one(
            "INSERT INTO catalog_snapshots (desk_id, desk_seq, digest, variants, made_at, pushed_at)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING snapshot",
            &[&desk_id, &owed.seq, &digest, &count, &owed.at, &now],
        )
        .await
        .map_err(pg)?
        .get(0);
    let ids: Vec<&str> = variants.iter().map(|v| v.id.as_str()).collect();
    let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
    let prices: Vec<Decimal> = variants.iter().map(|v| v.unit_price).collect();
    let currencies: Vec<&str> = variants.iter().map(|v| v.currency.as_str()).collect();
    let barcodes: Vec<Option<&str>> = variants
        .iter()
        .map(|v| v.barcode.as_ref().map(Barcode::as_str))
        .collect();
    tx.execute(
        "INSERT INTO catalog_variants (snapshot, variant_id, name, unit_price, currency, barcode)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::numeric[], $5::text[], $6::text[])",
        &[&snapshot, &ids, &names, &prices, &currencies, &barcodes],
    )
    .await
    .map_err(pg)?;
    tx.execute(
        "INSERT INTO catalog_current (snapshot) VALUES ($1)
         ON CONFLICT (only_row) DO UPDATE SET snapshot = EXCLUDED.snapshot",
        &[&snapshot],
    )
    .await
    .map_err(pg)?;
    tx.execute(
        "DELETE FROM catalog_variants WHERE snapshot <> $1",
        &[&snapshot],
    )
    .await
    .map_err(pg)?;
    tx.execute(
        "SELECT pg_notify($1, $2)",
        &[&CHANNEL, &snapshot.to_string()],
    )
    .await
    .map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    Ok(CatalogApplied {
        snapshot,
        made_current: true,
        as_on_desk: digest == on_desk,
    })
}

/// The variants of snapshot `snapshot`, by id.
async fn read_variants(
    tx: &tokio_postgres::Transaction<'_>,
    url: &ShopUrl,
    snapshot: i64,
) -> Result<Vec<CatalogVariant>, PullError> {
    let rows = tx
        .query(
            "SELECT variant_id, name, unit_price, currency, barcode FROM catalog_variants
             WHERE snapshot = $1 ORDER BY variant_id",
            &[&snapshot],
        )
        .await
        .map_err(|e| PullError::Shop(ShopError::from_pg(e, url)))?;
    rows.iter()
        .map(|r| {
            let currency: String = r.get(3);
            let barcode: Option<String> = r.get(4);
            Ok(CatalogVariant {
                id: r.get(0),
                name: r.get(1),
                unit_price: r.get(2),
                currency: Currency::from_str(&currency).map_err(|_| PullError::Invalid {
                    what: Invalid::Currency,
                    value: currency.clone(),
                })?,
                barcode: barcode
                    .map(|b| {
                        Barcode::parse(&b).map_err(|_| PullError::Invalid {
                            what: Invalid::Barcode,
                            value: b.clone(),
                        })
                    })
                    .transpose()?,
            })
        })
        .collect()
}

/// The shop's current catalog: its snapshot number and variants, read in one read-only
/// `REPEATABLE READ` transaction; `None` when no desk has pushed a catalog yet. With `known`
/// the snapshot the caller already has, its variants are not read again (`Some((known, []))`).
pub async fn current_catalog(
    shop: &mut Shop,
    known: Option<i64>,
) -> Result<Option<(i64, Vec<CatalogVariant>)>, PullError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PullError::Shop(ShopError::from_pg(e, &url));
    let tx = shop.snapshot().await.map_err(pg)?;
    let current: Option<i64> = tx
        .query_opt("SELECT snapshot FROM catalog_current", &[])
        .await
        .map_err(pg)?
        .map(|r| r.get(0));
    let Some(snapshot) = current else {
        tx.commit().await.map_err(pg)?;
        return Ok(None);
    };
    if known == Some(snapshot) {
        tx.commit().await.map_err(pg)?;
        return Ok(Some((snapshot, Vec::new())));
    }
    let variants = read_variants(&tx, &url, snapshot).await?;
    tx.commit().await.map_err(pg)?;
    Ok(Some((snapshot, variants)))
}

/// What [`pull_catalog`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogPulled {
    /// No desk has pushed a catalog to the shop yet: the desk keeps its own.
    NoneShared,
    /// The desk already mirrors the current snapshot.
    Unchanged(i64),
    /// A catalog change of this desk still waits in its outbox: push first.
    Waiting,
    /// The desk now mirrors this snapshot, with this many variants.
    Mirrored {
        /// The snapshot.
        snapshot: i64,
        /// Its variants.
        variants: usize,
    },
}

/// Mirrors the shop's current catalog into the desk's file when it is not the snapshot the
/// desk mirrors (one `SQLite` transaction: no reader of the file sees half of it).
pub async fn pull_catalog(
    shop: &mut Shop,
    store: &Mutex<Store>,
) -> Result<CatalogPulled, PullError> {
    let known = with_locked(store, |s| s.shop().catalog_snapshot())?;
    let Some((snapshot, variants)) = current_catalog(shop, known).await? else {
        return Ok(CatalogPulled::NoneShared);
    };
    if known == Some(snapshot) {
        return Ok(CatalogPulled::Unchanged(snapshot));
    }
    if with_locked(store, |s| s.catalog_mirror(snapshot, &variants))? {
        Ok(CatalogPulled::Mirrored {
            snapshot,
            variants: variants.len(),
        })
    } else {
        Ok(CatalogPulled::Waiting)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(id: &str, barcode: Option<&str>) -> CatalogVariant {
        CatalogVariant {
            id: id.to_owned(),
            name: id.to_uppercase(),
            unit_price: Decimal::new(1000, 2),
            currency: Currency::Try,
            barcode: barcode.map(|b| Barcode::parse(b).expect("a barcode")),
        }
    }

    fn edit(id: &str, barcode: Option<&str>) -> BarcodeEdit {
        BarcodeEdit {
            id: id.to_owned(),
            barcode: barcode.map(str::to_owned),
        }
    }

    #[test]
    fn edits_go_on_the_current_catalog_and_never_take_a_barcode_or_bring_a_variant_back() {
        let current = vec![variant("cay", Some("1000001")), variant("simit", None)];
        let merged = with_edits(
            current,
            &[
                // Taken by çay in the current catalog: dropped, çay keeps it.
                edit("simit", Some("1000001")),
                edit("simit", Some("7777777")),
                // Removed by the newer import: not brought back.
                edit("pogaca", Some("5555555")),
                edit("cay", None),
            ],
        );
        assert_eq!(
            merged,
            vec![variant("cay", None), variant("simit", Some("7777777"))]
        );
        // In order: a later edit may take the barcode an earlier one freed.
        let merged = with_edits(
            vec![variant("cay", Some("1000001")), variant("simit", None)],
            &[edit("cay", None), edit("simit", Some("1000001"))],
        );
        assert_eq!(
            merged[1].barcode.as_ref().map(Barcode::as_str),
            Some("1000001")
        );
    }
}
