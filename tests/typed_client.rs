//! The typed client (`strata::client`) against the real server on loopback, over a copy of
//! Strapi's own database: typed filters and populate, find-one, Strapi's 404 and 400 bodies
//! as typed errors, and every typed answer equal to the JSON the server sends.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}
mod common;

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};
use strata::client::{Client, ClientError};
use strata::http::{self, AppState, ServerConfig};
use strata::query::Status;
use strata::schema;
use strata::store::{DatabaseUrl, Store};
use strata::typed::{ContentType, Field, Many, One, TypedQuery};

use blog::{
    ArticleField, ArticlePopulate, AuthorField, AuthorPopulate, SharedSeoPopulate, article, author,
    tag,
};

/// The server, started once for all tests of this file.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| common::start_blog_server("typed-client"))
}

fn client() -> Client {
    Client::new(format!("http://{}", server()))
}

/// What the server sends for `path?query`, as JSON.
fn server_json(path: &str, query: &str) -> (u16, Value) {
    let (status, _, body) = common::http_get(server(), &format!("{path}?{query}"), &[]);
    (status, serde_json::from_slice(&body).unwrap())
}

fn assert_same_json(expected: &Value, actual: &impl serde::Serialize) {
    let actual = serde_json::to_value(actual).unwrap();
    if let Some(diff) = common::first_difference(expected, &actual, "$") {
        panic!("the typed answer differs from the server's JSON: {diff}");
    }
}

#[tokio::test]
async fn typed_filter_and_populate() {
    let query = article::query()
        .filter(
            article::filter()
                .author()
                .name()
                .eqi("ada lovelace")
                .and(article::filter().views().gte(0)),
        )
        .populate(ArticlePopulate::Author.fields([AuthorField::Name]))
        .populate(ArticlePopulate::Tags.sort(tag::sort().name().asc()))
        .fields([ArticleField::Title, ArticleField::Views])
        .sort(article::sort().title().asc())
        .page(1, 5);
    let page = client().find(&query).await.unwrap();
    assert!(!page.data.is_empty());
    for article in &page.data {
        let Field::Set(One::Entry(author)) = &article.author else {
            panic!("author populated: {article:?}");
        };
        assert_eq!(
            author.name.as_ref().map(String::as_str),
            Some("Ada Lovelace")
        );
        assert!(matches!(article.tags, Field::Set(Many::Entries(_))));
        assert!(
            article.slug.is_absent(),
            "only title and views were selected"
        );
    }
    let titles: Vec<_> = page
        .data
        .iter()
        .map(|a| a.title.as_ref().cloned())
        .collect();
    let mut sorted = titles.clone();
    sorted.sort();
    assert_eq!(titles, sorted);

    let (status, body) = server_json("/api/articles", &query.to_query_string());
    assert_eq!(status, 200);
    assert_same_json(&body, &page);
    assert_eq!(
        page.meta.pagination.total(),
        body["meta"]["pagination"]["total"].as_u64()
    );
}

#[tokio::test]
async fn offset_pagination_and_counts() {
    let query = author::query()
        .populate(AuthorPopulate::Articles.count())
        .sort(author::sort().name().asc())
        .offset(1, 2);
    let page = client().find(&query).await.unwrap();
    assert_eq!(page.data.len(), 2);
    assert!(matches!(
        page.meta.pagination,
        strata::typed::PaginationMeta::Offset(strata::typed::OffsetPagination {
            start: 1,
            limit: 2,
            total: Some(_)
        })
    ));
    assert!(matches!(page.data[0].articles, Field::Set(Many::Count(_))));
    let (_, body) = server_json("/api/authors", &query.to_query_string());
    assert_same_json(&body, &page);
}

#[tokio::test]
async fn find_one_and_not_found() {
    let query = article::query()
        .populate(ArticlePopulate::Tags)
        .populate(ArticlePopulate::Seo.populate(SharedSeoPopulate::Social));
    let id = "article00000000000000001";
    let article = client().find_one(id, &query).await.unwrap().expect("found");
    assert_eq!(article.document_id, id);
    assert_eq!(
        article.title.as_ref().map(String::as_str),
        Some("Hello World")
    );
    let (status, body) = server_json(&format!("/api/articles/{id}"), &query.to_query_string());
    assert_eq!(status, 200);
    assert_same_json(&body["data"], &article);

    // A document that does not exist, and one that exists only as a draft: Strapi's 404.
    let missing = client()
        .find_one("nope00000000000000000000", &query)
        .await
        .unwrap();
    assert!(missing.is_none());
    let draft_only = article::query();
    assert!(
        client()
            .find_one("article00000000000000023", &draft_only)
            .await
            .unwrap()
            .is_none()
    );
    let draft = article::query().status(Status::Draft);
    assert!(
        client()
            .find_one("article00000000000000023", &draft)
            .await
            .unwrap()
            .is_some()
    );
}

#[tokio::test]
async fn server_errors_are_typed() {
    // The public role of the recording may not find secrets: a 403 with Strapi's body.
    let err = client()
        .find(&TypedQuery::<blog::Secret>::new())
        .await
        .unwrap_err();
    let ClientError::Api {
        status,
        name,
        message,
        details,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(
        (*status, name.as_str(), message.as_str()),
        (403, "ForbiddenError", "Forbidden")
    );
    assert_eq!(details, &json!({}));

    // A query the typed model allows but the server's public role does not: a 400
    // ValidationError with Strapi's message and details.
    let query = article::query()
        .filter(article::filter().secret().label().eq("x"))
        .fields([ArticleField::Title]);
    let err = client().find(&query).await.unwrap_err();
    let (status, body) = server_json("/api/articles", &query.to_query_string());
    assert_eq!(status, 400);
    match &err {
        ClientError::Api {
            status,
            name,
            message,
            details,
        } => {
            assert_eq!(*status, 400);
            assert_eq!(name, body["error"]["name"].as_str().unwrap());
            assert_eq!(message, body["error"]["message"].as_str().unwrap());
            assert_eq!(details, &body["error"]["details"]);
            assert_eq!(name, "ValidationError");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.status(), Some(400));

    // A wrong prefix: `find` reports Strapi's 404 body.
    let err = client()
        .with_prefix("/v1")
        .find(&TypedQuery::<blog::Tag>::new())
        .await
        .unwrap_err();
    assert_eq!(
        (err.status(), err.name()),
        (Some(404), Some("NotFoundError"))
    );
}

#[tokio::test]
async fn transport_and_decode_errors() {
    // A loopback port nothing listens on any more: connection refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let err = Client::new(format!("http://{closed}"))
        .find(&TypedQuery::<blog::Tag>::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Transport { .. }), "{err:?}");

    // An answer that does not fit the type: tags read as a type whose `name` is a number.
    #[derive(Debug, serde::Serialize, serde::Deserialize)]
    struct BadTag {
        id: i64,
        name: i64,
    }
    impl ContentType for BadTag {
        const UID: &'static str = "api::tag.tag";
        const PLURAL: &'static str = "tags";
        const SINGULAR: &'static str = "tag";
        const KIND: schema::SchemaKind = schema::SchemaKind::CollectionType;
        fn model() -> &'static schema::Model {
            blog::model()
        }
    }
    let err = client()
        .find(&TypedQuery::<BadTag>::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("BadTag"), "{err}");
}

#[tokio::test]
async fn bearer_token_and_accept_header_are_sent() {
    // A stand-in server that answers like Strapi: 401 without the right token.
    use axum::http::{HeaderMap, StatusCode};
    async fn tags(headers: HeaderMap) -> (StatusCode, String) {
        let auth = headers.get("authorization").and_then(|v| v.to_str().ok());
        let accept = headers.get("accept").and_then(|v| v.to_str().ok());
        if auth == Some("Bearer t0k3n") && accept == Some("application/json") {
            let body = json!({"data": [{"id": 1, "documentId": "t1", "name": "rust"}],
                "meta": {"pagination": {"page": 1, "pageSize": 25, "pageCount": 1, "total": 1}}});
            (StatusCode::OK, body.to_string())
        } else {
            let body = json!({"data": null, "error": {"status": 401, "name": "UnauthorizedError",
                "message": "Missing or invalid credentials", "details": {}}});
            (StatusCode::UNAUTHORIZED, body.to_string())
        }
    }
    let app = axum::Router::new().route("/cms/tags", axum::routing::get(tags));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let base = Client::new(format!("http://{addr}/")).with_prefix("cms");
    let page = base
        .clone()
        .with_token("t0k3n")
        .find(&TypedQuery::<blog::Tag>::new())
        .await
        .unwrap();
    assert_eq!(page.data[0].name.as_ref().map(String::as_str), Some("rust"));
    let err = base
        .find(&TypedQuery::<blog::Tag>::new())
        .await
        .unwrap_err();
    assert_eq!(
        (err.status(), err.name()),
        (Some(401), Some("UnauthorizedError"))
    );
}

/// A single type (the blog has none): `api::homepage.homepage`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Homepage {
    id: i64,
    document_id: String,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    headline: Field<String>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    created_at: Field<strata::typed::DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    updated_at: Field<strata::typed::DateTime>,
    #[serde(default, skip_serializing_if = "Field::is_absent")]
    published_at: Field<strata::typed::DateTime>,
}

static HOMEPAGE_FILES: &[(&str, &str)] = &[(
    "api/homepage/content-types/homepage/schema.json",
    r#"{"kind": "singleType", "collectionName": "homepages",
        "info": {"singularName": "homepage", "pluralName": "homepages", "displayName": "Homepage"},
        "options": {"draftAndPublish": false},
        "attributes": {"headline": {"type": "string"}}}"#,
)];

impl ContentType for Homepage {
    const UID: &'static str = "api::homepage.homepage";
    const PLURAL: &'static str = "homepages";
    const SINGULAR: &'static str = "homepage";
    const KIND: schema::SchemaKind = schema::SchemaKind::SingleType;
    fn model() -> &'static schema::Model {
        static MODEL: OnceLock<schema::Model> = OnceLock::new();
        strata::typed::embedded_model(&MODEL, HOMEPAGE_FILES)
    }
}

#[tokio::test]
async fn single_types() {
    use strata::store::{sqlite, sqlite::ddl};
    let dir = std::env::temp_dir().join(format!("strata-typed-single-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let url = DatabaseUrl::parse(&format!("sqlite://{}", dir.join("home.db").display())).unwrap();
    let model = Homepage::model();
    let mut conn = sqlite::open_connection(&url, true).unwrap();
    ddl::create_database(&conn, model).unwrap();
    ddl::seed_public_permissions(&conn, model, &["api::homepage.homepage.find".into()]).unwrap();
    let store = Arc::new(Store::open_existing(&url, Arc::new(model.clone()), 1).unwrap());
    let app = http::router(AppState::new(store.clone(), ServerConfig::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let client = Client::new(format!("http://{addr}"));
    tokio::spawn(async move { axum::serve(listener, app).await });

    // No entry yet: Strapi's 404, read as `None`, on the client and on the store.
    let query = TypedQuery::<Homepage>::new();
    assert!(client.find_single(&query).await.unwrap().is_none());
    assert!(store.find_single(&query).unwrap().is_none());

    let dataset = dir.join("home.json");
    std::fs::write(
        &dataset,
        r#"{"format": "strata-dataset/1", "documents": [
            {"type": "api::homepage.homepage", "key": "home", "data": {"headline": "Welcome"}}]}"#,
    )
    .unwrap();
    sqlite::import::import_dataset(&mut conn, model, &dataset, &|_, _| {}).unwrap();
    let home = client.find_single(&query).await.unwrap().expect("an entry");
    assert_eq!(home.headline.as_ref().map(String::as_str), Some("Welcome"));
    let target = format!("/api/homepage?{}", query.to_query_string());
    let (_, _, body) = tokio::task::spawn_blocking(move || common::http_get(addr, &target, &[]))
        .await
        .unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_same_json(&body["data"], &home);
    let local = store.find_single(&query).unwrap().expect("an entry");
    assert_eq!(local.document_id, home.document_id);

    // Collection methods on a single type say what to use instead.
    let err = client.find(&query).await.unwrap_err();
    assert!(
        matches!(&err, ClientError::Usage(m) if m.contains("find_single")),
        "{err:?}"
    );
    drop(conn);
    let _ = std::fs::remove_dir_all(&dir);
}
