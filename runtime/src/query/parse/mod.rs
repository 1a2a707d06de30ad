//! From a raw query string to a validated [`Query`]: qs parsing, then validation and
//! normalisation of each parameter against the content model, exactly as Strapi 5 does it
//! (see `ARCHITECTURE.md`, "Deviations from Strapi", for where we answer 400 instead of
//! Strapi's 500).
//!
//! Total: every input gives `Ok` or a [`QueryError`]; recursion follows the qs tree, whose
//! depth qs bounds (depth 20), and every list is bounded by [`QueryLimits`].

mod document;
mod fields;
mod filters;
mod pagination;
mod populate;
mod sort;

use indexmap::IndexMap;

use super::ast::*;
use super::error::{Param, QueryError};
use super::qs::map_to_json;
use super::qs::{self, QsMap, QsValue};
use super::values;
use super::{OperatorObjects, Permissions, QueryConfig};
use crate::schema::{AttrId, Attribute, AttributeKind, Model, ScalarType, Schema, SchemaId};

/// Parses and validates `raw` (the query string without `?`) for `schema`.
pub fn parse_query(
    raw: &str,
    model: &Model,
    schema: SchemaId,
    permissions: &Permissions,
    config: &QueryConfig,
) -> Result<Query, QueryError> {
    within(
        raw.len(),
        config.limits.max_query_length,
        "maxQueryLength",
        |max| {
            format!(
                "The query string is {} bytes long; the maximum is {max}",
                raw.len()
            )
        },
    )?;
    let opts = qs::QsOptions {
        max_input_len: usize::MAX,
        ..qs::QsOptions::default()
    };
    let parsed = qs::parse_detailed(raw, &opts).map_err(|e| QueryError::Invalid(e.to_string()))?;
    within(
        parsed.parameter_count,
        opts.parameter_limit,
        "maxParameters",
        |max| {
            format!(
                "The query string has {} parameters; the maximum is {max}",
                parsed.parameter_count
            )
        },
    )?;
    let mut p = Parser {
        model,
        permissions,
        config,
        conditions: 0,
        nesting: 0,
    };
    p.query(&parsed.value, schema)
}

/// Top-level keys Strapi's content API understands.
const KNOWN_TOP_LEVEL: &[&str] = &[
    "filters",
    "locale",
    "status",
    "populate",
    "fields",
    "sort",
    "pagination",
    "publicationFilter",
    "hasPublishedVersion",
    "_q",
    "start",
    "limit",
    "page",
    "pageSize",
    "where",
    // Accepted (and ignored) by Strapi's strict validator (asked of the oracle).
    "count",
    "ordering",
];

struct Parser<'a> {
    model: &'a Model,
    permissions: &'a Permissions,
    config: &'a QueryConfig,
    /// Field conditions seen so far (bounded by `max_conditions`).
    conditions: usize,
    /// Current nesting of field-level `$not` (bounded by `max_depth`).
    nesting: usize,
}

/// The position in the query, for error paths: the dotted attribute path.
#[derive(Clone, Default)]
struct Path(Option<String>);

impl Path {
    fn join(&self, key: &str) -> Path {
        Path(Some(match &self.0 {
            Some(p) => format!("{p}.{key}"),
            None => key.to_string(),
        }))
    }
    fn get(&self) -> Option<String> {
        self.0.clone()
    }
}

/// A name that filters, sort and fields may use on a schema, resolved.
enum Name<'s> {
    Field(FieldRef),
    Attr(&'s Attribute),
    Localizations,
}

impl<'a> Parser<'a> {
    fn schema(&self, id: SchemaId) -> &'a Schema {
        self.model.schema(id)
    }

    /// Strapi validates a parameter's structure on its whole tree before it checks the
    /// caller's grants on the relations it goes through (`defaultValidateFilters`, then
    /// `throwRestrictedRelations`), so a wrong key anywhere is the error, not a relation
    /// the caller may not read before it (`filters[secret][name]`: `Invalid key name at
    /// secret`). `parse` runs once with the grants; only when it fails, once more
    /// without them: an error then is the structural one.
    fn structure_first<T>(
        &mut self,
        parse: impl Fn(&mut Parser<'_>) -> Result<T, QueryError>,
    ) -> Result<T, QueryError> {
        let restricted = match parse(self) {
            Ok(parsed) => return Ok(parsed),
            Err(e) => e,
        };
        let everything = Permissions::all(self.model);
        let mut unrestricted = Parser {
            model: self.model,
            permissions: &everything,
            config: self.config,
            conditions: 0,
            nesting: 0,
        };
        match parse(&mut unrestricted) {
            Err(structural) => Err(structural),
            Ok(_) => Err(restricted),
        }
    }

    fn query(&mut self, q: &QsMap, schema_id: SchemaId) -> Result<Query, QueryError> {
        if q.contains_key("lookup") {
            return Err(QueryError::Invalid("Invalid params: 'lookup'".into()));
        }
        if self.config.strict_params
            && let Some(key) = q.keys().find(|k| !KNOWN_TOP_LEVEL.contains(&k.as_str()))
        {
            return Err(QueryError::invalid_key(
                key.clone(),
                None,
                Param::Other(key.clone()),
            ));
        }
        let schema = self.schema(schema_id);
        let filters = match q.get("filters") {
            None => None,
            Some(v) => self.structure_first(|p| p.root_filters(schema, v))?,
        };
        let sort = match q.get("sort") {
            None => Vec::new(),
            Some(v) => self.structure_first(|p| p.sort(schema, v, Param::Sort, true))?,
        };
        let fields = match q.get("fields") {
            None => None,
            Some(v) => self.fields(schema, v)?,
        };
        let populate = match q.get("populate") {
            None => Populate::default(),
            Some(v) => self.populate_root(schema, v)?,
        };
        let pagination = self.pagination(q)?;
        let status = self.status(q.get("status"))?;
        let locale = self.locale(schema, q.get("locale"))?;
        let publication_filter = self.publication_filter(q)?;
        let search = q
            .get("_q")
            .and_then(QsValue::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        Ok(Query {
            schema: schema_id,
            filters,
            locale,
            status,
            publication_filter,
            populate,
            fields,
            sort,
            pagination,
            search,
        })
    }

    // ------------------------------------------------------------------ names

    /// Resolves `key` on `schema` for filters/sort/fields. Unknown keys give `Invalid key K`
    /// at the parent path; known keys that may not be used give it at the key's own path.
    fn name<'s>(
        &self,
        schema: &'s Schema,
        key: &str,
        path: &Path,
        param: &Param,
    ) -> Result<Name<'s>, QueryError> {
        let content = schema.is_content_type();
        let field = match key {
            "id" => Some(FieldRef::Id),
            "documentId" if content => Some(FieldRef::DocumentId),
            "createdAt" if content => Some(FieldRef::CreatedAt),
            "updatedAt" if content => Some(FieldRef::UpdatedAt),
            "publishedAt" if content => Some(FieldRef::PublishedAt),
            "locale" if content => {
                if !schema.localized {
                    // The i18n plugin adds `locale` to every type, private on non-localized ones.
                    return Err(QueryError::invalid_key(
                        key,
                        path.join(key).get(),
                        param.clone(),
                    ));
                }
                Some(FieldRef::Locale)
            }
            // The admin users who created and last updated an entry: a relation to
            // `admin::user`, which the content API never exposes. Strapi rejects it as a
            // forbidden relation, the path naming the key.
            "createdBy" | "updatedBy" if content => {
                return Err(QueryError::invalid_key(
                    key,
                    path.join(key).get(),
                    param.clone(),
                ));
            }
            "localizations" if content => {
                if !schema.localized {
                    return Err(QueryError::invalid_key(
                        key,
                        path.join(key).get(),
                        param.clone(),
                    ));
                }
                return Ok(Name::Localizations);
            }
            _ => None,
        };
        if let Some(f) = field {
            return Ok(Name::Field(f));
        }
        let Some(attr) = schema.attribute(key) else {
            return Err(QueryError::invalid_key(key, path.get(), param.clone()));
        };
        if attr.private {
            return Err(QueryError::invalid_key(
                key,
                path.join(key).get(),
                param.clone(),
            ));
        }
        Ok(Name::Attr(attr))
    }

    /// The schema a relation, component or media attribute leads to, if the caller may go there.
    fn follow(
        &self,
        attr: &Attribute,
        path: &Path,
        param: &Param,
        check_permission: bool,
    ) -> Result<Option<SchemaId>, QueryError> {
        let forbidden = || {
            QueryError::invalid_key(
                attr.name.clone(),
                path.join(&attr.name).get(),
                param.clone(),
            )
        };
        match &attr.kind {
            AttributeKind::Relation(rel) => {
                if rel.kind.is_morph() {
                    return Err(forbidden());
                }
                let Some(target) = rel.target else {
                    return Err(forbidden());
                };
                if check_permission && !self.permissions.can_find(target) {
                    return Err(forbidden());
                }
                Ok(Some(target))
            }
            AttributeKind::Component(c) => Ok(Some(c.component)),
            AttributeKind::Media(_) => Ok(self.model.upload_file().map(|f| f.id)),
            AttributeKind::DynamicZone(_) => Err(forbidden()),
            AttributeKind::Scalar(_) => Ok(None),
        }
    }

    // ---------------------------------------------------------------- filters
}

/// Checks one configured limit: `value` may not exceed `max`.
fn within(
    value: usize,
    max: usize,
    limit: &'static str,
    message: impl FnOnce(usize) -> String,
) -> Result<(), QueryError> {
    if value > max {
        return Err(QueryError::Limit {
            message: message(max),
            limit,
            max,
        });
    }
    Ok(())
}

/// Strapi's `$null` flag: JS truthiness of the raw value (a bare key is null → false).
fn qs_truthy(v: &QsValue) -> bool {
    match v {
        QsValue::Null => false,
        QsValue::String(s) => values::truthy(s),
        QsValue::Array(_) | QsValue::Object(_) => true,
    }
}

fn as_count(v: f64) -> Option<u64> {
    (v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 9.0e15).then_some(v as u64)
}

/// qs turns lists longer than its array limit into objects with numeric keys; where a list
/// is expected we read them back as the list they were (in index order).
fn numeric_object_as_list(m: &QsMap) -> Option<Vec<QsValue>> {
    if m.is_empty() {
        return None;
    }
    let mut items: Vec<(u64, &QsValue)> = Vec::with_capacity(m.len());
    for (k, v) in m {
        if k.is_empty() || k.len() > 15 || !k.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        items.push((k.parse().ok()?, v));
    }
    items.sort_by_key(|(i, _)| *i);
    Some(items.into_iter().map(|(_, v)| v.clone()).collect())
}
