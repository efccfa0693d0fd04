//! The shop's day close from PostgreSQL (docs/design.md §8): the same report as one desk's
//! (`store::report`: the buckets, what was issued and is outstanding, the hourly chart, the
//! best sellers, the staff table), over every desk's links or one desk's, plus a table per
//! desk.
//!
//! It adds up the totals the shop keeps as links are written (`report_cells` and
//! `report_items`, schema step 2), per UTC quarter-hour, hour and day of creation: the local
//! days become one UTC range covered by the largest spans that fit (`store::cover`), exactly
//! as the desk does. PostgreSQL sums each piece's cells per currency, kind, member and desk
//! (and the money collected per local hour), so a month over ten desks reads a few hundred
//! rows instead of tens of thousands (docs/benchmarks.md, "The shop at 1,000,000 links").
//! Only pending cells whose links expire on both sides of the report's time read their links
//! (one bucket each, through `links_by_status`). A range whose ends are not
//! whole quarter-hours (a zone a few minutes off the quarter) reads the links instead, and so
//! does [`day_report_from_links`], the reference the tests hold the totals to. Every report
//! reads one snapshot of the shop (a read-only repeatable-read transaction).

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use tokio_postgres::Transaction;
use tokio_postgres::types::ToSql;

use super::{Shop, ShopError};
use crate::api::wire::parse_time;
use crate::clock::Zone;
use crate::domain::{Currency, LinkStatus};
use crate::store::{
    Counted, DayReport, ItemSales, Kind, QUARTER_MS, SPANS, Sheet, TimeRange, Total, cover, judged,
    top,
};

/// What a shop report covers.
#[derive(Debug, Clone, Copy)]
pub struct ReportScope<'a> {
    /// The first local day.
    pub from: NaiveDate,
    /// The last local day (included).
    pub to: NaiveDate,
    /// The zone the days are read in.
    pub zone: Zone,
    /// The time pending links are judged at.
    pub now: DateTime<Utc>,
    /// Only this desk's links (its device id); `None`: the whole shop.
    pub desk: Option<&'a str>,
    /// The account reported on ([`super::lease::Account::key`]): the open profile's, as a
    /// desk's own report is its profile's.
    pub account: &'a str,
}

/// A failed statement: the server's refusal with its SQLSTATE, or a broken connection.
fn db_error(e: &tokio_postgres::Error) -> ShopError {
    match e.as_db_error() {
        Some(db) => ShopError::Database {
            code: db.code().code().to_owned(),
            message: db.message().to_owned(),
        },
        None => ShopError::Connection(e.to_string()),
    }
}

fn unreadable(what: &str, value: &str) -> ShopError {
    ShopError::Unreadable(format!("{what} `{value}`"))
}

/// A sum as PostgreSQL wrote it; one too large for a `Decimal` is out of range.
fn total(text: &str) -> Total {
    Decimal::from_str_exact(text).map_or(Total::OutOfRange, Total::Exact)
}

fn currency(text: &str) -> Result<Currency, ShopError> {
    text.parse().map_err(|_| unreadable("currency", text))
}

fn ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn time(ms: i64) -> Result<DateTime<Utc>, ShopError> {
    DateTime::from_timestamp_millis(ms).ok_or_else(|| unreadable("time", &ms.to_string()))
}

/// The report of the scope's days, from the kept totals where the range allows.
pub async fn day_report(
    shop: &mut Shop,
    scope: &ReportScope<'_>,
    audit_head: String,
) -> Result<DayReport, ShopError> {
    let range = TimeRange::days(scope.from, scope.to, scope.zone);
    match cover(ms(range.from), ms(range.to)) {
        Some(pieces) => report(shop, scope, range, audit_head, Some(&pieces)).await,
        None => report(shop, scope, range, audit_head, None).await,
    }
}

/// The same report read from the links themselves, whatever the zone: what the kept totals
/// must always add up to.
pub async fn day_report_from_links(
    shop: &mut Shop,
    scope: &ReportScope<'_>,
    audit_head: String,
) -> Result<DayReport, ShopError> {
    let range = TimeRange::days(scope.from, scope.to, scope.zone);
    report(shop, scope, range, audit_head, None).await
}

async fn report(
    shop: &mut Shop,
    scope: &ReportScope<'_>,
    range: TimeRange,
    audit_head: String,
    pieces: Option<&[(usize, i64, i64)]>,
) -> Result<DayReport, ShopError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(&e, &url);
    let tx = shop.snapshot().await.map_err(pg)?;
    let mut sheet = Sheet::default();
    let items = if let Some(pieces) = pieces {
        from_totals(&tx, scope, range, pieces, &mut sheet).await?;
        items_from_totals(&tx, scope, pieces).await?
    } else {
        from_links(&tx, scope, range, &mut sheet).await?;
        items_from_links(&tx, scope, range).await?
    };
    let names: HashMap<String, String> = tx
        .query("SELECT desk_id, name FROM desks", &[])
        .await
        .map_err(pg)?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    tx.commit().await.map_err(pg)?;
    Ok(sheet.into_report(
        (scope.from, scope.to, range, scope.zone),
        items,
        audit_head,
        &names,
    ))
}

/// `sql` with `AND {column} = $n` for the scope's desk, and its parameters.
fn scoped<'a>(
    sql: &str,
    prefix: &str,
    scope: &'a ReportScope<'_>,
    params: Vec<&'a (dyn ToSql + Sync)>,
) -> (String, Vec<&'a (dyn ToSql + Sync)>) {
    let mut params = params;
    params.push(&scope.account);
    let mut sql = format!(
        "{sql} AND paydesk_account({prefix}base_url, {prefix}api_key_id, {prefix}sandbox_desk) = ${}",
        params.len()
    );
    if let Some(desk) = &scope.desk {
        params.push(desk);
        sql = format!("{sql} AND {prefix}desk_id = ${}", params.len());
    }
    (sql, params)
}

/// A pending cell whose links expire on both sides of the report's time.
struct Straddling {
    span: usize,
    bucket: i64,
    kind: Kind,
    currency: Currency,
    staff: String,
    desk: String,
}

/// The zone's offset in whole minutes when it is the same over all of `range` (sampled at
/// every 24 hours from its start and at its last instant: a zone never changes its offset and
/// back within a day), else `None`.
fn steady_offset(zone: Zone, range: TimeRange) -> Option<i64> {
    let first = zone.offset_at(range.from).local_minus_utc();
    if first % 60 != 0 {
        return None;
    }
    let mut t = range.from;
    while t < range.to {
        if zone.offset_at(t).local_minus_utc() != first {
            return None;
        }
        t += chrono::Duration::days(1);
    }
    let last = range.to - chrono::Duration::milliseconds(1);
    (zone.offset_at(last).local_minus_utc() == first).then_some(i64::from(first / 60))
}

/// `AND account = $n`, and `AND desk_id = $m` for the scope's desk (pushed onto `params`).
fn desk_filter<'a>(scope: &'a ReportScope<'_>, params: &mut Vec<&'a (dyn ToSql + Sync)>) -> String {
    params.push(&scope.account);
    let account = format!("AND account = ${}", params.len());
    match &scope.desk {
        Some(desk) => {
            params.push(desk);
            format!("{account} AND desk_id = ${}", params.len())
        }
        None => account,
    }
}

/// Adds up the kept cells of the pieces. PostgreSQL sums them per currency, kind, member and
/// desk over each piece's buckets, so a month reads a few hundred rows, not a row per day,
/// desk, member and kind: pending and partly paid cells are summed apart by whether their
/// links all expire after the report's time or all before, and a cell whose links expire on
/// both sides stays alone (its bucket kept) for its links to be read. The money collected is
/// summed per local hour when the zone's offset holds over the whole range, else per UTC
/// quarter-hour.
async fn from_totals(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    range: TimeRange,
    pieces: &[(usize, i64, i64)],
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    let pg = |e: tokio_postgres::Error| db_error(&e);
    let now = ms(scope.now);
    let offset = steady_offset(scope.zone, range);
    let mut straddling = Vec::new();
    for &(span, first, end) in pieces {
        let span_code = i16::try_from(span).unwrap_or(0);
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&span_code, &first, &end, &now];
        let desk = desk_filter(scope, &mut params);
        let sql = format!(
            "SELECT currency, kind, sum(links)::bigint, sum(amount)::text, sum(paid)::text,
                    min(expiry_min), max(expiry_max), straddling, staff, desk_id
             FROM (SELECT currency, kind, links, amount, paid, expiry_min, expiry_max, staff,
                          desk_id,
                          CASE WHEN kind IN (1, 4) AND expiry_min <= $4 AND $4 < expiry_max
                               THEN bucket END AS straddling,
                          kind IN (1, 4) AND $4 < expiry_min AS ahead
                   FROM report_cells
                   WHERE span = $1 AND bucket >= $2 AND bucket < $3 AND kind <> 6
                       AND (links <> 0 OR paid <> 0) {desk}) AS c
             GROUP BY currency, kind, staff, desk_id, straddling, ahead"
        );
        for r in tx.query(&sql, &params).await.map_err(pg)? {
            let cur = currency(r.get(0))?;
            let code: i16 = r.get(1);
            let kind = Kind::from_code(i64::from(code))
                .map_err(|_| unreadable("report kind", &code.to_string()))?;
            let links = usize::try_from(r.get::<_, i64>(2)).unwrap_or(0);
            let amount = total(r.get(3));
            let paid = total(r.get(4));
            let earliest = r.get::<_, Option<i64>>(5).unwrap_or(i64::MAX);
            let latest = r.get::<_, Option<i64>>(6).unwrap_or(i64::MAX);
            let bucket: Option<i64> = r.get(7);
            let staff: &str = r.get(8);
            let desk: &str = r.get(9);
            let mut counted = Counted {
                currency: cur,
                kind,
                links,
                amount,
                paid,
                staff,
            };
            let straddle = |bucket: i64| Straddling {
                span,
                bucket,
                kind,
                currency: cur,
                staff: staff.to_owned(),
                desk: desk.to_owned(),
            };
            match (kind, bucket) {
                (Kind::Pending, Some(bucket)) => straddling.push(straddle(bucket)),
                (Kind::Pending, None) => {
                    counted.kind = judged(kind, latest, now);
                    sheet.count_at(&counted, desk);
                }
                (Kind::PartiallyPaid, bucket) => {
                    sheet.count_at(&counted, desk);
                    if let Some(bucket) = bucket {
                        straddling.push(straddle(bucket));
                    } else if now < earliest {
                        sheet.owe(cur, amount, paid);
                    }
                }
                _ => sheet.count_at(&counted, desk),
            }
        }
        collected(tx, scope, (span_code, first, end), offset, range, sheet).await?;
    }
    for cell in &straddling {
        read_straddling(tx, cell, (now, scope.account), sheet).await?;
    }
    Ok(())
}

/// The money collected on the links of one piece: each collected cell holds one UTC day's
/// money per quarter-hour (`by_quarter`), added up here per local hour when the zone's offset
/// holds over the whole range (`offset`, in minutes), else per quarter-hour.
async fn collected(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    (span, first, end): (i16, i64, i64),
    offset: Option<i64>,
    range: TimeRange,
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    const QUARTERS_A_DAY: i64 = 96;
    let pg = |e: tokio_postgres::Error| db_error(&e);
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&span, &first, &end];
    let desk = desk_filter(scope, &mut params);
    let sql = format!(
        "SELECT currency, at, by_quarter::text FROM report_cells
         WHERE span = $1 AND bucket >= $2 AND bucket < $3 AND kind = 6 AND paid <> 0 {desk}"
    );
    // Money per currency and slot: the local hour, or the UTC quarter-hour number.
    let mut slots: HashMap<(Currency, i64), Total> = HashMap::new();
    for r in tx.query(&sql, &params).await.map_err(pg)? {
        let cur = currency(r.get(0))?;
        let day: i64 = r.get(1);
        let quarters: &str = r.get(2);
        let quarters = quarters.trim_start_matches('{').trim_end_matches('}');
        for (q, text) in (0_i64..).zip(quarters.split(',')) {
            let paid = total(text);
            if paid.is_zero() {
                continue;
            }
            let quarter = day * QUARTERS_A_DAY + q;
            let slot = match offset {
                // Whole minutes since 1970, local, then the hour of the day.
                Some(minutes) => (quarter * (QUARTER_MS / 60_000) + minutes)
                    .div_euclid(60)
                    .rem_euclid(24),
                None => quarter,
            };
            let sum = slots.entry((cur, slot)).or_insert_with(|| Total::zero(cur));
            *sum += paid;
        }
    }
    for ((cur, slot), paid) in slots {
        // With a steady offset, the first day's start plus `slot` hours is that local hour.
        let at = match offset {
            Some(_) => range.from + chrono::Duration::hours(slot),
            None => time(slot * QUARTER_MS)?,
        };
        sheet.collect(cur, paid, at, scope.zone);
    }
    Ok(())
}

/// Reads the pending links of a cell that straddles the report's time.
async fn read_straddling(
    tx: &Transaction<'_>,
    cell: &Straddling,
    (now, account): (i64, &str),
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    let pg = |e: tokio_postgres::Error| db_error(&e);
    let length = SPANS[cell.span];
    let from = time(cell.bucket * length)?;
    let to = time((cell.bucket + 1) * length)?;
    let rows = tx
        .query(
            "SELECT amount::text, paid_amount::text, expires_at FROM links
             WHERE status = 'PENDING' AND stored_at >= $1 AND stored_at < $2
                 AND currency = $3 AND coalesce(staff, '') = $4 AND desk_id = $5
                 AND cancelled_at IS NULL
                 AND paydesk_account(base_url, api_key_id, sandbox_desk) = $6",
            &[
                &from,
                &to,
                &cell.currency.as_str(),
                &cell.staff,
                &cell.desk,
                &account,
            ],
        )
        .await
        .map_err(pg)?;
    for r in rows {
        let amount = total(r.get::<_, Option<&str>>(0).unwrap_or("0"));
        let paid_text: &str = r.get(1);
        let paid = total(paid_text);
        let is_paid = Decimal::from_str_exact(paid_text).is_ok_and(|p| p > Decimal::ZERO);
        let expiry = r
            .get::<_, Option<DateTime<Utc>>>(2)
            .map_or(i64::MAX, |t| t.timestamp_millis());
        match cell.kind {
            Kind::Pending if !is_paid && expiry != i64::MAX => sheet.count_at(
                &Counted {
                    currency: cell.currency,
                    kind: judged(Kind::Pending, expiry, now),
                    links: 1,
                    amount,
                    paid,
                    staff: &cell.staff,
                },
                &cell.desk,
            ),
            Kind::PartiallyPaid if is_paid && now < expiry => {
                sheet.owe(cell.currency, amount, paid);
            }
            _ => {}
        }
    }
    Ok(())
}

async fn items_from_totals(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    pieces: &[(usize, i64, i64)],
) -> Result<Vec<ItemSales>, ShopError> {
    let pg = |e: tokio_postgres::Error| db_error(&e);
    let mut sales: HashMap<(Currency, String), ItemSales> = HashMap::new();
    for &(span, first, end) in pieces {
        let span_code = i16::try_from(span).unwrap_or(0);
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&span_code, &first, &end];
        let desk = desk_filter(scope, &mut params);
        // Summed over the piece's buckets and desks: one row per item and currency.
        let sql = format!(
            "SELECT currency, item, min(variant_id), min(name), sum(quantity)::text,
                    sum(sum)::text, sum(unpriced)::bigint
             FROM report_items
             WHERE span = $1 AND bucket >= $2 AND bucket < $3 AND quantity <> 0 {desk}
             GROUP BY currency, item"
        );
        for r in tx.query(&sql, &params).await.map_err(pg)? {
            let cur = currency(r.get(0))?;
            let quantity: &str = r.get(4);
            let quantity = Decimal::from_str_exact(quantity)
                .ok()
                .and_then(|q| u64::try_from(q).ok())
                .unwrap_or(0);
            add_sale(
                &mut sales,
                (cur, r.get(1)),
                r.get(2),
                r.get(3),
                quantity,
                (r.get::<_, i64>(6) == 0).then(|| total(r.get(5))),
            );
        }
    }
    Ok(top(sales))
}

/// Adds a line (or a cell of lines) to the best sellers; `sum` `None`: a price unknown.
fn add_sale(
    sales: &mut HashMap<(Currency, String), ItemSales>,
    key: (Currency, String),
    variant: Option<String>,
    name: Option<String>,
    quantity: u64,
    sum: Option<Total>,
) {
    let currency = key.0;
    let entry = sales.entry(key).or_insert_with(|| ItemSales {
        currency,
        name: name.or_else(|| variant.clone()).unwrap_or_default(),
        variant_id: variant,
        quantity: 0,
        sum: Some(Total::zero(currency)),
    });
    entry.quantity = entry.quantity.saturating_add(quantity);
    entry.sum = entry.sum.zip(sum).map(|(a, b)| a + b);
}

/// The report read from the links of `range`.
async fn from_links(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    range: TimeRange,
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    let pg = |e: tokio_postgres::Error| db_error(&e);
    let now = ms(scope.now);
    let (sql, params) = scoped(
        "SELECT currency, status, paid_amount::text, amount::text, cancelled_at IS NOT NULL,
                expires_at, answer->>'completedDate', observed_at, coalesce(staff, ''), desk_id
         FROM links WHERE stored_at >= $1 AND stored_at < $2",
        "",
        scope,
        vec![&range.from, &range.to],
    );
    for r in tx.query(&sql, &params).await.map_err(pg)? {
        let cur = currency(r.get(0))?;
        let status: &str = r.get(1);
        let paid_text: &str = r.get(2);
        let paid = Decimal::from_str_exact(paid_text).map_err(|_| unreadable("paid", paid_text))?;
        let amount = total(r.get::<_, Option<&str>>(3).unwrap_or("0"));
        let cancelled: bool = r.get(4);
        let expiry = r
            .get::<_, Option<DateTime<Utc>>>(5)
            .map_or(i64::MAX, |t| t.timestamp_millis());
        let staff: &str = r.get(8);
        let desk: &str = r.get(9);
        let kind = match Kind::of(Some(status), paid, cancelled) {
            Kind::Pending => judged(Kind::Pending, expiry, now),
            kind => kind,
        };
        sheet.count_at(
            &Counted {
                currency: cur,
                kind,
                links: 1,
                amount,
                paid: paid.into(),
                staff,
            },
            desk,
        );
        if kind == Kind::PartiallyPaid
            && !cancelled
            && status == LinkStatus::Pending.as_str()
            && now < expiry
        {
            sheet.owe(cur, amount, paid.into());
        }
        if paid > Decimal::ZERO {
            let when = match r.get::<_, Option<&str>>(6).and_then(parse_time) {
                Some(t) => t,
                None => r.get(7),
            };
            sheet.collect(cur, paid.into(), when, scope.zone);
        }
    }
    Ok(())
}

/// The best sellers read from the items of the paid links of `range`.
async fn items_from_links(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    range: TimeRange,
) -> Result<Vec<ItemSales>, ShopError> {
    let pg = |e: tokio_postgres::Error| db_error(&e);
    let (sql, params) = scoped(
        "SELECT l.currency, i.variant_id, btrim(i.name), i.quantity::text,
                (i.unit_price * i.quantity)::text
         FROM links AS l JOIN link_items AS i
             USING (base_url, api_key_id, sandbox_desk, link_id)
         WHERE l.status = 'COMPLETED' AND l.stored_at >= $1 AND l.stored_at < $2",
        "l.",
        scope,
        vec![&range.from, &range.to],
    );
    let mut sales = HashMap::new();
    for r in tx.query(&sql, &params).await.map_err(pg)? {
        let cur = currency(r.get(0))?;
        let variant: Option<String> = r.get(1);
        let name: Option<String> = r.get(2);
        let key = match &variant {
            Some(v) => format!("v:{v}"),
            None => format!("n:{}", name.as_deref().unwrap_or_default()),
        };
        let quantity: &str = r.get(3);
        let quantity = Decimal::from_str_exact(quantity)
            .ok()
            .and_then(|q| u64::try_from(q).ok())
            .unwrap_or(0);
        let line = r.get::<_, Option<&str>>(4).map(total);
        add_sale(&mut sales, (cur, key), variant, name, quantity, line);
    }
    Ok(top(sales))
}
