//! Money as staff type it and as people read it: the one place where text becomes an exact
//! `Decimal` amount and back. Nothing here uses floating point.
//!
//! # What `parse_amount` accepts
//!
//! - Blanks around the number are ignored (` 75 ` is 75).
//! - The link currency's symbol or ISO code may stand before or after the number, with or
//!   without a space (`₺150`, `150 ₺`, `150 TRY`, `try 150`; for TRY also `TL`). Another
//!   currency's symbol or code is an error that names it (`$5` for a TRY link), so a price
//!   copied from the wrong place is not taken silently.
//! - A minus sign (`-` or `−`) is recognised only to say "negative amounts are not allowed".
//! - Digits, with `.` or `,` as the decimal separator, and `.`, `,`, a space (also the
//!   no-break spaces) or an apostrophe (`1'234.50`) as the thousands separator. The number must
//!   start and end with a digit (`.5`, `5.` are rejected). Thousands groups are checked: the
//!   first group has 1–3 digits, every further group exactly 3 (`1.23.456` is rejected).
//!
//! # Which separator is the decimal one
//!
//! 1. Both `.` and `,` present: the last one is the decimal separator, it must occur once,
//!    and the other one groups thousands (`1.234,50` and `1,234.50` are both 1234.50).
//! 2. Only one of them, several times: it groups thousands (`1.234.567` is 1234567).
//! 3. Only one of them, once, and spaces or apostrophes group thousands: it is the decimal
//!    separator (`1 234,50`).
//! 4. Only one of them, once, alone: it is the decimal separator (`1234,5`, `12.50`) unless it
//!    is followed by exactly three digits and the part before it could be a thousands group
//!    (1–3 digits, not starting with 0). That is the **ambiguous** case: `1,234` is 1234 to an
//!    English reader and 1,234 to a Turkish one. For a currency without minor units (JPY) only
//!    the thousands reading is possible, so it is taken (`1.234` JPY is 1234); for every other
//!    currency the input is rejected as ambiguous, because three decimals are not allowed
//!    either and guessing would risk a thousandfold error. `10.123` TRY is therefore reported
//!    as ambiguous, while `0.123` or `1234.567` (which cannot be grouping) are reported as too
//!    many decimals.
//!
//! More decimals than the currency's minor units is an error (`10.5` JPY); trailing zeros are
//! not dropped to make an input fit. The result is rescaled to the currency's minor units
//! (`150` TRY is `150.00`), which is how it goes on the wire. Zero parses: "greater than zero"
//! is a rule of the link, not of money. At most [`MAX_INTEGER_DIGITS`] integer digits are
//! accepted (an assumption far above any real link, keeping sums far from overflow).
//!
//! `AmountError::message` words each refusal from the domain's catalogue
//! ([`super::messages::DomainMessage`]); `format_amount` writes figures in the reader's
//! language (separators and symbol place are number formatting, not sentences).

use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};

pub use super::codes::Currency;
use super::messages::DomainMessage;
use crate::lang::Lang;

/// The most integer digits an amount may have.
pub const MAX_INTEGER_DIGITS: usize = 15;

/// Why a typed amount was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message(Lang::En))]
pub enum AmountError {
    /// Nothing (or only blanks) was typed.
    Empty,
    /// Not a number.
    NotANumber,
    /// A minus sign: amounts are never negative.
    Negative,
    /// More digits after the decimal separator than the currency has.
    TooManyDecimals {
        /// The currency's minor units.
        max: u32,
    },
    /// A single separator followed by three digits: thousands or decimals cannot be told apart.
    Ambiguous {
        /// The number as typed (without currency and blanks around it).
        text: String,
    },
    /// Thousands groups of the wrong size, or two kinds of thousands separators.
    BadGrouping,
    /// Another currency's symbol or code was typed.
    WrongCurrency {
        /// The currency named in the input.
        found: Currency,
        /// The currency of the form.
        expected: Currency,
    },
    /// More than [`MAX_INTEGER_DIGITS`] integer digits.
    TooLarge,
}

impl AmountError {
    /// A sentence saying why, in the given language.
    pub fn message(&self, lang: Lang) -> String {
        let m = match self {
            AmountError::Empty => DomainMessage::AmountEmpty,
            AmountError::NotANumber => DomainMessage::AmountNotANumber,
            AmountError::Negative => DomainMessage::AmountNegative,
            AmountError::TooManyDecimals { max: 0 } => DomainMessage::AmountNoMinorUnits,
            AmountError::TooManyDecimals { max } => {
                return DomainMessage::AmountTooManyDecimals.fill(lang, &[("max", max)]);
            }
            AmountError::Ambiguous { text } => {
                return DomainMessage::AmountAmbiguous.fill(lang, &[("text", text)]);
            }
            AmountError::BadGrouping => DomainMessage::AmountBadGrouping,
            AmountError::WrongCurrency { found, expected } => {
                return DomainMessage::AmountWrongCurrency
                    .fill(lang, &[("found", found), ("expected", expected)]);
            }
            AmountError::TooLarge => {
                return DomainMessage::AmountTooLarge.fill(lang, &[("max", &MAX_INTEGER_DIGITS)]);
            }
        };
        m.get(lang).to_owned()
    }
}

/// Reads an amount as staff type it (see the module documentation for the exact rules) and
/// rescales it to the currency's minor units.
pub fn parse_amount(input: &str, currency: Currency) -> Result<Decimal, AmountError> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(AmountError::Empty);
    }
    let (core, negative, named) = strip_decoration(trimmed);
    if let Some(found) = named.iter().copied().find(|c| *c != currency) {
        return Err(AmountError::WrongCurrency {
            found,
            expected: currency,
        });
    }
    let number = split_number(core)?;
    if negative {
        return Err(AmountError::Negative);
    }
    let (integer, fraction) = number.resolve(core, currency)?;
    let max = currency.minor_units();
    if fraction.len() > max as usize {
        return Err(AmountError::TooManyDecimals { max });
    }
    if integer.trim_start_matches('0').len() > MAX_INTEGER_DIGITS {
        return Err(AmountError::TooLarge);
    }
    let text = if fraction.is_empty() {
        integer
    } else {
        format!("{integer}.{fraction}")
    };
    let mut value = Decimal::from_str(&text).map_err(|_| AmountError::TooLarge)?;
    value.rescale(max);
    Ok(value)
}

/// The amount as a plain number for an input field or the wire: rescaled to the currency's
/// minor units, `.` as the decimal separator, no grouping (`1234.50`, JPY `1234`). Reads back
/// unambiguously with [`parse_amount`].
pub fn format_plain(amount: Decimal, currency: Currency) -> String {
    to_minor_units(amount, currency).to_string()
}

/// The amount for people, without the currency symbol: Turkish `1.234,50`, English `1,234.50`;
/// JPY without decimals; a negative amount (a difference) with a leading minus.
pub fn format_number(amount: Decimal, currency: Currency, lang: Lang) -> String {
    let (negative, digits) = grouped(amount, currency, lang);
    if negative {
        format!("-{digits}")
    } else {
        digits
    }
}

/// The amount with its currency: Turkish `1.234,50 ₺`, English `₺1,234.50`; a symbol made of
/// letters (CHF) is set off by a space. A negative amount shows a leading minus.
pub fn format_amount(amount: Decimal, currency: Currency, lang: Lang) -> String {
    let (negative, digits) = grouped(amount, currency, lang);
    let sign = if negative { "-" } else { "" };
    let symbol = currency.symbol();
    match lang {
        Lang::Tr => format!("{sign}{digits} {symbol}"),
        Lang::En if symbol.chars().all(char::is_alphabetic) => {
            format!("{sign}{symbol} {digits}")
        }
        Lang::En => format!("{sign}{symbol}{digits}"),
    }
}

/// Rounds (half away from zero) and rescales to the currency's minor units.
fn to_minor_units(amount: Decimal, currency: Currency) -> Decimal {
    let minor = currency.minor_units();
    let mut value = amount.round_dp_with_strategy(minor, RoundingStrategy::MidpointAwayFromZero);
    value.rescale(minor);
    if value.is_zero() {
        value.set_sign_positive(true);
    }
    value
}

/// Sign and the grouped absolute value in the language's separators.
fn grouped(amount: Decimal, currency: Currency, lang: Lang) -> (bool, String) {
    let value = to_minor_units(amount, currency);
    let negative = value.is_sign_negative();
    let plain = value.abs().to_string();
    let (integer, fraction) = plain.split_once('.').unwrap_or((plain.as_str(), ""));
    let (group_sep, decimal_sep) = match lang {
        Lang::Tr => ('.', ','),
        Lang::En => (',', '.'),
    };
    let mut out = String::with_capacity(plain.len() + plain.len() / 3 + 1);
    for (i, c) in integer.chars().enumerate() {
        if i > 0 && (integer.len() - i) % 3 == 0 {
            out.push(group_sep);
        }
        out.push(c);
    }
    if !fraction.is_empty() {
        out.push(decimal_sep);
        out.push_str(fraction);
    }
    (negative, out)
}

/// The markers that may name a currency around an amount: symbol, ISO code, and for TRY `TL`.
fn markers(currency: Currency) -> impl Iterator<Item = &'static str> {
    let extra = if currency == Currency::Try {
        Some("TL")
    } else {
        None
    };
    [currency.symbol(), currency.as_str()]
        .into_iter()
        .chain(extra)
}

/// A currency marker at the start of `s`, longest first so `CHF` beats nothing shorter.
fn currency_prefix(s: &str) -> Option<(Currency, &str)> {
    Currency::ALL.iter().find_map(|&c| {
        markers(c).find_map(|m| {
            s.get(..m.len())
                .filter(|head| head.eq_ignore_ascii_case(m))
                .map(|_| (c, &s[m.len()..]))
        })
    })
}

/// A currency marker at the end of `s`.
fn currency_suffix(s: &str) -> Option<(Currency, &str)> {
    Currency::ALL.iter().find_map(|&c| {
        markers(c).find_map(|m| {
            let start = s.len().checked_sub(m.len())?;
            s.get(start..)
                .filter(|tail| tail.eq_ignore_ascii_case(m))
                .map(|_| (c, &s[..start]))
        })
    })
}

/// Removes currency markers and one leading minus sign from both ends.
/// Returns the rest, whether a minus was seen, and the currencies named.
fn strip_decoration(mut s: &str) -> (&str, bool, Vec<Currency>) {
    let mut negative = false;
    let mut named = Vec::new();
    loop {
        let before = s;
        if !negative && let Some(rest) = s.strip_prefix(['-', '−']) {
            negative = true;
            s = rest.trim_start();
        }
        if let Some((c, rest)) = currency_prefix(s) {
            named.push(c);
            s = rest.trim_start();
        }
        if let Some((c, rest)) = currency_suffix(s) {
            named.push(c);
            s = rest.trim_end();
        }
        if s.len() == before.len() {
            return (s, negative, named);
        }
    }
}

/// A separator between digit runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sep {
    Dot,
    Comma,
    /// A space, a no-break space or an apostrophe: thousands only.
    Blank,
}

/// Digit runs and the separators between them (`groups.len() == seps.len() + 1`).
#[derive(Debug)]
struct Number<'a> {
    groups: Vec<&'a str>,
    seps: Vec<Sep>,
}

/// Splits the core of an amount into digit runs; anything but digits and single separators
/// between them is not a number.
fn split_number(core: &str) -> Result<Number<'_>, AmountError> {
    if core.is_empty() {
        return Err(AmountError::NotANumber);
    }
    let mut groups = Vec::new();
    let mut seps = Vec::new();
    let mut start = 0;
    for (i, c) in core.char_indices() {
        let sep = match c {
            '0'..='9' => continue,
            '.' => Sep::Dot,
            ',' => Sep::Comma,
            ' ' | '\u{a0}' | '\u{202f}' | '\'' | '’' => Sep::Blank,
            _ => return Err(AmountError::NotANumber),
        };
        if i == start {
            // Leading separator or two in a row.
            return Err(AmountError::NotANumber);
        }
        groups.push(&core[start..i]);
        seps.push(sep);
        start = i + c.len_utf8();
    }
    if start == core.len() {
        return Err(AmountError::NotANumber);
    }
    groups.push(&core[start..]);
    Ok(Number { groups, seps })
}

impl Number<'_> {
    /// Decides which separator (if any) is the decimal one; returns the integer digits and
    /// the fraction digits.
    fn resolve(&self, core: &str, currency: Currency) -> Result<(String, String), AmountError> {
        let Some(&last) = self.seps.last() else {
            return Ok((self.groups[0].to_owned(), String::new()));
        };
        let count = |s: Sep| self.seps.iter().filter(|x| **x == s).count();
        let has_blank = count(Sep::Blank) > 0;
        let decimal = match last {
            Sep::Blank => false,
            Sep::Dot | Sep::Comma => {
                let other = if last == Sep::Dot {
                    Sep::Comma
                } else {
                    Sep::Dot
                };
                let own = count(last);
                if count(other) > 0 {
                    if own > 1 {
                        return Err(AmountError::BadGrouping);
                    }
                    true
                } else if own > 1 {
                    false
                } else if has_blank {
                    true
                } else {
                    let before = self.groups[0];
                    let after = self.groups[1];
                    let could_group = after.len() == 3
                        && (1..=3).contains(&before.len())
                        && !before.starts_with('0');
                    if !could_group {
                        true
                    } else if currency.minor_units() == 0 {
                        false
                    } else {
                        return Err(AmountError::Ambiguous {
                            text: core.to_owned(),
                        });
                    }
                }
            }
        };
        let (int_groups, int_seps, fraction) = if decimal {
            let n = self.groups.len() - 1;
            (&self.groups[..n], &self.seps[..n - 1], self.groups[n])
        } else {
            (&self.groups[..], &self.seps[..], "")
        };
        if let Some(first) = int_seps.first()
            && int_seps.iter().any(|s| s != first)
        {
            return Err(AmountError::BadGrouping);
        }
        if int_groups.len() > 1 {
            let first_ok = (1..=3).contains(&int_groups[0].len());
            if !first_ok || int_groups[1..].iter().any(|g| g.len() != 3) {
                return Err(AmountError::BadGrouping);
            }
        }
        Ok((int_groups.concat(), fraction.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    #[test]
    fn accepted_inputs_give_the_exact_amount_at_the_currency_scale() {
        let cases: &[(&str, Currency, &str)] = &[
            ("1234.5", Currency::Try, "1234.50"),
            ("1234,50", Currency::Try, "1234.50"),
            ("1.234,50", Currency::Try, "1234.50"),
            ("1,234.50", Currency::Try, "1234.50"),
            (" 75 ", Currency::Try, "75.00"),
            ("1 234,50", Currency::Try, "1234.50"),
            ("1\u{a0}234,50", Currency::Try, "1234.50"),
            ("1'234.50", Currency::Chf, "1234.50"),
            ("150", Currency::Try, "150.00"),
            ("0", Currency::Try, "0.00"),
            ("0,00", Currency::Eur, "0.00"),
            ("0.5", Currency::Usd, "0.50"),
            ("12,34", Currency::Try, "12.34"),
            ("1.234.567", Currency::Try, "1234567.00"),
            ("1,234,567.8", Currency::Usd, "1234567.80"),
            ("1 234", Currency::Try, "1234.00"),
            ("007", Currency::Try, "7.00"),
            ("₺150", Currency::Try, "150.00"),
            ("150 ₺", Currency::Try, "150.00"),
            ("150 TL", Currency::Try, "150.00"),
            ("150tl", Currency::Try, "150.00"),
            ("TRY 1.234,50", Currency::Try, "1234.50"),
            ("€ 9,99", Currency::Eur, "9.99"),
            ("CHF 10.05", Currency::Chf, "10.05"),
            ("1234", Currency::Jpy, "1234"),
            ("1,234", Currency::Jpy, "1234"),
            ("1.234", Currency::Jpy, "1234"),
            ("¥1,234,567", Currency::Jpy, "1234567"),
            ("999999999999999.99", Currency::Try, "999999999999999.99"),
        ];
        for (input, currency, want) in cases {
            let got = parse_amount(input, *currency).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(got.to_string(), *want, "{input} {currency}");
            assert_eq!(got.scale(), currency.minor_units(), "{input}");
        }
    }

    #[test]
    fn rejected_inputs_say_why() {
        use AmountError as E;
        let ambiguous = |t: &str| E::Ambiguous { text: t.to_owned() };
        let cases: Vec<(&str, Currency, AmountError)> = vec![
            ("", Currency::Try, E::Empty),
            ("   ", Currency::Try, E::Empty),
            ("abc", Currency::Try, E::NotANumber),
            ("12a", Currency::Try, E::NotANumber),
            ("1e5", Currency::Try, E::NotANumber),
            (".5", Currency::Try, E::NotANumber),
            ("5.", Currency::Try, E::NotANumber),
            ("1..5", Currency::Try, E::NotANumber),
            ("1, 5", Currency::Try, E::NotANumber),
            ("₺", Currency::Try, E::NotANumber),
            ("-", Currency::Try, E::NotANumber),
            ("--5", Currency::Try, E::NotANumber),
            ("+5", Currency::Try, E::NotANumber),
            ("-5", Currency::Try, E::Negative),
            ("−5,00", Currency::Try, E::Negative),
            ("-₺5", Currency::Try, E::Negative),
            ("₺ -5", Currency::Try, E::Negative),
            ("10.1234", Currency::Try, E::TooManyDecimals { max: 2 }),
            ("0.123", Currency::Try, E::TooManyDecimals { max: 2 }),
            ("1234.567", Currency::Try, E::TooManyDecimals { max: 2 }),
            ("10.500", Currency::Try, ambiguous("10.500")),
            ("1 234,567", Currency::Try, E::TooManyDecimals { max: 2 }),
            ("10.5", Currency::Jpy, E::TooManyDecimals { max: 0 }),
            ("10,50", Currency::Jpy, E::TooManyDecimals { max: 0 }),
            ("1,234", Currency::Try, ambiguous("1,234")),
            ("1.234", Currency::Try, ambiguous("1.234")),
            ("10.123", Currency::Try, ambiguous("10.123")),
            ("₺ 1.234", Currency::Try, ambiguous("1.234")),
            ("1.23.456", Currency::Try, E::BadGrouping),
            ("1234.567.890", Currency::Try, E::BadGrouping),
            ("1,234,56", Currency::Try, E::BadGrouping),
            ("1.234,567,89", Currency::Try, E::BadGrouping),
            ("1 234.567,89", Currency::Try, E::BadGrouping),
            ("12 34", Currency::Try, E::BadGrouping),
            ("1234.567,89", Currency::Try, E::BadGrouping),
            (
                "$5",
                Currency::Try,
                E::WrongCurrency {
                    found: Currency::Usd,
                    expected: Currency::Try,
                },
            ),
            (
                "5 EUR",
                Currency::Try,
                E::WrongCurrency {
                    found: Currency::Eur,
                    expected: Currency::Try,
                },
            ),
            (
                "TL 5",
                Currency::Usd,
                E::WrongCurrency {
                    found: Currency::Try,
                    expected: Currency::Usd,
                },
            ),
            ("1000000000000000", Currency::Try, E::TooLarge),
            (
                "99999999999999999999999999999999",
                Currency::Try,
                E::TooLarge,
            ),
        ];
        for (input, currency, want) in cases {
            assert_eq!(
                parse_amount(input, currency),
                Err(want),
                "{input:?} {currency}"
            );
        }
    }

    #[test]
    fn amounts_format_per_language_and_currency() {
        let cases: &[(&str, Currency, &str, &str, &str, &str)] = &[
            // amount, currency, Turkish, English, Turkish number, English number
            (
                "1234.5",
                Currency::Try,
                "1.234,50 ₺",
                "₺1,234.50",
                "1.234,50",
                "1,234.50",
            ),
            ("0", Currency::Try, "0,00 ₺", "₺0.00", "0,00", "0.00"),
            (
                "1234567.891",
                Currency::Usd,
                "1.234.567,89 $",
                "$1,234,567.89",
                "1.234.567,89",
                "1,234,567.89",
            ),
            (
                "999.995",
                Currency::Eur,
                "1.000,00 €",
                "€1,000.00",
                "1.000,00",
                "1,000.00",
            ),
            ("1234", Currency::Jpy, "1.234 ¥", "¥1,234", "1.234", "1,234"),
            (
                "-10",
                Currency::Try,
                "-10,00 ₺",
                "-₺10.00",
                "-10,00",
                "-10.00",
            ),
            (
                "-1234.5",
                Currency::Gbp,
                "-1.234,50 £",
                "-£1,234.50",
                "-1.234,50",
                "-1,234.50",
            ),
            (
                "12.3",
                Currency::Chf,
                "12,30 CHF",
                "CHF 12.30",
                "12,30",
                "12.30",
            ),
            ("-0.001", Currency::Try, "0,00 ₺", "₺0.00", "0,00", "0.00"),
            (
                "100",
                Currency::Rub,
                "100,00 ₽",
                "₽100.00",
                "100,00",
                "100.00",
            ),
        ];
        for (amount, c, tr, en, tr_num, en_num) in cases {
            let a = dec(amount);
            assert_eq!(format_amount(a, *c, Lang::Tr), *tr, "{amount}");
            assert_eq!(format_amount(a, *c, Lang::En), *en, "{amount}");
            assert_eq!(format_number(a, *c, Lang::Tr), *tr_num, "{amount}");
            assert_eq!(format_number(a, *c, Lang::En), *en_num, "{amount}");
        }
        assert_eq!(format_plain(dec("1234.5"), Currency::Try), "1234.50");
        assert_eq!(format_plain(dec("1234"), Currency::Jpy), "1234");
    }

    #[test]
    fn every_error_has_distinct_sentences_in_both_languages() {
        let all = [
            AmountError::Empty,
            AmountError::NotANumber,
            AmountError::Negative,
            AmountError::TooManyDecimals { max: 2 },
            AmountError::TooManyDecimals { max: 0 },
            AmountError::Ambiguous {
                text: "1,234".into(),
            },
            AmountError::BadGrouping,
            AmountError::WrongCurrency {
                found: Currency::Usd,
                expected: Currency::Try,
            },
            AmountError::TooLarge,
        ];
        let mut seen = std::collections::HashSet::new();
        for e in &all {
            let tr = e.message(Lang::Tr);
            let en = e.message(Lang::En);
            assert!(!tr.is_empty() && !en.is_empty());
            assert_ne!(tr, en, "{e:?}");
            assert!(
                tr.chars().any(|c| "çğıöşüÇĞİÖŞÜ".contains(c)),
                "not Turkish: {tr}"
            );
            assert_eq!(e.to_string(), en);
            assert!(seen.insert(tr) && seen.insert(en), "{e:?}");
        }
    }

    fn any_currency() -> impl Strategy<Value = Currency> {
        prop::sample::select(Currency::ALL.to_vec())
    }

    proptest! {
        #![proptest_config(kept_seeds!("money.txt", cases: 512))]

        /// What the form shows, in either language and any currency, reads back exactly.
        #[test]
        fn formatted_numbers_read_back(units in 0i64..10_000_000_000_000, c in any_currency(), tr in any::<bool>()) {
            let lang = if tr { Lang::Tr } else { Lang::En };
            let amount = Decimal::new(units, c.minor_units());
            let shown = format_number(amount, c, lang);
            prop_assert_eq!(parse_amount(&shown, c), Ok(amount));
            prop_assert_eq!(parse_amount(&format_amount(amount, c, lang), c), Ok(amount));
            prop_assert_eq!(parse_amount(&format_plain(amount, c), c), Ok(amount));
        }

        /// Whatever is typed, the parser never panics and never returns a negative or
        /// over-scaled amount.
        #[test]
        fn arbitrary_text_never_gives_a_bad_amount(s in "[0-9 .,₺$-]{0,16}", c in any_currency()) {
            if let Ok(a) = parse_amount(&s, c) {
                prop_assert!(!a.is_sign_negative());
                prop_assert_eq!(a.scale(), c.minor_units());
            }
        }
    }
}
