//! Why a write was refused, in the terms of Strapi's answer.

use serde_json::{Value, json};

use crate::store::StoreError;

/// One failed rule of an attribute (an entry of `details.errors[]`): the typed form
/// the typed client and store hand out too.
pub use crate::typed::FieldError;

/// A refused or failed write.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// 400 `ValidationError` with Strapi's `details` (`{}`, `{key, path, source}` or
    /// `{errors: [...]}`).
    #[error("{message}")]
    Validation {
        /// The message.
        message: String,
        /// The details object.
        details: Value,
    },
    /// 400 `ApplicationError` (a component id that belongs to another entity).
    #[error("{0}")]
    Application(String),
    /// 400 named `Error`, without details: what Strapi answers for a plain `Error` it
    /// throws with a status (a zone item's id that belongs to another entity).
    #[error("{0}")]
    Plain(String),
    /// 404: no such document.
    #[error("Not Found")]
    NotFound,
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl WriteError {
    /// A 400 with a bare message and empty details (dates, missing `data`, relations).
    pub fn bare(message: impl Into<String>) -> Self {
        WriteError::Validation {
            message: message.into(),
            details: json!({}),
        }
    }

    /// Strapi's `Invalid key <key>` (with ` at <path>` when nested). `path` is `None`
    /// when Strapi leaves it out (`id`, `documentId`), `Some(None)` for null.
    pub fn invalid_key(key: &str, path: Option<Option<&str>>) -> Self {
        let message = match path.flatten() {
            Some(p) if p != key => format!("Invalid key {key} at {p}"),
            _ => format!("Invalid key {key}"),
        };
        let details = match path {
            None => json!({"key": key, "source": "body"}),
            Some(p) => json!({"key": key, "path": p, "source": "body"}),
        };
        WriteError::Validation { message, details }
    }

    /// Replaces each error's `value` that is `old` (as [`WriteError::fields`] wrote it)
    /// with `new`.
    pub fn replace_value(&mut self, old: &Value, new: &Value) {
        let WriteError::Validation { details, .. } = self else {
            return;
        };
        let Some(errors) = details.get_mut("errors").and_then(Value::as_array_mut) else {
            return;
        };
        let old = js_numbers(old.clone());
        for e in errors {
            if let Some(v) = e.get_mut("value").filter(|v| **v == old) {
                *v = js_numbers(new.clone());
            }
        }
    }

    /// Adds `failure` after yup's errors (a [`WriteError::fields`] error; any other is
    /// left as it is), with the message of the longer list.
    pub fn push_field(&mut self, failure: FieldError) {
        let WriteError::Validation { message, details } = self else {
            return;
        };
        let Some(errors) = details.get_mut("errors").and_then(Value::as_array_mut) else {
            return;
        };
        if let WriteError::Validation { details: one, .. } = WriteError::fields(vec![failure])
            && let Some(Value::Array(mut added)) = one.get("errors").cloned()
        {
            errors.append(&mut added);
        }
        *message = format!("{} errors occurred", errors.len());
    }

    /// yup's errors: the first message, or `"<n> errors occurred"`.
    pub fn fields(errors: Vec<FieldError>) -> Self {
        let message = match errors.as_slice() {
            [one] => one.message.clone(),
            many => format!("{} errors occurred", many.len()),
        };
        let list: Vec<Value> = errors
            .into_iter()
            .map(|e| {
                let mut o =
                    json!({"path": e.path, "message": e.message, "name": "ValidationError"});
                if let (Some(v), Some(map)) = (e.value, o.as_object_mut()) {
                    map.insert("value".into(), js_numbers(v));
                }
                o
            })
            .collect();
        WriteError::Validation {
            message,
            details: json!({ "errors": list }),
        }
    }

    /// One yup error.
    pub fn field(path: &[&str], message: impl Into<String>, value: Option<Value>) -> Self {
        Self::fields(vec![FieldError {
            path: path.iter().map(|s| s.to_string()).collect(),
            message: message.into(),
            value,
        }])
    }
}

/// A value as `JSON.stringify` writes it back: a whole number without a fraction (`7`,
/// not `7.0`) and a negative zero as `0`, the way Strapi echoes a value it parsed.
fn js_numbers(v: Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(x) if n.is_f64() && x.fract() == 0.0 && x.abs() < 9.0e15 => Value::from(x as i64),
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(js_numbers).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, x)| (k, js_numbers(x))).collect()),
        other => other,
    }
}
