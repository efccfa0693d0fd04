//! This desk in a shop, as the front ends reach it: joining and leaving, the desk's name, the
//! shop's password, the pusher and the mirrors of the shop's catalog and staff, each run over
//! the desk's file here (docs/design.md §8). The app and the CLI name the shop's values
//! through this module and never its connection's queries; the session (`ShopSession`) is the
//! app's link to the shop while it runs.

use std::time::Duration;

use zeroize::Zeroizing;

use super::{DeskError, Services};
use crate::shop::{catalog, desk, membership, push, staff};

pub use crate::shop::audit::{DeskChain, verify_shop, verify_shop_chain};
pub use crate::shop::catalog::{CatalogPulled, PullError};
pub use crate::shop::desk::{DeskIdentity, ShopState, valid_desk_name};
pub use crate::shop::membership::{Joined, Kept, MembershipError, Password, carried_sentences};
pub use crate::shop::owner::{
    DeskLogin, Initialized, ManagerAdded, NewDesk, RemovedDesk, add_desk, add_manager,
    desks as desk_logins, init as init_shop, remove_desk,
};
pub use crate::shop::push::{PushError, Pushed};
pub use crate::shop::read::{Account, ShopLink, ShopQuery, changed_since, page as read_page};
pub use crate::shop::report::{ReportScope, day_report};
pub use crate::shop::session::{
    Channel, SessionConfig, SessionEvent, ShopReader, ShopSession, Timing,
};
pub use crate::shop::staff::StaffPulled;
pub use crate::shop::{CONNECT_TIMEOUT, Shop, ShopError, ShopUrl, Weakness};
pub use crate::store::{Carried, Carry};

impl Services {
    /// This desk's id and shown name.
    pub fn desk_identity(&self) -> Result<DeskIdentity, DeskError> {
        Ok(membership::identity(self.store())?)
    }

    /// The shop this desk joined, when it did.
    pub fn joined_shop(&self) -> Result<Option<ShopUrl>, MembershipError> {
        membership::joined_url(self.store())
    }

    /// The shop's password for a desk that joined: `env` (`PAYDESK_SHOP_PASSWORD`), else the
    /// keyring's entry.
    pub fn shop_password(
        &self,
        env: Option<Zeroizing<String>>,
        url: &ShopUrl,
    ) -> Result<Zeroizing<String>, ShopError> {
        membership::stored_password(&**self.secrets(), env, url)
    }

    /// Joins the shop at `url` (see `shop::membership::join`).
    pub async fn join_shop(
        &self,
        url: &ShopUrl,
        password: Password,
    ) -> Result<Joined, MembershipError> {
        let now = self.clock().now();
        membership::join(self.store(), self.secrets(), url, password, now).await
    }

    /// Leaves the joined shop (the keyring's password goes); the shop left, if any.
    pub fn leave_shop(&self) -> Result<Option<ShopUrl>, MembershipError> {
        membership::leave(self.store(), &**self.secrets())
    }

    /// Names this desk in its file (the shop hears it at the next push or rename).
    pub fn rename_desk(&self, name: &str) -> Result<String, MembershipError> {
        membership::rename(self.store(), name)
    }

    /// Tells the shop this desk's new name now.
    pub async fn rename_in_shop(
        &self,
        url: &ShopUrl,
        password: &Zeroizing<String>,
        identity: &DeskIdentity,
    ) -> Result<(), ShopError> {
        desk::rename(url, password, identity).await
    }

    /// What the shop says of the desk `identity` (its schema, the name it has for it);
    /// writes nothing.
    pub async fn shop_state(
        &self,
        url: &ShopUrl,
        password: &Zeroizing<String>,
        identity: &DeskIdentity,
    ) -> Result<ShopState, ShopError> {
        desk::state(url, password, &identity.id).await
    }

    /// Sends the outbox to the shop, batch by batch.
    pub async fn push_to_shop(&self, shop: &mut Shop) -> Result<Pushed, PushError> {
        let clock = self.clock().clone();
        push::push(shop, self.store(), || clock.now()).await
    }

    /// Mirrors the shop's catalog into the desk's file when it changed.
    pub async fn pull_catalog(&self, shop: &mut Shop) -> Result<CatalogPulled, PullError> {
        catalog::pull_catalog(shop, self.store()).await
    }

    /// Mirrors the shop's staff into the desk's file when they changed.
    pub async fn pull_staff(&self, shop: &mut Shop) -> Result<StaffPulled, PullError> {
        staff::pull_staff(shop, self.store(), self.clock().now()).await
    }
}

impl Services {
    /// The head of the shop's own audit chain (every desk), when this desk joined a shop that
    /// answers within `within`; `None` otherwise (the Audit view then shows only its own).
    pub async fn shop_audit_head(&self, within: Duration) -> Option<String> {
        let (shop, _) = self.open_joined(within).await?.ok()?;
        match crate::shop::audit::shop_head(&shop).await {
            Ok(head) => Some(head),
            Err(e) => {
                tracing::info!(error = %e, "the shop's audit head could not be read");
                None
            }
        }
    }
}

/// Connects to the shop and checks that its schema is this build's and that the login is a
/// desk's own ([`crate::shop::desk::admit`]): nothing writes to, or reads from, a schema it
/// does not know, and the owner's login never serves at a till.
pub async fn open_shop(
    url: &ShopUrl,
    password: &Zeroizing<String>,
    timeout: Duration,
) -> Result<Shop, ShopError> {
    let shop = crate::shop::connect(url, password, timeout).await?;
    desk::admit(&shop).await?;
    Ok(shop)
}

/// Gives back every poll lease this desk holds in the shop (at exit: another desk takes
/// over its links at once); how many.
pub async fn release_leases(shop: &Shop, desk_id: &str) -> Result<u64, ShopError> {
    crate::shop::lease::release_all(shop, desk_id).await
}
