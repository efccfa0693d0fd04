//! Every sentence and label the command line prints, in Turkish and English (the language of
//! `LC_ALL` / `LC_MESSAGES` / `LANG`). Sentences of lower layers (field errors, server keys,
//! the journal's outcomes) come worded from those layers.

crate::sentences! {
    /// A sentence or label of the command line.
    pub enum CliText {
    Issued => "Düzenlenen tutar", "Value issued";
    Outstanding => "Ödenmesi beklenen", "Still outstanding";
    ByStaff => "Personele göre", "By staff member";
    NoStaffKnown => "(personel kaydı yok)", "(no clerk recorded)";
    StaffLine => "{created} link, {paid} ödendi, tahsil edilen {collected}", "{created} {created:link|links}, {paid} paid, collected {collected}";
    AuditHead => "Denetim zinciri başı: {head}", "Audit chain head: {head}";
    Unconfirmed => "{status} deniyor, sunucu henüz doğrulamadı", "said to be {status}, not yet confirmed by the server";
    ShopAuditHead => "Dükkânın denetim zinciri başı (bütün masalar): {head}", "The shop's audit chain head (every desk): {head}";
    AuditShopChainWhole => "Dükkânın kendi zinciri (bütün masalar, dükkânın aldığı sırayla) sağlam: {n} kayıt, baş {head}", "The shop's own chain (every desk, in the order the shop took them) is whole: {n} {n:row|rows}, head {head}";
    AuditShopChainBroken => "Dükkânın kendi zinciri {seq}. kayıtta kırık: {why}", "The shop's own chain is broken at row {seq}: {why}";
    StaffNeedAs => "Personel tanımlı: `{command}` için --as AD verin (PIN: PAYDESK_STAFF_PIN, istem ya da stdin'in ilk satırı).", "Staff are on: give --as NAME for `{command}` (the PIN: PAYDESK_STAFF_PIN, a prompt, or the first line of stdin).";
    StaffRoleRefused => "{name} ({role}) `{command}` komutunu çalıştıramaz: bir yönetici gerekiyor.", "{name} ({role}) may not run `{command}`: it needs a manager.";
    PinPrompt => "{name} için PIN:", "PIN for {name}:";
    NewPinPrompt => "{name} için yeni PIN (4-8 rakam):", "New PIN for {name} (4-8 digits):";
    NewPinAgain => "Yeni PIN, yeniden:", "The new PIN again:";
    PinsDiffer => "İki PIN aynı değil; hiçbir şey değişmedi.", "The two PINs differ; nothing was changed.";
    PinShape => "PIN 4 ile 8 rakam olmalı.", "The PIN must be 4 to 8 digits.";
    RoleShape => "--role counter ya da manager olmalı.", "--role must be counter or manager.";
    StaffNameShape => "Ad 1 ile 40 yazdırılabilir karakter olmalı.", "The name must be 1 to 40 printable characters.";
    StaffAdded => "Personel eklendi: {name} ({role})", "Staff member added: {name} ({role})";
    StaffActive => "etkin", "active";
    StaffDisabled => "devre dışı", "disabled";
    StaffDisabledNow => "Devre dışı bırakıldı: {name}", "Disabled: {name}";
    StaffEnabledNow => "Etkinleştirildi: {name}", "Enabled: {name}";
    PinReset => "PIN yenilendi: {name}", "PIN reset: {name}";
    AuditWritten => "{n} kayıt yazıldı: {path}", "{n} {n:row|rows} written to {path}";
    AuditWhole => "Denetim zinciri sağlam: {n} kayıt, baş {head}", "The audit chain is whole: {n} {n:row|rows}, head {head}";
    AuditBroken => "Denetim zinciri {seq}. kayıtta kırık: {why}", "The audit chain is broken at row {seq}: {why}";
    AuditHeadNotFound => "Denetim zinciri ({n} kayıt) verilen baştan geçmiyor: kayıt yeniden yazılmış olabilir.", "The audit chain ({n} {n:row|rows}) does not run through the given head: the record may have been rewritten.";
    NoDataFolder => "Veri klasörü bulunamadı; --data-dir verin.", "No data folder found; give --data-dir.";
    ProfileSaved => "Profil kaydedildi: {name}", "Profile saved: {name}";
    ProfileRemoved => "Profil silindi: {name}", "Profile removed: {name}";
    SandboxProfile => "(sandbox: gerçek para yok)", "(sandbox: no real money)";
    NoSuchProfile => "Böyle bir profil yok: `{name}`", "No such profile: `{name}`";
    SecretPrompt => "API sırrı:", "API secret:";
    EmptySecret => "Sır boş olamaz.", "The secret cannot be empty.";
    SecretStored => "Sır anahtarlığa kaydedildi.", "Secret stored in the keyring.";
    NotIsoTime => "--expiry: `{text}` ISO-8601 bir zaman değil.", "--expiry: `{text}` is not an ISO-8601 time.";
    Abandoned => "Bırakıldı: {key}", "Abandoned: {key}";
    CardNumberPrompt => "Kart numarası:", "Card number:";
    CvvPrompt => "CVV (isteğe bağlı):", "CVV (optional):";
    CardOutcomeUnknown => "Kartın kaydedilip kaydedilmediği bilinmiyor; otomatik olarak tekrar denenmedi. Kart listesini kontrol edin.", "Whether the card was saved is unknown; it was not retried automatically. Check the saved cards first.";
    BinTooLong => "--bin: en fazla 8 rakam verin (BIN kartın ilk 6 hanesidir). Kart numarasının tamamı komut satırına yazılmamalı: kabuk geçmişinde ve süreç listesinde kalır. Hiçbir şey gönderilmedi.", "--bin: give at most 8 digits (the BIN is the card's first 6). A whole card number must not go on the command line: it stays in the shell history and the process list. Nothing was sent.";
    VariantsImported => "{n} ürün içe aktarıldı", "{n} {n:variant|variants} imported";
    ToBeforeFrom => "--to, --from gününden önce olamaz.", "--to cannot be before --from.";
    LinksWritten => "{n} link yazıldı: {path}", "{n} {n:link|links} written to {path}";
    Stopped => "Durduruldu; hiçbir şey gönderilmedi.", "Stopped; nothing was sent.";
    // `link slip`.
    NoPaymentUrl => "Sunucu ödeme adresi göndermedi.", "The server sent no payment address.";
    NotOpened => "Adres açılamadı ({why}); kopyalayıp WhatsApp'a yapıştırın:", "The address could not be opened ({why}); copy it into WhatsApp:";
    RenewNeverSent => "Yeni link oluştu; eski link hiç gönderilmediği için gönderilmedi: `link send` ile gönderin.", "The new link was made; the old one was never sent, so it was not sent: send it with `link send`.";
    SlipPrinted => "Fiş yazıcıya gönderildi: {printer}", "Slip sent to the printer {printer}";
    SlipSaved => "Varsayılan yazıcı yok; fiş PDF olarak kaydedildi: {path}", "No default printer; the slip was saved as a PDF to {path}";
    SlipFailed => "Fiş yazdırılamadı: {why}", "The slip could not be printed: {why}";
    // `link show`.
    Order => "sipariş", "order";
    Reference => "referans", "reference";
    Status => "durum", "status";
    Amount => "tutar", "amount";
    Paid => "ödenen", "paid";
    Remaining => "kalan", "remaining";
    Expires => "son geçerlilik", "expires";
    // `report`.
    DayClose => "Gün sonu {days} (UTC{offset})", "Day close {days} (UTC{offset})";
    NoLinksOnDays => "Bu günlerde oluşturulan link yok.", "No links were created on these days.";
    LinksCreated => "oluşturulan link", "links created";
    PaidInFull => "tamamı ödendi", "paid in full";
    PartiallyPaid => "kısmen ödendi", "partially paid";
    StillPending => "ödeme bekliyor", "still pending";
    Expired => "süresi doldu", "expired";
    Cancelled => "iptal edildi", "cancelled";
    OtherStatuses => "diğer (reddedilen, incelemede)", "other (rejected, in review)";
    Collected => "tahsil edilen", "collected";
    CollectedPerHour => "saat saat tahsilat: {hours}", "collected per hour: {hours}";
    NoItemsOnPaid => "Ödenen linklerde ürün yok.", "No items on the paid links.";
    BestSelling => "En çok satanlar", "Best-selling items";
    // `shop`.
    ShopPasswordPrompt => "Dükkânın PostgreSQL kullanıcısı {user} için parola:", "Password of the shop's PostgreSQL user {user}:";
    ShopEmptyPassword => "Parola boş olamaz; hiçbir şey kaydedilmedi.", "The password cannot be empty; nothing was recorded.";
    ShopPasswordFromEnv => "Parola PAYDESK_SHOP_PASSWORD'dan alındı ve saklanmadı: her çalıştırmada verin.", "The password came from PAYDESK_SHOP_PASSWORD and was not stored: give it on every run.";
    ShopNoKeyring => "Dükkânın parolasını saklayacak bir anahtarlık yok ({reason}); masa dükkâna kaydedilmedi. Onun yerine parolayı her çalıştırmada PAYDESK_SHOP_PASSWORD ile verin.", "No keyring can keep the shop's password ({reason}); this desk's joining was not recorded. Give the password in PAYDESK_SHOP_PASSWORD on every run instead.";
    ShopJoined => "Bu masa ({desk}, {name}) dükkâna katıldı: {url} (şema sürümü {version})", "This desk ({desk}, {name}) joined the shop {url} (schema version {version})";
    ShopOwnerPasswordPrompt => "Dükkânın sahibi {user} için parola (saklanmaz):", "Password of the shop's owner {user} (not kept):";
    ShopInitialized => "{url} dükkânı hazır (şema sürümü {from} → {to}); masaların rolü {role}. Sırada her masa için: paydesk shop add-desk AD SAHİP_ADRESİ", "The shop at {url} is ready (schema version {from} → {to}); its desks' role is {role}. Next, for each desk: paydesk shop add-desk NAME OWNER_URL";
    ShopManagersWithoutPin => "Dükkân şu yöneticilerin PIN'ini henüz tutmuyor; her biri için bir kez çalıştırın: paydesk shop add-manager AD SAHİBİN_ADRESİ — {names}", "The shop holds no PIN yet for these managers; run once for each: paydesk shop add-manager NAME OWNER_URL — {names}";
    ShopManagerAdded => "{name} artık dükkânın yöneticisi. PIN'ini yalnızca dükkân denetler; katılmış her masada giriş yapabilir.", "{name} is now a manager of the shop. Only the shop checks their PIN; they can sign in at every joined desk.";
    ShopManagerPinSet => "{name} dükkânın yöneticisi, yeni PIN'iyle. Yanlış PIN sayısı sıfırlandı, açık oturumları kapandı.", "{name} is a manager of the shop, with the new PIN. Their wrong PINs are cleared and their sign-ins ended.";
    ShopDeskAdopted => "{name} ({device}) dükkâna sahibin girişiyle katılmıştı: bu giriş artık yalnızca o masanın. O masa bu girişle yeniden katılınca sahibin parolası oradan silinir.", "{name} ({device}) had joined the shop with the owner's login: this login is now that desk's alone. When that desk joins again with it, the owner's password leaves it.";
    ShopDeskAdded => "{name} masasının kendi girişi var: {login}. O masada şununla katılın:", "The desk {name} has a login of its own: {login}. Join at that desk with:";
    ShopDeskPassword => "ve sorulduğunda bu parolayı verin (yalnızca şimdi gösterilir, hiçbir yerde saklanmaz):", "and give this password when asked (it is shown only now and kept nowhere):";
    ShopDeskRemoved => "{name} masasının {login} girişi artık bağlanamaz ({n} oturum kapatıldı). O masa tek başına satışa devam eder.", "The desk {name}'s login {login} may no longer connect ({n} {n:session|sessions} ended). That desk sells on alone.";
    ShopNoDesks => "Henüz hiçbir masanın girişi yok (paydesk shop add-desk AD SAHİP_ADRESİ).", "No desk has a login yet (paydesk shop add-desk NAME OWNER_URL).";
    ShopDeskLine => "{name}: {login}; masa {device}, katıldı {joined}, son gönderim {push}", "{name}: {login}; desk {device}, joined {joined}, last push {push}";
    ShopDeskNotJoined => "{name}: {login}; henüz katılmadı", "{name}: {login}; not joined yet";
    ShopDeskIsRemoved => "(kaldırıldı)", "(removed)";
    ShopNotJoined => "Bu masa bir dükkâna katılmadı (paydesk shop join URL).", "This desk has not joined a shop (paydesk shop join URL).";
    ShopLeft => "Bu masa dükkândan ayrıldı: {url}", "This desk left the shop {url}";
    ShopNamed => "Bu masanın adı artık {name}.", "This desk is now called {name}.";
    ShopNameShape => "Masanın adı 1 ile 40 arasında yazdırılabilir karakter olmalı.", "The desk's name must be 1 to 40 printable characters.";
    ShopNameNotSent => "Ad bu masada kaydedildi; dükkâna şimdi iletilemedi: {reason}", "The name is saved on this desk; the shop could not be told now: {reason}";
    ShopStatusShop => "dükkân: {url}", "shop: {url}";
    ShopConnected => "bağlı (şema sürümü {version})", "connected (schema version {version})";
    ShopNotConnected => "bağlı değil: {reason}", "not connected: {reason}";
    ShopStatusDesk => "masa: {id} {name}", "desk: {id} {name}";
    ShopOutbox => "gönderilecek değişiklik: {n}", "outbox: {n} {n:change|changes}";
    ShopLastPush => "son gönderim: {when}", "last push: {when}";
    ShopNever => "hiç", "never";
    ShopPushed => "{rows} değişiklik {batches} partide gönderildi; dükkânda {changed} link değişti.", "Pushed {rows} {rows:change|changes} in {batches} {batches:batch|batches}; {changed} {changed:link|links} changed in the shop.";
    ShopRead => "Son eşitlemeden beri dükkânda {n} link değişti: {others} tanesi başka masalarda, {paid} tanesi ödendi.", "Since the last sync {n} {n:link|links} changed in the shop: {others} at other desks, {paid} paid.";
    ShopOffline => "Dükkâna ulaşılamıyor, yalnızca bu masa gösteriliyor: {reason}", "Offline from the shop, showing this desk only: {reason}";
    ShopKeptInOutbox => "Değişiklik bu masada kaydedildi ve dükkâna gönderilmeyi bekliyor ({n} değişiklik): {reason}", "The change is saved on this desk and waits to be sent to the shop ({n} {n:change|changes}): {reason}";
    ByDesk => "Masaya göre", "By desk";
    UnconfirmedPaid => "Ödendi deniyor, doğrulanmadı", "Said to be paid, not confirmed";
    ClaimsApart => "Sayılmayan ödemeler (ödeme sistemi başka bir masada doğrulamadı):", "Payments not counted (the payment system has not confirmed them at another desk):";
    ClaimLine => "{order}: {desk} {claimed} ödendi diyor; sayılan {counted}", "{order}: {desk} says {claimed} was paid; counted {counted}";
    ClaimContradicted => "ödeme sistemi {desk} masasına yalnızca {seen} ödendiğini söyledi", "the payment system told {desk} only {seen} was paid";
    // `mail` and `link send --email`.
    MailPasswordPrompt => "E-posta kullanıcısı {user} için parola (girişsiz sunucu için boş satır):", "Password of the e-mail login {user} (an empty line for a server without login):";
    MailSet => "E-posta hesabı ayarlandı: {host}:{port} ({security}), gönderen {from}.", "The e-mail account is set: {host}:{port} ({security}), from {from}.";
    MailNotSetUp => "Bu masada e-posta ayarlı değil: önce bir yönetici `paydesk mail set` çalıştırsın.", "E-mail is not set up on this desk: a manager must run `paydesk mail set` first.";
    MailNoPassword => "E-posta kullanıcısı {user} için parola yok: `paydesk mail set` ile yeniden verin ya da PAYDESK_SMTP_PASSWORD kullanın.", "There is no password for the e-mail login {user}: give it again with `paydesk mail set`, or use PAYDESK_SMTP_PASSWORD.";
    MailNoAddress => "E-posta adresi: bu linkte ödeyenin e-postası yok; adresi --email ADRES ile verin.", "E-mail address: this link has no payer e-mail; give the address with --email ADDRESS.";
    MailTestSubject => "paydesk deneme iletisi", "paydesk test message";
    MailTestText => "Bu ileti paydesk'in e-posta ayarlarını denemek için {from} adresinden gönderildi.", "This message was sent from {from} to try paydesk's e-mail settings.";
    MailTestSent => "Deneme iletisi {to} adresine gönderildi; sunucu kabul etti.", "The test message was sent to {to}; the server accepted it.";
    MailRefused => "E-posta sunucusu iletiyi reddetti: {words}", "The mail server refused the message: {words}";
    MailNoAnswer => "E-posta sunucusu yanıt vermedi: {words}", "The mail server did not answer: {words}";
    MailQueueEmpty => "E-posta kuyruğu boş.", "The mail queue is empty.";
    MailFlushed => "{sent} ileti gönderildi, {waiting} ileti gönderilmeyi bekliyor.", "{sent} {sent:message|messages} sent, {waiting} waiting to be sent.";
    MailSent => "Link e-postayla gönderildi: {to}", "The link was sent by e-mail: {to}";
    MailWaiting => "Link gönderilmeyi bekliyor ({to}); sunucu yanıt verince gönderilecek: {why}", "The link is waiting to be sent ({to}); it goes when the server answers: {why}";
    ShopCatalogMirrored => "Dükkânın kataloğu bu masaya alındı: {n} ürün.", "The shop's catalog is now on this desk: {n} {n:item|items}.";
    ShopStaffMirrored => "Dükkânın personeli bu masaya alındı: {n} kişi.", "The shop's staff are now on this desk: {n} {n:member|members}.";
    AuditShopWhole => "{name} masası: denetim zinciri dükkânda sağlam, {n} kayıt, baş {head}", "Desk {name}: the audit chain in the shop is whole, {n} {n:row|rows}, head {head}";
    AuditShopUnchecked => "Diğer masaların zincirleri denetlenemedi: dükkâna ulaşılamıyor.", "The other desks' chains were not checked: the shop cannot be reached.";
    ShopAuditForked => "Bu masanın denetim kaydı {seq}. kayıttan itibaren dükkândakinden farklı (veri dosyası eski bir kopyadan geri mi yüklendi?); bu masanın yeni denetim kayıtları dükkâna gönderilmiyor. Bir yönetici `paydesk audit verify` ile baksın.", "This desk's audit record differs from the shop's from row {seq} on (was the data file put back from an older copy?); its new audit rows are not sent to the shop. A manager should look with `paydesk audit verify`.";
    AuditShopBroken => "{name} masası: dükkândaki denetim zinciri {seq}. kayıtta kırık: {why}", "Desk {name}: the audit chain in the shop is broken at row {seq}: {why}";
    ReceiptsOn => "Tamamı ödenen linklerin makbuzu ödeyene e-postayla gidecek.", "A receipt will be e-mailed to the payer of each link paid in full.";
    ReceiptsOff => "Makbuzlar kendiliğinden gönderilmeyecek.", "Receipts will not be sent on their own.";
    }
}
