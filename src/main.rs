//! The paydesk binary: takes the API secret out of the environment, parses arguments and
//! hands over to the library. Nothing else: its one rule, the secrets' removal from the
//! environment, is `paydesk::secrets::take_env_secret`, tested in the library. The binary has
//! no tests of its own, so its test harness (which `cargo test --all-targets` still builds) is
//! left empty: nothing below is compiled into it, and it links none of the library.

#[cfg(not(test))]
use std::process::ExitCode;

#[cfg(not(test))]
use clap::Parser;
#[cfg(not(test))]
use paydesk::cli::args::Cli;
#[cfg(not(test))]
use paydesk::cli::run::EnvSecrets;
#[cfg(not(test))]
use paydesk::secrets::{SECRET_ENV, SMTP_PASSWORD_ENV, STAFF_PIN_ENV, take_env_secret};
#[cfg(not(test))]
use paydesk::shop::SHOP_PASSWORD_ENV;

#[cfg(not(test))]
#[allow(unsafe_code)]
fn main() -> ExitCode {
    // SAFETY: these are the first statements of `main`: no thread of clap, tokio, the sandbox
    // or eframe exists yet, and nothing of this binary runs before `main`.
    let (env_secret, env_pin, env_shop, env_smtp) = unsafe {
        (
            take_env_secret(SECRET_ENV),
            take_env_secret(STAFF_PIN_ENV),
            take_env_secret(SHOP_PASSWORD_ENV),
            take_env_secret(SMTP_PASSWORD_ENV),
        )
    };
    let cli = Cli::parse();
    if cli.command.is_none() {
        let gui = paydesk::app::GuiOptions {
            data_dir: cli.data_dir,
            profile: cli.profile,
            env_secret,
            env_shop,
            env_smtp,
        };
        return match paydesk::app::run_gui(gui) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("paydesk: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let env = EnvSecrets {
        pin: env_pin,
        shop: env_shop,
        smtp: env_smtp,
    };
    ExitCode::from(u8::try_from(paydesk::cli::run::run(cli, env_secret, env)).unwrap_or(1))
}
