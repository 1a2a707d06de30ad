//! Typed queries that compile, and print what the HTTP API reads.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../../generated/blog.rs");
}

use blog::*;
use strata::typed::Filter;

fn main() {
    let q = article::query()
        .filter(
            article::filter()
                .title()
                .contains("rust")
                .and(article::filter().author().name().eqi("ada")),
        )
        .filter(Filter::any([
            article::filter().views().between(10, 100),
            article::filter().kind().eq(ArticleKind::Tutorial),
        ]))
        .populate(ArticlePopulate::Author.populate(AuthorPopulate::Avatar))
        .populate(ArticlePopulate::Tags.count())
        .populate(
            ArticlePopulate::Blocks.on::<SharedQuote>(|q| q.fields([SharedQuoteField::Title])),
        )
        .fields([ArticleField::Title, ArticleField::PublishedAt])
        .sort(article::sort().author().name().desc())
        .page(2, 10)
        .locale("fr");
    let s = q.to_query_string();
    assert!(s.starts_with("filters[$and][0][title][$contains]=rust"), "{s}");
    assert!(s.contains("populate[tags][count]=true"), "{s}");
}
