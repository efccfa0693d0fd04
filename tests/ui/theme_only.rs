//! Sizes, colours and spaces come only from `src/ui/theme.rs`: a number passed straight to
//! `FontId`, `.size(`, `Color32::from_*` or `add_space(` anywhere else in `src/ui` or
//! `src/app` is a second design decision the theme does not know about.

use std::path::{Path, PathBuf};

/// The calls whose first argument must be a name, never a number.
const CALLS: [&str; 9] = [
    "FontId::new(",
    "FontId::proportional(",
    "FontId::monospace(",
    ".size(",
    "Color32::from_rgb(",
    "Color32::from_rgba_unmultiplied(",
    "Color32::from_rgba_premultiplied(",
    "Color32::from_gray(",
    "add_space(",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The places in `source` where one of [`CALLS`] gets a literal number first: (line, text).
fn literals(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    // Tests may build colours to check the theme against; the rule is for what is drawn.
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    for (n, line) in code.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        for call in CALLS {
            for (at, _) in line.match_indices(call) {
                let rest = line[at + call.len()..].trim_start();
                let rest = rest.strip_prefix('-').unwrap_or(rest);
                if rest.starts_with(|c: char| c.is_ascii_digit()) {
                    found.push((n + 1, line.trim().to_owned()));
                }
            }
        }
    }
    found
}

#[test]
fn the_check_finds_a_literal_size_colour_or_space() {
    // The rule is not vacuous: each form it forbids is found, and names pass.
    let bad = "ui.add_space(6.0);\nlet f = FontId::new(13.0, Proportional);\n\
               RichText::new(x).size(18.0);\nColor32::from_rgb(1, 2, 3);\nui.add_space( -4.0);";
    assert_eq!(literals(bad).len(), 5, "{:?}", literals(bad));
    let good = "ui.add_space(theme::SPACE_S);\nRichText::new(x).size(theme::AMOUNT_SIZE);\n\
                // ui.add_space(6.0) in a comment\n#[cfg(test)]\nColor32::from_rgb(1, 2, 3);";
    assert!(literals(good).is_empty(), "{:?}", literals(good));
}

#[test]
fn no_view_passes_a_literal_size_colour_or_space() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root.join("ui"), &mut files);
    rust_files(&root.join("app"), &mut files);
    files.sort();
    assert!(files.len() > 20, "the views were found: {}", files.len());
    let mut offences = Vec::new();
    for file in files {
        if file.ends_with("ui/theme.rs") {
            continue;
        }
        let source = std::fs::read_to_string(&file).expect("a readable source file");
        for (line, text) in literals(&source) {
            let shown = file
                .strip_prefix(&root)
                .unwrap_or(&file)
                .display()
                .to_string();
            offences.push(format!("src/{shown}:{line}: {text}"));
        }
    }
    assert!(
        offences.is_empty(),
        "sizes, colours and spaces belong in src/ui/theme.rs:\n{}",
        offences.join("\n")
    );
}
