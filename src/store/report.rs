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

use chrono::{DateTime, NaiveDate, Timelike, Utc};
use rusqlite::params;
use rust_decimal::Decimal;
use serde::Serialize;

use super::links::TimeRange;
use super::tallies::{self, Kind};
use super::total::Total;
use super::{StoreError, from_millis, parse_decimal, read_currency, to_millis};
use crate::api::wire::parse_time;
use crate::clock::Zone;
use crate::domain::{Currency, LinkStatus};

/// How many best-selling items a report lists.
pub const TOP_ITEMS: usize = 10;

/// A number of links and what was paid on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// How many links.
    pub count: usize,
    /// The sum of their `paidAmount` (out of range when it does not fit: see [`Total`]).
    pub sum: Total,
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
    pub collected: Total,
    /// What was collected in each local hour of the day, 0 to 23 (summed over the days).
    pub collected_by_hour: [Total; 24],
    /// The value issued: the sum of the amounts of the links created.
    pub issued: Total,
    /// What the links that can still be paid (pending, or partly paid, neither expired nor
    /// cancelled) still wait for: their amount less what was paid on them.
    pub outstanding: Total,
    /// A shop's report: payments a desk claims that no second desk's own call to the payment
    /// API has confirmed (or that one contradicted), counted apart: how many links, and what
    /// they claim beyond their last confirmed paid amount. Those links are counted above by
    /// that confirmed status. Zero for one desk's own report.
    pub unconfirmed: Tally,
}

impl Tally {
    fn zero(currency: Currency) -> Self {
        Tally {
            count: 0,
            sum: Total::zero(currency),
        }
    }
}

impl CurrencyReport {
    fn new(currency: Currency) -> Self {
        let zero = Total::zero(currency);
        Self {
            currency,
            created: 0,
            paid: Tally::zero(currency),
            partially_paid: Tally::zero(currency),
            pending: 0,
            expired: 0,
            cancelled: 0,
            other: 0,
            collected: zero,
            collected_by_hour: [zero; 24],
            issued: zero,
            outstanding: zero,
            unconfirmed: Tally::zero(currency),
        }
    }
}

/// One staff member's part of a report, per currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaffCurrency {
    /// The currency.
    pub currency: Currency,
    /// Links the member made in the days.
    pub created: usize,
    /// Of them, paid in full, and the sum.
    pub paid: Tally,
    /// Everything paid on them (in full and in part).
    pub collected: Total,
}

/// One staff member's links of a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaffReport {
    /// The member who began the links (`null`: before staff existed, or staff off).
    pub name: Option<String>,
    /// Per currency, TRY first.
    pub currencies: Vec<StaffCurrency>,
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
    /// variant the local catalog did not know in that currency). Both `None` and an
    /// out-of-range sum are `null` in JSON.
    pub sum: Option<Total>,
}

/// The links of a report's days sent to their payers (issue 30's "links sent, paid after
/// sending"): by any channel, on a joined desk by any desk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    /// Links made in the days with a `link.send` audit row in the days.
    pub links: usize,
    /// Of them, paid in full (COMPLETED) after their first send: the payment time
    /// (`completedDate`, else when the desk heard it) later than that send.
    pub paid_after: usize,
}

impl Sent {
    /// Counts the sends `rows` (a link id, the send's time, and the link's status and payment
    /// time), a link once, judged against its first send.
    pub(crate) fn of_sends(
        rows: impl IntoIterator<Item = (String, DateTime<Utc>, bool, DateTime<Utc>)>,
    ) -> Sent {
        let mut first: HashMap<String, (DateTime<Utc>, bool, DateTime<Utc>)> = HashMap::new();
        for (link, at, completed, paid_at) in rows {
            first
                .entry(link)
                .and_modify(|known| known.0 = known.0.min(at))
                .or_insert((at, completed, paid_at));
        }
        Sent {
            links: first.len(),
            paid_after: first
                .values()
                .filter(|(sent, completed, paid_at)| *completed && paid_at > sent)
                .count(),
        }
    }
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
    /// The links of the days sent to their payers, and how many were paid after it.
    pub sent: Sent,
    /// Per staff member who began links in the days, by name (links of nobody known last).
    pub by_staff: Vec<StaffReport>,
    /// The audit chain's head when the report was made (see `audit verify --head`).
    pub audit_head: String,
    /// On a joined desk, the head of the shop's own audit chain across every desk when the
    /// report was read from the shop (left out of JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shop_audit_head: Option<String>,
    /// Per desk, for a shop's report (empty, and left out of JSON, for one desk's own).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_desk: Vec<DeskReport>,
    /// A shop's report: each payment counted apart (see [`CurrencyReport::unconfirmed`]), by
    /// order number (left out of JSON when there is none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims_apart: Vec<ClaimApart>,
}

/// A payment one desk claims that the shop's report does not count as paid: no second desk's
/// own call to the payment API has confirmed it, or one contradicted it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimApart {
    /// The link.
    pub link_id: String,
    /// Its order number, when it has one.
    pub order_number: Option<String>,
    /// The name of the desk whose observation claims the payment.
    pub claimed_by: String,
    /// The link's currency.
    pub currency: Currency,
    /// The status claimed (`COMPLETED`, or `PENDING` with money paid).
    pub claimed_status: LinkStatus,
    /// The paid amount claimed.
    pub claimed_paid: Total,
    /// The last status confirmed, which the report counts.
    pub confirmed_status: LinkStatus,
    /// The last paid amount confirmed.
    pub confirmed_paid: Total,
    /// When another desk's own call answered less: that desk's name and what it was told.
    pub contradicted: Option<Contradiction>,
}

/// Another desk's own answer of the payment API that contradicts a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Contradiction {
    /// The name of the desk that asked.
    pub by: String,
    /// The status the API gave it.
    pub status: LinkStatus,
    /// The paid amount the API gave it.
    pub paid: Total,
}

/// One desk's links of a shop's report, per currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeskReport {
    /// The desk's device id.
    pub desk_id: String,
    /// Its shown name.
    pub name: String,
    /// Per currency, TRY first: links made, paid in full, collected.
    pub currencies: Vec<StaffCurrency>,
}

/// The report's query over the links: one range of the `links_recent` index.
pub(crate) const LINKS_SQL: &str = "SELECT currency, status, paid_amount, expiry_date,
         completed_date, updated_at, cancelled_at, amount, staff
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

/// The sends of a report's range (?2..?3) of links of profile ?1 made in it: one range of the
/// partial index of the sends (`audit_link_sends`, in time order), each send's link (the
/// subject's first word) by key (`CROSS JOIN` keeps the sends outside: a day has far fewer
/// sends than links). Columns: the link, the send's time, the link's status,
/// `completedDate` and last update.
pub(crate) const SENT_SQL: &str = "SELECT l.id, a.at, l.status, l.completed_date, l.updated_at
     FROM audit AS a INDEXED BY audit_link_sends
     CROSS JOIN links AS l ON l.profile = ?1
         AND l.id = substr(a.subject, 1, instr(a.subject, ' ') - 1)
     WHERE a.action = 'link.send' AND a.at >= ?2 AND a.at < ?3
         AND l.created_at >= ?2 AND l.created_at < ?3";

/// The kept totals of one piece of a report's range (see `tallies::cover`): ?1 profile, ?2
/// span, ?3 first bucket, ?4 the bucket after the last.
pub(crate) const CELLS_SQL: &str = "SELECT currency, kind, at, links, paid, expiry_min,
         expiry_max, bucket, by_quarter, amount, staff
     FROM report_cells
     WHERE profile = ?1 AND span = ?2 AND bucket >= ?3 AND bucket < ?4";

/// The kept item totals of one piece, named as the catalog names them now.
pub(crate) const ITEM_CELLS_SQL: &str = "SELECT t.currency, t.item, t.variant_id, t.name,
         c.name, t.quantity, t.sum, t.unpriced
     FROM report_items AS t LEFT JOIN catalog_variants AS c ON c.id = t.variant_id
     WHERE t.profile = ?1 AND t.span = ?2 AND t.bucket >= ?3 AND t.bucket < ?4";

/// The pending links of one bucket whose cell straddles the time of the report.
const PENDING_SQL: &str = "SELECT currency, paid_amount, cancelled_at, expiry_date, amount, staff
     FROM links INDEXED BY links_by_status
     WHERE profile = ?1 AND status = ?2 AND created_at >= ?3 AND created_at < ?4";

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

/// The currency of a link row (`None`: the default).
fn link_currency(text: Option<&str>) -> Result<Currency, StoreError> {
    Ok(text.map(read_currency).transpose()?.unwrap_or_default())
}

/// A report's per-currency parts as they are added up.
#[derive(Default)]
pub(crate) struct Sheet {
    links: usize,
    currencies: Vec<CurrencyReport>,
    /// Per staff member (`""`: nobody known), per currency.
    staff: std::collections::BTreeMap<String, Vec<StaffCurrency>>,
    /// Per desk (a shop's report only), per currency.
    desks: std::collections::BTreeMap<String, Vec<StaffCurrency>>,
}

/// Some links of one kind, as a cell or a link gives them.
pub(crate) struct Counted<'a> {
    pub(crate) currency: Currency,
    /// Their bucket (pending ones already judged against the report's time).
    pub(crate) kind: Kind,
    pub(crate) links: usize,
    pub(crate) amount: Total,
    pub(crate) paid: Total,
    pub(crate) staff: &'a str,
}

impl<'a> Counted<'a> {
    /// One link of `kind`, for `amount` with `paid` on it, made by `staff`.
    pub(crate) fn link(
        currency: Currency,
        kind: Kind,
        (amount, paid): (Total, Total),
        staff: &'a str,
    ) -> Self {
        Counted {
            currency,
            kind,
            links: 1,
            amount,
            paid,
            staff,
        }
    }
}

/// The part of `currency` in a per-currency list, kept in currency order.
fn part_of(list: &mut Vec<StaffCurrency>, currency: Currency) -> &mut StaffCurrency {
    let at = match list.iter().position(|c| c.currency >= currency) {
        Some(i) if list[i].currency == currency => i,
        Some(i) => {
            list.insert(i, StaffCurrency::new(currency));
            i
        }
        None => {
            list.push(StaffCurrency::new(currency));
            list.len() - 1
        }
    };
    &mut list[at]
}

/// Whether links are counted in or taken back out (a shop's report moving a claim of payment
/// back to its last confirmed status).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sign {
    In,
    Out,
}

impl Sign {
    /// `n` moved by `by` links.
    fn step(self, n: &mut usize, by: usize) {
        match self {
            Sign::In => *n += by,
            Sign::Out => *n = n.saturating_sub(by),
        }
    }

    /// `t` moved by `by`.
    fn add(self, t: &mut Total, by: Total) {
        match self {
            Sign::In => *t += by,
            Sign::Out => *t += -by,
        }
    }
}

impl StaffCurrency {
    /// Adds (or takes back) links of one bucket.
    fn add(&mut self, kind: Kind, links: usize, paid: Total, sign: Sign) {
        sign.step(&mut self.created, links);
        if matches!(kind, Kind::Paid | Kind::PartiallyPaid) {
            sign.add(&mut self.collected, paid);
        }
        if kind == Kind::Paid {
            sign.step(&mut self.paid.count, links);
            sign.add(&mut self.paid.sum, paid);
        }
    }
}

impl StaffCurrency {
    fn new(currency: Currency) -> Self {
        Self {
            currency,
            created: 0,
            paid: Tally::zero(currency),
            collected: Total::zero(currency),
        }
    }
}

impl Sheet {
    /// The part of `currency`, kept in currency order (TRY first).
    fn currency(&mut self, currency: Currency) -> &mut CurrencyReport {
        let at = match self.currencies.iter().position(|c| c.currency >= currency) {
            Some(i) if self.currencies[i].currency == currency => i,
            Some(i) => {
                self.currencies.insert(i, CurrencyReport::new(currency));
                i
            }
            None => {
                self.currencies.push(CurrencyReport::new(currency));
                self.currencies.len() - 1
            }
        };
        &mut self.currencies[at]
    }

    /// Counts links of one bucket made at desk `desk` (a shop's report).
    pub(crate) fn count_at(&mut self, n: &Counted<'_>, desk: &str) {
        self.tally_at(n, desk, Sign::In);
    }

    /// Counts (or takes back) links of one bucket made at desk `desk`.
    pub(crate) fn tally_at(&mut self, n: &Counted<'_>, desk: &str, sign: Sign) {
        let list = self.desks.entry(desk.to_owned()).or_default();
        part_of(list, n.currency).add(n.kind, n.links, n.paid, sign);
        self.tally(n, sign);
    }

    /// Counts links of one bucket.
    pub(crate) fn count(&mut self, n: &Counted<'_>) {
        self.tally(n, Sign::In);
    }

    /// Counts (or takes back) links of one bucket.
    fn tally(&mut self, n: &Counted<'_>, sign: Sign) {
        let (kind, links, amount, paid) = (n.kind, n.links, n.amount, n.paid);
        sign.step(&mut self.links, links);
        let member = self.staff.entry(n.staff.to_owned()).or_default();
        part_of(member, n.currency).add(kind, links, paid, sign);
        let c = self.currency(n.currency);
        sign.step(&mut c.created, links);
        sign.add(&mut c.issued, amount);
        if kind == Kind::Pending {
            sign.add(&mut c.outstanding, amount);
        }
        let tally = |t: &mut Tally| {
            sign.step(&mut t.count, links);
            sign.add(&mut t.sum, paid);
        };
        match kind {
            Kind::Paid => tally(&mut c.paid),
            Kind::PartiallyPaid => tally(&mut c.partially_paid),
            Kind::Cancelled => sign.step(&mut c.cancelled, links),
            Kind::Expired => sign.step(&mut c.expired, links),
            Kind::Pending => sign.step(&mut c.pending, links),
            Kind::Other | Kind::Collected => sign.step(&mut c.other, links),
        }
    }

    /// Notes a payment counted apart: `beyond` is what it claims past its last confirmed paid
    /// amount.
    pub(crate) fn apart(&mut self, currency: Currency, beyond: Total) {
        let t = &mut self.currency(currency).unconfirmed;
        t.count += 1;
        t.sum += beyond;
    }

    /// Adds what partly paid links that can still be paid wait for.
    pub(crate) fn owe(&mut self, currency: Currency, amount: Total, paid: Total) {
        self.currency(currency).outstanding += amount + (-paid);
    }

    /// The staff table, by name, nobody known last.
    fn staff_reports(&mut self) -> Vec<StaffReport> {
        let mut out: Vec<StaffReport> = std::mem::take(&mut self.staff)
            .into_iter()
            .map(|(name, currencies)| StaffReport {
                name: (!name.is_empty()).then_some(name),
                currencies,
            })
            .collect();
        out.sort_by(|a, b| match (&a.name, &b.name) {
            (Some(x), Some(y)) => x.to_lowercase().cmp(&y.to_lowercase()).then(x.cmp(y)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        out
    }

    /// Adds money collected at `when` to the total and to its local hour.
    pub(crate) fn collect(
        &mut self,
        currency: Currency,
        paid: Total,
        when: DateTime<Utc>,
        zone: Zone,
    ) {
        let c = self.currency(currency);
        c.collected += paid;
        c.collected_by_hour[zone.local(when).hour() as usize] += paid;
    }
}

impl Sheet {
    /// The report of local days `from..=to` (their UTC window `range`) this sheet adds up,
    /// with its per-desk table named by `desk_names` (device id → name).
    pub(crate) fn into_report(
        mut self,
        (from, to, range, zone): (NaiveDate, NaiveDate, TimeRange, Zone),
        top_items: Vec<ItemSales>,
        audit_head: String,
        desk_names: &HashMap<String, String>,
    ) -> DayReport {
        let mut by_desk: Vec<DeskReport> = std::mem::take(&mut self.desks)
            .into_iter()
            .map(|(desk_id, currencies)| DeskReport {
                name: desk_names
                    .get(&desk_id)
                    .cloned()
                    .unwrap_or_else(|| desk_id.clone()),
                desk_id,
                currencies,
            })
            .collect();
        by_desk.sort_by(|a, b| {
            (a.name.to_lowercase(), &a.desk_id).cmp(&(b.name.to_lowercase(), &b.desk_id))
        });
        DayReport {
            from,
            to,
            utc_offset: zone.offset_at(range.from).to_string(),
            links: self.links,
            by_staff: self.staff_reports(),
            currencies: self.currencies,
            top_items,
            sent: Sent::default(),
            audit_head,
            shop_audit_head: None,
            by_desk,
            claims_apart: Vec::new(),
        }
    }
}

/// A cell whose links expire on both sides of the report's time.
struct Straddling {
    currency: Currency,
    span: usize,
    bucket: i64,
    kind: Kind,
    staff: String,
}

/// A pending link's bucket at `now`: expired once its expiry has come.
pub(crate) fn judged(kind: Kind, expiry: i64, now: i64) -> Kind {
    if kind == Kind::Pending && expiry <= now {
        Kind::Expired
    } else {
        kind
    }
}

/// Adds a line (or a cell of lines) to the best sellers, shared with the shop's report: `key`
/// is the item's currency and its variant id or name; a new item is named `name` (the
/// catalog's, else the name sent), else by its `variant` id; `sum` `None`: a price unknown, and
/// the item's sum no longer known.
pub(crate) fn add_sale(
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

/// Takes a line of a link no longer counted as paid back out of `sales` (see [`add_sale`]); an
/// item left with nothing sold goes.
pub(crate) fn remove_sale(
    sales: &mut HashMap<(Currency, String), ItemSales>,
    key: &(Currency, String),
    quantity: u64,
    sum: Option<Total>,
) {
    let Some(entry) = sales.get_mut(key) else {
        return;
    };
    entry.quantity = entry.quantity.saturating_sub(quantity);
    entry.sum = entry.sum.zip(sum).map(|(a, b)| a + (-b));
    if entry.quantity == 0 {
        sales.remove(key);
    }
}

/// The best-selling items of a merged list, most sold first, at most [`TOP_ITEMS`].
pub(crate) fn top(sales: HashMap<(Currency, String), ItemSales>) -> Vec<ItemSales> {
    let mut list: Vec<ItemSales> = sales.into_values().collect();
    list.sort_by(|a, b| {
        b.quantity
            .cmp(&a.quantity)
            .then_with(|| b.sum.cmp(&a.sum))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.currency.cmp(&b.currency))
            .then_with(|| a.variant_id.cmp(&b.variant_id))
    });
    list.truncate(TOP_ITEMS);
    list
}

impl super::History<'_> {
    /// The report of the links of `profile` created on local days `from..=to` in `zone`, their
    /// state judged at `now` (see the module docs). It adds up the kept totals of the days
    /// (`tallies`); a zone whose midnights are not whole quarter-hours, or totals marked stale,
    /// read the links. Its statements read one snapshot of the file.
    pub fn day_report(
        &self,
        profile: &str,
        from: NaiveDate,
        to: NaiveDate,
        zone: Zone,
        now: DateTime<Utc>,
    ) -> Result<DayReport, StoreError> {
        self.report_of_days(profile, (from, to), zone, |range| {
            match tallies::cover(to_millis(range.from), to_millis(range.to)) {
                Some(pieces) if self.totals && tallies::fresh(self.conn)? => {
                    self.report_from_totals(profile, &pieces, zone, now)
                }
                _ => self.report_from_links(profile, range, zone, now),
            }
        })
    }

    /// These reads with [`History::day_report`] computed from the links themselves, whatever
    /// the zone: what the kept totals must always add up to (the tests compare the two).
    #[doc(hidden)]
    #[must_use]
    pub fn from_links(self) -> Self {
        Self {
            totals: false,
            ..self
        }
    }

    /// The report of local days `from..=to`, its figures read by `read` over their range in
    /// one snapshot of the file.
    fn report_of_days(
        &self,
        profile: &str,
        (from, to): (NaiveDate, NaiveDate),
        zone: Zone,
        read: impl FnOnce(TimeRange) -> Result<(Sheet, Vec<ItemSales>), StoreError>,
    ) -> Result<DayReport, StoreError> {
        let range = TimeRange::days(from, to, zone);
        self.start_meter();
        let (mut sheet, top_items, sent, audit_head) = self.in_one_snapshot(|| {
            let (sheet, items) = read(range)?;
            let sent = self.sent_in(profile, range)?;
            Ok((sheet, items, sent, super::Audit::read(self.conn).head()?))
        })?;
        Ok(DayReport {
            from,
            to,
            utc_offset: zone.offset_at(range.from).to_string(),
            links: sheet.links,
            by_staff: sheet.staff_reports(),
            currencies: sheet.currencies,
            top_items,
            sent,
            audit_head,
            shop_audit_head: None,
            by_desk: Vec::new(),
            claims_apart: Vec::new(),
        })
    }

    /// The report from the kept totals of `pieces` (see `tallies`).
    fn report_from_totals(
        &self,
        profile: &str,
        pieces: &[(usize, i64, i64)],
        zone: Zone,
        now: DateTime<Utc>,
    ) -> Result<(Sheet, Vec<ItemSales>), StoreError> {
        let now_ms = to_millis(now);
        let mut sheet = Sheet::default();
        // Cells whose links expire on both sides of `now`, read link by link: pending ones
        // for their bucket, partly paid ones for what they still wait for.
        let mut straddling: Vec<Straddling> = Vec::new();
        let mut stmt = self.conn.prepare_cached(CELLS_SQL)?;
        for &(span, first, end) in pieces {
            let mut rows = stmt.query(params![profile, tallies::span_code(span), first, end])?;
            while let Some(r) = rows.next()? {
                let currency = read_currency(text(r, 0)?.unwrap_or_default())?;
                let kind = Kind::from_code(r.get(1)?)?;
                let links = usize::try_from(r.get::<_, i64>(3)?).unwrap_or(0);
                let paid = Total::parse_stored(text(r, 4)?.unwrap_or("0"), "report total")?;
                let amount = Total::parse_stored(text(r, 9)?.unwrap_or("0"), "report total")?;
                let staff = text(r, 10)?.unwrap_or_default();
                let earliest = r.get::<_, Option<i64>>(5)?.unwrap_or(i64::MAX);
                let latest = r.get::<_, Option<i64>>(6)?.unwrap_or(i64::MAX);
                let straddles = earliest <= now_ms && now_ms < latest;
                let mut counted = Counted {
                    currency,
                    kind,
                    links,
                    amount,
                    paid,
                    staff,
                };
                match kind {
                    Kind::Collected => {
                        let day = r.get::<_, i64>(2)? * tallies::DAY_MS;
                        for (q, sum) in tallies::parse_quarters(text(r, 8)?.unwrap_or_default())? {
                            let at = from_millis(day + q * tallies::QUARTER_MS)?;
                            sheet.collect(currency, sum, at, zone);
                        }
                    }
                    Kind::Pending if straddles => straddling.push(Straddling {
                        currency,
                        span,
                        bucket: r.get(7)?,
                        kind,
                        staff: staff.to_owned(),
                    }),
                    Kind::Pending => {
                        counted.kind = judged(kind, latest, now_ms);
                        sheet.count(&counted);
                    }
                    Kind::PartiallyPaid => {
                        sheet.count(&counted);
                        if straddles {
                            straddling.push(Straddling {
                                currency,
                                span,
                                bucket: r.get(7)?,
                                kind,
                                staff: staff.to_owned(),
                            });
                        } else if now_ms < earliest {
                            sheet.owe(currency, amount, paid);
                        }
                    }
                    _ => sheet.count(&counted),
                }
            }
        }
        self.meter(&stmt);
        if !straddling.is_empty() {
            self.read_straddling(profile, &straddling, now_ms, &mut sheet)?;
        }
        let items = self.items_from_totals(profile, pieces)?;
        Ok((sheet, items))
    }

    /// Reads the pending links of cells that straddle the time of the report.
    fn read_straddling(
        &self,
        profile: &str,
        cells: &[Straddling],
        now_ms: i64,
        sheet: &mut Sheet,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(PENDING_SQL)?;
        for cell in cells {
            let length = tallies::SPANS[cell.span];
            let mut rows = stmt.query(params![
                profile,
                LinkStatus::Pending.as_str(),
                cell.bucket * length,
                (cell.bucket + 1) * length
            ])?;
            while let Some(r) = rows.next()? {
                if link_currency(text(r, 0)?)? != cell.currency
                    || text(r, 5)?.unwrap_or_default() != cell.staff
                {
                    continue;
                }
                let paid = link_paid(text(r, 1)?)?;
                let cancelled = r.get::<_, Option<i64>>(2)?.is_some();
                let kind = Kind::of(Some(LinkStatus::Pending.as_str()), paid, cancelled);
                let expiry = tallies::expiry_millis(text(r, 3)?);
                let amount = link_paid(text(r, 4)?)?;
                match (cell.kind, kind) {
                    // (Links that never expire are in a cell of their own, counted already.)
                    (Kind::Pending, Kind::Pending) if expiry != i64::MAX => {
                        sheet.count(&Counted::link(
                            cell.currency,
                            judged(kind, expiry, now_ms),
                            (amount.into(), paid.into()),
                            &cell.staff,
                        ));
                    }
                    (Kind::PartiallyPaid, Kind::PartiallyPaid) if now_ms < expiry => {
                        sheet.owe(cell.currency, amount.into(), paid.into());
                    }
                    _ => {}
                }
            }
        }
        self.meter(&stmt);
        Ok(())
    }

    /// The best-selling items from the kept item totals of `pieces`.
    fn items_from_totals(
        &self,
        profile: &str,
        pieces: &[(usize, i64, i64)],
    ) -> Result<Vec<ItemSales>, StoreError> {
        let mut sales: HashMap<(Currency, String), ItemSales> = HashMap::new();
        let mut stmt = self.conn.prepare_cached(ITEM_CELLS_SQL)?;
        for &(span, first, end) in pieces {
            let mut rows = stmt.query(params![profile, tallies::span_code(span), first, end])?;
            while let Some(r) = rows.next()? {
                let currency = read_currency(text(r, 0)?.unwrap_or_default())?;
                let key: String = r.get(1)?;
                let variant: Option<String> = r.get(2)?;
                let kept_name: Option<String> = r.get(3)?;
                let catalog_name: Option<String> = r.get(4)?;
                let quantity = u64::try_from(r.get::<_, i64>(5)?).unwrap_or(0);
                let sum = Total::parse_stored(text(r, 6)?.unwrap_or("0"), "report item total")?;
                let priced = r.get::<_, i64>(7)? == 0;
                let name = catalog_name.or(kept_name);
                let line = priced.then_some(sum);
                add_sale(&mut sales, (currency, key), variant, name, quantity, line);
            }
        }
        self.meter(&stmt);
        Ok(top(sales))
    }

    /// The report read from the links of `range` and their items.
    /// The links of `profile` made in `range` and sent in it, and how many were paid after
    /// their first send: one range of the partial index of the sends, each send's link by key.
    fn sent_in(&self, profile: &str, range: TimeRange) -> Result<Sent, StoreError> {
        let mut stmt = self.conn.prepare_cached(SENT_SQL)?;
        let mut rows = stmt.query(params![profile, to_millis(range.from), to_millis(range.to)])?;
        let mut sends = Vec::new();
        while let Some(r) = rows.next()? {
            let completed = text(r, 2)? == Some(LinkStatus::Completed.as_str());
            let paid_at = match text(r, 3)?.and_then(parse_time) {
                Some(t) => t,
                None => from_millis(r.get(4)?)?,
            };
            sends.push((r.get(0)?, from_millis(r.get(1)?)?, completed, paid_at));
        }
        drop(rows);
        self.meter(&stmt);
        Ok(Sent::of_sends(sends))
    }

    fn report_from_links(
        &self,
        profile: &str,
        range: TimeRange,
        zone: Zone,
        now: DateTime<Utc>,
    ) -> Result<(Sheet, Vec<ItemSales>), StoreError> {
        let now_ms = to_millis(now);
        let args = params![profile, to_millis(range.from), to_millis(range.to)];
        let mut sheet = Sheet::default();
        let mut stmt = self.conn.prepare_cached(LINKS_SQL)?;
        let mut rows = stmt.query(args)?;
        // Read in place (no string copies), and the times only when a rule needs them.
        while let Some(r) = rows.next()? {
            let currency = link_currency(text(r, 0)?)?;
            let paid = link_paid(text(r, 2)?)?;
            let amount = link_paid(text(r, 7)?)?;
            let cancelled = r.get::<_, Option<i64>>(6)?.is_some();
            let status = text(r, 1)?;
            let kind = Kind::of(status, paid, cancelled);
            let kind = match kind {
                Kind::Pending => judged(kind, tallies::expiry_millis(text(r, 3)?), now_ms),
                _ => kind,
            };
            sheet.count(&Counted::link(
                currency,
                kind,
                (amount.into(), paid.into()),
                text(r, 8)?.unwrap_or_default(),
            ));
            if kind == Kind::PartiallyPaid
                && !cancelled
                && status == Some(LinkStatus::Pending.as_str())
                && now_ms < tallies::expiry_millis(text(r, 3)?)
            {
                sheet.owe(currency, amount.into(), paid.into());
            }
            if paid > Decimal::ZERO {
                let when = match text(r, 4)?.and_then(parse_time) {
                    Some(t) => t,
                    None => from_millis(r.get(5)?)?,
                };
                sheet.collect(currency, paid.into(), when, zone);
            }
        }
        drop(rows);
        self.meter(&stmt);
        Ok((sheet, self.items_from_links(profile, range)?))
    }

    /// The best-selling items read from the items of the paid links of `range`.
    fn items_from_links(
        &self,
        profile: &str,
        range: TimeRange,
    ) -> Result<Vec<ItemSales>, StoreError> {
        // (currency, variant id or name) → sales
        let mut sales: HashMap<(Currency, String), ItemSales> = HashMap::new();
        let mut stmt = self.conn.prepare_cached(ITEMS_SQL)?;
        let mut rows = stmt.query(params![profile, to_millis(range.from), to_millis(range.to)])?;
        while let Some(r) = rows.next()? {
            let currency: Option<String> = r.get(0)?;
            let currency = link_currency(currency.as_deref())?;
            let variant: Option<String> = r.get(1)?;
            let sent_name: Option<String> = r.get(2)?;
            let catalog_name: Option<String> = r.get(3)?;
            let price: Option<String> = r.get(4)?;
            let quantity = u64::try_from(r.get::<_, i64>(5)?).unwrap_or(0);
            let key = tallies::item_key(variant.as_deref(), sent_name.as_deref());
            let sent_name = sent_name.map(|n| n.trim().to_owned());
            let line = price
                .map(|p| parse_decimal(&p, "item unit price"))
                .transpose()?
                .map(|p| Total::product(p, quantity));
            let name = catalog_name.or(sent_name);
            add_sale(&mut sales, (currency, key), variant, name, quantity, line);
        }
        drop(rows);
        self.meter(&stmt);
        Ok(top(sales))
    }

    /// The `EXPLAIN QUERY PLAN` of the report's statements: the kept totals and item totals
    /// of one piece, then the links and items read when a zone's midnights are not whole
    /// quarter-hours, as [`History::explain_search`].
    #[doc(hidden)]
    pub fn explain_report(&self) -> Result<String, StoreError> {
        Ok(format!(
            "totals:\n{}item totals:\n{}straddling pending links:\n{}links:\n{}items:\n{}sends:\n{}",
            self.explain(CELLS_SQL, &[])?,
            self.explain(ITEM_CELLS_SQL, &[])?,
            self.explain(PENDING_SQL, &[])?,
            self.explain(LINKS_SQL, &[])?,
            self.explain(ITEMS_SQL, &[])?,
            self.explain(SENT_SQL, &[])?
        ))
    }
}

/// A link's paid amount (`None`: nothing).
fn link_paid(text: Option<&str>) -> Result<Decimal, StoreError> {
    text.map_or(Ok(Decimal::ZERO), |p| parse_decimal(p, "link paid amount"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a statement's plan must be.
    enum Want {
        /// Exactly this.
        Is(&'static str),
        /// Beginning with this.
        StartsWith(&'static str),
        /// Each of the first and none of the second.
        Holds(&'static [&'static str], &'static [&'static str]),
    }

    /// Each statement's plan (printed under its label) is as wanted.
    fn check_plans(plans: &[(&str, &str, Want)]) {
        let store = super::super::Store::open_in_memory().unwrap();
        for (label, sql, want) in plans {
            let plan = store
                .history()
                .explain(sql, &[])
                .unwrap()
                .trim_end()
                .to_owned();
            println!("{label}:\n{plan}");
            match want {
                Want::Is(exact) => assert_eq!(plan, *exact, "{label}"),
                Want::StartsWith(start) => assert!(plan.starts_with(start), "{plan}"),
                Want::Holds(searches, never) => {
                    for search in *searches {
                        assert!(plan.contains(search), "{plan}");
                    }
                    for word in *never {
                        assert!(!plan.contains(word), "{plan}");
                    }
                }
            }
        }
    }

    /// The report reads ranges of its kept totals by primary key, and the pending links of a
    /// straddling bucket through the status index: no scan, no sort.
    #[test]
    fn the_report_reads_ranges_of_its_totals() {
        check_plans(&[
            (
                "totals",
                CELLS_SQL,
                Want::Is(
                    "SEARCH report_cells USING PRIMARY KEY (profile=? AND span=? AND bucket>? AND bucket<?)",
                ),
            ),
            (
                "item totals",
                ITEM_CELLS_SQL,
                Want::Holds(
                    &[
                        "SEARCH t USING PRIMARY KEY (profile=? AND span=? AND bucket>? AND bucket<?)",
                    ],
                    &["SCAN"],
                ),
            ),
            (
                "sends",
                SENT_SQL,
                Want::Holds(
                    &[
                        "SEARCH a USING INDEX audit_link_sends (at>? AND at<?)",
                        "SEARCH l USING INDEX sqlite_autoindex_links_1 (profile=? AND id=?)",
                    ],
                    &["SCAN", "TEMP B-TREE"],
                ),
            ),
            (
                "pending",
                PENDING_SQL,
                Want::StartsWith(
                    "SEARCH links USING INDEX links_by_status (profile=? AND status=? AND created_at>? AND created_at<?)",
                ),
            ),
        ]);
    }

    /// Read from the links (a zone whose midnights are not whole quarter-hours, and the tests'
    /// reference), the report reads one range of the time index and looks items up by key.
    /// (`cargo test --lib report -- --nocapture` prints the plans.)
    #[test]
    fn the_report_from_links_reads_a_range_of_the_time_index() {
        check_plans(&[
            (
                "day report, links",
                LINKS_SQL,
                Want::Is(
                    "SEARCH links USING INDEX links_recent (profile=? AND created_at>? AND created_at<?)",
                ),
            ),
            (
                "day report, items",
                ITEMS_SQL,
                Want::Holds(
                    &[
                        "SEARCH l USING INDEX links_recent (profile=? AND created_at>? AND created_at<?)",
                        "SEARCH i USING PRIMARY KEY (profile=? AND link_id=?)",
                    ],
                    &["SCAN", "TEMP B-TREE"],
                ),
            ),
        ]);
    }
}
