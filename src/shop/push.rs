//! The pusher (docs/design.md §8): drains this desk's outbox to the shop in `seq` order and in
//! batches, one PostgreSQL transaction per batch, and deletes from the outbox what PostgreSQL
//! committed.
//!
//! Every row is applied through the shop's function [`PUSH_LINK`] (newer by status order then
//! paid amount; a new link only as this desk's; no time in the future) and its items through
//! `paydesk_push_item` (`ON CONFLICT DO NOTHING`), so sending a batch twice (a desk killed after
//! the commit and before its own delete, two processes of one desk pushing at once) changes
//! nothing the second time. Rows are never skipped by their `seq` against the shop's
//! acknowledgement: a data file restored from a backup reuses sequence numbers, and skipping
//! would lose its new changes; `outbox_acks` records the highest `seq` applied, for the eye.
//!
//! Before the links, [`push`] sends the shared kinds: the catalog, whole, as one snapshot
//! ([`super::catalog::apply_catalog`]), then the staff changes and PIN tries in batches
//! ([`super::staff::apply_staff`]), each in its own transaction; after them, the audit rows
//! the shop lacks ([`super::audit::push_audit`]: the audit table is its own outbox).

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::Poll;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use tokio_postgres::types::ToSql;

use super::audit::push_audit;
pub use super::batch::{BATCH, PushError};
use super::catalog::apply_catalog;
use super::schema::PUSH_LINK;
use super::staff::apply_staff;
use super::{Shop, ShopError};
use crate::store::with_locked;
use crate::store::{OutboxRow, Store};

/// What a push did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pushed {
    /// Outbox rows sent and acknowledged.
    pub rows: u64,
    /// Batches (PostgreSQL transactions).
    pub batches: u64,
    /// Links whose row in the shop changed (a replay or an older observation changes none).
    pub changed: u64,
    /// Catalog snapshots this push made the shop's current one (0 or 1).
    pub catalogs: u64,
    /// Staff changes and PIN tries sent and acknowledged.
    pub staff_rows: u64,
    /// Staff changes the shop refused: they would have left it without an active manager.
    pub staff_refused: u64,
    /// Audit rows of this desk's chain the shop did not have yet.
    pub audit_rows: u64,
    /// The row from which this desk's audit chain differs from the shop's copy (a data file
    /// put back from an older copy): nothing more of it is sent.
    pub audit_fork: Option<i64>,
    /// Saved cards (masks) sent and acknowledged.
    pub cards: u64,
}

impl Pushed {
    /// Adds a later push's counts to these; the later push's audit fork stands.
    pub fn add(&mut self, later: &Pushed) {
        self.rows += later.rows;
        self.batches += later.batches;
        self.changed += later.changed;
        self.catalogs += later.catalogs;
        self.staff_rows += later.staff_rows;
        self.staff_refused += later.staff_refused;
        self.audit_rows += later.audit_rows;
        self.audit_fork = later.audit_fork;
        self.cards += later.cards;
    }
}

fn decimal(seq: i64, text: &str) -> Result<Decimal, PushError> {
    Decimal::from_str_exact(text).map_err(|_| PushError::Amount {
        seq,
        value: text.to_owned(),
    })
}

/// One statement's parameters.
type Params<'a, const N: usize> = [&'a (dyn ToSql + Sync); N];

/// Applies `rows` to the shop in one transaction for desk `desk_id`; returns how many links
/// changed. Nothing is deleted from the outbox here ([`push`] does that after the commit).
pub async fn apply_batch(
    shop: &mut Shop,
    desk_id: &str,
    rows: &[OutboxRow],
) -> Result<u64, PushError> {
    let url = shop.url().clone();
    let pg = |e: tokio_postgres::Error| PushError::Shop(ShopError::from_pg(e, &url));
    let Some(last) = rows.last().map(|r| r.seq) else {
        return Ok(0);
    };
    let tx = shop.client_mut().transaction().await.map_err(pg)?;
    let upsert = tx.prepare(PUSH_LINK).await.map_err(pg)?;
    let item = tx
        .prepare("SELECT paydesk_push_item($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
        .await
        .map_err(pg)?;
    // Every value read and checked first: a damaged row stops the batch before anything is
    // sent.
    let mut values = Vec::with_capacity(rows.len());
    for row in rows {
        let l = &row.link;
        let amount = l
            .amount
            .as_deref()
            .map(|a| decimal(row.seq, a))
            .transpose()?;
        let paid = decimal(row.seq, &l.paid_amount)?;
        let items = l
            .items
            .iter()
            .map(|i| {
                let price = i
                    .unit_price
                    .as_deref()
                    .map(|p| decimal(row.seq, p))
                    .transpose()?;
                Ok((i, Decimal::from(i.quantity), price))
            })
            .collect::<Result<Vec<_>, PushError>>()?;
        values.push((l, amount, paid, l.answer.to_string(), items));
    }
    // Then every statement sent at once, in the outbox's order ([`pipelined`]): PostgreSQL runs
    // them one after another as before, without waiting for a round trip between two.
    let params: Vec<(Params<'_, 16>, Vec<Params<'_, 10>>)> = values
        .iter()
        .map(|(l, amount, paid, answer, items)| {
            let link: Params<'_, 16> = [
                &desk_id,
                &l.account.base_url,
                &l.account.api_key_id,
                &l.account.sandbox_desk,
                &l.link_id,
                &l.desk_id,
                &l.staff,
                &l.order_number,
                &l.status,
                &l.currency,
                amount,
                paid,
                &l.cancelled_at,
                &l.stored_at,
                &l.observed_at,
                answer,
            ];
            let items = items
                .iter()
                .map(|(i, quantity, price)| -> Params<'_, 10> {
                    [
                        &desk_id,
                        &l.account.base_url,
                        &l.account.api_key_id,
                        &l.account.sandbox_desk,
                        &l.link_id,
                        &i.position,
                        &i.name,
                        &i.variant_id,
                        quantity,
                        price,
                    ]
                })
                .collect();
            (link, items)
        })
        .collect();
    let mut calls = Vec::new();
    let mut is_link = Vec::new();
    for (link, items) in &params {
        calls.push(tx.query_one(&upsert, link));
        is_link.push(true);
        for item_params in items {
            calls.push(tx.query_one(&item, item_params));
            is_link.push(false);
        }
    }
    let mut changed = 0;
    for (result, is_link) in pipelined(calls).await.into_iter().zip(is_link) {
        let row = result.map_err(pg)?;
        if is_link && row.get::<_, bool>(0) {
            changed += 1;
        }
    }
    // Acknowledged at the shop's time.
    tx.execute("SELECT paydesk_push_ack($1, $2)", &[&desk_id, &last])
        .await
        .map_err(pg)?;
    tx.commit().await.map_err(pg)?;
    Ok(changed)
}

/// Runs `calls` at once and gives their results in order. tokio-postgres sends a request when
/// its future is first polled and the server answers in order, so polling every call once, in
/// order, sends them all in that order (one pipeline on the connection); each answer is then
/// awaited in turn.
async fn pipelined<F: Future>(calls: Vec<F>) -> Vec<F::Output> {
    let mut calls: Vec<Pin<Box<F>>> = calls.into_iter().map(Box::pin).collect();
    let mut early: Vec<Option<F::Output>> = calls.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (call, out) in calls.iter_mut().zip(early.iter_mut()) {
            if let Poll::Ready(v) = call.as_mut().poll(cx) {
                *out = Some(v);
            }
        }
        Poll::Ready(())
    })
    .await;
    let mut results = Vec::with_capacity(calls.len());
    for (call, out) in calls.into_iter().zip(early) {
        results.push(match out {
            Some(v) => v,
            None => call.await,
        });
    }
    results
}

/// Drains the outbox of `store` to `shop`, batch after batch, until it is empty. A failure
/// stops the push; every batch committed before it has left the outbox.
pub async fn push(
    shop: &mut Shop,
    store: &Mutex<Store>,
    now: impl Fn() -> DateTime<Utc>,
) -> Result<Pushed, PushError> {
    let desk_id = with_locked(store, |s| s.profiles().device_id())?;
    let mut done = Pushed::default();
    let owed = with_locked(store, |s| s.outbox_catalog())?;
    if let Some(owed) = owed {
        let applied = apply_catalog(shop, &desk_id, &owed).await?;
        // Refused: the desk forgets its snapshot and mirrors the shop's at the next pull.
        with_locked(store, |s| {
            s.catalog_pushed(owed.seq, applied.snapshot, now())
        })?;
        done.catalogs += u64::from(applied.made_current);
    }
    loop {
        let rows = with_locked(store, |s| s.outbox().staff_rows(BATCH))?;
        let Some(last) = rows.last().map(|r| r.seq) else {
            break;
        };
        let applied = apply_staff(shop, &desk_id, &rows).await?;
        with_locked(store, |s| s.staff_pushed(last, applied.refused > 0, now()))?;
        done.staff_rows += rows.len() as u64;
        done.staff_refused += applied.refused;
    }
    loop {
        let rows = with_locked(store, |s| s.outbox().batch(BATCH))?;
        let Some(last) = rows.last().map(|r| r.seq) else {
            break;
        };
        done.changed += apply_batch(shop, &desk_id, &rows).await?;
        with_locked(store, |s| s.outbox_acknowledge(last, now()))?;
        done.rows += rows.len() as u64;
        done.batches += 1;
    }
    loop {
        let rows = with_locked(store, |s| s.outbox().cards(BATCH))?;
        let Some(last) = rows.last().map(|r| r.seq) else {
            break;
        };
        super::cards::apply_cards(shop, &desk_id, &rows).await?;
        with_locked(store, |s| s.cards_pushed(last, now()))?;
        done.cards += rows.len() as u64;
    }
    let audit = push_audit(shop, store, &desk_id).await?;
    done.audit_rows = audit.rows;
    done.audit_fork = audit.fork;
    Ok(done)
}
