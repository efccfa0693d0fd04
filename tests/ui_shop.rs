//! The desk in a shop, in the real window (kittest): a shop whose PostgreSQL port accepts and
//! never answers leaves every frame quick and the top bar saying "Offline from the shop since
//! …" while links are still made; Settings' Shop database section refuses a URL holding a
//! password (naming it) and warns of `sslmode=disable` to another machine; and against the
//! private PostgreSQL of `tests/support/pg.rs` a wrong password gets its sentence, the right
//! one joins, the password is in no file of the data folder, and a link made after joining
//! reaches the shop.

mod support;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use egui_kittest::kittest::Queryable;
use paydesk::app::View;
use paydesk::secrets::EnvSecret;
use paydesk::shop::session::Timing;
use paydesk::store::Store;
use paydesk::ui::shop::ShopReach;
use support::app::{AppEnv, Start};
use support::cli::{contains_bytes, files_under};
use support::pg::{self, PASSWORD};
use zeroize::Zeroizing;

/// The URL field's label.
const URL_FIELD: &str = "Address (postgres://USER@HOST/DATABASE)";

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
    fn replace_text(&mut self, label: &str, text: &str) {
        let field = self.harness.get_by_label(label);
        field.focus();
        self.harness
            .key_combination_modifiers(egui::Modifiers::COMMAND, &[egui::Key::A]);
        self.harness.get_by_label(label).type_text(text);
        self.harness.run_steps(2);
    }

    /// Runs frames until some node's label contains `label`.
    fn until_shown(&mut self, label: &str) {
        self.until_ui(&format!("`{label}` is drawn"), |h| {
            h.query_all_by_label_contains(label).next().is_some()
        });
    }

    fn shown(&self, label: &str) -> bool {
        self.harness
            .query_all_by_label_contains(label)
            .next()
            .is_some()
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
    assert!(frames >= 10, "frames kept coming: {frames}");
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
    env.type_into("Amount", "40");
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    assert!(env.shown("Offline from the shop since"));
}

#[test]
fn a_password_in_the_url_is_refused_naming_it_and_plain_to_another_machine_is_a_warning() {
    let mut env = AppEnv::start(Start::default(), |_| {}, |_, _| {});
    env.nav(View::Settings);
    env.until_shown("Shop database");
    assert!(env.disabled("Join the shop"), "nothing typed yet");
    env.replace_text(URL_FIELD, "postgres://desk:hunter2@db.example/shop");
    // The error shows once the field is left.
    env.harness.get_by_label("Password").focus();
    env.harness.run_steps(2);
    env.until_shown("The shop URL holds a password");
    assert!(env.disabled("Join the shop"));
    env.replace_text(URL_FIELD, "postgres://desk@db.example/shop?sslmode=disable");
    env.until_shown("Warning: sslmode=disable connects to another machine unencrypted");
    assert!(env.shown("Type the password to join."));
    assert!(!env.shown("The shop URL holds a password"));
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
    env.replace_text(URL_FIELD, &url);
    env.replace_text("Password", "not the password");
    env.click("Join the shop");
    env.until_shown("PostgreSQL refused the password for the user desk.");
    assert!(env.shown("This desk goes on working alone meanwhile."));
    assert!(env.app().shop.url.is_none(), "nothing recorded");
    assert_eq!(
        env.services
            .with_store_locked(|s| Ok(s.shop_desk()?.shop_url))
            .expect("the data file"),
        None
    );
    env.replace_text("Password", PASSWORD);
    env.click("Join the shop");
    env.until_shown("This desk joined the shop.");
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
    // A link made now is in the outbox, and the session pushes it.
    env.nav(View::NewLink);
    env.type_into("Amount", "40");
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    let id = env
        .app()
        .views
        .shown
        .as_ref()
        .expect("shown")
        .link
        .id
        .clone();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        env.harness.step();
        let found = pg.admin_sql(
            &db,
            &format!("SELECT count(*) FROM links WHERE link_id = '{id}'"),
        );
        if found == "1" {
            break;
        }
        assert!(Instant::now() < deadline, "the link never reached the shop");
        std::thread::sleep(Duration::from_millis(100));
    }
    for file in files_under(env.dir.path()) {
        let bytes = std::fs::read(&file).expect("a readable file");
        assert!(
            !contains_bytes(&bytes, PASSWORD.as_bytes()),
            "{} holds the password",
            file.display()
        );
    }
    // Leaving stops the session and forgets the shop; the desk works alone.
    env.nav(View::Settings);
    env.click("Leave the shop");
    env.until_shown("This desk left the shop and works alone now.");
    assert!(matches!(env.app().shop.reach, ShopReach::NotJoined));
    assert!(env.app().shop.url.is_none());
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
    env.replace_text(URL_FIELD, &url);
    // The field left empty: the environment's password, not stored.
    env.click("Join the shop");
    env.until_shown("The password came from PAYDESK_SHOP_PASSWORD and was not stored");
    env.until("the session is online", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    pg.stop_immediate();
    env.until_shown("Offline from the shop since");
    env.nav(View::NewLink);
    env.type_into("Amount", "40");
    env.click("Create link");
    env.until("the link is shown", |app| app.views.shown.is_some());
    let id = env
        .app()
        .views
        .shown
        .as_ref()
        .expect("shown")
        .link
        .id
        .clone();
    assert_eq!(
        env.services
            .with_store_locked(|s| Ok(s.outbox_len()?))
            .expect("the outbox"),
        1,
        "the link waits in the outbox"
    );
    pg.start();
    env.until("the session is online again", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        env.harness.step();
        let found = pg.admin_sql(
            &db,
            &format!("SELECT count(*) FROM links WHERE link_id = '{id}'"),
        );
        if found == "1" {
            break;
        }
        assert!(Instant::now() < deadline, "the link never reached the shop");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!env.shown("Offline from the shop since"));
    assert_eq!(
        env.services
            .with_store_locked(|s| Ok(s.outbox_len()?))
            .expect("the outbox"),
        0,
        "the outbox drained"
    );
}
