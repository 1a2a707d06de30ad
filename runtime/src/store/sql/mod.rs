//! Query → SQL, with sea-query. Builds the root select and count of a list request and the
//! batched select of each populated edge. Dialect-free: statements are rendered by the
//! caller with a sea-query backend; the few expressions sea-query has no builder for
//! (case-insensitive LIKE, correlated aggregates) go through [`Dialect`].
//!
//! Semantics (see `strapi-semantics.md` §2 and ARCHITECTURE.md):
//! * a condition on a relation, component or media means "some related row matches" and is
//!   an `EXISTS` sub-select, so rows are never duplicated and counts are exact;
//! * every value is bound; identifiers come only from the model's layout.

mod populate;

use sea_query::{Alias, Cond, Expr, ExprTrait, Func, Order, Query as Sql, SelectStatement};

use crate::query::{
    Condition, Conjunction, Direction, FieldRef, LocaleSelector, Op, Operand, PublicationFilter,
    Query, SortKey, Status, Value,
};
use crate::schema::{
    AttrId, Attribute, AttributeKind, ColumnRole, LinkTable, Model, RelationStorage, Schema,
    SchemaId,
};

/// What populated relations are read in: the request's `status`, and its
/// `publicationFilter`, which Strapi applies to every populated draft-and-publish relation
/// as to the root rows (the document service wraps it into the query's `filters`, which
/// `@strapi/database` hands to each populate; the GraphQL plugin's association resolver
/// inherits it from the root query).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// `status`; `None`: populated rows of either status (a GraphQL mutation's answer:
    /// the plugin's association resolver inherits a status from root queries only).
    pub status: Option<Status>,
    /// `publicationFilter` / `hasPublishedVersion`.
    pub publication_filter: Option<PublicationFilter>,
}

impl Scope {
    /// The scope of a query's populate.
    pub fn of(query: &Query) -> Self {
        Scope {
            status: Some(query.status),
            publication_filter: query.publication_filter,
        }
    }
}

/// The SQL dialect a statement will be rendered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (the embedded default).
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL and MariaDB.
    Mysql,
}

impl Dialect {
    /// `a IS NOT DISTINCT FROM b`: equal, or both NULL.
    pub fn same_value(self, a: Expr, b: Expr) -> Expr {
        match self {
            Dialect::Sqlite => Expr::cust_with_exprs("? IS ?", [a, b]),
            Dialect::Postgres => Expr::cust_with_exprs("$1 IS NOT DISTINCT FROM $2", [a, b]),
            Dialect::Mysql => Expr::cust_with_exprs("? <=> ?", [a, b]),
        }
    }

    /// `col` in a form the planner will not look up through an index (SQLite's unary `+`),
    /// so that a batch select over a few parents uses the parent key's index rather than
    /// a low-selectivity one. Without statistics (Strapi never runs ANALYZE), SQLite
    /// prefers `_cmps.field = ?` (its own index, one value for a million rows) over
    /// `entity_id IN (…)`: 20 ms instead of 0.1 ms per component populate at 100k rows.
    pub fn not_via_index(self, col: Expr) -> Expr {
        match self {
            Dialect::Sqlite => Expr::cust_with_exprs("+?", [col]),
            Dialect::Postgres | Dialect::Mysql => col,
        }
    }

    /// `LOWER(col)` as Strapi writes it: PostgreSQL casts to text first, so the
    /// case-insensitive operators also work on numbers.
    fn lower_col(self, col: Expr) -> Expr {
        match self {
            Dialect::Sqlite | Dialect::Mysql => Func::lower(col).into(),
            Dialect::Postgres => Expr::cust_with_exprs("LOWER(CAST($1 AS VARCHAR))", [col]),
        }
    }

    /// `LOWER(?)` of a bound value.
    fn lower_val(self, v: String) -> Expr {
        match self {
            Dialect::Sqlite | Dialect::Mysql => Expr::cust_with_exprs("LOWER(?)", [Expr::val(v)]),
            Dialect::Postgres => Expr::cust_with_exprs("LOWER($1)", [Expr::val(v)]),
        }
    }

    /// `col LIKE ?` with backslash escapes (explicit on SQLite, the default on PostgreSQL).
    fn like(self, col: Expr, pattern: String, negate: bool) -> Expr {
        let op = if negate { "NOT LIKE" } else { "LIKE" };
        match self {
            Dialect::Sqlite => {
                Expr::cust_with_exprs(format!("? {op} ? ESCAPE '\\'"), [col, Expr::val(pattern)])
            }
            Dialect::Postgres => Expr::cust_with_exprs(
                format!("CAST($1 AS VARCHAR) {op} $2"),
                [col, Expr::val(pattern)],
            ),
            // Backslash is MySQL's default LIKE escape.
            Dialect::Mysql => Expr::cust_with_exprs(format!("? {op} ?"), [col, Expr::val(pattern)]),
        }
    }

    /// `_q`'s match of one column (`applySearch`): `LIKE` with a backslash escape on
    /// SQLite (ASCII case-insensitive) and MySQL (the collation's), `ILIKE` of the column
    /// as text on PostgreSQL (the database's own Unicode case rules).
    fn search_like(self, col: Expr, pattern: String) -> Expr {
        match self {
            Dialect::Sqlite => {
                Expr::cust_with_exprs("? LIKE ? ESCAPE '\\'", [col, Expr::val(pattern)])
            }
            Dialect::Postgres => {
                Expr::cust_with_exprs("CAST($1 AS TEXT) ILIKE $2", [col, Expr::val(pattern)])
            }
            Dialect::Mysql => Expr::cust_with_exprs("? LIKE ?", [col, Expr::val(pattern)]),
        }
    }

    /// `LOWER(col) LIKE LOWER(?)`.
    fn ilike(self, col: Expr, pattern: String, negate: bool) -> Expr {
        let op = if negate { "NOT LIKE" } else { "LIKE" };
        let lower = self.lower_col(col);
        match self {
            Dialect::Sqlite => Expr::cust_with_exprs(
                format!("? {op} LOWER(?) ESCAPE '\\'"),
                [lower, Expr::val(pattern)],
            ),
            Dialect::Postgres => {
                Expr::cust_with_exprs(format!("$1 {op} LOWER($2)"), [lower, Expr::val(pattern)])
            }
            Dialect::Mysql => {
                Expr::cust_with_exprs(format!("? {op} LOWER(?)"), [lower, Expr::val(pattern)])
            }
        }
    }
}

impl Dialect {
    /// Whether Strapi's driver hands a `bigint` column's values over as JavaScript numbers
    /// (better-sqlite3; [`crate::store::seam::Cell::Int`]), which round past 2^53, rather
    /// than as exact text (node-postgres; mysql2 under Strapi's `bigNumberStrings`).
    pub fn reads_bigint_as_number(self) -> bool {
        self == Dialect::Sqlite
    }

    /// A bound value, in the form this backend compares with its column: a datetime is
    /// epoch milliseconds on SQLite (Strapi's storage) and PostgreSQL (the binder encodes it
    /// in the parameter's type), and UTC text on MySQL, whose prepared statements do not
    /// type their parameters (a number would compare as `YYYYMMDDhhmmss`).
    pub fn bind(self, v: &Value) -> Expr {
        match (self, v) {
            (Dialect::Mysql, Value::DateTime(ms)) => Expr::val(mysql_datetime(*ms)),
            _ => bind(v),
        }
    }
}

/// Epoch milliseconds as MySQL's `YYYY-MM-DD HH:MM:SS.fff` (UTC).
pub fn mysql_datetime(ms: i64) -> String {
    let iso = crate::query::values::iso_string(ms);
    iso.trim_end_matches('Z').replacen('T', " ", 1)
}

/// The column role that holds a field.
pub fn column_role(field: FieldRef) -> ColumnRole {
    match field {
        FieldRef::Id => ColumnRole::Id,
        FieldRef::DocumentId => ColumnRole::DocumentId,
        FieldRef::CreatedAt => ColumnRole::CreatedAt,
        FieldRef::UpdatedAt => ColumnRole::UpdatedAt,
        FieldRef::PublishedAt => ColumnRole::PublishedAt,
        FieldRef::Locale => ColumnRole::Locale,
        FieldRef::Attr(id) => ColumnRole::Attribute(id),
    }
}

/// Escapes `%`, `_` and `\` for a LIKE pattern.
pub fn escape_like(s: &str) -> String {
    escape_with_backslash(s, &['%', '_', '\\'])
}

/// `_q`'s text as Strapi escapes it for `LIKE` (`escapeQuery(q, '*%\\')`): `*`, `%` and
/// `\` get a backslash; `_` does not, so it matches any one character, as in Strapi.
pub fn escape_search(s: &str) -> String {
    escape_with_backslash(s, &['*', '%', '\\'])
}

/// `s` with a backslash before each of `special`.
fn escape_with_backslash(s: &str, special: &[char]) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        if special.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A column of an aliased table.
pub fn col(alias: &str, column: &str) -> Expr {
    Expr::col((Alias::new(alias), Alias::new(column)))
}

/// A bound value.
pub fn bind(v: &Value) -> Expr {
    match v {
        Value::Null => Expr::val(Option::<i64>::None),
        Value::Text(s) | Value::Date(s) | Value::Time(s) => Expr::val(s.clone()),
        Value::Number(n) => {
            if n.fract() == 0.0 && n.abs() < 9.0e15 {
                Expr::val(*n as i64)
            } else {
                Expr::val(*n)
            }
        }
        Value::BigInt(s) => match s.parse::<i64>() {
            Ok(i) => Expr::val(i),
            Err(_) => Expr::val(s.clone()),
        },
        Value::Bool(b) => Expr::val(i64::from(*b)),
        Value::DateTime(ms) => Expr::val(*ms),
    }
}

/// Per-request context of the statement builder: the model, the dialect and the
/// request-wide facts (status, default locale) that every level needs.
pub struct Builder<'a> {
    /// The content model.
    pub model: &'a Model,
    /// The dialect to build for.
    pub dialect: Dialect,
    /// The default locale code.
    pub default_locale: &'a str,
    next_alias: usize,
    /// How relation conditions are tied to their parent rows in this statement.
    pub related_plan: RelatedPlan,
}

/// The batched select of one populated edge (see [`Builder::edge_select`]).
pub struct EdgeSelect {
    /// The statement: the target's columns, then the owner id.
    pub select: SelectStatement,
    /// Alias of the target rows.
    pub target_alias: String,
    /// Alias of the link (join) table.
    pub link_alias: String,
    /// The link table's order column for this side, if it has one.
    pub order_column: Option<String>,
}

impl RelatedPlan {
    /// Below this many root rows, probing each row is cheaper than collecting the
    /// related rows first (measured on the blog fixture, 92 articles: 14% more req/s).
    pub const SMALL_TABLE: u64 = 4096;

    /// The plan for a root query: correlated when an `id`/`documentId` equality pins the
    /// rows or the root table is small (`root_rows`, an estimate such as `MAX(id)`),
    /// else a semi-join.
    pub fn for_root(query: &Query, root_rows: Option<u64>) -> RelatedPlan {
        let pinned = query.filters.as_ref().is_some_and(pins_rows);
        if pinned || root_rows.is_some_and(|n| n < Self::SMALL_TABLE) {
            RelatedPlan::Correlated
        } else {
            RelatedPlan::SemiJoin
        }
    }

    /// Work (SQLite virtual-machine steps) a page of a large table may spend probing each
    /// root row in order before the semi-join is used instead, given the number of
    /// matching entries when it is known. A page in `id` order whose matches are dense
    /// finds its rows among the first few thousand, which beats collecting every match
    /// (at 1M articles, one author's page: 3.5 ms against 19 ms); when the matches are
    /// sparse or the order is another, the probes run out of steps and the semi-join
    /// answers. Bounded waste: the allowance grows with the matches, as the semi-join's
    /// own work does (measured: about 6 steps per matching link), and stays below it.
    pub fn probe_steps(total: Option<u64>) -> u64 {
        const MIN: u64 = 20_000;
        const PER_MATCH: u64 = 10;
        const MAX: u64 = 5_000_000;
        const UNKNOWN: u64 = 50_000;
        match total {
            Some(n) => Ord::min(n.saturating_mul(PER_MATCH).saturating_add(MIN), MAX),
            None => UNKNOWN,
        }
    }

    /// Whether the plan matters for `query`: its filters go through a relation,
    /// component or media (at any depth of `$and`/`$or`/`$not`) and no key pins the rows.
    pub fn matters(query: &Query) -> bool {
        query
            .filters
            .as_ref()
            .is_some_and(|c| !pins_rows(c) && has_related(c))
    }
}

fn has_related(c: &Conjunction) -> bool {
    c.0.iter().any(|cond| match cond {
        Condition::Related { .. } | Condition::RelatedNull { .. } => true,
        Condition::And(items) | Condition::Or(items) => items.iter().any(has_related),
        Condition::Not(inner) | Condition::Localizations(inner) => has_related(inner),
        Condition::Field { .. } => false,
    })
}

/// A related table reached from a parent row: how to join it.
struct Hop {
    /// FROM clause table of the related rows (and its alias).
    table: String,
    /// The join table (a link, `_cmps` or media table), with its alias.
    join: (String, String),
    /// The join-table column that holds the parent row's id.
    parent_key: Expr,
    /// Conditions on the join table's row alone (which field, which owner type).
    join_on: Vec<Expr>,
    /// The join table's row to its related row.
    target_on: Expr,
    /// Alias of the related rows.
    alias: String,
    /// Schema of the related rows.
    schema: SchemaId,
}

impl Hop {
    /// Every condition that ties the join table's rows to the related rows.
    fn link(&self) -> impl Iterator<Item = Expr> + '_ {
        self.join_on
            .iter()
            .cloned()
            .chain(std::iter::once(self.target_on.clone()))
    }
}

/// The root rows whose value for a sort key through a path is `value` (NULL: `None`),
/// found with `plan` ([`Builder::sort_group`]).
#[derive(Debug, Clone)]
pub struct SortGroup<'k> {
    /// The sort key (a path and a column).
    pub key: &'k SortKey,
    /// The group's value.
    pub value: Option<sea_query::Value>,
    /// Probed per root row (`Correlated`) or found once (`SemiJoin`).
    pub plan: RelatedPlan,
}

/// How a relation condition is tied to its parent rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelatedPlan {
    /// `parent.id IN (SELECT parent_key FROM … WHERE <filter>)`: the matching related
    /// rows are found once per statement, then probed (a semi-join). Wins whenever many
    /// parent rows must be examined: counts, sparse matches, pages deep in a large table.
    SemiJoin,
    /// `EXISTS (SELECT 1 FROM … WHERE parent_key = parent.id AND <filter>)`: one indexed
    /// probe per candidate parent row. Wins when the parent rows are already pinned by an
    /// index (an `id` or `documentId` equality), where the semi-join would still collect
    /// every matching related row, and for a page whose matches come early in its order
    /// (tried first within [`RelatedPlan::probe_steps`]).
    Correlated,
}

impl<'a> Builder<'a> {
    /// A builder for one request.
    pub fn new(model: &'a Model, dialect: Dialect, default_locale: &'a str) -> Self {
        Builder {
            model,
            dialect,
            default_locale,
            next_alias: 0,
            // Populate's filters run over the children of one page: few rows, probed.
            // `root_where` decides for the root rows.
            related_plan: RelatedPlan::Correlated,
        }
    }

    /// A fresh table alias (`t0`, `t1`, …).
    pub fn alias(&mut self) -> String {
        let a = format!("t{}", self.next_alias);
        self.next_alias += 1;
        a
    }

    fn schema(&self, id: SchemaId) -> &'a Schema {
        self.model.schema(id)
    }

    /// The column name of a field of a schema (`None` when it has no column there).
    pub fn field_column(&self, schema: &Schema, field: FieldRef) -> Option<String> {
        let role = column_role(field);
        schema
            .layout
            .columns
            .iter()
            .find(|c| c.role == role)
            .map(|c| c.name.clone())
    }

    // ------------------------------------------------------------ root query

    /// The page of a list request: every column of the root rows, filtered, sorted (with
    /// the `id asc` tie-breaker) and paginated.
    pub fn root_select(&mut self, query: &Query, plan: RelatedPlan) -> SelectStatement {
        self.root_select_in(query, plan, None)
    }

    /// [`Builder::root_select`], of one sort group's root rows when a group is given.
    pub fn root_select_in(
        &mut self,
        query: &Query,
        plan: RelatedPlan,
        group: Option<SortGroup<'_>>,
    ) -> SelectStatement {
        let schema = self.schema(query.schema);
        let alias = self.alias();
        let mut stmt = Sql::select();
        self.select_columns(&mut stmt, schema, &alias);
        stmt.from_as(Alias::new(&schema.layout.table), Alias::new(&alias));
        stmt.cond_where(self.root_where_in(query, &alias, plan, group));
        for (e, o) in self.order_by(schema, &query.sort, &alias, true) {
            stmt.order_by_expr(e, o);
        }
        stmt.limit(query.pagination.limit)
            .offset(query.pagination.start);
        stmt
    }

    /// The total of a list request: `COUNT(id)` of the root rows the filters select.
    pub fn root_count(&mut self, query: &Query, plan: RelatedPlan) -> SelectStatement {
        self.root_count_in(query, plan, None)
    }

    /// [`Builder::root_count`], of one sort group's root rows when a group is given.
    pub fn root_count_in(
        &mut self,
        query: &Query,
        plan: RelatedPlan,
        group: Option<SortGroup<'_>>,
    ) -> SelectStatement {
        let schema = self.schema(query.schema);
        let alias = self.alias();
        let mut stmt = Sql::select();
        stmt.expr(Func::count(col(&alias, "id")))
            .from_as(Alias::new(&schema.layout.table), Alias::new(&alias))
            .cond_where(self.root_where_in(query, &alias, plan, group));
        stmt
    }

    /// [`Builder::root_where`], and the sort group's term ([`Builder::sort_group`]).
    fn root_where_in(
        &mut self,
        query: &Query,
        alias: &str,
        plan: RelatedPlan,
        group: Option<SortGroup<'_>>,
    ) -> Cond {
        let cond = self.root_where(query, alias, plan);
        let schema = self.schema(query.schema);
        match group.and_then(|g| self.sort_group(schema, g, alias)) {
            Some(term) => cond.add(term),
            None => cond,
        }
    }

    /// WHERE of the root rows of a list request: status, locale, publication filter,
    /// search and filters.
    /// `plan` ties relation conditions to the root rows (see [`RelatedPlan::for_root`]).
    pub fn root_where(&mut self, query: &Query, alias: &str, plan: RelatedPlan) -> Cond {
        let schema = self.schema(query.schema);
        self.related_plan = plan;
        let mut cond = Cond::all();
        if let Some(t) = self.status_term(schema, query.status, alias) {
            cond = cond.add(t);
        }
        let user_sets_locale = query.filters.as_ref().is_some_and(|c| {
            c.0.iter().any(|cond| {
                matches!(
                    cond,
                    Condition::Field {
                        field: FieldRef::Locale,
                        ..
                    }
                )
            })
        });
        if schema.localized && !user_sets_locale {
            match &query.locale {
                LocaleSelector::Default => {
                    cond = cond.add(col(alias, "locale").eq(self.default_locale.to_string()))
                }
                LocaleSelector::Codes(codes) => {
                    cond = cond.add(col(alias, "locale").is_in(codes.iter().cloned()))
                }
                LocaleSelector::All => {}
            }
        }
        if let Some(pf) = query.publication_filter
            && schema.draft_and_publish
        {
            cond = cond.add(self.publication_filter(schema, pf, query.status, alias));
        }
        if let Some(q) = &query.search {
            cond = cond.add(self.search(schema, q, alias));
        }
        if let Some(f) = &query.filters {
            cond = cond.add(self.conjunction(schema, f, alias));
        }
        cond
    }

    /// Restricts populated rows of `target` (alias `t`) to the request's scope: its
    /// status and, on a draft-and-publish type, its publication filter.
    fn scope_terms(&mut self, s: &mut SelectStatement, target: &Schema, scope: Scope, t: &str) {
        let Some(status) = scope.status else {
            return;
        };
        if let Some(term) = self.status_term(target, status, t) {
            s.and_where(term);
        }
        if let Some(pf) = scope.publication_filter
            && target.draft_and_publish
        {
            let term = self.publication_filter(target, pf, status, t);
            s.and_where(term);
        }
    }

    /// `published_at IS [NOT] NULL` for draft-and-publish types.
    pub fn status_term(&self, schema: &Schema, status: Status, alias: &str) -> Option<Expr> {
        schema.draft_and_publish.then(|| match status {
            Status::Published => col(alias, "published_at").is_not_null(),
            Status::Draft => col(alias, "published_at").is_null(),
        })
    }

    /// `publicationFilter` on rows of the requested `status`. "modified" and "unmodified"
    /// compare a row with its counterpart of the other state in the same locale (a draft
    /// with its published version, a published version with its draft): modified when
    /// their `updated_at` differ. "published-with(out)-draft" only ever match published
    /// rows. (Checked against the oracle for every value, both statuses and `locale=*`.)
    fn publication_filter(
        &mut self,
        schema: &Schema,
        pf: PublicationFilter,
        status: Status,
        alias: &str,
    ) -> Expr {
        let other = self.alias();
        let table = schema.layout.table.clone();
        let sibling = |published: bool, same_locale: bool| {
            let mut s = Sql::select();
            s.expr(Expr::val(1))
                .from_as(Alias::new(&table), Alias::new(&other))
                .and_where(
                    col(&other, "document_id")
                        .equals((Alias::new(alias), Alias::new("document_id"))),
                )
                .and_where(if published {
                    col(&other, "published_at").is_not_null()
                } else {
                    col(&other, "published_at").is_null()
                });
            if same_locale && schema.localized {
                s.and_where(
                    self.dialect
                        .same_value(col(&other, "locale"), col(alias, "locale")),
                );
            }
            s
        };
        let same_updated = |published: bool| {
            let mut s = sibling(published, true);
            s.and_where(
                col(&other, "updated_at").equals((Alias::new(alias), Alias::new("updated_at"))),
            );
            s
        };
        // The counterpart of a row: the published version of a draft, the draft of a
        // published version.
        let counterpart_published = status == Status::Draft;
        let is_published = col(alias, "published_at").is_not_null();
        match pf {
            PublicationFilter::NeverPublished => Expr::exists(sibling(true, true)).not(),
            PublicationFilter::HasPublishedVersion => Expr::exists(sibling(true, true)),
            PublicationFilter::NeverPublishedDocument => Expr::exists(sibling(true, false)).not(),
            PublicationFilter::HasPublishedVersionDocument => Expr::exists(sibling(true, false)),
            PublicationFilter::Modified => Expr::exists(sibling(counterpart_published, true))
                .and(Expr::exists(same_updated(counterpart_published)).not()),
            PublicationFilter::Unmodified => Expr::exists(same_updated(counterpart_published)),
            PublicationFilter::PublishedWithoutDraft => {
                is_published.and(Expr::exists(sibling(false, true)).not())
            }
            PublicationFilter::PublishedWithDraft => {
                is_published.and(Expr::exists(sibling(false, true)))
            }
        }
    }

    /// `_q`, as `@strapi/database`'s `applySearch` writes it: the id, every searchable
    /// string column and, when the text reads as a number (lodash `toNumber`), every
    /// searchable number column, `LIKE '%text%'` with `*`, `%` and `\` escaped (`_` stays a
    /// wildcard, as in Strapi): `ILIKE` on a text cast on PostgreSQL, the engine's `LIKE`
    /// elsewhere.
    fn search(&self, schema: &Schema, q: &str, alias: &str) -> Expr {
        use crate::schema::ScalarType as T;
        let pattern = format!("%{}%", escape_search(q));
        let numeric = q.trim().is_empty() || crate::query::values::js_number(q).is_some();
        let mut any = Cond::any();
        any = any.add(self.dialect.search_like(col(alias, "id"), pattern.clone()));
        for c in &schema.layout.columns {
            let searchable = match c.role {
                ColumnRole::DocumentId | ColumnRole::Locale => true,
                ColumnRole::Attribute(id) => schema.attributes.get(id.index()).is_some_and(|a| {
                    a.searchable
                        && !a.private
                        && match a.kind.scalar() {
                            Some(
                                T::String
                                | T::Text
                                | T::RichText
                                | T::Enumeration { .. }
                                | T::Email
                                | T::Uid { .. },
                            ) => true,
                            Some(T::Integer | T::BigInteger | T::Float | T::Decimal) => numeric,
                            _ => false,
                        }
                }),
                _ => false,
            };
            if searchable {
                any = any.add(
                    self.dialect
                        .search_like(col(alias, &c.name), pattern.clone()),
                );
            }
        }
        any.into()
    }

    // ---------------------------------------------------------------- filters

    /// A conjunction on rows of `schema` aliased `alias`.
    pub fn conjunction(&mut self, schema: &Schema, c: &Conjunction, alias: &str) -> Cond {
        let mut all = Cond::all();
        for cond in &c.0 {
            all = all.add(self.condition(schema, cond, alias));
        }
        all
    }

    /// One condition. `negated` pushes a `$not` down (De Morgan) so that negation is
    /// row-wise through relations, as Strapi's joins make it: `$not` over a relation
    /// condition means "some related row does not match".
    fn condition(&mut self, schema: &Schema, c: &Condition, alias: &str) -> Cond {
        self.condition_as(schema, c, alias, false)
    }

    fn conjunction_as(
        &mut self,
        schema: &Schema,
        c: &Conjunction,
        alias: &str,
        negated: bool,
    ) -> Cond {
        // NOT (a AND b) = NOT a OR NOT b.
        let mut group = if negated { Cond::any() } else { Cond::all() };
        for cond in &c.0 {
            group = group.add(self.condition_as(schema, cond, alias, negated));
        }
        group
    }

    fn condition_as(&mut self, schema: &Schema, c: &Condition, alias: &str, negated: bool) -> Cond {
        match c {
            Condition::And(items) | Condition::Or(items) => {
                let is_and = matches!(c, Condition::And(_));
                let mut group = if is_and != negated {
                    Cond::all()
                } else {
                    Cond::any()
                };
                for item in items {
                    group = group.add(self.conjunction_as(schema, item, alias, negated));
                }
                group
            }
            Condition::Not(inner) => self.conjunction_as(schema, inner, alias, !negated),
            Condition::Field { field, op, operand } => {
                let expr = match self.field_column(schema, *field) {
                    Some(column) => self.compare(col(alias, &column), *op, operand),
                    None => Expr::cust("0 = 1"),
                };
                // SQL's three-valued NOT: a NULL comparison stays excluded.
                Cond::all().add(if negated { expr.not() } else { expr })
            }
            Condition::Related {
                attr,
                target,
                filter,
            } => {
                let matches_empty = null_row(filter, negated) == Some(true);
                let found = self.related(
                    schema,
                    *attr,
                    alias,
                    Some((*target, filter, negated)),
                    false,
                );
                if matches_empty {
                    // A LEFT JOIN's all-NULL row matches too: entries with no related row.
                    let none = self.related(schema, *attr, alias, None, true);
                    Cond::any().add(found).add(none)
                } else {
                    Cond::all().add(found)
                }
            }
            Condition::RelatedNull { attr, is_null } => {
                let none = *is_null != negated;
                Cond::all().add(self.related(schema, *attr, alias, None, none))
            }
            Condition::Localizations(filter) => {
                let other = self.alias();
                let mut s = Sql::select();
                s.expr(Expr::val(1))
                    .from_as(Alias::new(&schema.layout.table), Alias::new(&other))
                    .and_where(
                        col(&other, "document_id")
                            .equals((Alias::new(alias), Alias::new("document_id"))),
                    );
                let inner = self.conjunction_as(schema, filter, &other, negated);
                s.cond_where(inner);
                Cond::all().add(Expr::exists(s))
            }
        }
    }

    /// "Some row related through `attr` to the parent row aliased `parent_alias` matches
    /// `filter`" (any related row without a filter), or with `none` its negation, in this
    /// statement's [`RelatedPlan`]. The filter's flag pushes a `$not` down to the related
    /// rows.
    fn related(
        &mut self,
        schema: &Schema,
        attr: AttrId,
        parent_alias: &str,
        filter: Option<(SchemaId, &Conjunction, bool)>,
        none: bool,
    ) -> Expr {
        let Some(hop) = self.hop(schema, attr) else {
            return Expr::cust(if none { "1 = 1" } else { "0 = 1" });
        };
        let mut s = Sql::select();
        s.from_as(Alias::new(&hop.table), Alias::new(&hop.alias));
        // The join table drives the link; the related table is joined to it.
        let (jt, ja) = &hop.join;
        s.from_as(Alias::new(jt), Alias::new(ja));
        for l in hop.link() {
            s.and_where(l);
        }
        if let Some((target, f, negated)) = filter {
            let target = self.schema(target);
            let c = self.conjunction_as(target, f, &hop.alias, negated);
            s.cond_where(c);
        }
        let parent_id = col(parent_alias, "id");
        // "No related row" probes each candidate's key index (NOT EXISTS); as NOT IN it would
        // collect every link of every parent first, which measured slower at 100k rows.
        let plan = if none {
            RelatedPlan::Correlated
        } else {
            self.related_plan
        };
        match plan {
            // No NULL test here: it would steer SQLite's planner to the key's index.
            RelatedPlan::SemiJoin => {
                s.expr(hop.parent_key);
                parent_id.in_subquery(s)
            }
            RelatedPlan::Correlated => {
                s.expr(Expr::val(1)).and_where(hop.parent_key.eq(parent_id));
                if none {
                    Expr::exists(s).not()
                } else {
                    Expr::exists(s)
                }
            }
        }
    }

    /// How to reach the rows related through `attr` from a parent row.
    fn hop(&mut self, schema: &Schema, attr: AttrId) -> Option<Hop> {
        let a = schema.attributes.get(attr.index())?;
        match &a.kind {
            AttributeKind::Relation(rel) => {
                let target = rel.target?;
                let (lt, owner_side) = self.link_table(&rel.storage)?;
                let ts = self.schema(target);
                let (t, j) = (self.alias(), self.alias());
                let (parent_col, target_col) = if owner_side {
                    (&lt.owner_column, &lt.target_column)
                } else {
                    (&lt.target_column, &lt.owner_column)
                };
                Some(Hop {
                    table: ts.layout.table.clone(),
                    join: (lt.table.clone(), j.clone()),
                    parent_key: col(&j, parent_col),
                    join_on: Vec::new(),
                    target_on: col(&j, target_col).equals((Alias::new(&t), Alias::new("id"))),
                    alias: t,
                    schema: target,
                })
            }
            AttributeKind::Component(c) => {
                let cs = self.schema(c.component);
                let cmps = schema.layout.cmps_table.clone()?;
                let (t, j) = (self.alias(), self.alias());
                Some(Hop {
                    table: cs.layout.table.clone(),
                    join: (cmps, j.clone()),
                    parent_key: col(&j, "entity_id"),
                    join_on: vec![
                        col(&j, "field").eq(a.name.clone()),
                        col(&j, "component_type").eq(cs.uid.to_string()),
                    ],
                    target_on: col(&j, "cmp_id").equals((Alias::new(&t), Alias::new("id"))),
                    alias: t,
                    schema: c.component,
                })
            }
            AttributeKind::Media(_) => {
                let file = self.model.upload_file()?;
                let mph = self.model.media_table()?.clone();
                let (t, j) = (self.alias(), self.alias());
                Some(Hop {
                    table: file.layout.table.clone(),
                    join: (mph.table.clone(), j.clone()),
                    parent_key: col(&j, &mph.id_column),
                    join_on: vec![
                        col(&j, &mph.type_column).eq(schema.uid.to_string()),
                        col(&j, "field").eq(a.name.clone()),
                    ],
                    target_on: col(&j, &mph.owner_column)
                        .equals((Alias::new(&t), Alias::new("id"))),
                    alias: t,
                    schema: file.id,
                })
            }
            _ => None,
        }
    }

    /// The link table of a relation and whether `storage` is its owning side.
    pub fn link_table(&self, storage: &RelationStorage) -> Option<(LinkTable, bool)> {
        match storage {
            RelationStorage::LinkTable(lt) => Some((lt.clone(), true)),
            RelationStorage::MappedBy {
                owner,
                owner_attribute,
            } => {
                let os = self.schema(*owner);
                match &os.attributes.get(owner_attribute.index())?.kind {
                    AttributeKind::Relation(r) => match &r.storage {
                        RelationStorage::LinkTable(lt) => Some((lt.clone(), false)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `col <op> operand`.
    pub fn compare(&self, c: Expr, op: Op, operand: &Operand) -> Expr {
        let d = self.dialect;
        match (op, operand) {
            (Op::Null, Operand::Flag(true)) => c.is_null(),
            (Op::Null, Operand::Flag(false)) => c.is_not_null(),
            (Op::In, Operand::List(vs)) => c.is_in(vs.iter().map(|v| d.bind(v))),
            (Op::NotIn, Operand::List(vs)) => c.is_not_in(vs.iter().map(|v| d.bind(v))),
            (Op::Between, Operand::Range(lo, hi)) => c.between(d.bind(lo), d.bind(hi)),
            (_, Operand::One(v)) => {
                let text = || match v {
                    Value::Text(s) => s.clone(),
                    other => value_text(other),
                };
                match op {
                    Op::Eq if *v == Value::Null => c.is_null(),
                    Op::Ne if *v == Value::Null => c.is_not_null(),
                    Op::Eqi | Op::Nei if *v == Value::Null => {
                        if op == Op::Eqi {
                            c.is_null()
                        } else {
                            c.is_not_null()
                        }
                    }
                    Op::Eq => c.eq(d.bind(v)),
                    Op::Ne => c.ne(d.bind(v)),
                    Op::Lt => c.lt(d.bind(v)),
                    Op::Lte => c.lte(d.bind(v)),
                    Op::Gt => c.gt(d.bind(v)),
                    Op::Gte => c.gte(d.bind(v)),
                    Op::Eqi => d.lower_col(c).eq(d.lower_val(text())),
                    Op::Nei => d.lower_col(c).ne(d.lower_val(text())),
                    Op::Contains => d.like(c, format!("%{}%", escape_like(&text())), false),
                    Op::NotContains => d.like(c, format!("%{}%", escape_like(&text())), true),
                    Op::Containsi => d.ilike(c, format!("%{}%", escape_like(&text())), false),
                    Op::NotContainsi => d.ilike(c, format!("%{}%", escape_like(&text())), true),
                    Op::StartsWith => d.like(c, format!("{}%", escape_like(&text())), false),
                    Op::StartsWithi => d.ilike(c, format!("{}%", escape_like(&text())), false),
                    Op::EndsWith => d.like(c, format!("%{}", escape_like(&text())), false),
                    Op::EndsWithi => d.ilike(c, format!("%{}", escape_like(&text())), false),
                    Op::In => c.is_in([d.bind(v)]),
                    Op::NotIn => c.is_not_in([d.bind(v)]),
                    Op::Between | Op::Null => Expr::cust("0 = 1"),
                }
            }
            _ => Expr::cust("0 = 1"),
        }
    }

    // ------------------------------------------------------------- populate

    /// Selects every column of the schema's table, in layout order.
    pub fn select_columns(&self, stmt: &mut SelectStatement, schema: &Schema, alias: &str) {
        for c in &schema.layout.columns {
            stmt.expr(col(alias, &c.name));
        }
    }

    /// The batched select of the rows related to the parents `ids` through `attr`: the
    /// target's columns in layout order, then the owner (parent) id. `None` when the
    /// attribute has no storage to read.
    pub fn edge_select(
        &mut self,
        schema: &Schema,
        attr: &Attribute,
        ids: &[i64],
        target: &Schema,
    ) -> Option<EdgeSelect> {
        let t = self.alias();
        let j = self.alias();
        let mut s = Sql::select();
        self.select_columns(&mut s, target, &t);
        s.from_as(Alias::new(&target.layout.table), Alias::new(&t));
        let id_list = ids.iter().copied();
        let (owner_col, order_col): (String, Option<String>) = match &attr.kind {
            AttributeKind::Relation(rel) => {
                let (lt, owner_side) = self.link_table(&rel.storage)?;
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
                s.and_where(col(&j, "entity_id").is_in(id_list)).and_where(
                    self.dialect
                        .not_via_index(col(&j, "field"))
                        .eq(attr.name.clone()),
                );
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
        Some(EdgeSelect {
            select: s,
            target_alias: t,
            link_alias: j,
            order_column: order_col,
        })
    }

    /// Status of D&P relation targets and nested filters, on an edge select.
    pub fn edge_terms(
        &mut self,
        s: &mut SelectStatement,
        attr: &Attribute,
        target: &Schema,
        t: &str,
        filters: Option<&Conjunction>,
        scope: Scope,
    ) {
        if matches!(attr.kind, AttributeKind::Relation(_)) {
            self.scope_terms(s, target, scope, t);
        }
        if let Some(f) = filters {
            let c = self.conjunction(target, f, t);
            s.cond_where(c);
        }
    }

    // ------------------------------------------------------------------ sort

    /// ORDER BY expressions for `sort` on rows aliased `alias`, with Strapi's `id asc`
    /// tie-breaker appended unless the last key already is the id.
    pub fn order_by(
        &mut self,
        schema: &Schema,
        sort: &[SortKey],
        alias: &str,
        tie_breaker: bool,
    ) -> Vec<(Expr, Order)> {
        let mut out = Vec::new();
        // Each run: a key with the keys after it that share its joined rows.
        for run in sort.chunk_by(|_, next| next.shared_hops > 0) {
            for (i, key) in run.iter().enumerate() {
                if let Some(e) = self.sort_expr(schema, run, i, alias) {
                    out.push((e, order_of(key)));
                }
            }
        }
        let last_is_id = sort
            .last()
            .is_some_and(|k| k.path.is_empty() && k.field == FieldRef::Id);
        if tie_breaker && !last_is_id {
            out.push((col(alias, "id"), Order::Asc));
        }
        out
    }

    /// The value key `which` of `run` orders by: its column, or for a path through
    /// relations, components or media a correlated sub-select of its value in the first
    /// related row in the sort's order, so to-many paths never duplicate rows. `run` is
    /// the key with the keys that share its joined rows ([`SortKey::shared_hops`]): the
    /// first row is the first by all of them.
    ///
    /// That first row is Strapi's: its deep sort (`wrapWithDeepSort` in
    /// `@strapi/database`) numbers each root row's joined rows by the sort
    /// (`row_number() OVER (PARTITION BY id ORDER BY …)`, which knex writes without a
    /// NULLS clause) and keeps the first. So the database's own NULL order decides, as it
    /// does here: where NULL sorts first (SQLite and MySQL ascending, PostgreSQL
    /// descending), a root row with a NULL value among its related rows, or a dead end
    /// on the path, sorts as NULL; elsewhere NULLs are passed over, as `MIN`/`MAX` would.
    /// Keys joined on their own (the usual `sort=a.x,a.y`) each read their own first row.
    fn sort_expr(
        &mut self,
        schema: &Schema,
        run: &[SortKey],
        which: usize,
        alias: &str,
    ) -> Option<Expr> {
        let key = run.get(which)?;
        if key.path.is_empty() {
            return self.field_column(schema, key.field).map(|c| col(alias, &c));
        }
        let (mut s, columns, _) = self.sort_rows(schema, run, Some(alias))?;
        s.expr(columns.get(which)?.clone());
        for (c, k) in columns.into_iter().zip(run) {
            s.order_by_expr(c, order_of(k));
        }
        s.limit(1);
        Some(Expr::SubQuery(None, Box::new(s.into())))
    }

    /// The related rows a sort key's path reaches from the root row `alias` (a correlated
    /// select without its result column), and the sorted column of its last hop.
    fn sort_path(
        &mut self,
        schema: &Schema,
        key: &SortKey,
        alias: &str,
    ) -> Option<(SelectStatement, Expr)> {
        self.sort_path_from(schema, key, Some(alias))
            .map(|(s, c, _)| (s, c))
    }

    /// [`Builder::sort_path`]; with no root alias, the path is not tied to a root row
    /// and the first hop's key of the root row is returned too (to select it).
    fn sort_path_from(
        &mut self,
        schema: &Schema,
        key: &SortKey,
        alias: Option<&str>,
    ) -> Option<(SelectStatement, Expr, Option<Expr>)> {
        // A run of one key: `sort_rows` reads no `shared_hops` of a run's first key.
        let (s, mut columns, root_key) =
            self.sort_rows(schema, std::slice::from_ref(key), alias)?;
        Some((s, columns.pop()?, root_key))
    }

    /// The joined rows of the keys of `run` (each after the first shares its leading
    /// hops with the one before), reached from the root row `alias`, and each key's
    /// column. With no root alias, the rows are not tied to a root row and the first
    /// hop's key of the root row is returned too (to select it). Every key of `run` has
    /// a path, and all of them start with the same hop.
    ///
    /// The rows are Strapi's: its deep sort `LEFT JOIN`s each hop, so a link row without
    /// its related row, or a related row without rows at the next hop, is a row whose
    /// value is NULL. The first hop's link rows are the statement's own (a root row
    /// without any has no row here, which a scalar sub-select reads as NULL too).
    fn sort_rows(
        &mut self,
        schema: &Schema,
        run: &[SortKey],
        alias: Option<&str>,
    ) -> Option<(SelectStatement, Vec<Expr>, Option<Expr>)> {
        let mut s = Sql::select();
        let mut root_key = None;
        let mut columns = Vec::with_capacity(run.len());
        // The related rows' alias and schema at each hop of the key before.
        let mut hops: Vec<(String, SchemaId)> = Vec::new();
        for (i, key) in run.iter().enumerate() {
            let shared = if i == 0 { 0 } else { key.shared_hops };
            hops.truncate(shared.min(key.path.len()));
            for (attr, _) in &key.path[hops.len()..] {
                let parent = match hops.last() {
                    Some((_, sid)) => self.schema(*sid),
                    None => schema,
                };
                let hop = self.hop(parent, *attr)?;
                let (jt, ja) = (Alias::new(&hop.join.0), Alias::new(&hop.join.1));
                match hops.last() {
                    None if i == 0 => {
                        s.from_as(jt, ja);
                        for c in hop.join_on {
                            s.and_where(c);
                        }
                        match alias {
                            Some(a) => {
                                s.and_where(hop.parent_key.eq(col(a, "id")));
                            }
                            None => root_key = Some(hop.parent_key),
                        }
                    }
                    // A key of the run that shares no hop: not a run's key.
                    None => return None,
                    Some((p, _)) => {
                        let on = hop
                            .join_on
                            .into_iter()
                            .fold(hop.parent_key.eq(col(p, "id")), ExprTrait::and);
                        s.join_as(sea_query::JoinType::LeftJoin, jt, ja, on);
                    }
                }
                s.join_as(
                    sea_query::JoinType::LeftJoin,
                    Alias::new(&hop.table),
                    Alias::new(&hop.alias),
                    hop.target_on,
                );
                hops.push((hop.alias, hop.schema));
            }
            let (leaf, sid) = hops.last()?;
            let column = self.field_column(self.schema(*sid), key.field)?;
            columns.push(col(leaf, &column));
        }
        Some((s, columns, root_key))
    }

    /// The distinct non-null values a sort key through a path can take, in its order:
    /// `SELECT DISTINCT leaf.column FROM leaf WHERE leaf.column IS NOT NULL ORDER BY …`,
    /// at most `limit` of them. `None` for a key without a path.
    pub fn sort_values(
        &mut self,
        schema: &Schema,
        key: &SortKey,
        limit: u64,
    ) -> Option<SelectStatement> {
        if key.path.is_empty() {
            return None;
        }
        let mut cur_schema = schema;
        for (attr, _) in &key.path {
            let hop = self.hop(cur_schema, *attr)?;
            cur_schema = self.schema(hop.schema);
        }
        let column = self.field_column(cur_schema, key.field)?;
        let alias = self.alias();
        let c = col(&alias, &column);
        let mut s = Sql::select();
        s.distinct()
            .expr(c.clone())
            .from_as(Alias::new(&cur_schema.layout.table), Alias::new(&alias))
            .and_where(c.clone().is_not_null())
            .order_by_expr(
                c,
                match key.direction {
                    Direction::Asc => Order::Asc,
                    Direction::Desc => Order::Desc,
                },
            )
            .limit(limit);
        Some(s)
    }

    /// The root rows (`alias`) whose value for a sort key through a path (the smallest
    /// related value ascending, the largest descending: see `sort_expr`) is `value`, or
    /// NULL when `value` is `None`: some related row has `value` and none is past it
    /// (`EXISTS (… = v) AND NOT EXISTS (… > v)`, `<` ascending), or no related row has a
    /// value (`NOT EXISTS (… IS NOT NULL)`). With `RelatedPlan::SemiJoin` the first part
    /// is `id IN (SELECT key … WHERE … = v)`: the related rows with the value are found
    /// once (for counting a group), rather than probed per root row (for reading a page
    /// in order).
    pub fn sort_group(
        &mut self,
        schema: &Schema,
        group: SortGroup<'_>,
        alias: &str,
    ) -> Option<Expr> {
        let SortGroup { key, value, plan } = group;
        let Some(v) = value else {
            let (mut has, c) = self.sort_path(schema, key, alias)?;
            has.expr(Expr::val(1)).and_where(c.is_not_null());
            return Some(Expr::exists(has).not());
        };
        let (mut past, c2) = self.sort_path(schema, key, alias)?;
        past.expr(Expr::val(1));
        past.and_where(match key.direction {
            Direction::Asc => c2.lt(v.clone()),
            Direction::Desc => c2.gt(v.clone()),
        });
        let has = match plan {
            RelatedPlan::Correlated => {
                let (mut has, c) = self.sort_path(schema, key, alias)?;
                has.expr(Expr::val(1)).and_where(c.eq(v));
                Expr::exists(has)
            }
            RelatedPlan::SemiJoin => {
                let (mut has, c, root_key) = self.sort_path_from(schema, key, None)?;
                has.expr(root_key?).and_where(c.eq(v));
                col(alias, "id").in_subquery(has)
            }
        };
        Some(has.and(Expr::exists(past).not()))
    }
}

/// The SQL order of a sort key's direction.
fn order_of(key: &SortKey) -> Order {
    match key.direction {
        Direction::Asc => Order::Asc,
        Direction::Desc => Order::Desc,
    }
}

/// Whether a root filter pins its rows through an index: an `id` or `documentId`
/// equality (or `$in`) at the top level, so that few parent rows are ever examined.
fn pins_rows(c: &Conjunction) -> bool {
    c.0.iter().any(|cond| {
        matches!(
            cond,
            Condition::Field {
                field: FieldRef::Id | FieldRef::DocumentId,
                op: Op::Eq | Op::In,
                operand: Operand::One(_) | Operand::List(_),
            }
        )
    })
}

/// How a conjunction evaluates on a row whose every column is NULL (SQL three-valued
/// logic): `Some(true)`, `Some(false)` or `None` (unknown, which WHERE treats as false).
/// Used to give relation conditions LEFT JOIN semantics for entries with no related row.
fn null_row(c: &Conjunction, negated: bool) -> Option<bool> {
    let mut acc = Some(!negated); // identity of AND (or of OR when negated)
    for cond in &c.0 {
        let v = null_row_condition(cond, negated);
        acc = if negated { or3(acc, v) } else { and3(acc, v) };
    }
    acc
}

fn null_row_condition(c: &Condition, negated: bool) -> Option<bool> {
    let v = match c {
        Condition::And(items) | Condition::Or(items) => {
            let is_and = matches!(c, Condition::And(_));
            let mut acc = Some(is_and);
            for item in items {
                let x = null_row(item, false);
                acc = if is_and { and3(acc, x) } else { or3(acc, x) };
            }
            acc
        }
        Condition::Not(inner) => null_row(inner, false).map(|b| !b),
        Condition::Field {
            op: Op::Null,
            operand: Operand::Flag(is_null),
            ..
        } => Some(*is_null),
        Condition::Field {
            op: Op::Eq | Op::Eqi,
            operand: Operand::One(Value::Null),
            ..
        } => Some(true),
        Condition::Field {
            op: Op::Ne | Op::Nei,
            operand: Operand::One(Value::Null),
            ..
        } => Some(false),
        Condition::Field { .. } => None,
        // Through a further LEFT JOIN the nested row is all-NULL too.
        Condition::Related { filter, .. } => null_row(filter, false),
        Condition::RelatedNull { is_null, .. } => Some(*is_null),
        Condition::Localizations(_) => None,
    };
    if negated { v.map(|b| !b) } else { v }
}

fn and3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

fn or3(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// The text form of a value for LIKE-style operators.
fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Text(s) | Value::Date(s) | Value::Time(s) | Value::BigInt(s) => s.clone(),
        Value::Number(n) => crate::query::values::js_number_string(*n),
        Value::Bool(b) => b.to_string(),
        Value::DateTime(ms) => crate::query::values::iso_string(*ms),
    }
}
