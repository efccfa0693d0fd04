//! The documents stay true to the tree and to their readers (issue 22):
//! - ARCHITECTURE.md names every module under `src/` by its path (`store/links.rs`), and names
//!   no module that is gone;
//! - the README stays a user's guide: at most 400 lines, with a Configuration and a
//!   Troubleshooting section;
//! - the exactly-once outcome table lives in one place, docs/design.md;
//! - every relative link of the README, ARCHITECTURE.md and docs/ leads to a file that exists,
//!   and to a heading of it when it names one;
//! - the service is the only door to the data (issue 27): no file under `src/app` or `src/cli`
//!   names the store or the shop's modules, the `Store` type, or a way to the store's lock;
//! - views own their state (issue 27): no file under `src/app` writes a field of a view
//!   (`views.history.loading = …`, `views.pending.busy.push(…)`) outside its test module; it
//!   hands the result to the view's `on_*` method.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

const README_MAX_LINES: usize = 400;

/// The header row of the exactly-once table (docs/design.md §2).
const EXACTLY_ONCE_HEADER: &str = "| answer | before any unknown outcome |";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every `.rs` file under `dir`, as a path relative to `base` with `/` separators.
fn rust_files(base: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    let entries =
        fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(base, &path, out);
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("rs"))
        {
            let rel = path.strip_prefix(base).expect("under the base");
            let parts: Vec<_> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            out.insert(parts.join("/"));
        }
    }
}

fn src_modules() -> BTreeSet<String> {
    let src = root().join("src");
    let mut files = BTreeSet::new();
    rust_files(&src, &src, &mut files);
    files
}

/// The module paths ARCHITECTURE.md's tables name in their first column.
fn architecture_rows(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once('`').map(|(name, _)| name))
        .filter(|name| Path::new(name).extension().is_some_and(|e| e == "rs"))
        .map(str::to_owned)
        .collect()
}

/// The documents written for people: the README, ARCHITECTURE.md and every page of docs/.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    let mut pages: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md")))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs
}

#[test]
fn every_module_under_src_has_its_row_in_architecture_md() {
    let text = read(&root().join("ARCHITECTURE.md"));
    let rows = architecture_rows(&text);
    let modules = src_modules();
    assert!(
        modules.len() > 50,
        "found the modules under src/: {modules:?}"
    );
    let missing: Vec<_> = modules.difference(&rows).collect();
    assert!(
        missing.is_empty(),
        "modules under src/ without a row in ARCHITECTURE.md (name them by path, e.g. `store/links.rs`): {missing:?}"
    );
}

#[test]
fn architecture_md_names_no_module_that_is_gone() {
    let text = read(&root().join("ARCHITECTURE.md"));
    let modules = src_modules();
    let stale: Vec<_> = architecture_rows(&text)
        .into_iter()
        .filter(|row| !modules.contains(row))
        .collect();
    assert!(
        stale.is_empty(),
        "ARCHITECTURE.md has rows for files that are not under src/: {stale:?}"
    );
}

#[test]
fn the_readme_is_a_short_guide_with_configuration_and_troubleshooting() {
    let text = read(&root().join("README.md"));
    let lines = text.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; at most {README_MAX_LINES}: move detail to docs/"
    );
    for section in ["## Configuration", "## Troubleshooting"] {
        assert!(
            text.lines().any(|l| l.trim_end() == section),
            "README.md has no `{section}` section"
        );
    }
}

#[test]
fn the_exactly_once_table_lives_in_design_md_only() {
    let holders: Vec<(PathBuf, usize)> = documents()
        .into_iter()
        .map(|p| {
            let n = read(&p).matches(EXACTLY_ONCE_HEADER).count();
            (p, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    let design = root().join("docs/design.md");
    assert_eq!(
        holders,
        vec![(design, 1)],
        "the table `{EXACTLY_ONCE_HEADER} …` must be in docs/design.md once and nowhere else; link to it instead"
    );
}

/// The anchors GitHub gives a Markdown file's headings (code blocks skipped): lower case,
/// letters, digits, `-` and `_` kept, spaces made `-`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .flat_map(char::to_lowercase)
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.insert(slug);
    }
    out
}

#[test]
fn every_relative_link_of_the_documents_leads_to_a_file_and_heading() {
    let mut broken = Vec::new();
    for doc in documents() {
        let text = read(&doc);
        let dir = doc.parent().expect("a document has a folder");
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                doc.clone()
            } else {
                dir.join(file)
            };
            if !path.exists() {
                broken.push(format!("{}: {target} (no such file)", doc.display()));
            } else if !anchor.is_empty()
                && path.extension().is_some_and(|e| e == "md")
                && !anchors(&read(&path)).contains(anchor)
            {
                broken.push(format!("{}: {target} (no such heading)", doc.display()));
            }
        }
    }
    assert!(broken.is_empty(), "links that lead nowhere: {broken:#?}");
}

/// What a file under `src/app` or `src/cli` never says: the service is the only door to the
/// desk's file and to the shop's PostgreSQL.
const DOORS_LEFT_OPEN: [&str; 5] = [
    "crate::store",
    "crate::shop",
    "with_store_locked",
    ".store()",
    "inspect(",
];

/// Whether `text` names the type `Store`: the word alone, not an error variant such as
/// `DeskError::Store(…)` nor a longer name (`StoreError`, `StoredLink`).
fn names_store_type(text: &str) -> bool {
    text.match_indices("Store").any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + "Store".len()..].chars().next();
        let word_start = !before.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let word_end = !after.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let variant = text[..at].ends_with("Error::");
        word_start && word_end && !variant
    })
}

#[test]
fn no_file_of_the_app_or_the_cli_reaches_the_store_or_the_shop_but_through_the_service() {
    let src = root().join("src");
    let mut files = BTreeSet::new();
    rust_files(&src, &src.join("app"), &mut files);
    rust_files(&src, &src.join("cli"), &mut files);
    assert!(files.len() > 20, "the app and the CLI are found: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = read(&src.join(file));
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for door in DOORS_LEFT_OPEN {
                if code.contains(door) {
                    found.push(format!("src/{file}:{}: {door}", n + 1));
                }
            }
            if names_store_type(code) {
                found.push(format!("src/{file}:{}: Store", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "doors around the service:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_door_check_sees_the_store_type_and_not_an_error_variant() {
    assert!(names_store_type("fn f(s: &mut Store) {}"));
    assert!(names_store_type("use crate::service::{Store, Desk};"));
    assert!(names_store_type("let s: &crate::service::Store = x;"));
    assert!(!names_store_type("DeskError::Store(StoreError::Io { .. })"));
    assert!(!names_store_type("let x: StoredLink = y;"));
}

/// What changes a field in place when called on it.
const MUTATORS: [&str; 9] = [
    ".push(",
    ".insert(",
    ".remove(",
    ".retain(",
    ".clear()",
    ".extend(",
    ".clone_from(",
    ".take()",
    ".get_or_insert",
];

/// `text` without its `#[cfg(test)]` modules (the braces of each skipped whole).
fn without_test_modules(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        if !after.trim_start().starts_with("mod ") {
            out.push_str("#[cfg(test)]");
            rest = after;
            continue;
        }
        let Some(open) = after.find('{') else {
            return out;
        };
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The writes of a view's field in `text` (Rust code), as `views.VIEW.FIELD`: an assignment
/// (`=`, `+=`, `-=`) or a mutating call (`.push(`, `.insert(`, …) on `views.VIEW.FIELD`, also
/// when rustfmt broke the chain over lines. Comments are left out; `views.VIEW = …` (the app's
/// own `Views`) and method calls (`views.VIEW.on_page(…)`) are not writes of a field.
fn view_field_writes(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    // `self.views\n    .history\n    .loading = x` read as `self.views.history.loading = x`.
    let mut joined = String::with_capacity(code.len());
    for c in code.chars() {
        if c == '.' {
            while joined.ends_with(char::is_whitespace) {
                joined.pop();
            }
        }
        joined.push(c);
    }
    let ident = |s: &str| -> usize {
        s.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let mut found = Vec::new();
    for (at, _) in joined.match_indices("views.") {
        if joined[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &joined[at + "views.".len()..];
        let view_len = ident(rest);
        let Some(rest_field) = rest[view_len..].strip_prefix('.') else {
            continue;
        };
        let field_len = ident(rest_field);
        if view_len == 0 || field_len == 0 {
            continue;
        }
        let tail = rest_field[field_len..].trim_start();
        let assigned = (tail.starts_with('=') && !tail.starts_with("=="))
            || tail.starts_with("+=")
            || tail.starts_with("-=");
        if assigned || MUTATORS.iter().any(|m| tail.starts_with(m)) {
            found.push(format!(
                "views.{}.{}",
                &rest[..view_len],
                &rest_field[..field_len]
            ));
        }
    }
    found
}

#[test]
fn no_file_of_the_app_writes_a_field_of_a_view() {
    let src = root().join("src");
    let mut files = BTreeSet::new();
    rust_files(&src, &src.join("app"), &mut files);
    assert!(files.len() > 15, "the app is found: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = without_test_modules(&read(&src.join(file)));
        for write in view_field_writes(&text) {
            found.push(format!("src/{file}: {write}"));
        }
    }
    assert!(
        found.is_empty(),
        "the app writes a view's state instead of handing it the result (its on_* method):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_view_write_check_sees_the_writes_the_app_used_to_make() {
    // Lines as they stood in src/app before the views owned their state.
    let old = [
        "self.views.history.loading = false;",
        "app.views.board.stale = true,",
        "self.views.new_link.note = Some(SendNote::Error(e.problem(lang)));",
        "self.views.pending.busy.retain(|k| *k != key);",
        "self.views.catalog.barcode_saving.remove(&variant_id);",
        "self.views.catalog.barcode_errors.insert(variant_id, why);",
        "self.views.shop.url.clear();",
        "self.views.shop.name.clone_from(&name);",
        "self.views\n            .settings\n            .secrets\n            .insert(p, s);",
        "self.views.lock.busy = false; // a comment after it",
    ];
    for line in old {
        assert_eq!(view_field_writes(line).len(), 1, "not seen: {line}");
    }
    let fine = [
        "self.views.history.on_page(page);",
        "self.views.shown = None;",
        "if self.views.board.is_loading() == loading {}",
        "assert!(app.views.history.total() == Some(2));",
        "let n = self.views.pending.count();",
        "// self.views.history.loading = false;",
        "previews.history.x = 1;",
    ];
    for line in fine {
        assert!(
            view_field_writes(line).is_empty(),
            "taken for a write: {line}"
        );
    }
    let tested = "fn f() {}\n#[cfg(test)]\nmod tests {\n    fn g() { app.views.x.y = 1; }\n}\n";
    assert!(view_field_writes(&without_test_modules(tested)).is_empty());
    assert_eq!(view_field_writes(tested).len(), 1);
}
