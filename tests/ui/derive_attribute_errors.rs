//! Mistakes in `#[strata(...)]` attributes are reported on the key, all at once.

use strata::typed::Field;

fn model() -> &'static strata::schema::Model {
    panic!("never called: this case must not compile")
}

#[derive(serde::Serialize, serde::Deserialize, strata::ContentType)]
#[strata(
    uid = "api::post.post",
    kind = "collectionType",
    singular = "post",
    plural = "posts",
    collection = "posts"
)]
struct Post {
    id: i64,
    document_id: String,
    #[strata(attr = "title", ty = "strng")]
    #[serde(default)]
    title: Field<String>,
    #[strata(attr = "secret", ty = "string", private)]
    #[serde(default)]
    secret: Field<String>,
    #[serde(default)]
    extra: Field<String>,
    #[strata(attr = "author", relation = "manyToOne")]
    #[serde(default)]
    author: Field<String>,
}

fn main() {}
