//! An unknown field: paths only have the fields of the type.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = article::filter().titel().eq("Rust");
}
