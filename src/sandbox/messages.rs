//! The sandbox's catalogue of sentences: the words of the payer's page (`pay_page`), in
//! Turkish and English. The page shows both languages at once (`Türkçe · English`), so it takes
//! both sides of each sentence; the API answers of the sandbox stay in the wire's English, as
//! the real server's do.
//!
//! Declared with [`crate::sentences!`] and listed in
//! `every_sentence` (in `tests/support/catalogues.rs`), so the language tests walk it.

crate::sentences! {
    /// A sentence or label of the sandbox's pay page.
    pub enum SandboxMessage {
    // The link's status.
    StatusPending => "Ödeme bekleniyor", "Awaiting payment";
    StatusCompleted => "Ödendi", "Paid";
    StatusExpired => "Süresi doldu / iptal", "Expired / cancelled";
    StatusRejected => "Reddedildi", "Rejected";
    StatusUnderReview => "İncelemede", "Under review";
    StatusOther => "Bilinmeyen durum", "Unknown status";

    // The page.
    Payment => "Ödeme", "Payment";
    OrderNumber => "Sipariş no", "Order";
    Paid => "Ödenen", "Paid";
    Remaining => "Kalan", "Remaining";
    ValidUntil => "Son geçerlilik", "Valid until";
    TestCard => "Test kartı", "Test card";
    CardNumber => "Kart numarası", "Card number";
    Expiry => "Son kullanma (AA/YYYY)", "Expiry (MM/YYYY)";
    Contact => "İletişim", "Contact";
    FirstName => "Ad", "First name";
    LastName => "Soyad", "Last name";
    Phone => "Telefon", "Phone";
    Email => "E-posta (isteğe bağlı)", "E-mail (optional)";
    Amount => "Tutar", "Amount";
    PayThisAmount => "Bu tutarı öde", "Pay this amount";
    PayInFull => "Tamamını öde", "Pay in full";
    LinkNotFound => "Ödeme bağlantısı bulunamadı", "Payment link not found";

    // What the payer typed wrong.
    FirstNameRequired => "Ad gerekli", "First name is required";
    LastNameRequired => "Soyad gerekli", "Last name is required";
    PhoneRequired => "Telefon gerekli (7–15 rakam)", "Phone is required (7–15 digits)";
    EmailInvalid => "E-posta geçersiz", "The e-mail address is not valid";
    CardInvalid => "Kart numarası geçersiz", "The card number is not valid";
    AmountInvalid => "Geçerli bir tutar girin", "Enter a valid amount";
    }
}

impl SandboxMessage {
    /// Both languages as plain text, Turkish first: `Ödendi · Paid`.
    pub fn both(self) -> String {
        use crate::lang::Lang;
        format!("{} · {}", self.get(Lang::Tr), self.get(Lang::En))
    }
}
