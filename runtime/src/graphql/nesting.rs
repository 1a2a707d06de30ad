//! The nesting limit of a GraphQL request: how deep its document's brackets and its
//! variables' values may go before anything recursive (the parser, validation, the
//! conversion of arguments, error paths) walks them.
//!
//! graphql-js has no such limit; its recursion runs on Node's large stack. strata's runs
//! on a thread's, so a list literal nested a thousand deep, or an `and` of an `and`…
//! seven hundred deep, would overflow it and abort the whole server. A request that
//! nests deeper than [`MAX_NESTING`] is refused with a 400 before it is parsed. Real
//! queries stay far below it: the selection depth limit is 10 ([`crate::graphql`]'s
//! callers), and a filter rarely nests past a dozen levels.
//!
//! The same goes for fragments: a fragment that spreads the one before it twice, twenty
//! times over, is a document under 1 KB that selects a million fields once expanded, and
//! every walk that follows spreads (graphql-depth-limit's port, async-graphql's
//! executor) would take minutes. [`document_too_large`] sizes each fragment once and
//! refuses more than [`MAX_EXPANDED_FIELDS`] fields, or spreads chained deeper than
//! [`MAX_NESTING`].
//!
//! The checks walk without recursion, but for one definition's own selections, which
//! [`document_exceeds`] has bounded first.

use std::collections::{HashMap, HashSet};

use async_graphql::Name;
use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use serde_json::Value;

/// The deepest nesting of brackets (`{`, `[`, `(`) in a document, and of lists and
/// objects in a variable's value, that a request may have.
pub const MAX_NESTING: usize = 100;

/// The most fields an operation may select once its fragments are expanded (ten thousand
/// aliases of one field, which Strapi answers, is 10,000).
pub const MAX_EXPANDED_FIELDS: u64 = 50_000;

/// Whether an operation of `doc` selects more than [`MAX_EXPANDED_FIELDS`] fields once
/// its spreads are expanded, or chains spreads deeper than [`MAX_NESTING`]. Each
/// fragment is sized once; a cycle of spreads counts nothing here (the depth check
/// refuses it, as graphql-depth-limit does).
pub fn document_too_large(doc: &ExecutableDocument) -> bool {
    // Without fragments a document is as large as its text, which the body limit bounds.
    if doc.fragments.is_empty() {
        return false;
    }
    let own: HashMap<&Name, Own> = doc
        .fragments
        .iter()
        .map(|(name, f)| (name, Own::of(&f.node.selection_set.node)))
        .collect();
    // Each fragment's (expanded fields, longest chain of spreads), in post-order.
    let mut sized: HashMap<&Name, (u64, usize)> = HashMap::new();
    let mut entered: HashSet<&Name> = HashSet::new();
    for root in own.keys() {
        let mut stack = vec![(*root, false)];
        while let Some((name, children_sized)) = stack.pop() {
            let Some(o) = own.get(name) else {
                continue;
            };
            if sized.contains_key(name) {
                continue;
            }
            if children_sized {
                sized.insert(name, o.expanded(&sized));
            } else if entered.insert(name) {
                stack.push((name, true));
                stack.extend(
                    o.spreads
                        .iter()
                        .filter(|s| !entered.contains(s))
                        .map(|s| (s, false)),
                );
            }
        }
    }
    super::document::operations(doc).into_iter().any(|(_, op)| {
        let (fields, chain) = Own::of(&op.node.selection_set.node).expanded(&sized);
        fields > MAX_EXPANDED_FIELDS || chain > MAX_NESTING
    })
}

/// What one definition selects before its spreads are expanded.
struct Own {
    /// Its fields, at every level.
    fields: u64,
    /// The fragments it spreads, once for each spread.
    spreads: Vec<Name>,
}

impl Own {
    fn of(set: &SelectionSet) -> Own {
        let mut own = Own {
            fields: 0,
            spreads: Vec::new(),
        };
        own.add(set);
        own
    }

    fn add(&mut self, set: &SelectionSet) {
        for item in &set.items {
            match &item.node {
                Selection::Field(f) => {
                    self.fields += 1;
                    self.add(&f.node.selection_set.node);
                }
                Selection::InlineFragment(f) => self.add(&f.node.selection_set.node),
                Selection::FragmentSpread(s) => {
                    self.spreads.push(s.node.fragment_name.node.clone())
                }
            }
        }
    }

    /// Its fields with those of its spreads (`sized`: a fragment not there, undefined or
    /// in a cycle, counts nothing), and its longest chain of spreads.
    fn expanded(&self, sized: &HashMap<&Name, (u64, usize)>) -> (u64, usize) {
        self.spreads
            .iter()
            .fold((self.fields, 0), |(fields, chain), s| {
                let (f, c) = sized.get(s).copied().unwrap_or((0, 0));
                (fields.saturating_add(f), chain.max(c + 1))
            })
    }
}

/// Whether `document` nests brackets deeper than `max`. Strings (`"…"`, block strings
/// `"""…"""`) and comments (`#` to the end of the line) are skipped; a document that
/// does not parse is left to the parser.
pub fn document_exceeds(document: &str, max: usize) -> bool {
    let bytes = document.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' | b'[' | b'(' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b'}' | b']' | b')' => depth = depth.saturating_sub(1),
            b'#' => {
                while bytes.get(i).is_some_and(|&c| c != b'\n' && c != b'\r') {
                    i += 1;
                }
            }
            b'"' if bytes.get(i..i + 3) == Some(b"\"\"\"") => {
                i += 3;
                // A block string ends at the first `"""` not escaped as `\"""`.
                while i < bytes.len() && bytes.get(i..i + 3) != Some(b"\"\"\"") {
                    i += if bytes.get(i..i + 4) == Some(b"\\\"\"\"") {
                        4
                    } else {
                        1
                    };
                }
                i += 2;
            }
            b'"' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    match c {
                        b'\\' => i += 2,
                        b'"' | b'\n' | b'\r' => break,
                        _ => i += 1,
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether the values of object `variables` nest arrays and objects deeper than `max`
/// (a scalar is depth 0, `[]` and `{}` depth 1), checked on the JSON before
/// async-graphql converts it (recursively).
pub fn variables_exceed(variables: &Value, max: usize) -> bool {
    let mut stack: Vec<(&Value, usize)> = match variables {
        Value::Object(fields) => fields.values().map(|v| (v, 0)).collect(),
        _ => return false,
    };
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(fields) => Box::new(fields.values()),
            _ => continue,
        };
        if depth + 1 > max {
            return true;
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_count_outside_strings_and_comments_only() {
        assert!(!document_exceeds("{ a { b { c } } }", 3));
        assert!(document_exceeds("{ a { b { c { d } } } }", 3));
        assert!(!document_exceeds(r#"{ a(s: "{{{{[[[[") }"#, 2));
        assert!(!document_exceeds(r#"{ a(s: "\"{{{{") }"#, 2));
        assert!(!document_exceeds(
            "{ a(s: \"\"\"{{{{ \\\"\"\" {{{{\"\"\") }",
            2
        ));
        assert!(!document_exceeds("{ a # {{{{{{\n }", 1));
        let deep = format!("{{ a(in: {}{}) }}", "[".repeat(500), "]".repeat(500));
        assert!(document_exceeds(&deep, MAX_NESTING));
    }

    fn parsed(text: &str) -> ExecutableDocument {
        async_graphql::parser::parse_query(text).unwrap()
    }

    #[test]
    fn fragments_are_sized_once_each() {
        let doubling = |n: usize| {
            let mut text = format!("query {{ articles {{ ...F{} }} }} ", n - 1);
            text.push_str("fragment F0 on Article { title } ");
            for i in 1..n {
                text.push_str(&format!(
                    "fragment F{i} on Article {{ ...F{0} ...F{0} }} ",
                    i - 1
                ));
            }
            parsed(&text)
        };
        // 2^14 titles and `articles`: allowed; 2^40: refused, and sized at once.
        assert!(!document_too_large(&doubling(15)));
        assert!(document_too_large(&doubling(41)));
        let mut chain = String::from("query { articles { ...F0 } } ");
        for i in 0..150 {
            chain.push_str(&format!(
                "fragment F{i} on Article {{ title ...F{} }} ",
                i + 1
            ));
        }
        chain.push_str("fragment F150 on Article { title }");
        assert!(document_too_large(&parsed(&chain)));
        // A cycle counts nothing here (the depth check answers it).
        assert!(!document_too_large(&parsed(
            "query { articles { ...A } } fragment A on Article { ...B } fragment B on Article { ...A }"
        )));
        assert!(!document_too_large(&parsed(
            "{ articles { title author { name } } }"
        )));
    }

    #[test]
    fn variables_are_measured_without_recursion() {
        let mut v = Value::Null;
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let deep = Value::Object(std::iter::once(("f".to_string(), v)).collect());
        assert!(variables_exceed(&deep, MAX_NESTING));
        let shallow = serde_json::json!({ "f": [[], null] });
        assert!(!variables_exceed(&shallow, 2));
        assert!(variables_exceed(&shallow, 1));
        // serde_json drops a value this deep by recursion: take it apart first.
        let mut v = deep;
        while let Some(inner) = match &mut v {
            Value::Object(o) => o.values_mut().next().map(Value::take),
            Value::Array(a) => a.pop(),
            _ => None,
        } {
            v = inner;
        }
    }
}
