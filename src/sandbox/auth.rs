//! Authentication of every signed request (docs/design.md §1): the key must be known, the
//! signature must match (constant-time, via `api::signer::verify`), the timestamp must be
//! within 5 minutes of the server clock, the signature must not have been seen in the last
//! 5 minutes, and the key must carry the endpoint's scope.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};

use axum::http::{HeaderMap, StatusCode};

use super::fixture::ApiKey;
use super::index::Index;
use super::respond::Rejection;
use crate::api::keys;
use crate::api::signer::{HEADER_API_KEY, HEADER_SIGNATURE, HEADER_TIMESTAMP, Signed, verify};

/// The replay window and the allowed clock skew, both 5 minutes.
pub const WINDOW_MS: i64 = 5 * 60 * 1000;

/// Signatures seen recently, forgotten once they could no longer pass the timestamp check
/// and are older than the window.
#[derive(Debug, Default)]
pub struct ReplayCache {
    inner: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    until: HashMap<String, i64>,
    order: VecDeque<(i64, String)>,
}

impl ReplayCache {
    /// Records `signature`; false when it was already seen and is still remembered.
    pub fn first_time(&self, signature: &str, timestamp_ms: i64, now_ms: i64) -> bool {
        let mut seen = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        while let Some((until, _)) = seen.order.front() {
            if *until > now_ms {
                break;
            }
            if let Some((until, sig)) = seen.order.pop_front()
                && seen.until.get(&sig) == Some(&until)
            {
                seen.until.remove(&sig);
            }
        }
        if seen.until.get(signature).is_some_and(|u| *u > now_ms) {
            return false;
        }
        let until = timestamp_ms.max(now_ms).saturating_add(WINDOW_MS);
        seen.until.insert(signature.to_owned(), until);
        seen.order.push_back((until, signature.to_owned()));
        true
    }

    /// How many signatures are remembered.
    pub fn remembered(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .until
            .len()
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Authenticates one request for an endpoint needing `scope`.
pub fn authenticate<'a>(
    index: &'a Index,
    replay: &ReplayCache,
    now_ms: i64,
    headers: &HeaderMap,
    path: &str,
    body: &[u8],
    scope: &str,
) -> Result<&'a ApiKey, Rejection> {
    let unauthorized = |key, msg: &str| Err(Rejection::new(StatusCode::UNAUTHORIZED, key, msg));
    let Some(key) = header(headers, HEADER_API_KEY).and_then(|k| index.key(k)) else {
        return unauthorized(keys::AUTH_APIKEY_UNKNOWN, "X-Api-Key is missing or unknown");
    };
    let timestamp = header(headers, HEADER_TIMESTAMP).unwrap_or("");
    let signature = header(headers, HEADER_SIGNATURE).unwrap_or("");
    let parts = Signed {
        api_key: &key.key,
        timestamp,
        method: "POST",
        path,
        body,
    };
    if !verify(&parts, key.secret.expose(), signature) {
        return unauthorized(
            keys::AUTH_SIGNATURE_INVALID,
            "X-Signature does not match the request",
        );
    }
    let Ok(ts) = timestamp.parse::<i64>() else {
        return unauthorized(
            keys::AUTH_TIMESTAMP_SKEW,
            "X-Timestamp must be Unix time in milliseconds",
        );
    };
    // `abs_diff`: a timestamp near i64::MIN must not overflow the subtraction.
    if now_ms.abs_diff(ts) > WINDOW_MS.unsigned_abs() {
        return unauthorized(
            keys::AUTH_TIMESTAMP_SKEW,
            "X-Timestamp is more than 5 minutes from the server clock",
        );
    }
    if !replay.first_time(&signature.to_ascii_lowercase(), ts, now_ms) {
        return unauthorized(
            keys::AUTH_SIGNATURE_REPLAYED,
            "this signature was already used; sign every attempt anew",
        );
    }
    if !key.scopes.iter().any(|s| s == scope) {
        return Err(Rejection::new(
            StatusCode::FORBIDDEN,
            keys::AUTH_SCOPE_MISSING,
            format!("the API key lacks the scope `{scope}`"),
        ));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_refused_again_within_the_window_only() {
        let cache = ReplayCache::default();
        assert!(cache.first_time("a", 0, 0));
        assert!(!cache.first_time("a", 0, WINDOW_MS - 1));
        assert!(cache.first_time("b", 0, 10));
        // Past the window the entry is forgotten (the timestamp check refuses it anyway).
        assert!(cache.first_time("a", 0, WINDOW_MS + 1));
        assert_eq!(cache.remembered(), 2);
    }
}
