//! Admin routes under `/sandbox/` and the same operations for in-process callers
//! ([`Admin`], from `SandboxHandle::admin`). They need no signature: the sandbox is a
//! loopback test server, and these routes exist so tests and the GUI can look inside it
//! (count links, dump every piece of state, read the requests received), pay a link without
//! HTML, and inject faults.
//! Being unsigned, they answer only this machine: a loopback peer naming this sandbox in
//! `Host` ([`admin_allowed`]), and no web page of another origin ([`origin_allowed`]);
//! anything else is 403 `sandbox.admin.forbidden`. A write (any method but `GET` and `HEAD`)
//! must also say `Content-Type: application/json`, which a browser sends across sites only
//! after a CORS preflight this sandbox never grants: a page's `no-cors` POST or form is 415
//! `sandbox.admin.content.type` ([`content_type_allowed`]).

use std::collections::HashMap;
use std::sync::Arc;

use std::net::{IpAddr, SocketAddr};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::body::Body;
use super::conn::ConnControl;
use super::error::SandboxError;
use super::faults::FaultRule;
use super::links;
use super::requests::SeenRequest;
use super::respond::{ADMIN_CONTENT_TYPE, ADMIN_FORBIDDEN, Rejection, json_response, success_body};
use super::shared::Shared;
use crate::api::endpoints;
use crate::api::wire::PaymentLink;

/// In-process admin access.
#[derive(Debug, Clone, Copy)]
pub struct Admin<'a> {
    shared: &'a Shared,
}

impl<'a> Admin<'a> {
    pub(super) fn new(shared: &'a Shared) -> Self {
        Admin { shared }
    }

    /// The links the server holds, of one business or all, oldest first, as the API shows
    /// them now.
    pub fn links(&self, business: Option<&str>) -> Vec<PaymentLink> {
        let now = self.shared.clock.now();
        self.shared
            .store
            .links(business)
            .iter()
            .map(|l| l.view(&self.shared.base_url, now))
            .collect()
    }

    /// Pays `amount` on a link (the whole remaining amount when `None`).
    pub fn pay(&self, link_id: &str, amount: Option<Decimal>) -> Result<PaymentLink, SandboxError> {
        links::pay(self.shared, link_id, amount).map_err(SandboxError::Refused)
    }

    /// Adds a fault rule.
    pub fn add_fault(&self, rule: FaultRule) -> Result<(), SandboxError> {
        Ok(self.shared.faults.add(rule)?)
    }

    /// Adds every rule of `rules`, or none when one is refused (see `Board::add_all`).
    pub fn add_faults(&self, rules: Vec<FaultRule>) -> Result<(), SandboxError> {
        Ok(self.shared.faults.add_all(rules)?)
    }

    /// Removes every fault rule.
    pub fn clear_faults(&self) {
        self.shared.faults.clear();
    }

    /// The newest API requests received, oldest first (see `sandbox::requests`).
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.shared.requests.recent()
    }

    /// How many API requests each endpoint received.
    pub fn request_totals(&self) -> std::collections::BTreeMap<String, u64> {
        self.shared.requests.totals()
    }

    /// The bytes the request log holds (at most `requests::MAX_BYTES`).
    pub fn request_log_bytes(&self) -> usize {
        self.shared.requests.bytes()
    }

    /// Forgets the requests received so far.
    pub fn clear_requests(&self) {
        self.shared.requests.clear();
    }

    /// Everything the server holds, as `GET /sandbox/state` shows it.
    pub fn state(&self) -> Value {
        let s = self.shared;
        let completed: Vec<Value> = s
            .idem
            .completed()
            .into_iter()
            .map(|r| {
                json!({
                    "business": r.scope.business,
                    "endpoint": r.scope.endpoint,
                    "key": r.scope.key,
                    "bodySha256": hex::encode(r.body_digest),
                    "createdMs": r.created_ms,
                    "status": r.response.status,
                    "response": String::from_utf8_lossy(&r.response.body),
                })
            })
            .collect();
        let in_progress: Vec<Value> = s
            .idem
            .in_progress()
            .into_iter()
            .map(|k| json!({"business": k.business, "endpoint": k.endpoint, "key": k.key}))
            .collect();
        json!({
            "links": s.store.links(None),
            "cards": s.store.cards(),
            "idempotency": {"completed": completed, "inProgress": in_progress},
            "replayCache": {"remembered": s.replay.remembered()},
            "faults": s.faults.rules(),
            "persistent": s.persistent,
        })
    }

    /// A short description: businesses, keys (without secrets), endpoints.
    pub fn summary(&self) -> Value {
        let f = &self.shared.fixture;
        json!({
            "baseUrl": self.shared.base_url,
            "instance": self.shared.instance,
            "persistent": self.shared.persistent,
            "businesses": f.businesses.iter().map(|b| json!({"id": b.id, "name": b.name})).collect::<Vec<_>>(),
            "apiKeys": f.api_keys.iter().map(|k| json!({
                "key": k.key, "business": k.business, "scopes": k.scopes,
                "amountUpperBound": k.amount_upper_bound.map(|d| d.to_string()),
                "link.max_items": k.link.max_items,
            })).collect::<Vec<_>>(),
            "endpoints": endpoints::ALL.iter().map(|e| json!({
                "name": e.name, "path": e.path, "scope": e.scope, "idempotent": e.idempotent,
            })).collect::<Vec<_>>(),
        })
    }
}

fn ok(content: &Value) -> Response {
    match success_body(content) {
        Ok(bytes) => json_response(StatusCode::OK, bytes),
        Err(e) => e.into_response(),
    }
}

fn refused(e: SandboxError) -> Response {
    match e {
        SandboxError::Refused(api) => api.into_response(),
        other => Rejection::new(
            StatusCode::BAD_REQUEST,
            "sandbox.admin.refused",
            other.to_string(),
        )
        .into_response(),
    }
}

fn parse(body: &Bytes) -> Result<Value, Rejection> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_slice(body).map_err(|e| {
        Rejection::new(
            StatusCode::BAD_REQUEST,
            "body.invalid",
            format!("the request body is not JSON: {e}"),
        )
    })
}

async fn summary(State(s): State<Arc<Shared>>) -> Response {
    ok(&Admin::new(&s).summary())
}

async fn list_links(
    State(s): State<Arc<Shared>>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let business = q.get("business").map(String::as_str);
    let links = Admin::new(&s).links(business);
    ok(&json!({"business": business, "count": links.len(), "links": links}))
}

async fn pay_link(State(s): State<Arc<Shared>>, Path(id): Path<String>, body: Bytes) -> Response {
    let value = match parse(&body) {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    let amount = match Body::of(&value).and_then(|b| b.decimal("amount")) {
        Ok(a) => a,
        Err(e) => return e.into_response(),
    };
    match Admin::new(&s).pay(&id, amount) {
        Ok(link) => match success_body(&link) {
            Ok(bytes) => json_response(StatusCode::OK, bytes),
            Err(e) => e.into_response(),
        },
        Err(e) => refused(e),
    }
}

async fn state(State(s): State<Arc<Shared>>) -> Response {
    ok(&Admin::new(&s).state())
}

async fn list_faults(State(s): State<Arc<Shared>>) -> Response {
    ok(&json!(s.faults.rules()))
}

async fn add_faults(State(s): State<Arc<Shared>>, body: Bytes) -> Response {
    let value = match parse(&body) {
        Ok(v) => v,
        Err(e) => return e.into_response(),
    };
    let rules: Result<Vec<FaultRule>, _> = match value {
        Value::Array(_) => serde_json::from_value(value),
        single => serde_json::from_value(single).map(|r| vec![r]),
    };
    let rules = match rules {
        Ok(r) => r,
        Err(e) => {
            return Rejection::new(StatusCode::BAD_REQUEST, "fault.invalid", e.to_string())
                .into_response();
        }
    };
    if let Err(e) = Admin::new(&s).add_faults(rules) {
        return Rejection::new(StatusCode::BAD_REQUEST, "fault.invalid", e.to_string())
            .into_response();
    }
    ok(&json!(s.faults.rules()))
}

async fn clear_faults(State(s): State<Arc<Shared>>) -> Response {
    Admin::new(&s).clear_faults();
    ok(&json!([]))
}

async fn list_requests(State(s): State<Arc<Shared>>) -> Response {
    let admin = Admin::new(&s);
    ok(&json!({"totals": admin.request_totals(), "recent": admin.requests()}))
}

async fn clear_requests(State(s): State<Arc<Shared>>) -> Response {
    Admin::new(&s).clear_requests();
    ok(&json!({"totals": {}, "recent": []}))
}

/// The admin routes, answered only to this machine (see [`admin_allowed`]).
pub(super) fn routes(shared: Arc<Shared>) -> Router<Arc<Shared>> {
    Router::new()
        .route("/sandbox", get(summary))
        .route("/sandbox/links", get(list_links))
        .route("/sandbox/links/{id}/pay", post(pay_link))
        .route("/sandbox/state", get(state))
        .route(
            "/sandbox/faults",
            get(list_faults).post(add_faults).delete(clear_faults),
        )
        .route(
            "/sandbox/requests",
            get(list_requests).delete(clear_requests),
        )
        .route_layer(middleware::from_fn_with_state(shared, only_this_machine))
}

/// Refuses an admin request unless [`admin_allowed`], [`origin_allowed`] and
/// [`content_type_allowed`].
async fn only_this_machine(
    State(s): State<Arc<Shared>>,
    ConnectInfo(conn): ConnectInfo<ConnControl>,
    request: Request,
    next: Next,
) -> Response {
    // The host a client names: the request target's authority (HTTP/2, or an absolute URL),
    // and the Host header. Every one given must be ours; a request naming none is refused.
    let mut hosts = Vec::new();
    if let Some(authority) = request.uri().authority() {
        hosts.push(authority.as_str());
    }
    if let Some(value) = request.headers().get(header::HOST) {
        hosts.push(value.to_str().unwrap_or("\u{fffd}"));
    }
    let checked = admin_allowed(conn.peer(), &hosts, s.bound)
        .and_then(|()| origin_allowed(request.headers(), s.bound))
        .and_then(|()| content_type_allowed(request.method(), request.headers()));
    match checked {
        Ok(()) => next.run(request).await,
        Err(e) => e.into_response(),
    }
}

/// Whether the request's `Origin`, when it has one, is this sandbox's own
/// (`http://localhost:PORT`, `http://127.0.0.1:PORT`, ...). Browsers send `Origin` on every
/// cross-site POST, `no-cors` or not, so a web page's admin request is refused here even when
/// its `Host` is right; tests, scripts and curl send none.
pub fn origin_allowed(headers: &HeaderMap, bound: SocketAddr) -> Result<(), Rejection> {
    for value in &headers.get_all(header::ORIGIN) {
        let origin = value.to_str().unwrap_or("\u{fffd}");
        if !origin_is_ours(origin, bound) {
            let shown: String = origin.chars().take(80).collect();
            return Err(Rejection::new(
                StatusCode::FORBIDDEN,
                ADMIN_FORBIDDEN,
                format!(
                    "Origin `{shown}` is not this sandbox (http://localhost:{port}); admin \
                     routes refuse requests from web pages of other origins",
                    port = bound.port()
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `origin` (`scheme://host[:port]`) is this sandbox: plain HTTP, a name
/// [`host_is_ours`] accepts, and the bound port (80 when the origin names none).
pub fn origin_is_ours(origin: &str, bound: SocketAddr) -> bool {
    let Some(authority) = origin.strip_prefix("http://") else {
        return false;
    };
    if authority.contains(['/', '@', '?', '#']) || authority.is_empty() {
        return false;
    }
    let has_port = match authority.rsplit_once(']') {
        Some((_, after)) => !after.is_empty(),
        None => authority.contains(':'),
    };
    if has_port {
        host_is_ours(authority, bound)
    } else {
        bound.port() == 80 && host_is_ours(authority, bound)
    }
}

/// Whether an admin request may change something: reads (`GET`, `HEAD`) always may; every
/// other method needs `Content-Type: application/json` (parameters such as `charset` allowed),
/// which no simple cross-site request can carry.
pub fn content_type_allowed(method: &Method, headers: &HeaderMap) -> Result<(), Rejection> {
    if method == Method::GET || method == Method::HEAD {
        return Ok(());
    }
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
    if json {
        Ok(())
    } else {
        Err(Rejection::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ADMIN_CONTENT_TYPE,
            format!(
                "an admin {method} needs `Content-Type: application/json` (even with an empty \
                 body)"
            ),
        ))
    }
}

/// Whether an admin request may go on. The admin routes are unsigned (they pay links, inject
/// faults and show every record), so they answer only a peer on this machine (a loopback
/// address) that names this sandbox as the host: `localhost`, a loopback address or the
/// bound address, with the bound port or none. A web page that rebinds its own DNS name to
/// 127.0.0.1 reaches the port from the user's browser, but its requests carry its own name
/// in `Host`, so they are refused.
pub fn admin_allowed(peer: SocketAddr, hosts: &[&str], bound: SocketAddr) -> Result<(), Rejection> {
    let forbidden = |message: String| {
        Err(Rejection::new(
            StatusCode::FORBIDDEN,
            ADMIN_FORBIDDEN,
            message,
        ))
    };
    if !peer_is_local(peer.ip()) {
        return forbidden(format!(
            "admin routes answer only requests from this machine, not from {}",
            peer.ip()
        ));
    }
    if hosts.is_empty() {
        return forbidden("admin routes need a Host header naming this sandbox".to_owned());
    }
    if let Some(other) = hosts.iter().find(|h| !host_is_ours(h, bound)) {
        let shown: String = other.chars().take(80).collect();
        return forbidden(format!(
            "Host `{shown}` is not this sandbox (localhost:{port} or {bound}); admin routes \
             refuse other host names",
            port = bound.port()
        ));
    }
    Ok(())
}

/// A loopback address, also written as an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`).
pub fn peer_is_local(peer: IpAddr) -> bool {
    peer.to_canonical().is_loopback()
}

/// Whether `host` (a `Host` header or an authority: `name`, `name:port`, `[v6]:port`) names
/// this sandbox bound to `bound`.
pub fn host_is_ours(host: &str, bound: SocketAddr) -> bool {
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        let Some((v6, after)) = rest.split_once(']') else {
            return false;
        };
        match after {
            "" => (v6, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (v6, Some(port)),
                None => return false,
            },
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port_ok = port.is_none_or(|p| p.parse::<u16>() == Ok(bound.port()));
    let name_ok = name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| {
            let ip = ip.to_canonical();
            ip == bound.ip().to_canonical() || ip.is_loopback()
        });
    port_ok && name_ok
}
