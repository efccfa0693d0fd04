//! Drawing, and only drawing: one file per view, shared widgets, the theme and the sentences.
//!
//! Views read state and return [`Command`]s for anything with a side effect; the
//! app's `logic` runs them after the frame is drawn. No view does I/O.

pub mod audit;
pub mod board;
pub mod calendar;
pub mod card;
pub mod catalog;
pub mod command;
pub mod fonts;
pub mod history;
pub mod installments;
pub mod link_result;
pub mod mail;
pub mod new_link;
pub mod pending;
pub mod problem;
pub mod report;
pub mod settings;
pub mod shop;
pub mod shop_owner;
pub mod staff;
pub mod table;
pub mod text;
pub mod theme;
pub mod widgets;
pub mod words;

use std::collections::HashMap;

use chrono::{DateTime, Utc};

pub use self::command::{
    BoardCommand, CardCommand, CatalogCommand, Command, HistoryCommand, InstallmentsCommand,
    LinkCommand, PendingCommand, ProfilesCommand, ReportCommand, ShopCommand, StaffCommand, View,
};
use crate::domain::link::KeyLimits;
use crate::domain::{BarcodeIndex, CatalogVariant};
use crate::lang::Lang;
use crate::ui::theme::Palette;

/// The background re-send of the journal's pending rows, as the views show it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResendView {
    /// Pending rows are being sent again right now.
    pub running: bool,
    /// When the next re-send is planned, if one is (a wall-clock time, so the line needs no
    /// repaint each second).
    pub next: Option<DateTime<Utc>>,
}

/// Why the New link form cannot be edited: the journal holds its order without a known outcome.
/// Derived
/// each frame from the journal rows the app already holds (no I/O).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormLock {
    /// The order's row is pending: Create re-sends that row (same bytes, same key).
    Pending {
        /// The idempotency key of the row.
        key: String,
    },
    /// The row is past the server's key retention: the form does not re-send it; the Pending
    /// view does, after the user confirmed they checked.
    Stale,
}

/// What every view needs to draw one frame, and where it puts its commands.
pub struct ViewCtx<'a> {
    /// Interface language.
    pub lang: Lang,
    /// Colours of the current mode.
    pub palette: Palette,
    /// The current moment (from the app's clock).
    pub now: DateTime<Utc>,
    /// The zone times are shown and typed in (the machine's, unless a test sets one).
    pub zone: crate::clock::Zone,
    /// The local catalog mirror.
    pub catalog: &'a HashMap<String, CatalogVariant>,
    /// Variant ids by barcode, kept next to the catalog (a scan is looked up here, no I/O).
    pub barcodes: &'a BarcodeIndex,
    /// The current profile's known key limits.
    pub limits: KeyLimits,
    /// The profile in use is a sandbox (no real money): views may offer its test data, such as
    /// the fixture's BINs on Installments.
    pub sandbox: bool,
    /// The background re-send of the journal's pending rows (New link and Pending say it).
    pub resend: ResendView,
    /// The New link form's lock, derived from the journal rows the app holds (no I/O).
    pub form_lock: Option<FormLock>,
    /// Commands emitted during this frame, run by the app's logic after drawing.
    pub commands: &'a mut Vec<Command>,
}

impl std::fmt::Debug for ViewCtx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewCtx")
            .field("lang", &self.lang)
            .field("now", &self.now)
            .field("sandbox", &self.sandbox)
            .field("commands", &self.commands.len())
            .finish_non_exhaustive()
    }
}

impl ViewCtx<'_> {
    /// Queues a command for the app's logic.
    pub fn emit(&mut self, command: Command) {
        self.commands.push(command);
    }
}
