//! Saved cards: response content only. The table has no column that could hold a card number
//! other than the masked one, and an unmasked number from a faulty server is masked before it
//! is written.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed unwrap is a failed test with its location"
)]

use chrono::{DateTime, TimeDelta};
use paydesk::api::wire::SavedCard;
use paydesk::domain::{CardStatus, CardUsage};
use paydesk::store::{DB_FILE, Store};

fn card(id: &str, masked: &str) -> SavedCard {
    serde_json::from_value(serde_json::json!({
        "id": id, "maskedPan": masked, "alias": "Şirket kartı", "cardHolderName": "AYSE YILMAZ",
        "brand": "VISA", "bankName": "Ziraat", "cardType": "CREDIT", "expiryMonth": "09",
        "expiryYear": "2029", "usage": "BOTH", "status": "ACTIVE", "isDefault": true,
        "customerId": "cust-7", "createdDate": "2026-11-22T10:00:00.250Z"
    }))
    .unwrap()
}

#[test]
fn cards_round_trip_newest_first_per_profile() {
    let mut store = Store::open_in_memory().unwrap();
    let t0 = DateTime::from_timestamp(1_790_000_000, 0).unwrap();
    let first = card("card_1", "411111******1111");
    let mut second = card("card_2", "540001******0004");
    second.status = Some(CardStatus::Other("LOCKED".into()));
    second.usage = Some(CardUsage::WalletTopup);
    store.insert_card("shop", &first, t0).unwrap();
    store
        .insert_card("shop", &second, t0 + TimeDelta::seconds(1))
        .unwrap();
    store.insert_card("other", &first, t0).unwrap();
    let list = store.cards().list("shop").unwrap();
    let cards: Vec<&SavedCard> = list.iter().map(|c| &c.card).collect();
    assert_eq!(cards, [&second, &first]);
    assert_eq!(list[1].stored_at, t0);
    assert_eq!(store.cards().list("other").unwrap().len(), 1);
    // Saving the same card again refreshes it rather than listing it twice.
    let mut renamed = first.clone();
    renamed.alias = Some("Kasa".into());
    store.insert_card("shop", &renamed, t0).unwrap();
    let list = store.cards().list("shop").unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1].card.alias.as_deref(), Some("Kasa"));
}

#[test]
fn the_cards_table_has_no_column_for_a_card_number() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info('saved_cards') ORDER BY cid")
        .unwrap();
    let columns: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        columns,
        [
            "profile",
            "id",
            "masked_pan",
            "alias",
            "card_holder_name",
            "brand",
            "bank_name",
            "card_type",
            "expiry_month",
            "expiry_year",
            "usage",
            "status",
            "is_default",
            "customer_id",
            "created_date",
            "stored_at",
        ]
    );
    for c in &columns {
        let c = c.to_ascii_lowercase();
        let card_number_like =
            c.contains("pan") || c.contains("number") || c.contains("cvv") || c.contains("cvc");
        assert!(!card_number_like || c == "masked_pan", "column {c}");
    }
}

#[test]
fn an_unmasked_number_from_the_server_is_masked_before_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let now = DateTime::from_timestamp(1_790_000_000, 0).unwrap();
    store
        .insert_card("shop", &card("card_1", "4111111111111111"), now)
        .unwrap();
    assert_eq!(
        store.cards().list("shop").unwrap()[0]
            .card
            .masked_pan
            .as_deref(),
        Some("411111******1111")
    );
    drop(store);
    // Nothing in the folder (database, WAL) holds the full number.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !bytes.windows(16).any(|w| w == b"4111111111111111"),
            "the PAN reached the disk"
        );
    }
}
