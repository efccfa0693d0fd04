//! Staff at a shared till, in the real window (kittest): the lock screen from the keyboard
//! alone, switching clerks from the top bar, a half-typed sale kept for its clerk, the idle
//! lock on the manual clock, Ctrl+L, and a manager's PIN approving a clerk's cancel of a
//! colleague's link (the audit names both); with no staff the app opens on New link as before.

use std::sync::Arc;

use crate::support::app::{AppEnv, Start};
use chrono::{Duration, Utc};
use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};
use paydesk::clock::{Clock, ManualClock, SystemClock};
use paydesk::domain::{Actor, Pin, Role as StaffRole, StaffName};
use paydesk::service::Services;
use paydesk::store::AuditFilter;

pub(crate) const MANAGER: (&str, &str) = ("Zeynep", "1111");
const AYSE: (&str, &str) = ("Ayşe", "2222");
const MEHMET: (&str, &str) = ("Mehmet", "3333");

/// The lock screen's heading.
pub(crate) const LOCKED: &str = "Who is at the till?";

/// Zeynep (manager), Ayşe and Mehmet (counter clerks), added before the window opens.
pub(crate) fn add_staff(services: &Services) {
    let now = services.clock().now();
    services
        .inspect(|s| {
            for ((name, pin), role) in [
                (MANAGER, StaffRole::Manager),
                (AYSE, StaffRole::Counter),
                (MEHMET, StaffRole::Counter),
            ] {
                let name = StaffName::parse(name).expect("a name");
                let pin = Pin::parse(pin).expect("a PIN");
                s.staff_add(&Actor::nobody(), &name, role, &pin, now)?;
            }
            Ok(())
        })
        .expect("staff added");
}

/// The app with staff on, on `clock`.
pub(crate) fn start_staffed(clock: Arc<dyn Clock>) -> AppEnv {
    let start = Start {
        clock,
        ..Start::default()
    };
    let mut env = AppEnv::start(start, |_| {}, |_, services| add_staff(services));
    env.until_label(LOCKED);
    env
}

impl AppEnv {
    /// Signs `who` in as a clerk does with the mouse: the name's button, the PIN, Enter.
    pub(crate) fn sign_in(&mut self, (name, pin): (&str, &str)) {
        self.harness
            .get_by_role_and_label(Role::Button, name)
            .click();
        self.harness.run_steps(2);
        self.harness.get_by_label("PIN").type_text(pin);
        self.harness.run_steps(1);
        self.harness.key_press(egui::Key::Enter);
        self.until(&format!("{name} is signed in"), |app| {
            app.staff.actor.name() == Some(name)
        });
        self.harness.run_steps(2);
    }

    /// Locks the desk with Ctrl+L and waits for the lock screen.
    fn ctrl_l(&mut self) {
        self.harness
            .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::L);
        self.until("the desk locks", |app| app.staff.locked());
        self.until_label(LOCKED);
    }

    /// Creates a link for `amount` from the New link form; returns it once shown.
    pub(crate) fn sell(&mut self, amount: &str) -> paydesk::domain::Link {
        self.type_into("Amount", amount);
        self.click("Create link");
        self.until("the link is shown", |app| app.views.shown.is_some());
        self.shown_link()
    }

    fn audit(&self) -> Vec<paydesk::store::AuditRow> {
        self.services
            .inspect(|s| s.audit().list(&AuditFilter::default()))
            .expect("the audit reads")
    }

    /// Mehmet sells for `amount` and locks the desk; Ayşe signs in and asks to cancel his
    /// link, which her role does not allow: the manager's approval prompt opens.
    fn clerk_asks_to_cancel_a_colleagues_sale(&mut self, amount: &str) -> paydesk::domain::Link {
        self.sign_in(MEHMET);
        let link = self.sell(amount);
        self.ctrl_l();
        self.sign_in(AYSE);
        self.open_and_cancel(&link);
        link
    }

    /// Opens `link` from the board beside New link (its row begins with the order number),
    /// and asks to cancel it.
    fn open_and_cancel(&mut self, link: &paydesk::domain::Link) {
        let order = link.order_number.clone().expect("an order number");
        self.until("the board lists the link", |app| {
            app.views.board.rows().iter().any(|r| r.link.id == link.id)
        });
        self.harness.run_steps(2);
        self.harness
            .query_all_by(|n| {
                n.role() == Role::Button && n.label().is_some_and(|l| l.starts_with(&order))
            })
            .next()
            .expect("the link's row on the board")
            .click();
        self.harness.run_steps(2);
        self.harness
            .get_all_by_label("Cancel link")
            .last()
            .expect("a Cancel link button")
            .click_accesskit();
        self.harness.run_steps(2);
        self.click("Cancel link");
        self.until_label("A manager's PIN is needed for: Cancel link");
        self.harness.run_steps(2);
    }
}

#[test]
fn with_no_staff_the_app_opens_straight_on_new_link() {
    let mut env = AppEnv::start(Start::default(), |_| {}, |_, _| {});
    env.harness.run_steps(2);
    env.harness.get_by_label("Amount");
    assert!(env.harness.query_by_label(LOCKED).is_none());
    assert!(
        env.harness.query_by_label("Audit").is_none(),
        "no Audit entry"
    );
    assert!(!env.app().staff.locked());
}

#[test]
fn the_lock_screen_signs_in_from_the_keyboard_alone() {
    let mut env = start_staffed(Arc::new(SystemClock));
    // Nothing of the desk shows: no form, no navigation.
    assert!(env.harness.query_by_label("Amount").is_none());
    assert!(env.harness.query_by_label("History").is_none());
    // The name field has the focus: the first letters pick the name, the digits go on into
    // the PIN, Enter signs in. No click.
    env.harness.run_steps(2);
    assert!(env.harness.get_by_label("Name").is_focused());
    env.harness.event(egui::Event::Text("ay".into()));
    env.harness.run_steps(2);
    assert_eq!(env.app().views.lock.chosen(), Some("Ayşe"));
    env.harness.event(egui::Event::Text("2222".into()));
    env.harness.run_steps(2);
    assert!(env.harness.get_by_label("PIN").is_focused());
    env.harness.key_press(egui::Key::Enter);
    env.until("Ayşe is signed in", |app| {
        app.staff.actor.name() == Some("Ayşe")
    });
    env.until_shown("Amount");
    // The member's menu carries the clerk's name (issue 29: it opens Language, Theme, Lock).
    env.harness.get_by_role_and_label(
        Role::Button,
        "Ayşe · Counter clerk: Language, theme and lock",
    );
    // A wrong PIN is said plainly and signs nobody in.
    env.ctrl_l();
    env.harness.event(egui::Event::Text("me9999".into()));
    env.harness.run_steps(2);
    env.harness.key_press(egui::Key::Enter);
    env.until_label("Wrong PIN");
    assert!(env.app().staff.locked());
}

#[test]
fn a_clerk_switches_from_the_top_bar_and_each_keeps_a_half_typed_sale() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.sign_in(AYSE);
    env.type_into("Amount", "42.50");
    // Switching: the member's menu in the top bar locks the desk.
    env.harness
        .get_by_role_and_label(
            Role::Button,
            "Ayşe · Counter clerk: Language, theme and lock",
        )
        .click();
    env.harness.run_steps(2);
    env.click("Lock (Ctrl+L)");
    env.until_label(LOCKED);
    env.sign_in(MEHMET);
    env.harness.get_by_role_and_label(
        Role::Button,
        "Mehmet · Counter clerk: Language, theme and lock",
    );
    assert_eq!(env.app().views.new_link.draft().amount, "", "an empty form");
    assert!(
        !env.app().views.new_link.draft().order_number.is_empty(),
        "with its own order number"
    );
    env.ctrl_l();
    env.sign_in(AYSE);
    assert_eq!(
        env.app().views.new_link.draft().amount,
        "42.50",
        "hers again"
    );
}

#[test]
fn the_desk_locks_itself_after_the_idle_minutes_on_the_apps_clock() {
    let clock = Arc::new(ManualClock::new(Utc::now()));
    let mut env = start_staffed(clock.clone());
    env.sign_in(MEHMET);
    clock.advance(Duration::minutes(4));
    env.harness.run_steps(2);
    assert!(!env.app().staff.locked(), "four minutes are not five");
    clock.advance(Duration::minutes(1));
    env.until("the desk locks after five idle minutes", |app| {
        app.staff.locked()
    });
    env.until_label(LOCKED);
}

#[test]
fn ctrl_l_locks_and_the_customer_display_keeps_its_qr() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.sign_in(AYSE);
    let link = env.sell("18.00");
    env.click("Customer display");
    env.until_shown("Scan to pay");
    env.ctrl_l();
    assert!(env.harness.query_by_label("Amount").is_none());
    assert!(
        env.app().views.customer.is_open(),
        "the customer still sees the QR"
    );
    env.harness
        .get_by_role_and_label(Role::Image, "Scan to pay");
    assert_eq!(
        env.app().views.shown.as_ref().map(|s| s.link().id.clone()),
        Some(link.id)
    );
}

#[test]
fn a_clerk_cancels_a_colleagues_link_with_a_managers_pin_and_the_audit_names_both() {
    let mut env = start_staffed(Arc::new(SystemClock));
    let link = env.clerk_asks_to_cancel_a_colleagues_sale("35.00");
    // The only manager is chosen; the PIN field has the focus.
    assert!(env.harness.get_by_label("PIN").is_focused());
    env.harness.event(egui::Event::Text(MANAGER.1.into()));
    env.harness.run_steps(1);
    env.harness.key_press(egui::Key::Enter);
    env.until("the link is cancelled", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(paydesk::ui::link_result::ShownLink::is_cancelled)
    });
    // Ayşe is still the one signed in: the manager only approved.
    assert_eq!(env.app().staff.actor.name(), Some("Ayşe"));
    let rows = env.audit();
    let cancel = rows
        .iter()
        .find(|r| r.action == "link.cancel")
        .expect("the cancel is recorded");
    assert_eq!(cancel.staff.as_deref(), Some("Ayşe"));
    assert_eq!(cancel.approved_by.as_deref(), Some("Zeynep"));
    assert!(cancel.subject.contains(&link.id), "{}", cancel.subject);
    let approval = rows
        .iter()
        .find(|r| r.action == "approve")
        .expect("the approval is recorded");
    assert_eq!(approval.staff.as_deref(), Some("Ayşe"));
    assert_eq!(approval.approved_by.as_deref(), Some("Zeynep"));
}

#[test]
fn a_wrong_approval_pin_leaves_the_link_as_it_was() {
    let mut env = start_staffed(Arc::new(SystemClock));
    let link = env.clerk_asks_to_cancel_a_colleagues_sale("22.00");
    env.harness.event(egui::Event::Text("9999".into()));
    env.harness.run_steps(1);
    env.harness.key_press(egui::Key::Enter);
    env.until_label("Wrong PIN for Zeynep");
    assert!(env.app().views.approval.is_some(), "the prompt stays");
    // Dismissed with "Back" (issue 29: "Cancel" read like "Cancel link"), as tall as Approve.
    // (The result view behind the prompt has a Back of its own: the prompt's is on Approve's
    // row.)
    let approve = env
        .harness
        .get_by_role_and_label(Role::Button, "Approve")
        .rect();
    let back = env
        .harness
        .get_all_by_role_and_label(Role::Button, "Back")
        .find(|n| (n.rect().center().y - approve.center().y).abs() < 1.0)
        .expect("Back beside Approve");
    assert!(
        (back.rect().height() - approve.height()).abs() < 0.5,
        "{:?} {approve:?}",
        back.rect()
    );
    assert!(env.harness.query_by_label("Cancel").is_none());
    back.click();
    env.harness.run_steps(2);
    env.until("the prompt closes", |app| app.views.approval.is_none());
    // The link stays shown and polled; nothing else is sent.
    env.harness.run_steps(4);
    assert!(
        !env.app()
            .views
            .shown
            .as_ref()
            .expect("shown")
            .is_cancelled()
    );
    let stored = env
        .services
        .inspect(|s| s.links().get("sandbox", &link.id))
        .expect("the store reads")
        .expect("the link is stored");
    assert!(stored.cancelled_at.is_none(), "not cancelled");
    assert!(
        !env.audit().iter().any(|r| r.action == "link.cancel"),
        "no cancel recorded"
    );
}

#[test]
fn the_audit_view_lists_who_did_what_and_warns_when_the_record_was_edited() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.sign_in(MANAGER);
    env.nav(paydesk::app::View::Audit);
    env.until_shown("The record is whole");
    // Zeynep's sign-in, in words, with the place it happened.
    env.until_shown("Signed in");
    // (A row of the one table is read at once: its cells are painted, issue 29.)
    env.until_shown("Signed in · in the app");
    // Someone with the OS account edits a row with an SQLite tool.
    let db = env.dir.path().join(paydesk::store::DB_FILE);
    rusqlite::Connection::open(db)
        .and_then(|c| {
            c.execute_batch(
                "DROP TRIGGER audit_no_update;
                 UPDATE audit SET subject = 'Eve (manager)' WHERE seq = 2;",
            )
        })
        .expect("the file is edited");
    env.nav(paydesk::app::View::Settings);
    env.nav(paydesk::app::View::Audit);
    env.until_shown("The audit record was changed outside paydesk: row 2 does not match.");
}

#[test]
fn disabling_a_clerk_asks_first_and_cancel_leaves_them_able_to_sign_in() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.sign_in(MANAGER);
    // Staff has its own entry in the shop's group (issue 29).
    env.nav(paydesk::app::View::Staff);
    env.until_shown("Disable Mehmet");
    let active = |env: &AppEnv, name: &str| {
        env.app()
            .staff
            .members
            .iter()
            .find(|m| m.name == name)
            .is_some_and(|m| m.active)
    };
    // The row's Disable is quiet (no red filled button in the table) and only asks; the
    // confirmation names the verbs (issue 29), and Keep leaves Mehmet as he was.
    let red = paydesk::ui::widgets::shown(&env.harness.ctx)
        .into_iter()
        .filter(|s| {
            s.what
                == paydesk::ui::widgets::ShownWhat::Button(
                    paydesk::ui::theme::ButtonKind::Destructive,
                )
        })
        .count();
    assert_eq!(red, 0, "no destructive button before the confirmation");
    // The only manager cannot be disabled, and says why.
    assert!(
        env.harness
            .get_by_role_and_label(Role::Button, "Disable Zeynep")
            .accesskit_node()
            .is_disabled()
    );
    env.click("Disable Mehmet");
    env.until_shown("Disable Mehmet? They can no longer sign in; their records stay.");
    assert!(env.harness.query_by_label("Yes").is_none());
    assert!(env.harness.query_by_label("No").is_none());
    env.click("Keep");
    assert!(
        env.harness
            .query_by_label_contains("They can no longer sign in")
            .is_none(),
        "the question is gone"
    );
    env.settle("nothing was sent");
    assert!(active(&env, "Mehmet"));
    // Asked again, the confirmation's "Disable Mehmet" disables him (and him alone).
    env.click("Disable Mehmet");
    env.harness.run_steps(2);
    env.harness
        .get_all_by_role_and_label(Role::Button, "Disable Mehmet")
        .last()
        .expect("the confirmation's verb")
        .click();
    env.harness.run_steps(2);
    env.until("Mehmet is disabled", |app| {
        app.staff
            .members
            .iter()
            .any(|m| m.name == "Mehmet" && !m.active)
    });
    assert!(active(&env, "Ayşe"));
    env.until_shown("Enable Mehmet");
}

impl AppEnv {
    /// A finger's tap on the button named `label`, as egui-winit hands a touch screen's tap
    /// to egui: the touch itself, and the pointer it stands for (pressed, then released and
    /// gone, so nothing stays hovered).
    fn tap(&mut self, label: &str) {
        let pos = self
            .harness
            .get_by_role_and_label(Role::Button, label)
            .rect()
            .center();
        let touch = |phase| egui::Event::Touch {
            device_id: egui::TouchDeviceId(1),
            id: egui::TouchId(0),
            phase,
            pos,
            force: None,
        };
        let button = |pressed| egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        self.harness.event(touch(egui::TouchPhase::Start));
        self.harness.event(egui::Event::PointerMoved(pos));
        self.harness.event(button(true));
        self.harness.run_steps(1);
        self.harness.event(touch(egui::TouchPhase::End));
        self.harness.event(button(false));
        self.harness.event(egui::Event::PointerGone);
        self.harness.run_steps(2);
    }
}

#[test]
fn a_pin_tapped_on_the_keypad_signs_in() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.tap(AYSE.0);
    for digit in ["2", "2", "2"] {
        env.tap(digit);
    }
    assert!(env.app().staff.locked(), "three digits sign nobody in");
    // A wrong digit, erased by a tap.
    env.tap("9");
    env.tap("Erase");
    env.tap("2");
    env.tap("OK");
    env.until("Ayşe is signed in", |app| {
        app.staff.actor.name() == Some(AYSE.0)
    });
}

#[test]
fn a_pin_clicked_on_the_keypad_signs_in_and_typed_keys_still_count() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.harness
        .get_by_role_and_label(Role::Button, MEHMET.0)
        .click();
    env.harness.run_steps(2);
    for digit in ["3", "3"] {
        env.harness
            .get_by_role_and_label(Role::Button, digit)
            .click();
        env.harness.run_steps(2);
    }
    // The keyboard goes on where the mouse left off: the PIN field has the focus back.
    assert!(env.harness.get_by_label("PIN").is_focused());
    env.harness.event(egui::Event::Text("33".into()));
    env.harness.run_steps(1);
    env.harness
        .get_by_role_and_label(Role::Button, "OK")
        .click();
    env.harness.run_steps(2);
    env.until("Mehmet is signed in", |app| {
        app.staff.actor.name() == Some(MEHMET.0)
    });
}

#[test]
fn a_manager_approves_on_the_keypad_of_a_till_without_a_keyboard() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.clerk_asks_to_cancel_a_colleagues_sale("18.00");
    // A wrong digit erased, then the manager's PIN, all by finger; Approve sends it.
    env.tap("7");
    env.tap("Erase");
    for digit in MANAGER.1.chars() {
        env.tap(&digit.to_string());
    }
    assert!(
        env.harness
            .query_by_role_and_label(Role::Button, "OK")
            .is_none(),
        "the prompt's own Approve confirms, not a second OK"
    );
    env.tap("Approve");
    env.until("the link is cancelled", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(paydesk::ui::link_result::ShownLink::is_cancelled)
    });
    let rows = env.audit();
    let cancel = rows
        .iter()
        .find(|r| r.action == "link.cancel")
        .expect("the cancel is recorded");
    assert_eq!(cancel.approved_by.as_deref(), Some("Zeynep"));
}

/// A sale made, the desk locked at once (before the next order number arrives), and the
/// same clerk back: New link is a new sale, not the one sent; another clerk gets one too.
#[test]
fn a_sign_in_after_a_sale_comes_back_to_a_new_sale() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.sign_in(AYSE);
    let link = env.sell("35.00");
    let sent = link.order_number.clone().expect("an order number");
    env.ctrl_l();
    for who in [AYSE, MEHMET] {
        env.sign_in(who);
        env.until("New link holds the next order number", |app| {
            let d = app.views.new_link.draft();
            !d.order_number.is_empty() && d.order_number != sent
        });
        let draft = env.app().views.new_link.draft().clone();
        assert!(draft.amount.is_empty(), "{who:?}: {draft:?}");
        assert!(env.app().form_lock().is_none());
        env.ctrl_l();
    }
    env.sign_in(AYSE);
    env.until("New link holds the next order number", |app| {
        let d = app.views.new_link.draft();
        !d.order_number.is_empty() && d.order_number != sent
    });
    if env.app().views.shown.is_some() {
        env.click("New link");
    }
    let second = env.sell("20.00");
    assert_ne!(second.order_number.as_deref(), Some(sent.as_str()));
}

#[test]
fn a_clerk_reaches_language_and_theme_from_the_member_menu_and_the_top_bar_names_the_shop() {
    let mut env = start_staffed(Arc::new(SystemClock));
    env.sign_in(AYSE);
    env.until_shown("Amount");
    // The top bar: the shop's name and the clerk's (issue 29); no Language or Theme in it.
    env.harness.get_by_label_contains(crate::support::app::SHOP);
    assert!(env.harness.query_by_label("Language").is_none());
    let menu = "Ayşe · Counter clerk: Language, theme and lock";
    env.harness
        .get_by_role_and_label(Role::Button, menu)
        .click();
    env.harness.run_steps(2);
    env.harness.get_by_label("Dark").click();
    env.harness.run_steps(2);
    assert_eq!(env.app().saved.theme, paydesk::ui::theme::ThemeChoice::Dark);
    env.harness
        .get_by_role_and_label(Role::Button, menu)
        .click();
    env.harness.run_steps(2);
    env.harness.get_by_label("Türkçe").click();
    env.harness.run_steps(2);
    assert_eq!(env.app().saved.lang, paydesk::lang::Lang::Tr);
    // Still Ayşe, and she reached it without a manager.
    assert_eq!(env.app().staff.actor.name(), Some("Ayşe"));
    assert!(env.app().views.approval.is_none());
    env.harness
        .get_by_role_and_label(Role::Button, "Ayşe · Kasiyer: Dil, tema ve kilit");
}
