//! No file-level import circle inside a folder of `src/` (issue 27): within one folder, the
//! files that name each other form no loop, so each folder reads from its lower files up.
//! A file names another when it uses a path into it (`crate::ui::mail::MailForm`,
//! `super::msg::Sent`) or a name its folder's `mod.rs` re-exports from it
//! (`crate::ui::Command` is `ui/command.rs`'s). A folder's `mod.rs` is the folder's own door,
//! as `farm-studio look` draws it: what it declares and what its files take from it are not
//! counted (`ui/mod.rs` holds `ViewCtx`, which every view takes).

#![allow(
    clippy::unwrap_used,
    reason = "a test's own helpers: a failed unwrap fails the test"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One file of `src/`: its module path and its text without comments.
struct File {
    path: PathBuf,
    module: Vec<String>,
    text: String,
}

fn files(dir: &Path, src: &Path, out: &mut Vec<File>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, src, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(src).unwrap();
        let mut module: Vec<String> = rel
            .with_extension("")
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        match module.last().map(String::as_str) {
            Some("lib") if module.len() == 1 => module.clear(),
            Some("main") if module.len() == 1 => continue,
            Some("mod") => {
                module.pop();
            }
            _ => {}
        }
        let text = std::fs::read_to_string(&path).unwrap();
        out.push(File {
            path: rel.to_path_buf(),
            module,
            text: without_comments(&text),
        });
    }
}

/// The text with `//` comments (doc comments included) cut from each line.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            // `https://` in a string is not a comment.
            Some(i) if !l[..i].ends_with(':') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths that start at `at` in `text` (after `crate`, `super` or `self`), with `{…}`
/// groups spread: `a::{b, c::D}` gives `a::b` and `a::c::D`.
fn paths_at(text: &str, at: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut segments = Vec::new();
    let bytes: Vec<char> = text[at..].chars().collect();
    let mut i = 0;
    spread(&bytes, &mut i, &mut segments, &mut out);
    out
}

fn spread(chars: &[char], i: &mut usize, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let depth = prefix.len();
    loop {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
        if *i < chars.len() && chars[*i] == '{' {
            *i += 1;
            loop {
                spread(chars, i, prefix, out);
                while *i < chars.len() && chars[*i].is_whitespace() {
                    *i += 1;
                }
                match chars.get(*i) {
                    Some(',') => *i += 1,
                    Some('}') => {
                        *i += 1;
                        break;
                    }
                    _ => break,
                }
                while *i < chars.len() && chars[*i].is_whitespace() {
                    *i += 1;
                }
                if chars.get(*i) == Some(&'}') {
                    *i += 1;
                    break;
                }
            }
            prefix.truncate(depth);
            return;
        }
        let start = *i;
        while *i < chars.len() && is_ident(chars[*i]) {
            *i += 1;
        }
        if *i == start {
            break;
        }
        prefix.push(chars[start..*i].iter().collect());
        if chars.get(*i) == Some(&':') && chars.get(*i + 1) == Some(&':') {
            *i += 2;
        } else {
            break;
        }
    }
    out.push(prefix.clone());
    prefix.truncate(depth);
}

/// Whether the statement around byte `at` is a re-export (`pub use …;`).
fn in_reexport(text: &str, at: usize) -> bool {
    let start = text[..at].rfind(';').map_or(0, |i| i + 1);
    let start = text[start..at].rfind('}').map_or(start, |i| start + i + 1);
    let statement = text[start..at].trim_start();
    statement.starts_with("pub use") || statement.starts_with("pub(crate) use")
}

/// Each file's module path to the files it names in its own folder.
fn edges(files: &[File]) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let by_module: BTreeMap<&[String], &File> =
        files.iter().map(|f| (f.module.as_slice(), f)).collect();
    // What each folder's `mod.rs` (or lib.rs) re-exports: (module, name) -> the child.
    let mut reexports: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    for f in files {
        for (at, _) in f.text.match_indices("use self::") {
            if !in_reexport(&f.text, at + 3) {
                continue;
            }
            for path in paths_at(&f.text, at + "use self::".len()) {
                if let (Some(child), Some(name)) = (path.first(), path.last())
                    && path.len() >= 2
                {
                    let mut target = f.module.clone();
                    target.push(child.clone());
                    reexports.insert((f.module.clone(), name.clone()), target);
                }
            }
        }
    }
    let mut out: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for f in files {
        let folder = f.path.parent().map(Path::to_path_buf).unwrap_or_default();
        let is_mod = f
            .path
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        let mut named: Vec<Vec<String>> = Vec::new();
        for root in ["crate::", "super::", "self::"] {
            for (at, _) in f.text.match_indices(root) {
                if at > 0 && f.text[..at].ends_with(|c: char| is_ident(c) || c == ':') {
                    continue;
                }
                if in_reexport(&f.text, at) {
                    continue;
                }
                let base: Vec<String> = match root {
                    "crate::" => Vec::new(),
                    "super::" => f.module[..f.module.len().saturating_sub(1)].to_vec(),
                    _ => f.module.clone(),
                };
                for path in paths_at(&f.text, at + root.len()) {
                    let mut full = base.clone();
                    full.extend(path);
                    named.push(full);
                }
            }
        }
        for full in named {
            // The longest prefix that is a file, then a name that file re-exports.
            let Some(len) = (0..=full.len())
                .rev()
                .find(|&n| by_module.contains_key(&full[..n]))
            else {
                continue;
            };
            let mut target = full[..len].to_vec();
            if let Some(name) = full.get(len)
                && let Some(child) = reexports.get(&(target.clone(), name.clone()))
            {
                target.clone_from(child);
            }
            let Some(to) = by_module.get(target.as_slice()) else {
                continue;
            };
            let to_folder = to.path.parent().map(Path::to_path_buf).unwrap_or_default();
            let door = |p: &Path| {
                p.file_name()
                    .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
            };
            if to.path != f.path && to_folder == folder && !door(&to.path) && !is_mod {
                out.entry(f.path.clone())
                    .or_default()
                    .insert(to.path.clone());
            }
        }
    }
    out
}

/// The circles of `edges`: each strongly connected set of two or more files.
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let reach = |from: &PathBuf| -> BTreeSet<PathBuf> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(p) = todo.pop() {
            for next in edges.get(&p).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&PathBuf, BTreeSet<PathBuf>> =
        edges.keys().map(|p| (p, reach(p))).collect();
    let mut out: Vec<Vec<PathBuf>> = Vec::new();
    for (p, from_p) in &reached {
        if !from_p.contains(*p) || out.iter().any(|c| c.contains(p)) {
            continue;
        }
        let circle: Vec<PathBuf> = from_p
            .iter()
            .filter(|q| reached.get(q).is_some_and(|r| r.contains(*p)))
            .cloned()
            .collect();
        out.push(circle);
    }
    out
}

fn src_edges() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &src, &mut all);
    edges(&all)
}

#[test]
fn no_folder_of_src_has_an_import_circle() {
    let found = circles(&src_edges());
    assert!(
        found.is_empty(),
        "files of one folder that name each other in a circle (move what they share into a \
         lower file): {found:#?}"
    );
}

#[test]
fn the_circle_check_sees_the_circles_issue_30_had_brought_back() {
    let file = |path: &str, text: &str| {
        let path = PathBuf::from(path);
        let mut module: Vec<String> = path
            .with_extension("")
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        File {
            path,
            module,
            text: without_comments(text),
        }
    };
    // app/msg.rs <-> app/send.rs, by paths.
    let app = [
        file("app/mod.rs", "mod msg;\nmod send;\n"),
        file("app/msg.rs", "enum Msg { Sent(super::send::Sent) }"),
        file("app/send.rs", "use super::msg::{LinkResult, Msg};"),
    ];
    assert_eq!(circles(&edges(&app)).len(), 1);
    // ui/command.rs <-> ui/mail.rs, one side through a name ui/mod.rs re-exports.
    let ui = [
        file(
            "ui/mod.rs",
            "pub use self::command::{Command, Gate};\npub mod mail;",
        ),
        file(
            "ui/command.rs",
            "enum Command { Mail(crate::ui::mail::MailCommand) }",
        ),
        file("ui/mail.rs", "use crate::ui::Command;\n// crate::nothing\n"),
    ];
    assert_eq!(circles(&edges(&ui)).len(), 1);
    // A folder's mod.rs and its files name each other: the folder's door, no circle.
    let service = [
        file(
            "service/mod.rs",
            "mod receipt;\nfn f() -> receipt::Heard { todo() }",
        ),
        file("service/receipt.rs", "use super::Services;"),
    ];
    assert!(circles(&edges(&service)).is_empty());
    // A re-export alone, and a comment, make no circle.
    let quiet = [
        file(
            "ui/mod.rs",
            "pub use self::command::Command;\npub struct ViewCtx;",
        ),
        file(
            "ui/command.rs",
            "// crate::ui::ViewCtx\nuse crate::ui::theme;",
        ),
        file("ui/theme.rs", "pub struct Palette;"),
    ];
    assert!(circles(&edges(&quiet)).is_empty());
}
