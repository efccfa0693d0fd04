//! The paydesk binary: parses arguments and hands over to the library. Nothing else.

use std::process::ExitCode;

use clap::Parser;
use paydesk::cli::args::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.command.is_none() {
        let gui = paydesk::app::GuiOptions {
            data_dir: cli.data_dir,
            profile: cli.profile,
        };
        return match paydesk::app::run_gui(gui) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("paydesk: {e}");
                ExitCode::FAILURE
            }
        };
    }
    ExitCode::from(u8::try_from(paydesk::cli::run::run(cli)).unwrap_or(1))
}
