//! Typed content from schema files, generated at build time (see `build.rs` and the
//! README): builds a typed query, prints the query string a client sends, and reads a
//! Strapi v5 response into the generated structs.

/// The code strata-codegen generated from `schemas/`: one struct per content type and
/// component, one enum per enumeration and dynamic zone, the typed query vocabulary the
/// derives add (`post::query()`, `PostPopulate`, …) and the embedded model.
mod content {
    #![allow(dead_code)]
    include!(concat!(env!("OUT_DIR"), "/strata_generated.rs"));
}

use content::{Post, PostPopulate, PostStatus, post};
use strata::typed::{ContentType, Field, ListResponse, One};

/// What `GET /api/posts?…&populate[author]=true` answers (shortened).
const RESPONSE: &str = r#"{
  "data": [
    {
      "id": 1,
      "documentId": "k3t9y0x2m1b8c7v6n5z4a3s2",
      "title": "Typed content in Rust",
      "slug": "typed-content-in-rust",
      "body": "Schemas in, structs out.",
      "status": "in-review",
      "views": 42,
      "createdAt": "2025-01-10T09:00:00.000Z",
      "updatedAt": "2025-01-11T10:30:00.000Z",
      "publishedAt": "2025-01-11T10:30:00.000Z",
      "author": { "id": 3, "documentId": "p0o9i8u7y6t5r4e3w2q1a2s3", "name": "Ada" }
    }
  ],
  "meta": { "pagination": { "page": 1, "pageSize": 25, "pageCount": 1, "total": 1 } }
}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A typed query: a misspelt field or a wrong value type does not compile.
    let query = post::query()
        .filter(post::filter().title().contains("rust"))
        .filter(post::filter().status().eq(PostStatus::Live))
        .populate(PostPopulate::Author)
        .sort(post::sort().views().desc());
    println!("GET /api/{}?{}", Post::PLURAL, query.to_query_string());

    // A response, read into the generated structs.
    let response: ListResponse<Post> = strata::serde_json::from_str(RESPONSE)?;
    for p in &response.data {
        let author = match &p.author {
            Field::Set(One::Entry(author)) => author.name.as_ref().map_or("?", String::as_str),
            Field::Absent => "(not populated)",
            _ => "(none)",
        };
        let status = p.status.as_ref().map_or("unset", PostStatus::as_str);
        println!(
            "#{} {:?} by {author} [{status}], {} views",
            p.id,
            p.title.as_ref().map_or("", String::as_str),
            p.views.as_ref().unwrap_or(&0),
        );
    }

    // Written back, an entry is the JSON Strapi sent.
    if let Some(first) = response.data.first() {
        println!("{}", strata::serde_json::to_string(first)?);
    }
    Ok(())
}
