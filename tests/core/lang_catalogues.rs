//! The sentence catalogues: every sentence in both languages, every catalogue listed.

use std::collections::HashSet;

use crate::support::catalogues::every_sentence;
use paydesk::lang;

/// Sentences that read the same in both languages on purpose (names, codes).
const SAME_IN_BOTH: &[&str] = &[
    "::UiText::Cvv",
    "::UiText::HintYear",
    // A dash where nobody acted (staff were off).
    "::UiText::AuditNobody",
    // A product's name.
    "::UiText::SendViaWhatsApp",
    "::UiText::SentShortWhatsApp",
];

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

/// Every Rust file under src/, with its text.
fn src_files() -> Vec<(std::path::PathBuf, String)> {
    fn walk(dir: &std::path::Path, found: &mut Vec<(std::path::PathBuf, String)>) {
        for entry in std::fs::read_dir(dir).expect("src is readable") {
            let path = entry.expect("src is readable").path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("src is readable");
                found.push((path, text));
            }
        }
    }
    let mut found = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    found
}

#[test]
fn every_catalogue_in_the_source_is_listed() {
    // Every `sentences!` invocation in src/, found by reading the files, must be walked.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut catalogues = Vec::new();
    for (path, text) in src_files() {
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
        let module = path
            .strip_prefix(&src)
            .expect("under src")
            .with_extension("")
            .to_string_lossy()
            .replace(std::path::MAIN_SEPARATOR, "::")
            .trim_end_matches("::mod")
            .to_owned();
        catalogues.push(format!("paydesk::{module}::{name}::"));
    }
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

#[test]
fn every_sentence_is_said_somewhere() {
    // A sentence nothing names is one nobody reads: it rots (an untranslated plural, an old
    // word) while looking like part of the product. Its name must appear in src/ other than
    // on the line that declares it.
    let lines: Vec<String> = src_files()
        .iter()
        .flat_map(|(_, text)| text.lines().map(str::to_owned))
        .collect();
    let is_word_at = |line: &str, at: usize, word: &str| {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        !line[..at].ends_with(ident) && !line[at + word.len()..].starts_with(ident)
    };
    let unsaid: Vec<_> = every_sentence()
        .filter(|e| {
            let key = e.name.rsplit("::").next().expect("a name");
            let declaration = format!("{key} => \"");
            !lines.iter().any(|line| {
                !line.trim_start().starts_with(&declaration)
                    && line
                        .match_indices(key)
                        .any(|(at, _)| is_word_at(line, at, key))
            })
        })
        .map(|e| e.name)
        .collect();
    assert!(unsaid.is_empty(), "sentences nothing says: {unsaid:?}");
}
