//! Typed writes, with the input types generated for the blog (`tests/generated/blog.rs`):
//! on the embedded store (`Store::create`/`update`/`delete`) over a writable copy of
//! Strapi's own SQLite database, and through the typed client against the real server on
//! loopback over another copy. Each step is checked by reading the database back (the
//! store's read path, or a `GET` to the server), not by looking at what the write echoed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}
mod common;

use std::sync::Arc;

use serde_json::Value;
use strata::client::{Client, ClientError};
use strata::query::Status;
use strata::schema;
use strata::store::{DatabaseUrl, Store};
use strata::typed::{
    DocumentId, Field, Many, One, Patch, RelationInput, RelationPosition, StoreWriteError,
    TypedQuery, WriteOptions,
};

use blog::{
    Article, ArticleBlocks, ArticleBlocksInput, ArticleCreateInput, ArticleKind, ArticlePopulate,
    ArticleUpdateInput, Author, SharedQuoteInput, SharedRichTextInput, SharedSeoInput, Tag,
    article,
};

const ADA: &str = "author000000000000000001";
const JAVASCRIPT: &str = "tag000000000000000000001";
const PYTHON: &str = "tag000000000000000000002";
const RUST: &str = "tag000000000000000000003";
const DATABASES: &str = "tag000000000000000000004";

fn tag(id: &str) -> DocumentId<Tag> {
    DocumentId::new(id)
}

/// A store over a writable copy of the blog database (the folder is removed by the caller).
fn store(tag: &str) -> (std::path::PathBuf, Store) {
    let (dir, db) = common::blog_db_copy(tag);
    let model = Arc::new(schema::load(&common::blog().join("schemas")).unwrap());
    let url = DatabaseUrl::parse(&format!("sqlite://{}", db.display())).unwrap();
    (dir, Store::open_existing(&url, model, 1).unwrap())
}

/// A draft with scalars, a relation (shorthand), a to-many relation (`set`), a
/// component, a dynamic zone and media.
fn draft_input(title: &str) -> ArticleCreateInput {
    ArticleCreateInput {
        title: Some(title.into()),
        views: Some(7),
        kind: Some(ArticleKind::Tutorial),
        cover: Some(3),
        author: Some(DocumentId::<Author>::new(ADA).into()),
        tags: Some(RelationInput::set([tag(RUST), tag(PYTHON)])),
        seo: Some(SharedSeoInput {
            meta_title: Some("Typed SEO".into()),
            ..SharedSeoInput::new()
        }),
        blocks: Some(vec![
            SharedRichTextInput {
                body: Some("**bold**".into()),
                ..SharedRichTextInput::new()
            }
            .into(),
            ArticleBlocksInput::SharedQuote(SharedQuoteInput {
                title: Some("Quoted".into()),
                author: Some(RelationInput::new().connect(DocumentId::<Author>::new(ADA))),
                ..SharedQuoteInput::new()
            }),
        ]),
        ..ArticleCreateInput::new()
    }
}

/// The query that reads a version back with its relations, component and zone.
fn populated(status: Status) -> TypedQuery<Article> {
    article::query()
        .status(status)
        .populate(ArticlePopulate::Author)
        .populate(ArticlePopulate::Tags.sort(blog::tag::sort().name().asc()))
        .populate(ArticlePopulate::Seo)
        .populate(ArticlePopulate::Blocks)
        .populate(ArticlePopulate::Cover)
}

fn text(f: &Field<String>) -> Option<&str> {
    f.as_ref().map(String::as_str)
}

/// The names of the populated tags, in the relation's order (`populate[tags]` without a
/// sort).
fn tag_order(store: &Store, id: &DocumentId<Article>, status: Status) -> Vec<String> {
    let query = article::query()
        .status(status)
        .populate(ArticlePopulate::Tags);
    let entry = store.find_one(id.as_str(), &query).unwrap().unwrap();
    tag_names(&entry)
}

fn tag_names(entry: &Article) -> Vec<String> {
    match &entry.tags {
        Field::Set(Many::Entries(tags)) => tags
            .iter()
            .map(|t| text(&t.name).unwrap_or_default().to_string())
            .collect(),
        other => panic!("tags not populated: {other:?}"),
    }
}

#[test]
fn the_store_creates_a_draft_with_relations_components_zones_and_media() {
    let (dir, store) = store("typed-writes-create");
    let created = store
        .create(&draft_input("Typed draft"), &WriteOptions::draft())
        .unwrap();
    assert_eq!(text(&created.title), Some("Typed draft"));
    assert_eq!(created.published_at, Field::Null);
    let id = DocumentId::<Article>::new(created.document_id.clone());

    let read = store
        .find_one(id.as_str(), &populated(Status::Draft))
        .unwrap()
        .unwrap();
    assert_eq!(read.views, Field::Set(7));
    assert_eq!(read.kind, Field::Set(ArticleKind::Tutorial));
    assert_eq!(text(&read.locale), Some("en"));
    let Field::Set(One::Entry(author)) = &read.author else {
        panic!("{:?}", read.author)
    };
    assert_eq!(text(&author.name), Some("Ada Lovelace"));
    assert_eq!(tag_names(&read), ["Python", "RUST"]);
    let Field::Set(seo) = &read.seo else {
        panic!("{:?}", read.seo)
    };
    assert_eq!(text(&seo.meta_title), Some("Typed SEO"));
    let Field::Set(One::Entry(cover)) = &read.cover else {
        panic!("{:?}", read.cover)
    };
    assert_eq!(cover.id, 3);
    match read.blocks.as_ref().map(Vec::as_slice) {
        Some(
            [
                ArticleBlocks::SharedRichText(rich),
                ArticleBlocks::SharedQuote(quote),
            ],
        ) => {
            assert_eq!(text(&rich.body), Some("**bold**"));
            assert_eq!(text(&quote.title), Some("Quoted"));
        }
        other => panic!("{other:?}"),
    }
    // A draft: nothing published.
    let published = store.find_one(id.as_str(), &article::query()).unwrap();
    assert!(published.is_none(), "{published:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_store_updates_sets_clears_keeps_publishes_relates_localizes_and_deletes() {
    let (dir, store) = store("typed-writes-update");
    let created = store
        .create(&draft_input("Before"), &WriteOptions::draft())
        .unwrap();
    let id = DocumentId::<Article>::new(created.document_id.clone());

    // Set the title, clear views and the component, keep the rest; publish.
    let update = ArticleUpdateInput {
        title: Patch::Set("After".into()),
        views: Patch::Clear,
        seo: Patch::Clear,
        ..ArticleUpdateInput::default()
    };
    let updated = store
        .update(&id, &update, &WriteOptions::published())
        .unwrap();
    assert!(matches!(updated.published_at, Field::Set(_)), "{updated:?}");
    let read = store
        .find_one(id.as_str(), &populated(Status::Published))
        .unwrap()
        .expect("published");
    assert_eq!(text(&read.title), Some("After"));
    assert_eq!(read.views, Field::Null);
    assert_eq!(read.seo, Field::Null);
    assert_eq!(read.kind, Field::Set(ArticleKind::Tutorial), "kept");
    assert_eq!(tag_names(&read), ["Python", "RUST"], "kept");

    // Relate: connect before an entry, disconnect another; then replace with `set`.
    let relate = ArticleUpdateInput {
        tags: RelationInput::new()
            .connect_at(tag(JAVASCRIPT), RelationPosition::before(tag(RUST)))
            .disconnect(tag(PYTHON))
            .into(),
        ..ArticleUpdateInput::default()
    };
    store.update(&id, &relate, &WriteOptions::draft()).unwrap();
    assert_eq!(
        tag_order(&store, &id, Status::Draft),
        ["javascript", "RUST"]
    );
    assert_eq!(
        tag_order(&store, &id, Status::Published),
        ["RUST", "Python"],
        "a draft update leaves the published version"
    );
    let set = ArticleUpdateInput {
        tags: RelationInput::set([tag(DATABASES)]).into(),
        author: Patch::Clear,
        ..ArticleUpdateInput::default()
    };
    let after_set = store.update(&id, &set, &WriteOptions::draft()).unwrap();
    assert_eq!(after_set.published_at, Field::Null, "the draft answered");
    assert_eq!(tag_order(&store, &id, Status::Draft), ["Databases"]);
    let draft = store
        .find_one(id.as_str(), &populated(Status::Draft))
        .unwrap()
        .unwrap();
    assert_eq!(draft.author, Field::Null);

    // A locale: the French version is added; the English one stays.
    let french = ArticleUpdateInput {
        title: Patch::Set("Après".into()),
        ..ArticleUpdateInput::default()
    };
    let fr = store
        .update(&id, &french, &WriteOptions::published().locale("fr"))
        .unwrap();
    assert_eq!(text(&fr.locale), Some("fr"));
    let read_fr = store
        .find_one(id.as_str(), &article::query().locale("fr"))
        .unwrap()
        .unwrap();
    assert_eq!(text(&read_fr.title), Some("Après"));
    let read_en = store
        .find_one(id.as_str(), &article::query())
        .unwrap()
        .unwrap();
    assert_eq!(text(&read_en.title), Some("After"));

    // Delete one locale, then every locale.
    store
        .delete(&id, &WriteOptions::published().locale("fr"))
        .unwrap();
    assert!(
        store
            .find_one(id.as_str(), &article::query().locale("fr"))
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .find_one(id.as_str(), &article::query())
            .unwrap()
            .is_some()
    );
    store
        .delete(&id, &WriteOptions::published().locale("*"))
        .unwrap();
    let gone = store
        .find_one(id.as_str(), &article::query().status(Status::Draft))
        .unwrap();
    assert!(gone.is_none(), "{gone:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_store_answers_strapis_errors_typed() {
    let (dir, store) = store("typed-writes-errors");
    let bad = ArticleCreateInput {
        title: Some("Bad email".into()),
        contact_email: Some("not-an-email".into()),
        ..ArticleCreateInput::new()
    };
    let err = store.create(&bad, &WriteOptions::published()).unwrap_err();
    let StoreWriteError::Validation(v) = &err else {
        panic!("{err:?}")
    };
    let failure = v.at(&["contactEmail"]).expect("a failure at contactEmail");
    assert_eq!(failure.message, "contactEmail must be a valid email");
    // Nothing was written.
    let query = article::query()
        .status(Status::Draft)
        .filter(article::filter().title().eq("Bad email"));
    assert_eq!(store.find(&query).unwrap().total, Some(0));

    let missing = DocumentId::<Article>::new("article99999999999999999");
    let err = store
        .update(
            &missing,
            &ArticleUpdateInput::default(),
            &WriteOptions::published(),
        )
        .unwrap_err();
    assert!(matches!(err, StoreWriteError::NotFound), "{err:?}");
    let err = store.delete(&missing, &WriteOptions::draft()).unwrap_err();
    assert!(
        matches!(&err, StoreWriteError::Validation(v) if v.message == "Cannot delete a draft document"),
        "{err:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The server over a writable copy with every grant, and its client.
fn server(tag: &str) -> (std::path::PathBuf, std::net::SocketAddr, Client) {
    let (dir, db) = common::blog_db_copy(tag);
    let addr = common::serve_with_every_grant(&format!("sqlite://{}", db.display()), 2);
    (dir, addr, Client::new(format!("http://{addr}")))
}

/// `GET path` on the server: the status and the JSON body.
async fn get(addr: std::net::SocketAddr, path: String) -> (u16, Value) {
    let (status, _, body) = tokio::task::spawn_blocking(move || common::http_get(addr, &path, &[]))
        .await
        .unwrap();
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body).unwrap()
    };
    (status, body)
}

fn names(body: &Value) -> Vec<&str> {
    body["data"]["tags"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_client_creates_updates_relates_publishes_localizes_and_deletes() {
    let (dir, addr, client) = server("typed-writes-client");
    let created = client
        .create(&draft_input("Client draft"), &WriteOptions::draft())
        .await
        .unwrap();
    assert_eq!(created.published_at, Field::Null);
    let id = DocumentId::<Article>::new(created.document_id.clone());
    let path = |query: &str| format!("/api/articles/{id}?{query}");

    let (status, body) = get(addr, path("status=draft&populate[0]=tags&populate[1]=seo")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["title"], "Client draft");
    assert_eq!(body["data"]["seo"]["metaTitle"], "Typed SEO");
    assert_eq!(names(&body), ["RUST", "Python"]);
    assert_eq!(get(addr, path("")).await.0, 404, "not published");

    // Set, clear and keep; publish through the status.
    let update = ArticleUpdateInput {
        title: Patch::Set("Client published".into()),
        views: Patch::Clear,
        tags: RelationInput::new()
            .connect_at(tag(JAVASCRIPT), RelationPosition::Start)
            .disconnect(tag(RUST))
            .into(),
        ..ArticleUpdateInput::default()
    };
    let updated = client
        .update(&id, &update, &WriteOptions::published())
        .await
        .unwrap();
    assert!(matches!(updated.published_at, Field::Set(_)));
    let (status, body) = get(addr, path("populate=tags")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["title"], "Client published");
    assert_eq!(body["data"]["views"], Value::Null);
    assert_eq!(body["data"]["kind"], "tutorial", "kept");
    assert_eq!(names(&body), ["javascript", "Python"]);

    // `set` replaces the relation.
    let set = ArticleUpdateInput {
        tags: RelationInput::set([tag(DATABASES), tag(RUST)]).into(),
        ..ArticleUpdateInput::default()
    };
    client
        .update(&id, &set, &WriteOptions::published())
        .await
        .unwrap();
    assert_eq!(
        names(&get(addr, path("populate=tags")).await.1),
        ["Databases", "RUST"]
    );

    // A locale.
    let french = ArticleUpdateInput {
        title: Patch::Set("Brouillon client".into()),
        ..ArticleUpdateInput::default()
    };
    let fr = client
        .update(&id, &french, &WriteOptions::draft().locale("fr"))
        .await
        .unwrap();
    assert_eq!(fr.locale, Field::Set("fr".to_string()));
    let (status, body) = get(addr, path("locale=fr&status=draft")).await;
    assert_eq!(
        (status, &body["data"]["title"]),
        (200, &Value::from("Brouillon client"))
    );
    assert_eq!(
        get(addr, path("locale=fr")).await.0,
        404,
        "a French draft only"
    );

    // Delete every locale.
    client
        .delete(&id, &WriteOptions::published().locale("*"))
        .await
        .unwrap();
    assert_eq!(get(addr, path("status=draft")).await.0, 404);
    assert_eq!(get(addr, path("status=draft&locale=fr")).await.0, 404);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_client_answers_validation_errors_with_their_paths() {
    let (dir, addr, client) = server("typed-writes-client-errors");
    let bad = ArticleCreateInput {
        title: Some("Client bad email".into()),
        contact_email: Some("not-an-email".into()),
        ..ArticleCreateInput::new()
    };
    let err = client
        .create(&bad, &WriteOptions::published())
        .await
        .unwrap_err();
    let ClientError::Validation(v) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(err.status(), Some(400));
    assert_eq!(
        v.at(&["contactEmail"]).map(|f| f.message.as_str()),
        Some("contactEmail must be a valid email")
    );
    let (_, body) = get(
        addr,
        "/api/articles?status=draft&filters[title][$eq]=Client%20bad%20email".into(),
    )
    .await;
    assert_eq!(body["meta"]["pagination"]["total"], 0, "nothing written");

    let missing = DocumentId::<Article>::new("article99999999999999999");
    let err = client
        .update(
            &missing,
            &ArticleUpdateInput::default(),
            &WriteOptions::published(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(404), "{err:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_store_updates_a_component_in_place_by_its_id() {
    let (dir, store) = store("typed-writes-component-id");
    let created = store
        .create(&draft_input("Component in place"), &WriteOptions::draft())
        .unwrap();
    let id = DocumentId::<Article>::new(created.document_id.clone());
    let seo_of = |store: &Store| {
        let entry = store
            .find_one(id.as_str(), &populated(Status::Draft))
            .unwrap()
            .unwrap();
        match entry.seo {
            Field::Set(seo) => seo,
            other => panic!("seo not populated: {other:?}"),
        }
    };
    let before = seo_of(&store);
    // With its id, the component the draft holds is updated where it is.
    let update = ArticleUpdateInput {
        seo: Patch::Set(SharedSeoInput {
            id: Some(before.id),
            meta_title: Some("Updated in place".into()),
            ..SharedSeoInput::new()
        }),
        ..ArticleUpdateInput::default()
    };
    store.update(&id, &update, &WriteOptions::draft()).unwrap();
    let kept = seo_of(&store);
    assert_eq!(kept.id, before.id);
    assert_eq!(text(&kept.meta_title), Some("Updated in place"));
    // Without one, a new component replaces it.
    let update = ArticleUpdateInput {
        seo: Patch::Set(SharedSeoInput {
            meta_title: Some("Replaced".into()),
            ..SharedSeoInput::new()
        }),
        ..ArticleUpdateInput::default()
    };
    store.update(&id, &update, &WriteOptions::draft()).unwrap();
    let replaced = seo_of(&store);
    assert_ne!(replaced.id, before.id);
    assert_eq!(text(&replaced.meta_title), Some("Replaced"));
    let _ = std::fs::remove_dir_all(&dir);
}
