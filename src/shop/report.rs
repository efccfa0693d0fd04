//! The shop's day close from PostgreSQL (docs/design.md §8): the same report as one desk's
//! (`store::report`: the buckets, what was issued and is outstanding, the hourly chart, the
//! best sellers, the staff table), over every desk's links or one desk's, plus a table per
//! desk.
//!
//! It adds up the totals the shop keeps as links are written (schema step 8: `report_sums`,
//! `report_money`; step 2's `report_items`), per UTC quarter-hour, hour and day of creation,
//! and for the links a week as well: the local days become one UTC range covered by the
//! largest spans that fit (`store::cover`), as the desk does. PostgreSQL sums the links per
//! desk, member and currency over the pieces in one statement, the money comes from the whole
//! shop's rows (or the desk's), and the four statements of a report go out at once, so a month
//! over ten desks is one round trip of a few hundred rows (docs/benchmarks.md, "The shop at
//! 1,000,000 links"). Only rows whose pending links expire on both sides of the report's time
//! read their links (one bucket each, through `links_by_status`). A range whose ends are not
//! whole quarter-hours (a zone a few minutes off the quarter) reads the links instead, and so
//! does [`day_report_from_links`], the reference the tests hold the totals to. Every report
//! reads one snapshot of the shop (a read-only repeatable-read transaction).

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Row, Transaction};

use super::{Shop, ShopError};
use crate::api::wire::parse_time;
use crate::clock::Zone;
use crate::domain::{Currency, LinkStatus};
use crate::store::{
    ClaimApart, Contradiction, Counted, DayReport, ItemSales, Kind, QUARTER_MS, SPANS, Sheet, Sign,
    TimeRange, Total, add_sale, cover, cover_in, judged, remove_sale, top,
};

/// The best sellers before they are cut to the top: per currency and item key.
type Sales = HashMap<(Currency, String), ItemSales>;

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
    /// The desk reading the report (its device id): its own claims of payment, which its own
    /// calls to the payment API gave it, count as they are; other desks' unconfirmed ones are
    /// counted apart ([`super::confirm::DAY_CLOSE`]).
    pub viewer: &'a str,
}

/// A failed statement: the server's refusal with its SQLSTATE, or a broken connection.
fn db_error(e: tokio_postgres::Error) -> ShopError {
    match e.as_db_error() {
        Some(db) => ShopError::Database {
            code: db.code().code().to_owned(),
            message: db.message().to_owned(),
        },
        None => ShopError::Connection(e),
    }
}

fn unreadable(what: &str, value: &str) -> ShopError {
    ShopError::Unreadable(format!("{what} `{value}`"))
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

/// The spans of `report_sums` (schema step 8), its code the index: the desk's quarter-hour, hour
/// and day, three hours (a day's edge in UTC+3 is one or seven of them, not 3 or 21 hours) and
/// a week of 7 UTC days counted from 1970-01-01 (a Thursday), so that a month reads mostly
/// weeks. The money and the best sellers are kept in the desk's three ([`SPANS`]).
const SUM_SPANS: [i64; 5] = [SPANS[0], SPANS[1], 3 * SPANS[1], SPANS[2], 7 * SPANS[2]];

/// The pieces of a report's range: for `report_sums` (in [`SUM_SPANS`]) and for the money and
/// the best sellers (in [`SPANS`]).
struct Pieces {
    sums: Vec<(usize, i64, i64)>,
    spans: Vec<(usize, i64, i64)>,
}

impl Pieces {
    /// `None` when the range's ends are not whole quarter-hours.
    fn of(range: TimeRange) -> Option<Self> {
        let (from, to) = (ms(range.from), ms(range.to));
        Some(Self {
            sums: cover_in(&SUM_SPANS, from, to)?,
            spans: cover(from, to)?,
        })
    }
}

/// The report of the scope's days, from the kept totals where the range allows.
pub async fn day_report(
    shop: &mut Shop,
    scope: &ReportScope<'_>,
    audit_head: String,
) -> Result<DayReport, ShopError> {
    report(shop, scope, audit_head, true).await
}

/// The same report read from the links themselves, whatever the zone: what the kept totals
/// must always add up to (the reference of the tests, with no desk's audit head).
pub async fn day_report_from_links(
    shop: &mut Shop,
    scope: &ReportScope<'_>,
) -> Result<DayReport, ShopError> {
    report(shop, scope, String::new(), false).await
}

/// The desks' names, for the table per desk.
const DESK_NAMES_SQL: &str = "SELECT desk_id, name FROM desks";

/// The report of the scope's days: from the kept totals when `kept` and the range allows (its
/// ends are whole quarter-hours), else from the links.
async fn report(
    shop: &mut Shop,
    scope: &ReportScope<'_>,
    audit_head: String,
    kept: bool,
) -> Result<DayReport, ShopError> {
    let range = TimeRange::days(scope.from, scope.to, scope.zone);
    let pieces = Pieces::of(range).filter(|_| kept);
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| ShopError::from_pg(e, &url);
    let tx = shop.snapshot().await.map_err(pg)?;
    let mut sheet = Sheet::default();
    // The sends and the audit head go out with the totals' statements, so the server reads
    // them while this side adds the totals up (one connection: they run one after another).
    let counted = async {
        let (mut sales, names) = if let Some(pieces) = &pieces {
            from_totals(&tx, scope, range, pieces, &mut sheet).await?
        } else {
            from_links(&tx, scope, range, &mut sheet).await?;
            let items = items_from_links(&tx, scope, range).await?;
            let names = tx.query(DESK_NAMES_SQL, &[]).await.map_err(pg)?;
            (items, names)
        };
        let names: HashMap<String, String> = names.iter().map(|r| (r.get(0), r.get(1))).collect();
        let claims = claims_apart(&tx, scope, range, &names, (&mut sheet, &mut sales)).await?;
        Ok::<_, ShopError>((sales, names, claims))
    };
    let head = tx.query_opt(
        "SELECT shop_hash FROM audit ORDER BY shop_seq DESC LIMIT 1",
        &[],
    );
    let (counted, sent, head) = tokio::join!(counted, sent_of(&tx, scope, range), head);
    let (sales, names, claims) = counted?;
    let sent = sent?;
    let shop_head: Option<String> = head.map_err(pg)?.map(|r| r.get(0));
    tx.commit().await.map_err(pg)?;
    let mut report = sheet.into_report(
        (scope.from, scope.to, range, scope.zone),
        top(sales),
        audit_head,
        &names,
    );
    report.claims_apart = claims;
    report.sent = sent;
    report.shop_audit_head = Some(shop_head.unwrap_or_else(|| crate::store::AUDIT_SEED.to_owned()));
    Ok(report)
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

/// A row of kept totals whose links expire on both sides of the report's time: its pending
/// links are counted one by one, and what its partly paid links still wait for is read from
/// them.
struct Straddling {
    span: usize,
    bucket: i64,
    currency: Currency,
    staff: String,
    desk: String,
    /// Its pending links are to be counted from the links.
    pending: bool,
    /// What its partly paid links wait for is to be read from the links.
    partly: bool,
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

/// The rows of `table` in the pieces, one `SELECT {columns}` per piece joined by `UNION ALL`,
/// each `account = $1` and `{desk}` (a condition on `$2`, or nothing): each piece reads one
/// range of its span's buckets, and of `report_sums` and `report_money` only the span's
/// partition. The numbers are the code's own, written into the statement.
fn in_pieces(table: &str, columns: &str, desk: &str, pieces: &[(usize, i64, i64)]) -> String {
    let arms: Vec<String> = pieces
        .iter()
        .map(|(span, first, end)| {
            format!(
                "SELECT {columns} FROM {table} WHERE span = {span} AND account = $1 {desk}
                     AND bucket >= {first} AND bucket < {end}"
            )
        })
        .collect();
    if arms.is_empty() {
        // An empty range: the statement still has its columns, and no row.
        return format!("SELECT {columns} FROM {table} WHERE false AND account = $1 {desk}");
    }
    arms.join("\n UNION ALL ")
}

/// What a report reads of `report_sums`: per desk, member and currency, each kind summed over
/// the pieces, the pending links judged at `now` (Unix ms) from the earliest and latest
/// expiry of each row, and a row whose links expire on both sides of `now` in a group of its
/// own (its span and bucket given) for its links to be read. Columns: desk, staff, currency,
/// paid in full (links, paid), partly paid (links, paid), cancelled, expired (with the pending
/// ones that have), other, pending (links, what they wait for), the rest of what was issued
/// (the amounts but those of the pending links and of the pending links to be read), what
/// partly paid links still payable wait for
/// (amount, paid; NULL when none), then the straddling row's span and bucket (NULL for the
/// others) and whether its pending and its partly paid links straddle. `$1` the account,
/// `$2` the desk when `desk`.
#[must_use]
pub fn sums_sql(pieces: &[(usize, i64, i64)], now: i64, desk: bool) -> String {
    let desk = if desk { "AND desk_id = $2" } else { "" };
    let rows = in_pieces(
        "report_sums",
        "span, bucket, desk_id, staff, currency, amount, paid_links, paid, part_links,
             part_amount, part_paid, part_min, part_max, cancelled, expired, other, pending,
             pending_amount, pending_min, pending_max, forever, forever_amount",
        &format!(
            "{desk} AND (paid_links, part_links, cancelled, expired, other, pending, forever)
                 <> (0, 0, 0, 0, 0, 0, 0)"
        ),
        pieces,
    );
    format!(
        "SELECT desk_id, staff, currency,
             sum(paid_links)::bigint, sum(paid)::text, sum(part_links)::bigint,
             sum(part_paid)::text, sum(cancelled)::bigint,
             (sum(expired) + coalesce(sum(pending) FILTER (WHERE gone), 0))::bigint,
             sum(other)::bigint,
             (sum(forever) + coalesce(sum(pending) FILTER (WHERE ahead), 0))::bigint,
             (sum(forever_amount) + coalesce(sum(pending_amount) FILTER (WHERE ahead), 0))::text,
             (sum(amount) - sum(forever_amount)
                 - coalesce(sum(pending_amount) FILTER (WHERE straddles OR ahead), 0))::text,
             (sum(part_amount) FILTER (WHERE owed))::text,
             (sum(part_paid) FILTER (WHERE owed))::text,
             straddling_span, straddling_bucket, bool_or(straddles), bool_or(part_straddles)
         FROM (SELECT *,
                   CASE WHEN straddles OR part_straddles THEN span END AS straddling_span,
                   CASE WHEN straddles OR part_straddles THEN bucket END AS straddling_bucket
               FROM (SELECT *,
                         pending_max <= {now} AS gone,
                         {now} < pending_min AS ahead,
                         pending <> 0 AND pending_min <= {now} AND {now} < pending_max
                             AS straddles,
                         {now} < part_min AS owed,
                         part_links <> 0 AND part_min <= {now} AND {now} < part_max
                             AS part_straddles
                     FROM ({rows}) AS r) AS j) AS c
         GROUP BY desk_id, staff, currency, straddling_span, straddling_bucket"
    )
}

/// What a report reads of `report_money`: the rows of the pieces for the desk `$2` (`''`: the
/// whole shop's rows), `$1` the account. Columns: currency, the UTC day the money came in,
/// its 96 quarter-hour sums as text.
#[must_use]
pub fn money_sql(pieces: &[(usize, i64, i64)]) -> String {
    in_pieces(
        "report_money",
        "currency, at, by_quarter::text",
        "AND desk_id = $2 AND paid <> 0",
        pieces,
    )
}

/// What a report reads of `report_items`: per currency and item over the pieces, `$1` the
/// account, `$2` the desk when `desk`.
fn items_sql(pieces: &[(usize, i64, i64)], desk: bool) -> String {
    let desk = if desk { "AND desk_id = $2" } else { "" };
    let rows = in_pieces(
        "report_items",
        "currency, item, variant_id, name, quantity, sum, unpriced",
        &format!("{desk} AND quantity <> 0"),
        pieces,
    );
    format!(
        "SELECT currency, item, min(variant_id), min(name), sum(quantity)::text,
             sum(sum)::text, sum(unpriced)::bigint
         FROM ({rows}) AS r
         GROUP BY currency, item"
    )
}

/// The report's statements over the kept totals, as [`day_report`] sends them for `scope`
/// (for `EXPLAIN`): what each reads and its SQL; `$1` is the account, `$2` the desk (`''` for
/// the money of the whole shop). `None` when the range is read from the links.
#[must_use]
pub fn statements(scope: &ReportScope<'_>) -> Option<Vec<(&'static str, String)>> {
    let range = TimeRange::days(scope.from, scope.to, scope.zone);
    let pieces = Pieces::of(range)?;
    let desk = scope.desk.is_some();
    Some(vec![
        (
            "links by desk, member and currency (report_sums)",
            sums_sql(&pieces.sums, ms(scope.now), desk),
        ),
        ("money collected (report_money)", money_sql(&pieces.spans)),
        (
            "best sellers (report_items)",
            items_sql(&pieces.spans, desk),
        ),
    ])
}

/// A text parameter.
fn text_param<'a>(value: &'a &'a str) -> (&'a (dyn ToSql + Sync), Type) {
    (value, Type::TEXT)
}

/// Adds up the kept totals of the pieces, and reads the best sellers and the desks' names in
/// the same go: the four statements are sent at once (tokio-postgres pipelines them on the
/// connection), so the report costs the snapshot's `BEGIN`, one round trip and its `COMMIT`
/// (and a read per straddling row, near the report's time only). PostgreSQL sums the links
/// per desk, member and currency over the pieces ([`sums_sql`]), so a month reads one row per
/// week or day (and edge hour) of each, and returns some hundred; the money collected comes
/// from the whole shop's rows, or the desk's, and is added up per local hour when the zone's
/// offset holds over the whole range, else per UTC quarter-hour.
async fn from_totals(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    range: TimeRange,
    pieces: &Pieces,
    sheet: &mut Sheet,
) -> Result<(Sales, Vec<Row>), ShopError> {
    let pg = db_error;
    let now = ms(scope.now);
    let whole_shop = "";
    let desk = scope.desk.unwrap_or(whole_shop);
    let account = text_param(&scope.account);
    let by_desk = [account, text_param(&desk)];
    let scoped = if scope.desk.is_some() {
        &by_desk[..]
    } else {
        &by_desk[..1]
    };
    let sums = sums_sql(&pieces.sums, now, scope.desk.is_some());
    let money = money_sql(&pieces.spans);
    let items = items_sql(&pieces.spans, scope.desk.is_some());
    let (sums, money, items, names) = tokio::try_join!(
        tx.query_typed(&sums, scoped),
        tx.query_typed(&money, &by_desk),
        tx.query_typed(&items, scoped),
        tx.query_typed(DESK_NAMES_SQL, &[]),
    )
    .map_err(pg)?;
    let mut straddling = Vec::new();
    for r in &sums {
        add_sums(r, sheet, &mut straddling)?;
    }
    collected(
        &money,
        steady_offset(scope.zone, range),
        range,
        scope.zone,
        sheet,
    )?;
    read_straddling(tx, &straddling, (now, scope.account), sheet).await?;
    Ok((items_from_rows(&items)?, names))
}

/// Counts one row of [`sums_sql`], and keeps it in `straddling` when its links are to be read.
fn add_sums(r: &Row, sheet: &mut Sheet, straddling: &mut Vec<Straddling>) -> Result<(), ShopError> {
    let desk: &str = r.get(0);
    let staff: &str = r.get(1);
    let cur = currency(r.get(2))?;
    let links = |i: usize| usize::try_from(r.get::<_, i64>(i)).unwrap_or(0);
    let zero = Total::zero(cur);
    let counted = [
        (Kind::Paid, links(3), zero, Total::of_sum(r.get(4))),
        (Kind::PartiallyPaid, links(5), zero, Total::of_sum(r.get(6))),
        (Kind::Cancelled, links(7), zero, zero),
        (Kind::Expired, links(8), zero, zero),
        (Kind::Other, links(9), zero, zero),
        // What pending links wait for is their amount.
        (Kind::Pending, links(10), Total::of_sum(r.get(11)), zero),
        // The amounts issued but the pending links', added once (no link of its own). Kinds
        // without links add nothing: a sum of none would only lose its currency's decimals.
        (Kind::Other, 0, Total::of_sum(r.get(12)), zero),
    ];
    for (kind, links, amount, paid) in counted {
        if links == 0 && amount.is_zero() {
            continue;
        }
        sheet.count_at(
            &Counted {
                currency: cur,
                kind,
                links,
                amount,
                paid,
                staff,
            },
            desk,
        );
    }
    if let (Some(amount), Some(paid)) = (r.get::<_, Option<&str>>(13), r.get::<_, Option<&str>>(14))
    {
        sheet.owe(cur, Total::of_sum(amount), Total::of_sum(paid));
    }
    if let (Some(span), Some(bucket)) = (r.get::<_, Option<i16>>(15), r.get::<_, Option<i64>>(16)) {
        straddling.push(Straddling {
            span: usize::try_from(span).unwrap_or(0),
            bucket,
            currency: cur,
            staff: staff.to_owned(),
            desk: desk.to_owned(),
            pending: r.get::<_, Option<bool>>(17).unwrap_or(false),
            partly: r.get::<_, Option<bool>>(18).unwrap_or(false),
        });
    }
    Ok(())
}

/// Adds up the money of [`money_sql`]'s rows: each holds one UTC day's money per quarter-hour
/// (`by_quarter`), added here per local hour when the zone's offset holds over the whole range
/// (`offset`, in minutes), else per quarter-hour.
fn collected(
    rows: &[Row],
    offset: Option<i64>,
    range: TimeRange,
    zone: Zone,
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    const QUARTERS_A_DAY: i64 = 96;
    // Money per currency and slot: the local hour, or the UTC quarter-hour number.
    let mut slots: HashMap<(Currency, i64), Total> = HashMap::new();
    for r in rows {
        let cur = currency(r.get(0))?;
        let day: i64 = r.get(1);
        let quarters: &str = r.get(2);
        let quarters = quarters.trim_start_matches('{').trim_end_matches('}');
        for (q, text) in (0_i64..).zip(quarters.split(',')) {
            if text == "NULL" {
                continue;
            }
            let paid = Total::of_sum(text);
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
        sheet.collect(cur, paid, at, zone);
    }
    Ok(())
}

/// The pending links of the rows that straddle the report's time, all in one statement: `$1`
/// and `$2` each row's bucket (its start and end), `$3` its currency, `$4` its member, `$5` its
/// desk, `$6` the account. Columns: the row's place in the arrays (from 1), the link's amount,
/// paid amount and expiry.
const STRADDLING_SQL: &str = "SELECT c.i, l.amount::text, l.paid_amount::text, l.expires_at
     FROM unnest($1::timestamptz[], $2::timestamptz[], $3::text[], $4::text[], $5::text[])
             WITH ORDINALITY AS c (from_at, to_at, currency, staff, desk_id, i)
         JOIN links AS l ON l.status = 'PENDING' AND l.stored_at >= c.from_at
             AND l.stored_at < c.to_at AND l.currency = c.currency
             AND coalesce(l.staff, '') = c.staff AND l.desk_id = c.desk_id
     WHERE l.cancelled_at IS NULL
         AND paydesk_account(l.base_url, l.api_key_id, l.sandbox_desk) = $6";

/// Reads the pending links of the rows that straddle the report's time (one statement for
/// them all): each row's pending links counted one by one (judged at `now`), and what its
/// partly paid links still payable wait for.
async fn read_straddling(
    tx: &Transaction<'_>,
    cells: &[Straddling],
    (now, account): (i64, &str),
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    if cells.is_empty() {
        return Ok(());
    }
    let pg = db_error;
    let mut froms = Vec::with_capacity(cells.len());
    let mut tos = Vec::with_capacity(cells.len());
    for cell in cells {
        let length = SUM_SPANS[cell.span];
        froms.push(time(cell.bucket * length)?);
        tos.push(time((cell.bucket + 1) * length)?);
    }
    let currencies: Vec<&str> = cells.iter().map(|c| c.currency.as_str()).collect();
    let staff: Vec<&str> = cells.iter().map(|c| c.staff.as_str()).collect();
    let desks: Vec<&str> = cells.iter().map(|c| c.desk.as_str()).collect();
    let rows = tx
        .query_typed(
            STRADDLING_SQL,
            &[
                (&froms, Type::TIMESTAMPTZ_ARRAY),
                (&tos, Type::TIMESTAMPTZ_ARRAY),
                (&currencies, Type::TEXT_ARRAY),
                (&staff, Type::TEXT_ARRAY),
                (&desks, Type::TEXT_ARRAY),
                (&account, Type::TEXT),
            ],
        )
        .await
        .map_err(pg)?;
    for r in rows {
        let place = usize::try_from(r.get::<_, i64>(0)).unwrap_or(0);
        let Some(cell) = place.checked_sub(1).and_then(|i| cells.get(i)) else {
            return Err(unreadable("straddling row", &place.to_string()));
        };
        let amount = Total::of_sum(r.get::<_, Option<&str>>(1).unwrap_or("0"));
        let paid_text: &str = r.get(2);
        let paid = Total::of_sum(paid_text);
        let is_paid = Decimal::from_str_exact(paid_text).is_ok_and(|p| p > Decimal::ZERO);
        let expiry = r
            .get::<_, Option<DateTime<Utc>>>(3)
            .map_or(i64::MAX, |t| t.timestamp_millis());
        if cell.pending && !is_paid && expiry != i64::MAX {
            sheet.count_at(
                &Counted::link(
                    cell.currency,
                    judged(Kind::Pending, expiry, now),
                    (amount, paid),
                    &cell.staff,
                ),
                &cell.desk,
            );
        } else if cell.partly && is_paid && now < expiry {
            sheet.owe(cell.currency, amount, paid);
        }
    }
    Ok(())
}

/// The best sellers of [`items_sql`]'s rows.
fn items_from_rows(rows: &[Row]) -> Result<Sales, ShopError> {
    let mut sales: HashMap<(Currency, String), ItemSales> = HashMap::new();
    for r in rows {
        let cur = currency(r.get(0))?;
        let quantity = whole_quantity(r.get(4));
        add_sale(
            &mut sales,
            (cur, r.get(1)),
            r.get(2),
            r.get(3),
            quantity,
            (r.get::<_, i64>(6) == 0).then(|| Total::of_sum(r.get(5))),
        );
    }
    Ok(sales)
}

/// The report read from the links of `range`.
async fn from_links(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    range: TimeRange,
    sheet: &mut Sheet,
) -> Result<(), ShopError> {
    let pg = db_error;
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
        let amount = Total::of_sum(r.get::<_, Option<&str>>(3).unwrap_or("0"));
        let cancelled: bool = r.get(4);
        let expiry = r
            .get::<_, Option<DateTime<Utc>>>(5)
            .map_or(i64::MAX, |t| t.timestamp_millis());
        let staff: &str = r.get(8);
        let desk: &str = r.get(9);
        let kind = judged(Kind::of(Some(status), paid, cancelled), expiry, now);
        sheet.count_at(
            &Counted::link(cur, kind, (amount, paid.into()), staff),
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

/// The links of a range sent to their payers in it (by any desk: a link's first send, which
/// `outreach::SENT_MARKS` keeps on it), and of them those paid in full after that send (read
/// by `sent_of`; public for the shop bench's `EXPLAIN`): one range of the partial index
/// `links_sent` (schema step 23), counted in PostgreSQL. A link's status counts as the report
/// counts it: another desk's unconfirmed claim of payment (the viewer `$6`'s own counts) by
/// its last confirmed status. Parameters: the account's base URL, key id and sandbox desk,
/// the range in milliseconds (from, to), the viewing desk, the desk scoped to (or `NULL` for
/// the whole shop), and the range as times (from, to).
pub const SENT_SQL: &str = "SELECT count(*), count(*) FILTER (WHERE
             CASE WHEN l.confirmed_status IS NULL OR l.claim_desk = $6 THEN l.status
                  ELSE l.confirmed_status END = 'COMPLETED'
             AND l.sent_paid_at > to_timestamp(l.first_sent_ms / 1000.0))
     FROM links AS l
     WHERE l.first_sent_ms IS NOT NULL AND l.stored_at >= $8 AND l.stored_at < $9
         AND l.first_sent_ms >= $4 AND l.first_sent_ms < $5
         AND l.base_url = $1 AND l.api_key_id = $2 AND l.sandbox_desk = $3
         AND ($7::text IS NULL OR l.desk_id = $7)";

/// The links of the scope's `range` sent to their payers, and how many were paid after it
/// (see `store::Sent`): one statement, a range of the index of the sent links ([`SENT_SQL`]).
async fn sent_of(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    range: TimeRange,
) -> Result<crate::store::Sent, ShopError> {
    let Some(account) = super::lease::Account::from_key(scope.account) else {
        return Err(unreadable("account", scope.account));
    };
    let (from, to) = (ms(range.from), ms(range.to));
    let row = tx
        .query_one(
            SENT_SQL,
            &[
                &account.base_url,
                &account.api_key_id,
                &account.sandbox_desk,
                &from,
                &to,
                &scope.viewer,
                &scope.desk,
                &range.from,
                &range.to,
            ],
        )
        .await
        .map_err(db_error)?;
    let count = |i: usize| usize::try_from(row.get::<_, i64>(i)).unwrap_or(0);
    Ok(crate::store::Sent {
        links: count(0),
        paid_after: count(1),
    })
}

/// The best sellers read from the items of the paid links of `range`.
async fn items_from_links(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    range: TimeRange,
) -> Result<Sales, ShopError> {
    let pg = db_error;
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
        let key = sale_key(variant.as_deref(), name.as_deref());
        let quantity = whole_quantity(r.get(3));
        let line = r.get::<_, Option<&str>>(4).map(Total::of_sum);
        add_sale(&mut sales, (cur, key), variant, name, quantity, line);
    }
    Ok(sales)
}

/// A decimal of the shop (`numeric::text`).
fn decimal(text: &str) -> Result<Decimal, ShopError> {
    Decimal::from_str_exact(text).map_err(|_| unreadable("amount", text))
}

/// Counts apart, in `sheet` and the best sellers `sales`, the payments of the report's range
/// that no second desk confirmed: each such link of another desk than the viewer, and any
/// the payment API contradicted, moves from its claimed status back to its last confirmed
/// one (what it was counted as by the kept totals or the links is taken back out, as the
/// links' own reading counts a link), and is listed, by order number.
async fn claims_apart(
    tx: &Transaction<'_>,
    scope: &ReportScope<'_>,
    range: TimeRange,
    names: &HashMap<String, String>,
    (sheet, sales): (&mut Sheet, &mut Sales),
) -> Result<Vec<ClaimApart>, ShopError> {
    let rows = tx
        .query(
            "SELECT * FROM paydesk_report_claims($1, $2, $3, $4)",
            &[&range.from, &range.to, &scope.account, &scope.desk],
        )
        .await
        .map_err(db_error)?;
    let now = ms(scope.now);
    let name_of = |desk: &str| names.get(desk).cloned().unwrap_or_else(|| desk.to_owned());
    let mut apart = Vec::new();
    for r in &rows {
        let claim_desk: &str = r.get(10);
        let contradicted_by: Option<&str> = r.get(15);
        if claim_desk == scope.viewer && contradicted_by.is_none() {
            continue;
        }
        let cur = currency(r.get(4))?;
        let desk: &str = r.get(2);
        let staff: &str = r.get(3);
        let amount = Total::of_sum(r.get(5));
        let claimed: &str = r.get(6);
        let claimed_paid = decimal(r.get(7))?;
        let confirmed: &str = r.get(8);
        let confirmed_paid = decimal(r.get(9))?;
        let cancelled: bool = r.get(11);
        let expiry = r
            .get::<_, Option<DateTime<Utc>>>(12)
            .map_or(i64::MAX, |t| t.timestamp_millis());
        let money_at: DateTime<Utc> = r.get(13);
        for (status, paid, sign) in [
            (claimed, claimed_paid, Sign::Out),
            (confirmed, confirmed_paid, Sign::In),
        ] {
            let kind = judged(Kind::of(Some(status), paid, cancelled), expiry, now);
            sheet.tally_at(
                &Counted::link(cur, kind, (amount, paid.into()), staff),
                desk,
                sign,
            );
            let owed = kind == Kind::PartiallyPaid
                && !cancelled
                && status == LinkStatus::Pending.as_str()
                && now < expiry;
            let (signed_amount, signed_paid) = match sign {
                Sign::In => (amount, Total::from(paid)),
                Sign::Out => (-amount, -Total::from(paid)),
            };
            if owed {
                sheet.owe(cur, signed_amount, signed_paid);
            }
            if paid > Decimal::ZERO {
                sheet.collect(cur, signed_paid, money_at, scope.zone);
            }
        }
        if claimed == LinkStatus::Completed.as_str() && confirmed != claimed {
            take_back_items(sales, cur, r.get(14))?;
        }
        sheet.apart(cur, (claimed_paid - confirmed_paid).into());
        apart.push(ClaimApart {
            link_id: r.get(0),
            order_number: r.get(1),
            claimed_by: name_of(claim_desk),
            currency: cur,
            claimed_status: LinkStatus::from_wire(claimed),
            claimed_paid: claimed_paid.into(),
            confirmed_status: LinkStatus::from_wire(confirmed),
            confirmed_paid: confirmed_paid.into(),
            contradicted: match contradicted_by {
                Some(by) => Some(Contradiction {
                    by: name_of(by),
                    status: LinkStatus::from_wire(r.get(16)),
                    paid: decimal(r.get(17))?.into(),
                }),
                None => None,
            },
        });
    }
    Ok(apart)
}

/// The links of the scope's days whose payment a desk other than the viewer claims, that no
/// second desk confirmed and none contradicted: what the viewer's own calls to the payment API
/// may confirm before its day close is read (at most `limit`, by order number).
pub async fn claims_of_others(
    shop: &Shop,
    scope: &ReportScope<'_>,
    limit: usize,
) -> Result<Vec<String>, ShopError> {
    let range = TimeRange::days(scope.from, scope.to, scope.zone);
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = shop
        .client()
        .query(
            "SELECT link_id FROM paydesk_report_claims($1, $2, $3, $4)
             WHERE claim_desk <> $5 AND contradicted_by IS NULL LIMIT $6",
            &[
                &range.from,
                &range.to,
                &scope.account,
                &scope.desk,
                &scope.viewer,
                &limit,
            ],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Takes the items of a link no longer counted as paid (`items`: the JSON of
/// `paydesk_report_claims`) out of the best sellers.
fn take_back_items(sales: &mut Sales, cur: Currency, items: &str) -> Result<(), ShopError> {
    type Line = (Option<String>, Option<String>, String, Option<String>);
    let lines: Vec<Line> = serde_json::from_str(items).map_err(|_| unreadable("items", items))?;
    for (variant, name, quantity, sum) in lines {
        let key = sale_key(variant.as_deref(), name.as_deref());
        let quantity = whole_quantity(&quantity);
        remove_sale(
            sales,
            &(cur, key),
            quantity,
            sum.as_deref().map(Total::of_sum),
        );
    }
    Ok(())
}

/// The best sellers' key of a line, as `report_items` keys it: `v:` the catalog variant, else
/// `n:` the name sent.
fn sale_key(variant: Option<&str>, name: Option<&str>) -> String {
    match variant {
        Some(v) => format!("v:{v}"),
        None => format!("n:{}", name.unwrap_or_default()),
    }
}

/// A line's quantity (`numeric::text`) as whole items; 0 when it is not one.
fn whole_quantity(text: &str) -> u64 {
    Decimal::from_str_exact(text)
        .ok()
        .and_then(|q| u64::try_from(q).ok())
        .unwrap_or(0)
}
