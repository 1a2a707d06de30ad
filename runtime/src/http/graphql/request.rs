//! What Apollo Server reads of an HTTP request (`runHttpQuery`): a `POST`'s JSON body
//! (parsed before by Strapi's body parser, `write::read_body`) or a `GET`'s search
//! parameters, refused in Apollo's words when they are not a GraphQL request.

use super::*;

/// Apollo's message for a request without a query.
pub(super) const NO_QUERY: &str =
    "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.";

/// A request as Apollo read it: the operation, and its `persistedQuery` extension
/// ([`super::persisted`]).
pub(super) struct Received {
    pub request: async_graphql::Request,
    /// Whether the variables nest deeper than [`graphql::nesting::MAX_NESTING`] (they
    /// are then left out, and the request is refused).
    pub variables_too_deep: bool,
    pub persisted: Option<Value>,
}

/// A `POST` body as Apollo's `runHttpQuery` checks it: a non-empty object (an array is
/// a batch, which Strapi leaves disabled), `query` a string, `variables` and
/// `extensions` objects, `operationName` a string (each may be `null`).
pub(super) fn from_post(body: Value) -> Result<Received, &'static str> {
    let mut body = match body {
        Value::Array(_) => return Err("Operation batching disabled."),
        Value::Object(map) if !map.is_empty() => map,
        _ => return Err("POST body missing, invalid Content-Type, or JSON object has no keys."),
    };
    let query = match body.remove("query") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(q)) => q,
        // graphql-js's parsed document sent as JSON.
        Some(Value::Object(doc)) if doc.get("kind").and_then(Value::as_str) == Some("Document") => {
            return Err(AST_QUERY);
        }
        // `!query`: `0`, `false` and `""` pass as no query.
        Some(v) if !crate::query::values::js_truthy(&v) => String::new(),
        Some(_) => return Err("GraphQL queries must be strings."),
    };
    let variables = body.remove("variables");
    let extensions = body.remove("extensions");
    if variables.as_ref().is_some_and(Value::is_string) {
        return Err(
            "`variables` in a POST body should be provided as an object, not a recursively JSON-encoded string.",
        );
    }
    if extensions.as_ref().is_some_and(Value::is_string) {
        return Err(
            "`extensions` in a POST body should be provided as an object, not a recursively JSON-encoded string.",
        );
    }
    let not_object = |v: &Option<Value>| v.as_ref().is_some_and(|v| !v.is_null() && !v.is_object());
    if not_object(&extensions) {
        return Err("`extensions` in a POST body must be an object if provided.");
    }
    if not_object(&variables) {
        return Err("`variables` in a POST body must be an object if provided.");
    }
    let mut request = async_graphql::Request::new(query);
    match body.remove("operationName") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => request = request.operation_name(name),
        Some(_) => return Err("`operationName` in a POST body must be a string if provided."),
    }
    let variables_too_deep = too_deep(variables.as_ref());
    if let Some(variables @ Value::Object(_)) = variables
        && !variables_too_deep
    {
        request = request.variables(async_graphql::Variables::from_json(variables));
    }
    Ok(Received {
        request,
        variables_too_deep,
        persisted: persisted_query(extensions),
    })
}

/// The `persistedQuery` member of a request's `extensions`.
fn persisted_query(extensions: Option<Value>) -> Option<Value> {
    match extensions {
        Some(Value::Object(mut map)) => map.remove("persistedQuery"),
        _ => None,
    }
}

/// `ensureQueryIsStringOrMissing`'s words for a parsed document.
const AST_QUERY: &str = "GraphQL queries must be strings. It looks like you're sending the internal graphql-js representation of a parsed query in your request instead of a request in the GraphQL query language. You can convert an AST to a string using the `print` function from `graphql`, or use a client like `apollo-client` which converts the internal representation to a string for you.";

/// A `GET`'s search parameters as Apollo reads them: `query`, `operationName`,
/// `variables` and `extensions` each at most once, the last two JSON objects.
pub(super) fn from_get(raw: &str) -> Result<Received, String> {
    let pairs = form_pairs(raw);
    let once = |name: &str| -> Result<Option<&str>, String> {
        let mut found = pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str());
        let first = found.next();
        if found.next().is_some() {
            return Err(format!(
                "The '{name}' search parameter may only be specified once."
            ));
        }
        Ok(first)
    };
    let json_object = |name: &str| -> Result<Option<Value>, String> {
        let Some(text) = once(name)? else {
            return Ok(None);
        };
        match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => Ok(Some(v)),
            Ok(_) => Err(format!(
                "The {name} search parameter should contain a JSON-encoded object."
            )),
            Err(_) => Err(format!(
                "The {name} search parameter contains invalid JSON."
            )),
        }
    };
    let mut request = async_graphql::Request::new(once("query")?.unwrap_or_default());
    if let Some(name) = once("operationName")?.filter(|n| !n.is_empty()) {
        request = request.operation_name(name);
    }
    let variables = json_object("variables")?;
    let extensions = json_object("extensions")?;
    let variables_too_deep = too_deep(variables.as_ref());
    if let Some(variables) = variables
        && !variables_too_deep
    {
        request = request.variables(async_graphql::Variables::from_json(variables));
    }
    Ok(Received {
        request,
        variables_too_deep,
        persisted: persisted_query(extensions),
    })
}

/// Whether `variables` nest deeper than a request may ([`graphql::nesting`]).
fn too_deep(variables: Option<&Value>) -> bool {
    variables.is_some_and(|v| {
        crate::graphql::nesting::variables_exceed(v, crate::graphql::nesting::MAX_NESTING)
    })
}

fn form_pairs(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

pub(super) fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
                (Some(hi), Some(lo)) => {
                    out.push(hi * 16 + lo);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: Option<&u8>) -> Option<u8> {
    char::from(*b?)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}
