//! The identifiers of a content model: [`SchemaId`] and [`AttrId`] (indexes into a
//! [`Model`](super::Model), which every cross-reference uses) and [`Uid`] (a schema's
//! name in schema files).

use std::fmt;
use std::sync::Arc;

/// Index of a schema (content type or component) inside a [`Model`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SchemaId(pub(crate) u32);

impl SchemaId {
    /// The position of this schema in [`Model::schemas`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of an attribute inside its [`Schema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttrId(pub(crate) u32);

impl AttrId {
    /// The position of this attribute in [`Schema::attributes`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A schema's unique identifier: `api::article.article`, `plugin::upload.file` or, for a
/// component, `shared.seo`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uid(Arc<str>);

impl Uid {
    /// Wraps a uid string.
    pub fn new(uid: impl Into<Arc<str>>) -> Self {
        Uid(uid.into())
    }

    /// The uid as written in schema files.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Uid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::borrow::Borrow<str> for Uid {
    fn borrow(&self) -> &str {
        &self.0
    }
}
