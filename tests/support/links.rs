//! Links and link requests as the suites need them.

use chrono::{DateTime, Utc};
use paydesk::api::wire::PaymentLink;
use paydesk::domain::link::{KeyLimits, LinkContext, LinkDraft, LinkRequest};
use paydesk::domain::{CatalogVariant, Currency, LinkStatus};
use rust_decimal::Decimal;

/// A validated link request for `order` of `amount` TRY (no items).
pub fn link_request(order: &str, amount: &str) -> LinkRequest {
    let draft = LinkDraft {
        amount: amount.to_owned(),
        order_number: order.to_owned(),
        ..LinkDraft::default()
    };
    let catalog: Vec<CatalogVariant> = Vec::new();
    let ctx = LinkContext {
        now: Utc::now(),
        catalog: &catalog,
        limits: KeyLimits::default(),
    };
    draft.validate(&ctx).expect("a valid link draft")
}

/// A pending link `id` of ₺1,234.50 for `order`, with every field the server fills in
/// (reference `REF-{id}`, description "Kırmızı kazak", a payer's e-mail and phone), created at
/// [`super::time::t_stored`] and expiring a day and a bit later.
pub fn pending_link(id: &str, order: Option<&str>) -> PaymentLink {
    PaymentLink {
        id: id.into(),
        reference_number: Some(format!("REF-{id}")),
        order_number: order.map(String::from),
        payment_url: Some(format!("https://pay.example/{id}")),
        transaction_ref: None,
        amount: Some(Decimal::new(123_450, 2)),
        paid_amount: Some(Decimal::ZERO),
        remaining_amount: Some(Decimal::new(123_450, 2)),
        currency: Some(Currency::Try),
        status: Some(LinkStatus::Pending),
        description: Some("Kırmızı kazak".into()),
        allow_partial_payment: Some(false),
        enable_installment: Some(true),
        available_installments: Some("1,3,6".into()),
        email: Some("ayse@example.com".into()),
        phone_country_code: Some("90".into()),
        phone_number: Some("5551234567".into()),
        expiry_date: DateTime::from_timestamp_millis(1_790_086_400_123),
        completed_date: None,
        created_date: Some(super::time::t_stored()),
    }
}

/// A link create of `body` to `url` (the server's create route), signed now with the demo key
/// and secret, under the idempotency key `key`: what the benches send with reqwest alone.
pub fn signed_create(
    http: &reqwest::Client,
    url: &str,
    body: String,
    key: String,
) -> reqwest::RequestBuilder {
    use paydesk::api::endpoints::LINK_CREATE;
    use paydesk::api::signer::{
        HEADER_API_KEY, HEADER_IDEMPOTENCY_KEY, HEADER_SIGNATURE, HEADER_TIMESTAMP, sign,
    };
    use paydesk::clock::{Clock as _, SystemClock};
    use paydesk::sandbox::{DEMO_API_KEY, DEMO_API_SECRET};
    let h = sign(
        DEMO_API_KEY,
        DEMO_API_SECRET,
        SystemClock.now_millis(),
        "POST",
        LINK_CREATE.path,
        body.as_bytes(),
    );
    http.post(url)
        .header("Content-Type", "application/json")
        .header(HEADER_API_KEY, h.api_key)
        .header(HEADER_TIMESTAMP, h.timestamp)
        .header(HEADER_SIGNATURE, h.signature)
        .header(HEADER_IDEMPOTENCY_KEY, key)
        .body(body)
}
