//! Renewals (issue 30, docs/design.md §"Sent, reminded, renewed"): an expired or cancelled
//! link that nobody paid, made again as a new link ("Send a new link").
//!
//! One row per link renewed, keyed by the profile and the link: a link is renewed at most
//! once from this file. The row is claimed ([`Store::renewal_claim`]) before the new link's
//! journal row is begun, and names the new link's order number, from which its journal key
//! follows; "a link was created" (`store::changes`) sets `renewed_as` when the server made the
//! new link, whether on the first answer or on a retry after a lost one. A claim whose journal
//! row never began (a crash between the two) or failed (the server refused the request, so
//! the key is free) no longer stands: the next claim takes its place. One whose outcome is
//! unknown (pending, stale, or abandoned by a manager) still stands: the server may hold the
//! link, and a new request under its key could make a second one.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension as _, params};

use super::repo::{Write, repository};
use super::{Store, StoreError, from_millis, to_millis, write_tx};

/// A renewal as this file records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renewal {
    /// The link renewed.
    pub original_id: String,
    /// Its order number (its id when it had none).
    pub original_order: String,
    /// The order number of the chain's first link.
    pub root_order: String,
    /// The new link's suffix number (2 for the first renewal of a chain).
    pub number: u32,
    /// The new link's order number.
    pub order_id: String,
    /// The new link, once the server made it.
    pub renewed_as: Option<String>,
    /// When it was claimed.
    pub at: DateTime<Utc>,
    /// Who claimed it (`None`: staff were off).
    pub staff: Option<String>,
}

/// What [`Store::renewal_claim`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenewalClaim {
    /// This claim stands: send the new link.
    Claimed,
    /// The link was renewed before; nothing is to be sent.
    Standing(Renewal),
}

repository!(
    /// The renewals.
    Renewals
);

const COLUMNS: &str = "original_id, original_order, root_order, number, order_id, renewed_as, at,
    staff";

fn read_row(r: &rusqlite::Row<'_>) -> Result<Renewal, StoreError> {
    Ok(Renewal {
        original_id: r.get(0)?,
        original_order: r.get(1)?,
        root_order: r.get(2)?,
        number: r.get(3)?,
        order_id: r.get(4)?,
        renewed_as: r.get(5)?,
        at: from_millis(r.get(6)?)?,
        staff: r.get(7)?,
    })
}

impl<A> Renewals<'_, A> {
    /// The renewal of link `id`, if it was renewed.
    pub fn of(&self, profile: &str, id: &str) -> Result<Option<Renewal>, StoreError> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM renewals WHERE profile = ?1 AND original_id = ?2"),
                params![profile, id],
                |r| Ok(read_row(r)),
            )
            .optional()?
            .transpose()
    }

    /// The renewal that made link `id`, if it is a renewal.
    pub fn making(&self, profile: &str, id: &str) -> Result<Option<Renewal>, StoreError> {
        self.conn
            .query_row(
                &format!(
                    "SELECT {COLUMNS} FROM renewals INDEXED BY renewals_by_new_link
                     WHERE profile = ?1 AND renewed_as = ?2"
                ),
                params![profile, id],
                |r| Ok(read_row(r)),
            )
            .optional()?
            .transpose()
    }

    /// Whether `order` is an order number this file knows: a link's, a journal row's or a
    /// renewal's.
    pub fn order_taken(&self, profile: &str, order: &str) -> Result<bool, StoreError> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM links WHERE profile = ?1 AND order_number = ?2)
                 OR EXISTS (SELECT 1 FROM journal WHERE profile = ?1 AND order_number = ?2)
                 OR EXISTS (SELECT 1 FROM renewals WHERE profile = ?1 AND order_id = ?2)",
            params![profile, order],
            |r| r.get(0),
        )?)
    }

    /// Whether the claim `renewal` still stands: its journal row began and was not refused.
    fn stands(&self, profile: &str, renewal: &Renewal) -> Result<bool, StoreError> {
        if renewal.renewed_as.is_some() {
            return Ok(true);
        }
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM journal WHERE profile = ?1 AND order_number = ?2
                 AND state <> 'failed')",
            params![profile, renewal.order_id],
            |r| r.get(0),
        )?)
    }
}

impl Renewals<'_, Write> {
    /// Sets the new link of the renewal whose order number is `order`, once.
    pub(super) fn created(
        &self,
        profile: &str,
        order: &str,
        link_id: &str,
    ) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE renewals SET renewed_as = ?3
             WHERE profile = ?1 AND order_id = ?2 AND renewed_as IS NULL",
            params![profile, order, link_id],
        )?;
        Ok(())
    }
}

impl Store {
    /// The renewals' reads.
    pub fn renewals(&self) -> Renewals<'_> {
        Renewals::read(&self.conn)
    }

    /// Claims the renewal of `renewal.original_id` in profile `profile`, in one `BEGIN
    /// IMMEDIATE` transaction: [`RenewalClaim::Claimed`] when no renewal of it stands (one
    /// that never began or failed is replaced), else the standing one. Two claims of one link
    /// racing get one `Claimed`.
    pub fn renewal_claim(
        &mut self,
        profile: &str,
        renewal: &Renewal,
    ) -> Result<RenewalClaim, StoreError> {
        let tx = write_tx(&mut self.conn)?;
        let renewals = Renewals::write(&tx);
        if let Some(known) = renewals.of(profile, &renewal.original_id)?
            && renewals.stands(profile, &known)?
        {
            return Ok(RenewalClaim::Standing(known));
        }
        tx.execute(
            "INSERT INTO renewals (profile, original_id, original_order, root_order, number,
                 order_id, renewed_as, at, staff)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8)
             ON CONFLICT (profile, original_id) DO UPDATE SET
                 original_order = excluded.original_order, root_order = excluded.root_order,
                 number = excluded.number, order_id = excluded.order_id, renewed_as = NULL,
                 at = excluded.at, staff = excluded.staff",
            params![
                profile,
                renewal.original_id,
                renewal.original_order,
                renewal.root_order,
                renewal.number,
                renewal.order_id,
                to_millis(renewal.at),
                renewal.staff
            ],
        )?;
        tx.commit()?;
        Ok(RenewalClaim::Claimed)
    }
}
