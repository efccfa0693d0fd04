//! One server per state file. A sandbox started with a state file first takes an exclusive
//! OS lock on `FILE.lock` beside it (`File::try_lock`: `flock` on Unix), holds it for as long
//! as it serves and writes its port, its process id and a random instance name there. A second
//! start on the same state file (the CLI while the app serves, a second app,
//! `paydesk sandbox --state FILE`) finds the lock taken and refuses with
//! [`SandboxError::StateInUse`], naming the holder, without opening the state file: two
//! processes never keep diverging copies of one sandbox. The embedded sandbox's caller then
//! uses the holder's server instead, once [`answers`] has seen it answer as that instance.
//!
//! The OS drops the lock when its process ends, however it ends, so a lock file left by a
//! process that is gone holds no lock: the next start takes it over and writes itself there.
//! The file's text is only read while its lock is held by someone else.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::error::SandboxError;
pub use super::holder::Holder;
use crate::store::private_dir;

/// The lock file of `state_file`: `FILE.lock` beside it.
pub fn lock_path(state_file: &Path) -> PathBuf {
    let mut name = state_file.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// The held lock of one state file; dropping it releases the lock.
#[derive(Debug)]
pub struct StateLock {
    file: File,
}

impl StateLock {
    /// Takes the lock of `state_file`, creating the lock file (0600 on Unix) and a missing
    /// folder (0700) first. When another process (or another open of it in this process)
    /// holds it: [`SandboxError::StateInUse`] with what the lock file says of the holder (none
    /// yet while the holder is still starting).
    pub fn acquire(state_file: &Path) -> Result<StateLock, SandboxError> {
        let path = lock_path(state_file);
        let io = |source| SandboxError::StateFile {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && !parent.exists()
        {
            private_dir(parent).map_err(io)?;
        }
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&path).map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(StateLock { file }),
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                // Unreadable (a holder writing it, or a platform whose locks forbid reading):
                // the holder is not known yet.
                let holder = file
                    .read_to_string(&mut text)
                    .ok()
                    .and_then(|_| Holder::parse(&text));
                Err(SandboxError::StateInUse {
                    state_file: state_file.to_owned(),
                    holder,
                })
            }
            Err(TryLockError::Error(e)) => Err(io(e)),
        }
    }

    /// Writes this process, `addr`'s port and `instance` into the lock file (replacing what a
    /// process before it left there).
    pub fn publish(&mut self, addr: SocketAddr, instance: &str) -> std::io::Result<()> {
        let holder = Holder {
            port: addr.port(),
            pid: std::process::id(),
            instance: instance.to_owned(),
        };
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(holder.text().as_bytes())?;
        self.file.sync_data()
    }
}

/// How long [`answers`] waits to connect, and then for the answer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether `holder`'s server answers its admin summary (`GET /sandbox`) on loopback as the
/// instance the lock file names: a stale port, or a port now used by another program or
/// another data folder's sandbox, does not.
pub fn answers(holder: &Holder) -> bool {
    probe(holder).is_some_and(|instance| instance == holder.instance)
}

/// The instance name the server on `holder.port` gives, if it answers as a sandbox.
fn probe(holder: &Holder) -> Option<String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], holder.port));
    let mut stream = TcpStream::connect_timeout(&addr, PROBE_TIMEOUT).ok()?;
    stream.set_read_timeout(Some(PROBE_TIMEOUT)).ok()?;
    stream.set_write_timeout(Some(PROBE_TIMEOUT)).ok()?;
    let request = format!(
        "GET /sandbox HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
        holder.port
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = Vec::new();
    // The summary is a few KiB; anything far larger is not our sandbox.
    stream.take(256 * 1024).read_to_end(&mut answer).ok()?;
    let head_end = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&answer[..head_end]).ok()?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    let body = &answer[head_end + 4..];
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value["content"]["instance"].as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_refuses_a_second_taker_and_names_the_holder() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let state = dir.path().join("state.sqlite3");
        let mut first = StateLock::acquire(&state).expect("a free lock is taken");
        let addr: SocketAddr = "127.0.0.1:47999".parse().expect("an address");
        first
            .publish(addr, "abc123")
            .expect("the holder is written");
        match StateLock::acquire(&state) {
            Err(SandboxError::StateInUse { holder, state_file }) => {
                assert_eq!(state_file, state);
                assert_eq!(
                    holder,
                    Some(Holder {
                        port: 47999,
                        pid: std::process::id(),
                        instance: "abc123".into()
                    })
                );
            }
            other => panic!("a held lock must refuse: {other:?}"),
        }
        drop(first);
        let again = StateLock::acquire(&state).expect("a released lock is taken again");
        drop(again);
    }
}
