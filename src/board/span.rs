//! Lengths of time as the board shows them (an age, a countdown) and when what is shown
//! next changes, so the app repaints then instead of every frame.

use chrono::{DateTime, TimeDelta, Utc};

/// A length of time in the units the board shows: seconds under a minute, minutes under an
/// hour, hours and minutes under a day, then days and hours. Always rounded down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// Under a minute.
    Seconds(i64),
    /// Under an hour.
    Minutes(i64),
    /// Under a day.
    HoursMinutes(i64, i64),
    /// A day or more.
    DaysHours(i64, i64),
}

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;

impl Span {
    /// The span of `ms` milliseconds (negative counts as 0).
    pub fn of_millis(ms: i64) -> Self {
        let ms = ms.max(0);
        match ms {
            m if m < MINUTE => Span::Seconds(m / 1000),
            m if m < HOUR => Span::Minutes(m / MINUTE),
            m if m < DAY => Span::HoursMinutes(m / HOUR, m % HOUR / MINUTE),
            m => Span::DaysHours(m / DAY, m % DAY / HOUR),
        }
    }
}

/// The smallest unit a span of `ms` is shown in.
fn unit_of(ms: i64) -> i64 {
    match ms {
        m if m < MINUTE => 1000,
        m if m < DAY => MINUTE,
        _ => HOUR,
    }
}

/// How long ago `since` was, as shown. Under a minute the board says "just now" rather than
/// counting seconds (a fresh link would otherwise redraw the board every second).
pub fn age(since: DateTime<Utc>, now: DateTime<Utc>) -> Span {
    Span::of_millis((now - since).num_milliseconds())
}

/// When the age shown for `since` next changes.
pub fn age_changes_at(since: DateTime<Utc>, now: DateTime<Utc>) -> DateTime<Utc> {
    let elapsed = (now - since).num_milliseconds().max(0);
    let unit = unit_of(elapsed).max(MINUTE);
    since + TimeDelta::milliseconds((elapsed / unit + 1) * unit)
}

/// The time left until `until`, as shown; `None` once it has passed.
pub fn countdown(until: DateTime<Utc>, now: DateTime<Utc>) -> Option<Span> {
    let left = (until - now).num_milliseconds();
    (left > 0).then(|| Span::of_millis(left))
}

/// When the countdown shown for `until` next changes (at `until` itself, it reads expired).
pub fn countdown_changes_at(until: DateTime<Utc>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let left = (until - now).num_milliseconds();
    if left <= 0 {
        return None;
    }
    let unit = unit_of(left);
    let shown = left / unit;
    // The shown figure drops as soon as less than `shown` whole units are left.
    Some(if shown == 0 {
        until
    } else {
        until - TimeDelta::milliseconds(shown * unit) + TimeDelta::milliseconds(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> DateTime<Utc> {
        DateTime::from_timestamp(1_795_435_200, 0).unwrap()
    }

    #[test]
    fn spans_round_down_and_say_when_they_change() {
        let cases = [
            (0, Span::Seconds(0)),
            (59_999, Span::Seconds(59)),
            (60_000, Span::Minutes(1)),
            (HOUR - 1, Span::Minutes(59)),
            (HOUR + 5 * MINUTE + 59_000, Span::HoursMinutes(1, 5)),
            (2 * DAY + 3 * HOUR + 1, Span::DaysHours(2, 3)),
            (-5, Span::Seconds(0)),
        ];
        for (ms, want) in cases {
            assert_eq!(Span::of_millis(ms), want, "{ms}");
        }
        let now = t0();
        // 14 min 30 s left: "14 min" until 14 min are left, then "13 min".
        let until = now + TimeDelta::seconds(14 * 60 + 30);
        let change = countdown_changes_at(until, now).unwrap();
        assert_eq!(
            countdown(until, change - TimeDelta::milliseconds(1)),
            Some(Span::Minutes(14))
        );
        assert_eq!(countdown(until, change), Some(Span::Minutes(13)));
        // 30 s left: it changes each second, and at `until` it has passed.
        let until = now + TimeDelta::seconds(30);
        let change = countdown_changes_at(until, now).unwrap();
        assert_eq!(countdown(until, change), Some(Span::Seconds(29)));
        let until = now + TimeDelta::milliseconds(500);
        assert_eq!(countdown_changes_at(until, now), Some(until));
        assert_eq!(countdown(until, until), None);
        // An age of 10 s next changes at 1 min; of 3 h 5 min at 3 h 6 min.
        assert_eq!(
            age_changes_at(now - TimeDelta::seconds(10), now),
            now + TimeDelta::seconds(50)
        );
        let since = now - TimeDelta::minutes(185);
        assert_eq!(age_changes_at(since, now), since + TimeDelta::minutes(186));
    }
}
