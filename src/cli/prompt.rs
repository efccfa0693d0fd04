//! Reading a secret (an API secret, a card number, a CVV) from the terminal or a pipe, with
//! Ctrl+C giving the terminal back.

use std::io::IsTerminal;

use zeroize::{Zeroize, Zeroizing};

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
        read_piped_line(&stdin)?
    };
    Ok(Zeroizing::new(line.trim().to_owned()))
}

/// The longest line read from a pipe for a secret, in bytes.
const MAX_PIPED_LINE: usize = 1024;

/// One line of piped stdin, read a byte at a time from a duplicate of its descriptor into one
/// zeroizing buffer sized once: std's shared stdin buffer would keep the line (a card number,
/// a CVV) for the process's life, and a growing `String` leaves copies behind at each
/// reallocation. Reading no further than the line's end leaves the next line to the next read.
fn read_piped_line(stdin: &std::io::Stdin) -> std::io::Result<Zeroizing<String>> {
    use std::io::Read;
    #[cfg(unix)]
    let mut input = std::fs::File::from(std::os::fd::AsFd::as_fd(stdin).try_clone_to_owned()?);
    #[cfg(windows)]
    let mut input =
        std::fs::File::from(std::os::windows::io::AsHandle::as_handle(stdin).try_clone_to_owned()?);
    let mut line = Zeroizing::new(Vec::with_capacity(MAX_PIPED_LINE));
    let mut byte = [0u8; 1];
    loop {
        match input.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) if line.len() == MAX_PIPED_LINE => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("a line of stdin is longer than {MAX_PIPED_LINE} bytes"),
                ));
            }
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    byte.zeroize();
    let text = String::from_utf8(std::mem::take(&mut *line)).map_err(|e| {
        // The bytes are wiped before the error is returned.
        let mut bytes = e.into_bytes();
        bytes.zeroize();
        std::io::Error::new(std::io::ErrorKind::InvalidData, "stdin is not UTF-8")
    })?;
    Ok(Zeroizing::new(text))
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
