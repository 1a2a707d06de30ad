//! The typed client: queries a running strata (or Strapi v5) server with typed filters and
//! populate, and prints what comes back through the generated structs. With a token that
//! may write articles (`STRATA_TOKEN`), it also creates a draft, updates, relates,
//! publishes and deletes it with the generated input types.
//!
//! ```sh
//! cargo run --release -- serve &                      # the bundled blog on :1337
//! cargo run --example typed_client --features client  # STRATA_URL, STRATA_TOKEN to change
//! ```
//!
//! The structs are `examples/generated/blog.rs` (the bundled `schemas/`).

/// Typed Rust for the bundled schemas: `strata generate --schemas schemas --out
/// examples/generated/blog.rs` (a test checks that it is up to date).
#[allow(dead_code)]
mod blog {
    include!("generated/blog.rs");
}

use strata::client::{Client, ClientError};
use strata::typed::{DocumentId, Field, Many, One, Patch, RelationInput, RelationPosition};
use strata::typed::{TypedQuery, WriteOptions};

use blog::{
    Article, ArticleCreateInput, ArticleField, ArticlePopulate, ArticleUpdateInput, AuthorField,
    Tag, TagField, article, secret,
};

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let base = std::env::var("STRATA_URL").unwrap_or_else(|_| "http://127.0.0.1:1337".into());
    let mut client = Client::new(&base);
    let token = std::env::var("STRATA_TOKEN").ok();
    if let Some(token) = &token {
        client = client.with_token(token);
    }
    println!("server: {base}");

    // Articles by Ada Lovelace with at least 10 views, with their author and tags: field
    // names, operators and value types are checked by the compiler.
    let query = article::query()
        .filter(
            article::filter()
                .author()
                .name()
                .eqi("ada lovelace")
                .and(article::filter().views().gte(10)),
        )
        .populate(ArticlePopulate::Author.fields([AuthorField::Name]))
        .populate(ArticlePopulate::Tags.fields([TagField::Name]))
        .fields([ArticleField::Title, ArticleField::Views])
        .sort(article::sort().views().desc())
        .page(1, 5);
    println!("\nGET /api/articles?{}", query.to_query_string());
    let page = client.find(&query).await?;
    println!(
        "{} of {} articles:",
        page.data.len(),
        page.meta.pagination.total().unwrap_or_default()
    );
    for article in &page.data {
        let author = match &article.author {
            Field::Set(One::Entry(a)) => a.name.as_ref().cloned().unwrap_or_default(),
            _ => "-".into(),
        };
        let tags: Vec<String> = match &article.tags {
            Field::Set(Many::Entries(tags)) => tags
                .iter()
                .filter_map(|t| t.name.as_ref().cloned())
                .collect(),
            _ => Vec::new(),
        };
        println!(
            "  {:<40} {:>10} views  by {author}  [{}]",
            article.title.as_ref().map(String::as_str).unwrap_or(""),
            article.views.as_ref().copied().unwrap_or_default(),
            tags.join(", ")
        );
    }

    // One document, with its SEO component.
    let one = article::query()
        .populate(ArticlePopulate::Seo)
        .fields([ArticleField::Title]);
    let id = "article00000000000000001";
    match client.find_one(id, &one).await? {
        Some(article) => println!(
            "\n{id}: {:?}, seo title {:?}",
            article.title.as_ref(),
            article.seo.as_ref().and_then(|s| s.meta_title.as_ref())
        ),
        None => println!("\n{id}: not found"),
    }

    // A document that does not exist is `None`, not an error.
    let missing = client
        .find_one("doesnotexist000000000000", &article::query())
        .await?;
    println!("missing document: {missing:?}");

    // Errors carry Strapi's error body.
    match client.find(&secret::query()).await {
        Ok(page) => println!(
            "secrets: {} (the public role may read them)",
            page.data.len()
        ),
        Err(ClientError::Api {
            status,
            name,
            message,
            ..
        }) => println!("secrets: {status} {name}: {message}"),
        Err(e) => return Err(e.into()),
    }

    if token.is_some() {
        write_an_article(&client).await?;
    } else {
        println!("\nset STRATA_TOKEN to a token that may write articles to see typed writes");
    }
    Ok(())
}

/// Creates a draft, updates and relates it, publishes it and deletes it.
async fn write_an_article(client: &Client) -> anyhow::Result<()> {
    let rust = DocumentId::<Tag>::new("tag000000000000000000003");
    let javascript = DocumentId::<Tag>::new("tag000000000000000000001");
    let draft = ArticleCreateInput {
        title: Some("Typed writes".into()),
        tags: Some(RelationInput::set([&rust])),
        ..ArticleCreateInput::new()
    };
    let created = client.create(&draft, &WriteOptions::draft()).await?;
    let id = DocumentId::<Article>::new(created.document_id.clone());
    println!("\ncreated the draft {id}");

    // Set the title, clear the views, add a tag before `rust`, and publish.
    let update = ArticleUpdateInput {
        title: Patch::Set("Typed writes, published".into()),
        views: Patch::Clear,
        tags: RelationInput::new()
            .connect_at(&javascript, RelationPosition::before(&rust))
            .into(),
        ..ArticleUpdateInput::default()
    };
    let published = client
        .update(&id, &update, &WriteOptions::published())
        .await?;
    println!("published at {:?}", published.published_at.as_ref());
    let with_tags = TypedQuery::<Article>::new().populate(ArticlePopulate::Tags);
    if let Some(article) = client.find_one(id.as_str(), &with_tags).await?
        && let Field::Set(Many::Entries(tags)) = &article.tags
    {
        let names: Vec<_> = tags.iter().filter_map(|t| t.name.as_ref()).collect();
        println!("its tags: {names:?}");
    }

    // Strapi's validation errors carry their paths.
    let bad = ArticleUpdateInput {
        contact_email: Patch::Set("not an email".into()),
        ..ArticleUpdateInput::default()
    };
    match client.update(&id, &bad, &WriteOptions::published()).await {
        Err(ClientError::Validation(e)) => {
            for failure in &e.errors {
                println!("refused: {:?}: {}", failure.path, failure.message);
            }
        }
        other => println!("unexpected: {other:?}"),
    }

    client
        .delete(&id, &WriteOptions::published().locale("*"))
        .await?;
    println!("deleted {id}");
    Ok(())
}
