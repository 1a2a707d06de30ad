//! Executing a validated [`Query`]: the page of root rows, the total, and the populate
//! tree, one batched statement per populated edge per level (`WHERE parent IN (…)`), so
//! the number of statements never grows with the page size. Rows become JSON in Strapi
//! v5's flat shape, key order included.

use std::collections::HashMap;

use rusqlite::Connection;
use sea_query::{Alias, ExprTrait, Func, Order, Query as Sql, SelectStatement};
use serde_json::{Map, Value as Json};

use super::StoreError;
use super::decode::Decode;
use super::sql::{Builder, Dialect, col, column_role};
use super::sqlite::query_each;
use crate::query::{
    Conjunction, FieldRef, PageMode, Pagination, Populate, PopulateEntry, PopulateKey,
    PopulateKind, PopulateOptions, Query, Status,
};
use crate::schema::{
    AttributeKind, ColumnRole, Model, RelationKind, RelationStorage, Schema, SchemaId,
};

/// One page of a list request.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The entries, in order, as JSON objects.
    pub entries: Vec<Json>,
    /// The number of matching entries (when counting was asked for).
    pub total: Option<u64>,
}

impl Page {
    /// The response body of a list request: `{data, meta: {pagination}}`.
    pub fn list_body(self, p: &Pagination) -> Json {
        let mut pagination = Map::new();
        match p.mode {
            PageMode::Page => {
                pagination.insert("page".into(), p.page().into());
                pagination.insert("pageSize".into(), p.limit.into());
                if let Some(total) = self.total {
                    let count = total.div_ceil(Ord::max(p.limit, 1));
                    pagination.insert("pageCount".into(), count.into());
                    pagination.insert("total".into(), total.into());
                }
            }
            PageMode::Offset => {
                pagination.insert("start".into(), p.start.into());
                pagination.insert("limit".into(), p.limit.into());
                if let Some(total) = self.total {
                    pagination.insert("total".into(), total.into());
                }
            }
        }
        let mut meta = Map::new();
        meta.insert("pagination".into(), Json::Object(pagination));
        let mut body = Map::new();
        body.insert("data".into(), Json::Array(self.entries));
        body.insert("meta".into(), Json::Object(meta));
        Json::Object(body)
    }
}

/// A loaded row: its id (to attach populated children), its document id and locale (for
/// `localizations`), and its JSON object.
#[derive(Debug, Clone)]
struct Row {
    id: i64,
    document_id: Option<String>,
    object: Map<String, Json>,
}

/// Runs queries for one request on one connection.
pub struct Reader<'a> {
    conn: &'a Connection,
    model: &'a Model,
    default_locale: &'a str,
}

impl<'a> Reader<'a> {
    /// A reader over `conn`.
    pub fn new(conn: &'a Connection, model: &'a Model, default_locale: &'a str) -> Self {
        Reader {
            conn,
            model,
            default_locale,
        }
    }

    fn builder(&self) -> Builder<'a> {
        Builder::new(self.model, Dialect::Sqlite, self.default_locale)
    }

    /// A list request: the page of entries and the total.
    pub fn find(&self, query: &Query) -> Result<Page, StoreError> {
        let schema = self.model.schema(query.schema);
        let total = if query.pagination.with_count {
            Some(self.count(query)?)
        } else {
            None
        };
        let mut b = self.builder();
        let alias = b.alias();
        let mut stmt = Sql::select();
        self.select_columns(&mut stmt, schema, &alias);
        stmt.from_as(Alias::new(&schema.layout.table), Alias::new(&alias));
        stmt.cond_where(b.root_where(query, &alias));
        for (e, o) in b.order_by(schema, &query.sort, &alias, true) {
            stmt.order_by_expr(e, o);
        }
        stmt.limit(query.pagination.limit)
            .offset(query.pagination.start);
        let mut rows = self.load_rows(&stmt, schema, query.fields.as_deref(), None)?;
        self.populate(schema, &mut rows, &query.populate, query.status)?;
        Ok(Page {
            entries: rows.into_iter().map(|r| Json::Object(r.object)).collect(),
            total,
        })
    }

    /// The first entry matching the query (find-one and single types), if any.
    pub fn find_first(&self, query: &Query) -> Result<Option<Json>, StoreError> {
        let mut q = query.clone();
        q.pagination = Pagination {
            mode: PageMode::Offset,
            start: 0,
            limit: 1,
            with_count: false,
        };
        Ok(self.find(&q)?.entries.into_iter().next())
    }

    /// The number of entries matching the query's filters, locale and status.
    pub fn count(&self, query: &Query) -> Result<u64, StoreError> {
        let schema = self.model.schema(query.schema);
        let mut b = self.builder();
        let alias = b.alias();
        let mut stmt = Sql::select();
        stmt.expr(Func::count(col(&alias, "id")))
            .from_as(Alias::new(&schema.layout.table), Alias::new(&alias))
            .cond_where(b.root_where(query, &alias));
        let mut n = 0u64;
        query_each(self.conn, &stmt, |r| {
            n = r.get::<_, i64>(0).map(|v| Ord::max(v, 0) as u64)?;
            Ok(())
        })?;
        Ok(n)
    }

    /// Selects every column of the schema's table, in layout order.
    fn select_columns(&self, stmt: &mut SelectStatement, schema: &Schema, alias: &str) {
        for c in &schema.layout.columns {
            stmt.expr(col(alias, &c.name));
        }
    }

    /// Runs `stmt` (which selects the schema's columns, then optionally an owner id) and
    /// turns each row into a [`Row`].
    fn load_rows(
        &self,
        stmt: &SelectStatement,
        schema: &Schema,
        fields: Option<&[FieldRef]>,
        owners: Option<&mut Vec<i64>>,
    ) -> Result<Vec<Row>, StoreError> {
        let plan = ColumnPlan::new(schema, fields);
        let mut out = Vec::new();
        let ncols = schema.layout.columns.len();
        let mut owner_ids = Vec::new();
        let want_owner = owners.is_some();
        query_each(self.conn, stmt, |r| {
            out.push(plan.row(r)?);
            if want_owner {
                owner_ids.push(r.get::<_, i64>(ncols)?);
            }
            Ok(())
        })?;
        if let Some(o) = owners {
            *o = owner_ids;
        }
        Ok(out)
    }

    // -------------------------------------------------------------- populate

    fn populate(
        &self,
        schema: &Schema,
        rows: &mut [Row],
        populate: &Populate,
        status: Status,
    ) -> Result<(), StoreError> {
        if rows.is_empty() || populate.is_empty() {
            return Ok(());
        }
        let mut ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        // Zones last, as Strapi 5.54 orders the keys.
        let (zones, others): (Vec<&PopulateEntry>, Vec<&PopulateEntry>) = populate
            .0
            .iter()
            .partition(|e| matches!(e.kind, PopulateKind::Zone(_)));
        for entry in others.into_iter().chain(zones) {
            let (name, values) = self.populate_entry(schema, rows, &ids, entry, status)?;
            for row in rows.iter_mut() {
                let v = values.get(&row.id).cloned().unwrap_or(Json::Null);
                row.object.insert(name.clone(), v);
            }
        }
        Ok(())
    }

    /// Loads one populated attribute for every parent id; returns the JSON key and the
    /// value per parent id.
    fn populate_entry(
        &self,
        schema: &Schema,
        parents: &[Row],
        ids: &[i64],
        entry: &PopulateEntry,
        status: Status,
    ) -> Result<(String, HashMap<i64, Json>), StoreError> {
        let attr = match entry.key {
            PopulateKey::Attr(a) => schema.attributes.get(a.index()),
            PopulateKey::Localizations => None,
        };
        let name = attr.map_or_else(|| "localizations".to_string(), |a| a.name.clone());
        let mut out: HashMap<i64, Json> = HashMap::new();
        match (&entry.kind, attr.map(|a| &a.kind)) {
            (PopulateKind::Zone(types), Some(AttributeKind::DynamicZone(_))) => {
                let Some(a) = attr else {
                    return Ok((name, out));
                };
                out = self.zone(schema, &a.name, ids, types, status)?;
            }
            (PopulateKind::Rows { target, options }, None) => {
                // localizations
                out = self.localizations(parents, *target, options, status)?;
            }
            (PopulateKind::Rows { target, options }, Some(kind)) => {
                let many = match kind {
                    AttributeKind::Relation(r) => {
                        r.kind.is_to_many() || is_inverse_to_many(r.kind, &r.storage)
                    }
                    AttributeKind::Component(c) => c.repeatable,
                    AttributeKind::Media(m) => m.multiple,
                    _ => false,
                };
                let Some(a) = attr else {
                    return Ok((name, out));
                };
                let (children, owners) =
                    self.related_rows(schema, a, ids, *target, options, status)?;
                let mut grouped: HashMap<i64, Vec<Json>> = HashMap::new();
                for (child, owner) in children.into_iter().zip(owners) {
                    grouped
                        .entry(owner)
                        .or_default()
                        .push(Json::Object(child.object));
                }
                for id in ids {
                    let list = grouped.remove(id).unwrap_or_default();
                    let v = if many {
                        Json::Array(list)
                    } else {
                        list.into_iter().next().unwrap_or(Json::Null)
                    };
                    out.insert(*id, v);
                }
            }
            (PopulateKind::Count { target, filters }, Some(_)) => {
                let Some(a) = attr else {
                    return Ok((name, out));
                };
                let counts =
                    self.related_counts(schema, a, ids, *target, filters.as_ref(), status)?;
                for id in ids {
                    let n = counts.get(id).copied().unwrap_or(0);
                    let mut m = Map::new();
                    m.insert("count".into(), n.into());
                    out.insert(*id, Json::Object(m));
                }
            }
            _ => {}
        }
        Ok((name, out))
    }

    /// The select of rows related to `ids` through `attr`: the target's columns, then the
    /// owner id. Returns the statement and the alias of the target rows.
    fn edge_select(
        &self,
        b: &mut Builder<'a>,
        schema: &Schema,
        attr: &crate::schema::Attribute,
        ids: &[i64],
        target: &Schema,
    ) -> Option<(SelectStatement, String, String, Option<String>)> {
        let t = b.alias();
        let j = b.alias();
        let mut s = Sql::select();
        self.select_columns(&mut s, target, &t);
        s.from_as(Alias::new(&target.layout.table), Alias::new(&t));
        let id_list = ids.iter().copied();
        let (owner_col, order_col): (String, Option<String>) = match &attr.kind {
            AttributeKind::Relation(rel) => {
                let (lt, owner_side) = b.link_table(&rel.storage)?;
                let (parent_col, target_col, order) = if owner_side {
                    (
                        lt.owner_column.clone(),
                        lt.target_column.clone(),
                        lt.owner_order.clone(),
                    )
                } else {
                    (
                        lt.target_column.clone(),
                        lt.owner_column.clone(),
                        lt.inverse_order.clone(),
                    )
                };
                s.join_as(
                    sea_query::JoinType::InnerJoin,
                    Alias::new(&lt.table),
                    Alias::new(&j),
                    col(&j, &target_col).equals((Alias::new(&t), Alias::new("id"))),
                );
                s.and_where(col(&j, &parent_col).is_in(id_list));
                (parent_col, order)
            }
            AttributeKind::Component(_) => {
                let cmps = schema.layout.cmps_table.clone()?;
                s.join_as(
                    sea_query::JoinType::InnerJoin,
                    Alias::new(&cmps),
                    Alias::new(&j),
                    col(&j, "cmp_id").equals((Alias::new(&t), Alias::new("id"))),
                );
                s.and_where(col(&j, "entity_id").is_in(id_list))
                    .and_where(col(&j, "field").eq(attr.name.clone()));
                ("entity_id".to_string(), Some("order".to_string()))
            }
            AttributeKind::Media(_) => {
                let mph = self.model.media_table()?;
                s.join_as(
                    sea_query::JoinType::InnerJoin,
                    Alias::new(&mph.table),
                    Alias::new(&j),
                    col(&j, &mph.owner_column).equals((Alias::new(&t), Alias::new("id"))),
                );
                s.and_where(col(&j, &mph.id_column).is_in(id_list))
                    .and_where(col(&j, &mph.type_column).eq(schema.uid.to_string()))
                    .and_where(col(&j, "field").eq(attr.name.clone()));
                (mph.id_column.clone(), Some("order".to_string()))
            }
            _ => return None,
        };
        s.expr(col(&j, &owner_col));
        Some((s, t, j, order_col))
    }

    fn related_rows(
        &self,
        schema: &Schema,
        attr: &crate::schema::Attribute,
        ids: &[i64],
        target_id: SchemaId,
        options: &PopulateOptions,
        status: Status,
    ) -> Result<(Vec<Row>, Vec<i64>), StoreError> {
        let target = self.model.schema(target_id);
        let mut b = self.builder();
        let Some((mut s, t, j, order_col)) = self.edge_select(&mut b, schema, attr, ids, target)
        else {
            return Ok((Vec::new(), Vec::new()));
        };
        self.edge_terms(
            &mut b,
            &mut s,
            attr,
            target,
            &t,
            options.filters.as_ref(),
            status,
        );
        if !options.sort.is_empty() {
            for (e, o) in b.order_by(target, &options.sort, &t, true) {
                s.order_by_expr(e, o);
            }
        } else {
            if let Some(oc) = &order_col {
                s.order_by_expr(col(&j, oc), Order::Asc);
            }
            s.order_by_expr(col(&t, "id"), Order::Asc);
        }
        let mut owners = Vec::new();
        let mut rows = self.load_rows(&s, target, options.fields.as_deref(), Some(&mut owners))?;
        self.populate(target, &mut rows, &options.populate, status)?;
        Ok((rows, owners))
    }

    /// Status of D&P relation targets and nested filters, on an edge select.
    #[allow(clippy::too_many_arguments)]
    fn edge_terms(
        &self,
        b: &mut Builder<'a>,
        s: &mut SelectStatement,
        attr: &crate::schema::Attribute,
        target: &Schema,
        t: &str,
        filters: Option<&Conjunction>,
        status: Status,
    ) {
        if matches!(attr.kind, AttributeKind::Relation(_))
            && let Some(term) = b.status_term(target, status, t)
        {
            s.and_where(term);
        }
        if let Some(f) = filters {
            let c = b.conjunction(target, f, t);
            s.cond_where(c);
        }
    }

    fn related_counts(
        &self,
        schema: &Schema,
        attr: &crate::schema::Attribute,
        ids: &[i64],
        target_id: SchemaId,
        filters: Option<&Conjunction>,
        status: Status,
    ) -> Result<HashMap<i64, u64>, StoreError> {
        let target = self.model.schema(target_id);
        let mut b = self.builder();
        let Some((s, t, _j, _)) = self.edge_select(&mut b, schema, attr, ids, target) else {
            return Ok(HashMap::new());
        };
        // Wrap: count rows of the edge select per owner.
        let mut inner = s;
        self.edge_terms(&mut b, &mut inner, attr, target, &t, filters, status);
        let ncols = target.layout.columns.len();
        let mut counts: HashMap<i64, u64> = HashMap::new();
        query_each(self.conn, &inner, |r| {
            let owner: i64 = r.get(ncols)?;
            *counts.entry(owner).or_default() += 1;
            Ok(())
        })?;
        Ok(counts)
    }

    fn localizations(
        &self,
        parents: &[Row],
        target_id: SchemaId,
        options: &PopulateOptions,
        status: Status,
    ) -> Result<HashMap<i64, Json>, StoreError> {
        let target = self.model.schema(target_id);
        let mut b = self.builder();
        let t = b.alias();
        let mut docs: Vec<String> = parents
            .iter()
            .filter_map(|p| p.document_id.clone())
            .collect();
        docs.sort();
        docs.dedup();
        let ids: Vec<i64> = parents.iter().map(|p| p.id).collect();
        let mut s = Sql::select();
        self.select_columns(&mut s, target, &t);
        s.from_as(Alias::new(&target.layout.table), Alias::new(&t))
            .and_where(col(&t, "document_id").is_in(docs))
            .and_where(col(&t, "id").is_not_in(ids));
        if let Some(term) = b.status_term(target, status, &t) {
            s.and_where(term);
        }
        if let Some(f) = &options.filters {
            let c = b.conjunction(target, f, &t);
            s.cond_where(c);
        }
        if options.sort.is_empty() {
            s.order_by_expr(col(&t, "locale"), Order::Asc)
                .order_by_expr(col(&t, "id"), Order::Asc);
        } else {
            for (e, o) in b.order_by(target, &options.sort, &t, true) {
                s.order_by_expr(e, o);
            }
        }
        let mut rows = self.load_rows(&s, target, options.fields.as_deref(), None)?;
        self.populate(target, &mut rows, &options.populate, status)?;
        let mut by_doc: HashMap<String, Vec<Json>> = HashMap::new();
        for row in rows {
            if let Some(d) = row.document_id {
                by_doc.entry(d).or_default().push(Json::Object(row.object));
            }
        }
        let mut out = HashMap::new();
        for p in parents {
            let list = p
                .document_id
                .as_ref()
                .and_then(|d| by_doc.get(d))
                .cloned()
                .unwrap_or_default();
            out.insert(p.id, Json::Array(list));
        }
        Ok(out)
    }

    /// A dynamic zone: the join rows in order, then one select per component type present.
    fn zone(
        &self,
        schema: &Schema,
        field: &str,
        ids: &[i64],
        types: &[(SchemaId, PopulateOptions)],
        status: Status,
    ) -> Result<HashMap<i64, Json>, StoreError> {
        let mut out: HashMap<i64, Json> = ids
            .iter()
            .map(|id| (*id, Json::Array(Vec::new())))
            .collect();
        let Some(cmps) = &schema.layout.cmps_table else {
            return Ok(out);
        };
        let mut b = self.builder();
        let j = b.alias();
        let mut s = Sql::select();
        s.expr(col(&j, "entity_id"))
            .expr(col(&j, "cmp_id"))
            .expr(col(&j, "component_type"))
            .from_as(Alias::new(cmps), Alias::new(&j))
            .and_where(col(&j, "entity_id").is_in(ids.iter().copied()))
            .and_where(col(&j, "field").eq(field.to_string()))
            .order_by_expr(col(&j, "entity_id"), Order::Asc)
            .order_by_expr(col(&j, "order"), Order::Asc)
            .order_by_expr(col(&j, "id"), Order::Asc);
        let mut items: Vec<(i64, i64, String)> = Vec::new();
        query_each(self.conn, &s, |r| {
            items.push((
                r.get(0)?,
                r.get(1)?,
                r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            ));
            Ok(())
        })?;
        // Load each listed component type's rows.
        let mut loaded: HashMap<(SchemaId, i64), Json> = HashMap::new();
        for (cid, options) in types {
            let cs = self.model.schema(*cid);
            let wanted: Vec<i64> = items
                .iter()
                .filter(|(_, _, ty)| ty == cs.uid.as_str())
                .map(|(_, c, _)| *c)
                .collect();
            if wanted.is_empty() {
                continue;
            }
            let mut b = self.builder();
            let t = b.alias();
            let mut s = Sql::select();
            self.select_columns(&mut s, cs, &t);
            s.from_as(Alias::new(&cs.layout.table), Alias::new(&t))
                .and_where(col(&t, "id").is_in(wanted));
            if let Some(f) = &options.filters {
                let c = b.conjunction(cs, f, &t);
                s.cond_where(c);
            }
            let mut rows = self.load_rows(&s, cs, options.fields.as_deref(), None)?;
            self.populate(cs, &mut rows, &options.populate, status)?;
            for mut r in rows {
                r.object
                    .insert("__component".into(), Json::String(cs.uid.to_string()));
                loaded.insert((*cid, r.id), Json::Object(r.object));
            }
        }
        let by_uid: HashMap<&str, SchemaId> = types
            .iter()
            .map(|(c, _)| (self.model.schema(*c).uid.as_str(), *c))
            .collect();
        for (entity, cmp, ty) in &items {
            let Some(cid) = by_uid.get(ty.as_str()) else {
                continue;
            };
            if let (Some(v), Some(Json::Array(list))) =
                (loaded.get(&(*cid, *cmp)), out.get_mut(entity))
            {
                list.push(v.clone());
            }
        }
        Ok(out)
    }
}

fn is_inverse_to_many(kind: RelationKind, storage: &RelationStorage) -> bool {
    matches!(storage, RelationStorage::MappedBy { .. }) && kind.is_to_many()
}

/// Which columns of a schema become which JSON keys, in Strapi's order.
struct ColumnPlan {
    /// (column index, JSON key, decoding) for each output key.
    keys: Vec<(usize, String, Decode)>,
    id_index: usize,
    document_index: Option<usize>,
}

impl ColumnPlan {
    fn new(schema: &Schema, fields: Option<&[FieldRef]>) -> Self {
        let cols = &schema.layout.columns;
        let index_of = |role: ColumnRole| cols.iter().position(|c| c.role == role);
        let key_of = |role: ColumnRole| -> Option<(String, Decode)> {
            Some(match role {
                ColumnRole::Id => ("id".into(), Decode::Number),
                ColumnRole::DocumentId => ("documentId".into(), Decode::Text),
                ColumnRole::CreatedAt => ("createdAt".into(), Decode::DateTime),
                ColumnRole::UpdatedAt => ("updatedAt".into(), Decode::DateTime),
                ColumnRole::PublishedAt => ("publishedAt".into(), Decode::DateTime),
                ColumnRole::Locale => {
                    if !schema.localized {
                        return None;
                    }
                    ("locale".into(), Decode::Text)
                }
                ColumnRole::Attribute(id) => {
                    let a = schema.attributes.get(id.index())?;
                    if a.private {
                        return None;
                    }
                    (a.name.clone(), Decode::for_scalar(a.kind.scalar()?))
                }
                ColumnRole::CreatedBy | ColumnRole::UpdatedBy => return None,
            })
        };
        let mut keys = Vec::new();
        match fields {
            None => {
                for (i, c) in cols.iter().enumerate() {
                    if let Some((k, d)) = key_of(c.role) {
                        keys.push((i, k, d));
                    }
                }
            }
            Some(list) => {
                for role in [ColumnRole::Id, ColumnRole::DocumentId] {
                    if let (Some(i), Some((k, d))) = (index_of(role), key_of(role)) {
                        keys.push((i, k, d));
                    }
                }
                for f in list {
                    let role = column_role(*f);
                    if let (Some(i), Some((k, d))) = (index_of(role), key_of(role))
                        && !keys.iter().any(|(_, existing, _)| *existing == k)
                    {
                        keys.push((i, k, d));
                    }
                }
            }
        }
        ColumnPlan {
            keys,
            id_index: index_of(ColumnRole::Id).unwrap_or(0),
            document_index: index_of(ColumnRole::DocumentId),
        }
    }

    fn row(&self, r: &rusqlite::Row<'_>) -> Result<Row, StoreError> {
        let id: i64 = r.get(self.id_index)?;
        let document_id = match self.document_index {
            Some(i) => r.get::<_, Option<String>>(i)?,
            None => None,
        };
        let mut object = Map::with_capacity(self.keys.len() + 4);
        for (i, k, d) in &self.keys {
            object.insert(k.clone(), d.decode(r.get_ref(*i)?));
        }
        Ok(Row {
            id,
            document_id,
            object,
        })
    }
}
