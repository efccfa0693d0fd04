//! The receipt of a link paid in full, e-mailed to its payer (issue 30; docs/design.md §"The
//! mail queue"): made from the link in this desk's history and the items it kept
//! (`domain::receipt`), with its PDF (`slip::receipt`), queued with its `link.receipt` audit
//! row in one transaction.
//!
//! Two ways in:
//! - asked for ([`Desk::queue_receipt`], `paydesk link receipt ID --email ADDRESS`): refused
//!   unless the link is paid in full; any number of times, to any address;
//! - heard ([`Desk::receipt_if_heard_paid`]): when this desk's own call to the payment API
//!   (a status poll or a detail read) stores a link that was not paid in full before and is
//!   now, with a payer e-mail, while e-mail is set up and receipts are on: one receipt, to the
//!   payer's address, in the receipts' language, at most once per link on this desk (the
//!   queue's unique index). The next sending pass sends it (the app's every 30 s, `mail
//!   flush`).

use crate::clock::Zone;
use crate::domain::share::LinkMessage;
use crate::domain::{EmailAddress, Link, Receipt, ReceiptError, ReceiptFacts, paid_in_full};
use crate::lang::Lang;
use crate::slip::SlipError;
pub use crate::store::ReceiptSettings;
use crate::store::{MailKind, MailPart, NewMail, QueuedMail};

use super::mail::MailSetupError;
use super::{Desk, DeskError, Services};

/// Why a receipt was not queued.
#[derive(Debug, thiserror::Error)]
pub enum ReceiptQueueError {
    /// The link is not paid in full (or has no amount).
    #[error(transparent)]
    NotPaid(#[from] ReceiptError),
    /// E-mail is not set up, or its account cannot be read.
    #[error(transparent)]
    Setup(#[from] MailSetupError),
    /// The PDF could not be made.
    #[error(transparent)]
    Pdf(#[from] SlipError),
    /// The data file failed, or the link is not in this desk's history.
    #[error(transparent)]
    Desk(#[from] DeskError),
}

/// The message and its PDF part of a receipt of `link`.
fn receipt_mail(
    link: &Link,
    items: Vec<crate::domain::ItemLine>,
    shop: &str,
    lang: Lang,
    zone: Zone,
    heard_at: chrono::DateTime<chrono::Utc>,
) -> Result<(LinkMessage, MailPart), ReceiptQueueError> {
    let facts = ReceiptFacts::of_link(shop, link, items, heard_at)?;
    let receipt = Receipt::new(&facts, lang, zone);
    let pdf = crate::slip::receipt::render(&receipt)?;
    let part = MailPart {
        name: receipt.file_name.clone(),
        content_type: "application/pdf".to_owned(),
        content_id: None,
        bytes: pdf.bytes,
    };
    Ok((receipt.message(), part))
}

impl Desk {
    /// Queues the receipt of link `link_id` (from this desk's history, which must hold it paid
    /// in full) to `to`, from `from` in the name of `shop`, in `lang` with times in `zone`,
    /// with its `link.receipt` audit row naming this desk's actor and the masked address.
    pub fn queue_receipt(
        &self,
        link_id: &str,
        to: &EmailAddress,
        from: &EmailAddress,
        shop: &str,
        (lang, zone): (Lang, Zone),
    ) -> Result<QueuedMail, ReceiptQueueError> {
        let link = self.history_link(link_id)?;
        let items = self.link_item_lines(link_id)?;
        let now = self.now();
        let (message, part) = receipt_mail(&link, items, shop, lang, zone, now)?;
        let mail = NewMail {
            link_id,
            to,
            from,
            message: &message,
        };
        let queued = self.with_store(|s| {
            s.as_actor(self.actor(), now, |s| {
                s.mail_enqueue_with(&mail, MailKind::Receipt, &[part], now)
            })
        })?;
        queued.ok_or_else(|| {
            ReceiptQueueError::Desk(DeskError::Store(crate::store::StoreError::Corrupt {
                what: "mail queue row",
                value: link_id.to_owned(),
            }))
        })
    }

    /// After this desk's own call to the payment API stored `answer` for a link that `before`
    /// (history's copy before the call; `None`: not stored) did not show paid in full: queues
    /// one receipt to the link's payer e-mail when the answer is paid in full, e-mail is set
    /// up and receipts are on. Returns the queued message, `None` when nothing was due or the
    /// link has a receipt already. Never fails the poll: the caller logs an error.
    pub fn receipt_if_heard_paid(
        &self,
        before: Option<&Link>,
        answer: &Link,
    ) -> Result<Option<QueuedMail>, ReceiptQueueError> {
        if !paid_in_full(answer) || before.is_some_and(paid_in_full) {
            return Ok(None);
        }
        let Some(to) = answer
            .email
            .as_deref()
            .and_then(|e| EmailAddress::parse(e).ok())
        else {
            return Ok(None);
        };
        let (account, settings) = self.with_store(|s| {
            let queue = s.mail_queue();
            Ok((queue.smtp_account()?, queue.receipt_settings()?))
        })?;
        let Some(account) = account else {
            return Ok(None);
        };
        if !settings.on {
            return Ok(None);
        }
        let from = EmailAddress::parse(&account.from)
            .map_err(|_| MailSetupError::Unreadable(account.from.clone()))?;
        let items = self.link_item_lines(&answer.id)?;
        let now = self.now();
        let (message, part) = receipt_mail(
            answer,
            items,
            &account.from_name,
            settings.lang,
            Zone::Local,
            now,
        )?;
        let mail = NewMail {
            link_id: &answer.id,
            to: &to,
            from: &from,
            message: &message,
        };
        Ok(self.with_store(|s| {
            s.as_actor(self.actor(), now, |s| {
                s.mail_enqueue_with(&mail, MailKind::AutoReceipt, &[part], now)
            })
        })?)
    }

    /// [`Desk::receipt_if_heard_paid`] with its failure logged, never returned.
    pub(super) fn receipt_after_answer(&self, before: Option<&Link>, answer: &Link) {
        match self.receipt_if_heard_paid(before, answer) {
            Ok(Some(queued)) => tracing::info!(id = queued.id, link = %answer.id, "receipt queued"),
            Ok(None) => {}
            Err(e) => tracing::warn!(link = %answer.id, "no receipt queued: {e}"),
        }
    }
}

impl Services {
    /// Whether receipts go on their own, and in which language.
    pub fn receipt_settings(&self) -> Result<ReceiptSettings, DeskError> {
        Ok(crate::store::with_locked(self.store(), |s| {
            s.mail_queue().receipt_settings()
        })?)
    }

    /// Turns receipts on or off (audited as `mail.settings`, `receipts on tr`).
    pub fn set_receipt_settings(
        &self,
        actor: &crate::domain::Actor,
        settings: ReceiptSettings,
    ) -> Result<(), DeskError> {
        let now = self.clock().now();
        Ok(crate::store::with_locked(self.store(), |s| {
            s.as_actor(actor, now, |s| s.set_receipt_settings(settings, now))
        })?)
    }
}
