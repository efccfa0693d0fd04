//! The sandbox over real HTTP on loopback: authentication, link create rules and the new
//! link's shape, link detail and cancel, card save, installment list.

use crate::support::sandbox::{Client, config, manual_clock, num, start};
use chrono::Duration;
use paydesk::api::endpoints::{CARD_SAVE, INSTALLMENT_LIST, LINK_CANCEL, LINK_CREATE, LINK_DETAIL};
use paydesk::api::keys;
use paydesk::sandbox::{DEMO_BUSINESS, Fixture, Sandbox};
use serde_json::{Value, json};

const CREATE: &str = LINK_CREATE.path;

#[tokio::test]
async fn every_authentication_failure_has_its_status_and_key() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let good = Client::demo(&sb, clock.clone());
    let body = r#"{"binNumber":"554960"}"#;
    let path = INSTALLMENT_LIST.path;

    let mut unknown = good.clone();
    unknown.key = "pk_nobody".into();
    let mut wrong_secret = good.clone();
    wrong_secret.secret = "sk_wrong".into();
    let mut ahead = good.clone();
    ahead.skew = Duration::minutes(5) + Duration::seconds(1);
    let mut behind = good.clone();
    behind.skew = -(Duration::minutes(5) + Duration::seconds(1));
    let mut nearly = good.clone();
    nearly.skew = -(Duration::minutes(4) + Duration::seconds(59));
    let table: [(&Client, (u16, &str)); 5] = [
        (&unknown, (401, keys::AUTH_APIKEY_UNKNOWN)),
        (&wrong_secret, (401, keys::AUTH_SIGNATURE_INVALID)),
        (&ahead, (401, keys::AUTH_TIMESTAMP_SKEW)),
        (&behind, (401, keys::AUTH_TIMESTAMP_SKEW)),
        (&nearly, (200, "")),
    ];
    for (client, (status, key)) in table {
        let a = client.post(path, body, None).await;
        assert_eq!(a.status_key(), (status, key.to_owned()), "{}", a.text);
        if status != 200 {
            assert_eq!(a.json["success"], json!(false));
            assert_eq!(a.json["httpStatus"], json!(status));
            assert!(!a.json["message"].as_str().unwrap().is_empty());
        }
    }

    // The same signed request twice: the second is a replay.
    let first = good.request(path, body, None).build().unwrap();
    let second = first.try_clone().unwrap();
    assert_eq!(good.http.execute(first).await.unwrap().status(), 200);
    let replayed = crate::support::sandbox::answer(good.http.execute(second).await.unwrap()).await;
    assert_eq!(
        replayed.status_key(),
        (401, keys::AUTH_SIGNATURE_REPLAYED.to_owned())
    );

    // A body changed after signing fails the signature.
    let tampered = good
        .request(path, body, None)
        .body(r#"{"binNumber":"540061"}"#)
        .send()
        .await
        .unwrap();
    let tampered = crate::support::sandbox::answer(tampered).await;
    assert_eq!(
        tampered.status_key(),
        (401, keys::AUTH_SIGNATURE_INVALID.to_owned())
    );
}

#[tokio::test]
async fn each_missing_scope_is_403() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let table = [
        (
            "pk_test_no_link",
            "sk_test_no_link_secret",
            CREATE,
            r#"{"amount":10}"#,
        ),
        (
            "pk_test_no_link",
            "sk_test_no_link_secret",
            LINK_DETAIL.path,
            r#"{"id":"x"}"#,
        ),
        (
            "pk_test_no_sale",
            "sk_test_no_sale_secret",
            CARD_SAVE.path,
            r#"{"cardNumber":"5400610000000001","expiryMonth":"12","expiryYear":"2030"}"#,
        ),
        (
            "pk_test_no_inquiry",
            "sk_test_no_inquiry_secret",
            INSTALLMENT_LIST.path,
            r#"{"binNumber":"554960"}"#,
        ),
    ];
    for (key, secret, path, body) in table {
        let c = Client::new(&sb, clock.clone(), key, secret);
        let a = c.post(path, body, Some("k-1")).await;
        assert_eq!(
            a.status_key(),
            (403, keys::AUTH_SCOPE_MISSING.to_owned()),
            "{key} {path}"
        );
        assert!(a.json["message"].as_str().unwrap().contains("scope"));
    }
    assert_eq!(sb.admin().links(None).len(), 0);
    // The same keys can use the endpoints they do have a scope for.
    let c = Client::new(
        &sb,
        clock.clone(),
        "pk_test_no_link",
        "sk_test_no_link_secret",
    );
    assert_eq!(
        c.post(INSTALLMENT_LIST.path, r#"{"binNumber":"554960"}"#, None)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn a_new_link_reads_exactly_as_the_spec_says() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let body = r#"{"amount":"150.5","orderNumber":"KK-20261122-0001","description":"2 filtre kahve",
        "email":"ayse@example.com","phoneCountryCode":"90","phoneNumber":"5321234567",
        "availableInstallments":"1, 3,6","expiryDate":"2026-11-23T10:00:00Z"}"#;
    let a = c.post(CREATE, body, Some("link-KK-20261122-0001")).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(a.json["success"], json!(true));
    let l = a.content();
    let id = l["id"].as_str().unwrap();
    assert!(id.starts_with("lnk_"));
    assert!(l["referenceNumber"].as_str().unwrap().starts_with("SBX"));
    assert_eq!(l["orderNumber"], json!("KK-20261122-0001"));
    assert_eq!(
        l["paymentUrl"],
        json!(format!("{}/pay/{id}", sb.base_url()))
    );
    assert_eq!(l["status"], json!("PENDING"));
    assert_eq!(l["transactionRef"], Value::Null);
    assert_eq!(l["completedDate"], Value::Null);
    assert_eq!(num(&l["amount"]), "150.50");
    assert_eq!(num(&l["paidAmount"]), "0.00");
    assert_eq!(num(&l["remainingAmount"]), "150.50");
    assert!(a.text.contains(r#""amount":150.50"#), "{}", a.text);
    assert_eq!(l["currency"], json!("TRY"));
    assert_eq!(l["enableInstallment"], json!(true));
    assert_eq!(l["allowPartialPayment"], json!(false));
    assert_eq!(l["availableInstallments"], json!("1,3,6"));
    assert_eq!(l["email"], json!("ayse@example.com"));
    assert_eq!(l["phoneCountryCode"], json!("90"));
    assert_eq!(l["phoneNumber"], json!("5321234567"));
    assert_eq!(l["expiryDate"], json!("2026-11-23T10:00:00Z"));
    // Created "now" by the server's clock (the client moved it on by 1 ms when signing).
    assert_eq!(l["createdDate"], json!("2026-11-22T10:00:00.001Z"));
    // The client's wire type reads it.
    let typed: paydesk::api::wire::PaymentLink = serde_json::from_value(l.clone()).unwrap();
    assert_eq!(typed.remaining_amount, typed.amount);

    // JPY has no minor unit; EUR keeps two.
    let jpy = c
        .post(CREATE, r#"{"amount":1500,"currency":"JPY"}"#, Some("jpy"))
        .await;
    assert_eq!(num(&jpy.content()["amount"]), "1500");
    assert_eq!(jpy.content()["currency"], json!("JPY"));
    let off = c
        .post(
            CREATE,
            r#"{"amount":10,"enableInstallment":false,"allowPartialPayment":true}"#,
            Some("flags"),
        )
        .await;
    assert_eq!(off.content()["enableInstallment"], json!(false));
    assert_eq!(off.content()["allowPartialPayment"], json!(true));
    assert_eq!(off.content()["orderNumber"], Value::Null);
    assert_eq!(sb.admin().links(Some(DEMO_BUSINESS)).len(), 3);
}

#[tokio::test]
async fn every_link_create_rule_has_its_key_and_status() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let many: Vec<Value> = (0..51)
        .map(|i| json!({"name": format!("Kurabiye {i}"), "unitPrice": "1.00"}))
        .collect();
    let too_many = json!({"amount": "51.00", "items": many}).to_string();
    let fifty: Vec<Value> = (0..50)
        .map(|i| json!({"name": format!("Kurabiye {i}"), "unitPrice": "1.00"}))
        .collect();
    let just_fifty = json!({"amount": "50.00", "items": fifty}).to_string();
    let table: Vec<(&str, String, u16, &str)> = vec![
        ("past expiry", r#"{"amount":10,"expiryDate":"2026-11-22T09:59:59Z"}"#.into(), 400, keys::EXPIRY_IN_PAST),
        ("expiry now", r#"{"amount":10,"expiryDate":"2026-11-22T10:00:00Z"}"#.into(), 400, keys::EXPIRY_IN_PAST),
        ("over the bound", r#"{"amount":"250000.01"}"#.into(), 406, keys::AMOUNT_LIMIT_EXCEEDED),
        ("at the bound", r#"{"amount":"250000"}"#.into(), 200, ""),
        ("51 items", too_many, 406, keys::ITEM_LIMIT_EXCEEDED),
        ("50 items", just_fifty, 200, ""),
        ("item without name", r#"{"amount":10,"items":[{"unitPrice":10}]}"#.into(), 400, keys::ITEMS_INVALID),
        ("item price 0", r#"{"amount":10,"items":[{"name":"Çay","unitPrice":0}]}"#.into(), 400, keys::ITEMS_INVALID),
        ("item without price", r#"{"amount":10,"items":[{"name":"Çay"}]}"#.into(), 400, keys::ITEMS_INVALID),
        ("quantity 0", r#"{"amount":10,"items":[{"name":"Çay","unitPrice":10,"quantity":0}]}"#.into(), 400, keys::ITEMS_INVALID),
        ("quantity 1.5", r#"{"amount":10,"items":[{"name":"Çay","unitPrice":10,"quantity":1.5}]}"#.into(), 400, keys::ITEMS_INVALID),
        ("other business's variant", r#"{"amount":1450,"items":[{"productVariantId":"var_ipek_sal"}]}"#.into(), 400, "items.variant.not.found"),
        ("unknown variant", r#"{"amount":10,"items":[{"productVariantId":"var_yok"}]}"#.into(), 400, "items.variant.not.found"),
        ("EUR variant in a TRY link", r#"{"amount":"24.90","items":[{"productVariantId":"var_hediye_kutusu_eur"}]}"#.into(), 400, "items.currency.mismatch"),
        ("EUR variant in an EUR link", r#"{"amount":"24.90","currency":"EUR","items":[{"productVariantId":"var_hediye_kutusu_eur"}]}"#.into(), 200, ""),
        ("amount missing", r#"{"description":"x"}"#.into(), 400, "amount.invalid"),
        ("amount 0", r#"{"amount":0}"#.into(), 400, "amount.invalid"),
        ("amount negative", r#"{"amount":-5}"#.into(), 400, "amount.invalid"),
        ("three decimals", r#"{"amount":"10.001"}"#.into(), 400, "amount.invalid"),
        ("JPY decimals", r#"{"amount":"100.5","currency":"JPY"}"#.into(), 400, "amount.invalid"),
        ("amount text", r#"{"amount":"on"}"#.into(), 400, "amount.invalid"),
        ("currency unknown", r#"{"amount":10,"currency":"XYZ"}"#.into(), 400, "currency.invalid"),
        ("bad counts", r#"{"amount":10,"availableInstallments":"1;3"}"#.into(), 400, "availableInstallments.invalid"),
        ("flag as text", r#"{"amount":10,"allowPartialPayment":"yes"}"#.into(), 400, "allowPartialPayment.invalid"),
        ("not an object", "[1]".into(), 400, "body.invalid"),
    ];
    let mut created = 0;
    for (n, (name, body, status, key)) in table.iter().enumerate() {
        let a = c.post(CREATE, body, Some(&format!("rule-{n}"))).await;
        assert_eq!(
            a.status_key(),
            (*status, (*key).to_owned()),
            "{name}: {}",
            a.text
        );
        if *status == 200 {
            created += 1;
        }
    }
    assert_eq!(sb.admin().links(None).len(), created);
}

#[tokio::test]
async fn item_total_mismatch_names_the_expected_amount_and_catalog_prices_win() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    // 2 × 85.00 (catalog, the sent price is ignored) + 1 × 25.00 + 2 × 12.50 = 220.00
    let items = r#"[{"productVariantId":"var_turk_kahvesi","quantity":2,"unitPrice":1},
        {"productVariantId":"var_simit"},{"name":"Poğaça","unitPrice":"12.5","quantity":2}]"#;
    let wrong = c
        .post(
            CREATE,
            &format!(r#"{{"amount":230,"items":{items}}}"#),
            Some("m-1"),
        )
        .await;
    assert_eq!(
        wrong.status_key(),
        (406, keys::ITEMS_TOTAL_MISMATCH.to_owned())
    );
    let message = wrong.json["message"].as_str().unwrap();
    assert!(message.contains("expected 220.00"), "{message}");
    assert!(message.contains("230.00"), "{message}");
    let right = c
        .post(
            CREATE,
            &format!(r#"{{"amount":"220.00","items":{items}}}"#),
            Some("m-1"),
        )
        .await;
    assert_eq!(right.status, 200, "{}", right.text);
    let state = sb.admin().state();
    let stored = &state["links"][0]["items"];
    assert_eq!(num(&stored[0]["unitPrice"]), "85.00");
    assert_eq!(stored[0]["name"], json!("Türk Kahvesi"));
    assert_eq!(stored[2]["quantity"], json!(2));
}

#[tokio::test]
async fn detail_and_cancel_see_only_the_callers_business() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let butik = Client::new(
        &sb,
        clock.clone(),
        "pk_test_butik_demo",
        "sk_test_butik_demo_secret",
    );
    let created = c.post(CREATE, r#"{"amount":99}"#, Some("d-1")).await;
    let id = created.content()["id"].as_str().unwrap().to_owned();
    let body = json!({"id": id}).to_string();

    let detail = c.post(LINK_DETAIL.path, &body, None).await;
    assert_eq!(detail.status, 200);
    assert_eq!(detail.content(), created.content());
    for path in [LINK_DETAIL.path, LINK_CANCEL.path] {
        let other = butik.post(path, &body, None).await;
        assert_eq!(
            other.status_key(),
            (404, "link.not.found".to_owned()),
            "{path}"
        );
    }
    let missing = c.post(LINK_DETAIL.path, r#"{"id":""}"#, None).await;
    assert_eq!(missing.status_key(), (400, "id.required".to_owned()));

    let cancelled = c.post(LINK_CANCEL.path, &body, None).await;
    assert_eq!(cancelled.status, 200);
    assert_eq!(cancelled.content()["status"], json!("EXPIRED"));
    assert_eq!(
        c.post(LINK_DETAIL.path, &body, None).await.content()["status"],
        json!("EXPIRED")
    );
    // Cancelling twice is harmless; a paid link cannot be cancelled.
    assert_eq!(c.post(LINK_CANCEL.path, &body, None).await.status, 200);
    let paid = c.post(CREATE, r#"{"amount":5}"#, Some("d-2")).await;
    let paid_id = paid.content()["id"].as_str().unwrap();
    sb.admin().pay(paid_id, None).unwrap();
    let refused = c
        .post(LINK_CANCEL.path, &json!({"id": paid_id}).to_string(), None)
        .await;
    assert_eq!(
        refused.status_key(),
        (406, "link.not.cancellable".to_owned())
    );
}

const PAN: &str = "5549607812345675";

fn card_body(extra: &str) -> String {
    format!(
        r#"{{"cardNumber":"{PAN}","expiryMonth":"07","expiryYear":"2029","cvv":"739","cardHolderName":"AYŞE YILMAZ"{extra}}}"#
    )
}

#[tokio::test]
async fn card_save_checks_fields_masks_and_reads_the_bin_table() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let table = [
        (
            r#"{"cardNumber":"","expiryMonth":"07","expiryYear":"2029"}"#,
            400,
            keys::CARD_NUMBER_EMPTY,
        ),
        (
            r#"{"expiryMonth":"07","expiryYear":"2029"}"#,
            400,
            keys::CARD_NUMBER_EMPTY,
        ),
        (
            r#"{"cardNumber":"5549607812345675","expiryMonth":" ","expiryYear":"2029"}"#,
            400,
            keys::EXPIRY_MONTH_EMPTY,
        ),
        (
            r#"{"cardNumber":"5549607812345675","expiryMonth":"07","expiryYear":""}"#,
            400,
            keys::EXPIRY_YEAR_EMPTY,
        ),
        (
            r#"{"cardNumber":"5549607812345676","expiryMonth":"07","expiryYear":"2029"}"#,
            400,
            "cardNumber.invalid",
        ),
        (
            r#"{"cardNumber":"5549607812345675","expiryMonth":"13","expiryYear":"2029"}"#,
            400,
            "expiryMonth.invalid",
        ),
        (
            r#"{"cardNumber":"5549607812345675","expiryMonth":"07","expiryYear":"29"}"#,
            400,
            "expiryYear.invalid",
        ),
        (
            r#"{"cardNumber":"5549607812345675","expiryMonth":"10","expiryYear":"2026"}"#,
            400,
            "card.expired",
        ),
        (
            r#"{"cardNumber":"5549607812345675","expiryMonth":"07","expiryYear":"2029","cvv":"12"}"#,
            400,
            "cvv.invalid",
        ),
        (
            r#"{"cardNumber":"5549607812345675","expiryMonth":"07","expiryYear":"2029","usage":"CASH"}"#,
            400,
            "usage.invalid",
        ),
    ];
    for (body, status, key) in table {
        let a = c.post(CARD_SAVE.path, body, None).await;
        assert_eq!(
            a.status_key(),
            (status, key.to_owned()),
            "{body}: {}",
            a.text
        );
    }
    assert!(sb.admin().state()["cards"].as_array().unwrap().is_empty());

    let a = c
        .post(
            CARD_SAVE.path,
            &card_body(r#","alias":"İş kartı","usage":""}"#.trim_end_matches('}')),
            None,
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    let card = a.content();
    assert!(card["id"].as_str().unwrap().starts_with("card_"));
    assert_eq!(card["maskedPan"], json!("554960******5675"));
    assert_eq!(card["brand"], json!("MASTERCARD"));
    assert_eq!(card["bankName"], json!("Garanti BBVA"));
    assert_eq!(card["cardType"], json!("CREDIT"));
    assert_eq!(card["status"], json!("ACTIVE"));
    assert_eq!(card["usage"], json!("POS_PAYMENT"));
    assert_eq!(card["isDefault"], json!(false));
    assert_eq!(card["expiryMonth"], json!("07"));
    assert_eq!(card["expiryYear"], json!("2029"));
    assert_eq!(card["alias"], json!("İş kartı"));
    assert_eq!(card["cardHolderName"], json!("AYŞE YILMAZ"));
    assert_eq!(card["customerId"], Value::Null);
    assert!(!a.text.contains(PAN));
    assert!(!a.text.contains("739"));
}

#[tokio::test]
async fn setting_a_default_clears_the_previous_default_of_that_usage_and_owner() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let first = c
        .post(CARD_SAVE.path, &card_body(r#","setAsDefault":true"#), None)
        .await;
    let wallet = c
        .post(
            CARD_SAVE.path,
            &card_body(r#","setAsDefault":true,"usage":"WALLET_TOPUP""#),
            None,
        )
        .await;
    let customer = c
        .post(
            CARD_SAVE.path,
            &card_body(r#","setAsDefault":true,"customerId":"cust_42""#),
            None,
        )
        .await;
    let second = c
        .post(CARD_SAVE.path, &card_body(r#","setAsDefault":true"#), None)
        .await;
    for a in [&first, &wallet, &customer, &second] {
        assert_eq!(a.content()["isDefault"], json!(true), "{}", a.text);
    }
    let state = sb.admin().state();
    let defaults: Vec<(String, bool)> = state["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_owned(),
                c["isDefault"].as_bool().unwrap(),
            )
        })
        .collect();
    let id = |a: &crate::support::sandbox::Answer| a.content()["id"].as_str().unwrap().to_owned();
    assert_eq!(
        defaults,
        vec![
            (id(&first), false),
            (id(&wallet), true),
            (id(&customer), true),
            (id(&second), true)
        ]
    );
}

#[tokio::test]
async fn the_server_chooses_the_provider_and_ignores_the_body() {
    let clock = manual_clock();
    // Shipped fixture: an active routing rule to Yapı Kredi.
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let body = card_body(r#","provider":"pos_garanti_sanal","posProviderId":"pos_akbank_fiziki""#);
    assert_eq!(c.post(CARD_SAVE.path, &body, None).await.status, 200);
    let state = sb.admin().state();
    assert_eq!(
        state["cards"][0]["providerId"],
        json!("pos_yapikredi_sanal")
    );
    assert!(
        state["cards"][0]["providerToken"]
            .as_str()
            .unwrap()
            .starts_with("tok_")
    );

    // Without a routing rule: the oldest active provider that stores cards (older ones are
    // inactive or cannot store cards).
    let mut fixture = Fixture::shipped();
    fixture.routing_rules.clear();
    let mut cfg = config(clock.clone());
    cfg.fixture = fixture;
    let sb2 = Sandbox::start_with(cfg).await.unwrap();
    let c2 = Client::demo(&sb2, clock.clone());
    let body = card_body(r#","posProviderId":"pos_yapikredi_sanal""#);
    assert_eq!(c2.post(CARD_SAVE.path, &body, None).await.status, 200);
    assert_eq!(
        sb2.admin().state()["cards"][0]["providerId"],
        json!("pos_garanti_sanal")
    );

    // A business with no card-storage provider.
    let butik = Client::new(
        &sb,
        clock.clone(),
        "pk_test_butik_demo",
        "sk_test_butik_demo_secret",
    );
    let a = butik.post(CARD_SAVE.path, &card_body(""), None).await;
    assert_eq!(
        a.status_key(),
        (404, keys::POS_PROVIDER_NOT_FOUND.to_owned())
    );
}

fn counts(a: &crate::support::sandbox::Answer) -> Vec<(u64, String)> {
    a.content()["installments"]
        .as_array()
        .expect("installments is an array")
        .iter()
        .map(|o| {
            (
                o["installmentCount"].as_u64().expect("a count"),
                o["posType"].as_str().expect("a POS type").to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn installments_follow_the_bin_family_filters_and_amount_maths() {
    let clock = manual_clock();
    let sb = start(clock.clone()).await;
    let c = Client::demo(&sb, clock.clone());
    let path = INSTALLMENT_LIST.path;
    for body in ["{}", r#"{"binNumber":""}"#, r#"{"binNumber":"  "}"#] {
        let a = c.post(path, body, None).await;
        assert_eq!(
            a.status_key(),
            (400, keys::BIN_REQUIRED.to_owned()),
            "{body}"
        );
    }
    assert_eq!(
        c.post(path, r#"{"binNumber":"5549"}"#, None).await.key(),
        "binnumber.invalid"
    );
    assert_eq!(
        c.post(path, r#"{"binNumber":"554960","type":"CASH"}"#, None)
            .await
            .key(),
        "type.invalid"
    );

    let all = c
        .post(path, r#"{"binNumber":"554960","amount":"1000.00"}"#, None)
        .await;
    assert_eq!(all.status, 200, "{}", all.text);
    let l = all.content();
    assert_eq!(l["binNumber"], json!("554960"));
    assert_eq!(l["bankName"], json!("Garanti BBVA"));
    assert_eq!(l["cardBrand"], json!("MASTERCARD"));
    assert_eq!(l["cardType"], json!("CREDIT"));
    assert_eq!(l["cardFamily"], json!("Bonus"));
    // Garanti's Bonus table (12), and the catch-all single payment of the Akbank physical
    // POS, Yapı Kredi and the food wallet. The inactive Halkbank POS offers nothing.
    assert_eq!(counts(&all).len(), 15);
    let three = l["installments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["installmentCount"] == json!(3))
        .unwrap();
    assert_eq!(num(&three["commissionRate"]), "7.19");
    assert_eq!(num(&three["totalAmount"]), "1071.90");
    assert_eq!(num(&three["installmentAmount"]), "357.30");
    assert_eq!(three["posType"], json!("VIRTUAL"));
    assert_eq!(three["posSubType"], json!("DEFAULT"));
    let typed: paydesk::api::wire::InstallmentList = serde_json::from_value(l.clone()).unwrap();
    assert!(typed.extra.is_empty());

    let table: [(&str, Vec<(u64, &str)>); 3] = [
        (
            r#"{"binNumber":"5549607812","type":"PHYSICAL"}"#,
            vec![(1, "PHYSICAL")],
        ),
        (
            r#"{"binNumber":"554960","subType":"FOOD"}"#,
            vec![(1, "SOFTWALLET")],
        ),
        (
            r#"{"binNumber":"979200","type":"VIRTUAL"}"#,
            vec![
                (1, "VIRTUAL"),
                (1, "VIRTUAL"),
                (3, "VIRTUAL"),
                (6, "VIRTUAL"),
            ],
        ),
    ];
    for (body, expected) in table {
        let a = c.post(path, body, None).await;
        let expected: Vec<(u64, String)> = expected
            .into_iter()
            .map(|(n, t)| (n, t.to_owned()))
            .collect();
        assert_eq!(counts(&a), expected, "{body}");
        assert_eq!(a.content()["binNumber"].as_str().unwrap().len(), 6);
        // Without an amount there is nothing to compute.
        assert_eq!(a.content()["installments"][0]["totalAmount"], Value::Null);
    }
    let virtual_bonus = c
        .post(
            path,
            r#"{"binNumber":"554960","type":"VIRTUAL","subType":"DEFAULT"}"#,
            None,
        )
        .await;
    assert_eq!(counts(&virtual_bonus).len(), 13);

    let unknown = c
        .post(path, r#"{"binNumber":"123456","amount":100}"#, None)
        .await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.content()["bankName"], Value::Null);
    assert_eq!(unknown.content()["cardFamily"], Value::Null);
    assert!(counts(&unknown).iter().all(|(n, _)| *n == 1));
    assert_eq!(
        num(&unknown.content()["installments"][0]["totalAmount"]),
        "101.99"
    );
}
