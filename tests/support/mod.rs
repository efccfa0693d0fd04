//! What the suites share, written once:
//! - `app`: the real app in a kittest harness, on the built-in sandbox profile;
//! - `catalogues`: every sentence catalogue in one list, for the language tests;
//! - `cli`: the real binary on a temporary data folder, and a sandbox that outlives it;
//! - `cups`: fake `lpstat` and `lp`;
//! - `services`: library-level services for a test server; `policy`: the fast retry policy;
//! - `sandbox`: the sandbox on a manual clock and a small signed client for it;
//! - `scripted`: a raw-HTTP server that answers as scripted; `raw`: reading one request off a socket;
//! - `pg`: a private PostgreSQL cluster (TLS, a password role) for the shop tests; `shop`: a
//!   fresh migrated shop on it and desks joined to it in-process;
//! - `store`: synthetic link histories and the search shapes measured on them;
//! - `smtp`: a real SMTP server (aiosmtpd) that writes what it accepts to a folder;
//! - `ports`: loopback ports never handed to two tests of one binary;
//! - `qr`: QR pictures read back;
//! - `money`, `time`, `links`: amounts, moments, links and link requests.
//!
//! Each test binary (`tests/{cli,core,shop,store,ui}/main.rs`) includes this
//! tree with `#[path = "../support/mod.rs"] mod support;`, and so does a bench under
//! `tests/benches/`.

// reason: each test crate uses a different part of this module
#![allow(dead_code)]

pub mod app;
pub mod catalogues;
pub mod cli;
pub mod cups;
pub mod links;
pub mod money;
pub mod pg;
pub mod policy;
pub mod ports;
pub mod qr;
pub mod raw;
pub mod sandbox;
pub mod scripted;
pub mod services;
pub mod shop;
pub mod smtp;
pub mod store;
pub mod time;
