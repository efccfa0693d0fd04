//! The paydesk binary: parses arguments and hands over to the library. Nothing else.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// paydesk: payment links, saved cards and installment look-ups over the Partner Payment API.
#[derive(Debug, Parser)]
#[command(name = "paydesk", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the local Partner API sandbox in the foreground.
    Sandbox(paydesk::sandbox::cli::SandboxArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Sandbox(args)) => match paydesk::sandbox::cli::run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("paydesk sandbox: {e}");
                ExitCode::FAILURE
            }
        },
        None => {
            println!(
                "paydesk {}: the desktop app and the CLI land with their issues; see README.md.",
                env!("CARGO_PKG_VERSION")
            );
            ExitCode::SUCCESS
        }
    }
}
