//! Embedding strata in your own axum app: strata's content API (`strata::http::router`)
//! mounted next to a route of your own, `/custom/featured`, which runs a typed query
//! directly against the store (`Store::find`) and returns JSON.
//!
//! ```sh
//! cargo run --example embed            # listens on 127.0.0.1:3000 (EMBED_ADDR to change)
//! curl http://127.0.0.1:3000/custom/featured
//! curl -g 'http://127.0.0.1:3000/api/articles?fields[0]=title'
//! ```
//!
//! The database is created in a temporary folder with Strapi's layout, the public grants
//! of `strata.toml` and the blog dataset (`examples/blog/dataset.json`), as `strata serve`
//! does on first start. The typed structs are `examples/generated/blog.rs`.

/// Typed Rust for the bundled schemas: `strata generate --schemas schemas --out
/// examples/generated/blog.rs` (a test checks that it is up to date).
#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use strata::http::{self, AppState, ServerConfig};
use strata::schema::{self, Model};
use strata::store::sqlite::{self, ddl};
use strata::store::{DatabaseUrl, Store};
use strata::typed::TypedQuery;

use blog::{Article, ArticleField, ArticlePopulate, AuthorField, article};

/// What the public role may read (as in `strata.toml`).
const PUBLIC_ACTIONS: &[&str] = &[
    "api::article.article.find",
    "api::article.article.findOne",
    "api::author.author.find",
    "api::author.author.findOne",
    "api::category.category.find",
    "api::category.category.findOne",
    "api::tag.tag.find",
    "api::tag.tag.findOne",
];

fn main() -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model =
        Arc::new(schema::load(&root.join("schemas")).map_err(|e| anyhow::anyhow!("schemas: {e}"))?);
    let db = create_blog_database(&model, &root.join("examples/blog/dataset.json"))?;
    let url = DatabaseUrl::parse(&format!("sqlite://{}", db.display()))?;
    let store = Arc::new(Store::open_existing(&url, model, 2)?);

    // strata's routes (`/api/...`, `/_health`, Strapi's 404 for anything else) and ours.
    let content_api = http::router(AppState::new(store.clone(), ServerConfig::default()));
    let app = Router::new()
        .route("/custom/featured", get(featured))
        .with_state(store)
        .merge(content_api);

    let addr: SocketAddr = std::env::var("EMBED_ADDR")
        .unwrap_or_else(|_| "127.0.0.1:3000".into())
        .parse()
        .context("EMBED_ADDR")?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        println!("listening on http://{}", listener.local_addr()?);
        println!("  GET /custom/featured   (a typed query through the store)");
        println!("  GET /api/articles      (strata's content API)");
        println!("database: {} (removed on Ctrl-C)", db.display());
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        if let Some(dir) = db.parent() {
            std::fs::remove_dir_all(dir)?;
        }
        Ok(())
    })
}

/// `GET /custom/featured`: the five most viewed featured articles with their author,
/// in the shape of a content-API list response.
async fn featured(State(store): State<Arc<Store>>) -> Response {
    // SQLite is blocking: run the query off the async workers, as strata's handlers do.
    let result = tokio::task::spawn_blocking(move || store.find(&featured_query())).await;
    match result {
        Ok(Ok(page)) => {
            let body = page.into_response();
            match serde_json::to_string(&body) {
                Ok(json) => (
                    StatusCode::OK,
                    [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
                    json,
                )
                    .into_response(),
                Err(e) => internal(&e.to_string()),
            }
        }
        Ok(Err(e)) => internal(&e.to_string()),
        Err(e) => internal(&e.to_string()),
    }
}

/// The typed query of `/custom/featured`: a wrong field name or an operator that does not
/// fit the field's type would not compile.
fn featured_query() -> TypedQuery<Article> {
    article::query()
        .filter(article::filter().featured().eq(true))
        .populate(ArticlePopulate::Author.fields([AuthorField::Name]))
        .fields([ArticleField::Title, ArticleField::Slug, ArticleField::Views])
        .sort(article::sort().views().desc())
        .page(1, 5)
}

fn internal(message: &str) -> Response {
    eprintln!("/custom/featured: {message}");
    let body = serde_json::json!({"data": null, "error": {"status": 500, "name": "InternalServerError", "message": "Internal Server Error"}});
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
        body.to_string(),
    )
        .into_response()
}

/// Creates `<tmp>/strata-embed-<pid>/blog.db`: Strapi's layout, the public grants and the
/// dataset (what `strata serve` does for a new database).
fn create_blog_database(model: &Model, dataset: &Path) -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("strata-embed-{}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("blog.db");
    let url = DatabaseUrl::parse(&format!("sqlite://{}", path.display()))?;
    let mut conn = sqlite::open_connection(&url, true)?;
    ddl::create_database(&conn, model)?;
    let actions: Vec<String> = PUBLIC_ACTIONS.iter().map(|a| a.to_string()).collect();
    ddl::seed_public_permissions(&conn, model, &actions)?;
    sqlite::import::import_dataset(&mut conn, model, dataset, &|_, _| {})
        .map_err(|e| anyhow::anyhow!("cannot import {}: {e}", dataset.display()))?;
    Ok(path)
}
