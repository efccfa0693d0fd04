//! Shared helpers of the sandbox integration tests: start a sandbox with a manual clock and
//! a fixed seed, and a small signed client built on `api::signer::sign` and reqwest.

use std::sync::Arc;

use chrono::Duration;
use paydesk::api::signer::{
    HEADER_API_KEY, HEADER_IDEMPOTENCY_KEY, HEADER_SIGNATURE, HEADER_TIMESTAMP, sign,
};
use paydesk::clock::{Clock, ManualClock};
use paydesk::sandbox::{
    DEMO_API_KEY, DEMO_API_SECRET, Fixture, Sandbox, SandboxConfig, SandboxHandle,
};
use serde_json::Value;

use super::time::t0;

pub fn manual_clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(t0()))
}

pub fn config(clock: Arc<ManualClock>) -> SandboxConfig {
    let mut c = SandboxConfig::new(Fixture::shipped());
    c.seed = Some(42);
    c.clock = clock;
    c
}

pub async fn start(clock: Arc<ManualClock>) -> SandboxHandle {
    Sandbox::start_with(config(clock))
        .await
        .expect("the sandbox starts on loopback")
}

/// One HTTP answer: status and parsed JSON body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub text: String,
    pub json: Value,
}

impl Answer {
    pub fn key(&self) -> &str {
        self.json["messageKey"].as_str().unwrap_or("")
    }

    pub fn content(&self) -> &Value {
        &self.json["content"]
    }

    /// Status and message key, for table assertions.
    pub fn status_key(&self) -> (u16, String) {
        (self.status, self.key().to_owned())
    }
}

/// A signed client for one API key.
#[derive(Debug, Clone)]
pub struct Client {
    pub http: reqwest::Client,
    pub base: String,
    pub key: String,
    pub secret: String,
    pub clock: Arc<dyn Clock>,
    /// Added to the clock when signing (to simulate a skewed client).
    pub skew: Duration,
    /// A manual clock moved on by 1 ms per request, so that two identical requests do not
    /// carry the same signature (which the server would rightly refuse as a replay).
    pub tick: Option<Arc<ManualClock>>,
}

impl Client {
    pub fn demo(handle: &SandboxHandle, clock: Arc<ManualClock>) -> Client {
        Client::new(handle, clock, DEMO_API_KEY, DEMO_API_SECRET)
    }

    pub fn new(handle: &SandboxHandle, clock: Arc<ManualClock>, key: &str, secret: &str) -> Client {
        Client {
            http: paydesk::api::client::http_client_builder()
                .build()
                .expect("an HTTP client"),
            base: handle.base_url(),
            key: key.to_owned(),
            secret: secret.to_owned(),
            clock: clock.clone(),
            skew: Duration::zero(),
            tick: Some(clock),
        }
    }

    pub fn request(
        &self,
        path: &str,
        body: &str,
        idempotency_key: Option<&str>,
    ) -> reqwest::RequestBuilder {
        if let Some(clock) = &self.tick {
            clock.advance(Duration::milliseconds(1));
        }
        let ts = self.clock.now_millis() + self.skew.num_milliseconds();
        let h = sign(&self.key, &self.secret, ts, "POST", path, body.as_bytes());
        let mut req = self
            .http
            .post(format!("{}{path}", self.base))
            .header("Content-Type", "application/json")
            .header(HEADER_API_KEY, h.api_key)
            .header(HEADER_TIMESTAMP, h.timestamp)
            .header(HEADER_SIGNATURE, h.signature)
            .body(body.to_owned());
        if let Some(k) = idempotency_key {
            req = req.header(HEADER_IDEMPOTENCY_KEY, k);
        }
        req
    }

    pub async fn post(&self, path: &str, body: &str, idempotency_key: Option<&str>) -> Answer {
        let r = self
            .request(path, body, idempotency_key)
            .send()
            .await
            .expect("the sandbox answers");
        answer(r).await
    }
}

pub async fn answer(r: reqwest::Response) -> Answer {
    let status = r.status().as_u16();
    let text = r.text().await.expect("a readable body");
    let json = serde_json::from_str(&text).unwrap_or(Value::Null);
    Answer { status, text, json }
}

/// `GET {base}{path}` without a signature (admin routes).
pub async fn admin_get(handle: &SandboxHandle, path: &str) -> Answer {
    let r = reqwest::get(format!("{}{path}", handle.base_url()))
        .await
        .expect("the sandbox answers");
    answer(r).await
}

/// `POST {base}{path}` with a JSON body, without a signature (admin routes).
pub async fn admin_post(handle: &SandboxHandle, path: &str, body: &str) -> Answer {
    let r = paydesk::api::client::http_client_builder()
        .build()
        .expect("an HTTP client")
        .post(format!("{}{path}", handle.base_url()))
        .header("Content-Type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .expect("the sandbox answers");
    answer(r).await
}

/// The decimal text of a JSON number or string field.
pub fn num(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        other => panic!("not a number: {other}"),
    }
}
