//! A component that the dynamic zone does not allow, written into it.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;

fn main() {
    let _ = ArticleCreateInput {
        blocks: Some(vec![SharedSeoInput::new().into()]),
        ..ArticleCreateInput::new()
    };
}
