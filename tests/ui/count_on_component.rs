//! `count` on a component (it applies to relations only).

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = article::query().populate(ArticlePopulate::Seo.count());
}
