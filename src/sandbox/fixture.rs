//! The sandbox's world as data: businesses, API keys, catalog, POS providers, routing rules,
//! the BIN table, commission tables and test cards, read from TOML.
//!
//! A fixture given with `--fixture` replaces the shipped one entirely, so a developer can
//! model their own business. Money and rates are exact decimals written as strings (a TOML
//! float would be a binary float, which is never allowed on a money path); integers are
//! accepted too. [`Fixture::validate`] checks every cross-reference before a server starts.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer};
use zeroize::Zeroizing;

use crate::api::endpoints;
use crate::domain::{Currency, PosSubType, PosType};

/// The whole fixture file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// Businesses (merchants).
    #[serde(default)]
    pub businesses: Vec<Business>,
    /// API keys, each bound to one business.
    #[serde(default)]
    pub api_keys: Vec<ApiKey>,
    /// Catalog variants (the price authority for catalog items).
    #[serde(default)]
    pub catalog: Vec<CatalogEntry>,
    /// POS providers of the businesses.
    #[serde(default)]
    pub pos_providers: Vec<PosProvider>,
    /// Routing rules: which provider a business's card traffic goes to.
    #[serde(default)]
    pub routing_rules: Vec<RoutingRule>,
    /// BIN table.
    #[serde(default)]
    pub bins: Vec<BinEntry>,
    /// Commission tables per POS provider and card family.
    #[serde(default)]
    pub commissions: Vec<CommissionTable>,
    /// Public test cards; the pay page is prefilled with the first.
    #[serde(default)]
    pub test_cards: Vec<TestCard>,
}

/// A business (merchant).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Business {
    /// Identifier referenced by keys, catalog entries and providers.
    pub id: String,
    /// Display name.
    pub name: String,
}

/// An API key secret: zeroized on drop, never shown by `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Zeroizing<String>);

impl Secret {
    /// Wraps a secret.
    pub fn new(text: impl Into<String>) -> Self {
        Self(Zeroizing::new(text.into()))
    }

    /// The secret text (for signing and verifying only).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Secret(Zeroizing::new(String::deserialize(d)?)))
    }
}

/// An API key of the fixture.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiKey {
    /// The `X-Api-Key` value.
    pub key: String,
    /// The signing secret.
    pub secret: Secret,
    /// The business the key acts for.
    pub business: String,
    /// Scopes: `collection:link`, `payment:sale`, `payment:inquiry`.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Upper bound of a link's `amount` (any currency), if any.
    #[serde(default, deserialize_with = "de_opt_decimal")]
    pub amount_upper_bound: Option<Decimal>,
    /// Per-key link settings (`link.max_items`).
    #[serde(default)]
    pub link: LinkLimits,
}

/// The `link.*` settings of an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkLimits {
    /// `link.max_items`: the most `items` entries a link may carry.
    #[serde(default)]
    pub max_items: Option<u32>,
}

/// A catalog variant.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogEntry {
    /// `productVariantId`.
    pub id: String,
    /// Owning business.
    pub business: String,
    /// Display name.
    pub name: String,
    /// Unit price.
    #[serde(deserialize_with = "de_decimal")]
    pub unit_price: Decimal,
    /// Currency of the price.
    pub currency: Currency,
}

/// A POS provider of a business.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PosProvider {
    /// Identifier.
    pub id: String,
    /// Owning business.
    pub business: String,
    /// Display name.
    pub name: String,
    /// Whether it takes traffic.
    #[serde(default = "yes")]
    pub active: bool,
    /// Creation order: lower is older.
    pub created_order: u32,
    /// Whether it can tokenize and store cards.
    #[serde(default)]
    pub supports_card_storage: bool,
    /// POS type.
    #[serde(rename = "type", default)]
    pub pos_type: PosType,
    /// POS sub-type.
    #[serde(default)]
    pub sub_type: PosSubType,
}

/// A routing rule: the business's card traffic goes to `provider`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingRule {
    /// The business.
    pub business: String,
    /// The provider its traffic goes to.
    pub provider: String,
    /// Whether the rule applies.
    #[serde(default = "yes")]
    pub active: bool,
}

/// One BIN of the BIN table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BinEntry {
    /// The first six digits of the card number.
    pub bin: String,
    /// Issuing bank.
    pub bank: String,
    /// Card brand (VISA, MASTERCARD, TROY, ...).
    pub brand: String,
    /// Card family (program): Bonus, World, Maximum, ...
    pub family: String,
    /// CREDIT, DEBIT, PREPAID.
    pub card_type: String,
}

/// The installment counts a provider offers a card family, with their commission rates.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommissionTable {
    /// The POS provider.
    pub provider: String,
    /// The card family, or `*` for every family the provider has no own table for.
    pub family: String,
    /// Installment count (as a TOML key, `"3"`) → commission rate in percent.
    #[serde(deserialize_with = "de_rates")]
    pub rates: BTreeMap<u32, Decimal>,
}

/// A public test card for the pay page.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCard {
    /// What the pay page shows next to it.
    pub label: String,
    /// Card number.
    pub number: String,
    /// MM.
    pub expiry_month: String,
    /// YYYY.
    pub expiry_year: String,
    /// Security code.
    pub cvv: String,
}

impl fmt::Debug for TestCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestCard")
            .field("label", &self.label)
            .field("number", &"***")
            .finish_non_exhaustive()
    }
}

/// A fixture that cannot be read or does not hold together.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// The file could not be read.
    #[error("cannot read fixture {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The TOML is malformed or a field has the wrong shape.
    #[error("fixture is not valid TOML for the sandbox: {0}")]
    Parse(#[from] toml::de::Error),
    /// A reference or a value is wrong.
    #[error("fixture is inconsistent: {0}")]
    Invalid(String),
}

fn yes() -> bool {
    true
}

impl Fixture {
    /// The fixture shipped with paydesk: "Kadıköy Kahve Evi" and a second business.
    pub fn shipped() -> Fixture {
        Fixture::from_toml(include_str!("../../assets/sandbox/fixture.toml"))
            .expect("the shipped fixture parses and validates (unit-tested)")
    }

    /// Reads and validates a TOML fixture.
    pub fn from_toml(text: &str) -> Result<Fixture, FixtureError> {
        let fixture: Fixture = toml::from_str(text)?;
        fixture.validate()?;
        Ok(fixture)
    }

    /// Reads and validates a fixture file.
    pub fn from_path(path: &Path) -> Result<Fixture, FixtureError> {
        let text = std::fs::read_to_string(path).map_err(|source| FixtureError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Fixture::from_toml(&text)
    }

    /// The API key with this id.
    pub fn api_key(&self, key: &str) -> Option<&ApiKey> {
        self.api_keys.iter().find(|k| k.key == key)
    }

    /// Checks unique ids, every reference, BIN shapes, scopes and rates.
    pub fn validate(&self) -> Result<(), FixtureError> {
        let bad = |m: String| Err(FixtureError::Invalid(m));
        let businesses = unique("business", self.businesses.iter().map(|b| b.id.as_str()))?;
        let known_business = |what: &str, id: &str, b: &str| {
            if businesses.contains(b) {
                Ok(())
            } else {
                Err(FixtureError::Invalid(format!(
                    "{what} `{id}` names unknown business `{b}`"
                )))
            }
        };
        unique("api key", self.api_keys.iter().map(|k| k.key.as_str()))?;
        for k in &self.api_keys {
            known_business("api key", &k.key, &k.business)?;
            if let Some(s) = k
                .scopes
                .iter()
                .find(|s| !endpoints::SCOPES.contains(&s.as_str()))
            {
                return bad(format!("api key `{}` has unknown scope `{s}`", k.key));
            }
            if k.amount_upper_bound.is_some_and(|b| b <= Decimal::ZERO) {
                return bad(format!(
                    "api key `{}`: amount_upper_bound must be > 0",
                    k.key
                ));
            }
        }
        unique(
            "catalog variant",
            self.catalog.iter().map(|c| c.id.as_str()),
        )?;
        for c in &self.catalog {
            known_business("catalog variant", &c.id, &c.business)?;
            let too_precise = c.unit_price.normalize().scale() > c.currency.minor_units();
            if c.unit_price <= Decimal::ZERO || too_precise {
                return bad(format!(
                    "catalog variant `{}`: unit_price {} is not a positive {} amount",
                    c.id, c.unit_price, c.currency
                ));
            }
        }
        let providers = unique(
            "POS provider",
            self.pos_providers.iter().map(|p| p.id.as_str()),
        )?;
        for p in &self.pos_providers {
            known_business("POS provider", &p.id, &p.business)?;
        }
        let mut routed = HashSet::new();
        for r in &self.routing_rules {
            known_business("routing rule", &r.provider, &r.business)?;
            let Some(p) = self.pos_providers.iter().find(|p| p.id == r.provider) else {
                return bad(format!(
                    "routing rule names unknown provider `{}`",
                    r.provider
                ));
            };
            if p.business != r.business {
                return bad(format!(
                    "routing rule of `{}` names provider `{}` of another business",
                    r.business, r.provider
                ));
            }
            if r.active && !routed.insert(r.business.as_str()) {
                return bad(format!(
                    "business `{}` has two active routing rules",
                    r.business
                ));
            }
        }
        unique("BIN", self.bins.iter().map(|b| b.bin.as_str()))?;
        if let Some(b) = self
            .bins
            .iter()
            .find(|b| b.bin.len() != 6 || !b.bin.bytes().all(|c| c.is_ascii_digit()))
        {
            return bad(format!("BIN `{}` is not six digits", b.bin));
        }
        let mut tables = HashSet::new();
        for t in &self.commissions {
            if !providers.contains(t.provider.as_str()) {
                return bad(format!(
                    "commission table names unknown provider `{}`",
                    t.provider
                ));
            }
            if !tables.insert((t.provider.as_str(), t.family.as_str())) {
                return bad(format!(
                    "two commission tables for provider `{}` and family `{}`",
                    t.provider, t.family
                ));
            }
            for (count, rate) in &t.rates {
                if !(1..=36).contains(count)
                    || *rate < Decimal::ZERO
                    || *rate >= Decimal::ONE_HUNDRED
                {
                    return bad(format!(
                        "commission table `{}`/`{}`: count {count} rate {rate} out of range",
                        t.provider, t.family
                    ));
                }
            }
        }
        Ok(())
    }
}

fn unique<'a>(
    what: &str,
    ids: impl Iterator<Item = &'a str>,
) -> Result<HashSet<&'a str>, FixtureError> {
    let mut seen = HashSet::new();
    for id in ids {
        if id.trim().is_empty() {
            return Err(FixtureError::Invalid(format!("a {what} has an empty id")));
        }
        if !seen.insert(id) {
            return Err(FixtureError::Invalid(format!(
                "{what} `{id}` appears twice"
            )));
        }
    }
    Ok(seen)
}

/// An exact decimal from a TOML string or integer; a TOML float is refused.
struct DecimalText(Decimal);

impl<'de> Deserialize<'de> for DecimalText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = DecimalText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a decimal written as a string, e.g. \"85.00\", or an integer")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<DecimalText, E> {
                v.trim()
                    .parse::<Decimal>()
                    .map(DecimalText)
                    .map_err(|_| E::custom(format!("`{v}` is not a decimal")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<DecimalText, E> {
                Ok(DecimalText(Decimal::from(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<DecimalText, E> {
                Ok(DecimalText(Decimal::from(v)))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<DecimalText, E> {
                Err(E::custom(format!(
                    "{v} is a float; write money and rates as strings, e.g. \"{v}\""
                )))
            }
        }
        d.deserialize_any(V)
    }
}

fn de_decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    DecimalText::deserialize(d).map(|t| t.0)
}

fn de_opt_decimal<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    Ok(Option::<DecimalText>::deserialize(d)?.map(|t| t.0))
}

fn de_rates<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<u32, Decimal>, D::Error> {
    let raw = BTreeMap::<String, DecimalText>::deserialize(d)?;
    raw.into_iter()
        .map(|(k, v)| {
            k.trim()
                .parse::<u32>()
                .map(|count| (count, v.0))
                .map_err(|_| serde::de::Error::custom(format!("`{k}` is not an installment count")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[test]
    fn the_shipped_fixture_has_what_the_brief_promises() {
        let f = Fixture::shipped();
        let demo = f.api_key(super::super::DEMO_API_KEY).unwrap();
        assert_eq!(demo.secret.expose(), super::super::DEMO_API_SECRET);
        assert_eq!(demo.scopes.len(), 3);
        assert_eq!(demo.amount_upper_bound, Some(Decimal::from(250_000)));
        assert_eq!(demo.link.max_items, Some(50));
        for scope in endpoints::SCOPES {
            assert!(
                f.api_keys
                    .iter()
                    .any(|k| k.business == demo.business && !k.scopes.iter().any(|s| s == scope)),
                "no key lacking {scope}"
            );
        }
        let other = f.businesses.iter().find(|b| b.id != demo.business).unwrap();
        assert!(
            !f.pos_providers
                .iter()
                .any(|p| p.business == other.id && p.supports_card_storage)
        );
        assert!(f.api_keys.iter().any(|k| k.business == other.id));
        assert!(f.catalog.iter().any(|c| c.currency == Currency::Eur));
        assert!(f.catalog.iter().any(|c| c.business == other.id));
        for family in ["Bonus", "World", "Maximum", "Axess", "CardFinans", "Paraf"] {
            assert!(f.bins.iter().any(|b| b.family == family), "{family}");
        }
        assert_eq!(
            f.bins
                .iter()
                .find(|b| b.bin == "979200")
                .map(|b| b.brand.as_str()),
            Some("TROY")
        );
        let bonus = f.commissions.iter().find(|t| t.family == "Bonus").unwrap();
        assert_eq!(
            bonus.rates.keys().copied().collect::<Vec<_>>(),
            (1..=12).collect::<Vec<_>>()
        );
        assert_eq!(bonus.rates[&3], Decimal::from_str("7.19").unwrap());
        assert!(format!("{demo:?}").contains("***"));
        assert!(!format!("{demo:?}").contains(super::super::DEMO_API_SECRET));
    }

    #[test]
    fn floats_for_money_are_refused_with_a_hint() {
        let text = r#"
            [[businesses]]
            id = "b"
            name = "B"
            [[catalog]]
            id = "v"
            business = "b"
            name = "V"
            unit_price = 85.5
            currency = "TRY"
        "#;
        let err = Fixture::from_toml(text).unwrap_err().to_string();
        assert!(err.contains("write money and rates as strings"), "{err}");
    }

    #[test]
    fn broken_references_are_named() {
        let cases = [
            (
                "[[api_keys]]\nkey='k'\nsecret='s'\nbusiness='nope'",
                "unknown business `nope`",
            ),
            (
                "[[businesses]]\nid='b'\nname='B'\n[[api_keys]]\nkey='k'\nsecret='s'\nbusiness='b'\nscopes=['payment:everything']",
                "unknown scope",
            ),
            (
                "[[bins]]\nbin='12345'\nbank='x'\nbrand='x'\nfamily='x'\ncard_type='CREDIT'",
                "not six digits",
            ),
            (
                "[[businesses]]\nid='b'\nname='B'\n[[catalog]]\nid='v'\nbusiness='b'\nname='V'\nunit_price='1.005'\ncurrency='TRY'",
                "is not a positive TRY amount",
            ),
            (
                "[[commissions]]\nprovider='p'\nfamily='*'\nrates={ '1' = '2.0' }",
                "unknown provider `p`",
            ),
        ];
        for (text, expected) in cases {
            let err = Fixture::from_toml(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
