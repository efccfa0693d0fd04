//! Starting and stopping the sandbox, the router, and the one pipeline every API request
//! goes through: authentication → request log → faults → idempotency → delay → the
//! endpoint's work → (stalled answer) → (lost response). One `tracing` line per request,
//! never a body.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;
use tokio::sync::watch;

use super::auth::{ReplayCache, authenticate};
use super::body::scrub;
use super::conn::{ConnControl, KillableListener};
use super::error::SandboxError;
use super::faults::{Board, FaultKind, FaultRule};
use super::fixture::{ApiKey, Fixture};
use super::idempotency::{self, Claim, Scope, StoredResponse};
use super::index::Index;
use super::lock::StateLock;
use super::persist::Db;
use super::requests::RequestLog;
use super::respond::{MAX_BODY_BYTES, Rejection, envelope_for_too_large, json_response};
use super::shared::Shared;
use super::state::{IdGen, LiveStore};
use super::{admin, cards, installments, links, pay_page};
use crate::api::endpoints::{self, Endpoint};
use crate::api::keys;
use crate::api::signer::HEADER_IDEMPOTENCY_KEY;
use crate::clock::{Clock, SystemClock};

/// How to start a sandbox.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Address to bind (`127.0.0.1:0` picks a free port).
    pub addr: SocketAddr,
    /// The world to simulate.
    pub fixture: Fixture,
    /// Seed for identifiers and fault probabilities; `None` draws one from the OS.
    pub seed: Option<u64>,
    /// The clock (a `ManualClock` in tests).
    pub clock: Arc<dyn Clock>,
    /// `SQLite` state file; `None` keeps state in memory.
    pub state_file: Option<PathBuf>,
    /// Fault rules active from the start.
    pub faults: Vec<FaultRule>,
}

impl SandboxConfig {
    /// Loopback, any free port, system clock, in memory, no faults.
    pub fn new(fixture: Fixture) -> Self {
        SandboxConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            fixture,
            seed: None,
            clock: Arc::new(SystemClock),
            state_file: None,
            faults: Vec::new(),
        }
    }
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig::new(Fixture::shipped())
    }
}

/// The sandbox server.
#[derive(Debug)]
pub struct Sandbox;

/// A running sandbox. Dropping it stops the server.
#[derive(Debug)]
pub struct SandboxHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    finished: watch::Receiver<bool>,
    /// The thread and runtime of a handle from `spawn_background`.
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sandbox {
    /// Starts a sandbox simulating `fixture` on `127.0.0.1:0` (a free port), on the current
    /// tokio runtime, with the system clock and state in memory.
    pub async fn start(fixture: Fixture) -> Result<SandboxHandle, SandboxError> {
        Sandbox::start_with(SandboxConfig::new(fixture)).await
    }

    /// Starts a sandbox on the current tokio runtime.
    pub async fn start_with(config: SandboxConfig) -> Result<SandboxHandle, SandboxError> {
        config.fixture.validate()?;
        let seed = config.seed.unwrap_or_else(rand::random);
        let faults = Board::new(config.faults, seed ^ 0x5eed_fa17)?;
        // One server per state file: the lock is taken before the file is opened and held
        // until the server has stopped (see `lock`).
        let mut lock = config
            .state_file
            .as_deref()
            .map(StateLock::acquire)
            .transpose()?;
        let listener = tokio::net::TcpListener::bind(config.addr).await?;
        let addr = listener.local_addr()?;
        let host = if addr.ip().is_unspecified() {
            SocketAddr::from(([127, 0, 0, 1], addr.port()))
        } else {
            addr
        };
        let instance = hex::encode(rand::random::<[u8; 16]>());
        if let Some(lock) = lock.as_mut() {
            lock.publish(host, &instance)?;
        }
        let now_ms = config.clock.now_millis();
        let (store, idem, persistent) = match &config.state_file {
            Some(path) => {
                let db = Arc::new(Db::open(path)?);
                let links = db.links()?;
                let cards = db.cards()?;
                let keys = db.idempotency(now_ms - idempotency::RETENTION.num_milliseconds())?;
                let sink: Arc<dyn idempotency::Sink> = db.clone();
                (
                    LiveStore::new(Some(db), links, cards),
                    idempotency::KeyStore::with_sink(sink, keys),
                    true,
                )
            }
            None => (
                LiveStore::new(None, Vec::new(), Vec::new()),
                idempotency::KeyStore::new(),
                false,
            ),
        };
        let issued = store.link_count() as u64;
        let shared = Arc::new(Shared {
            index: Index::new(&config.fixture),
            fixture: config.fixture,
            clock: config.clock,
            replay: ReplayCache::default(),
            idem: Arc::new(idem),
            store,
            faults,
            ids: IdGen::new(seed, issued),
            base_url: format!("http://{host}"),
            bound: addr,
            persistent,
            requests: RequestLog::default(),
            instance,
        });
        let app = router(Arc::clone(&shared)).into_make_service_with_connect_info::<ConnControl>();
        let (stop, mut stop_rx) = watch::channel(false);
        let (done, finished) = watch::channel(false);
        let mut grace_rx = stop_rx.clone();
        tokio::spawn(async move {
            let serve = axum::serve(KillableListener::new(listener), app).with_graceful_shutdown(
                async move {
                    let _ = stop_rx.wait_for(|s| *s).await;
                },
            );
            tokio::select! {
                result = serve => {
                    if let Err(e) = result {
                        tracing::error!("sandbox server stopped: {e}");
                    }
                }
                () = async {
                    let _ = grace_rx.wait_for(|s| *s).await;
                    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                } => {}
            }
            // Stopped: another process may serve the state file now.
            drop(lock);
            let _ = done.send(true);
        });
        Ok(SandboxHandle {
            shared,
            addr: host,
            stop,
            finished,
            thread: None,
        })
    }

    /// Starts a sandbox on its own thread and tokio runtime, for code that is not async
    /// (the app and the CLI). The server stops when the handle is dropped or shut down.
    pub fn spawn_background(config: SandboxConfig) -> Result<SandboxHandle, SandboxError> {
        // One message, the started server or why not: a capacity of one never waits.
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("paydesk-sandbox".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("paydesk-sandbox-worker")
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = tx.send(Err(SandboxError::Io(e)));
                        return;
                    }
                };
                runtime.block_on(async move {
                    match Sandbox::start_with(config).await {
                        Ok(handle) => {
                            let mut finished = handle.finished.clone();
                            if tx.send(Ok(handle)).is_ok() {
                                let _ = finished.wait_for(|f| *f).await;
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Err(e));
                        }
                    }
                });
            })?;
        let mut handle = rx.recv().map_err(|_| SandboxError::ThreadGone)??;
        handle.thread = Some(thread);
        Ok(handle)
    }
}

impl SandboxHandle {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting and ends the server after in-flight requests (at most 2 s).
    pub fn shutdown(&self) {
        let _ = self.stop.send(true);
    }

    /// Stops the server and, for a handle from `spawn_background`, waits until its thread has
    /// ended (in-flight requests get at most 2 s); the state file is closed, and its lock
    /// released, when this returns.
    pub fn stop_and_wait(mut self) {
        self.shutdown();
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::warn!("the sandbox thread panicked");
        }
    }

    /// Waits until the server has stopped.
    pub async fn stopped(&self) {
        let mut finished = self.finished.clone();
        let _ = finished.wait_for(|f| *f).await;
    }

    /// Admin access for tests and the app, without HTTP.
    pub fn admin(&self) -> admin::Admin<'_> {
        admin::Admin::new(&self.shared)
    }
}

impl Drop for SandboxHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn router(shared: Arc<Shared>) -> Router {
    let api = |endpoint: Endpoint, work: Work| {
        post(
            move |State(s): State<Arc<Shared>>,
                  ConnectInfo(conn): ConnectInfo<ConnControl>,
                  headers: HeaderMap,
                  body: Bytes| async move {
                run_endpoint(&s, &conn, endpoint, work, &headers, body).await
            },
        )
    };
    Router::new()
        .route(
            endpoints::LINK_CREATE.path,
            api(endpoints::LINK_CREATE, links::create),
        )
        .route(
            endpoints::LINK_DETAIL.path,
            api(endpoints::LINK_DETAIL, links::detail),
        )
        .route(
            endpoints::LINK_CANCEL.path,
            api(endpoints::LINK_CANCEL, links::cancel),
        )
        .route(
            endpoints::CARD_SAVE.path,
            api(endpoints::CARD_SAVE, cards::save),
        )
        .route(
            endpoints::INSTALLMENT_LIST.path,
            api(endpoints::INSTALLMENT_LIST, installments::list),
        )
        .merge(pay_page::routes())
        .merge(admin::routes(Arc::clone(&shared)))
        .fallback(|| async {
            Rejection::new(
                StatusCode::NOT_FOUND,
                "route.not.found",
                "no such sandbox route",
            )
        })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::map_response(envelope_for_too_large))
        .layer(middleware::from_fn(log_request))
        .with_state(shared)
}

/// An endpoint's work: the validated caller and the parsed body in, success bytes out.
type Work = fn(&Shared, &ApiKey, &Value) -> Result<Vec<u8>, Rejection>;

/// Marks a response whose connection was dropped on purpose (for the log line).
#[derive(Debug, Clone, Copy)]
struct Lost;

async fn run_endpoint(
    shared: &Shared,
    conn: &ConnControl,
    endpoint: Endpoint,
    work: Work,
    headers: &HeaderMap,
    body: Bytes,
) -> Response {
    // Authentication first: what is sent without the API secret is neither logged nor allowed
    // to spend a fault rule.
    let key = match authenticate(
        &shared.index,
        &shared.replay,
        shared.clock.now_millis(),
        headers,
        endpoint.path,
        &body,
        endpoint.scope,
    ) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    shared
        .requests
        .record(endpoint.name, &body, shared.clock.now_millis());
    let plan = shared.faults.plan(endpoint.name);
    match plan.early {
        Some(FaultKind::RateLimit) => {
            let mut r = Rejection::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate.limited",
                "too many requests (injected fault)",
            )
            .into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return r;
        }
        Some(_) => {
            return Rejection::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "sandbox.fault.injected",
                "internal error (injected fault); nothing was done",
            )
            .into_response();
        }
        None => {}
    }
    let sensitive = endpoint.name == endpoints::CARD_SAVE.name;
    let mut response = handle(shared, key, endpoint, work, headers, &body, plan.delay).await;
    if sensitive {
        // The body held a PAN: wipe the buffer if nothing else shares it.
        if let Ok(mut bytes) = body.try_into_mut() {
            use zeroize::Zeroize;
            bytes.as_mut().zeroize();
        }
    }
    if !plan.stall.is_zero() {
        // The work is committed (and its idempotency key completed): hold the answer.
        tokio::time::sleep(plan.stall).await;
    }
    if plan.lost {
        conn.kill();
        response.extensions_mut().insert(Lost);
    }
    response
}

async fn handle(
    shared: &Shared,
    key: &ApiKey,
    endpoint: Endpoint,
    work: Work,
    headers: &HeaderMap,
    body: &[u8],
    delay: std::time::Duration,
) -> Response {
    let idempotency_key = headers
        .get(HEADER_IDEMPOTENCY_KEY)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty());
    if endpoint.idempotent && idempotency_key.is_none() {
        return Rejection::new(
            StatusCode::BAD_REQUEST,
            keys::IDEMPOTENCY_KEY_MISSING,
            "this endpoint needs an Idempotency-Key header",
        )
        .into_response();
    }
    let mut value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Rejection::new(
                StatusCode::BAD_REQUEST,
                "body.invalid",
                format!("the request body is not JSON: {e}"),
            )
            .into_response();
        }
    };
    let guard = match idempotency_key.filter(|_| endpoint.idempotent) {
        None => None,
        Some(k) => {
            let scope = Scope {
                business: key.business.clone(),
                endpoint: endpoint.name.to_owned(),
                key: k.to_owned(),
            };
            match shared.idem.claim(scope, &value, shared.clock.now_millis()) {
                Claim::Proceed(guard) => Some(guard),
                Claim::Replay(stored) => {
                    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
                    return json_response(status, stored.body.to_vec());
                }
                Claim::InProgress => {
                    return Rejection::new(
                        StatusCode::NOT_ACCEPTABLE,
                        keys::IDEMPOTENCY_IN_PROGRESS,
                        "a request with this Idempotency-Key is still running; retry when it has finished",
                    )
                    .into_response();
                }
                Claim::Reused => {
                    return Rejection::new(
                        StatusCode::NOT_ACCEPTABLE,
                        keys::IDEMPOTENCY_KEY_REUSED,
                        "this Idempotency-Key was used for a different request body",
                    )
                    .into_response();
                }
            }
        }
    };
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let result = work(shared, key, &value);
    if endpoint.name == endpoints::CARD_SAVE.name {
        scrub(&mut value);
    }
    match result {
        Ok(bytes) => {
            if let Some(g) = guard {
                g.complete(StoredResponse {
                    status: StatusCode::OK.as_u16(),
                    body: Arc::from(bytes.as_slice()),
                });
            }
            json_response(StatusCode::OK, bytes)
        }
        // A failed first request frees the key (the guard is dropped uncompleted).
        Err(e) => e.into_response(),
    }
}

async fn log_request(request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let key = request
        .headers()
        .get(HEADER_IDEMPOTENCY_KEY)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let response = next.run(request).await;
    tracing::info!(
        target: "paydesk::sandbox",
        method = %method,
        path = %path,
        status = response.status().as_u16(),
        idempotency_key = key.as_deref().unwrap_or("-"),
        duration_us = u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX),
        lost = response.extensions().get::<Lost>().is_some(),
        "request"
    );
    response
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use tower::ServiceExt;

    use super::*;

    /// The router's answer to `GET path` from `peer`, naming `host`; no socket is involved,
    /// so a peer address of another machine can be given.
    async fn get_from(shared: &Arc<Shared>, peer: &str, host: &str, path: &str) -> u16 {
        let mut request = Request::builder()
            .uri(path)
            .header(header::HOST, host)
            .body(Body::empty())
            .expect("a request");
        let peer: SocketAddr = peer.parse().expect("an address");
        request
            .extensions_mut()
            .insert(ConnectInfo(ConnControl::new(peer)));
        let response = router(Arc::clone(shared))
            .oneshot(request)
            .await
            .expect("the router answers");
        response.status().as_u16()
    }

    #[tokio::test]
    async fn admin_routes_answer_only_loopback_peers_and_the_pay_page_anyone() {
        let handle = Sandbox::start(Fixture::shipped()).await.expect("a sandbox");
        let shared = &handle.shared;
        let host = handle.addr().to_string();
        for local in [
            "127.0.0.1:50000",
            "127.8.9.10:50000",
            "[::1]:50000",
            "[::ffff:127.0.0.1]:5",
        ] {
            assert_eq!(
                get_from(shared, local, &host, "/sandbox").await,
                200,
                "{local}"
            );
        }
        for remote in [
            "192.0.2.7:50000",
            "[2001:db8::7]:50000",
            "[::ffff:192.0.2.7]:5",
        ] {
            for path in [
                "/sandbox",
                "/sandbox/state",
                "/sandbox/links",
                "/sandbox/faults",
            ] {
                assert_eq!(
                    get_from(shared, remote, &host, path).await,
                    403,
                    "{remote} {path}"
                );
            }
            // Customers pay from their phones: the pay page answers any peer.
            assert_eq!(
                get_from(shared, remote, &host, "/pay/lnk_none").await,
                404,
                "{remote}"
            );
        }
    }

    #[test]
    fn the_host_must_name_this_sandbox() {
        use super::admin::{host_is_ours, peer_is_local};
        let bound: SocketAddr = "127.0.0.1:8080".parse().expect("an address");
        let any: SocketAddr = "0.0.0.0:8080".parse().expect("an address");
        for ok in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "localhost:8080",
            "localhost",
            "LocalHost:8080",
            "[::1]:8080",
            "[::1]",
        ] {
            assert!(host_is_ours(ok, bound), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8080",
            "localhost:8081",
            "localhost:",
            "127.0.0.1:80800",
            "localhost.evil.example:8080",
            "[::1]x",
            "[::1",
            "192.0.2.2:8080",
            "",
        ] {
            assert!(!host_is_ours(bad, bound), "{bad}");
        }
        // Bound to every address: the machine's loopback names still work, others do not.
        assert!(host_is_ours("127.0.0.1:8080", any));
        assert!(host_is_ours("0.0.0.0:8080", any));
        assert!(!host_is_ours("evil.example:8080", any));
        assert!(peer_is_local(
            "::ffff:127.0.0.1".parse().expect("an address")
        ));
        assert!(!peer_is_local("192.0.2.2".parse().expect("an address")));
    }
}
