//! The local Partner API simulator behind `paydesk sandbox`, the app's first-start profile
//! and every integration test: a stateful axum server that enforces the spec row by row
//! (authentication, scopes, idempotency, link rules, card save, installments), serves a pay
//! page, injects faults on demand, and can keep its state in `SQLite` across restarts.
//!
//! It is an independent implementation of the server side: request bodies are read
//! leniently from `serde_json::Value` so it sees what a buggy client really sends, and
//! answers are built from the shared `api::wire` types so both sides agree on the shape.
//! docs/sandbox.md documents the fixture format, the admin routes and
//! every sandbox choice.

pub mod admin;
mod auth;
pub mod body;
mod cards;
pub mod cli;
mod conn;
mod error;
pub mod faults;
pub mod fixture;
mod holder;
pub mod idempotency;
mod index;
mod installments;
mod links;
pub mod lock;
pub mod messages;
mod pay_page;
mod persist;
mod records;
pub mod requests;
pub mod respond;
mod server;
mod shared;
pub mod state;

pub use admin::Admin;
pub use error::SandboxError;
pub use faults::{FaultKind, FaultRule};
pub use fixture::{Fixture, FixtureError};
pub use installments::{installment_for, total_for};
pub use server::{Sandbox, SandboxConfig, SandboxHandle};

/// The shipped fixture's demo API key (a public test value).
pub const DEMO_API_KEY: &str = "pk_test_paydesk_demo";
/// The shipped fixture's demo API secret (a public test value, not a secret).
pub const DEMO_API_SECRET: &str = "sk_test_paydesk_demo_secret";
/// The shipped fixture's main business.
pub const DEMO_BUSINESS: &str = "biz_kadikoy_kahve";
