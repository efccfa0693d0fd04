//! Words a clerk reads and the shell around the views (issue 29), driving the real `App` by
//! role and label against the in-process sandbox: dates and times as people write them in
//! either language, nothing on Day close a clerk cannot act on, a failed create as one
//! sentence with the technical words behind Details, the navigation in groups with Unsent only
//! while a sale waits, and the top bar with the shop's name and the member's menu.

use std::sync::Arc;

use crate::support::app::{AppEnv, Start};
use chrono::{DateTime, Utc};
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use paydesk::app::View;
use paydesk::clock::{Clock, ManualClock, Zone};
use paydesk::lang::Lang;

/// 28 November 2026, 11:05 UTC: 14:05 in Istanbul.
fn at_1405_istanbul() -> DateTime<Utc> {
    "2026-11-28T11:05:00Z".parse().expect("a time")
}

/// The app on a manual clock at [`at_1405_istanbul`], showing Istanbul's time, at 1024×768.
fn start_in_istanbul() -> AppEnv {
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(at_1405_istanbul()));
    let mut env = AppEnv::start(
        Start {
            clock,
            size: [1024.0, 768.0],
            ..Start::default()
        },
        |_| {},
        |_, _| {},
    );
    env.app_mut().zone = Zone::hours(3);
    env
}

/// How many nodes say `needle` in their name or value.
fn saying(env: &AppEnv, needle: &str) -> usize {
    env.harness
        .query_all_by(|n| {
            [n.label(), n.value()]
                .into_iter()
                .flatten()
                .any(|t| t.contains(needle))
        })
        .count()
}

/// The navigation's entries and headings, top to bottom, as a clerk reads them.
fn navigation(env: &AppEnv) -> Vec<String> {
    let mut shown: Vec<_> = paydesk::ui::widgets::shown(&env.harness.ctx)
        .into_iter()
        .filter(|s| s.what == paydesk::ui::widgets::ShownWhat::Nav)
        .map(|s| (s.rect.top(), s.text))
        .collect();
    shown.sort_by(|a, b| a.0.total_cmp(&b.0));
    shown.into_iter().map(|(_, t)| t).collect()
}

#[test]
fn history_writes_the_moment_as_people_do_in_either_language() {
    // 11:05 UTC on 28 November is that day in every zone from UTC-11 to UTC+12, whichever
    // zone this machine reads days in.
    for (lang, day, between) in [
        (Lang::En, "28 Nov 2026", ", "),
        (Lang::Tr, "28.11.2026", " "),
    ] {
        let mut env = start_in_istanbul();
        env.app_mut().saved.lang = lang;
        env.harness.run_steps(2);
        env.type_into(paydesk::ui::text::UiText::Amount.get(lang), "75");
        env.click(paydesk::ui::text::UiText::Create.get(lang));
        env.until("the link is shown", |app| app.views.shown.is_some());
        env.harness
            .get_by_role_and_label(Role::Button, View::History.title().get(lang))
            .click();
        env.until("the link is listed", |app| {
            app.view == View::History && app.views.history.rows().len() == 1
        });
        env.harness.run_steps(2);
        let created = env.app().views.history.rows()[0].created.clone();
        let time = created
            .strip_prefix(day)
            .and_then(|t| t.strip_prefix(between))
            .unwrap_or_else(|| panic!("{lang:?}: {created}"));
        assert!(
            time.len() == 5 && time.as_bytes()[2] == b':',
            "{lang:?}: {created}"
        );
        // (The one table paints its cells and reads each row as one line without the day:
        // the row's text is what it paints.)
        assert_eq!(
            saying(&env, "2026-11-28"),
            0,
            "{lang:?}: no ISO day on screen"
        );
    }
}

#[test]
fn day_close_shows_no_audit_hash_and_its_day_fields_read_the_clerks_day() {
    let mut env = start_in_istanbul();
    env.type_into("Amount", "75");
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    env.nav(View::Report);
    env.until("the report arrives", |app| {
        app.views.report.report().is_some()
    });
    env.harness.run_steps(2);
    assert_eq!(env.app().views.report.first_text(), "28 Nov 2026");
    // The report holds the head (for the printed report and `report --json`); the view no.
    let head = env
        .app()
        .views
        .report
        .report()
        .map(|r| r.audit_head.clone())
        .expect("a report");
    assert_eq!(head.len(), 64, "the report keeps the head: {head}");
    let hex64 = env
        .harness
        .query_all_by(|n| {
            [n.label(), n.value()].into_iter().flatten().any(|t| {
                t.split(|c: char| !c.is_ascii_hexdigit())
                    .any(|w| w.len() >= 64)
            })
        })
        .count();
    assert_eq!(hex64, 0, "no 64-hex text on Day close");
    assert_eq!(saying(&env, "Audit chain head"), 0);
    // No YYYY-MM-DD placeholder in the day fields.
    assert_eq!(saying(&env, "YYYY"), 0);
}

#[test]
fn a_failed_create_is_one_sentence_and_its_http_status_only_behind_details() {
    let mut env = AppEnv::start(Start::default(), |_| {}, |_, _| {});
    a_sale_the_server_does_not_confirm(&mut env, "error500");
    env.harness.run_steps(2);
    env.harness.get_by_label(
        "The server has not confirmed this sale yet; press Send again, it cannot make a second link.",
    );
    for technical in ["HTTP", "500", "sandbox.fault", "has no answer yet"] {
        assert_eq!(saying(&env, technical), 0, "{technical} before Details");
    }
    env.click("Details");
    assert!(saying(&env, "500") > 0, "the status behind Details");
    env.admin(reqwest::Method::DELETE, "/sandbox/faults", "");
}

#[test]
fn the_navigation_is_grouped_and_unsent_shows_only_while_a_sale_waits() {
    let mut env = AppEnv::start(
        Start {
            size: [1024.0, 768.0],
            ..Start::default()
        },
        |_| {},
        |_, _| {},
    );
    env.harness.run_steps(2);
    let nav = navigation(&env);
    assert_eq!(
        nav,
        [
            "New link",
            "Open links",
            "History",
            "Day close",
            "Installments",
            "Save card",
            "Catalog",
            "Staff",
            "Settings"
        ],
        "the counter, the back office, the shop; no Unsent while nothing waits"
    );
    for heading in ["Counter", "Back office", "Shop"] {
        env.harness.get_by_label(heading);
    }
    assert!(env.harness.query_by_label_contains("Unsent").is_none());

    // A sale the server does not confirm: Unsent appears with its count, with the counter.
    a_sale_the_server_does_not_confirm(&mut env, "lost");
    env.harness.run_steps(2);
    let unsent = env
        .harness
        .get_by_role_and_label(Role::Button, "Unsent (1)")
        .rect();
    let nav = navigation(&env);
    assert_eq!(&nav[..3], ["New link", "Open links", "Unsent"], "{nav:?}");
    env.admin(reqwest::Method::DELETE, "/sandbox/faults", "");

    // In Turkish the longest entry, with its count, stays inside the navigation.
    env.app_mut().saved.lang = Lang::Tr;
    env.harness.run_steps(3);
    let entry = env
        .harness
        .get_by_role_and_label(Role::Button, "Gönderilemeyenler (1)")
        .rect();
    let amount = env.harness.get_by_label("Tutar").rect();
    assert!(
        entry.right() < amount.left(),
        "the entry {entry:?} runs into the view {amount:?}"
    );
    let words = paydesk::ui::widgets::shown(&env.harness.ctx)
        .into_iter()
        .find(|s| s.text == "Gönderilemeyenler")
        .expect("the entry drawn");
    let needed = env.harness.ctx.fonts_mut(|f| {
        f.layout_no_wrap(
            "Gönderilemeyenler".to_owned(),
            egui::FontId::proportional(paydesk::ui::theme::BODY_SIZE),
            egui::Color32::PLACEHOLDER,
        )
        .size()
        .x
    });
    assert!(
        words.rect.width() > needed,
        "{words:?} cut (needs {needed})"
    );
    let _ = unsent;
}

#[test]
fn the_top_bar_names_the_shop_and_the_language_is_in_the_members_menu() {
    let mut env = AppEnv::start(
        Start {
            size: [1024.0, 768.0],
            shop: "Kadıköy Kahve Evi".to_owned(),
            ..Start::default()
        },
        |_| {},
        |_, _| {},
    );
    env.harness.run_steps(2);
    env.harness.get_by_label_contains("Kadıköy Kahve Evi");
    // Language and Theme are no longer in the bar itself.
    assert!(env.harness.query_by_label("Language").is_none());
    env.harness
        .get_by_role_and_label(Role::Button, "Language and theme: Language, theme and lock")
        .click();
    env.harness.run_steps(2);
    env.harness.get_by_label("Türkçe").click();
    env.harness.run_steps(2);
    assert_eq!(env.app().saved.lang, Lang::Tr);
    env.harness.get_by_role_and_label(Role::Button, "Yeni link");
}

/// A sale of 75 whose every create the sandbox answers with fault `kind` (`error500`, `lost`):
/// the form gives up and the sale waits under Unsent.
fn a_sale_the_server_does_not_confirm(env: &mut AppEnv, kind: &str) {
    env.admin(
        reqwest::Method::POST,
        "/sandbox/faults",
        &format!(r#"[{{"endpoint":"link.create","kind":"{kind}","next":100000}}]"#),
    );
    env.type_into("Amount", "75");
    env.click("Create link");
    env.until("the sale waits under Unsent", |app| {
        !app.views.new_link.is_sending() && app.views.pending.count() == 1
    });
}
