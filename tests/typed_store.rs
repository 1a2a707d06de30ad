//! Typed queries straight against the store (`Store::find`, `find_one`), as an embedding
//! program runs them: the typed page equals what the HTTP endpoint sends for the same query,
//! and a store serving other schemas than the types were generated from is an error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}
mod common;

use std::sync::Arc;

use strata::query::{Permissions, QueryConfig, Status, parse_query};
use strata::schema::{self, Model, SchemaKind};
use strata::store::{DatabaseUrl, Store};
use strata::typed::{ContentType, Field, Many, One, TypedQuery};

use blog::{ArticleField, ArticlePopulate, AuthorPopulate, article, author};

fn store() -> Store {
    let (_, db) = common::blog_db_copy("typed-store");
    let model = Arc::new(schema::load(&common::blog().join("schemas")).unwrap());
    let url = DatabaseUrl::parse(&format!("sqlite://{}?mode=ro", db.display())).unwrap();
    Store::open_existing(&url, model, 1).unwrap()
}

fn typed<T: ContentType>(qs: &str) -> TypedQuery<T> {
    let model = T::model();
    let q = parse_query(
        qs,
        model,
        T::schema_id(),
        &Permissions::all(model),
        &QueryConfig::default(),
    )
    .unwrap_or_else(|e| panic!("{qs}: {e}"));
    TypedQuery::from_query(q)
}

/// The query as the HTTP endpoint would parse it against the store's own model, for a
/// caller who may find every type (typed store queries are trusted code: `populate=*`
/// includes `secret`, which the public role of the recording cannot see).
fn http_query(store: &Store, uid: &str, qs: &str) -> strata::query::Query {
    let model = store.model();
    let id = model.by_uid(uid).unwrap().id;
    parse_query(
        qs,
        model,
        id,
        &Permissions::all(model),
        &QueryConfig::default(),
    )
    .unwrap()
}

#[test]
fn typed_pages_equal_the_endpoint_bodies() {
    let store = store();
    for qs in [
        "",
        "filters[author][name][$eqi]=ada%20lovelace&populate[author][fields][0]=name&fields[0]=title",
        "populate=*&pagination[pageSize]=3&sort[0]=views:desc",
        "populate[blocks][on][shared.quote][populate]=author&populate[seo][populate]=*&locale=*",
        "status=draft&fields[0]=title&pagination[start]=2&pagination[limit]=4",
        "populate[tags][count]=true&pagination[withCount]=false",
    ] {
        let query = typed::<blog::Article>(qs);
        let page = store.find(&query).unwrap();
        let q = http_query(&store, blog::Article::UID, qs);
        let expected = common::body_value(&strata::http::envelope::list(
            &store.find_page(&q).unwrap(),
            &q.pagination,
        ));
        let total = page.total;
        let actual = serde_json::to_value(page.into_response()).unwrap();
        if let Some(diff) = common::first_difference(&expected, &actual, "$") {
            panic!("{qs}: {diff}");
        }
        assert_eq!(
            total,
            expected["meta"]["pagination"]["total"].as_u64(),
            "{qs}"
        );
    }
}

#[test]
fn typed_entries_have_typed_fields() {
    let store = store();
    let query = author::query()
        .populate(AuthorPopulate::Articles.fields([ArticleField::Title]))
        .sort(author::sort().name().asc());
    let page = store.find(&query).unwrap();
    assert!(page.total.unwrap() >= 3);
    let ada = page
        .entries
        .iter()
        .find(|a| a.name.as_ref().map(String::as_str) == Some("Ada Lovelace"))
        .unwrap();
    let Field::Set(Many::Entries(articles)) = &ada.articles else {
        panic!("{ada:?}")
    };
    assert!(
        articles
            .iter()
            .any(|a| a.title.as_ref().map(String::as_str) == Some("Hello World"))
    );
}

#[test]
fn find_one_by_document_id() {
    let store = store();
    let query = article::query().populate(ArticlePopulate::Author);
    let article = store
        .find_one("article00000000000000001", &query)
        .unwrap()
        .unwrap();
    assert_eq!(
        article.title.as_ref().map(String::as_str),
        Some("Hello World")
    );
    assert!(
        matches!(&article.author, Field::Set(One::Entry(a)) if a.name.as_ref().map(String::as_str) == Some("Ada Lovelace"))
    );
    let expected = store
        .find_entry(
            &http_query(&store, blog::Article::UID, "populate[author]=true"),
            Some("article00000000000000001"),
        )
        .unwrap()
        .map(|e| common::body_value(&strata::http::envelope::one(&e)))
        .unwrap();
    assert_eq!(
        common::first_difference(
            &expected["data"],
            &serde_json::to_value(&article).unwrap(),
            "$"
        ),
        None
    );
    assert!(
        store
            .find_one("nope00000000000000000000", &query)
            .unwrap()
            .is_none()
    );
    // Only a draft: absent when published entries are asked for.
    assert!(
        store
            .find_one(
                "article00000000000000023",
                &TypedQuery::<blog::Article>::new()
            )
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .find_one(
                "article00000000000000023",
                &article::query().status(Status::Draft)
            )
            .unwrap()
            .is_some()
    );
}

/// Types generated from other schemas than the store serves: an article type whose model
/// has an extra `subtitle` attribute.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct NewerArticle {
    id: i64,
}

fn newer_model() -> &'static Model {
    static MODEL: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
    static FILES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    let files = FILES.get_or_init(|| {
        blog::SCHEMA_FILES
            .iter()
            .map(|(path, text)| {
                let text = if path.starts_with("api/article/") {
                    text.replacen(
                        "\"attributes\": {",
                        "\"attributes\": {\n    \"subtitle\": { \"type\": \"string\" },",
                        1,
                    )
                } else {
                    text.to_string()
                };
                (path.to_string(), text)
            })
            .collect()
    });
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    strata::typed::embedded_model(&MODEL, &refs)
}

impl ContentType for NewerArticle {
    const UID: &'static str = "api::article.article";
    const PLURAL: &'static str = "articles";
    const SINGULAR: &'static str = "article";
    const KIND: SchemaKind = SchemaKind::CollectionType;
    fn model() -> &'static Model {
        newer_model()
    }
}

#[test]
fn a_query_on_other_schemas_is_an_error_not_a_wrong_answer() {
    let store = store();
    assert!(
        newer_model()
            .by_uid(NewerArticle::UID)
            .unwrap()
            .attribute("subtitle")
            .is_some()
    );
    // `title` is attribute 1 in the newer model and 0 in the store's: the names decide.
    let ok = store
        .find(&typed::<NewerArticle>("fields[0]=title"))
        .unwrap();
    assert_eq!(ok.entries.len(), 25);
    let err = store
        .find(&typed::<NewerArticle>("filters[subtitle][$eq]=x"))
        .unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("subtitle") && message.contains("api::article.article"),
        "{message}"
    );
}
