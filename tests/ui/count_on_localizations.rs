//! `count` on `localizations` (Strapi populates them whatever `count` says).

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = article::query().populate(ArticlePopulate::Localizations.count());
}
