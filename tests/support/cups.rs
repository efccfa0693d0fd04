//! Fake CUPS tools: tiny shell scripts standing in for `lpstat` and `lp` that write down their
//! arguments, environment and standard input, in a folder of their own.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use paydesk::printer::SlipSink;

/// Tests that write scripts and run them at once take turns: a script still open for writing
/// in another thread's freshly forked child cannot be executed (ETXTBSY).
static TURN: Mutex<()> = Mutex::new(());

/// The turn of the calling test; held until dropped.
pub fn turn() -> MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A folder of fake CUPS tools. `lpstat -d` names the printer written in `printer` (no file:
/// no default destination); `lp` records its arguments (`lp-args`), environment (`lp-env`)
/// and input (`lp-stdin`), and fails with the words in `refuse` when that file exists. The
/// folder `saved` in it is empty, for slips saved without a printer.
pub struct FakeCups {
    dir: tempfile::TempDir,
}

impl FakeCups {
    pub fn new() -> FakeCups {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::create_dir(dir.path().join("saved")).expect("the saved folder");
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

    /// The folder of the tools and of what they wrote down.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The folder in it for saved slips.
    pub fn saved(&self) -> PathBuf {
        self.path().join("saved")
    }

    /// Makes `name` the default printer (`None`: no default destination).
    pub fn set_printer(&self, name: Option<&str>) {
        let file = self.path().join("printer");
        match name {
            Some(n) => std::fs::write(file, n).expect("written"),
            None => {
                let _ = std::fs::remove_file(file);
            }
        }
    }

    /// What a tool wrote down in `name` (`lp-args`, `lpstat-env` …), if it ran.
    pub fn read(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.path().join(name)).ok()
    }

    /// The bytes `lp` read, if it ran.
    pub fn lp_stdin(&self) -> Option<Vec<u8>> {
        std::fs::read(self.path().join("lp-stdin")).ok()
    }

    /// Forgets that `lp` ran.
    pub fn forget_lp(&self) {
        for f in ["lp-args", "lp-env", "lp-stdin"] {
            let _ = std::fs::remove_file(self.path().join(f));
        }
    }

    /// A sink on these tools that saves in `folder`.
    pub fn sink(&self, folder: &Path) -> SlipSink {
        SlipSink {
            lpstat: self.path().join("lpstat").into(),
            lp: self.path().join("lp").into(),
            folder: Some(folder.to_owned()),
        }
    }
}

/// Writes the shell script `name` with `body` in `dir`, executable.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("the script is written");
    let mut perm = std::fs::metadata(&path).expect("written").permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(&path, perm).expect("made executable");
    path
}
