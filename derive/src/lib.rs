//! strata-derive: `#[derive(ContentType)]`, `#[derive(Component)]` and
//! `#[derive(DynamicZone)]` for the structs and enums that strata-codegen emits (or that
//! you write by hand). Use them through the facade: `::strata::ContentType`,
//! `::strata::Component`, `::strata::DynamicZone`.
//!
//! The derives read `#[strata(...)]` attributes that restate the schema facts of the type,
//! and produce:
//!
//! 1. the [`ContentType`](../strata_runtime/typed/trait.ContentType.html) /
//!    `Component` impl and the `Typed` impl, whose `describe()` returns a static
//!    `Description` that equals `Description::from_schema` of the runtime model;
//! 2. the typed query vocabulary of the type (filter and sort paths, populate, fields),
//!    checked at compile time (see `strata_runtime::typed`).
//!
//! This page is the **contract with strata-codegen**: it lists every key the derives read,
//! and every item they generate (so that generated code does not define them again).
//!
//! # Content types
//!
//! ```text
//! #[derive(Debug, Clone, PartialEq, ::strata::serde::Serialize, ::strata::serde::Deserialize,
//!          ::strata::schemars::JsonSchema, ::strata::ContentType)]
//! #[serde(crate = "::strata::serde")]
//! #[schemars(crate = "::strata::schemars")]
//! #[strata(uid = "api::article.article", kind = "collectionType", singular = "article",
//!          plural = "articles", collection = "articles", draft_and_publish, localized,
//!          model = "model")]
//! #[strata(private_attr(attr = "secretNote", position = 3, ty = "string"))]
//! pub struct Article {
//!     pub id: i64,
//!     #[serde(rename = "documentId")]
//!     pub document_id: String,
//!     #[strata(attr = "title", position = 0, ty = "string", localized = true)]
//!     #[serde(default, skip_serializing_if = "::strata::typed::Field::is_absent")]
//!     pub title: ::strata::typed::Field<String>,
//!     …
//!     #[strata(system)]
//!     #[serde(rename = "createdAt", default, skip_serializing_if = "::strata::typed::Field::is_absent")]
//!     pub created_at: ::strata::typed::Field<::strata::typed::DateTime>,
//! }
//! ```
//!
//! Struct-level keys (`#[strata(...)]`, may be split over several attributes):
//!
//! | key | value | |
//! |---|---|---|
//! | `uid` | `"api::article.article"` | required |
//! | `kind` | `"collectionType"` or `"singleType"` | required |
//! | `singular` | `info.singularName` | required |
//! | `plural` | `info.pluralName` | required |
//! | `collection` | `collectionName` as written | required |
//! | `draft_and_publish` | flag | when `options.draftAndPublish` is true |
//! | `localized` | flag | when `pluginOptions.i18n.localized` is true |
//! | `model` | path of a `fn() -> &'static Model` in scope | default `"model"` |
//! | `private_attr(...)` | a private attribute (see below) | repeatable |
//! | `crate` | path of the strata facade | default `"::strata"` |
//!
//! # Components
//!
//! ```text
//! #[derive(…, ::strata::Component)]
//! #[strata(uid = "shared.seo", collection = "components_shared_seos", model = "model")]
//! pub struct SharedSeo { pub id: i64, /* attribute fields as above */ }
//! ```
//!
//! Keys: `uid`, `collection`, `model`, `private_attr(...)`, `crate`. A component's
//! singular and plural names are the part of its uid after the dot.
//!
//! # Fields
//!
//! Every field is one of:
//!
//! * a **system key** (`id`, `documentId`, `createdAt`, `updatedAt`, `publishedAt`,
//!   `locale`, `localizations`): `#[strata(system)]` (optional on `id` and `document_id`);
//!   the derive does not read its type: which system keys a query can name follows from
//!   the type's kind and flags;
//! * an **attribute**: `#[strata(attr = "<name in the schema>", …)]`, with the Rust type
//!   `::strata::typed::Field<…>` (the derive reads the type inside `Field<…>`).
//!
//! **Attribute positions.** The description lists attributes in schema order (the order of
//! `attributes` in the schema file), and the attribute's index is part of the generated
//! code. Give each attribute field its 0-based index among **all** the schema's attributes
//! (private ones included) with `position = N`; generated code should always do so, since
//! its fields follow Strapi's JSON key order (scalars, system keys, then the rest) rather
//! than schema order. Fields without `position` take the free indexes in struct order, so
//! hand-written structs whose fields are in schema order can leave it out.
//!
//! Attribute keys, by kind (exactly one kind key per attribute):
//!
//! | kind | keys | field type |
//! |---|---|---|
//! | scalar | `ty = "string"` (one of Strapi's scalar type names: `string`, `text`, `richtext`, `blocks`, `email`, `password`, `uid`, `enumeration`, `integer`, `biginteger`, `float`, `decimal`, `boolean`, `date`, `time`, `datetime`, `timestamp`, `json`); a custom field gives its **underlying** type here | `Field<String>`, `Field<i64>`, `Field<ArticleKind>` (an enumeration's enum), … |
//! | relation | `relation = "manyToOne"`, `target = "api::author.author"` (absent only for `morphTo*`), and `inversed_by = "articles"` or `mapped_by = "author"` on two-way relations | `Field<One<Author>>` (to-one) or `Field<Many<Tag>>` (to-many) |
//! | media | `media`, plus the flag `multiple` for multiple media | `Field<One<UploadFile>>` or `Field<Many<UploadFile>>` |
//! | component | `component = "shared.seo"`, plus the flag `repeatable` | `Field<SharedSeo>` or `Field<Vec<SharedFaqItem>>` |
//! | dynamic zone | `dynamic_zone = "shared.rich-text,shared.quote"` (uids in schema order) | `Field<Vec<ArticleBlocks>>`, the enum deriving `DynamicZone` |
//!
//! A relation whose Rust type is not one of these is described and can be populated, but
//! typed paths and populate options do not go through it. Polymorphic relations
//! (`morphTo*`, `morphOne`, `morphMany`, e.g. typed `Field<Json>`) are only described: the
//! content API cannot filter, sort or populate them.
//!
//! Options, on any attribute (each only when set in the schema):
//!
//! | key | schema |
//! |---|---|
//! | `position = 4` | the attribute's index in the schema (see above) |
//! | `required` | `required: true` |
//! | `unique` | `unique: true` |
//! | `private` | `private: true` (only inside `private_attr`: private attributes are not fields) |
//! | `min = "1"`, `max = "10.5"` | `min`/`max` of a scalar, the JSON number as text (a plain number literal is accepted too) |
//! | `min = 1`, `max = 3` | `min`/`max` items of a repeatable component or a dynamic zone |
//! | `allowed_types = "images,files"` | `allowedTypes` of a media attribute |
//! | `min_length = 3`, `max_length = 50` | `minLength`/`maxLength` |
//! | `regex = "^[a-z]+$"` | `regex` |
//! | `default = "<json text>"` | `default`, as JSON text (`"false"`, `"\"news\""`, `"3"`) |
//! | `enum_values = "a,b,c"` or `enum_values("a", "b,c")` | `enum` of an enumeration (the list form for values with commas) |
//! | `target_field = "title"` | `targetField` of a uid |
//! | `localized = true` / `localized = false` | the attribute's `pluginOptions.i18n.localized`, when given |
//! | `custom_field = "plugin::color-picker.color"` | `customField` |
//!
//! # Private attributes
//!
//! Private attributes (and passwords) never leave the server, so they are **not** fields.
//! They are listed at the struct level so that the description still equals the model:
//!
//! ```text
//! #[strata(private_attr(attr = "password", position = 3, ty = "password", min_length = 6))]
//! #[strata(private_attr(attr = "folder", position = 16, relation = "manyToOne",
//!                       target = "plugin::upload.folder", inversed_by = "files"))]
//! #[strata(private_attr(attr = "related", position = 15, relation = "morphToMany"))]
//! ```
//!
//! `private_attr(...)` takes the same keys as an attribute field; `position` is required
//! there, and `private` is implied.
//!
//! # Dynamic zones
//!
//! ```text
//! #[derive(Debug, Clone, PartialEq, ::strata::serde::Serialize, ::strata::serde::Deserialize,
//!          ::strata::schemars::JsonSchema, ::strata::DynamicZone)]
//! #[serde(crate = "::strata::serde")]
//! #[schemars(crate = "::strata::schemars")]
//! #[serde(tag = "__component")]
//! pub enum ArticleBlocks {
//!     #[serde(rename = "shared.rich-text")]
//!     SharedRichText(SharedRichText),
//!     #[serde(rename = "shared.quote")]
//!     SharedQuote(SharedQuote),
//! }
//! ```
//!
//! Every newtype variant's type must be a component (deriving `Component`); unit variants
//! (e.g. a `#[serde(other)]` catch-all) are allowed and ignored. The derive records which
//! components belong to the zone, for `.on::<SharedQuote>(…)` in typed populate.
//!
//! # What the derives generate
//!
//! For a struct `Article` (with visibility `pub`), `#[derive(ContentType)]` generates, next
//! to it:
//!
//! * `impl ContentType for Article` and `impl Typed for Article`;
//! * `impl Localized for Article` when `localized` is set;
//! * `pub mod article` (the struct name in snake case): one marker type per field that can
//!   be named in a query (named like the field: `article::title`, `article::created_at`,
//!   `article::localizations`), and the entry points `article::query()`,
//!   `article::filter()` and `article::sort()`;
//! * `pub struct ArticlePath<R>`: the path builder (one method per field);
//! * `pub struct ArticlePopulate` with one associated constant per attribute field, in
//!   PascalCase (`ArticlePopulate::Author`, `ArticlePopulate::Blocks`, and
//!   `ArticlePopulate::Localizations` on localized types);
//! * `pub enum ArticleField`: the scalar fields `fields` can select, in PascalCase
//!   (`ArticleField::Title`, `ArticleField::CreatedAt`, …).
//!
//! `#[derive(Component)]` on `SharedSeo` generates the same items (`shared_seo`,
//! `SharedSeoPath`, `SharedSeoPopulate`, `SharedSeoField`); its module has `filter()` and
//! `sort()` (for the options of a populated component) but no `query()`.
//! `#[derive(DynamicZone)]` generates `impl InZone<ArticleBlocks>` for each component type.
//!
//! Derive at module level (the generated module refers to its siblings through `super::`).

mod attrs;
mod expand;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

use expand::Which;

/// `#[derive(ContentType)]`: see the [crate documentation](crate).
#[proc_macro_derive(ContentType, attributes(strata))]
pub fn derive_content_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive_schema(&input, Which::ContentType)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(Component)]`: see the [crate documentation](crate).
#[proc_macro_derive(Component, attributes(strata))]
pub fn derive_component(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive_schema(&input, Which::Component)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(DynamicZone)]`: see the [crate documentation](crate).
#[proc_macro_derive(DynamicZone, attributes(strata))]
pub fn derive_dynamic_zone(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive_zone(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
