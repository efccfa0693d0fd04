//! Hands an address to the desktop's own opener: `xdg-open` on Linux and the BSDs, `open` on
//! macOS, `explorer` on Windows. The e-mail share's `mailto:` goes this way, so the desktop's
//! mail program (or the browser's web mail) takes it; eframe's own `open_url` is built
//! without its `links` feature and would only log a warning.
//!
//! Only `https:`, `http:` and `mailto:` addresses are handed over (a `file:` or a program's own
//! scheme never is), as one argument, never through a shell. The opener runs without any
//! `PAYDESK_*` variable in its environment: a browser or a mail program has no business
//! seeing the API secret, a PIN or a password. This runs on the worker's blocking pool,
//! never the UI thread.

use std::ffi::OsString;
use std::process::{Command, Stdio};

/// Why an address was not opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Not an address a desktop program should be handed.
    #[error("only https, http and mailto addresses are opened, not `{scheme}:`")]
    Scheme {
        /// The scheme given.
        scheme: String,
    },
    /// The opener could not be started (not installed).
    #[error("{program} could not run: {source}")]
    Missing {
        /// The program.
        program: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The opener ran and said it could not open the address (no program for it).
    #[error("{program} could not open the address (exit {code})")]
    Refused {
        /// The program.
        program: String,
        /// Its exit code (`-1`: ended by a signal).
        code: i32,
    },
}

/// The desktop's URL opener; tests put a fake program in its place.
#[derive(Debug, Clone)]
pub struct Opener {
    /// The program, given the address as its one argument.
    pub program: OsString,
}

impl Default for Opener {
    fn default() -> Self {
        let program = if cfg!(target_os = "macos") {
            "open"
        } else if cfg!(windows) {
            "explorer"
        } else {
            "xdg-open"
        };
        Self {
            program: program.into(),
        }
    }
}

impl Opener {
    /// The command that opens `url`, without any `PAYDESK_*` variable in its environment.
    pub fn command(&self, url: &str) -> Result<Command, OpenError> {
        let scheme = url.split_once(':').map_or(url, |(s, _)| s);
        if !["https", "http", "mailto"]
            .iter()
            .any(|s| s.eq_ignore_ascii_case(scheme))
        {
            return Err(OpenError::Scheme {
                scheme: scheme.chars().take(20).collect(),
            });
        }
        let mut command = Command::new(&self.program);
        command
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("PAYDESK_") {
                command.env_remove(name);
            }
        }
        for name in crate::secrets::CHILD_FREE {
            command.env_remove(name);
        }
        Ok(command)
    }

    /// Opens `url` and waits for the opener to hand it over (xdg-open returns once the
    /// program that takes it has started).
    pub fn open(&self, url: &str) -> Result<(), OpenError> {
        let program = self.program.to_string_lossy().into_owned();
        let status = self
            .command(url)?
            .status()
            .map_err(|source| OpenError::Missing {
                program: program.clone(),
                source,
            })?;
        if status.success() {
            Ok(())
        } else {
            Err(OpenError::Refused {
                program,
                code: status.code().unwrap_or(-1),
            })
        }
    }
}

/// A fake opener for tests (this module's and the app's): a script in `dir` that writes
/// its arguments, one a line, then its environment's `PAYDESK_` names, to the file it
/// returns, and exits with `code`.
#[cfg(test)]
#[cfg(unix)]
pub(crate) fn fake(dir: &std::path::Path, code: i32) -> (Opener, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt as _;
    let out = dir.join("opened.txt");
    let script = dir.join("xdg-open");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '{out}'\n\
             env | grep '^PAYDESK_' >> '{out}'\nexit {code}\n",
            out = out.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (
        Opener {
            program: script.into_os_string(),
        },
        out,
    )
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[test]
    fn a_mailto_address_reaches_the_opener_whole_as_one_argument() {
        let dir = tempfile::tempdir().unwrap();
        let (opener, out) = fake(dir.path(), 0);
        let url =
            "mailto:?subject=%C3%96deme%20linki&body=https%3A%2F%2Fpay.example%2Fl%3Fa%3D1%26b%3D2";
        opener.open(url).unwrap();
        assert_eq!(std::fs::read_to_string(out).unwrap(), format!("{url}\n"));
    }

    #[test]
    fn the_opener_gets_no_secret_variable() {
        let opener = Opener::default();
        let command = opener.command("https://wa.me/905321234567").unwrap();
        let removed: Vec<_> = command
            .get_envs()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        for secret in crate::secrets::CHILD_FREE {
            assert!(removed.iter().any(|r| r == secret), "{secret} is inherited");
        }
    }

    #[test]
    fn other_schemes_are_never_handed_over_and_a_refusal_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let (opener, out) = fake(dir.path(), 3);
        for url in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "ssh://host",
            "no scheme",
        ] {
            assert!(
                matches!(opener.open(url), Err(OpenError::Scheme { .. })),
                "{url}"
            );
        }
        assert!(!out.exists(), "nothing ran");
        let refused = opener.open("https://example.com/").unwrap_err();
        assert!(
            matches!(refused, OpenError::Refused { code: 3, .. }),
            "{refused}"
        );
        let missing = Opener {
            program: dir.path().join("none").into_os_string(),
        };
        assert!(matches!(
            missing.open("https://example.com/"),
            Err(OpenError::Missing { .. })
        ));
    }
}
