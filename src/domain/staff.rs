//! Staff members as pure values: a role, a validated name and PIN, who is acting, and the
//! lock-out rule for wrong PINs. Hashing and keeping them is the store's (`store/staff.rs`).

use std::fmt;

use chrono::{DateTime, Duration, Utc};
use zeroize::Zeroizing;

/// What a staff member may do (the role table in `domain/roles.rs` says which command needs
/// which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// A clerk at the counter: sells, shows, cancels his or her own unpaid links.
    Counter,
    /// Also everything that changes the shop: other clerks' links, cards, the catalog,
    /// settings, staff, the day close and exports.
    Manager,
}

impl Role {
    /// The role as stored and typed (`counter`, `manager`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Counter => "counter",
            Role::Manager => "manager",
        }
    }

    /// Reads a stored or typed role.
    pub fn parse(s: &str) -> Option<Role> {
        match s.trim().to_ascii_lowercase().as_str() {
            "counter" => Some(Role::Counter),
            "manager" => Some(Role::Manager),
            _ => None,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a typed PIN or name is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StaffInputError {
    /// Not 4 to 8 digits.
    #[error("the PIN must be 4 to 8 digits")]
    PinShape,
    /// Empty, too long, or with control characters.
    #[error("the name must be 1 to 40 printable characters")]
    NameShape,
}

/// The shortest and longest PIN.
pub const PIN_DIGITS: std::ops::RangeInclusive<usize> = 4..=8;

/// A PIN of 4 to 8 ASCII digits. Wiped when dropped; `Debug` never shows it.
#[derive(Clone)]
pub struct Pin(Zeroizing<String>);

impl Pin {
    /// Validates a typed PIN (surrounding spaces and a line end are dropped).
    pub fn parse(typed: &str) -> Result<Pin, StaffInputError> {
        let digits = typed.trim();
        if PIN_DIGITS.contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
            Ok(Pin(Zeroizing::new(digits.to_owned())))
        } else {
            Err(StaffInputError::PinShape)
        }
    }

    /// The digits, for hashing.
    pub fn expose(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Pin(****)")
    }
}

/// The longest staff name, in characters.
pub const NAME_MAX_CHARS: usize = 40;

/// A staff member's name: trimmed, 1 to 40 characters, no control characters. Names are
/// unique in a shop regardless of case.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaffName(String);

impl StaffName {
    /// Validates a typed name.
    pub fn parse(typed: &str) -> Result<StaffName, StaffInputError> {
        let name = typed.trim();
        let chars = name.chars().count();
        if chars == 0 || chars > NAME_MAX_CHARS || name.chars().any(char::is_control) {
            return Err(StaffInputError::NameShape);
        }
        Ok(StaffName(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StaffName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A staff member as listed (never the PIN's hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaffMember {
    /// The name.
    pub name: String,
    /// The role.
    pub role: Role,
    /// Whether the member may sign in.
    pub active: bool,
}

/// Who is acting: nobody (a shop without staff, or the desk's own background work), or a
/// signed-in member, with the manager who approved this one action when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Actor {
    /// The member acting, `None` for nobody.
    pub member: Option<ActingMember>,
    /// The manager whose PIN approved this one action.
    pub approved_by: Option<String>,
}

/// A signed-in member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActingMember {
    /// The name.
    pub name: String,
    /// The role.
    pub role: Role,
}

impl Actor {
    /// Nobody: staff are off, or the desk acts on its own.
    pub fn nobody() -> Actor {
        Actor::default()
    }

    /// A member acting alone.
    pub fn member(name: &str, role: Role) -> Actor {
        Actor {
            member: Some(ActingMember {
                name: name.to_owned(),
                role,
            }),
            approved_by: None,
        }
    }

    /// The same member with a manager's approval for one action.
    #[must_use]
    pub fn approved_by(mut self, manager: &str) -> Actor {
        self.approved_by = Some(manager.to_owned());
        self
    }

    /// The acting member's name.
    pub fn name(&self) -> Option<&str> {
        self.member.as_ref().map(|m| m.name.as_str())
    }

    /// Whether the actor may run what needs a manager: a manager, or anyone with a manager's
    /// approval.
    pub fn has_manager_power(&self) -> bool {
        self.approved_by.is_some()
            || self
                .member
                .as_ref()
                .is_some_and(|m| m.role == Role::Manager)
    }
}

/// Wrong PINs in a row before a member has to wait.
pub const FREE_TRIES: u32 = 5;
/// The first wait, after the fifth wrong PIN in a row; each further miss doubles it.
pub const FIRST_WAIT_SECONDS: i64 = 30;
/// The longest wait (a day), so that the doubling cannot overflow.
pub const LONGEST_WAIT_SECONDS: i64 = 86_400;

/// The wait after `misses` wrong PINs in a row: none for the first four, 30 s after the fifth,
/// then double for each further miss (60 s, 120 s …), at most a day.
pub fn wait_after(misses: u32) -> Option<Duration> {
    let extra = misses.checked_sub(FREE_TRIES)?;
    let seconds = if extra >= 12 {
        LONGEST_WAIT_SECONDS
    } else {
        (FIRST_WAIT_SECONDS << extra).min(LONGEST_WAIT_SECONDS)
    };
    Some(Duration::seconds(seconds))
}

/// Whether a member may try a PIN at `now`, given the time the current wait ends.
pub fn may_try(locked_until: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), Duration> {
    match locked_until {
        Some(until) if until > now => Err(until - now),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_is_four_to_eight_digits() {
        for ok in ["1234", "12345678", " 4321\n"] {
            assert!(Pin::parse(ok).is_ok(), "{ok:?}");
        }
        for bad in ["123", "123456789", "12a4", "١٢٣٤", "", "12 34"] {
            assert_eq!(
                Pin::parse(bad).unwrap_err(),
                StaffInputError::PinShape,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_pin_never_shows_in_debug() {
        let pin = Pin::parse("987654").expect("valid");
        let shown = format!("{pin:?} {:?}", Actor::member("Ayşe", Role::Counter));
        assert!(!shown.contains("987654"), "{shown}");
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(StaffName::parse("  Ayşe ").expect("valid").as_str(), "Ayşe");
        assert!(StaffName::parse("").is_err());
        assert!(StaffName::parse(&"x".repeat(41)).is_err());
        assert!(StaffName::parse(&"ş".repeat(40)).is_ok());
        assert!(StaffName::parse("a\u{1b}[31m").is_err());
    }

    #[test]
    fn waits_start_at_the_fifth_miss_and_double() {
        assert_eq!(wait_after(4), None);
        assert_eq!(wait_after(5), Some(Duration::seconds(30)));
        assert_eq!(wait_after(6), Some(Duration::seconds(60)));
        assert_eq!(wait_after(7), Some(Duration::seconds(120)));
        assert_eq!(wait_after(40), Some(Duration::seconds(86_400)));
        assert_eq!(wait_after(u32::MAX), Some(Duration::seconds(86_400)));
    }

    #[test]
    fn manager_power_is_a_manager_or_an_approval() {
        assert!(Actor::member("M", Role::Manager).has_manager_power());
        assert!(!Actor::member("C", Role::Counter).has_manager_power());
        assert!(
            Actor::member("C", Role::Counter)
                .approved_by("M")
                .has_manager_power()
        );
        assert!(!Actor::nobody().has_manager_power());
    }
}
