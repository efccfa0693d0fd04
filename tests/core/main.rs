//! The core suites, linked into one test binary (docs/testing.md: where a new suite goes).

#[path = "../support/mod.rs"]
mod support;

mod crash;
mod create;
mod desktop;
mod docs_architecture;
mod edges;
mod fault_campaign;
mod hostile;
mod hygiene;
mod import_circles;
mod lang_catalogues;
mod mail_send;
mod migrations_frozen;
mod model;
mod packaging;
mod private_files;
mod qr_decode;
mod sandbox;
mod slip_pdf;
mod slip_print;
