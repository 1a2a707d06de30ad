//! WAL checkpoints off the request path: a [`Checkpointer`] thread, with a connection of
//! its own, copies the write-ahead log back into the database file each time
//! [`PAGES_BEFORE_CHECKPOINT`] pages have been committed to it since the last copy.
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
//! disk and what a crash can lose are unchanged (a commit is in the log either way).
//!
//! **The log starts over.** SQLite writes the log from its start again only when a write
//! begins while every frame of it has been copied. The auto-checkpoint copies inside the
//! commit, so the next write finds it so. A checkpoint beside the writes never does:
//! under steady writes the next one begins before the copy ends, so the log only grew
//! (1 GB after a minute of one-field updates of the blog, every later commit asking for
//! a checkpoint that synced the files, and p99s of 400 ms; BENCHMARKS §0zq). So after the
//! passive copy of a log of [`RESTART_FROM`] frames or more, the thread takes the pool's
//! write turn ([`Writers::between_writes`]: no write of this process is under way or
//! starts meanwhile) and runs a `RESTART` checkpoint: it copies the few frames committed
//! since, waits briefly for readers still reading the log ([`RESTART_WAIT`]), and the
//! next write starts the log over. When it cannot (a long read, another process's
//! write), it is a passive checkpoint, and the next restart is tried once the log has
//! grown by another threshold, so that a long read does not hold this process's writes
//! at every commit. `journal_size_limit` ([`LOG_SIZE_LIMIT`]) cuts a log file that grew
//! back to that size when it starts over.
//!
//! **Restarts are rarer than copies.** The restart holds the writes while it syncs the
//! log and the file (a few milliseconds here), so it runs once in four copies, not at
//! each: a thread restarting at every thousand frames cost deletes at 16 connections
//! nearly a quarter of their rate, and put a stall near every 200th write at one (BENCHMARKS
//! §0zr). The longer log costs readers nothing: a reader looks a page up only among the
//! frames the last copy left (SQLite's `minFrame`). And a commit asks for a copy only
//! when a thousand frames came since the last one, not at every commit past a thousand:
//! with the log left at four thousand, that would be a copy, and two syncs, per write.

use std::ffi::c_int;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use super::back_off;
use super::group::Writers;
use crate::store::StoreError;

/// The pages committed to the log since the last checkpoint past which a commit asks for
/// another: SQLite's default auto-checkpoint threshold.
const PAGES_BEFORE_CHECKPOINT: i64 = 1000;

/// The log's length, in frames, from which a checkpoint also starts it over (16 MB of
/// 4 KB pages, and still inside the first of the WAL index's hash tables, which holds
/// 4,062 frames).
const RESTART_FROM: i64 = 4_000;

/// The size, in bytes, a log file is cut back to when it starts over (its
/// `journal_size_limit`; SQLite's default keeps the largest size it ever had).
pub(super) const LOG_SIZE_LIMIT: i64 = 64 << 20;

/// How long a `RESTART` checkpoint waits for a lock: the write lock another process
/// holds, or readers still reading frames of the log. No wait begins past it, so the
/// waits come to 53 ms ([`back_off`]'s steps), and this process's writes wait about that
/// long at most for their turn.
const RESTART_WAIT: Duration = Duration::from_millis(50);

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
    /// `RESTART` checkpoints it has tried.
    restarts: AtomicU64,
    /// The log's length, in frames, that the last checkpoint left copied (0 once the log
    /// starts over): a commit asks for a checkpoint [`PAGES_BEFORE_CHECKPOINT`] past it.
    copied_to: AtomicI64,
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
    /// `writers` is the turn of the pool's writes, taken to start the log over.
    pub(super) fn start(
        mut conn: Connection,
        writers: Arc<Writers>,
    ) -> Result<Checkpointer, StoreError> {
        conn.busy_handler(Some(restart_wait))?;
        let asked = Arc::new(Asked::default());
        let theirs = Arc::clone(&asked);
        let thread = std::thread::Builder::new()
            .name("strata-checkpoint".into())
            .spawn(move || {
                let mut checkpoints = Checkpoints {
                    conn,
                    writers,
                    restart_from: RESTART_FROM,
                };
                while theirs.next() {
                    let ran = checkpoints.run();
                    if ran.copied {
                        theirs.checkpoints.fetch_add(1, Ordering::Relaxed);
                    }
                    if ran.restart_tried {
                        theirs.restarts.fetch_add(1, Ordering::Relaxed);
                    }
                    if let Some(left) = ran.left {
                        theirs.copied_to.store(left, Ordering::Relaxed);
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
            let copied_to = asked.copied_to.load(Ordering::Relaxed);
            if i64::from(pages) >= copied_to + PAGES_BEFORE_CHECKPOINT {
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

    /// `RESTART` checkpoints the thread has tried so far.
    #[cfg(test)]
    fn restarts(&self) -> u64 {
        self.asked.restarts.load(Ordering::Relaxed)
    }
}

/// What one checkpoint did.
#[derive(Debug, Default)]
struct Ran {
    /// The passive copy ran to its end.
    copied: bool,
    /// A `RESTART` was tried (between two writes).
    restart_tried: bool,
    /// The frames the log holds that no later write needs copied: its length after the
    /// copy, 0 once it starts over; `None` when the copy failed.
    left: Option<i64>,
}

/// The checkpoint thread's connection and what it remembers between checkpoints.
struct Checkpoints {
    conn: Connection,
    writers: Arc<Writers>,
    /// The log's length (frames) below which no restart is tried: [`RESTART_FROM`], or
    /// past the length at a restart that could not finish, so that a long read elsewhere
    /// (another process's) does not hold this process's writes [`RESTART_WAIT`] at every
    /// commit.
    restart_from: i64,
}

impl Checkpoints {
    /// One checkpoint: a passive copy, then the log started over between two writes (see
    /// the module's doc); whether the copy ran. A failure (the disk, another process
    /// holding the checkpoint lock) only leaves the log longer; the next commit past the
    /// threshold asks again.
    fn run(&mut self) -> Ran {
        let (busy, log) = match pragma(&self.conn, "PASSIVE") {
            Ok(done) => done,
            Err(e) => {
                failed(&e);
                return Ran::default();
            }
        };
        let mut ran = Ran {
            copied: busy == 0,
            restart_tried: false,
            left: Some(log),
        };
        if log >= self.restart_from {
            let conn = &self.conn;
            let restart = self.writers.between_writes(|| pragma(conn, "RESTART"));
            ran.restart_tried = restart.is_some();
            match restart {
                // Kept from finishing (a reader or another process in the way): no
                // failure, the log starts over at a later checkpoint.
                Some(Ok((1, log))) => self.restart_from = log + PAGES_BEFORE_CHECKPOINT,
                Some(Ok(_)) => {
                    self.restart_from = RESTART_FROM;
                    ran.left = Some(0);
                }
                Some(Err(e)) => failed(&e),
                // A group of writes is open: the next commit asks again.
                None => {}
            }
        }
        ran
    }
}

fn failed(e: &rusqlite::Error) {
    tracing::warn!("SQLite checkpoint failed (the log stays longer until the next): {e}");
}

/// Runs `PRAGMA wal_checkpoint(mode)`: whether it was kept from finishing (1 or 0), and
/// the log's length in frames.
fn pragma(conn: &Connection, mode: &str) -> rusqlite::Result<(i64, i64)> {
    conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })
}

/// The checkpoint connection's busy handler: the pool's back-off, up to [`RESTART_WAIT`]
/// in all (a passive checkpoint never calls it).
fn restart_wait(count: i32) -> bool {
    back_off(count, RESTART_WAIT)
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

    /// A checkpointer of the file at `url` (a pool without writes of its own), watching
    /// `conn`'s commits.
    fn watching(url: &DatabaseUrl, conn: &mut Connection) -> Checkpointer {
        let checkpointer =
            Checkpointer::start(open_connection(url, false).unwrap(), Arc::default()).unwrap();
        checkpointer.watch(conn).unwrap();
        checkpointer
    }

    /// The frames in the log, from a passive checkpoint's report (asked again while the
    /// thread's checkpoint holds the checkpoint lock, when the report is -1).
    fn frames_in_log(conn: &Connection) -> i64 {
        let start = Instant::now();
        loop {
            let frames: i64 = conn
                .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
                .unwrap();
            if frames >= 0 || start.elapsed() > Duration::from_secs(10) {
                return frames;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A watched connection's commits never checkpoint themselves: with the thread gone,
    /// the log grows past three times SQLite's threshold (SQLite's own auto-checkpoint
    /// would have started it over at about a thousand frames).
    #[test]
    fn commits_leave_checkpoints_to_the_thread() {
        let (url, mut conn, dir) = database("commits");
        let checkpointer = watching(&url, &mut conn);
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
        let checkpointer = watching(&url, &mut conn);
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

    /// A reader that keeps an old snapshot stops the log from starting over. The thread
    /// then copies once per thousand frames committed, not at every commit past the
    /// threshold (each copy syncs the log and the file), and tries a restart only once
    /// the log is [`RESTART_FROM`] long and again after each further thousand frames, not
    /// at every copy (each try holds this process's writes up to [`RESTART_WAIT`]).
    #[test]
    fn a_held_log_is_copied_and_restarted_once_per_thousand_frames() {
        let (url, mut conn, dir) = database("held");
        let reader = open_connection(&url, false).unwrap();
        commit_pages(&conn, 1);
        reader.execute_batch("BEGIN").unwrap();
        let _: i64 = reader
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        let checkpointer = watching(&url, &mut conn);
        // About 7,500 frames, a few at each commit.
        for _ in 0..30 {
            commit_pages(&conn, 100);
            std::thread::sleep(Duration::from_millis(5));
        }
        let start = Instant::now();
        while checkpointer.checkpoints() < 6 {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "too few checkpoints"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        let frames = frames_in_log(&conn);
        let (checkpoints, restarts) = (checkpointer.checkpoints(), checkpointer.restarts());
        drop(checkpointer);
        let thousands = frames as u64 / 1_000;
        assert!(
            frames > 6_000,
            "{frames} frames: the log started over under the reader"
        );
        assert!(
            checkpoints <= 1 + thousands,
            "{checkpoints} checkpoints for {frames} frames"
        );
        assert!(
            (1..=1 + thousands - 4).contains(&restarts),
            "{restarts} restarts tried in {checkpoints} checkpoints, {frames} frames"
        );
        reader.execute_batch("COMMIT").unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Commits that never pause still let the log start over: after 12,000 commits of a
    /// frame or two each, one after the other, the log holds little more than
    /// [`RESTART_FROM`] frames. Before the restart it held every one of them (a checkpoint
    /// beside the writes never finished before the next write began).
    #[test]
    fn the_log_starts_over_under_steady_commits() {
        let (url, mut conn, dir) = database("steady");
        let checkpointer = watching(&url, &mut conn);
        let row = vec![7u8; 100];
        for _ in 0..12_000 {
            conn.execute("INSERT INTO t VALUES (?1)", [&row]).unwrap();
        }
        drop(checkpointer);
        let frames = frames_in_log(&conn);
        assert!(frames < RESTART_FROM + 2_500, "{frames} frames in the log");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
