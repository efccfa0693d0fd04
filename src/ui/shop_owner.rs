//! Settings' "Shop owner" part, below the Shop database section: what the CLI's `shop init`,
//! `shop add-desk`, `shop remove-desk` and `shop desks` do, for whoever types the owner's
//! address and password (docs/design.md §8, "The owner and the desks").
//!
//! The owner's password is typed for each step and handed to the worker in a zeroizing buffer
//! together with the step; the form keeps it until Settings is left, never on disk. A new
//! desk's address and password are shown once, with a button to copy each, and dropped when
//! the next step answers.

use chrono::{DateTime, Utc};
use egui::{RichText, Ui};
use zeroize::Zeroizing;

use crate::domain::{Pin, StaffName};
use crate::lang::Lang;
use crate::shop::ShopUrl;
use crate::shop::owner::{DeskLogin, Initialized, ManagerAdded, NewDesk, RemovedDesk};
use crate::ui::command::{LinkCommand, OwnerAsk, ShopCommand};
use crate::ui::problem::{Note, Problem, note_ui};
use crate::ui::text::UiText;
use crate::ui::theme;
use crate::ui::widgets;
use crate::ui::words::clock_time;
use crate::ui::{Command, ViewCtx};

/// The characters the address field shows.
const URL_CHARS: usize = 48;
/// The characters the password and name fields show.
const SHORT_CHARS: usize = 24;

/// What an owner's step did (the desks are listed again after each).
#[derive(Debug)]
pub enum OwnerDone {
    /// The shop is set up or brought up to date.
    Initialized(Initialized),
    /// A desk has a login: shown once.
    Added(NewDesk),
    /// A desk was shut out.
    Removed {
        /// Its name.
        name: String,
        /// What was done.
        removed: RemovedDesk,
    },
    /// Only the list was read.
    Listed,
    /// A manager was made, or given a new PIN.
    Manager {
        /// The manager's name.
        name: String,
        /// What was done.
        added: ManagerAdded,
    },
}

/// The owner's part of Settings.
#[derive(Debug, Default)]
pub struct OwnerSettings {
    /// The owner's address as typed.
    url: String,
    /// The owner's password as typed (kept until Settings is left).
    password: Zeroizing<String>,
    /// A new desk's name as typed.
    name: String,
    /// A manager's name as typed.
    manager: String,
    /// The manager's PIN as typed (dropped once sent and when Settings is left).
    manager_pin: Zeroizing<String>,
    /// The desks as last listed.
    desks: Option<Vec<DeskLogin>>,
    /// The desk just added: its address and password, shown once.
    added: Option<NewDesk>,
    /// The desk whose removal waits for a second press.
    confirm_remove: Option<String>,
    /// The last outcome.
    note: Option<Note>,
    /// A step is out.
    busy: bool,
}

impl OwnerSettings {
    /// A step was sent.
    pub fn on_sent(&mut self) {
        self.busy = true;
        self.note = None;
        self.added = None;
        self.confirm_remove = None;
    }

    /// A step answered.
    pub fn on_done(&mut self, done: OwnerDone, desks: Vec<DeskLogin>, lang: Lang) {
        self.busy = false;
        self.note = match &done {
            OwnerDone::Initialized(i) if i.managers_without_pin.is_empty() => Some(Note::Done(
                UiText::OwnerInitialized.fill(lang, &[("from", &i.from), ("to", &i.to)]),
            )),
            OwnerDone::Initialized(i) => Some(Note::Done(format!(
                "{} {}",
                UiText::OwnerInitialized.fill(lang, &[("from", &i.from), ("to", &i.to)]),
                UiText::OwnerManagersWithoutPin
                    .fill(lang, &[("names", &i.managers_without_pin.join(", "))])
            ))),
            OwnerDone::Manager { name, added } => Some(Note::Done(match added {
                ManagerAdded::Added => UiText::OwnerManagerAdded.fill(lang, &[("name", name)]),
                ManagerAdded::PinSet => UiText::OwnerManagerPinSet.fill(lang, &[("name", name)]),
            })),
            OwnerDone::Removed { name, removed } => Some(Note::Done(
                UiText::OwnerRemoved.fill(lang, &[("name", name), ("n", &removed.sessions_ended)]),
            )),
            OwnerDone::Added(_) | OwnerDone::Listed => None,
        };
        if let OwnerDone::Added(desk) = done {
            self.name.clear();
            self.added = Some(desk);
        }
        self.desks = Some(desks);
    }

    /// A step was refused (here, or by the shop): why.
    pub fn on_refused(&mut self, problem: Problem) {
        self.busy = false;
        self.note = Some(Note::Failed(problem));
    }

    /// Settings was left: the owner's password, a manager's PIN and a new desk's password are
    /// dropped.
    pub fn forget(&mut self) {
        self.password = Zeroizing::default();
        self.manager_pin = Zeroizing::default();
        self.added = None;
        self.confirm_remove = None;
    }

    /// Draws the part, folded until opened.
    pub fn owner_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        egui::CollapsingHeader::new(RichText::new(UiText::OwnerTitle.get(lang)).strong())
            .id_salt("shop-owner")
            .show(ui, |ui| {
                widgets::hint_ui(ui, &cx.palette, UiText::OwnerHelp.get(lang));
                ui.add_space(theme::SPACE_S);
                let url = self.address_ui(ui, cx);
                self.password_ui(ui, cx);
                ui.add_space(theme::SPACE_S);
                let ready = url.is_some() && !self.password.is_empty() && !self.busy;
                let mut ask = None;
                ui.horizontal(|ui| {
                    if widgets::Action::secondary(UiText::OwnerInit.get(lang))
                        .icon(theme::icon::SHOP)
                        .enabled(ready)
                        .show_ui(ui)
                        .clicked()
                    {
                        ask = Some(OwnerAsk::Init);
                    }
                    if widgets::Action::secondary(UiText::OwnerList.get(lang))
                        .icon(theme::icon::REFRESH)
                        .enabled(ready)
                        .show_ui(ui)
                        .clicked()
                    {
                        ask = Some(OwnerAsk::Desks);
                    }
                });
                if !ready && !self.busy {
                    widgets::hint_ui(ui, &cx.palette, UiText::OwnerNeeds.get(lang));
                }
                ui.add_space(theme::SPACE_S);
                if let Some(name) = self.new_desk_ui(ui, cx, ready) {
                    ask = Some(OwnerAsk::AddDesk { name });
                }
                ui.add_space(theme::SPACE_S);
                if let Some((name, pin)) = self.manager_ui(ui, cx, ready) {
                    ask = Some(OwnerAsk::AddManager { name, pin });
                }
                if self.busy {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label(UiText::ShopConnecting.get(lang));
                    });
                }
                if let Some(note) = &self.note {
                    note_ui(ui, cx, note);
                }
                self.added_ui(ui, cx);
                if let Some(name) = self.desks_ui(ui, cx, ready) {
                    ask = Some(OwnerAsk::RemoveDesk { name });
                }
                if let (Some(ask), Some(url)) = (ask, url) {
                    self.on_sent();
                    cx.emit(Command::Shop(ShopCommand::Owner {
                        url,
                        password: self.password.clone(),
                        ask,
                    }));
                }
            });
    }

    /// The owner's address, checked as typed; the text when it can be used.
    fn address_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) -> Option<String> {
        let lang = cx.lang;
        let width = theme::field_width_ui(ui, URL_CHARS);
        widgets::labelled_text_width_ui(ui, UiText::OwnerUrl.get(lang), &mut self.url, width);
        let text = self.url.trim().to_owned();
        if text.is_empty() {
            return None;
        }
        match ShopUrl::parse(&text) {
            Ok(url) => {
                for weak in url.weaknesses() {
                    widgets::error_text_ui(ui, &cx.palette, weak.sentence(lang));
                }
                Some(text)
            }
            Err(e) => {
                let sentence = crate::shop::ShopError::Url(e).sentence(lang);
                widgets::error_text_ui(ui, &cx.palette, sentence);
                None
            }
        }
    }

    /// The owner's hidden password field, with nothing kept for undo.
    fn password_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let width = theme::field_width_ui(ui, SHORT_CHARS);
        let l = ui.label(UiText::OwnerPassword.get(cx.lang));
        widgets::secret_field_ui(ui, l.id, &mut self.password, "shop-owner-password", width);
    }

    /// The new desk's name and Add; the name when Add was pressed.
    fn new_desk_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, ready: bool) -> Option<String> {
        let lang = cx.lang;
        let width = theme::field_width_ui(ui, SHORT_CHARS);
        let l = ui.label(UiText::OwnerDeskName.get(lang));
        let mut add = false;
        ui.horizontal(|ui| {
            let r = ui
                .add(egui::TextEdit::singleline(&mut self.name).desired_width(width))
                .labelled_by(l.id);
            let named = !self.name.trim().is_empty();
            add = widgets::Action::secondary(UiText::OwnerAddDesk.get(lang))
                .icon(theme::icon::NEW_LINK)
                .enabled(ready && named)
                .show_ui(ui)
                .clicked()
                || (ready
                    && named
                    && r.lost_focus()
                    && ui.input(|i| i.key_pressed(egui::Key::Enter)));
        });
        add.then(|| self.name.trim().to_owned())
    }

    /// A manager's name and PIN, each checked as typed, and "Add manager or set PIN"; both,
    /// validated, when it was pressed (the PIN field is emptied).
    fn manager_ui(
        &mut self,
        ui: &mut Ui,
        cx: &ViewCtx<'_>,
        ready: bool,
    ) -> Option<(StaffName, Pin)> {
        let lang = cx.lang;
        let width = theme::field_width_ui(ui, SHORT_CHARS);
        widgets::hint_ui(ui, &cx.palette, UiText::OwnerManagerHelp.get(lang));
        let l = ui.label(UiText::OwnerManagerName.get(lang));
        ui.add(egui::TextEdit::singleline(&mut self.manager).desired_width(width))
            .labelled_by(l.id);
        let name = StaffName::parse(&self.manager);
        if !self.manager.is_empty() && name.is_err() {
            widgets::error_text_ui(ui, &cx.palette, UiText::StaffNameShape.get(lang));
        }
        let l = ui.label(UiText::OwnerManagerPin.get(lang));
        let mut set = false;
        ui.horizontal(|ui| {
            widgets::secret_field_ui(
                ui,
                l.id,
                &mut self.manager_pin,
                "shop-owner-manager-pin",
                width,
            );
            let pin = Pin::parse(&self.manager_pin);
            set = widgets::Action::secondary(UiText::OwnerAddManager.get(lang))
                .icon(theme::icon::STAFF)
                .enabled(ready && name.is_ok() && pin.is_ok())
                .show_ui(ui)
                .clicked();
        });
        let pin = Pin::parse(&self.manager_pin);
        if !self.manager_pin.is_empty() && pin.is_err() {
            widgets::error_text_ui(ui, &cx.palette, UiText::PinShape.get(lang));
        }
        let (Ok(name), Ok(pin), true) = (name, pin, set) else {
            return None;
        };
        self.manager_pin = Zeroizing::default();
        Some((name, pin))
    }

    /// The desk just added: its address and password, once, each with Copy.
    fn added_ui(&self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let Some(desk) = &self.added else { return };
        let lang = cx.lang;
        ui.add_space(theme::SPACE_S);
        widgets::group_ui(
            ui,
            &UiText::OwnerAdded.fill(lang, &[("name", &desk.name)]),
            |ui| {
                let address = desk.url.to_string();
                for (label, value, copy) in [
                    (
                        UiText::OwnerJoinAddress,
                        address.as_str(),
                        UiText::OwnerCopyAddress,
                    ),
                    (
                        UiText::OwnerJoinPassword,
                        desk.password.as_str(),
                        UiText::OwnerCopyPassword,
                    ),
                ] {
                    ui.label(RichText::new(label.get(lang)).color(cx.palette.muted));
                    ui.horizontal(|ui| {
                        ui.label(RichText::new(value).monospace());
                        if widgets::Action::quiet(copy.get(lang))
                            .icon(theme::icon::COPY)
                            .show_ui(ui)
                            .clicked()
                        {
                            cx.emit(Command::Link(LinkCommand::CopyText {
                                text: value.to_owned(),
                            }));
                        }
                    });
                }
                if let Some(device) = &desk.adopted {
                    widgets::hint_ui(
                        ui,
                        &cx.palette,
                        &UiText::OwnerAdopted
                            .fill(lang, &[("name", &desk.name), ("device", device)]),
                    );
                }
                widgets::hint_ui(ui, &cx.palette, UiText::OwnerShownOnce.get(lang));
            },
        );
    }

    /// The desks as last listed, each with Remove (pressed twice); the name to remove.
    fn desks_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, ready: bool) -> Option<String> {
        let lang = cx.lang;
        let desks = self.desks.as_ref()?;
        ui.add_space(theme::SPACE_S);
        if desks.is_empty() {
            widgets::hint_ui(ui, &cx.palette, UiText::OwnerNoDesks.get(lang));
            return None;
        }
        let when = |at: Option<DateTime<Utc>>| {
            at.map_or_else(
                || UiText::OwnerNever.get(lang).to_owned(),
                |at| clock_time(at, cx.now, cx.zone, lang),
            )
        };
        let mut remove = None;
        let mut confirm = self.confirm_remove.clone();
        egui::Grid::new("shop-owner-desks")
            .striped(true)
            .num_columns(5)
            .spacing(egui::vec2(theme::SPACE_M, theme::SPACE_XS))
            .show(ui, |ui| {
                for header in [
                    UiText::OwnerColDesk,
                    UiText::OwnerColLogin,
                    UiText::OwnerColJoined,
                    UiText::OwnerColPush,
                ] {
                    ui.label(RichText::new(header.get(lang)).strong());
                }
                // The last column holds Remove, or that the desk was removed.
                ui.label("");
                ui.end_row();
                for d in desks {
                    ui.label(&d.name);
                    ui.label(RichText::new(&d.login).monospace());
                    ui.label(if d.device.is_some() {
                        when(d.joined_at)
                    } else {
                        UiText::OwnerNotJoined.get(lang).to_owned()
                    });
                    ui.label(when(d.last_push_at));
                    if d.removed {
                        ui.label(
                            RichText::new(UiText::OwnerIsRemoved.get(lang)).color(cx.palette.muted),
                        );
                    } else if confirm.as_deref() == Some(d.name.as_str()) {
                        ui.horizontal(|ui| {
                            if widgets::Action::destructive(
                                theme::icon::CANCEL,
                                UiText::OwnerRemoveConfirm.get(lang),
                            )
                            .enabled(ready)
                            .show_ui(ui)
                            .clicked()
                            {
                                remove = Some(d.name.clone());
                            }
                            if widgets::Action::quiet(UiText::OwnerKeep.get(lang))
                                .show_ui(ui)
                                .clicked()
                            {
                                confirm = None;
                            }
                        });
                    } else if widgets::Action::quiet(UiText::OwnerRemove.get(lang))
                        .enabled(ready)
                        .show_ui(ui)
                        .clicked()
                    {
                        confirm = Some(d.name.clone());
                    }
                    ui.end_row();
                }
            });
        if let Some(name) = &confirm
            && remove.is_none()
        {
            widgets::hint_ui(
                ui,
                &cx.palette,
                &UiText::OwnerRemoveHelp.fill(lang, &[("name", name)]),
            );
        }
        self.confirm_remove = confirm;
        remove
    }
}
