//! Staff as the front ends reach them, and what needs a manager's authority: PINs checked,
//! members changed, the catalog imported or given barcodes (docs/design.md §8 "Staff: one
//! list, checked by the shop").
//!
//! On a desk of its own everything is this desk's file, as before. On a joined desk the shop
//! decides:
//! - while the shop answers, the staff mirror is read again before a PIN is checked, so a
//!   clerk added at another desk signs in here at once;
//! - a clerk's PIN is checked against the mirror (offline too); a manager's only by the shop
//!   (`shop::staff::manager_check`), whose answer to a sign-in carries a token kept here in
//!   memory, never on disk;
//! - staff and catalog changes go to the shop with the acting manager's token (or the
//!   approving manager's), and only while it answers: nothing is queued. The desk's own audit
//!   records what it asked, the shop's `staff_log` what it checked; the mirror is read again
//!   at once.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::domain::{Barcode, CatalogVariant};
use crate::shop::catalog as shop_catalog;
use crate::store::{CatalogEdit, CsvImport};

use zeroize::Zeroizing;

use super::{DeskError, Services};
use crate::domain::{Actor, Pin, Role, StaffMember, StaffName};
use crate::shop::staff::{self as shop_staff, ManagerChecked, NewPin, folded};
use crate::shop::{CONNECT_TIMEOUT, Shop, ShopError};
use crate::store::{AuditAction, StaffError, StoreError, hash_pin};

/// The shop's tokens of the managers signed in at this desk, by folded name.
#[derive(Default)]
pub(super) struct Tokens(Mutex<HashMap<String, Zeroizing<String>>>);

impl Tokens {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Zeroizing<String>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What a PIN is given for.
enum PinUse<'a> {
    /// A sign-in, recorded on `subject` (the app, or the command line).
    SignIn(&'a str),
    /// A check for a command whose own audit row names the member (`subject` says which, for
    /// the shop's log).
    Check(&'a str),
}

/// The joined shop for a staff question.
enum StaffShop {
    /// The desk has not joined: its own file decides.
    Alone,
    /// Joined, and the shop answers.
    Open { shop: Box<Shop>, desk_id: String },
    /// Joined, and the shop does not answer (or refused this desk).
    Unreachable(ShopError),
}

/// Why a change made in the shop did not happen.
enum InShop {
    /// Refused on the desk (no manager's sign-in, the shop unreachable).
    Desk(DeskError),
    /// Refused or failed in the shop; `manager` is whose authority was used.
    Shop { error: ShopError, manager: String },
}

impl InShop {
    /// As the desk words it, `name` being the member changed (if any).
    fn refused(self, name: &str) -> DeskError {
        match self {
            InShop::Desk(e) => e,
            InShop::Shop { error, manager } => change_refused(error, name, &manager),
        }
    }
}

/// A staff refusal as the store gives it.
fn refusal(e: StaffError) -> DeskError {
    DeskError::Store(StoreError::Staff(e))
}

/// The shop's refusal of a change of `name` made by `manager`, as the desk words it.
fn change_refused(e: ShopError, name: &str, manager: &str) -> DeskError {
    let code = match &e {
        ShopError::Database { code, .. } => code.as_str(),
        _ => "",
    };
    match code {
        shop_staff::NO_MANAGER => refusal(StaffError::SignInAgain(manager.to_owned())),
        shop_staff::NAME_TAKEN => refusal(StaffError::NameTaken(name.to_owned())),
        shop_staff::LAST_MANAGER => refusal(StaffError::LastManager(name.to_owned())),
        shop_staff::NO_MEMBER => refusal(StaffError::NoMember(name.to_owned())),
        shop_staff::MANAGER_PIN_IS_OWNERS => {
            refusal(StaffError::ManagerPinIsOwners(name.to_owned()))
        }
        _ => DeskError::Shop(e),
    }
}

impl Services {
    /// The shop's password from `PAYDESK_SHOP_PASSWORD` as `main` read it, for the staff's
    /// questions to the shop (the keyring's entry otherwise).
    #[must_use]
    pub fn with_shop_env(self, env: Option<Zeroizing<String>>) -> Self {
        self.set_shop_env(env);
        self
    }

    /// Sets `PAYDESK_SHOP_PASSWORD` as `main` read it on services already shared (the app's,
    /// opened before its options were read).
    pub fn set_shop_env(&self, env: Option<Zeroizing<String>>) {
        *self
            .shop_env
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = env;
    }

    /// `PAYDESK_SHOP_PASSWORD` as `main` read it, if any.
    pub(super) fn shop_env(&self) -> Option<Zeroizing<String>> {
        self.shop_env
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// A session of this desk's own in the shop it joined, opened within `within`, with this
    /// desk's id; `None` when the desk has not joined.
    pub(super) async fn open_joined(
        &self,
        within: std::time::Duration,
    ) -> Option<Result<(Shop, String), ShopError>> {
        let url = match self.joined_shop() {
            Ok(Some(url)) => url,
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!(error = %e, "the joined shop could not be read");
                return None;
            }
        };
        let opened = async {
            let password =
                crate::store::run_blocking(|| self.shop_password(self.shop_env(), &url))?;
            let desk_id = self.desk_identity().map_err(|e| match e {
                DeskError::Store(s) => ShopError::DataFile(s),
                other => ShopError::Refused {
                    reason: other.to_string(),
                },
            })?;
            let shop = super::shop::open_shop(&url, &password, within).await?;
            Ok((shop, desk_id.id))
        };
        Some(opened.await)
    }

    async fn staff_shop(&self) -> StaffShop {
        let Some(opened) = self.open_joined(CONNECT_TIMEOUT).await else {
            return StaffShop::Alone;
        };
        match opened {
            Ok((mut shop, desk_id)) => {
                // A clerk added, or a PIN reset, at another desk counts here at once.
                if let Err(e) = self.pull_staff(&mut shop).await {
                    tracing::warn!(error = %e, "the shop's staff could not be mirrored");
                }
                StaffShop::Open {
                    shop: Box::new(shop),
                    desk_id,
                }
            }
            Err(e) => StaffShop::Unreachable(e),
        }
    }

    /// Whether staff are on, asked of the shop as well on a joined desk whose file has no
    /// member yet (a manager the owner just added turns PINs on at once).
    pub async fn staff_on_now(&self) -> Result<bool, DeskError> {
        if self.staff_on()? {
            return Ok(true);
        }
        if let StaffShop::Unreachable(e) = self.staff_shop().await {
            tracing::info!(error = %e, "the shop's staff could not be read");
        }
        self.staff_on()
    }

    /// Checks `name`'s PIN (tries counted, lock-out kept) and records the sign-in on
    /// `subject` (the app, or the CLI's command line).
    pub async fn staff_sign_in(
        &self,
        name: &str,
        pin: &Pin,
        subject: &str,
    ) -> Result<StaffMember, DeskError> {
        self.staff_pin(name, pin, PinUse::SignIn(subject)).await
    }

    /// Checks `name`'s PIN as [`Services::staff_sign_in`] does, with no sign-in row: the
    /// command that follows (`subject`) writes its own row naming the member.
    pub async fn staff_check(
        &self,
        name: &str,
        pin: &Pin,
        subject: &str,
    ) -> Result<StaffMember, DeskError> {
        self.staff_pin(name, pin, PinUse::Check(subject)).await
    }

    async fn staff_pin(
        &self,
        name: &str,
        pin: &Pin,
        use_: PinUse<'_>,
    ) -> Result<StaffMember, DeskError> {
        let shop = self.staff_shop().await;
        let now = self.clock().now();
        let local = self.with_store_locked(|s| match use_ {
            PinUse::SignIn(subject) => s.staff_sign_in(name, pin, subject, now),
            PinUse::Check(_) => s.staff_check(name, pin, now),
        });
        let Err(DeskError::Store(StoreError::Staff(StaffError::ManagerNeedsShop(_)))) = local
        else {
            return local;
        };
        let (PinUse::SignIn(what) | PinUse::Check(what)) = use_;
        let token = self.manager_pin(shop, name, pin, what).await?;
        let member = self
            .staff_member(name)?
            .ok_or_else(|| refusal(StaffError::NoMember(name.to_owned())))?;
        self.tokens.lock().insert(folded(&member.name), token);
        if let PinUse::SignIn(subject) = use_ {
            let actor = Actor::member(&member.name, member.role);
            self.with_store_locked(|s| s.audit_append(&actor, AuditAction::SignIn, subject, now))?;
        }
        Ok(member)
    }

    /// A manager's PIN checked by the shop; the sign-in's token.
    async fn manager_pin(
        &self,
        shop: StaffShop,
        name: &str,
        pin: &Pin,
        what: &str,
    ) -> Result<Zeroizing<String>, DeskError> {
        let StaffShop::Open { shop, desk_id } = shop else {
            return Err(refusal(StaffError::ManagerNeedsShop(name.to_owned())));
        };
        let checked = shop_staff::manager_check(&shop, &desk_id, name, pin, true, what).await?;
        match checked {
            ManagerChecked::Right { token, name } => {
                token.ok_or_else(|| refusal(StaffError::SignInAgain(name)))
            }
            ManagerChecked::Wrong { name, wait_seconds } => {
                // The shop's count comes back with the next pull.
                Err(refusal(StaffError::WrongPin { name, wait_seconds }))
            }
            ManagerChecked::Waiting { name, seconds } => {
                Err(refusal(StaffError::Waiting { name, seconds }))
            }
            ManagerChecked::Disabled(name) => Err(refusal(StaffError::Disabled(name))),
            ManagerChecked::Unknown(name) => Err(refusal(StaffError::NoMember(name))),
            ManagerChecked::NotManager(name) => Err(refusal(StaffError::NotManager(name))),
            ManagerChecked::NoPin(name) => Err(refusal(StaffError::NoShopPin(name))),
        }
    }

    /// A manager's PIN approves what `clerk` may not do alone (`what`, as the audit names it);
    /// returns the clerk acting with that approval. On a joined desk the shop checks the
    /// manager's PIN, and its token stays for the approved change.
    pub async fn staff_approve(
        &self,
        clerk: &Actor,
        manager: &str,
        pin: &Pin,
        what: &str,
    ) -> Result<Actor, DeskError> {
        let shop = self.staff_shop().await;
        let now = self.clock().now();
        let local = self.with_store_locked(|s| s.staff_approve(clerk, manager, pin, what, now));
        let Err(DeskError::Store(StoreError::Staff(StaffError::ManagerNeedsShop(_)))) = local
        else {
            return local;
        };
        let token = self
            .manager_pin(shop, manager, pin, &format!("approval: {what}"))
            .await?;
        let member = self
            .staff_member(manager)?
            .ok_or_else(|| refusal(StaffError::NoMember(manager.to_owned())))?;
        self.tokens.lock().insert(folded(&member.name), token);
        let approved = clerk.clone().approved_by(&member.name);
        self.with_store_locked(|s| s.audit_append(&approved, AuditAction::Approve, what, now))?;
        Ok(approved)
    }

    /// Ends every manager's sign-in this desk holds in the shop (the desk locked, or the
    /// command ended). Best effort: a token the shop does not hear of ends when idle.
    pub async fn staff_sign_out(&self) {
        let tokens: Vec<Zeroizing<String>> = self.tokens.lock().drain().map(|(_, t)| t).collect();
        if tokens.is_empty() {
            return;
        }
        let StaffShop::Open { shop, desk_id } = self.staff_shop().await else {
            return;
        };
        for token in tokens {
            if let Err(e) = shop_staff::sign_out(&shop, &desk_id, &token).await {
                tracing::info!(error = %e, "a manager's sign-in was not ended in the shop");
            }
        }
    }

    /// The token of the manager whose authority `actor` acts with (the approving manager's,
    /// else the member's own).
    fn token_of(&self, actor: &Actor) -> Result<(String, Zeroizing<String>), DeskError> {
        let Some(manager) = actor.approved_by.as_deref().or(actor.name()) else {
            return Err(refusal(StaffError::OwnerMakesFirstManager));
        };
        self.tokens
            .lock()
            .get(&folded(manager))
            .cloned()
            .map(|t| (manager.to_owned(), t))
            .ok_or_else(|| refusal(StaffError::SignInAgain(manager.to_owned())))
    }

    /// A change of members made in the shop with `actor`'s authority: `change` runs there,
    /// then the mirror is read again and the desk's audit records `action` on `subject`.
    async fn staff_change_in_shop<F>(
        &self,
        actor: &Actor,
        name: &str,
        action: AuditAction,
        subject: &str,
        change: F,
    ) -> Result<(), DeskError>
    where
        F: AsyncFnOnce(&Shop, &str, &str) -> Result<(), ShopError>,
    {
        self.change_in_shop(actor, StaffError::ChangesNeedShop, change)
            .await
            .map_err(|e| e.refused(name))?;
        let now = self.clock().now();
        self.with_store_locked(|s| s.audit_append(actor, action, subject, now))
    }

    /// A change made in the shop with `actor`'s authority, only while the shop answers
    /// (`offline` otherwise); the staff and catalog mirrors are read again after it.
    async fn change_in_shop<T, F>(
        &self,
        actor: &Actor,
        offline: StaffError,
        change: F,
    ) -> Result<T, InShop>
    where
        F: AsyncFnOnce(&Shop, &str, &str) -> Result<T, ShopError>,
    {
        let (manager, token) = self.token_of(actor).map_err(InShop::Desk)?;
        let (mut shop, desk_id) = match self.staff_shop().await {
            StaffShop::Open { shop, desk_id } => (shop, desk_id),
            StaffShop::Unreachable(e) => {
                tracing::info!(error = %e, "a manager's change found the shop unreachable");
                return Err(InShop::Desk(refusal(offline)));
            }
            StaffShop::Alone => return Err(InShop::Desk(refusal(offline))),
        };
        let done = match change(&shop, &desk_id, &token).await {
            Ok(done) => done,
            Err(e) => {
                if let ShopError::Database { code, .. } = &e
                    && code == shop_staff::NO_MANAGER
                {
                    self.tokens.lock().remove(&folded(&manager));
                }
                return Err(InShop::Shop { error: e, manager });
            }
        };
        if let Err(e) = self.pull_staff(&mut shop).await {
            tracing::warn!(error = %e, "the shop's staff could not be mirrored");
        }
        if let Err(e) = self.pull_catalog(&mut shop).await {
            tracing::warn!(error = %e, "the shop's catalog could not be mirrored");
        }
        Ok(done)
    }

    /// Imports a catalog CSV (its good lines; the others are reported); returns what it did
    /// and the catalog after it. On a joined desk the catalog with the CSV's lines goes to
    /// the shop whole, with a manager's authority, and comes back as the shop's.
    pub async fn catalog_import_csv(
        &self,
        actor: &Actor,
        bytes: &[u8],
    ) -> Result<(CsvImport, HashMap<String, CatalogVariant>), DeskError> {
        let now = self.clock().now();
        if self.joined_shop().ok().flatten().is_none() {
            return self.with_store_locked(|s| {
                let done = s.as_actor(actor, now, |s| s.catalog_import_csv(bytes))?;
                Ok((done, s.catalog().map()?))
            });
        }
        let (done, after) = self.with_store_locked(|s| s.catalog_after_import(bytes))?;
        let subject = format!("{} items", done.imported);
        let map = self
            .catalog_to_shop(actor, &after, (AuditAction::CatalogImport, &subject))
            .await?;
        Ok((done, map))
    }

    /// Sends the catalog `after` a change to the shop whole, with a manager's authority
    /// (online only), then records the change on this desk; the catalog as it then stands.
    async fn catalog_to_shop(
        &self,
        actor: &Actor,
        after: &[CatalogVariant],
        (action, subject): (AuditAction, &str),
    ) -> Result<HashMap<String, CatalogVariant>, DeskError> {
        let now = self.clock().now();
        self.change_in_shop(
            actor,
            StaffError::CatalogNeedsShop,
            async |shop, desk, token| shop_catalog::put(shop, desk, token, after).await,
        )
        .await
        .map_err(|e| e.refused(""))?;
        self.with_store_locked(|s| {
            s.audit_append(actor, action, subject, now)?;
            s.catalog().map()
        })
    }

    /// Adds, edits or removes one catalog item ([`CatalogEdit`]); returns the catalog after
    /// it. The server's variants keep the server's price (only their name shown and barcode
    /// change); items the shop adds are its own. On a joined desk the catalog after the change
    /// goes to the shop whole, with a manager's authority (online only: with the shop away,
    /// [`StaffError::CatalogNeedsShop`] and nothing changes), and comes back as the shop's.
    pub async fn catalog_edit(
        &self,
        actor: &Actor,
        edit: &CatalogEdit,
    ) -> Result<HashMap<String, CatalogVariant>, DeskError> {
        let now = self.clock().now();
        if self.joined_shop().ok().flatten().is_none() {
            return self.with_store_locked(|s| {
                s.as_actor(actor, now, |s| match edit {
                    CatalogEdit::Put(item) => s.catalog_put_item(item).map(drop),
                    CatalogEdit::Remove(id) => s.catalog_remove(id),
                })?;
                s.catalog().map()
            });
        }
        let (subject, after) = self.with_store_locked(|s| s.catalog_after_edit(edit))?;
        self.catalog_to_shop(actor, &after, (AuditAction::CatalogEdit, &subject))
            .await
    }

    /// Gives a variant its barcode (or takes it away); returns the catalog after it. On a
    /// joined desk the shop makes the change, with a manager's authority, and refuses a barcode
    /// another item has.
    pub async fn catalog_set_barcode(
        &self,
        actor: &Actor,
        id: &str,
        barcode: Option<&Barcode>,
    ) -> Result<HashMap<String, CatalogVariant>, DeskError> {
        let now = self.clock().now();
        if self.joined_shop().ok().flatten().is_none() {
            return self.with_store_locked(|s| {
                s.as_actor(actor, now, |s| s.catalog_set_barcode(id, barcode))?;
                s.catalog().map()
            });
        }
        let refused = |e: InShop| match e {
            InShop::Shop { error, manager } => match &error {
                ShopError::Database { code, message } if code == shop_catalog::BARCODE_TAKEN => {
                    let (other, name) = message.split_once('|').unwrap_or((message, ""));
                    DeskError::Store(StoreError::BarcodeTaken {
                        barcode: barcode.map(ToString::to_string).unwrap_or_default(),
                        id: other.to_owned(),
                        name: name.to_owned(),
                    })
                }
                ShopError::Database { code, .. } if code == shop_catalog::NO_ITEM => {
                    DeskError::Store(StoreError::NoVariant(id.to_owned()))
                }
                _ => change_refused(error, "", &manager),
            },
            InShop::Desk(e) => e,
        };
        self.change_in_shop(
            actor,
            StaffError::CatalogNeedsShop,
            async |shop, desk, token| {
                shop_catalog::set_barcode(shop, desk, token, id, barcode).await
            },
        )
        .await
        .map_err(refused)?;
        let subject = format!("{id} barcode {}", barcode.map_or("none", Barcode::as_str));
        self.with_store_locked(|s| {
            s.audit_append(actor, AuditAction::CatalogEdit, &subject, now)?;
            s.catalog().map()
        })
    }

    /// Adds a member (on a desk of its own the first one turns staff on; on a joined desk
    /// the shop's first manager is the owner's to add).
    pub async fn staff_add(
        &self,
        actor: &Actor,
        name: &StaffName,
        role: Role,
        pin: &Pin,
    ) -> Result<(), DeskError> {
        if self.joined_shop().ok().flatten().is_none() {
            let now = self.clock().now();
            return self.with_store_locked(|s| s.staff_add(actor, name, role, pin, now));
        }
        let new_pin = match role {
            Role::Counter => NewPin::Clerk(hash_pin(pin).map_err(refusal)?),
            Role::Manager => NewPin::Manager(pin.clone()),
        };
        let subject = format!("{name} ({role})");
        self.staff_change_in_shop(
            actor,
            name.as_str(),
            AuditAction::StaffAdd,
            &subject,
            async |shop, desk, token| {
                shop_staff::add(shop, desk, token, name.as_str(), &new_pin).await
            },
        )
        .await
    }

    /// Turns a member off or on again.
    pub async fn staff_set_active(
        &self,
        actor: &Actor,
        name: &str,
        active: bool,
    ) -> Result<(), DeskError> {
        if self.joined_shop().ok().flatten().is_none() {
            let now = self.clock().now();
            return self.with_store_locked(|s| s.staff_set_active(actor, name, active, now));
        }
        let action = if active {
            AuditAction::StaffEnable
        } else {
            AuditAction::StaffDisable
        };
        self.staff_change_in_shop(actor, name, action, name, async |shop, desk, token| {
            shop_staff::set_active(shop, desk, token, name, active).await
        })
        .await
    }

    /// Gives a member a new PIN (on a joined desk, a clerk: a manager's is the owner's).
    pub async fn staff_reset_pin(
        &self,
        actor: &Actor,
        name: &str,
        pin: &Pin,
    ) -> Result<(), DeskError> {
        if self.joined_shop().ok().flatten().is_none() {
            let now = self.clock().now();
            return self.with_store_locked(|s| s.staff_reset_pin(actor, name, pin, now));
        }
        let hash = hash_pin(pin).map_err(refusal)?;
        self.staff_change_in_shop(
            actor,
            name,
            AuditAction::StaffResetPin,
            name,
            async |shop, desk, token| shop_staff::reset_pin(shop, desk, token, name, &hash).await,
        )
        .await
    }
}
