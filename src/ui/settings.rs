//! Profiles (a server, an API key id, its known limits, the order-number prefix) and their
//! secrets. The secret typed in the password field goes straight to the OS keyring through the
//! worker and is wiped from the form; the settings only ever show whether one is stored. With
//! no keyring, the app says so plainly (the secret then lives in memory for this run only).

use std::collections::HashMap;

use egui::{RichText, Ui};
use zeroize::Zeroizing;

use crate::domain::{Currency, parse_amount};
use crate::lang::Lang;
use crate::slip::Paper;
use crate::store::{DEFAULT_ORDER_PREFIX, Profile};
use crate::ui::Command;
use crate::ui::ViewCtx;
use crate::ui::command::ProfilesCommand;
use crate::ui::problem::{Explain, Note, Problem};
use crate::ui::text::UiText;
use crate::ui::theme::{self, StatusMeaning};
use crate::ui::{widgets, words};

/// The characters the shop name's field shows.
const SHOP_NAME_CHARS: usize = 32;
/// The characters the API secret's field shows.
const SECRET_CHARS: usize = 32;

/// Whether a profile's secret is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretStatus {
    /// Being checked.
    Checking,
    /// In the keyring (or the session store).
    Stored,
    /// Not stored.
    Missing,
    /// No keyring: the message says why.
    NoKeyring(String),
    /// The keyring failed otherwise: the sentence says what to do.
    Failed(String),
}

/// The profile form, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileForm {
    /// Name.
    name: String,
    /// Base URL.
    base_url: String,
    /// API key id.
    api_key: String,
    /// Amount limit; empty means none.
    amount_limit: String,
    /// Item limit; empty means none.
    max_items: String,
    /// Order-number prefix.
    order_prefix: String,
    /// Editing an existing profile (the name is then fixed).
    existing: bool,
    /// The built-in sandbox profile.
    sandbox: bool,
}

impl ProfileForm {
    /// The form of an existing profile.
    pub fn of(p: &Profile) -> Self {
        Self {
            name: p.name.clone(),
            base_url: p.base_url.clone(),
            api_key: p.api_key.clone(),
            amount_limit: p.amount_limit.map(|d| d.to_string()).unwrap_or_default(),
            max_items: p.max_items.map(|n| n.to_string()).unwrap_or_default(),
            order_prefix: p.order_prefix.clone(),
            existing: true,
            sandbox: p.is_sandbox,
        }
    }

    /// A new, empty profile.
    pub fn blank() -> Self {
        Self {
            order_prefix: DEFAULT_ORDER_PREFIX.to_owned(),
            ..Self::default()
        }
    }

    /// The profile, or the sentence of what is wrong with the limits.
    pub fn to_profile(&self, lang: Lang) -> Result<Profile, String> {
        let mut p = Profile::new(self.name.trim(), self.base_url.trim(), self.api_key.trim());
        self.order_prefix.trim().clone_into(&mut p.order_prefix);
        p.is_sandbox = self.sandbox;
        let limit = self.amount_limit.trim();
        if !limit.is_empty() {
            p.amount_limit =
                Some(parse_amount(limit, Currency::Try).map_err(|e| {
                    format!("{}: {}", UiText::AmountLimit.get(lang), e.message(lang))
                })?);
        }
        let items = self.max_items.trim();
        if !items.is_empty() {
            p.max_items = Some(items.parse().map_err(|_| {
                format!(
                    "{}: {}",
                    UiText::MaxItems.get(lang),
                    UiText::InvalidLimit.get(lang)
                )
            })?);
        }
        Ok(p)
    }
}

/// The state of the Settings view.
#[derive(Debug, Default)]
pub struct SettingsView {
    /// Every profile.
    profiles: Vec<Profile>,
    /// The form being edited.
    form: Option<ProfileForm>,
    /// The secret being typed (wiped once handed over).
    secret: Zeroizing<String>,
    /// Whether each profile's secret is stored.
    secrets: HashMap<String, SecretStatus>,
    /// The last message.
    note: Option<Note>,
    /// A request is out.
    busy: bool,
    /// "Remove profile" was pressed once: its question is asked.
    asking_remove: bool,
}

impl SettingsView {
    /// Forgets every request this view waits for (the worker that would have answered is
    /// gone), so nothing stays "working…" for ever.
    pub fn abort_busy(&mut self) {
        self.busy = false;
    }

    /// Every profile, as listed last.
    pub fn profiles(&self) -> &[Profile] {
        &self.profiles
    }

    /// Whether each profile's secret is stored.
    pub fn secrets(&self) -> &HashMap<String, SecretStatus> {
        &self.secrets
    }

    /// The last message.
    pub fn note(&self) -> Option<&Note> {
        self.note.as_ref()
    }

    /// Whether a request is out.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// Whether a secret is typed and not yet handed over (it is wiped once it is).
    pub fn has_typed_secret(&self) -> bool {
        !self.secret.is_empty()
    }

    /// The profiles as read when a profile opened.
    pub fn on_profiles(&mut self, profiles: Vec<Profile>) {
        self.profiles = profiles;
    }

    /// A profile was saved or deleted: the list as read after it (the form closes), or why
    /// not.
    pub fn on_saved(&mut self, result: Result<Vec<Profile>, impl Explain>, lang: Lang) {
        self.busy = false;
        match result {
            Ok(list) => {
                self.profiles = list;
                self.form = None;
                self.note = Some(Note::Done(UiText::Saved.get(lang).to_owned()));
            }
            Err(e) => self.note = Some(Note::Failed(e.problem(lang))),
        }
    }

    /// Where `profile`'s secret stands after a store or a check.
    pub fn on_secret(&mut self, profile: String, status: SecretStatus) {
        self.busy = false;
        self.secrets.insert(profile, status);
    }

    /// `profile`'s secret is being looked up.
    pub fn on_checking_secret(&mut self, profile: String) {
        self.secrets.insert(profile, SecretStatus::Checking);
    }

    /// The profile asked for could not be opened as it is: said where it was asked for.
    pub fn on_profile_failed(&mut self, problem: Problem) {
        self.note = Some(Note::Failed(problem));
    }

    /// Test set-up: a request is out, as after Save.
    #[cfg(any(test, feature = "inspect"))]
    pub fn set_busy(&mut self) {
        self.busy = true;
    }

    /// The paid alerts' settings, under the rest: whether the notification asks for a sound.
    pub fn alerts_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>, sound: &mut bool) {
        let lang = cx.lang;
        widgets::group_ui(ui, UiText::Alerts.get(lang), |ui| {
            widgets::hint_ui(ui, &cx.palette, UiText::AlertsExplained.get(lang));
            ui.checkbox(sound, UiText::AlertSound.get(lang));
        });
    }

    /// Draws the view. `current` is the profile in use, `merchant` the shop name shown on the
    /// customer display and printed slips, `paper` the slips' paper.
    // Long on purpose: the settings form top to bottom, one group after the other.
    #[allow(clippy::too_many_lines)]
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        current: &str,
        merchant: &mut String,
        paper: &mut Paper,
    ) {
        let lang = cx.lang;
        widgets::page_header_ui(
            ui,
            UiText::NavSettings.get(lang),
            UiText::SettingsHelp.get(lang),
            |_| {},
        );
        widgets::group_ui(ui, UiText::ShopGroup.get(lang), |ui| {
            ui.horizontal_top(|ui| {
                ui.vertical(|ui| {
                    widgets::labelled_text_width_ui(
                        ui,
                        UiText::MerchantName.get(lang),
                        merchant,
                        theme::field_width_ui(ui, SHOP_NAME_CHARS),
                    );
                });
                ui.add_space(theme::SPACE_M);
                ui.vertical(|ui| paper_choice_ui(ui, lang, paper));
            });
        });
        let mut edit = None;
        widgets::group_ui(ui, UiText::Profiles.get(lang), |ui| {
            egui::Grid::new("profiles")
                .striped(true)
                .num_columns(4)
                .spacing(egui::vec2(theme::SPACE_M, theme::SPACE_XS))
                .show(ui, |ui| {
                    for p in &self.profiles {
                        // The name once, then where it points in words (never a URL and port).
                        ui.label(RichText::new(&p.name).strong());
                        let place = words::server_place(&p.base_url, p.is_sandbox, lang);
                        ui.label(RichText::new(place).color(cx.palette.muted));
                        let edit_label = format!("{} {}", UiText::EditProfile.get(lang), p.name);
                        let r =
                            widgets::Action::secondary(UiText::EditProfile.get(lang)).show_ui(ui);
                        r.widget_info(|| {
                            egui::WidgetInfo::labeled(egui::Role::Button, true, &edit_label)
                        });
                        if r.clicked() {
                            edit = Some(ProfileForm::of(p));
                            if !p.is_sandbox {
                                cx.emit(Command::Profiles(ProfilesCommand::CheckSecret {
                                    profile: p.name.clone(),
                                    api_key: p.api_key.clone(),
                                }));
                            }
                        }
                        if p.name == current {
                            widgets::badge_ui(
                                ui,
                                UiText::ProfileInUse.get(lang),
                                cx.palette.pill(StatusMeaning::Paid),
                            );
                        } else {
                            let use_label = format!("{} {}", UiText::UseProfile.get(lang), p.name);
                            let r = widgets::Action::secondary(UiText::UseProfile.get(lang))
                                .show_ui(ui);
                            r.widget_info(|| {
                                egui::WidgetInfo::labeled(egui::Role::Button, true, &use_label)
                            });
                            if r.clicked() {
                                cx.emit(Command::Profiles(ProfilesCommand::Switch {
                                    name: p.name.clone(),
                                }));
                            }
                        }
                        ui.end_row();
                    }
                });
            ui.add_space(theme::SPACE_XS);
            if widgets::Action::secondary(UiText::AddProfile.get(lang))
                .icon(theme::icon::NEW_LINK)
                .show_ui(ui)
                .clicked()
            {
                self.secret = Zeroizing::new(String::new());
                self.form = Some(ProfileForm::blank());
            }
        });
        if let Some(f) = edit {
            self.secret = Zeroizing::new(String::new());
            self.form = Some(f);
        }
        if let Some(note) = &self.note {
            crate::ui::problem::note_ui(ui, cx, note);
        }
        let Some(form) = &mut self.form else {
            return;
        };
        ui.separator();
        if form.sandbox {
            widgets::hint_ui(ui, &cx.palette, UiText::SandboxProfile.get(lang));
        }
        let title = if form.existing {
            UiText::EditProfile
        } else {
            UiText::AddProfile
        };
        ui.label(RichText::new(title.get(lang)).strong());
        ui.add_enabled_ui(!form.existing, |ui| {
            widgets::labelled_text_ui(ui, UiText::ProfileName.get(lang), &mut form.name);
        });
        if form.sandbox {
            // Its address is the app's own business (a loopback port that changes per run).
            ui.label(UiText::ProfileServer.get(lang));
            ui.label(RichText::new(UiText::PlaceSandbox.get(lang)).color(cx.palette.muted));
        } else {
            widgets::labelled_text_ui(ui, UiText::BaseUrl.get(lang), &mut form.base_url);
            widgets::labelled_text_ui(ui, UiText::ApiKeyId.get(lang), &mut form.api_key);
        }
        widgets::labelled_text_ui(ui, UiText::AmountLimit.get(lang), &mut form.amount_limit);
        widgets::labelled_text_ui(ui, UiText::MaxItems.get(lang), &mut form.max_items);
        widgets::labelled_text_ui(ui, UiText::OrderPrefix.get(lang), &mut form.order_prefix);
        let mut save = false;
        let mut remove = false;
        ui.add_space(theme::SPACE_XS);
        ui.horizontal(|ui| {
            save = widgets::Action::primary(theme::icon::SAVE, UiText::Save.get(lang))
                .enabled(!self.busy)
                .show_ui(ui)
                .clicked();
        });
        if form.existing && !form.sandbox {
            // Below Save, quiet, and asked again.
            ui.add_space(theme::SPACE_S);
            let question = UiText::RemoveProfileConfirm.fill(lang, &[("name", &form.name)]);
            remove = widgets::AskedTwice {
                icon: theme::icon::CANCEL,
                verb: UiText::RemoveProfile.get(lang),
                question: &question,
                keep: UiText::KeepProfile.get(lang),
            }
            .show_ui(ui, &cx.palette, &mut self.asking_remove, !self.busy);
        }
        if save {
            match form.to_profile(lang) {
                Ok(p) => {
                    self.busy = true;
                    cx.emit(Command::Profiles(ProfilesCommand::Save {
                        profile: Box::new(p),
                        existing: form.existing,
                    }));
                }
                Err(e) => {
                    self.note = Some(crate::ui::problem::Note::Failed(
                        crate::ui::problem::Problem::plain(e),
                    ));
                }
            }
        }
        if remove {
            self.busy = true;
            cx.emit(Command::Profiles(ProfilesCommand::Remove {
                name: form.name.clone(),
            }));
        }

        if form.sandbox || !form.existing {
            return;
        }
        ui.separator();
        ui.label(RichText::new(UiText::Secret.get(lang)).strong());
        match self.secrets.get(&form.name) {
            Some(SecretStatus::Stored) => {
                ui.label(RichText::new(UiText::SecretStored.get(lang)).color(cx.palette.ok));
            }
            Some(SecretStatus::Missing) => {
                ui.label(UiText::SecretMissing.get(lang));
            }
            Some(SecretStatus::NoKeyring(why)) => {
                ui.label(RichText::new(UiText::NoKeyring.get(lang)).color(cx.palette.warn));
                widgets::hint_ui(ui, &cx.palette, why);
            }
            Some(SecretStatus::Failed(why)) => {
                ui.label(RichText::new(why.as_str()).color(cx.palette.error));
            }
            Some(SecretStatus::Checking) | None => {
                widgets::hint_ui(ui, &cx.palette, UiText::Working.get(lang));
            }
        }
        let l = ui.label(UiText::NewSecret.get(lang));
        ui.horizontal(|ui| {
            let width = theme::field_width_ui(ui, SECRET_CHARS);
            widgets::secret_field_ui(ui, l.id, &mut self.secret, "profile-secret", width);
            let ready = !self.secret.trim().is_empty() && !self.busy;
            if widgets::Action::secondary(UiText::StoreSecret.get(lang))
                .icon(theme::icon::LOCK)
                .enabled(ready)
                .show_ui(ui)
                .clicked()
            {
                let secret = std::mem::take(&mut self.secret);
                self.busy = true;
                self.secrets
                    .insert(form.name.clone(), SecretStatus::Checking);
                cx.emit(Command::Profiles(ProfilesCommand::StoreSecret {
                    profile: form.name.clone(),
                    api_key: form.api_key.clone(),
                    secret,
                }));
            }
        });
    }
}

/// The paper "Print slip" lays out for.
fn paper_choice_ui(ui: &mut Ui, lang: Lang, paper: &mut Paper) {
    let name = |p: Paper| match p {
        Paper::Roll80 => UiText::PaperRoll80.get(lang),
        Paper::A6 => UiText::PaperA6.get(lang),
    };
    let l = ui.label(UiText::SlipPaper.get(lang));
    let combo = egui::ComboBox::from_id_salt("slip-paper")
        .selected_text(name(*paper))
        .show_ui(ui, |ui| {
            for p in Paper::ALL {
                ui.selectable_value(paper, p, name(p));
            }
        });
    let _ = combo.response.labelled_by(l.id);
}
