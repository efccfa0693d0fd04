//! The HTTP client of the Partner Payment API (reqwest with rustls, on tokio).
//!
//! Every attempt is signed afresh (a new `X-Timestamp` and `X-Signature` from the injected
//! clock), over the exact body bytes it sends; the bytes are never re-serialized. The
//! `Idempotency-Key` header goes on the endpoints of the table that require it. reqwest's own
//! retries are off: whether to send again is decided by the caller (the journal), because a
//! re-send must carry a new signature and, for writes, only the journal knows it is safe.
//!
//! Base URLs must be `https://` unless they point at this machine (the sandbox), and nothing
//! ever leaves for another host: redirects are never followed (a 3xx is an answer, see
//! [`CallError::Redirected`]), the client refuses plain HTTP to any host but loopback, and a
//! loopback base URL never goes through a proxy. So the signed headers, the idempotency key and
//! the body (for card save, a card number) reach the profile's base URL and nothing else.
//!
//! [`CallError::sentence`] words a failed call for the clerk from the API layer's catalogue
//! (`api::messages::ApiMessage`).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use serde::de::DeserializeOwned;
use zeroize::Zeroizing;

use super::decode::{ResponseError, decode_response};
use super::endpoints::Endpoint;
use super::error::{ApiError, Disposition, Prior};
use super::messages::ApiMessage;
use super::signer::{
    self, HEADER_API_KEY, HEADER_IDEMPOTENCY_KEY, HEADER_SIGNATURE, HEADER_TIMESTAMP,
};
use crate::clock::Clock;
use crate::lang::Lang;
use crate::secrets::Redacted;

/// Default time allowed to open a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Default time allowed for a whole exchange.
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(20);
/// The largest answer read (1 MiB): every answer of the contract is a few KiB, so more is a
/// server or something in front of it gone wrong, and reading on would only fill memory.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// What the client needs to talk to one API key of one server.
#[derive(Debug)]
pub struct ClientConfig {
    /// Base URL, e.g. `https://api.example.com` or the sandbox's `http://127.0.0.1:PORT`.
    pub base_url: String,
    /// The API key id (`X-Api-Key`).
    pub api_key: String,
    /// The API secret: signs requests; never logged, never shown.
    pub secret: Redacted<Zeroizing<String>>,
    /// Time allowed to open a connection.
    pub connect_timeout: Duration,
    /// Time allowed for a whole exchange.
    pub total_timeout: Duration,
}

impl ClientConfig {
    /// A configuration with the default timeouts.
    pub fn new(
        base_url: impl Into<String>,
        api_key: impl Into<String>,
        secret: Zeroizing<String>,
    ) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: api_key.into(),
            secret: Redacted(secret),
            connect_timeout: CONNECT_TIMEOUT,
            total_timeout: TOTAL_TIMEOUT,
        }
    }
}

/// Why a call did not give a decoded answer.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The server answered with an error (its status and key kept).
    #[error(transparent)]
    Api(#[from] ApiError),
    /// No answer: connection refused or reset, timeout, connection dropped. For a write,
    /// whether the server acted is unknown.
    #[error("no answer from the server ({detail})")]
    Transport {
        /// Whether it was a timeout.
        timeout: bool,
        /// Whether the connection could not even be opened (nothing was sent).
        connect: bool,
        /// What reqwest said.
        detail: String,
    },
    /// The server answered with a redirect (3xx). It is not followed: the request would carry
    /// the signed headers and the body to another address. Whether the server acted first is
    /// unknown.
    #[error("the server answered HTTP {status} (a redirect to {}), which is not followed", .location.as_deref().unwrap_or("nowhere"))]
    Redirected {
        /// HTTP status.
        status: u16,
        /// Where it pointed: scheme, host and port only (never its path or query).
        location: Option<String>,
    },
    /// The answer was larger than [`MAX_ANSWER_BYTES`]; reading stopped there. Whether the
    /// server acted is unknown (its answer was not read).
    #[error("the server's answer (HTTP {status}) is larger than {limit} bytes; it was not read")]
    TooLarge {
        /// HTTP status.
        status: u16,
        /// The limit that was passed.
        limit: usize,
    },
    /// The request could not be built (a header value the HTTP library refuses, such as an API
    /// key id with a control character): nothing left this machine.
    #[error("the request could not be built, nothing was sent ({detail})")]
    NotSent {
        /// What the HTTP library said.
        detail: String,
    },
    /// A success status whose content could not be read.
    #[error("the server's answer (HTTP {status}) could not be read: {detail}")]
    Malformed {
        /// HTTP status.
        status: u16,
        /// What did not decode.
        detail: String,
    },
}

impl CallError {
    /// How a write with an idempotency key treats this outcome, given what is known of its
    /// earlier attempts (the outcome table on [`ApiError::disposition`]).
    pub fn disposition(&self, prior: Prior) -> Disposition {
        match self {
            CallError::Api(e) => e.disposition(prior),
            // A 2xx we cannot read: the server did act. Re-sending with the same key returns
            // the stored result, so it is treated as unknown and resolved by a retry.
            CallError::Transport { .. }
            | CallError::Malformed { .. }
            | CallError::TooLarge { .. } => Disposition::Unknown,
            // Nothing left this machine: a refusal when no earlier attempt may have reached the
            // server; after one, it proves nothing about the link (the row is held).
            CallError::NotSent { .. } => match prior {
                Prior::Clean => Disposition::Rejected,
                Prior::AfterUnknown => Disposition::Hold,
            },
            // Something at the base URL took the request and pointed elsewhere; asking again
            // gets the same redirect.
            CallError::Redirected { .. } => Disposition::Hold,
        }
    }

    /// Whether the server may have acted on the request without this answer saying so: every
    /// outcome but a refusal of a clean request. For a read it means "no usable answer"; for
    /// card save (never re-sent) it is shown as "outcome unknown".
    pub fn is_unknown_outcome(&self) -> bool {
        matches!(
            self.disposition(Prior::Clean),
            Disposition::Unknown | Disposition::Hold
        )
    }

    /// How long the server asked to wait before the next attempt, when it said.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            CallError::Api(e) => e.retry_after,
            _ => None,
        }
    }

    /// A sentence for the user.
    pub fn sentence(&self, lang: Lang) -> String {
        match self {
            CallError::Api(e) => e.sentence(lang),
            CallError::Transport { timeout: true, .. } => {
                ApiMessage::TransportTimeout.get(lang).to_owned()
            }
            // The transport's own words (`client error (SendRequest): connection reset by
            // peer`) are for the log and the Pending list (`Display`), not for the clerk.
            CallError::Transport { connect: true, .. } => {
                ApiMessage::TransportConnect.get(lang).to_owned()
            }
            CallError::Transport { .. } => ApiMessage::TransportDropped.get(lang).to_owned(),
            CallError::Redirected { status, location } => ApiMessage::Redirected.fill(
                lang,
                &[
                    ("status", status),
                    ("location", &location.as_deref().unwrap_or("?")),
                ],
            ),
            CallError::Malformed { status, .. } => {
                ApiMessage::Malformed.fill(lang, &[("status", status)])
            }
            CallError::TooLarge { status, limit } => ApiMessage::TooLarge.fill(
                lang,
                &[("status", status), ("limit", &(limit / 1024 / 1024))],
            ),
            CallError::NotSent { .. } => ApiMessage::NotSent.get(lang).to_owned(),
        }
    }
}

impl From<ResponseError> for CallError {
    fn from(e: ResponseError) -> Self {
        match e {
            ResponseError::Api(e) => CallError::Api(e),
            ResponseError::Malformed { status, detail } => CallError::Malformed { status, detail },
        }
    }
}

/// The configuration could not make a client.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The base URL does not parse.
    #[error("the base URL `{0}` is not a valid URL")]
    BadUrl(String),
    /// A plain-HTTP URL that does not point at this machine.
    #[error("the base URL `{0}` must use https:// (plain http is allowed only for this machine)")]
    InsecureUrl(String),
    /// reqwest could not build its client.
    #[error("the HTTP client could not start: {0}")]
    Build(String),
}

/// Whether a URL's host is this machine (loopback address or `localhost`).
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Checks a base URL: parses, `http`/`https` only, `https` unless loopback.
pub fn check_base_url(base_url: &str) -> Result<Url, ClientError> {
    let url = Url::parse(base_url.trim()).map_err(|_| ClientError::BadUrl(base_url.to_owned()))?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        "http" => Err(ClientError::InsecureUrl(base_url.to_owned())),
        _ => Err(ClientError::BadUrl(base_url.to_owned())),
    }
}

/// A client for one API key. Cheap to clone (the connection pool is shared).
#[derive(Clone)]
pub struct ApiClient {
    http: reqwest::Client,
    base: String,
    api_key: String,
    secret: Arc<Redacted<Zeroizing<String>>>,
    clock: Arc<dyn Clock>,
}

/// A reqwest client builder whose TLS works: reqwest is built without a crypto provider
/// (`rustls-no-provider`), so this makes rustls's *ring* provider the process default first
/// (once). Every reqwest client of paydesk, its tests and benchmarks starts here.
pub fn http_client_builder() -> reqwest::ClientBuilder {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // An error means a provider is already the default (the embedding program chose one).
        let _already = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

impl std::fmt::Debug for ApiClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiClient")
            .field("base", &self.base)
            .field("api_key", &self.api_key)
            .field("secret", &self.secret)
            .finish_non_exhaustive()
    }
}

impl ApiClient {
    /// A client for `config`, signing with `clock`'s time.
    pub fn new(config: ClientConfig, clock: Arc<dyn Clock>) -> Result<Self, ClientError> {
        let url = check_base_url(&config.base_url)?;
        let loopback = is_loopback(&url);
        let mut builder = http_client_builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.total_timeout)
            .retry(reqwest::retry::never())
            // A redirect would re-send the signed headers and the body to another address.
            .redirect(reqwest::redirect::Policy::none())
            .https_only(!loopback)
            .user_agent(concat!("paydesk/", env!("CARGO_PKG_VERSION")));
        if loopback {
            // Plain HTTP to this machine must not travel through a proxy in clear text.
            builder = builder.no_proxy();
        }
        let http = builder
            .build()
            .map_err(|e| ClientError::Build(e.to_string()))?;
        Ok(Self {
            http,
            base: url.as_str().trim_end_matches('/').to_owned(),
            api_key: config.api_key,
            secret: Arc::new(config.secret),
            clock,
        })
    }

    /// The base URL, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// Sends one attempt: signs `body` now, posts it, returns the answer as it came. The HTTP
    /// stack gets a copy that is wiped when it lets go of it.
    pub async fn send(
        &self,
        endpoint: &Endpoint,
        body: &[u8],
        idempotency_key: Option<&str>,
    ) -> Result<HttpAnswer, CallError> {
        self.send_wiped(endpoint, Zeroizing::new(body.to_vec()), idempotency_key)
            .await
    }

    /// [`ApiClient::send`] of a body handed over whole (a card number's): the HTTP stack sends
    /// from this one buffer, with no copy, and wipes it when done.
    async fn send_wiped(
        &self,
        endpoint: &Endpoint,
        body: Zeroizing<Vec<u8>>,
        idempotency_key: Option<&str>,
    ) -> Result<HttpAnswer, CallError> {
        let headers = signer::sign(
            &self.api_key,
            &self.secret,
            self.clock.now_millis(),
            "POST",
            endpoint.path,
            &body,
        );
        let mut request = self
            .http
            .post(format!("{}{}", self.base, endpoint.path))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(HEADER_API_KEY, headers.api_key)
            .header(HEADER_TIMESTAMP, headers.timestamp)
            .header(HEADER_SIGNATURE, headers.signature)
            .body(reqwest::Body::from(bytes::Bytes::from_owner(WipedBytes(
                body,
            ))));
        if let Some(key) = idempotency_key.filter(|_| endpoint.idempotent) {
            request = request.header(HEADER_IDEMPOTENCY_KEY, key);
        }
        let started = std::time::Instant::now();
        let outcome = async {
            let mut response = request.send().await?;
            let status = response.status().as_u16();
            let header = |name| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                    .map(str::to_owned)
            };
            let retry_after = header(reqwest::header::RETRY_AFTER);
            let date = header(reqwest::header::DATE);
            let location = header(reqwest::header::LOCATION);
            let body =
                read_capped(&mut response, MAX_ANSWER_BYTES)
                    .await?
                    .ok_or(CallError::TooLarge {
                        status,
                        limit: MAX_ANSWER_BYTES,
                    })?;
            Ok::<_, CallError>(HttpAnswer {
                status,
                body,
                retry_after: retry_after
                    .and_then(|v| parse_retry_after(&v, date.as_deref(), self.clock.now())),
                location: location.map(|l| origin_of(&self.base, &l)),
            })
        }
        .await;
        match &outcome {
            Ok(answer) => tracing::debug!(
                endpoint = endpoint.name,
                status = answer.status,
                ms = started.elapsed().as_millis(),
                "answered"
            ),
            Err(e) => tracing::debug!(
                endpoint = endpoint.name,
                ms = started.elapsed().as_millis(),
                error = %crate::domain::server_text::excerpt(&e.to_string()),
                "no answer"
            ),
        }
        outcome
    }

    /// One attempt, decoded. A 3xx is [`CallError::Redirected`], never followed.
    pub async fn call<T: DeserializeOwned>(
        &self,
        endpoint: &Endpoint,
        body: &[u8],
        idempotency_key: Option<&str>,
    ) -> Result<T, CallError> {
        self.call_wiped(endpoint, Zeroizing::new(body.to_vec()), idempotency_key)
            .await
    }

    /// [`ApiClient::call`] of a body handed over whole: sent from that one zeroizing buffer.
    pub async fn call_wiped<T: DeserializeOwned>(
        &self,
        endpoint: &Endpoint,
        body: Zeroizing<Vec<u8>>,
        idempotency_key: Option<&str>,
    ) -> Result<T, CallError> {
        let answer = self.send_wiped(endpoint, body, idempotency_key).await?;
        if (300..=399).contains(&answer.status) {
            tracing::warn!(
                endpoint = endpoint.name,
                status = answer.status,
                "redirect not followed"
            );
            return Err(CallError::Redirected {
                status: answer.status,
                location: answer.location,
            });
        }
        decode_response(answer.status, &answer.body).map_err(|e| match e {
            ResponseError::Api(api) => CallError::Api(api.with_retry_after(answer.retry_after)),
            other @ ResponseError::Malformed { .. } => other.into(),
        })
    }
}

/// One answer of the server, as it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpAnswer {
    /// HTTP status.
    pub status: u16,
    /// The body bytes.
    pub body: Vec<u8>,
    /// The wait asked for by `Retry-After`, when given and readable.
    pub retry_after: Option<Duration>,
    /// For a redirect: the origin (scheme, host, port) it pointed to.
    pub location: Option<String>,
}

/// The wait a `Retry-After` value asks for: delay-seconds, or an HTTP date. A date is measured
/// against the answer's own `Date` header when there is one, so a server clock that disagrees
/// with ours still gives the wait it meant; else against `now`. A date in the past is no wait.
pub fn parse_retry_after(
    value: &str,
    date: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let http_date = |v: &str| {
        chrono::DateTime::parse_from_rfc2822(v.trim())
            .ok()
            .map(|d| d.with_timezone(&chrono::Utc))
    };
    let at = http_date(value)?;
    let reference = date.and_then(http_date).unwrap_or(now);
    Some((at - reference).to_std().unwrap_or(Duration::ZERO))
}

/// The scheme, host and port of a `Location` value (relative ones against `base`): enough to
/// tell staff where the server pointed, without a path or query that might carry data.
fn origin_of(base: &str, location: &str) -> String {
    Url::parse(base)
        .and_then(|b| b.join(location))
        .map_or_else(|_| "?".to_owned(), |u| u.origin().ascii_serialization())
}

impl From<reqwest::Error> for CallError {
    fn from(e: reqwest::Error) -> Self {
        if e.is_builder() {
            // reqwest checks header values when the request is built: nothing was sent.
            return CallError::NotSent {
                detail: transport_detail(&e),
            };
        }
        CallError::Transport {
            timeout: e.is_timeout(),
            connect: e.is_connect(),
            detail: transport_detail(&e),
        }
    }
}

/// Reads the answer's body as it arrives, one copy, stopping as soon as it passes `cap`
/// (`None`): a server that streams without end costs at most `cap` bytes of memory. A
/// `Content-Length` over the cap is refused before anything is read.
async fn read_capped(
    response: &mut reqwest::Response,
    cap: usize,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    let announced = response.content_length().unwrap_or(0);
    if announced > cap as u64 {
        return Ok(None);
    }
    #[allow(clippy::cast_possible_truncation)] // at most `cap`, checked above
    let mut body = Vec::with_capacity(announced as usize);
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > cap {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(body))
}

/// A request body zeroized when the HTTP stack drops it (for card save it holds a card
/// number, docs/design.md §3), as `Bytes::from_owner` takes it (`AsRef<[u8]>`).
struct WipedBytes(Zeroizing<Vec<u8>>);

impl AsRef<[u8]> for WipedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A short description of a transport error with its source chain, never a body.
fn transport_detail(e: &reqwest::Error) -> String {
    let mut text = if e.is_timeout() {
        "timeout".to_owned()
    } else if e.is_connect() {
        "connect".to_owned()
    } else {
        "transport".to_owned()
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_must_be_https_unless_loopback() {
        for ok in [
            "https://api.example.com",
            "http://127.0.0.1:8080",
            "http://localhost:1/",
            "http://[::1]:9",
        ] {
            assert!(check_base_url(ok).is_ok(), "{ok}");
        }
        assert!(matches!(
            check_base_url("http://api.example.com"),
            Err(ClientError::InsecureUrl(_))
        ));
        assert!(matches!(
            check_base_url("http://10.0.0.1"),
            Err(ClientError::InsecureUrl(_))
        ));
        assert!(matches!(
            check_base_url("ftp://127.0.0.1"),
            Err(ClientError::BadUrl(_))
        ));
        assert!(matches!(
            check_base_url("not a url"),
            Err(ClientError::BadUrl(_))
        ));
    }

    #[test]
    fn retry_after_reads_seconds_and_dates_against_the_servers_own_clock() {
        let now: chrono::DateTime<chrono::Utc> = "2026-11-23T10:00:00Z".parse().unwrap();
        let secs = Duration::from_secs;
        assert_eq!(parse_retry_after("7", None, now), Some(secs(7)));
        assert_eq!(parse_retry_after(" 0 ", None, now), Some(secs(0)));
        // A date: measured against our clock when the answer has no Date header...
        assert_eq!(
            parse_retry_after("Mon, 23 Nov 2026 10:00:30 GMT", None, now),
            Some(secs(30))
        );
        // ...and against the server's Date when it has one: its clock is an hour ahead of
        // ours, and it still means "in 20 seconds".
        assert_eq!(
            parse_retry_after(
                "Mon, 23 Nov 2026 11:00:20 GMT",
                Some("Mon, 23 Nov 2026 11:00:00 GMT"),
                now
            ),
            Some(secs(20))
        );
        assert_eq!(
            parse_retry_after("Mon, 23 Nov 2026 09:00:00 GMT", None, now),
            Some(Duration::ZERO),
            "a date in the past asks for no wait"
        );
        for bad in ["", "soon", "-5", "1.5"] {
            assert_eq!(parse_retry_after(bad, None, now), None, "{bad:?}");
        }
    }

    #[test]
    fn a_redirect_location_is_shown_as_its_origin_only() {
        let base = "http://127.0.0.1:9/";
        assert_eq!(
            origin_of(base, "http://127.0.0.2:8080/partner/1.0/card/save?pan=4111"),
            "http://127.0.0.2:8080"
        );
        assert_eq!(origin_of(base, "/elsewhere?x=1"), "http://127.0.0.1:9");
        assert_eq!(
            origin_of(base, "https://evil.example/"),
            "https://evil.example"
        );
    }

    #[test]
    fn a_clerk_reads_a_sentence_without_the_transports_own_words() {
        let detail = "transport: client error (SendRequest): connection error: Connection reset by peer (os error 104)";
        for (connect, timeout) in [(false, false), (true, false), (false, true)] {
            let e = CallError::Transport {
                timeout,
                connect,
                detail: detail.into(),
            };
            for lang in [Lang::Tr, Lang::En] {
                let sentence = e.sentence(lang);
                assert!(!sentence.contains("SendRequest"), "{sentence}");
                assert!(!sentence.contains("os error"), "{sentence}");
                assert!(sentence.ends_with('.'), "{sentence}");
            }
            // The log and the Pending list keep the detail.
            assert!(e.to_string().contains("os error 104"));
        }
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let cfg = ClientConfig::new(
            "http://127.0.0.1:1",
            "pk_1",
            Zeroizing::new("sk_very_secret".into()),
        );
        assert!(!format!("{cfg:?}").contains("sk_very_secret"));
        let client = ApiClient::new(cfg, Arc::new(crate::clock::SystemClock)).unwrap();
        assert!(!format!("{client:?}").contains("sk_very_secret"));
    }

    /// An `https://` base URL is spoken to in TLS (the crypto provider is installed and used):
    /// the first bytes on the wire are a TLS handshake record, never the plain request.
    #[tokio::test]
    async fn https_urls_are_spoken_to_in_tls() {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let (mut conn, _) = listener.accept().await.unwrap();
            let mut first = [0_u8; 3];
            conn.read_exact(&mut first).await.unwrap();
            first
        });
        let cfg = ClientConfig::new(
            format!("https://127.0.0.1:{port}"),
            "pk_1",
            Zeroizing::new("sk_1".into()),
        );
        let client = ApiClient::new(cfg, Arc::new(crate::clock::SystemClock)).unwrap();
        let sent = client
            .send(&super::super::endpoints::LINK_DETAIL, b"{}", None)
            .await;
        // Handshake record (0x16), TLS major version 3; the server then hangs up.
        assert_eq!(server.await.unwrap()[..2], [0x16, 0x03]);
        assert!(matches!(sent, Err(CallError::Transport { .. })), "{sent:?}");
    }
}
