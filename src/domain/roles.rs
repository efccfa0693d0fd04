//! Who may run what: the needs a command can have, and the one rule that answers for an actor.
//!
//! Which command needs what is written where the commands are, as exhaustive matches, so a new
//! command does not build until it says: the app's in `ui::command::Command::gate` (with the
//! words of its approval prompt), the command line's in `cli::staff::rule` (with its path of
//! subcommand names). The app asks before it sends, the worker and the CLI refuse through
//! [`permit`]. docs/design.md §7 "Roles, in one table" gives the reason for each judgement call.

use super::staff::Actor;

/// What a command needs when staff are on (with no staff member defined, everything runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Runs with nobody signed in: it neither changes nor shows the shop's data.
    Anyone,
    /// Any signed-in member, counter or manager.
    Member,
    /// A counter clerk for a link he or she began with nothing paid yet; else a manager.
    OwnUnpaidOrManager,
    /// A manager, or a clerk with a manager's PIN for this one action.
    Manager,
}

/// Who owns a link, for [`Need::OwnUnpaidOrManager`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ownership {
    /// The member who began it (`None`: made before staff existed, a manager's).
    pub began_by: Option<String>,
    /// Nothing of it is paid yet.
    pub nothing_paid: bool,
}

/// The answer of the table for one actor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permit {
    /// Go on.
    Allowed,
    /// Nobody is signed in.
    SignInFirst,
    /// A manager's PIN is needed for this one action.
    NeedsManager,
}

/// Whether `actor` may run a command needing `need`, with staff on or off.
pub fn permit(need: Need, staff_on: bool, actor: &Actor, ownership: Option<&Ownership>) -> Permit {
    if !staff_on || need == Need::Anyone {
        return Permit::Allowed;
    }
    let Some(member) = &actor.member else {
        return Permit::SignInFirst;
    };
    if actor.has_manager_power() {
        return Permit::Allowed;
    }
    match need {
        Need::Anyone | Need::Member => Permit::Allowed,
        Need::OwnUnpaidOrManager => match ownership {
            Some(o) if o.nothing_paid && o.began_by.as_deref() == Some(member.name.as_str()) => {
                Permit::Allowed
            }
            _ => Permit::NeedsManager,
        },
        Need::Manager => Permit::NeedsManager,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::staff::Role;

    const NEEDS: [Need; 4] = [
        Need::Anyone,
        Need::Member,
        Need::OwnUnpaidOrManager,
        Need::Manager,
    ];

    #[test]
    fn staff_off_runs_everything() {
        for need in NEEDS {
            assert_eq!(permit(need, false, &Actor::nobody(), None), Permit::Allowed);
        }
    }

    #[test]
    fn a_clerk_cancels_only_own_unpaid_links() {
        let ayse = Actor::member("Ayşe", Role::Counter);
        let own = |by: Option<&str>, nothing_paid| Ownership {
            began_by: by.map(str::to_owned),
            nothing_paid,
        };
        let need = Need::OwnUnpaidOrManager;
        let run = |actor: &Actor, o: Ownership| permit(need, true, actor, Some(&o));
        assert_eq!(run(&ayse, own(Some("Ayşe"), true)), Permit::Allowed);
        assert_eq!(run(&ayse, own(Some("Ayşe"), false)), Permit::NeedsManager);
        assert_eq!(run(&ayse, own(Some("Mehmet"), true)), Permit::NeedsManager);
        // Before staff existed: a manager's.
        assert_eq!(run(&ayse, own(None, true)), Permit::NeedsManager);
        let approved = ayse.clone().approved_by("Zeynep");
        assert_eq!(run(&approved, own(Some("Mehmet"), false)), Permit::Allowed);
        let manager = Actor::member("Zeynep", Role::Manager);
        assert_eq!(run(&manager, own(Some("Mehmet"), false)), Permit::Allowed);
    }

    #[test]
    fn nobody_signed_in_runs_only_what_anyone_may() {
        let nobody = Actor::nobody();
        for need in NEEDS {
            let expected = if need == Need::Anyone {
                Permit::Allowed
            } else {
                Permit::SignInFirst
            };
            assert_eq!(permit(need, true, &nobody, None), expected, "{need:?}");
        }
    }
}
