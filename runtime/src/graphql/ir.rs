//! The schema as plain data before it is handed to the GraphQL library: named type
//! definitions, fields, arguments and type references, plus Strapi's pruning (the
//! `pruneSchema` of `@graphql-tools/utils`: only types reachable from the roots stay).
//!
//! Builders write into a [`Registry`]; [`Registry::pruned`] keeps what the roots reach.

use indexmap::IndexMap;
use std::collections::HashSet;

/// A type reference: a named type, possibly wrapped in lists and non-null markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// A named type.
    Named(String),
    /// A list of the inner type.
    List(Box<Ty>),
    /// The inner type, never null.
    NonNull(Box<Ty>),
}

impl Ty {
    /// A nullable named type.
    pub fn named(name: impl Into<String>) -> Self {
        Ty::Named(name.into())
    }

    /// A non-null named type (`T!`).
    pub fn nn(name: impl Into<String>) -> Self {
        Ty::NonNull(Box::new(Ty::named(name)))
    }

    /// A nullable list of nullable items (`[T]`).
    pub fn list(name: impl Into<String>) -> Self {
        Ty::List(Box::new(Ty::named(name)))
    }

    /// This type, made non-null.
    pub fn non_null(self) -> Self {
        match self {
            Ty::NonNull(_) => self,
            other => Ty::NonNull(Box::new(other)),
        }
    }

    /// The named type at the bottom of the wrappers.
    pub fn base(&self) -> &str {
        match self {
            Ty::Named(name) => name,
            Ty::List(inner) | Ty::NonNull(inner) => inner.base(),
        }
    }
}

/// A default value of an argument or input field.
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultValue {
    /// A JSON value (`{}`, `[]`, `"local"`).
    Json(serde_json::Value),
    /// An enum value (`PUBLISHED`).
    Enum(String),
}

/// An argument of a field, or a field of an input object.
#[derive(Debug, Clone, PartialEq)]
pub struct InputDef {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Ty,
    /// The default value.
    pub default: Option<DefaultValue>,
    /// The description.
    pub description: Option<String>,
}

impl InputDef {
    /// An input without default or description.
    pub fn new(name: impl Into<String>, ty: Ty) -> Self {
        InputDef {
            name: name.into(),
            ty,
            default: None,
            description: None,
        }
    }

    /// With a default value.
    pub fn default(mut self, value: serde_json::Value) -> Self {
        self.default = Some(DefaultValue::Json(value));
        self
    }

    /// With an enum value as its default.
    pub fn default_enum(mut self, value: &str) -> Self {
        self.default = Some(DefaultValue::Enum(value.to_owned()));
        self
    }

    /// With a description.
    pub fn describe(mut self, text: &str) -> Self {
        self.description = Some(text.to_owned());
        self
    }
}

/// A field of an object type.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDef {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Ty,
    /// The arguments, in order.
    pub args: Vec<InputDef>,
    /// The description.
    pub description: Option<String>,
}

impl FieldDef {
    /// A field without arguments or description.
    pub fn new(name: impl Into<String>, ty: Ty) -> Self {
        FieldDef {
            name: name.into(),
            ty,
            args: Vec::new(),
            description: None,
        }
    }

    /// With these arguments.
    pub fn args(mut self, args: Vec<InputDef>) -> Self {
        self.args = args;
        self
    }

    /// With a description.
    pub fn describe(mut self, text: &str) -> Self {
        self.description = Some(text.to_owned());
        self
    }
}

/// What a named type is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A custom scalar, with its `@specifiedBy` URL.
    Scalar {
        /// `specifiedByURL`.
        specified_by: Option<String>,
    },
    /// An object type.
    Object(Vec<FieldDef>),
    /// An input object type.
    Input(Vec<InputDef>),
    /// An enum and its values.
    Enum(Vec<String>),
    /// A union and its members.
    Union(Vec<String>),
}

/// One named type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeDef {
    /// The name.
    pub name: String,
    /// The description (`Some("")` is kept as Strapi has it).
    pub description: Option<String>,
    /// What it is.
    pub kind: Kind,
}

/// Every named type, by name, in registration order; the first registration wins, as
/// in Strapi's registry (later ones with the same name are the same definition).
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// The types.
    pub types: IndexMap<String, TypeDef>,
}

impl Registry {
    /// Adds a type unless one of that name is there.
    pub fn add(&mut self, name: impl Into<String>, description: Option<&str>, kind: Kind) {
        let name = name.into();
        self.types.entry(name.clone()).or_insert(TypeDef {
            name,
            description: description.map(str::to_owned),
            kind,
        });
    }

    /// Appends fields to an object type (the root types are built this way).
    pub fn extend_object(&mut self, name: &str, fields: Vec<FieldDef>) {
        if !self.types.contains_key(name) {
            self.add(name, None, Kind::Object(Vec::new()));
        }
        if let Some(TypeDef {
            kind: Kind::Object(existing),
            ..
        }) = self.types.get_mut(name)
        {
            existing.extend(fields);
        }
    }

    /// Moves the root types to the end, where graphql-js's schema has them.
    pub fn roots_last(&mut self, roots: &[&str]) {
        for root in roots {
            if let Some(def) = self.types.shift_remove(*root) {
                self.types.insert((*root).to_owned(), def);
            }
        }
    }

    /// The types reachable from `roots` (through fields, arguments, input fields and
    /// union members), in registration order.
    pub fn pruned(mut self, roots: &[&str]) -> Self {
        let mut seen: HashSet<String> = HashSet::new();
        let mut stack: Vec<String> = roots.iter().map(|r| (*r).to_owned()).collect();
        while let Some(name) = stack.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            if let Some(def) = self.types.get(&name) {
                stack.extend(references(def));
            }
        }
        self.types.retain(|name, _| seen.contains(name));
        self
    }
}

/// The names a type refers to.
fn references(def: &TypeDef) -> Vec<String> {
    match &def.kind {
        Kind::Scalar { .. } | Kind::Enum(_) => Vec::new(),
        Kind::Union(members) => members.clone(),
        Kind::Input(fields) => fields.iter().map(|f| f.ty.base().to_owned()).collect(),
        Kind::Object(fields) => fields
            .iter()
            .flat_map(|f| {
                std::iter::once(f.ty.base().to_owned())
                    .chain(f.args.iter().map(|a| a.ty.base().to_owned()))
            })
            .collect(),
    }
}
