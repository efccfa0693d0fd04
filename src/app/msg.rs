//! The messages between the worker and the app: what each job answers (one `…Result` per
//! feature), wrapped in [`Msg`], and the [`Duty`] a job carries. They sit below every feature
//! module of the app: a module spawns jobs that answer with these and applies them, and
//! `logic.rs` routes each to its module, so no module of `app/` imports another's messages.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use chrono::NaiveDate;

use super::errors::JobError;
use super::files::Choice;
use crate::api::wire::{InstallmentList, SavedCard};
use crate::domain::roles::Need;
use crate::domain::{Actor, CatalogVariant, Link, StaffMember};
use crate::printer::Delivered;
use crate::service::shared::LeaseAnswer;
use crate::service::shop::{DeskIdentity, DeskLogin, Joined, MembershipError, ShopError, ShopUrl};
use crate::service::{
    AuditRow, ChainCheck, CreateError, DayReport, Desk, DeskError, JournalRow, LinkCursor,
    LinkTotals, Profile, Services, StoredLink,
};
use crate::ui::Command;
use crate::ui::catalog::CsvOutcome;
use crate::ui::history::{HistoryFilter, HistoryRow};
use crate::ui::settings::SecretStatus;
use crate::ui::shop_owner::OwnerDone;

/// A page of history: the display rows and where the next page starts.
pub type Page = (Vec<HistoryRow>, Option<LinkCursor>);

/// The catalog after a change.
pub type Catalog = HashMap<String, CatalogVariant>;

/// Each re-sent row's key and outcome.
pub type RowOutcomes = Vec<(String, Result<Link, CreateError>)>;

/// A background result of the board.
#[derive(Debug)]
pub enum BoardResult {
    /// The board's rows, read from the store.
    Rows {
        /// The profile they belong to (a switch meanwhile drops them).
        profile: String,
        /// The rows, newest first.
        result: Result<Vec<StoredLink>, DeskError>,
        /// Read from the shop: the links of this desk's profile's account, the only ones it
        /// asks the server about, through the shop's lease (`None`: the desk's own rows, all
        /// of them its own).
        polled: Option<HashSet<String>>,
        /// Of those, the links other desks made: followed for their makers (whose lease runs
        /// out when they stop), never alerted here.
        elsewhere: HashSet<String>,
        /// The sends, reminders and reminder time beside the rows (boxed: the variant is the
        /// message's size).
        marks: Box<crate::ui::board::BoardMarks>,
    },
    /// A link asked about through the shop's poll lease (the desk online in a shop).
    Leased {
        /// The link.
        id: String,
        /// The request's number.
        seq: u64,
        /// What the lease gave.
        answer: Box<LeaseAnswer>,
    },
}

/// A background result of the card form.
#[derive(Debug)]
pub enum CardResult {
    /// A card save's answer.
    Saved {
        /// The saved card, or why not.
        result: Result<SavedCard, DeskError>,
    },
}

/// A background result of the catalog view.
#[derive(Debug)]
pub enum CatalogResult {
    /// A CSV preview or import ended (with the catalog after an import), or the file could not
    /// be read or the store failed.
    Csv {
        /// The outcome and, after an import, the catalog.
        result: Result<(CsvOutcome, Option<Catalog>), JobError>,
    },
    /// The file dialog answered (a file, a cancel, or none can open).
    Chosen {
        /// What the clerk did.
        choice: Choice,
    },
    /// An item's add, edit or removal ended.
    Edited {
        /// The catalog after it, or why nothing changed.
        result: Result<Catalog, JobError>,
    },
    /// The sample catalog file was written (its items, where, whether a dialog chose the
    /// place), the dialog was closed, or why it was not.
    SampleSaved {
        /// What happened.
        result: Result<Option<(usize, std::path::PathBuf, bool)>, JobError>,
    },
    /// A barcode edit ended.
    BarcodeSaved {
        /// The variant id.
        variant_id: String,
        /// The catalog after it, or why it was not saved.
        result: Result<Catalog, JobError>,
    },
}

/// A background result of the history view.
#[derive(Debug)]
pub enum HistoryResult {
    /// A page of history.
    Page {
        /// The filter it answers.
        filter: HistoryFilter,
        /// Whether it is the first page.
        first: bool,
        /// The links (display rows) and where the next page starts.
        result: Result<Page, DeskError>,
        /// How many links the profile has in all (with the first page of an unfiltered list).
        total: Option<usize>,
        /// The shop's staff members (with a first page), for the Staff filter and column.
        staff_names: Option<Vec<String>>,
    },
    /// A link of history, to show.
    Link {
        /// Open its Send form (the row's menu asked to send it).
        send: bool,
        /// The stored link, or why it could not be read.
        result: Result<StoredLink, DeskError>,
    },
    /// The totals of a history filter.
    Totals {
        /// The filter.
        filter: HistoryFilter,
        /// Its totals.
        result: Result<LinkTotals, DeskError>,
    },
    /// One link's answer to "Refresh statuses".
    StatusRefreshed {
        /// The link id.
        id: String,
        /// The answer.
        result: Result<Link, DeskError>,
    },
    /// A CSV export ended.
    Exported {
        /// How many links, the file and whether the desktop's dialog chose it (else it went to
        /// the usual folder); `None` when the clerk closed the dialog; or why it failed.
        result: Result<Option<(usize, PathBuf, bool)>, JobError>,
    },
}

/// A background result of the installments view.
#[derive(Debug)]
pub enum InstallmentsResult {
    /// Installment options.
    Listed {
        /// The options, or why there are none.
        result: Result<InstallmentList, DeskError>,
    },
}

/// A background result about a link.
#[derive(Debug)]
pub enum LinkResult {
    /// A link creation ended.
    Created {
        /// The outcome.
        result: Result<Link, CreateError>,
        /// The journal's open rows after it.
        pending: Option<Vec<JournalRow>>,
    },
    /// The next order number.
    OrderNumber {
        /// The number, or why there is none.
        result: Result<String, DeskError>,
    },
    /// A link's detail (the background refresh, or the clerk's Refresh).
    Detail {
        /// The link id.
        id: String,
        /// The request's number.
        seq: u64,
        /// The answer.
        result: Result<Link, DeskError>,
    },
    /// A cancel's answer.
    Cancelled {
        /// The link id.
        id: String,
        /// The request's number.
        seq: u64,
        /// The answer.
        result: Result<Link, DeskError>,
    },
    /// The QR PNG was written (or not).
    QrSaved {
        /// Where and whether the desktop's dialog chose it (`None`: the dialog was closed),
        /// or why not.
        result: Result<Option<(PathBuf, bool)>, JobError>,
    },
    /// A link's slip was printed, saved for want of a printer, or neither (the reason).
    SlipPrinted {
        /// The link id.
        id: String,
        /// Where it went, or why nowhere.
        result: Result<Delivered, JobError>,
    },
    /// A paid alert went to the notifier (shown or not: the notifier logs a failure).
    Notified,
    /// An address went to the desktop's opener, or why not.
    Opened {
        /// Why the opener did not take it.
        result: Result<(), String>,
    },
    /// A sending pass of the mail queue ended.
    MailPassed,
    /// A link's message went to its payer, or was made to copy, or why not (a sentence in
    /// the window's language naming the field or the setting).
    Sent {
        /// The link id.
        id: String,
        /// What happened.
        result: Result<Sent, String>,
    },
    /// Whether a shown link that can no longer be paid was renewed: its renewal's order
    /// number.
    RenewalKnown {
        /// The link.
        id: String,
        /// The renewal's order number (`None`: not renewed).
        renewed_as: Option<String>,
    },
    /// "Send a new link": the renewal made, or why not (a sentence in the window's language).
    Renewed {
        /// The link renewed.
        id: String,
        /// The renewal.
        result: Result<Box<crate::service::renew::Renewed>, String>,
    },
}

/// A background result about the journal's open rows.
#[derive(Debug)]
pub enum PendingResult {
    /// A Retry ended.
    Retried {
        /// Idempotency key.
        key: String,
        /// The outcome (boxed: a link is large beside the other results).
        result: Box<Result<Link, CreateError>>,
        /// The journal's open rows after it.
        rows: Option<Vec<JournalRow>>,
    },
    /// An Abandon ended.
    Abandoned {
        /// Idempotency key.
        key: String,
        /// The journal's open rows after it, or why it failed.
        result: Result<Vec<JournalRow>, DeskError>,
    },
    /// A re-send of every pending row ended.
    Resumed {
        /// The profile whose rows were sent (a switch meanwhile drops the answer).
        profile: String,
        /// Each row's key and outcome.
        result: Result<RowOutcomes, DeskError>,
        /// The journal's open rows after it.
        rows: Option<Vec<JournalRow>>,
    },
}

/// What the worker opened for a profile.
pub struct Boot {
    pub(crate) services: Arc<Services>,
    pub(crate) desk: Desk,
    pub(crate) order_number: Option<String>,
    pub(crate) catalog: HashMap<String, CatalogVariant>,
    pub(crate) profiles: Vec<Profile>,
    pub(crate) pending: Vec<JournalRow>,
    /// The staff members (`None`: they could not be read).
    pub(crate) staff: Option<Vec<StaffMember>>,
    /// The profile asked for could not be opened; the sandbox was opened instead.
    pub(crate) fallback: Option<JobError>,
    /// The desk's place in a shop.
    pub(crate) shop: ShopBoot,
}

impl std::fmt::Debug for Boot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Boot")
            .field("desk", &self.desk)
            .field("fallback", &self.fallback)
            .finish_non_exhaustive()
    }
}

/// A background result about profiles.
#[derive(Debug)]
pub enum ProfilesResult {
    /// A profile was opened (start-up or switch).
    Booted {
        /// What was opened, or why nothing could be.
        result: Result<Box<Boot>, JobError>,
    },
    /// Profiles changed (or a change failed).
    Listed {
        /// The profiles after the change.
        result: Result<Vec<Profile>, JobError>,
    },
    /// Whether a profile's secret is stored (or why that could not be told).
    Secret {
        /// Profile name.
        profile: String,
        /// What the settings show.
        status: Result<SecretStatus, JobError>,
    },
}

/// A background result of the day close.
#[derive(Debug)]
pub enum ReportResult {
    /// A day report.
    Made {
        /// The first and the last day it covers.
        days: (NaiveDate, NaiveDate),
        /// The report, or why there is none.
        result: Result<DayReport, DeskError>,
    },
    /// The open links of the days Refresh asks about.
    OpenLinks {
        /// Their ids, or why they could not be listed.
        result: Result<Vec<String>, DeskError>,
        /// The Refresh's duty, which each link's refresh carries on.
        duty: Duty,
    },
    /// One open link's answer to Refresh.
    StatusRefreshed {
        /// The link id.
        id: String,
        /// Whether it answered (the desk stored its answer), or why not.
        result: Result<(), DeskError>,
    },
}

/// What the worker read of the shop when the profile opened.
#[derive(Debug, Clone, Default)]
pub struct ShopBoot {
    pub(crate) url: Option<ShopUrl>,
    pub(crate) desk: Option<DeskIdentity>,
    pub(crate) outbox: Option<u64>,
}

/// A background result of the Shop database section.
#[derive(Debug)]
pub enum ShopResult {
    /// A join went through or not.
    Joined {
        /// What joined, or why not.
        result: Result<Joined, MembershipError>,
    },
    /// A connection test answered: the shop was reached, or why not.
    Tested {
        /// Reached, or why not.
        result: Result<(), ShopError>,
    },
    /// The file dialog for the shop's CA file answered.
    CaChosen {
        /// What the manager did.
        choice: super::files::Choice,
    },
    /// The desk left (the shop it left; `None`: it had joined none).
    Left {
        /// What happened.
        result: Result<Option<ShopUrl>, MembershipError>,
    },
    /// The desk was named.
    Named {
        /// The name, or why not.
        result: Result<String, MembershipError>,
    },
    /// An owner's step answered, with the desks listed after it.
    Owner {
        /// What it did and the desks, or why not.
        result: Result<(OwnerDone, Vec<DeskLogin>), ShopError>,
    },
    /// The shop's catalog and staff were mirrored into the desk's file (when they had
    /// changed).
    Pulled {
        /// The desk's catalog after a new snapshot was mirrored; `None`: unchanged.
        catalog: Option<HashMap<String, CatalogVariant>>,
        /// Whether the shop's staff were mirrored (the list is read again).
        staff: bool,
    },
}

/// Whom a job acts for and under which rule of the role table. It travels with the job from
/// the command that spawned it (and on through a result that spawns the command's next job),
/// and the worker checks it again before the job runs, whoever spawned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duty {
    /// Who acts: the member signed in, or the clerk a manager approved the command for.
    pub(crate) actor: Actor,
    /// The command's name (for the log and a refusal) and what it needs; `None` for the app's
    /// own work (a refresh, a profile's opening, a follow-up read), which any member's desk
    /// does.
    pub(crate) rule: Option<(&'static str, Need)>,
}

impl Duty {
    /// The duty of `command`, run by `actor`.
    pub(crate) fn of(command: &Command, actor: Actor) -> Duty {
        Duty {
            actor,
            rule: Some((command.name(), command.gate().need())),
        }
    }

    /// The app's own work, done with `actor` at the desk.
    pub(crate) fn own(actor: Actor) -> Duty {
        Duty { actor, rule: None }
    }
}

/// What changed a member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberEdit {
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
        change: MemberEdit,
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
        /// On a joined desk whose shop answered, the head of the shop's own chain.
        shop_head: Option<String>,
    },
    /// The audit rows were written as CSV.
    AuditExported {
        /// How many rows, where and whether the desktop's dialog chose it (`None`: the dialog
        /// was closed), or why not.
        result: Result<Option<(usize, PathBuf, bool)>, JobError>,
    },
    /// The managers' sign-ins this desk held in the shop were ended (the desk locked).
    SignedOut,
    /// The worker's own check of the role table refused a command.
    Refused {
        /// The command's name.
        command: &'static str,
        /// Why.
        error: DeskError,
    },
}

/// A background result, by feature.
#[derive(Debug)]
pub enum Msg {
    /// About profiles (one opened, the list changed, a secret).
    Profiles(ProfilesResult),
    /// About a link.
    Link(LinkResult),
    /// Of the open-links board.
    Board(BoardResult),
    /// Of the card form.
    Card(CardResult),
    /// Of the installments view.
    Installments(InstallmentsResult),
    /// Of the history view.
    History(HistoryResult),
    /// Of the day close.
    Report(ReportResult),
    /// About the journal's open rows.
    Pending(PendingResult),
    /// Of the catalog view.
    Catalog(CatalogResult),
    /// Of staff: signing in, members, approvals, the audit record.
    Staff(StaffResult),
    /// Of Settings' Shop database section.
    Shop(ShopResult),
    /// Of Settings → E-mail.
    Mail(MailResult),
}

/// A background result of Settings → E-mail.
#[derive(Debug)]
pub enum MailResult {
    /// The account kept (`None`: none yet) and the queue in short.
    Loaded {
        /// The account as the form holds it.
        form: Option<crate::ui::mail::MailForm>,
        /// The queue.
        queue: crate::ui::mail::QueueSummary,
        /// How this desk sends to customers not at the counter.
        sending: crate::ui::mail::SendingForm,
    },
    /// A save of the sending settings ended: what to say, or why not.
    SendingSaved {
        /// The sentence, or the problem.
        result: Result<String, crate::ui::problem::Problem>,
    },
    /// A save or a test ended: what to say, or why not.
    Done {
        /// The sentence, or the problem.
        result: Result<String, crate::ui::problem::Problem>,
    },
}

/// What a send did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// WhatsApp opened with the message to this (masked) number.
    WhatsApp {
        /// The number, masked as the audit holds it.
        to: String,
    },
    /// The message to copy: the subject, a blank line, the text.
    Copy {
        /// The text for the clipboard.
        text: String,
    },
    /// The e-mail was queued; whether the server took it at once, else why it waits.
    Email {
        /// The address, masked.
        to: String,
        /// `None`: sent; else why it waits to be sent.
        waiting: Option<String>,
    },
}
