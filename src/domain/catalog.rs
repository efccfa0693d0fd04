//! A catalog variant as paydesk knows it locally: the price authority for catalog items on the
//! server, mirrored here so the form can show live totals and catch a currency mismatch, with
//! the shop's barcode for it (local only: the API knows nothing of barcodes).

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::Currency;
use super::barcode::Barcode;

/// One sellable variant of the business's catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogVariant {
    /// `productVariantId`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Unit price.
    pub unit_price: Decimal,
    /// Currency of the price.
    pub currency: Currency,
    /// The barcode a scanner reads for it, if the shop gave it one (unique in the catalog).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub barcode: Option<Barcode>,
}

/// How the id of an item the shop added itself begins. Such an item is the shop's own: it has
/// no `productVariantId` on the server, so a sale sends it as a typed item (its name and unit
/// price), never with this id. Every other id is the server's variant, whose price is the
/// server's (an import brings it; the app edits only its name shown and its barcode).
pub const OWN_PREFIX: &str = "own:";

impl CatalogVariant {
    /// Whether this is an item the shop added itself (not a server variant).
    pub fn is_own(&self) -> bool {
        is_own_id(&self.id)
    }
}

/// Whether `id` is the id of an item the shop added itself.
pub fn is_own_id(id: &str) -> bool {
    id.starts_with(OWN_PREFIX)
}

/// Variant ids by barcode: built from the catalog the app holds in memory, so a scan is
/// looked up without touching the database.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BarcodeIndex(HashMap<Barcode, String>);

impl BarcodeIndex {
    /// The index of these variants (the store keeps barcodes unique; should two variants share
    /// one anyway, the smaller id wins, so the answer does not depend on iteration order).
    pub fn of<'a>(variants: impl IntoIterator<Item = &'a CatalogVariant>) -> Self {
        let mut map: HashMap<Barcode, String> = HashMap::new();
        for v in variants {
            if let Some(code) = &v.barcode {
                map.entry(code.clone())
                    .and_modify(|id| {
                        if v.id < *id {
                            id.clone_from(&v.id);
                        }
                    })
                    .or_insert_with(|| v.id.clone());
            }
        }
        BarcodeIndex(map)
    }

    /// The id of the variant with this barcode.
    pub fn variant_id(&self, code: &Barcode) -> Option<&str> {
        self.0.get(code).map(String::as_str)
    }

    /// How many barcodes it knows.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no variant has a barcode.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Looks variants up by id. Implemented by the in-memory catalog the UI holds and by tests.
pub trait CatalogLookup {
    /// The variant with this id, if the local catalog knows it.
    fn variant(&self, id: &str) -> Option<&CatalogVariant>;
}

impl<S: std::hash::BuildHasher> CatalogLookup
    for std::collections::HashMap<String, CatalogVariant, S>
{
    fn variant(&self, id: &str) -> Option<&CatalogVariant> {
        self.get(id)
    }
}

impl CatalogLookup for Vec<CatalogVariant> {
    fn variant(&self, id: &str) -> Option<&CatalogVariant> {
        self.iter().find(|v| v.id == id)
    }
}

impl CatalogLookup for [CatalogVariant] {
    fn variant(&self, id: &str) -> Option<&CatalogVariant> {
        self.iter().find(|v| v.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(id: &str, barcode: Option<&str>) -> CatalogVariant {
        CatalogVariant {
            id: id.into(),
            name: id.into(),
            unit_price: Decimal::ONE,
            currency: Currency::Try,
            barcode: barcode.map(|b| Barcode::parse(b).unwrap()),
        }
    }

    #[test]
    fn the_barcode_index_finds_variants_by_either_form_of_their_code() {
        let catalog = [
            variant("v-pen", Some("4006381333931")),
            variant("v-tissue", Some("036000291452")),
            variant("v-bread", None),
        ];
        let index = BarcodeIndex::of(&catalog);
        assert_eq!(index.len(), 2);
        let find = |text: &str| index.variant_id(&Barcode::parse(text).unwrap());
        assert_eq!(find("4006381333931"), Some("v-pen"));
        assert_eq!(find("0036000291452"), Some("v-tissue"));
        assert_eq!(find("5901234123457"), None);
        // Two variants with one code (a hand-edited file): the same answer every time.
        let clash = [variant("v-b", Some("1234")), variant("v-a", Some("1234"))];
        assert_eq!(
            BarcodeIndex::of(&clash).variant_id(&Barcode::parse("1234").unwrap()),
            Some("v-a")
        );
    }
}
