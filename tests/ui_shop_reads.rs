//! History and Day close over the whole shop, in the real window (kittest): another desk's link
//! (made by the real `paydesk` binary on its own data folder, pushed to the private PostgreSQL
//! of `tests/support/pg.rs`) is in this desk's History with that desk's name, and the day close
//! counts it in its table per desk.

mod support;

use std::time::Duration;

use paydesk::app::View;
use paydesk::secrets::EnvSecret;
use paydesk::shop::session::Timing;
use paydesk::store::Store;
use paydesk::ui::shop::ShopReach;
use support::app::{AppEnv, Start};
use support::cli::Cli;
use support::pg::{self, PASSWORD};
use zeroize::Zeroizing;

fn quick() -> Timing {
    Timing {
        connect: Duration::from_millis(800),
        query: Duration::from_secs(2),
        backoff_first: Duration::from_millis(200),
        backoff_max: Duration::from_millis(400),
        ..Timing::default()
    }
}

impl AppEnv {
    fn shown(&self, label: &str) -> bool {
        use egui_kittest::kittest::Queryable;
        self.harness
            .query_all_by_label_contains(label)
            .next()
            .is_some()
    }
}

#[test]
fn another_desks_link_is_in_history_with_its_desk_and_in_the_day_close_by_desk() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    // Counter 2: another data folder, joined by the command line; its link reaches the shop
    // before the command ends.
    let mut other = Cli::new();
    other.env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/paydesk-bus",
    );
    other.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    assert_eq!(other.run(&["shop", "join", &url]).code, 0);
    assert_eq!(other.run(&["shop", "name", "Counter 2"]).code, 0);
    let made = other.link_create(
        "sandbox",
        &["--amount", "75", "--description", "Table 7 at counter two"],
    );
    assert_eq!(made.code, 0, "{made:?}");
    assert_eq!(pg.admin_sql(&db, "SELECT count(*) FROM links"), "1");

    // This desk: the window, joined to the same shop.
    let mut env = AppEnv::start(
        Start::default(),
        |dir| {
            let mut store = Store::open(dir).expect("the data file");
            store
                .join_shop(&url, chrono::Utc::now())
                .expect("the desk joined");
        },
        |options, _| {
            options.env_shop = EnvSecret::new(Some(Zeroizing::new(PASSWORD.to_owned())));
            options.shop_timing = quick();
        },
    );
    env.until("the session is online", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    env.nav(View::History);
    env.until_label("Table 7 at counter two");
    assert!(
        env.shown("Counter 2"),
        "the row names the desk that made it"
    );
    assert!(env.shown("Desk"), "with a Desk column");
    assert!(env.shown("Every desk's links in the shop"));
    assert!(
        !env.shown("Counting"),
        "no totals line waits for ever over the shop's rows"
    );
    // Another desk's link opens from History although this desk's file does not hold it.
    env.click("Table 7 at counter two");
    env.until("the other desk's link is shown", |app| {
        app.views
            .shown
            .as_ref()
            .is_some_and(|s| s.link.description.as_deref() == Some("Table 7 at counter two"))
    });
    env.nav(View::History);

    env.nav(View::Report);
    env.until_label("By desk");
    assert!(env.shown("Counter 2"));
    assert!(env.shown("Figures come from every desk of the shop"));
}

#[test]
fn a_catalog_imported_at_another_desk_reaches_this_window_without_a_restart() {
    let Some(pg) = pg::cluster() else { return };
    let db = pg.fresh_db();
    let url = pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    );
    let mut office = Cli::new();
    office.env(
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/nonexistent/paydesk-bus",
    );
    office.env("PAYDESK_SHOP_PASSWORD", PASSWORD);
    assert_eq!(office.run(&["shop", "join", &url]).code, 0);
    let mut env = AppEnv::start(
        Start::default(),
        |dir| {
            let mut store = Store::open(dir).expect("the data file");
            store
                .join_shop(&url, chrono::Utc::now())
                .expect("the desk joined");
        },
        |options, _| {
            options.env_shop = EnvSecret::new(Some(Zeroizing::new(PASSWORD.to_owned())));
            options.shop_timing = quick();
        },
    );
    env.until("the session is online", |app| {
        matches!(app.shop.reach, ShopReach::Online { .. })
    });
    assert!(env.app().holds.catalog.is_empty());
    // The back office imports; the shop tells this desk, which mirrors it.
    let csv = office.data_dir().join("catalog.csv");
    std::fs::write(
        &csv,
        "id,name,unit_price,currency\nvar_cay,Çay,15.00,TRY\nvar_simit,Simit,25.00,TRY\n",
    )
    .expect("the CSV is written");
    let imported = office.run(&["catalog", "import", csv.to_str().expect("a UTF-8 path")]);
    assert_eq!(imported.code, 0, "{imported:?}");
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
