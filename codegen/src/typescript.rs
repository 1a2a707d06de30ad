//! TypeScript types for front ends: one interface per content type and component, union
//! types for enumerations and dynamic zones, and the response envelope, rendered with an
//! askama template (`templates/typescript.ts`). The Rust output stays on quote and
//! prettyplease; both read their names from the same [`Plan`], so `Article` is `Article`
//! on either side.
//!
//! Decisions:
//! * Every attribute is optional (`fields` and `populate` choose what is sent) and every
//!   scalar may be `null`; `id` (and `documentId` on content types) are always there.
//! * Relations, media and components are their populated shapes (`Author | null`,
//!   `Tag[]`); `populate[x][count]=true` answers are not in the union (narrowing every
//!   access would burden the common case): read them as `StrapiCount`.
//! * Bigintegers are `string`, as Strapi sends them exactly.
//! * Names are the Rust output's names, except where one would clash with a type of the
//!   template's own ([`PRELUDE`]): a content type `strapi-error` is `StrapiError2` here.
//!
//! Decisions on the write inputs (what `POST`/`PUT` take as `data`, `crate::write` of the
//! runtime):
//! * Each content type with write routes (`api::…`) gets `<T>CreateInput` and
//!   `<T>UpdateInput`; each component `<C>Input`; each dynamic zone `<T><Zone>Input`, a
//!   union of its own components' inputs discriminated by `__component`.
//! * A create requires what the server requires of a published create: the `required`
//!   scalar attributes without a `default`, never `null`. The rest is optional, and may be
//!   `null` (cleared). An update makes everything optional; `null` clears, except a
//!   required scalar (refused on publish). A draft (`?status=draft`) takes the update
//!   input's shape, also on create. Components take every attribute as optional (the
//!   server checks `required` on the entry's own attributes only).
//! * `documentId`s are branded by their type's uid: `DocumentId<"api::author.author">` is
//!   `string & { __strataDocumentOf?: "api::author.author" }`. The brand is optional, so a
//!   plain `string` (a route parameter, a literal) is taken as any type's id without a
//!   cast, while an id read from a typed entry of another type is a compile error under
//!   `tsc --strict`: a tag's `documentId` cannot be connected to `author`. The read types
//!   carry the brand on `documentId`, so ids flow from reads to writes typed.
//! * Relations take documentIds of their target only (not row ids): the shorthand (one id,
//!   a list, `null`), longhand entries `{documentId, locale?, status?, position?}`, and
//!   `{connect?, disconnect?, set?}`. Media take file ids (numbers). Polymorphic relations
//!   are left out (the server refuses them). Private attributes and passwords are inputs
//!   (Strapi takes and stores them) though never read.
//! * `StrapiCollections` and `StrapiSingles` map each plural (singular) name to its entry
//!   and input types, for a typed wrapper around `@strapi/client`'s untyped
//!   `create(data: Record<string, any>)`.

use std::collections::BTreeMap;

use askama::Template;
use strata_runtime::schema::{
    AttrId, Attribute, AttributeKind, Model, Origin, ScalarType, Schema, SchemaId, SchemaKind,
};

use crate::CodegenError;
use crate::emit::{Plan, public};
use crate::names::{Scope, pascal};

/// The types that `templates/typescript.ts` declares itself; generated names avoid them.
const PRELUDE: &[&str] = &[
    "JsonValue",
    "BlocksContent",
    "StrapiCount",
    "StrapiPagePagination",
    "StrapiOffsetPagination",
    "StrapiListResponse",
    "StrapiSingleResponse",
    "StrapiError",
    "StrapiFieldError",
    "StrapiValidationError",
    "DocumentId",
    "RelationPosition",
    "RelationEntry",
    "RelationRef",
    "RelationInput",
    "StrapiCollections",
    "StrapiSingles",
];

/// The TypeScript names of a [`Plan`]: its Rust names, with clashes with [`PRELUDE`]
/// renamed.
struct TsPlan<'p, 'm> {
    plan: &'p Plan<'m>,
    types: BTreeMap<SchemaId, String>,
    enums: BTreeMap<(SchemaId, AttrId), String>,
    /// The input types of a written schema: a content type's create and update inputs
    /// (`[create, update]`), a component's one input (`[input, input]`).
    inputs: BTreeMap<SchemaId, [String; 2]>,
    /// The input union of each dynamic zone of a written schema.
    zone_inputs: BTreeMap<(SchemaId, AttrId), String>,
}

/// Whether a schema gets input types: components, and the content types that have write
/// routes (the project's own).
fn written(schema: &Schema) -> bool {
    schema.kind == SchemaKind::Component || schema.origin == Origin::Api
}

impl<'p, 'm> TsPlan<'p, 'm> {
    fn new(plan: &'p Plan<'m>) -> Self {
        let model = plan.model();
        let mut types = BTreeMap::new();
        let mut enums = BTreeMap::new();
        for id in plan.items() {
            types.insert(*id, plan.type_name(*id).to_string());
            for attr in public(model.schema(*id)) {
                if let Some(name) = plan.enum_name(*id, attr.id) {
                    enums.insert((*id, attr.id), name.to_string());
                }
            }
        }
        // Every name in use is taken first, so a renamed type never lands on another.
        let mut taken: Vec<&str> = PRELUDE.to_vec();
        taken.extend(types.values().map(String::as_str));
        taken.extend(enums.values().map(String::as_str));
        let mut scope = Scope::with(&taken);
        let mut rename = |name: &mut String| {
            if PRELUDE.contains(&name.as_str()) {
                *name = scope.take(name, false);
            }
        };
        types.values_mut().for_each(&mut rename);
        enums.values_mut().for_each(&mut rename);
        let mut inputs = BTreeMap::new();
        let mut zone_inputs = BTreeMap::new();
        for id in plan.items() {
            let schema = model.schema(*id);
            if !written(schema) {
                continue;
            }
            let base = types.get(id).cloned().unwrap_or_default();
            let names = match schema.kind {
                SchemaKind::Component => {
                    let input = scope.take(&format!("{base}Input"), false);
                    [input.clone(), input]
                }
                // A single type is only updated (its `PUT` creates it when missing).
                SchemaKind::SingleType => {
                    let update = scope.take(&format!("{base}UpdateInput"), false);
                    [update.clone(), update]
                }
                SchemaKind::CollectionType => [
                    scope.take(&format!("{base}CreateInput"), false),
                    scope.take(&format!("{base}UpdateInput"), false),
                ],
            };
            inputs.insert(*id, names);
            for attr in &schema.attributes {
                if matches!(attr.kind, AttributeKind::DynamicZone(_)) {
                    let name = scope.take(&format!("{base}{}Input", pascal(&attr.name)), false);
                    zone_inputs.insert((*id, attr.id), name);
                }
            }
        }
        TsPlan {
            plan,
            types,
            enums,
            inputs,
            zone_inputs,
        }
    }

    fn model(&self) -> &'m Model {
        self.plan.model()
    }

    fn items(&self) -> &'p [SchemaId] {
        self.plan.items()
    }

    fn type_name(&self, id: SchemaId) -> &str {
        self.types.get(&id).map_or("unknown", String::as_str)
    }

    fn enum_name(&self, owner: SchemaId, attr: AttrId) -> Option<&str> {
        self.enums.get(&(owner, attr)).map(String::as_str)
    }
}

/// One property of an interface.
struct TsField {
    key: String,
    optional: bool,
    ty: String,
}

/// One interface.
struct TsInterface {
    name: String,
    doc: String,
    fields: Vec<TsField>,
}

/// One `type X = …`.
struct TsAlias {
    name: String,
    doc: String,
    ty: String,
}

#[derive(Template)]
#[template(path = "typescript.ts", escape = "none")]
struct TsModule<'a> {
    origin: &'a str,
    aliases: Vec<TsAlias>,
    interfaces: Vec<TsInterface>,
    input_aliases: Vec<TsAlias>,
    inputs: Vec<TsInterface>,
    /// `StrapiCollections`' properties.
    collections: Vec<TsField>,
    /// `StrapiSingles`' properties.
    singles: Vec<TsField>,
}

/// Which input an attribute's type is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Write {
    Create,
    Update,
    /// Inside a component (every attribute optional and nullable).
    Component,
}

/// A property key: bare when it is an identifier, else a string literal.
fn key(name: &str) -> String {
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.to_string()
    } else {
        string(name)
    }
}

/// A TypeScript string literal.
fn string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A doc comment's text on one line, without `*/`.
fn doc(s: &str) -> String {
    s.replace("*/", "* /").replace(['\n', '\r'], " ")
}

impl TsPlan<'_, '_> {
    fn ts_name(&self, schema: &Schema) -> String {
        self.type_name(schema.id).to_string()
    }

    /// The TypeScript type of an attribute's value.
    fn ts_type(&self, schema: &Schema, attr: &Attribute) -> String {
        let model = self.model();
        let nullable = |t: &str| format!("{t} | null");
        match &attr.kind {
            AttributeKind::Scalar(s) => match s {
                ScalarType::Integer | ScalarType::Float | ScalarType::Decimal => nullable("number"),
                ScalarType::Boolean => nullable("boolean"),
                ScalarType::Json => "JsonValue".into(),
                ScalarType::Blocks => nullable("BlocksContent"),
                ScalarType::Enumeration { .. } => {
                    nullable(self.enum_name(schema.id, attr.id).unwrap_or("string"))
                }
                _ => nullable("string"),
            },
            AttributeKind::Relation(rel) => match rel.target {
                Some(t) if rel.kind.is_to_many() => format!("{}[]", self.ts_name(model.schema(t))),
                Some(t) => nullable(&self.ts_name(model.schema(t))),
                None => "unknown".into(),
            },
            AttributeKind::Media(m) => match model.upload_file() {
                Some(f) if m.multiple => format!("{}[]", self.ts_name(f)),
                Some(f) => nullable(&self.ts_name(f)),
                None => "unknown".into(),
            },
            AttributeKind::Component(c) if c.repeatable => {
                format!("{}[]", self.ts_name(model.schema(c.component)))
            }
            AttributeKind::Component(c) => nullable(&self.ts_name(model.schema(c.component))),
            AttributeKind::DynamicZone(_) => match self.enum_name(schema.id, attr.id) {
                Some(name) => format!("{name}[]"),
                None => "never[]".into(),
            },
        }
    }

    fn interface(&self, schema: &Schema) -> TsInterface {
        let content = schema.kind != SchemaKind::Component;
        let mut fields = vec![TsField {
            key: "id".into(),
            optional: false,
            ty: "number".into(),
        }];
        if content {
            fields.push(TsField {
                key: "documentId".into(),
                optional: false,
                ty: document_id(schema),
            });
        }
        for attr in public(schema) {
            fields.push(TsField {
                key: key(&attr.name),
                optional: true,
                ty: self.ts_type(schema, attr),
            });
        }
        if content {
            for (k, ty) in [
                ("createdAt", "string"),
                ("updatedAt", "string"),
                ("publishedAt", "string | null"),
            ] {
                fields.push(TsField {
                    key: k.into(),
                    optional: true,
                    ty: ty.into(),
                });
            }
            if schema.localized {
                fields.push(TsField {
                    key: "locale".into(),
                    optional: true,
                    ty: "string".into(),
                });
                fields.push(TsField {
                    key: "localizations".into(),
                    optional: true,
                    ty: format!("{}[]", self.ts_name(schema)),
                });
            }
        }
        let what = if content { "content type" } else { "component" };
        TsInterface {
            name: self.ts_name(schema),
            doc: doc(&format!(
                "{} (`{}`), {what}.",
                schema.display_name,
                schema.uid.as_str()
            )),
            fields,
        }
    }

    fn aliases(&self, schema: &Schema) -> Vec<TsAlias> {
        let model = self.model();
        let mut out = Vec::new();
        for attr in public(schema) {
            let Some(name) = self.enum_name(schema.id, attr.id) else {
                continue;
            };
            let ty = match &attr.kind {
                AttributeKind::Scalar(ScalarType::Enumeration { values }) => values
                    .iter()
                    .map(|v| string(v))
                    .collect::<Vec<_>>()
                    .join(" | "),
                AttributeKind::DynamicZone(dz) => dz
                    .components
                    .iter()
                    .map(|c| {
                        let component = model.schema(*c);
                        format!(
                            "({{ __component: {} }} & {})",
                            string(component.uid.as_str()),
                            self.ts_name(component)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" | "),
                _ => continue,
            };
            let what = match attr.kind {
                AttributeKind::DynamicZone(_) => "A component of the dynamic zone",
                _ => "The values of",
            };
            out.push(TsAlias {
                name: name.to_string(),
                doc: doc(&format!("{what} `{}.{}`.", schema.uid.as_str(), attr.name)),
                ty: if ty.is_empty() { "never".into() } else { ty },
            });
        }
        out
    }
}

/// `DocumentId<"<uid>">`, the branded documentId of `schema`'s entries.
fn document_id(schema: &Schema) -> String {
    format!("DocumentId<{}>", string(schema.uid.as_str()))
}

impl TsPlan<'_, '_> {
    /// The input type of an attribute's value, without `null`; `None` when the attribute
    /// cannot be written (a polymorphic relation).
    fn input_type(&self, schema: &Schema, attr: &Attribute) -> Option<String> {
        let model = self.model();
        let input_of = |id: SchemaId| {
            self.inputs
                .get(&id)
                .map_or_else(|| "never".to_string(), |[c, _]| c.clone())
        };
        Some(match &attr.kind {
            AttributeKind::Scalar(s) => match s {
                ScalarType::Integer | ScalarType::Float | ScalarType::Decimal => "number".into(),
                // Exact as text; a number is taken too (and loses digits past 2^53).
                ScalarType::BigInteger => "string | number".into(),
                ScalarType::Boolean => "boolean".into(),
                ScalarType::Json => "JsonValue".into(),
                ScalarType::Blocks => "BlocksContent".into(),
                ScalarType::Enumeration { values } => match self.enum_name(schema.id, attr.id) {
                    Some(name) => name.to_string(),
                    // A private enumeration has no read type: its values inline.
                    None if values.is_empty() => "never".into(),
                    None => values
                        .iter()
                        .map(|v| string(v))
                        .collect::<Vec<_>>()
                        .join(" | "),
                },
                _ => "string".into(),
            },
            AttributeKind::Relation(rel) => {
                let target = model.schema(rel.target?);
                format!("RelationInput<{}>", string(target.uid.as_str()))
            }
            AttributeKind::Media(m) if m.multiple => "number[]".into(),
            AttributeKind::Media(_) => "number".into(),
            AttributeKind::Component(c) if c.repeatable => format!("{}[]", input_of(c.component)),
            AttributeKind::Component(c) => input_of(c.component),
            AttributeKind::DynamicZone(_) => match self.zone_inputs.get(&(schema.id, attr.id)) {
                Some(name) => format!("{name}[]"),
                None => "never[]".into(),
            },
        })
    }

    /// One input interface of a written schema.
    fn input(&self, schema: &Schema, write: Write) -> Option<TsInterface> {
        let names = self.inputs.get(&schema.id)?;
        let mut fields = Vec::new();
        if write == Write::Component {
            fields.push(TsField {
                key: "id".into(),
                optional: true,
                ty: "number".into(),
            });
        }
        for attr in &schema.attributes {
            let Some(ty) = self.input_type(schema, attr) else {
                continue;
            };
            // `required` is the server's rule for scalars of the entry itself.
            let required_scalar = write != Write::Component
                && attr.always_required()
                && matches!(attr.kind, AttributeKind::Scalar(_));
            let optional = !(write == Write::Create && required_scalar && attr.default.is_none());
            let ty = if required_scalar || ty == "JsonValue" {
                ty
            } else {
                format!("{ty} | null")
            };
            fields.push(TsField {
                key: key(&attr.name),
                optional,
                ty,
            });
        }
        let uid = schema.uid.as_str();
        let (name, what) = match write {
            Write::Create => (
                &names[0],
                format!(
                    "`data` of a create of {} (`{uid}`), published: the required attributes are required.",
                    schema.display_name
                ),
            ),
            Write::Update => (
                &names[1],
                format!(
                    "`data` of an update of {} (`{uid}`), or of a draft's create (`status: \"draft\"`): an absent key keeps, `null` clears.",
                    schema.display_name
                ),
            ),
            Write::Component => (
                &names[0],
                format!(
                    "{} (`{uid}`) as written, component: `id` updates that instance in place.",
                    schema.display_name
                ),
            ),
        };
        Some(TsInterface {
            name: name.clone(),
            doc: doc(&what),
            fields,
        })
    }

    /// The input unions of `schema`'s dynamic zones.
    fn zone_aliases(&self, schema: &Schema) -> Vec<TsAlias> {
        let model = self.model();
        let mut out = Vec::new();
        for attr in &schema.attributes {
            let (AttributeKind::DynamicZone(dz), Some(name)) =
                (&attr.kind, self.zone_inputs.get(&(schema.id, attr.id)))
            else {
                continue;
            };
            let ty = dz
                .components
                .iter()
                .map(|c| {
                    let component = model.schema(*c);
                    let input = self.inputs.get(c).map_or("never", |[i, _]| i.as_str());
                    format!(
                        "({{ __component: {} }} & {input})",
                        string(component.uid.as_str())
                    )
                })
                .collect::<Vec<_>>()
                .join(" | ");
            out.push(TsAlias {
                name: name.clone(),
                doc: doc(&format!(
                    "A component written into the dynamic zone `{}.{}` (only its own).",
                    schema.uid.as_str(),
                    attr.name
                )),
                ty: if ty.is_empty() { "never".into() } else { ty },
            });
        }
        out
    }
}

/// The TypeScript module for an already loaded model; `origin` is named in its header.
pub fn typescript_from_model(model: &Model, origin: &str) -> Result<String, CodegenError> {
    let rust = Plan::new(model);
    let plan = TsPlan::new(&rust);
    let mut aliases = Vec::new();
    let mut interfaces = Vec::new();
    let mut input_aliases = Vec::new();
    let mut inputs = Vec::new();
    let mut collections = Vec::new();
    let mut singles = Vec::new();
    for id in plan.items() {
        let schema = model.schema(*id);
        aliases.extend(plan.aliases(schema));
        interfaces.push(plan.interface(schema));
        input_aliases.extend(plan.zone_aliases(schema));
        let writes: &[Write] = match schema.kind {
            SchemaKind::Component => &[Write::Component],
            SchemaKind::CollectionType => &[Write::Create, Write::Update],
            SchemaKind::SingleType => &[Write::Update],
        };
        inputs.extend(writes.iter().filter_map(|w| plan.input(schema, *w)));
        if let Some([create, update]) = plan.inputs.get(id) {
            let entry = plan.ts_name(schema);
            match schema.kind {
                SchemaKind::CollectionType => collections.push(TsField {
                    key: key(&schema.plural_name),
                    optional: false,
                    ty: format!("{{ entry: {entry}; create: {create}; update: {update} }}"),
                }),
                SchemaKind::SingleType => singles.push(TsField {
                    key: key(&schema.singular_name),
                    optional: false,
                    ty: format!("{{ entry: {entry}; update: {update} }}"),
                }),
                SchemaKind::Component => {}
            }
        }
    }
    let module = TsModule {
        origin: &origin.replace(['\n', '\r'], " "),
        aliases,
        interfaces,
        input_aliases,
        inputs,
        collections,
        singles,
    };
    let mut out = module
        .render()
        .map_err(|e| CodegenError::InvalidOutput(format!("the TypeScript template: {e}")))?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}
