//! A payment link as the desk reads it: the server's answer with what is unknown said once.
//!
//! The wire type (`api::wire::PaymentLink`) has every field optional because the server may
//! leave any of them out. Readers of a link (the board, the slip, the views, the CLI) should not
//! each decide what a missing field means, so the decision is made here, once:
//!
//! | field | when the server leaves it out |
//! |---|---|
//! | status | [`LinkStatus::Pending`]: a link the server has not finished with |
//! | currency | [`Currency::default`] (TRY), the spec's default currency |
//! | amount, remaining | `None`: nothing to show ([`Link::amount_or_zero`] reads zero) |
//! | paid | `None` as said; [`Link::paid_so_far`] reads it as zero |
//! | partial payment, installments | `false`: not enabled |
//! | texts and dates | `None` (the `*_text` readers give an empty text) |
//!
//! An unknown status stays readable as [`LinkStatus::Other`]. The conversion from the wire type
//! lives in `api::read`, where the service and the store both reach it; this module does no
//! I/O.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use super::{Currency, LinkStatus};

/// A payment link as the desk reads it (see the module's table for what a missing field means).
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Link identifier (detail and cancel take it).
    pub id: String,
    /// System-generated reference number.
    pub reference_number: Option<String>,
    /// The caller's order number.
    pub order_number: Option<String>,
    /// Address to send to the payer.
    pub payment_url: Option<String>,
    /// Reference of the transaction once paid.
    pub transaction_ref: Option<String>,
    /// Status; `Pending` when the server sent none.
    pub status: LinkStatus,
    /// Currency; the default currency when the server sent none.
    pub currency: Currency,
    /// Total amount, when known.
    pub amount: Option<Decimal>,
    /// Amount collected, as the server said it.
    pub paid: Option<Decimal>,
    /// Amount left, as the server said it.
    pub remaining: Option<Decimal>,
    /// Description.
    pub description: Option<String>,
    /// Whether partial payment is open.
    pub allow_partial_payment: bool,
    /// Whether installments are enabled.
    pub enable_installment: bool,
    /// Allowed installment counts, `1,3,6`.
    pub available_installments: Option<String>,
    /// Payer e-mail.
    pub email: Option<String>,
    /// Payer phone country code.
    pub phone_country_code: Option<String>,
    /// Payer phone number.
    pub phone_number: Option<String>,
    /// Last valid moment.
    pub expiry: Option<DateTime<Utc>>,
    /// Completion moment.
    pub completed: Option<DateTime<Utc>>,
    /// Creation moment.
    pub created: Option<DateTime<Utc>>,
}

impl Link {
    /// The amount collected so far: zero when the server did not say.
    pub fn paid_so_far(&self) -> Decimal {
        self.paid.unwrap_or_default()
    }

    /// The amount asked: zero when the server did not say (what is left to pay of a link
    /// whose amount is unknown).
    pub fn amount_or_zero(&self) -> Decimal {
        self.amount.unwrap_or_default()
    }

    /// The order number, or an empty text when the server sent none (a list's column).
    pub fn order_text(&self) -> &str {
        self.order_number.as_deref().unwrap_or_default()
    }

    /// The reference number, or an empty text when the server sent none.
    pub fn reference_text(&self) -> &str {
        self.reference_number.as_deref().unwrap_or_default()
    }

    /// The description, or an empty text when the server sent none.
    pub fn description_text(&self) -> &str {
        self.description.as_deref().unwrap_or_default()
    }

    /// The payer's e-mail, or an empty text when the server sent none.
    pub fn email_text(&self) -> &str {
        self.email.as_deref().unwrap_or_default()
    }

    /// The order number, else the link's id: how lists and slips name a link.
    pub fn order_or_id(&self) -> &str {
        self.order_number.as_deref().unwrap_or(&self.id)
    }

    /// The payment URL, else the link's id: how messages name a link.
    pub fn url_or_id(&self) -> &str {
        self.payment_url.as_deref().unwrap_or(&self.id)
    }

    /// The payment URL, or an empty text when the server sent none.
    pub fn url(&self) -> &str {
        self.payment_url.as_deref().unwrap_or_default()
    }

    /// The creation moment, else `known_at` (when the desk first heard of the link).
    pub fn created_or(&self, known_at: DateTime<Utc>) -> DateTime<Utc> {
        self.created.unwrap_or(known_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bare() -> Link {
        Link {
            id: "L1".into(),
            reference_number: None,
            order_number: None,
            payment_url: None,
            transaction_ref: None,
            status: LinkStatus::Pending,
            currency: Currency::Try,
            amount: None,
            paid: None,
            remaining: None,
            description: None,
            allow_partial_payment: false,
            enable_installment: false,
            available_installments: None,
            email: None,
            phone_country_code: None,
            phone_number: None,
            expiry: None,
            completed: None,
            created: None,
        }
    }

    #[test]
    fn paid_unknown_reads_as_zero_and_said_paid_is_kept() {
        let mut l = bare();
        assert_eq!(l.paid_so_far(), Decimal::ZERO);
        l.paid = Some(Decimal::new(1234, 2));
        assert_eq!(l.paid_so_far(), Decimal::new(1234, 2));
    }

    #[test]
    fn an_unknown_amount_reads_as_zero_and_a_said_one_is_kept() {
        let mut l = bare();
        assert_eq!(l.amount_or_zero(), Decimal::ZERO);
        l.amount = Some(Decimal::new(45000, 2));
        assert_eq!(l.amount_or_zero(), Decimal::new(45000, 2));
    }

    #[test]
    fn unknown_texts_read_empty_and_said_ones_are_kept() {
        let mut l = bare();
        let texts = |l: &Link| {
            [
                l.order_text().to_owned(),
                l.reference_text().to_owned(),
                l.description_text().to_owned(),
                l.email_text().to_owned(),
            ]
        };
        assert_eq!(texts(&l), ["", "", "", ""]);
        l.order_number = Some("A-7".into());
        l.reference_number = Some("R7".into());
        l.description = Some("Kazak".into());
        l.email = Some("a@b.c".into());
        assert_eq!(texts(&l), ["A-7", "R7", "Kazak", "a@b.c"]);
    }

    #[test]
    fn a_link_is_named_by_its_order_else_its_id() {
        let mut l = bare();
        assert_eq!(l.order_or_id(), "L1");
        assert_eq!(l.url_or_id(), "L1");
        assert_eq!(l.url(), "");
        l.order_number = Some("A-7".into());
        l.payment_url = Some("https://pay/x".into());
        assert_eq!(l.order_or_id(), "A-7");
        assert_eq!(l.url_or_id(), "https://pay/x");
        assert_eq!(l.url(), "https://pay/x");
    }

    #[test]
    fn created_falls_back_to_when_the_desk_heard_of_it() {
        let heard = DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap();
        let made = DateTime::<Utc>::from_timestamp(1_600_000_000, 0).unwrap();
        let mut l = bare();
        assert_eq!(l.created_or(heard), heard);
        l.created = Some(made);
        assert_eq!(l.created_or(heard), made);
    }
}
