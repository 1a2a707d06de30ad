//! A create input without its required attribute (`shared.pair`'s `key`).

#[allow(dead_code, unused_imports)]
mod edge {
    include!("../generated/edge.rs");
}

use edge::*;

fn main() {
    let _ = SharedPairInput {
        id: None,
        value: Some("v".into()),
        r#type: None,
    };
    let _ = KeywordCreateInput::new();
}
