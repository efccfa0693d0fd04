//! The day report, history totals and the CSV export, over a seeded history: links created
//! through the journal (so their items are kept) over three days around the reported one, in
//! three currencies, paid, partly paid, cancelled, expired, pending past their expiry, of
//! another profile. Every expected figure is computed here from the seed list itself, with the
//! rules written out plainly, and compared with what the store answers.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a failed unwrap is a failed test with its location"
)]

use std::collections::HashMap;
use std::str::FromStr;

use crate::support::money::dec;
use crate::support::time::at;
use chrono::{DateTime, NaiveDate, SecondsFormat, TimeDelta, Timelike, Utc};
use paydesk::api::wire::PaymentLink;
use paydesk::clock::Zone;
use paydesk::domain::{Currency, LinkStatus};
use paydesk::store::{
    DayReport, ItemSales, JournalBegin, JournalKey, LINK_CSV_HEADER, LinkQuery, NewJournalRow,
    Store, TOP_ITEMS, TimeRange,
};
use rust_decimal::Decimal;

const SHOP: &str = "shop";
const OTHER: &str = "other-shop";

/// A sum that must be in range.
fn exact(t: paydesk::store::Total) -> Decimal {
    t.exact().expect("a sum in range")
}

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

/// Istanbul: 21 November 2026 runs from 2026-11-20T21:00Z to 2026-11-21T21:00Z.
fn zone() -> Zone {
    Zone::hours(3)
}

/// The moment the report is asked for.
fn now() -> DateTime<Utc> {
    at("2026-11-23T09:00:00Z")
}

/// One item as sent in the request body.
#[derive(Debug, Clone)]
enum Item {
    Free(&'static str, &'static str, u32),
    Catalog(&'static str, u32),
}

/// One seeded link and everything the store is told about it.
#[derive(Debug, Clone)]
struct Seed {
    profile: &'static str,
    id: String,
    created: DateTime<Utc>,
    currency: Currency,
    amount: Decimal,
    paid: Decimal,
    status: LinkStatus,
    expiry: Option<DateTime<Utc>>,
    completed: Option<DateTime<Utc>>,
    /// Cancelled through paydesk at this moment.
    cancelled: Option<DateTime<Utc>>,
    description: String,
    items: Vec<Item>,
}

impl Seed {
    fn link(&self) -> PaymentLink {
        PaymentLink {
            id: self.id.clone(),
            reference_number: Some(format!("R-{}", self.id)),
            order_number: Some(format!("PD-{}", self.id)),
            payment_url: Some(format!("https://pay.example/{}", self.id)),
            transaction_ref: (self.paid > Decimal::ZERO).then(|| format!("txn_{}", self.id)),
            amount: Some(self.amount),
            paid_amount: Some(self.paid),
            remaining_amount: Some(self.amount - self.paid),
            currency: Some(self.currency),
            status: Some(self.status.clone()),
            description: Some(self.description.clone()),
            allow_partial_payment: Some(true),
            enable_installment: Some(false),
            available_installments: None,
            email: Some("ayse@example.com".into()),
            phone_country_code: Some("90".into()),
            phone_number: Some("5321234567".into()),
            expiry_date: self.expiry,
            completed_date: self.completed,
            created_date: Some(self.created),
        }
    }

    /// When history last heard of it: the cancel, else the creation.
    fn last_update(&self) -> DateTime<Utc> {
        self.cancelled.unwrap_or(self.created)
    }

    fn body(&self) -> Vec<u8> {
        let items: Vec<serde_json::Value> = self
            .items
            .iter()
            .map(|i| match i {
                Item::Free(name, price, q) => serde_json::json!({
                    "name": name,
                    "unitPrice": serde_json::Number::from_str(price).unwrap(),
                    "quantity": q,
                }),
                Item::Catalog(id, q) => serde_json::json!({"productVariantId": id, "quantity": q}),
            })
            .collect();
        serde_json::to_vec(&serde_json::json!({
            "amount": serde_json::Number::from_str(&self.amount.to_string()).unwrap(),
            "currency": self.currency.as_str(),
            "orderNumber": format!("PD-{}", self.id),
            "items": items,
        }))
        .unwrap()
    }
}

/// A fixed pseudo-random sequence (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const FREE_ITEMS: [(&str, &str); 3] = [
    ("Filtre kahve", "75.00"),
    ("Çay", "15.50"),
    ("Su, büyük", "10.00"),
];

/// 400 random links from 19 to 22 November (UTC), plus the edge cases.
fn seeds() -> Vec<Seed> {
    let mut rng = Rng(2026);
    let start = at("2026-11-19T18:00:00Z");
    let mut out = Vec::new();
    for i in 0..400 {
        let created = start + TimeDelta::seconds(i64::try_from(rng.below(4 * 86_400)).unwrap());
        let currency = [Currency::Try, Currency::Try, Currency::Eur, Currency::Jpy]
            [usize::try_from(rng.below(4)).unwrap()];
        let mut items = Vec::new();
        let mut amount = Decimal::ZERO;
        for _ in 0..=rng.below(3) {
            let q = u32::try_from(rng.below(3) + 1).unwrap();
            match rng.below(4) {
                0 if currency == Currency::Try => {
                    items.push(Item::Catalog("v_simit", q));
                    amount += dec("25.00") * Decimal::from(q);
                }
                1 => {
                    // The catalog knows it only in TRY: in EUR or JPY its price is unknown here.
                    items.push(Item::Catalog("v_fincan", q));
                    amount += dec("18") * Decimal::from(q);
                }
                _ => {
                    let (name, price) = FREE_ITEMS[usize::try_from(rng.below(3)).unwrap()];
                    let price = if currency == Currency::Jpy {
                        "300"
                    } else {
                        price
                    };
                    items.push(Item::Free(name, price, q));
                    amount += dec(price) * Decimal::from(q);
                }
            }
        }
        amount.rescale(currency.minor_units());
        let kind = rng.below(10);
        let (status, paid) = match kind {
            0..=3 => (LinkStatus::Completed, amount),
            4 => (
                LinkStatus::Pending,
                (amount / Decimal::from(2)).round_dp(currency.minor_units()),
            ),
            5 => (LinkStatus::Expired, Decimal::ZERO),
            6 => (LinkStatus::Rejected, Decimal::ZERO),
            _ => (LinkStatus::Pending, Decimal::ZERO),
        };
        let cancelled = (rng.below(5) == 0
            && status != LinkStatus::Completed
            && status != LinkStatus::Rejected)
            .then(|| created + TimeDelta::minutes(i64::try_from(rng.below(600)).unwrap()));
        let status = if cancelled.is_some() {
            LinkStatus::Expired
        } else {
            status
        };
        let expiry = match rng.below(3) {
            0 => None,
            1 => Some(created + TimeDelta::hours(2)),
            _ => Some(created + TimeDelta::days(7)),
        };
        out.push(Seed {
            profile: if i % 23 == 5 { OTHER } else { SHOP },
            id: format!("lnk_{i:04}"),
            created,
            currency,
            amount,
            paid,
            completed: (status == LinkStatus::Completed)
                .then(|| created + TimeDelta::minutes(i64::try_from(rng.below(300)).unwrap())),
            status,
            expiry,
            cancelled,
            description: format!("Sipariş {i}"),
            items,
        });
    }
    // The edges of 21 November in Istanbul: its first millisecond, its last, and the next.
    for (id, created) in [
        ("edge_first", "2026-11-20T21:00:00Z"),
        ("edge_last", "2026-11-21T20:59:59.999Z"),
        ("edge_next", "2026-11-21T21:00:00Z"),
        ("edge_before", "2026-11-20T20:59:59.999Z"),
    ] {
        let created = at(created);
        out.push(Seed {
            profile: SHOP,
            id: id.to_owned(),
            created,
            currency: Currency::Try,
            amount: dec("100.00"),
            paid: dec("100.00"),
            status: LinkStatus::Completed,
            expiry: None,
            completed: Some(created),
            cancelled: None,
            description: "kenar".into(),
            items: vec![Item::Free("Kenar", "100.00", 1)],
        });
    }
    out
}

/// The clerk who began a seed: two clerks and, for one link in three, nobody known (made
/// before staff existed).
fn staff_of(s: &Seed) -> Option<&'static str> {
    let n: usize = s.id.bytes().map(usize::from).sum();
    [Some("Ayşe"), Some("Mehmet"), None][n % 3]
}

/// Stores the seeds as the app would: journal row, completion (with the items), cancel.
fn store_with(seeds: &[Seed]) -> Store {
    let mut store = Store::open_in_memory().unwrap();
    fill(&mut store, seeds);
    store
}

/// [`store_with`] into a given store.
fn fill(store: &mut Store, seeds: &[Seed]) {
    store
        .catalog_import_csv(
            "id;name;unit_price;currency\nv_simit;Simit (eski ad);25,00;TRY\nv_fincan;Fincan;18,00;TRY\n"
                .as_bytes(),
        )
        .unwrap();
    let mut ordered: Vec<&Seed> = seeds.iter().collect();
    ordered.sort_by_key(|s| s.created);
    for s in ordered {
        let key = JournalKey::new(s.profile, "link.create", format!("link-PD-{}", s.id));
        let begun = store
            .journal_begin(&NewJournalRow {
                key: key.clone(),
                body: paydesk::secrets::Redacted(s.body()),
                order_number: Some(format!("PD-{}", s.id)),
                amount: Some(s.amount),
                currency: Some(s.currency),
                now: s.created,
                began_by: staff_of(s).map(str::to_owned),
            })
            .unwrap();
        assert!(matches!(begun, JournalBegin::Started(_)));
        store.journal_complete(&key, &s.link(), s.created).unwrap();
        if let Some(t) = s.cancelled {
            store.record_cancel(s.profile, &s.link(), t).unwrap();
        }
    }
    // Renamed in the catalog after the sales: the report names it as the catalog does now.
    store
        .catalog_import_csv(
            "id,name,unit_price,currency\nv_simit,Susamlı simit,25.00,TRY\n".as_bytes(),
        )
        .unwrap();
}

/// The shop's seeds created in `[from, to)`.
fn in_window(seeds: &[Seed], from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<&Seed> {
    seeds
        .iter()
        .filter(|s| s.profile == SHOP && s.created >= from && s.created < to)
        .collect()
}

#[derive(Debug, Default, PartialEq)]
struct Expected {
    created: usize,
    paid: (usize, Decimal),
    partial: (usize, Decimal),
    pending: usize,
    expired: usize,
    cancelled: usize,
    other: usize,
    by_hour: [Decimal; 24],
}

fn expected(seeds: &[&Seed]) -> HashMap<Currency, Expected> {
    let mut out: HashMap<Currency, Expected> = HashMap::new();
    for s in seeds {
        let e = out.entry(s.currency).or_default();
        e.created += 1;
        if s.status == LinkStatus::Completed {
            e.paid.0 += 1;
            e.paid.1 += s.paid;
        } else if s.paid > Decimal::ZERO {
            e.partial.0 += 1;
            e.partial.1 += s.paid;
        } else if s.cancelled.is_some() {
            e.cancelled += 1;
        } else if s.status == LinkStatus::Expired
            || (s.status == LinkStatus::Pending && s.expiry.is_some_and(|x| x <= now()))
        {
            e.expired += 1;
        } else if s.status == LinkStatus::Pending {
            e.pending += 1;
        } else {
            e.other += 1;
        }
        if s.paid > Decimal::ZERO {
            let when = s.completed.unwrap_or_else(|| s.last_update());
            // Istanbul is UTC+3 all year.
            let hour = (when.hour() + 3) % 24;
            e.by_hour[hour as usize] += s.paid;
        }
    }
    out
}

/// The best-selling items of the paid seeds, by the report's rules written out again.
fn expected_items(seeds: &[&Seed]) -> Vec<(Currency, String, u64, Option<Decimal>)> {
    let mut sales: HashMap<(Currency, String), (String, u64, Option<Decimal>)> = HashMap::new();
    for s in seeds.iter().filter(|s| s.status == LinkStatus::Completed) {
        for item in &s.items {
            let (key, name, q, line) = match *item {
                Item::Free(name, price, q) => (
                    name.to_owned(),
                    name,
                    q,
                    Some(dec(price) * Decimal::from(q)),
                ),
                Item::Catalog("v_simit", q) => (
                    "v_simit".to_owned(),
                    "Susamlı simit",
                    q,
                    (s.currency == Currency::Try).then(|| dec("25.00") * Decimal::from(q)),
                ),
                Item::Catalog(id, q) => (
                    id.to_owned(),
                    "Fincan",
                    q,
                    (s.currency == Currency::Try).then(|| dec("18.00") * Decimal::from(q)),
                ),
            };
            let e = sales
                .entry((s.currency, key))
                .or_insert_with(|| (name.to_owned(), 0, Some(Decimal::ZERO)));
            e.1 += u64::from(q);
            e.2 = e.2.zip(line).map(|(a, b)| a + b);
        }
    }
    let mut list: Vec<(Currency, String, u64, Option<Decimal>)> = sales
        .into_iter()
        .map(|((c, _), (name, q, sum))| (c, name, q, sum))
        .collect();
    list.sort_by(|a, b| {
        b.2.cmp(&a.2)
            .then_with(|| b.3.cmp(&a.3))
            .then_with(|| a.1.cmp(&b.1))
            .then_with(|| a.0.cmp(&b.0))
    });
    list.truncate(TOP_ITEMS);
    list
}

fn check_report(store: &Store, seeds: &[Seed], first: &str, last: &str, from: &str, to: &str) {
    let report = store
        .history()
        .day_report(SHOP, day(first), day(last), zone(), now())
        .unwrap();
    let window = in_window(seeds, at(from), at(to));
    assert!(window.len() > 20, "the seed puts links in the window");
    let want = expected(&window);
    assert_eq!(report.links, window.len());
    assert_eq!(report.utc_offset, "+03:00");
    let currencies: Vec<Currency> = report.currencies.iter().map(|c| c.currency).collect();
    let mut want_currencies: Vec<Currency> = want.keys().copied().collect();
    want_currencies.sort();
    assert_eq!(
        currencies, want_currencies,
        "TRY first, only currencies with links"
    );
    for c in &report.currencies {
        let e = &want[&c.currency];
        let got = Expected {
            created: c.created,
            paid: (c.paid.count, exact(c.paid.sum)),
            partial: (c.partially_paid.count, exact(c.partially_paid.sum)),
            pending: c.pending,
            expired: c.expired,
            cancelled: c.cancelled,
            other: c.other,
            by_hour: c.collected_by_hour.map(exact),
        };
        assert_eq!(&got, e, "{} {first}..{last}", c.currency);
        assert_eq!(c.collected, e.paid.1 + e.partial.1);
        assert_eq!(
            c.created,
            c.paid.count + c.partially_paid.count + c.pending + c.expired + c.cancelled + c.other,
            "every link in exactly one bucket"
        );
        // Exact decimals at the currency's scale.
        assert_eq!(
            exact(c.collected).scale(),
            c.currency.minor_units(),
            "{:?}",
            c.collected
        );
    }
    let items: Vec<(Currency, String, u64, Option<Decimal>)> = report
        .top_items
        .iter()
        .map(|i: &ItemSales| (i.currency, i.name.clone(), i.quantity, i.sum.map(exact)))
        .collect();
    assert_eq!(items, expected_items(&window), "{first}..{last}");
}

#[test]
fn the_day_report_matches_sums_computed_from_the_seed() {
    let seeds = seeds();
    let store = store_with(&seeds);
    // One day: its first millisecond is in, the first of the next day is not.
    check_report(
        &store,
        &seeds,
        "2026-11-21",
        "2026-11-21",
        "2026-11-20T21:00:00Z",
        "2026-11-21T21:00:00Z",
    );
    // Two days.
    check_report(
        &store,
        &seeds,
        "2026-11-20",
        "2026-11-21",
        "2026-11-19T21:00:00Z",
        "2026-11-21T21:00:00Z",
    );
    let one = store
        .history()
        .day_report(SHOP, day("2026-11-21"), day("2026-11-21"), zone(), now())
        .unwrap();
    // The edge links: first and last millisecond in, the neighbours out (their 100.00 would
    // show at 00:00 and 23:00 local).
    let tr = &one.currencies[0];
    assert_eq!(tr.currency, Currency::Try);
    assert!(exact(tr.collected_by_hour[0]) >= dec("100.00"));
    assert!(exact(tr.collected_by_hour[23]) >= dec("100.00"));
    // A day with no links at all.
    let empty = store
        .history()
        .day_report(SHOP, day("2026-12-25"), day("2026-12-25"), zone(), now())
        .unwrap();
    assert_eq!(empty.links, 0);
    assert!(empty.currencies.is_empty() && empty.top_items.is_empty());
    // Another profile sees only its own links.
    let other = store
        .history()
        .day_report(OTHER, day("2026-11-19"), day("2026-11-23"), zone(), now())
        .unwrap();
    assert_eq!(
        other.links,
        seeds.iter().filter(|s| s.profile == OTHER).count()
    );
}

/// A member's sums in one currency: created, paid in full (count, sum), collected.
type MemberSums = (usize, usize, Decimal, Decimal);

/// The day close's table per member, the value issued and what is outstanding, against sums
/// computed here from the seeds, from the kept totals and from the links, at moments where
/// some links' expiries are on both sides of the report's time.
#[test]
fn staff_issued_and_outstanding_match_sums_computed_from_the_seed() {
    let seeds = seeds();
    let store = store_with(&seeds);
    let (from, to) = (at("2026-11-19T21:00:00Z"), at("2026-11-21T21:00:00Z"));
    for when in [
        now(),
        at("2026-11-21T12:00:00Z"),
        at("2026-11-20T00:30:00Z"),
    ] {
        let ours: Vec<&Seed> = seeds
            .iter()
            .filter(|s| s.profile == SHOP && s.created >= from && s.created < to)
            .collect();
        let mut issued: HashMap<Currency, Decimal> = HashMap::new();
        let mut outstanding: HashMap<Currency, Decimal> = HashMap::new();
        let mut staff: HashMap<(Option<&str>, Currency), MemberSums> = HashMap::new();
        for s in &ours {
            *issued.entry(s.currency).or_default() += s.amount;
            let payable = s.status == LinkStatus::Pending
                && s.cancelled.is_none()
                && s.expiry.is_none_or(|e| e > when);
            let owed = outstanding.entry(s.currency).or_default();
            if payable {
                *owed += s.amount - s.paid;
            }
            let e = staff.entry((staff_of(s), s.currency)).or_default();
            e.0 += 1;
            if s.status == LinkStatus::Completed {
                e.1 += 1;
                e.2 += s.paid;
            }
            e.3 += s.paid;
        }
        for report in [
            store
                .history()
                .day_report(SHOP, day("2026-11-20"), day("2026-11-21"), zone(), when)
                .unwrap(),
            store
                .history()
                .from_links()
                .day_report(SHOP, day("2026-11-20"), day("2026-11-21"), zone(), when)
                .unwrap(),
        ] {
            for c in &report.currencies {
                assert_eq!(
                    exact(c.issued),
                    issued[&c.currency],
                    "issued {:?}",
                    c.currency
                );
                assert_eq!(
                    exact(c.outstanding),
                    outstanding[&c.currency],
                    "outstanding {:?} at {when}",
                    c.currency
                );
            }
            let mut seen = 0;
            for member in &report.by_staff {
                for c in &member.currencies {
                    let expected = staff[&(member.name.as_deref(), c.currency)];
                    assert_eq!(
                        (
                            c.created,
                            c.paid.count,
                            exact(c.paid.sum),
                            exact(c.collected)
                        ),
                        expected,
                        "{:?} {:?}",
                        member.name,
                        c.currency
                    );
                    seen += 1;
                }
            }
            assert_eq!(
                seen,
                staff.len(),
                "every member and currency is in the table"
            );
            let names: Vec<Option<&str>> =
                report.by_staff.iter().map(|m| m.name.as_deref()).collect();
            assert_eq!(names, [Some("Ayşe"), Some("Mehmet"), None]);
        }
        assert!(outstanding.values().any(|d| !d.is_zero()));
    }
}

#[test]
fn the_report_serializes_with_exact_amounts() {
    let seeds = seeds();
    let store = store_with(&seeds);
    let report = store
        .history()
        .day_report(SHOP, day("2026-11-21"), day("2026-11-21"), zone(), now())
        .unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["from"], "2026-11-21");
    assert_eq!(json["utcOffset"], "+03:00");
    let tr = &json["currencies"][0];
    assert_eq!(tr["currency"], "TRY");
    assert_eq!(
        dec(&tr["collected"].to_string()),
        report.currencies[0].collected
    );
    assert_eq!(tr["collectedByHour"].as_array().unwrap().len(), 24);
    assert!(tr["partiallyPaid"]["count"].is_u64());
    assert_eq!(dec(&tr["issued"].to_string()), report.currencies[0].issued);
    assert_eq!(
        dec(&tr["outstanding"].to_string()),
        report.currencies[0].outstanding
    );
    let member = &json["byStaff"][0];
    assert_eq!(member["name"], "Ayşe");
    let first = &member["currencies"][0];
    for field in ["currency", "created", "paid", "collected"] {
        assert!(!first[field].is_null(), "byStaff lacks {field}: {member}");
    }
    assert_eq!(json["auditHead"].as_str().map(str::len), Some(64));
}

/// Newest first, as history lists them.
fn by_newest(mut v: Vec<&Seed>) -> Vec<&Seed> {
    v.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| b.id.cmp(&a.id)));
    v
}

fn utc(t: Option<DateTime<Utc>>) -> String {
    t.map(|t| t.to_rfc3339_opts(SecondsFormat::AutoSi, true))
        .unwrap_or_default()
}

fn local(t: Option<DateTime<Utc>>) -> String {
    t.map(|t| {
        (t + TimeDelta::hours(3))
            .naive_utc()
            .and_local_timezone(chrono::FixedOffset::east_opt(3 * 3600).unwrap())
            .unwrap()
            .to_rfc3339_opts(SecondsFormat::AutoSi, false)
    })
    .unwrap_or_default()
}

/// The CSV row the export must write for a seed, built from the seed's own values.
fn expected_row(s: &Seed) -> Vec<String> {
    let o = |v: Option<String>| v.unwrap_or_default();
    vec![
        s.id.clone(),
        format!("R-{}", s.id),
        format!("PD-{}", s.id),
        format!("https://pay.example/{}", s.id),
        o((s.paid > Decimal::ZERO).then(|| format!("txn_{}", s.id))),
        s.amount.to_string(),
        s.paid.to_string(),
        (s.amount - s.paid).to_string(),
        s.currency.as_str().to_owned(),
        s.status.as_str().to_owned(),
        s.description.clone(),
        "true".into(),
        "false".into(),
        String::new(),
        "ayse@example.com".into(),
        "90".into(),
        "5321234567".into(),
        utc(s.expiry),
        local(s.expiry),
        utc(s.completed),
        local(s.completed),
        utc(Some(s.created)),
        local(Some(s.created)),
        utc(Some(s.created)),
        local(Some(s.created)),
        utc(s.cancelled),
        local(s.cancelled),
        staff_of(s).unwrap_or_default().to_owned(),
    ]
}

fn read_back(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    (header, rows)
}

#[test]
fn the_exported_csv_reads_back_as_the_rows() {
    let mut seeds = seeds();
    // Descriptions a hand-written writer gets wrong, and a Turkish one.
    seeds[0].description = "Kazak, yün \"kırmızı\"\nikinci satır".into();
    seeds[1].description = "İpek şal ığdır ÖÇŞĞÜ".into();
    seeds[2].description = String::new();
    let store = store_with(&seeds);

    // Everything of the profile.
    let mut out = Vec::new();
    let n = store
        .history()
        .export_links_csv(SHOP, &LinkQuery::default(), None, zone(), &mut out)
        .unwrap();
    let all = by_newest(seeds.iter().filter(|s| s.profile == SHOP).collect());
    assert_eq!(n, all.len());
    let (header, rows) = read_back(&out);
    assert_eq!(header, LINK_CSV_HEADER);
    let want: Vec<Vec<String>> = all.iter().map(|s| expected_row(s)).collect();
    assert_eq!(rows.len(), want.len());
    for (got, want) in rows.iter().zip(&want) {
        assert_eq!(got, want);
    }
    assert!(
        rows.iter()
            .any(|r| r[10] == "Kazak, yün \"kırmızı\"\nikinci satır")
    );
    assert!(
        std::str::from_utf8(&out)
            .unwrap()
            .contains("İpek şal ığdır")
    );

    // A date range and a status (one walk of the status index).
    let range = TimeRange::days(day("2026-11-21"), day("2026-11-21"), zone());
    let q = LinkQuery {
        status: Some(LinkStatus::Completed),
        ..LinkQuery::default()
    };
    let mut out = Vec::new();
    store
        .history()
        .export_links_csv(SHOP, &q, Some(range), zone(), &mut out)
        .unwrap();
    let want: Vec<Vec<String>> = by_newest(
        in_window(&seeds, range.from, range.to)
            .into_iter()
            .filter(|s| s.status == LinkStatus::Completed)
            .collect(),
    )
    .iter()
    .map(|s| expected_row(s))
    .collect();
    assert!(want.len() > 5);
    assert_eq!(read_back(&out).1, want);

    // A text search (pages of the search underneath).
    let q = LinkQuery {
        text: Some("sipariş 1".into()),
        ..LinkQuery::default()
    };
    let mut out = Vec::new();
    store
        .history()
        .export_links_csv(SHOP, &q, None, zone(), &mut out)
        .unwrap();
    let words = |d: &str| -> Vec<String> {
        d.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let want: Vec<Vec<String>> = by_newest(
        seeds
            .iter()
            .filter(|s| s.profile == SHOP)
            .filter(|s| {
                let w = words(&s.description);
                w.iter().any(|x| x.starts_with("sipariş")) && w.iter().any(|x| x.starts_with('1'))
            })
            .collect(),
    )
    .iter()
    .map(|s| expected_row(s))
    .collect();
    assert!(want.len() > 50, "{}", want.len());
    assert_eq!(read_back(&out).1, want);
}

/// Which seeds a filter keeps.
type Keep = Box<dyn Fn(&Seed) -> bool>;

#[test]
fn history_totals_match_the_seed_for_each_filter_shape() {
    let seeds = seeds();
    let store = store_with(&seeds);
    let range = TimeRange::days(day("2026-11-20"), day("2026-11-21"), zone());
    let cases: [(LinkQuery, Option<TimeRange>, Keep); 6] = [
        (LinkQuery::default(), None, Box::new(|_| true)),
        (
            LinkQuery::default(),
            Some(range),
            Box::new(move |s| s.created >= range.from && s.created < range.to),
        ),
        (
            LinkQuery {
                status: Some(LinkStatus::Expired),
                ..LinkQuery::default()
            },
            Some(range),
            Box::new(move |s| {
                s.status == LinkStatus::Expired && s.created >= range.from && s.created < range.to
            }),
        ),
        (
            LinkQuery {
                text: Some("PD-lnk_01".into()),
                ..LinkQuery::default()
            },
            None,
            Box::new(|s| s.id.starts_with("lnk_01")),
        ),
        // History's staff filter, alone and with a status.
        (
            LinkQuery {
                staff: Some("Ayşe".into()),
                ..LinkQuery::default()
            },
            Some(range),
            Box::new(move |s| {
                staff_of(s) == Some("Ayşe") && s.created >= range.from && s.created < range.to
            }),
        ),
        (
            LinkQuery {
                staff: Some("Mehmet".into()),
                status: Some(LinkStatus::Completed),
                ..LinkQuery::default()
            },
            None,
            Box::new(|s| staff_of(s) == Some("Mehmet") && s.status == LinkStatus::Completed),
        ),
    ];
    for (q, range, keep) in cases {
        // The page lists exactly the kept links, newest first.
        let page = store
            .history()
            .search_links_in(
                SHOP,
                &LinkQuery {
                    limit: 500,
                    ..q.clone()
                },
                range,
            )
            .unwrap();
        let listed: Vec<&str> = page.links.iter().map(|l| l.link.id.as_str()).collect();
        let kept: Vec<&str> = by_newest(
            seeds
                .iter()
                .filter(|s| s.profile == SHOP && keep(s))
                .collect(),
        )
        .into_iter()
        .map(|s| s.id.as_str())
        .collect();
        if q.text.is_none() {
            assert_eq!(listed, kept, "{q:?}");
        }
        let totals = store.history().link_totals(SHOP, &q, range).unwrap();
        let mut want: Vec<(Currency, usize, Decimal, Decimal)> = Vec::new();
        for s in seeds.iter().filter(|s| s.profile == SHOP && keep(s)) {
            match want.iter_mut().find(|w| w.0 == s.currency) {
                Some(w) => {
                    w.1 += 1;
                    w.2 += s.amount;
                    w.3 += s.paid;
                }
                None => want.push((s.currency, 1, s.amount, s.paid)),
            }
        }
        want.sort_by_key(|w| w.0);
        let got: Vec<(Currency, usize, Decimal, Decimal)> = totals
            .by_currency
            .iter()
            .map(|t| (t.currency, t.count, exact(t.amount), exact(t.paid)))
            .collect();
        assert_eq!(got, want, "{q:?} {range:?}");
        assert_eq!(totals.count, want.iter().map(|w| w.1).sum::<usize>());
        assert!(totals.count > 0, "{q:?}");
    }
}

#[test]
fn a_cancel_through_paydesk_is_remembered_and_kept_through_refreshes() {
    let seeds = seeds();
    let mut store = store_with(&seeds);
    let s = seeds
        .iter()
        .find(|s| s.profile == SHOP && s.cancelled.is_some())
        .unwrap();
    let stored = store.links().get(SHOP, &s.id).unwrap().unwrap();
    assert_eq!(stored.cancelled_at, s.cancelled);
    // A later detail answer (EXPIRED) does not erase the mark; a second cancel keeps the first
    // moment.
    store
        .upsert_link(SHOP, &s.link(), s.created + TimeDelta::days(1))
        .unwrap();
    store
        .record_cancel(SHOP, &s.link(), s.created + TimeDelta::days(2))
        .unwrap();
    let stored = store.links().get(SHOP, &s.id).unwrap().unwrap();
    assert_eq!(stored.cancelled_at, s.cancelled);
    let never = seeds
        .iter()
        .find(|s| s.profile == SHOP && s.cancelled.is_none())
        .unwrap();
    assert_eq!(
        store
            .links()
            .get(SHOP, &never.id)
            .unwrap()
            .unwrap()
            .cancelled_at,
        None
    );
}

#[test]
fn an_unreadable_body_completes_its_link_without_items() {
    let mut store = Store::open_in_memory().unwrap();
    let created = at("2026-11-21T09:00:00Z");
    let seed = Seed {
        profile: SHOP,
        id: "lnk_odd".into(),
        created,
        currency: Currency::Try,
        amount: dec("40.00"),
        paid: dec("40.00"),
        status: LinkStatus::Completed,
        expiry: None,
        completed: Some(created),
        cancelled: None,
        description: String::new(),
        items: Vec::new(),
    };
    let key = JournalKey::new(SHOP, "link.create", "link-PD-odd");
    store
        .journal_begin(&NewJournalRow {
            key: key.clone(),
            body: paydesk::secrets::Redacted(b"{not json".to_vec()),
            order_number: Some("PD-odd".into()),
            amount: Some(seed.amount),
            currency: Some(Currency::Try),
            now: created,
            began_by: None,
        })
        .unwrap();
    store.journal_complete(&key, &seed.link(), created).unwrap();
    let report = store
        .history()
        .day_report(SHOP, day("2026-11-21"), day("2026-11-21"), zone(), now())
        .unwrap();
    assert_eq!(report.currencies[0].paid.count, 1);
    assert!(report.top_items.is_empty());
}

/// Later answers for some of the seeds, as refreshes bring them: pending links paid in full,
/// part payments growing (their money moves to the refresh's hour), paid links heard of again.
fn refresh_some(store: &mut Store, seeds: &[Seed]) {
    for (i, s) in seeds.iter().enumerate() {
        let mut link = s.link();
        let later = s.created + TimeDelta::hours(3);
        match (i % 5, &s.status) {
            (0, LinkStatus::Pending) if s.paid.is_zero() && s.cancelled.is_none() => {
                link.status = Some(LinkStatus::Completed);
                link.paid_amount = Some(s.amount);
                link.remaining_amount = Some(Decimal::ZERO);
                link.completed_date = Some(later);
            }
            (1, LinkStatus::Pending) if !s.paid.is_zero() => {
                let more = (s.amount - s.paid).min(dec("1"));
                link.paid_amount = Some(s.paid + more);
                link.remaining_amount = Some(s.amount - s.paid - more);
            }
            (2, _) => {}
            _ => continue,
        }
        store.upsert_link(s.profile, &link, later).unwrap();
    }
}

/// Zones of every kind a shop can be in: whole hours either side of UTC, half and three
/// quarter hours, and one a few minutes off the quarter (local mean time), which reads the
/// links instead of the kept totals.
fn zones() -> Vec<Zone> {
    let east = |secs| Zone::Fixed(chrono::FixedOffset::east_opt(secs).unwrap());
    vec![
        zone(),
        Zone::hours(0),
        Zone::hours(-5),
        east(5 * 3600 + 1800),
        east(5 * 3600 + 2700),
        east(-(9 * 3600 + 1800)),
        east(1664),
        Zone::Local,
    ]
}

/// The kept totals (`tallies`) must add up to exactly what the links themselves give, for any
/// zone, any run of days and any moment of asking (pending links expire between the moments).
#[test]
fn the_kept_totals_add_up_to_the_links_in_every_zone_at_every_moment() {
    let seeds = seeds();
    let mut store = store_with(&seeds);
    refresh_some(&mut store, &seeds);
    let ranges = [
        ("2026-11-19", "2026-11-19"),
        ("2026-11-20", "2026-11-20"),
        ("2026-11-21", "2026-11-21"),
        ("2026-11-22", "2026-11-22"),
        ("2026-11-23", "2026-11-23"),
        ("2026-11-19", "2026-11-22"),
        ("2026-11-01", "2026-11-30"),
        ("2026-10-01", "2026-10-31"),
    ];
    let moments = [
        at("2026-11-19T00:00:00Z"),
        at("2026-11-20T12:00:00Z"),
        at("2026-11-21T13:37:00Z"),
        now(),
        at("2026-12-31T00:00:00Z"),
    ];
    let mut compared = 0;
    for z in zones() {
        for (first, last) in ranges {
            for moment in moments {
                for profile in [SHOP, OTHER] {
                    let kept = store
                        .history()
                        .day_report(profile, day(first), day(last), z, moment)
                        .unwrap();
                    let read = store
                        .history()
                        .from_links()
                        .day_report(profile, day(first), day(last), z, moment)
                        .unwrap();
                    assert_eq!(
                        kept, read,
                        "{profile} {first}..{last} in {z:?} at {moment}: kept totals differ"
                    );
                    // Written out too: the same signs and decimals, not only equal values.
                    assert_eq!(
                        serde_json::to_string(&kept).unwrap(),
                        serde_json::to_string(&read).unwrap(),
                        "{profile} {first}..{last} in {z:?} at {moment}: JSON differs"
                    );
                    compared += usize::from(kept.links > 0);
                }
            }
        }
    }
    // The comparison is not of empty reports.
    assert!(compared > 300, "only {compared} non-empty reports compared");
    // History's totals line adds up the same cells: any days, either end open, any status.
    let statuses = [
        None,
        Some(LinkStatus::Pending),
        Some(LinkStatus::Completed),
        Some(LinkStatus::Expired),
        Some(LinkStatus::Rejected),
    ];
    let mut totals_compared = 0;
    for z in zones() {
        let mut windows = vec![None];
        for (first, last) in ranges {
            windows.push(Some(TimeRange::days(day(first), day(last), z)));
            windows.push(TimeRange::between(Some(day(first)), None, z));
            windows.push(TimeRange::between(None, Some(day(last)), z));
        }
        for window in windows {
            for status in &statuses {
                for profile in [SHOP, OTHER] {
                    let q = LinkQuery {
                        status: status.clone(),
                        ..LinkQuery::default()
                    };
                    let kept = store.history().link_totals(profile, &q, window).unwrap();
                    let read = store
                        .history()
                        .link_totals_from_links(profile, &q, window)
                        .unwrap();
                    assert_eq!(
                        kept, read,
                        "{profile} {status:?} {window:?} in {z:?}: totals differ"
                    );
                    totals_compared += usize::from(kept.count > 0);
                }
            }
        }
    }
    assert!(
        totals_compared > 500,
        "only {totals_compared} totals compared"
    );
    let month = store
        .history()
        .day_report(SHOP, day("2026-11-01"), day("2026-11-30"), zone(), now())
        .unwrap();
    assert_eq!(
        month.links,
        seeds.iter().filter(|s| s.profile == SHOP).count()
    );
    assert!(
        month
            .currencies
            .iter()
            .all(|c| c.expired > 0 && c.paid.count > 0)
    );
    assert!(!month.top_items.is_empty());
}

/// A file written before the totals were kept gets them when it is opened: the migration
/// marks them stale and the open computes them from the links already stored, and then they
/// add up as if kept all along.
#[test]
fn an_older_file_gets_its_totals_from_the_links_on_opening() {
    let seeds = seeds();
    let dir = tempfile::tempdir().unwrap();
    let kept = {
        let mut store = Store::open(dir.path()).unwrap();
        fill(&mut store, &seeds);
        refresh_some(&mut store, &seeds);
        store
            .history()
            .day_report(SHOP, day("2026-11-19"), day("2026-11-22"), zone(), now())
            .unwrap()
    };
    // Back to version 5: no totals tables (nor the journal index of version 7, nor the staff
    // and audit of version 8, nor the shop desk and outbox of versions 9 and 10, nor the mail
    // queue of version 12 and its parts of version 15).
    let path = dir.path().join(paydesk::store::DB_FILE);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TABLE mail_parts; DROP TABLE mail_queue; DROP TABLE renewals; DROP TABLE reminders;
         DROP TABLE shop_outbox;
         DROP TABLE shop_desk;
         DROP TABLE staff; DROP TABLE audit; DROP INDEX links_by_staff;
         ALTER TABLE links DROP COLUMN staff; ALTER TABLE journal DROP COLUMN began_by;
         DROP INDEX journal_bodies_kept; DROP TABLE report_cells; DROP TABLE report_items;
         DROP TRIGGER report_totals_links_insert; DROP TRIGGER report_totals_links_update;
         DROP TRIGGER report_totals_links_delete; DROP TRIGGER report_totals_items_insert;
         DROP TRIGGER report_totals_items_update; DROP TRIGGER report_totals_items_delete;
         DELETE FROM meta WHERE key = 'report_totals'; PRAGMA user_version = 5;",
    )
    .unwrap();
    drop(conn);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        paydesk::store::migrations::latest_version()
    );
    let reopened = store
        .history()
        .day_report(SHOP, day("2026-11-19"), day("2026-11-22"), zone(), now())
        .unwrap();
    // (A file of version 5 knows no staff and no audit: those two parts start again.)
    assert_eq!(
        DayReport {
            audit_head: kept.audit_head.clone(),
            by_staff: kept.by_staff.clone(),
            ..reopened.clone()
        },
        kept
    );
    assert_eq!(reopened.by_staff.len(), 1, "every link is nobody's");
    assert!(reopened.links > 100);
}

/// A write paydesk did not make (an older paydesk still running during an upgrade, a hand
/// edit) is not in the kept totals: the triggers mark them stale, reports read the links
/// until the next open, and that open computes the totals again.
#[test]
fn a_write_the_totals_did_not_see_is_caught_and_repaired() {
    let seeds = seeds();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    fill(&mut store, &seeds);
    let path = dir.path().join(paydesk::store::DB_FILE);
    let state = || -> String {
        rusqlite::Connection::open(&path)
            .unwrap()
            .query_row(
                "SELECT value FROM meta WHERE key = 'report_totals'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    refresh_some(&mut store, &seeds);
    assert_eq!(
        state(),
        "fresh",
        "paydesk's own writes keep the totals fresh"
    );
    // Links that left a cell leave no "-0" behind in its sums.
    let negative: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM report_cells WHERE paid LIKE '-%' OR amount LIKE '-%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(negative, 0);
    let report = |store: &Store| {
        store
            .history()
            .day_report(SHOP, day("2026-11-19"), day("2026-11-22"), zone(), now())
            .unwrap()
    };
    let before = report(&store);
    // Another writer pays every pending link of the shop.
    let paid = rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE links SET status = 'COMPLETED', paid_amount = amount
             WHERE profile = ?1 AND status = 'PENDING'",
            [SHOP],
        )
        .unwrap();
    assert!(paid > 10);
    assert_eq!(state(), "stale");
    let read = store
        .history()
        .from_links()
        .day_report(SHOP, day("2026-11-19"), day("2026-11-22"), zone(), now())
        .unwrap();
    assert_ne!(read, before, "the write changed the report");
    assert_eq!(report(&store), read, "stale totals are not used");
    let totals = store
        .history()
        .link_totals(SHOP, &LinkQuery::default(), None)
        .unwrap();
    assert_eq!(
        totals,
        store
            .history()
            .link_totals_from_links(SHOP, &LinkQuery::default(), None)
            .unwrap()
    );
    // A write of paydesk's own does not hide the other one.
    refresh_some(&mut store, &seeds);
    assert_eq!(state(), "stale");
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(state(), "fresh", "opening computed the totals again");
    assert_eq!(
        report(&store),
        store
            .history()
            .from_links()
            .day_report(SHOP, day("2026-11-19"), day("2026-11-22"), zone(), now())
            .unwrap()
    );
}

/// The largest amount a `Decimal` holds, as a server could send it.
const HUGE: &str = "79228162514264337593543950335";

/// A server's answer for link `id` of `amount`, `paid` of it paid, created at `created`.
fn answer(id: &str, amount: &str, paid: &str, status: &str, created: DateTime<Utc>) -> PaymentLink {
    let completed = if status == "COMPLETED" {
        format!("\"{}\"", created.to_rfc3339_opts(SecondsFormat::Secs, true))
    } else {
        "null".to_owned()
    };
    serde_json::from_str(&format!(
        r#"{{"id":"{id}","orderNumber":"PD-{id}","amount":{amount},"paidAmount":{paid},
            "currency":"TRY","status":"{status}","paymentUrl":"https://pay.example/{id}",
            "expiryDate":"2026-11-21T20:00:00Z","completedDate":{completed}}}"#
    ))
    .unwrap()
}

/// Creates link `id` through the journal as the service does: the request (one item of
/// `unit_price` × `quantity`) is journaled, then the server's answer completes it.
fn create(
    store: &mut Store,
    link: &PaymentLink,
    unit_price: &str,
    quantity: u32,
    at: DateTime<Utc>,
) {
    let key = JournalKey::new(SHOP, "link.create", format!("link-{}", link.id));
    let body = format!(
        r#"{{"amount":{unit_price},"currency":"TRY","orderNumber":"PD-{}",
            "items":[{{"name":"Altın","unitPrice":{unit_price},"quantity":{quantity}}}]}}"#,
        link.id
    );
    let begun = store
        .journal_begin(&NewJournalRow {
            key: key.clone(),
            body: paydesk::secrets::Redacted(body.into_bytes()),
            order_number: link.order_number.clone(),
            amount: link.amount,
            currency: Some(Currency::Try),
            now: at,
            began_by: None,
        })
        .unwrap();
    assert!(matches!(begun, JournalBegin::Started(_)));
    let row = store.journal_complete(&key, link, at).unwrap();
    assert_eq!(row.state, paydesk::store::JournalState::Completed);
    assert_eq!(row.link_id.as_deref(), Some(link.id.as_str()));
}

/// The day report and History's totals of the day, kept and read from the links, which must
/// agree.
fn figures(
    store: &Store,
    status: Option<LinkStatus>,
) -> (paydesk::store::DayReport, paydesk::store::LinkTotals) {
    let d = day("2026-11-21");
    let report = store
        .history()
        .day_report(SHOP, d, d, zone(), now())
        .unwrap();
    assert_eq!(
        report,
        store
            .history()
            .from_links()
            .day_report(SHOP, d, d, zone(), now())
            .unwrap()
    );
    let q = LinkQuery {
        status,
        ..LinkQuery::default()
    };
    let range = Some(TimeRange::days(d, d, zone()));
    let totals = store.history().link_totals(SHOP, &q, range).unwrap();
    assert_eq!(
        totals,
        store
            .history()
            .link_totals_from_links(SHOP, &q, range)
            .unwrap()
    );
    (report, totals)
}

/// Two links of the largest amount in one hour: both are stored as the server answered
/// (before, adding them up panicked inside `journal_complete`, after the server had made the
/// second link), and every sum they are part of reads "out of range" instead of a number.
#[test]
fn sums_beyond_a_decimal_read_out_of_range_and_lose_no_link() {
    use paydesk::lang::Lang;
    use paydesk::store::Total;

    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let at = at("2026-11-21T10:05:00Z");
    for (i, id) in ["lnk_huge_1", "lnk_huge_2"].into_iter().enumerate() {
        let when = at + TimeDelta::minutes(i64::try_from(i).unwrap() * 10);
        let link = answer(id, HUGE, HUGE, "COMPLETED", when);
        create(&mut store, &link, HUGE, 2, when);
        let stored = store.links().get(SHOP, id).unwrap().unwrap();
        assert_eq!(stored.link.amount, Some(dec(HUGE)));
    }
    let (report, totals) = figures(&store, None);
    let tr = &report.currencies[0];
    assert_eq!((tr.created, tr.paid.count), (2, 2));
    assert_eq!(tr.paid.sum, Total::OutOfRange);
    assert_eq!(tr.collected, Total::OutOfRange);
    assert_eq!(
        tr.collected_by_hour[13],
        Total::OutOfRange,
        "13:00 in Istanbul"
    );
    assert!(tr.partially_paid.sum.is_zero());
    assert_eq!(report.top_items[0].sum, Some(Total::OutOfRange), "HUGE × 2");
    assert_eq!(totals.count, 2);
    assert_eq!(totals.by_currency[0].amount, Total::OutOfRange);
    assert_eq!(totals.by_currency[0].paid, Total::OutOfRange);
    // What the report and History show, and the JSON of `report --json`.
    let shown = tr.collected.show(Lang::En, |d| d.to_string());
    assert_eq!(shown, "out of range (too large to add up)");
    assert_eq!(
        tr.collected.show(Lang::Tr, |d| d.to_string()),
        "aralık dışı (toplanamayacak kadar büyük)"
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["currencies"][0]["collected"], serde_json::Value::Null);
    assert_eq!(json["currencies"][0]["paid"]["count"], 2);

    // A pending link of the largest amount and one of 1 in the same hour: their sum is out of
    // range; when the small one expires, the pending sum is the large one again, exactly.
    let pending = answer("lnk_huge_3", HUGE, "0", "PENDING", at);
    create(&mut store, &pending, HUGE, 1, at);
    let small = answer("lnk_small", "1", "0", "PENDING", at);
    create(&mut store, &small, "1", 1, at);
    let (_, totals) = figures(&store, Some(LinkStatus::Pending));
    assert_eq!(totals.by_currency[0].amount, Total::OutOfRange);
    store
        .upsert_link(SHOP, &answer("lnk_small", "1", "0", "EXPIRED", at), now())
        .unwrap();
    let (_, totals) = figures(&store, Some(LinkStatus::Pending));
    assert_eq!(totals.by_currency[0].amount, dec(HUGE));
    // Opened again, the totals are computed afresh and still agree with the links.
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    let (report, totals) = figures(&store, Some(LinkStatus::Pending));
    assert_eq!(totals.by_currency[0].amount, dec(HUGE));
    assert_eq!(report.currencies[0].collected, Total::OutOfRange);
}

/// `paydesk report` over such a day prints the sentence where the sum would be, and its JSON
/// has `null` there; the links are all counted.
#[test]
fn the_cli_report_says_out_of_range_where_a_sum_does_not_fit() {
    let cli = crate::support::cli::Cli::new();
    let at = at("2026-11-21T10:05:00Z");
    {
        let mut store = Store::open(cli.data_dir()).unwrap();
        store
            .profile_add(
                &paydesk::store::Profile::new(SHOP, "http://127.0.0.1:9", "pk_test_shop"),
                at,
            )
            .unwrap();
        for id in ["lnk_huge_1", "lnk_huge_2"] {
            create(
                &mut store,
                &answer(id, HUGE, HUGE, "COMPLETED", at),
                HUGE,
                1,
                at,
            );
        }
    }
    let env = [("PAYDESK_API_SECRET", "sk_test_anything"), ("TZ", "UTC")];
    let args = ["--profile", SHOP, "report", "--from", "2026-11-21"];
    let out = cli.run_with(&args, None, &env);
    assert_eq!(out.code, 0, "{out:?}");
    let line = |label: &str| {
        out.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label}:\n{}", out.stdout))
    };
    for label in ["paid in full", "collected  ", "collected per hour", "Altın"] {
        assert!(
            line(label).ends_with("out of range (too large to add up)"),
            "{}",
            out.stdout
        );
    }
    assert!(line("partially paid").ends_with("₺0.00"), "{}", out.stdout);
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let out = cli.run_with(&json_args, None, &env);
    assert_eq!(out.code, 0, "{out:?}");
    let json = out.json();
    assert_eq!(json["currencies"][0]["paid"]["count"], 2);
    assert_eq!(json["currencies"][0]["collected"], serde_json::Value::Null);
}
