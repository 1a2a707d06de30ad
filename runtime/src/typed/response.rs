//! The JSON envelopes of the content API with typed entries: [`ListResponse`]
//! (`{data: [...], meta: {pagination}}`), [`SingleResponse`] (`{data: {...}, meta: {}}`),
//! [`PaginationMeta`] (page or offset shape) and [`ErrorBody`] (Strapi's error object).
//!
//! They read and write the exact JSON strata and Strapi send: deserializing a body and
//! serializing it again gives the same JSON value. The HTTP client returns them, and
//! [`TypedPage::into_response`](super::TypedPage) builds one on the server side.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::query::{PageMode, Pagination};

/// `GET /api/<plural>`: the entries of one page and the pagination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(bound(serialize = "T: Serialize", deserialize = "T: DeserializeOwned"))]
pub struct ListResponse<T> {
    /// The entries, in order.
    pub data: Vec<T>,
    /// `meta`: the pagination (and any other key a plugin adds).
    pub meta: ListMeta,
}

/// The `meta` object of a list response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ListMeta {
    /// `meta.pagination`.
    pub pagination: PaginationMeta,
    /// Other keys of `meta`, kept as they came (Strapi itself sends none).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `meta.pagination`, in the shape the request chose: `pagination[page]`/`[pageSize]`
/// (the default) or `pagination[start]`/`[limit]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum PaginationMeta {
    /// `{page, pageSize, pageCount?, total?}`.
    Page(PagePagination),
    /// `{start, limit, total?}`.
    Offset(OffsetPagination),
}

/// Page-based pagination metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PagePagination {
    /// The page, from 1.
    pub page: u64,
    /// Entries per page.
    pub page_size: u64,
    /// The number of pages (absent with `pagination[withCount]=false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_count: Option<u64>,
    /// The number of matching entries (absent with `pagination[withCount]=false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

/// Offset-based pagination metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct OffsetPagination {
    /// The offset of the first entry.
    pub start: u64,
    /// The most entries returned.
    pub limit: u64,
    /// The number of matching entries (absent with `pagination[withCount]=false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

impl PaginationMeta {
    /// The metadata strata sends for a request paginated by `p` with `total` matching
    /// entries (`None` when counting was not asked for).
    pub fn new(p: &Pagination, total: Option<u64>) -> Self {
        match p.mode {
            PageMode::Page => PaginationMeta::Page(PagePagination {
                page: p.page(),
                page_size: p.limit,
                page_count: total.map(|t| t.div_ceil(Ord::max(p.limit, 1))),
                total,
            }),
            PageMode::Offset => PaginationMeta::Offset(OffsetPagination {
                start: p.start,
                limit: p.limit,
                total,
            }),
        }
    }

    /// The number of matching entries, when it was counted.
    pub fn total(&self) -> Option<u64> {
        match self {
            PaginationMeta::Page(p) => p.total,
            PaginationMeta::Offset(o) => o.total,
        }
    }
}

/// `GET /api/<plural>/<documentId>` and single types: one entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(bound(serialize = "T: Serialize", deserialize = "T: DeserializeOwned"))]
pub struct SingleResponse<T> {
    /// The entry.
    pub data: T,
    /// `meta` (empty in Strapi's content API).
    #[serde(default)]
    pub meta: Map<String, Value>,
}

/// The `error` object of an error response:
/// `{"data": null, "error": {"status", "name", "message", "details"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ErrorBody {
    /// The HTTP status.
    pub status: u16,
    /// Strapi's error class (`ValidationError`, `NotFoundError`, `ForbiddenError`, …).
    pub name: String,
    /// The message.
    pub message: String,
    /// Details (`{key, path, source, …}` for validation errors; absent on a 500).
    #[serde(default)]
    pub details: Value,
}

/// A whole error response, as sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ErrorResponse {
    /// Always `null`.
    pub data: Value,
    /// The error.
    pub error: ErrorBody,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_pagination_shapes_round_trip() {
        for meta in [
            json!({"page": 2, "pageSize": 10, "pageCount": 3, "total": 27}),
            json!({"page": 1, "pageSize": 25}),
            json!({"start": 5, "limit": 3, "total": 27}),
            json!({"start": 0, "limit": 1}),
        ] {
            let body = json!({"data": [{"id": 1}], "meta": {"pagination": meta}});
            let typed: ListResponse<Value> = serde_json::from_value(body.clone()).unwrap();
            assert_eq!(serde_json::to_value(&typed).unwrap(), body);
        }
        let typed: PaginationMeta =
            serde_json::from_value(json!({"start": 5, "limit": 3})).unwrap();
        assert!(matches!(typed, PaginationMeta::Offset(_)));
    }

    #[test]
    fn pagination_meta_matches_the_server_rule() {
        let p = Pagination {
            mode: PageMode::Page,
            start: 20,
            limit: 10,
            with_count: true,
        };
        assert_eq!(
            serde_json::to_value(PaginationMeta::new(&p, Some(27))).unwrap(),
            json!({"page": 3, "pageSize": 10, "pageCount": 3, "total": 27})
        );
        assert_eq!(PaginationMeta::new(&p, Some(27)).total(), Some(27));
    }
}
