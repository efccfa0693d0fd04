//! Lenient reading of request bodies from `serde_json::Value`.
//!
//! The sandbox must see what a buggy client really sends (`"cardNumber": ""`, an amount as a
//! string, a number where text belongs), so it never deserializes into strict structs: each
//! field is read by name, `null` counts as absent, and a value of the wrong type is answered
//! with 400 `{field}.invalid` naming the field.

use axum::http::StatusCode;
use rust_decimal::Decimal;
use serde_json::{Map, Value};

use super::respond::ApiError;
use crate::api::wire;

/// A request body that is a JSON object.
#[derive(Debug, Clone, Copy)]
pub struct Body<'a>(pub &'a Map<String, Value>);

impl<'a> Body<'a> {
    /// The body as an object, or 400 `body.invalid`.
    pub fn of(value: &'a Value) -> Result<Body<'a>, ApiError> {
        value.as_object().map(Body).ok_or_else(|| {
            ApiError::new(
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
    pub fn text(&self, field: &str) -> Result<Option<&'a str>, ApiError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(ApiError::invalid(field, format!("`{field}` must be text"))),
        }
    }

    /// A text field, with blank text counted as absent.
    pub fn text_nonblank(&self, field: &str) -> Result<Option<&'a str>, ApiError> {
        Ok(self.text(field)?.map(str::trim).filter(|s| !s.is_empty()))
    }

    /// A boolean field with its default.
    pub fn flag(&self, field: &str, default: bool) -> Result<bool, ApiError> {
        match self.get(field) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ApiError::invalid(
                field,
                format!("`{field}` must be true or false"),
            )),
        }
    }

    /// An exact decimal from a JSON number or a numeric string.
    pub fn decimal(&self, field: &str) -> Result<Option<Decimal>, ApiError> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(v) => wire::amount::from_value(v).map(Some).ok_or_else(|| {
                ApiError::invalid(field, format!("`{field}` must be a decimal number"))
            }),
        }
    }
}

/// Checks an amount: greater than zero and no more decimals than the currency allows
/// (trailing zeros do not count). The error key is `{field}.invalid` (a sandbox choice).
pub fn check_amount(
    field: &str,
    amount: Decimal,
    minor_units: u32,
    currency: &str,
) -> Result<Decimal, ApiError> {
    if amount <= Decimal::ZERO {
        return Err(ApiError::invalid(
            field,
            format!("`{field}` must be greater than 0, got {amount}"),
        ));
    }
    if amount.normalize().scale() > minor_units {
        return Err(ApiError::invalid(
            field,
            format!("`{field}` {amount} has more than {minor_units} decimals for {currency}"),
        ));
    }
    let mut exact = amount;
    exact.rescale(minor_units);
    Ok(exact)
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
    fn scrub_blanks_every_string() {
        let mut v: Value =
            serde_json::from_str(r#"{"cardNumber":"5400610000000001","x":["123"]}"#).unwrap();
        scrub(&mut v);
        let text = v.to_string();
        assert!(!text.contains("54006100"), "{text}");
        assert!(!text.contains("123"), "{text}");
    }
}
