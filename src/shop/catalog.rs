//! The shop-wide catalog (docs/design.md §8): one current snapshot for the whole shop, which
//! every desk mirrors into its own file so scanning goes on without the shop.
//!
//! - Since schema step 13 ([`AUTHORITY`]) the catalog is the shop's to guard: on a joined desk
//!   an import ([`put`]: the desk's catalog with the CSV's lines, whole) or a barcode edit
//!   ([`set_barcode`]) is made in the shop with a signed-in manager's token, online only, and
//!   each makes a new current snapshot. A barcode another item has is refused (a barcode moved
//!   onto a cheaper item is the classic till fraud), and so is one no desk could read.
//! - A desk's outbox `catalog` row ([`apply_catalog`]) brings its whole catalog along only into
//!   a shop that has none (the join); otherwise the shop refuses it and the desk mirrors the
//!   shop's back. A resent push (the desk killed after the shop's commit, before its own
//!   delete) finds its snapshot by desk, outbox sequence number and digest and changes nothing.
//! - Every write makes the new snapshot current, deletes the previous snapshots' variants and
//!   sends `NOTIFY paydesk_catalog` (payload: the snapshot's number) on commit, taking turns on
//!   the owner-only row `catalog_turn`: two changes at once never make a union, and a reader
//!   in one `REPEATABLE READ` transaction never sees half of one.
//! - [`pull_catalog`] mirrors the current snapshot when it is not the one the desk mirrors:
//!   one read-only `REPEATABLE READ` transaction in the shop, one `SQLite` transaction on the
//!   desk (`Store::catalog_mirror`), skipped while a catalog change of the desk still waits
//!   in its outbox.

use std::str::FromStr as _;
use std::sync::Mutex;

use rust_decimal::Decimal;
use sha2::{Digest as _, Sha256};

use super::{Shop, ShopError, ShopUrl};
use crate::domain::{Barcode, CatalogVariant, Currency};
use crate::lang::Lang;
use crate::store::with_locked;
use crate::store::{CatalogOwed, Store, StoreError};

/// The channel a change of the current snapshot is notified on (payload: its number).
pub const CHANNEL: &str = "paydesk_catalog";

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
    /// The snapshot that holds the pushed catalog; `None` when the shop refused it (it has a
    /// catalog already, which only a manager's sign-in changes).
    pub snapshot: Option<i64>,
    /// Whether it is new and became current (a resent push changes nothing).
    pub made_current: bool,
}

/// Schema step 13 (issue 28): the catalog under the shop's authority. Desks lose `INSERT`,
/// `UPDATE` and `DELETE` on the catalog's tables (`owner::grants`); a signed-in manager's
/// token makes a new current snapshot (`paydesk_catalog_put` for an import,
/// `paydesk_catalog_barcode` for one barcode, refused when another item has it), logged in
/// `staff_log`; a desk's outbox brings its catalog only into a shop that has none
/// (`paydesk_seed_catalog`), else it is refused in `push_refusals`. Writes take turns on the
/// owner-only row `catalog_turn`; `paydesk_catalog_make` (the shared part) is not granted to
/// desks.
pub const AUTHORITY: &str = r"
-- Catalog writes take turns on this row (owner-only: a desk can neither lock nor hold it).
CREATE TABLE catalog_turn (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row));
INSERT INTO catalog_turn VALUES (true);

-- A snapshot made online with a manager's authority has no outbox row; it names the manager.
ALTER TABLE catalog_snapshots ALTER COLUMN desk_seq DROP NOT NULL;
ALTER TABLE catalog_snapshots ADD COLUMN manager text;

-- Makes the variants the shop's current snapshot (the caller holds the turn). Not granted to
-- desks: they reach it through paydesk_catalog_put, paydesk_catalog_barcode and
-- paydesk_seed_catalog. PDK09: one barcode on two items (the message holds both ids).
CREATE FUNCTION paydesk_catalog_make(p_desk text, p_seq bigint, p_digest text,
    p_at timestamptz, p_manager text, p_ids text[], p_names text[], p_prices numeric[],
    p_currencies text[], p_barcodes text[]) RETURNS bigint LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_snapshot bigint;
    v_twice record;
BEGIN
    SELECT b, array_agg(i ORDER BY i) AS ids INTO v_twice
        FROM unnest(p_barcodes, p_ids) AS u(b, i)
        WHERE b IS NOT NULL GROUP BY b HAVING count(*) > 1 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'the barcode % is on % and %', v_twice.b, v_twice.ids[1], v_twice.ids[2]
            USING ERRCODE = 'PDK09';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(p_barcodes) AS b WHERE b !~ '^[0-9]{4,14}$')
        OR EXISTS (SELECT 1 FROM unnest(p_currencies) AS c WHERE c !~ '^[A-Z]{3}$')
    THEN
        RAISE EXCEPTION 'a barcode or currency no desk can read' USING ERRCODE = '22023';
    END IF;
    INSERT INTO catalog_snapshots (desk_id, desk_seq, digest, variants, made_at, pushed_at,
        manager)
    VALUES (p_desk, p_seq, p_digest, coalesce(cardinality(p_ids), 0), p_at, now(), p_manager)
    RETURNING snapshot INTO v_snapshot;
    INSERT INTO catalog_variants (snapshot, variant_id, name, unit_price, currency, barcode)
    SELECT v_snapshot, * FROM unnest(p_ids, p_names, p_prices, p_currencies, p_barcodes);
    INSERT INTO catalog_current (snapshot) VALUES (v_snapshot)
        ON CONFLICT (only_row) DO UPDATE SET snapshot = EXCLUDED.snapshot;
    DELETE FROM catalog_variants WHERE snapshot <> v_snapshot;
    PERFORM pg_notify('paydesk_catalog', v_snapshot::text);
    RETURN v_snapshot;
END $$;

-- A whole catalog from a signed-in manager (an import on a joined desk): the new current
-- snapshot, logged in staff_log.
CREATE FUNCTION paydesk_catalog_put(p_desk text, p_token text, p_digest text, p_ids text[],
    p_names text[], p_prices numeric[], p_currencies text[], p_barcodes text[])
    RETURNS bigint LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_by staff;
    v_snapshot bigint;
BEGIN
    v_by := paydesk_manager_of(p_desk, p_token);
    PERFORM 1 FROM catalog_turn FOR UPDATE;
    v_snapshot := paydesk_catalog_make(p_desk, NULL, p_digest, now(), v_by.name, p_ids,
        p_names, p_prices, p_currencies, p_barcodes);
    INSERT INTO staff_log (desk_id, manager, action, subject)
    VALUES (p_desk, v_by.name, 'catalog import',
        format('%s items', coalesce(cardinality(p_ids), 0)));
    RETURN v_snapshot;
END $$;

-- One item's barcode set (or, NULL, taken away) by a signed-in manager, on the current
-- catalog: a new current snapshot. PDK09: another item has that barcode (the message holds
-- its id, then its name, after the first '|'); PDK10: no such item.
CREATE FUNCTION paydesk_catalog_barcode(p_desk text, p_token text, p_variant text,
    p_barcode text) RETURNS bigint LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_by staff;
    v_current bigint;
    v_holder record;
    v_snapshot bigint;
    v catalog_snapshots%ROWTYPE;
BEGIN
    v_by := paydesk_manager_of(p_desk, p_token);
    PERFORM 1 FROM catalog_turn FOR UPDATE;
    SELECT snapshot INTO v_current FROM catalog_current;
    IF v_current IS NULL OR NOT EXISTS (SELECT 1 FROM catalog_variants
        WHERE snapshot = v_current AND variant_id = p_variant)
    THEN
        RAISE EXCEPTION 'no item %', p_variant USING ERRCODE = 'PDK10';
    END IF;
    SELECT variant_id, name INTO v_holder FROM catalog_variants
        WHERE snapshot = v_current AND barcode = p_barcode AND variant_id <> p_variant;
    IF FOUND THEN
        RAISE EXCEPTION '%|%', v_holder.variant_id, v_holder.name USING ERRCODE = 'PDK09';
    END IF;
    SELECT * INTO v FROM catalog_snapshots WHERE snapshot = v_current;
    SELECT paydesk_catalog_make(p_desk, NULL, 'edit of ' || v.digest, now(), v_by.name,
            array_agg(variant_id ORDER BY variant_id), array_agg(name ORDER BY variant_id),
            array_agg(unit_price ORDER BY variant_id), array_agg(currency ORDER BY variant_id),
            array_agg(CASE WHEN variant_id = p_variant THEN p_barcode ELSE barcode END
                ORDER BY variant_id))
        INTO v_snapshot
        FROM catalog_variants WHERE snapshot = v_current;
    INSERT INTO staff_log (desk_id, manager, action, subject)
    VALUES (p_desk, v_by.name, 'catalog edit',
        format('%s barcode %s', p_variant, coalesce(p_barcode, 'none')));
    RETURN v_snapshot;
END $$;

-- A desk's whole catalog from its outbox: taken only when the shop has no catalog yet (the
-- join that brings a desk's catalog along), else refused (push_refusals) and NULL. A resend
-- finds its snapshot and changes nothing.
CREATE FUNCTION paydesk_seed_catalog(p_desk text, p_seq bigint, p_digest text,
    p_at timestamptz, p_ids text[], p_names text[], p_prices numeric[], p_currencies text[],
    p_barcodes text[]) RETURNS TABLE (o_snapshot bigint, o_new boolean) LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
    v_snapshot bigint;
BEGIN
    PERFORM paydesk_acting_desk(p_desk);
    PERFORM 1 FROM catalog_turn FOR UPDATE;
    SELECT snapshot INTO v_snapshot FROM catalog_snapshots
        WHERE desk_id = p_desk AND desk_seq = p_seq AND digest = p_digest;
    IF FOUND THEN
        RETURN QUERY SELECT v_snapshot, false;
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM catalog_current) THEN
        INSERT INTO push_refusals (desk_id, kind, detail)
        VALUES (p_desk, 'a catalog pushed by a desk',
            format('%s items; the shop''s catalog changes only with a manager''s sign-in',
                coalesce(cardinality(p_ids), 0)));
        RETURN QUERY SELECT NULL::bigint, false;
        RETURN;
    END IF;
    RETURN QUERY SELECT paydesk_catalog_make(p_desk, p_seq, p_digest, least(p_at, now()),
        NULL, p_ids, p_names, p_prices, p_currencies, p_barcodes), true;
END $$;
";

/// The shop's functions a desk may not call: the parts its public functions share after
/// their checks (`owner::grants` revokes them with the staff's).
pub const INTERNAL_FUNCTIONS: &str = "paydesk_catalog_make(text, bigint, text, timestamptz, \
    text, text[], text[], numeric[], text[], text[])";

/// The SQLSTATE of a barcode that another item has.
pub const BARCODE_TAKEN: &str = "PDK09";
/// The SQLSTATE of a barcode edit of an item the shop's catalog does not have.
pub const NO_ITEM: &str = "PDK10";

/// A catalog as the functions take it: one array per column, by variant id.
struct Columns<'a> {
    ids: Vec<&'a str>,
    names: Vec<&'a str>,
    prices: Vec<Decimal>,
    currencies: Vec<&'a str>,
    barcodes: Vec<Option<&'a str>>,
}

impl<'a> Columns<'a> {
    fn of(variants: &'a [CatalogVariant]) -> Self {
        Columns {
            ids: variants.iter().map(|v| v.id.as_str()).collect(),
            names: variants.iter().map(|v| v.name.as_str()).collect(),
            prices: variants.iter().map(|v| v.unit_price).collect(),
            currencies: variants.iter().map(|v| v.currency.as_str()).collect(),
            barcodes: variants
                .iter()
                .map(|v| v.barcode.as_ref().map(Barcode::as_str))
                .collect(),
        }
    }

    /// Calls `function` with the parameters `first` and then the five columns; its one row.
    async fn call(
        &self,
        shop: &Shop,
        function: &str,
        first: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<tokio_postgres::Row, ShopError> {
        let mut params = first.to_vec();
        params.extend_from_slice(&[
            &self.ids,
            &self.names,
            &self.prices,
            &self.currencies,
            &self.barcodes,
        ]);
        let placeholders: Vec<String> = (1..=params.len()).map(|i| format!("${i}")).collect();
        shop.client()
            .query_one(
                &format!("SELECT * FROM {function}({})", placeholders.join(", ")),
                &params,
            )
            .await
            .map_err(|e| ShopError::from_pg(e, shop.url()))
    }
}

/// Sends the desk's catalog `owed` (its outbox's `catalog` row) to the shop, which takes it
/// only when it has no catalog yet (see [`AUTHORITY`]); edits made offline on a shop's
/// catalog are refused with it. Nothing is deleted from the outbox here.
pub async fn apply_catalog(
    shop: &mut Shop,
    desk_id: &str,
    owed: &CatalogOwed,
) -> Result<CatalogApplied, ShopError> {
    let row = Columns::of(&owed.variants)
        .call(
            shop,
            "paydesk_seed_catalog",
            &[&desk_id, &owed.seq, &digest(&owed.variants), &owed.at],
        )
        .await?;
    Ok(CatalogApplied {
        snapshot: row.get(0),
        made_current: row.get(1),
    })
}

/// Makes `variants` the shop's catalog with the authority of the manager signed in with
/// `token` (an import on a joined desk); the new snapshot.
pub async fn put(
    shop: &Shop,
    desk_id: &str,
    token: &str,
    variants: &[CatalogVariant],
) -> Result<i64, ShopError> {
    let row = Columns::of(variants)
        .call(
            shop,
            "paydesk_catalog_put",
            &[&desk_id, &token, &digest(variants)],
        )
        .await?;
    Ok(row.get(0))
}

/// Gives item `id` of the shop's catalog the barcode `code` (or takes it away) with the
/// authority of the manager signed in with `token`; the new snapshot.
pub async fn set_barcode(
    shop: &Shop,
    desk_id: &str,
    token: &str,
    id: &str,
    code: Option<&Barcode>,
) -> Result<i64, ShopError> {
    let row = shop
        .client()
        .query_one(
            "SELECT paydesk_catalog_barcode($1, $2, $3, $4)",
            &[&desk_id, &token, &id, &code.map(Barcode::as_str)],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(row.get(0))
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
