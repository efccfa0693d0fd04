//! No first page of history reads more than a few hundred rows, whatever it asks for: each
//! search of the history bench's shapes over a generated 100,000-link file, with the board's
//! read, a date range's first page, a four weeks' report and History's totals line, measured with `SQLite`'s own statement counters
//! (`sqlite3_stmt_status`, summed over every statement the search runs), not by timing.
//!
//! A row read costs a handful of virtual machine steps, so [`MAX_STEPS`] allows a few hundred
//! rows; a search that ranks all its matches (89,000 links for the oldest month's orders, 7,000
//! for a common word) takes hundreds of thousands. The last test runs the ranking query this
//! history search used before migration 5 on the same file and checks that the bound catches it.

#![allow(
    clippy::unwrap_used,
    reason = "test setup: a failed unwrap stops the test with its location"
)]

use crate::support::store::{PROFILE, Shape, search_shapes, synthetic_link, synthetic_links};
use chrono::TimeDelta;
use paydesk::clock::Zone;
use paydesk::store::{DB_FILE, LinkQuery, QueryCost, Store, TimeRange};
use rusqlite::StatementStatus;

const LINKS: u64 = 100_000;

/// A few hundred rows' worth of steps.
const MAX_STEPS: u64 = 20_000;

/// The generated history, its links made by three clerks and nobody known (the day close's
/// table per member splits the kept totals three ways more).
fn history() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    store
        .insert_links_bulk(PROFILE, synthetic_links(LINKS))
        .unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
    conn.execute(
        "UPDATE links SET staff = CASE seq % 4 WHEN 0 THEN 'Ayşe' WHEN 1 THEN 'Mehmet'
             WHEN 2 THEN 'Zeynep' END",
        [],
    )
    .unwrap();
    drop(conn);
    // The write above marked the kept totals stale: opening computes them again.
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

fn check(name: &str, cost: QueryCost, links: usize) {
    println!("{name}: {links} links, {cost:?}");
    assert!(cost.vm_steps <= MAX_STEPS, "{name}: {cost:?}");
    assert_eq!(cost.fullscan_steps, 0, "{name}: {cost:?}");
}

/// (One test: the 100,000-link file is built once.)
#[test]
fn every_first_page_reads_a_few_hundred_rows_at_most() {
    let (dir, store) = history();
    let middle = synthetic_link(LINKS / 2);
    let utc = Zone::hours(0);
    let day = middle.1.date_naive();
    let ranges = [None, Some(TimeRange::days(day, day, utc))];
    for Shape { name, query: q, .. } in &search_shapes(LINKS) {
        for range in ranges {
            let first = store.history().search_links_in(PROFILE, q, range).unwrap();
            check(
                &format!("{name} (range {})", range.is_some()),
                store.last_query_cost(),
                first.links.len(),
            );
            // The second page costs the same.
            if let Some(next) = first.next {
                let q = LinkQuery {
                    before: Some(next),
                    ..q.clone()
                };
                let second = store.history().search_links_in(PROFILE, &q, range).unwrap();
                check(
                    &format!("{name} second page (range {})", range.is_some()),
                    store.last_query_cost(),
                    second.links.len(),
                );
            }
        }
    }
    // History's staff filter walks the staff-and-time index, alone or with a date range.
    for range in ranges {
        let q = LinkQuery {
            staff: Some("Ayşe".into()),
            ..LinkQuery::default()
        };
        let first = store.history().search_links_in(PROFILE, &q, range).unwrap();
        assert!(
            first
                .links
                .iter()
                .all(|l| l.staff.as_deref() == Some("Ayşe"))
        );
        check(
            &format!("staff filter (range {})", range.is_some()),
            store.last_query_cost(),
            first.links.len(),
        );
        assert_eq!(store.last_query_cost().sorts, 0, "no sort of the matches");
    }
    // The board at the end of the history: today's links and the week's pending ones, 500 at
    // most (a busy day holds 2,880).
    let now = synthetic_link(LINKS - 1).1;
    let today = utc.start_of(now.date_naive());
    let rows = store
        .history()
        .board_links(PROFILE, today, now - TimeDelta::days(7), 500)
        .unwrap();
    assert_eq!(rows.len(), 500);
    // Two ranges of 500 index entries and 500 rows.
    let cost = store.last_query_cost();
    println!("board: {cost:?}");
    assert!(cost.vm_steps <= 4 * MAX_STEPS, "board: {cost:?}");

    // The reports add up kept totals: four weeks in Istanbul (3 hours, 27 days, 21 hours of
    // totals), the same four weeks read from the links, and the last week up to now, whose
    // pending links expire around now and are read for the days that straddle it.
    let istanbul = Zone::hours(3);
    let first = synthetic_link(2_000).1.date_naive();
    let last = first + TimeDelta::days(27);
    let month = store
        .history()
        .day_report(PROFILE, first, last, istanbul, now)
        .unwrap();
    assert!(month.links > 75_000, "{}", month.links);
    assert_eq!(month.by_staff.len(), 4, "three clerks and nobody known");
    check("four weeks' report", store.last_query_cost(), month.links);
    let read = store
        .history()
        .from_links()
        .day_report(PROFILE, first, last, istanbul, now)
        .unwrap();
    assert_eq!(read, month);
    let cost = store.last_query_cost();
    println!("four weeks' report from the links: {cost:?}");
    assert!(cost.vm_steps > 10 * MAX_STEPS, "{cost:?}");
    let week = store
        .history()
        .day_report(
            PROFILE,
            now.date_naive() - TimeDelta::days(6),
            now.date_naive(),
            istanbul,
            now,
        )
        .unwrap();
    let cost = store.last_query_cost();
    println!("this week's report: {} links, {cost:?}", week.links);
    assert!(cost.vm_steps <= 4 * MAX_STEPS, "this week: {cost:?}");

    // History's totals line over the whole history adds up kept totals too.
    let totals = store
        .history()
        .link_totals(PROFILE, &LinkQuery::default(), None)
        .unwrap();
    assert_eq!(totals.count, usize::try_from(LINKS).unwrap());
    check("History's totals", store.last_query_cost(), totals.count);

    // The bound is not loose: the query the search ran before migration 5 for an order prefix
    // with many old matches (rank every match from the order index) is far above it.
    drop(store);
    let conn = rusqlite::Connection::open(dir.path().join(DB_FILE)).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT seq FROM links INDEXED BY links_by_order
             WHERE profile = ?1 AND order_number >= ?2 COLLATE NOCASE
                 AND order_number < ?3 COLLATE NOCASE
             ORDER BY created_at DESC, id DESC LIMIT 51",
        )
        .unwrap();
    let high = format!("PD-202601{}", char::MAX);
    let n = stmt
        .query_map(rusqlite::params![PROFILE, "PD-202601", high], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap()
        .count();
    assert_eq!(n, 51);
    let steps = u64::try_from(stmt.get_status(StatementStatus::VmStep)).unwrap();
    println!("old ranking of PD-202601: {steps} steps");
    assert!(steps > 10 * MAX_STEPS, "{steps}");
}
