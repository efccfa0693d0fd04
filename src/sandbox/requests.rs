//! What the sandbox was asked: every authenticated API request, with its endpoint, the link it
//! named (link detail and cancel only) and the sandbox's time. Tests read it to hold the app to
//! a traffic budget ("at most one link detail per second, none for a paid link"), through
//! `Admin::requests` or `GET /sandbox/requests`.
//!
//! A request is logged only once it is authenticated: any local program or web page can reach
//! the port, and what it sends without the API secret leaves no trace here. Only link detail
//! and cancel bodies are read (for their `id`, of which at most [`MAX_LINK_ID`] bytes are
//! kept); no other body is looked at, so nothing personal and no card number ever reaches the
//! log. The log keeps the newest [`KEEP`] requests, at most [`MAX_BYTES`] of them counted by
//! [`SeenRequest::cost`], and a running total per endpoint, so whatever the sandbox is sent and
//! however long it runs, the log stays within a few megabytes.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::api::endpoints;

/// How many of the newest requests are kept.
pub const KEEP: usize = 10_000;

/// The most bytes of a named link id kept (a real one, `lnk_` and 16 hex digits, has 20).
pub const MAX_LINK_ID: usize = 64;

/// The most bytes the kept requests may take, by [`SeenRequest::cost`]: 2 MiB.
pub const MAX_BYTES: usize = 2 * 1024 * 1024;

/// One request as the sandbox saw it arrive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeenRequest {
    /// The endpoint's name (`link.detail`, `link.create`, ...).
    pub endpoint: String,
    /// The link id of a detail or cancel request, when its body names one (its first
    /// [`MAX_LINK_ID`] bytes).
    pub link_id: Option<String>,
    /// The sandbox clock when it arrived, Unix milliseconds.
    pub at_ms: i64,
}

impl SeenRequest {
    /// The bytes this entry holds: the struct and its two strings.
    pub fn cost(&self) -> usize {
        std::mem::size_of::<SeenRequest>()
            + self.endpoint.capacity()
            + self.link_id.as_ref().map_or(0, String::capacity)
    }
}

/// The log itself (inside the server's shared state).
#[derive(Debug, Default)]
pub struct RequestLog {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    recent: VecDeque<SeenRequest>,
    /// The sum of the kept entries' [`SeenRequest::cost`].
    bytes: usize,
    totals: BTreeMap<String, u64>,
}

/// The `id` of a detail or cancel body, borrowed where the JSON allows it.
#[derive(Deserialize)]
struct Named<'a> {
    #[serde(borrow, default)]
    id: Option<std::borrow::Cow<'a, str>>,
}

/// The first `max` bytes of `s`, cut at a character boundary.
fn excerpt(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

impl RequestLog {
    /// Records an authenticated request to `endpoint` with its raw body.
    pub fn record(&self, endpoint: &str, body: &[u8], at_ms: i64) {
        let link_id = (endpoint == endpoints::LINK_DETAIL.name
            || endpoint == endpoints::LINK_CANCEL.name)
            .then(|| serde_json::from_slice::<Named<'_>>(body).ok())
            .flatten()
            .and_then(|n| n.id)
            .map(|id| excerpt(&id, MAX_LINK_ID));
        let seen = SeenRequest {
            endpoint: endpoint.to_owned(),
            link_id,
            at_ms,
        };
        let cost = seen.cost();
        let mut inner = self.lock();
        *inner.totals.entry(seen.endpoint.clone()).or_default() += 1;
        while inner.recent.len() >= KEEP || (inner.bytes + cost > MAX_BYTES && inner.bytes > 0) {
            let Some(old) = inner.recent.pop_front() else {
                break;
            };
            inner.bytes -= old.cost();
        }
        inner.bytes += cost;
        inner.recent.push_back(seen);
    }

    /// The newest requests, oldest first.
    pub fn recent(&self) -> Vec<SeenRequest> {
        self.lock().recent.iter().cloned().collect()
    }

    /// The bytes the kept requests take (at most [`MAX_BYTES`]).
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// How many requests each endpoint received since start (or the last clear).
    pub fn totals(&self) -> BTreeMap<String, u64> {
        self.lock().totals.clone()
    }

    /// Forgets every request.
    pub fn clear(&self) {
        *self.lock() = Inner::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detail_and_cancel_name_their_link_and_other_bodies_are_not_read() {
        let log = RequestLog::default();
        log.record("link.detail", br#"{"id":"lnk_1"}"#, 10);
        log.record("link.cancel", br#"{"id":"lnk_2"}"#, 20);
        log.record(
            "card.save",
            br#"{"id":"not-a-link","cardNumber":"4111"}"#,
            30,
        );
        log.record("link.detail", b"not json", 40);
        log.record("link.detail", br#"{"id":"lnk_\u00e7"}"#, 50);
        let recent = log.recent();
        let ids: Vec<_> = recent.iter().map(|r| r.link_id.as_deref()).collect();
        assert_eq!(
            ids,
            [Some("lnk_1"), Some("lnk_2"), None, None, Some("lnk_ç")]
        );
        assert_eq!(recent[3].at_ms, 40);
        assert_eq!(log.totals()["link.detail"], 3);
        assert_eq!(
            log.bytes(),
            recent.iter().map(SeenRequest::cost).sum::<usize>()
        );
        log.clear();
        assert!(log.recent().is_empty() && log.totals().is_empty() && log.bytes() == 0);
    }

    #[test]
    fn only_the_newest_requests_are_kept_but_every_one_is_counted() {
        let log = RequestLog::default();
        for i in 0..KEEP + 5 {
            log.record("link.detail", b"{}", i64::try_from(i).unwrap());
        }
        let recent = log.recent();
        assert_eq!(recent.len(), KEEP);
        assert_eq!(recent[0].at_ms, 5);
        assert_eq!(
            log.totals()["link.detail"],
            u64::try_from(KEEP + 5).unwrap()
        );
    }

    #[test]
    fn a_huge_id_keeps_an_excerpt_and_the_log_stays_under_its_byte_cap() {
        let log = RequestLog::default();
        // Two-byte characters straddling the cut: the excerpt ends on a whole one.
        let huge = format!(r#"{{"id":"x{}"}}"#, "ç".repeat(1_000_000));
        log.record("link.cancel", huge.as_bytes(), 1);
        let id = log.recent()[0].link_id.clone().expect("an excerpt");
        assert!(
            id.len() <= MAX_LINK_ID && id.len() > MAX_LINK_ID - 2,
            "{id}"
        );
        assert!(id.starts_with("xç"));
        // Many long ids: every entry is bounded, and so is the whole log.
        let long_id = format!(r#"{{"id":"{}"}}"#, "y".repeat(1000));
        for i in 0..KEEP + 5 {
            log.record("link.detail", long_id.as_bytes(), i64::try_from(i).unwrap());
        }
        let recent = log.recent();
        assert!(log.bytes() <= MAX_BYTES, "{}", log.bytes());
        assert_eq!(
            log.bytes(),
            recent.iter().map(SeenRequest::cost).sum::<usize>()
        );
        assert_eq!(
            log.totals()["link.detail"],
            u64::try_from(KEEP + 5).unwrap()
        );
    }
}
