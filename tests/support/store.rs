//! Synthetic link histories, shared by the store tests and the history bench: deterministic,
//! so a test can compute the expected answer of a search from the same generator.

use chrono::{DateTime, TimeDelta, Utc};
use paydesk::api::wire::PaymentLink;
use paydesk::domain::{Currency, LinkStatus};
use paydesk::store::{LinkCursor, LinkQuery};
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

/// A history search the tests bound and the bench measures.
pub struct Shape {
    /// A stable name (the bench's function, the test's message).
    pub name: &'static str,
    /// How the README's table calls it; `None`: not in the table.
    pub label: Option<&'static str>,
    /// Its goal at 1,000,000 links, when the issue set one.
    pub goal: &'static str,
    /// The query (first page).
    pub query: LinkQuery,
}

fn text(t: &str) -> LinkQuery {
    LinkQuery {
        text: Some(t.to_owned()),
        ..LinkQuery::default()
    }
}

/// Every search shape over the synthetic history of `links` links: filters by status, order
/// and reference prefixes of every size, description words common and rare, and a page in the
/// middle of history.
pub fn search_shapes(links: u64) -> Vec<Shape> {
    let middle = synthetic_link(links / 2).0;
    let newest_day = synthetic_link(links - 1).0.order_number.expect("an order")[..11].to_owned();
    let all_but_last = |s: Option<String>| {
        let s = s.expect("a code");
        s[..s.len() - 1].to_owned() // ten links
    };
    let few_orders = all_but_last(middle.order_number.clone());
    let few_references = all_but_last(middle.reference_number.clone());
    let shape = |name, label, goal, query| Shape {
        name,
        label,
        goal,
        query,
    };
    let status = |s: LinkStatus| LinkQuery {
        status: Some(s),
        ..LinkQuery::default()
    };
    vec![
        shape(
            "no_filter",
            Some("first page, no filter"),
            "",
            LinkQuery::default(),
        ),
        shape(
            "no_filter_page_at_the_middle",
            None,
            "",
            LinkQuery {
                before: Some(LinkCursor {
                    created_at: synthetic_link(links / 2).1,
                    id: middle.id.clone(),
                }),
                ..LinkQuery::default()
            },
        ),
        shape(
            "status_pending_15pct",
            Some("first page, status PENDING (15 %)"),
            "",
            status(LinkStatus::Pending),
        ),
        shape(
            "status_under_review_0.1pct",
            None,
            "",
            status(LinkStatus::UnderReview),
        ),
        shape(
            "order_prefix_10_links",
            Some("first page, order prefix, 10 links"),
            "",
            text(&few_orders),
        ),
        shape(
            "order_prefix_newest_day",
            Some("first page, order prefix of the newest day (2,880 links)"),
            "",
            text(&newest_day),
        ),
        shape(
            "order_prefix_oldest_month_89k_links",
            Some("first page, order prefix matching 89,000 old links"),
            "≤ 5 ms",
            text("PD-202601"),
        ),
        shape("order_prefix_every_link", None, "", text("PD-2026")),
        shape("reference_prefix_10_links", None, "", text(&few_references)),
        shape("reference_prefix_every_link", None, "", text("R")),
        shape(
            "description_word_7pct",
            Some("first page, description word in 7 % of links"),
            "≤ 5 ms",
            text("kazak"),
        ),
        shape(
            "description_two_words",
            Some("first page, two description words"),
            "≤ 5 ms",
            text("kazak mont"),
        ),
        shape(
            "description_word_and_status",
            Some("first page, a description word and a status"),
            "≤ 5 ms",
            LinkQuery {
                status: Some(LinkStatus::Rejected),
                ..text("kazak")
            },
        ),
        shape(
            "description_rare_word_100_links",
            Some("first page, rare word (100 links)"),
            "",
            text(RARE_WORD),
        ),
        shape(
            "no_match",
            Some("first page, no match"),
            "",
            text("nothing-like-this"),
        ),
        shape(
            "first_letter_typed",
            Some("first letter typed (`k`)"),
            "≤ 1 ms",
            text("k"),
        ),
    ]
}
