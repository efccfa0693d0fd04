//! How values are written on the wire, both ways: exact decimal amounts as JSON numbers (read
//! from numbers or numeric strings) and ISO-8601 UTC timestamps; and percent-encoding for the
//! URLs paydesk writes (a `mailto:` link, a shop's `postgres://` URL). The domain's request types
//! serialize their bodies with these, and `api::wire` reads responses with them; they live here
//! so that `api` depends on `domain` and never the reverse.

use std::fmt::Write as _;

use chrono::{DateTime, NaiveDateTime, Utc};

/// Percent-encodes every byte but RFC 3986's unreserved characters (`A–Z a–z 0–9 - . _ ~`),
/// UTF-8 bytes included, so the text can stand in any part of a URL.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Exact decimal amounts: written as JSON numbers with their digits kept; read from a JSON
/// number (its exact text, thanks to `serde_json`'s `arbitrary_precision`) or a numeric string.
pub mod amount {
    use std::str::FromStr;

    use rust_decimal::Decimal;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        serde_json::Number::from_str(&v.to_string())
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        from_value(&value)
            .ok_or_else(|| serde::de::Error::custom(format!("not an amount: {value}")))
    }

    /// An exact decimal from a JSON number or numeric string; `None` for anything else.
    pub fn from_value(value: &serde_json::Value) -> Option<Decimal> {
        let text = match value {
            serde_json::Value::Number(n) => n.as_str().to_owned(),
            serde_json::Value::String(s) => s.trim().to_owned(),
            _ => return None,
        };
        Decimal::from_str(&text)
            .or_else(|_| Decimal::from_scientific(&text))
            .ok()
    }
}

/// Optional exact decimal amounts (null or missing is `None`).
pub mod amount_opt {
    use rust_decimal::Decimal;
    use serde::{Deserialize, Deserializer, Serializer};

    #[allow(clippy::ref_option)]
    pub fn serialize<S: Serializer>(v: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(d) => super::amount::serialize(d, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Null => Ok(None),
            value => super::amount::from_value(&value)
                .map(Some)
                .ok_or_else(|| serde::de::Error::custom(format!("not an amount: {value}"))),
        }
    }
}

/// ISO-8601 timestamps: written as UTC with `Z`; read with an offset, `Z`, or no zone (UTC).
pub mod time_opt {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    #[allow(clippy::ref_option)]
    pub fn serialize<S: Serializer>(v: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(t) => s.serialize_str(&super::format_time(*t)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        let Some(text) = Option::<String>::deserialize(d)? else {
            return Ok(None);
        };
        let t = text.trim();
        if t.is_empty() {
            return Ok(None);
        }
        super::parse_time(t)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("not an ISO-8601 time: {t}")))
    }
}

/// Formats a timestamp as the API expects it: ISO-8601 UTC with `Z`, millisecond precision
/// only when there are milliseconds.
pub fn format_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// Reads an ISO-8601 timestamp with an offset, `Z`, or no zone (taken as UTC).
pub fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .ok()
        .or_else(|| {
            NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|n| n.and_utc())
        })
}
