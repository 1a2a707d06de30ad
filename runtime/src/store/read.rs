//! Executing a validated [`Query`]: the page of root rows, the total, and the populate
//! tree, one batched statement per populated edge per level (`WHERE parent IN (…)`), so
//! the number of statements never grows with the page size. The edge statements of one
//! level run together ([`Executor::query_batch`]: one round trip on PostgreSQL) before
//! any nested level. Rows become JSON text in Strapi v5's flat shape, key order included,
//! written straight from the cells: a row is the text of its object, and each populated
//! value is appended to it (`entry.rs`).

use std::borrow::Cow;
use std::collections::HashMap;

use sea_query::SelectStatement;

use super::StoreError;
use super::decode::{self, Decode};
use super::entry::Entry;
use super::seam::{Executor, RowRef};
use super::sql::{Builder, RelatedPlan, Scope, SortGroup, column_role};
use crate::query::{
    Conjunction, Direction, FieldRef, PageMode, Pagination, Populate, PopulateEntry, PopulateKey,
    PopulateKind, PopulateOptions, Query, SortKey,
};
use crate::schema::{
    AttributeKind, ColumnRole, Model, RelationKind, RelationStorage, Schema, SchemaId,
};

/// One page of a list request.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The entries, in order.
    pub entries: Vec<Entry>,
    /// The number of matching entries (when counting was asked for).
    pub total: Option<u64>,
}

/// A loaded row: its id (to attach populated children), its document id (for
/// `localizations`), and the text of its JSON object so far, without the closing brace.
#[derive(Debug, Clone)]
struct Row {
    id: i64,
    document_id: Option<String>,
    json: Vec<u8>,
}

impl Row {
    /// Appends a member: `,"key":value` (`key` is the quoted key and its colon).
    fn member(&mut self, key: &[u8], value: &[u8]) {
        if self.json.len() > 1 {
            self.json.push(b',');
        }
        self.json.extend_from_slice(key);
        self.json.extend_from_slice(value);
    }

    /// The finished object's text.
    fn close(mut self) -> Vec<u8> {
        self.json.push(b'}');
        self.json
    }

    /// The finished object's text, the row kept.
    fn closed(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.json.len() + 1);
        self.close_into(&mut out);
        out
    }

    /// Appends the finished object's text to `out`.
    fn close_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.json);
        out.push(b'}');
    }
}

/// Which keys a loaded row shows, in order: the columns `sorted_first` names, then `fields`
/// (every column when `None`), each key once.
///
/// `sorted_first` ports what Strapi's query builder does to a statement that joins another
/// table (a root filter through a relation, component or media, and every populated
/// relation, component or media): it selects `DISTINCT` rows, and puts the `ORDER BY`
/// columns first in the select list (`processSelect`), so a sort on the type's own columns
/// leads the entry's keys, even when `fields` leaves them out. A sort through a path takes
/// Strapi's deep-sort way, which selects no sort column (see [`sort_columns_shown`]).
#[derive(Debug, Clone, Default)]
struct Keys<'q> {
    fields: Option<&'q [FieldRef]>,
    sorted_first: Vec<FieldRef>,
}

impl<'q> Keys<'q> {
    /// `fields`, nothing first.
    fn fields(fields: Option<&'q [FieldRef]>) -> Self {
        Keys {
            fields,
            sorted_first: Vec::new(),
        }
    }

    /// `fields`, after the sort's own columns when the statement joins another table.
    fn sorted(fields: Option<&'q [FieldRef]>, sort: &[SortKey], joins: bool) -> Self {
        Keys {
            fields,
            sorted_first: if joins {
                sort_columns_shown(sort)
            } else {
                Vec::new()
            },
        }
    }
}

/// The columns a sort puts first in a joined statement's select list, in order: every
/// key's own column, unless a key goes through a path (Strapi's `shouldUseDeepSort`, which
/// numbers rows instead of selecting `DISTINCT` ones, and selects no sort column).
fn sort_columns_shown(sort: &[SortKey]) -> Vec<FieldRef> {
    if sort.iter().any(|k| !k.path.is_empty()) {
        return Vec::new();
    }
    sort.iter().map(|k| k.field).collect()
}

/// A key as JSON text with its colon: `"name":`.
fn json_key(name: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(name.len() + 3);
    decode::string(&mut k, name);
    k.push(b':');
    k
}

/// The populated value of each parent id, as JSON text.
type Values = HashMap<i64, Vec<u8>>;

/// The text of a JSON array, written one item at a time.
#[derive(Debug, Default)]
struct ArrayText(Vec<u8>);

impl ArrayText {
    /// Where the next item is written (its separator already is).
    fn next_item(&mut self) -> &mut Vec<u8> {
        self.0.push(if self.0.is_empty() { b'[' } else { b',' });
        &mut self.0
    }

    /// The array's text (`[]` when no item was written).
    fn finish(mut self) -> Vec<u8> {
        if self.0.is_empty() {
            self.0.push(b'[');
        }
        self.0.push(b']');
        self.0
    }
}

/// The ways, besides one statement, in which [`Reader::find`] may look for a page.
#[derive(Debug, Clone, Copy, Default)]
struct PageWays {
    /// Probe each root row in order first (a relation filter on a large table).
    probe_first: bool,
    /// Walk the sort groups of a first sort key through a path (a large table), within
    /// this many SQLite steps.
    sort_groups: Option<u64>,
}

/// Distinct values of a sort key walked at most; past it, one statement sorts.
const MAX_SORT_GROUPS: u64 = 1000;

/// Work (SQLite steps) walking the sort groups may take before one statement sorts
/// instead, per row of the root table (that statement computes a correlated value per
/// row: about 30 steps each, 29M at a million rows), and at least.
const SORT_GROUP_STEPS_PER_ROW: u64 = 2;
const SORT_GROUP_STEPS_MIN: u64 = 2_000_000;

/// How every schema's full rows become JSON text (no `fields`), worked out once for a
/// model: which column becomes which key, each key's text, each column's decoding. A
/// `fields` selection is planned per request.
#[derive(Debug)]
pub struct RowPlans(Vec<ColumnPlan>);

impl RowPlans {
    /// The plans of every schema of `model`.
    pub fn new(model: &Model) -> RowPlans {
        RowPlans(
            model
                .schemas()
                .iter()
                .map(|s| ColumnPlan::new(s, &Keys::default()))
                .collect(),
        )
    }
}

/// Runs queries for one request on one connection.
pub struct Reader<'a> {
    exec: &'a dyn Executor,
    model: &'a Model,
    default_locale: &'a str,
    rows: &'a RowPlans,
    /// Each row's `localizations` are its document's other rows, whatever other rows of
    /// the document its level holds (the GraphQL plugin loads them parent by parent);
    /// REST's batched populate leaves out every row of the level.
    localizations_per_row: bool,
    /// Populated rows are read in either status, whatever the query's (see
    /// [`Scope::status`]).
    populated_in_any_status: bool,
}

impl<'a> Reader<'a> {
    /// A reader over one connection's executor, with the model's [`RowPlans`].
    pub fn new(
        exec: &'a dyn Executor,
        model: &'a Model,
        default_locale: &'a str,
        rows: &'a RowPlans,
    ) -> Self {
        Reader {
            exec,
            model,
            default_locale,
            rows,
            localizations_per_row: false,
            populated_in_any_status: false,
        }
    }

    /// This reader, with each row's `localizations` its document's other rows (GraphQL's
    /// `localizations`), not those of no row of the level (REST populate's).
    pub fn localizations_per_row(&self) -> Reader<'a> {
        Reader {
            exec: self.exec,
            model: self.model,
            default_locale: self.default_locale,
            rows: self.rows,
            localizations_per_row: true,
            populated_in_any_status: self.populated_in_any_status,
        }
    }

    /// This reader, with populated rows read in either status (a GraphQL mutation's
    /// answer), the query's status applying to its root rows only.
    pub fn populated_in_any_status(&self) -> Reader<'a> {
        Reader {
            populated_in_any_status: true,
            ..*self
        }
    }

    /// `f`'s result when its statements finish within `steps` units of work
    /// ([`Executor::within_steps`]), `None` when they run out or the backend cannot bound
    /// them.
    fn within_steps<T>(
        &self,
        steps: u64,
        f: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let mut f = Some(f);
        let mut out = None;
        let finished = self.exec.within_steps(steps, &mut || {
            if let Some(f) = f.take() {
                out = Some(f()?);
            }
            Ok(())
        })?;
        Ok(out.filter(|_| finished))
    }

    fn builder(&self) -> Builder<'a> {
        Builder::new(self.model, self.exec.dialect(), self.default_locale)
    }

    /// A list request: the page of entries and the total.
    pub fn find(&self, query: &Query) -> Result<Page, StoreError> {
        let schema = self.model.schema(query.schema);
        // Descending only: SQLite sorts entries without a related value last there, so
        // the groups of values come first; ascending they come first, and finding them
        // means probing every row (the one statement does that anyway).
        // A second key that shares the first's joined rows is read from the same related
        // row, which a group of the first key's value alone does not find.
        let sorts_through_path = query
            .sort
            .first()
            .is_some_and(|k| !k.path.is_empty() && k.direction == Direction::Desc)
            && query.sort.get(1).is_none_or(|k| k.shared_hops == 0);
        let rows = if RelatedPlan::matters(query) || sorts_through_path {
            Some(self.size_estimate(schema)?)
        } else {
            None
        };
        let plan = RelatedPlan::for_root(query, rows);
        let large = rows.is_some_and(|n| n >= RelatedPlan::SMALL_TABLE);
        let ways = PageWays {
            probe_first: plan == RelatedPlan::SemiJoin && RelatedPlan::matters(query),
            sort_groups: (large && sorts_through_path).then(|| {
                Ord::max(
                    rows.unwrap_or(0).saturating_mul(SORT_GROUP_STEPS_PER_ROW),
                    SORT_GROUP_STEPS_MIN,
                )
            }),
        };
        self.find_planned(query, plan, ways)
    }

    /// [`Reader::find`] with relation filters tied to the root rows by `plan`, whatever
    /// the table's size, and the page found by one statement. Every plan gives the same
    /// answer; tests check it.
    pub fn find_with_plan(&self, query: &Query, plan: RelatedPlan) -> Result<Page, StoreError> {
        self.find_planned(query, plan, PageWays::default())
    }

    /// The page and total with `plan`. The page's rows are found, where `ways` allows and
    /// the backend can bound the work, by walking the sort groups of a first sort key
    /// through a path ([`Reader::page_by_sort_groups`]), or by probing each root row in
    /// order within [`RelatedPlan::probe_steps`]; by `plan` in one statement otherwise,
    /// and whenever those run out.
    fn find_planned(
        &self,
        query: &Query,
        plan: RelatedPlan,
        ways: PageWays,
    ) -> Result<Page, StoreError> {
        let schema = self.model.schema(query.schema);
        let total = if query.pagination.with_count {
            Some(self.count_with(query, plan)?)
        } else {
            None
        };
        let keys = Keys::sorted(
            query.fields.as_deref(),
            &query.sort,
            query
                .filters
                .as_ref()
                .is_some_and(Conjunction::goes_through_related),
        );
        let mut probed = None;
        if let Some(steps) = ways.sort_groups {
            probed = self.page_by_sort_groups(query, plan, schema, steps)?;
        }
        if ways.probe_first && probed.is_none() {
            let stmt = self.builder().root_select(query, RelatedPlan::Correlated);
            probed = self.within_steps(RelatedPlan::probe_steps(total), || {
                self.load_rows(&stmt, schema, &keys, None)
            })?;
        }
        let mut rows = match probed {
            Some(rows) => rows,
            None => {
                let stmt = self.builder().root_select(query, plan);
                self.load_rows(&stmt, schema, &keys, None)?
            }
        };
        let mut scope = Scope::of(query);
        if self.populated_in_any_status {
            scope.status = None;
        }
        self.populate(schema, &mut rows, &query.populate, scope)?;
        Ok(Page {
            entries: rows
                .into_iter()
                .map(|r| Entry::from_json_bytes(r.close()))
                .collect(),
            total,
        })
    }

    /// The first entry matching the query (find-one and single types), if any.
    pub fn find_first(&self, query: &Query) -> Result<Option<Entry>, StoreError> {
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
        let plan = self.root_plan(query, self.model.schema(query.schema))?;
        self.count_with(query, plan)
    }

    /// How relation filters meet the root rows: for a large table a semi-join, for a
    /// small one or pinned rows a probe per row. See [`RelatedPlan`].
    fn root_plan(&self, query: &Query, schema: &Schema) -> Result<RelatedPlan, StoreError> {
        if !RelatedPlan::matters(query) {
            return Ok(RelatedPlan::for_root(query, None));
        }
        Ok(RelatedPlan::for_root(
            query,
            Some(self.size_estimate(schema)?),
        ))
    }

    /// The size of a schema's table, estimated as `MAX(id)` (one index step).
    fn size_estimate(&self, schema: &Schema) -> Result<u64, StoreError> {
        let stmt = self.builder().size_estimate(schema);
        let mut rows = None;
        self.exec.query_each(&stmt, &mut |r| {
            rows = r.cell(0)?.as_i64().map(|n| Ord::max(n, 0) as u64);
            Ok(())
        })?;
        Ok(rows.unwrap_or(0))
    }

    /// The page of a query whose first sort key goes through a relation, component or
    /// media, walked from the related side: the distinct related values in the key's
    /// order (NULL first ascending, last descending, as SQLite sorts), then for each value
    /// the root rows whose sort value it is ([`Builder::sort_group`]), ordered by the
    /// other keys, until the page is full (groups before the page are counted, not read).
    /// A million rows sorted through `author.name` become a few statements on the first
    /// authors' rows instead of a correlated `MAX` per row.
    ///
    /// `None` when this does not apply (too many distinct values, a value that cannot be
    /// bound back) or runs out of `steps`: the caller sorts in one statement. Either way
    /// the page is the same (`tests/related_plans.rs`).
    fn page_by_sort_groups(
        &self,
        query: &Query,
        plan: RelatedPlan,
        schema: &Schema,
        steps: u64,
    ) -> Result<Option<Vec<Row>>, StoreError> {
        let Some(first) = query.sort.first().filter(|k| !k.path.is_empty()) else {
            return Ok(None);
        };
        Ok(self
            .within_steps(steps, || self.walk_sort_groups(query, plan, schema, first))?
            .flatten())
    }

    fn walk_sort_groups(
        &self,
        query: &Query,
        plan: RelatedPlan,
        schema: &Schema,
        first: &SortKey,
    ) -> Result<Option<Vec<Row>>, StoreError> {
        let Some(stmt) = self
            .builder()
            .sort_values(schema, first, MAX_SORT_GROUPS + 1)
        else {
            return Ok(None);
        };
        let mut values = Vec::new();
        let mut unbindable = false; // a NULL or a kind that is not bound back
        self.exec.query_each(&stmt, &mut |r| {
            match r.cell(0)?.to_value() {
                Some(v) => values.push(Some(v)),
                None => unbindable = true,
            }
            Ok(())
        })?;
        if unbindable || values.len() as u64 > MAX_SORT_GROUPS {
            return Ok(None);
        }
        match first.direction {
            Direction::Asc => values.insert(0, None),
            Direction::Desc => values.push(None),
        }
        let mut within = query.clone();
        within.sort = query.sort[1..].to_vec();
        let (mut skip, mut need) = (query.pagination.start, query.pagination.limit);
        let mut rows = Vec::new();
        for value in values {
            if need == 0 {
                break;
            }
            if skip > 0 {
                let group = SortGroup {
                    key: first,
                    value: value.clone(),
                    plan: RelatedPlan::SemiJoin,
                };
                let count = self.builder().root_count_in(query, plan, Some(group));
                let n = self.exec.count(&count)?;
                if n <= skip {
                    skip -= n;
                    continue;
                }
            }
            // Probed per root row when the page starts the group in `id` order (the
            // probes stop at the page's end); a semi-join when rows are skipped or other
            // keys order the group (every row of the group is visited anyway).
            let group = SortGroup {
                key: first,
                value,
                plan: if skip == 0 && within.sort.is_empty() {
                    RelatedPlan::Correlated
                } else {
                    RelatedPlan::SemiJoin
                },
            };
            within.pagination.start = skip;
            within.pagination.limit = need;
            let stmt = self.builder().root_select_in(&within, plan, Some(group));
            // A first key through a path: Strapi's deep sort, no sort column shown.
            let keys = Keys::fields(query.fields.as_deref());
            let mut got = self.load_rows(&stmt, schema, &keys, None)?;
            skip = 0;
            need = need.saturating_sub(got.len() as u64);
            rows.append(&mut got);
        }
        Ok(Some(rows))
    }

    fn count_with(&self, query: &Query, plan: RelatedPlan) -> Result<u64, StoreError> {
        self.exec.count(&self.builder().root_count(query, plan))
    }

    /// Runs `stmt` (which selects the schema's columns, then optionally an owner id) and
    /// turns each row into a [`Row`].
    fn load_rows(
        &self,
        stmt: &SelectStatement,
        schema: &Schema,
        keys: &Keys<'_>,
        owners: Option<&mut Vec<i64>>,
    ) -> Result<Vec<Row>, StoreError> {
        let mut sink = self.row_sink(schema, keys, owners.is_some());
        self.exec.query_each(stmt, &mut |r| sink.take(r))?;
        if let Some(o) = owners {
            *o = sink.owners;
        }
        Ok(sink.rows)
    }

    /// Where the rows of a statement over `schema` go: each becomes a [`Row`] by the
    /// schema's plan (or one for `keys`), with its owner's id when `owner` is set.
    fn row_sink(&self, schema: &Schema, keys: &Keys<'_>, owner: bool) -> RowSink<'a> {
        let cached = keys.fields.is_none() && keys.sorted_first.is_empty();
        let plan = match (cached, self.rows.0.get(schema.id.index())) {
            (true, Some(plan)) => Cow::Borrowed(plan),
            _ => Cow::Owned(ColumnPlan::new(schema, keys)),
        };
        RowSink {
            plan: Some(plan),
            owner_column: owner.then_some(schema.layout.columns.len()),
            rows: Vec::new(),
            owners: Vec::new(),
        }
    }

    /// Runs independent statements together ([`Executor::query_batch`]: one round trip on
    /// PostgreSQL), each statement's rows into its sink.
    fn load_batch(
        &self,
        stmts: &[&SelectStatement],
        sinks: &mut [RowSink<'_>],
    ) -> Result<(), StoreError> {
        if stmts.is_empty() {
            return Ok(());
        }
        self.exec
            .query_batch(stmts, &mut |i, r| match sinks.get_mut(i) {
                Some(sink) => sink.take(r),
                None => Err(StoreError::Other(format!(
                    "a batch has no sink for statement {i}"
                ))),
            })
    }

    // -------------------------------------------------------------- populate

    fn populate(
        &self,
        schema: &Schema,
        rows: &mut [Row],
        populate: &Populate,
        scope: Scope,
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
        let entries: Vec<&PopulateEntry> = others.into_iter().chain(zones).collect();
        // The edge statements of this level (relations, components, media and counts) do
        // not depend on each other: they run as one batch, before any nested level.
        let mut stmts = Vec::new();
        let mut sinks = Vec::new();
        let mut has_edge = Vec::with_capacity(entries.len());
        for entry in &entries {
            let edge = self.edge_statement(schema, &ids, entry, scope);
            has_edge.push(edge.is_some());
            if let Some((stmt, sink)) = edge {
                stmts.push(stmt);
                sinks.push(sink);
            }
        }
        let refs: Vec<&SelectStatement> = stmts.iter().collect();
        self.load_batch(&refs, &mut sinks)?;
        let mut loaded = sinks.into_iter();
        for (entry, has_edge) in entries.into_iter().zip(has_edge) {
            let edge = if has_edge { loaded.next() } else { None };
            let (name, values) = self.populate_entry(schema, rows, &ids, entry, edge, scope)?;
            let key = json_key(name);
            for row in rows.iter_mut() {
                let v = values.get(&row.id).map_or(&b"null"[..], Vec::as_slice);
                row.member(&key, v);
            }
        }
        Ok(())
    }

    /// The statement that loads a populated relation, component or media for every
    /// parent id (its rows with their owner's id), or counts one (owners only); `None`
    /// for zones and localizations, which load in steps of their own.
    fn edge_statement(
        &self,
        schema: &Schema,
        ids: &[i64],
        entry: &PopulateEntry,
        scope: Scope,
    ) -> Option<(SelectStatement, RowSink<'a>)> {
        let PopulateKey::Attr(a) = entry.key else {
            return None;
        };
        let attr = schema.attributes.get(a.index())?;
        match &entry.kind {
            PopulateKind::Rows { target, options } => {
                let target = self.model.schema(*target);
                let stmt = self
                    .builder()
                    .related_select(schema, attr, ids, target, options, scope)?;
                // Strapi joins the link, `_cmps` or morph table here: the sort's
                // columns lead.
                let keys = Keys::sorted(options.fields.as_deref(), &options.sort, true);
                let sink = self.row_sink(target, &keys, true);
                Some((stmt, sink))
            }
            PopulateKind::Count { target, filters } => {
                let target = self.model.schema(*target);
                let stmt = self.builder().count_select(
                    schema,
                    attr,
                    ids,
                    target,
                    filters.as_ref(),
                    scope,
                )?;
                let sink = RowSink {
                    plan: None,
                    owner_column: Some(target.layout.columns.len()),
                    rows: Vec::new(),
                    owners: Vec::new(),
                };
                Some((stmt, sink))
            }
            PopulateKind::Zone(_) => None,
        }
    }

    /// One populated attribute for every parent id, from the rows its edge statement
    /// loaded (`edge`, when it has one); returns the JSON key and the value per parent id.
    fn populate_entry<'s>(
        &self,
        schema: &'s Schema,
        parents: &[Row],
        ids: &[i64],
        entry: &PopulateEntry,
        edge: Option<RowSink<'_>>,
        scope: Scope,
    ) -> Result<(&'s str, Values), StoreError> {
        let attr = match entry.key {
            PopulateKey::Attr(a) => schema.attributes.get(a.index()),
            PopulateKey::Localizations => None,
        };
        let name = attr.map_or("localizations", |a| a.name.as_str());
        let mut out = Values::new();
        match (&entry.kind, attr.map(|a| &a.kind)) {
            (PopulateKind::Zone(types), Some(AttributeKind::DynamicZone(_))) => {
                let Some(a) = attr else {
                    return Ok((name, out));
                };
                out = self.zone(schema, &a.name, ids, types, scope)?;
            }
            (PopulateKind::Rows { target, options }, None) => {
                // localizations
                out = self.localizations(parents, *target, options, scope)?;
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
                let (mut children, owners) = match edge {
                    Some(sink) => (sink.rows, sink.owners),
                    None => (Vec::new(), Vec::new()),
                };
                self.populate(
                    self.model.schema(*target),
                    &mut children,
                    &options.populate,
                    scope,
                )?;
                // Each owner's children in order: an array, or the first one.
                let mut grouped: HashMap<i64, ArrayText> = HashMap::new();
                let mut first: Values = HashMap::new();
                for (child, owner) in children.iter().zip(owners) {
                    if many {
                        child.close_into(grouped.entry(owner).or_default().next_item());
                    } else {
                        first.entry(owner).or_insert_with(|| child.closed());
                    }
                }
                for id in ids {
                    let v = match many {
                        true => grouped.remove(id).unwrap_or_default().finish(),
                        false => first.remove(id).unwrap_or_else(|| b"null".to_vec()),
                    };
                    out.insert(*id, v);
                }
            }
            (PopulateKind::Count { .. }, Some(_)) => {
                let mut counts: HashMap<i64, u64> = HashMap::new();
                for owner in edge.map(|sink| sink.owners).unwrap_or_default() {
                    *counts.entry(owner).or_default() += 1;
                }
                for id in ids {
                    let n = counts.get(id).copied().unwrap_or(0);
                    out.insert(*id, format!("{{\"count\":{n}}}").into_bytes());
                }
            }
            _ => {}
        }
        Ok((name, out))
    }

    fn localizations(
        &self,
        parents: &[Row],
        target_id: SchemaId,
        options: &PopulateOptions,
        scope: Scope,
    ) -> Result<Values, StoreError> {
        let target = self.model.schema(target_id);
        let mut docs: Vec<String> = parents
            .iter()
            .filter_map(|p| p.document_id.clone())
            .collect();
        docs.sort();
        docs.dedup();
        let ids: Vec<i64> = match self.localizations_per_row {
            true => Vec::new(),
            false => parents.iter().map(|p| p.id).collect(),
        };
        let s = self
            .builder()
            .localizations_select(target, docs, ids, options, scope);
        let keys = Keys::fields(options.fields.as_deref());
        let mut rows = self.load_rows(&s, target, &keys, None)?;
        self.populate(target, &mut rows, &options.populate, scope)?;
        if self.localizations_per_row {
            let mut out = Values::new();
            for p in parents {
                let mut list = ArrayText::default();
                for row in &rows {
                    if row.id != p.id
                        && row.document_id.is_some()
                        && row.document_id == p.document_id
                    {
                        row.close_into(list.next_item());
                    }
                }
                out.insert(p.id, list.finish());
            }
            return Ok(out);
        }
        // Each document's other rows, as the text of an array.
        let mut arrays: HashMap<&str, ArrayText> = HashMap::new();
        for row in &rows {
            if let Some(d) = &row.document_id {
                row.close_into(arrays.entry(d).or_default().next_item());
            }
        }
        let by_doc: HashMap<&str, Vec<u8>> =
            arrays.into_iter().map(|(d, a)| (d, a.finish())).collect();
        let mut out = Values::new();
        for p in parents {
            let list = p
                .document_id
                .as_ref()
                .and_then(|d| by_doc.get(d.as_str()))
                .map_or_else(|| b"[]".to_vec(), Clone::clone);
            out.insert(p.id, list);
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
        scope: Scope,
    ) -> Result<Values, StoreError> {
        let Some(cmps) = &schema.layout.cmps_table else {
            return Ok(ids.iter().map(|id| (*id, b"[]".to_vec())).collect());
        };
        let s = self.builder().zone_links(cmps, field, ids);
        let mut items: Vec<(i64, i64, String)> = Vec::new();
        self.exec.query_each(&s, &mut |r| {
            items.push((r.int(0)?, r.int(1)?, r.opt_text(2)?.unwrap_or_default()));
            Ok(())
        })?;
        // Each listed component type's rows, all types in one batch.
        let mut stmts = Vec::new();
        let mut sinks = Vec::new();
        let mut listed = Vec::new();
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
            let s = self
                .builder()
                .component_rows(cs, wanted, options.filters.as_ref());
            stmts.push(s);
            sinks.push(self.row_sink(cs, &Keys::fields(options.fields.as_deref()), false));
            listed.push((*cid, cs, options));
        }
        let refs: Vec<&SelectStatement> = stmts.iter().collect();
        self.load_batch(&refs, &mut sinks)?;
        let mut loaded: HashMap<(SchemaId, i64), Vec<u8>> = HashMap::new();
        for ((cid, cs, options), sink) in listed.into_iter().zip(sinks) {
            let mut rows = sink.rows;
            self.populate(cs, &mut rows, &options.populate, scope)?;
            let mut uid = Vec::new();
            decode::string(&mut uid, cs.uid.as_str());
            for mut r in rows {
                r.member(b"\"__component\":", &uid);
                let id = r.id;
                loaded.insert((cid, id), r.close());
            }
        }
        let by_uid: HashMap<&str, SchemaId> = types
            .iter()
            .map(|(c, _)| (self.model.schema(*c).uid.as_str(), *c))
            .collect();
        // Each entity's items in order, as the text of an array.
        let mut arrays: HashMap<i64, ArrayText> = HashMap::new();
        for (entity, cmp, ty) in &items {
            if let Some(v) = by_uid
                .get(ty.as_str())
                .and_then(|c| loaded.get(&(*c, *cmp)))
            {
                arrays
                    .entry(*entity)
                    .or_default()
                    .next_item()
                    .extend_from_slice(v);
            }
        }
        Ok(ids
            .iter()
            .map(|id| (*id, arrays.remove(id).unwrap_or_default().finish()))
            .collect())
    }
}

fn is_inverse_to_many(kind: RelationKind, storage: &RelationStorage) -> bool {
    matches!(storage, RelationStorage::MappedBy { .. }) && kind.is_to_many()
}

/// Which columns of a schema become which JSON keys, in Strapi's order.
#[derive(Debug, Clone)]
struct ColumnPlan {
    /// For each output key: the column's index, the key as JSON text with what comes
    /// before it (`{"id":` for the first, `,"documentId":` for the others), and its
    /// decoding.
    keys: Vec<(usize, Vec<u8>, Decode)>,
    id_index: usize,
    document_index: Option<usize>,
}

impl ColumnPlan {
    fn new(schema: &Schema, keys: &Keys<'_>) -> Self {
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
        let roles: Vec<ColumnRole> = match keys.fields {
            None => cols.iter().map(|c| c.role).collect(),
            Some(list) => [ColumnRole::Id, ColumnRole::DocumentId]
                .into_iter()
                .chain(list.iter().map(|f| column_role(*f)))
                .collect(),
        };
        let sorted_first = keys.sorted_first.iter().map(|f| column_role(*f));
        let mut chosen: Vec<(usize, String, Decode)> = Vec::new();
        for role in sorted_first.chain(roles) {
            if let (Some(i), Some((k, d))) = (index_of(role), key_of(role))
                && !chosen.iter().any(|(existing, ..)| *existing == i)
            {
                chosen.push((i, k, d));
            }
        }
        let keys = chosen
            .into_iter()
            .enumerate()
            .map(|(n, (i, k, d))| {
                let mut prefix = vec![if n == 0 { b'{' } else { b',' }];
                prefix.extend_from_slice(&json_key(&k));
                (i, prefix, d)
            })
            .collect();
        ColumnPlan {
            keys,
            id_index: index_of(ColumnRole::Id).unwrap_or(0),
            document_index: index_of(ColumnRole::DocumentId),
        }
    }

    fn row(&self, r: &dyn RowRef) -> Result<Row, StoreError> {
        let id = r.int(self.id_index)?;
        let document_id = match self.document_index {
            Some(i) => r.opt_text(i)?,
            None => None,
        };
        let mut json = Vec::with_capacity(64 * self.keys.len());
        for (i, prefix, d) in &self.keys {
            json.extend_from_slice(prefix);
            d.write(r.cell(*i)?, &mut json);
        }
        if json.is_empty() {
            json.push(b'{');
        }
        Ok(Row {
            id,
            document_id,
            json,
        })
    }
}

/// Where the rows of one statement go ([`Reader::row_sink`]): each becomes a [`Row`] by
/// `plan`, and its owner's id (the column after the schema's) is kept when the statement
/// selects one. Without a plan only the owners are kept (a `count` populate).
struct RowSink<'p> {
    plan: Option<Cow<'p, ColumnPlan>>,
    owner_column: Option<usize>,
    rows: Vec<Row>,
    owners: Vec<i64>,
}

impl RowSink<'_> {
    fn take(&mut self, r: &dyn RowRef) -> Result<(), StoreError> {
        if let Some(plan) = &self.plan {
            self.rows.push(plan.row(r)?);
        }
        if let Some(c) = self.owner_column {
            self.owners.push(r.int(c)?);
        }
        Ok(())
    }
}
