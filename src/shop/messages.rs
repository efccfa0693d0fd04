//! The shop's catalogue of sentences, in Turkish and English: why a shop URL was refused
//! ([`super::UrlError`]) and why the shop could not be used ([`super::ShopError`]).
//!
//! Declared with [`crate::sentences!`] and listed in `every_sentence` (in
//! `tests/support/catalogues.rs`), so the language tests walk it. A server's or the system's
//! own words come in `{reason}` / `{message}`, as they were given.

crate::sentences! {
    /// A sentence of the shop.
    pub enum ShopMessage {
    // `UrlError`.
    UrlUnreadable => "Mağaza adresi okunamadı: {reason}", "The shop URL cannot be read: {reason}";
    UrlScheme => "Mağaza adresi postgres:// ile başlamalı ({scheme}:// ile başlıyor).", "The shop URL must start with postgres:// (it starts with {scheme}://).";
    UrlPassword => "Mağaza adresinde bir parola var ({field}); adresten çıkarın: paydesk parolayı ayrıca sorar ve anahtarlıkta saklar.", "The shop URL holds a password ({field}); leave it out: paydesk asks for the password and keeps it in the keyring.";
    UrlNoHost => "Mağaza adresi bir sunucu adı vermiyor.", "The shop URL names no host.";
    UrlNoUser => "Mağaza adresi bir kullanıcı vermiyor (postgres://KULLANICI@SUNUCU/VERITABANI).", "The shop URL names no user (postgres://USER@HOST/DATABASE).";
    UrlPort => "Mağaza adresindeki `{port}` portu 1 ile 65535 arasında bir sayı değil.", "The shop URL's port `{port}` is not a number from 1 to 65535.";
    UrlSeveralHosts => "Mağaza adresi birden çok sunucu veriyor; bir tane verin.", "The shop URL names several hosts; give one.";
    UrlSocketFolder => "host=`{host}` bir Unix soketinin mutlak klasörü olmalı.", "host=`{host}` must be the absolute folder of a Unix socket.";
    UrlParameter => "Mağaza adresindeki `{name}` parametresini paydesk okumaz (host, port, sslmode, sslrootcert, channel_binding okunur).", "The shop URL's parameter `{name}` is not one paydesk reads (host, port, sslmode, sslrootcert, channel_binding).";
    UrlChannelBinding => "channel_binding=`{value}` şunlardan biri değil: require, prefer, disable.", "channel_binding=`{value}` is not one of require, prefer, disable.";
    UrlBindingWithoutTls => "channel_binding=require her zaman TLS olan bir bağlantı ister (sslmode=verify-full, verify-ca ya da require); sslmode={mode} ile olmaz.", "channel_binding=require needs a connection that is always TLS (sslmode=verify-full, verify-ca or require), not sslmode={mode}.";
    UrlTwice => "Mağaza adresi `{name}` değerini iki kez veriyor.", "The shop URL gives `{name}` twice.";
    UrlSslMode => "sslmode=`{mode}` şunlardan biri değil: disable, prefer, require, verify-ca, verify-full.", "sslmode=`{mode}` is not one of disable, prefer, require, verify-ca, verify-full.";
    UrlRootCertNeeded => "sslmode={mode} için sslrootcert=DOSYA gerekli: sunucunun sertifikasını imzalayan CA sertifikası.", "sslmode={mode} needs sslrootcert=FILE, the CA certificate that signed the server's certificate.";
    UrlRootCertUnused => "sslrootcert yalnızca sslmode=verify-ca ya da verify-full ile okunur ({mode} ile değil).", "sslrootcert is read only with sslmode=verify-ca or verify-full (not with {mode}).";
    UrlPlainOffMachine => "{host} sunucusuna sslmode={mode} ile bağlanmak parolayı şifresiz gönderebilir; verify-full kullanın ya da şifresiz bağlantıyı kabul etmek için sslmode=disable yazın.", "sslmode={mode} to {host} could send the password unencrypted; use verify-full, or write sslmode=disable to accept a plain connection.";

    // `ShopError`.
    RootCert => "{path} CA dosyası kullanılamıyor: {reason}", "The CA file {path} cannot be used: {reason}";
    Tls => "TLS kurulamadı: {reason}", "TLS could not be set up: {reason}";
    NoPassword => "Mağazanın parolası yok: anahtarlıkta kayıtlı değil ve PAYDESK_SHOP_PASSWORD verilmemiş.", "No password for the shop: the keyring holds none and PAYDESK_SHOP_PASSWORD is not set.";
    Keyring => "Mağazanın parolası anahtarlıktan okunamadı: {reason}", "The shop's password could not be read from the keyring: {reason}";
    Unreachable => "Mağazanın PostgreSQL sunucusuna ({target}) ulaşılamıyor: {reason}", "The shop's PostgreSQL at {target} cannot be reached: {reason}";
    Timeout => "Mağazanın PostgreSQL sunucusu ({target}) {seconds} sn içinde yanıt vermedi.", "The shop's PostgreSQL at {target} did not answer within {seconds} s.";
    Certificate => "Mağaza sunucusunun sertifikası reddedildi: {reason}", "The shop server's certificate was refused: {reason}";
    NoChannelBinding => "Mağazanın PostgreSQL sunucusu parolayı TLS kanalına bağlı SCRAM ile sormadı (düz metin, MD5 ya da bağlamasız SCRAM istedi); parola gönderilmedi. Sunucuda password_encryption = scram-sha-256 yapıp rolün parolasını yeniden verin; riski kabul ediyorsanız adrese channel_binding=prefer ekleyin.", "The shop's PostgreSQL did not ask for the password by SCRAM bound to the TLS channel (it asked for it in plain text, as MD5 or by SCRAM without binding); the password was not sent. Set password_encryption = scram-sha-256 on the server and give the role its password again, or add channel_binding=prefer to the URL if you accept the risk.";
    NoTlsOffered => "Mağazanın PostgreSQL sunucusu TLS sunmuyor, oysa sslmode bunu istiyor.", "The shop's PostgreSQL does not offer TLS, which sslmode asks for.";
    WrongPassword => "PostgreSQL, {user} kullanıcısının parolasını kabul etmedi.", "PostgreSQL refused the password for the user {user}.";
    Refused => "PostgreSQL bağlantıyı reddetti: {reason}", "PostgreSQL refused the connection: {reason}";
    NoDatabase => "Mağazanın PostgreSQL sunucusunda {dbname} veritabanı yok.", "The database {dbname} does not exist on the shop's PostgreSQL.";
    SchemaTooNew => "Mağazanın veritabanı şema sürümü {found}; bu paydesk en çok {known} sürümünü biliyor. Hiçbir şeye dokunulmadı: bu masadaki paydesk'i güncelleyin.", "The shop's database has schema version {found}, newer than this paydesk knows ({known}). Nothing was touched: update paydesk on this desk.";
    NoSchema => "{dbname} veritabanında henüz bir paydesk mağazası yok: önce mağazanın sahibi `paydesk shop init SAHİP_ADRESİ` çalıştırır.", "The database {dbname} holds no paydesk shop yet: the shop's owner first runs `paydesk shop init OWNER_URL`.";
    SchemaOld => "Mağazanın veritabanı şema sürümü {found}; bu paydesk {needed} sürümünü istiyor. Mağazanın sahibi `paydesk shop init` çalıştırana dek bu masa tek başına satışa devam eder.", "The shop's database has schema version {found}; this paydesk needs {needed}. This desk sells on alone until the shop's owner runs `paydesk shop init`.";
    NotADeskLogin => "{user} bir masanın girişi değil: {why}. Bir masa kendi girişiyle katılır; mağazanın sahibi onu `paydesk shop add-desk AD SAHİP_ADRESİ` ile oluşturur.", "{user} is not a desk's login: {why}. A desk joins with a login of its own, which the shop's owner makes with `paydesk shop add-desk NAME OWNER_URL`.";
    WhySuperuser => "bir süper kullanıcı", "it is a superuser";
    WhyCreatesRoles => "rol oluşturabiliyor (CREATEROLE)", "it may create roles (CREATEROLE)";
    WhyBypassesRls => "satır düzeyi güvenliği atlıyor (BYPASSRLS)", "it bypasses row-level security (BYPASSRLS)";
    WhyOwnsShop => "mağazanın tablolarının sahibi (ya da sahibinin üyesi)", "it owns the shop's tables (or is a member of their owner)";
    DeskRemoved => "Mağazanın sahibi bu masanın {user} girişini kaldırdı: masa tek başına satışa devam eder. Sahipten yeni bir giriş (`paydesk shop add-desk`) isteyip yeniden katılın.", "The shop's owner removed this desk's login {user}: the desk sells on alone. Ask the owner for a new login (`paydesk shop add-desk`) and join again.";
    LoginBound => "{user} girişi başka bir kasaya ait: her giriş ilk katıldığı kasaya bağlıdır. Mağazanın sahibinden bu kasa için bir giriş (`paydesk shop add-desk`) isteyin.", "The login {user} belongs to another desk: each login is bound to the desk it first joined with. Ask the shop's owner for a login for this desk (`paydesk shop add-desk`).";
    DeviceTaken => "Bu kasa mağazaya kendine ait başka bir girişle katıldı; o girişle katılın ya da mağazanın sahibi önce onu kaldırsın (`paydesk shop remove-desk`).", "This desk joined the shop with another login of its own; join with that one, or have the shop's owner remove it first (`paydesk shop remove-desk`).";
    NotOwner => "{user} mağazayı kuramaz: {why}. Veritabanının sahibi olan ve rol oluşturabilen (CREATEROLE) girişle bağlanın; yönetilen bir PostgreSQL'in yönetici girişi böyledir.", "{user} cannot set the shop up: {why}. Connect with the login that owns the database and may create roles (CREATEROLE), as a managed PostgreSQL's admin login does.";
    WhyNotDatabaseOwner => "veritabanının sahibi değil", "it does not own the database";
    WhyNoCreateRole => "rol oluşturamıyor (CREATEROLE yok)", "it may not create roles (no CREATEROLE)";
    DatabaseNameTooLong => "{dbname} veritabanı adı mağazanın rol adlarına yer bırakmayacak kadar uzun; en çok 47 baytlık bir ad seçin.", "The database name {dbname} is too long to leave room for the shop's role names; choose one of at most 47 bytes.";
    DeskNameShape => "Masa adı 1 ile 40 karakter arasında olmalı ve denetim karakteri içermemeli.", "A desk's name is 1 to 40 characters, none of them a control character.";
    DeskNameTaken => "{name} adlı bir masanın zaten bir girişi var; başka bir ad verin.", "A desk named {name} has a login already; give another name.";
    NoSuchDesk => "{name} adlı bir masa girişi yok; `paydesk shop desks` hepsini listeler.", "No desk login is named {name}; `paydesk shop desks` lists them all.";
    Database => "PostgreSQL {code} yanıtını verdi: {message}", "PostgreSQL answered {code}: {message}";
    Connection => "Mağazaya bağlantı başarısız oldu: {reason}", "The connection to the shop failed: {reason}";
    Closed => "Mağazaya bağlantı kapandı.", "The connection to the shop was closed.";
    DataFile => "Bu masanın veri dosyası okunamadı: {reason}", "This desk's data file could not be read: {reason}";
    Unreadable => "Mağazanın veritabanında bu paydesk'in okuyamadığı bir değer var: {reason}", "The shop's database holds a value this paydesk cannot read: {reason}";

    // What a shop URL gives up (`super::Weakness`).
    WeakPlainOffMachine => "Uyarı: mağazaya bağlantı şifresiz (sslmode=disable); parola ve tüm satırlar ağda okunabilir geçer. Sunucunun CA sertifikasıyla sslmode=verify-full kullanın.", "Warning: the connection to the shop is not encrypted (sslmode=disable); the password and every row cross the network readable. Use sslmode=verify-full with the server's CA certificate.";
    WeakServerUnchecked => "Uyarı: sslmode=require şifreler ama yanıt verenin mağazanın sunucusu olduğunu denetlemez; ağdaki biri onun yerine yanıt verebilir. Sunucunun CA sertifikasıyla sslmode=verify-full kullanın.", "Warning: sslmode=require encrypts but does not check that the shop's server is the one answering; someone on the network could answer in its place. Use sslmode=verify-full with the server's CA certificate.";
    WeakNameUnchecked => "Uyarı: sslmode=verify-ca, CA'nın imzaladığı her sertifikayı hangi sunucuyu adlandırırsa adlandırsın kabul eder. sslmode=verify-full kullanın.", "Warning: sslmode=verify-ca accepts any certificate the CA signed, whatever server it names. Use sslmode=verify-full.";
    WeakNoChannelBinding => "Uyarı: channel_binding zorunlu değil; sunucu parolayı düz metin ya da MD5 olarak isteyebilir ve araya giren bir sunucu parola alışverişinde yakalanmaz. Adresten channel_binding'i çıkarın.", "Warning: channel binding is not required; the server may ask for the password in plain text or as MD5, and a server in the middle is not caught by the password exchange. Remove channel_binding from the URL.";

    // Pulling the shop's catalog and staff (`catalog::PullError`).
    InvalidCurrency => "Mağazanın kataloğunda geçersiz bir para birimi var: `{value}`. Bu masadaki katalog olduğu gibi kaldı.", "The shop's catalog holds an invalid currency: `{value}`. This desk's catalog was left as it was.";
    InvalidBarcode => "Mağazanın kataloğunda geçersiz bir barkod var: `{value}`. Bu masadaki katalog olduğu gibi kaldı.", "The shop's catalog holds an invalid barcode: `{value}`. This desk's catalog was left as it was.";
    InvalidRole => "Mağazanın personel listesinde geçersiz bir rol var: `{value}`. Bu masadaki personel olduğu gibi kaldı.", "The shop's staff list holds an invalid role: `{value}`. This desk's staff were left as they were.";

    // Joining: what became of the desk's own staff and catalog (`store::Carried`).
    StaffToShop => "Bu masanın personeli mağazaya gönderiliyor (kişi: {n}); artık her masada geçerliler.", "This desk's staff go to the shop (members: {n}) and count at every desk.";
    StaffReplaced => "Mağazanın personeli bu masanınkinin yerini aldı (mağazada: {theirs}, burada önceden: {ours}); burada mağazanınkiler oturum açar.", "The shop's staff replaced this desk's (members in the shop: {theirs}, here before: {ours}); here, the shop's sign in.";
    CatalogToShop => "Bu masanın kataloğu mağazaya gönderiliyor (ürün: {n}).", "This desk's catalog goes to the shop (items: {n}).";
    CatalogReplaced => "Mağazanın kataloğu bu masanınkinin yerini aldı (mağazada: {theirs} ürün, burada önceden: {ours}).", "The shop's catalog replaced this desk's (items in the shop: {theirs}, here before: {ours}).";
    }
}
