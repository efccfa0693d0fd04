//! Sending to customers not at the counter (issue 30, docs/design.md §"Sent, reminded,
//! renewed"): the desk's settings for it and the one reminder each link gets.
//!
//! - [`SendingSettings`] (`meta` key `sending`, JSON): the country code a number typed
//!   without one is read with (default 90) and how long before a link's expiry its reminder is
//!   due (default 2 hours; off, or 30 minutes to 24 hours). Changed by a manager, audited as
//!   `mail.settings`.
//! - The `reminders` table (schema step 17): one row per link reminded, by which channel,
//!   when and by whom, written in the transaction that queues the reminder's e-mail or records
//!   its WhatsApp send (`store::mail`), so a link is reminded at most once from this file.

use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{OptionalExtension as _, params};
use serde::{Deserialize, Serialize};

use super::repo::{Write, repository};
use super::{Store, StoreError, to_millis};
use crate::domain::phone::DEFAULT_COUNTRY_CODE;
use crate::domain::share::SendChannel;

/// The `meta` key of the settings.
const KEY: &str = "sending";

/// The default time before the expiry a reminder is due: 2 hours.
pub const DEFAULT_REMIND_BEFORE_MIN: u32 = 120;

/// The shortest time before the expiry a reminder may be set to: 30 minutes.
pub const REMIND_BEFORE_MIN: u32 = 30;

/// The longest: 24 hours.
pub const REMIND_BEFORE_MAX: u32 = 24 * 60;

/// How this desk sends to customers not at the counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendingSettings {
    /// The country code a number typed without one is read with.
    pub country_code: u16,
    /// Minutes before the expiry a sent, unpaid link's reminder is due (`None`: no reminders).
    pub remind_before_min: Option<u32>,
}

impl Default for SendingSettings {
    fn default() -> Self {
        SendingSettings {
            country_code: DEFAULT_COUNTRY_CODE,
            remind_before_min: Some(DEFAULT_REMIND_BEFORE_MIN),
        }
    }
}

impl SendingSettings {
    /// How long before its expiry a link's reminder is due; `None`: reminders are off.
    pub fn remind_before(&self) -> Option<Duration> {
        self.remind_before_min
            .map(|m| Duration::minutes(i64::from(m)))
    }

    /// Whether the settings are within their bounds: a country code of 1 to 3 digits, a
    /// reminder from 30 minutes to 24 hours before the expiry.
    pub fn is_valid(&self) -> bool {
        (1..=999).contains(&self.country_code)
            && self
                .remind_before_min
                .is_none_or(|m| (REMIND_BEFORE_MIN..=REMIND_BEFORE_MAX).contains(&m))
    }

    /// When the reminder of a link that expires at `expiry` is due (`None`: reminders are off,
    /// or the link never expires, which gets no automatic reminder).
    pub fn due_at(&self, expiry: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
        Some(expiry? - self.remind_before()?)
    }
}

repository!(
    /// The reminders sent.
    Reminders
);

impl<A> Reminders<'_, A> {
    /// Whether link `link_id` was reminded from this file.
    pub fn reminded(&self, link_id: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM reminders WHERE link_id = ?1",
                [link_id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// The links reminded from this file since `since`.
    pub fn reminded_since(&self, since: DateTime<Utc>) -> Result<HashSet<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT link_id FROM reminders WHERE at >= ?1")?;
        let ids = stmt
            .query_map([to_millis(since)], |r| r.get(0))?
            .collect::<Result<HashSet<String>, _>>()?;
        Ok(ids)
    }

    /// The settings kept (the defaults until a manager changes them).
    pub fn settings(&self) -> Result<SendingSettings, StoreError> {
        let json: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [KEY], |r| r.get(0))
            .optional()?;
        json.map_or(Ok(SendingSettings::default()), |j| {
            serde_json::from_str(&j).map_err(|_| StoreError::Corrupt {
                what: "sending settings",
                value: j,
            })
        })
    }
}

impl Reminders<'_, Write> {
    /// Records the reminder of `link_id` by `channel`; `false` when it was reminded already
    /// (nothing written).
    pub(super) fn record(
        &self,
        link_id: &str,
        channel: SendChannel,
        staff: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Ok(self.conn.execute(
            "INSERT INTO reminders (link_id, channel, at, staff) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (link_id) DO NOTHING",
            params![link_id, channel.as_str(), to_millis(now), staff],
        )? > 0)
    }
}

impl Store {
    /// The reminders' reads and the sending settings.
    pub fn reminders(&self) -> Reminders<'_> {
        Reminders::read(&self.conn)
    }

    /// Keeps the sending settings and appends their audit row (`mail.settings`, `sending
    /// country 90 remind 120`) in one transaction.
    pub fn set_sending_settings(
        &mut self,
        settings: SendingSettings,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let subject = format!(
            "sending country {} remind {}",
            settings.country_code,
            settings
                .remind_before_min
                .map_or_else(|| "off".to_owned(), |m| m.to_string())
        );
        self.set_mail_setting((KEY, "sending settings"), &settings, &subject, now)
    }
}
