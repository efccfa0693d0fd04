//! Cart items of a payment link: the row as the form holds it ([`ItemDraft`]), the validated
//! wire item ([`LinkItem`]) and the line total the form shows live.
//!
//! The spec knows two kinds. A catalog item sends only `productVariantId` and `quantity`: the
//! server reads the price from its variant record, so no price is ever sent. Locally the
//! catalog mirror gives the line total when it knows the variant; when it does not, the total
//! is unknown and the server is the judge. A free (non-catalog) item sends `name`,
//! `unitPrice` (> 0) and `quantity`, with an optional `specialNote`.
//!
//! Quantity: a whole number ≥ 1; an empty field means 1 (the spec's default), and 1 is then
//! sent explicitly. Names and notes are trimmed and at most [`MAX_TEXT_CHARS`] characters
//! (an assumption: the spec states no length bounds).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::catalog::CatalogLookup;
use super::codes::Currency;
use super::errors::{Field, FieldError, FieldProblem, ItemField};
use super::money::parse_amount;

/// The most characters of a free-text field (description, item name and note, card texts).
/// The spec states no bound; this is our assumption.
pub const MAX_TEXT_CHARS: usize = 255;

/// What a row is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ItemKind {
    /// A variant of the catalog; the server prices it.
    Catalog {
        /// `productVariantId`.
        variant_id: String,
    },
    /// A free item, priced here.
    Free {
        /// `name`.
        name: String,
        /// `unitPrice` as typed.
        unit_price: String,
        /// `specialNote`; empty means none.
        note: String,
    },
}

/// The wire item of catalog row `id`, `quantity` of it: the shop's own item (`own`) as a
/// typed item, its name and unit price (it has no variant on the server); a server variant
/// by its id alone, which the server prices.
fn wire_item(id: &str, own: Option<&super::CatalogVariant>, quantity: u32) -> LinkItem {
    match own {
        Some(v) => LinkItem::Free {
            name: v.name.clone(),
            unit_price: v.unit_price,
            quantity,
            special_note: None,
        },
        None => LinkItem::Catalog {
            product_variant_id: id.to_owned(),
            quantity,
        },
    }
}

/// One item row as the form holds it (text as typed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemDraft {
    /// Catalog or free.
    pub kind: ItemKind,
    /// Quantity as typed; empty means 1.
    pub quantity: String,
}

/// A validated item, as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum LinkItem {
    /// `{"productVariantId": "...", "quantity": 2}`: no price.
    Catalog {
        /// `productVariantId`.
        product_variant_id: String,
        /// `quantity` (≥ 1).
        quantity: u32,
    },
    /// `{"name": "...", "unitPrice": 75.00, "quantity": 2, "specialNote": "..."}`.
    Free {
        /// `name`.
        name: String,
        /// `unitPrice` (> 0, at the currency's scale).
        #[serde(with = "crate::domain::wire_format::amount")]
        unit_price: Decimal,
        /// `quantity` (≥ 1).
        quantity: u32,
        /// `specialNote`, omitted when none.
        #[serde(skip_serializing_if = "Option::is_none")]
        special_note: Option<String>,
    },
}

impl LinkItem {
    /// The quantity.
    pub fn quantity(&self) -> u32 {
        match self {
            LinkItem::Catalog { quantity, .. } | LinkItem::Free { quantity, .. } => *quantity,
        }
    }
}

/// A valid row and its line total (`None` when the local catalog does not know the variant).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidItem {
    /// The wire item.
    pub item: LinkItem,
    /// Unit price × quantity, when known.
    pub line_total: Option<Decimal>,
}

impl ItemDraft {
    /// A catalog row.
    pub fn catalog(variant_id: impl Into<String>, quantity: impl Into<String>) -> Self {
        ItemDraft {
            kind: ItemKind::Catalog {
                variant_id: variant_id.into(),
            },
            quantity: quantity.into(),
        }
    }

    /// A free row without a note.
    pub fn free(
        name: impl Into<String>,
        unit_price: impl Into<String>,
        quantity: impl Into<String>,
    ) -> Self {
        ItemDraft {
            kind: ItemKind::Free {
                name: name.into(),
                unit_price: unit_price.into(),
                note: String::new(),
            },
            quantity: quantity.into(),
        }
    }

    /// The same row with a note (free rows only; a catalog row is returned unchanged).
    #[must_use]
    pub fn with_note(mut self, text: impl Into<String>) -> Self {
        if let ItemKind::Free { note, .. } = &mut self.kind {
            *note = text.into();
        }
        self
    }

    /// The quantity: empty is 1; otherwise a whole number ≥ 1.
    pub fn parse_quantity(&self) -> Result<u32, FieldProblem> {
        let t = self.quantity.trim();
        if t.is_empty() {
            return Ok(1);
        }
        let (negative, digits) = match t.strip_prefix(['-', '−']) {
            Some(rest) => (true, rest.trim_start()),
            None => (false, t),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(FieldProblem::NotAnInteger);
        }
        if negative || digits.bytes().all(|b| b == b'0') {
            return Err(FieldProblem::QuantityBelowOne);
        }
        digits.parse::<u32>().map_err(|_| FieldProblem::TooLarge)
    }

    /// Validates the row (`row` is its 0-based index) for a link in `currency`. Returns every
    /// problem of the row.
    pub fn validate(
        &self,
        row: usize,
        currency: Currency,
        catalog: &dyn CatalogLookup,
    ) -> Result<ValidItem, Vec<FieldError>> {
        let at = |field| Field::Item { row, field };
        let mut errors = Vec::new();
        let quantity = self
            .parse_quantity()
            .map_err(|p| errors.push(FieldError::new(at(ItemField::Quantity), p)))
            .ok();
        let priced = match &self.kind {
            ItemKind::Catalog { variant_id } => {
                let id = variant_id.trim();
                let mut price = None;
                if id.is_empty() {
                    errors.push(FieldError::new(
                        at(ItemField::Variant),
                        FieldProblem::Required,
                    ));
                } else if let Some(v) = catalog.variant(id) {
                    if v.currency == currency {
                        price = Some(v.unit_price);
                    } else {
                        errors.push(FieldError::new(
                            at(ItemField::Variant),
                            FieldProblem::CurrencyMismatch {
                                item: v.currency,
                                link: currency,
                            },
                        ));
                    }
                }
                let own = catalog.variant(id).filter(|v| v.is_own());
                if own.is_none() && super::catalog::is_own_id(id) {
                    // The shop's own item, gone from the catalog: nothing to send for it.
                    errors.push(FieldError::new(
                        at(ItemField::Variant),
                        FieldProblem::Required,
                    ));
                }
                quantity.map(|q| (wire_item(id, own, q), price))
            }
            ItemKind::Free {
                name,
                unit_price,
                note,
            } => {
                let name = name.trim();
                if name.is_empty() {
                    errors.push(FieldError::new(at(ItemField::Name), FieldProblem::Required));
                } else if name.chars().count() > MAX_TEXT_CHARS {
                    errors.push(FieldError::new(
                        at(ItemField::Name),
                        FieldProblem::TooLong {
                            max: MAX_TEXT_CHARS,
                        },
                    ));
                }
                let price = match parse_amount(unit_price, currency) {
                    Err(super::money::AmountError::Empty) => {
                        errors.push(FieldError::new(
                            at(ItemField::UnitPrice),
                            FieldProblem::Required,
                        ));
                        None
                    }
                    Err(e) => {
                        errors.push(FieldError::new(at(ItemField::UnitPrice), e));
                        None
                    }
                    Ok(p) if p.is_zero() => {
                        errors.push(FieldError::new(
                            at(ItemField::UnitPrice),
                            FieldProblem::NotPositive,
                        ));
                        None
                    }
                    Ok(p) => Some(p),
                };
                let note = note.trim();
                if note.chars().count() > MAX_TEXT_CHARS {
                    errors.push(FieldError::new(
                        at(ItemField::Note),
                        FieldProblem::TooLong {
                            max: MAX_TEXT_CHARS,
                        },
                    ));
                }
                match (price, quantity) {
                    (Some(p), Some(q)) => Some((
                        LinkItem::Free {
                            name: name.to_owned(),
                            unit_price: p,
                            quantity: q,
                            special_note: (!note.is_empty()).then(|| note.to_owned()),
                        },
                        Some(p),
                    )),
                    _ => None,
                }
            }
        };
        match priced {
            Some((item, price)) if errors.is_empty() => {
                let line_total = match price {
                    Some(p) => Some(p.checked_mul(Decimal::from(item.quantity())).ok_or_else(
                        || {
                            vec![FieldError::new(
                                at(ItemField::Quantity),
                                FieldProblem::TooLarge,
                            )]
                        },
                    )?),
                    None => None,
                };
                Ok(ValidItem { item, line_total })
            }
            _ => Err(errors),
        }
    }

    /// The line total when the row is valid and its price known; `None` otherwise.
    pub fn line_total(&self, currency: Currency, catalog: &dyn CatalogLookup) -> Option<Decimal> {
        self.validate(0, currency, catalog)
            .ok()
            .and_then(|v| v.line_total)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::str::FromStr;

    use super::*;
    use crate::domain::catalog::CatalogVariant;
    use crate::domain::money::AmountError;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    fn catalog() -> HashMap<String, CatalogVariant> {
        [
            CatalogVariant {
                id: "v-latte".into(),
                name: "Latte".into(),
                unit_price: dec("85.50"),
                currency: Currency::Try,
                barcode: None,
            },
            CatalogVariant {
                id: "v-euro-mug".into(),
                name: "Mug".into(),
                unit_price: dec("12.00"),
                currency: Currency::Eur,
                barcode: None,
            },
        ]
        .into_iter()
        .map(|v| (v.id.clone(), v))
        .collect()
    }

    #[test]
    fn valid_rows_give_the_exact_wire_item_and_line_total() {
        let cat = catalog();
        let cases: Vec<(ItemDraft, &str, Option<&str>)> = vec![
            (
                ItemDraft::free("Filter coffee", "75", "2"),
                r#"{"name":"Filter coffee","unitPrice":75.00,"quantity":2}"#,
                Some("150.00"),
            ),
            (
                ItemDraft::free("  Simit ", "12,5", "").with_note(" susamlı "),
                r#"{"name":"Simit","unitPrice":12.50,"quantity":1,"specialNote":"susamlı"}"#,
                Some("12.50"),
            ),
            (
                ItemDraft::free("Tea", "7.25", " 3 ").with_note("   "),
                r#"{"name":"Tea","unitPrice":7.25,"quantity":3}"#,
                Some("21.75"),
            ),
            (
                ItemDraft::catalog(" v-latte ", "2"),
                r#"{"productVariantId":"v-latte","quantity":2}"#,
                Some("171.00"),
            ),
            (
                ItemDraft::catalog("v-unknown", ""),
                r#"{"productVariantId":"v-unknown","quantity":1}"#,
                None,
            ),
        ];
        for (draft, json, total) in cases {
            let v = draft
                .validate(0, Currency::Try, &cat)
                .unwrap_or_else(|e| panic!("{draft:?}: {e:?}"));
            assert_eq!(serde_json::to_string(&v.item).unwrap(), json);
            assert_eq!(v.line_total, total.map(dec), "{draft:?}");
            assert_eq!(draft.line_total(Currency::Try, &cat), total.map(dec));
        }
    }

    #[test]
    fn invalid_rows_name_the_exact_field_and_problem() {
        let cat = catalog();
        let at = |field| Field::Item { row: 3, field };
        let cases: Vec<(ItemDraft, Vec<(ItemField, FieldProblem)>)> = vec![
            (
                ItemDraft::free("Tea", "5", "0"),
                vec![(ItemField::Quantity, FieldProblem::QuantityBelowOne)],
            ),
            (
                ItemDraft::free("Tea", "5", "-2"),
                vec![(ItemField::Quantity, FieldProblem::QuantityBelowOne)],
            ),
            (
                ItemDraft::free("Tea", "5", "1.5"),
                vec![(ItemField::Quantity, FieldProblem::NotAnInteger)],
            ),
            (
                ItemDraft::free("Tea", "5", "iki"),
                vec![(ItemField::Quantity, FieldProblem::NotAnInteger)],
            ),
            (
                ItemDraft::free("Tea", "5", "99999999999"),
                vec![(ItemField::Quantity, FieldProblem::TooLarge)],
            ),
            (
                ItemDraft::free("", "5", "1"),
                vec![(ItemField::Name, FieldProblem::Required)],
            ),
            (
                ItemDraft::free("Tea", "", "1"),
                vec![(ItemField::UnitPrice, FieldProblem::Required)],
            ),
            (
                ItemDraft::free("Tea", "0", "1"),
                vec![(ItemField::UnitPrice, FieldProblem::NotPositive)],
            ),
            (
                ItemDraft::free("Tea", "-5", "1"),
                vec![(
                    ItemField::UnitPrice,
                    FieldProblem::Amount(AmountError::Negative),
                )],
            ),
            (
                ItemDraft::free("Tea", "5.123", "1"),
                vec![(
                    ItemField::UnitPrice,
                    FieldProblem::Amount(AmountError::Ambiguous {
                        text: "5.123".into(),
                    }),
                )],
            ),
            (
                ItemDraft::free("x".repeat(256), "5", "1"),
                vec![(ItemField::Name, FieldProblem::TooLong { max: 255 })],
            ),
            (
                ItemDraft::free("Tea", "5", "1").with_note("n".repeat(256)),
                vec![(ItemField::Note, FieldProblem::TooLong { max: 255 })],
            ),
            (
                ItemDraft::free(" ", "0", "0"),
                vec![
                    (ItemField::Quantity, FieldProblem::QuantityBelowOne),
                    (ItemField::Name, FieldProblem::Required),
                    (ItemField::UnitPrice, FieldProblem::NotPositive),
                ],
            ),
            (
                ItemDraft::catalog("  ", "1"),
                vec![(ItemField::Variant, FieldProblem::Required)],
            ),
            (
                ItemDraft::catalog("v-euro-mug", "1"),
                vec![(
                    ItemField::Variant,
                    FieldProblem::CurrencyMismatch {
                        item: Currency::Eur,
                        link: Currency::Try,
                    },
                )],
            ),
        ];
        for (draft, want) in cases {
            let got = draft.validate(3, Currency::Try, &cat).unwrap_err();
            let want: Vec<_> = want
                .into_iter()
                .map(|(f, p)| FieldError::new(at(f), p))
                .collect();
            assert_eq!(got, want, "{draft:?}");
            assert_eq!(draft.line_total(Currency::Try, &cat), None);
        }
    }

    #[test]
    fn a_catalog_row_in_the_variant_currency_is_valid() {
        let cat = catalog();
        let v = ItemDraft::catalog("v-euro-mug", "3")
            .validate(0, Currency::Eur, &cat)
            .unwrap();
        assert_eq!(v.line_total, Some(dec("36.00")));
    }

    #[test]
    fn drafts_survive_a_serde_round_trip_for_the_saved_form() {
        let d = ItemDraft::free("Tea", "7,5", "2").with_note("hot");
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(serde_json::from_str::<ItemDraft>(&json).unwrap(), d);
    }
}
