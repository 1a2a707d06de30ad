//! koa-router matches the static text of a route regardless of case (`sensitive:
//! false`), so Strapi answers `/API/Articles` as it answers `/api/articles`. axum's router
//! is case-sensitive: [`RouteCase`] gives a request's path the routes' case before
//! routing, for the parts that are static text in Strapi's routes (the API prefix, a
//! content type's API name, `graphql`). The rest, a documentId, is kept as sent.

use std::collections::HashSet;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::Uri;

/// What [`RouteCase::apply`] folds: the prefix's segments and the API names, in the
/// routes' (lower) case.
#[derive(Debug, Clone)]
pub struct RouteCase {
    prefix: Arc<[String]>,
    names: Arc<HashSet<String>>,
}

impl RouteCase {
    /// For routes under `prefix` (`/api`) whose next segment is one of `names`.
    pub fn new(prefix: &str, names: impl IntoIterator<Item = String>) -> Self {
        RouteCase {
            prefix: prefix
                .split('/')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            names: Arc::new(names.into_iter().collect()),
        }
    }

    /// `request`, its path in the routes' case where it names a route in another case.
    pub fn apply(&self, mut request: Request) -> Request {
        let path = request.uri().path();
        // Nearly every request is in the routes' case already.
        if !path.bytes().any(|b| b.is_ascii_uppercase()) {
            return request;
        }
        let Some(folded) = self.fold(path) else {
            return request;
        };
        let target = match request.uri().query() {
            Some(query) => format!("{folded}?{query}"),
            None => folded,
        };
        let mut parts = request.uri().clone().into_parts();
        if let Ok(path_and_query) = target.parse() {
            parts.path_and_query = Some(path_and_query);
            if let Ok(uri) = Uri::from_parts(parts) {
                *request.uri_mut() = uri;
            }
        }
        request
    }

    /// The path with its static segments in the routes' case; `None` when nothing changes.
    fn fold(&self, path: &str) -> Option<String> {
        let mut segments: Vec<String> = path.split('/').map(str::to_owned).collect();
        // segments[0] is the empty text before the leading `/`.
        if let Some(first) = segments.get_mut(1)
            && first.eq_ignore_ascii_case("graphql")
        {
            *first = "graphql".into();
        }
        let at = |i: usize| segments.get(i).map(String::as_str);
        let under_prefix = self
            .prefix
            .iter()
            .enumerate()
            .all(|(i, p)| at(i + 1).is_some_and(|s| s.eq_ignore_ascii_case(p)));
        if under_prefix && !self.prefix.is_empty() {
            for (i, p) in self.prefix.iter().enumerate() {
                segments[i + 1].clone_from(p);
            }
            let name = self.prefix.len() + 1;
            if let Some(segment) = segments.get_mut(name) {
                let lower = segment.to_ascii_lowercase();
                if self.names.contains(&lower) {
                    *segment = lower;
                }
            }
        }
        let folded = segments.join("/");
        (folded != path).then_some(folded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case() -> RouteCase {
        RouteCase::new("/api", ["articles".to_owned(), "homepage".to_owned()])
    }

    #[test]
    fn static_segments_take_the_routes_case_and_ids_keep_theirs() {
        let c = case();
        assert_eq!(c.fold("/API/Articles"), Some("/api/articles".into()));
        assert_eq!(
            c.fold("/Api/ARTICLES/AbC123/"),
            Some("/api/articles/AbC123/".into())
        );
        assert_eq!(c.fold("/GraphQL"), Some("/graphql".into()));
        assert_eq!(c.fold("/api/articles/AbC"), None);
        assert_eq!(c.fold("/API/Nope"), Some("/api/Nope".into()));
        assert_eq!(c.fold("/Other/Articles"), None);
    }

    #[test]
    fn the_query_is_kept() {
        let request = Request::builder()
            .uri("/API/Articles?filters[title][$eq]=Hello")
            .body(axum::body::Body::empty())
            .unwrap_or_default();
        let request = case().apply(request);
        assert_eq!(
            request.uri().to_string(),
            "/api/articles?filters[title][$eq]=Hello"
        );
    }
}
