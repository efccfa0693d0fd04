//! What the sandbox keeps: no PAN or CVV anywhere (memory dump and state file bytes),
//! state that survives a restart with `--state`, partial payment until the total, the pay
//! page, expiry, and the background start used by non-async code.

use std::io::{Read, Write};
use std::path::Path;

use crate::support::sandbox::{Client, admin_get, admin_post, config, manual_clock, num, start};
use chrono::Duration;
use paydesk::api::endpoints::{CARD_SAVE, LINK_CREATE, LINK_DETAIL};
use paydesk::sandbox::{DEMO_API_KEY, Sandbox, SandboxConfig, SandboxHandle};
use rust_decimal::Decimal;
use serde_json::{Value, json};

const CREATE: &str = LINK_CREATE.path;
const PAN: &str = "5549607812345675";
const CVV: &str = "7391";

/// Every run of 7 consecutive PAN digits; the mask shows only the first 6 and last 4.
fn pan_windows() -> Vec<&'static str> {
    (0..=PAN.len() - 7).map(|i| &PAN[i..i + 7]).collect()
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for w in pan_windows() {
        assert!(!text.contains(w), "{what} holds PAN digits {w}");
    }
    assert!(!text.contains(CVV), "{what} holds the CVV");
    assert!(
        !text.to_ascii_lowercase().contains("\"cvv\""),
        "{what} names a cvv field"
    );
}

fn state_files(path: &Path) -> Vec<(String, Vec<u8>)> {
    let dir = path.parent().expect("the state file is in a temp dir");
    let name = path
        .file_name()
        .expect("the state file has a name")
        .to_string_lossy()
        .into_owned();
    std::fs::read_dir(dir)
        .expect("the temp dir is readable")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(&name))
        .map(|e| {
            (
                e.path().display().to_string(),
                std::fs::read(e.path()).expect("state files are readable"),
            )
        })
        .collect()
}

#[tokio::test]
async fn no_pan_or_cvv_remains_anywhere_after_a_card_save() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sandbox.sqlite");
    let clock = manual_clock();
    let mut cfg = config(clock.clone());
    cfg.state_file = Some(file.clone());
    let sb = Sandbox::start_with(cfg).await.unwrap();
    let c = Client::demo(&sb, clock.clone());
    let body = format!(
        r#"{{"cardNumber":"{PAN}","expiryMonth":"07","expiryYear":"2029","cvv":"{CVV}","cardHolderName":"AYŞE YILMAZ","setAsDefault":true}}"#
    );
    let saved = c.post(CARD_SAVE.path, &body, None).await;
    assert_eq!(saved.status, 200, "{}", saved.text);
    // Spaced input is the same card.
    let spaced = body.replace(PAN, "5549 6078 1234 5675");
    assert_eq!(c.post(CARD_SAVE.path, &spaced, None).await.status, 200);
    // A link too, so every table has rows.
    assert_eq!(
        c.post(CREATE, r#"{"amount":10}"#, Some("k")).await.status,
        200
    );

    let dump = admin_get(&sb, "/sandbox/state").await;
    assert_eq!(dump.status, 200);
    assert_eq!(dump.content()["cards"].as_array().unwrap().len(), 2);
    assert!(dump.text.contains("554960******5675"), "the mask is kept");
    assert_clean("GET /sandbox/state", dump.text.as_bytes());
    assert_clean("Admin::state", sb.admin().state().to_string().as_bytes());
    let files = state_files(&file);
    assert!(!files.is_empty());
    let mut saw_mask = false;
    for (name, bytes) in &files {
        assert_clean(name, bytes);
        saw_mask |= String::from_utf8_lossy(bytes).contains("554960******5675");
    }
    assert!(saw_mask, "the state file holds the saved cards");
}

#[tokio::test]
async fn a_restart_with_a_state_file_keeps_links_cards_and_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("state.sqlite");
    let clock = manual_clock();
    let mut cfg = config(clock.clone());
    cfg.state_file = Some(file.clone());
    let sb = Sandbox::start_with(cfg.clone()).await.unwrap();
    let c = Client::demo(&sb, clock.clone());
    let first = c
        .post(
            CREATE,
            r#"{"amount":"75.00","allowPartialPayment":true}"#,
            Some("link-R-1"),
        )
        .await;
    let id = first.content()["id"].as_str().unwrap().to_owned();
    sb.admin().pay(&id, Some(Decimal::new(2500, 2))).unwrap();
    let card = c
        .post(
            CARD_SAVE.path,
            r#"{"cardNumber":"5400610000000001","expiryMonth":"12","expiryYear":"2030"}"#,
            None,
        )
        .await;
    assert_eq!(card.status, 200);
    sb.shutdown();
    sb.stopped().await;
    drop(sb);

    let sb = Sandbox::start_with(cfg).await.unwrap();
    let c = Client::demo(&sb, clock.clone());
    let detail = c
        .post(LINK_DETAIL.path, &json!({"id": id}).to_string(), None)
        .await;
    assert_eq!(detail.status, 200, "{}", detail.text);
    assert_eq!(num(&detail.content()["paidAmount"]), "25.00");
    assert_eq!(num(&detail.content()["remainingAmount"]), "50.00");
    // The idempotency key survived: the same request returns the first answer.
    let again = c
        .post(
            CREATE,
            r#"{"amount":"75.00","allowPartialPayment":true}"#,
            Some("link-R-1"),
        )
        .await;
    assert_eq!(again.text, first.text);
    assert_eq!(sb.admin().links(None).len(), 1);
    assert_eq!(
        sb.admin().state()["cards"][0]["maskedPan"],
        json!("540061******0001")
    );
    // Reference numbers continue rather than repeat.
    let next = c
        .post(CREATE, r#"{"amount":"5.00"}"#, Some("link-R-2"))
        .await;
    assert_ne!(
        next.content()["referenceNumber"],
        first.content()["referenceNumber"]
    );
}

#[tokio::test]
async fn partial_payments_until_the_total_then_completed() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let link = c
        .post(
            CREATE,
            r#"{"amount":"300.00","allowPartialPayment":true}"#,
            Some("p-1"),
        )
        .await;
    let id = link.content()["id"].as_str().unwrap().to_owned();
    let path = format!("/sandbox/links/{id}/pay");

    let one = admin_post(&sb, &path, r#"{"amount":"100.00"}"#).await;
    assert_eq!(one.status, 200, "{}", one.text);
    let l = one.content();
    assert_eq!(l["status"], json!("PENDING"));
    assert_eq!(num(&l["paidAmount"]), "100.00");
    assert_eq!(num(&l["remainingAmount"]), "200.00");
    assert!(l["transactionRef"].as_str().unwrap().starts_with("txn_"));
    assert_eq!(l["completedDate"], Value::Null);

    let table = [
        (
            r#"{"amount":"250.00"}"#,
            406,
            "payment.amount.exceeds.remaining",
        ),
        (r#"{"amount":"0"}"#, 400, "amount.invalid"),
        (r#"{"amount":"10.005"}"#, 400, "amount.invalid"),
    ];
    for (body, status, key) in table {
        assert_eq!(
            admin_post(&sb, &path, body).await.status_key(),
            (status, key.to_owned()),
            "{body}"
        );
    }
    clock.advance(Duration::minutes(3));
    let two = admin_post(&sb, &path, r#"{"amount":200}"#).await;
    let l = two.content();
    assert_eq!(l["status"], json!("COMPLETED"));
    assert_eq!(num(&l["paidAmount"]), "300.00");
    assert_eq!(num(&l["remainingAmount"]), "0.00");
    assert_eq!(l["completedDate"], json!("2026-11-22T10:03:00.001Z"));
    assert_ne!(l["transactionRef"], one.content()["transactionRef"]);
    let detail = c
        .post(LINK_DETAIL.path, &json!({"id": id}).to_string(), None)
        .await;
    assert_eq!(detail.content()["status"], json!("COMPLETED"));
    assert_eq!(admin_post(&sb, &path, "").await.key(), "link.not.payable");

    // Without partial payment only the full amount is taken.
    let whole = c.post(CREATE, r#"{"amount":"80.00"}"#, Some("p-2")).await;
    let whole_path = format!(
        "/sandbox/links/{}/pay",
        whole.content()["id"].as_str().unwrap()
    );
    assert_eq!(
        admin_post(&sb, &whole_path, r#"{"amount":40}"#).await.key(),
        "payment.partial.not.allowed"
    );
    let paid = admin_post(&sb, &whole_path, "").await;
    assert_eq!(paid.content()["status"], json!("COMPLETED"));
    assert_eq!(
        admin_post(&sb, "/sandbox/links/lnk_nope/pay", "")
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn a_link_past_its_expiry_reads_as_expired() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let link = c
        .post(
            CREATE,
            r#"{"amount":10,"expiryDate":"2026-11-22T11:00:00Z"}"#,
            Some("e-1"),
        )
        .await;
    let id = link.content()["id"].as_str().unwrap().to_owned();
    let body = json!({"id": id}).to_string();
    clock.advance(Duration::minutes(59));
    assert_eq!(
        c.post(LINK_DETAIL.path, &body, None).await.content()["status"],
        json!("PENDING")
    );
    clock.advance(Duration::minutes(1));
    assert_eq!(
        c.post(LINK_DETAIL.path, &body, None).await.content()["status"],
        json!("EXPIRED")
    );
    let listed = admin_get(&sb, "/sandbox/links?business=biz_kadikoy_kahve").await;
    assert_eq!(listed.content()["count"], json!(1));
    assert_eq!(listed.content()["links"][0]["status"], json!("EXPIRED"));
    assert_eq!(
        admin_get(&sb, "/sandbox/links?business=biz_nisantasi_butik")
            .await
            .content()["count"],
        json!(0)
    );
    let refused = admin_post(&sb, &format!("/sandbox/links/{id}/pay"), "").await;
    assert_eq!(refused.status_key(), (406, "link.not.payable".to_owned()));
}

/// The payer's browser on the pay page: plain GETs and form posts, redirects not followed.
struct Browser(reqwest::Client);

impl Browser {
    fn new() -> Self {
        Self(
            paydesk::api::client::http_client_builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("an HTTP client"),
        )
    }

    /// The page at `url`: its status and HTML.
    async fn get(&self, url: &str) -> (u16, String) {
        let r = self.0.get(url).send().await.expect("the page answers");
        (r.status().as_u16(), r.text().await.expect("a page"))
    }

    /// Submits the form as a browser does (`application/x-www-form-urlencoded`).
    async fn submit(&self, url: &str, fields: &[(&str, &str)]) -> (u16, String) {
        let enc = |s: &str| {
            s.bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect::<String>()
        };
        let body = fields
            .iter()
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect::<Vec<_>>()
            .join("&");
        let r = self
            .0
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("the form is answered");
        (r.status().as_u16(), r.text().await.expect("a page"))
    }
}

const TEST_CARD: [(&str, &str); 4] = [
    ("cardNumber", "5400610000000001"),
    ("expiryMonth", "12"),
    ("expiryYear", "2030"),
    ("cvv", "000"),
];

/// A sandbox with one link created from `body`, its pay page opened in a browser.
struct PayPage {
    sb: SandboxHandle,
    c: Client,
    link: crate::support::sandbox::Answer,
    url: String,
    browser: Browser,
    page: String,
}

async fn open_pay_page(body: &str, key: &str) -> PayPage {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock);
    let link = c.post(CREATE, body, Some(key)).await;
    let url = link.content()["paymentUrl"]
        .as_str()
        .expect("a paymentUrl")
        .to_owned();
    let browser = Browser::new();
    let (_, page) = browser.get(&url).await;
    PayPage {
        sb,
        c,
        link,
        url,
        browser,
        page,
    }
}

#[tokio::test]
async fn the_pay_page_shows_the_link_and_takes_a_form_payment() {
    let PayPage {
        sb,
        c,
        url,
        browser,
        page,
        ..
    } = open_pay_page(
        r#"{"amount":"240.00","allowPartialPayment":true,"description":"Doğum günü <pastası>"}"#,
        "pp-1",
    )
    .await;
    for expected in [
        "₺240.00",
        "Tamamını öde",
        "Pay in full",
        "name=\"amount\"",
        "5400610000000001",
        "Kadıköy Kahve Evi",
        "&lt;pastası&gt;",
    ] {
        assert!(page.contains(expected), "page lacks {expected}");
    }
    assert!(!page.contains("<script"));
    assert!(
        !page.contains("firstName"),
        "no contact fields without contactRequired"
    );

    let mut partial = TEST_CARD.to_vec();
    partial.extend([("amount", "40,00"), ("pay", "partial")]);
    assert_eq!(browser.submit(&url, &partial).await.0, 303);
    let after = sb.admin().links(None);
    assert_eq!(after[0].paid_amount, Some(Decimal::new(4000, 2)));

    let bad_card = [("cardNumber", "5400610000000002"), ("pay", "full")];
    let (status, page) = browser.submit(&url, &bad_card).await;
    assert_eq!(status, 422);
    assert!(page.contains("Kart numarası geçersiz"));

    let full = [("cardNumber", "5400610000000001"), ("pay", "full")];
    assert_eq!(browser.submit(&url, &full).await.0, 303);
    let (_, done) = browser.get(&url).await;
    assert!(done.contains("data-status=\"COMPLETED\""), "{done}");
    assert!(!done.contains("<form"));

    let whole = c.post(CREATE, r#"{"amount":"15.00"}"#, Some("pp-2")).await;
    let (_, page) = browser
        .get(whole.content()["paymentUrl"].as_str().unwrap())
        .await;
    assert!(
        !page.contains("name=\"amount\""),
        "no amount field without partial payment"
    );
    let missing = format!("{}/pay/lnk_nope", sb.base_url());
    assert_eq!(browser.get(&missing).await.0, 404);
}

#[tokio::test]
async fn the_pay_page_asks_for_contact_data_when_the_link_requires_it() {
    let PayPage {
        sb,
        c,
        link,
        url,
        browser,
        page,
    } = open_pay_page(
        r#"{"amount":"90.00","contactRequired":true,"email":"ayse@example.com","phoneCountryCode":"90","phoneNumber":"5321234567"}"#,
        "pc-1",
    )
    .await;
    for expected in [
        "name=\"firstName\"",
        "name=\"lastName\"",
        "name=\"phone\" value=\"+90 5321234567\"",
        "name=\"email\" value=\"ayse@example.com\"",
        "E-mail (optional)",
    ] {
        assert!(page.contains(expected), "page lacks {expected}");
    }
    assert!(!page.to_lowercase().contains("address"), "never an address");

    let pay = |contact: &[(&'static str, &'static str)]| {
        let mut form = TEST_CARD.to_vec();
        form.push(("pay", "full"));
        form.extend_from_slice(contact);
        form
    };
    // No name: refused, each missing field named, what was typed kept, nothing paid.
    let (status, page) = browser
        .submit(&url, &pay(&[("phone", "+90 532 765 43 21"), ("email", "")]))
        .await;
    assert_eq!(status, 422);
    assert!(page.contains("First name is required"), "{page}");
    assert!(page.contains("Last name is required"), "{page}");
    assert!(!page.contains("Phone is required"), "{page}");
    assert!(page.contains("value=\"+90 532 765 43 21\""), "{page}");
    assert_eq!(sb.admin().links(None)[0].paid_amount, Some(Decimal::ZERO));

    // A phone too short and a broken e-mail are refused too.
    let (status, page) = browser
        .submit(
            &url,
            &pay(&[
                ("firstName", "Ayşe"),
                ("lastName", "Yılmaz"),
                ("phone", "12 34"),
                ("email", "ayse@"),
            ]),
        )
        .await;
    assert_eq!(status, 422);
    assert!(page.contains("Phone is required (7–15 digits)"), "{page}");
    assert!(page.contains("The e-mail address is not valid"), "{page}");
    assert!(!page.contains("First name is required"), "{page}");

    // Complete contact data (e-mail left out): paid.
    let (status, _) = browser
        .submit(
            &url,
            &pay(&[
                ("firstName", "Ayşe"),
                ("lastName", "Yılmaz"),
                ("phone", "+90 532 765 43 21"),
            ]),
        )
        .await;
    assert_eq!(status, 303);
    let detail = json!({ "id": link.content()["id"] }).to_string();
    let done = c.post(LINK_DETAIL.path, &detail, None).await;
    assert_eq!(done.content()["status"], "COMPLETED");
}

#[test]
fn spawn_background_serves_non_async_callers_until_dropped() {
    let handle = Sandbox::spawn_background(SandboxConfig::default()).unwrap();
    let addr = handle.addr();
    let get = || -> std::io::Result<String> {
        let mut s = std::net::TcpStream::connect(addr)?;
        // The Host a client of http://127.0.0.1:PORT sends (admin routes check it).
        let request = format!("GET /sandbox HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        s.write_all(request.as_bytes())?;
        let mut out = String::new();
        s.read_to_string(&mut out)?;
        Ok(out)
    };
    let answer = get().unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(DEMO_API_KEY));
    assert!(
        !answer.contains("sk_test_paydesk_demo_secret"),
        "secrets are not listed"
    );
    drop(handle);
    let mut gone = false;
    for _ in 0..100 {
        if get().is_err() {
            gone = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(gone, "the server stops when its handle is dropped");
}
