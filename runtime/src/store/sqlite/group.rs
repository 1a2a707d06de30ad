//! The writes of one [`SqlitePool`](super::SqlitePool): one at a time, committed in
//! groups.
//!
//! A write waits its turn at [`Writers`] (in line, in this process: never in SQLite's
//! sleeping busy handler), then runs in its group's transaction, which the group's first
//! write opened with `BEGIN IMMEDIATE`: the first write in the transaction itself, each
//! later one inside a `SAVEPOINT`. When the write ends:
//!
//! * it failed: it rolls back to its savepoint (the first write: the whole transaction),
//!   so it leaves nothing behind and the writes before it in the group stay;
//! * other writes are waiting their turn (and the group holds fewer than
//!   [`MOST_IN_A_GROUP`]): it hands the open transaction on, and a write that succeeded
//!   waits for the group's commit before it returns;
//! * nobody is waiting: it commits the group and wakes every write waiting for it.
//!
//! So each write sees the writes before it, exactly as if every write had committed on
//! its own, one after the other; no write returns before its commit; a commit that fails
//! fails every write in its group, and leaves nothing of any. What a group saves is the
//! commits: under 16 concurrent writers one commit, one WAL append of each page touched
//! and one round of file locks serve several writes. A lone writer commits at once, as
//! before, and pays for no savepoint.
//!
//! A write on the event loop (on a budget, [`super::within_budget`]) never waits: it
//! starts only when the turn is free, no group is open, nobody waits for the turn and a
//! connection is idle, and it commits on its own, never handing its transaction on.
//! Otherwise it fails [`StoreError::Interrupted`] having done nothing, as it does when its
//! statements run past the budget (rolled back whole: it is always a group's first
//! write), and its caller runs it again off the event loop. The statements that end a
//! transaction run without the budget, so a commit is never left in doubt.
//!
//! Invariant: a group's transaction is open exactly while [`Writers`] holds a
//! [`Group`] or a write runs in it; whoever takes the group either hands it back or ends
//! it (`commit` or `abandon`), and the connection goes back to the pool when it ends.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, TryLockError};

use rusqlite::Connection;

use super::{CountCache, SqliteExecutor, SqlitePool, map_error, on_event_loop, without_budget};
use crate::store::StoreError;
use crate::store::seam::Writer;

/// The most writes one group commits together: a bound on how long the first of them
/// waits for its answer.
const MOST_IN_A_GROUP: usize = 64;

/// The writes a pool lets be under way at once (`Pool::writes_at_once`): enough for a
/// group to form under load (one commit for the writes that came while one ran), few
/// enough that each waiting write's thread is cheap.
pub(super) const WRITES_AT_ONCE: usize = 32;

/// The turn of this pool's writers, and the group whose transaction is open.
#[derive(Default)]
pub(super) struct Writers {
    /// `Some` while a group's transaction is open and between two of its writes.
    turn: Mutex<Option<Group>>,
    /// Writers that asked for the turn and have not got it yet.
    waiting: AtomicUsize,
}

impl Writers {
    /// Runs `f` while this pool has no write under way: with the turn held, so no write
    /// starts until `f` returns, and no group open. `None`, without running `f`, when a
    /// group is open (handed on between two of its writes).
    pub(super) fn between_writes<T>(&self, f: impl FnOnce() -> T) -> Option<T> {
        let turn = self.turn.lock().unwrap_or_else(PoisonError::into_inner);
        if turn.is_some() {
            return None;
        }
        Some(f())
    }
}

/// An open transaction, the connection it is on, and the writes it holds.
struct Group {
    conn: Connection,
    counts: CountCache,
    /// Writes run in it so far, failed ones included.
    writes: usize,
    /// Writes that succeeded in it and wait for its commit.
    written: usize,
    outcome: Arc<Outcome>,
}

/// How a group ended, for the writes that wait for it.
#[derive(Default)]
struct Outcome {
    ended: Mutex<Option<Result<(), StoreError>>>,
    wake: Condvar,
}

impl Outcome {
    fn end(&self, result: Result<(), StoreError>) {
        *self.ended.lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
        self.wake.notify_all();
    }

    fn wait(&self) -> Result<(), StoreError> {
        let mut ended = self.ended.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(result) = ended.as_ref() {
                return result.clone();
            }
            ended = self
                .wake
                .wait(ended)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// How one write inside a group went.
enum Ran<T, E> {
    /// `f` returned; its savepoint was released or rolled back.
    Returned(Result<T, E>),
    /// `f` panicked; its savepoint was rolled back.
    Panicked(Box<dyn std::any::Any + Send>),
}

impl SqlitePool {
    /// Runs `f` as one write in the current group (see the module docs).
    pub(super) fn write_in_group<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn Writer) -> Result<T, E>,
    ) -> Result<T, E> {
        let writers = &self.writers;
        let now = on_event_loop();
        let (mut turn, mut group) = if now {
            self.start_now()?
        } else {
            writers.waiting.fetch_add(1, Ordering::SeqCst);
            let mut turn = writers.turn.lock().unwrap_or_else(PoisonError::into_inner);
            writers.waiting.fetch_sub(1, Ordering::SeqCst);
            let group = match turn.take() {
                Some(group) => group,
                None => self.begin_group(self.take_idle())?,
            };
            (turn, group)
        };
        let ran = group.run(f);
        // The transaction is gone when the group's first write failed (it was rolled back
        // whole), or when SQLite rolled it back itself on a failure (an interrupt, a full
        // disk, an I/O error): nothing of the group is left to commit.
        let broken = group.conn.is_autocommit();
        if matches!(ran, Ok(Ran::Returned(Ok(_)))) && !broken {
            group.written += 1;
        }
        let outcome = Arc::clone(&group.outcome);
        let committed = if broken || ran.is_err() {
            let lost = match &ran {
                Err(e) => e.clone(),
                Ok(_) => {
                    StoreError::Database("the transaction was rolled back by the database".into())
                }
            };
            self.abandon(group, lost.clone());
            Some(Err(lost))
        } else if !now
            && group.written < MOST_IN_A_GROUP
            && writers.waiting.load(Ordering::SeqCst) > 0
        {
            *turn = Some(group);
            None
        } else {
            Some(self.commit(group))
        };
        drop(turn);
        match ran.map_err(E::from)? {
            Ran::Panicked(payload) => resume_unwind(payload),
            Ran::Returned(Err(e)) => Err(e),
            Ran::Returned(Ok(value)) => {
                match committed {
                    Some(result) => result?,
                    None => outcome.wait()?,
                }
                Ok(value)
            }
        }
    }

    /// The turn and a new group for a write on the event loop, which must not wait: only
    /// when the turn is free, no group is open, no writer waits for the turn (it would be
    /// overtaken) and a connection is idle. Otherwise [`StoreError::Interrupted`], having
    /// done nothing: the write is run again off the event loop, where it may wait.
    fn start_now(&self) -> Result<(MutexGuard<'_, Option<Group>>, Group), StoreError> {
        let writers = &self.writers;
        let turn = match writers.turn.try_lock() {
            Ok(turn) => turn,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return Err(StoreError::Interrupted),
        };
        if turn.is_some() || writers.waiting.load(Ordering::SeqCst) > 0 {
            return Err(StoreError::Interrupted);
        }
        let idle = self.try_take_idle().ok_or(StoreError::Interrupted)?;
        let group = self.begin_group(idle)?;
        Ok((turn, group))
    }

    /// Opens a group's transaction on a connection taken from the pool (and puts the
    /// connection back when it cannot).
    fn begin_group(
        &self,
        (conn, mut counts): (Connection, CountCache),
    ) -> Result<Group, StoreError> {
        counts.totals.clear();
        // IMMEDIATE: the write lock is taken at the start, so what a write reads still
        // holds when it commits.
        if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
            self.put_back(conn, counts);
            return Err(map_error(e));
        }
        Ok(Group {
            conn,
            counts,
            writes: 0,
            written: 0,
            outcome: Arc::default(),
        })
    }

    /// Commits `group`, wakes its writes with the result, and returns the connection.
    fn commit(&self, group: Group) -> Result<(), StoreError> {
        let result = end_transaction(&group.conn, "COMMIT");
        match &result {
            Ok(()) => {
                group.counts.generation.fetch_add(1, Ordering::SeqCst);
            }
            Err(_) => {
                // Leaves the connection out of any transaction whatever the commit did.
                let _ = end_transaction(&group.conn, "ROLLBACK");
            }
        }
        group.outcome.end(result.clone());
        self.put_back(group.conn, group.counts);
        result
    }

    /// Rolls `group` back (what is left of it), fails its writes with `lost`, and
    /// returns the connection.
    fn abandon(&self, group: Group, lost: StoreError) {
        if !group.conn.is_autocommit() {
            let _ = end_transaction(&group.conn, "ROLLBACK");
        }
        group.outcome.end(Err(lost));
        self.put_back(group.conn, group.counts);
    }
}

/// Runs the statements that end a transaction or a write's savepoint. They run to their
/// end even on the event loop's budget: an interrupted `COMMIT` would leave it unknown
/// whether the write is there.
fn end_transaction(conn: &Connection, statements: &str) -> Result<(), StoreError> {
    without_budget(|| conn.execute_batch(statements)).map_err(map_error)
}

impl Group {
    /// Runs `f` as the group's next write. The first write runs in the transaction
    /// itself: when it fails, the whole transaction is rolled back (there is nothing else
    /// in it), so a lone writer pays for no savepoint. Every later write runs inside a
    /// savepoint, released when `f` succeeds and rolled back when it fails or panics
    /// (a savepoint makes SQLite copy each page it changes aside first, which is why the
    /// first write goes without). An error here (a savepoint statement failed) means the
    /// group's transaction is in doubt.
    fn run<T, E>(
        &mut self,
        f: impl FnOnce(&dyn Writer) -> Result<T, E>,
    ) -> Result<Ran<T, E>, StoreError> {
        let first = self.writes == 0;
        self.writes += 1;
        if !first {
            self.conn
                .execute_batch("SAVEPOINT strata_write")
                .map_err(map_error)?;
        }
        let ran = catch_unwind(AssertUnwindSafe(|| f(&SqliteExecutor::new(&self.conn))));
        let kept = matches!(ran, Ok(Ok(_)));
        let end = match (kept, first) {
            (true, true) => None,
            (true, false) => Some("RELEASE strata_write"),
            (false, true) => Some("ROLLBACK"),
            (false, false) => Some("ROLLBACK TO strata_write; RELEASE strata_write"),
        };
        if let Some(end) = end
            && !self.conn.is_autocommit()
        {
            end_transaction(&self.conn, end)?;
        }
        Ok(match ran {
            Ok(returned) => Ran::Returned(returned),
            Err(payload) => Ran::Panicked(payload),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::time::{Duration, Instant};

    use super::*;
    use crate::store::DatabaseUrl;
    use crate::store::seam::StoredValue;
    use crate::store::sqlite::open_connection;

    /// A pool of two connections over a new file with one table `t (v)`.
    fn pool(name: &str) -> (SqlitePool, Connection) {
        let dir = std::env::temp_dir().join(format!("strata-group-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let url = DatabaseUrl::sqlite(Some(dir.join("g.db")), false);
        let first = open_connection(&url, true).unwrap();
        first.execute_batch("CREATE TABLE t (v INTEGER)").unwrap();
        let pool = SqlitePool::new(vec![first, open_connection(&url, false).unwrap()]);
        (pool, open_connection(&url, false).unwrap())
    }

    fn insert(w: &dyn Writer, v: i64) -> Result<(), StoreError> {
        w.insert_rows("t", &["v"], &[StoredValue::Integer(v)])
    }

    fn values(conn: &Connection) -> Vec<i64> {
        let mut stmt = conn.prepare("SELECT v FROM t ORDER BY v").unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    }

    /// Waits (a bounded time) until `n` writers wait for their turn.
    fn until_waiting(pool: &SqlitePool, n: usize) {
        let start = Instant::now();
        while pool.writers.waiting.load(Ordering::SeqCst) < n {
            assert!(start.elapsed() < Duration::from_secs(10), "no writer came");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Four writes in one group, the first holding the turn until the other three wait:
    /// the one that fails leaves nothing, the one that panics leaves nothing and still
    /// panics, the others are committed together, and none returns before its commit.
    #[test]
    fn a_group_commits_its_writes_and_none_of_its_failures() {
        let (pool, reader) = pool("failures");
        let (has_turn, turn_taken) = std::sync::mpsc::channel();
        std::thread::scope(|s| {
            let first = s.spawn(|| {
                pool.write(|w| {
                    insert(w, 1)?;
                    has_turn.send(()).unwrap();
                    until_waiting(&pool, 3);
                    Ok::<_, StoreError>(())
                })
            });
            turn_taken.recv().unwrap();
            let failing = s.spawn(|| {
                pool.write(|w| {
                    insert(w, 2)?;
                    Err::<(), _>(StoreError::InvalidValue("refused".into()))
                })
            });
            let panicking = s.spawn(|| {
                pool.write(|w| -> Result<(), StoreError> {
                    insert(w, 3)?;
                    panic!("a write panicked (this test's own)")
                })
            });
            let last = s.spawn(|| {
                pool.write(|w| {
                    insert(w, 4)?;
                    Ok::<_, StoreError>(())
                })
            });
            let failed = failing.join().unwrap();
            assert!(
                matches!(failed, Err(StoreError::InvalidValue(_))),
                "{failed:?}"
            );
            assert!(panicking.join().is_err(), "the panic goes on to its caller");
            first.join().unwrap().unwrap();
            assert!(values(&reader).contains(&1), "returned before its commit");
            last.join().unwrap().unwrap();
        });
        assert_eq!(values(&reader), [1, 4]);
        // Both connections are back in the pool, neither in a transaction.
        let taken = [pool.take_idle(), pool.take_idle()];
        let idle: Vec<bool> = taken.iter().map(|(c, _)| c.is_autocommit()).collect();
        assert_eq!(idle, [true, true]);
        for (c, counts) in taken {
            pool.put_back(c, counts);
        }
    }

    /// A write on the event loop (on a budget) never waits: while another write holds the
    /// turn it fails interrupted and writes nothing; alone, it commits at once. One that
    /// runs past its budget leaves nothing, and its connection goes back to the pool out of
    /// any transaction.
    #[test]
    fn a_write_on_the_event_loop_never_waits_and_leaves_nothing_when_interrupted() {
        use crate::store::sqlite::within_budget;
        let (pool, reader) = pool("event-loop");
        let ample = Duration::from_secs(60);
        let (has_turn, turn_taken) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|s| {
            let pool = &pool;
            let holder = s.spawn(move || {
                pool.write(|w| {
                    insert(w, 1)?;
                    has_turn.send(()).unwrap();
                    released.recv().unwrap();
                    Ok::<_, StoreError>(())
                })
            });
            turn_taken.recv().unwrap();
            let refused = within_budget(ample, || pool.write(|w| insert(w, 2)));
            assert!(
                matches!(refused, Err(StoreError::Interrupted)),
                "{refused:?}"
            );
            release.send(()).unwrap();
            holder.join().unwrap().unwrap();
        });
        within_budget(ample, || pool.write(|w| insert(w, 3))).unwrap();
        assert_eq!(values(&reader), [1, 3]);
        // Three thousand rows in one statement: past a budget used up at once.
        let many: Vec<StoredValue> = (10..3010).map(StoredValue::Integer).collect();
        let interrupted = within_budget(Duration::ZERO, || {
            pool.write(|w| {
                insert(w, 4)?;
                w.insert_rows("t", &["v"], &many)
            })
        });
        assert!(
            interrupted.as_ref().is_err_and(StoreError::is_interrupted),
            "{interrupted:?}"
        );
        assert_eq!(values(&reader), [1, 3]);
        let taken = [pool.take_idle(), pool.take_idle()];
        assert!(taken.iter().all(|(c, _)| c.is_autocommit()));
        for (c, counts) in taken {
            pool.put_back(c, counts);
        }
    }

    /// Many concurrent writers, some of whose writes fail: every write that succeeded is
    /// there once, and nothing of one that failed.
    #[test]
    fn concurrent_writes_each_land_once_or_not_at_all() {
        let (pool, reader) = pool("many");
        std::thread::scope(|s| {
            for t in 0..8 {
                let pool = &pool;
                s.spawn(move || {
                    for i in 0..50 {
                        let v = t * 1000 + i;
                        let result = pool.write(|w| {
                            insert(w, v)?;
                            if v % 7 == 0 {
                                return Err(StoreError::InvalidValue("multiple of 7".into()));
                            }
                            Ok(())
                        });
                        assert_eq!(result.is_ok(), v % 7 != 0, "{v}: {result:?}");
                    }
                });
            }
        });
        let want: Vec<i64> = (0..8)
            .flat_map(|t| (0..50).map(move |i| t * 1000 + i))
            .filter(|v| v % 7 != 0)
            .collect();
        assert_eq!(values(&reader), want);
    }
}
