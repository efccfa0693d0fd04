//! The shop suites, linked into one test binary (docs/testing.md: where a new suite goes).

#[path = "../support/mod.rs"]
mod support;

mod audit;
mod catalog;
mod cli;
mod desks;
mod failures;
mod lease;
mod owner;
mod pg;
mod receipts;
mod staff;
