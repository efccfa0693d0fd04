//! One automatic receipt per link across the shop (issue 30, docs/design.md §"The mail
//! queue"): two desks on their own data folders, one sandbox, the private PostgreSQL cluster
//! of `tests/support/pg.rs` and a real SMTP server (aiosmtpd, `tests/support/smtp.rs`). A link
//! with a payer e-mail is paid in the sandbox and both desks hear it paid from their own calls
//! to the payment API: the desk that took over its polling claims the receipt in the shop and
//! sends it, with the items the shop holds; the maker's claim comes second and it sends none.
//! A joined maker whose shop does not answer sends it itself; another desk without the shop
//! sends nothing.

use std::time::Duration;

use crate::lease::{ShopDesk, new_shop};
use crate::support::pg;
use crate::support::smtp::{Received, SinkMode, SmtpSink, python_with_aiosmtpd};
use paydesk::domain::link::{KeyLimits, LinkContext, LinkDraft};
use paydesk::domain::{Actor, CatalogVariant, EmailAddress, ItemDraft, ItemKind, Link, LinkStatus};
use paydesk::mail::{Security, SmtpSettings};
use paydesk::service::poll::{self, BUDGET_PATIENCE, Polled};
use paydesk::service::shared::{LeaseAnswer, Reads};
use paydesk::shop::lease::LinkKey;

const PAYER: &str = "ayse.yilmaz@example.com";

/// Sets the shop's e-mail account on desk `d`: the sink's plain port on this computer.
fn mail_to(d: &ShopDesk, port: u16) {
    let from = EmailAddress::parse("kasa@kuzey.example").expect("an address");
    let mut settings = SmtpSettings::new("127.0.0.1", Security::None, from, "Kuzey Giyim");
    settings.port = port;
    d.services
        .set_mail_account(&Actor::default(), &settings, None)
        .expect("the account is kept");
}

/// One sending pass of desk `d`'s queue.
async fn send_pass(d: &ShopDesk) {
    let (settings, password) = d.services.mail_settings(None).expect("e-mail is set up");
    d.services
        .send_mail_now(&settings, password.as_ref())
        .await
        .expect("a sending pass");
}

/// A link of 250 TRY made on desk `d` with two item lines and the payer's e-mail, pushed.
async fn a_link_with_items(d: &ShopDesk, order: &str) -> (LinkKey, Link) {
    let desk = d.desk("test");
    let free = |name: &str, price: &str, quantity: &str| ItemDraft {
        kind: ItemKind::Free {
            name: name.to_owned(),
            unit_price: price.to_owned(),
            note: String::new(),
        },
        quantity: quantity.to_owned(),
    };
    let draft = LinkDraft {
        amount: "250".to_owned(),
        order_number: order.to_owned(),
        email: PAYER.to_owned(),
        items: vec![
            free("Filtre kahve", "75", "2"),
            free("Kurabiye", "100", "1"),
        ],
        ..LinkDraft::default()
    };
    let catalog: Vec<CatalogVariant> = Vec::new();
    let ctx = LinkContext {
        now: chrono::Utc::now(),
        catalog: &catalog,
        limits: KeyLimits::default(),
    };
    let request = draft.validate(&ctx).expect("a valid link draft");
    let link = desk
        .create_link(&request)
        .await
        .expect("the link is created");
    d.push().await;
    (desk.shop_key(&link.id).expect("its key"), link)
}

fn receipts(sink: &SmtpSink) -> Vec<Received> {
    sink.received()
        .into_iter()
        .filter(|m| m.parts.iter().any(|p| p.content_type == "application/pdf"))
        .collect()
}

/// The receipts queued on desk `d` (the receipts' language is Turkish until set).
fn queued_receipts(d: &ShopDesk) -> usize {
    d.services
        .mail_status()
        .expect("the queue reads")
        .iter()
        .filter(|m| m.subject.contains("makbuzu"))
        .count()
}

/// Two desks of one shop with e-mail set up to `sink`, on `sandbox`.
async fn two_desks(
    pg: &pg::Pg,
    sandbox: &paydesk::sandbox::SandboxHandle,
    sink: &SmtpSink,
) -> (ShopDesk, ShopDesk) {
    let url = new_shop(pg).await;
    let a = ShopDesk::join(&url, "Counter 1", &sandbox.base_url()).await;
    let b = ShopDesk::join(&url, "Counter 2", &sandbox.base_url()).await;
    mail_to(&a, sink.port);
    mail_to(&b, sink.port);
    (a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_desks_that_hear_a_link_paid_send_one_receipt_between_them() {
    let Some(pg) = pg::cluster() else { return };
    if python_with_aiosmtpd().is_none() {
        eprintln!("skipped: python3-aiosmtpd is not installed");
        return;
    }
    let sink = SmtpSink::start(SinkMode::Accept);
    let sandbox = crate::support::cli::sandbox();
    let (a, b) = two_desks(&pg, &sandbox, &sink).await;
    let (key, link) = a_link_with_items(&a, "PKT-31").await;
    sandbox.admin().pay(&link.id, None).expect("paid");
    // Counter 1 is quiet: Counter 2 takes the link's lease and hears it paid from its own call.
    let through = b.desk("test");
    let polled = poll::poll_in_shop(&b.reader, &through, &key, Duration::ZERO, BUDGET_PATIENCE)
        .await
        .expect("polled");
    assert!(
        matches!(&polled, Polled::Asked { link } if link.status == LinkStatus::Completed),
        "{polled:?}"
    );
    assert_eq!(queued_receipts(&b), 1, "the desk that polled claimed it");
    b.push().await;
    // The maker hears it paid from its own call too (confirming Counter 2's claim): the shop
    // says the receipt is Counter 2's, so it queues none; asking again changes nothing.
    let own = a.desk("test");
    let polled = poll::poll_in_shop(&a.reader, &own, &key, Duration::ZERO, BUDGET_PATIENCE)
        .await
        .expect("polled");
    assert!(polled.asked(), "the maker asks the API itself: {polled:?}");
    assert_eq!(
        a.local("test", &link.id).expect("its link").link.status,
        LinkStatus::Completed
    );
    let refreshed = Reads::new(a.desk("test"), Some((a.reader.clone(), a.id.clone())))
        .link_detail(&link.id)
        .await
        .expect("refreshed");
    assert_eq!(refreshed.status, LinkStatus::Completed);
    assert_eq!(queued_receipts(&a), 0, "the maker's claim came second");
    send_pass(&a).await;
    send_pass(&b).await;
    let got = receipts(&sink);
    assert_eq!(got.len(), 1, "{got:?}\n{}", sink.log());
    assert_eq!(got[0].rcpt, [PAYER]);
    // Sent for the maker's link with the items the shop holds of it.
    let text = &got[0].parts[0].content;
    for want in [
        "- 2 × Filtre kahve: 150,00 ₺",
        "- 1 × Kurabiye: 100,00 ₺",
        "Sipariş numarası: PKT-31",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    let claims = a
        .conn()
        .await
        .client()
        .query("SELECT desk_id, kind FROM mail_claims", &[])
        .await
        .expect("the claims read");
    let claims: Vec<(String, String)> = claims.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(claims, [(b.id.clone(), "receipt".to_owned())]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_shop_only_the_desk_that_made_the_link_sends_its_receipt() {
    let Some(pg) = pg::cluster() else { return };
    if python_with_aiosmtpd().is_none() {
        eprintln!("skipped: python3-aiosmtpd is not installed");
        return;
    }
    let sink = SmtpSink::start(SinkMode::Accept);
    let sandbox = crate::support::cli::sandbox();
    let (a, b) = two_desks(&pg, &sandbox, &sink).await;
    let (_, link) = a_link_with_items(&a, "PKT-32").await;
    sandbox.admin().pay(&link.id, None).expect("paid");
    // Counter 2, joined but without an answer from its shop, asks about another desk's link:
    // it cannot know whether another desk sends the receipt, so it sends none.
    let heard = Reads::new(b.desk("test"), None)
        .link_detail(&link.id)
        .await
        .expect("asked");
    assert_eq!(heard.status, LinkStatus::Completed);
    assert_eq!(queued_receipts(&b), 0);
    // The maker without its shop hears it paid: the receipt goes from the desk that made it.
    let answer = Reads::new(a.desk("test"), None)
        .poll(&link.id, Duration::ZERO)
        .await;
    assert!(
        matches!(&answer, LeaseAnswer::Asked(Ok(l)) if l.status == LinkStatus::Completed),
        "{answer:?}"
    );
    assert_eq!(queued_receipts(&a), 1);
    send_pass(&a).await;
    send_pass(&b).await;
    let got = receipts(&sink);
    assert_eq!(got.len(), 1, "{got:?}\n{}", sink.log());
    assert_eq!(got[0].rcpt, [PAYER]);
}
