//! The handler tests' set-up: the real [`App`] without a window (a bare `egui::Context`), on
//! an in-memory store whose built-in sandbox profile starts the sandbox in-process. A test runs
//! a command or applies a result and looks at the state, or takes the worker's answers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::msg::Msg;
use super::{App, AppOptions, Command, Connection, SavedState};
use crate::clock::{Clock, SystemClock};
use crate::lang::Lang;
use crate::notify::RecordingNotifier;
use crate::secrets::{OsSecrets, SecretStore, WithoutKeyring};
use crate::service::Services;
use crate::worker::JobState;

/// How long a job may take before the test fails (a failure, not a pace).
const GIVE_UP: Duration = Duration::from_secs(20);

/// No background re-send during a test unless it asks for one.
const NEVER: Duration = Duration::from_hours(1);

/// An app whose sandbox profile is open (its start-up jobs done), in English.
pub(crate) fn app() -> App {
    let app = app_unbooted();
    let mut app = app;
    settle(&mut app);
    assert_eq!(
        app.holds.connection,
        Connection::Connected,
        "the sandbox opens"
    );
    app
}

/// An app whose profile is still being opened (no desk yet).
pub(crate) fn app_unbooted() -> App {
    let secrets: Arc<dyn SecretStore> = Arc::new(OsSecrets::without_keyring(
        WithoutKeyring::ThisRunOnly,
        "tests use memory",
    ));
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let services = Services::open_in_memory(Arc::clone(&secrets), Arc::clone(&clock))
        .expect("an in-memory store");
    let options = AppOptions {
        services: Some(Arc::new(services)),
        secrets,
        clock,
        notifier: Arc::new(RecordingNotifier::default()),
        resend_first: NEVER,
        resend_max: NEVER,
        ..AppOptions::default()
    };
    let saved = SavedState {
        lang: Lang::En,
        ..SavedState::default()
    };
    App::new(&egui::Context::default(), saved, options).expect("the worker starts")
}

/// Waits for `work` (a services call the test makes itself) on a runtime of its own.
pub(crate) fn block_on<T>(work: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(work)
}

/// Takes the answer of every job out, oldest first, without applying it.
pub(crate) fn answers(app: &mut App) -> Vec<Msg> {
    let deadline = Instant::now() + GIVE_UP;
    let mut out = Vec::new();
    for mut job in std::mem::take(&mut app.jobs) {
        match job.wait(deadline.saturating_duration_since(Instant::now())) {
            JobState::Ready(m) => out.push(m),
            JobState::Idle => {}
            JobState::Running => panic!("a job did not end within {GIVE_UP:?}"),
            JobState::Lost => panic!("a job was lost"),
        }
    }
    out
}

/// Runs `command` and returns what its jobs answered (not applied yet).
pub(crate) fn run(app: &mut App, command: Command) -> Vec<Msg> {
    app.run(command);
    answers(app)
}

/// Applies every job's answer, and those of the jobs they start, until none is left.
pub(crate) fn settle(app: &mut App) {
    while !app.jobs.is_empty() {
        for m in answers(app) {
            app.on_msg(m);
        }
    }
}

/// The one answer of a command.
pub(crate) fn only(mut msgs: Vec<Msg>) -> Msg {
    assert_eq!(msgs.len(), 1, "one answer: {msgs:?}");
    msgs.remove(0)
}

/// A validated request for a link of `amount` TRY with order number `order`.
pub(crate) fn link_request(order: &str, amount: &str) -> Box<crate::domain::LinkRequest> {
    let draft = crate::domain::link::LinkDraft {
        amount: amount.to_owned(),
        order_number: order.to_owned(),
        ..crate::domain::link::LinkDraft::default()
    };
    let catalog: Vec<crate::domain::CatalogVariant> = Vec::new();
    let ctx = crate::domain::link::LinkContext {
        now: chrono::Utc::now(),
        catalog: &catalog,
        limits: crate::domain::link::KeyLimits::default(),
    };
    Box::new(draft.validate(&ctx).expect("a valid link draft"))
}

/// Makes a link through the New link form's command and shows it, as a clerk does.
pub(crate) fn make_link(app: &mut App, order: &str) -> crate::domain::Link {
    app.run(Command::Link(crate::ui::LinkCommand::Create {
        request: link_request(order, "125.50"),
    }));
    settle(app);
    app.views
        .shown
        .as_ref()
        .expect("the link is shown")
        .link()
        .clone()
}

/// Journals a link creation of `order` that was never sent (as after a crash): an open row
/// of the Pending view. Returns its idempotency key.
pub(crate) fn pending_row(app: &App, order: &str) -> String {
    let request = link_request(order, "125.50");
    app.holds
        .desk
        .as_ref()
        .expect("the profile is open")
        .journal_unsent(&request)
        .expect("the row is journaled")
}
