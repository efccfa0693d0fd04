//! Reminders (issue 30, docs/design.md §"Sent, reminded, renewed"): a link sent to its payer
//! and not paid gets one reminder before it expires. By e-mail, on its own, when its time
//! comes ([`SendingSettings::due_at`]: by default 2 hours before the expiry), from the mail
//! queue's pass; by WhatsApp, which cannot be sent unattended, the board's "Remind" button lights
//! up at that time ([`remind_due`]). One reminder per link: in this desk's file (`reminders`)
//! and, on a joined desk, across the shop (`paydesk_claim_mail`, kind `reminder`).

use chrono::{DateTime, Duration, Utc};

use super::{Desk, DeskError, Services};
use crate::domain::email::EmailAddress;
use crate::domain::share::{self, LinkFacts, SendChannel, SendMark};
use crate::domain::{Actor, Link, LinkStatus};
use crate::lang::Lang;
use crate::store::{QueuedMail, SendingSettings};

/// How far back the reminder pass looks for e-mail sends: a link sent longer ago than this
/// and still open is past any reminder time a desk can set for it in practice.
pub const REMINDER_LOOKBACK: Duration = Duration::days(30);

/// Whether link `link` (its last send `last`) is due its reminder at `now` under `settings`,
/// given whether it was `reminded`: sent, still open, nothing paid, not reminded, and either
/// its time has come (and it has not expired) or, for a link without an expiry (no automatic
/// reminder), always, for a clerk to remind by hand. A link last sent at or after its
/// reminder time gets none: the payer has just had it.
pub fn remind_due(
    link: &Link,
    last: Option<&SendMark>,
    reminded: bool,
    settings: &SendingSettings,
    now: DateTime<Utc>,
) -> bool {
    let open = link.status == LinkStatus::Pending && link.paid_so_far().is_zero();
    if last.is_none() || reminded || !open || settings.remind_before().is_none() {
        return false;
    }
    let sent_at = last.map(|m| m.at);
    match link.expiry {
        None => true,
        Some(expiry) => {
            expiry > now
                && settings
                    .due_at(Some(expiry))
                    .is_some_and(|due| due <= now && sent_at.is_some_and(|at| at < due))
        }
    }
}

impl Services {
    /// The sending settings of this desk (the defaults until a manager changes them).
    pub fn sending_settings(&self) -> Result<SendingSettings, DeskError> {
        self.with_store_locked(|s| s.reminders().settings())
    }

    /// Keeps the sending settings (audited as `mail.settings`); settings out of their bounds
    /// are refused with [`DeskError::BadSendingSettings`] naming them.
    pub fn set_sending_settings(
        &self,
        actor: &Actor,
        settings: SendingSettings,
    ) -> Result<(), DeskError> {
        if !settings.is_valid() {
            return Err(DeskError::BadSendingSettings);
        }
        let now = self.clock().now();
        self.with_store_locked(|s| {
            s.as_actor(actor, now, |s| s.set_sending_settings(settings, now))
        })
    }

    /// Records the reminder of link `link_id` sent by WhatsApp to `phone` (audit row and
    /// `reminders` row); `false` when it was reminded already.
    pub fn record_whatsapp_reminder(
        &self,
        actor: &Actor,
        link_id: &str,
        phone: &crate::domain::phone::Phone,
    ) -> Result<bool, DeskError> {
        let now = self.clock().now();
        self.with_store_locked(|s| {
            s.as_actor(actor, now, |s| {
                s.record_whatsapp_reminder(link_id, phone, now)
            })
        })
    }
}

impl Desk {
    /// The links reminded from this desk's file since `since`.
    pub fn reminded_since(
        &self,
        since: DateTime<Utc>,
    ) -> Result<std::collections::HashSet<String>, DeskError> {
        self.with_store(|s| s.reminders().reminded_since(since))
    }

    /// The links whose e-mail waits in this desk's queue or was refused for good, by id.
    pub fn mail_states(
        &self,
    ) -> Result<std::collections::HashMap<String, share::MailState>, DeskError> {
        let rows = self.with_store(|s| s.mail_queue().link_states())?;
        Ok(rows
            .into_iter()
            .map(|(link, refused)| {
                let state = if refused {
                    share::MailState::Refused
                } else {
                    share::MailState::Waiting
                };
                (link, state)
            })
            .collect())
    }

    /// The sending settings of this desk's file.
    pub fn sending_settings(&self) -> Result<SendingSettings, DeskError> {
        self.with_store(|s| s.reminders().settings())
    }

    /// The links of this desk's history due their e-mail reminder at `now`: last sent by
    /// e-mail, open, nothing paid, not reminded, their time come; each with the address its
    /// message went to (the queue keeps it a week after sending), else its payer e-mail.
    pub fn email_reminders_due(
        &self,
        settings: &SendingSettings,
    ) -> Result<Vec<(Link, EmailAddress)>, DeskError> {
        let now = self.now();
        let sends = self.sends_since(now - REMINDER_LOOKBACK)?;
        let mut last: std::collections::HashMap<String, SendMark> =
            std::collections::HashMap::new();
        for mark in sends {
            last.insert(mark.link_id.clone(), mark);
        }
        let mut due = Vec::new();
        for (id, mark) in last {
            if mark.channel != SendChannel::Email || id.is_empty() {
                continue;
            }
            let Ok(stored) = self.history_entry(&id) else {
                continue;
            };
            let reminded = self.with_store(|s| s.reminders().reminded(&id))?;
            // A link without an expiry gets no automatic reminder.
            if stored.link.expiry.is_none()
                || stored.cancelled_at.is_some()
                || !remind_due(&stored.link, Some(&mark), reminded, settings, now)
            {
                continue;
            }
            let address = self
                .with_store(|s| s.mail_queue().last_address(&id))?
                .or_else(|| stored.link.email.clone());
            if let Some(to) = address.and_then(|a| EmailAddress::parse(&a).ok()) {
                due.push((stored.link, to));
            }
        }
        Ok(due)
    }

    /// Queues the reminder of `link` to `to` from `from`, in `lang`, with its QR inline;
    /// `None` when it was reminded already.
    pub fn queue_reminder(
        &self,
        services: &Services,
        (link, to): (&Link, &EmailAddress),
        from: &EmailAddress,
        (shop_name, lang): (&str, Lang),
        zone: crate::clock::Zone,
    ) -> Result<Option<QueuedMail>, DeskError> {
        let items = self.link_item_lines(&link.id)?;
        let facts = match LinkFacts::of_link(shop_name, link, items) {
            Ok(facts) => facts,
            Err(e) => {
                // Nothing to send (no payment address, no amount): said once, here.
                tracing::warn!(link = %link.id, error = ?e, "no reminder for this link");
                return Ok(None);
            }
        };
        let message = share::compose_reminder(&facts, lang, zone);
        let url = link.payment_url.clone().unwrap_or_default();
        services.queue_reminder_mail(self.actor(), (&link.id, &url), to, from, &message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(json: serde_json::Value) -> Link {
        Link::from(serde_json::from_value::<crate::api::wire::PaymentLink>(json).unwrap())
    }

    #[test]
    fn a_sent_open_link_is_due_its_reminder_from_its_time_until_it_expires() {
        let now = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let settings = SendingSettings::default();
        let sent = SendMark {
            link_id: "l".into(),
            channel: SendChannel::WhatsApp,
            at: now - Duration::hours(3),
            by: None,
        };
        let mut open = link(serde_json::json!({"id": "l", "status": "PENDING", "amount": "10"}));
        open.expiry = Some(now + Duration::hours(3));
        assert!(
            !remind_due(&open, Some(&sent), false, &settings, now),
            "not yet"
        );
        open.expiry = Some(now + Duration::minutes(119));
        assert!(
            remind_due(&open, Some(&sent), false, &settings, now),
            "2 h before"
        );
        // A 30-minute link sent 10 minutes ago was sent inside its reminder time (due 90
        // minutes ago): the payer has just had it.
        let just_sent = SendMark {
            at: now - Duration::minutes(10),
            ..sent.clone()
        };
        let mut short = open.clone();
        short.expiry = Some(now + Duration::minutes(30));
        assert!(remind_due(&short, Some(&sent), false, &settings, now));
        assert!(!remind_due(&short, Some(&just_sent), false, &settings, now));
        assert!(
            !remind_due(&open, None, false, &settings, now),
            "never sent"
        );
        assert!(
            !remind_due(&open, Some(&sent), true, &settings, now),
            "reminded once"
        );
        let off = SendingSettings {
            remind_before_min: None,
            ..settings
        };
        assert!(
            !remind_due(&open, Some(&sent), false, &off, now),
            "reminders off"
        );
        open.expiry = Some(now - Duration::seconds(1));
        assert!(
            !remind_due(&open, Some(&sent), false, &settings, now),
            "expired"
        );
        open.expiry = None;
        assert!(
            remind_due(&open, Some(&sent), false, &settings, now),
            "no expiry: by hand"
        );
        let part_paid = link(
            serde_json::json!({"id": "l", "status": "PENDING", "amount": "10", "paidAmount": "4"}),
        );
        assert!(!remind_due(&part_paid, Some(&sent), false, &settings, now));
    }

    #[test]
    fn the_settings_hold_their_bounds() {
        let mut s = SendingSettings::default();
        assert!(s.is_valid());
        s.remind_before_min = Some(29);
        assert!(!s.is_valid());
        s.remind_before_min = Some(24 * 60 + 1);
        assert!(!s.is_valid());
        s.remind_before_min = None;
        assert!(s.is_valid());
        s.country_code = 0;
        assert!(!s.is_valid());
    }
}
