//! The store suites, linked into one test binary (docs/testing.md: where a new suite goes).

#[path = "../support/mod.rs"]
mod support;

mod cards;
mod catalog;
mod export;
mod journal;
mod links;
mod mail_queue;
mod open;
mod profiles;
mod report;
mod search_cost;
mod staff;
