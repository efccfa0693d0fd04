//! Signed idempotent link creates per second against the sandbox on loopback.
//!
//! The sandbox runs as the app runs it (`Sandbox::spawn_background`, its own 2-worker
//! runtime, in-memory state); 64 concurrent clients on a second runtime share one reqwest
//! pool, and every request is a fresh body with a fresh `Idempotency-Key`, signed anew.
//! Criterion reports the throughput in elements (= link creates) per second.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use paydesk::api::endpoints::LINK_CREATE;
use paydesk::sandbox::{Sandbox, SandboxConfig};

const CLIENTS: u32 = 64;

struct Bench {
    runtime: tokio::runtime::Runtime,
    http: reqwest::Client,
    url: String,
    seq: Arc<AtomicU64>,
}

impl Bench {
    /// Sends `n` creates from `CLIENTS` concurrent tasks; returns the elapsed time.
    #[allow(clippy::cast_precision_loss)] // a time ratio, not money
    fn run(&self, n: u64) -> Duration {
        let per = n.div_ceil(u64::from(CLIENTS));
        self.runtime.block_on(async {
            let start = Instant::now();
            let tasks: Vec<_> = (0..CLIENTS)
                .map(|_| {
                    let http = self.http.clone();
                    let url = self.url.clone();
                    let seq = Arc::clone(&self.seq);
                    tokio::spawn(async move {
                        for _ in 0..per {
                            let i = seq.fetch_add(1, Ordering::Relaxed);
                            let body = format!(
                                r#"{{"amount":"{}.50","orderNumber":"BENCH-{i}","description":"bench"}}"#,
                                100 + i % 900
                            );
                            let r = crate::support::links::signed_create(
                                &http,
                                &url,
                                body,
                                format!("link-BENCH-{i}"),
                            )
                                .send()
                                .await
                                .expect("the sandbox answers");
                            assert_eq!(r.status(), 200, "every create succeeds");
                            r.bytes().await.expect("a body");
                        }
                    })
                })
                .collect();
            for t in tasks {
                t.await.expect("a client task finishes");
            }
            // Scale to exactly `n` requests when `n` is not a multiple of the client count.
            start.elapsed().mul_f64(n as f64 / (per * u64::from(CLIENTS)) as f64)
        })
    }
}

/// CPU seconds used so far by this process's threads, split into (sandbox threads, all).
/// Linux `/proc/self/task/*/stat`; clock ticks of 10 ms. `None` elsewhere.
fn cpu_seconds() -> Option<(f64, f64)> {
    let mut server = 0u64;
    let mut all = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let Ok(stat) = std::fs::read_to_string(task.ok()?.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ...`: utime and stime are fields 14 and 15.
        let (head, tail) = stat.rsplit_once(')')?;
        let fields: Vec<&str> = tail.split_whitespace().collect();
        let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        all += ticks;
        if head.contains("paydesk-sandbox") {
            server += ticks;
        }
    }
    #[allow(clippy::cast_precision_loss)] // CPU time for a human
    Some((server as f64 / 100.0, all as f64 / 100.0))
}

fn plain_measurement(bench: &Bench) {
    bench.run(2_000);
    let n: u32 = 40_000;
    let before = cpu_seconds();
    let took = bench.run(u64::from(n));
    let after = cpu_seconds();
    let rate = f64::from(n) / took.as_secs_f64();
    eprintln!("sandbox link create: {n} signed idempotent creates in {took:.2?} = {rate:.0}/s");
    // The machine may be shared: CPU time per create tells what 2 free cores would do.
    if let (Some((s0, a0)), Some((s1, a1))) = (before, after) {
        let server_us = (s1 - s0) / f64::from(n) * 1e6;
        let all_us = (a1 - a0) / f64::from(n) * 1e6;
        eprintln!(
            "CPU per create: server {server_us:.1} µs, server + clients {all_us:.1} µs; \
             2 dedicated cores => {:.0}/s with these clients, {:.0}/s server-bound",
            2e6 / all_us,
            2e6 / server_us
        );
    }
}

fn link_create(c: &mut Criterion) {
    let handle = Sandbox::spawn_background(SandboxConfig::default()).expect("sandbox starts");
    let bench = Bench {
        runtime: tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("client runtime"),
        http: paydesk::api::client::http_client_builder()
            .pool_max_idle_per_host(CLIENTS as usize)
            .build()
            .expect("reqwest client"),
        url: format!("{}{}", handle.base_url(), LINK_CREATE.path),
        seq: Arc::new(AtomicU64::new(0)),
    };
    // Warm the pool, then one plain measurement printed as a figure for the README;
    // skipped when criterion only smoke-tests the bench (`cargo test --benches`).
    if std::env::args().any(|a| a == "--bench") {
        plain_measurement(&bench);
    }
    let mut group = c.benchmark_group("sandbox");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("link_create", |b| b.iter_custom(|iters| bench.run(iters)));
    group.finish();
    eprintln!(
        "sandbox now holds {} links",
        handle.admin().links(None).len()
    );
}

/// Runs this suite's benchmarks.
pub fn run() {
    let mut c = crate::criterion();
    link_create(&mut c);
}
