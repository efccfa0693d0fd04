//! The History CSV export as a spreadsheet opens it: a cell that begins like a formula is
//! written inert (a single quote before it, the OWASP rule), amounts stay numbers, and the
//! file, which holds payers' e-mails and phones, is readable by its owner only — written by
//! the store's writer and by `paydesk link list --csv`.

use crate::support::cli::Cli;
use crate::support::time::t_stored;
use paydesk::api::wire::PaymentLink;
use paydesk::clock::Zone;
use paydesk::store::{LINK_CSV_HEADER, LinkQuery, Profile, Store, create_private_file};

const HYPERLINK: &str = "=HYPERLINK(\"http://x\",\"y\")";

/// A link whose text fields a payer or a server could have filled with formulas.
fn hostile_link() -> PaymentLink {
    serde_json::from_value(serde_json::json!({
        "id": "lnk_formula",
        "orderNumber": "-2+3",
        "referenceNumber": "@SUM(A1:A9)",
        "amount": 1250.50,
        "paidAmount": 0,
        "remainingAmount": -5.25,
        "currency": "TRY",
        "status": "PENDING",
        "description": HYPERLINK,
        "email": "+cmd|' /C calc'!A0",
        "phoneCountryCode": "+90",
        "phoneNumber": "\tnumber",
        "transactionRef": "\r=1+1",
        "paymentUrl": "https://pay.example/lnk_formula",
        "createdDate": "2026-09-21T14:13:20Z"
    }))
    .expect("a link answer")
}

fn rows_of(text: &str) -> Vec<csv::StringRecord> {
    csv::Reader::from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("a record"))
        .collect()
}

fn field<'r>(row: &'r csv::StringRecord, name: &str) -> &'r str {
    let at = LINK_CSV_HEADER
        .iter()
        .position(|h| *h == name)
        .expect("a column");
    &row[at]
}

/// Every text cell that begins like a formula is quoted inert; amounts are kept as numbers.
fn assert_inert(row: &csv::StringRecord) {
    assert_eq!(field(row, "description"), format!("'{HYPERLINK}"));
    assert_eq!(field(row, "orderNumber"), "'-2+3");
    assert_eq!(field(row, "referenceNumber"), "'@SUM(A1:A9)");
    assert_eq!(field(row, "email"), "'+cmd|' /C calc'!A0");
    assert_eq!(field(row, "phoneCountryCode"), "'+90");
    assert_eq!(field(row, "phoneNumber"), "'\tnumber");
    assert_eq!(field(row, "transactionRef"), "'\r=1+1");
    // Untouched: plain text, and the amounts (a negative one reads as a number).
    assert_eq!(field(row, "id"), "lnk_formula");
    assert_eq!(field(row, "paymentUrl"), "https://pay.example/lnk_formula");
    assert_eq!(field(row, "amount"), "1250.5");
    assert_eq!(field(row, "remainingAmount"), "-5.25");
    assert_eq!(field(row, "createdDate"), "2026-09-21T14:13:20Z");
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("the file exists")
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn a_formula_in_a_text_cell_is_written_inert_into_a_private_file() {
    let mut store = Store::open_in_memory().expect("a store");
    store
        .upsert_link("shop", &hostile_link(), t_stored())
        .expect("stored");
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("history.csv");
    // A file already there, readable by everyone: it is emptied and made private.
    std::fs::write(&path, "old contents").expect("written");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    }
    let file = create_private_file(&path).expect("created");
    let n = store
        .history()
        .export_links_csv("shop", &LinkQuery::default(), None, Zone::hours(3), file)
        .expect("exported");
    assert_eq!(n, 1);
    let text = std::fs::read_to_string(&path).expect("read back");
    assert!(!text.contains("old contents"), "{text}");
    let rows = rows_of(&text);
    assert_eq!(rows.len(), 1);
    assert_inert(&rows[0]);
    #[cfg(unix)]
    {
        assert_eq!(mode(&path), 0o600, "an existing file is made private");
        let fresh = dir.path().join("fresh.csv");
        drop(create_private_file(&fresh).expect("created"));
        assert_eq!(mode(&fresh), 0o600, "a new file is private");
    }
}

#[test]
fn link_list_csv_writes_an_inert_private_file() {
    let cli = Cli::new();
    {
        let mut store = Store::open(cli.data_dir()).expect("the CLI's store");
        store
            .profile_add(
                &Profile::new("shop", "http://127.0.0.1:9", "pk_test_shop"),
                t_stored(),
            )
            .expect("a profile");
        store
            .upsert_link("shop", &hostile_link(), t_stored())
            .expect("stored");
    }
    let path = cli.data_dir().join("export.csv");
    let out = cli.run_with(
        &[
            "--profile",
            "shop",
            "link",
            "list",
            "--csv",
            path.to_str().expect("a UTF-8 path"),
        ],
        None,
        &[("PAYDESK_API_SECRET", "sk_test_anything")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let text = std::fs::read_to_string(&path).expect("written");
    let rows = rows_of(&text);
    assert_eq!(rows.len(), 1, "{text}");
    assert_inert(&rows[0]);
    #[cfg(unix)]
    assert_eq!(mode(&path), 0o600);
}

/// The export writes the read model's values (docs/design.md §4): what the server never sent
/// reads as History shows it (a status, a currency, the flags), and an unknown amount, text or
/// time stays an empty cell.
#[test]
fn a_field_the_server_never_sent_is_written_as_the_desk_reads_it() {
    let mut store = Store::open_in_memory().expect("a store");
    let bare: PaymentLink =
        serde_json::from_value(serde_json::json!({"id": "lnk_bare"})).expect("a link answer");
    store
        .upsert_link("shop", &bare, t_stored())
        .expect("stored");
    let mut out = Vec::new();
    store
        .history()
        .export_links_csv(
            "shop",
            &LinkQuery::default(),
            None,
            Zone::hours(3),
            &mut out,
        )
        .expect("exported");
    let rows = rows_of(std::str::from_utf8(&out).expect("UTF-8"));
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(field(row, "id"), "lnk_bare");
    assert_eq!(field(row, "status"), "PENDING");
    assert_eq!(field(row, "currency"), "TRY");
    assert_eq!(field(row, "allowPartialPayment"), "false");
    assert_eq!(field(row, "enableInstallment"), "false");
    for unknown in [
        "amount",
        "paidAmount",
        "remainingAmount",
        "orderNumber",
        "description",
        "email",
        "expiryDate",
        "expiryDateLocal",
        "createdDate",
        "cancelledAt",
    ] {
        assert_eq!(field(row, unknown), "", "{unknown}");
    }
}
