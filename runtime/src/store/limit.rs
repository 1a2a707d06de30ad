//! The time limit of the request running on this thread: once it has passed, the
//! request's answer is no longer awaited (the HTTP layer's `request_timeout` has answered
//! it), so its statements stop and give their connection back.
//!
//! It is a thread-local [`Instant`], set by [`within`] around a request's work on a
//! blocking thread ([`crate::store::Store::within_limit`]). Every backend honours it:
//! * PostgreSQL and MySQL check it before each statement ([`check`]): a statement asked
//!   for past the limit fails [`StoreError::Interrupted`] without reaching the server,
//!   and a write rolls back. A statement already running is bounded by the server's own
//!   `statement_timeout` / `max_statement_time` (the pool's `statement_timeout`).
//! * SQLite also stops a running statement: its progress handler reads [`passed`].
//!
//! Invariant: the statements that end a transaction (`COMMIT`, `ROLLBACK`, a lock's
//! release) never look at the limit: an interrupted end would leave a write in doubt.

use std::cell::Cell;
use std::time::{Duration, Instant};

use super::StoreError;

thread_local! {
    static LIMIT: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `f` with its statements on this thread bounded by `limit` from now (the sooner of
/// it and a limit already set), and puts the limit before back after, also when `f`
/// panics.
pub fn within<T>(limit: Duration, f: impl FnOnce() -> T) -> T {
    let before = LIMIT.with(Cell::get);
    let now = Instant::now().checked_add(limit);
    let sooner = match (before, now) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    set_while(sooner, f)
}

/// Runs `f` with no limit on this thread (the end of a transaction), and puts the limit
/// before back after.
pub fn lifted<T>(f: impl FnOnce() -> T) -> T {
    set_while(None, f)
}

fn set_while<T>(limit: Option<Instant>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Instant>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LIMIT.with(|l| l.replace(limit)));
    f()
}

/// Whether this thread's limit has passed.
pub fn passed() -> bool {
    LIMIT
        .with(Cell::get)
        .is_some_and(|limit| Instant::now() >= limit)
}

/// `Err(StoreError::Interrupted)` once this thread's limit has passed: called before a
/// statement is sent.
pub fn check() -> Result<(), StoreError> {
    if passed() {
        return Err(StoreError::Interrupted);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_passes_and_is_restored() {
        assert!(check().is_ok());
        within(Duration::ZERO, || {
            assert!(matches!(check(), Err(StoreError::Interrupted)));
            lifted(|| assert!(check().is_ok()));
            assert!(passed());
            // A longer limit inside keeps the sooner one.
            within(Duration::from_secs(60), || assert!(passed()));
        });
        assert!(!passed());
        within(Duration::from_secs(60), || assert!(check().is_ok()));
    }
}
