//! The retry policy of the tests: the link-create policy's shape in milliseconds instead of
//! seconds, so a test that exhausts its retries still runs in a blink.

use std::time::Duration;

use paydesk::api::retry::RetryPolicy;

/// Eight attempts, 2 ms doubling to at most 20 ms.
pub const FAST_POLICY: RetryPolicy = RetryPolicy {
    base: Duration::from_millis(2),
    cap: Duration::from_millis(20),
    max_attempts: 8,
};
