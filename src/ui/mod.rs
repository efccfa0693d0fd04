//! Drawing, and only drawing: one file per view, shared widgets, the theme and the sentences.
//!
//! Views read state and return [`crate::app::Command`]s for anything with a side effect; the
//! app's `logic` runs them after the frame is drawn. No view does I/O.

pub mod fonts;
pub mod text;
pub mod theme;
pub mod widgets;
