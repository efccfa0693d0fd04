//! What the app remembers between runs (eframe storage), apart from the runtime handles.
//!
//! Only preferences live here: the language, the theme, the last profile, the shop name and
//! whether paid alerts play a sound, the idle minutes before the desk locks.
//! Never a secret, a card number or a form's content: eframe writes this to a plain file.

use serde::{Deserialize, Serialize};

use crate::lang::Lang;
use crate::slip::Paper;
use crate::ui::theme::ThemeChoice;

/// The storage key of [`SavedState`] (eframe's `APP_KEY`).
pub const STORAGE_KEY: &str = eframe::APP_KEY;

/// The saved preferences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedState {
    /// Interface language; defaults to the OS locale.
    pub lang: Lang,
    /// Light, dark or follow the OS (the default).
    pub theme: ThemeChoice,
    /// The profile used last; the built-in sandbox on first start.
    pub last_profile: Option<String>,
    /// The shop's name on the customer display and on printed slips; empty: no name line on
    /// either (never the profile's name, which is a word for staff).
    pub merchant_name: String,
    /// The paper "Print slip" lays out for (default: an 80 mm receipt roll).
    pub slip_paper: Paper,
    /// Paid alerts ask the notification service for a short sound (off by default).
    pub alert_sound: bool,
    /// With staff on, the desk locks after this many minutes without input (a manager
    /// changes it in Settings).
    pub idle_lock_minutes: u32,
}

impl Default for SavedState {
    fn default() -> Self {
        Self {
            lang: Lang::from_env(),
            theme: ThemeChoice::System,
            last_profile: None,
            merchant_name: String::new(),
            slip_paper: Paper::Roll80,
            alert_sound: false,
            idle_lock_minutes: super::staff::DEFAULT_IDLE_MINUTES,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_state_round_trips_and_tolerates_old_files() {
        let s = SavedState {
            lang: Lang::Tr,
            theme: ThemeChoice::Dark,
            last_profile: Some("mağaza".into()),
            merchant_name: "Kadıköy Kahve Evi".into(),
            slip_paper: Paper::A6,
            alert_sound: true,
            idle_lock_minutes: 12,
        };
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<SavedState>(&text).unwrap(), s);
        // A file from an older version, missing fields, still reads.
        let old: SavedState = serde_json::from_str(r#"{"lang":"Tr"}"#).unwrap();
        assert_eq!(old.lang, Lang::Tr);
        assert_eq!(old.theme, ThemeChoice::System);
        assert_eq!(old.last_profile, None);
        assert_eq!(old.slip_paper, Paper::Roll80);
        assert!(!old.alert_sound, "the sound is off unless chosen");
        assert_eq!(old.idle_lock_minutes, 5, "five idle minutes unless chosen");
    }
}
