//! The input types of typed writes (see `strata_runtime::typed::input` for what they are
//! made of):
//!
//! * per user content type (`api::…`), `{Type}CreateInput` (required attributes, those with
//!   `required` and no `default`, are plain fields and arguments of `new`; the others are
//!   `Option`s left out when `None`) and `{Type}UpdateInput` (every field a `Patch`), with
//!   `CreateInput`/`UpdateInput` naming the content type;
//! * per component, `{Component}Input`, shaped like a create (a component is written
//!   whole), plus an optional `id`: the id of a component the entry holds, which an
//!   update then changes in place (Strapi's `updateComponents`) instead of replacing;
//! * per dynamic zone, `{Owner}{Zone}Input`: an enum of the zone's components' inputs,
//!   tagged by `__component`, with a `From` for each.
//!
//! Every attribute is a field, private ones and passwords included (they are written,
//! never read), under the read struct's field name and renamed to the attribute's name.
//! Built-in content types (users, files) are written through their plugins' own routes,
//! so they get no input types.

use std::collections::BTreeMap;

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use strata_runtime::schema::{
    AttrId, Attribute, AttributeKind, Model, Origin, Schema, SchemaId, SchemaKind,
};

use super::Plan;
use crate::names::{self, Scope, ident};

/// The names of the input types, taken after every other type name so that adding them
/// renames nothing.
#[derive(Debug, Default)]
pub(super) struct InputNames {
    /// `(create, update)` per user content type.
    documents: BTreeMap<SchemaId, (String, String)>,
    /// The input of each component.
    components: BTreeMap<SchemaId, String>,
    /// The input enum of each dynamic zone with components, by owner and attribute.
    zones: BTreeMap<(SchemaId, AttrId), String>,
}

/// Whether a schema gets input types: user content types and components.
fn has_inputs(s: &Schema) -> bool {
    s.kind == SchemaKind::Component || (s.is_content_type() && s.origin == Origin::Api)
}

/// Whether a create must give the attribute: required (with no condition that may hide
/// it), and no default to fall back on.
fn is_required(a: &Attribute) -> bool {
    a.always_required() && a.default.is_none()
}

impl InputNames {
    /// Takes the input names of `items` in `scope` (which holds every other type name).
    pub(super) fn take(
        model: &Model,
        items: &[SchemaId],
        type_names: &BTreeMap<SchemaId, String>,
        scope: &mut Scope,
    ) -> Self {
        let mut names = InputNames::default();
        let inputs = items
            .iter()
            .map(|id| model.schema(*id))
            .filter(|s| has_inputs(s));
        for s in inputs.clone() {
            let owner = type_names.get(&s.id).cloned().unwrap_or_default();
            if s.kind == SchemaKind::Component {
                let input = scope.take(&format!("{owner}Input"), false);
                names.components.insert(s.id, input);
            } else {
                let create = scope.take(&format!("{owner}CreateInput"), false);
                let update = scope.take(&format!("{owner}UpdateInput"), false);
                names.documents.insert(s.id, (create, update));
            }
        }
        for s in inputs {
            let owner = type_names.get(&s.id).cloned().unwrap_or_default();
            for a in &s.attributes {
                if matches!(&a.kind, AttributeKind::DynamicZone(z) if !z.components.is_empty()) {
                    let name = format!("{owner}{}Input", names::pascal(&a.name));
                    names.zones.insert((s.id, a.id), scope.take(&name, false));
                }
            }
        }
        names
    }
}

/// One field of an input struct.
struct InputField {
    /// The attribute's name.
    key: String,
    ident: Ident,
    /// `rename = "…"` when the attribute's name is not the field's.
    rename: Option<TokenStream>,
    ty: TokenStream,
    doc: String,
    required: bool,
}

/// The `id` of a component input: given, the entry's component with that id is updated in
/// place (Strapi's `updateComponents`) instead of replaced by a new one.
fn component_id_field() -> InputField {
    InputField {
        key: "id".into(),
        ident: ident("id"),
        rename: None,
        ty: quote!(i64),
        doc: " `id`: the id of a component the entry already holds, to update it in place \
              (left out: a new component replaces the old)."
            .into(),
        required: false,
    }
}

impl Plan<'_> {
    /// The input types of a schema, after its read types.
    pub(super) fn emit_inputs(&self, s: &Schema, out: &mut Vec<TokenStream>) {
        if !has_inputs(s) {
            return;
        }
        let fields = self.input_fields(s);
        if let Some(name) = self.input_names.components.get(&s.id) {
            let doc = format!(
                " The component `{}` in a write (it is written whole).",
                s.uid
            );
            let with_id: Vec<InputField> = std::iter::once(component_id_field())
                .chain(self.input_fields(s))
                .collect();
            out.push(self.emit_create(&ident(name), &doc, &with_id));
        }
        if let Some((create, update)) = self.input_names.documents.get(&s.id) {
            let route = if s.kind == SchemaKind::SingleType {
                format!("PUT /api/{}", s.singular_name)
            } else {
                format!("POST /api/{}", s.plural_name)
            };
            let doc = format!(" The `data` of a create of `{}` (`{route}`).", s.uid);
            let create = ident(create);
            let entry = self.type_ident(s.id);
            let item = self.emit_create(&create, &doc, &fields);
            out.push(quote! {
                #item

                impl ::strata::typed::CreateInput for #create {
                    type Entry = #entry;
                }
            });
            out.push(self.emit_update(s, &ident(update), &fields));
        }
        for a in &s.attributes {
            if let Some(e) = self.emit_zone_input(s, a) {
                out.push(e);
            }
        }
    }

    /// The fields of the input types of `s`, in schema order.
    fn input_fields(&self, s: &Schema) -> Vec<InputField> {
        let names = self.field_names(s);
        s.attributes
            .iter()
            .map(|a| {
                let rust = names.get(&a.id).map_or("field", String::as_str);
                let ident = ident(rust);
                let key = &a.name;
                let rename = (ident != key).then(|| quote!(rename = #key,));
                let (ty, what) = self.input_type(s, a);
                let mut notes = String::new();
                if is_required(a) {
                    notes.push_str(", required");
                } else if a.required && a.condition.is_some() {
                    notes
                        .push_str(", required where its condition (`conditions.visible`) shows it");
                }
                if !super::is_public(a) {
                    notes.push_str(", written but never read");
                }
                InputField {
                    key: key.clone(),
                    ident,
                    rename,
                    ty,
                    doc: format!(" `{key}`: {what}{notes}."),
                    required: is_required(a),
                }
            })
            .collect()
    }

    /// The type of an attribute in an input, and its description.
    fn input_type(&self, s: &Schema, a: &Attribute) -> (TokenStream, String) {
        let json = quote!(::strata::typed::Json);
        match &a.kind {
            AttributeKind::Scalar(_) => {
                let (ty, _, what) = self.kind_args(s, a);
                (ty, what)
            }
            AttributeKind::Media(m) if m.multiple => (
                quote!(::std::vec::Vec<i64>),
                "media, the ids of several files".into(),
            ),
            AttributeKind::Media(_) => (quote!(i64), "media, the id of one file".into()),
            AttributeKind::Relation(r) => {
                let (_, _, what) = self.kind_args(s, a);
                match r.target.filter(|t| self.type_names.contains_key(t)) {
                    Some(t) => {
                        let t = self.type_ident(t);
                        (quote!(::strata::typed::RelationInput<#t>), what)
                    }
                    None => (json, what),
                }
            }
            AttributeKind::Component(c) => {
                let (_, _, what) = self.kind_args(s, a);
                let t = match self.input_names.components.get(&c.component) {
                    Some(name) => {
                        let name = ident(name);
                        quote!(#name)
                    }
                    None => json,
                };
                if c.repeatable {
                    (quote!(::std::vec::Vec<#t>), what)
                } else {
                    (t, what)
                }
            }
            AttributeKind::DynamicZone(_) => {
                let (_, _, what) = self.kind_args(s, a);
                let t = match self.input_names.zones.get(&(s.id, a.id)) {
                    Some(name) => {
                        let name = ident(name);
                        quote!(#name)
                    }
                    None => json,
                };
                (quote!(::std::vec::Vec<#t>), what)
            }
        }
    }

    /// A create-shaped struct (a content type's create, a component's input) and its
    /// `new`.
    fn emit_create(&self, name: &Ident, doc: &str, fields: &[InputField]) -> TokenStream {
        let decls = fields.iter().map(|f| {
            let InputField {
                ident,
                rename,
                ty,
                doc,
                ..
            } = f;
            if f.required {
                let rename = rename.as_ref().map(|r| quote!(#[serde(#r)]));
                quote! { #[doc = #doc] #rename pub #ident: #ty, }
            } else {
                quote! {
                    #[doc = #doc]
                    #[serde(#rename skip_serializing_if = "::std::option::Option::is_none")]
                    pub #ident: ::std::option::Option<#ty>,
                }
            }
        });
        let required: Vec<&InputField> = fields.iter().filter(|f| f.required).collect();
        let default = required.is_empty().then(|| quote!(Default,));
        let params = required.iter().map(|f| {
            let (ident, ty) = (&f.ident, &f.ty);
            quote!(#ident: #ty)
        });
        let body = if required.is_empty() {
            quote!(Self::default())
        } else {
            let inits = fields.iter().map(|f| {
                let ident = &f.ident;
                if f.required {
                    quote!(#ident)
                } else {
                    quote!(#ident: ::std::option::Option::None)
                }
            });
            quote!(Self { #(#inits),* })
        };
        let many = (required.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
        let new_doc = if required.is_empty() {
            " An input with every attribute left out (Strapi applies its defaults).".to_string()
        } else {
            let list: Vec<String> = required.iter().map(|f| format!("`{}`", f.key)).collect();
            format!(
                " An input with the required attributes ({}) and every other one left out \
                 (Strapi applies its defaults).",
                list.join(", ")
            )
        };
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq, #default ::strata::serde::Serialize)]
            #[serde(crate = "::strata::serde")]
            pub struct #name {
                #(#decls)*
            }

            impl #name {
                #[doc = #new_doc]
                #many
                pub fn new(#(#params),*) -> Self {
                    #body
                }
            }
        }
    }

    /// The update struct of a content type: every field a `Patch`.
    fn emit_update(&self, s: &Schema, name: &Ident, fields: &[InputField]) -> TokenStream {
        let route = if s.kind == SchemaKind::SingleType {
            format!("PUT /api/{}", s.singular_name)
        } else {
            format!("PUT /api/{}/:documentId", s.plural_name)
        };
        let doc = format!(
            " The `data` of an update of `{}` (`{route}`): each field kept (left out), \
             cleared (`null`) or set.",
            s.uid
        );
        let entry = self.type_ident(s.id);
        let decls = fields.iter().map(|f| {
            let InputField {
                ident,
                rename,
                ty,
                doc,
                ..
            } = f;
            quote! {
                #[doc = #doc]
                #[serde(#rename skip_serializing_if = "::strata::typed::Patch::is_keep")]
                pub #ident: ::strata::typed::Patch<#ty>,
            }
        });
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq, Default, ::strata::serde::Serialize)]
            #[serde(crate = "::strata::serde")]
            pub struct #name {
                #(#decls)*
            }

            impl ::strata::typed::UpdateInput for #name {
                type Entry = #entry;
            }
        }
    }

    /// The input enum of a dynamic zone: one variant per component the zone allows.
    fn emit_zone_input(&self, s: &Schema, a: &Attribute) -> Option<TokenStream> {
        let name = ident(self.input_names.zones.get(&(s.id, a.id))?);
        let AttributeKind::DynamicZone(z) = &a.kind else {
            return None;
        };
        let doc = format!(
            " A component of the dynamic zone `{}` on `{}` in a write, tagged by `__component`.",
            a.name, s.uid
        );
        let mut variants = Vec::new();
        let mut froms = Vec::new();
        for c in &z.components {
            let uid = self.model.schema(*c).uid.as_str();
            let variant = self.type_ident(*c);
            let input = ident(self.input_names.components.get(c)?);
            let vdoc = format!(" `{uid}`.");
            variants.push(quote! {
                #[doc = #vdoc]
                #[serde(rename = #uid)]
                #variant(#input),
            });
            froms.push(quote! {
                impl ::std::convert::From<#input> for #name {
                    fn from(component: #input) -> Self {
                        Self::#variant(component)
                    }
                }
            });
        }
        Some(quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq, ::strata::serde::Serialize)]
            #[serde(crate = "::strata::serde", tag = "__component")]
            #[allow(clippy::large_enum_variant, clippy::enum_variant_names)]
            pub enum #name {
                #(#variants)*
            }

            #(#froms)*
        })
    }
}
