//! The installment lookup form: a card BIN (first 6 digits), optional POS type and sub-type
//! filters, and an optional amount, validated into the wire query.
//!
//! Staff often paste a whole card number into the BIN field. [`InstallmentDraft::set_bin_from_input`]
//! keeps only the first 6 digits, in a zeroizing buffer, so the rest of the number is never
//! stored by the form. Empty type and sub-type mean `DEFAULT` (the spec's "no filter"); they
//! are always sent. The amount is read with the TRY rules of [`parse_amount`] (the endpoint
//! takes no currency), must be greater than zero, and is omitted when empty.

use std::fmt;

use rust_decimal::Decimal;
use serde::Serialize;
use zeroize::Zeroizing;

use super::card::mask_pan;
use super::codes::{Currency, PosSubType, PosType};
use super::errors::{Field, FieldErrors, FieldProblem};
use super::money::{AmountError, parse_amount};

/// Digits of a BIN.
pub const BIN_DIGITS: usize = 6;

/// The lookup form as typed. `Debug` shows a BIN as is, but masks anything longer (a card
/// number put into `bin` directly instead of through `set_bin_from_input`).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct InstallmentDraft {
    /// The BIN: at most 6 digits, set through [`InstallmentDraft::set_bin_from_input`].
    pub bin: Zeroizing<String>,
    /// POS type filter; empty means `DEFAULT`.
    pub pos_type: String,
    /// POS sub-type filter; empty means `DEFAULT`.
    pub sub_type: String,
    /// Transaction amount (TRY rules); empty means none.
    pub amount: String,
}

impl fmt::Debug for InstallmentDraft {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bin = if self.bin.chars().count() <= BIN_DIGITS {
            self.bin.to_string()
        } else {
            mask_pan(&self.bin)
        };
        f.debug_struct("InstallmentDraft")
            .field("bin", &bin)
            .field("pos_type", &self.pos_type)
            .field("sub_type", &self.sub_type)
            .field("amount", &self.amount)
            .finish()
    }
}

impl InstallmentDraft {
    /// Keeps the first 6 digits of what was typed or pasted (a full card number keeps only
    /// its BIN); the previous value is zeroized.
    pub fn set_bin_from_input(&mut self, text: &str) {
        let mut bin = Zeroizing::new(String::with_capacity(BIN_DIGITS));
        bin.extend(text.chars().filter(char::is_ascii_digit).take(BIN_DIGITS));
        self.bin = bin;
    }

    /// Validates the form, returning the query or every problem found.
    pub fn validate(&self) -> Result<InstallmentQuery, FieldErrors> {
        let mut errors = FieldErrors::default();
        let bin = self.bin.trim();
        if bin.is_empty() {
            errors.push(Field::BinNumber, FieldProblem::Required);
        } else if bin.len() != BIN_DIGITS || !bin.bytes().all(|b| b.is_ascii_digit()) {
            errors.push(Field::BinNumber, FieldProblem::BadBin);
        }
        let pos_type = match self.pos_type.trim() {
            "" => Some(PosType::Default),
            t => t
                .parse::<PosType>()
                .map_err(|e| errors.push(Field::PosType, e))
                .ok(),
        };
        let sub_type = match self.sub_type.trim() {
            "" => Some(PosSubType::Default),
            t => t
                .parse::<PosSubType>()
                .map_err(|e| errors.push(Field::PosSubType, e))
                .ok(),
        };
        let amount = match parse_amount(&self.amount, Currency::Try) {
            Err(AmountError::Empty) => None,
            Err(e) => {
                errors.push(Field::InstallmentAmount, e);
                None
            }
            Ok(a) if a.is_zero() => {
                errors.push(Field::InstallmentAmount, FieldProblem::NotPositive);
                None
            }
            Ok(a) => Some(a),
        };
        match (pos_type, sub_type) {
            (Some(pos_type), Some(sub_type)) if errors.is_empty() => Ok(InstallmentQuery {
                bin_number: bin.to_owned(),
                pos_type,
                sub_type,
                amount,
            }),
            _ => Err(errors),
        }
    }
}

/// A validated installment query; serializes to the exact wire body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallmentQuery {
    bin_number: String,
    #[serde(rename = "type")]
    pos_type: PosType,
    sub_type: PosSubType,
    #[serde(
        with = "crate::domain::wire_format::amount_opt",
        skip_serializing_if = "Option::is_none"
    )]
    amount: Option<Decimal>,
}

impl InstallmentQuery {
    /// `binNumber`.
    pub fn bin_number(&self) -> &str {
        &self.bin_number
    }

    /// `type`.
    pub fn pos_type(&self) -> PosType {
        self.pos_type
    }

    /// `subType`.
    pub fn sub_type(&self) -> PosSubType {
        self.sub_type
    }

    /// `amount`, when sent.
    pub fn amount(&self) -> Option<Decimal> {
        self.amount
    }

    /// The exact body bytes.
    pub fn body_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self)
            .expect("an installment query is strings and a decimal number: it always serializes")
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::domain::{FieldError, UnknownCode};

    const VECTOR_3_BODY: &str =
        r#"{"binNumber":"979200","type":"DEFAULT","subType":"DEFAULT","amount":1250.50}"#;

    fn with_bin(text: &str) -> InstallmentDraft {
        let mut d = InstallmentDraft::default();
        d.set_bin_from_input(text);
        d
    }

    #[test]
    fn the_third_signature_vector_draft_gives_its_body_byte_for_byte() {
        for amount in ["1250.50", "1.250,50", "1250,5", "₺1,250.50"] {
            let d = InstallmentDraft {
                amount: amount.into(),
                ..with_bin("979200")
            };
            let q = d.validate().unwrap();
            assert_eq!(q.body_bytes(), VECTOR_3_BODY.as_bytes(), "{amount}");
        }
    }

    #[test]
    fn bodies_for_filters_and_no_amount() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "",
                "",
                "",
                r#"{"binNumber":"454360","type":"DEFAULT","subType":"DEFAULT"}"#,
            ),
            (
                "virtual",
                " food ",
                "100",
                r#"{"binNumber":"454360","type":"VIRTUAL","subType":"FOOD","amount":100.00}"#,
            ),
            (
                "PHYSICAL",
                "DEFAULT",
                "",
                r#"{"binNumber":"454360","type":"PHYSICAL","subType":"DEFAULT"}"#,
            ),
        ];
        for (pos_type, sub_type, amount, body) in cases {
            let d = InstallmentDraft {
                pos_type: (*pos_type).into(),
                sub_type: (*sub_type).into(),
                amount: (*amount).into(),
                ..with_bin("4543 6012 3456 7890")
            };
            let q = d.validate().unwrap();
            assert_eq!(String::from_utf8(q.body_bytes()).unwrap(), *body);
            assert_eq!(q.bin_number(), "454360");
        }
    }

    #[test]
    fn the_bin_keeps_only_the_first_six_digits_of_what_was_pasted() {
        let cases: &[(&str, &str)] = &[
            ("4111111111111111", "411111"),
            ("4111 1111 1111 1111", "411111"),
            ("9792-0300-0000", "979203"),
            ("12a3", "123"),
            ("", ""),
            ("abc", ""),
        ];
        for (input, bin) in cases {
            let d = with_bin(input);
            assert_eq!(d.bin.as_str(), *bin, "{input}");
            assert!(d.bin.len() <= BIN_DIGITS);
        }
    }

    #[test]
    fn each_rule_reports_its_exact_field_and_problem() {
        let unknown = |value: &str, allowed: &[&str]| {
            FieldProblem::UnknownCode(UnknownCode {
                value: value.into(),
                allowed: allowed.join(", "),
            })
        };
        let cases: Vec<(InstallmentDraft, Vec<(Field, FieldProblem)>)> = vec![
            (
                with_bin(""),
                vec![(Field::BinNumber, FieldProblem::Required)],
            ),
            (
                with_bin("12345"),
                vec![(Field::BinNumber, FieldProblem::BadBin)],
            ),
            (
                InstallmentDraft {
                    bin: Zeroizing::new("12345x".into()),
                    ..InstallmentDraft::default()
                },
                vec![(Field::BinNumber, FieldProblem::BadBin)],
            ),
            (
                InstallmentDraft {
                    pos_type: "CASH".into(),
                    ..with_bin("979200")
                },
                vec![(
                    Field::PosType,
                    unknown(
                        "CASH",
                        &["DEFAULT", "VIRTUAL", "PHYSICAL", "SOFTWALLET", "LOYALTY"],
                    ),
                )],
            ),
            (
                InstallmentDraft {
                    sub_type: "gas".into(),
                    ..with_bin("979200")
                },
                vec![(
                    Field::PosSubType,
                    unknown(
                        "gas",
                        &["DEFAULT", "BASIC", "STREAMING", "CHARITY", "FOOD", "FUEL"],
                    ),
                )],
            ),
            (
                InstallmentDraft {
                    amount: "0".into(),
                    ..with_bin("979200")
                },
                vec![(Field::InstallmentAmount, FieldProblem::NotPositive)],
            ),
            (
                InstallmentDraft {
                    amount: "12.345".into(),
                    ..with_bin("979200")
                },
                vec![(
                    Field::InstallmentAmount,
                    FieldProblem::Amount(AmountError::Ambiguous {
                        text: "12.345".into(),
                    }),
                )],
            ),
            (
                InstallmentDraft {
                    amount: "-1".into(),
                    ..with_bin("979200")
                },
                vec![(
                    Field::InstallmentAmount,
                    FieldProblem::Amount(AmountError::Negative),
                )],
            ),
            (
                InstallmentDraft {
                    pos_type: "x".into(),
                    sub_type: "y".into(),
                    amount: "z".into(),
                    ..with_bin("")
                },
                vec![
                    (Field::BinNumber, FieldProblem::Required),
                    (
                        Field::PosType,
                        unknown(
                            "x",
                            &["DEFAULT", "VIRTUAL", "PHYSICAL", "SOFTWALLET", "LOYALTY"],
                        ),
                    ),
                    (
                        Field::PosSubType,
                        unknown(
                            "y",
                            &["DEFAULT", "BASIC", "STREAMING", "CHARITY", "FOOD", "FUEL"],
                        ),
                    ),
                    (
                        Field::InstallmentAmount,
                        FieldProblem::Amount(AmountError::NotANumber),
                    ),
                ],
            ),
        ];
        for (draft, want) in cases {
            let want: Vec<_> = want
                .into_iter()
                .map(|(f, p)| FieldError::new(f, p))
                .collect();
            assert_eq!(draft.validate().unwrap_err().0, want, "{draft:?}");
        }
    }

    #[test]
    fn debug_shows_a_bin_but_never_a_whole_card_number() {
        assert!(format!("{:?}", with_bin("979200")).contains("\"979200\""));
        let d = InstallmentDraft {
            bin: Zeroizing::new("4532148703958265".into()),
            ..InstallmentDraft::default()
        };
        let shown = format!("{d:?}");
        assert!(shown.contains("453214******8265"), "{shown}");
        assert!(!shown.contains("4532148"), "{shown}");
    }

    #[test]
    fn getters_return_the_validated_values() {
        let q = InstallmentDraft {
            pos_type: "loyalty".into(),
            amount: "99,9".into(),
            ..with_bin("979200")
        }
        .validate()
        .unwrap();
        assert_eq!(q.pos_type(), PosType::Loyalty);
        assert_eq!(q.sub_type(), PosSubType::Default);
        assert_eq!(q.amount(), Some(Decimal::from_str("99.90").unwrap()));
        assert_eq!(q.amount().unwrap().to_string(), "99.90");
    }
}
