//! The enumerations of the spec, spelled on the wire exactly as the spec spells them.
//!
//! Request enums are strict (an unknown value is an input error); response statuses keep an
//! unknown value as `Other(text)` so that a server that grows a new status is shown, not
//! rejected.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An input that is not one of an enumeration's values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not one of {allowed}")]
pub struct UnknownCode {
    /// What was given.
    pub value: String,
    /// The allowed values, comma separated.
    pub allowed: String,
}

macro_rules! spec_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// Every value, in the spec's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value as the spec spells it.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownCode;
            /// Case-insensitive, surrounding blanks ignored.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let t = s.trim();
                $name::ALL.iter().copied().find(|v| v.as_str().eq_ignore_ascii_case(t)).ok_or_else(|| {
                    UnknownCode {
                        value: t.to_owned(),
                        allowed: $name::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", "),
                    }
                })
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

macro_rules! status_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// A value this version of paydesk does not know, kept as it came.
            Other(String),
        }

        impl $name {
            /// Every known value, in the spec's order.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The value as the spec spells it (or as the server sent it).
            pub fn as_str(&self) -> &str {
                match self { $($name::$variant => $text,)+ $name::Other(s) => s }
            }

            /// Reads a value; anything unknown becomes `Other`.
            pub fn from_wire(s: &str) -> Self {
                match s.trim().to_ascii_uppercase().as_str() {
                    $($text => $name::$variant,)+
                    _ => $name::Other(s.trim().to_owned()),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok($name::from_wire(&String::deserialize(d)?))
            }
        }
    };
}

spec_enum! {
    /// The currencies of the spec.
    #[derive(Default)]
    Currency {
        /// Turkish lira.
        #[default]
        Try = "TRY",
        /// US dollar.
        Usd = "USD",
        /// Euro.
        Eur = "EUR",
        /// Pound sterling.
        Gbp = "GBP",
        /// Japanese yen.
        Jpy = "JPY",
        /// Swiss franc.
        Chf = "CHF",
        /// Russian rouble.
        Rub = "RUB",
        /// Azerbaijani manat.
        Azn = "AZN",
    }
}

impl Currency {
    /// Digits after the decimal separator: JPY 0, every other listed currency 2.
    pub fn minor_units(self) -> u32 {
        match self {
            Currency::Jpy => 0,
            _ => 2,
        }
    }

    /// The symbol shown next to an amount.
    pub fn symbol(self) -> &'static str {
        match self {
            Currency::Try => "₺",
            Currency::Usd => "$",
            Currency::Eur => "€",
            Currency::Gbp => "£",
            Currency::Jpy => "¥",
            Currency::Chf => "CHF",
            Currency::Rub => "₽",
            Currency::Azn => "₼",
        }
    }
}

spec_enum! {
    /// What a saved card may be used for (`usage`).
    #[derive(Default)]
    CardUsage {
        /// Payments at the business's POS (the default).
        #[default]
        PosPayment = "POS_PAYMENT",
        /// Topping up a wallet.
        WalletTopup = "WALLET_TOPUP",
        /// Both.
        Both = "BOTH",
    }
}

spec_enum! {
    /// POS type filter of the installment list (`type`).
    #[derive(Default)]
    PosType {
        /// No filter.
        #[default]
        Default = "DEFAULT",
        /// Virtual POS.
        Virtual = "VIRTUAL",
        /// Physical POS.
        Physical = "PHYSICAL",
        /// Soft wallet.
        Softwallet = "SOFTWALLET",
        /// Loyalty.
        Loyalty = "LOYALTY",
    }
}

spec_enum! {
    /// POS sub-type filter of the installment list (`subType`).
    #[derive(Default)]
    PosSubType {
        /// No filter.
        #[default]
        Default = "DEFAULT",
        /// Basic.
        Basic = "BASIC",
        /// Streaming.
        Streaming = "STREAMING",
        /// Charity.
        Charity = "CHARITY",
        /// Food.
        Food = "FOOD",
        /// Fuel.
        Fuel = "FUEL",
    }
}

status_enum! {
    /// Status of a payment link.
    LinkStatus {
        /// Created, not (fully) paid.
        Pending = "PENDING",
        /// Paid in full.
        Completed = "COMPLETED",
        /// Rejected.
        Rejected = "REJECTED",
        /// Past its expiry, or cancelled.
        Expired = "EXPIRED",
        /// Under review.
        UnderReview = "UNDER_REVIEW",
    }
}

impl LinkStatus {
    /// The status order an observation of a link is judged newer by (with the paid amount
    /// after it), never by clocks: `PENDING` 0, `UNDER_REVIEW` and unknown 1, `EXPIRED` and
    /// `REJECTED` 2, `COMPLETED` 3. The shop's `paydesk_status_rank` is the same order.
    pub fn rank(&self) -> u8 {
        match self {
            LinkStatus::Pending => 0,
            LinkStatus::UnderReview | LinkStatus::Other(_) => 1,
            LinkStatus::Expired | LinkStatus::Rejected => 2,
            LinkStatus::Completed => 3,
        }
    }

    /// Whether the link can still change (polling stops on a final state).
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            LinkStatus::Completed | LinkStatus::Rejected | LinkStatus::Expired
        )
    }
}

status_enum! {
    /// Status of a saved card.
    CardStatus {
        /// Usable.
        Active = "ACTIVE",
        /// Past its expiry.
        Expired = "EXPIRED",
        /// Revoked.
        Revoked = "REVOKED",
        /// Suspended.
        Suspended = "SUSPENDED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_enums_round_trip_as_spec_strings() {
        for u in CardUsage::ALL {
            let json = serde_json::to_string(u).unwrap();
            assert_eq!(json, format!("\"{}\"", u.as_str()));
            assert_eq!(serde_json::from_str::<CardUsage>(&json).unwrap(), *u);
        }
        assert_eq!(
            " wallet_topup ".parse::<CardUsage>().unwrap(),
            CardUsage::WalletTopup
        );
        let err = "CASH".parse::<PosType>().unwrap_err();
        assert!(err.allowed.contains("SOFTWALLET"), "{err}");
        assert_eq!("fuel".parse::<PosSubType>().unwrap(), PosSubType::Fuel);
    }

    #[test]
    fn currencies_have_the_spec_minor_units() {
        assert_eq!(Currency::ALL.len(), 8);
        for c in Currency::ALL {
            assert_eq!(
                c.minor_units(),
                if *c == Currency::Jpy { 0 } else { 2 },
                "{c}"
            );
        }
        assert_eq!(Currency::default(), Currency::Try);
        assert_eq!("eur".parse::<Currency>().unwrap(), Currency::Eur);
    }

    #[test]
    fn unknown_statuses_are_kept_not_rejected() {
        let s: LinkStatus = serde_json::from_str("\"UNDER_REVIEW\"").unwrap();
        assert_eq!(s, LinkStatus::UnderReview);
        let s: LinkStatus = serde_json::from_str("\"REFUNDED\"").unwrap();
        assert_eq!(s, LinkStatus::Other("REFUNDED".into()));
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"REFUNDED\"");
        assert!(LinkStatus::Completed.is_final());
        assert!(!LinkStatus::Pending.is_final());
        assert_eq!(
            serde_json::from_str::<CardStatus>("\"ACTIVE\"").unwrap(),
            CardStatus::Active
        );
    }
}
