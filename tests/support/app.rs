//! The real `App` in a kittest harness (no GPU, driven by role and label through AccessKit),
//! on a fresh data folder whose built-in `sandbox` profile starts the sandbox in-process: the
//! set-up and the steps every UI test file shares. Slips go to fake CUPS tools and
//! notifications are recorded. A file adds its own options through `configure` and its own
//! helpers in an `impl AppEnv` of its own.
//!
//! Frames run as eframe's event loop runs them: the next one when the app asks for it (the
//! worker's wake when a result is in, the app's own `request_repaint_after`), never on a
//! timer of the test's. Views are opened through the navigation, as a clerk does.

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use paydesk::app::{App, AppOptions, Connection, SavedState, View};
use paydesk::clock::{Clock, SystemClock};
use paydesk::lang::Lang;
use paydesk::notify::RecordingNotifier;
use paydesk::secrets::{OsSecrets, WithoutKeyring};
use paydesk::service::Services;
use paydesk::ui::theme::ThemeChoice;

use super::cups::FakeCups;
use super::policy;

/// The shop name the tests' Settings hold.
pub const SHOP: &str = "Kadıköy Kahve Evi";

/// Long enough that no background re-send of pending rows happens during a test.
pub const NEVER: Duration = Duration::from_hours(1);

/// How long a wait for the app may take before the test fails (a failure, not a pace: the
/// waits return as soon as their event happens).
const GIVE_UP: Duration = Duration::from_secs(15);

/// A frame the app asks for "later" is not due yet if it is further away than this: the
/// window counts as settled (see [`AppEnv::settle`]). Longer than any interval the tests'
/// options give the app's background work.
const QUIET: Duration = Duration::from_secs(2);

/// The app's requests for a frame now (the worker's wake when a result is in, an immediate
/// `request_repaint`), as eframe's event loop receives them.
#[derive(Debug, Default)]
struct Wakes {
    woken: Mutex<bool>,
    cond: Condvar,
}

impl Wakes {
    fn wake(&self) {
        *self.woken.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.cond.notify_all();
    }

    /// Blocks until a wake comes or `until` is reached, whichever is first; takes the wake.
    fn wait(&self, until: Instant) {
        let mut woken = self.woken.lock().unwrap_or_else(PoisonError::into_inner);
        while !*woken {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            woken = self
                .cond
                .wait_timeout(woken, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        *woken = false;
    }
}

/// How an app starts.
pub struct Start {
    /// The app's and the services' clock.
    pub clock: Arc<dyn Clock>,
    /// The window, in points.
    pub size: [f32; 2],
    /// The shop name of Settings.
    pub shop: String,
}

impl Default for Start {
    fn default() -> Self {
        Start {
            clock: Arc::new(SystemClock),
            size: [1400.0, 1000.0],
            shop: SHOP.to_owned(),
        }
    }
}

/// A running app and what the test needs around it.
pub struct AppEnv {
    /// The data folder.
    pub dir: tempfile::TempDir,
    /// The services the app runs on (the store, the embedded sandbox).
    pub services: Arc<Services>,
    /// The app's secret store.
    pub secrets: Arc<OsSecrets>,
    /// The fake CUPS tools slips go to (saved in its `saved` folder without a printer).
    pub cups: FakeCups,
    /// The notifications the app sent.
    pub notices: Arc<RecordingNotifier>,
    /// The window.
    pub harness: Harness<'static, Option<App>>,
    /// The app's requests for a frame.
    wakes: Arc<Wakes>,
}

impl AppEnv {
    /// Starts the app: `before` writes into the data folder before anything opens it,
    /// `configure` adjusts the options (and may use the services) before the window exists.
    /// Returns once the sandbox profile is open and idle.
    pub fn start(
        start: Start,
        before: impl FnOnce(&Path),
        configure: impl FnOnce(&mut AppOptions, &Services),
    ) -> AppEnv {
        let dir = tempfile::tempdir().expect("test set-up");
        before(dir.path());
        let secrets = Arc::new(OsSecrets::without_keyring(
            WithoutKeyring::ThisRunOnly,
            "tests use memory",
        ));
        let services = Arc::new(
            Services::open(dir.path(), secrets.clone(), Arc::clone(&start.clock), None)
                .expect("test set-up")
                .with_retry_policy(policy::FAST_POLICY),
        );
        let cups = FakeCups::new();
        let notices = Arc::new(RecordingNotifier::default());
        let mut options = AppOptions {
            data_dir: Some(dir.path().to_owned()),
            services: Some(Arc::clone(&services)),
            secrets: secrets.clone(),
            clock: start.clock,
            poll_interval: Duration::from_millis(100),
            poll_max: Duration::from_millis(400),
            notifier: notices.clone(),
            slip_sink: cups.sink(&cups.saved()),
            // No background re-send unless a test asks (tests/ui/pending.rs).
            resend_first: NEVER,
            resend_max: NEVER,
            ..AppOptions::default()
        };
        configure(&mut options, &services);
        let saved = SavedState {
            lang: Lang::En,
            theme: ThemeChoice::Light,
            last_profile: None,
            merchant_name: start.shop,
            ..SavedState::default()
        };
        let mut harness = Harness::builder().with_size(start.size).build_ui_state(
            |ui, app: &mut Option<App>| {
                if let Some(app) = app {
                    app.frame_ui(ui);
                }
            },
            None,
        );
        let wakes = Arc::new(Wakes::default());
        let on_request = Arc::clone(&wakes);
        // Later frames come from the output's repaint delay (see `next_frame`).
        harness.ctx.set_request_repaint_callback(move |info| {
            if info.delay.is_zero() {
                on_request.wake();
            }
        });
        let app = App::new(&harness.ctx, saved, options).expect("test set-up");
        *harness.state_mut() = Some(app);
        let mut env = AppEnv {
            dir,
            services,
            secrets,
            cups,
            notices,
            harness,
            wakes,
        };
        env.until("the sandbox profile is open", |app| {
            app.holds.connection == Connection::Connected
                && app.base_url().is_some()
                && !app.is_busy()
        });
        env
    }

    pub fn app(&self) -> &App {
        self.harness.state().as_ref().expect("test set-up")
    }

    pub fn app_mut(&mut self) -> &mut App {
        self.harness.state_mut().as_mut().expect("test set-up")
    }

    /// How long until the frame the app asked for last (`Duration::MAX`: none).
    fn repaint_delay(&self) -> Duration {
        self.harness
            .output()
            .viewport_output
            .values()
            .map(|v| v.repaint_delay)
            .min()
            .unwrap_or(Duration::MAX)
    }

    /// Waits for the next frame the app asks for: a wake (a worker's result is in) or the
    /// time it asked to be drawn again at, whichever is first; at most until `deadline`.
    fn next_frame(&self, deadline: Instant) {
        let at = Instant::now()
            .checked_add(self.repaint_delay())
            .map_or(deadline, |at| at.min(deadline));
        self.wakes.wait(at);
    }

    /// Runs frames as the app asks for them until `done` holds of the window; fails after
    /// `GIVE_UP`.
    pub fn until_ui(
        &mut self,
        what: &str,
        mut done: impl FnMut(&Harness<'static, Option<App>>) -> bool,
    ) {
        let deadline = Instant::now() + GIVE_UP;
        loop {
            self.harness.step();
            if done(&self.harness) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting until {what}; the window holds {:#?}",
                self.harness.root()
            );
            self.next_frame(deadline);
        }
    }

    /// Runs frames as the app asks for them until `done` holds of the app; fails after
    /// `GIVE_UP`.
    pub fn until(&mut self, what: &str, mut done: impl FnMut(&App) -> bool) {
        self.until_ui(what, |h| done(h.state().as_ref().expect("test set-up")));
    }

    /// Runs frames until the result view shows a link other than `previous`; that link.
    pub fn until_another_link_shown(
        &mut self,
        what: &str,
        previous: &str,
    ) -> paydesk::domain::Link {
        self.until(what, |app| {
            app.views
                .shown
                .as_ref()
                .is_some_and(|s| s.link().id != previous)
        });
        self.shown_link()
    }

    /// The link the result view shows (a copy); panics when it shows none.
    pub fn shown_link(&self) -> paydesk::domain::Link {
        self.app()
            .views
            .shown
            .as_ref()
            .expect("the result view shows a link")
            .link()
            .clone()
    }

    /// Runs frames until a node whose label contains `label` is drawn.
    pub fn until_label(&mut self, label: &str) {
        self.until_ui(&format!("`{label}` is drawn"), |h| {
            h.query_by_label_contains(label).is_some()
        });
    }

    /// Runs frames until some node's label contains `label` (it may be drawn more than once).
    pub fn until_shown(&mut self, label: &str) {
        self.until_ui(&format!("`{label}` is drawn"), |h| {
            h.query_all_by_label_contains(label).next().is_some()
        });
    }

    /// Runs frames until the app has nothing under way: no background job out, and no frame
    /// asked for sooner than `QUIET` (so no timed work about to start either). What a check
    /// that something did *not* happen waits for.
    pub fn settle(&mut self, what: &str) {
        let deadline = Instant::now() + GIVE_UP;
        loop {
            self.harness.step();
            if !self.app().is_busy() && self.repaint_delay() > QUIET {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting until {what}: the app stays busy"
            );
            self.next_frame(deadline);
        }
    }

    /// Opens `view` through its entry in the navigation (its name, maybe with a count after
    /// it: "Pending (1)"), as a clerk does.
    pub fn nav(&mut self, view: View) {
        let title = view.title().get(paydesk::lang::Lang::En);
        let counted = format!("{title} (");
        // The navigation is drawn before the view, whose heading may have the same name.
        let entry = self
            .harness
            .query_all_by(|n| {
                n.role() != egui::accesskit::Role::Label
                    && n.label()
                        .is_some_and(|l| l == title || l.starts_with(&counted))
            })
            .next()
            .unwrap_or_else(|| panic!("no navigation entry for {title}"));
        entry.click();
        self.until(&format!("{title} opens"), |app| app.view == view);
        self.harness.run_steps(2);
    }

    pub fn type_into(&mut self, label: &str, text: &str) {
        let field = self.harness.get_by_label(label);
        field.focus();
        field.type_text(text);
        self.harness.run_steps(2);
    }

    /// Whether New link's Create button can be pressed.
    pub fn create_button_enabled(&self) -> bool {
        !self
            .harness
            .get_by_role_and_label(egui::accesskit::Role::Button, "Create link")
            .accesskit_node()
            .is_disabled()
    }

    /// Clicks the widget labelled `label`; when the navigation has an entry of the same
    /// name ("New link", "Save card"), the one in the view (drawn last) is meant.
    pub fn click(&mut self, label: &str) {
        let node = self
            .harness
            .get_all_by_label(label)
            .last()
            .expect("a node with this label");
        node.click();
        self.harness.run_steps(2);
    }

    /// Unfolds the New link form's Options group (expiry, installments, partial payment) unless
    /// it is open already.
    pub fn open_options(&mut self) {
        if self
            .harness
            .query_by_label("Allow partial payment")
            .is_none()
        {
            self.click("Options");
        }
    }

    pub fn disabled(&self, label: &str) -> bool {
        self.harness
            .get_by_label(label)
            .accesskit_node()
            .is_disabled()
    }

    /// A request to one of the sandbox's admin routes; its body as text.
    pub fn admin(&self, method: reqwest::Method, path: &str, body: &str) -> String {
        let base = self.app().base_url().expect("test set-up");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("test set-up");
        rt.block_on(async {
            let r = paydesk::api::client::http_client_builder()
                .build()
                .expect("an HTTP client")
                .request(method, format!("{base}{path}"))
                .header("content-type", "application/json")
                .body(body.to_owned())
                .send()
                .await
                .expect("test set-up");
            assert!(r.status().is_success(), "{path}: {}", r.status());
            r.text().await.expect("test set-up")
        })
    }
}
