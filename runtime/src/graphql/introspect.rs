//! Introspection answered as graphql-js 16.15 answers it (what Strapi 5.54 serves), from
//! the schema's [`Registry`] and graphql-js's own definitions ([`BUILTINS`]: the
//! specification's scalars, the introspection types and the specified directives,
//! copied from the oracle's recording), not by async-graphql, whose introspection types
//! differ from graphql-js's (descriptions, `includeDeprecated: Boolean!`, no directive
//! deprecation, `__Schema.description`).
//!
//! [`Introspection`] is the schema as graphql-js's introspection sees it: the types in
//! graphql-js's type-map order (the registry's order, which is Strapi's, with each
//! built-in type where graphql-js's `collectReferencedTypes` first meets it) and the
//! directives. [`Introspection::prepare`] takes a parsed document whose query operations
//! select `__schema` or `__type` at the root: it validates those selections (graphql-js's
//! messages and locations), answers them for the operation the request runs (aliases,
//! named and inline fragments with their type conditions, `@skip`/`@include`, arguments
//! from literals or variables, `__typename` anywhere), and gives the document without
//! them (nor the fragments and variables only they used) for async-graphql to run the
//! rest; [`Prepared::merge`] puts both answers together in the selection's order.

use std::collections::{HashMap, HashSet};

use async_graphql::parser::types::{
    DocumentOperations, ExecutableDocument, Field as FieldNode, FragmentDefinition,
    OperationDefinition, OperationType, Selection, SelectionSet,
};
use async_graphql::{Name, Pos, Positioned, Value as ConstValue};
use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::graphql_js::{Located, did_you_mean, parsed_type, suggestion_list, type_text};
use super::ir::{DefaultValue, Kind, Registry, Ty};

/// graphql-js 16.15.0's built-in definitions as Strapi 5.54 answers them (the scalars
/// `String`, `Int`, `Float`, `Boolean`, `ID`, the types `__Schema`, `__Type`,
/// `__TypeKind`, `__Field`, `__InputValue`, `__EnumValue`, `__Directive`,
/// `__DirectiveLocation`, the directives `include`, `skip`, `deprecated`, `specifiedBy`,
/// `oneOf`), in the shape of the full introspection answer: copied unchanged from
/// `tests/fixtures/blog/graphql/introspection.json` (LaunchPad's recording has the same).
pub const BUILTINS: &str = include_str!("builtins.json");

/// The root fields introspection answers.
const META_FIELDS: [&str; 2] = ["__schema", "__type"];

#[derive(Debug, Clone)]
struct InputValue {
    name: String,
    description: Option<String>,
    ty: Ty,
    /// The default as graphql-js prints it (`print(astFromValue(…))`).
    default: Option<String>,
    deprecation: Option<String>,
}

#[derive(Debug, Clone)]
struct FieldDef {
    name: String,
    description: Option<String>,
    args: Vec<InputValue>,
    ty: Ty,
    deprecation: Option<String>,
}

#[derive(Debug, Clone)]
struct EnumValue {
    name: String,
    description: Option<String>,
    deprecation: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypeKind {
    Scalar,
    Object,
    Interface,
    Union,
    Enum,
    InputObject,
}

impl TypeKind {
    fn text(self) -> &'static str {
        match self {
            TypeKind::Scalar => "SCALAR",
            TypeKind::Object => "OBJECT",
            TypeKind::Interface => "INTERFACE",
            TypeKind::Union => "UNION",
            TypeKind::Enum => "ENUM",
            TypeKind::InputObject => "INPUT_OBJECT",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "SCALAR" => TypeKind::Scalar,
            "OBJECT" => TypeKind::Object,
            "INTERFACE" => TypeKind::Interface,
            "UNION" => TypeKind::Union,
            "ENUM" => TypeKind::Enum,
            "INPUT_OBJECT" => TypeKind::InputObject,
            _ => return None,
        })
    }

    /// Whether a field of this type takes no selection.
    fn leaf(self) -> bool {
        matches!(self, TypeKind::Scalar | TypeKind::Enum)
    }
}

#[derive(Debug, Clone)]
struct NamedType {
    kind: TypeKind,
    name: String,
    description: Option<String>,
    specified_by: Option<String>,
    fields: Vec<FieldDef>,
    input_fields: Vec<InputValue>,
    interfaces: Vec<String>,
    enum_values: Vec<EnumValue>,
    possible_types: Vec<String>,
    one_of: bool,
}

impl NamedType {
    fn new(kind: TypeKind, name: &str, description: Option<String>) -> Self {
        NamedType {
            kind,
            name: name.to_owned(),
            description,
            specified_by: None,
            fields: Vec::new(),
            input_fields: Vec::new(),
            interfaces: Vec::new(),
            enum_values: Vec::new(),
            possible_types: Vec::new(),
            one_of: false,
        }
    }

    /// The names it refers to, in `collectReferencedTypes`' order.
    fn references(&self) -> Vec<&str> {
        match self.kind {
            TypeKind::Union => self.possible_types.iter().map(String::as_str).collect(),
            TypeKind::Object | TypeKind::Interface => {
                let mut out: Vec<&str> = self.interfaces.iter().map(String::as_str).collect();
                for field in &self.fields {
                    out.push(field.ty.base());
                    out.extend(field.args.iter().map(|a| a.ty.base()));
                }
                out
            }
            TypeKind::InputObject => self.input_fields.iter().map(|f| f.ty.base()).collect(),
            TypeKind::Scalar | TypeKind::Enum => Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
struct Directive {
    name: String,
    description: Option<String>,
    repeatable: bool,
    locations: Vec<String>,
    args: Vec<InputValue>,
    deprecation: Option<String>,
}

/// A schema as graphql-js's introspection sees it. Build it once per schema.
#[derive(Debug, Clone)]
pub struct Introspection {
    types: IndexMap<String, NamedType>,
    directives: Vec<Directive>,
    query: String,
    mutation: Option<String>,
}

/// A document whose query operations select introspection, prepared
/// ([`Introspection::prepare`]).
#[derive(Debug)]
pub struct Prepared {
    /// The document without the introspection fields, for async-graphql (positions
    /// kept; an operation left with nothing selects `__typename`, which
    /// [`Prepared::merge`] leaves out).
    pub document: ExecutableDocument,
    /// graphql-js's validation errors of the introspection selections (the request is
    /// then a 400 with them and async-graphql's own).
    pub errors: Vec<Located>,
    /// The root response keys of the operation the request runs, in graphql-js's
    /// order, with the answer of those introspection answers (`None`: async-graphql's);
    /// `None` when that operation is not a query (async-graphql answers it all).
    keys: Option<Vec<(String, Option<Value>)>>,
}

impl Prepared {
    /// Puts the introspection answers into async-graphql's `data` (an object; `null`
    /// stays `null`), every root key in the selection's order.
    pub fn merge(&self, data: &mut Value) {
        let (Value::Object(theirs), Some(keys)) = (data, &self.keys) else {
            return;
        };
        let mut merged = Map::new();
        for (key, ours) in keys {
            match ours {
                Some(value) => {
                    merged.insert(key.clone(), value.clone());
                }
                None => {
                    if let Some(value) = theirs.remove(key) {
                        merged.insert(key.clone(), value);
                    }
                }
            }
        }
        *theirs = merged;
    }

    /// The introspection answers alone (`data` of a document that selects nothing
    /// else).
    pub fn data(&self) -> Value {
        let mut data = Value::Object(Map::new());
        self.merge(&mut data);
        data
    }
}

// ---------------------------------------------------------------------------------------
// The schema

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

fn ty_of(value: &Value) -> Ty {
    match value["kind"].as_str() {
        Some("NON_NULL") => Ty::NonNull(Box::new(ty_of(&value["ofType"]))),
        Some("LIST") => Ty::List(Box::new(ty_of(&value["ofType"]))),
        _ => Ty::named(value["name"].as_str().unwrap_or_default()),
    }
}

fn items(value: &Value) -> &[Value] {
    value.as_array().map(Vec::as_slice).unwrap_or_default()
}

fn input_of(value: &Value) -> InputValue {
    InputValue {
        name: value["name"].as_str().unwrap_or_default().to_owned(),
        description: text(&value["description"]),
        ty: ty_of(&value["type"]),
        default: text(&value["defaultValue"]),
        deprecation: text(&value["deprecationReason"]),
    }
}

fn type_of(value: &Value) -> Option<NamedType> {
    let kind = TypeKind::parse(value["kind"].as_str()?)?;
    let mut out = NamedType::new(kind, value["name"].as_str()?, text(&value["description"]));
    out.specified_by = text(&value["specifiedByURL"]);
    out.fields = items(&value["fields"])
        .iter()
        .map(|f| FieldDef {
            name: f["name"].as_str().unwrap_or_default().to_owned(),
            description: text(&f["description"]),
            args: items(&f["args"]).iter().map(input_of).collect(),
            ty: ty_of(&f["type"]),
            deprecation: text(&f["deprecationReason"]),
        })
        .collect();
    out.input_fields = items(&value["inputFields"]).iter().map(input_of).collect();
    out.interfaces = items(&value["interfaces"])
        .iter()
        .filter_map(text_name)
        .collect();
    out.enum_values = items(&value["enumValues"])
        .iter()
        .map(|v| EnumValue {
            name: v["name"].as_str().unwrap_or_default().to_owned(),
            description: text(&v["description"]),
            deprecation: text(&v["deprecationReason"]),
        })
        .collect();
    out.possible_types = items(&value["possibleTypes"])
        .iter()
        .filter_map(text_name)
        .collect();
    out.one_of = value["isOneOf"] == Value::Bool(true);
    Some(out)
}

fn text_name(value: &Value) -> Option<String> {
    text(&value["name"])
}

/// graphql-js's built-in types and directives ([`BUILTINS`]).
fn builtins() -> (Vec<NamedType>, Vec<Directive>) {
    let data: Value = serde_json::from_str(BUILTINS).unwrap_or_default();
    let types = items(&data["types"]).iter().filter_map(type_of).collect();
    let directives = items(&data["directives"])
        .iter()
        .map(|d| Directive {
            name: d["name"].as_str().unwrap_or_default().to_owned(),
            description: text(&d["description"]),
            repeatable: d["isRepeatable"] == Value::Bool(true),
            locations: items(&d["locations"]).iter().filter_map(text).collect(),
            args: items(&d["args"]).iter().map(input_of).collect(),
            deprecation: text(&d["deprecationReason"]),
        })
        .collect();
    (types, directives)
}

fn default_text(default: &DefaultValue) -> String {
    match default {
        DefaultValue::Enum(name) => name.clone(),
        DefaultValue::Json(value) => super::sdl::value_literal(value),
    }
}

fn input_from(def: &super::ir::InputDef) -> InputValue {
    InputValue {
        name: def.name.clone(),
        description: def.description.clone(),
        ty: def.ty.clone(),
        default: def.default.as_ref().map(default_text),
        deprecation: None,
    }
}

fn type_from(def: &super::ir::TypeDef) -> NamedType {
    let kind = match &def.kind {
        Kind::Scalar { .. } => TypeKind::Scalar,
        Kind::Object(_) => TypeKind::Object,
        Kind::Input(_) => TypeKind::InputObject,
        Kind::Enum(_) => TypeKind::Enum,
        Kind::Union(_) => TypeKind::Union,
    };
    let mut out = NamedType::new(kind, &def.name, def.description.clone());
    match &def.kind {
        Kind::Scalar { specified_by } => out.specified_by = specified_by.clone(),
        Kind::Object(fields) => {
            out.fields = fields
                .iter()
                .map(|f| FieldDef {
                    name: f.name.clone(),
                    description: f.description.clone(),
                    args: f.args.iter().map(input_from).collect(),
                    ty: f.ty.clone(),
                    deprecation: None,
                })
                .collect();
        }
        Kind::Input(fields) => out.input_fields = fields.iter().map(input_from).collect(),
        Kind::Enum(values) => {
            out.enum_values = values
                .iter()
                .map(|v| EnumValue {
                    name: v.clone(),
                    description: None,
                    deprecation: None,
                })
                .collect();
        }
        Kind::Union(members) => out.possible_types = members.clone(),
    }
    out
}

impl Introspection {
    /// The schema of a (pruned) registry with graphql-js's built-ins, in the order of
    /// graphql-js's `GraphQLSchema` constructor: the registry's types (its `types`
    /// option), each followed by the built-in types it is the first to reach, then what
    /// the root types, the directives' arguments and `__Schema` reach.
    pub fn new(reg: &Registry) -> Self {
        let (builtin_types, directives) = builtins();
        let mut all: HashMap<String, NamedType> = builtin_types
            .into_iter()
            .map(|t| (t.name.clone(), t))
            .collect();
        for def in reg.types.values() {
            all.insert(def.name.clone(), type_from(def));
        }
        let mut pending: HashSet<&str> = reg.types.keys().map(String::as_str).collect();
        let mut order: IndexMap<String, NamedType> = IndexMap::new();
        let roots = ["Query", "Mutation", "Subscription"];
        let mut starts: Vec<&str> = reg.types.keys().map(String::as_str).collect();
        starts.extend(roots.iter().filter(|r| all.contains_key(**r)));
        for directive in &directives {
            starts.extend(directive.args.iter().map(|a| a.ty.base()));
        }
        starts.push("__Schema");
        for start in starts {
            pending.remove(start);
            let mut stack = vec![start];
            // Depth first, children in order (a stack of the reversed references).
            while let Some(name) = stack.pop() {
                if order.contains_key(name) || pending.contains(name) {
                    continue;
                }
                let Some(def) = all.get(name) else {
                    continue;
                };
                order.insert(name.to_owned(), def.clone());
                let mut refs = def.references();
                refs.reverse();
                stack.extend(refs);
            }
        }
        let mutation = reg
            .types
            .contains_key("Mutation")
            .then(|| "Mutation".to_owned());
        Introspection {
            types: order,
            directives,
            query: "Query".to_owned(),
            mutation,
        }
    }

    fn named(&self, name: &str) -> Option<&NamedType> {
        self.types.get(name)
    }

    /// The answer to a whole document that selects introspection only (the full
    /// introspection query): `{"data": …}`, or graphql-js's messages.
    ///
    /// # Errors
    ///
    /// The parse error or the validation messages.
    pub fn answer(&self, query: &str) -> Result<Value, String> {
        let doc = async_graphql::parser::parse_query(query).map_err(|e| e.to_string())?;
        let prepared = self
            .prepare(&doc, None, &Value::Object(Map::new()))
            .ok_or("the document selects no introspection")?;
        if !prepared.errors.is_empty() {
            let messages: Vec<&str> = prepared.errors.iter().map(|(m, _)| m.as_str()).collect();
            return Err(messages.join("; "));
        }
        let mut out = Map::new();
        out.insert("data".into(), prepared.data());
        Ok(Value::Object(out))
    }

    /// For a document whose query operations select `__schema` or `__type` at the root
    /// (`None` otherwise, the document then runs as it is): the validation errors of
    /// those selections, their answers for the operation the request runs
    /// (`operation_name`, else the only one) with `variables` (a JSON object), and the
    /// document without them.
    pub fn prepare(
        &self,
        doc: &ExecutableDocument,
        operation_name: Option<&str>,
        variables: &Value,
    ) -> Option<Prepared> {
        if !selects_introspection(doc) {
            return None;
        }
        let errors = Validator::new(self, doc).run();
        let keys = match super::document::selected_operation(doc, operation_name) {
            Some(op) if op.ty == OperationType::Query && errors.is_empty() => {
                let exec = Exec::new(self, doc, op, variables);
                Some(exec.root(op))
            }
            _ => None,
        };
        Some(Prepared {
            document: stripped(doc),
            errors,
            keys,
        })
    }
}

// ---------------------------------------------------------------------------------------
// The document

/// The query operations' root selection sets and the fragments on `Query` (where the
/// meta fields `__schema` and `__type` may be).
fn query_level_sets(doc: &ExecutableDocument) -> Vec<&SelectionSet> {
    let mut sets: Vec<&SelectionSet> = doc
        .operations
        .iter()
        .filter(|(_, op)| op.node.ty == OperationType::Query)
        .map(|(_, op)| &op.node.selection_set.node)
        .collect();
    sets.extend(
        doc.fragments
            .values()
            .filter(|f| f.node.type_condition.node.on.node == "Query")
            .map(|f| &f.node.selection_set.node),
    );
    sets
}

/// Whether `name` is `__schema` or `__type`.
/// An argument as given: its name, and its value with the variable it names instead,
/// if it is one (`literal!`), where it is.
type GivenArgument<'d> = (&'d Positioned<Name>, Positioned<Result<ConstValue, Name>>);

/// The arguments of a field or directive node, as [`GivenArgument`]s (a macro: the
/// parser's non-constant value type is not exported by name).
macro_rules! given_arguments {
    ($arguments:expr) => {
        $arguments
            .iter()
            .map(|(a, v)| (a, Positioned::new(literal!(v.node), v.pos)))
            .collect::<Vec<GivenArgument<'_>>>()
    };
}

/// What the arguments being checked belong to (graphql-js's messages name it).
enum ArgumentsOf<'n> {
    /// A field, with the type it is on.
    Field { parent: &'n str, name: &'n str },
    /// A directive, by name.
    Directive(&'n str),
}

fn is_meta(name: &str) -> bool {
    META_FIELDS.contains(&name)
}

/// Whether an inline fragment applies to `Query` (its type condition, or none).
fn on_query(fragment: &async_graphql::parser::types::InlineFragment) -> bool {
    fragment
        .type_condition
        .as_ref()
        .is_none_or(|c| c.node.on.node == "Query")
}

/// The fields of a query-level selection set, through inline fragments on `Query` or
/// without a type condition (not through spreads: their fragments are listed apart).
fn query_level_fields<'d>(set: &'d SelectionSet, out: &mut Vec<&'d Positioned<FieldNode>>) {
    for item in &set.items {
        match &item.node {
            Selection::Field(field) => out.push(field),
            Selection::InlineFragment(fragment) => {
                if on_query(&fragment.node) {
                    query_level_fields(&fragment.node.selection_set.node, out);
                }
            }
            Selection::FragmentSpread(_) => {}
        }
    }
}

/// Whether a query operation or a fragment on `Query` selects `__schema` or `__type`.
pub fn selects_introspection(doc: &ExecutableDocument) -> bool {
    query_level_sets(doc).into_iter().any(|set| {
        let mut fields = Vec::new();
        query_level_fields(set, &mut fields);
        fields.iter().any(|f| is_meta(&f.node.name.node))
    })
}

/// Removes the meta fields from a query-level set, and the inline fragments and spreads
/// (of fragments in `empty`) left selecting nothing.
fn strip_set(set: &mut SelectionSet, empty: &HashSet<Name>) {
    set.items.retain_mut(|item| match &mut item.node {
        Selection::Field(field) => !is_meta(&field.node.name.node),
        Selection::InlineFragment(fragment) => {
            if on_query(&fragment.node) {
                strip_set(&mut fragment.node.selection_set.node, empty);
            }
            !fragment.node.selection_set.node.items.is_empty()
        }
        Selection::FragmentSpread(spread) => !empty.contains(&spread.node.fragment_name.node),
    });
}

/// The fragments a selection set spreads, transitively.
fn spread_fragments(
    set: &SelectionSet,
    fragments: &HashMap<Name, Positioned<FragmentDefinition>>,
    out: &mut HashSet<Name>,
) {
    for item in &set.items {
        match &item.node {
            Selection::Field(field) => {
                spread_fragments(&field.node.selection_set.node, fragments, out);
            }
            Selection::InlineFragment(fragment) => {
                spread_fragments(&fragment.node.selection_set.node, fragments, out);
            }
            Selection::FragmentSpread(spread) => {
                let name = &spread.node.fragment_name.node;
                if out.insert(name.clone())
                    && let Some(fragment) = fragments.get(name)
                {
                    spread_fragments(&fragment.node.selection_set.node, fragments, out);
                }
            }
        }
    }
}

/// The variables a value of the document refers to (the parser's values, which
/// async-graphql does not name, are read through `into_const_with`).
macro_rules! note_variables {
    ($value:expr, $out:expr) => {{
        let _ = $value.clone().into_const_with(|name| {
            $out.insert(name);
            Ok::<_, std::convert::Infallible>(ConstValue::Null)
        });
    }};
}

/// A value of the document: the literal, or the name of the variable it is.
macro_rules! literal {
    ($value:expr) => {
        $value.clone().into_const_with(Err::<ConstValue, Name>)
    };
}

/// The variables a selection set refers to (in arguments and directives), with the
/// fragments it spreads.
fn set_variables(
    set: &SelectionSet,
    fragments: &HashMap<Name, Positioned<FragmentDefinition>>,
    seen: &mut HashSet<Name>,
    out: &mut HashSet<Name>,
) {
    let directives = |list: &[Positioned<async_graphql::parser::types::Directive>],
                      out: &mut HashSet<Name>| {
        for directive in list {
            for (_, value) in &directive.node.arguments {
                note_variables!(value.node, out);
            }
        }
    };
    for item in &set.items {
        match &item.node {
            Selection::Field(field) => {
                for (_, value) in &field.node.arguments {
                    note_variables!(value.node, out);
                }
                directives(&field.node.directives, out);
                set_variables(&field.node.selection_set.node, fragments, seen, out);
            }
            Selection::InlineFragment(fragment) => {
                directives(&fragment.node.directives, out);
                set_variables(&fragment.node.selection_set.node, fragments, seen, out);
            }
            Selection::FragmentSpread(spread) => {
                directives(&spread.node.directives, out);
                let name = &spread.node.fragment_name.node;
                if seen.insert(name.clone())
                    && let Some(fragment) = fragments.get(name)
                {
                    directives(&fragment.node.directives, out);
                    set_variables(&fragment.node.selection_set.node, fragments, seen, out);
                }
            }
        }
    }
}

fn operation_variables(
    op: &OperationDefinition,
    fragments: &HashMap<Name, Positioned<FragmentDefinition>>,
) -> HashSet<Name> {
    let mut out = HashSet::new();
    set_variables(
        &op.selection_set.node,
        fragments,
        &mut HashSet::new(),
        &mut out,
    );
    for directive in &op.directives {
        for (_, value) in &directive.node.arguments {
            note_variables!(value.node, out);
        }
    }
    out
}

/// The operations, each with its name.
fn operations_mut(
    doc: &mut ExecutableDocument,
) -> Vec<(Option<Name>, &mut Positioned<OperationDefinition>)> {
    match &mut doc.operations {
        DocumentOperations::Single(op) => vec![(None, op)],
        DocumentOperations::Multiple(ops) => ops
            .iter_mut()
            .map(|(name, op)| (Some(name.clone()), op))
            .collect(),
    }
}

/// The document without the meta fields of its query operations and fragments on
/// `Query`, without the fragments only they spread and the variables only they used.
fn stripped(doc: &ExecutableDocument) -> ExecutableDocument {
    let mut out = doc.clone();
    let reachable = |doc: &ExecutableDocument| {
        let mut found = HashSet::new();
        for (_, op) in doc.operations.iter() {
            spread_fragments(&op.node.selection_set.node, &doc.fragments, &mut found);
        }
        found
    };
    let used_before: HashMap<Option<Name>, HashSet<Name>> = doc
        .operations
        .iter()
        .map(|(name, op)| {
            let used = operation_variables(&op.node, &doc.fragments);
            (name.cloned(), used)
        })
        .collect();
    let reachable_before = reachable(doc);
    // Fragments on `Query` first, until none is left empty by another's emptiness.
    let mut empty: HashSet<Name> = HashSet::new();
    loop {
        let before = empty.len();
        for (name, fragment) in &mut out.fragments {
            if fragment.node.type_condition.node.on.node == "Query" {
                strip_set(&mut fragment.node.selection_set.node, &empty);
                if fragment.node.selection_set.node.items.is_empty() {
                    empty.insert(name.clone());
                }
            }
        }
        if empty.len() == before {
            break;
        }
    }
    for (_, op) in operations_mut(&mut out) {
        if op.node.ty != OperationType::Query {
            continue;
        }
        let set = &mut op.node.selection_set;
        strip_set(&mut set.node, &empty);
        if set.node.items.is_empty() {
            // Something to run (its answer is left out of the merge).
            let field = FieldNode {
                alias: None,
                name: Positioned::new(Name::new("__typename"), set.pos),
                arguments: Vec::new(),
                directives: Vec::new(),
                selection_set: Positioned::new(SelectionSet::default(), set.pos),
            };
            set.node.items.push(Positioned::new(
                Selection::Field(Positioned::new(field, set.pos)),
                set.pos,
            ));
        }
    }
    let reachable_after = reachable(&out);
    out.fragments.retain(|name, _| {
        !empty.contains(name)
            && (reachable_after.contains(name) || !reachable_before.contains(name))
    });
    let fragments = out.fragments.clone();
    for (name, op) in operations_mut(&mut out) {
        let Some(before) = used_before.get(&name) else {
            continue;
        };
        let after = operation_variables(&op.node, &fragments);
        op.node.variable_definitions.retain(|v| {
            let name = &v.node.name.node;
            after.contains(name) || !before.contains(name)
        });
    }
    out
}

/// A value with the variables' values (a variable not given is `None`, as an argument
/// not given).
fn resolve_value(value: Result<ConstValue, Name>, variables: &Map<String, Value>) -> Option<Value> {
    match value {
        Ok(literal) => literal.into_json().ok(),
        Err(variable) => variables.get(variable.as_str()).cloned(),
    }
}

// ---------------------------------------------------------------------------------------
// Execution

/// What a field of the introspection types resolves on.
#[derive(Clone, Copy)]
enum Obj<'a> {
    Schema,
    Named(&'a NamedType),
    /// A list or non-null wrapper.
    Wrapper(&'a Ty),
    Field(&'a FieldDef),
    InputValue(&'a InputValue),
    EnumValue(&'a EnumValue),
    Directive(&'a Directive),
}

impl Obj<'_> {
    fn type_name(&self) -> &'static str {
        match self {
            Obj::Schema => "__Schema",
            Obj::Named(_) | Obj::Wrapper(_) => "__Type",
            Obj::Field(_) => "__Field",
            Obj::InputValue(_) => "__InputValue",
            Obj::EnumValue(_) => "__EnumValue",
            Obj::Directive(_) => "__Directive",
        }
    }
}

/// What a field resolved to, before its selection is applied.
enum Resolved<'a> {
    Leaf(Value),
    One(Option<Obj<'a>>),
    Many(Vec<Obj<'a>>),
}

fn leaf_text(text: Option<&String>) -> Resolved<'static> {
    Resolved::Leaf(text.map_or(Value::Null, |t| Value::String(t.clone())))
}

/// What fields, input values, enum values and directives all have.
trait Described {
    fn name(&self) -> &str;
    fn description(&self) -> Option<&String>;
    fn deprecation(&self) -> Option<&String>;
}

macro_rules! described {
    ($($t:ty),*) => {$(
        impl Described for $t {
            fn name(&self) -> &str {
                &self.name
            }
            fn description(&self) -> Option<&String> {
                self.description.as_ref()
            }
            fn deprecation(&self) -> Option<&String> {
                self.deprecation.as_ref()
            }
        }
    )*};
}

described!(FieldDef, InputValue, EnumValue, Directive);

/// The fields [`Described`] things share: `name`, `description`, `isDeprecated`,
/// `deprecationReason` (any other is `null`).
fn described(field: &str, item: &impl Described) -> Resolved<'static> {
    match field {
        "name" => Resolved::Leaf(Value::String(item.name().to_owned())),
        "description" => leaf_text(item.description()),
        "isDeprecated" => Resolved::Leaf(Value::Bool(item.deprecation().is_some())),
        "deprecationReason" => leaf_text(item.deprecation()),
        _ => Resolved::Leaf(Value::Null),
    }
}

/// A list of fields, arguments, enum values or directives, the deprecated ones only
/// when `includeDeprecated` is true.
fn listed<'a, T: Described>(
    items: &'a [T],
    include_deprecated: bool,
    wrap: fn(&'a T) -> Obj<'a>,
) -> Resolved<'a> {
    Resolved::Many(
        items
            .iter()
            .filter(|i| include_deprecated || i.deprecation().is_none())
            .map(wrap)
            .collect(),
    )
}

struct Exec<'a> {
    schema: &'a Introspection,
    doc: &'a ExecutableDocument,
    /// The operation's variables: the request's, else their defaults.
    variables: Map<String, Value>,
}

impl<'a> Exec<'a> {
    fn new(
        schema: &'a Introspection,
        doc: &'a ExecutableDocument,
        op: &'a OperationDefinition,
        given: &Value,
    ) -> Self {
        let mut variables = Map::new();
        for def in &op.variable_definitions {
            let name = def.node.name.node.as_str();
            let value = given.get(name).cloned().or_else(|| {
                def.node
                    .default_value
                    .as_ref()
                    .and_then(|d| d.node.clone().into_json().ok())
            });
            if let Some(value) = value {
                variables.insert(name.to_owned(), value);
            }
        }
        Exec {
            schema,
            doc,
            variables,
        }
    }

    /// graphql-js's `shouldIncludeNode`.
    fn included(&self, directives: &[Positioned<async_graphql::parser::types::Directive>]) -> bool {
        for directive in directives {
            let name = directive.node.name.node.as_str();
            if name != "skip" && name != "include" {
                continue;
            }
            let condition = directive
                .node
                .get_argument("if")
                .and_then(|v| resolve_value(literal!(v.node), &self.variables))
                == Some(Value::Bool(true));
            if (name == "skip" && condition) || (name == "include" && !condition) {
                return false;
            }
        }
        true
    }

    /// graphql-js's `collectFields` for an object of type `type_name`.
    fn collect(
        &self,
        type_name: &str,
        set: &'a SelectionSet,
        visited: &mut HashSet<&'a str>,
        out: &mut IndexMap<String, Vec<&'a FieldNode>>,
    ) {
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    if !self.included(&field.node.directives) {
                        continue;
                    }
                    let key = field.node.response_key().node.to_string();
                    out.entry(key).or_default().push(&field.node);
                }
                Selection::InlineFragment(fragment) => {
                    let matches = fragment
                        .node
                        .type_condition
                        .as_ref()
                        .is_none_or(|c| c.node.on.node == type_name);
                    if !self.included(&fragment.node.directives) || !matches {
                        continue;
                    }
                    self.collect(type_name, &fragment.node.selection_set.node, visited, out);
                }
                Selection::FragmentSpread(spread) => {
                    let name = spread.node.fragment_name.node.as_str();
                    if visited.contains(name) || !self.included(&spread.node.directives) {
                        continue;
                    }
                    visited.insert(name);
                    let Some(fragment) = self.doc.fragments.get(name) else {
                        continue;
                    };
                    if fragment.node.type_condition.node.on.node != type_name {
                        continue;
                    }
                    self.collect(type_name, &fragment.node.selection_set.node, visited, out);
                }
            }
        }
    }

    /// The root keys of the operation: the meta fields answered, `__typename` too,
    /// the others left to async-graphql.
    fn root(&self, op: &'a OperationDefinition) -> Vec<(String, Option<Value>)> {
        let mut fields = IndexMap::new();
        self.collect(
            &self.schema.query,
            &op.selection_set.node,
            &mut HashSet::new(),
            &mut fields,
        );
        fields
            .into_iter()
            .map(|(key, nodes)| {
                let value = match nodes[0].name.node.as_str() {
                    "__schema" => Some(self.object(Obj::Schema, &nodes)),
                    "__type" => Some(
                        self.argument(nodes[0], "name")
                            .and_then(|n| n.as_str().and_then(|n| self.schema.named(n)))
                            .map_or(Value::Null, |t| self.object(Obj::Named(t), &nodes)),
                    ),
                    "__typename" => Some(Value::String(self.schema.query.clone())),
                    _ => None,
                };
                (key, value)
            })
            .collect()
    }

    fn argument(&self, node: &FieldNode, name: &str) -> Option<Value> {
        node.get_argument(name)
            .and_then(|v| resolve_value(literal!(v.node), &self.variables))
    }

    fn include_deprecated(&self, node: &FieldNode) -> bool {
        self.argument(node, "includeDeprecated") == Some(Value::Bool(true))
    }

    /// The object's selection (every node's, merged).
    fn object(&self, obj: Obj<'a>, nodes: &[&'a FieldNode]) -> Value {
        let mut fields = IndexMap::new();
        let mut visited = HashSet::new();
        for node in nodes {
            self.collect(
                obj.type_name(),
                &node.selection_set.node,
                &mut visited,
                &mut fields,
            );
        }
        let mut out = Map::new();
        for (key, field_nodes) in fields {
            let value = match self.resolve(obj, field_nodes[0]) {
                Resolved::Leaf(value) => value,
                Resolved::One(None) => Value::Null,
                Resolved::One(Some(child)) => self.object(child, &field_nodes),
                Resolved::Many(children) => Value::Array(
                    children
                        .into_iter()
                        .map(|child| self.object(child, &field_nodes))
                        .collect(),
                ),
            };
            out.insert(key, value);
        }
        Value::Object(out)
    }

    fn type_obj(&self, ty: &'a Ty) -> Option<Obj<'a>> {
        match ty {
            Ty::Named(name) => self.schema.named(name).map(Obj::Named),
            wrapper => Some(Obj::Wrapper(wrapper)),
        }
    }

    /// The introspection types' resolvers (`type/introspection.js`).
    fn resolve(&self, obj: Obj<'a>, node: &FieldNode) -> Resolved<'a> {
        let field = node.name.node.as_str();
        if field == "__typename" {
            return Resolved::Leaf(Value::String(obj.type_name().to_owned()));
        }
        let deprecated = self.include_deprecated(node);
        let schema = self.schema;
        match obj {
            Obj::Schema => match field {
                "types" => Resolved::Many(schema.types.values().map(Obj::Named).collect()),
                "queryType" => Resolved::One(schema.named(&schema.query).map(Obj::Named)),
                "mutationType" => Resolved::One(
                    schema
                        .mutation
                        .as_deref()
                        .and_then(|m| schema.named(m))
                        .map(Obj::Named),
                ),
                "directives" => listed(&schema.directives, deprecated, Obj::Directive),
                // `description` (Strapi's schema has none), `subscriptionType`.
                _ => Resolved::Leaf(Value::Null),
            },
            Obj::Named(ty) => self.resolve_named(ty, field, deprecated),
            Obj::Wrapper(ty) => match (field, ty) {
                ("kind", Ty::List(_)) => Resolved::Leaf(Value::String("LIST".into())),
                ("kind", _) => Resolved::Leaf(Value::String("NON_NULL".into())),
                ("ofType", Ty::List(inner) | Ty::NonNull(inner)) => {
                    Resolved::One(self.type_obj(inner))
                }
                _ => Resolved::Leaf(Value::Null),
            },
            Obj::Field(def) => match field {
                "args" => listed(&def.args, deprecated, Obj::InputValue),
                "type" => Resolved::One(self.type_obj(&def.ty)),
                _ => described(field, def),
            },
            Obj::InputValue(def) => match field {
                "type" => Resolved::One(self.type_obj(&def.ty)),
                "defaultValue" => leaf_text(def.default.as_ref()),
                _ => described(field, def),
            },
            Obj::EnumValue(def) => described(field, def),
            Obj::Directive(def) => match field {
                "isRepeatable" => Resolved::Leaf(Value::Bool(def.repeatable)),
                "locations" => Resolved::Leaf(Value::Array(
                    def.locations
                        .iter()
                        .map(|l| Value::String(l.clone()))
                        .collect(),
                )),
                "args" => listed(&def.args, deprecated, Obj::InputValue),
                _ => described(field, def),
            },
        }
    }

    fn resolve_named(&self, ty: &'a NamedType, field: &str, deprecated: bool) -> Resolved<'a> {
        let fields_kind = matches!(ty.kind, TypeKind::Object | TypeKind::Interface);
        let named = |names: &'a [String]| {
            Resolved::Many(
                names
                    .iter()
                    .filter_map(|n| self.schema.named(n))
                    .map(Obj::Named)
                    .collect(),
            )
        };
        match field {
            "kind" => Resolved::Leaf(Value::String(ty.kind.text().into())),
            "name" => Resolved::Leaf(Value::String(ty.name.clone())),
            "description" => leaf_text(ty.description.as_ref()),
            "specifiedByURL" => leaf_text(ty.specified_by.as_ref()),
            "fields" if fields_kind => listed(&ty.fields, deprecated, Obj::Field),
            "interfaces" if fields_kind => named(&ty.interfaces),
            "possibleTypes" if matches!(ty.kind, TypeKind::Union | TypeKind::Interface) => {
                named(&ty.possible_types)
            }
            "enumValues" if ty.kind == TypeKind::Enum => {
                listed(&ty.enum_values, deprecated, Obj::EnumValue)
            }
            "inputFields" if ty.kind == TypeKind::InputObject => {
                listed(&ty.input_fields, deprecated, Obj::InputValue)
            }
            "isOneOf" if ty.kind == TypeKind::InputObject => Resolved::Leaf(Value::Bool(ty.one_of)),
            // `ofType` of a named type, and what its kind does not have.
            _ => Resolved::One(None),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Validation

/// graphql-js's rules over the introspection selections: known fields, arguments and
/// type conditions, required arguments, literal values of the right scalar, variables
/// in allowed positions, selections on objects only.
struct Validator<'a> {
    schema: &'a Introspection,
    doc: &'a ExecutableDocument,
    /// The introspection types' fields, by type name.
    meta: HashMap<&'a str, &'a NamedType>,
    /// The fragments spread from introspection selections, to check once each.
    fragments: Vec<&'a str>,
    errors: Vec<(Pos, String, Vec<Pos>)>,
}

fn at(pos: Pos) -> (usize, usize) {
    (pos.line, pos.column)
}

impl<'a> Validator<'a> {
    fn new(schema: &'a Introspection, doc: &'a ExecutableDocument) -> Self {
        let meta = schema
            .types
            .values()
            .filter(|t| t.name.starts_with("__") && t.kind == TypeKind::Object)
            .map(|t| (t.name.as_str(), t))
            .collect();
        Validator {
            schema,
            doc,
            meta,
            fragments: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn error(&mut self, message: String, locations: Vec<Pos>) {
        let first = locations.first().copied().unwrap_or_default();
        self.errors.push((first, message, locations));
    }

    fn run(mut self) -> Vec<Located> {
        // The meta fields where they may be: each query operation's root (and its inline
        // fragments), with that operation's variables, and each fragment on `Query`.
        let mut roots: Vec<(
            &'a SelectionSet,
            Option<&'a Positioned<OperationDefinition>>,
        )> = Vec::new();
        for (_, op) in self.doc.operations.iter() {
            if op.node.ty == OperationType::Query {
                roots.push((&op.node.selection_set.node, Some(op)));
                self.root_conflicts(&op.node.selection_set.node);
            }
        }
        for fragment in self.doc.fragments.values() {
            if fragment.node.type_condition.node.on.node == "Query" {
                roots.push((&fragment.node.selection_set.node, None));
            }
        }
        for (set, op) in roots {
            let mut fields = Vec::new();
            query_level_fields(set, &mut fields);
            for field in fields {
                if is_meta(&field.node.name.node) {
                    self.meta_field(field, op);
                }
            }
        }
        let mut checked: HashSet<&str> = HashSet::new();
        while let Some(name) = self.fragments.pop() {
            if !checked.insert(name) {
                continue;
            }
            let Some(fragment) = self.doc.fragments.get(name) else {
                continue;
            };
            let on = fragment.node.type_condition.node.on.node.as_str();
            if let Some(ty) = self.meta.get(on).copied() {
                self.selection(ty, &fragment.node.selection_set.node, None);
            }
        }
        // graphql-js visits the document in order.
        self.errors
            .sort_by_key(|(pos, _, _)| (pos.line, pos.column));
        self.errors
            .into_iter()
            .map(|(_, message, locations)| (message, locations.into_iter().map(at).collect()))
            .collect()
    }

    /// `__schema` or `__type` (with its `name: String!`).
    fn meta_field(
        &mut self,
        field: &'a Positioned<FieldNode>,
        op: Option<&'a Positioned<OperationDefinition>>,
    ) {
        let name = field.node.name.node.as_str();
        let (ty, args) = if name == "__schema" {
            (Ty::nn("__Schema"), Vec::new())
        } else {
            let arg = InputValue {
                name: "name".into(),
                description: None,
                ty: Ty::nn("String"),
                default: None,
                deprecation: None,
            };
            (Ty::named("__Type"), vec![arg])
        };
        let def = FieldDef {
            name: name.to_owned(),
            description: None,
            args,
            ty,
            deprecation: None,
        };
        self.field(&self.schema.query.clone(), &def, field, op);
    }

    /// A field of `parent` whose definition is `def`.
    fn field(
        &mut self,
        parent: &str,
        def: &FieldDef,
        field: &'a Positioned<FieldNode>,
        op: Option<&'a Positioned<OperationDefinition>>,
    ) {
        let node = &field.node;
        self.directives(&node.directives, "FIELD", op);
        let owner = ArgumentsOf::Field {
            parent,
            name: &def.name,
        };
        self.arguments(
            &def.args,
            &given_arguments!(node.arguments),
            &owner,
            field.pos,
            op,
        );
        let base = def.ty.base();
        let leaf = self.schema.named(base).is_none_or(|t| t.kind.leaf());
        let selected = !node.selection_set.node.items.is_empty();
        if leaf && selected {
            self.error(
                format!(
                    "Field \"{}\" must not have a selection since type \"{}\" has no subfields.",
                    def.name,
                    type_text(&def.ty)
                ),
                vec![node.selection_set.pos],
            );
        } else if !leaf && !selected {
            self.error(
                format!(
                    "Field \"{}\" of type \"{}\" must have a selection of subfields. Did you mean \"{} {{ ... }}\"?",
                    def.name,
                    type_text(&def.ty),
                    def.name
                ),
                vec![field.pos],
            );
        } else if let Some(ty) = self.meta.get(base).copied() {
            self.selection(ty, &node.selection_set.node, op);
        }
    }

    /// An argument's value: a literal of the argument's scalar, or a variable of a type
    /// allowed there.
    fn value(
        &mut self,
        def: &InputValue,
        value: Result<ConstValue, Name>,
        pos: Pos,
        op: Option<&'a Positioned<OperationDefinition>>,
    ) {
        match value {
            Err(name) => {
                let Some(var) = op.and_then(|op| {
                    op.node
                        .variable_definitions
                        .iter()
                        .find(|v| v.node.name.node == name)
                }) else {
                    if let Some(op) = op {
                        self.error(
                            format!("Variable \"${name}\" is not defined."),
                            vec![pos, op.pos],
                        );
                    }
                    return;
                };
                let var_ty = parsed_type(&var.node.var_type.node);
                let has_default = var
                    .node
                    .default_value
                    .as_ref()
                    .is_some_and(|d| d.node != ConstValue::Null)
                    || def.default.is_some();
                let allowed = match (&def.ty, &var_ty) {
                    (Ty::NonNull(inner), var) if !matches!(var, Ty::NonNull(_)) => {
                        has_default && **inner == *var
                    }
                    (expected, Ty::NonNull(inner)) if !matches!(expected, Ty::NonNull(_)) => {
                        **inner == *expected
                    }
                    (expected, var) => expected == var,
                };
                if !allowed {
                    self.error(
                        format!(
                            "Variable \"${name}\" of type \"{}\" used in position expecting type \"{}\".",
                            type_text(&var_ty),
                            type_text(&def.ty)
                        ),
                        vec![var.pos, pos],
                    );
                }
            }
            Ok(ConstValue::Null) => {
                if matches!(def.ty, Ty::NonNull(_)) {
                    self.error(
                        format!(
                            "Expected value of type \"{}\", found null.",
                            type_text(&def.ty)
                        ),
                        vec![pos],
                    );
                }
            }
            Ok(literal) => {
                let ok = match def.ty.base() {
                    "Boolean" => matches!(literal, ConstValue::Boolean(_)),
                    "String" => matches!(literal, ConstValue::String(_)),
                    _ => true,
                };
                if !ok {
                    let (scalar, what) = match def.ty.base() {
                        "Boolean" => ("Boolean", "boolean"),
                        _ => ("String", "string"),
                    };
                    self.error(
                        format!("{scalar} cannot represent a non {what} value: {literal}"),
                        vec![pos],
                    );
                }
            }
        }
    }

    /// A selection set on the introspection object type `ty`.
    fn selection(
        &mut self,
        ty: &'a NamedType,
        set: &'a SelectionSet,
        op: Option<&'a Positioned<OperationDefinition>>,
    ) {
        let mut fields = Vec::new();
        self.flattened(set, &mut HashSet::new(), &mut fields);
        self.conflicts(&fields, false);
        self.items(ty, set, op);
    }

    /// The items of a selection set on `ty` (inline fragments' too).
    fn items(
        &mut self,
        ty: &'a NamedType,
        set: &'a SelectionSet,
        op: Option<&'a Positioned<OperationDefinition>>,
    ) {
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => {
                    let name = field.node.name.node.as_str();
                    if name == "__typename" {
                        let def = FieldDef {
                            name: name.to_owned(),
                            description: None,
                            args: Vec::new(),
                            ty: Ty::nn("String"),
                            deprecation: None,
                        };
                        self.field(&ty.name, &def, field, op);
                        continue;
                    }
                    match ty.fields.iter().find(|f| f.name == name) {
                        Some(def) => self.field(&ty.name, def, field, op),
                        None => {
                            let names = ty.fields.iter().map(|f| f.name.as_str());
                            let hint = did_you_mean(None, &suggestion_list(name, names));
                            self.error(
                                format!(
                                    "Cannot query field \"{name}\" on type \"{}\".{hint}",
                                    ty.name
                                ),
                                vec![field.pos],
                            );
                        }
                    }
                }
                Selection::InlineFragment(fragment) => {
                    self.directives(&fragment.node.directives, "INLINE_FRAGMENT", op);
                    if let Some(condition) = &fragment.node.type_condition {
                        let on = condition.node.on.node.as_str();
                        if !self.condition(ty, on, None, item.pos, condition.node.on.pos) {
                            continue;
                        }
                    }
                    self.items(ty, &fragment.node.selection_set.node, op);
                }
                Selection::FragmentSpread(spread) => {
                    self.directives(&spread.node.directives, "FRAGMENT_SPREAD", op);
                    let name = spread.node.fragment_name.node.as_str();
                    let Some(fragment) = self.doc.fragments.get(name) else {
                        self.error(
                            format!("Unknown fragment \"{name}\"."),
                            vec![spread.node.fragment_name.pos],
                        );
                        continue;
                    };
                    let on = fragment.node.type_condition.node.on.node.as_str();
                    if self.condition(ty, on, Some(name), item.pos, item.pos) {
                        self.fragments.push(name);
                    }
                }
            }
        }
    }

    /// graphql-js's `KnownArgumentNames` and `ProvidedRequiredArguments` over the
    /// arguments given to a field or directive (`at`: where it is), each known one's value
    /// checked against its type.
    fn arguments(
        &mut self,
        defs: &[InputValue],
        given: &[GivenArgument<'_>],
        owner: &ArgumentsOf<'_>,
        at: Pos,
        op: Option<&'a Positioned<OperationDefinition>>,
    ) {
        for (arg, value) in given {
            match defs.iter().find(|a| a.name == arg.node.as_str()) {
                None => {
                    let names = defs.iter().map(|a| a.name.as_str());
                    let hint = did_you_mean(None, &suggestion_list(&arg.node, names));
                    let message = match owner {
                        ArgumentsOf::Field { parent, name } => {
                            format!(
                                "Unknown argument \"{}\" on field \"{parent}.{name}\".{hint}",
                                arg.node
                            )
                        }
                        ArgumentsOf::Directive(name) => {
                            format!(
                                "Unknown argument \"{}\" on directive \"@{name}\".{hint}",
                                arg.node
                            )
                        }
                    };
                    self.error(message, vec![arg.pos]);
                }
                Some(arg_def) => self.value(arg_def, value.node.clone(), value.pos, op),
            }
        }
        for arg_def in defs {
            let provided = given.iter().any(|(a, _)| a.node == arg_def.name);
            if !provided && matches!(arg_def.ty, Ty::NonNull(_)) && arg_def.default.is_none() {
                let whose = match owner {
                    ArgumentsOf::Field { name, .. } => format!("Field \"{name}\""),
                    ArgumentsOf::Directive(name) => format!("Directive \"@{name}\""),
                };
                self.error(
                    format!(
                        "{whose} argument \"{}\" of type \"{}\" is required, but it was not provided.",
                        arg_def.name,
                        type_text(&arg_def.ty)
                    ),
                    vec![at],
                );
            }
        }
    }

    /// The directives of a field or fragment in an introspection selection: known, at
    /// a location they may be, with their arguments (`@skip`/`@include`'s `if:
    /// Boolean!`).
    fn directives(
        &mut self,
        list: &'a [Positioned<async_graphql::parser::types::Directive>],
        location: &str,
        op: Option<&'a Positioned<OperationDefinition>>,
    ) {
        for directive in list {
            let name = directive.node.name.node.as_str();
            let Some(def) = self.schema.directives.iter().find(|d| d.name == name) else {
                self.error(
                    format!("Unknown directive \"@{name}\"."),
                    vec![directive.pos],
                );
                continue;
            };
            if !def.locations.iter().any(|l| l == location) {
                self.error(
                    format!("Directive \"@{name}\" may not be used on {location}."),
                    vec![directive.pos],
                );
                continue;
            }
            let owner = ArgumentsOf::Directive(name);
            let given = given_arguments!(directive.node.arguments);
            self.arguments(&def.args, &given, &owner, directive.pos, op);
        }
    }

    /// The fields a selection set selects, through inline fragments and spreads.
    fn flattened(
        &self,
        set: &'a SelectionSet,
        visited: &mut HashSet<&'a str>,
        out: &mut Vec<&'a Positioned<FieldNode>>,
    ) {
        for item in &set.items {
            match &item.node {
                Selection::Field(field) => out.push(field),
                Selection::InlineFragment(fragment) => {
                    self.flattened(&fragment.node.selection_set.node, visited, out);
                }
                Selection::FragmentSpread(spread) => {
                    let name = spread.node.fragment_name.node.as_str();
                    if visited.insert(name)
                        && let Some(fragment) = self.doc.fragments.get(name)
                    {
                        self.flattened(&fragment.node.selection_set.node, visited, out);
                    }
                }
            }
        }
    }

    /// An operation's root fields that share a response key with a meta field (the
    /// others are async-graphql's to check).
    fn root_conflicts(&mut self, set: &'a SelectionSet) {
        let mut fields = Vec::new();
        self.flattened(set, &mut HashSet::new(), &mut fields);
        self.conflicts(&fields, true);
    }

    /// graphql-js's `OverlappingFieldsCanBeMergedRule`: two fields of one response key
    /// must be the same field with the same arguments, and so must their subfields.
    fn conflicts(&mut self, fields: &[&'a Positioned<FieldNode>], only_meta: bool) {
        for (i, a) in fields.iter().enumerate() {
            for b in &fields[i + 1..] {
                let key = a.node.response_key().node.as_str();
                if key != b.node.response_key().node.as_str() {
                    continue;
                }
                if only_meta && !is_meta(&a.node.name.node) && !is_meta(&b.node.name.node) {
                    continue;
                }
                if let Some((reason, mut locations, more)) = self.conflict(a, b) {
                    locations.extend(more);
                    self.error(reason.error_message(key), locations);
                }
            }
        }
    }

    /// graphql-js's `findConflict` of two fields of one response key: why they conflict,
    /// and the fields of each side involved.
    fn conflict(
        &self,
        a: &'a Positioned<FieldNode>,
        b: &'a Positioned<FieldNode>,
    ) -> Option<(Reason, Vec<Pos>, Vec<Pos>)> {
        let (name_a, name_b) = (a.node.name.node.as_str(), b.node.name.node.as_str());
        if name_a != name_b {
            let reason = format!("\"{name_a}\" and \"{name_b}\" are different fields");
            return Some((Reason::Text(reason), vec![a.pos], vec![b.pos]));
        }
        if !same_arguments(&a.node, &b.node) {
            let reason = "they have differing arguments".to_owned();
            return Some((Reason::Text(reason), vec![a.pos], vec![b.pos]));
        }
        let mut first = Vec::new();
        let mut second = Vec::new();
        self.flattened(&a.node.selection_set.node, &mut HashSet::new(), &mut first);
        self.flattened(&b.node.selection_set.node, &mut HashSet::new(), &mut second);
        let mut reasons = Vec::new();
        let (mut locations_a, mut locations_b) = (vec![a.pos], vec![b.pos]);
        let mut keys: Vec<&str> = Vec::new();
        for field in &first {
            let key = field.node.response_key().node.as_str();
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        for key in keys {
            let of = |fields: &[&'a Positioned<FieldNode>]| -> Vec<&'a Positioned<FieldNode>> {
                fields
                    .iter()
                    .copied()
                    .filter(|f| f.node.response_key().node.as_str() == key)
                    .collect()
            };
            for x in of(&first) {
                for y in of(&second) {
                    if let Some((reason, xs, ys)) = self.conflict(x, y) {
                        reasons.push((key.to_owned(), reason));
                        locations_a.extend(xs);
                        locations_b.extend(ys);
                    }
                }
            }
        }
        (!reasons.is_empty()).then_some((Reason::Sub(reasons), locations_a, locations_b))
    }

    /// Whether a fragment on `on` may be spread in `ty` (else its error).
    fn condition(
        &mut self,
        ty: &NamedType,
        on: &str,
        fragment: Option<&str>,
        pos: Pos,
        on_pos: Pos,
    ) -> bool {
        if self.schema.named(on).is_none() {
            // A named fragment's unknown type is async-graphql's to report.
            if fragment.is_none() {
                let names = self.schema.types.keys().map(String::as_str);
                let hint = did_you_mean(None, &suggestion_list(on, names));
                self.error(format!("Unknown type \"{on}\".{hint}"), vec![on_pos]);
            }
            return false;
        }
        if on == ty.name {
            return true;
        }
        let which = fragment.map_or(String::new(), |f| format!(" \"{f}\""));
        self.error(
            format!(
                "Fragment{which} cannot be spread here as objects of type \"{}\" can never be of type \"{on}\".",
                ty.name
            ),
            vec![pos],
        );
        false
    }
}

/// Why two fields conflict (graphql-js's `ConflictReasonMessage`).
pub(super) enum Reason {
    Text(String),
    /// Their subfields of these response keys conflict.
    Sub(Vec<(String, Reason)>),
}

impl Reason {
    /// graphql-js's error for two fields of response key `key` that conflict so.
    pub(super) fn error_message(&self, key: &str) -> String {
        format!(
            "Fields \"{key}\" conflict because {}. Use different aliases on the fields to fetch both if this was intentional.",
            self.message()
        )
    }

    fn message(&self) -> String {
        match self {
            Reason::Text(text) => text.clone(),
            Reason::Sub(reasons) => reasons
                .iter()
                .map(|(key, reason)| {
                    format!("subfields \"{key}\" conflict because {}", reason.message())
                })
                .collect::<Vec<_>>()
                .join(" and "),
        }
    }
}

/// graphql-js's `sameArguments`: the same names with the same printed values.
pub(super) fn same_arguments(a: &FieldNode, b: &FieldNode) -> bool {
    a.arguments.len() == b.arguments.len()
        && a.arguments.iter().all(|(name, value)| {
            b.get_argument(&name.node)
                .is_some_and(|other| other.node.to_string() == value.node.to_string())
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    #[test]
    fn the_builtins_parse() {
        let (types, directives) = builtins();
        let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), 13, "{names:?}");
        for name in [
            "String",
            "Boolean",
            "__Schema",
            "__Type",
            "__DirectiveLocation",
        ] {
            assert!(names.contains(&name), "{name}");
        }
        let directives: Vec<&str> = directives.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            directives,
            ["include", "skip", "deprecated", "specifiedBy", "oneOf"]
        );
    }
}
