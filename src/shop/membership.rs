//! Joining and leaving a shop, once for both front ends: the CLI's `shop join`, `shop leave`
//! and `shop name`, and the app's Settings (docs/design.md §8). What is kept where:
//!
//! - the URL, canonical and without a password, in the data file's `shop_desk` row;
//! - the password in the keyring (service `paydesk`, user `shop::USER@HOST:PORT/DBNAME`) when
//!   it was typed; never when it came from `PAYDESK_SHOP_PASSWORD`, which gives it on every run;
//! - nothing is recorded when the shop refused, or when no keyring can keep a typed password
//!   and the secret store refuses to keep it in memory (the CLI's; the app's keeps it for the
//!   run and says so, as it does for an API secret).
//!
//! Keyring calls may wait on D-Bus, so they run on tokio's blocking pool.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use zeroize::Zeroizing;

use super::catalog::{Invalid, PullError, current_catalog};
use super::desk::{self, DeskIdentity};
use super::staff::current_staff;
use super::{KEYRING_PROFILE, ShopError, ShopUrl};
use crate::lang::Lang;
use crate::secrets::{SecretError, SecretStore};
use crate::store::{Carried, Carry, ShopHeld, Store, StoreError, with_locked};

/// Where the password of a join came from.
pub enum Password {
    /// Typed (the CLI's prompt or stdin, the app's form): kept in the keyring.
    Typed(Zeroizing<String>),
    /// `PAYDESK_SHOP_PASSWORD`: given on every run, never stored.
    FromEnv(Zeroizing<String>),
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Password::Typed(_) => "Password::Typed(<redacted>)",
            Password::FromEnv(_) => "Password::FromEnv(<redacted>)",
        })
    }
}

/// Where the password of a join was kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// In the OS keyring.
    Keyring,
    /// No keyring runs: in this run's memory only (the app); the reason.
    ThisRunOnly(String),
    /// Not stored: it came from `PAYDESK_SHOP_PASSWORD`.
    FromEnv,
}

/// A join that went through.
#[derive(Debug, Clone)]
pub struct Joined {
    /// The desk as the shop now knows it.
    pub identity: DeskIdentity,
    /// The shop's URL (its canonical form is what the data file holds).
    pub url: ShopUrl,
    /// The shop's schema version.
    pub schema_version: i32,
    /// Where the password is.
    pub kept: Kept,
    /// What became of this desk's staff and catalog.
    pub carried: Carried,
}

/// Why a join, a leave or a rename did not go through.
#[derive(Debug, thiserror::Error)]
pub enum MembershipError {
    /// The URL was refused, or the shop could not be reached or refused.
    #[error(transparent)]
    Shop(#[from] ShopError),
    /// No password was given.
    #[error("the shop's password is empty")]
    EmptyPassword,
    /// The name is not 1 to 40 printable characters.
    #[error("a desk's name is 1 to 40 characters, not only spaces")]
    NameShape,
    /// No keyring can keep a typed password (and the store does not keep it in memory).
    #[error("no keyring can keep the shop's password: {0}")]
    NoKeyring(String),
    /// The keyring failed otherwise.
    #[error(transparent)]
    Secret(SecretError),
    /// The data file failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The shop's staff or catalog holds a value this desk cannot use.
    #[error("the shop holds an invalid {what:?}: `{value}`")]
    Invalid {
        /// What was read.
        what: Invalid,
        /// The value.
        value: String,
    },
    /// A keyring call ended without an answer (its thread panicked).
    #[error("the keyring call ended without an answer: {0}")]
    Lost(String),
}

impl From<PullError> for MembershipError {
    fn from(e: PullError) -> Self {
        match e {
            PullError::Shop(e) => Self::Shop(e),
            PullError::Store(e) => Self::Store(e),
            PullError::Invalid { what, value } => Self::Invalid { what, value },
        }
    }
}

/// What a join did with this desk's own staff and catalog, a sentence for each that had any
/// (nothing is said of a kind this desk had none of).
pub fn carried_sentences(carried: &Carried, lang: Lang) -> Vec<String> {
    use super::messages::ShopMessage as M;
    let say = |carry: Carry, (to_shop, replaced): (M, M)| match carry {
        Carry::ToShop(0) | Carry::Replaced { ours: 0, .. } => None,
        Carry::ToShop(n) => Some(to_shop.fill(lang, &[("n", &n)])),
        Carry::Replaced { ours, theirs } => {
            Some(replaced.fill(lang, &[("ours", &ours), ("theirs", &theirs)]))
        }
    };
    [
        say(carried.staff, (M::StaffToShop, M::StaffReplaced)),
        say(carried.catalog, (M::CatalogToShop, M::CatalogReplaced)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The desk's id and shown name (the host name until it is named).
pub fn identity(store: &Mutex<Store>) -> Result<DeskIdentity, StoreError> {
    let (id, named) = with_locked(store, |s| {
        Ok::<_, StoreError>((s.profiles().device_id()?, s.shop().desk()?.name))
    })?;
    Ok(DeskIdentity {
        id,
        named: named.is_some(),
        name: named.unwrap_or_else(desk::host_name),
    })
}

/// The joined shop's URL, when there is one.
pub fn joined_url(store: &Mutex<Store>) -> Result<Option<ShopUrl>, MembershipError> {
    let stored = with_locked(store, |s| s.shop().desk())?.shop_url;
    Ok(stored
        .map(|u| ShopUrl::parse(&u).map_err(ShopError::from))
        .transpose()?)
}

/// The shop's password after a join: `PAYDESK_SHOP_PASSWORD` (`env`), else the keyring's
/// entry. A blocking call (the keyring).
pub fn stored_password(
    secrets: &dyn SecretStore,
    env: Option<Zeroizing<String>>,
    url: &ShopUrl,
) -> Result<Zeroizing<String>, ShopError> {
    if let Some(pw) = env {
        return Ok(pw);
    }
    match secrets.get(KEYRING_PROFILE, &url.keyring_name()) {
        Ok(Some(pw)) => Ok(pw),
        Ok(None) | Err(SecretError::Unavailable(_)) => Err(ShopError::NoPassword),
        Err(e) => Err(ShopError::Keyring(e)),
    }
}

/// Joins the shop at `url`: connects, migrates, registers the desk, then keeps a typed
/// password and records the URL; a password kept for the shop joined before is removed.
/// Nothing is recorded or kept when any step before fails.
pub async fn join(
    store: &Mutex<Store>,
    secrets: &Arc<dyn SecretStore>,
    url: &ShopUrl,
    password: Password,
    now: DateTime<Utc>,
) -> Result<Joined, MembershipError> {
    let (password, typed) = match password {
        Password::Typed(p) => (p, true),
        Password::FromEnv(p) => (p, false),
    };
    if password.is_empty() {
        return Err(MembershipError::EmptyPassword);
    }
    let mut identity = identity(store)?;
    let (schema_version, mut shop, shown) = desk::join(url, &password, &identity).await?;
    identity.name = shown;
    // What the shop holds of the shared kinds decides whether this desk's go to it or the
    // shop's replace them (read before the keyring is touched: a failure leaves nothing).
    let staff = current_staff(&mut shop, None).await?;
    let catalog = current_catalog(&mut shop, None).await?;
    drop(shop);
    let kept = if typed {
        let secrets = Arc::clone(secrets);
        let user = url.keyring_name();
        tokio::task::spawn_blocking(
            move || match secrets.set(KEYRING_PROFILE, &user, &password) {
                Ok(()) => Ok(secrets
                    .unavailable()
                    .map_or(Kept::Keyring, Kept::ThisRunOnly)),
                Err(SecretError::Unavailable(why)) => Err(MembershipError::NoKeyring(why)),
                Err(e) => Err(MembershipError::Secret(e)),
            },
        )
        .await
        .map_err(|e| MembershipError::Lost(e.to_string()))??
    } else {
        Kept::FromEnv
    };
    let previous = joined_url(store).unwrap_or(None);
    let held = ShopHeld {
        staff: staff.as_ref().map(|(v, m)| (*v, m.as_slice())),
        catalog: catalog.as_ref().map(|(v, c)| (*v, c.as_slice())),
    };
    let carried = with_locked(store, |s| {
        let carried = s.join_shop_holding(&url.to_string(), now, held)?;
        // A desk nobody named here is named as the shop shows it (its login's name).
        if !identity.named {
            s.set_desk_name(Some(&identity.name))?;
        }
        Ok::<_, StoreError>(carried)
    })?;
    // A password kept for another shop is no longer needed.
    if let Some(old) = previous.filter(|old| old.keyring_name() != url.keyring_name()) {
        let secrets = Arc::clone(secrets);
        let _ = tokio::task::spawn_blocking(move || {
            secrets.delete(KEYRING_PROFILE, &old.keyring_name())
        })
        .await;
    }
    Ok(Joined {
        identity,
        url: url.clone(),
        schema_version,
        kept,
        carried,
    })
}

/// Leaves the shop: its password out of the keyring, its URL out of the data file (the name
/// and the outbox stay). Returns the shop left, `None` when the desk had joined none. A
/// blocking call (the keyring).
pub fn leave(
    store: &Mutex<Store>,
    secrets: &dyn SecretStore,
) -> Result<Option<ShopUrl>, MembershipError> {
    let Some(url) = joined_url(store)? else {
        return Ok(None);
    };
    match secrets.delete(KEYRING_PROFILE, &url.keyring_name()) {
        // No keyring: nothing was kept there.
        Ok(()) | Err(SecretError::Unavailable(_)) => {}
        Err(e) => return Err(MembershipError::Secret(e)),
    }
    with_locked(store, Store::leave_shop)?;
    Ok(Some(url))
}

/// Names the desk (trimmed; 1 to 40 printable characters). The shop learns it at the next
/// registration (the caller's, or the app's session on its next connection).
pub fn rename(store: &Mutex<Store>, name: &str) -> Result<String, MembershipError> {
    let name = name.trim();
    if !desk::valid_desk_name(name) {
        return Err(MembershipError::NameShape);
    }
    with_locked(store, |s| s.set_desk_name(Some(name)))?;
    Ok(name.to_owned())
}
