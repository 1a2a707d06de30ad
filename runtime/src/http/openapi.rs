//! The OpenAPI 3.1 document of the content API, built from the model: exactly the routes
//! [`super::router`] serves, the query parameters as Strapi clients send them (bracket
//! notation as `deepObject`), one response schema per content type and component (with
//! relations, media, components and dynamic zones as optional populated shapes), Strapi's
//! error body with its status codes, and the bearer security scheme.
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

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::schema::{AttributeKind, Model, Origin, ScalarType, Schema, SchemaId, SchemaKind};
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

/// The OpenAPI 3.1 document of the content API of `model` under `prefix` (`/api`).
pub fn document(model: &Model, prefix: &str) -> Value {
    let prefix = prefix.trim_end_matches('/');
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for s in model.schemas() {
        schemas.insert(schema_name(s), entry_schema(model, s));
    }
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
                paths.insert(
                    format!("{prefix}/{}", s.plural_name),
                    operation(
                        format!("list{name}"),
                        &s.plural_name,
                        format!("List {}", s.display_name),
                        list_of(&name),
                        false,
                        None,
                    ),
                );
                paths.insert(
                    format!("{prefix}/{}/{{documentId}}", s.plural_name),
                    operation(
                        format!("get{name}"),
                        &s.plural_name,
                        format!("One {} by documentId", s.display_name),
                        one_of(&name),
                        true,
                        Some(document_id),
                    ),
                );
            }
            (SchemaKind::SingleType, _) => {
                paths.insert(
                    format!("{prefix}/{}", s.singular_name),
                    operation(
                        format!("get{name}"),
                        &s.singular_name,
                        format!("The {} single type", s.display_name),
                        one_of(&name),
                        true,
                        None,
                    ),
                );
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
