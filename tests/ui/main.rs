//! The ui suites, linked into one test binary (docs/testing.md: where a new suite goes).

#[path = "../support/mod.rs"]
mod support;

mod accessible;
mod app;
mod barcode;
mod board;
mod forms;
mod pending;
mod report;
mod sale;
mod send;
mod shop;
mod staff;
mod theme_only;
mod visual;
mod words;
