//! The pending-request journal (docs/design.md §2): one row per idempotent write request, committed
//! durably before its first byte is sent, so that a crash, a lost answer or a second click can
//! never turn one order into two links.
//!
//! A row is identified by (profile, endpoint, idempotency key) and moves through
//! `pending → completed | failed | conflict | abandoned`, or `pending → stale` when it is
//! [`STALE_AFTER`] old (an hour short of the server's 24-hour key retention). `journal_begin` is
//! the only way in, and decides in one `BEGIN IMMEDIATE` transaction whether a request may be
//! sent: a pending row means a request is (or may be) in flight, and a stale one that the
//! server may have forgotten its key, so for both nothing is written and nothing may be sent.
//! Only `journal_revive` (the user's explicit "send it again anyway") brings a stale row back.
//!
//! Bodies are the exact bytes sent (they may hold payer e-mail and phone, never card data:
//! card save is not journaled), so `Debug` shows their length only. A finished row keeps its
//! body [`JOURNAL_BODY_RETENTION`] (7 days), then `Store::journal_prune` clears it and keeps the row.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, TimeDelta, Utc};
use rusqlite::{Transaction, params, params_from_iter};
use rust_decimal::Decimal;

use super::repo::{Write, repository};
use super::{Store, StoreError, from_millis, parse_decimal_opt, to_millis, write_tx};
use crate::domain::Currency;
use crate::secrets::Redacted;

/// How long the server keeps an idempotency key (spec: 24 hours).
pub const IDEMPOTENCY_RETENTION: TimeDelta = TimeDelta::hours(24);

/// A pending row this old is `stale`: a re-send may reach a server that has forgotten the key
/// and make a second link. An hour short of [`IDEMPOTENCY_RETENTION`], a margin for a server
/// clock ahead of ours and for the time a re-send takes to arrive.
pub const STALE_AFTER: TimeDelta = TimeDelta::hours(23);

/// How long a finished journal row keeps its request body: 7 days after it finished. The server
/// keeps a key 24 hours, and the row is only read for its state and link from then on; the week
/// leaves the days around a problem (a Monday looking into Friday's orders) to read what was
/// sent, then the payer's contact data goes. See [`Store::journal_prune`].
pub const JOURNAL_BODY_RETENTION: TimeDelta = TimeDelta::days(7);

/// Clears the bodies of finished rows last changed at or before ?1, through the partial index
/// `journal_bodies_kept` (its `WHERE` is the index's; the state index alone would read every
/// finished row ever kept).
const PRUNE_SQL: &str = "UPDATE journal INDEXED BY journal_bodies_kept SET body = x''
     WHERE state IN ('completed', 'failed', 'conflict', 'abandoned') AND length(body) > 0
         AND updated_at <= ?1";

/// The state of a journal row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JournalState {
    /// Committed; sent zero or more times; outcome not known yet.
    Pending,
    /// The server answered with the link; it is in history.
    Completed,
    /// The server rejected the request (a business error); the key may be used again.
    Failed,
    /// The server says the key was used for another request.
    Conflict,
    /// Pending for [`STALE_AFTER`]: the server may forget the key; check before re-sending.
    Stale,
    /// The user gave up on it.
    Abandoned,
}

impl JournalState {
    /// Every state.
    pub const ALL: [JournalState; 6] = [
        JournalState::Pending,
        JournalState::Completed,
        JournalState::Failed,
        JournalState::Conflict,
        JournalState::Stale,
        JournalState::Abandoned,
    ];

    /// The state as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            JournalState::Pending => "pending",
            JournalState::Completed => "completed",
            JournalState::Failed => "failed",
            JournalState::Conflict => "conflict",
            JournalState::Stale => "stale",
            JournalState::Abandoned => "abandoned",
        }
    }
}

impl fmt::Display for JournalState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for JournalState {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        JournalState::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| StoreError::Corrupt {
                what: "journal state",
                value: s.to_owned(),
            })
    }
}

/// What identifies a journal row: the server scopes idempotency keys by business and endpoint,
/// and each profile is one business.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JournalKey {
    /// Profile name.
    pub profile: String,
    /// Endpoint name (`api::endpoints::Endpoint::name`).
    pub endpoint: String,
    /// The `Idempotency-Key` header value.
    pub key: String,
}

impl JournalKey {
    /// A key from its parts.
    pub fn new(
        profile: impl Into<String>,
        endpoint: impl Into<String>,
        key: impl Into<String>,
    ) -> Self {
        Self {
            profile: profile.into(),
            endpoint: endpoint.into(),
            key: key.into(),
        }
    }
}

/// A request about to be sent for the first time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJournalRow {
    /// Profile, endpoint and idempotency key.
    pub key: JournalKey,
    /// The exact body bytes; every retry sends these. They may hold payer contact data, so
    /// `Debug` never shows them.
    pub body: Redacted<Vec<u8>>,
    /// The order number, for the pending list and the duplicate check.
    pub order_number: Option<String>,
    /// The amount, for the pending list.
    pub amount: Option<Decimal>,
    /// The currency, for the pending list.
    pub currency: Option<Currency>,
    /// When the row is committed.
    pub now: DateTime<Utc>,
    /// The staff member who began it (`None`: staff are off); the link is his or hers
    /// whoever finishes the send.
    pub began_by: Option<String>,
}

/// A journal row as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalRow {
    /// Local row id.
    pub id: i64,
    /// The request as it was begun: its `now` is when it was first committed (the 24-hour
    /// clock starts here), its body empty once a finished row's body is cleared
    /// ([`Store::journal_prune`]).
    pub begun: NewJournalRow,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// State.
    pub state: JournalState,
    /// How many times it was sent.
    pub attempts: u32,
    /// The last error seen (transport or server), for the pending list.
    pub last_error: Option<String>,
    /// The link's id once completed.
    pub link_id: Option<String>,
}

impl JournalRow {
    /// Whether a re-send at `now` may reach a server that has forgotten the key.
    pub fn is_stale_at(&self, now: DateTime<Utc>) -> bool {
        now - self.begun.now >= STALE_AFTER
    }
}

/// How the server refused a request ([`Store::journal_refused`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A business error: the row ends `failed` and the key may be used again.
    Rejected,
    /// The key was used for another request: the row ends `conflict`.
    KeyReused,
}

/// What `journal_begin` decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JournalBegin {
    /// The row is committed as `pending` (new, or replacing a failed/abandoned/stale one):
    /// send the request.
    Started(JournalRow),
    /// A request with this key is pending: do NOT send; nothing was written.
    AlreadyPending(JournalRow),
    /// A request with this key completed, conflicted, or is stale: do NOT send; show its
    /// result, or (stale) why it must be checked first.
    AlreadyDone(JournalRow),
}

impl JournalBegin {
    /// The row, whatever the decision.
    pub fn row(&self) -> &JournalRow {
        match self {
            JournalBegin::Started(r)
            | JournalBegin::AlreadyPending(r)
            | JournalBegin::AlreadyDone(r) => r,
        }
    }
}

const COLUMNS: &str = "id, profile, endpoint, idem_key, body, order_number, amount, currency, \
     created_at, updated_at, state, attempts, last_error, link_id, began_by";

fn read_row(r: &rusqlite::Row<'_>) -> Result<JournalRow, StoreError> {
    let currency: Option<String> = r.get(7)?;
    let state: String = r.get(10)?;
    let attempts: i64 = r.get(11)?;
    Ok(JournalRow {
        id: r.get(0)?,
        begun: NewJournalRow {
            key: JournalKey {
                profile: r.get(1)?,
                endpoint: r.get(2)?,
                key: r.get(3)?,
            },
            body: Redacted(r.get(4)?),
            order_number: r.get(5)?,
            amount: parse_decimal_opt(r.get(6)?, "journal amount")?,
            currency: currency
                .map(|c| {
                    Currency::from_str(&c).map_err(|_| StoreError::Corrupt {
                        what: "journal currency",
                        value: c,
                    })
                })
                .transpose()?,
            now: from_millis(r.get(8)?)?,
            began_by: r.get(14)?,
        },
        updated_at: from_millis(r.get(9)?)?,
        state: state.parse()?,
        attempts: u32::try_from(attempts).map_err(|_| StoreError::Corrupt {
            what: "attempt count",
            value: attempts.to_string(),
        })?,
        last_error: r.get(12)?,
        link_id: r.get(13)?,
    })
}

fn collect_rows(mut rows: rusqlite::Rows<'_>) -> Result<Vec<JournalRow>, StoreError> {
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(read_row(r)?);
    }
    Ok(out)
}

repository!(
    /// The `journal` table: its rows and its state changes, each one statement (the units of
    /// work below decide, in their transaction, which change a row may take).
    Journal
);

impl<A> Journal<'_, A> {
    /// The row with this key.
    pub fn get(&self, key: &JournalKey) -> Result<Option<JournalRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND endpoint = ?2 AND idem_key = ?3"
        ))?;
        let mut rows = stmt.query(params![key.profile, key.endpoint, key.key])?;
        rows.next()?.map(read_row).transpose()
    }

    /// The row with this local id.
    pub fn by_id(&self, id: i64) -> Result<Option<JournalRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM journal WHERE id = ?1"))?;
        let mut rows = stmt.query([id])?;
        rows.next()?.map(read_row).transpose()
    }

    /// The row with this local id, which must exist.
    fn existing(&self, id: i64) -> Result<JournalRow, StoreError> {
        self.by_id(id)?
            .ok_or(StoreError::Sqlite(rusqlite::Error::QueryReturnedNoRows))
    }

    /// Every row of a profile with this idempotency key, whatever the endpoint (the CLI's
    /// `pending retry KEY`; keys embed the operation, so this is normally one row).
    pub fn find(&self, profile: &str, key: &str) -> Result<Vec<JournalRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND idem_key = ?2 ORDER BY id"
        ))?;
        collect_rows(stmt.query(params![profile, key])?)
    }

    /// A profile's rows in the given states (all states when `states` is empty), oldest first.
    pub fn list(
        &self,
        profile: &str,
        states: &[JournalState],
    ) -> Result<Vec<JournalRow>, StoreError> {
        let states: Vec<&str> = if states.is_empty() {
            JournalState::ALL.iter().map(|s| s.as_str()).collect()
        } else {
            states.iter().map(|s| s.as_str()).collect()
        };
        let marks = vec!["?"; states.len()].join(", ");
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM journal WHERE profile = ? AND state IN ({marks})
             ORDER BY created_at, id"
        ))?;
        let args = std::iter::once(profile).chain(states);
        collect_rows(stmt.query(params_from_iter(args))?)
    }

    /// A profile's pending rows younger than [`STALE_AFTER`], oldest first: the ones to
    /// resume.
    pub fn resumable(
        &self,
        profile: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<JournalRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM journal
             WHERE state = 'pending' AND profile = ?1 AND created_at > ?2
             ORDER BY created_at, id"
        ))?;
        collect_rows(stmt.query(params![profile, to_millis(now - STALE_AFTER)])?)
    }

    /// Whether a row of `profile` has exactly this order number.
    pub(super) fn has_order_number(&self, profile: &str, order: &str) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM journal WHERE profile = ?1 AND order_number = ?2)",
            params![profile, order],
            |r| r.get(0),
        )?)
    }

    /// How many pending rows a profile has.
    pub fn pending_count(&self, profile: &str) -> Result<usize, StoreError> {
        let n: i64 = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM journal WHERE profile = ?1 AND state = 'pending'",
            )?
            .query_row([profile], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }
}

impl Journal<'_, Write> {
    /// Commits `row` as pending, new or over the finished row of its key (its bytes, its
    /// clock and its count start over); returns it as stored.
    fn start(&self, row: &NewJournalRow) -> Result<JournalRow, StoreError> {
        let id = self.conn.query_row(
            "INSERT INTO journal (profile, endpoint, idem_key, body, order_number, amount,
                 currency, created_at, updated_at, state, attempts, began_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, 'pending', 0, ?9)
             ON CONFLICT (profile, endpoint, idem_key) DO UPDATE SET
                 body = excluded.body, order_number = excluded.order_number,
                 amount = excluded.amount, currency = excluded.currency,
                 created_at = excluded.created_at, updated_at = excluded.updated_at,
                 state = 'pending', attempts = 0, last_error = NULL, link_id = NULL,
                 began_by = excluded.began_by
             RETURNING id",
            params![
                row.key.profile,
                row.key.endpoint,
                row.key.key,
                *row.body,
                row.order_number,
                row.amount.map(|a| a.to_string()),
                row.currency.map(Currency::as_str),
                to_millis(row.now),
                row.began_by
            ],
            |r| r.get(0),
        )?;
        self.existing(id)
    }

    /// Counts one more send of the row `id`, with the error it met.
    fn attempted(
        &self,
        id: i64,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE journal SET attempts = attempts + 1, last_error = ?2, updated_at = ?3
             WHERE id = ?1",
            params![id, error, to_millis(now)],
        )?;
        Ok(())
    }

    /// Marks the row `id` completed with the link `link_id`.
    pub(super) fn completed(
        &self,
        id: i64,
        link_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE journal SET state = 'completed', link_id = ?2, updated_at = ?3
             WHERE id = ?1",
            params![id, link_id, to_millis(now)],
        )?;
        Ok(())
    }

    /// Moves the row `id` to the finished state `to`, keeping its last error unless `error`.
    fn finished(
        &self,
        id: i64,
        to: JournalState,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE journal SET state = ?2, last_error = coalesce(?3, last_error),
                 updated_at = ?4
             WHERE id = ?1",
            params![id, to.as_str(), error, to_millis(now)],
        )?;
        Ok(())
    }

    /// Makes the row `id` pending again, its clock started at `now`.
    fn revived(&self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE journal SET state = 'pending', created_at = ?2, updated_at = ?2
             WHERE id = ?1",
            params![id, to_millis(now)],
        )?;
        Ok(())
    }

    /// Marks pending rows at least [`STALE_AFTER`] old at `now` as stale; returns how many.
    fn mark_stale(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        Ok(self.conn.execute(
            "UPDATE journal SET state = 'stale', updated_at = ?1
             WHERE state = 'pending' AND created_at <= ?2",
            params![to_millis(now), to_millis(now - STALE_AFTER)],
        )?)
    }

    /// Clears the bodies of finished rows last changed at or before `cutoff`; returns how many.
    fn clear_bodies(&self, cutoff: DateTime<Utc>) -> Result<usize, StoreError> {
        Ok(self.conn.execute(PRUNE_SQL, [to_millis(cutoff)])?)
    }
}

/// The units of work of the journal's own rows (the one that completes a row with its link
/// is "a link was created", `Store::journal_complete` in `store::changes`).
impl Store {
    /// The journal's reads.
    pub fn journal(&self) -> Journal<'_> {
        Journal::read(&self.conn)
    }

    /// Commits a new pending request durably, or tells why it must not be sent (see
    /// [`JournalBegin`]). One `BEGIN IMMEDIATE` transaction: two callers racing on one key
    /// get one `Started` and one `AlreadyPending`.
    pub fn journal_begin(&mut self, row: &NewJournalRow) -> Result<JournalBegin, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let journal = Journal::write(&tx);
        let outcome = match journal.get(&row.key)? {
            Some(existing) if existing.state == JournalState::Pending => {
                JournalBegin::AlreadyPending(existing)
            }
            Some(existing)
                if matches!(
                    existing.state,
                    JournalState::Completed | JournalState::Conflict | JournalState::Stale
                ) =>
            {
                JournalBegin::AlreadyDone(existing)
            }
            _ => JournalBegin::Started(journal.start(row)?),
        };
        tx.commit()?;
        Ok(outcome)
    }

    /// Runs `change` on the row in one transaction if its state is one of `from`; returns the
    /// row as `change` left it.
    pub(super) fn journal_transition(
        &mut self,
        key: &JournalKey,
        from: &[JournalState],
        action: &'static str,
        change: impl FnOnce(&Transaction<'_>, &JournalRow) -> Result<(), StoreError>,
    ) -> Result<JournalRow, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let row = Journal::write(&tx)
            .get(key)?
            .ok_or_else(|| StoreError::NoJournalRow(key.key.clone()))?;
        if !from.contains(&row.state) {
            return Err(StoreError::JournalState {
                key: key.key.clone(),
                state: row.state,
                action,
            });
        }
        change(&tx, &row)?;
        let updated = Journal::write(&tx).existing(row.id)?;
        tx.commit()?;
        Ok(updated)
    }

    /// Records one more send of a pending request, with the error it met (if any).
    pub fn journal_attempt(
        &mut self,
        key: &JournalKey,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<JournalRow, StoreError> {
        self.journal_transition(
            key,
            &[JournalState::Pending],
            "count an attempt",
            |tx, row| Journal::write(tx).attempted(row.id, error, now),
        )
    }

    fn journal_finish(
        &mut self,
        key: &JournalKey,
        from: &[JournalState],
        to: JournalState,
        error: Option<&str>,
        action: &'static str,
        now: DateTime<Utc>,
    ) -> Result<JournalRow, StoreError> {
        self.journal_transition(key, from, action, |tx, row| {
            Journal::write(tx).finished(row.id, to, error, now)
        })
    }

    /// The server refused the request: a business error (the key may be used again) or the
    /// key used for another request.
    pub fn journal_refused(
        &mut self,
        key: &JournalKey,
        refusal: Refusal,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<JournalRow, StoreError> {
        let (to, action) = match refusal {
            Refusal::Rejected => (JournalState::Failed, "mark it failed"),
            Refusal::KeyReused => (JournalState::Conflict, "mark it a conflict"),
        };
        self.journal_finish(key, &[JournalState::Pending], to, Some(error), action, now)
    }

    /// The user checked that the server holds no link for a stale request and wants it sent
    /// again: the row is pending once more, its 23-hour clock started afresh (the server, having
    /// forgotten the key, takes the next send as new).
    pub fn journal_revive(
        &mut self,
        key: &JournalKey,
        now: DateTime<Utc>,
    ) -> Result<JournalRow, StoreError> {
        self.journal_transition(key, &[JournalState::Stale], "send it again", |tx, row| {
            Journal::write(tx).revived(row.id, now)
        })
    }

    /// The user gives up on a pending or stale request.
    pub fn journal_abandon(
        &mut self,
        key: &JournalKey,
        now: DateTime<Utc>,
    ) -> Result<JournalRow, StoreError> {
        self.journal_finish(
            key,
            &[JournalState::Pending, JournalState::Stale],
            JournalState::Abandoned,
            None,
            "abandon it",
            now,
        )
    }

    /// Marks pending rows (of every profile) at least [`STALE_AFTER`] old as `stale`; returns
    /// how many. Run before any decision to send.
    pub fn journal_mark_stale(&mut self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let marked = Journal::write(&tx).mark_stale(now)?;
        tx.commit()?;
        Ok(marked)
    }

    /// Clears the body of every finished row (completed, failed, conflict, abandoned) that
    /// finished at least [`JOURNAL_BODY_RETENTION`] before `now`, and keeps the row itself;
    /// returns how many bodies were cleared. A body holds the payer's e-mail and phone and is
    /// never sent again once its row is finished: a completed row's items are in `link_items`
    /// (copied by [`Store::journal_complete`]), and a failed or abandoned row that is started
    /// again takes the new request's body. The row stays because `journal_begin` decides from
    /// it that an order is done: without it a later create of the same order would send the
    /// key again, and past the server's 24 hours make a second link. Pending and stale rows
    /// keep their bytes: a re-send needs them.
    ///
    /// The connection overwrites freed content with zeros (`secure_delete`), and after
    /// clearing anything the write-ahead log is checkpointed and truncated (when no reader
    /// holds it), so the bytes leave the file, not only the row. Its own index
    /// (`journal_bodies_kept`, migration 7) holds only the rows that still have a body, so a
    /// run with nothing to clear reads nothing.
    pub fn journal_prune(&mut self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let cleared = Journal::write(&tx).clear_bodies(now - JOURNAL_BODY_RETENTION)?;
        tx.commit()?;
        if cleared > 0 {
            let (busy, _, _): (i64, i64, i64) =
                self.conn
                    .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })?;
            if busy != 0 {
                tracing::info!(
                    "journal bodies cleared; the log is truncated at a later checkpoint"
                );
            }
        }
        Ok(cleared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prune reads its partial index, which holds only finished rows that still have a
    /// body: the rows it cleared before are not read again.
    #[test]
    fn the_prune_reads_only_the_rows_that_still_hold_a_body() {
        let store = Store::open_in_memory().expect("a store");
        let plan = store.history().explain(PRUNE_SQL, &[]).expect("a plan");
        assert_eq!(
            plan.trim_end(),
            "SEARCH journal USING INDEX journal_bodies_kept (updated_at<?)"
        );
    }
}
