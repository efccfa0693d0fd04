//! The audit record: who did what and when, appended in the same transaction as the change it
//! records, in a table whose triggers refuse `UPDATE` and `DELETE`, each row chained to the one
//! before by a SHA-256 (docs/design.md §"Staff" has the encoding).
//!
//! The hash of row `seq` is SHA-256 over the bytes `paydesk-audit-1\n` followed by each of
//! `seq`, `at` (Unix milliseconds), `staff`, `approved_by`, `action`, `subject` and
//! `prev_hash`, each written as its length in bytes in decimal, a `:`, its UTF-8 bytes and a
//! `\n` (an absent name is the empty string). The first row's `prev_hash` is [`SEED`]. A row
//! edited, removed or inserted in the middle breaks the chain at that row; a chain rewritten
//! whole is caught by comparing its head with a head noted earlier (the day close prints it).

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::repo::{Write, repository};
use super::{Store, StoreError, from_millis, to_millis, write_tx};
use crate::domain::Actor;
use crate::domain::share::SendMark;

/// The `prev_hash` of the first row: 64 zeros.
pub const SEED: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What an audit row records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditAction {
    /// A link was created (its owner is the member who began it).
    LinkCreate,
    /// A link was cancelled.
    LinkCancel,
    /// A link was sent to its payer: the subject names the link, the channel (`e-mail`,
    /// `whatsapp`) and the masked address or number (`store::send_subject`).
    LinkSend,
    /// The shop's SMTP account was set (host, port, security, sender).
    MailSettings,
    /// A card was saved.
    CardSave,
    /// A catalog was imported.
    CatalogImport,
    /// A catalog item was edited (its barcode).
    CatalogEdit,
    /// A profile was added or changed.
    ProfileSave,
    /// A profile was removed.
    ProfileRemove,
    /// A profile's API secret was stored.
    SecretStore,
    /// A staff member was added.
    StaffAdd,
    /// A staff member was disabled.
    StaffDisable,
    /// A staff member was enabled.
    StaffEnable,
    /// A staff member's PIN was reset.
    StaffResetPin,
    /// A manager's PIN approved one action of a clerk.
    Approve,
    /// A member signed in.
    SignIn,
    /// A member reached a wait after wrong PINs.
    Lockout,
    /// This desk's own call to the payment API answered less than another desk claimed (a
    /// joined desk): the subject names the link, the claim and its desk, and the answer.
    LinkContradicted,
    /// A receipt of a link paid in full was queued to its payer: the subject names the link,
    /// `e-mail` and the masked address (`store::send_subject`).
    LinkReceipt,
}

impl AuditAction {
    /// Every action.
    pub const ALL: [AuditAction; 19] = [
        AuditAction::LinkCreate,
        AuditAction::LinkCancel,
        AuditAction::LinkSend,
        AuditAction::MailSettings,
        AuditAction::CardSave,
        AuditAction::CatalogImport,
        AuditAction::CatalogEdit,
        AuditAction::ProfileSave,
        AuditAction::ProfileRemove,
        AuditAction::SecretStore,
        AuditAction::StaffAdd,
        AuditAction::StaffDisable,
        AuditAction::StaffEnable,
        AuditAction::StaffResetPin,
        AuditAction::Approve,
        AuditAction::SignIn,
        AuditAction::Lockout,
        AuditAction::LinkContradicted,
        AuditAction::LinkReceipt,
    ];

    /// The action as stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::LinkCreate => "link.create",
            AuditAction::LinkCancel => "link.cancel",
            AuditAction::LinkSend => "link.send",
            AuditAction::MailSettings => "mail.settings",
            AuditAction::CardSave => "card.save",
            AuditAction::CatalogImport => "catalog.import",
            AuditAction::CatalogEdit => "catalog.edit",
            AuditAction::ProfileSave => "profile.save",
            AuditAction::ProfileRemove => "profile.remove",
            AuditAction::SecretStore => "secret.store",
            AuditAction::StaffAdd => "staff.add",
            AuditAction::StaffDisable => "staff.disable",
            AuditAction::StaffEnable => "staff.enable",
            AuditAction::StaffResetPin => "staff.reset-pin",
            AuditAction::Approve => "approve",
            AuditAction::SignIn => "sign-in",
            AuditAction::Lockout => "lockout",
            AuditAction::LinkContradicted => "link.contradicted",
            AuditAction::LinkReceipt => "link.receipt",
        }
    }

    /// Reads a stored action.
    pub fn parse(s: &str) -> Option<AuditAction> {
        AuditAction::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// One row of the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRow {
    /// Its place in the chain, from 1.
    pub seq: i64,
    /// When.
    pub at: DateTime<Utc>,
    /// Who (`None`: nobody signed in, staff were off).
    pub staff: Option<String>,
    /// The manager who approved it.
    pub approved_by: Option<String>,
    /// What, as stored (`link.cancel`).
    pub action: String,
    /// Of what: a link id and order number, a member's name, a profile.
    pub subject: String,
    /// The previous row's hash.
    pub prev_hash: String,
    /// This row's hash.
    pub hash: String,
}

/// The hash of a row's fields chained to `prev_hash` (see the module's doc).
pub fn row_hash(
    seq: i64,
    at_millis: i64,
    staff: Option<&str>,
    approved_by: Option<&str>,
    action: &str,
    subject: &str,
    prev_hash: &str,
) -> String {
    let (seq, at) = (seq.to_string(), at_millis.to_string());
    hash_fields(
        b"paydesk-audit-1\n",
        &[
            &seq,
            &at,
            staff.unwrap_or(""),
            approved_by.unwrap_or(""),
            action,
            subject,
            prev_hash,
        ],
    )
}

/// SHA-256, in hex, over `tag` then each field as its length in bytes in decimal, `:`, its
/// UTF-8 bytes and `\n`: the audit's encoding, the desk's chain and the shop's alike.
pub fn hash_fields(tag: &[u8], fields: &[&str]) -> String {
    let mut h = Sha256::new();
    h.update(tag);
    for field in fields {
        h.update(field.len().to_string().as_bytes());
        h.update(b":");
        h.update(field.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// What a walk of the chain found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainCheck {
    /// Every row is whole and chained; the head is the last row's hash (the seed when empty).
    Whole {
        /// Rows walked.
        rows: u64,
        /// The last row's hash.
        head: String,
    },
    /// The first row that does not match its fields or its predecessor.
    Broken {
        /// Its `seq` (for a missing row, the `seq` after the gap).
        seq: i64,
        /// Why, in plain words.
        why: &'static str,
    },
    /// The chain is whole but does not pass through the head noted earlier.
    HeadNotFound {
        /// Rows walked.
        rows: u64,
    },
}

/// Filters of the audit list.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    /// Only this member (as actor or approver).
    pub staff: Option<String>,
    /// Only this action.
    pub action: Option<String>,
    /// From (included).
    pub from: Option<DateTime<Utc>>,
    /// Until (excluded).
    pub until: Option<DateTime<Utc>>,
    /// At most this many, newest first (`None`: all).
    pub limit: Option<usize>,
}

fn read_row(r: &rusqlite::Row<'_>) -> Result<AuditRow, StoreError> {
    Ok(AuditRow {
        seq: r.get(0)?,
        at: from_millis(r.get(1)?)?,
        staff: r.get(2)?,
        approved_by: r.get(3)?,
        action: r.get(4)?,
        subject: r.get(5)?,
        prev_hash: r.get(6)?,
        hash: r.get(7)?,
    })
}

repository!(
    /// The append-only `audit` table: its chain's rows, appended only inside the transaction
    /// of the change they record.
    Audit
);

impl Audit<'_, Write> {
    /// Appends a row in `actor`'s name (and its approving manager's); returns the new head.
    pub(crate) fn append(
        &self,
        actor: &Actor,
        action: AuditAction,
        subject: &str,
        now: DateTime<Utc>,
    ) -> Result<String, StoreError> {
        self.append_as(
            actor.name(),
            actor.approved_by.as_deref(),
            action,
            subject,
            now,
        )
    }

    /// [`Audit::append`] with the names given apart (a link's create row names the member who
    /// began it).
    pub(crate) fn append_as(
        &self,
        staff: Option<&str>,
        approved_by: Option<&str>,
        action: AuditAction,
        subject: &str,
        now: DateTime<Utc>,
    ) -> Result<String, StoreError> {
        let last: Option<(i64, String)> = self
            .conn
            .query_row(
                "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let (seq, prev) = match last {
            Some((seq, hash)) => (seq + 1, hash),
            None => (1, SEED.to_owned()),
        };
        let at = to_millis(now);
        let hash = row_hash(seq, at, staff, approved_by, action.as_str(), subject, &prev);
        self.conn.execute(
            "INSERT INTO audit (seq, at, staff, approved_by, action, subject, prev_hash, hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                seq,
                at,
                staff,
                approved_by,
                action.as_str(),
                subject,
                prev,
                hash
            ],
        )?;
        Ok(hash)
    }
}

impl<A> Audit<'_, A> {
    /// The audit rows matching `filter`, newest first.
    pub fn list(&self, filter: &AuditFilter) -> Result<Vec<AuditRow>, StoreError> {
        let limit = filter
            .limit
            .map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, at, staff, approved_by, action, subject, prev_hash, hash FROM audit
             WHERE (?1 IS NULL OR staff = ?1 COLLATE NOCASE OR approved_by = ?1 COLLATE NOCASE)
               AND (?2 IS NULL OR action = ?2)
               AND (?3 IS NULL OR at >= ?3)
               AND (?4 IS NULL OR at < ?4)
             ORDER BY seq DESC LIMIT ?5",
        )?;
        let mut rows = stmt.query(params![
            filter.staff,
            filter.action,
            filter.from.map(to_millis),
            filter.until.map(to_millis),
            limit
        ])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(read_row(r)?);
        }
        Ok(out)
    }

    /// The `link.send` rows of link `link_id` (their subject begins with the id and a space),
    /// oldest first.
    pub fn sends_of(&self, link_id: &str) -> Result<Vec<AuditRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, at, staff, approved_by, action, subject, prev_hash, hash FROM audit
             WHERE action = 'link.send' AND substr(subject, 1, length(?1) + 1) = ?1 || ' '
             ORDER BY seq",
        )?;
        let mut rows = stmt.query([link_id])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(read_row(r)?);
        }
        Ok(out)
    }

    /// Every send recorded at or after `since`, oldest first, through the partial index of
    /// the `link.send` rows (step 16): what the board shows as "Sent by …".
    pub fn sends_since(&self, since: DateTime<Utc>) -> Result<Vec<SendMark>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT subject, at, staff FROM audit INDEXED BY audit_link_sends
             WHERE action = 'link.send' AND at >= ?1 ORDER BY at, seq",
        )?;
        let mut rows = stmt.query([to_millis(since)])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let subject: String = r.get(0)?;
            if let Some(mark) = SendMark::of_audit(&subject, from_millis(r.get(1)?)?, r.get(2)?) {
                out.push(mark);
            }
        }
        Ok(out)
    }

    /// The chain's head: the last row's hash, the seed when the record is empty.
    pub fn head(&self) -> Result<String, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT hash FROM audit ORDER BY seq DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or_else(|| SEED.to_owned()))
    }

    /// Walks the whole chain from the first row (constant memory), and with `head` also checks
    /// that the chain passes through that hash.
    pub fn verify(&self, head: Option<&str>) -> Result<ChainCheck, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT seq, at, staff, approved_by, action, subject, prev_hash, hash FROM audit
             ORDER BY seq",
        )?;
        let mut rows = stmt.query([])?;
        let mut walk = ChainWalk::new(head);
        while let Some(r) = rows.next()? {
            if let Some(broken) = walk.step(&read_row(r)?) {
                return Ok(broken);
            }
        }
        Ok(walk.finish())
    }

    /// The hash of the row `seq`, and the last row's `seq` (0 when the record is empty): what
    /// the pusher compares with the shop's copy of the chain.
    pub fn hash_at(&self, seq: i64) -> Result<(Option<String>, i64), StoreError> {
        let hash = self
            .conn
            .query_row("SELECT hash FROM audit WHERE seq = ?1", [seq], |r| r.get(0))
            .optional()?;
        let last = self
            .conn
            .query_row("SELECT coalesce(max(seq), 0) FROM audit", [], |r| r.get(0))?;
        Ok((hash, last))
    }

    /// The audit rows after `seq`, in order, at most `limit` (the pusher sends the chain to
    /// the shop from the first row the shop lacks).
    pub fn after(&self, seq: i64, limit: usize) -> Result<Vec<AuditRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, at, staff, approved_by, action, subject, prev_hash, hash FROM audit
             WHERE seq > ?1 ORDER BY seq LIMIT ?2",
        )?;
        let mut rows = stmt.query(params![seq, i64::try_from(limit).unwrap_or(i64::MAX)])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(read_row(r)?);
        }
        Ok(out)
    }
}

impl Store {
    /// The audit record's reads.
    pub fn audit(&self) -> Audit<'_> {
        Audit::read(&self.conn)
    }

    /// Appends one audit row on its own (a secret stored in the keyring, where no database
    /// change comes with it).
    pub fn audit_append(
        &mut self,
        actor: &Actor,
        action: AuditAction,
        subject: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let tx = write_tx(&mut self.conn)?;
        Audit::write(&tx).append(actor, action, subject, now)?;
        tx.commit()?;
        Ok(())
    }
}

/// A walk of one chain, row by row from the first (constant memory): the desk's own, or one
/// desk's chain in the shop.
#[derive(Debug, Clone)]
pub struct ChainWalk<'h> {
    head: Option<&'h str>,
    prev: String,
    expected_seq: i64,
    count: u64,
    head_seen: bool,
}

impl<'h> ChainWalk<'h> {
    /// A walk from the seed; with `head`, the chain must also pass through that hash.
    pub fn new(head: Option<&'h str>) -> Self {
        ChainWalk {
            head,
            prev: SEED.to_owned(),
            expected_seq: 1,
            count: 0,
            head_seen: head.is_none_or(|h| h.eq_ignore_ascii_case(SEED)),
        }
    }

    /// Takes the next row; `Some` when the chain breaks at it.
    pub fn step(&mut self, row: &AuditRow) -> Option<ChainCheck> {
        if row.seq != self.expected_seq {
            return Some(ChainCheck::Broken {
                seq: row.seq,
                why: "a row before it is missing",
            });
        }
        if row.prev_hash != self.prev {
            return Some(ChainCheck::Broken {
                seq: row.seq,
                why: "it does not follow the row before it",
            });
        }
        let computed = row_hash(
            row.seq,
            to_millis(row.at),
            row.staff.as_deref(),
            row.approved_by.as_deref(),
            &row.action,
            &row.subject,
            &row.prev_hash,
        );
        if computed != row.hash {
            return Some(ChainCheck::Broken {
                seq: row.seq,
                why: "its fields do not match its hash",
            });
        }
        if let Some(h) = self.head {
            self.head_seen |= h.eq_ignore_ascii_case(&row.hash);
        }
        self.prev.clone_from(&row.hash);
        self.expected_seq += 1;
        self.count += 1;
        None
    }

    /// The walk's result after the last row.
    pub fn finish(self) -> ChainCheck {
        if self.head_seen {
            ChainCheck::Whole {
                rows: self.count,
                head: self.prev,
            }
        } else {
            ChainCheck::HeadNotFound { rows: self.count }
        }
    }
}

/// The audit CSV's header row.
pub const AUDIT_CSV_HEADER: [&str; 7] = [
    "seq",
    "at",
    "staff",
    "approvedBy",
    "action",
    "subject",
    "hash",
];

/// Writes audit rows as CSV (UTF-8, a header row, times in ISO-8601 UTC, the formula rule of
/// the link export: a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets
/// a single quote before it).
pub fn write_audit_csv<W: std::io::Write>(out: W, rows: &[AuditRow]) -> Result<W, StoreError> {
    let io = |e: csv::Error| StoreError::Corrupt {
        what: "audit CSV",
        value: e.to_string(),
    };
    let mut csv = csv::Writer::from_writer(out);
    csv.write_record(AUDIT_CSV_HEADER).map_err(io)?;
    for r in rows {
        let cells = [
            r.seq.to_string(),
            crate::api::wire::format_time(r.at),
            r.staff.clone().unwrap_or_default(),
            r.approved_by.clone().unwrap_or_default(),
            r.action.clone(),
            r.subject.clone(),
            r.hash.clone(),
        ];
        let cells = cells.map(|mut c| {
            if c.starts_with(super::export::FORMULA_STARTS) {
                c.insert(0, '\'');
            }
            c
        });
        csv.write_record(&cells).map_err(io)?;
    }
    csv.into_inner().map_err(|e| StoreError::Corrupt {
        what: "audit CSV",
        value: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Role;

    fn t(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_790_000_000 + s, 0).expect("valid")
    }

    #[test]
    fn the_encoding_is_fixed() {
        // Written down in docs/design.md: a change here breaks every kept chain.
        assert_eq!(
            row_hash(1, 0, None, None, "sign-in", "", SEED),
            hex::encode(Sha256::digest(
                format!("paydesk-audit-1\n1:1\n1:0\n0:\n0:\n7:sign-in\n0:\n64:{SEED}\n").as_bytes()
            ))
        );
    }

    #[test]
    fn fields_cannot_slide_into_each_other() {
        let a = row_hash(1, 0, Some("ab"), Some("c"), "x", "", SEED);
        let b = row_hash(1, 0, Some("a"), Some("bc"), "x", "", SEED);
        assert_ne!(a, b);
    }

    #[test]
    fn rows_chain_and_the_triggers_refuse_edits() {
        let mut store = Store::open_in_memory().expect("store");
        let ayse = Actor::member("Ayşe", Role::Counter);
        for i in 0..3 {
            store
                .audit_append(&ayse, AuditAction::SignIn, "", t(i))
                .expect("append");
        }
        let rows = store.audit().list(&AuditFilter::default()).expect("list");
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2].prev_hash, SEED);
        assert_eq!(rows[1].prev_hash, rows[2].hash);
        assert_eq!(store.audit().head().expect("head"), rows[0].hash);
        let whole = store.audit().verify(Some(&rows[1].hash)).expect("verify");
        assert!(
            matches!(whole, ChainCheck::Whole { rows: 3, .. }),
            "{whole:?}"
        );

        let refused = store
            .conn
            .execute("UPDATE audit SET staff = 'Mehmet' WHERE seq = 2", [])
            .expect_err("the trigger refuses");
        assert!(refused.to_string().contains("append-only"), "{refused}");
        store
            .conn
            .execute("DELETE FROM audit WHERE seq = 2", [])
            .expect_err("the trigger refuses");
        assert_eq!(
            store.audit().verify(Some("ab")).expect("verify"),
            ChainCheck::HeadNotFound { rows: 3 }
        );
    }

    #[test]
    fn an_edit_past_the_trigger_breaks_the_chain_at_that_row() {
        let mut store = Store::open_in_memory().expect("store");
        for i in 0..4 {
            store
                .audit_append(&Actor::nobody(), AuditAction::CardSave, "card", t(i))
                .expect("append");
        }
        store
            .conn
            .execute_batch(
                "DROP TRIGGER audit_no_update;
                 UPDATE audit SET subject = 'other card' WHERE seq = 3;",
            )
            .expect("edit");
        assert_eq!(
            store.audit().verify(None).expect("verify"),
            ChainCheck::Broken {
                seq: 3,
                why: "its fields do not match its hash"
            }
        );
    }
}
