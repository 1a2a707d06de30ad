//! The typed setters of [`TypedQuery`]: `filter`, `populate`, `fields`, `sort`,
//! pagination, `locale`, `status`, `publicationFilter` and `_q`.
//!
//! Each setter writes the canonical [`Query`](crate::query::Query) value that
//! `parse_query` returns for the printed query string, so
//! `parse_query(&q.to_query_string(), …) == Ok(q.query().clone())` (with every type
//! findable, the default configuration, and values within its limits: the server clamps
//! `pageSize` to its `maxLimit`, 100 by default).

use super::filter::{Filter, Sort, resolve_field};
use super::populate::{PopulateArg, insert_entry, select_field_refs};
use super::{ContentType, Typed, TypedQuery};
use crate::query::{
    FieldRef, LocaleSelector, PageMode, PopulateEntry, PopulateKey, PopulateKind, PopulateOptions,
    PublicationFilter, Status,
};
use crate::schema::{AttributeKind, Schema};

/// The scalar fields of a derived type that `fields` can select: the generated
/// `ArticleField` enum.
pub trait SelectField: Copy + 'static {
    /// The name in queries (`title`, `createdAt`).
    fn name(self) -> &'static str;
    /// The attribute's index in its schema (`u32::MAX` for system fields).
    fn index(self) -> u32;
    /// The column on `schema`.
    fn field_ref(self, schema: &Schema) -> FieldRef {
        resolve_field(schema, self.name(), self.index())
    }
}

/// Localized content types (`pluginOptions.i18n.localized`), which take `locale`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not localized, so its queries take no `locale`",
    label = "not a localized content type",
    note = "`locale`, `locales` and `all_locales` apply to types with `pluginOptions.i18n.localized: true`"
)]
pub trait Localized: ContentType {}

impl<T: ContentType + Typed> TypedQuery<T> {
    /// `filters`: entries must match `filter`; calling it again ANDs.
    pub fn filter(mut self, filter: Filter<T>) -> Self {
        let q = self.query_mut();
        let current =
            Filter::<T>::from_conditions(q.filters.take().map(|c| c.0).unwrap_or_default());
        q.filters = current.and(filter).into_conjunction();
        self
    }

    /// `populate`: one relation, media, component or dynamic zone, with its options
    /// (`ArticlePopulate::Author.fields([AuthorField::Name])`). Populating the same
    /// attribute again replaces its options.
    pub fn populate(mut self, arg: impl PopulateArg<T>) -> Self {
        let entry = arg.populate_entry(T::schema_ref());
        insert_entry(&mut self.query_mut().populate.0, entry);
        self
    }

    /// `populate=*`: every relation, media, component and dynamic zone (and
    /// `localizations`), one level deep. The server leaves out relations to types the
    /// caller may not read.
    pub fn populate_all(mut self) -> Self {
        let at = T::schema_ref();
        let schema = at.schema();
        let mut entries: Vec<PopulateEntry> = Vec::new();
        for attr in schema.attributes.iter().filter(|a| !a.private) {
            let rows = |target| PopulateKind::Rows {
                target,
                options: PopulateOptions::default(),
            };
            let kind = match &attr.kind {
                AttributeKind::Relation(r) if !r.kind.is_morph() => r.target.map(rows),
                AttributeKind::Component(c) => Some(rows(c.component)),
                AttributeKind::Media(_) => at.model.upload_file().map(|f| rows(f.id)),
                AttributeKind::DynamicZone(z) => {
                    let mut list: Vec<_> = z
                        .components
                        .iter()
                        .map(|c| (*c, PopulateOptions::default()))
                        .collect();
                    list.sort_by_key(|(c, _)| *c);
                    Some(PopulateKind::Zone(list))
                }
                _ => None,
            };
            if let Some(kind) = kind {
                entries.push(PopulateEntry {
                    key: PopulateKey::Attr(attr.id),
                    kind,
                });
            }
        }
        if schema.localized {
            entries.push(PopulateEntry {
                key: PopulateKey::Localizations,
                kind: PopulateKind::Rows {
                    target: at.id,
                    options: PopulateOptions::default(),
                },
            });
        }
        self.query_mut().populate.0 = entries;
        self
    }

    /// `fields`: only these scalar fields (plus `id` and `documentId`, always returned).
    /// An empty list selects only `id` and `documentId`.
    pub fn fields(mut self, fields: impl IntoIterator<Item = T::Field>) -> Self {
        let schema = T::schema_ref().schema();
        let refs = select_field_refs(fields.into_iter().map(|f| f.field_ref(schema)));
        self.query_mut().fields = Some(refs);
        self
    }

    /// `sort`: one more sort key (`article::sort().title().asc()`), after the previous ones.
    pub fn sort(mut self, key: Sort<T>) -> Self {
        self.query_mut().sort.push(key.into_key());
        self
    }

    /// `pagination[page]` and `pagination[pageSize]` (both at least 1).
    pub fn page(mut self, page: u64, page_size: u64) -> Self {
        let size = page_size.max(1);
        let p = &mut self.query_mut().pagination;
        p.mode = PageMode::Page;
        p.start = (page.max(1) - 1).saturating_mul(size);
        p.limit = size;
        self
    }

    /// `pagination[start]` and `pagination[limit]` (the limit at least 1).
    pub fn offset(mut self, start: u64, limit: u64) -> Self {
        let p = &mut self.query_mut().pagination;
        p.mode = PageMode::Offset;
        p.start = start;
        p.limit = limit.max(1);
        self
    }

    /// `pagination[withCount]`: whether the response carries the total (default true).
    pub fn with_count(mut self, with_count: bool) -> Self {
        self.query_mut().pagination.with_count = with_count;
        self
    }

    /// `status`: published (the default) or draft rows.
    pub fn status(mut self, status: Status) -> Self {
        self.query_mut().status = status;
        self
    }

    /// `publicationFilter`.
    pub fn publication_filter(mut self, filter: PublicationFilter) -> Self {
        self.query_mut().publication_filter = Some(filter);
        self
    }

    /// `_q`: full-text search (an empty text is no search).
    pub fn search(mut self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.query_mut().search = (!text.is_empty()).then_some(text);
        self
    }

    /// `locale`: one locale (`"*"` for every locale, `""` for the default one).
    pub fn locale(self, code: impl Into<String>) -> Self
    where
        T: Localized,
    {
        let code = code.into();
        if code.is_empty() {
            self.set_locale(LocaleSelector::Default)
        } else {
            self.locales([code])
        }
    }

    /// `locale[0]=…&locale[1]=…`: several locales (none: the default one).
    pub fn locales<S: Into<String>>(self, codes: impl IntoIterator<Item = S>) -> Self
    where
        T: Localized,
    {
        let codes: Vec<String> = codes.into_iter().map(Into::into).collect();
        let selector = if codes.iter().any(|c| c == "*") {
            LocaleSelector::All
        } else if codes.is_empty() {
            LocaleSelector::Default
        } else {
            LocaleSelector::Codes(codes)
        };
        self.set_locale(selector)
    }

    /// `locale=*`: every locale.
    pub fn all_locales(self) -> Self
    where
        T: Localized,
    {
        self.set_locale(LocaleSelector::All)
    }

    fn set_locale(mut self, locale: LocaleSelector) -> Self {
        self.query_mut().locale = locale;
        self
    }
}
