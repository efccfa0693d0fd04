//! The request signature (docs/design.md §1): lowercase hex HMAC-SHA256, keyed with the UTF-8 API
//! secret, over `{apiKey}\n{timestamp}\n{METHOD}\n{path}\n{hex sha256 of the exact body bytes}`.
//! `X-Timestamp` is Unix time in milliseconds. `Idempotency-Key` is not signed.
//!
//! A pure function: the same inputs give the same headers. The client signs the exact bytes
//! it sends and never re-serializes after signing; the sandbox verifies with the same code.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// Header carrying the API key id.
pub const HEADER_API_KEY: &str = "X-Api-Key";
/// Header carrying the Unix-millisecond timestamp.
pub const HEADER_TIMESTAMP: &str = "X-Timestamp";
/// Header carrying the signature.
pub const HEADER_SIGNATURE: &str = "X-Signature";
/// Header carrying the idempotency key (not signed).
pub const HEADER_IDEMPOTENCY_KEY: &str = "Idempotency-Key";

/// The authentication headers of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedHeaders {
    /// `X-Api-Key`.
    pub api_key: String,
    /// `X-Timestamp`: Unix milliseconds, decimal.
    pub timestamp: String,
    /// `X-Signature`: lowercase hex.
    pub signature: String,
}

/// Lowercase hex SHA-256 of `body`.
pub fn body_sha256_hex(body: &[u8]) -> String {
    hex::encode(Sha256::digest(body))
}

/// The exact text that is signed.
pub fn string_to_sign(
    api_key: &str,
    timestamp: &str,
    method: &str,
    path: &str,
    body: &[u8],
) -> String {
    format!(
        "{api_key}\n{timestamp}\n{method}\n{path}\n{}",
        body_sha256_hex(body)
    )
}

/// The parts of a request that its signature covers (the secret apart).
#[derive(Debug, Clone, Copy)]
pub struct Signed<'a> {
    /// The API key id.
    pub api_key: &'a str,
    /// Unix milliseconds, decimal, as sent in `X-Timestamp`.
    pub timestamp: &'a str,
    /// `POST`.
    pub method: &'a str,
    /// The path, `/partner/1.0/…`.
    pub path: &'a str,
    /// The exact body bytes.
    pub body: &'a [u8],
}

/// Lowercase hex HMAC-SHA256 of the string to sign of `parts`, keyed with the secret's UTF-8
/// bytes.
pub fn signature(parts: &Signed<'_>, secret: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC accepts a key of any length");
    let text = string_to_sign(
        parts.api_key,
        parts.timestamp,
        parts.method,
        parts.path,
        parts.body,
    );
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Signs one attempt made at `timestamp_millis`.
pub fn sign(
    api_key: &str,
    secret: &str,
    timestamp_millis: i64,
    method: &str,
    path: &str,
    body: &[u8],
) -> SignedHeaders {
    let timestamp = timestamp_millis.to_string();
    let parts = Signed {
        api_key,
        timestamp: &timestamp,
        method,
        path,
        body,
    };
    let signature = signature(&parts, secret);
    SignedHeaders {
        api_key: api_key.to_owned(),
        timestamp,
        signature,
    }
}

/// Checks a received signature of `parts` in constant time (for the sandbox).
pub fn verify(parts: &Signed<'_>, secret: &str, given_hex: &str) -> bool {
    use subtle::ConstantTimeEq;
    let expected = signature(parts, secret);
    let given = given_hex.trim().to_ascii_lowercase();
    expected.len() == given.len() && bool::from(expected.as_bytes().ct_eq(given.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Vector {
        api_key: String,
        api_secret: String,
        timestamp: String,
        method: String,
        path: String,
        body: String,
        body_sha256: String,
        string_to_sign: String,
        signature: String,
    }

    impl Vector {
        /// The vector's signed parts.
        fn parts(&self) -> Signed<'_> {
            Signed {
                api_key: &self.api_key,
                timestamp: &self.timestamp,
                method: &self.method,
                path: &self.path,
                body: self.body.as_bytes(),
            }
        }
    }

    #[derive(serde::Deserialize)]
    struct Vectors {
        vectors: Vec<Vector>,
    }

    fn vectors() -> Vec<Vector> {
        let text = include_str!("../../tests/fixtures/signature-vectors.json");
        serde_json::from_str::<Vectors>(text).unwrap().vectors
    }

    #[test]
    fn matches_every_published_vector() {
        let all = vectors();
        assert_eq!(all.len(), 4);
        for v in all {
            let body = v.body.as_bytes();
            assert_eq!(body_sha256_hex(body), v.body_sha256, "{}", v.path);
            assert_eq!(
                string_to_sign(&v.api_key, &v.timestamp, &v.method, &v.path, body),
                v.string_to_sign
            );
            let ts: i64 = v.timestamp.parse().unwrap();
            let h = sign(&v.api_key, &v.api_secret, ts, &v.method, &v.path, body);
            assert_eq!(h.signature, v.signature, "{}", v.path);
            assert_eq!(h.timestamp, v.timestamp);
            assert!(verify(&v.parts(), &v.api_secret, &v.signature));
        }
    }

    #[test]
    fn any_change_to_the_signed_parts_breaks_the_signature() {
        let v = &vectors()[0];
        let mut changed_body = v.body.as_bytes().to_vec();
        changed_body.push(b' ');
        let signed = [
            v.api_key.as_bytes(),
            v.api_secret.as_bytes(),
            v.timestamp.as_bytes(),
            v.method.as_bytes(),
            v.path.as_bytes(),
            v.body.as_bytes(),
        ];
        // The parts as signed (key, secret, timestamp, method, path, body), one changed.
        let ok = |parts: [&[u8]; 6]| {
            let text = |i: usize| std::str::from_utf8(parts[i]).expect("text");
            let signed = Signed {
                api_key: text(0),
                timestamp: text(2),
                method: text(3),
                path: text(4),
                body: parts[5],
            };
            verify(&signed, text(1), &v.signature)
        };
        assert!(ok(signed));
        let changes: [(usize, &[u8]); 6] = [
            (0, b"pk_other"),
            (1, b"wrong"),
            (2, b"1795435200002"),
            (3, b"GET"),
            (4, b"/partner/1.0/card/save"),
            (5, &changed_body),
        ];
        for (i, change) in changes {
            let mut parts = signed;
            parts[i] = change;
            assert!(!ok(parts), "part {i} changed");
        }
        assert!(!verify(&v.parts(), &v.api_secret, "00"));
    }
}
