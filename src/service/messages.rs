//! The service layer's catalogue of sentences, in Turkish and English: why an operation over a
//! profile did not happen (`DeskError`) and why a link creation gave no link (`CreateError`).
//!
//! Declared with [`crate::sentences!`] and listed in `every_sentence` (in `tests/support/catalogues.rs`),
//! so the language tests walk it. A sentence that holds another layer's sentence (the call's
//! error) names it `{error}`.

crate::sentences! {
    /// A sentence of the service layer.
    pub enum ServiceMessage {
    // `CreateError`.
    AlreadyHasLink => "Bu sipariş numarasının son 24 saatte oluşturulmuş bir linki var: {link} (yeni bir sipariş numarası seçebilirsiniz)", "This order number already has a link from the last 24 hours: {link} (you can pick a new order number)";
    InProgress => "Bu siparişin linki hâlâ oluşturuluyor; ikinci bir istek gönderilmedi. Gönderilemeyenler listesine (paydesk pending) bakın.", "This order's link is still being created; no second request was sent. See Unsent (paydesk pending).";
    ConflictWithLink => "Bu sipariş numarası sunucuda başka bir istek için kullanılmış. {link}", "This order number was already used on the server for another request. {link}";
    Conflict => "Bu sipariş numarası sunucuda başka bir istek için kullanılmış. Yeni bir sipariş numarası seçin.", "This order number was already used on the server for another request. Pick a new order number.";
    UnknownAnswered => "{error} Bu yanıt linkin oluşup oluşmadığını göstermiyor. İstek Gönderilemeyenler listesinde (paydesk pending); Yeniden dene aynı isteği gönderir, çift link oluşmaz.", "{error} This answer does not show whether the link was made. The request is kept under Unsent (paydesk pending); Retry sends the same request again and cannot create a second link.";
    UnknownNoAnswer => "{error} İstek Gönderilemeyenler listesinde (paydesk pending); Yeniden dene aynı isteği gönderir, çift link oluşmaz.", "{error} The request is kept under Unsent (paydesk pending); Retry sends the same request again and cannot create a second link.";
    Stale => "Bu sipariş için 23 saatten eski, sonucu bilinmeyen bir istek var; sunucu anahtarını unutmuş olabilir, bu yüzden hiçbir şey gönderilmedi. Linkin oluşup oluşmadığını kontrol edin, sonra Gönderilemeyenler'den (paydesk pending) yeniden gönderin ya da yeni bir sipariş numarası kullanın. ({key})", "This order has a request older than 23 hours whose outcome is unknown; the server may have forgotten its key, so nothing was sent. Check whether the link exists, then send it again from Unsent (paydesk pending) or use a new order number. ({key})";
    NotFound => "Bekleyen istek bulunamadı: {key}", "No pending request: {key}";

    // `RenewError`.
    RenewNotRenewable => "Yalnızca süresi dolmuş ya da iptal edilmiş, hiç ödenmemiş bir link yenilenebilir.", "Only an expired or cancelled link with nothing paid can be renewed.";
    RenewAlready => "Bu link daha önce yenilendi: {order}", "This link was renewed before: {order}";
    RenewShopDown => "Mağaza yanıt vermiyor: bir link mağaza genelinde bir kez yenilenir, başka bir masanın yenileyip yenilemediği bilinemez. Mağaza yeniden yanıt verince deneyin.", "The shop is not answering: a link is renewed once across the shop, and whether another desk renewed it cannot be known. Try again once the shop is back.";
    RenewNoFreeOrder => "{order} için boş bir sipariş numarası bulunamadı.", "No free order number was found after {order}.";

    // `DeskError`.
    BadSendingSettings => "Ülke kodu 1-3 haneli olmalı; hatırlatma, süre dolmadan 30 dakika ile 24 saat önce olabilir.", "Country code: 1 to 3 digits; the reminder: from 30 minutes to 24 hours before the expiry.";
    NoProfile => "Böyle bir profil yok: `{name}`", "No such profile: `{name}`";
    NoSecret => "Bu profilin API anahtarı sırrı kayıtlı değil: `{name}`", "This profile has no API secret stored: `{name}`";
    BarcodeTaken => "{barcode} barkodu zaten {name} (`{id}`) ürününde.", "The barcode {barcode} is already the barcode of {name} (`{id}`).";
    NoVariant => "Katalogda böyle bir ürün yok: `{id}`", "No such catalog item: `{id}`";
    PriceFromServer => "Bu ürünün fiyatı ödeme sisteminden gelir; burada yalnızca görünen adı ve barkodu değişir.", "This item's price comes from the payment system; only its name shown and its barcode change here.";
    BadItem => "Ürünün bir adı ve sıfırdan büyük bir fiyatı olmalı.", "An item needs a name and a price above zero.";
    NoLink => "Geçmişte böyle bir link yok: {id}", "No such link in the history: {id}";
    CsvFile => "CSV dosyası içe aktarılamadı: {problem}", "CSV: {problem}";
    SignInFirst => "Personel tanımlı: önce adınızı seçip PIN'inizi girin.", "Staff are on: sign in first with your name and PIN.";
    NeedsManager => "Bunun için bir yöneticinin PIN'i gerekiyor: {what}", "A manager's PIN is needed for: {what}";
    ShopBusy => "Mağazanın durum sorma sırası diğer masalardaydı; bu link şimdi sorulmadı, birazdan yeniden deneyin.", "The shop's turn to ask was with other desks; this link was not asked about now, try again in a moment.";
    ShopStopped => "Mağaza dışa aktarma sırasında yanıt vermeyi bıraktı; dosya eksik kaldı, yeniden deneyin.", "The shop stopped answering during the export; the file is incomplete, try again.";
    StaffNameTaken => "`{name}` adında bir personel zaten var.", "A staff member named `{name}` exists already.";
    StaffNoMember => "`{name}` adında bir personel yok.", "No staff member is named `{name}`.";
    StaffFirstManager => "İlk personel yönetici olmalı (--role manager).", "The first staff member must be a manager (--role manager).";
    StaffLastManager => "{name} son etkin yönetici; devre dışı bırakılamaz. Önce başka bir yönetici ekleyin.", "{name} is the last active manager and cannot be disabled. Add another manager first.";
    StaffDisabled => "{name} devre dışı; bir yönetici yeniden etkinleştirebilir.", "{name} is disabled; a manager can enable them again.";
    StaffManagerNeedsShop => "{name} bir yönetici: yöneticilerin PIN'ini mağaza denetler ve mağaza şu an yanıt vermiyor. Mağaza yeniden yanıt verince tekrar deneyin.", "{name} is a manager: the shop checks managers' PINs, and the shop is not answering. Try again once the shop is back.";
    StaffNoShopPin => "Mağaza, yönetici {name} için henüz bir PIN tutmuyor: mağaza sahibi `paydesk shop add-manager` komutunu çalıştırmalı.", "The shop holds no PIN for manager {name} yet: the shop's owner runs `paydesk shop add-manager`.";
    StaffSignInAgain => "Mağaza {name} oturumunu kapattı (uzun süre işlem yok ya da devre dışı). Yeniden giriş yapın.", "The shop ended {name}'s sign-in (idle too long, or disabled). Sign in again.";
    StaffManagerPinIsOwners => "Yönetici {name} için PIN'i mağaza sahibi değiştirir (`paydesk shop add-manager`).", "Manager {name}'s PIN is reset by the shop's owner (`paydesk shop add-manager`).";
    StaffOwnerMakesFirst => "Mağazanın ilk yöneticisini mağaza sahibi ekler: `paydesk shop add-manager AD SAHİBİN_ADRESİ`.", "The shop's first manager is added by the shop's owner: `paydesk shop add-manager NAME OWNER_URL`.";
    StaffChangesNeedShop => "Personel değişiklikleri mağazada yapılır ve mağaza şu an yanıt vermiyor; hiçbir şey değişmedi. Mağaza yeniden yanıt verince tekrar deneyin.", "Staff changes are made in the shop, and the shop is not answering; nothing changed. Try again once the shop is back.";
    CatalogNeedsShop => "Katalog değişiklikleri mağazada yapılır ve mağaza şu an yanıt vermiyor; hiçbir şey değişmedi. Mağaza yeniden yanıt verince tekrar deneyin.", "Catalog changes are made in the shop, and the shop is not answering; nothing changed. Try again once the shop is back.";
    StaffWrongPin => "{name} için PIN yanlış.", "Wrong PIN for {name}.";
    StaffWrongPinWait => "{name} için PIN yanlış. Üst üste çok fazla yanlış PIN: {seconds} sn bekleyin.", "Wrong PIN for {name}. Too many wrong PINs in a row: wait {seconds} s.";
    StaffWaiting => "{name} yanlış PIN'ler yüzünden bekliyor: {seconds} sn sonra yeniden deneyin.", "{name} must wait after wrong PINs: try again in {seconds} s.";
    StaffNotManager => "{name} yönetici değil; onayı bir yönetici vermeli.", "{name} is not a manager; a manager must approve.";
    SandboxElsewhere => "Bu veri klasörünün yerleşik deneme sunucusunu başka bir paydesk çalıştırıyor ({holder}) ama yanıt vermiyor. O paydesk'i kapatıp yeniden deneyin.", "Another paydesk runs the built-in sandbox of this data folder ({holder}) but it does not answer. Close that paydesk and try again.";
    }
}
