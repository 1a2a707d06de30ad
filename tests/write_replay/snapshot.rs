//! Every table of a database, read as tools/record_writes.py reads it (its `dump`), so that
//! rows compare with the recorded ones value for value: SQLite through rusqlite, PostgreSQL
//! as `to_jsonb(t)` of each row, MariaDB as `JSON_OBJECT` of each row's columns (there, only
//! the tables whose `CHECKSUM TABLE` changed since the step before are read again, see
//! [`mysql`]).
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
///
/// Unlike [`mysql`], every table is read each time: PostgreSQL builds the JSON of all of
/// them in 15 to 22 ms, and reading a checksum of each first (a 64-bit hash of every row's
/// text) did not shorten the replay (220 s against 189 s, BENCHMARKS §0zt).
pub fn postgres(pool: &PgPool) -> Snapshot {
    let found = pool.with_client(async |c| {
        let tables = c.query(PG_TABLES, &[]).await.map_err(pg_error)?;
        let tables: Vec<ServerTable> = tables
            .iter()
            .map(|r| ServerTable {
                name: r.get(0),
                pk: comma_list(r.get(1)),
                columns: comma_list(r.get(2)),
            })
            .collect();
        let json = per_table(&tables, |ServerTable { name, .. }| {
            format!("coalesce(jsonb_agg(to_jsonb(t)), '[]'::jsonb)::text from \"{name}\" t")
        });
        let rows = c.query(&json, &[]).await.map_err(pg_error)?;
        let mut rows: BTreeMap<String, String> =
            rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        let mut snapshot = BTreeMap::new();
        for table in tables {
            let json = rows.remove(&table.name).unwrap_or_default();
            table.read(json, None, &mut snapshot);
        }
        Ok(snapshot)
    });
    without_strata(Snapshot(found.unwrap()))
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
        let checksums = mysql_checksums(c, &tables).map_err(err)?;
        let (mut snapshot, unread) = keep_unchanged(previous, tables, &checksums);
        if !unread.is_empty() {
            let json = per_table(&unread, |t| {
                let pairs: Vec<String> =
                    t.columns.iter().map(|c| format!("'{c}', `{c}`")).collect();
                format!(
                    "concat('[', ifnull(group_concat(json_object({}) separator ','), ''), ']') \
                     from `{}`",
                    pairs.join(", "),
                    t.name
                )
            });
            c.query_drop("set session group_concat_max_len = 1073741824")
                .map_err(err)?;
            let rows: Vec<(String, Vec<u8>)> = c.query(json).map_err(err)?;
            let mut rows: BTreeMap<String, Vec<u8>> = rows.into_iter().collect();
            for table in unread {
                let json = rows.remove(&table.name).unwrap_or_default();
                let json = String::from_utf8_lossy(&json).into_owned();
                let checksum = checksums.get(&table.name).copied();
                table.read(json, checksum, &mut snapshot);
            }
        }
        Ok(snapshot)
    });
    without_strata(Snapshot(found.unwrap()))
}

/// A table of a server database as its catalogue describes it.
struct ServerTable {
    name: String,
    /// Primary key columns, in key order.
    pk: Vec<String>,
    /// Every column, in column order.
    columns: Vec<String>,
}

impl ServerTable {
    /// Puts the table, read as `json` (a JSON array of rows), into `snapshot` with the
    /// checksum it was read at, if any.
    fn read(self, json: String, checksum: Option<u64>, snapshot: &mut BTreeMap<String, Table>) {
        let mut table = Table::new(self.pk, self.columns, Source::Json(json));
        table.checksum = checksum;
        snapshot.insert(self.name, table);
    }
}

/// Each table's `CHECKSUM TABLE`, by name (a table the server gave none for is absent).
type Checksums = BTreeMap<String, u64>;

/// The tables of `previous` with the same columns and checksum as now, and the tables that
/// must be read.
fn keep_unchanged(
    previous: Option<&Snapshot>,
    tables: Vec<ServerTable>,
    checksums: &Checksums,
) -> (BTreeMap<String, Table>, Vec<ServerTable>) {
    let mut kept = BTreeMap::new();
    let mut unread = Vec::new();
    for table in tables {
        let before = previous.and_then(|p| p.0.get(&table.name));
        let now = checksums.get(&table.name).copied();
        match before {
            Some(before)
                if now.is_some() && before.checksum == now && before.columns == table.columns =>
            {
                kept.insert(table.name, before.clone());
            }
            _ => unread.push(table),
        }
    }
    (kept, unread)
}

/// One query giving, for each of `tables`, its name and `select_from(table)` (an expression
/// and its `from`), as text.
fn per_table(tables: &[ServerTable], select_from: impl Fn(&ServerTable) -> String) -> String {
    let selects: Vec<String> = tables
        .iter()
        .map(|t| format!("select '{}', (select {})", t.name, select_from(t)))
        .collect();
    selects.join(" union all ")
}

fn mysql_tables(c: &mut mysql::PooledConn) -> Result<Vec<ServerTable>, mysql::Error> {
    let columns: Vec<(String, String, String)> = c.query(
        "select table_name, column_name, column_key from information_schema.columns \
         where table_schema = database() order by table_name, ordinal_position",
    )?;
    let mut tables: BTreeMap<String, ServerTable> = BTreeMap::new();
    for (name, column, key) in columns {
        let table = tables.entry(name.clone()).or_insert_with(|| ServerTable {
            name,
            pk: Vec::new(),
            columns: Vec::new(),
        });
        if key == "PRI" {
            table.pk.push(column.clone());
        }
        table.columns.push(column);
    }
    Ok(tables.into_values().collect())
}

/// `CHECKSUM TABLE` of each of `tables`.
fn mysql_checksums(
    c: &mut mysql::PooledConn,
    tables: &[ServerTable],
) -> Result<Checksums, mysql::Error> {
    if tables.is_empty() {
        return Ok(Checksums::new());
    }
    let names: Vec<String> = tables.iter().map(|t| format!("`{}`", t.name)).collect();
    let rows: Vec<(String, Option<u64>)> =
        c.query(format!("checksum table {}", names.join(", ")))?;
    // The server names each table `database.table`.
    Ok(rows
        .into_iter()
        .filter_map(|(qualified, sum)| {
            let name = qualified.split_once('.').map_or(&*qualified, |(_, n)| n);
            Some((name.to_string(), sum?))
        })
        .collect())
}

/// `a,b,c` as its non-empty parts.
fn comma_list(text: String) -> Vec<String> {
    text.split(',')
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
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
