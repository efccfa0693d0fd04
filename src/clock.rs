//! Time as a dependency. Every rule that depends on "now" (expiry in the past, the signature's
//! timestamp, the 5-minute replay window, the 24-hour idempotency retention, stale journal
//! rows) takes a [`Clock`], so that tests move time instead of waiting for it.

use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{
    DateTime, Duration, FixedOffset, Local, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone,
    Utc,
};

/// A source of the current time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current instant, UTC.
    fn now(&self) -> DateTime<Utc>;

    /// The current instant as Unix milliseconds (the `X-Timestamp` format).
    fn now_millis(&self) -> i64 {
        self.now().timestamp_millis()
    }
}

/// The real wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands still until a test moves it. Shared between threads.
#[derive(Debug)]
pub struct ManualClock {
    millis: AtomicI64,
}

impl ManualClock {
    /// A clock showing `at`.
    pub fn new(at: DateTime<Utc>) -> Self {
        Self {
            millis: AtomicI64::new(at.timestamp_millis()),
        }
    }

    /// Moves the clock forward (or back, with a negative duration).
    pub fn advance(&self, by: Duration) {
        self.millis
            .fetch_add(by.num_milliseconds(), Ordering::SeqCst);
    }

    /// Sets the clock to `at`.
    pub fn set(&self, at: DateTime<Utc>) {
        self.millis.store(at.timestamp_millis(), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.millis.load(Ordering::SeqCst)).unwrap_or_default()
    }
}

/// The time zone local days and hours are read in: the machine's own, or a fixed offset (tests,
/// and a report asked for in another zone). Like the clock, it is passed in, never looked up
/// deep inside, so a test of "today's report" does not depend on the machine it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Zone {
    /// The machine's time zone (`TZ`, else the system setting), daylight saving included.
    #[default]
    Local,
    /// A fixed offset from UTC.
    Fixed(FixedOffset),
}

impl Zone {
    /// A fixed offset of `hours` east of UTC (`Zone::hours(3)` is Türkiye).
    pub fn hours(hours: i32) -> Self {
        Zone::Fixed(FixedOffset::east_opt(hours * 3600).unwrap_or_else(|| Utc.fix()))
    }

    /// The offset in force at `at`.
    pub fn offset_at(self, at: DateTime<Utc>) -> FixedOffset {
        match self {
            Zone::Local => *at.with_timezone(&Local).offset(),
            Zone::Fixed(offset) => offset,
        }
    }

    /// `at` as a local time.
    pub fn local(self, at: DateTime<Utc>) -> DateTime<FixedOffset> {
        at.with_timezone(&self.offset_at(at))
    }

    /// The local date of `at`.
    pub fn date_of(self, at: DateTime<Utc>) -> NaiveDate {
        self.local(at).date_naive()
    }

    /// The instant a local date and time names (the earlier one where a daylight-saving change
    /// repeats it); `None` where the change skips it.
    pub fn instant_of(self, local: NaiveDateTime) -> Option<DateTime<Utc>> {
        match self {
            Zone::Fixed(offset) => offset.from_local_datetime(&local).earliest(),
            Zone::Local => Local
                .from_local_datetime(&local)
                .earliest()
                .map(|t| t.fixed_offset()),
        }
        .map(|t| t.with_timezone(&Utc))
    }

    /// The first instant of local day `day`. Where a daylight-saving change skips midnight, the
    /// day starts at the first local time that exists; where it repeats it, at the earlier.
    pub fn start_of(self, day: NaiveDate) -> DateTime<Utc> {
        let midnight = day.and_time(NaiveTime::MIN);
        match self {
            Zone::Fixed(offset) => first_instant(&offset, midnight),
            Zone::Local => first_instant(&Local, midnight),
        }
    }
}

fn first_instant<Tz: TimeZone>(tz: &Tz, midnight: NaiveDateTime) -> DateTime<Utc> {
    // A skipped midnight is followed by a time that exists within a few hours at most.
    (0..=24 * 4)
        .map(|quarter| midnight + Duration::minutes(15 * quarter))
        .find_map(|t| tz.from_local_datetime(&t).earliest())
        .map_or_else(|| midnight.and_utc(), |t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told() {
        let start = DateTime::from_timestamp(1_795_435_200, 0).unwrap();
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(Duration::minutes(5));
        assert_eq!(clock.now(), start + Duration::minutes(5));
        assert_eq!(clock.now_millis(), 1_795_435_500_000);
    }

    #[test]
    fn a_fixed_zone_gives_local_days_and_their_first_instant() {
        let istanbul = Zone::hours(3);
        // 22:30 UTC on 21 November is 01:30 on 22 November in Istanbul.
        let at = DateTime::parse_from_rfc3339("2026-11-21T22:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            istanbul.date_of(at),
            NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
        );
        assert_eq!(istanbul.local(at).to_rfc3339(), "2026-11-22T01:30:00+03:00");
        let start = istanbul.start_of(NaiveDate::from_ymd_opt(2026, 11, 22).unwrap());
        assert_eq!(start.to_rfc3339(), "2026-11-21T21:00:00+00:00");
        assert_eq!(Zone::hours(0).offset_at(at), Utc.fix());
    }
}
