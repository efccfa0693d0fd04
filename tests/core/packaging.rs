//! The Linux packaging files agree with each other and with the program: the desktop entry,
//! the `AppStream` file, the icons and the Debian package's asset list. A mismatch here is a menu
//! entry without an icon, a window the dock cannot match to its entry, or a package that
//! installs a 48-pixel icon in the 256-pixel folder. (`.ci/run` also runs
//! `desktop-file-validate` and `appstreamcli validate` on the same files, and `.ci/package.sh`
//! builds, installs, runs and removes the package.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use paydesk::APP_ID;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The `key=value` lines of the desktop entry's main group.
fn desktop_value(entry: &str, key: &str) -> String {
    entry
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("the desktop entry has no {key}"))
        .to_owned()
}

/// The text of every `<tag>...</tag>` in `xml`.
fn xml_texts<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start..];
        let body_start = after.find('>').unwrap() + 1;
        let body_end = after.find(&close).unwrap();
        out.push(after[body_start..body_end].trim());
        rest = &after[body_end..];
    }
    out
}

/// The Debian package's `[source, destination, mode]` rows from Cargo.toml.
fn deb_assets() -> Vec<(String, String)> {
    let manifest: toml::Table = read("Cargo.toml").parse().unwrap();
    manifest["package"]["metadata"]["deb"]["assets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let row = row.as_array().unwrap();
            (
                row[0].as_str().unwrap().to_owned(),
                row[1].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_desktop_entry_starts_the_binary_with_the_apps_icon_and_window_class() {
    let name = format!("packaging/linux/{APP_ID}.desktop");
    let entry = read(&name);
    assert_eq!(desktop_value(&entry, "Exec"), env!("CARGO_PKG_NAME"));
    assert_eq!(desktop_value(&entry, "Icon"), APP_ID);
    // The window's X11 class and Wayland app id are APP_ID (src/app/run.rs).
    assert_eq!(desktop_value(&entry, "StartupWMClass"), APP_ID);
    assert_eq!(desktop_value(&entry, "Terminal"), "false");
}

#[test]
fn the_appstream_file_names_the_entry_this_version_and_screenshots_that_exist() {
    let xml = read(&format!("packaging/linux/{APP_ID}.metainfo.xml"));
    assert_eq!(xml_texts(&xml, "id"), [APP_ID]);
    assert_eq!(
        xml_texts(&xml, "launchable"),
        [format!("{APP_ID}.desktop").as_str()]
    );
    let version = format!("<release version=\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(
        xml.contains(&version),
        "the newest release in the metainfo must be the crate's version: {version}"
    );
    let images = xml_texts(&xml, "image");
    assert!(!images.is_empty(), "the metainfo shows no screenshot");
    for url in images {
        let Some((_, path)) = url.split_once("/main/") else {
            panic!("screenshot {url} is not a file of this repository");
        };
        assert!(root().join(path).is_file(), "screenshot {path} is missing");
    }
}

#[test]
fn the_package_installs_every_file_and_each_icon_in_the_folder_of_its_size() {
    let assets = deb_assets();
    let mut icon_sizes = BTreeSet::new();
    for (source, dest) in &assets {
        // Built before `cargo deb` runs: the binary and the man page (`paydesk man`).
        if source.starts_with("target/") {
            continue;
        }
        assert!(root().join(source).is_file(), "{source} does not exist");
        let Some(rest) = dest.strip_prefix("usr/share/icons/hicolor/") else {
            continue;
        };
        let (folder, file) = rest.split_once("/apps/").unwrap();
        let ext = Path::new(source).extension().unwrap().to_str().unwrap();
        assert_eq!(file, format!("{APP_ID}.{ext}"), "icon {source}");
        if folder == "scalable" {
            assert_eq!(ext, "svg");
            continue;
        }
        let decoder = png::Decoder::new(std::io::BufReader::new(
            fs::File::open(root().join(source)).unwrap(),
        ));
        let info = decoder.read_info().unwrap();
        let (w, h) = (info.info().width, info.info().height);
        assert_eq!(folder, format!("{w}x{h}"), "{source} is {w}x{h}");
        icon_sizes.insert(w);
    }
    // The sizes desktops ask for, from the panel to the software centre.
    for size in [16, 24, 32, 48, 64, 128, 256, 512] {
        assert!(icon_sizes.contains(&size), "no {size}x{size} icon");
    }
    let dests: Vec<&str> = assets.iter().map(|(_, d)| d.as_str()).collect();
    for wanted in [
        "usr/bin/",
        "usr/share/applications/",
        "usr/share/metainfo/",
        "usr/share/man/man1/",
    ] {
        assert!(
            dests.contains(&wanted),
            "the package installs nothing in {wanted}"
        );
    }
}
