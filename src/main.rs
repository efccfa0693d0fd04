//! The paydesk binary: takes the API secret out of the environment, parses arguments and
//! hands over to the library. Nothing else.

use std::process::ExitCode;

use clap::Parser;
use paydesk::cli::args::Cli;
use paydesk::cli::run::EnvSecrets;
use paydesk::secrets::{EnvSecret, SECRET_ENV, STAFF_PIN_ENV};
use paydesk::shop::SHOP_PASSWORD_ENV;

fn main() -> ExitCode {
    let env_secret = take_env_secret(SECRET_ENV);
    let env_pin = take_env_secret(STAFF_PIN_ENV);
    let env_shop = take_env_secret(SHOP_PASSWORD_ENV);
    let cli = Cli::parse();
    if cli.command.is_none() {
        let gui = paydesk::app::GuiOptions {
            data_dir: cli.data_dir,
            profile: cli.profile,
            env_secret,
            env_shop,
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
    };
    ExitCode::from(u8::try_from(paydesk::cli::run::run(cli, env_secret, env)).unwrap_or(1))
}

/// Reads a secret variable (`PAYDESK_API_SECRET`, `PAYDESK_STAFF_PIN`,
/// `PAYDESK_SHOP_PASSWORD`) once and removes it from
/// this process's environment: every process paydesk starts (the browser or mail client through
/// `xdg-open`, a print command) gets a copy of the environment, and none of them needs it. On Linux its bytes
/// are also overwritten where the kernel shows them (`/proc/PID/environ` reads the block the
/// process started with, which removing the variable leaves as it was).
#[allow(unsafe_code)]
fn take_env_secret(name: &str) -> EnvSecret {
    let secret = EnvSecret::from_var(name);
    #[cfg(target_os = "linux")]
    wipe_original_value(name);
    // SAFETY: changing the environment is unsound only while another thread may read it.
    // This runs first in `main`, before clap, tokio, the sandbox, eframe or anything else
    // has started a thread, and nothing of this binary runs before `main`.
    unsafe { std::env::remove_var(name) };
    secret
}

/// Overwrites with NUL bytes, in place, the value of every `name=value` entry of the C
/// environment: the strings the process started with, which `/proc/PID/environ` shows for the
/// process's whole life. The entry then reads `name=` until it is removed.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn wipe_original_value(name: &str) {
    unsafe extern "C" {
        static environ: *const *mut std::ffi::c_char;
    }
    // SAFETY: as in `take_env_secret`, no other thread exists yet, so nothing reads or changes
    // the environment meanwhile. `environ` is libc's NULL-terminated array of pointers to
    // NUL-terminated strings (NULL itself when the environment is empty); each string is
    // writable memory owned by the process (the initial stack block, or libc's copy). Only
    // bytes before each string's terminating NUL are written, so every string stays a valid C
    // string and every pointer stays valid.
    unsafe {
        let mut entry = environ;
        while !entry.is_null() && !(*entry).is_null() {
            // The borrow of the string ends before it is written.
            let value_len = {
                let text = std::ffi::CStr::from_ptr(*entry).to_bytes();
                let ours = text.len() > name.len()
                    && text.starts_with(name.as_bytes())
                    && text[name.len()] == b'=';
                ours.then(|| text.len() - name.len() - 1)
            };
            if let Some(len) = value_len {
                std::ptr::write_bytes((*entry).add(name.len() + 1), 0, len);
            }
            entry = entry.add(1);
        }
    }
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
        let secret = take_env_secret(SECRET_ENV);
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
