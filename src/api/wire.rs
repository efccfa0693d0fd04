//! Response content of the API as serde types, with the spec's exact field names.
//!
//! Request bodies are produced by the validated domain types (`domain::link::LinkRequest` and
//! friends), so that the body bytes are built once, from validated input only. The types here
//! are for what comes back, and are tolerant: every field but the identifiers may be missing,
//! amounts are exact decimals whether sent as JSON numbers or strings, timestamps may come
//! with or without a zone (no zone means UTC), and an unknown status is kept as text.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::domain::card::safe_masked_pan;
use crate::domain::{CardStatus, CardUsage, Currency, LinkStatus};

/// A text that could carry a card number, read with at most 6 + 4 of its digits visible.
fn masked_opt<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.map(|text| safe_masked_pan(&text)))
}

// The value formats are the domain's: request bodies are written with them too.
pub use crate::domain::wire_format::{amount, amount_opt, format_time, parse_time, time_opt};

/// A payment link as the API returns it (create, detail, cancel).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentLink {
    /// Link identifier (detail and cancel take it).
    pub id: String,
    /// System-generated reference number.
    #[serde(default)]
    pub reference_number: Option<String>,
    /// The caller's order number.
    #[serde(default)]
    pub order_number: Option<String>,
    /// Address to send to the payer.
    #[serde(default)]
    pub payment_url: Option<String>,
    /// Reference of the transaction once paid; null on an unpaid link.
    #[serde(default)]
    pub transaction_ref: Option<String>,
    /// Total amount.
    #[serde(default, with = "amount_opt")]
    pub amount: Option<Decimal>,
    /// Amount collected.
    #[serde(default, with = "amount_opt")]
    pub paid_amount: Option<Decimal>,
    /// Amount left.
    #[serde(default, with = "amount_opt")]
    pub remaining_amount: Option<Decimal>,
    /// Currency.
    #[serde(default)]
    pub currency: Option<Currency>,
    /// Status.
    #[serde(default)]
    pub status: Option<LinkStatus>,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// Whether partial payment is open.
    #[serde(default)]
    pub allow_partial_payment: Option<bool>,
    /// Whether installments are enabled.
    #[serde(default)]
    pub enable_installment: Option<bool>,
    /// Allowed installment counts, `1,3,6`.
    #[serde(default)]
    pub available_installments: Option<String>,
    /// Payer e-mail.
    #[serde(default)]
    pub email: Option<String>,
    /// Payer phone country code.
    #[serde(default)]
    pub phone_country_code: Option<String>,
    /// Payer phone number.
    #[serde(default)]
    pub phone_number: Option<String>,
    /// Last valid moment.
    #[serde(default, with = "time_opt")]
    pub expiry_date: Option<DateTime<Utc>>,
    /// Completion moment; null while unpaid.
    #[serde(default, with = "time_opt")]
    pub completed_date: Option<DateTime<Utc>>,
    /// Creation moment.
    #[serde(default, with = "time_opt")]
    pub created_date: Option<DateTime<Utc>>,
}

/// A saved card as the API returns it. Holds no PAN: the mask, the alias and the holder's
/// name are masked again as they are read ([`safe_masked_pan`]: at most the first 6 and the
/// last 4 digits), so a faulty server's full number is never shown, printed or stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedCard {
    /// Saved card identifier (`savedCardId` in payments).
    pub id: String,
    /// Masked card number.
    #[serde(default, deserialize_with = "masked_opt")]
    pub masked_pan: Option<String>,
    /// Reminder name.
    #[serde(default, deserialize_with = "masked_opt")]
    pub alias: Option<String>,
    /// Name on the card.
    #[serde(default, deserialize_with = "masked_opt")]
    pub card_holder_name: Option<String>,
    /// Card brand.
    #[serde(default)]
    pub brand: Option<String>,
    /// Issuing bank.
    #[serde(default)]
    pub bank_name: Option<String>,
    /// Card type (credit, debit, ...).
    #[serde(default)]
    pub card_type: Option<String>,
    /// Expiry month, MM.
    #[serde(default)]
    pub expiry_month: Option<String>,
    /// Expiry year, YYYY.
    #[serde(default)]
    pub expiry_year: Option<String>,
    /// Usage.
    #[serde(default)]
    pub usage: Option<CardUsage>,
    /// Status.
    #[serde(default)]
    pub status: Option<CardStatus>,
    /// Whether it is the default card for its usage.
    #[serde(default)]
    pub is_default: Option<bool>,
    /// Customer it is stored for; empty for the business's own card.
    #[serde(default)]
    pub customer_id: Option<String>,
    /// Creation moment.
    #[serde(default, with = "time_opt")]
    pub created_date: Option<DateTime<Utc>>,
}

/// The installment options for a BIN (docs/design.md §1). Unknown fields are kept in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct InstallmentList {
    /// The BIN asked about.
    #[serde(default)]
    pub bin_number: Option<String>,
    /// Issuing bank.
    #[serde(default)]
    pub bank_name: Option<String>,
    /// Card brand.
    #[serde(default)]
    pub card_brand: Option<String>,
    /// Card type.
    #[serde(default)]
    pub card_type: Option<String>,
    /// Card family (program), e.g. Bonus, World.
    #[serde(default)]
    pub card_family: Option<String>,
    /// The options.
    #[serde(default)]
    pub installments: Vec<InstallmentOption>,
    /// Fields this version does not know, shown as they came.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// One installment option. Unknown fields are kept in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct InstallmentOption {
    /// Number of installments.
    #[serde(default)]
    pub installment_count: Option<u32>,
    /// Commission rate, percent.
    #[serde(default, with = "amount_opt")]
    pub commission_rate: Option<Decimal>,
    /// Amount of each installment (when an amount was asked).
    #[serde(default, with = "amount_opt")]
    pub installment_amount: Option<Decimal>,
    /// Total to pay (when an amount was asked).
    #[serde(default, with = "amount_opt")]
    pub total_amount: Option<Decimal>,
    /// POS type of the offering provider.
    #[serde(default)]
    pub pos_type: Option<String>,
    /// POS sub-type of the offering provider.
    #[serde(default)]
    pub pos_sub_type: Option<String>,
    /// Fields this version does not know, shown as they came.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Body of link detail and link cancel (assumed shape, docs/design.md §1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkIdBody {
    /// The link's id.
    pub id: String,
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[test]
    fn a_new_link_reads_with_exact_amounts_and_null_fields() {
        let json = r#"{"id":"lnk_1","referenceNumber":"R1","orderNumber":"PD-1","paymentUrl":"http://127.0.0.1/pay/lnk_1",
            "transactionRef":null,"amount":1234.50,"paidAmount":0,"remainingAmount":"1234.50","currency":"TRY",
            "status":"PENDING","enableInstallment":true,"expiryDate":"2026-11-23T10:00:00Z",
            "completedDate":null,"createdDate":"2026-11-22T10:00:00.123"}"#;
        let l: PaymentLink = serde_json::from_str(json).unwrap();
        assert_eq!(l.amount, Some(Decimal::from_str("1234.50").unwrap()));
        assert_eq!(l.amount.unwrap().to_string(), "1234.50");
        assert_eq!(l.remaining_amount, l.amount);
        assert_eq!(l.paid_amount, Some(Decimal::ZERO));
        assert_eq!(l.status, Some(LinkStatus::Pending));
        assert_eq!(l.transaction_ref, None);
        assert_eq!(l.completed_date, None);
        assert_eq!(
            format_time(l.created_date.unwrap()),
            "2026-11-22T10:00:00.123Z"
        );
        assert_eq!(format_time(l.expiry_date.unwrap()), "2026-11-23T10:00:00Z");
        let back = serde_json::to_string(&l).unwrap();
        assert!(back.contains(r#""amount":1234.50"#), "{back}");
    }

    #[test]
    fn installment_options_keep_unknown_fields_and_exact_rates() {
        let json = r#"{"binNumber":"979200","bankName":"Ziraat","cardFamily":"Bankkart","bonusPoints":12,
            "installments":[{"installmentCount":3,"commissionRate":2.15,"installmentAmount":416.83,
            "totalAmount":1250.50,"posType":"VIRTUAL","campaign":"Kasım"}]}"#;
        let l: InstallmentList = serde_json::from_str(json).unwrap();
        assert_eq!(
            l.extra
                .get("bonusPoints")
                .map(ToString::to_string)
                .as_deref(),
            Some("12")
        );
        let o = &l.installments[0];
        assert_eq!(o.installment_count, Some(3));
        assert_eq!(o.commission_rate.unwrap().to_string(), "2.15");
        assert_eq!(o.total_amount.unwrap().to_string(), "1250.50");
        assert_eq!(
            o.extra.get("campaign").and_then(|v| v.as_str()),
            Some("Kasım")
        );
    }

    #[test]
    fn a_saved_card_reads_with_unknown_status_kept() {
        let json = r#"{"id":"card_1","maskedPan":"411111******1111","usage":"BOTH","status":"LOCKED","isDefault":true}"#;
        let c: SavedCard = serde_json::from_str(json).unwrap();
        assert_eq!(c.usage, Some(CardUsage::Both));
        assert_eq!(c.status, Some(CardStatus::Other("LOCKED".into())));
    }
}
