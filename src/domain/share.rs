//! The message that carries a payment link to the payer, by e-mail or WhatsApp (issue 30):
//! pure, from the facts of one link, in the language chosen for that message.
//!
//! What a message says, and nothing more about the shop or its account: the shop's name, the
//! amount in the message's language ([`format_amount`]), what it is for (the description or
//! the item lines), the order number, the expiry as a local time of the [`Zone`] given (with
//! its UTC offset, since a payer may be elsewhere) and the exact `paymentUrl`. An e-mail gets a
//! subject naming the shop and the amount, a plain-text body and an HTML body in which every
//! text from staff, the catalog or the server is escaped ([`escape_html`]); WhatsApp gets the
//! plain-text body through [`wa_me_url`].
//!
//! Texts from outside (shop name, description, item names, order number) are cleaned of control
//! and bidi characters first ([`server_text::clean`]), so a line break cannot reach the subject
//! header and a bidi override cannot reverse an amount.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use super::codes::Currency;
use super::messages::DomainMessage;
use super::money::format_amount;
use super::payment_link::Link;
use super::phone::Phone;
use super::server_text;
use super::wire_format::percent_encode;
use crate::clock::Zone;
use crate::lang::Lang;

/// How a link went to a payer, as the audit row names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SendChannel {
    /// By e-mail, through the mail queue.
    #[serde(rename = "e-mail")]
    Email,
    /// By WhatsApp (`wa.me`, opened on the desk).
    #[serde(rename = "whatsapp")]
    WhatsApp,
}

impl SendChannel {
    /// The channel as the audit row's subject spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            SendChannel::Email => "e-mail",
            SendChannel::WhatsApp => "whatsapp",
        }
    }

    /// The channel an audit subject spells (`e-mail`, `whatsapp`).
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "e-mail" => Some(SendChannel::Email),
            "whatsapp" => Some(SendChannel::WhatsApp),
            _ => None,
        }
    }
}

/// Where an e-mail to a payer stands in this desk's mail queue, while it is not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailState {
    /// Queued, waiting for the server (its wait after a failure, or the next pass).
    Waiting,
    /// The server refused it for good (a 5xx); kept with its words, never tried again.
    Refused,
}

/// One send of a link to its payer, as the audit recorded it (on a joined desk, as the shop's
/// copy of every desk's audit holds it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SendMark {
    /// The link sent.
    #[serde(skip)]
    pub link_id: String,
    /// By which channel.
    pub channel: SendChannel,
    /// When.
    pub at: DateTime<Utc>,
    /// Who (`None`: staff were off).
    pub by: Option<String>,
}

impl SendMark {
    /// The send an audit row of action `link.send` records: its subject is the link id, the
    /// channel and the masked recipient (`lnk_1 e-mail a***@example.com`). `None` for a
    /// subject of another shape.
    pub fn of_audit(subject: &str, at: DateTime<Utc>, by: Option<String>) -> Option<Self> {
        let mut words = subject.split(' ');
        let link_id = words.next().filter(|w| !w.is_empty())?;
        let channel = SendChannel::parse(words.next()?)?;
        Some(SendMark {
            link_id: link_id.to_owned(),
            channel,
            at,
            by,
        })
    }
}

/// What a link is for, as its message tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    /// Nothing said.
    Unsaid,
    /// The link's description.
    Description(String),
    /// The cart's lines.
    Items(Vec<ItemLine>),
}

/// One cart line of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemLine {
    /// The item's name.
    pub name: String,
    /// How many.
    pub quantity: u32,
    /// The line's total in the link's currency, when known.
    pub line_total: Option<Decimal>,
}

/// The facts of one link a message is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFacts {
    /// The shop's name (the desk's shop, as staff named it).
    pub shop_name: String,
    /// The amount asked.
    pub amount: Decimal,
    /// Its currency.
    pub currency: Currency,
    /// What it is for.
    pub purpose: Purpose,
    /// The order number, when there is one.
    pub order_number: Option<String>,
    /// The last valid moment, when there is one.
    pub expiry: Option<DateTime<Utc>>,
    /// The server's `paymentUrl`, exactly as it sent it.
    pub payment_url: String,
}

/// Why a link cannot be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message(Lang::En))]
pub enum ShareError {
    /// The server sent no payment URL: there is nothing to send.
    NoPaymentUrl,
    /// The server sent no amount.
    NoAmount,
}

impl ShareError {
    /// A sentence saying why, in `lang`.
    pub fn message(self, lang: Lang) -> String {
        match self {
            ShareError::NoPaymentUrl => DomainMessage::ShareNoPaymentUrl,
            ShareError::NoAmount => DomainMessage::ShareNoAmount,
        }
        .get(lang)
        .to_owned()
    }
}

impl LinkFacts {
    /// The facts of a link as the desk read it, with its cart lines (empty: the description
    /// says what it is for).
    pub fn of_link(
        shop_name: &str,
        link: &Link,
        items: Vec<ItemLine>,
    ) -> Result<LinkFacts, ShareError> {
        let payment_url = link
            .payment_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .ok_or(ShareError::NoPaymentUrl)?;
        let amount = link.amount.ok_or(ShareError::NoAmount)?;
        let purpose = if items.is_empty() {
            match link.description.as_deref().map(str::trim) {
                Some(d) if !d.is_empty() => Purpose::Description(d.to_owned()),
                _ => Purpose::Unsaid,
            }
        } else {
            Purpose::Items(items)
        };
        Ok(LinkFacts {
            shop_name: shop_name.trim().to_owned(),
            amount,
            currency: link.currency,
            purpose,
            order_number: link.order_number.clone().filter(|o| !o.trim().is_empty()),
            expiry: link.expiry,
            payment_url,
        })
    }
}

/// The `Content-ID` of the link's QR code in an e-mail: the HTML shows it as
/// `<img src="cid:…">`, the queue carries the PNG as an inline part under this id.
pub const QR_CONTENT_ID: &str = "payment-qr@paydesk";

/// One message, ready to send: an e-mail's three parts (WhatsApp takes [`LinkMessage::text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkMessage {
    /// The subject: the shop and the amount.
    pub subject: String,
    /// The plain-text body.
    pub text: String,
    /// The HTML body, every outside text escaped.
    pub html: String,
}

/// A label and its value, one line of the message's facts.
struct Row {
    label: &'static str,
    value: String,
}

/// The message of `facts` in `lang`, times shown in `zone`.
pub fn compose(facts: &LinkFacts, lang: Lang, zone: Zone) -> LinkMessage {
    compose_as(facts, lang, zone, false)
}

/// The one reminder of a link sent and not paid (issue 30): the same message, its subject
/// and first sentence saying it is a reminder and, when the link expires, when.
pub fn compose_reminder(facts: &LinkFacts, lang: Lang, zone: Zone) -> LinkMessage {
    compose_as(facts, lang, zone, true)
}

/// The subject and first sentence of a link's message (its reminder's with `reminder`): the
/// shop and the amount, and for a reminder when the link expires.
fn opening(facts: &LinkFacts, lang: Lang, zone: Zone, reminder: bool) -> (String, String) {
    let shop = server_text::clean(&facts.shop_name).trim().to_owned();
    let amount = format_amount(facts.amount, facts.currency, lang);
    // A shop without a name is not named: no sentence starts with a blank.
    let expiry = facts
        .expiry
        .map(|at| local_time(at, zone))
        .unwrap_or_default();
    let fill = |named: DomainMessage, unnamed: DomainMessage| {
        let values: [(&str, &dyn std::fmt::Display); 3] =
            [("shop", &shop), ("amount", &amount), ("expiry", &expiry)];
        if shop.is_empty() {
            unnamed.fill(lang, &values[1..])
        } else {
            named.fill(lang, &values)
        }
    };
    let mut subject = fill(
        DomainMessage::ShareSubject,
        DomainMessage::ShareSubjectNoShop,
    );
    let mut intro = fill(DomainMessage::ShareIntro, DomainMessage::ShareIntroNoShop);
    if reminder {
        subject = DomainMessage::ReminderSubject.fill(lang, &[("subject", &subject)]);
        intro = match facts.expiry {
            Some(_) => fill(
                DomainMessage::ReminderExpires,
                DomainMessage::ReminderExpiresNoShop,
            ),
            None => fill(
                DomainMessage::ReminderWaiting,
                DomainMessage::ReminderWaitingNoShop,
            ),
        };
    }

    (subject, intro)
}

fn compose_as(facts: &LinkFacts, lang: Lang, zone: Zone, reminder: bool) -> LinkMessage {
    let (subject, intro) = opening(facts, lang, zone, reminder);

    let mut rows = Vec::new();
    let mut items: Vec<String> = Vec::new();
    match &facts.purpose {
        Purpose::Unsaid => {}
        Purpose::Description(d) => rows.push(Row {
            label: DomainMessage::ShareFor.get(lang),
            value: server_text::clean(d).trim().to_owned(),
        }),
        Purpose::Items(lines) => {
            items = lines
                .iter()
                .map(|l| {
                    let name = server_text::clean(&l.name).trim().to_owned();
                    match l.line_total {
                        Some(t) => format!(
                            "{} × {name}: {}",
                            l.quantity,
                            format_amount(t, facts.currency, lang)
                        ),
                        None => format!("{} × {name}", l.quantity),
                    }
                })
                .collect();
        }
    }
    if let Some(order) = &facts.order_number {
        rows.push(Row {
            label: DomainMessage::FieldOrderNumber.get(lang),
            value: server_text::clean(order).trim().to_owned(),
        });
    }
    if let Some(at) = facts.expiry {
        rows.push(Row {
            label: DomainMessage::ShareExpiry.get(lang),
            value: local_time(at, zone),
        });
    }
    let greeting = DomainMessage::ShareGreeting.get(lang);
    let pay = DomainMessage::SharePay.get(lang);
    let ignore = DomainMessage::ShareIgnore.get(lang);
    let items_label = DomainMessage::ShareItems.get(lang);
    let url = &facts.payment_url;

    let mut text = format!("{greeting}\n\n{intro}\n");
    if !items.is_empty() {
        let _ = write!(text, "\n{items_label}:\n");
        for line in &items {
            let _ = writeln!(text, "- {line}");
        }
    }
    if !rows.is_empty() {
        text.push('\n');
        for r in &rows {
            let _ = writeln!(text, "{}: {}", r.label, r.value);
        }
    }
    let _ = write!(text, "\n{pay}\n{url}\n\n{ignore}\n");

    let e = escape_html;
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"{}\">\n<head><meta charset=\"utf-8\"><title>{}</title></head>\n<body>\n<p>{}</p>\n<p>{}</p>\n",
        match lang {
            Lang::Tr => "tr",
            Lang::En => "en",
        },
        e(&subject),
        e(greeting),
        e(&intro)
    );
    if !items.is_empty() {
        let _ = writeln!(html, "<p>{}:</p>\n<ul>", e(items_label));
        for line in &items {
            let _ = writeln!(html, "<li>{}</li>", e(line));
        }
        html.push_str("</ul>\n");
    }
    if !rows.is_empty() {
        html.push_str("<p>");
        for (i, r) in rows.iter().enumerate() {
            if i > 0 {
                html.push_str("<br>\n");
            }
            let _ = write!(html, "{}: <strong>{}</strong>", e(r.label), e(&r.value));
        }
        html.push_str("</p>\n");
    }
    let _ = write!(
        html,
        "<p>{}<br>\n<a href=\"{}\">{}</a></p>\n<p><img src=\"cid:{QR_CONTENT_ID}\" alt=\"{}\" width=\"240\" height=\"240\"></p>\n<p>{}</p>\n</body>\n</html>\n",
        e(pay),
        e(url),
        e(url),
        e(DomainMessage::ShareQrAlt.get(lang)),
        e(ignore)
    );
    LinkMessage {
        subject,
        text,
        html,
    }
}

/// A moment in `zone`'s local time as messages show it, with its offset:
/// `2026-11-23 18:30 (UTC+03:00)`.
pub fn local_time(at: DateTime<Utc>, zone: Zone) -> String {
    zone.local(at).format("%Y-%m-%d %H:%M (UTC%:z)").to_string()
}

/// Escapes text for HTML, in element content and in quoted attributes alike.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The WhatsApp address that opens a chat with `phone` and `text` typed in:
/// `https://wa.me/<digits>?text=<text>`, the text percent-encoded as UTF-8 with every byte but
/// RFC 3986's unreserved characters escaped (a space is `%20`, a line break `%0A`, `ş` is
/// `%C5%9F`), so nothing in the text can end the query or start another parameter.
pub fn wa_me_url(phone: &Phone, text: &str) -> String {
    let mut url = url::Url::parse("https://wa.me/").expect("a constant URL");
    url.set_path(&phone.wa_digits());
    url.set_query(Some(&format!("text={}", percent_encode(text))));
    url.into()
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn facts(purpose: Purpose) -> LinkFacts {
        LinkFacts {
            shop_name: "Kuzey Giyim".into(),
            amount: Decimal::new(123_450, 2),
            currency: Currency::Try,
            purpose,
            order_number: Some("KG-0042".into()),
            expiry: Some(Utc.with_ymd_and_hms(2026, 11, 23, 15, 30, 0).unwrap()),
            payment_url: "https://pay.example/l/lnk_1?a=1&b=2".into(),
        }
    }

    fn sweater() -> Purpose {
        Purpose::Items(vec![
            ItemLine {
                name: "Kazak <XL> & atkı".into(),
                quantity: 2,
                line_total: Some(Decimal::new(100_000, 2)),
            },
            ItemLine {
                name: "Çorap".into(),
                quantity: 1,
                line_total: Some(Decimal::new(23_450, 2)),
            },
        ])
    }

    #[test]
    fn the_turkish_message_names_shop_amount_order_expiry_and_the_exact_url() {
        let m = compose(
            &facts(Purpose::Description("Kırmızı kazak".into())),
            Lang::Tr,
            Zone::hours(3),
        );
        assert_eq!(
            m.subject,
            "Kuzey Giyim: 1.234,50 ₺ tutarında ödeme linkiniz"
        );
        assert_eq!(
            m.text,
            "Merhaba,\n\n\
             Kuzey Giyim sizin için 1.234,50 ₺ tutarında bir ödeme linki hazırladı.\n\n\
             Açıklama: Kırmızı kazak\n\
             Sipariş numarası: KG-0042\n\
             Son geçerlilik: 2026-11-23 18:30 (UTC+03:00)\n\n\
             Ödemek için bu adresi açın:\n\
             https://pay.example/l/lnk_1?a=1&b=2\n\n\
             Bu ödemeyi siz istemediyseniz bu iletiyi yok sayabilirsiniz.\n"
        );
        assert!(m.html.starts_with("<!DOCTYPE html>\n<html lang=\"tr\">"));
        assert!(m.html.contains("1.234,50 ₺"));
    }

    #[test]
    fn the_english_message_lists_the_items_with_english_amounts() {
        let m = compose(&facts(sweater()), Lang::En, Zone::hours(0));
        assert_eq!(m.subject, "Kuzey Giyim: your payment link for ₺1,234.50");
        assert!(
            m.text
                .starts_with("Hello,\n\nKuzey Giyim has sent you a payment link for ₺1,234.50.\n"),
            "{}",
            m.text
        );
        assert!(
            m.text
                .contains("\nItems:\n- 2 × Kazak <XL> & atkı: ₺1,000.00\n- 1 × Çorap: ₺234.50\n"),
            "{}",
            m.text
        );
        assert!(
            m.text
                .contains("Valid until: 2026-11-23 15:30 (UTC+00:00)\n")
        );
        assert!(m.text.contains("\nhttps://pay.example/l/lnk_1?a=1&b=2\n"));
        assert!(
            !m.text.contains("Description"),
            "items replace the description"
        );
        assert!(m.html.contains("<html lang=\"en\">"));
    }

    #[test]
    fn the_html_escapes_item_names_shop_and_url() {
        let mut f = facts(sweater());
        f.shop_name = "A&B <Shop>".into();
        let m = compose(&f, Lang::En, Zone::hours(3));
        assert!(
            m.html
                .contains("<li>2 × Kazak &lt;XL&gt; &amp; atkı: ₺1,000.00</li>"),
            "{}",
            m.html
        );
        assert!(!m.html.contains("<XL>"));
        assert!(!m.html.contains("<Shop>"));
        assert!(m.html.contains("A&amp;B &lt;Shop&gt;"));
        assert!(
            m.html.contains(
                "<a href=\"https://pay.example/l/lnk_1?a=1&amp;b=2\">https://pay.example/l/lnk_1?a=1&amp;b=2</a>"
            ),
            "{}",
            m.html
        );
        // The plain text keeps the names as written (it is not HTML).
        assert!(m.text.contains("Kazak <XL> & atkı"));
        assert!(m.subject.starts_with("A&B <Shop>: "));
    }

    #[test]
    fn a_line_break_or_bidi_control_in_a_name_never_reaches_the_subject() {
        let mut f = facts(Purpose::Unsaid);
        f.shop_name = "Kuzey\r\nBcc: x@y.z\u{202E}".into();
        let m = compose(&f, Lang::En, Zone::hours(3));
        assert!(
            !m.subject.contains(['\r', '\n', '\u{202E}']),
            "{:?}",
            m.subject
        );
        assert!(!m.text.contains("For:"), "nothing said, no line");
    }

    #[test]
    fn a_link_without_url_or_amount_cannot_be_sent() {
        let link = Link {
            id: "lnk_1".into(),
            reference_number: None,
            order_number: Some("KG-1".into()),
            payment_url: Some("https://pay.example/l/1".into()),
            transaction_ref: None,
            status: crate::domain::LinkStatus::Pending,
            currency: Currency::Eur,
            amount: Some(Decimal::new(500, 2)),
            paid: None,
            remaining: None,
            description: Some("  Tamir  ".into()),
            allow_partial_payment: false,
            enable_installment: false,
            available_installments: None,
            email: Some("ayse@example.com".into()),
            phone_country_code: None,
            phone_number: None,
            expiry: None,
            completed: None,
            created: None,
        };
        let f = LinkFacts::of_link(" Kuzey ", &link, Vec::new()).expect("sendable");
        assert_eq!(f.purpose, Purpose::Description("Tamir".into()));
        assert_eq!((f.shop_name.as_str(), f.currency), ("Kuzey", Currency::Eur));
        let no_url = Link {
            payment_url: None,
            ..link.clone()
        };
        assert_eq!(
            LinkFacts::of_link("Kuzey", &no_url, Vec::new()),
            Err(ShareError::NoPaymentUrl)
        );
        let no_amount = Link {
            amount: None,
            ..link
        };
        let e = LinkFacts::of_link("Kuzey", &no_amount, Vec::new()).expect_err("no amount");
        assert_eq!(e, ShareError::NoAmount);
        assert_ne!(e.message(Lang::Tr), e.message(Lang::En));
    }

    #[test]
    fn wa_me_carries_turkish_letters_and_line_breaks_percent_encoded() {
        let phone = Phone::parse("0532 123 45 67", 90).expect("phone");
        let text = "Ödeme: 1.234,50 ₺\nşu adres: https://pay.example/l?a=1&b=2 #x";
        let url = wa_me_url(&phone, text);
        assert_eq!(
            url,
            "https://wa.me/905321234567?text=%C3%96deme%3A%201.234%2C50%20%E2%82%BA%0A%C5%9Fu%20adres%3A%20https%3A%2F%2Fpay.example%2Fl%3Fa%3D1%26b%3D2%20%23x"
        );
        // Read back by a URL parser, the text is whole: one parameter, nothing cut at & or #.
        let parsed = url::Url::parse(&url).expect("a URL");
        assert_eq!(parsed.host_str(), Some("wa.me"));
        assert_eq!(parsed.path(), "/905321234567");
        assert_eq!(parsed.fragment(), None);
        let pairs: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
        assert_eq!(pairs, vec![("text".to_owned(), text.to_owned())]);
    }

    #[test]
    fn a_shop_without_a_name_is_not_named_and_a_reminder_says_when_the_link_expires() {
        let zone = Zone::hours(3);
        let mut unnamed = facts(Purpose::Unsaid);
        unnamed.shop_name = "  ".into();
        let m = compose(&unnamed, Lang::En, zone);
        assert_eq!(m.subject, "Your payment link for ₺1,234.50");
        assert!(
            m.text
                .contains("\nA payment link for ₺1,234.50 has been sent to you.\n")
        );
        assert!(!m.text.contains(" has sent you"), "{}", m.text);
        let r = compose_reminder(&facts(Purpose::Unsaid), Lang::Tr, zone);
        assert_eq!(
            r.subject,
            "Hatırlatma: Kuzey Giyim: 1.234,50 ₺ tutarında ödeme linkiniz"
        );
        assert!(
            r.text
                .contains("süresi 2026-11-23 18:30 (UTC+03:00) tarihinde doluyor."),
            "{}",
            r.text
        );
        assert!(r.text.contains("https://pay.example/l/lnk_1?a=1&b=2"));
        let mut open_ended = facts(Purpose::Unsaid);
        open_ended.expiry = None;
        let r = compose_reminder(&open_ended, Lang::En, zone);
        assert!(
            r.text.contains("is still waiting for your payment."),
            "{}",
            r.text
        );
    }
}
