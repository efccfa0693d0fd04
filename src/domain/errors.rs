//! Field errors: which form field is wrong and why, in words for people (Turkish and English,
//! from the domain's catalogue, [`super::messages::DomainMessage`]) and in the wire's own field
//! names for logs and the CLI.
//!
//! Validation never stops at the first problem: the forms show every wrong field at once,
//! so a draft's `validate` returns a [`FieldErrors`] list.

use std::fmt;

use rust_decimal::Decimal;

use super::codes::{Currency, UnknownCode};
use super::messages::DomainMessage;
use super::money::{AmountError, format_amount};
use crate::lang::Lang;

/// A field of an item row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemField {
    /// `productVariantId`.
    Variant,
    /// `name`.
    Name,
    /// `unitPrice`.
    UnitPrice,
    /// `quantity`.
    Quantity,
    /// `specialNote`.
    Note,
}

impl ItemField {
    /// Every item field, in form order.
    pub const ALL: [ItemField; 5] = [
        ItemField::Variant,
        ItemField::Name,
        ItemField::UnitPrice,
        ItemField::Quantity,
        ItemField::Note,
    ];

    /// The wire name inside an item.
    pub fn wire_name(self) -> &'static str {
        match self {
            ItemField::Variant => "productVariantId",
            ItemField::Name => "name",
            ItemField::UnitPrice => "unitPrice",
            ItemField::Quantity => "quantity",
            ItemField::Note => "specialNote",
        }
    }

    /// The label, in lower case, as it follows "Item 3 –".
    pub fn label(self, lang: Lang) -> &'static str {
        let m = match self {
            ItemField::Variant => DomainMessage::ItemVariant,
            ItemField::Name => DomainMessage::ItemName,
            ItemField::UnitPrice => DomainMessage::ItemUnitPrice,
            ItemField::Quantity => DomainMessage::ItemQuantity,
            ItemField::Note => DomainMessage::ItemNote,
        };
        m.get(lang)
    }
}

/// A field of one of the forms (link, card, installment query).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// Link `amount`.
    Amount,
    /// Link `cartAmount`.
    CartAmount,
    /// Link `currency`.
    Currency,
    /// Link `description`.
    Description,
    /// Link `orderNumber`.
    OrderNumber,
    /// Link `expiryDate`.
    ExpiryDate,
    /// Link `availableInstallments`.
    AvailableInstallments,
    /// Link `email`.
    Email,
    /// Link `phoneCountryCode`.
    PhoneCountryCode,
    /// Link `phoneNumber`.
    PhoneNumber,
    /// Link `items` as a whole (count, total).
    Items,
    /// One field of one item row; `row` is 0-based.
    Item {
        /// 0-based row.
        row: usize,
        /// The field of the row.
        field: ItemField,
    },
    /// Card `cardNumber`.
    CardNumber,
    /// Card `expiryMonth`.
    ExpiryMonth,
    /// Card `expiryYear`.
    ExpiryYear,
    /// Card `cvv`.
    Cvv,
    /// Card `cardHolderName`.
    CardHolderName,
    /// Card `usage`.
    Usage,
    /// Card `alias`.
    Alias,
    /// Card `customerId`.
    CustomerId,
    /// Installment query `binNumber`.
    BinNumber,
    /// Installment query `type`.
    PosType,
    /// Installment query `subType`.
    PosSubType,
    /// Installment query `amount`.
    InstallmentAmount,
}

impl Field {
    /// The field's name in the request body: `amount`, `items[2].unitPrice`, `cardNumber`.
    pub fn wire_name(&self) -> String {
        let name = match self {
            Field::Amount | Field::InstallmentAmount => "amount",
            Field::CartAmount => "cartAmount",
            Field::Currency => "currency",
            Field::Description => "description",
            Field::OrderNumber => "orderNumber",
            Field::ExpiryDate => "expiryDate",
            Field::AvailableInstallments => "availableInstallments",
            Field::Email => "email",
            Field::PhoneCountryCode => "phoneCountryCode",
            Field::PhoneNumber => "phoneNumber",
            Field::Items => "items",
            Field::Item { row, field } => return format!("items[{row}].{}", field.wire_name()),
            Field::CardNumber => "cardNumber",
            Field::ExpiryMonth => "expiryMonth",
            Field::ExpiryYear => "expiryYear",
            Field::Cvv => "cvv",
            Field::CardHolderName => "cardHolderName",
            Field::Usage => "usage",
            Field::Alias => "alias",
            Field::CustomerId => "customerId",
            Field::BinNumber => "binNumber",
            Field::PosType => "type",
            Field::PosSubType => "subType",
        };
        name.to_owned()
    }

    /// The label people see: "Tutar" / "Amount", "Ürün 3 – birim fiyat" / "Item 3 – unit
    /// price" (rows counted from 1).
    pub fn label(&self, lang: Lang) -> String {
        let m = match self {
            Field::Amount => DomainMessage::FieldAmount,
            Field::CartAmount => DomainMessage::FieldCartAmount,
            Field::Currency => DomainMessage::FieldCurrency,
            Field::Description => DomainMessage::FieldDescription,
            Field::OrderNumber => DomainMessage::FieldOrderNumber,
            Field::ExpiryDate => DomainMessage::FieldExpiryDate,
            Field::AvailableInstallments => DomainMessage::FieldAvailableInstallments,
            Field::Email => DomainMessage::FieldEmail,
            Field::PhoneCountryCode => DomainMessage::FieldPhoneCountryCode,
            Field::PhoneNumber => DomainMessage::FieldPhoneNumber,
            Field::Items => DomainMessage::FieldItems,
            Field::Item { row, field } => {
                return DomainMessage::ItemRow
                    .fill(lang, &[("row", &(row + 1)), ("field", &field.label(lang))]);
            }
            Field::CardNumber => DomainMessage::FieldCardNumber,
            Field::ExpiryMonth => DomainMessage::FieldExpiryMonth,
            Field::ExpiryYear => DomainMessage::FieldExpiryYear,
            Field::Cvv => DomainMessage::FieldCvv,
            Field::CardHolderName => DomainMessage::FieldCardHolderName,
            Field::Usage => DomainMessage::FieldUsage,
            Field::Alias => DomainMessage::FieldAlias,
            Field::CustomerId => DomainMessage::FieldCustomerId,
            Field::BinNumber => DomainMessage::FieldBinNumber,
            Field::PosType => DomainMessage::FieldPosType,
            Field::PosSubType => DomainMessage::FieldPosSubType,
            Field::InstallmentAmount => DomainMessage::FieldInstallmentAmount,
        };
        m.get(lang).to_owned()
    }
}

/// Why a field is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldProblem {
    /// Nothing was given for a required field.
    Required,
    /// The amount text was not accepted.
    Amount(AmountError),
    /// Zero where only more than zero makes sense.
    NotPositive,
    /// Over the API key's amount upper bound.
    OverLimit {
        /// The bound.
        limit: Decimal,
        /// Currency used to show it.
        currency: Currency,
    },
    /// A moment that is not in the future.
    InPast,
    /// An installment count that is not a whole number from 1 to `max`.
    BadInstallments {
        /// The offending entry, as typed.
        entry: String,
        /// The largest count accepted.
        max: u32,
    },
    /// Not a whole number.
    NotAnInteger,
    /// A quantity below 1.
    QuantityBelowOne,
    /// A number too large to handle.
    TooLarge,
    /// More item rows than the API key allows.
    TooManyItems {
        /// The key's `link.max_items`.
        max: u32,
    },
    /// A catalog variant priced in another currency than the link.
    CurrencyMismatch {
        /// The variant's currency.
        item: Currency,
        /// The link's currency.
        link: Currency,
    },
    /// The item total is not the amount.
    TotalMismatch {
        /// Sum of the item lines.
        items_total: Decimal,
        /// The link amount.
        amount: Decimal,
        /// The link currency.
        currency: Currency,
    },
    /// Characters other than digits (after removing spaces and dashes).
    NotDigits,
    /// A digit count outside `min..=max`.
    WrongLength {
        /// Fewest digits.
        min: usize,
        /// Most digits.
        max: usize,
    },
    /// The card number's check digit is wrong.
    LuhnFailed,
    /// Not a month from 1 to 12.
    BadMonth,
    /// Not a four-digit year in the accepted range.
    BadYear,
    /// The card's expiry month is over.
    Expired,
    /// A security code of the wrong length or with non-digits.
    BadCvv {
        /// Fewest digits.
        min: usize,
        /// Most digits.
        max: usize,
    },
    /// Not six digits.
    BadBin,
    /// Not shaped like an e-mail address.
    BadEmail,
    /// Not a phone number (digits, 4 to 15 of them).
    BadPhone,
    /// Not a country calling code (1 to 3 digits, `+` allowed).
    BadCountryCode,
    /// Only one half of a phone (country code or number) was given.
    PhoneIncomplete,
    /// Country code 90 and not a Turkish mobile number (10 digits beginning with 5).
    NotTurkishMobile,
    /// Another country's number outside E.164's lengths.
    PhoneLength {
        /// Most digits, country code included.
        max: usize,
        /// Fewest digits of the national number.
        min: usize,
    },
    /// Characters an order number may not hold.
    BadOrderNumber,
    /// Longer than `max` characters.
    TooLong {
        /// Most characters.
        max: usize,
    },
    /// Not one of an enumeration's values.
    UnknownCode(UnknownCode),
}

impl FieldProblem {
    /// A sentence saying why, in the given language.
    pub fn message(&self, lang: Lang) -> String {
        let amount = |a: Decimal, c: Currency| format_amount(a, c, lang);
        let m = match self {
            FieldProblem::Required => DomainMessage::Required,
            FieldProblem::Amount(e) => return e.message(lang),
            FieldProblem::NotPositive => DomainMessage::NotPositive,
            FieldProblem::OverLimit { limit, currency } => {
                return DomainMessage::OverLimit
                    .fill(lang, &[("limit", &amount(*limit, *currency))]);
            }
            FieldProblem::InPast => DomainMessage::InPast,
            FieldProblem::BadInstallments { entry, max } => {
                return DomainMessage::BadInstallments
                    .fill(lang, &[("entry", entry), ("max", max)]);
            }
            FieldProblem::NotAnInteger => DomainMessage::NotAnInteger,
            FieldProblem::QuantityBelowOne => DomainMessage::QuantityBelowOne,
            FieldProblem::TooLarge => DomainMessage::TooLarge,
            FieldProblem::TooManyItems { max } => {
                return DomainMessage::TooManyItems.fill(lang, &[("max", max)]);
            }
            FieldProblem::CurrencyMismatch { item, link } => {
                return DomainMessage::CurrencyMismatch
                    .fill(lang, &[("item", item), ("link", link)]);
            }
            FieldProblem::TotalMismatch {
                items_total,
                amount: link_amount,
                currency,
            } => {
                return DomainMessage::TotalMismatch.fill(
                    lang,
                    &[
                        ("total", &amount(*items_total, *currency)),
                        ("amount", &amount(*link_amount, *currency)),
                        ("diff", &amount(*items_total - *link_amount, *currency)),
                    ],
                );
            }
            FieldProblem::NotDigits => DomainMessage::NotDigits,
            FieldProblem::WrongLength { min, max } => {
                return DomainMessage::WrongLength.fill(lang, &[("min", min), ("max", max)]);
            }
            FieldProblem::LuhnFailed => DomainMessage::LuhnFailed,
            FieldProblem::BadMonth => DomainMessage::BadMonth,
            FieldProblem::BadYear => DomainMessage::BadYear,
            FieldProblem::Expired => DomainMessage::Expired,
            FieldProblem::BadCvv { min, max } if min == max => {
                return DomainMessage::BadCvvExact.fill(lang, &[("digits", min)]);
            }
            FieldProblem::BadCvv { min, max } => {
                return DomainMessage::BadCvvRange.fill(lang, &[("min", min), ("max", max)]);
            }
            FieldProblem::BadBin => DomainMessage::BadBin,
            FieldProblem::BadEmail => DomainMessage::BadEmail,
            FieldProblem::BadPhone => DomainMessage::BadPhone,
            FieldProblem::BadCountryCode => DomainMessage::BadCountryCode,
            FieldProblem::PhoneIncomplete => DomainMessage::PhoneIncomplete,
            FieldProblem::NotTurkishMobile => DomainMessage::NotTurkishMobile,
            FieldProblem::PhoneLength { max, min } => {
                return DomainMessage::PhoneLength.fill(lang, &[("max", max), ("min", min)]);
            }
            FieldProblem::BadOrderNumber => DomainMessage::BadOrderNumber,
            FieldProblem::TooLong { max } => {
                return DomainMessage::TooLong.fill(lang, &[("max", max)]);
            }
            FieldProblem::UnknownCode(code) => {
                return DomainMessage::UnknownCode
                    .fill(lang, &[("value", &code.value), ("allowed", &code.allowed)]);
            }
        };
        m.get(lang).to_owned()
    }
}

impl From<AmountError> for FieldProblem {
    fn from(e: AmountError) -> Self {
        FieldProblem::Amount(e)
    }
}

impl From<UnknownCode> for FieldProblem {
    fn from(e: UnknownCode) -> Self {
        FieldProblem::UnknownCode(e)
    }
}

/// One wrong field and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field.
    pub field: Field,
    /// Why.
    pub problem: FieldProblem,
}

impl FieldError {
    /// A field error.
    pub fn new(field: Field, problem: impl Into<FieldProblem>) -> Self {
        FieldError {
            field,
            problem: problem.into(),
        }
    }

    /// `"<label>: <sentence>"` in the given language.
    pub fn message(&self, lang: Lang) -> String {
        format!("{}: {}", self.field.label(lang), self.problem.message(lang))
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

/// Every wrong field of a form, in form order.
#[derive(Debug, Clone, PartialEq, Eq, Default, thiserror::Error)]
pub struct FieldErrors(pub Vec<FieldError>);

impl FieldErrors {
    /// The errors of one field.
    pub fn for_field<'a>(&'a self, field: &'a Field) -> impl Iterator<Item = &'a FieldError> {
        self.0.iter().filter(move |e| e.field == *field)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// All of them.
    pub fn iter(&self) -> std::slice::Iter<'_, FieldError> {
        self.0.iter()
    }

    /// Adds one.
    pub fn push(&mut self, field: Field, problem: impl Into<FieldProblem>) {
        self.0.push(FieldError::new(field, problem));
    }

    /// The sentences, one per error, in the given language.
    pub fn messages(&self, lang: Lang) -> Vec<String> {
        self.0.iter().map(|e| e.message(lang)).collect()
    }

    /// `Err(self)` when there is any error, else `Ok(value)`.
    pub fn into_result<T>(self, value: impl FnOnce() -> T) -> Result<T, FieldErrors> {
        if self.is_empty() {
            Ok(value())
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for FieldErrors {
    /// English, one error per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl<'a> IntoIterator for &'a FieldErrors {
    type Item = &'a FieldError;
    type IntoIter = std::slice::Iter<'a, FieldError>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::str::FromStr;

    use super::*;

    fn turkish(s: &str) -> bool {
        s.chars().any(|c| "çğıöşüÇĞİÖŞÜ".contains(c))
    }

    /// One value of every variant. The `match` makes the compiler list a new variant here.
    fn every_problem() -> Vec<FieldProblem> {
        let d = |s| Decimal::from_str(s).unwrap();
        let all = vec![
            FieldProblem::Required,
            FieldProblem::Amount(AmountError::NotANumber),
            FieldProblem::NotPositive,
            FieldProblem::OverLimit {
                limit: d("5000"),
                currency: Currency::Try,
            },
            FieldProblem::InPast,
            FieldProblem::BadInstallments {
                entry: "13".into(),
                max: 12,
            },
            FieldProblem::NotAnInteger,
            FieldProblem::QuantityBelowOne,
            FieldProblem::TooLarge,
            FieldProblem::TooManyItems { max: 5 },
            FieldProblem::CurrencyMismatch {
                item: Currency::Eur,
                link: Currency::Try,
            },
            FieldProblem::TotalMismatch {
                items_total: d("150.00"),
                amount: d("140.00"),
                currency: Currency::Try,
            },
            FieldProblem::NotDigits,
            FieldProblem::WrongLength { min: 12, max: 19 },
            FieldProblem::LuhnFailed,
            FieldProblem::BadMonth,
            FieldProblem::BadYear,
            FieldProblem::Expired,
            FieldProblem::BadCvv { min: 3, max: 4 },
            FieldProblem::BadBin,
            FieldProblem::BadEmail,
            FieldProblem::BadPhone,
            FieldProblem::BadCountryCode,
            FieldProblem::PhoneIncomplete,
            FieldProblem::NotTurkishMobile,
            FieldProblem::PhoneLength { max: 15, min: 6 },
            FieldProblem::BadOrderNumber,
            FieldProblem::TooLong { max: 64 },
            FieldProblem::UnknownCode(UnknownCode {
                value: "CASH".into(),
                allowed: "A, B".into(),
            }),
        ];
        for p in &all {
            match p {
                FieldProblem::Required
                | FieldProblem::Amount(_)
                | FieldProblem::NotPositive
                | FieldProblem::OverLimit { .. }
                | FieldProblem::InPast
                | FieldProblem::BadInstallments { .. }
                | FieldProblem::NotAnInteger
                | FieldProblem::QuantityBelowOne
                | FieldProblem::TooLarge
                | FieldProblem::TooManyItems { .. }
                | FieldProblem::CurrencyMismatch { .. }
                | FieldProblem::TotalMismatch { .. }
                | FieldProblem::NotDigits
                | FieldProblem::WrongLength { .. }
                | FieldProblem::LuhnFailed
                | FieldProblem::BadMonth
                | FieldProblem::BadYear
                | FieldProblem::Expired
                | FieldProblem::BadCvv { .. }
                | FieldProblem::BadBin
                | FieldProblem::BadEmail
                | FieldProblem::BadPhone
                | FieldProblem::BadCountryCode
                | FieldProblem::PhoneIncomplete
                | FieldProblem::NotTurkishMobile
                | FieldProblem::PhoneLength { .. }
                | FieldProblem::BadOrderNumber
                | FieldProblem::TooLong { .. }
                | FieldProblem::UnknownCode(_) => {}
            }
        }
        all
    }

    #[test]
    fn every_problem_has_its_own_sentence_in_both_languages() {
        let mut seen = HashSet::new();
        for p in every_problem() {
            let tr = p.message(Lang::Tr);
            let en = p.message(Lang::En);
            assert!(!tr.trim().is_empty() && !en.trim().is_empty(), "{p:?}");
            assert_ne!(tr, en, "{p:?}");
            assert!(turkish(&tr), "Turkish sentence without Turkish: {tr}");
            assert!(seen.insert(tr.clone()), "duplicate: {tr}");
            assert!(seen.insert(en.clone()), "duplicate: {en}");
        }
    }

    #[test]
    fn sentences_carry_the_figures_they_name() {
        let d = |s| Decimal::from_str(s).unwrap();
        let p = FieldProblem::TotalMismatch {
            items_total: d("150.00"),
            amount: d("140.00"),
            currency: Currency::Try,
        };
        crate::lang::assert_says(
            |lang| p.message(lang),
            "The items total (₺150.00) is not the amount (₺140.00); difference ₺10.00.",
            "Ürünlerin toplamı (150,00 ₺) tutara (140,00 ₺) eşit değil; fark 10,00 ₺.",
        );
        let p = FieldProblem::OverLimit {
            limit: d("5000.00"),
            currency: Currency::Try,
        };
        assert!(
            p.message(Lang::Tr).contains("5.000,00 ₺"),
            "{}",
            p.message(Lang::Tr)
        );
        assert_eq!(
            FieldProblem::BadCvv { min: 4, max: 4 }.message(Lang::En),
            "The security code must have 4 digits."
        );
    }

    #[test]
    fn fields_have_wire_names_and_labels() {
        let cases: &[(Field, &str, &str, &str)] = &[
            (Field::Amount, "amount", "Tutar", "Amount"),
            (
                Field::CartAmount,
                "cartAmount",
                "Sepet tutarı",
                "Cart amount",
            ),
            (
                Field::OrderNumber,
                "orderNumber",
                "Sipariş numarası",
                "Order number",
            ),
            (
                Field::ExpiryDate,
                "expiryDate",
                "Son geçerlilik tarihi",
                "Expiry date",
            ),
            (
                Field::AvailableInstallments,
                "availableInstallments",
                "Taksit sayıları",
                "Installment counts",
            ),
            (
                Field::Item {
                    row: 2,
                    field: ItemField::UnitPrice,
                },
                "items[2].unitPrice",
                "Ürün 3 – birim fiyat",
                "Item 3 – unit price",
            ),
            (
                Field::Item {
                    row: 0,
                    field: ItemField::Variant,
                },
                "items[0].productVariantId",
                "Ürün 1 – katalog ürünü",
                "Item 1 – catalog variant",
            ),
            (
                Field::Item {
                    row: 9,
                    field: ItemField::Note,
                },
                "items[9].specialNote",
                "Ürün 10 – not",
                "Item 10 – note",
            ),
            (
                Field::CardNumber,
                "cardNumber",
                "Kart numarası",
                "Card number",
            ),
            (
                Field::Cvv,
                "cvv",
                "Güvenlik kodu (CVV)",
                "Security code (CVV)",
            ),
            (
                Field::BinNumber,
                "binNumber",
                "BIN (kartın ilk 6 hanesi)",
                "BIN (first 6 digits)",
            ),
            (Field::PosType, "type", "POS tipi", "POS type"),
            (Field::PosSubType, "subType", "POS alt tipi", "POS sub-type"),
            (
                Field::InstallmentAmount,
                "amount",
                "İşlem tutarı",
                "Transaction amount",
            ),
        ];
        for (field, wire, tr, en) in cases {
            assert_eq!(field.wire_name(), *wire);
            assert_eq!(field.label(Lang::Tr), *tr);
            assert_eq!(field.label(Lang::En), *en);
        }
    }

    #[test]
    fn field_errors_list_filter_and_display() {
        let mut errors = FieldErrors::default();
        assert!(errors.is_empty());
        errors.push(Field::Amount, FieldProblem::Required);
        errors.push(
            Field::Item {
                row: 1,
                field: ItemField::Quantity,
            },
            FieldProblem::QuantityBelowOne,
        );
        errors.push(Field::Amount, AmountError::Negative);
        assert_eq!(errors.len(), 3);
        let amount: Vec<_> = errors
            .for_field(&Field::Amount)
            .map(|e| &e.problem)
            .collect();
        assert_eq!(
            amount,
            [
                &FieldProblem::Required,
                &FieldProblem::Amount(AmountError::Negative)
            ]
        );
        assert_eq!(
            errors.to_string(),
            "Amount: This field is required.\n\
             Item 2 – quantity: The quantity must be at least 1.\n\
             Amount: The amount cannot be negative."
        );
        assert_eq!(
            errors.messages(Lang::Tr)[0],
            "Tutar: Bu alanın doldurulması zorunlu."
        );
        let boxed: Box<dyn std::error::Error> = Box::new(errors);
        assert!(boxed.to_string().starts_with("Amount:"));
    }
}
