//! The one table of who may run what, for the app's commands and the CLI's alike.
//!
//! Every app command (`ui::command::Command::name`) and every CLI command path (`link cancel`,
//! with a flag where a flag changes what the command is, as `link list --csv`) has exactly one
//! row. The app asks before it sends, the worker and the CLI refuse from the same row, and the
//! tests walk the app's command enum and clap's command tree and fail on any command without a
//! row. docs/design.md §"Staff" gives the reason for each judgement call.

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

/// Where a command is typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The desktop app's `Command`.
    App,
    /// A CLI command path.
    Cli,
}

/// The table: surface, command, what it needs.
pub const ROLE_TABLE: &[(Surface, &str, Need)] = &[
    // The app: selling at the counter.
    (Surface::App, "Navigate", Need::Member),
    (Surface::App, "CreateLink", Need::Member),
    (Surface::App, "NewLink", Need::Member),
    (Surface::App, "CopyText", Need::Member),
    (Surface::App, "SaveQrPng", Need::Member),
    (Surface::App, "PrintSlip", Need::Member),
    (Surface::App, "OpenUrl", Need::Member),
    (Surface::App, "RefreshLink", Need::Member),
    (Surface::App, "CancelLink", Need::OwnUnpaidOrManager),
    (Surface::App, "CloseShownLink", Need::Member),
    (Surface::App, "CustomerDisplay", Need::Member),
    (Surface::App, "ShowBoardLink", Need::Member),
    (Surface::App, "ListInstallments", Need::Member),
    (Surface::App, "SearchHistory", Need::Member),
    (Surface::App, "MoreHistory", Need::Member),
    (Surface::App, "ShowHistoryLink", Need::Member),
    (Surface::App, "RefreshStatuses", Need::Member),
    (Surface::App, "RetryPending", Need::Member),
    (Surface::App, "CheckSecret", Need::Member),
    // The app: the back office.
    (Surface::App, "SaveCard", Need::Manager),
    (Surface::App, "ExportHistory", Need::Manager),
    (Surface::App, "LoadReport", Need::Manager),
    (Surface::App, "RefreshDayClose", Need::Manager),
    (Surface::App, "AbandonPending", Need::Manager),
    (Surface::App, "CatalogPreview", Need::Manager),
    (Surface::App, "CatalogChoose", Need::Manager),
    (Surface::App, "CatalogImport", Need::Manager),
    (Surface::App, "SetBarcode", Need::Manager),
    (Surface::App, "SaveProfile", Need::Manager),
    (Surface::App, "RemoveProfile", Need::Manager),
    (Surface::App, "SwitchProfile", Need::Manager),
    (Surface::App, "StoreSecret", Need::Manager),
    (Surface::App, "JoinShop", Need::Manager),
    (Surface::App, "LeaveShop", Need::Manager),
    (Surface::App, "NameDesk", Need::Manager),
    (Surface::App, "ReconnectShop", Need::Member),
    // The app: staff and the record.
    (Surface::App, "SignIn", Need::Anyone),
    (Surface::App, "Lock", Need::Anyone),
    (Surface::App, "AddStaff", Need::Manager),
    (Surface::App, "ResetPin", Need::Manager),
    (Surface::App, "SetStaffActive", Need::Manager),
    (Surface::App, "LoadStaff", Need::Anyone),
    (Surface::App, "LoadAudit", Need::Manager),
    (Surface::App, "ExportAudit", Need::Manager),
    // A manager's PIN for one held command: itself the check.
    (Surface::App, "Approve", Need::Anyone),
    // The CLI.
    (Surface::Cli, "profile add", Need::Manager),
    (Surface::Cli, "profile list", Need::Member),
    (Surface::Cli, "profile remove", Need::Manager),
    (Surface::Cli, "profile set-secret", Need::Manager),
    (Surface::Cli, "link create", Need::Member),
    (Surface::Cli, "link list", Need::Member),
    (Surface::Cli, "link list --csv", Need::Manager),
    (Surface::Cli, "link show", Need::Member),
    (Surface::Cli, "link cancel", Need::OwnUnpaidOrManager),
    (Surface::Cli, "link qr", Need::Member),
    (Surface::Cli, "link slip", Need::Member),
    (Surface::Cli, "pending list", Need::Member),
    (Surface::Cli, "pending retry", Need::Member),
    (Surface::Cli, "pending abandon", Need::Manager),
    (Surface::Cli, "card save", Need::Manager),
    (Surface::Cli, "installments", Need::Member),
    (Surface::Cli, "catalog import", Need::Manager),
    (Surface::Cli, "catalog list", Need::Member),
    (Surface::Cli, "report", Need::Manager),
    (Surface::Cli, "staff add", Need::Manager),
    (Surface::Cli, "staff list", Need::Member),
    (Surface::Cli, "staff disable", Need::Manager),
    (Surface::Cli, "staff enable", Need::Manager),
    (Surface::Cli, "staff reset-pin", Need::Manager),
    (Surface::Cli, "audit list", Need::Manager),
    (Surface::Cli, "audit verify", Need::Anyone),
    (Surface::Cli, "shop join", Need::Manager),
    (Surface::Cli, "shop status", Need::Anyone),
    (Surface::Cli, "shop sync", Need::Member),
    (Surface::Cli, "shop leave", Need::Manager),
    (Surface::Cli, "shop name", Need::Manager),
    (Surface::Cli, "sandbox", Need::Anyone),
    (Surface::Cli, "man", Need::Anyone),
];

/// The row of a command, `None` when the table lacks it (the tests fail on that; callers
/// treat it as [`Need::Manager`]).
pub fn need_of(surface: Surface, command: &str) -> Option<Need> {
    ROLE_TABLE
        .iter()
        .find(|(s, c, _)| *s == surface && *c == command)
        .map(|&(_, _, need)| need)
}

/// What the command needs, a missing row counting as a manager's.
pub fn need(surface: Surface, command: &str) -> Need {
    need_of(surface, command).unwrap_or(Need::Manager)
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

    #[test]
    fn every_row_is_unique() {
        for (i, (s, c, _)) in ROLE_TABLE.iter().enumerate() {
            assert!(
                ROLE_TABLE[i + 1..]
                    .iter()
                    .all(|(s2, c2, _)| (s2, c2) != (s, c)),
                "{c} twice"
            );
        }
    }

    #[test]
    fn staff_off_runs_everything() {
        for &(_, _, need) in ROLE_TABLE {
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
        for &(_, c, need) in ROLE_TABLE {
            let expected = if need == Need::Anyone {
                Permit::Allowed
            } else {
                Permit::SignInFirst
            };
            assert_eq!(permit(need, true, &nobody, None), expected, "{c}");
        }
    }

    #[test]
    fn a_missing_row_counts_as_a_managers() {
        assert_eq!(need_of(Surface::Cli, "no such command"), None);
        assert_eq!(need(Surface::Cli, "no such command"), Need::Manager);
    }
}
