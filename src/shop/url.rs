//! The shop's address: a `postgres://` (or `postgresql://`) URL read into a [`ShopUrl`], the
//! only way paydesk connects to a shop (docs/design.md §8).
//!
//! ```text
//! postgres://USER@HOST[:PORT]/DBNAME?sslmode=verify-full&sslrootcert=/path/ca.pem
//! postgres://USER@/DBNAME?host=/run/postgresql[&port=5433]
//! ```
//!
//! - A password in the URL (`user:pw@`, or `password=`) is refused: the password lives in the
//!   keyring (or `PAYDESK_SHOP_PASSWORD`), never in the data file, a log or the command line.
//! - `sslmode`: `disable`, `prefer`, `require`, `verify-ca`, `verify-full`. tokio-postgres
//!   itself reads only the first three; paydesk reads the verifying modes and `sslrootcert`
//!   (a PEM file of the CA) and checks the server's chain (`verify-ca`), and its host name too
//!   (`verify-full`). `require` encrypts but does not check who answers.
//! - A connection that may end up plain (`disable`, `prefer`) is accepted to this machine
//!   (loopback, a Unix socket) or with an explicit `sslmode=disable`, which
//!   [`ShopUrl::plain_off_machine`] flags for Settings to show as a warning.
//! - No `sslmode`: `disable` on a Unix socket, `prefer` to loopback, else `verify-full`.
//! - `channel_binding` (`require`, `prefer`, `disable`): whether the password exchange must be
//!   SCRAM bound to the TLS channel, so that a server that answers in the real one's place
//!   (with some other certificate) can learn nothing and pass for nothing. `require` by
//!   default whenever the connection is certain to be TLS (`require`, `verify-ca`,
//!   `verify-full`): a server that asks for the password in plain text, as an MD5 hash or by
//!   SCRAM without binding is refused before anything of the password is sent. A connection
//!   that may be plain (`disable`, `prefer`: this machine only) cannot bind, so it defaults to
//!   `prefer`, and `channel_binding=require` there is refused as a contradiction.
//! - [`ShopUrl::weaknesses`] names what a URL gives up (`require`'s unchecked server,
//!   `verify-ca`'s unchecked name, no channel binding, plain to another machine): Settings and
//!   `shop status` show each as a warning.
//! - Unknown parameters are refused, not ignored: a typo in `sslmode` must not weaken TLS.

use crate::domain::wire_format::percent_encode;
use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;

/// PostgreSQL's port when the URL names none.
pub const DEFAULT_PORT: u16 = 5432;

/// Where the shop's PostgreSQL listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShopHost {
    /// A host name or IP address (IPv6 without brackets).
    Tcp(String),
    /// The folder of a Unix socket (`host=/run/postgresql`).
    Unix(PathBuf),
}

/// How the connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Plain: no TLS.
    Disable,
    /// TLS when the server offers it, unverified; plain otherwise (this machine only).
    Prefer,
    /// TLS, without checking the server's certificate: encrypted, but anyone on the way could
    /// answer in the server's place.
    Require,
    /// TLS, the server's certificate chain checked against `sslrootcert`, not its name.
    VerifyCa,
    /// TLS, the chain checked against `sslrootcert` and the certificate's name against the
    /// host.
    VerifyFull,
}

impl SslMode {
    /// The mode as written in a URL.
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn parse(value: &str) -> Result<SslMode, UrlError> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => return Err(UrlError::SslMode(other.to_owned())),
        })
    }

    /// Whether the server's certificate is checked against a root.
    pub fn verifies(self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }

    /// Whether every connection in this mode is TLS (so that it can be bound to its channel).
    pub fn always_tls(self) -> bool {
        matches!(
            self,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull
        )
    }
}

/// Whether the password exchange must be bound to the TLS channel (SCRAM-SHA-256-PLUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelBinding {
    /// Only SCRAM bound to the channel: any other way of asking for the password is refused.
    Require,
    /// Bound when the server offers it; any password method otherwise.
    Prefer,
    /// Never bound; any password method.
    Disable,
}

impl ChannelBinding {
    /// The value as written in a URL.
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelBinding::Require => "require",
            ChannelBinding::Prefer => "prefer",
            ChannelBinding::Disable => "disable",
        }
    }

    fn parse(value: &str) -> Result<ChannelBinding, UrlError> {
        Ok(match value {
            "require" => ChannelBinding::Require,
            "prefer" => ChannelBinding::Prefer,
            "disable" => ChannelBinding::Disable,
            other => return Err(UrlError::ChannelBinding(other.to_owned())),
        })
    }

    /// What a URL that names none gets: `require` where the connection is always TLS, else
    /// `prefer` (a plain connection has no channel to bind to).
    pub fn default_for(sslmode: SslMode) -> ChannelBinding {
        if sslmode.always_tls() {
            ChannelBinding::Require
        } else {
            ChannelBinding::Prefer
        }
    }
}

/// What a shop URL that passed every rule still gives up; each is shown as a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weakness {
    /// `sslmode=disable` to another machine: the password and every row cross readable.
    PlainOffMachine,
    /// `sslmode=require`: encrypted, but whoever answers is not checked.
    ServerUnchecked,
    /// `sslmode=verify-ca`: any certificate of the CA passes, whatever host it names.
    NameUnchecked,
    /// TLS without `channel_binding=require`: a server may ask for the password in plain
    /// text or as MD5, and a server in the middle is not caught by the password exchange.
    NoChannelBinding,
}

/// Why a shop URL was refused. Each names the part of the URL at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Not a URL at all.
    #[error("the shop URL cannot be read: {0}")]
    Unreadable(String),
    /// Another scheme than `postgres` / `postgresql`.
    #[error("the shop URL must start with postgres:// (it starts with {0}://)")]
    Scheme(String),
    /// The URL holds a password (named: `user:password@` or `password=`).
    #[error("the shop URL holds a password ({0}); leave it out: paydesk asks for it")]
    Password(&'static str),
    /// Neither a host nor `host=` names the server.
    #[error("the shop URL names no host")]
    NoHost,
    /// No user name before `@`.
    #[error("the shop URL names no user (postgres://USER@HOST/DATABASE)")]
    NoUser,
    /// A port that is not a number from 1 to 65535.
    #[error("the shop URL's port `{0}` is not a number from 1 to 65535")]
    Port(String),
    /// Several hosts (`a,b`): paydesk connects to one.
    #[error("the shop URL names several hosts; give one")]
    SeveralHosts,
    /// `host=` that is not an absolute folder.
    #[error("host=`{0}` must be the absolute folder of a Unix socket")]
    SocketFolder(String),
    /// A parameter paydesk does not read.
    #[error(
        "the shop URL's parameter `{0}` is not one paydesk reads (host, port, sslmode, sslrootcert, channel_binding)"
    )]
    Parameter(String),
    /// A parameter given twice.
    #[error("the shop URL gives `{0}` twice")]
    Twice(String),
    /// An unknown `sslmode`.
    #[error("sslmode=`{0}` is not one of disable, prefer, require, verify-ca, verify-full")]
    SslMode(String),
    /// An unknown `channel_binding`.
    #[error("channel_binding=`{0}` is not one of require, prefer, disable")]
    ChannelBinding(String),
    /// `channel_binding=require` with a mode that may connect without TLS.
    #[error(
        "channel_binding=require needs a connection that is always TLS (sslmode=verify-full, verify-ca or require), not sslmode={0}"
    )]
    BindingWithoutTls(&'static str),
    /// `verify-ca` / `verify-full` without `sslrootcert`.
    #[error("sslmode={0} needs sslrootcert=FILE, the CA certificate that signed the server's")]
    RootCertNeeded(&'static str),
    /// `sslrootcert` with a mode that does not verify.
    #[error("sslrootcert is read only with sslmode=verify-ca or verify-full (not {0})")]
    RootCertUnused(&'static str),
    /// A mode that may end up plain, to another machine, without an explicit `disable`.
    #[error(
        "sslmode={mode} to {host} could send the password in plain text; use verify-full, or sslmode=disable to accept a plain connection"
    )]
    PlainOffMachine {
        /// The mode.
        mode: &'static str,
        /// The host.
        host: String,
    },
}

/// A shop URL that passed every rule above. It holds no password, so `Debug` and `Display`
/// show it whole; `Display` writes the canonical URL paydesk stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopUrl {
    host: ShopHost,
    port: u16,
    user: String,
    dbname: String,
    sslmode: SslMode,
    sslrootcert: Option<PathBuf>,
    channel_binding: ChannelBinding,
}

impl std::str::FromStr for ShopUrl {
    type Err = UrlError;

    fn from_str(s: &str) -> Result<ShopUrl, UrlError> {
        ShopUrl::parse(s)
    }
}

impl ShopUrl {
    /// Reads and checks a shop URL.
    pub fn parse(text: &str) -> Result<ShopUrl, UrlError> {
        let text = text.trim();
        // libpq's `postgres://user@/db?host=/socket` has an empty host, which the `url` crate
        // refuses: a reserved name stands in for it while parsing.
        let (text, empty_host) = fill_empty_host(text);
        let url = url::Url::parse(&text).map_err(|e| UrlError::Unreadable(e.to_string()))?;
        if !matches!(url.scheme(), "postgres" | "postgresql") {
            return Err(UrlError::Scheme(url.scheme().to_owned()));
        }
        // `user:@host` is an empty password, which the `url` crate drops without a word.
        let user_info = authority(&text).and_then(|a| a.rfind('@').map(|at| &a[..at]));
        if url.password().is_some() || user_info.is_some_and(|u| u.contains(':')) {
            return Err(UrlError::Password("user:password@"));
        }
        let mut host_param = None;
        let mut port_param = None;
        let mut sslmode = None;
        let mut sslrootcert = None;
        let mut channel_binding = None;
        for (key, value) in url.query_pairs() {
            let slot = match key.as_ref() {
                "password" => return Err(UrlError::Password("password=")),
                "host" => &mut host_param,
                "port" => &mut port_param,
                "sslmode" => &mut sslmode,
                "sslrootcert" => &mut sslrootcert,
                "channel_binding" => &mut channel_binding,
                other => return Err(UrlError::Parameter(other.to_owned())),
            };
            if slot.replace(value.into_owned()).is_some() {
                return Err(UrlError::Twice(key.into_owned()));
            }
        }
        let url_host = url
            .host_str()
            .filter(|h| !h.is_empty() && !empty_host)
            .map(|h| decode(h.trim_start_matches('[').trim_end_matches(']')));
        let host = match (host_param, url_host) {
            (Some(_), Some(_)) => return Err(UrlError::Twice("host".to_owned())),
            (Some(p), None) if p.starts_with('/') => ShopHost::Unix(PathBuf::from(p)),
            (Some(p), None) if p.contains(',') => return Err(UrlError::SeveralHosts),
            (Some(p), None) if p.contains('/') || p.is_empty() => {
                return Err(UrlError::SocketFolder(p));
            }
            (Some(p), None) => ShopHost::Tcp(p),
            (None, Some(h)) if h.contains(',') => return Err(UrlError::SeveralHosts),
            (None, Some(h)) => ShopHost::Tcp(h),
            (None, None) => return Err(UrlError::NoHost),
        };
        let port = match (port_param, url.port()) {
            (Some(_), Some(_)) => return Err(UrlError::Twice("port".to_owned())),
            (Some(p), None) => match p.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(UrlError::Port(p)),
            },
            (None, Some(0)) => return Err(UrlError::Port("0".to_owned())),
            (None, Some(n)) => n,
            (None, None) => DEFAULT_PORT,
        };
        let user = decode(url.username());
        if user.is_empty() {
            return Err(UrlError::NoUser);
        }
        let path = decode(url.path().trim_start_matches('/'));
        let dbname = if path.is_empty() { user.clone() } else { path };
        let local = match &host {
            ShopHost::Unix(_) => true,
            ShopHost::Tcp(h) => is_loopback(h),
        };
        let sslmode = match sslmode {
            Some(m) => SslMode::parse(&m)?,
            None if matches!(host, ShopHost::Unix(_)) => SslMode::Disable,
            None if local => SslMode::Prefer,
            None => SslMode::VerifyFull,
        };
        if sslmode == SslMode::Prefer && !local {
            return Err(UrlError::PlainOffMachine {
                mode: sslmode.as_str(),
                host: host_text(&host),
            });
        }
        match (sslmode.verifies(), &sslrootcert) {
            (true, None) => return Err(UrlError::RootCertNeeded(sslmode.as_str())),
            (false, Some(_)) => return Err(UrlError::RootCertUnused(sslmode.as_str())),
            _ => {}
        }
        let channel_binding = match channel_binding {
            Some(b) => ChannelBinding::parse(&b)?,
            None => ChannelBinding::default_for(sslmode),
        };
        if channel_binding == ChannelBinding::Require && !sslmode.always_tls() {
            return Err(UrlError::BindingWithoutTls(sslmode.as_str()));
        }
        Ok(ShopUrl {
            host,
            port,
            user,
            dbname,
            sslmode,
            sslrootcert: sslrootcert.map(PathBuf::from),
            channel_binding,
        })
    }

    /// Where the server listens.
    pub fn host(&self) -> &ShopHost {
        &self.host
    }

    /// Its port (for a Unix socket, the number in the socket's file name).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The PostgreSQL role.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The database (the user's name when the URL gives none, as libpq does).
    pub fn dbname(&self) -> &str {
        &self.dbname
    }

    /// The TLS mode.
    pub fn sslmode(&self) -> SslMode {
        self.sslmode
    }

    /// The CA file the server's certificate is checked against (verifying modes only).
    pub fn sslrootcert(&self) -> Option<&std::path::Path> {
        self.sslrootcert.as_deref()
    }

    /// The same shop as another login (`add-desk` hands a desk the owner's URL with its own).
    #[must_use]
    pub fn with_user(&self, user: &str) -> ShopUrl {
        ShopUrl {
            user: user.to_owned(),
            ..self.clone()
        }
    }

    /// Whether the password exchange must be bound to the TLS channel.
    pub fn channel_binding(&self) -> ChannelBinding {
        self.channel_binding
    }

    /// What this URL gives up, worst first: each is shown as a warning (Settings, `shop
    /// status`, `shop join`). A URL to this machine gives up nothing by being plain or unbound.
    pub fn weaknesses(&self) -> Vec<Weakness> {
        let mut weak = Vec::new();
        if self.plain_off_machine() {
            weak.push(Weakness::PlainOffMachine);
        }
        if self.sslmode == SslMode::Require {
            weak.push(Weakness::ServerUnchecked);
        }
        if self.sslmode == SslMode::VerifyCa {
            weak.push(Weakness::NameUnchecked);
        }
        if self.sslmode.always_tls() && self.channel_binding != ChannelBinding::Require {
            weak.push(Weakness::NoChannelBinding);
        }
        weak
    }

    /// Whether the server is on this machine (loopback or a Unix socket).
    pub fn is_local(&self) -> bool {
        match &self.host {
            ShopHost::Unix(_) => true,
            ShopHost::Tcp(h) => is_loopback(h),
        }
    }

    /// A plain connection to another machine, accepted only because the URL says
    /// `sslmode=disable`: the password and every row cross the network readable. Settings shows
    /// it as a warning.
    pub fn plain_off_machine(&self) -> bool {
        self.sslmode == SslMode::Disable && !self.is_local()
    }

    /// The name of this shop's password in the keyring: `user@host:port/dbname`.
    pub fn keyring_name(&self) -> String {
        format!(
            "{}@{}:{}/{}",
            self.user,
            host_text(&self.host),
            self.port,
            self.dbname
        )
    }

    /// The host as a sentence names it.
    pub fn host_text(&self) -> String {
        host_text(&self.host)
    }
}

fn host_text(host: &ShopHost) -> String {
    match host {
        ShopHost::Tcp(h) => h.clone(),
        ShopHost::Unix(p) => p.display().to_string(),
    }
}

impl fmt::Display for ShopUrl {
    /// The canonical URL: every part spelled out (port, database, sslmode), so what is stored
    /// reads the same whatever the user typed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "postgres://{}@", percent_encode(&self.user))?;
        let mut query = Vec::new();
        match &self.host {
            ShopHost::Tcp(h) if h.contains(':') => write!(f, "[{h}]:{}", self.port)?,
            ShopHost::Tcp(h) => write!(f, "{}:{}", percent_encode(h), self.port)?,
            ShopHost::Unix(p) => {
                query.push(format!("host={}", percent_encode(&p.to_string_lossy())));
                query.push(format!("port={}", self.port));
            }
        }
        write!(f, "/{}", percent_encode(&self.dbname))?;
        query.push(format!("sslmode={}", self.sslmode.as_str()));
        if let Some(root) = &self.sslrootcert {
            query.push(format!(
                "sslrootcert={}",
                percent_encode(&root.to_string_lossy())
            ));
        }
        // Written only when it is not what the mode gives: a URL stored before this parameter
        // existed reads the same.
        if self.channel_binding != ChannelBinding::default_for(self.sslmode) {
            query.push(format!("channel_binding={}", self.channel_binding.as_str()));
        }
        write!(f, "?{}", query.join("&"))
    }
}

/// Stands in for an empty host while the `url` crate parses (`.invalid` is reserved: no real
/// host has this name).
const NO_HOST: &str = "no-host.invalid";

/// The authority of a URL (between `://` and the path, query or fragment).
fn authority(text: &str) -> Option<&str> {
    let rest = &text[text.find("://")? + 3..];
    Some(&rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())])
}

/// `text` with [`NO_HOST`] put where the authority has no host (`user@/db`, `user@:5433/db`,
/// `///db`), and whether it was.
fn fill_empty_host(text: &str) -> (String, bool) {
    let Some(scheme_end) = text.find("://") else {
        return (text.to_owned(), false);
    };
    let rest_at = scheme_end + 3;
    let rest = &text[rest_at..];
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_len];
    let host_at = authority.rfind('@').map_or(0, |at| at + 1);
    let host_port = &authority[host_at..];
    if !host_port.is_empty() && !host_port.starts_with(':') {
        return (text.to_owned(), false);
    }
    let at = rest_at + host_at;
    (format!("{}{NO_HOST}{}", &text[..at], &text[at..]), true)
}

/// `localhost` or a loopback address (127.0.0.0/8, `::1`); names are not resolved.
fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<IpAddr>()
            .is_ok_and(|ip: IpAddr| ip.is_loopback())
}

/// Percent-decoding of a URL part (user, database, host).
fn decode(part: &str) -> String {
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> ShopUrl {
        ShopUrl::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn err(text: &str) -> UrlError {
        ShopUrl::parse(text).expect_err(text)
    }

    #[test]
    fn a_full_url_is_read_part_by_part() {
        let u = ok(
            "postgresql://desk%20one@db.shop.example:6543/paydesk?sslmode=verify-full&sslrootcert=/etc/shop/ca.pem",
        );
        assert_eq!(u.host(), &ShopHost::Tcp("db.shop.example".to_owned()));
        assert_eq!(u.port(), 6543);
        assert_eq!(u.user(), "desk one");
        assert_eq!(u.dbname(), "paydesk");
        assert_eq!(u.sslmode(), SslMode::VerifyFull);
        assert_eq!(
            u.sslrootcert(),
            Some(std::path::Path::new("/etc/shop/ca.pem"))
        );
        assert!(!u.is_local());
        assert!(!u.plain_off_machine());
        assert_eq!(u.keyring_name(), "desk one@db.shop.example:6543/paydesk");
    }

    #[test]
    fn a_password_anywhere_is_refused_naming_where() {
        assert_eq!(
            err("postgres://desk:secret@db.example/shop"),
            UrlError::Password("user:password@")
        );
        // An empty password is still a password field.
        assert_eq!(
            err("postgres://desk:@localhost/shop"),
            UrlError::Password("user:password@")
        );
        assert_eq!(
            err("postgres://desk@localhost/shop?password=secret"),
            UrlError::Password("password=")
        );
        let e = err("postgres://desk:hunter2@db.example/shop");
        assert!(!e.to_string().contains("hunter2"), "{e}");
    }

    #[test]
    fn verifying_modes_need_a_root_and_other_modes_refuse_one() {
        assert_eq!(
            err("postgres://desk@db.example/shop?sslmode=verify-ca"),
            UrlError::RootCertNeeded("verify-ca")
        );
        // No sslmode off this machine is verify-full, which needs the root.
        assert_eq!(
            err("postgres://desk@db.example/shop"),
            UrlError::RootCertNeeded("verify-full")
        );
        assert_eq!(
            err("postgres://desk@db.example/shop?sslmode=require&sslrootcert=/ca.pem"),
            UrlError::RootCertUnused("require")
        );
        let u = ok("postgres://desk@db.example/shop?sslmode=verify-ca&sslrootcert=ca.pem");
        assert_eq!(u.sslmode(), SslMode::VerifyCa);
        assert_eq!(
            ok("postgres://desk@db.example/shop?sslmode=require").sslmode(),
            SslMode::Require
        );
    }

    #[test]
    fn plain_is_for_this_machine_unless_disable_is_explicit_and_then_flagged() {
        for local in [
            "postgres://desk@localhost/shop",
            "postgres://desk@127.0.0.1/shop",
            "postgres://desk@127.8.9.10:5433/shop",
            "postgres://desk@[::1]/shop",
        ] {
            let u = ok(local);
            assert_eq!(u.sslmode(), SslMode::Prefer, "{local}");
            assert!(u.is_local() && !u.plain_off_machine(), "{local}");
        }
        let socket = ok("postgres://desk@/shop?host=/run/postgresql&port=5433");
        assert_eq!(
            socket.host(),
            &ShopHost::Unix(PathBuf::from("/run/postgresql"))
        );
        assert_eq!(socket.port(), 5433);
        assert_eq!(socket.sslmode(), SslMode::Disable);
        assert!(!socket.plain_off_machine());
        assert_eq!(
            err("postgres://desk@db.example/shop?sslmode=prefer"),
            UrlError::PlainOffMachine {
                mode: "prefer",
                host: "db.example".to_owned()
            }
        );
        // A name that only resolves to loopback is not taken on trust.
        assert!(matches!(
            err("postgres://desk@localhost.example/shop?sslmode=prefer"),
            UrlError::PlainOffMachine { .. }
        ));
        let plain = ok("postgres://desk@10.0.0.5/shop?sslmode=disable");
        assert_eq!(plain.sslmode(), SslMode::Disable);
        assert!(plain.plain_off_machine());
    }

    #[test]
    fn wrong_shapes_are_refused_each_with_its_own_error() {
        assert!(matches!(err("not a url"), UrlError::Unreadable(_)));
        assert_eq!(
            err("mysql://desk@localhost/shop"),
            UrlError::Scheme("mysql".to_owned())
        );
        assert_eq!(err("postgres://localhost/shop"), UrlError::NoUser);
        assert_eq!(err("postgres://desk@/shop"), UrlError::NoHost);
        assert_eq!(
            err("postgres://desk@localhost/shop?sslmode=allow"),
            UrlError::SslMode("allow".to_owned())
        );
        assert_eq!(
            err("postgres://desk@localhost/shop?sslmode=verify_full"),
            UrlError::SslMode("verify_full".to_owned())
        );
        assert_eq!(
            err("postgres://desk@localhost/shop?sslmod=disable"),
            UrlError::Parameter("sslmod".to_owned())
        );
        assert_eq!(
            err("postgres://desk@localhost/shop?sslmode=disable&sslmode=require"),
            UrlError::Twice("sslmode".to_owned())
        );
        assert_eq!(
            err("postgres://desk@a,b/shop?sslmode=require"),
            UrlError::SeveralHosts
        );
        assert_eq!(
            err("postgres://desk@/shop?host=run/pg"),
            UrlError::SocketFolder("run/pg".to_owned())
        );
        assert_eq!(
            err("postgres://desk@/shop?host=/run/pg&port=70000"),
            UrlError::Port("70000".to_owned())
        );
        assert_eq!(
            err("postgres://desk@localhost:0/shop"),
            UrlError::Port("0".to_owned())
        );
    }

    #[test]
    fn the_database_defaults_to_the_user_and_the_canonical_url_reads_back_the_same() {
        let u = ok("postgres://desk@localhost");
        assert_eq!(u.dbname(), "desk");
        for text in [
            "postgres://desk@localhost",
            "postgresql://d%40sk@db.example:6000/my%20shop?sslmode=verify-full&sslrootcert=/etc/a%20b/ca.pem",
            "postgres://desk@/shop?host=/run/postgresql",
            "postgres://desk@[::1]:5999/shop?sslmode=disable",
            "postgres://desk@10.1.2.3/shop?sslmode=require",
            "postgres://desk@10.1.2.3/shop?sslmode=require&channel_binding=disable",
            "postgres://desk@localhost/shop?channel_binding=disable",
        ] {
            let u = ok(text);
            let canonical = u.to_string();
            assert_eq!(ok(&canonical), u, "{text} → {canonical}");
            assert!(canonical.contains("sslmode="), "{canonical}");
        }
        assert_eq!(
            ok("postgres://desk@localhost").to_string(),
            "postgres://desk@localhost:5432/desk?sslmode=prefer"
        );
    }

    #[test]
    fn channel_binding_is_required_wherever_the_connection_is_always_tls() {
        let root = "sslrootcert=/ca.pem";
        for (text, wanted) in [
            (
                format!("postgres://desk@db.example/shop?{root}"),
                ChannelBinding::Require,
            ),
            (
                format!("postgres://desk@db.example/shop?sslmode=verify-ca&{root}"),
                ChannelBinding::Require,
            ),
            (
                "postgres://desk@db.example/shop?sslmode=require".to_owned(),
                ChannelBinding::Require,
            ),
            // A connection that may be plain has no channel to bind to.
            (
                "postgres://desk@localhost/shop".to_owned(),
                ChannelBinding::Prefer,
            ),
            (
                "postgres://desk@/shop?host=/run/postgresql".to_owned(),
                ChannelBinding::Prefer,
            ),
            (
                "postgres://desk@10.0.0.5/shop?sslmode=disable".to_owned(),
                ChannelBinding::Prefer,
            ),
        ] {
            assert_eq!(ok(&text).channel_binding(), wanted, "{text}");
        }
        // The default is not written into the stored URL; a weaker choice is.
        let full = ok(&format!("postgres://desk@db.example/shop?{root}"));
        assert!(!full.to_string().contains("channel_binding"), "{full}");
        let loose = ok(&format!(
            "postgres://desk@db.example/shop?channel_binding=prefer&{root}"
        ));
        assert_eq!(loose.channel_binding(), ChannelBinding::Prefer);
        assert!(
            loose.to_string().ends_with("&channel_binding=prefer"),
            "{loose}"
        );
    }

    #[test]
    fn a_channel_binding_that_cannot_hold_or_is_misspelt_is_refused() {
        assert_eq!(
            err("postgres://desk@localhost/shop?channel_binding=require"),
            UrlError::BindingWithoutTls("prefer")
        );
        assert_eq!(
            err("postgres://desk@10.0.0.5/shop?sslmode=disable&channel_binding=require"),
            UrlError::BindingWithoutTls("disable")
        );
        assert_eq!(
            err("postgres://desk@db.example/shop?sslmode=require&channel_binding=requir"),
            UrlError::ChannelBinding("requir".to_owned())
        );
        assert_eq!(
            err(
                "postgres://desk@db.example/shop?sslmode=require&channel_binding=disable&channel_binding=require"
            ),
            UrlError::Twice("channel_binding".to_owned())
        );
    }

    #[test]
    fn each_weakness_of_a_url_is_named_and_a_strict_one_has_none() {
        let root = "sslrootcert=/ca.pem";
        let weak = |text: &str| ok(text).weaknesses();
        assert_eq!(weak(&format!("postgres://desk@db.example/shop?{root}")), []);
        assert_eq!(weak("postgres://desk@localhost/shop"), []);
        assert_eq!(weak("postgres://desk@/shop?host=/run/postgresql"), []);
        assert_eq!(
            weak("postgres://desk@db.example/shop?sslmode=require"),
            [Weakness::ServerUnchecked]
        );
        assert_eq!(
            weak(&format!(
                "postgres://desk@db.example/shop?sslmode=verify-ca&{root}"
            )),
            [Weakness::NameUnchecked]
        );
        assert_eq!(
            weak(&format!(
                "postgres://desk@db.example/shop?channel_binding=disable&{root}"
            )),
            [Weakness::NoChannelBinding]
        );
        assert_eq!(
            weak("postgres://desk@db.example/shop?sslmode=require&channel_binding=prefer"),
            [Weakness::ServerUnchecked, Weakness::NoChannelBinding]
        );
        assert_eq!(
            weak("postgres://desk@10.0.0.5/shop?sslmode=disable"),
            [Weakness::PlainOffMachine]
        );
    }
}
