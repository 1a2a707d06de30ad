//! The statements an import reads with, built for every dialect (sea-query); the rows it
//! writes go through [`crate::store::seam::Writer::insert_rows`] and the locale and
//! setting rows through [`crate::store::seam::Change`]s built here.

use sea_query::{
    Alias, Expr, ExprTrait, Func, InsertStatement, Query, SelectStatement, UpdateStatement,
};

use crate::store::StoreError;
use crate::store::seam::{Executor, RowRef};

/// The table of Strapi's core-store settings.
pub(crate) const SETTINGS_TABLE: &str = "strapi_core_store_settings";

fn col(name: &str) -> Expr {
    Expr::col(Alias::new(name))
}

/// `select 1 from T limit 1`: whether the table has any row.
pub(crate) fn has_rows(exec: &dyn Executor, table: &str) -> Result<bool, StoreError> {
    let stmt = Query::select()
        .expr(Expr::val(1))
        .from(Alias::new(table))
        .limit(1)
        .to_owned();
    let mut any = false;
    exec.query_each(&stmt, &mut |_| {
        any = true;
        Ok(())
    })?;
    Ok(any)
}

/// `select C from T where K = v limit 1`.
pub(crate) fn first_where(
    table: &str,
    column: &str,
    key: &str,
    value: impl Into<sea_query::Value>,
) -> SelectStatement {
    Query::select()
        .expr(col(column))
        .from(Alias::new(table))
        .and_where(col(key).eq(Expr::val(value)))
        .limit(1)
        .to_owned()
}

/// `select C from T where K = v`.
pub(crate) fn all_where(table: &str, column: &str, key: &str, value: i64) -> SelectStatement {
    Query::select()
        .expr(col(column))
        .from(Alias::new(table))
        .and_where(col(key).eq(Expr::val(value)))
        .to_owned()
}

/// `select C from T`.
pub(crate) fn all(table: &str, column: &str) -> SelectStatement {
    Query::select()
        .expr(col(column))
        .from(Alias::new(table))
        .to_owned()
}

/// `select coalesce(max(C), 0) from T where K = v`: the largest order value of a key.
pub(crate) fn max_order(table: &str, column: &str, key: &str, value: i64) -> SelectStatement {
    Query::select()
        .expr(Func::coalesce([
            Expr::from(Func::max(col(column))),
            Expr::val(0),
        ]))
        .from(Alias::new(table))
        .and_where(col(key).eq(Expr::val(value)))
        .to_owned()
}

/// The first column of the first row of `stmt`, when there is a row and it is not NULL.
pub(crate) fn first_cell<T>(
    exec: &dyn Executor,
    stmt: &SelectStatement,
    read: impl Fn(&dyn RowRef) -> Result<Option<T>, StoreError>,
) -> Result<Option<T>, StoreError> {
    let mut out = None;
    exec.query_each(stmt, &mut |r| {
        if out.is_none() {
            out = read(r)?;
        }
        Ok(())
    })?;
    Ok(out)
}

/// An order value (`double` on the server databases, an integer or real on SQLite).
pub(crate) fn order_value(r: &dyn RowRef) -> Result<Option<f64>, StoreError> {
    use crate::store::seam::Cell;
    Ok(match r.cell(0)? {
        Cell::Float(f) => Some(f),
        Cell::Int(i) | Cell::BigInt(i) => Some(i as f64),
        Cell::Text(t) => t.trim().parse().ok(),
        _ => None,
    })
}

/// The id of a core-store setting (`environment` and `tag` NULL).
pub(crate) fn setting(key: &str, column: &str) -> SelectStatement {
    Query::select()
        .expr(col(column))
        .from(Alias::new(SETTINGS_TABLE))
        .and_where(col("key").eq(Expr::val(key)))
        .and_where(col("environment").is_null())
        .and_where(col("tag").is_null())
        .limit(1)
        .to_owned()
}

/// Sets a setting's value and type.
pub(crate) fn update_setting(id: i64, value: &str, ty: &str) -> UpdateStatement {
    Query::update()
        .table(Alias::new(SETTINGS_TABLE))
        .value(Alias::new("value"), value)
        .value(Alias::new("type"), ty)
        .and_where(col("id").eq(Expr::val(id)))
        .to_owned()
}

/// A new setting.
pub(crate) fn insert_setting(
    key: &str,
    value: &str,
    ty: &str,
) -> Result<InsertStatement, StoreError> {
    Query::insert()
        .into_table(Alias::new(SETTINGS_TABLE))
        .columns([Alias::new("key"), Alias::new("value"), Alias::new("type")])
        .values([key.into(), value.into(), ty.into()])
        .map(|s| s.to_owned())
        .map_err(|e| StoreError::Other(format!("setting {key}: {e}")))
}
