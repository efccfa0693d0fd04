//! Staff at the desk: signing in and locking (Ctrl+L, the top bar's name, the idle minutes),
//! the role table's check before every command, the manager's approval of one held command,
//! the members in Settings and the Audit view's record.
//!
//! With no staff member defined nothing here changes what the app does. With staff on, every
//! command goes through [`roles::permit`] with the signed-in member before it runs: a command
//! a clerk's role does not allow is held and the approval prompt opens; a manager's PIN runs it
//! once with `actor.approved_by(manager)`. Every PIN check and store call runs on the worker,
//! and the worker checks the role table again with the desk acting as that member.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin as PinBox;

use chrono::{DateTime, Utc};
use zeroize::Zeroizing;

use super::errors::JobError;
use super::logic::Msg;
use super::{App, Command, View};
use crate::domain::roles::{self, Need, Permit, Surface};
use crate::domain::{Actor, Pin, StaffMember, StaffName};
use crate::service::{DeskError, Services};
use crate::store::{AuditFilter, AuditRow, ChainCheck};
use crate::ui::link_result::Origin;
use crate::ui::new_link::NewLinkForm;
use crate::ui::problem::{Explain, Note, Problem};
use crate::ui::staff::{ApprovalPrompt, LockScreen};
use crate::ui::text::UiText;
use crate::ui::{LinkCommand, StaffCommand};

/// The idle minutes after which the desk locks, unless Settings say otherwise.
pub const DEFAULT_IDLE_MINUTES: u32 = 5;

/// Where sign-ins from the window are recorded (the audit row's subject).
pub const APP_SUBJECT: &str = "app";

/// Who is at the desk, and what the staff features hold between frames.
#[derive(Debug, Default)]
pub struct StaffDesk {
    /// The members have been read from the file (at the profile's opening).
    pub known: bool,
    /// Every member, by name (staff are on when there is one).
    pub members: Vec<StaffMember>,
    /// The member signed in (nobody: staff are off, or the desk is locked).
    pub actor: Actor,
    /// The member who signed in last (whose form is on screen).
    pub last_clerk: Option<String>,
    /// The last time someone touched the window (the app's clock).
    pub last_active: Option<DateTime<Utc>>,
    /// Each clerk's half-typed New link form, kept while another clerk works.
    pub kept: HashMap<String, NewLinkForm>,
    /// The command waiting for a manager's approval.
    pub(crate) held: Option<Command>,
    /// The approved actor of the command being run (one command only).
    pub(crate) approved: Option<Actor>,
    /// The name of the command being run, so its jobs are checked again on the worker.
    pub(crate) running: Option<&'static str>,
    /// Why the worker refused the last command (shown in the top bar).
    pub refusal: Option<String>,
}

impl StaffDesk {
    /// Staff are on: at least one member is defined.
    pub fn on(&self) -> bool {
        !self.members.is_empty()
    }

    /// The desk is locked: staff are on and nobody is signed in.
    pub fn locked(&self) -> bool {
        self.on() && self.actor.member.is_none()
    }

    /// What a manager may change is open: staff are off, or a manager is signed in.
    pub fn manager_here(&self) -> bool {
        !self.on() || self.actor.has_manager_power()
    }

    /// What Settings' Staff section needs.
    pub fn settings_ctx(&self) -> crate::ui::staff::StaffSettingsCtx<'_> {
        crate::ui::staff::StaffSettingsCtx {
            members: &self.members,
            on: self.on(),
            manager: self.manager_here(),
        }
    }

    /// The names of every member, for filters.
    pub fn names(&self) -> Vec<String> {
        self.members.iter().map(|m| m.name.clone()).collect()
    }
}

/// What changed a member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaffChange {
    /// A member was added.
    Added(String),
    /// A member's PIN was changed.
    PinReset(String),
    /// A member was enabled (`true`) or disabled.
    Active(String, bool),
}

/// A background result of the staff features.
#[derive(Debug)]
pub enum StaffResult {
    /// The members, read again.
    Listed {
        /// The members, or why they could not be read.
        result: Result<Vec<StaffMember>, DeskError>,
    },
    /// A sign-in was checked.
    SignedIn {
        /// The member, or why not (a wrong PIN, a wait, disabled).
        result: Result<StaffMember, DeskError>,
    },
    /// A member was changed; the members after it.
    Changed {
        /// What was asked.
        change: StaffChange,
        /// The members after the change, or why it was refused.
        result: Result<Vec<StaffMember>, DeskError>,
    },
    /// A manager's PIN for the held command was checked.
    Approved {
        /// The clerk with the approval, or why not.
        result: Result<Actor, DeskError>,
    },
    /// The audit record was read and its chain walked.
    Audit {
        /// The rows (newest first) and the walk's finding.
        result: Result<(Vec<AuditRow>, ChainCheck), DeskError>,
    },
    /// The audit rows were written as CSV.
    AuditExported {
        /// How many rows and where, or why not.
        result: Result<(usize, PathBuf), JobError>,
    },
    /// The worker's own check of the role table refused a command.
    Refused {
        /// The command's name.
        command: &'static str,
        /// Why.
        error: DeskError,
    },
}

/// A job's future, boxed so a checked and an unchecked one have one type.
type Job = PinBox<Box<dyn Future<Output = Msg> + Send + 'static>>;

impl App {
    /// Who acts for the command being run: the approved clerk of a held command, else the
    /// member signed in (nobody with staff off).
    pub(crate) fn acting(&self) -> Actor {
        self.staff
            .approved
            .clone()
            .unwrap_or_else(|| self.staff.actor.clone())
    }

    /// The role table's answer for `command`, before it runs: `Some` to run it; `None` when
    /// it is held for a manager's approval or refused (nobody signed in).
    pub(crate) fn gate(&mut self, command: Command) -> Option<Command> {
        if !self.staff.on() {
            return Some(command);
        }
        let need = roles::need(Surface::App, command.name());
        let actor = self.acting();
        // Who owns a link is the file's to say: the desk refuses a cancel that is not the
        // clerk's own unpaid link, and its refusal opens the approval prompt.
        if need == Need::OwnUnpaidOrManager && actor.member.is_some() {
            return Some(command);
        }
        match roles::permit(need, true, &actor, None) {
            Permit::Allowed => Some(command),
            Permit::SignInFirst => {
                tracing::debug!(command = command.name(), "refused: nobody is signed in");
                None
            }
            Permit::NeedsManager => {
                self.hold(command);
                None
            }
        }
    }

    /// Holds `command` and opens the approval prompt for it.
    pub(crate) fn hold(&mut self, command: Command) {
        let what = self.describe(&command);
        self.views.approval = Some(ApprovalPrompt::new(what, &self.staff.members));
        self.staff.held = Some(command);
    }

    /// The held command in the shop's words ("Cancel link KDK-…").
    fn describe(&self, command: &Command) -> String {
        let lang = self.lang();
        let text = match command {
            Command::Link(LinkCommand::Cancel { id }) => {
                let order = self
                    .views
                    .shown
                    .as_ref()
                    .filter(|s| s.link.id == *id)
                    .and_then(|s| s.link.order_number.clone())
                    .unwrap_or_else(|| id.clone());
                return UiText::WhatCancelLink.fill(lang, &[("order", &order)]);
            }
            _ => match command.name() {
                "SaveCard" => UiText::WhatSaveCard,
                "ExportHistory" => UiText::WhatExportHistory,
                "LoadReport" => UiText::WhatDayClose,
                "AbandonPending" => UiText::WhatAbandon,
                "CatalogPreview" | "CatalogImport" => UiText::WhatCatalog,
                "SetBarcode" => UiText::WhatBarcode,
                "SaveProfile" => UiText::WhatSaveProfile,
                "RemoveProfile" => UiText::WhatRemoveProfile,
                "SwitchProfile" => UiText::WhatSwitchProfile,
                "StoreSecret" => UiText::WhatStoreSecret,
                "AddStaff" => UiText::WhatAddStaff,
                "ResetPin" => UiText::WhatResetPin,
                "SetStaffActive" => UiText::WhatStaffActive,
                "LoadAudit" => UiText::WhatAudit,
                "ExportAudit" => UiText::WhatExportAudit,
                _ => UiText::WhatOther,
            },
        };
        text.get(lang).to_owned()
    }

    /// A job of the command being run, checked again on the worker against the role table
    /// with the desk acting as the member (a cancel is checked by the desk itself).
    pub(crate) fn checked(&self, job: impl Future<Output = Msg> + Send + 'static) -> Job {
        let Some(command) = self.staff.running else {
            return Box::pin(job);
        };
        let need = roles::need(Surface::App, command);
        let Some(desk) = self.holds.desk.clone() else {
            return Box::pin(job);
        };
        if matches!(need, Need::Anyone | Need::OwnUnpaidOrManager) {
            return Box::pin(job);
        }
        let desk = desk.acting_as(self.acting());
        Box::pin(async move {
            match desk.authorize(Surface::App, command, None) {
                Ok(()) => job.await,
                Err(error) => Msg::Staff(StaffResult::Refused { command, error }),
            }
        })
    }

    /// The services, for a staff job; without them (not opened yet) nothing is sent.
    fn staff_services(&self) -> Option<std::sync::Arc<Services>> {
        self.holds.services.clone()
    }

    /// Runs a staff command.
    pub(crate) fn run_staff(&mut self, command: StaffCommand) {
        match command {
            StaffCommand::Lock => self.lock_desk(),
            StaffCommand::SignIn { name, pin } => {
                let Some(services) = self.staff_services() else {
                    self.views.lock.busy = false;
                    return;
                };
                self.spawn(async move {
                    let result = blocking(move || {
                        let pin = parse_pin(&pin)?;
                        let now = services.clock().now();
                        services
                            .with_store_locked(|s| s.staff_sign_in(&name, &pin, APP_SUBJECT, now))
                    })
                    .await;
                    Msg::Staff(StaffResult::SignedIn { result })
                });
            }
            StaffCommand::LoadStaff => {
                let Some(services) = self.staff_services() else {
                    return;
                };
                self.spawn(async move {
                    let result =
                        blocking(move || services.with_store_locked(|s| s.staff_list())).await;
                    Msg::Staff(StaffResult::Listed { result })
                });
            }
            StaffCommand::AddStaff { name, role, pin } => {
                let actor = self.acting();
                self.staff_change(StaffChange::Added(name.clone()), move |s, now| {
                    let name = StaffName::parse(&name).map_err(|e| {
                        crate::store::StoreError::Staff(crate::store::StaffError::Hash(
                            e.to_string(),
                        ))
                    })?;
                    let pin = parse_pin_store(&pin)?;
                    s.staff_add(&actor, &name, role, &pin, now)
                });
            }
            StaffCommand::ResetPin { name, pin } => {
                let actor = self.acting();
                self.staff_change(StaffChange::PinReset(name.clone()), move |s, now| {
                    let pin = parse_pin_store(&pin)?;
                    s.staff_reset_pin(&actor, &name, &pin, now)
                });
            }
            StaffCommand::SetStaffActive { name, active } => {
                let actor = self.acting();
                self.staff_change(StaffChange::Active(name.clone(), active), move |s, now| {
                    s.staff_set_active(&actor, &name, active, now)
                });
            }
            StaffCommand::LoadAudit { filter } => {
                let Some(services) = self.staff_services() else {
                    self.views.audit.abort_busy();
                    return;
                };
                self.views.audit.loading = true;
                self.spawn(async move {
                    let result = blocking(move || {
                        services.with_store_locked(|s| {
                            Ok((s.audit_list(&filter)?, s.audit_verify(None)?))
                        })
                    })
                    .await;
                    Msg::Staff(StaffResult::Audit { result })
                });
            }
            StaffCommand::ExportAudit { filter } => {
                let Some(services) = self.staff_services() else {
                    self.views.audit.abort_busy();
                    return;
                };
                let dir = self.export_dir.clone();
                let zone = self.zone;
                self.spawn(async move {
                    let result = tokio::task::spawn_blocking(move || {
                        export_audit(&services, &filter, zone, dir)
                    })
                    .await
                    .map_err(JobError::from)
                    .and_then(|r| r);
                    Msg::Staff(StaffResult::AuditExported { result })
                });
            }
            StaffCommand::Approve { manager, pin } => {
                let (Some(held), Some(services)) = (&self.staff.held, self.staff_services()) else {
                    self.views.approval = None;
                    return;
                };
                let what = approval_subject(held);
                let clerk = self.staff.actor.clone();
                self.spawn(async move {
                    let result = blocking(move || {
                        let pin = parse_pin(&pin)?;
                        let now = services.clock().now();
                        services.with_store_locked(|s| {
                            s.staff_approve(&clerk, &manager, &pin, &what, now)
                        })
                    })
                    .await;
                    Msg::Staff(StaffResult::Approved { result })
                });
            }
        }
    }

    /// A change of members on the worker, answered with the members after it.
    fn staff_change(
        &mut self,
        change: StaffChange,
        write: impl FnOnce(
            &mut crate::store::Store,
            DateTime<Utc>,
        ) -> Result<(), crate::store::StoreError>
        + Send
        + 'static,
    ) {
        let Some(services) = self.staff_services() else {
            self.views.staff.busy = false;
            return;
        };
        self.spawn(async move {
            let result = blocking(move || {
                let now = services.clock().now();
                services.with_store_locked(|s| {
                    write(s, now)?;
                    s.staff_list()
                })
            })
            .await;
            Msg::Staff(StaffResult::Changed { change, result })
        });
    }

    /// Takes a staff result into the state.
    pub(crate) fn apply_staff(&mut self, result: StaffResult) {
        let lang = self.lang();
        match result {
            StaffResult::Listed {
                result: Ok(members),
            } => self.staff_listed(members),
            StaffResult::Listed { result: Err(e) } => {
                tracing::warn!(error = %e, "the staff list could not be read");
            }
            StaffResult::SignedIn { result: Ok(member) } => self.signed_in(&member),
            StaffResult::SignedIn { result: Err(e) } => {
                self.views.lock.refused(e.sentence(lang));
            }
            StaffResult::Changed { change, result } => {
                self.views.staff.busy = false;
                match result {
                    Ok(members) => {
                        let (t, name) = match &change {
                            StaffChange::Added(n) => (UiText::StaffAdded, n),
                            StaffChange::PinReset(n) => (UiText::PinChanged, n),
                            StaffChange::Active(n, true) => (UiText::MemberEnabled, n),
                            StaffChange::Active(n, false) => (UiText::MemberDisabled, n),
                        };
                        let was_on = self.staff.on();
                        self.views.staff.note = Some(Note::Done(t.fill(lang, &[("name", name)])));
                        self.staff_listed(members);
                        if !was_on && let StaffChange::Added(n) = change {
                            // Staff just turned on: the lock screen waits for the first
                            // manager's PIN, the name already chosen.
                            self.views.lock.chosen = Some(n.clone());
                            self.views.lock.typed = n;
                        }
                    }
                    Err(e) => {
                        self.views.staff.note =
                            Some(Note::Failed(Problem::plain(e.sentence(lang))));
                    }
                }
            }
            StaffResult::Approved { result: Ok(actor) } => {
                self.views.approval = None;
                if let Some(held) = self.staff.held.take() {
                    self.staff.approved = Some(actor);
                    self.run(held);
                    self.staff.approved = None;
                }
            }
            StaffResult::Approved { result: Err(e) } => {
                if let Some(p) = &mut self.views.approval {
                    p.refused(e.sentence(lang));
                }
            }
            StaffResult::Audit { result } => {
                let view = &mut self.views.audit;
                view.loading = false;
                match result {
                    Ok((rows, check)) => {
                        view.rows = rows;
                        view.check = Some(check);
                        view.error = None;
                    }
                    Err(e) => view.error = Some(e.problem(lang)),
                }
            }
            StaffResult::AuditExported { result } => {
                let view = &mut self.views.audit;
                view.exporting = false;
                view.note = Some(match result {
                    Ok((count, path)) => Note::Done(UiText::AuditExported.fill(
                        lang,
                        &[
                            ("count", &count.to_string()),
                            ("path", &path.display().to_string()),
                        ],
                    )),
                    Err(e) => Note::Failed(e.problem(lang)),
                });
            }
            StaffResult::Refused { command, error } => {
                tracing::info!(command, error = %error, "the worker refused a command");
                self.clear_busy();
                self.views.staff.busy = false;
                self.views.audit.abort_busy();
                self.staff.refusal = Some(error.sentence(lang));
                if matches!(error, DeskError::SignInFirst) {
                    // Staff were turned on elsewhere (the command line): read them.
                    self.run_staff(StaffCommand::LoadStaff);
                }
            }
        }
    }

    /// The members as read: staff are known, and on when there is one.
    pub(crate) fn staff_listed(&mut self, members: Vec<StaffMember>) {
        self.staff.known = true;
        self.staff.members = members;
        // A member disabled (or removed) meanwhile is signed out.
        if let Some(name) = self.staff.actor.name()
            && !self
                .staff
                .members
                .iter()
                .any(|m| m.active && m.name == name)
        {
            self.lock_desk();
        }
    }

    /// Locks the desk: the clerk's half-typed sale is kept for him or her, the next clerk
    /// starts on an empty form, and the lock screen opens. The customer display and the board
    /// go on.
    pub(crate) fn lock_desk(&mut self) {
        if !self.staff.on() {
            return;
        }
        if let Some(name) = self.staff.actor.name().map(str::to_owned)
            && !self.views.new_link.sending
        {
            let fresh = NewLinkForm::new(String::new());
            let kept = std::mem::replace(&mut self.views.new_link, fresh);
            self.staff.kept.insert(name, kept);
            if let Some(desk) = self.holds.desk.clone() {
                self.spawn(async move {
                    Msg::Link(super::link::LinkResult::OrderNumber {
                        result: desk.next_order_number(),
                    })
                });
            }
        }
        self.staff.actor = Actor::nobody();
        self.staff.held = None;
        self.staff.refusal = None;
        self.views.approval = None;
        self.views.lock = LockScreen::fresh();
        self.run_staff(StaffCommand::LoadStaff);
    }

    /// A member signed in: that clerk's kept form comes back; another clerk than the last
    /// starts on New link with an empty form.
    fn signed_in(&mut self, member: &StaffMember) {
        let now = self.options.clock.now();
        self.staff.actor = Actor::member(&member.name, member.role);
        self.staff.last_active = Some(now);
        self.staff.refusal = None;
        self.views.lock = LockScreen::fresh();
        if let Some(mut form) = self.staff.kept.remove(&member.name) {
            form.focus_amount = true;
            self.views.new_link = form;
        }
        if self.staff.last_clerk.as_deref() != Some(member.name.as_str()) {
            self.view = View::NewLink;
            if !self.views.customer.open
                && self
                    .views
                    .shown
                    .as_ref()
                    .is_some_and(|s| s.origin == Origin::Created)
            {
                self.views.shown = None;
            }
        }
        self.staff.last_clerk = Some(member.name.clone());
        self.views.audit.invalidate();
    }

    /// Once a frame, before drawing: input counts as activity, Ctrl+L locks, and the idle
    /// minutes (read from the app's clock) lock a signed-in desk.
    pub(crate) fn watch_idle(&mut self, ctx: &egui::Context) {
        if !self.staff.on() {
            return;
        }
        let now = self.options.clock.now();
        let touched = ctx.input(|i| {
            i.events.iter().any(|e| {
                matches!(
                    e,
                    egui::Event::Key { .. }
                        | egui::Event::Text(_)
                        | egui::Event::PointerButton { .. }
                        | egui::Event::PointerMoved(_)
                        | egui::Event::MouseWheel { .. }
                        | egui::Event::Paste(_)
                )
            })
        });
        if touched || self.staff.last_active.is_none() {
            self.staff.last_active = Some(now);
        }
        let ctrl_l = ctx.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::L));
        if self.staff.locked() {
            return;
        }
        if ctrl_l {
            self.commands.push(Command::Staff(StaffCommand::Lock));
            return;
        }
        let limit = chrono::Duration::minutes(i64::from(self.saved.idle_lock_minutes.max(1)));
        let idle = now - self.staff.last_active.unwrap_or(now);
        if idle >= limit {
            self.commands.push(Command::Staff(StaffCommand::Lock));
        } else if let Ok(left) = (limit - idle).to_std() {
            ctx.request_repaint_after(left);
        }
    }
}

/// Runs `f` on the blocking pool (an Argon2 check takes tens of milliseconds).
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, DeskError> + Send + 'static,
) -> Result<T, DeskError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(DeskError::Sandbox(e.to_string())))
}

/// A typed PIN, refused as a wrong one when it is not 4 to 8 digits.
fn parse_pin(typed: &Zeroizing<String>) -> Result<Pin, DeskError> {
    parse_pin_store(typed).map_err(DeskError::from)
}

fn parse_pin_store(typed: &Zeroizing<String>) -> Result<Pin, crate::store::StoreError> {
    Pin::parse(typed).map_err(|_| {
        crate::store::StoreError::Staff(crate::store::StaffError::Hash(
            crate::domain::StaffInputError::PinShape.to_string(),
        ))
    })
}

/// What the audit row of an approval names: the command, and the link for a cancel.
fn approval_subject(command: &Command) -> String {
    match command {
        Command::Link(LinkCommand::Cancel { id }) => format!("{} {id}", command.name()),
        other => other.name().to_owned(),
    }
}

/// Writes the audit rows matching `filter` as CSV into `dir` (else where QR PNGs go), a file
/// only its owner can read, named after the local time.
fn export_audit(
    services: &Services,
    filter: &AuditFilter,
    zone: crate::clock::Zone,
    dir: Option<PathBuf>,
) -> Result<(usize, PathBuf), JobError> {
    let dir = match dir {
        Some(d) => d,
        None => crate::printer::save_folder().ok_or(JobError::NoSaveFolder)?,
    };
    let now = services.clock().now();
    let stamp = zone.local(now).format("%Y%m%d-%H%M%S");
    let path = dir.join(format!("paydesk-audit-{stamp}.csv"));
    let rows = services.with_store_locked(|s| s.audit_list(filter))?;
    let file = crate::store::create_private_file(&path).map_err(JobError::file(&path))?;
    crate::store::write_audit_csv(file, &rows).map_err(DeskError::from)?;
    Ok((rows.len(), path))
}
