//! A payer's e-mail address, validated for sending a payment link by e-mail, and its mask.
//!
//! The shape check is the link form's (one `@`, a non-empty local part, a dotted domain without
//! empty labels, no blanks or control characters, at most [`MAX_EMAIL_CHARS`] characters): it
//! catches typos, not every address RFC 5322 allows. No blank means no line break either, so an
//! address can never add a header to a message. The SMTP library checks the address again when
//! the message is built.
//!
//! The mask (`a***@example.com`) is what staff see in lists and what the audit and, a week after
//! sending, the mail queue keep: the first character of the local part, `***`, and the domain.

use std::fmt;

use super::errors::{Field, FieldError, FieldProblem};
use crate::lang::Lang;

/// The most characters an address may have (RFC 5321's path limit).
pub const MAX_EMAIL_CHARS: usize = 254;

/// A validated e-mail address, trimmed. `Debug` shows only the mask.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EmailAddress(String);

/// Why an e-mail address was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message(Lang::En))]
pub enum EmailError {
    /// Nothing was given.
    Empty,
    /// Not shaped like an address.
    Invalid,
}

impl EmailError {
    /// The e-mail field and why, as the forms tell it.
    pub fn field_error(&self) -> FieldError {
        let problem = match self {
            EmailError::Empty => FieldProblem::Required,
            EmailError::Invalid => FieldProblem::BadEmail,
        };
        FieldError::new(Field::Email, problem)
    }

    /// `"<field>: <why>"` in `lang` ("E-posta: …").
    pub fn message(&self, lang: Lang) -> String {
        self.field_error().message(lang)
    }
}

impl EmailAddress {
    /// Checks a typed address (blanks around it are dropped).
    pub fn parse(text: &str) -> Result<EmailAddress, EmailError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(EmailError::Empty);
        }
        if !is_email(text) {
            return Err(EmailError::Invalid);
        }
        Ok(EmailAddress(text.to_owned()))
    }

    /// The whole address.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The part after the `@`.
    pub fn domain(&self) -> &str {
        self.0.rsplit_once('@').map_or("", |(_, d)| d)
    }

    /// The address as staff may see it: `a***@example.com` (see [`mask_email`]).
    pub fn masked(&self) -> String {
        mask_email(&self.0)
    }
}

impl fmt::Debug for EmailAddress {
    /// Personal data: only the mask.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("EmailAddress").field(&self.masked()).finish()
    }
}

/// A basic e-mail shape check (not RFC 5322; enough to catch typos): one `@`, a non-empty
/// local part, a dotted domain without empty labels, no blanks or control characters, at most
/// [`MAX_EMAIL_CHARS`] characters.
pub fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    text.chars().count() <= MAX_EMAIL_CHARS
        && !local.is_empty()
        && !domain.contains('@')
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
        && domain.contains('.')
        && domain.split('.').all(|label| !label.is_empty())
}

/// Masks any address text: the first character of the local part, `***`, `@` and the domain
/// (`ayse.kaya@example.com` → `a***@example.com`). A text without `@` keeps only its first
/// character (`a***`); an empty text stays empty.
pub fn mask_email(text: &str) -> String {
    let (local, domain) = match text.rsplit_once('@') {
        Some((local, domain)) => (local, Some(domain)),
        None => (text, None),
    };
    let Some(first) = local.chars().next() else {
        return domain.map_or_else(String::new, |d| format!("***@{d}"));
    };
    match domain {
        Some(d) => format!("{first}***@{d}"),
        None => format!("{first}***"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_trimmed_and_kept_whole() {
        let a = EmailAddress::parse("  ayse.kaya@example.com.tr ").expect("valid");
        assert_eq!(a.as_str(), "ayse.kaya@example.com.tr");
        assert_eq!(a.domain(), "example.com.tr");
    }

    #[test]
    fn what_is_not_an_address_is_refused_naming_the_field() {
        for bad in [
            "ayse.example.com",
            "ayse@example",
            "a@b@c.com",
            "@example.com",
            "ayse@example..com",
            "ayse kaya@example.com",
            "ayse@example.com\r\nBcc: x@y.z",
            "ayse@exa\u{7}mple.com",
        ] {
            assert_eq!(
                EmailAddress::parse(bad),
                Err(EmailError::Invalid),
                "{bad:?}"
            );
        }
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(EmailAddress::parse(&long), Err(EmailError::Invalid));
        assert_eq!(EmailAddress::parse("  "), Err(EmailError::Empty));
        let e = EmailAddress::parse("ayse").expect_err("no @");
        assert!(
            e.message(Lang::Tr).starts_with("E-posta: "),
            "{}",
            e.message(Lang::Tr)
        );
        assert!(
            e.message(Lang::En).starts_with("E-mail: "),
            "{}",
            e.message(Lang::En)
        );
    }

    #[test]
    fn the_mask_keeps_the_first_letter_and_the_domain() {
        assert_eq!(mask_email("ayse.kaya@example.com"), "a***@example.com");
        assert_eq!(mask_email("a@example.com"), "a***@example.com");
        assert_eq!(mask_email("şule@örnek.com.tr"), "ş***@örnek.com.tr");
        assert_eq!(mask_email("nobody"), "n***");
        assert_eq!(mask_email("@example.com"), "***@example.com");
        assert_eq!(mask_email(""), "");
        let a = EmailAddress::parse("ayse.kaya@example.com").expect("valid");
        assert_eq!(a.masked(), "a***@example.com");
        let debug = format!("{a:?}");
        assert!(!debug.contains("kaya"), "{debug}");
    }
}
