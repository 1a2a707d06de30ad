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

use std::collections::BTreeMap;

use askama::Template;
use strata_runtime::schema::{
    AttrId, Attribute, AttributeKind, Model, ScalarType, Schema, SchemaId, SchemaKind,
};

use crate::CodegenError;
use crate::emit::{Plan, public};
use crate::names::Scope;

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
];

/// The TypeScript names of a [`Plan`]: its Rust names, with clashes with [`PRELUDE`]
/// renamed.
struct TsPlan<'p, 'm> {
    plan: &'p Plan<'m>,
    types: BTreeMap<SchemaId, String>,
    enums: BTreeMap<(SchemaId, AttrId), String>,
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
        TsPlan { plan, types, enums }
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
                ty: "string".into(),
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

/// The TypeScript module for an already loaded model; `origin` is named in its header.
pub fn typescript_from_model(model: &Model, origin: &str) -> Result<String, CodegenError> {
    let rust = Plan::new(model);
    let plan = TsPlan::new(&rust);
    let mut aliases = Vec::new();
    let mut interfaces = Vec::new();
    for id in plan.items() {
        let schema = model.schema(*id);
        aliases.extend(plan.aliases(schema));
        interfaces.push(plan.interface(schema));
    }
    let module = TsModule {
        origin: &origin.replace(['\n', '\r'], " "),
        aliases,
        interfaces,
    };
    let mut out = module
        .render()
        .map_err(|e| CodegenError::InvalidOutput(format!("the TypeScript template: {e}")))?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}
