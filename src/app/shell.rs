//! The frame around the views: the top bar (the shop's name, the desk or the profile picker
//! with the sandbox badge, the connection, the shop's reach, and on the right the member's menu
//! with Language, Theme and Lock), the navigation in groups (the counter, the back office, the
//! shop; as wide as its longest entry in the current language), the view itself, the narrow
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

/// One entry of the navigation: its view, and the count beside it (with whether it asks for
/// attention: the sales waiting under Unsent do, the open links do not).
struct NavEntry {
    view: View,
    count: Option<(usize, bool)>,
}

/// The navigation's width: its longest possible entry in the current language (icon, words, a
/// two-digit count; Unsent and Audit counted even while hidden, so the views never move when
/// a sale starts waiting), or its group's heading, measured with the font; at least the
/// theme's least width.
fn nav_width(ui: &Ui, lang: Lang) -> f32 {
    let widest = View::GROUPS
        .iter()
        .flat_map(|(heading, views)| {
            let heading = widgets::text_width(ui, heading.get(lang));
            views
                .iter()
                .map(move |v| {
                    let count = matches!(v, View::Pending | View::Board).then_some(NAV_COUNT_ROOM);
                    widgets::nav_entry_width(ui, v.icon(), v.title().get(lang), count)
                })
                .chain(std::iter::once(heading))
        })
        .fold(0.0_f32, f32::max);
    crate::ui::theme::nav_width_for(widest)
}

/// A separator between the top bar's parts, as tall as a button: in the bar's wrapping row a
/// plain separator takes all the height left, so once a long line wrapped (the shop offline)
/// the bar grew with its separators, frame after frame.
fn bar_separator(ui: &mut Ui) {
    let height = ui.spacing().interact_size.y;
    ui.add_sized([0.0, height], egui::Separator::default().vertical());
}

/// The count the navigation keeps room for beside Unsent and Open links.
const NAV_COUNT_ROOM: usize = 99;

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
            let entries = self.nav_entries(now);
            let width = nav_width(ui, lang);
            egui::Panel::left("nav")
                .resizable(false)
                .exact_size(width)
                .show(ui, |ui| self.nav_ui(ui, &palette, &entries, &mut commands));
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
                View::Staff => {
                    // The shop's people, in the shop group (issue 29): no longer inside
                    // Settings.
                    egui::ScrollArea::vertical()
                        .auto_shrink([false, false])
                        .show(ui, |ui| {
                            let (desk, idle) =
                                (self.staff.settings_ctx(), &mut self.saved.idle_lock_minutes);
                            self.views.staff.staff_settings_ui(ui, &mut cx, desk, idle);
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

    /// The navigation's entries this frame, by group: each view shown, with its count (the
    /// open links; the sales waiting under Unsent, which is left out while none waits; Audit
    /// only with staff on).
    fn nav_entries(&self, now: DateTime<Utc>) -> Vec<(UiText, Vec<NavEntry>)> {
        // The board's rows count every desk's open links on a shop's board; the refresher's,
        // the links followed before the rows are read.
        let open = self
            .refresher
            .counts(now)
            .1
            .max(self.views.board.open_count(now));
        let unsent = self.views.pending.count();
        View::GROUPS
            .iter()
            .map(|(heading, views)| {
                let entries = views
                    .iter()
                    .filter_map(|&view| {
                        let count = match view {
                            View::Audit if !self.staff.on() => return None,
                            View::Pending if unsent == 0 && self.view != View::Pending => {
                                return None;
                            }
                            View::Pending => Some((unsent, true)),
                            View::Board => Some((open, false)),
                            _ => None,
                        }
                        .filter(|(n, _)| *n > 0);
                        Some(NavEntry { view, count })
                    })
                    .collect();
                (*heading, entries)
            })
            .collect()
    }

    /// The navigation: the groups under their small headings, each entry with its count.
    fn nav_ui(
        &self,
        ui: &mut Ui,
        palette: &Palette,
        groups: &[(UiText, Vec<NavEntry>)],
        commands: &mut Vec<Command>,
    ) {
        let lang = self.saved.lang;
        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
        for (heading, entries) in groups {
            if entries.is_empty() {
                continue;
            }
            ui.add_space(crate::ui::theme::SPACE_S);
            ui.label(
                RichText::new(heading.get(lang))
                    .small()
                    .strong()
                    .color(palette.muted),
            );
            for entry in entries {
                let v = entry.view;
                let badge = entry.count.map(|(n, alert)| {
                    (
                        n,
                        if alert {
                            palette.pending
                        } else {
                            palette.neutral_badge()
                        },
                    )
                });
                if widgets::nav_entry_ui(ui, v.icon(), v.title().get(lang), badge, self.view == v)
                    .clicked()
                {
                    commands.push(Command::Navigate { view: v });
                }
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
        // The member's menu first, from the right; the rest wraps in what is left of the row,
        // so a long line (the shop offline, in Turkish, at 1024 px) never runs under it.
        let row = ui.available_rect_before_wrap();
        let menu = ui
            .scope_builder(
                egui::UiBuilder::new()
                    .max_rect(row)
                    .layout(egui::Layout::right_to_left(egui::Align::Center)),
                |ui| self.member_menu_ui(ui, palette, commands),
            )
            .response
            .rect;
        // One row high: the parts are centred on the first row and a wrapped line goes under
        // it. (Centred in all the height left, the bar grew with every frame once a line
        // wrapped.)
        let left = egui::Rect::from_min_max(
            row.min,
            egui::pos2(
                menu.left() - crate::ui::theme::SPACE_M,
                row.min.y + ui.spacing().interact_size.y,
            ),
        );
        ui.scope_builder(
            egui::UiBuilder::new()
                .max_rect(left)
                .layout(egui::Layout::left_to_right(egui::Align::Center).with_main_wrap(true)),
            |ui| {
                // The shop's name (Settings'), else the profile's: whose till this is.
                let merchant = self.saved.merchant_name.trim();
                let shop = if merchant.is_empty() {
                    self.profile_name()
                } else {
                    merchant.to_owned()
                };
                ui.label(
                    RichText::new(format!(
                        "{} {shop}",
                        String::from(crate::ui::theme::icon::SHOP)
                    ))
                    .strong()
                    .color(ui.visuals().strong_text_color()),
                );
                bar_separator(ui);
                if let Some(desk) = self.shop.desk.as_ref().filter(|_| self.shop.url.is_some()) {
                    ui.label(
                        RichText::new(UiText::TopBarDesk.fill(lang, &[("name", &desk.name)]))
                            .color(palette.muted),
                    );
                }
                if !self.staff.locked() {
                    self.profile_ui(ui, palette, commands);
                }
                self.shop_line_ui(ui, palette);
            },
        );
    }

    /// The profile picker (the account this desk works on), the sandbox badge, the connection.
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
    }

    /// The shop, when the desk joined one: a quiet mark while it answers, and while it does
    /// not, since when and that the views show this desk only (why in the tooltip).
    fn shop_line_ui(&self, ui: &mut Ui, palette: &Palette) {
        let lang = self.saved.lang;
        let now = self.options_clock_now();
        match &self.shop.reach {
            ShopReach::NotJoined => {}
            ShopReach::Connecting => {
                bar_separator(ui);
                ui.spinner();
                ui.label(UiText::ShopConnecting.get(lang));
            }
            ShopReach::Online { .. } if self.shop.push_failed.is_some() => {
                bar_separator(ui);
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
                bar_separator(ui);
                let at = crate::ui::words::clock_time(*since, now, self.zone, lang);
                ui.label(
                    RichText::new(format!("● {}", UiText::ShopBadge.get(lang))).color(palette.ok),
                )
                .on_hover_text(UiText::ShopOnlineSince.fill(lang, &[("time", &at)]));
            }
            ShopReach::Offline { since, reason } => {
                bar_separator(ui);
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

    /// The member's menu, on the right: a button with the clerk's name and role (with staff
    /// off, "Language and theme") that opens Language, Theme and, for a member signed in, Lock;
    /// every signed-in member reaches it, Settings stays a manager's. With the desk locked,
    /// "Desk locked" and the worker's last refusal.
    fn member_menu_ui(&mut self, ui: &mut Ui, palette: &Palette, commands: &mut Vec<Command>) {
        let lang = self.saved.lang;
        let member = self.staff.actor.member.clone();
        let caption = match &member {
            Some(m) => format!("{} · {}", m.name, role_text(m.role).get(lang)),
            None => UiText::DeskMenu.get(lang).to_owned(),
        };
        let mut atoms = egui::Atoms::default();
        atoms.push_right(crate::ui::theme::icon::PERSON.rich_text());
        atoms.push_right(RichText::new(caption.clone()).strong());
        atoms.push_right("▾");
        let (response, _) = egui::containers::menu::MenuButton::from_button(egui::Button::new(
            atoms,
        ))
        .ui(ui, |ui| {
            ui.set_min_width(crate::ui::theme::MENU_MIN_WIDTH);
            ui.label(
                RichText::new(UiText::Language.get(lang))
                    .small()
                    .color(palette.muted),
            );
            for l in Lang::ALL {
                ui.selectable_value(&mut self.saved.lang, l, l.native_name());
            }
            bar_separator(ui);
            ui.label(
                RichText::new(UiText::Theme.get(lang))
                    .small()
                    .color(palette.muted),
            );
            for t in ThemeChoice::ALL {
                let words = match t {
                    ThemeChoice::System => UiText::ThemeSystem,
                    ThemeChoice::Light => UiText::ThemeLight,
                    ThemeChoice::Dark => UiText::ThemeDark,
                };
                ui.selectable_value(&mut self.saved.theme, t, words.get(lang));
            }
            if member.is_some() {
                bar_separator(ui);
                let mut lock = egui::Atoms::default();
                lock.push_right(crate::ui::theme::icon::LOCK.rich_text());
                lock.push_right(UiText::LockDesk.get(lang));
                let r = ui.button(lock);
                let spoken = UiText::LockDesk.get(lang);
                r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, spoken));
                if r.clicked() {
                    commands.push(Command::Staff(StaffCommand::Lock));
                    ui.close();
                }
            }
        });
        let spoken = format!("{caption}: {}", UiText::MemberMenuHelp.get(lang));
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &spoken));
        let response = response.on_hover_text(UiText::MemberMenuHelp.get(lang));
        // (Right to left: drawn after the menu, so the menu keeps the bar's edge.)
        if member.is_none() && self.staff.on() {
            ui.label(RichText::new(UiText::DeskLocked.get(lang)).strong());
        }
        if let Some(why) = &self.staff.refusal {
            widgets::error_text_ui(ui, palette, why.as_str());
        }
        let _ = response;
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
