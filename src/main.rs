//! The paydesk binary: parses arguments and hands over to the library. Nothing else.

use clap::Parser;

/// paydesk: payment links, saved cards and installment look-ups over the Partner Payment API.
#[derive(Debug, Parser)]
#[command(name = "paydesk", version, about)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
    println!(
        "paydesk {}: the desktop app and the CLI land with their issues; see README.md.",
        env!("CARGO_PKG_VERSION")
    );
}
