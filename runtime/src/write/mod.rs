//! Writes of the content API: create, update and delete documents with Strapi 5.54's REST
//! semantics, into Strapi's own tables, once for every database.
//!
//! * `input.rs`: a request's `data` → checked values ([`input::Input`]), with Strapi's
//!   `Invalid key` check first, then yup's rules and messages.
//! * `document.rs`: the document lifecycle (create, update, publish, delete) as row
//!   changes, on `store::rows` (the statements) through the seam's `Writer`.
//! * `error.rs`: [`WriteError`], which says which 4xx Strapi answers.
//! * `order.rs`: the order of a validation's errors, as yup's checks finish.
//!
//! Every write is one transaction ([`crate::store::Pool::write`]): a failure at any step
//! leaves nothing behind. The answer of a write is read through the read path inside that
//! transaction ([`write_and_read`]), so it is formatted exactly as a `GET`, and shows what
//! the write left even when another write commits right after it.
//!
//! Decisions where Strapi answers 500 to bad input (strata answers 400 instead, in
//! Strapi's error shape, and writes nothing): `DELETE ?status=draft` (`Cannot delete a
//! draft document`); a `connect` whose position anchor is the entry itself or one being
//! disconnected (`The list of connect relations is not valid`); a value the database's
//! column refuses (an integer past 32 bits on PostgreSQL and MariaDB, a JSON string in a
//! JSON column, `\u0000` on PostgreSQL); a body nested deeper than 1000 levels.

mod blocks;
pub mod condition;
mod copy_order;
mod document;
mod error;
pub mod input;
mod order;
mod relations;
mod relations_store;
mod yup;

use serde_json::{Map, Value};

pub use document::LocaleScope;
pub use error::{FieldError, WriteError};

use crate::query::Permissions;
use crate::schema::SchemaId;
use crate::store::seam::Executor;
use crate::store::{Reader, Store, StoreError};

/// Which version a write leaves: `?status`. Anything but `published` (or nothing) is a
/// draft, as Strapi checks `status === 'published'`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteStatus {
    /// Create or update the draft, then publish it.
    Published,
    /// Create or update the draft only.
    Draft,
}

/// One create or update.
pub struct WriteRequest<'a> {
    /// The content type.
    pub schema: SchemaId,
    /// The document to update (`None`: a create, or a single type's document).
    pub document_id: Option<&'a str>,
    /// The locale written (`None`: the default; ignored for types that are not
    /// localized).
    pub locale: Option<&'a str>,
    /// `?status`.
    pub status: WriteStatus,
    /// The request body's `data`.
    pub data: &'a Map<String, Value>,
    /// The caller's `find` grants (a relation to a type it may not find is refused).
    pub readable: &'a Permissions,
    /// Now, epoch milliseconds.
    pub now_ms: i64,
    /// Whether the query has `fields` without `locale`. Strapi's publish reads the entry
    /// it creates with the request's `fields` and matches it to the old versions by
    /// `locale` (`bidirectional-relations.js`, `sync`): without one it matches none, and
    /// the published links keep no order values at the far end (they go last).
    pub fields_omit_locale: bool,
    /// Whether the answer shows `localizations`: the write then keeps what they showed
    /// before an i18n sync changed them ([`Written::localizations_before_sync`]).
    pub shows_localizations: bool,
    /// Whether a key the content type does not take is refused (`Invalid key`): REST's
    /// controllers call `validate.input` (`throwUnrecognizedFields`). The GraphQL plugin
    /// only calls `sanitize.input`, and its typed inputs leave room for unknown keys only
    /// inside zone items (a JSON scalar), which Strapi then ignores.
    pub refuses_unknown_keys: bool,
    /// Whether the answer shows a published row before its self-relation sync gives it
    /// its links to itself and to other rows of its type, as Strapi's REST answer does
    /// (REST and the typed API); GraphQL resolves relations after the write and shows
    /// them ([`document::DocumentWrite::answering_before_self_sync`]).
    pub answers_before_self_sync: bool,
    /// Whether the answer populates past its first level, where it may show the list at
    /// the far end of a link a publish re-creates: Strapi's REST answer shows those links
    /// last in such lists, as its publish created them, before its bidirectional sync
    /// gives them back their places ([`document::DocumentWrite::answering_before_order_sync`]).
    pub shows_far_end_lists: bool,
}

/// The version a write left, for its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The document.
    pub document_id: String,
    /// Its locale (`None` for a type that is not localized).
    pub locale: Option<String>,
    /// The other locales' rows an i18n sync changed, with their shared values and
    /// `updatedAt` from before it, when the request asked for them
    /// ([`WriteRequest::shows_localizations`]): Strapi's answer shows its
    /// `localizations` as they were before its sync, so the answer shows these.
    pub localizations_before_sync: crate::store::rows::ShownRows,
}

/// What a create or an update does with its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// `POST /api/:plural`: a new document.
    Create,
    /// `PUT /api/:plural/:documentId` or `PUT /api/:singular`: a version updated or added.
    Update,
}

/// The locale a write goes to: the one asked, else the default; none for a type that is
/// not localized.
fn write_locale(
    store: &Store,
    schema: SchemaId,
    asked: Option<&str>,
) -> Result<Option<String>, WriteError> {
    let s = store.model().schema(schema);
    if !s.localized {
        return Ok(None);
    }
    match asked {
        Some("*") => Err(WriteError::bare(
            "Invalid locale param * provided. Document locales must be strings.",
        )),
        Some(l) if !l.is_empty() => Ok(Some(l.to_string())),
        _ => Ok(Some(store.settings().default_locale.clone())),
    }
}

fn run<T>(
    store: &Store,
    req: &WriteRequest<'_>,
    action: Action,
    answer: impl FnOnce(&Reader<'_>, Written) -> Result<T, StoreError>,
) -> Result<T, WriteError> {
    let model = store.model();
    let schema = model.schema(req.schema);
    if req.refuses_unknown_keys {
        input::check_keys(
            &input::KeyRules {
                model,
                readable: req.readable,
            },
            schema,
            req.data,
        )?;
    }
    let locale = write_locale(store, req.schema, req.locale)?;
    let shown = shown_data(
        model,
        schema,
        req.data,
        locale.as_deref(),
        req.now_ms,
        action == Action::Create,
    );
    let parse = input::DataParse {
        model,
        schema,
        data: req.data,
        shown: &shown,
        phase: input::Phase::of_data(schema),
        creation: action == Action::Create,
    };
    let values = match (parse.parse_or_refuse(), action, req.document_id) {
        (Ok(values), ..) => values,
        (Err(refused), Action::Update, Some(id)) => {
            refused_update(store, req, id, &parse, *refused, locale.as_deref())?
        }
        (Err(refused), action, _) => {
            if refused.by_entry_date() {
                take_ids_of_refused_write(store, req, action, &refused, locale.as_deref());
            }
            return Err(refusal(store, req, *refused, &shown, locale.as_deref()));
        }
    };
    store.pool().write(|w| {
        w.serialize_writes()?;
        let doc = document::DocumentWrite::new(w, store, schema, req.now_ms)
            .showing(&shown)
            .fields_omit_locale(req.fields_omit_locale)
            .keeping_shown_localizations(req.shows_localizations)
            .answering_before_self_sync(req.answers_before_self_sync)
            .answering_before_order_sync(req.shows_far_end_lists);
        let document_id = match (action, req.document_id) {
            (Action::Create, _) => doc.create(&values, locale.as_deref(), req.status)?,
            (Action::Update, Some(id)) => {
                doc.update(id, &values, req.data, locale.as_deref(), req.status)?;
                id.to_string()
            }
            (Action::Update, None) => {
                match crate::store::rows::Rows::new(w, model).any_document(schema)? {
                    Some(id) => {
                        doc.update(&id, &values, req.data, locale.as_deref(), req.status)?;
                        id
                    }
                    None => {
                        doc.check_as_creation(req.data)?;
                        doc.create(&values, locale.as_deref(), req.status)?
                    }
                }
            }
        };
        let written = Written {
            document_id,
            locale: locale.clone(),
            localizations_before_sync: doc.shown_before_sync(),
        };
        let exec: &dyn Executor = w;
        let answered = answer(&store.reader(exec), written)?;
        doc.finish()?;
        Ok(answered)
    })
}

/// A write whose only failure is a date of the entry's own
/// ([`input::Refused::by_entry_date`]): Strapi's document service made or updated the
/// components before its entity manager refused the row, and its transaction rolled back,
/// but on PostgreSQL and MariaDB the ids those inserts took stay taken. strata writes the
/// same components in a transaction it rolls back, so that the writes after this one are
/// numbered as Strapi numbers them (SQLite's rollback returns the ids, as it does
/// Strapi's). A creation makes its components
/// ([`document::DocumentWrite::components_made_before_refusal`]); an update of an existing
/// version updates them (`components_updated_before_refusal`), and a single type's update
/// is the one or the other as its document exists. A target that does not exist stops it
/// before any insert, as Strapi's transform refuses that first ([`refusal`] answers it).
/// Nothing of it is kept, so a store error here changes nothing but the ids, and the
/// answer is the refusal's.
fn take_ids_of_refused_write(
    store: &Store,
    req: &WriteRequest<'_>,
    action: Action,
    refused: &input::Refused,
    locale: Option<&str>,
) {
    let model = store.model();
    let schema = model.schema(req.schema);
    let _rolled_back = store.pool().write(|w| {
        let doc = document::DocumentWrite::new(w, store, schema, req.now_ms);
        let existing = match (action, req.document_id) {
            (Action::Create, _) => None,
            (Action::Update, Some(id)) => Some(id.to_string()),
            (Action::Update, None) => {
                crate::store::rows::Rows::new(w, model).any_document(schema)?
            }
        };
        match existing {
            Some(id) => doc.components_updated_before_refusal(&id, &refused.input, locale)?,
            None => doc.components_made_before_refusal(&refused.input, locale)?,
        }
        Err::<(), WriteError>(refused.error())
    });
}

/// An update of document `id` whose data `parse` refused: the refusal, unless the update
/// makes a new localization. Strapi validates that as a creation of the data it copies
/// (`copyNonLocalizedFields`, then `entries.create`), never as an update: its refusal
/// shows that data, and a `null` the other locale fills (a required non-localized
/// attribute) is no error. Then the write goes on with the request's values, those
/// `null`s left out (the copy fills them: [`document::DocumentWrite::new_localization`]).
/// Strapi looks the document up before it validates: an update of one that does not
/// exist is a 404 whatever its data (after its targets' documentIds).
fn refused_update(
    store: &Store,
    req: &WriteRequest<'_>,
    id: &str,
    parse: &input::DataParse<'_>,
    refused: input::Refused,
    locale: Option<&str>,
) -> Result<input::Input, WriteError> {
    let schema = parse.schema;
    let creation = store.pool().write(|w| {
        let doc = document::DocumentWrite::new(w, store, schema, req.now_ms).showing(parse.shown);
        let versions = doc.existing_versions(id, &refused.input, locale)?;
        let new_locale = schema.localized && versions.iter().all(|v| v.locale.as_deref() != locale);
        if !new_locale {
            return Ok(None);
        }
        let source =
            crate::store::rows::Rows::new(w, parse.model).localization_source(schema, id)?;
        doc.new_localization(id, req.data, locale, source).map(Some)
    })?;
    let Some(creation) = creation else {
        if refused.by_entry_date() {
            take_ids_of_refused_write(store, req, Action::Update, &refused, locale);
        }
        return Err(refusal(store, req, refused, parse.shown, locale));
    };
    let as_creation = input::DataParse {
        data: &creation.data,
        shown: &creation.shown,
        creation: true,
        ..*parse
    };
    if let Err(refused) = as_creation.parse_or_refuse() {
        if refused.by_entry_date() {
            take_ids_of_refused_write(store, req, Action::Create, &refused, locale);
        }
        return Err(refusal(store, req, *refused, &creation.shown, locale));
    }
    let mut given = req.data.clone();
    given.retain(|k, v| !(v.is_null() && creation.data.get(k).is_some_and(|c| !c.is_null())));
    let as_update = input::DataParse {
        data: &given,
        ..*parse
    };
    as_update
        .parse_or_refuse()
        .map_err(|refused| refusal(store, req, *refused, &creation.shown, locale))
}

/// Strapi's answer to a data that pass 2 refused, in Strapi's order: a documentId that
/// names nothing (its transform, before any validation); else yup's errors, with the
/// `unique` tests of the values read among them (a type without draft and publish: its
/// data is validated as published) and the relations check's count of row ids that name
/// nothing last (a test of the data itself); else that count before the entity manager's
/// date message. The data the errors show gets its relations and media as the rows they
/// name. Only a refusal whose data gives relations, media or unique values looks
/// anything up (in a transaction of its own).
fn refusal(
    store: &Store,
    req: &WriteRequest<'_>,
    mut refused: input::Refused,
    shown: &Value,
    locale: Option<&str>,
) -> WriteError {
    let model = store.model();
    let schema = model.schema(req.schema);
    let gives_targets = document::gives_targets(model, schema, req.data);
    let checks_unique = refused.by_yup()
        && !schema.draft_and_publish
        && document::gives_unique(model, schema, req.data);
    if !gives_targets && !checks_unique {
        return refused.error();
    }
    let looked_up = store.pool().write(|w| {
        let doc = document::DocumentWrite::new(w, store, schema, req.now_ms).showing(shown);
        let missing = match gives_targets && refused.relations.is_none() {
            true => doc.targets_failure(schema, &refused.input, locale)?,
            false => None,
        };
        let unique = match checks_unique {
            true => {
                // The document written is not compared with itself: a single type's
                // update writes its one document; a creation's has no rows yet.
                let document_id = match req.document_id {
                    Some(id) => Some(id.to_string()),
                    None if schema.kind == crate::schema::SchemaKind::SingleType => {
                        crate::store::rows::Rows::new(w, model).any_document(schema)?
                    }
                    None => None,
                };
                let id = document_id.unwrap_or_default();
                doc.unique_failures(&id, locale, &refused.input)?
            }
            false => Vec::new(),
        };
        let mapped = match gives_targets {
            true => doc.shown_with_row_ids(schema, locale),
            false => None,
        };
        Ok::<_, WriteError>((mapped, missing, unique))
    });
    let (mapped, missing, unique) = match looked_up {
        Ok(found) => found,
        Err(e) => return e,
    };
    if !unique.is_empty() {
        refused.failures.extend(unique);
        let validated = order::Validated {
            data: req.data,
            draft: false,
        };
        order::in_yup_order(model, schema, &mut refused.failures, Some(validated));
    }
    let mut error = refused.error();
    if let Some(mapped) = &mapped {
        error.replace_value(shown, mapped);
    }
    match missing {
        Some(failure) if refused.by_yup() => {
            error.push_field(failure);
            error
        }
        Some(failure) => WriteError::fields(vec![failure]),
        None => error,
    }
}

/// The data as Strapi's document service hands it to the entity manager, which some of
/// its errors show as their `value`: the body's `data`, its scalars as yup casts them
/// ([`yup::cast_changes`]; components keep theirs: `preventCast`), with every list of components
/// (repeatable or dynamic zone) present on a creation (`[]` when not given: yup's
/// default for a creation; a zone's items that are not objects as null), the locale
/// written and `publishedAt`. Relations and media are as given here; an error shows them
/// as Strapi's transform hands them on ([`with_row_ids`]).
fn shown_data(
    model: &crate::schema::Model,
    schema: &crate::schema::Schema,
    data: &Map<String, Value>,
    locale: Option<&str>,
    now_ms: i64,
    creation: bool,
) -> Value {
    use crate::schema::AttributeKind;
    let mut out = data.clone();
    for a in &schema.attributes {
        match &a.kind {
            AttributeKind::Scalar(ty) => {
                if let Some(v) = out.get_mut(&a.name)
                    && let Some(cast) = yup::cast_changes(ty, v)
                {
                    *v = cast;
                }
            }
            AttributeKind::Component(_) if creation => {
                listed_components_defaulted(model, a, &mut out);
            }
            AttributeKind::DynamicZone(_) => {
                if creation {
                    listed_components_defaulted(model, a, &mut out);
                }
                // yup casts an item that is not an object to null.
                if let Some(Value::Array(items)) = out.get_mut(&a.name) {
                    for item in items.iter_mut().filter(|i| !i.is_object()) {
                        *item = Value::Null;
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(l) = locale {
        out.insert("locale".into(), Value::String(l.to_string()));
    }
    // The entity manager sets `publishedAt`: null for a draft, the time of the write for
    // a type without draft and publish.
    let published_at = match schema.draft_and_publish {
        true => Value::Null,
        false => Value::String(crate::query::values::iso_string(now_ms)),
    };
    out.insert("publishedAt".into(), published_at);
    Value::Object(out)
}

/// What yup's cast of a creation does to a component or zone attribute `a` of `data`:
/// a list (a repeatable component, a zone) that is not given is `[]`, and so is each
/// such list inside the components given, at any depth (each component is cast by its
/// own model's validator).
fn listed_components_defaulted(
    model: &crate::schema::Model,
    a: &crate::schema::Attribute,
    data: &mut Map<String, Value>,
) {
    use crate::schema::AttributeKind;
    let listed = match &a.kind {
        AttributeKind::Component(c) => c.repeatable,
        AttributeKind::DynamicZone(_) => true,
        _ => return,
    };
    if listed {
        data.entry(a.name.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
    }
    let Some(value) = data.get_mut(&a.name) else {
        return;
    };
    for item in document::objects_mut(value) {
        let component = match &a.kind {
            AttributeKind::Component(c) => Some(model.schema(c.component)),
            _ => item
                .get("__component")
                .and_then(Value::as_str)
                .and_then(|uid| model.by_uid(uid)),
        };
        for inner in component.iter().flat_map(|cs| &cs.attributes) {
            listed_components_defaulted(model, inner, item);
        }
    }
}

/// `POST /api/:plural`: creates a document (and publishes it unless `?status=draft`).
pub fn create(store: &Store, req: &WriteRequest<'_>) -> Result<Written, WriteError> {
    run(store, req, Action::Create, |_, written| Ok(written))
}

/// `PUT /api/:plural/:documentId` (or `PUT /api/:singular`, `document_id` `None`):
/// updates the document's version in the locale, or adds that locale; a single type
/// without a document gets one.
pub fn update(store: &Store, req: &WriteRequest<'_>) -> Result<Written, WriteError> {
    run(store, req, Action::Update, |_, written| Ok(written))
}

/// [`create`] or [`update`], then `answer` reads the write's answer inside its
/// transaction, once the version is written: the answer shows exactly what this write
/// left, whatever another request commits after it (a delete of the same locale cannot
/// make it a 404), as Strapi's document service returns the entry from inside its
/// transaction. A read that fails rolls the write back.
pub fn write_and_read<T>(
    store: &Store,
    req: &WriteRequest<'_>,
    action: Action,
    answer: impl FnOnce(&Reader<'_>, Written) -> Result<T, StoreError>,
) -> Result<T, WriteError> {
    run(store, req, action, answer)
}

/// `DELETE /api/:plural/:documentId` (or `/api/:singular`, `document_id` `None`): deletes
/// the document's rows in `locale` (`None`: the default locale; `*`: every locale). A
/// document that does not exist is no error (Strapi answers 204). Returns the document
/// deleted from (a single type's is looked up), `None` when there is none.
pub fn delete(
    store: &Store,
    schema: SchemaId,
    document_id: Option<&str>,
    locale: Option<&str>,
    status: WriteStatus,
    now_ms: i64,
) -> Result<Option<String>, WriteError> {
    let model = store.model();
    let s = model.schema(schema);
    if status == WriteStatus::Draft && s.draft_and_publish {
        return Err(WriteError::bare("Cannot delete a draft document"));
    }
    let scope = if !s.localized {
        LocaleScope::One(None)
    } else {
        match locale {
            Some("*") => LocaleScope::All,
            Some(l) if !l.is_empty() => LocaleScope::One(Some(l.to_string())),
            _ => LocaleScope::One(Some(store.settings().default_locale.clone())),
        }
    };
    store.pool().write(|w| {
        w.serialize_writes()?;
        let id = match document_id {
            Some(id) => Some(id.to_string()),
            None => crate::store::rows::Rows::new(w, model).any_document(s)?,
        };
        if let Some(id) = &id {
            document::DocumentWrite::new(w, store, s, now_ms).delete(id, &scope)?;
        }
        Ok::<_, WriteError>(id)
    })
}
