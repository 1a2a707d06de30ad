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
use strata::store::seam::{Executor, RowRef};

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
