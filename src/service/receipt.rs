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
//!
//! On a joined desk the heard receipt is claimed in the shop first (`receipt_in_shop`,
//! `shop::outreach::claim_mail`): one per link across the shop, from the maker or from the
//! desk that polls the link for it; when the shop does not answer, only the desk that made
//! the link sends it (`Desk::receipt_without_shop`).

use crate::clock::Zone;
use crate::domain::share::LinkMessage;
use crate::domain::{EmailAddress, Link, Receipt, ReceiptError, ReceiptFacts, paid_in_full};
use crate::lang::Lang;
use crate::slip::SlipError;
pub use crate::store::ReceiptSettings;
use crate::store::{MailKind, MailPart, NewMail, QueuedMail};

use super::mail::MailSetupError;
use super::{Desk, DeskError, Services};
use crate::shop::lease::LinkKey;
use crate::shop::outreach::{self, MailClaim};
use crate::shop::session::ShopReader;

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
    /// up and receipts are on, without asking any shop (a desk alone). Returns the queued
    /// message, `None` when nothing was due or the link has a receipt already.
    pub fn receipt_if_heard_paid(
        &self,
        before: Option<&Link>,
        answer: &Link,
    ) -> Result<Option<QueuedMail>, ReceiptQueueError> {
        let heard = Heard::of(before, answer.clone(), before.is_some());
        let Some(due) = self.receipt_due(&heard)? else {
            return Ok(None);
        };
        let items = self.link_item_lines(&answer.id)?;
        self.queue_auto_receipt(answer, &due, items)
    }

    /// The automatic receipt `heard` calls for from this desk: `Some` when the answer turned
    /// the link paid in full, it has a payer e-mail, e-mail is set up and receipts are on.
    /// Read before the shop is asked, so a desk that could not send it never claims it.
    pub(super) fn receipt_due(
        &self,
        heard: &Heard,
    ) -> Result<Option<DueReceipt>, ReceiptQueueError> {
        if !heard.newly_paid {
            return Ok(None);
        }
        let Some(to) = heard
            .link
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
        Ok(Some(DueReceipt {
            to,
            from,
            shop: account.from_name,
            lang: settings.lang,
        }))
    }

    /// Queues the automatic receipt `due` of `link` with `items` (kind `auto-receipt`: once
    /// per link in this file, `None` when it has one), with its `link.receipt` audit row.
    pub(super) fn queue_auto_receipt(
        &self,
        link: &Link,
        due: &DueReceipt,
        items: Vec<crate::domain::ItemLine>,
    ) -> Result<Option<QueuedMail>, ReceiptQueueError> {
        let now = self.now();
        let (message, part) = receipt_mail(link, items, &due.shop, due.lang, Zone::Local, now)?;
        let mail = NewMail {
            link_id: &link.id,
            to: &due.to,
            from: &due.from,
            message: &message,
        };
        Ok(self.with_store(|s| {
            s.as_actor(self.actor(), now, |s| {
                s.mail_enqueue_with(&mail, MailKind::AutoReceipt, &[part], now)
            })
        })?)
    }

    /// The automatic receipt of `heard` when no shop is asked: a desk alone sends it; a
    /// joined desk whose shop did not answer sends it only for a link its history held before
    /// the answer (the desk that made it, docs/design.md §"The mail queue"). Its failure is
    /// logged, never returned: the poll stands.
    pub(super) fn receipt_without_shop(&self, heard: &Heard) {
        if !heard.newly_paid {
            return;
        }
        if !heard.held {
            match self.joined() {
                Ok(false) => {}
                Ok(true) => {
                    tracing::info!(link = %heard.link.id, "no receipt: not this desk's link and the shop did not answer");
                    return;
                }
                Err(e) => {
                    tracing::warn!(link = %heard.link.id, "no receipt queued: {e}");
                    return;
                }
            }
        }
        let queued = self.receipt_due(heard).and_then(|due| match due {
            Some(due) => {
                let items = self.link_item_lines(&heard.link.id)?;
                self.queue_auto_receipt(&heard.link, &due, items)
            }
            None => Ok(None),
        });
        log_queued(&heard.link.id, queued);
    }
}

/// A queued automatic receipt logged, or why none was.
fn log_queued(link: &str, queued: Result<Option<QueuedMail>, ReceiptQueueError>) {
    match queued {
        Ok(Some(queued)) => tracing::info!(id = queued.id, link, "receipt queued"),
        Ok(None) => {}
        Err(e) => tracing::warn!(link, "no receipt queued: {e}"),
    }
}

/// A link as this desk's own call to the payment API answered it, stored (this desk's own
/// link) or handed to the shop (another desk's, `Desk::poll_foreign`).
#[derive(Debug, Clone)]
pub struct Heard {
    /// The answer.
    pub link: Link,
    /// The answer turned the link paid in full: what was known of it before (history's copy,
    /// or the shop's row of another desk's link) was not.
    pub newly_paid: bool,
    /// This desk's history held the link before the answer (the desk that made it).
    pub held: bool,
}

impl Heard {
    /// The answer `link` after `before` (what was known of it), `held` in history before.
    pub(super) fn of(before: Option<&Link>, link: Link, held: bool) -> Heard {
        Heard {
            newly_paid: paid_in_full(&link) && !before.is_some_and(paid_in_full),
            link,
            held,
        }
    }
}

/// What an automatic receipt goes with: the payer's address, the account's sender and name,
/// the receipts' language.
#[derive(Debug)]
pub(super) struct DueReceipt {
    to: EmailAddress,
    from: EmailAddress,
    shop: String,
    lang: Lang,
}

/// The automatic receipt of `heard` on a desk online in a shop (`key`: the link as the shop
/// keys it; `desk_id`: this desk): claimed in the shop first (`paydesk_claim_mail`), queued
/// only when this desk's claim is the one that stands, so one receipt goes per link across
/// the shop, from the maker or from the desk that took over its polling. Another desk's link
/// is sent with the items the shop holds of it. A shop that does not answer: the desk that
/// made the link sends it (its history held it), another sends nothing. Logged, never
/// returned.
pub(super) async fn receipt_in_shop(
    reader: &ShopReader,
    desk: &Desk,
    (desk_id, key): (&str, &LinkKey),
    heard: &Heard,
) {
    let link = &heard.link.id;
    let due = match desk.receipt_due(heard) {
        Ok(Some(due)) => due,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(link = %link, "no receipt queued: {e}");
            return;
        }
    };
    let account = key.account.key();
    let claimed = match reader.connection().await {
        Some(shop) => {
            let claim = outreach::claim_mail(&shop, desk_id, &account, link, MailClaim::Receipt);
            match tokio::time::timeout(reader.query_limit(), claim).await {
                Ok(Ok(claimed)) => Some((claimed, shop)),
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, link = %link, "the receipt's claim in the shop");
                    None
                }
                Err(_) => None,
            }
        }
        None => None,
    };
    let items = match claimed {
        Some((false, _)) => {
            tracing::info!(link = %link, "the receipt is another desk's: claimed before");
            return;
        }
        Some((true, shop)) if !heard.held => {
            let items = outreach::item_lines(&shop, key);
            match tokio::time::timeout(reader.query_limit(), items).await {
                Ok(Ok(items)) => Ok(items),
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, link = %link, "the link's items from the shop");
                    Ok(Vec::new())
                }
                Err(_) => Ok(Vec::new()),
            }
        }
        Some((true, _)) => desk.link_item_lines(link),
        None if heard.held => {
            tracing::info!(link = %link, "the shop did not answer: the receipt goes from the desk that made the link");
            desk.link_item_lines(link)
        }
        None => {
            tracing::info!(link = %link, "no receipt: not this desk's link and the shop did not answer");
            return;
        }
    };
    let queued = items
        .map_err(ReceiptQueueError::from)
        .and_then(|items| desk.queue_auto_receipt(&heard.link, &due, items));
    log_queued(link, queued);
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
