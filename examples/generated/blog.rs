// Typed Rust for the bundled blog schemas (`schemas/`).
//
// STAND-IN: hand-written in the shape of `strata generate` output, following the contract in
// `strata::typed` (entry structs in the flat v5 shape, every key but `id`/`documentId` a
// `Field`, relations as `One`/`Many`, dynamic zones tagged by `__component`). It is replaced
// by `strata generate --schemas schemas --out examples/generated/blog.rs` once the generator
// lands; `tests/typed_goldens.rs` checks it against every recorded Strapi answer.

#![allow(dead_code, missing_docs, clippy::enum_variant_names)]

use std::sync::OnceLock;

use ::serde::{Deserialize, Serialize};
use ::strata::schema::{Model, SchemaKind};
use ::strata::typed::{
    BigInt, Blocks, ContentType, Date, DateTime, Decimal, Field, Json, Many, One, Time,
    embedded_model,
};

/// The schema files these types were written from (paths relative to `schemas/`).
pub static SCHEMA_FILES: &[(&str, &str)] = &[
    (
        "api/article/content-types/article/schema.json",
        include_str!("../../schemas/api/article/content-types/article/schema.json"),
    ),
    (
        "api/author/content-types/author/schema.json",
        include_str!("../../schemas/api/author/content-types/author/schema.json"),
    ),
    (
        "api/category/content-types/category/schema.json",
        include_str!("../../schemas/api/category/content-types/category/schema.json"),
    ),
    (
        "api/secret/content-types/secret/schema.json",
        include_str!("../../schemas/api/secret/content-types/secret/schema.json"),
    ),
    (
        "api/tag/content-types/tag/schema.json",
        include_str!("../../schemas/api/tag/content-types/tag/schema.json"),
    ),
    (
        "components/shared/faq-item.json",
        include_str!("../../schemas/components/shared/faq-item.json"),
    ),
    (
        "components/shared/media.json",
        include_str!("../../schemas/components/shared/media.json"),
    ),
    (
        "components/shared/quote.json",
        include_str!("../../schemas/components/shared/quote.json"),
    ),
    (
        "components/shared/rich-text.json",
        include_str!("../../schemas/components/shared/rich-text.json"),
    ),
    (
        "components/shared/seo.json",
        include_str!("../../schemas/components/shared/seo.json"),
    ),
    (
        "components/shared/slider.json",
        include_str!("../../schemas/components/shared/slider.json"),
    ),
    (
        "components/shared/social-link.json",
        include_str!("../../schemas/components/shared/social-link.json"),
    ),
];

/// The content model of these types.
pub fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    embedded_model(&MODEL, SCHEMA_FILES)
}

macro_rules! content_type {
    ($ty:ident, $uid:literal, $plural:literal, $singular:literal) => {
        impl ContentType for $ty {
            const UID: &'static str = $uid;
            const PLURAL: &'static str = $plural;
            const SINGULAR: &'static str = $singular;
            const KIND: SchemaKind = SchemaKind::CollectionType;
            fn model() -> &'static Model {
                model()
            }
        }
    };
}

/// A built-in entry (upload file, user, role), kept as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuiltinEntry {
    pub id: i64,
    #[serde(rename = "documentId")]
    pub document_id: String,
    #[serde(flatten)]
    pub other: ::serde_json::Map<String, ::serde_json::Value>,
}

/// `plugin::upload.file`.
pub type UploadFile = BuiltinEntry;
/// `plugin::users-permissions.user`.
pub type User = BuiltinEntry;

/// `api::article.article`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Article {
    pub id: i64,
    pub document_id: String,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub title: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub slug: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub description: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub content: Field<Blocks>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub body: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub views: Field<i64>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub word_count: Field<BigInt>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub rating: Field<f64>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub price: Field<Decimal>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub featured: Field<bool>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub publish_date: Field<Date>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub event_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub start_time: Field<Time>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub kind: Field<ArticleKind>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub metadata: Field<Json>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub contact_email: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub cover: Field<One<UploadFile>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub gallery: Field<Many<UploadFile>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub author: Field<One<Author>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub category: Field<One<Category>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub tags: Field<Many<Tag>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub editor: Field<One<User>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub secret: Field<One<Secret>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub seo: Field<SharedSeo>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub faq: Field<Vec<SharedFaqItem>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub blocks: Field<Vec<ArticleBlocks>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub created_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub updated_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub published_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub locale: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub localizations: Field<Many<Article>>,
}
content_type!(Article, "api::article.article", "articles", "article");

/// `api::article.article` `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArticleKind {
    #[serde(rename = "news")]
    News,
    #[serde(rename = "tutorial")]
    Tutorial,
    #[serde(rename = "opinion")]
    Opinion,
}

/// `api::article.article` `blocks` (a dynamic zone).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "__component")]
pub enum ArticleBlocks {
    #[serde(rename = "shared.rich-text")]
    SharedRichText(SharedRichText),
    #[serde(rename = "shared.quote")]
    SharedQuote(SharedQuote),
    #[serde(rename = "shared.media")]
    SharedMedia(SharedMedia),
    #[serde(rename = "shared.slider")]
    SharedSlider(SharedSlider),
}

/// `api::author.author`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    pub id: i64,
    pub document_id: String,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub name: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub email: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub bio: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub avatar: Field<One<UploadFile>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub articles: Field<Many<Article>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub mentor: Field<One<Author>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub created_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub updated_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub published_at: Field<DateTime>,
}
content_type!(Author, "api::author.author", "authors", "author");

/// `api::category.category`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    pub id: i64,
    pub document_id: String,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub name: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub slug: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub articles: Field<Many<Article>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub parent: Field<One<Category>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub children: Field<Many<Category>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub created_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub updated_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub published_at: Field<DateTime>,
}
content_type!(Category, "api::category.category", "categories", "category");

/// `api::tag.tag`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    pub id: i64,
    pub document_id: String,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub name: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub articles: Field<Many<Article>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub created_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub updated_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub published_at: Field<DateTime>,
}
content_type!(Tag, "api::tag.tag", "tags", "tag");

/// `api::secret.secret`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Secret {
    pub id: i64,
    pub document_id: String,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub label: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub created_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub updated_at: Field<DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub published_at: Field<DateTime>,
}
content_type!(Secret, "api::secret.secret", "secrets", "secret");

/// `shared.faq-item`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedFaqItem {
    pub id: i64,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub question: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub answer: Field<String>,
}

/// `shared.media`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedMedia {
    pub id: i64,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub file: Field<One<UploadFile>>,
}

/// `shared.quote`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedQuote {
    pub id: i64,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub title: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub body: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub author: Field<One<Author>>,
}

/// `shared.rich-text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedRichText {
    pub id: i64,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub body: Field<String>,
}

/// `shared.seo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedSeo {
    pub id: i64,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub meta_title: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub meta_description: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub share_image: Field<One<UploadFile>>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub social: Field<Vec<SharedSocialLink>>,
}

/// `shared.slider`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedSlider {
    pub id: i64,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub files: Field<Many<UploadFile>>,
}

/// `shared.social-link`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedSocialLink {
    pub id: i64,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub network: Field<SharedSocialLinkNetwork>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub url: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    pub icon: Field<One<UploadFile>>,
}

/// `shared.social-link` `network`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SharedSocialLinkNetwork {
    #[serde(rename = "x")]
    X,
    #[serde(rename = "facebook")]
    Facebook,
    #[serde(rename = "linkedin")]
    Linkedin,
}
