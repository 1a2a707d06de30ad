//! Pass 2 of an import: every value is validated against the model and written as
//! Strapi lays it out (see `strapi-db-layout.md` §2–§8): a draft row and, when published, a
//! published row per locale; per-row copies of components with their `_cmps` links
//! (`order` 1..n, NULL for a single component); media links in `files_related_mph`
//! (`order` 1..n); relation link rows (owner order 1..n, inverse order max+1 per target,
//! kept from the draft on the published row as Strapi's publish does). Once a problem is
//! found nothing more is written, but checking goes on so that every problem is reported.

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::batch::{Batches, TableKind};
use super::index::{
    DocEntry, Index, TIMESTAMP_KEYS, check_document_id, doc_schema, item_key, reserved_type, shape,
};
use super::locales::{LocaleSeed, seed_locales};
use super::statements;
use super::stream::{Item, Section, for_each_item};
use super::values::{encode_scalar, json_type, parse_timestamp, path_index, path_key};
use super::{FastMap, ImportError, ImportReport, LoadHooks, Problems};
use crate::clock::now_ms;
use crate::schema::{
    AttrId, Attribute, AttributeKind, ColumnRole, LinkTable, Model, MorphTable, RelationKind,
    RelationStorage, Schema, SchemaId,
};
use crate::store::document_id::DocumentIds;
use crate::store::seam::{StoredValue, Writer, query_map};

/// bcrypt cost of hashed passwords (Strapi's default, 10 rounds).
const BCRYPT_COST: u32 = 10;

/// A document a relation points at.
#[derive(Debug, Clone)]
struct Target {
    schema: SchemaId,
    key: String,
    entry: DocEntry,
}

/// A validated value of one attribute.
#[derive(Debug)]
enum Enc {
    Scalar(StoredValue),
    Media(Vec<i64>),
    /// Owner-side (or one-way) relation targets.
    Relation(Vec<Target>),
    /// `mappedBy`-side relation targets (written into the owner's link table at the end).
    Inverse(Vec<Target>),
    Components(Vec<CompVal>),
    Zone(Vec<CompVal>),
    /// A value that was reported as wrong (counts as given, writes nothing).
    Invalid,
}

#[derive(Debug)]
struct CompVal {
    schema: SchemaId,
    layer: Layer,
    path: String,
}

#[derive(Debug, Clone, Copy, Default)]
struct Times {
    created: Option<i64>,
    updated: Option<i64>,
    published: Option<i64>,
}

impl Times {
    fn over(self, top: Times) -> Times {
        Times {
            created: top.created.or(self.created),
            updated: top.updated.or(self.updated),
            published: top.published.or(self.published),
        }
    }
}

/// The values of one object (document data, a version, a component).
#[derive(Debug, Default)]
struct Layer {
    values: Vec<Option<Enc>>,
    times: Times,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Draft,
    Published,
    /// A type without draft and publish.
    Single,
}

/// Where a row sits: its locale and status, which decide the rows its links point at.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    localized: bool,
    loc: usize,
    status: Status,
}

struct Deferred {
    owner_schema: SchemaId,
    owner_attr: AttrId,
    owner: Target,
    source_row: i64,
    ctx: Ctx,
    label: String,
    path: String,
}

struct LinkState {
    was_empty: bool,
    inverse_max: FastMap<i64, f64>,
}

/// Pass 2's state: what it wrote, and what it still has to.
struct Load<'c, 'm> {
    db: &'c dyn Writer,
    model: &'m Model,
    idx: Index,
    problems: &'c mut Problems,
    write: bool,
    now: i64,
    ids: DocumentIds,
    defaults: Vec<Vec<Option<StoredValue>>>,
    links: FastMap<String, LinkState>,
    deferred: Vec<Deferred>,
    /// Inverse order of the draft row's links, by (attribute, target schema, target document).
    draft_inverse: FastMap<(AttrId, SchemaId, i64), f64>,
    media: Option<MorphTable>,
    roles: HashMap<String, Option<i64>>,
    /// The next id of each component table: component rows are numbered here, as the
    /// database would number them (nothing else writes to the table inside the import's
    /// transaction), so that every row can be queued.
    component_ids: FastMap<SchemaId, i64>,
    /// Rows waiting to be written many to a statement; also whether the database checks
    /// each foreign key at once ([`Batches::immediate_foreign_keys`]).
    batches: Batches,
    /// The largest id queued so far of each schema whose rows the index numbered (content
    /// types, files, users): a link to a row past it points forward in the file.
    queued_up_to: Vec<i64>,
    /// Links to rows further down the file, queued once every item's rows are
    /// (`Batches::immediate_foreign_keys` only).
    forward: Vec<(String, Vec<String>, Vec<StoredValue>)>,
    report: ImportReport,
    per_type: Vec<u64>,
}

pub(crate) fn hash_password(pw: &str) -> Result<String, String> {
    bcrypt::hash_with_result(pw, BCRYPT_COST)
        .map(|h| h.format_for_version(bcrypt::Version::TwoA))
        .map_err(|e| format!("cannot hash the password: {e}"))
}

/// Pass 2 (see the module docs).
pub(crate) fn write(
    db: &dyn Writer,
    model: &Model,
    path: &Path,
    idx: Index,
    hooks: &mut dyn LoadHooks,
    problems: &mut Problems,
    progress: &dyn Fn(u64),
) -> Result<ImportReport, ImportError> {
    let defaults = model
        .schemas()
        .iter()
        .map(|s| {
            s.attributes
                .iter()
                .map(|a| match (&a.kind, &a.default) {
                    (AttributeKind::Scalar(ty), Some(d)) => {
                        encode_scalar(a, ty, d, &mut |pw| hash_password(pw)).ok()
                    }
                    _ => None,
                })
                .collect()
        })
        .collect();
    let write = problems.is_empty();
    let immediate_foreign_keys = hooks.immediate_foreign_keys();
    let queued_up_to = idx.first_ids.iter().map(|first| first - 1).collect();
    let mut w = Load {
        db,
        model,
        idx,
        problems,
        write,
        now: now_ms(),
        ids: DocumentIds::new(),
        defaults,
        links: FastMap::default(),
        deferred: Vec::new(),
        draft_inverse: FastMap::default(),
        media: model.media_table().cloned(),
        roles: HashMap::new(),
        component_ids: FastMap::default(),
        batches: Batches::new(immediate_foreign_keys, db.rows_per_insert()),
        queued_up_to,
        forward: Vec::new(),
        report: ImportReport::default(),
        per_type: vec![0; model.schemas().len()],
    };
    let mut count = 0u64;
    for_each_item(path, &mut |item, read| {
        count += 1;
        if count.is_multiple_of(256) {
            progress(read);
        }
        match item {
            Item::Format(_) | Item::Unknown(_) => Ok(()),
            Item::Locales(_) => w.locales(),
            Item::Element(Section::Files, i, v) => w.file(i, &v),
            Item::Element(Section::Users, i, v) => w.user(i, &v),
            Item::Element(Section::Documents, i, v) => w.document(i, &v),
        }
    })?;
    for (table, columns, row) in std::mem::take(&mut w.forward) {
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        w.queue(TableKind::Links, &table, &columns, row)?;
    }
    w.batches.flush(db)?;
    // `mappedBy`-side links look up the owner's links: with its index.
    hooks.after_rows()?;
    w.flush_deferred()?;
    w.batches.flush(db)?;
    // The default locale, when the database had none and the dataset declared none.
    w.locales()?;
    w.report.per_type = model
        .schemas()
        .iter()
        .zip(&w.per_type)
        .filter(|(_, n)| **n > 0)
        .map(|(s, n)| (s.uid.to_string(), *n))
        .collect();
    Ok(w.report)
}

impl Load<'_, '_> {
    fn problem(&mut self, item: Option<&str>, path: &str, message: impl Into<String>) {
        self.problems.push(item, path, message);
        self.write = false;
    }

    /// Queues a row of `table` that nothing reads back before [`Batches::flush`] (see
    /// `batch.rs`).
    fn queue<R>(
        &mut self,
        kind: TableKind,
        table: &str,
        columns: &[&str],
        row: R,
    ) -> Result<(), ImportError>
    where
        R: IntoIterator<Item = StoredValue>,
        R::IntoIter: ExactSizeIterator,
    {
        if self.write {
            self.batches.push(self.db, kind, table, columns, row)?;
        }
        Ok(())
    }

    /// Queues a link row that points at `target_row` of `target`: at once, or once every
    /// item's rows are queued when it points forward ([`Load::points_forward`]).
    fn link<R>(
        &mut self,
        target: Option<SchemaId>,
        target_row: i64,
        table: &str,
        columns: &[&str],
        row: R,
    ) -> Result<(), ImportError>
    where
        R: IntoIterator<Item = StoredValue>,
        R::IntoIter: ExactSizeIterator,
    {
        if self.write && target.is_some_and(|t| self.points_forward(t, target_row)) {
            self.forward.push((
                table.to_string(),
                columns.iter().map(|c| c.to_string()).collect(),
                row.into_iter().collect(),
            ));
            return Ok(());
        }
        self.queue(TableKind::Links, table, columns, row)
    }

    /// Whether a link to `row` of `schema` must wait: the foreign key is checked at once
    /// and the row comes further down the file.
    fn points_forward(&self, schema: SchemaId, row: i64) -> bool {
        self.batches.immediate_foreign_keys
            && self
                .queued_up_to
                .get(schema.index())
                .is_some_and(|up_to| row > *up_to)
    }

    fn locales(&mut self) -> Result<(), ImportError> {
        if !self.write {
            return Ok(());
        }
        let mut seeds: Vec<LocaleSeed> = self
            .idx
            .declared
            .iter()
            .map(|l| LocaleSeed {
                code: l.code.clone(),
                name: l.name.clone(),
                default: l.default,
                document_id: l.document_id.clone(),
                timestamp: l.timestamp,
            })
            .collect();
        if let Some(code) = self.idx.create_default.take()
            && !seeds.iter().any(|l| l.code == code)
        {
            let name = if code == "en" {
                "English (en)".to_string()
            } else {
                format!("{code} ({code})")
            };
            seeds.insert(0, LocaleSeed::new(&code, &name, false));
        }
        self.report.locales += seed_locales(self.db, self.model, &seeds)? as u64;
        Ok(())
    }

    // ----- values -----

    /// Validates the values of `obj` for `schema`. `content` accepts timestamps;
    /// keys in `skip` are handled by the caller.
    fn encode_object(
        &mut self,
        schema: &Schema,
        obj: &Map<String, Value>,
        path: &str,
        label: &str,
        content: bool,
        skip: &[&str],
    ) -> Layer {
        let mut layer = Layer {
            values: std::iter::repeat_with(|| None)
                .take(schema.attributes.len())
                .collect(),
            times: Times::default(),
        };
        for (k, v) in obj {
            if skip.contains(&k.as_str()) {
                continue;
            }
            let p = path_key(path, k);
            if content && TIMESTAMP_KEYS.contains(&k.as_str()) {
                match parse_timestamp(v) {
                    Ok(ms) => match k.as_str() {
                        "createdAt" => layer.times.created = Some(ms),
                        "updatedAt" => layer.times.updated = Some(ms),
                        _ => layer.times.published = Some(ms),
                    },
                    Err(e) => self.problem(Some(label), &p, e),
                }
                continue;
            }
            let Some(attr) = schema.attribute(k) else {
                let known: Vec<&str> = schema.attributes.iter().map(|a| a.name.as_str()).collect();
                self.problem(
                    Some(label),
                    &p,
                    format!(
                        "unknown attribute `{k}` of `{}` (attributes: {})",
                        schema.uid,
                        known.join(", ")
                    ),
                );
                continue;
            };
            let enc = self.encode_attr(attr, v, &p, label).unwrap_or(Enc::Invalid);
            layer.values[attr.id.index()] = Some(enc);
        }
        layer
    }

    fn keys<'v>(
        &mut self,
        v: &'v Value,
        many: bool,
        path: &str,
        label: &str,
        what: &str,
    ) -> Vec<(&'v str, String)> {
        match (v, many) {
            (Value::Null, _) => Vec::new(),
            (Value::String(s), false) => vec![(s.as_str(), path.to_string())],
            (Value::Array(items), true) => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let p = path_index(path, i);
                    match item {
                        Value::String(s) => out.push((s.as_str(), p)),
                        other => self.problem(
                            Some(label),
                            &p,
                            format!("expected {what} key (a string), got {}", json_type(other)),
                        ),
                    }
                }
                out
            }
            (other, true) => {
                self.problem(
                    Some(label),
                    path,
                    format!("expected a list of {what} keys, got {}", json_type(other)),
                );
                Vec::new()
            }
            (other, false) => {
                self.problem(
                    Some(label),
                    path,
                    format!(
                        "expected {what} key (a string) or null, got {}",
                        json_type(other)
                    ),
                );
                Vec::new()
            }
        }
    }

    fn encode_attr(&mut self, attr: &Attribute, v: &Value, path: &str, label: &str) -> Option<Enc> {
        match &attr.kind {
            AttributeKind::Scalar(ty) => {
                match encode_scalar(attr, ty, v, &mut |pw| hash_password(pw)) {
                    Ok(sql) => Some(Enc::Scalar(sql)),
                    Err(e) => {
                        self.problem(Some(label), path, e);
                        None
                    }
                }
            }
            AttributeKind::Media(m) => {
                let keys = self.keys(v, m.multiple, path, label, "a file");
                let mut ids = Vec::new();
                for (k, p) in keys {
                    match self.idx.files.get(k) {
                        Some(id) => ids.push(*id),
                        None => self.problem(
                            Some(label),
                            &p,
                            format!("no file with key `{k}` in `files`"),
                        ),
                    }
                }
                Some(Enc::Media(ids))
            }
            AttributeKind::Relation(rel) => {
                let target = match rel.target {
                    Some(t) if !rel.kind.is_morph() => self.model.schema(t),
                    _ => {
                        self.problem(
                            Some(label),
                            path,
                            format!(
                                "`{}` is a polymorphic relation ({}); it cannot be imported",
                                attr.name,
                                rel.kind.as_str()
                            ),
                        );
                        return None;
                    }
                };
                let is_user = target.uid.as_str() == "plugin::users-permissions.user";
                if !is_user && reserved_type(target.uid.as_str()).is_some() {
                    self.problem(
                        Some(label),
                        path,
                        format!(
                            "relations to `{}` cannot be imported (`{}`)",
                            target.uid, attr.name
                        ),
                    );
                    return None;
                }
                let what = if is_user {
                    "a user".to_string()
                } else {
                    format!("a `{}` document", target.uid)
                };
                let keys = self.keys(v, rel.kind.is_to_many(), path, label, &what);
                let mut targets = Vec::new();
                for (k, p) in keys {
                    match self.idx.docs[target.id.index()].get(k) {
                        Some(entry) => targets.push(Target {
                            schema: target.id,
                            key: k.to_string(),
                            entry: *entry,
                        }),
                        None if is_user => self.problem(
                            Some(label),
                            &p,
                            format!("no user with key `{k}` in `users`"),
                        ),
                        None => self.problem(
                            Some(label),
                            &p,
                            format!("no `{}` document with key `{k}`", target.uid),
                        ),
                    }
                }
                match &rel.storage {
                    RelationStorage::LinkTable(_) => Some(Enc::Relation(targets)),
                    RelationStorage::MappedBy { .. } => Some(Enc::Inverse(targets)),
                    _ => {
                        self.problem(
                            Some(label),
                            path,
                            format!("relation `{}` has no storage strata can write", attr.name),
                        );
                        None
                    }
                }
            }
            AttributeKind::Component(cf) => {
                let cs = self.model.schema(cf.component);
                let items: Vec<(&Value, String)> = match (v, cf.repeatable) {
                    (Value::Null, _) => Vec::new(),
                    (Value::Object(_), false) => vec![(v, path.to_string())],
                    (Value::Array(items), true) => items
                        .iter()
                        .enumerate()
                        .map(|(i, x)| (x, path_index(path, i)))
                        .collect(),
                    (other, rep) => {
                        self.problem(
                            Some(label),
                            path,
                            format!(
                                "expected {} `{}`, got {}",
                                if rep {
                                    "a list of components"
                                } else {
                                    "an object (or null) for the component"
                                },
                                cs.uid,
                                json_type(other)
                            ),
                        );
                        return None;
                    }
                };
                let mut vals = Vec::new();
                for (item, p) in items {
                    let Value::Object(obj) = item else {
                        self.problem(
                            Some(label),
                            &p,
                            format!("expected a `{}` object, got {}", cs.uid, json_type(item)),
                        );
                        continue;
                    };
                    let layer = self.encode_object(cs, obj, &p, label, false, &[]);
                    vals.push(CompVal {
                        schema: cs.id,
                        layer,
                        path: p,
                    });
                }
                if let (true, Some(max)) = (cf.repeatable, cf.max)
                    && vals.len() as u64 > max
                {
                    self.problem(
                        Some(label),
                        path,
                        format!("{} items, more than the maximum {max}", vals.len()),
                    );
                }
                Some(Enc::Components(vals))
            }
            AttributeKind::DynamicZone(dz) => {
                let items = match v {
                    Value::Null => return Some(Enc::Zone(Vec::new())),
                    Value::Array(items) => items,
                    other => {
                        self.problem(
                            Some(label),
                            path,
                            format!(
                                "expected a list of components (dynamic zone), got {}",
                                json_type(other)
                            ),
                        );
                        return None;
                    }
                };
                let mut vals = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let p = path_index(path, i);
                    let Value::Object(obj) = item else {
                        self.problem(
                            Some(label),
                            &p,
                            format!("expected a component object, got {}", json_type(item)),
                        );
                        continue;
                    };
                    let allowed: Vec<&str> = dz
                        .components
                        .iter()
                        .map(|c| self.model.schema(*c).uid.as_str())
                        .collect();
                    let uid = match obj.get("__component") {
                        Some(Value::String(s)) => s.as_str(),
                        _ => {
                            self.problem(
                                Some(label),
                                &path_key(&p, "__component"),
                                format!(
                                    "each dynamic-zone item needs `__component` (one of {})",
                                    allowed.join(", ")
                                ),
                            );
                            continue;
                        }
                    };
                    let Some(cid) = dz
                        .components
                        .iter()
                        .copied()
                        .find(|c| self.model.schema(*c).uid.as_str() == uid)
                    else {
                        let msg = format!(
                            "`{uid}` is not allowed in this dynamic zone (allowed: {})",
                            allowed.join(", ")
                        );
                        self.problem(Some(label), &path_key(&p, "__component"), msg);
                        continue;
                    };
                    let cs = self.model.schema(cid);
                    let layer = self.encode_object(cs, obj, &p, label, false, &["__component"]);
                    vals.push(CompVal {
                        schema: cid,
                        layer,
                        path: p,
                    });
                }
                if let Some(max) = dz.max
                    && vals.len() as u64 > max
                {
                    self.problem(
                        Some(label),
                        path,
                        format!("{} items, more than the maximum {max}", vals.len()),
                    );
                }
                Some(Enc::Zone(vals))
            }
        }
    }

    /// The value of each attribute: the last layer that has it.
    fn merged<'l>(schema: &Schema, layers: &[&'l Layer]) -> Vec<Option<&'l Enc>> {
        (0..schema.attributes.len())
            .map(|i| {
                layers
                    .iter()
                    .rev()
                    .find_map(|l| l.values.get(i).and_then(Option::as_ref))
            })
            .collect()
    }

    /// Reports required attributes without a value (published and non-D&P rows only).
    fn check_required(
        &mut self,
        schema: &Schema,
        merged: &[Option<&Enc>],
        path: &str,
        label: &str,
    ) {
        for a in &schema.attributes {
            if !a.required {
                continue;
            }
            let value = merged.get(a.id.index()).copied().flatten();
            let missing = match value {
                None => self.defaults[schema.id.index()][a.id.index()].is_none(),
                Some(Enc::Scalar(StoredValue::Null)) => true,
                Some(Enc::Media(ids)) => ids.is_empty(),
                Some(Enc::Components(v)) | Some(Enc::Zone(v)) => v.is_empty(),
                Some(Enc::Relation(t)) | Some(Enc::Inverse(t)) => t.is_empty(),
                Some(Enc::Scalar(_)) | Some(Enc::Invalid) => false,
            };
            if missing {
                self.problem(
                    Some(label),
                    path,
                    format!("required attribute `{}` has no value", a.name),
                );
            }
        }
    }

    // ----- rows -----

    /// Writes one row of a content type or component and everything hanging off it.
    /// Returns the row id (the given one, or the new component row's).
    #[allow(clippy::too_many_arguments)]
    fn write_row(
        &mut self,
        schema: &Schema,
        id: Option<i64>,
        document_id: Option<&str>,
        merged: &[Option<&Enc>],
        times: Times,
        locale: Option<&str>,
        ctx: Ctx,
        path: &str,
        check_required: bool,
        label: &str,
        top_level: bool,
    ) -> Result<i64, ImportError> {
        if check_required {
            self.check_required(schema, merged, path, label);
        }
        // Component rows are numbered here, as the database would number them, so that
        // every row can be queued.
        let id = match id {
            Some(id) => Some(id),
            None if self.write => {
                let next = match self.component_ids.get(&schema.id) {
                    Some(next) => *next,
                    None => self.db.next_id(&schema.layout.table)?,
                };
                self.component_ids.insert(schema.id, next + 1);
                Some(next)
            }
            None => None,
        };
        let mut vals = Vec::with_capacity(schema.layout.columns.len());
        for c in &schema.layout.columns {
            let v = match c.role {
                ColumnRole::Id => match id {
                    Some(id) => StoredValue::Integer(id),
                    None => continue,
                },
                ColumnRole::DocumentId => {
                    document_id.map_or(StoredValue::Null, |d| StoredValue::Text(d.to_string()))
                }
                ColumnRole::Attribute(aid) => match merged.get(aid.index()).copied().flatten() {
                    Some(Enc::Scalar(s)) => s.clone(),
                    _ => self.defaults[schema.id.index()][aid.index()]
                        .clone()
                        .unwrap_or(StoredValue::Null),
                },
                ColumnRole::CreatedAt => StoredValue::Timestamp(times.created.unwrap_or(self.now)),
                ColumnRole::UpdatedAt => StoredValue::Timestamp(times.updated.unwrap_or(self.now)),
                ColumnRole::PublishedAt => match ctx.status {
                    Status::Draft => StoredValue::Null,
                    _ => StoredValue::Timestamp(times.published.unwrap_or(self.now)),
                },
                ColumnRole::CreatedBy | ColumnRole::UpdatedBy => StoredValue::Null,
                ColumnRole::Locale => {
                    locale.map_or(StoredValue::Null, |l| StoredValue::Text(l.to_string()))
                }
            };
            vals.push(v);
        }
        let columns: Vec<&str> = schema
            .layout
            .columns
            .iter()
            .filter(|c| id.is_some() || c.role != ColumnRole::Id)
            .map(|c| c.name.as_str())
            .collect();
        self.queue(TableKind::Rows, &schema.layout.table, &columns, vals)?;
        let row = id.unwrap_or(0);
        if let Some(up_to) = self.queued_up_to.get_mut(schema.id.index()) {
            *up_to = (*up_to).max(row);
        }
        if schema.is_content_type() {
            self.report.rows += 1;
        } else {
            self.report.components += 1;
        }
        // Components first (their own media and links with them), then the row's media
        // and relations: the order Strapi's document service writes them in.
        for components_pass in [true, false] {
            for a in &schema.attributes {
                let Some(enc) = merged.get(a.id.index()).copied().flatten() else {
                    continue;
                };
                match enc {
                    Enc::Components(vals) | Enc::Zone(vals) if components_pass => {
                        let ordered = matches!(a.kind, AttributeKind::DynamicZone(_))
                            || matches!(&a.kind, AttributeKind::Component(c) if c.repeatable);
                        self.write_components(
                            schema,
                            row,
                            a,
                            vals,
                            ordered,
                            ctx,
                            check_required,
                            label,
                        )?;
                    }
                    _ if components_pass => {}
                    Enc::Scalar(_) | Enc::Components(_) | Enc::Zone(_) | Enc::Invalid => {}
                    Enc::Media(files) => self.write_media(schema, row, a, files)?,
                    Enc::Relation(targets) => {
                        self.write_links(row, a, targets, ctx, path, label, top_level)?;
                    }
                    Enc::Inverse(targets) => {
                        if let AttributeKind::Relation(rel) = &a.kind
                            && let RelationStorage::MappedBy {
                                owner,
                                owner_attribute,
                            } = rel.storage
                        {
                            for t in targets {
                                self.deferred.push(Deferred {
                                    owner_schema: owner,
                                    owner_attr: owner_attribute,
                                    owner: t.clone(),
                                    source_row: row,
                                    ctx,
                                    label: label.to_string(),
                                    path: path_key(path, &a.name),
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(row)
    }

    fn write_media(
        &mut self,
        schema: &Schema,
        row: i64,
        attr: &Attribute,
        files: &[i64],
    ) -> Result<(), ImportError> {
        let Some(m) = self.media.clone() else {
            return Ok(());
        };
        let columns = [
            m.owner_column.as_str(),
            m.id_column.as_str(),
            m.type_column.as_str(),
            "field",
            "order",
        ];
        let file_schema = self.model.upload_file().map(|s| s.id);
        for (i, f) in files.iter().enumerate() {
            let link = [
                StoredValue::Integer(*f),
                StoredValue::Integer(row),
                StoredValue::Text(schema.uid.to_string()),
                StoredValue::Text(attr.name.clone()),
                StoredValue::Real((i + 1) as f64),
            ];
            self.link(file_schema, *f, &m.table, &columns, link)?;
            self.report.media_links += 1;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn write_components(
        &mut self,
        parent: &Schema,
        parent_row: i64,
        attr: &Attribute,
        vals: &[CompVal],
        ordered: bool,
        ctx: Ctx,
        check_required: bool,
        label: &str,
    ) -> Result<(), ImportError> {
        let Some(cmps) = parent.layout.cmps_table.clone() else {
            return Ok(());
        };
        const COLUMNS: [&str; 5] = ["entity_id", "cmp_id", "component_type", "field", "order"];
        for (i, cv) in vals.iter().enumerate() {
            let cs = self.model.schema(cv.schema);
            let merged = Self::merged(cs, &[&cv.layer]);
            let cid = self.write_row(
                cs,
                None,
                None,
                &merged,
                Times::default(),
                None,
                ctx,
                &cv.path,
                check_required,
                label,
                false,
            )?;
            self.queue(
                TableKind::Links,
                &cmps,
                &COLUMNS,
                [
                    StoredValue::Integer(parent_row),
                    StoredValue::Integer(cid),
                    StoredValue::Text(cs.uid.to_string()),
                    StoredValue::Text(attr.name.clone()),
                    if ordered {
                        StoredValue::Real((i + 1) as f64)
                    } else {
                        StoredValue::Null
                    },
                ],
            )?;
        }
        Ok(())
    }

    /// The rows of `target` a row in `ctx` links to (see `strapi-db-layout.md` §3).
    fn target_rows(&mut self, ctx: Ctx, target: &Target, label: &str, path: &str) -> Vec<i64> {
        let ts = self.model.schema(target.schema);
        let loc = if ts.localized {
            let loc = if ctx.localized {
                Some(ctx.loc)
            } else {
                self.idx.default_locale
            };
            match loc {
                Some(l) if target.entry.has_locale(l) => l,
                _ => {
                    let code = loc
                        .and_then(|l| self.idx.locale_codes.get(l).cloned())
                        .unwrap_or_else(|| "default".into());
                    self.problem(
                        Some(label),
                        path,
                        format!(
                            "`{}` document `{}` has no `{code}` version to link to",
                            ts.uid, target.key
                        ),
                    );
                    return Vec::new();
                }
            }
        } else {
            0
        };
        if ts.draft_and_publish {
            match ctx.status {
                Status::Draft => target.entry.row(loc, false).into_iter().collect(),
                Status::Published => target.entry.row(loc, true).into_iter().collect(),
                Status::Single => [target.entry.row(loc, false), target.entry.row(loc, true)]
                    .into_iter()
                    .flatten()
                    .collect(),
            }
        } else {
            target.entry.row(loc, true).into_iter().collect()
        }
    }

    fn link_state(&mut self, lt: &LinkTable) -> Result<&mut LinkState, ImportError> {
        if !self.links.contains_key(&lt.table) {
            let was_empty = !statements::has_rows(self.db, &lt.table)?;
            self.links.insert(
                lt.table.clone(),
                LinkState {
                    was_empty,
                    inverse_max: FastMap::default(),
                },
            );
        }
        self.links
            .get_mut(&lt.table)
            .ok_or_else(|| ImportError::Store(crate::store::StoreError::Other("link state".into())))
    }

    /// The next inverse-order value of `target_row` (max + 1), or `keep` when given.
    fn inverse_order(
        &mut self,
        lt: &LinkTable,
        target_row: i64,
        keep: Option<f64>,
    ) -> Result<Option<f64>, ImportError> {
        let Some(col) = lt.inverse_order.clone() else {
            return Ok(None);
        };
        let db = self.db;
        let write = self.write;
        let state = self.link_state(lt)?;
        let known = match state.inverse_max.get(&target_row) {
            Some(m) => Some(*m),
            None if state.was_empty || !write => Some(0.0),
            None => None,
        };
        let current = match known {
            Some(m) => m,
            None => {
                // Rows of this table may be queued: the database must hold them first.
                self.batches.flush(db)?;
                let stmt = statements::max_order(&lt.table, &col, &lt.target_column, target_row);
                statements::first_cell(db, &stmt, statements::order_value)?.unwrap_or(0.0)
            }
        };
        let value = keep.unwrap_or(current + 1.0);
        self.link_state(lt)?
            .inverse_max
            .insert(target_row, current.max(value));
        Ok(Some(value))
    }

    /// Queues a relation link from `owner_row` to `target_row` (of `target`, when it may
    /// come further down the file).
    #[allow(clippy::too_many_arguments)]
    fn insert_link(
        &mut self,
        lt: &LinkTable,
        target: Option<SchemaId>,
        owner_row: i64,
        target_row: i64,
        owner_ord: Option<f64>,
        inverse_ord: Option<f64>,
    ) -> Result<(), ImportError> {
        let mut vals = vec![
            StoredValue::Integer(owner_row),
            StoredValue::Integer(target_row),
        ];
        if lt.owner_order.is_some() {
            vals.push(owner_ord.map_or(StoredValue::Null, StoredValue::Real));
        }
        if lt.inverse_order.is_some() {
            vals.push(inverse_ord.map_or(StoredValue::Null, StoredValue::Real));
        }
        let mut columns = vec![lt.owner_column.as_str(), lt.target_column.as_str()];
        columns.extend(lt.owner_order.as_deref());
        columns.extend(lt.inverse_order.as_deref());
        self.link(target, target_row, &lt.table, &columns, vals)?;
        self.report.links += 1;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn write_links(
        &mut self,
        row: i64,
        attr: &Attribute,
        targets: &[Target],
        ctx: Ctx,
        path: &str,
        label: &str,
        top_level: bool,
    ) -> Result<(), ImportError> {
        let AttributeKind::Relation(rel) = &attr.kind else {
            return Ok(());
        };
        let RelationStorage::LinkTable(lt) = &rel.storage else {
            return Ok(());
        };
        let lt = lt.clone();
        let mut position = 0u32;
        let mut seen = Vec::new();
        for t in targets {
            let at = path_key(path, &attr.name);
            let rows = self.target_rows(ctx, t, label, &at);
            if rows.is_empty() {
                continue;
            }
            position += 1;
            for tr in rows {
                if seen.contains(&tr) {
                    continue;
                }
                seen.push(tr);
                let memo = (attr.id, t.schema, t.entry.first_row);
                let keep = match ctx.status {
                    Status::Published if top_level => self.draft_inverse.get(&memo).copied(),
                    _ => None,
                };
                let inv = self.inverse_order(&lt, tr, keep)?;
                if let (Status::Draft, true, Some(v)) = (ctx.status, top_level, inv) {
                    self.draft_inverse.insert(memo, v);
                }
                let owner_ord = lt.owner_order.as_ref().map(|_| f64::from(position));
                self.insert_link(&lt, Some(t.schema), row, tr, owner_ord, inv)?;
            }
        }
        Ok(())
    }

    /// Links given on the `mappedBy` side, written into the owner's link table once every
    /// owner row exists.
    fn flush_deferred(&mut self) -> Result<(), ImportError> {
        let deferred = std::mem::take(&mut self.deferred);
        for d in deferred {
            let owner_schema = self.model.schema(d.owner_schema);
            let Some(attr) = owner_schema.attributes.get(d.owner_attr.index()) else {
                continue;
            };
            let AttributeKind::Relation(rel) = &attr.kind else {
                continue;
            };
            let RelationStorage::LinkTable(lt) = &rel.storage else {
                continue;
            };
            let lt = lt.clone();
            let to_one = matches!(rel.kind, RelationKind::ManyToOne | RelationKind::OneToOne);
            let attr_name = attr.name.clone();
            let owner_rows = self.target_rows(d.ctx, &d.owner, &d.label, &d.path);
            if !self.write {
                continue;
            }
            for o in owner_rows {
                // The links queued so far (of earlier deferred links too) must be read.
                self.batches.flush(self.db)?;
                let existing: Vec<i64> = query_map(
                    self.db,
                    &statements::all_where(&lt.table, &lt.target_column, &lt.owner_column, o),
                    |r| r.int(0),
                )?;
                if existing.contains(&d.source_row) {
                    continue;
                }
                if to_one && !existing.is_empty() {
                    self.problem(
                        Some(&d.label),
                        &d.path,
                        format!(
                            "`{}` document `{}` already has its `{attr_name}` set to another document; give the relation on one side only",
                            owner_schema.uid, d.owner.key
                        ),
                    );
                    return Ok(());
                }
                let owner_ord = match &lt.owner_order {
                    None => None,
                    Some(c) => Some(
                        statements::first_cell(
                            self.db,
                            &statements::max_order(&lt.table, c, &lt.owner_column, o),
                            statements::order_value,
                        )?
                        .unwrap_or(0.0)
                            + 1.0,
                    ),
                };
                let inv = self.inverse_order(&lt, d.source_row, None)?;
                self.insert_link(&lt, None, o, d.source_row, owner_ord, inv)?;
            }
        }
        Ok(())
    }

    // ----- items -----

    fn document_id(
        &mut self,
        schema: &Schema,
        obj: &Map<String, Value>,
        path: &str,
        label: &str,
    ) -> Result<String, ImportError> {
        let doc_id = match obj.get("documentId").map(check_document_id) {
            Some(Ok(d)) => d.to_string(),
            Some(Err(_)) | None => self.ids.next_id()?,
        };
        if obj.contains_key("documentId") && self.idx.table_had_rows[schema.id.index()] {
            let stmt =
                statements::first_where(&schema.layout.table, "id", "document_id", doc_id.as_str());
            let exists = statements::first_cell(self.db, &stmt, |_| Ok(Some(())))?.is_some();
            if exists {
                self.problem(
                    Some(label),
                    &path_key(path, "documentId"),
                    format!(
                        "the database already has a `{}` document `{doc_id}`",
                        schema.uid
                    ),
                );
            }
        }
        Ok(doc_id)
    }

    fn file(&mut self, i: usize, v: &Value) -> Result<(), ImportError> {
        let p = path_index("$.files", i);
        let (Some(schema), Value::Object(obj)) = (self.model.upload_file(), v) else {
            return Ok(());
        };
        let Ok(key) = item_key(obj, &p) else {
            return Ok(());
        };
        let label = format!("file `{key}`");
        let id = self.idx.first_file_id + i as i64;
        let doc_id = self.document_id(schema, obj, &p, &label)?;
        let mut layer = self.encode_object(schema, obj, &p, &label, true, &["key", "documentId"]);
        for (name, default) in [("provider", "local"), ("folderPath", "/")] {
            if let Some(a) = schema.attribute(name)
                && layer.values[a.id.index()].is_none()
            {
                layer.values[a.id.index()] = Some(Enc::Scalar(StoredValue::Text(default.into())));
            }
        }
        self.write_unversioned(schema, id, &doc_id, &layer, &p, &label)?;
        self.report.files += 1;
        Ok(())
    }

    /// Writes the one row of a file or user: no locale, no draft.
    fn write_unversioned(
        &mut self,
        schema: &Schema,
        id: i64,
        doc_id: &str,
        layer: &Layer,
        path: &str,
        label: &str,
    ) -> Result<(), ImportError> {
        let merged = Self::merged(schema, &[layer]);
        let ctx = Ctx {
            localized: false,
            loc: 0,
            status: Status::Single,
        };
        self.write_row(
            schema,
            Some(id),
            Some(doc_id),
            &merged,
            layer.times,
            None,
            ctx,
            path,
            true,
            label,
            true,
        )?;
        Ok(())
    }

    fn role_id(&mut self, role: &str) -> Result<Option<i64>, ImportError> {
        if let Some(id) = self.roles.get(role) {
            return Ok(*id);
        }
        let Some(rs) = self.model.by_uid("plugin::users-permissions.role") else {
            return Ok(None);
        };
        let stmt = statements::first_where(&rs.layout.table, "id", "type", role);
        let id = statements::first_cell(self.db, &stmt, |r| Ok(Some(r.int(0)?)))?;
        self.roles.insert(role.to_string(), id);
        Ok(id)
    }

    fn user(&mut self, i: usize, v: &Value) -> Result<(), ImportError> {
        let p = path_index("$.users", i);
        let (Some(schema), Value::Object(obj)) =
            (self.model.by_uid("plugin::users-permissions.user"), v)
        else {
            return Ok(());
        };
        let Ok(key) = item_key(obj, &p) else {
            return Ok(());
        };
        let label = format!("user `{key}`");
        let id = self.idx.first_ids[schema.id.index()] + i as i64;
        let doc_id = self.document_id(schema, obj, &p, &label)?;
        let mut layer = self.encode_object(
            schema,
            obj,
            &p,
            &label,
            true,
            &["key", "documentId", "role"],
        );
        if let Some(a) = schema.attribute("provider")
            && layer.values[a.id.index()].is_none()
        {
            layer.values[a.id.index()] = Some(Enc::Scalar(StoredValue::Text("local".into())));
        }
        let role = match obj.get("role") {
            None | Some(Value::Null) => Some("authenticated".to_string()),
            Some(Value::String(r)) => Some(r.clone()),
            Some(other) => {
                self.problem(
                    Some(&label),
                    &path_key(&p, "role"),
                    format!(
                        "expected a role type such as `authenticated`, got {}",
                        json_type(other)
                    ),
                );
                None
            }
        };
        self.write_unversioned(schema, id, &doc_id, &layer, &p, &label)?;
        if let Some(role) = role {
            match self.role_id(&role)? {
                None => self.problem(
                    Some(&label),
                    &path_key(&p, "role"),
                    format!("no users-permissions role of type `{role}` in the database"),
                ),
                Some(role_id) => {
                    let lt = match schema.attribute("role").map(|a| &a.kind) {
                        Some(AttributeKind::Relation(rel)) => match &rel.storage {
                            RelationStorage::LinkTable(lt) => Some(lt.clone()),
                            _ => None,
                        },
                        _ => None,
                    };
                    if let Some(lt) = lt {
                        let inv = self.inverse_order(&lt, role_id, None)?;
                        self.insert_link(&lt, None, id, role_id, None, inv)?;
                    }
                }
            }
        }
        self.report.users += 1;
        Ok(())
    }

    fn document(&mut self, i: usize, v: &Value) -> Result<(), ImportError> {
        if self.idx.broken.contains(&i) {
            return Ok(());
        }
        let p = path_index("$.documents", i);
        let Value::Object(doc) = v else {
            return Ok(());
        };
        let model = self.model;
        let (Ok(schema), Ok(key)) = (doc_schema(model, doc, &p), item_key(doc, &p)) else {
            return Ok(());
        };
        let label = format!("{} `{key}`", schema.uid);
        let Some(entry) = self.idx.docs[schema.id.index()].get(key).copied() else {
            return Ok(());
        };
        let mut shape_problems = Vec::new();
        let mut versions = shape(schema, doc, &p, &mut shape_problems);
        let doc_id = self.document_id(schema, doc, &p, &label)?;
        let mut top = Times::default();
        for (k, slot) in [
            ("createdAt", &mut top.created),
            ("updatedAt", &mut top.updated),
            ("publishedAt", &mut top.published),
        ] {
            if let Some(Ok(ms)) = doc.get(k).map(parse_timestamp) {
                *slot = Some(ms);
            }
        }
        let empty = Map::new();
        let data_path = path_key(&p, "data");
        let data_obj = doc.get("data").and_then(Value::as_object).unwrap_or(&empty);
        let data = self.encode_object(schema, data_obj, &data_path, &label, true, &[]);
        let loc_of = |code: Option<&str>, idx: &Index| {
            code.and_then(|c| idx.locale_index.get(c).copied())
                .unwrap_or(0)
        };
        versions.sort_by_key(|lv| loc_of(lv.locale, &self.idx));
        for lv in &versions {
            let loc = loc_of(lv.locale, &self.idx);
            let ctx_for = |status| Ctx {
                localized: schema.localized,
                loc,
                status,
            };
            let published = lv
                .published
                .as_ref()
                .map(|part| self.encode_object(schema, part.data, &part.path, &label, true, &[]));
            let draft = lv
                .draft
                .as_ref()
                .map(|part| self.encode_object(schema, part.data, &part.path, &label, true, &[]));
            self.draft_inverse.clear();
            if schema.draft_and_publish {
                let mut layers: Vec<&Layer> = vec![&data];
                layers.extend(published.as_ref());
                layers.extend(draft.as_ref());
                let times = layers.iter().fold(top, |acc, l| acc.over(l.times));
                let merged = Self::merged(schema, &layers);
                if let Some(row) = entry.row(loc, false) {
                    self.write_row(
                        schema,
                        Some(row),
                        Some(&doc_id),
                        &merged,
                        times,
                        lv.locale,
                        ctx_for(Status::Draft),
                        &lv.locale_path,
                        false,
                        &label,
                        true,
                    )?;
                }
                if let (Some(pub_layer), Some(part), Some(row)) = (
                    published.as_ref(),
                    lv.published.as_ref(),
                    entry.row(loc, true),
                ) {
                    let layers = [&data, pub_layer];
                    let times = top.over(data.times).over(pub_layer.times);
                    let merged = Self::merged(schema, &layers);
                    self.write_row(
                        schema,
                        Some(row),
                        Some(&doc_id),
                        &merged,
                        times,
                        lv.locale,
                        ctx_for(Status::Published),
                        &part.path,
                        true,
                        &label,
                        true,
                    )?;
                }
            } else if let Some(row) = entry.row(loc, true) {
                let mut layers: Vec<&Layer> = vec![&data];
                layers.extend(published.as_ref());
                let times = layers.iter().fold(top, |acc, l| acc.over(l.times));
                let merged = Self::merged(schema, &layers);
                let req_path = lv
                    .published
                    .as_ref()
                    .map_or(p.clone(), |part| part.path.clone());
                self.write_row(
                    schema,
                    Some(row),
                    Some(&doc_id),
                    &merged,
                    times,
                    lv.locale,
                    ctx_for(Status::Single),
                    &req_path,
                    true,
                    &label,
                    true,
                )?;
            }
        }
        self.report.documents += 1;
        self.per_type[schema.id.index()] += 1;
        Ok(())
    }
}
