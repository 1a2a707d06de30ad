//! Typed writes against the [`Store`] (feature `store`), for programs that embed strata:
//! [`Store::create`], [`Store::update`], [`Store::delete`] and, for single types,
//! [`Store::update_single`] and [`Store::delete_single`].
//!
//! ```ignore
//! let created: Article = store.create(
//!     &ArticleCreateInput { title: Some("Hello".into()), ..ArticleCreateInput::new() },
//!     &WriteOptions::draft().locale("fr"),
//! )?;
//! let id = DocumentId::<Article>::new(created.document_id.clone());
//! store.update(&id, &ArticleUpdateInput { views: Patch::Clear, ..Default::default() }, &WriteOptions::published())?;
//! store.delete(&id, &WriteOptions::default())?;
//! ```
//!
//! A write takes the same path as `POST`/`PUT`/`DELETE` on the server: the input is
//! serialized to the JSON `data` object Strapi's REST takes and handed to
//! [`crate::write::create`]/[`update`](crate::write::update)/[`delete`](crate::write::delete)
//! with every type readable (the caller is trusted code), so every rule, default and
//! error is the server's. The entry returned is read inside the write's transaction as
//! `find_one` reads it (the version written: the options' status and locale, nothing
//! populated).
//!
//! Blocking, as the typed reads: in async code, call these inside
//! `tokio::task::spawn_blocking`.

use serde::Serialize;
use serde_json::{Map, Value};

use super::WriteOptions;
use super::store::{decode, store_schema};
use super::{ContentType, CreateInput, DocumentId, TypedQuery, UpdateInput, ValidationError};
use crate::query::{LocaleSelector, Permissions, Status};
use crate::schema::SchemaKind;
use crate::store::{Entry, Reader, Store, StoreError};
use crate::write::{self, Action, WriteError, WriteRequest, WriteStatus, Written};

/// Why a typed write on the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreWriteError {
    /// Strapi's 400 `ValidationError`, typed: each failed rule with its path.
    #[error(transparent)]
    Validation(#[from] ValidationError),
    /// Strapi's 400 `ApplicationError` (a component id that belongs to another entity).
    #[error("{0}")]
    Application(String),
    /// No such document (Strapi's 404).
    #[error("Not Found")]
    NotFound,
    /// A method used with the wrong kind of content type (`create` on a single type).
    #[error("{0}")]
    Usage(String),
    /// The database failed, or the entry written does not fit the generated type.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<WriteError> for StoreWriteError {
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::Validation { message, details } => {
                StoreWriteError::Validation(ValidationError::new(message, details))
            }
            WriteError::Application(message) | WriteError::Plain(message) => {
                StoreWriteError::Application(message)
            }
            WriteError::NotFound => StoreWriteError::NotFound,
            WriteError::Store(e) => StoreWriteError::Store(e),
        }
    }
}

impl Store {
    /// `POST /api/<plural>`: creates a document of a collection type from its typed input
    /// (published unless the options say draft) and returns the entry written.
    pub fn create<I: CreateInput>(
        &self,
        data: &I,
        options: &WriteOptions,
    ) -> Result<I::Entry, StoreWriteError> {
        expect_kind::<I::Entry>(SchemaKind::CollectionType, "create", "update_single")?;
        self.write_entry(data, None, options, Action::Create)
    }

    /// `PUT /api/<plural>/<documentId>`: updates the document's version in the options'
    /// locale (or adds that locale) and returns the entry written.
    pub fn update<I: UpdateInput>(
        &self,
        document_id: &DocumentId<I::Entry>,
        data: &I,
        options: &WriteOptions,
    ) -> Result<I::Entry, StoreWriteError> {
        expect_kind::<I::Entry>(SchemaKind::CollectionType, "update", "update_single")?;
        self.write_entry(data, Some(document_id.as_str()), options, Action::Update)
    }

    /// `PUT /api/<singular>`: writes a single type's entry (creating its document when it
    /// has none) and returns it.
    pub fn update_single<I: UpdateInput>(
        &self,
        data: &I,
        options: &WriteOptions,
    ) -> Result<I::Entry, StoreWriteError> {
        expect_kind::<I::Entry>(SchemaKind::SingleType, "update_single", "create or update")?;
        self.write_entry(data, None, options, Action::Update)
    }

    /// `DELETE /api/<plural>/<documentId>`: deletes the document in the options' locale
    /// (`"*"`: every locale). A document that does not exist is no error, as in Strapi;
    /// [`WriteOptions::draft`] is Strapi's `Cannot delete a draft document`.
    pub fn delete<T: ContentType>(
        &self,
        document_id: &DocumentId<T>,
        options: &WriteOptions,
    ) -> Result<(), StoreWriteError> {
        expect_kind::<T>(SchemaKind::CollectionType, "delete", "delete_single")?;
        self.delete_document::<T>(Some(document_id.as_str()), options)
    }

    /// `DELETE /api/<singular>`: deletes a single type's entry in the options' locale.
    pub fn delete_single<T: ContentType>(
        &self,
        options: &WriteOptions,
    ) -> Result<(), StoreWriteError> {
        expect_kind::<T>(SchemaKind::SingleType, "delete_single", "delete")?;
        self.delete_document::<T>(None, options)
    }

    fn write_entry<T: ContentType>(
        &self,
        data: &impl Serialize,
        document_id: Option<&str>,
        options: &WriteOptions,
        action: Action,
    ) -> Result<T, StoreWriteError> {
        let data = data_object::<T>(data)?;
        let readable = Permissions::all(self.model());
        let request = WriteRequest {
            schema: store_schema::<T>(self)?,
            document_id,
            locale: options.locale.as_deref(),
            status: write_status(options.status),
            data: &data,
            readable: &readable,
            now_ms: crate::clock::now_ms(),
            fields_omit_locale: false,
            shows_localizations: false,
            refuses_unknown_keys: true,
            answers_before_self_sync: true,
            // A typed answer populates no deeper than its first level.
            shows_far_end_lists: false,
        };
        let read = |reader: &Reader<'_>, written: Written| {
            self.written_entry::<T>(reader, &written, options.status)
        };
        let entry = write::write_and_read(self, &request, action, read)?;
        decode::<T>(&entry.ok_or(StoreWriteError::NotFound)?).map_err(StoreWriteError::from)
    }

    /// The version a write left, read inside its transaction as `find_one` reads it.
    fn written_entry<T: ContentType>(
        &self,
        reader: &Reader<'_>,
        written: &Written,
        status: Status,
    ) -> Result<Option<Entry>, StoreError> {
        let mut query = TypedQuery::<T>::new();
        query.query_mut().status = status;
        if let Some(locale) = &written.locale {
            query.query_mut().locale = LocaleSelector::Codes(vec![locale.clone()]);
        }
        reader.find_first(&self.first_query(&query, Some(&written.document_id))?)
    }

    fn delete_document<T: ContentType>(
        &self,
        document_id: Option<&str>,
        options: &WriteOptions,
    ) -> Result<(), StoreWriteError> {
        write::delete(
            self,
            store_schema::<T>(self)?,
            document_id,
            options.locale.as_deref(),
            write_status(options.status),
            crate::clock::now_ms(),
        )?;
        Ok(())
    }
}

fn write_status(status: Status) -> WriteStatus {
    match status {
        Status::Published => WriteStatus::Published,
        Status::Draft => WriteStatus::Draft,
    }
}

/// The input as the request body's `data` object.
fn data_object<T: ContentType>(
    data: &impl Serialize,
) -> Result<Map<String, Value>, StoreWriteError> {
    match serde_json::to_value(data) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(StoreWriteError::Usage(format!(
            "the input of a write of {} must serialize to a JSON object, not {other}",
            T::UID
        ))),
        Err(e) => Err(StoreWriteError::Usage(format!(
            "the input of a write of {} does not serialize: {e}",
            T::UID
        ))),
    }
}

fn expect_kind<T: ContentType>(
    kind: SchemaKind,
    method: &str,
    instead: &str,
) -> Result<(), StoreWriteError> {
    if T::KIND == kind {
        return Ok(());
    }
    Err(StoreWriteError::Usage(format!(
        "{method} is for {kind:?} types, but {} is a {:?}; use {instead}",
        T::UID,
        T::KIND
    )))
}
