//! Shared helpers of the client-core and CLI end-to-end tests: run the real `paydesk` binary
//! with a temporary data directory, and start a sandbox that outlives the CLI processes so a
//! test can inject faults and read what the server holds through its admin handle.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use paydesk::api::wire::PaymentLink;
use paydesk::sandbox::{
    DEMO_API_KEY, DEMO_API_SECRET, Fixture, Sandbox, SandboxConfig, SandboxHandle,
};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_paydesk");

/// What one run of the binary gave.
#[derive(Debug, Clone)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// Both streams, for "appears nowhere" checks.
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }

    /// The stdout parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// The id of the link a successful `link create --json` printed.
    pub fn link_id(&self) -> String {
        assert_eq!(self.code, 0, "expected success:\n{self:?}");
        self.json()["id"].as_str().expect("an id").to_owned()
    }
}

/// A `paydesk` command line with its own data directory.
#[derive(Debug)]
pub struct Cli {
    dir: tempfile::TempDir,
    data: PathBuf,
    env: HashMap<String, String>,
}

impl Cli {
    /// A fresh data directory under the system temp dir (a real disk here, see the bench).
    pub fn new() -> Cli {
        let dir = tempfile::tempdir().expect("a temp dir");
        Cli {
            data: dir.path().to_owned(),
            dir,
            env: HashMap::new(),
        }
    }

    /// A data directory `sub` inside a fresh temp dir, not created yet: paydesk makes it.
    pub fn in_new_folder(sub: &str) -> Cli {
        let dir = tempfile::tempdir().expect("a temp dir");
        Cli {
            data: dir.path().join(sub),
            dir,
            env: HashMap::new(),
        }
    }

    pub fn data_dir(&self) -> &Path {
        &self.data
    }

    /// Sets an environment variable for every later run.
    pub fn env(&mut self, key: &str, value: &str) -> &mut Cli {
        self.env.insert(key.to_owned(), value.to_owned());
        self
    }

    /// The command, not started: data dir, English messages, no inherited paydesk settings.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.arg("--data-dir").arg(&self.data).args(args);
        for var in [
            "PAYDESK_DATA_DIR",
            "PAYDESK_API_SECRET",
            "PAYDESK_STAFF_PIN",
            "PAYDESK_SHOP_PASSWORD",
            "PAYDESK_LOG",
            "RUST_LOG",
            "LANG",
            "LC_MESSAGES",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("LC_ALL", "C");
        cmd.envs(&self.env);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Out {
        self.run_with(args, None, &[])
    }

    /// `paydesk --profile PROFILE link create ARGS…`, run.
    pub fn link_create(&self, profile: &str, args: &[&str]) -> Out {
        self.run(&Cli::link_create_args(profile, args))
    }

    /// The arguments of `paydesk --profile PROFILE link create ARGS…`.
    pub fn link_create_args<'a>(profile: &'a str, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = vec!["--profile", profile, "link", "create"];
        all.extend_from_slice(args);
        all
    }

    /// Runs with `stdin` fed in (then closed) and extra environment variables.
    pub fn run_with(&self, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Out {
        let mut cmd = self.command(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        if stdin.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd.spawn().expect("the paydesk binary starts");
        if let Some(text) = stdin {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            pipe.write_all(text.as_bytes())
                .expect("stdin takes the input");
        }
        let output = child.wait_with_output().expect("paydesk runs to the end");
        Out {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Adds profile `name` for `sandbox` with the demo key, and sets `PAYDESK_API_SECRET`
    /// to the demo secret for later runs.
    pub fn add_profile(&mut self, name: &str, sandbox: &SandboxHandle) {
        self.add_profile_at(name, &sandbox.base_url());
    }

    /// Adds profile `name` for the server at `base_url` with the demo key, and sets
    /// `PAYDESK_API_SECRET` to the demo secret for later runs.
    pub fn add_profile_at(&mut self, name: &str, base_url: &str) {
        let out = self.run(&[
            "profile",
            "add",
            name,
            "--base-url",
            base_url,
            "--api-key",
            DEMO_API_KEY,
        ]);
        assert_eq!(out.code, 0, "{out:?}");
        self.env("PAYDESK_API_SECRET", DEMO_API_SECRET);
    }
}

/// A sandbox on its own thread, seeded, in memory, on a free loopback port.
pub fn sandbox() -> SandboxHandle {
    let mut config = SandboxConfig::new(Fixture::shipped());
    config.seed = Some(7);
    Sandbox::spawn_background(config).expect("the sandbox starts")
}

/// A sandbox keeping its state in `file` (so a restart keeps it).
pub fn sandbox_with_state(file: PathBuf) -> SandboxHandle {
    let mut config = SandboxConfig::new(Fixture::shipped());
    config.state_file = Some(file);
    Sandbox::spawn_background(config).expect("the sandbox starts")
}

/// The links the server holds, counted by order number.
pub fn server_orders(sandbox: &SandboxHandle) -> HashMap<String, Vec<PaymentLink>> {
    let mut by_order: HashMap<String, Vec<PaymentLink>> = HashMap::new();
    for link in sandbox.admin().links(None) {
        by_order
            .entry(link.order_number.clone().unwrap_or_default())
            .or_default()
            .push(link);
    }
    by_order
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("the directory is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// Whether `needle` occurs in `hay`.
pub fn contains_bytes(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// `paydesk sandbox --state FILE` on a free port, without the API secret in its environment,
/// its standard error going to `stderr`. Returns the child and the first line it printed on
/// stdout (`paydesk sandbox listening on URL` when it serves; nothing when it refused and
/// ended).
pub fn sandbox_process(state: &Path, stderr: Stdio) -> (Child, String) {
    let mut child = Command::new(BIN)
        .args(["sandbox", "--addr", "127.0.0.1:0", "--state"])
        .arg(state)
        .env_remove("PAYDESK_API_SECRET")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("the paydesk binary starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut reader = BufReader::new(stdout);
    let mut first = String::new();
    reader.read_line(&mut first).expect("stdout reads");
    // The server prints more lines after the first (its key, its state file): keep reading
    // them until it ends, so none of them meets a closed pipe and stops it (a `println!` to
    // a closed pipe panics, and a loaded machine can schedule those lines after our read).
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    (child, first)
}
