//! The catalogue of sentences shown for the API's message keys and HTTP statuses, in
//! Turkish and English.
//!
//! The server names an error by a message key (`items.total.mismatch`); a shop assistant needs
//! a sentence they can act on. Every key in [`keys::ALL_KEYS`] has one sentence per language
//! here, and a test walks the list so that none is missing or shared. Keys this catalogue does
//! not know are not handled here: `ApiError::sentence` shows them verbatim.

use crate::api::keys;
use crate::lang::Lang;

/// The sentence for a known message key, or `None` for a key this version does not know.
pub fn sentence(key: &str, lang: Lang) -> Option<&'static str> {
    let (tr, en) = match key {
        keys::ITEMS_TOTAL_MISMATCH => (
            "Ürünlerin toplamı tutara eşit değil.",
            "The items do not add up to the amount.",
        ),
        keys::ITEMS_INVALID => (
            "Katalog dışı her ürünün bir adı ve sıfırdan büyük bir birim fiyatı olmalı.",
            "Every item that is not from the catalogue needs a name and a unit price above zero.",
        ),
        keys::AMOUNT_LIMIT_EXCEEDED => (
            "Tutar, bu API anahtarının üst sınırını aşıyor. Daha küçük bir tutar girin ya da \
             yöneticinize başvurun.",
            "The amount is above this API key's limit. Enter a smaller amount or ask your \
             manager.",
        ),
        keys::ITEM_LIMIT_EXCEEDED => (
            "Ürün sayısı, bu API anahtarının izin verdiği sınırı aşıyor. Bazı ürünleri çıkarın.",
            "There are more items than this API key allows. Remove some items.",
        ),
        keys::EXPIRY_IN_PAST => (
            "Son geçerlilik tarihi geçmişte kalmış. İleri bir tarih seçin.",
            "The expiry date is in the past. Choose a later date.",
        ),
        keys::CARD_NUMBER_EMPTY => ("Kart numarasını girin.", "Enter the card number."),
        keys::EXPIRY_MONTH_EMPTY => (
            "Kartın son kullanma ayını girin.",
            "Enter the card's expiry month.",
        ),
        keys::EXPIRY_YEAR_EMPTY => (
            "Kartın son kullanma yılını girin.",
            "Enter the card's expiry year.",
        ),
        keys::POS_PROVIDER_NOT_FOUND => (
            "İşletmenizde kart saklayabilen etkin bir POS sağlayıcısı yok. Yöneticinize başvurun.",
            "Your business has no active POS provider that can store cards. Ask your manager.",
        ),
        keys::BIN_REQUIRED => (
            "Kart numarasının ilk 6 hanesini (BIN) girin.",
            "Enter the first 6 digits of the card number (BIN).",
        ),
        keys::IDEMPOTENCY_KEY_MISSING => (
            "İstek, tekrar koruma anahtarı olmadan gönderildiği için işlenmedi. Bu durumu \
             destek ekibine bildirin.",
            "The request was not processed because it was sent without its duplicate-protection \
             key. Please report this to support.",
        ),
        keys::IDEMPOTENCY_IN_PROGRESS => (
            "Bu sipariş için aynı istek hâlâ işleniyor. Biraz bekleyip yeniden deneyin.",
            "The same request for this order is still being processed. Wait a moment and try \
             again.",
        ),
        keys::IDEMPOTENCY_KEY_REUSED => (
            "Bu sipariş numarası daha önce farklı bilgilerle kullanılmış. Mevcut bağlantıyı \
             kontrol edin ya da yeni bir sipariş numarası kullanın.",
            "This order number was already used with different details. Check the existing \
             link or use a new order number.",
        ),
        keys::AUTH_APIKEY_UNKNOWN => (
            "API anahtarı tanınmadı. Profil ayarlarındaki anahtarı kontrol edin.",
            "The API key is not recognised. Check the key in the profile settings.",
        ),
        keys::AUTH_SIGNATURE_INVALID => (
            "İstek imzası kabul edilmedi. Profil ayarlarındaki gizli anahtarı kontrol edin.",
            "The request signature was not accepted. Check the API secret in the profile \
             settings.",
        ),
        keys::AUTH_TIMESTAMP_SKEW => (
            "Bu bilgisayarın saati sunucunun saatinden 5 dakikadan fazla farklı. Saati ve saat \
             dilimini düzeltin.",
            "This computer's clock is more than 5 minutes off the server's. Correct the clock \
             and the time zone.",
        ),
        keys::AUTH_SIGNATURE_REPLAYED => (
            "Aynı imzalı istek ikinci kez gönderildiği için reddedildi. Yeniden deneyin.",
            "The same signed request arrived twice and was refused. Try again.",
        ),
        keys::AUTH_SCOPE_MISSING => (
            "Bu API anahtarının bu işlem için yetkisi yok. Yöneticinizden yetki isteyin.",
            "This API key is not allowed to do this. Ask your manager to grant the permission.",
        ),
        _ => return None,
    };
    Some(lang.pick(tr, en))
}

/// A sentence for an HTTP status when the server named no message key, ending with the
/// status itself (`(HTTP 502)`) so that support can tell the cases apart.
pub fn status_sentence(status: u16, lang: Lang) -> String {
    let (tr, en) = match status {
        400 => (
            "Sunucu isteği geçersiz buldu.",
            "The server found the request invalid.",
        ),
        401 => (
            "Yetkilendirme başarısız: API anahtarını ve gizli anahtarı kontrol edin.",
            "Not authorised: check the API key and secret.",
        ),
        403 => (
            "Bu işlem için izniniz yok.",
            "You are not allowed to do this.",
        ),
        404 => (
            "İstenen kayıt bulunamadı.",
            "What was asked for was not found.",
        ),
        406 | 409 | 422 => (
            "Sunucu isteği kabul etmedi.",
            "The server did not accept the request.",
        ),
        408 | 504 => (
            "Sunucu zamanında yanıt vermedi. Yeniden deneyin.",
            "The server did not answer in time. Try again.",
        ),
        413 => ("İstek çok büyük.", "The request is too large."),
        429 => (
            "Çok fazla istek gönderildi. Biraz bekleyip yeniden deneyin.",
            "Too many requests. Wait a moment and try again.",
        ),
        502 | 503 => (
            "Ödeme hizmetine şu anda ulaşılamıyor. Biraz sonra yeniden deneyin.",
            "The payment service cannot be reached right now. Try again shortly.",
        ),
        _ if (400..=499).contains(&status) => {
            ("Sunucu isteği reddetti.", "The server refused the request.")
        }
        _ if (500..=599).contains(&status) => (
            "Sunucuda bir hata oluştu. Biraz sonra yeniden deneyin.",
            "The server had an error. Try again shortly.",
        ),
        _ => (
            "Sunucudan beklenmeyen bir yanıt geldi.",
            "The server gave an unexpected answer.",
        ),
    };
    format!("{} (HTTP {status})", lang.pick(tr, en))
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
