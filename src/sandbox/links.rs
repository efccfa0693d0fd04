//! Payment links: create (every rule and error key of the spec), detail, cancel, and paying
//! (from the pay page or the admin route).
//!
//! Sandbox choices, documented in docs/sandbox.md: a missing, non-positive
//! or too precise `amount` is 400 `amount.invalid`; a money value or items total a 96-bit
//! decimal cannot hold exactly is 400 `amount.out.of.range`; the amount upper bound applies
//! in any currency; the item ceiling counts `items` entries; an unknown variant or a variant
//! of another business is 400 `items.variant.not.found`; a variant in another currency is 400
//! `items.currency.mismatch`; a link of another business is 404 `link.not.found`; cancel sets
//! EXPIRED (a completed link cannot be cancelled: 406 `link.not.cancellable`).

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde_json::Value;

use super::body::{Body, at_scale, check_amount};
use super::fixture::ApiKey;
use super::records::{ItemRecord, LinkRecord, PaymentRecord};
use super::respond::{AMOUNT_OUT_OF_RANGE, Rejection, success_body};
use super::shared::Shared;
use crate::api::{keys, wire};
use crate::domain::{Currency, LinkStatus};

/// Highest installment count accepted in `availableInstallments`.
const MAX_INSTALLMENTS: u32 = 36;

/// `POST /partner/1.0/payment/link/create`.
pub fn create(shared: &Shared, key: &ApiKey, value: &Value) -> Result<Vec<u8>, Rejection> {
    let now = shared.clock.now();
    let link = validate(shared, key, value, now)?;
    let view = link.view(&shared.base_url, now);
    let body = success_body(&view)?;
    shared.store.insert_link(link)?;
    Ok(body)
}

fn validate(
    shared: &Shared,
    key: &ApiKey,
    value: &Value,
    now: DateTime<Utc>,
) -> Result<LinkRecord, Rejection> {
    let b = Body::of(value)?;
    let currency = match b.text_nonblank("currency")? {
        None => Currency::Try,
        Some(text) => text.parse().map_err(|e: crate::domain::UnknownCode| {
            Rejection::invalid("currency", e.to_string())
        })?,
    };
    let digits = currency.minor_units();
    let Some(amount) = b.decimal("amount")? else {
        return Err(Rejection::invalid("amount", "`amount` is required"));
    };
    let amount = check_amount("amount", amount, digits, currency.as_str())?;
    let cart_amount = match b.decimal("cartAmount")? {
        Some(c) => check_amount("cartAmount", c, digits, currency.as_str())?,
        None => amount,
    };
    if let Some(bound) = key.amount_upper_bound
        && amount > bound
    {
        return Err(Rejection::new(
            StatusCode::NOT_ACCEPTABLE,
            keys::AMOUNT_LIMIT_EXCEEDED,
            format!("amount {amount} exceeds this API key's upper bound {bound}"),
        ));
    }
    let expiry_date = match b.text_nonblank("expiryDate")? {
        None => None,
        Some(text) => {
            let Some(t) = wire::parse_time(text) else {
                return Err(Rejection::invalid(
                    "expiryDate",
                    format!("`expiryDate` {text} is not an ISO-8601 time"),
                ));
            };
            if t <= now {
                return Err(Rejection::new(
                    StatusCode::BAD_REQUEST,
                    keys::EXPIRY_IN_PAST,
                    format!(
                        "expiryDate {} is not in the future (server time {})",
                        wire::format_time(t),
                        wire::format_time(now)
                    ),
                ));
            }
            Some(t)
        }
    };
    let available_installments = match b.text_nonblank("availableInstallments")? {
        None => None,
        Some(text) => Some(installment_counts(text)?),
    };
    let items = items(shared, key, b, currency)?;
    if !items.is_empty() {
        let total = items_total(&items, digits)?;
        if total != amount {
            let mut total = total;
            total.rescale(digits);
            return Err(Rejection::new(
                StatusCode::NOT_ACCEPTABLE,
                keys::ITEMS_TOTAL_MISMATCH,
                format!("items total {total} does not equal amount {amount}; expected {total}"),
            ));
        }
    }
    let text = |f: &str| b.text_nonblank(f).map(|o| o.map(str::to_owned));
    Ok(LinkRecord {
        id: unique_id(shared, "lnk"),
        business: key.business.clone(),
        reference_number: shared.ids.reference(),
        order_number: text("orderNumber")?,
        amount,
        cart_amount,
        currency,
        paid_amount: zero(digits),
        status: LinkStatus::Pending,
        transaction_ref: None,
        description: text("description")?,
        allow_partial_payment: b.flag("allowPartialPayment", false)?,
        enable_installment: b.flag("enableInstallment", true)?,
        available_installments,
        contact_required: b.flag("contactRequired", false)?,
        email: text("email")?,
        phone_country_code: text("phoneCountryCode")?,
        phone_number: text("phoneNumber")?,
        expiry_date,
        completed_date: None,
        created_date: now,
        items,
        payments: Vec::new(),
    })
}

/// The sum of `unitPrice × quantity`, checked: a line or a total that a 96-bit decimal cannot
/// hold with the currency's `digits` is 400 `amount.out.of.range`, never a panic.
fn items_total(items: &[ItemRecord], digits: u32) -> Result<Decimal, Rejection> {
    let mut total = Decimal::ZERO;
    for (n, item) in items.iter().enumerate() {
        let line = item
            .unit_price
            .checked_mul(Decimal::from(item.quantity))
            .and_then(|line| at_scale(line, digits))
            .ok_or_else(|| {
                Rejection::out_of_range(format!(
                    "item {}: unitPrice {} × quantity {} is too large to compute exactly",
                    n + 1,
                    item.unit_price,
                    item.quantity
                ))
            })?;
        total = total
            .checked_add(line)
            .and_then(|t| at_scale(t, digits))
            .ok_or_else(|| {
                Rejection::out_of_range(format!(
                    "the items total is too large to compute exactly (at item {})",
                    n + 1
                ))
            })?;
    }
    Ok(total)
}

fn zero(digits: u32) -> Decimal {
    Decimal::new(0, digits)
}

pub(super) fn unique_id(shared: &Shared, prefix: &str) -> String {
    loop {
        let id = shared.ids.id(prefix);
        if !shared.store.id_taken(&id) {
            return id;
        }
    }
}

/// `1,3,6,12`: counts 1..=36, comma-separated; normalized without blanks.
fn installment_counts(text: &str) -> Result<String, Rejection> {
    let bad = || {
        Rejection::invalid(
            "availableInstallments",
            format!("`availableInstallments` must look like 1,3,6,12; got `{text}`"),
        )
    };
    let counts = text
        .split(',')
        .map(|part| {
            part.trim()
                .parse::<u32>()
                .ok()
                .filter(|c| (1..=MAX_INSTALLMENTS).contains(c))
                .ok_or_else(bad)
        })
        .collect::<Result<Vec<u32>, Rejection>>()?;
    Ok(counts
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(","))
}

fn items(
    shared: &Shared,
    key: &ApiKey,
    b: Body<'_>,
    currency: Currency,
) -> Result<Vec<ItemRecord>, Rejection> {
    let Some(raw) = b.get("items") else {
        return Ok(Vec::new());
    };
    let Some(list) = raw.as_array() else {
        return Err(Rejection::new(
            StatusCode::BAD_REQUEST,
            keys::ITEMS_INVALID,
            "`items` must be an array",
        ));
    };
    if let Some(max) = key.link.max_items
        && list.len() > max as usize
    {
        return Err(Rejection::new(
            StatusCode::NOT_ACCEPTABLE,
            keys::ITEM_LIMIT_EXCEEDED,
            format!(
                "{} items exceed this API key's link.max_items of {max}",
                list.len()
            ),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(n, v)| item(shared, key, n + 1, v, currency))
        .collect()
}

fn item(
    shared: &Shared,
    key: &ApiKey,
    n: usize,
    value: &Value,
    currency: Currency,
) -> Result<ItemRecord, Rejection> {
    let invalid = |why: String| {
        Rejection::new(
            StatusCode::BAD_REQUEST,
            keys::ITEMS_INVALID,
            format!("item {n}: {why}"),
        )
    };
    let Some(obj) = value.as_object() else {
        return Err(invalid("must be an object".into()));
    };
    let b = Body(obj);
    let text = |f: &str| {
        b.text_nonblank(f)
            .map_err(|_| invalid(format!("`{f}` must be text")))
    };
    let quantity = match b.get("quantity") {
        None => 1,
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|q| u32::try_from(q).ok())
            .filter(|q| *q >= 1)
            .ok_or_else(|| invalid(format!("quantity {n} must be a whole number of at least 1")))?,
        Some(other) => return Err(invalid(format!("quantity {other} must be a whole number"))),
    };
    let special_note = text("specialNote")?.map(str::to_owned);
    if let Some(variant_id) = text("productVariantId")? {
        let Some(variant) = shared.index.variant(&key.business, variant_id) else {
            return Err(Rejection::new(
                StatusCode::BAD_REQUEST,
                "items.variant.not.found",
                format!(
                    "item {n}: catalog variant `{variant_id}` is not in this business's catalog"
                ),
            ));
        };
        if variant.currency != currency {
            return Err(Rejection::new(
                StatusCode::BAD_REQUEST,
                "items.currency.mismatch",
                format!(
                    "item {n}: variant `{variant_id}` is priced in {}, the link is in {currency}",
                    variant.currency
                ),
            ));
        }
        return Ok(ItemRecord {
            product_variant_id: Some(variant.id.clone()),
            name: variant.name.clone(),
            unit_price: variant.unit_price,
            quantity,
            special_note,
        });
    }
    let Some(name) = text("name")? else {
        return Err(invalid("a non-catalog item needs a `name`".into()));
    };
    // A price too large to hold keeps its own key; any other problem is `items.invalid`.
    let item_error = |e: Rejection| {
        if e.key == AMOUNT_OUT_OF_RANGE {
            Rejection::out_of_range(format!("item {n}: {}", e.message))
        } else {
            invalid(e.message)
        }
    };
    let price = b
        .decimal("unitPrice")
        .map_err(|e| match e.key.as_ref() {
            AMOUNT_OUT_OF_RANGE => item_error(e),
            _ => invalid("`unitPrice` must be a decimal number".into()),
        })?
        .ok_or_else(|| invalid("a non-catalog item needs a `unitPrice`".into()))?;
    let unit_price = check_amount(
        "unitPrice",
        price,
        currency.minor_units(),
        currency.as_str(),
    )
    .map_err(item_error)?;
    Ok(ItemRecord {
        product_variant_id: None,
        name: name.to_owned(),
        unit_price,
        quantity,
        special_note,
    })
}

fn not_found(id: &str) -> Rejection {
    Rejection::new(
        StatusCode::NOT_FOUND,
        "link.not.found",
        format!("no payment link `{id}` in this business"),
    )
}

fn link_id(value: &Value) -> Result<&str, Rejection> {
    Body::of(value)?.text_nonblank("id")?.ok_or_else(|| {
        Rejection::new(
            StatusCode::BAD_REQUEST,
            "id.required",
            "`id` of the payment link is required",
        )
    })
}

/// Link detail (assumed path, body `{"id": ...}`).
pub fn detail(shared: &Shared, key: &ApiKey, value: &Value) -> Result<Vec<u8>, Rejection> {
    let id = link_id(value)?;
    let link = shared
        .store
        .link(id)
        .filter(|l| l.business == key.business)
        .ok_or_else(|| not_found(id))?;
    success_body(&link.view(&shared.base_url, shared.clock.now()))
}

/// Link cancel (assumed path, body `{"id": ...}`): sets EXPIRED.
pub fn cancel(shared: &Shared, key: &ApiKey, value: &Value) -> Result<Vec<u8>, Rejection> {
    let id = link_id(value)?;
    let now = shared.clock.now();
    let result = shared.store.update_link(id, |link| {
        if link.business != key.business {
            return Err(not_found(id));
        }
        match link.status_at(now) {
            LinkStatus::Pending => link.status = LinkStatus::Expired,
            LinkStatus::Expired => {}
            other => {
                return Err(Rejection::new(
                    StatusCode::NOT_ACCEPTABLE,
                    "link.not.cancellable",
                    format!("a {other} link cannot be cancelled"),
                ));
            }
        }
        Ok(link.view(&shared.base_url, now))
    });
    success_body(&result.ok_or_else(|| not_found(id))??)
}

/// Pays `amount` (the whole remaining amount when `None`) on a link.
pub fn pay(
    shared: &Shared,
    id: &str,
    amount: Option<Decimal>,
) -> Result<wire::PaymentLink, Rejection> {
    let now = shared.clock.now();
    let txn = unique_id(shared, "txn");
    let result = shared.store.update_link(id, |link| {
        let status = link.status_at(now);
        if status != LinkStatus::Pending {
            return Err(Rejection::new(
                StatusCode::NOT_ACCEPTABLE,
                "link.not.payable",
                format!("the link is {status}; only a PENDING link can be paid"),
            ));
        }
        let remaining = link.remaining();
        let digits = link.currency.minor_units();
        let amount = match amount {
            None => remaining,
            Some(a) => check_amount("amount", a, digits, link.currency.as_str())?,
        };
        if amount > remaining {
            return Err(Rejection::new(
                StatusCode::NOT_ACCEPTABLE,
                "payment.amount.exceeds.remaining",
                format!("{amount} is more than the {remaining} left to pay"),
            ));
        }
        if amount != remaining && !link.allow_partial_payment {
            return Err(Rejection::new(
                StatusCode::NOT_ACCEPTABLE,
                "payment.partial.not.allowed",
                format!("this link takes only the full {remaining}"),
            ));
        }
        link.paid_amount += amount;
        link.transaction_ref = Some(txn.clone());
        link.payments.push(PaymentRecord {
            transaction_ref: txn.clone(),
            amount,
            paid_at: now,
        });
        if link.remaining().is_zero() {
            link.status = LinkStatus::Completed;
            link.completed_date = Some(now);
        }
        Ok(link.view(&shared.base_url, now))
    });
    result.ok_or_else(|| {
        Rejection::new(
            StatusCode::NOT_FOUND,
            "link.not.found",
            format!("no payment link `{id}`"),
        )
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installment_counts_are_normalized_or_refused() {
        assert_eq!(installment_counts("1, 3,6 ,12").unwrap(), "1,3,6,12");
        for bad in ["1;3", "0,3", "3,,6", "x", "37"] {
            assert_eq!(
                installment_counts(bad).unwrap_err().key,
                "availableInstallments.invalid",
                "{bad}"
            );
        }
    }
}
