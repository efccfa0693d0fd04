//! Synthetic link histories, shared by the store tests and the history bench: deterministic,
//! so a test can compute the expected answer of a search from the same generator.

#![allow(dead_code)] // reason: each test crate uses a different part of this module

use chrono::{DateTime, TimeDelta, Utc};
use paydesk::api::wire::PaymentLink;
use paydesk::domain::{Currency, LinkStatus};
use rust_decimal::Decimal;

/// The profile synthetic links belong to.
pub const PROFILE: &str = "bench";

/// Description words; every description takes three of them.
pub const WORDS: [&str; 40] = [
    "kazak",
    "pantolon",
    "gomlek",
    "etek",
    "ceket",
    "mont",
    "corap",
    "ayakkabi",
    "bot",
    "terlik",
    "canta",
    "kemer",
    "sapka",
    "eldiven",
    "atki",
    "elbise",
    "tisort",
    "sort",
    "mayo",
    "pijama",
    "hirka",
    "yelek",
    "kaban",
    "yagmurluk",
    "bere",
    "toka",
    "saat",
    "kolye",
    "kupe",
    "yuzuk",
    "bileklik",
    "gozluk",
    "cuzdan",
    "parfum",
    "krem",
    "sampuan",
    "havlu",
    "nevresim",
    "yastik",
    "battaniye",
];

/// A word only every 10,000th link has.
pub const RARE_WORD: &str = "zumrut";

/// The first link's local creation time.
pub fn base_time() -> DateTime<Utc> {
    DateTime::from_timestamp(1_767_225_600, 0).expect("2026-01-01T00:00:00Z")
}

/// Seconds between two synthetic links (2,880 a day).
pub const SPACING_SECS: i64 = 30;

fn mix(i: u64) -> u64 {
    // splitmix64: a fixed, well-spread hash of the index.
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The status of link `i`: 70 % completed, 15 % pending, 10 % expired, 5 % rejected, and
/// every 1,000th under review.
pub fn status_of(i: u64) -> LinkStatus {
    if i % 1000 == 7 {
        return LinkStatus::UnderReview;
    }
    match mix(i) % 20 {
        0..=13 => LinkStatus::Completed,
        14..=16 => LinkStatus::Pending,
        17 | 18 => LinkStatus::Expired,
        _ => LinkStatus::Rejected,
    }
}

/// The `i`-th synthetic link and its local creation time.
pub fn synthetic_link(i: u64) -> (PaymentLink, DateTime<Utc>) {
    let secs = i64::try_from(i).expect("small index") * SPACING_SECS;
    let created = base_time() + TimeDelta::seconds(secs);
    let h = mix(i);
    let word = |k: u32| WORDS[usize::try_from((h >> (k * 8)) % 40).expect("small")];
    let mut description = format!("{} {} {}", word(0), word(1), word(2));
    if i % 10_000 == 1234 {
        description.push(' ');
        description.push_str(RARE_WORD);
    }
    let amount = Decimal::new(i64::try_from(h % 100_000).expect("small") + 100, 2);
    let status = status_of(i);
    let link = PaymentLink {
        id: format!("lnk_{i:08}"),
        reference_number: Some(format!("R{i:09}")),
        order_number: Some(format!("PD-{}-T{i:07}", created.format("%Y%m%d"))),
        payment_url: Some(format!("https://pay.example/l/lnk_{i:08}")),
        transaction_ref: (status == LinkStatus::Completed).then(|| format!("TX{i:010}")),
        amount: Some(amount),
        paid_amount: Some(if status == LinkStatus::Completed {
            amount
        } else {
            Decimal::ZERO
        }),
        remaining_amount: Some(if status == LinkStatus::Completed {
            Decimal::ZERO
        } else {
            amount
        }),
        currency: Some(Currency::Try),
        status: Some(status),
        description: Some(description),
        allow_partial_payment: Some(false),
        enable_installment: Some(true),
        available_installments: Some("1,3,6".into()),
        email: None,
        phone_country_code: None,
        phone_number: None,
        expiry_date: Some(created + TimeDelta::days(1)),
        completed_date: None,
        created_date: Some(created),
    };
    (link, created)
}

/// Links `0..n`.
pub fn synthetic_links(n: u64) -> impl Iterator<Item = (PaymentLink, DateTime<Utc>)> {
    (0..n).map(synthetic_link)
}
