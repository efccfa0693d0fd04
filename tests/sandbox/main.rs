//! The sandbox suites, linked into one test binary (docs/testing.md: where a new suite goes).

#[path = "../support/mod.rs"]
mod support;

mod api;
mod edges;
mod idempotency;
mod one_per_folder;
mod state;
