//! A typed HTTP client of the content API (feature `client`): typed queries out, generated
//! structs back, from strata or from a real Strapi v5 (the wire format is the same).
//!
//! ```ignore
//! use strata::client::Client;
//! use strata::typed::TypedQuery;
//!
//! let client = Client::new("http://127.0.0.1:1337").with_token("…");
//! let page = client.find(&TypedQuery::<Article>::new()).await?;
//! println!("{} of {:?}", page.data.len(), page.meta.pagination.total());
//! let one: Option<Article> = client.find_one("article00000000000000001", &query).await?;
//! ```
//!
//! * The query is sent as its canonical query string ([`TypedQuery::to_query_string`]), which
//!   Strapi's own parser reads the same way strata's does.
//! * Routes: `{base}{prefix}/{pluralName}` (`find`), `…/{pluralName}/{documentId}`
//!   (`find_one`), `{base}{prefix}/{singularName}` (`find_single`); the prefix is `/api`
//!   unless [`Client::with_prefix`] says otherwise.
//! * **404s.** `find_one` and `find_single` answer `Ok(None)` for Strapi's 404
//!   `NotFoundError`: the document does not exist in that status and locale (or the
//!   single type has no entry). Strapi sends the same body for a route that does not exist,
//!   so a wrong prefix also reads as `None` there; `find` surfaces it as
//!   [`ClientError::Api`] with status 404, which is the quickest way to check a setup.
//! * Every other failure is a [`ClientError`]: Strapi's error body (status, name,
//!   message, details) as [`ClientError::Api`], transport failures, bodies that do not fit
//!   the generated types.
//! * **Writes.** [`Client::create`], [`Client::update`] and [`Client::delete`] (and
//!   [`Client::update_single`], [`Client::delete_single`] for single types) send the
//!   generated input types as `{"data": …}` with `?status=draft` and `?locale=…` from
//!   [`WriteOptions`], and return the entry the server answers with. A 400
//!   `ValidationError` is [`ClientError::Validation`], carrying each failure's path.
//! * Plain HTTP only: reqwest is built without TLS (put a TLS-terminating proxy in front,
//!   or pass your own `reqwest::Client` built with a TLS feature to
//!   [`Client::with_http_client`]).

mod error;

pub use error::ClientError;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use reqwest::{Method, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::schema::SchemaKind;
use crate::typed::{
    ContentType, CreateInput, DocumentId, ErrorResponse, ListResponse, SingleResponse, TypedQuery,
    UpdateInput, ValidationError, WriteOptions,
};

/// The most body text kept in [`ClientError::Status`].
const BODY_EXCERPT: usize = 512;

/// A client of one server's content API.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base_url: String,
    prefix: String,
    token: Option<String>,
}

impl Client {
    /// A client of the server at `base_url` (`http://127.0.0.1:1337`), with routes under
    /// `/api`.
    pub fn new(base_url: impl Into<String>) -> Self {
        Client {
            http: reqwest::Client::new(),
            base_url: base_url.into().trim_end_matches('/').to_string(),
            prefix: "/api".into(),
            token: None,
        }
    }

    /// Sends `Authorization: Bearer <token>` (a Strapi API token or a users-permissions
    /// JWT) with every request.
    pub fn with_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The route prefix (`/api` by default; Strapi's `config/api.js` `rest.prefix`).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        let prefix = prefix.into();
        let trimmed = prefix.trim_matches('/');
        self.prefix = if trimmed.is_empty() {
            String::new()
        } else {
            format!("/{trimmed}")
        };
        self
    }

    /// Uses this reqwest client (timeouts, proxies, a TLS-enabled build…).
    pub fn with_http_client(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self
    }

    /// The base URL, without a trailing `/`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The route prefix (`/api`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// `GET {prefix}/<pluralName>?<query>`: one page of entries and the pagination.
    pub async fn find<T: ContentType>(
        &self,
        query: &TypedQuery<T>,
    ) -> Result<ListResponse<T>, ClientError> {
        expect_kind::<T>(SchemaKind::CollectionType, "find", "find_single")?;
        let url = self.url(&[T::PLURAL], query)?;
        let (status, body) = self.get(&url).await?;
        if is_success(status) {
            decode(&url, &body)
        } else {
            Err(api_error(status, &url, &body))
        }
    }

    /// `GET {prefix}/<pluralName>/<documentId>?<query>`: the entry of that document in the
    /// query's status and locale, or `None` (Strapi's 404).
    pub async fn find_one<T: ContentType>(
        &self,
        document_id: &str,
        query: &TypedQuery<T>,
    ) -> Result<Option<T>, ClientError> {
        expect_kind::<T>(SchemaKind::CollectionType, "find_one", "find_single")?;
        let url = self.url(&[T::PLURAL, document_id], query)?;
        self.one(&url).await
    }

    /// `GET {prefix}/<singularName>?<query>` of a single type: its entry, or `None` when it
    /// has none (Strapi's 404).
    pub async fn find_single<T: ContentType>(
        &self,
        query: &TypedQuery<T>,
    ) -> Result<Option<T>, ClientError> {
        expect_kind::<T>(SchemaKind::SingleType, "find_single", "find or find_one")?;
        let url = self.url(&[T::SINGULAR], query)?;
        self.one(&url).await
    }

    /// `POST {prefix}/<pluralName>?status=…&locale=…` with `{"data": <input>}`: creates a
    /// document of a collection type (published unless the options say draft) and returns
    /// the entry written.
    pub async fn create<I: CreateInput>(
        &self,
        data: &I,
        options: &WriteOptions,
    ) -> Result<I::Entry, ClientError> {
        expect_kind::<I::Entry>(SchemaKind::CollectionType, "create", "update_single")?;
        let url = self.write_url(&[<I::Entry as ContentType>::PLURAL], options)?;
        self.write(Method::POST, &url, data).await
    }

    /// `PUT {prefix}/<pluralName>/<documentId>?status=…&locale=…`: updates the document's
    /// version in the options' locale (or adds that locale) and returns the entry written.
    pub async fn update<I: UpdateInput>(
        &self,
        document_id: &DocumentId<I::Entry>,
        data: &I,
        options: &WriteOptions,
    ) -> Result<I::Entry, ClientError> {
        expect_kind::<I::Entry>(SchemaKind::CollectionType, "update", "update_single")?;
        let plural = <I::Entry as ContentType>::PLURAL;
        let url = self.write_url(&[plural, document_id.as_str()], options)?;
        self.write(Method::PUT, &url, data).await
    }

    /// `PUT {prefix}/<singularName>?status=…&locale=…`: writes a single type's entry and
    /// returns it.
    pub async fn update_single<I: UpdateInput>(
        &self,
        data: &I,
        options: &WriteOptions,
    ) -> Result<I::Entry, ClientError> {
        expect_kind::<I::Entry>(SchemaKind::SingleType, "update_single", "create or update")?;
        let url = self.write_url(&[<I::Entry as ContentType>::SINGULAR], options)?;
        self.write(Method::PUT, &url, data).await
    }

    /// `DELETE {prefix}/<pluralName>/<documentId>?locale=…`: deletes the document in the
    /// options' locale (`"*"`: every locale). Strapi answers 204 whether or not it existed.
    pub async fn delete<T: ContentType>(
        &self,
        document_id: &DocumentId<T>,
        options: &WriteOptions,
    ) -> Result<(), ClientError> {
        expect_kind::<T>(SchemaKind::CollectionType, "delete", "delete_single")?;
        let url = self.write_url(&[T::PLURAL, document_id.as_str()], options)?;
        self.remove(&url).await
    }

    /// `DELETE {prefix}/<singularName>?locale=…`: deletes a single type's entry.
    pub async fn delete_single<T: ContentType>(
        &self,
        options: &WriteOptions,
    ) -> Result<(), ClientError> {
        expect_kind::<T>(SchemaKind::SingleType, "delete_single", "delete")?;
        let url = self.write_url(&[T::SINGULAR], options)?;
        self.remove(&url).await
    }

    async fn write<T: ContentType>(
        &self,
        method: Method,
        url: &Url,
        data: &impl Serialize,
    ) -> Result<T, ClientError> {
        let body = serde_json::to_vec(&serde_json::json!({ "data": data })).map_err(|e| {
            ClientError::Usage(format!(
                "the input of a write of {} does not serialize: {e}",
                T::UID
            ))
        })?;
        let (status, answer) = self.send(method, url, Some(body)).await?;
        if is_success(status) {
            return decode::<SingleResponse<T>>(url, &answer).map(|r| r.data);
        }
        Err(match api_error(status, url, &answer) {
            ClientError::Api {
                status: 400,
                name,
                message,
                details,
            } if name == "ValidationError" => {
                ClientError::Validation(ValidationError::new(message, details))
            }
            e => e,
        })
    }

    async fn remove(&self, url: &Url) -> Result<(), ClientError> {
        let (status, answer) = self.send(Method::DELETE, url, None).await?;
        if is_success(status) {
            Ok(())
        } else {
            Err(api_error(status, url, &answer))
        }
    }

    async fn one<T: ContentType>(&self, url: &Url) -> Result<Option<T>, ClientError> {
        let (status, body) = self.get(url).await?;
        if is_success(status) {
            return decode::<SingleResponse<T>>(url, &body).map(|r| Some(r.data));
        }
        match api_error(status, url, &body) {
            ClientError::Api { status: 404, .. } => Ok(None),
            e => Err(e),
        }
    }

    /// `{base}{prefix}/{segments…}?{query}`; segments are percent-encoded.
    fn url<T: ContentType>(
        &self,
        segments: &[&str],
        query: &TypedQuery<T>,
    ) -> Result<Url, ClientError> {
        let mut url = self.route(segments)?;
        url.set_query(Some(&query.to_query_string()));
        Ok(url)
    }

    /// `{base}{prefix}/{segments…}?status=…&locale=…` (no query when both are defaults).
    fn write_url(&self, segments: &[&str], options: &WriteOptions) -> Result<Url, ClientError> {
        let mut url = self.route(segments)?;
        let pairs = options.query_pairs();
        if !pairs.is_empty() {
            url.query_pairs_mut().extend_pairs(pairs);
        }
        Ok(url)
    }

    /// `{base}{prefix}/{segments…}`; segments are percent-encoded.
    fn route(&self, segments: &[&str]) -> Result<Url, ClientError> {
        let root = format!("{}{}", self.base_url, self.prefix);
        let mut url = Url::parse(&root).map_err(|e| ClientError::Url {
            url: root.clone(),
            reason: e.to_string(),
        })?;
        match url.path_segments_mut() {
            Ok(mut path) => {
                path.pop_if_empty().extend(segments);
            }
            Err(()) => {
                return Err(ClientError::Url {
                    url: root,
                    reason: "the base URL cannot have a path".into(),
                });
            }
        }
        Ok(url)
    }

    async fn get(&self, url: &Url) -> Result<(u16, Vec<u8>), ClientError> {
        self.send(Method::GET, url, None).await
    }

    /// Sends a request (with a JSON body, if any) and reads the status and body.
    async fn send(
        &self,
        method: Method,
        url: &Url,
        json: Option<Vec<u8>>,
    ) -> Result<(u16, Vec<u8>), ClientError> {
        let transport = |source| ClientError::Transport {
            url: url.to_string(),
            source,
        };
        let mut request = self
            .http
            .request(method, url.clone())
            .header(ACCEPT, HeaderValue::from_static("application/json"));
        if let Some(body) = json {
            request = request
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body);
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(transport)?;
        let status = response.status().as_u16();
        let body = response.bytes().await.map_err(transport)?;
        Ok((status, body.to_vec()))
    }
}

fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// `method` is for `kind` types; for the other kind, the error names `instead`.
fn expect_kind<T: ContentType>(
    kind: SchemaKind,
    method: &str,
    instead: &str,
) -> Result<(), ClientError> {
    if T::KIND == kind {
        return Ok(());
    }
    Err(ClientError::Usage(format!(
        "{method} is for {kind:?} types, but {} is a {:?}; use {instead}",
        T::UID,
        T::KIND
    )))
}

fn decode<R: DeserializeOwned>(url: &Url, body: &[u8]) -> Result<R, ClientError> {
    serde_json::from_slice(body).map_err(|source| ClientError::Decode {
        url: url.to_string(),
        target: std::any::type_name::<R>(),
        source,
    })
}

/// The error of a non-success answer: Strapi's body when it is one.
fn api_error(status: u16, url: &Url, body: &[u8]) -> ClientError {
    match serde_json::from_slice::<ErrorResponse>(body) {
        Ok(e) => ClientError::Api {
            status,
            name: e.error.name,
            message: e.error.message,
            details: e.error.details,
        },
        Err(_) => {
            let text = String::from_utf8_lossy(body);
            let excerpt: String = text.chars().take(BODY_EXCERPT).collect();
            ClientError::Status {
                status,
                url: url.to_string(),
                body: excerpt,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_normalised() {
        let c = Client::new("http://localhost:1337/").with_prefix("v1/");
        assert_eq!((c.base_url(), c.prefix()), ("http://localhost:1337", "/v1"));
        assert_eq!(Client::new("http://x").with_prefix("/").prefix(), "");
    }

    #[test]
    fn error_bodies_become_api_errors() {
        let url = Url::parse("http://x/api/articles").unwrap();
        let body = br#"{"data":null,"error":{"status":400,"name":"ValidationError","message":"Invalid key nope","details":{"key":"nope"}}}"#;
        match api_error(400, &url, body) {
            ClientError::Api {
                status,
                name,
                message,
                details,
            } => {
                assert_eq!((status, name.as_str()), (400, "ValidationError"));
                assert_eq!(message, "Invalid key nope");
                assert_eq!(details, serde_json::json!({"key": "nope"}));
            }
            other => panic!("{other:?}"),
        }
        let e = api_error(502, &url, b"<html>bad gateway</html>");
        assert!(matches!(e, ClientError::Status { status: 502, .. }), "{e}");
        assert_eq!(e.status(), Some(502));
    }
}
