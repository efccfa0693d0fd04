//! `paydesk shop …`: this desk in a shop (docs/design.md §8).
//!
//! Exit codes, as the rest of the CLI: 3 the URL was refused (a password in it, a bad
//! `sslmode` …), a login that is not what the command needs (the owner's at a desk, a desk's
//! for `shop init`), or a name, nothing done; 4 the shop answered and refused (the password,
//! the certificate, a server that would not bind the password to the TLS channel, no shop
//! schema, an older or newer one, a removed or bound login); 5 the shop did not answer
//! (unreachable, no answer in time; `shop status` too, after saying all it knows); 1 a local
//! failure (the data file, the keyring, the CA file). A desk's password is read from
//! `PAYDESK_SHOP_PASSWORD` (read once by `main` and wiped from the environment), else from stdin
//! (a hidden prompt on a terminal), and kept in the keyring: never in the data file, a log or
//! the command line. The owner's password is read from stdin only, and kept nowhere.

use serde::Serialize;
use zeroize::Zeroizing;

use super::args::ShopArgs;
use super::output::{Exit, Failure, Outcome, from_desk, print_json, read_failure, shop_failure};
use super::prompt::read_secret_line;
use super::run::Ctx;
use super::text::CliText;
use crate::domain::wire_format::format_time;
use crate::service::Services;
use crate::service::shop::{
    CONNECT_TIMEOUT, DeskIdentity, DeskLogin, Joined, ManagerAdded, MembershipError, Password,
    PushError, ShopError, ShopUrl, Weakness, add_desk, add_manager, carried_sentences, desk_logins,
    init_shop, remove_desk, valid_desk_name,
};

/// A join's, leave's or rename's failure as the CLI ends with it.
fn membership_failure(e: MembershipError, lang: crate::lang::Lang) -> Failure {
    match e {
        MembershipError::Shop(e) => shop_failure(&e, lang),
        MembershipError::EmptyPassword => {
            Failure::new(Exit::Invalid, CliText::ShopEmptyPassword.get(lang))
        }
        MembershipError::NameShape => Failure::new(Exit::Invalid, CliText::ShopNameShape.get(lang)),
        MembershipError::NoKeyring(reason) => Failure::new(
            Exit::Failure,
            CliText::ShopNoKeyring.fill(lang, &[("reason", &reason)]),
        ),
        MembershipError::Store(e) => from_desk(lang)(e.into()),
        MembershipError::Invalid { what, value } => {
            Failure::new(Exit::Rejected, what.sentence(&value, lang))
        }
        other @ (MembershipError::Secret(_) | MembershipError::Lost(_)) => {
            Failure::new(Exit::Failure, other.to_string())
        }
    }
}

/// `shop status --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusView {
    joined: bool,
    url: Option<String>,
    connected: bool,
    reason: Option<String>,
    schema_version: Option<i32>,
    plain_off_machine: bool,
    /// What the URL gives up ([`crate::service::shop::Weakness::key`]), each also said in text.
    weaknesses: Vec<&'static str>,
    desk_id: String,
    desk_name: String,
    outbox: u64,
    last_push: Option<String>,
}

/// One line of `shop desks --json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeskView<'a> {
    name: &'a str,
    login: &'a str,
    device: Option<&'a str>,
    joined_at: Option<String>,
    last_push_at: Option<String>,
    removed: bool,
}

impl<'a> DeskView<'a> {
    fn of(l: &'a DeskLogin) -> Self {
        DeskView {
            name: &l.name,
            login: &l.login,
            device: l.device.as_deref(),
            joined_at: l.joined_at.map(format_time),
            last_push_at: l.last_push_at.map(format_time),
            removed: l.removed,
        }
    }
}

impl Ctx {
    pub(super) async fn shop_cmd(&self, services: &Services, command: ShopArgs) -> Outcome {
        match command {
            ShopArgs::Join { url } => self.shop_join(services, &url).await,
            ShopArgs::Status { json } => self.shop_status(services, json).await,
            ShopArgs::Sync => self.shop_sync(services).await,
            ShopArgs::Leave => self.shop_leave(services),
            ShopArgs::Name { name } => self.shop_name(services, &name).await,
            ShopArgs::Init { owner_url } => self.shop_init(&owner_url).await,
            ShopArgs::AddDesk {
                name,
                owner_url,
                json,
            } => self.shop_add_desk(&name, &owner_url, json).await,
            ShopArgs::RemoveDesk { name, owner_url } => {
                self.shop_remove_desk(&name, &owner_url).await
            }
            ShopArgs::Desks { owner_url, json } => self.shop_desks(&owner_url, json).await,
            ShopArgs::AddManager { name, owner_url } => {
                self.shop_add_manager(&name, &owner_url).await
            }
        }
    }

    /// The owner's URL and password: the URL checked first, then the password read from stdin
    /// (a hidden prompt on a terminal). Never from `PAYDESK_SHOP_PASSWORD`: that is a desk's,
    /// and the owner's password must not sit in a till's environment or keyring.
    fn owner(&self, text: &str) -> Result<(ShopUrl, Zeroizing<String>), Failure> {
        let lang = self.lang;
        let url = ShopUrl::parse(text).map_err(|e| shop_failure(&e.into(), lang))?;
        let password = read_secret_line(
            &CliText::ShopOwnerPasswordPrompt.fill(lang, &[("user", &url.user())]),
        )
        .map_err(|e| read_failure(&e, lang))?;
        if password.is_empty() {
            return Err(Failure::new(
                Exit::Invalid,
                CliText::ShopEmptyPassword.get(lang),
            ));
        }
        Ok((url, password))
    }

    async fn shop_init(&self, owner_url: &str) -> Outcome {
        let lang = self.lang;
        let (url, password) = self.owner(owner_url)?;
        let done = init_shop(&url, &password)
            .await
            .map_err(|e| shop_failure(&e, lang))?;
        println!(
            "{}",
            CliText::ShopInitialized.fill(
                lang,
                &[
                    ("url", &url.to_string()),
                    ("from", &done.from),
                    ("to", &done.to),
                    ("role", &done.desks_role),
                ]
            )
        );
        if !done.managers_without_pin.is_empty() {
            println!(
                "{}",
                CliText::ShopManagersWithoutPin
                    .fill(lang, &[("names", &done.managers_without_pin.join(", "))])
            );
        }
        for weak in url.weaknesses() {
            println!("{}", weak.sentence(lang));
        }
        Ok(())
    }

    async fn shop_add_manager(&self, name: &str, owner_url: &str) -> Outcome {
        let lang = self.lang;
        let name = crate::domain::StaffName::parse(name)
            .map_err(|_| super::staff::refused(CliText::StaffNameShape.get(lang).to_owned()))?;
        let (url, password) = self.owner(owner_url)?;
        let pin = self.new_pin(name.as_str())?;
        let done = add_manager(&url, &password, &name, &pin)
            .await
            .map_err(|e| shop_failure(&e, lang))?;
        let text = match done {
            ManagerAdded::Added => CliText::ShopManagerAdded,
            ManagerAdded::PinSet => CliText::ShopManagerPinSet,
        };
        println!("{}", text.fill(lang, &[("name", &name.as_str())]));
        Ok(())
    }

    async fn shop_add_desk(&self, name: &str, owner_url: &str, json: bool) -> Outcome {
        let lang = self.lang;
        let (url, password) = self.owner(owner_url)?;
        let desk = add_desk(&url, &password, name)
            .await
            .map_err(|e| shop_failure(&e, lang))?;
        let join_url = desk.url.to_string();
        if json {
            return print_json(&serde_json::json!({
                "name": desk.name,
                "login": desk.login,
                "url": join_url,
                "password": desk.password.as_str(),
                "adopted": desk.adopted,
            }));
        }
        println!(
            "{}",
            CliText::ShopDeskAdded.fill(lang, &[("name", &desk.name), ("login", &desk.login)])
        );
        if let Some(device) = &desk.adopted {
            println!(
                "{}",
                CliText::ShopDeskAdopted.fill(lang, &[("name", &desk.name), ("device", device)])
            );
        }
        println!("  paydesk shop join '{join_url}'");
        println!("{}", CliText::ShopDeskPassword.get(lang));
        println!("  {}", desk.password.as_str());
        Ok(())
    }

    async fn shop_remove_desk(&self, name: &str, owner_url: &str) -> Outcome {
        let lang = self.lang;
        let (url, password) = self.owner(owner_url)?;
        let removed = remove_desk(&url, &password, name)
            .await
            .map_err(|e| shop_failure(&e, lang))?;
        println!(
            "{}",
            CliText::ShopDeskRemoved.fill(
                lang,
                &[
                    ("name", &name.trim()),
                    ("login", &removed.login),
                    ("n", &removed.sessions_ended),
                ]
            )
        );
        Ok(())
    }

    async fn shop_desks(&self, owner_url: &str, json: bool) -> Outcome {
        let lang = self.lang;
        let (url, password) = self.owner(owner_url)?;
        let logins = desk_logins(&url, &password)
            .await
            .map_err(|e| shop_failure(&e, lang))?;
        if json {
            return print_json(&logins.iter().map(DeskView::of).collect::<Vec<_>>());
        }
        if logins.is_empty() {
            println!("{}", CliText::ShopNoDesks.get(lang));
        }
        let never = CliText::ShopNever.get(lang).to_owned();
        for l in &logins {
            let mut line = match (&l.device, l.joined_at) {
                (Some(device), Some(joined)) => CliText::ShopDeskLine.fill(
                    lang,
                    &[
                        ("name", &l.name),
                        ("login", &l.login),
                        ("device", device),
                        ("joined", &format_time(joined)),
                        ("push", &l.last_push_at.map_or(never.clone(), format_time)),
                    ],
                ),
                _ => {
                    CliText::ShopDeskNotJoined.fill(lang, &[("name", &l.name), ("login", &l.login)])
                }
            };
            if l.removed {
                line.push(' ');
                line.push_str(CliText::ShopDeskIsRemoved.get(lang));
            }
            println!("{line}");
        }
        Ok(())
    }

    /// The desk's id and shown name.
    pub(super) fn desk_identity(&self, services: &Services) -> Result<DeskIdentity, Failure> {
        services.desk_identity().map_err(from_desk(self.lang))
    }

    /// The joined shop's URL, when there is one.
    pub(super) fn joined_url(&self, services: &Services) -> Result<Option<ShopUrl>, Failure> {
        services
            .joined_shop()
            .map_err(|e| membership_failure(e, self.lang))
    }

    /// The shop's password for a command after `join`: `PAYDESK_SHOP_PASSWORD`, else the
    /// keyring's entry.
    pub(super) fn stored_password(
        &self,
        services: &Services,
        url: &ShopUrl,
    ) -> Result<Zeroizing<String>, ShopError> {
        services.shop_password(self.env_shop.value(), url)
    }

    async fn shop_join(&self, services: &Services, text: &str) -> Outcome {
        let lang = self.lang;
        let url = ShopUrl::parse(text).map_err(|e| shop_failure(&e.into(), lang))?;
        let from_env = self.env_shop.value();
        let password = match &from_env {
            Some(pw) => Password::FromEnv(pw.clone()),
            None => Password::Typed(
                read_secret_line(&CliText::ShopPasswordPrompt.fill(lang, &[("user", &url.user())]))
                    .map_err(|e| read_failure(&e, lang))?,
            ),
        };
        let Joined {
            identity,
            schema_version,
            carried,
            ..
        } = services
            .join_shop(&url, password)
            .await
            .map_err(|e| membership_failure(e, lang))?;
        let canonical = url.to_string();
        println!(
            "{}",
            CliText::ShopJoined.fill(
                lang,
                &[
                    ("desk", &identity.id),
                    ("name", &identity.name),
                    ("url", &canonical),
                    ("version", &schema_version),
                ]
            )
        );
        for line in carried_sentences(&carried, lang) {
            println!("{line}");
        }
        if from_env.is_some() {
            println!("{}", CliText::ShopPasswordFromEnv.get(lang));
        }
        for weak in url.weaknesses() {
            println!("{}", weak.sentence(lang));
        }
        Ok(())
    }

    async fn shop_status(&self, services: &Services, json: bool) -> Outcome {
        let lang = self.lang;
        let identity = self.desk_identity(services)?;
        let row = services.shop_desk().map_err(from_desk(lang))?;
        let url = self.joined_url(services)?;
        let state = match &url {
            None => None,
            Some(url) => Some(match self.stored_password(services, url) {
                Ok(pw) => services.shop_state(url, &pw, &identity).await,
                Err(e) => Err(e),
            }),
        };
        let outbox = services.outbox_len().map_err(from_desk(lang))?;
        let last_push = row.last_push_at.map(format_time);
        // Said in full first; then a shop that did not answer ends with 5, one that refused
        // (the password, the certificate, channel binding) with 4, as the other shop commands.
        let unreached = match &state {
            Some(Err(e)) if e.is_no_answer() || e.is_refusal() => Some(shop_failure(e, lang)),
            _ => None,
        };
        if json {
            print_json(&StatusView {
                joined: url.is_some(),
                url: url.as_ref().map(ToString::to_string),
                connected: matches!(state, Some(Ok(_))),
                reason: match &state {
                    Some(Err(e)) => Some(e.sentence(lang)),
                    _ => None,
                },
                schema_version: match &state {
                    Some(Ok(s)) => Some(s.schema_version),
                    _ => None,
                },
                plain_off_machine: url.as_ref().is_some_and(ShopUrl::plain_off_machine),
                weaknesses: url
                    .as_ref()
                    .map(|u| u.weaknesses().into_iter().map(Weakness::key).collect())
                    .unwrap_or_default(),
                desk_id: identity.id,
                desk_name: identity.name,
                outbox,
                last_push,
            })?;
            return unreached.map_or(Ok(()), Err);
        }
        match (&url, &state) {
            (Some(url), Some(state)) => {
                println!(
                    "{}",
                    CliText::ShopStatusShop.fill(lang, &[("url", &url.to_string())])
                );
                match state {
                    Ok(s) => println!(
                        "{}",
                        CliText::ShopConnected.fill(lang, &[("version", &s.schema_version)])
                    ),
                    Err(e) => println!(
                        "{}",
                        CliText::ShopNotConnected.fill(lang, &[("reason", &e.sentence(lang))])
                    ),
                }
                for weak in url.weaknesses() {
                    println!("{}", weak.sentence(lang));
                }
            }
            _ => println!("{}", CliText::ShopNotJoined.get(lang)),
        }
        println!(
            "{}",
            CliText::ShopStatusDesk.fill(lang, &[("id", &identity.id), ("name", &identity.name)])
        );
        println!("{}", CliText::ShopOutbox.fill(lang, &[("n", &outbox)]));
        let never = CliText::ShopNever.get(lang).to_owned();
        println!(
            "{}",
            CliText::ShopLastPush.fill(lang, &[("when", &last_push.unwrap_or(never))])
        );
        unreached.map_or(Ok(()), Err)
    }

    async fn shop_sync(&self, services: &Services) -> Outcome {
        let lang = self.lang;
        let Some(url) = self.joined_url(services)? else {
            return Err(Failure::new(
                Exit::Invalid,
                CliText::ShopNotJoined.get(lang),
            ));
        };
        let password = self
            .stored_password(services, &url)
            .map_err(|e| shop_failure(&e, lang))?;
        let mut shop = crate::service::shop::open_shop(&url, &password, CONNECT_TIMEOUT)
            .await
            .map_err(|e| shop_failure(&e, lang))?;
        let pushed = services
            .push_to_shop(&mut shop)
            .await
            .map_err(|e| match e {
                PushError::Shop(e) => shop_failure(&e, lang),
                PushError::Store(e) => from_desk(lang)(e.into()),
                other @ PushError::Amount { .. } => Failure::new(Exit::Failure, other.to_string()),
            })?;
        println!(
            "{}",
            CliText::ShopPushed.fill(
                lang,
                &[
                    ("rows", &pushed.rows),
                    ("batches", &pushed.batches),
                    ("changed", &pushed.changed),
                ]
            )
        );
        if let Some(seq) = pushed.audit_fork {
            eprintln!("{}", CliText::ShopAuditForked.fill(lang, &[("seq", &seq)]));
        }
        self.shop_read_back(services, &shop).await?;
        self.shop_pull_shared(services, &mut shop).await
    }

    fn shop_leave(&self, services: &Services) -> Outcome {
        let lang = self.lang;
        let Some(url) = services
            .leave_shop()
            .map_err(|e| membership_failure(e, lang))?
        else {
            println!("{}", CliText::ShopNotJoined.get(lang));
            return Ok(());
        };
        println!(
            "{}",
            CliText::ShopLeft.fill(lang, &[("url", &url.to_string())])
        );
        Ok(())
    }

    async fn shop_name(&self, services: &Services, name: &str) -> Outcome {
        let lang = self.lang;
        let name = name.trim();
        if !valid_desk_name(name) {
            return Err(Failure::new(
                Exit::Invalid,
                CliText::ShopNameShape.get(lang),
            ));
        }
        services
            .set_desk_name(Some(name))
            .map_err(from_desk(lang))?;
        println!("{}", CliText::ShopNamed.fill(lang, &[("name", &name)]));
        if let Some(url) = self.joined_url(services)? {
            let identity = self.desk_identity(services)?;
            let sent = match self.stored_password(services, &url) {
                Ok(pw) => services.rename_in_shop(&url, &pw, &identity).await,
                Err(e) => Err(e),
            };
            if let Err(e) = sent {
                eprintln!(
                    "{}",
                    CliText::ShopNameNotSent.fill(lang, &[("reason", &e.sentence(lang))])
                );
            }
        }
        Ok(())
    }
}
