//! Client overhead of one exactly-once link create on loopback, next to the floor it cannot
//! go below: a bare durable `SQLite` commit (WAL, `synchronous=FULL`) on the same disk.
//!
//! Measured in one run, interleaved so that both see the same disk and load:
//! - `floor`: one `INSERT` of a body-sized blob in its own transaction, on a fresh database in
//!   a temp dir on the real disk (not tmpfs);
//! - `create`: `Desk::create_link` end to end — validate the draft, build the body, commit the
//!   journal row, sign, send over loopback to the in-process sandbox, store the link and
//!   complete the row (a second durable commit);
//! - `http`: the same signed create sent with reqwest alone (no validation, no journal), so
//!   that the client's own cost can be told apart from the server's.
//!
//! Printed: the three medians, `create / floor`, and `create − http − 2 × floor` (what the
//! client adds beyond its two required commits; the target is ≤ 1 ms). Then criterion runs
//! each on its own.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::Criterion;
use paydesk::api::endpoints::LINK_CREATE;
use paydesk::domain::link::{KeyLimits, LinkContext, LinkDraft};
use paydesk::sandbox::{Sandbox, SandboxConfig, SandboxHandle};
use paydesk::secrets::MemoryStore;
use paydesk::service::Desk;
use rusqlite::Connection;

struct Bench {
    runtime: tokio::runtime::Runtime,
    _sandbox: SandboxHandle,
    _dirs: Vec<tempfile::TempDir>,
    floor_db: Connection,
    desk: Desk,
    http: reqwest::Client,
    url: String,
    seq: AtomicU64,
}

/// A directory on the disk the app's data would live on (`TMPDIR` must not be a tmpfs; the
/// bench says which filesystem it got).
fn disk_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    if let Ok(mounts) = std::fs::read_to_string("/proc/mounts") {
        let path = dir.path().to_string_lossy().into_owned();
        let best = mounts
            .lines()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                let (_, mount, fs) = (f.next()?, f.next()?, f.next()?);
                path.starts_with(mount)
                    .then(|| (mount.len(), fs.to_owned(), mount.to_owned()))
            })
            .max();
        if let Some((_, fs, mount)) = best {
            eprintln!("bench data on {mount} ({fs})");
            assert_ne!(fs, "tmpfs", "set TMPDIR to a folder on a real disk");
        }
    }
    dir
}

impl Bench {
    fn new() -> Bench {
        let floor_dir = disk_dir();
        let floor_db = Connection::open(floor_dir.path().join("floor.sqlite3")).expect("open");
        let _: String = floor_db
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .expect("WAL");
        floor_db
            .pragma_update(None, "synchronous", "FULL")
            .expect("synchronous=FULL");
        floor_db
            .execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT, body BLOB)")
            .expect("a table");

        let sandbox = Sandbox::spawn_background(SandboxConfig::default()).expect("sandbox starts");
        let data_dir = disk_dir();
        let services = crate::support::services::open_on_disk(
            data_dir.path(),
            Arc::new(MemoryStore::new()),
            "bench",
            &sandbox.base_url(),
        );
        let desk = services.desk("bench").expect("a desk");
        let url = format!("{}{}", sandbox.base_url(), LINK_CREATE.path);
        Bench {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime"),
            _sandbox: sandbox,
            _dirs: vec![floor_dir, data_dir],
            floor_db,
            desk,
            http: paydesk::api::client::http_client_builder()
                .build()
                .expect("an HTTP client"),
            url,
            seq: AtomicU64::new(0),
        }
    }

    fn next(&self) -> u64 {
        self.seq.fetch_add(1, Ordering::Relaxed)
    }

    /// One durable commit of a body-sized row.
    fn floor(&self) -> Duration {
        let i = self.next();
        let body = vec![b'x'; 220];
        let start = Instant::now();
        self.floor_db
            .execute(
                "INSERT INTO t (k, body) VALUES (?1, ?2)",
                rusqlite::params![format!("link-F-{i}"), body],
            )
            .expect("a commit");
        start.elapsed()
    }

    /// One exactly-once create, from the typed draft to the completed journal row.
    fn create(&self) -> Duration {
        let i = self.next();
        let start = Instant::now();
        let draft = LinkDraft {
            amount: format!("{}.50", 100 + i % 900),
            description: "bench".into(),
            order_number: format!("BENCH-C-{i}"),
            ..LinkDraft::default()
        };
        let catalog: Vec<paydesk::domain::CatalogVariant> = Vec::new();
        let request = draft
            .validate(&LinkContext {
                now: chrono::Utc::now(),
                catalog: &catalog,
                limits: KeyLimits::default(),
            })
            .expect("a valid draft");
        self.runtime
            .block_on(self.desk.create_link(&request))
            .expect("created");
        start.elapsed()
    }

    /// The same create as a bare signed HTTP request.
    fn http(&self) -> Duration {
        let i = self.next();
        let body = format!(
            r#"{{"amount":{}.50,"currency":"TRY","description":"bench","orderNumber":"BENCH-H-{i}"}}"#,
            100 + i % 900
        );
        let start = Instant::now();
        self.runtime.block_on(async {
            let r = crate::support::links::signed_create(
                &self.http,
                &self.url,
                body,
                format!("link-BENCH-H-{i}"),
            )
            .send()
            .await
            .expect("the sandbox answers");
            assert_eq!(r.status(), 200);
            r.bytes().await.expect("a body");
        });
        start.elapsed()
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn link_create(c: &mut Criterion) {
    let bench = Bench::new();
    // Warm up the pool, the statement caches and the disk.
    for _ in 0..20 {
        bench.floor();
        bench.create();
        bench.http();
    }
    let rounds = 300;
    let (mut floor, mut create, mut http) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        floor.push(bench.floor());
        create.push(bench.create());
        http.push(bench.http());
    }
    let (f, cr, h) = (median(floor), median(create), median(http));
    let client = cr.saturating_sub(h).saturating_sub(f * 2);
    eprintln!(
        "core link create, medians of {rounds} interleaved rounds: floor (one durable commit) {:.3} ms; \
         create {:.3} ms = {:.2} x floor; bare signed HTTP {:.3} ms; \
         client overhead beyond HTTP and its two durable commits {:.3} ms (target <= 1 ms)",
        ms(f),
        ms(cr),
        cr.as_secs_f64() / f.as_secs_f64(),
        ms(h),
        ms(client)
    );

    let mut group = c.benchmark_group("core");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("durable_commit_floor", |b| {
        b.iter_custom(|n| (0..n).map(|_| bench.floor()).sum());
    });
    group.bench_function("link_create", |b| {
        b.iter_custom(|n| (0..n).map(|_| bench.create()).sum());
    });
    group.bench_function("bare_signed_http", |b| {
        b.iter_custom(|n| (0..n).map(|_| bench.http()).sum());
    });
    group.finish();
}

/// Runs this suite's benchmarks.
pub fn run() {
    let mut c = crate::criterion();
    link_create(&mut c);
}
