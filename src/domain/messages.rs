//! Every sentence of the domain layer, in Turkish and English: field labels, why a field is
//! wrong (`FieldProblem`, `AmountError`, `BarcodeError`) and the link form's checks.
//!
//! Declared with [`crate::sentences!`] like every catalogue of paydesk, so the language tests
//! walk it (both languages present, the same `{name}` placeholders). The types that word
//! themselves (`FieldProblem::message`, `Field::label`, ...) pick a [`DomainMessage`] and fill its
//! placeholders; nothing in `domain` spells a sentence inline.

crate::sentences! {
    /// A sentence or label of the domain layer.
    pub enum DomainMessage {
    // Item fields, in lower case, as they follow "Item 3 –".
    ItemVariant => "katalog ürünü", "catalog variant";
    ItemName => "ad", "name";
    ItemUnitPrice => "birim fiyat", "unit price";
    ItemQuantity => "adet", "quantity";
    ItemNote => "not", "note";
    // One field of one item row; `row` counted from 1.
    ItemRow => "Ürün {row} – {field}", "Item {row} – {field}";

    // Form fields.
    FieldAmount => "Tutar", "Amount";
    FieldCartAmount => "Sepet tutarı", "Cart amount";
    FieldCurrency => "Para birimi", "Currency";
    FieldDescription => "Açıklama", "Description";
    FieldOrderNumber => "Sipariş numarası", "Order number";
    FieldExpiryDate => "Son geçerlilik tarihi", "Expiry date";
    FieldAvailableInstallments => "Taksit sayıları", "Installment counts";
    FieldEmail => "E-posta", "E-mail";
    FieldPhoneCountryCode => "Ülke kodu", "Country code";
    FieldPhoneNumber => "Telefon numarası", "Phone number";
    FieldItems => "Ürünler", "Items";
    FieldCardNumber => "Kart numarası", "Card number";
    FieldExpiryMonth => "Son kullanma ayı", "Expiry month";
    FieldExpiryYear => "Son kullanma yılı", "Expiry year";
    FieldCvv => "Güvenlik kodu (CVV)", "Security code (CVV)";
    FieldCardHolderName => "Kart sahibinin adı", "Cardholder name";
    FieldUsage => "Kullanım", "Usage";
    FieldAlias => "Kart takma adı", "Card alias";
    FieldCustomerId => "Müşteri kimliği", "Customer ID";
    FieldBinNumber => "BIN (kartın ilk 6 hanesi)", "BIN (first 6 digits)";
    FieldPosType => "POS tipi", "POS type";
    FieldPosSubType => "POS alt tipi", "POS sub-type";
    FieldInstallmentAmount => "İşlem tutarı", "Transaction amount";

    // Why a field is wrong (`FieldProblem`).
    Required => "Bu alanın doldurulması zorunlu.", "This field is required.";
    NotPositive => "Sıfırdan büyük olmalı.", "It must be greater than zero.";
    OverLimit => "API anahtarının üst sınırını ({limit}) aşıyor.", "It exceeds the API key's upper bound ({limit}).";
    InPast => "Geçmiş bir an olamaz; ileri bir tarih seçin.", "It cannot be in the past; pick a later moment.";
    BadInstallments => "`{entry}` geçerli bir taksit sayısı değil: 1 ile {max} arasında tam sayılar, virgülle ayrılmış (1,3,6).", "`{entry}` is not an installment count: whole numbers from 1 to {max}, separated by commas (1,3,6).";
    NotAnInteger => "Tam sayı olmalı.", "It must be a whole number.";
    QuantityBelowOne => "Adet en az 1 olmalı.", "The quantity must be at least 1.";
    TooLarge => "Sayı çok büyük.", "The number is too large.";
    TooManyItems => "En çok {max} ürün satırı gönderilebilir (API anahtarı sınırı).", "At most {max} item rows may be sent (the API key's ceiling).";
    CurrencyMismatch => "Bu ürünün fiyatı {item}, bağlantının para birimi {link}.", "This variant is priced in {item}, the link is in {link}.";
    TotalMismatch => "Ürünlerin toplamı ({total}) tutara ({amount}) eşit değil; fark {diff}.", "The items total ({total}) is not the amount ({amount}); difference {diff}.";
    NotDigits => "Yalnızca rakam olmalı (boşluk ve tire yok sayılır).", "Only digits are allowed (spaces and dashes are ignored).";
    WrongLength => "{min} ile {max} hane arasında olmalı.", "It must have {min} to {max} digits.";
    LuhnFailed => "Kart numarası hatalı (kontrol hanesi tutmuyor); yeniden kontrol edin.", "The card number is wrong (its check digit fails); check it again.";
    BadMonth => "Ay 1 ile 12 arasında olmalı (örn. 03).", "The month must be from 1 to 12 (e.g. 03).";
    BadYear => "Yıl dört haneli ve geçerli olmalı (örn. 2030).", "The year must be a plausible four-digit year (e.g. 2030).";
    Expired => "Kartın son kullanma tarihi geçmiş.", "The card has expired.";
    BadCvvExact => "Güvenlik kodu {digits} haneli olmalı.", "The security code must have {digits} digits.";
    BadCvvRange => "Güvenlik kodu {min} ya da {max} haneli olmalı.", "The security code must have {min} or {max} digits.";
    BadBin => "BIN tam 6 rakamdan oluşmalı.", "The BIN must be exactly 6 digits.";
    BadEmail => "Geçerli bir e-posta adresi değil (örn. ad@ornek.com.tr).", "Not a valid e-mail address (e.g. name@example.com).";
    BadPhone => "Telefon numarası 4 ile 15 rakam arasında olmalı (boşluk ve tire kullanılabilir).", "The phone number must have 4 to 15 digits (spaces and dashes are fine).";
    BadCountryCode => "Ülke kodu 1 ile 3 rakam olmalı (örn. +90).", "The country code must be 1 to 3 digits (e.g. +90).";
    PhoneIncomplete => "Telefon için hem ülke kodu hem numara gerekli.", "A phone needs both a country code and a number.";
    NotTurkishMobile => "Türkiye'de cep telefonu numarası 5 ile başlayan 10 rakamdır (örn. 0532 123 45 67).", "A Turkish mobile number has 10 digits beginning with 5 (e.g. 0532 123 45 67).";
    PhoneLength => "Ülke koduyla birlikte en çok {max} rakam, ülke kodu olmadan en az {min} rakam olmalı.", "It must have at most {max} digits with its country code and at least {min} without it.";
    BadOrderNumber => "Yalnızca harf (A–Z), rakam ve - _ . / kullanılabilir.", "Only letters (A–Z), digits and - _ . / are allowed.";
    TooLong => "En çok {max} karakter olabilir.", "At most {max} characters are allowed.";
    UnknownCode => "`{value}` geçerli bir değer değil; şunlardan biri olmalı: {allowed}.", "`{value}` is not a valid value; use one of: {allowed}.";

    // The message that carries a payment link to the payer (`share`).
    ShareSubject => "{shop}: {amount} tutarında ödeme linkiniz", "{shop}: your payment link for {amount}";
    ShareGreeting => "Merhaba,", "Hello,";
    ShareIntro => "{shop} sizin için {amount} tutarında bir ödeme linki hazırladı.", "{shop} has sent you a payment link for {amount}.";
    ShareSubjectNoShop => "{amount} tutarında ödeme linkiniz", "Your payment link for {amount}";
    ShareIntroNoShop => "Sizin için {amount} tutarında bir ödeme linki hazırlandı.", "A payment link for {amount} has been sent to you.";
    ReminderExpiresNoShop => "{amount} tutarındaki ödeme linkinizin süresi {expiry} tarihinde doluyor.", "Your payment link for {amount} expires at {expiry}.";
    ReminderWaitingNoShop => "{amount} tutarındaki ödeme linkiniz hâlâ ödemenizi bekliyor.", "Your payment link for {amount} is still waiting for your payment.";
    ReminderSubject => "Hatırlatma: {subject}", "Reminder: {subject}";
    ReminderExpires => "{shop} tarafından gönderilen {amount} tutarındaki ödeme linkinizin süresi {expiry} tarihinde doluyor.", "The payment link for {amount} that {shop} sent you expires at {expiry}.";
    ReminderWaiting => "{shop} tarafından gönderilen {amount} tutarındaki ödeme linkiniz hâlâ ödemenizi bekliyor.", "The payment link for {amount} that {shop} sent you is still waiting for your payment.";
    ShareFor => "Açıklama", "For";
    ShareItems => "Ürünler", "Items";
    ShareExpiry => "Son geçerlilik", "Valid until";
    SharePay => "Ödemek için bu adresi açın:", "To pay, open this address:";
    ShareIgnore => "Bu ödemeyi siz istemediyseniz bu iletiyi yok sayabilirsiniz.", "If you did not ask for this payment, you can ignore this message.";
    ShareNoPaymentUrl => "Sunucu bu link için ödeme adresi göndermedi; gönderilecek bir şey yok.", "The server sent no payment address for this link; there is nothing to send.";
    ShareNoAmount => "Sunucu bu linkin tutarını göndermedi; ileti tutarsız yazılamaz.", "The server sent no amount for this link; the message cannot be written without one.";
    ShareQrAlt => "Ödeme linkinin QR kodu: telefonunuzun kamerasıyla okutun", "The payment link's QR code: scan it with your phone's camera";

    // The receipt of a link paid in full (`receipt`).
    ReceiptSubject => "{shop}: {amount} tutarındaki ödemenizin makbuzu", "{shop}: receipt for your payment of {amount}";
    ReceiptTitle => "Makbuz", "Receipt";
    ReceiptIntro => "{shop} ödemenizi aldı. Teşekkür ederiz.", "{shop} has received your payment. Thank you.";
    ReceiptPaidAt => "Ödeme zamanı", "Paid at";
    ReceiptTotal => "Toplam", "Total";
    ReceiptPaid => "Ödenen", "Paid";
    ReceiptTransaction => "İşlem referansı", "Transaction reference";
    ReceiptAttached => "Makbuzun PDF'i ektedir.", "The receipt is attached as a PDF.";
    ReceiptNotPaid => "Bu link tamamen ödenmedi (durumu {status}, ödenen {paid}); makbuz yalnızca tamamı ödenen linke gönderilir.", "This link is not paid in full (status {status}, paid {paid}); a receipt goes only for a link paid in full.";

    // Why an amount was not accepted (`AmountError`).
    AmountEmpty => "Bir tutar yazın.", "Enter an amount.";
    AmountNotANumber => "Bu bir sayı değil; yalnızca rakam ve ayraç (. ,) kullanın.", "This is not a number; use digits and separators (. ,) only.";
    AmountNegative => "Tutar eksi olamaz; işareti kaldırın.", "The amount cannot be negative.";
    AmountNoMinorUnits => "Bu para biriminde kuruş yoktur; ondalık hane yazmayın.", "This currency has no minor units; type no decimals.";
    AmountTooManyDecimals => "Ondalık ayraçtan sonra en çok {max} hane yazılabilir.", "At most {max} digits may follow the decimal separator.";
    AmountAmbiguous => "`{text}` belirsiz: binlik ayraç mı, ondalık mı anlaşılmıyor. Ayraçsız (1234) ya da iki ayraçla (1.234,00) yazın.", "`{text}` is ambiguous: thousands separator or decimals? Type it without separators (1234) or with both (1,234.00).";
    AmountBadGrouping => "Binlik gruplar hatalı: ilk gruptan sonra her grup tam 3 hane olmalı.", "Thousands groups are wrong: after the first, every group has exactly 3 digits.";
    AmountWrongCurrency => "Tutarda {found} yazıyor, ancak bu formun para birimi {expected}.", "The amount names {found}, but this form is in {expected}.";
    AmountTooLarge => "Tutar çok büyük (en çok {max} tam hane).", "The amount is too large (at most {max} integer digits).";

    // Why a text is not a barcode (`BarcodeError`): clauses that follow "Barcode 123…:".
    BarcodeEmpty => "boş", "empty";
    BarcodeNotDigit => "yalnızca rakam olabilir; `{char}` rakam değil", "only digits are allowed; `{char}` is not one";
    BarcodeLength => "{n} haneli; barkod 8, 12, 13 ya da 14 hanelidir (mağazanın kendi kodları 4–7 hane)", "{n} digits long; a barcode has 8, 12, 13 or 14 digits (the shop's own codes 4 to 7)";
    BarcodeCheckDigit => "kontrol hanesi {found}, beklenen {expected}: bir hane yanlış okunmuş ya da yazılmış", "check digit is {found}, expected {expected}: a digit was misread or mistyped";

    // The link form's checks (`Check`).
    CheckAmountValid => "Tutar geçerli", "Amount is valid";
    CheckItemsMatchAmount => "Ürün toplamı tutara eşit", "Items add up to the amount";
    CheckCatalogCurrency => "Katalog ürünleri bağlantının para biriminde", "Catalog items are in the link currency";
    CheckExpiryInFuture => "Son geçerlilik ileri bir tarih", "Expiry is in the future";
    CheckInstallmentsShape => "Taksit sayıları biçimi doğru", "Installment counts are well formed";
    CheckWithinAmountLimit => "Tutar anahtar sınırı içinde", "Amount within the key's bound";
    CheckWithinItemLimit => "Ürün sayısı anahtar sınırı içinde", "Item count within the key's ceiling";
    }
}
