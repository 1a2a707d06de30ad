//! What Apollo Server and Strapi check before an operation runs: the CSRF rule, the
//! depth limit, introspection when it is off, a mutation over `GET`; and graphql-js's
//! wording of validation errors.

use super::*;

/// Apollo's CSRF prevention: a request must be one a browser preflights (a
/// `Content-Type` other than the three simple ones, or a non-empty
/// `x-apollo-operation-name` or `apollo-require-preflight`).
pub(super) fn preflighted(headers: &HeaderMap) -> bool {
    let simple = [
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "text/plain",
    ];
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        });
    if content_type.is_some_and(|t| !simple.contains(&t.as_str())) {
        return true;
    }
    ["x-apollo-operation-name", "apollo-require-preflight"]
        .iter()
        .any(|h| headers.get(*h).is_some_and(|v| !v.is_empty()))
}

pub(super) const CSRF_MESSAGE: &str = "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of application/x-www-form-urlencoded, multipart/form-data, text/plain) or provide a non-empty value for one of the following headers: x-apollo-operation-name, apollo-require-preflight\n";

/// Strapi's `depthLimit` (graphql-depth-limit's `determineDepth`): a field deeper than
/// `max` (top-level fields are at depth 0) is an error at that field, for every
/// operation of the document; `__` fields are not counted.
pub(super) fn depth_errors(doc: &ExecutableDocument, max: usize) -> Vec<Value> {
    let mut errors = Vec::new();
    for (name, op) in graphql::document::operations(doc) {
        let mut walk = DepthWalk {
            doc,
            max,
            name: name.unwrap_or(""),
            spreads: Vec::new(),
            errors: &mut errors,
        };
        walk.selections(&op.node.selection_set.node, 0);
    }
    errors
}

pub(super) struct DepthWalk<'a> {
    doc: &'a ExecutableDocument,
    max: usize,
    name: &'a str,
    /// The fragments being expanded (a cycle is not followed again).
    spreads: Vec<&'a str>,
    errors: &'a mut Vec<Value>,
}

impl<'a> DepthWalk<'a> {
    pub(super) fn selections(&mut self, set: &'a SelectionSet, depth: usize) {
        for item in &set.items {
            self.selection(item, depth);
        }
    }

    pub(super) fn selection(&mut self, item: &'a Positioned<Selection>, depth: usize) {
        if depth > self.max {
            self.errors.push(json!({
                "message": format!("'{}' exceeds maximum operation depth of {}", self.name, self.max),
                "locations": [{"line": item.pos.line, "column": item.pos.column}],
                "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
            }));
            return;
        }
        match &item.node {
            Selection::Field(field) => {
                if !field.node.name.node.starts_with("__") {
                    self.selections(&field.node.selection_set.node, depth + 1);
                }
            }
            Selection::InlineFragment(fragment) => {
                self.selections(&fragment.node.selection_set.node, depth);
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.as_str();
                if self.spreads.contains(&name) {
                    return;
                }
                if let Some(fragment) = self.doc.fragments.get(&spread.node.fragment_name.node) {
                    self.spreads.push(name);
                    self.selections(&fragment.node.selection_set.node, depth);
                    self.spreads.pop();
                }
            }
        }
    }
}

/// A `GRAPHQL_VALIDATION_FAILED` error at `(line, column)` positions.
pub(super) fn validation_error(message: &str, at: &[(usize, usize)]) -> Value {
    let locations: Vec<Value> = at
        .iter()
        .map(|(line, column)| json!({"line": line, "column": column}))
        .collect();
    // An error made without a node has no `locations` key (`GraphQLError.toJSON`).
    if locations.is_empty() {
        return json!({
            "message": message,
            "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
        });
    }
    json!({
        "message": message,
        "locations": locations,
        "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"},
    })
}

/// async-graphql's validation messages in graphql-js's words, where they say the same.
pub(super) fn graphql_js_message(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("Unknown field ") {
        return format!("Cannot query field {rest}");
    }
    // `Invalid value for argument "filters", unknown field "x" of type "T"`.
    if message.starts_with("Invalid value for argument ")
        && let Some((_, rest)) = message.split_once(", unknown field ")
        && let Some((field, ty)) = rest.split_once(" of type ")
    {
        return format!("Field {field} is not defined by type {ty}.");
    }
    // `NoUnusedVariablesRule` and `NoUnusedFragmentsRule`.
    if let Some(rest) = message.strip_prefix("Variable ") {
        if let Some((variable, operation)) = rest.split_once(" is not used by operation ") {
            return format!("Variable {variable} is never used in operation {operation}.");
        }
        if let Some(variable) = rest.strip_suffix(" is not used") {
            return format!("Variable {variable} is never used.");
        }
    }
    if message.starts_with("Fragment ") && message.ends_with(" is never used") {
        return format!("{message}.");
    }
    message.to_owned()
}

/// graphql-js's `getOperationAST` failures in Apollo's words (`OPERATION_RESOLUTION_FAILURE`,
/// without locations), for async-graphql's messages of the same cases.
pub(super) fn operation_resolution_error(message: &str) -> Option<Value> {
    let message = if message == "Operation name required in request." {
        "Must provide operation name if query contains multiple operations.".to_owned()
    } else {
        let name = message.strip_prefix("Unknown operation named ")?;
        format!("Unknown operation named {}.", name.trim_end_matches('.'))
    };
    Some(json!({"message": message, "extensions": {"code": "OPERATION_RESOLUTION_FAILURE"}}))
}

/// Whether the operation the request runs is a mutation (the named one, else the only
/// one, named or not; an ambiguous document is left to the executor, which refuses it).
pub(super) fn runs_mutation(doc: &ExecutableDocument, name: Option<&str>) -> bool {
    use async_graphql::parser::types::OperationType;
    graphql::document::selected_operation(doc, name)
        .is_some_and(|op| op.ty == OperationType::Mutation)
}

pub(super) const INTROSPECTION_DISABLED: &str = "GraphQL introspection is not allowed by Apollo Server, but the query contained __schema or __type. To enable introspection, pass introspection: true to ApolloServer in production";

/// Apollo's rule when introspection is off: an error at every `__schema` and `__type`
/// field of the document (operations and fragments), in source order.
pub(super) fn introspection_errors(doc: &ExecutableDocument) -> Vec<Value> {
    pub(super) fn walk(set: &SelectionSet, found: &mut Vec<async_graphql::Pos>) {
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    let name = field.node.name.node.as_str();
                    if name == "__schema" || name == "__type" {
                        found.push(field.pos);
                    }
                    walk(&field.node.selection_set.node, found);
                }
                Selection::InlineFragment(fragment) => {
                    walk(&fragment.node.selection_set.node, found);
                }
                Selection::FragmentSpread(_) => {}
            }
        }
    }
    let mut found = Vec::new();
    for (_, op) in doc.operations.iter() {
        walk(&op.node.selection_set.node, &mut found);
    }
    for fragment in doc.fragments.values() {
        walk(&fragment.node.selection_set.node, &mut found);
    }
    found.sort_by_key(|p| (p.line, p.column));
    found
        .into_iter()
        .map(|p| {
            json!({
                "message": INTROSPECTION_DISABLED,
                "locations": [{"line": p.line, "column": p.column}],
                "extensions": {
                    "validationErrorCode": "INTROSPECTION_DISABLED",
                    "code": "GRAPHQL_VALIDATION_FAILED",
                },
            })
        })
        .collect()
}
