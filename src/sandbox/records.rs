//! The records the sandbox keeps, as held in memory and in the state file: a link with its
//! items and payments, a saved card (its mask and the provider's token, never a PAN or a CVV).
//! They sit below both `state` (the live store) and `persist` (the file), which use them.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::api::wire::{self, PaymentLink, SavedCard};
use crate::domain::{CardStatus, CardUsage, Currency, LinkStatus};

/// One item of a link, with the price the server settled on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemRecord {
    /// Catalog variant, when it is a catalog item.
    pub product_variant_id: Option<String>,
    /// Item name (the variant's name for catalog items).
    pub name: String,
    /// Unit price.
    #[serde(with = "wire::amount")]
    pub unit_price: Decimal,
    /// Quantity.
    pub quantity: u32,
    /// Per-item note.
    pub special_note: Option<String>,
}

/// One payment made on a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaymentRecord {
    /// Transaction reference.
    pub transaction_ref: String,
    /// Amount paid.
    #[serde(with = "wire::amount")]
    pub amount: Decimal,
    /// When.
    pub paid_at: DateTime<Utc>,
}

/// A payment link as the sandbox keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkRecord {
    /// Identifier.
    pub id: String,
    /// Owning business.
    pub business: String,
    /// Generated reference number.
    pub reference_number: String,
    /// The caller's order number.
    pub order_number: Option<String>,
    /// Total.
    #[serde(with = "wire::amount")]
    pub amount: Decimal,
    /// Cart amount (equal to `amount` when omitted).
    #[serde(with = "wire::amount")]
    pub cart_amount: Decimal,
    /// Currency.
    pub currency: Currency,
    /// Collected so far.
    #[serde(with = "wire::amount")]
    pub paid_amount: Decimal,
    /// Stored status (expiry is applied when read, see [`LinkRecord::status_at`]).
    pub status: LinkStatus,
    /// Reference of the latest payment.
    pub transaction_ref: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Partial payment allowed.
    pub allow_partial_payment: bool,
    /// Installments enabled.
    pub enable_installment: bool,
    /// Allowed installment counts.
    pub available_installments: Option<String>,
    /// Whether the pay page asks for contact data.
    pub contact_required: bool,
    /// Payer e-mail.
    pub email: Option<String>,
    /// Payer phone country code.
    pub phone_country_code: Option<String>,
    /// Payer phone number.
    pub phone_number: Option<String>,
    /// Last valid moment.
    #[serde(with = "wire::time_opt")]
    pub expiry_date: Option<DateTime<Utc>>,
    /// Completion moment.
    #[serde(with = "wire::time_opt")]
    pub completed_date: Option<DateTime<Utc>>,
    /// Creation moment.
    pub created_date: DateTime<Utc>,
    /// Items.
    pub items: Vec<ItemRecord>,
    /// Payments.
    pub payments: Vec<PaymentRecord>,
}

impl LinkRecord {
    /// The status as read at `now`: a pending link past its expiry reads as EXPIRED.
    pub fn status_at(&self, now: DateTime<Utc>) -> LinkStatus {
        match (&self.status, self.expiry_date) {
            (LinkStatus::Pending, Some(expiry)) if expiry <= now => LinkStatus::Expired,
            (status, _) => status.clone(),
        }
    }

    /// Amount left to pay.
    pub fn remaining(&self) -> Decimal {
        self.amount - self.paid_amount
    }

    /// The link as the API returns it.
    pub fn view(&self, base_url: &str, now: DateTime<Utc>) -> PaymentLink {
        PaymentLink {
            id: self.id.clone(),
            reference_number: Some(self.reference_number.clone()),
            order_number: self.order_number.clone(),
            payment_url: Some(format!("{base_url}/pay/{}", self.id)),
            transaction_ref: self.transaction_ref.clone(),
            amount: Some(self.amount),
            paid_amount: Some(self.paid_amount),
            remaining_amount: Some(self.remaining()),
            currency: Some(self.currency),
            status: Some(self.status_at(now)),
            description: self.description.clone(),
            allow_partial_payment: Some(self.allow_partial_payment),
            enable_installment: Some(self.enable_installment),
            available_installments: self.available_installments.clone(),
            email: self.email.clone(),
            phone_country_code: self.phone_country_code.clone(),
            phone_number: self.phone_number.clone(),
            expiry_date: self.expiry_date,
            completed_date: self.completed_date,
            created_date: Some(self.created_date),
        }
    }
}

/// A saved card as the sandbox keeps it: the mask and the provider's token, never the PAN.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardRecord {
    /// Identifier (`savedCardId`).
    pub id: String,
    /// Owning business.
    pub business: String,
    /// Customer it is stored for; `None` for the business's own card.
    pub customer_id: Option<String>,
    /// The POS provider that tokenized it.
    pub provider_id: String,
    /// The provider's token.
    pub provider_token: String,
    /// First six, stars, last four.
    pub masked_pan: String,
    /// Reminder name.
    pub alias: Option<String>,
    /// Name on the card.
    pub card_holder_name: Option<String>,
    /// Brand from the BIN table.
    pub brand: Option<String>,
    /// Bank from the BIN table.
    pub bank_name: Option<String>,
    /// Card type from the BIN table.
    pub card_type: Option<String>,
    /// Card family from the BIN table.
    pub card_family: Option<String>,
    /// MM.
    pub expiry_month: String,
    /// YYYY.
    pub expiry_year: String,
    /// Usage.
    pub usage: CardUsage,
    /// Status.
    pub status: CardStatus,
    /// Default card of its usage for its owner.
    pub is_default: bool,
    /// Creation moment.
    pub created_date: DateTime<Utc>,
}

impl CardRecord {
    /// The card as the API returns it.
    pub fn view(&self) -> SavedCard {
        SavedCard {
            id: self.id.clone(),
            masked_pan: Some(self.masked_pan.clone()),
            alias: self.alias.clone(),
            card_holder_name: self.card_holder_name.clone(),
            brand: self.brand.clone(),
            bank_name: self.bank_name.clone(),
            card_type: self.card_type.clone(),
            expiry_month: Some(self.expiry_month.clone()),
            expiry_year: Some(self.expiry_year.clone()),
            usage: Some(self.usage),
            status: Some(self.status.clone()),
            is_default: Some(self.is_default),
            customer_id: self.customer_id.clone(),
            created_date: Some(self.created_date),
        }
    }
}
