//! A link's message to its payer from the window (issue 30): the job the worker runs for
//! `LinkCommand::Send`. The message is made of the link as history holds it and its cart lines
//! (`domain::share`), in the language chosen for that message; then:
//!
//! - **WhatsApp**: the number as typed (else the link's payer phone) is read as the forms read
//!   it, the `wa.me` address goes to the desktop's opener (`opener.rs`: no `PAYDESK_*` variable
//!   in its environment) and the send is recorded, masked, in the audit;
//! - **E-mail**: the address as typed (else the payer's) is checked, the message queued with
//!   its audit row, and one sending pass runs at once: "sent" on the server's `250`, else
//!   "waiting to be sent" with why (the queue's worker tries again), or the server's refusal;
//! - **Copy**: the subject and the text, for the clipboard.
//!
//! Every failure is one sentence in the window's language that names the field or the
//! setting; the Send form keeps what was typed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use zeroize::Zeroizing;

use super::msg::Sent;
use crate::clock::Zone;
use crate::domain::phone::Phone;
use crate::domain::share::{self, LinkFacts};
use crate::domain::{Actor, EmailAddress};
use crate::lang::Lang;
use crate::service::mail::MailSetupError;
use crate::service::shared::Reads;
use crate::service::{Desk, Services};
use crate::ui::command::SendVia;
use crate::ui::text::UiText;

/// Everything a send needs, taken from the app on the UI thread.
pub struct SendJob {
    /// The desk acting as the command's member.
    pub desk: Desk,
    /// Its reads (a reminder is claimed through the shop while joined).
    pub reads: Reads,
    /// The services (the audit, the mail queue, the keyring).
    pub services: Arc<Services>,
    /// Who sends.
    pub actor: Actor,
    /// The shop's name as the messages give it.
    pub shop_name: String,
    /// Local time for the expiry.
    pub zone: Zone,
    /// The desktop's opener.
    pub opener: crate::opener::Opener,
    /// `PAYDESK_SMTP_PASSWORD` as read at start-up.
    pub env_smtp: Option<Zeroizing<String>>,
    /// The window's language, for what the clerk reads.
    pub ui_lang: Lang,
}

impl std::fmt::Debug for SendJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The SMTP password never prints.
        f.debug_struct("SendJob")
            .field("actor", &self.actor)
            .field("shop_name", &self.shop_name)
            .finish_non_exhaustive()
    }
}

impl SendJob {
    /// Sends link `id`'s message `via`, written in `lang`; with `reminder`, its one reminder
    /// (claimed across the shop while joined, recorded once).
    pub async fn run(
        self,
        id: &str,
        via: SendVia,
        lang: Lang,
        reminder: bool,
    ) -> Result<Sent, String> {
        let ui = self.ui_lang;
        let desk = self.desk.clone();
        let key = id.to_owned();
        let (link, items, settings) = tokio::task::spawn_blocking(move || {
            Ok::<_, crate::service::DeskError>((
                desk.history_link(&key)?,
                desk.link_item_lines(&key)?,
                desk.sending_settings()?,
            ))
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.sentence(ui))?;
        let facts = LinkFacts::of_link(&self.shop_name, &link, items).map_err(|e| e.message(ui))?;
        let message = if reminder {
            share::compose_reminder(&facts, lang, self.zone)
        } else {
            share::compose(&facts, lang, self.zone)
        };
        match via {
            SendVia::Copy => Ok(Sent::Copy {
                text: format!("{}\n\n{}", message.subject, message.text),
            }),
            SendVia::WhatsApp { phone } => {
                let phone = if phone.trim().is_empty() {
                    Phone::from_api(
                        link.phone_country_code.as_deref().unwrap_or_default(),
                        link.phone_number.as_deref().unwrap_or_default(),
                    )
                } else {
                    Phone::parse(&phone, settings.country_code)
                }
                .map_err(|e| e.message(ui))?;
                let url = share::wa_me_url(&phone, &message.text);
                let opener = self.opener.clone();
                tokio::task::spawn_blocking(move || opener.open(&url))
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| UiText::SendNotOpened.fill(ui, &[("why", &e)]))?;
                // The shop's claim last, after every check: a typo or a failed opener does
                // not use up the link's one reminder.
                if reminder && !self.reads.claim_reminder(id).await {
                    return Err(UiText::RemindedAlready.get(ui).to_owned());
                }
                let services = Arc::clone(&self.services);
                let (actor, link_id, number) = (self.actor.clone(), link.id.clone(), phone.clone());
                let recorded = tokio::task::spawn_blocking(move || {
                    if reminder {
                        services.record_whatsapp_reminder(&actor, &link_id, &number)
                    } else {
                        services
                            .record_whatsapp_send(&actor, &link_id, &number)
                            .map(|()| true)
                    }
                })
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.sentence(ui))?;
                if !recorded {
                    return Err(UiText::RemindedAlready.get(ui).to_owned());
                }
                Ok(Sent::WhatsApp { to: phone.masked() })
            }
            SendVia::Email { to } => {
                let typed = if to.trim().is_empty() {
                    link.email.clone().unwrap_or_default()
                } else {
                    to
                };
                if typed.trim().is_empty() {
                    return Err(UiText::SendNoEmail.get(ui).to_owned());
                }
                let to = EmailAddress::parse(&typed).map_err(|e| e.message(ui))?;
                self.email((&link.id, link.url()), &to, (&message, reminder))
                    .await
            }
        }
    }

    /// Queues the message to `to` and runs one sending pass.
    async fn email(
        self,
        (link_id, payment_url): (&str, &str),
        to: &EmailAddress,
        (message, reminder): (&share::LinkMessage, bool),
    ) -> Result<Sent, String> {
        let ui = self.ui_lang;
        let services = Arc::clone(&self.services);
        let env = self.env_smtp.clone();
        let (settings, password) = tokio::task::spawn_blocking(move || services.mail_settings(env))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| setup_sentence(&e, ui))?;
        if reminder && !self.reads.claim_reminder(link_id).await {
            return Err(UiText::RemindedAlready.get(ui).to_owned());
        }
        let services = Arc::clone(&self.services);
        let (actor, id, url, address, from, msg) = (
            self.actor.clone(),
            link_id.to_owned(),
            payment_url.to_owned(),
            to.clone(),
            settings.from.clone(),
            message.clone(),
        );
        let queued = tokio::task::spawn_blocking(move || {
            if reminder {
                services.queue_reminder_mail(&actor, (&id, &url), &address, &from, &msg)
            } else {
                services
                    .queue_mail(&actor, (&id, &url), &address, &from, &msg)
                    .map(Some)
            }
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.sentence(ui))?
        .ok_or_else(|| UiText::RemindedAlready.get(ui).to_owned())?;
        let masked = to.masked();
        let waiting = match self
            .services
            .send_mail_now(&settings, password.as_ref())
            .await
        {
            Ok(report) if report.sent.contains(&queued.id) => None,
            Ok(report) => {
                if let Some((_, words)) = report.refused.iter().find(|(id, _)| *id == queued.id) {
                    return Err(UiText::SendMailRefused.fill(ui, &[("words", words)]));
                }
                Some(
                    report
                        .failed
                        .iter()
                        .find(|(id, ..)| *id == queued.id)
                        .map(|(_, why, _)| why.clone())
                        .unwrap_or_default(),
                )
            }
            Err(e) => Some(e.message(ui)),
        };
        Ok(Sent::Email {
            to: masked,
            waiting,
        })
    }
}

/// Why e-mail cannot go from this desk, as the clerk reads it.
pub(crate) fn setup_sentence(e: &MailSetupError, lang: Lang) -> String {
    match e {
        MailSetupError::NotSetUp => UiText::SendMailNotSetUp.get(lang).to_owned(),
        MailSetupError::NoPassword(user) => {
            UiText::SendMailNoPassword.fill(lang, &[("user", user)])
        }
        MailSetupError::Unreadable(what) => {
            UiText::SendMailUnreadable.fill(lang, &[("what", what)])
        }
        MailSetupError::Desk(e) => e.sentence(lang),
    }
}

/// How often the window looks at the mail queue for a message due (each message waits its own
/// doubling time after a failure, 30 s to 30 min: `store::mail_backoff`).
pub const MAIL_PASS_EVERY: Duration = Duration::from_secs(30);

/// The mail queue's sending passes from the window: one at a time, never on the UI thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct MailPass {
    /// A pass is out.
    running: bool,
    /// When the next pass is due (`None`: one pass soon after the desk opens).
    next: Option<Instant>,
}

/// One sending pass over the queue, when e-mail is set up: the reminders due now queued first
/// (`reads`: this desk's, claimed in the shop while joined; in the receipts' language, the
/// account's sender name as the shop's), then, when a message is due, one pass: what the
/// window's worker runs every [`MAIL_PASS_EVERY`]. A desk without e-mail, or with nothing due,
/// connects to no server.
pub async fn mail_pass(
    services: Arc<Services>,
    env_smtp: Option<Zeroizing<String>>,
    reads: Option<(Reads, Zone)>,
) {
    if let Some((reads, zone)) = reads {
        queue_reminders(&services, env_smtp.clone(), &reads, zone).await;
    }
    let now = services.clock().now();
    let reader = Arc::clone(&services);
    let due = tokio::task::spawn_blocking(move || reader.mail_status())
        .await
        .ok()
        .and_then(Result::ok)
        .is_some_and(|rows| {
            rows.iter()
                .any(|m| m.sent_at.is_none() && m.refused_at.is_none() && m.next_try_at <= now)
        });
    if !due {
        return;
    }
    let reader = Arc::clone(&services);
    let Ok(Ok((settings, password))) =
        tokio::task::spawn_blocking(move || reader.mail_settings(env_smtp)).await
    else {
        return;
    };
    match services.send_mail_now(&settings, password.as_ref()).await {
        Ok(report) => tracing::info!(
            sent = report.sent.len(),
            waiting = report.failed.len(),
            refused = report.refused.len(),
            "a sending pass of the mail queue"
        ),
        Err(e) => tracing::warn!(error = %e, "the mail queue's sending pass"),
    }
}

/// Queues the e-mail reminders due now, when e-mail is set up (a failure is logged: the pass
/// goes on).
async fn queue_reminders(
    services: &Services,
    env_smtp: Option<Zeroizing<String>>,
    reads: &Reads,
    zone: Zone,
) {
    let Ok((settings, _)) = services.mail_settings(env_smtp) else {
        return;
    };
    let lang = services.receipt_settings().unwrap_or_default().lang;
    let shop = (settings.from_name.as_str(), lang);
    match reads
        .queue_due_reminders(services, &settings.from, shop, zone)
        .await
    {
        Ok(0) => {}
        Ok(n) => tracing::info!(queued = n, "reminders queued"),
        Err(e) => tracing::warn!(error = %e, "the reminders could not be queued"),
    }
}

impl super::App {
    /// Starts the mail queue's next sending pass when it is due (see [`MailPass`]), and asks
    /// for a repaint then, so an idle window wakes for it.
    pub(crate) fn schedule_mail(&mut self) {
        if self.mail.running {
            return;
        }
        let Some(services) = self.holds.services.clone() else {
            return;
        };
        let at = Instant::now();
        let first = MAIL_FIRST_PASS.min(self.options.mail_pass_every);
        let next = *self.mail.next.get_or_insert(at + first);
        if next > at {
            self.ctx.request_repaint_after(next - at);
            return;
        }
        self.mail.running = true;
        let env = self.options.env_smtp.value();
        let duty = self.own_duty();
        let reads = self.holds.desk.clone().map(|d| (self.reads(d), self.zone));
        self.spawn(&duty, async move {
            mail_pass(services, env, reads).await;
            super::msg::Msg::Link(super::msg::LinkResult::MailPassed)
        });
    }

    /// A sending pass ended: the next one a pass's time later ([`MAIL_PASS_EVERY`] unless the
    /// options say otherwise).
    pub(crate) fn on_mail_passed(&mut self) {
        self.mail.running = false;
        self.mail.next = Some(Instant::now() + self.options.mail_pass_every);
    }
}

/// The first pass after the window opens: soon, so a message left waiting at the last close
/// goes without a clerk's click.
const MAIL_FIRST_PASS: Duration = Duration::from_secs(5);
