//! Link history searched newest first and fast at a million rows: the query builder, full-text
//! search, keyset paging, totals, the board's query and their plans.
//!
//! Paging is by keyset on (`created_at`, `id`) — the local time the link was first stored, then
//! its id — never by `OFFSET`, so page 1000 costs what page 1 costs and a link stored while the
//! user pages does not shift the pages.
//!
//! Text search matches a link when the text is a prefix of its order number or of its
//! reference number (ASCII case-insensitive), or when every word of the text (a run of letters
//! and digits) starts a word of its description (`unicode61 remove_diacritics 2`, so `kazak`
//! finds `Kazak` and `iade` finds `İade`). A plain substring test (`LIKE '%x%'`) would need a
//! full scan.
//!
//! Why a text page stops after a page: `seq` (the rowid) is the order links were stored in,
//! and a link stored with a (`created_at`, `id`) older than one stored before it is marked
//! `late` (a clock set back, an import of old links; see migration 5). Among the links that
//! are not late, `seq` order *is* history order, so the full-text indexes (`links_words` for
//! descriptions, `links_codes` for order and reference numbers, rowid = `seq`, the profile and
//! status in a `tags` column) read by descending rowid give the newest matches first, and the
//! first page-full are the page. The late links are few and have their own index; a cursor
//! and a date range become a `seq` range through one index probe each. An order or reference
//! prefix with few matches is ranked from the covering `(profile, order_number)` and
//! `(profile, reference_number)` indexes instead (an exact prefix range, at most
//! [`CANDIDATE_LIMIT`] entries).

use chrono::{DateTime, Utc};
use rusqlite::types::Value;
use rusqlite::{params, params_from_iter};
use rust_decimal::Decimal;

use super::links::{LINK, LinkCursor, StoredLink, TimeRange, collect, read_link};
use super::tallies;
use super::total::Total;
use super::{Store, StoreError, parse_decimal_opt, read_currency, to_millis};
use crate::domain::{Currency, LinkStatus};

/// The most links one page may hold.
pub const MAX_PAGE: usize = 500;
/// The page size when the query asks for 0.
pub const DEFAULT_PAGE: usize = 50;
/// Above this many matches of an order or reference prefix, the codes are read newest first
/// through `links_codes` instead of ranked from the `(profile, order_number)` and
/// `(profile, reference_number)` indexes.
pub const CANDIDATE_LIMIT: usize = 500;

/// Where a search looks: a profile, perhaps only a window of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scope<'a> {
    pub(crate) profile: &'a str,
    pub(crate) range: Option<TimeRange>,
}

#[cfg(test)]
impl Scope<'_> {
    fn of(profile: &str) -> Scope<'_> {
        Scope {
            profile,
            range: None,
        }
    }
}

/// A history search.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkQuery {
    /// Order-number or reference prefix, or words of the description. Blank means none.
    pub text: Option<String>,
    /// Only links with this status.
    pub status: Option<LinkStatus>,
    /// Page size; 0 means [`DEFAULT_PAGE`]; at most [`MAX_PAGE`].
    pub limit: usize,
    /// Start after this link (from the previous page's `next`).
    pub before: Option<LinkCursor>,
    /// Only links this staff member began.
    pub staff: Option<String>,
}

/// One page of history, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkPage {
    /// The links.
    pub links: Vec<StoredLink>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<LinkCursor>,
}

/// The count and sums of one currency's links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrencyTotal {
    /// The currency.
    pub currency: Currency,
    /// How many links.
    pub count: usize,
    /// The sum of their amounts (out of range when it does not fit: see [`Total`]).
    pub amount: Total,
    /// The sum of their paid amounts (likewise).
    pub paid: Total,
}

/// What a set of links adds up to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkTotals {
    /// How many links in all.
    pub count: usize,
    /// Per currency, in the order of [`Currency::ALL`] (TRY first); only currencies with links.
    pub by_currency: Vec<CurrencyTotal>,
}

impl LinkTotals {
    fn add(&mut self, currency: Option<Currency>, amount: Option<Decimal>, paid: Option<Decimal>) {
        let currency = currency.unwrap_or_default();
        let sum = |d: Option<Decimal>| d.map_or_else(|| Total::zero(currency), Total::Exact);
        self.add_many(currency, 1, sum(amount), sum(paid));
    }

    /// Adds `count` links of `currency` whose amounts and paid amounts sum to `amount` and
    /// `paid`.
    pub(crate) fn add_many(
        &mut self,
        currency: Currency,
        count: usize,
        amount: Total,
        paid: Total,
    ) {
        self.count += count;
        let zero = Total::zero(currency);
        let at = if let Some(i) = self.by_currency.iter().position(|t| t.currency == currency) {
            i
        } else {
            let i = self
                .by_currency
                .iter()
                .position(|t| t.currency > currency)
                .unwrap_or(self.by_currency.len());
            self.by_currency.insert(
                i,
                CurrencyTotal {
                    currency,
                    count: 0,
                    amount: zero,
                    paid: zero,
                },
            );
            i
        };
        let t = &mut self.by_currency[at];
        t.count += count;
        t.amount += amount;
        t.paid += paid;
    }
}

/// SQL text with its arguments, built in step.
#[derive(Default)]
struct Sql {
    text: String,
    args: Vec<Value>,
}

impl Sql {
    fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    fn arg(&mut self, value: impl Into<Value>) -> &mut Self {
        self.text.push('?');
        self.args.push(value.into());
        self
    }
}

/// The parts of a text search.
struct TextFilter {
    /// Lower bound of the prefix range (the text itself).
    low: String,
    /// Upper bound: the text followed by the highest code point.
    high: String,
    /// The description words as an FTS5 expression (`"w1"* AND "w2"*`), when the text has a
    /// word.
    words: Option<String>,
    /// The text as an FTS5 initial-phrase prefix of a code (`^ "PD-2026" *`), when it has a
    /// word: every order or reference number the text is a prefix of matches it (and a few
    /// more, which the exact prefix test drops).
    codes: Option<String>,
}

impl TextFilter {
    fn new(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        // One prefix term per run of letters and digits: `PD-2026` asks for a word starting
        // with `pd` and a word starting with `2026`. (No quote can remain inside a term.)
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| format!("\"{w}\"*"))
            .collect();
        let has_word = !words.is_empty();
        Some(Self {
            low: text.to_owned(),
            high: format!("{text}{}", char::MAX),
            words: has_word.then(|| words.join(" AND ")),
            codes: has_word.then(|| format!("^ \"{}\" *", text.replace('"', "\"\""))),
        })
    }

    /// Appends `(order prefix OR reference prefix)` about table `t`.
    fn push_prefix(&self, sql: &mut Sql, t: &str) {
        sql.push(&format!("(({t}.order_number >= "))
            .arg(self.low.clone())
            .push(&format!(" COLLATE NOCASE AND {t}.order_number < "))
            .arg(self.high.clone())
            .push(&format!(" COLLATE NOCASE) OR ({t}.reference_number >= "))
            .arg(self.low.clone())
            .push(&format!(" COLLATE NOCASE AND {t}.reference_number < "))
            .arg(self.high.clone())
            .push(" COLLATE NOCASE))");
    }
}

/// The `tags` token of a profile in `links_words` and `links_codes` (see migration 5).
fn profile_tag(profile: &str) -> String {
    format!("\"p{}\"", hex::encode_upper(profile))
}

/// The `tags` token of a status.
fn status_tag(status: &LinkStatus) -> String {
    format!("\"s{}\"", hex::encode_upper(status.as_str()))
}

/// The full-text query `tags: profile [AND tags: status] AND {columns}: (expr)`, of the late
/// links only or of the others only.
fn fts_query(scope: &Scope<'_>, q: &LinkQuery, columns: &str, expr: &str, late: bool) -> String {
    let status = q
        .status
        .as_ref()
        .map(|s| format!(" AND tags : {}", status_tag(s)))
        .unwrap_or_default();
    let m = format!(
        "(tags : {}{status} AND {{{columns}}} : ({expr}))",
        profile_tag(scope.profile)
    );
    if late {
        format!("{m} AND tags : \"late\"")
    } else {
        format!("{m} NOT tags : \"late\"")
    }
}

/// The `seq` window of a search's links that are not late (see migration 5): among them `seq`
/// follows the history order, so a cursor and a time range are a range of `seq`.
#[derive(Debug, Clone, Copy, Default)]
struct SeqWindow {
    /// The lowest `seq` (included).
    low: Option<i64>,
    /// The `seq` above the window (excluded).
    high: Option<i64>,
}

impl SeqWindow {
    /// Appends ` AND {rowid} >= low AND {rowid} < high`.
    fn push(&self, sql: &mut Sql, rowid: &str) {
        if let Some(low) = self.low {
            sql.push(&format!(" AND {rowid} >= ")).arg(low);
        }
        if let Some(high) = self.high {
            sql.push(&format!(" AND {rowid} < ")).arg(high);
        }
    }
}

fn page_size(limit: usize) -> usize {
    match limit {
        0 => DEFAULT_PAGE,
        n => n.min(MAX_PAGE),
    }
}

/// Appends ` AND profile = ? [AND created_at in the range] [AND status = ?]
/// [AND (created_at, id) < (?, ?)]` about `t`.
fn push_common(sql: &mut Sql, t: &str, scope: &Scope<'_>, q: &LinkQuery) {
    sql.push(&format!(" {t}.profile = "))
        .arg(scope.profile.to_owned());
    if let Some(range) = scope.range {
        sql.push(&format!(" AND {t}.created_at >= "))
            .arg(to_millis(range.from));
        // One upper bound for the index range: the range's end, or the cursor when it comes
        // first (both would leave the walk to start at the range's end).
        if q.before.as_ref().is_none_or(|c| range.to <= c.created_at) {
            sql.push(&format!(" AND {t}.created_at < "))
                .arg(to_millis(range.to));
        }
    }
    if let Some(status) = &q.status {
        sql.push(&format!(" AND {t}.status = "))
            .arg(status.as_str().to_owned());
    }
    if let Some(staff) = &q.staff {
        sql.push(&format!(" AND {t}.staff = ")).arg(staff.clone());
    }
    if let Some(c) = &q.before {
        sql.push(&format!(" AND ({t}.created_at, {t}.id) < ("))
            .arg(to_millis(c.created_at))
            .push(", ")
            .arg(c.id.clone())
            .push(")");
    }
}

/// History's reads: searches, pages, totals, the board, the day report and the export, over
/// the links and the kept totals. Each metered read starts the store's query meter afresh
/// ([`Store::last_query_cost`]); reads of several statements run in one read transaction, so
/// they all see the file as it was at the first.
#[derive(Debug)]
pub struct History<'s> {
    pub(super) conn: &'s rusqlite::Connection,
    pub(super) cost: &'s std::cell::Cell<super::QueryCost>,
    /// Whether a day report may add up the kept totals (else it reads the links).
    pub(super) totals: bool,
}

impl Store {
    /// History's reads.
    pub fn history(&self) -> History<'_> {
        History {
            conn: &self.conn,
            cost: &self.cost,
            totals: true,
        }
    }
}

impl History<'_> {
    /// Starts measuring a new query.
    pub(super) fn start_meter(&self) {
        self.cost.set(super::QueryCost::default());
    }

    /// Adds a statement's counters to the current query's cost and resets them.
    pub(super) fn meter(&self, stmt: &rusqlite::Statement<'_>) {
        super::add_cost(self.cost, stmt);
    }

    /// Runs the statements of `read` in one read transaction (see [`History`]).
    pub(super) fn in_one_snapshot<T>(
        &self,
        read: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        super::in_one_snapshot(self.conn, read)
    }
}

impl History<'_> {
    /// The links of the open-links board, newest first, at most `limit`: every link stored
    /// at or after `today` and every `PENDING` link stored at or after `pending_since`.
    ///
    /// Two index ranges read newest first, one after the other, never a scan or a sort:
    /// `links_recent` from `today` on, then, when the page is not full, `links_by_status` for
    /// (`PENDING`, from `pending_since` to `today`). Every link of the second range is older
    /// than every link of the first, so the two read in turn are the board in order, and a link
    /// is in one range only. The cost follows the rows returned, not the size of the history
    /// or of a busy day.
    pub fn board_links(
        &self,
        profile: &str,
        today: DateTime<Utc>,
        pending_since: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<StoredLink>, StoreError> {
        self.start_meter();
        let [today_sql, pending_sql] = board_sql();
        self.in_one_snapshot(|| {
            let mut stmt = self.conn.prepare_cached(&today_sql)?;
            let mut links =
                collect(stmt.query(params![profile, to_millis(today), limit_value(limit)])?)?;
            self.meter(&stmt);
            if links.len() < limit && pending_since < today {
                let mut stmt = self.conn.prepare_cached(&pending_sql)?;
                links.extend(collect(stmt.query(params![
                    profile,
                    LinkStatus::Pending.as_str(),
                    to_millis(pending_since),
                    to_millis(today),
                    limit_value(limit - links.len()),
                ])?)?);
                self.meter(&stmt);
            }
            Ok(links)
        })
    }

    /// How many links a profile's history holds.
    pub fn count_links(&self, profile: &str) -> Result<usize, StoreError> {
        let n: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM links WHERE profile = ?1")?
            .query_row([profile], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// One page of a profile's history, newest first (see the module docs for the matching
    /// rules and how it stays fast).
    pub fn search_links(&self, profile: &str, q: &LinkQuery) -> Result<LinkPage, StoreError> {
        self.search_links_in(profile, q, None)
    }

    /// [`History::search_links`] restricted to the links stored in `range` (when given): the
    /// History view's date filter and the export. The range is a range of the same time
    /// indexes, so a page costs what an unrestricted page costs.
    pub fn search_links_in(
        &self,
        profile: &str,
        q: &LinkQuery,
        range: Option<TimeRange>,
    ) -> Result<LinkPage, StoreError> {
        self.start_meter();
        let scope = Scope { profile, range };
        let filter = q.text.as_deref().and_then(TextFilter::new);
        match filter {
            None => self.page_without_text(&scope, q),
            Some(filter) => self.page_with_text(&scope, q, &filter),
        }
    }

    /// Calls `each` with every link the search matches (its `limit` and `before` are ignored),
    /// newest first, one at a time: memory stays constant whatever the number of links. Without
    /// a text filter it is one walk of the time index; with one, pages of [`MAX_PAGE`] links
    /// found as [`History::search_links_in`] finds them. Returns how many links were passed.
    pub fn for_each_link<E: From<StoreError>>(
        &self,
        profile: &str,
        q: &LinkQuery,
        range: Option<TimeRange>,
        mut each: impl FnMut(StoredLink) -> Result<(), E>,
    ) -> Result<usize, E> {
        let mut q = LinkQuery {
            limit: MAX_PAGE,
            before: None,
            ..q.clone()
        };
        let mut n = 0;
        if q.text.as_deref().and_then(TextFilter::new).is_none() {
            let sql = sql_walk(&Scope { profile, range }, &q);
            let mut stmt = self
                .conn
                .prepare_cached(&sql.text)
                .map_err(StoreError::from)?;
            let mut rows = stmt
                .query(params_from_iter(sql.args.iter()))
                .map_err(StoreError::from)?;
            while let Some(r) = rows.next().map_err(StoreError::from)? {
                each(read_link(r)?)?;
                n += 1;
            }
            return Ok(n);
        }
        loop {
            let page = self.search_links_in(profile, &q, range)?;
            for link in page.links {
                each(link)?;
                n += 1;
            }
            match page.next {
                Some(next) => q.before = Some(next),
                None => return Ok(n),
            }
        }
    }

    /// How many links the search matches and what they add up to, per currency (its `limit`
    /// and `before` are ignored). Exact decimals; a link without a currency counts as TRY
    /// (the API's default), a missing amount as zero.
    ///
    /// Without a text filter or a cursor, they are added up from the kept report totals
    /// (`tallies`: a few hundred cells for any range of whole days, and all of history) instead
    /// of read from every link.
    pub fn link_totals(
        &self,
        profile: &str,
        q: &LinkQuery,
        range: Option<TimeRange>,
    ) -> Result<LinkTotals, StoreError> {
        self.start_meter();
        let text = q.text.as_deref().and_then(TextFilter::new);
        let (from, to) = range.map_or((i64::MIN, i64::MAX), |r| {
            (to_millis(r.from), to_millis(r.to))
        });
        let pieces = tallies::cover_clamped(from, to);
        self.in_one_snapshot(|| match pieces {
            Some(pieces) if text.is_none() && q.before.is_none() && tallies::fresh(self.conn)? => {
                self.totals_from_cells(profile, q.status.as_ref(), q.staff.as_deref(), &pieces)
            }
            _ => self.link_totals_from_links(profile, q, range),
        })
    }

    /// [`History::link_totals`] read from the links themselves: what the kept totals must always
    /// add up to (the tests compare the two).
    #[doc(hidden)]
    pub fn link_totals_from_links(
        &self,
        profile: &str,
        q: &LinkQuery,
        range: Option<TimeRange>,
    ) -> Result<LinkTotals, StoreError> {
        let mut totals = LinkTotals::default();
        if q.text.as_deref().and_then(TextFilter::new).is_some() {
            self.for_each_link(profile, q, range, |s| {
                let l = &s.link;
                totals.add(Some(l.currency), l.amount, l.paid);
                Ok::<_, StoreError>(())
            })?;
            return Ok(totals);
        }
        let sql = sql_amounts(&Scope { profile, range }, q);
        let mut stmt = self.conn.prepare_cached(&sql.text)?;
        let mut rows = stmt.query(params_from_iter(sql.args.iter()))?;
        while let Some(r) = rows.next()? {
            let currency: Option<String> = r.get(0)?;
            totals.add(
                currency.as_deref().map(read_currency).transpose()?,
                parse_decimal_opt(r.get(1)?, "link amount")?,
                parse_decimal_opt(r.get(2)?, "link paid amount")?,
            );
        }
        Ok(totals)
    }

    /// History's totals from the kept report totals of `pieces` (see `tallies`).
    fn totals_from_cells(
        &self,
        profile: &str,
        status: Option<&LinkStatus>,
        staff: Option<&str>,
        pieces: &[(usize, i64, i64)],
    ) -> Result<LinkTotals, StoreError> {
        let mut totals = LinkTotals::default();
        let mut stmt = self.conn.prepare_cached(
            "SELECT currency, links, amount, paid FROM report_cells
             WHERE profile = ?1 AND span = ?2 AND bucket >= ?3 AND bucket < ?4 AND kind <> ?5
                 AND (?6 IS NULL OR status = ?6) AND (?7 IS NULL OR staff = ?7)",
        )?;
        for &(span, first, end) in pieces {
            let mut rows = stmt.query(params![
                profile,
                tallies::span_code(span),
                first,
                end,
                tallies::Kind::Collected.code(),
                status.map(LinkStatus::as_str),
                staff,
            ])?;
            while let Some(r) = rows.next()? {
                let currency: String = r.get(0)?;
                let links = usize::try_from(r.get::<_, i64>(1)?).unwrap_or(0);
                let amount: String = r.get(2)?;
                let paid: String = r.get(3)?;
                totals.add_many(
                    read_currency(&currency)?,
                    links,
                    Total::parse_stored(&amount, "report total")?,
                    Total::parse_stored(&paid, "report total")?,
                );
            }
        }
        self.meter(&stmt);
        Ok(totals)
    }

    fn finish_page(q: &LinkQuery, mut links: Vec<StoredLink>) -> LinkPage {
        let size = page_size(q.limit);
        let next = (links.len() > size).then(|| {
            links.truncate(size);
            links.last().map(StoredLink::cursor)
        });
        LinkPage {
            links,
            next: next.flatten(),
        }
    }

    fn run(&self, sql: &Sql) -> Result<Vec<StoredLink>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&sql.text)?;
        let links = collect(stmt.query(params_from_iter(sql.args.iter()))?)?;
        self.meter(&stmt);
        Ok(links)
    }

    fn page_without_text(&self, scope: &Scope<'_>, q: &LinkQuery) -> Result<LinkPage, StoreError> {
        Ok(Self::finish_page(q, self.run(&sql_without_text(scope, q))?))
    }

    /// True when an order or a reference prefix matches more than [`CANDIDATE_LIMIT`] links
    /// of the profile (each count stops past it: at most that many index entries read).
    fn many_codes(&self, profile: &str, f: &TextFilter) -> Result<bool, StoreError> {
        let cap = limit_value(CANDIDATE_LIMIT + 1);
        for column in ["order_number", "reference_number"] {
            let mut stmt = self.conn.prepare_cached(&format!(
                "SELECT count(*) FROM (SELECT 1 FROM links
                 WHERE profile = ?1 AND {column} >= ?2 COLLATE NOCASE
                     AND {column} < ?3 COLLATE NOCASE LIMIT ?4)"
            ))?;
            let n: i64 = stmt.query_row(params![profile, f.low, f.high, cap], |r| r.get(0))?;
            self.meter(&stmt);
            if n > limit_value(CANDIDATE_LIMIT) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The `seq` of the oldest link that is not late with (`created_at`, `id`) at or after the
    /// key: every link that is not late and older than the key has a lower `seq`. `None` when
    /// no such link exists. (Late links are skipped one by one; they are few.)
    fn seq_at(&self, profile: &str, created_at: i64, id: &str) -> Result<Option<i64>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq FROM links INDEXED BY links_recent
             WHERE profile = ?1 AND (created_at, id) >= (?2, ?3) AND late = 0
             ORDER BY created_at, id LIMIT 1",
        )?;
        let seq = {
            let mut rows = stmt.query(params![profile, created_at, id])?;
            match rows.next()? {
                Some(r) => Some(r.get(0)?),
                None => None,
            }
        };
        self.meter(&stmt);
        Ok(seq)
    }

    /// The search's window of `seq` for the links that are not late; `None` when it is empty.
    fn seq_window(
        &self,
        scope: &Scope<'_>,
        q: &LinkQuery,
    ) -> Result<Option<SeqWindow>, StoreError> {
        let mut w = SeqWindow::default();
        let mut lower_high = |high: Option<i64>| {
            if let Some(h) = high {
                w.high = Some(w.high.map_or(h, |x| x.min(h)));
            }
        };
        if let Some(c) = &q.before {
            lower_high(self.seq_at(scope.profile, to_millis(c.created_at), &c.id)?);
        }
        if let Some(range) = scope.range {
            lower_high(self.seq_at(scope.profile, to_millis(range.to), "")?);
            match self.seq_at(scope.profile, to_millis(range.from), "")? {
                Some(low) => w.low = Some(low),
                None => return Ok(None),
            }
        }
        Ok(Some(w))
    }

    /// The `EXPLAIN QUERY PLAN` of the statement that reads [`History::search_links_in`]'s page
    /// (built as the search builds it, on this file's data), one line per plan node, indented
    /// by depth. For the history benchmark (docs/benchmarks.md); the search does not call it.
    #[doc(hidden)]
    pub fn explain_search(
        &self,
        profile: &str,
        q: &LinkQuery,
        range: Option<TimeRange>,
    ) -> Result<String, StoreError> {
        let scope = Scope { profile, range };
        let sql = match q.text.as_deref().and_then(TextFilter::new) {
            None => sql_without_text(&scope, q),
            Some(f) => {
                let window = self.seq_window(&scope, q)?;
                let codes_by_fts = f.codes.is_some() && self.many_codes(profile, &f)?;
                sql_text_page(&scope, q, &f, window.as_ref(), codes_by_fts)
            }
        };
        self.explain(&sql.text, &sql.args)
    }

    /// The `EXPLAIN QUERY PLAN` of [`History::board_links`]'s statement (as
    /// [`History::explain_search`]).
    #[doc(hidden)]
    pub fn explain_board(&self) -> Result<String, StoreError> {
        let [today, pending] = board_sql();
        Ok(format!(
            "{}{}",
            self.explain(&today, &[])?,
            self.explain(&pending, &[])?
        ))
    }

    /// The `EXPLAIN QUERY PLAN` of `sql` (its parameters bound to `args`, the rest NULL).
    pub(crate) fn explain(&self, sql: &str, args: &[Value]) -> Result<String, StoreError> {
        let mut stmt = self.conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        let mut all = args.to_vec();
        all.resize(stmt.parameter_count().max(args.len()), Value::Null);
        let mut rows = stmt.query(params_from_iter(all.iter()))?;
        let mut depth: Vec<(i64, usize)> = Vec::new();
        let mut out = String::new();
        while let Some(r) = rows.next()? {
            let (id, parent, detail): (i64, i64, String) = (r.get(0)?, r.get(1)?, r.get(3)?);
            let level = depth
                .iter()
                .find(|(node, _)| *node == parent)
                .map_or(0, |(_, d)| d + 1);
            depth.push((id, level));
            out.push_str(&"  ".repeat(level));
            out.push_str(&detail);
            out.push('\n');
        }
        Ok(out)
    }

    fn page_with_text(
        &self,
        scope: &Scope<'_>,
        q: &LinkQuery,
        f: &TextFilter,
    ) -> Result<LinkPage, StoreError> {
        let window = self.seq_window(scope, q)?;
        let codes_by_fts = f.codes.is_some() && self.many_codes(scope.profile, f)?;
        let sql = sql_text_page(scope, q, f, window.as_ref(), codes_by_fts);
        Ok(Self::finish_page(q, self.run(&sql)?))
    }
}

/// The time (or status-and-time, or staff-and-time) index, walked newest first.
fn time_index(q: &LinkQuery) -> &'static str {
    if q.status.is_some() {
        "links_by_status"
    } else if q.staff.is_some() {
        "links_by_staff"
    } else {
        "links_recent"
    }
}

/// The board's two statements (see `History::board_links`): today's links (?1 profile, ?2
/// today's start, ?3 the limit), then the older pending ones (?1 profile, ?2 `PENDING`, ?3 the
/// pending window's start, ?4 today's start, ?5 the rest of the limit).
fn board_sql() -> [String; 2] {
    let cols = LINK.list();
    [
        format!(
            "SELECT {cols} FROM links INDEXED BY links_recent
             WHERE profile = ?1 AND created_at >= ?2
             ORDER BY created_at DESC, id DESC LIMIT ?3"
        ),
        format!(
            "SELECT {cols} FROM links INDEXED BY links_by_status
             WHERE profile = ?1 AND status = ?2 AND created_at >= ?3 AND created_at < ?4
             ORDER BY created_at DESC, id DESC LIMIT ?5"
        ),
    ]
}

/// A page without a text filter: one walk of the time index.
fn sql_without_text(scope: &Scope<'_>, q: &LinkQuery) -> Sql {
    let mut sql = sql_walk(scope, q);
    sql.push(" LIMIT ").arg(limit_value(page_size(q.limit) + 1));
    sql
}

/// The currency, amount and paid amount of every link without a text filter (for totals).
fn sql_amounts(scope: &Scope<'_>, q: &LinkQuery) -> Sql {
    sql_filtered("l.currency, l.amount, l.paid_amount", scope, q)
}

/// Every link without a text filter, newest first: [`sql_without_text`] without its limit.
fn sql_walk(scope: &Scope<'_>, q: &LinkQuery) -> Sql {
    let mut sql = sql_filtered(&LINK.list(), scope, q);
    sql.push(" ORDER BY l.created_at DESC, l.id DESC");
    sql
}

/// `cols` of the links (as `l`) the query's filters other than text keep, through its time
/// index, in no order.
fn sql_filtered(cols: &str, scope: &Scope<'_>, q: &LinkQuery) -> Sql {
    let mut sql = Sql::default();
    sql.push(&format!(
        "SELECT {cols} FROM links AS l INDEXED BY {} WHERE",
        time_index(q)
    ));
    push_common(&mut sql, "l", scope, q);
    sql
}

/// A page with a text filter: the page's keys are the newest of at most `3n` candidates, read
/// from sources that each stop after `n` (`n` = page size + 1), then only the page's rows are
/// read by `seq`:
/// - description words: `links_words` by descending rowid, the links that are not late, within
///   the search's `seq` window: the first `n` are the newest `n`;
/// - order and reference prefixes: with few matches (at most [`CANDIDATE_LIMIT`]), ranked from
///   their covering indexes; with many, `links_codes` by descending rowid like the words, each
///   candidate's exact prefix tested on its row;
/// - the late links that match (their partial index, the words through `links_words` limited
///   to late links).
fn sql_text_page(
    scope: &Scope<'_>,
    q: &LinkQuery,
    f: &TextFilter,
    window: Option<&SeqWindow>,
    codes_by_fts: bool,
) -> Sql {
    let n = limit_value(page_size(q.limit) + 1);
    let mut sql = Sql::default();
    sql.push(&format!(
        "SELECT {} FROM links AS l NOT INDEXED WHERE l.seq IN (SELECT seq FROM (",
        LINK.list()
    ));
    // The late links: always a source (its index holds only them).
    sql.push("SELECT * FROM (SELECT t.seq FROM links AS t INDEXED BY links_late WHERE");
    push_common(&mut sql, "t", scope, q);
    sql.push(" AND t.late = 1 AND (");
    f.push_prefix(&mut sql, "t");
    if let Some(words) = &f.words {
        sql.push(" OR t.seq IN (SELECT rowid FROM links_words WHERE links_words MATCH ")
            .arg(fts_query(scope, q, "description", words, true))
            .push(")");
    }
    sql.push(") ORDER BY t.created_at DESC, t.id DESC LIMIT ")
        .arg(n)
        .push(")");
    if let (Some(words), Some(window)) = (&f.words, window) {
        sql.push(
            " UNION SELECT * FROM (SELECT rowid AS seq FROM links_words WHERE links_words MATCH ",
        )
        .arg(fts_query(scope, q, "description", words, false));
        window.push(&mut sql, "rowid");
        sql.push(" ORDER BY rowid DESC LIMIT ").arg(n).push(")");
    }
    match (&f.codes, window) {
        (Some(codes), Some(window)) if codes_by_fts => {
            sql.push(
                " UNION SELECT * FROM (SELECT links_codes.rowid AS seq FROM links_codes \
                 CROSS JOIN links AS c ON c.seq = links_codes.rowid WHERE links_codes MATCH ",
            )
            .arg(fts_query(
                scope,
                q,
                "order_number reference_number",
                codes,
                false,
            ));
            window.push(&mut sql, "links_codes.rowid");
            sql.push(" AND ");
            f.push_prefix(&mut sql, "c");
            sql.push(" ORDER BY links_codes.rowid DESC LIMIT ")
                .arg(n)
                .push(")");
        }
        _ => {
            // Each index keeps only its own newest `n` (a bounded top-n sort over at most
            // CANDIDATE_LIMIT entries).
            for (alias, column, index) in [
                ("o", "order_number", "links_by_order"),
                ("r", "reference_number", "links_by_reference"),
            ] {
                sql.push(&format!(
                    " UNION SELECT * FROM (SELECT {alias}.seq FROM links AS {alias} \
                     INDEXED BY {index} WHERE"
                ));
                push_common(&mut sql, alias, scope, q);
                sql.push(&format!(" AND {alias}.{column} >= "))
                    .arg(f.low.clone())
                    .push(&format!(" COLLATE NOCASE AND {alias}.{column} < "))
                    .arg(f.high.clone())
                    .push(&format!(
                        " COLLATE NOCASE ORDER BY {alias}.created_at DESC, {alias}.id DESC LIMIT "
                    ))
                    .arg(n)
                    .push(")");
            }
        }
    }
    sql.push(")) ORDER BY l.created_at DESC, l.id DESC LIMIT ")
        .arg(n);
    sql
}

fn limit_value(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::wire::PaymentLink;
    use crate::domain::LinkStatus;

    fn link(i: u32, order: &str, description: &str, status: LinkStatus) -> PaymentLink {
        PaymentLink {
            id: format!("lnk_{i:05}"),
            reference_number: Some(format!("R{i:05}")),
            order_number: Some(order.to_owned()),
            payment_url: None,
            transaction_ref: None,
            amount: None,
            paid_amount: None,
            remaining_amount: None,
            currency: None,
            status: Some(status),
            description: Some(description.to_owned()),
            allow_partial_payment: None,
            enable_installment: None,
            available_installments: None,
            email: None,
            phone_country_code: None,
            phone_number: None,
            expiry_date: None,
            completed_date: None,
            created_date: None,
        }
    }

    /// 3,000 links: orders `A-{i}` for even i and `B-{i}` for odd, descriptions alternating
    /// between "red shirt" and "blue scarf", every third one completed.
    fn store() -> Store {
        let mut store = Store::open_in_memory().unwrap();
        let t0 = DateTime::from_timestamp(1_790_000_000, 0).unwrap();
        let links = (0..3000u32).map(|i| {
            let order = format!("{}-{i:05}", if i % 2 == 0 { "A" } else { "B" });
            let desc = if i % 4 < 2 { "red shirt" } else { "blue scarf" };
            let status = if i % 3 == 0 {
                LinkStatus::Completed
            } else {
                LinkStatus::Pending
            };
            (
                link(i, &order, desc, status),
                t0 + chrono::TimeDelta::seconds(i64::from(i / 2)),
            )
        });
        store.insert_links_bulk("p", links).unwrap();
        store
    }

    fn ids(page: &LinkPage) -> Vec<&str> {
        page.links.iter().map(|l| l.link.id.as_str()).collect()
    }

    /// Every link of `p` matching `text` (and `status`), newest first, by brute force.
    fn expected(store: &Store, text: &str, status: Option<&LinkStatus>) -> Vec<String> {
        let mut all = Vec::new();
        store
            .history()
            .for_each_link("p", &LinkQuery::default(), None, |l| {
                all.push(l);
                Ok::<_, StoreError>(())
            })
            .unwrap();
        let t = text.to_ascii_lowercase();
        let words: Vec<String> = t
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        all.into_iter()
            .filter(|l| status.is_none_or(|s| &l.link.status == s))
            .filter(|l| {
                let prefix = |v: &Option<String>| {
                    v.as_deref()
                        .is_some_and(|v| v.to_ascii_lowercase().starts_with(&t))
                };
                let desc = l.link.description_text().to_lowercase();
                let desc_words: Vec<&str> = desc.split(' ').collect();
                prefix(&l.link.order_number)
                    || prefix(&l.link.reference_number)
                    || (!words.is_empty()
                        && words
                            .iter()
                            .all(|w| desc_words.iter().any(|d| d.starts_with(w.as_str()))))
            })
            .map(|l| l.link.id)
            .collect()
    }

    /// Every page of each search, through every source (few and many code matches, words),
    /// with late links (stored after newer ones) among them, equals the brute-force answer.
    #[test]
    fn text_pages_are_the_newest_matches_late_links_included() {
        let mut store = store();
        let t0 = DateTime::from_timestamp(1_790_000_000, 0).unwrap();
        // Stored last, dated early: late.
        for (i, at) in [(5000u32, 10i64), (5001, 700), (5002, 700)] {
            let order = format!("A-9{i}");
            store
                .upsert_link(
                    "p",
                    &link(i, &order, "red shirt", LinkStatus::Completed),
                    t0 + chrono::TimeDelta::seconds(at),
                )
                .unwrap();
        }
        let late: i64 = store
            .conn
            .query_row("SELECT count(*) FROM links WHERE late = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(late, 3);
        let queries = [
            ("a-0", None),
            ("A-", None),
            ("b-002", Some(LinkStatus::Completed)),
            ("r0001", None),
            ("R", Some(LinkStatus::Pending)),
            ("red", None),
            ("blue sc", Some(LinkStatus::Pending)),
            ("red shirt", Some(LinkStatus::Completed)),
            ("zzz", None),
        ];
        for (text, status) in queries {
            let want = expected(&store, text, status.as_ref());
            let mut got = Vec::new();
            let mut q = LinkQuery {
                text: Some(text.into()),
                status: status.clone(),
                limit: 37,
                before: None,
                staff: None,
            };
            loop {
                let page = store.history().search_links("p", &q).unwrap();
                got.extend(ids(&page).into_iter().map(str::to_owned));
                match page.next {
                    Some(c) => q.before = Some(c),
                    None => break,
                }
            }
            assert_eq!(got, want, "{text} {status:?}");
        }
    }

    #[test]
    fn many_code_matches_switch_to_the_codes_index() {
        let store = store();
        let many = |text: &str| {
            store
                .history()
                .many_codes("p", &TextFilter::new(text).unwrap())
                .unwrap()
        };
        // 1,500 orders start with A: over the limit; 500 with A-0; every reference with R.
        assert!(many("A-"));
        assert!(!many("A-01"));
        assert!(!many("A-0001"));
        assert!(many("R"));
        assert!(!many("red"));
    }

    fn plan_of(store: &Store, sql: &Sql) -> String {
        let mut stmt = store
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", sql.text))
            .unwrap();
        let rows = stmt
            .query_map(params_from_iter(sql.args.iter()), |r| r.get::<_, String>(3))
            .unwrap();
        rows.map(Result::unwrap).collect::<Vec<_>>().join(" | ")
    }

    /// The History view's date filter: the first page of a range is a range of the same time
    /// index (walked newest first, stopping at the page), with or without a status.
    /// (`cargo test --lib links -- --nocapture` prints the plans.)
    #[test]
    fn a_date_range_is_a_range_of_the_time_index() {
        let store = store();
        let range = TimeRange {
            from: DateTime::from_timestamp(1_790_000_200, 0).unwrap(),
            to: DateTime::from_timestamp(1_790_000_400, 0).unwrap(),
        };
        let scope = Scope {
            profile: "p",
            range: Some(range),
        };
        for (status, index) in [
            (None, "links_recent"),
            (Some(LinkStatus::Completed), "links_by_status"),
        ] {
            let q = LinkQuery {
                status: status.clone(),
                ..LinkQuery::default()
            };
            let plan = plan_of(&store, &sql_without_text(&scope, &q));
            println!("first page of a date range, status {status:?}: {plan}");
            let cond = if status.is_some() {
                "(profile=? AND status=? AND created_at>? AND created_at<?)"
            } else {
                "(profile=? AND created_at>? AND created_at<?)"
            };
            assert_eq!(plan, format!("SEARCH l USING INDEX {index} {cond}"));
            let plan = plan_of(&store, &sql_walk(&scope, &q));
            assert_eq!(plan, format!("SEARCH l USING INDEX {index} {cond}"));
            let page = store
                .history()
                .search_links_in("p", &q, Some(range))
                .unwrap();
            assert!(!page.links.is_empty());
            assert!(page.links.iter().all(|l| {
                l.created_at >= range.from
                    && l.created_at < range.to
                    && status.as_ref().is_none_or(|s| &l.link.status == s)
            }));
        }
    }

    #[test]
    fn pages_read_an_index_in_order_without_sorting() {
        let store = store();
        let cursor = Some(LinkCursor {
            created_at: DateTime::from_timestamp(1_790_000_500, 0).unwrap(),
            id: "lnk_01000".into(),
        });
        for (status, index) in [
            (None, "links_recent"),
            (Some(LinkStatus::Completed), "links_by_status"),
        ] {
            for before in [None, cursor.clone()] {
                let keyset = before.is_some();
                let q = LinkQuery {
                    status: status.clone(),
                    before,
                    ..LinkQuery::default()
                };
                let plan = plan_of(&store, &sql_without_text(&Scope::of("p"), &q));
                assert!(plan.contains(index), "{plan}");
                assert!(!plan.contains("TEMP B-TREE"), "{plan}");
                // The cursor is a range of the index, not a filter on every row.
                assert_eq!(plan.contains("(created_at,id)<(?,?)"), keyset, "{plan}");
            }
        }
        // A text page: the words and the codes newest first from their full-text indexes
        // (no sort of the matches), the late links from their own index.
        let f = TextFilter::new("red").unwrap();
        let q = LinkQuery::default();
        let window = SeqWindow::default();
        let plan = plan_of(
            &store,
            &sql_text_page(&Scope::of("p"), &q, &f, Some(&window), true),
        );
        assert!(plan.contains("links_words VIRTUAL TABLE INDEX"), "{plan}");
        assert!(plan.contains("links_codes VIRTUAL TABLE INDEX"), "{plan}");
        assert!(plan.contains("USING INDEX links_late"), "{plan}");
        assert!(!plan.contains("links_recent"), "{plan}");
        let plan = plan_of(
            &store,
            &sql_text_page(&Scope::of("p"), &q, &f, Some(&window), false),
        );
        assert!(plan.contains("COVERING INDEX links_by_order"), "{plan}");
        assert!(plan.contains("COVERING INDEX links_by_reference"), "{plan}");
    }

    #[test]
    fn the_board_holds_todays_links_then_the_weeks_pending_ones_from_two_index_ranges() {
        let mut store = store();
        let t0 = DateTime::from_timestamp(1_790_000_000, 0).unwrap();
        // Another profile's link, in both windows, never shows.
        store
            .upsert_link(
                "other",
                &link(9999, "A-X", "x", LinkStatus::Pending),
                t0 + chrono::TimeDelta::seconds(1400),
            )
            .unwrap();
        let today = t0 + chrono::TimeDelta::seconds(1000);
        let week = t0 + chrono::TimeDelta::seconds(500);
        let rows = store.history().board_links("p", today, week, 5000).unwrap();
        let mut want: Vec<(DateTime<Utc>, String)> = (0..3000u32)
            .filter(|i| i / 2 >= 1000 || (i / 2 >= 500 && i % 3 != 0))
            .map(|i| {
                (
                    t0 + chrono::TimeDelta::seconds(i64::from(i / 2)),
                    format!("lnk_{i:05}"),
                )
            })
            .collect();
        want.sort();
        want.reverse();
        let got: Vec<(DateTime<Utc>, String)> = rows
            .iter()
            .map(|r| (r.created_at, r.link.id.clone()))
            .collect();
        assert_eq!(got, want);
        assert!(rows.iter().all(|r| r.profile == "p"));
        // The limit keeps the newest.
        let few = store.history().board_links("p", today, week, 10).unwrap();
        assert_eq!(few.len(), 10);
        assert_eq!(few[0].link.id, rows[0].link.id);
        // A limit that ends among the older pending links: today's 1,000, then the newest of
        // them.
        let split = store.history().board_links("p", today, week, 1005).unwrap();
        assert_eq!(split, rows[..1005]);

        let plan = store.history().explain_board().unwrap();
        println!("board:\n{plan}");
        assert_eq!(
            plan,
            "SEARCH links USING INDEX links_recent (profile=? AND created_at>?)\n\
             SEARCH links USING INDEX links_by_status (profile=? AND status=? AND created_at>? AND created_at<?)\n"
        );
    }
}
