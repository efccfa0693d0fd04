//! What a view asks for, and where it can send the user. Views only draw; anything with a side
//! effect (a request, a file, the clipboard, switching profile) is a `Command`, run by the app's
//! logic after the frame. Both live here, below the views and the app alike, so a view never
//! imports the app.

use chrono::NaiveDate;
use zeroize::Zeroizing;

use crate::clock::Zone;
use crate::domain::Role;
use crate::domain::roles::Need;
use crate::domain::{Barcode, CardRequest, InstallmentQuery, LinkRequest};
use crate::domain::{Link, LinkStatus};
use crate::store::{AuditFilter, Profile};
use crate::ui::text::UiText;

/// What a command needs of the member signed in (docs/design.md §7, "Roles"), and the words
/// the approval prompt names it by when a clerk needs a manager's PIN for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Runs with nobody signed in: it neither changes nor shows the shop's data.
    Anyone,
    /// Any signed-in member.
    Member,
    /// A clerk's own unpaid link, else a manager (the words take the link's `{order}`).
    OwnUnpaidOrManager(UiText),
    /// A manager, or a clerk with a manager's PIN for this one action.
    Manager(UiText),
}

impl Gate {
    /// The role table's need.
    pub fn need(self) -> Need {
        match self {
            Gate::Anyone => Need::Anyone,
            Gate::Member => Need::Member,
            Gate::OwnUnpaidOrManager(_) => Need::OwnUnpaidOrManager,
            Gate::Manager(_) => Need::Manager,
        }
    }

    /// What the approval prompt calls the action; `None` for one no clerk is ever held at.
    pub fn what(self) -> Option<UiText> {
        match self {
            Gate::Anyone | Gate::Member => None,
            Gate::OwnUnpaidOrManager(what) | Gate::Manager(what) => Some(what),
        }
    }
}

/// A side effect asked for by a view: a navigation, or one feature's command. The app's
/// logic runs each feature's commands in its own module (`app::link`, `app::history`, ...).
#[derive(Debug)]
pub enum Command {
    /// Go to a view.
    Navigate {
        /// The view.
        view: View,
    },
    /// The New link form and the result view.
    Link(LinkCommand),
    /// The open-links board.
    Board(BoardCommand),
    /// Save a card.
    Card(CardCommand),
    /// Installment options.
    Installments(InstallmentsCommand),
    /// The history of links.
    History(HistoryCommand),
    /// The day close.
    Report(ReportCommand),
    /// The journal's open rows.
    Pending(PendingCommand),
    /// The local catalog.
    Catalog(CatalogCommand),
    /// Profiles and secrets.
    Profiles(ProfilesCommand),
    /// Staff: signing in, locking, managing members, the audit record, a manager's approval.
    Staff(StaffCommand),
    /// This desk in a shop: joining, leaving, its name.
    Shop(ShopCommand),
    /// Settings → E-mail.
    Mail(MailCommand),
}

impl Command {
    /// The command's name, as the role table (`domain/roles.rs`) and the logs have it.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Navigate { .. } => "Navigate",
            Command::Link(c) => c.name(),
            Command::Board(BoardCommand::Show { .. }) => "ShowBoardLink",
            Command::Board(BoardCommand::Send { .. }) => "SendBoardLink",
            Command::Board(BoardCommand::Remind { .. }) => "RemindBoardLink",
            Command::Card(CardCommand::Save { .. }) => "SaveCard",
            Command::Installments(InstallmentsCommand::List { .. }) => "ListInstallments",
            Command::History(c) => c.name(),
            Command::Report(ReportCommand::Load { .. }) => "LoadReport",
            Command::Report(ReportCommand::RefreshStatuses { .. }) => "RefreshDayClose",
            Command::Pending(c) => c.name(),
            Command::Catalog(c) => c.name(),
            Command::Profiles(c) => c.name(),
            Command::Staff(c) => c.name(),
            Command::Shop(c) => c.name(),
            Command::Mail(c) => c.name(),
        }
    }

    /// What the command needs of the member signed in, and its words in the approval prompt
    /// (the role table for the app, as exhaustive matches: a new command does not build
    /// until it says).
    pub fn gate(&self) -> Gate {
        match self {
            Command::Navigate { .. }
            | Command::Board(
                BoardCommand::Show { .. } | BoardCommand::Send { .. } | BoardCommand::Remind { .. },
            )
            | Command::Installments(InstallmentsCommand::List { .. }) => Gate::Member,
            Command::Link(c) => c.gate(),
            Command::Card(CardCommand::Save { .. }) => Gate::Manager(UiText::WhatSaveCard),
            Command::History(c) => c.gate(),
            Command::Report(ReportCommand::Load { .. } | ReportCommand::RefreshStatuses { .. }) => {
                Gate::Manager(UiText::WhatDayClose)
            }
            Command::Pending(c) => c.gate(),
            Command::Catalog(c) => c.gate(),
            Command::Profiles(c) => c.gate(),
            Command::Staff(c) => c.gate(),
            Command::Shop(c) => c.gate(),
            Command::Mail(c) => c.gate(),
        }
    }
}

/// What the New link form and the result view ask for.
pub enum LinkCommand {
    /// Send a validated link-create request (journaled first).
    Create {
        /// The request.
        request: Box<LinkRequest>,
    },
    /// Clear the form for the next link (next order number) and leave the result view.
    New,
    /// Put text on the clipboard.
    CopyText {
        /// The text.
        text: String,
    },
    /// Write the QR of `url` as a PNG file named after `name`.
    SaveQrPng {
        /// The payment URL.
        url: String,
        /// Order number (or id) for the file name.
        name: String,
    },
    /// Print the link's QR slip (the default printer, else a PDF beside the PNGs).
    PrintSlip {
        /// The link.
        link: Box<Link>,
    },
    /// Open a URL (the share `mailto:`).
    OpenUrl {
        /// The URL.
        url: String,
    },
    /// Ask the server for the link's current state.
    Refresh {
        /// The link id.
        id: String,
    },
    /// Cancel the link.
    Cancel {
        /// The link id.
        id: String,
    },
    /// Leave the result view opened from History or the board.
    Close,
    /// Open or close the customer display.
    CustomerDisplay {
        /// Whether it is shown.
        open: bool,
        /// Full screen.
        fullscreen: bool,
    },
    /// Make a new link for this expired or cancelled one nobody paid ("Send a new link").
    Renew {
        /// The link id.
        id: String,
    },
    /// Send the link's message to its payer (or copy it), in `lang`.
    Send {
        /// The link id.
        id: String,
        /// How.
        via: SendVia,
        /// The message's language (the shop's choice per message, not the window's).
        lang: crate::lang::Lang,
        /// The link's one reminder (the board's "Remind"), not a first send.
        reminder: bool,
    },
}

/// How a link's message goes to its payer (`LinkCommand::Send`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendVia {
    /// WhatsApp: the desktop opens `wa.me` with the message; the number as typed (empty: the
    /// link's payer phone), read with the desk's country code (Settings → Sending to customers) for a
    /// number typed without one.
    WhatsApp {
        /// The number as typed.
        phone: String,
    },
    /// E-mail through the shop's SMTP account, queued first (empty: the payer's e-mail).
    Email {
        /// The address as typed.
        to: String,
    },
    /// The subject and text onto the clipboard, for any other channel.
    Copy,
}

impl std::fmt::Debug for LinkCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Requests print their own redacted Debug.
        match self {
            LinkCommand::Create { request } => f.debug_tuple("CreateLink").field(request).finish(),
            other => f.write_str(other.name()),
        }
    }
}

impl LinkCommand {
    /// The command's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            LinkCommand::Create { .. } => "CreateLink",
            LinkCommand::New => "NewLink",
            LinkCommand::CopyText { .. } => "CopyText",
            LinkCommand::SaveQrPng { .. } => "SaveQrPng",
            LinkCommand::PrintSlip { .. } => "PrintSlip",
            LinkCommand::OpenUrl { .. } => "OpenUrl",
            LinkCommand::Refresh { .. } => "RefreshLink",
            LinkCommand::Cancel { .. } => "CancelLink",
            LinkCommand::Close => "CloseShownLink",
            LinkCommand::CustomerDisplay { .. } => "CustomerDisplay",
            LinkCommand::Send { .. } => "SendLink",
            LinkCommand::Renew { .. } => "RenewLink",
        }
    }

    /// See [`Command::gate`].
    pub fn gate(&self) -> Gate {
        match self {
            LinkCommand::Create { .. }
            | LinkCommand::New
            | LinkCommand::CopyText { .. }
            | LinkCommand::SaveQrPng { .. }
            | LinkCommand::PrintSlip { .. }
            | LinkCommand::OpenUrl { .. }
            | LinkCommand::Refresh { .. }
            | LinkCommand::Close
            | LinkCommand::CustomerDisplay { .. }
            | LinkCommand::Send { .. }
            | LinkCommand::Renew { .. } => Gate::Member,
            LinkCommand::Cancel { .. } => Gate::OwnUnpaidOrManager(UiText::WhatCancelLink),
        }
    }
}

/// What the board asks for.
#[derive(Debug)]
pub enum BoardCommand {
    /// Show a link of the board in the result view.
    Show {
        /// The link id.
        id: String,
    },
    /// Show a link of the board with its Send form open.
    Send {
        /// The link id.
        id: String,
    },
    /// Show a link of the board with its Send form open for its one reminder (WhatsApp).
    Remind {
        /// The link id.
        id: String,
    },
}

/// What the card form asks for.
pub enum CardCommand {
    /// Save a card (the form is already wiped).
    Save {
        /// The request.
        request: Box<CardRequest>,
    },
}

impl std::fmt::Debug for CardCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let CardCommand::Save { request } = self;
        // The request prints its own redacted Debug.
        f.debug_tuple("SaveCard").field(request).finish()
    }
}

/// What the installments view asks for.
#[derive(Debug)]
pub enum InstallmentsCommand {
    /// List installment options.
    List {
        /// The BIN and amount.
        query: Box<InstallmentQuery>,
    },
}

/// The search of the History list: what the view's filter holds, and what its Search and
/// Export commands carry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HistoryFilter {
    /// Order number / reference prefix or description words.
    pub text: String,
    /// Only this status.
    pub status: Option<LinkStatus>,
    /// Only links created on or after this local day.
    pub from: Option<NaiveDate>,
    /// Only links created on or before this local day.
    pub to: Option<NaiveDate>,
    /// Only links this staff member began.
    pub staff: Option<String>,
}

/// What the history view asks for.
#[derive(Debug)]
pub enum HistoryCommand {
    /// First page of history for a filter.
    Search {
        /// The filter.
        filter: HistoryFilter,
    },
    /// The next page of history.
    More,
    /// Show a link of history.
    Show {
        /// The link id.
        id: String,
    },
    /// Show a link of history with its Send form open (the row's menu).
    ShowToSend {
        /// The link id.
        id: String,
    },
    /// Ask the server for the status of these links of history, one a second.
    RefreshStatuses {
        /// The link ids.
        ids: Vec<String>,
    },
    /// Write the links of history matching the filter as CSV, where QR PNGs are saved.
    Export {
        /// The filter.
        filter: HistoryFilter,
    },
}

impl HistoryCommand {
    /// The command's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            HistoryCommand::Search { .. } => "SearchHistory",
            HistoryCommand::More => "MoreHistory",
            HistoryCommand::Show { .. } => "ShowHistoryLink",
            HistoryCommand::ShowToSend { .. } => "SendHistoryLink",
            HistoryCommand::RefreshStatuses { .. } => "RefreshStatuses",
            HistoryCommand::Export { .. } => "ExportHistory",
        }
    }

    /// See [`Command::gate`].
    pub fn gate(&self) -> Gate {
        match self {
            HistoryCommand::Search { .. }
            | HistoryCommand::More
            | HistoryCommand::Show { .. }
            | HistoryCommand::ShowToSend { .. }
            | HistoryCommand::RefreshStatuses { .. } => Gate::Member,
            HistoryCommand::Export { .. } => Gate::Manager(UiText::WhatExportHistory),
        }
    }
}

/// What the day close asks for.
#[derive(Debug, Clone, Copy)]
pub enum ReportCommand {
    /// Make the day report of local days `first..=last`.
    Load {
        /// The first day.
        first: NaiveDate,
        /// The last day (included).
        last: NaiveDate,
        /// The zone of the days.
        zone: Zone,
    },
    /// Ask the server for the status of the open links created on local days `first..=last`,
    /// one a second, then make the report again.
    RefreshStatuses {
        /// The first day.
        first: NaiveDate,
        /// The last day (included).
        last: NaiveDate,
        /// The zone of the days.
        zone: Zone,
    },
}

/// What the pending view (and the form's "Send again") asks for.
#[derive(Debug)]
pub enum PendingCommand {
    /// Re-send a pending creation (stale rows only with `force`).
    Retry {
        /// Idempotency key.
        key: String,
        /// The row is stale and the user checked first.
        force: bool,
    },
    /// Give up on a pending creation.
    Abandon {
        /// Idempotency key.
        key: String,
    },
}

impl PendingCommand {
    /// The command's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            PendingCommand::Retry { .. } => "RetryPending",
            PendingCommand::Abandon { .. } => "AbandonPending",
        }
    }

    /// See [`Command::gate`].
    pub fn gate(&self) -> Gate {
        match self {
            PendingCommand::Retry { .. } => Gate::Member,
            PendingCommand::Abandon { .. } => Gate::Manager(UiText::WhatAbandon),
        }
    }
}

/// What the catalog view asks for.
#[derive(Debug)]
pub enum CatalogCommand {
    /// Parse a catalog CSV without writing.
    Preview {
        /// The file.
        path: String,
    },
    /// Choose the catalog CSV in the desktop's file dialog, then preview it.
    Choose,
    /// Import a catalog CSV.
    Import {
        /// The file.
        path: String,
    },
    /// Add, edit or remove one catalog item (the server's variants keep the server's price).
    Edit {
        /// The change.
        edit: crate::service::CatalogEdit,
    },
    /// Save a sample catalog file (where the file dialog says, else in Downloads).
    SaveSample,
    /// Set (or with `None` remove) a catalog item's barcode.
    SetBarcode {
        /// The variant id.
        variant_id: String,
        /// The barcode, already validated.
        barcode: Option<Barcode>,
    },
}

impl CatalogCommand {
    /// The command's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            CatalogCommand::Preview { .. } => "CatalogPreview",
            CatalogCommand::Choose => "CatalogChoose",
            CatalogCommand::Import { .. } => "CatalogImport",
            CatalogCommand::SetBarcode { .. } => "SetBarcode",
            CatalogCommand::Edit { .. } => "CatalogEdit",
            CatalogCommand::SaveSample => "CatalogSaveSample",
        }
    }

    /// See [`Command::gate`].
    pub fn gate(&self) -> Gate {
        match self {
            CatalogCommand::Preview { .. }
            | CatalogCommand::Choose
            | CatalogCommand::Import { .. } => Gate::Manager(UiText::WhatCatalog),
            CatalogCommand::SetBarcode { .. } => Gate::Manager(UiText::WhatBarcode),
            CatalogCommand::Edit { .. } => Gate::Manager(UiText::WhatCatalogItem),
            // A file of made-up items: it neither shows nor changes the shop's data.
            CatalogCommand::SaveSample => Gate::Member,
        }
    }
}

/// What the settings (and the top bar's profile picker) ask for.
pub enum ProfilesCommand {
    /// Add or update a profile.
    Save {
        /// The profile.
        profile: Box<Profile>,
        /// Update (`true`) or add.
        existing: bool,
    },
    /// Remove a profile.
    Remove {
        /// Profile name.
        name: String,
    },
    /// Use another profile.
    Switch {
        /// Profile name.
        name: String,
    },
    /// Store a profile's secret in the keyring.
    StoreSecret {
        /// Profile name.
        profile: String,
        /// API key id.
        api_key: String,
        /// The secret (zeroized when dropped).
        secret: Zeroizing<String>,
    },
    /// Find out whether a profile's secret is stored.
    CheckSecret {
        /// Profile name.
        profile: String,
        /// API key id.
        api_key: String,
    },
}

impl std::fmt::Debug for ProfilesCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a secret.
        match self {
            ProfilesCommand::StoreSecret { profile, .. } => f
                .debug_struct("StoreSecret")
                .field("profile", profile)
                .finish_non_exhaustive(),
            other => f.write_str(other.name()),
        }
    }
}

impl ProfilesCommand {
    /// The command's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            ProfilesCommand::Save { .. } => "SaveProfile",
            ProfilesCommand::Remove { .. } => "RemoveProfile",
            ProfilesCommand::Switch { .. } => "SwitchProfile",
            ProfilesCommand::StoreSecret { .. } => "StoreSecret",
            ProfilesCommand::CheckSecret { .. } => "CheckSecret",
        }
    }

    /// See [`Command::gate`].
    pub fn gate(&self) -> Gate {
        match self {
            ProfilesCommand::Save { .. } => Gate::Manager(UiText::WhatSaveProfile),
            ProfilesCommand::Remove { .. } => Gate::Manager(UiText::WhatRemoveProfile),
            ProfilesCommand::Switch { .. } => Gate::Manager(UiText::WhatSwitchProfile),
            ProfilesCommand::StoreSecret { .. } => Gate::Manager(UiText::WhatStoreSecret),
            ProfilesCommand::CheckSecret { .. } => Gate::Member,
        }
    }
}

/// What Settings' Shop section asks for (a manager's, as the CLI's `shop join`, `shop name`
/// and `shop leave`).
pub enum ShopCommand {
    /// Join the shop at `url` with `password` (empty: `PAYDESK_SHOP_PASSWORD`).
    Join {
        /// The `postgres://` URL as typed.
        url: String,
        /// The password (zeroized when dropped).
        password: Zeroizing<String>,
    },
    /// Try the connection to the shop at `url` with `password` (empty:
    /// `PAYDESK_SHOP_PASSWORD`) without joining: what the shop says, or why it cannot.
    Test {
        /// The `postgres://` URL made from the fields.
        url: String,
        /// The password (zeroized when dropped).
        password: Zeroizing<String>,
    },
    /// Choose the shop's CA file in the desktop's file dialog.
    ChooseCa,
    /// Leave the shop (its password out of the keyring).
    Leave,
    /// Name the desk.
    NameDesk {
        /// The name as typed.
        name: String,
    },
    /// Try to reach the shop now.
    Reconnect,
    /// The shop's owner, with the owner's URL and password (`shop init`, `add-desk`,
    /// `remove-desk`, `desks`): the password is used for this one call and dropped.
    Owner {
        /// The owner's `postgres://` URL as typed.
        url: String,
        /// The owner's password (zeroized when dropped).
        password: Zeroizing<String>,
        /// What the owner asks.
        ask: OwnerAsk,
    },
}

/// What the shop's owner asks in Settings.
#[derive(Debug, Clone)]
pub enum OwnerAsk {
    /// Set the shop up, or bring it to this build's schema.
    Init,
    /// A login for the desk of this name.
    AddDesk {
        /// The name as typed.
        name: String,
    },
    /// Shut the desk of this name out.
    RemoveDesk {
        /// The name.
        name: String,
    },
    /// List the desks.
    Desks,
    /// Make this member a manager of the shop with this PIN, or set a manager's PIN (`Pin`'s
    /// `Debug` never shows it).
    AddManager {
        /// The manager's name.
        name: crate::domain::StaffName,
        /// The PIN.
        pin: crate::domain::Pin,
    },
}

impl std::fmt::Debug for ShopCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the password.
        match self {
            ShopCommand::Join { url, .. } => f
                .debug_struct("JoinShop")
                .field("url", url)
                .finish_non_exhaustive(),
            ShopCommand::Owner { url, ask, .. } => f
                .debug_struct("ShopOwner")
                .field("url", url)
                .field("ask", ask)
                .finish_non_exhaustive(),
            other => f.write_str(other.name()),
        }
    }
}

impl ShopCommand {
    /// The command's name, for the role table and logs.
    pub fn name(&self) -> &'static str {
        match self {
            ShopCommand::Join { .. } => "JoinShop",
            ShopCommand::Test { .. } => "TestShop",
            ShopCommand::ChooseCa => "ChooseShopCa",
            ShopCommand::Leave => "LeaveShop",
            ShopCommand::NameDesk { .. } => "NameDesk",
            ShopCommand::Reconnect => "ReconnectShop",
            ShopCommand::Owner { .. } => "ShopOwner",
        }
    }

    /// See [`Command::gate`].
    pub fn gate(&self) -> Gate {
        match self {
            ShopCommand::Join { .. } | ShopCommand::Test { .. } => {
                Gate::Manager(UiText::WhatJoinShop)
            }
            ShopCommand::Leave => Gate::Manager(UiText::WhatLeaveShop),
            ShopCommand::NameDesk { .. } => Gate::Manager(UiText::WhatNameDesk),
            // The owner's steps: the owner's password is the authority, whoever is signed in;
            // choosing the CA file picks a file name, nothing is read or changed.
            ShopCommand::Reconnect | ShopCommand::Owner { .. } | ShopCommand::ChooseCa => {
                Gate::Member
            }
        }
    }
}

/// What the lock screen, the approval prompt, Settings' Staff section and the Audit view ask
/// for. Every PIN check and store call runs on the worker; PINs are wiped when dropped and never
/// printed.
pub enum StaffCommand {
    /// Sign a member in at this desk.
    SignIn {
        /// The member's name.
        name: String,
        /// The PIN as typed.
        pin: Zeroizing<String>,
    },
    /// Lock the desk (Ctrl+L, the top bar's name, the idle time).
    Lock,
    /// Add a member (the first one turns staff on and must be a manager).
    AddStaff {
        /// The name.
        name: String,
        /// The role.
        role: Role,
        /// The PIN as typed (twice alike).
        pin: Zeroizing<String>,
    },
    /// Give a member a new PIN.
    ResetPin {
        /// The member's name.
        name: String,
        /// The new PIN as typed.
        pin: Zeroizing<String>,
    },
    /// Disable or enable a member.
    SetStaffActive {
        /// The member's name.
        name: String,
        /// Enable (`true`) or disable.
        active: bool,
    },
    /// Read the staff list again.
    LoadStaff,
    /// Read the audit record (and check its chain).
    LoadAudit {
        /// Which rows.
        filter: AuditFilter,
    },
    /// Write the audit rows matching the filter as CSV, where History's export writes.
    ExportAudit {
        /// Which rows.
        filter: AuditFilter,
    },
    /// A manager's PIN for the one command the approval prompt holds.
    Approve {
        /// The manager's name.
        manager: String,
        /// The manager's PIN as typed.
        pin: Zeroizing<String>,
    },
}

impl std::fmt::Debug for StaffCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a PIN.
        f.write_str(self.name())
    }
}

impl StaffCommand {
    /// The command's name, as the role table has it.
    pub fn name(&self) -> &'static str {
        match self {
            StaffCommand::SignIn { .. } => "SignIn",
            StaffCommand::Lock => "Lock",
            StaffCommand::AddStaff { .. } => "AddStaff",
            StaffCommand::ResetPin { .. } => "ResetPin",
            StaffCommand::SetStaffActive { .. } => "SetStaffActive",
            StaffCommand::LoadStaff => "LoadStaff",
            StaffCommand::LoadAudit { .. } => "LoadAudit",
            StaffCommand::ExportAudit { .. } => "ExportAudit",
            StaffCommand::Approve { .. } => "Approve",
        }
    }

    /// See [`Command::gate`]. A manager's PIN for one held command is itself the check.
    pub fn gate(&self) -> Gate {
        match self {
            StaffCommand::SignIn { .. }
            | StaffCommand::Lock
            | StaffCommand::LoadStaff
            | StaffCommand::Approve { .. } => Gate::Anyone,
            StaffCommand::AddStaff { .. } => Gate::Manager(UiText::WhatAddStaff),
            StaffCommand::ResetPin { .. } => Gate::Manager(UiText::WhatResetPin),
            StaffCommand::SetStaffActive { .. } => Gate::Manager(UiText::WhatStaffActive),
            StaffCommand::LoadAudit { .. } => Gate::Manager(UiText::WhatAudit),
            StaffCommand::ExportAudit { .. } => Gate::Manager(UiText::WhatExportAudit),
        }
    }
}

/// How a connection to the mail server is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MailSecurity {
    /// STARTTLS on the submission port (587).
    #[default]
    StartTls,
    /// TLS from the first byte (465).
    Tls,
    /// None: only to a server on this computer.
    None,
}

impl MailSecurity {
    /// The port a server of this kind listens on.
    pub fn default_port(self) -> u16 {
        match self {
            MailSecurity::StartTls => 587,
            MailSecurity::Tls => 465,
            MailSecurity::None => 25,
        }
    }
}

/// The account as the form holds it (what the worker checks and keeps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailForm {
    /// The server's host name.
    pub host: String,
    /// Its port, as typed.
    pub port: String,
    /// How the connection is protected.
    pub security: MailSecurity,
    /// The login (empty: a server without one).
    pub user: String,
    /// The sender's address.
    pub from: String,
    /// The sender's name.
    pub from_name: String,
    /// A CA file (PEM) trusted besides the system's, for a server with the shop's own CA.
    pub ca_file: String,
    /// Whether a receipt goes on its own to the payer of a link heard paid in full (on until
    /// turned off).
    pub receipts: bool,
}

impl Default for MailForm {
    fn default() -> Self {
        MailForm {
            host: String::new(),
            port: String::new(),
            security: MailSecurity::default(),
            user: String::new(),
            from: String::new(),
            from_name: String::new(),
            ca_file: String::new(),
            receipts: true,
        }
    }
}

/// How this desk sends to customers not at the counter, as the form holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendingForm {
    /// The country code of a number typed without one, as typed.
    pub country_code: String,
    /// Minutes before a link's expiry its reminder is due (`None`: off).
    pub remind_before_min: Option<u32>,
}

impl Default for SendingForm {
    fn default() -> Self {
        SendingForm {
            country_code: "90".to_owned(),
            remind_before_min: Some(120),
        }
    }
}

/// What the mail queue holds, in short.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueSummary {
    /// Messages waiting to be sent.
    pub waiting: usize,
    /// Messages the server refused for good.
    pub refused: usize,
    /// Messages sent.
    pub sent: usize,
    /// Why the newest waiting or refused message did not go, masked address first.
    pub last_problem: Option<String>,
}

/// What Settings → E-mail asks the worker for.
pub enum MailCommand {
    /// Read the account kept and the queue.
    Load,
    /// Check and keep the account, and the password typed (none: keep the one stored).
    Save {
        /// The account.
        form: Box<MailForm>,
        /// The password, wiped after use.
        password: Option<Zeroizing<String>>,
    },
    /// Send one message outside the queue to `to`.
    Test {
        /// The address.
        to: String,
    },
    /// Keep how this desk sends to customers not at the counter.
    SaveSending {
        /// The form.
        form: SendingForm,
    },
}

impl std::fmt::Debug for MailCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The password never prints.
        f.write_str(self.name())
    }
}

impl MailCommand {
    /// The command's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            MailCommand::Load => "LoadMailSettings",
            MailCommand::Save { .. } => "SaveMailSettings",
            MailCommand::Test { .. } => "TestMail",
            MailCommand::SaveSending { .. } => "SaveSendingSettings",
        }
    }

    /// See `Command::gate`: reading is anyone's at the desk, changing and testing a manager's.
    pub fn gate(&self) -> Gate {
        match self {
            MailCommand::Load => Gate::Member,
            MailCommand::Save { .. }
            | MailCommand::Test { .. }
            | MailCommand::SaveSending { .. } => Gate::Manager(UiText::WhatMailSettings),
        }
    }
}

/// The main views, as the navigation lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum View {
    /// New link form (the home view), or the result of the link just made.
    #[default]
    NewLink,
    /// The open-links board.
    Board,
    /// Save a card.
    Card,
    /// Installment options for a BIN.
    Installments,
    /// Every link of the profile.
    History,
    /// The day close: what the links of some days came to.
    Report,
    /// The journal's open rows.
    Pending,
    /// The local catalog and CSV import.
    Catalog,
    /// The shop's staff: members, PINs, the idle lock (managers change them).
    Staff,
    /// Who did what and when (managers; listed only with staff on).
    Audit,
    /// Profiles and secrets.
    Settings,
}

impl View {
    /// Every view, in navigation order.
    pub const ALL: [View; 11] = [
        View::NewLink,
        View::Board,
        View::Card,
        View::Installments,
        View::History,
        View::Report,
        View::Pending,
        View::Catalog,
        View::Staff,
        View::Audit,
        View::Settings,
    ];

    /// The navigation's groups, top to bottom: the counter, the back office, the shop; each
    /// with its small heading. Unsent sits with the counter and is shown only while a sale
    /// waits; Audit only with staff on.
    pub const GROUPS: [(UiText, &'static [View]); 3] = [
        (
            UiText::NavGroupCounter,
            &[View::NewLink, View::Board, View::Pending],
        ),
        (
            UiText::NavGroupBackOffice,
            &[
                View::History,
                View::Report,
                View::Installments,
                View::Card,
                View::Catalog,
            ],
        ),
        (
            UiText::NavGroupShop,
            &[View::Staff, View::Audit, View::Settings],
        ),
    ];

    /// The navigation label.
    pub fn title(self) -> UiText {
        match self {
            View::NewLink => UiText::NavNewLink,
            View::Board => UiText::NavBoard,
            View::Card => UiText::NavCard,
            View::Installments => UiText::NavInstallments,
            View::History => UiText::NavHistory,
            View::Report => UiText::NavReport,
            View::Pending => UiText::NavPending,
            View::Catalog => UiText::NavCatalog,
            View::Staff => UiText::StaffTitle,
            View::Audit => UiText::NavAudit,
            View::Settings => UiText::NavSettings,
        }
    }

    /// The view's icon, on its navigation entry and its header.
    pub fn icon(self) -> crate::ui::theme::icon::Icon {
        use crate::ui::theme::icon;
        match self {
            View::NewLink => icon::NEW_LINK,
            View::Board => icon::OPEN_LINKS,
            View::Card => icon::CARD,
            View::Installments => icon::INSTALLMENTS,
            View::History => icon::HISTORY,
            View::Report => icon::REPORT,
            View::Pending => icon::PENDING,
            View::Catalog => icon::CATALOG,
            View::Staff => icon::STAFF,
            View::Audit => icon::AUDIT,
            View::Settings => icon::SETTINGS,
        }
    }
}
