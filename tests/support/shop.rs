//! Desks of a shop in-process, for the shop suites: a connection as the desk role, a fresh
//! migrated shop database, and a desk on its own data folder joined and registered.

use std::sync::Mutex;

use paydesk::shop::{self, Shop, ShopError, ShopUrl, schema};
use paydesk::store::Store;
use zeroize::Zeroizing;

use super::pg::{PASSWORD, Pg};

/// A session with the shop at `url` as the desk role.
pub async fn connect(url: &ShopUrl) -> Result<Shop, ShopError> {
    shop::connect(
        url,
        &Zeroizing::new(PASSWORD.to_owned()),
        shop::CONNECT_TIMEOUT,
    )
    .await
}

/// A fresh shop database on `pg`, migrated to this build's version; its URL (TLS verified).
pub async fn fresh_shop(pg: &Pg) -> ShopUrl {
    let db = pg.fresh_db();
    let url = ShopUrl::parse(&pg.url(
        "localhost",
        &db,
        &format!("sslmode=verify-full&sslrootcert={}", pg.ca_pem.display()),
    ))
    .expect("a valid URL");
    let shop = connect(&url).await.expect("the shop connects");
    // The owner's `shop init` made it (a desk never migrates); the desk reads its version.
    let version = schema::version(shop.client(), &url)
        .await
        .expect("the version reads");
    assert_eq!(version, schema::latest_version());
    url
}

/// Registers the desk of `store` in the shop at `url` as `name`; its device id.
pub async fn register(url: &ShopUrl, store: &Store, name: &str) -> String {
    let id = store.profiles().device_id().expect("a device id");
    shop::desk::register(
        &connect(url).await.expect("the shop connects"),
        &shop::desk::DeskIdentity {
            id: id.clone(),
            name: name.to_owned(),
            named: true,
        },
    )
    .await
    .expect("registered");
    id
}

/// A desk: its own data folder, joined to the shop and registered, with a session.
pub struct Desk {
    /// The data folder, removed with the desk.
    pub dir: tempfile::TempDir,
    /// Its data file.
    pub store: Mutex<Store>,
    /// Its device id.
    pub id: String,
    /// Its session with the shop.
    pub shop: Shop,
}

impl Desk {
    /// A new desk joined to the shop at `url` as `name`.
    pub async fn join(url: &ShopUrl, name: &str) -> Desk {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut store = Store::open(dir.path()).expect("the store opens");
        store
            .join_shop(&url.to_string(), super::time::t_stored())
            .expect("joined");
        let id = register(url, &store, name).await;
        Desk {
            dir,
            store: Mutex::new(store),
            id,
            shop: connect(url).await.expect("the shop connects"),
        }
    }
}
