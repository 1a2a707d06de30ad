//! From a raw query string to a validated [`Query`]: qs parsing, then validation and
//! normalisation of each parameter against the content model, exactly as Strapi 5 does it
//! (see `ARCHITECTURE.md`, "Deviations from Strapi", for where we answer 400 instead of
//! Strapi's 500).
//!
//! Total: every input gives `Ok` or a [`QueryError`]; recursion follows the qs tree, whose
//! depth qs bounds (depth 20), and every list is bounded by [`QueryLimits`].

use indexmap::IndexMap;

use super::ast::*;
use super::error::{Param, QueryError};
use super::qs::{self, QsMap, QsValue};
use super::values;
use super::{Permissions, QueryConfig};
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
            Some(v) => self.root_filters(schema, v)?,
        };
        let sort = match q.get("sort") {
            None => Vec::new(),
            Some(v) => self.sort(schema, v, Param::Sort, true)?,
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

    fn root_filters(
        &mut self,
        schema: &Schema,
        v: &QsValue,
    ) -> Result<Option<Conjunction>, QueryError> {
        match v {
            QsValue::Object(map) => self.conjunction(schema, map, &Path::default(), 0),
            QsValue::Array(items) => {
                let mut parts = Vec::new();
                for item in items {
                    if let Some(c) = self.element(schema, item, &Path::default(), 0, "filters")? {
                        parts.push(c);
                    }
                }
                Ok((!parts.is_empty()).then(|| Conjunction(vec![Condition::And(parts)])))
            }
            _ => Err(QueryError::Invalid(
                "The filters parameter must be an object or an array".into(),
            )),
        }
    }

    fn count_condition(&mut self) -> Result<(), QueryError> {
        self.conditions += 1;
        within(
            self.conditions,
            self.config.limits.max_conditions,
            "maxConditions",
            |max| format!("The query has more than {max} filter conditions"),
        )
    }

    fn check_depth(&self, depth: usize) -> Result<(), QueryError> {
        within(depth, self.config.limits.max_depth, "maxDepth", |max| {
            format!("The filters are nested more than {max} levels deep")
        })
    }

    /// One element of an `$and`/`$or` list (or of a root array): an object, or an array
    /// whose elements are ANDed.
    fn element(
        &mut self,
        schema: &Schema,
        v: &QsValue,
        path: &Path,
        depth: usize,
        key: &str,
    ) -> Result<Option<Conjunction>, QueryError> {
        self.check_depth(depth)?;
        match v {
            QsValue::Object(map) => self.conjunction(schema, map, path, depth + 1),
            QsValue::Array(items) => {
                let mut parts = Vec::new();
                for item in items {
                    if let Some(c) = self.element(schema, item, path, depth + 1, key)? {
                        parts.push(c);
                    }
                }
                Ok((!parts.is_empty()).then(|| Conjunction(vec![Condition::And(parts)])))
            }
            _ => Err(QueryError::InvalidValue {
                key: key.to_string(),
                path: path.get(),
                message: "expected an array of filter objects".into(),
                param: Param::Filters,
            }),
        }
    }

    /// A filter object: every key is a condition, all ANDed.
    fn conjunction(
        &mut self,
        schema: &Schema,
        map: &QsMap,
        path: &Path,
        depth: usize,
    ) -> Result<Option<Conjunction>, QueryError> {
        self.check_depth(depth)?;
        let mut out = Vec::new();
        for (key, v) in map {
            match key.as_str() {
                "$and" | "$or" => {
                    let QsValue::Array(items) = v else {
                        return Err(QueryError::InvalidValue {
                            key: key.clone(),
                            path: path.get(),
                            message: "expected an array of filter objects, like filters[$or][0][title]=a&filters[$or][1][title]=b".into(),
                            param: Param::Filters,
                        });
                    };
                    let mut parts = Vec::new();
                    for item in items {
                        if let Some(c) = self.element(schema, item, path, depth + 1, key)? {
                            parts.push(c);
                        }
                    }
                    if !parts.is_empty() {
                        out.push(if key == "$and" {
                            Condition::And(parts)
                        } else {
                            Condition::Or(parts)
                        });
                    }
                }
                "$not" => {
                    if let Some(c) = self.element(schema, v, path, depth + 1, key)? {
                        out.push(Condition::Not(c));
                    }
                }
                k if k.starts_with('$') => {
                    return Err(QueryError::invalid_key(k, path.get(), Param::Filters));
                }
                _ => {
                    let name = self.name(schema, key, path, &Param::Filters)?;
                    match name {
                        Name::Field(field) => {
                            self.field_conditions(schema, field, key, v, &path.join(key), &mut out)?
                        }
                        Name::Localizations => {
                            let sub = path.join(key);
                            let inner = match v {
                                QsValue::Object(m) => {
                                    self.conjunction(schema, m, &sub, depth + 1)?
                                }
                                _ => {
                                    return Err(QueryError::InvalidValue {
                                        key: key.clone(),
                                        path: sub.get(),
                                        message:
                                            "expected an object of conditions on the other locales"
                                                .into(),
                                        param: Param::Filters,
                                    });
                                }
                            };
                            if let Some(inner) = inner {
                                out.push(Condition::Localizations(inner));
                            }
                        }
                        Name::Attr(attr) => match self.follow(attr, path, &Param::Filters, true)? {
                            None => {
                                let field = FieldRef::Attr(attr.id);
                                self.field_conditions(
                                    schema,
                                    field,
                                    key,
                                    v,
                                    &path.join(key),
                                    &mut out,
                                )?
                            }
                            Some(target) => self.related(
                                attr.id,
                                target,
                                key,
                                v,
                                &path.join(key),
                                depth,
                                &mut out,
                            )?,
                        },
                    }
                }
            }
        }
        Ok((!out.is_empty()).then_some(Conjunction(out)))
    }

    /// Conditions under a relation, component or media key.
    #[allow(clippy::too_many_arguments)]
    fn related(
        &mut self,
        attr: AttrId,
        target: SchemaId,
        key: &str,
        v: &QsValue,
        path: &Path,
        depth: usize,
        out: &mut Vec<Condition>,
    ) -> Result<(), QueryError> {
        let target_schema = self.schema(target);
        match v {
            QsValue::Object(map) => {
                let null_key = map.keys().find(|k| *k == "$null" || *k == "$notNull");
                if let Some(nk) = null_key {
                    if map.len() > 1 {
                        return Err(QueryError::InvalidValue {
                            key: nk.clone(),
                            path: path.get(),
                            message:
                                "cannot be combined with other conditions on the same relation"
                                    .into(),
                            param: Param::Filters,
                        });
                    }
                    self.count_condition()?;
                    let flag = map.get(nk).is_some_and(qs_truthy);
                    out.push(Condition::RelatedNull {
                        attr,
                        is_null: if nk == "$null" { flag } else { !flag },
                    });
                    return Ok(());
                }
                // Operators directly on a relation apply to the related row's id; `$not`
                // means "no related row matches" (Strapi crashes on both when mixed).
                let mut own = QsMap::new();
                let mut id_ops = QsMap::new();
                for (k, val) in map {
                    if k == "$not" {
                        let inner = match val {
                            QsValue::Object(m) => {
                                self.conjunction(target_schema, m, path, depth + 1)?
                            }
                            _ => self.element(target_schema, val, path, depth + 1, k)?,
                        };
                        if let Some(inner) = inner {
                            out.push(Condition::Not(Conjunction(vec![Condition::Related {
                                attr,
                                target,
                                filter: inner,
                            }])));
                        }
                    } else if k.starts_with('$') && k != "$and" && k != "$or" {
                        id_ops.insert(k.clone(), val.clone());
                    } else {
                        own.insert(k.clone(), val.clone());
                    }
                }
                let mut conds = match self.conjunction(target_schema, &own, path, depth + 1)? {
                    Some(c) => c.0,
                    None => Vec::new(),
                };
                if !id_ops.is_empty() {
                    self.field_conditions(
                        target_schema,
                        FieldRef::Id,
                        "id",
                        &QsValue::Object(id_ops),
                        path,
                        &mut conds,
                    )?;
                }
                if !conds.is_empty() {
                    out.push(Condition::Related {
                        attr,
                        target,
                        filter: Conjunction(conds),
                    });
                }
                Ok(())
            }
            // `filters[author]=3` and `filters[author][0]=1&…` match the related row's id.
            _ => {
                let mut conds = Vec::new();
                self.field_conditions(target_schema, FieldRef::Id, key, v, path, &mut conds)?;
                if !conds.is_empty() {
                    out.push(Condition::Related {
                        attr,
                        target,
                        filter: Conjunction(conds),
                    });
                }
                Ok(())
            }
        }
    }

    fn value_kind(&self, schema: &Schema, field: FieldRef) -> ValueKind {
        match field {
            FieldRef::Id => ValueKind::Number,
            FieldRef::DocumentId | FieldRef::Locale => ValueKind::Text,
            FieldRef::CreatedAt | FieldRef::UpdatedAt | FieldRef::PublishedAt => {
                ValueKind::DateTime
            }
            FieldRef::Attr(id) => match schema
                .attributes
                .get(id.index())
                .and_then(|a| a.kind.scalar())
            {
                Some(ScalarType::Integer | ScalarType::Float | ScalarType::Decimal) => {
                    ValueKind::Number
                }
                Some(ScalarType::BigInteger) => ValueKind::BigInt,
                Some(ScalarType::Boolean) => ValueKind::Boolean,
                Some(ScalarType::Date) => ValueKind::Date,
                Some(ScalarType::Time) => ValueKind::Time,
                Some(ScalarType::DateTime | ScalarType::Timestamp) => ValueKind::DateTime,
                Some(ScalarType::Json | ScalarType::Blocks) => ValueKind::Json,
                _ => ValueKind::Text,
            },
        }
    }

    /// Conditions on one column: a scalar (implicit `$eq`), an array (implicit `$in`) or an
    /// object of operators.
    fn field_conditions(
        &mut self,
        schema: &Schema,
        field: FieldRef,
        key: &str,
        v: &QsValue,
        path: &Path,
        out: &mut Vec<Condition>,
    ) -> Result<(), QueryError> {
        let kind = self.value_kind(schema, field);
        match v {
            QsValue::Null | QsValue::String(_) => {
                self.count_condition()?;
                let value = self.coerce(kind, Op::Eq, v, key, path, field)?;
                out.push(Condition::Field {
                    field,
                    op: Op::Eq,
                    operand: Operand::One(value),
                });
            }
            QsValue::Array(items) => {
                if let Some(list) = self.list(kind, Op::In, items, key, path, field)? {
                    out.push(Condition::Field {
                        field,
                        op: Op::In,
                        operand: Operand::List(list),
                    });
                }
            }
            QsValue::Object(map) => {
                for (op_key, val) in map {
                    self.operator(schema, field, kind, op_key, val, path, out)?;
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn operator(
        &mut self,
        schema: &Schema,
        field: FieldRef,
        kind: ValueKind,
        op_key: &str,
        val: &QsValue,
        path: &Path,
        out: &mut Vec<Condition>,
    ) -> Result<(), QueryError> {
        if op_key == "$not" {
            let mut inner = Vec::new();
            self.nesting += 1;
            self.check_depth(self.nesting)?;
            let result = self.field_conditions(schema, field, op_key, val, path, &mut inner);
            self.nesting -= 1;
            result?;
            if !inner.is_empty() {
                out.push(Condition::Not(Conjunction(inner)));
            }
            return Ok(());
        }
        if op_key == "$null" || op_key == "$notNull" {
            self.count_condition()?;
            let flag = qs_truthy(val);
            out.push(Condition::Field {
                field,
                op: Op::Null,
                operand: Operand::Flag(if op_key == "$null" { flag } else { !flag }),
            });
            return Ok(());
        }
        let Some(op) = Op::parse(op_key) else {
            // Unknown operator, or an attribute name under a scalar (Strapi: 500).
            return Err(QueryError::invalid_key(op_key, path.get(), Param::Filters));
        };
        match op {
            Op::In | Op::NotIn => {
                let items: Vec<QsValue> = match val {
                    QsValue::Array(items) => items.clone(),
                    QsValue::Object(m) => match numeric_object_as_list(m) {
                        Some(items) => items,
                        // Strapi drops an operand that is neither a value nor a list.
                        None => return Ok(()),
                    },
                    scalar => vec![scalar.clone()],
                };
                if let Some(list) = self.list(kind, op, &items, op_key, path, field)? {
                    out.push(Condition::Field {
                        field,
                        op,
                        operand: Operand::List(list),
                    });
                }
            }
            Op::Between => {
                let items = match val {
                    QsValue::Array(items) if items.len() == 2 => items,
                    _ => {
                        return Err(QueryError::InvalidValue {
                            key: op_key.to_string(),
                            path: path.get(),
                            message: "expected an array of two values, like [$between][0]=1&[$between][1]=5".into(),
                            param: Param::Filters,
                        });
                    }
                };
                self.count_condition()?;
                let lo = self.coerce(kind, op, &items[0], op_key, path, field)?;
                let hi = self.coerce(kind, op, &items[1], op_key, path, field)?;
                out.push(Condition::Field {
                    field,
                    op,
                    operand: Operand::Range(lo, hi),
                });
            }
            _ => match val {
                // An array on a single-value operator means OR.
                QsValue::Array(items) => {
                    let mut alts = Vec::new();
                    for item in items {
                        self.count_condition()?;
                        let value = self.coerce(kind, op, item, op_key, path, field)?;
                        alts.push(Conjunction(vec![Condition::Field {
                            field,
                            op,
                            operand: Operand::One(value),
                        }]));
                    }
                    if !alts.is_empty() {
                        out.push(Condition::Or(alts));
                    }
                }
                QsValue::Object(m) => {
                    if let Some(items) = numeric_object_as_list(m) {
                        return self.operator(
                            schema,
                            field,
                            kind,
                            op_key,
                            &QsValue::Array(items),
                            path,
                            out,
                        );
                    }
                    // `title[$eq][foo]=bar`: Strapi silently drops the condition; `$eq[$eq]` too.
                    if m.keys().any(|k| k.starts_with('$')) {
                        return Err(QueryError::InvalidValue {
                            key: op_key.to_string(),
                            path: path.get(),
                            message: "expected a value, found nested operators".into(),
                            param: Param::Filters,
                        });
                    }
                }
                _ => {
                    self.count_condition()?;
                    let value = self.coerce(kind, op, val, op_key, path, field)?;
                    out.push(Condition::Field {
                        field,
                        op,
                        operand: Operand::One(value),
                    });
                }
            },
        }
        Ok(())
    }

    fn list(
        &mut self,
        kind: ValueKind,
        op: Op,
        items: &[QsValue],
        key: &str,
        path: &Path,
        field: FieldRef,
    ) -> Result<Option<Vec<Value>>, QueryError> {
        within(
            items.len(),
            self.config.limits.max_in_values,
            "maxInValues",
            |max| format!("{key} has {} values; the maximum is {max}", items.len()),
        )?;
        self.count_condition()?;
        let mut list = Vec::with_capacity(items.len());
        for item in items {
            list.push(self.coerce(kind, op, item, key, path, field)?);
        }
        Ok((!list.is_empty()).then_some(list))
    }

    /// Converts one raw value to the column's type, as Strapi's cast operators do.
    fn coerce(
        &self,
        kind: ValueKind,
        op: Op,
        v: &QsValue,
        key: &str,
        path: &Path,
        field: FieldRef,
    ) -> Result<Value, QueryError> {
        let s = match v {
            QsValue::Null => return Ok(Value::Null),
            QsValue::String(s) => s.as_str(),
            _ => {
                return Err(QueryError::InvalidValue {
                    key: key.to_string(),
                    path: path.get(),
                    message: "expected a single value".into(),
                    param: Param::Filters,
                });
            }
        };
        // Only the cast operators convert; LIKE-style and case-insensitive ones bind text.
        if !op.casts() {
            return Ok(Value::Text(s.to_string()));
        }
        let bad = |message: &str| QueryError::InvalidValue {
            key: key.to_string(),
            path: path.get(),
            message: message.to_string(),
            param: Param::Filters,
        };
        Ok(match kind {
            ValueKind::Text | ValueKind::Json => Value::Text(s.to_string()),
            ValueKind::Number => match values::js_number(s) {
                Some(n) => Value::Number(n),
                // Strapi does not cast ids: a non-numeric id simply matches nothing.
                None if field == FieldRef::Id => Value::Text(s.to_string()),
                None => return Err(bad(&format!("expected a number, got {s:?}"))),
            },
            ValueKind::BigInt => match values::big_int(s.trim()) {
                Some(b) => Value::BigInt(b),
                None => return Err(bad(&format!("expected an integer, got {s:?}"))),
            },
            ValueKind::Boolean => Value::Bool(values::truthy(s)),
            ValueKind::Date => match values::date(s) {
                Some(d) => Value::Date(d),
                None => {
                    return Err(QueryError::Invalid(
                        "Invalid format, expected yyyy-MM-dd".into(),
                    ));
                }
            },
            ValueKind::Time => match values::time(s) {
                Some(t) => Value::Time(t),
                None => {
                    return Err(QueryError::Invalid(
                        "Invalid time format, expected HH:mm:ss.SSS".into(),
                    ));
                }
            },
            ValueKind::DateTime => match values::datetime(s) {
                Some(ms) => Value::DateTime(ms),
                None => {
                    return Err(QueryError::Invalid(
                        "Invalid format, expected a timestamp or an ISO date".into(),
                    ));
                }
            },
        })
    }

    // ------------------------------------------------------------------- sort

    fn sort(
        &self,
        schema: &Schema,
        v: &QsValue,
        param: Param,
        check_permission: bool,
    ) -> Result<Vec<SortKey>, QueryError> {
        let mut out = Vec::new();
        self.sort_value(schema, v, &param, check_permission, &mut out)?;
        Ok(out)
    }

    fn sort_value(
        &self,
        schema: &Schema,
        v: &QsValue,
        param: &Param,
        check: bool,
        out: &mut Vec<SortKey>,
    ) -> Result<(), QueryError> {
        match v {
            QsValue::Null => Ok(()),
            QsValue::String(s) => {
                for part in s.split(',') {
                    let part = part.trim();
                    if part.is_empty() {
                        continue;
                    }
                    let (path, dir) = match part.split_once(':') {
                        Some((p, d)) => (p.trim(), Some(d.trim())),
                        None => (part, None),
                    };
                    if path.is_empty() {
                        continue;
                    }
                    let direction = direction(dir)?;
                    let segments: Vec<&str> = path.split('.').collect();
                    out.push(self.sort_path(schema, &segments, direction, param, check)?);
                }
                Ok(())
            }
            QsValue::Array(items) => {
                for item in items {
                    self.sort_value(schema, item, param, check, out)?;
                }
                Ok(())
            }
            QsValue::Object(map) => {
                for (key, val) in map {
                    self.sort_nested(schema, &[], key, val, param, check, out)?;
                }
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn sort_nested(
        &self,
        schema: &Schema,
        prefix: &[&str],
        key: &str,
        val: &QsValue,
        param: &Param,
        check: bool,
        out: &mut Vec<SortKey>,
    ) -> Result<(), QueryError> {
        let mut segments: Vec<&str> = prefix.to_vec();
        segments.push(key);
        self.check_depth(segments.len())?;
        match val {
            QsValue::String(d) => {
                let direction = direction(Some(d))?;
                out.push(self.sort_path(schema, &segments, direction, param, check)?);
                Ok(())
            }
            QsValue::Object(inner) => {
                for (k, v) in inner {
                    self.sort_nested(schema, &segments, k, v, param, check, out)?;
                }
                Ok(())
            }
            QsValue::Null => Ok(()),
            QsValue::Array(_) => Err(QueryError::Invalid(
                "Invalid order. order can only be one of asc|desc|ASC|DESC".into(),
            )),
        }
    }

    fn sort_path(
        &self,
        schema: &Schema,
        segments: &[&str],
        direction: Direction,
        param: &Param,
        check: bool,
    ) -> Result<SortKey, QueryError> {
        let mut cur = schema;
        let mut path = Path::default();
        let mut steps = Vec::new();
        for (i, seg) in segments.iter().enumerate() {
            let last = i + 1 == segments.len();
            match self.name(cur, seg, &path, param)? {
                Name::Field(field) if last => {
                    return Ok(SortKey {
                        path: steps,
                        field,
                        direction,
                    });
                }
                Name::Attr(attr) => {
                    let target = self.follow(attr, &path, param, check)?;
                    match (target, last) {
                        (None, true) => {
                            return Ok(SortKey {
                                path: steps,
                                field: FieldRef::Attr(attr.id),
                                direction,
                            });
                        }
                        (Some(t), false) => {
                            steps.push((attr.id, t));
                            path = path.join(seg);
                            cur = self.schema(t);
                        }
                        // A relation without a sub-field, or a sub-field under a scalar.
                        _ => {
                            return Err(QueryError::invalid_key(
                                *seg,
                                path.join(seg).get(),
                                param.clone(),
                            ));
                        }
                    }
                }
                Name::Field(_) | Name::Localizations => {
                    return Err(QueryError::invalid_key(
                        *seg,
                        path.join(seg).get(),
                        param.clone(),
                    ));
                }
            }
        }
        Err(QueryError::invalid_key("", path.get(), param.clone()))
    }

    // ----------------------------------------------------------------- fields

    fn fields(&self, schema: &Schema, v: &QsValue) -> Result<Option<Vec<FieldRef>>, QueryError> {
        let bad_shape = || {
            QueryError::Invalid(
                "Invalid fields parameter. Expected a string or an array of strings".into(),
            )
        };
        let mut names: Vec<&str> = Vec::new();
        match v {
            QsValue::String(s) => {
                if s.is_empty() {
                    return Ok(Some(Vec::new()));
                }
                names.extend(s.split(',').map(str::trim));
            }
            QsValue::Null => return Ok(Some(Vec::new())),
            QsValue::Array(items) => {
                for item in items {
                    match item {
                        QsValue::String(s) => names.extend(s.split(',').map(str::trim)),
                        QsValue::Null => {}
                        _ => return Err(bad_shape()),
                    }
                }
            }
            QsValue::Object(_) => return Err(bad_shape()),
        }
        let mut out: Vec<FieldRef> = Vec::new();
        let mut all = false;
        for name in names {
            if name == "*" {
                all = true;
                continue;
            }
            let field = match self.name(schema, name, &Path::default(), &Param::Fields)? {
                Name::Field(f) => f,
                Name::Attr(attr) if matches!(attr.kind, AttributeKind::Scalar(_)) => {
                    FieldRef::Attr(attr.id)
                }
                _ => {
                    return Err(QueryError::invalid_key(
                        name,
                        Some(name.to_string()),
                        Param::Fields,
                    ));
                }
            };
            if matches!(field, FieldRef::Id | FieldRef::DocumentId) || out.contains(&field) {
                continue;
            }
            out.push(field);
        }
        Ok((!all).then_some(out))
    }

    // --------------------------------------------------------------- populate

    fn populate_root(&mut self, schema: &Schema, v: &QsValue) -> Result<Populate, QueryError> {
        let mut tree = PopTree::default();
        self.populate_into(schema, v, &Path::default(), 0, &mut tree)?;
        Ok(self.finish(schema, tree))
    }

    fn check_populate_depth(&self, depth: usize) -> Result<(), QueryError> {
        within(
            depth,
            self.config.limits.max_populate_depth,
            "maxPopulateDepth",
            |max| format!("populate is nested more than {max} levels deep"),
        )
    }

    /// Adds a populate value (string, list or object) at one level into `tree`.
    fn populate_into(
        &mut self,
        schema: &Schema,
        v: &QsValue,
        path: &Path,
        depth: usize,
        tree: &mut PopTree,
    ) -> Result<(), QueryError> {
        self.check_populate_depth(depth)?;
        match v {
            QsValue::Null => Ok(()),
            QsValue::String(s) => {
                for item in s.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    if item == "*" {
                        self.populate_all(schema, tree);
                    } else {
                        let segments: Vec<&str> = item.split('.').collect();
                        self.populate_dot_path(schema, &segments, path, depth, tree)?;
                    }
                }
                Ok(())
            }
            QsValue::Array(items) => {
                for item in items {
                    match item {
                        QsValue::String(_) | QsValue::Null => {
                            self.populate_into(schema, item, path, depth, tree)?
                        }
                        _ => {
                            return Err(QueryError::InvalidValue {
                                key: "populate".into(),
                                path: path.get(),
                                message: "array entries must be attribute names or dot paths"
                                    .into(),
                                param: Param::Populate,
                            });
                        }
                    }
                }
                Ok(())
            }
            QsValue::Object(map) => {
                if let Some(n) = too_many_populate_entries(map) {
                    return Err(QueryError::InvalidParam {
                        message: format!(
                            "Too many populate entries ({n}). The maximum number of populate entries when using array notation is 100. Consider using object notation (populate[field]=true), nested population, or reducing the number of fields."
                        ),
                        param: Param::Populate,
                    });
                }
                if let Some(items) = numeric_object_as_list(map) {
                    return self.populate_into(schema, &QsValue::Array(items), path, depth, tree);
                }
                for (key, val) in map {
                    self.populate_object_entry(schema, key, val, path, depth, tree)?;
                }
                Ok(())
            }
        }
    }

    /// `populate=*` at one level: every relation the caller may find, media, components,
    /// zones, and `localizations` on localized types; each with its scalar fields only.
    fn populate_all(&self, schema: &Schema, tree: &mut PopTree) {
        for attr in &schema.attributes {
            if attr.private {
                continue;
            }
            match &attr.kind {
                AttributeKind::Relation(rel) => {
                    if let Some(t) = rel.target
                        && !rel.kind.is_morph()
                        && self.permissions.can_find(t)
                    {
                        tree.entry(PopulateKey::Attr(attr.id), t);
                    }
                }
                AttributeKind::Component(c) => {
                    tree.entry(PopulateKey::Attr(attr.id), c.component);
                }
                AttributeKind::Media(_) => {
                    if let Some(f) = self.model.upload_file() {
                        tree.entry(PopulateKey::Attr(attr.id), f.id);
                    }
                }
                AttributeKind::DynamicZone(z) => {
                    let node = tree.zone(PopulateKey::Attr(attr.id));
                    for c in &z.components {
                        node.zone_all.entry(*c).or_default();
                    }
                }
                AttributeKind::Scalar(_) => {}
            }
        }
        if schema.is_content_type() && schema.localized {
            tree.entry(PopulateKey::Localizations, schema.id);
        }
    }

    /// Resolves a populate key on `schema`: the populate key, the target schema, and the attribute.
    fn populate_key<'s>(
        &self,
        schema: &'s Schema,
        key: &str,
        err_path: Option<String>,
    ) -> Result<(PopulateKey, Option<SchemaId>, Option<&'s Attribute>), QueryError> {
        if key == "localizations" && schema.is_content_type() && schema.localized {
            return Ok((PopulateKey::Localizations, Some(schema.id), None));
        }
        let Some(attr) = schema.attribute(key) else {
            return Err(QueryError::invalid_key(key, err_path, Param::Populate));
        };
        if attr.private {
            return Err(QueryError::invalid_key(
                key,
                Some(key.to_string()),
                Param::Populate,
            ));
        }
        let target = match &attr.kind {
            AttributeKind::Relation(rel) if !rel.kind.is_morph() => rel.target,
            AttributeKind::Relation(_) => None,
            AttributeKind::Component(c) => Some(c.component),
            AttributeKind::Media(_) => self.model.upload_file().map(|f| f.id),
            AttributeKind::DynamicZone(_) => Some(schema.id),
            AttributeKind::Scalar(_) => None,
        };
        if target.is_none() {
            return Err(QueryError::invalid_key(
                key,
                Some(key.to_string()),
                Param::Populate,
            ));
        }
        Ok((PopulateKey::Attr(attr.id), target, Some(attr)))
    }

    fn relation_allowed(&self, attr: Option<&Attribute>, target: SchemaId) -> bool {
        match attr.map(|a| &a.kind) {
            Some(AttributeKind::Relation(_)) => self.permissions.can_find(target),
            _ => true,
        }
    }

    fn populate_dot_path(
        &mut self,
        schema: &Schema,
        segments: &[&str],
        path: &Path,
        depth: usize,
        tree: &mut PopTree,
    ) -> Result<(), QueryError> {
        self.check_populate_depth(depth)?;
        let Some((first, rest)) = segments.split_first() else {
            return Ok(());
        };
        let full = path.join(&segments.join("."));
        let (key, target, attr) = self.populate_key(schema, first, full.get())?;
        let Some(target) = target else { return Ok(()) };
        if !self.relation_allowed(attr, target) {
            return Ok(()); // dropped silently, as Strapi's sanitizer does
        }
        if let Some(AttributeKind::DynamicZone(z)) = attr.map(|a| &a.kind) {
            let node = tree.zone(key);
            for c in &z.components {
                node.zone_all.entry(*c).or_default();
            }
            if let Some((next, _)) = rest.split_first() {
                // The next segment must be an attribute of at least one component of the zone.
                let mut found = false;
                for c in z.components.clone() {
                    let cs = self.schema(c);
                    if cs.attribute(next).is_some() {
                        found = true;
                        let sub = tree.zone(key).zone_all.entry(c).or_default();
                        self.populate_dot_path(
                            cs,
                            rest,
                            &path.join(first),
                            depth + 1,
                            &mut sub.populate,
                        )?;
                    }
                }
                if !found {
                    return Err(QueryError::invalid_key(*next, full.get(), Param::Populate));
                }
            }
            return Ok(());
        }
        if !rest.is_empty() && matches!(attr.map(|a| &a.kind), Some(AttributeKind::Media(_))) {
            // Media cannot be followed.
            return Err(QueryError::invalid_key(
                *first,
                Some((*first).to_string()),
                Param::Populate,
            ));
        }
        let node = tree.entry(key, target);
        if !rest.is_empty() {
            let ts = self.schema(target);
            let mut sub = std::mem::take(&mut node.populate);
            self.populate_dot_path(ts, rest, &path.join(first), depth + 1, &mut sub)?;
            tree.entry(key, target).populate = sub;
        }
        Ok(())
    }

    fn populate_object_entry(
        &mut self,
        schema: &Schema,
        key: &str,
        val: &QsValue,
        path: &Path,
        depth: usize,
        tree: &mut PopTree,
    ) -> Result<(), QueryError> {
        let (pkey, target, attr) = self.populate_key(schema, key, path.get())?;
        let Some(target) = target else { return Ok(()) };
        let here = path.join(key);
        let is_zone = matches!(attr.map(|a| &a.kind), Some(AttributeKind::DynamicZone(_)));
        let is_relation = matches!(attr.map(|a| &a.kind), Some(AttributeKind::Relation(_)))
            || pkey == PopulateKey::Localizations;
        if is_zone {
            return self.populate_zone(schema, attr, pkey, val, &here, depth, tree);
        }
        let allowed = self.relation_allowed(attr, target);
        match val {
            QsValue::String(s) => {
                if s == "*" {
                    if allowed {
                        tree.entry(pkey, target);
                    }
                    return Ok(());
                }
                match values::strict_bool(s) {
                    Some(true) => {
                        if allowed {
                            tree.entry(pkey, target);
                        }
                        Ok(())
                    }
                    Some(false) => Ok(()),
                    None => Err(QueryError::invalid_key(
                        s.clone(),
                        here.get(),
                        Param::Populate,
                    )),
                }
            }
            QsValue::Null => Ok(()),
            QsValue::Array(_) => Err(QueryError::InvalidValue {
                key: key.to_string(),
                path: here.get(),
                message: "expected true, false or an object of populate options".into(),
                param: Param::Populate,
            }),
            QsValue::Object(opts) => {
                let ts = self.schema(target);
                let mut node = PopNode::default();
                for (k, v) in opts {
                    match k.as_str() {
                        "fields" => node.fields = self.fields(ts, v)?,
                        "filters" => {
                            node.filters = match v {
                                QsValue::Object(m) => {
                                    self.conjunction(ts, m, &Path::default(), 0)?
                                }
                                QsValue::Array(_) => self.root_filters(ts, v)?,
                                _ => {
                                    return Err(QueryError::Invalid(
                                        "The filters parameter must be an object or an array"
                                            .into(),
                                    ));
                                }
                            }
                        }
                        "sort" => node.sort = self.sort(ts, v, Param::Populate, true)?,
                        "populate" => {
                            self.populate_into(ts, v, &here, depth + 1, &mut node.populate)?
                        }
                        "count" => {
                            let flag = v.as_str().and_then(values::strict_bool);
                            match flag {
                                Some(b) => node.count = b && is_relation,
                                None => {
                                    return Err(QueryError::invalid_key(
                                        k.clone(),
                                        here.get(),
                                        Param::Populate,
                                    ));
                                }
                            }
                        }
                        "on" => {
                            return Err(QueryError::Invalid(format!(
                                "Using fragments is not permitted to populate \"{key}\" in \"{}\"",
                                schema.uid
                            )));
                        }
                        other => {
                            // An attribute of the target named without `populate`: its own path.
                            let p = if ts.attribute(other).is_some() {
                                here.join(other)
                            } else {
                                here.clone()
                            };
                            return Err(QueryError::invalid_key(other, p.get(), Param::Populate));
                        }
                    }
                }
                if allowed {
                    let existing = tree.entry(pkey, target);
                    existing.merge(node);
                }
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn populate_zone(
        &mut self,
        schema: &Schema,
        attr: Option<&Attribute>,
        pkey: PopulateKey,
        val: &QsValue,
        here: &Path,
        depth: usize,
        tree: &mut PopTree,
    ) -> Result<(), QueryError> {
        let Some(attr) = attr else { return Ok(()) };
        let AttributeKind::DynamicZone(zone) = &attr.kind else {
            return Ok(());
        };
        let nested_error = |found: String| {
            QueryError::Invalid(format!(
                "Invalid nested populate for {}.{} ({}). Expected a fragment (\"on\") or \"count\" but found {found}",
                schema.singular_name, attr.name, schema.uid
            ))
        };
        match val {
            QsValue::String(s) if s == "*" => Err(nested_error("\"*\"".into())),
            QsValue::String(s) => match values::strict_bool(s) {
                Some(true) => {
                    let node = tree.zone(pkey);
                    for c in &zone.components {
                        node.zone_all.entry(*c).or_default();
                    }
                    Ok(())
                }
                Some(false) => Ok(()),
                None => Err(QueryError::invalid_key(
                    s.clone(),
                    here.get(),
                    Param::Populate,
                )),
            },
            QsValue::Null => Ok(()),
            QsValue::Array(_) => Err(nested_error(qs::QsValue::to_json(val))),
            QsValue::Object(opts) => {
                let mut on: Option<IndexMap<SchemaId, PopNode>> = None;
                let mut populate_star = false;
                for (k, v) in opts {
                    match k.as_str() {
                        "on" => {
                            let QsValue::Object(frags) = v else {
                                return Err(nested_error(v.to_json()));
                            };
                            let mut map = IndexMap::new();
                            for (uid, fv) in frags {
                                let here_on = here.join("on").join(uid);
                                let Some(cid) = zone
                                    .components
                                    .iter()
                                    .copied()
                                    .find(|c| self.schema(*c).uid.as_str() == uid)
                                else {
                                    return Err(QueryError::invalid_key(
                                        uid.clone(),
                                        here_on.get(),
                                        Param::Populate,
                                    ));
                                };
                                let cs = self.schema(cid);
                                let mut node = PopNode::default();
                                match fv {
                                    QsValue::String(s) => match values::strict_bool(s) {
                                        Some(true) => {}
                                        Some(false) => continue,
                                        None if s == "*" => {}
                                        None => {
                                            return Err(QueryError::invalid_key(
                                                s.clone(),
                                                here_on.get(),
                                                Param::Populate,
                                            ));
                                        }
                                    },
                                    QsValue::Object(fo) => {
                                        for (fk, fvv) in fo {
                                            match fk.as_str() {
                                                "fields" => node.fields = self.fields(cs, fvv)?,
                                                "filters" => {
                                                    node.filters = match fvv {
                                                        QsValue::Object(m) => self.conjunction(
                                                            cs,
                                                            m,
                                                            &Path::default(),
                                                            0,
                                                        )?,
                                                        _ => self.root_filters(cs, fvv)?,
                                                    }
                                                }
                                                "sort" => {
                                                    node.sort =
                                                        self.sort(cs, fvv, Param::Populate, true)?
                                                }
                                                "populate" => self.populate_into(
                                                    cs,
                                                    fvv,
                                                    &here_on,
                                                    depth + 1,
                                                    &mut node.populate,
                                                )?,
                                                other => {
                                                    return Err(QueryError::invalid_key(
                                                        other,
                                                        here_on.get(),
                                                        Param::Populate,
                                                    ));
                                                }
                                            }
                                        }
                                    }
                                    QsValue::Null => {}
                                    QsValue::Array(_) => {
                                        return Err(QueryError::invalid_key(
                                            uid.clone(),
                                            here_on.get(),
                                            Param::Populate,
                                        ));
                                    }
                                }
                                map.insert(cid, node);
                            }
                            on = Some(map);
                        }
                        "populate" => {
                            if v.as_str() != Some("*") {
                                return Err(QueryError::Invalid(format!(
                                    "Invalid nested population query detected. When using 'populate' within polymorphic structures, its value must be '*' to indicate all second level links. Specific field targeting is not supported here. Consider using the fragment API for more granular population control. ({}.{})",
                                    schema.singular_name, attr.name
                                )));
                            }
                            populate_star = true;
                        }
                        // `count` on a zone is ignored by Strapi's REST API: it just populates.
                        "count" => {}
                        _ => return Err(nested_error(val.to_json())),
                    }
                }
                let node = tree.zone(pkey);
                match on {
                    Some(map) => {
                        for (cid, n) in map {
                            node.zone_on.entry(cid).or_default().merge(n);
                        }
                    }
                    None => {
                        for c in &zone.components {
                            let sub = node.zone_all.entry(*c).or_default();
                            if populate_star {
                                let cs = self.schema(*c);
                                self.populate_all(cs, &mut sub.populate);
                            }
                        }
                    }
                }
                if populate_star && node.zone_on.is_empty() {
                    // handled above
                } else if populate_star {
                    let ids: Vec<SchemaId> = node.zone_on.keys().copied().collect();
                    for c in ids {
                        let cs = self.schema(c);
                        if let Some(n) = tree.zone(pkey).zone_on.get_mut(&c) {
                            self.populate_all(cs, &mut n.populate);
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Turns the merged tree into the canonical [`Populate`].
    fn finish(&self, schema: &Schema, tree: PopTree) -> Populate {
        let mut entries: Vec<PopulateEntry> = Vec::new();
        for (key, node) in tree.nodes {
            let kind = if node.is_zone {
                // `on` wins over the all-types forms: unlisted types are omitted.
                let map = if node.zone_on.is_empty() {
                    node.zone_all
                } else {
                    node.zone_on
                };
                let mut list: Vec<(SchemaId, PopulateOptions)> = map
                    .into_iter()
                    .map(|(c, n)| (c, self.finish_options(self.schema(c), n)))
                    .collect();
                list.sort_by_key(|(c, _)| *c);
                PopulateKind::Zone(list)
            } else if node.count {
                PopulateKind::Count {
                    target: node.target,
                    filters: node.filters,
                }
            } else {
                let ts = self.schema(node.target);
                PopulateKind::Rows {
                    target: node.target,
                    options: self.finish_options(ts, node),
                }
            };
            entries.push(PopulateEntry { key, kind });
        }
        let _ = schema;
        entries.sort_by_key(|e| e.key);
        Populate(entries)
    }

    fn finish_options(&self, schema: &Schema, node: PopNode) -> PopulateOptions {
        PopulateOptions {
            fields: node.fields,
            filters: node.filters,
            sort: node.sort,
            populate: self.finish(schema, node.populate),
        }
    }

    // ------------------------------------------------------- pagination & co

    fn pagination(&self, q: &QsMap) -> Result<Pagination, QueryError> {
        if q.contains_key("page") || q.contains_key("pageSize") {
            return Err(QueryError::Pagination(
                "Invalid pagination attributes. The page parameters are incorrect and must be in the pagination object".into(),
            ));
        }
        let empty = QsMap::new();
        let p = match q.get("pagination") {
            Some(QsValue::Object(m)) => m,
            _ => &empty,
        };
        let raw = |k: &str| {
            p.get(k).map(|v| match v {
                QsValue::String(s) => values::js_number(s).unwrap_or(f64::NAN),
                QsValue::Null => 0.0,
                _ => f64::NAN,
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
            if let Some(m) = max
                && size > m
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
        let start = as_count(start).ok_or_else(|| {
            QueryError::Invalid(format!(
                "convertStartQueryParams expected a positive integer got {}",
                values::js_number_string(start)
            ))
        })?;
        let limit = as_count(limit).ok_or_else(|| {
            QueryError::Invalid(format!(
                "convertLimitQueryParams expected a positive integer got {}",
                values::js_number_string(limit)
            ))
        })?;
        Ok(Pagination {
            mode,
            start,
            limit: limit.max(1),
            with_count,
        })
    }

    fn status(&self, v: Option<&QsValue>) -> Result<Status, QueryError> {
        match v {
            None => Ok(Status::Published),
            Some(QsValue::String(s)) if s == "published" => Ok(Status::Published),
            Some(QsValue::String(s)) if s == "draft" || s.is_empty() => Ok(Status::Draft),
            Some(other) => {
                if self.config.documents_strict_params {
                    let received = match other {
                        QsValue::String(s) => s.clone(),
                        _ => other.to_json(),
                    };
                    return Err(QueryError::Invalid(format!(
                        "Invalid parameter at 'status'. Expected 'published' or 'draft', received: {received}"
                    )));
                }
                Ok(Status::Draft)
            }
        }
    }

    fn locale(&self, schema: &Schema, v: Option<&QsValue>) -> Result<LocaleSelector, QueryError> {
        let strict = self.config.documents_strict_params;
        let localized = schema.is_content_type() && schema.localized;
        let codes: Vec<String> = match v {
            None | Some(QsValue::Null) => return Ok(LocaleSelector::Default),
            Some(QsValue::String(s)) if s.is_empty() => return Ok(LocaleSelector::Default),
            Some(QsValue::String(s)) => vec![s.clone()],
            Some(QsValue::Array(items)) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
            Some(QsValue::Object(_)) => {
                if strict {
                    return Err(QueryError::Invalid("Invalid parameter at 'locale'. Expected a string, array of strings, empty string, null, or undefined; received: object".into()));
                }
                // An object names no locale: nothing matches (non-localized types ignore it).
                return Ok(if localized {
                    LocaleSelector::Codes(Vec::new())
                } else {
                    LocaleSelector::Default
                });
            }
        };
        if strict {
            for c in &codes {
                if c != "*" && !is_bcp47(c) {
                    return Err(QueryError::Invalid("Invalid parameter at 'locale'. Locale must be a valid BCP 47 format (e.g. en, en-US, zh-Hans).".into()));
                }
            }
        }
        if !localized {
            return Ok(LocaleSelector::Default);
        }
        if codes.iter().any(|c| c == "*") {
            return Ok(LocaleSelector::All);
        }
        if codes.is_empty() {
            return Ok(LocaleSelector::Default);
        }
        Ok(LocaleSelector::Codes(codes))
    }

    fn publication_filter(&self, q: &QsMap) -> Result<Option<PublicationFilter>, QueryError> {
        if let Some(v) = q.get("publicationFilter") {
            let s = v.as_str().unwrap_or_default();
            return match PublicationFilter::ALL.iter().find(|(_, n)| *n == s) {
                Some((p, _)) => Ok(Some(*p)),
                None => Err(QueryError::InvalidParam {
                    message: format!(
                        "Invalid value for 'publicationFilter'. Expected one of: {}.",
                        PublicationFilter::ALL
                            .iter()
                            .map(|(_, n)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    param: Param::Other("publicationFilter".into()),
                }),
            };
        }
        match q.get("hasPublishedVersion").and_then(QsValue::as_str) {
            // The deprecated flag looks at the whole document (every locale).
            Some("true") => Ok(Some(PublicationFilter::HasPublishedVersionDocument)),
            Some("false") => Ok(Some(PublicationFilter::NeverPublishedDocument)),
            _ => Ok(None),
        }
    }
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

fn direction(d: Option<&str>) -> Result<Direction, QueryError> {
    match d {
        None => Ok(Direction::Asc),
        Some("asc" | "ASC") => Ok(Direction::Asc),
        Some("desc" | "DESC") => Ok(Direction::Desc),
        Some(_) => Err(QueryError::Invalid(
            "Invalid order. order can only be one of asc|desc|ASC|DESC".into(),
        )),
    }
}

fn as_count(v: f64) -> Option<u64> {
    (v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 9.0e15).then_some(v as u64)
}

fn is_bcp47(s: &str) -> bool {
    if s.len() > 35 {
        return false;
    }
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or_default();
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
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

/// Strapi's "too many populate entries" rule: more than 100 consecutive numeric keys
/// (from 0) holding strings.
fn too_many_populate_entries(m: &QsMap) -> Option<usize> {
    let mut n = 0;
    while let Some(QsValue::String(_)) = m.get(n.to_string().as_str()) {
        n += 1;
    }
    (n > 100).then_some(n)
}

/// The populate tree while it is being merged (strings, arrays and objects may name the
/// same attribute several times).
#[derive(Default)]
struct PopTree {
    nodes: Vec<(PopulateKey, PopNode)>,
}

#[derive(Default)]
struct PopNode {
    target: SchemaId,
    fields: Option<Vec<FieldRef>>,
    filters: Option<Conjunction>,
    sort: Vec<SortKey>,
    populate: PopTree,
    count: bool,
    is_zone: bool,
    zone_all: IndexMap<SchemaId, PopNode>,
    zone_on: IndexMap<SchemaId, PopNode>,
}

impl PopTree {
    fn entry(&mut self, key: PopulateKey, target: SchemaId) -> &mut PopNode {
        let pos = match self.nodes.iter().position(|(k, _)| *k == key) {
            Some(p) => p,
            None => {
                self.nodes.push((
                    key,
                    PopNode {
                        target,
                        ..PopNode::default()
                    },
                ));
                self.nodes.len() - 1
            }
        };
        &mut self.nodes[pos].1
    }

    fn zone(&mut self, key: PopulateKey) -> &mut PopNode {
        let node = self.entry(key, SchemaId::default());
        node.is_zone = true;
        node
    }
}

impl PopNode {
    fn merge(&mut self, other: PopNode) {
        if other.fields.is_some() {
            self.fields = other.fields;
        }
        if other.filters.is_some() {
            self.filters = other.filters;
        }
        if !other.sort.is_empty() {
            self.sort = other.sort;
        }
        self.count |= other.count;
        for (k, n) in other.populate.nodes {
            let target = n.target;
            let is_zone = n.is_zone;
            let e = self.populate.entry(k, target);
            e.is_zone |= is_zone;
            e.merge(n);
        }
        for (c, n) in other.zone_all {
            self.zone_all.entry(c).or_default().merge(n);
        }
        for (c, n) in other.zone_on {
            self.zone_on.entry(c).or_default().merge(n);
        }
    }
}
