//! What changes a link, each one unit of work in one transaction: a link was created (from
//! its journal row), a link was refreshed, a link was cancelled. Each writes the link into
//! history, the totals that follow from it, its audit row and its outbox row together, so the
//! journal and the link table know nothing of the audit, the totals or the outbox.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, TransactionBehavior, params};

use super::audit::{self, AuditAction};
use super::links::{set_owner, upsert_in};
use super::tallies::{self, TotalsChange};
use super::{Store, StoreError, items, outbox, to_millis};
use crate::api::wire::PaymentLink;

/// How the audit names a link: its id, and its order number when known.
pub(crate) fn link_subject(id: &str, order_number: Option<&str>) -> String {
    match order_number {
        Some(order) => format!("{id} {order}"),
        None => id.to_owned(),
    }
}

/// The request a link was created from, as its journal row holds it.
pub(super) struct Request<'a> {
    /// The profile it was sent on.
    pub profile: &'a str,
    /// The endpoint's name.
    pub endpoint: &'a str,
    /// The exact bytes sent (the items are read from them).
    pub body: &'a [u8],
    /// Its order number.
    pub order_number: Option<&'a str>,
    /// The member who began it.
    pub began_by: Option<&'a str>,
}

/// A link was created: the server's answer to `request`, on the caller's transaction (the
/// journal's, which marks its row completed in it): the link in history with the member who
/// began it and the request's items (for the day report), the totals, the audit row in that
/// member's name, the outbox row.
pub(super) fn link_created(
    tx: &Connection,
    request: &Request<'_>,
    link: &PaymentLink,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let profile = request.profile;
    let mut tally = TotalsChange::default();
    upsert_in(tx, &mut tally, profile, link, now)?;
    tallies::track(tx, &mut tally, profile, &link.id, || {
        set_owner(tx, profile, &link.id, request.began_by)?;
        items::record_request_items(tx, profile, request.endpoint, request.body, link)
    })?;
    tally.write(tx)?;
    let subject = link_subject(&link.id, request.order_number);
    audit::append_as(
        tx,
        request.began_by,
        None,
        AuditAction::LinkCreate,
        &subject,
        now,
    )?;
    outbox::enqueue_link(tx, profile, &link.id, now)
}

impl Store {
    /// Stores or refreshes a link in a profile's history (see `upsert_in` for the merge).
    pub fn upsert_link(
        &mut self,
        profile: &str,
        link: &PaymentLink,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.link_changed(profile, link, now, Change::Refreshed)
    }

    /// Stores the answer to a cancel made through paydesk and marks the link cancelled (the
    /// first cancel's time is kept), in one transaction. The server answers a cancel with
    /// EXPIRED, so this mark is how history tells a cancelled link from an expired one.
    pub fn record_cancel(
        &mut self,
        profile: &str,
        link: &PaymentLink,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.link_changed(profile, link, now, Change::Cancelled)
    }

    /// The server's answer for `link` in history, its totals and its outbox row in one
    /// transaction; a cancel also marks the link cancelled and writes its audit row in this
    /// store's actor's name.
    fn link_changed(
        &mut self,
        profile: &str,
        link: &PaymentLink,
        now: DateTime<Utc>,
        change: Change,
    ) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut tally = TotalsChange::default();
        upsert_in(&tx, &mut tally, profile, link, now)?;
        if change == Change::Cancelled {
            tallies::track(&tx, &mut tally, profile, &link.id, || {
                tx.execute(
                    "UPDATE links SET cancelled_at = coalesce(cancelled_at, ?3)
                     WHERE profile = ?1 AND id = ?2",
                    params![profile, link.id, to_millis(now)],
                )?;
                Ok(())
            })?;
        }
        tally.write(&tx)?;
        if change == Change::Cancelled {
            let subject = link_subject(&link.id, link.order_number.as_deref());
            audit::append(&tx, &self.actor, AuditAction::LinkCancel, &subject, now)?;
        }
        outbox::enqueue_link(&tx, profile, &link.id, now)?;
        tx.commit()?;
        Ok(())
    }
}

/// What the server's answer did to a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// A status refresh (or any answer that is not a cancel).
    Refreshed,
    /// A cancel made through paydesk.
    Cancelled,
}
