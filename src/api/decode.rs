//! The tolerant response decoder (docs/design.md §1).
//!
//! The spec shows neither the envelope around content nor the shape of an error body, so the
//! client accepts the common ones: content under `content`, `data`, `result`, `payload` or as
//! the bare object; an error key under `messageKey`, `message_key`, `errorCode`, `code`,
//! `key`, inside `error` or `errors[0]`, or as a `message` that looks like a dotted key. When
//! the real provider publishes its shapes, the field lists below are the one place to edit.
//!
//! Bodies are parsed from bytes into `serde_json::Value` with `arbitrary_precision` on, so
//! amounts keep their exact digits through the envelope step; nothing goes through `f64`.
//! Non-JSON bodies (proxy error pages, empty answers, broken bytes) never panic: they become
//! an [`ApiError`] carrying the HTTP status and a short excerpt of the text. Every string of
//! an answer is cleaned of control and bidi characters here, before anything reads it.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::api::error::ApiError;
use crate::domain::server_text::{self, truncate};

/// Fields that may hold the content of a success answer, in the order they are looked at.
pub const CONTENT_FIELDS: [&str; 4] = ["content", "data", "result", "payload"];
/// Fields that may hold the message key, at the top level, inside `error`, or in `errors[0]`.
pub const KEY_FIELDS: [&str; 5] = ["messageKey", "message_key", "errorCode", "code", "key"];
/// Fields that may hold the human message, after `message`, `error` and `errors[0]`.
pub const MESSAGE_FIELDS: [&str; 4] = ["detail", "description", "error_description", "title"];
/// Longest excerpt of a non-JSON body kept as the message, in characters.
pub const MAX_EXCERPT_CHARS: usize = 200;
/// Longest human message kept from a JSON body, in characters.
pub const MAX_MESSAGE_CHARS: usize = 1000;
/// How deep envelopes and error objects are followed (`{"data": {"content": ...}}` is 2).
const MAX_DEPTH: usize = 3;

/// Why a success answer could not be read as the expected content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The body is not JSON (or is empty where content was due).
    #[error("HTTP {status}: the body is not JSON: {detail}")]
    NotJson {
        /// HTTP status of the answer.
        status: u16,
        /// What the JSON parser said.
        detail: String,
    },
    /// The envelope says `"success": false`: an error answer, to be read with
    /// [`decode_error`].
    #[error("HTTP {status}: the answer reports a failure")]
    Failed {
        /// HTTP status of the answer.
        status: u16,
    },
    /// JSON, but the content does not have the expected shape.
    #[error("HTTP {status}: the content does not have the expected shape: {detail}")]
    Shape {
        /// HTTP status of the answer.
        status: u16,
        /// What the deserializer said.
        detail: String,
    },
}

/// Why an answer did not give the expected content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResponseError {
    /// The server answered with an error (any non-2xx, or a 2xx saying `success: false`).
    #[error(transparent)]
    Api(#[from] ApiError),
    /// A 2xx whose content could not be read.
    #[error("HTTP {status}: the answer could not be read: {detail}")]
    Malformed {
        /// HTTP status of the answer.
        status: u16,
        /// What went wrong.
        detail: String,
    },
}

/// Reads the content of a success answer as `T`.
///
/// The content is looked for under [`CONTENT_FIELDS`]: an object holding one of them with an
/// object or array value is an envelope and is stepped into (up to three levels); any other
/// value is the content itself. An empty body reads as JSON `null` (for `T = ()` or
/// `Option<_>`).
pub fn decode_success<T: DeserializeOwned>(status: u16, body: &[u8]) -> Result<T, DecodeError> {
    let value = match parse(body) {
        Parsed::Json(value) => value,
        Parsed::Empty => Value::Null,
        Parsed::NotJson(detail) => return Err(DecodeError::NotJson { status, detail }),
    };
    if reports_failure(&value) {
        return Err(DecodeError::Failed { status });
    }
    T::deserialize(content_of(&value)).map_err(|e| DecodeError::Shape {
        status,
        detail: truncate(&e.to_string(), MAX_EXCERPT_CHARS),
    })
}

/// Reads an error answer. Never fails: what cannot be read leaves the key (and perhaps the
/// message) empty, and the status is what is shown.
pub fn decode_error(status: u16, body: &[u8]) -> ApiError {
    match parse(body) {
        Parsed::Json(value) => {
            let key = find_key(&value, 0);
            let message = find_message(&value, 0)
                .filter(|m| key.as_deref() != Some(m.as_str()))
                .map(|m| truncate(&m, MAX_MESSAGE_CHARS));
            ApiError::new(status, key, message)
        }
        Parsed::Empty => ApiError::new(status, None, None),
        Parsed::NotJson(_) => ApiError::new(status, None, excerpt(body)),
    }
}

/// Reads any answer: a 2xx as content `T` (or an [`ApiError`] when its envelope says
/// `success: false`, or [`ResponseError::Malformed`] when its content does not decode); any
/// other status as an [`ApiError`] carrying that status.
pub fn decode_response<T: DeserializeOwned>(status: u16, body: &[u8]) -> Result<T, ResponseError> {
    if !(200..=299).contains(&status) {
        return Err(ResponseError::Api(decode_error(status, body)));
    }
    match decode_success(status, body) {
        Ok(content) => Ok(content),
        Err(DecodeError::Failed { .. }) => Err(ResponseError::Api(decode_error(status, body))),
        Err(e @ (DecodeError::NotJson { .. } | DecodeError::Shape { .. })) => {
            Err(ResponseError::Malformed {
                status,
                detail: e.to_string(),
            })
        }
    }
}

/// A body, parsed.
enum Parsed {
    /// Nothing but whitespace.
    Empty,
    /// A JSON value.
    Json(Value),
    /// Not JSON (or not UTF-8); the parser's complaint.
    NotJson(String),
}

fn parse(body: &[u8]) -> Parsed {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Empty;
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(mut value) => {
            clean_strings(&mut value);
            Parsed::Json(value)
        }
        Err(e) => Parsed::NotJson(e.to_string()),
    }
}

/// Every string of an answer, object keys included, without control characters and bidi
/// controls ([`server_text::clean`]): nothing a server sends reaches a screen, a terminal, the
/// store or a log as it came.
fn clean_strings(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(cleaned) = server_text::clean(s) {
                *s = cleaned;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean_strings),
        Value::Object(map) => {
            if map
                .keys()
                .any(|k| matches!(server_text::clean(k), Cow::Owned(_)))
            {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (server_text::clean(&k).into_owned(), v))
                    .collect();
            }
            map.values_mut().for_each(clean_strings);
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Whether a 2xx body's envelope says the call failed (`"success": false` or `"false"`).
fn reports_failure(value: &Value) -> bool {
    match value.get("success") {
        Some(Value::Bool(ok)) => !ok,
        Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("false"),
        _ => false,
    }
}

/// The content inside any envelopes around it.
fn content_of(value: &Value) -> &Value {
    let mut current = value;
    for _ in 0..MAX_DEPTH {
        let Value::Object(map) = current else { break };
        let Some(inner) = CONTENT_FIELDS
            .iter()
            .filter_map(|name| map.get(*name))
            .find(|v| v.is_object() || v.is_array())
        else {
            break;
        };
        current = inner;
    }
    current
}

/// A message key, by the rules in the module doc.
fn find_key(value: &Value, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::Object(map) => key_in_object(map, depth),
        Value::Array(items) => items.first().and_then(|v| find_key(v, depth + 1)),
        Value::String(s) => standalone_code(s),
        _ => None,
    }
}

fn key_in_object(map: &Map<String, Value>, depth: usize) -> Option<String> {
    for name in KEY_FIELDS {
        if let Some(Value::String(s)) = map.get(name)
            && let Some(key) = explicit_key(s)
        {
            return Some(key);
        }
    }
    match map.get("error") {
        Some(Value::String(s)) => {
            if let Some(key) = standalone_code(s) {
                return Some(key);
            }
        }
        Some(inner @ Value::Object(_)) => {
            if let Some(key) = find_key(inner, depth + 1) {
                return Some(key);
            }
        }
        _ => {}
    }
    if let Some(Value::Array(items)) = map.get("errors")
        && let Some(key) = items.first().and_then(|v| find_key(v, depth + 1))
    {
        return Some(key);
    }
    match map.get("message") {
        Some(Value::String(s)) if is_dotted_key(s.trim()) => Some(s.trim().to_owned()),
        _ => None,
    }
}

/// The human message, by the rules in the module doc. Strings that look like a dotted key
/// are keys, not messages.
fn find_message(value: &Value, depth: usize) -> Option<String> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::Object(map) => {
            let direct = |name: &str| match map.get(name) {
                Some(Value::String(s)) => human_text(s),
                _ => None,
            };
            direct("message")
                .or_else(|| match map.get("error") {
                    Some(Value::String(s)) if standalone_code(s).is_none() => human_text(s),
                    Some(inner @ Value::Object(_)) => find_message(inner, depth + 1),
                    _ => None,
                })
                .or_else(|| match map.get("errors") {
                    Some(Value::Array(items)) => {
                        items.first().and_then(|v| find_message(v, depth + 1))
                    }
                    _ => None,
                })
                .or_else(|| MESSAGE_FIELDS.iter().find_map(|name| direct(name)))
        }
        Value::Array(items) => items.first().and_then(|v| find_message(v, depth + 1)),
        Value::String(s) if standalone_code(s).is_none() => human_text(s),
        _ => None,
    }
}

/// A trimmed, non-empty text that is not itself a dotted key.
fn human_text(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty() && !is_dotted_key(t)).then(|| t.to_owned())
}

/// A value of one of [`KEY_FIELDS`] is a key when it reads as an identifier: a letter first,
/// then letters, digits, `.`, `_`, `-` or `:`, at most 128 characters. A numeric code
/// (`"code": 406` or `"406"`) is not a key.
fn explicit_key(s: &str) -> Option<String> {
    let t = s.trim();
    let mut chars = t.chars();
    let first_is_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let ok = first_is_letter
        && t.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':'));
    ok.then(|| t.to_owned())
}

/// A string standing alone (`"error": "..."`, `errors[0]`, a bare string body) is a key when
/// it is a dotted key or a `SNAKE_CASE` code; a single word such as `Unauthorized` is the
/// HTTP reason phrase and is kept as the message.
fn standalone_code(s: &str) -> Option<String> {
    let t = s.trim();
    (is_dotted_key(t) || is_snake_code(t)).then(|| t.to_owned())
}

/// `^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$`, e.g. `items.total.mismatch`.
pub fn is_dotted_key(s: &str) -> bool {
    is_joined_words(s, '.', |b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)+$`, e.g. `INVALID_AMOUNT`, `invalid_request`.
fn is_snake_code(s: &str) -> bool {
    is_joined_words(s, '_', |b| b.is_ascii_alphanumeric())
}

/// Two or more non-empty words of `word_byte`s joined by `sep`, the first starting with a
/// letter.
fn is_joined_words(s: &str, sep: char, word_byte: impl Fn(u8) -> bool) -> bool {
    let mut parts = s.split(sep);
    let word = |p: &str| !p.is_empty() && p.bytes().all(&word_byte);
    let head_ok = parts.next().is_some_and(|head| {
        head.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) && word(head)
    });
    let mut tail = 0;
    for part in parts {
        if !word(part) {
            return false;
        }
        tail += 1;
    }
    head_ok && tail > 0
}

/// A short, single-line excerpt of a non-JSON body: markup tags (and script and style
/// contents) removed, control characters and runs of whitespace made one space, at most
/// [`MAX_EXCERPT_CHARS`] characters. `None` when nothing readable is left.
fn excerpt(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let plain = if text.trim_start().starts_with('<') {
        strip_markup(&text)
    } else {
        text.into_owned()
    };
    let collapsed = server_text::clean(&plain)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!collapsed.is_empty()).then(|| truncate(&collapsed, MAX_EXCERPT_CHARS))
}

/// The text of an HTML page without its tags, scripts and styles.
fn strip_markup(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    while at < html.len() {
        let Some(open) = html[at..].find('<').map(|i| at + i) else {
            out.push_str(&html[at..]);
            break;
        };
        out.push_str(&html[at..open]);
        out.push(' ');
        let Some(close) = html[open..].find('>').map(|i| open + i) else {
            break;
        };
        at = close + 1;
        for skipped in ["script", "style"] {
            if lower[open + 1..].starts_with(skipped) {
                let end_tag = format!("</{skipped}");
                at = lower[at..].find(&end_tag).map_or(html.len(), |i| at + i);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use proptest::prelude::*;
    use rust_decimal::Decimal;

    use super::*;
    use crate::api::keys;
    use crate::api::wire::{InstallmentList, PaymentLink};

    /// What a case should decode to.
    #[derive(Debug)]
    enum Want {
        /// Content: a link with this id.
        Link(&'static str),
        /// An API error with this key and message.
        Api(Option<&'static str>, Option<&'static str>),
        /// A 2xx that does not decode.
        Malformed,
    }

    const NGINX_502: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n\
        <center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n\
        </html>\r\n";

    #[test]
    // Long on purpose: one table of every envelope and error shape, in order.
    #[allow(clippy::too_many_lines)]
    fn every_envelope_and_error_shape_decodes() {
        let cases: Vec<(u16, &[u8], Want)> = vec![
            (
                200,
                br#"{"success":true,"content":{"id":"l1","amount":1234.50}}"#,
                Want::Link("l1"),
            ),
            (200, br#"{"data":{"id":"l2"}}"#, Want::Link("l2")),
            (200, br#"{"result":{"id":"l3"}}"#, Want::Link("l3")),
            (200, br#"{"payload":{"id":"l4"}}"#, Want::Link("l4")),
            (
                200,
                br#"{"id":"l5","status":"PENDING","result":"ok"}"#,
                Want::Link("l5"),
            ),
            (201, br#"{"data":{"content":{"id":"l6"}}}"#, Want::Link("l6")),
            (
                200,
                br#"{"success":false,"messageKey":"items.invalid","message":"bad item"}"#,
                Want::Api(Some("items.invalid"), Some("bad item")),
            ),
            (
                200,
                br#"{"success":"false","code":"INVALID_AMOUNT"}"#,
                Want::Api(Some("INVALID_AMOUNT"), None),
            ),
            (200, br#"{"success":false}"#, Want::Api(None, None)),
            (200, br#"{"success":true,"content":{"amount":5}}"#, Want::Malformed),
            (200, br#"{"success":true,"content":{"id":7}}"#, Want::Malformed),
            (200, br#"{"id":"x","amount":1e99999}"#, Want::Malformed),
            (
                200,
                br#"{"id":"x","amount":123456789012345678901234567890123}"#,
                Want::Malformed,
            ),
            (200, br#"{"id":"x","amount":1.5e3}"#, Want::Link("x")),
            (200, NGINX_502.as_bytes(), Want::Malformed),
            (200, b"", Want::Malformed),
            (200, &[0xff, 0xfe, 0x7b], Want::Malformed),
            (
                406,
                br#"{"success":false,"messageKey":"items.total.mismatch","message":"items total 140.00 does not equal amount 150.00; expected 140.00","httpStatus":406}"#,
                Want::Api(
                    Some(keys::ITEMS_TOTAL_MISMATCH),
                    Some("items total 140.00 does not equal amount 150.00; expected 140.00"),
                ),
            ),
            (
                400,
                br#"{"message_key":"items.invalid"}"#,
                Want::Api(Some("items.invalid"), None),
            ),
            (
                400,
                br#"{"errorCode":"cardNumber.empty","message":"card number is empty"}"#,
                Want::Api(Some("cardNumber.empty"), Some("card number is empty")),
            ),
            (
                404,
                br#"{"code":"pos.provider.not.found"}"#,
                Want::Api(Some("pos.provider.not.found"), None),
            ),
            (
                406,
                br#"{"code":406,"message":"Not Acceptable"}"#,
                Want::Api(None, Some("Not Acceptable")),
            ),
            (406, br#"{"code":"406"}"#, Want::Api(None, None)),
            (
                400,
                br#"{"key":"binnumber.required"}"#,
                Want::Api(Some("binnumber.required"), None),
            ),
            (
                406,
                br#"{"error":{"code":"idempotency.key.reused","message":"key used"}}"#,
                Want::Api(Some("idempotency.key.reused"), Some("key used")),
            ),
            (
                400,
                br#"{"error":{"messageKey":"items.invalid"}}"#,
                Want::Api(Some("items.invalid"), None),
            ),
            (
                400,
                br#"{"error":{"code":406,"message":"nope"}}"#,
                Want::Api(None, Some("nope")),
            ),
            (
                401,
                br#"{"error":"auth.signature.invalid"}"#,
                Want::Api(Some("auth.signature.invalid"), None),
            ),
            (
                401,
                br#"{"error":"invalid_client","error_description":"Unknown key"}"#,
                Want::Api(Some("invalid_client"), Some("Unknown key")),
            ),
            (
                404,
                br#"{"timestamp":"2026-01-01T00:00:00Z","status":404,"error":"Not Found","path":"/x"}"#,
                Want::Api(None, Some("Not Found")),
            ),
            (
                400,
                br#"{"errors":[{"key":"expiryMonth.empty","message":"month is empty"}]}"#,
                Want::Api(Some("expiryMonth.empty"), Some("month is empty")),
            ),
            (
                400,
                br#"{"errors":[{"code":"expiryYear.empty"},{"code":"other.key"}]}"#,
                Want::Api(Some("expiryYear.empty"), None),
            ),
            (
                400,
                br#"{"errors":["items.invalid"]}"#,
                Want::Api(Some("items.invalid"), None),
            ),
            (
                400,
                br#"{"message":"gecerlilik.tarihi.guncel.degil"}"#,
                Want::Api(Some(keys::EXPIRY_IN_PAST), None),
            ),
            (
                400,
                br#"{"message":"gecerlilik.tarihi.guncel.degil","detail":"expiry is past"}"#,
                Want::Api(Some(keys::EXPIRY_IN_PAST), Some("expiry is past")),
            ),
            (
                400,
                br#"{"message":"The amount is not valid."}"#,
                Want::Api(None, Some("The amount is not valid.")),
            ),
            (
                500,
                br#"{"detail":"database down"}"#,
                Want::Api(None, Some("database down")),
            ),
            (
                400,
                br#"{"description":"described"}"#,
                Want::Api(None, Some("described")),
            ),
            (
                400,
                br#"{"title":"One or more validation errors occurred.","status":400}"#,
                Want::Api(None, Some("One or more validation errors occurred.")),
            ),
            (
                400,
                br#"{"messageKey":"  ","code":"binnumber.required"}"#,
                Want::Api(Some("binnumber.required"), None),
            ),
            (
                406,
                br#"{"messageKey":"has space","message":"m"}"#,
                Want::Api(None, Some("m")),
            ),
            (400, br#""items.invalid""#, Want::Api(Some("items.invalid"), None)),
            (
                400,
                br#"[{"messageKey":"items.invalid","message":"first"}]"#,
                Want::Api(Some("items.invalid"), Some("first")),
            ),
            (429, br#"{"message":"slow down"}"#, Want::Api(None, Some("slow down"))),
            (
                502,
                NGINX_502.as_bytes(),
                Want::Api(None, Some("502 Bad Gateway 502 Bad Gateway nginx")),
            ),
            (503, b"", Want::Api(None, None)),
            (504, b" \r\n ", Want::Api(None, None)),
            (
                500,
                &[0xff, 0xfe, b'o', b'k'],
                Want::Api(None, Some("\u{fffd}\u{fffd}ok")),
            ),
            (
                500,
                b"Internal Server Error",
                Want::Api(None, Some("Internal Server Error")),
            ),
            (
                302,
                b"<html><script>var x = '<b>';</script><p>Moved</p></html>",
                Want::Api(None, Some("Moved")),
            ),
            (400, b"null", Want::Api(None, None)),
            (400, b"42", Want::Api(None, None)),
        ];
        for (status, body, want) in cases {
            let got = decode_response::<PaymentLink>(status, body);
            let shown = String::from_utf8_lossy(body);
            match (&want, got) {
                (Want::Link(id), Ok(link)) => assert_eq!(link.id, *id, "{shown}"),
                (Want::Api(key, message), Err(ResponseError::Api(e))) => {
                    assert_eq!(e.status, status, "{shown}");
                    assert_eq!(e.key.as_deref(), *key, "key of {shown}");
                    assert_eq!(e.message.as_deref(), *message, "message of {shown}");
                }
                (Want::Malformed, Err(ResponseError::Malformed { status: s, .. })) => {
                    assert_eq!(s, status, "{shown}");
                }
                (want, got) => panic!("{status} {shown}: wanted {want:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn amounts_survive_the_envelope_with_their_exact_digits() {
        let body = br#"{"success":true,"content":{"id":"l1","amount":1234.50,"paidAmount":0.10,
            "remainingAmount":1234.40}}"#;
        let link: PaymentLink = decode_success(200, body).unwrap();
        assert_eq!(link.amount.unwrap().to_string(), "1234.50");
        assert_eq!(link.paid_amount.unwrap().to_string(), "0.10");
        assert_eq!(
            link.remaining_amount,
            Some(Decimal::from_str("1234.40").unwrap())
        );

        let bare: PaymentLink =
            decode_success(200, br#"{"id":"l2","amount":99999999.99}"#).unwrap();
        assert_eq!(bare.amount.unwrap().to_string(), "99999999.99");
    }

    #[test]
    fn installment_lists_keep_unknown_fields_and_rates_through_the_envelope() {
        let body = r#"{"success":true,"content":{"binNumber":"979200","bonus":12.50,
            "installments":[{"installmentCount":3,"commissionRate":2.10,"totalAmount":1250.50,
            "campaign":{"name":"Kasım"}}]}}"#;
        let list: InstallmentList = decode_success(200, body.as_bytes()).unwrap();
        assert_eq!(list.bin_number.as_deref(), Some("979200"));
        assert_eq!(
            list.extra.get("bonus").map(ToString::to_string).as_deref(),
            Some("12.50")
        );
        let option = &list.installments[0];
        assert_eq!(option.installment_count, Some(3));
        assert_eq!(option.commission_rate.unwrap().to_string(), "2.10");
        assert_eq!(option.total_amount.unwrap().to_string(), "1250.50");
        assert_eq!(option.extra["campaign"]["name"].as_str(), Some("Kasım"));
    }

    #[test]
    fn decode_success_names_what_went_wrong() {
        assert_eq!(
            decode_success::<PaymentLink>(200, br#"{"success":false}"#),
            Err(DecodeError::Failed { status: 200 })
        );
        assert!(matches!(
            decode_success::<PaymentLink>(200, b"<html>"),
            Err(DecodeError::NotJson { status: 200, .. })
        ));
        assert!(matches!(
            decode_success::<PaymentLink>(201, br#"{"content":{"id":null}}"#),
            Err(DecodeError::Shape { status: 201, .. })
        ));
        assert_eq!(decode_success::<Option<PaymentLink>>(204, b""), Ok(None));
        assert_eq!(decode_success::<()>(204, b""), Ok(()));
    }

    #[test]
    fn long_pages_give_a_short_single_line_excerpt() {
        let page = format!(
            "<!DOCTYPE html><html><head><style>body {{ color: red }}</style></head><body>\
             <h1>Service Unavailable</h1><p>{}</p></body></html>",
            "The server is down for maintenance.\n".repeat(40)
        );
        let e = decode_error(503, page.as_bytes());
        let message = e.message.unwrap();
        assert!(
            message.starts_with("Service Unavailable The server is down"),
            "{message}"
        );
        assert_eq!(message.chars().count(), MAX_EXCERPT_CHARS);
        assert!(message.ends_with('…'));
        assert!(
            !message.contains('\n') && !message.contains("color"),
            "{message}"
        );
    }

    #[test]
    fn dotted_keys_are_recognised_by_their_shape() {
        let cases = [
            ("items.total.mismatch", true),
            ("cardNumber.empty", true),
            ("a.b", true),
            ("a_1.b_2", true),
            ("items", false),
            (".items", false),
            ("items.", false),
            ("1items.x", false),
            ("items..x", false),
            ("items.total mismatch", false),
            ("items-total.x", false),
            ("", false),
        ];
        for (text, expected) in cases {
            assert_eq!(is_dotted_key(text), expected, "{text:?}");
        }
    }

    /// Arbitrary JSON: nested objects and arrays, strings (key-shaped among them), exact and
    /// extreme numbers, with the field names the decoder looks for mixed in.
    fn arb_json() -> impl Strategy<Value = Value> {
        let number = "-?(0|[1-9][0-9]{0,40})(\\.[0-9]{1,40})?([eE][+-]?[0-9]{1,5})?"
            .prop_map(|s| Value::Number(serde_json::Number::from_str(&s).expect("JSON number")));
        let string = prop_oneof![
            proptest::sample::select(keys::ALL_KEYS.to_vec()).prop_map(String::from),
            "[a-zA-Z][a-zA-Z0-9_]{0,8}(\\.[a-zA-Z0-9_]{1,8}){1,3}",
            "[0-9 ,.]{0,12}",
            "\\PC{0,40}",
            Just("2026-11-22T10:00:00Z".to_owned()),
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            number,
            string.prop_map(Value::String),
        ];
        let field = prop_oneof![
            proptest::sample::select(vec![
                "content",
                "data",
                "result",
                "payload",
                "success",
                "messageKey",
                "message_key",
                "errorCode",
                "code",
                "key",
                "error",
                "errors",
                "message",
                "detail",
                "description",
                "id",
                "amount",
                "paidAmount",
                "remainingAmount",
                "currency",
                "status",
                "expiryDate",
                "createdDate",
            ])
            .prop_map(String::from),
            "[a-zA-Z_]{1,10}",
        ];
        leaf.prop_recursive(5, 96, 8, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec((field.clone(), inner), 0..8)
                    .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }

    /// The properties every answer must have, whatever its bytes.
    fn check_any_answer(status: u16, body: &[u8]) -> Result<(), TestCaseError> {
        let error = decode_error(status, body);
        prop_assert_eq!(error.status, status);
        if let Some(message) = &error.message {
            prop_assert!(message.chars().count() <= MAX_MESSAGE_CHARS);
        }
        let _ = error.sentence(crate::lang::Lang::Tr);
        let _ = error.disposition(crate::api::error::Prior::Clean);
        let _ = error.disposition(crate::api::error::Prior::AfterUnknown);
        let mismatch = ApiError::new(
            status,
            Some(keys::ITEMS_TOTAL_MISMATCH.into()),
            error.message.clone(),
        );
        let _ = mismatch.expected_amount();
        let _ = mismatch.sentence(crate::lang::Lang::En);

        let response = decode_response::<PaymentLink>(status, body);
        if status >= 400 {
            match response {
                Err(ResponseError::Api(e)) => prop_assert_eq!(e, error),
                other => prop_assert!(false, "{} gave {:?}", status, other),
            }
        } else if let Err(ResponseError::Api(e)) = &response {
            prop_assert_eq!(e.status, status);
        } else if let Err(ResponseError::Malformed { status: s, .. }) = &response {
            prop_assert_eq!(*s, status);
        }
        let _ = decode_response::<InstallmentList>(status, body);
        Ok(())
    }

    proptest! {
        #![proptest_config(kept_seeds!("decode.txt", cases: 512))]

        #[test]
        fn arbitrary_bytes_never_panic(
            status in 100u16..=599,
            body in proptest::collection::vec(any::<u8>(), 0..512),
        ) {
            check_any_answer(status, &body)?;
        }

        #[test]
        fn arbitrary_json_never_panics(status in 100u16..=599, value in arb_json()) {
            let body = serde_json::to_vec(&value).expect("a Value serializes");
            check_any_answer(status, &body)?;
        }

        #[test]
        fn arbitrary_json_in_an_error_envelope_keeps_the_status(
            status in 400u16..=599,
            key in proptest::option::of("[a-z]{1,6}(\\.[a-z]{1,6}){1,3}"),
            message in proptest::option::of("\\PC{0,60}"),
            extra in arb_json(),
        ) {
            let body = serde_json::json!({
                "success": false,
                "messageKey": key,
                "message": message,
                "extra": extra,
            });
            let bytes = serde_json::to_vec(&body).expect("a Value serializes");
            match decode_response::<PaymentLink>(status, &bytes) {
                Err(ResponseError::Api(e)) => {
                    prop_assert_eq!(e.status, status);
                    if key.is_some() {
                        prop_assert_eq!(e.key, key);
                    }
                }
                other => prop_assert!(false, "{:?}", other),
            }
        }
    }
}
