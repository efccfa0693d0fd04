//! History search at 1,000,000 links, the counter's reports, board and export at the same
//! scale, and the durable journal commit that every link create pays before its first byte is
//! sent.
//!
//! `figures` runs first and prints one table (markdown, for the README): every figure of
//! issue 13 as a median of its own timed runs, with its goal, and as a ratio to the two floors
//! measured in the same run on the same file: a bare primary-key lookup (one whole row by
//! `seq`, among the newest 1,000, whose pages a first page reads too) and a bare `COUNT(*)` of an indexed range (one day, 2,880 entries of `links_recent`).
//! The CSV export of every link is timed end to end (rows per second) with the process's peak
//! RSS growth (`VmHWM` of `/proc/self/status`, reset through `/proc/self/clear_refs` first).
//! It then prints the `EXPLAIN QUERY PLAN` of the slow searches before migration 5 (the old
//! statements on a version-4 schema) and now (built as the search builds them, on the file).
//!
//! The history is built once into `$CARGO_TARGET_TMPDIR/store_history_1m_*` (a file store, WAL,
//! `synchronous=FULL`, on the same disk as the target directory) and reused by later runs.
//! Each search benchmark reads the first page (50 links, newest first) of one filter shape.
//! `journal/begin_durable` commits one new pending journal row per iteration (the floor a
//! link create cannot go below); `sqlite/bare_durable_insert` is one plain `INSERT` commit
//! with the same settings, to show what the journal adds on top of `SQLite`'s own fsync.

#![allow(
    clippy::unwrap_used,
    reason = "bench setup: a failed unwrap stops the bench with its location"
)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::store::{
    PROFILE, Shape, base_time, search_shapes, synthetic_link, synthetic_links,
};
use chrono::{Datelike, TimeDelta};
use criterion::Criterion;
use paydesk::clock::Zone;
use paydesk::store::{
    DB_FILE, JournalBegin, JournalKey, LinkQuery, NewJournalRow, Store, TimeRange, migrations,
};

/// 1,000,000 links under `cargo bench`; a smoke-sized history when `cargo test` runs the
/// bench once (criterion's test mode), so the test suite stays fast.
fn links_count() -> u64 {
    if std::env::args().any(|a| a == "--bench") {
        1_000_000
    } else {
        20_000
    }
}

/// The folder of the history file: named after the schema text, so a changed index is never
/// measured stale.
fn history_dir() -> std::path::PathBuf {
    let schema = migrations::MIGRATIONS.concat();
    let hash = schema.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let links = links_count();
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("store_history_{links}_{hash:016x}"))
}

/// Opens the 1M-link history, building it when missing or incomplete (one transaction, one
/// prepared statement: `Store::insert_links_bulk`).
fn history() -> Store {
    let links = links_count();
    let dir = history_dir();
    if let Ok(store) = Store::open(&dir)
        && store.schema_version().unwrap() == migrations::latest_version()
        && store.history().count_links(PROFILE).unwrap() == usize::try_from(links).unwrap()
    {
        return store;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut store = Store::open(&dir).unwrap();
    let started = Instant::now();
    store
        .insert_links_bulk(PROFILE, synthetic_links(links))
        .unwrap();
    eprintln!(
        "built {links} links in {:.1} s ({} MB)",
        started.elapsed().as_secs_f64(),
        std::fs::metadata(dir.join(DB_FILE)).map_or(0, |m| m.len() / 1_000_000)
    );
    store
}

fn text(t: &str) -> LinkQuery {
    LinkQuery {
        text: Some(t.to_owned()),
        ..LinkQuery::default()
    }
}

fn search(c: &mut Criterion) {
    let store = history();
    let links = links_count();
    let mut group = c.benchmark_group("search_1m_first_page");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for Shape { name, query: q, .. } in &search_shapes(links) {
        let n = store
            .history()
            .search_links(PROFILE, q)
            .unwrap()
            .links
            .len();
        eprintln!("{name}: {n} links on the first page");
        group.bench_function(*name, |b| {
            b.iter(|| black_box(store.history().search_links(PROFILE, black_box(q)).unwrap()));
        });
    }
    group.finish();
}

fn durable_commit(c: &mut Criterion) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let body = br#"{"amount":1250.50,"currency":"TRY","orderNumber":"PD-20261122-7KQ30001"}"#;
    let mut i = 0u64;
    let mut group = c.benchmark_group("durable_commit");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("journal/begin_durable", |b| {
        b.iter(|| {
            i += 1;
            let row = NewJournalRow {
                key: JournalKey::new(PROFILE, "link.create", format!("link-PD-{i}")),
                body: paydesk::secrets::Redacted(body.to_vec()),
                order_number: Some(format!("PD-{i}")),
                amount: Some("1250.50".parse().unwrap()),
                currency: Some(paydesk::domain::Currency::Try),
                now: base_time() + TimeDelta::milliseconds(i64::try_from(i).unwrap()),
                began_by: None,
            };
            let begun = store.journal_begin(&row).unwrap();
            assert!(matches!(begun, JournalBegin::Started(_)));
        });
    });
    let conn = rusqlite::Connection::open(dir.path().join("bare.sqlite3")).unwrap();
    conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
        .unwrap();
    conn.pragma_update(None, "synchronous", "FULL").unwrap();
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        .unwrap();
    group.bench_function("sqlite/bare_durable_insert", |b| {
        b.iter(|| {
            conn.execute("INSERT INTO t (body) VALUES (?1)", [&body[..]])
                .unwrap();
        });
    });
    group.finish();
}

/// The day close at the same scale under criterion: the report of one day (2,880 links) and
/// the first page of a one-day range. (The month report, the board and the export of every
/// link are in `figures`.)
fn day_close(c: &mut Criterion) {
    let store = history();
    let links = links_count();
    let day = synthetic_link(links / 2).1.date_naive();
    let utc = Zone::hours(0);
    let now = synthetic_link(links - 1).1;
    let mut group = c.benchmark_group("day_close");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("report_one_day", |b| {
        b.iter(|| {
            black_box(
                store
                    .history()
                    .day_report(PROFILE, day, day, utc, now)
                    .unwrap(),
            )
        });
    });
    let range = TimeRange::days(day, day, utc);
    group.bench_function("first_page_of_a_day", |b| {
        b.iter(|| {
            black_box(
                store
                    .history()
                    .search_links_in(PROFILE, &LinkQuery::default(), Some(range))
                    .unwrap(),
            )
        });
    });
    group.finish();
}

/// The median of timed runs of `f`: three warm-up runs, then runs until both `min_runs` and
/// half a second are reached (3 s at most; 3 runs in the smoke test).
fn median(mut f: impl FnMut()) -> Duration {
    let smoke = links_count() < 1_000_000;
    for _ in 0..3 {
        f();
    }
    let mut times = Vec::new();
    let started = Instant::now();
    loop {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
        let spent = started.elapsed();
        let enough = if smoke {
            times.len() >= 3
        } else {
            (times.len() >= 31 && spent >= Duration::from_millis(500))
                || spent >= Duration::from_secs(3)
        };
        if enough {
            break;
        }
    }
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A field of `/proc/self/status` in kB (`VmHWM`, `VmRSS`); 0 where there is none.
fn status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The search statements before migration 5 (`git show ad367e0:src/store/links.rs`), for their
/// plans on a version-4 schema: the window probe and the scan that every text search with more
/// than 500 matches ran (the slow words, the first letter), and the ranking of every match that
/// an order prefix with many old matches fell back to.
const OLD_PLANS: [(&str, &str); 4] = [
    (
        "before: window probe (every text search with > 500 matches)",
        "SELECT w.created_at, w.id FROM links AS w INDEXED BY links_recent
         WHERE w.profile = ?1 ORDER BY w.created_at DESC, w.id DESC LIMIT 1 OFFSET 19999",
    ),
    (
        "before: scan of the newest 20,000 rows (words, first letter; no status)",
        "SELECT * FROM links AS l INDEXED BY links_recent
         WHERE l.profile = ?1 AND (l.created_at, l.id) >= (?2, ?3)
           AND ((l.order_number >= ?4 COLLATE NOCASE AND l.order_number < ?5 COLLATE NOCASE)
             OR (l.reference_number >= ?4 COLLATE NOCASE AND l.reference_number < ?5 COLLATE NOCASE)
             OR l.seq IN (SELECT rowid FROM links_fts WHERE links_fts MATCH ?6
                          AND rowid BETWEEN ?7 AND ?8))
         ORDER BY l.created_at DESC, l.id DESC LIMIT 51",
    ),
    (
        "before: scan with a status (a word and a status)",
        "SELECT * FROM links AS l INDEXED BY links_by_status
         WHERE l.profile = ?1 AND l.status = ?9 AND (l.created_at, l.id) >= (?2, ?3)
           AND ((l.order_number >= ?4 COLLATE NOCASE AND l.order_number < ?5 COLLATE NOCASE)
             OR (l.reference_number >= ?4 COLLATE NOCASE AND l.reference_number < ?5 COLLATE NOCASE)
             OR l.seq IN (SELECT rowid FROM links_fts WHERE links_fts MATCH ?6
                          AND rowid BETWEEN ?7 AND ?8))
         ORDER BY l.created_at DESC, l.id DESC LIMIT 51",
    ),
    (
        "before: ranking every match (order prefix with 89,000 old matches, after the scan)",
        "SELECT * FROM links AS l NOT INDEXED WHERE l.seq IN (SELECT seq FROM (
           SELECT * FROM (SELECT o.seq, o.created_at, o.id FROM links AS o INDEXED BY links_by_order
             WHERE o.profile = ?1 AND o.order_number >= ?4 COLLATE NOCASE
               AND o.order_number < ?5 COLLATE NOCASE
             ORDER BY o.created_at DESC, o.id DESC LIMIT 51)
           UNION SELECT * FROM (SELECT r.seq, r.created_at, r.id FROM links AS r
             INDEXED BY links_by_reference
             WHERE r.profile = ?1 AND r.reference_number >= ?4 COLLATE NOCASE
               AND r.reference_number < ?5 COLLATE NOCASE
             ORDER BY r.created_at DESC, r.id DESC LIMIT 51)
           UNION SELECT * FROM (SELECT d.seq, d.created_at, d.id FROM links AS d NOT INDEXED
             WHERE d.profile = ?1 AND d.seq IN (SELECT rowid FROM links_fts WHERE links_fts MATCH ?6)
             ORDER BY d.created_at DESC, d.id DESC LIMIT 51)
         ) ORDER BY created_at DESC, id DESC LIMIT 51) ORDER BY l.created_at DESC, l.id DESC",
    ),
];

/// `EXPLAIN QUERY PLAN` of `sql` on `conn`, indented by depth.
fn plan(conn: &rusqlite::Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let nulls = vec![rusqlite::types::Null; stmt.parameter_count()];
    let mut rows = stmt.query(rusqlite::params_from_iter(nulls)).unwrap();
    let mut depth: Vec<(i64, usize)> = Vec::new();
    let mut out = String::new();
    while let Some(r) = rows.next().unwrap() {
        let (id, parent, detail): (i64, i64, String) =
            (r.get(0).unwrap(), r.get(1).unwrap(), r.get(3).unwrap());
        let level = depth
            .iter()
            .find(|(n, _)| *n == parent)
            .map_or(0, |(_, d)| d + 1);
        depth.push((id, level));
        out.push_str(&"  ".repeat(level));
        out.push_str(&detail);
        out.push('\n');
    }
    out
}

/// One row of the figures table.
struct Figure {
    name: String,
    goal: &'static str,
    time: Duration,
}

/// Every figure of issue 13 with its floors (see the module docs), printed as one table.
#[allow(
    clippy::cast_precision_loss,
    reason = "row counts and kB far below 2^52, printed as rates and MB"
)]
// Long on purpose: one measurement after the other, printed as one table.
#[allow(clippy::too_many_lines)]
fn figures(_: &mut Criterion) {
    let store = history();
    let links = links_count();
    let path = history_dir().join(DB_FILE);
    let raw = rusqlite::Connection::open_with_flags(
        &path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap();
    let utc = Zone::hours(0);
    let middle = synthetic_link(links / 2);
    let day = middle.1.date_naive();
    let day_range = TimeRange::days(day, day, utc);
    let month_first = day.with_day(1).unwrap();
    let month_last = (month_first + chrono::Months::new(1)).pred_opt().unwrap();
    let month_range = TimeRange::days(month_first, month_last, utc);
    let now = synthetic_link(links - 1).1;
    let millis = |t: chrono::DateTime<chrono::Utc>| t.timestamp_millis();

    // The floors.
    let mut pk = raw.prepare("SELECT * FROM links WHERE seq = ?1").unwrap();
    let columns = pk.column_count();
    let mut k = 0u64;
    let floor_pk = median(|| {
        // One of the newest 1,000 rows, as a first page reads: warm pages, as the searches'.
        k = (k + 7919) % links.min(1000);
        let row: Vec<rusqlite::types::Value> = pk
            .query_row([i64::try_from(links - k).unwrap()], |r| {
                (0..columns).map(|i| r.get(i)).collect()
            })
            .unwrap();
        black_box(row);
    });
    let count_sql = "SELECT count(*) FROM links INDEXED BY links_recent
         WHERE profile = ?1 AND created_at >= ?2 AND created_at < ?3";
    let mut count = raw.prepare(count_sql).unwrap();
    let day_args = rusqlite::params![PROFILE, millis(day_range.from), millis(day_range.to)];
    let in_day: i64 = count.query_row(day_args, |r| r.get(0)).unwrap();
    let floor_count = median(|| {
        black_box(count.query_row(day_args, |r| r.get::<_, i64>(0)).unwrap());
    });
    let month_args = rusqlite::params![PROFILE, millis(month_range.from), millis(month_range.to)];
    let in_month: i64 = count.query_row(month_args, |r| r.get(0)).unwrap();
    let count_month = median(|| {
        black_box(count.query_row(month_args, |r| r.get::<_, i64>(0)).unwrap());
    });

    let mut out: Vec<Figure> = Vec::new();
    let mut add = |name: String, goal: &'static str, time: Duration| {
        out.push(Figure { name, goal, time });
    };

    // The first pages of history.
    for shape in search_shapes(links) {
        let Some(label) = shape.label else { continue };
        let t = median(|| {
            black_box(store.history().search_links(PROFILE, &shape.query).unwrap());
        });
        add(label.to_owned(), shape.goal, t);
    }
    let t = median(|| {
        black_box(
            store
                .history()
                .search_links_in(PROFILE, &LinkQuery::default(), Some(day_range))
                .unwrap(),
        );
    });
    add(
        "date-range filter (one day), first page".into(),
        "≤ 5 ms",
        t,
    );
    let t = median(|| {
        black_box(
            store
                .history()
                .search_links_in(PROFILE, &text("kazak"), Some(day_range))
                .unwrap(),
        );
    });
    add(
        "date-range filter (one day) and a word, first page".into(),
        "≤ 5 ms",
        t,
    );

    // The reports.
    let t = median(|| {
        black_box(
            store
                .history()
                .day_report(PROFILE, day, day, utc, now)
                .unwrap(),
        );
    });
    add(format!("day report ({in_day} links)"), "≤ 5 ms", t);
    let t = median(|| {
        black_box(
            store
                .history()
                .day_report(PROFILE, month_first, month_last, utc, now)
                .unwrap(),
        );
    });
    add(format!("month report ({in_month} links)"), "≤ 5 ms", t);
    // The month at the counter: from the 1st to today, whose pending links expire around now
    // (their cells are read link by link).
    let this_month = now.date_naive().with_day(1).unwrap();
    let in_this_month = store
        .history()
        .day_report(PROFILE, this_month, now.date_naive(), utc, now)
        .unwrap()
        .links;
    let t = median(|| {
        black_box(
            store
                .history()
                .day_report(PROFILE, this_month, now.date_naive(), utc, now)
                .unwrap(),
        );
    });
    add(
        format!("this month's report up to now ({in_this_month} links, pending ones expiring)"),
        "≤ 5 ms",
        t,
    );
    // The same month read from its links, as every report was before migration 6 kept totals.
    let t = median(|| {
        black_box(
            store
                .history()
                .from_links()
                .day_report(PROFILE, month_first, month_last, utc, now)
                .unwrap(),
        );
    });
    add(
        format!("month report read from its {in_month} links (before migration 6)"),
        "",
        t,
    );

    // The board: today's links and the week's pending ones, at most `MAX_ROWS`.
    let today = utc.start_of(now.date_naive());
    let week = now - TimeDelta::days(paydesk::board::PENDING_DAYS);
    let board_rows = store
        .history()
        .board_links(PROFILE, today, week, paydesk::board::MAX_ROWS)
        .unwrap()
        .len();
    let t = median(|| {
        black_box(
            store
                .history()
                .board_links(PROFILE, today, week, paydesk::board::MAX_ROWS)
                .unwrap(),
        );
    });
    add(format!("open-links board ({board_rows} rows)"), "≤ 1 ms", t);
    // The board's statement alone, stepped with every column read in place (no `StoredLink`
    // built): the part of the board SQLite does.
    let mut stmt = raw
        .prepare(
            "SELECT * FROM links INDEXED BY links_recent
             WHERE profile = ?1 AND created_at >= ?2
             ORDER BY created_at DESC, id DESC LIMIT ?3",
        )
        .unwrap();
    let board_args = rusqlite::params![
        PROFILE,
        millis(today),
        i64::try_from(paydesk::board::MAX_ROWS).unwrap()
    ];
    let t = median(|| {
        let mut rows = stmt.query(board_args).unwrap();
        while let Some(r) = rows.next().unwrap() {
            for i in 0..columns {
                black_box(r.get_ref(i).unwrap());
            }
        }
    });
    add(
        "open-links board's rows alone (SQL only, columns read in place)".into(),
        "",
        t,
    );

    // History's totals line (count and sums per currency of the whole filtered set), which
    // the History view asks for when it opens and on every filter change.
    let t = median(|| {
        black_box(
            store
                .history()
                .link_totals(PROFILE, &LinkQuery::default(), None)
                .unwrap(),
        );
    });
    add(
        format!("History's totals, no filter ({links} links)"),
        "",
        t,
    );
    let t = median(|| {
        black_box(
            store
                .history()
                .link_totals(PROFILE, &LinkQuery::default(), Some(day_range))
                .unwrap(),
        );
    });
    add("History's totals, one day".into(), "", t);

    // What keeping the totals adds to a write: a refresh that turns a link paid and one that
    // changes nothing the totals hold, on a small history in memory (no disk, so the figure
    // is the CPU work of the write and its totals).
    let mut scratch = Store::open_in_memory().unwrap();
    scratch
        .insert_links_bulk(PROFILE, synthetic_links(10_000))
        .unwrap();
    let (mut link, created) = synthetic_link(5_000);
    let mut flip = false;
    let t = median(|| {
        flip = !flip;
        link.status = Some(if flip {
            paydesk::domain::LinkStatus::Completed
        } else {
            paydesk::domain::LinkStatus::Pending
        });
        link.paid_amount = link.status.as_ref().map(|s| {
            if *s == paydesk::domain::LinkStatus::Completed {
                link.amount.unwrap()
            } else {
                rust_decimal::Decimal::ZERO
            }
        });
        scratch.upsert_link(PROFILE, &link, created).unwrap();
    });
    add(
        "a refresh that turns a link paid or back (in memory, totals kept)".into(),
        "",
        t,
    );
    let t = median(|| {
        scratch.upsert_link(PROFILE, &link, created).unwrap();
    });
    add(
        "a refresh that changes nothing the totals hold (in memory)".into(),
        "",
        t,
    );

    // The export of every link: end to end, rows per second and peak RSS growth.
    let mut rates = Vec::new();
    let mut growth_kb = 0;
    let mut hwm = (0, 0, 0, 0);
    let mut exported = 0;
    for _ in 0..3 {
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        let before = status_kb("VmHWM");
        let rss_before = status_kb("VmRSS");
        let started = Instant::now();
        exported = store
            .history()
            .export_links_csv(PROFILE, &LinkQuery::default(), None, utc, std::io::sink())
            .unwrap();
        let spent = started.elapsed();
        let after = status_kb("VmHWM");
        // (The kernel updates the peak lazily: it can read a little below the reset value.)
        if reset && after.saturating_sub(before) >= growth_kb {
            growth_kb = after.saturating_sub(before);
            hwm = (before, after, rss_before, status_kb("VmRSS"));
        }
        rates.push((exported as f64 / spent.as_secs_f64(), spent));
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (rate, export_time) = rates[rates.len() / 2];
    add(
        format!("CSV export of all {exported} links (end to end)"),
        "≥ 200,000 rows/s",
        export_time,
    );

    let ratio = |t: Duration, floor: Duration| t.as_secs_f64() / floor.as_secs_f64();
    println!();
    println!(
        "History at {links} links: medians of timed runs. Floors in the same run, same file: \
         primary-key lookup (one whole row) {:.4} ms; COUNT(*) of one day's range of \
         links_recent ({in_day} entries) {:.4} ms; (the month's range, {in_month} entries: {:.3} ms)",
        ms(floor_pk),
        ms(floor_count),
        ms(count_month)
    );
    println!();
    println!("| figure | goal | median | × PK lookup | × COUNT(*) of a day |");
    println!("|---|---|---|---|---|");
    for f in &out {
        println!(
            "| {} | {} | {:.3} ms | {:.0}× | {:.1}× |",
            f.name,
            if f.goal.is_empty() { "—" } else { f.goal },
            ms(f.time),
            ratio(f.time, floor_pk),
            ratio(f.time, floor_count)
        );
    }
    println!(
        "| (floor) primary-key lookup | — | {:.4} ms | 1× | {:.2}× |",
        ms(floor_pk),
        ratio(floor_pk, floor_count)
    );
    println!(
        "| (floor) COUNT(*) of one day ({in_day} index entries) | — | {:.4} ms | {:.0}× | 1× |",
        ms(floor_count),
        ratio(floor_count, floor_pk)
    );
    println!();
    println!(
        "CSV export: {rate:.0} rows/s (median of 3 runs of {exported} rows); peak RSS growth \
         {:.1} MB (VmHWM {} kB before, {} kB after; VmRSS {} kB before, {} kB after; peak \
         reset through /proc/self/clear_refs before each run; goal ≤ 20 MB)",
        growth_kb as f64 / 1024.0,
        hwm.0,
        hwm.1,
        hwm.2,
        hwm.3
    );

    // The plans.
    println!();
    let mut old = rusqlite::Connection::open_in_memory().unwrap();
    migrations::migrate_to(&mut old, 4).unwrap();
    for (name, sql) in OLD_PLANS {
        println!("{name}:\n{}", plan(&old, sql));
    }
    for shape in search_shapes(links).iter().filter(|s| !s.goal.is_empty()) {
        println!(
            "now: {}:\n{}",
            shape.label.unwrap_or(shape.name),
            store
                .history()
                .explain_search(PROFILE, &shape.query, None)
                .unwrap()
        );
    }
    println!(
        "now: date-range filter (one day), first page:\n{}",
        store
            .history()
            .explain_search(PROFILE, &LinkQuery::default(), Some(day_range))
            .unwrap()
    );
    println!("now: board:\n{}", store.history().explain_board().unwrap());
    println!(
        "now: report:\n{}",
        store.history().explain_report().unwrap()
    );
}

/// Runs this suite's benchmarks.
pub fn run() {
    let mut c = crate::criterion();
    figures(&mut c);
    search(&mut c);
    durable_commit(&mut c);
    day_close(&mut c);
}
