//! The reviewed deviations of `writes/deviations.json`, of two kinds:
//! * a crash (`status`): strata answers a 4xx on purpose where Strapi answered 500 (the
//!   project's rule: bad input never gets a 500). Such a step is not compared with its
//!   recording; instead strata's answer must have the listed status in Strapi's error
//!   shape, and the step must write nothing (the recorded change of `strapi_api_tokens`,
//!   a token's `last_used_at`, excepted);
//! * a stored value (`substitute`: pairs of a recorded JSON value and strata's): the step
//!   is compared as any other once every recorded value of a pair, in its answer and its
//!   table changes, is replaced by strata's.

use serde_json::{Map, Value};

use super::Backend;
use super::http::Answer;

/// The only table a deviating step may change: Strapi writes a token's `last_used_at`
/// when it authenticates, before the step fails.
const TOKEN_TABLE: &str = "strapi_api_tokens";

/// The error keys of Strapi's error shape; `details` may be absent.
const ERROR_KEYS: [&str; 4] = ["status", "name", "message", "details"];

/// One reviewed step.
pub struct Deviation {
    pub sequence: String,
    pub step: u64,
    /// `"all"`, or the folder name of one backend.
    backend: String,
    /// A crash's status (`None` for a stored-value deviation).
    status: Option<u64>,
    /// A stored-value deviation's pairs (recorded value, strata's value).
    pub substitute: Vec<(Value, Value)>,
    /// The error's `name`, when the entry gives one.
    name: Option<String>,
}

/// Every entry of `writes/deviations.json`; each must give a reason.
pub fn load() -> Vec<Deviation> {
    let file = super::writes().join("deviations.json");
    let text = std::fs::read_to_string(&file).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    let entries = json["deviations"].as_array().cloned().unwrap_or_default();
    entries.iter().map(parse).collect()
}

fn parse(entry: &Value) -> Deviation {
    let text = |key: &str| entry[key].as_str().map(str::to_string);
    assert!(
        text("reason").is_some_and(|r| !r.is_empty()),
        "a deviation without a reason: {entry}"
    );
    Deviation {
        sequence: text("sequence").unwrap(),
        step: entry["step"].as_u64().unwrap(),
        backend: text("backend").unwrap(),
        status: entry["status"].as_u64(),
        substitute: entry["substitute"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pair| (pair[0].clone(), pair[1].clone()))
            .collect(),
        name: text("name"),
    }
}

/// The deviation of step `n` of `sequence` on `backend`, if one is listed.
pub fn find<'a>(
    all: &'a [Deviation],
    sequence: &str,
    n: u64,
    backend: Backend,
) -> Option<&'a Deviation> {
    all.iter()
        .find(|d| d.sequence == sequence && d.step == n && d.applies_to(backend))
}

impl Deviation {
    /// Whether the entry is about `backend`'s recording.
    pub fn applies_to(&self, backend: Backend) -> bool {
        self.backend == "all" || self.backend == backend.folder()
    }

    /// The first way strata's answer is not the listed status in Strapi's error shape
    /// (`{"data": null, "error": {status, name, message[, details]}}`, JSON), or `None`.
    pub fn answer_difference(&self, got: &Answer) -> Option<String> {
        let status = self.status.unwrap_or_default();
        if u64::from(got.status) != status {
            return Some(format!(
                "status: expected {status} (a reviewed deviation), got {}",
                got.status
            ));
        }
        if got.content_type.as_deref() != Some("application/json; charset=utf-8") {
            return Some(format!("content type: got {:?}", got.content_type));
        }
        let shape = self.shape_difference(&got.body);
        shape.map(|d| format!("answer {d} (a reviewed deviation); body {}", got.body))
    }

    fn shape_difference(&self, body: &Value) -> Option<String> {
        let top = body
            .as_object()
            .filter(|o| o.len() == 2 && o.get("data") == Some(&Value::Null));
        let Some(error) = top.and_then(|o| o["error"].as_object()) else {
            return Some("is not {\"data\": null, \"error\": {…}}".to_string());
        };
        if let Some(key) = error.keys().find(|k| !ERROR_KEYS.contains(&k.as_str())) {
            return Some(format!("$.error.{key}: not a key of Strapi's errors"));
        }
        let name = error.get("name").and_then(Value::as_str);
        if error.get("status").and_then(Value::as_u64) != self.status
            || name.is_none()
            || !error.get("message").is_some_and(Value::is_string)
            || !error.get("details").is_none_or(Value::is_object)
        {
            return Some("$.error: not {status, name, message, details}".to_string());
        }
        match &self.name {
            Some(want) if name != Some(want.as_str()) => {
                Some(format!("$.error.name: expected {want:?}, got {name:?}"))
            }
            _ => None,
        }
    }
}

impl Deviation {
    /// Whether this is a crash (a status instead of the recorded answer), not a stored
    /// value.
    pub fn is_crash(&self) -> bool {
        self.status.is_some()
    }

    /// `recorded` with every recorded value of a `substitute` pair replaced by strata's.
    pub fn substituted(&self, recorded: &Value) -> Value {
        if let Some((_, to)) = self.substitute.iter().find(|(from, _)| from == recorded) {
            return to.clone();
        }
        match recorded {
            Value::Array(a) => Value::Array(a.iter().map(|v| self.substituted(v)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), self.substituted(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// The changes a deviating step may make: the recorded ones of the token table only.
pub fn allowed_tables(recorded: &Map<String, Value>) -> Map<String, Value> {
    recorded
        .iter()
        .filter(|(table, _)| table.as_str() == TOKEN_TABLE)
        .map(|(t, d)| (t.clone(), d.clone()))
        .collect()
}
