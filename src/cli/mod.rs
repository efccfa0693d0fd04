//! The command-line front end over the same core as the app: parse (`args`), run, print.

pub mod args;
pub mod run;
