//! The database side of the replay: the recorder's tokens and grants, the tables of a
//! database, and the difference of two snapshots in the recording's shape
//! (`diff_tables` in tools/record_writes.py).

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha512};

use super::Backend;
use super::http::hex;

/// `created_at`/`updated_at`/`published_at` of the rows the recorder inserts (2025-11-24).
const NOW_MS: i64 = 1_764_000_000_000;

/// The users-permissions roles of the seed, by the name a `setup: grant` line uses.
const ROLE_IDS: [(&str, i64); 2] = [("authenticated", 1), ("public", 2)];

/// The plain key of the recorder's token `id`: `auth_fixture.key("strata write token <id>")`.
pub fn token_key(id: i64) -> String {
    let seed = format!("strata write token {id}");
    hex(&Sha512::digest(seed.as_bytes())) + &hex(&Sha512::digest(format!("{seed}/2").as_bytes()))
}

/// `NOW_MS` as the recorder writes it in `backend`'s SQL (`seed_sql`'s `ts`).
fn now_literal(backend: Backend) -> String {
    match backend {
        Backend::Sqlite => NOW_MS.to_string(),
        Backend::Postgres => format!("to_timestamp({NOW_MS} / 1000.0)"),
        // 2025-11-24T16:00:00.000Z, in UTC as the recorder writes it.
        Backend::Mysql => "'2025-11-24 16:00:00.000'".to_string(),
    }
}

/// The statements the recorder runs before a sequence (`seed_sql`) in `backend`'s dialect:
/// the recording's API tokens, stored as Strapi stores them, and its `setup:` grants (on
/// PostgreSQL, then the id sequences of those tables moved past the rows).
pub fn seed_statements(
    recording: &Value,
    salt: &strata::auth::Secret,
    backend: Backend,
) -> Vec<String> {
    let text = |v: &str| format!("'{}'", v.replace('\'', "''"));
    let now = now_literal(backend);
    let mut out = Vec::new();
    let mut perm_id = 200;
    for token in recording["tokens"].as_array().into_iter().flatten() {
        let id = token["id"].as_i64().unwrap_or_default();
        let access_key = strata::auth::api_token::access_key(salt, &token_key(id));
        out.push(format!(
            "insert into strapi_api_tokens (id, document_id, name, description, kind, type, \
             access_key, encrypted_key, last_used_at, expires_at, lifespan, created_at, updated_at, \
             published_at, created_by_id, updated_by_id, locale) values ({id}, {}, {}, '', \
             'content-api', {}, {}, null, null, null, null, {now}, {now}, {now}, null, null, null)",
            text(&format!("token{id:021}")),
            text(token["name"].as_str().unwrap_or_default()),
            text(token["type"].as_str().unwrap_or_default()),
            text(&access_key),
        ));
        for (n, action) in token["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            out.push(format!(
                "insert into strapi_api_token_permissions (id, document_id, action, created_at, \
                 updated_at, published_at, created_by_id, updated_by_id, locale) values ({perm_id}, \
                 {}, {}, {now}, {now}, {now}, null, null, null)",
                text(&format!("tokenperm{perm_id:015}")),
                text(action.as_str().unwrap_or_default()),
            ));
            out.push(format!(
                "insert into strapi_api_token_permissions_token_lnk (id, api_token_permission_id, \
                 api_token_id, api_token_permission_ord) values ({perm_id}, {perm_id}, {id}, {}.0)",
                n + 1
            ));
            perm_id += 1;
        }
    }
    for (up_id, line) in (300..).zip(recording["setup"].as_array().into_iter().flatten()) {
        let words: Vec<&str> = line
            .as_str()
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        let role = ROLE_IDS.iter().find(|(name, _)| words.get(1) == Some(name));
        let (["grant", _, action], Some((_, role_id))) = (words.as_slice(), role) else {
            panic!("unknown setup line {line}");
        };
        out.push(format!(
            "insert into up_permissions (id, document_id, action, created_at, updated_at, \
             published_at, created_by_id, updated_by_id, locale) values ({up_id}, {}, {}, {now}, \
             {now}, {now}, null, null, null)",
            text(&format!("perm{up_id:020}")),
            text(action),
        ));
        out.push(format!(
            "insert into up_permissions_role_lnk (id, permission_id, role_id, permission_ord) \
             values ({up_id}, {up_id}, {role_id}, {up_id}.0)"
        ));
    }
    if let Backend::Postgres = backend {
        out.extend(SEEDED_TABLES.iter().map(|table| {
            format!(
                "select setval(pg_get_serial_sequence('{table}', 'id'), \
                 (select max(id) from {table}))"
            )
        }));
    }
    out
}

/// The tables [`seed_statements`] inserts into with explicit ids.
const SEEDED_TABLES: [&str; 5] = [
    "strapi_api_tokens",
    "strapi_api_token_permissions",
    "strapi_api_token_permissions_token_lnk",
    "up_permissions",
    "up_permissions_role_lnk",
];

/// One table: its primary key columns (empty: none), its columns, and its rows, column →
/// raw value.
///
/// The rows are kept as the database gave them ([`Source`]) and turned into JSON values
/// only when asked for: most steps change a few tables, and an unchanged table is found
/// by comparing sources, without building its rows.
#[derive(Clone)]
pub struct Table {
    pub pk: Vec<String>,
    pub columns: Vec<String>,
    source: Source,
    rows: std::sync::OnceLock<Vec<Row>>,
    /// The server's checksum of the rows when they were read (MariaDB's `CHECKSUM TABLE`),
    /// by which the next snapshot tells the table unchanged without reading it again.
    pub checksum: Option<u64>,
}

/// A table's rows as read: equal sources, equal rows (in the same order).
#[derive(Clone, PartialEq)]
pub enum Source {
    /// A JSON array of row objects (PostgreSQL's `jsonb_agg`, MariaDB's `JSON_OBJECT`s).
    Json(String),
    /// SQLite's values, row by row in column order, each as [`Table::rows`] gives it.
    Values(Vec<Vec<Value>>),
}

impl Table {
    pub fn new(pk: Vec<String>, columns: Vec<String>, source: Source) -> Table {
        Table {
            pk,
            columns,
            source,
            rows: std::sync::OnceLock::new(),
            checksum: None,
        }
    }

    /// The rows, column → raw value.
    pub fn rows(&self) -> &[Row] {
        self.rows.get_or_init(|| match &self.source {
            Source::Json(text) => serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("the rows of a table: {e}: {}", short_text(text))),
            Source::Values(rows) => rows
                .iter()
                .map(|row| {
                    self.columns
                        .iter()
                        .cloned()
                        .zip(row.iter().cloned())
                        .collect()
                })
                .collect(),
        })
    }

    /// Whether `other` holds the same rows in the same order (read the same way).
    pub fn same_rows(&self, other: &Table) -> bool {
        self.source == other.source
    }

    /// Keeps the rows `keep` takes.
    pub fn retain(&mut self, keep: impl Fn(&Row) -> bool) {
        let rows: Vec<Row> = self.rows().iter().filter(|r| keep(r)).cloned().collect();
        self.source = Source::Json(serde_json::to_string(&rows).unwrap_or_default());
        self.rows = std::sync::OnceLock::from(rows);
    }
}

fn short_text(text: &str) -> &str {
    text.get(..200).unwrap_or(text)
}

/// Every table of a database, by name.
pub struct Snapshot(pub BTreeMap<String, Table>);

impl Snapshot {
    /// How many rows `table` holds (`None`: no such table).
    pub fn rows(&self, table: &str) -> Option<usize> {
        self.0.get(table).map(|t| t.rows().len())
    }

    /// Every `document_id` value of every table.
    pub fn document_ids(&self) -> std::collections::BTreeSet<String> {
        let rows = self.0.values().flat_map(|t| t.rows());
        rows.filter_map(|r| r.get("document_id")?.as_str().map(str::to_string))
            .collect()
    }
}

/// A row, column → raw value.
type Row = Map<String, Value>;

/// `before` and `after` without the rows they start with and end with in common.
fn common_ends<'r>(before: &'r [Row], after: &'r [Row]) -> (&'r [Row], &'r [Row]) {
    let start = before.iter().zip(after).take_while(|(b, a)| b == a).count();
    let (before, after) = (&before[start..], &after[start..]);
    let end = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take_while(|(b, a)| b == a)
        .count();
    (&before[..before.len() - end], &after[..after.len() - end])
}

/// Values equal as the recorder's Python compares them: numbers by their exact value, an
/// integer equal to a float that is that integer (`1 == 1.0`, but `2**63 - 1 !=
/// 9.223372036854776e18` and `9007199254740993 != 9007199254740992`).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (integer(x), integer(y)) {
            (Some(i), Some(j)) => i == j,
            (Some(i), None) => y.as_f64().is_some_and(|f| float_is(f, i)),
            (None, Some(j)) => x.as_f64().is_some_and(|f| float_is(f, j)),
            (None, None) => x.as_f64() == y.as_f64(),
        },
        _ => a == b,
    }
}

/// The number's exact value when JSON gave it as an integer.
fn integer(n: &serde_json::Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Whether float `f` is exactly integer `i`.
fn float_is(f: f64, i: i128) -> bool {
    f.fract() == 0.0 && f.abs() < 1e38 && f as i128 == i
}

/// The recorder's order of keys: numbers first (by value), then strings.
fn key_order(a: &[Value], b: &[Value]) -> Ordering {
    let part = |v: &Value| match v.as_f64() {
        Some(x) => (0, x, String::new()),
        None => (
            1,
            0.0,
            v.as_str().map_or_else(|| v.to_string(), str::to_string),
        ),
    };
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (part(x), part(y));
        let order =
            x.0.cmp(&y.0)
                .then(x.1.total_cmp(&y.1))
                .then_with(|| x.2.cmp(&y.2));
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// What changed from `before` to `after`, table by table, in the recording's shape: only
/// tables that changed; `added`/`removed` rows and `changed` columns (`[before, after]`)
/// keyed by primary key, sorted by key.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Map<String, Value> {
    let mut out = Map::new();
    let names: std::collections::BTreeSet<&String> =
        before.0.keys().chain(after.0.keys()).collect();
    for name in names {
        let entry = match (before.0.get(name), after.0.get(name)) {
            (None, Some(a)) => json!({"table_added": true, "added": a.rows()}),
            (Some(b), None) => json!({"table_removed": true, "removed": b.rows()}),
            (Some(b), Some(a)) if b.same_rows(a) => continue,
            (Some(b), Some(a)) => diff_table(b, a),
            (None, None) => continue,
        };
        if entry.as_object().is_some_and(|o| !o.is_empty()) {
            out.insert(name.clone(), entry);
        }
    }
    out
}

fn diff_table(before: &Table, after: &Table) -> Value {
    let pk = match after.pk.is_empty() {
        true => &before.pk,
        false => &after.pk,
    };
    // Without a primary key a row is its own key (the recorder compares them as a multiset).
    let key = |row: &Row| -> Vec<Value> {
        match pk.is_empty() {
            true => vec![Value::Object(row.clone())],
            false => pk.iter().map(|c| row[c].clone()).collect(),
        }
    };
    let index = |rows: &[Row]| -> HashMap<String, (Vec<Value>, Row)> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        rows.iter()
            .map(|r| {
                let k = key(r);
                let text = serde_json::to_string(&k).unwrap_or_default();
                let n = seen.entry(text.clone()).or_default();
                *n += 1;
                (format!("{text}#{n}"), (k, r.clone()))
            })
            .collect()
    };
    // Rows equal on both sides change nothing, whatever the keys: only what lies between
    // the rows the two lists start and end with in common is looked at.
    let (b, a) = common_ends(before.rows(), after.rows());
    let (b, a) = (index(b), index(a));
    let only = |x: &HashMap<String, (Vec<Value>, Row)>, y: &HashMap<String, (Vec<Value>, Row)>| {
        let mut rows: Vec<_> = x
            .iter()
            .filter(|(k, _)| !y.contains_key(*k))
            .map(|(_, v)| v)
            .collect();
        rows.sort_by(|p, q| key_order(&p.0, &q.0));
        rows.into_iter()
            .map(|(_, r)| Value::Object(r.clone()))
            .collect::<Vec<_>>()
    };
    let mut changed: Vec<(Vec<Value>, Value)> = Vec::new();
    for (k, (key_values, row_a)) in &a {
        let Some((_, row_b)) = b.get(k) else { continue };
        let columns: std::collections::BTreeSet<&String> =
            row_a.keys().chain(row_b.keys()).collect();
        let cols: Map<String, Value> = columns
            .into_iter()
            .filter_map(|c| {
                let (x, y) = (
                    row_b.get(c).unwrap_or(&Value::Null),
                    row_a.get(c).unwrap_or(&Value::Null),
                );
                (!same(x, y)).then(|| (c.clone(), json!([x, y])))
            })
            .collect();
        if !cols.is_empty() {
            let key_map: Map<String, Value> =
                pk.iter().cloned().zip(key_values.iter().cloned()).collect();
            changed.push((key_values.clone(), json!({"key": key_map, "changed": cols})));
        }
    }
    changed.sort_by(|p, q| key_order(&p.0, &q.0));
    let mut out = Map::new();
    for (section, rows) in [
        ("added", only(&a, &b)),
        ("removed", only(&b, &a)),
        ("changed", changed.into_iter().map(|(_, c)| c).collect()),
    ] {
        if !rows.is_empty() {
            out.insert(section.to_string(), Value::Array(rows));
        }
    }
    Value::Object(out)
}
