//! paydesk: a merchant desktop tool for payment links over the Partner Payment API.
//!
//! The library holds every layer: the domain rules (`domain`), the wire and the signer (`api`),
//! the local history (`store`), the desk's operations (`service`), the local sandbox server
//! (`sandbox`), the shop shared through PostgreSQL (`shop`), the command line (`cli`) and the
//! windows (`app`, `ui`); `main` only picks one.
//! Only `app` and `ui` import egui, and no code in this root uses a layer. See
//! ARCHITECTURE.md for the module map and the data flow.

/// The unit tests' proptest configuration: a failing seed is kept in
/// `tests/proptest-regressions/FILE` (tests/proptest-regressions/README.md); `cases` where the
/// default number of cases is not enough. Defined before the modules, so every one can use it.
#[cfg(test)]
macro_rules! kept_seeds {
    ($file:literal $(, cases: $cases:expr)?) => {
        proptest::prelude::ProptestConfig {
            $(cases: $cases,)?
            failure_persistence: Some(Box::new(
                proptest::test_runner::FileFailurePersistence::Direct(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/proptest-regressions/",
                    $file
                )),
            )),
            ..proptest::prelude::ProptestConfig::default()
        }
    };
}

/// The application id: the desktop entry's and the `AppStream` file's name, the icon's name,
/// and the window's app id (Wayland) and class (X11), so that the menu, the dock and the
/// window list all show one app with its icon.
pub const APP_ID: &str = "io.github.paydesk.Paydesk";

pub mod api;
pub mod app;
pub mod board;
pub mod cli;
pub mod clock;
pub mod domain;
pub mod lang;
pub mod mail;
pub mod notify;
pub mod opener;
pub mod printer;
pub mod qr;
pub mod sandbox;
pub mod secrets;
pub mod service;
pub mod shop;
pub mod slip;
pub mod store;
pub mod ui;
pub mod worker;

/// Log lines (ids, statuses, timings; never a body) go to stderr, for the app and the command
/// line alike: warnings by default (a desktop without a notification service, say);
/// `PAYDESK_LOG` sets the filter.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("PAYDESK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
