//! Barcode scanning in the real `App` (kittest, by role and label, no GPU) against the
//! in-process sandbox: a keyboard-wedge scanner's digits and Enter, all in one frame as a fast
//! scanner delivers them, add catalog items on New link; F2 reaches the scan field; an unknown
//! or mistyped code changes nothing but the note next to the field; a barcode typed in the
//! Catalog view is saved by the worker and then scans.

use std::path::Path;

use crate::support::app::{AppEnv, Start};
use egui_kittest::kittest::{NodeT, Queryable};
use paydesk::app::View;
use paydesk::domain::{Barcode, ItemDraft};
use paydesk::store::Store;

const SCAN: &str = "Scan barcode";
/// Barcodes of the test catalog (ids of the sandbox's fixture, so links are accepted).
const SIMIT: &str = "8690000000005";
const TURK_KAHVESI: &str = "036000291452";
/// A valid EAN-13 that no item has.
const UNKNOWN: &str = "5901234123457";

/// The shared app harness, with this file's scanner helpers.
type Env = AppEnv;

/// The app on a fresh data folder whose catalog was imported before start.
fn start() -> Env {
    let mut env = AppEnv::start(Start::default(), import_catalog, |_, _| {});
    env.until("the catalog is loaded", |app| app.holds.catalog.len() == 3);
    env
}

fn import_catalog(dir: &Path) {
    import_csv(
        dir,
        &format!(
            "id;name;unit_price;currency;barcode\n\
             var_simit;Susamlı Simit;25,00;TRY;{SIMIT}\n\
             var_turk_kahvesi;Türk Kahvesi;85,00;TRY;0{TURK_KAHVESI}\n\
             var_filtre_kahve;Filtre Kahve;110,00;TRY;\n"
        ),
    );
}

fn import_csv(dir: &Path, csv: &str) {
    let mut store = Store::open(dir).expect("test set-up");
    let done = store
        .catalog_import_csv(csv.as_bytes())
        .expect("test set-up");
    assert!(done.errors.is_empty(), "{:?}", done.errors);
}

impl AppEnv {
    /// What a keyboard-wedge scanner does: one key per digit, then Enter, faster than a frame.
    fn scan(&mut self, code: &str) {
        for c in code.chars() {
            self.harness.event(egui::Event::Text(c.to_string()));
        }
        self.harness.key_press(egui::Key::Enter);
        self.harness.step();
        self.harness.run_steps(2);
    }

    /// Replaces the text of a field (select all, then type), then presses Enter.
    fn replace_in(&mut self, label: &str, text: &str) {
        self.harness.get_by_label(label).focus();
        self.harness.run_steps(1);
        self.harness
            .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        self.harness.key_press(egui::Key::Backspace);
        for c in text.chars() {
            self.harness.event(egui::Event::Text(c.to_string()));
        }
        self.harness.key_press(egui::Key::Enter);
        self.harness.run_steps(2);
    }

    fn focused(&self, label: &str) -> bool {
        self.harness.get_by_label(label).is_focused()
    }

    fn scan_text(&self) -> String {
        self.app().views.new_link.scan_text().to_owned()
    }

    fn items(&self) -> Vec<ItemDraft> {
        self.app().views.new_link.draft().items.clone()
    }

    /// Everything the sandbox holds, from its admin route.
    fn server_state(&self) -> serde_json::Value {
        serde_json::from_str(&self.admin(reqwest::Method::GET, "/sandbox/state", ""))
            .expect("the state is JSON")
    }
}

/// Every `{productVariantId, quantity}` pair anywhere in the sandbox's state.
fn collect_items(v: &serde_json::Value, out: &mut Vec<(String, u64)>) {
    match v {
        serde_json::Value::Object(map) => {
            if let (Some(id), Some(q)) = (
                map.get("productVariantId").and_then(|i| i.as_str()),
                map.get("quantity").and_then(serde_json::Value::as_u64),
            ) {
                out.push((id.to_owned(), q));
            }
            map.values().for_each(|x| collect_items(x, out));
        }
        serde_json::Value::Array(list) => list.iter().for_each(|x| collect_items(x, out)),
        _ => {}
    }
}

#[test]
fn f2_takes_the_focus_to_the_scan_field() {
    let mut env = start();
    env.harness.run_steps(2);
    assert!(env.focused("Amount"), "the amount has the first focus");
    env.type_into("Description", "Masa 4");
    assert!(env.focused("Description"));
    env.harness.key_press(egui::Key::F2);
    env.harness.run_steps(2);
    assert!(env.focused(SCAN));
    assert!(!env.focused("Description"));
    // What was typed stays where it was typed.
    assert_eq!(env.app().views.new_link.draft().description, "Masa 4");
}

#[test]
fn a_scan_adds_the_item_and_a_second_scan_adds_one_to_its_quantity() {
    let mut env = start();
    env.harness.key_press(egui::Key::F2);
    env.harness.run_steps(2);

    env.scan(SIMIT);
    assert_eq!(env.items(), [ItemDraft::catalog("var_simit", "1")]);
    env.harness
        .get_by_label("✓ Added: Susamlı Simit · Quantity 1");
    // The empty amount took the items total; the field is ready for the next scan.
    assert_eq!(env.app().views.new_link.draft().amount, "25.00");
    assert_eq!(env.scan_text(), "");
    assert!(env.focused(SCAN));

    env.scan(SIMIT);
    assert_eq!(env.items(), [ItemDraft::catalog("var_simit", "2")]);
    env.harness
        .get_by_label("✓ Added: Susamlı Simit · Quantity 2");
    assert_eq!(env.app().views.new_link.draft().amount, "50.00");

    // The catalog holds the UPC-A as 12 digits; a scanner sending it as an EAN-13 finds it.
    env.scan(&format!("0{TURK_KAHVESI}"));
    assert_eq!(
        env.items(),
        [
            ItemDraft::catalog("var_simit", "2"),
            ItemDraft::catalog("var_turk_kahvesi", "1")
        ]
    );
    assert_eq!(env.app().views.new_link.draft().amount, "135.00");
    assert!(env.focused(SCAN));

    // The link carries what was scanned.
    env.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Enter);
    env.until("the link is shown", |app| app.views.shown.is_some());
    let state = env.server_state();
    let mut items = Vec::new();
    collect_items(&state, &mut items);
    items.sort();
    assert_eq!(
        items,
        [
            ("var_simit".to_owned(), 2),
            ("var_turk_kahvesi".to_owned(), 1)
        ],
        "{state:#}"
    );
}

#[test]
fn an_unknown_or_mistyped_barcode_leaves_the_form_as_it_was() {
    let mut env = start();
    env.type_into("Amount", "80");
    env.type_into("Description", "Masa 4");
    env.click("Add item");
    env.type_into("Item name, row 1", "Su");
    env.type_into("Unit price, row 1", "10");
    env.harness.key_press(egui::Key::F2);
    env.harness.run_steps(2);
    env.scan(SIMIT);
    assert_eq!(env.items().len(), 2);
    // The amount follows the items (issue 29): 10.00 of water and a 25.00 simit.
    assert_eq!(env.app().views.new_link.draft().amount, "35.00");
    let before = env.app().views.new_link.draft().clone();

    env.scan(UNKNOWN);
    env.harness
        .get_by_label(&format!("No catalog item has this barcode: {UNKNOWN}"));
    assert!(
        *env.app().views.new_link.draft() == before,
        "the form changed"
    );
    assert_eq!(env.scan_text(), UNKNOWN, "the code stays in the field");
    assert!(env.focused(SCAN), "the focus stays in the scan field");

    // The code was left selected: the next scan replaces it rather than adding to it.
    env.scan(SIMIT);
    assert_eq!(env.items()[1], ItemDraft::catalog("var_simit", "2"));
    assert_eq!(env.scan_text(), "");
    let before = env.app().views.new_link.draft().clone();

    // A misread digit: the check digit says so, and nothing changes.
    env.scan("8690000000006");
    env.harness.get_by_label(
        "Barcode 8690000000006: check digit is 6, expected 5: a digit was misread or mistyped",
    );
    assert!(
        *env.app().views.new_link.draft() == before,
        "the form changed"
    );
    assert_eq!(env.scan_text(), "8690000000006");
    assert!(env.focused(SCAN));
    env.scan("12");
    env.harness
        .get_by_label_contains("Barcode 12: 2 digits long");
    assert!(
        *env.app().views.new_link.draft() == before,
        "the form changed"
    );
    assert!(env.focused(SCAN));
}

#[test]
fn a_barcode_typed_in_the_catalog_view_is_checked_saved_by_the_worker_and_then_scans() {
    let mut env = start();
    env.nav(View::Catalog);
    // The Barcode column shows what the CSV gave.
    env.harness.get_by_label("Barcode");
    assert_eq!(
        env.harness
            .get_by_label("Barcode: Susamlı Simit")
            .accesskit_node()
            .value()
            .as_deref(),
        Some(SIMIT)
    );

    // A wrong check digit is refused where it was typed, and kept there.
    env.replace_in("Barcode: Filtre Kahve", "4006381333937");
    env.harness.get_by_label(
        "Barcode 4006381333937: check digit is 7, expected 1: a digit was misread or mistyped",
    );
    assert!(
        env.app().holds.catalog["var_filtre_kahve"]
            .barcode
            .is_none()
    );
    assert_eq!(
        env.app().views.catalog.barcode_edits()["var_filtre_kahve"],
        "4006381333937"
    );

    // Another item's barcode is refused, naming that item; nothing is saved.
    env.replace_in("Barcode: Filtre Kahve", SIMIT);
    env.harness
        .get_by_label("This barcode already belongs to Susamlı Simit.");
    // By its name: the catalog id is not for the clerk.
    assert!(env.harness.query_by_label_contains("var_simit").is_none());
    assert!(env.app().views.catalog.barcode_saving().is_empty());
    assert!(
        env.app().holds.catalog["var_filtre_kahve"]
            .barcode
            .is_none()
    );

    // Emptying Simit's field removes its barcode, through the worker and the store ...
    env.replace_in("Barcode: Susamlı Simit", "");
    env.until("Simit's barcode is removed", |app| {
        app.holds.catalog["var_simit"].barcode.is_none()
    });
    // ... and then Enter in Filtre Kahve's field, which kept the code, saves it there.
    env.harness.get_by_label("Barcode: Filtre Kahve").focus();
    env.harness.run_steps(1);
    env.harness.key_press(egui::Key::Enter);
    let simit = Barcode::parse(SIMIT).expect("a barcode");
    env.until("Filtre Kahve has the barcode", |app| {
        app.holds.catalog["var_filtre_kahve"].barcode.as_ref() == Some(&simit)
    });
    assert!(env.app().views.catalog.barcode_errors().is_empty());
    assert!(env.app().views.catalog.barcode_edits().is_empty());
    let stored = env
        .services
        .inspect(|s| s.catalog().by_barcode(&simit))
        .expect("the store answers")
        .map(|v| v.id);
    assert_eq!(stored.as_deref(), Some("var_filtre_kahve"));

    // New link scans it as Filtre Kahve now.
    env.nav(View::NewLink);
    env.harness.key_press(egui::Key::F2);
    env.harness.run_steps(2);
    env.scan(SIMIT);
    assert_eq!(env.items(), [ItemDraft::catalog("var_filtre_kahve", "1")]);
}

#[test]
fn a_scanned_item_priced_higher_by_the_server_is_sold_at_its_price_after_one_click() {
    // This desk's catalog is behind: Simit is 20,00 here and 25.00 on the server, which is
    // the price authority for a catalog row.
    let mut env = AppEnv::start(
        Start::default(),
        |dir| {
            import_csv(
                dir,
                &format!(
                    "id;name;unit_price;currency;barcode\nvar_simit;Susamlı Simit;20,00;TRY;{SIMIT}\n"
                ),
            );
        },
        |_, _| {},
    );
    env.until("the catalog is loaded", |app| app.holds.catalog.len() == 1);
    env.harness.key_press(egui::Key::F2);
    env.harness.run_steps(2);
    env.scan(SIMIT);
    env.scan(SIMIT);
    assert_eq!(env.app().views.new_link.draft().amount, "40.00");
    env.click("Create link");
    env.until_label("The server expects the amount: ₺50.00");
    assert!(env.app().views.shown.is_none(), "the form stays as it was");
    env.click("Use this amount");
    assert_eq!(env.app().views.new_link.draft().amount, "50.00");
    assert!(
        env.create_button_enabled(),
        "the server's own figure must not be refused by this desk's older price"
    );
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    let link = env.app().views.shown.as_ref().unwrap().link().clone();
    assert_eq!(link.amount.unwrap().to_string(), "50.00");
}
