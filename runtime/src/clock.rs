//! The wall clock, in the unit Strapi stores instants in: milliseconds since the Unix
//! epoch. One home, so that token expiry, JWT times and the timestamps strata writes
//! agree.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, now (0 if the system clock is before 1970).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
