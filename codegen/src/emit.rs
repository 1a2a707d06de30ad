//! The generator proper: a loaded [`Model`] and its schema files → one Rust module as a
//! token stream (structs, enums, `SCHEMA_FILES`, `model()`), which `lib.rs` formats.
//!
//! What is generated:
//! * every user content type, `plugin::upload.file` and `plugin::users-permissions.user`,
//!   and any other built-in a generated relation reaches (so `role` and `permission`
//!   come with the user type);
//! * every component, and one enum per enumeration attribute and per dynamic zone.
//!
//! Items are ordered by uid (content types, then components); each enum follows the
//! struct that owns it, and the input types of writes (`inputs.rs`) follow a schema's
//! read types. Private attributes and passwords never leave the server, so they are not
//! fields of the read structs (the input types have them).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;
use strata_runtime::schema::{
    AttrId, Attribute, AttributeKind, ComponentField, DynamicZone, Model, Origin, RelationSide,
    ScalarType, Schema, SchemaId, SchemaKind,
};

use crate::files::SchemaFile;
use crate::names::{self, RESERVED_TYPE_NAMES, Scope, ident};

mod inputs;

/// Built-in content types that are always generated (users see them in responses).
const ALWAYS: &[&str] = &["plugin::upload.file", "plugin::users-permissions.user"];

/// The suffixes of the types that `#[derive(ContentType)]`/`#[derive(Component)]` add
/// next to a struct (see strata-derive).
const DERIVED_SUFFIXES: &[&str] = &["Path", "Populate", "Field"];

/// Keys that the generated structs hold themselves (not attributes).
const SYSTEM_FIELDS: &[&str] = &[
    "id",
    "document_id",
    "created_at",
    "updated_at",
    "published_at",
    "locale",
    "localizations",
];

/// What gets generated and under which names.
pub(crate) struct Plan<'m> {
    model: &'m Model,
    /// Generated schemas in output order.
    items: Vec<SchemaId>,
    /// Rust type name of each generated schema.
    type_names: BTreeMap<SchemaId, String>,
    /// Rust type name of each enumeration and dynamic-zone enum, by owner and attribute.
    enum_names: BTreeMap<(SchemaId, AttrId), String>,
    /// The names of the input types (see `inputs.rs`).
    input_names: inputs::InputNames,
}

/// Whether an attribute becomes a field: not private, not a password.
fn is_public(a: &Attribute) -> bool {
    !a.private && !matches!(a.kind, AttributeKind::Scalar(ScalarType::Password))
}

/// The attributes that become fields.
pub(crate) fn public(schema: &Schema) -> impl Iterator<Item = &Attribute> {
    schema.attributes.iter().filter(|a| is_public(a))
}

/// The base type name of a schema: `Article` (singular name), `UploadFile` (plugin and
/// name), `SharedSeo` (category and name).
fn base_type_name(schema: &Schema) -> String {
    let uid = schema.uid.as_str();
    let raw = match schema.origin {
        Origin::Api => schema.singular_name.clone(),
        Origin::BuiltIn => uid
            .strip_prefix("plugin::")
            .unwrap_or(uid)
            .replace('.', "-"),
        Origin::Component => uid.replace('.', "-"),
    };
    names::type_name(&raw, "T")
}

impl<'m> Plan<'m> {
    pub(crate) fn new(model: &'m Model) -> Self {
        // Which content types: user ones, the always-visible built-ins, and the closure
        // over relation targets of everything generated.
        let mut wanted: BTreeSet<SchemaId> = model
            .schemas()
            .iter()
            .filter(|s| {
                s.kind == SchemaKind::Component
                    || s.origin == Origin::Api
                    || ALWAYS.contains(&s.uid.as_str())
            })
            .map(|s| s.id)
            .collect();
        let mut queue: Vec<SchemaId> = wanted.iter().copied().collect();
        while let Some(id) = queue.pop() {
            for a in public(model.schema(id)) {
                let target = match &a.kind {
                    AttributeKind::Relation(r) => r.target,
                    AttributeKind::Media(_) => model.by_uid("plugin::upload.file").map(|s| s.id),
                    _ => None,
                };
                if let Some(t) = target
                    && wanted.insert(t)
                {
                    queue.push(t);
                }
            }
        }

        let mut items: Vec<SchemaId> = wanted.into_iter().collect();
        items.sort_by(|a, b| {
            let (sa, sb) = (model.schema(*a), model.schema(*b));
            (!sa.is_content_type(), sa.uid.as_str()).cmp(&(!sb.is_content_type(), sb.uid.as_str()))
        });

        // A struct `N` also gets `NPath`, `NPopulate` and `NField` from its derive, so
        // a name is only taken when all four are free.
        let mut scope = Scope::with(RESERVED_TYPE_NAMES);
        let mut type_names = BTreeMap::new();
        for id in &items {
            let name = scope.take_with(&base_type_name(model.schema(*id)), DERIVED_SUFFIXES);
            type_names.insert(*id, name);
        }
        let mut enum_names = BTreeMap::new();
        for id in &items {
            let schema = model.schema(*id);
            let owner = type_names.get(id).cloned().unwrap_or_default();
            for a in public(schema) {
                let needs_enum = matches!(
                    a.kind,
                    AttributeKind::Scalar(ScalarType::Enumeration { .. })
                ) || matches!(&a.kind, AttributeKind::DynamicZone(z) if !z.components.is_empty());
                if needs_enum {
                    let name = scope.take(&format!("{owner}{}", names::pascal(&a.name)), false);
                    enum_names.insert((*id, a.id), name);
                }
            }
        }
        let input_names = inputs::InputNames::take(model, &items, &type_names, &mut scope);
        Plan {
            model,
            items,
            type_names,
            enum_names,
            input_names,
        }
    }

    /// The model.
    pub(crate) fn model(&self) -> &'m Model {
        self.model
    }

    /// The generated schemas, in output order.
    pub(crate) fn items(&self) -> &[SchemaId] {
        &self.items
    }

    /// The type name of a generated schema.
    pub(crate) fn type_name(&self, id: SchemaId) -> &str {
        self.type_names.get(&id).map_or("Unknown", String::as_str)
    }

    /// The type name of an enumeration or dynamic zone attribute, if it has one.
    pub(crate) fn enum_name(&self, owner: SchemaId, attr: AttrId) -> Option<&str> {
        self.enum_names.get(&(owner, attr)).map(String::as_str)
    }

    fn type_ident(&self, id: SchemaId) -> Ident {
        ident(self.type_names.get(&id).map_or("Unknown", |s| s.as_str()))
    }

    fn upload_file(&self) -> TokenStream {
        match self.model.by_uid("plugin::upload.file") {
            Some(s) => {
                let t = self.type_ident(s.id);
                quote!(#t)
            }
            None => quote!(::strata::typed::Json),
        }
    }

    /// The whole module, as top-level item groups (each formatted on its own, with a
    /// blank line between them).
    pub(crate) fn emit(&self, files: &[SchemaFile]) -> Vec<TokenStream> {
        let entries = files.iter().map(|f| {
            let path = Literal::string(&f.path);
            let text = text_literal(&f.text);
            quote!((#path, #text))
        });
        let mut out = vec![
            quote! {
                /// The schema files this module was generated from: paths relative to the
                /// schemas root, and their JSON text.
                pub static SCHEMA_FILES: &[(&str, &str)] = &[#(#entries),*];
            },
            quote! {
                /// The content model of this module, loaded once from [`SCHEMA_FILES`].
                pub fn model() -> &'static ::strata::schema::Model {
                    static CELL: ::std::sync::OnceLock<::strata::schema::Model> =
                        ::std::sync::OnceLock::new();
                    ::strata::typed::embedded_model(&CELL, SCHEMA_FILES)
                }
            },
        ];
        for id in &self.items {
            let schema = self.model.schema(*id);
            self.emit_schema(schema, &mut out);
            self.emit_inputs(schema, &mut out);
        }
        out
    }

    fn emit_schema(&self, s: &Schema, out: &mut Vec<TokenStream>) {
        let name = self.type_ident(s.id);
        let uid = Literal::string(s.uid.as_str());
        let collection = Literal::string(&s.collection_name);

        // Fields in Strapi's JSON key order: scalars, the system keys, then relations,
        // media, components and zones; `position` ties each to its schema index.
        let field_names = self.field_names(s);
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut private = Vec::new();
        let mut enums = Vec::new();
        for (position, a) in s.attributes.iter().enumerate() {
            if !is_public(a) {
                let key = Literal::string(&a.name);
                let position = Literal::usize_unsuffixed(position);
                let args = self.attr_args(s, a).1;
                private.push(quote! {
                    #[strata(private_attr(attr = #key, position = #position, #(#args),*))]
                });
                continue;
            }
            let rust = field_names.get(&a.id).map_or("field", String::as_str);
            let field = self.emit_field(s, a, position, rust);
            if matches!(a.kind, AttributeKind::Scalar(_)) {
                before.push(field);
            } else {
                after.push(field);
            }
            if let Some(e) = self.emit_enum(s, a) {
                enums.push(e);
            }
        }

        // Several `#[strata(private_attr(…))]` repeat keys, which clippy's
        // `duplicated_attributes` mistakes for duplicates.
        let allow = (private.len() > 1).then(|| quote!(#[allow(clippy::duplicated_attributes)]));
        let id = quote! {
            #[doc = " The entry's id."]
            #[strata(system)]
            pub id: i64,
        };
        if !s.is_content_type() {
            let header = format!(" The component `{}`.", s.uid);
            out.push(quote! {
                #[doc = #header]
                #[derive(Debug, Clone, PartialEq, ::strata::serde::Serialize, ::strata::serde::Deserialize, ::strata::schemars::JsonSchema, ::strata::Component)]
                #[serde(crate = "::strata::serde")]
                #[schemars(crate = "::strata::schemars")]
                #[strata(uid = #uid, collection = #collection, model = "model")]
                #(#private)*
                #allow
                pub struct #name {
                    #id
                    #(#before)*
                    #(#after)*
                }
            });
            out.extend(enums);
            return;
        }

        let (kind, header) = if s.kind == SchemaKind::SingleType {
            (
                "singleType",
                format!(" The single type `{}` (`/api/{}`).", s.uid, s.singular_name),
            )
        } else {
            (
                "collectionType",
                format!(
                    " The collection type `{}` (`/api/{}`).",
                    s.uid, s.plural_name
                ),
            )
        };
        let singular = Literal::string(&s.singular_name);
        let plural = Literal::string(&s.plural_name);
        let dp = s.draft_and_publish.then(|| quote!(draft_and_publish,));
        let loc = s.localized.then(|| quote!(localized,));
        let locale = s.localized.then(|| {
            quote! {
                #[doc = " The entry's locale."]
                #[serde(default, skip_serializing_if = "::strata::typed::Field::is_absent")]
                #[strata(system)]
                pub locale: ::strata::typed::Field<::std::string::String>,
            }
        });
        let localizations = s.localized.then(|| {
            quote! {
                #[doc = " The document's other locales, when populated."]
                #[serde(default, skip_serializing_if = "::strata::typed::Field::is_absent")]
                #[strata(system)]
                pub localizations: ::strata::typed::Field<::strata::typed::Many<#name>>,
            }
        });
        out.push(quote! {
            #[doc = #header]
            #[derive(Debug, Clone, PartialEq, ::strata::serde::Serialize, ::strata::serde::Deserialize, ::strata::schemars::JsonSchema, ::strata::ContentType)]
            #[serde(crate = "::strata::serde")]
            #[schemars(crate = "::strata::schemars")]
            #[strata(uid = #uid, kind = #kind, singular = #singular, plural = #plural, collection = #collection, #dp #loc model = "model")]
            #(#private)*
            #allow
            pub struct #name {
                #id
                #[doc = " The document's id, shared by its locales and its draft and published versions."]
                #[serde(rename = "documentId")]
                #[strata(system)]
                pub document_id: ::std::string::String,
                #(#before)*
                #[doc = " When the entry was created."]
                #[serde(rename = "createdAt", default, skip_serializing_if = "::strata::typed::Field::is_absent")]
                #[strata(system)]
                pub created_at: ::strata::typed::Field<::strata::typed::DateTime>,
                #[doc = " When the entry was last updated."]
                #[serde(rename = "updatedAt", default, skip_serializing_if = "::strata::typed::Field::is_absent")]
                #[strata(system)]
                pub updated_at: ::strata::typed::Field<::strata::typed::DateTime>,
                #[doc = " When the entry was published (`null` on drafts)."]
                #[serde(rename = "publishedAt", default, skip_serializing_if = "::strata::typed::Field::is_absent")]
                #[strata(system)]
                pub published_at: ::strata::typed::Field<::strata::typed::DateTime>,
                #locale
                #(#after)*
                #localizations
            }
        });
        out.extend(enums);
    }

    /// The Rust field name of every attribute of `s`: the public ones first, in schema
    /// order (the fields of the read struct), then the private ones (which only input
    /// types have).
    fn field_names(&self, s: &Schema) -> BTreeMap<AttrId, String> {
        let mut scope = Scope::with(SYSTEM_FIELDS);
        let (public, private): (Vec<&Attribute>, Vec<&Attribute>) =
            s.attributes.iter().partition(|a| is_public(a));
        public
            .into_iter()
            .chain(private)
            .map(|a| (a.id, scope.take(&names::field_name(&a.name), true)))
            .collect()
    }

    fn emit_field(&self, s: &Schema, a: &Attribute, position: usize, rust: &str) -> TokenStream {
        let field = ident(rust);
        let key = Literal::string(&a.name);
        let position = Literal::usize_unsuffixed(position);
        let (ty, args, what) = self.attr_args(s, a);
        let rename = (field != a.name).then(|| quote!(rename = #key,));
        let doc = format!(" `{}`: {what}.", a.name);
        quote! {
            #[doc = #doc]
            #[serde(#rename default, skip_serializing_if = "::strata::typed::Field::is_absent")]
            #[strata(attr = #key, position = #position, #(#args),*)]
            pub #field: ::strata::typed::Field<#ty>,
        }
    }

    /// For one attribute: the Rust type inside `Field<…>`, the `#[strata]` keys after
    /// `attr` (the kind keys, then the options set in the schema), and a short
    /// description for the doc comment.
    fn attr_args(&self, s: &Schema, a: &Attribute) -> (TokenStream, Vec<TokenStream>, String) {
        let (ty, mut args, what) = self.kind_args(s, a);
        let c = &a.constraints;
        if a.required {
            args.push(quote!(required));
        }
        if a.unique {
            args.push(quote!(unique));
        }
        match &a.kind {
            // Items of a repeatable component or a zone: integers.
            AttributeKind::Component(ComponentField { min, max, .. })
            | AttributeKind::DynamicZone(DynamicZone { min, max, .. }) => {
                for (key, n) in [("min", min), ("max", max)] {
                    if let Some(n) = n {
                        let key = ident(key);
                        let n = Literal::u64_unsuffixed(*n);
                        args.push(quote!(#key = #n));
                    }
                }
            }
            // Values of a scalar: the JSON number as text.
            _ => {
                for (key, n) in [("min", &c.min), ("max", &c.max)] {
                    if let Some(n) = n {
                        let key = ident(key);
                        let n = n.to_string();
                        args.push(quote!(#key = #n));
                    }
                }
            }
        }
        if let Some(n) = c.min_length {
            let n = Literal::u64_unsuffixed(n);
            args.push(quote!(min_length = #n));
        }
        if let Some(n) = c.max_length {
            let n = Literal::u64_unsuffixed(n);
            args.push(quote!(max_length = #n));
        }
        if let Some(r) = &c.regex {
            args.push(quote!(regex = #r));
        }
        if let Some(d) = &a.default {
            let d = d.to_string();
            args.push(quote!(default = #d));
        }
        if let Some(l) = a.localized {
            args.push(quote!(localized = #l));
        }
        if let Some(cf) = &a.custom_field {
            args.push(quote!(custom_field = #cf));
        }
        (ty, args, what)
    }

    /// The Rust type, the kind keys and the description of an attribute.
    fn kind_args(&self, s: &Schema, a: &Attribute) -> (TokenStream, Vec<TokenStream>, String) {
        let mut args = Vec::new();
        match &a.kind {
            AttributeKind::Scalar(st) => {
                let ty_name = st.type_name();
                args.push(quote!(ty = #ty_name));
                let ty = match st {
                    ScalarType::String
                    | ScalarType::Text
                    | ScalarType::RichText
                    | ScalarType::Email
                    | ScalarType::Password
                    | ScalarType::Timestamp => quote!(::std::string::String),
                    ScalarType::Uid { target_field } => {
                        if let Some(t) = target_field {
                            args.push(quote!(target_field = #t));
                        }
                        quote!(::std::string::String)
                    }
                    ScalarType::Enumeration { values } => {
                        if values.iter().any(|v| v.contains(',')) {
                            args.push(quote!(enum_values(#(#values),*)));
                        } else {
                            let joined = values.join(",");
                            args.push(quote!(enum_values = #joined));
                        }
                        match self.enum_names.get(&(s.id, a.id)) {
                            Some(e) => {
                                let e = ident(e);
                                quote!(#e)
                            }
                            None => quote!(::std::string::String),
                        }
                    }
                    ScalarType::Integer => quote!(i64),
                    ScalarType::BigInteger => quote!(::strata::typed::BigInt),
                    ScalarType::Float => quote!(f64),
                    ScalarType::Decimal => quote!(::strata::typed::Decimal),
                    ScalarType::Boolean => quote!(bool),
                    ScalarType::Date => quote!(::strata::typed::Date),
                    ScalarType::Time => quote!(::strata::typed::Time),
                    ScalarType::DateTime => quote!(::strata::typed::DateTime),
                    ScalarType::Json => quote!(::strata::typed::Json),
                    ScalarType::Blocks => quote!(::strata::typed::Blocks),
                };
                let what = match &a.custom_field {
                    Some(cf) => format!("custom field `{cf}` ({ty_name})"),
                    None => ty_name.to_string(),
                };
                (ty, args, what)
            }
            AttributeKind::Media(m) => {
                args.push(quote!(media));
                if m.multiple {
                    args.push(quote!(multiple));
                }
                if !m.allowed_types.is_empty() {
                    let t = m.allowed_types.join(",");
                    args.push(quote!(allowed_types = #t));
                }
                let file = self.upload_file();
                let (ty, what) = if m.multiple {
                    (quote!(::strata::typed::Many<#file>), "media, several files")
                } else {
                    (quote!(::strata::typed::One<#file>), "media, one file")
                };
                (ty, args, what.to_string())
            }
            AttributeKind::Relation(r) => {
                let kind = r.kind.as_str();
                args.push(quote!(relation = #kind));
                if let Some(t) = &r.target_uid {
                    let t = t.as_str();
                    args.push(quote!(target = #t));
                }
                match &r.side {
                    RelationSide::OneWay => {}
                    RelationSide::Owner { inversed_by } => {
                        args.push(quote!(inversed_by = #inversed_by))
                    }
                    RelationSide::Inverse { mapped_by } => {
                        args.push(quote!(mapped_by = #mapped_by))
                    }
                }
                let what = match &r.target_uid {
                    Some(t) => format!("{kind} relation to `{t}`"),
                    None => format!("{kind} relation (polymorphic)"),
                };
                let ty = match r.target.filter(|t| self.type_names.contains_key(t)) {
                    Some(t) => {
                        let t = self.type_ident(t);
                        if r.kind.is_to_many() {
                            quote!(::strata::typed::Many<#t>)
                        } else {
                            quote!(::strata::typed::One<#t>)
                        }
                    }
                    // morphTo* has no fixed target: its entries are kept as JSON.
                    None => quote!(::strata::typed::Json),
                };
                (ty, args, what)
            }
            AttributeKind::Component(c) => {
                let uid = self.model.schema(c.component).uid.as_str();
                args.push(quote!(component = #uid));
                let t = self.type_ident(c.component);
                if c.repeatable {
                    args.push(quote!(repeatable));
                    (
                        quote!(::std::vec::Vec<#t>),
                        args,
                        format!("repeatable component `{uid}`"),
                    )
                } else {
                    (quote!(#t), args, format!("component `{uid}`"))
                }
            }
            AttributeKind::DynamicZone(z) => {
                let uids: Vec<&str> = z
                    .components
                    .iter()
                    .map(|c| self.model.schema(*c).uid.as_str())
                    .collect();
                let joined = uids.join(",");
                args.push(quote!(dynamic_zone = #joined));
                let ty = match self.enum_names.get(&(s.id, a.id)) {
                    Some(e) => {
                        let e = ident(e);
                        quote!(::std::vec::Vec<#e>)
                    }
                    None => quote!(::std::vec::Vec<::strata::typed::Json>),
                };
                (ty, args, format!("dynamic zone of {}", quoted_list(&uids)))
            }
        }
    }

    /// The enum an attribute needs (enumeration values or dynamic-zone components).
    fn emit_enum(&self, s: &Schema, a: &Attribute) -> Option<TokenStream> {
        let name = self.enum_names.get(&(s.id, a.id)).map(|n| ident(n))?;
        match &a.kind {
            AttributeKind::Scalar(ScalarType::Enumeration { values }) => {
                // A value listed twice is one variant.
                let mut seen = BTreeSet::new();
                let values: Vec<&String> = values.iter().filter(|v| seen.insert(*v)).collect();
                let mut scope = Scope::default();
                let variants: Vec<Ident> = values
                    .iter()
                    .map(|v| ident(&scope.take(&names::type_name(v, "V"), false)))
                    .collect();
                let doc = format!(" The values of `{}` on `{}`.", a.name, s.uid);
                let docs = values.iter().map(|v| format!(" `{v}`"));
                let lits = values.iter().map(|v| Literal::string(v));
                let lits2 = lits.clone();
                let vs = variants.iter();
                let vs2 = variants.iter();
                Some(quote! {
                    #[doc = #doc]
                    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ::strata::serde::Serialize, ::strata::serde::Deserialize, ::strata::schemars::JsonSchema)]
                    #[serde(crate = "::strata::serde")]
                    #[schemars(crate = "::strata::schemars")]
                    pub enum #name {
                        #(
                            #[doc = #docs]
                            #[serde(rename = #lits)]
                            #vs,
                        )*
                    }

                    impl #name {
                        /// The value as written in the schema and sent over the wire.
                        pub fn as_str(&self) -> &'static str {
                            match self {
                                #(Self::#vs2 => #lits2,)*
                            }
                        }
                    }
                })
            }
            AttributeKind::DynamicZone(z) => {
                let doc = format!(
                    " The components of the dynamic zone `{}` on `{}`, tagged by `__component`.",
                    a.name, s.uid
                );
                let variants = z.components.iter().map(|c| {
                    let uid = self.model.schema(*c).uid.as_str();
                    let t = self.type_ident(*c);
                    let vdoc = format!(" `{uid}`.");
                    quote! {
                        #[doc = #vdoc]
                        #[serde(rename = #uid)]
                        #t(#t),
                    }
                });
                Some(quote! {
                    #[doc = #doc]
                    #[derive(Debug, Clone, PartialEq, ::strata::serde::Serialize, ::strata::serde::Deserialize, ::strata::schemars::JsonSchema, ::strata::DynamicZone)]
                    #[serde(crate = "::strata::serde")]
                    #[schemars(crate = "::strata::schemars")]
                    #[serde(tag = "__component")]
                    #[allow(clippy::large_enum_variant, clippy::enum_variant_names)]
                    pub enum #name {
                        #(#variants)*
                    }
                })
            }
            _ => None,
        }
    }
}

fn quoted_list(uids: &[&str]) -> String {
    uids.iter()
        .map(|u| format!("`{u}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A string literal for embedded file text: a raw string when possible (the file stays
/// readable in the generated source), an escaped one otherwise.
fn text_literal(text: &str) -> Literal {
    if !text.contains('\r') {
        let mut hashes = 1;
        while text.contains(&format!("\"{}", "#".repeat(hashes))) {
            hashes += 1;
        }
        let h = "#".repeat(hashes);
        if let Ok(lit) = format!("r{h}\"{text}\"{h}").parse::<Literal>() {
            return lit;
        }
    }
    Literal::string(text)
}
