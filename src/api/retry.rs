//! When to try again after an unknown outcome: capped exponential backoff with jitter, and at
//! least the wait a 429 or 503 asked for in `Retry-After` (capped too). A pure function of the
//! attempt count, a jitter draw and that wait, so it is tested on its own and the caller owns
//! both the clock and the randomness.

use std::time::Duration;

/// A backoff schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// The delay after the first failed attempt (before jitter).
    pub base: Duration,
    /// No delay is longer than this (before jitter).
    pub cap: Duration,
    /// Attempts in all, the first one included; after that the request is left to the user.
    pub max_attempts: u32,
}

impl RetryPolicy {
    /// Link create: about 0.5 s, 1 s, 2 s, 4 s between five attempts, then the user decides.
    pub const LINK_CREATE: RetryPolicy = RetryPolicy {
        base: Duration::from_millis(500),
        cap: Duration::from_secs(4),
        max_attempts: 5,
    };

    /// Reads (installment list, link detail): three quick attempts.
    pub const READ: RetryPolicy = RetryPolicy {
        base: Duration::from_millis(250),
        cap: Duration::from_secs(1),
        max_attempts: 3,
    };

    /// The wait before the next attempt, after `attempts_made` attempts (≥ 1) that ended with
    /// an unknown outcome; `None` when no attempt is left.
    ///
    /// `jitter_permille` (0..=1000, drawn uniformly by the caller) spreads the delay over
    /// [d/2, d] ("equal jitter"): never zero, never above the capped exponential value, so
    /// counters that failed together do not retry together.
    pub fn delay(&self, attempts_made: u32, jitter_permille: u32) -> Option<Duration> {
        if attempts_made == 0 || attempts_made >= self.max_attempts {
            return None;
        }
        let factor = 1u32.checked_shl(attempts_made - 1).unwrap_or(u32::MAX);
        let full = self.base.saturating_mul(factor).min(self.cap);
        let half = full / 2;
        let spread = full
            .saturating_sub(half)
            .saturating_mul(jitter_permille.min(1000))
            / 1000;
        Some(half + spread)
    }

    /// [`RetryPolicy::delay`], made at least as long as the wait the server asked for
    /// (`Retry-After`), which is itself capped at [`RetryPolicy::cap`]: a server cannot park a
    /// counter for longer than the policy allows, and the attempt count still runs out.
    pub fn delay_after(
        &self,
        attempts_made: u32,
        jitter_permille: u32,
        asked: Option<Duration>,
    ) -> Option<Duration> {
        let backoff = self.delay(attempts_made, jitter_permille)?;
        Some(asked.map_or(backoff, |a| backoff.max(a.min(self.cap))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn link_create_backs_off_about_half_a_second_then_doubles_up_to_the_cap() {
        let p = RetryPolicy::LINK_CREATE;
        // Top of the jitter range: the plain exponential schedule.
        let top: Vec<_> = (1..5).map(|n| p.delay(n, 1000)).collect();
        assert_eq!(
            top,
            vec![
                Some(MS(500)),
                Some(MS(1000)),
                Some(MS(2000)),
                Some(MS(4000))
            ]
        );
        // Bottom of the range: half of it, never zero.
        let bottom: Vec<_> = (1..5).map(|n| p.delay(n, 0)).collect();
        assert_eq!(
            bottom,
            vec![Some(MS(250)), Some(MS(500)), Some(MS(1000)), Some(MS(2000))]
        );
        assert_eq!(p.delay(2, 500), Some(MS(750)));
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let p = RetryPolicy::LINK_CREATE;
        // Longer than the backoff: waited, up to the 4 s cap.
        assert_eq!(p.delay_after(1, 1000, Some(MS(3000))), Some(MS(3000)));
        assert_eq!(
            p.delay_after(1, 0, Some(Duration::from_hours(1))),
            Some(MS(4000))
        );
        // Shorter than the backoff (or zero): the backoff stands.
        assert_eq!(p.delay_after(3, 1000, Some(MS(100))), Some(MS(2000)));
        assert_eq!(p.delay_after(2, 0, Some(Duration::ZERO)), Some(MS(500)));
        // Not said: the backoff.
        assert_eq!(p.delay_after(2, 500, None), p.delay(2, 500));
        // No attempt left: no wait, whatever the server asked.
        assert_eq!(p.delay_after(5, 0, Some(MS(10))), None);
    }

    #[test]
    fn gives_up_after_the_last_attempt_and_never_exceeds_the_cap() {
        let p = RetryPolicy {
            base: MS(500),
            cap: MS(4000),
            max_attempts: 40,
        };
        assert_eq!(
            p.delay(0, 0),
            None,
            "no attempt made yet: nothing to wait for"
        );
        for n in 1..40 {
            let d = p.delay(n, 1000).unwrap();
            assert!(d <= MS(4000), "attempt {n}: {d:?}");
            assert!(p.delay(n, 0).unwrap() >= MS(250));
        }
        assert_eq!(p.delay(40, 1000), None);
        assert_eq!(
            RetryPolicy::LINK_CREATE.delay(5, 0),
            None,
            "five attempts in all"
        );
        assert_eq!(
            p.delay(3, 5000),
            p.delay(3, 1000),
            "jitter above 1000 is clamped"
        );
    }
}
