//! The eframe application: saved state, runtime handles, the logic that runs commands and
//! drains background results, and the top-level layout.

pub mod command;
pub mod secrets;
pub mod state;

pub use command::Command;
pub use state::{SavedState, View};
