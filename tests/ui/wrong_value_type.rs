//! A value of the wrong type: an integer field compared with text.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = article::filter().views().eq("ten");
}
