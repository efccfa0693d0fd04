//! Profiles: opening one (start-up and switches), adding, updating and removing them, and
//! their secrets in the keyring.

use std::sync::Arc;

use super::errors::JobError;
use super::msg::{Boot, Duty, Msg, ProfilesResult};
use super::{App, AppOptions, Connection, Resend, View};
use crate::secrets::SecretError;
use crate::service::{SANDBOX_PROFILE, Services};
use crate::ui::ProfilesCommand;
use crate::ui::problem::Explain;
use crate::ui::settings::SecretStatus;
use crate::ui::text::UiText;

impl App {
    /// Opens the profile (start-up and switches), in the background.
    pub(crate) fn boot(&mut self) {
        self.holds.connection = Connection::Connecting;
        let options = self.options.clone();
        let wanted = self.profile_name();
        let services = self
            .holds
            .services
            .clone()
            .or_else(|| options.services.clone());
        let duty = self.own_duty();
        self.spawn(&duty, async move {
            let result =
                tokio::task::spawn_blocking(move || open_profile(&options, services, &wanted))
                    .await
                    .map_err(JobError::from)
                    .and_then(|r| r);
            Msg::Profiles(ProfilesResult::Booted {
                result: result.map(Box::new),
            })
        });
    }

    /// Runs a profiles command.
    pub(crate) fn run_profiles(&mut self, command: ProfilesCommand, duty: &Duty) {
        match command {
            ProfilesCommand::Switch { name } => {
                self.options.profile = Some(name);
                self.holds.desk = None;
                self.resend = Resend {
                    running: false,
                    due: false,
                    next: None,
                    interval: self.options.resend_first,
                };
                self.views.new_link.on_send_not_journaled();
                self.put_shown_away();
                self.view = View::NewLink;
                self.refresher.reset();
                self.views.board.clear();
                self.boot();
            }
            ProfilesCommand::Save { profile, existing } => {
                let Some(services) = self.holds.services.clone() else {
                    return;
                };
                let actor = duty.actor.clone();
                self.spawn(duty, async move {
                    let result = services
                        .profile_save(&actor, &profile, existing)
                        .map_err(JobError::from);
                    Msg::Profiles(ProfilesResult::Listed { result })
                });
            }
            ProfilesCommand::Remove { name } => {
                let Some(services) = self.holds.services.clone() else {
                    return;
                };
                let actor = duty.actor.clone();
                self.spawn(duty, async move {
                    let result = services
                        .profile_remove(&actor, &name)
                        .map_err(JobError::from);
                    Msg::Profiles(ProfilesResult::Listed { result })
                });
            }
            ProfilesCommand::StoreSecret {
                profile,
                api_key,
                secret,
            } => {
                let secrets = Arc::clone(&self.options.secrets);
                let actor = duty.actor.clone();
                let services = self.holds.services.clone();
                let name = profile.clone();
                self.spawn(
                    duty,
                    secret_job(name, move || {
                        let r = crate::secrets::SecretStore::set(
                            &*secrets, &profile, &api_key, &secret,
                        );
                        drop(secret);
                        if r.is_ok() {
                            audit_secret(services.as_deref(), &actor, &profile);
                        }
                        secret_status(r.map(|()| true), secrets.unavailable())
                    }),
                );
            }
            ProfilesCommand::CheckSecret { profile, api_key } => {
                let secrets = Arc::clone(&self.options.secrets);
                self.views.settings.on_checking_secret(profile.clone());
                let name = profile.clone();
                self.spawn(
                    duty,
                    secret_job(name, move || {
                        let r = crate::secrets::SecretStore::get(&*secrets, &profile, &api_key)
                            .map(|s| s.is_some());
                        secret_status(r, secrets.unavailable())
                    }),
                );
            }
        }
    }

    /// Takes a profiles result into the state.
    pub(crate) fn apply_profiles(&mut self, result: ProfilesResult) {
        let lang = self.lang();
        match result {
            ProfilesResult::Booted { result: Ok(boot) } => self.booted(*boot),
            ProfilesResult::Booted { result: Err(e) } => {
                let why = e.problem(lang).sentence;
                self.holds.connection =
                    Connection::Disconnected(format!("{}: {why}", UiText::StartFailed.get(lang)));
            }
            ProfilesResult::Listed { result } => {
                if let Ok(list) = &result {
                    self.holds.profiles.clone_from(list);
                }
                self.views.settings.on_saved(result, lang);
            }
            ProfilesResult::Secret { profile, status } => {
                let status =
                    status.unwrap_or_else(|e| SecretStatus::Failed(e.problem(lang).sentence));
                self.views.settings.on_secret(profile, status);
            }
        }
    }

    /// A profile was opened: the desk, its catalog, profiles and pending rows in; the views
    /// that show the previous profile's data read it again; the pending rows are re-sent.
    fn booted(&mut self, boot: Boot) {
        let lang = self.lang();
        self.saved.last_profile = Some(boot.desk.profile().name.clone());
        self.holds.limits = boot.desk.limits();
        self.holds.services = Some(boot.services);
        self.holds.desk = Some(boot.desk);
        self.holds.connection = match boot.fallback {
            Some(e) => {
                let problem = e.problem(lang);
                let why = problem.sentence.clone();
                // Said where the user asked for the profile, not only in a tooltip.
                self.views.settings.on_profile_failed(problem);
                Connection::Disconnected(why)
            }
            None => Connection::Connected,
        };
        self.set_catalog(boot.catalog);
        self.views.settings.on_profiles(boot.profiles.clone());
        self.holds.profiles = boot.profiles;
        self.views.pending.on_rows(boot.pending);
        if let Some(members) = boot.staff {
            self.staff_listed(members);
        }
        if let Some(order) = boot.order_number {
            self.views.new_link.on_order_number(order);
        }
        self.views.history.reset_keeping_filter();
        self.views.report.on_profile_opened();
        self.shop_booted(boot.shop);
        // Resume the journal's pending rows of this profile.
        self.start_resend();
    }
}

/// Opens the services (once) and the desk of `wanted`; falls back to the sandbox when the
/// profile cannot be opened (no secret, bad URL), saying why.
fn open_profile(
    options: &AppOptions,
    services: Option<Arc<Services>>,
    wanted: &str,
) -> Result<Boot, JobError> {
    let services = if let Some(s) = services {
        s.set_shop_env(options.env_shop.value());
        s
    } else {
        let dir = options
            .data_dir
            .clone()
            .or_else(crate::service::default_data_dir)
            .ok_or(JobError::NoDataFolder)?;
        let env = options.env_secret.value();
        let secrets = Arc::clone(&options.secrets);
        std::fs::create_dir_all(&dir).map_err(JobError::file(&dir))?;
        Arc::new(
            Services::open(&dir, secrets, Arc::clone(&options.clock), env)?
                .with_shop_env(options.env_shop.value()),
        )
    };
    let (desk, fallback) = match services.desk(wanted) {
        Ok(d) => (d, None),
        Err(e) if wanted != SANDBOX_PROFILE => (services.desk(SANDBOX_PROFILE)?, Some(e.into())),
        Err(e) => return Err(e.into()),
    };
    let order_number = desk.next_order_number().ok();
    let catalog = desk.catalog().unwrap_or_default();
    let profiles = services.profile_list().unwrap_or_default();
    let pending = desk.pending().unwrap_or_default();
    let staff = services.staff_list().ok();
    let shop = super::shop::read_shop(&services);
    Ok(Boot {
        services,
        desk,
        order_number,
        catalog,
        profiles,
        pending,
        staff,
        fallback,
        shop,
    })
}

/// A keyring job for `profile`'s secret, on the blocking pool (the keyring blocks); answered
/// with the secret's status.
async fn secret_job(
    profile: String,
    keyring: impl FnOnce() -> Result<SecretStatus, JobError> + Send + 'static,
) -> Msg {
    let status = tokio::task::spawn_blocking(keyring)
        .await
        .map_err(JobError::from)
        .and_then(|r| r);
    Msg::Profiles(ProfilesResult::Secret { profile, status })
}

/// Records who stored a profile's secret (the keyring holds it, so no database change comes
/// with the audit row).
fn audit_secret(services: Option<&Services>, actor: &crate::domain::Actor, profile: &str) {
    let Some(services) = services else {
        return;
    };
    let audited = services.record_secret_stored(actor, profile);
    if let Err(e) = audited {
        tracing::warn!(error = %e, "the secret's audit row was not written");
    }
}

/// What the settings show for a secret: stored, missing, or kept for this run only because
/// there is no keyring; a keyring that failed otherwise is the job's error.
fn secret_status(
    r: Result<bool, SecretError>,
    unavailable: Option<String>,
) -> Result<SecretStatus, JobError> {
    match (r, unavailable) {
        (Ok(_), Some(why)) | (Err(SecretError::Unavailable(why)), _) => {
            Ok(SecretStatus::NoKeyring(why))
        }
        (Ok(true), None) => Ok(SecretStatus::Stored),
        (Ok(false), None) => Ok(SecretStatus::Missing),
        (Err(e), _) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use zeroize::Zeroizing;

    use super::*;
    use crate::app::Command;
    use crate::app::testing::{app, only, run, settle};
    use crate::service::Profile;
    use crate::ui::problem::Note;

    fn shop() -> Profile {
        Profile::new("shop", "https://api.example.com", "key-1")
    }

    #[test]
    fn switch_forgets_the_profile_shown_and_opens_the_other() {
        let mut app = app();
        crate::app::testing::make_link(&mut app, "A-1");
        app.view = View::Board;
        app.views.customer.on_asked(true, false);
        app.run(Command::Profiles(ProfilesCommand::Switch {
            name: SANDBOX_PROFILE.into(),
        }));
        assert!(app.holds.desk.is_none());
        assert!(app.views.shown.is_none() && !app.views.customer.is_open());
        assert_eq!(app.view, View::NewLink);
        assert_eq!(app.holds.connection, Connection::Connecting);
        settle(&mut app);
        assert_eq!(app.holds.connection, Connection::Connected);
        assert!(app.holds.desk.is_some());
    }

    #[test]
    fn a_profile_that_cannot_be_opened_falls_back_to_the_sandbox_saying_why() {
        let mut app = app();
        let answer = only(run(
            &mut app,
            Command::Profiles(ProfilesCommand::Save {
                profile: Box::new(shop()),
                existing: false,
            }),
        ));
        app.on_msg(answer);
        app.run(Command::Profiles(ProfilesCommand::Switch {
            name: "shop".into(),
        }));
        let booted = crate::app::testing::answers(&mut app).remove(0);
        assert!(matches!(
            &booted,
            Msg::Profiles(ProfilesResult::Booted { result: Ok(b) }) if b.fallback.is_some()
        ));
        app.on_msg(booted);
        assert!(matches!(app.holds.connection, Connection::Disconnected(_)));
        assert!(matches!(app.views.settings.note(), Some(Note::Failed(_))));
        assert_eq!(app.profile_name(), SANDBOX_PROFILE);
    }

    #[test]
    fn a_start_that_failed_says_so_in_the_connection() {
        let mut app = app();
        app.apply_profiles(ProfilesResult::Booted {
            result: Err(JobError::NoDataFolder),
        });
        let Connection::Disconnected(why) = &app.holds.connection else {
            panic!("{:?}", app.holds.connection);
        };
        assert!(why.starts_with(UiText::StartFailed.get(app.lang())));
    }

    #[test]
    fn save_adds_a_profile_and_remove_takes_it_away() {
        let mut app = app();
        app.views.settings.set_busy();
        let answer = only(run(
            &mut app,
            Command::Profiles(ProfilesCommand::Save {
                profile: Box::new(shop()),
                existing: false,
            }),
        ));
        assert!(matches!(
            &answer,
            Msg::Profiles(ProfilesResult::Listed { result: Ok(l) }) if l.len() == 2
        ));
        app.on_msg(answer);
        assert!(!app.views.settings.is_busy());
        assert_eq!(app.holds.profiles.len(), 2);
        assert_eq!(app.views.settings.profiles(), app.holds.profiles);
        assert!(matches!(app.views.settings.note(), Some(Note::Done(_))));
        let answer = only(run(
            &mut app,
            Command::Profiles(ProfilesCommand::Remove {
                name: "shop".into(),
            }),
        ));
        app.on_msg(answer);
        assert_eq!(app.holds.profiles.len(), 1);
        assert!(app.holds.profiles.iter().all(|p| p.name != "shop"));
    }

    #[test]
    fn a_profile_change_that_failed_is_said() {
        let mut app = app();
        app.views.settings.set_busy();
        app.apply_profiles(ProfilesResult::Listed {
            result: Err(JobError::NoDataFolder),
        });
        assert!(!app.views.settings.is_busy());
        assert!(matches!(app.views.settings.note(), Some(Note::Failed(_))));
    }

    #[test]
    fn store_secret_without_a_keyring_says_it_is_kept_for_this_run() {
        let mut app = app();
        let answer = only(run(
            &mut app,
            Command::Profiles(ProfilesCommand::StoreSecret {
                profile: "shop".into(),
                api_key: "key-1".into(),
                secret: Zeroizing::new("s3cret".into()),
            }),
        ));
        app.on_msg(answer);
        assert!(matches!(
            app.views.settings.secrets().get("shop"),
            Some(SecretStatus::NoKeyring(_))
        ));
    }

    #[test]
    fn check_secret_shows_checking_then_the_answer() {
        let mut app = app();
        app.run(Command::Profiles(ProfilesCommand::CheckSecret {
            profile: "shop".into(),
            api_key: "key-1".into(),
        }));
        assert_eq!(
            app.views.settings.secrets().get("shop"),
            Some(&SecretStatus::Checking)
        );
        let answer = only(crate::app::testing::answers(&mut app));
        assert!(matches!(
            &answer,
            Msg::Profiles(ProfilesResult::Secret { profile, status: Ok(SecretStatus::NoKeyring(_)) }) if profile == "shop"
        ));
        app.on_msg(answer);
        assert!(matches!(
            app.views.settings.secrets().get("shop"),
            Some(SecretStatus::NoKeyring(_))
        ));
    }
}
