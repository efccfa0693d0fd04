//! Files chosen through the desktop's own dialog: the catalog CSV to import, where a History
//! or Audit export or a QR PNG is saved.
//!
//! The dialog is the XDG desktop portal's `FileChooser` over D-Bus (through `rfd`, which also
//! has the native dialogs of Windows and macOS), else `zenity`. rfd answers `None` both for
//! Cancel and for "no dialog could open", so [`FileDialogs`] asks first whether one can open
//! at all (a portal's `FileChooser` on the session bus, or `zenity` on `PATH`) and remembers
//! the answer. When none can, the caller keeps its old way (the Downloads folder, a typed
//! path) and says so.
//!
//! Every call here is `async` and runs on the worker: the dialog waits in a thread of its own
//! (rfd's, or a blocking thread for zenity), so frames go on while it is open and its answer
//! comes back as a message.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::errors::JobError;
use crate::lang::Lang;
use crate::ui::text::UiText;

/// How long the session bus may take to say whether a portal's `FileChooser` is there (a portal
/// started on demand answers well within it).
const PORTAL_PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// What a dialog is for: the files it offers and its title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A CSV file (catalog import, History export).
    Csv,
    /// A PNG picture (the QR).
    Png,
    /// A certificate in PEM (the shop's CA file).
    Pem,
}

impl FileKind {
    fn filter(self) -> (&'static str, &'static [&'static str]) {
        match self {
            FileKind::Csv => ("CSV", &["csv", "CSV"]),
            FileKind::Png => ("PNG", &["png", "PNG"]),
            FileKind::Pem => ("PEM", &["pem", "crt", "PEM", "CRT"]),
        }
    }
}

/// What the clerk did with the dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// A file was chosen.
    Picked(PathBuf),
    /// The dialog was closed without a choice.
    Cancelled,
    /// No dialog can open on this desktop: the caller keeps its own way.
    NoDialog,
}

/// Where the desktop's file dialog is looked for, and whether one was found (asked once).
#[derive(Debug, Clone)]
pub struct FileDialogs {
    /// Whether to look at all (`false`: never a dialog, as in the handler tests).
    on: bool,
    /// The `PATH` searched for `zenity`.
    path: Option<OsString>,
    /// The session bus's address (`DBUS_SESSION_BUS_ADDRESS`).
    bus: Option<String>,
    /// The answer of the first probe.
    found: Arc<OnceLock<Found>>,
}

/// Which dialog the probe found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// None can open.
    Nothing,
    /// The desktop portal's `FileChooser` (rfd's first choice).
    Portal,
    /// `zenity`, run here directly: rfd would first try the portal over a session bus that
    /// libdbus may start on its own (X11 autolaunch) and wait up to 25 s for its answer.
    Zenity,
}

impl Default for FileDialogs {
    /// No dialog: the way of the tests, which must never wait for a window nobody closes.
    fn default() -> Self {
        Self::off()
    }
}

impl FileDialogs {
    /// The desktop's dialog as the process's environment finds it (the app's own run).
    pub fn from_env() -> Self {
        Self::looking_in(
            std::env::var_os("PATH"),
            std::env::var("DBUS_SESSION_BUS_ADDRESS").ok(),
        )
    }

    /// A dialog looked for on this `PATH` and session bus (tests pass a `PATH` without zenity
    /// and no bus to see the fallback).
    pub fn looking_in(path: Option<OsString>, bus: Option<String>) -> Self {
        Self {
            on: true,
            path,
            bus,
            found: Arc::new(OnceLock::new()),
        }
    }

    /// Never a dialog.
    pub fn off() -> Self {
        Self {
            on: false,
            path: None,
            bus: None,
            found: Arc::new(OnceLock::new()),
        }
    }

    /// Whether a dialog can open, once asked ([`FileDialogs::probe`]); `None` before.
    pub fn known(&self) -> Option<bool> {
        if self.on {
            self.found.get().map(|f| *f != Found::Nothing)
        } else {
            Some(false)
        }
    }

    /// Whether a dialog can open: a portal's `FileChooser` answers on the session bus, or
    /// `zenity` is on `PATH`. Asked once; later calls answer from memory.
    pub async fn probe(&self) -> bool {
        self.found().await != Found::Nothing
    }

    async fn found(&self) -> Found {
        if !self.on {
            return Found::Nothing;
        }
        if let Some(found) = self.found.get() {
            return *found;
        }
        // Windows and macOS always have their own dialog (counted as the portal's kind).
        let found = if cfg!(not(unix)) || portal_answers(self.bus.as_deref()).await {
            Found::Portal
        } else if zenity_on(self.path.as_deref()) {
            Found::Zenity
        } else {
            tracing::info!("no file dialog on this desktop (no portal `FileChooser`, no zenity)");
            Found::Nothing
        };
        *self.found.get_or_init(|| found)
    }

    /// Asks for a file of `kind` to open, starting in `dir`.
    pub async fn open(&self, kind: FileKind, title: &str, dir: Option<&Path>) -> Choice {
        let found = self.found().await;
        if found == Found::Nothing {
            return Choice::NoDialog;
        }
        if found == Found::Zenity {
            // zenity opens the folder of a file name ending in "/".
            let start = dir.map(|d| format!("{}/", d.display()));
            return zenity(kind, title, start, false).await;
        }
        let (name, extensions) = kind.filter();
        let mut dialog = rfd::AsyncFileDialog::new()
            .set_title(title)
            .add_filter(name, extensions);
        if let Some(dir) = dir {
            dialog = dialog.set_directory(dir);
        }
        match dialog.pick_file().await {
            Some(file) => Choice::Picked(file.path().to_owned()),
            None => Choice::Cancelled,
        }
    }

    /// Asks where to save a file of `kind`, offering `name` in `dir`.
    pub async fn save(
        &self,
        kind: FileKind,
        title: &str,
        dir: Option<&Path>,
        name: &str,
    ) -> Choice {
        let found = self.found().await;
        if found == Found::Nothing {
            return Choice::NoDialog;
        }
        if found == Found::Zenity {
            let start = dir.map_or_else(|| name.to_owned(), |d| d.join(name).display().to_string());
            return zenity(kind, title, Some(start), true).await;
        }
        let (filter, extensions) = kind.filter();
        let dialog = rfd::AsyncFileDialog::new()
            .set_title(title)
            .add_filter(filter, extensions);
        let dialog = match dir {
            Some(dir) => dialog.set_directory(dir).set_file_name(name),
            None => dialog.set_file_name(name),
        };
        match dialog.save_file().await {
            Some(file) => Choice::Picked(file.path().to_owned()),
            None => Choice::Cancelled,
        }
    }

    /// Where to save `name`: the file the dialog chose (`Some((path, true))`), else `name` in
    /// `dir` or the Downloads folder when no dialog can open (`Some((path, false))`); `None`
    /// when the clerk cancelled.
    ///
    /// # Errors
    /// Neither a dialog nor a Downloads or home folder.
    pub async fn save_path(
        &self,
        kind: FileKind,
        title: &str,
        dir: Option<PathBuf>,
        name: &str,
    ) -> Result<Option<(PathBuf, bool)>, JobError> {
        let dir = dir.or_else(crate::printer::save_folder);
        match self.save(kind, title, dir.as_deref(), name).await {
            Choice::Picked(path) => Ok(Some((path, true))),
            Choice::Cancelled => Ok(None),
            Choice::NoDialog => {
                let dir = dir.ok_or(JobError::NoSaveFolder)?;
                Ok(Some((dir.join(name), false)))
            }
        }
    }
}

/// Writes the QR of `url` as a PNG where the desktop's dialog says (offering
/// `paydesk-qr-NAME.png` in Downloads), else in the Downloads (or home) folder; `None` when
/// the clerk closed the dialog.
///
/// # Errors
/// No folder to save in, or the file could not be written.
pub async fn save_qr_png(
    dialogs: &FileDialogs,
    title: &str,
    url: String,
    name: &str,
) -> Result<Option<(PathBuf, bool)>, JobError> {
    let file = format!("paydesk-qr-{}.png", crate::printer::file_safe(name));
    let Some((path, by_dialog)) = dialogs.save_path(FileKind::Png, title, None, &file).await?
    else {
        return Ok(None);
    };
    tokio::task::spawn_blocking(move || {
        crate::qr::write_png(&url, &path)?;
        Ok(Some((path, by_dialog)))
    })
    .await
    .map_err(JobError::from)
    .and_then(|r| r)
}

/// "Saved to PATH", and why there when no dialog could open.
pub fn saved_note(path: &Path, by_dialog: bool, lang: Lang) -> String {
    let saved = format!("{} {}", UiText::SavedTo.get(lang), path.display());
    if by_dialog {
        saved
    } else {
        format!("{saved} {}", UiText::NoDialogSaved.get(lang))
    }
}

/// zenity's file selection (to save with `save`), starting at `start`: the path it prints, a
/// cancel (exit 1, nothing printed), or no dialog when zenity cannot run. Runs on a blocking
/// thread of the worker; the app's secret is not in its environment (`main` removed it).
async fn zenity(kind: FileKind, title: &str, start: Option<String>, save: bool) -> Choice {
    let (name, extensions) = kind.filter();
    let patterns: Vec<String> = extensions.iter().map(|e| format!("*.{e}")).collect();
    let mut command = std::process::Command::new("zenity");
    command
        .args(["--file-selection", "--no-markup", "--title", title])
        .arg("--file-filter")
        .arg(format!("{name} | {}", patterns.join(" ")))
        .env_remove("PAYDESK_API_SECRET")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if save {
        command.args(["--save", "--confirm-overwrite"]);
    }
    if let Some(start) = start {
        command.arg("--filename").arg(start);
    }
    let output = tokio::task::spawn_blocking(move || command.output()).await;
    match output {
        Ok(Ok(out)) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let path = text.trim_end_matches(['\n', '\r']);
            if out.status.success() && !path.is_empty() {
                Choice::Picked(PathBuf::from(path))
            } else {
                Choice::Cancelled
            }
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "zenity could not run");
            Choice::NoDialog
        }
        Err(e) => {
            tracing::warn!(error = %e, "the zenity job ended without an answer");
            Choice::NoDialog
        }
    }
}

/// Whether an executable `zenity` is in one of the folders of `path`.
#[cfg(not(unix))]
fn zenity_on(_path: Option<&std::ffi::OsStr>) -> bool {
    false
}

/// Whether an executable `zenity` is in one of the folders of `path`.
#[cfg(unix)]
fn zenity_on(path: Option<&std::ffi::OsStr>) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = path else {
        return false;
    };
    std::env::split_paths(path).any(|dir| {
        std::fs::metadata(dir.join("zenity"))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// Whether the desktop portal's `FileChooser` answers on the session bus at `bus` (its version
/// property read; the portal is started on demand if the bus can).
async fn portal_answers(bus: Option<&str>) -> bool {
    let Some(bus) = bus.filter(|b| !b.is_empty()) else {
        return false;
    };
    let ask = async {
        let connection = zbus::connection::Builder::address(bus)?.build().await?;
        let reply = connection
            .call_method(
                Some("org.freedesktop.portal.Desktop"),
                "/org/freedesktop/portal/desktop",
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &("org.freedesktop.portal.FileChooser", "version"),
            )
            .await?;
        let version: zbus::zvariant::OwnedValue = reply.body().deserialize()?;
        Ok::<_, zbus::Error>(u32::try_from(version).unwrap_or_default())
    };
    match tokio::time::timeout(PORTAL_PROBE_TIMEOUT, ask).await {
        Ok(Ok(version)) => version > 0,
        Ok(Err(e)) => {
            tracing::info!(error = %e, "no desktop portal FileChooser");
            false
        }
        Err(_) => {
            tracing::info!("the desktop portal did not answer in time");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(f)
    }

    #[test]
    fn without_zenity_or_a_bus_no_dialog_opens_and_the_caller_keeps_its_way() {
        let empty = tempfile::tempdir().expect("test set-up");
        let dialogs = FileDialogs::looking_in(Some(empty.path().into()), None);
        assert_eq!(dialogs.known(), None, "not asked yet");
        assert_eq!(
            block(dialogs.open(FileKind::Csv, "t", None)),
            Choice::NoDialog
        );
        assert_eq!(dialogs.known(), Some(false), "remembered");
        let out = tempfile::tempdir().expect("test set-up");
        let saved =
            block(dialogs.save_path(FileKind::Png, "t", Some(out.path().to_owned()), "qr.png"))
                .expect("a folder");
        assert_eq!(saved, Some((out.path().join("qr.png"), false)));
    }

    #[cfg(unix)]
    #[test]
    fn an_executable_zenity_on_path_counts_and_a_plain_file_does_not() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("test set-up");
        let zenity = dir.path().join("zenity");
        std::fs::write(&zenity, "#!/bin/sh\n").expect("test set-up");
        assert!(!zenity_on(Some(dir.path().as_os_str())), "not executable");
        std::fs::set_permissions(&zenity, std::fs::Permissions::from_mode(0o755))
            .expect("test set-up");
        let path = std::env::join_paths([Path::new("/nonexistent"), dir.path()]).expect("a PATH");
        assert!(zenity_on(Some(&path)));
        assert!(block(FileDialogs::looking_in(Some(path), None).probe()));
        assert!(!block(FileDialogs::off().probe()), "off is off");
    }

    #[test]
    fn a_bus_that_cannot_be_reached_is_no_portal() {
        assert!(!block(portal_answers(Some(
            "unix:path=/nonexistent/paydesk-test-bus"
        ))));
        assert!(!block(portal_answers(None)));
    }
}
