//! The desk in a shop, in the real window (kittest): a shop whose PostgreSQL port accepts and
//! never answers leaves every frame quick and the top bar saying "Offline from the shop since
//! …" while links are still made; Settings' Shop database section refuses a URL holding a
//! password (naming it) and warns of `sslmode=disable` to another machine; and against the
//! private PostgreSQL of `tests/support/pg.rs` a wrong password gets its sentence, the right
//! one joins, the password is in no file of the data folder, and a link made after joining
//! reaches the shop. Another desk (the real binary on its own data folder) makes a link and
//! imports a catalog: the link is in this window's History with that desk's name (but not in
//! this desk's day close: it was made on that desk's own sandbox, another account), and the
//! catalog reaches the running window.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::support::app::{AppEnv, Start};
use crate::support::cli::{Cli, contains_bytes, files_under};
use crate::support::pg::{self, PASSWORD, Pg};
use egui_kittest::kittest::{NodeT, Queryable};
use paydesk::app::View;
use paydesk::domain::LinkStatus;
use paydesk::sandbox::{DEMO_API_KEY, DEMO_API_SECRET};
use paydesk::secrets::EnvSecret;
use paydesk::shop::session::Timing;
use paydesk::store::{Profile, Store};
use paydesk::ui::shop::ShopReach;
use zeroize::Zeroizing;

/// The URL field's label (under "Advanced" since issue 29: a shop owner fills fields).
const URL_FIELD: &str = "Connection URL";

/// Short waits, so a test sees several attempts.
fn quick() -> Timing {
    Timing {
        connect: Duration::from_millis(800),
        query: Duration::from_millis(800),
        backoff_first: Duration::from_millis(200),
        backoff_max: Duration::from_millis(400),
        ..Timing::default()
    }
}

/// A loopback port that accepts connections and never sends a byte (the thread and the
/// connections live until the test binary ends).
fn silent_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    port
}

impl AppEnv {
    /// Replaces the text of the field labelled `label`.
    /// Types a whole URL under "Advanced" (opened first when closed).
    fn replace_url(&mut self, url: &str) {
        if self.harness.query_by_label(URL_FIELD).is_none() {
            self.harness.get_by_label("Advanced").click();
            self.harness.run_steps(2);
        }
        self.replace_text(URL_FIELD, url);
    }

    /// Pastes what the owner's Add desk printed into "Paste join URL": the fields fill.
    fn paste_join_url(&mut self, url: &str) {
        self.harness
            .get_by_label("Paste join URL")
            .click_accesskit();
        self.harness.run_steps(2);
        self.replace_text("The address the owner's Add desk gave", url);
        self.until_shown("The fields were filled from the pasted address.");
    }

    fn replace_text(&mut self, label: &str, text: &str) {
        let field = self.harness.get_by_label(label);
        field.focus();
        self.harness
            .key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
        self.harness.get_by_label(label).type_text(text);
        self.harness.run_steps(2);
    }

    /// Presses the node labelled `label` through its accessibility action, wherever it is
    /// (the owner's part is at the foot of Settings, below the window's fold).
    fn click_below(&mut self, label: &str) {
        self.harness
            .get_all_by_label(label)
            .last()
            .expect("a node with this label")
            .click_accesskit();
        self.harness.run_steps(2);
    }

    /// Runs frames until `sql` in the shop's database `db` answers `want`.
    fn until_sql(&mut self, pg: &Pg, db: &str, sql: &str, want: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            self.harness.step();
            if pg.admin_sql(db, sql) == want {
                return;
            }
            assert!(Instant::now() < deadline, "timed out waiting until {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Makes a link of `amount` on the New link form and waits until it is shown.
    fn create_link_of(&mut self, amount: &str) {
        self.type_into("Amount", amount);
        self.click("Create link");
        self.until("the link is shown", |app| app.views.shown.is_some());
    }

    fn shown(&self, label: &str) -> bool {
        self.harness
            .query_all_by_label_contains(label)
            .next()
            .is_some()
    }
}

#[test]
fn the_offline_line_never_runs_under_language_and_theme_in_either_language() {
    let port = silent_port();
    let url = format!("postgres://desk@127.0.0.1:{port}/shop");
    for (lang, width) in [
        (paydesk::lang::Lang::En, 1280.0),
        (paydesk::lang::Lang::Tr, 1280.0),
        (paydesk::lang::Lang::Tr, 1024.0),
    ] {
        let mut env = AppEnv::start(
            Start {
                size: [width, 768.0],
                ..Start::default()
            },
            |dir| {
                let mut store = Store::open(dir).expect("the data file");
                store
                    .join_shop(&url, chrono::Utc::now())
                    .expect("the desk joined");
            },
            |options, _| {
                options.env_shop = EnvSecret::new(Some(Zeroizing::new("pw".to_owned())));
                options.shop_timing = quick();
            },
        );
        env.app_mut().saved.lang = lang;
        let offline = match lang {
            paydesk::lang::Lang::Tr => "Mağazaya bağlantı yok",
            paydesk::lang::Lang::En => "Offline from the shop since",
        };
        env.until_shown(offline);
        env.harness.run_steps(2);
        let line = env
            .harness
            .query_all_by_label_contains(offline)
            .next()
            .expect("the offline line")
            .rect();
        // Language and Theme live in the member's menu now (issue 29): its button is what
        // the line must not run under.
        let menu = paydesk::ui::text::UiText::MemberMenuHelp.get(lang);
        let r = env
            .harness
            .query_all_by(|n| {
                n.role() == egui::accesskit::Role::Button
                    && n.label().is_some_and(|l| l.ends_with(menu))
            })
            .next()
            .expect("the member's menu")
            .rect();
        assert!(
            !line.intersects(r),
            "{lang:?} at {width}: the offline line {line:?} runs under the menu {r:?}"
        );
    }
}

#[test]
fn a_shop_that_accepts_and_never_answers_leaves_frames_quick_and_the_desk_offline() {
    let port = silent_port();
    let url = format!("postgres://desk@127.0.0.1:{port}/shop");
    let start = std::time::SystemTime::now();
    let mut env = AppEnv::start(
        Start::default(),
        |dir| {
            let mut store = Store::open(dir).expect("the data file");
            store
                .join_shop(&url, chrono::Utc::now())
                .expect("the desk joined");
        },
        |options, _| {
            options.env_shop = EnvSecret::new(Some(Zeroizing::new("pw".to_owned())));
            options.shop_timing = quick();
        },
    );
    // Frames while the first attempts hang on the silent port: none waits for it.
    let mut slowest = Duration::ZERO;
    let mut frames = 0;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !env.shown("Offline from the shop since") {
        let t = Instant::now();
        env.harness.step();
        slowest = slowest.max(t.elapsed());
        frames += 1;
        assert!(Instant::now() < deadline, "the top bar never said offline");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The attempt hung for the whole connect limit (800 ms), and no frame took 300 ms: at
    // least three frames were drawn meanwhile, however loaded the machine.
    assert!(frames >= 3, "frames kept coming: {frames}");
    assert!(
        slowest < Duration::from_millis(300),
        "no frame waits on PostgreSQL: the slowest took {slowest:?}"
    );
    let ShopReach::Offline { since, .. } = &env.app().shop.reach else {
        panic!("offline: {:?}", env.app().shop.reach);
    };
    let started: chrono::DateTime<chrono::Utc> = start.into();
    assert!(
        *since >= started - chrono::Duration::seconds(1) && *since <= chrono::Utc::now(),
        "offline since the first attempt: {since}"
    );
    assert!(
        env.shown("Offline from the shop since") && env.shown(", showing this desk only"),
        "the whole line"
    );
    // Several attempts later the moment is the same, and frames are still quick.
    let first = *since;
    for _ in 0..40 {
        let t = Instant::now();
        env.harness.step();
        assert!(t.elapsed() < Duration::from_millis(300));
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(matches!(&env.app().shop.reach, ShopReach::Offline { since, .. } if *since == first));
    // Selling goes on.
    env.create_link_of("40");
    assert!(env.shown("Offline from the shop since"));
}

#[test]
fn a_password_in_the_url_is_refused_naming_it_and_each_weakness_of_a_url_is_a_warning() {
    let mut env = AppEnv::start(Start::default(), |_| {}, |_, _| {});
    env.nav(View::Settings);
    env.until_shown("Shop database");
    assert!(env.disabled("Join the shop"), "nothing typed yet");
    env.replace_url("postgres://desk:hunter2@db.example/shop");
    // The error shows once the field is left.
    env.harness.get_by_label("Password").focus();
    env.harness.run_steps(2);
    env.until_shown("The shop URL holds a password");
    assert!(env.disabled("Join the shop"));
    env.replace_url("postgres://desk@db.example/shop?sslmode=disable");
    env.until_shown("Warning: the connection to the shop is not encrypted (sslmode=disable)");
    assert!(env.shown("Type the password to join."));
    assert!(!env.shown("The shop URL holds a password"));
    // Each thing a URL gives up is said before joining: an unchecked server, then no
    // channel binding; a strict URL says nothing of the kind.
    env.replace_url("postgres://desk@db.example/shop?sslmode=require");
    env.until_shown("Warning: sslmode=require encrypts but does not check");
    assert!(!env.shown("Warning: channel binding is not required"));
    env.replace_url(
        "postgres://desk@db.example/shop?sslmode=verify-full&sslrootcert=/ca.pem&channel_binding=disable",
    );
    env.until_shown("Warning: channel binding is not required");
    assert!(!env.shown("Warning: sslmode=require encrypts but does not check"));
    env.replace_url("postgres://desk@db.example/shop?sslmode=verify-full&sslrootcert=/ca.pem");
    env.until_shown("Type the password to join.");
    assert!(!env.shown("Warning: channel binding is not required"));
}

#[test]
fn the_owner_sets_the_shop_up_adds_a_desk_and_shuts_it_out_from_settings() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.empty_db();
    let mut env = AppEnv::start(
        Start::default(),
        |_| {},
        |options, _| options.shop_timing = quick(),
    );
    env.nav(View::Settings);
    env.until_shown("Shop database");
    env.click_below("Shop owner: set up the shop and its desks");
    env.until_shown("Owner's address (postgres://OWNER@HOST/DATABASE)");
    assert!(
        env.disabled("Set up or update the shop"),
        "nothing typed yet"
    );
    env.replace_text(
        "Owner's address (postgres://OWNER@HOST/DATABASE)",
        &pg.owner_url(&db),
    );
    env.replace_text("Owner's password", PASSWORD);
    env.click_below("Set up or update the shop");
    let latest = paydesk::shop::schema::latest_version();
    env.until_shown(&format!("The shop is ready (schema version 0 → {latest})."));
    assert!(env.shown("No desk has a login yet."));

    // The shop's first manager: a PIN that is not 4 to 8 digits is named and sends nothing.
    env.replace_text("Manager's name", "Zeynep");
    env.replace_text("Manager's PIN (4-8 digits)", "12");
    assert!(env.shown("The PIN must be 4 to 8 digits."));
    assert!(env.disabled("Add manager or set PIN"));
    env.replace_text("Manager's PIN (4-8 digits)", "9999");
    env.click_below("Add manager or set PIN");
    env.until_shown("Zeynep is now a manager of the shop and can sign in at every joined desk.");
    assert!(
        pg.admin_sql(
            &db,
            "SELECT shop_verifier FROM staff WHERE folded = 'zeynep'"
        )
        .starts_with("$2a$10$"),
        "only a verifier of the PIN is in the shop"
    );

    env.replace_text("New desk's name", "Kasa 3");
    env.click_below("Add desk");
    env.until_shown("Kasa 3 joins with this address and password");
    let login = format!("{db}_desk_1");
    assert!(env.shown(&format!("postgres://{login}@localhost:")));
    assert!(env.shown("not joined yet"));
    // The password is on screen once: 24 letters and digits, and it lets that desk in.
    let password = env
        .harness
        .query_all_by(|n| {
            n.value()
                .is_some_and(|l| l.len() == 24 && l.chars().all(|c| c.is_ascii_alphanumeric()))
        })
        .next()
        .and_then(|n| n.accesskit_node().value())
        .expect("the new desk's password is shown");
    let mut kasa = Cli::new();
    kasa.env("PAYDESK_SHOP_PASSWORD", &password);
    let joined = kasa.run(&[
        "shop",
        "join",
        &pg.url_as(&login, "localhost", &db, &pg.verify_full()),
    ]);
    assert_eq!(joined.code, 0, "{joined:?}");

    env.click_below("List desks");
    let deadline = Instant::now() + Duration::from_secs(10);
    while env.shown("not joined yet") {
        assert!(
            Instant::now() < deadline,
            "the list never showed the desk joined"
        );
        env.harness.step();
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !env.shown(&password),
        "a new desk's password is shown once, until the next step answers"
    );
    env.click_below("Remove");
    env.until_shown("Kasa 3 can no longer connect to the shop");
    env.click_below("Remove desk");
    env.until_shown("Kasa 3 can no longer connect (0 sessions ended)");
    assert!(env.shown("Removed"));
    assert_eq!(
        pg.admin_sql(
            "postgres",
            &format!("SELECT rolcanlogin FROM pg_roles WHERE rolname = '{login}'")
        ),
        "f"
    );
    // Leaving Settings drops the owner's password from the form.
    env.nav(View::Board);
    env.nav(View::Settings);
    env.until_shown("Owner's password");
    assert!(
        env.disabled("List desks"),
        "the owner's password was dropped"
    );
}

#[test]
fn settings_join_a_real_shop_after_a_wrong_password_and_keep_the_password_out_of_the_file() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    let mut env = AppEnv::start(
        Start::default(),
        |_| {},
        |options, _| options.shop_timing = quick(),
    );
    env.nav(View::Settings);
    env.until_shown("Shop database");
    // A shop owner fills fields (issue 29), never a postgres:// URL on the main screen.
    assert!(!env.shown("postgres://"));
    let port = url
        .split_once("@localhost:")
        .and_then(|(_, rest)| rest.split_once('/'))
        .map(|(port, _)| port.to_owned())
        .expect("the cluster's port");
    env.replace_text("Shop server", "localhost");
    env.replace_text("Server port", &port);
    env.replace_text("Database", &db);
    env.replace_text("This desk's login", pg::ROLE);
    env.replace_text("CA file (certificate)", &pg.ca_pem.display().to_string());
    // The URL the fields make is the shop's, under Advanced.
    let built = paydesk::ui::shop::url_from_fields(env.app().views.shop.fields());
    assert_eq!(
        paydesk::shop::ShopUrl::parse(&built).expect("the fields make a URL"),
        paydesk::shop::ShopUrl::parse(&url).expect("the cluster's URL")
    );
    env.replace_text("Password", "not the password");
    // Test connection asks the shop through the worker, joins nothing, says why not.
    env.click_below("Test connection");
    env.until_shown("PostgreSQL refused the password for the user desk.");
    assert!(env.app().shop.url.is_none(), "a test joins nothing");
    env.click_below("Join the shop");
    env.until_shown("This desk goes on working alone meanwhile.");
    assert!(env.shown("PostgreSQL refused the password for the user desk."));
    assert!(env.app().shop.url.is_none(), "nothing recorded");
    assert_eq!(
        env.services
            .inspect(|s| Ok(s.shop().desk()?.shop_url))
            .expect("the data file"),
        None
    );
    env.replace_text("Password", PASSWORD);
    env.click_below("Test connection");
    env.until_shown("The shop answered: the login and password work.");
    assert!(env.app().shop.url.is_none(), "a test joins nothing");
    env.click_below("Join the shop");
    env.until_shown("This desk joined the shop.");
    // Joined: where, in words; the URL only under Advanced.
    assert!(env.shown(&format!("{db} on localhost, as desk")));
    assert!(!env.shown("postgres://"));
    // The tests' secret store has no keyring: kept for this run, and said so.
    assert!(env.shown("the password is kept only until paydesk closes"));
    env.until("the session is online", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    assert!(env.shown("Connected to the shop since"));
    assert!(env.shown("Leave the shop"));
    let desk_id = env.app().shop.desk.as_ref().expect("the desk").id.clone();
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!("SELECT count(*) FROM desks WHERE desk_id = '{desk_id}'")
        ),
        "1",
        "the desk is registered"
    );
    another_desks_link_is_on_the_board_within_two_seconds(&mut env, &pg, &db);
    // A link made now is in the outbox, and the session pushes it.
    env.nav(View::NewLink);
    env.create_link_of("40");
    let id = env.shown_link().id;
    env.until_sql(
        &pg,
        &db,
        &format!("SELECT count(*) FROM links WHERE link_id = '{id}'"),
        "1",
        "the link reaches the shop",
    );
    // Its status is asked through the shop's lease: the shop records this desk as its
    // poller.
    env.until_sql(
        &pg,
        &db,
        &format!("SELECT desk_id FROM poll_leases WHERE link_id = '{id}'"),
        &desk_id,
        "the link is asked through the lease",
    );
    assert_no_file_holds(env.dir.path(), PASSWORD);
    // Leaving stops the session and forgets the shop; the desk works alone.
    env.nav(View::Settings);
    // Asked again first, saying what leaving costs; staying changes nothing.
    let question =
        "The password is removed from the keyring; this desk's links and unsent changes stay.";
    env.click("Leave the shop");
    env.until_shown(question);
    env.click("Stay in the shop");
    env.harness.run_steps(4);
    assert!(env.app().shop.url.is_some(), "still joined");
    env.click("Leave the shop");
    env.until_shown(question);
    env.click("Leave the shop");
    env.until_shown("This desk left the shop and works alone now.");
    assert!(matches!(env.app().shop.reach, ShopReach::NotJoined));
    assert!(env.app().shop.url.is_none());
    assert_eq!(
        pg.admin_sql(
            &db,
            &format!("SELECT count(*) FROM poll_leases WHERE desk_id = '{desk_id}' AND expires_at > now()"),
        ),
        "0",
        "leaving lets the next desk take this desk's links at once"
    );
}

/// Joined through Settings, then the shop's PostgreSQL stops: the top bar says offline, a
/// link made meanwhile waits in the outbox, and once PostgreSQL is back the session connects
/// again by itself and the link reaches the shop once.
#[test]
fn links_made_while_the_shop_is_down_reach_it_when_it_is_back() {
    let Some(pg) = pg::alone() else { return };
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    let mut env = AppEnv::start(
        Start::default(),
        |_| {},
        |options, _| {
            options.env_shop = EnvSecret::new(Some(Zeroizing::new(PASSWORD.to_owned())));
            options.shop_timing = quick();
        },
    );
    env.nav(View::Settings);
    env.until_shown("PAYDESK_SHOP_PASSWORD gives the password for this run");
    env.paste_join_url(&url);
    // The field left empty: the environment's password, not stored.
    env.click_below("Join the shop");
    env.until_shown("The password came from PAYDESK_SHOP_PASSWORD and was not stored");
    env.until("the session is online", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    pg.stop_immediate();
    env.until_shown("Offline from the shop since");
    env.nav(View::NewLink);
    env.create_link_of("40");
    let id = env.shown_link().id;
    assert_eq!(
        env.services
            .inspect(|s| s.outbox().count())
            .expect("the outbox"),
        1,
        "the link waits in the outbox"
    );
    pg.start();
    env.until("the session is online again", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    env.until_sql(
        &pg,
        &db,
        &format!("SELECT count(*) FROM links WHERE link_id = '{id}'"),
        "1",
        "the link reaches the shop",
    );
    assert!(!env.shown("Offline from the shop since"));
    assert_eq!(
        env.services
            .inspect(|s| s.outbox().count())
            .expect("the outbox"),
        0,
        "the outbox drained"
    );
}

/// A desk that joined on an earlier run of a computer without a keyring has no password now:
/// the top bar says offline, Settings says why and asks for the password, and giving it
/// connects.
#[test]
fn a_desk_without_its_password_asks_for_it_in_settings_and_connects() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    let mut env = AppEnv::start(
        Start::default(),
        |dir| {
            let mut store = Store::open(dir).expect("the data file");
            store
                .join_shop(&url, chrono::Utc::now())
                .expect("the desk joined");
        },
        |options, _| options.shop_timing = quick(),
    );
    env.until_shown("Offline from the shop since");
    env.nav(View::Settings);
    env.until_shown("No password for the shop");
    assert!(env.disabled("Keep the password and connect"));
    env.replace_text("Password", PASSWORD);
    env.click("Keep the password and connect");
    env.until_shown("This desk joined the shop.");
    env.until("the session is online", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    assert!(!env.shown("Offline from the shop since"));
}

/// Another desk's link, written to the shop: its NOTIFY brings it to this board within 2 s,
/// named with its desk and clerk, and this desk never asks the server about it.
fn another_desks_link_is_on_the_board_within_two_seconds(env: &mut AppEnv, pg: &Pg, db: &str) {
    pg.admin_sql(
        db,
        "INSERT INTO desks VALUES ('C2XX', 'Counter 2', now(), now());
         INSERT INTO links (base_url, api_key_id, sandbox_desk, link_id, desk_id, staff,
             order_number, status, currency, amount, paid_amount, stored_at, observed_at, answer)
         VALUES ('', '', 'C2XX', 'other-1', 'C2XX', 'Ayşe', 'PD-C2', 'PENDING', 'TRY', 75, 0,
             now(), now(), '{\"id\": \"other-1\", \"status\": \"PENDING\", \"amount\": 75.00,
             \"currency\": \"TRY\", \"orderNumber\": \"PD-C2\"}')",
    );
    let written = Instant::now();
    env.until("the other desk's link is on the board", |app| {
        app.views
            .board
            .rows()
            .iter()
            .any(|r| r.link.id == "other-1")
    });
    eprintln!(
        "another desk's link on the board after {:?}",
        written.elapsed()
    );
    // Through the notification, not the slow poll (30 s): the 2 s the issue asks for is a
    // figure of docs/benchmarks.md; on a loaded machine a test only tells the two apart.
    assert!(
        written.elapsed() < Duration::from_secs(10),
        "on the board after {:?}",
        written.elapsed()
    );
    let row = env
        .app()
        .views
        .board
        .rows()
        .iter()
        .find(|r| r.link.id == "other-1")
        .expect("the row");
    assert_eq!(row.staff.as_deref(), Some("Counter 2 · Ayşe"));
    assert!(
        env.app().refresher.interval_of("other-1").is_none(),
        "not polled from here"
    );
}

/// No file under `dir` holds `secret`.
fn assert_no_file_holds(dir: &std::path::Path, secret: &str) {
    for file in files_under(dir) {
        let bytes = std::fs::read(&file).expect("a readable file");
        assert!(
            !contains_bytes(&bytes, secret.as_bytes()),
            "{} holds the secret",
            file.display()
        );
    }
}

/// A fresh shop database's URL, checked in full.
fn shop_url(pg: &Pg) -> (String, String) {
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    (db, url)
}

/// Another desk: the real binary on its own data folder, joined to `url` as `name`.
fn other_desk(url: &str, name: &str) -> Cli {
    other_desk_with(url, name, |_| {})
}

/// Another desk that does `before` on its own, then joins `url` as `name` and syncs.
fn other_desk_with(url: &str, name: &str, before: impl FnOnce(&Cli)) -> Cli {
    let mut other = Cli::new();
    other.env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/paydesk-bus",
    );
    before(&other);
    other.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    assert_eq!(other.run(&["shop", "join", url]).code, 0);
    assert_eq!(other.run(&["shop", "name", name]).code, 0);
    assert_eq!(other.run(&["shop", "sync"]).code, 0);
    other
}

/// A desk that sold alone from a catalog of two items, Çay and Simit, and brings it to the
/// shop at `url`, which has none, by joining it (a manager's import is the other way in).
fn office_with_tea_and_simit(url: &str) -> Cli {
    other_desk_with(url, "Back office", |desk| {
        let csv = desk.data_dir().join("catalog.csv");
        std::fs::write(
            &csv,
            "id,name,unit_price,currency\nvar_cay,Çay,15.00,TRY\nvar_simit,Simit,25.00,TRY\n",
        )
        .expect("the CSV is written");
        let imported = desk.run(&["catalog", "import", csv.to_str().expect("a UTF-8 path")]);
        assert_eq!(imported.code, 0, "{imported:?}");
    })
}

/// This desk's window, joined to `url`, online (reads given room on a loaded machine).
fn joined_window(url: &str) -> AppEnv {
    joined_window_on(url, None)
}

/// This desk's window, joined to `url`, online, on the profile `shared` at `account` (the
/// demo key) when one is given, else on its built-in sandbox.
fn joined_window_on(url: &str, account: Option<&str>) -> AppEnv {
    let url = url.to_owned();
    let account = account.map(str::to_owned);
    let mut env = AppEnv::start(
        Start::default(),
        move |dir| {
            let mut store = Store::open(dir).expect("the data file");
            store
                .join_shop(&url, chrono::Utc::now())
                .expect("the desk joined");
        },
        |options, services| {
            if let Some(base_url) = account {
                let now = chrono::Utc::now();
                let profile = Profile::new("shared", &base_url, DEMO_API_KEY);
                services
                    .inspect(|s| s.profile_add(&profile, now))
                    .expect("the profile is added");
                services
                    .secrets()
                    .set("shared", DEMO_API_KEY, DEMO_API_SECRET)
                    .expect("its secret is kept");
                options.profile = Some("shared".into());
            }
            options.env_shop = EnvSecret::new(Some(Zeroizing::new(PASSWORD.to_owned())));
            options.shop_timing = Timing {
                query: Duration::from_secs(5),
                ..quick()
            };
        },
    );
    env.until("the session is online", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    env
}

#[test]
fn another_desks_link_is_in_history_with_its_desk_but_not_in_this_accounts_day_close() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    // Counter 2's link reaches the shop before its command ends.
    let other = other_desk(&url, "Counter 2");
    let made = other.link_create(
        "sandbox",
        &["--amount", "75", "--description", "Table 7 at counter two"],
    );
    assert_eq!(made.code, 0, "{made:?}");
    assert_eq!(pg.admin_sql(&db, "SELECT count(*) FROM links"), "1");
    let mut env = joined_window(&url);
    env.nav(View::History);
    env.until_label("Table 7 at counter two");
    assert!(
        env.shown("Counter 2"),
        "the row names the desk that made it"
    );
    assert!(env.shown("Desk"), "with a Desk column");
    assert!(env.shown("Every desk's links in the shop"));
    // The totals line counts the shop's rows (Counter 2's link), not this desk's (none).
    env.until_label("1 link");
    // Another desk's link opens from History although this desk's file does not hold it.
    // (A row of the one table is read at once, its description last: issue 29.)
    env.harness
        .get_by_label_contains("Table 7 at counter two")
        .click();
    env.harness.run_steps(2);
    env.until("the other desk's link is shown", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.link().description.as_deref() == Some("Table 7 at counter two"))
    });
    env.nav(View::History);

    // The day close is this desk's account's: Counter 2's link was made on Counter 2's own
    // built-in sandbox, so its money is not in it (a sandbox's never adds to another account).
    env.nav(View::NewLink);
    env.create_link_of("40");
    env.nav(View::Report);
    env.until_label("By desk");
    assert!(env.shown("Figures come from every desk of the shop"));
    let report = env.app().views.report.report().cloned().expect("a report");
    assert_eq!(report.links, 1, "{report:?}");
    assert_eq!(report.by_desk.len(), 1, "{report:?}");
    assert_ne!(report.by_desk[0].name, "Counter 2");
}

#[test]
fn a_catalog_imported_at_another_desk_reaches_this_window_without_a_restart() {
    let Some(pg) = pg::cluster() else { return };
    let (_db, url) = shop_url(&pg);
    let mut env = joined_window(&url);
    assert!(env.app().holds.catalog.is_empty());
    // The back office brings its catalog; the shop tells this desk, which mirrors it.
    office_with_tea_and_simit(&url);
    env.until("the shop's catalog is on this desk", |app| {
        app.holds.catalog.len() == 2
    });
    assert_eq!(
        env.app()
            .holds
            .catalog
            .get("var_cay")
            .map(|v| v.name.clone()),
        Some("Çay".to_owned())
    );
}

#[test]
fn a_change_the_shop_cannot_take_is_said_in_the_top_bar_and_kept() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut env = joined_window(&url);
    // A damaged row in the outbox (a disk error, a hand edit): every push stops at it.
    let file = rusqlite::Connection::open(env.dir.path().join("paydesk.sqlite3"))
        .expect("the data file opens");
    file.execute(
        "INSERT INTO shop_outbox (at, kind, payload) VALUES (0, 'link', '{not json')",
        [],
    )
    .expect("a damaged row");
    env.until("the top bar says changes are stuck", |app| {
        app.shop.push_failed.is_some()
    });
    env.harness.run_steps(2);
    assert!(env.shown("Changes are not reaching the shop; kept on this desk"));
    assert!(matches!(env.app().shop.reach, ShopReach::Online { .. }));
    let kept: i64 = file
        .query_row("SELECT count(*) FROM shop_outbox", [], |r| r.get(0))
        .expect("counted");
    assert_eq!(kept, 1, "nothing is dropped");
    assert_eq!(pg.admin_sql(&db, "SELECT count(*) FROM links"), "0");
}

#[test]
fn day_close_refresh_waits_for_the_shops_one_budget_and_asks_nothing_while_it_is_taken() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut env = joined_window(&url);
    env.create_link_of("40");
    // Other desks hold the shop's turn to ask for the next hour.
    pg.admin_sql(
        &db,
        "UPDATE poll_budget SET next_at = clock_timestamp() + interval '1 hour'",
    );
    env.admin(reqwest::Method::DELETE, "/sandbox/requests", "");
    env.nav(View::Report);
    env.until_label("By desk");
    env.click("Refresh");
    env.until("the refresh ended", |app| {
        app.views
            .report
            .refresh()
            .is_some_and(|r| r.total.is_some_and(|t| t == r.done))
    });
    assert!(
        env.app()
            .views
            .report
            .refresh()
            .is_some_and(|r| r.total == Some(1) && r.failed),
        "the open link was not refreshed: {:?}",
        env.app().views.report.refresh()
    );
    let seen: serde_json::Value =
        serde_json::from_str(&env.admin(reqwest::Method::GET, "/sandbox/requests", ""))
            .expect("the request log is JSON");
    let details = seen["content"]["recent"]
        .as_array()
        .expect("a list of requests")
        .iter()
        .filter(|r| r["endpoint"] == "link.detail")
        .count();
    assert_eq!(
        details, 0,
        "nothing asked outside the shop's budget: {seen}"
    );
}

#[test]
fn a_link_of_a_desk_that_stopped_is_polled_here_and_turns_paid_on_this_board_only() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    // Both desks on one account: the same server and API key.
    let sandbox = crate::support::cli::sandbox();
    let mut other = other_desk(&url, "Counter 2");
    other.add_profile("shared", &sandbox);
    let made = other.link_create(
        "shared",
        &["--amount", "64", "--description", "Counter two's", "--json"],
    );
    assert_eq!(made.code, 0, "{made:?}");
    let id = made.json()["id"]
        .as_str()
        .expect("the link's id")
        .to_owned();
    // Counter 2's command has ended: nobody asks about its link, and nobody holds its lease.
    let mut env = joined_window_on(&url, Some(&sandbox.base_url()));
    env.until("Counter 2's link is on this board and followed", |app| {
        app.views.board.rows().iter().any(|r| r.link.id == id)
            && app.refresher.interval_of(&id).is_some()
    });
    sandbox.admin().pay(&id, None).expect("the link is paid");
    env.until("the board says it is paid", |app| {
        app.views
            .board
            .rows()
            .iter()
            .any(|r| r.link.id == id && r.link.status == LinkStatus::Completed)
    });
    // The shop has the answer under the desk that made the link.
    env.until_sql(
        &pg,
        &db,
        &format!(
            "SELECT l.status || ' ' || d.name FROM links l JOIN desks d USING (desk_id)
             WHERE link_id = '{id}'"
        ),
        "COMPLETED Counter 2",
        "the shop's row is paid and still Counter 2's",
    );
    // This desk asked the server for it, and kept it out of its own history and alerts.
    let asked = sandbox
        .admin()
        .requests()
        .into_iter()
        .filter(|r| r.endpoint == paydesk::api::endpoints::LINK_DETAIL.name)
        .count();
    assert!(asked >= 1, "this desk polled the link");
    let own = env
        .services
        .inspect(|s| s.links().get("shared", &id))
        .expect("the data file answers");
    assert!(
        own.is_none(),
        "another desk's link is not in this desk's history: {own:?}"
    );
    assert!(
        env.notices.notices().is_empty(),
        "the paid alert is for the desk that made the link: {:?}",
        env.notices.notices()
    );
}

#[test]
fn closing_the_window_gives_the_desks_poll_leases_back_at_once() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut env = joined_window(&url);
    env.create_link_of("40");
    let live = "SELECT count(*) FROM poll_leases WHERE expires_at > clock_timestamp()";
    env.until_sql(&pg, &db, live, "1", "the shown link's lease is this desk's");
    assert!(env.app_mut().close_shop(), "the session ended in time");
    assert_eq!(
        pg.admin_sql(&db, live),
        "0",
        "the lease is free for the next desk now, not in 8 s"
    );
}

#[test]
fn joining_a_shop_with_its_own_catalog_says_so_and_sells_from_it_at_once() {
    let Some(pg) = pg::cluster() else { return };
    let (_db, url) = shop_url(&pg);
    // The back office joined first and brought the shop's catalog.
    office_with_tea_and_simit(&url);
    // This desk sold alone from a catalog of its own.
    let mut env = AppEnv::start(
        Start::default(),
        |dir| {
            Store::open(dir)
                .expect("the data file")
                .catalog_import_csv(&b"id,name,unit_price,currency\nvar_tost,Tost,60.00,TRY\n"[..])
                .expect("its own catalog");
        },
        |options, _| {
            options.env_shop = EnvSecret::new(Some(Zeroizing::new(PASSWORD.to_owned())));
            options.shop_timing = quick();
        },
    );
    env.until("its own catalog is loaded", |app| {
        app.holds.catalog.contains_key("var_tost")
    });
    env.nav(View::Settings);
    env.until_shown("Shop database");
    env.paste_join_url(&url);
    env.click_below("Join the shop");
    env.until_shown("This desk joined the shop.");
    assert!(
        env.shown(
            "The shop's catalog replaced this desk's (items in the shop: 2, here before: 1)."
        ),
        "the note says what the join replaced"
    );
    env.until("the shop's catalog is the one sold from", |app| {
        app.holds.catalog.contains_key("var_cay") && !app.holds.catalog.contains_key("var_tost")
    });
}

#[test]
fn a_manager_signs_in_through_the_shop_sees_its_chain_head_and_locking_ends_the_sign_in() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    // Another desk's sale is in the shop's chain.
    let other = other_desk(&url, "Counter 2");
    assert_eq!(other.link_create("sandbox", &["--amount", "30"]).code, 0);
    assert_eq!(other.run(&["shop", "sync"]).code, 0);
    let mut env = joined_window(&url);
    // The owner makes the shop's first manager: the window hears it and locks for a PIN.
    owner_makes_zeynep_manager_and_she_signs_in(&mut env, &pg, &db);
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT count(*) FROM staff_tokens WHERE ended_at IS NULL"
        ),
        "1",
        "the shop keeps her sign-in"
    );
    let head = pg.admin_sql(
        &db,
        "SELECT shop_hash FROM audit ORDER BY shop_seq DESC LIMIT 1",
    );
    assert_eq!(head.len(), 64, "{head}");
    env.nav(View::Audit);
    env.until_shown("The shop's chain head (every desk):");
    assert!(env.shown(&head), "the shop's head as the shop holds it");
    assert!(env.shown("This desk's chain head:"));
    // Locking the desk ends her sign-in in the shop too.
    env.harness
        .key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::L);
    env.until("the desk locks", |app| app.staff.locked());
    let deadline = Instant::now() + Duration::from_secs(10);
    while pg.admin_sql(
        &db,
        "SELECT count(*) FROM staff_tokens WHERE ended_at IS NULL",
    ) != "0"
    {
        assert!(Instant::now() < deadline, "the shop's sign-in never ended");
        env.harness.step();
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_payment_only_another_desk_claims_shows_as_unconfirmed_and_this_desks_own_call_contradicts_it()
{
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let sandbox = crate::support::cli::sandbox();
    let mut other = other_desk(&url, "Counter 2");
    other.add_profile("shared", &sandbox);
    let made = other.link_create("shared", &["--amount", "80", "--json"]);
    assert_eq!(made.code, 0, "{made:?}");
    let id = made.json()["id"].as_str().expect("an id").to_owned();
    let order = made.json()["orderNumber"]
        .as_str()
        .expect("an order number")
        .to_owned();
    let other_id = other.run(&["shop", "status", "--json"]).json()["deskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    // Counter 2's push says it was paid (its file edited by hand); the server never saw it.
    pg.claim_paid(&db, &id, &other_id);
    let mut env = joined_window_on(&url, Some(&sandbox.base_url()));
    env.until(
        "the board shows the claim beside the last confirmed status",
        |app| {
            app.views.board.rows().iter().any(|r| {
                r.link.id == id
                    && r.link.status == LinkStatus::Pending
                    && r.unconfirmed == Some(LinkStatus::Completed)
            })
        },
    );
    // This desk asks the server itself: pending, so the claim is contradicted, on record.
    env.until_sql(
        &pg,
        &db,
        "SELECT claimed || ' ' || seen FROM link_contradictions",
        "COMPLETED PENDING",
        "this desk's own call contradicts the claim",
    );
    assert!(
        env.app()
            .views
            .board
            .rows()
            .iter()
            .all(|r| r.link.id != id || r.link.status != LinkStatus::Completed),
        "never shown paid here"
    );
    // Day close counts it apart: not collected, its line saying who claimed what and what
    // this desk's own call was told.
    env.nav(View::Report);
    env.until_label("Payments not counted");
    let report = env.app().views.report.report().cloned().expect("a report");
    let try_ = &report.currencies[0];
    assert_eq!(try_.paid.count, 0, "{report:?}");
    assert!(try_.collected.is_zero(), "{report:?}");
    assert_eq!(try_.unconfirmed.count, 1, "{report:?}");
    assert_eq!(report.claims_apart.len(), 1, "{report:?}");
    assert_eq!(report.claims_apart[0].claimed_by, "Counter 2");
    assert!(env.shown("Said to be paid, not confirmed (1)"));
    assert!(env.shown("Counter 2 says ₺80.00 was paid · counted ₺0.00"));
    assert!(env.shown("The payment system told"));
    // History labels the row the same way, read from the shop.
    env.nav(View::History);
    env.until_shown(&format!("{order} ₺80.00 Waiting for payment"));
    let labelled = env
        .harness
        .query_all_by(|n| {
            n.label().is_some_and(|l| {
                l.starts_with(&format!("{order} ₺80.00 Waiting for payment"))
                    && l.ends_with(" · Paid? Not yet confirmed by the server")
            })
        })
        .count();
    assert_eq!(
        labelled, 1,
        "History's row says the payment is not confirmed"
    );
    // Its totals line adds the last confirmed paid amount.
    env.until_shown("1 link  ·  Asked ₺80.00  ·  Collected ₺0.00");
}

/// The owner makes Zeynep (PIN 9999) the shop's first manager: the window hears it and locks
/// for a PIN, and she signs in at it through the shop.
fn owner_makes_zeynep_manager_and_she_signs_in(env: &mut AppEnv, pg: &Pg, db: &str) {
    let added = Cli::in_new_folder("owner").run_with(
        &["shop", "add-manager", "Zeynep", &pg.owner_url(db)],
        Some(&format!("{PASSWORD}\n9999\n")),
        &[],
    );
    assert_eq!(added.code, 0, "{added:?}");
    env.until("the shop's manager turns PINs on", |app| app.staff.locked());
    env.harness.run_steps(2);
    env.harness
        .get_by_role_and_label(egui::accesskit::Role::Button, "Zeynep")
        .click();
    env.harness.run_steps(2);
    env.harness.get_by_label("PIN").type_text("9999");
    env.harness.run_steps(1);
    env.harness.key_press(egui::Key::Enter);
    env.until("the shop signed Zeynep in", |app| {
        app.staff.actor.name() == Some("Zeynep")
    });
}

/// The shop's first manager, Zeynep (PIN 9999), added by the owner, signed in at this window
/// through the shop; then Catalog's item editor with `name` and `price` typed and saved.
fn zeynep_adds_an_item(env: &mut AppEnv, pg: &Pg, db: &str, (name, price): (&str, &str)) {
    owner_makes_zeynep_manager_and_she_signs_in(env, pg, db);
    env.nav(View::Catalog);
    type_item(env, name, price);
}

/// Opens Catalog's item editor, types `name` and `price`, and saves.
fn type_item(env: &mut AppEnv, name: &str, price: &str) {
    env.harness
        .get_all_by_role_and_label(egui::accesskit::Role::Button, "Add item")
        .last()
        .expect("Catalog's Add item")
        .click();
    env.harness.run_steps(2);
    for (label, text) in [("Item name", name), ("Unit price", price)] {
        let field = env.harness.get_by_label(label);
        field.focus();
        field.type_text(text);
        env.harness.run_steps(2);
    }
    env.harness
        .get_by_role_and_label(egui::accesskit::Role::Button, "Save item")
        .click();
    env.harness.run_steps(2);
}

/// On a joined desk a catalog item is added through the shop, with the signed-in manager's
/// authority: the shop's current catalog holds it (an `own:` item, its name and price) and the
/// shop's staff log names her; the desk's mirror has it back.
#[test]
fn a_manager_adds_a_catalog_item_through_the_shop() {
    let Some(pg) = pg::cluster() else { return };
    let (db, url) = shop_url(&pg);
    let mut env = joined_window(&url);
    zeynep_adds_an_item(&mut env, &pg, &db, ("Demlik çay", "70"));
    env.until("the desk's mirror has the item", |app| {
        app.holds
            .catalog
            .values()
            .any(|v| v.name == "Demlik çay" && v.is_own())
    });
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT count(*) FROM catalog_variants JOIN catalog_current USING (snapshot) \
             WHERE name = 'Demlik çay' AND unit_price = 70 AND variant_id LIKE 'own:%'"
        ),
        "1",
        "the shop's current catalog holds it"
    );
    assert_eq!(
        pg.admin_sql(
            &db,
            "SELECT count(*) FROM staff_log WHERE manager = 'Zeynep' AND action LIKE 'catalog%'"
        ),
        "1",
        "the shop's log names the manager"
    );
}

/// With the shop gone, a joined desk's catalog edit changes nothing and says why in one
/// sentence, in the editor (online only: the shop is every desk's catalog).
#[test]
fn a_catalog_edit_with_the_shop_down_changes_nothing_and_says_so() {
    let Some(pg) = pg::alone() else { return };
    let (db, url) = shop_url(&pg);
    let mut env = joined_window(&url);
    zeynep_adds_an_item(&mut env, &pg, &db, ("Demlik çay", "70"));
    env.until("the desk's mirror has the item", |app| {
        app.holds.catalog.values().any(|v| v.name == "Demlik çay")
    });
    pg.stop_immediate();
    env.harness.run_steps(2);
    type_item(&mut env, "Limonata", "45");
    env.until_shown(
        "Catalog changes are made in the shop, and the shop is not answering; nothing changed. \
         Try again once the shop is back.",
    );
    assert!(
        !env.app()
            .holds
            .catalog
            .values()
            .any(|v| v.name == "Limonata"),
        "nothing changed on this desk"
    );
    assert!(
        env.services
            .inspect(|s| s.catalog().list())
            .expect("the catalog reads")
            .iter()
            .all(|v| v.name != "Limonata"),
        "nor in its file"
    );
    pg.start();
}
