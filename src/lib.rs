//! paydesk: a merchant desktop tool for payment links over the Partner Payment API.
//!
//! The library holds everything but the windows: the domain rules (`domain`), the wire and
//! the signer (`api`), and the local sandbox server (`sandbox`). Only `app` and `ui` import
//! egui. See ARCHITECTURE.md for the module map and the data flow.

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
pub mod notify;
pub mod printer;
pub mod qr;
pub mod sandbox;
pub mod secrets;
pub mod service;
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

/// Every sentence paydesk can show a user, catalogue by catalogue (see [`sentences!`]): the
/// language tests walk this list (and a test finds every catalogue in the source here).
pub fn every_sentence() -> impl Iterator<Item = &'static lang::Entry> {
    let catalogues: [&'static [lang::Entry]; 8] = [
        ui::text::T::ENTRIES,
        cli::text::C::ENTRIES,
        domain::messages::DomainMessage::ENTRIES,
        api::messages::ApiMessage::ENTRIES,
        service::messages::ServiceMessage::ENTRIES,
        sandbox::messages::SandboxMessage::ENTRIES,
        store::messages::StoreMessage::ENTRIES,
        slip::SlipText::ENTRIES,
    ];
    catalogues.into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Sentences that read the same in both languages on purpose (names, codes).
    const SAME_IN_BOTH: &[&str] = &["::T::AppName", "::T::Cvv", "::T::HintYear"];

    #[test]
    fn every_sentence_is_in_both_languages_with_the_same_placeholders() {
        for e in every_sentence() {
            for text in [e.tr, e.en] {
                assert!(!text.trim().is_empty(), "{}", e.name);
                assert_eq!(text, text.trim(), "{}", e.name);
            }
            let mut tr = lang::placeholders(e.tr);
            let mut en = lang::placeholders(e.en);
            tr.sort_unstable();
            en.sort_unstable();
            assert_eq!(tr, en, "{}: placeholders differ", e.name);
            if !SAME_IN_BOTH.iter().any(|s| e.name.ends_with(s)) {
                assert_ne!(e.tr, e.en, "{} is not translated", e.name);
            }
        }
    }

    #[test]
    fn every_catalogue_in_the_source_is_listed() {
        // Every `sentences!` invocation in src/, found by reading the files, must be walked.
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("src is readable") {
                let path = entry.expect("src is readable").path();
                if path.is_dir() {
                    walk(&path, found);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                // An invocation starts a line (a mention in a string or a comment does not).
                let Some(at) = text.find("\ncrate::sentences! {") else {
                    continue;
                };
                let after = &text[at..];
                let name = after[after.find("enum ").expect("an enum") + 5..]
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .expect("a name")
                    .to_owned();
                let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
                let module = path
                    .strip_prefix(&src)
                    .expect("under src")
                    .with_extension("")
                    .to_string_lossy()
                    .replace(std::path::MAIN_SEPARATOR, "::")
                    .trim_end_matches("::mod")
                    .to_owned();
                found.push(format!("paydesk::{module}::{name}::"));
            }
        }
        let mut catalogues = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut catalogues,
        );
        assert!(catalogues.len() >= 7, "{catalogues:?}");
        for c in catalogues {
            assert!(
                every_sentence().any(|e| e.name.starts_with(&c)),
                "{c} is not in every_sentence"
            );
        }
    }

    #[test]
    fn the_catalogue_is_really_turkish_and_names_are_unique() {
        let turkish: String = every_sentence().map(|e| e.tr).collect();
        for c in ['ç', 'ğ', 'ı', 'İ', 'ö', 'ş', 'ü'] {
            assert!(turkish.contains(c), "no {c} in the Turkish catalogue");
        }
        let names: HashSet<_> = every_sentence().map(|e| e.name).collect();
        assert_eq!(names.len(), every_sentence().count());
    }
}
