//! The command-line front end over the same core as the app: parse (`args`), dispatch (`run`),
//! word and print the outcome (`output`, with its sentences in `text`), read secrets (`prompt`).

pub mod args;
mod output;
mod prompt;
pub mod run;
pub mod text;
