//! The typed API error: what the server answered when it did not answer with content.
//!
//! It keeps the HTTP status, the server's message key verbatim (unknown keys are shown, never
//! swallowed) and its human message. Three questions are answered here, once, for the whole
//! app: what a write with an idempotency key should do next ([`ApiError::disposition`], the
//! outcome table), which amount the server expected when the items do not add up
//! ([`ApiError::expected_amount`]), and which sentence a shop assistant reads
//! ([`ApiError::sentence`], worded from the API layer's catalogue, `api::messages`).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use rust_decimal::Decimal;

use crate::api::keys;
use crate::api::messages::{self, ApiMessage};
use crate::lang::Lang;

/// An error answer of the Partner Payment API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ApiError {
    /// HTTP status of the answer.
    pub status: u16,
    /// The server's message key, verbatim (`items.total.mismatch`), when it gave one.
    pub key: Option<String>,
    /// The server's human message (or a short excerpt of a non-JSON body), when there is one.
    pub message: Option<String>,
    /// How long the server asked to wait before the next attempt (`Retry-After` of a 429 or
    /// 503), when it said.
    pub retry_after: Option<Duration>,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, "{key} (HTTP {})", self.status)?,
            None => write!(f, "HTTP {}", self.status)?,
        }
        if let Some(message) = &self.message {
            write!(f, ": {message}")?;
        }
        Ok(())
    }
}

/// What a write sent with an idempotency key should do after an answer that is not its
/// content (the outcome table of docs/design.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Disposition {
    /// The server refused the request and holds no link for the key. The journal row is
    /// `failed` and the key may be used again.
    Rejected,
    /// The key was already used for a different body. The journal row is `conflict`.
    KeyReused,
    /// The outcome is not known and may change soon: retry with the same key and the same
    /// bytes, with backoff.
    Unknown,
    /// The server (or something in front of it) answered, but the answer does not say whether
    /// the link exists: the row stays `pending` and this driver stops (no quick retry would
    /// change the answer). Only arises after an earlier unknown outcome, or for a redirect.
    Hold,
}

/// What is known about the earlier attempts of the same journal row when an answer arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Prior {
    /// No earlier attempt may have reached the server without its answer being read: the
    /// server holds nothing for the key, so any refusal is final.
    Clean,
    /// An earlier attempt's outcome is unknown: the server may hold a link for the key, and
    /// only an answer that proves it does not may mark the row failed.
    AfterUnknown,
}

impl ApiError {
    /// An error with the given status, key and message.
    pub fn new(status: u16, key: Option<String>, message: Option<String>) -> ApiError {
        ApiError {
            status,
            key,
            message,
            retry_after: None,
        }
    }

    /// The same error with the wait the server asked for (`Retry-After`).
    #[must_use]
    pub fn with_retry_after(mut self, wait: Option<Duration>) -> ApiError {
        self.retry_after = wait;
        self
    }

    /// The next step for a write with an idempotency key, given what is known of the row's
    /// earlier attempts: the outcome table of docs/design.md §2 ("What each answer does"), its
    /// one home; the tests below hold this function to it row by row.
    ///
    /// After an unknown outcome the server may hold the link, and a server that holds it
    /// answers a repeat of the same key and body with it: so only a rejection of the request
    /// itself proves there is none. An auth failure, a proxy's page or an unknown key is
    /// decided before (or outside) the key's lookup and proves nothing.
    pub fn disposition(&self, prior: Prior) -> Disposition {
        match self.key.as_deref() {
            Some(keys::IDEMPOTENCY_KEY_REUSED) => return Disposition::KeyReused,
            Some(keys::IDEMPOTENCY_IN_PROGRESS) => return Disposition::Unknown,
            _ => {}
        }
        match self.status {
            408 | 429 | 500..=599 => Disposition::Unknown,
            406 if self.key.is_none() => Disposition::Unknown,
            200..=299 | 400..=499 if prior == Prior::Clean || self.proves_no_link() => {
                Disposition::Rejected
            }
            _ => Disposition::Hold,
        }
    }

    /// Whether this is the server's own refusal of a link-create request (a spec key, with a
    /// status a rejection of the request's content comes with).
    fn proves_no_link(&self) -> bool {
        let named = self
            .key
            .as_deref()
            .is_some_and(|k| keys::LINK_CREATE_REJECTIONS.contains(&k));
        named
            && (400..=499).contains(&self.status)
            && !matches!(self.status, 401 | 403 | 404 | 405 | 407 | 410)
    }

    /// For `items.total.mismatch`, the amount the server expected, read from its message.
    ///
    /// The message is human text, so the amount is looked for in this order:
    /// 1. the first number after a word saying "expected" (`expected`, `beklenen`,
    ///    `should be`, `must be`, `olması gereken`), or the last number before `olmalı`;
    /// 2. the first number after a phrase naming the items' total (`items total`,
    ///    `ürünlerin toplamı`, …), since the amount must equal the items' total;
    /// 3. the first number in the message.
    ///
    /// Numbers may be written `1234.50`, `1234,50`, `1,234.50` or `1.234,50`: when both `.`
    /// and `,` appear, the last one is the decimal mark; a single mark followed by exactly
    /// three digits (`1.234`, `1,234`) is a thousands separator, as no listed currency has
    /// three decimals. Numbers that end an identifier (`lnk_1`, `v2`) are not amounts. The result
    /// is exact: `140.00` keeps its two decimals. `None` for any other key or no number.
    pub fn expected_amount(&self) -> Option<Decimal> {
        if self.key.as_deref() != Some(keys::ITEMS_TOTAL_MISMATCH) {
            return None;
        }
        expected_amount_in(self.message.as_deref()?)
    }

    /// The sentence a shop assistant reads:
    /// - a known key: its catalogue sentence, and for `items.total.mismatch` the expected
    ///   amount when the message gives it;
    /// - an unknown key: the key verbatim, then the server's message;
    /// - no key: a sentence from the HTTP status, then the server's message if any.
    pub fn sentence(&self, lang: Lang) -> String {
        let Some(key) = self.key.as_deref() else {
            let base = messages::status_sentence(self.status, lang);
            return match &self.message {
                Some(m) => format!("{base} {m}"),
                None => base,
            };
        };
        let Some(known) = messages::for_key(key) else {
            return match &self.message {
                Some(m) => format!("{key}: {m}"),
                None => key.to_owned(),
            };
        };
        match self.expected_amount() {
            Some(amount) => {
                let text = amount.to_string();
                let shown = match lang {
                    Lang::Tr => text.replace('.', ","),
                    Lang::En => text,
                };
                ApiMessage::ExpectedAmount
                    .fill(lang, &[("sentence", &known.get(lang)), ("amount", &shown)])
            }
            None => known.get(lang).to_owned(),
        }
    }
}

/// Words after which the expected amount follows.
const EXPECTED_BEFORE: [&str; 5] = [
    "expected",
    "beklenen",
    "should be",
    "must be",
    "olması gereken",
];
/// Words before which the expected amount stands (Turkish puts the verb last).
const EXPECTED_AFTER: [&str; 1] = ["olmalı"];
/// Phrases after which the items' total follows.
const ITEMS_TOTAL_BEFORE: [&str; 9] = [
    "items total",
    "item total",
    "total of items",
    "total of the items",
    "sum of items",
    "sum of the items",
    "ürünlerin toplamı",
    "ürün toplamı",
    "kalemlerin toplamı",
];

/// The expected amount in a message, by the rule documented on [`ApiError::expected_amount`].
fn expected_amount_in(message: &str) -> Option<Decimal> {
    let text = message.to_lowercase();
    let numbers = numbers_in(&text);
    let first_after = |markers: &[&str]| {
        markers
            .iter()
            .flat_map(|m| text.match_indices(m).map(|(at, _)| (at, at + m.len())))
            .filter_map(|(at, end)| {
                numbers
                    .iter()
                    .find(|(start, _)| *start >= end)
                    .map(|&(_, value)| (at, value))
            })
            .min_by_key(|&(at, _)| at)
            .map(|(_, value)| value)
    };
    if let Some(v) = first_after(&EXPECTED_BEFORE) {
        return Some(v);
    }
    for marker in EXPECTED_AFTER {
        if let Some(at) = text.find(marker)
            && let Some(&(_, v)) = numbers.iter().rev().find(|(start, _)| *start < at)
        {
            return Some(v);
        }
    }
    if let Some(v) = first_after(&ITEMS_TOTAL_BEFORE) {
        return Some(v);
    }
    numbers.first().map(|&(_, v)| v)
}

/// Every number in `text` with the byte offset where it starts.
fn numbers_in(text: &str) -> Vec<(usize, Decimal)> {
    let mut found = Vec::new();
    let mut prev: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if !c.is_ascii_digit() {
            prev = Some(c);
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(i, n)) = chars.peek() {
            if n.is_ascii_digit() || n == '.' || n == ',' {
                end = i + n.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let token = text[start..end].trim_end_matches(['.', ',']);
        // Part of an identifier (`lnk_1`, `v2`); a unit after it (`140,00TL`) is fine.
        let glued = prev.is_some_and(|p| p.is_alphanumeric() || p == '_');
        if !glued && let Some(value) = parse_number(token) {
            found.push((start, value));
        }
        prev = text[..end].chars().next_back();
    }
    found
}

/// An exact decimal from `1234`, `1234.50`, `1234,50`, `1,234.50`, `1.234,50`, `1.234.567`.
/// `None` when the separators do not form a number (`1,2,3`, `12.34.5`).
fn parse_number(token: &str) -> Option<Decimal> {
    let last_dot = token.rfind('.');
    let last_comma = token.rfind(',');
    let (group, decimal) = match (last_dot, last_comma) {
        (None, None) => return Decimal::from_str(token).ok(),
        (Some(d), Some(c)) => {
            if d > c {
                (',', Some(d))
            } else {
                ('.', Some(c))
            }
        }
        (Some(only), None) | (None, Some(only)) => {
            let mark = if last_dot.is_some() { '.' } else { ',' };
            let other = if mark == '.' { ',' } else { '.' };
            let count = token.matches(mark).count();
            let digits_after = token.len() - only - 1;
            if count > 1 || digits_after == 3 {
                (mark, None)
            } else {
                (other, Some(only))
            }
        }
    };
    let (int_part, frac_part) = match decimal {
        Some(at) => (&token[..at], Some(&token[at + 1..])),
        None => (token, None),
    };
    if let Some(frac) = frac_part
        && (frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let mut groups = int_part.split(group);
    let first = groups.next()?;
    if first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits = first.to_owned();
    let mut grouped = false;
    for g in groups {
        grouped = true;
        if g.len() != 3 || !g.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.push_str(g);
    }
    if grouped && first.len() > 3 {
        return None;
    }
    if let Some(frac) = frac_part {
        digits.push('.');
        digits.push_str(frac);
    }
    Decimal::from_str(&digits).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(status: u16, key: Option<&str>) -> ApiError {
        ApiError::new(status, key.map(str::to_owned), None)
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str(s).unwrap()
    }

    /// The status each known key comes with (spec table and docs/design.md §1).
    fn status_of(key: &str) -> u16 {
        match key {
            keys::ITEMS_TOTAL_MISMATCH
            | keys::AMOUNT_LIMIT_EXCEEDED
            | keys::ITEM_LIMIT_EXCEEDED
            | keys::IDEMPOTENCY_IN_PROGRESS
            | keys::IDEMPOTENCY_KEY_REUSED => 406,
            keys::POS_PROVIDER_NOT_FOUND => 404,
            keys::AUTH_APIKEY_UNKNOWN
            | keys::AUTH_SIGNATURE_INVALID
            | keys::AUTH_TIMESTAMP_SKEW
            | keys::AUTH_SIGNATURE_REPLAYED => 401,
            keys::AUTH_SCOPE_MISSING => 403,
            _ => 400,
        }
    }

    /// The outcome table of the module doc, row by row: every known key at the status it
    /// comes with, then what the status decides alone, each under both priors.
    #[test]
    fn every_answer_has_the_disposition_of_the_outcome_table() {
        use Disposition::{Hold, KeyReused, Rejected, Unknown};
        for key in keys::ALL_KEYS {
            let (clean, after) = match key {
                keys::IDEMPOTENCY_KEY_REUSED => (KeyReused, KeyReused),
                keys::IDEMPOTENCY_IN_PROGRESS => (Unknown, Unknown),
                k if keys::LINK_CREATE_REJECTIONS.contains(&k) => (Rejected, Rejected),
                // Card save, installments, auth and a missing key: refused, but after an
                // unknown outcome they prove nothing about the link.
                _ => (Rejected, Hold),
            };
            let e = err(status_of(key), Some(key));
            assert_eq!(e.disposition(Prior::Clean), clean, "{key}, clean");
            assert_eq!(
                e.disposition(Prior::AfterUnknown),
                after,
                "{key}, after unknown"
            );
        }
        let cases: [(u16, Option<&str>, Disposition, Disposition); 29] = [
            (406, None, Unknown, Unknown),
            (406, Some("something.new"), Rejected, Hold),
            (408, None, Unknown, Unknown),
            (408, Some("timeout"), Unknown, Unknown),
            (429, None, Unknown, Unknown),
            (429, Some("rate.limited"), Unknown, Unknown),
            (500, None, Unknown, Unknown),
            (502, None, Unknown, Unknown),
            (503, Some(keys::ITEMS_INVALID), Unknown, Unknown),
            (599, None, Unknown, Unknown),
            (400, None, Rejected, Hold),
            (401, None, Rejected, Hold),
            (403, None, Rejected, Hold),
            (404, None, Rejected, Hold),
            (405, None, Rejected, Hold),
            (410, None, Rejected, Hold),
            (409, None, Rejected, Hold),
            (422, Some("unknown.key"), Rejected, Hold),
            (422, Some(keys::ITEMS_INVALID), Rejected, Rejected),
            // A spec key behind a status no content rejection has: a proxy or router spoke.
            (404, Some(keys::ITEMS_TOTAL_MISMATCH), Rejected, Hold),
            (401, Some(keys::EXPIRY_IN_PAST), Rejected, Hold),
            (410, Some(keys::AMOUNT_LIMIT_EXCEEDED), Rejected, Hold),
            // A 2xx whose envelope says `success: false`.
            (200, Some(keys::ITEMS_INVALID), Rejected, Hold),
            (200, None, Rejected, Hold),
            (302, None, Hold, Hold),
            (307, Some(keys::ITEMS_INVALID), Hold, Hold),
            (101, None, Hold, Hold),
            (
                500,
                Some(keys::IDEMPOTENCY_KEY_REUSED),
                KeyReused,
                KeyReused,
            ),
            (409, Some(keys::IDEMPOTENCY_IN_PROGRESS), Unknown, Unknown),
        ];
        for (status, key, clean, after) in cases {
            let e = err(status, key);
            assert_eq!(
                e.disposition(Prior::Clean),
                clean,
                "{status} {key:?}, clean"
            );
            assert_eq!(
                e.disposition(Prior::AfterUnknown),
                after,
                "{status} {key:?}, after unknown"
            );
        }
    }

    #[test]
    fn the_expected_amount_is_read_from_many_phrasings() {
        let cases: [(&str, Option<&str>); 19] = [
            (
                "items total 140.00 does not equal amount 150.00; expected 140.00",
                Some("140.00"),
            ),
            ("Expected: 1,234.50 but got 1,300.00", Some("1234.50")),
            (
                "Beklenen tutar 1.234,50 TL, gönderilen 1.300,00 TL",
                Some("1234.50"),
            ),
            ("amount 150.00 should be 140.00", Some("140.00")),
            ("Tutar 140,00 olmalı, 150,00 gönderildi", Some("140.00")),
            (
                "Amount 150.00 does not match the items total of 99.90",
                Some("99.90"),
            ),
            (
                "Ürünlerin toplamı (140,00 ₺) tutara (150,00 ₺) eşit değil",
                Some("140.00"),
            ),
            (
                "items total 140.00 does not equal amount 150.00",
                Some("140.00"),
            ),
            ("mismatch: 2500", Some("2500")),
            ("expected 12.345.678,9", Some("12345678.9")),
            ("JPY: expected 1500 got 1600", Some("1500")),
            ("expected amount: 0.10.", Some("0.10")),
            ("line lnk_1 expected 7", Some("7")),
            ("BEKLENEN: 10,5", Some("10.5")),
            ("beklenen 140,00TL, gelen 150,00TL", Some("140.00")),
            ("order PD2 expected 7", Some("7")),
            ("the totals differ", None),
            ("", None),
            ("expected 1,2,3", None),
        ];
        for (message, expected) in cases {
            let e = ApiError::new(
                406,
                Some(keys::ITEMS_TOTAL_MISMATCH.into()),
                Some(message.into()),
            );
            let got = e.expected_amount();
            assert_eq!(got, expected.map(dec), "{message:?}");
            if let (Some(got), Some(want)) = (got, expected) {
                assert_eq!(got.to_string(), want, "scale kept for {message:?}");
            }
        }
    }

    #[test]
    fn only_the_mismatch_key_has_an_expected_amount() {
        let e = ApiError::new(
            406,
            Some(keys::AMOUNT_LIMIT_EXCEEDED.into()),
            Some("expected at most 1000.00".into()),
        );
        assert_eq!(e.expected_amount(), None);
        let no_message = ApiError::new(406, Some(keys::ITEMS_TOTAL_MISMATCH.into()), None);
        assert_eq!(no_message.expected_amount(), None);
    }

    #[test]
    fn numbers_read_with_either_decimal_mark() {
        let cases: [(&str, Option<&str>); 14] = [
            ("140", Some("140")),
            ("140.00", Some("140.00")),
            ("140,00", Some("140.00")),
            ("1,234.50", Some("1234.50")),
            ("1.234,50", Some("1234.50")),
            ("1.234", Some("1234")),
            ("1,234", Some("1234")),
            ("1.234.567", Some("1234567")),
            ("0.5", Some("0.5")),
            ("1,2,3", None),
            ("12.34.5", None),
            ("1234,567.8", None),
            ("1.23,45", None),
            ("99999999999999999999999999999999", None),
        ];
        for (token, expected) in cases {
            assert_eq!(
                parse_number(token).map(|d| d.to_string()).as_deref(),
                expected,
                "{token}"
            );
        }
    }

    #[test]
    fn sentences_follow_the_key_then_the_status() {
        let known = ApiError::new(
            406,
            Some(keys::ITEMS_TOTAL_MISMATCH.into()),
            Some("items total 140.00 does not equal amount 150.00; expected 140.00".into()),
        );
        crate::lang::assert_says(
            |lang| known.sentence(lang),
            "The items do not add up to the amount. Expected amount: 140.00.",
            "Ürünlerin toplamı tutara eşit değil. Beklenen tutar: 140,00.",
        );

        let plain = ApiError::new(404, Some(keys::POS_PROVIDER_NOT_FOUND.into()), None);
        assert_eq!(
            plain.sentence(Lang::En),
            messages::sentence(keys::POS_PROVIDER_NOT_FOUND, Lang::En).unwrap()
        );

        let unknown = ApiError::new(
            422,
            Some("coupon.expired".into()),
            Some("The coupon ran out".into()),
        );
        assert_eq!(
            unknown.sentence(Lang::Tr),
            "coupon.expired: The coupon ran out"
        );
        assert_eq!(
            ApiError::new(422, Some("coupon.expired".into()), None).sentence(Lang::En),
            "coupon.expired"
        );

        let bare = ApiError::new(401, None, None);
        assert_eq!(
            bare.sentence(Lang::En),
            "Not authorised: check the API key and secret. (HTTP 401)"
        );
        let with_text = ApiError::new(502, None, Some("502 Bad Gateway".into()));
        assert_eq!(
            with_text.sentence(Lang::En),
            "The payment service cannot be reached right now. Try again shortly. (HTTP 502) \
             502 Bad Gateway"
        );
    }

    #[test]
    fn display_shows_key_or_status_and_message() {
        let cases = [
            (err(406, Some("items.invalid")), "items.invalid (HTTP 406)"),
            (err(502, None), "HTTP 502"),
            (
                ApiError::new(404, None, Some("not here".into())),
                "HTTP 404: not here",
            ),
            (
                ApiError::new(400, Some("k.x".into()), Some("why".into())),
                "k.x (HTTP 400): why",
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
    }
}
