//! Why a background job of the app failed, kept typed until the UI words it: the worker sends
//! a [`JobError`], and `on_msg` turns it into a [`Problem`] (one sentence in the UI's language,
//! and the technical detail, logged and shown behind the view's Details fold).

use std::path::PathBuf;

use crate::lang::Lang;
use crate::printer::PrintError;
use crate::qr::QrError;
use crate::secrets::SecretError;
use crate::service::DeskError;
use crate::slip::SlipError;
use crate::ui::problem::{Explain, Problem};
use crate::ui::text::UiText;

/// Why a background job failed.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The desk (store, server, journal) refused or failed.
    #[error(transparent)]
    Desk(#[from] DeskError),
    /// No data folder is known and none was given.
    #[error("no data folder; start with --data-dir")]
    NoDataFolder,
    /// Neither a Downloads nor a home folder is known.
    #[error("no Downloads or home folder")]
    NoSaveFolder,
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// The OS's reason.
        source: std::io::Error,
    },
    /// The QR image could not be made.
    #[error(transparent)]
    Qr(#[from] QrError),
    /// The slip could not be laid out.
    #[error(transparent)]
    Slip(#[from] SlipError),
    /// The slip could not be printed or saved.
    #[error(transparent)]
    Print(#[from] PrintError),
    /// The keyring failed.
    #[error(transparent)]
    Secret(#[from] SecretError),
    /// The job's thread ended without an answer (it panicked).
    #[error("the background job ended without an answer: {0}")]
    Lost(String),
}

impl From<tokio::task::JoinError> for JobError {
    fn from(e: tokio::task::JoinError) -> Self {
        JobError::Lost(e.to_string())
    }
}

impl JobError {
    /// A file error for `path`.
    pub fn file(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> JobError {
        let path = path.into();
        move |source| JobError::File { path, source }
    }

    /// One sentence of what happened and what to do, in `lang`.
    pub fn sentence(&self, lang: Lang) -> String {
        let fixed = |t: UiText| t.get(lang).to_owned();
        let file =
            |path: &std::path::Path| UiText::FileFailed.fill(lang, &[("path", &path.display())]);
        match self {
            JobError::Desk(e) => e.sentence(lang),
            JobError::NoDataFolder => fixed(UiText::NoDataFolderApp),
            JobError::NoSaveFolder | JobError::Print(PrintError::NoFolder) => {
                fixed(UiText::NoSaveFolder)
            }
            JobError::File { path, .. } | JobError::Print(PrintError::Write { path, .. }) => {
                file(path)
            }
            JobError::Qr(QrError::Encode(_))
            | JobError::Slip(SlipError::Qr(QrError::Encode(_))) => fixed(UiText::QrTooLong),
            JobError::Qr(_) | JobError::Slip(SlipError::Qr(_)) => fixed(UiText::QrImageFailed),
            JobError::Slip(SlipError::Font(_)) => fixed(UiText::SlipFontFailed),
            JobError::Print(PrintError::Lp(_)) => fixed(UiText::PrinterRefused),
            JobError::Secret(SecretError::Unavailable(_)) => fixed(UiText::NoKeyring),
            JobError::Secret(SecretError::Ambiguous { .. }) => fixed(UiText::KeyringAmbiguous),
            JobError::Secret(SecretError::NotText { .. }) => fixed(UiText::KeyringNotText),
            JobError::Secret(SecretError::BadEntry { .. }) => fixed(UiText::KeyringBadEntry),
            JobError::Secret(SecretError::Empty) => fixed(UiText::EmptySecretApp),
            JobError::Lost(_) => fixed(UiText::WorkerLost),
        }
    }

    /// The technical detail (for the log and a Details fold): never a secret, since no error
    /// here carries one.
    pub fn detail(&self) -> String {
        self.to_string()
    }
}

impl Explain for JobError {
    fn problem(&self, lang: Lang) -> Problem {
        match self {
            JobError::Desk(e) => e.problem(lang),
            other => Problem::with_detail(other.sentence(lang), other.detail()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<JobError> {
        vec![
            JobError::NoDataFolder,
            JobError::NoSaveFolder,
            JobError::File {
                path: "/nowhere/x.png".into(),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            },
            JobError::Qr(QrError::TooLarge(70_000)),
            JobError::Slip(SlipError::Font("subset".into())),
            JobError::Print(PrintError::Lp("lp: no default destination".into())),
            JobError::Print(PrintError::NoFolder),
            JobError::Secret(SecretError::Unavailable("no D-Bus".into())),
            JobError::Secret(SecretError::Ambiguous {
                user: "shop:pk".into(),
                count: 2,
            }),
            JobError::Secret(SecretError::NotText {
                user: "shop:pk".into(),
            }),
            JobError::Secret(SecretError::BadEntry {
                user: "shop:pk".into(),
                reason: "too long".into(),
            }),
            JobError::Secret(SecretError::Empty),
            JobError::Lost("panicked".into()),
        ]
    }

    #[test]
    fn each_failure_is_one_sentence_in_each_language_without_the_technical_detail() {
        for e in every_kind() {
            let (tr, en) = (e.sentence(Lang::Tr), e.sentence(Lang::En));
            assert_ne!(tr, en, "{e:?}");
            for s in [&tr, &en] {
                assert!(s.ends_with('.'), "{s}");
                // The detail (OS errors, lp's words, keyring users) stays out of the main line.
                for raw in [
                    "permission",
                    "Permission",
                    "lp:",
                    "D-Bus",
                    "shop:pk",
                    "panicked",
                ] {
                    assert!(!s.contains(raw), "{s} shows {raw}");
                }
            }
            assert!(!e.detail().is_empty());
        }
        let file = &every_kind()[2];
        assert!(file.sentence(Lang::En).contains("/nowhere/x.png"));
        assert!(
            file.detail().contains("permission denied"),
            "{}",
            file.detail()
        );
    }
}
