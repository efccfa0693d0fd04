//! The cli suites, linked into one test binary (docs/testing.md: where a new suite goes).

#[path = "../support/mod.rs"]
mod support;

mod commands;
mod mail;
mod receipt;
mod remind;
mod renew;
mod secrets;
mod send;
mod staff;
