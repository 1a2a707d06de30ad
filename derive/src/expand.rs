//! Code generation of `#[derive(ContentType)]`, `#[derive(Component)]` and
//! `#[derive(DynamicZone)]`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, GenericArgument, Ident, Path, PathArguments, Type};

use crate::attrs::{self, AttrKind, AttrSpec, FieldAttrs};

/// Which derive runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Which {
    ContentType,
    Component,
}

/// An attribute field of the struct.
struct AttrField {
    ident: Ident,
    spec: AttrSpec,
    /// The type inside `Field<…>`.
    inner: Type,
}

/// An attribute with its final index.
struct Placed<'a> {
    spec: &'a AttrSpec,
    field: Option<&'a AttrField>,
}

pub fn derive_schema(input: &DeriveInput, which: Which) -> syn::Result<TokenStream> {
    let component = which == Which::Component;
    let what = if component {
        "Component"
    } else {
        "ContentType"
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            format!("#[derive({what})] does not support generic structs"),
        ));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            format!("#[derive({what})] applies to structs with named fields"),
        ));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            format!("#[derive({what})] applies to structs with named fields"),
        ));
    };
    let ta = attrs::type_attrs(&input.attrs, component)?;
    let span = input.ident.span();
    let missing = |key: &str| {
        syn::Error::new(
            span,
            format!("#[derive({what})] needs `#[strata({key} = \"…\")]`"),
        )
    };
    let uid = ta.uid.clone().ok_or_else(|| missing("uid"))?;
    let collection = ta.collection.clone().ok_or_else(|| missing("collection"))?;
    let (kind, singular, plural) = if component {
        let name = uid.rsplit('.').next().unwrap_or(&uid).to_string();
        ("Component".to_string(), name.clone(), name)
    } else {
        let kind = match &ta.kind {
            Some((k, _)) if k == "singleType" => "SingleType",
            Some(_) => "CollectionType",
            None => return Err(missing("kind")),
        };
        (
            kind.to_string(),
            ta.singular.clone().ok_or_else(|| missing("singular"))?,
            ta.plural.clone().ok_or_else(|| missing("plural"))?,
        )
    };

    // Fields.
    let mut errors: Option<syn::Error> = None;
    let mut push_err = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut fields: Vec<AttrField> = Vec::new();
    for f in &named.named {
        let Some(ident) = f.ident.clone() else {
            continue;
        };
        match attrs::field_attrs(&f.attrs, ident.span()) {
            Ok(FieldAttrs::System) => {}
            Ok(FieldAttrs::None) => {
                let name = ident.to_string();
                if name != "id" && name != "document_id" {
                    push_err(syn::Error::new(
                        ident.span(),
                        format!(
                            "field `{name}` needs `#[strata(attr = \"<name>\", …)]` (an attribute of the schema) or `#[strata(system)]` (createdAt, updatedAt, publishedAt, locale, localizations)"
                        ),
                    ));
                }
            }
            Ok(FieldAttrs::Attr(spec)) => {
                let inner = unwrap_field(&f.ty).clone();
                fields.push(AttrField {
                    ident,
                    spec: *spec,
                    inner,
                });
            }
            Err(e) => push_err(e),
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }

    // Positions: fixed ones first, then the free slots in struct order.
    let total = fields.len() + ta.private_attrs.len();
    let mut slots: Vec<Option<Placed>> = (0..total).map(|_| None).collect();
    fn place<'a>(
        slots: &mut [Option<Placed<'a>>],
        total: usize,
        p: Placed<'a>,
        at: usize,
        span: Span,
    ) -> syn::Result<()> {
        match slots.get_mut(at) {
            None => Err(syn::Error::new(
                span,
                format!(
                    "position {at} of `{}` is out of range: the type has {total} attributes (0 to {})",
                    p.spec.name,
                    total.saturating_sub(1)
                ),
            )),
            Some(Some(other)) => Err(syn::Error::new(
                span,
                format!(
                    "`{}` and `{}` both claim position {at}",
                    other.spec.name, p.spec.name
                ),
            )),
            Some(slot) => {
                *slot = Some(p);
                Ok(())
            }
        }
    }
    for spec in &ta.private_attrs {
        if let Some((at, s)) = spec.position {
            place(
                &mut slots,
                total,
                Placed { spec, field: None },
                at as usize,
                s,
            )?;
        }
    }
    for f in &fields {
        if let Some((at, s)) = f.spec.position {
            place(
                &mut slots,
                total,
                Placed {
                    spec: &f.spec,
                    field: Some(f),
                },
                at as usize,
                s,
            )?;
        }
    }
    for f in fields.iter().filter(|f| f.spec.position.is_none()) {
        if let Some(slot) = slots.iter_mut().find(|s| s.is_none()) {
            *slot = Some(Placed {
                spec: &f.spec,
                field: Some(f),
            });
        }
    }
    let placed: Vec<(u32, Placed)> = slots
        .into_iter()
        .enumerate()
        .filter_map(|(i, p)| p.map(|p| (i as u32, p)))
        .collect();
    {
        let mut seen = std::collections::HashSet::new();
        for (_, p) in &placed {
            if !seen.insert(p.spec.name.clone()) {
                return Err(syn::Error::new(
                    p.spec.span,
                    format!("attribute `{}` is declared twice", p.spec.name),
                ));
            }
        }
    }

    let krate: Path = ta
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::strata));
    let model: Path = ta.model.clone().unwrap_or_else(|| syn::parse_quote!(model));
    let name = &input.ident;
    let vis = &input.vis;
    let module = snake_ident(&name.to_string());
    let path_ty = format_ident!("{}Path", name);
    let populate_ty = format_ident!("{}Populate", name);
    let field_ty = format_ident!("{}Field", name);

    // ---------------------------------------------------------------- trait impls
    let kind_ident = format_ident!("{}", kind);
    let main_impl = if component {
        quote! {
            impl #krate::typed::Component for #name {
                const UID: &'static str = #uid;
                fn model() -> &'static #krate::schema::Model {
                    #model()
                }
            }
        }
    } else {
        quote! {
            impl #krate::typed::ContentType for #name {
                const UID: &'static str = #uid;
                const PLURAL: &'static str = #plural;
                const SINGULAR: &'static str = #singular;
                const KIND: #krate::schema::SchemaKind = #krate::schema::SchemaKind::#kind_ident;
                fn model() -> &'static #krate::schema::Model {
                    #model()
                }
            }
        }
    };
    let localized = ta.localized;
    let localized_impl = localized.then(|| quote!(impl #krate::typed::Localized for #name {}));
    let dp = ta.draft_and_publish;
    let attr_descs = placed.iter().map(|(_, p)| describe_attr(&krate, p.spec));
    let typed_impl = quote! {
        impl #krate::typed::Typed for #name {
            type Path<R> = #path_ty<R>;
            type Field = #field_ty;

            fn describe() -> #krate::typed::Description {
                #krate::typed::Description {
                    uid: #krate::typed::__private::String::from(#uid),
                    kind: #krate::schema::SchemaKind::#kind_ident,
                    singular_name: #krate::typed::__private::String::from(#singular),
                    plural_name: #krate::typed::__private::String::from(#plural),
                    collection_name: #krate::typed::__private::String::from(#collection),
                    draft_and_publish: #dp,
                    localized: #localized,
                    attributes: #krate::typed::__private::Vec::from([#(#attr_descs),*]),
                }
            }

            fn schema_ref() -> #krate::typed::SchemaRef {
                #krate::typed::SchemaRef::of(#model(), #uid)
            }
        }
    };

    // ------------------------------------------------------------------ markers
    // (marker ident, query name, index, what, kind tokens for scalars)
    let mut marker_defs = Vec::new();
    let mut marker_impls = Vec::new();
    let mut path_methods = Vec::new();
    let mut populate_consts = Vec::new();
    let mut select_variants: Vec<(Ident, String, u32, String)> = Vec::new();
    let idx_max = u32::MAX;

    let mut system: Vec<(&str, &str, TokenStream, bool)> =
        vec![("id", "id", quote!(#krate::typed::kind::Integer), false)];
    if !component {
        system.push((
            "document_id",
            "documentId",
            quote!(#krate::typed::kind::Text),
            false,
        ));
        system.push((
            "created_at",
            "createdAt",
            quote!(#krate::typed::kind::DateTime),
            true,
        ));
        system.push((
            "updated_at",
            "updatedAt",
            quote!(#krate::typed::kind::DateTime),
            true,
        ));
        system.push((
            "published_at",
            "publishedAt",
            quote!(#krate::typed::kind::DateTime),
            true,
        ));
        if localized {
            system.push(("locale", "locale", quote!(#krate::typed::kind::Text), true));
        }
    }
    for (rust, query, kind_ts, selectable) in &system {
        let m = Ident::new(rust, Span::call_site());
        let doc = format!(" `{query}` of [`{name}`](super::{name}) (system field).");
        marker_defs.push(quote!(#[doc = #doc] pub enum #m {}));
        let caps = if *query == "documentId" || *query == "locale" {
            vec![quote!(Equality), quote!(Membership), quote!(TextMatch)]
        } else {
            vec![quote!(Equality), quote!(Membership), quote!(Ordered)]
        };
        marker_impls.push(quote! {
            impl #krate::typed::Marker for #module::#m {
                const NAME: &'static str = #query;
                const INDEX: u32 = #idx_max;
            }
            impl #krate::typed::ScalarMarker for #module::#m {
                type Kind = #kind_ts;
            }
            #(impl #krate::typed::#caps for #module::#m {})*
        });
        let mdoc = format!(" `{query}`.");
        path_methods.push(quote! {
            #[doc = #mdoc]
            pub fn #m(&self) -> #krate::typed::Scalar<R, #module::#m> {
                #krate::typed::Scalar::at(&self.cursor)
            }
        });
        if *selectable {
            select_variants.push((
                pascal_ident(rust),
                query.to_string(),
                idx_max,
                query.to_string(),
            ));
        }
    }
    if localized {
        marker_defs.push(quote! {
            #[doc = " `localizations`: the other locales of the document."]
            pub enum localizations {}
        });
        marker_impls.push(quote! {
            impl #krate::typed::Marker for #module::localizations {
                const NAME: &'static str = "localizations";
                const INDEX: u32 = #idx_max;
            }
        });
        path_methods.push(quote! {
            #[doc = " `localizations`: the other locales of the document."]
            pub fn localizations(&self) -> #krate::typed::Localizations<R, #name> {
                #krate::typed::Localizations::at(&self.cursor)
            }
        });
        populate_consts.push(quote! {
            #[doc = " `localizations`: the other locales of the document."]
            pub const Localizations: #krate::typed::PopulateField<#name, #module::localizations, #name> =
                #krate::typed::PopulateField::new();
        });
    }

    let mut pascal_seen = std::collections::HashMap::new();
    for (index, p) in &placed {
        let Some(f) = p.field else { continue };
        let m = &f.ident;
        let query = &f.spec.name;
        let doc = format!(" `{query}` of [`{name}`](super::{name}).");
        marker_defs.push(quote!(#[doc = #doc] pub enum #m {}));
        let pascal = pascal_ident(&unraw(m));
        if let Some(other) = pascal_seen.insert(pascal.to_string(), m.to_string()) {
            return Err(syn::Error::new(
                m.span(),
                format!(
                    "fields `{other}` and `{m}` both map to the name `{pascal}` in `{populate_ty}`/`{field_ty}`"
                ),
            ));
        }
        let marker = quote! {
            impl #krate::typed::Marker for #module::#m {
                const NAME: &'static str = #query;
                const INDEX: u32 = #index;
            }
        };
        let mdoc = format!(" `{query}`.");
        match &f.spec.kind {
            AttrKind::Scalar(ty) => {
                let (kind_ts, caps) = scalar_kind(&krate, ty, &f.inner);
                marker_impls.push(quote! {
                    #marker
                    impl #krate::typed::ScalarMarker for #module::#m {
                        type Kind = #kind_ts;
                    }
                    #(impl #krate::typed::#caps for #module::#m {})*
                });
                path_methods.push(quote! {
                    #[doc = #mdoc]
                    pub fn #m(&self) -> #krate::typed::Scalar<R, #module::#m> {
                        #krate::typed::Scalar::at(&self.cursor)
                    }
                });
                let pdoc = format!(
                    " `{query}` is a scalar field: populating it does not compile (select it with [`{field_ty}::{pascal}`])."
                );
                populate_consts.push(quote! {
                    #[doc = #pdoc]
                    pub const #pascal: #krate::typed::NotPopulatable<#name, #module::#m> =
                        #krate::typed::NotPopulatable::new();
                });
                select_variants.push((pascal.clone(), query.clone(), *index, query.clone()));
            }
            AttrKind::Relation { kind, .. } if kind.starts_with("morph") => {
                // Polymorphic relations cannot be filtered, sorted or populated through
                // the content API: the field only reads what a response holds.
                marker_impls.push(marker);
            }
            AttrKind::Relation { .. } | AttrKind::Media { .. } | AttrKind::Component { .. } => {
                let target = match &f.spec.kind {
                    AttrKind::Component { .. } => component_type(&f.inner),
                    _ => relation_type(&f.inner),
                };
                let countable = matches!(f.spec.kind, AttrKind::Relation { .. })
                    .then(|| quote!(impl #krate::typed::Countable for #module::#m {}));
                marker_impls.push(quote! {
                    #marker
                    #countable
                });
                let target_ts = match target {
                    Some(t) => {
                        path_methods.push(quote! {
                            #[doc = #mdoc]
                            pub fn #m(&self) -> #krate::typed::Rel<R, #module::#m, #t> {
                                #krate::typed::Rel::at(&self.cursor)
                            }
                        });
                        quote!(#t)
                    }
                    None => quote!(#krate::typed::Untyped),
                };
                let pdoc = format!(" Populate `{query}`.");
                populate_consts.push(quote! {
                    #[doc = #pdoc]
                    pub const #pascal: #krate::typed::PopulateField<#name, #module::#m, #target_ts> =
                        #krate::typed::PopulateField::new();
                });
            }
            AttrKind::Zone(_) => {
                marker_impls.push(marker);
                path_methods.push(quote! {
                    #[doc = #mdoc]
                    pub fn #m(&self) -> #krate::typed::Zone<R, #module::#m> {
                        #krate::typed::Zone::at(&self.cursor)
                    }
                });
                let zone = generic_arg(&f.inner, &["Vec"])
                    .cloned()
                    .unwrap_or_else(|| syn::parse_quote!(#krate::typed::Untyped));
                let pdoc = format!(
                    " Populate the dynamic zone `{query}` (every component type, or those named with `on`)."
                );
                populate_consts.push(quote! {
                    #[doc = #pdoc]
                    pub const #pascal: #krate::typed::PopulateZone<#name, #module::#m, #zone> =
                        #krate::typed::PopulateZone::new();
                });
            }
        }
    }

    // -------------------------------------------------------------------- items
    let module_doc = format!(
        " The query vocabulary of [`{name}`](super::{name}): one marker type per field (the names compile errors use){}.",
        if component {
            ", and the entry points `filter()` and `sort()` (for populate options)"
        } else {
            ", and the entry points `query()`, `filter()` and `sort()`"
        }
    );
    let query_entry = (!component).then(|| {
        quote! {
            /// A query with no parameters (published entries, default locale, first page).
            pub fn query() -> #krate::typed::TypedQuery<super::#name> {
                #krate::typed::TypedQuery::new()
            }
        }
    });
    let entry_points = {
        quote! {
            #query_entry

            /// The start of a filter path: `filter().title().contains("rust")`.
            pub fn filter() -> super::#path_ty<super::#name> {
                <super::#path_ty<super::#name> as #krate::typed::PathNode>::from_cursor(
                    #krate::typed::Cursor::root(<super::#name as #krate::typed::Typed>::schema_ref()),
                )
            }

            /// The start of a sort key: `sort().title().asc()`.
            pub fn sort() -> super::#path_ty<super::#name> {
                filter()
            }
        }
    };
    let path_doc = format!(
        " Paths from a root type `R` through [`{name}`]: one method per field (see `strata::typed::Scalar`, `Rel`, `Zone`)."
    );
    let populate_doc =
        format!(" What `populate` can name on [`{name}`]: one constant per attribute field.");
    let field_doc = format!(" The scalar fields of [`{name}`] that `fields` can select.");
    let variants = select_variants.iter().map(|(v, q, _, _)| {
        let d = format!(" `{q}`.");
        quote!(#[doc = #d] #v)
    });
    let name_arms = select_variants
        .iter()
        .map(|(v, q, _, _)| quote!(#field_ty::#v => #q));
    let index_arms = select_variants
        .iter()
        .map(|(v, _, i, _)| quote!(#field_ty::#v => #i));

    Ok(quote! {
        #main_impl
        #localized_impl
        #typed_impl

        #[doc = #module_doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis mod #module {
            #(#marker_defs)*
            #entry_points
        }

        #(#marker_impls)*

        #[doc = #path_doc]
        #vis struct #path_ty<R> {
            cursor: #krate::typed::Cursor,
            _root: #krate::typed::__private::PhantomData<fn() -> R>,
        }

        impl<R> #krate::typed::PathNode for #path_ty<R> {
            fn from_cursor(cursor: #krate::typed::Cursor) -> Self {
                #path_ty {
                    cursor,
                    _root: #krate::typed::__private::PhantomData,
                }
            }
        }

        #[allow(dead_code)]
        impl<R> #path_ty<R> {
            #(#path_methods)*
        }

        #[doc = #populate_doc]
        #vis enum #populate_ty {}

        #[allow(non_upper_case_globals, dead_code)]
        impl #populate_ty {
            #(#populate_consts)*
        }

        #[doc = #field_doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #vis enum #field_ty {
            #(#variants,)*
        }

        impl #krate::typed::SelectField for #field_ty {
            fn name(self) -> &'static str {
                match self {
                    #(#name_arms,)*
                }
            }
            fn index(self) -> u32 {
                match self {
                    #(#index_arms,)*
                }
            }
        }
    })
}

/// `#[derive(DynamicZone)]`: `InZone<Enum>` for the type of each newtype variant.
pub fn derive_zone(input: &DeriveInput) -> syn::Result<TokenStream> {
    let Data::Enum(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "#[derive(DynamicZone)] applies to enums (one newtype variant per component)",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[derive(DynamicZone)] does not support generic enums",
        ));
    }
    let mut krate: Path = syn::parse_quote!(::strata);
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("strata")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                krate = lit.parse()?;
                Ok(())
            } else {
                Err(meta.error("unknown key; `#[derive(DynamicZone)]` only reads `crate`"))
            }
        })?;
    }
    let name = &input.ident;
    let mut impls = Vec::new();
    for v in &data.variants {
        match &v.fields {
            Fields::Unit => {}
            Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                let ty = &f.unnamed[0].ty;
                impls.push(quote!(impl #krate::typed::InZone<#name> for #ty {}));
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    &v.ident,
                    "each variant of a dynamic zone holds one component: `SharedQuote(SharedQuote)`",
                ));
            }
        }
    }
    Ok(quote!(#(#impls)*))
}

// ------------------------------------------------------------------------- descriptions

fn opt_str(v: &Option<String>) -> TokenStream {
    match v {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

fn opt_u64(v: Option<u64>) -> TokenStream {
    match v {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    }
}

fn describe_attr(krate: &Path, spec: &AttrSpec) -> TokenStream {
    let p = quote!(#krate::typed::__private);
    let name = &spec.name;
    let kind = match &spec.kind {
        AttrKind::Scalar(ty) => {
            let values = &spec.enum_values;
            let tf = opt_str(&spec.target_field);
            quote!(#krate::typed::AttributeKindDescription::Scalar(
                #p::build::scalar(#ty, &[#(#values),*], #tf)
            ))
        }
        AttrKind::Relation {
            kind,
            target,
            inversed_by,
            mapped_by,
        } => {
            let target = match target {
                Some(t) => quote!(#p::Some(#p::String::from(#t))),
                None => quote!(#p::None),
            };
            let inv = opt_str(inversed_by);
            let map = opt_str(mapped_by);
            quote!(#krate::typed::AttributeKindDescription::Relation {
                kind: #p::build::relation_kind(#kind),
                target: #target,
                side: #p::build::side(#inv, #map),
            })
        }
        AttrKind::Media { multiple } => {
            let types = &spec.allowed_types;
            quote!(#krate::typed::AttributeKindDescription::Media {
                multiple: #multiple,
                allowed_types: #p::build::strings(&[#(#types),*]),
            })
        }
        AttrKind::Component { uid, repeatable } => {
            let min = opt_str(&spec.min);
            let max = opt_str(&spec.max);
            quote!(#krate::typed::AttributeKindDescription::Component {
                component: #p::String::from(#uid),
                repeatable: #repeatable,
                min: #p::build::items(#min),
                max: #p::build::items(#max),
            })
        }
        AttrKind::Zone(uids) => {
            let min = opt_str(&spec.min);
            let max = opt_str(&spec.max);
            quote!(#krate::typed::AttributeKindDescription::DynamicZone {
                components: #p::build::strings(&[#(#uids),*]),
                min: #p::build::items(#min),
                max: #p::build::items(#max),
            })
        }
    };
    let private = spec.private;
    let required = spec.required;
    let unique = spec.unique;
    let localized = match spec.localized {
        Some(b) => quote!(#p::Some(#b)),
        None => quote!(#p::None),
    };
    let default = match &spec.default {
        Some(d) => quote!(#p::build::json(#d)),
        None => quote!(#p::None),
    };
    let min = opt_str(&spec.min);
    let max = opt_str(&spec.max);
    let min_length = opt_u64(spec.min_length);
    let max_length = opt_u64(spec.max_length);
    let regex = opt_str(&spec.regex);
    let custom = match &spec.custom_field {
        Some(c) => quote!(#p::Some(#p::String::from(#c))),
        None => quote!(#p::None),
    };
    quote!(#krate::typed::AttributeDescription {
        name: #p::String::from(#name),
        kind: #kind,
        private: #private,
        required: #required,
        unique: #unique,
        localized: #localized,
        default: #default,
        constraints: #p::build::constraints(#min, #max, #min_length, #max_length, #regex),
        custom_field: #custom,
    })
}

// -------------------------------------------------------------------------------- types

/// The kind type and the capability traits of a scalar field.
fn scalar_kind(krate: &Path, ty: &str, inner: &Type) -> (TokenStream, Vec<TokenStream>) {
    let k = |n: &str| {
        let i = Ident::new(n, Span::call_site());
        quote!(#krate::typed::kind::#i)
    };
    let text_caps = vec![quote!(Equality), quote!(Membership), quote!(TextMatch)];
    let ordered_caps = vec![quote!(Equality), quote!(Membership), quote!(Ordered)];
    match ty {
        "enumeration" => {
            if last_ident(inner).as_deref() == Some("String") {
                (k("Text"), text_caps)
            } else {
                (quote!(#krate::typed::kind::Enumeration<#inner>), text_caps)
            }
        }
        "string" | "text" | "richtext" | "email" | "uid" | "password" => (k("Text"), text_caps),
        "integer" => (k("Integer"), ordered_caps),
        "biginteger" => (k("BigInteger"), ordered_caps),
        "float" => (k("Float"), ordered_caps),
        "decimal" => (k("Decimal"), ordered_caps),
        "date" => (k("Date"), ordered_caps),
        "time" => (k("Time"), ordered_caps),
        "datetime" | "timestamp" => (k("DateTime"), ordered_caps),
        "boolean" => (k("Boolean"), vec![quote!(Equality)]),
        _ => (k("Json"), Vec::new()),
    }
}

/// The last path segment's name of a type.
fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Group(g) => last_ident(&g.elem),
        Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

/// The single type argument of `ty` when its last segment is one of `names`.
fn generic_arg<'a>(ty: &'a Type, names: &[&str]) -> Option<&'a Type> {
    let Type::Path(p) = ty else {
        return match ty {
            Type::Group(g) => generic_arg(&g.elem, names),
            Type::Paren(p) => generic_arg(&p.elem, names),
            _ => None,
        };
    };
    let seg = p.path.segments.last()?;
    if !names.contains(&seg.ident.to_string().as_str()) {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    types.next().is_none().then_some(first)
}

/// The type inside `Field<…>` (or `Option<…>`).
fn unwrap_field(ty: &Type) -> &Type {
    generic_arg(ty, &["Field", "Option"]).unwrap_or(ty)
}

/// The target of a relation or media field: `One<T>` / `Many<T>` → `T`.
fn relation_type(inner: &Type) -> Option<Type> {
    generic_arg(inner, &["One", "Many"]).cloned()
}

/// The component of a component field: `T` or `Vec<T>` → `T`.
fn component_type(inner: &Type) -> Option<Type> {
    match generic_arg(inner, &["Vec"]) {
        Some(t) => Some(t.clone()),
        None => match inner {
            Type::Path(_) => Some(inner.clone()),
            _ => None,
        },
    }
}

// -------------------------------------------------------------------------------- names

fn unraw(i: &Ident) -> String {
    let s = i.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

/// An identifier from `s`, raw if `s` is a keyword.
fn make_ident(s: &str) -> Ident {
    if syn::parse_str::<Ident>(s).is_ok() {
        Ident::new(s, Span::call_site())
    } else if matches!(s, "self" | "super" | "crate" | "Self" | "_") {
        format_ident!("{}_", s)
    } else {
        Ident::new_raw(s, Span::call_site())
    }
}

/// `SharedSeo` → `shared_seo`, `HTTPServer` → `http_server`.
fn snake_ident(name: &str) -> Ident {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                None => false,
                Some('_') => false,
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(|n| n.is_lowercase()),
                Some(_) => false,
            };
            if boundary {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(*c);
        }
    }
    make_ident(&out)
}

/// `word_count` → `WordCount`, `type` → `Type`.
fn pascal_ident(name: &str) -> Ident {
    let mut out = String::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut cs = part.chars();
        if let Some(first) = cs.next() {
            out.extend(first.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'F');
    }
    make_ident(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(snake_ident("Article").to_string(), "article");
        assert_eq!(snake_ident("SharedSeo").to_string(), "shared_seo");
        assert_eq!(snake_ident("HTTPServer").to_string(), "http_server");
        assert_eq!(
            snake_ident("UsersPermissionsUser").to_string(),
            "users_permissions_user"
        );
        assert_eq!(snake_ident("Type").to_string(), "r#type");
        assert_eq!(snake_ident("Super").to_string(), "super_");
        assert_eq!(pascal_ident("word_count").to_string(), "WordCount");
        assert_eq!(pascal_ident("type").to_string(), "Type");
        assert_eq!(pascal_ident("meta_title").to_string(), "MetaTitle");
        assert_eq!(pascal_ident("wordCount").to_string(), "WordCount");
        assert_eq!(pascal_ident("self").to_string(), "Self_");
    }
}
