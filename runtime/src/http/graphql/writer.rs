//! Mutations: `StoreReader::write` over the REST write path (`crate::write`), and a
//! refused write in the GraphQL plugin's error shape.

use super::*;
use crate::store::Reader as EntryReader;

/// Mutations: Strapi's GraphQL plugin calls its document service, so they go through the
/// REST write path (`crate::write`) with the same grants, and answer the version written,
/// read inside the write's transaction as a read query would read it ([`Via::Mutation`]).
impl StoreReader {
    pub(super) fn write(
        &self,
        field: &RootField,
        args: Map<String, Value>,
        populate: &Populate,
    ) -> Result<Value, ReadError> {
        let schema = self
            .store
            .model()
            .by_uid(&field.uid)
            .ok_or_else(forbidden)?;
        let allowed = match field.kind {
            RootKind::Create => &self.grants.create,
            RootKind::Update => &self.grants.update,
            _ => &self.grants.delete,
        };
        if !allowed.can_find(schema.id) {
            return Err(forbidden());
        }
        let single = schema.kind == crate::schema::SchemaKind::SingleType;
        let document_id = args.get("documentId").and_then(Value::as_str);
        let locale = args.get("locale").and_then(Value::as_str);
        let now_ms = crate::clock::now_ms();
        if field.kind == RootKind::Delete {
            // A collection type's `delete<T>` passes only `documentId` to the document
            // service (the default locale's version goes); a single type's passes its
            // arguments, `locale` included, and needs a document.
            let locale = if single { locale } else { None };
            let deleted = writes::delete(
                &self.store,
                schema.id,
                document_id,
                locale,
                WriteStatus::Published,
                now_ms,
            )
            .map_err(from_write_error)?;
            return match (deleted, document_id) {
                (_, Some(id)) => Ok(json!({ "documentId": id })),
                (Some(id), None) => Ok(json!({ "documentId": id })),
                (None, None) => Err(not_found("Document not found")),
            };
        }
        let status = match args.get("status").and_then(Value::as_str) {
            Some("DRAFT") => WriteStatus::Draft,
            _ => WriteStatus::Published,
        };
        let mut data = match args.get("data") {
            Some(Value::Object(data)) => data.clone(),
            _ => Map::new(),
        };
        graphql::input::rest_data(&self.view, &field.uid, &mut data, &|uid| self.can_read(uid))
            .map_err(|e| validation(e.to_string()))?;
        let request = WriteRequest {
            schema: schema.id,
            document_id,
            locale,
            status,
            data: &data,
            readable: &self.grants.find,
            now_ms,
            fields_omit_locale: false,
            shows_localizations: false,
            refuses_unknown_keys: false,
            answers_before_self_sync: false,
            shows_far_end_lists: false,
        };
        // The answer is read inside the write's transaction; a read that fails is the
        // answer's error, and the write stays (as when Strapi's resolvers fail after it).
        let answer = |reader: &EntryReader<'_>, written: writes::Written| {
            let mut read = Map::new();
            read.insert("documentId".into(), json!(written.document_id));
            let status = match status {
                WriteStatus::Draft => "DRAFT",
                WriteStatus::Published => "PUBLISHED",
            };
            read.insert("status".into(), json!(status));
            if let Some(l) = written.locale {
                read.insert("locale".into(), json!(l));
            }
            let one = RootField {
                uid: field.uid.clone(),
                kind: RootKind::One,
            };
            Ok(self.read_entries(&one, schema.id, &read, populate, Via::Mutation(reader)))
        };
        let action = match field.kind {
            RootKind::Create => writes::Action::Create,
            _ => writes::Action::Update,
        };
        match writes::write_and_read(&self.store, &request, action, answer) {
            Ok(answer) => answer,
            // The document service updates nothing and answers `null`.
            Err(WriteError::NotFound) => Ok(Value::Null),
            Err(e) => Err(from_write_error(e)),
        }
    }
}

pub(super) fn validation(message: String) -> ReadError {
    ReadError {
        message,
        name: "ValidationError",
        details: Box::new(json!({})),
        code: "BAD_USER_INPUT",
    }
}

pub(super) fn not_found(message: &str) -> ReadError {
    ReadError {
        message: message.into(),
        name: "NotFoundError",
        details: Box::new(json!({})),
        code: "STRAPI_NOT_FOUND_ERROR",
    }
}

/// A refused write in the GraphQL plugin's error shape (`formatGraphqlError`): the REST
/// answer's `error`, with `extensions.code` `BAD_USER_INPUT` for a `ValidationError`,
/// `STRAPI_<NAME>` for another of Strapi's errors, a bare internal error for a 5xx, and
/// [`ReadError::unrecognised`] for a plain `Error`.
pub(super) fn from_write_error(e: WriteError) -> ReadError {
    if let WriteError::Plain(message) = e {
        return ReadError::unrecognised(message);
    }
    // As REST answers it (`ApiError::from`): a value the column refuses is the caller's.
    let (status, body) = ApiError::from(e).parts();
    if status.is_server_error() {
        return internal(&body);
    }
    let error = body.get("error").cloned().unwrap_or(Value::Null);
    let text = |key: &str| error.get(key).and_then(Value::as_str).unwrap_or_default();
    let (name, code) = match text("name") {
        "ValidationError" => ("ValidationError", "BAD_USER_INPUT"),
        "ForbiddenError" => ("ForbiddenError", "FORBIDDEN"),
        "UnauthorizedError" => ("UnauthorizedError", "FORBIDDEN"),
        "NotFoundError" => ("NotFoundError", "STRAPI_NOT_FOUND_ERROR"),
        "PayloadTooLargeError" => ("PayloadTooLargeError", "STRAPI_PAYLOAD_TOO_LARGE_ERROR"),
        _ => ("ApplicationError", "STRAPI_APPLICATION_ERROR"),
    };
    ReadError {
        message: text("message").to_owned(),
        name,
        details: Box::new(error.get("details").cloned().unwrap_or(json!({}))),
        code,
    }
}
