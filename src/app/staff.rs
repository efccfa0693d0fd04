//! Staff at the desk: signing in and locking (Ctrl+L, the top bar's name, the idle minutes),
//! the role table's check before every command, the manager's approval of one held command,
//! the members in Settings and the Audit view's record.
//!
//! With no staff member defined nothing here changes what the app does. With staff on, every
//! command goes through [`roles::permit`] with the signed-in member before it runs: a command
//! a clerk's role does not allow is held and the approval prompt opens; a manager's PIN runs it
//! once with `actor.approved_by(manager)`. Every PIN check and store call runs on the worker.
//! Each job carries its [`Duty`] (who acts, under which command's rule) from the command that
//! spawned it, also through a result that starts the command's next jobs, and the worker checks
//! the role table again with the desk acting as that member, whoever spawned the job.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin as PinBox;

use chrono::{DateTime, Utc};
use zeroize::Zeroizing;

use super::errors::JobError;
use super::msg::{Duty, MemberEdit, Msg, StaffResult};
use super::{App, Command, View};
use crate::domain::roles::{self, Need, Permit};
use crate::domain::{Actor, Pin, StaffMember, StaffName};
use crate::service::{AuditFilter, StaffError, StoreError};
use crate::service::{DeskError, Services};
use crate::ui::link_result::Origin;
use crate::ui::new_link::NewLinkForm;
use crate::ui::staff::{ApprovalPrompt, LockScreen};
use crate::ui::text::UiText;
use crate::ui::{CatalogCommand, LinkCommand, StaffCommand};

/// How long the Audit view waits for the shop's head before it shows its own alone.
const SHOP_HEAD_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

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
    /// A manager's approval of a catalog import, which covers its Preview and its Import of
    /// the same file by the same clerk: one PIN for the whole import.
    pub(crate) import_approval: Option<ImportApproval>,
    /// Why the worker refused the last command (shown in the top bar).
    pub refusal: Option<String>,
}

/// A manager's approval of one catalog import, while the clerk goes from Preview to Import.
#[derive(Debug, Clone)]
pub(crate) struct ImportApproval {
    /// The clerk it was given to.
    clerk: Option<String>,
    /// The clerk as approved by the manager.
    by: Actor,
    /// The file previewed (`None` until the file dialog has picked it).
    path: Option<String>,
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

/// A job's future, boxed so a checked and an unchecked one have one type.
type Job = PinBox<Box<dyn Future<Output = Msg> + Send + 'static>>;

impl App {
    /// The app's own work, with the member signed in at the desk (nobody with staff off).
    pub(crate) fn own_duty(&self) -> Duty {
        Duty::own(self.staff.actor.clone())
    }

    /// The approval a catalog import carries from its Preview to its Import (same clerk,
    /// same file), for `command`; `None` when it needs its own.
    pub(crate) fn carried_approval(&self, command: &Command) -> Option<Actor> {
        let approval = self.staff.import_approval.as_ref()?;
        if approval.clerk.as_deref() != self.staff.actor.name() {
            return None;
        }
        let Command::Catalog(CatalogCommand::Preview { path } | CatalogCommand::Import { path }) =
            command
        else {
            return None;
        };
        approval
            .path
            .as_deref()
            .is_none_or(|p| p == path)
            .then(|| approval.by.clone())
    }

    /// The file dialog picked `path` for the import a manager approved at Choose.
    pub(crate) fn import_file_picked(&mut self, path: &str) {
        if let Some(a) = self
            .staff
            .import_approval
            .as_mut()
            .filter(|a| a.path.is_none())
        {
            a.path = Some(path.to_owned());
        }
    }

    /// The role table's answer for `command` run by `actor`, before it runs: `Some` to run
    /// it; `None` when it is held for a manager's approval or refused (nobody signed in).
    pub(crate) fn gate(&mut self, command: Command, actor: &Actor) -> Option<Command> {
        if !self.staff.on() {
            return Some(command);
        }
        let need = command.gate().need();
        // Who owns a link is the file's to say: the desk refuses a cancel that is not the
        // clerk's own unpaid link, and its refusal opens the approval prompt.
        if need == Need::OwnUnpaidOrManager && actor.member.is_some() {
            return Some(command);
        }
        match roles::permit(need, true, actor, None) {
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
        let Some(what) = self.describe(&command) else {
            tracing::warn!(command = command.name(), "not held: any member may run it");
            return;
        };
        self.views.approval = Some(ApprovalPrompt::new(what, &self.staff.members));
        self.staff.held = Some(command);
    }

    /// The held command in the shop's words ("Cancel link KDK-…"); `None` for a command no
    /// clerk is ever held at.
    fn describe(&self, command: &Command) -> Option<String> {
        let what = command.gate().what()?;
        let order = match command {
            Command::Link(LinkCommand::Cancel { id }) => {
                self.shown_order(id).unwrap_or_else(|| id.clone())
            }
            _ => String::new(),
        };
        Some(what.fill(self.lang(), &[("order", &order)]))
    }

    /// The order number of the link shown, when it is `id`.
    fn shown_order(&self, id: &str) -> Option<String> {
        self.views
            .shown
            .as_ref()
            .filter(|s| s.link().id == id)
            .and_then(|s| s.link().order_number.clone())
    }

    /// A job under `duty`, checked again on the worker against the role table with the desk
    /// acting as the duty's member (a cancel is checked by the desk itself).
    pub(crate) fn checked(
        &self,
        duty: &Duty,
        job: impl Future<Output = Msg> + Send + 'static,
    ) -> Job {
        let Some((command, need)) = duty.rule else {
            return Box::pin(job);
        };
        let Some(desk) = self.holds.desk.clone() else {
            return Box::pin(job);
        };
        if matches!(need, Need::Anyone | Need::OwnUnpaidOrManager) {
            return Box::pin(job);
        }
        let desk = desk.acting_as(duty.actor.clone());
        Box::pin(async move {
            // A store read (through `store::with_locked`, as every store call).
            let check = desk.authorize(need, command, None);
            match check {
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
    pub(crate) fn run_staff(&mut self, command: StaffCommand, duty: &Duty) {
        match command {
            StaffCommand::Lock => self.lock_desk(),
            StaffCommand::SignIn { name, pin } => {
                let Some(services) = self.staff_services() else {
                    self.views.lock.abort_busy();
                    return;
                };
                self.spawn(duty, async move {
                    let result = match parse_pin(&pin) {
                        Ok(pin) => services.staff_sign_in(&name, &pin, APP_SUBJECT).await,
                        Err(e) => Err(e),
                    };
                    Msg::Staff(StaffResult::SignedIn { result })
                });
            }
            StaffCommand::LoadStaff => {
                let Some(services) = self.staff_services() else {
                    return;
                };
                self.spawn(duty, async move {
                    let result = services.staff_list();
                    Msg::Staff(StaffResult::Listed { result })
                });
            }
            StaffCommand::AddStaff { name, role, pin } => {
                let actor = duty.actor.clone();
                self.staff_change(duty, MemberEdit::Added(name.clone()), move |s| async move {
                    let name = StaffName::parse(&name).map_err(|e| {
                        DeskError::Store(StoreError::Staff(StaffError::Hash(e.to_string())))
                    })?;
                    let pin = parse_pin(&pin)?;
                    s.staff_add(&actor, &name, role, &pin).await
                });
            }
            StaffCommand::ResetPin { name, pin } => {
                let actor = duty.actor.clone();
                self.staff_change(
                    duty,
                    MemberEdit::PinReset(name.clone()),
                    move |s| async move {
                        let pin = parse_pin(&pin)?;
                        s.staff_reset_pin(&actor, &name, &pin).await
                    },
                );
            }
            StaffCommand::SetStaffActive { name, active } => {
                let actor = duty.actor.clone();
                self.staff_change(
                    duty,
                    MemberEdit::Active(name.clone(), active),
                    move |s| async move { s.staff_set_active(&actor, &name, active).await },
                );
            }
            StaffCommand::LoadAudit { filter } => {
                let Some(services) = self.staff_services() else {
                    self.views.audit.abort_busy();
                    return;
                };
                self.views.audit.on_load_sent();
                self.spawn(duty, async move {
                    let result = services.audit_with_check(&filter);
                    let shop_head = services.shop_audit_head(SHOP_HEAD_WITHIN).await;
                    Msg::Staff(StaffResult::Audit { result, shop_head })
                });
            }
            StaffCommand::ExportAudit { filter } => {
                let Some(services) = self.staff_services() else {
                    self.views.audit.abort_busy();
                    return;
                };
                let dir = self.export_dir.clone();
                let zone = self.zone;
                let dialogs = self.options.file_dialogs.clone();
                let title = UiText::ExportWhere.get(self.lang()).to_owned();
                let stamp = zone.local(services.clock().now()).format("%Y%m%d-%H%M%S");
                let name = format!("paydesk-audit-{stamp}.csv");
                self.spawn(duty, async move {
                    let result = match dialogs
                        .save_path(super::files::FileKind::Csv, &title, dir, &name)
                        .await
                    {
                        Ok(Some((path, by_dialog))) => tokio::task::spawn_blocking(move || {
                            export_audit(&services, &filter, &path)
                                .map(|count| Some((count, path, by_dialog)))
                        })
                        .await
                        .map_err(JobError::from)
                        .and_then(|r| r),
                        Ok(None) => Ok(None),
                        Err(e) => Err(e),
                    };
                    Msg::Staff(StaffResult::AuditExported { result })
                });
            }
            StaffCommand::Approve { manager, pin } => {
                let (Some(held), Some(services)) = (&self.staff.held, self.staff_services()) else {
                    self.views.approval = None;
                    return;
                };
                let what = approval_subject(held, |id| self.shown_order(id));
                let clerk = self.staff.actor.clone();
                self.spawn(duty, async move {
                    let result = match parse_pin(&pin) {
                        Ok(pin) => services.staff_approve(&clerk, &manager, &pin, &what).await,
                        Err(e) => Err(e),
                    };
                    Msg::Staff(StaffResult::Approved { result })
                });
            }
        }
    }

    /// A change of members on the worker, answered with the members after it.
    fn staff_change<F>(
        &mut self,
        duty: &Duty,
        change: MemberEdit,
        write: impl FnOnce(std::sync::Arc<Services>) -> F,
    ) where
        F: Future<Output = Result<(), DeskError>> + Send + 'static,
    {
        let Some(services) = self.staff_services() else {
            self.views.staff.abort_busy();
            return;
        };
        let written = write(std::sync::Arc::clone(&services));
        self.spawn(duty, async move {
            let result = match written.await {
                Ok(()) => services.staff_list(),
                Err(e) => Err(e),
            };
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
            StaffResult::SignedOut => {}
            StaffResult::SignedIn { result: Err(e) } => {
                self.views.lock.refused(e.sentence(lang));
            }
            StaffResult::Changed { change, result } => {
                match result {
                    Ok(members) => {
                        let (t, name) = match &change {
                            MemberEdit::Added(n) => (UiText::StaffAdded, n),
                            MemberEdit::PinReset(n) => (UiText::PinChanged, n),
                            MemberEdit::Active(n, true) => (UiText::MemberEnabled, n),
                            MemberEdit::Active(n, false) => (UiText::MemberDisabled, n),
                        };
                        let was_on = self.staff.on();
                        self.views.staff.on_changed(t, name, lang);
                        self.staff_listed(members);
                        if !was_on && let MemberEdit::Added(n) = change {
                            // Staff just turned on: the lock screen waits for the first
                            // manager's PIN, the name already chosen.
                            self.views.lock.on_first_member(n);
                        }
                    }
                    Err(e) => {
                        self.views.staff.on_change_refused(e.sentence(lang));
                    }
                }
            }
            StaffResult::Approved { result: Ok(actor) } => {
                self.views.approval = None;
                if let Some(held) = self.staff.held.take() {
                    self.staff.import_approval = match &held {
                        Command::Catalog(CatalogCommand::Choose) => Some(None),
                        Command::Catalog(CatalogCommand::Preview { path }) => {
                            Some(Some(path.clone()))
                        }
                        _ => None,
                    }
                    .map(|path| ImportApproval {
                        clerk: self.staff.actor.name().map(str::to_owned),
                        by: actor.clone(),
                        path,
                    });
                    self.run_as(held, Some(actor));
                }
            }
            StaffResult::Approved { result: Err(e) } => {
                if let Some(p) = &mut self.views.approval {
                    p.refused(e.sentence(lang));
                }
            }
            StaffResult::Audit { result, shop_head } => {
                self.views.audit.on_audit(result, shop_head, lang);
            }
            StaffResult::AuditExported { result } => {
                self.views.audit.on_exported(result, lang);
            }
            StaffResult::Refused { command, error } => {
                tracing::info!(command, error = %error, "the worker refused a command");
                self.clear_busy();
                self.views.staff.abort_busy();
                self.views.audit.abort_busy();
                self.staff.refusal = Some(error.sentence(lang));
                if matches!(error, DeskError::SignInFirst) {
                    // Staff were turned on elsewhere (the command line): read them.
                    self.run(Command::Staff(StaffCommand::LoadStaff));
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
        self.staff.import_approval = None;
        if let Some(name) = self.staff.actor.name().map(str::to_owned)
            && !self.views.new_link.is_sending()
        {
            let kept = std::mem::take(&mut self.views.new_link);
            self.staff.kept.insert(name, kept);
            self.new_sale();
        }
        self.staff.actor = Actor::nobody();
        self.staff.held = None;
        self.staff.refusal = None;
        self.views.approval = None;
        self.views.lock = LockScreen::fresh();
        // The shop ends the managers' sign-ins this desk held.
        if let Some(services) = self.staff_services() {
            self.spawn(&Duty::own(Actor::nobody()), async move {
                services.staff_sign_out().await;
                Msg::Staff(StaffResult::SignedOut)
            });
        }
        self.run(Command::Staff(StaffCommand::LoadStaff));
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
            form.on_back();
            self.views.new_link = form;
        }
        // The record is a manager's: a clerk back at the desk starts on New link, not on a
        // prompt for a manager's PIN.
        let audit_closed = self.view == View::Audit && member.role != crate::domain::Role::Manager;
        if audit_closed || self.staff.last_clerk.as_deref() != Some(member.name.as_str()) {
            self.view = View::NewLink;
            if !self.views.customer.is_open()
                && self
                    .views
                    .shown
                    .as_ref()
                    .is_some_and(|s| s.origin() == Origin::Created)
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

/// A typed PIN, refused as a wrong one when it is not 4 to 8 digits.
fn parse_pin(typed: &Zeroizing<String>) -> Result<Pin, DeskError> {
    Pin::parse(typed).map_err(|_| {
        DeskError::Store(StoreError::Staff(StaffError::Hash(
            crate::domain::StaffInputError::PinShape.to_string(),
        )))
    })
}

/// What the audit row of an approval names: the command, and for a cancel the link's id and
/// order number (`CancelLink ID ORDER`), as the Audit view reads it back.
fn approval_subject(command: &Command, order: impl Fn(&str) -> Option<String>) -> String {
    match command {
        Command::Link(LinkCommand::Cancel { id }) => match order(id) {
            Some(order) => format!("{} {id} {order}", command.name()),
            None => format!("{} {id}", command.name()),
        },
        other => other.name().to_owned(),
    }
}

/// Writes the audit rows matching `filter` as CSV to `path` (chosen in the desktop's dialog,
/// else named after the local time in the export folder), a file only its owner can read;
/// returns how many rows.
fn export_audit(
    services: &Services,
    filter: &AuditFilter,
    path: &std::path::Path,
) -> Result<usize, JobError> {
    services
        .export_audit_csv(filter, path)
        .map_err(|e| match e {
            DeskError::Store(StoreError::Io { source, .. }) => JobError::file(path)(source),
            e => JobError::from(e),
        })
}

#[cfg(test)]
mod tests {
    use zeroize::Zeroizing;

    use super::*;
    use crate::app::msg::ReportResult;
    use crate::app::testing::{answers, app, make_link, only, run, settle};
    use crate::domain::Role;
    use crate::service::AuditAction;
    use crate::service::{AuditRow, ChainCheck};
    use crate::ui::command::Gate;
    use crate::ui::problem::Note;
    use crate::ui::{
        BoardCommand, CardCommand, CatalogCommand, HistoryCommand, InstallmentsCommand,
        PendingCommand, ProfilesCommand, ReportCommand, ShopCommand,
    };

    fn pin(p: &str) -> Zeroizing<String> {
        Zeroizing::new(p.to_owned())
    }

    /// Zeynep (manager, 1111), Ayşe (counter, 2222) and Mehmet (counter, 3333), read by the
    /// app: staff are on and the desk is locked.
    fn staffed(app: &mut App) {
        let services = app.holds.services.clone().unwrap();
        for (name, role, p) in [
            ("Zeynep", Role::Manager, "1111"),
            ("Ayşe", Role::Counter, "2222"),
            ("Mehmet", Role::Counter, "3333"),
        ] {
            let name = StaffName::parse(name).unwrap();
            crate::app::testing::block_on(services.staff_add(
                &Actor::nobody(),
                &name,
                role,
                &Pin::parse(p).unwrap(),
            ))
            .unwrap();
        }
        app.run(Command::Staff(StaffCommand::LoadStaff));
        settle(app);
        assert!(app.staff.locked());
    }

    fn sign_in(app: &mut App, name: &str, p: &str) {
        app.run(Command::Staff(StaffCommand::SignIn {
            name: name.into(),
            pin: pin(p),
        }));
        settle(app);
        assert_eq!(app.staff.actor.name(), Some(name));
    }

    fn audit(app: &App) -> Vec<AuditRow> {
        let services = app.holds.services.clone().unwrap();
        services.audit_list(&AuditFilter::default()).unwrap()
    }

    /// One sample of every app command. The `match` is exhaustive: a new command does not
    /// compile until it is listed here, and then the test asks for its row.
    /// The samples that take some making: a link, a card request, an installment query.
    fn made_samples() -> (
        crate::domain::Link,
        crate::domain::CardRequest,
        crate::domain::InstallmentQuery,
    ) {
        let link: crate::domain::Link = serde_json::from_str::<crate::api::wire::PaymentLink>(
            r#"{"id":"L1","status":"PENDING","amount":10,"currency":"TRY"}"#,
        )
        .map(crate::domain::Link::from)
        .expect("a link");
        let card = crate::domain::CardDraft {
            card_number: pin("4111111111111111"),
            expiry_month: "11".into(),
            expiry_year: "2031".into(),
            cvv: pin("123"),
            card_holder_name: "AYSE YILMAZ".into(),
            ..crate::domain::CardDraft::default()
        }
        .validate(Utc::now().date_naive())
        .expect("a card");
        let mut bin = crate::domain::installment::InstallmentDraft::default();
        bin.set_bin_from_input("979200");
        let query = bin.validate().expect("a query");
        (link, card, query)
    }

    fn every_command() -> Vec<Command> {
        let (link, card, query) = made_samples();
        let day = Utc::now().date_naive();
        let profile = crate::service::Profile::new("shop", "https://api.example.com", "k");
        let filter = crate::ui::history::HistoryFilter::default;
        let mut samples = vec![
            Command::Navigate { view: View::Board },
            Command::Link(LinkCommand::Create {
                request: crate::app::testing::link_request("A-1", "1"),
            }),
            Command::Link(LinkCommand::New),
            Command::Link(LinkCommand::CopyText { text: "x".into() }),
            Command::Link(LinkCommand::SaveQrPng {
                url: "x".into(),
                name: "x".into(),
            }),
            Command::Link(LinkCommand::PrintSlip {
                link: Box::new(link),
            }),
            Command::Link(LinkCommand::OpenUrl { url: "x".into() }),
            Command::Link(LinkCommand::Refresh { id: "x".into() }),
            Command::Link(LinkCommand::Cancel { id: "x".into() }),
            Command::Link(LinkCommand::Close),
            Command::Link(LinkCommand::CustomerDisplay {
                open: true,
                fullscreen: false,
            }),
            Command::Board(BoardCommand::Show { id: "x".into() }),
            Command::Card(CardCommand::Save {
                request: Box::new(card),
            }),
            Command::Installments(InstallmentsCommand::List {
                query: Box::new(query),
            }),
            Command::History(HistoryCommand::Search { filter: filter() }),
            Command::History(HistoryCommand::More),
            Command::History(HistoryCommand::Show { id: "x".into() }),
            Command::History(HistoryCommand::RefreshStatuses { ids: Vec::new() }),
            Command::History(HistoryCommand::Export { filter: filter() }),
            Command::Report(ReportCommand::Load {
                first: day,
                last: day,
                zone: crate::clock::Zone::Local,
            }),
            Command::Report(ReportCommand::RefreshStatuses {
                first: day,
                last: day,
                zone: crate::clock::Zone::Local,
            }),
            Command::Pending(PendingCommand::Retry {
                key: "k".into(),
                force: false,
            }),
            Command::Pending(PendingCommand::Abandon { key: "k".into() }),
            Command::Profiles(ProfilesCommand::Save {
                profile: Box::new(profile),
                existing: false,
            }),
            Command::Profiles(ProfilesCommand::Remove { name: "x".into() }),
            Command::Profiles(ProfilesCommand::Switch { name: "x".into() }),
            Command::Profiles(ProfilesCommand::StoreSecret {
                profile: "x".into(),
                api_key: "k".into(),
                secret: pin("s"),
            }),
            Command::Profiles(ProfilesCommand::CheckSecret {
                profile: "x".into(),
                api_key: "k".into(),
            }),
            Command::Staff(StaffCommand::SignIn {
                name: "x".into(),
                pin: pin("1234"),
            }),
            Command::Staff(StaffCommand::Lock),
            Command::Staff(StaffCommand::AddStaff {
                name: "x".into(),
                role: Role::Counter,
                pin: pin("1234"),
            }),
            Command::Staff(StaffCommand::ResetPin {
                name: "x".into(),
                pin: pin("1234"),
            }),
            Command::Staff(StaffCommand::SetStaffActive {
                name: "x".into(),
                active: false,
            }),
            Command::Staff(StaffCommand::LoadStaff),
            Command::Staff(StaffCommand::LoadAudit {
                filter: AuditFilter::default(),
            }),
            Command::Staff(StaffCommand::ExportAudit {
                filter: AuditFilter::default(),
            }),
            Command::Staff(StaffCommand::Approve {
                manager: "x".into(),
                pin: pin("1234"),
            }),
            Command::Shop(ShopCommand::Join {
                url: "postgres://desk@localhost/shop".into(),
                password: pin("pw"),
            }),
            Command::Shop(ShopCommand::Leave),
            Command::Shop(ShopCommand::NameDesk { name: "x".into() }),
            Command::Shop(ShopCommand::Reconnect),
        ];
        samples.extend(catalog_commands());
        let mut listed = std::collections::HashSet::new();
        // `Command::name` and each family's `name` are exhaustive matches: a new variant does
        // not compile until it is named, and the count in the test below makes its sample
        // necessary.
        for c in &samples {
            let variant = c.name();
            assert!(listed.insert(variant), "{variant} listed twice");
        }
        samples
    }

    /// Every command of the Catalog view.
    fn catalog_commands() -> [Command; 5] {
        [
            Command::Catalog(CatalogCommand::Preview { path: "x".into() }),
            Command::Catalog(CatalogCommand::Choose),
            Command::Catalog(CatalogCommand::Import { path: "x".into() }),
            Command::Catalog(CatalogCommand::SetBarcode {
                variant_id: "x".into(),
                barcode: None,
            }),
            Command::Catalog(CatalogCommand::Edit {
                edit: crate::service::CatalogEdit::Remove("x".into()),
            }),
        ]
    }

    /// The Audit view words an approval from the command's name the record stored
    /// (`ui::staff::what_of`): every command a manager can approve is worded there as its
    /// prompt words it, so a new one cannot fall through to the generic wording.
    #[test]
    fn every_approvable_command_is_worded_in_the_audit_as_in_its_prompt() {
        for c in every_command() {
            let Some(what) = c.gate().what() else {
                continue;
            };
            // A cancel is recorded with its link and worded from them.
            if what == UiText::WhatCancelLink {
                continue;
            }
            assert_eq!(crate::ui::staff::what_of(c.name()), what, "{}", c.name());
        }
    }

    #[test]
    fn every_command_a_clerk_can_be_held_at_says_what_it_is() {
        let samples = every_command();
        assert_eq!(samples.len(), 46, "one sample of each command");
        for c in &samples {
            let gate = c.gate();
            match gate.need() {
                Need::Anyone | Need::Member => assert_eq!(gate.what(), None, "{}", c.name()),
                Need::Manager | Need::OwnUnpaidOrManager => {
                    let what = gate
                        .what()
                        .unwrap_or_else(|| panic!("{} has no words", c.name()));
                    assert!(!what.get(crate::lang::Lang::En).is_empty(), "{}", c.name());
                }
            }
        }
        let gate_of = |name: &str| {
            samples
                .iter()
                .find(|c| c.name() == name)
                .map(Command::gate)
                .unwrap()
        };
        assert_eq!(gate_of("SaveCard"), Gate::Manager(UiText::WhatSaveCard));
        assert_eq!(gate_of("CreateLink"), Gate::Member);
        assert_eq!(gate_of("SignIn"), Gate::Anyone);
        assert_eq!(
            gate_of("CancelLink"),
            Gate::OwnUnpaidOrManager(UiText::WhatCancelLink)
        );
        assert_eq!(gate_of("CatalogImport"), Gate::Manager(UiText::WhatCatalog));
    }

    #[test]
    fn with_staff_off_nothing_is_locked_or_held() {
        let mut app = app();
        assert!(app.staff.known);
        assert!(!app.staff.on() && !app.staff.locked());
        app.run(Command::Report(ReportCommand::Load {
            first: Utc::now().date_naive(),
            last: Utc::now().date_naive(),
            zone: crate::clock::Zone::Local,
        }));
        assert!(app.views.approval.is_none());
        assert_eq!(answers(&mut app).len(), 1, "the report runs");
    }

    #[test]
    fn load_staff_reads_the_members_and_turns_staff_on() {
        let mut app = app();
        staffed(&mut app);
        assert_eq!(app.staff.names(), ["Ayşe", "Mehmet", "Zeynep"]);
        // Nothing runs while the desk is locked but what anyone may.
        app.run(Command::Navigate {
            view: View::History,
        });
        assert_eq!(app.view, View::NewLink, "locked: not run");
    }

    #[test]
    fn sign_in_with_the_right_pin_signs_the_clerk_in_and_records_it() {
        let mut app = app();
        staffed(&mut app);
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::SignIn {
                name: "Ayşe".into(),
                pin: pin("2222"),
            }),
        ));
        let Msg::Staff(StaffResult::SignedIn { result: Ok(member) }) = &answer else {
            panic!("signed in: {answer:?}");
        };
        assert_eq!(member.name, "Ayşe");
        app.on_msg(answer);
        assert!(!app.staff.locked());
        assert_eq!(app.staff.actor, Actor::member("Ayşe", Role::Counter));
        let rows = audit(&app);
        assert_eq!(rows[0].action, AuditAction::SignIn.as_str());
        assert_eq!(rows[0].staff.as_deref(), Some("Ayşe"));
        assert_eq!(rows[0].subject, APP_SUBJECT);
    }

    #[test]
    fn a_wrong_pin_says_so_and_stays_locked() {
        let mut app = app();
        staffed(&mut app);
        app.views.lock.set_busy();
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::SignIn {
                name: "Ayşe".into(),
                pin: pin("9999"),
            }),
        ));
        assert!(matches!(
            answer,
            Msg::Staff(StaffResult::SignedIn { result: Err(_) })
        ));
        app.on_msg(answer);
        assert!(app.staff.locked());
        assert!(!app.views.lock.is_busy());
        let said = app.views.lock.error().unwrap().to_owned();
        assert!(said.contains("Ayşe"), "{said}");
        assert!(!app.views.lock.has_pin(), "the PIN is cleared");
    }

    #[test]
    fn lock_keeps_the_clerks_form_and_gives_the_next_an_empty_one() {
        let mut app = app();
        staffed(&mut app);
        sign_in(&mut app, "Ayşe", "2222");
        app.views.new_link.draft_mut().amount = "42,50".into();
        app.run(Command::Staff(StaffCommand::Lock));
        assert!(app.staff.locked());
        assert!(app.views.new_link.draft().amount.is_empty());
        settle(&mut app);
        assert!(
            !app.views.new_link.draft().order_number.is_empty(),
            "numbered"
        );
        sign_in(&mut app, "Mehmet", "3333");
        assert!(app.views.new_link.draft().amount.is_empty());
        app.run(Command::Staff(StaffCommand::Lock));
        sign_in(&mut app, "Ayşe", "2222");
        assert_eq!(app.views.new_link.draft().amount, "42,50");
    }

    #[test]
    fn idle_minutes_and_ctrl_l_lock_the_desk() {
        let mut app = app();
        staffed(&mut app);
        sign_in(&mut app, "Ayşe", "2222");
        let ctx = app.ctx.clone();
        app.watch_idle(&ctx);
        assert!(app.commands.is_empty(), "just signed in");
        app.staff.last_active = Some(app.options.clock.now() - chrono::Duration::minutes(5));
        app.watch_idle(&ctx);
        assert!(matches!(
            app.commands.as_slice(),
            [Command::Staff(StaffCommand::Lock)]
        ));
        app.run_commands();
        assert!(app.staff.locked());
    }

    #[test]
    fn a_clerks_manager_command_waits_for_a_managers_pin() {
        let mut app = app();
        staffed(&mut app);
        sign_in(&mut app, "Ayşe", "2222");
        let day = Utc::now().date_naive();
        app.views.report.set_loading();
        app.run(Command::Report(ReportCommand::Load {
            first: day,
            last: day,
            zone: crate::clock::Zone::Local,
        }));
        assert!(app.jobs.is_empty(), "nothing sent");
        let prompt = app.views.approval.as_ref().expect("the prompt opens");
        assert_eq!(prompt.what(), "The day close");
        assert_eq!(prompt.manager(), Some("Zeynep"), "the only manager");
        // A wrong PIN leaves it held.
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::Approve {
                manager: "Zeynep".into(),
                pin: pin("2222"),
            }),
        ));
        app.on_msg(answer);
        assert!(app.staff.held.is_some());
        assert!(app.views.approval.as_ref().unwrap().error().is_some());
        // The right one runs it once, as Ayşe approved by Zeynep.
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::Approve {
                manager: "Zeynep".into(),
                pin: pin("1111"),
            }),
        ));
        let Msg::Staff(StaffResult::Approved { result: Ok(actor) }) = &answer else {
            panic!("approved: {answer:?}");
        };
        assert_eq!(actor.approved_by.as_deref(), Some("Zeynep"));
        app.on_msg(answer);
        assert!(app.views.approval.is_none() && app.staff.held.is_none());
        assert_eq!(
            app.staff.actor,
            Actor::member("Ayşe", Role::Counter),
            "not signed in"
        );
        settle(&mut app);
        assert!(app.views.report.report().is_some(), "the report ran");
        let rows = audit(&app);
        let approve = rows.iter().find(|r| r.action == "approve").unwrap();
        assert_eq!(approve.staff.as_deref(), Some("Ayşe"));
        assert_eq!(approve.approved_by.as_deref(), Some("Zeynep"));
        // For that one command only: the next day close asks again.
        app.run(Command::Report(ReportCommand::Load {
            first: day,
            last: day,
            zone: crate::clock::Zone::Local,
        }));
        assert!(app.jobs.is_empty(), "for one command only");
        assert!(app.staff.held.is_some() && app.views.approval.is_some());
    }

    #[test]
    fn a_job_a_result_starts_is_checked_on_the_worker_with_the_duty_it_carries() {
        let mut app = app();
        staffed(&mut app);
        sign_in(&mut app, "Ayşe", "2222");
        let day = Utc::now().date_naive();
        let refresh = Command::Report(ReportCommand::RefreshStatuses {
            first: day,
            last: day,
            zone: crate::clock::Zone::Local,
        });
        // Day close's Refresh lists the open links, then its result starts one job a link.
        // Carried by a clerk whom no manager approved, those jobs are refused on the worker.
        let clerk = Actor::member("Ayşe", Role::Counter);
        app.apply_report(ReportResult::OpenLinks {
            result: Ok(vec!["L1".into()]),
            duty: Duty::of(&refresh, clerk.clone()),
        });
        let answer = only(answers(&mut app));
        assert!(
            matches!(
                answer,
                Msg::Staff(StaffResult::Refused {
                    command: "RefreshDayClose",
                    error: DeskError::NeedsManager(_),
                })
            ),
            "{answer:?}"
        );
        // Approved by Zeynep, the same follow-up runs (and asks the server about the link).
        app.apply_report(ReportResult::OpenLinks {
            result: Ok(vec!["L1".into()]),
            duty: Duty::of(&refresh, clerk.approved_by("Zeynep")),
        });
        let answer = only(answers(&mut app));
        assert!(
            matches!(answer, Msg::Report(ReportResult::StatusRefreshed { .. })),
            "{answer:?}"
        );
    }

    #[test]
    fn one_managers_pin_covers_a_clerks_whole_catalog_import() {
        let mut app = app();
        staffed(&mut app);
        sign_in(&mut app, "Ayşe", "2222");
        app.run(Command::Navigate {
            view: View::Catalog,
        });
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, "id,name,unit_price,currency\nV-1,Simit,15.50,TRY\n").unwrap();
            path.display().to_string()
        };
        let (path, other) = (file("catalog.csv"), file("other.csv"));
        let approve = |app: &mut App| {
            app.run(Command::Staff(StaffCommand::Approve {
                manager: "Zeynep".into(),
                pin: pin("1111"),
            }));
            settle(app);
        };
        // Preview asks once.
        app.run(Command::Catalog(CatalogCommand::Preview {
            path: path.clone(),
        }));
        assert!(
            app.views.approval.is_some(),
            "a clerk's preview asks for a manager"
        );
        approve(&mut app);
        assert!(app.views.approval.is_none());
        // Import of the same file runs on that approval, named in the audit.
        app.run(Command::Catalog(CatalogCommand::Import {
            path: path.clone(),
        }));
        assert!(app.views.approval.is_none(), "asked a second time");
        settle(&mut app);
        assert_eq!(app.holds.catalog.len(), 1, "imported");
        let rows = audit(&app);
        let import = rows
            .iter()
            .rev()
            .find(|r| r.action.contains("catalog"))
            .expect("the import is on record");
        assert_eq!(import.staff.as_deref(), Some("Ayşe"));
        assert_eq!(import.approved_by.as_deref(), Some("Zeynep"));
        // Done: the next import asks again; another file never rode on it.
        app.run(Command::Catalog(CatalogCommand::Import { path }));
        assert!(
            app.views.approval.is_some(),
            "the approval ended with its import"
        );
        app.views.approval = None;
        app.staff.held = None;
        app.run(Command::Catalog(CatalogCommand::Preview {
            path: other.clone(),
        }));
        approve(&mut app);
        app.run(Command::Catalog(CatalogCommand::Import {
            path: file("third.csv"),
        }));
        assert!(app.views.approval.is_some(), "another file asks again");
    }

    #[test]
    fn a_colleagues_link_is_cancelled_with_a_managers_pin() {
        let mut app = app();
        staffed(&mut app);
        sign_in(&mut app, "Mehmet", "3333");
        let link = make_link(&mut app, "M-1");
        app.run(Command::Staff(StaffCommand::Lock));
        sign_in(&mut app, "Ayşe", "2222");
        app.views.shown = Some(crate::ui::link_result::ShownLink::new(
            link.clone(),
            Origin::Board,
        ));
        app.run(Command::Link(LinkCommand::Cancel {
            id: link.id.clone(),
        }));
        settle(&mut app);
        let prompt = app
            .views
            .approval
            .as_ref()
            .expect("the desk refused: the prompt");
        assert_eq!(prompt.what(), "Cancel link M-1");
        app.run(Command::Staff(StaffCommand::Approve {
            manager: "Zeynep".into(),
            pin: pin("1111"),
        }));
        settle(&mut app);
        assert!(app.views.shown.as_ref().unwrap().is_cancelled());
        let rows = audit(&app);
        let cancel = rows.iter().find(|r| r.action == "link.cancel").unwrap();
        assert_eq!(cancel.staff.as_deref(), Some("Ayşe"));
        assert_eq!(cancel.approved_by.as_deref(), Some("Zeynep"));
    }

    #[test]
    fn add_reset_and_disable_change_the_members_and_refusals_are_said() {
        let mut app = app();
        // The first member turns staff on; the lock screen has the name chosen.
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::AddStaff {
                name: "Zeynep".into(),
                role: Role::Manager,
                pin: pin("1111"),
            }),
        ));
        app.on_msg(answer);
        assert!(app.staff.locked());
        assert_eq!(app.views.lock.chosen(), Some("Zeynep"));
        sign_in(&mut app, "Zeynep", "1111");
        app.run(Command::Staff(StaffCommand::AddStaff {
            name: "Ayşe".into(),
            role: Role::Counter,
            pin: pin("2222"),
        }));
        settle(&mut app);
        assert_eq!(app.staff.names(), ["Ayşe", "Zeynep"]);
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::ResetPin {
                name: "Ayşe".into(),
                pin: pin("4444"),
            }),
        ));
        assert!(matches!(
            &answer,
            Msg::Staff(StaffResult::Changed {
                change: MemberEdit::PinReset(_),
                result: Ok(_)
            })
        ));
        app.on_msg(answer);
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::SetStaffActive {
                name: "Ayşe".into(),
                active: false,
            }),
        ));
        app.on_msg(answer);
        assert!(
            !app.staff
                .members
                .iter()
                .any(|m| m.name == "Ayşe" && m.active)
        );
        assert_eq!(
            app.views.staff.note(),
            Some(&Note::Done("Ayşe was disabled.".into()))
        );
        // The last active manager cannot be disabled: said as a sentence.
        app.run(Command::Staff(StaffCommand::SetStaffActive {
            name: "Zeynep".into(),
            active: false,
        }));
        settle(&mut app);
        let Some(Note::Failed(p)) = app.views.staff.note() else {
            panic!("refused: {:?}", app.views.staff.note());
        };
        assert!(p.sentence.contains("Zeynep"), "{}", p.sentence);
        let rows = audit(&app);
        assert!(
            rows.iter()
                .any(|r| r.action == "staff.reset-pin" && r.staff.as_deref() == Some("Zeynep"))
        );
    }

    #[test]
    fn load_audit_reads_the_record_and_walks_the_chain() {
        let mut app = app();
        staffed(&mut app);
        sign_in(&mut app, "Zeynep", "1111");
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::LoadAudit {
                filter: AuditFilter {
                    staff: Some("Zeynep".into()),
                    ..AuditFilter::default()
                },
            }),
        ));
        app.on_msg(answer);
        let view = &app.views.audit;
        assert!(!view.is_loading());
        assert_eq!(view.rows().len(), 1, "Zeynep's sign-in");
        assert!(matches!(
            view.check(),
            Some(ChainCheck::Whole { rows: 4, .. })
        ));
        app.apply_staff(StaffResult::Audit {
            result: Err(DeskError::NoProfile("x".into())),
            shop_head: None,
        });
        assert!(app.views.audit.error().is_some());
    }

    #[test]
    fn export_audit_writes_a_private_csv_and_says_where() {
        let mut app = app();
        staffed(&mut app);
        sign_in(&mut app, "Zeynep", "1111");
        let dir = tempfile::tempdir().unwrap();
        app.export_dir = Some(dir.path().to_owned());
        app.views.audit.set_exporting();
        let answer = only(run(
            &mut app,
            Command::Staff(StaffCommand::ExportAudit {
                filter: AuditFilter::default(),
            }),
        ));
        let Msg::Staff(StaffResult::AuditExported {
            result: Ok(Some((count, path, false))),
        }) = &answer
        else {
            panic!("exported: {answer:?}");
        };
        assert_eq!(*count, 4);
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.starts_with("seq,"), "{text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        app.on_msg(answer);
        assert!(!app.views.audit.is_exporting());
        assert!(matches!(app.views.audit.note(), Some(Note::Done(_))));
        app.apply_staff(StaffResult::AuditExported {
            result: Err(JobError::NoSaveFolder),
        });
        assert!(matches!(app.views.audit.note(), Some(Note::Failed(_))));
    }

    #[test]
    fn a_worker_refusal_is_said_and_reads_the_staff_again() {
        let mut app = app();
        app.views.report.set_loading();
        app.apply_staff(StaffResult::Refused {
            command: "LoadReport",
            error: DeskError::SignInFirst,
        });
        assert!(!app.views.report.is_loading(), "no longer busy");
        assert!(app.staff.refusal.is_some());
        assert_eq!(app.jobs.len(), 1, "the staff list is read again");
        settle(&mut app);
        // Staff turned on from the command line meanwhile: the worker refuses for itself.
        let services = app.holds.services.clone().unwrap();
        crate::app::testing::block_on(services.staff_add(
            &Actor::nobody(),
            &StaffName::parse("Zeynep").unwrap(),
            Role::Manager,
            &Pin::parse("1111").unwrap(),
        ))
        .unwrap();
        let answer = only(run(
            &mut app,
            Command::Report(ReportCommand::Load {
                first: Utc::now().date_naive(),
                last: Utc::now().date_naive(),
                zone: crate::clock::Zone::Local,
            }),
        ));
        assert!(matches!(
            answer,
            Msg::Staff(StaffResult::Refused {
                command: "LoadReport",
                error: DeskError::SignInFirst
            })
        ));
    }

    #[test]
    fn listed_errors_keep_what_is_known() {
        let mut app = app();
        app.apply_staff(StaffResult::Listed {
            result: Err(DeskError::NoProfile("x".into())),
        });
        assert!(app.staff.known && !app.staff.on());
        app.apply_staff(StaffResult::Approved {
            result: Err(DeskError::SignInFirst),
        });
        assert!(app.views.approval.is_none(), "no prompt to say it in");
    }
}
