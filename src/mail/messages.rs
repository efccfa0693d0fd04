//! The mail sender's sentence catalogue: why the SMTP settings or a sending pass were refused,
//! in Turkish and English.

crate::sentences! {
    /// A sentence of the mail sender.
    pub enum MailMessage {
    NoHost => "SMTP sunucusunun adı boş.", "The SMTP server's name is empty.";
    PlainNotLoopback => "Şifresiz SMTP yalnızca bu bilgisayara (127.0.0.1, ::1, localhost) izinli; {host} için STARTTLS ya da TLS seçin.", "Plain SMTP is allowed only to this computer (127.0.0.1, ::1, localhost); choose STARTTLS or TLS for {host}.";
    NoPassword => "SMTP kullanıcısı {user} için parola verilmedi.", "No password was given for the SMTP user {user}.";
    CaFile => "CA dosyası {path} kullanılamıyor: {reason}", "The CA file {path} cannot be used: {reason}";
    Tls => "TLS ayarları kurulamadı: {reason}", "The TLS settings could not be made: {reason}";
    Relay => "Posta sunucusuna giden yerel aktarma açılamadı: {reason}", "The local relay to the mail server could not be opened: {reason}";
    Keyring => "SMTP parolası anahtarlığa kaydedilemedi: {reason}", "The SMTP password could not be kept in the keyring: {reason}";
    Store => "E-posta kuyruğu okunamadı ya da yazılamadı: {reason}", "The mail queue could not be read or written: {reason}";
    }
}
