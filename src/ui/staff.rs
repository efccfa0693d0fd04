//! Staff at a shared till: the lock screen (names as large buttons and a PIN field, usable from
//! the keyboard alone), the manager's approval prompt for one held action, and the Staff
//! section of Settings. Every PIN check runs on the worker: these views only collect what was
//! typed and emit [`StaffCommand`]s.

use egui::{RichText, Ui};
use zeroize::Zeroizing;

use crate::domain::{Pin, Role, StaffMember, StaffName};
use crate::lang::Lang;
use crate::ui::command::{Command, StaffCommand};
use crate::ui::problem::{Note, Problem, note_ui};
use crate::ui::table::{Align, Table};
use crate::ui::text::UiText;
use crate::ui::theme;
use crate::ui::{ViewCtx, widgets};

use crate::ui::theme::NARROW_COLUMN_WIDTH as LOCK_WIDTH;
use crate::ui::theme::icon::Icon;
use crate::ui::theme::{COUNTER_BUTTON_HEIGHT as BIG_BUTTON_HEIGHT, NAME_BUTTON_WIDTH};

/// Disabling a member (they can no longer sign in).
pub const ICON_DISABLE: Icon = egui_material_icons::icons::ICON_PERSON_OFF;
/// Adding a member.
pub const ICON_ADD_MEMBER: Icon = egui_material_icons::icons::ICON_PERSON_ADD;

/// The members who may sign in (active), by name.
fn active_names(members: &[StaffMember], role: Option<Role>) -> Vec<String> {
    members
        .iter()
        .filter(|m| m.active && role.is_none_or(|r| m.role == r))
        .map(|m| m.name.clone())
        .collect()
}

/// The first of `names` that begins with `typed` (ignoring case), if any.
pub fn pick_by_prefix(names: &[String], typed: &str) -> Option<String> {
    let typed = typed.trim().to_lowercase();
    if typed.is_empty() {
        return None;
    }
    names
        .iter()
        .find(|n| n.to_lowercase().starts_with(&typed))
        .cloned()
}

/// The lock screen's state.
#[derive(Debug, Default)]
pub struct LockScreen {
    /// The name chosen (clicked, or picked by its first letters).
    chosen: Option<String>,
    /// What was typed into the name field.
    typed: String,
    /// The PIN as typed (wiped when dropped).
    pin: Zeroizing<String>,
    /// A sign-in is being checked.
    busy: bool,
    /// Why the last try failed (a wrong PIN, a wait).
    error: Option<String>,
    /// Put the keyboard focus on the name field (`Some(false)`) or the PIN field (`Some(true)`)
    /// on the next frame.
    focus_pin: Option<bool>,
}

impl LockScreen {
    /// A fresh lock screen: nothing chosen, the focus on the name field.
    pub fn fresh() -> Self {
        Self {
            focus_pin: Some(false),
            ..Self::default()
        }
    }

    /// The name chosen (clicked, or picked by its first letters).
    pub fn chosen(&self) -> Option<&str> {
        self.chosen.as_deref()
    }

    /// Whether a sign-in is being checked.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// Why the last try failed.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Whether a PIN is typed (it is cleared after a refusal).
    pub fn has_pin(&self) -> bool {
        !self.pin.is_empty()
    }

    /// Forgets the sign-in out (its worker is gone, or it could not be sent).
    pub fn abort_busy(&mut self) {
        self.busy = false;
    }

    /// Staff were just turned on with `name`, the first manager: the lock screen waits for
    /// that PIN, the name already chosen.
    pub fn on_first_member(&mut self, name: String) {
        self.chosen = Some(name.clone());
        self.typed = name;
    }

    /// Test set-up: a sign-in is being checked, as after Enter.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_busy(&mut self) {
        self.busy = true;
    }

    /// The answer was a refusal: the PIN is cleared and the focus goes back to it.
    pub fn refused(&mut self, sentence: String) {
        self.busy = false;
        self.error = Some(sentence);
        self.pin = Zeroizing::new(String::new());
        self.focus_pin = Some(true);
    }

    /// Draws the lock screen, centred both ways: the names as large tiles and the name
    /// field on the left, the PIN with its keypad (digits, erase, OK) on the right; on a
    /// narrow window one under the other. Keys typed work as before.
    pub fn lock_screen_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, members: &[StaffMember]) {
        let names = active_names(members, None);
        let area = ui.available_rect_before_wrap();
        // Two columns as wide as the window allows (each at most the narrow column), when
        // the keypad and a name tile fit in each; else one under the other.
        let column = ((area.width() - theme::SPACE_L) / 2.0).min(LOCK_WIDTH);
        let two = column >= LOCK_MIN_COLUMN;
        let width = if two {
            2.0 * column + theme::SPACE_L
        } else {
            LOCK_WIDTH.min(area.width())
        };
        // Centred on last frame's height (kept by egui across lock screens; the first one is
        // measured in a sizing pass, drawn on the next frame). Taller than the window: it
        // scrolls, from the top.
        let key = egui::Id::unique("lock-screen-height");
        let known: Option<f32> = ui.ctx().data(|d| d.get_temp(key));
        if known.is_some_and(|h| h > area.height()) {
            let drawn = egui::ScrollArea::vertical()
                .id_salt("lock-scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    let left = (ui.available_width() - width) / 2.0;
                    ui.horizontal_top(|ui| {
                        ui.add_space(left.max(0.0));
                        ui.vertical(|ui| {
                            ui.set_width(width);
                            self.lock_body_ui(ui, cx, &names, two.then_some(column));
                        });
                    });
                    ui.min_rect().height()
                });
            ui.ctx().data_mut(|d| d.insert_temp(key, drawn.inner));
            return;
        }
        let height = known.unwrap_or_default();
        let top = area.top() + ((area.height() - height) / 2.0).max(0.0);
        let left = area.center().x - width / 2.0;
        let rect = egui::Rect::from_min_size(egui::pos2(left, top), egui::vec2(width, height));
        let mut builder = egui::UiBuilder::new().max_rect(rect.with_max_y(area.bottom()));
        if known.is_none() {
            builder = builder.sizing_pass();
        }
        let drawn = ui.scope_builder(builder, |ui| {
            self.lock_body_ui(ui, cx, &names, two.then_some(column));
        });
        let drawn_height = drawn.response.rect.height();
        if known.is_none_or(|h| (drawn_height - h).abs() > 0.5) {
            ui.ctx().data_mut(|d| d.insert_temp(key, drawn_height));
            ui.ctx().request_repaint();
        }
    }

    /// The lock screen's content: who (title, help, name tiles, name field) and the PIN with
    /// its keypad, side by side in two columns of `columns` width, or one under the other.
    fn lock_body_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        names: &[String],
        columns: Option<f32>,
    ) {
        let lang = cx.lang;
        if names.is_empty() {
            ui.vertical_centered(|ui| {
                ui.heading(RichText::new(UiText::LockTitle.get(lang)).strong());
                widgets::error_text_ui(ui, &cx.palette, UiText::NoOneCanSignIn.get(lang));
            });
            return;
        }
        if let Some(column) = columns {
            ui.horizontal_top(|ui| {
                ui.allocate_ui(egui::vec2(column, 0.0), |ui| {
                    self.who_ui(ui, cx, names);
                });
                ui.add_space(theme::SPACE_L);
                ui.allocate_ui(egui::vec2(column, 0.0), |ui| {
                    ui.vertical_centered(|ui| self.pin_ui(ui, cx));
                });
            });
        } else {
            self.who_ui(ui, cx, names);
            ui.add_space(theme::SPACE_M);
            ui.vertical_centered(|ui| self.pin_ui(ui, cx));
        }
    }

    /// The title, the help, the name tiles and the name field.
    fn who_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, names: &[String]) {
        let lang = cx.lang;
        ui.vertical_centered(|ui| {
            ui.set_max_width(ui.available_width().min(LOCK_WIDTH));
            ui.heading(RichText::new(UiText::LockTitle.get(lang)).strong());
            ui.label(RichText::new(UiText::LockHelp.get(lang)).color(cx.palette.muted));
            ui.add_space(theme::SPACE_M);
            self.name_buttons_ui(ui, names);
            ui.add_space(theme::SPACE_M);
            self.name_field_ui(ui, cx, names);
        });
    }

    /// Each active member as a large button; the chosen one selected.
    fn name_buttons_ui(&mut self, ui: &mut Ui, names: &[String]) {
        // Centred rows of buttons: as many to a row as fit the column.
        let spacing = ui.spacing().item_spacing.x;
        let per_row = ((ui.available_width() + spacing) / (NAME_BUTTON_WIDTH + spacing))
            .floor()
            .max(1.0);
        // A few names: exact in f32.
        #[allow(clippy::cast_precision_loss)]
        let in_row = (names.len() as f32).min(per_row);
        let row_width = in_row * (NAME_BUTTON_WIDTH + spacing) - spacing;
        ui.allocate_ui(egui::vec2(row_width, 0.0), |ui| {
            ui.set_max_width(row_width);
            ui.horizontal_wrapped(|ui| {
                self.name_row_ui(ui, names);
            });
        });
    }

    fn name_row_ui(&mut self, ui: &mut Ui, names: &[String]) {
        for name in names {
            let selected = self.chosen.as_deref() == Some(name.as_str());
            let text = RichText::new(name).heading();
            let button = egui::Button::new(text)
                .selected(selected)
                .min_size(egui::vec2(NAME_BUTTON_WIDTH, theme::NAME_TILE_HEIGHT));
            if ui.add(button).clicked() {
                self.chosen = Some(name.clone());
                self.typed.clone_from(name);
                self.error = None;
                self.focus_pin = Some(true);
            }
        }
    }

    /// The name field: first letters pick a name; a digit moves on to the PIN.
    fn name_field_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, names: &[String]) {
        let lang = cx.lang;
        let width = theme::field_width_ui(ui, 24);
        let l = ui.label(UiText::Name.get(lang));
        let name_field = ui.add(
            egui::TextEdit::singleline(&mut self.typed)
                .desired_width(width)
                .min_size(egui::vec2(0.0, theme::TOUCH_HEIGHT))
                .align(egui::Align2::LEFT_CENTER)
                .id_salt("lock-name"),
        );
        let name_field = name_field.labelled_by(l.id);
        if name_field.changed() {
            // Digits typed after the letters are the PIN's first digits.
            if let Some(at) = self.typed.find(|c: char| c.is_ascii_digit()) {
                let digits: String = self.typed[at..]
                    .chars()
                    .filter(char::is_ascii_digit)
                    .collect();
                self.typed.truncate(at);
                self.pin.push_str(&digits);
                self.focus_pin = Some(true);
            }
            self.chosen = pick_by_prefix(names, &self.typed);
            self.error = None;
        }
        if name_field.lost_focus()
            && ui.input(|i| i.key_pressed(egui::Key::Enter))
            && self.chosen.is_some()
        {
            self.focus_pin = Some(true);
        }
        if self.focus_pin == Some(false) {
            name_field.request_focus();
            self.focus_pin = None;
        }
    }

    /// The PIN field (Enter signs in), the keypad under it (each key back to the PIN field,
    /// so typing goes on where a finger left off), and what the last try said.
    fn pin_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        // The name chosen, its line kept while none is (nothing moves when one is).
        ui.label(
            RichText::new(self.chosen.as_deref().unwrap_or(" "))
                .heading()
                .strong(),
        );
        let pin_field = pin_field_ui(ui, &mut self.pin, "lock-pin", lang);
        if pin_field.changed() {
            self.error = None;
        }
        if self.focus_pin == Some(true) {
            pin_field.request_focus();
            self.focus_pin = None;
        }
        let enter = pin_field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        ui.add_space(theme::SPACE_S);
        let key = keypad_ui(ui, lang, !self.busy, true);
        let mut ok = false;
        match key {
            Some(Key::Ok) => ok = true,
            Some(key) => {
                key.type_into(&mut self.pin);
                self.error = None;
                self.focus_pin = Some(true);
            }
            None => {}
        }
        if self.busy {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(UiText::CheckingPin.get(lang));
            });
        }
        if let Some(e) = &self.error {
            widgets::error_text_ui(ui, &cx.palette, e.as_str());
        }
        if (enter || ok) && !self.busy {
            self.submit(cx);
        }
    }

    fn submit(&mut self, cx: &mut ViewCtx<'_>) {
        let Some(name) = self.chosen.clone() else {
            self.error = Some(UiText::ChooseNameFirst.get(cx.lang).to_owned());
            self.focus_pin = Some(false);
            return;
        };
        match take_pin(&mut self.pin, &mut self.busy, &mut self.error, cx.lang) {
            Ok(pin) => cx.emit(Command::Staff(StaffCommand::SignIn { name, pin })),
            Err(sentence) => self.refused(sentence),
        }
    }
}

/// The typed PIN taken out of its field for a sign-in or an approval, the form marked busy and
/// its error cleared; or, when it does not have a PIN's shape, the sentence to refuse it with.
fn take_pin(
    pin: &mut Zeroizing<String>,
    busy: &mut bool,
    error: &mut Option<String>,
    lang: Lang,
) -> Result<Zeroizing<String>, String> {
    if Pin::parse(pin).is_err() {
        return Err(UiText::PinShape.get(lang).to_owned());
    }
    *busy = true;
    *error = None;
    Ok(std::mem::replace(pin, Zeroizing::new(String::new())))
}

/// What the approval prompt decided this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalOutcome {
    /// Still open.
    Open,
    /// Cancel or Esc: the held action is dropped.
    Cancelled,
}

/// The manager's approval prompt for one held action.
#[derive(Debug)]
pub struct ApprovalPrompt {
    /// The action, in plain words ("Cancel link KDK-…").
    what: String,
    /// The active managers.
    managers: Vec<String>,
    /// The manager chosen (preselected when there is only one).
    manager: Option<String>,
    /// The manager's PIN as typed (wiped when dropped).
    pin: Zeroizing<String>,
    /// The PIN is being checked.
    busy: bool,
    /// Why the last try failed.
    error: Option<String>,
    focus_pin: bool,
}

impl ApprovalPrompt {
    /// A prompt for `what`, the manager preselected when there is only one.
    pub fn new(what: String, members: &[StaffMember]) -> Self {
        let managers = active_names(members, Some(Role::Manager));
        let manager = (managers.len() == 1).then(|| managers[0].clone());
        Self {
            what,
            managers,
            manager,
            pin: Zeroizing::new(String::new()),
            busy: false,
            error: None,
            focus_pin: true,
        }
    }

    /// The action, in plain words.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The manager chosen.
    pub fn manager(&self) -> Option<&str> {
        self.manager.as_deref()
    }

    /// Why the last try failed.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Forgets the check out (its worker is gone).
    pub fn abort_busy(&mut self) {
        self.busy = false;
    }

    /// The answer was a refusal: the PIN is cleared, the prompt stays.
    pub fn refused(&mut self, sentence: String) {
        self.busy = false;
        self.error = Some(sentence);
        self.pin = Zeroizing::new(String::new());
        self.focus_pin = true;
    }

    /// Draws the prompt as a modal window; Enter approves, Esc cancels.
    pub fn approval_ui(&mut self, ctx: &egui::Context, cx: &mut ViewCtx<'_>) -> ApprovalOutcome {
        let lang = cx.lang;
        let mut outcome = ApprovalOutcome::Open;
        let modal = egui::Modal::new(egui::Id::unique("manager-approval")).show(ctx, |ui| {
            ui.set_max_width(LOCK_WIDTH);
            ui.heading(RichText::new(UiText::ApprovalTitle.get(lang)).strong());
            ui.label(
                RichText::new(UiText::ApprovalNeeded.fill(lang, &[("what", &self.what)])).strong(),
            );
            ui.label(RichText::new(UiText::ApprovalHelp.get(lang)).color(cx.palette.muted));
            ui.add_space(theme::SPACE_M);
            if self.managers.is_empty() {
                widgets::error_text_ui(ui, &cx.palette, UiText::NoManager.get(lang));
            } else {
                ui.label(UiText::StaffManager.get(lang));
                ui.horizontal_wrapped(|ui| {
                    for name in &self.managers {
                        let selected = self.manager.as_deref() == Some(name.as_str());
                        let b = egui::Button::new(RichText::new(name).heading())
                            .selected(selected)
                            .min_size(egui::vec2(0.0, BIG_BUTTON_HEIGHT));
                        if ui.add(b).clicked() {
                            self.manager = Some(name.clone());
                            self.error = None;
                            self.focus_pin = true;
                        }
                    }
                });
                ui.add_space(theme::SPACE_S);
                let pin_field = pin_field_ui(ui, &mut self.pin, "approval-pin", lang);
                if pin_field.changed() {
                    self.error = None;
                }
                if self.focus_pin {
                    pin_field.request_focus();
                    self.focus_pin = false;
                }
                let enter = pin_field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                // A touch till has no keyboard: the lock screen's keypad, Approve below it.
                ui.add_space(theme::SPACE_S);
                if let Some(key) = keypad_ui(ui, lang, !self.busy, false) {
                    key.type_into(&mut self.pin);
                    self.error = None;
                    self.focus_pin = true;
                }
                if let Some(e) = &self.error {
                    widgets::error_text_ui(ui, &cx.palette, e.as_str());
                }
                ui.add_space(theme::SPACE_M);
                ui.horizontal(|ui| {
                    let approve =
                        widgets::Action::primary(theme::icon::CHECK, UiText::Approve.get(lang))
                            .min_width(NAME_BUTTON_WIDTH)
                            .enabled(!self.busy)
                            .show_ui(ui)
                            .clicked();
                    ui.add_space(theme::SPACE_L);
                    // Back, not "Cancel" (which reads like "Cancel link"), as large as Approve.
                    if widgets::Action::secondary(UiText::ApprovalBack.get(lang))
                        .tall()
                        .min_width(NAME_BUTTON_WIDTH)
                        .show_ui(ui)
                        .clicked()
                    {
                        outcome = ApprovalOutcome::Cancelled;
                    }
                    if self.busy {
                        ui.spinner();
                    }
                    if (approve || enter) && !self.busy {
                        self.submit(cx);
                    }
                });
                return;
            }
            if widgets::Action::secondary(UiText::ApprovalBack.get(lang))
                .show_ui(ui)
                .clicked()
            {
                outcome = ApprovalOutcome::Cancelled;
            }
        });
        if modal.should_close() && !self.busy {
            outcome = ApprovalOutcome::Cancelled;
        }
        outcome
    }

    fn submit(&mut self, cx: &mut ViewCtx<'_>) {
        let Some(manager) = self.manager.clone() else {
            self.error = Some(UiText::ChooseNameFirst.get(cx.lang).to_owned());
            return;
        };
        match take_pin(&mut self.pin, &mut self.busy, &mut self.error, cx.lang) {
            Ok(pin) => cx.emit(Command::Staff(StaffCommand::Approve { manager, pin })),
            Err(sentence) => self.refused(sentence),
        }
    }
}

/// The add-a-member form of Settings.
#[derive(Debug, Default)]
pub struct MemberForm {
    /// The name.
    name: String,
    /// The role.
    role: Option<Role>,
    /// The PIN.
    pin: Zeroizing<String>,
    /// The PIN again.
    again: Zeroizing<String>,
}

/// Settings' Staff section.
#[derive(Debug, Default)]
pub struct StaffSettings {
    /// The add-a-member form.
    form: MemberForm,
    /// The member whose PIN is being changed, and the new PIN.
    reset: Option<(String, Zeroizing<String>)>,
    /// A change is being saved.
    busy: bool,
    /// What the last change did, or why it was refused.
    note: Option<Note>,
    /// Why the form cannot be sent (checked before sending).
    form_error: Option<String>,
    /// The member whose disabling waits for a "Yes".
    confirm_disable: Option<String>,
}

impl StaffSettings {
    /// What the last change did, or why it was refused.
    pub fn note(&self) -> Option<&Note> {
        self.note.as_ref()
    }

    /// Whether a change is being saved.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// Forgets the change out (its worker is gone, or it could not be sent).
    pub fn abort_busy(&mut self) {
        self.busy = false;
    }

    /// A change to `name` was saved: `done` says which.
    pub fn on_changed(&mut self, done: UiText, name: &str, lang: Lang) {
        self.busy = false;
        self.note = Some(Note::Done(done.fill(lang, &[("name", &name)])));
    }

    /// A change was refused.
    pub fn on_change_refused(&mut self, sentence: String) {
        self.busy = false;
        self.note = Some(Note::Failed(Problem::plain(sentence)));
    }
}

/// What Settings' Staff section needs to know about the desk.
#[derive(Debug, Clone, Copy)]
pub struct StaffSettingsCtx<'a> {
    /// The members.
    pub members: &'a [StaffMember],
    /// Staff are on.
    pub on: bool,
    /// The signed-in member is a manager (or staff are off).
    pub manager: bool,
}

impl StaffSettings {
    /// Draws the Staff section: the members, adding one, changing a PIN, disabling and
    /// enabling, and the idle-lock minutes.
    pub fn staff_settings_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        desk: StaffSettingsCtx<'_>,
        idle_minutes: &mut u32,
    ) {
        let lang = cx.lang;
        // A view of its own now (the navigation's shop group): its page header.
        let help = if desk.on {
            UiText::StaffOnHelp
        } else {
            UiText::StaffOffHelp
        };
        widgets::page_header_ui(ui, UiText::StaffTitle.get(lang), help.get(lang), |_| {});
        ui.add_space(theme::SPACE_S);
        if desk.on {
            self.members_ui(ui, cx, desk.members);
            // Apart from the table: a setting of the desk, not a member's row.
            ui.add_space(theme::SPACE_M);
            ui.horizontal(|ui| {
                let l = ui.label(UiText::IdleLockMinutes.get(lang));
                let r = ui.add_enabled(
                    desk.manager,
                    egui::DragValue::new(idle_minutes).range(1..=240).speed(0.2),
                );
                let _ = r.labelled_by(l.id);
            });
            if !desk.manager {
                ui.label(RichText::new(UiText::ManagersOnly.get(lang)).color(cx.palette.muted));
            }
        }
        ui.add_space(theme::SPACE_S);
        self.add_form_ui(ui, cx, desk.on);
        if let Some(note) = &self.note {
            note_ui(ui, cx, note);
        }
    }

    fn members_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, members: &[StaffMember]) {
        let lang = cx.lang;
        let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
        let roles = [
            role_text(Role::Counter).get(lang),
            role_text(Role::Manager).get(lang),
        ];
        let statuses = [
            UiText::StaffActive.get(lang),
            UiText::StaffDisabled.get(lang),
        ];
        let button = |t: UiText| {
            widgets::text_width(ui, t.get(lang))
                + 2.0 * ui.spacing().button_padding.x
                + ui.spacing().icon_width
                + theme::SPACE_S
        };
        let change = button(UiText::ResetPin);
        let able = button(UiText::DisableMember).max(button(UiText::EnableMember));
        let mut table = Table::new()
            .column(ui, UiText::Name.get(lang), Align::Left, names)
            .column(ui, UiText::StaffRole.get(lang), Align::Left, roles)
            .column(ui, UiText::Status.get(lang), Align::Left, statuses)
            .fixed(ui, "", Align::Left, change)
            .fixed(ui, "", Align::Left, able)
            // Text on the centre line of the row's buttons.
            .rows_at_least(theme::BUTTON_HEIGHT);
        table.widget_rows_ui(ui, "staff-members", |t| {
            for m in members {
                t.text(m.name.as_str());
                t.text(role_text(m.role).get(lang));
                let status = if m.active {
                    RichText::new(UiText::StaffActive.get(lang)).color(cx.palette.ok)
                } else {
                    RichText::new(UiText::StaffDisabled.get(lang)).color(cx.palette.muted)
                };
                t.text(status);
                t.cell(|ui| {
                    let change = format!("{} {}", UiText::ResetPin.get(lang), m.name);
                    let r = widgets::Action::secondary(UiText::ResetPin.get(lang))
                        .enabled(!self.busy)
                        .show_ui(ui);
                    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &change));
                    if r.clicked() {
                        self.reset = Some((m.name.clone(), Zeroizing::new(String::new())));
                    }
                });
                t.cell(|ui| {
                    let (t, active) = if m.active {
                        (UiText::DisableMember, false)
                    } else {
                        (UiText::EnableMember, true)
                    };
                    let label = format!("{} {}", t.get(lang), m.name);
                    // Disabling stands apart from "Change PIN" (a column of its own) and
                    // asks first; enabling is harmless and acts at once.
                    // Quiet, outlined (issue 29): no row of red buttons; the confirmation is
                    // where the red one is. The only active manager cannot be disabled.
                    let only_manager = !active
                        && m.role == crate::domain::Role::Manager
                        && members
                            .iter()
                            .filter(|o| o.active && o.role == crate::domain::Role::Manager)
                            .count()
                            == 1;
                    let action = if active {
                        widgets::Action::secondary(t.get(lang))
                    } else {
                        widgets::Action::secondary(t.get(lang)).icon(ICON_DISABLE)
                    };
                    let r = action.enabled(!self.busy && !only_manager).show_ui(ui);
                    let r = if only_manager {
                        r.on_disabled_hover_text(UiText::OnlyManager.get(lang))
                    } else {
                        r
                    };
                    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
                    if r.clicked() {
                        if active {
                            self.busy = true;
                            self.note = None;
                            cx.emit(Command::Staff(StaffCommand::SetStaffActive {
                                name: m.name.clone(),
                                active,
                            }));
                        } else {
                            self.confirm_disable = Some(m.name.clone());
                        }
                    }
                });
                t.end_row();
            }
        });
        self.confirm_disable_ui(ui, cx);
        self.reset_ui(ui, cx);
    }

    /// "Disable NAME? …" with the destructive "Disable NAME", set apart from Keep.
    fn confirm_disable_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let Some(name) = self.confirm_disable.clone() else {
            return;
        };
        ui.add_space(theme::SPACE_S);
        ui.label(
            RichText::new(UiText::DisableConfirm.fill(lang, &[("name", &name)]))
                .color(cx.palette.error),
        );
        ui.horizontal(|ui| {
            if widgets::Action::secondary(UiText::KeepMember.get(lang))
                .show_ui(ui)
                .clicked()
            {
                self.confirm_disable = None;
            }
            ui.add_space(theme::SPACE_L);
            ui.separator();
            ui.add_space(theme::SPACE_L);
            let verb = UiText::DisableYes.fill(lang, &[("name", &name)]);
            if widgets::Action::destructive(ICON_DISABLE, &verb)
                .enabled(!self.busy)
                .show_ui(ui)
                .clicked()
            {
                self.confirm_disable = None;
                self.busy = true;
                self.note = None;
                cx.emit(Command::Staff(StaffCommand::SetStaffActive {
                    name,
                    active: false,
                }));
            }
        });
    }

    fn reset_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let Some((name, pin)) = &mut self.reset else {
            return;
        };
        let mut send = false;
        let mut close = false;
        ui.horizontal(|ui| {
            ui.label(RichText::new(name.as_str()).strong());
            let l = ui.label(UiText::NewPin.get(lang));
            let r = ui.add(
                egui::TextEdit::singleline(&mut **pin)
                    .password(true)
                    .char_limit(8)
                    .desired_width(theme::field_width_ui(ui, 8)),
            );
            let r = r.labelled_by(l.id);
            send = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            send |= widgets::Action::secondary(UiText::Save.get(lang))
                .icon(theme::icon::SAVE)
                .show_ui(ui)
                .clicked();
            close = widgets::Action::quiet(UiText::CancelDialog.get(lang))
                .show_ui(ui)
                .clicked();
        });
        if close {
            self.reset = None;
        } else if send {
            if Pin::parse(pin).is_err() {
                self.note = Some(Note::Failed(crate::ui::problem::Problem::plain(
                    UiText::PinShape.get(lang),
                )));
                return;
            }
            let Some((name, pin)) = self.reset.take() else {
                return;
            };
            self.busy = true;
            self.note = None;
            cx.emit(Command::Staff(StaffCommand::ResetPin { name, pin }));
        }
    }

    fn add_form_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, on: bool) {
        let lang = cx.lang;
        let title = if on {
            UiText::AddMember
        } else {
            UiText::AddFirstManager
        };
        widgets::group_ui(ui, title.get(lang), |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.vertical(|ui| {
                    widgets::labelled_text_width_ui(
                        ui,
                        UiText::Name.get(lang),
                        &mut self.form.name,
                        theme::field_width_ui(ui, 16),
                    );
                });
                if on {
                    let role = self.form.role.get_or_insert(Role::Counter);
                    ui.vertical(|ui| {
                        ui.label(UiText::StaffRole.get(lang));
                        ui.horizontal(|ui| {
                            for choice in [Role::Counter, Role::Manager] {
                                let label = role_text(choice).get(lang);
                                ui.radio_value(role, choice, label);
                            }
                        });
                    });
                }
                for (label, value) in [
                    (UiText::StaffPin, &mut self.form.pin),
                    (UiText::PinAgain, &mut self.form.again),
                ] {
                    ui.vertical(|ui| {
                        let l = ui.label(label.get(lang));
                        let r = ui.add(
                            egui::TextEdit::singleline(&mut **value)
                                .password(true)
                                .char_limit(8)
                                .desired_width(theme::field_width_ui(ui, 8)),
                        );
                        let _ = r.labelled_by(l.id);
                    });
                }
            });
            if let Some(e) = &self.form_error {
                widgets::error_text_ui(ui, &cx.palette, e.as_str());
            }
            ui.add_space(theme::SPACE_S);
            if widgets::Action::secondary(title.get(lang))
                .icon(ICON_ADD_MEMBER)
                .enabled(!self.busy)
                .show_ui(ui)
                .clicked()
            {
                self.send_form(cx, on);
            }
        });
    }

    fn send_form(&mut self, cx: &mut ViewCtx<'_>, on: bool) {
        let lang = cx.lang;
        let role = if on {
            self.form.role.unwrap_or(Role::Counter)
        } else {
            Role::Manager
        };
        self.form_error = form_error(&self.form, lang);
        if self.form_error.is_some() {
            return;
        }
        let form = std::mem::take(&mut self.form);
        self.busy = true;
        self.note = None;
        cx.emit(Command::Staff(StaffCommand::AddStaff {
            name: form.name.trim().to_owned(),
            role,
            pin: form.pin,
        }));
    }
}

/// Why the add-a-member form cannot be sent, in a sentence.
pub fn form_error(form: &MemberForm, lang: Lang) -> Option<String> {
    if StaffName::parse(&form.name).is_err() {
        return Some(UiText::StaffNameShape.get(lang).to_owned());
    }
    if Pin::parse(&form.pin).is_err() {
        return Some(UiText::PinShape.get(lang).to_owned());
    }
    if *form.pin != *form.again {
        return Some(UiText::PinsDiffer.get(lang).to_owned());
    }
    None
}

/// An approval as the audit record stored it (the command's name, written by this or an
/// older paydesk), in the shop's words for the Audit view; [`UiText::WhatOther`] for a name
/// this version does not know, which the view then shows as stored. What a command needs and
/// the prompt's words come from `Command::gate`, not from here.
pub fn what_of(command: &str) -> UiText {
    match command {
        "SaveCard" => UiText::WhatSaveCard,
        "ExportHistory" => UiText::WhatExportHistory,
        "LoadReport" | "RefreshDayClose" => UiText::WhatDayClose,
        "AbandonPending" => UiText::WhatAbandon,
        "CatalogPreview" | "CatalogChoose" | "CatalogImport" => UiText::WhatCatalog,
        "SetBarcode" => UiText::WhatBarcode,
        "CatalogEdit" => UiText::WhatCatalogItem,
        "SaveProfile" => UiText::WhatSaveProfile,
        "RemoveProfile" => UiText::WhatRemoveProfile,
        "SwitchProfile" => UiText::WhatSwitchProfile,
        "StoreSecret" => UiText::WhatStoreSecret,
        "JoinShop" => UiText::WhatJoinShop,
        "LeaveShop" => UiText::WhatLeaveShop,
        "NameDesk" => UiText::WhatNameDesk,
        "AddStaff" => UiText::WhatAddStaff,
        "ResetPin" => UiText::WhatResetPin,
        "SetStaffActive" => UiText::WhatStaffActive,
        "LoadAudit" => UiText::WhatAudit,
        "ExportAudit" => UiText::WhatExportAudit,
        _ => UiText::WhatOther,
    }
}

/// A role in plain words.
pub fn role_text(role: Role) -> UiText {
    match role {
        Role::Counter => UiText::RoleCounter,
        Role::Manager => UiText::RoleManager,
    }
}

/// The narrowest a lock screen column may be for two of them side by side: a name tile, or
/// the keypad with room around it.
const LOCK_MIN_COLUMN: f32 = 320.0;

/// The most digits a PIN field takes.
const PIN_MAX: usize = 8;

/// A key of the lock screen's keypad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Digit(char),
    Erase,
    Ok,
}

impl Key {
    /// A digit typed into `pin` (at most [`PIN_MAX`] of them), or its last digit erased; OK
    /// changes nothing.
    fn type_into(self, pin: &mut String) {
        match self {
            Key::Digit(d) if pin.len() < PIN_MAX => pin.push(d),
            Key::Erase => {
                pin.pop();
            }
            Key::Digit(_) | Key::Ok => {}
        }
    }
}

/// The on-screen PIN keypad: 1–9, then Erase, 0 and OK (`with_ok`; else the place is left
/// empty, for a prompt whose own button confirms); each key large enough for a finger and
/// named for assistive technologies. Returns the key pressed (by touch, mouse or a screen
/// reader's action).
fn keypad_ui(ui: &mut Ui, lang: Lang, enabled: bool, with_ok: bool) -> Option<Key> {
    let keys = [
        Key::Digit('1'),
        Key::Digit('2'),
        Key::Digit('3'),
        Key::Digit('4'),
        Key::Digit('5'),
        Key::Digit('6'),
        Key::Digit('7'),
        Key::Digit('8'),
        Key::Digit('9'),
        Key::Erase,
        Key::Digit('0'),
        Key::Ok,
    ];
    let gap = theme::SPACE_S;
    let width = 3.0 * theme::KEYPAD_KEY.x + 2.0 * gap;
    let mut pressed = None;
    ui.allocate_ui(egui::vec2(width, 0.0), |ui| {
        egui::Grid::new("lock-keypad")
            .spacing(egui::vec2(gap, gap))
            .show(ui, |ui| {
                for (i, key) in keys.into_iter().enumerate() {
                    if key == Key::Ok && !with_ok {
                        break;
                    }
                    let palette = theme::Palette::of(ui.visuals());
                    let (text, name) = match key {
                        Key::Digit(d) => (RichText::new(d.to_string()).heading(), d.to_string()),
                        Key::Erase => (
                            theme::icon::ERASE.rich_text().heading(),
                            UiText::KeyErase.get(lang).to_owned(),
                        ),
                        Key::Ok => (
                            RichText::new(UiText::KeyOk.get(lang))
                                .heading()
                                .color(palette.button(theme::ButtonKind::Primary, enabled).text),
                            UiText::KeyOk.get(lang).to_owned(),
                        ),
                    };
                    let mut button = egui::Button::new(text)
                        .min_size(theme::KEYPAD_KEY)
                        .corner_radius(theme::CORNER_RADIUS);
                    if key == Key::Ok
                        && let Some(fill) = palette.button(theme::ButtonKind::Primary, enabled).fill
                    {
                        button = button.fill(fill).stroke(egui::Stroke::NONE);
                    }
                    let r = ui.add_enabled(enabled, button);
                    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, enabled, &name));
                    if r.clicked() {
                        pressed = Some(key);
                    }
                    if i % 3 == 2 {
                        ui.end_row();
                    }
                }
            });
    });
    pressed
}

/// A labelled PIN field: hidden, at most 8 characters, digits only (anything else typed is
/// dropped as it comes).
fn pin_field_ui(ui: &mut Ui, pin: &mut String, salt: &str, lang: Lang) -> egui::Response {
    let label = ui.label(UiText::StaffPin.get(lang));
    let field = ui
        .add(
            egui::TextEdit::singleline(pin)
                .password(true)
                .desired_width(theme::field_width_ui(ui, 8))
                .min_size(egui::vec2(0.0, theme::TOUCH_HEIGHT))
                .font(egui::TextStyle::Heading)
                .align(egui::Align2::CENTER_CENTER)
                .char_limit(PIN_MAX)
                .id_salt(salt),
        )
        .labelled_by(label.id);
    if field.changed() {
        pin.retain(|c| c.is_ascii_digit());
    }
    field
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_letters_pick_a_name_regardless_of_case() {
        let names = vec!["Ayşe".to_owned(), "Mehmet".to_owned(), "Zeynep".to_owned()];
        assert_eq!(pick_by_prefix(&names, "ay").as_deref(), Some("Ayşe"));
        assert_eq!(pick_by_prefix(&names, "ME").as_deref(), Some("Mehmet"));
        assert_eq!(pick_by_prefix(&names, "x"), None);
        assert_eq!(pick_by_prefix(&names, " "), None);
    }

    #[test]
    fn the_member_form_says_what_is_wrong() {
        let mut form = MemberForm {
            name: "Ayşe".into(),
            role: Some(Role::Counter),
            pin: Zeroizing::new("1234".into()),
            again: Zeroizing::new("1235".into()),
        };
        assert_eq!(
            form_error(&form, Lang::En).as_deref(),
            Some(UiText::PinsDiffer.get(Lang::En))
        );
        form.again = Zeroizing::new("1234".into());
        assert_eq!(form_error(&form, Lang::En), None);
        form.pin = Zeroizing::new("12".into());
        assert_eq!(
            form_error(&form, Lang::En).as_deref(),
            Some(UiText::PinShape.get(Lang::En))
        );
        form.name = String::new();
        assert_eq!(
            form_error(&form, Lang::En).as_deref(),
            Some(UiText::StaffNameShape.get(Lang::En))
        );
    }

    #[test]
    fn the_only_manager_is_preselected() {
        let m = |name: &str, role, active| StaffMember {
            name: name.into(),
            role,
            active,
        };
        let one = [
            m("Zeynep", Role::Manager, true),
            m("Ayşe", Role::Counter, true),
        ];
        let p = ApprovalPrompt::new("x".into(), &one);
        assert_eq!(p.manager.as_deref(), Some("Zeynep"));
        let two = [
            m("Zeynep", Role::Manager, true),
            m("Can", Role::Manager, true),
        ];
        assert_eq!(ApprovalPrompt::new("x".into(), &two).manager, None);
        let off = [m("Zeynep", Role::Manager, false)];
        assert!(ApprovalPrompt::new("x".into(), &off).managers.is_empty());
    }
}
