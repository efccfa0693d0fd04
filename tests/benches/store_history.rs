//! History search at 1,000,000 links, and the durable journal commit that every link create
//! pays before its first byte is sent.
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

#[path = "../store_support/mod.rs"]
mod store_support;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::TimeDelta;
use criterion::{Criterion, criterion_group, criterion_main};
use paydesk::domain::LinkStatus;
use paydesk::store::{
    DB_FILE, JournalBegin, JournalKey, LinkQuery, NewJournalRow, Store, migrations,
};
use store_support::{PROFILE, RARE_WORD, base_time, synthetic_link, synthetic_links};

/// 1,000,000 links under `cargo bench`; a smoke-sized history when `cargo test` runs the
/// bench once (criterion's test mode), so the test suite stays fast.
fn links_count() -> u64 {
    if std::env::args().any(|a| a == "--bench") {
        1_000_000
    } else {
        20_000
    }
}

/// Opens the 1M-link history, building it when missing or incomplete.
fn history() -> Store {
    // The folder is named after the schema text, so a changed index is never measured stale.
    let schema = migrations::MIGRATIONS.concat();
    let hash = schema.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let links = links_count();
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("store_history_{links}_{hash:016x}"));
    if let Ok(store) = Store::open(&dir)
        && store.schema_version().unwrap() == migrations::latest_version()
        && store.count_links(PROFILE).unwrap() == usize::try_from(links).unwrap()
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
    let last_day = synthetic_link(links - 1).0.order_number.unwrap()[..11].to_owned();
    let few_orders = {
        let o = synthetic_link(links / 2).0.order_number.unwrap();
        o[..o.len() - 1].to_owned() // ten links
    };
    let middle = synthetic_link(links / 2);
    let cases: Vec<(&str, LinkQuery)> = vec![
        ("no_filter", LinkQuery::default()),
        (
            "no_filter_page_at_the_middle",
            LinkQuery {
                before: Some(paydesk::store::LinkCursor {
                    created_at: middle.1,
                    id: middle.0.id.clone(),
                }),
                ..LinkQuery::default()
            },
        ),
        (
            "status_pending_15pct",
            LinkQuery {
                status: Some(LinkStatus::Pending),
                ..LinkQuery::default()
            },
        ),
        (
            "status_under_review_0.1pct",
            LinkQuery {
                status: Some(LinkStatus::UnderReview),
                ..LinkQuery::default()
            },
        ),
        ("order_prefix_10_links", text(&few_orders)),
        ("order_prefix_newest_day_2880_links", text(&last_day)),
        ("order_prefix_oldest_month_89k_links", text("PD-202601")),
        ("reference_prefix_10_links", text("R00012345")),
        ("description_word_7pct", text("kazak")),
        ("description_rare_word_100_links", text(RARE_WORD)),
        ("description_two_words", text("kazak mont")),
        (
            "description_word_and_status",
            LinkQuery {
                status: Some(LinkStatus::Rejected),
                ..text("kazak")
            },
        ),
        ("no_match", text("nothing-like-this")),
        ("first_letter_typed", text("k")),
    ];
    let mut group = c.benchmark_group("search_1m_first_page");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, q) in &cases {
        let n = store.search_links(PROFILE, q).unwrap().links.len();
        eprintln!("{name}: {n} links on the first page");
        group.bench_function(*name, |b| {
            b.iter(|| black_box(store.search_links(PROFILE, black_box(q)).unwrap()));
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

/// The day close at the same scale: the report of one day (2,880 links), the first page of a
/// one-day range, and the CSV export of a range, streamed to nowhere (rows per second).
fn day_close(c: &mut Criterion) {
    use criterion::Throughput;
    use paydesk::clock::Zone;
    use paydesk::store::TimeRange;

    let store = history();
    let links = links_count();
    let middle = synthetic_link(links / 2).1;
    let day = middle.date_naive();
    let utc = Zone::hours(0);
    let now = synthetic_link(links - 1).1;
    let started = Instant::now();
    let report = store.day_report(PROFILE, day, day, utc, now).unwrap();
    eprintln!(
        "day report of {day}: {} links in {:.2} ms (first run)",
        report.links,
        started.elapsed().as_secs_f64() * 1000.0
    );
    let mut group = c.benchmark_group("day_close");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("report_one_day", |b| {
        b.iter(|| black_box(store.day_report(PROFILE, day, day, utc, now).unwrap()));
    });
    let range = TimeRange::days(day, day, utc);
    group.bench_function("first_page_of_a_day", |b| {
        b.iter(|| {
            black_box(
                store
                    .search_links_in(PROFILE, &LinkQuery::default(), Some(range))
                    .unwrap(),
            )
        });
    });
    // A month under `cargo bench` (86,400 links), two days in the smoke run.
    let days = if links >= 1_000_000 { 30 } else { 2 };
    let month = TimeRange::days(day, day + TimeDelta::days(days - 1), utc);
    let rows = store
        .export_links_csv(
            PROFILE,
            &LinkQuery::default(),
            Some(month),
            utc,
            std::io::sink(),
        )
        .unwrap();
    let started = Instant::now();
    store
        .export_links_csv(
            PROFILE,
            &LinkQuery::default(),
            Some(month),
            utc,
            std::io::sink(),
        )
        .unwrap();
    eprintln!(
        "CSV export of {rows} links: {:.0} rows/s (one run)",
        f64::from(u32::try_from(rows).unwrap()) / started.elapsed().as_secs_f64()
    );
    group.throughput(Throughput::Elements(u64::try_from(rows).unwrap()));
    group.bench_function("export_csv_rows", |b| {
        b.iter(|| {
            black_box(
                store
                    .export_links_csv(
                        PROFILE,
                        &LinkQuery::default(),
                        Some(month),
                        utc,
                        std::io::sink(),
                    )
                    .unwrap(),
            )
        });
    });
    group.finish();
}

criterion_group!(benches, search, durable_commit, day_close);
criterion_main!(benches);
