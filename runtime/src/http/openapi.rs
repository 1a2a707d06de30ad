//! The OpenAPI 3.1 document of the content API, built from the model: exactly the routes
//! [`super::router`] serves (reads, and the writes `POST /<plural>`, `PUT`/`DELETE
//! /<plural>/{documentId}`, `PUT`/`DELETE /<singular>`), the query parameters as Strapi
//! clients send them (bracket notation as `deepObject`), one response schema per content
//! type and component (with relations, media, components and dynamic zones as optional
//! populated shapes), the input schemas of writes (`<Type>CreateInput` and
//! `<Type>UpdateInput` per written content type, `<Component>Input` per component,
//! `<Target>RelationInput` per relation target), Strapi's error bodies with their status
//! codes (`WriteError` with `details.errors[]` for writes), and the bearer security scheme.
//!
//! Served at `GET /openapi.json` and printed by `strata openapi`. The envelope's pagination
//! meta and the error body come from the typed layer's own types through schemars, so the
//! document and the typed client describe one shape.
//!
//! Decisions:
//! * Every attribute of an entry is optional (`fields` and `populate` choose what is sent)
//!   and every scalar nullable; `id` and `documentId` are always there.
//! * A relation or a component is "not populated (absent), `null`, one entry, a list, or
//!   `{count}`"; a media field the same without `{count}` (Strapi ignores `count` there); a
//!   dynamic zone a list of its components, each with `__component`.
//! * Entries allow properties the document does not name (`additionalProperties` left
//!   open): a client generated from it keeps working when the model gains a field.
//!
//! Decisions on writes (`write.rs`, `crate::write::input`):
//! * A write's body is `{"data": <Type>CreateInput}` (`POST`) or `{"data":
//!   <Type>UpdateInput}` (`PUT`) as `application/json`. The
//!   `application/x-www-form-urlencoded` form the server also takes is only mentioned in
//!   the body's description: there every value is text, so the typed schema would not
//!   describe it, and a fuzzer would spend its examples on flattening.
//! * `<Type>Input` has `additionalProperties: false`, because the server refuses any key
//!   it does not take (400 `Invalid key`), inside components and relation objects too; a
//!   relation object's `position`, `options` and a media object stay open (not checked).
//!   It lists every attribute the server takes, `publishedAt` and `locale` (taken and
//!   ignored), and in a component `id` and `__component`. Polymorphic relations are left
//!   out (always refused). The document describes a caller that may `find` every target:
//!   a relation to a type the caller may not find is refused as an `Invalid key`.
//! * Private attributes (and passwords) are listed, marked `writeOnly`: Strapi takes and
//!   stores them (they are never answered, so the entry schemas still leave them out), and
//!   leaving them out would make the schema stricter than the server.
//! * A create's input lists as `required` what a published create (the default) requires:
//!   the `required` scalar attributes without a `default` (Strapi checks `required` on
//!   scalars only). A draft (`?status=draft`) may leave them out, which a schema cannot tie
//!   to a query parameter: the description says so. An update and a component require
//!   nothing. Scalars take what the server coerces (an integer or its text, a
//!   boolean or `0`/`1`/`"true"`, epoch milliseconds for a date-time, …), with the rules
//!   the server enforces (`minLength`, `maxLength`, `regex` but not on `""`, `min`, `max`,
//!   the uid's characters, a repeatable's or a zone's `max`); nothing stricter. Formats
//!   the server checks itself (dates, emails) are descriptions, not `format`s.
//! * A dynamic zone's items are its own components (Strapi also takes other components
//!   of the project there, a quirk not advertised).
//! * A relation's value is `<Target>RelationInput`, one per target type (`TagRelationInput`
//!   for `tags`): the shorthand (a documentId or row id, a list, `null`), the longhand
//!   `<Target>RelationRef` (`{documentId, locale, status, position: {before|after|start|
//!   end}}`) and `{connect, disconnect, set}`. JSON Schema cannot tell one type's
//!   documentIds from another's, so the shapes are alike; the names and descriptions say
//!   which target, and a generated client gets one type per target.
//! * Answers: 201 (create) and 200 (update) with the entry schema of reads, shaped by
//!   `fields` and `populate`; 204 with no body (delete); the error body for 400
//!   (`WriteError`: `details.errors[]` of `{path, message, name, value}`, or `{key, path,
//!   source}` for an `Invalid key`), 401, 403, 413, 503 (431 has no body), and 404 for the
//!   update of a collection type's document (a delete of a missing document is a 204).
//!   405 is not listed: a documented operation is routed, so it never answers 405 (another
//!   method on its path does, and has no operation to list it under).
//!   A create's answer links to the read, update and delete of the new document.

use std::collections::{BTreeMap, BTreeSet};

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::schema::{
    Attribute, AttributeKind, Model, Origin, ScalarType, Schema, SchemaId, SchemaKind,
};
use crate::typed::{ErrorBody, PaginationMeta};

/// Where component schemas live in the document.
const COMPONENTS: &str = "#/components/schemas/";

/// The document's name of a schema: `Article`, `SharedSeo`, `UploadFile`,
/// `UsersPermissionsUser`.
pub fn schema_name(schema: &Schema) -> String {
    let uid = schema.uid.as_str();
    let raw = match (&schema.origin, uid.split_once("::")) {
        (Origin::Api, _) => schema.singular_name.clone(),
        (_, Some((_, rest))) => rest.replace('.', "-"),
        (_, None) => uid.replace('.', "-"),
    };
    let mut out = String::new();
    for word in raw.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut cs = word.chars();
        if let Some(first) = cs.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    // A built-in whose plugin and type share a name (`upload.file` stays `UploadFile`).
    if out.is_empty() { "Schema".into() } else { out }
}

fn reference(model: &Model, id: SchemaId) -> Value {
    json!({ "$ref": format!("{COMPONENTS}{}", schema_name(model.schema(id))) })
}

fn nullable(ty: &str) -> Value {
    json!({ "type": [ty, "null"] })
}

/// The JSON Schema of a scalar as Strapi sends it.
fn scalar(s: &ScalarType) -> Value {
    match s {
        ScalarType::Integer => nullable("integer"),
        ScalarType::Float | ScalarType::Decimal => nullable("number"),
        ScalarType::Boolean => nullable("boolean"),
        // Exact 64-bit integers and timestamps are strings, as Strapi sends them.
        ScalarType::BigInteger | ScalarType::Timestamp => nullable("string"),
        ScalarType::Date => json!({ "type": ["string", "null"], "format": "date" }),
        ScalarType::DateTime => json!({ "type": ["string", "null"], "format": "date-time" }),
        ScalarType::Time => json!({ "type": ["string", "null"], "description": "HH:mm:ss.SSS" }),
        ScalarType::Email => json!({ "type": ["string", "null"], "format": "email" }),
        ScalarType::Enumeration { values } => {
            let mut allowed: Vec<Value> = values.iter().map(|v| json!(v)).collect();
            allowed.push(Value::Null);
            json!({ "enum": allowed })
        }
        ScalarType::Json | ScalarType::Blocks => json!({}),
        _ => nullable("string"),
    }
}

/// The properties of an entry of `schema` (system fields, then attributes).
fn entry_schema(model: &Model, schema: &Schema) -> Value {
    let mut props = Map::new();
    let mut required = vec![json!("id")];
    props.insert("id".into(), json!({ "type": "integer" }));
    let content = schema.kind != SchemaKind::Component;
    if content {
        props.insert("documentId".into(), json!({ "type": "string" }));
        required.push(json!("documentId"));
    }
    for attr in schema.attributes.iter().filter(|a| !a.private) {
        let value = match &attr.kind {
            AttributeKind::Scalar(ScalarType::Password) => continue,
            AttributeKind::Scalar(s) => scalar(s),
            AttributeKind::Relation(rel) => match rel.target {
                Some(target) => json!({ "anyOf": [
                    { "type": "null" },
                    reference(model, target),
                    { "type": "array", "items": reference(model, target) },
                    { "$ref": format!("{COMPONENTS}Count") },
                ]}),
                // A polymorphic relation: entries of several types.
                None => {
                    json!({ "anyOf": [{ "type": "null" }, { "type": "object" }, { "type": "array" }] })
                }
            },
            AttributeKind::Media(m) => match model.upload_file() {
                // `count` does not apply to media: Strapi sends the files.
                Some(file) if m.multiple => json!({ "anyOf": [
                    { "type": "null" },
                    { "type": "array", "items": reference(model, file.id) },
                ]}),
                Some(file) => json!({ "anyOf": [
                    { "type": "null" },
                    reference(model, file.id),
                ]}),
                None => json!({}),
            },
            AttributeKind::Component(c) if c.repeatable => json!({ "anyOf": [
                { "type": "array", "items": reference(model, c.component) },
                { "$ref": format!("{COMPONENTS}Count") },
            ]}),
            AttributeKind::Component(c) => json!({ "anyOf": [
                { "type": "null" },
                reference(model, c.component),
                { "$ref": format!("{COMPONENTS}Count") },
            ]}),
            AttributeKind::DynamicZone(dz) => {
                let items: Vec<Value> = dz
                    .components
                    .iter()
                    .map(|c| {
                        let uid = model.schema(*c).uid.as_str().to_string();
                        json!({ "allOf": [
                            reference(model, *c),
                            { "type": "object", "required": ["__component"],
                              "properties": { "__component": { "const": uid } } },
                        ]})
                    })
                    .collect();
                json!({ "type": "array", "items": { "anyOf": items } })
            }
        };
        props.insert(attr.name.clone(), value);
    }
    if content {
        props.insert(
            "createdAt".into(),
            json!({ "type": ["string", "null"], "format": "date-time" }),
        );
        props.insert(
            "updatedAt".into(),
            json!({ "type": ["string", "null"], "format": "date-time" }),
        );
        props.insert(
            "publishedAt".into(),
            json!({ "type": ["string", "null"], "format": "date-time" }),
        );
        if schema.localized {
            props.insert("locale".into(), nullable("string"));
        }
    }
    let mut out = json!({
        "type": "object",
        "title": schema.display_name,
        "required": required,
        "properties": props,
    });
    if let Some(o) = out.as_object_mut()
        && schema.kind == SchemaKind::Component
    {
        o.insert(
            "description".into(),
            json!(format!("component {}", schema.uid.as_str())),
        );
    }
    out
}

/// What a write takes for a scalar, with the coercions the server applies (as Strapi's
/// yup casts do): no stricter than the server, and the rules it enforces (`minLength`,
/// `maxLength`, `regex`, `min`, `max`) as keywords.
fn scalar_input(attr: &Attribute, s: &ScalarType) -> Value {
    let c = &attr.constraints;
    let mut out = match s {
        ScalarType::Integer => json!({ "type": ["integer", "string", "null"],
            "description": "an integer, or its text (`\"42\"`)" }),
        ScalarType::Float | ScalarType::Decimal => json!({ "type": ["number", "string", "null"],
            "description": "a number, or its text (`\"2.5\"`)" }),
        ScalarType::BigInteger => json!({ "anyOf": [
            { "type": "integer" },
            { "type": "string", "pattern": "^-?[0-9]+$" },
            { "type": "null" },
        ], "description": "a 64-bit integer, or its text (min and max are not enforced)" }),
        ScalarType::Boolean => json!({ "anyOf": [
            { "type": "boolean" },
            { "enum": [0, 1] },
            { "type": "string", "pattern": "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[01])$" },
            { "type": "null" },
        ]}),
        ScalarType::Date => json!({ "type": ["string", "null"],
            "description": "yyyy-MM-dd, or a date-time (its date is kept)" }),
        ScalarType::DateTime | ScalarType::Timestamp => {
            json!({ "type": ["string", "number", "null"],
            "description": "an ISO 8601 date or date-time, or epoch milliseconds (a number or its text)" })
        }
        ScalarType::Time => json!({ "type": ["string", "null"],
            "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,3})?$",
            "description": "HH:mm:ss with up to three fraction digits" }),
        ScalarType::Enumeration { values } => {
            let mut allowed: Vec<Value> = values.iter().map(|v| json!(v)).collect();
            allowed.push(Value::Null);
            json!({ "enum": allowed })
        }
        ScalarType::Uid { .. } => {
            json!({ "type": ["string", "null"], "pattern": ScalarType::UID_JSON_SCHEMA_PATTERN })
        }
        ScalarType::Email => json!({ "type": ["string", "null"],
            "description": "an email address (or the empty string)" }),
        ScalarType::Json => json!({ "description": "any JSON value" }),
        ScalarType::Blocks => {
            json!({ "description": "the block editor's content (not validated; what is neither a list nor an object is stored as null)" })
        }
        _ => nullable("string"),
    };
    if let Some(o) = out.as_object_mut() {
        let text = matches!(
            s,
            ScalarType::String
                | ScalarType::Text
                | ScalarType::RichText
                | ScalarType::Email
                | ScalarType::Password
                | ScalarType::Uid { .. }
        );
        if text {
            if let Some(n) = c.min_length {
                o.insert("minLength".into(), json!(n));
            }
            if let Some(n) = c.max_length {
                o.insert("maxLength".into(), json!(n));
            }
            // The empty string passes a regex, as in Strapi.
            if let Some(re) = &c.regex {
                o.insert(
                    "anyOf".into(),
                    json!([{ "maxLength": 0 }, { "pattern": re }]),
                );
            }
        }
        if matches!(
            s,
            ScalarType::Integer | ScalarType::Float | ScalarType::Decimal
        ) {
            if let Some(n) = &c.min {
                o.insert("minimum".into(), json!(n));
            }
            if let Some(n) = &c.max {
                o.insert("maximum".into(), json!(n));
            }
        }
    }
    out
}

/// The names of the per-target relation schemas of writes: for each content type that a
/// written attribute relates to, `<Target>RelationInput` and `<Target>RelationRef` (with a
/// number added when a schema of the model already has that name).
struct RelationNames(BTreeMap<SchemaId, (String, String)>);

impl RelationNames {
    fn new(model: &Model) -> Self {
        let mut taken: BTreeSet<String> = [
            "Error",
            "WriteError",
            "FieldError",
            "Count",
            "MediaRef",
            "PaginationMeta",
            "ErrorBody",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        for s in model.schemas() {
            let name = schema_name(s);
            for suffix in ["", "Input", "CreateInput", "UpdateInput"] {
                taken.insert(format!("{name}{suffix}"));
            }
        }
        let mut names = BTreeMap::new();
        for s in model.schemas().iter().filter(|s| written(s)) {
            for a in &s.attributes {
                let AttributeKind::Relation(rel) = &a.kind else {
                    continue;
                };
                let Some(target) = rel.target else { continue };
                if names.contains_key(&target) {
                    continue;
                }
                let base = schema_name(model.schema(target));
                let mut n = 1;
                let pick = loop {
                    let suffix = if n == 1 { String::new() } else { n.to_string() };
                    let input = format!("{base}RelationInput{suffix}");
                    let entry = format!("{base}RelationRef{suffix}");
                    if !taken.contains(&input) && !taken.contains(&entry) {
                        break (input, entry);
                    }
                    n += 1;
                };
                taken.insert(pick.0.clone());
                taken.insert(pick.1.clone());
                names.insert(target, pick);
            }
        }
        RelationNames(names)
    }

    /// `<Target>RelationInput` of `target`.
    fn input(&self, target: SchemaId) -> Option<&str> {
        self.0.get(&target).map(|(input, _)| input.as_str())
    }
}

/// Whether a schema has input schemas: components, and the content types with write routes.
fn written(s: &Schema) -> bool {
    s.kind == SchemaKind::Component || s.origin != Origin::BuiltIn
}

/// Which `data` an input schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Data {
    /// A collection type's `POST`: the required attributes are required.
    Create,
    /// A `PUT` (and a draft's `POST`): every attribute optional.
    Update,
    /// A component instance inside either.
    Component,
}

/// The body's value for one attribute of a write (`None`: the attribute cannot be
/// written, and is refused as an unknown key).
fn attribute_input(model: &Model, relations: &RelationNames, attr: &Attribute) -> Option<Value> {
    let input_ref = |id: SchemaId| json!({ "$ref": format!("{COMPONENTS}{}Input", schema_name(model.schema(id))) });
    let mut value = match &attr.kind {
        AttributeKind::Scalar(s) => scalar_input(attr, s),
        // A polymorphic relation has no target a caller could `find`: always refused.
        AttributeKind::Relation(rel) => {
            let target = rel.target?;
            let name = relations.input(target)?;
            json!({ "$ref": format!("{COMPONENTS}{name}") })
        }
        AttributeKind::Media(m) if m.multiple => json!({ "anyOf": [
            { "type": "null" },
            { "$ref": format!("{COMPONENTS}MediaRef") },
            { "type": "array", "items": { "$ref": format!("{COMPONENTS}MediaRef") } },
        ]}),
        AttributeKind::Media(_) => json!({ "anyOf": [
            { "type": "null" },
            { "$ref": format!("{COMPONENTS}MediaRef") },
        ]}),
        AttributeKind::Component(c) if c.repeatable => {
            let mut list = json!({ "type": "array", "items": input_ref(c.component) });
            if let (Some(max), Some(o)) = (c.max, list.as_object_mut()) {
                o.insert("maxItems".into(), json!(max));
            }
            json!({ "anyOf": [{ "type": "null" }, list] })
        }
        AttributeKind::Component(c) => {
            json!({ "anyOf": [{ "type": "null" }, input_ref(c.component)] })
        }
        AttributeKind::DynamicZone(dz) => {
            let items: Vec<Value> = dz
                .components
                .iter()
                .map(|c| {
                    json!({ "allOf": [
                        input_ref(*c),
                        { "type": "object", "required": ["__component"],
                          "properties": { "__component": { "const": model.schema(*c).uid.as_str() } } },
                    ]})
                })
                .collect();
            let mut list = json!({ "type": "array", "items": { "anyOf": items } });
            if let (Some(max), Some(o)) = (dz.max, list.as_object_mut()) {
                o.insert("maxItems".into(), json!(max));
            }
            json!({ "anyOf": [{ "type": "null" }, list] })
        }
    };
    if attr.private
        && let Some(o) = value.as_object_mut()
    {
        o.insert("writeOnly".into(), json!(true));
    }
    Some(value)
}

/// The `data` of a write of `schema` (a content type), or one instance of a component
/// inside it: every writable attribute, and nothing else (`Invalid key`). A create lists
/// as `required` what the server requires of a published create: the required scalars
/// without a default (a draft, `?status=draft`, may leave them out).
fn input_schema(model: &Model, relations: &RelationNames, schema: &Schema, data: Data) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    let component = data == Data::Component;
    if component {
        props.insert(
            "id".into(),
            json!({ "type": "integer", "description": "an existing instance of this entry's, updated in place" }),
        );
        props.insert(
            "__component".into(),
            json!({ "type": "string", "description": "the component's uid (in a dynamic zone)" }),
        );
    }
    for attr in &schema.attributes {
        if let Some(v) = attribute_input(model, relations, attr) {
            if data == Data::Create
                && attr.always_required()
                && attr.default.is_none()
                && matches!(attr.kind, AttributeKind::Scalar(_))
            {
                required.push(json!(attr.name));
            }
            props.insert(attr.name.clone(), v);
        }
    }
    if !component {
        props.insert(
            "publishedAt".into(),
            json!({ "description": "accepted and ignored (`?status` decides)" }),
        );
        props.insert(
            "locale".into(),
            json!({ "description": "accepted and ignored (`?locale` decides)" }),
        );
    }
    let title = match data {
        Data::Create => format!("{} (create)", schema.display_name),
        Data::Update => format!("{} (update)", schema.display_name),
        Data::Component => format!("{} (input)", schema.display_name),
    };
    let description = match data {
        Data::Create => format!(
            "`data` of a create of {}: the required attributes are required (a draft, `?status=draft`, may leave them out)",
            schema.uid.as_str()
        ),
        Data::Update => format!(
            "`data` of an update of {}: an absent attribute is kept, `null` clears",
            schema.uid.as_str()
        ),
        Data::Component => format!("component {}", schema.uid.as_str()),
    };
    let mut out = json!({
        "type": "object",
        "title": title,
        "description": description,
        "properties": props,
        "additionalProperties": false,
    });
    if let Some(o) = out.as_object_mut()
        && !required.is_empty()
    {
        o.insert("required".into(), Value::Array(required));
    }
    out
}

/// The shapes of relation values (one pair per target) and media values in a write's
/// `data`, and the error body of writes.
fn write_shapes(schemas: &mut Map<String, Value>, model: &Model, relations: &RelationNames) {
    for (target, (input, entry)) in &relations.0 {
        let uid = model.schema(*target).uid.as_str();
        let (ref_schema, input_schema) = relation_shapes(uid, entry);
        schemas.insert(entry.clone(), ref_schema);
        schemas.insert(input.clone(), input_schema);
    }
    schemas.insert(
        "MediaRef".into(),
        json!({ "anyOf": [
            { "type": "integer", "description": "a file's id" },
            { "type": "string", "description": "a file's id as text, or its documentId" },
            { "type": "object", "properties": {
                "id": { "type": "integer" }, "documentId": { "type": "string" } } },
        ], "description": "an existing file of the media library" }),
    );
    // Strapi's error body as writes send it: `details.errors[]` for the attributes' rules,
    // `{key, path, source}` for an `Invalid key`, none for koa-body's `SyntaxError` and
    // the 413.
    schemas.insert(
        "FieldError".into(),
        json!({ "type": "object", "required": ["path", "message", "name"],
            "description": "one failed rule of an attribute",
            "properties": {
                "path": { "type": "array", "items": { "type": "string" },
                          "description": "the attribute's path, `[\"seo\", \"social\", \"0\", \"network\"]`" },
                "message": { "type": "string" },
                "name": { "const": "ValidationError" },
                "value": { "description": "the value as given, when Strapi shows it" },
            }}),
    );
    schemas.insert(
        "WriteError".into(),
        json!({ "type": "object", "required": ["data", "error"], "properties": {
            "data": { "type": "null" },
            "error": { "type": "object", "required": ["status", "name", "message"], "properties": {
                "status": { "type": "integer" },
                "name": { "type": "string",
                          "description": "ValidationError, ApplicationError, SyntaxError, PayloadTooLargeError, …" },
                "message": { "type": "string",
                             "description": "the first failure's message, or `<n> errors occurred`" },
                "details": { "type": "object", "properties": {
                    "errors": { "type": "array", "items": { "$ref": format!("{COMPONENTS}FieldError") } },
                    "key": { "type": "string", "description": "the refused key (`Invalid key`)" },
                    "path": { "type": ["string", "null"], "description": "where the refused key is" },
                    "source": { "type": "string", "description": "body or query" },
                }},
            }},
        }}),
    );
}

/// The schemas `<Target>RelationRef` (`entry`) and `<Target>RelationInput` of the relations
/// to the content type `uid`.
fn relation_shapes(uid: &str, entry: &str) -> (Value, Value) {
    let key = json!({ "anyOf": [
        { "type": "string", "description": format!("a documentId of {uid}") },
        { "type": "integer", "description": format!("a row id of {uid}") },
    ]});
    let entry_ref = json!({ "$ref": format!("{COMPONENTS}{entry}") });
    let entries = json!({ "anyOf": [
        { "type": "null" },
        entry_ref.clone(),
        { "type": "array", "items": entry_ref.clone() },
    ]});
    let reference = json!({ "anyOf": [
            key.clone(),
            { "type": "object", "additionalProperties": false,
              "anyOf": [{ "required": ["documentId"] }, { "required": ["id"] }],
              "properties": {
                "documentId": { "type": "string", "description": format!("a documentId of {uid}") },
                "id": { "type": "integer" },
                "locale": { "type": ["string", "null"] },
                "status": { "type": ["string", "null"], "description": "draft or published" },
                "position": { "type": "object", "properties": {
                    "before": key.clone(),
                    "after": key,
                    "start": { "type": "boolean" },
                    "end": { "type": "boolean" },
                }},
              }},
        ], "description": format!("an entry of {uid}: its documentId, its row id, or {{documentId, locale, status, position}}") });
    let input = json!({ "anyOf": [
        { "type": "null" },
        entry_ref.clone(),
        { "type": "array", "items": entry_ref },
        { "type": "object", "additionalProperties": false, "properties": {
            "connect": entries.clone(),
            "disconnect": entries.clone(),
            "set": entries,
            "options": { "type": "object", "properties": { "strict": { "type": "boolean" } } },
        }},
    ], "description": format!("entries of {uid}: the whole list (an entry, a list, null clears), or {{connect, disconnect, set}}; `set` wins over `connect`") });
    (reference, input)
}

/// The query parameters, as Strapi clients send them.
fn parameters(single: bool) -> Value {
    let object = |description: &str| json!({ "type": "object", "additionalProperties": true, "description": description });
    let mut list = vec![
        // An empty example: the explorer's "Try it out" starts from no filter, not from a
        // sample object that is no valid filter.
        json!({ "name": "filters", "in": "query", "style": "deepObject", "explode": true,
                "example": {},
                "schema": object("filters[field][$operator]=value, $and/$or/$not, through relations") }),
        json!({ "name": "populate", "in": "query", "style": "deepObject", "explode": true,
        "schema": { "anyOf": [
            { "type": "string", "description": "*, or a comma-separated list of attributes" },
            { "type": "array", "items": { "type": "string" } },
            object("populate[attr][fields|filters|sort|populate|on|count]=…"),
        ]}}),
        json!({ "name": "fields", "in": "query", "style": "deepObject", "explode": true,
        "schema": { "anyOf": [
            { "type": "string" },
            { "type": "array", "items": { "type": "string" } },
        ]}}),
        json!({ "name": "sort", "in": "query", "style": "deepObject", "explode": true,
        "schema": { "anyOf": [
            { "type": "string", "description": "field[:asc|:desc][,…], dot paths through relations" },
            { "type": "array", "items": { "type": "string" } },
            object("sort[field]=asc|desc"),
        ]}}),
        json!({ "name": "locale", "in": "query", "schema": { "type": "string" },
                "description": "a locale code, or * for all" }),
        json!({ "name": "status", "in": "query", "schema": { "enum": ["published", "draft"] } }),
    ];
    if !single {
        list.push(
            json!({ "name": "pagination", "in": "query", "style": "deepObject", "explode": true,
            "example": {},
            "schema": { "type": "object", "properties": {
                "page": { "type": "integer", "minimum": 1 },
                "pageSize": { "type": "integer", "minimum": 1 },
                "start": { "type": "integer", "minimum": 0 },
                "limit": { "type": "integer" },
                "withCount": { "type": "boolean" },
            }}}),
        );
    }
    Value::Array(list)
}

fn error_responses(codes: &[u16]) -> Map<String, Value> {
    let mut out = Map::new();
    for code in codes {
        let description = match code {
            400 => {
                "ValidationError or PaginationError: the query names a key, value or relation it may not"
            }
            401 => "UnauthorizedError: missing, invalid or expired credentials",
            403 => "ForbiddenError: the caller may not perform this action",
            404 => "NotFoundError",
            413 => {
                "PayloadTooLargeError: the body is larger than the server takes (1 MiB by default)"
            }
            431 => "Request header fields too large",
            503 => "ServiceUnavailableError: the database is unreachable or busy",
            _ => "error",
        };
        let body = if *code == 431 {
            json!({ "description": description })
        } else {
            json!({ "description": description,
                    "content": { "application/json": { "schema": { "$ref": format!("{COMPONENTS}Error") } } } })
        };
        out.insert(code.to_string(), body);
    }
    out
}

fn operation(
    id: String,
    tag: &str,
    summary: String,
    ok: Value,
    single: bool,
    with_id: Option<Value>,
) -> Value {
    let mut params = parameters(single);
    if let (Some(p), Some(list)) = (with_id, params.as_array_mut()) {
        list.insert(0, p);
    }
    let mut responses = Map::new();
    responses.insert(
        "200".into(),
        json!({ "description": "OK", "content": { "application/json": { "schema": ok } } }),
    );
    responses.insert(
        "304".into(),
        json!({ "description": "Not Modified: the ETag sent in If-None-Match still matches" }),
    );
    responses.extend(error_responses(&[400, 401, 403, 404, 431, 503]));
    json!({ "get": {
        "operationId": id,
        "tags": [tag],
        "summary": summary,
        "parameters": params,
        "responses": responses,
    }})
}

/// Adds the operation of `method` to a path item.
fn with_method(item: &mut Value, method: &str, op: Value) {
    if let Some(o) = item.as_object_mut() {
        o.insert(method.into(), op);
    }
}

fn list_of(name: &str) -> Value {
    json!({ "type": "object", "required": ["data", "meta"], "properties": {
        "data": { "type": "array", "items": { "$ref": format!("{COMPONENTS}{name}") } },
        "meta": { "type": "object", "required": ["pagination"],
                  "properties": { "pagination": { "$ref": format!("{COMPONENTS}PaginationMeta") } } },
    }})
}

fn one_of(name: &str) -> Value {
    json!({ "type": "object", "required": ["data", "meta"], "properties": {
        "data": { "$ref": format!("{COMPONENTS}{name}") },
        "meta": { "type": "object" },
    }})
}

/// What a write operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Write {
    Create,
    Update,
    Delete,
}

/// The query parameters of a write: `status` and `locale` choose the version written;
/// `fields` and `populate` shape the answer (a delete has none).
fn write_parameters(write: Write, schema: &Schema) -> Vec<Value> {
    let (status, locale) = match write {
        Write::Delete => (
            "draft is refused (400) on a draft-and-publish type; anything else deletes the draft and the published version",
            "the locale deleted (default: the default locale), or * for every locale",
        ),
        _ => (
            "published (the default) writes the draft and publishes it; any other value (draft) writes the draft only",
            "the locale written (default: the default locale; * is refused); a locale the document lacks is added",
        ),
    };
    let mut list = vec![
        json!({ "name": "status", "in": "query", "schema": { "type": "string" },
                "example": "published", "description": status }),
        json!({ "name": "locale", "in": "query", "schema": { "type": "string" },
                "description": locale }),
    ];
    if write == Write::Delete {
        return list;
    }
    // Examples that a request of this type may send (a scalar of its own for `fields`).
    let field = schema
        .attributes
        .iter()
        .find(|a| !a.private && matches!(a.kind, AttributeKind::Scalar(_)))
        .map_or("documentId", |a| a.name.as_str());
    if let Value::Array(read) = parameters(true) {
        for mut p in read {
            let example = match p["name"].as_str() {
                Some("fields") => json!(field),
                Some("populate") => json!("*"),
                _ => continue,
            };
            if let Some(o) = p.as_object_mut() {
                o.insert("example".into(), example);
            }
            list.push(p);
        }
    }
    list
}

/// A write operation on the content type `name` (`with_id`: the `documentId` parameter
/// of a collection type's document).
fn write_operation(
    write: Write,
    schema: &Schema,
    name: &str,
    tag: &str,
    with_id: Option<Value>,
) -> Value {
    let single = with_id.is_none() && write != Write::Create;
    let display = &schema.display_name;
    let (verb, summary) = match write {
        Write::Create => ("create", format!("Create a document of {display}")),
        Write::Update if single => (
            "update",
            format!("Create or update the {display} single type"),
        ),
        Write::Update => (
            "update",
            format!("Update a document of {display} by documentId (or add a locale to it)"),
        ),
        Write::Delete if single => ("delete", format!("Delete the {display} single type")),
        Write::Delete => (
            "delete",
            format!("Delete a document of {display} by documentId (a 204 when there is none)"),
        ),
    };
    let mut params = write_parameters(write, schema);
    if let Some(p) = with_id {
        params.insert(0, p);
    }
    let mut responses = Map::new();
    match write {
        Write::Delete => {
            responses.insert("204".into(), json!({ "description": "Deleted (no body)" }));
        }
        _ => {
            let code = if write == Write::Create { "201" } else { "200" };
            let mut ok = json!({ "description": "The version written, shaped by `fields` and `populate` as a read is",
                                 "content": { "application/json": { "schema": one_of(name) } } });
            // A created document's later operations, for clients and stateful fuzzers.
            if write == Write::Create
                && let Some(o) = ok.as_object_mut()
            {
                let mut links = Map::new();
                for (op, what) in [
                    ("get", "Read it"),
                    ("update", "Update it"),
                    ("delete", "Delete it"),
                ] {
                    links.insert(
                        format!("{op}{name}"),
                        json!({ "operationId": format!("{op}{name}"), "description": what,
                                "parameters": { "documentId": "$response.body#/data/documentId" } }),
                    );
                }
                o.insert("links".into(), Value::Object(links));
            }
            responses.insert(code.into(), ok);
        }
    }
    // Only an update of a collection type's document finds none (a delete of none is a
    // 204; a single type's update creates it).
    let codes: &[u16] = if write == Write::Update && !single {
        &[400, 401, 403, 404, 413, 431, 503]
    } else {
        &[400, 401, 403, 413, 431, 503]
    };
    let mut errors = error_responses(codes);
    errors.insert(
        "400".into(),
        json!({ "description": "ValidationError (`Invalid key` with `details.key`; values that break the attributes' rules with `details.errors[]` of `{path, message, name, value}`; a missing `data`; a bad query), ApplicationError, or SyntaxError (a body that is no JSON)",
                "content": { "application/json": { "schema": { "$ref": format!("{COMPONENTS}WriteError") } } } }),
    );
    responses.extend(errors);
    let mut op = json!({
        "operationId": format!("{verb}{name}"),
        "tags": [tag],
        "summary": summary,
        "parameters": params,
        "responses": responses,
    });
    if write != Write::Delete
        && let Some(o) = op.as_object_mut()
    {
        let input = if write == Write::Create {
            "CreateInput"
        } else {
            "UpdateInput"
        };
        let body = json!({ "type": "object", "required": ["data"], "properties": {
            "data": { "$ref": format!("{COMPONENTS}{name}{input}") } } });
        o.insert(
            "requestBody".into(),
            json!({ "required": true,
                    "description": "`data`: the attributes to write (absent ones are left as they are on an update, `null` clears). Also taken as `application/x-www-form-urlencoded` in qs bracket notation (`data[title]=Hello&data[tags][0]=<documentId>`), where every value is text and coerced as above.",
                    "content": { "application/json": { "schema": body } } }),
        );
    }
    op
}

/// The OpenAPI 3.1 document of the content API of `model` under `prefix` (`/api`).
pub fn document(model: &Model, prefix: &str) -> Value {
    let prefix = prefix.trim_end_matches('/');
    let mut paths = Map::new();
    let mut schemas = Map::new();
    let relations = RelationNames::new(model);
    for s in model.schemas() {
        let name = schema_name(s);
        schemas.insert(name.clone(), entry_schema(model, s));
        // What a write takes: the content types with write routes (a single type is only
        // updated: its `PUT` creates it), and the components.
        let inputs: &[(&str, Data)] = match s.kind {
            _ if !written(s) => &[],
            SchemaKind::Component => &[("Input", Data::Component)],
            SchemaKind::SingleType => &[("UpdateInput", Data::Update)],
            SchemaKind::CollectionType => {
                &[("CreateInput", Data::Create), ("UpdateInput", Data::Update)]
            }
        };
        for (suffix, data) in inputs {
            schemas.insert(
                format!("{name}{suffix}"),
                input_schema(model, &relations, s, *data),
            );
        }
    }
    write_shapes(&mut schemas, model, &relations);
    for s in model.content_types() {
        let name = schema_name(s);
        let document_id = json!({ "name": "documentId", "in": "path", "required": true,
                                  "schema": { "type": "string" } });
        match (s.kind, &s.origin) {
            (_, Origin::BuiltIn) if s.uid.as_str() == "plugin::users-permissions.user" => {
                let users =
                    json!({ "type": "array", "items": { "$ref": format!("{COMPONENTS}{name}") } });
                paths.insert(
                    format!("{prefix}/{}", s.plural_name),
                    operation(
                        "listUsers".into(),
                        "users",
                        "List users (an array, no envelope)".into(),
                        users,
                        false,
                        None,
                    ),
                );
                let id = json!({ "name": "id", "in": "path", "required": true, "schema": { "type": "integer" } });
                paths.insert(
                    format!("{prefix}/{}/{{id}}", s.plural_name),
                    operation(
                        "getUser".into(),
                        "users",
                        "One user by id".into(),
                        json!({ "$ref": format!("{COMPONENTS}{name}") }),
                        true,
                        Some(id),
                    ),
                );
            }
            (_, Origin::BuiltIn) => {}
            (SchemaKind::CollectionType, _) => {
                let tag = &s.plural_name;
                let mut list = operation(
                    format!("list{name}"),
                    tag,
                    format!("List {}", s.display_name),
                    list_of(&name),
                    false,
                    None,
                );
                with_method(
                    &mut list,
                    "post",
                    write_operation(Write::Create, s, &name, tag, None),
                );
                paths.insert(format!("{prefix}/{}", s.plural_name), list);
                let mut one = operation(
                    format!("get{name}"),
                    tag,
                    format!("One {} by documentId", s.display_name),
                    one_of(&name),
                    true,
                    Some(document_id.clone()),
                );
                for (method, write) in [("put", Write::Update), ("delete", Write::Delete)] {
                    let op = write_operation(write, s, &name, tag, Some(document_id.clone()));
                    with_method(&mut one, method, op);
                }
                paths.insert(format!("{prefix}/{}/{{documentId}}", s.plural_name), one);
            }
            (SchemaKind::SingleType, _) => {
                let tag = &s.singular_name;
                let mut single = operation(
                    format!("get{name}"),
                    tag,
                    format!("The {} single type", s.display_name),
                    one_of(&name),
                    true,
                    None,
                );
                for (method, write) in [("put", Write::Update), ("delete", Write::Delete)] {
                    with_method(
                        &mut single,
                        method,
                        write_operation(write, s, &name, tag, None),
                    );
                }
                paths.insert(format!("{prefix}/{}", s.singular_name), single);
            }
            (SchemaKind::Component, _) => {}
        }
    }
    paths.insert(
        "/_health".into(),
        json!({ "get": {
            "operationId": "health", "tags": ["server"], "security": [],
            "responses": { "200": { "description": "The server is up",
                "content": { "application/json": { "schema": { "type": "object",
                    "properties": { "status": { "const": "ok" } } } } } } },
        }}),
    );
    paths.insert(
        "/openapi.json".into(),
        json!({ "get": {
            "operationId": "openapi", "tags": ["server"], "security": [],
            "responses": { "200": { "description": "This document",
                "content": { "application/json": { "schema": { "type": "object" } } } } },
        }}),
    );

    // The envelope's pagination meta and the error body, from the typed layer's types.
    let mut generator = SchemaSettings::draft2020_12()
        .with(|s| s.definitions_path = "/components/schemas/".into())
        .into_generator();
    // Both land in the definitions (as `PaginationMeta` and `ErrorBody`, which the
    // envelopes refer to); the returned values are only references to them.
    let _pagination = generator.subschema_for::<PaginationMeta>();
    let error = generator.subschema_for::<ErrorBody>();
    for (k, v) in generator.take_definitions(true) {
        schemas.entry(k).or_insert(v);
    }
    schemas.insert(
        "Error".into(),
        json!({ "type": "object", "required": ["data", "error"], "properties": {
            "data": { "type": "null" },
            "error": error.to_value(),
        }}),
    );
    schemas.insert(
        "Count".into(),
        json!({ "type": "object", "required": ["count"],
        "additionalProperties": false, "properties": { "count": { "type": "integer" } } }),
    );

    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "strata content API",
            "version": "1.0.0",
            "description": "Strapi v5's REST content API, generated by strata from the content model.",
        },
        "servers": [{ "url": "/" }],
        "security": [{}, { "bearerAuth": [] }],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": { "bearerAuth": {
                "type": "http", "scheme": "bearer",
                "description": "A Strapi API token, or a users-permissions JWT",
            }},
        },
    })
}
