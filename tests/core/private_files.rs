//! The data folder is 0700 and every `SQLite` file 0600 (with its `-wal` and `-shm`) on every
//! way paydesk starts: the CLI (a fresh folder, and a folder and database an older paydesk or
//! a hand-made set-up left readable by others), `paydesk sandbox --state FILE`, and the app's
//! path (`Services::open` and its embedded sandbox). Payer e-mails and phones live in these
//! files, so other users of the machine must not be able to read them.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::cli::{Cli, sandbox_process};
use paydesk::store::DB_FILE;

const SANDBOX_STATE: &str = "sandbox-state.sqlite3";

/// The permission bits in octal, as `ls` and `chmod` spell them (`"600"`).
fn mode(path: &Path) -> String {
    let bits = std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode();
    format!("{:o}", bits & 0o777)
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn side(db: &Path, suffix: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Waits until every file exists (a started process opens them), at most 60 s.
fn wait_for(files: &[PathBuf], child: &mut Child) {
    let start = Instant::now();
    while files.iter().any(|f| !f.exists()) {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("paydesk ended early ({status}); files: {files:?}");
        }
        assert!(
            start.elapsed() < Duration::from_mins(1),
            "never appeared: {:?}",
            files.iter().filter(|f| !f.exists()).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The database file and the `-wal` and `-shm` files of an open WAL database are 0600.
fn assert_private_db(db: &Path) {
    for file in [db.to_owned(), side(db, "-wal"), side(db, "-shm")] {
        assert_eq!(mode(&file), "600", "{}", file.display());
    }
}

/// Starts `paydesk card save` on the built-in sandbox profile and leaves it waiting for the
/// card number on stdin: by then it has opened (and written) its database and started the
/// embedded sandbox with its state file, so both are open with their `-wal` and `-shm`.
fn start_waiting_on_stdin(cli: &Cli) -> Child {
    let mut cmd = cli.command(&[
        "card",
        "save",
        "--expiry-month",
        "12",
        "--expiry-year",
        "2030",
    ]);
    cmd.stdin(Stdio::piped());
    let mut child = cmd.spawn().expect("the paydesk binary starts");
    let dir = cli.data_dir();
    let files: Vec<PathBuf> = [dir.join(DB_FILE), dir.join(SANDBOX_STATE)]
        .iter()
        .flat_map(|db| [db.clone(), side(db, "-wal"), side(db, "-shm")])
        .collect();
    wait_for(&files, &mut child);
    child
}

fn stop(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_cli_makes_a_new_data_folder_private_and_its_databases_too() {
    let cli = Cli::in_new_folder("new/paydesk");
    let child = start_waiting_on_stdin(&cli);
    let dir = cli.data_dir();
    assert_eq!(mode(dir), "700");
    assert_private_db(&dir.join(DB_FILE));
    assert_private_db(&dir.join(SANDBOX_STATE));
    stop(child);
}

#[test]
fn the_cli_tightens_an_existing_folder_and_databases_readable_by_others() {
    let cli = Cli::new();
    let dir = cli.data_dir();
    // A first run writes both databases; then they are made readable by everyone, as an
    // older paydesk (or a folder made by hand with the usual umask) left them.
    let first = cli.run(&["link", "create", "--amount", "15"]);
    assert_eq!(first.code, 0, "{first:?}");
    chmod(dir, 0o755);
    chmod(&dir.join(DB_FILE), 0o644);
    chmod(&dir.join(SANDBOX_STATE), 0o644);

    let child = start_waiting_on_stdin(&cli);
    assert_eq!(mode(dir), "700");
    assert_private_db(&dir.join(DB_FILE));
    assert_private_db(&dir.join(SANDBOX_STATE));
    stop(child);

    // A command that writes and ends: the files stay private after SQLite closed them.
    let again = cli.run(&["link", "create", "--amount", "16"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(mode(dir), "700");
    assert_eq!(mode(&dir.join(DB_FILE)), "600");
    assert_eq!(mode(&dir.join(SANDBOX_STATE)), "600");
}

/// Runs `paydesk sandbox --state FILE` on a free port until it says where it listens.
fn start_sandbox(state: &Path) -> Child {
    let (child, first) = sandbox_process(state, Stdio::null());
    assert!(
        first.starts_with("paydesk sandbox listening on http://127.0.0.1:"),
        "{first:?}"
    );
    child
}

#[test]
fn the_sandbox_state_file_is_private_and_so_is_a_folder_paydesk_makes_for_it() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let state = tmp.path().join("made/by/paydesk/state.sqlite3");
    let child = start_sandbox(&state);
    assert_private_db(&state);
    for folder in ["made", "made/by", "made/by/paydesk"] {
        assert_eq!(mode(&tmp.path().join(folder)), "700", "{folder}");
    }
    stop(child);

    // An existing state file readable by others, in a folder of the user's own choosing:
    // the file is tightened, the folder is left as it is.
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).expect("a folder");
    chmod(&shared, 0o755);
    let state = shared.join("state.sqlite3");
    std::fs::write(&state, b"").expect("an empty file is an empty database");
    chmod(&state, 0o644);
    let child = start_sandbox(&state);
    assert_private_db(&state);
    assert_eq!(mode(&shared), "755");
    stop(child);
}

#[test]
fn the_app_path_opens_a_private_folder_database_and_embedded_sandbox_state() {
    let tmp = tempfile::tempdir().expect("a temp dir");
    let dir = tmp.path().join("data");
    // The app creates the folder first with the umask's mode (0755 here), then opens it.
    std::fs::create_dir(&dir).expect("a folder");
    chmod(&dir, 0o755);
    let services = paydesk::service::Services::open(
        &dir,
        Arc::new(paydesk::secrets::MemoryStore::new()),
        Arc::new(paydesk::clock::SystemClock),
        None,
    )
    .expect("the services open");
    let url = services.sandbox_url().expect("the embedded sandbox starts");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    services
        .inspect(|s| {
            s.profile_add(
                &paydesk::store::Profile::new("shop", "https://api.example.com", "pk_1"),
                chrono::Utc::now(),
            )
        })
        .expect("a write");
    assert_eq!(mode(&dir), "700");
    assert_private_db(&dir.join(DB_FILE));
    assert_private_db(&dir.join(SANDBOX_STATE));
}
