//! A relation to authors given a tag's document id.

#[allow(dead_code, unused_imports)]
mod blog {
    include!("../generated/blog.rs");
}

use blog::*;
use strata::typed::{DocumentId, RelationInput};

fn main() {
    let rust = DocumentId::<Tag>::new("tag000000000000000000001");
    let _ = ArticleCreateInput {
        author: Some(RelationInput::new().connect(rust)),
        ..ArticleCreateInput::new()
    };
}
