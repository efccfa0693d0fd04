//! What a view asks for, and where it can send the user. Views only draw; anything with a side
//! effect (a request, a file, the clipboard, switching profile) is a `Command`, run by the app's
//! logic after the frame. Both live here, below the views and the app alike, so a view never
//! imports the app.

use chrono::NaiveDate;
use zeroize::Zeroizing;

use crate::api::wire::PaymentLink;
use crate::clock::Zone;
use crate::domain::{Barcode, CardRequest, InstallmentQuery, LinkRequest};
use crate::store::Profile;
use crate::ui::history::HistoryFilter;
use crate::ui::text::T;

/// A side effect asked for by a view.
pub enum Command {
    /// Go to a view.
    Navigate(View),
    /// Send a validated link-create request (journaled first).
    CreateLink(Box<LinkRequest>),
    /// Clear the form for the next link (next order number) and leave the result view.
    NewLink,
    /// Put text on the clipboard.
    CopyText(String),
    /// Write the QR of `url` as a PNG file named after `name`.
    SaveQrPng {
        /// The payment URL.
        url: String,
        /// Order number (or id) for the file name.
        name: String,
    },
    /// Print the link's QR slip (the default printer, else a PDF beside the PNGs).
    PrintSlip(Box<PaymentLink>),
    /// Open a URL (the share `mailto:`).
    OpenUrl(String),
    /// Ask the server for the link's current state.
    RefreshLink(String),
    /// Cancel the link.
    CancelLink(String),
    /// Leave the result view opened from History.
    CloseShownLink,
    /// Open or close the customer display.
    CustomerDisplay {
        /// Whether it is shown.
        open: bool,
        /// Full screen.
        fullscreen: bool,
    },
    /// Save a card (the form is already wiped).
    SaveCard(Box<CardRequest>),
    /// List installment options.
    ListInstallments(Box<InstallmentQuery>),
    /// First page of history for a filter.
    SearchHistory(HistoryFilter),
    /// The next page of history.
    MoreHistory,
    /// Show a link of history.
    ShowHistoryLink(String),
    /// Ask the server for the status of these links of history, one a second.
    RefreshStatuses(Vec<String>),
    /// Write the links of history matching the filter as CSV, where QR PNGs are saved.
    ExportHistory(HistoryFilter),
    /// Make the day report of local days `first..=last`.
    LoadReport {
        /// The first day.
        first: NaiveDate,
        /// The last day (included).
        last: NaiveDate,
        /// The zone of the days.
        zone: Zone,
    },
    /// Show a link of the open-links board.
    ShowBoardLink(String),
    /// Re-send a pending creation (stale rows only with `force`).
    RetryPending {
        /// Idempotency key.
        key: String,
        /// The row is stale and the user checked first.
        force: bool,
    },
    /// Give up on a pending creation.
    AbandonPending(String),
    /// Parse a catalog CSV without writing.
    CatalogPreview(String),
    /// Import a catalog CSV.
    CatalogImport(String),
    /// Set (or with `None` remove) a catalog item's barcode.
    SetBarcode {
        /// The variant id.
        variant_id: String,
        /// The barcode, already validated.
        barcode: Option<Barcode>,
    },
    /// Add or update a profile.
    SaveProfile {
        /// The profile.
        profile: Box<Profile>,
        /// Update (`true`) or add.
        existing: bool,
    },
    /// Remove a profile.
    RemoveProfile(String),
    /// Use another profile.
    SwitchProfile(String),
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

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a secret; requests print their own redacted Debug.
        match self {
            Command::StoreSecret { profile, .. } => f
                .debug_struct("StoreSecret")
                .field("profile", profile)
                .finish_non_exhaustive(),
            Command::CreateLink(r) => f.debug_tuple("CreateLink").field(r).finish(),
            Command::SaveCard(r) => f.debug_tuple("SaveCard").field(r).finish(),
            other => f.write_str(other.name()),
        }
    }
}

impl Command {
    /// The command's name, for logs.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Navigate(_) => "Navigate",
            Command::CreateLink(_) => "CreateLink",
            Command::NewLink => "NewLink",
            Command::CopyText(_) => "CopyText",
            Command::SaveQrPng { .. } => "SaveQrPng",
            Command::PrintSlip(_) => "PrintSlip",
            Command::OpenUrl(_) => "OpenUrl",
            Command::RefreshLink(_) => "RefreshLink",
            Command::CancelLink(_) => "CancelLink",
            Command::CloseShownLink => "CloseShownLink",
            Command::CustomerDisplay { .. } => "CustomerDisplay",
            Command::SaveCard(_) => "SaveCard",
            Command::ListInstallments(_) => "ListInstallments",
            Command::SearchHistory(_) => "SearchHistory",
            Command::MoreHistory => "MoreHistory",
            Command::ShowHistoryLink(_) => "ShowHistoryLink",
            Command::RefreshStatuses(_) => "RefreshStatuses",
            Command::ExportHistory(_) => "ExportHistory",
            Command::LoadReport { .. } => "LoadReport",
            Command::ShowBoardLink(_) => "ShowBoardLink",
            Command::RetryPending { .. } => "RetryPending",
            Command::AbandonPending(_) => "AbandonPending",
            Command::CatalogPreview(_) => "CatalogPreview",
            Command::CatalogImport(_) => "CatalogImport",
            Command::SetBarcode { .. } => "SetBarcode",
            Command::SaveProfile { .. } => "SaveProfile",
            Command::RemoveProfile(_) => "RemoveProfile",
            Command::SwitchProfile(_) => "SwitchProfile",
            Command::StoreSecret { .. } => "StoreSecret",
            Command::CheckSecret { .. } => "CheckSecret",
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
    /// Profiles and secrets.
    Settings,
}

impl View {
    /// Every view, in navigation order.
    pub const ALL: [View; 9] = [
        View::NewLink,
        View::Board,
        View::Card,
        View::Installments,
        View::History,
        View::Report,
        View::Pending,
        View::Catalog,
        View::Settings,
    ];

    /// The navigation label.
    pub fn title(self) -> T {
        match self {
            View::NewLink => T::NavNewLink,
            View::Board => T::NavBoard,
            View::Card => T::NavCard,
            View::Installments => T::NavInstallments,
            View::History => T::NavHistory,
            View::Report => T::NavReport,
            View::Pending => T::NavPending,
            View::Catalog => T::NavCatalog,
            View::Settings => T::NavSettings,
        }
    }
}
