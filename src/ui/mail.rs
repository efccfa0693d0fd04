//! Settings → E-mail (issue 30): the shop's SMTP account on this desk (host, port, security,
//! login, sender), its password going to the keyring through the worker and wiped from the
//! form once kept (and when Settings is left), "Send a test message", and the mail queue as it stands (what waits, what the
//! server refused). Saving and the test are a manager's; the rules (plain SMTP only to this
//! computer) are `mail::SmtpSettings::check`'s, said in the form's words.

use egui::{RichText, Ui};
use zeroize::Zeroizing;

use crate::lang::Lang;
use crate::ui::Command;
use crate::ui::ViewCtx;
pub use crate::ui::command::{MailCommand, MailForm, MailSecurity, QueueSummary, SendingForm};
use crate::ui::problem::{Note, Problem};
use crate::ui::text::UiText;
use crate::ui::theme;
use crate::ui::widgets;

/// The reminder times Settings offers, in minutes (`None`: off).
pub const REMIND_CHOICES: [Option<u32>; 7] = [
    None,
    Some(30),
    Some(60),
    Some(120),
    Some(240),
    Some(480),
    Some(1440),
];

/// Settings → E-mail.
#[derive(Debug, Default)]
pub struct MailSettings {
    form: MailForm,
    /// The password as typed (kept in a zeroizing buffer, sent once, then wiped).
    password: Zeroizing<String>,
    /// The test message's address.
    test_to: String,
    /// Whether the account was read since Settings opened.
    loaded: bool,
    /// A request is out.
    busy: bool,
    /// What the last step said.
    note: Option<Note>,
    /// The queue, as last read.
    queue: QueueSummary,
    /// How this desk sends to customers not at the counter.
    sending: SendingForm,
    /// What the last save of it said.
    sending_note: Option<Note>,
}

impl MailSettings {
    /// The form as typed.
    pub fn form(&self) -> &MailForm {
        &self.form
    }

    /// Settings was left: the password typed goes, the account is read again next time.
    pub fn on_left(&mut self) {
        self.password = Zeroizing::new(String::new());
        self.loaded = false;
    }

    /// The account kept (`None`: none yet) and the queue.
    pub fn on_loaded(&mut self, form: Option<MailForm>, queue: QueueSummary, sending: SendingForm) {
        self.busy = false;
        if let Some(form) = form {
            self.form = form;
        }
        self.queue = queue;
        self.sending = sending;
    }

    /// The sending settings as typed.
    pub fn sending(&self) -> &SendingForm {
        &self.sending
    }

    /// A save of the sending settings ended: what to say, or why not (the form keeps what
    /// was typed).
    pub fn on_sending_saved(&mut self, result: Result<String, Problem>) {
        self.busy = false;
        self.sending_note = Some(match result {
            Ok(words) => Note::Done(words),
            Err(problem) => Note::Failed(problem),
        });
    }

    /// A save or a test ended: what to say (`Ok`) or why not; the form keeps what was typed.
    pub fn on_done(&mut self, result: Result<String, Problem>) {
        self.busy = false;
        self.note = Some(match result {
            Ok(words) => Note::Done(words),
            Err(problem) => Note::Failed(problem),
        });
    }

    /// A refused or failed request: nothing is out any more.
    pub fn abort_busy(&mut self) {
        self.busy = false;
    }

    /// Draws the section.
    pub fn mail_settings_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        if !self.loaded {
            self.loaded = true;
            self.busy = true;
            cx.emit(Command::Mail(MailCommand::Load));
        }
        ui.add_space(theme::SPACE_L);
        widgets::group_ui(ui, UiText::MailSection.get(lang), |ui| {
            widgets::hint_ui(ui, &cx.palette, UiText::MailSectionHelp.get(lang));
            self.fields_ui(ui, lang);
            ui.add_space(theme::SPACE_S);
            ui.horizontal_wrapped(|ui| {
                if widgets::Action::secondary(UiText::MailSave.get(lang))
                    .enabled(!self.busy)
                    .show_ui(ui)
                    .clicked()
                {
                    self.busy = true;
                    self.note = None;
                    // Kept in the field until the save succeeds: a refusal loses nothing.
                    let password = (!self.password.is_empty()).then(|| self.password.clone());
                    cx.emit(Command::Mail(MailCommand::Save {
                        form: Box::new(self.form.clone()),
                        password,
                    }));
                }
            });
            ui.add_space(theme::SPACE_S);
            let label = ui.label(UiText::MailTestTo.get(lang));
            ui.horizontal_wrapped(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut self.test_to)
                        .desired_width(theme::NAME_BUTTON_WIDTH),
                )
                .labelled_by(label.id);
                if widgets::Action::secondary(UiText::MailTest.get(lang))
                    .icon(theme::icon::MAIL)
                    .enabled(!self.busy)
                    .show_ui(ui)
                    .clicked()
                {
                    self.busy = true;
                    self.note = None;
                    cx.emit(Command::Mail(MailCommand::Test {
                        to: self.test_to.clone(),
                    }));
                }
            });
            if let Some(note) = &self.note {
                crate::ui::problem::note_ui(ui, cx, note);
            }
            self.queue_ui(ui, cx);
        });
        ui.add_space(theme::SPACE_L);
        widgets::group_ui(ui, UiText::SendingSection.get(lang), |ui| {
            self.sending_ui(ui, cx);
        });
    }

    /// The country code of typed numbers and the reminders' time, with their Save.
    fn sending_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        widgets::hint_ui(ui, &cx.palette, UiText::SendingHelp.get(lang));
        // Each under its label, as every form of the app has them.
        let l = ui.label(UiText::SendingCountryCode.get(lang));
        ui.add(
            egui::TextEdit::singleline(&mut self.sending.country_code)
                .desired_width(theme::NAME_BUTTON_WIDTH / 2.0),
        )
        .labelled_by(l.id);
        ui.add_space(theme::SPACE_XS);
        ui.label(UiText::SendingRemind.get(lang));
        ui.horizontal_wrapped(|ui| {
            for choice in REMIND_CHOICES {
                let words = match choice {
                    None => UiText::SendingRemindOff.get(lang).to_owned(),
                    Some(m) if m % 60 == 0 => {
                        format!("{} {}", m / 60, UiText::UnitHours.get(lang))
                    }
                    Some(m) => format!("{m} {}", UiText::UnitMinutes.get(lang)),
                };
                ui.selectable_value(&mut self.sending.remind_before_min, choice, words);
            }
        });
        ui.add_space(theme::SPACE_S);
        if widgets::Action::secondary(UiText::SendingSave.get(lang))
            .enabled(!self.busy)
            .show_ui(ui)
            .clicked()
        {
            self.busy = true;
            self.sending_note = None;
            cx.emit(Command::Mail(MailCommand::SaveSending {
                form: self.sending.clone(),
            }));
        }
        if let Some(note) = &self.sending_note {
            crate::ui::problem::note_ui(ui, cx, note);
        }
    }

    /// The account's fields, each under its label (as every form of the app has them) and
    /// tied to it.
    fn fields_ui(&mut self, ui: &mut Ui, lang: Lang) {
        let field = |ui: &mut Ui, label: UiText, value: &mut String, hint: &str, secret: bool| {
            let l = ui.label(label.get(lang));
            ui.add(
                egui::TextEdit::singleline(value)
                    .password(secret)
                    .hint_text(hint)
                    .desired_width(theme::NAME_BUTTON_WIDTH * 1.5),
            )
            .labelled_by(l.id);
            ui.add_space(theme::SPACE_XS);
        };
        let text = |ui: &mut Ui, label: UiText, value: &mut String, hint: &str| {
            field(ui, label, value, hint, false);
        };
        text(
            ui,
            UiText::MailHost,
            &mut self.form.host,
            "smtp.example.com",
        );
        ui.label(UiText::MailSecurity.get(lang));
        ui.horizontal_wrapped(|ui| {
            for (choice, words) in [
                (MailSecurity::StartTls, "STARTTLS"),
                (MailSecurity::Tls, "TLS"),
                (MailSecurity::None, UiText::MailSecurityNone.get(lang)),
            ] {
                let before = self.form.security;
                if ui
                    .selectable_value(&mut self.form.security, choice, words)
                    .clicked()
                    && self.form.port == before.default_port().to_string()
                {
                    self.form.port = choice.default_port().to_string();
                }
            }
        });
        ui.add_space(theme::SPACE_XS);
        let port_hint = self.form.security.default_port().to_string();
        text(ui, UiText::MailPort, &mut self.form.port, &port_hint);
        text(ui, UiText::MailUser, &mut self.form.user, "");
        field(
            ui,
            UiText::MailPassword,
            &mut self.password,
            UiText::MailPasswordHint.get(lang),
            true,
        );
        text(
            ui,
            UiText::MailFrom,
            &mut self.form.from,
            "kasa@example.com",
        );
        text(ui, UiText::MailFromName, &mut self.form.from_name, "");
        text(ui, UiText::MailCaFile, &mut self.form.ca_file, "");
        ui.add_space(theme::SPACE_S);
        ui.checkbox(&mut self.form.receipts, UiText::MailReceipts.get(lang))
            .on_hover_text(UiText::MailReceiptsHint.get(lang));
    }

    /// What the queue holds.
    fn queue_ui(&self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        let q = &self.queue;
        ui.add_space(theme::SPACE_S);
        ui.label(
            RichText::new(UiText::MailQueue.fill(
                lang,
                &[
                    ("waiting", &q.waiting),
                    ("refused", &q.refused),
                    ("sent", &q.sent),
                ],
            ))
            .color(cx.palette.muted),
        );
        if let Some(problem) = &q.last_problem {
            ui.label(RichText::new(problem).color(cx.palette.warn));
        }
    }
}
