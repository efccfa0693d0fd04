//! The shop when it answers, else this desk (docs/design.md §8): the board, History's pages
//! and totals, the day close and the poll lease of a desk online in a shop, read through the
//! session's reader on the worker. Each read borrows the shop's connection for its query only,
//! within the reader's limit, and gives `None` when the shop does not answer in time: the
//! caller then reads this desk's own file, and the top bar already says the desk is offline.

use std::collections::HashSet;
use std::time::Duration;

use chrono::NaiveDate;

use super::poll::{BUDGET_PATIENCE, PollError, Polled, poll_in_shop, refresh_for_day_close};
use super::{DayReport, Desk, DeskError, LinkTotals, StoredLink};
use crate::clock::Zone;
use crate::domain::Link;
use crate::shop::ShopError;
use crate::shop::lease::LinkKey;
use crate::shop::read::{self, Account, ShopLink, ShopQuery};
use crate::shop::report::{self as shop_report, ReportScope};
use crate::shop::session::ShopReader;

/// What asking about a link through the shop's lease gave (docs/design.md §8, "One poller
/// per link").
#[derive(Debug)]
pub enum LeaseAnswer {
    /// The shop granted this desk the link and a token of its budget: the server's answer,
    /// as any refresh (stored, so in the outbox, which the session pushes).
    Asked(Result<Link, DeskError>),
    /// Another desk polls it, or did within this link's interval: the shop's answer.
    Shared(Option<Link>),
    /// Nothing this turn: the shop's budget stayed spent, the link is not of this profile's
    /// account, or the shop did not answer in time.
    Nothing,
}

/// Asks about link `id` through the shop's lease ([`poll_in_shop`], waiting up to
/// [`BUDGET_PATIENCE`] for a token), as the board's refresh takes it.
pub async fn poll_through_lease(
    reader: ShopReader,
    desk: &Desk,
    desk_id: &str,
    id: &str,
    fresh_for: Duration,
) -> LeaseAnswer {
    let key = LinkKey::new(Account::of_profile(desk.profile(), desk_id), id);
    LeaseAnswer::from(poll_in_shop(&reader, desk, &key, fresh_for, BUDGET_PATIENCE).await)
}

/// Day close's Refresh of link `id` on a desk online in a shop ([`refresh_for_day_close`]):
/// `Ok` when this desk asked the API or the shop knows the link's status; [`DeskError::ShopBusy`]
/// when the shop's budget or connection stayed busy.
pub async fn refresh_in_shop(
    reader: &ShopReader,
    desk: &Desk,
    desk_id: &str,
    id: &str,
) -> Result<(), DeskError> {
    let key = LinkKey::new(Account::of_profile(desk.profile(), desk_id), id);
    match refresh_for_day_close(reader, desk, &key).await {
        Ok(Polled::Asked { .. } | Polled::Shared { .. }) => Ok(()),
        Ok(Polled::BudgetSpent { .. } | Polled::Foreign) | Err(PollError::Unanswered) => {
            Err(DeskError::ShopBusy)
        }
        Err(PollError::Desk(e)) => Err(e),
        Err(PollError::Shop(e)) => {
            tracing::warn!(error = %e, "Day close's refresh through the shop");
            Err(DeskError::ShopBusy)
        }
    }
}

impl From<Result<Polled, PollError>> for LeaseAnswer {
    fn from(polled: Result<Polled, PollError>) -> Self {
        match polled {
            Ok(Polled::Asked { link }) => LeaseAnswer::Asked(Ok(link)),
            Ok(Polled::Shared { known, .. }) => LeaseAnswer::Shared(known),
            Err(PollError::Desk(e)) => LeaseAnswer::Asked(Err(e)),
            Ok(Polled::BudgetSpent { .. } | Polled::Foreign) | Err(PollError::Unanswered) => {
                LeaseAnswer::Nothing
            }
            Err(PollError::Shop(e)) => {
                tracing::warn!(error = %e, "the shop's poll lease could not be asked");
                LeaseAnswer::Nothing
            }
        }
    }
}

/// The board of the whole shop, as read from it.
#[derive(Debug)]
pub struct ShopBoard {
    /// The rows, newest first.
    pub rows: Vec<StoredLink>,
    /// The links of this desk's account: asked about through the lease.
    pub polled: HashSet<String>,
    /// Of those, the ones other desks made.
    pub elsewhere: HashSet<String>,
}

/// The board of the whole shop: the shop's rows (a link of another desk names that desk
/// beside its clerk), with this desk's rows not pushed yet; `None` when the shop did not
/// answer in time (the desk's own rows are shown instead).
pub async fn shop_board(
    reader: ShopReader,
    desk: &Desk,
    desk_id: &str,
    zone: Zone,
) -> Option<ShopBoard> {
    let now = desk.now();
    let today = crate::board::local_day_start(now, zone);
    let week = now - chrono::Duration::days(crate::board::PENDING_DAYS);
    let links = {
        let shop = reader.connection().await?;
        let read = read::board(&shop, today, week, crate::board::MAX_ROWS);
        match tokio::time::timeout(reader.query_limit(), read).await {
            Ok(Ok(links)) => links,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "the shop's board could not be read");
                return None;
            }
            Err(_) => return None,
        }
    };
    let profile = desk.profile();
    let own = Account::of_profile(profile, desk_id);
    let mut polled = HashSet::new();
    let mut elsewhere = HashSet::new();
    let mut rows: Vec<StoredLink> = links
        .into_iter()
        .map(|l| {
            // Every desk of an account follows its links, each ask through the shop's lease
            // within the shop's one budget: the maker asks while it runs, and when it stops
            // its lease runs out and another desk asks for it. Another account's links, and
            // another desk's built-in sandbox's, are never asked about from here.
            if l.account == own {
                polled.insert(l.link.id.clone());
                if l.desk_id != desk_id {
                    elsewhere.insert(l.link.id.clone());
                }
            }
            let mut row = l.stored(&profile.name);
            if l.desk_id != desk_id {
                row.staff = Some(match &l.staff {
                    Some(member) => format!("{} · {member}", l.desk_name),
                    None => l.desk_name.clone(),
                });
            }
            row
        })
        .collect();
    // This desk's links still in its outbox are on its board all the same.
    let known: HashSet<String> = rows.iter().map(|r| r.link.id.clone()).collect();
    if let Ok(own_rows) = desk.board_links_in(zone) {
        for r in own_rows.into_iter().filter(|r| !known.contains(&r.link.id)) {
            polled.insert(r.link.id.clone());
            rows.push(r);
        }
    }
    rows.sort_by(|a, b| (b.created_at, &b.link.id).cmp(&(a.created_at, &a.link.id)));
    rows.truncate(crate::board::MAX_ROWS);
    Some(ShopBoard {
        rows,
        polled,
        elsewhere,
    })
}

/// One page of the shop's links for `query`; `None` when the shop did not answer in time.
pub async fn shop_page(reader: &ShopReader, query: &ShopQuery) -> Option<Vec<ShopLink>> {
    let shop = reader.connection().await?;
    tokio::time::timeout(reader.query_limit(), read::page(&shop, query))
        .await
        .ok()?
        .inspect_err(|e| tracing::warn!(error = %e, "History read from the shop's PostgreSQL"))
        .ok()
}

/// How many of the shop's links match `query`, and their sums; `None` when the shop's
/// connection stayed busy. PostgreSQL ends the count after the reader's limit.
pub async fn shop_totals(
    reader: &ShopReader,
    query: &ShopQuery,
) -> Option<Result<LinkTotals, ShopError>> {
    let limit = reader.query_limit();
    let mut shop = reader.connection().await?;
    let counted = tokio::time::timeout(limit * 2, read::totals(&mut shop, query, limit))
        .await
        .ok()?;
    if let Err(e) = &counted {
        tracing::warn!(error = %e, "History's totals read from the shop's PostgreSQL");
    }
    Some(counted)
}

/// The shop's day close of local days `from..=to`, with this desk's audit head; `None` when
/// the shop did not answer in time.
pub async fn shop_day_report(
    reader: &ShopReader,
    desk: &Desk,
    desk_id: &str,
    (from, to): (NaiveDate, NaiveDate),
    zone: Zone,
) -> Option<DayReport> {
    let head = desk.audit_head().ok()?;
    let account = Account::of_profile(desk.profile(), desk_id).key();
    let scope = ReportScope {
        from,
        to,
        zone,
        now: desk.now(),
        desk: None,
        account: &account,
    };
    let mut shop = reader.connection().await?;
    tokio::time::timeout(
        reader.query_limit(),
        shop_report::day_report(&mut shop, &scope, head),
    )
    .await
    .ok()?
    .inspect_err(|e| tracing::warn!(error = %e, "Day close read from the shop's PostgreSQL"))
    .ok()
}

/// A link of any desk, read from the shop (`None`: no answer in time, or no such link).
pub async fn shop_link(reader: &ShopReader, id: &str) -> Option<StoredLink> {
    let shop = reader.connection().await?;
    tokio::time::timeout(reader.query_limit(), read::link(&shop, id))
        .await
        .ok()?
        .inspect_err(|e| tracing::warn!(error = %e, "a link read from the shop"))
        .ok()
        .flatten()
        .map(|l| l.stored(""))
}
