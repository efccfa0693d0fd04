//! Errors as a clerk reads them: one sentence of what happened and what to do, and the
//! technical detail (status, error key, the server's or the transport's own words) folded
//! under "Details", closed by default, and written to the log. [`problem_ui`] is the one widget
//! every view draws an error with.

use egui::{Color32, RichText, Ui};

use crate::api::client::CallError;
use crate::api::error::ApiError;
use crate::api::messages;
use crate::domain::server_text;
use crate::lang::Lang;
use crate::service::DeskError;
use crate::service::create::CreateError;
use crate::ui::ViewCtx;
use crate::ui::text::UiText;

/// An error to show: the sentence, and the detail behind the fold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What happened and what to do, in the app's language.
    pub sentence: String,
    /// The technical detail, when there is more than the sentence says.
    pub detail: Option<String>,
}

impl Problem {
    /// A sentence with no detail behind it (the app's own words, a local check).
    pub fn plain(sentence: impl Into<String>) -> Self {
        Self {
            sentence: sentence.into(),
            detail: None,
        }
    }

    /// A sentence and its detail; the detail (the key, status and the server's text) is
    /// written to the log at warning level, cut to a short excerpt: the whole text is behind
    /// Details, and a log is no place for up to a kilobyte of whatever a server sent.
    pub fn with_detail(sentence: impl Into<String>, detail: impl Into<String>) -> Self {
        let sentence = sentence.into();
        let detail = detail.into();
        tracing::warn!(detail = %server_text::excerpt(&detail), "shown to the user as: {sentence}");
        let detail = (detail != sentence && !detail.is_empty()).then_some(detail);
        Self { sentence, detail }
    }

    /// An API error: the catalogue sentence of a known key, else the sentence of the HTTP
    /// status; the key and the server's message go to the detail.
    pub fn of_api(e: &ApiError, lang: Lang) -> Self {
        let known = e.key.as_deref().and_then(|k| messages::sentence(k, lang));
        let sentence = if known.is_some() {
            e.sentence(lang)
        } else {
            // The status sentence without its "(HTTP n)": the number is for Details.
            let full = messages::status_sentence(e.status, lang);
            match full.split_once(" (HTTP ") {
                Some((sentence, _)) => sentence.to_owned(),
                None => full,
            }
        };
        Self::with_detail(sentence, e.to_string())
    }

    /// A call that gave no answer to use.
    pub fn of_call(e: &CallError, lang: Lang) -> Self {
        match e {
            CallError::Api(api) => Self::of_api(api, lang),
            CallError::Redirected { .. } => {
                Self::with_detail(UiText::Redirected.get(lang), e.to_string())
            }
            CallError::Malformed { .. } => {
                Self::with_detail(UiText::Unreadable.get(lang), e.to_string())
            }
            CallError::Transport { .. }
            | CallError::TooLarge { .. }
            | CallError::NotSent { .. } => Self::with_detail(e.sentence(lang), e.to_string()),
        }
    }

    /// A failed operation of the desk: the server's part as [`Problem::of_call`], a local
    /// failure (the data file, the keyring, the profile's address) as one sentence.
    pub fn of_desk(e: &DeskError, lang: Lang) -> Self {
        match e {
            DeskError::Call(call) => Self::of_call(call, lang),
            DeskError::Store(
                crate::store::StoreError::BarcodeTaken { .. }
                | crate::store::StoreError::NoVariant(_)
                | crate::store::StoreError::PriceFromServer(_)
                | crate::store::StoreError::BadItem
                | crate::store::StoreError::Staff(_),
            )
            | DeskError::SignInFirst
            | DeskError::NeedsManager(_)
            | DeskError::ShopBusy
            | DeskError::ShopStopped
            | DeskError::BadSendingSettings
            | DeskError::NoProfile(_)
            | DeskError::NoSecret(_)
            | DeskError::NoLink(_)
            | DeskError::SandboxElsewhere(_) => Self::plain(e.sentence(lang)),
            DeskError::Store(_) => {
                Self::with_detail(UiText::LocalDataFailed.get(lang), e.to_string())
            }
            DeskError::Secret(_) => {
                Self::with_detail(UiText::KeyringFailed.get(lang), e.to_string())
            }
            DeskError::Client(_) => {
                Self::with_detail(UiText::BadServerAddress.get(lang), e.to_string())
            }
            DeskError::Sandbox(_) => {
                Self::with_detail(UiText::SandboxFailed.get(lang), e.to_string())
            }
            DeskError::Interrupted(_) => {
                Self::with_detail(UiText::TaskInterrupted.get(lang), e.to_string())
            }
            DeskError::Shop(shop) => Self::with_detail(shop.sentence(lang), shop.to_string()),
        }
    }

    /// A link creation that gave no link.
    pub fn of_create(e: &CreateError, lang: Lang) -> Self {
        match e {
            CreateError::Rejected(api) => Self::of_api(api, lang),
            CreateError::Unknown { error, .. } => {
                let call = Self::of_call(error, lang);
                Self::with_detail(
                    format!("{} {}", call.sentence, UiText::KeptInPending.get(lang)),
                    e.to_string(),
                )
            }
            CreateError::Desk(d) => Self::of_desk(d, lang),
            other => Self::with_detail(other.sentence(lang), other.to_string()),
        }
    }
}

/// An error that can be shown as a [`Problem`].
pub trait Explain {
    /// The sentence and the detail of this error in `lang`.
    fn problem(&self, lang: Lang) -> Problem;
}

impl Explain for ApiError {
    fn problem(&self, lang: Lang) -> Problem {
        Problem::of_api(self, lang)
    }
}

impl Explain for CallError {
    fn problem(&self, lang: Lang) -> Problem {
        Problem::of_call(self, lang)
    }
}

impl Explain for DeskError {
    fn problem(&self, lang: Lang) -> Problem {
        Problem::of_desk(self, lang)
    }
}

impl Explain for CreateError {
    fn problem(&self, lang: Lang) -> Problem {
        Problem::of_create(self, lang)
    }
}

/// What the last action of a view said: done (a sentence in the success colour) or failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// It worked.
    Done(String),
    /// It did not.
    Failed(Problem),
}

impl Note {
    /// What a CSV export said: `written(rows, path)` when it was written (with "no file dialog,
    /// saved in Downloads" when no dialog chose the place), nothing when the dialog was closed,
    /// or why it failed.
    pub fn of_export(
        result: Result<Option<(usize, std::path::PathBuf, bool)>, impl Explain>,
        lang: Lang,
        written: impl FnOnce(usize, &std::path::Path) -> String,
    ) -> Option<Note> {
        match result {
            Ok(Some((rows, path, by_dialog))) => {
                let mut note = written(rows, &path);
                if !by_dialog {
                    note = format!("{note} {}", UiText::NoDialogSaved.get(lang));
                }
                Some(Note::Done(note))
            }
            Ok(None) => None,
            Err(e) => Some(Note::Failed(e.problem(lang))),
        }
    }
}

/// A [`Note`]: the success sentence, or the failure through [`problem_ui`].
pub fn note_ui(ui: &mut Ui, cx: &ViewCtx<'_>, note: &Note) {
    match note {
        Note::Done(text) => {
            ui.label(RichText::new(text).color(cx.palette.ok));
        }
        Note::Failed(problem) => problem_ui(ui, cx, problem),
    }
}

/// An error: its sentence in the error colour and, when it has one, the technical detail in a
/// "Details" fold (closed by default), selectable so it can be copied into a support message.
pub fn problem_ui(ui: &mut Ui, cx: &ViewCtx<'_>, problem: &Problem) {
    sentence_and_details_ui(ui, cx, problem, cx.palette.error);
}

/// [`problem_ui`] in the warning colour, for an outcome that is not known rather than refused.
pub fn warning_ui(ui: &mut Ui, cx: &ViewCtx<'_>, problem: &Problem) {
    sentence_and_details_ui(ui, cx, problem, cx.palette.warn);
}

fn sentence_and_details_ui(ui: &mut Ui, cx: &ViewCtx<'_>, problem: &Problem, color: Color32) {
    ui.label(RichText::new(&problem.sentence).color(color));
    if let Some(detail) = &problem.detail {
        egui::CollapsingHeader::new(UiText::Details.get(cx.lang))
            // By the sentence alone: a detail that moves (the next try's time) keeps the fold
            // as the clerk left it.
            .id_salt(("problem-details", &problem.sentence))
            .default_open(false)
            .show(ui, |ui| {
                ui.add(
                    egui::Label::new(RichText::new(detail).monospace().color(cx.palette.muted))
                        .selectable(true)
                        .wrap(),
                );
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_connection_reads_as_one_sentence_with_the_transport_words_in_the_detail() {
        let e = CallError::Transport {
            timeout: false,
            connect: false,
            detail: "client error (SendRequest): connection error: Connection reset by peer (os error 104)".into(),
        };
        for lang in [Lang::En, Lang::Tr] {
            let p = Problem::of_call(&e, lang);
            assert!(!p.sentence.contains("SendRequest"), "{}", p.sentence);
            assert!(!p.sentence.contains("os error"), "{}", p.sentence);
            assert!(
                p.detail
                    .as_deref()
                    .is_some_and(|d| d.contains("os error 104"))
            );
        }
    }

    #[test]
    fn an_unknown_error_key_keeps_the_key_and_the_server_words_out_of_the_sentence() {
        let e = ApiError {
            status: 422,
            key: Some("partner.weird.thing".into()),
            message: Some("field foo_bar invalid (code 17)".into()),
            retry_after: None,
        };
        let p = Problem::of_api(&e, Lang::En);
        assert_eq!(p.sentence, "The server did not accept the request.");
        let detail = p.detail.expect("the key and message kept");
        assert!(detail.contains("partner.weird.thing") && detail.contains("code 17"));
        let e = CallError::Redirected {
            status: 302,
            location: Some("https://elsewhere.example".into()),
        };
        let p = Problem::of_call(&e, Lang::Tr);
        assert!(!p.sentence.contains("302") && !p.sentence.contains("elsewhere"));
    }
}
