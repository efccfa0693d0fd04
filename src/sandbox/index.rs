//! The fixture turned into look-up tables once at start, so that a request never scans or
//! clones the fixture: keys by id, variants by id, BINs, each business's providers oldest
//! first, its routing target, and commission tables by provider and family.

use std::collections::HashMap;

use rust_decimal::Decimal;

use super::fixture::{ApiKey, BinEntry, CatalogEntry, Fixture, PosProvider, TestCard};

/// The family name of a provider's catch-all commission table.
pub const ANY_FAMILY: &str = "*";

/// Read-only views of the fixture.
#[derive(Debug)]
pub struct Index {
    keys: HashMap<String, ApiKey>,
    business_names: HashMap<String, String>,
    variants: HashMap<String, CatalogEntry>,
    bins: HashMap<String, BinEntry>,
    providers: HashMap<String, Vec<PosProvider>>,
    routing: HashMap<String, String>,
    commissions: HashMap<(String, String), Vec<(u32, Decimal)>>,
    test_card: Option<TestCard>,
}

impl Index {
    /// Builds the tables (the fixture is assumed validated).
    pub fn new(f: &Fixture) -> Index {
        let mut providers: HashMap<String, Vec<PosProvider>> = HashMap::new();
        for p in &f.pos_providers {
            providers
                .entry(p.business.clone())
                .or_default()
                .push(p.clone());
        }
        for list in providers.values_mut() {
            list.sort_by_key(|p| p.created_order);
        }
        Index {
            keys: f
                .api_keys
                .iter()
                .map(|k| (k.key.clone(), k.clone()))
                .collect(),
            business_names: f
                .businesses
                .iter()
                .map(|b| (b.id.clone(), b.name.clone()))
                .collect(),
            variants: f
                .catalog
                .iter()
                .map(|c| (c.id.clone(), c.clone()))
                .collect(),
            bins: f.bins.iter().map(|b| (b.bin.clone(), b.clone())).collect(),
            providers,
            routing: f
                .routing_rules
                .iter()
                .filter(|r| r.active)
                .map(|r| (r.business.clone(), r.provider.clone()))
                .collect(),
            commissions: f
                .commissions
                .iter()
                .map(|t| {
                    (
                        (t.provider.clone(), t.family.clone()),
                        t.rates.iter().map(|(c, r)| (*c, *r)).collect(),
                    )
                })
                .collect(),
            test_card: f.test_cards.first().cloned(),
        }
    }

    /// The API key with this id.
    pub fn key(&self, key: &str) -> Option<&ApiKey> {
        self.keys.get(key)
    }

    /// A business's display name.
    pub fn business_name(&self, business: &str) -> Option<&str> {
        self.business_names.get(business).map(String::as_str)
    }

    /// A catalog variant of `business` (a variant of another business is not found).
    pub fn variant(&self, business: &str, id: &str) -> Option<&CatalogEntry> {
        self.variants.get(id).filter(|v| v.business == business)
    }

    /// The BIN table row of the first six digits.
    pub fn bin(&self, bin: &str) -> Option<&BinEntry> {
        self.bins.get(bin)
    }

    /// The business's providers, oldest first.
    pub fn providers(&self, business: &str) -> &[PosProvider] {
        self.providers.get(business).map_or(&[], Vec::as_slice)
    }

    /// The provider that tokenizes a card: the active routing rule's provider when it is
    /// active and stores cards, else the oldest active provider that stores cards.
    pub fn card_storage_provider(&self, business: &str) -> Option<&PosProvider> {
        let suitable = |p: &&PosProvider| p.active && p.supports_card_storage;
        let list = self.providers(business);
        self.routing
            .get(business)
            .and_then(|id| list.iter().find(|p| &p.id == id))
            .filter(suitable)
            .or_else(|| list.iter().find(suitable))
    }

    /// The commission table a provider applies to a card family: its own table for the
    /// family, else its `*` table, else none.
    pub fn commissions(&self, provider: &str, family: Option<&str>) -> &[(u32, Decimal)] {
        let own = family.and_then(|f| self.commissions.get(&(provider.to_owned(), f.to_owned())));
        own.or_else(|| {
            self.commissions
                .get(&(provider.to_owned(), ANY_FAMILY.to_owned()))
        })
        .map_or(&[], Vec::as_slice)
    }

    /// The card the pay page is prefilled with.
    pub fn test_card(&self) -> Option<&TestCard> {
        self.test_card.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_storage_provider_follows_the_rule_then_the_oldest_active_storing_one() {
        let mut f = Fixture::shipped();
        let idx = Index::new(&f);
        let biz = "biz_kadikoy_kahve";
        assert_eq!(
            idx.card_storage_provider(biz).map(|p| p.id.as_str()),
            Some("pos_yapikredi_sanal")
        );
        for r in &mut f.routing_rules {
            r.active = false;
        }
        // Older ones exist: one inactive, one without card storage; both are skipped.
        assert_eq!(
            Index::new(&f)
                .card_storage_provider(biz)
                .map(|p| p.id.as_str()),
            Some("pos_garanti_sanal")
        );
        assert_eq!(idx.card_storage_provider("biz_nisantasi_butik"), None);
    }

    #[test]
    fn families_without_a_table_use_the_catch_all() {
        let idx = Index::new(&Fixture::shipped());
        assert_eq!(
            idx.commissions("pos_garanti_sanal", Some("Bonus")).len(),
            12
        );
        assert_eq!(idx.commissions("pos_garanti_sanal", Some("World")).len(), 1);
        assert_eq!(idx.commissions("pos_garanti_sanal", None).len(), 1);
        assert!(idx.variant("biz_nisantasi_butik", "var_simit").is_none());
        assert!(idx.variant("biz_kadikoy_kahve", "var_simit").is_some());
    }
}
