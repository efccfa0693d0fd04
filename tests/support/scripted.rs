//! A scripted Partner API server for the tests that try to break the client: it answers each
//! request the way a real network can (a redirect, a proxy's HTML page, an auth failure, a
//! connection dropped before or after the work was committed, a 429 with `Retry-After`), records
//! every request it receives, and for link create knows the truth: which idempotency keys hold a
//! link. It speaks HTTP/1.1 over a raw TCP socket, so "drop the connection" is exactly that.
//!
//! Link create is scripted per order number (read from the body), every other endpoint per
//! path. An empty script answers truthfully: link create commits (or replays the stored link
//! for the same key and body), the reads answer a plausible content.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The link-create path.
pub const LINK_CREATE: &str = "/partner/1.0/payment/link/create";

/// One scripted answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The truthful answer: link create commits the link (or replays the stored one); a read
    /// answers content.
    Ok,
    /// Link create: commits (or replays), then drops the connection without an answer.
    LostAfterCommit,
    /// Drops the connection after reading the request, having done nothing.
    LostBeforeCommit,
    /// This status with the JSON error envelope carrying `key` (if any), nothing done, and a
    /// `Retry-After` header when given.
    Error {
        /// HTTP status.
        status: u16,
        /// Message key.
        key: Option<&'static str>,
        /// `Retry-After` value.
        retry_after: Option<String>,
    },
    /// This status with an HTML page, as a proxy or a load balancer answers; nothing done.
    Html(u16),
    /// A redirect to this absolute URL; nothing done.
    Redirect(u16, String),
    /// Link create: a business rejection with this status and key, as a real server gives it:
    /// only when it holds no link for the key; when it does, it replays the link instead.
    Business(u16, &'static str),
    /// Link create: `idempotency.key.reused`, again only when true (the key holds a different
    /// body); for a key that holds this very body, the stored link is replayed.
    KeyReused,
}

impl Answer {
    /// A plain error envelope without `Retry-After`.
    pub fn error(status: u16, key: Option<&'static str>) -> Answer {
        Answer::Error {
            status,
            key,
            retry_after: None,
        }
    }
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Request path.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
    /// When it arrived.
    pub at: std::time::Instant,
}

impl Seen {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct State {
    seen: Vec<Seen>,
    scripts: HashMap<String, VecDeque<Answer>>,
    /// Idempotency key → (body, link content).
    links: HashMap<String, (Vec<u8>, Value)>,
    next_id: u64,
}

/// A running scripted server.
#[derive(Clone)]
pub struct Scripted {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for Scripted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scripted")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Scripted {
    /// Starts a server on `ip` (a loopback address: 127.0.0.1, or 127.0.0.2 for "another
    /// host"), on a free port, on the current tokio runtime.
    pub async fn start(ip: [u8; 4]) -> Scripted {
        let listener = TcpListener::bind(SocketAddr::new(IpAddr::from(ip), 0))
            .await
            .expect("a loopback port");
        let addr = listener.local_addr().expect("a bound address");
        let server = Scripted {
            addr,
            state: Arc::new(Mutex::new(State::default())),
        };
        let s = server.clone();
        tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                tokio::spawn(s.clone().serve(conn));
            }
        });
        server
    }

    /// `http://ip:port`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues answers for the link creates of `order`.
    pub fn script_order(&self, order: &str, answers: impl IntoIterator<Item = Answer>) {
        self.state()
            .scripts
            .entry(order.to_owned())
            .or_default()
            .extend(answers);
    }

    /// Queues answers for every request to `path`.
    pub fn script_path(&self, path: &str, answers: impl IntoIterator<Item = Answer>) {
        self.state()
            .scripts
            .entry(path.to_owned())
            .or_default()
            .extend(answers);
    }

    /// Forgets what is left of every script: from now on every answer is truthful.
    pub fn heal(&self) {
        self.state().scripts.clear();
    }

    /// Every request received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state().seen.clone()
    }

    /// The links the server holds for `order`.
    pub fn links_of(&self, order: &str) -> Vec<Value> {
        self.state()
            .links
            .values()
            .filter(|(_, l)| l["orderNumber"] == order)
            .map(|(_, l)| l.clone())
            .collect()
    }

    /// Every link the server holds.
    pub fn all_links(&self) -> Vec<Value> {
        self.state()
            .links
            .values()
            .map(|(_, l)| l.clone())
            .collect()
    }

    async fn serve(self, mut conn: TcpStream) {
        let mut buffer = Vec::new();
        loop {
            let Some((path, headers, body)) = read_request(&mut conn, &mut buffer).await else {
                return;
            };
            let key = header_of(&headers, "idempotency-key").map(str::to_owned);
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let order = request["orderNumber"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let answer = {
                let mut state = self.state();
                state.seen.push(Seen {
                    path: path.clone(),
                    headers: headers.clone(),
                    body: body.clone(),
                    at: std::time::Instant::now(),
                });
                let script = if path == LINK_CREATE { &order } else { &path };
                state
                    .scripts
                    .get_mut(script)
                    .and_then(VecDeque::pop_front)
                    .unwrap_or(Answer::Ok)
            };
            let reply = if path == LINK_CREATE {
                self.link_create(answer, key.as_deref(), &body, &request)
            } else {
                read_reply(answer, &path, &request)
            };
            let Some(bytes) = reply else {
                // Dropped without a word.
                return;
            };
            if conn.write_all(&bytes).await.is_err() {
                return;
            }
        }
    }

    /// The link-create answer, with the truth kept: `None` drops the connection.
    fn link_create(
        &self,
        answer: Answer,
        key: Option<&str>,
        body: &[u8],
        request: &Value,
    ) -> Option<Vec<u8>> {
        let key = key.unwrap_or_default().to_owned();
        let mut state = self.state();
        let held = state.links.get(&key).cloned();
        let commit = |state: &mut State| -> Result<Value, ()> {
            match state.links.get(&key) {
                Some((stored, link)) if stored == body => Ok(link.clone()),
                Some(_) => Err(()),
                None => {
                    state.next_id += 1;
                    let id = format!("lnk_{}", state.next_id);
                    let link = link_content(&id, request);
                    state
                        .links
                        .insert(key.clone(), (body.to_vec(), link.clone()));
                    Ok(link)
                }
            }
        };
        let reused = || error_reply(406, Some("idempotency.key.reused"), None);
        match answer {
            Answer::Ok => Some(match commit(&mut state) {
                Ok(link) => success(&link),
                Err(()) => reused(),
            }),
            Answer::LostAfterCommit => {
                let _ = commit(&mut state);
                None
            }
            Answer::Business(status, k) => Some(match held {
                Some((stored, link)) if stored == body => success(&link),
                _ => error_reply(status, Some(k), None),
            }),
            Answer::KeyReused => Some(match held {
                Some((stored, link)) if stored == body => success(&link),
                _ => reused(),
            }),
            other => read_reply(other, LINK_CREATE, request),
        }
    }
}

/// The answer of a read (or of a write that does nothing): `None` drops the connection.
fn read_reply(answer: Answer, path: &str, request: &Value) -> Option<Vec<u8>> {
    match answer {
        Answer::Ok | Answer::LostAfterCommit => {
            if answer == Answer::LostAfterCommit {
                return None;
            }
            Some(success(&read_content(path, request)))
        }
        Answer::LostBeforeCommit => None,
        Answer::Error {
            status,
            key,
            retry_after,
        } => Some(error_reply(status, key, retry_after.as_deref())),
        Answer::Html(status) => Some(reply(
            status,
            "text/html; charset=utf-8",
            &[],
            b"<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><hr><center>nginx</center></body></html>",
        )),
        Answer::Redirect(status, location) => {
            Some(reply(status, "text/plain", &[("Location", &location)], b""))
        }
        Answer::Business(status, key) => Some(error_reply(status, Some(key), None)),
        Answer::KeyReused => Some(error_reply(406, Some("idempotency.key.reused"), None)),
    }
}

/// A plausible content for a read.
fn read_content(path: &str, request: &Value) -> Value {
    if path.ends_with("/card/save") {
        json!({"id": "card_1", "maskedPan": "411111******1111", "status": "ACTIVE"})
    } else if path.ends_with("/installment/list") {
        json!({"binNumber": request["binNumber"], "installments": [
            {"installmentCount": 1, "installmentAmount": 100, "totalAmount": 100}
        ]})
    } else {
        let id = request["id"].as_str().unwrap_or("lnk_x");
        json!({"id": id, "status": "PENDING"})
    }
}

/// The content of a new link.
fn link_content(id: &str, request: &Value) -> Value {
    json!({
        "id": id,
        "orderNumber": request["orderNumber"],
        "referenceNumber": format!("REF-{id}"),
        "paymentUrl": format!("https://pay.example/{id}"),
        "amount": request["amount"],
        "paidAmount": 0,
        "remainingAmount": request["amount"],
        "currency": request["currency"],
        "status": "PENDING",
        "transactionRef": null,
    })
}

fn success(content: &Value) -> Vec<u8> {
    let body = json!({"success": true, "content": content}).to_string();
    reply(200, "application/json", &[], body.as_bytes())
}

fn error_reply(status: u16, key: Option<&str>, retry_after: Option<&str>) -> Vec<u8> {
    let body =
        json!({"success": false, "messageKey": key, "message": "scripted", "httpStatus": status})
            .to_string();
    let extra: Vec<(&str, &str)> = retry_after
        .map(|v| ("Retry-After", v))
        .into_iter()
        .collect();
    reply(status, "application/json", &extra, body.as_bytes())
}

fn reply(status: u16, content_type: &str, extra: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {status} Scripted\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in extra {
        let _ = write!(head, "{name}: {value}\r\n");
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

fn header_of<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Reads one request (head and `Content-Length` body) from the connection; `None` at its end.
/// Bytes past the request stay in `buffer` for the next one.
async fn read_request(
    conn: &mut TcpStream,
    buffer: &mut Vec<u8>,
) -> Option<(String, Vec<(String, String)>, Vec<u8>)> {
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let mut chunk = [0_u8; 4096];
        let n = conn.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let path = lines.next()?.split(' ').nth(1)?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = header_of(&headers, "content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let mut chunk = [0_u8; 4096];
        let n = conn.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body = buffer[head_end..head_end + length].to_vec();
    buffer.drain(..head_end + length);
    Some((path, headers, body))
}
