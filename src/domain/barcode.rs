//! Barcodes of catalog items, as a keyboard-wedge scanner types them (digits, then Enter) or as
//! staff write them in the catalog.
//!
//! What is accepted:
//! - GTINs, the numbers under retail barcodes: EAN-8 (8 digits), UPC-A (12), EAN-13 (13) and
//!   GTIN-14 (14). Their last digit is a check digit (GS1 modulo 10: weights 3 and 1 from the
//!   right), verified here, so every single mistyped or misread digit is refused with the
//!   digit found and the one expected.
//! - The shop's own short codes, 4 to 7 digits, which carry no check digit.
//!
//! Other lengths are refused: 1 to 3 digits is a stray key, 9 to 11 is usually a GTIN whose
//! leading zeros a spreadsheet dropped, more than 14 is not a product number.
//!
//! GS1 defines a GTIN by its 14-digit form with leading zeros, so `0036000291452` (EAN-13) and
//! `036000291452` (UPC-A) are the same product. A [`Barcode`] holds the shortest standard form
//! (8, 12, 13 or 14 digits) of that number, so a catalog written with one form finds a scan of
//! the other. Spaces inside the code (as printed under the bars) are ignored.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::messages::DomainMessage;
use crate::lang::Lang;

/// The lengths of the shop's own codes (no check digit).
pub const SHOP_CODE_DIGITS: std::ops::RangeInclusive<usize> = 4..=7;

/// The GTIN lengths, shortest first.
const GTIN_LENGTHS: [usize; 4] = [8, 12, 13, 14];

/// What kind of number a barcode is (from its length in canonical form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarcodeKind {
    /// A shop code of 4 to 7 digits, without a check digit.
    Shop,
    /// EAN-8.
    Ean8,
    /// UPC-A (GTIN-12).
    UpcA,
    /// EAN-13 (GTIN-13).
    Ean13,
    /// GTIN-14 (outer cases).
    Gtin14,
}

/// Why a text is not a barcode. Each message names what was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarcodeError {
    /// Nothing but blanks.
    Empty,
    /// A character that is not a digit 0–9.
    NotDigit(char),
    /// A length that is neither a GTIN's nor a shop code's.
    Length(usize),
    /// The last digit does not match the others.
    CheckDigit {
        /// The check digit in the code.
        found: u8,
        /// The check digit the other digits give.
        expected: u8,
    },
}

impl BarcodeError {
    /// What is wrong, as a clause that follows "Barcode 123…:" (lower case, no full stop), from
    /// the domain's catalogue.
    pub fn message(&self, lang: Lang) -> String {
        match *self {
            BarcodeError::Empty => DomainMessage::BarcodeEmpty.get(lang).to_owned(),
            BarcodeError::NotDigit(c) => DomainMessage::BarcodeNotDigit.fill(lang, &[("char", &c)]),
            BarcodeError::Length(n) => DomainMessage::BarcodeLength.fill(lang, &[("n", &n)]),
            BarcodeError::CheckDigit { found, expected } => DomainMessage::BarcodeCheckDigit
                .fill(lang, &[("found", &found), ("expected", &expected)]),
        }
    }
}

impl fmt::Display for BarcodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for BarcodeError {}

/// A valid barcode, in canonical form (see the module docs): compare, hash and store this.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Barcode(String);

impl Barcode {
    /// Reads a barcode as typed or scanned: blanks around it and spaces inside are ignored.
    pub fn parse(text: &str) -> Result<Barcode, BarcodeError> {
        let digits: String = text.trim().chars().filter(|c| *c != ' ').collect();
        if digits.is_empty() {
            return Err(BarcodeError::Empty);
        }
        if let Some(c) = digits.chars().find(|c| !c.is_ascii_digit()) {
            return Err(BarcodeError::NotDigit(c));
        }
        let len = digits.len();
        if SHOP_CODE_DIGITS.contains(&len) {
            return Ok(Barcode(digits));
        }
        if !GTIN_LENGTHS.contains(&len) {
            return Err(BarcodeError::Length(len));
        }
        let bytes = digits.as_bytes();
        let (body, last) = bytes.split_at(len - 1);
        let found = last[0] - b'0';
        let expected = check_digit(body);
        if found != expected {
            return Err(BarcodeError::CheckDigit { found, expected });
        }
        // The shortest standard length that holds the number without its leading zeros.
        let significant = digits.trim_start_matches('0').len();
        let target = GTIN_LENGTHS
            .into_iter()
            .find(|l| *l >= significant)
            .unwrap_or(len);
        let canonical = if target < len {
            digits[len - target..].to_owned()
        } else {
            digits
        };
        Ok(Barcode(canonical))
    }

    /// The canonical digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What kind of number it is.
    pub fn kind(&self) -> BarcodeKind {
        match self.0.len() {
            8 => BarcodeKind::Ean8,
            12 => BarcodeKind::UpcA,
            13 => BarcodeKind::Ean13,
            14 => BarcodeKind::Gtin14,
            _ => BarcodeKind::Shop,
        }
    }
}

/// The GS1 check digit of `body` (ASCII digits, without the check digit): weights 3, 1, 3, …
/// from the right, and the digit that brings the sum to a multiple of ten.
pub fn check_digit(body: &[u8]) -> u8 {
    let sum: u32 = body
        .iter()
        .rev()
        .enumerate()
        .map(|(i, b)| u32::from(b - b'0') * if i % 2 == 0 { 3 } else { 1 })
        .sum();
    let rest = u8::try_from(sum % 10).unwrap_or(0);
    (10 - rest) % 10
}

impl fmt::Debug for Barcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Barcode({})", self.0)
    }
}

impl fmt::Display for Barcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Barcode {
    type Err = BarcodeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Barcode::parse(s)
    }
}

impl TryFrom<String> for Barcode {
    type Error = BarcodeError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        Barcode::parse(&value)
    }
}

impl From<Barcode> for String {
    fn from(value: Barcode) -> Self {
        value.0
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Published codes, as printed on packaging and in the usual descriptions of each format.
    const REAL: &[(&str, BarcodeKind)] = &[
        ("4006381333931", BarcodeKind::Ean13),   // a STABILO pen
        ("5901234123457", BarcodeKind::Ean13),   // GS1 Poland's sample number
        ("9780306406157", BarcodeKind::Ean13),   // an ISBN-13 (Bookland EAN)
        ("036000291452", BarcodeKind::UpcA),     // a Kleenex box
        ("012345678905", BarcodeKind::UpcA),     // the usual UPC-A sample
        ("73513537", BarcodeKind::Ean8),         // the usual EAN-8 sample
        ("10012345678902", BarcodeKind::Gtin14), // GS1's GTIN-14 sample
    ];

    #[test]
    fn published_codes_are_accepted_as_their_kind() {
        for (code, kind) in REAL {
            let b = Barcode::parse(code).unwrap();
            assert_eq!(b.as_str(), *code);
            assert_eq!(b.kind(), *kind, "{code}");
        }
    }

    #[test]
    fn every_single_wrong_digit_of_a_published_code_is_caught() {
        for (code, _) in REAL {
            for pos in 0..code.len() {
                for d in b'0'..=b'9' {
                    let mut bytes = code.as_bytes().to_vec();
                    if bytes[pos] == d {
                        continue;
                    }
                    bytes[pos] = d;
                    let typo = String::from_utf8(bytes).unwrap();
                    assert!(
                        matches!(Barcode::parse(&typo), Err(BarcodeError::CheckDigit { .. })),
                        "{typo} (from {code}) passed"
                    );
                }
            }
        }
    }

    #[test]
    fn a_wrong_check_digit_names_the_digit_found_and_the_one_expected() {
        let err = Barcode::parse("4006381333937").unwrap_err();
        assert_eq!(
            err,
            BarcodeError::CheckDigit {
                found: 7,
                expected: 1
            }
        );
        crate::lang::assert_says(
            |lang| err.message(lang),
            "check digit is 7, expected 1: a digit was misread or mistyped",
            "kontrol hanesi 7, beklenen 1: bir hane yanlış okunmuş ya da yazılmış",
        );
    }

    #[test]
    fn leading_zeros_do_not_make_another_product() {
        let upc = Barcode::parse("036000291452").unwrap();
        for same in ["0036000291452", "00036000291452", " 0 36000 29145 2 "] {
            assert_eq!(Barcode::parse(same).unwrap(), upc, "{same}");
        }
        // An EAN-8 written as a 13- or 14-digit GTIN.
        let ean8 = Barcode::parse("96385074").unwrap();
        assert_eq!(Barcode::parse("0000096385074").unwrap(), ean8);
        assert_eq!(Barcode::parse("00000096385074").unwrap(), ean8);
        // A 13-digit code that starts with a non-zero digit stays 13 digits.
        assert_eq!(
            Barcode::parse("4006381333931").unwrap().kind(),
            BarcodeKind::Ean13
        );
    }

    #[test]
    fn shop_codes_have_no_check_digit_and_other_texts_are_refused() {
        for code in ["1234", "0042", "1234567"] {
            let b = Barcode::parse(code).unwrap();
            assert_eq!((b.as_str(), b.kind()), (code, BarcodeKind::Shop));
        }
        let bad = [
            ("", BarcodeError::Empty),
            ("   ", BarcodeError::Empty),
            ("123", BarcodeError::Length(3)),
            ("36000291452", BarcodeError::Length(11)),
            ("123456789012345", BarcodeError::Length(15)),
            ("40063813339a1", BarcodeError::NotDigit('a')),
            ("4006381-333931", BarcodeError::NotDigit('-')),
            ("٤٠٠٦", BarcodeError::NotDigit('٤')),
        ];
        for (text, want) in bad {
            assert_eq!(Barcode::parse(text), Err(want), "{text:?}");
        }
    }

    #[test]
    fn every_message_exists_in_both_languages() {
        let all = [
            BarcodeError::Empty,
            BarcodeError::NotDigit('x'),
            BarcodeError::Length(11),
            BarcodeError::CheckDigit {
                found: 2,
                expected: 9,
            },
        ];
        for e in all {
            let (tr, en) = (e.message(Lang::Tr), e.message(Lang::En));
            assert!(!tr.is_empty() && !en.is_empty() && tr != en, "{e:?}");
        }
    }

    #[test]
    fn serde_writes_the_canonical_digits_and_refuses_a_bad_code() {
        let b: Barcode = serde_json::from_str("\"0036000291452\"").unwrap();
        assert_eq!(serde_json::to_string(&b).unwrap(), "\"036000291452\"");
        assert!(serde_json::from_str::<Barcode>("\"036000291453\"").is_err());
    }

    /// A body of `len - 1` digits with its check digit appended.
    fn gtin(len: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(0u8..10, len - 1).prop_map(|body| {
            let mut s: Vec<u8> = body.into_iter().map(|d| b'0' + d).collect();
            s.push(b'0' + check_digit(&s));
            String::from_utf8(s).unwrap()
        })
    }

    fn any_gtin() -> impl Strategy<Value = String> {
        prop_oneof![gtin(8), gtin(12), gtin(13), gtin(14)]
    }

    proptest! {
        #![proptest_config(kept_seeds!("barcode.txt"))]
        #[test]
        fn any_gtin_is_accepted_and_its_canonical_form_reads_back_the_same(code in any_gtin()) {
            let b = Barcode::parse(&code).unwrap();
            prop_assert!(code.ends_with(b.as_str()));
            prop_assert!(code[..code.len() - b.as_str().len()].bytes().all(|c| c == b'0'));
            prop_assert_eq!(Barcode::parse(b.as_str()).unwrap(), b);
        }

        #[test]
        fn any_single_digit_change_of_a_gtin_is_refused(
            code in any_gtin(),
            pos in any::<prop::sample::Index>(),
            shift in 1u8..10,
        ) {
            let mut bytes = code.into_bytes();
            let i = pos.index(bytes.len());
            bytes[i] = b'0' + (bytes[i] - b'0' + shift) % 10;
            let typo = String::from_utf8(bytes).unwrap();
            let refused = matches!(Barcode::parse(&typo), Err(BarcodeError::CheckDigit { .. }));
            prop_assert!(refused, "{} passed", typo);
        }
    }
}
