//! The sandbox at its edges, over real HTTP on loopback: money too large to compute exactly
//! is a 400 with a key (never a panic that drops the connection), an oversized body is a 413
//! in the JSON error envelope, the unsigned admin routes refuse a `Host` that is not this
//! sandbox (a web page reaching it through DNS rebinding) while the pay page does not care,
//! and they refuse what a web page can send from any site (a simple content type, a foreign
//! `Origin`). What arrives without the API secret never reaches the request log, which stays
//! within its byte cap whatever it is sent; fault rules are at most 60 s and 100, through the
//! admin route and `paydesk sandbox --fault` alike.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::support::sandbox::{Answer, Client, admin_get, admin_post, manual_clock, start};
use paydesk::api::endpoints::{INSTALLMENT_LIST, LINK_CREATE, LINK_DETAIL};
use paydesk::api::signer::{HEADER_API_KEY, HEADER_SIGNATURE, HEADER_TIMESTAMP};
use paydesk::clock::Clock;
use paydesk::sandbox::respond::MAX_BODY_BYTES;
use paydesk::sandbox::{DEMO_API_KEY, SandboxHandle, requests};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const OUT_OF_RANGE: &str = "amount.out.of.range";

/// The error envelope with `status` and `key`, and a message naming what was wrong.
fn assert_envelope(a: &Answer, status: u16, key: &str, names: &str) {
    assert_eq!(a.status_key(), (status, key.to_owned()), "{}", a.text);
    assert_eq!(a.json["success"], json!(false), "{}", a.text);
    assert_eq!(a.json["httpStatus"], json!(status), "{}", a.text);
    let message = a.json["message"].as_str().unwrap_or_default();
    assert!(message.contains(names), "{message:?} should name {names}");
}

#[tokio::test]
async fn money_too_large_to_compute_exactly_is_a_400_with_a_key() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let item =
        |price: &str, qty: u32| format!(r#"{{"name":"Big","unitPrice":{price},"quantity":{qty}}}"#);
    let table = [
        // A unit price near Decimal::MAX, times two: cannot even keep 2 decimals for TRY.
        (
            format!(r#"{{"amount":1,"items":[{}]}}"#, item("7.9e28", 2)),
            "unitPrice",
        ),
        // In JPY (no decimals) the price fits, the product does not.
        (
            format!(
                r#"{{"amount":1,"currency":"JPY","items":[{}]}}"#,
                item("79000000000000000000000000000", 2)
            ),
            "unitPrice",
        ),
        // Each line fits, their sum does not.
        (
            format!(
                r#"{{"amount":1,"currency":"JPY","items":[{},{}]}}"#,
                item("50000000000000000000000000000", 1),
                item("50000000000000000000000000000", 1)
            ),
            "items total",
        ),
        // TRY lines that fit as numbers but not with their 2 decimals.
        (
            format!(
                r#"{{"amount":1,"items":[{}]}}"#,
                item("500000000000000000000000000.00", 2)
            ),
            "unitPrice",
        ),
        (
            r#"{"amount":79228162514264337593543950335}"#.to_owned(),
            "amount",
        ),
        (
            r#"{"amount":79228162514264337593543950336}"#.to_owned(),
            "amount",
        ),
        (r#"{"amount":1e400}"#.to_owned(), "amount"),
        (r#"{"amount":"-1e400"}"#.to_owned(), "amount"),
        (
            r#"{"amount":150,"cartAmount":1e29}"#.to_owned(),
            "cartAmount",
        ),
        // 1.000000000000000000000000000001 would round to 1.00: refused, not rounded.
        (
            r#"{"amount":1.000000000000000000000000000001}"#.to_owned(),
            "amount",
        ),
    ];
    for (n, (body, names)) in table.iter().enumerate() {
        let a = c
            .post(LINK_CREATE.path, body, Some(&format!("big-{n}")))
            .await;
        assert_envelope(&a, 400, OUT_OF_RANGE, names);
    }
    let a = c
        .post(
            INSTALLMENT_LIST.path,
            r#"{"binNumber":"554960","amount":792281625142643375935439503.35}"#,
            None,
        )
        .await;
    assert_envelope(&a, 400, OUT_OF_RANGE, "amount");
    let a = c
        .post(
            INSTALLMENT_LIST.path,
            r#"{"binNumber":"554960","amount":1e300}"#,
            None,
        )
        .await;
    assert_envelope(&a, 400, OUT_OF_RANGE, "amount");

    // Nothing was created, every key was freed, and the server still works.
    assert_eq!(sb.admin().links(None).len(), 0);
    let ok = c
        .post(LINK_CREATE.path, r#"{"amount":150.5}"#, Some("big-0"))
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    assert_eq!(
        crate::support::sandbox::num(&ok.content()["amount"]),
        "150.50"
    );
    // An admin payment of a huge amount is refused the same way.
    let id = ok.content()["id"].as_str().expect("an id").to_owned();
    let pay = admin_post(
        &sb,
        &format!("/sandbox/links/{id}/pay"),
        r#"{"amount":1e40}"#,
    )
    .await;
    assert_envelope(&pay, 400, OUT_OF_RANGE, "amount");
}

#[tokio::test]
async fn a_body_over_the_limit_is_a_413_in_the_error_envelope() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    // Valid JSON padded with blanks to exactly the limit is read (and refused for its
    // content); one byte more is refused for its size, before authentication.
    let padded = |len: usize| {
        let mut body = String::from(r#"{"amount":0}"#);
        body.push_str(&" ".repeat(len - body.len()));
        body
    };
    let at_limit = c
        .post(LINK_CREATE.path, &padded(MAX_BODY_BYTES), Some("size-1"))
        .await;
    assert_eq!(at_limit.status_key(), (400, "amount.invalid".to_owned()));
    let over = c
        .post(
            LINK_CREATE.path,
            &padded(MAX_BODY_BYTES + 1),
            Some("size-2"),
        )
        .await;
    assert_envelope(&over, 413, "request.too.large", &MAX_BODY_BYTES.to_string());
    assert_eq!(
        over.text.trim_start().chars().next(),
        Some('{'),
        "JSON, not axum's plain text"
    );
    // The admin routes and unknown routes answer the same way.
    let admin = admin_post(&sb, "/sandbox/faults", &padded(MAX_BODY_BYTES + 1)).await;
    assert_envelope(&admin, 413, "request.too.large", "larger than");
    assert!(
        sb.admin().state()["faults"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
    assert_eq!(sb.admin().links(None).len(), 0);
}

/// One HTTP/1.1 request written by hand (so the `Host` header is exactly what a browser on a
/// rebound name would send), with a JSON content type, read to the end.
async fn raw(sb: &SandboxHandle, request_line: &str, host: Option<&str>, body: &str) -> Answer {
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(h) = host {
        headers.insert(0, ("Host", h));
    }
    raw_with(sb, request_line, &headers, body).await
}

/// One HTTP/1.1 request written by hand with exactly `headers` (and its length), read to the
/// end.
async fn raw_with(
    sb: &SandboxHandle,
    request_line: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = tokio::net::TcpStream::connect(sb.addr())
        .await
        .expect("the sandbox accepts");
    let headers: String = headers
        .iter()
        .flat_map(|(name, value)| [name, ": ", value, "\r\n"])
        .collect();
    let head = format!(
        "{request_line}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .await
        .expect("the request is sent");
    let mut bytes = Vec::new();
    stream
        .read_to_end(&mut bytes)
        .await
        .expect("the answer is read");
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text}"));
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    let json = serde_json::from_str(&body).unwrap_or(Value::Null);
    Answer {
        status,
        text: body,
        json,
    }
}

#[tokio::test]
async fn admin_routes_refuse_a_host_that_is_not_this_sandbox() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let created = c
        .post(LINK_CREATE.path, r#"{"amount":40}"#, Some("host-1"))
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    let id = created.content()["id"].as_str().expect("an id").to_owned();
    let port = sb.addr().port();
    let pay = format!("POST /sandbox/links/{id}/pay HTTP/1.1");
    let status_of = |sb: &SandboxHandle| {
        sb.admin()
            .links(None)
            .first()
            .and_then(|l| l.status.clone())
            .map(|s| s.to_string())
    };

    // A page on evil.example whose name now resolves to 127.0.0.1: the browser sends its own
    // name. Refused, and the link is not paid.
    for host in [
        Some(format!("evil.example:{port}")),
        Some("evil.example".to_owned()),
        Some(format!("localhost.evil.example:{port}")),
        Some(format!("localhost:{}", port.wrapping_add(1))),
        None,
    ] {
        let a = raw(&sb, &pay, host.as_deref(), "").await;
        assert_envelope(&a, 403, "sandbox.admin.forbidden", "");
        assert_eq!(status_of(&sb).as_deref(), Some("PENDING"), "{host:?}");
    }
    let a = raw(&sb, "GET /sandbox/state HTTP/1.1", Some("evil.example"), "").await;
    assert_envelope(&a, 403, "sandbox.admin.forbidden", "evil.example");
    assert!(!a.text.contains(&id), "no state leaks: {}", a.text);
    let a = raw(
        &sb,
        "POST /sandbox/faults HTTP/1.1",
        Some(&format!("evil.example:{port}")),
        r#"{"endpoint":"*","kind":"error500"}"#,
    )
    .await;
    assert_eq!(a.status, 403, "{}", a.text);
    assert!(
        sb.admin().state()["faults"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );

    // The names of this sandbox are accepted.
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "localhost".to_owned(),
        format!("LOCALHOST:{port}"),
        format!("[::1]:{port}"),
    ] {
        let a = raw(&sb, "GET /sandbox HTTP/1.1", Some(&host), "").await;
        assert_eq!(a.status, 200, "{host}: {}", a.text);
    }
    // The customers' pay page does not look at Host.
    let page = raw(
        &sb,
        &format!("GET /pay/{id} HTTP/1.1"),
        Some("evil.example"),
        "",
    )
    .await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains("Tamamını öde"), "{}", page.text);

    // A normal admin request (reqwest names 127.0.0.1:PORT) still pays the link.
    let paid = admin_post(&sb, &format!("/sandbox/links/{id}/pay"), "").await;
    assert_eq!(paid.status, 200, "{}", paid.text);
    assert_eq!(status_of(&sb).as_deref(), Some("COMPLETED"));
    assert_eq!(admin_get(&sb, "/sandbox/links").await.status, 200);
}

fn no_faults(sb: &SandboxHandle) -> bool {
    sb.admin().state()["faults"]
        .as_array()
        .is_some_and(Vec::is_empty)
}

#[tokio::test]
async fn admin_writes_refuse_what_a_web_page_can_send() {
    let sb = start(manual_clock()).await;
    let port = sb.addr().port();
    let host = format!("127.0.0.1:{port}");
    let rule = r#"{"endpoint":"*","kind":"error500"}"#;
    let add = "POST /sandbox/faults HTTP/1.1";

    // What a page's `no-cors` fetch or form can send to 127.0.0.1 from any site: a simple
    // content type, or none. The Host is right (the page named 127.0.0.1 itself).
    for content_type in [
        Some("text/plain"),
        Some("text/plain;charset=UTF-8"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/jsonx"),
        None,
    ] {
        let mut headers = vec![("Host", host.as_str())];
        if let Some(ct) = content_type {
            headers.push(("Content-Type", ct));
        }
        let a = raw_with(&sb, add, &headers, rule).await;
        assert_envelope(&a, 415, "sandbox.admin.content.type", "application/json");
        assert!(no_faults(&sb), "{content_type:?}");
    }
    // A page of another origin, even one that got JSON through (a preflight it never passes).
    for origin in [
        "http://evil.example".to_owned(),
        "null".to_owned(),
        format!("http://evil.example:{port}"),
        format!("https://127.0.0.1:{port}"),
        format!("http://127.0.0.1:{}", port.wrapping_add(1)),
        "http://127.0.0.1".to_owned(),
        format!("http://127.0.0.1:{port}/x"),
    ] {
        let headers = [
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
            ("Origin", origin.as_str()),
        ];
        let a = raw_with(&sb, add, &headers, rule).await;
        assert_envelope(&a, 403, "sandbox.admin.forbidden", "Origin");
        assert!(no_faults(&sb), "{origin}");
        let pay = raw_with(&sb, "POST /sandbox/links/lnk_x/pay HTTP/1.1", &headers, "").await;
        assert_eq!(pay.status, 403, "{origin}: {}", pay.text);
        let read = raw_with(&sb, "GET /sandbox/state HTTP/1.1", &headers, "").await;
        assert_eq!(read.status, 403, "{origin}: {}", read.text);
    }
    // A DELETE is a write too.
    sb.admin()
        .add_fault("link.create:lost".parse().expect("a rule"))
        .expect("a valid rule");
    let headers = [("Host", host.as_str())];
    let a = raw_with(&sb, "DELETE /sandbox/faults HTTP/1.1", &headers, "").await;
    assert_envelope(&a, 415, "sandbox.admin.content.type", "application/json");
    assert!(!no_faults(&sb), "the rule stays");
    let a = raw_with(&sb, "DELETE /sandbox/requests HTTP/1.1", &headers, "").await;
    assert_eq!(a.status, 415, "{}", a.text);

    // This sandbox's own origin, JSON with a charset, and reads without a content type: fine.
    let own = format!("http://localhost:{port}");
    let headers = [
        ("Host", host.as_str()),
        ("Content-Type", "Application/JSON; charset=utf-8"),
        ("Origin", own.as_str()),
    ];
    let a = raw_with(&sb, add, &headers, rule).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let a = raw_with(&sb, "DELETE /sandbox/faults HTTP/1.1", &headers, "").await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert!(no_faults(&sb));
    let a = raw_with(&sb, "GET /sandbox/faults HTTP/1.1", &[("Host", &host)], "").await;
    assert_eq!(a.status, 200, "{}", a.text);
}

#[tokio::test]
async fn a_fault_rule_is_at_most_60_s_and_at_most_100_are_active() {
    let sb = start(manual_clock()).await;
    for rule in [
        r#"{"endpoint":"link.create","kind":"delay","delayMs":18446744073709551000}"#,
        r#"{"endpoint":"*","kind":"delay","delayMs":60001}"#,
        r#"[{"endpoint":"*","kind":"lost"},{"endpoint":"*","kind":"stall","delayMs":99999999}]"#,
    ] {
        let a = admin_post(&sb, "/sandbox/faults", rule).await;
        assert_envelope(&a, 400, "fault.invalid", "at most 60000 ms");
        assert!(no_faults(&sb), "nothing of {rule} was added");
    }
    let longest = admin_post(
        &sb,
        "/sandbox/faults",
        r#"{"endpoint":"*","kind":"delay","delayMs":60000,"next":1}"#,
    )
    .await;
    assert_eq!(longest.status, 200, "{}", longest.text);
    sb.admin().clear_faults();

    let rules = |n: usize| json!(vec![json!({"endpoint": "*", "kind": "lost"}); n]).to_string();
    let a = admin_post(&sb, "/sandbox/faults", &rules(101)).await;
    assert_envelope(&a, 400, "fault.invalid", "at most 100");
    assert!(no_faults(&sb), "a refused batch adds none");
    let a = admin_post(&sb, "/sandbox/faults", &rules(100)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let a = admin_post(&sb, "/sandbox/faults", &rules(1)).await;
    assert_envelope(&a, 400, "fault.invalid", "at most 100");
    assert_eq!(
        sb.admin().state()["faults"].as_array().map(Vec::len),
        Some(100)
    );
}

#[test]
fn the_sandbox_command_refuses_a_fault_over_60_s_or_over_100_faults_with_exit_2() {
    let too_long = vec!["--fault", "link.create:delay=99999999999999"];
    let too_many: Vec<&str> = ["--fault", "link.create:lost@next=1"].repeat(101);
    for (what, faults, says) in [
        ("a delay of 3 171 years", too_long, "at most 60000 ms"),
        ("101 rules", too_many, "at most 100 fault rules"),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_paydesk"))
            .args(["sandbox", "--addr", "127.0.0.1:0"])
            .args(&faults)
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("paydesk starts");
        // A sandbox that starts prints its address first; a refused one ends with no line.
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout is piped"))
            .read_line(&mut first)
            .expect("stdout reads");
        if !first.is_empty() {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: the sandbox started: {first}");
        }
        let out = child.wait_with_output().expect("paydesk ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(stderr.contains(says), "{what}: {stderr}");
        assert!(
            stderr.contains("bad fault rule `link.create:"),
            "{what}: {stderr}"
        );
    }
}

#[tokio::test]
async fn the_request_log_keeps_nothing_unsigned_and_stays_under_its_cap() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let big_id = format!("lnk_{}", "x".repeat(1_900_000));
    let body = format!(r#"{{"id":"{big_id}"}}"#);
    let http = paydesk::api::client::http_client_builder()
        .build()
        .expect("an HTTP client");
    let url = format!("{}{}", sb.base_url(), LINK_DETAIL.path);
    // 60 requests of 1.9 MB from a program without the secret: none signed, or the demo key
    // with a made-up signature.
    for i in 0..60 {
        let mut request = http
            .post(&url)
            .header("Content-Type", "text/plain")
            .body(body.clone());
        if i % 2 == 1 {
            request = request
                .header(HEADER_API_KEY, DEMO_API_KEY)
                .header(HEADER_TIMESTAMP, clock.now_millis().to_string())
                .header(HEADER_SIGNATURE, "00".repeat(32));
        }
        let a = crate::support::sandbox::answer(request.send().await.expect("an answer")).await;
        assert_eq!(a.status, 401, "{}", a.text);
    }
    let admin = sb.admin();
    assert!(admin.requests().is_empty(), "unsigned requests were logged");
    assert!(admin.request_totals().is_empty());
    assert_eq!(admin.request_log_bytes(), 0);

    // The same flood signed: each is logged, with an excerpt of its id only.
    let c = Client::demo(&sb, clock.clone());
    for _ in 0..30 {
        let a = c.post(LINK_DETAIL.path, &body, None).await;
        assert_eq!(a.status, 404, "{}", a.text);
    }
    let seen = admin.requests();
    assert_eq!(seen.len(), 30);
    let held: usize = seen
        .iter()
        .map(|r| r.endpoint.len() + r.link_id.as_ref().map_or(0, String::len))
        .sum();
    for r in &seen {
        let id = r.link_id.as_deref().expect("the id's excerpt");
        assert!(big_id.starts_with(id) && id.len() == requests::MAX_LINK_ID);
    }
    assert!(
        held <= 30 * 100,
        "the log holds {held} bytes of 30 requests"
    );
    assert!(admin.request_log_bytes() <= requests::MAX_BYTES);
    assert_eq!(admin.request_totals()["link.detail"], 30);

    // A real id is kept whole.
    let made = c
        .post(LINK_CREATE.path, r#"{"amount":10}"#, Some("log-1"))
        .await;
    let id = made.content()["id"].as_str().expect("an id").to_owned();
    let shown = c
        .post(LINK_DETAIL.path, &json!({"id": id}).to_string(), None)
        .await;
    assert_eq!(shown.status, 200, "{}", shown.text);
    assert_eq!(
        admin.requests().last().and_then(|r| r.link_id.clone()),
        Some(id)
    );
}
