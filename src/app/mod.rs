//! The eframe application: saved state, runtime handles, the logic that runs commands and
//! drains background results, and the top-level layout.
//!
//! One frame is: drain the worker's results into the views (`logic`), draw (`ui`, which only
//! reads state and emits [`Command`]s), then run the commands (`logic` again: each one becomes
//! a background job, or a cheap UI-side effect such as the clipboard). The UI thread never
//! does I/O; an idle window requests no repaint at all, and timed work (the board's refresh,
//! the background re-send, a countdown on screen) uses `request_repaint_after`.
//!
//! `logic` only dispatches: one module per feature (`link`, `history`, `board`, `report`,
//! `catalog`, `card`, `installments`, `profiles`, `pending`, `staff`) holds that feature's result enum,
//! its `run_*` (a command to background jobs) and its `apply_*` (a result into the state), and
//! a unit test of each command and result without a window (`testing` sets the app up).

pub mod board;
pub mod card;
pub mod catalog;
pub mod errors;
pub mod files;
pub mod history;
pub mod installments;
pub mod link;
pub mod logic;
pub mod mail;
pub mod msg;
pub mod pending;
pub mod profiles;
pub mod report;
pub mod run;
pub mod send;
mod shell;
pub mod shop;
pub mod staff;
pub mod state;
#[cfg(test)]
mod testing;

use self::msg::Msg;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use crate::ui::{Command, View};
pub use run::{GuiError, GuiOptions, run_gui};
pub use state::SavedState;

use crate::board::{Budget, Pace, Refresher};
use crate::clock::{Clock, SystemClock, Zone};
use crate::domain::link::KeyLimits;
use crate::domain::{BarcodeIndex, CatalogVariant};
use crate::notify::{DesktopNotifier, Notifier};
use crate::printer::SlipSink;
use crate::service::Profile;
use crate::service::{Desk, Services};
use crate::ui::board::BoardView;
use crate::ui::card::CardForm;
use crate::ui::catalog::CatalogView;
use crate::ui::history::HistoryView;
use crate::ui::installments::InstallmentsForm;
use crate::ui::link_result::{Origin, ShownLink};
use crate::ui::new_link::NewLinkForm;
use crate::ui::pending::PendingView;
use crate::ui::report::ReportView;
use crate::ui::settings::SettingsView;
use crate::ui::theme::ThemeChoice;
use crate::worker::{Pending, Worker, WorkerError};

use crate::secrets::{OsSecrets, SecretStore, WithoutKeyring};

/// How the app starts (from the command line, or from a test).
#[derive(Debug, Clone)]
pub struct AppOptions {
    /// Folder of the local database; `None` = the platform's data folder.
    pub data_dir: Option<PathBuf>,
    /// Profile to open; `None` = the last one used, else the built-in sandbox.
    pub profile: Option<String>,
    /// Services already open (tests pass in-memory ones); `None` = open them from `data_dir`.
    pub services: Option<Arc<Services>>,
    /// The secret store (keyring with memory fallback).
    pub secrets: Arc<dyn SecretStore>,
    /// The clock of "now" (expiry checks, ages).
    pub clock: Arc<dyn Clock>,
    /// First interval of the status refresh of the link shown in the result view.
    pub poll_interval: Duration,
    /// Longest interval of the shown link's refresh (backoff cap).
    pub poll_max: Duration,
    /// The refresh pace of the other open links of the board (5 s doubling to 60 s).
    pub board_pace: Pace,
    /// The shortest time between two link-detail requests of the background refresh (1 s).
    pub request_gap: Duration,
    /// Where paid alerts go (the desktop's notification service).
    pub notifier: Arc<dyn Notifier>,
    /// First wait before pending creations are sent again in the background while the server
    /// does not answer (doubled after each try that got no answer).
    pub resend_first: Duration,
    /// Longest wait between background re-sends (backoff cap).
    pub resend_max: Duration,
    /// When the process started, to log the time to the first frame (`PAYDESK_PERF`).
    pub perf_start: Option<Instant>,
    /// `PAYDESK_API_SECRET` as read at start-up (none in tests).
    pub env_secret: crate::secrets::EnvSecret,
    /// Where "Print slip" sends slips (CUPS's `lp`, else a folder); tests use fakes.
    pub slip_sink: SlipSink,
    /// The desktop's URL opener (the e-mail share's `mailto:`); tests use a fake.
    pub opener: crate::opener::Opener,
    /// The desktop's file dialog (none by default: the app's run looks in its environment).
    pub file_dialogs: files::FileDialogs,
    /// `PAYDESK_SHOP_PASSWORD` as read at start-up (none in tests unless set).
    pub env_shop: crate::secrets::EnvSecret,
    /// `PAYDESK_SMTP_PASSWORD` as read at start-up: the e-mail login's password where no
    /// keyring runs (none in tests unless set).
    pub env_smtp: crate::secrets::EnvSecret,
    /// How often the mail queue is looked at for a message due (`send::MAIL_PASS_EVERY`).
    pub mail_pass_every: Duration,
    /// The shop session's waits and limits.
    pub shop_timing: crate::service::shop::Timing,
}

impl Default for AppOptions {
    fn default() -> Self {
        Self {
            data_dir: None,
            profile: None,
            services: None,
            secrets: Arc::new(OsSecrets::open(WithoutKeyring::ThisRunOnly)),
            clock: Arc::new(SystemClock),
            poll_interval: Budget::default().focused.first,
            poll_max: Budget::default().focused.max,
            board_pace: Budget::default().board,
            request_gap: Budget::default().gap,
            notifier: Arc::new(DesktopNotifier::new()),
            resend_first: Duration::from_secs(5),
            resend_max: Duration::from_mins(1),
            perf_start: None,
            env_secret: crate::secrets::EnvSecret::default(),
            slip_sink: SlipSink::default(),
            opener: crate::opener::Opener::default(),
            file_dialogs: files::FileDialogs::off(),
            env_shop: crate::secrets::EnvSecret::default(),
            env_smtp: crate::secrets::EnvSecret::default(),
            mail_pass_every: send::MAIL_PASS_EVERY,
            shop_timing: crate::service::shop::Timing::default(),
        }
    }
}

/// Whether the app can talk to the profile's server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Connection {
    /// Opening the profile.
    #[default]
    Connecting,
    /// The last call got an answer.
    Connected,
    /// The profile could not be opened, or the last call got no answer; the sentence says why.
    Disconnected(String),
}

/// The customer display's window, kept by its view.
pub use crate::ui::link_result::CustomerDisplay;

/// The background re-send of the journal's pending rows (after a network drop).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resend {
    /// A re-send of every pending row is out.
    pub(crate) running: bool,
    /// Send now: the connection has just come back.
    pub(crate) due: bool,
    /// When to try next while the server does not answer.
    pub(crate) next: Option<Instant>,
    /// The current wait between tries.
    pub(crate) interval: Duration,
}

/// What the desk holds for the profile in use: the open services and desk, the profiles, the
/// catalog mirror, the key's limits and the connection. Filled when a profile is opened.
#[derive(Default)]
pub struct Holdings {
    pub(crate) services: Option<Arc<Services>>,
    pub(crate) desk: Option<Desk>,
    /// The profiles, for the picker.
    pub profiles: Vec<Profile>,
    /// The local catalog mirror.
    pub catalog: HashMap<String, CatalogVariant>,
    /// The catalog's barcodes, rebuilt whenever the catalog is replaced (`App::set_catalog`).
    pub barcodes: BarcodeIndex,
    /// The profile's known key limits.
    pub limits: KeyLimits,
    /// Connection state shown in the top bar.
    pub connection: Connection,
}

impl std::fmt::Debug for Holdings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Holdings")
            .field("desk", &self.desk)
            .field("profiles", &self.profiles.len())
            .field("catalog", &self.catalog.len())
            .finish_non_exhaustive()
    }
}

/// The views of the window, each with its own state.
#[derive(Debug)]
pub struct Views {
    /// The New link form.
    pub new_link: NewLinkForm,
    /// The card form.
    pub card: CardForm,
    /// The installments view.
    pub installments: InstallmentsForm,
    /// The history view.
    pub history: HistoryView,
    /// The day close view.
    pub report: ReportView,
    /// The pending view.
    pub pending: PendingView,
    /// The open-links board (its view and the panel beside New link).
    pub board: BoardView,
    /// The catalog view.
    pub catalog: CatalogView,
    /// The settings view.
    pub settings: SettingsView,
    /// The link shown in the result view (after create, or from History).
    pub shown: Option<ShownLink>,
    /// The customer display.
    pub customer: CustomerDisplay,
    /// The lock screen (staff on, nobody signed in).
    pub lock: crate::ui::staff::LockScreen,
    /// The manager's approval prompt for a held command.
    pub approval: Option<crate::ui::staff::ApprovalPrompt>,
    /// Settings' Staff section.
    pub staff: crate::ui::staff::StaffSettings,
    /// The Audit view.
    pub audit: crate::ui::audit::AuditView,
    /// Settings' Shop database section.
    pub shop: crate::ui::shop::ShopSettings,
    /// Settings → E-mail.
    pub mail: crate::ui::mail::MailSettings,
}

/// The application.
pub struct App {
    /// Saved preferences.
    pub saved: SavedState,
    /// The view shown.
    pub view: View,
    /// The zone times are shown and typed in: the machine's (a test may set a fixed one).
    pub zone: Zone,
    pub(crate) options: AppOptions,
    pub(crate) worker: Worker,
    pub(crate) ctx: egui::Context,
    /// What the desk holds (services, desk, profiles, catalog).
    pub holds: Holdings,
    /// The views and what each shows.
    pub views: Views,
    /// Where exports are written; `None` = where "Save QR as PNG" writes (Downloads, else
    /// home). Tests point it at a temporary folder.
    pub export_dir: Option<PathBuf>,
    pub(crate) commands: Vec<Command>,
    pub(crate) jobs: Vec<Pending<Msg>>,
    /// The background refresh of the board's open links and of the shown link.
    pub refresher: Refresher,
    /// Who is at the desk (staff on), the kept forms, the held command.
    pub staff: staff::StaffDesk,
    /// This desk in a shop: the session, whether the shop answers.
    pub shop: shop::ShopHold,
    /// The number of the last link-detail or cancel request sent (answers older than the one
    /// on screen are dropped by the result view).
    pub(crate) request_seq: u64,
    pub(crate) resend: Resend,
    /// The mail queue's sending passes (`send::MAIL_PASS_EVERY`).
    pub(crate) mail: send::MailPass,
    pub(crate) history_next: Option<crate::service::LinkCursor>,
    applied_theme: Option<ThemeChoice>,
    first_frame: Option<Instant>,
    /// The counter's speed, measured with `PAYDESK_PERF` set (`tests/perf/counter_speed.sh`).
    counter_perf: Option<CounterPerf>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("view", &self.view)
            .field("connection", &self.holds.connection)
            .field("jobs", &self.jobs.len())
            .finish_non_exhaustive()
    }
}

impl App {
    /// Starts the app: fonts, the worker, and the opening of the profile in the background.
    pub fn new(
        ctx: &egui::Context,
        saved: SavedState,
        options: AppOptions,
    ) -> Result<Self, WorkerError> {
        crate::ui::fonts::install(ctx);
        crate::ui::theme::install(ctx);
        let waker_ctx = ctx.clone();
        let worker = Worker::start(Arc::new(move || waker_ctx.request_repaint()))?;
        let mut app = Self {
            saved,
            view: View::NewLink,
            zone: Zone::Local,
            refresher: Refresher::new(Budget {
                board: options.board_pace,
                focused: Pace {
                    first: options.poll_interval,
                    max: options.poll_max,
                },
                gap: options.request_gap,
            }),
            request_seq: 0,
            resend: Resend {
                running: false,
                due: false,
                next: None,
                interval: options.resend_first,
            },
            mail: send::MailPass::default(),
            options,
            worker,
            ctx: ctx.clone(),
            holds: Holdings::default(),
            views: Views {
                new_link: NewLinkForm::new(String::new()),
                card: CardForm::default(),
                installments: InstallmentsForm::default(),
                history: HistoryView::default(),
                report: ReportView::default(),
                pending: PendingView::default(),
                board: BoardView::new(),
                catalog: CatalogView::default(),
                settings: SettingsView::default(),
                shown: None,
                customer: CustomerDisplay::default(),
                lock: crate::ui::staff::LockScreen::fresh(),
                approval: None,
                staff: crate::ui::staff::StaffSettings::default(),
                audit: crate::ui::audit::AuditView::default(),
                shop: crate::ui::shop::ShopSettings::default(),
                mail: crate::ui::mail::MailSettings::default(),
            },
            staff: staff::StaffDesk::default(),
            shop: shop::ShopHold::default(),
            export_dir: None,
            commands: Vec::new(),
            jobs: Vec::new(),
            history_next: None,
            applied_theme: None,
            first_frame: None,
            counter_perf: None,
        };
        app.first_frame = app.options.perf_start;
        app.counter_perf = app.options.perf_start.map(|_| CounterPerf {
            frame: (0, Instant::now()),
            sent: None,
            answered: None,
        });
        app.boot();
        Ok(app)
    }

    /// The name of the profile in use (or the one being opened).
    pub fn profile_name(&self) -> String {
        self.holds.desk.as_ref().map_or_else(
            || {
                self.options
                    .profile
                    .clone()
                    .or_else(|| self.saved.last_profile.clone())
                    .unwrap_or_else(|| crate::service::SANDBOX_PROFILE.to_owned())
            },
            |d| d.profile().name.clone(),
        )
    }

    /// Replaces the in-memory catalog and its barcode index together.
    pub(crate) fn set_catalog(&mut self, catalog: HashMap<String, CatalogVariant>) {
        self.holds.barcodes = BarcodeIndex::of(catalog.values());
        self.holds.catalog = catalog;
    }

    /// Whether the profile in use is a sandbox.
    pub fn is_sandbox(&self) -> bool {
        self.holds
            .desk
            .as_ref()
            .is_some_and(|d| d.profile().is_sandbox)
    }

    /// The base URL of the profile's server, once opened.
    pub fn base_url(&self) -> Option<String> {
        self.holds.desk.as_ref().map(|d| d.base_url().to_owned())
    }

    /// Whether background work is under way.
    pub fn is_busy(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// Whether pending rows are being sent again in the background right now.
    pub fn is_resending(&self) -> bool {
        self.resend.running
    }

    /// One whole frame: results in, draw, commands out. eframe calls it through
    /// [`eframe::App::ui`]; tests call it from a kittest harness.
    pub fn frame_ui(&mut self, ui: &mut egui::Ui) {
        if let Some(perf) = &mut self.counter_perf {
            perf.frame = (ui.ctx().cumulative_frame_nr(), Instant::now());
        }
        if self.applied_theme != Some(self.saved.theme) {
            ui.ctx().set_theme(self.saved.theme.preference());
            self.applied_theme = Some(self.saved.theme);
        }
        self.drain();
        self.watch_idle(&ui.ctx().clone());
        self.draw_ui(ui);
        self.perf_qr_painted();
        self.run_commands();
        self.schedule_board();
        self.schedule_resend();
        self.schedule_mail();
        if let Some(start) = self.first_frame.take() {
            // Read by tests/perf/startup.sh; only with PAYDESK_PERF set.
            eprintln!(
                "paydesk: first frame after {:.1} ms",
                start.elapsed().as_secs_f64() * 1000.0
            );
        }
    }
}

/// With `PAYDESK_PERF` set: when the frame that sent a create began (the one that received
/// Ctrl+Enter), and the frame its answer arrived in, each as (frame number, time); logged when
/// the first frame that paints the link's QR is drawn.
#[derive(Debug)]
struct CounterPerf {
    /// The frame being drawn: its number and when it began.
    frame: (u64, Instant),
    /// The frame that sent the create.
    sent: Option<(u64, Instant)>,
    /// The frame the server's answer arrived in.
    answered: Option<(u64, Instant)>,
}

impl App {
    /// A create was sent in this frame (`PAYDESK_PERF`).
    pub(crate) fn perf_sent(&mut self) {
        if let Some(perf) = &mut self.counter_perf {
            perf.sent = Some(perf.frame);
            perf.answered = None;
        }
    }

    /// The server's answer to a create arrived in this frame (`PAYDESK_PERF`).
    pub(crate) fn perf_answered(&mut self) {
        if let Some(perf) = &mut self.counter_perf
            && perf.sent.is_some()
        {
            perf.answered = Some((perf.frame.0, Instant::now()));
        }
    }

    /// After drawing: when this frame painted the QR of the link just made, one line on
    /// stderr (read by `tests/perf/counter_speed.sh`): frames and milliseconds from the frame
    /// that received Ctrl+Enter, and from the answer, to this frame.
    fn perf_qr_painted(&mut self) {
        let Some(perf) = &mut self.counter_perf else {
            return;
        };
        let (Some(sent), Some(answered)) = (perf.sent, perf.answered) else {
            return;
        };
        let painted = self.view == View::NewLink
            && self
                .views
                .shown
                .as_ref()
                .is_some_and(|s| s.origin() == Origin::Created && s.qr_drawn());
        if !painted {
            return;
        }
        let (frame, now) = (perf.frame.0, Instant::now());
        let ms = |since: Instant| now.duration_since(since).as_secs_f64() * 1000.0;
        eprintln!(
            "paydesk-perf: ctrl_enter_to_qr frames={} ms={:.1} answer_to_qr frames={} ms={:.1}",
            frame - sent.0,
            ms(sent.1),
            frame - answered.0,
            ms(answered.1)
        );
        perf.sent = None;
        perf.answered = None;
    }
}

impl eframe::App for App {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frame_ui(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, state::STORAGE_KEY, &self.saved);
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.close_shop();
    }
}
