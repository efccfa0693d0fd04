//! A desk in the shop: joining (connect, check, register) and reading the shop's state for
//! `shop status`. A desk never migrates the shop's schema (the owner's `shop init` does): it
//! checks that the schema is this build's and that its login is a desk's own ([`admit`]). A
//! desk is its per-install device id (two data folders on one host are two desks) and a shown
//! name (the host name until it is named).

use zeroize::Zeroizing;

use super::schema;
use super::{CONNECT_TIMEOUT, NotADeskWhy, Shop, ShopError, ShopUrl, connect};
use crate::store::DESK_NAME_MAX;

/// Who this desk is, to the shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeskIdentity {
    /// The install's device id (the store's, also in order numbers).
    pub id: String,
    /// The name shown on its links everywhere.
    pub name: String,
    /// Whether the name was given at this desk (`shop name`, Settings) rather than being the
    /// host name: a desk nobody named takes the name the shop has for it ([`register`]).
    pub named: bool,
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

/// Joins the shop: connects, checks the schema and the login ([`admit`]), and registers the
/// desk (a desk that joins again keeps its row and gets its current name). The schema's
/// version, the connection (to read what the shop holds) and the name the shop shows the desk
/// by ([`register`]) are handed back.
pub async fn join(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    desk: &DeskIdentity,
) -> Result<(i32, Shop, String), ShopError> {
    let shop = connect(url, password, CONNECT_TIMEOUT).await?;
    let version = admit(&shop).await?;
    let name = register(&shop, desk).await?;
    Ok((version, shop, name))
}

/// The shop's schema version, if it is this build's: none ([`ShopError::NoSchema`]), an older
/// one ([`ShopError::SchemaOld`]: the owner runs `shop init`) and a newer one
/// ([`ShopError::SchemaTooNew`]) are each refused, with nothing written.
pub async fn check_schema(shop: &Shop) -> Result<i32, ShopError> {
    let found = schema::version(shop.client(), shop.url()).await?;
    let known = schema::latest_version();
    if found == 0 {
        Err(ShopError::NoSchema {
            dbname: shop.url().dbname().to_owned(),
        })
    } else if found < known {
        Err(ShopError::SchemaOld {
            found,
            needed: known,
        })
    } else if found > known {
        Err(ShopError::SchemaTooNew { found, known })
    } else {
        Ok(found)
    }
}

/// What a desk checks before it uses the shop: the schema is this build's ([`check_schema`]),
/// and its login is a desk's own: not a superuser, not one that may create roles or bypass
/// row-level security, not the owner of the shop's tables nor a member of their owner. Any of
/// those is refused ([`ShopError::NotADeskLogin`]), so the owner's password never serves at a
/// till. The schema's version.
pub async fn admit(shop: &Shop) -> Result<i32, ShopError> {
    let version = check_schema(shop).await?;
    let row = shop
        .client()
        .query_one(
            "SELECT r.rolsuper, r.rolcreaterole, r.rolbypassrls,
                    pg_has_role(session_user, c.relowner, 'MEMBER')
             FROM pg_roles AS r, pg_class AS c
             WHERE r.rolname = session_user AND c.oid = 'paydesk_schema'::regclass",
            &[],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    let why = if row.get(0) {
        Some(NotADeskWhy::Superuser)
    } else if row.get(1) {
        Some(NotADeskWhy::CreatesRoles)
    } else if row.get(2) {
        Some(NotADeskWhy::BypassesRls)
    } else if row.get(3) {
        Some(NotADeskWhy::OwnsShop)
    } else {
        None
    };
    match why {
        Some(why) => Err(ShopError::NotADeskLogin {
            user: shop.url().user().to_owned(),
            why,
        }),
        None => Ok(version),
    }
}

/// Writes the desk's row through the shop's `paydesk_register`: its name, and that it was seen
/// now (by the shop's clock; the first time, that it joined). The name the shop keeps for it:
/// a desk nobody named here is shown by the shop's name for it, at first the one the owner
/// gave its login at `shop add-desk` (`schema::DESK_NAMES`).
pub async fn register(shop: &Shop, desk: &DeskIdentity) -> Result<String, ShopError> {
    let row = shop
        .client()
        .query_one(
            "SELECT paydesk_register($1, $2, $3)",
            &[&desk.id, &desk.name, &desk.named],
        )
        .await
        .map_err(|e| ShopError::from_pg(e, shop.url()))?;
    Ok(row.get(0))
}

/// What `shop status` reads from the shop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShopState {
    /// The schema's version (this build's: any other is an error).
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
    let schema_version = admit(&shop).await?;
    let registered_as = shop
        .client()
        .query_opt("SELECT name FROM desks WHERE desk_id = $1", &[&desk_id])
        .await
        .map_err(|e| ShopError::from_pg(e, url))?
        .map(|r| r.get(0));
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
) -> Result<(), ShopError> {
    let shop = connect(url, password, CONNECT_TIMEOUT).await?;
    admit(&shop).await?;
    register(&shop, desk).await.map(drop)
}
