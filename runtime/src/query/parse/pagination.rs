//! `pagination` (and the top-level `start`/`limit`/`page`/`pageSize` rules): page or
//! offset, with Strapi's defaults, clamping and messages.

use super::*;

impl Parser<'_> {
    pub(super) fn pagination(&self, q: &QsMap) -> Result<Pagination, QueryError> {
        let strict = self.config.documents_strict_params;
        if strict {
            // The document service's `checkPagination`: a top-level `page`/`pageSize` meets
            // the `start`/`limit` the REST layer always passes (empty ones are omitted).
            let given = |k: &str| q.get(k).is_some_and(|v| !is_param_empty(v));
            if given("page") || given("pageSize") {
                return Err(QueryError::Invalid(
                    "Invalid pagination parameters. Cannot use both page-based (page, pageSize) and offset-based (start, limit) pagination in the same query.".into(),
                ));
            }
        } else if q.contains_key("page") || q.contains_key("pageSize") {
            return Err(QueryError::Pagination(
                "Invalid pagination attributes. The page parameters are incorrect and must be in the pagination object".into(),
            ));
        }
        let empty = QsMap::new();
        let p = match q.get("pagination") {
            Some(QsValue::Object(m)) => m,
            _ => &empty,
        };
        // JavaScript's `Number()` (lodash `toNumber`, as Strapi converts them): of a value's
        // string form, where the empty string is 0 and anything else not a number NaN.
        let raw = |k: &str| {
            p.get(k).map(|v| match v {
                QsValue::Null => 0.0,
                other => {
                    let s = other.js_string();
                    if s.trim().is_empty() {
                        0.0
                    } else {
                        values::js_number(&s).unwrap_or(f64::NAN)
                    }
                }
            })
        };
        let with_count = match p.get("withCount") {
            None => self.config.with_count,
            Some(v) => match v.as_str().and_then(values::strict_bool) {
                Some(b) => b,
                None => return Err(QueryError::Invalid(
                    "Invalid withCount parameter. Expected \"t\",\"1\",\"true\",\"false\",\"0\",\"f\"".into(),
                )),
            },
        };
        let has_page = p.contains_key("page") || p.contains_key("pageSize");
        let has_offset = p.contains_key("start") || p.contains_key("limit");
        if has_page && has_offset {
            return Err(QueryError::Pagination(
                "Cannot use both page & offset pagination in the same query".into(),
            ));
        }
        let max = self.config.max_limit.map(|m| m as f64);
        let default = self.config.default_limit as f64;
        let (mode, start, limit) = if has_offset {
            let start = raw("start").unwrap_or(0.0);
            // f64::max would turn NaN into the bound; NaN must reach the integer check.
            let start = if start.is_nan() {
                start
            } else {
                start.max(0.0)
            };
            let mut limit = raw("limit").unwrap_or(default);
            if let Some(m) = max
                && (limit.is_nan() || limit >= m)
            {
                limit = m;
            }
            let limit = if limit.is_nan() {
                limit
            } else {
                limit.max(1.0)
            };
            (PageMode::Offset, start, limit)
        } else {
            let page = raw("page").unwrap_or(1.0);
            let mut size = raw("pageSize").unwrap_or(default);
            if !size.is_nan() {
                size = size.max(1.0);
            }
            // As for `limit`: a page size that is not a number becomes the maximum.
            if let Some(m) = max
                && (size.is_nan() || size > m)
            {
                size = m;
            }
            let page = if page.is_nan() { page } else { page.max(1.0) };
            let start = (page - 1.0) * size;
            let start = if start.is_nan() {
                start
            } else {
                start.max(0.0)
            };
            (PageMode::Page, start, size)
        };
        // Strict documents check the `start`/`limit` the REST layer computed first
        // (`parsePaginationInt`); otherwise the query converter does, with its words.
        let start = as_count(start).ok_or_else(|| {
            QueryError::Invalid(match strict {
                true => format!(
                    "Invalid parameter at 'start'. Expected integer >= 0, received: {}",
                    values::js_number_string(start)
                ),
                false => format!(
                    "convertStartQueryParams expected a positive integer got {}",
                    values::js_number_string(start)
                ),
            })
        })?;
        let limit = as_count(limit).ok_or_else(|| {
            QueryError::Invalid(match strict {
                true => format!(
                    "Invalid parameter at 'limit'. Expected integer >= 1 or -1, received: {}",
                    values::js_number_string(limit)
                ),
                false => format!(
                    "convertLimitQueryParams expected a positive integer got {}",
                    values::js_number_string(limit)
                ),
            })
        })?;
        Ok(Pagination {
            mode,
            start,
            limit: limit.max(1),
            with_count,
        })
    }
}

/// The document service's `isParamEmpty`: null, or the empty string.
pub(super) fn is_param_empty(v: &QsValue) -> bool {
    matches!(v, QsValue::Null) || v.as_str() == Some("")
}
