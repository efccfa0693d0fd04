//! Saving a card without a payment: the form ([`CardDraft`]), its validation into the one
//! value that can be sent ([`CardRequest`]), and the card-number helpers every view uses
//! (brand, mask, grouping as typed).
//!
//! The card number (PAN) and the security code are secrets (docs/design.md §3): they live only in
//! [`Zeroizing`] buffers, every copy made here is one too (sized up front, so no reallocation
//! leaves a stray copy behind), `Debug` shows only the mask, and the request body comes back
//! as zeroizing bytes.
//!
//! Rules and decisions:
//! - `cardNumber`: required; spaces and dashes are ignored, anything else but digits is an
//!   error; 12–19 digits; the Luhn check digit must hold.
//! - `expiryMonth`: required, `1`–`12` with or without a leading zero, sent as `01`–`12`.
//! - `expiryYear`: required, four digits, at most [`MAX_YEARS_AHEAD`] years after today (a
//!   typo guard: cards are issued for well under that).
//! - A card is valid through the last day of its expiry month; later than that it is
//!   expired. `Expired` is reported on the year field (it concerns the date as a whole).
//! - `cvv`: optional; digits only; American Express cards have a 4-digit code (printed on
//!   the front), Visa, Mastercard and Troy a 3-digit one; for an unknown brand 3 or 4 digits.
//! - `usage`: empty means `POS_PAYMENT` (the spec's default), else one of the spec values;
//!   always sent.
//! - `cardHolderName`, `alias`, `customerId`: trimmed, at most [`MAX_TEXT_CHARS`] characters,
//!   omitted when empty. `setAsDefault` is sent only when true (false is the spec's default).
//! - Brands: Visa `4`; Mastercard `51`–`55` and `2221`–`2720`; American Express `34`, `37`;
//!   Troy `9792`. Troy also has ranges inside `65` shared with Discover's network, which we do
//!   not know exactly, so those show as unknown rather than guessed.
//! - Masking: first 6 and last 4 digits, the rest `*`; a number of fewer than 13 digits
//!   (so that fewer than 3 would stay hidden) is masked entirely.

use std::fmt;

use chrono::{Datelike, Months, NaiveDate};
use serde::Serialize;
use zeroize::{Zeroize, Zeroizing};

use super::codes::CardUsage;
use super::errors::{Field, FieldErrors, FieldProblem};
use super::items::MAX_TEXT_CHARS;

/// Fewest digits of a card number.
pub const PAN_MIN_DIGITS: usize = 12;
/// Most digits of a card number.
pub const PAN_MAX_DIGITS: usize = 19;
/// How many years after the current one an expiry year may be.
pub const MAX_YEARS_AHEAD: i32 = 20;

/// A card brand, from the number's leading digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CardBrand {
    /// Visa.
    Visa,
    /// Mastercard.
    Mastercard,
    /// American Express.
    Amex,
    /// Troy (Türkiye's domestic scheme).
    Troy,
    /// Anything else, or too few digits to tell.
    Unknown,
}

impl CardBrand {
    /// The brand of a card number; non-digits (spaces, dashes) are skipped.
    pub fn detect(digits: &str) -> CardBrand {
        let mut lead = [0u32; 4];
        let mut n = 0;
        for d in digits.chars().filter_map(|c| c.to_digit(10)).take(4) {
            lead[n] = d;
            n += 1;
        }
        let prefix = |len: usize| (n >= len).then(|| lead[..len].iter().fold(0, |a, d| a * 10 + d));
        if prefix(1) == Some(4) {
            CardBrand::Visa
        } else if matches!(prefix(2), Some(34 | 37)) {
            CardBrand::Amex
        } else if matches!(prefix(2), Some(51..=55)) || matches!(prefix(4), Some(2221..=2720)) {
            CardBrand::Mastercard
        } else if prefix(4) == Some(9792) {
            CardBrand::Troy
        } else {
            CardBrand::Unknown
        }
    }

    /// The brand's name as printed on cards.
    pub fn name(self) -> &'static str {
        match self {
            CardBrand::Visa => "Visa",
            CardBrand::Mastercard => "Mastercard",
            CardBrand::Amex => "American Express",
            CardBrand::Troy => "Troy",
            CardBrand::Unknown => "Unknown",
        }
    }

    /// Fewest and most digits of the security code.
    pub fn cvv_digits(self) -> (usize, usize) {
        match self {
            CardBrand::Amex => (4, 4),
            CardBrand::Visa | CardBrand::Mastercard | CardBrand::Troy => (3, 3),
            CardBrand::Unknown => (3, 4),
        }
    }
}

impl fmt::Display for CardBrand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The number as people may see it: first 6 and last 4 digits, the rest `*`
/// (`4111111111111111` → `411111******1111`); with fewer than 13 digits, all `*`.
/// Non-digits are dropped.
pub fn mask_pan(pan: &str) -> String {
    let n = pan.chars().filter(char::is_ascii_digit).count();
    let reveal = n >= 13;
    pan.chars()
        .filter(char::is_ascii_digit)
        .enumerate()
        .map(|(i, c)| {
            if reveal && (i < 6 || i >= n - 4) {
                c
            } else {
                '*'
            }
        })
        .collect()
}

/// How many digits a masked number may show: the first 6 (BIN) and the last 4.
const VISIBLE_DIGITS: usize = 10;

/// `masked` unchanged when it shows at most 10 digits; else the same text with every digit
/// but the first 6 and the last 4 replaced by `*`.
pub fn safe_masked_pan(masked: &str) -> String {
    let digits = masked.chars().filter(char::is_ascii_digit).count();
    if digits <= VISIBLE_DIGITS {
        return masked.to_owned();
    }
    let mut seen = 0;
    masked
        .chars()
        .map(|c| {
            if !c.is_ascii_digit() {
                return c;
            }
            seen += 1;
            if seen <= 6 || seen > digits - 4 {
                c
            } else {
                '*'
            }
        })
        .collect()
}

/// The digits of what was typed, grouped as printed on the card: `4111 1111 1111 1111`;
/// American Express 4-6-5 (`3782 822463 10005`). Non-digits are dropped.
pub fn group_digits(input: &str) -> String {
    let amex = CardBrand::detect(input) == CardBrand::Amex;
    let digits = input.chars().filter(char::is_ascii_digit).count();
    // Sized once: the number is never copied by a reallocation.
    let mut out = String::with_capacity(digits + digits / 4 + 2);
    for (i, c) in input.chars().filter(char::is_ascii_digit).enumerate() {
        let boundary = if amex {
            i == 4 || i == 10 || (i >= 15 && (i - 15) % 4 == 0)
        } else {
            i > 0 && i % 4 == 0
        };
        if boundary {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// Whether the digits pass the Luhn check.
fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let twice = d * 2;
                if twice > 9 { twice - 9 } else { twice }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// The card form as typed. Number and security code are zeroizing; `Debug` shows the mask.
#[derive(Clone, Default)]
pub struct CardDraft {
    /// Card number as typed (spaces and dashes allowed).
    pub card_number: Zeroizing<String>,
    /// Expiry month, `1`–`12`.
    pub expiry_month: String,
    /// Expiry year, four digits.
    pub expiry_year: String,
    /// Security code.
    pub cvv: Zeroizing<String>,
    /// Name on the card.
    pub card_holder_name: String,
    /// `POS_PAYMENT`, `WALLET_TOPUP`, `BOTH`; empty means `POS_PAYMENT`.
    pub usage: String,
    /// Reminder name.
    pub alias: String,
    /// Make it the default card for its usage.
    pub set_as_default: bool,
    /// Customer the card is stored for; empty for the business's own card.
    pub customer_id: String,
}

/// The fields a card form and its request show as they are in `Debug` (nothing secret in
/// them): the holder's name, the usage, the alias, the default flag and the customer.
macro_rules! holder_fields {
    ($d:expr, $card:expr) => {
        $d.field("card_holder_name", &$card.card_holder_name)
            .field("usage", &$card.usage)
            .field("alias", &$card.alias)
            .field("set_as_default", &$card.set_as_default)
            .field("customer_id", &$card.customer_id)
    };
}

impl fmt::Debug for CardDraft {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("CardDraft");
        d.field("card_number", &mask_pan(&self.card_number))
            .field("expiry_month", &self.expiry_month)
            .field("expiry_year", &self.expiry_year)
            .field(
                "cvv",
                &if self.cvv.is_empty() {
                    ""
                } else {
                    "<redacted>"
                },
            );
        holder_fields!(d, self).finish()
    }
}

/// A trimmed optional text of at most [`MAX_TEXT_CHARS`] characters.
fn optional_text(text: &str, field: Field, errors: &mut FieldErrors) -> Option<String> {
    let t = text.trim();
    if t.chars().count() > MAX_TEXT_CHARS {
        errors.push(
            field,
            FieldProblem::TooLong {
                max: MAX_TEXT_CHARS,
            },
        );
    }
    (!t.is_empty()).then(|| t.to_owned())
}

impl CardDraft {
    /// Validates the form against `today` (the local date), returning the request or every
    /// problem found.
    pub fn validate(&self, today: NaiveDate) -> Result<CardRequest, FieldErrors> {
        let mut errors = FieldErrors::default();

        let mut digits = Zeroizing::new(String::with_capacity(self.card_number.len()));
        let mut stray = false;
        for c in self.card_number.chars() {
            match c {
                '0'..='9' => digits.push(c),
                '-' => {}
                c if c.is_whitespace() => {}
                _ => stray = true,
            }
        }
        let number_ok = if stray {
            errors.push(Field::CardNumber, FieldProblem::NotDigits);
            false
        } else if digits.is_empty() {
            errors.push(Field::CardNumber, FieldProblem::Required);
            false
        } else if !(PAN_MIN_DIGITS..=PAN_MAX_DIGITS).contains(&digits.len()) {
            errors.push(
                Field::CardNumber,
                FieldProblem::WrongLength {
                    min: PAN_MIN_DIGITS,
                    max: PAN_MAX_DIGITS,
                },
            );
            false
        } else if !luhn(&digits) {
            errors.push(Field::CardNumber, FieldProblem::LuhnFailed);
            false
        } else {
            true
        };
        let brand = CardBrand::detect(&digits);

        let month = self.expiry_month.trim();
        let month = if month.is_empty() {
            errors.push(Field::ExpiryMonth, FieldProblem::Required);
            None
        } else {
            let m = (month.len() <= 2 && month.bytes().all(|b| b.is_ascii_digit()))
                .then(|| month.parse::<u32>().ok())
                .flatten()
                .filter(|m| (1..=12).contains(m));
            if m.is_none() {
                errors.push(Field::ExpiryMonth, FieldProblem::BadMonth);
            }
            m
        };

        let year = self.expiry_year.trim();
        let year = if year.is_empty() {
            errors.push(Field::ExpiryYear, FieldProblem::Required);
            None
        } else {
            let y = (year.len() == 4 && year.bytes().all(|b| b.is_ascii_digit()))
                .then(|| year.parse::<i32>().ok())
                .flatten()
                .filter(|y| *y <= today.year() + MAX_YEARS_AHEAD);
            if y.is_none() {
                errors.push(Field::ExpiryYear, FieldProblem::BadYear);
            }
            y
        };

        if let (Some(m), Some(y)) = (month, year) {
            let last_day = NaiveDate::from_ymd_opt(y, m, 1)
                .and_then(|first| first.checked_add_months(Months::new(1)))
                .and_then(|next| next.pred_opt());
            if last_day.is_none_or(|last| last < today) {
                errors.push(Field::ExpiryYear, FieldProblem::Expired);
            }
        }

        let cvv_text = self.cvv.trim();
        let cvv = if cvv_text.is_empty() {
            None
        } else {
            let (min, max) = brand.cvv_digits();
            if cvv_text.bytes().all(|b| b.is_ascii_digit()) && (min..=max).contains(&cvv_text.len())
            {
                Some(Zeroizing::new(cvv_text.to_owned()))
            } else {
                errors.push(Field::Cvv, FieldProblem::BadCvv { min, max });
                None
            }
        };

        let usage = match self.usage.trim() {
            "" => Some(CardUsage::PosPayment),
            u => u
                .parse::<CardUsage>()
                .map_err(|e| errors.push(Field::Usage, e))
                .ok(),
        };

        let card_holder_name =
            optional_text(&self.card_holder_name, Field::CardHolderName, &mut errors);
        let alias = optional_text(&self.alias, Field::Alias, &mut errors);
        let customer_id = optional_text(&self.customer_id, Field::CustomerId, &mut errors);

        match (number_ok, month, year, usage) {
            (true, Some(m), Some(y), Some(usage)) if errors.is_empty() => Ok(CardRequest {
                card_number: digits,
                expiry_month: format!("{m:02}"),
                expiry_year: format!("{y:04}"),
                card_holder_name,
                cvv,
                usage,
                alias,
                set_as_default: self.set_as_default,
                customer_id,
                brand,
            }),
            _ => Err(errors),
        }
    }

    /// Clears the card number and the security code (zeroized); keeps the rest.
    pub fn wipe(&mut self) {
        self.card_number.zeroize();
        self.cvv.zeroize();
    }

    /// Regroups the number as printed on the card, in place; the old text is zeroized.
    pub fn regroup_number(&mut self) {
        self.card_number = Zeroizing::new(group_digits(&self.card_number));
    }

    /// The brand of the number typed so far.
    pub fn brand(&self) -> CardBrand {
        CardBrand::detect(&self.card_number)
    }
}

/// A validated card save request: only [`CardDraft::validate`] builds one. The number and
/// the security code are zeroized when it is dropped; `Debug` shows only the mask.
#[derive(Clone)]
pub struct CardRequest {
    card_number: Zeroizing<String>,
    expiry_month: String,
    expiry_year: String,
    card_holder_name: Option<String>,
    cvv: Option<Zeroizing<String>>,
    usage: CardUsage,
    alias: Option<String>,
    set_as_default: bool,
    customer_id: Option<String>,
    brand: CardBrand,
}

/// The wire body, borrowing from the request (so no unzeroized copy of the PAN exists).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CardBody<'a> {
    card_number: &'a str,
    expiry_month: &'a str,
    expiry_year: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    card_holder_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cvv: Option<&'a str>,
    usage: CardUsage,
    #[serde(skip_serializing_if = "Option::is_none")]
    alias: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    set_as_default: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    customer_id: Option<&'a str>,
}

impl CardRequest {
    /// The exact body bytes, in a zeroizing buffer sized once (no reallocation copies).
    pub fn body_bytes(&self) -> Zeroizing<Vec<u8>> {
        let body = CardBody {
            card_number: &self.card_number,
            expiry_month: &self.expiry_month,
            expiry_year: &self.expiry_year,
            card_holder_name: self.card_holder_name.as_deref(),
            cvv: self.cvv.as_ref().map(|c| c.as_str()),
            usage: self.usage,
            alias: self.alias.as_deref(),
            set_as_default: self.set_as_default,
            customer_id: self.customer_id.as_deref(),
        };
        // Every text could at worst be escaped to six bytes per byte (`\u00XX`).
        let texts = [
            body.card_number,
            body.expiry_month,
            body.expiry_year,
            body.card_holder_name.unwrap_or_default(),
            body.cvv.unwrap_or_default(),
            body.alias.unwrap_or_default(),
            body.customer_id.unwrap_or_default(),
        ];
        let bound = 256 + 6 * texts.iter().map(|t| t.len()).sum::<usize>();
        let mut buf = Zeroizing::new(Vec::with_capacity(bound));
        serde_json::to_writer(&mut *buf, &body)
            .expect("writing strings and booleans into a Vec cannot fail");
        buf
    }

    /// The number as people may see it.
    pub fn masked_pan(&self) -> String {
        mask_pan(&self.card_number)
    }

    /// The card's brand.
    pub fn brand(&self) -> CardBrand {
        self.brand
    }

    /// `expiryMonth`, `01`–`12`.
    pub fn expiry_month(&self) -> &str {
        &self.expiry_month
    }

    /// `expiryYear`, four digits.
    pub fn expiry_year(&self) -> &str {
        &self.expiry_year
    }

    /// `usage`.
    pub fn usage(&self) -> CardUsage {
        self.usage
    }

    /// `cardHolderName`, when sent.
    pub fn card_holder_name(&self) -> Option<&str> {
        self.card_holder_name.as_deref()
    }

    /// `alias`, when sent.
    pub fn alias(&self) -> Option<&str> {
        self.alias.as_deref()
    }

    /// `setAsDefault`.
    pub fn set_as_default(&self) -> bool {
        self.set_as_default
    }

    /// `customerId`, when sent.
    pub fn customer_id(&self) -> Option<&str> {
        self.customer_id.as_deref()
    }

    /// Whether a security code is sent.
    pub fn has_cvv(&self) -> bool {
        self.cvv.is_some()
    }
}

impl fmt::Debug for CardRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("CardRequest");
        d.field("card_number", &self.masked_pan())
            .field("brand", &self.brand)
            .field("expiry_month", &self.expiry_month)
            .field("expiry_year", &self.expiry_year)
            .field("cvv", &self.cvv.as_ref().map(|_| "<redacted>"));
        holder_fields!(d, self).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
    }

    #[test]
    fn masks_keep_at_most_the_bin_and_the_last_four() {
        let table = [
            ("411111******1111", "411111******1111"),
            ("4111111111111111", "411111******1111"),
            ("4111 1111 1111 1111", "4111 11** **** 1111"),
            ("**** **** **** 1111", "**** **** **** 1111"),
            ("5400010000000004", "540001******0004"),
            ("", ""),
        ];
        for (input, want) in table {
            assert_eq!(safe_masked_pan(input), want, "{input}");
        }
    }

    fn draft(number: &str, month: &str, year: &str) -> CardDraft {
        CardDraft {
            card_number: Zeroizing::new(number.to_owned()),
            expiry_month: month.to_owned(),
            expiry_year: year.to_owned(),
            ..CardDraft::default()
        }
    }

    /// `prefix` completed with its Luhn check digit.
    fn with_check_digit(prefix: &str) -> String {
        (0..10)
            .map(|d| format!("{prefix}{d}"))
            .find(|n| luhn(n))
            .unwrap()
    }

    /// An edit of the base draft.
    type Edit = Box<dyn Fn(&mut CardDraft)>;
    /// A named edit and the exact errors it must give.
    type RuleCase = (&'static str, Edit, Field, FieldProblem);
    /// Today (y, m, d), expiry month, expiry year, whether the card is still valid.
    type ExpiryCase = ((i32, u32, u32), &'static str, &'static str, bool);

    const VECTOR_2_BODY: &str = r#"{"cardNumber":"4111111111111111","expiryMonth":"12","expiryYear":"2030","cardHolderName":"AYŞE YILMAZ","usage":"POS_PAYMENT"}"#;

    #[test]
    fn the_second_signature_vector_draft_gives_its_body_byte_for_byte() {
        let d = CardDraft {
            card_holder_name: " AYŞE YILMAZ ".into(),
            ..draft("4111 1111 1111 1111", "12", "2030")
        };
        let req = d.validate(today()).unwrap();
        assert_eq!(req.body_bytes().as_slice(), VECTOR_2_BODY.as_bytes());
        assert_eq!(req.masked_pan(), "411111******1111");
        assert_eq!(req.brand(), CardBrand::Visa);
        assert_eq!(req.usage(), CardUsage::PosPayment);
    }

    #[test]
    fn every_field_filled_gives_the_full_body() {
        let d = CardDraft {
            cvv: Zeroizing::new(" 1234 ".into()),
            card_holder_name: "JOHN DOE".into(),
            usage: "both".into(),
            alias: " İş kartı ".into(),
            set_as_default: true,
            customer_id: "cust-42".into(),
            ..draft("3782-822463-10005", "3", "2031")
        };
        let req = d.validate(today()).unwrap();
        assert_eq!(
            String::from_utf8(req.body_bytes().to_vec()).unwrap(),
            r#"{"cardNumber":"378282246310005","expiryMonth":"03","expiryYear":"2031","cardHolderName":"JOHN DOE","cvv":"1234","usage":"BOTH","alias":"İş kartı","setAsDefault":true,"customerId":"cust-42"}"#
        );
        assert_eq!(req.brand(), CardBrand::Amex);
        assert!(req.has_cvv());
    }

    #[test]
    fn each_rule_reports_its_exact_field_and_problem() {
        use Field::{Alias, CardHolderName, CardNumber, CustomerId, Cvv, ExpiryMonth, ExpiryYear};
        use FieldProblem::{BadCvv, BadMonth, BadYear, Expired, LuhnFailed, NotDigits, Required};
        let amex = "378282246310005";
        let visa = "4111111111111111";
        let unknown = with_check_digit("600000000000000");
        let set_number = |n: &str| -> Edit {
            let n = n.to_owned();
            Box::new(move |d| d.card_number = Zeroizing::new(n.clone()))
        };
        // An empty part is left as the draft has it.
        let set_expiry = |month: &'static str, year: &'static str| -> Edit {
            Box::new(move |d| {
                if !month.is_empty() {
                    d.expiry_month = month.into();
                }
                if !year.is_empty() {
                    d.expiry_year = year.into();
                }
            })
        };
        let set_cvv = |number: &str, cvv: &'static str| -> Edit {
            let number = number.to_owned();
            Box::new(move |d| {
                d.card_number = Zeroizing::new(number.clone());
                d.cvv = Zeroizing::new(cvv.into());
            })
        };
        let length = FieldProblem::WrongLength { min: 12, max: 19 };
        let long = FieldProblem::TooLong { max: 255 };
        let cash = FieldProblem::UnknownCode(crate::domain::UnknownCode {
            value: "CASH".into(),
            allowed: "POS_PAYMENT, WALLET_TOPUP, BOTH".into(),
        });
        // One row per rule, so the rules covered read in one place.
        #[rustfmt::skip]
        let cases: Vec<RuleCase> = vec![
            ("number empty", set_number("  "), CardNumber, Required),
            ("number letters", set_number("4111 1111 1111 111a"), CardNumber, NotDigits),
            ("number short", set_number("41111111111"), CardNumber, length.clone()),
            ("number long", set_number("41111111111111111111"), CardNumber, length),
            ("luhn", set_number("4111111111111112"), CardNumber, LuhnFailed),
            ("month empty", Box::new(|d| d.expiry_month = String::new()), ExpiryMonth, Required),
            ("month 13", set_expiry("13", ""), ExpiryMonth, BadMonth),
            ("month 0", set_expiry("00", ""), ExpiryMonth, BadMonth),
            ("month 3 digits", set_expiry("012", ""), ExpiryMonth, BadMonth),
            ("month word", set_expiry("May", ""), ExpiryMonth, BadMonth),
            ("year empty", set_expiry("", " "), ExpiryYear, Required),
            ("year 2 digits", set_expiry("", "30"), ExpiryYear, BadYear),
            ("year far", set_expiry("", "2047"), ExpiryYear, BadYear),
            ("last month", set_expiry("10", "2026"), ExpiryYear, Expired),
            ("last year", set_expiry("12", "2025"), ExpiryYear, Expired),
            ("cvv short", set_cvv(visa, "12"), Cvv, BadCvv { min: 3, max: 3 }),
            ("cvv 4 on visa", set_cvv(visa, "1234"), Cvv, BadCvv { min: 3, max: 3 }),
            ("cvv letters", set_cvv(visa, "12a"), Cvv, BadCvv { min: 3, max: 3 }),
            ("cvv 3 on amex", set_cvv(amex, "123"), Cvv, BadCvv { min: 4, max: 4 }),
            ("cvv 2 on unknown", set_cvv(&unknown, "12"), Cvv, BadCvv { min: 3, max: 4 }),
            ("usage", Box::new(|d| d.usage = "CASH".into()), Field::Usage, cash),
            ("holder long", Box::new(|d| d.card_holder_name = "A".repeat(256)), CardHolderName, long.clone()),
            ("alias long", Box::new(|d| d.alias = "A".repeat(256)), Alias, long.clone()),
            ("customer long", Box::new(|d| d.customer_id = "A".repeat(256)), CustomerId, long),
        ];
        for (name, edit, field, problem) in cases {
            let mut d = draft(visa, "12", "2030");
            edit(&mut d);
            let got = d.validate(today()).expect_err(name);
            let want = vec![crate::domain::FieldError::new(field, problem)];
            assert_eq!(got.0, want, "{name}");
        }
    }

    #[test]
    fn a_card_is_valid_through_the_end_of_its_month() {
        let cases: &[ExpiryCase] = &[
            ((2026, 11, 22), "11", "2026", true),
            ((2026, 11, 30), "11", "2026", true),
            ((2026, 12, 1), "11", "2026", false),
            ((2024, 2, 29), "2", "2024", true),
            ((2024, 3, 1), "02", "2024", false),
            ((2026, 12, 31), "12", "2026", true),
            ((2027, 1, 1), "12", "2026", false),
            ((2026, 11, 22), "1", "2046", true),
        ];
        for ((y, m, d), month, year, valid) in cases {
            let today = NaiveDate::from_ymd_opt(*y, *m, *d).unwrap();
            let got = draft("5555 5555 5555 4444", month, year).validate(today);
            match got {
                Ok(req) => {
                    assert!(*valid, "{month}/{year} on {today}");
                    assert_eq!(req.expiry_month().len(), 2);
                    assert_eq!(req.expiry_year(), *year);
                }
                Err(e) => {
                    assert!(!valid, "{month}/{year} on {today}: {e}");
                    assert_eq!(
                        e.0,
                        [crate::domain::FieldError::new(
                            Field::ExpiryYear,
                            FieldProblem::Expired
                        )]
                    );
                }
            }
        }
    }

    #[test]
    fn optional_fields_default_and_normalise() {
        let req = CardDraft {
            usage: " wallet_topup ".into(),
            cvv: Zeroizing::new("123".into()),
            ..draft("4111111111111111", "7", "2030")
        }
        .validate(today())
        .unwrap();
        assert_eq!(req.usage(), CardUsage::WalletTopup);
        assert_eq!(req.expiry_month(), "07");
        assert_eq!(req.card_holder_name(), None);
        assert_eq!(req.alias(), None);
        assert_eq!(req.customer_id(), None);
        assert!(!req.set_as_default());
        assert_eq!(
            String::from_utf8(req.body_bytes().to_vec()).unwrap(),
            r#"{"cardNumber":"4111111111111111","expiryMonth":"07","expiryYear":"2030","cvv":"123","usage":"WALLET_TOPUP"}"#
        );
    }

    #[test]
    fn brands_are_detected_from_the_leading_digits() {
        let cases: &[(&str, CardBrand)] = &[
            ("4111111111111111", CardBrand::Visa),
            ("4", CardBrand::Visa),
            ("5105105105105100", CardBrand::Mastercard),
            ("5555 5555 5555 4444", CardBrand::Mastercard),
            ("5099", CardBrand::Unknown),
            ("5600", CardBrand::Unknown),
            ("2221000000000009", CardBrand::Mastercard),
            ("2720990000000000", CardBrand::Mastercard),
            ("2220990000000000", CardBrand::Unknown),
            ("2721000000000000", CardBrand::Unknown),
            ("222", CardBrand::Unknown),
            ("378282246310005", CardBrand::Amex),
            ("3400", CardBrand::Amex),
            ("3530111333300000", CardBrand::Unknown),
            ("9792030000000000", CardBrand::Troy),
            ("9791", CardBrand::Unknown),
            ("6011111111111117", CardBrand::Unknown),
            ("", CardBrand::Unknown),
        ];
        for (digits, brand) in cases {
            assert_eq!(CardBrand::detect(digits), *brand, "{digits}");
        }
        assert_eq!(CardBrand::Amex.to_string(), "American Express");
        assert_eq!(CardBrand::Troy.name(), "Troy");
    }

    #[test]
    fn numbers_are_masked_and_grouped() {
        let masks: &[(&str, &str)] = &[
            ("4111111111111111", "411111******1111"),
            ("4111 1111 1111 1111", "411111******1111"),
            ("378282246310005", "378282*****0005"),
            ("4111111111111111111", "411111*********1111"),
            ("4111111111111", "411111***1111"),
            ("411111111111", "************"),
            ("4111", "****"),
            ("", ""),
        ];
        let groups: &[(&str, &str)] = &[
            ("4111111111111111", "4111 1111 1111 1111"),
            ("4111-1111 11", "4111 1111 11"),
            ("41111", "4111 1"),
            ("4111", "4111"),
            ("378282246310005", "3782 822463 10005"),
            ("3782822", "3782 822"),
            ("4111111111111111111", "4111 1111 1111 1111 111"),
            ("", ""),
        ];
        let shape: fn(&str) -> String = mask_pan;
        for (shape, cases) in [(shape, masks), (group_digits, groups)] {
            for (input, want) in cases {
                assert_eq!(shape(input), *want, "{input}");
            }
        }
        let mut d = draft("378282246310005", "", "");
        d.regroup_number();
        assert_eq!(d.card_number.as_str(), "3782 822463 10005");
        assert_eq!(d.brand(), CardBrand::Amex);
    }

    #[test]
    fn debug_output_never_shows_the_number_or_the_security_code() {
        let pan = with_check_digit("453214870395826");
        let d = CardDraft {
            cvv: Zeroizing::new("987".into()),
            ..draft(&pan, "12", "2030")
        };
        let req = d.validate(today()).unwrap();
        for shown in [format!("{d:?}"), format!("{req:?}"), format!("{req:#?}")] {
            for run in pan.as_bytes().windows(7) {
                let run = std::str::from_utf8(run).unwrap();
                assert!(!shown.contains(run), "{run} in {shown}");
            }
            assert!(shown.contains(&mask_pan(&pan)), "{shown}");
            assert!(!shown.contains("987"), "{shown}");
        }
    }

    #[test]
    fn wipe_clears_number_and_code_and_keeps_the_rest() {
        let mut d = CardDraft {
            cvv: Zeroizing::new("123".into()),
            card_holder_name: "AYŞE YILMAZ".into(),
            ..draft("4111111111111111", "12", "2030")
        };
        d.wipe();
        assert!(d.card_number.is_empty());
        assert!(d.cvv.is_empty());
        assert_eq!(d.card_holder_name, "AYŞE YILMAZ");
        assert_eq!(d.expiry_month, "12");
        assert_eq!(
            d.validate(today()).unwrap_err().0,
            [crate::domain::FieldError::new(
                Field::CardNumber,
                FieldProblem::Required
            )]
        );
    }

    #[test]
    fn the_luhn_check_matches_known_numbers() {
        for good in [
            "4111111111111111",
            "5555555555554444",
            "378282246310005",
            "79927398713",
        ] {
            assert!(luhn(good), "{good}");
        }
        for bad in ["4111111111111112", "79927398710", "1234567812345678"] {
            assert!(!luhn(bad), "{bad}");
        }
    }
}
