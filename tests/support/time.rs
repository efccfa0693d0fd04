//! The tests' moments.

use chrono::{DateTime, Utc};

/// 2026-11-22T10:00:00Z: the tests' "now" where a server or a clock is involved.
pub fn t0() -> DateTime<Utc> {
    at("2026-11-22T10:00:00Z")
}

/// 2026-09-21T14:13:20Z (Unix time 1,790,000,000): when the store suites' links were made.
pub fn t_stored() -> DateTime<Utc> {
    DateTime::from_timestamp(1_790_000_000, 0).expect("a valid time")
}

/// The moment written in RFC 3339 (`2026-11-23T09:00:00Z`).
pub fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .expect("an RFC 3339 time")
        .with_timezone(&Utc)
}
