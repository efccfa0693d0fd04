//! History's queries (the desk's and the shop's of one filter), and History and Day close over
//! the whole shop (docs/design.md §8): while the shop session is
//! online, History's pages and the day close are read from PostgreSQL through the session's
//! reader, on the worker; each row names the desk that made it, and the day close adds its
//! table per desk. When the shop does not answer within the reader's limit (or the desk has
//! joined none), the caller reads the desk's own file instead, and the top bar already says
//! the desk is offline.

use chrono::NaiveDate;

use super::msg::HistoryResult;
use crate::clock::Zone;
use crate::lang::Lang;
use crate::service::shared::{shop_day_report, shop_link, shop_page, shop_totals};
use crate::service::shop::{ShopError, ShopLink, ShopQuery, ShopReader};
use crate::service::{DayReport, Desk, LinkCursor, LinkQuery, LinkTotals, StoredLink, TimeRange};
use crate::ui::history::{HistoryFilter, HistoryRow, PAGE};

/// The store's query and date range of a History filter.
pub(super) fn history_query(filter: &HistoryFilter, zone: Zone) -> (LinkQuery, Option<TimeRange>) {
    let query = LinkQuery {
        text: Some(filter.text.trim().to_owned()).filter(|t| !t.is_empty()),
        status: filter.status.clone(),
        limit: PAGE,
        before: None,
        staff: filter.staff.clone(),
    };
    (query, TimeRange::between(filter.from, filter.to, zone))
}

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
    let links = shop_page(&reader, &shop_query(filter, zone, before.clone())).await?;
    let next = (links.len() == PAGE)
        .then(|| links.last().map(ShopLink::cursor))
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
/// is read from the desk's own file too).
pub(super) async fn shop_history_totals(
    reader: Option<(ShopReader, String)>,
    filter: &HistoryFilter,
    zone: Zone,
) -> Option<Result<LinkTotals, ShopError>> {
    let (reader, _) = reader?;
    shop_totals(&reader, &shop_query(filter, zone, None)).await
}

/// The shop's day close of local days `days`, with this desk's audit head; `None` when there
/// is no reader or the shop did not answer in time.
pub(super) async fn shop_report(
    reader: Option<(ShopReader, String)>,
    desk: &Desk,
    days: (NaiveDate, NaiveDate),
    zone: Zone,
) -> Option<DayReport> {
    let (reader, desk_id) = reader?;
    shop_day_report(&reader, desk, &desk_id, days, zone).await
}

/// A link of another desk, read from the shop for History to open (`None`: no reader, no
/// answer in time, or no such link).
pub(super) async fn shop_entry(
    reader: Option<(ShopReader, String)>,
    id: &str,
) -> Option<StoredLink> {
    let (reader, _) = reader?;
    shop_link(&reader, id).await
}
