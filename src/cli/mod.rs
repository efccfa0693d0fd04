//! The command-line front end over the same core as the app: parse (`args`), dispatch (`run`),
//! word and print the outcome (`output`, with its sentences in `text`), read secrets (`prompt`), sign staff in for a command and run `staff` and `audit` (`staff`), this desk in a shop (`shop`).

pub mod args;
mod mail;
mod output;
mod prompt;
mod renew;
pub mod run;
mod shop;
mod staff;
pub mod text;
mod whole_shop;
