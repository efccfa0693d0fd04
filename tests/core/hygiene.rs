//! Hygiene: after a card save and a link create — through the CLI and through the library —
//! no PAN, CVV or API secret bytes appear in any file under the data directory (the `SQLite`
//! database with its WAL and SHM files, the embedded sandbox's state), in the logs captured at
//! `trace` level, or in `--json` output.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::support::cli::{Cli, Out, contains_bytes, files_under, sandbox};
use paydesk::domain::CardDraft;
use paydesk::sandbox::DEMO_API_SECRET;
use paydesk::secrets::MemoryStore;
use paydesk::store::Profile;
use zeroize::Zeroizing;

/// A Luhn-valid card of a BIN the sandbox knows (Yapı Kredi World), not a shipped test card.
const PAN: &str = "5400614827593610";
const PAN_GROUPED: &str = "5400 6148 2759 3610";
/// The middle digits a mask hides: never anywhere either.
const PAN_HIDDEN: &str = "148275936";
const CVV: &str = "947";
/// A secret that only this test knows (given through the environment, never stored).
const OTHER_SECRET: &str = "sk_live_hygiene_Q7w9Zr2Lx5";

/// Fails when `hay` holds the PAN (plain or grouped or its hidden digits), a CVV field, the
/// CVV as a token of its own, or a secret.
fn assert_clean(what: &str, hay: &[u8], secrets: &[&str]) {
    for needle in [PAN, PAN_GROUPED, PAN_HIDDEN].iter().chain(secrets) {
        assert!(
            !contains_bytes(hay, needle.as_bytes()),
            "{what} holds `{needle}`"
        );
    }
    let lower = hay.to_ascii_lowercase();
    for field in ["\"cvv\"", "cvv=", "cvv:", "cardnumber"] {
        assert!(
            !contains_bytes(&lower, field.as_bytes()),
            "{what} holds a `{field}` field"
        );
    }
    // The CVV digits as a token (not inside a longer run of digits such as an id or a time).
    let cvv = CVV.as_bytes();
    for (i, w) in hay.windows(cvv.len()).enumerate() {
        if w == cvv {
            let before = i.checked_sub(1).map(|j| hay[j]);
            let after = hay.get(i + cvv.len()).copied();
            let digitish = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric());
            assert!(
                digitish(before) || digitish(after),
                "{what} holds the CVV as a token at byte {i}"
            );
        }
    }
}

fn assert_dir_clean(dir: &Path, secrets: &[&str]) -> Vec<String> {
    let mut names = Vec::new();
    for file in files_under(dir) {
        let bytes = std::fs::read(&file).expect("the file is readable");
        assert_clean(&file.display().to_string(), &bytes, secrets);
        names.push(
            file.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
    }
    names.sort();
    names
}

fn ok(out: &Out) {
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn cli_card_save_and_link_create_leave_no_pan_cvv_or_secret_in_files_logs_or_json() {
    let server = sandbox();
    let mut cli = Cli::new();
    cli.env("PAYDESK_LOG", "trace");
    cli.add_profile("test", &server);
    let mut logs = String::new();
    let mut outputs = String::new();

    // The built-in sandbox profile (its server keeps state in the data dir) and a profile
    // whose secret comes from the environment.
    for profile in ["sandbox", "test"] {
        let card = cli.run_with(
            &[
                "--profile",
                profile,
                "card",
                "save",
                "--expiry-month",
                "11",
                "--expiry-year",
                "2031",
                "--holder",
                "AYSE YILMAZ",
                "--json",
            ],
            Some(&format!("{PAN_GROUPED}\n{CVV}\n")),
            &[],
        );
        ok(&card);
        assert_eq!(card.json()["maskedPan"], "540061******3610");
        let link = cli.run(&[
            "--profile",
            profile,
            "link",
            "create",
            "--amount",
            "99.90",
            "--json",
        ]);
        ok(&link);
        assert!(link.json()["paymentUrl"].is_string());
        logs.push_str(&card.stderr);
        logs.push_str(&link.stderr);
        outputs.push_str(&card.stdout);
        outputs.push_str(&link.stdout);
    }
    // The same secret given in the environment under another name must not leak either.
    let with_secret = cli.run_with(
        &["--profile", "test", "link", "list", "--json"],
        None,
        &[("PAYDESK_API_SECRET", DEMO_API_SECRET)],
    );
    ok(&with_secret);
    outputs.push_str(&with_secret.stdout);
    logs.push_str(&with_secret.stderr);

    assert!(
        logs.contains("TRACE") && logs.contains("hyper"),
        "trace logging of every crate was on:\n{logs}"
    );
    assert_clean("the logs", logs.as_bytes(), &[DEMO_API_SECRET]);
    assert_clean("the --json output", outputs.as_bytes(), &[DEMO_API_SECRET]);
    let files = assert_dir_clean(cli.data_dir(), &[DEMO_API_SECRET]);
    assert!(
        files.iter().any(|f| f == "paydesk.sqlite3")
            && files.iter().any(|f| f.starts_with("sandbox-state")),
        "the database and the sandbox state were checked: {files:?}"
    );
}

/// A log writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn library_card_save_and_link_create_leave_no_pan_cvv_or_secret_while_the_store_is_open() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    // Global: the client's connection tasks and the sandbox's threads log here too.
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber of this test");

    let server = sandbox();
    let dir = tempfile::tempdir().expect("a temp dir");
    let secrets = Arc::new(MemoryStore::new());
    let services = crate::support::services::open_on_disk(
        dir.path(),
        secrets.clone(),
        "test",
        &server.base_url(),
    );
    // A second profile whose secret sits in the (memory) keyring.
    services
        .inspect(|s| {
            s.profile_add(
                &Profile::new("other", server.base_url(), "pk_test_no_link"),
                chrono::Utc::now(),
            )
        })
        .expect("the profile is stored");
    paydesk::secrets::SecretStore::set(secrets.as_ref(), "other", "pk_test_no_link", OTHER_SECRET)
        .expect("the memory keyring stores it");

    let desk = services.desk("test").expect("a desk");
    let mut draft = CardDraft {
        card_number: Zeroizing::new(PAN.to_owned()),
        expiry_month: "11".into(),
        expiry_year: "2031".into(),
        cvv: Zeroizing::new(CVV.to_owned()),
        card_holder_name: "AYSE YILMAZ".into(),
        usage: String::new(),
        alias: String::new(),
        set_as_default: false,
        customer_id: String::new(),
    };
    let request = draft
        .validate(chrono::Utc::now().date_naive())
        .expect("a valid card");
    draft.wipe();
    let card = desk.save_card(&request).await.expect("the card is saved");
    drop(request);
    assert_eq!(card.masked_pan.as_deref(), Some("540061******3610"));
    let link = desk
        .create_link(&crate::support::links::link_request("HYG-1", "99.90"))
        .await
        .expect("the link is created");
    // The other profile's secret is used (and refused for its missing scope): it signs, but
    // is never written.
    let other = services.desk("other").expect("a desk");
    let refused = other
        .create_link(&crate::support::links::link_request("HYG-2", "5"))
        .await;
    assert!(refused.is_err(), "pk_test_no_link lacks collection:link");

    // The store is open: the WAL (and SHM) files are there and are checked too.
    let files = assert_dir_clean(dir.path(), &[DEMO_API_SECRET, OTHER_SECRET]);
    assert!(files.iter().any(|f| f.ends_with("-wal")), "{files:?}");
    assert!(files.iter().any(|f| f.ends_with("-shm")), "{files:?}");
    let logs = captured
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    assert!(
        contains_bytes(&logs, link.id.as_bytes()),
        "the logs carry ids: {}",
        String::from_utf8_lossy(&logs)
    );
    assert_clean("the logs", &logs, &[DEMO_API_SECRET, OTHER_SECRET]);
    let json = serde_json::to_vec(&(&card, &paydesk::api::wire::PaymentLink::from(&link)))
        .expect("serializes");
    assert_clean(
        "the JSON of the answers",
        &json,
        &[DEMO_API_SECRET, OTHER_SECRET],
    );
    drop(services);
}

#[test]
fn the_checks_catch_each_kind_of_leak() {
    let leaks: [&[u8]; 6] = [
        b"body={\"cardNumber\":\"x\"}",
        b"pan 5400614827593610 seen",
        b"pan 5400 6148 2759 3610 seen",
        b"{\"cvv\":\"1\"}",
        b"code 947 typed",
        b"secret=sk_test_paydesk_demo_secret",
    ];
    for leak in leaks {
        let caught = std::panic::catch_unwind(|| assert_clean("probe", leak, &[DEMO_API_SECRET]));
        assert!(
            caught.is_err(),
            "not caught: {}",
            String::from_utf8_lossy(leak)
        );
    }
    // Digits inside ids and times are not the CVV.
    assert_clean("probe", b"lnk_a947b 1947 9470", &[DEMO_API_SECRET]);
}
