//! The shop's kept day-close totals against the links themselves, in process, on the private
//! PostgreSQL cluster of `tests/support/pg.rs` (skipped with a sentence naming the package when
//! PostgreSQL is not installed; a failure under `PAYDESK_REQUIRE_POSTGRES=1`).
//!
//! `report_cells` and `report_items` are kept by triggers as links are written (schema step 2);
//! `shop::report::day_report` adds them up, `shop::report::day_report_from_links` reads the
//! links. A shop closes its day on the first: it must always equal the second, for every
//! status, expiry, payment, cancel, desk, member, currency and item, whatever order the
//! observations arrived in, in any zone and at any time of judging.

use crate::support::pg::{self, PASSWORD, Pg};
use crate::support::time::at;
use chrono::{DateTime, Duration, FixedOffset, NaiveDate, Utc};
use paydesk::api::wire::PaymentLink;
use paydesk::clock::Zone;
use paydesk::domain::{Currency, LinkStatus};
use paydesk::shop::report::{ReportScope, day_report, day_report_from_links};
use paydesk::shop::{self, ShopUrl, schema};
use paydesk::store::{Account, ItemPush, LinkPush, OutboxRow};
use rust_decimal::Decimal;
use zeroize::Zeroizing;

/// The desks of the seeded shop.
const DESKS: [&str; 3] = ["D1AA", "D2BB", "D3CC"];

/// A small deterministic generator (xorshift64*), so a failure replays the same links.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        let i = usize::try_from(self.below(from.len() as u64)).expect("a small index");
        &from[i]
    }
}

/// A verified-TLS session to a fresh database, migrated, with the three desks registered.
/// The account every seeded link was made on, as the report keys it.
const ACCOUNT: &str = "https://api.example\u{1f}key-1\u{1f}";

async fn seeded_shop(pg: &Pg) -> shop::Shop {
    seeded_shop_at(pg, schema::latest_version()).await
}

/// [`seeded_shop`] with the schema brought to `version` only.
async fn seeded_shop_at(pg: &Pg, version: i32) -> shop::Shop {
    // The owner's session: it migrates as `shop init` does, then seeds.
    let db = pg.empty_db();
    // The server's own zone must not matter: every time the shop keeps is absolute.
    pg.admin_sql(
        "postgres",
        &format!("ALTER DATABASE {db} SET timezone = 'Asia/Kolkata'"),
    );
    let url = pg.owner_url(&db);
    let url = ShopUrl::parse(&url).expect("a shop URL");
    let mut shop = shop::connect(
        &url,
        &Zeroizing::new(PASSWORD.to_owned()),
        shop::CONNECT_TIMEOUT,
    )
    .await
    .expect("the shop connects");
    schema::migrate_to(shop.client_mut(), &url, version)
        .await
        .expect("migrates");
    // Registered as the paydesk of that schema did: the owner's own rows.
    for (i, id) in DESKS.iter().enumerate() {
        shop.client()
            .execute(
                "INSERT INTO desks (desk_id, name, joined_at, seen_at) VALUES ($1, $2, now(), now())",
                &[id, &format!("Counter {}", i + 1)],
            )
            .await
            .expect("the desk is registered");
    }
    shop
}

/// How a paydesk from before schema step 11 pushed an observation and an item: straight into
/// the tables (a shop at that step has no functions to push through).
const OLD_PUSH_LINK: &str = "
INSERT INTO links AS l (base_url, api_key_id, sandbox_desk, link_id, desk_id, staff,
    order_number, status, currency, amount, paid_amount, cancelled_at, stored_at, observed_at,
    answer)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::text::jsonb)
ON CONFLICT (base_url, api_key_id, sandbox_desk, link_id) DO UPDATE SET
    status = CASE WHEN (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
                     > (paydesk_status_rank(l.status), l.paid_amount)
             THEN EXCLUDED.status ELSE l.status END,
    paid_amount = CASE WHEN (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
                     > (paydesk_status_rank(l.status), l.paid_amount)
             THEN EXCLUDED.paid_amount ELSE l.paid_amount END,
    observed_at = CASE WHEN (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
                     > (paydesk_status_rank(l.status), l.paid_amount)
             THEN EXCLUDED.observed_at ELSE l.observed_at END,
    answer = CASE WHEN (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
                     > (paydesk_status_rank(l.status), l.paid_amount)
             THEN EXCLUDED.answer ELSE l.answer END,
    staff = coalesce(l.staff, EXCLUDED.staff),
    cancelled_at = coalesce(l.cancelled_at, EXCLUDED.cancelled_at)
WHERE (paydesk_status_rank(EXCLUDED.status), EXCLUDED.paid_amount)
        > (paydesk_status_rank(l.status), l.paid_amount)
   OR (l.staff IS NULL AND EXCLUDED.staff IS NOT NULL)
   OR (l.cancelled_at IS NULL AND EXCLUDED.cancelled_at IS NOT NULL)";
const OLD_PUSH_ITEM: &str = "
INSERT INTO link_items (base_url, api_key_id, sandbox_desk, link_id, position, name,
    variant_id, quantity, unit_price)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING";

/// `boxes` pushed as a paydesk from before schema step 11 pushed them.
async fn push_all_as_before(shop: &shop::Shop, boxes: &[(&'static str, Vec<OutboxRow>)]) {
    let dec = |t: &str| Decimal::from_str_exact(t).expect("an amount");
    for (_, rows) in boxes {
        for row in rows {
            let l = &row.link;
            let amount = l.amount.as_deref().map(dec);
            let paid = dec(&l.paid_amount);
            let answer = l.answer.to_string();
            let a = &l.account;
            shop.client()
                .execute(
                    OLD_PUSH_LINK,
                    &[
                        &a.base_url,
                        &a.api_key_id,
                        &a.sandbox_desk,
                        &l.link_id,
                        &l.desk_id,
                        &l.staff,
                        &l.order_number,
                        &l.status,
                        &l.currency,
                        &amount,
                        &paid,
                        &l.cancelled_at,
                        &l.stored_at,
                        &l.observed_at,
                        &answer,
                    ],
                )
                .await
                .expect("pushed");
            for i in &l.items {
                let price = i.unit_price.as_deref().map(dec);
                shop.client()
                    .execute(
                        OLD_PUSH_ITEM,
                        &[
                            &a.base_url,
                            &a.api_key_id,
                            &a.sandbox_desk,
                            &l.link_id,
                            &i.position,
                            &i.name,
                            &i.variant_id,
                            &Decimal::from(i.quantity),
                            &price,
                        ],
                    )
                    .await
                    .expect("pushed");
            }
        }
    }
}

/// One link's observation as a desk pushes it.
#[derive(Clone)]
struct Seen {
    desk: &'static str,
    id: String,
    staff: Option<&'static str>,
    status: LinkStatus,
    currency: Currency,
    amount: Option<Decimal>,
    paid: Decimal,
    cancelled_at: Option<DateTime<Utc>>,
    stored_at: DateTime<Utc>,
    observed_at: DateTime<Utc>,
    expiry: Option<DateTime<Utc>>,
    completed: Option<DateTime<Utc>>,
    items: Vec<ItemPush>,
}

impl Seen {
    fn push(&self) -> LinkPush {
        let answer = PaymentLink {
            id: self.id.clone(),
            reference_number: None,
            order_number: Some(format!("PD-{}", self.id)),
            payment_url: None,
            transaction_ref: None,
            amount: self.amount,
            paid_amount: Some(self.paid),
            remaining_amount: None,
            currency: Some(self.currency),
            status: Some(self.status.clone()),
            description: Some("Kırmızı kazak".into()),
            allow_partial_payment: Some(true),
            enable_installment: None,
            available_installments: None,
            email: None,
            phone_country_code: None,
            phone_number: None,
            expiry_date: self.expiry,
            completed_date: self.completed,
            created_date: Some(self.stored_at),
        };
        LinkPush {
            account: Account {
                base_url: "https://api.example".into(),
                api_key_id: "key-1".into(),
                sandbox_desk: String::new(),
            },
            link_id: self.id.clone(),
            desk_id: self.desk.to_owned(),
            staff: self.staff.map(str::to_owned),
            order_number: Some(format!("PD-{}", self.id)),
            status: self.status.as_str().to_owned(),
            currency: self.currency.as_str().to_owned(),
            amount: self.amount.map(|a| a.to_string()),
            paid_amount: self.paid.to_string(),
            cancelled_at: self.cancelled_at,
            stored_at: self.stored_at,
            observed_at: self.observed_at,
            answer: serde_json::to_value(answer).expect("an answer"),
            items: self.items.clone(),
        }
    }
}

/// The catalog's variants, each always sent with its one name.
const VARIANTS: [(&str, &str); 4] = [
    ("V-SIMIT", "Simit"),
    ("V-CAY", "Çay"),
    ("V-KAZAK", "Kırmızı kazak"),
    ("V-ATKI", "Atkı"),
];

fn items(dice: &mut Dice) -> Vec<ItemPush> {
    let n = dice.below(4);
    (0..n)
        .map(|position| {
            let price = match dice.below(5) {
                0 => None,
                p => Some(format!("{}.{:02}", p * 7, dice.below(100))),
            };
            let (variant_id, name) = if dice.below(3) == 0 {
                // A typed-in item, spaces and all: grouped by its trimmed name.
                (
                    None,
                    Some((*dice.pick(&[" Kahve", "Kahve ", "Su"])).to_owned()),
                )
            } else {
                let (v, name) = *dice.pick(&VARIANTS);
                (Some(v.to_owned()), Some(name.to_owned()))
            };
            ItemPush {
                position: i32::try_from(position).expect("a small position"),
                name,
                variant_id,
                unit_price: price,
                quantity: i64::try_from(dice.below(3) + 1).expect("a small quantity"),
            }
        })
        .collect()
}

/// Links over 2026-11-20..24 (UTC) from three desks, every kind the report tells apart. Each
/// is a list of observations in the order its desk saw them (a link paid later was first
/// pushed pending; a cancel or the member's mark may arrive after the link).
fn histories(count: u32) -> Vec<Vec<Seen>> {
    let mut dice = Dice(0x9e37_79b9_7f4a_7c15);
    let start = at("2026-11-20T00:00:00Z");
    (0..count)
        .map(|n| {
            // Any millisecond of the five days: near midnights of every zone too.
            let offset_ms = i64::try_from(dice.below(5 * 86_400_000)).expect("fits");
            let stored_at = start + Duration::milliseconds(offset_ms);
            let currency = if dice.below(3) == 0 {
                Currency::Usd
            } else {
                Currency::Try
            };
            let amount = (dice.below(15) != 0)
                .then(|| Decimal::new(i64::try_from(dice.below(90_000) + 100).expect("fits"), 2));
            let whole = amount.unwrap_or_default();
            let half = (whole / Decimal::TWO).round_dp(2);
            let minutes = |m: i64| Duration::minutes(m);
            let mut seen = Seen {
                desk: DESKS[usize::try_from(dice.below(3)).expect("a small index")],
                id: format!("L{n:05}"),
                staff: *dice.pick(&[Some("Ayşe"), Some("Berk"), Some("ayşe"), None]),
                status: LinkStatus::Pending,
                currency,
                amount,
                paid: Decimal::ZERO,
                cancelled_at: None,
                stored_at,
                observed_at: stored_at,
                expiry: None,
                completed: None,
                items: items(&mut dice),
            };
            let first = seen.clone();
            let mut later: Vec<Seen> = Vec::new();
            match dice.below(12) {
                // Pending: expiring within the hour, in days, at a random time, or never.
                0 => seen.expiry = Some(stored_at + minutes(60)),
                1 => seen.expiry = Some(stored_at + Duration::days(3)),
                2 => {
                    let m = i64::try_from(dice.below(4 * 24 * 60)).expect("fits");
                    seen.expiry = Some(stored_at + minutes(m));
                }
                3 => seen.expiry = None,
                // Paid in full, with the server's completion time, or without (the desk's
                // observation time then tells the hour).
                4 | 5 => {
                    seen.status = LinkStatus::Completed;
                    seen.paid = whole;
                    seen.expiry = Some(stored_at + Duration::days(1));
                    let m = i64::try_from(dice.below(600)).expect("fits");
                    seen.observed_at = stored_at + minutes(m + 1);
                    if dice.below(2) == 0 {
                        seen.completed = Some(stored_at + minutes(m));
                    }
                }
                // Partly paid and still payable, until some time or without an expiry.
                6 => {
                    seen.paid = half.max(Decimal::new(1, 2));
                    let m = i64::try_from(dice.below(4 * 24 * 60)).expect("fits");
                    seen.expiry = (dice.below(4) != 0).then(|| stored_at + minutes(m));
                    seen.observed_at = stored_at + minutes(5);
                    seen.completed = Some(stored_at + minutes(4));
                }
                // Partly paid, then expired.
                7 => {
                    seen.status = LinkStatus::Expired;
                    seen.paid = half.max(Decimal::new(1, 2));
                    seen.expiry = Some(stored_at + minutes(90));
                    seen.observed_at = stored_at + minutes(95);
                }
                // Expired with nothing paid.
                8 => {
                    seen.status = LinkStatus::Expired;
                    seen.expiry = Some(stored_at + minutes(30));
                }
                // Cancelled through paydesk: nothing paid, or partly paid before.
                9 => {
                    seen.status = LinkStatus::Expired;
                    seen.expiry = Some(stored_at + Duration::days(2));
                    seen.cancelled_at = Some(stored_at + minutes(10));
                    if dice.below(3) == 0 {
                        seen.paid = half.max(Decimal::new(1, 2));
                        seen.status = LinkStatus::Pending;
                    }
                }
                // Under review, rejected, or a status this paydesk does not know.
                10 => seen.status = LinkStatus::UnderReview,
                _ => {
                    seen.status = if dice.below(2) == 0 {
                        LinkStatus::Rejected
                    } else {
                        LinkStatus::from_wire("ON_HOLD")
                    };
                }
            }
            let mut pending = first.clone();
            pending.expiry = seen.expiry;
            if seen.status != LinkStatus::Pending || seen.paid > Decimal::ZERO {
                // First seen pending, then the newer observation.
                later.push(pending.clone());
            }
            if seen.cancelled_at.is_some() && dice.below(2) == 0 {
                // The cancel arrives on its own, after the link.
                let mut uncancelled = seen.clone();
                uncancelled.cancelled_at = None;
                later.push(uncancelled);
            }
            if seen.staff.is_some() && dice.below(4) == 0 {
                // The member's mark arrives after the link (staff turned on meanwhile).
                let mut nobody = later.first().cloned().unwrap_or_else(|| seen.clone());
                nobody.staff = None;
                later.insert(0, nobody);
            }
            later.push(seen);
            later
        })
        .collect()
}

/// Each desk's outbox rows, in its own order, numbered from 1.
fn outboxes(histories: &[Vec<Seen>]) -> Vec<(&'static str, Vec<OutboxRow>)> {
    DESKS
        .iter()
        .map(|desk| {
            let rows = histories
                .iter()
                .flatten()
                .filter(|s| s.desk == *desk)
                .enumerate()
                .map(|(i, s)| OutboxRow {
                    seq: i64::try_from(i + 1).expect("fits"),
                    at: s.observed_at,
                    link: s.push(),
                })
                .collect();
            (*desk, rows)
        })
        .collect()
}

fn fixed(seconds: i32) -> Zone {
    Zone::Fixed(FixedOffset::east_opt(seconds).expect("an offset"))
}

fn day(text: &str) -> NaiveDate {
    text.parse().expect("a date")
}

/// Holds the kept totals to the links for every scope asked: the whole shop and each desk.
async fn compare(shop: &mut shop::Shop, label: &str) -> usize {
    let zones = [
        ("+03:00", fixed(3 * 3600)),
        ("+05:30", fixed(5 * 3600 + 1800)),
    ];
    let ranges = [
        ("2026-11-20", "2026-11-20"),
        ("2026-11-21", "2026-11-21"),
        ("2026-11-22", "2026-11-22"),
        ("2026-11-24", "2026-11-24"),
        ("2026-11-25", "2026-11-25"),
        ("2026-11-21", "2026-11-23"),
        ("2026-11-19", "2026-11-25"),
        // A whole UTC week inside (2026-11-19 is a Thursday, the shop's weeks' first day).
        ("2026-11-18", "2026-11-26"),
    ];
    let nows = [
        at("2026-11-21T09:07:31Z"),
        at("2026-11-22T18:45:00Z"),
        at("2026-11-24T23:59:59.999Z"),
        at("2026-12-20T00:00:00Z"),
    ];
    let mut compared = 0;
    for (zone_name, zone) in zones {
        for (from, to) in ranges {
            for now in nows {
                let mut whole_links = 0;
                for desk in [None, Some(DESKS[0]), Some(DESKS[1]), Some(DESKS[2])] {
                    let scope = ReportScope {
                        from: day(from),
                        to: day(to),
                        zone,
                        now,
                        desk,
                        account: ACCOUNT,
                        viewer: DESKS[0],
                    };
                    let kept = day_report(shop, &scope, String::new())
                        .await
                        .expect("the kept totals");
                    let read = day_report_from_links(shop, &scope)
                        .await
                        .expect("the links");
                    assert_eq!(
                        kept, read,
                        "{label}: {from}..{to} in {zone_name} at {now}, desk {desk:?}"
                    );
                    // Written out the same too: every sum with its currency's decimals.
                    assert_eq!(
                        serde_json::to_string(&kept).expect("JSON"),
                        serde_json::to_string(&read).expect("JSON"),
                        "{label}: {from}..{to} in {zone_name} at {now}, desk {desk:?}"
                    );
                    match desk {
                        None => whole_links = kept.links,
                        Some(_) => whole_links -= kept.links,
                    }
                    compared += 1;
                }
                assert_eq!(whole_links, 0, "the desks' links add up to the shop's");
            }
        }
    }
    compared
}

/// Every desk pushes its outbox in small batches, the desks taking turns.
async fn push_all(shop: &mut shop::Shop, boxes: &[(&'static str, Vec<OutboxRow>)]) {
    let mut cursors = vec![0_usize; boxes.len()];
    loop {
        let mut pushed = false;
        for (i, (desk, rows)) in boxes.iter().enumerate() {
            let from = cursors[i];
            if from < rows.len() {
                let to = (from + 37).min(rows.len());
                shop::push::apply_batch(shop, desk, &rows[from..to])
                    .await
                    .expect("applied");
                cursors[i] = to;
                pushed = true;
            }
        }
        if !pushed {
            break;
        }
    }
}

#[tokio::test]
async fn the_kept_totals_equal_the_report_read_from_the_links() {
    let Some(pg) = pg::cluster() else { return };
    let mut shop = seeded_shop(&pg).await;
    let histories = histories(600);
    let boxes = outboxes(&histories);
    let now = at("2026-11-25T00:00:00Z");
    push_all(&mut shop, &boxes).await;
    let db = shop.url().dbname().to_owned();
    assert_eq!(
        pg.admin_sql(&db, "SELECT count(*) FROM links"),
        histories.len().to_string()
    );
    // The seed holds every kind the report tells apart, money, paid items and each desk's
    // links.
    let kinds = pg.admin_sql(
        &db,
        "SELECT (sum(paid_links) > 0 AND sum(part_links) > 0 AND sum(cancelled) > 0
                 AND sum(expired) > 0 AND sum(other) > 0 AND sum(pending) > 0
                 AND sum(forever) > 0)::text
             || ' ' || (SELECT count(*) > 0 FROM report_money WHERE paid <> 0 AND desk_id = '')
         FROM report_sums WHERE span = 4",
    );
    assert_eq!(kinds, "true true");
    assert_ne!(
        pg.admin_sql(&db, "SELECT count(*) FROM report_items WHERE quantity <> 0"),
        "0"
    );
    let compared = compare(&mut shop, "pushed once").await;
    assert_eq!(compared, 2 * 8 * 4 * 4);
    // A paid link of another account (a desk's built-in sandbox) in the same days: listed
    // shop-wide, never in this account's day close.
    pg.admin_sql(
        &db,
        &format!(
            "INSERT INTO links (base_url, api_key_id, sandbox_desk, link_id, desk_id, status,
                 currency, amount, paid_amount, stored_at, observed_at, answer)
             VALUES ('', '', '{d}', 'sandbox-1', '{d}', 'COMPLETED', 'TRY', 5000, 5000,
                 '2026-11-21T10:00:00Z', '2026-11-21T10:05:00Z',
                 '{{\"id\": \"sandbox-1\", \"status\": \"COMPLETED\"}}')",
            d = DESKS[0]
        ),
    );
    // What was compared is not empty: every link, money in many hours, best sellers.
    let week = ReportScope {
        from: day("2026-11-19"),
        to: day("2026-11-25"),
        zone: fixed(5 * 3600 + 1800),
        now,
        desk: None,
        account: ACCOUNT,
        viewer: DESKS[0],
    };
    let whole = day_report(&mut shop, &week, String::new())
        .await
        .expect("a report");
    assert_eq!(whole.links, histories.len());
    assert_eq!(whole.by_desk.len(), DESKS.len());
    assert!(!whole.top_items.is_empty());
    for c in &whole.currencies {
        let hours = c.collected_by_hour.iter().filter(|t| !t.is_zero()).count();
        assert!(hours > 12, "{:?}: money in {hours} hours", c.currency);
        assert!(c.pending > 0 && c.expired > 0 && c.cancelled > 0, "{c:?}");
        assert!(
            c.paid.count > 0 && c.partially_paid.count > 0 && c.other > 0,
            "{c:?}"
        );
    }

    // Every outbox sent again, in reverse order (a desk restored from a backup, a push
    // resent after a crash): nothing goes back and the totals still hold.
    for (desk, rows) in &boxes {
        let reversed: Vec<OutboxRow> = rows.iter().rev().cloned().collect();
        for chunk in reversed.chunks(101) {
            let changed = shop::push::apply_batch(&mut shop, desk, chunk)
                .await
                .expect("applied");
            assert_eq!(changed, 0, "a replayed push changes nothing");
        }
    }
    compare(&mut shop, "replayed").await;

    // A whole-day report over a zone a few minutes off the quarter-hour reads the links,
    // and says the same as the cells of the neighbouring whole zones add up to.
    let odd = ReportScope {
        from: day("2026-11-20"),
        to: day("2026-11-24"),
        zone: fixed(3 * 3600 + 7 * 60),
        now,
        desk: None,
        account: ACCOUNT,
        viewer: DESKS[0],
    };
    let kept = day_report(&mut shop, &odd, String::new())
        .await
        .expect("a report");
    let read = day_report_from_links(&mut shop, &odd)
        .await
        .expect("a report");
    assert_eq!(kept, read);
}

/// History's totals over the shop's rows: for each filter, what `read::totals` counts equals
/// what walking every page of the same filter adds up to (count, and per currency the amounts
/// and what was paid).
#[tokio::test]
async fn historys_totals_over_the_shop_equal_the_sum_of_its_pages() {
    use paydesk::shop::read::{ShopLink, ShopQuery, page, totals};
    use paydesk::store::{LinkCursor, TimeRange, Total};
    use std::collections::BTreeMap;
    type Sums = (usize, BTreeMap<&'static str, (Decimal, Decimal)>);

    let Some(pg) = pg::cluster() else { return };
    let mut shop = seeded_shop(&pg).await;
    let histories = histories(300);
    for (desk, rows) in outboxes(&histories) {
        shop::push::apply_batch(&mut shop, desk, &rows)
            .await
            .expect("applied");
    }
    // Read as the first desk reads it: its own claims of payment as they are, the other
    // desks' by their last confirmed amounts (none was confirmed here).
    let seen = ShopQuery {
        viewer: DESKS[0].into(),
        ..ShopQuery::default()
    };
    let queries = [
        seen.clone(),
        ShopQuery {
            status: Some(LinkStatus::Pending),
            ..seen.clone()
        },
        ShopQuery {
            staff: Some("Ayşe".into()),
            ..seen.clone()
        },
        // Its own paid links; another desk's unconfirmed ones match no paid filter here.
        ShopQuery {
            desk: Some(DESKS[0].into()),
            status: Some(LinkStatus::Completed),
            ..seen.clone()
        },
        ShopQuery {
            range: Some(TimeRange {
                from: at("2026-11-21T21:00:00Z"),
                to: at("2026-11-23T21:00:00Z"),
            }),
            ..seen.clone()
        },
        ShopQuery {
            text: Some("pd-l000".into()),
            ..seen.clone()
        },
    ];
    let mut nonempty = 0;
    for query in queries {
        // Every page, newest first, 40 at a time.
        let mut walked: Sums = (0, BTreeMap::new());
        let mut before: Option<LinkCursor> = None;
        loop {
            let q = ShopQuery {
                before: before.clone(),
                limit: 40,
                ..query.clone()
            };
            let links = page(&shop, &q).await.expect("a page");
            for l in &links {
                let shown = l.stored("", &q.viewer).link;
                walked.0 += 1;
                let sums = walked.1.entry(l.link.currency.as_str()).or_default();
                sums.0 += shown.amount.unwrap_or_default();
                sums.1 += shown.paid.unwrap_or_default();
            }
            if links.len() < 40 {
                break;
            }
            before = links.last().map(ShopLink::cursor);
        }
        let counted = totals(&mut shop, &query, std::time::Duration::from_secs(5))
            .await
            .expect("counted");
        let mut kept: Sums = (counted.count, BTreeMap::new());
        for t in &counted.by_currency {
            let exact = |total: &Total| match total {
                Total::Exact(d) => *d,
                Total::OutOfRange => panic!("a sum out of range"),
            };
            kept.1
                .insert(t.currency.as_str(), (exact(&t.amount), exact(&t.paid)));
        }
        assert_eq!(kept, walked, "{query:?}");
        nonempty += usize::from(kept.0 > 0);
    }
    assert_eq!(nonempty, 6, "every filter matched some links");
    // Another desk's payments, none confirmed by a second desk, are paid to that desk only.
    let theirs = |viewer: &str| ShopQuery {
        desk: Some(DESKS[1].into()),
        status: Some(LinkStatus::Completed),
        viewer: viewer.into(),
        ..ShopQuery::default()
    };
    let limit = std::time::Duration::from_secs(5);
    let here = totals(&mut shop, &theirs(DESKS[0]), limit).await;
    assert_eq!(here.expect("counted").count, 0);
    let there = totals(&mut shop, &theirs(DESKS[1]), limit).await;
    assert!(there.expect("counted").count > 0);
}

/// A shop that kept its totals as schema step 2 laid them out (`report_cells`) before this
/// paydesk: the step that lays them out again fills them from the links already there, and
/// they equal the links' report as the triggers' would; links pushed after it add to them.
#[tokio::test]
async fn the_totals_a_migration_fills_equal_the_report_read_from_the_links() {
    let Some(pg) = pg::cluster() else { return };
    let before = schema::MIGRATIONS
        .iter()
        .position(|step| *step == schema::REPORT_V2)
        .expect("the step is in the list");
    let before = i32::try_from(before).expect("a few steps");
    let mut shop = seeded_shop_at(&pg, before).await;
    let histories = histories(600);
    let boxes = outboxes(&histories);
    // Half of each desk's outbox before the migration, the rest after it.
    let halves: Vec<_> = boxes
        .iter()
        .map(|(desk, rows)| {
            let (first, second) = rows.split_at(rows.len() / 2);
            ((*desk, first.to_vec()), (*desk, second.to_vec()))
        })
        .collect();
    let (first, second): (Vec<_>, Vec<_>) = halves.into_iter().unzip();
    push_all_as_before(&shop, &first).await;
    let url = shop.url().clone();
    let migrated = schema::migrate(shop.client_mut(), &url)
        .await
        .expect("migrates");
    assert_eq!(migrated.from, before);
    // Each desk registers again when it next connects, which names its login.
    for (i, id) in DESKS.iter().enumerate() {
        let identity = shop::desk::DeskIdentity {
            id: (*id).to_owned(),
            name: format!("Counter {}", i + 1),
            named: true,
        };
        shop::desk::register(&shop, &identity)
            .await
            .expect("the desk is registered");
    }
    let db = url.dbname().to_owned();
    assert_eq!(
        pg.admin_sql(&db, "SELECT to_regclass('report_cells') IS NULL"),
        "t"
    );
    assert_ne!(
        pg.admin_sql(&db, "SELECT count(*) FROM report_money WHERE paid <> 0"),
        "0"
    );
    compare(&mut shop, "filled by the migration").await;
    push_all(&mut shop, &second).await;
    compare(&mut shop, "pushed after the migration").await;
}

/// Writes a `link.send` row of desk `desk` for link `link` at `at_ms` straight into the shop's
/// audit (the chain's hashes are not what this checks; its time is its shop number too).
fn send_row(pg: &Pg, db: &str, (desk, seq): (&str, i64), link: &str, at_ms: i64) {
    pg.admin_sql(
        db,
        &format!(
            "INSERT INTO audit (desk_id, seq, at_ms, staff, approved_by, action, subject,
                 prev_hash, hash, shop_seq, shop_at_ms, shop_prev, shop_hash)
             VALUES ('{desk}', {seq}, {at_ms}, 'Ayşe', NULL, 'link.send',
                 '{link} whatsapp 0532 *** ** 67', '', '', {at_ms}, {at_ms}, '', '')"
        ),
    );
}

/// Writes link `link` of desk `desk` (on the built-in sandbox of `sandbox`, '' for a real
/// account) straight into the shop's links.
fn link_row(pg: &Pg, db: &str, desk: &str, sandbox: &str, link: &str) {
    pg.admin_sql(
        db,
        &format!(
            "INSERT INTO links (base_url, api_key_id, sandbox_desk, link_id, desk_id, status,
                 currency, amount, stored_at, observed_at, answer)
             VALUES ('https://api.example', 'key-1', '{sandbox}', '{link}', '{desk}', 'PENDING',
                 'TRY', 10, now(), now(), '{{}}')"
        ),
    );
}

/// Each link's first send as the shop keeps it (step 23), `-` for none.
fn first_sends(pg: &Pg, db: &str) -> String {
    pg.admin_sql(
        db,
        "SELECT string_agg(link_id || '=' || coalesce(first_sent_ms::text, '-'), ' '
             ORDER BY link_id) FROM links",
    )
}

#[tokio::test]
async fn a_links_first_send_is_kept_on_it_whichever_reaches_the_shop_first() {
    let Some(pg) = pg::cluster() else { return };
    let sent_marks = schema::MIGRATIONS
        .iter()
        .position(|step| *step == shop::outreach::SENT_MARKS)
        .expect("the step is in the list");
    let mut shop = seeded_shop_at(&pg, i32::try_from(sent_marks).expect("a few steps")).await;
    let url = shop.url().clone();
    let db = url.dbname().to_owned();
    let [one, two, _] = DESKS;
    // Before the step: a link sent twice, one never sent.
    link_row(&pg, &db, one, "", "L1");
    link_row(&pg, &db, one, "", "L2");
    send_row(&pg, &db, (one, 1), "L1", 5_000);
    send_row(&pg, &db, (two, 1), "L1", 3_000);
    schema::migrate(shop.client_mut(), &url)
        .await
        .expect("migrates");
    assert_eq!(
        first_sends(&pg, &db),
        "L1=3000 L2=-",
        "filled by the migration"
    );
    // After it: a send that reaches the shop before its link, and one after it.
    send_row(&pg, &db, (two, 2), "L3", 7_000);
    link_row(&pg, &db, two, "", "L3");
    link_row(&pg, &db, one, "", "L4");
    send_row(&pg, &db, (one, 2), "L4", 9_000);
    // A later send keeps the first; a send pushed late but made earlier becomes the first.
    send_row(&pg, &db, (two, 3), "L4", 9_500);
    send_row(&pg, &db, (one, 3), "L1", 2_000);
    // Another desk's built-in sandbox link of the same id is not the sender's.
    link_row(&pg, &db, one, one, "L5");
    send_row(&pg, &db, (two, 4), "L5", 11_000);
    assert_eq!(first_sends(&pg, &db), "L1=2000 L2=- L3=7000 L4=9000 L5=-");
    // A sent link paid in full keeps when it was paid, read as the desk reads it: a time
    // without a zone is UTC, whatever the database's zone (this one's is Asia/Kolkata). An
    // unsent paid link keeps none.
    for (link, paid) in [
        ("L1", "1970-01-01T00:00:03Z"),
        ("L2", "1970-01-01T00:00:04Z"),
        ("L3", "1970-01-01T00:00:08"),
    ] {
        pg.admin_sql(
            &db,
            &format!(
                "UPDATE links SET status = 'COMPLETED',
                     answer = jsonb_build_object('completedDate', '{paid}')
                 WHERE link_id = '{link}'"
            ),
        );
    }
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT string_agg(link_id || '=' || coalesce(
                 (extract(epoch FROM sent_paid_at) * 1000)::bigint::text, '-'), ' '
                 ORDER BY link_id) FROM links",
        ),
        "L1=3000 L2=- L3=8000 L4=- L5=-"
    );
}
