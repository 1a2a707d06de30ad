//! The code strata-codegen generates compiles against the real derives and works:
//!
//! * `tests/generated/blog.rs`, `tests/generated/edge.rs` and `tests/generated/launchpad.rs`
//!   are included below, so this test only builds if the generated code for the blog
//!   schemas, the edge-case schemas and a real third-party project (Strapi's LaunchPad)
//!   compiles (serde, schemars, `::strata::ContentType`/`Component`/`DynamicZone`);
//! * they are exactly what `strata generate` writes today (regenerate them with the
//!   commands in [`FILES`] after changing the generator or the schemas);
//! * the embedded `model()` of each loads, and equals the model loaded from the folder;
//! * every generated struct's derived description (its `#[strata(...)]` attributes)
//!   equals `Description::from_schema` of the runtime model;
//! * entries read and write back JSON in the flat v5 shape, keywords and all.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}

#[allow(dead_code)]
mod edge {
    include!("generated/edge.rs");
}

/// A real third-party project's model: Strapi's LaunchPad demo (`tests/fixtures/launchpad`).
#[allow(dead_code)]
mod launchpad {
    include!("generated/launchpad.rs");
}

/// (schemas folder, generated file), relative to the repository root:
/// `cargo run -- generate --schemas <folder> --out <file>`.
const FILES: &[(&str, &str)] = &[
    ("tests/fixtures/blog/schemas", "tests/generated/blog.rs"),
    ("tests/fixtures/edge/schemas", "tests/generated/edge.rs"),
    (
        "tests/fixtures/launchpad/src",
        "tests/generated/launchpad.rs",
    ),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn committed_code_is_what_the_generator_writes() {
    // The header names the folder as given; cargo runs tests from the package root.
    for (schemas, file) in FILES {
        let fresh = strata_codegen::generate_source(Path::new(schemas)).unwrap();
        let committed = std::fs::read_to_string(file).unwrap();
        assert!(
            fresh == committed,
            "{file} is stale: run `cargo run -- generate --schemas {schemas} --out {file}`"
        );
    }
}

#[test]
fn strata_generate_check_accepts_fresh_code_and_reports_broken_schemas() {
    let strata = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(args)
            .current_dir(root())
            .output()
            .unwrap()
    };
    for (schemas, file) in FILES {
        let out = strata(&["generate", "--schemas", schemas, "--out", file, "--check"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = strata(&["generate", "--schemas", "tests/fixtures/broken"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(
        stderr.starts_with("error: cannot generate code from tests/fixtures/broken: 11 problems"),
        "{stderr}"
    );
    assert!(stderr.contains("relation target `api::ghost.ghost` does not exist"));
}

#[test]
fn embedded_models_equal_the_models_on_disk() {
    let models = [blog::model(), edge::model(), launchpad::model()];
    for ((schemas, _), embedded) in FILES.iter().zip(models) {
        let on_disk = strata::schema::load(&root().join(schemas)).unwrap();
        let uids = |m: &strata::schema::Model| {
            m.schemas()
                .iter()
                .map(|s| (s.uid.to_string(), s.attributes.clone(), s.layout.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(uids(embedded), uids(&on_disk), "{schemas}");
    }
}

/// Checks `T::describe()` against the model; returns the uid checked.
fn describe<T: strata::typed::Typed>(
    model: &strata::schema::Model,
    failures: &mut Vec<String>,
) -> String {
    use strata::typed::Description;
    let derived = T::describe();
    match model.by_uid(&derived.uid) {
        Some(schema) => {
            let expected = Description::from_schema(model, schema);
            if derived != expected {
                failures.push(format!("{derived:#?}\n!=\n{expected:#?}"));
            }
        }
        None => failures.push(format!("{} is not in the model", derived.uid)),
    }
    derived.uid
}

/// The read structs of a generated file: those deriving `ContentType` or `Component`
/// (the input structs of writes derive neither).
fn struct_count(file: &str) -> usize {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| {
            ["::strata::ContentType", "::strata::Component"]
                .iter()
                .any(|d| l.trim_end_matches([',', ')', ']']) == *d)
        })
        .count()
}

#[test]
fn derived_descriptions_equal_the_runtime_model() {
    let mut failures = Vec::new();
    let (b, e) = (blog::model(), edge::model());
    let blog_uids = {
        use blog::*;
        let f = &mut failures;
        [
            describe::<Article>(b, f),
            describe::<Author>(b, f),
            describe::<Category>(b, f),
            describe::<Secret>(b, f),
            describe::<Tag>(b, f),
            describe::<UploadFile>(b, f),
            describe::<UsersPermissionsPermission>(b, f),
            describe::<UsersPermissionsRole>(b, f),
            describe::<UsersPermissionsUser>(b, f),
            describe::<SharedFaqItem>(b, f),
            describe::<SharedMedia>(b, f),
            describe::<SharedQuote>(b, f),
            describe::<SharedRichText>(b, f),
            describe::<SharedSeo>(b, f),
            describe::<SharedSlider>(b, f),
            describe::<SharedSocialLink>(b, f),
        ]
    };
    let edge_uids = {
        use edge::*;
        let f = &mut failures;
        [
            describe::<Everything>(e, f),
            describe::<Homepage>(e, f),
            describe::<Keyword>(e, f),
            describe::<LongName>(e, f),
            describe::<Node>(e, f),
            describe::<Option2>(e, f),
            describe::<I18nLocale>(e, f),
            describe::<UploadFile>(e, f),
            describe::<UsersPermissionsPermission>(e, f),
            describe::<UsersPermissionsRole>(e, f),
            describe::<UsersPermissionsUser>(e, f),
            describe::<EverythingKind>(e, f),
            describe::<NestedLevelOne>(e, f),
            describe::<NestedLevelThree>(e, f),
            describe::<NestedLevelTwo>(e, f),
            describe::<NodePath2>(e, f),
            describe::<SharedPair>(e, f),
        ]
    };
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Every generated struct is checked (a new one must be added above).
    assert_eq!(blog_uids.len(), struct_count("tests/generated/blog.rs"));
    assert_eq!(edge_uids.len(), struct_count("tests/generated/edge.rs"));
    // The edge set's every user schema has a struct, and so do the built-ins it reaches.
    for uid in [
        "api::option.option",
        "plugin::i18n.locale",
        "node.path",
        "everything.kind",
    ] {
        assert!(edge_uids.iter().any(|u| u == uid), "{uid}");
    }
}

#[test]
fn blog_entries_round_trip() {
    let text = r#"{
        "id": 2, "documentId": "article00000000000000001", "title": "Hello",
        "wordCount": "12345678901234", "price": 9.99, "kind": "tutorial",
        "createdAt": "2024-01-01T00:00:00.000Z", "publishedAt": null, "locale": "en",
        "author": {"id": 1, "documentId": "a1", "name": "Ada"},
        "tags": {"count": 3},
        "seo": {"id": 1, "metaTitle": "t", "social": []},
        "blocks": [
            {"__component": "shared.quote", "id": 4, "title": "q", "body": "b"},
            {"__component": "shared.rich-text", "id": 5, "body": "**x**"}
        ],
        "localizations": [{"id": 3, "documentId": "article00000000000000001", "locale": "fr"}]
    }"#;
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    let article: blog::Article = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(article.kind.as_ref(), Some(&blog::ArticleKind::Tutorial));
    assert_eq!(blog::ArticleKind::Tutorial.as_str(), "tutorial");
    assert!(article.published_at == strata::typed::Field::Null);
    assert!(article.views.is_absent());
    assert!(matches!(
        article.blocks.as_ref().map(Vec::as_slice),
        Some([
            blog::ArticleBlocks::SharedQuote(_),
            blog::ArticleBlocks::SharedRichText(_)
        ])
    ));
    assert_eq!(serde_json::to_value(&article).unwrap(), value);
}

#[test]
fn keywords_and_odd_enumeration_values_round_trip() {
    let text = r#"{
        "id": 1, "documentId": "k1", "type": "t", "match": "2-col", "fn": 3,
        "async": true, "crate": "c", "gen": {"a": 1}, "dyn": 1.5,
        "self": {"id": 1, "documentId": "k1", "match": "with,comma"},
        "loop": [{"id": 1, "key": "k", "type": "flag"}]
    }"#;
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    let k: edge::Keyword = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(k.r#match.as_ref(), Some(&edge::KeywordMatch::V2Col));
    assert_eq!(k.r#type.as_ref().map(String::as_str), Some("t"));
    assert_eq!(edge::KeywordMatch::WithComma.as_str(), "with,comma");
    assert_eq!(serde_json::to_value(&k).unwrap(), value);
}

#[test]
fn every_generated_type_has_a_json_schema() {
    let schema = schemars::schema_for!(edge::Everything);
    let text = serde_json::to_string(&schema).unwrap();
    for key in ["documentId", "createdAt", "sections", "__component", "tree"] {
        assert!(text.contains(key), "{key} missing from the JSON schema");
    }
    // Private attributes are not fields.
    assert!(!text.contains("internalNote") && !text.contains("\"password\""));
    let _ = schemars::schema_for!(blog::Article);
}

#[test]
fn typed_queries_go_through_keyword_fields_self_relations_and_nested_components() {
    use edge::*;
    use strata::query::{Permissions, QueryConfig, parse_query};
    use strata::typed::{ContentType, TypedQuery};

    fn parses_back<T: ContentType>(q: &TypedQuery<T>) -> String {
        let s = q.to_query_string();
        let m = T::model();
        let back = parse_query(
            &s,
            m,
            T::schema_id(),
            &Permissions::all(m),
            &QueryConfig::default(),
        );
        match back {
            Ok(back) => assert_eq!(&back, q.query(), "{s}"),
            Err(e) => panic!("{s}: {e:?}"),
        }
        s
    }

    let q = keyword::query()
        .filter(keyword::filter().r#type().contains("x"))
        .filter(keyword::filter().self_().r#fn().gt(3))
        .filter(keyword::filter().r#match().eq(KeywordMatch::WithComma))
        .sort(keyword::sort().r#async().desc());
    let s = parses_back(&q);
    assert!(s.contains("[type][$contains]=x"), "{s}");
    assert!(s.contains("[self][fn][$gt]=3"), "{s}");
    assert!(s.contains("[match][$eq]=with,comma"), "{s}");

    let q = node::query()
        .filter(
            node::filter()
                .parent()
                .children()
                .friend_of()
                .name()
                .eq("n"),
        )
        .populate(NodePopulate::Path)
        .populate(NodePopulate::SeeAlso.count());
    let s = parses_back(&q);
    assert!(
        s.contains("[parent][children][friendOf][name][$eq]=n"),
        "{s}"
    );

    let q = everything::query().filter(
        everything::filter()
            .tree()
            .levels()
            .leaf()
            .node()
            .name()
            .eq("deep"),
    );
    let s = parses_back(&q);
    assert!(
        s.contains("[tree][levels][leaf][node][name][$eq]=deep"),
        "{s}"
    );
}

#[test]
fn create_inputs_serialize_to_the_data_strapi_takes() {
    use blog::*;
    use strata::typed::{DocumentId, Json, RelationInput, RelationPosition};

    let ada = DocumentId::<Author>::new("author0000000000000000001");
    let rust = DocumentId::<Tag>::new("tag000000000000000000001");
    let input = ArticleCreateInput {
        title: Some("Typed".into()),
        word_count: Some(strata::typed::BigInt("12345678901234".into())),
        kind: Some(ArticleKind::Tutorial),
        metadata: Some(Json(serde_json::json!({"a": 1}))),
        cover: Some(3),
        gallery: Some(vec![1, 2]),
        author: Some(ada.clone().into()),
        tags: Some(RelationInput::new().connect_at(&rust, RelationPosition::Start)),
        seo: Some(SharedSeoInput {
            meta_title: Some("t".into()),
            social: Some(vec![SharedSocialLinkInput {
                network: Some(SharedSocialLinkNetwork::X),
                ..SharedSocialLinkInput::new()
            }]),
            ..SharedSeoInput::new()
        }),
        blocks: Some(vec![
            SharedQuoteInput {
                title: Some("q".into()),
                author: Some(RelationInput::set([&ada])),
                ..SharedQuoteInput::new()
            }
            .into(),
            ArticleBlocksInput::SharedSlider(SharedSliderInput {
                files: Some(vec![4]),
                ..SharedSliderInput::new()
            }),
        ]),
        ..ArticleCreateInput::new()
    };
    assert_eq!(
        serde_json::to_value(&input).unwrap(),
        serde_json::json!({
            "title": "Typed",
            "wordCount": "12345678901234",
            "kind": "tutorial",
            "metadata": {"a": 1},
            "cover": 3,
            "gallery": [1, 2],
            "author": "author0000000000000000001",
            "tags": {"connect": [{"documentId": "tag000000000000000000001", "position": {"start": true}}]},
            "seo": {"metaTitle": "t", "social": [{"network": "x"}]},
            "blocks": [
                {"__component": "shared.quote", "title": "q", "author": {"set": ["author0000000000000000001"]}},
                {"__component": "shared.slider", "files": [4]}
            ]
        })
    );
    assert_eq!(
        serde_json::to_value(ArticleCreateInput::new()).unwrap(),
        serde_json::json!({})
    );
}

#[test]
fn required_keyword_and_private_fields_are_written() {
    use edge::*;
    use strata::typed::{Patch, RelationInput};

    let k = KeywordCreateInput {
        r#fn: Some(3),
        r#loop: Some(vec![SharedPairInput::new("k".into())]),
        self_: Some(RelationInput::clear()),
        ..KeywordCreateInput::new("t".into())
    };
    assert_eq!(
        serde_json::to_value(&k).unwrap(),
        serde_json::json!({"type": "t", "self": {"set": []}, "fn": 3, "loop": [{"key": "k"}]})
    );
    // Private attributes and passwords are written (never read).
    let e = EverythingCreateInput {
        password: Some("correct horse".into()),
        internal_note: Some("n".into()),
        ..EverythingCreateInput::new("Name".into())
    };
    assert_eq!(
        serde_json::to_value(&e).unwrap(),
        serde_json::json!({"string": "Name", "password": "correct horse", "internalNote": "n"})
    );
    let u = EverythingUpdateInput {
        password: Patch::Set("x".into()),
        internal_note: Patch::Clear,
        ..EverythingUpdateInput::default()
    };
    assert_eq!(
        serde_json::to_value(&u).unwrap(),
        serde_json::json!({"password": "x", "internalNote": null})
    );
}

#[test]
fn update_inputs_keep_clear_and_set() {
    use blog::*;
    use strata::typed::{DocumentId, Patch, RelationInput};

    let update = ArticleUpdateInput {
        title: Patch::Set("New".into()),
        views: Patch::Clear,
        author: Patch::Clear,
        tags: RelationInput::new()
            .disconnect(DocumentId::<Tag>::new("t1"))
            .into(),
        seo: Patch::Clear,
        ..ArticleUpdateInput::default()
    };
    assert_eq!(
        serde_json::to_value(&update).unwrap(),
        serde_json::json!({
            "title": "New", "views": null, "author": null,
            "tags": {"disconnect": ["t1"]}, "seo": null
        })
    );
    assert_eq!(
        serde_json::to_value(ArticleUpdateInput::default()).unwrap(),
        serde_json::json!({})
    );
}
