//! History and Day close over the whole shop (docs/design.md §8): while the shop session is
//! online, History's pages and the day close are read from PostgreSQL through the session's
//! reader, on the worker; each row names the desk that made it, and the day close adds its
//! table per desk. When the shop does not answer within the reader's limit (or the desk has
//! joined none), the caller reads the desk's own file instead, and the top bar already says
//! the desk is offline.

use chrono::NaiveDate;

use super::history::{HistoryResult, history_query};
use crate::clock::Zone;
use crate::lang::Lang;
use crate::service::Desk;
use crate::shop::ShopError;
use crate::shop::read::{self, Account, ShopQuery};
use crate::shop::report::{self as shop_report_mod, ReportScope};
use crate::shop::session::ShopReader;
use crate::store::{DayReport, LinkCursor, LinkTotals};
use crate::ui::history::{HistoryFilter, HistoryRow, PAGE};

/// The shop's query of a History filter (every desk's links), after `before`.
fn shop_query(filter: &HistoryFilter, zone: Zone, before: Option<LinkCursor>) -> ShopQuery {
    let (query, range) = history_query(filter, zone);
    ShopQuery {
        text: query.text,
        status: query.status,
        staff: query.staff,
        desk: None,
        range,
        before,
        limit: PAGE,
    }
}

/// One page of the shop's History for `filter`, after `before`; `None` when there is no
/// reader or the shop did not answer in time (the caller reads the desk's own then).
pub(super) async fn shop_history_page(
    reader: Option<(ShopReader, String)>,
    filter: &HistoryFilter,
    before: Option<LinkCursor>,
    zone: Zone,
    lang: Lang,
) -> Option<HistoryResult> {
    let (reader, desk_id) = reader?;
    let shop_query = shop_query(filter, zone, before.clone());
    let shop = reader.connection().await?;
    let links = tokio::time::timeout(reader.query_limit(), read::page(&shop, &shop_query))
        .await
        .ok()?
        .inspect_err(|e| tracing::warn!(error = %e, "History read from the shop's PostgreSQL"))
        .ok()?;
    drop(shop);
    let next = (links.len() == PAGE)
        .then(|| links.last().map(read::ShopLink::cursor))
        .flatten();
    let rows = links
        .iter()
        .map(|l| {
            let mut row = HistoryRow::of_stored(&l.stored(""), lang, zone);
            row.desk.clone_from(&l.desk_name);
            row.foreign = l.desk_id != desk_id;
            row
        })
        .collect();
    Some(HistoryResult::Page {
        filter: filter.clone(),
        first: before.is_none(),
        result: Ok((rows, next)),
        total: None,
        staff_names: None,
    })
}

/// History's totals over the shop's links matching `filter`; `None` when there is no reader
/// or the shop's connection stayed busy (the caller counts the desk's own then, as its page
/// is read from the desk's own file too). PostgreSQL ends the count after the reader's limit.
pub(super) async fn shop_history_totals(
    reader: Option<(ShopReader, String)>,
    filter: &HistoryFilter,
    zone: Zone,
) -> Option<Result<LinkTotals, ShopError>> {
    let (reader, _) = reader?;
    let shop_query = shop_query(filter, zone, None);
    let limit = reader.query_limit();
    let mut shop = reader.connection().await?;
    let counted = tokio::time::timeout(limit * 2, read::totals(&mut shop, &shop_query, limit))
        .await
        .ok()?;
    if let Err(e) = &counted {
        tracing::warn!(error = %e, "History's totals read from the shop's PostgreSQL");
    }
    Some(counted)
}

/// The shop's day close of local days `days`, with this desk's audit head; `None` when there
/// is no reader or the shop did not answer in time.
pub(super) async fn shop_report(
    reader: Option<(ShopReader, String)>,
    desk: &Desk,
    (from, to): (NaiveDate, NaiveDate),
    zone: Zone,
) -> Option<DayReport> {
    let (reader, desk_id) = reader?;
    let head = desk.audit_head().ok()?;
    let account = Account::of_profile(desk.profile(), &desk_id).key();
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
        shop_report_mod::day_report(&mut shop, &scope, head),
    )
    .await
    .ok()?
    .inspect_err(|e| tracing::warn!(error = %e, "Day close read from the shop's PostgreSQL"))
    .ok()
}

/// A link of another desk, read from the shop for History to open (`None`: no reader, no
/// answer in time, or no such link).
pub(super) async fn shop_entry(
    reader: Option<(ShopReader, String)>,
    id: &str,
) -> Option<crate::store::StoredLink> {
    let (reader, _) = reader?;
    let shop = reader.connection().await?;
    tokio::time::timeout(reader.query_limit(), read::link(&shop, id))
        .await
        .ok()?
        .inspect_err(|e| tracing::warn!(error = %e, "a link read from the shop"))
        .ok()
        .flatten()
        .map(|l| l.stored(""))
}
