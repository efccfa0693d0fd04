//! What several suites share, written once: the app in a kittest harness (`app`), fake CUPS
//! tools (`cups`), services over a store for a test server (`services`), the tests' retry
//! policy (`policy`), and builders of money (`money`), moments (`time`) and links (`links`).
//!
//! Each `tests/*.rs` is a crate of its own and includes this tree with `mod support;`; a bench
//! under `tests/benches/` with `#[path = "../support/mod.rs"] mod support;`.

// reason: each test crate uses a different part of this module
#![allow(dead_code)]

pub mod app;
pub mod cups;
pub mod links;
pub mod money;
pub mod policy;
pub mod services;
pub mod time;
