//! Link history: the merge rule of `upsert_link`, the "order already has a link" look-up, and
//! search (filters, newest-first order, keyset paging) checked against an oracle computed from
//! the same synthetic links, on a history larger than the search's scan budget.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed unwrap is a failed test with its location"
)]

use crate::support::links::pending_link;
use crate::support::time::t_stored;
use std::sync::{Mutex, OnceLock};

use crate::support::store::{PROFILE, RARE_WORD, synthetic_link, synthetic_links};
use chrono::{DateTime, TimeDelta, Utc};
use paydesk::api::wire::PaymentLink;
use paydesk::domain::{Link, LinkStatus};
use paydesk::store::{DEFAULT_PAGE, LinkCursor, LinkQuery, MAX_PAGE, Store, StoredLink};
use rust_decimal::Decimal;

/// 30,000 links (ten days): an order prefix of the first day has 2,880 matches, all older than
/// the page, more than `links::CANDIDATE_LIMIT` (500), so the full-text source read newest
/// first is exercised as well as the ranked prefix indexes.
const N: u64 = 30_000;

fn history() -> &'static Mutex<Store> {
    static STORE: OnceLock<Mutex<Store>> = OnceLock::new();
    STORE.get_or_init(|| {
        let mut store = Store::open_in_memory().unwrap();
        assert_eq!(
            store
                .insert_links_bulk(PROFILE, synthetic_links(N))
                .unwrap(),
            30_000
        );
        // A few links of another profile that must never show up.
        store
            .insert_links_bulk("other", (0..50).map(synthetic_link))
            .unwrap();
        Mutex::new(store)
    })
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// The matching rule of the module docs, computed directly.
fn text_matches(link: &PaymentLink, text: &str) -> bool {
    let t = lower(text.trim());
    let prefix = |v: &Option<String>| v.as_deref().is_some_and(|v| lower(v).starts_with(&t));
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(lower)
        .collect();
    let desc: Vec<String> = link
        .description
        .as_deref()
        .unwrap_or("")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(lower)
        .collect();
    let desc_match =
        !words.is_empty() && words.iter().all(|w| desc.iter().any(|d| d.starts_with(w)));
    prefix(&link.order_number) || prefix(&link.reference_number) || desc_match
}

/// Every expected link id, newest first.
fn oracle(text: Option<&str>, status: Option<&LinkStatus>) -> Vec<String> {
    let mut hits: Vec<(DateTime<Utc>, String)> = synthetic_links(N)
        .filter(|(l, _)| text.is_none_or(|t| text_matches(l, t)))
        .filter(|(l, _)| status.is_none_or(|s| l.status.as_ref() == Some(s)))
        .map(|(l, at)| (at, l.id))
        .collect();
    hits.sort_by(|a, b| b.cmp(a));
    hits.into_iter().map(|(_, id)| id).collect()
}

/// Pages through a search; returns the ids of at most `max_pages` pages.
fn page_ids(q: &LinkQuery, max_pages: usize) -> (Vec<String>, usize) {
    let store = history().lock().unwrap();
    let mut ids = Vec::new();
    let mut q = q.clone();
    let mut pages = 0;
    loop {
        let page = store.history().search_links(PROFILE, &q).unwrap();
        pages += 1;
        assert!(page.links.len() <= q.limit.max(1), "page too long");
        for l in &page.links {
            assert_eq!(l.profile, PROFILE);
        }
        ids.extend(page.links.iter().map(|l| l.link.id.clone()));
        match page.next {
            Some(cursor) if pages < max_pages => q.before = Some(cursor),
            Some(_) => return (ids, pages),
            None => {
                return (ids, pages);
            }
        }
    }
}

#[test]
fn search_matches_the_oracle_for_every_filter_shape() {
    let order_prefix = {
        let (l, _) = synthetic_link(28_800);
        let o = l.order_number.unwrap();
        lower(&o[..o.len() - 1]) // ten links, typed in lower case
    };
    let cases: Vec<(&str, Option<&str>, Option<LinkStatus>, usize)> = vec![
        ("everything", None, None, 100),
        ("blank text is no filter", Some("   "), None, 100),
        ("by status", None, Some(LinkStatus::Pending), 100),
        ("rare status", None, Some(LinkStatus::UnderReview), 7),
        ("order prefix, few", Some(order_prefix.as_str()), None, 3),
        ("reference prefix, few", Some("R00000012"), None, 3),
        (
            "order prefix, many and all old",
            Some("PD-20260101"),
            None,
            100,
        ),
        (
            "order prefix, many and recent",
            Some("PD-2026011"),
            None,
            100,
        ),
        ("description word, many", Some("kazak"), None, 100),
        ("description word prefix", Some("kaz"), None, 100),
        ("description word, rare", Some(RARE_WORD), None, 2),
        ("two words, both needed", Some("kazak mont"), None, 25),
        (
            "text and status",
            Some("kazak"),
            Some(LinkStatus::Rejected),
            30,
        ),
        ("nothing matches", Some("no-such-order"), None, 10),
        ("punctuation only", Some("-- ,"), None, 10),
    ];
    for (name, text, status, limit) in cases {
        let want = oracle(text, status.as_ref());
        let q = LinkQuery {
            text: text.map(String::from),
            status: status.clone(),
            limit,
            before: None,
            staff: None,
        };
        // Follow every page of small results, the first three of large ones.
        let (got, pages) = page_ids(&q, if want.len() <= 300 { usize::MAX } else { 3 });
        let expected: Vec<String> = want.iter().take(got.len().max(1)).cloned().collect();
        assert_eq!(got.len(), want.len().min(pages * limit), "{name}: count");
        assert_eq!(got, expected[..got.len()], "{name}: order");
        if want.len() <= 300 {
            assert_eq!(got, want, "{name}: all pages");
        }
        assert!(
            !want.is_empty() || name.starts_with("nothing") || name.starts_with("punct"),
            "{name}: the oracle should find something"
        );
    }
}

#[test]
fn page_size_defaults_and_caps() {
    let store = history().lock().unwrap();
    let default = store
        .history()
        .search_links(PROFILE, &LinkQuery::default())
        .unwrap();
    assert_eq!(default.links.len(), DEFAULT_PAGE);
    let newest = synthetic_link(N - 1).0.id;
    assert_eq!(default.links[0].link.id, newest);
    let big = LinkQuery {
        limit: 100_000,
        ..LinkQuery::default()
    };
    assert_eq!(
        store
            .history()
            .search_links(PROFILE, &big)
            .unwrap()
            .links
            .len(),
        MAX_PAGE
    );
}

#[test]
fn the_last_page_has_no_next_cursor() {
    let store = history().lock().unwrap();
    let oldest = synthetic_link(2);
    let q = LinkQuery {
        limit: 2,
        before: Some(LinkCursor {
            created_at: oldest.1,
            id: oldest.0.id,
        }),
        ..LinkQuery::default()
    };
    let page = store.history().search_links(PROFILE, &q).unwrap();
    let ids: Vec<&str> = page.links.iter().map(|l| l.link.id.as_str()).collect();
    assert_eq!(ids, ["lnk_00000001", "lnk_00000000"]);
    assert_eq!(page.next, None);
    assert_eq!(store.history().count_links(PROFILE).unwrap(), 30_000);
    assert_eq!(store.history().count_links("other").unwrap(), 50);
    assert_eq!(store.history().count_links("nobody").unwrap(), 0);
}

#[test]
fn links_stored_in_one_millisecond_page_by_id() {
    let mut store = Store::open_in_memory().unwrap();
    let at = t_stored();
    let links = ["a", "c", "b", "e", "d"].map(|id| (pending_link(id, None), at));
    store.insert_links_bulk("p", links).unwrap();
    let mut q = LinkQuery {
        limit: 2,
        ..LinkQuery::default()
    };
    let mut seen = Vec::new();
    loop {
        let page = store.history().search_links("p", &q).unwrap();
        seen.extend(page.links.iter().map(|l| l.link.id.clone()));
        match page.next {
            Some(c) => q.before = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, ["e", "d", "c", "b", "a"]);
}

#[test]
fn every_response_field_round_trips_exactly() {
    let mut store = Store::open_in_memory().unwrap();
    let now = DateTime::from_timestamp(1_790_000_001, 0).unwrap();
    let mut l = pending_link("lnk_1", Some("PD-20260922-7KQ30001"));
    l.amount = Some("1234.50".parse().unwrap());
    l.status = Some(LinkStatus::Other("PARTIALLY_PAID".into()));
    store.upsert_link("shop", &l, now).unwrap();
    let got = store.links().get("shop", "lnk_1").unwrap().unwrap();
    // The row reads as the service reads the same answer, and gives every field back.
    assert_eq!(got.link, Link::from(l.clone()));
    assert_eq!(PaymentLink::from(&got.link), l);
    assert_eq!(got.link.amount.unwrap().to_string(), "1234.50");
    assert_eq!(got.created_at, now);
    assert_eq!(got.updated_at, now);
    assert_eq!(store.links().get("other", "lnk_1").unwrap(), None);
}

#[test]
fn a_refresh_updates_what_it_carries_and_keeps_the_rest() {
    let mut store = Store::open_in_memory().unwrap();
    let t0 = t_stored();
    let t1 = t0 + TimeDelta::minutes(3);
    store
        .upsert_link("shop", &pending_link("lnk_1", Some("PD-1")), t0)
        .unwrap();
    // A detail answer that only carries the paid state.
    let paid = PaymentLink {
        id: "lnk_1".into(),
        reference_number: None,
        order_number: None,
        payment_url: None,
        transaction_ref: Some("TX-9".into()),
        amount: None,
        paid_amount: Some(Decimal::new(123_450, 2)),
        remaining_amount: Some(Decimal::ZERO),
        currency: None,
        status: Some(LinkStatus::Completed),
        description: Some("Mavi ceket".into()),
        allow_partial_payment: None,
        enable_installment: None,
        available_installments: None,
        email: None,
        phone_country_code: None,
        phone_number: None,
        expiry_date: None,
        completed_date: DateTime::from_timestamp(1_790_000_170, 0),
        created_date: None,
    };
    store.upsert_link("shop", &paid, t1).unwrap();
    let got = store.links().get("shop", "lnk_1").unwrap().unwrap();
    assert_eq!(got.link.status, LinkStatus::Completed);
    assert_eq!(got.link.transaction_ref.as_deref(), Some("TX-9"));
    assert_eq!(got.link.remaining, Some(Decimal::ZERO));
    assert_eq!(got.link.completed, paid.completed_date);
    // Kept from the first answer.
    assert_eq!(got.link.email.as_deref(), Some("ayse@example.com"));
    assert_eq!(got.link.order_number.as_deref(), Some("PD-1"));
    assert_eq!(got.link.amount, Some(Decimal::new(123_450, 2)));
    assert_eq!(got.created_at, t0);
    assert_eq!(got.updated_at, t1);
    // The description index follows the new description.
    let search = |text: &str| {
        store
            .history()
            .search_links(
                "shop",
                &LinkQuery {
                    text: Some(text.into()),
                    ..LinkQuery::default()
                },
            )
            .unwrap()
            .links
            .len()
    };
    assert_eq!(search("ceket"), 1);
    assert_eq!(search("kazak"), 0);
}

#[test]
fn description_search_ignores_case_and_turkish_diacritics() {
    let mut store = Store::open_in_memory().unwrap();
    let t0 = t_stored();
    for (id, desc) in [
        ("a", "İade: ÇORAP ve şal"),
        ("b", "Yeşil gömlek"),
        ("c", "gomlek ütüsü"),
    ] {
        let mut l = pending_link(id, None);
        l.description = Some(desc.into());
        store.upsert_link("shop", &l, t0).unwrap();
    }
    let ids = |text: &str| -> Vec<String> {
        let mut v: Vec<String> = store
            .history()
            .search_links(
                "shop",
                &LinkQuery {
                    text: Some(text.into()),
                    ..LinkQuery::default()
                },
            )
            .unwrap()
            .links
            .into_iter()
            .map(|l: StoredLink| l.link.id)
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids("corap"), ["a"]);
    assert_eq!(ids("çorap"), ["a"]);
    assert_eq!(ids("sal"), ["a"]);
    assert_eq!(ids("gömlek"), ["b", "c"]);
    assert_eq!(ids("GOML"), ["b", "c"]);
    assert_eq!(ids("yesil gom"), ["b"]);
    assert_eq!(ids("yeşil-göm"), ["b"]);
    assert_eq!(ids("\"quoted"), Vec::<String>::new());
}

#[test]
fn an_order_has_a_recent_link_only_within_the_window() {
    let mut store = Store::open_in_memory().unwrap();
    let t0 = t_stored();
    store
        .upsert_link(
            "shop",
            &pending_link("lnk_1", Some("PD-20260922-7KQ30001")),
            t0,
        )
        .unwrap();
    let find = |order: &str, since: DateTime<Utc>, profile: &str| {
        store
            .links()
            .find_recent_by_order(profile, order, since)
            .unwrap()
            .map(|l| l.link.id)
    };
    let day = TimeDelta::hours(24);
    let cases = [
        (
            "PD-20260922-7KQ30001",
            t0 + TimeDelta::hours(1) - day,
            "shop",
            Some("lnk_1"),
        ),
        ("PD-20260922-7KQ30001", t0, "shop", Some("lnk_1")),
        ("pd-20260922-7kq30001", t0, "shop", Some("lnk_1")),
        (
            "PD-20260922-7KQ30001",
            t0 + TimeDelta::milliseconds(1),
            "shop",
            None,
        ),
        ("PD-20260922-7KQ3000", t0 - day, "shop", None),
        ("PD-20260922-7KQ30001", t0 - day, "other", None),
    ];
    for (order, since, profile, want) in cases {
        assert_eq!(
            find(order, since, profile).as_deref(),
            want,
            "{order} {since} {profile}"
        );
    }
}
