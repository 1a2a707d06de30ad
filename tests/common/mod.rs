//! Helpers shared by the end-to-end tests: the golden fixture, the public role of the
//! recording, and JSON comparison by compare.py's rules.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use strata::query::Permissions;
use strata::schema::Model;

/// The blog fixture folder.
pub fn blog() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/blog")
}

/// Every golden, in file order.
pub fn goldens() -> Vec<Value> {
    let mut files: Vec<_> = std::fs::read_dir(blog().join("goldens"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect()
}

/// The public role of the recording: `find` on article, author, category, tag and users.
pub fn public_permissions(model: &Model) -> Permissions {
    let mut p = Permissions::none(model);
    for uid in [
        "api::article.article",
        "api::author.author",
        "api::category.category",
        "api::tag.tag",
        "plugin::users-permissions.user",
    ] {
        p.allow(model.by_uid(uid).unwrap().id);
    }
    p
}

/// Percent-encodes what compare.py encodes: everything outside `!`..`~`.
pub fn encode(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        if ('!'..='~').contains(&c) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// The first difference between expected `a` and actual `b` by compare.py's rules
/// (objects regardless of key order, arrays in order, numbers by value), or `None`.
pub fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            (x.as_f64() != y.as_f64()).then(|| format!("{path}: expected {x}, got {y}"))
        }
        (Value::Object(x), Value::Object(y)) => {
            let missing: Vec<_> = x.keys().filter(|k| !y.contains_key(*k)).collect();
            let extra: Vec<_> = y.keys().filter(|k| !x.contains_key(*k)).collect();
            if !missing.is_empty() || !extra.is_empty() {
                return Some(format!(
                    "{path}: missing keys {missing:?}, unexpected keys {extra:?}"
                ));
            }
            x.iter()
                .find_map(|(k, v)| first_difference(v, &y[k], &format!("{path}.{k}")))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!(
                    "{path}: expected {} items, got {}",
                    x.len(),
                    y.len()
                ));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]")))
        }
        _ => (a != b).then(|| format!("{path}: expected {a}, got {b}")),
    }
}
