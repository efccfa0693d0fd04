//! The message keys paydesk knows: the spec's ten, and the auth and idempotency keys the
//! sandbox answers with (docs/design.md §1). The catalogue of sentences is keyed by these.

/// Link create: item total differs from `amount` (406).
pub const ITEMS_TOTAL_MISMATCH: &str = "items.total.mismatch";
/// Link create: a non-catalog item lacks a name or a positive unit price (400).
pub const ITEMS_INVALID: &str = "items.invalid";
/// Link create: amount over the key's upper bound (406).
pub const AMOUNT_LIMIT_EXCEEDED: &str = "partner.api.amount.limit.exceeded";
/// Link create: item count over the key's `link.max_items` (406).
pub const ITEM_LIMIT_EXCEEDED: &str = "partner.api.item.limit.exceeded";
/// Link create: `expiryDate` in the past (400).
pub const EXPIRY_IN_PAST: &str = "gecerlilik.tarihi.guncel.degil";
/// Card save: empty `cardNumber` (400).
pub const CARD_NUMBER_EMPTY: &str = "cardNumber.empty";
/// Card save: empty `expiryMonth` (400).
pub const EXPIRY_MONTH_EMPTY: &str = "expiryMonth.empty";
/// Card save: empty `expiryYear` (400).
pub const EXPIRY_YEAR_EMPTY: &str = "expiryYear.empty";
/// Card save: no active POS provider that stores cards (404).
pub const POS_PROVIDER_NOT_FOUND: &str = "pos.provider.not.found";
/// Installment list: empty `binNumber` (400).
pub const BIN_REQUIRED: &str = "binnumber.required";

/// Missing `Idempotency-Key` (400).
pub const IDEMPOTENCY_KEY_MISSING: &str = "idempotency.key.missing";
/// Same key, first request still running (406).
pub const IDEMPOTENCY_IN_PROGRESS: &str = "idempotency.request.in.progress";
/// Same key, different body (406).
pub const IDEMPOTENCY_KEY_REUSED: &str = "idempotency.key.reused";

/// Unknown `X-Api-Key` (401).
pub const AUTH_APIKEY_UNKNOWN: &str = "auth.apikey.unknown";
/// Signature does not match (401).
pub const AUTH_SIGNATURE_INVALID: &str = "auth.signature.invalid";
/// `X-Timestamp` more than 5 minutes from the server clock (401).
pub const AUTH_TIMESTAMP_SKEW: &str = "auth.timestamp.skew";
/// Signature already seen in the last 5 minutes (401).
pub const AUTH_SIGNATURE_REPLAYED: &str = "auth.signature.replayed";
/// API key lacks the endpoint's scope (403).
pub const AUTH_SCOPE_MISSING: &str = "auth.scope.missing";

/// Every key paydesk has a sentence for, in an order the lists below rely on: the spec's ten
/// first (link create's five, then card save's four and the installment list's one), then the
/// idempotency and auth keys.
pub const ALL_KEYS: [&str; 18] = [
    ITEMS_TOTAL_MISMATCH,
    ITEMS_INVALID,
    AMOUNT_LIMIT_EXCEEDED,
    ITEM_LIMIT_EXCEEDED,
    EXPIRY_IN_PAST,
    CARD_NUMBER_EMPTY,
    EXPIRY_MONTH_EMPTY,
    EXPIRY_YEAR_EMPTY,
    POS_PROVIDER_NOT_FOUND,
    BIN_REQUIRED,
    IDEMPOTENCY_KEY_MISSING,
    IDEMPOTENCY_IN_PROGRESS,
    IDEMPOTENCY_KEY_REUSED,
    AUTH_APIKEY_UNKNOWN,
    AUTH_SIGNATURE_INVALID,
    AUTH_TIMESTAMP_SKEW,
    AUTH_SIGNATURE_REPLAYED,
    AUTH_SCOPE_MISSING,
];

/// The spec's ten keys.
pub const SPEC_KEYS: &[&str] = ALL_KEYS.split_at(10).0;

/// The link-create rejections the spec names. The server decides these on the request itself,
/// after it looked the idempotency key up (a key it already holds returns the stored link), so
/// after an attempt with an unknown outcome only these prove that no link exists for the key.
pub const LINK_CREATE_REJECTIONS: &[&str] = ALL_KEYS.split_at(5).0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_derived_lists_hold_the_keys_they_name() {
        assert_eq!(
            LINK_CREATE_REJECTIONS,
            [
                ITEMS_TOTAL_MISMATCH,
                ITEMS_INVALID,
                AMOUNT_LIMIT_EXCEEDED,
                ITEM_LIMIT_EXCEEDED,
                EXPIRY_IN_PAST
            ]
        );
        assert_eq!(SPEC_KEYS.len(), 10);
        assert_eq!(SPEC_KEYS.last(), Some(&BIN_REQUIRED));
        assert!(!SPEC_KEYS.contains(&IDEMPOTENCY_KEY_MISSING));
    }
}
