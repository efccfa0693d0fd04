//! Exact amounts from their text.

use std::str::FromStr as _;

use rust_decimal::Decimal;
use serde_json::Value;

/// The decimal written `text` ("150.00").
pub fn dec(text: &str) -> Decimal {
    Decimal::from_str(text).expect("a decimal literal")
}

/// A JSON number or string as an exact decimal (money keeps its digits).
pub fn money(v: &Value) -> Decimal {
    let text = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        other => panic!("not an amount: {other}"),
    };
    dec(&text)
}
