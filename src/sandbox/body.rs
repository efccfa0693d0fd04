//! Lenient reading of request bodies from `serde_json::Value`.
//!
//! The sandbox must see what a buggy client really sends (`"cardNumber": ""`, an amount as a
//! string, a number where text belongs), so it never deserializes into strict structs: each
//! field is read by name, `null` counts as absent, and a value of the wrong type is answered
//! with 400 `{field}.invalid` naming the field.

use axum::http::StatusCode;
use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::respond::Rejection;
use crate::api::wire;

/// A request body that is a JSON object.
#[derive(Debug, Clone, Copy)]
pub struct Body<'a>(pub &'a Map<String, Value>);

impl<'a> Body<'a> {
    /// The body as an object, or 400 `body.invalid`.
    pub fn of(value: &'a Value) -> Result<Body<'a>, Rejection> {
        value.as_object().map(Body).ok_or_else(|| {
            Rejection::new(
                StatusCode::BAD_REQUEST,
                "body.invalid",
                "the request body must be a JSON object",
            )
        })
    }

    /// The raw value of a field, `None` when missing or null.
    pub fn get(&self, field: &str) -> Option<&'a Value> {
        self.0.get(field).filter(|v| !v.is_null())
    }

    /// A text field; a number or boolean is refused.
    pub fn text(&self, field: &str) -> Result<Option<&'a str>, Rejection> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(Rejection::invalid(field, format!("`{field}` must be text"))),
        }
    }

    /// A text field, with blank text counted as absent.
    pub fn text_nonblank(&self, field: &str) -> Result<Option<&'a str>, Rejection> {
        Ok(self.text(field)?.map(str::trim).filter(|s| !s.is_empty()))
    }

    /// A boolean field with its default.
    pub fn flag(&self, field: &str, default: bool) -> Result<bool, Rejection> {
        match self.get(field) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Rejection::invalid(
                field,
                format!("`{field}` must be true or false"),
            )),
        }
    }

    /// An exact decimal from a JSON number or a numeric string. A number that a 96-bit
    /// decimal cannot hold without rounding (beyond ±79228162514264337593543950335, or more
    /// than 28 significant digits) is 400 `amount.out.of.range`, never silently rounded.
    pub fn decimal(&self, field: &str) -> Result<Option<Decimal>, Rejection> {
        let text = match self.get(field) {
            None => return Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => return Ok(None),
            Some(Value::Number(n)) => n.as_str(),
            Some(Value::String(s)) => s.trim(),
            Some(_) => return Err(not_a_number(field)),
        };
        match exact_decimal(text) {
            Ok(d) => Ok(Some(d)),
            Err(NumberError::NotANumber) => Err(not_a_number(field)),
            Err(NumberError::OutOfRange) => Err(Rejection::out_of_range(format!(
                "`{field}` {} cannot be held exactly: at most 28 significant digits, at most \
                 {} in size",
                shorten(text),
                Decimal::MAX
            ))),
        }
    }
}

fn not_a_number(field: &str) -> Rejection {
    Rejection::invalid(field, format!("`{field}` must be a decimal number"))
}

/// At most 40 characters of a value, for a message (a body may hold a huge number).
fn shorten(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Why a text is not an exact decimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    /// Not a number at all.
    NotANumber,
    /// A number, but a 96-bit decimal cannot hold it without rounding.
    OutOfRange,
}

/// The text of a number (`150.10`, `1.5e2`, `-3`) as an exact decimal. `rust_decimal` rounds
/// a number with too many digits to fit; that rounding would change an amount, so it is
/// refused here as [`NumberError::OutOfRange`], like a number too large to hold at all.
pub fn exact_decimal(text: &str) -> Result<Decimal, NumberError> {
    let value = Value::String(text.to_owned());
    match wire::amount::from_value(&value) {
        Some(d) => {
            let sent = digits_and_exponent(text);
            if sent.is_some() && sent != digits_and_exponent(&d.to_string()) {
                Err(NumberError::OutOfRange)
            } else {
                Ok(d)
            }
        }
        None if digits_and_exponent(text).is_some() => Err(NumberError::OutOfRange),
        None => Err(NumberError::NotANumber),
    }
}

/// The significant digits of a plain or scientific number and the power of ten of the last
/// one, sign and leading and trailing zeros dropped: `150.10` → (`1501`, -1), `7.9e28` →
/// (`79`, 27), `0` → (no digits, 0). `None` when the text is not written with digits, one
/// `.` and an optional exponent.
fn digits_and_exponent(text: &str) -> Option<(String, i64)> {
    let t = text.trim();
    let t = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (mantissa, exponent) = match t.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let all = format!("{int}{frac}");
    let kept = all.trim_end_matches('0');
    let dropped = i64::try_from(all.len() - kept.len()).ok()?;
    let digits = kept.trim_start_matches('0');
    if digits.is_empty() {
        return Some((String::new(), 0));
    }
    let exponent = exponent
        .checked_sub(i64::try_from(frac.len()).ok()?)?
        .checked_add(dropped)?;
    Some((digits.to_owned(), exponent))
}

/// `value` written with exactly `digits` decimals, or `None` when a 96-bit decimal cannot
/// hold it so (a value near the type's limit keeps fewer decimals). `value` must not have
/// more than `digits` decimals that are not zero.
pub fn at_scale(value: Decimal, digits: u32) -> Option<Decimal> {
    let mut v = value;
    v.rescale(digits);
    (v.scale() == digits && v == value).then_some(v)
}

/// Checks an amount: greater than zero and no more decimals than the currency allows
/// (trailing zeros do not count). The error key is `{field}.invalid` (a sandbox choice).
pub fn check_amount(
    field: &str,
    amount: Decimal,
    minor_units: u32,
    currency: &str,
) -> Result<Decimal, Rejection> {
    if amount <= Decimal::ZERO {
        return Err(Rejection::invalid(
            field,
            format!("`{field}` must be greater than 0, got {amount}"),
        ));
    }
    if amount.normalize().scale() > minor_units {
        return Err(Rejection::invalid(
            field,
            format!("`{field}` {amount} has more than {minor_units} decimals for {currency}"),
        ));
    }
    at_scale(amount, minor_units).ok_or_else(|| {
        Rejection::out_of_range(format!(
            "`{field}` {amount} cannot be held with {minor_units} decimals for {currency}"
        ))
    })
}

/// Zeroizes every string of a body (used after a body carried a PAN or CVV).
pub fn scrub(value: &mut Value) {
    use zeroize::Zeroize;
    match value {
        Value::String(s) => s.zeroize(),
        Value::Array(items) => items.iter_mut().for_each(scrub),
        Value::Object(map) => map.values_mut().for_each(scrub),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_leniently_and_wrong_types_name_the_field() {
        let v: Value = serde_json::from_str(
            r#"{"a":"150.10","b":150.10,"c":null,"d":"","e":true,"f":3,"g":" x "}"#,
        )
        .unwrap();
        let b = Body::of(&v).unwrap();
        assert_eq!(b.decimal("a").unwrap().unwrap().to_string(), "150.10");
        assert_eq!(b.decimal("b").unwrap().unwrap().to_string(), "150.10");
        assert_eq!(b.decimal("c").unwrap(), None);
        assert_eq!(b.decimal("d").unwrap(), None);
        assert_eq!(b.decimal("e").unwrap_err().key, "e.invalid");
        assert!(b.flag("e", false).unwrap());
        assert!(b.flag("missing", true).unwrap());
        assert_eq!(b.flag("f", false).unwrap_err().key, "f.invalid");
        assert_eq!(b.text("f").unwrap_err().key, "f.invalid");
        assert_eq!(b.text_nonblank("g").unwrap(), Some("x"));
        assert_eq!(b.text_nonblank("d").unwrap(), None);
        assert_eq!(Body::of(&Value::Null).unwrap_err().key, "body.invalid");
    }

    #[test]
    fn amounts_keep_exact_digits_and_refuse_extra_decimals() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let table = [
            ("150", 2, Ok("150.00")),
            ("150.5", 2, Ok("150.50")),
            ("150.500", 2, Ok("150.50")),
            ("150.505", 2, Err("amount.invalid")),
            ("1500.0", 0, Ok("1500")),
            ("1500.5", 0, Err("amount.invalid")),
            ("0", 2, Err("amount.invalid")),
            ("-1", 2, Err("amount.invalid")),
        ];
        for (input, minor, expected) in table {
            let got = check_amount("amount", d(input), minor, "X")
                .map(|a| a.to_string())
                .map_err(|e| e.key.into_owned());
            assert_eq!(
                got,
                expected.map(str::to_owned).map_err(str::to_owned),
                "{input}"
            );
        }
    }

    #[test]
    fn numbers_a_decimal_cannot_hold_exactly_are_out_of_range_never_rounded() {
        let ok = |t: &str| exact_decimal(t).map(|d| d.to_string());
        assert_eq!(ok("150.10"), Ok("150.10".into()));
        assert_eq!(ok("-3"), Ok("-3".into()));
        assert_eq!(ok("7.9e28"), Ok("79000000000000000000000000000".into()));
        assert_eq!(ok("1.5E2"), Ok("150".into()));
        assert_eq!(
            ok("150.500000000000000000000000000000"),
            Ok("150.50000000000000000000000000".into())
        );
        assert_eq!(
            ok("79228162514264337593543950335"),
            Ok(Decimal::MAX.to_string())
        );
        for out in [
            "79228162514264337593543950336",
            "1e29",
            "-1e29",
            "1e400",
            "1e-400",
            "1.000000000000000000000000000001",
            "123456789012345678901234567.891",
            "0.00000000000000000000000000001",
        ] {
            assert_eq!(exact_decimal(out), Err(NumberError::OutOfRange), "{out}");
        }
        for not in ["", "abc", "1e", "e5", "-", "1.2.3", "0x10"] {
            assert_eq!(exact_decimal(not), Err(NumberError::NotANumber), "{not}");
        }
        let v: Value =
            serde_json::from_str(r#"{"a":1e400,"b":"99999999999999999999999999999999"}"#).unwrap();
        let b = Body::of(&v).unwrap();
        for field in ["a", "b"] {
            let e = b.decimal(field).unwrap_err();
            assert_eq!(
                (e.status.as_u16(), e.key.as_ref()),
                (400, "amount.out.of.range")
            );
            assert!(e.message.contains(&format!("`{field}`")), "{}", e.message);
        }
    }

    #[test]
    fn an_amount_that_cannot_keep_the_currency_digits_is_out_of_range() {
        assert_eq!(
            check_amount("amount", Decimal::MAX, 2, "TRY")
                .unwrap_err()
                .key,
            "amount.out.of.range"
        );
        assert_eq!(
            check_amount("amount", Decimal::MAX, 0, "JPY").unwrap(),
            Decimal::MAX
        );
        let big: Decimal = "792281625142643375935439503.35".parse().unwrap();
        assert_eq!(check_amount("amount", big, 2, "TRY").unwrap(), big);
        assert_eq!(at_scale(Decimal::MAX, 2), None);
    }

    #[test]
    fn scrub_blanks_every_string() {
        let mut v: Value =
            serde_json::from_str(r#"{"cardNumber":"5400610000000001","x":["123"]}"#).unwrap();
        scrub(&mut v);
        let text = v.to_string();
        assert!(!text.contains("54006100"), "{text}");
        assert!(!text.contains("123"), "{text}");
    }
}
