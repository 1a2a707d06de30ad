//! Sorting by a dynamic zone.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = article::query().sort(article::sort().blocks().asc());
}
