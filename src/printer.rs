//! Where a printed slip goes: the default CUPS printer when the machine has one, else a PDF file
//! in the folder where "Save QR as PNG" puts its pictures (Downloads, else home).
//!
//! CUPS is asked through its own command-line tools, `lpstat -d` for the default destination
//! and `lp -d NAME` to print, so paydesk links no printing library and works with whatever
//! queue the shop set up (a receipt printer, an office laser, a PDF printer). The programs and
//! the folder are fields of [`SlipSink`], so tests put fake ones in their place. Every child
//! process runs without `PAYDESK_API_SECRET` in its environment: a print filter or a queue's
//! backend has no business seeing the API secret. This runs on the worker, never the UI thread.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::secrets::SECRET_ENV;
use crate::slip::{Paper, SlipPdf};

/// What became of a slip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivered {
    /// Handed to the print queue `printer`.
    Printed {
        /// The CUPS destination.
        printer: String,
    },
    /// No default printer: written to this file.
    Saved(PathBuf),
}

/// Why a slip went nowhere.
#[derive(Debug, thiserror::Error)]
pub enum PrintError {
    /// Neither a Downloads nor a home folder is known.
    #[error("no folder to save the slip in (no home folder)")]
    NoFolder,
    /// The file could not be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS's reason.
        source: std::io::Error,
    },
    /// `lp` could not be started or refused the job.
    #[error("lp: {0}")]
    Lp(String),
}

/// The printing commands and the fallback folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlipSink {
    /// The `lpstat` program: a name looked up on `PATH`, or a path.
    pub lpstat: OsString,
    /// The `lp` program: a name looked up on `PATH`, or a path.
    pub lp: OsString,
    /// Where slips are saved without a printer; `None`: Downloads, else home.
    pub folder: Option<PathBuf>,
}

impl Default for SlipSink {
    fn default() -> Self {
        Self {
            lpstat: "lpstat".into(),
            lp: "lp".into(),
            folder: None,
        }
    }
}

impl SlipSink {
    /// The default CUPS destination, if there is one (no CUPS, no scheduler or no default:
    /// `None`).
    pub fn default_printer(&self) -> Option<String> {
        let out = Command::new(&self.lpstat)
            .arg("-d")
            .env_remove(SECRET_ENV)
            // The answer is parsed: CUPS's own words, not a translation.
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        parse_default_destination(&String::from_utf8_lossy(&out.stdout))
    }

    /// Prints on the default printer, or saves the slip as `paydesk-slip-{name}.pdf` when
    /// there is none.
    pub fn deliver(&self, pdf: &SlipPdf, name: &str) -> Result<Delivered, PrintError> {
        match self.default_printer() {
            Some(printer) => {
                self.print(&printer, pdf, name)?;
                Ok(Delivered::Printed { printer })
            }
            None => self.save(pdf, name).map(Delivered::Saved),
        }
    }

    /// Sends the PDF to `lp -d printer` on its standard input, with the paper size asked for.
    pub fn print(&self, printer: &str, pdf: &SlipPdf, name: &str) -> Result<(), PrintError> {
        let mut child = Command::new(&self.lp)
            .arg("-d")
            .arg(printer)
            .arg("-t")
            .arg(format!("paydesk {name}"))
            .arg("-o")
            .arg(format!("media={}", media(pdf)))
            .env_remove(SECRET_ENV)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| PrintError::Lp(format!("{}: {e}", self.lp.to_string_lossy())))?;
        if let Some(mut stdin) = child.stdin.take() {
            // A refusing `lp` may exit before reading; its exit status tells why.
            let _ = stdin.write_all(&pdf.bytes);
        }
        let out = child
            .wait_with_output()
            .map_err(|e| PrintError::Lp(e.to_string()))?;
        if out.status.success() {
            return Ok(());
        }
        let said = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        Err(PrintError::Lp(if said.is_empty() {
            out.status.to_string()
        } else {
            said
        }))
    }

    /// Writes the slip as `paydesk-slip-{name}.pdf` in the sink's folder.
    pub fn save(&self, pdf: &SlipPdf, name: &str) -> Result<PathBuf, PrintError> {
        let dir = self
            .folder
            .clone()
            .or_else(save_folder)
            .ok_or(PrintError::NoFolder)?;
        let path = dir.join(format!("paydesk-slip-{}.pdf", file_safe(name)));
        write_file(&path, &pdf.bytes)?;
        Ok(path)
    }
}

/// Writes `bytes` to `path`.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), PrintError> {
    std::fs::write(path, bytes).map_err(|source| PrintError::Write {
        path: path.to_owned(),
        source,
    })
}

/// The destination named by `lpstat -d` (run with `LC_ALL=C`): `system default destination:
/// NAME`, or nothing (`no system default destination`).
pub fn parse_default_destination(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (_, name) = line.split_once("system default destination:")?;
        let name = name.trim();
        (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_owned())
    })
}

/// The CUPS media name of the slip's paper: exactly the slip's length of an 80 mm roll, or A6.
pub fn media(pdf: &SlipPdf) -> String {
    match pdf.paper {
        Paper::Roll80 => format!("Custom.{}x{}mm", pdf.width_mm, pdf.height_mm),
        Paper::A6 => "A6".to_owned(),
    }
}

/// The user's Downloads folder, else home: where saved QR pictures and slips go.
pub fn save_folder() -> Option<PathBuf> {
    directories::UserDirs::new().map(|d| {
        d.download_dir()
            .map_or_else(|| d.home_dir().to_path_buf(), Path::to_path_buf)
    })
}

/// `name` with everything but ASCII letters, digits, `-` and `_` replaced by `_`, for a file
/// name.
pub fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_destination_is_read_from_lpstat() {
        assert_eq!(
            parse_default_destination("system default destination: Counter_80\n"),
            Some("Counter_80".to_owned())
        );
        assert_eq!(
            parse_default_destination("system default destination: Office/duplex\n"),
            Some("Office/duplex".to_owned())
        );
        assert_eq!(
            parse_default_destination("no system default destination\n"),
            None
        );
        assert_eq!(parse_default_destination(""), None);
    }

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_safe("PD-2026/11 ş_1"), "PD-2026_11___1");
    }

    #[test]
    fn the_media_follows_the_paper() {
        let mut pdf = SlipPdf {
            bytes: Vec::new(),
            paper: Paper::Roll80,
            width_mm: 80,
            height_mm: 115,
        };
        assert_eq!(media(&pdf), "Custom.80x115mm");
        pdf.paper = Paper::A6;
        assert_eq!(media(&pdf), "A6");
    }
}
