//! A catalog variant as paydesk knows it locally: the price authority for catalog items on the
//! server, mirrored here so the form can show live totals and catch a currency mismatch.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::Currency;

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
