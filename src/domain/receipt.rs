//! The receipt of a link paid in full (issue 30), pure: what it says, in Turkish or English,
//! as one model ([`Receipt`]) that the e-mail's plain text and HTML ([`Receipt::message`]) and
//! the PDF (`slip::receipt`) are all made from, so the three cannot disagree.
//!
//! What a receipt says: the shop's name, when the payment was made (a local time of the
//! [`Zone`] given, with its offset), the items with their quantities and line totals (the items
//! this desk kept for the link, else its description), the total, the amount paid, the order
//! number and the payment system's `transactionRef`. Texts from outside are cleaned of control
//! and bidi characters ([`server_text::clean`]); the HTML escapes them ([`escape_html`]).

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use super::codes::{Currency, LinkStatus};
use super::messages::DomainMessage;
use super::money::format_amount;
use super::payment_link::Link;
use super::server_text;
use super::share::{ItemLine, LinkMessage, ShareError, escape_html, local_time};
use crate::clock::Zone;
use crate::lang::Lang;

/// The facts of a paid link a receipt is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptFacts {
    /// The shop's name.
    pub shop_name: String,
    /// When it was paid (the link's completion time, else when the desk heard it).
    pub paid_at: DateTime<Utc>,
    /// The currency.
    pub currency: Currency,
    /// The cart's lines (empty: the description says what it was for).
    pub items: Vec<ItemLine>,
    /// The description, when there are no items.
    pub description: Option<String>,
    /// The link's amount.
    pub total: Decimal,
    /// The amount paid.
    pub paid: Decimal,
    /// The order number, when there is one.
    pub order_number: Option<String>,
    /// The payment system's transaction reference, when it sent one.
    pub transaction_ref: Option<String>,
}

/// Why a link gets no receipt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message(Lang::En))]
pub enum ReceiptError {
    /// The link is not paid in full: its status and the amount paid as the desk knows them.
    NotPaid {
        /// Its status.
        status: LinkStatus,
        /// What was paid.
        paid: Decimal,
    },
    /// The server sent no amount.
    NoAmount,
}

impl ReceiptError {
    /// A sentence saying why, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match self {
            ReceiptError::NotPaid { status, paid } => DomainMessage::ReceiptNotPaid.fill(
                lang,
                &[("status", &status.as_str()), ("paid", &format_plain(*paid))],
            ),
            ReceiptError::NoAmount => ShareError::NoAmount.message(lang),
        }
    }
}

fn format_plain(d: Decimal) -> String {
    d.normalize().to_string()
}

/// Whether `link` is paid in full: `COMPLETED`, with its amount known and the amount paid at
/// least that (a server that says `COMPLETED` but sends no paid amount is taken at its word).
pub fn paid_in_full(link: &Link) -> bool {
    link.status == LinkStatus::Completed
        && link.amount.is_some()
        && link.paid.is_none_or(|p| Some(p) >= link.amount)
}

impl ReceiptFacts {
    /// The facts of `link` as this desk read it, with its cart lines; `heard_at` stands for the
    /// payment time when the server sent no completion time.
    pub fn of_link(
        shop_name: &str,
        link: &Link,
        items: Vec<ItemLine>,
        heard_at: DateTime<Utc>,
    ) -> Result<ReceiptFacts, ReceiptError> {
        if !paid_in_full(link) {
            return Err(ReceiptError::NotPaid {
                status: link.status.clone(),
                paid: link.paid_so_far(),
            });
        }
        let total = link.amount.ok_or(ReceiptError::NoAmount)?;
        let nonempty = |t: &Option<String>| t.clone().filter(|t| !t.trim().is_empty());
        Ok(ReceiptFacts {
            shop_name: shop_name.trim().to_owned(),
            paid_at: link.completed.unwrap_or(heard_at),
            currency: link.currency,
            items,
            description: nonempty(&link.description),
            total,
            paid: link.paid.unwrap_or(total),
            order_number: nonempty(&link.order_number),
            transaction_ref: nonempty(&link.transaction_ref),
        })
    }
}

/// A receipt in one language, every text formatted: what the e-mail and the PDF show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// The language.
    pub lang: Lang,
    /// The shop's name (cleaned; may be empty).
    pub shop: String,
    /// "Receipt".
    pub title: String,
    /// The subject: the shop and the amount paid.
    pub subject: String,
    /// "Kuzey Giyim has received your payment."
    pub intro: String,
    /// Each item: `2 × Filtre kahve` and its line total (empty when unknown); else the
    /// description as one line with no amount.
    pub lines: Vec<(String, String)>,
    /// Total, Paid: label and amount.
    pub totals: Vec<(String, String)>,
    /// Paid at, Order number, Transaction reference: label and value.
    pub details: Vec<(String, String)>,
    /// The file name of its PDF (`receipt-PKT-9.pdf`, `makbuz-PKT-9.pdf`).
    pub file_name: String,
}

impl Receipt {
    /// The receipt of `facts` in `lang`, times shown in `zone`.
    pub fn new(facts: &ReceiptFacts, lang: Lang, zone: Zone) -> Receipt {
        let clean = |t: &str| server_text::clean(t).trim().to_owned();
        let shop = clean(&facts.shop_name);
        let money = |d: Decimal| format_amount(d, facts.currency, lang);
        let paid = money(facts.paid);
        let fill = |m: DomainMessage| m.fill(lang, &[("shop", &shop), ("amount", &paid)]);
        let lines = if facts.items.is_empty() {
            facts
                .description
                .iter()
                .map(|d| (clean(d), String::new()))
                .collect()
        } else {
            facts
                .items
                .iter()
                .map(|l| {
                    (
                        format!("{} × {}", l.quantity, clean(&l.name)),
                        l.line_total.map(money).unwrap_or_default(),
                    )
                })
                .collect()
        };
        let label = |m: DomainMessage| m.get(lang).to_owned();
        let totals = vec![
            (label(DomainMessage::ReceiptTotal), money(facts.total)),
            (label(DomainMessage::ReceiptPaid), paid.clone()),
        ];
        let mut details = vec![(
            label(DomainMessage::ReceiptPaidAt),
            local_time(facts.paid_at, zone),
        )];
        if let Some(order) = &facts.order_number {
            details.push((label(DomainMessage::FieldOrderNumber), clean(order)));
        }
        if let Some(tx) = &facts.transaction_ref {
            details.push((label(DomainMessage::ReceiptTransaction), clean(tx)));
        }
        let order_part: String = facts
            .order_number
            .as_deref()
            .map(clean)
            .unwrap_or_default()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            .collect();
        let stem = match lang {
            Lang::Tr => "makbuz",
            Lang::En => "receipt",
        };
        let file_name = if order_part.is_empty() {
            format!("{stem}.pdf")
        } else {
            format!("{stem}-{order_part}.pdf")
        };
        Receipt {
            lang,
            title: label(DomainMessage::ReceiptTitle),
            subject: fill(DomainMessage::ReceiptSubject),
            intro: fill(DomainMessage::ReceiptIntro),
            shop,
            lines,
            totals,
            details,
            file_name,
        }
    }

    /// The e-mail: the subject, a plain text and an HTML body of the same lines.
    pub fn message(&self) -> LinkMessage {
        let greeting = DomainMessage::ShareGreeting.get(self.lang);
        let attached = DomainMessage::ReceiptAttached.get(self.lang);
        let items_label = DomainMessage::ShareItems.get(self.lang);
        let mut text = format!("{greeting}\n\n{}\n\n{}\n", self.intro, self.title);
        let _ = writeln!(text, "\n{items_label}:");
        for (what, amount) in &self.lines {
            if amount.is_empty() {
                let _ = writeln!(text, "- {what}");
            } else {
                let _ = writeln!(text, "- {what}: {amount}");
            }
        }
        text.push('\n');
        for (label, value) in self.totals.iter().chain(&self.details) {
            let _ = writeln!(text, "{label}: {value}");
        }
        let _ = write!(text, "\n{attached}\n");

        let e = escape_html;
        let mut html = format!(
            "<!DOCTYPE html>\n<html lang=\"{}\">\n<head><meta charset=\"utf-8\"><title>{}</title></head>\n<body>\n<p>{}</p>\n<p>{}</p>\n<h2>{}</h2>\n<p>{}:</p>\n<table>\n",
            match self.lang {
                Lang::Tr => "tr",
                Lang::En => "en",
            },
            e(&self.subject),
            e(greeting),
            e(&self.intro),
            e(&self.title),
            e(items_label),
        );
        for (what, amount) in &self.lines {
            let _ = writeln!(
                html,
                "<tr><td>{}</td><td style=\"text-align:right\">{}</td></tr>",
                e(what),
                e(amount)
            );
        }
        for (label, value) in &self.totals {
            let _ = writeln!(
                html,
                "<tr><th style=\"text-align:left\">{}</th><td style=\"text-align:right\"><strong>{}</strong></td></tr>",
                e(label),
                e(value)
            );
        }
        html.push_str("</table>\n<p>");
        for (i, (label, value)) in self.details.iter().enumerate() {
            if i > 0 {
                html.push_str("<br>\n");
            }
            let _ = write!(html, "{}: <strong>{}</strong>", e(label), e(value));
        }
        let _ = write!(html, "</p>\n<p>{}</p>\n</body>\n</html>\n", e(attached));
        LinkMessage {
            subject: self.subject.clone(),
            text,
            html,
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn link(json: serde_json::Value) -> Link {
        Link::from(serde_json::from_value::<crate::api::wire::PaymentLink>(json).unwrap())
    }

    fn paid() -> Link {
        link(serde_json::json!({
            "id": "lnk_1", "status": "COMPLETED", "amount": 250, "paidAmount": 250,
            "currency": "TRY", "orderNumber": "PKT-9", "transactionRef": "TX-77",
            "completedDate": "2026-11-23T15:30:00Z", "description": "Pasta"
        }))
    }

    #[test]
    fn only_a_link_paid_in_full_gets_a_receipt() {
        let now = Utc.with_ymd_and_hms(2026, 11, 23, 16, 0, 0).unwrap();
        assert!(ReceiptFacts::of_link("Kuzey", &paid(), vec![], now).is_ok());
        let partly = link(serde_json::json!({
            "id": "lnk_1", "status": "PENDING", "amount": 250, "paidAmount": 100
        }));
        let e = ReceiptFacts::of_link("Kuzey", &partly, vec![], now).unwrap_err();
        assert!(e.message(Lang::En).contains("PENDING"), "{e}");
        assert!(e.message(Lang::En).contains("100"), "{e}");
        assert!(e.message(Lang::Tr).contains("tamamen ödenmedi"), "{e}");
        let short = link(serde_json::json!({
            "id": "lnk_1", "status": "COMPLETED", "amount": 250, "paidAmount": 249.99
        }));
        assert!(!paid_in_full(&short));
    }

    #[test]
    fn the_receipt_names_items_totals_order_and_transaction_in_both_languages() {
        let now = Utc.with_ymd_and_hms(2026, 11, 23, 16, 0, 0).unwrap();
        let items = vec![
            ItemLine {
                name: "Filtre kahve".into(),
                quantity: 2,
                line_total: Some(Decimal::new(15_000, 2)),
            },
            ItemLine {
                name: "Kurabiye <b>".into(),
                quantity: 1,
                line_total: Some(Decimal::new(10_000, 2)),
            },
        ];
        let facts = ReceiptFacts::of_link("Kuzey Giyim", &paid(), items, now).unwrap();
        let r = Receipt::new(&facts, Lang::Tr, Zone::hours(3));
        let m = r.message();
        assert_eq!(
            m.subject,
            "Kuzey Giyim: 250,00 ₺ tutarındaki ödemenizin makbuzu"
        );
        assert!(
            m.text.contains("- 2 × Filtre kahve: 150,00 ₺\n"),
            "{}",
            m.text
        );
        assert!(m.text.contains("Toplam: 250,00 ₺\n"), "{}", m.text);
        assert!(m.text.contains("Ödenen: 250,00 ₺\n"), "{}", m.text);
        assert!(
            m.text
                .contains("Ödeme zamanı: 2026-11-23 18:30 (UTC+03:00)")
        );
        assert!(m.text.contains("Sipariş no: PKT-9") || m.text.contains("PKT-9"));
        assert!(m.text.contains("İşlem referansı: TX-77"), "{}", m.text);
        assert!(m.html.contains("Kurabiye &lt;b&gt;"), "{}", m.html);
        assert_eq!(r.file_name, "makbuz-PKT-9.pdf");
        let en = Receipt::new(&facts, Lang::En, Zone::hours(0)).message();
        assert!(
            en.text.contains("Transaction reference: TX-77"),
            "{}",
            en.text
        );
        assert!(en.text.contains("Paid at: 2026-11-23 15:30 (UTC+00:00)"));
        // Without items, the description.
        let bare = ReceiptFacts::of_link("Kuzey", &paid(), vec![], now).unwrap();
        let r = Receipt::new(&bare, Lang::En, Zone::hours(0));
        assert_eq!(r.lines, [("Pasta".to_owned(), String::new())]);
    }
}
