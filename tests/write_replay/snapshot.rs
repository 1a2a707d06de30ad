//! Every table of a database, read as tools/record_writes.py reads it (its `dump`), so that
//! rows compare with the recorded ones value for value: SQLite through rusqlite, PostgreSQL
//! as `to_jsonb(t)` of each row, MariaDB as `JSON_OBJECT` of each row's columns (only the
//! tables whose `CHECKSUM TABLE` changed since the step before, see [`mysql`]).
//!
//! strata's own bookkeeping ([`STRATA_TABLES`], written when it migrates a database to the
//! `ext` model) is left out, with its `sqlite_sequence` row: Strapi has no such table.

use std::collections::BTreeMap;
use std::path::Path;

use mysql::prelude::Queryable;
use serde_json::{Value, json};
use strata::store::StoreError;
use strata::store::mysql::MyPool;
use strata::store::postgres::PgPool;

use super::common::pg::pg_error;
use super::db::{Snapshot, Source, Table};
use super::http::hex;

/// strata's own tables: not part of Strapi's layout, never compared.
const STRATA_TABLES: [&str; 1] = ["strata_schema"];

/// A read-only connection to the SQLite file at `path`, for [`sqlite`].
pub fn sqlite_reader(path: &Path) -> rusqlite::Connection {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    // Two statements a table, kept prepared.
    conn.set_prepared_statement_cache_capacity(512);
    conn
}

/// Every table of the SQLite database of `conn`, values as the recorder reads them: integers
/// and reals as numbers, TEXT as a string (or `{"invalid_utf8_hex"}`), BLOB as `{"hex"}`.
/// `sqlite_sequence` is keyed by `name`. `conn` is [`sqlite_reader`]'s.
pub fn sqlite(conn: &rusqlite::Connection) -> Snapshot {
    use rusqlite::types::ValueRef;
    let names: Vec<String> = conn
        .prepare("select name from sqlite_master where type = 'table' order by name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut tables = BTreeMap::new();
    for name in names {
        let mut info = conn
            .prepare_cached(&format!("pragma table_info(\"{name}\")"))
            .unwrap();
        let mut keyed: Vec<(i64, String)> = info
            .query_map([], |r| Ok((r.get::<_, i64>(5)?, r.get::<_, String>(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        keyed.retain(|(position, _)| *position > 0);
        keyed.sort();
        let pk = match name.as_str() {
            "sqlite_sequence" => vec!["name".to_string()],
            _ => keyed.into_iter().map(|(_, c)| c).collect(),
        };
        let mut select = conn
            .prepare_cached(&format!("select * from \"{name}\""))
            .unwrap();
        let columns: Vec<String> = select.column_names().map(str::to_string).collect();
        let rows = select
            .query_map([], |r| {
                (0..columns.len())
                    .map(|i| {
                        Ok(match r.get_ref(i)? {
                            ValueRef::Null => Value::Null,
                            ValueRef::Integer(n) => json!(n),
                            ValueRef::Real(x) => json!(x),
                            ValueRef::Text(bytes) => match std::str::from_utf8(bytes) {
                                Ok(s) => json!(s),
                                Err(_) => json!({"invalid_utf8_hex": hex(bytes)}),
                            },
                            ValueRef::Blob(bytes) => json!({"hex": hex(bytes)}),
                        })
                    })
                    .collect()
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        tables.insert(name, Table::new(pk, columns, Source::Values(rows)));
    }
    without_strata(Snapshot(tables))
}

/// The recorder's PostgreSQL tables of `public` with their primary key columns (in key
/// order, comma-separated; empty: none) and their columns (comma-separated).
const PG_TABLES: &str = "select c.relname::text, coalesce((select string_agg(a.attname, ',' \
     order by array_position(i.indkey, a.attnum)) from pg_index i join pg_attribute a on \
     a.attrelid = i.indrelid and a.attnum = any(i.indkey) where i.indrelid = c.oid and \
     i.indisprimary), ''), coalesce((select string_agg(a.attname, ',' order by a.attnum) \
     from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), \
     '') from pg_class c join pg_namespace n on n.oid = c.relnamespace \
     where n.nspname = 'public' and c.relkind = 'r' order by c.relname";

/// Every table of the PostgreSQL database of `pool`, each row as `to_jsonb` gives it
/// (timestamps like `"2024-03-01T01:00:00"`), in one round trip after the table list.
pub fn postgres(pool: &PgPool) -> Snapshot {
    let found = pool.with_client(async |c| {
        let tables = c.query(PG_TABLES, &[]).await.map_err(pg_error)?;
        let tables: Vec<(String, String, String)> = tables
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect();
        let selects: Vec<String> = tables
            .iter()
            .map(|(name, _, _)| {
                format!(
                    "select '{name}'::text, (select coalesce(jsonb_agg(to_jsonb(t)), \
                     '[]'::jsonb)::text from \"{name}\" t)"
                )
            })
            .collect();
        let rows = c
            .query(&selects.join(" union all "), &[])
            .await
            .map_err(pg_error)?;
        let rows: BTreeMap<String, String> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        Ok(tables
            .into_iter()
            .map(|(name, pk, columns)| {
                let json = rows.get(&name).cloned().unwrap_or_default();
                (name, pk, columns, json)
            })
            .collect::<Vec<_>>())
    });
    from_json_tables(found.unwrap())
}

/// Every table of the MariaDB database of `pool`, each row as `JSON_OBJECT` of its columns
/// gives it (datetimes like `"2024-03-01 01:00:00.000000"`, JSON columns parsed).
///
/// Building every row's JSON is the server's slowest work of a replay (30 to 100 ms a
/// snapshot, once a step). So each table's `CHECKSUM TABLE` (1.5 ms for all of them) is
/// read first, and a table of `previous` with the same columns and checksum is kept as it
/// was instead of being read again. The checksum is a sum of each row's CRC-32 over every
/// column, so a change it misses would need two CRCs to collide.
pub fn mysql(pool: &MyPool, previous: Option<&Snapshot>) -> Snapshot {
    let found = pool.with_conn(|c| {
        let err = |e: mysql::Error| StoreError::Database(e.to_string());
        let tables = mysql_tables(c).map_err(err)?;
        let checksums = mysql_checksums(c, tables.keys()).map_err(err)?;
        let kept = |name: &String, columns: &Vec<String>| -> Option<Table> {
            let table = previous?.0.get(name)?;
            let checksum = checksums.get(name).copied().flatten()?;
            (table.checksum == Some(checksum) && table.columns == *columns).then(|| table.clone())
        };
        let mut snapshot = BTreeMap::new();
        let mut unread = Vec::new();
        for (name, (columns, pk)) in tables {
            match kept(&name, &columns) {
                Some(table) => {
                    snapshot.insert(name, table);
                }
                None => unread.push((name, columns, pk)),
            }
        }
        for (name, json, (columns, pk)) in mysql_rows(c, unread).map_err(err)? {
            let mut table = Table::new(pk, columns, Source::Json(json));
            table.checksum = checksums.get(&name).copied().flatten();
            snapshot.insert(name, table);
        }
        Ok(snapshot)
    });
    without_strata(Snapshot(found.unwrap()))
}

/// The tables of the connection's database: name → (columns, primary key columns), in
/// column order.
type MyTables = BTreeMap<String, (Vec<String>, Vec<String>)>;

fn mysql_tables(c: &mut mysql::PooledConn) -> Result<MyTables, mysql::Error> {
    let columns: Vec<(String, String, String)> = c.query(
        "select table_name, column_name, column_key from information_schema.columns \
         where table_schema = database() order by table_name, ordinal_position",
    )?;
    let mut tables = MyTables::new();
    for (table, column, key) in columns {
        let (all, pk) = tables.entry(table).or_default();
        if key == "PRI" {
            pk.push(column.clone());
        }
        all.push(column);
    }
    Ok(tables)
}

/// `CHECKSUM TABLE` of each of `names`, by name (`None`: the server gave none).
fn mysql_checksums<'n>(
    c: &mut mysql::PooledConn,
    names: impl Iterator<Item = &'n String>,
) -> Result<BTreeMap<String, Option<u64>>, mysql::Error> {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if names.is_empty() {
        return Ok(BTreeMap::new());
    }
    let rows: Vec<(String, Option<u64>)> =
        c.query(format!("checksum table {}", names.join(", ")))?;
    // The server names each table `database.table`.
    Ok(rows
        .into_iter()
        .map(|(qualified, sum)| {
            let name = qualified.split_once('.').map_or(&*qualified, |(_, n)| n);
            (name.to_string(), sum)
        })
        .collect())
}

/// The rows of each of `tables` (name, columns, primary key) as a JSON array, in one round
/// trip: (name, JSON, (columns, primary key)).
#[allow(clippy::type_complexity)]
fn mysql_rows(
    c: &mut mysql::PooledConn,
    tables: Vec<(String, Vec<String>, Vec<String>)>,
) -> Result<Vec<(String, String, (Vec<String>, Vec<String>))>, mysql::Error> {
    if tables.is_empty() {
        return Ok(Vec::new());
    }
    let selects: Vec<String> = tables
        .iter()
        .map(|(name, columns, _)| {
            let pairs: Vec<String> = columns.iter().map(|c| format!("'{c}', `{c}`")).collect();
            format!(
                "select '{name}', (select concat('[', ifnull(group_concat(json_object({}) \
                 separator ','), ''), ']') from `{name}`)",
                pairs.join(", ")
            )
        })
        .collect();
    c.query_drop("set session group_concat_max_len = 1073741824")?;
    let rows: Vec<(String, Vec<u8>)> = c.query(selects.join(" union all "))?;
    let mut rows: BTreeMap<String, Vec<u8>> = rows.into_iter().collect();
    Ok(tables
        .into_iter()
        .map(|(name, columns, pk)| {
            let json =
                String::from_utf8_lossy(&rows.remove(&name).unwrap_or_default()).into_owned();
            (name, json, (columns, pk))
        })
        .collect())
}

/// A snapshot of (table, primary key columns comma-separated, columns comma-separated,
/// rows as a JSON array).
fn from_json_tables(tables: Vec<(String, String, String, String)>) -> Snapshot {
    let list = |text: &str| -> Vec<String> {
        text.split(',')
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    let tables = tables.into_iter().map(|(name, pk, columns, json)| {
        let table = Table::new(list(&pk), list(&columns), Source::Json(json));
        (name, table)
    });
    without_strata(Snapshot(tables.collect()))
}

/// `snapshot` without [`STRATA_TABLES`] and their `sqlite_sequence` rows.
fn without_strata(mut snapshot: Snapshot) -> Snapshot {
    snapshot
        .0
        .retain(|name, _| !STRATA_TABLES.contains(&name.as_str()));
    if let Some(sequences) = snapshot.0.get_mut("sqlite_sequence") {
        sequences.retain(|row| {
            let name = row.get("name").and_then(Value::as_str);
            !name.is_some_and(|n| STRATA_TABLES.contains(&n))
        });
    }
    snapshot
}
