//! Strapi's response envelopes around what the store returns: `{data: [...], meta:
//! {pagination}}` for lists and `{data: {...}, meta: {}}` for one entry, written as JSON
//! text around the entries' own text (which is copied, never parsed). The pagination
//! meta has one home, [`crate::typed::PaginationMeta`], shared with the typed client and
//! the typed store.

use crate::query::Pagination;
use crate::store::entry::write_array;
use crate::store::{Entry, Page};
use crate::typed::PaginationMeta;

/// The body of a list request.
pub fn list(page: &Page, pagination: &Pagination) -> Vec<u8> {
    let meta = PaginationMeta::new(pagination, page.total);
    let size: usize = page.entries.iter().map(|e| e.as_str().len() + 1).sum();
    let mut out = Vec::with_capacity(size + 128);
    out.extend_from_slice(b"{\"data\":");
    write_array(&mut out, &page.entries);
    out.extend_from_slice(b",\"meta\":{\"pagination\":");
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, &meta);
    out.extend_from_slice(b"}}");
    out
}

/// The body of a find-one or single-type request.
pub fn one(entry: &Entry) -> Vec<u8> {
    let mut out = Vec::with_capacity(entry.as_str().len() + 24);
    out.extend_from_slice(b"{\"data\":");
    out.extend_from_slice(entry.as_str().as_bytes());
    out.extend_from_slice(b",\"meta\":{}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::PageMode;

    fn entry(text: &str) -> Entry {
        Entry::from_json_bytes(text.as_bytes().to_vec())
    }

    #[test]
    fn envelopes_are_strapis() {
        let page = Page {
            entries: vec![entry(r#"{"id":1}"#), entry(r#"{"id":2,"a":[]}"#)],
            total: Some(7),
        };
        let pagination = Pagination {
            mode: PageMode::Page,
            start: 0,
            limit: 2,
            with_count: true,
        };
        let body: serde_json::Value =
            serde_json::from_slice(&list(&page, &pagination)).unwrap_or_default();
        assert_eq!(
            body,
            serde_json::json!({
                "data": [{"id": 1}, {"id": 2, "a": []}],
                "meta": {"pagination": {"page": 1, "pageSize": 2, "pageCount": 4, "total": 7}}
            })
        );
        assert_eq!(
            String::from_utf8_lossy(&one(&entry(r#"{"id":1}"#))),
            r#"{"data":{"id":1},"meta":{}}"#
        );
    }
}
