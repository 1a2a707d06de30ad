//! Objects whose selection collects no field. graphql-js answers such an object as `{}`:
//! a zone item of a member that no fragment selects (`blocks { ... on
//! ComponentSharedQuote { title } }` over a media block), or an object whose every field
//! is skipped (`author { name @skip(if: true) }`). async-graphql's executor answers it as
//! `null`, which a front end reading `item.title` cannot tell from a missing item.
//!
//! So before execution, every selection set that may collect nothing (it has no field
//! without a directive) on an object or union type gets one more field, `__typename`
//! under a reserved response key ([`KEPT`]); the answer's objects then have that key at
//! least, and [`drop_kept`] removes it after execution. The rewrite adds nothing where a
//! set selects a plain field, so the usual document executes as written; it is skipped
//! when the document itself uses the reserved key.

use async_graphql::Name;
use async_graphql::parser::Positioned;
use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, Field, OperationType, Selection, SelectionSet,
};

use super::ir::{Kind, Registry};

/// The response key of the added `__typename`.
pub const KEPT: &str = "__strataKept";

/// Adds the kept `__typename` to every selection set of `doc` that may collect no field;
/// whether any was added (then [`drop_kept`] must run on the answer).
pub fn keep_empty_objects(reg: &Registry, doc: &mut ExecutableDocument) -> bool {
    if !may_need_keeping(doc) {
        return false;
    }
    let mut walk = Walk { reg, added: false };
    match &mut doc.operations {
        DocumentOperations::Single(op) => walk.operation(&mut op.node),
        DocumentOperations::Multiple(ops) => {
            for op in ops.values_mut() {
                walk.operation(&mut op.node);
            }
        }
    }
    for fragment in doc.fragments.values_mut() {
        let on = fragment.node.type_condition.node.on.node.to_string();
        walk.set(&on, &mut fragment.node.selection_set.node);
    }
    walk.added
}

/// Removes the kept key from every object of an executed answer's `data`.
pub fn drop_kept(value: &mut async_graphql::Value) {
    match value {
        async_graphql::Value::Object(map) => {
            map.shift_remove(KEPT);
            map.values_mut().for_each(drop_kept);
        }
        async_graphql::Value::List(items) => items.iter_mut().for_each(drop_kept),
        _ => {}
    }
}

struct Walk<'a> {
    reg: &'a Registry,
    /// Whether a kept `__typename` was added.
    added: bool,
}

impl Walk<'_> {
    fn operation(&mut self, op: &mut async_graphql::parser::types::OperationDefinition) {
        let root = match op.ty {
            OperationType::Query => "Query",
            OperationType::Mutation => "Mutation",
            OperationType::Subscription => return,
        };
        self.composite(root, &mut op.selection_set);
    }

    /// A selection set on the object or union `on`: kept when it may collect nothing,
    /// then walked.
    fn composite(&mut self, on: &str, set: &mut Positioned<SelectionSet>) {
        if may_collect_nothing(&set.node) {
            let kept = kept_typename(set.pos);
            set.node.items.push(Positioned::new(
                Selection::Field(Positioned::new(kept, set.pos)),
                set.pos,
            ));
            self.added = true;
        }
        self.set(on, &mut set.node);
    }

    /// The fields of a selection set on `on`, inline fragments followed (a spread's
    /// fragment is walked with the document's fragments).
    fn set(&mut self, on: &str, set: &mut SelectionSet) {
        for item in &mut set.items {
            match &mut item.node {
                Selection::Field(field) => self.field(on, &mut field.node),
                Selection::InlineFragment(inline) => {
                    let inline = &mut inline.node;
                    let on = inline
                        .type_condition
                        .as_ref()
                        .map_or_else(|| on.to_string(), |c| c.node.on.node.to_string());
                    self.set(&on, &mut inline.selection_set.node);
                }
                Selection::FragmentSpread(_) => {}
            }
        }
    }

    fn field(&mut self, parent: &str, field: &mut Field) {
        // An unknown field or one on a union: validation's to report, nothing to keep.
        let Some(def) = super::graphql_js::field_def(self.reg, parent, &field.name.node) else {
            return;
        };
        let ty = def.ty.base();
        if matches!(
            self.reg.types.get(ty).map(|t| &t.kind),
            Some(Kind::Object(_) | Kind::Union(_))
        ) && !field.selection_set.node.items.is_empty()
        {
            let ty = ty.to_string();
            self.composite(&ty, &mut field.selection_set);
        }
    }
}

/// Whether a selection set may collect no field: every field it selects directly can be
/// skipped (`@skip`, `@include`), and fragments may not apply to the runtime type.
fn may_collect_nothing(set: &SelectionSet) -> bool {
    !set.items
        .iter()
        .any(|item| matches!(&item.node, Selection::Field(f) if f.node.directives.is_empty()))
}

fn kept_typename(pos: async_graphql::Pos) -> Field {
    Field {
        alias: Some(Positioned::new(Name::new(KEPT), pos)),
        name: Positioned::new(Name::new("__typename"), pos),
        arguments: Vec::new(),
        directives: Vec::new(),
        selection_set: Positioned::new(SelectionSet::default(), pos),
    }
}

/// Whether some selection set of `doc` may collect nothing and no field answers under
/// the reserved key: one walk over the selections without the registry, so that the usual
/// document (every set selects a plain field) costs no type lookup. It may say yes where
/// the typed walk adds nothing (a set on a leaf, which validation refuses), never no where
/// it adds something.
fn may_need_keeping(doc: &ExecutableDocument) -> bool {
    #[derive(Default)]
    struct Found {
        empty: bool,
        kept_key: bool,
    }
    fn visit(set: &SelectionSet, found: &mut Found) {
        for item in &set.items {
            match &item.node {
                Selection::Field(f) => {
                    found.kept_key |= f.node.response_key().node.as_str() == KEPT;
                    let inner = &f.node.selection_set.node;
                    if !inner.items.is_empty() {
                        found.empty |= may_collect_nothing(inner);
                        visit(inner, found);
                    }
                }
                Selection::InlineFragment(inline) => visit(&inline.node.selection_set.node, found),
                Selection::FragmentSpread(_) => {}
            }
        }
    }
    let mut found = Found::default();
    for (_, op) in doc.operations.iter() {
        found.empty |= may_collect_nothing(&op.node.selection_set.node);
        visit(&op.node.selection_set.node, &mut found);
    }
    for fragment in doc.fragments.values() {
        visit(&fragment.node.selection_set.node, &mut found);
    }
    found.empty && !found.kept_key
}

#[cfg(test)]
mod tests {
    use async_graphql::parser::parse_query;

    use super::super::ir::{FieldDef, Ty};
    use super::*;

    fn registry() -> Registry {
        let mut reg = Registry::default();
        reg.add(
            "Query",
            None,
            Kind::Object(vec![FieldDef::new(
                "articles",
                Ty::list("Article").non_null(),
            )]),
        );
        reg.add(
            "Article",
            None,
            Kind::Object(vec![
                FieldDef::new("title", Ty::named("String")),
                FieldDef::new("blocks", Ty::list("Block")),
            ]),
        );
        reg.add(
            "Block",
            None,
            Kind::Union(vec!["Quote".into(), "Media".into()]),
        );
        reg.add(
            "Quote",
            None,
            Kind::Object(vec![FieldDef::new("body", Ty::named("String"))]),
        );
        reg
    }

    /// The response keys of the document's selection sets, depth first, after the rewrite.
    fn kept(query: &str) -> (bool, String) {
        let mut doc = parse_query(query).expect("a valid document");
        let added = keep_empty_objects(&registry(), &mut doc);
        fn keys(set: &SelectionSet, out: &mut String) {
            for item in &set.items {
                match &item.node {
                    Selection::Field(f) => {
                        out.push_str(f.node.response_key().node.as_str());
                        out.push(' ');
                        if !f.node.selection_set.node.items.is_empty() {
                            out.push_str("{ ");
                            keys(&f.node.selection_set.node, out);
                            out.push_str("} ");
                        }
                    }
                    Selection::InlineFragment(i) => {
                        out.push_str("... { ");
                        keys(&i.node.selection_set.node, out);
                        out.push_str("} ");
                    }
                    Selection::FragmentSpread(s) => {
                        out.push_str(&format!("...{} ", s.node.fragment_name.node));
                    }
                }
            }
        }
        let mut out = String::new();
        for (_, op) in doc.operations.iter() {
            keys(&op.node.selection_set.node, &mut out);
        }
        for (name, f) in &doc.fragments {
            out.push_str(&format!("fragment {name} {{ "));
            keys(&f.node.selection_set.node, &mut out);
            out.push_str("} ");
        }
        (added, out.trim_end().to_string())
    }

    #[test]
    fn a_set_of_plain_fields_is_executed_as_written() {
        let q = "{ articles { title blocks { __typename ... on Quote { body } } } }";
        assert_eq!(
            kept(q),
            (
                false,
                "articles { title blocks { __typename ... { body } } }".into()
            )
        );
    }

    #[test]
    fn a_set_of_fragments_or_skippable_fields_is_kept() {
        let q = "{ articles { blocks { ... on Quote { body } } } }";
        assert_eq!(
            kept(q),
            (
                true,
                "articles { blocks { ... { body } __strataKept } }".into()
            )
        );
        let q = "{ articles { title @skip(if: true) } }";
        assert_eq!(kept(q), (true, "articles { title __strataKept }".into()));
    }

    #[test]
    fn fragments_are_walked_on_their_type() {
        let q = "{ articles { ...A } } fragment A on Article { blocks { ...Q } } \
                 fragment Q on Quote { body }";
        let (added, keys) = kept(q);
        assert!(added);
        assert!(keys.starts_with("articles { ...A __strataKept }"), "{keys}");
        assert!(
            keys.contains("fragment A { blocks { ...Q __strataKept } }"),
            "{keys}"
        );
        assert!(keys.contains("fragment Q { body }"), "{keys}");
    }

    #[test]
    fn unknown_fields_and_a_used_key_are_left_alone() {
        // A selection on a leaf or an unknown field is validation's to refuse.
        let q = "{ articles { title { ... on Quote { body } } nope { ... on Quote { body } } } }";
        assert!(!kept(q).0);
        let q = "{ articles { __strataKept: title blocks { ... on Quote { body } } } }";
        assert!(!kept(q).0);
    }

    #[test]
    fn the_kept_key_is_dropped_from_the_answer() {
        let mut data = async_graphql::Value::from_json(serde_json::json!({
            "articles": [{"blocks": [{"__strataKept": "Media"}, {"body": "b", "__strataKept": "Quote"}]}],
            "__strataKept": "Query",
        }))
        .expect("JSON");
        drop_kept(&mut data);
        assert_eq!(
            data.into_json().expect("JSON"),
            serde_json::json!({"articles": [{"blocks": [{}, {"body": "b"}]}]})
        );
    }
}
