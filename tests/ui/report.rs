//! The day close and the History date filter, totals, "Refresh statuses" and CSV export,
//! driven through the real `App` by role and label (`egui_kittest`, no GPU) against the
//! in-process sandbox of the built-in profile, as `tests/ui/app.rs` does.

use std::time::{Duration, Instant};

use crate::support::app::{AppEnv, Start};
use crate::support::money::dec;
use chrono::{Datelike, Local, TimeDelta};
use egui_kittest::kittest::Queryable;
use paydesk::app::View;
use paydesk::domain::{Currency, LinkStatus};
use rust_decimal::Decimal;

/// The shared app harness, with this file's helpers.
type Env = AppEnv;

fn start() -> Env {
    let start = Start {
        shop: String::new(),
        ..Start::default()
    };
    AppEnv::start(start, |_| {}, |_, _| {})
}

impl AppEnv {
    /// Replaces the text of the field labelled `label`.
    fn retype(&mut self, label: &str, text: &str) {
        self.harness.get_by_label(label).focus();
        self.harness
            .key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
        self.harness.key_press(egui::Key::Backspace);
        self.harness.run_steps(1);
        if !text.is_empty() {
            self.harness.get_by_label(label).type_text(text);
        }
        self.harness.run_steps(2);
    }

    fn pay_amount(&self, id: &str, amount: &str) {
        self.admin(
            reqwest::Method::POST,
            &format!("/sandbox/links/{id}/pay"),
            &format!(r#"{{"amount":"{amount}"}}"#),
        );
    }

    /// Creates a link from the New link view with one typed-in item row and waits for its
    /// result view; leaves it with "New link".
    fn create_item_link(
        &mut self,
        item: &str,
        price: &str,
        quantity: &str,
        amount: &str,
    ) -> String {
        self.type_into("Amount", amount);
        self.click("Add item");
        self.type_into("Item name, row 1", item);
        self.type_into("Unit price, row 1", price);
        self.type_into("Quantity, row 1", quantity);
        self.click("Create link");
        self.until("the link is shown", |app| app.views.shown.is_some());
        self.shown_link().id
    }

    fn next_link(&mut self) {
        let made = self
            .app()
            .views
            .shown
            .as_ref()
            .and_then(|s| s.link().order_number.clone());
        self.click("New link");
        self.until("the form is clear", move |app| {
            let next = &app.views.new_link.draft().order_number;
            app.views.shown.is_none() && !next.is_empty() && Some(next) != made.as_ref()
        });
    }
}

#[test]
fn the_day_close_shows_todays_links_per_currency_with_hours_and_items() {
    let mut env = start();
    // Paid in full: 2 × 75.00 filter coffee.
    let coffee = env.create_item_link("Filtre kahve", "75", "2", "150");
    env.pay_amount(&coffee, "150.00");
    env.until("the coffee reads as paid", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.status() == LinkStatus::Completed)
    });
    env.next_link();
    // Cancelled through paydesk: the server says EXPIRED, the report says cancelled.
    env.create_item_link("Simit", "25", "1", "25");
    env.click("Cancel link");
    env.click("Cancel link");
    env.until("the cancel is answered", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(paydesk::ui::link_result::ShownLink::is_cancelled)
    });
    env.next_link();
    // Still pending.
    env.create_item_link("Çay", "15", "4", "60");
    env.next_link();

    env.nav(View::Report);
    assert_eq!(env.app().view, View::Report);
    env.until("the report arrives", |app| {
        app.views.report.report().is_some()
    });
    env.harness.run_steps(2);
    // The day reads as the clerk writes it (issue 29), not ISO.
    let today = paydesk::ui::words::day_text(Local::now().date_naive(), paydesk::lang::Lang::En);
    assert_eq!(
        env.app().views.report.first_text(),
        today,
        "today by default"
    );
    let report = env.app().views.report.report().cloned().expect("a report");
    assert_eq!(report.links, 3);
    let tr = &report.currencies[0];
    assert_eq!(tr.currency, Currency::Try);
    assert_eq!(
        (tr.created, tr.paid.count, tr.cancelled, tr.pending),
        (3, 1, 1, 1)
    );
    assert_eq!(tr.collected, dec("150.00"));
    assert_eq!(
        tr.collected_by_hour
            .iter()
            .map(|t| t.exact().expect("in range"))
            .sum::<Decimal>(),
        dec("150.00")
    );
    // What the clerk reads.
    env.harness.get_by_label("Collected ₺150.00");
    env.harness.get_by_label("Links created");
    env.harness.get_by_label("Paid in full");
    env.harness.get_by_label("Cancelled");
    env.harness.get_by_label("Collected per hour");
    env.harness
        .get_by_label("Best-selling items (of the paid links)");
    env.harness.get_by_label("Filtre kahve");
    assert!(
        env.harness.query_by_label("Çay").is_none(),
        "only the paid links' items"
    );

    // The day before had nothing; Today comes back.
    env.click("Previous day");
    env.until_label("No links were created on these days.");
    let yesterday = paydesk::ui::words::day_text(
        Local::now().date_naive() - chrono::Duration::days(1),
        paydesk::lang::Lang::En,
    );
    assert_eq!(env.app().views.report.first_text(), yesterday);
    env.click("Today");
    env.until_label("Collected ₺150.00");
    // A day typed wrong is said plainly.
    env.retype("Last day", "2026-13-40");
    env.harness
        .get_by_label("Write the day as, for example, 21 Nov 2026, or pick it in the calendar.");

    // History knows the cancel too: the row, and the link opened from it, read "Cancelled".
    env.nav(View::History);
    env.until("the links are listed", |app| {
        app.views.history.rows().len() == 3
    });
    env.harness.run_steps(2);
    // (An AccessKit click: opening History refreshes the open rows, and a row whose status
    // line changes may move under a pointer click aimed a frame earlier.)
    env.harness
        .get_by_label_contains("₺25.00 Cancelled")
        .click_accesskit();
    env.until("the cancelled link opens", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.origin() == paydesk::ui::link_result::Origin::History)
    });
    let shown = env.app().views.shown.as_ref().expect("shown");
    assert_eq!(shown.link().amount, Some(dec("25.00")), "the row clicked");
    assert!(shown.is_cancelled());
}

#[test]
fn history_filters_by_day_totals_the_set_refreshes_open_rows_and_exports_csv() {
    let mut env = start();
    let first = env.create_item_link("Çay", "15", "2", "30");
    env.next_link();
    let second = env.create_item_link("Simit", "25", "2", "50");
    env.next_link();
    env.nav(View::History);
    env.until("both links are listed", |app| {
        app.views.history.rows().len() == 2
    });
    // Opening the view asks about its open rows by itself.
    env.until("opening the view refreshed both open rows", |app| {
        app.views
            .history
            .refresh()
            .is_some_and(|r| r.ids().len() == 2 && r.done() == 2)
    });
    env.until_label("2 links  ·  Asked ₺80.00  ·  Collected ₺0.00");

    // A day with no links: an empty list that says so, and totals of nothing.
    let tomorrow = (Local::now().date_naive() + chrono::Duration::days(1)).to_string();
    env.type_into("From day", &tomorrow);
    env.until("the filter empties the list", |app| {
        app.views.history.rows().is_empty() && !app.views.history.is_loading()
    });
    env.until_label("No links match this filter.");
    env.until_label("0 links");
    // Today only: both again.
    let today = Local::now().date_naive().to_string();
    env.retype("From day", &today);
    env.type_into("To day", &today);
    env.until("today's links are listed", |app| {
        app.views.history.rows().len() == 2
    });
    env.until_label("2 links");
    // A day typed wrong keeps the last good filter and says why.
    env.retype("To day", "23.13.2026");
    env.harness
        .get_by_label("Write the day as, for example, 21 Nov 2026, or pick it in the calendar.");
    assert_eq!(env.app().views.history.rows().len(), 2);
    env.retype("To day", &today);

    // Paid on the server: "Refresh statuses" asks for each open row, a second apart.
    env.pay_amount(&first, "30.00");
    let started = Instant::now();
    env.click("Refresh statuses");
    env.until("both rows answered", |app| {
        app.views
            .history
            .refresh()
            .is_some_and(|r| r.done() == r.ids().len())
    });
    assert_eq!(
        env.app().views.history.refresh().map(|r| r.ids().len()),
        Some(2)
    );
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "two requests at least a second apart: {:?}",
        started.elapsed()
    );
    env.until_label("Statuses refreshed; links changed: 1");
    let row = |id: &str| {
        env.app()
            .views
            .history
            .rows()
            .iter()
            .find(|r| r.id == id)
            .expect("a row")
            .status
            .clone()
    };
    assert_eq!(row(&first), LinkStatus::Completed);
    assert_eq!(row(&second), LinkStatus::Pending);
    env.until_label("2 links  ·  Asked ₺80.00  ·  Collected ₺30.00");

    // Export: every link of the filter, read back with the csv crate.
    let out = env.dir.path().join("exports");
    std::fs::create_dir_all(&out).expect("test set-up");
    env.app_mut().export_dir = Some(out.clone());
    env.click("Export CSV");
    env.until_label("2 links exported to");
    let file = std::fs::read_dir(&out)
        .expect("the folder")
        .next()
        .expect("one file")
        .expect("an entry")
        .path();
    assert!(
        env.harness
            .query_by_label_contains(&file.display().to_string())
            .is_some(),
        "the note names the file"
    );
    let mut reader = csv::Reader::from_path(&file).expect("the CSV opens");
    let ids: Vec<(String, String, String)> = reader
        .records()
        .map(|r| {
            let r = r.expect("a record");
            (r[0].to_owned(), r[6].to_owned(), r[9].to_owned())
        })
        .collect();
    assert_eq!(
        ids,
        vec![
            (second, "0.00".to_owned(), "PENDING".to_owned()),
            (first, "30.00".to_owned(), "COMPLETED".to_owned()),
        ]
    );
}

/// The link-detail requests the sandbox saw since its log was cleared, by link id.
fn detail_requests(env: &Env) -> Vec<String> {
    let seen: serde_json::Value =
        serde_json::from_str(&env.admin(reqwest::Method::GET, "/sandbox/requests", ""))
            .expect("the request log is JSON");
    seen["content"]["recent"]
        .as_array()
        .expect("a list of requests")
        .iter()
        .filter(|r| r["endpoint"] == "link.detail")
        .map(|r| r["linkId"].as_str().expect("a link id").to_owned())
        .collect()
}

#[test]
fn the_day_close_presets_set_the_range_and_a_day_picked_on_the_calendar_lands_in_the_field() {
    let mut env = start();
    env.nav(View::Report);
    env.until("the report arrives", |app| {
        app.views.report.report().is_some()
    });
    let today = Local::now().date_naive();
    let days = |env: &Env| {
        let report = &env.app().views.report;
        (
            report.first_text().to_owned(),
            report.last_text().to_owned(),
        )
    };
    let shown = |d: chrono::NaiveDate| paydesk::ui::words::day_text(d, paydesk::lang::Lang::En);
    let text = |a: chrono::NaiveDate, b: chrono::NaiveDate| (shown(a), shown(b));
    let yesterday = today - TimeDelta::days(1);
    env.click("Yesterday");
    assert_eq!(days(&env), text(yesterday, yesterday));
    env.click("This week");
    let monday = today - TimeDelta::days(i64::from(today.weekday().num_days_from_monday()));
    assert_eq!(days(&env), text(monday, today), "Monday to today");
    env.click("This month");
    let first = today.with_day(1).expect("a first day");
    assert_eq!(days(&env), text(first, today), "the 1st to today");
    env.click("Today");
    assert_eq!(days(&env), text(today, today));
    // The report follows the presets: it was made for the days chosen last.
    env.until("today's report", move |app| {
        app.views.report.loaded() == Some((today, today))
    });

    // The calendar opens on the typed day's month; a day picked lands in the field.
    env.click("Calendar: First day");
    env.harness
        .get_by_label(&paydesk::ui::calendar::month_title(
            today,
            paydesk::lang::Lang::En,
        ));
    env.harness
        .get_all_by_label("15")
        .next()
        .expect("the 15th")
        .click();
    env.harness.run_steps(2);
    let fifteenth = today.with_day(15).expect("a 15th");
    assert_eq!(env.app().views.report.first_text(), shown(fifteenth));
    assert!(
        env.harness.query_by_label("Next month").is_none(),
        "the calendar closes on a pick"
    );
    // Typing stays possible, ISO too.
    env.retype("First day", &today.to_string());
    assert_eq!(env.app().views.report.first_text(), today.to_string());
    env.until("the typed day's report", move |app| {
        app.views.report.loaded() == Some((today, today))
    });

    // History's day fields open the same calendar.
    env.nav(View::History);
    env.until("the empty list is shown", |app| {
        app.views.history.loaded_filter().is_some() && !app.views.history.is_loading()
    });
    env.click("Calendar: To day");
    env.harness
        .get_all_by_label("15")
        .next()
        .expect("the 15th")
        .click();
    env.harness.run_steps(2);
    assert_eq!(env.app().views.history.to_text(), shown(fifteenth));
    assert_eq!(env.app().views.history.filter().to, Some(fifteenth));
}

#[test]
fn refresh_in_the_day_close_asks_the_server_about_the_days_open_links_and_counts_payments() {
    // Open links' background refresh kept quiet: on a loaded machine it could hear of the
    // simit's payment before Refresh counts the open links, and the test is about Refresh.
    let quiet = paydesk::board::Pace {
        first: std::time::Duration::from_hours(1),
        max: std::time::Duration::from_hours(1),
    };
    let start = Start {
        shop: String::new(),
        ..Start::default()
    };
    let mut env = AppEnv::start(start, |_| {}, |options, _| options.board_pace = quiet);
    let paid = env.create_item_link("Çay", "15", "2", "30");
    env.pay_amount(&paid, "30.00");
    env.until("the tea reads as paid", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.status() == LinkStatus::Completed)
    });
    env.next_link();
    let open_a = env.create_item_link("Simit", "25", "2", "50");
    env.next_link();
    let open_b = env.create_item_link("Su", "10", "1", "10");
    env.next_link();
    env.nav(View::Report);
    env.until_label("Collected ₺30.00");

    // Paid on the server. Refresh asks about the day's open links (never the one known paid),
    // then makes the report again. On a loaded machine the refresh that followed the simit
    // while its QR was shown may hear of the payment first: then only the water is open.
    env.pay_amount(&open_a, "50.00");
    env.admin(reqwest::Method::DELETE, "/sandbox/requests", "");
    env.click("Refresh");
    let today = Local::now().date_naive();
    env.until("the refresh is over", |app| {
        app.views
            .report
            .refresh()
            .is_some_and(|r| r.total.is_some_and(|t| r.done >= t))
    });
    let over = env
        .app()
        .views
        .report
        .refresh()
        .cloned()
        .expect("a refresh");
    assert!(
        matches!(over.total, Some(1 | 2)) && over.total == Some(over.done),
        "each open link answered once: {over:?}"
    );
    assert_eq!(
        env.app().views.report.refresh().and_then(|r| r.days),
        Some((today, today)),
        "the days shown"
    );
    let asked = detail_requests(&env);
    if over.total == Some(2) {
        assert!(asked.contains(&open_a), "{asked:?}");
    }
    assert!(asked.contains(&open_b), "{asked:?}");
    assert!(
        !asked.contains(&paid),
        "a paid link is not asked about: {asked:?}"
    );
    env.until_label("Collected ₺80.00");
    assert!(
        env.harness
            .query_by_label_contains("Refresh statuses")
            .is_none(),
        "no sentence sends the clerk to History"
    );
}

#[test]
fn without_a_file_dialog_exports_go_to_the_usual_folder_and_the_catalog_path_is_typed() {
    // No zenity on PATH and no session bus: no dialog can open on this desktop.
    let no_zenity = tempfile::tempdir().expect("test set-up");
    let dialogs = paydesk::app::files::FileDialogs::looking_in(
        Some(no_zenity.path().as_os_str().to_owned()),
        None,
    );
    let start = Start {
        shop: String::new(),
        ..Start::default()
    };
    let mut env = AppEnv::start(
        start,
        |_| {},
        move |options, _| {
            options.file_dialogs = dialogs;
        },
    );
    env.create_item_link("Çay", "15", "2", "30");
    env.next_link();

    // History's export: today's way (the export folder), and the note says why there.
    env.nav(View::History);
    env.until("the link is listed", |app| {
        app.views.history.rows().len() == 1
    });
    let out = env.dir.path().join("exports");
    std::fs::create_dir_all(&out).expect("test set-up");
    env.app_mut().export_dir = Some(out.clone());
    env.click("Export CSV");
    env.until_label("1 link exported to");
    let files: Vec<_> = std::fs::read_dir(&out)
        .expect("the folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(
        env.harness
            .query_by_label_contains("No file dialog can open on this desktop")
            .is_some(),
        "the note says why the file went there"
    );

    // The catalog: "Choose file…" finds no dialog, says so, and the typed path still works.
    env.nav(View::Catalog);
    env.click("Choose file…");
    env.until_label(
        "No file dialog can open on this desktop: type the file's path into the field.",
    );
    assert!(env.disabled("Choose file…"), "no second try at a dialog");
    let csv = env.dir.path().join("catalog.csv");
    std::fs::write(
        &csv,
        "id,name,unit_price,currency\nvar_simit,Simit,25.00,TRY\n",
    )
    .expect("test set-up");
    env.type_into("CSV file", &csv.display().to_string());
    env.click("Preview");
    env.until("the preview is shown", |app| {
        matches!(
            app.views.catalog.outcome(),
            Some(paydesk::ui::catalog::CsvOutcome::Preview(_))
        )
    });
}

#[test]
fn the_day_close_says_how_many_links_were_sent_and_paid_after_sending() {
    let mut env = start();
    let sent = env.create_item_link("Pasta", "120", "1", "120");
    env.next_link();
    let unpaid = env.create_item_link("Börek", "40", "1", "40");
    env.next_link();
    let phone = paydesk::domain::phone::Phone::parse("05321234567", 90).expect("a mobile");
    for id in [&sent, &unpaid] {
        env.services
            .record_whatsapp_send(&paydesk::domain::Actor::default(), id, &phone)
            .expect("the send is recorded");
    }
    env.pay_amount(&sent, "120.00");
    env.nav(View::Report);
    env.until("the report arrives", |app| {
        app.views.report.report().is_some()
    });
    // The payment counts once the desk hears it: Refresh asks the server.
    env.until_label("Sent to customers: 2 links,");
    env.click("Refresh");
    env.until_label("Sent to customers: 2 links, 1 paid after sending");
    let report = env.app().views.report.report().cloned().expect("a report");
    assert_eq!((report.sent.links, report.sent.paid_after), (2, 1));
}
