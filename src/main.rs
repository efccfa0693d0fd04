//! The paydesk binary: takes the API secret out of the environment, parses arguments and
//! hands over to the library. Nothing else.

use std::process::ExitCode;

use clap::Parser;
use paydesk::cli::args::Cli;
use paydesk::secrets::{EnvSecret, SECRET_ENV};

fn main() -> ExitCode {
    let env_secret = take_env_secret();
    let cli = Cli::parse();
    if cli.command.is_none() {
        let gui = paydesk::app::GuiOptions {
            data_dir: cli.data_dir,
            profile: cli.profile,
            env_secret,
        };
        return match paydesk::app::run_gui(gui) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("paydesk: {e}");
                ExitCode::FAILURE
            }
        };
    }
    ExitCode::from(u8::try_from(paydesk::cli::run::run(cli, env_secret)).unwrap_or(1))
}

/// Reads `PAYDESK_API_SECRET` once and removes it from this process's environment: every
/// process paydesk starts (the browser or mail client through `xdg-open`, a print command)
/// gets a copy of the environment, and none of them needs the API secret.
#[allow(unsafe_code)]
fn take_env_secret() -> EnvSecret {
    let secret = EnvSecret::from_env();
    // SAFETY: changing the environment is unsound only while another thread may read it.
    // This runs first in `main`, before clap, tokio, the sandbox, eframe or anything else
    // has started a thread, and nothing of this binary runs before `main`.
    unsafe { std::env::remove_var(SECRET_ENV) };
    secret
}

#[cfg(all(test, unix))]
mod tests {
    use std::process::Command;

    use super::*;

    /// Set by the test below for the run of this binary it starts: the secret to expect.
    const EXPECT: &str = "PAYDESK_TEST_EXPECT_SECRET";

    /// `take_env_secret` is checked in a fresh run of this test binary started with the
    /// secret in its environment, as a real start would be: changing the environment of the
    /// test runner itself, whose other tests run on other threads, is what the SAFETY note
    /// rules out.
    #[test]
    fn the_secret_is_read_once_and_nothing_paydesk_starts_inherits_it() {
        let exe = std::env::current_exe().expect("the test binary's path");
        let out = Command::new(exe)
            .args([
                "--exact",
                "tests::started_with_the_secret_in_the_environment",
                "--include-ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(SECRET_ENV, "sk_test_only_for_this_check")
            .env(EXPECT, "sk_test_only_for_this_check")
            .output()
            .expect("the test binary runs again");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(
            stdout.contains("child saw: <absent>") && stdout.contains("1 passed"),
            "the check ran: {stdout}"
        );
    }

    #[test]
    #[ignore = "run by the test above, with the secret in its environment"]
    fn started_with_the_secret_in_the_environment() {
        let Ok(expected) = std::env::var(EXPECT) else {
            return;
        };
        let secret = take_env_secret();
        assert_eq!(
            secret.value().as_deref().map(String::as_str),
            Some(expected.as_str()),
            "the secret is still there for the app and the CLI"
        );
        assert!(std::env::var_os(SECRET_ENV).is_none());
        let child = Command::new("sh")
            .args(["-c", "printf '%s' \"${PAYDESK_API_SECRET-<absent>}\""])
            .output()
            .expect("sh runs");
        let seen = String::from_utf8_lossy(&child.stdout);
        println!("child saw: {seen}");
        assert_eq!(seen, "<absent>");
    }
}
