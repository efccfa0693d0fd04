//! The two languages paydesk speaks. Every sentence shown to a user is chosen by a `Lang`,
//! so that the catalogue of messages can be walked by a test and nothing stays untranslated.

use serde::{Deserialize, Serialize};

/// A language of the user interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Lang {
    /// Türkçe.
    Tr,
    /// English.
    #[default]
    En,
}

impl Lang {
    /// Both languages, in the order the language picker shows them.
    pub const ALL: [Lang; 2] = [Lang::Tr, Lang::En];

    /// The language for an OS locale string such as `tr_TR.UTF-8` or `en-US`:
    /// Turkish for any `tr` locale, English otherwise.
    pub fn from_locale(locale: &str) -> Lang {
        let lower = locale.trim().to_ascii_lowercase();
        if lower == "tr"
            || lower.starts_with("tr_")
            || lower.starts_with("tr-")
            || lower.starts_with("tr.")
        {
            Lang::Tr
        } else {
            Lang::En
        }
    }

    /// The language of the environment (`LC_ALL`, `LC_MESSAGES`, `LANG`), English when unset.
    pub fn from_env() -> Lang {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
            .map_or(Lang::En, |v| Lang::from_locale(&v))
    }

    /// The language's own name, as the picker shows it.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::Tr => "Türkçe",
            Lang::En => "English",
        }
    }

    /// Picks the sentence of this language.
    pub fn pick<'a>(self, tr: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Tr => tr,
            Lang::En => en,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turkish_locales_give_turkish_and_the_rest_english() {
        for l in ["tr_TR.UTF-8", "tr-TR", "TR", "tr"] {
            assert_eq!(Lang::from_locale(l), Lang::Tr, "{l}");
        }
        for l in ["en_US.UTF-8", "de_DE", "", "C", "trk"] {
            assert_eq!(Lang::from_locale(l), Lang::En, "{l}");
        }
    }
}
