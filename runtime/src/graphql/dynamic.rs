//! The plain schema ([`Registry`]) handed to async-graphql's dynamic schema. Every field
//! resolves to an error until the resolvers land: the schema is for introspection, SDL
//! and validation for now, and no route serves it.

use async_graphql::dynamic::{
    Enum, Field, FieldFuture, FieldValue, InputObject, InputValue, Object, Scalar, Schema,
    SchemaError, TypeRef, Union,
};
use async_graphql::{Name, Value};

use super::ir::{DefaultValue, FieldDef, InputDef, Kind, Registry, Ty, TypeDef};

/// The message of every field until resolvers land.
const NOT_SERVED: &str = "strata does not resolve GraphQL fields yet";

/// Builds the async-graphql schema from the pruned registry.
pub fn build(reg: &Registry, mutation: bool) -> Result<Schema, SchemaError> {
    let mut builder = Schema::build("Query", mutation.then_some("Mutation"), None);
    for def in reg.types.values() {
        builder = match &def.kind {
            Kind::Scalar { specified_by } => builder.register(scalar(def, specified_by.as_deref())),
            Kind::Object(fields) => builder.register(object(def, fields)),
            Kind::Input(fields) => builder.register(input_object(def, fields)),
            Kind::Enum(values) => builder.register(enumeration(def, values)),
            Kind::Union(members) => builder.register(union(def, members)),
        };
    }
    builder.finish()
}

fn type_ref(ty: &Ty) -> TypeRef {
    match ty {
        Ty::Named(name) => TypeRef::Named(name.clone().into()),
        Ty::List(inner) => TypeRef::List(Box::new(type_ref(inner))),
        Ty::NonNull(inner) => TypeRef::NonNull(Box::new(type_ref(inner))),
    }
}

fn scalar(def: &TypeDef, specified_by: Option<&str>) -> Scalar {
    let mut scalar = Scalar::new(&def.name);
    if let Some(text) = &def.description {
        scalar = scalar.description(text);
    }
    match specified_by {
        Some(url) => scalar.specified_by_url(url),
        None => scalar,
    }
}

fn object(def: &TypeDef, fields: &[FieldDef]) -> Object {
    let mut object = Object::new(&def.name);
    if let Some(text) = &def.description {
        object = object.description(text);
    }
    fields
        .iter()
        .fold(object, |object, f| object.field(field(f)))
}

fn field(def: &FieldDef) -> Field {
    let mut field = Field::new(&def.name, type_ref(&def.ty), |_| {
        FieldFuture::new(async { Err::<Option<FieldValue<'_>>, _>(NOT_SERVED.into()) })
    });
    if let Some(text) = &def.description {
        field = field.description(text);
    }
    def.args
        .iter()
        .fold(field, |field, a| field.argument(input_value(a)))
}

fn input_value(def: &InputDef) -> InputValue {
    let mut value = InputValue::new(&def.name, type_ref(&def.ty));
    if let Some(text) = &def.description {
        value = value.description(text);
    }
    match &def.default {
        Some(DefaultValue::Enum(name)) => value.default_value(Value::Enum(Name::new(name))),
        Some(DefaultValue::Json(json)) => match Value::from_json(json.clone()) {
            Ok(v) => value.default_value(v),
            Err(_) => value,
        },
        None => value,
    }
}

fn input_object(def: &TypeDef, fields: &[InputDef]) -> InputObject {
    let mut object = InputObject::new(&def.name);
    if let Some(text) = &def.description {
        object = object.description(text);
    }
    fields
        .iter()
        .fold(object, |object, f| object.field(input_value(f)))
}

fn enumeration(def: &TypeDef, values: &[String]) -> Enum {
    let mut enumeration = Enum::new(&def.name);
    if let Some(text) = &def.description {
        enumeration = enumeration.description(text);
    }
    enumeration.items(values.iter().map(String::as_str))
}

fn union(def: &TypeDef, members: &[String]) -> Union {
    let mut union = Union::new(&def.name);
    if let Some(text) = &def.description {
        union = union.description(text);
    }
    members
        .iter()
        .fold(union, |union, m| union.possible_type(m))
}
