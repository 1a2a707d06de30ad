//! graphql-js's null propagation: a field error nulls the nearest position above it that
//! its type lets be null. A non-null field's error nulls its parent object; a non-null
//! list item's nulls its list; and so on up, to `data` itself when every position up to
//! the root field is non-null (`handleFieldError` rethrows for a non-null type, and the
//! first nullable position catches it).
//!
//! async-graphql's dynamic executor does not propagate, so the answer is mended after
//! execution: this module reads, for a resolver error's `path` (response keys and list
//! indexes), which positions along it are non-null, from the fields the operation
//! selects there (aliases and fragments followed) and their types in the registry.

use async_graphql::parser::types::{
    ExecutableDocument, Field, OperationType, Selection, SelectionSet,
};
use serde_json::Value;

use super::document::selected_operation;
use super::ir::{Kind, Registry, Ty};

/// How many leading segments of `path` name the position that an error at `path` nulls:
/// `path.len()` for a nullable field, fewer as non-null positions pass the null up, 0
/// for `data` itself. `None` when the path does not follow the operation's selections.
pub fn nulled_prefix(
    reg: &Registry,
    doc: &ExecutableDocument,
    operation: Option<&str>,
    path: &[Value],
) -> Option<usize> {
    let non_null = non_null_positions(reg, doc, operation, path)?;
    let mut n = path.len();
    while n > 0 && non_null[n - 1] {
        n -= 1;
    }
    Some(n)
}

/// Whether each position along `path` is non-null.
fn non_null_positions(
    reg: &Registry,
    doc: &ExecutableDocument,
    operation: Option<&str>,
    path: &[Value],
) -> Option<Vec<bool>> {
    let op = selected_operation(doc, operation)?;
    let root = match op.ty {
        OperationType::Query => "Query",
        OperationType::Mutation => "Mutation",
        OperationType::Subscription => return None,
    };
    let mut parent = root.to_string();
    let mut sets: Vec<&SelectionSet> = vec![&op.selection_set.node];
    // The type of the position reached, while it is a list.
    let mut list: Option<&Ty> = None;
    let mut out = Vec::with_capacity(path.len());
    for segment in path {
        if let Some(ty) = list {
            segment.as_u64()?;
            let item = match nullable(ty) {
                Ty::List(item) => item.as_ref(),
                _ => return None,
            };
            out.push(matches!(item, Ty::NonNull(_)));
            list = matches!(nullable(item), Ty::List(_)).then_some(item);
            continue;
        }
        let key = segment.as_str()?;
        let fields = fields_answering(doc, &sets, &parent, key);
        let (field_parent, field) = fields.first()?;
        let ty = match field.name.node.as_str() {
            "__typename" => return finish(out, true, path.len()),
            name => &super::graphql_js::field_def(reg, field_parent, name)?.ty,
        };
        out.push(matches!(ty, Ty::NonNull(_)));
        parent = base(ty).to_string();
        sets = fields.iter().map(|(_, f)| &f.selection_set.node).collect();
        list = matches!(nullable(ty), Ty::List(_)).then_some(ty);
        if !matches!(
            reg.types.get(&parent).map(|t| &t.kind),
            Some(Kind::Object(_) | Kind::Union(_)) | None
        ) {
            // A leaf: nothing below it.
            sets.clear();
        }
    }
    Some(out)
}

/// The positions found so far and a last one (a leaf), when it ends the path.
fn finish(mut out: Vec<bool>, non_null: bool, len: usize) -> Option<Vec<bool>> {
    out.push(non_null);
    (out.len() == len).then_some(out)
}

/// The fields of `sets` (of type `parent`) whose response key is `key`, each with the
/// type it is selected on (a fragment's type condition), fragments followed.
fn fields_answering<'d>(
    doc: &'d ExecutableDocument,
    sets: &[&'d SelectionSet],
    parent: &str,
    key: &str,
) -> Vec<(String, &'d Field)> {
    let mut found = Vec::new();
    for set in sets {
        collect(doc, set, parent, key, &mut found, 0);
    }
    found
}

fn collect<'d>(
    doc: &'d ExecutableDocument,
    set: &'d SelectionSet,
    on: &str,
    key: &str,
    found: &mut Vec<(String, &'d Field)>,
    depth: usize,
) {
    // Fragments may spread each other in a cycle only in an invalid document, which never
    // runs; the bound keeps this walk finite regardless.
    if depth > 64 {
        return;
    }
    for item in &set.items {
        match &item.node {
            Selection::Field(f) => {
                let response_key = f.node.alias.as_ref().unwrap_or(&f.node.name);
                if response_key.node.as_str() == key {
                    found.push((on.to_string(), &f.node));
                }
            }
            Selection::InlineFragment(inline) => {
                let on = super::document::fragment_type(&inline.node, on);
                collect(
                    doc,
                    &inline.node.selection_set.node,
                    on,
                    key,
                    found,
                    depth + 1,
                );
            }
            Selection::FragmentSpread(spread) => {
                if let Some(fragment) = doc.fragments.get(&spread.node.fragment_name.node) {
                    let on = fragment.node.type_condition.node.on.node.as_str();
                    let set = &fragment.node.selection_set.node;
                    collect(doc, set, on, key, found, depth + 1);
                }
            }
        }
    }
}

/// The type without its outer non-null.
fn nullable(ty: &Ty) -> &Ty {
    match ty {
        Ty::NonNull(inner) => inner,
        other => other,
    }
}

/// The named type inside lists and non-nulls.
fn base(ty: &Ty) -> &str {
    match ty {
        Ty::NonNull(inner) | Ty::List(inner) => base(inner),
        Ty::Named(name) => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;
    use serde_json::json;

    use super::super::ir::FieldDef;

    fn registry() -> Registry {
        let mut reg = Registry::default();
        reg.add(
            "Query",
            None,
            Kind::Object(vec![
                FieldDef::new("products", Ty::list("Product").non_null()),
                FieldDef::new("products_connection", Ty::named("Connection")),
            ]),
        );
        reg.add(
            "Connection",
            None,
            Kind::Object(vec![FieldDef::new(
                "nodes",
                Ty::List(Box::new(Ty::nn("Product"))).non_null(),
            )]),
        );
        reg.add(
            "Product",
            None,
            Kind::Object(vec![
                FieldDef::new("name", Ty::nn("String")),
                FieldDef::new("sku", Ty::named("String")),
            ]),
        );
        reg
    }

    fn nulled(query: &str, path: Value) -> Option<usize> {
        let doc = parse_query(query).ok()?;
        let path = path.as_array().cloned().unwrap_or_default();
        nulled_prefix(&registry(), &doc, None, &path)
    }

    #[test]
    fn a_null_goes_up_to_the_nearest_nullable_position() {
        // `name: String!` in `[Product]!`: the item.
        assert_eq!(
            nulled("{ products { name } }", json!(["products", 0, "name"])),
            Some(2)
        );
        // In `nodes: [Product!]!` of a nullable connection: the connection.
        let q = "{ products_connection { nodes { name } } }";
        let path = json!(["products_connection", "nodes", 3, "name"]);
        assert_eq!(nulled(q, path), Some(1));
        // A nullable field: itself.
        let path = json!(["products_connection", "nodes", 3, "sku"]);
        assert_eq!(
            nulled("{ products_connection { nodes { sku } } }", path),
            Some(4)
        );
    }

    #[test]
    fn aliases_and_fragments_are_followed() {
        let q = "{ list: products_connection { ...C } } \
                 fragment C on Connection { items: nodes { ... on Product { n: name } } }";
        assert_eq!(nulled(q, json!(["list", "items", 0, "n"])), Some(1));
        assert_eq!(nulled(q, json!(["list", "nodes", 0, "n"])), None);
    }
}
