//! A desk in the shop: joining (connect, migrate, register) and reading the shop's state for
//! `shop status`. A desk is its per-install device id (two data folders on one host are two
//! desks) and a shown name (the host name until it is named).

use chrono::{DateTime, Utc};
use zeroize::Zeroizing;

use super::schema::{self, Migrated};
use super::{CONNECT_TIMEOUT, Shop, ShopError, ShopUrl, connect};
use crate::store::DESK_NAME_MAX;

/// Who this desk is, to the shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskIdentity {
    /// The install's device id (the store's, also in order numbers).
    pub id: String,
    /// The name shown on its links everywhere.
    pub name: String,
}

/// The name of a desk nobody named: this machine's host name (at most [`DESK_NAME_MAX`]
/// characters), or `paydesk` when the system gives none.
pub fn host_name() -> String {
    whoami::hostname()
        .ok()
        .map(|h| h.trim().chars().take(DESK_NAME_MAX).collect::<String>())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "paydesk".to_owned())
}

/// Whether `name` can name a desk: 1 to [`DESK_NAME_MAX`] characters, none a control
/// character, not only spaces.
pub fn valid_desk_name(name: &str) -> bool {
    let count = name.chars().count();
    (1..=DESK_NAME_MAX).contains(&count)
        && !name.chars().any(char::is_control)
        && !name.trim().is_empty()
}

/// Joins the shop: connects, brings the schema to this build's version (or refuses a newer
/// one, untouched), and registers the desk (a desk that joins again keeps its row and gets
/// its current name). The connection is handed back, to read what the shop holds.
pub async fn join(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    desk: &DeskIdentity,
    now: DateTime<Utc>,
) -> Result<(Migrated, Shop), ShopError> {
    let mut shop = connect(url, password, CONNECT_TIMEOUT).await?;
    let migrated = schema::migrate(shop.client_mut(), url).await?;
    register(&shop, desk, now).await?;
    Ok((migrated, shop))
}

/// Writes the desk's row: its name, and that it was seen now.
pub async fn register(
    shop: &Shop,
    desk: &DeskIdentity,
    now: DateTime<Utc>,
) -> Result<(), ShopError> {
    shop.client()
        .execute(
            "INSERT INTO desks (desk_id, name, joined_at, seen_at) VALUES ($1, $2, $3, $3)
             ON CONFLICT (desk_id) DO UPDATE SET name = EXCLUDED.name, seen_at = EXCLUDED.seen_at",
            &[&desk.id, &desk.name, &now],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(())
}

/// What `shop status` reads from the shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopState {
    /// The schema's version (0 before any desk migrated).
    pub schema_version: i32,
    /// The name the shop has for this desk (`None`: not registered).
    pub registered_as: Option<String>,
}

/// Reads the shop's state for this desk; writes nothing.
pub async fn state(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    desk_id: &str,
) -> Result<ShopState, ShopError> {
    let shop = connect(url, password, CONNECT_TIMEOUT).await?;
    let schema_version = schema::version(shop.client(), url).await?;
    let registered_as = if schema_version > 0 {
        shop.client()
            .query_opt("SELECT name FROM desks WHERE desk_id = $1", &[&desk_id])
            .await
            .map_err(|e| ShopError::from_pg(e, url))?
            .map(|r| r.get(0))
    } else {
        None
    };
    Ok(ShopState {
        schema_version,
        registered_as,
    })
}

/// Tells the shop the desk's new name.
pub async fn rename(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    desk: &DeskIdentity,
    now: DateTime<Utc>,
) -> Result<(), ShopError> {
    let shop = connect(url, password, CONNECT_TIMEOUT).await?;
    register(&shop, desk, now).await
}
