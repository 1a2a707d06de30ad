//! The fast path of plain read queries: a validated query operation whose root fields
//! are the model's read queries and whose selections hold only leaves and the objects
//! of the reader's own JSON (`nodes`, `pageInfo`) is answered by walking the selection
//! over the entries once, instead of one resolver future per field.
//!
//! It answers exactly what the resolvers would: the same [`Reader::read`] with the same
//! arguments (the given ones, and the declared defaults), each leaf through
//! [`scalar_value`]. Whenever the resolvers could answer anything else (an error, a
//! relation to load, a directive, a union, fragments on another type, a key answered
//! twice, a `null` where the type says non-null, a variable left out) it gives `None`,
//! and the executor answers instead. The caller validates the document first.

use std::collections::HashMap;

use async_graphql::indexmap::IndexMap;
use async_graphql::parser::types::{ExecutableDocument, OperationType, Selection, SelectionSet};
use async_graphql::{Name, Value};

use super::dynamic::{
    Catalog, Populate, Reader, RootField, RootKind, Shape, scalar_value, shape_of,
};
use super::ir::{DefaultValue, FieldDef, Kind, Registry, Ty};

/// What the walk needs of the schema.
pub struct Plain<'a> {
    /// The schema's types.
    pub registry: &'a Registry,
    /// The root fields the reader answers.
    pub roots: &'a HashMap<String, RootField>,
    /// The fields that load something (never on the fast path).
    pub catalog: &'a Catalog,
}

impl Plain<'_> {
    /// Whether the operation's selections are plain reads (nothing is read).
    pub fn is_plain(
        &self,
        doc: &ExecutableDocument,
        operation: Option<&str>,
        variables: &async_graphql::Variables,
    ) -> bool {
        self.walk(doc, operation, variables, None).is_some()
    }

    /// The `data` of the operation, when it is a plain read (see the module).
    pub fn answer(
        &self,
        doc: &ExecutableDocument,
        operation: Option<&str>,
        variables: &async_graphql::Variables,
        reader: &dyn Reader,
    ) -> Option<Value> {
        self.walk(doc, operation, variables, Some(reader))
    }

    /// Checks every root field's selection, then (with a reader) reads and walks each.
    fn walk(
        &self,
        doc: &ExecutableDocument,
        operation: Option<&str>,
        variables: &async_graphql::Variables,
        reader: Option<&dyn Reader>,
    ) -> Option<Value> {
        let op = super::document::selected_operation(doc, operation)?;
        if op.ty != OperationType::Query || !op.directives.is_empty() {
            return None;
        }
        // A variable left out takes its definition's default; without one, not plain.
        let mut values = variables.clone();
        for def in &op.variable_definitions {
            let name = &def.node.name.node;
            if !values.contains_key(name) {
                let default = def.node.default_value.as_ref()?;
                values.insert(name.clone(), default.node.clone());
            }
        }
        let walk = Walk {
            plain: self,
            doc,
            variables: &values,
        };
        // First the shape of every root field, without reading; then the reads.
        let mut fields = Vec::new();
        let mut keys = std::collections::HashSet::new();
        for item in &op.selection_set.node.items {
            let Selection::Field(field) = &item.node else {
                return None;
            };
            let field = &field.node;
            if !field.directives.is_empty() || !keys.insert(field.response_key().node.clone()) {
                return None;
            }
            if field.name.node != "__typename" {
                walk.root(field, None)?;
            }
            fields.push(field);
        }
        let Some(reader) = reader else {
            return Some(Value::Null);
        };
        let mut data = IndexMap::new();
        for field in fields {
            let value = if field.name.node == "__typename" {
                Value::String("Query".into())
            } else {
                walk.root(field, Some(reader))?
            };
            data.insert(field.response_key().node.clone(), value);
        }
        Some(Value::Object(data))
    }
}

struct Walk<'a> {
    plain: &'a Plain<'a>,
    doc: &'a ExecutableDocument,
    variables: &'a async_graphql::Variables,
}

impl Walk<'_> {
    /// A root field's value read by `reader`; without one, whether its selection is plain
    /// (`Some(Null)`), read nothing.
    fn root(
        &self,
        field: &async_graphql::parser::types::Field,
        reader: Option<&dyn Reader>,
    ) -> Option<Value> {
        let root = self.plain.roots.get(field.name.node.as_str())?;
        if !matches!(
            root.kind,
            RootKind::List | RootKind::Connection | RootKind::One | RootKind::Single
        ) {
            return None;
        }
        let def = self.field_def("Query", field.name.node.as_str())?;
        let args = self.arguments(def, field)?;
        let json = match reader {
            Some(reader) => Some(reader.read(root, args, &Populate::default()).ok()?),
            None => None,
        };
        self.value(&def.ty, &field.selection_set.node, json)
    }

    /// The arguments as the resolver gets them: the given ones, with the variables'
    /// values, and the declared defaults of the others.
    fn arguments(
        &self,
        def: &FieldDef,
        field: &async_graphql::parser::types::Field,
    ) -> Option<serde_json::Map<String, serde_json::Value>> {
        let mut args = serde_json::Map::new();
        for (name, value) in &field.arguments {
            let value = value
                .node
                .clone()
                .into_const_with(|v| self.variables.get(&v).cloned().ok_or(()))
                .ok()?;
            args.insert(name.node.to_string(), value.into_json().ok()?);
        }
        for input in &def.args {
            if args.contains_key(&input.name) {
                continue;
            }
            match &input.default {
                Some(DefaultValue::Json(v)) => args.insert(input.name.clone(), v.clone()),
                Some(DefaultValue::Enum(v)) => {
                    args.insert(input.name.clone(), serde_json::Value::String(v.clone()))
                }
                None => None,
            };
        }
        Some(args)
    }

    fn field_def(&self, type_name: &str, field: &str) -> Option<&FieldDef> {
        match &self.plain.registry.types.get(type_name)?.kind {
            Kind::Object(fields) => fields.iter().find(|f| f.name == field),
            _ => None,
        }
    }

    /// The value of a field of type `ty` whose JSON is `json`; without JSON, whether the
    /// selection is plain for that type (`Some(Null)`).
    fn value(
        &self,
        ty: &Ty,
        selection: &SelectionSet,
        json: Option<serde_json::Value>,
    ) -> Option<Value> {
        if json.as_ref().is_some_and(serde_json::Value::is_null) {
            return (!matches!(ty, Ty::NonNull(_))).then_some(Value::Null);
        }
        let inner = match ty {
            Ty::NonNull(inner) => inner,
            other => other,
        };
        if let Ty::List(item) = inner {
            let Some(json) = json else {
                return self.value(item, selection, None);
            };
            let serde_json::Value::Array(items) = json else {
                return None;
            };
            let list = items
                .into_iter()
                .map(|v| self.value(item, selection, Some(v)))
                .collect::<Option<Vec<_>>>()?;
            return Some(Value::List(list));
        }
        match shape_of(self.plain.registry, inner) {
            Shape::Object => {
                let map = match json {
                    Some(serde_json::Value::Object(map)) => Some(map),
                    Some(_) => return None,
                    None => None,
                };
                let mut out = IndexMap::new();
                self.object(inner.base(), selection, map.as_ref(), &mut out, 0)?;
                Some(Value::Object(out))
            }
            Shape::Union | Shape::Unserved => None,
            shape if selection.items.is_empty() => {
                let Some(json) = json else {
                    return Some(Value::Null);
                };
                if json.is_array() && shape != Shape::Scalar {
                    return None;
                }
                let value = scalar_value(json, shape);
                (!(value == Value::Null && matches!(ty, Ty::NonNull(_)))).then_some(value)
            }
            _ => None,
        }
    }

    /// A fragment's selection, on the object's own type, added to the object.
    fn fragment(
        &self,
        type_name: &str,
        selection: &SelectionSet,
        json: Option<&serde_json::Map<String, serde_json::Value>>,
        out: &mut IndexMap<Name, Value>,
        depth: usize,
    ) -> Option<()> {
        // Validation refuses fragment cycles; the bound guards embedders.
        if depth > 32 {
            return None;
        }
        self.object(type_name, selection, json, out, depth + 1)
    }

    /// Adds the selection's keys of an object of `type_name` read from `json` (without
    /// JSON: checks that the selection is plain).
    fn object(
        &self,
        type_name: &str,
        selection: &SelectionSet,
        json: Option<&serde_json::Map<String, serde_json::Value>>,
        out: &mut IndexMap<Name, Value>,
        depth: usize,
    ) -> Option<()> {
        let loads = self.plain.catalog.get(type_name);
        for item in &selection.items {
            match &item.node {
                Selection::Field(field) => {
                    let field = &field.node;
                    let key = field.response_key().node.clone();
                    let name = field.name.node.as_str();
                    if !field.directives.is_empty()
                        || !field.arguments.is_empty()
                        || out.contains_key(&key)
                        || loads.is_some_and(|l| l.contains_key(name))
                    {
                        return None;
                    }
                    let value = if name == "__typename" {
                        Value::String(type_name.to_owned())
                    } else {
                        let def = self.field_def(type_name, name)?;
                        let found = match json {
                            Some(json) => Some(json.get(name)?.clone()),
                            None => None,
                        };
                        self.value(&def.ty, &field.selection_set.node, found)?
                    };
                    out.insert(key, value);
                }
                Selection::InlineFragment(fragment) => {
                    let fragment = &fragment.node;
                    let on_this = fragment
                        .type_condition
                        .as_ref()
                        .is_none_or(|c| c.node.on.node.as_str() == type_name);
                    if !fragment.directives.is_empty() || !on_this {
                        return None;
                    }
                    self.fragment(type_name, &fragment.selection_set.node, json, out, depth)?;
                }
                Selection::FragmentSpread(spread) => {
                    let fragment = &self
                        .doc
                        .fragments
                        .get(&spread.node.fragment_name.node)?
                        .node;
                    if !spread.node.directives.is_empty()
                        || !fragment.directives.is_empty()
                        || fragment.type_condition.node.on.node.as_str() != type_name
                    {
                        return None;
                    }
                    self.fragment(type_name, &fragment.selection_set.node, json, out, depth)?;
                }
            }
        }
        Some(())
    }
}
