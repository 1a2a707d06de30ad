//! graphql-js's `OverlappingFieldsCanBeMergedRule`, the part async-graphql leaves out:
//! fields of one response key whose parents are different object types (a dynamic zone's
//! members, through `... on`) may be different fields with different arguments, since
//! an entry is only ever one of them, but they must not return conflicting types
//! (`doTypesConflict`: a list against a non-list, a non-null against a nullable, two
//! different scalars or enums), and so on down their subfields. Strapi answers such a
//! document with a 400 `GRAPHQL_VALIDATION_FAILED`:
//!
//! ```text
//! Fields "theme" conflict because they return conflicting types "ENUM_A" and "ENUM_B".
//! Use different aliases on the fields to fetch both if this was intentional.
//! ```
//!
//! The conflicts of fields under one parent type (different fields or arguments under one
//! key) stay async-graphql's to report, and the handler words them as graphql-js does.
//! Named fragments are expanded in place, once per selection set, where graphql-js
//! compares them apart; the conflicts found are the same.

use std::collections::HashSet;

use async_graphql::Positioned;
use async_graphql::parser::Pos;
use async_graphql::parser::types::{
    ExecutableDocument, Field, OperationType, Selection, SelectionSet,
};
use indexmap::IndexMap;

use super::graphql_js::type_text;
use super::introspect::{Reason, same_arguments};
use super::ir::{Kind, Registry, Ty};

/// A conflict's error, and where graphql-js reports it: the start of the selection set it
/// was found in (its first selection), since the rule reports on entering a set, before
/// the other rules visit what the set holds.
pub type Found = super::document::Anchored;

/// The type conflicts of the document's overlapping fields, in the order graphql-js
/// reports them: selection sets in the order it meets them, within one the response keys
/// in the order they first come and each key's pairs in order; each with the positions of
/// the fields involved.
pub fn type_conflicts(registry: &Registry, doc: &ExecutableDocument) -> Vec<Found> {
    if !has_fragments(doc) {
        // Without type conditions every field of a selection set has the same parent.
        return Vec::new();
    }
    let mut check = Check {
        registry,
        doc,
        errors: Vec::new(),
        pairs: std::cell::Cell::new(0),
    };
    for (_, op) in doc.operations.iter() {
        let root = match op.node.ty {
            OperationType::Query => "Query",
            OperationType::Mutation => "Mutation",
            OperationType::Subscription => continue,
        };
        check.sets(root, &op.node.selection_set.node, 0);
    }
    for fragment in doc.fragments.values() {
        let on = fragment.node.type_condition.node.on.node.as_str();
        check.sets(on, &fragment.node.selection_set.node, 0);
    }
    check.errors
}

/// Whether any selection has a type condition or spreads a fragment.
fn has_fragments(doc: &ExecutableDocument) -> bool {
    fn within(set: &SelectionSet) -> bool {
        set.items.iter().any(|item| match &item.node {
            Selection::Field(f) => within(&f.node.selection_set.node),
            Selection::InlineFragment(_) | Selection::FragmentSpread(_) => true,
        })
    }
    !doc.fragments.is_empty()
        || doc
            .operations
            .iter()
            .any(|(_, op)| within(&op.node.selection_set.node))
}

/// A field as selected: the type it is selected on, its node and its type (`None` for a
/// field the type does not have: another rule's error).
struct Selected<'a> {
    parent: &'a str,
    node: &'a Positioned<Field>,
    ty: Option<Ty>,
}

/// A conflict: why, and the fields of each side involved.
type Conflict = (Reason, Vec<Pos>, Vec<Pos>);

/// Past this depth of selection sets the walk stops (the handler's depth limit comes
/// first; this guards embedders).
const MAX_DEPTH: usize = 64;

/// The most pairs of fields compared in one document. graphql-js compares every pair
/// of one response key, and their subfields pair by pair, which grows with the square
/// of a document's repeated keys; past this many the check stops with what it found
/// (a document of such repetition is refused or answered, never a hang).
const MAX_PAIRS: usize = 100_000;

struct Check<'a> {
    registry: &'a Registry,
    doc: &'a ExecutableDocument,
    errors: Vec<Found>,
    /// The pairs compared so far.
    pairs: std::cell::Cell<usize>,
}

impl<'a> Check<'a> {
    /// Checks `set` (on type `parent`) and every selection set under it.
    fn sets(&mut self, parent: &'a str, set: &'a SelectionSet, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        self.within(parent, set);
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    let below = &field.node.selection_set.node;
                    if let (false, Some(ty)) =
                        (below.items.is_empty(), self.field_type(parent, &field.node))
                    {
                        let named = self.registry.types.get(ty.base()).map(|t| t.name.as_str());
                        if let Some(named) = named {
                            self.sets(named, below, depth + 1);
                        }
                    }
                }
                Selection::InlineFragment(fragment) => {
                    let on = super::document::fragment_type(&fragment.node, parent);
                    self.sets(on, &fragment.node.selection_set.node, depth + 1);
                }
                Selection::FragmentSpread(_) => {}
            }
        }
    }

    /// graphql-js's `collectConflictsWithin`: every pair of one response key.
    fn within(&mut self, parent: &'a str, set: &'a SelectionSet) {
        let Some(anchor) = set.items.first().map(|item| item.pos) else {
            return;
        };
        let fields = self.collect(parent, set);
        for (key, selected) in &fields {
            for (i, a) in selected.iter().enumerate() {
                for b in &selected[i + 1..] {
                    if let Some((reason, mut at, more)) = self.conflict(false, a, b, 0) {
                        at.extend(more);
                        let message = reason.error_message(key);
                        let at = at.into_iter().map(|p| (p.line, p.column)).collect();
                        self.errors.push((anchor, (message, at)));
                    }
                }
            }
        }
    }

    /// The fields of `set` on `parent` by response key, in the order they come, inline
    /// fragments and spread fragments (once each) followed.
    fn collect(
        &self,
        parent: &'a str,
        set: &'a SelectionSet,
    ) -> IndexMap<&'a str, Vec<Selected<'a>>> {
        let mut out = IndexMap::new();
        self.collect_into(parent, set, &mut HashSet::new(), &mut out, 0);
        out
    }

    fn collect_into(
        &self,
        parent: &'a str,
        set: &'a SelectionSet,
        spread: &mut HashSet<&'a str>,
        out: &mut IndexMap<&'a str, Vec<Selected<'a>>>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    let key = field.node.response_key().node.as_str();
                    out.entry(key).or_default().push(Selected {
                        parent,
                        node: field,
                        ty: self.field_type(parent, &field.node),
                    });
                }
                Selection::InlineFragment(fragment) => {
                    let on = super::document::fragment_type(&fragment.node, parent);
                    self.collect_into(
                        on,
                        &fragment.node.selection_set.node,
                        spread,
                        out,
                        depth + 1,
                    );
                }
                Selection::FragmentSpread(s) => {
                    let name = s.node.fragment_name.node.as_str();
                    if !spread.insert(name) {
                        continue;
                    }
                    if let Some(fragment) = self.doc.fragments.get(name) {
                        let on = fragment.node.type_condition.node.on.node.as_str();
                        self.collect_into(
                            on,
                            &fragment.node.selection_set.node,
                            spread,
                            out,
                            depth + 1,
                        );
                    }
                }
            }
        }
    }

    /// graphql-js's `findConflict`, its type part: two fields of one response key.
    fn conflict(
        &self,
        parents_exclusive: bool,
        a: &Selected<'a>,
        b: &Selected<'a>,
        depth: usize,
    ) -> Option<Conflict> {
        self.pairs.set(self.pairs.get() + 1);
        if self.pairs.get() > MAX_PAIRS {
            return None;
        }
        let exclusive = parents_exclusive
            || (a.parent != b.parent && self.is_object(a.parent) && self.is_object(b.parent));
        if !exclusive
            && (a.node.node.name.node != b.node.node.name.node
                || !same_arguments(&a.node.node, &b.node.node))
        {
            // async-graphql's to report.
            return None;
        }
        if let (Some(ta), Some(tb)) = (&a.ty, &b.ty)
            && self.types_conflict(ta, tb)
        {
            let reason = format!(
                "they return conflicting types \"{}\" and \"{}\"",
                type_text(ta),
                type_text(tb)
            );
            return Some((Reason::Text(reason), vec![a.node.pos], vec![b.node.pos]));
        }
        let (set_a, set_b) = (
            &a.node.node.selection_set.node,
            &b.node.node.selection_set.node,
        );
        if set_a.items.is_empty() || set_b.items.is_empty() || depth > MAX_DEPTH {
            return None;
        }
        let (Some(ta), Some(tb)) = (&a.ty, &b.ty) else {
            return None;
        };
        let first = self.collect(ta.base(), set_a);
        let second = self.collect(tb.base(), set_b);
        let mut reasons = Vec::new();
        let (mut at_a, mut at_b) = (vec![a.node.pos], vec![b.node.pos]);
        for (key, xs) in &first {
            let Some(ys) = second.get(key) else {
                continue;
            };
            for x in xs {
                for y in ys {
                    if let Some((reason, more_a, more_b)) =
                        self.conflict(exclusive, x, y, depth + 1)
                    {
                        reasons.push(((*key).to_owned(), reason));
                        at_a.extend(more_a);
                        at_b.extend(more_b);
                    }
                }
            }
        }
        (!reasons.is_empty()).then_some((Reason::Sub(reasons), at_a, at_b))
    }

    /// graphql-js's `doTypesConflict`.
    fn types_conflict(&self, a: &Ty, b: &Ty) -> bool {
        match (a, b) {
            (Ty::List(x), Ty::List(y)) => self.types_conflict(x, y),
            (Ty::List(_), _) | (_, Ty::List(_)) => true,
            (Ty::NonNull(x), Ty::NonNull(y)) => self.types_conflict(x, y),
            (Ty::NonNull(_), _) | (_, Ty::NonNull(_)) => true,
            (Ty::Named(x), Ty::Named(y)) => (self.is_leaf(x) || self.is_leaf(y)) && x != y,
        }
    }

    /// The type of field `field` selected on `parent` (`__typename` on any type).
    fn field_type(&self, parent: &str, field: &Field) -> Option<Ty> {
        let name = field.name.node.as_str();
        if name == "__typename" {
            return Some(Ty::nn("String"));
        }
        super::graphql_js::field_def(self.registry, parent, name).map(|f| f.ty.clone())
    }

    fn is_object(&self, name: &str) -> bool {
        self.registry
            .types
            .get(name)
            .is_some_and(|t| matches!(t.kind, Kind::Object(_)))
    }

    /// A scalar or an enum (a built-in scalar is not in the registry).
    fn is_leaf(&self, name: &str) -> bool {
        self.registry
            .types
            .get(name)
            .is_none_or(|t| matches!(t.kind, Kind::Scalar { .. } | Kind::Enum(_)))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::graphql::ir::FieldDef;

    /// `Query { items: [Zone] }`, `Zone = A | B`, `A { t: String, o: A }`,
    /// `B { t: Int, o: B, s: String }`.
    fn registry() -> Registry {
        let mut r = Registry::default();
        r.add(
            "Query",
            None,
            Kind::Object(vec![FieldDef::new("items", Ty::list("Zone"))]),
        );
        r.add("Zone", None, Kind::Union(vec!["A".into(), "B".into()]));
        r.add(
            "A",
            None,
            Kind::Object(vec![
                FieldDef::new("t", Ty::named("String")),
                FieldDef::new("o", Ty::named("A")),
            ]),
        );
        r.add(
            "B",
            None,
            Kind::Object(vec![
                FieldDef::new("t", Ty::named("Int")),
                FieldDef::new("o", Ty::named("B")),
                FieldDef::new("s", Ty::named("String")),
            ]),
        );
        r
    }

    fn conflicts(query: &str) -> Vec<String> {
        let doc = async_graphql::parser::parse_query(query).unwrap();
        type_conflicts(&registry(), &doc)
            .into_iter()
            .map(|(_, (message, _))| message)
            .collect()
    }

    #[test]
    fn members_may_differ_in_fields_but_not_in_types() {
        assert_eq!(
            conflicts("{ items { ... on A { t } ... on B { t } } }"),
            [
                "Fields \"t\" conflict because they return conflicting types \"String\" and \"Int\". Use different aliases on the fields to fetch both if this was intentional."
            ]
        );
        // Different fields of one type under one key: allowed on exclusive parents.
        assert!(conflicts("{ items { ... on A { x: t } ... on B { x: s } } }").is_empty());
        // Objects do not conflict by their names; their subfields are compared.
        assert_eq!(
            conflicts("{ items { ... on A { o { t } } ... on B { o { t } } } }"),
            [
                "Fields \"o\" conflict because subfields \"t\" conflict because they return conflicting types \"String\" and \"Int\". Use different aliases on the fields to fetch both if this was intentional."
            ]
        );
        // Without fragments nothing is looked at.
        assert!(conflicts("{ items { __typename } }").is_empty());
    }

    #[test]
    fn a_document_of_many_repeated_keys_is_checked_in_bounded_work() {
        let members = "... on A { t } ... on B { t } ".repeat(1_000);
        let found = conflicts(&format!("{{ items {{ {members} }} }}"));
        assert!(!found.is_empty());
        assert!(found.len() <= MAX_PAIRS);
    }
}
