//! The wording of a "paid" alert's desktop notification, apart from the board's drawing.

use crate::board::{Alert, AlertKind};
use crate::domain::format_amount;
use crate::lang::Lang;
use crate::notify::{Notice, SOUND_PAID, SOUND_PARTIAL};
use crate::ui::text::UiText;

/// The desktop notification of an alert, in `lang`; `sound` adds the sound-theme name.
pub fn notice_for(alert: &Alert, lang: Lang, sound: bool) -> Notice {
    let amount = |a| format_amount(a, alert.currency, lang);
    let order = alert
        .order_number
        .clone()
        .unwrap_or_else(|| alert.id.clone());
    match alert.kind {
        AlertKind::Paid => Notice {
            summary: format!(
                "{} {}",
                UiText::AlertPaid.get(lang),
                amount(alert.amount.unwrap_or(alert.received))
            ),
            body: format!("{} {order}", UiText::AlertOrder.get(lang)),
            sound: sound.then_some(SOUND_PAID),
        },
        AlertKind::Partial => {
            let mut body = format!("{} {order}", UiText::AlertOrder.get(lang));
            if let Some(rest) = alert.remaining {
                body = format!("{body} · {}: {}", UiText::Remaining.get(lang), amount(rest));
            }
            Notice {
                summary: format!(
                    "{} {}",
                    UiText::AlertPartial.get(lang),
                    amount(alert.received)
                ),
                body,
                sound: sound.then_some(SOUND_PARTIAL),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use rust_decimal::Decimal;

    use super::*;
    use crate::domain::Currency;

    fn alert(kind: AlertKind) -> Alert {
        Alert {
            kind,
            id: "lnk_1".into(),
            order_number: Some("PD-20261122-A1B20007".into()),
            currency: Currency::Try,
            amount: Some(Decimal::from_str("150.00").unwrap()),
            received: Decimal::from_str("50.00").unwrap(),
            remaining: Some(Decimal::from_str("100.00").unwrap()),
        }
    }

    #[test]
    fn notices_carry_the_amount_and_the_order_in_both_languages() {
        let n = notice_for(&alert(AlertKind::Paid), Lang::En, false);
        assert_eq!(n.summary, "Paid: ₺150.00");
        assert_eq!(n.body, "Order PD-20261122-A1B20007");
        assert_eq!(n.sound, None);
        let n = notice_for(&alert(AlertKind::Paid), Lang::Tr, true);
        assert_eq!(n.summary, "Ödendi: 150,00 ₺");
        assert_eq!(n.body, "Sipariş PD-20261122-A1B20007");
        assert_eq!(n.sound, Some("complete"));
        let n = notice_for(&alert(AlertKind::Partial), Lang::En, true);
        assert_eq!(n.summary, "Partial payment: ₺50.00");
        assert_eq!(n.body, "Order PD-20261122-A1B20007 · Remaining: ₺100.00");
        assert_eq!(n.sound, Some("message-new-instant"));
    }
}
