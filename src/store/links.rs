//! Link history's writes and rows: every link this install created or looked up, with every
//! response field, stored once per id (an upsert that keeps the kept report totals in step,
//! see `tallies`), read back as [`StoredLink`]. Searching, paging and totals are in `search`.
//!
//! Writes take the server's answer (`PaymentLink`) and keep its fields as received, a field
//! left out keeping what history had. Reads give the read model: a row is decoded into the
//! answer it holds and read through the one conversion (`api::read`), so a stored link is the
//! same [`Link`] the service returns for a fresh answer.

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::params;

use super::repo::{Write, repository};
use super::tallies::Tallies;
use super::{
    Columns, Store, StoreError, col, from_millis, parse_decimal_opt, read_currency, to_millis,
    write_tx,
};
use crate::api::wire::{PaymentLink, format_time, parse_time};
use crate::clock::Zone;
use crate::domain::{Currency, Link, LinkStatus};

/// A bulk insert at least this large merges the full-text index afterwards.
const OPTIMIZE_AFTER: usize = 10_000;

/// A link in history.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredLink {
    /// The profile it belongs to.
    pub profile: String,
    /// The link as the desk reads it, from every response field history holds.
    pub link: Link,
    /// When this install first stored it (the history's order).
    pub created_at: DateTime<Utc>,
    /// When it was last refreshed.
    pub updated_at: DateTime<Utc>,
    /// When this install cancelled it (the server then reports it EXPIRED); `None` if it never
    /// did.
    pub cancelled_at: Option<DateTime<Utc>>,
    /// The staff member who began it (`None`: made before staff existed, or staff are off).
    pub staff: Option<String>,
    /// Read from a shop: the payment another desk claims for it that no second desk's own call
    /// to the payment API has confirmed yet (`link` then holds the last confirmed status and
    /// paid amount). Always `None` for this desk's own history.
    pub unconfirmed: Option<crate::domain::LinkStatus>,
}

impl StoredLink {
    /// The cursor that pages past this link.
    pub fn cursor(&self) -> LinkCursor {
        LinkCursor {
            created_at: self.created_at,
            id: self.link.id.clone(),
        }
    }
}

/// A position in history: the page after it starts with the next older link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkCursor {
    /// The link's local `created_at`.
    pub created_at: DateTime<Utc>,
    /// The link's id (tie-break within one millisecond).
    pub id: String,
}

/// A window of local storing times, `from` included, `to` excluded: the links created in it
/// (`created_at`, when this install first stored the link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    /// The first instant in the window.
    pub from: DateTime<Utc>,
    /// The first instant after it.
    pub to: DateTime<Utc>,
}

impl TimeRange {
    /// The local days `first..=last` in `zone`: from the start of `first` to the start of the
    /// day after `last`.
    pub fn days(first: NaiveDate, last: NaiveDate, zone: Zone) -> Self {
        let after = last.succ_opt().unwrap_or(last);
        Self {
            from: zone.start_of(first),
            to: zone.start_of(after),
        }
    }

    /// A filter's optional first and last local day (both included); `None` when neither is
    /// given. A missing end is open.
    pub fn between(first: Option<NaiveDate>, last: Option<NaiveDate>, zone: Zone) -> Option<Self> {
        if first.is_none() && last.is_none() {
            return None;
        }
        Some(Self {
            from: first.map_or(DateTime::<Utc>::MIN_UTC, |d| zone.start_of(d)),
            to: last
                .and_then(|d| d.succ_opt())
                .map_or(DateTime::<Utc>::MAX_UTC, |d| zone.start_of(d)),
        })
    }
}

/// The columns a [`StoredLink`] is read from, in `SELECT` order.
pub(super) const LINK: Columns<25> = Columns([
    "profile",
    "id",
    "reference_number",
    "order_number",
    "payment_url",
    "transaction_ref",
    "amount",
    "paid_amount",
    "remaining_amount",
    "currency",
    "status",
    "description",
    "allow_partial_payment",
    "enable_installment",
    "available_installments",
    "email",
    "phone_country_code",
    "phone_number",
    "expiry_date",
    "completed_date",
    "created_date",
    "created_at",
    "updated_at",
    "cancelled_at",
    "staff",
]);

fn time_text(t: Option<DateTime<Utc>>) -> Option<String> {
    t.map(format_time)
}

fn read_time(text: Option<String>) -> Result<Option<DateTime<Utc>>, StoreError> {
    text.map(|t| {
        parse_time(&t).ok_or(StoreError::Corrupt {
            what: "link timestamp",
            value: t,
        })
    })
    .transpose()
}

pub(super) fn read_link(r: &rusqlite::Row<'_>) -> Result<StoredLink, StoreError> {
    Ok(StoredLink {
        profile: r.get(col!(LINK, "profile"))?,
        link: Link::from(read_answer(r)?),
        created_at: from_millis(r.get(col!(LINK, "created_at"))?)?,
        updated_at: from_millis(r.get(col!(LINK, "updated_at"))?)?,
        cancelled_at: r
            .get::<_, Option<i64>>(col!(LINK, "cancelled_at"))?
            .map(from_millis)
            .transpose()?,
        staff: r.get(col!(LINK, "staff"))?,
        unconfirmed: None,
    })
}

/// The answer a row holds: the response fields as received (merged over the answers stored),
/// a field no answer had still missing.
fn read_answer(r: &rusqlite::Row<'_>) -> Result<PaymentLink, StoreError> {
    let currency: Option<String> = r.get(col!(LINK, "currency"))?;
    let status: Option<String> = r.get(col!(LINK, "status"))?;
    Ok(PaymentLink {
        id: r.get(col!(LINK, "id"))?,
        reference_number: r.get(col!(LINK, "reference_number"))?,
        order_number: r.get(col!(LINK, "order_number"))?,
        payment_url: r.get(col!(LINK, "payment_url"))?,
        transaction_ref: r.get(col!(LINK, "transaction_ref"))?,
        amount: parse_decimal_opt(r.get(col!(LINK, "amount"))?, "link amount")?,
        paid_amount: parse_decimal_opt(r.get(col!(LINK, "paid_amount"))?, "link paid amount")?,
        remaining_amount: parse_decimal_opt(
            r.get(col!(LINK, "remaining_amount"))?,
            "link remaining amount",
        )?,
        currency: currency.as_deref().map(read_currency).transpose()?,
        status: status.map(|s| LinkStatus::from_wire(&s)),
        description: r.get(col!(LINK, "description"))?,
        allow_partial_payment: r.get(col!(LINK, "allow_partial_payment"))?,
        enable_installment: r.get(col!(LINK, "enable_installment"))?,
        available_installments: r.get(col!(LINK, "available_installments"))?,
        email: r.get(col!(LINK, "email"))?,
        phone_country_code: r.get(col!(LINK, "phone_country_code"))?,
        phone_number: r.get(col!(LINK, "phone_number"))?,
        expiry_date: read_time(r.get(col!(LINK, "expiry_date"))?)?,
        completed_date: read_time(r.get(col!(LINK, "completed_date"))?)?,
        created_date: read_time(r.get(col!(LINK, "created_date"))?)?,
    })
}

pub(super) fn collect(mut rows: rusqlite::Rows<'_>) -> Result<Vec<StoredLink>, StoreError> {
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(read_link(r)?);
    }
    Ok(out)
}

repository!(
    /// The `links` table (and the full-text indexes its triggers keep): a link's row as
    /// stored, merged and read back.
    Links
);

impl<A> Links<'_, A> {
    /// A link of a profile by id.
    pub fn get(&self, profile: &str, id: &str) -> Result<Option<StoredLink>, StoreError> {
        let cols = LINK.list();
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {cols} FROM links WHERE profile = ?1 AND id = ?2"
        ))?;
        let mut rows = stmt.query(params![profile, id])?;
        rows.next()?.map(read_link).transpose()
    }

    /// The newest link of a profile with this order number (ASCII case-insensitive) stored at
    /// or after `since`: "this order already has a link from the last 24 hours".
    pub fn find_recent_by_order(
        &self,
        profile: &str,
        order_number: &str,
        since: DateTime<Utc>,
    ) -> Result<Option<StoredLink>, StoreError> {
        let cols = LINK.list();
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {cols} FROM links INDEXED BY links_by_order
             WHERE profile = ?1 AND order_number = ?2 AND created_at >= ?3
             ORDER BY created_at DESC LIMIT 1"
        ))?;
        let mut rows = stmt.query(params![profile, order_number, to_millis(since)])?;
        rows.next()?.map(read_link).transpose()
    }

    /// Whether a link of `profile` has exactly this order number.
    pub(super) fn has_order_number(&self, profile: &str, order: &str) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM links WHERE profile = ?1 AND order_number = ?2)",
            params![profile, order],
            |r| r.get(0),
        )?)
    }

    /// Every link's profile and id, in the order they were first stored.
    pub(super) fn keys_in_order(&self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(self
            .conn
            .prepare("SELECT profile, id FROM links ORDER BY seq")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?)
    }
}

impl Links<'_, Write> {
    /// Stores or refreshes a link. A field the new answer leaves out (null) keeps the value
    /// history has: a partial answer never erases what is known. `created_at` is kept from the
    /// first store. (The kept report totals follow through `Tallies::track`, which the unit
    /// of work runs this in.)
    pub(super) fn upsert(
        &self,
        profile: &str,
        l: &PaymentLink,
        created_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "INSERT INTO links (profile, id, reference_number, order_number, payment_url,
                 transaction_ref, amount, paid_amount, remaining_amount, currency, status, description,
                 allow_partial_payment, enable_installment, available_installments, email,
                 phone_country_code, phone_number, expiry_date, completed_date, created_date,
                 created_at, updated_at, late)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                 ?19, ?20, ?21, ?22, ?23,
                 EXISTS (SELECT 1 FROM links INDEXED BY links_recent
                         WHERE profile = ?1 AND (created_at, id) > (?22, ?2)))
             ON CONFLICT (profile, id) DO UPDATE SET
                 reference_number = coalesce(excluded.reference_number, reference_number),
                 order_number = coalesce(excluded.order_number, order_number),
                 payment_url = coalesce(excluded.payment_url, payment_url),
                 transaction_ref = coalesce(excluded.transaction_ref, transaction_ref),
                 amount = coalesce(excluded.amount, amount),
                 paid_amount = coalesce(excluded.paid_amount, paid_amount),
                 remaining_amount = coalesce(excluded.remaining_amount, remaining_amount),
                 currency = coalesce(excluded.currency, currency),
                 status = coalesce(excluded.status, status),
                 description = coalesce(excluded.description, description),
                 allow_partial_payment = coalesce(excluded.allow_partial_payment, allow_partial_payment),
                 enable_installment = coalesce(excluded.enable_installment, enable_installment),
                 available_installments = coalesce(excluded.available_installments, available_installments),
                 email = coalesce(excluded.email, email),
                 phone_country_code = coalesce(excluded.phone_country_code, phone_country_code),
                 phone_number = coalesce(excluded.phone_number, phone_number),
                 expiry_date = coalesce(excluded.expiry_date, expiry_date),
                 completed_date = coalesce(excluded.completed_date, completed_date),
                 created_date = coalesce(excluded.created_date, created_date),
                 updated_at = excluded.updated_at",
        )?;
        stmt.execute(params![
            profile,
            l.id,
            l.reference_number,
            l.order_number,
            l.payment_url,
            l.transaction_ref,
            l.amount.map(|a| a.to_string()),
            l.paid_amount.map(|a| a.to_string()),
            l.remaining_amount.map(|a| a.to_string()),
            l.currency.map(Currency::as_str),
            l.status.as_ref().map(LinkStatus::as_str),
            l.description,
            l.allow_partial_payment,
            l.enable_installment,
            l.available_installments,
            l.email,
            l.phone_country_code,
            l.phone_number,
            time_text(l.expiry_date),
            time_text(l.completed_date),
            time_text(l.created_date),
            to_millis(created_at),
            to_millis(now),
        ])?;
        Ok(())
    }

    /// Names the member who began a link, once: a later refresh or another clerk's retry keeps
    /// the first owner.
    pub(super) fn set_owner(
        &self,
        profile: &str,
        id: &str,
        began_by: Option<&str>,
    ) -> Result<(), StoreError> {
        if let Some(name) = began_by {
            self.conn.execute(
                "UPDATE links SET staff = coalesce(staff, ?3) WHERE profile = ?1 AND id = ?2",
                params![profile, id, name],
            )?;
        }
        Ok(())
    }

    /// Marks a link cancelled through paydesk at `now` (the first cancel's time is kept).
    pub(super) fn mark_cancelled(
        &self,
        profile: &str,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE links SET cancelled_at = coalesce(cancelled_at, ?3)
             WHERE profile = ?1 AND id = ?2",
            params![profile, id, to_millis(now)],
        )?;
        Ok(())
    }

    /// Merges the full-text indexes' segments, so word search reads one b-tree.
    fn optimize_words(&self) -> Result<(), StoreError> {
        self.conn.execute_batch(
            "INSERT INTO links_words (links_words) VALUES ('optimize');
                 INSERT INTO links_codes (links_codes) VALUES ('optimize');",
        )?;
        Ok(())
    }
}

impl Store {
    /// History's link rows (the searches are `History::search_links` and its kin).
    pub fn links(&self) -> Links<'_> {
        Links::read(&self.conn)
    }

    /// Stores many links in one transaction, each with its own local `created_at` (imports,
    /// and the synthetic histories of tests and benches), with their totals. Returns how many
    /// were given.
    pub fn insert_links_bulk<I>(&mut self, profile: &str, links: I) -> Result<usize, StoreError>
    where
        I: IntoIterator<Item = (PaymentLink, DateTime<Utc>)>,
    {
        let tx = write_tx(&mut self.conn)?;
        let rows = Links::write(&tx);
        let mut tallies = Tallies::write(&tx);
        let mut n = 0;
        for (link, created_at) in links {
            tallies.track(profile, &link.id, || {
                rows.upsert(profile, &link, created_at, created_at)
            })?;
            n += 1;
        }
        tallies.finish()?;
        tx.commit()?;
        if n >= OPTIMIZE_AFTER {
            // Merge the full-text index's segments so word search reads one b-tree. Smaller
            // batches are left to FTS5's automatic merging: optimizing rewrites the whole index.
            let tx = write_tx(&mut self.conn)?;
            Links::write(&tx).optimize_words()?;
            tx.commit()?;
        }
        Ok(n)
    }
}
