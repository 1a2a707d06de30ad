//! [`Typed`], what `#[derive(ContentType)]` and `#[derive(Component)]` implement next to
//! [`ContentType`](super::ContentType) / [`Component`](super::Component): the static
//! description and the typed query vocabulary of the type.

use super::builder::SelectField;
use super::description::Description;
use super::filter::{PathNode, SchemaRef};

/// A derived content type or component.
pub trait Typed: Sized + 'static {
    /// The path builder rooted at `R` (`ArticlePath<R>`).
    type Path<R>: PathNode;
    /// The scalar fields `fields` can select (`ArticleField`).
    type Field: SelectField;

    /// The schema facts of the `#[strata(...)]` attributes. For generated code it equals
    /// [`Description::from_schema`] of the same schema in the runtime model.
    fn describe() -> Description;

    /// The schema in the model the type was generated from.
    fn schema_ref() -> SchemaRef;
}
