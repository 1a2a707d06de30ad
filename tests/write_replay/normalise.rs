//! What may differ between a recording and strata's replay, made equal before comparing:
//! documentIds (random), "now" timestamps, bcrypt hashes and V8's JSON.parse messages.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::db::same;

/// 2025-01-01T00:00:00Z in epoch ms. The blog's seed content is dated 2024, so a timestamp
/// from this instant on was written "now" (by the recorder's tokens, Strapi's first boot, a
/// recorded write or strata's replay) and is compared only for being a timestamp.
const NOW_ISH_MS: i64 = 1_735_689_600_000;

/// The answer keys whose "now" values are normalised.
const TIME_KEYS: [&str; 3] = ["createdAt", "updatedAt", "publishedAt"];

/// The columns whose "now" values are normalised (NULL stays NULL, so NULL → time shows).
const TIME_COLUMNS: [&str; 4] = ["created_at", "updated_at", "published_at", "last_used_at"];

/// koa-body's own `SyntaxError` message (compared exactly); any other is V8's, Node-specific.
const KOA_SYNTAX_MESSAGE: &str = "invalid JSON, only supports object and array";

/// The documentIds of the recording's documents that strata numbered otherwise:
/// recorded → strata's, learned as answers and added rows come in. The documentIds the
/// database held before the sequence are the same on both sides and never mapped.
pub struct DocumentIds {
    map: BTreeMap<String, String>,
    existing: BTreeSet<String>,
}

impl DocumentIds {
    /// No mapping yet; `existing`: the documentIds in the database before step 1.
    pub fn new(existing: BTreeSet<String>) -> DocumentIds {
        DocumentIds {
            map: BTreeMap::new(),
            existing,
        }
    }

    fn learn_one(&mut self, expected: &Value, actual: &Value) {
        if let (Some(e), Some(a)) = (expected.as_str(), actual.as_str())
            && e != a
            && !self.existing.contains(e)
        {
            self.map
                .entry(e.to_string())
                .or_insert_with(|| a.to_string());
        }
    }

    /// Learns from an answer: wherever both hold a `documentId` at the same path.
    pub fn learn_from_answer(&mut self, expected: &Value, actual: &Value) {
        match (expected, actual) {
            (Value::Object(e), Value::Object(a)) => {
                if let (Some(x), Some(y)) = (e.get("documentId"), a.get("documentId")) {
                    self.learn_one(x, y);
                }
                for (k, v) in e {
                    if let Some(w) = a.get(k) {
                        self.learn_from_answer(v, w);
                    }
                }
            }
            (Value::Array(e), Value::Array(a)) => {
                for (v, w) in e.iter().zip(a) {
                    self.learn_from_answer(v, w);
                }
            }
            _ => {}
        }
    }

    /// Learns from a table diff: the `document_id` of rows added under the same `id`.
    pub fn learn_from_rows(&mut self, expected: &Map<String, Value>, actual: &Map<String, Value>) {
        for (table, e) in expected {
            let added = |d: &Value| d["added"].as_array().cloned().unwrap_or_default();
            let theirs = actual.get(table).map(added).unwrap_or_default();
            for row in added(e) {
                if let Some(ours) = theirs
                    .iter()
                    .find(|r| r.get("id").is_some() && r["id"] == row["id"])
                {
                    self.learn_one(&row["document_id"], &ours["document_id"]);
                }
            }
        }
    }

    /// `text` with every recorded documentId replaced by strata's.
    pub fn apply(&self, text: &str) -> String {
        self.map.iter().fold(text.to_string(), |t, (from, to)| {
            t.replace(from.as_str(), to)
        })
    }

    /// [`DocumentIds::apply`] on bytes that need not be UTF-8.
    pub fn apply_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        let mut out = bytes.to_vec();
        for (from, to) in &self.map {
            let (from, to) = (from.as_bytes(), to.as_bytes());
            let mut i = 0;
            while let Some(at) = out[i..].windows(from.len()).position(|w| w == from) {
                out.splice(i + at..i + at + from.len(), to.iter().copied());
                i += at + to.len();
            }
        }
        out
    }

    /// `value` with [`DocumentIds::apply`] on every string in it.
    pub fn apply_value(&self, value: &Value) -> Value {
        map_strings(value, &|s| self.apply(s))
    }
}

fn map_strings(value: &Value, f: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::String(s) => Value::String(f(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| map_strings(v, f)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), map_strings(v, f)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `2025-…T…Z` and later: `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$` with a year from 2025.
fn is_now_ish_iso(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let shape = b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[b.len() - 1] == b'Z'
        && match &b[19..b.len() - 1] {
            [] => true,
            [b'.', rest @ ..] => !rest.is_empty() && rest.iter().all(u8::is_ascii_digit),
            _ => false,
        };
    shape && s[..4].parse::<i32>().is_ok_and(|year| year >= 2025)
}

/// An answer body as compared: "now" `createdAt`/`updatedAt`/`publishedAt` → `"<time>"`, and
/// V8's message of a JSON `SyntaxError` → `"<JSON.parse message>"` (status and name stay).
pub fn answer(body: &Value) -> Value {
    let mut out = times(body);
    if let Some(error) = out.get_mut("error").and_then(Value::as_object_mut)
        && error.get("name").and_then(Value::as_str) == Some("SyntaxError")
        && error.get("message").and_then(Value::as_str) != Some(KOA_SYNTAX_MESSAGE)
        && error.contains_key("message")
    {
        error.insert("message".into(), "<JSON.parse message>".into());
    }
    out
}

fn times(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(times).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| {
                    let now =
                        TIME_KEYS.contains(&k.as_str()) && v.as_str().is_some_and(is_now_ish_iso);
                    (k.clone(), if now { "<time>".into() } else { times(v) })
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A stored timestamp from 2025 on: epoch ms (SQLite), or text starting `yyyy-` (PostgreSQL's
/// `"2025-11-24T16:00:00"`, MariaDB's `"2025-11-24 16:00:00.000000"`).
fn is_now_ish_stored(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.as_i64().is_some_and(|ms| ms >= NOW_ISH_MS),
        Value::String(s) => {
            s.as_bytes().get(4) == Some(&b'-')
                && s.get(..4)
                    .and_then(|y| y.parse::<i32>().ok())
                    .is_some_and(|year| year >= 2025)
        }
        _ => false,
    }
}

/// A bcrypt hash (`$2a$10$` and 53 characters of its base64), as Strapi stores a `password`
/// attribute of any name (the salt is random).
fn is_bcrypt(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 60
        && s.starts_with("$2")
        && b[3] == b'$'
        && b[4..6].iter().all(u8::is_ascii_digit)
        && b[6] == b'$'
        && b[7..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'/')
}

/// A column's value as compared: "now" timestamps → `"<time>"`, bcrypt hashes → `"<hash>"`.
fn column(name: &str, value: &Value) -> Value {
    if TIME_COLUMNS.contains(&name) && is_now_ish_stored(value) {
        return "<time>".into();
    }
    if value.as_str().is_some_and(is_bcrypt) {
        return "<hash>".into();
    }
    value.clone()
}

/// A table diff (the recording's `db` shape) as compared: [`column`] on every value, the
/// tables of `ignored` left out.
pub fn tables(diff: &Map<String, Value>, ignored: &[&str]) -> Map<String, Value> {
    let row = |r: &Value| -> Value {
        let cells = r.as_object().into_iter().flatten();
        Value::Object(cells.map(|(c, v)| (c.clone(), column(c, v))).collect())
    };
    let change = |c: &Value| -> Value {
        let cols = c["changed"].as_object().into_iter().flatten();
        let cols: Map<String, Value> = cols
            .map(|(name, pair)| {
                let pair = pair
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|v| column(name, v));
                (name.clone(), Value::Array(pair.collect()))
            })
            .collect();
        serde_json::json!({"key": c["key"], "changed": cols})
    };
    diff.iter()
        .filter(|(t, _)| !ignored.contains(&t.as_str()))
        .map(|(t, d)| {
            let mut out = d.as_object().cloned().unwrap_or_default();
            for (section, f) in [
                ("added", &row as &dyn Fn(&Value) -> Value),
                ("removed", &row),
                ("changed", &change),
            ] {
                if let Some(Value::Array(items)) = d.get(section) {
                    out.insert(section.into(), Value::Array(items.iter().map(f).collect()));
                }
            }
            (t.clone(), Value::Object(out))
        })
        .collect()
}

/// The key a row of a diff is known by: `{"key"}` of a change, else its `id`, else
/// `sqlite_sequence`'s `name`, else the whole row.
fn row_key(item: &Value) -> String {
    if let Some(key) = item.get("key") {
        return key.to_string();
    }
    for column in ["id", "name"] {
        if let Some(v) = item.get(column) {
            return format!("{{\"{column}\":{v}}}");
        }
    }
    item.to_string()
}

/// The first difference between two normalised table diffs, or `None`.
pub fn first_table_difference(
    expected: &Map<String, Value>,
    actual: &Map<String, Value>,
) -> Option<String> {
    let tables: std::collections::BTreeSet<&String> =
        expected.keys().chain(actual.keys()).collect();
    tables.into_iter().find_map(|t| {
        let none = Value::Object(Map::new());
        let (e, a) = (
            expected.get(t).unwrap_or(&none),
            actual.get(t).unwrap_or(&none),
        );
        [
            "added",
            "removed",
            "changed",
            "table_added",
            "table_removed",
        ]
        .into_iter()
        .find_map(|section| section_difference(&format!("{t}.{section}"), &e[section], &a[section]))
    })
}

/// The first difference in one section (`added`, `removed`, `changed`) of a table's diff:
/// rows matched by key (an absent section holds none), then column by column.
fn section_difference(path: &str, expected: &Value, actual: &Value) -> Option<String> {
    let rows = |v: &Value| match v {
        Value::Null => Some(Vec::new()),
        other => other.as_array().cloned(),
    };
    let (Some(e), Some(a)) = (rows(expected), rows(actual)) else {
        return (expected != actual).then(|| {
            format!(
                "{path}: expected {}, got {}",
                short(expected),
                short(actual)
            )
        });
    };
    // In the lists' order (sorted by key, as the recorder sorts them).
    let keyed = |items: &[Value]| -> Map<String, Value> {
        items.iter().map(|i| (row_key(i), i.clone())).collect()
    };
    let (e, a) = (keyed(&e), keyed(&a));
    let missing: Vec<&String> = e.keys().filter(|k| !a.contains_key(*k)).collect();
    let extra: Vec<&String> = a.keys().filter(|k| !e.contains_key(*k)).collect();
    if !missing.is_empty() || !extra.is_empty() {
        let first = missing
            .first()
            .map(|k| format!("; first missing {}", short(&e[*k])))
            .unwrap_or_default()
            + &extra
                .first()
                .map(|k| format!("; first unexpected {}", short(&a[*k])))
                .unwrap_or_default();
        let list = |keys: &[&String]| {
            let shown: Vec<&str> = keys.iter().take(8).map(|k| k.as_str()).collect();
            match keys.len() {
                0..=8 => format!("[{}]", shown.join(", ")),
                n => format!("[{}, … ({n} in all)]", shown.join(", ")),
            }
        };
        return Some(format!(
            "{path}: rows missing {}, unexpected {}{first}",
            list(&missing),
            list(&extra)
        ));
    }
    e.iter().find_map(|(k, row)| {
        // A row's columns, or a change's `changed` columns ([before, after] each).
        let columns_of = |v: &Value| {
            v.get("changed")
                .unwrap_or(v)
                .as_object()
                .cloned()
                .unwrap_or_default()
        };
        let (x, y) = (columns_of(row), columns_of(&a[k]));
        let columns: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
        columns.into_iter().find_map(|c| {
            let (p, q) = (
                x.get(c).unwrap_or(&Value::Null),
                y.get(c).unwrap_or(&Value::Null),
            );
            (!equal(p, q))
                .then(|| format!("{path}[{k}].{c}: expected {}, got {}", short(p), short(q)))
        })
    })
}

/// Equal values, numbers by value (`1 == 1.0`) at any depth.
fn equal(p: &Value, q: &Value) -> bool {
    match (p, q) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| equal(v, w))
        }
        _ => same(p, q),
    }
}

/// `value` as JSON text, cut at 160 characters.
pub fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}
