//! What the sandbox was asked: every API request that reached it, with its endpoint, the link
//! it named (link detail and cancel only) and the sandbox's time. Tests read it to hold the
//! app to a traffic budget ("at most one link detail per second, none for a paid link"),
//! through `Admin::requests` or `GET /sandbox/requests`.
//!
//! Only link detail and cancel bodies are read here (for their `id`); no other body is looked
//! at, so nothing personal and no card number ever reaches the log. The log keeps the newest
//! [`KEEP`] requests and a running total per endpoint, so a sandbox left running for days does
//! not grow without bound.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;

use crate::api::endpoints;

/// How many of the newest requests are kept.
pub const KEEP: usize = 10_000;

/// One request as the sandbox saw it arrive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeenRequest {
    /// The endpoint's name (`link.detail`, `link.create`, ...).
    pub endpoint: String,
    /// The link id of a detail or cancel request, when its body names one.
    pub link_id: Option<String>,
    /// The sandbox clock when it arrived, Unix milliseconds.
    pub at_ms: i64,
}

/// The log itself (inside the server's shared state).
#[derive(Debug, Default)]
pub struct RequestLog {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    recent: VecDeque<SeenRequest>,
    totals: BTreeMap<String, u64>,
}

impl RequestLog {
    /// Records a request to `endpoint` with its raw body.
    pub fn record(&self, endpoint: &str, body: &[u8], at_ms: i64) {
        let link_id = (endpoint == endpoints::LINK_DETAIL.name
            || endpoint == endpoints::LINK_CANCEL.name)
            .then(|| serde_json::from_slice::<Value>(body).ok())
            .flatten()
            .and_then(|v| v.get("id").and_then(Value::as_str).map(str::to_owned));
        let mut inner = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *inner.totals.entry(endpoint.to_owned()).or_default() += 1;
        if inner.recent.len() == KEEP {
            inner.recent.pop_front();
        }
        inner.recent.push_back(SeenRequest {
            endpoint: endpoint.to_owned(),
            link_id,
            at_ms,
        });
    }

    /// The newest requests, oldest first.
    pub fn recent(&self) -> Vec<SeenRequest> {
        self.lock().recent.iter().cloned().collect()
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
        let recent = log.recent();
        let ids: Vec<_> = recent.iter().map(|r| r.link_id.as_deref()).collect();
        assert_eq!(ids, [Some("lnk_1"), Some("lnk_2"), None, None]);
        assert_eq!(recent[3].at_ms, 40);
        assert_eq!(log.totals()["link.detail"], 2);
        log.clear();
        assert!(log.recent().is_empty() && log.totals().is_empty());
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
}
