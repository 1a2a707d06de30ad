//! Typed queries against the [`Store`] (feature `store`), for programs that embed strata:
//! [`Store::find`], [`Store::find_one`] and [`Store::find_single`] run a [`TypedQuery`]
//! and deserialize the entries into the generated struct.
//!
//! ```ignore
//! let page = store.find(&TypedQuery::<Article>::new())?;
//! for article in &page.entries { /* article.title, … */ }
//! let body = page.into_response(); // the JSON `GET /api/articles` would send
//! ```
//!
//! # One model, two loads
//!
//! A `TypedQuery<T>` names schemas and attributes by index into `T::model()` (the schema
//! files embedded in generated code), while a `Store` serves the model it was opened with
//! (usually loaded from disk). So the query is first printed to its canonical query string
//! and parsed against the store's model: the path an HTTP request takes, with every type
//! findable and no size limits (the caller is trusted code). `parse(print(q)) == q`, so for
//! the same schemas this is the same `Query`; if the store's schemas differ from the ones
//! `T` was generated from, the result is a [`StoreError`] naming the problem, never a query
//! on the wrong attribute. The cost is a few microseconds, small next to the SQL.
//!
//! Blocking: these methods run SQLite on the calling thread. In async code, call them
//! inside `tokio::task::spawn_blocking` (as `examples/embed.rs` does).

use std::borrow::Cow;

use super::{ContentType, ListMeta, ListResponse, PaginationMeta, TypedQuery};
use crate::query::{Pagination, Permissions, Query, QueryConfig, QueryLimits, parse_query};
use crate::schema::SchemaId;
use crate::store::{Entry, Store, StoreError};

/// One page of typed entries: what [`Store::find`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedPage<T> {
    /// The entries, in order.
    pub entries: Vec<T>,
    /// The number of matching entries (`None` with `pagination[withCount]=false`).
    pub total: Option<u64>,
    /// The pagination the query asked for.
    pub pagination: Pagination,
}

impl<T> TypedPage<T> {
    /// `meta.pagination` as the server sends it for this page.
    pub fn pagination_meta(&self) -> PaginationMeta {
        PaginationMeta::new(&self.pagination, self.total)
    }

    /// The list response (`{data, meta: {pagination}}`) the HTTP endpoint would send.
    pub fn into_response(self) -> ListResponse<T> {
        let pagination = self.pagination_meta();
        ListResponse {
            data: self.entries,
            meta: ListMeta {
                pagination,
                other: serde_json::Map::new(),
            },
        }
    }
}

impl Store {
    /// `GET /api/<plural>` as typed entries: the page the query selects and the total.
    pub fn find<T: ContentType>(&self, query: &TypedQuery<T>) -> Result<TypedPage<T>, StoreError> {
        let q = self.store_query(query)?;
        let page = self.read(|r| r.find(&q))?;
        let entries = page
            .entries
            .iter()
            .map(decode::<T>)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TypedPage {
            entries,
            total: page.total,
            pagination: q.pagination,
        })
    }

    /// `GET /api/<plural>/<documentId>` as a typed entry: `None` when no entry of that
    /// document matches the query's status and locale (the endpoint's 404).
    /// The arguments are in the order of the HTTP client's `find_one` and of the URL.
    pub fn find_one<T: ContentType>(
        &self,
        document_id: &str,
        query: &TypedQuery<T>,
    ) -> Result<Option<T>, StoreError> {
        self.first(query, Some(document_id))
    }

    /// `GET /api/<singular>` of a single type as a typed entry: `None` when it has no entry
    /// for the query's status and locale (the endpoint's 404).
    pub fn find_single<T: ContentType>(
        &self,
        query: &TypedQuery<T>,
    ) -> Result<Option<T>, StoreError> {
        self.first(query, None)
    }

    pub(super) fn first<T: ContentType>(
        &self,
        query: &TypedQuery<T>,
        document_id: Option<&str>,
    ) -> Result<Option<T>, StoreError> {
        let q = self.first_query(query, document_id)?;
        self.read(|r| r.find_first(&q))?
            .as_ref()
            .map(decode::<T>)
            .transpose()
    }

    /// The query on this store's model that [`Self::first`] reads: `query`, restricted to
    /// the document when one is named.
    pub(super) fn first_query<T: ContentType>(
        &self,
        query: &TypedQuery<T>,
        document_id: Option<&str>,
    ) -> Result<Query, StoreError> {
        let mut q = self.store_query(query)?.into_owned();
        if let Some(id) = document_id {
            q.restrict_to_document(id);
        }
        Ok(q)
    }

    /// The typed query as a query on this store's model (see the module documentation).
    fn store_query<'q, T: ContentType>(
        &self,
        query: &'q TypedQuery<T>,
    ) -> Result<Cow<'q, Query>, StoreError> {
        let model = self.model();
        if std::ptr::eq(model.as_ref(), T::model()) {
            return Ok(Cow::Borrowed(query.query()));
        }
        let schema = store_schema::<T>(self)?;
        let text = query.to_query_string();
        parse_query(
            &text,
            model,
            schema,
            &Permissions::all(model),
            &trusted_config(),
        )
        .map(Cow::Owned)
        .map_err(|e| {
            StoreError::Other(format!(
                "the typed query on {} does not fit the store's content model ({e}); \
                 were the types generated from other schemas? query: {text}",
                T::UID
            ))
        })
    }
}

/// The schema of `T` in the store's content model (which may be another load of the
/// same schemas than `T::model()`): found by uid.
pub(super) fn store_schema<T: ContentType>(store: &Store) -> Result<SchemaId, StoreError> {
    store.model().by_uid(T::UID).map(|s| s.id).ok_or_else(|| {
        StoreError::Other(format!(
            "the store's content model has no type {} (the model `{}` was generated from)",
            T::UID,
            std::any::type_name::<T>()
        ))
    })
}

/// Parsing settings for trusted, typed queries: no maximum page size and no size limits.
fn trusted_config() -> QueryConfig {
    QueryConfig {
        max_limit: None,
        limits: QueryLimits {
            max_query_length: usize::MAX,
            max_depth: usize::MAX,
            max_conditions: usize::MAX,
            max_in_values: usize::MAX,
            max_populate_depth: usize::MAX,
        },
        ..QueryConfig::default()
    }
}

pub(super) fn decode<T: ContentType>(entry: &Entry) -> Result<T, StoreError> {
    entry.deserialize().map_err(|e| {
        StoreError::Other(format!(
            "cannot read an entry of {} into {}: {e}",
            T::UID,
            std::any::type_name::<T>()
        ))
    })
}
