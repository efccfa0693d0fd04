//! Card save: the required fields, the server's provider choice, the mask and the token.
//!
//! The PAN and the CVV live only in zeroizing buffers for the length of the request; the
//! record keeps the first six and last four digits and a generated provider token. Sandbox
//! choices: a card number that is not 12–19 digits passing the Luhn check is 400
//! `cardNumber.invalid`; a bad month/year is `expiryMonth.invalid` / `expiryYear.invalid`; a
//! card past its expiry is 400 `card.expired`; a CVV that is not 3–4 digits is
//! `cvv.invalid`.

use axum::http::StatusCode;
use chrono::Datelike;
use serde_json::Value;
use zeroize::Zeroizing;

use super::body::Body;
use super::fixture::ApiKey;
use super::links::unique_id;
use super::records::CardRecord;
use super::respond::{Rejection, success_body};
use super::shared::Shared;
use crate::api::keys;
use crate::domain::{CardStatus, CardUsage};

fn required<'a>(b: Body<'a>, field: &str, empty_key: &'static str) -> Result<&'a str, Rejection> {
    b.text_nonblank(field)?.ok_or_else(|| {
        Rejection::new(
            StatusCode::BAD_REQUEST,
            empty_key,
            format!("`{field}` must not be empty"),
        )
    })
}

/// Whether `digits` (ASCII digits only) pass the Luhn check.
pub fn luhn_ok(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            let d = u32::from(d - b'0');
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// First six, a star for every hidden digit, last four.
pub fn mask(digits: &str) -> String {
    let len = digits.len();
    format!(
        "{}{}{}",
        &digits[..6],
        "*".repeat(len - 10),
        &digits[len - 4..]
    )
}

/// `POST /partner/1.0/card/save`.
pub fn save(shared: &Shared, key: &ApiKey, value: &Value) -> Result<Vec<u8>, Rejection> {
    let b = Body::of(value)?;
    let number = required(b, "cardNumber", keys::CARD_NUMBER_EMPTY)?;
    let month = required(b, "expiryMonth", keys::EXPIRY_MONTH_EMPTY)?;
    let year = required(b, "expiryYear", keys::EXPIRY_YEAR_EMPTY)?;
    let digits: Zeroizing<String> =
        Zeroizing::new(number.chars().filter(|c| *c != ' ' && *c != '-').collect());
    if !(12..=19).contains(&digits.len())
        || !digits.bytes().all(|c| c.is_ascii_digit())
        || !luhn_ok(digits.as_bytes())
    {
        return Err(Rejection::invalid(
            "cardNumber",
            "`cardNumber` is not a valid card number (12–19 digits, Luhn check)",
        ));
    }
    let month: u32 = month
        .parse()
        .ok()
        .filter(|m| (1..=12).contains(m) && month.len() <= 2)
        .ok_or_else(|| Rejection::invalid("expiryMonth", "`expiryMonth` must be MM, 01–12"))?;
    let year: i32 = year
        .parse()
        .ok()
        .filter(|_| year.len() == 4)
        .ok_or_else(|| Rejection::invalid("expiryYear", "`expiryYear` must be YYYY"))?;
    let now = shared.clock.now();
    if (year, month) < (now.year(), now.month()) {
        return Err(Rejection::new(
            StatusCode::BAD_REQUEST,
            "card.expired",
            format!("the card expired at the end of {month:02}/{year}"),
        ));
    }
    if let Some(cvv) = b.text_nonblank("cvv")? {
        let cvv = Zeroizing::new(cvv.to_owned());
        if !(3..=4).contains(&cvv.len()) || !cvv.bytes().all(|c| c.is_ascii_digit()) {
            return Err(Rejection::invalid("cvv", "`cvv` must be 3 or 4 digits"));
        }
        // Passed to the provider for tokenization in a real system; never kept here.
    }
    let usage = match b.text_nonblank("usage")? {
        None => CardUsage::PosPayment,
        Some(text) => text
            .parse()
            .map_err(|e: crate::domain::UnknownCode| Rejection::invalid("usage", e.to_string()))?,
    };
    let text = |f: &str| b.text_nonblank(f).map(|o| o.map(str::to_owned));
    let alias = text("alias")?;
    let card_holder_name = text("cardHolderName")?;
    let customer_id = text("customerId")?;
    let set_as_default = b.flag("setAsDefault", false)?;
    // `provider` and `posProviderId` in the body are ignored on purpose: the server chooses.
    let Some(provider) = shared.index.card_storage_provider(&key.business) else {
        return Err(Rejection::new(
            StatusCode::NOT_FOUND,
            keys::POS_PROVIDER_NOT_FOUND,
            "this business has no active POS provider that stores cards",
        ));
    };
    let bin = shared.index.bin(&digits[..6]);
    let card = CardRecord {
        id: unique_id(shared, "card"),
        business: key.business.clone(),
        customer_id,
        provider_id: provider.id.clone(),
        provider_token: shared.ids.token(),
        masked_pan: mask(&digits),
        alias,
        card_holder_name,
        brand: bin.map(|e| e.brand.clone()),
        bank_name: bin.map(|e| e.bank.clone()),
        card_type: bin.map(|e| e.card_type.clone()),
        card_family: bin.map(|e| e.family.clone()),
        expiry_month: format!("{month:02}"),
        expiry_year: format!("{year:04}"),
        usage,
        status: CardStatus::Active,
        is_default: set_as_default,
        created_date: now,
    };
    let body = success_body(&card.view())?;
    shared.store.insert_card(card)?;
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_and_mask() {
        let table = [
            ("5400610000000001", true, "540061******0001"),
            ("9792000000000003", true, "979200******0003"),
            ("5400610000000002", false, "540061******0002"),
            ("4183421234567898", true, "418342******7898"),
            ("402277000000", false, "402277**0000"),
        ];
        for (pan, ok, masked) in table {
            assert_eq!(luhn_ok(pan.as_bytes()), ok, "{pan}");
            assert_eq!(mask(pan), masked);
        }
    }
}
