//! Batched statements on PostgreSQL (`Executor::query_batch`, pipelined on one
//! connection, which is how a populate level runs): every statement's rows come back
//! under its own index and in order; a statement that fails fails the batch with its own
//! error; and the connection stays usable afterwards, although the answers to the
//! statements after the failing one were still in flight when it failed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::pg::TestDb;
use strata::store::StoreError;
use strata::store::sea_query::{Expr, Query, SelectStatement};
use strata::store::seam::{Executor, RowRef, StoredValue};

/// `SELECT <sql>`.
fn select(sql: &'static str) -> SelectStatement {
    Query::select().expr(Expr::cust(sql)).to_owned()
}

/// Each statement's first column, per statement index, in the order the rows came.
fn run(exec: &dyn Executor, stmts: &[SelectStatement]) -> Result<Vec<Vec<i64>>, StoreError> {
    let refs: Vec<&SelectStatement> = stmts.iter().collect();
    let mut out = vec![Vec::new(); stmts.len()];
    exec.query_batch(&refs, &mut |i, r: &dyn RowRef| {
        out[i].push(r.int(0)?);
        Ok(())
    })?;
    Ok(out)
}

#[test]
fn a_batch_answers_each_statement_in_order_and_survives_a_failing_one() {
    let Some(db) = TestDb::create("batch") else {
        return;
    };
    // `with` runs everything on one connection: what follows a failure shares it.
    let pool = db.pool();
    pool.with(|exec| {
        let got = run(
            exec,
            &[
                select("generate_series(1, 3)"),
                select("42"),
                select("generate_series(10, 7, -1)"),
                select("1 WHERE false"),
                select("generate_series(5, 6)"),
            ],
        )?;
        assert_eq!(
            got,
            vec![
                vec![1, 2, 3],
                vec![42],
                vec![10, 9, 8, 7],
                vec![],
                vec![5, 6]
            ]
        );

        // The second statement fails as it runs (a text that is no integer: a 400 on the
        // HTTP side). Its error is the batch's, and the third statement's answer, already
        // asked for, is not mistaken for the answer to anything that comes next.
        let failed = run(
            exec,
            &[
                select("generate_series(1, 2)"),
                select("('abc' || random()::text)::int"),
                select("generate_series(100, 105)"),
            ],
        );
        assert!(
            matches!(failed, Err(StoreError::InvalidValue(_))),
            "{failed:?}"
        );
        let again = run(exec, &[select("7"), select("generate_series(8, 9)")])?;
        assert_eq!(again, vec![vec![7], vec![8, 9]]);
        let single = run(exec, &[select("11")])?;
        assert_eq!(single, vec![vec![11]]);
        Ok(())
    })
    .unwrap();
}

/// The rows of `t`, as text, in id order.
fn rows_of_t(exec: &dyn Executor) -> Result<Vec<String>, StoreError> {
    let stmt = select(
        "concat_ws('|', id, coalesce(name, 'NULL'), to_char(at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'), score, flag, doc::text, amount) FROM t ORDER BY id",
    );
    let mut out = Vec::new();
    exec.query_each(&stmt, &mut |r: &dyn RowRef| {
        out.push(r.opt_text(0)?.unwrap_or_default());
        Ok(())
    })?;
    Ok(out)
}

/// `Writer::insert_rows` on PostgreSQL copies its rows in (`COPY … FROM STDIN` binary) on
/// the pool's runtime while the caller goes on: the next statement of the transaction
/// sees them, each value arrives in its column's type, and a copy the database refuses
/// fails the transaction (at the next statement, or at its end) with nothing written.
#[test]
fn rows_copied_in_are_seen_next_and_a_refused_copy_writes_nothing() {
    let Some(db) = TestDb::create("copyin") else {
        return;
    };
    let pool = db.pool();
    pool.with_client(async |c| {
        c.batch_execute(
            "CREATE TABLE t (id integer PRIMARY KEY, name varchar(255), at timestamp(6), \
             score double precision, flag boolean, doc jsonb, amount numeric(10, 2))",
        )
        .await
        .map_err(common::pg::pg_error)
    })
    .unwrap();
    let columns = ["id", "name", "at", "score", "flag", "doc", "amount"];
    let row = |id: i64, name: Option<&str>| {
        vec![
            StoredValue::Integer(id),
            name.map_or(StoredValue::Null, |n| StoredValue::Text(n.into())),
            StoredValue::Timestamp(1_700_000_000_123),
            StoredValue::Real(2.5),
            StoredValue::Integer(1),
            StoredValue::Text(r#"{"a": [1, "b"]}"#.into()),
            StoredValue::Text("12.34".into()),
        ]
    };
    let first: Vec<StoredValue> = (1..=3)
        .flat_map(|id| row(id, Some("tab\there, line\nthere, back\\slash, é")))
        .chain(row(4, None))
        .collect();
    let seen = pool
        .write(|w| {
            w.insert_rows("t", &columns, &first)?;
            // The next statement waits for the copy.
            rows_of_t(w)
        })
        .unwrap();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(
        seen[0],
        "1|tab\there, line\nthere, back\\slash, é|2023-11-14 22:13:20.123|2.5|t|{\"a\": [1, \"b\"]}|12.34"
    );
    assert_eq!(
        seen[3],
        "4|NULL|2023-11-14 22:13:20.123|2.5|t|{\"a\": [1, \"b\"]}|12.34"
    );

    // A duplicate id: refused by the database after `insert_rows` returned. The next
    // statement reports it, and the transaction leaves nothing behind.
    let again: Vec<StoredValue> = row(5, Some("new"))
        .into_iter()
        .chain(row(1, None))
        .collect();
    let refused = pool.write(|w| {
        w.insert_rows("t", &columns, &again)?;
        rows_of_t(w)
    });
    assert!(
        matches!(refused, Err(StoreError::Constraint(_))),
        "{refused:?}"
    );
    // The same, with the copy the last thing the transaction did: its end reports it.
    let refused = pool.write(|w| w.insert_rows("t", &columns, &again));
    assert!(
        matches!(refused, Err(StoreError::Constraint(_))),
        "{refused:?}"
    );
    // A value its column cannot take.
    let mut bad = row(6, Some("x"));
    bad[6] = StoredValue::Text("not a number".into());
    let refused = pool.write(|w| w.insert_rows("t", &columns, &bad));
    assert!(refused.is_err(), "{refused:?}");

    // Nothing of the refused transactions was written, and the pool still serves.
    let after = pool.with(|exec| rows_of_t(exec)).unwrap();
    assert_eq!(after, seen);
}
