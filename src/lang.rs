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

/// One sentence of a catalogue, as the language tests walk it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The catalogue and key, e.g. `ui::UiText::Amount`.
    pub name: &'static str,
    /// Turkish.
    pub tr: &'static str,
    /// English.
    pub en: &'static str,
}

/// Fills each `{name}` of `template` with its value from `args`; a placeholder not in `args`
/// stays as written (the language test makes sure both languages use the same ones).
///
/// `{name:one|other}` is a plural: `one` where `name`'s value reads `1`, `other` for any other
/// count (English "{n} {n:link|links}"; Turkish keeps its noun singular after a number and
/// needs none).
pub fn fill(template: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let inside = &after[..close];
            let (name, forms) = match inside.split_once(':') {
                Some((name, forms)) => (name, forms.split_once('|')),
                None => (inside, None),
            };
            let (_, v) = args.iter().find(|(n, _)| *n == name)?;
            let v = v.to_string();
            Some((
                close,
                match forms {
                    Some((one, _)) if v == "1" => one.to_owned(),
                    Some((_, other)) => other.to_owned(),
                    None => v,
                },
            ))
        });
        if let Some((close, v)) = value {
            out.push_str(&v);
            rest = &after[close + 1..];
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The placeholders (`{name}`, and the name of a plural `{name:one|other}`) of a sentence,
/// each once, in order.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let inside = &after[..close];
        let name = inside.split_once(':').map_or(inside, |(name, _)| name);
        if !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !names.contains(&name)
        {
            names.push(name);
        }
        rest = &after[close + 1..];
    }
    names
}

/// Declares a catalogue of sentences: an enum with one variant per sentence, each written in
/// Turkish and English side by side. This is the one way paydesk words anything for a user,
/// in every layer (the UI's `UiText`, field errors, API keys, the CLI, the pay page): each
/// catalogue's `ENTRIES` are listed in `every_sentence` (in `tests/support/catalogues.rs`), which the
/// language tests walk (both languages present, the same placeholders, every glyph drawable).
///
/// A sentence may hold `{name}` placeholders, filled by `fill(lang, &[("name", &value)])`, and
/// plurals `{name:one|other}` (see [`fill`]).
#[macro_export]
macro_rules! sentences {
    ($(#[$meta:meta])* $vis:vis enum $name:ident {
        $($key:ident => $tr:literal, $en:literal;)+
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(clippy::doc_markdown)] // each variant's doc is its English sentence, verbatim
        $vis enum $name {
            $(
                #[doc = $en]
                $key,
            )+
        }

        impl $name {
            /// Every sentence of the catalogue.
            pub const ALL: &'static [$name] = &[$($name::$key),+];

            /// Every sentence with its name, for the language tests.
            // A constant in the binary's read-only data, never built on a stack.
            #[allow(clippy::large_stack_arrays)]
            pub const ENTRIES: &'static [$crate::lang::Entry] = &[$($crate::lang::Entry {
                name: concat!(module_path!(), "::", stringify!($name), "::", stringify!($key)),
                tr: $tr,
                en: $en,
            }),+];

            /// The sentence in `lang`, placeholders as written.
            pub fn get(self, lang: $crate::lang::Lang) -> &'static str {
                match self {
                    $($name::$key => lang.pick($tr, $en),)+
                }
            }

            /// The sentence in `lang` with its `{name}` placeholders filled.
            pub fn fill(
                self,
                lang: $crate::lang::Lang,
                args: &[(&str, &dyn ::std::fmt::Display)],
            ) -> String {
                $crate::lang::fill(self.get(lang), args)
            }
        }
    };
}

/// Asserts that `say` words a thing as `en` in English and as `tr` in Turkish (for the unit
/// tests of every catalogue's sentences).
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_says<S: AsRef<str>>(say: impl Fn(Lang) -> S, en: &str, tr: &str) {
    assert_eq!(say(Lang::En).as_ref(), en);
    assert_eq!(say(Lang::Tr).as_ref(), tr);
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

    #[test]
    fn placeholders_are_filled_by_name_and_unknown_braces_stay() {
        let amount = "₺80.00";
        assert_eq!(
            fill("{n} ürün, toplam {total}", &[("total", &amount), ("n", &3)]),
            "3 ürün, toplam ₺80.00"
        );
        assert_eq!(fill("a {b} {", &[]), "a {b} {");
        assert_eq!(placeholders("{n} of {max} `{x}` {}"), ["n", "max", "x"]);
    }

    #[test]
    fn a_plural_takes_its_form_from_the_count() {
        let said = |n: &dyn std::fmt::Display| fill("{n} {n:link|links} written", &[("n", n)]);
        assert_eq!(said(&1), "1 link written");
        assert_eq!(said(&0), "0 links written");
        assert_eq!(said(&2), "2 links written");
        assert_eq!(said(&11), "11 links written");
        assert_eq!(placeholders("{n} {n:row|rows} of {max}"), ["n", "max"]);
        assert_eq!(fill("{m:a|b}", &[]), "{m:a|b}", "a count not given stays");
    }
}
