//! Where a slip goes, with fake CUPS tools: tiny shell scripts standing in for `lpstat` and `lp`
//! that write down their arguments, environment and standard input. With a default printer the
//! PDF goes to `lp -d NAME`; without one (or without CUPS) it is saved in the folder; a refusing
//! `lp` is an error that says why.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use paydesk::lang::Lang;
use paydesk::printer::{Delivered, PrintError, SlipSink};
use paydesk::slip::{Paper, Slip, SlipPdf, render};

/// Tests here write scripts and then run them. A script still open for writing in another
/// thread's freshly forked child cannot be executed (ETXTBSY), so the tests take turns.
static TURN: Mutex<()> = Mutex::new(());

fn turn() -> MutexGuard<'static, ()> {
    TURN.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A folder of fake CUPS tools. `lpstat -d` names the printer written in `printer` (no file:
/// no default destination); `lp` records its arguments, environment and input, and fails
/// with the words in `refuse` when that file exists.
struct FakeCups {
    dir: tempfile::TempDir,
}

impl FakeCups {
    fn new() -> FakeCups {
        let dir = tempfile::tempdir().expect("a temp dir");
        let d = dir.path().display();
        script(
            dir.path(),
            "lpstat",
            &format!(
                r#"printf '%s\n' "$@" > "{d}/lpstat-args"
env > "{d}/lpstat-env"
if [ -f "{d}/printer" ]; then
  echo "system default destination: $(cat "{d}/printer")"
else
  echo "no system default destination"
fi"#
            ),
        );
        script(
            dir.path(),
            "lp",
            &format!(
                r#"printf '%s\n' "$@" > "{d}/lp-args"
env > "{d}/lp-env"
cat > "{d}/lp-stdin"
if [ -f "{d}/refuse" ]; then
  cat "{d}/refuse" >&2
  exit 1
fi
echo "request id is $2-7 (0 file(s))""#
            ),
        );
        FakeCups { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn set_printer(&self, name: Option<&str>) {
        let file = self.path().join("printer");
        match name {
            Some(n) => std::fs::write(file, n).expect("written"),
            None => {
                let _ = std::fs::remove_file(file);
            }
        }
    }

    fn read(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.path().join(name)).ok()
    }

    fn lp_stdin(&self) -> Option<Vec<u8>> {
        std::fs::read(self.path().join("lp-stdin")).ok()
    }

    fn sink(&self, folder: &Path) -> SlipSink {
        SlipSink {
            lpstat: self.path().join("lpstat").into(),
            lp: self.path().join("lp").into(),
            folder: Some(folder.to_owned()),
        }
    }
}

fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("the script is written");
    let mut perm = std::fs::metadata(&path).expect("written").permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(&path, perm).expect("made executable");
    path
}

fn pdf() -> SlipPdf {
    let slip = Slip {
        shop: "Kadıköy Kahve Evi".into(),
        amount: "150,00 ₺".into(),
        url: "http://127.0.0.1:47110/pay/lnk_01JDQ5G2R8Z6?ref=PD-20261123-A1B20007".into(),
        order_number: "PD-20261123-A1B20007".into(),
        expiry: None,
        lang: Lang::Tr,
    };
    render(&slip, Paper::Roll80).expect("the slip renders")
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("readable")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn with_a_default_printer_the_pdf_goes_to_lp_on_that_printer() {
    let _turn = turn();
    let cups = FakeCups::new();
    cups.set_printer(Some("Counter_80"));
    let folder = tempfile::tempdir().expect("a temp dir");
    let pdf = pdf();

    let done = cups
        .sink(folder.path())
        .deliver(&pdf, "PD-20261123-A1B20007")
        .expect("printed");
    assert_eq!(
        done,
        Delivered::Printed {
            printer: "Counter_80".into()
        }
    );
    assert_eq!(cups.read("lpstat-args").as_deref(), Some("-d\n"));
    // lpstat's answer is parsed, so it is asked in CUPS's own words.
    assert!(
        cups.read("lpstat-env")
            .is_some_and(|e| e.lines().any(|l| l == "LC_ALL=C"))
    );
    let args = cups.read("lp-args").expect("lp ran");
    assert_eq!(
        args.lines().collect::<Vec<_>>(),
        [
            "-d",
            "Counter_80",
            "-t",
            "paydesk PD-20261123-A1B20007",
            "-o",
            &format!("media=Custom.80x{}mm", pdf.height_mm),
        ]
    );
    assert_eq!(
        cups.lp_stdin(),
        Some(pdf.bytes.clone()),
        "the PDF, byte for byte"
    );
    assert!(files_in(folder.path()).is_empty(), "nothing saved");
}

#[test]
fn without_a_default_printer_or_without_cups_the_pdf_is_saved_in_the_folder() {
    let _turn = turn();
    let cups = FakeCups::new();
    cups.set_printer(None);
    let folder = tempfile::tempdir().expect("a temp dir");
    let pdf = pdf();

    let done = cups
        .sink(folder.path())
        .deliver(&pdf, "PD-20261123/A1B20007")
        .expect("saved");
    let path = folder.path().join("paydesk-slip-PD-20261123_A1B20007.pdf");
    assert_eq!(done, Delivered::Saved(path.clone()));
    assert_eq!(std::fs::read(&path).expect("the file"), pdf.bytes);
    assert_eq!(cups.read("lp-args"), None, "lp never ran");

    // No CUPS at all: lpstat cannot even start.
    let other = tempfile::tempdir().expect("a temp dir");
    let sink = SlipSink {
        lpstat: cups.path().join("no-such-lpstat").into(),
        ..cups.sink(other.path())
    };
    let done = sink.deliver(&pdf, "PD-1").expect("saved");
    assert_eq!(
        done,
        Delivered::Saved(other.path().join("paydesk-slip-PD-1.pdf"))
    );
    assert_eq!(cups.read("lp-args"), None, "lp never ran");
}

#[test]
fn a_refused_job_is_an_error_with_lps_words_and_nothing_is_saved() {
    let _turn = turn();
    let cups = FakeCups::new();
    cups.set_printer(Some("Gone"));
    std::fs::write(
        cups.path().join("refuse"),
        "lp: The printer or class does not exist.\n",
    )
    .expect("written");
    let folder = tempfile::tempdir().expect("a temp dir");

    let err = cups
        .sink(folder.path())
        .deliver(&pdf(), "PD-1")
        .expect_err("refused");
    assert!(matches!(err, PrintError::Lp(_)), "{err:?}");
    assert!(
        err.to_string()
            .contains("The printer or class does not exist."),
        "{err}"
    );
    assert!(files_in(folder.path()).is_empty());
}
