//! Every benchmark of paydesk, in one binary: a change in `src/` relinks one bench binary, not
//! six (docs/testing.md). Each suite is a module; `cargo bench --bench benches -- NAME` runs
//! the suite NAME (`ui_frames`, `store_history`, …), any other argument goes to criterion as
//! usual (a filter of benchmark names, `--save-baseline`), and with no suite named every suite
//! runs. Under `cargo test` (no `--bench` argument) each suite runs once as a smoke test, with
//! its goals not checked. docs/benchmarks.md gives the command of each figure.

#[path = "../support/mod.rs"]
mod support;

mod core_link_create;
mod sandbox_link_create;
mod shop_read;
mod staff_pin;
mod store_history;
mod ui_frames;

use criterion::Criterion;
use criterion::measurement::WallTime;

/// The suites by name, in the order they run when none is named.
const SUITES: [(&str, fn()); 6] = [
    ("ui_frames", ui_frames::run),
    ("staff_pin", staff_pin::run),
    ("core_link_create", core_link_create::run),
    ("sandbox_link_create", sandbox_link_create::run),
    ("store_history", store_history::run),
    ("shop_read", shop_read::run),
];

/// Whether `arg` names a suite (rather than criterion's own filter).
fn is_suite(arg: &str) -> bool {
    SUITES.iter().any(|(name, _)| *name == arg)
}

/// The criterion of a suite: configured from the command line as `criterion_main!` does, with
/// a suite's name taken as the choice of suite rather than as a filter of benchmark names.
pub fn criterion() -> Criterion<WallTime> {
    let c = Criterion::default().configure_from_args();
    if std::env::args().skip(1).any(|a| is_suite(&a)) {
        c.with_benchmark_filter(criterion::BenchmarkFilter::AcceptAll)
    } else {
        c
    }
}

fn main() {
    let named: Vec<String> = std::env::args().skip(1).filter(|a| is_suite(a)).collect();
    for (name, run) in SUITES {
        if named.is_empty() || named.iter().any(|n| n == name) {
            run();
        }
    }
    Criterion::default().configure_from_args().final_summary();
}
