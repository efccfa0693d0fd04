//! Sending the mail queue over SMTP (issue 30; docs/design.md §"The mail queue").
//!
//! [`send_queued`] is one sending pass: it wipes the whole addresses whose week is over, then
//! takes the due messages of the queue (`store/mail.rs`), claims each, builds it with its
//! `Message-ID` fixed at queue time (a plain-text part and an HTML alternative) and sends it
//! through `lettre`. A message is marked sent only when the server answered `250` to its data;
//! a permanent refusal (a 5xx reply, or a message that cannot be built) keeps it with the
//! server's words, never tried again; any other outcome (no connection, a 4xx, a connection
//! dropped after the data) leaves it queued, due again after the queue's doubling wait, and
//! the next pass sends it with the same `Message-ID`.
//!
//! Transport rules ([`SmtpSettings::check`]):
//! - [`Security::StartTls`] (port 587) and [`Security::Tls`] (port 465) verify the server's
//!   certificate and name with the platform verifier (the system's roots), plus the
//!   certificates of an optional CA file ([`SmtpSettings::ca_file`], PEM) trusted in addition.
//!   Nothing here turns verification off.
//! - [`Security::None`] is plain SMTP, refused unless the host is this computer (`localhost`,
//!   `127.0.0.0/8`, `::1`): a password or a payer's address never crosses a network in clear.
//! - The password is a [`SmtpPassword`]: zeroized on drop, `<redacted>` in `Debug`. `lettre`
//!   keeps its own copy in the transport for the pass, dropped when the pass ends.
//! - The client greets with `EHLO [127.0.0.1]` (lettre without its `hostname` feature), so the
//!   machine's name is not told to the mail server.

pub mod messages;
mod relay;

use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Address, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use zeroize::Zeroizing;

use self::messages::MailMessage;
pub use self::relay::REPLY_CAP;
use self::relay::Relay;
use crate::clock::Clock;
use crate::domain::EmailAddress;
use crate::lang::Lang;
use crate::secrets::Redacted;
use crate::store::{MailPart, QueuedMail, Store, StoreError};

/// How long a claimed message is passed by other senders: longer than one attempt can take
/// ([`SmtpSettings::deadline`], the whole dialogue's bound).
pub const CLAIM: chrono::Duration = chrono::Duration::minutes(2);

/// The most bytes of a CA file read (a bundle of a few certificates is a few KiB).
pub const CA_FILE_LIMIT: u64 = 1024 * 1024;

/// How the connection to the SMTP server is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// Plain connection upgraded with `STARTTLS` before anything is sent; refused by a server
    /// without it. Port 587.
    StartTls,
    /// TLS from the first byte (SMTPS). Port 465.
    Tls,
    /// No encryption: only to this computer.
    None,
}

impl Security {
    /// The usual port of the mode.
    pub fn default_port(self) -> u16 {
        match self {
            Security::StartTls => 587,
            Security::Tls => 465,
            Security::None => 25,
        }
    }
}

/// The SMTP account's password: zeroized on drop, never shown in `Debug`.
#[derive(Clone, Debug)]
pub struct SmtpPassword(Redacted<Zeroizing<String>>);

impl SmtpPassword {
    /// A password given by the caller (the keyring, a prompt, an environment variable read
    /// once).
    pub fn new(password: Zeroizing<String>) -> Self {
        SmtpPassword(Redacted(password))
    }

    fn expose(&self) -> &str {
        self.0.as_str()
    }
}

/// Where and as whom the desk sends mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpSettings {
    /// The server's host name or address.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// How the connection is protected.
    pub security: Security,
    /// The account to log in as; `None`: no `AUTH`.
    pub user: Option<String>,
    /// The sender's address (`From`, and the `Message-ID`'s domain at queue time).
    pub from: EmailAddress,
    /// The sender's name (`From: "Kuzey Giyim" <kasa@kuzey.example>`).
    pub from_name: String,
    /// A PEM file whose certificates are trusted in addition to the system's.
    pub ca_file: Option<PathBuf>,
    /// The longest wait for each step of the SMTP dialogue.
    pub timeout: Duration,
    /// The longest one message's whole dialogue may take (a server that answers a byte at a
    /// time passes every step's `timeout`, never this); below [`CLAIM`].
    pub deadline: Duration,
}

impl SmtpSettings {
    /// Settings on the mode's usual port, without login or CA file, 30 s per step and 90 s
    /// for a whole message.
    pub fn new(host: &str, security: Security, from: EmailAddress, from_name: &str) -> Self {
        SmtpSettings {
            host: host.trim().to_owned(),
            port: security.default_port(),
            security,
            user: None,
            from,
            from_name: from_name.trim().to_owned(),
            ca_file: None,
            timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(90),
        }
    }

    /// Refuses what paydesk never does: an empty host, plain SMTP off this computer.
    pub fn check(&self) -> Result<(), MailError> {
        if self.host.is_empty() {
            return Err(MailError::NoHost);
        }
        if self.security == Security::None && !is_loopback(&self.host) {
            return Err(MailError::PlainNotLoopback {
                host: self.host.clone(),
            });
        }
        Ok(())
    }

    /// The checked transport for one pass, dialling `relay` (which reaches the server).
    fn transport(
        &self,
        password: Option<&SmtpPassword>,
        relay: &Relay,
    ) -> Result<AsyncSmtpTransport<Tokio1Executor>, MailError> {
        let tls = match self.security {
            Security::None => Tls::None,
            Security::StartTls => Tls::Required(self.tls_parameters()?),
            Security::Tls => Tls::Wrapper(self.tls_parameters()?),
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous("127.0.0.1")
            .port(relay.port())
            .tls(tls)
            .timeout(Some(self.timeout));
        if let Some(user) = &self.user {
            let password = password.ok_or_else(|| MailError::NoPassword { user: user.clone() })?;
            builder =
                builder.credentials(Credentials::new(user.clone(), password.expose().to_owned()));
        }
        Ok(builder.build())
    }

    /// The relay to the server and the transport through it, for one pass.
    async fn connect(
        &self,
        password: Option<&SmtpPassword>,
    ) -> Result<(Relay, AsyncSmtpTransport<Tokio1Executor>), MailError> {
        self.check()?;
        let relay = Relay::start(&self.host, self.port, self.timeout)
            .await
            .map_err(|e| MailError::Relay {
                reason: e.to_string(),
            })?;
        let transport = self.transport(password, &relay)?;
        Ok((relay, transport))
    }

    /// The TLS parameters: the platform's verifier, with the CA file's certificates added.
    fn tls_parameters(&self) -> Result<TlsParameters, MailError> {
        let host = self.host.trim_start_matches('[').trim_end_matches(']');
        let mut builder = TlsParameters::builder(host.to_owned());
        if let Some(path) = &self.ca_file {
            builder = builder.add_root_certificate(read_ca_file(path)?);
        }
        builder.build_rustls().map_err(|e| MailError::Tls {
            reason: e.to_string(),
        })
    }
}

/// Whether `host` names this computer: `localhost` or a loopback address.
pub fn is_loopback(host: &str) -> bool {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The certificates of a PEM file, at least one.
fn read_ca_file(path: &Path) -> Result<Certificate, MailError> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    use std::io::Read;
    let failed = |reason: String| MailError::CaFile {
        path: path.to_path_buf(),
        reason,
    };
    let mut pem = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(CA_FILE_LIMIT).read_to_end(&mut pem))
        .map_err(|e| failed(e.to_string()))?;
    let count = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| failed(e.to_string()))?
        .len();
    if count == 0 {
        return Err(failed("no PEM certificate in it".to_owned()));
    }
    Certificate::from_pem(&pem).map_err(|e| failed(e.to_string()))
}

/// Why a sending pass did not run (a message that fails is not an error of the pass: it stays
/// queued with its reason, see [`SendReport::failed`]).
#[derive(Debug, thiserror::Error)]
#[error("{}", self.message(Lang::En))]
pub enum MailError {
    /// No host.
    NoHost,
    /// Plain SMTP to another computer.
    PlainNotLoopback {
        /// The host asked for.
        host: String,
    },
    /// A user without a password.
    NoPassword {
        /// The user.
        user: String,
    },
    /// The CA file cannot be read or holds no certificate.
    CaFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The TLS configuration could not be built.
    Tls {
        /// Why.
        reason: String,
    },
    /// The keyring refused the password.
    Keyring(String),
    /// The loopback relay to the server could not listen.
    Relay {
        /// Why.
        reason: String,
    },
    /// The queue could not be read or written.
    Store(#[from] StoreError),
}

impl MailError {
    /// A sentence saying why, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            MailError::NoHost => MailMessage::NoHost.get(lang).to_owned(),
            MailError::PlainNotLoopback { host } => {
                MailMessage::PlainNotLoopback.fill(lang, &[("host", host)])
            }
            MailError::NoPassword { user } => MailMessage::NoPassword.fill(lang, &[("user", user)]),
            MailError::CaFile { path, reason } => {
                MailMessage::CaFile.fill(lang, &[("path", &path.display()), ("reason", reason)])
            }
            MailError::Tls { reason } => MailMessage::Tls.fill(lang, &[("reason", reason)]),
            MailError::Keyring(reason) => MailMessage::Keyring.fill(lang, &[("reason", reason)]),
            MailError::Relay { reason } => MailMessage::Relay.fill(lang, &[("reason", reason)]),
            MailError::Store(e) => MailMessage::Store.fill(lang, &[("reason", e)]),
        }
    }
}

/// What one sending pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendReport {
    /// The messages the server accepted (queue ids).
    pub sent: Vec<i64>,
    /// The messages that stay queued: id, why, when they are due again.
    pub failed: Vec<(i64, String, chrono::DateTime<chrono::Utc>)>,
    /// The messages the server refused for good (a 5xx): id and the server's words; kept,
    /// never tried again.
    pub refused: Vec<(i64, String)>,
    /// How many sent messages had their whole address replaced by its mask.
    pub wiped: usize,
}

/// One sending pass over the queue (see the module's doc). Refused as a whole only for
/// settings paydesk never uses ([`SmtpSettings::check`]), an unreadable CA file or a queue that
/// cannot be read; each message's own failure is recorded in the queue and in the report.
pub async fn send_queued(
    store: &std::sync::Mutex<Store>,
    clock: &dyn Clock,
    settings: &SmtpSettings,
    password: Option<&SmtpPassword>,
) -> Result<SendReport, MailError> {
    use crate::store::with_locked;
    let (relay, transport) = settings.connect(password).await?;
    // The file is locked for each step only, never across the SMTP dialogue.
    let mut report = SendReport {
        wiped: with_locked(store, |s| s.mail_wipe_sent(clock.now()))?,
        ..SendReport::default()
    };
    for mail in with_locked(store, |s| s.mail_queue().due(clock.now()))? {
        let now = clock.now();
        if !with_locked(store, |s| s.mail_claim(mail.id, now, now + CLAIM))? {
            continue;
        }
        let parts = with_locked(store, |s| s.mail_queue().parts(mail.id))?;
        // The error, and whether the server refused for good (a 5xx reply).
        let outcome = match build(&mail, &parts, settings, now) {
            Ok(message) => send_bounded(&transport, &relay, settings, message)
                .await
                .map_err(|f| (f.words, f.permanent)),
            Err(e) => Err((crate::domain::server_text::clean(&e).into_owned(), true)),
        };
        match outcome {
            Ok(()) => {
                with_locked(store, |s| s.mail_mark_sent(mail.id, clock.now()))?;
                report.sent.push(mail.id);
            }
            // A server's words, cleaned: no control or bidi characters reach the report or a log.
            Err((why, permanent)) => {
                tracing::info!(
                    id = mail.id,
                    attempts = mail.attempts + 1,
                    permanent,
                    "mail not sent: {}",
                    crate::domain::server_text::excerpt(&why)
                );
                if permanent {
                    if with_locked(store, |s| s.mail_mark_refused(mail.id, &why, clock.now()))? {
                        report.refused.push((mail.id, why));
                    }
                } else if let Some(next) =
                    with_locked(store, |s| s.mail_mark_failed(mail.id, &why, clock.now()))?
                {
                    report.failed.push((mail.id, why, next));
                }
            }
        }
    }
    Ok(report)
}

/// How a test message ended (`paydesk mail test`).
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    /// The settings were refused before anything was sent.
    #[error(transparent)]
    Setup(#[from] MailError),
    /// The server refused the message (its words).
    #[error("the mail server refused the message: {0}")]
    Refused(String),
    /// No answer: no connection, a timeout, a TLS failure, a dropped connection.
    #[error("the mail server did not answer: {0}")]
    NoAnswer(String),
}

/// Sends one test message to `to` now, outside the queue: the settings' whole path (TLS,
/// login, sender) tried once.
pub async fn send_test(
    settings: &SmtpSettings,
    password: Option<&SmtpPassword>,
    to: &EmailAddress,
    subject: &str,
    text: &str,
) -> Result<(), TestError> {
    let (relay, transport) = settings.connect(password).await?;
    let parse = |a: &EmailAddress| -> Result<Address, TestError> {
        a.as_str()
            .parse()
            .map_err(|e: lettre::address::AddressError| TestError::Refused(e.to_string()))
    };
    let name = Some(settings.from_name.clone()).filter(|n| !n.is_empty());
    let message = Message::builder()
        .from(Mailbox::new(name, parse(&settings.from)?))
        .to(Mailbox::new(None, parse(to)?))
        .subject(subject)
        .body(text.to_owned())
        .map_err(|e| TestError::Refused(e.to_string()))?;
    match send_bounded(&transport, &relay, settings, message).await {
        Ok(()) => Ok(()),
        Err(Failed {
            words,
            replied: true,
            ..
        }) => Err(TestError::Refused(words)),
        Err(Failed { words, .. }) => Err(TestError::NoAnswer(words)),
    }
}

/// Why one message was not sent: the words (cleaned of control and bidi characters), whether
/// the server refused for good (a 5xx), and whether it replied at all (a 4xx or 5xx).
struct Failed {
    words: String,
    permanent: bool,
    replied: bool,
}

/// Sends `message` through `transport` within `settings.deadline`; a connection the relay cut
/// (the reply cap, the server not reached) or the deadline is said as such.
async fn send_bounded(
    transport: &AsyncSmtpTransport<Tokio1Executor>,
    relay: &Relay,
    settings: &SmtpSettings,
    message: Message,
) -> Result<(), Failed> {
    relay.take_cut();
    let clean = |w: &str| crate::domain::server_text::clean(w).into_owned();
    match tokio::time::timeout(settings.deadline, transport.send(message)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(Failed {
            words: clean(&relay.take_cut().unwrap_or_else(|| e.to_string())),
            permanent: e.is_permanent(),
            replied: e.is_permanent() || e.is_transient(),
        }),
        Err(_) => Err(Failed {
            words: format!(
                "the mail server did not finish within {} s",
                settings.deadline.as_secs()
            ),
            permanent: false,
            replied: false,
        }),
    }
}

/// The message as it goes on the wire: its fixed `Message-ID`, `From` with the shop's name,
/// `To`, `Subject`, `Date` (the pass's now) and a `multipart/alternative` of the plain text and
/// the HTML; with inline parts (a `Content-ID` the HTML names as `cid:`), that alternative in a
/// `multipart/related` with them; with attachments, all of it in a `multipart/mixed` with them.
fn build(
    mail: &QueuedMail,
    parts: &[MailPart],
    settings: &SmtpSettings,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Message, String> {
    let from: Address = settings
        .from
        .as_str()
        .parse()
        .map_err(|e| format!("from address: {e}"))?;
    let to: Address = mail
        .to_address
        .parse()
        .map_err(|e| format!("to address: {e}"))?;
    let name = Some(settings.from_name.clone()).filter(|n| !n.is_empty());
    Message::builder()
        .message_id(Some(mail.message_id.clone()))
        .from(Mailbox::new(name, from))
        .to(Mailbox::new(None, to))
        .subject(mail.subject.clone())
        .date(now.into())
        .multipart(body(mail, parts)?)
        .map_err(|e| e.to_string())
}

/// The body of `mail` with its `parts` (see [`build`]).
fn body(mail: &QueuedMail, parts: &[MailPart]) -> Result<MultiPart, String> {
    let content_type = |p: &MailPart| {
        ContentType::parse(&p.content_type).map_err(|e| format!("{}: {e}", p.content_type))
    };
    let mut body =
        MultiPart::alternative_plain_html(mail.text_body.clone(), mail.html_body.clone());
    let (inline, attached): (Vec<&MailPart>, Vec<&MailPart>) =
        parts.iter().partition(|p| p.content_id.is_some());
    if !inline.is_empty() {
        let mut related = MultiPart::related().multipart(body);
        for p in inline {
            let cid = p.content_id.clone().unwrap_or_default();
            related = related.singlepart(
                Attachment::new_inline_with_name(cid, p.name.clone())
                    .body(p.bytes.clone(), content_type(p)?),
            );
        }
        body = related;
    }
    if !attached.is_empty() {
        let mut mixed = MultiPart::mixed().multipart(body);
        for p in attached {
            mixed = mixed.singlepart(
                Attachment::new(p.name.clone()).body(p.bytes.clone(), content_type(p)?),
            );
        }
        body = mixed;
    }
    Ok(body)
}

impl fmt::Display for Security {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Security::StartTls => "STARTTLS",
            Security::Tls => "TLS",
            Security::None => "none",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(host: &str, security: Security) -> SmtpSettings {
        let from = EmailAddress::parse("kasa@kuzey.example").expect("address");
        SmtpSettings::new(host, security, from, "Kuzey Giyim")
    }

    #[test]
    fn plain_smtp_is_refused_off_this_computer_saying_so() {
        for host in [
            "localhost",
            "LOCALHOST",
            "127.0.0.1",
            "127.0.0.53",
            "::1",
            "[::1]",
        ] {
            assert!(settings(host, Security::None).check().is_ok(), "{host}");
        }
        for host in [
            "mail.example.com",
            "192.168.1.10",
            "10.0.0.1",
            "::2",
            "localhost.example",
        ] {
            let e = settings(host, Security::None).check().expect_err(host);
            assert!(matches!(e, MailError::PlainNotLoopback { .. }), "{host}");
            assert!(
                e.message(Lang::En).contains(host),
                "{}",
                e.message(Lang::En)
            );
            assert!(e.message(Lang::En).contains("127.0.0.1, ::1, localhost"));
            assert!(e.message(Lang::Tr).contains("Şifresiz SMTP"));
        }
        assert!(
            settings("mail.example.com", Security::StartTls)
                .check()
                .is_ok()
        );
        assert!(matches!(
            settings("  ", Security::Tls).check(),
            Err(MailError::NoHost)
        ));
    }

    #[test]
    fn the_password_never_shows_in_debug() {
        let p = SmtpPassword::new(Zeroizing::new("hunter2-smtp".to_owned()));
        let debug = format!("{p:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains("redacted"), "{debug}");
    }

    #[tokio::test]
    async fn a_user_without_password_and_a_ca_file_without_certificates_are_refused() {
        let mut s = settings("mail.example.com", Security::StartTls);
        s.user = Some("kasa".into());
        assert!(matches!(
            s.connect(None).await,
            Err(MailError::NoPassword { user }) if user == "kasa"
        ));
        let dir = tempfile::tempdir().expect("dir");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").expect("write");
        s.ca_file = Some(empty);
        let e = s
            .connect(Some(&SmtpPassword::new(Zeroizing::new("pw".into()))))
            .await
            .expect_err("no certificate");
        assert!(matches!(e, MailError::CaFile { .. }), "{e:?}");
        assert!(e.message(Lang::Tr).contains("CA dosyası"));
    }
}
