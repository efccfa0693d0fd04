//! Installment list: the options of the caller's business's active POS providers for the
//! BIN's card family, filtered by `type` / `subType` (DEFAULT = no filter).
//!
//! With `amount`, each option carries `totalAmount = amount × (1 + rate/100)` and
//! `installmentAmount = totalAmount / count`, each rounded to 2 decimals half away from zero
//! (so `installmentAmount × count` may differ from `totalAmount` by a few kuruş; the total
//! is authoritative). Sandbox choices: an unknown BIN answers 200 with null bank, brand,
//! type and family and only the providers' catch-all (`*`) options; a BIN that is not at
//! least six digits is 400 `binnumber.invalid`; only its first six digits are used or echoed.

use axum::http::StatusCode;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;

use super::body::{Body, at_scale, check_amount};
use super::fixture::ApiKey;
use super::respond::{Rejection, success_body};
use super::shared::Shared;
use crate::api::keys;
use crate::api::wire::{InstallmentList, InstallmentOption};
use crate::domain::{PosSubType, PosType, UnknownCode};

/// Total to pay for `amount` at `rate` percent, rounded to 2 decimals half away from zero.
/// `None` when the exact product does not fit a 96-bit decimal (the multiplication would
/// round it first, and a second rounding could move the last kuruş) or the total cannot be
/// written with 2 decimals.
pub fn total_for(amount: Decimal, rate: Decimal) -> Option<Decimal> {
    let factor = Decimal::ONE.checked_add(rate.checked_div(Decimal::ONE_HUNDRED)?)?;
    let product = amount.checked_mul(factor)?;
    let exact_scale = (amount.scale() + factor.scale()).min(Decimal::MAX_SCALE);
    if product.scale() < exact_scale {
        return None;
    }
    at_scale(
        product.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero),
        2,
    )
}

/// One installment of `total` over `count`, rounded the same way.
pub fn installment_for(total: Decimal, count: u32) -> Decimal {
    let mut i = (total / Decimal::from(count))
        .round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    i.rescale(2);
    i
}

fn filter<T: std::str::FromStr<Err = UnknownCode> + Default>(
    b: Body<'_>,
    field: &str,
) -> Result<T, Rejection> {
    match b.text_nonblank(field)? {
        None => Ok(T::default()),
        Some(text) => text
            .parse()
            .map_err(|e: UnknownCode| Rejection::invalid(field, e.to_string())),
    }
}

/// `POST /partner/1.0/pos/installment/list`.
pub fn list(shared: &Shared, key: &ApiKey, value: &Value) -> Result<Vec<u8>, Rejection> {
    let b = Body::of(value)?;
    let Some(bin) = b.text_nonblank("binNumber")? else {
        return Err(Rejection::new(
            StatusCode::BAD_REQUEST,
            keys::BIN_REQUIRED,
            "`binNumber` is required",
        ));
    };
    if bin.len() < 6 || !bin.bytes().all(|c| c.is_ascii_digit()) {
        return Err(Rejection::new(
            StatusCode::BAD_REQUEST,
            "binnumber.invalid",
            "`binNumber` must be the card's first six digits",
        ));
    }
    let bin = &bin[..6];
    let pos_type: PosType = filter(b, "type")?;
    let sub_type: PosSubType = filter(b, "subType")?;
    let amount = b
        .decimal("amount")?
        .map(|a| check_amount("amount", a, 2, "an installment query"))
        .transpose()?;
    let entry = shared.index.bin(bin);
    let family = entry.map(|e| e.family.as_str());
    let mut options = Vec::new();
    for p in shared.index.providers(&key.business) {
        let type_ok = pos_type == PosType::Default || p.pos_type == pos_type;
        let sub_ok = sub_type == PosSubType::Default || p.sub_type == sub_type;
        if !p.active || !type_ok || !sub_ok {
            continue;
        }
        for (count, rate) in shared.index.commissions(&p.id, family) {
            let total = amount
                .map(|a| {
                    total_for(a, *rate).ok_or_else(|| {
                        Rejection::out_of_range(format!(
                            "`amount` {a} at {rate}% commission is too large to compute exactly"
                        ))
                    })
                })
                .transpose()?;
            options.push(InstallmentOption {
                installment_count: Some(*count),
                commission_rate: Some(*rate),
                installment_amount: total.map(|t| installment_for(t, *count)),
                total_amount: total,
                pos_type: Some(p.pos_type.as_str().to_owned()),
                pos_sub_type: Some(p.sub_type.as_str().to_owned()),
                extra: serde_json::Map::new(),
            });
        }
    }
    // Providers come oldest first; a stable sort keeps that order within a count.
    options.sort_by_key(|o| o.installment_count);
    success_body(&InstallmentList {
        bin_number: Some(bin.to_owned()),
        bank_name: entry.map(|e| e.bank.clone()),
        card_brand: entry.map(|e| e.brand.clone()),
        card_type: entry.map(|e| e.card_type.clone()),
        card_family: family.map(str::to_owned),
        installments: options,
        extra: serde_json::Map::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_and_installments_round_half_away_from_zero() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let table = [
            ("1000.00", "7.19", 3, "1071.90", "357.30"),
            ("1000", "0", 1, "1000.00", "1000.00"),
            ("99.99", "2.79", 1, "102.78", "102.78"),
            ("250.00", "12.29", 6, "280.73", "46.79"),
            ("100.00", "5.49", 2, "105.49", "52.75"),
        ];
        for (amount, rate, count, total, each) in table {
            let t = total_for(d(amount), d(rate)).unwrap();
            assert_eq!(t.to_string(), total, "{amount} @ {rate}");
            assert_eq!(
                installment_for(t, count).to_string(),
                each,
                "{amount} / {count}"
            );
        }
    }

    #[test]
    fn a_total_too_large_to_compute_exactly_is_none_not_a_panic() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let near_max = d("792281625142643375935439503.35");
        assert_eq!(total_for(near_max, d("7.19")), None);
        assert_eq!(total_for(Decimal::MAX, d("0")), None);
        assert_eq!(total_for(Decimal::MAX, d("99.99")), None);
        // The largest amounts whose product still fits are computed exactly.
        assert_eq!(
            total_for(d("10000000000000000000.00"), d("7.19")),
            Some(d("10719000000000000000.00"))
        );
    }
}
