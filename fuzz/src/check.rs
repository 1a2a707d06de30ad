//! What every input must satisfy, for the fuzz targets and for the corpus replay test.
//!
//! The input bytes are read as UTF-8 (lossily) and parsed as a query string against the blog
//! model's `article` type and one other content type (chosen by the input's length), with
//! both the public role's permissions and every permission, and with the default and the
//! strict configuration.

use std::path::Path;
use std::sync::LazyLock;

use strata_runtime::query::print::print;
use strata_runtime::query::{Permissions, Query, QueryConfig, QueryError, parse_query};
use strata_runtime::schema::{self, Model, SchemaId};

/// The blog model with what the checks need.
pub struct Fixture {
    /// The blog model (`tests/fixtures/blog/schemas`).
    pub model: Model,
    /// `api::article.article`.
    pub article: SchemaId,
    /// Every content type.
    pub types: Vec<SchemaId>,
    /// The recording's public role, then every permission.
    pub permissions: [Permissions; 2],
    /// The default configuration, then the strict one.
    pub configs: [QueryConfig; 2],
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/blog/schemas");
    let model = match schema::load(&dir) {
        Ok(m) => m,
        Err(e) => panic!("the blog model does not load from {}: {e}", dir.display()),
    };
    let id = |uid: &str| match model.by_uid(uid) {
        Some(s) => s.id,
        None => panic!("{uid} is not in the blog model"),
    };
    let mut public = Permissions::none(&model);
    for uid in [
        "api::article.article",
        "api::author.author",
        "api::category.category",
        "api::tag.tag",
        "plugin::users-permissions.user",
    ] {
        public.allow(id(uid));
    }
    let strict = QueryConfig {
        strict_params: true,
        documents_strict_params: true,
        ..QueryConfig::default()
    };
    Fixture {
        article: id("api::article.article"),
        types: model.content_types().map(|s| s.id).collect(),
        permissions: [public, Permissions::all(&model)],
        configs: [QueryConfig::default(), strict],
        model,
    }
});

/// The shared fixture.
pub fn fixture() -> &'static Fixture {
    &FIXTURE
}

/// Parses `data` in every setting and hands each result to `each`.
fn for_each_parse(
    data: &[u8],
    mut each: impl FnMut(&str, SchemaId, usize, usize, Result<Query, QueryError>),
) {
    let fx = fixture();
    let raw = String::from_utf8_lossy(data);
    let other = fx.types[data.len() % fx.types.len()];
    for schema in [fx.article, other] {
        for (p, perms) in fx.permissions.iter().enumerate() {
            for (c, config) in fx.configs.iter().enumerate() {
                each(
                    &raw,
                    schema,
                    p,
                    c,
                    parse_query(&raw, &fx.model, schema, perms, config),
                );
            }
        }
    }
}

/// Panics unless `e` is a 400 with Strapi's body: `{"data": null, "error": {"status": 400,
/// "name": "ValidationError" | "PaginationError", "message": "…", "details": {…}}}`.
pub fn assert_strapi_error(raw: &str, e: &QueryError) {
    let body = e.to_body();
    let error = &body["error"];
    let ok = e.status() == 400
        && body.as_object().is_some_and(|o| o.len() == 2)
        && body["data"].is_null()
        && error.as_object().is_some_and(|o| o.len() == 4)
        && error["status"] == 400
        && matches!(
            error["name"].as_str(),
            Some("ValidationError" | "PaginationError")
        )
        && error["message"].as_str().is_some_and(|m| !m.is_empty())
        && error["details"].is_object();
    assert!(ok, "{raw:?} gave a malformed error: {body}");
}

/// `parse_query` does not panic and its errors are 400s in Strapi's shape.
pub fn check_parse(data: &[u8]) {
    for_each_parse(data, |raw, _, _, _, result| {
        if let Err(e) = result {
            assert_strapi_error(raw, &e);
        }
    });
}

/// [`check_parse`], and every accepted query prints to a string that parses back to it.
pub fn check_roundtrip(data: &[u8]) {
    let fx = fixture();
    for_each_parse(data, |raw, schema, p, c, result| match result {
        Err(e) => assert_strapi_error(raw, &e),
        Ok(q) => {
            let printed = print(&q, &fx.model);
            let again = parse_query(
                &printed,
                &fx.model,
                schema,
                &fx.permissions[p],
                &fx.configs[c],
            );
            // The printed form may be longer than the input (`populate=*`, comma lists).
            let too_big = matches!(
                &again,
                Err(QueryError::Limit {
                    limit: "maxQueryLength" | "maxParameters",
                    ..
                })
            );
            assert!(
                too_big || again.as_ref() == Ok(&q),
                "{raw:?} does not round-trip\n printed {printed:?}\n first {q:?}\n again {again:?}"
            );
        }
    });
}
