//! The read model's boundary: the one place a server's `PaymentLink` (every field optional)
//! becomes the desk's [`Link`], with what is unknown decided as `domain::payment_link` says.
//!
//! It sits in `api`, below both `store` and `service`, so a fresh answer (the service) and a
//! row of history (the store keeps the answer's fields as received) become a `Link` through
//! this same code. `domain` cannot hold it: `api` depends on `domain`, never the reverse.

use crate::api::wire::PaymentLink;
use crate::domain::{Link, LinkStatus};

impl From<PaymentLink> for Link {
    fn from(w: PaymentLink) -> Self {
        Link {
            id: w.id,
            reference_number: w.reference_number,
            order_number: w.order_number,
            payment_url: w.payment_url,
            transaction_ref: w.transaction_ref,
            status: w.status.unwrap_or(LinkStatus::Pending),
            currency: w.currency.unwrap_or_default(),
            amount: w.amount,
            paid: w.paid_amount,
            remaining: w.remaining_amount,
            description: w.description,
            allow_partial_payment: w.allow_partial_payment.unwrap_or(false),
            enable_installment: w.enable_installment.unwrap_or(false),
            available_installments: w.available_installments,
            email: w.email,
            phone_country_code: w.phone_country_code,
            phone_number: w.phone_number,
            expiry: w.expiry_date,
            completed: w.completed_date,
            created: w.created_date,
        }
    }
}

/// The wire shape of a link the desk holds: the CLI's `--json` output of one link. What the
/// server left out is written as the desk reads it (a status, a currency, the flags).
impl From<&Link> for PaymentLink {
    fn from(l: &Link) -> Self {
        PaymentLink {
            id: l.id.clone(),
            reference_number: l.reference_number.clone(),
            order_number: l.order_number.clone(),
            payment_url: l.payment_url.clone(),
            transaction_ref: l.transaction_ref.clone(),
            amount: l.amount,
            paid_amount: l.paid,
            remaining_amount: l.remaining,
            currency: Some(l.currency),
            status: Some(l.status.clone()),
            description: l.description.clone(),
            allow_partial_payment: Some(l.allow_partial_payment),
            enable_installment: Some(l.enable_installment),
            available_installments: l.available_installments.clone(),
            email: l.email.clone(),
            phone_country_code: l.phone_country_code.clone(),
            phone_number: l.phone_number.clone(),
            expiry_date: l.expiry,
            completed_date: l.completed,
            created_date: l.created,
        }
    }
}

impl From<&PaymentLink> for Link {
    fn from(w: &PaymentLink) -> Self {
        Link::from(w.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use rust_decimal::Decimal;

    use super::*;
    use crate::api::wire::format_time;
    use crate::domain::Currency;

    fn read(json: &str) -> Link {
        Link::from(serde_json::from_str::<PaymentLink>(json).unwrap())
    }

    #[test]
    fn every_field_present_is_kept_with_exact_amounts() {
        let l = read(
            r#"{"id":"lnk_1","referenceNumber":"R1","orderNumber":"PD-1",
            "paymentUrl":"http://127.0.0.1/pay/lnk_1","transactionRef":"T9",
            "amount":1234.50,"paidAmount":"0.10","remainingAmount":1234.40,"currency":"EUR",
            "status":"UNDER_REVIEW","description":"Kasım siparişi","allowPartialPayment":true,
            "enableInstallment":true,"availableInstallments":"1,3,6","email":"a@b.c",
            "phoneCountryCode":"90","phoneNumber":"5551112233",
            "expiryDate":"2026-11-23T10:00:00Z","completedDate":"2026-11-22T11:00:00Z",
            "createdDate":"2026-11-22T10:00:00.123"}"#,
        );
        assert_eq!(l.id, "lnk_1");
        assert_eq!(l.reference_number.as_deref(), Some("R1"));
        assert_eq!(l.order_number.as_deref(), Some("PD-1"));
        assert_eq!(l.payment_url.as_deref(), Some("http://127.0.0.1/pay/lnk_1"));
        assert_eq!(l.transaction_ref.as_deref(), Some("T9"));
        assert_eq!(l.amount, Some(Decimal::from_str("1234.50").unwrap()));
        assert_eq!(l.amount.unwrap().to_string(), "1234.50");
        assert_eq!(l.paid, Some(Decimal::from_str("0.10").unwrap()));
        assert_eq!(l.paid_so_far().to_string(), "0.10");
        assert_eq!(l.remaining, Some(Decimal::from_str("1234.40").unwrap()));
        assert_eq!(l.currency, Currency::Eur);
        assert_eq!(l.status, LinkStatus::UnderReview);
        assert_eq!(l.description.as_deref(), Some("Kasım siparişi"));
        assert!(l.allow_partial_payment);
        assert!(l.enable_installment);
        assert_eq!(l.available_installments.as_deref(), Some("1,3,6"));
        assert_eq!(l.email.as_deref(), Some("a@b.c"));
        assert_eq!(l.phone_country_code.as_deref(), Some("90"));
        assert_eq!(l.phone_number.as_deref(), Some("5551112233"));
        assert_eq!(format_time(l.expiry.unwrap()), "2026-11-23T10:00:00Z");
        assert_eq!(format_time(l.completed.unwrap()), "2026-11-22T11:00:00Z");
        assert_eq!(format_time(l.created.unwrap()), "2026-11-22T10:00:00.123Z");
    }

    #[test]
    fn every_optional_field_missing_reads_as_the_documented_unknowns() {
        let l = read(r#"{"id":"lnk_2"}"#);
        assert_eq!(l.id, "lnk_2");
        assert_eq!(l.status, LinkStatus::Pending);
        assert_eq!(l.currency, Currency::Try);
        assert_eq!((l.amount, l.paid, l.remaining), (None, None, None));
        assert_eq!(l.paid_so_far(), Decimal::ZERO);
        assert!(!l.allow_partial_payment && !l.enable_installment);
        assert_eq!(l.order_or_id(), "lnk_2");
        assert_eq!(l.url(), "");
        for text in [
            &l.reference_number,
            &l.order_number,
            &l.payment_url,
            &l.transaction_ref,
            &l.description,
            &l.available_installments,
            &l.email,
            &l.phone_country_code,
            &l.phone_number,
        ] {
            assert_eq!(text, &None);
        }
        assert_eq!((l.expiry, l.completed, l.created), (None, None, None));
    }

    #[test]
    fn a_full_answer_goes_back_to_the_same_wire_json() {
        let json = r#"{"id":"lnk_5","referenceNumber":"R5","orderNumber":"PD-5",
            "paymentUrl":"http://127.0.0.1/pay/lnk_5","transactionRef":null,"amount":"99.90",
            "paidAmount":"0.00","remainingAmount":"99.90","currency":"TRY","status":"PENDING",
            "description":"d","allowPartialPayment":false,"enableInstallment":true,
            "availableInstallments":"1,3","email":null,"phoneCountryCode":null,"phoneNumber":null,
            "expiryDate":"2026-11-23T10:00:00Z","completedDate":null,
            "createdDate":"2026-11-22T10:00:00Z"}"#;
        let wire: PaymentLink = serde_json::from_str(json).unwrap();
        let back = PaymentLink::from(&Link::from(&wire));
        assert_eq!(back, wire);
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(&wire).unwrap()
        );
    }

    #[test]
    fn an_unknown_status_is_kept_as_other() {
        let l = read(r#"{"id":"lnk_3","status":"REFUNDED"}"#);
        assert_eq!(l.status, LinkStatus::Other("REFUNDED".into()));
        assert!(!l.status.is_final());
    }

    #[test]
    fn a_borrowed_answer_reads_the_same_as_an_owned_one() {
        let w: PaymentLink =
            serde_json::from_str(r#"{"id":"lnk_4","amount":"0.01","status":"COMPLETED"}"#).unwrap();
        assert_eq!(Link::from(&w), Link::from(w.clone()));
        assert_eq!(Link::from(&w).amount, Some(Decimal::new(1, 2)));
    }
}
