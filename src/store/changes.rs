//! What changes a link, each one unit of work in one transaction: a link was created (from
//! its journal row), a link was refreshed, a link was cancelled (a shop joined, every link owed to
//! it: `super::join`). Each composes the
//! repositories of the families a link's change writes, in that one transaction: the journal
//! row (a create), the link in history ([`Links`]), its items ([`Items`]), the totals that
//! follow from it ([`Tallies`]), its audit row ([`Audit`]) and its outbox row ([`Outbox`]).
//! No repository knows of another: the journal knows nothing of the audit, the totals or the
//! outbox, and the link table nothing of the journal.

use chrono::{DateTime, Utc};
use rusqlite::Transaction;

use super::audit::{Audit, AuditAction};
use super::catalog::Catalog;
use super::items::{self, Items};
use super::journal::{Journal, JournalKey, JournalRow, JournalState};
use super::links::Links;
use super::outbox::{LinkPush, Outbox};
use super::profiles::Profiles;
use super::renewals::Renewals;
use super::shop::Shop;
use super::tallies::Tallies;
use super::{Store, StoreError, write_tx};
use crate::api::wire::PaymentLink;

/// How the audit names a link: its id, and its order number when known.
pub(crate) fn link_subject(id: &str, order_number: Option<&str>) -> String {
    match order_number {
        Some(order) => format!("{id} {order}"),
        None => id.to_owned(),
    }
}

/// A link was created: the server's answer to the request of the journal row `row`, on the
/// unit of work's transaction: the link in history with the member who began it and the
/// request's items (for the day report), the totals, the audit row in that member's name, the
/// new link of a renewal made under its order number, the outbox row, and the journal row
/// marked completed.
fn link_created(
    tx: &Transaction<'_>,
    row: &JournalRow,
    link: &PaymentLink,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let profile = row.begun.key.profile.as_str();
    let began_by = row.begun.began_by.as_deref();
    let links = Links::write(tx);
    let mut tallies = Tallies::write(tx);
    tallies.track(profile, &link.id, || links.upsert(profile, link, now, now))?;
    let catalog = Catalog::read(tx);
    let kept = items::request_items(&row.begun.key.endpoint, &row.begun.body, link, |variant| {
        catalog.variant_price(variant)
    })?;
    tallies.track(profile, &link.id, || {
        links.set_owner(profile, &link.id, began_by)?;
        match &kept {
            Some(rows) => Items::write(tx).replace(profile, &link.id, rows),
            None => Ok(()),
        }
    })?;
    tallies.finish()?;
    let subject = link_subject(&link.id, row.begun.order_number.as_deref());
    Audit::write(tx).append_as(began_by, None, AuditAction::LinkCreate, &subject, now)?;
    if let Some(order) = row.begun.order_number.as_deref() {
        Renewals::write(tx).created(profile, order, &link.id)?;
    }
    owe_link(tx, profile, &link.id, now)?;
    Journal::write(tx).completed(row.id, &link.id, now)
}

/// Adds the link `id` of `profile`, as the transaction `tx` now holds it (its row, its items,
/// the account it was made on), to the outbox; nothing when the desk has not joined a shop.
/// Every write of a link does this before its commit (and joining a shop, for every link).
pub(super) fn owe_link(
    tx: &Transaction<'_>,
    profile: &str,
    id: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    if !Shop::read(tx).joined()? {
        return Ok(());
    }
    let Some(stored) = Links::read(tx).get(profile, id)? else {
        return Ok(());
    };
    let (account, desk_id) = Profiles::read(tx).account(profile)?;
    let items = Items::read(tx).of_link(profile, id)?;
    let push = LinkPush::of(account, desk_id, &stored, items)?;
    Outbox::write(tx).push("link", &push, now)
}

impl Store {
    /// The server answered with the link: "a link was created" and the journal row marked
    /// completed, in one transaction (the row must be pending).
    pub fn journal_complete(
        &mut self,
        key: &JournalKey,
        link: &PaymentLink,
        now: DateTime<Utc>,
    ) -> Result<JournalRow, StoreError> {
        self.journal_transition(key, &[JournalState::Pending], "complete it", |tx, row| {
            link_created(tx, row, link, now)
        })
    }

    /// Stores or refreshes a link in a profile's history (see `Links::upsert` for the merge).
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
        let tx = write_tx(&mut self.conn)?;
        let links = Links::write(&tx);
        let mut tallies = Tallies::write(&tx);
        tallies.track(profile, &link.id, || links.upsert(profile, link, now, now))?;
        if change == Change::Cancelled {
            tallies.track(profile, &link.id, || {
                links.mark_cancelled(profile, &link.id, now)
            })?;
        }
        tallies.finish()?;
        if change == Change::Cancelled {
            let subject = link_subject(&link.id, link.order_number.as_deref());
            Audit::write(&tx).append(&self.actor, AuditAction::LinkCancel, &subject, now)?;
        }
        owe_link(&tx, profile, &link.id, now)?;
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
