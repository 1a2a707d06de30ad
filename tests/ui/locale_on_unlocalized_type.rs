//! `locale` on a type that is not localized.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = author::query().locale("fr");
}
