//! The frame around the views: the top bar (profile picker with the sandbox badge, connection
//! state, the Pending badge, language, theme), the navigation, the view itself, the narrow
//! open-links board beside New link on a wide window, and the customer display window.

use chrono::{DateTime, Utc};
use egui::{RichText, Ui};

use crate::app::{App, Command, Connection, Holdings, View};
use crate::lang::Lang;
use crate::ui::board::{PANEL_WIDTH, WIDE};
use crate::ui::link_result::{Origin, customer_viewport, customer_viewport_id};
use crate::ui::new_link::FormLock;
use crate::ui::shop::{ShopReach, ShopShown};
use crate::ui::staff::{ApprovalOutcome, role_text};
use crate::ui::text::UiText;
use crate::ui::theme::{Palette, ThemeChoice};
use crate::ui::widgets;
use crate::ui::{ProfilesCommand, StaffCommand};
use crate::ui::{ResendView, ViewCtx};

/// What every view of a frame is drawn with: the palette, now, the re-send and the form's lock.
type Frame = (Palette, DateTime<Utc>, ResendView, Option<FormLock>);

/// The views' context of a frame: the zone, whether the profile is a sandbox, the language;
/// the catalog, barcodes and limits the app holds; `frame`; this frame's commands.
fn view_ctx<'a>(
    holds: &'a Holdings,
    (zone, sandbox, lang): (crate::clock::Zone, bool, Lang),
    (palette, now, resend, form_lock): Frame,
    commands: &'a mut Vec<Command>,
) -> ViewCtx<'a> {
    ViewCtx {
        lang,
        palette,
        now,
        zone,
        catalog: &holds.catalog,
        barcodes: &holds.barcodes,
        limits: holds.limits,
        sandbox,
        resend,
        form_lock,
        commands,
    }
}

impl App {
    /// Draws the whole window for one frame.
    pub(crate) fn draw_ui(&mut self, ui: &mut Ui) {
        let palette = Palette::of(ui.visuals());
        let lang = self.saved.lang;
        let now = self.options_clock_now();
        let mut commands = std::mem::take(&mut self.commands);
        // Derived from the rows already in memory: no I/O on this thread.
        let form_lock = self.form_lock();
        let resend = self.resend_view(now);
        // Set again by the rows drawn this frame.
        self.views.board.on_frame_start();

        // With staff on and nobody signed in, only the lock screen (the customer display and
        // the board's refresh go on); while the staff list is not read yet, nothing.
        let locked = self.staff.locked();
        let opening = !self.staff.known && self.holds.connection == Connection::Connecting;
        let hidden = locked || opening;

        egui::Panel::top("top-bar").show(ui, |ui| {
            self.top_bar_ui(ui, &palette, &mut commands);
        });
        if !hidden {
            egui::Panel::left("nav")
                .resizable(false)
                .exact_size(crate::ui::theme::NAV_WIDTH)
                .show(ui, |ui| self.nav_ui(ui, now, &mut commands));
        }
        // On a wide window the open links sit under New link's "This sale" (drawn by the view),
        // and beside the link just made.
        let wide = ui.ctx().content_rect().width() >= WIDE;
        let sale_shown = matches!(&self.views.shown, Some(s) if s.origin() == Origin::Created);
        if !hidden && self.view == View::NewLink && wide && sale_shown {
            let parts = (palette, now, resend, form_lock.clone());
            self.board_panel_ui(ui, parts, &mut commands);
        }
        let sandbox = self.is_sandbox();
        egui::CentralPanel::default().show(ui, |ui| {
            let place = (self.zone, sandbox, lang);
            let frame = (palette, now, resend, form_lock);
            let mut cx = view_ctx(&self.holds, place, frame, &mut commands);
            if hidden {
                if locked {
                    self.views
                        .lock
                        .lock_screen_ui(ui, &mut cx, &self.staff.members);
                }
                return;
            }
            match self.view {
                View::NewLink => match &mut self.views.shown {
                    Some(shown) if shown.origin() == Origin::Created => {
                        shown.ui(ui, &mut cx, self.views.customer.is_open());
                    }
                    _ if wide => {
                        let board = &mut self.views.board;
                        let mut below = |ui: &mut Ui, cx: &mut ViewCtx<'_>| board.panel_ui(ui, cx);
                        self.views.new_link.sale_ui(ui, &mut cx, Some(&mut below));
                    }
                    _ => self.views.new_link.ui(ui, &mut cx),
                },
                View::Board => match &mut self.views.shown {
                    Some(shown) if shown.origin() == Origin::Board => {
                        shown.ui(ui, &mut cx, self.views.customer.is_open());
                    }
                    _ => self.views.board.ui(ui, &mut cx),
                },
                View::Card => self.views.card.ui(ui, &mut cx),
                View::Installments => self.views.installments.ui(ui, &mut cx),
                View::History => match &mut self.views.shown {
                    Some(shown) if shown.origin() == Origin::History => {
                        shown.ui(ui, &mut cx, self.views.customer.is_open());
                    }
                    _ => self.views.history.ui(ui, &mut cx),
                },
                View::Report => self.views.report.ui(ui, &mut cx),
                View::Pending => self.views.pending.ui(ui, &mut cx),
                View::Catalog => {
                    let catalog = cx.catalog;
                    self.views.catalog.ui(ui, &mut cx, catalog);
                }
                View::Settings => {
                    let current = self.profile_name();
                    // Profiles, staff and the shop together are taller than a small screen.
                    egui::ScrollArea::vertical()
                        .auto_shrink([false, false])
                        .show(ui, |ui| {
                            self.views.settings.ui(
                                ui,
                                &mut cx,
                                &current,
                                &mut self.saved.merchant_name,
                                &mut self.saved.slip_paper,
                            );
                            self.views
                                .settings
                                .alerts_ui(ui, &cx, &mut self.saved.alert_sound);
                            let (desk, idle) =
                                (self.staff.settings_ctx(), &mut self.saved.idle_lock_minutes);
                            self.views.staff.staff_settings_ui(ui, &mut cx, desk, idle);
                            let shown = ShopShown {
                                joined: self.shop.url.as_ref(),
                                desk_id: self.shop.desk.as_ref().map(|d| d.id.as_str()),
                                reach: &self.shop.reach,
                                outbox: self.shop.outbox,
                                env_password: self.options.env_shop.value().is_some(),
                            };
                            self.views.shop.shop_settings_ui(ui, &mut cx, shown);
                            self.views.mail.mail_settings_ui(ui, &mut cx);
                        });
                }
                View::Audit => {
                    let names = self.staff.names();
                    self.views.audit.audit_ui(ui, &mut cx, &names);
                }
            }
        });
        self.approval_ui(ui, palette, now, &mut commands);
        self.commands = commands;
        self.customer_display(ui.ctx(), &palette);
    }

    /// The manager's approval prompt over everything, while a command is held.
    fn approval_ui(
        &mut self,
        ui: &Ui,
        palette: Palette,
        now: DateTime<Utc>,
        commands: &mut Vec<Command>,
    ) {
        let Some(prompt) = &mut self.views.approval else {
            return;
        };
        let mut cx = ViewCtx {
            lang: self.saved.lang,
            palette,
            now,
            zone: self.zone,
            catalog: &self.holds.catalog,
            barcodes: &self.holds.barcodes,
            limits: self.holds.limits,
            sandbox: false,
            resend: ResendView::default(),
            form_lock: None,
            commands,
        };
        if prompt.approval_ui(ui.ctx(), &mut cx) == ApprovalOutcome::Cancelled {
            // Nothing was sent: everything stays as it was.
            self.views.approval = None;
            self.staff.held = None;
            self.clear_busy();
        }
    }

    /// Beside the link just made, on a wide window: the open links at a glance.
    fn board_panel_ui(&mut self, ui: &mut Ui, frame: Frame, commands: &mut Vec<Command>) {
        let place = (self.zone, self.is_sandbox(), self.saved.lang);
        egui::Panel::right("board-panel")
            .resizable(false)
            .exact_size(PANEL_WIDTH)
            .show(ui, |ui| {
                let mut cx = view_ctx(&self.holds, place, frame, commands);
                self.views.board.panel_ui(ui, &mut cx);
            });
    }

    /// The navigation: every view, with the counts of pending rows and open links.
    fn nav_ui(&self, ui: &mut Ui, now: DateTime<Utc>, commands: &mut Vec<Command>) {
        let lang = self.saved.lang;
        // The panel has one width on every page; an entry longer than it (a name with a count
        // of thousands) is cut with "…" rather than wrapped.
        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
        ui.add_space(crate::ui::theme::SPACE_S);
        for v in View::ALL {
            // The record of who did what exists for a shop with staff.
            if v == View::Audit && !self.staff.on() {
                continue;
            }
            let mut text = v.title().get(lang).to_owned();
            if v == View::Pending && self.views.pending.count() > 0 {
                text = format!("{text} ({})", self.views.pending.count());
            }
            // The board's rows count every desk's open links on a shop's board; the
            // refresher's, the links followed before the rows are read.
            let open = self
                .refresher
                .counts(now)
                .1
                .max(self.views.board.open_count(now));
            if v == View::Board && open > 0 {
                text = format!("{text} ({open})");
            }
            if crate::ui::widgets::nav_entry_ui(ui, v.icon(), &text, self.view == v).clicked() {
                commands.push(Command::Navigate { view: v });
            }
        }
    }

    /// The background re-send as the views show it.
    fn resend_view(&self, now: DateTime<Utc>) -> ResendView {
        ResendView {
            running: self.resend.running,
            // A wall-clock time, so the line needs no repaint each second.
            next: self.resend.next.map(|at| {
                let wait = at.saturating_duration_since(std::time::Instant::now());
                now + chrono::Duration::from_std(wait).unwrap_or_default()
            }),
        }
    }

    /// The New link form's lock for the journal rows held now.
    pub fn form_lock(&self) -> Option<FormLock> {
        self.views
            .new_link
            .lock_of(self.views.pending.rows(), self.options_clock_now())
    }

    fn options_clock_now(&self) -> chrono::DateTime<chrono::Utc> {
        self.options.clock.now()
    }

    fn top_bar_ui(&mut self, ui: &mut Ui, palette: &Palette, commands: &mut Vec<Command>) {
        let lang = self.saved.lang;
        // Language and theme first, from the right; the rest wraps in what is left of the
        // row, so a long line (the shop offline, in Turkish, at 1024 px) never runs under them.
        let row = ui.available_rect_before_wrap();
        let prefs = ui
            .scope_builder(
                egui::UiBuilder::new()
                    .max_rect(row)
                    .layout(egui::Layout::right_to_left(egui::Align::Center)),
                |ui| self.prefs_ui(ui),
            )
            .response
            .rect;
        let left = egui::Rect::from_min_max(
            row.min,
            egui::pos2(prefs.left() - crate::ui::theme::SPACE_M, row.max.y),
        );
        ui.scope_builder(
            egui::UiBuilder::new()
                .max_rect(left)
                .layout(egui::Layout::left_to_right(egui::Align::Center).with_main_wrap(true)),
            |ui| {
                ui.label(RichText::new(UiText::AppName.get(lang)).heading().strong());
                ui.separator();
                if self.staff.on() {
                    self.clerk_ui(ui, palette, commands);
                    ui.separator();
                }
                if !self.staff.locked() {
                    self.profile_ui(ui, palette, commands);
                }
                self.shop_line_ui(ui, palette);
            },
        );
    }

    /// The profile picker, the sandbox badge, the connection and the Pending badge.
    fn profile_ui(&self, ui: &mut Ui, palette: &Palette, commands: &mut Vec<Command>) {
        let lang = self.saved.lang;
        let current = self.profile_name();
        let l = ui.label(UiText::Profile.get(lang));
        let combo = egui::ComboBox::from_id_salt("profile-picker")
            .selected_text(current.as_str())
            .show_ui(ui, |ui| {
                for p in &self.holds.profiles {
                    if ui
                        .selectable_label(p.name == current, p.name.as_str())
                        .clicked()
                        && p.name != current
                    {
                        commands.push(Command::Profiles(ProfilesCommand::Switch {
                            name: p.name.clone(),
                        }));
                    }
                }
            });
        let _ = combo.response.labelled_by(l.id);
        if self.is_sandbox() {
            widgets::badge_ui(ui, UiText::SandboxBadge.get(lang), palette.sandbox);
        }
        match &self.holds.connection {
            Connection::Connecting => {
                ui.spinner();
                ui.label(UiText::Connecting.get(lang));
            }
            Connection::Connected => {
                ui.label(
                    RichText::new(format!("● {}", UiText::Connected.get(lang))).color(palette.ok),
                );
            }
            Connection::Disconnected(why) => {
                ui.label(
                    RichText::new(format!("● {}", UiText::Disconnected.get(lang)))
                        .color(palette.error),
                )
                .on_hover_text(why.as_str());
            }
        }
        let count = self.views.pending.count();
        if count > 0 {
            let r = widgets::badge_ui(
                ui,
                format!("{} {count}", UiText::PendingBadge.get(lang)),
                palette.pending,
            )
            .interact(egui::Sense::click());
            if r.clicked() {
                commands.push(Command::Navigate {
                    view: View::Pending,
                });
            }
        }
    }

    /// The shop, when the desk joined one: a quiet mark while it answers, and while it does
    /// not, since when and that the views show this desk only (why in the tooltip).
    fn shop_line_ui(&self, ui: &mut Ui, palette: &Palette) {
        let lang = self.saved.lang;
        let now = self.options_clock_now();
        match &self.shop.reach {
            ShopReach::NotJoined => {}
            ShopReach::Connecting => {
                ui.separator();
                ui.spinner();
                ui.label(UiText::ShopConnecting.get(lang));
            }
            ShopReach::Online { .. } if self.shop.push_failed.is_some() => {
                ui.separator();
                let why = self.shop.push_failed.as_deref().unwrap_or_default();
                ui.label(
                    RichText::new(format!(
                        "{} {}",
                        String::from(crate::ui::theme::icon::OFFLINE),
                        UiText::ShopPushStuck.get(lang)
                    ))
                    .color(palette.warn)
                    .strong(),
                )
                .on_hover_text(why);
            }
            ShopReach::Online { since } => {
                ui.separator();
                let at = crate::ui::words::clock_time(*since, now, self.zone, lang);
                ui.label(
                    RichText::new(format!("● {}", UiText::ShopBadge.get(lang))).color(palette.ok),
                )
                .on_hover_text(UiText::ShopOnlineSince.fill(lang, &[("time", &at)]));
            }
            ShopReach::Offline { since, reason } => {
                ui.separator();
                let line = crate::ui::shop::offline_line(lang, *since, now, self.zone);
                ui.label(
                    RichText::new(format!(
                        "{} {line}",
                        String::from(crate::ui::theme::icon::OFFLINE)
                    ))
                    .color(palette.warn)
                    .strong(),
                )
                .on_hover_text(crate::ui::shop::reach_sentence(reason, lang));
            }
        }
    }

    /// Language and theme, on the right (`ui` lays out right to left).
    fn prefs_ui(&mut self, ui: &mut Ui) {
        let lang = self.saved.lang;
        ui.horizontal(|ui| {
            let theme_label = |t: ThemeChoice| match t {
                ThemeChoice::System => UiText::ThemeSystem.get(lang),
                ThemeChoice::Light => UiText::ThemeLight.get(lang),
                ThemeChoice::Dark => UiText::ThemeDark.get(lang),
            };
            let combo = egui::ComboBox::from_id_salt("theme-picker")
                .selected_text(theme_label(self.saved.theme))
                .show_ui(ui, |ui| {
                    for t in ThemeChoice::ALL {
                        ui.selectable_value(&mut self.saved.theme, t, theme_label(t));
                    }
                });
            let l = ui.label(UiText::Theme.get(lang));
            let _ = combo.response.labelled_by(l.id);
            let combo = egui::ComboBox::from_id_salt("language-picker")
                .selected_text(self.saved.lang.native_name())
                .show_ui(ui, |ui| {
                    for l in Lang::ALL {
                        ui.selectable_value(&mut self.saved.lang, l, l.native_name());
                    }
                });
            let l = ui.label(UiText::Language.get(lang));
            let _ = combo.response.labelled_by(l.id);
        });
    }

    /// The clerk signed in, as a button that locks the desk to switch clerks; or "Desk
    /// locked"; and the worker's last refusal.
    fn clerk_ui(&self, ui: &mut Ui, palette: &Palette, commands: &mut Vec<Command>) {
        let lang = self.saved.lang;
        match &self.staff.actor.member {
            Some(m) => {
                let text =
                    RichText::new(format!("{} · {}", m.name, role_text(m.role).get(lang))).strong();
                let r = ui
                    .add(egui::Button::new(text))
                    .on_hover_text(UiText::SwitchClerk.get(lang));
                let spoken = format!("{} {}", m.name, UiText::SwitchClerk.get(lang));
                r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &spoken));
                if r.clicked() {
                    commands.push(Command::Staff(StaffCommand::Lock));
                }
            }
            None => {
                ui.label(RichText::new(UiText::DeskLocked.get(lang)).strong());
            }
        }
        if let Some(why) = &self.staff.refusal {
            widgets::error_text_ui(ui, palette, why.as_str());
        }
    }

    fn customer_display(&mut self, ctx: &egui::Context, palette: &Palette) {
        if !self.views.customer.is_open() {
            return;
        }
        let Some(shown) = &mut self.views.shown else {
            self.views.customer.close();
            return;
        };
        let lang = self.saved.lang;
        // The shop's name as Settings has it, or nothing: a profile's name ("sandbox") is a
        // word for staff, not for the customer.
        let merchant = self.saved.merchant_name.trim().to_owned();
        let palette = Palette::for_mode(palette.dark);
        let mut close = false;
        ctx.show_viewport_immediate(
            customer_viewport_id(),
            customer_viewport(lang, self.views.customer.is_fullscreen()),
            |ui, _class| {
                egui::CentralPanel::default()
                    .frame(egui::Frame::new().fill(palette.customer_background))
                    .show(ui, |ui| {
                        shown.customer_ui(ui, &palette, lang, &merchant);
                    });
                if ui.input(|i| i.key_pressed(egui::Key::Escape) || i.viewport().close_requested())
                {
                    close = true;
                }
            },
        );
        if close {
            self.views.customer.on_asked(false, false);
        }
    }
}
