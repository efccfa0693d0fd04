//! One staff PIN check: Argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane) over a stored
//! PHC string, as `Store::staff_sign_in` runs it on the worker. The target is at most 250 ms
//! in the release build on a 2-core machine (docs/benchmarks.md); the median is printed first,
//! then criterion measures it.

use std::time::{Duration, Instant};

use criterion::Criterion;
use paydesk::domain::Pin;
use paydesk::store::{hash_pin, pin_matches};

fn pin_check(c: &mut Criterion) {
    let pin = Pin::parse("482916").expect("a valid PIN");
    let stored = hash_pin(&pin).expect("hashes");
    let wrong = Pin::parse("482917").expect("a valid PIN");
    let mut times: Vec<Duration> = (0..15)
        .map(|_| {
            let start = Instant::now();
            assert!(pin_matches(&pin, &stored));
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "PIN check (Argon2id m=19456 KiB, t=2, p=1): median {:.1} ms, slowest {:.1} ms",
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3
    );
    let mut group = c.benchmark_group("staff_pin");
    group.sample_size(20);
    group.bench_function("right PIN", |b| b.iter(|| pin_matches(&pin, &stored)));
    group.bench_function("wrong PIN", |b| b.iter(|| pin_matches(&wrong, &stored)));
    group.bench_function("hash a new PIN", |b| b.iter(|| hash_pin(&pin)));
    group.finish();
}

/// Runs this suite's benchmarks.
pub fn run() {
    let mut c = crate::criterion();
    pin_check(&mut c);
}
