//! The day report ("day close"): what the links created over some local days came to, per
//! currency, when the money came in by hour, and the best-selling items.
//!
//! The days are local days of a [`Zone`] passed in, so a test picks the zone and the machine's
//! own does not matter. A link belongs to the report when this install first stored it
//! (`created_at`) inside the days; everything else about it is its last known state in
//! history. Each link falls in exactly one bucket, so the buckets add up to the links created:
//!
//! | bucket | rule, in this order |
//! |---|---|
//! | paid | status COMPLETED |
//! | partially paid | anything else with a paid amount above zero |
//! | cancelled | cancelled through paydesk (`cancelled_at`; the server says EXPIRED) |
//! | expired | EXPIRED, or PENDING with its expiry date passed at `now` |
//! | pending | PENDING, nothing paid, not expired |
//! | other | REJECTED, `UNDER_REVIEW`, a status this version does not know, none |
//!
//! "Collected" is the sum of `paidAmount` over the links created in the days (paid and
//! partially paid), by the local hour of `completedDate`, or of the link's last update in
//! history when it has none (a partial payment has no completion date). Best-selling items are
//! the items of the paid links, by catalog variant (named as the catalog names it now) or by
//! name, with their quantity and sum.
//!
//! Both queries are one range of the `(profile, created_at, ...)` index: a day's report reads
//! that day's links and their items, never the whole history.

use std::collections::HashMap;
use std::str::FromStr;

use chrono::{DateTime, NaiveDate, Timelike, Utc};
use rusqlite::params;
use rust_decimal::Decimal;
use serde::{Serialize, Serializer};

use super::links::{TimeRange, read_currency};
use super::{Store, StoreError, from_millis, parse_decimal, to_millis};
use crate::api::wire::{amount, amount_opt, parse_time};
use crate::clock::Zone;
use crate::domain::{Currency, LinkStatus};

/// How many best-selling items a report lists.
pub const TOP_ITEMS: usize = 10;

/// A number of links and what was paid on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// How many links.
    pub count: usize,
    /// The sum of their `paidAmount`.
    #[serde(with = "amount")]
    pub sum: Decimal,
}

/// One currency's part of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrencyReport {
    /// The currency.
    pub currency: Currency,
    /// Links created in the days.
    pub created: usize,
    /// Paid in full (COMPLETED).
    pub paid: Tally,
    /// Not completed, but something was paid.
    pub partially_paid: Tally,
    /// Still payable, nothing paid.
    pub pending: usize,
    /// Expired with nothing paid.
    pub expired: usize,
    /// Cancelled through paydesk with nothing paid.
    pub cancelled: usize,
    /// Rejected, under review, or a status this version does not know.
    pub other: usize,
    /// Everything paid: `paid.sum + partially_paid.sum`.
    #[serde(with = "amount")]
    pub collected: Decimal,
    /// What was collected in each local hour of the day, 0 to 23 (summed over the days).
    #[serde(serialize_with = "hours")]
    pub collected_by_hour: [Decimal; 24],
}

impl CurrencyReport {
    fn new(currency: Currency) -> Self {
        let zero = Decimal::new(0, currency.minor_units());
        Self {
            currency,
            created: 0,
            paid: Tally {
                count: 0,
                sum: zero,
            },
            partially_paid: Tally {
                count: 0,
                sum: zero,
            },
            pending: 0,
            expired: 0,
            cancelled: 0,
            other: 0,
            collected: zero,
            collected_by_hour: [zero; 24],
        }
    }
}

fn hours<S: Serializer>(v: &[Decimal; 24], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    struct Amount<'a>(&'a Decimal);
    impl Serialize for Amount<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            amount::serialize(self.0, s)
        }
    }
    let mut seq = s.serialize_seq(Some(24))?;
    for d in v {
        seq.serialize_element(&Amount(d))?;
    }
    seq.end()
}

/// One best-selling item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemSales {
    /// The currency of the links it was sold on.
    pub currency: Currency,
    /// Its name: the catalog's name of the variant, else the name sent, else the variant id.
    pub name: String,
    /// The catalog variant, for catalog items.
    pub variant_id: Option<String>,
    /// How many were sold.
    pub quantity: u64,
    /// Unit price × quantity summed; `None` when a line's price is not known here (a catalog
    /// variant the local catalog did not know in that currency).
    #[serde(with = "amount_opt")]
    pub sum: Option<Decimal>,
}

/// A day report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DayReport {
    /// The first local day.
    pub from: NaiveDate,
    /// The last local day (included).
    pub to: NaiveDate,
    /// The UTC offset of the zone at the start of the first day (`+03:00`).
    pub utc_offset: String,
    /// Links created in the days, every currency.
    pub links: usize,
    /// Per currency with links, TRY first.
    pub currencies: Vec<CurrencyReport>,
    /// The best-selling items, most sold first, at most [`TOP_ITEMS`].
    pub top_items: Vec<ItemSales>,
}

/// The report's query over the links: one range of the `links_recent` index.
pub(crate) const LINKS_SQL: &str = "SELECT currency, status, paid_amount, expiry_date,
         completed_date, updated_at, cancelled_at
     FROM links INDEXED BY links_recent
     WHERE profile = ?1 AND created_at >= ?2 AND created_at < ?3";

/// The report's query over the items of the paid links: the same range, then each link's
/// items by primary key and the catalog's name by id.
pub(crate) const ITEMS_SQL: &str = "SELECT l.currency, i.variant_id, i.name, c.name,
         i.unit_price, i.quantity
     FROM links AS l INDEXED BY links_recent
     JOIN link_items AS i ON i.profile = l.profile AND i.link_id = l.id
     LEFT JOIN catalog_variants AS c ON c.id = i.variant_id
     WHERE l.profile = ?1 AND l.created_at >= ?2 AND l.created_at < ?3
         AND l.status = 'COMPLETED'";

/// Column `i` as text in place (`None` for NULL).
fn text<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> Result<Option<&'r str>, StoreError> {
    r.get_ref(i)?.as_str_or_null().map_err(|e| {
        StoreError::Sqlite(rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            Box::new(e),
        ))
    })
}

impl Store {
    /// The report of the links of `profile` created on local days `from..=to` in `zone`, their
    /// state judged at `now` (see the module docs).
    pub fn day_report(
        &self,
        profile: &str,
        from: NaiveDate,
        to: NaiveDate,
        zone: Zone,
        now: DateTime<Utc>,
    ) -> Result<DayReport, StoreError> {
        let range = TimeRange::days(from, to, zone);
        let args = params![profile, to_millis(range.from), to_millis(range.to)];
        let mut currencies: Vec<CurrencyReport> = Vec::new();
        let mut links = 0;
        let mut stmt = self.conn.prepare_cached(LINKS_SQL)?;
        let mut rows = stmt.query(args)?;
        // Read in place (no string copies), and the times only when a rule needs them: a
        // day's report is this loop over the day's links.
        while let Some(r) = rows.next()? {
            let currency = match text(r, 0)? {
                Some(c) => Currency::from_str(c).map_err(|_| StoreError::Corrupt {
                    what: "link currency",
                    value: c.to_owned(),
                })?,
                None => Currency::default(),
            };
            let status = text(r, 1)?;
            let paid = match text(r, 2)? {
                Some(p) => parse_decimal(p, "link paid amount")?,
                None => Decimal::ZERO,
            };
            let cancelled = r.get::<_, Option<i64>>(6)?.is_some();
            let at = match currencies.iter().position(|c| c.currency >= currency) {
                Some(i) if currencies[i].currency == currency => i,
                Some(i) => {
                    currencies.insert(i, CurrencyReport::new(currency));
                    i
                }
                None => {
                    currencies.push(CurrencyReport::new(currency));
                    currencies.len() - 1
                }
            };
            let c = &mut currencies[at];
            links += 1;
            c.created += 1;
            if status == Some(LinkStatus::Completed.as_str()) {
                c.paid.count += 1;
                c.paid.sum += paid;
            } else if paid > Decimal::ZERO {
                c.partially_paid.count += 1;
                c.partially_paid.sum += paid;
            } else if cancelled {
                c.cancelled += 1;
            } else if status == Some(LinkStatus::Pending.as_str()) {
                let expiry = text(r, 3)?.and_then(parse_time);
                if expiry.is_some_and(|e| e <= now) {
                    c.expired += 1;
                } else {
                    c.pending += 1;
                }
            } else if status == Some(LinkStatus::Expired.as_str()) {
                c.expired += 1;
            } else {
                c.other += 1;
            }
            if paid > Decimal::ZERO {
                c.collected += paid;
                let when = match text(r, 4)?.and_then(parse_time) {
                    Some(t) => t,
                    None => from_millis(r.get(5)?)?,
                };
                let hour = zone.local(when).hour();
                c.collected_by_hour[hour as usize] += paid;
            }
        }
        Ok(DayReport {
            from,
            to,
            utc_offset: zone.offset_at(range.from).to_string(),
            links,
            currencies,
            top_items: self.top_items(profile, range)?,
        })
    }

    /// The `EXPLAIN QUERY PLAN` of the report's two statements (links, then items), as
    /// [`Store::explain_search`].
    #[doc(hidden)]
    pub fn explain_report(&self) -> Result<String, StoreError> {
        Ok(format!(
            "links:\n{}items:\n{}",
            self.explain(LINKS_SQL, &[])?,
            self.explain(ITEMS_SQL, &[])?
        ))
    }

    fn top_items(&self, profile: &str, range: TimeRange) -> Result<Vec<ItemSales>, StoreError> {
        // (currency, variant id or name) → sales
        let mut sales: HashMap<(Currency, String), ItemSales> = HashMap::new();
        let mut stmt = self.conn.prepare_cached(ITEMS_SQL)?;
        let mut rows = stmt.query(params![profile, to_millis(range.from), to_millis(range.to)])?;
        while let Some(r) = rows.next()? {
            let currency: Option<String> = r.get(0)?;
            let currency = currency.map(read_currency).transpose()?.unwrap_or_default();
            let variant: Option<String> = r.get(1)?;
            let sent_name: Option<String> = r.get(2)?;
            let catalog_name: Option<String> = r.get(3)?;
            let price: Option<String> = r.get(4)?;
            let quantity: i64 = r.get(5)?;
            let quantity = u64::try_from(quantity).unwrap_or(0);
            let name = catalog_name
                .or(sent_name)
                .or_else(|| variant.clone())
                .unwrap_or_default();
            let key = variant.clone().unwrap_or_else(|| name.trim().to_owned());
            let line = price
                .map(|p| {
                    Decimal::from_str(&p).map_err(|_| StoreError::Corrupt {
                        what: "item unit price",
                        value: p,
                    })
                })
                .transpose()?
                .map(|p| p * Decimal::from(quantity));
            let entry = sales.entry((currency, key)).or_insert_with(|| ItemSales {
                currency,
                name: name.clone(),
                variant_id: variant,
                quantity: 0,
                sum: Some(Decimal::new(0, currency.minor_units())),
            });
            entry.quantity += quantity;
            entry.sum = entry.sum.zip(line).map(|(a, b)| a + b);
        }
        let mut list: Vec<ItemSales> = sales.into_values().collect();
        list.sort_by(|a, b| {
            b.quantity
                .cmp(&a.quantity)
                .then_with(|| b.sum.cmp(&a.sum))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.currency.cmp(&b.currency))
        });
        list.truncate(TOP_ITEMS);
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(store: &Store, sql: &str) -> String {
        let mut stmt = store
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap();
        stmt.query_map(params!["p", 0, 1], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The report reads one range of the time index and looks items up by key: no scan of
    /// the history, no sort. (`cargo test --lib report -- --nocapture` prints the plans.)
    #[test]
    fn the_report_reads_a_range_of_the_time_index() {
        let store = Store::open_in_memory().unwrap();
        let links = plan(&store, LINKS_SQL);
        println!("day report, links:\n{links}");
        assert_eq!(
            links,
            "SEARCH links USING INDEX links_recent (profile=? AND created_at>? AND created_at<?)"
        );
        let items = plan(&store, ITEMS_SQL);
        println!("day report, items:\n{items}");
        assert!(
            items.contains(
                "SEARCH l USING INDEX links_recent (profile=? AND created_at>? AND created_at<?)"
            ),
            "{items}"
        );
        assert!(
            items.contains("SEARCH i USING PRIMARY KEY (profile=? AND link_id=?)"),
            "{items}"
        );
        assert!(!items.contains("SCAN"), "{items}");
        assert!(!items.contains("TEMP B-TREE"), "{items}");
    }
}
