//! The shop's day close from PostgreSQL (docs/design.md §8): the same report as one desk's
//! (`store::report`: the buckets, what was issued and is outstanding, the hourly chart, the
//! best sellers, the staff table), over every desk's links or one desk's, plus a table per
//! desk.
//!
//! It adds up the totals the shop keeps as links are written (`report_cells` and
//! `report_items`, schema step 2), per UTC quarter-hour, hour and day of creation: the local
//! days become one UTC range covered by the largest spans that fit (`store::cover`), exactly
//! as the desk does. Only pending cells whose links expire on both sides of the report's time
//! read their links (one bucket each, through `links_by_status`). A range whose ends are not
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
    let tx = shop
        .client_mut()
        .build_transaction()
        .read_only(true)
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .start()
        .await
        .map_err(pg)?;
    let mut sheet = Sheet::default();
    let items = match pieces {
        Some(pieces) => {
            from_totals(&tx, scope, pieces, &mut sheet).await?;
            items_from_totals(&tx, scope, pieces).await?
        }
        None => {
            from_links(&tx, scope, range, &mut sheet).await?;
            items_from_links(&tx, scope, range).await?
        }
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
    column: &str,
    scope: &'a ReportScope<'_>,
    params: Vec<&'a (dyn ToSql + Sync)>,
) -> (String, Vec<&'a (dyn ToSql + Sync)>) {
    let mut params = params;
    match &scope.desk {
        Some(desk) => {
            params.push(desk);
            (format!("{sql} AND {column} = ${}", params.len()), params)
        }
        None => (sql.to_owned(), params),
    }
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

async fn from_totals(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    pieces: &[(usize, i64, i64)],
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    let pg = |e: tokio_postgres::Error| ShopError::Connection(e.to_string());
    let now = ms(scope.now);
    let mut straddling = Vec::new();
    for &(span, first, end) in pieces {
        let span_code = i16::try_from(span).unwrap_or(0);
        let (sql, params) = scoped(
            "SELECT currency, kind, at, links, amount::text, paid::text, expiry_min,
                    expiry_max, bucket, staff, desk_id
             FROM report_cells
             WHERE span = $1 AND bucket >= $2 AND bucket < $3 AND (links <> 0 OR paid <> 0)",
            "desk_id",
            scope,
            vec![&span_code, &first, &end],
        );
        for r in tx.query(&sql, &params).await.map_err(pg)? {
            let cur = currency(r.get(0))?;
            let code: i16 = r.get(1);
            let kind = Kind::from_code(i64::from(code))
                .map_err(|_| unreadable("report kind", &code.to_string()))?;
            let links = usize::try_from(r.get::<_, i64>(3)).unwrap_or(0);
            let amount = total(r.get(4));
            let paid = total(r.get(5));
            let earliest = r.get::<_, Option<i64>>(6).unwrap_or(i64::MAX);
            let latest = r.get::<_, Option<i64>>(7).unwrap_or(i64::MAX);
            let staff: &str = r.get(9);
            let desk: &str = r.get(10);
            let straddles = earliest <= now && now < latest;
            let mut counted = Counted {
                currency: cur,
                kind,
                links,
                amount,
                paid,
                staff,
            };
            let straddle = || Straddling {
                span,
                bucket: r.get(8),
                kind,
                currency: cur,
                staff: staff.to_owned(),
                desk: desk.to_owned(),
            };
            match kind {
                Kind::Collected => {
                    let at = time(r.get::<_, i64>(2) * QUARTER_MS)?;
                    sheet.collect(cur, paid, at, scope.zone);
                }
                Kind::Pending if straddles => straddling.push(straddle()),
                Kind::Pending => {
                    counted.kind = judged(kind, latest, now);
                    sheet.count_at(&counted, desk);
                }
                Kind::PartiallyPaid => {
                    sheet.count_at(&counted, desk);
                    if straddles {
                        straddling.push(straddle());
                    } else if now < earliest {
                        sheet.owe(cur, amount, paid);
                    }
                }
                _ => sheet.count_at(&counted, desk),
            }
        }
    }
    for cell in &straddling {
        read_straddling(tx, cell, now, sheet).await?;
    }
    Ok(())
}

/// Reads the pending links of a cell that straddles the report's time.
async fn read_straddling(
    tx: &Transaction<'_>,
    cell: &Straddling,
    now: i64,
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    let pg = |e: tokio_postgres::Error| ShopError::Connection(e.to_string());
    let length = SPANS[cell.span];
    let from = time(cell.bucket * length)?;
    let to = time((cell.bucket + 1) * length)?;
    let rows = tx
        .query(
            "SELECT amount::text, paid_amount::text, expires_at FROM links
             WHERE status = 'PENDING' AND stored_at >= $1 AND stored_at < $2
                 AND currency = $3 AND coalesce(staff, '') = $4 AND desk_id = $5
                 AND cancelled_at IS NULL",
            &[&from, &to, &cell.currency.as_str(), &cell.staff, &cell.desk],
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
    let pg = |e: tokio_postgres::Error| ShopError::Connection(e.to_string());
    let mut sales: HashMap<(Currency, String), ItemSales> = HashMap::new();
    for &(span, first, end) in pieces {
        let span_code = i16::try_from(span).unwrap_or(0);
        let (sql, params) = scoped(
            "SELECT currency, item, variant_id, name, quantity::text, sum::text, unpriced
             FROM report_items
             WHERE span = $1 AND bucket >= $2 AND bucket < $3 AND quantity <> 0",
            "desk_id",
            scope,
            vec![&span_code, &first, &end],
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
    let pg = |e: tokio_postgres::Error| ShopError::Connection(e.to_string());
    let now = ms(scope.now);
    let (sql, params) = scoped(
        "SELECT currency, status, paid_amount::text, amount::text, cancelled_at IS NOT NULL,
                expires_at, answer->>'completedDate', observed_at, coalesce(staff, ''), desk_id
         FROM links WHERE stored_at >= $1 AND stored_at < $2",
        "desk_id",
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
    let pg = |e: tokio_postgres::Error| ShopError::Connection(e.to_string());
    let (sql, params) = scoped(
        "SELECT l.currency, i.variant_id, btrim(i.name), i.quantity::text,
                (i.unit_price * i.quantity)::text
         FROM links AS l JOIN link_items AS i
             USING (base_url, api_key_id, sandbox_desk, link_id)
         WHERE l.status = 'COMPLETED' AND l.stored_at >= $1 AND l.stored_at < $2",
        "l.desk_id",
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
