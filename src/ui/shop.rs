//! This desk in a shop, as staff see it: Settings' Shop database section (a manager joins,
//! leaves and names the desk, as with the CLI's `shop join`, `shop leave` and `shop name`),
//! and the top bar's line while the shop cannot be reached.
//!
//! A shop owner is asked for fields, not a URL (issue 29): the server, its port, the database,
//! the desk's login and password, and the CA file `verify-full` checks the server against
//! (with the file dialog), "Test connection" (through the worker, the shop's answer or the
//! failure's one sentence), and "Paste join URL" to fill them from what the owner's Add desk
//! printed. The URL they make ([`url_from_fields`]) is under the "Advanced" fold only, where it
//! can be edited too (a password in it is refused naming the field; each weakness is a
//! warning). The password is never shown and goes to the worker in a zeroizing buffer the
//! form no longer holds.

use chrono::{DateTime, Utc};
use egui::{RichText, Ui};
use zeroize::Zeroizing;

use crate::clock::Zone;
use crate::lang::Lang;
use crate::shop::membership::Kept;
use crate::shop::owner::DeskLogin;
use crate::shop::{ShopError, ShopUrl};
use crate::ui::command::ShopCommand;
use crate::ui::problem::{Note, Problem, note_ui};
use crate::ui::shop_owner::{OwnerDone, OwnerSettings};
use crate::ui::text::UiText;
use crate::ui::theme;
use crate::ui::widgets;
use crate::ui::words::clock_time;
use crate::ui::{Command, ViewCtx};

/// The characters the URL field shows.
const URL_CHARS: usize = 48;
/// The characters the port field shows.
const PORT_CHARS: usize = 6;

/// The shop's connection as a shop owner gives it: each part in its own field. A mode or
/// channel binding that a pasted URL named, other than what the fields give, is kept.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ShopFields {
    /// The server's host name or address (a Unix socket's folder, from `/`).
    pub server: String,
    /// Its port (empty: 5432).
    pub port: String,
    /// The database.
    pub database: String,
    /// The desk's login.
    pub login: String,
    /// The CA file (PEM) the server's certificate is checked against.
    pub ca_file: String,
    /// `sslmode`, when a URL named one other than the fields give.
    pub mode: Option<String>,
    /// `channel_binding`, when a URL named one other than the mode gives.
    pub binding: Option<String>,
}

impl ShopFields {
    /// Whether nothing is typed.
    pub fn is_empty(&self) -> bool {
        [
            &self.server,
            &self.port,
            &self.database,
            &self.login,
            &self.ca_file,
        ]
        .iter()
        .all(|f| f.trim().is_empty())
    }

    /// The fields of a URL: a mode or binding kept only where the fields would give another.
    pub fn of(url: &ShopUrl) -> Self {
        let mut fields = ShopFields {
            server: url.host_text(),
            port: url.port().to_string(),
            database: url.dbname().to_owned(),
            login: url.user().to_owned(),
            ca_file: url
                .sslrootcert()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            mode: None,
            binding: None,
        };
        let plain = ShopUrl::parse(&url_from_fields(&fields)).ok();
        if plain.as_ref().map(ShopUrl::sslmode) != Some(url.sslmode()) {
            fields.mode = Some(url.sslmode().as_str().to_owned());
        }
        if url.channel_binding() != crate::shop::ChannelBinding::default_for(url.sslmode()) {
            fields.binding = Some(url.channel_binding().as_str().to_owned());
        }
        fields
    }
}

/// The `postgres://` URL the fields make: the login and database percent-encoded, the port
/// 5432 when none is typed, `sslmode=verify-full` with the CA file when one is given (else
/// the mode a pasted URL named, else the default: `prefer` on this machine, `verify-full`
/// elsewhere); empty when nothing is typed.
pub fn url_from_fields(f: &ShopFields) -> String {
    use crate::domain::wire_format::percent_encode;
    if f.is_empty() {
        return String::new();
    }
    let host = f.server.trim();
    let port = match f.port.trim() {
        "" => crate::shop::url::DEFAULT_PORT.to_string(),
        p => p.to_owned(),
    };
    let login = percent_encode(f.login.trim());
    let db = percent_encode(f.database.trim());
    let mut query = Vec::new();
    let mut url = if host.starts_with('/') {
        query.push(format!("host={}", percent_encode(host)));
        query.push(format!("port={port}"));
        format!("postgres://{login}@/{db}")
    } else if host.contains(':') {
        format!("postgres://{login}@[{host}]:{port}/{db}")
    } else {
        format!("postgres://{login}@{host}:{port}/{db}")
    };
    let ca = f.ca_file.trim();
    match (&f.mode, ca.is_empty()) {
        (Some(mode), _) => query.push(format!("sslmode={mode}")),
        (None, false) => query.push("sslmode=verify-full".to_owned()),
        (None, true) => {}
    }
    if !ca.is_empty() {
        query.push(format!("sslrootcert={}", percent_encode(ca)));
    }
    if let Some(binding) = &f.binding {
        query.push(format!("channel_binding={binding}"));
    }
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query.join("&"));
    }
    url
}
/// The characters the password and name fields show.
const SHORT_CHARS: usize = 24;

/// Whether the shop answers, as the desk knows it.
#[derive(Debug, Default)]
pub enum ShopReach {
    /// The desk has joined no shop.
    #[default]
    NotJoined,
    /// Joined; the first connection is under way.
    Connecting,
    /// Connected since.
    Online {
        /// When.
        since: DateTime<Utc>,
    },
    /// The shop cannot be reached (or refuses) since.
    Offline {
        /// Since when.
        since: DateTime<Utc>,
        /// Why, the last time.
        reason: ShopError,
    },
}

/// What the section shows of the desk in the shop (read by the worker, held by the app).
#[derive(Debug, Clone, Copy)]
pub struct ShopShown<'a> {
    /// The shop joined.
    pub joined: Option<&'a ShopUrl>,
    /// The desk's id (its order numbers' 4 characters).
    pub desk_id: Option<&'a str>,
    /// Whether the shop answers.
    pub reach: &'a ShopReach,
    /// Changes waiting in the outbox, when known.
    pub outbox: Option<u64>,
    /// `PAYDESK_SHOP_PASSWORD` was given to this run.
    pub env_password: bool,
}

/// The Shop database section's form.
#[derive(Debug, Default)]
pub struct ShopSettings {
    /// "Leave the shop" was pressed once: its question is asked.
    asking_leave: bool,
    /// The connection's fields as typed.
    fields: ShopFields,
    /// The URL: made from the fields, or as typed under Advanced.
    url: String,
    /// The URL under Advanced was typed and does not read yet: the fields do not overwrite it.
    url_typed: bool,
    /// "Paste join URL" is open, with what was pasted.
    paste: Option<String>,
    /// What "Test connection" said last.
    test_note: Option<Note>,
    /// A connection test is out.
    testing: bool,
    /// The password as typed (wiped once handed over).
    password: Zeroizing<String>,
    /// The desk's name as typed.
    name: String,
    /// The desk's name as saved (the host name until named): the field starts from it.
    saved_name: String,
    /// The URL field was left, or Join pressed: its error shows.
    url_touched: bool,
    /// The last outcome.
    note: Option<Note>,
    /// A join, leave or rename is out.
    busy: bool,
    /// The shop owner's part.
    owner: OwnerSettings,
}

impl ShopSettings {
    /// The desk's saved name is known (start-up, a rename): the field shows it unless it is
    /// being edited.
    pub fn name_saved(&mut self, name: &str) {
        if self.name.trim().is_empty() || self.name == self.saved_name {
            name.clone_into(&mut self.name);
        }
        name.clone_into(&mut self.saved_name);
    }

    /// A join, leave or rename could not be sent (no desk open).
    pub fn on_not_sent(&mut self) {
        self.busy = false;
    }

    /// Leave was sent.
    pub fn on_leave_sent(&mut self) {
        self.busy = true;
    }

    /// An answer of the shop's jobs arrived: nothing of this section is out any more.
    pub fn on_answer(&mut self) {
        self.busy = false;
        self.testing = false;
    }

    /// A join, leave or rename was refused (here, or by the shop): why.
    pub fn on_refused(&mut self, problem: Problem) {
        self.busy = false;
        self.note = Some(Note::Failed(problem));
    }

    /// The desk joined the shop under `name`, the password `kept` where it is, and what
    /// became of its staff and catalog is said (`carried`): the form empties.
    pub fn on_joined(&mut self, kept: &Kept, name: &str, carried: &[String], lang: Lang) {
        let mut said = UiText::ShopJoinedNote.get(lang).to_owned();
        match kept {
            Kept::Keyring => {}
            Kept::ThisRunOnly(_) => said = format!("{said} {}", UiText::ShopKeptThisRun.get(lang)),
            Kept::FromEnv => said = format!("{said} {}", UiText::ShopKeptEnv.get(lang)),
        }
        for line in carried {
            said = format!("{said} {line}");
        }
        self.note = Some(Note::Done(said));
        self.url.clear();
        self.fields = ShopFields::default();
        self.test_note = None;
        self.url_touched = false;
        self.name_saved(name);
    }

    /// "Test connection" answered: the shop was reached, or the failure's sentence.
    pub fn on_tested(&mut self, result: Result<(), String>, lang: Lang) {
        self.testing = false;
        self.test_note = Some(match result {
            Ok(()) => Note::Done(UiText::ShopTestOk.get(lang).to_owned()),
            Err(sentence) => Note::Failed(Problem::plain(sentence)),
        });
    }

    /// The CA file was picked in the file dialog.
    pub fn on_ca_picked(&mut self, path: &str) {
        path.clone_into(&mut self.fields.ca_file);
    }

    /// The connection's fields as typed.
    pub fn fields(&self) -> &ShopFields {
        &self.fields
    }

    /// The desk left the shop (`was_joined`: it was in one, and says so).
    pub fn on_left(&mut self, was_joined: bool, lang: Lang) {
        if was_joined {
            self.note = Some(Note::Done(UiText::ShopLeftNote.get(lang).to_owned()));
        }
    }

    /// The desk was renamed.
    pub fn on_named(&mut self, name: &str, lang: Lang) {
        self.name_saved(name);
        name.clone_into(&mut self.name);
        self.note = Some(Note::Done(UiText::DeskNamed.fill(lang, &[("name", &name)])));
    }

    /// The last outcome.
    pub fn note(&self) -> Option<&Note> {
        self.note.as_ref()
    }

    /// An owner's step answered.
    pub fn on_owner_done(&mut self, done: OwnerDone, desks: Vec<DeskLogin>, lang: Lang) {
        self.owner.on_done(done, desks, lang);
    }

    /// An owner's step was refused: why.
    pub fn on_owner_refused(&mut self, problem: Problem) {
        self.owner.on_refused(problem);
    }

    /// Settings was left: the owner's password is dropped.
    pub fn forget_owner(&mut self) {
        self.owner.forget();
    }

    /// Whether a join, leave or rename is out.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// Draws the section.
    pub fn shop_settings_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, shown: ShopShown<'_>) {
        let lang = cx.lang;
        ui.separator();
        ui.label(RichText::new(UiText::ShopDbTitle.get(lang)).strong());
        ui.label(RichText::new(UiText::ShopDbHelp.get(lang)).color(cx.palette.muted));
        ui.add_space(theme::SPACE_S);
        match shown.joined {
            Some(url) => self.joined_ui(ui, cx, url, shown),
            None => self.join_form_ui(ui, cx, shown.env_password),
        }
        if let Some(note) = &self.note {
            note_ui(ui, cx, note);
        }
        ui.add_space(theme::SPACE_M);
        self.name_ui(ui, cx, shown.desk_id);
        // Leaving is far from everything else, at the end of the section.
        if shown.joined.is_some() {
            ui.add_space(theme::SPACE_L);
            let leave = widgets::AskedTwice {
                icon: theme::icon::CANCEL,
                verb: UiText::ShopLeave.get(lang),
                question: UiText::ShopLeaveHelp.get(lang),
                keep: UiText::ShopStay.get(lang),
            };
            if leave.show_ui(ui, &cx.palette, &mut self.asking_leave, !self.busy) {
                cx.emit(Command::Shop(ShopCommand::Leave));
            }
        }
        ui.add_space(theme::SPACE_L);
        self.owner.owner_ui(ui, cx);
    }

    /// Joined: where, whether it answers, what waits; when the shop wants the password again
    /// (none kept on this computer, or it was changed), the field to give it.
    fn joined_ui(
        &mut self,
        ui: &mut Ui,
        cx: &mut ViewCtx<'_>,
        url: &ShopUrl,
        shown: ShopShown<'_>,
    ) {
        let lang = cx.lang;
        ui.label(UiText::ShopJoinedTo.get(lang));
        // Where, in words (the database on its server, as this desk's login); the URL itself
        // only under Advanced.
        ui.label(
            RichText::new(UiText::ShopJoinedWhere.fill(
                lang,
                &[
                    ("database", &url.dbname()),
                    ("server", &url.host_text()),
                    ("login", &url.user()),
                ],
            ))
            .strong(),
        );
        for weak in url.weaknesses() {
            widgets::error_text_ui(ui, &cx.palette, weak.sentence(lang));
        }
        egui::CollapsingHeader::new(UiText::Advanced.get(lang))
            .id_salt("shop-joined-advanced")
            .default_open(false)
            .show(ui, |ui| {
                ui.add(
                    egui::Label::new(RichText::new(url.to_string()).monospace())
                        .selectable(true)
                        .wrap(),
                );
            });
        ui.add_space(theme::SPACE_XS);
        let mut reconnect = false;
        match shown.reach {
            ShopReach::NotJoined | ShopReach::Connecting => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(UiText::ShopConnecting.get(lang));
                });
            }
            ShopReach::Online { since } => {
                let at = clock_time(*since, cx.now, cx.zone, lang);
                ui.label(
                    RichText::new(format!(
                        "● {}",
                        UiText::ShopOnlineSince.fill(lang, &[("time", &at)])
                    ))
                    .color(cx.palette.ok),
                );
            }
            ShopReach::Offline { since, reason } => {
                ui.label(
                    RichText::new(offline_line(lang, *since, cx.now, cx.zone))
                        .color(cx.palette.warn),
                );
                widgets::hint_ui(ui, &cx.palette, &reach_sentence(reason, lang));
                if matches!(
                    reason,
                    ShopError::NoPassword | ShopError::WrongPassword { .. }
                ) {
                    ui.add_space(theme::SPACE_S);
                    self.password_ui(ui, cx);
                    let ready = !self.password.is_empty() && !self.busy;
                    if widgets::Action::secondary(UiText::ShopRejoin.get(lang))
                        .icon(theme::icon::LOCK)
                        .enabled(ready)
                        .show_ui(ui)
                        .clicked()
                    {
                        self.busy = true;
                        self.note = None;
                        cx.emit(Command::Shop(ShopCommand::Join {
                            url: url.to_string(),
                            password: std::mem::take(&mut self.password),
                        }));
                    }
                } else {
                    reconnect = widgets::Action::secondary(UiText::ShopTryNow.get(lang))
                        .icon(theme::icon::SYNC)
                        .show_ui(ui)
                        .clicked();
                }
            }
        }
        if let Some(n) = shown.outbox.filter(|n| *n > 0) {
            ui.label(UiText::ShopOutboxWaiting.fill(lang, &[("n", &n)]));
        }
        if reconnect {
            cx.emit(Command::Shop(ShopCommand::Reconnect));
        }
    }

    /// Not joined: the connection's fields, the password, the CA file, Test connection and
    /// Paste join URL; the URL under Advanced; Join.
    fn join_form_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, env_password: bool) {
        let lang = cx.lang;
        self.fields_ui(ui, cx);
        // The URL follows the fields, unless it is being typed under Advanced.
        let built = url_from_fields(&self.fields);
        if !self.url_typed && self.url != built {
            self.url = built;
        }
        let text = self.url.trim().to_owned();
        let parsed = (!text.is_empty()).then(|| ShopUrl::parse(&text));
        match &parsed {
            Some(Err(e)) if self.url_touched => {
                let sentence = ShopError::Url(e.clone()).sentence(lang);
                widgets::error_text_ui(ui, &cx.palette, sentence);
            }
            Some(Ok(url)) => {
                for weak in url.weaknesses() {
                    widgets::error_text_ui(ui, &cx.palette, weak.sentence(lang));
                }
            }
            _ => {}
        }
        ui.add_space(theme::SPACE_S);
        self.password_ui(ui, cx);
        if env_password {
            widgets::hint_ui(ui, &cx.palette, UiText::ShopPasswordFromEnv.get(lang));
        }
        ui.add_space(theme::SPACE_S);
        let has_password = !self.password.is_empty() || env_password;
        let readable = matches!(parsed, Some(Ok(_)));
        ui.horizontal(|ui| {
            let can_test = readable && has_password && !self.testing && !self.busy;
            if widgets::Action::secondary(UiText::ShopTest.get(lang))
                .icon(theme::icon::SYNC)
                .enabled(can_test)
                .show_ui(ui)
                .clicked()
            {
                self.testing = true;
                self.test_note = None;
                cx.emit(Command::Shop(ShopCommand::Test {
                    url: text.clone(),
                    password: self.password.clone(),
                }));
            }
            if widgets::Action::secondary(UiText::ShopPasteJoinUrl.get(lang))
                .icon(theme::icon::COPY)
                .show_ui(ui)
                .clicked()
            {
                self.paste = if self.paste.is_some() {
                    None
                } else {
                    Some(String::new())
                };
            }
            if self.testing {
                ui.spinner();
            }
        });
        self.paste_ui(ui, cx);
        if let Some(note) = &self.test_note {
            note_ui(ui, cx, note);
        }
        self.advanced_ui(ui, cx);
        ui.add_space(theme::SPACE_S);
        let ready = readable && has_password && !self.busy;
        let join = widgets::Action::primary(theme::icon::SHOP, UiText::ShopJoin.get(lang))
            .enabled(ready)
            .show_ui(ui)
            .clicked();
        // Why Join waits; a refused address says so already.
        let why = match &parsed {
            _ if ready || self.busy => None,
            None => Some(UiText::ShopJoinNeedsUrl),
            Some(Ok(_)) => Some(UiText::ShopJoinNeedsPassword),
            Some(Err(_)) => None,
        };
        if let Some(why) = why {
            widgets::hint_ui(ui, &cx.palette, why.get(lang));
        }
        if self.busy {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(UiText::ShopConnecting.get(lang));
            });
        }
        if join && ready {
            self.busy = true;
            self.note = None;
            cx.emit(Command::Shop(ShopCommand::Join {
                url: text,
                password: std::mem::take(&mut self.password),
            }));
        } else if join {
            self.url_touched = true;
        }
    }

    /// Server and port, database and login, the CA file with its Choose button; a field left
    /// marks the URL touched (its error shows).
    fn fields_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>) {
        let lang = cx.lang;
        let wide = theme::field_width_ui(ui, SHORT_CHARS);
        let mut edited = false;
        let mut left = false;
        let mut field = |ui: &mut Ui, label: UiText, value: &mut String, width: f32| {
            ui.vertical(|ui| {
                let l = ui.label(label.get(lang));
                // The port's hint is PostgreSQL's own, used when it is left empty.
                let hint = if label == UiText::ShopPort {
                    crate::shop::url::DEFAULT_PORT.to_string()
                } else {
                    String::new()
                };
                let r = ui
                    .add(
                        egui::TextEdit::singleline(value)
                            .hint_text(hint)
                            .desired_width(width),
                    )
                    .labelled_by(l.id);
                edited |= r.changed();
                left |= r.lost_focus();
            });
        };
        ui.horizontal(|ui| {
            field(ui, UiText::ShopServer, &mut self.fields.server, wide);
            let port = theme::field_width_ui(ui, PORT_CHARS);
            field(ui, UiText::ShopPort, &mut self.fields.port, port);
        });
        ui.horizontal(|ui| {
            field(ui, UiText::ShopDatabase, &mut self.fields.database, wide);
            field(ui, UiText::ShopLogin, &mut self.fields.login, wide);
        });
        let mut choose = false;
        ui.horizontal(|ui| {
            field(ui, UiText::ShopCaFile, &mut self.fields.ca_file, wide);
            ui.vertical(|ui| {
                ui.label("");
                choose = widgets::Action::secondary(UiText::ChooseFile.get(lang))
                    .icon(theme::icon::UPLOAD)
                    .show_ui(ui)
                    .clicked();
            });
        });
        widgets::hint_ui(ui, &cx.palette, UiText::ShopCaHelp.get(lang));
        if choose {
            cx.emit(Command::Shop(ShopCommand::ChooseCa));
        }
        if edited {
            // The fields speak again: what was typed under Advanced gives way.
            self.url_typed = false;
            self.test_note = None;
        }
        if left {
            self.url_touched = true;
        }
    }

    /// "Paste join URL": what the owner's Add desk printed, read into the fields as soon as it
    /// reads as a shop URL.
    fn paste_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        let Some(pasted) = &mut self.paste else {
            return;
        };
        let width = theme::field_width_ui(ui, URL_CHARS);
        widgets::labelled_text_width_ui(ui, UiText::ShopJoinUrl.get(lang), pasted, width);
        let text = pasted.trim().to_owned();
        if text.is_empty() {
            widgets::hint_ui(ui, &cx.palette, UiText::ShopJoinUrlHelp.get(lang));
            return;
        }
        match ShopUrl::parse(&text) {
            Ok(url) => {
                self.fields = ShopFields::of(&url);
                self.url_typed = false;
                self.paste = None;
                self.test_note = Some(Note::Done(UiText::ShopFieldsFilled.get(lang).to_owned()));
            }
            Err(e) => {
                let sentence = ShopError::Url(e).sentence(lang);
                widgets::error_text_ui(ui, &cx.palette, sentence);
            }
        }
    }

    /// The URL the fields make, under "Advanced", where it can be typed too (and fills the
    /// fields once it reads).
    fn advanced_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let lang = cx.lang;
        egui::CollapsingHeader::new(UiText::Advanced.get(lang))
            .id_salt("shop-advanced")
            .default_open(false)
            .show(ui, |ui| {
                let width = theme::field_width_ui(ui, URL_CHARS);
                let r = widgets::labelled_text_width_ui(
                    ui,
                    UiText::ShopUrl.get(lang),
                    &mut self.url,
                    width,
                );
                if r.lost_focus() {
                    self.url_touched = true;
                }
                if r.changed() {
                    match ShopUrl::parse(self.url.trim()) {
                        Ok(url) => {
                            self.fields = ShopFields::of(&url);
                            // The fields now make the same shop; what was typed stays shown.
                            self.url_typed = url_from_fields(&self.fields) != self.url.trim();
                        }
                        Err(_) => self.url_typed = true,
                    }
                }
                widgets::hint_ui(ui, &cx.palette, UiText::ShopUrlHint.get(lang));
            });
    }

    /// The hidden password field, with nothing kept for undo.
    fn password_ui(&mut self, ui: &mut Ui, cx: &ViewCtx<'_>) {
        let width = theme::field_width_ui(ui, SHORT_CHARS);
        let l = ui.label(UiText::ShopPassword.get(cx.lang));
        widgets::secret_field_ui(ui, l.id, &mut self.password, "shop-password", width);
    }

    /// The desk's name (shown on its links everywhere) and its id.
    fn name_ui(&mut self, ui: &mut Ui, cx: &mut ViewCtx<'_>, desk_id: Option<&str>) {
        let lang = cx.lang;
        let width = theme::field_width_ui(ui, SHORT_CHARS);
        let l = ui.label(UiText::DeskName.get(lang));
        let mut save = false;
        ui.horizontal(|ui| {
            let r = ui
                .add(egui::TextEdit::singleline(&mut self.name).desired_width(width))
                .labelled_by(l.id);
            let changed = self.name.trim() != self.saved_name && !self.name.trim().is_empty();
            save = widgets::Action::secondary(UiText::SaveDeskName.get(lang))
                .icon(theme::icon::SAVE)
                .enabled(changed && !self.busy)
                .show_ui(ui)
                .clicked()
                || (changed && r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)));
        });
        if let Some(id) = desk_id {
            widgets::hint_ui(
                ui,
                &cx.palette,
                &UiText::DeskNameHelp.fill(lang, &[("id", &id)]),
            );
        }
        if save {
            self.busy = true;
            self.note = None;
            cx.emit(Command::Shop(ShopCommand::NameDesk {
                name: self.name.trim().to_owned(),
            }));
        }
    }
}

/// "Offline from the shop since 10:42, showing this desk only".
pub fn offline_line(lang: Lang, since: DateTime<Utc>, now: DateTime<Utc>, zone: Zone) -> String {
    UiText::ShopOfflineSince.fill(lang, &[("time", &clock_time(since, now, zone, lang))])
}

/// Why the shop cannot be used, in one sentence: for "no answer" the server named and what to
/// check, the system's words left to the log and the tooltip; else the shop's own sentence.
pub fn reach_sentence(reason: &ShopError, lang: Lang) -> String {
    match reason {
        ShopError::Unreachable { target, .. } | ShopError::Timeout { target, .. } => {
            UiText::ShopNoAnswer.fill(lang, &[("target", target)])
        }
        other => other.sentence(lang),
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;

    use super::*;

    #[test]
    fn the_fields_make_the_shops_url_and_a_url_fills_the_fields_back() {
        let fields = ShopFields {
            server: "db.example.com".into(),
            port: String::new(),
            database: "kahve evi".into(),
            login: "kasa_2".into(),
            ca_file: "/etc/paydesk/shop-ca.pem".into(),
            ..ShopFields::default()
        };
        let text = url_from_fields(&fields);
        let url = ShopUrl::parse(&text).expect("a shop URL");
        assert_eq!(url.host_text(), "db.example.com");
        assert_eq!(url.port(), 5432, "no port typed: PostgreSQL's");
        assert_eq!(url.dbname(), "kahve evi");
        assert_eq!(url.user(), "kasa_2");
        assert_eq!(url.sslmode(), crate::shop::SslMode::VerifyFull);
        assert_eq!(
            url.sslrootcert(),
            Some(std::path::Path::new("/etc/paydesk/shop-ca.pem"))
        );
        assert!(url.weaknesses().is_empty(), "{:?}", url.weaknesses());
        // Back again: the same fields (the port spelled out).
        let back = ShopFields::of(&url);
        assert_eq!(
            back,
            ShopFields {
                port: "5432".into(),
                ..fields
            }
        );
        // What a pasted URL named beyond the fields is kept.
        let weak = ShopUrl::parse("postgres://kasa@db.example.com/shop?sslmode=require")
            .expect("a shop URL");
        let kept = ShopFields::of(&weak);
        assert_eq!(kept.mode.as_deref(), Some("require"));
        assert_eq!(
            ShopUrl::parse(&url_from_fields(&kept)).expect("a shop URL"),
            weak
        );
        // Nothing typed: no URL; this machine without a CA file: the default mode.
        assert_eq!(url_from_fields(&ShopFields::default()), "");
        let local = ShopFields {
            server: "127.0.0.1".into(),
            port: "5433".into(),
            database: "shop".into(),
            login: "desk".into(),
            ..ShopFields::default()
        };
        assert_eq!(
            url_from_fields(&local),
            "postgres://desk@127.0.0.1:5433/shop"
        );
    }

    #[test]
    fn the_offline_line_gives_the_time_in_the_desks_zone_and_the_day_when_not_today() {
        let since = Utc.with_ymd_and_hms(2026, 11, 27, 7, 42, 0).unwrap();
        let now = Utc.with_ymd_and_hms(2026, 11, 27, 9, 0, 0).unwrap();
        let istanbul = Zone::hours(3);
        assert_eq!(
            offline_line(Lang::En, since, now, istanbul),
            "Offline from the shop since 10:42, showing this desk only"
        );
        let tr = offline_line(Lang::Tr, since, now, istanbul);
        assert!(tr.contains("10:42"), "{tr}");
        let tomorrow = now + chrono::Duration::days(1);
        assert!(
            offline_line(Lang::En, since, tomorrow, istanbul).contains("27 Nov 2026, 10:42"),
            "an outage from yesterday names its day"
        );
    }

    #[test]
    fn no_answer_names_the_server_without_the_systems_words() {
        let e = ShopError::Unreachable {
            target: "db.shop.example:5432".into(),
            reason: "Connection refused (os error 111)".into(),
        };
        for lang in Lang::ALL {
            let s = reach_sentence(&e, lang);
            assert!(s.contains("db.shop.example:5432"), "{s}");
            assert!(!s.contains("os error"), "{s}");
        }
        let wrong = ShopError::WrongPassword {
            user: "desk".into(),
        };
        assert_eq!(reach_sentence(&wrong, Lang::En), wrong.sentence(Lang::En));
    }
}
