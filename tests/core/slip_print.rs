//! Where a slip goes, with fake CUPS tools: tiny shell scripts standing in for `lpstat` and `lp`
//! that write down their arguments, environment and standard input. With a default printer the
//! PDF goes to `lp -d NAME`; without one (or without CUPS) it is saved in the folder; a refusing
//! `lp` is an error that says why. The CLI tests run the real binary with the fakes first on
//! `PATH` and `PAYDESK_API_SECRET` set, and check that the secret never reaches the children.

use std::path::Path;

use crate::support::cups::{FakeCups, turn};
use paydesk::lang::Lang;
use paydesk::printer::{Delivered, PrintError, SlipSink};
use paydesk::slip::{Paper, Slip, SlipPdf, render};

fn pdf() -> SlipPdf {
    let slip = Slip {
        shop: "Kadıköy Kahve Evi".into(),
        amount: "150,00 ₺".into(),
        url: "http://127.0.0.1:47110/pay/lnk_01JDQ5G2R8Z6?ref=PD-20261123-A1B20007".into(),
        order_number: "PD-20261123-A1B20007".into(),
        expiry: None,
        lang: Lang::Tr,
    };
    render(&slip, Paper::Roll80).expect("the slip renders")
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("readable")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn with_a_default_printer_the_pdf_goes_to_lp_on_that_printer() {
    let _turn = turn();
    let cups = FakeCups::new();
    cups.set_printer(Some("Counter_80"));
    let folder = tempfile::tempdir().expect("a temp dir");
    let pdf = pdf();

    let done = cups
        .sink(folder.path())
        .deliver(&pdf, "PD-20261123-A1B20007")
        .expect("printed");
    assert_eq!(
        done,
        Delivered::Printed {
            printer: "Counter_80".into()
        }
    );
    assert_eq!(cups.read("lpstat-args").as_deref(), Some("-d\n"));
    // lpstat's answer is parsed, so it is asked in CUPS's own words.
    assert!(
        cups.read("lpstat-env")
            .is_some_and(|e| e.lines().any(|l| l == "LC_ALL=C"))
    );
    let args = cups.read("lp-args").expect("lp ran");
    assert_eq!(
        args.lines().collect::<Vec<_>>(),
        [
            "-d",
            "Counter_80",
            "-t",
            "paydesk PD-20261123-A1B20007",
            "-o",
            &format!("media=Custom.80x{}mm", pdf.height_mm),
        ]
    );
    assert_eq!(
        cups.lp_stdin(),
        Some(pdf.bytes.clone()),
        "the PDF, byte for byte"
    );
    assert!(files_in(folder.path()).is_empty(), "nothing saved");
}

#[test]
fn without_a_default_printer_or_without_cups_the_pdf_is_saved_in_the_folder() {
    let _turn = turn();
    let cups = FakeCups::new();
    cups.set_printer(None);
    let folder = tempfile::tempdir().expect("a temp dir");
    let pdf = pdf();

    let done = cups
        .sink(folder.path())
        .deliver(&pdf, "PD-20261123/A1B20007")
        .expect("saved");
    let path = folder.path().join("paydesk-slip-PD-20261123_A1B20007.pdf");
    assert_eq!(done, Delivered::Saved(path.clone()));
    assert_eq!(std::fs::read(&path).expect("the file"), pdf.bytes);
    assert_eq!(cups.read("lp-args"), None, "lp never ran");

    // No CUPS at all: lpstat cannot even start.
    let other = tempfile::tempdir().expect("a temp dir");
    let sink = SlipSink {
        lpstat: cups.path().join("no-such-lpstat").into(),
        ..cups.sink(other.path())
    };
    let done = sink.deliver(&pdf, "PD-1").expect("saved");
    assert_eq!(
        done,
        Delivered::Saved(other.path().join("paydesk-slip-PD-1.pdf"))
    );
    assert_eq!(cups.read("lp-args"), None, "lp never ran");
}

#[test]
fn a_refused_job_is_an_error_with_lps_words_and_nothing_is_saved() {
    let _turn = turn();
    let cups = FakeCups::new();
    cups.set_printer(Some("Gone"));
    std::fs::write(
        cups.path().join("refuse"),
        "lp: The printer or class does not exist.\n",
    )
    .expect("written");
    let folder = tempfile::tempdir().expect("a temp dir");

    let err = cups
        .sink(folder.path())
        .deliver(&pdf(), "PD-1")
        .expect_err("refused");
    assert!(matches!(err, PrintError::Lp(_)), "{err:?}");
    assert!(
        err.to_string()
            .contains("The printer or class does not exist."),
        "{err}"
    );
    assert!(files_in(folder.path()).is_empty());
}

#[test]
fn the_cli_prints_a_slip_saves_it_without_a_printer_and_never_hands_on_the_secret() {
    let _turn = turn();
    let server = crate::support::cli::sandbox();
    let mut cli = crate::support::cli::Cli::new();
    // A real profile: the secret comes from PAYDESK_API_SECRET, set for every run.
    cli.add_profile("shop", &server);
    let created = cli.link_create(
        "shop",
        &[
            "--amount",
            "150",
            "--order-number",
            "SLIP-1",
            "--expires-in",
            "2h",
        ],
    );
    assert_eq!(created.code, 0, "{created:?}");
    let id = created
        .stdout
        .lines()
        .next()
        .expect("the link id")
        .to_owned();

    let cups = FakeCups::new();
    cups.set_printer(Some("Counter_80"));
    let home = tempfile::tempdir().expect("a temp dir");
    let path = format!(
        "{}:{}",
        cups.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let config = home.path().join("no-config");
    let env = [
        ("PATH", path.as_str()),
        ("HOME", home.path().to_str().expect("UTF-8")),
        ("XDG_CONFIG_HOME", config.to_str().expect("UTF-8")),
    ];
    let slip = [
        "--profile",
        "shop",
        "link",
        "slip",
        &id,
        "--shop",
        "Kadıköy Kahve Evi",
    ];

    let printed = cli.run_with(&slip, None, &env);
    assert_eq!(printed.code, 0, "{printed:?}");
    assert_eq!(printed.stdout.trim(), "Slip sent to the printer Counter_80");
    let args = cups.read("lp-args").expect("lp ran");
    assert!(
        args.starts_with("-d\nCounter_80\n-t\npaydesk SLIP-1\n"),
        "{args}"
    );
    let sent = cups.lp_stdin().expect("lp read the PDF");
    assert!(sent.starts_with(b"%PDF-"));
    // The children never see the API secret, though the CLI had it (the create needed it).
    for dump in ["lp-env", "lpstat-env"] {
        let env = cups.read(dump).expect("the environment was written");
        assert!(env.lines().any(|l| l.starts_with("PATH=")), "{dump}: {env}");
        assert!(!env.contains("PAYDESK_API_SECRET"), "{dump}: {env}");
        assert!(
            !env.contains(paydesk::sandbox::DEMO_API_SECRET),
            "{dump}: {env}"
        );
    }

    // No default printer: saved in the home folder (no Downloads folder is configured).
    cups.forget_lp();
    cups.set_printer(None);
    let saved = cli.run_with(&slip, None, &env);
    assert_eq!(saved.code, 0, "{saved:?}");
    let file = home.path().join("paydesk-slip-SLIP-1.pdf");
    assert_eq!(
        saved.stdout.trim(),
        format!(
            "No default printer; the slip was saved as a PDF to {}",
            file.display()
        )
    );
    assert_eq!(cups.read("lp-args"), None, "lp never ran");
    assert!(
        std::fs::read(&file)
            .expect("the file")
            .starts_with(b"%PDF-")
    );

    // --out writes the PDF where asked, at the size asked, and prints nothing else.
    let out = home.path().join("a6.pdf");
    let a6 = cli.run_with(
        &[
            "--profile",
            "shop",
            "link",
            "slip",
            &id,
            "--size",
            "a6",
            "--out",
            out.to_str().expect("UTF-8"),
        ],
        None,
        &env,
    );
    assert_eq!(a6.code, 0, "{a6:?}");
    assert_eq!(a6.stdout.trim(), out.display().to_string());
    assert!(std::fs::read(&out).expect("the file").starts_with(b"%PDF-"));
    let info = std::process::Command::new("pdfinfo")
        .arg(&out)
        .output()
        .expect("pdfinfo (poppler-utils) runs");
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("297.638 x 419.528 pts"), "not A6:\n{info}");

    // A wrong size is a usage error.
    let bad = cli.run_with(&["link", "slip", &id, "--size", "a4"], None, &env);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(bad.stderr.contains("80mm, a6"), "{bad:?}");
}
