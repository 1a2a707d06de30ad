//! A request's parsed document: its operations in source order, and the one a request
//! runs (async-graphql's and graphql-js's choice).

use async_graphql::Positioned;
use async_graphql::parser::types::{DocumentOperations, ExecutableDocument, OperationDefinition};

/// The operations of the document, each with its name, in source order.
pub fn operations(
    doc: &ExecutableDocument,
) -> Vec<(Option<&str>, &Positioned<OperationDefinition>)> {
    match &doc.operations {
        DocumentOperations::Single(op) => vec![(None, op)],
        DocumentOperations::Multiple(ops) => {
            let mut ops: Vec<_> = ops.iter().map(|(n, op)| (Some(n.as_str()), op)).collect();
            ops.sort_by_key(|(_, op)| (op.pos.line, op.pos.column));
            ops
        }
    }
}

/// The operation a request runs: the one `name` names, else the only one (named or
/// not); `None` when there is no such operation or the choice is ambiguous.
pub fn selected_operation<'d>(
    doc: &'d ExecutableDocument,
    name: Option<&str>,
) -> Option<&'d OperationDefinition> {
    match (&doc.operations, name) {
        (DocumentOperations::Single(op), None) => Some(&op.node),
        (DocumentOperations::Single(_), Some(_)) => None,
        (DocumentOperations::Multiple(ops), Some(name)) => ops
            .iter()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, op)| &op.node),
        (DocumentOperations::Multiple(ops), None) if ops.len() == 1 => {
            ops.values().next().map(|op| &op.node)
        }
        (DocumentOperations::Multiple(_), None) => None,
    }
}
