//! Why a sandbox could not start or refused an admin operation. Below every other sandbox
//! module, so the server, its handlers and the state file all name it without a cycle.

use std::path::PathBuf;

use super::faults::FaultError;
use super::fixture::FixtureError;
use super::holder::Holder;
use super::respond::Rejection;

/// Why the sandbox could not start.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The fixture is unusable.
    #[error(transparent)]
    Fixture(#[from] FixtureError),
    /// A fault rule is unusable.
    #[error(transparent)]
    Fault(#[from] FaultError),
    /// The address could not be bound, or a runtime could not be made.
    #[error("sandbox I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The state file could not be opened or read.
    #[error("sandbox state file: {0}")]
    State(#[from] rusqlite::Error),
    /// The state file or its folder could not be created or made private.
    #[error("sandbox state file {}: {source}", path.display())]
    StateFile {
        /// The state file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Another sandbox serves this state file (see `sandbox::lock`); it was not opened.
    #[error(
        "sandbox state file {} is already served by {}",
        state_file.display(),
        holder.as_ref().map_or_else(|| "another process (starting)".to_owned(), ToString::to_string)
    )]
    StateInUse {
        /// The state file.
        state_file: PathBuf,
        /// The holder, as its lock file says (`None` while it is starting).
        holder: Option<Holder>,
    },
    /// The background thread ended before the sandbox started.
    #[error("the sandbox thread stopped before the server started")]
    ThreadGone,
    /// An admin operation was refused.
    #[error("{}: {}", .0.key, .0.message)]
    Refused(Rejection),
}
