//! The static descriptions of the derives equal the runtime model: for every content type
//! and component of the blog schemas and of the edge-case schemas, `T::describe()` (from the
//! `#[strata(...)]` attributes of the generated code) equals `Description::from_schema` of
//! the model loaded from the schema folder, and the `ContentType`/`Component` constants and
//! `schema_ref()` agree with it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

use strata::schema::{Model, Origin, SchemaKind};
use strata::typed::{Component, ContentType, Description, Typed};

#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}

#[allow(dead_code)]
mod edge {
    include!("generated/edge.rs");
}

/// What one derived type says about itself.
struct Derived {
    rust: &'static str,
    description: Description,
    schema_index: usize,
    constants: Option<(&'static str, &'static str, &'static str, SchemaKind)>,
    model: &'static Model,
}

fn content<T: ContentType + Typed>(rust: &'static str) -> Derived {
    Derived {
        rust,
        description: T::describe(),
        schema_index: T::schema_ref().id.index(),
        constants: Some((T::UID, T::SINGULAR, T::PLURAL, T::KIND)),
        model: T::model(),
    }
}

fn component<T: Component + Typed>(rust: &'static str) -> Derived {
    let _ = T::UID;
    Derived {
        rust,
        description: T::describe(),
        schema_index: T::schema_ref().id.index(),
        constants: None,
        model: T::model(),
    }
}

macro_rules! derived {
    (content: [$($c:ty),* $(,)?], components: [$($k:ty),* $(,)?]) => {
        vec![
            $(content::<$c>(stringify!($c)),)*
            $(component::<$k>(stringify!($k)),)*
        ]
    };
}

/// Checks every derived type against the model loaded from `folder`, and that every user
/// schema (content type or component) has one.
fn check(folder: &str, types: Vec<Derived>) {
    let disk = strata::schema::load(Path::new(folder)).unwrap();
    let mut covered = BTreeSet::new();
    for t in &types {
        let uid = t.description.uid.clone();
        let schema = disk
            .by_uid(&uid)
            .unwrap_or_else(|| panic!("{}: no schema `{uid}` in {folder}", t.rust));
        assert_eq!(
            t.description,
            Description::from_schema(&disk, schema),
            "{}: the derived description differs from the model",
            t.rust
        );
        // The type points at its schema in the embedded model.
        let here = &t.model.schemas()[t.schema_index];
        assert_eq!(here.uid.as_str(), uid, "{}: schema_ref()", t.rust);
        if let Some((uid_c, singular, plural, kind)) = t.constants {
            assert_eq!(uid_c, uid, "{}::UID", t.rust);
            assert_eq!(singular, schema.singular_name, "{}::SINGULAR", t.rust);
            assert_eq!(plural, schema.plural_name, "{}::PLURAL", t.rust);
            assert_eq!(kind, schema.kind, "{}::KIND", t.rust);
        } else {
            assert_eq!(schema.kind, SchemaKind::Component, "{}", t.rust);
        }
        assert!(covered.insert(uid.clone()), "{}: `{uid}` twice", t.rust);
    }
    for s in disk.schemas() {
        if s.origin != Origin::BuiltIn {
            assert!(
                covered.contains(s.uid.as_str()),
                "`{}` of {folder} has no derived type in this test",
                s.uid
            );
        }
    }
}

#[test]
fn blog_descriptions_equal_the_model() {
    use blog::*;
    check(
        "tests/fixtures/blog/schemas",
        derived!(
            content: [
                Article,
                Author,
                Category,
                Secret,
                Tag,
                UploadFile,
                UsersPermissionsPermission,
                UsersPermissionsRole,
                UsersPermissionsUser,
            ],
            components: [
                SharedFaqItem,
                SharedMedia,
                SharedQuote,
                SharedRichText,
                SharedSeo,
                SharedSlider,
                SharedSocialLink,
            ]
        ),
    );
}

#[test]
fn edge_descriptions_equal_the_model() {
    use edge::*;
    check(
        "tests/fixtures/edge/schemas",
        derived!(
            content: [
                Everything,
                Homepage,
                Keyword,
                LongName,
                Node,
                Option2,
                I18nLocale,
                UploadFile,
                UsersPermissionsPermission,
                UsersPermissionsRole,
                UsersPermissionsUser,
            ],
            components: [
                EverythingKind,
                NestedLevelOne,
                NestedLevelThree,
                NestedLevelTwo,
                NodePath2,
                SharedPair,
            ]
        ),
    );
}

#[test]
fn a_description_reads_like_the_schema() {
    use blog::*;
    let d = Article::describe();
    assert_eq!(d.uid, "api::article.article");
    assert!(d.draft_and_publish && d.localized);
    let names: Vec<&str> = d.attributes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names[..3], ["title", "slug", "description"]);
    assert_eq!(names.last(), Some(&"blocks"));
    // Private attributes are described though they are not fields.
    let file = UploadFile::describe();
    let private: Vec<&str> = file
        .attributes
        .iter()
        .filter(|a| a.private)
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(private, ["related", "folder", "folderPath"]);
    let user = UsersPermissionsUser::describe();
    assert!(user.attribute("password").is_some_and(|a| a.private));
}
