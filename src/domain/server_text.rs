//! Text a server sent, made safe before paydesk shows, prints, stores or logs it
//! (docs/design.md §3). A server (or a proxy in front of it) is not trusted to send plain text:
//! an escape sequence in a message would drive the clerk's terminal, a carriage return would
//! overwrite a printed line, and a bidi override would show a link id or an amount reversed.
//!
//! [`clean`] drops the C0 and C1 control characters (tab, line feed and carriage return become a
//! space), DEL, and the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
//! `api::decode` applies it to every string of every answer, keys included, before anything
//! reads it, so no later layer sees the raw text. [`excerpt`] is the cleaned, cut text a log
//! line carries.

use std::borrow::Cow;

/// The longest excerpt of a server's text a log line carries, in characters.
pub const LOG_EXCERPT_CHARS: usize = 200;

/// Whether `c` is removed from a server's text.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` without control characters and bidi controls; tab, line feed and carriage return
/// become one space each. Borrowed when there is nothing to remove.
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter_map(|c| match c {
                '\t' | '\n' | '\r' => Some(' '),
                c if unsafe_char(c) => None,
                c => Some(c),
            })
            .collect(),
    )
}

/// `text` cut to at most `max` characters, with `…` marking a cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// What a log line keeps of a server's text: cleaned and at most [`LOG_EXCERPT_CHARS`].
pub fn excerpt(text: &str) -> String {
    truncate(&clean(text), LOG_EXCERPT_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_escapes_line_breaks_and_bidi_overrides_are_removed() {
        let hostile = "ok\u{1b}[2J\u{1b}]0;pwned\u{7}\r\nline\u{85}two\u{9b}31m\u{202e}fdp.exe\u{2066}x\u{2069}\u{7f}";
        let cleaned = clean(hostile);
        assert_eq!(cleaned, "ok[2J]0;pwned  linetwo31mfdp.exex");
        assert!(!cleaned.chars().any(unsafe_char));
    }

    #[test]
    fn plain_text_is_kept_as_it_is_in_any_script() {
        for text in [
            "Sepet tutarı uyuşmuyor: 150,00 ₺",
            "طلب ١٢",
            "KDK-20261123-862F0009",
            "",
        ] {
            assert!(
                matches!(clean(text), Cow::Borrowed(t) if t == text),
                "{text}"
            );
        }
    }

    #[test]
    fn a_log_excerpt_is_short_and_clean() {
        let long = format!("\u{1b}[31m{}", "x".repeat(5000));
        let e = excerpt(&long);
        assert_eq!(e.chars().count(), LOG_EXCERPT_CHARS);
        assert!(e.ends_with('…') && e.starts_with("[31m"));
    }
}
