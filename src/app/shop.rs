//! This desk in a shop (docs/design.md §8, "The app in a shop"): the session started when a
//! profile opens on a desk that joined one, its events taken into the state each frame (the
//! top bar's offline line, the board read again), a push asked for after each local change,
//! and Settings' Shop database section (join, leave, the desk's name) through
//! `shop::membership`, as the CLI's `shop join`, `shop leave` and `shop name`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use super::App;
use super::errors::JobError;
use super::msg::{Duty, Msg, ShopBoot, ShopResult};
use crate::lang::Lang;
use crate::service::shop::{Carried, Carry};
use crate::service::shop::{
    CatalogPulled, Channel, DeskIdentity, DeskLogin, Kept, MembershipError, Password,
    SessionConfig, SessionEvent, ShopError, ShopReader, ShopSession, ShopUrl, StaffPulled,
    add_desk, add_manager, carried_sentences, desk_logins, init_shop, release_leases, remove_desk,
};
use crate::service::{Desk, Services};
use crate::ui::ShopCommand;
use crate::ui::command::OwnerAsk;
use crate::ui::problem::{Explain, Problem};
use crate::ui::shop::{ShopReach, reach_sentence};
use crate::ui::shop_owner::OwnerDone;
use crate::ui::text::UiText;

/// The longest the app waits at exit for the session to push and give its leases back.
pub const CLOSE_LIMIT: Duration = Duration::from_secs(2);

/// What the desk holds of the shop.
#[derive(Debug, Default)]
pub struct ShopHold {
    /// The link to the shop, while joined.
    pub(crate) session: Option<ShopSession>,
    /// Whether the shop answers.
    pub reach: ShopReach,
    /// The shop joined.
    pub url: Option<ShopUrl>,
    /// This desk.
    pub desk: Option<DeskIdentity>,
    /// Changes waiting in the outbox, when known.
    pub outbox: Option<u64>,
    /// Why the last push failed while the shop answered (a damaged row, the data file):
    /// the changes wait, and the top bar says so until a push goes through.
    pub push_failed: Option<String>,
    /// The board's links of this desk's account that other desks made: followed for their
    /// makers, never alerted here (the paid alert goes to the desk that made the link).
    pub made_elsewhere: HashSet<String>,
    /// The row from which this desk's audit record differs from the shop's copy, as the last
    /// push found (`audit verify` names it).
    pub audit_fork: Option<i64>,
}

/// Reads the desk's place in a shop from the data file (on the worker).
pub(crate) fn read_shop(services: &Services) -> ShopBoot {
    let url = services.joined_shop().unwrap_or_else(|e| {
        tracing::warn!(error = %e, "the joined shop's URL cannot be read");
        None
    });
    ShopBoot {
        url,
        desk: services.desk_identity().ok(),
        outbox: services.outbox_len().ok(),
    }
}

/// Mirrors the shop's catalog and staff into the desk's file when they changed (on the
/// worker; each call within the reader's query limit): what scanning, totals and PINs read,
/// online or not.
async fn pull_shared(reader: ShopReader, services: Arc<Services>, desk: Desk) -> Msg {
    let nothing = Msg::Shop(ShopResult::Pulled {
        catalog: None,
        staff: false,
    });
    let Some(mut shop) = reader.connection().await else {
        return nothing;
    };
    let limit = reader.query_limit();
    let catalog = match tokio::time::timeout(limit, services.pull_catalog(&mut shop)).await {
        Ok(Ok(CatalogPulled::Mirrored { .. })) => desk.catalog().ok(),
        Ok(Ok(_)) | Err(_) => None,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the shop's catalog could not be mirrored");
            None
        }
    };
    let staff = match tokio::time::timeout(limit, services.pull_staff(&mut shop)).await {
        Ok(Ok(StaffPulled::Mirrored { .. })) => true,
        Ok(Ok(StaffPulled::Unchanged)) | Err(_) => false,
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the shop's staff could not be mirrored");
            false
        }
    };
    drop(shop);
    Msg::Shop(ShopResult::Pulled { catalog, staff })
}

/// A join's, leave's or rename's failure in one sentence (the detail apart); a shop that did
/// not answer or refused adds that the desk goes on alone.
pub fn membership_problem(e: &MembershipError, lang: Lang) -> Problem {
    let alone = UiText::ShopWorksAlone.get(lang);
    match e {
        MembershipError::Shop(s) => Problem::with_detail(
            format!("{} {alone}", reach_sentence(s, lang)),
            s.to_string(),
        ),
        MembershipError::EmptyPassword => Problem::plain(UiText::ShopPasswordEmpty.get(lang)),
        MembershipError::NameShape => Problem::plain(UiText::DeskNameShape.get(lang)),
        MembershipError::NoKeyring(why) => {
            Problem::with_detail(UiText::ShopNoKeyringJoin.get(lang), why.clone())
        }
        MembershipError::Secret(s) => {
            Problem::with_detail(UiText::KeyringFailed.get(lang), s.to_string())
        }
        MembershipError::Store(s) => {
            Problem::with_detail(UiText::LocalDataFailed.get(lang), s.to_string())
        }
        MembershipError::Lost(why) => JobError::Lost(why.clone()).problem(lang),
        MembershipError::Invalid { what, value } => {
            Problem::plain(format!("{} {alone}", what.sentence(value, lang)))
        }
    }
}

impl App {
    /// The profile opened: the shop it joined (if any) is known, and its session runs.
    pub(crate) fn shop_booted(&mut self, boot: ShopBoot) {
        if let Some(desk) = &boot.desk {
            self.views.shop.name_saved(&desk.name);
        }
        self.shop.desk = boot.desk;
        self.shop.outbox = boot.outbox;
        self.shop.url = boot.url;
        self.start_session();
    }

    /// Starts the session for the shop joined, unless one runs for it already; stops it when
    /// the desk joined none.
    fn start_session(&mut self) {
        let Some(url) = self.shop.url.clone() else {
            self.shop.session = None;
            self.shop.reach = ShopReach::NotJoined;
            return;
        };
        if self
            .shop
            .session
            .as_ref()
            .is_some_and(|s| s.url().to_string() == url.to_string())
        {
            return;
        }
        let (Some(services), Some(runtime)) = (self.holds.services.clone(), self.worker.handle())
        else {
            return;
        };
        let config = SessionConfig {
            url,
            env_password: self.options.env_shop.value(),
            secrets: Arc::clone(services.secrets()),
            clock: Arc::clone(services.clock()),
            store: services,
            timing: self.options.shop_timing,
        };
        let ctx = self.ctx.clone();
        // The old session (another shop) stops when dropped here.
        self.shop.session = Some(ShopSession::start(
            &runtime,
            config,
            Arc::new(move || ctx.request_repaint()),
        ));
        self.shop.reach = ShopReach::Connecting;
    }

    /// Takes the session's events into the state; never waits.
    pub(crate) fn drain_shop(&mut self) {
        let Some(session) = &self.shop.session else {
            return;
        };
        for event in session.events() {
            self.on_shop_event(event);
        }
    }

    fn on_shop_event(&mut self, event: SessionEvent) {
        match event {
            SessionEvent::Online { since } => {
                self.shop.reach = ShopReach::Online { since };
                self.views.board.read_again();
                self.pull_shared();
            }
            SessionEvent::Offline { since, reason, .. } => {
                if !matches!(self.shop.reach, ShopReach::Offline { .. }) {
                    tracing::warn!(error = %reason, "the shop cannot be reached");
                    // The board shows this desk's own rows again.
                    self.views.board.read_again();
                }
                self.shop.reach = ShopReach::Offline { since, reason };
            }
            SessionEvent::Pushed { pushed } => {
                self.shop.push_failed = None;
                if pushed.audit_fork.is_some() && self.shop.audit_fork != pushed.audit_fork {
                    tracing::warn!(
                        row = pushed.audit_fork,
                        "this desk's audit record differs from the shop's; its new rows are not sent"
                    );
                }
                self.shop.audit_fork = pushed.audit_fork;
                if let Some(n) = &mut self.shop.outbox {
                    *n = n.saturating_sub(pushed.rows);
                }
                if pushed.changed > 0 {
                    // The day close reads the shop's rows: this desk's link is in them now.
                    self.views.report.invalidate();
                }
            }
            SessionEvent::PushFailed { reason } => {
                if self.shop.push_failed.is_none() {
                    tracing::warn!(%reason, "the outbox could not be pushed");
                }
                self.shop.push_failed = Some(reason);
            }
            SessionEvent::Changed {
                channel: Channel::Links,
                ..
            } => {
                self.views.board.read_again();
                self.views.report.invalidate();
            }
            // The slow poll: a notification may have been missed.
            SessionEvent::Poll => {
                self.views.board.read_again();
                self.pull_shared();
            }
            SessionEvent::Changed {
                channel: Channel::Catalog | Channel::Staff,
                ..
            } => self.pull_shared(),
            // Only `close_shop` closes a session, and it takes this event itself.
            SessionEvent::Closed => {}
        }
    }

    /// The shop's staff or catalog replaced this desk's at the join: the views read them
    /// again from the file, on the worker.
    fn mirrored_at_join(&mut self, carried: Carried) {
        let replaced = |c: Carry| matches!(c, Carry::Replaced { .. });
        let (catalog, staff) = (replaced(carried.catalog), replaced(carried.staff));
        let Some(desk) = self.holds.desk.clone().filter(|_| catalog || staff) else {
            return;
        };
        let duty = self.own_duty();
        self.spawn(&duty, async move {
            Msg::Shop(ShopResult::Pulled {
                catalog: if catalog { desk.catalog().ok() } else { None },
                staff,
            })
        });
    }

    /// Mirrors the shop's catalog and staff, on the worker, while the shop answers.
    fn pull_shared(&mut self) {
        let (Some((reader, _)), Some(services), Some(desk)) = (
            self.shop_reader(),
            self.holds.services.clone(),
            self.holds.desk.clone(),
        ) else {
            return;
        };
        let duty = self.own_duty();
        self.spawn(&duty, pull_shared(reader, services, desk));
    }

    /// The shop's connection for a reader, with this desk's id, while the shop answers.
    pub(crate) fn shop_reader(&self) -> Option<(ShopReader, String)> {
        if !matches!(self.shop.reach, ShopReach::Online { .. }) {
            return None;
        }
        let session = self.shop.session.as_ref()?;
        let desk = self.shop.desk.as_ref()?;
        Some((session.reader(), desk.id.clone()))
    }

    /// The reads of `desk`: through the shop while this desk is joined and online, else its
    /// own file (`service::shared::Reads` decides, for every view).
    pub(crate) fn reads(&self, desk: crate::service::Desk) -> crate::service::shared::Reads {
        crate::service::shared::Reads::new(desk, self.shop_reader())
    }

    /// The app exits: the session pushes, gives this desk's poll leases back (another desk
    /// polls its links at once) and ends, within [`CLOSE_LIMIT`]. Whether it did.
    pub fn close_shop(&mut self) -> bool {
        self.shop
            .session
            .take()
            .is_some_and(|session| session.close(CLOSE_LIMIT))
    }

    /// A local change may be in the outbox: the session pushes it now (when online).
    pub(crate) fn push_soon(&mut self) {
        if let Some(session) = &self.shop.session {
            session.push_soon();
            self.shop.outbox = None;
        }
    }

    /// The shop's URL as typed, or `None` with the Shop view told why it is refused.
    fn shop_url_typed(&mut self, url: &str) -> Option<ShopUrl> {
        match ShopUrl::parse(url) {
            Ok(u) => Some(u),
            Err(e) => {
                let e = MembershipError::Shop(e.into());
                self.views
                    .shop
                    .on_refused(membership_problem(&e, self.lang()));
                None
            }
        }
    }

    /// Runs a Shop database command.
    pub(crate) fn run_shop(&mut self, command: ShopCommand, duty: &Duty) {
        let Some(services) = self.holds.services.clone() else {
            self.views.shop.on_not_sent();
            return;
        };
        match command {
            ShopCommand::Join { url, password } => {
                let Some(url) = self.shop_url_typed(&url) else {
                    return;
                };
                let password = if password.is_empty() {
                    self.options.env_shop.value().map(Password::FromEnv)
                } else {
                    Some(Password::Typed(password))
                };
                self.spawn(duty, async move {
                    let result = match password {
                        None => Err(MembershipError::EmptyPassword),
                        Some(p) => services.join_shop(&url, p).await,
                    };
                    Msg::Shop(ShopResult::Joined { result })
                });
            }
            ShopCommand::Test { url, password } => {
                let Some(url) = self.shop_url_typed(&url) else {
                    return;
                };
                let password = if password.is_empty() {
                    self.options.env_shop.value()
                } else {
                    Some(password)
                };
                self.spawn(duty, async move {
                    let result = match password {
                        None => Err(ShopError::NoPassword),
                        Some(p) => match services.desk_identity() {
                            Ok(identity) => {
                                services.shop_state(&url, &p, &identity).await.map(|_| ())
                            }
                            Err(e) => Err(ShopError::Unreachable {
                                target: url.host_text(),
                                reason: e.to_string(),
                            }),
                        },
                    };
                    Msg::Shop(ShopResult::Tested { result })
                });
            }
            ShopCommand::ChooseCa => {
                let dialogs = self.options.file_dialogs.clone();
                let title = UiText::ShopCaChoose.get(self.lang()).to_owned();
                self.spawn(duty, async move {
                    let choice = dialogs
                        .open(super::files::FileKind::Pem, &title, None)
                        .await;
                    Msg::Shop(ShopResult::CaChosen { choice })
                });
            }
            ShopCommand::Leave => {
                self.views.shop.on_leave_sent();
                let shop = self.shop_reader();
                self.spawn(duty, async move {
                    // The links this desk polls go to the next desk at once, not in 8 s.
                    if let Some((reader, desk_id)) = shop
                        && let Some(shop) = reader.connection().await
                    {
                        let release = release_leases(&shop, &desk_id);
                        if let Ok(Err(e)) =
                            tokio::time::timeout(reader.query_limit(), release).await
                        {
                            tracing::warn!(error = %e, "the desk's poll leases were not released");
                        }
                    }
                    let result = tokio::task::spawn_blocking(move || services.leave_shop())
                        .await
                        .unwrap_or_else(|e| Err(MembershipError::Lost(e.to_string())));
                    Msg::Shop(ShopResult::Left { result })
                });
            }
            ShopCommand::NameDesk { name } => {
                self.spawn(duty, async move {
                    let result = services.rename_desk(&name);
                    Msg::Shop(ShopResult::Named { result })
                });
            }
            ShopCommand::Reconnect => {
                if let Some(s) = &self.shop.session {
                    s.reconnect_now();
                }
            }
            ShopCommand::Owner { url, password, ask } => {
                let url = match ShopUrl::parse(&url) {
                    Ok(u) => u,
                    Err(e) => {
                        let e = ShopError::Url(e);
                        self.views
                            .shop
                            .on_owner_refused(owner_problem(&e, self.lang()));
                        return;
                    }
                };
                self.spawn(duty, async move {
                    let result = owner_step(&url, &password, ask).await;
                    Msg::Shop(ShopResult::Owner { result })
                });
            }
        }
    }

    /// Takes a Shop database result into the state.
    pub(crate) fn apply_shop(&mut self, result: ShopResult) {
        let lang = self.lang();
        self.views.shop.on_answer();
        match result {
            ShopResult::Joined { result: Ok(joined) } => {
                if let Kept::ThisRunOnly(why) = &joined.kept {
                    tracing::warn!(%why, "no keyring: the shop's password is kept for this run");
                }
                let carried = carried_sentences(&joined.carried, lang);
                self.views
                    .shop
                    .on_joined(&joined.kept, &joined.identity.name, &carried, lang);
                self.mirrored_at_join(joined.carried);
                self.shop.desk = Some(joined.identity);
                self.shop.url = Some(joined.url);
                // A session with another shop (or none) gives way to one with this shop.
                self.shop.session = None;
                self.start_session();
            }
            ShopResult::Tested { result } => {
                self.views
                    .shop
                    .on_tested(result.map_err(|e| reach_sentence(&e, lang)), lang);
            }
            ShopResult::CaChosen { choice } => {
                if let super::files::Choice::Picked(path) = choice {
                    self.views.shop.on_ca_picked(&path.display().to_string());
                }
            }
            ShopResult::Left { result: Ok(left) } => {
                self.shop.session = None;
                self.shop.url = None;
                self.shop.reach = ShopReach::NotJoined;
                self.views.board.read_again();
                self.views.shop.on_left(left.is_some(), lang);
            }
            ShopResult::Named { result: Ok(name) } => {
                self.views.shop.on_named(&name, lang);
                if let Some(desk) = &mut self.shop.desk {
                    desk.name = name;
                }
                if let Some(s) = &self.shop.session {
                    s.register_again();
                }
            }
            ShopResult::Pulled { catalog, staff } => {
                if let Some(catalog) = catalog {
                    self.set_catalog(catalog);
                }
                if staff {
                    self.run(crate::ui::Command::Staff(
                        crate::ui::StaffCommand::LoadStaff,
                    ));
                }
            }
            ShopResult::Owner {
                result: Ok((done, desks)),
            } => self.views.shop.on_owner_done(done, desks, lang),
            ShopResult::Owner { result: Err(e) } => {
                tracing::warn!(error = %e, "shop owner");
                self.views.shop.on_owner_refused(owner_problem(&e, lang));
            }
            ShopResult::Joined { result: Err(e) }
            | ShopResult::Left { result: Err(e) }
            | ShopResult::Named { result: Err(e) } => {
                tracing::warn!(error = %e, "shop settings");
                self.views.shop.on_refused(membership_problem(&e, lang));
            }
        }
    }
}

/// One step of the shop's owner, then the desks listed again (each a connection of its own
/// with the owner's password, which is dropped with the step).
async fn owner_step(
    url: &ShopUrl,
    password: &zeroize::Zeroizing<String>,
    ask: OwnerAsk,
) -> Result<(OwnerDone, Vec<DeskLogin>), ShopError> {
    let done = match ask {
        OwnerAsk::Init => OwnerDone::Initialized(init_shop(url, password).await?),
        OwnerAsk::AddDesk { name } => OwnerDone::Added(add_desk(url, password, &name).await?),
        OwnerAsk::RemoveDesk { name } => {
            let removed = remove_desk(url, password, &name).await?;
            OwnerDone::Removed { name, removed }
        }
        OwnerAsk::Desks => OwnerDone::Listed,
        OwnerAsk::AddManager { name, pin } => OwnerDone::Manager {
            added: add_manager(url, password, &name, &pin).await?,
            name: name.to_string(),
        },
    };
    Ok((done, desk_logins(url, password).await?))
}

/// An owner's step refused, as Settings says it: the shop's sentence, its own words on hover.
fn owner_problem(e: &ShopError, lang: Lang) -> Problem {
    Problem::with_detail(reach_sentence(e, lang), e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::app;
    use crate::service::shop::Pushed;

    #[test]
    fn the_day_close_is_made_again_when_the_shops_links_change() {
        let mut app = app();
        let day = chrono::Utc::now().date_naive();
        app.views.report.set_loaded((day, day));
        // A push that changed no link (a replay) leaves the report as it is.
        app.on_shop_event(SessionEvent::Pushed {
            pushed: Pushed {
                rows: 1,
                ..Pushed::default()
            },
        });
        assert_eq!(app.views.report.loaded(), Some((day, day)));
        // This desk's new link is in the shop's rows now.
        app.on_shop_event(SessionEvent::Pushed {
            pushed: Pushed {
                rows: 1,
                changed: 1,
                ..Pushed::default()
            },
        });
        assert_eq!(app.views.report.loaded(), None);
        // Another desk's link reached the shop.
        app.views.report.set_loaded((day, day));
        app.on_shop_event(SessionEvent::Changed {
            channel: Channel::Links,
            desk: "d2".to_owned(),
        });
        assert_eq!(app.views.report.loaded(), None);
    }
}
