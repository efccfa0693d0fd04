//! A sum of money that may not fit: every sum the store adds up (the report, History's totals,
//! the kept totals of `tallies`) is a [`Total`], added with checked arithmetic.
//!
//! Why: a `Decimal` holds about 7.9 × 10²⁸. Amounts come from the server, which could answer
//! with `79228162514264337593543950335`; a second such link in the same hour made the kept
//! totals overflow, and an unchecked `+` panicked inside `journal_complete`, after the server
//! had made the link and before history recorded it. Now a sum that does not fit is
//! [`Total::OutOfRange`]: the link is stored, and the report and History say "out of range"
//! for that figure (a sentence from the store's catalogue) instead of a number.
//!
//! Stored (a kept total in `report_cells` or `report_items`), an out-of-range sum is the text
//! `overflow` in place of the decimal.

use std::ops::{Add, AddAssign, Neg};

use rust_decimal::Decimal;
use serde::{Serialize, Serializer};

use super::StoreError;
use super::messages::StoreMessage;
use crate::domain::Currency;
use crate::lang::Lang;

/// How an out-of-range sum is stored.
const STORED_OUT_OF_RANGE: &str = "overflow";

/// A sum of amounts: exact, or too large for a `Decimal`.
///
/// Ordered with every exact sum before [`Total::OutOfRange`] (a best-selling item whose sum is
/// out of range ranks first among equal quantities). In JSON, an exact sum is a number with
/// its digits kept and an out-of-range one is `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Total {
    /// The sum.
    Exact(Decimal),
    /// Beyond what a `Decimal` holds (about ±7.9 × 10²⁸) at some step of the adding.
    OutOfRange,
}

impl Default for Total {
    fn default() -> Self {
        Total::Exact(Decimal::ZERO)
    }
}

impl From<Decimal> for Total {
    fn from(d: Decimal) -> Self {
        Total::Exact(d)
    }
}

impl Total {
    /// A sum as a database wrote it in decimal text (the shop's PostgreSQL `numeric`): one too
    /// large for a `Decimal` is out of range.
    pub fn of_sum(text: &str) -> Total {
        Decimal::from_str_exact(text).map_or(Total::OutOfRange, Total::Exact)
    }

    /// Zero, with the currency's decimals (`0.00`, or `0` for JPY).
    pub fn zero(currency: Currency) -> Total {
        Total::Exact(Decimal::new(0, currency.minor_units()))
    }

    /// The sum, when it is in range.
    pub fn exact(self) -> Option<Decimal> {
        match self {
            Total::Exact(d) => Some(d),
            Total::OutOfRange => None,
        }
    }

    /// Whether it is an exact zero.
    pub fn is_zero(self) -> bool {
        self.exact().is_some_and(|d| d.is_zero())
    }

    /// The sum as `exact` writes it, or the catalogue's "out of range" sentence.
    pub fn show(self, lang: Lang, exact: impl FnOnce(Decimal) -> String) -> String {
        match self {
            Total::Exact(d) => exact(d),
            Total::OutOfRange => StoreMessage::TotalOutOfRange.get(lang).to_owned(),
        }
    }

    /// `a × n`, out of range when it does not fit.
    pub(crate) fn product(a: Decimal, n: impl Into<Decimal>) -> Total {
        a.checked_mul(n.into())
            .map_or(Total::OutOfRange, Total::Exact)
    }

    /// As stored: the decimal (a zero written `0`, never `-0`), or `overflow`.
    pub(crate) fn stored(self) -> String {
        match self {
            Total::Exact(mut d) => {
                if d.is_zero() {
                    d.set_sign_positive(true);
                }
                d.to_string()
            }
            Total::OutOfRange => STORED_OUT_OF_RANGE.to_owned(),
        }
    }

    /// A stored sum read back.
    pub(crate) fn parse_stored(text: &str, what: &'static str) -> Result<Total, StoreError> {
        if text == STORED_OUT_OF_RANGE {
            Ok(Total::OutOfRange)
        } else {
            super::parse_decimal(text, what).map(Total::Exact)
        }
    }
}

impl Add for Total {
    type Output = Total;
    fn add(self, other: Total) -> Total {
        match (self, other) {
            (Total::Exact(a), Total::Exact(b)) => {
                a.checked_add(b).map_or(Total::OutOfRange, Total::Exact)
            }
            _ => Total::OutOfRange,
        }
    }
}

impl Add<Decimal> for Total {
    type Output = Total;
    fn add(self, other: Decimal) -> Total {
        self + Total::Exact(other)
    }
}

impl AddAssign for Total {
    fn add_assign(&mut self, other: Total) {
        *self = *self + other;
    }
}

impl AddAssign<Decimal> for Total {
    fn add_assign(&mut self, other: Decimal) {
        *self = *self + other;
    }
}

impl Neg for Total {
    type Output = Total;
    fn neg(self) -> Total {
        match self {
            Total::Exact(d) => Total::Exact(-d),
            Total::OutOfRange => Total::OutOfRange,
        }
    }
}

impl PartialEq<Decimal> for Total {
    fn eq(&self, other: &Decimal) -> bool {
        *self == Total::Exact(*other)
    }
}

impl PartialEq<Total> for Decimal {
    fn eq(&self, other: &Total) -> bool {
        Total::Exact(*self) == *other
    }
}

impl Serialize for Total {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Total::Exact(d) => crate::api::wire::amount::serialize(d, s),
            Total::OutOfRange => s.serialize_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sum_that_does_not_fit_is_out_of_range_and_stays_so() {
        let max = Decimal::MAX;
        let mut t = Total::Exact(max);
        t += Decimal::ONE;
        assert_eq!(t, Total::OutOfRange);
        t += -max;
        assert_eq!(t, Total::OutOfRange, "nothing brings it back");
        assert_eq!(Total::Exact(max) + Decimal::ZERO, max);
        assert_eq!(-Total::Exact(max) + -Decimal::ONE, Total::OutOfRange);
        assert_eq!(Total::product(max, 2), Total::OutOfRange);
        assert_eq!(
            Total::product(Decimal::new(250, 2), 3),
            Decimal::new(750, 2)
        );
        for t in [
            Total::OutOfRange,
            Total::Exact(max),
            Total::Exact(Decimal::ZERO),
        ] {
            assert_eq!(Total::parse_stored(&t.stored(), "test").unwrap(), t);
        }
        assert_eq!(Total::Exact(-Decimal::ZERO).stored(), "0");
        assert!(Total::Exact(max) < Total::OutOfRange);
        assert_eq!(serde_json::to_string(&Total::OutOfRange).unwrap(), "null");
        assert_eq!(
            serde_json::to_string(&Total::Exact(Decimal::new(125_050, 2))).unwrap(),
            "1250.50"
        );
        assert_eq!(
            Total::OutOfRange.show(Lang::En, |d| d.to_string()),
            "out of range (too large to add up)"
        );
    }
}
