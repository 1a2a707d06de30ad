//! A request's parsed document: its operations in source order, the one a request runs
//! (async-graphql's and graphql-js's choice), and the store of documents already parsed
//! ([`Documents`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

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

/// The type an inline fragment's selections are on: its type condition, else the type
/// it is spread in (`parent`).
pub fn fragment_type<'d>(
    fragment: &'d async_graphql::parser::types::InlineFragment,
    parent: &'d str,
) -> &'d str {
    fragment
        .type_condition
        .as_ref()
        .map_or(parent, |c| c.node.on.node.as_str())
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

/// The documents already parsed, by their text, as Apollo Server keeps them (its
/// `documentStore`): a front end sends the same few queries again and again, and each is
/// parsed once. Each also remembers the requests (operation and variables) that
/// validation passed as plain reads, so the fast path does not validate them again.
///
/// Bounded: a document of more than [`Documents::LARGEST`] bytes of text is not kept,
/// and when the texts kept would pass [`Documents::BUDGET`] bytes, or a document's
/// validated requests [`Documents::REQUESTS`], that store starts again empty (a flood of
/// different documents costs what it cost without the store, never memory).
#[derive(Default)]
pub struct Documents {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    by_text: HashMap<Arc<str>, Arc<Parsed>>,
    bytes: usize,
}

/// A parsed document, and the requests of it validated as plain reads.
pub struct Parsed {
    /// The document.
    pub document: ExecutableDocument,
    validated: Mutex<HashSet<String>>,
    type_conflicts: OnceLock<Vec<Anchored>>,
}

/// A validation error that a rule reports on entering a selection set: where that set
/// starts, and the error's message and locations (line, column).
pub type Anchored = (async_graphql::Pos, (String, Vec<(usize, usize)>));

impl Parsed {
    /// The document's overlapping fields of conflicting types, found by `find`
    /// (`field_merge::type_conflicts`) once per document: the schema is the same for
    /// every request a store of documents serves.
    pub fn type_conflicts(
        &self,
        find: impl FnOnce(&ExecutableDocument) -> Vec<Anchored>,
    ) -> &[Anchored] {
        self.type_conflicts.get_or_init(|| find(&self.document))
    }

    /// What names a request of this document: its operation and its variables' JSON.
    pub fn request_key(operation: Option<&str>, variables: &serde_json::Value) -> String {
        let mut key = operation.unwrap_or_default().to_owned();
        key.push('\0');
        key.push_str(&variables.to_string());
        key
    }

    /// Whether validation passed this request (by [`Parsed::request_key`]).
    pub fn is_validated(&self, key: &str) -> bool {
        self.validated.lock().is_ok_and(|v| v.contains(key))
    }

    /// Remembers that validation passed this request.
    pub fn validated(&self, key: String) {
        if let Ok(mut validated) = self.validated.lock() {
            if validated.len() >= Documents::REQUESTS {
                validated.clear();
            }
            validated.insert(key);
        }
    }
}

impl Documents {
    /// The largest document text kept, in bytes.
    pub const LARGEST: usize = 16 * 1024;
    /// The most bytes of document text kept at once (a parsed document takes several
    /// times the memory of its text).
    pub const BUDGET: usize = 1024 * 1024;
    /// The most validated requests kept per document.
    pub const REQUESTS: usize = 256;

    /// The document of `text`, parsed now or before.
    ///
    /// # Errors
    ///
    /// The parser's error (not kept: the text is parsed again next time).
    pub fn parse(&self, text: &str) -> Result<Arc<Parsed>, async_graphql::parser::Error> {
        if let Some(parsed) = self
            .kept
            .lock()
            .ok()
            .and_then(|k| k.by_text.get(text).cloned())
        {
            return Ok(parsed);
        }
        let parsed = Arc::new(Parsed {
            document: async_graphql::parser::parse_query(text)?,
            validated: Mutex::default(),
            type_conflicts: OnceLock::new(),
        });
        if text.len() <= Self::LARGEST
            && let Ok(mut kept) = self.kept.lock()
        {
            if kept.bytes + text.len() > Self::BUDGET {
                *kept = Kept::default();
            }
            if kept
                .by_text
                .insert(Arc::from(text), parsed.clone())
                .is_none()
            {
                kept.bytes += text.len();
            }
        }
        Ok(parsed)
    }
}
