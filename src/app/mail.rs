//! Settings → E-mail's jobs (`ui::mail`): the account read with the queue, kept (checked by
//! `SmtpSettings::check`, the password into the keyring), and a test message sent outside the
//! queue. All on the worker.

use std::path::PathBuf;
use std::sync::Arc;

use super::App;
use super::msg::{Duty, MailResult, Msg};
use crate::domain::EmailAddress;
use crate::lang::Lang;
use crate::mail::{Security, SmtpSettings, TestError};
use crate::service::Services;
use crate::service::mail::{SmtpAccount, security_name};
use crate::service::receipt::ReceiptSettings;
use crate::service::{DeskError, SendingSettings};
use crate::ui::mail::{MailCommand, MailForm, MailSecurity, QueueSummary, SendingForm};
use crate::ui::problem::Problem;
use crate::ui::text::UiText;

/// The form of a kept account, with whether receipts go on their own.
fn form_of(a: SmtpAccount, receipts: bool) -> MailForm {
    MailForm {
        receipts,
        security: match a.security.as_str() {
            "tls" => MailSecurity::Tls,
            "none" => MailSecurity::None,
            _ => MailSecurity::StartTls,
        },
        host: a.host,
        port: a.port.to_string(),
        user: a.user.unwrap_or_default(),
        from: a.from,
        from_name: a.from_name,
        ca_file: a.ca_file.unwrap_or_default(),
    }
}

/// The settings a form describes, or the sentence naming the field that is wrong.
fn settings_of(form: &MailForm, lang: Lang) -> Result<SmtpSettings, Problem> {
    let from = EmailAddress::parse(&form.from).map_err(|e| Problem::plain(e.message(lang)))?;
    let security = match form.security {
        MailSecurity::StartTls => Security::StartTls,
        MailSecurity::Tls => Security::Tls,
        MailSecurity::None => Security::None,
    };
    let mut settings = SmtpSettings::new(form.host.trim(), security, from, form.from_name.trim());
    let port = form.port.trim();
    if !port.is_empty() {
        settings.port = port
            .parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| Problem::plain(UiText::MailBadPort.get(lang).to_owned()))?;
    }
    let user = form.user.trim();
    settings.user = (!user.is_empty()).then(|| user.to_owned());
    let ca = form.ca_file.trim();
    settings.ca_file = (!ca.is_empty()).then(|| PathBuf::from(ca));
    settings
        .check()
        .map_err(|e| Problem::plain(e.message(lang)))?;
    debug_assert_eq!(security_name(settings.security), security_name(security));
    Ok(settings)
}

/// Keeps the receipt settings when they changed (a save that changes nothing of them writes
/// no audit row for them).
fn save_receipts(
    services: &Services,
    actor: &crate::domain::Actor,
    receipts: ReceiptSettings,
) -> Result<(), crate::service::DeskError> {
    if services.receipt_settings()? != receipts {
        services.set_receipt_settings(actor, receipts)?;
    }
    Ok(())
}

/// The queue in short: counts and the newest problem.
fn summary(services: &Services) -> QueueSummary {
    let rows = services.mail_status().unwrap_or_default();
    let mut q = QueueSummary::default();
    for m in &rows {
        if m.refused_at.is_some() {
            q.refused += 1;
        } else if m.sent_at.is_some() {
            q.sent += 1;
        } else {
            q.waiting += 1;
        }
        if q.last_problem.is_none()
            && m.sent_at.is_none()
            && let Some(e) = &m.last_error
        {
            q.last_problem = Some(format!(
                "{}: {e}",
                crate::domain::email::mask_email(&m.to_address)
            ));
        }
    }
    q
}

impl App {
    /// Runs a command of Settings → E-mail.
    pub(crate) fn run_mail(&mut self, command: MailCommand, duty: &Duty) {
        let lang = self.lang();
        let Some(services) = self.holds.services.clone() else {
            self.views.mail.abort_busy();
            return;
        };
        match command {
            MailCommand::Load => {
                self.spawn(duty, async move {
                    let loaded = tokio::task::spawn_blocking(move || {
                        let receipts = services.receipt_settings().unwrap_or_default().on;
                        let form = services
                            .mail_account()
                            .ok()
                            .flatten()
                            .map(|a| form_of(a, receipts));
                        let sending = services.sending_settings().unwrap_or_default();
                        (form, summary(&services), sending_form(sending))
                    })
                    .await;
                    let (form, queue, sending) = loaded.unwrap_or_default();
                    Msg::Mail(MailResult::Loaded {
                        form,
                        queue,
                        sending,
                    })
                });
            }
            MailCommand::Save { form, password } => {
                let actor = duty.actor.clone();
                self.spawn(duty, async move {
                    let result = match settings_of(&form, lang) {
                        Err(p) => Err(p),
                        Ok(settings) => {
                            let s = Arc::clone(&services);
                            let receipts = ReceiptSettings {
                                on: form.receipts,
                                lang,
                            };
                            tokio::task::spawn_blocking(move || {
                                s.set_mail_account(&actor, &settings, password.as_ref())
                                    .map_err(|e| Problem::plain(e.message(lang)))?;
                                save_receipts(&s, &actor, receipts)
                                    .map_err(|e| Problem::plain(e.sentence(lang)))?;
                                Ok(settings)
                            })
                            .await
                            .map_err(|e| Problem::plain(e.to_string()))
                            .and_then(|r| r)
                            .map(|settings| {
                                UiText::MailSaved.fill(
                                    lang,
                                    &[
                                        ("host", &settings.host),
                                        ("port", &settings.port),
                                        ("from", &settings.from.as_str()),
                                    ],
                                )
                            })
                        }
                    };
                    Msg::Mail(MailResult::Done { result })
                });
            }
            MailCommand::SaveSending { form } => {
                let actor = duty.actor.clone();
                self.spawn(duty, async move {
                    let result = save_sending(services, &actor, &form, lang).await;
                    Msg::Mail(MailResult::SendingSaved { result })
                });
            }
            MailCommand::Test { to } => {
                let env = self.options.env_smtp.value();
                self.spawn(duty, async move {
                    let result = test_message(services, env, &to, lang).await;
                    Msg::Mail(MailResult::Done { result })
                });
            }
        }
    }

    /// Takes a result of Settings → E-mail into its view.
    pub(crate) fn apply_mail(&mut self, result: MailResult) {
        match result {
            MailResult::Loaded {
                form,
                queue,
                sending,
            } => self.views.mail.on_loaded(form, queue, sending),
            MailResult::SendingSaved { result } => {
                self.views.mail.on_sending_saved(result);
                self.views.board.read_again();
            }
            MailResult::Done { result } => {
                let done = result.is_ok();
                self.views.mail.on_done(result);
                if done {
                    // Kept: the password leaves the form, the account and queue are read again.
                    self.views.mail.on_left();
                }
            }
        }
    }
}

/// The form of the sending settings kept.
fn sending_form(s: SendingSettings) -> SendingForm {
    SendingForm {
        country_code: s.country_code.to_string(),
        remind_before_min: s.remind_before_min,
    }
}

/// Checks and keeps the sending settings of `form`; the sentence saying what was kept, or
/// the one naming the field that is wrong.
async fn save_sending(
    services: Arc<Services>,
    actor: &crate::domain::Actor,
    form: &SendingForm,
    lang: Lang,
) -> Result<String, Problem> {
    let bad = || Problem::plain(DeskError::BadSendingSettings.sentence(lang));
    let code = form.country_code.trim().trim_start_matches('+');
    let country_code = code.parse::<u16>().map_err(|_| bad())?;
    let settings = SendingSettings {
        country_code,
        remind_before_min: form.remind_before_min,
    };
    let actor = actor.clone();
    tokio::task::spawn_blocking(move || services.set_sending_settings(&actor, settings))
        .await
        .map_err(|e| Problem::plain(e.to_string()))?
        .map_err(|e| Problem::plain(e.sentence(lang)))?;
    let remind = settings.remind_before_min.map_or_else(
        || UiText::SendingRemindOff.get(lang).to_owned(),
        |m| format!("{m} {}", UiText::UnitMinutes.get(lang)),
    );
    Ok(UiText::SendingSaved.fill(lang, &[("code", &country_code), ("remind", &remind)]))
}

/// One message outside the queue to `to`, with the account kept.
async fn test_message(
    services: Arc<Services>,
    env: Option<zeroize::Zeroizing<String>>,
    to: &str,
    lang: Lang,
) -> Result<String, Problem> {
    let address = EmailAddress::parse(to).map_err(|e| Problem::plain(e.message(lang)))?;
    let (settings, password) = tokio::task::spawn_blocking(move || services.mail_settings(env))
        .await
        .map_err(|e| Problem::plain(e.to_string()))?
        .map_err(|e| Problem::plain(super::send::setup_sentence(&e, lang)))?;
    let subject = UiText::MailTestSubject.get(lang);
    let text = UiText::MailTestText.fill(lang, &[("from", &settings.from.as_str())]);
    match crate::mail::send_test(&settings, password.as_ref(), &address, subject, &text).await {
        Ok(()) => Ok(UiText::MailTestSent.fill(lang, &[("to", &address.masked())])),
        Err(TestError::Setup(e)) => Err(Problem::plain(e.message(lang))),
        Err(TestError::Refused(words)) => Err(Problem::plain(
            UiText::SendMailRefused.fill(lang, &[("words", &words)]),
        )),
        Err(TestError::NoAnswer(words)) => Err(Problem::plain(
            UiText::MailNoAnswer.fill(lang, &[("words", &words)]),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(host: &str, security: MailSecurity, port: &str, from: &str) -> MailForm {
        MailForm {
            host: host.into(),
            port: port.into(),
            security,
            from: from.into(),
            ..MailForm::default()
        }
    }

    #[test]
    fn a_form_is_checked_as_the_cli_checks_it_and_each_refusal_says_what_is_wrong() {
        let en = Lang::En;
        // What a refused form says, for (host, security, port, sender).
        let refusal = |(host, security, port, from): (&str, MailSecurity, &str, &str)| {
            settings_of(&form(host, security, port, from), en)
                .expect_err("a refused account")
                .sentence
        };
        let plain = refusal(("mail.example.com", MailSecurity::None, "", "a@b.co"));
        assert!(plain.contains("this computer"), "{plain}");
        let from = refusal(("127.0.0.1", MailSecurity::None, "", "nobody"));
        assert!(from.starts_with("E-mail:"), "{from}");
        let port = refusal(("127.0.0.1", MailSecurity::None, "70000", "a@b.co"));
        assert!(port.starts_with("Port number:"), "{port}");
        let ok = settings_of(
            &form("smtp.example.com", MailSecurity::StartTls, "", "a@b.co"),
            en,
        )
        .expect("a usable account");
        assert_eq!((ok.port, ok.user.as_deref()), (587, None));
        let kept = form_of(
            SmtpAccount {
                host: ok.host.clone(),
                port: ok.port,
                security: security_name(ok.security).to_owned(),
                user: Some("kasa".into()),
                from: "a@b.co".into(),
                from_name: "Kuzey".into(),
                ca_file: None,
            },
            false,
        );
        assert!(!kept.receipts);
        assert_eq!(kept.security, MailSecurity::StartTls);
        assert_eq!((kept.port.as_str(), kept.user.as_str()), ("587", "kasa"));
    }
}
