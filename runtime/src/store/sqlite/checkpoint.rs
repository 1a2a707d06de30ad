//! WAL checkpoints off the request path: a [`Checkpointer`] thread, with a connection of
//! its own, copies the write-ahead log back into the database file when the log has grown
//! past [`PAGES_BEFORE_CHECKPOINT`] pages.
//!
//! SQLite's default runs that checkpoint inside the `COMMIT` that crossed the threshold
//! (its auto-checkpoint is a WAL hook of the committing connection). The checkpoint copies
//! about a thousand pages and syncs the log and the file twice, so every seventieth write
//! or so answered milliseconds late, and a group's writes all waited for it. Here the
//! pool's connections get a WAL hook of strata's instead (which replaces SQLite's): it
//! only asks this thread to checkpoint, and the commit returns at once.
//!
//! The checkpoint is SQLite's own, `PASSIVE`, as the auto-checkpoint's is: it copies what
//! no reader still needs, never waits for a lock and never blocks a writer. So what is on
//! disk and what a crash can lose are unchanged (a commit is in the log either way), and
//! the log is kept to the same size as before, give or take the commits made while a
//! checkpoint runs.

use std::ffi::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

use rusqlite::Connection;

use crate::store::StoreError;

/// The log size, in pages, past which a commit asks for a checkpoint: SQLite's default
/// auto-checkpoint threshold.
const PAGES_BEFORE_CHECKPOINT: c_int = 1000;

/// The thread that checkpoints, and the way to ask it to.
pub(super) struct Checkpointer {
    asked: Arc<Asked>,
    thread: Option<JoinHandle<()>>,
}

/// What the pool's commits tell the thread.
#[derive(Default)]
struct Asked {
    state: Mutex<State>,
    wake: Condvar,
    /// Checkpoints the thread has run.
    checkpoints: AtomicU64,
}

#[derive(Default)]
struct State {
    /// A commit left the log past the threshold since the last checkpoint ended.
    checkpoint: bool,
    /// The pool is gone: the thread ends.
    stop: bool,
}

impl Asked {
    fn set(&self, change: impl FnOnce(&mut State)) {
        change(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner));
        self.wake.notify_one();
    }

    /// Waits until a checkpoint is asked for (`true`) or the pool is gone (`false`).
    fn next(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if state.stop {
                return false;
            }
            if std::mem::take(&mut state.checkpoint) {
                return true;
            }
            state = self
                .wake
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Checkpointer {
    /// Starts the thread, which checkpoints on `conn` (a connection of its own to the
    /// pool's database file).
    pub(super) fn start(conn: Connection) -> Result<Checkpointer, StoreError> {
        let asked = Arc::new(Asked::default());
        let theirs = Arc::clone(&asked);
        let thread = std::thread::Builder::new()
            .name("strata-checkpoint".into())
            .spawn(move || {
                while theirs.next() {
                    if checkpoint(&conn) {
                        theirs.checkpoints.fetch_add(1, Ordering::Relaxed);
                    }
                    // What commits asked while it ran is dropped: if the log is still
                    // past the threshold, the next commit asks again.
                    theirs.set(|s| s.checkpoint = false);
                }
            })
            .map_err(|e| StoreError::Other(format!("cannot start the checkpoint thread: {e}")))?;
        Ok(Checkpointer {
            asked,
            thread: Some(thread),
        })
    }

    /// Makes `conn`'s commits ask this checkpointer for a checkpoint instead of running
    /// SQLite's auto-checkpoint themselves.
    pub(super) fn watch(&self, conn: &mut Connection) -> Result<(), StoreError> {
        let asked = Arc::clone(&self.asked);
        conn.wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages: c_int| {
            if pages >= PAGES_BEFORE_CHECKPOINT {
                asked.set(|s| s.checkpoint = true);
            }
            Ok(())
        }))?;
        Ok(())
    }

    /// Checkpoints the thread has run so far.
    #[cfg(test)]
    fn checkpoints(&self) -> u64 {
        self.asked.checkpoints.load(Ordering::Relaxed)
    }
}

/// One passive checkpoint; whether it ran. A failure (the disk, another process holding
/// the checkpoint lock) only leaves the log longer; the next commit past the threshold
/// asks again.
fn checkpoint(conn: &Connection) -> bool {
    match conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get::<_, i64>(0)) {
        Ok(busy) => busy == 0,
        Err(e) => {
            tracing::warn!("SQLite checkpoint failed (the log stays longer until the next): {e}");
            false
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.asked.set(|s| s.stop = true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::time::{Duration, Instant};

    use super::*;
    use crate::store::DatabaseUrl;
    use crate::store::sqlite::open_connection;

    /// A new database file with a table `t (v)`, and a connection to it.
    fn database(name: &str) -> (DatabaseUrl, Connection, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("strata-ckpt-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let url = DatabaseUrl::sqlite(Some(dir.join("c.db")), false);
        let conn = open_connection(&url, true).unwrap();
        conn.execute_batch("CREATE TABLE t (v BLOB)").unwrap();
        (url, conn, dir)
    }

    /// `n` commits of about two pages each.
    fn commit_pages(conn: &Connection, n: usize) {
        let blob = vec![7u8; 6000];
        for _ in 0..n {
            conn.execute("INSERT INTO t VALUES (?1)", [&blob]).unwrap();
        }
    }

    /// The frames in the log, from a passive checkpoint's report.
    fn frames_in_log(conn: &Connection) -> i64 {
        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
            .unwrap()
    }

    /// A watched connection's commits never checkpoint themselves: with the thread gone,
    /// the log grows past three times SQLite's threshold (SQLite's own auto-checkpoint
    /// would have started it over at about a thousand frames).
    #[test]
    fn commits_leave_checkpoints_to_the_thread() {
        let (url, mut conn, dir) = database("commits");
        let checkpointer = Checkpointer::start(open_connection(&url, false).unwrap()).unwrap();
        checkpointer.watch(&mut conn).unwrap();
        drop(checkpointer);
        commit_pages(&conn, 1600);
        let frames = frames_in_log(&conn);
        assert!(frames > 3000, "{frames} frames");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Commits past the threshold wake the thread, which checkpoints the log on its own
    /// connection.
    #[test]
    fn the_thread_checkpoints_past_the_threshold() {
        let (url, mut conn, dir) = database("thread");
        let checkpointer = Checkpointer::start(open_connection(&url, false).unwrap()).unwrap();
        checkpointer.watch(&mut conn).unwrap();
        // A commit here appends two or three frames (the overflow page, the leaf, now and
        // then an interior page): 150 commits stay well below 1000 frames, 500 more
        // cross it.
        commit_pages(&conn, 150);
        assert_eq!(checkpointer.checkpoints(), 0, "below the threshold");
        commit_pages(&conn, 500);
        let start = Instant::now();
        while checkpointer.checkpoints() == 0 {
            assert!(start.elapsed() < Duration::from_secs(10), "no checkpoint");
            std::thread::sleep(Duration::from_millis(2));
        }
        drop(checkpointer);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
