//! The API layer's catalogue of sentences, in Turkish and English: one for each message key
//! the server names an error by, one for each kind of HTTP status, and the client's own
//! (no answer, a redirect, an unreadable answer, the expected amount).
//!
//! The server names an error by a message key (`items.total.mismatch`); a shop assistant needs
//! a sentence they can act on. Every key in [`keys::ALL_KEYS`] maps to an [`ApiMessage`]
//! ([`for_key`]), and a test walks the list so that none is missing or shared. Keys this
//! catalogue does not know are not handled here: `ApiError::sentence` shows them verbatim.
//! The catalogue is declared with [`crate::sentences!`] and listed in
//! `every_sentence` (in `tests/support/catalogues.rs`), so the language tests walk it too.

use crate::api::keys;
use crate::lang::Lang;

crate::sentences! {
    /// A sentence of the API layer.
    pub enum ApiMessage {
    // Message keys.
    ItemsTotalMismatch => "Ürünlerin toplamı tutara eşit değil.", "The items do not add up to the amount.";
    ItemsInvalid => "Katalog dışı her ürünün bir adı ve sıfırdan büyük bir birim fiyatı olmalı.", "Every item that is not from the catalogue needs a name and a unit price above zero.";
    AmountLimitExceeded => "Tutar, bu API anahtarının üst sınırını aşıyor. Daha küçük bir tutar girin ya da yöneticinize başvurun.", "The amount is above this API key's limit. Enter a smaller amount or ask your manager.";
    ItemLimitExceeded => "Ürün sayısı, bu API anahtarının izin verdiği sınırı aşıyor. Bazı ürünleri çıkarın.", "There are more items than this API key allows. Remove some items.";
    ExpiryInPast => "Son geçerlilik tarihi geçmişte kalmış. İleri bir tarih seçin.", "The expiry date is in the past. Choose a later date.";
    CardNumberEmpty => "Kart numarasını girin.", "Enter the card number.";
    ExpiryMonthEmpty => "Kartın son kullanma ayını girin.", "Enter the card's expiry month.";
    ExpiryYearEmpty => "Kartın son kullanma yılını girin.", "Enter the card's expiry year.";
    PosProviderNotFound => "İşletmenizde kart saklayabilen etkin bir POS sağlayıcısı yok. Yöneticinize başvurun.", "Your business has no active POS provider that can store cards. Ask your manager.";
    BinRequired => "Kart numarasının ilk 6 hanesini (BIN) girin.", "Enter the first 6 digits of the card number (BIN).";
    IdempotencyKeyMissing => "İstek, tekrar koruma anahtarı olmadan gönderildiği için işlenmedi. Bu durumu destek ekibine bildirin.", "The request was not processed because it was sent without its duplicate-protection key. Please report this to support.";
    IdempotencyInProgress => "Bu sipariş için aynı istek hâlâ işleniyor. Biraz bekleyip yeniden deneyin.", "The same request for this order is still being processed. Wait a moment and try again.";
    IdempotencyKeyReused => "Bu sipariş numarası daha önce farklı bilgilerle kullanılmış. Mevcut bağlantıyı kontrol edin ya da yeni bir sipariş numarası kullanın.", "This order number was already used with different details. Check the existing link or use a new order number.";
    AuthApiKeyUnknown => "API anahtarı tanınmadı. Profil ayarlarındaki anahtarı kontrol edin.", "The API key is not recognised. Check the key in the profile settings.";
    AuthSignatureInvalid => "İstek imzası kabul edilmedi. Profil ayarlarındaki gizli anahtarı kontrol edin.", "The request signature was not accepted. Check the API secret in the profile settings.";
    AuthTimestampSkew => "Bu bilgisayarın saati sunucunun saatinden 5 dakikadan fazla farklı. Saati ve saat dilimini düzeltin.", "This computer's clock is more than 5 minutes off the server's. Correct the clock and the time zone.";
    AuthSignatureReplayed => "Aynı imzalı istek ikinci kez gönderildiği için reddedildi. Yeniden deneyin.", "The same signed request arrived twice and was refused. Try again.";
    AuthScopeMissing => "Bu API anahtarının bu işlem için yetkisi yok. Yöneticinizden yetki isteyin.", "This API key is not allowed to do this. Ask your manager to grant the permission.";

    // HTTP statuses without a message key, ending with the status so that support can tell
    // the cases apart.
    Status400 => "Sunucu isteği geçersiz buldu. (HTTP {status})", "The server found the request invalid. (HTTP {status})";
    Status401 => "Yetkilendirme başarısız: API anahtarını ve gizli anahtarı kontrol edin. (HTTP {status})", "Not authorised: check the API key and secret. (HTTP {status})";
    Status403 => "Bu işlem için izniniz yok. (HTTP {status})", "You are not allowed to do this. (HTTP {status})";
    Status404 => "İstenen kayıt bulunamadı. (HTTP {status})", "What was asked for was not found. (HTTP {status})";
    StatusNotAccepted => "Sunucu isteği kabul etmedi. (HTTP {status})", "The server did not accept the request. (HTTP {status})";
    StatusTimeout => "Sunucu zamanında yanıt vermedi. Yeniden deneyin. (HTTP {status})", "The server did not answer in time. Try again. (HTTP {status})";
    Status413 => "İstek çok büyük. (HTTP {status})", "The request is too large. (HTTP {status})";
    Status429 => "Çok fazla istek gönderildi. Biraz bekleyip yeniden deneyin. (HTTP {status})", "Too many requests. Wait a moment and try again. (HTTP {status})";
    StatusUnavailable => "Ödeme hizmetine şu anda ulaşılamıyor. Biraz sonra yeniden deneyin. (HTTP {status})", "The payment service cannot be reached right now. Try again shortly. (HTTP {status})";
    StatusOther4xx => "Sunucu isteği reddetti. (HTTP {status})", "The server refused the request. (HTTP {status})";
    StatusOther5xx => "Sunucuda bir hata oluştu. Biraz sonra yeniden deneyin. (HTTP {status})", "The server had an error. Try again shortly. (HTTP {status})";
    StatusUnexpected => "Sunucudan beklenmeyen bir yanıt geldi. (HTTP {status})", "The server gave an unexpected answer. (HTTP {status})";

    // The client's own sentences (`CallError`, `ApiError`).
    TransportTimeout => "Sunucu zamanında yanıt vermedi; işlemin sonucu bilinmiyor.", "The server did not answer in time; the outcome is unknown.";
    TransportConnect => "Sunucuya bağlanılamadı; ağ bağlantısını kontrol edin.", "Could not connect to the server; check the network connection.";
    TransportDropped => "Bağlantı yanıt gelmeden kesildi; işlemin sonucu bilinmiyor.", "The connection dropped before an answer; the outcome is unknown.";
    Redirected => "Sunucu isteği başka bir adrese yönlendirdi; paydesk yönlendirmeleri izlemez ve oraya hiçbir şey göndermedi. İşlemin sonucu bilinmiyor; profilin sunucu adresini kontrol edin. (HTTP {status} → {location})", "The server redirected the request to another address; paydesk does not follow redirects and sent nothing there. The outcome is unknown; check the profile's server address. (HTTP {status} → {location})";
    Malformed => "Sunucunun yanıtı okunamadı. (HTTP {status})", "The server's answer could not be read. (HTTP {status})";
    TooLarge => "Sunucunun yanıtı {limit} MiB sınırından büyük olduğu için okunmadı; işlemin sonucu bilinmiyor. (HTTP {status})", "The server's answer was larger than {limit} MiB and was not read; the outcome is unknown. (HTTP {status})";
    NotSent => "İstek oluşturulamadı ve hiçbir şey gönderilmedi; ayarlardaki API anahtar kimliğini kontrol edin.", "The request could not be built and nothing was sent; check the API key id in Settings.";
    ExpectedAmount => "{sentence} Beklenen tutar: {amount}.", "{sentence} Expected amount: {amount}.";
    }
}

/// The sentence of a known message key, or `None` for a key this version does not know.
pub fn for_key(key: &str) -> Option<ApiMessage> {
    let m = match key {
        keys::ITEMS_TOTAL_MISMATCH => ApiMessage::ItemsTotalMismatch,
        keys::ITEMS_INVALID => ApiMessage::ItemsInvalid,
        keys::AMOUNT_LIMIT_EXCEEDED => ApiMessage::AmountLimitExceeded,
        keys::ITEM_LIMIT_EXCEEDED => ApiMessage::ItemLimitExceeded,
        keys::EXPIRY_IN_PAST => ApiMessage::ExpiryInPast,
        keys::CARD_NUMBER_EMPTY => ApiMessage::CardNumberEmpty,
        keys::EXPIRY_MONTH_EMPTY => ApiMessage::ExpiryMonthEmpty,
        keys::EXPIRY_YEAR_EMPTY => ApiMessage::ExpiryYearEmpty,
        keys::POS_PROVIDER_NOT_FOUND => ApiMessage::PosProviderNotFound,
        keys::BIN_REQUIRED => ApiMessage::BinRequired,
        keys::IDEMPOTENCY_KEY_MISSING => ApiMessage::IdempotencyKeyMissing,
        keys::IDEMPOTENCY_IN_PROGRESS => ApiMessage::IdempotencyInProgress,
        keys::IDEMPOTENCY_KEY_REUSED => ApiMessage::IdempotencyKeyReused,
        keys::AUTH_APIKEY_UNKNOWN => ApiMessage::AuthApiKeyUnknown,
        keys::AUTH_SIGNATURE_INVALID => ApiMessage::AuthSignatureInvalid,
        keys::AUTH_TIMESTAMP_SKEW => ApiMessage::AuthTimestampSkew,
        keys::AUTH_SIGNATURE_REPLAYED => ApiMessage::AuthSignatureReplayed,
        keys::AUTH_SCOPE_MISSING => ApiMessage::AuthScopeMissing,
        _ => return None,
    };
    Some(m)
}

/// The sentence for a known message key, or `None` for a key this version does not know.
pub fn sentence(key: &str, lang: Lang) -> Option<&'static str> {
    for_key(key).map(|m| m.get(lang))
}

/// The sentence of an HTTP status when the server named no message key; it ends with the
/// `{status}` placeholder (`(HTTP 502)`).
pub fn for_status(status: u16) -> ApiMessage {
    match status {
        400 => ApiMessage::Status400,
        401 => ApiMessage::Status401,
        403 => ApiMessage::Status403,
        404 => ApiMessage::Status404,
        406 | 409 | 422 => ApiMessage::StatusNotAccepted,
        408 | 504 => ApiMessage::StatusTimeout,
        413 => ApiMessage::Status413,
        429 => ApiMessage::Status429,
        502 | 503 => ApiMessage::StatusUnavailable,
        _ if (400..=499).contains(&status) => ApiMessage::StatusOther4xx,
        _ if (500..=599).contains(&status) => ApiMessage::StatusOther5xx,
        _ => ApiMessage::StatusUnexpected,
    }
}

/// A sentence for an HTTP status when the server named no message key, ending with the
/// status itself (`(HTTP 502)`) so that support can tell the cases apart.
pub fn status_sentence(status: u16, lang: Lang) -> String {
    for_status(status).fill(lang, &[("status", &status)])
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn every_known_key_has_its_own_sentence_in_both_languages() {
        let mut seen: HashMap<&'static str, &str> = HashMap::new();
        for key in keys::ALL_KEYS {
            let tr = sentence(key, Lang::Tr).unwrap_or_else(|| panic!("no Turkish for {key}"));
            let en = sentence(key, Lang::En).unwrap_or_else(|| panic!("no English for {key}"));
            assert!(!tr.trim().is_empty(), "{key}: empty Turkish");
            assert!(!en.trim().is_empty(), "{key}: empty English");
            assert_ne!(tr, en, "{key}: Turkish equals English");
            for s in [tr, en] {
                assert!(s.ends_with('.'), "{key}: not a sentence: {s}");
                if let Some(other) = seen.insert(s, key) {
                    panic!("{key} and {other} share the sentence {s:?}");
                }
            }
        }
        assert_eq!(seen.len(), 2 * keys::ALL_KEYS.len());
    }

    #[test]
    fn the_spec_example_reads_as_written() {
        assert_eq!(
            sentence(keys::ITEMS_TOTAL_MISMATCH, Lang::Tr),
            Some("Ürünlerin toplamı tutara eşit değil.")
        );
        assert_eq!(
            sentence(keys::ITEMS_TOTAL_MISMATCH, Lang::En),
            Some("The items do not add up to the amount.")
        );
    }

    #[test]
    fn unknown_keys_have_no_sentence() {
        for key in [
            "",
            "items.total",
            "ITEMS.TOTAL.MISMATCH",
            "items.total.mismatch ",
            "x.y",
        ] {
            assert_eq!(sentence(key, Lang::Tr), None, "{key:?}");
            assert_eq!(sentence(key, Lang::En), None, "{key:?}");
        }
    }

    #[test]
    fn status_sentences_name_the_status_and_the_case() {
        let cases: [(u16, &str, &str); 10] = [
            (400, "geçersiz", "invalid"),
            (401, "Yetkilendirme", "Not authorised"),
            (403, "izniniz yok", "not allowed"),
            (404, "bulunamadı", "not found"),
            (429, "Çok fazla istek", "Too many requests"),
            (500, "Sunucuda bir hata", "server had an error"),
            (502, "ulaşılamıyor", "cannot be reached"),
            (504, "zamanında", "in time"),
            (418, "reddetti", "refused"),
            (302, "beklenmeyen", "unexpected"),
        ];
        for (status, tr, en) in cases {
            let s_tr = status_sentence(status, Lang::Tr);
            let s_en = status_sentence(status, Lang::En);
            assert!(s_tr.contains(tr), "{status}: {s_tr}");
            assert!(s_en.contains(en), "{status}: {s_en}");
            let tail = format!("(HTTP {status})");
            assert!(
                s_tr.ends_with(&tail) && s_en.ends_with(&tail),
                "{s_tr} / {s_en}"
            );
        }
    }
}
