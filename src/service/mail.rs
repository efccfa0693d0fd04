//! E-mail from this desk (issue 30), as the front ends reach it: the shop's SMTP account (kept
//! in the data file, its password in the OS keyring or `PAYDESK_SMTP_PASSWORD`), a link queued
//! to its payer with its audit row, the queue as it stands, and a sending pass now
//! (`mail::send_queued`, the file locked for each step only).

use zeroize::Zeroizing;

use super::{DeskError, Services};
use crate::domain::share::{LinkMessage, QR_CONTENT_ID};
use crate::domain::{Actor, EmailAddress};
use crate::mail::{MailError, Security, SendReport, SmtpPassword, SmtpSettings};
use crate::store::{MailKind, MailPart, NewMail};
pub use crate::store::{QueuedMail, SmtpAccount};

/// Pixels per module of the e-mailed QR code: a link's code (about 40 modules with its quiet
/// zone) is about 250 px, sharp at the 240 px the HTML shows it.
const QR_SCALE: usize = 6;

/// The link's QR code as an inline PNG part, `None` when the URL does not fit in a code.
fn qr_part(payment_url: &str) -> Option<MailPart> {
    let png = crate::qr::QrImage::of_text(payment_url, QR_SCALE)
        .and_then(|image| image.to_png())
        .map_err(|e| tracing::warn!("the e-mail goes without its QR code: {e}"))
        .ok()?;
    Some(MailPart {
        name: "qr.png".to_owned(),
        content_type: "image/png".to_owned(),
        content_id: Some(QR_CONTENT_ID.to_owned()),
        bytes: png,
    })
}

/// The keyring's profile name of the SMTP password (its key is the login).
const KEYRING_PROFILE: &str = "smtp";

/// How many messages `mail status` lists at most, newest first.
pub const STATUS_ROWS: usize = 200;

/// Why e-mail cannot be sent from this desk.
#[derive(Debug, thiserror::Error)]
pub enum MailSetupError {
    /// No SMTP account is set.
    #[error("e-mail is not set up on this desk: `paydesk mail set`")]
    NotSetUp,
    /// The account kept cannot be used (a sender address or mode this version cannot read).
    #[error("the e-mail account kept on this desk cannot be read: {0}")]
    Unreadable(String),
    /// The account's login has no password in the keyring or the environment.
    #[error("no password for the e-mail login {0}: set it again with `paydesk mail set`")]
    NoPassword(String),
    /// The data file or the keyring failed.
    #[error(transparent)]
    Desk(#[from] DeskError),
}

/// The mode of a kept account.
fn security_of(text: &str) -> Option<Security> {
    match text {
        "starttls" => Some(Security::StartTls),
        "tls" => Some(Security::Tls),
        "none" => Some(Security::None),
        _ => None,
    }
}

/// The kept spelling of a mode.
pub fn security_name(security: Security) -> &'static str {
    match security {
        Security::StartTls => "starttls",
        Security::Tls => "tls",
        Security::None => "none",
    }
}

impl Services {
    /// Sets the shop's SMTP account on this desk (audited, never the password) after the rules
    /// of [`SmtpSettings::check`], and keeps `password` for its login in the keyring.
    pub fn set_mail_account(
        &self,
        actor: &Actor,
        settings: &SmtpSettings,
        password: Option<&Zeroizing<String>>,
    ) -> Result<(), MailError> {
        settings.check()?;
        let account = SmtpAccount {
            host: settings.host.clone(),
            port: settings.port,
            security: security_name(settings.security).to_owned(),
            user: settings.user.clone(),
            from: settings.from.as_str().to_owned(),
            from_name: settings.from_name.clone(),
            ca_file: settings
                .ca_file
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
        };
        if let (Some(user), Some(password)) = (&settings.user, password) {
            self.secrets()
                .set(KEYRING_PROFILE, user, password)
                .map_err(|e| MailError::Keyring(e.to_string()))?;
        }
        let now = self.clock().now();
        Ok(crate::store::with_locked(self.store(), |s| {
            s.as_actor(actor, now, |s| s.set_smtp_account(&account, now))
        })?)
    }

    /// The SMTP account and its password, ready for a pass; `env_password` is
    /// `PAYDESK_SMTP_PASSWORD` as `main` took it (it wins over the keyring).
    pub fn mail_settings(
        &self,
        env_password: Option<Zeroizing<String>>,
    ) -> Result<(SmtpSettings, Option<SmtpPassword>), MailSetupError> {
        let account = crate::store::with_locked(self.store(), |s| s.mail_queue().smtp_account())
            .map_err(DeskError::from)?
            .ok_or(MailSetupError::NotSetUp)?;
        let security = security_of(&account.security)
            .ok_or_else(|| MailSetupError::Unreadable(account.security.clone()))?;
        let from = EmailAddress::parse(&account.from)
            .map_err(|_| MailSetupError::Unreadable(account.from.clone()))?;
        let mut settings = SmtpSettings::new(&account.host, security, from, &account.from_name);
        settings.port = account.port;
        settings.user.clone_from(&account.user);
        settings.ca_file = account.ca_file.map(Into::into);
        let password = match (&settings.user, env_password) {
            (None, _) => None,
            (Some(_), Some(env)) => Some(SmtpPassword::new(env)),
            (Some(user), None) => Some(SmtpPassword::new(
                self.secrets()
                    .get(KEYRING_PROFILE, user)
                    .map_err(DeskError::from)?
                    .ok_or_else(|| MailSetupError::NoPassword(user.clone()))?,
            )),
        };
        Ok((settings, password))
    }

    /// Queues `message` for link `link_id` to `to` from `from`, with the QR code of
    /// `payment_url` as an inline PNG (its HTML shows it as `cid:` [`QR_CONTENT_ID`]) and its
    /// audit row naming `actor` and the masked address, in one transaction. A URL too long
    /// for a QR code goes without the picture (the text and the link carry it).
    pub fn queue_mail(
        &self,
        actor: &Actor,
        (link_id, payment_url): (&str, &str),
        to: &EmailAddress,
        from: &EmailAddress,
        message: &LinkMessage,
    ) -> Result<QueuedMail, DeskError> {
        self.queue_link_mail(actor, (link_id, payment_url), (to, from), message, false)?
            .ok_or_else(|| {
                DeskError::Store(crate::store::StoreError::Corrupt {
                    what: "mail queue row",
                    value: link_id.to_owned(),
                })
            })
    }

    /// Queues the one reminder of link `link_id` (see [`Services::queue_mail`]) and records it,
    /// in one transaction; `None` when the link was reminded already.
    pub fn queue_reminder_mail(
        &self,
        actor: &Actor,
        link: (&str, &str),
        to: &EmailAddress,
        from: &EmailAddress,
        message: &LinkMessage,
    ) -> Result<Option<QueuedMail>, DeskError> {
        self.queue_link_mail(actor, link, (to, from), message, true)
    }

    /// [`Services::queue_mail`], or as the link's one reminder when `reminder`.
    fn queue_link_mail(
        &self,
        actor: &Actor,
        (link_id, payment_url): (&str, &str),
        (to, from): (&EmailAddress, &EmailAddress),
        message: &LinkMessage,
        reminder: bool,
    ) -> Result<Option<QueuedMail>, DeskError> {
        let now = self.clock().now();
        let mail = NewMail {
            link_id,
            to,
            from,
            message,
        };
        let parts: Vec<MailPart> = qr_part(payment_url).into_iter().collect();
        Ok(crate::store::with_locked(self.store(), |s| {
            s.as_actor(actor, now, |s| {
                if reminder {
                    s.mail_enqueue_reminder(&mail, &parts, now)
                } else {
                    s.mail_enqueue_with(&mail, MailKind::Link, &parts, now)
                }
            })
        })?)
    }

    /// The SMTP account kept on this desk, without its password (`None`: none set).
    pub fn mail_account(&self) -> Result<Option<SmtpAccount>, DeskError> {
        Ok(crate::store::with_locked(self.store(), |s| {
            s.mail_queue().smtp_account()
        })?)
    }

    /// The queue's messages, newest first (at most [`STATUS_ROWS`]).
    pub fn mail_status(&self) -> Result<Vec<QueuedMail>, DeskError> {
        Ok(crate::store::with_locked(self.store(), |s| {
            s.mail_queue().newest(STATUS_ROWS)
        })?)
    }

    /// One sending pass now over every message due (a message that failed waits its doubling
    /// wait first, so a server that refuses is not hammered).
    pub async fn send_mail_now(
        &self,
        settings: &SmtpSettings,
        password: Option<&SmtpPassword>,
    ) -> Result<SendReport, MailError> {
        crate::mail::send_queued(self.store(), &**self.clock(), settings, password).await
    }

    /// `mail flush`: every waiting message made due now, whatever its backoff (never one
    /// another sender is sending), then one sending pass.
    pub async fn flush_mail(
        &self,
        settings: &SmtpSettings,
        password: Option<&SmtpPassword>,
    ) -> Result<SendReport, MailError> {
        let now = self.clock().now();
        crate::store::with_locked(self.store(), |s| s.mail_due_now(now))?;
        self.send_mail_now(settings, password).await
    }
}
