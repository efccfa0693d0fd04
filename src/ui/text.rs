//! Every fixed sentence of the desktop app, in Turkish and English.
//!
//! Views never spell a sentence inline: they name a [`T`] and ask it for the current language.
//! So a test can walk the whole catalogue (both languages present, placeholders matching, every
//! glyph drawable), and a missing translation is a compile error, not a surprise at the counter.
//! Sentences that come from the domain or the API (field errors, server messages) carry their
//! own `message(lang)` and are not repeated here.

use crate::lang::Lang;

macro_rules! texts {
    ($($key:ident => $tr:literal, $en:literal;)+) => {
        /// A sentence or label of the user interface.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum T {
            $($key,)+
        }

        impl T {
            /// Every sentence, for tests that walk the catalogue.
            pub const ALL: &'static [T] = &[$(T::$key),+];

            /// The sentence in `lang`.
            pub fn get(self, lang: Lang) -> &'static str {
                match self {
                    $(T::$key => lang.pick($tr, $en),)+
                }
            }
        }
    };
}

texts! {
    // Top bar and navigation.
    AppName => "paydesk", "paydesk";
    Profile => "Profil", "Profile";
    SandboxBadge => "Sandbox: gerçek para yok", "Sandbox: no real money";
    Connected => "Bağlı", "Connected";
    Connecting => "Bağlanıyor…", "Connecting…";
    Disconnected => "Bağlantı yok", "Not connected";
    PendingBadge => "Bekleyen", "Pending";
    Language => "Dil", "Language";
    Theme => "Tema", "Theme";
    ThemeSystem => "Sistem", "System";
    ThemeLight => "Açık", "Light";
    ThemeDark => "Koyu", "Dark";
    NavNewLink => "Yeni link", "New link";
    NavCard => "Kart kaydet", "Save card";
    NavInstallments => "Taksitler", "Installments";
    NavHistory => "Geçmiş", "History";
    NavReport => "Gün sonu", "Day close";
    NavPending => "Bekleyenler", "Pending";
    NavCatalog => "Katalog", "Catalog";
    NavSettings => "Ayarlar", "Settings";
    Working => "Çalışıyor…", "Working…";
    Close => "Kapat", "Close";
    ResendingNow => "Arka planda yeniden gönderiliyor…", "Sending again in the background…";
    CancelDialog => "İptal", "Cancel";
    WorkerLost => "Arka plan işi yanıt vermeden bitti. Lütfen tekrar deneyin.", "The background job ended without an answer. Please try again.";
    StartFailed => "Profil açılamadı", "The profile could not be opened";

    // New link.
    Amount => "Tutar", "Amount";
    Currency => "Para birimi", "Currency";
    Description => "Açıklama", "Description";
    OrderNumber => "Sipariş no", "Order number";
    Expiry => "Son geçerlilik", "Expires";
    ExpiryNone => "Yok", "None";
    Expiry15Min => "15 dk", "15 min";
    Expiry1Hour => "1 saat", "1 h";
    Expiry24Hours => "24 saat", "24 h";
    Expiry7Days => "7 gün", "7 d";
    ExpiryCustom => "Tarih ve saat", "Date and time";
    ExpiryDate => "Tarih (YYYY-AA-GG)", "Date (YYYY-MM-DD)";
    ExpiryTime => "Saat (SS:DD)", "Time (HH:MM)";
    ExpiryLocal => "Yerel saat", "Local time";
    Calendar => "Takvim", "Calendar";
    PreviousMonth => "Önceki ay", "Previous month";
    NextMonth => "Sonraki ay", "Next month";
    ExpiryBadDate => "Tarih ve saat okunamadı: YYYY-AA-GG ve SS:DD biçiminde yazın.", "Date and time could not be read: use YYYY-MM-DD and HH:MM.";
    EnableInstallment => "Taksit açık", "Installments allowed";
    AllowedCounts => "İzin verilen taksit sayıları (hiçbiri seçili değilse sınır yok)", "Allowed installment counts (none selected: no restriction)";
    PartialPayment => "Kısmi ödemeye izin ver", "Allow partial payment";
    ContactRequired => "Ödeyenden iletişim bilgisi iste", "Ask the payer for contact details";
    Email => "Ödeyen e-postası", "Payer e-mail";
    PhoneCountryCode => "Ülke kodu", "Country code";
    PhoneNumber => "Telefon numarası", "Phone number";
    CartAmount => "Sepet tutarı", "Cart amount";
    Items => "Ürünler", "Items";
    ScanBarcode => "Barkod okut", "Scan barcode";
    ScanHint => "F2 · okutun ya da yazıp Enter'a basın", "F2 · scan, or type it and press Enter";
    ScanAdded => "Eklendi:", "Added:";
    ScanUnknown => "Katalogda bu barkodlu ürün yok:", "No catalog item has this barcode:";
    ScanUnknownHint => "Barkodu Katalog görünümünde bir ürüne verebilirsiniz.", "You can give it to an item in the Catalog view.";
    ScanFixFirst => "Düzeltip yeniden okutun.", "Fix it, then scan again.";
    AddFreeItem => "Ürün ekle", "Add item";
    AddCatalogItem => "Katalogdan ekle", "Add from catalog";
    CatalogSearch => "Katalogda ara", "Search the catalog";
    AddVariantId => "Katalog kimliğiyle ekle:", "Add by catalog id:";
    CatalogEmpty => "Katalog boş. Katalog görünümünden CSV içe aktarın.", "The catalog is empty. Import a CSV in the Catalog view.";
    CatalogNoMatch => "Eşleşen ürün yok.", "No matching item.";
    ItemName => "Ürün adı", "Item name";
    UnitPrice => "Birim fiyat", "Unit price";
    Quantity => "Adet", "Quantity";
    Note => "Not", "Note";
    ItemColumn => "Ürün", "Item";
    QtyColumn => "Adet", "Qty";
    RowWord => "satır", "row";
    CatalogItem => "Katalog ürünü", "Catalog item";
    UnknownVariant => "Bu ürün yerel katalogda yok; fiyatını sunucu belirler.", "This item is not in the local catalog; the server sets its price.";
    OtherCurrency => "Farklı para birimi", "Other currency";
    RemoveRow => "Satırı sil", "Remove row";
    DuplicateRow => "Satırı çoğalt", "Duplicate row";
    MoveUp => "Yukarı taşı", "Move up";
    MoveDown => "Aşağı taşı", "Move down";
    LineTotal => "Satır toplamı", "Line total";
    ItemsTotal => "Ürün toplamı", "Items total";
    TotalsMatch => "✓ Tutarla eşit", "✓ Matches the amount";
    TotalsDiffer => "Fark", "Difference";
    TotalUnknown => "Toplam bilinmiyor (katalog fiyatı eksik)", "Total unknown (catalog price missing)";
    Checks => "Kontroller", "Checks";
    Details => "Ayrıntılar", "Details";
    FileUnreadable => "Dosya okunamadı; yolu ve dosyanın izinlerini kontrol edin.", "The file could not be read; check its path and permissions.";
    QrSaveFailed => "QR resmi kaydedilemedi; klasörün yazılabilir olduğunu kontrol edip yeniden deneyin.", "The QR image could not be saved; check that the folder can be written to and try again.";
    Redirected => "Sunucu isteği başka bir adrese yönlendirdi ve oraya hiçbir şey gönderilmedi; sonuç bilinmiyor, profilin sunucu adresini kontrol edin.", "The server sent the request to another address and nothing was sent there; the outcome is unknown, so check the profile's server address.";
    Unreadable => "Sunucunun yanıtı okunamadı; biraz sonra yeniden deneyin, sürerse destekle görüşün.", "The server's answer could not be read; try again shortly and call support if it goes on.";
    LocalDataFailed => "Bu bilgisayardaki kayıtlar okunamadı ya da yazılamadı; paydesk'i yeniden başlatın, sürerse destekle görüşün.", "The records on this computer could not be read or written; restart paydesk and call support if it goes on.";
    KeyringFailed => "Anahtar zinciri okunamadı; kilidini açıp yeniden deneyin.", "The keyring could not be read; unlock it and try again.";
    BadServerAddress => "Bu profilin sunucu adresi kullanılamıyor; Ayarlar'da düzeltin.", "This profile's server address cannot be used; correct it in Settings.";
    SandboxFailed => "Yerleşik sandbox başlatılamadı; paydesk'i yeniden başlatın.", "The built-in sandbox could not start; restart paydesk.";
    KeptInPending => "İstek Bekleyenler listesinde; Yeniden dene aynı isteği gönderir, çift link oluşmaz.", "The request is kept in Pending; Retry sends the same request again and cannot create a second link.";
    ChecksPassed => "geçti", "passed";
    PaymentGroup => "Ödeme", "Payment";
    OptionsGroup => "Seçenekler", "Options";
    PayerGroup => "Ödeyen", "Payer";
    UseItemsTotal => "Ürün toplamını tutar yap", "Use the items total as the amount";
    Create => "Link oluştur (Ctrl+Enter)", "Create link (Ctrl+Enter)";
    CannotCreate => "Henüz oluşturulamaz:", "Cannot create yet:";
    Sending => "Gönderiliyor…", "Sending…";
    ServerExpects => "Sunucunun beklediği tutar:", "The server expects the amount:";
    UseExpected => "Bu tutarı kullan", "Use this amount";
    UnknownOutcome => "Sonuç bilinmiyor: sunucu bu siparişi henüz onaylamadı.", "Outcome unknown: the server has not confirmed this order yet.";
    FormLocked => "Bu siparişin son gönderimine henüz yanıt gelmedi; yeniden göndermek aynı isteği kullanır ve ikinci bir link oluşturamaz.", "The last send of this order has no answer yet; sending again uses the same request and cannot make a second link.";
    ResendsByItself => "Bağlantı geri geldiğinde paydesk isteği kendiliğinden yeniden gönderir ve QR burada açılır.", "paydesk sends it again by itself when the connection comes back, and the QR opens here.";
    NextTry => "Sonraki deneme:", "Next try at";
    SendAgain => "Yeniden gönder (Ctrl+Enter)", "Send again (Ctrl+Enter)";
    NewSaleConfirm => "Son satışın linki oluşmuş olabilir. Yine de yeni bir satışa başlansın mı?", "The last sale may already have a link. Start a new sale anyway?";
    NewSaleExplained => "Son satışın isteği Bekleyenler listesinde kalır ve arka planda yeniden gönderilmeye devam eder; link oluşursa Geçmiş'te görünür.", "The last sale's request stays in Pending and is still sent again in the background; if it makes a link, the link shows in History.";
    StartNewSale => "Yeni satışa başla", "Start a new sale";
    FormStale => "Bu istek 23 saatten eski; sunucu istekleri 24 saat hatırlar, onu unutmuş olabilir. Yeniden göndermeden önce Bekleyenler'de linkin oluşup oluşmadığını kontrol edin.", "This request is 23 hours old or more; the server remembers requests for 24 hours and may have forgotten it. Check in Pending whether a link was made before sending it again.";
    OpenPending => "Bekleyenleri aç", "Open Pending";
    AlreadyPending => "Bu sipariş için bir istek zaten bekliyor; ikinci bir istek gönderilmedi.", "A request for this order is already pending; no second request was sent.";
    MoreErrors => "başka sorun", "more problems";

    // Link result.
    Reference => "Referans", "Reference";
    Status => "Durum", "Status";
    PaymentUrl => "Ödeme adresi", "Payment address";
    CopyUrl => "Adresi kopyala", "Copy URL";
    Copied => "Kopyalandı", "Copied";
    SaveQr => "QR'ı PNG olarak kaydet", "Save QR as PNG";
    SavedTo => "Kaydedildi:", "Saved to";
    PrintSlip => "Fiş yazdır", "Print slip";
    Printing => "Fiş yazdırılıyor…", "Printing the slip…";
    SlipPrinted => "Fiş yazıcıya gönderildi:", "Slip sent to the printer";
    SlipSaved => "Varsayılan yazıcı yok; fiş PDF olarak kaydedildi:", "No default printer; the slip was saved as a PDF to";
    SlipFailed => "Fiş yazdırılamadı:", "The slip could not be printed:";
    SlipNotPrinted => "Fiş yazdırılamadı; yazıcının açık ve bağlı olduğunu kontrol edip yeniden deneyin.", "The slip could not be printed; check that the printer is on and connected, then try again.";
    ShareMail => "E-postayla paylaş", "Share by e-mail";
    ShareSubject => "Ödeme linkiniz", "Your payment link";
    ShareBody => "Ödemeyi bu adresten yapabilirsiniz:", "You can pay at this address:";
    CancelLink => "Linki iptal et", "Cancel link";
    CancelConfirm => "Emin misiniz? İptal edilen link ile ödeme alınamaz.", "Are you sure? A cancelled link can no longer be paid.";
    Yes => "Evet", "Yes";
    No => "Hayır", "No";
    NewLink => "Yeni link", "New link";
    Refresh => "Yenile", "Refresh";
    Polling => "Durum birkaç saniyede bir güncelleniyor", "The status refreshes every few seconds";
    CustomerDisplay => "Müşteri ekranı", "Customer display";
    FullScreen => "Tam ekran", "Full screen";
    Paid => "Ödenen", "Paid";
    Remaining => "Kalan", "Remaining";
    Created => "Oluşturma", "Created";
    QrError => "QR kodu oluşturulamadı", "The QR code could not be made";
    NoPaymentUrl => "Sunucu ödeme adresi göndermedi.", "The server sent no payment address.";
    StatusPending => "Ödeme bekleniyor", "Waiting for payment";
    StatusCompleted => "Ödendi", "Paid";
    StatusRejected => "Reddedildi", "Rejected";
    StatusExpired => "Süresi doldu", "Expired";
    StatusUnderReview => "İncelemede", "Under review";
    StatusCancelled => "İptal edildi", "Cancelled";
    ScanToPay => "Ödemek için okutun", "Scan to pay";
    PaidCheck => "Ödendi ✓", "Paid ✓";
    EscCloses => "Esc: kapat", "Esc: close";
    NothingToShow => "Gösterilecek link yok.", "No link to show.";

    // Open links board and paid alerts.
    NavBoard => "Açık linkler", "Open links";
    BoardExplained => "Bugünün bütün linkleri ve son 7 günden hâlâ ödeme bekleyenler. Açık linklerin durumu arka planda kendiliğinden güncellenir.", "Every link of today, and those of the last 7 days still waiting for payment. Open links refresh in the background by themselves.";
    BoardEmpty => "Bugün link yok, ödeme bekleyen link de yok.", "No links today, and none waiting for payment.";
    BoardOpen => "Açık", "Open";
    BoardAge => "Geçen süre", "Age";
    ExpiresIn => "Kalan süre", "Expires in";
    NoExpiry => "süresiz", "never";
    JustNow => "az önce", "just now";
    Left => "kaldı", "left";
    Ago => "önce", "ago";
    PaidRemaining => "Ödenen / kalan", "Paid / remaining";
    UnitSeconds => "sn", "s";
    UnitMinutes => "dk", "min";
    UnitHours => "sa", "h";
    UnitDays => "gün", "d";
    ShowAll => "Tümünü göster", "Show all";
    AlertPaid => "Ödendi:", "Paid:";
    AlertPartial => "Kısmi ödeme:", "Partial payment:";
    AlertOrder => "Sipariş", "Order";
    Alerts => "Ödeme bildirimleri", "Payment notifications";
    AlertsExplained => "Bir link ödendiğinde ya da kısmi ödeme geldiğinde bir masaüstü bildirimi çıkar; bildirim servisi olmayan bir masaüstünde ödeme yine Açık linkler'de görünür.", "A desktop notification appears when a link is paid or a partial payment arrives; on a desktop without a notification service the payment still shows under Open links.";
    AlertSound => "Bildirimle kısa bir ses çal", "Play a short sound with the notification";

    // Card.
    CardGroup => "Kart", "Card";
    StorageGroup => "Saklama", "Storage";
    CardExpiry => "Son kullanma (AA / YYYY)", "Expiry (MM / YYYY)";
    CardMoreOptions => "Varsayılan kart ve müşteri kimliği", "Default card and customer id";
    CannotSave => "Henüz kaydedilemez:", "Cannot save yet:";
    HintMonth => "AA", "MM";
    HintYear => "YYYY", "YYYY";
    CardNumber => "Kart numarası", "Card number";
    Brand => "Marka", "Brand";
    ExpiryMonth => "Son kullanma ayı (AA)", "Expiry month (MM)";
    ExpiryYear => "Son kullanma yılı (YYYY)", "Expiry year (YYYY)";
    Cvv => "CVV", "CVV";
    CardHolder => "Kart sahibi", "Cardholder name";
    Usage => "Kullanım", "Usage";
    Alias => "Kart için ad", "Alias";
    SetDefault => "Bu kullanım için varsayılan yap", "Make it the default for this usage";
    CustomerId => "Müşteri kimliği (boşsa işletme adına)", "Customer id (empty: for the business)";
    SaveCard => "Kartı kaydet", "Save card";
    CardSaved => "Kart kaydedildi", "Card saved";
    MaskedPan => "Maskeli numara", "Masked number";
    Bank => "Banka", "Bank";
    CardType => "Kart tipi", "Card type";
    CardWiped => "Kart numarası ve CVV bellekten ve formdan silindi.", "The card number and CVV were wiped from memory and the form.";
    CardUnknownOutcome => "Sonuç bilinmiyor: kart kaydedilmiş de olabilir, kaydedilmemiş de. Kart kaydı otomatik olarak yeniden denenmez; tekrar kaydetmeden önce kartın listede olup olmadığını kontrol edin.", "Outcome unknown: the card may or may not have been saved. Card saves are never retried automatically; check whether the card is listed before saving it again.";

    // Installments.
    Bin => "BIN (kartın ilk 6 hanesi)", "BIN (first 6 digits of the card)";
    PosType => "POS tipi", "POS type";
    PosSubType => "POS alt tipi", "POS sub-type";
    InstallmentAmount => "Tutar (isteğe bağlı)", "Amount (optional)";
    LookUp => "Sorgula", "Look up";
    InstallmentCount => "Taksit", "Installments";
    Rate => "Komisyon (%)", "Rate (%)";
    PerInstallment => "Taksit tutarı", "Per installment";
    Total => "Toplam", "Total";
    TotalByCount => "Taksit sayısına göre toplam maliyet", "Total cost by installment count";
    OtherFields => "Diğer alanlar", "Other fields";
    NoOptions => "Bu BIN için taksit seçeneği yok.", "No installment options for this BIN.";
    InstallmentsEmpty => "Kartın ilk 6 hanesini (BIN) yazıp Sorgula'ya basın; müşterinin ödeyeceği toplamı görmek için tutarı da yazın.", "Type the first 6 digits of the card (its BIN) and press Look up; add an amount to see what the customer pays in total.";
    SandboxBins => "Sandbox test kartları:", "Sandbox test cards:";
    Lowest => "✓ en düşük", "✓ lowest";
    LowestExplained => "✓ en düşük: aynı taksit sayısındaki seçenekler arasında müşteriye en az maliyetli olan.", "✓ lowest: the option that costs the customer least among those with the same number of installments.";
    CardFamily => "Kart programı", "Card program";

    // History.
    Search => "Ara (sipariş no, referans, açıklama)", "Search (order number, reference, description)";
    StatusFilter => "Durum", "Status";
    AllStatuses => "Tümü", "All";
    LinksShown => "link", "links";
    Loading => "Yükleniyor…", "Loading…";
    NoLinks => "Henüz link yok.", "No links yet.";
    NoMatchingLinks => "Bu filtreye uyan link yok.", "No links match this filter.";
    Back => "Geri", "Back";
    HistoryFrom => "Başlangıç günü (YYYY-AA-GG)", "From day (YYYY-MM-DD)";
    HistoryTo => "Bitiş günü (YYYY-AA-GG)", "To day (YYYY-MM-DD)";
    BadDay => "Günü YYYY-AA-GG biçiminde yazın, örneğin 2026-11-21.", "Write the day as YYYY-MM-DD, for example 2026-11-21.";
    DaysBackwards => "Bitiş günü, başlangıç gününden önce olamaz.", "The last day cannot be before the first.";
    FilteredLinks => "Seçili linkler:", "Filtered links:";
    Counting => "Sayılıyor…", "Counting…";
    PaidLower => "ödenen", "paid";
    TotalsFailed => "Toplamlar hesaplanamadı:", "The totals could not be counted:";
    RefreshStatuses => "Durumları yenile", "Refresh statuses";
    RefreshStatusesHelp => "Ekranda görünen ve henüz sonuçlanmamış linklerin durumunu sunucuya sorar, saniyede en çok bir istekle.", "Asks the server for the status of the unfinished links on screen, at most one request per second.";
    NothingToRefresh => "Ekranda sonuçlanmamış link yok.", "No unfinished links on screen.";
    RefreshingStatuses => "Durumlar yenileniyor:", "Refreshing statuses:";
    StatusesRefreshed => "Durumlar yenilendi; değişen link sayısı:", "Statuses refreshed; links changed:";
    SomeNotRefreshed => "Bazı linkler yenilenemedi:", "Some links could not be refreshed:";
    ExportCsv => "CSV olarak dışa aktar", "Export CSV";
    ExportCsvHelp => "Bu filtreye uyan tüm linkler, tüm alanlarıyla, İndirilenler klasörüne yazılır.", "Every link matching this filter, with every field, is written to the Downloads folder.";
    Exporting => "Dışa aktarılıyor…", "Exporting…";
    ExportedTo => "link dışa aktarıldı:", "links exported to";
    ExportFailed => "Dışa aktarılamadı; klasörün yazılabilir olduğunu kontrol edip yeniden deneyin.", "The export failed; check that the folder can be written to and try again.";

    // Day close.
    FirstDay => "İlk gün (YYYY-AA-GG)", "First day (YYYY-MM-DD)";
    LastDay => "Son gün (YYYY-AA-GG)", "Last day (YYYY-MM-DD)";
    PreviousDay => "◀ Önceki gün", "◀ Previous day";
    NextDay => "Sonraki gün ▶", "Next day ▶";
    PreviousPeriod => "◀ Önceki dönem", "◀ Previous period";
    NextPeriod => "Sonraki dönem ▶", "Next period ▶";
    Today => "Bugün", "Today";
    LocalDays => "Yerel günler, saat dilimi UTC", "Local days, time zone UTC";
    ReportSource => "Rakamlar bu bilgisayardaki geçmişten gelir. En son ödemeler için önce Geçmiş'te «Durumları yenile»yi kullanın.", "Figures come from this computer's history. For the latest payments, use “Refresh statuses” in History first.";
    ReportEmpty => "Bu günlerde oluşturulan link yok.", "No links were created on these days.";
    ReportFailed => "Rapor hazırlanamadı:", "The report could not be made:";
    LinksCreated => "Oluşturulan link", "Links created";
    PaidInFull => "Tamamı ödendi", "Paid in full";
    PartiallyPaid => "Kısmen ödendi", "Partially paid";
    StillPending => "Ödeme bekliyor", "Still pending";
    OtherStatuses => "Diğer (reddedilen, incelemede)", "Other (rejected, under review)";
    Collected => "Tahsil edilen", "Collected";
    CollectedPerHour => "Saat saat tahsilat", "Collected per hour";
    Hour => "Saat", "Hour";
    NothingCollected => "Bu günlerde tahsilat yok.", "Nothing was collected on these days.";
    BestSelling => "En çok satanlar (ödenen linklerden)", "Best-selling items (of the paid links)";
    NoItemsSold => "Ödenen linklerde ürün yok.", "No items on the paid links.";
    PriceUnknown => "Bu ürünün fiyatı bu bilgisayarın kataloğunda bu para biriminde yok.", "This item's price is not in this computer's catalog in this currency.";

    // Pending.
    State => "Durum", "State";
    Attempts => "Deneme", "Attempts";
    LastError => "Son hata", "Last error";
    Age => "Yaş", "Age";
    Retry => "Yeniden dene", "Retry";
    Abandon => "Vazgeç", "Abandon";
    NoPending => "Bekleyen istek yok.", "No pending requests.";
    PendingExplained => "Sonucu bilinmeyen istekler burada kalır. Yeniden deneme aynı gövdeyi aynı anahtarla gönderir, bu yüzden ikinci bir link oluşmaz.", "Requests whose outcome is unknown stay here. A retry sends the same body with the same key, so no second link is made.";
    StaleExplained => "Eski (23 saat ya da daha eski): sunucu istekleri 24 saat hatırlar ve bunu unutmuş olabilir, yeniden deneme ikinci bir link oluşturabilir. Önce Geçmiş'te bu siparişe bakın.", "Stale (23 h or older): the server remembers requests for 24 hours and may have forgotten this one, so a retry could create a second link. Check this order in History first.";
    StaleConfirmTitle => "23 saatten eski istek yeniden gönderilsin mi?", "Send a request 23 hours old again?";
    StaleConfirm => "Sunucu bir isteği 24 saat hatırlar. Bu istek 23 saatten eski, sunucu onu unutmuş olabilir: link o zaman oluştuysa, yeniden göndermek aynı satış için ikinci bir link oluşturur. Önce bu siparişin linki olmadığını kontrol edin (Geçmiş ya da iş ortağı paneli).", "The server remembers a request for 24 hours. This one is 23 hours old or more, so the server may have forgotten it: if the link was made back then, sending it again makes a second link for the same sale. First check that this order has no link (History, or the partner panel).";
    SendAnyway => "Kontrol ettim, yeniden gönder", "I checked, send it again";
    StatePending => "bekliyor", "pending";
    StateStale => "eski", "stale";
    StateFailed => "başarısız", "failed";
    StateConflict => "çakışma", "conflict";
    StateCompleted => "tamamlandı", "completed";
    StateAbandoned => "vazgeçildi", "abandoned";

    // Catalog.
    CatalogList => "Yerel katalog", "Local catalog";
    Id => "Kimlik", "Id";
    Name => "Ad", "Name";
    Price => "Fiyat", "Price";
    CsvPath => "CSV dosyası", "CSV file";
    CsvHelp => "Başlık: id,name,unit_price,currency ve isteğe bağlı barcode (ya da ; ile ayrılmış, ondalık virgüllü)", "Header: id,name,unit_price,currency and optionally barcode (or ;-separated with decimal commas)";
    Barcode => "Barkod", "Barcode";
    BarcodeEditHelp => "Barkodu yazın ya da okutun ve Enter'a basın; kaldırmak için alanı boşaltın.", "Type or scan a barcode and press Enter; empty the field to remove it.";
    BarcodeTakenBy => "Bu barkod zaten şu ürünün:", "This barcode already belongs to";
    Preview => "Önizle", "Preview";
    Import => "İçe aktar", "Import";
    Line => "Satır", "Line";
    Problem => "Sorun", "Problem";
    WillImport => "İçe aktarılacak", "To import";
    Imported => "İçe aktarıldı", "Imported";
    LineErrors => "Hatalı satır", "Lines with errors";

    // Settings.
    Profiles => "Profiller", "Profiles";
    AddProfile => "Profil ekle", "Add profile";
    EditProfile => "Profili düzenle", "Edit profile";
    RemoveProfile => "Profili sil", "Remove profile";
    ProfileName => "Profil adı", "Profile name";
    BaseUrl => "Temel adres", "Base URL";
    ApiKeyId => "API anahtar kimliği", "API key id";
    AmountLimit => "Tutar üst sınırı (boş: yok)", "Amount limit (empty: none)";
    MaxItems => "Ürün sayısı sınırı (boş: yok)", "Item limit (empty: none)";
    OrderPrefix => "Sipariş no öneki", "Order number prefix";
    Secret => "API gizli anahtarı", "API secret";
    NewSecret => "Yeni gizli anahtar", "New secret";
    SecretStored => "Gizli anahtar anahtarlıkta kayıtlı.", "The secret is stored in the keyring.";
    SecretMissing => "Gizli anahtar kayıtlı değil.", "No secret is stored.";
    StoreSecret => "Anahtarlığa kaydet", "Store in the keyring";
    NoKeyring => "Anahtarlık kullanılamıyor: gizli anahtar diske yazılmaz, yalnızca bu oturum için bellekte tutulur.", "No keyring is available: the secret is never written to disk and is kept in memory for this session only.";
    SandboxProfile => "Yerleşik sandbox profili: bu bilgisayarda çalışan bir deneme sunucusu. Gerçek para hareketi olmaz; silinemez.", "Built-in sandbox profile: a test server running on this computer. No real money moves; it cannot be removed.";
    Save => "Kaydet", "Save";
    Saved => "Kaydedildi", "Saved";
    UseProfile => "Bu profile geç", "Switch to this profile";
    MerchantName => "Mağaza adı (müşteri ekranında ve fişte)", "Shop name (on the customer display and slips)";
    SlipPaper => "Fiş kâğıdı", "Slip paper";
    PaperRoll80 => "80 mm rulo (fiş yazıcısı)", "80 mm roll (receipt printer)";
    PaperA6 => "A6 yaprak (105 × 148 mm)", "A6 sheet (105 × 148 mm)";
    InvalidLimit => "Sınır bir sayı olmalı.", "The limit must be a number.";
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Labels that read the same in both languages on purpose.
    const SAME_IN_BOTH: &[T] = &[T::AppName, T::Cvv, T::HintYear];

    #[test]
    fn every_sentence_exists_in_both_languages_and_they_differ() {
        for t in T::ALL {
            let (tr, en) = (t.get(Lang::Tr), t.get(Lang::En));
            assert!(!tr.trim().is_empty() && !en.trim().is_empty(), "{t:?}");
            assert_eq!(tr, tr.trim(), "{t:?}");
            assert_eq!(en, en.trim(), "{t:?}");
            if !SAME_IN_BOTH.contains(t) {
                assert_ne!(tr, en, "{t:?} is not translated");
            }
        }
    }

    #[test]
    fn the_catalogue_is_really_turkish_and_keys_are_unique() {
        let turkish: String = T::ALL.iter().map(|t| t.get(Lang::Tr)).collect();
        for c in ['ç', 'ğ', 'ı', 'İ', 'ö', 'ş', 'ü'] {
            assert!(turkish.contains(c), "no {c} in the Turkish catalogue");
        }
        let unique: HashSet<_> = T::ALL.iter().collect();
        assert_eq!(unique.len(), T::ALL.len());
    }
}
