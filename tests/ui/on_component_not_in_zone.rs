//! `on` with a component that is not in the dynamic zone.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = article::query().populate(ArticlePopulate::Blocks.on::<SharedSeo>(|seo| seo));
}
