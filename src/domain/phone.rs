//! A payer's mobile phone number, validated for sending a payment link by WhatsApp.
//!
//! Two ways in:
//! - [`Phone::from_api`]: the API's pair `phoneCountryCode` + `phoneNumber` (the code with or
//!   without `+` or `00`, the number as the link form kept it, a leading `0` included);
//! - [`Phone::parse`]: one text as staff type it in Türkiye, with a default country code
//!   ([`DEFAULT_COUNTRY_CODE`], 90, unless the caller passes another): `0532 123 45 67`,
//!   `+90 532 123 45 67`, `0090 532…`, `90 532…`, `532 123 45 67`; spaces, dashes, dots and
//!   parentheses are ignored.
//!
//! How a typed text is read, in order:
//! 1. `+` or `00` in front: the country code follows; it is split off by the ITU's table of
//!    country code lengths (1, 7 and the two-digit codes listed in [`country_code_len`]; every
//!    other code has three digits);
//! 2. digits that begin with the default country code and read as a possible number after it
//!    (`90 532 123 45 67`): that code and that number;
//! 3. otherwise a national number in the default country: one leading trunk `0` is dropped
//!    (`0532…` → `532…`).
//!
//! What is accepted:
//! - country code 90 (Türkiye): a mobile number is 10 national digits beginning with 5; a `0`
//!   written before them is dropped in every form;
//! - any other country code: E.164's lengths only (country code and national number together
//!   at most 15 digits, the national number at least 6), since paydesk holds no numbering plan
//!   of other countries.
//!
//! A refusal is a [`PhoneError`], told as a [`FieldError`] of the phone number field
//! ("Telefon numarası: …" / "Phone number: …"; a wrong code names the country code field).
//! A phone is personal data: its `Debug` shows only [`Phone::masked`].

use std::fmt;

use super::errors::{Field, FieldError, FieldProblem};
use crate::lang::Lang;

/// The country code a typed number without one belongs to, unless the caller says otherwise:
/// Türkiye.
pub const DEFAULT_COUNTRY_CODE: u16 = 90;

/// Türkiye's country code, whose mobile numbers get the strict rule and the Turkish mask.
const TURKIYE: u16 = 90;

/// E.164: at most this many digits, country code included.
pub const MAX_E164_DIGITS: usize = 15;

/// The fewest national digits accepted outside Türkiye.
pub const MIN_NATIONAL_DIGITS: usize = 6;

/// A validated mobile phone number: a country code and the national number, digits only.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Phone {
    country_code: u16,
    national: String,
}

/// Why a phone number was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message(Lang::En))]
pub enum PhoneError {
    /// Nothing (or only separators) was given.
    Empty,
    /// The country code is not 1 to 3 digits without a leading zero.
    BadCountryCode,
    /// Characters other than digits and separators.
    NotDigits,
    /// Country code 90 and not 10 digits beginning with 5.
    NotTurkishMobile,
    /// Another country code and more than 15 digits in all, or fewer than 6 national digits.
    BadLength,
}

impl PhoneError {
    /// The field the error belongs to, and why, as the forms tell it.
    pub fn field_error(&self) -> FieldError {
        let (field, problem) = match self {
            PhoneError::Empty => (Field::PhoneNumber, FieldProblem::Required),
            PhoneError::BadCountryCode => (Field::PhoneCountryCode, FieldProblem::BadCountryCode),
            PhoneError::NotDigits => (Field::PhoneNumber, FieldProblem::NotDigits),
            PhoneError::NotTurkishMobile => (Field::PhoneNumber, FieldProblem::NotTurkishMobile),
            PhoneError::BadLength => (
                Field::PhoneNumber,
                FieldProblem::PhoneLength {
                    max: MAX_E164_DIGITS,
                    min: MIN_NATIONAL_DIGITS,
                },
            ),
        };
        FieldError::new(field, problem)
    }

    /// `"<field>: <why>"` in `lang` ("Telefon numarası: …").
    pub fn message(&self, lang: Lang) -> String {
        self.field_error().message(lang)
    }
}

impl Phone {
    /// The API's pair: `phoneCountryCode` (`90`, `+90`, `0090`) and `phoneNumber` (separators
    /// ignored; for 90 a leading `0` is dropped).
    pub fn from_api(country_code: &str, number: &str) -> Result<Phone, PhoneError> {
        let code = country_code.trim();
        let code = code
            .strip_prefix('+')
            .or_else(|| code.strip_prefix("00"))
            .unwrap_or(code)
            .trim_start();
        let country_code = parse_country_code(code)?;
        let digits = clean(number)?;
        Phone::new(country_code, &digits)
    }

    /// A number as typed (see the module's doc for the forms), in `default_country_code`'s
    /// country unless it names its own.
    pub fn parse(text: &str, default_country_code: u16) -> Result<Phone, PhoneError> {
        let trimmed = text.trim_start();
        let (international, rest) = match trimmed.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        let digits = clean(rest)?;
        if international || digits.starts_with("00") {
            let digits = if international {
                digits.as_str()
            } else {
                &digits[2..]
            };
            let len = country_code_len(digits).ok_or(PhoneError::BadCountryCode)?;
            let country_code = parse_country_code(&digits[..len])?;
            return Phone::new(country_code, &digits[len..]);
        }
        let default = default_country_code.to_string();
        if let Some(national) = digits.strip_prefix(default.as_str())
            && let Ok(phone) = Phone::new(default_country_code, national)
        {
            return Ok(phone);
        }
        let national = digits.strip_prefix('0').unwrap_or(&digits);
        Phone::new(default_country_code, national)
    }

    /// Checks a country code and national digits (digits only already).
    fn new(country_code: u16, national: &str) -> Result<Phone, PhoneError> {
        if !(1..=999).contains(&country_code) {
            return Err(PhoneError::BadCountryCode);
        }
        if country_code == TURKIYE {
            let national = national.strip_prefix('0').unwrap_or(national);
            if national.len() != 10 || !national.starts_with('5') {
                return Err(PhoneError::NotTurkishMobile);
            }
            return Ok(Phone {
                country_code,
                national: national.to_owned(),
            });
        }
        let code_digits = country_code.to_string().len();
        if national.len() < MIN_NATIONAL_DIGITS || code_digits + national.len() > MAX_E164_DIGITS {
            return Err(PhoneError::BadLength);
        }
        Ok(Phone {
            country_code,
            national: national.to_owned(),
        })
    }

    /// The country code (`90`).
    pub fn country_code(&self) -> u16 {
        self.country_code
    }

    /// The national number, digits only, without a trunk `0` (`5321234567`).
    pub fn national(&self) -> &str {
        &self.national
    }

    /// Country code and number as one run of digits, as `wa.me` wants it (`905321234567`).
    pub fn wa_digits(&self) -> String {
        format!("{}{}", self.country_code, self.national)
    }

    /// E.164 with its `+` (`+905321234567`), as the API's pair writes it whole.
    pub fn e164(&self) -> String {
        format!("+{}", self.wa_digits())
    }

    /// The number as staff may see it in a list or an audit row, most digits hidden.
    ///
    /// Türkiye, as Turkish numbers are written: `0532 *** ** 67` (the operator prefix and the
    /// last two digits). Other countries: `+44 7*** ***123`: the country code, the national
    /// number's first digit, the middle as two groups of `*` and its last three digits (two
    /// when it has fewer than 9 digits), so at most half of a short number shows.
    pub fn masked(&self) -> String {
        let n = &self.national;
        if self.country_code == TURKIYE {
            return format!("0{} *** ** {}", &n[..3], &n[8..]);
        }
        let tail = if n.len() >= 9 { 3 } else { 2 };
        let hidden = n.len() - 1 - tail;
        let first = hidden.div_ceil(2);
        format!(
            "+{} {}{} {}{}",
            self.country_code,
            &n[..1],
            "*".repeat(first),
            "*".repeat(hidden - first),
            &n[n.len() - tail..]
        )
    }
}

impl fmt::Debug for Phone {
    /// Personal data: only the mask.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Phone").field(&self.masked()).finish()
    }
}

/// Digits of a typed number with spaces, dashes, dots and parentheses removed; `NotDigits` on
/// any other character, `Empty` when no digit is left.
fn clean(text: &str) -> Result<String, PhoneError> {
    let mut digits = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '0'..='9' => digits.push(c),
            ' ' | '\u{a0}' | '\t' | '-' | '.' | '(' | ')' => {}
            _ => return Err(PhoneError::NotDigits),
        }
    }
    if digits.is_empty() {
        Err(PhoneError::Empty)
    } else {
        Ok(digits)
    }
}

/// A country code given apart: 1 to 3 digits, the first not `0`.
fn parse_country_code(code: &str) -> Result<u16, PhoneError> {
    if !(1..=3).contains(&code.len())
        || !code.bytes().all(|b| b.is_ascii_digit())
        || code.starts_with('0')
    {
        return Err(PhoneError::BadCountryCode);
    }
    code.parse().map_err(|_| PhoneError::BadCountryCode)
}

/// How many leading digits of an international number are its country code, by the ITU's
/// assignment (country codes are prefix-free): 1 (North America) and 7 (Russia, Kazakhstan)
/// have one digit; 20, 27, 30–34, 36, 39, 40, 41, 43–49, 51–58, 60–66, 81, 82, 84, 86, 90–95
/// and 98 have two; every other code has three. `None` for a number beginning with 0.
pub fn country_code_len(digits: &str) -> Option<usize> {
    const TWO_DIGITS: [&str; 44] = [
        "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46",
        "47", "48", "49", "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63",
        "64", "65", "66", "81", "82", "84", "86", "90", "91", "92", "93", "94", "95", "98",
    ];
    let first = digits.chars().next()?;
    match first {
        '0' => None,
        '1' | '7' => Some(1),
        _ if digits.len() < 2 => None,
        _ if TWO_DIGITS.contains(&&digits[..2]) => Some(2),
        _ if digits.len() < 3 => None,
        _ => Some(3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tr(text: &str) -> Result<Phone, PhoneError> {
        Phone::parse(text, DEFAULT_COUNTRY_CODE)
    }

    #[test]
    fn every_turkish_way_of_writing_a_mobile_gives_the_same_number() {
        for text in [
            "0532 123 45 67",
            "05321234567",
            "0 (532) 123-45-67",
            "+90 532 123 45 67",
            "+90 (532) 123 45 67",
            "+90-532-123-45-67",
            "+905321234567",
            "+90 0532 123 45 67",
            "0090 532 123 45 67",
            "90 532 123 45 67",
            "905321234567",
            "532 123 45 67",
            "532-123-45-67",
            "(532) 123.45.67",
            "  5321234567  ",
        ] {
            let phone = tr(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(phone.country_code(), 90, "{text}");
            assert_eq!(phone.national(), "5321234567", "{text}");
            assert_eq!(phone.wa_digits(), "905321234567", "{text}");
            assert_eq!(phone.e164(), "+905321234567", "{text}");
        }
    }

    #[test]
    fn the_api_pair_is_read_with_or_without_plus_and_trunk_zero() {
        for (code, number) in [
            ("90", "5321234567"),
            ("+90", "0532 123 45 67"),
            ("0090", "532-123-45-67"),
            (" 90 ", "(532) 123 45 67"),
        ] {
            let phone = Phone::from_api(code, number).expect(number);
            assert_eq!(phone.wa_digits(), "905321234567", "{code} {number}");
        }
        let uk = Phone::from_api("+44", "7700 900123").expect("uk");
        assert_eq!(uk.wa_digits(), "447700900123");
    }

    #[test]
    fn other_countries_follow_e164_lengths_only() {
        let uk = tr("+44 7700 900123").expect("uk");
        assert_eq!((uk.country_code(), uk.national()), (44, "7700900123"));
        let us = tr("+1 (415) 555-2671").expect("us");
        assert_eq!((us.country_code(), us.national()), (1, "4155552671"));
        let ie = tr("00353 85 123 4567").expect("ie");
        assert_eq!((ie.country_code(), ie.national()), (353, "851234567"));
        // A typed national number in another default country drops its trunk 0.
        let gb = Phone::parse("07700 900123", 44).expect("gb national");
        assert_eq!(gb.wa_digits(), "447700900123");
        // And digits beginning with that default code are read with it.
        let gb = Phone::parse("44 7700 900123", 44).expect("gb with code");
        assert_eq!(gb.wa_digits(), "447700900123");
        // Six national digits is the floor, fifteen in all the ceiling.
        assert!(tr("+44 123456").is_ok());
        assert_eq!(tr("+44 12345"), Err(PhoneError::BadLength));
        assert!(tr("+44 1234567890123").is_ok());
        assert_eq!(tr("+44 12345678901234"), Err(PhoneError::BadLength));
        assert!(tr("+353 123456789012").is_ok());
        assert_eq!(tr("+353 1234567890123"), Err(PhoneError::BadLength));
    }

    #[test]
    fn what_is_not_a_turkish_mobile_is_refused_naming_the_field() {
        for text in [
            "0212 123 45 67",    // Istanbul landline
            "+90 212 123 45 67", // the same with the code
            "0532 123 45 6",     // a digit short
            "0532 123 45 678",   // a digit long
            "90 532 123 45 6",   // short with the code
            "444 1 234",         // a call centre
            "5",                 // one digit
        ] {
            assert_eq!(tr(text), Err(PhoneError::NotTurkishMobile), "{text}");
        }
        let e = tr("0212 123 45 67").expect_err("landline");
        assert_eq!(e.field_error().field, Field::PhoneNumber);
        assert!(
            e.message(Lang::Tr).starts_with("Telefon numarası: "),
            "{}",
            e.message(Lang::Tr)
        );
        assert!(
            e.message(Lang::En).starts_with("Phone number: "),
            "{}",
            e.message(Lang::En)
        );
        assert!(e.message(Lang::En).contains('5'), "{}", e.message(Lang::En));
        assert_eq!(e.to_string(), e.message(Lang::En));
    }

    #[test]
    fn letters_empty_texts_and_bad_codes_are_refused() {
        assert_eq!(tr("0532 ABC 45 67"), Err(PhoneError::NotDigits));
        assert_eq!(tr("+90 532 123 45 67 ext 2"), Err(PhoneError::NotDigits));
        assert_eq!(tr("   "), Err(PhoneError::Empty));
        assert_eq!(tr("( ) -"), Err(PhoneError::Empty));
        assert_eq!(tr("+"), Err(PhoneError::Empty));
        assert_eq!(tr("+0 532 123 45 67"), Err(PhoneError::BadCountryCode));
        assert_eq!(
            Phone::from_api("9000", "5321234567"),
            Err(PhoneError::BadCountryCode)
        );
        assert_eq!(
            Phone::from_api("", "5321234567"),
            Err(PhoneError::BadCountryCode)
        );
        assert_eq!(Phone::from_api("90", ""), Err(PhoneError::Empty));
        let e = PhoneError::Empty;
        assert!(e.message(Lang::Tr).starts_with("Telefon numarası: "));
        let code = PhoneError::BadCountryCode;
        assert!(code.message(Lang::En).starts_with("Country code: "));
        let long = PhoneError::BadLength;
        assert!(long.message(Lang::En).starts_with("Phone number: "));
        assert!(
            long.message(Lang::En).contains("15"),
            "{}",
            long.message(Lang::En)
        );
    }

    #[test]
    fn the_mask_shows_a_turkish_number_as_written_and_hides_the_middle_elsewhere() {
        assert_eq!(tr("0532 123 45 67").expect("tr").masked(), "0532 *** ** 67");
        assert_eq!(
            tr("+44 7700 900123").expect("uk").masked(),
            "+44 7*** ***123"
        );
        assert_eq!(
            tr("+1 415 555 2671").expect("us").masked(),
            "+1 4*** ***671"
        );
        assert_eq!(tr("+44 123456").expect("short").masked(), "+44 1** *56");
        let debug = format!("{:?}", tr("0532 123 45 67").expect("tr"));
        assert!(!debug.contains("1234567"), "{debug}");
        assert!(debug.contains("0532 *** ** 67"), "{debug}");
    }

    #[test]
    fn country_codes_split_by_the_itu_lengths() {
        assert_eq!(country_code_len("14155552671"), Some(1));
        assert_eq!(country_code_len("79161234567"), Some(1));
        assert_eq!(country_code_len("905321234567"), Some(2));
        assert_eq!(country_code_len("447700900123"), Some(2));
        assert_eq!(country_code_len("353851234567"), Some(3));
        assert_eq!(country_code_len("971501234567"), Some(3));
        assert_eq!(country_code_len("0532"), None);
        assert_eq!(country_code_len(""), None);
    }
}
