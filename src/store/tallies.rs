//! Report totals kept as links are stored, so that a report over a month reads a few hundred
//! rows of totals instead of every link of the month.
//!
//! A link's *share* of a report is what the day report would take from it: its currency, its
//! bucket (paid, partially paid, cancelled, expired, pending, other; see [`super::report`]),
//! what was paid on it and the quarter-hour the money came in, its expiry while it is pending,
//! and, once paid, its items. Every write to a link or to its items reads the link's share
//! before and after the write, in the write's transaction, and adds the difference to two
//! tables of sums (migration 6):
//!
//! - `report_cells`: per profile, span, bucket, currency, *kind*, status and staff member
//!   (migration 8), the number of
//!   links, the sum of their amounts and the sum paid on them (History's totals line adds up
//!   the same cells). The kinds are the report's buckets plus *collected*, whose cells are
//!   further split by the UTC day the money came in (`at`) and hold its sums by quarter-hour of
//!   that day (`by_quarter`), for the report's hourly chart in any zone.
//! - `report_items`: per profile, span, bucket, currency and item (catalog variant or name),
//!   the quantity sold on paid links and its sum.
//!
//! Each link is counted three times over, in the cell of the UTC quarter-hour, of the UTC
//! hour and of the UTC day it was created in (the *spans*). A report over local days turns
//! them into one UTC range, whose ends are local midnights and so whole quarter-hours in every
//! zone in use today, and covers it with the largest aligned spans that fit ([`cover`]): a
//! month in UTC+3 is 3 hours, 30 days and 21 hours. A report whose range is not made of
//! quarter-hours (a zone a few minutes off the quarter, as local mean time was before 1900)
//! reads the links themselves instead, which gives the same report.
//!
//! One part of a report cannot be kept: whether a pending link has expired depends on the
//! time of the report. A pending cell keeps the earliest and the latest expiry of the links
//! ever added to it (links without a readable expiry, which never expire, have a cell of their
//! own, `at` = 1). At report time, a cell whose latest expiry has passed is all expired, one
//! whose earliest has not is all pending, and only a cell that straddles the time of the report
//! has its pending links read (links created in one quarter-hour, hour or day around now).
//!
//! Sums are exact decimals, stored as text and added in Rust with checked arithmetic: a sum
//! that does not fit a `Decimal` is stored as out of range (`overflow`, see [`Total`] and
//! [`TotalsChange::write`]). [`rebuild`] computes every
//! total from the links themselves; the tests hold the kept totals to it after every kind of
//! write.
//!
//! A write this module does not see would leave the totals wrong for good, so the file says
//! when they cannot be trusted (`meta.report_totals`, see migration 6): triggers mark them
//! `stale` on every write to `links` or `link_items`, and a [`TotalsChange`] written in the same
//! transaction marks them `fresh` again if they were fresh when its transaction began. While
//! they are stale, reports read the links ([`fresh`]); opening the store computes them again
//! ([`Store::rebuild_totals_if_stale`](super::Store::rebuild_totals_if_stale)).

use std::collections::{BTreeMap, HashMap};

use rusqlite::{Connection, OptionalExtension, Transaction, params, params_from_iter};
use rust_decimal::Decimal;

use super::total::Total;
use super::{StoreError, parse_decimal, read_currency};
use crate::api::wire::parse_time;
use crate::domain::{Currency, LinkStatus};

const MINUTE_MS: i64 = 60_000;
/// A quarter-hour, the finest span and the step of the collected times, in milliseconds.
pub(crate) const QUARTER_MS: i64 = 15 * MINUTE_MS;
/// A day, in milliseconds.
pub(crate) const DAY_MS: i64 = 24 * 60 * MINUTE_MS;
/// The spans every link is counted in, finest first: a UTC quarter-hour, hour and day.
pub(crate) const SPANS: [i64; 3] = [QUARTER_MS, 60 * MINUTE_MS, DAY_MS];

/// A span's stored code: its index in [`SPANS`].
pub(crate) fn span_code(span: usize) -> i64 {
    i64::try_from(span).unwrap_or(0)
}

/// Which part of a report a link counts in (the report's buckets), and the collected money.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// Status COMPLETED.
    Paid,
    /// Not completed, something paid.
    PartiallyPaid,
    /// Cancelled through paydesk, nothing paid.
    Cancelled,
    /// Status EXPIRED, nothing paid, not cancelled here.
    Expired,
    /// Status PENDING, nothing paid, not cancelled here: expired or pending at report time.
    Pending,
    /// Anything else.
    Other,
    /// Not a bucket: the money paid on links, by the day and quarter-hour it came in.
    Collected,
}

impl Kind {
    /// The report's bucket of a link (before the pending ones are split by their expiry).
    pub(crate) fn of(status: Option<&str>, paid: Decimal, cancelled: bool) -> Kind {
        if status == Some(LinkStatus::Completed.as_str()) {
            Kind::Paid
        } else if paid > Decimal::ZERO {
            Kind::PartiallyPaid
        } else if cancelled {
            Kind::Cancelled
        } else if status == Some(LinkStatus::Pending.as_str()) {
            Kind::Pending
        } else if status == Some(LinkStatus::Expired.as_str()) {
            Kind::Expired
        } else {
            Kind::Other
        }
    }

    /// The stored code.
    pub(crate) fn code(self) -> i64 {
        match self {
            Kind::Paid => 0,
            Kind::PartiallyPaid => 1,
            Kind::Cancelled => 2,
            Kind::Expired => 3,
            Kind::Pending => 4,
            Kind::Other => 5,
            Kind::Collected => 6,
        }
    }

    /// The kind of a stored code.
    pub(crate) fn from_code(code: i64) -> Result<Kind, StoreError> {
        Ok(match code {
            0 => Kind::Paid,
            1 => Kind::PartiallyPaid,
            2 => Kind::Cancelled,
            3 => Kind::Expired,
            4 => Kind::Pending,
            5 => Kind::Other,
            6 => Kind::Collected,
            _ => {
                return Err(StoreError::Corrupt {
                    what: "report total kind",
                    value: code.to_string(),
                });
            }
        })
    }
}

/// When a pending link expires, in Unix milliseconds; `i64::MAX` (never) when its expiry is
/// missing or unreadable, as the report reads it.
pub(crate) fn expiry_millis(expiry: Option<&str>) -> i64 {
    expiry
        .and_then(parse_time)
        .map_or(i64::MAX, |t| t.timestamp_millis())
}

/// One item line of a paid link.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ItemShare {
    /// The catalog variant, else the name sent (trimmed): what the report groups by.
    key: String,
    variant_id: Option<String>,
    name: Option<String>,
    quantity: i64,
    /// Unit price × quantity; `None` when the price is not known here.
    line: Option<Total>,
}

/// What one link adds to the kept totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Share {
    created_at: i64,
    currency: Currency,
    kind: Kind,
    /// The status as stored (`""` for none).
    status: String,
    /// Its amount (zero when unknown).
    amount: Decimal,
    /// What was paid on it.
    paid: Decimal,
    /// When the money came in (completion, else the last update), when something was paid.
    collected_at: Option<i64>,
    /// Its expiry, for a pending link, and for a partially paid one that can still be paid
    /// (0 when it cannot: cancelled here, or not `PENDING`).
    expiry: i64,
    /// The staff member who began it (`""`: nobody known).
    staff: String,
    /// Its items, for a paid link.
    items: Vec<ItemShare>,
}

/// The columns a share is computed from, in this order.
const SHARE_COLUMNS: &str = "profile, id, created_at, currency, status, paid_amount,
    expiry_date, completed_date, updated_at, cancelled_at, amount, staff";

/// A link's share from a row of [`SHARE_COLUMNS`], its items read from `link_items` when paid.
fn share_from_row(conn: &Connection, r: &rusqlite::Row<'_>) -> Result<Share, StoreError> {
    let created_at: i64 = r.get(2)?;
    let currency = r
        .get::<_, Option<String>>(3)?
        .as_deref()
        .map(read_currency)
        .transpose()?
        .unwrap_or_default();
    let status: Option<String> = r.get(4)?;
    let paid = match r.get_ref(5)?.as_str_or_null().ok().flatten() {
        Some(p) => parse_decimal(p, "link paid amount")?,
        None => Decimal::ZERO,
    };
    let cancelled = r.get::<_, Option<i64>>(9)?.is_some();
    let kind = Kind::of(status.as_deref(), paid, cancelled);
    let payable_partly = kind == Kind::PartiallyPaid
        && !cancelled
        && status.as_deref() == Some(LinkStatus::Pending.as_str());
    let expiry = if kind == Kind::Pending || payable_partly {
        expiry_millis(r.get::<_, Option<String>>(6)?.as_deref())
    } else {
        0
    };
    let collected_at = if paid > Decimal::ZERO {
        let completed: Option<String> = r.get(7)?;
        Some(match completed.as_deref().and_then(parse_time) {
            Some(t) => t.timestamp_millis(),
            None => r.get(8)?,
        })
    } else {
        None
    };
    let items = if kind == Kind::Paid {
        let profile: String = r.get(0)?;
        let id: String = r.get(1)?;
        items_of(conn, &profile, &id)?
    } else {
        Vec::new()
    };
    let amount = match r.get_ref(10)?.as_str_or_null().ok().flatten() {
        Some(a) => parse_decimal(a, "link amount")?,
        None => Decimal::ZERO,
    };
    Ok(Share {
        created_at,
        currency,
        kind,
        status: status.unwrap_or_default(),
        amount,
        paid,
        collected_at,
        expiry,
        staff: r.get::<_, Option<String>>(11)?.unwrap_or_default(),
        items,
    })
}

/// What the best-selling items are grouped by: the catalog variant, else the name sent
/// (spaces around it ignored).
pub(crate) fn item_key(variant_id: Option<&str>, name: Option<&str>) -> String {
    match variant_id {
        Some(v) => format!("v:{v}"),
        None => format!("n:{}", name.unwrap_or_default().trim()),
    }
}

fn items_of(conn: &Connection, profile: &str, id: &str) -> Result<Vec<ItemShare>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT variant_id, name, unit_price, quantity FROM link_items
         WHERE profile = ?1 AND link_id = ?2 ORDER BY position",
    )?;
    let mut rows = stmt.query(params![profile, id])?;
    let mut items = Vec::new();
    while let Some(r) = rows.next()? {
        let variant_id: Option<String> = r.get(0)?;
        let name: Option<String> = r.get(1)?;
        let price: Option<String> = r.get(2)?;
        let quantity: i64 = r.get(3)?;
        let quantity = quantity.max(0);
        let line = price
            .map(|p| parse_decimal(&p, "item unit price"))
            .transpose()?
            .map(|p| Total::product(p, quantity));
        items.push(ItemShare {
            key: item_key(variant_id.as_deref(), name.as_deref()),
            variant_id,
            name: name.map(|n| n.trim().to_owned()),
            quantity,
            line,
        });
    }
    Ok(items)
}

/// The share of link `id` of `profile` as stored now; `None` when it is not stored.
pub(crate) fn share_of(
    conn: &Connection,
    profile: &str,
    id: &str,
) -> Result<Option<Share>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SHARE_COLUMNS} FROM links WHERE profile = ?1 AND id = ?2"
    ))?;
    let mut rows = stmt.query(params![profile, id])?;
    rows.next()?.map(|r| share_from_row(conn, r)).transpose()
}

/// A cell of `report_cells`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct CellKey {
    profile: String,
    span: usize,
    bucket: i64,
    currency: Currency,
    kind: Kind,
    /// The links' status (`""` for none, and for [`Kind::Collected`]).
    status: String,
    /// The UTC day (Unix ms / [`DAY_MS`]) the money came in, for [`Kind::Collected`].
    at: i64,
    /// The staff member who began the links (`""`: nobody known).
    staff: String,
}

#[derive(Debug, Clone, Default)]
struct Cell {
    links: i64,
    amount: Total,
    paid: Total,
    /// The earliest and latest expiry added (pending cells).
    expiry: Option<(i64, i64)>,
    /// The money by quarter-hour of the day (collected cells).
    by_quarter: BTreeMap<i64, Total>,
    /// Whether a change took a link out (see [`TotalsChange::write`]: an out-of-range sum that
    /// something was taken from is not known any more).
    took_out: bool,
}

impl Cell {
    fn out_of_range(&self) -> bool {
        self.amount == Total::OutOfRange
            || self.paid == Total::OutOfRange
            || self.by_quarter.values().any(|s| *s == Total::OutOfRange)
    }
}

/// Sums by quarter-hour of a day as stored: `quarter:sum` pairs, space separated, without
/// the quarters whose sum is zero (a sum out of range is `overflow`).
pub(crate) fn parse_quarters(text: &str) -> Result<BTreeMap<i64, Total>, StoreError> {
    let corrupt = || StoreError::Corrupt {
        what: "collected sums by quarter-hour",
        value: text.to_owned(),
    };
    text.split_whitespace()
        .map(|pair| {
            let (q, sum) = pair.split_once(':').ok_or_else(corrupt)?;
            let q: i64 = q.parse().map_err(|_| corrupt())?;
            Ok((q, Total::parse_stored(sum, "collected sum")?))
        })
        .collect()
}

fn format_quarters(sums: &BTreeMap<i64, Total>) -> Option<String> {
    let pairs: Vec<String> = sums
        .iter()
        .filter(|(_, sum)| !sum.is_zero())
        .map(|(q, sum)| format!("{q}:{}", sum.stored()))
        .collect();
    (!pairs.is_empty()).then(|| pairs.join(" "))
}

/// A cell of `report_items`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ItemKey {
    profile: String,
    span: usize,
    bucket: i64,
    currency: Currency,
    item: String,
}

#[derive(Debug, Clone, Default)]
struct ItemCell {
    lines: i64,
    quantity: i64,
    sum: Total,
    /// Lines whose price is not known here.
    unpriced: i64,
    variant_id: Option<String>,
    name: Option<String>,
    /// Whether a change took a line out (as [`Cell::took_out`]).
    took_out: bool,
}

fn widen(bounds: Option<(i64, i64)>, other: Option<(i64, i64)>) -> Option<(i64, i64)> {
    match (bounds, other) {
        (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
        (x, None) | (None, x) => x,
    }
}

/// A `report_cells` row as read: links, amount, paid, expiry bounds, sums by quarter-hour.
type StoredCell = (
    i64,
    String,
    String,
    Option<i64>,
    Option<i64>,
    Option<String>,
);
/// A `report_items` row as read: lines, quantity, sum, unpriced lines, variant, name.
type StoredItem = (i64, i64, String, i64, Option<String>, Option<String>);

/// Changes to the kept totals, summed in memory and written once ([`TotalsChange::write`]).
#[derive(Debug, Default)]
pub(crate) struct TotalsChange {
    cells: HashMap<CellKey, Cell>,
    items: HashMap<ItemKey, ItemCell>,
    /// Whether the totals were fresh before this transaction's first tracked write (read
    /// then, so that the write's own `stale` mark is not mistaken for another writer's).
    fresh_before: Option<bool>,
}

/// The `meta` key that says whether the kept totals can be trusted.
const STATE_KEY: &str = "report_totals";

/// Whether the kept totals can be trusted (see the module docs).
pub(crate) fn fresh(conn: &Connection) -> Result<bool, StoreError> {
    let state: Option<String> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([STATE_KEY], |r| r.get(0))
        .optional()?;
    Ok(state.as_deref() == Some("fresh"))
}

fn mark_stale(conn: &Connection) -> Result<(), StoreError> {
    conn.prepare_cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, 'stale')")?
        .execute([STATE_KEY])?;
    Ok(())
}

fn mark_fresh(conn: &Connection) -> Result<(), StoreError> {
    conn.prepare_cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, 'fresh')")?
        .execute([STATE_KEY])?;
    Ok(())
}

impl TotalsChange {
    /// Records that a link's share went from `before` to `after`.
    pub(crate) fn change(&mut self, profile: &str, before: Option<&Share>, after: Option<&Share>) {
        if before == after {
            return;
        }
        if let Some(s) = before {
            self.add(profile, s, -1);
        }
        if let Some(s) = after {
            self.add(profile, s, 1);
        }
    }

    fn add(&mut self, profile: &str, s: &Share, sign: i64) {
        let signed = |d: Decimal| Total::Exact(if sign < 0 { -d } else { d });
        for (span, length) in SPANS.iter().enumerate() {
            let bucket = s.created_at.div_euclid(*length);
            let key = |kind, status: &str, at| CellKey {
                profile: profile.to_owned(),
                span,
                bucket,
                currency: s.currency,
                kind,
                status: status.to_owned(),
                at,
                staff: s.staff.clone(),
            };
            // Pending links that never expire have a cell of their own, so that a cell of
            // links that do expire can be wholly past its expiries.
            let never = s.kind == Kind::Pending && s.expiry == i64::MAX;
            let cell = self
                .cells
                .entry(key(s.kind, &s.status, i64::from(never)))
                .or_default();
            cell.links += sign;
            cell.took_out |= sign < 0;
            cell.amount += signed(s.amount);
            cell.paid += signed(s.paid);
            if matches!(s.kind, Kind::Pending | Kind::PartiallyPaid) && sign > 0 {
                cell.expiry = widen(cell.expiry, Some((s.expiry, s.expiry)));
            }
            if let Some(at) = s.collected_at {
                let cell = self
                    .cells
                    .entry(key(Kind::Collected, "", at.div_euclid(DAY_MS)))
                    .or_default();
                cell.links += sign;
                cell.took_out |= sign < 0;
                cell.paid += signed(s.paid);
                *cell
                    .by_quarter
                    .entry(at.rem_euclid(DAY_MS) / QUARTER_MS)
                    .or_default() += signed(s.paid);
            }
            for item in &s.items {
                let cell = self
                    .items
                    .entry(ItemKey {
                        profile: profile.to_owned(),
                        span,
                        bucket,
                        currency: s.currency,
                        item: item.key.clone(),
                    })
                    .or_default();
                cell.lines += sign;
                cell.took_out |= sign < 0;
                cell.quantity += sign * item.quantity;
                match item.line {
                    Some(line) => cell.sum += if sign < 0 { -line } else { line },
                    None => cell.unpriced += sign,
                }
                if sign > 0 {
                    cell.variant_id = cell.variant_id.take().or_else(|| item.variant_id.clone());
                    cell.name = cell.name.take().or_else(|| item.name.clone());
                }
            }
        }
    }

    /// Adds the changes to the stored totals (inside the caller's transaction), and marks
    /// them fresh again when they were fresh before it.
    ///
    /// Sums are added with checked arithmetic; one that does not fit is stored out of range
    /// ([`Total`]). Reached by adding links only, that is what it is (every amount is added in
    /// at some step); but once a link is taken out of an out-of-range sum, what is left is not
    /// known. Such a write leaves the totals stale instead of fresh: reports read the links
    /// (with the same checked sums) until the next open computes the totals again, where only
    /// additions happen.
    // Long on purpose: one transaction's upserts in order, sharing its state.
    #[allow(clippy::too_many_lines)]
    pub(crate) fn write(self, conn: &Connection) -> Result<(), StoreError> {
        let mut unknown = false;
        let mut read = conn.prepare_cached(
            "SELECT links, amount, paid, expiry_min, expiry_max, by_quarter FROM report_cells
             WHERE profile = ?1 AND span = ?2 AND bucket = ?3 AND currency = ?4 AND kind = ?5
                 AND status = ?6 AND at = ?7 AND staff = ?8",
        )?;
        let mut put = conn.prepare_cached(
            "INSERT OR REPLACE INTO report_cells
                 (profile, span, bucket, currency, kind, status, at, staff, links, amount, paid,
                  expiry_min, expiry_max, by_quarter)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )?;
        let mut delete = conn.prepare_cached(
            "DELETE FROM report_cells
             WHERE profile = ?1 AND span = ?2 AND bucket = ?3 AND currency = ?4 AND kind = ?5
                 AND status = ?6 AND at = ?7 AND staff = ?8",
        )?;
        for (k, d) in self.cells {
            if d.links == 0
                && d.amount.is_zero()
                && d.paid.is_zero()
                && d.expiry.is_none()
                && d.by_quarter.values().all(|s| s.is_zero())
            {
                continue;
            }
            let span = span_code(k.span);
            let key = params![
                k.profile,
                span,
                k.bucket,
                k.currency.as_str(),
                k.kind.code(),
                k.status,
                k.at,
                k.staff
            ];
            let stored: Option<StoredCell> = read.query_row(key, |r| r.try_into()).optional()?;
            let mut cell = Cell::default();
            if let Some((links, amount, paid, min, max, by_quarter)) = stored {
                cell.links = links;
                cell.amount = Total::parse_stored(&amount, "report total")?;
                cell.paid = Total::parse_stored(&paid, "report total")?;
                cell.expiry = min.zip(max);
                cell.by_quarter = parse_quarters(by_quarter.as_deref().unwrap_or_default())?;
            }
            cell.links += d.links;
            cell.amount += d.amount;
            cell.paid += d.paid;
            cell.expiry = widen(cell.expiry, d.expiry);
            for (q, sum) in &d.by_quarter {
                *cell.by_quarter.entry(*q).or_default() += *sum;
            }
            if cell.links <= 0 {
                if cell.links < 0 || cell.paid.exact().is_some_and(|p| !p.is_zero()) {
                    tracing::error!(?k, "kept report totals went below zero; dropped the cell");
                }
                delete.execute(key)?;
            } else {
                unknown |= d.took_out && cell.out_of_range();
                let values = params![
                    cell.links,
                    cell.amount.stored(),
                    cell.paid.stored(),
                    cell.expiry.map(|e| e.0),
                    cell.expiry.map(|e| e.1),
                    format_quarters(&cell.by_quarter),
                ];
                put.execute(params_from_iter(key.iter().chain(values)))?;
            }
        }
        let mut read = conn.prepare_cached(
            "SELECT lines, quantity, sum, unpriced, variant_id, name FROM report_items
             WHERE profile = ?1 AND span = ?2 AND bucket = ?3 AND currency = ?4 AND item = ?5",
        )?;
        let mut put = conn.prepare_cached(
            "INSERT OR REPLACE INTO report_items
                 (profile, span, bucket, currency, item, lines, quantity, sum, unpriced,
                  variant_id, name)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?;
        let mut delete = conn.prepare_cached(
            "DELETE FROM report_items
             WHERE profile = ?1 AND span = ?2 AND bucket = ?3 AND currency = ?4 AND item = ?5",
        )?;
        for (k, d) in self.items {
            if d.lines == 0 && d.quantity == 0 && d.sum.is_zero() && d.unpriced == 0 {
                continue;
            }
            let span = span_code(k.span);
            let key = params![k.profile, span, k.bucket, k.currency.as_str(), k.item];
            let stored: Option<StoredItem> = read.query_row(key, |r| r.try_into()).optional()?;
            let mut cell = ItemCell::default();
            if let Some((lines, quantity, sum, unpriced, variant_id, name)) = stored {
                cell = ItemCell {
                    lines,
                    quantity,
                    sum: Total::parse_stored(&sum, "report item total")?,
                    unpriced,
                    variant_id,
                    name,
                    took_out: false,
                };
            }
            cell.lines += d.lines;
            cell.quantity += d.quantity;
            cell.sum += d.sum;
            cell.unpriced += d.unpriced;
            cell.variant_id = cell.variant_id.or(d.variant_id);
            cell.name = cell.name.or(d.name);
            if cell.lines <= 0 {
                if cell.lines < 0 || cell.quantity != 0 {
                    tracing::error!(?k, "kept item totals went below zero; dropped the cell");
                }
                delete.execute(key)?;
            } else {
                unknown |= d.took_out && cell.sum == Total::OutOfRange;
                let values = params![
                    cell.lines,
                    cell.quantity,
                    cell.sum.stored(),
                    cell.unpriced,
                    cell.variant_id,
                    cell.name,
                ];
                put.execute(params_from_iter(key.iter().chain(values)))?;
            }
        }
        if unknown {
            tracing::warn!(
                "a kept report total out of range had a link taken out; reports read the links until the next open"
            );
            mark_stale(conn)
        } else if self.fresh_before == Some(true) {
            mark_fresh(conn)
        } else {
            Ok(())
        }
    }
}

/// The kept report totals (`report_cells`, `report_items` and their `meta` mark) as one unit
/// of work changes them: each write of a link or its items runs inside [`Tallies::track`],
/// which reads the link's share (from `links` and `link_items`, the totals' inputs) before and
/// after it; the change is summed in memory and written once by [`Tallies::finish`], in the
/// same transaction. Made only from a transaction, like every repository's writes.
#[derive(Debug)]
pub(crate) struct Tallies<'t> {
    conn: &'t Connection,
    change: TotalsChange,
}

impl<'t> Tallies<'t> {
    /// The totals' change inside the unit of work's transaction `tx`, empty so far.
    pub(crate) fn write(tx: &'t Transaction<'_>) -> Self {
        Self {
            conn: tx,
            change: TotalsChange::default(),
        }
    }

    /// Runs `write` on link `id` of `profile` and records the change of its share.
    pub(crate) fn track<T>(
        &mut self,
        profile: &str,
        id: &str,
        write: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        track(self.conn, &mut self.change, profile, id, write)
    }

    /// Writes the summed change (and the `fresh` mark when the totals were fresh before).
    pub(crate) fn finish(self) -> Result<(), StoreError> {
        self.change.write(self.conn)
    }

    /// Whether the kept totals can be trusted (read under the unit of work's write lock).
    pub(crate) fn fresh(&self) -> Result<bool, StoreError> {
        fresh(self.conn)
    }

    /// Computes every kept total again from the links and their items, and marks them fresh.
    pub(crate) fn rebuild(&self) -> Result<(), StoreError> {
        rebuild(self.conn)
    }
}

impl super::Store {
    /// Computes the totals again when a write they did not see has marked them stale (and on
    /// the first open after migration 6), in one transaction.
    pub(super) fn rebuild_totals_if_stale(&mut self) -> Result<(), StoreError> {
        if fresh(&self.conn)? {
            return Ok(());
        }
        let tx = super::write_tx(&mut self.conn)?;
        let tallies = Tallies::write(&tx);
        // Read again under the write lock: another process may have rebuilt them meanwhile.
        if !tallies.fresh()? {
            let started = std::time::Instant::now();
            tallies.rebuild()?;
            tracing::info!(elapsed = ?started.elapsed(), "report totals computed from the links");
        }
        tx.commit()?;
        Ok(())
    }
}

/// Runs `write` on link `id` of `profile` and records the change of its share in `tally`.
fn track<T>(
    conn: &Connection,
    tally: &mut TotalsChange,
    profile: &str,
    id: &str,
    write: impl FnOnce() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    if tally.fresh_before.is_none() {
        tally.fresh_before = Some(fresh(conn)?);
    }
    let before = share_of(conn, profile, id)?;
    let out = write()?;
    let after = share_of(conn, profile, id)?;
    tally.change(profile, before.as_ref(), after.as_ref());
    Ok(out)
}

/// Computes every kept total again from the links and their items, and marks them fresh
/// (inside the caller's transaction).
fn rebuild(conn: &Connection) -> Result<(), StoreError> {
    conn.execute_batch("DELETE FROM report_cells; DELETE FROM report_items;")?;
    let mut tally = TotalsChange::default();
    let mut stmt = conn.prepare(&format!("SELECT {SHARE_COLUMNS} FROM links"))?;
    let mut rows = stmt.query([])?;
    let mut pending = 0;
    while let Some(r) = rows.next()? {
        let profile: String = r.get(0)?;
        let share = share_from_row(conn, r)?;
        tally.add(&profile, &share, 1);
        pending += 1;
        // Written in parts, so memory stays flat whatever the number of links.
        if pending == REBUILD_PART {
            std::mem::take(&mut tally).write(conn)?;
            pending = 0;
        }
    }
    tally.write(conn)?;
    mark_fresh(conn)
}

/// How many links [`rebuild`] sums in memory before it writes their totals.
const REBUILD_PART: usize = 20_000;

/// The pieces of the range `from..to` (Unix ms) as [`cover`] makes them, its ends brought
/// within some 2,700 years of 1970 (a range open at one end reaches that far).
pub(crate) fn cover_clamped(from: i64, to: i64) -> Option<Vec<(usize, i64, i64)>> {
    const FAR: i64 = 1_000_000 * DAY_MS;
    cover(from.clamp(-FAR, FAR), to.clamp(-FAR, FAR))
}

/// The pieces of the range `from..to` (Unix ms), largest spans first where they fit: each is
/// (span index, first bucket, bucket after the last). `None` when the ends are not whole
/// quarter-hours; the pieces then cannot hold the range exactly.
pub(crate) fn cover(from: i64, to: i64) -> Option<Vec<(usize, i64, i64)>> {
    cover_in(&SPANS, from, to)
}

/// [`cover`] with other spans (the shop keeps a week as well): `spans` finest first, the
/// finest a quarter-hour, each a whole number of the one before.
pub(crate) fn cover_in(spans: &[i64], from: i64, to: i64) -> Option<Vec<(usize, i64, i64)>> {
    if from.rem_euclid(QUARTER_MS) != 0 || to.rem_euclid(QUARTER_MS) != 0 || spans.is_empty() {
        return None;
    }
    let mut pieces = Vec::new();
    cover_at(spans, from, to, spans.len() - 1, &mut pieces);
    Some(pieces)
}

fn cover_at(spans: &[i64], from: i64, to: i64, span: usize, out: &mut Vec<(usize, i64, i64)>) {
    if from >= to {
        return;
    }
    let length = spans[span];
    let first = from.div_euclid(length) + i64::from(from.rem_euclid(length) != 0);
    let end = to.div_euclid(length);
    if span == 0 || first >= end {
        if span == 0 {
            out.push((0, first, end));
        } else {
            cover_at(spans, from, to, span - 1, out);
        }
        return;
    }
    cover_at(spans, from, first * length, span - 1, out);
    out.push((span, first, end));
    cover_at(spans, end * length, to, span - 1, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every piece is aligned to its span, the pieces follow one another without gap or
    /// overlap, and they hold exactly the range.
    #[test]
    fn a_range_is_covered_exactly_by_aligned_pieces() {
        let day = SPANS[2];
        let cases = [
            (0, day),
            (-3 * 3_600_000, 30 * day - 3 * 3_600_000),
            (19_800_000, 19_800_000 + 31 * day),
            (QUARTER_MS, 2 * QUARTER_MS),
            (5 * day + 45 * MINUTE_MS, 5 * day + 2 * 3_600_000),
            (7 * day, 7 * day),
        ];
        for (from, to) in cases {
            let pieces = cover(from, to).unwrap();
            let mut at = from;
            for &(span, first, end) in &pieces {
                assert!(first < end, "{from}..{to}: empty piece {pieces:?}");
                assert_eq!(first * SPANS[span], at, "{from}..{to}: {pieces:?}");
                at = end * SPANS[span];
            }
            assert_eq!(at, to, "{from}..{to}: {pieces:?}");
        }
        // A month in UTC+3: 3 hours, 30 days, 21 hours (no quarter-hour at all).
        let month = cover(-3 * 3_600_000, 30 * day + 21 * 3_600_000).unwrap();
        assert_eq!(month, vec![(1, -3, 0), (2, 0, 30), (1, 720, 741)]);
        assert_eq!(cover(1, day), None);
        assert_eq!(cover(0, day + 60_000), None);
    }

    /// With the shop's spans (three hours and a week as well), a month is mostly weeks
    /// (counted from 1970-01-01, a Thursday) and its edges three hours; the pieces still hold
    /// exactly the range.
    #[test]
    fn the_shops_spans_cover_a_month_with_weeks() {
        let day = SPANS[2];
        let hour = SPANS[1];
        let spans = [SPANS[0], hour, 3 * hour, day, 7 * day];
        // October 2026 in UTC+3: day 20727 (a Thursday, week 2961) to 21:00 of day 20757.
        let month = cover_in(&spans, 20_727 * day - 3 * hour, 20_757 * day + 21 * hour).unwrap();
        assert_eq!(
            month,
            vec![
                (2, 165_815, 165_816),
                (4, 2961, 2965),
                (3, 20_755, 20_757),
                (2, 166_056, 166_063)
            ]
        );
        for (from, to) in [
            (5 * day + QUARTER_MS, 40 * day),
            (-30 * day, 3 * day - hour),
        ] {
            let mut at = from;
            for &(span, first, end) in &cover_in(&spans, from, to).unwrap() {
                assert!(first < end);
                assert_eq!(first * spans[span], at);
                at = end * spans[span];
            }
            assert_eq!(at, to);
        }
    }
}
