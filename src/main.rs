//! The paydesk binary: parses arguments and hands over to the library. Nothing else.

use std::process::ExitCode;

use clap::Parser;
use paydesk::cli::args::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.command.is_none() {
        println!(
            "paydesk {}: the desktop app lands with its issue; see `paydesk --help` for the CLI.",
            env!("CARGO_PKG_VERSION")
        );
        return ExitCode::SUCCESS;
    }
    ExitCode::from(u8::try_from(paydesk::cli::run::run(cli)).unwrap_or(1))
}
