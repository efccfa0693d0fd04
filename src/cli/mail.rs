//! `paydesk mail …` and `paydesk link send --email` (issue 30): the shop's SMTP account on this
//! desk (the password from stdin into the keyring, or `PAYDESK_SMTP_PASSWORD` on every run), a
//! test message, the queue, a sending pass, and a link queued to its payer and sent now when
//! the server answers (exit 0 either way: "sent" or "waiting to be sent"; exit 4 with the
//! server's words when it refuses the message for good).

use serde::Serialize;
use zeroize::Zeroizing;

use super::args::MailArgs;
use super::output::{Exit, Failure, Outcome, from_desk, print_json};
use super::prompt::read_secret_line;
use super::run::Ctx;
use super::text::CliText;
use crate::domain::EmailAddress;
use crate::domain::share::LinkMessage;
use crate::lang::Lang;
use crate::mail::{MailError, Security, SmtpSettings, TestError};
use crate::service::mail::MailSetupError;
use crate::service::receipt::{ReceiptQueueError, ReceiptSettings};
use crate::service::{Desk, Services};

/// One message of `mail status --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    to: &'a str,
    state: &'static str,
    message_id: &'a str,
    link_id: &'a str,
    attempts: u32,
    error: Option<&'a str>,
}

impl Ctx {
    /// A refused setting or pass, exit 3 (the setting is what paydesk never does) or 1.
    fn mail_failure(&self, e: &MailError) -> Failure {
        let exit = match e {
            MailError::NoHost
            | MailError::PlainNotLoopback { .. }
            | MailError::NoPassword { .. }
            | MailError::CaFile { .. } => Exit::Invalid,
            MailError::Tls { .. }
            | MailError::Keyring(_)
            | MailError::Relay { .. }
            | MailError::Store(_) => Exit::Failure,
        };
        Failure::new(exit, e.message(self.lang))
    }

    /// E-mail cannot be sent from this desk (exit 3 when it is not set up, as a refusal).
    fn setup_failure(&self, e: MailSetupError) -> Failure {
        let lang = self.lang;
        match e {
            MailSetupError::NotSetUp => {
                Failure::new(Exit::Invalid, CliText::MailNotSetUp.get(lang))
            }
            MailSetupError::NoPassword(user) => Failure::new(
                Exit::Invalid,
                CliText::MailNoPassword.fill(lang, &[("user", &user)]),
            ),
            e @ MailSetupError::Unreadable(_) => Failure::new(Exit::Failure, e.to_string()),
            MailSetupError::Desk(d) => from_desk(lang)(d),
        }
    }

    /// An e-mail address typed or kept, or exit 3 naming the field.
    fn address(&self, text: &str) -> Result<EmailAddress, Failure> {
        EmailAddress::parse(text).map_err(|e| Failure::new(Exit::Invalid, e.message(self.lang)))
    }

    pub(super) async fn mail_cmd(&self, services: &Services, command: MailArgs) -> Outcome {
        let lang = self.lang;
        match command {
            MailArgs::Set {
                host,
                port,
                from,
                name,
                user,
                security,
                ca,
                receipts,
            } => {
                self.mail_set(services, &host, port, &from, &name, user, &security, ca)?;
                match receipts.as_deref() {
                    Some(on) => self.set_receipts(services, on == "on"),
                    None => Ok(()),
                }
            }
            MailArgs::Test { address } => self.mail_test(services, &address).await,
            MailArgs::Status { json } => {
                let queue = services.mail_status().map_err(from_desk(lang))?;
                let state = |m: &crate::service::mail::QueuedMail| {
                    if m.sent_at.is_some() {
                        "sent"
                    } else if m.refused_at.is_some() {
                        "refused"
                    } else {
                        "waiting"
                    }
                };
                if json {
                    let listed: Vec<Listed<'_>> = queue
                        .iter()
                        .map(|m| Listed {
                            to: &m.to_address,
                            state: state(m),
                            message_id: &m.message_id,
                            link_id: &m.link_id,
                            attempts: m.attempts,
                            error: m.last_error.as_deref(),
                        })
                        .collect();
                    return print_json(&listed);
                }
                if queue.is_empty() {
                    println!("{}", CliText::MailQueueEmpty.get(lang));
                }
                for m in &queue {
                    println!(
                        "{}\t{}\t{}\t{}",
                        state(m),
                        m.to_address,
                        m.message_id,
                        m.last_error.as_deref().unwrap_or_default()
                    );
                }
                Ok(())
            }
            MailArgs::Flush => {
                let (settings, password) = services
                    .mail_settings(self.env_smtp.value())
                    .map_err(|e| self.setup_failure(e))?;
                // The profile's reminders due now go with what waits (one per link across
                // the shop).
                if let Ok(desk) = self.desk(services) {
                    let reads = self.reads(services, &desk).await?;
                    let receipts = services.receipt_settings().unwrap_or_default();
                    // What waits is sent whatever became of the reminders.
                    if let Err(e) = reads
                        .queue_due_reminders(
                            services,
                            &settings.from,
                            (&settings.from_name, receipts.lang),
                            self.zone,
                        )
                        .await
                    {
                        eprintln!("{}", e.sentence(lang));
                    }
                }
                let report = services
                    .flush_mail(&settings, password.as_ref())
                    .await
                    .map_err(|e| self.mail_failure(&e))?;
                println!(
                    "{}",
                    CliText::MailFlushed.fill(
                        lang,
                        &[
                            ("sent", &report.sent.len()),
                            ("waiting", &report.failed.len())
                        ]
                    )
                );
                Ok(())
            }
        }
    }

    /// `mail set`.
    #[allow(
        clippy::too_many_arguments,
        reason = "the command's options, as clap gives them"
    )]
    fn mail_set(
        &self,
        services: &Services,
        host: &str,
        port: Option<u16>,
        from: &str,
        name: &str,
        user: Option<String>,
        security: &str,
        ca: Option<std::path::PathBuf>,
    ) -> Outcome {
        let lang = self.lang;
        let security = match security {
            "tls" => Security::Tls,
            "none" => Security::None,
            _ => Security::StartTls,
        };
        let mut settings = SmtpSettings::new(host, security, self.address(from)?, name);
        if let Some(port) = port {
            settings.port = port;
        }
        settings.user = user.filter(|u| !u.trim().is_empty());
        settings.ca_file = ca;
        // Refused before a password is asked for.
        settings.check().map_err(|e| self.mail_failure(&e))?;
        let password = match &settings.user {
            None => None,
            Some(user) => {
                let line =
                    read_secret_line(&CliText::MailPasswordPrompt.fill(lang, &[("user", user)]))
                        .map_err(|e| Failure::new(Exit::Failure, e.to_string()))?;
                Some(line).filter(|p: &Zeroizing<String>| !p.is_empty())
            }
        };
        services
            .set_mail_account(&self.actor, &settings, password.as_ref())
            .map_err(|e| self.mail_failure(&e))?;
        println!(
            "{}",
            CliText::MailSet.fill(
                lang,
                &[
                    ("host", &settings.host),
                    ("port", &settings.port),
                    ("security", &settings.security),
                    ("from", &settings.from.as_str()),
                ]
            )
        );
        Ok(())
    }

    /// `mail set --receipts on|off`: receipts on their own, in the command line's language.
    fn set_receipts(&self, services: &Services, on: bool) -> Outcome {
        let lang = self.lang;
        services
            .set_receipt_settings(&self.actor, ReceiptSettings { on, lang })
            .map_err(from_desk(lang))?;
        println!(
            "{}",
            if on {
                CliText::ReceiptsOn.get(lang)
            } else {
                CliText::ReceiptsOff.get(lang)
            }
        );
        Ok(())
    }

    /// `link receipt ID --email ADDRESS`: the receipt queued with its audit row, then one
    /// sending pass, as `link send --email` does; exit 3 for a bad address, e-mail not set up
    /// or a link not paid in full.
    pub(super) async fn send_receipt(
        &self,
        services: &Services,
        desk: &Desk,
        link_id: &str,
        to: &str,
        (receipt_lang, shop): (Lang, Option<String>),
    ) -> Outcome {
        let lang = self.lang;
        let to = self.address(to)?;
        let (settings, password) = services
            .mail_settings(self.env_smtp.value())
            .map_err(|e| self.setup_failure(e))?;
        let shop = shop.unwrap_or_else(|| settings.from_name.clone());
        let queued = desk
            .queue_receipt(
                link_id,
                &to,
                &settings.from,
                &shop,
                (receipt_lang, self.zone),
            )
            .map_err(|e| match e {
                ReceiptQueueError::NotPaid(e) => Failure::new(Exit::Invalid, e.message(lang)),
                ReceiptQueueError::Setup(e) => self.setup_failure(e),
                ReceiptQueueError::Desk(e) => from_desk(lang)(e),
                e @ ReceiptQueueError::Pdf(_) => Failure::new(Exit::Failure, e.to_string()),
            })?;
        self.send_queued_now(services, &queued, &to, &settings, password.as_ref())
            .await
    }

    /// `mail test ADDRESS`: exit 4 with the server's words when it refuses, 5 when it does not
    /// answer.
    async fn mail_test(&self, services: &Services, address: &str) -> Outcome {
        let lang = self.lang;
        let to = self.address(address)?;
        let (settings, password) = services
            .mail_settings(self.env_smtp.value())
            .map_err(|e| self.setup_failure(e))?;
        let subject = CliText::MailTestSubject.get(lang);
        let text = CliText::MailTestText.fill(lang, &[("from", &settings.from.as_str())]);
        match crate::mail::send_test(&settings, password.as_ref(), &to, subject, &text).await {
            Ok(()) => {
                println!("{}", CliText::MailTestSent.fill(lang, &[("to", &address)]));
                Ok(())
            }
            Err(TestError::Setup(e)) => Err(self.mail_failure(&e)),
            Err(TestError::Refused(words)) => Err(Failure::new(
                Exit::Rejected,
                CliText::MailRefused.fill(lang, &[("words", &words)]),
            )),
            Err(TestError::NoAnswer(words)) => Err(Failure::new(
                Exit::Unknown,
                CliText::MailNoAnswer.fill(lang, &[("words", &words)]),
            )),
        }
    }

    /// `link send ID --email [ADDRESS]`: the message queued to `to` with its audit row, then
    /// one sending pass; "sent" when the server took it, else "waiting to be sent" with why.
    pub(super) async fn send_email(
        &self,
        services: &Services,
        link: (&str, &str),
        to: &str,
        message: &LinkMessage,
    ) -> Outcome {
        let lang = self.lang;
        if to.trim().is_empty() {
            return Err(Failure::new(
                Exit::Invalid,
                CliText::MailNoAddress.get(lang),
            ));
        }
        let to = self.address(to)?;
        let (settings, password) = services
            .mail_settings(self.env_smtp.value())
            .map_err(|e| self.setup_failure(e))?;
        let queued = services
            .queue_mail(&self.actor, link, &to, &settings.from, message)
            .map_err(from_desk(lang))?;
        self.send_queued_now(services, &queued, &to, &settings, password.as_ref())
            .await
    }

    /// One sending pass after `queued` was queued to `to`: "sent" when the server took it,
    /// exit 4 with its words when it refused it for good, else "waiting to be sent" with why.
    async fn send_queued_now(
        &self,
        services: &Services,
        queued: &crate::service::mail::QueuedMail,
        to: &EmailAddress,
        settings: &SmtpSettings,
        password: Option<&crate::mail::SmtpPassword>,
    ) -> Outcome {
        let lang = self.lang;
        let masked = to.masked();
        match services.send_mail_now(settings, password).await {
            Ok(report) if report.sent.contains(&queued.id) => {
                println!("{}", CliText::MailSent.fill(lang, &[("to", &masked)]));
            }
            Ok(report) if report.refused.iter().any(|(id, _)| *id == queued.id) => {
                let words = report
                    .refused
                    .iter()
                    .find(|(id, _)| *id == queued.id)
                    .map(|(_, words)| words.as_str())
                    .unwrap_or_default();
                return Err(Failure::new(
                    Exit::Rejected,
                    CliText::MailRefused.fill(lang, &[("words", &words)]),
                ));
            }
            Ok(report) => {
                let why = report
                    .failed
                    .iter()
                    .find(|(id, ..)| *id == queued.id)
                    .map(|(_, why, _)| why.clone())
                    .unwrap_or_default();
                println!(
                    "{}",
                    CliText::MailWaiting.fill(lang, &[("to", &masked), ("why", &why)])
                );
            }
            Err(e) => println!(
                "{}",
                CliText::MailWaiting.fill(lang, &[("to", &masked), ("why", &e.message(lang))])
            ),
        }
        Ok(())
    }
}
