//! A filter built for another type.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = article::query().filter(author::filter().name().eq("Ada"));
}
