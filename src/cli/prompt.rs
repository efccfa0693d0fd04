//! Reading a secret (an API secret, a card number, a CVV) from the terminal or a pipe, with
//! Ctrl+C giving the terminal back.

use std::io::{BufRead, IsTerminal};

use zeroize::Zeroizing;

use super::output::Exit;

/// Reads one secret line (an API secret, a card number, a CVV) into a zeroizing buffer, after
/// `prompt` and a space. On a
/// terminal it prompts there and reads with echo off through `rpassword` (also on the
/// Windows console); from a pipe or a file it reads one line of stdin, so scripts can feed
/// it. Ctrl+C at the prompt is `ErrorKind::Interrupted`, with the terminal restored.
pub(super) fn read_secret_line(prompt: &str) -> std::io::Result<Zeroizing<String>> {
    let stdin = std::io::stdin();
    let line = if stdin.is_terminal() {
        let _open = ctrl_c::PromptOpen::new();
        Zeroizing::new(rpassword::prompt_password(format!("{prompt} "))?)
    } else {
        let mut line = Zeroizing::new(String::new());
        stdin.lock().read_line(&mut line)?;
        line
    };
    Ok(Zeroizing::new(line.trim().to_owned()))
}

/// Ctrl+C around a hidden prompt. `rpassword` reads the terminal raw with echo off, so
/// Ctrl+C reaches it as a key; it then raises SIGINT itself, and SIGINT's default action ends
/// the process before `rpassword` has put the terminal back: a shell that does not restore
/// it (dash, a script) is left without echo. So while a prompt is open paydesk listens for
/// SIGINT (tokio's handler) and ignores it there: `rpassword` restores the terminal and
/// returns `Interrupted`, and the command exits 130. Once listening, a Ctrl+C outside a
/// prompt exits 130 at once, as the default action would have ended the process.
mod ctrl_c {
    use std::sync::Once;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::Exit;

    /// Hidden prompts open now.
    static OPEN: AtomicUsize = AtomicUsize::new(0);
    static LISTEN: Once = Once::new();

    /// Marks a prompt open for its lifetime (the listener starts with the first one).
    pub(super) struct PromptOpen(());

    impl PromptOpen {
        pub(super) fn new() -> Self {
            LISTEN.call_once(listen);
            OPEN.fetch_add(1, Ordering::SeqCst);
            PromptOpen(())
        }
    }

    impl Drop for PromptOpen {
        fn drop(&mut self) {
            OPEN.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Installs the handler now (before the prompt reads a key) and spawns its task on the
    /// CLI's runtime; without a runtime the default action stays.
    #[cfg(any(unix, windows))]
    fn listen() {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        #[cfg(unix)]
        let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt());
        #[cfg(windows)]
        let signal = tokio::signal::windows::ctrl_c();
        let Ok(mut signal) = signal else {
            return;
        };
        runtime.spawn(async move {
            while signal.recv().await.is_some() {
                if OPEN.load(Ordering::SeqCst) == 0 {
                    std::process::exit(Exit::Interrupted as i32);
                }
            }
        });
    }

    #[cfg(not(any(unix, windows)))]
    fn listen() {}
}
