//! Sorting by a relation rather than one of its fields.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = article::query().sort(article::sort().author().desc());
}
