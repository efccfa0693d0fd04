//! The mail queue: payment links waiting to be e-mailed to payers (issue 30, docs/design.md
//! §"The mail queue").
//!
//! A message is queued whole (subject, plain and HTML bodies) with its `Message-ID` fixed at
//! queue time, in the same transaction as the audit row that records the send
//! ([`AuditAction::LinkSend`], the masked address and the channel in its subject): a queued
//! message is always audited, an audited one always queued. The sender
//! (`mail::send_queued`) takes the due rows, claims each ([`Store::mail_claim`]) so that two
//! processes never send one row at once, and marks a row sent only after the server's `250`
//! to the data ([`Store::mail_mark_sent`]); any other outcome leaves it queued with a doubling
//! wait ([`mail_backoff`]: 30 s, 1 min, 2 min … at most 30 min). A message sent again after a
//! lost answer carries the same `Message-ID`, so a mail system can tell it is one message.
//!
//! The whole address is kept in this table only, and only until [`MAIL_ADDRESS_RETENTION`]
//! (7 days) after sending: [`Store::mail_wipe_sent`] then replaces it with its mask
//! (`a***@example.com`); with `secure_delete` on, the old bytes leave the file.

use std::fmt;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{OptionalExtension, params};

use super::audit::{Audit, AuditAction};
use super::reminders::Reminders;
use super::repo::{Write, repository};
use super::{Store, StoreError, from_millis, to_millis, write_tx};
use crate::domain::email::mask_email;
use crate::domain::phone::Phone;
use crate::domain::server_text;
use crate::domain::share::SendChannel;
use crate::domain::{EmailAddress, LinkMessage};

/// The wait after the first failed attempt; each further failure doubles it.
pub const MAIL_RETRY_FIRST: Duration = Duration::seconds(30);

/// The longest wait between two attempts.
pub const MAIL_RETRY_MAX: Duration = Duration::minutes(30);

/// How long after sending the whole address is kept (then only its mask).
pub const MAIL_ADDRESS_RETENTION: Duration = Duration::days(7);

/// The most characters of a failure's text kept in `last_error`.
const ERROR_CHARS: usize = 300;

/// The audit subject of a send: the link, the channel and the masked recipient
/// (`lnk_1 e-mail a***@example.com`).
pub fn send_subject(link_id: &str, channel: SendChannel, masked_to: &str) -> String {
    format!("{link_id} {} {masked_to}", channel.as_str())
}

/// A message to queue.
#[derive(Debug, Clone, Copy)]
pub struct NewMail<'a> {
    /// The link it carries.
    pub link_id: &'a str,
    /// The payer.
    pub to: &'a EmailAddress,
    /// The sender's address; its domain is the `Message-ID`'s right-hand side.
    pub from: &'a EmailAddress,
    /// What it says.
    pub message: &'a LinkMessage,
}

/// What a queued message is (schema step 15's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailKind {
    /// A payment link to its payer (audited as `link.send`).
    Link,
    /// A receipt asked for by staff (`link receipt`; audited as `link.receipt`).
    Receipt,
    /// A receipt queued because this desk heard the link paid in full: one per link.
    AutoReceipt,
}

impl MailKind {
    /// The kind as the queue's `kind` column spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            MailKind::Link => "link",
            MailKind::Receipt => "receipt",
            MailKind::AutoReceipt => "auto-receipt",
        }
    }

    /// The audit action of queuing a message of this kind.
    fn action(self) -> AuditAction {
        match self {
            MailKind::Link => AuditAction::LinkSend,
            MailKind::Receipt | MailKind::AutoReceipt => AuditAction::LinkReceipt,
        }
    }
}

/// A part of a message beyond its text and HTML: an inline image (with a `Content-ID` the
/// HTML names as `cid:`) or an attachment.
#[derive(Clone, PartialEq, Eq)]
pub struct MailPart {
    /// The file name (`receipt-PKT-9.pdf`, `qr.png`).
    pub name: String,
    /// Its MIME type (`image/png`, `application/pdf`).
    pub content_type: String,
    /// `Some`: shown inline, referenced by the HTML as `cid:` this; `None`: an attachment.
    pub content_id: Option<String>,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl fmt::Debug for MailPart {
    /// The bytes counted, not shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MailPart")
            .field("name", &self.name)
            .field("content_type", &self.content_type)
            .field("content_id", &self.content_id)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// A queued (or sent) message.
#[derive(Clone, PartialEq, Eq)]
pub struct QueuedMail {
    /// The row's id.
    pub id: i64,
    /// `<random@domain-of-from>`, fixed at queue time, the same on every attempt.
    pub message_id: String,
    /// The link it carries.
    pub link_id: String,
    /// The payer's whole address; its mask once wiped (a week after sending).
    pub to_address: String,
    /// The subject.
    pub subject: String,
    /// The plain-text body.
    pub text_body: String,
    /// The HTML body.
    pub html_body: String,
    /// Attempts made so far.
    pub attempts: u32,
    /// When it was queued.
    pub queued_at: DateTime<Utc>,
    /// When it is due next (unsent rows).
    pub next_try_at: DateTime<Utc>,
    /// When the server accepted it.
    pub sent_at: Option<DateTime<Utc>>,
    /// Why the last attempt failed.
    pub last_error: Option<String>,
    /// When the whole address was replaced by its mask.
    pub wiped_at: Option<DateTime<Utc>>,
    /// When the server refused it for good (a 5xx): kept with its words, never tried again.
    pub refused_at: Option<DateTime<Utc>>,
}

impl fmt::Debug for QueuedMail {
    /// The address masked, the bodies left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueuedMail")
            .field("id", &self.id)
            .field("message_id", &self.message_id)
            .field("link_id", &self.link_id)
            .field("to_address", &mask_email(&self.to_address))
            .field("subject", &self.subject)
            .field("attempts", &self.attempts)
            .field("next_try_at", &self.next_try_at)
            .field("sent_at", &self.sent_at)
            .field("last_error", &self.last_error)
            .finish_non_exhaustive()
    }
}

/// The wait after `attempts` failed attempts (1 → 30 s, 2 → 1 min, 3 → 2 min …), at most
/// [`MAIL_RETRY_MAX`].
pub fn mail_backoff(attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(16);
    (MAIL_RETRY_FIRST * (1_i32 << doublings)).min(MAIL_RETRY_MAX)
}

/// A new `Message-ID`: 128 random bits in hex at the sender's domain, in angle brackets.
fn new_message_id(from: &EmailAddress) -> String {
    format!(
        "<{}@{}>",
        hex::encode(rand::random::<[u8; 16]>()),
        from.domain()
    )
}

const COLUMNS: &str = "id, message_id, link_id, to_address, subject, text_body, html_body,
    attempts, queued_at, next_try_at, sent_at, last_error, wiped_at, refused_at";

fn read_mail(r: &rusqlite::Row<'_>) -> Result<QueuedMail, StoreError> {
    let attempts: i64 = r.get(7)?;
    Ok(QueuedMail {
        id: r.get(0)?,
        message_id: r.get(1)?,
        link_id: r.get(2)?,
        to_address: r.get(3)?,
        subject: r.get(4)?,
        text_body: r.get(5)?,
        html_body: r.get(6)?,
        attempts: u32::try_from(attempts).map_err(|_| StoreError::Corrupt {
            what: "mail attempts",
            value: attempts.to_string(),
        })?,
        queued_at: from_millis(r.get(8)?)?,
        next_try_at: from_millis(r.get(9)?)?,
        sent_at: r.get::<_, Option<i64>>(10)?.map(from_millis).transpose()?,
        last_error: r.get(11)?,
        wiped_at: r.get::<_, Option<i64>>(12)?.map(from_millis).transpose()?,
        refused_at: r.get::<_, Option<i64>>(13)?.map(from_millis).transpose()?,
    })
}

repository!(
    /// The `mail_queue` table: messages waiting to be e-mailed, and those sent.
    MailQueue
);

impl<A> MailQueue<'_, A> {
    /// The SMTP account; `None` until e-mail is set up.
    pub fn smtp_account(&self) -> Result<Option<SmtpAccount>, StoreError> {
        let json: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [SMTP_KEY], |r| {
                r.get(0)
            })
            .optional()?;
        json.map(|j| {
            serde_json::from_str(&j).map_err(|_| StoreError::Corrupt {
                what: "SMTP account",
                value: j,
            })
        })
        .transpose()
    }

    /// One queued message by id.
    pub fn get(&self, id: i64) -> Result<Option<QueuedMail>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM mail_queue WHERE id = ?1"))?;
        let mut rows = stmt.query([id])?;
        rows.next()?.map(read_mail).transpose()
    }

    /// The unsent messages due at `now`, longest waiting first (by due time, then queue order).
    pub fn due(&self, now: DateTime<Utc>) -> Result<Vec<QueuedMail>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM mail_queue
             WHERE sent_at IS NULL AND refused_at IS NULL AND next_try_at <= ?1
             ORDER BY next_try_at, id"
        ))?;
        let mut rows = stmt.query([to_millis(now)])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(read_mail(r)?);
        }
        Ok(out)
    }

    /// The newest `limit` messages, sent or not, newest first.
    pub fn newest(&self, limit: usize) -> Result<Vec<QueuedMail>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM mail_queue ORDER BY id DESC LIMIT ?1"
        ))?;
        let mut rows = stmt.query([i64::try_from(limit).unwrap_or(i64::MAX)])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(read_mail(r)?);
        }
        Ok(out)
    }

    /// The messages not sent yet, due or waiting, in queue order.
    pub fn unsent(&self) -> Result<Vec<QueuedMail>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM mail_queue WHERE sent_at IS NULL ORDER BY id"
        ))?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(read_mail(r)?);
        }
        Ok(out)
    }

    /// The parts of message `id` beyond its text and HTML, in the order they were queued (none
    /// once its address is wiped: a sent message is never sent again).
    pub fn parts(&self, id: i64) -> Result<Vec<MailPart>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT name, content_type, content_id, bytes FROM mail_parts
             WHERE mail_id = ?1 ORDER BY seq",
        )?;
        Ok(stmt
            .query_map([id], |r| {
                Ok(MailPart {
                    name: r.get(0)?,
                    content_type: r.get(1)?,
                    content_id: r.get(2)?,
                    bytes: r.get(3)?,
                })
            })?
            .collect::<Result<_, _>>()?)
    }

    /// The receipt settings (`meta`, key `receipts`); receipts are on, in Turkish, until they
    /// are set.
    pub fn receipt_settings(&self) -> Result<ReceiptSettings, StoreError> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                [RECEIPTS_KEY],
                |r| r.get(0),
            )
            .optional()?;
        json.map_or(Ok(ReceiptSettings::default()), |j| {
            serde_json::from_str(&j).map_err(|_| StoreError::Corrupt {
                what: "receipt settings",
                value: j,
            })
        })
    }

    /// The links whose newest link message has not gone: `true` when the server refused it
    /// for good, `false` while it waits. A message a later one went after counts no more, nor
    /// does a receipt.
    pub fn link_states(&self) -> Result<Vec<(String, bool)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT q.link_id, q.refused_at IS NOT NULL FROM mail_queue AS q
             WHERE q.sent_at IS NULL AND q.kind = 'link'
               AND q.id > coalesce((SELECT max(s.id) FROM mail_queue AS s
                   WHERE s.link_id = q.link_id AND s.kind = 'link' AND s.sent_at IS NOT NULL), 0)",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The whole address the newest link message for `link_id` went to (not one the server
    /// refused), while it is kept (a week after sending).
    pub fn last_address(&self, link_id: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT to_address FROM mail_queue
                 WHERE link_id = ?1 AND kind = 'link' AND wiped_at IS NULL
                   AND refused_at IS NULL
                 ORDER BY id DESC LIMIT 1",
                [link_id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Whether a receipt for `link_id` is queued (or sent) on this desk, asked for or not.
    pub fn has_receipt(&self, link_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM mail_queue WHERE link_id = ?1 AND kind <> 'link' LIMIT 1",
                [link_id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// The attempts of message `id` so far, `None` when it is sent or gone.
    fn unsent_attempts(&self, id: i64) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT attempts FROM mail_queue WHERE id = ?1 AND sent_at IS NULL",
                [id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The id and whole address of every message sent at or before `cutoff` (ms) and not
    /// wiped yet.
    fn sent_unwiped(&self, cutoff: i64) -> Result<Vec<(i64, String)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, to_address FROM mail_queue
             WHERE sent_at IS NOT NULL AND sent_at <= ?1 AND wiped_at IS NULL",
        )?;
        Ok(stmt
            .query_map([cutoff], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?)
    }
}

impl MailQueue<'_, Write> {
    /// Queues `mail` with `message_id`, due at `now`; returns its id.
    /// `None` when `kind` is [`MailKind::AutoReceipt`] and the link has a receipt already.
    fn insert(
        &self,
        message_id: &str,
        mail: &NewMail<'_>,
        kind: MailKind,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        if kind == MailKind::AutoReceipt && self.has_receipt(mail.link_id)? {
            return Ok(None);
        }
        // The unique index on an auto receipt's link is the last word.
        let changed = self.conn.execute(
            "INSERT INTO mail_queue (message_id, link_id, to_address, subject, text_body,
                 html_body, attempts, queued_at, next_try_at, kind)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7, ?7, ?8)
             ON CONFLICT DO NOTHING",
            params![
                message_id,
                mail.link_id,
                mail.to.as_str(),
                mail.message.subject,
                mail.message.text,
                mail.message.html,
                to_millis(now),
                kind.as_str(),
            ],
        )?;
        Ok((changed == 1).then(|| self.conn.last_insert_rowid()))
    }

    /// Adds `parts` to message `id`, in order.
    fn insert_parts(&self, id: i64, parts: &[MailPart]) -> Result<(), StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "INSERT INTO mail_parts (mail_id, seq, name, content_type, content_id, bytes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (seq, part) in (0_i64..).zip(parts) {
            stmt.execute(params![
                id,
                seq,
                part.name,
                part.content_type,
                part.content_id,
                part.bytes
            ])?;
        }
        Ok(())
    }

    /// Moves the due time of message `id`, due at `now`, to `until`; whether it was due.
    fn claim(&self, id: i64, now: DateTime<Utc>, until: DateTime<Utc>) -> Result<bool, StoreError> {
        let changed = self.conn.execute(
            "UPDATE mail_queue SET next_try_at = ?3, claimed_until = ?3
             WHERE id = ?1 AND sent_at IS NULL AND next_try_at <= ?2",
            params![id, to_millis(now), to_millis(until)],
        )?;
        Ok(changed == 1)
    }

    /// Marks message `id` sent at `now`; whether it was unsent.
    fn sent(&self, id: i64, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let changed = self.conn.execute(
            "UPDATE mail_queue SET sent_at = ?2, attempts = attempts + 1, last_error = NULL
             WHERE id = ?1 AND sent_at IS NULL",
            params![id, to_millis(now)],
        )?;
        Ok(changed == 1)
    }

    /// Sets the attempts, next due time and last error of message `id`.
    fn retry_at(
        &self,
        id: i64,
        attempts: u32,
        next: DateTime<Utc>,
        error: &str,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE mail_queue SET attempts = ?2, next_try_at = ?3, last_error = ?4,
                 claimed_until = NULL
             WHERE id = ?1",
            params![id, attempts, to_millis(next), error],
        )?;
        Ok(())
    }

    /// Replaces the address of message `id` with `masked`, wiped at `now`.
    fn wipe(&self, id: i64, masked: &str, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE mail_queue SET to_address = ?2, wiped_at = ?3 WHERE id = ?1",
            params![id, masked, to_millis(now)],
        )?;
        self.conn
            .execute("DELETE FROM mail_parts WHERE mail_id = ?1", [id])?;
        Ok(())
    }
}

/// The shop's SMTP account as the data file keeps it (`meta`, key `smtp`, JSON): where and as
/// whom the desk sends mail. The password is never here: it is in the OS keyring (or
/// `PAYDESK_SMTP_PASSWORD`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SmtpAccount {
    /// The server's host name or address.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// `starttls`, `tls` or `none`.
    pub security: String,
    /// The login; `None`: no `AUTH`.
    pub user: Option<String>,
    /// The sender's address.
    pub from: String,
    /// The sender's shown name (the shop's).
    pub from_name: String,
    /// A PEM file whose certificates are trusted in addition to the system's.
    pub ca_file: Option<String>,
}

/// The `meta` key of the SMTP account.
const SMTP_KEY: &str = "smtp";

/// The `meta` key of the receipt settings.
const RECEIPTS_KEY: &str = "receipts";

/// Whether this desk e-mails a receipt on its own when it hears a link with a payer e-mail
/// paid in full, and in which language (`meta`, key `receipts`, JSON). On, in Turkish, until
/// set: receipts go once e-mail is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReceiptSettings {
    /// Receipts on.
    pub on: bool,
    /// The receipts' language.
    pub lang: crate::lang::Lang,
}

impl Default for ReceiptSettings {
    fn default() -> Self {
        ReceiptSettings {
            on: true,
            lang: crate::lang::Lang::Tr,
        }
    }
}

impl Store {
    /// Keeps `value` as JSON under `meta` key `key` and appends its audit row
    /// ([`AuditAction::MailSettings`], `subject`) in one transaction: a setting of sending to
    /// payers (the SMTP account, the receipts, the sending settings).
    pub(super) fn set_mail_setting<T: serde::Serialize>(
        &mut self,
        (key, what): (&str, &'static str),
        value: &T,
        subject: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let json = serde_json::to_string(value).map_err(|e| StoreError::Corrupt {
            what,
            value: e.to_string(),
        })?;
        let actor = self.actor.clone();
        let tx = write_tx(&mut self.conn)?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, json],
        )?;
        Audit::write(&tx).append(&actor, AuditAction::MailSettings, subject, now)?;
        tx.commit()?;
        Ok(())
    }

    /// Sets the SMTP account and appends its audit row ([`AuditAction::MailSettings`]: host,
    /// port, security and sender, never a password) in one transaction.
    pub fn set_smtp_account(
        &mut self,
        account: &SmtpAccount,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let subject = format!(
            "{}:{} {} {}",
            account.host, account.port, account.security, account.from
        );
        self.set_mail_setting((SMTP_KEY, "SMTP account"), account, &subject, now)
    }

    /// Sets the receipt settings and appends their audit row ([`AuditAction::MailSettings`],
    /// `receipts on tr`) in one transaction.
    pub fn set_receipt_settings(
        &mut self,
        settings: ReceiptSettings,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let subject = format!(
            "receipts {} {}",
            if settings.on { "on" } else { "off" },
            match settings.lang {
                crate::lang::Lang::Tr => "tr",
                crate::lang::Lang::En => "en",
            }
        );
        self.set_mail_setting((RECEIPTS_KEY, "receipt settings"), &settings, &subject, now)
    }

    /// The mail queue's reads.
    pub fn mail_queue(&self) -> MailQueue<'_> {
        MailQueue::read(&self.conn)
    }

    /// Queues a message, due at once, and appends its audit row ([`AuditAction::LinkSend`],
    /// the masked address) in the same transaction.
    pub fn mail_enqueue(
        &mut self,
        mail: &NewMail<'_>,
        now: DateTime<Utc>,
    ) -> Result<QueuedMail, StoreError> {
        self.mail_enqueue_with(mail, MailKind::Link, &[], now)?
            .ok_or_else(|| StoreError::Corrupt {
                what: "mail queue row",
                value: mail.link_id.to_owned(),
            })
    }

    /// Queues a message of `kind` with its `parts`, due at once, and appends its audit row
    /// (`link.send` for a link, `link.receipt` for a receipt: the link, `e-mail` and the
    /// masked address) in the same transaction. `None`, and nothing written, for an
    /// [`MailKind::AutoReceipt`] of a link that has a receipt on this desk already.
    pub fn mail_enqueue_with(
        &mut self,
        mail: &NewMail<'_>,
        kind: MailKind,
        parts: &[MailPart],
        now: DateTime<Utc>,
    ) -> Result<Option<QueuedMail>, StoreError> {
        let message_id = new_message_id(mail.from);
        let tx = write_tx(&mut self.conn)?;
        let queue = MailQueue::write(&tx);
        let Some(id) = queue.insert(&message_id, mail, kind, now)? else {
            return Ok(None);
        };
        queue.insert_parts(id, parts)?;
        let subject = send_subject(mail.link_id, SendChannel::Email, &mail.to.masked());
        Audit::write(&tx).append(&self.actor, kind.action(), &subject, now)?;
        tx.commit()?;
        self.mail_queue().get(id)
    }

    /// Queues the one reminder of a link (a link message, audited as `link.send`) with its
    /// `parts` and records it in `reminders`, in one transaction; `None`, and nothing written,
    /// when the link was reminded already.
    pub fn mail_enqueue_reminder(
        &mut self,
        mail: &NewMail<'_>,
        parts: &[MailPart],
        now: DateTime<Utc>,
    ) -> Result<Option<QueuedMail>, StoreError> {
        let message_id = new_message_id(mail.from);
        let staff = self.actor.member.as_ref().map(|m| m.name.clone());
        let tx = write_tx(&mut self.conn)?;
        if !Reminders::write(&tx).record(mail.link_id, SendChannel::Email, staff.as_deref(), now)? {
            return Ok(None);
        }
        let queue = MailQueue::write(&tx);
        let Some(id) = queue.insert(&message_id, mail, MailKind::Link, now)? else {
            return Ok(None);
        };
        queue.insert_parts(id, parts)?;
        let subject = send_subject(mail.link_id, SendChannel::Email, &mail.to.masked());
        Audit::write(&tx).append(&self.actor, AuditAction::LinkSend, &subject, now)?;
        tx.commit()?;
        self.mail_queue().get(id)
    }

    /// Records a link's reminder sent by WhatsApp: its audit row (`link.send`, the number
    /// masked) and its `reminders` row in one transaction; `false`, nothing written, when the
    /// link was reminded already.
    pub fn record_whatsapp_reminder(
        &mut self,
        link_id: &str,
        phone: &Phone,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let staff = self.actor.member.as_ref().map(|m| m.name.clone());
        let subject = send_subject(link_id, SendChannel::WhatsApp, &phone.masked());
        let tx = write_tx(&mut self.conn)?;
        if !Reminders::write(&tx).record(link_id, SendChannel::WhatsApp, staff.as_deref(), now)? {
            return Ok(false);
        }
        Audit::write(&tx).append(&self.actor, AuditAction::LinkSend, &subject, now)?;
        tx.commit()?;
        Ok(true)
    }

    /// Records a link sent by WhatsApp (the desk opened `wa.me`; nothing is queued): one audit
    /// row with the masked number.
    pub fn record_whatsapp_send(
        &mut self,
        link_id: &str,
        phone: &Phone,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let subject = send_subject(link_id, SendChannel::WhatsApp, &phone.masked());
        let actor = self.actor.clone();
        self.audit_append(&actor, AuditAction::LinkSend, &subject, now)
    }

    /// Claims a due message for one attempt: moves its due time to `until`, so another sender
    /// (the app and the CLI on one file) passes it by meanwhile. `false` when it is no longer
    /// due (sent, or claimed by another sender). A sender that dies holding a claim leaves the
    /// message due again at `until`.
    pub fn mail_claim(
        &mut self,
        id: i64,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let claimed = MailQueue::write(&tx).claim(id, now, until)?;
        tx.commit()?;
        Ok(claimed)
    }

    /// Makes every message that waits out a backoff due at `now` (`mail flush`: the clerk knows
    /// the server is back); a message another sender holds a claim on stays claimed, so it is
    /// never sent twice at once. Returns how many were made due.
    pub fn mail_due_now(&mut self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let changed = tx.execute(
            "UPDATE mail_queue SET next_try_at = ?1
             WHERE sent_at IS NULL AND refused_at IS NULL AND next_try_at > ?1
               AND (claimed_until IS NULL OR claimed_until <= ?1)",
            [to_millis(now)],
        )?;
        tx.commit()?;
        Ok(changed)
    }

    /// Marks a message sent (call only after the server's `250` to its data). Counts the
    /// attempt and clears the last error. `false` when it was already marked.
    pub fn mail_mark_sent(&mut self, id: i64, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let marked = MailQueue::write(&tx).sent(id, now)?;
        tx.commit()?;
        Ok(marked)
    }

    /// Records a failed attempt: counts it, keeps why (cleaned, cut) and makes the message due
    /// again after [`mail_backoff`]. Returns the new due time (`None` when the row is sent or
    /// gone).
    pub fn mail_mark_failed(
        &mut self,
        id: i64,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let queue = MailQueue::write(&tx);
        let Some(attempts) = queue.unsent_attempts(id)? else {
            return Ok(None);
        };
        let attempts = u32::try_from(attempts + 1).unwrap_or(u32::MAX);
        let next = now + mail_backoff(attempts);
        let error = server_text::truncate(&server_text::clean(error), ERROR_CHARS);
        queue.retry_at(id, attempts, next, &error)?;
        tx.commit()?;
        Ok(Some(next))
    }

    /// Marks message `id` refused for good at `now` with the server's `error` (cleaned, cut):
    /// kept and shown, never due again. `false` when it is sent or gone.
    pub fn mail_mark_refused(
        &mut self,
        id: i64,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let error = server_text::truncate(&server_text::clean(error), ERROR_CHARS);
        let tx = write_tx(&mut self.conn)?;
        let changed = tx.execute(
            "UPDATE mail_queue SET attempts = attempts + 1, last_error = ?2, refused_at = ?3
             WHERE id = ?1 AND sent_at IS NULL",
            params![id, error, to_millis(now)],
        )?;
        tx.commit()?;
        Ok(changed == 1)
    }

    /// Replaces the whole address of every message sent at least [`MAIL_ADDRESS_RETENTION`]
    /// before `now` with its mask; returns how many were wiped.
    pub fn mail_wipe_sent(&mut self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let cutoff = to_millis(now - MAIL_ADDRESS_RETENTION);
        let tx = write_tx(&mut self.conn)?;
        let queue = MailQueue::write(&tx);
        let rows = queue.sent_unwiped(cutoff)?;
        for (id, address) in &rows {
            queue.wipe(*id, &mask_email(address), now)?;
        }
        tx.commit()?;
        Ok(rows.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_doubles_from_30_seconds_up_to_30_minutes() {
        let waits: Vec<i64> = (1..=9).map(|a| mail_backoff(a).num_seconds()).collect();
        assert_eq!(waits, [30, 60, 120, 240, 480, 960, 1800, 1800, 1800]);
        assert_eq!(mail_backoff(0), MAIL_RETRY_FIRST);
        assert_eq!(mail_backoff(u32::MAX), MAIL_RETRY_MAX);
    }

    #[test]
    fn a_message_id_is_random_at_the_senders_domain() {
        let from = EmailAddress::parse("kasa@kuzey.example").expect("address");
        let a = new_message_id(&from);
        let b = new_message_id(&from);
        assert_ne!(a, b);
        assert!(a.starts_with('<') && a.ends_with("@kuzey.example>"), "{a}");
        assert_eq!(a.len(), "<@kuzey.example>".len() + 32);
    }
}
