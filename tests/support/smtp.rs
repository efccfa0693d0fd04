//! A real SMTP server for the mail tests: Debian's `python3-aiosmtpd` on a loopback port with
//! the handler `tests/fixtures/smtp/paydesk_smtp_sink.py`, which writes each accepted message
//! to a folder (decoded by Python's `email` package) before it answers 250, or cuts the first
//! connection after its data (`SinkMode::DropFirst`). With a certificate and key it speaks TLS
//! from the first byte (SMTPS).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::ports::free_port;

/// What the server does with a message's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkMode {
    /// Accept every message (250).
    Accept,
    /// Cut the first message's connection after its data, before any answer; accept the rest.
    DropFirst,
    /// Refuse every message's data for good (550).
    Refuse,
}

/// One message the server accepted, as Python's `email` package read it.
#[derive(Debug, Clone, Deserialize)]
pub struct Received {
    /// The envelope's recipients.
    pub rcpt: Vec<String>,
    /// `Message-ID`.
    pub message_id: String,
    /// `Subject`, decoded.
    pub subject: String,
    /// `From`, decoded.
    pub from: String,
    /// `To`, decoded.
    pub to: String,
    /// The top-level content type.
    pub content_type: String,
    /// Each leaf part: its content type and decoded text.
    pub parts: Vec<Part>,
    /// The data as received.
    pub raw: String,
}

/// One leaf part of a received message.
#[derive(Debug, Clone, Deserialize)]
pub struct Part {
    /// `text/plain`, `text/html` …
    #[serde(rename = "type")]
    pub content_type: String,
    /// The decoded text, line ends as `\n`; a part that is not text: its bytes in hex.
    pub content: String,
    /// Its `Content-ID` (`<…>`), for an inline part.
    #[serde(default)]
    pub content_id: Option<String>,
    /// Its file name, for an attachment or a named inline part.
    #[serde(default)]
    pub filename: Option<String>,
}

impl Part {
    /// The bytes of a part that is not text (hex in the sink's record).
    pub fn bytes(&self) -> Vec<u8> {
        hex::decode(&self.content).expect("a non-text part's hex")
    }
}

/// A running aiosmtpd, killed on drop.
#[derive(Debug)]
pub struct SmtpSink {
    child: Child,
    /// Its loopback port.
    pub port: u16,
    dir: tempfile::TempDir,
}

/// A Python that imports `aiosmtpd` (Debian's `/usr/bin/python3` first: a `pyenv` shim on
/// `PATH` may be another Python without Debian's packages); `None` when there is none.
pub fn python_with_aiosmtpd() -> Option<PathBuf> {
    ["/usr/bin/python3", "python3"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| {
            Command::new(p)
                .args(["-c", "import aiosmtpd"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
}

impl SmtpSink {
    /// A server on a free port.
    pub fn start(mode: SinkMode) -> SmtpSink {
        SmtpSink::start_on(free_port(), mode, None)
    }

    /// A server on `port`; with `tls` (certificate and key PEM files), SMTPS.
    pub fn start_on(port: u16, mode: SinkMode, tls: Option<(&Path, &Path)>) -> SmtpSink {
        let args: Vec<std::ffi::OsString> = match tls {
            Some((cert, key)) => vec![
                "--smtpscert".into(),
                cert.into(),
                "--smtpskey".into(),
                key.into(),
            ],
            None => Vec::new(),
        };
        Self::start_with(port, mode, &args)
    }

    /// A server on `port` that takes plain connections and offers STARTTLS with `cert` and
    /// `key`, refusing any mail before the client has started TLS (aiosmtpd's
    /// `require_starttls`).
    pub fn start_starttls(port: u16, cert: &Path, key: &Path) -> SmtpSink {
        let args: [std::ffi::OsString; 4] = [
            "--tlscert".into(),
            cert.into(),
            "--tlskey".into(),
            key.into(),
        ];
        Self::start_with(port, SinkMode::Accept, &args)
    }

    fn start_with(port: u16, mode: SinkMode, tls_args: &[std::ffi::OsString]) -> SmtpSink {
        let python = python_with_aiosmtpd()
            .expect("python3 with aiosmtpd (Debian: apt-get install python3-aiosmtpd)");
        let dir = tempfile::tempdir().expect("a folder for the messages");
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/smtp");
        let log = std::fs::File::create(dir.path().join("server.log")).expect("server.log");
        let mut cmd = Command::new(python);
        cmd.args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "paydesk_smtp_sink.Sink"]);
        cmd.args(tls_args);
        cmd.arg(dir.path()).arg(match mode {
            SinkMode::Accept => "accept",
            SinkMode::DropFirst => "drop-first",
            SinkMode::Refuse => "refuse",
        });
        let child = cmd
            .env("PYTHONPATH", &fixtures)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("aiosmtpd starts");
        let mut sink = SmtpSink { child, port, dir };
        sink.wait_listening();
        sink
    }

    /// Waits until the port accepts connections (at most 20 s), failing with the server's log
    /// if it exits first.
    fn wait_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("the server's status") {
                panic!("aiosmtpd exited ({status}):\n{}", self.log());
            }
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "aiosmtpd does not listen on {}:\n{}",
                self.port,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's own log (its standard error).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// The messages accepted so far, in the order they arrived.
    pub fn received(&self) -> Vec<Received> {
        let mut out = Vec::new();
        for n in 1.. {
            let path = self.dir.path().join(format!("{n}.json"));
            let Ok(text) = std::fs::read_to_string(&path) else {
                break;
            };
            out.push(serde_json::from_str(&text).expect("the sink's JSON"));
        }
        out
    }

    /// The data of the message whose connection was cut (`SinkMode::DropFirst`).
    pub fn dropped(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join("dropped.eml")).ok()
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
