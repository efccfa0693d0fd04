//! The sandbox over real HTTP: its rules, limits, idempotency and faults, and one built-in
//! sandbox per data folder.

mod api;
mod edges;
mod idempotency;
mod one_per_folder;
mod state;
