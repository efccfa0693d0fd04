//! The real `App` in a kittest harness (no GPU, driven by role and label through AccessKit),
//! on a fresh data folder whose built-in `sandbox` profile starts the sandbox in-process: the
//! set-up and the steps every UI test file shares. A file adds its own options through
//! `configure` and its own helpers in an `impl` of its own.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

#[path = "../core_support/policy.rs"]
mod policy;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use paydesk::app::{App, AppOptions, Connection, SavedState};
use paydesk::clock::{Clock, SystemClock};
use paydesk::lang::Lang;
use paydesk::secrets::{OsSecrets, WithoutKeyring};
use paydesk::service::Services;
use paydesk::ui::theme::ThemeChoice;

/// The shop name the tests' Settings hold.
pub const SHOP: &str = "Kadıköy Kahve Evi";

/// Long enough that no background re-send of pending rows happens during a test.
pub const NEVER: Duration = Duration::from_hours(1);

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
    /// The window.
    pub harness: Harness<'static, Option<App>>,
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
        let mut options = AppOptions {
            data_dir: Some(dir.path().to_owned()),
            services: Some(Arc::clone(&services)),
            secrets: secrets.clone(),
            clock: start.clock,
            poll_interval: Duration::from_millis(100),
            poll_max: Duration::from_millis(400),
            notifier: Arc::new(paydesk::notify::RecordingNotifier::default()),
            // No background re-send unless a test asks (tests/ui_pending.rs).
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
        let app = App::new(&harness.ctx, saved, options).expect("test set-up");
        *harness.state_mut() = Some(app);
        let mut env = AppEnv {
            dir,
            services,
            secrets,
            harness,
        };
        env.until("the sandbox profile is open", |app| {
            app.connection == Connection::Connected && app.base_url().is_some() && !app.is_busy()
        });
        env
    }

    pub fn app(&self) -> &App {
        self.harness.state().as_ref().expect("test set-up")
    }

    pub fn app_mut(&mut self) -> &mut App {
        self.harness.state_mut().as_mut().expect("test set-up")
    }

    /// Steps frames (sleeping a little between them: the worker runs on real time) until
    /// `done` holds; fails after 15 s.
    pub fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            self.harness.step();
            if done(self.app()) {
                return;
            }
            assert!(Instant::now() < deadline, "timed out waiting until {what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Steps frames until a node whose label contains `label` is drawn; fails after 15 s.
    pub fn until_label(&mut self, label: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            self.harness.step();
            if self.harness.query_by_label_contains(label).is_some() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for `{label}`; the window holds {:#?}",
                self.harness.root()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Steps frames for `time` (background work may run meanwhile).
    pub fn wait(&mut self, time: Duration) {
        let end = Instant::now() + time;
        while Instant::now() < end {
            self.harness.step();
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn type_into(&mut self, label: &str, text: &str) {
        let field = self.harness.get_by_label(label);
        field.focus();
        field.type_text(text);
        self.harness.run_steps(2);
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
