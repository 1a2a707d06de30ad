//! Query → SQL, with sea-query. Builds the root select and count of a list request and the
//! batched select of each populated edge. Dialect-free: statements are rendered by the
//! caller with a sea-query backend; the few expressions sea-query has no builder for
//! (case-insensitive LIKE, correlated aggregates) go through [`Dialect`].
//!
//! Semantics (see `strapi-semantics.md` §2 and ARCHITECTURE.md):
//! * a condition on a relation, component or media means "some related row matches" and is
//!   an `EXISTS` sub-select, so rows are never duplicated and counts are exact;
//! * every value is bound; identifiers come only from the model's layout.

use sea_query::{Alias, Cond, Expr, ExprTrait, Func, Order, Query as Sql, SelectStatement};

use crate::query::{
    Condition, Conjunction, Direction, FieldRef, LocaleSelector, Op, Operand, PublicationFilter,
    Query, SortKey, Status, Value,
};
use crate::schema::{
    AttrId, AttributeKind, ColumnRole, LinkTable, Model, RelationStorage, Schema, SchemaId,
};

/// The SQL dialect a statement will be rendered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (the embedded default).
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl Dialect {
    /// `LOWER(col)` as Strapi writes it: PostgreSQL casts to text first, so the
    /// case-insensitive operators also work on numbers.
    fn lower_col(self, col: Expr) -> Expr {
        match self {
            Dialect::Sqlite => Func::lower(col).into(),
            Dialect::Postgres => Expr::cust_with_exprs("LOWER(CAST($1 AS VARCHAR))", [col]),
        }
    }

    /// `LOWER(?)` of a bound value.
    fn lower_val(self, v: String) -> Expr {
        match self {
            Dialect::Sqlite => Expr::cust_with_exprs("LOWER(?)", [Expr::val(v)]),
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
        }
    }
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
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
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
    /// Alias of the related rows of the last `exists` sub-select built.
    last_hop_alias: Option<String>,
}

/// A related table reached from a parent row: how to join it.
struct Hop {
    /// FROM clause table of the related rows (and its alias).
    table: String,
    /// The join table, if any, with its alias.
    join: Option<(String, String)>,
    /// Conditions tying the hop to the parent row, given the aliases.
    link: Vec<Expr>,
    /// Alias of the related rows.
    alias: String,
    /// Schema of the related rows.
    schema: SchemaId,
}

impl<'a> Builder<'a> {
    /// A builder for one request.
    pub fn new(model: &'a Model, dialect: Dialect, default_locale: &'a str) -> Self {
        Builder {
            model,
            dialect,
            default_locale,
            next_alias: 0,
            last_hop_alias: None,
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

    /// WHERE of the root rows of a list request: status, locale, publication filter,
    /// search and filters.
    pub fn root_where(&mut self, query: &Query, alias: &str) -> Cond {
        let schema = self.schema(query.schema);
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
            cond = cond.add(self.publication_filter(schema, pf, alias));
        }
        if let Some(q) = &query.search {
            cond = cond.add(self.search(schema, q, alias));
        }
        if let Some(f) = &query.filters {
            cond = cond.add(self.conjunction(schema, f, alias));
        }
        cond
    }

    /// `published_at IS [NOT] NULL` for draft-and-publish types.
    pub fn status_term(&self, schema: &Schema, status: Status, alias: &str) -> Option<Expr> {
        schema.draft_and_publish.then(|| match status {
            Status::Published => col(alias, "published_at").is_not_null(),
            Status::Draft => col(alias, "published_at").is_null(),
        })
    }

    fn publication_filter(&mut self, schema: &Schema, pf: PublicationFilter, alias: &str) -> Expr {
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
                s.and_where(Expr::cust_with_exprs(
                    "? IS ?",
                    [col(&other, "locale"), col(alias, "locale")],
                ));
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
        match pf {
            PublicationFilter::NeverPublished => Expr::exists(sibling(true, true)).not(),
            PublicationFilter::HasPublishedVersion => Expr::exists(sibling(true, true)),
            PublicationFilter::NeverPublishedDocument => Expr::exists(sibling(true, false)).not(),
            PublicationFilter::HasPublishedVersionDocument => Expr::exists(sibling(true, false)),
            PublicationFilter::Modified => {
                Expr::exists(sibling(true, true)).and(Expr::exists(same_updated(true)).not())
            }
            PublicationFilter::Unmodified => Expr::exists(same_updated(true)),
            PublicationFilter::PublishedWithoutDraft => Expr::exists(sibling(false, true)).not(),
            PublicationFilter::PublishedWithDraft => Expr::exists(sibling(false, true)),
        }
    }

    /// `_q`: any searchable string-like column (or the id) contains the text.
    fn search(&self, schema: &Schema, q: &str, alias: &str) -> Expr {
        let pattern = format!("%{}%", escape_like(q));
        let mut any = Cond::any();
        any = any.add(self.dialect.like(col(alias, "id"), pattern.clone(), false));
        for c in &schema.layout.columns {
            let searchable = match c.role {
                ColumnRole::DocumentId | ColumnRole::Locale => true,
                ColumnRole::Attribute(id) => schema.attributes.get(id.index()).is_some_and(|a| {
                    a.searchable
                        && !a.private
                        && matches!(
                            a.kind.scalar(),
                            Some(
                                crate::schema::ScalarType::String
                                    | crate::schema::ScalarType::Text
                                    | crate::schema::ScalarType::RichText
                                    | crate::schema::ScalarType::Enumeration { .. }
                                    | crate::schema::ScalarType::Email
                                    | crate::schema::ScalarType::Uid { .. }
                            )
                        )
                }),
                _ => false,
            };
            if searchable {
                any = any.add(
                    self.dialect
                        .like(col(alias, &c.name), pattern.clone(), false),
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
                let mut sub = self.exists(schema, *attr, alias, None);
                let target_schema = self.schema(*target);
                if let Some(hop_alias) = self.last_hop_alias.take() {
                    let inner = self.conjunction_as(target_schema, filter, &hop_alias, negated);
                    sub.cond_where(inner);
                }
                let found = Expr::exists(sub);
                if matches_empty {
                    // A LEFT JOIN's all-NULL row matches too: entries with no related row.
                    let none = Expr::exists(self.exists(schema, *attr, alias, None)).not();
                    Cond::any().add(found).add(none)
                } else {
                    Cond::all().add(found)
                }
            }
            Condition::RelatedNull { attr, is_null } => {
                let sub = self.exists(schema, *attr, alias, None);
                let e = Expr::exists(sub);
                Cond::all().add(if *is_null != negated { e.not() } else { e })
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

    /// `SELECT 1 FROM <related rows> WHERE <linked to parent> [AND <filter>]`.
    fn exists(
        &mut self,
        schema: &Schema,
        attr: AttrId,
        parent_alias: &str,
        filter: Option<(SchemaId, &Conjunction)>,
    ) -> SelectStatement {
        let mut s = Sql::select();
        s.expr(Expr::val(1));
        let Some(hop) = self.hop(schema, attr, parent_alias) else {
            s.and_where(Expr::cust("0 = 1"));
            self.last_hop_alias = None;
            return s;
        };
        s.from_as(Alias::new(&hop.table), Alias::new(&hop.alias));
        if let Some((jt, ja)) = &hop.join {
            // The join table drives the link; the related table is joined to it.
            s.from_as(Alias::new(jt), Alias::new(ja));
        }
        for l in hop.link {
            s.and_where(l);
        }
        if let Some((_, f)) = filter {
            let target = self.schema(hop.schema);
            let c = self.conjunction(target, f, &hop.alias);
            s.cond_where(c);
        }
        self.last_hop_alias = Some(hop.alias);
        s
    }

    /// How to reach the rows related through `attr` from a parent row aliased `parent`.
    fn hop(&mut self, schema: &Schema, attr: AttrId, parent: &str) -> Option<Hop> {
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
                    join: Some((lt.table.clone(), j.clone())),
                    link: vec![
                        col(&j, parent_col).equals((Alias::new(parent), Alias::new("id"))),
                        col(&j, target_col).equals((Alias::new(&t), Alias::new("id"))),
                    ],
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
                    join: Some((cmps, j.clone())),
                    link: vec![
                        col(&j, "entity_id").equals((Alias::new(parent), Alias::new("id"))),
                        col(&j, "field").eq(a.name.clone()),
                        col(&j, "component_type").eq(cs.uid.to_string()),
                        col(&j, "cmp_id").equals((Alias::new(&t), Alias::new("id"))),
                    ],
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
                    join: Some((mph.table.clone(), j.clone())),
                    link: vec![
                        col(&j, &mph.id_column).equals((Alias::new(parent), Alias::new("id"))),
                        col(&j, &mph.type_column).eq(schema.uid.to_string()),
                        col(&j, "field").eq(a.name.clone()),
                        col(&j, &mph.owner_column).equals((Alias::new(&t), Alias::new("id"))),
                    ],
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
            (Op::In, Operand::List(vs)) => c.is_in(vs.iter().map(bind)),
            (Op::NotIn, Operand::List(vs)) => c.is_not_in(vs.iter().map(bind)),
            (Op::Between, Operand::Range(lo, hi)) => c.between(bind(lo), bind(hi)),
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
                    Op::Eq => c.eq(bind(v)),
                    Op::Ne => c.ne(bind(v)),
                    Op::Lt => c.lt(bind(v)),
                    Op::Lte => c.lte(bind(v)),
                    Op::Gt => c.gt(bind(v)),
                    Op::Gte => c.gte(bind(v)),
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
                    Op::In => c.is_in([bind(v)]),
                    Op::NotIn => c.is_not_in([bind(v)]),
                    Op::Between | Op::Null => Expr::cust("0 = 1"),
                }
            }
            _ => Expr::cust("0 = 1"),
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
        for key in sort {
            let order = match key.direction {
                Direction::Asc => Order::Asc,
                Direction::Desc => Order::Desc,
            };
            if let Some(e) = self.sort_expr(schema, key, alias) {
                out.push((e, order));
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

    /// The value a sort key orders by: the column itself, or for a path through relations,
    /// components or media a correlated sub-select of the smallest (ascending) or largest
    /// (descending) related value, so to-many paths never duplicate rows.
    fn sort_expr(&mut self, schema: &Schema, key: &SortKey, alias: &str) -> Option<Expr> {
        if key.path.is_empty() {
            return self.field_column(schema, key.field).map(|c| col(alias, &c));
        }
        let mut s = Sql::select();
        let mut cur_schema = schema;
        let mut cur_alias = alias.to_string();
        for (attr, _) in &key.path {
            let hop = self.hop(cur_schema, *attr, &cur_alias)?;
            s.from_as(Alias::new(&hop.table), Alias::new(&hop.alias));
            if let Some((jt, ja)) = &hop.join {
                s.from_as(Alias::new(jt), Alias::new(ja));
            }
            for l in hop.link {
                s.and_where(l);
            }
            cur_alias = hop.alias;
            cur_schema = self.schema(hop.schema);
        }
        let column = self.field_column(cur_schema, key.field)?;
        let c = col(&cur_alias, &column);
        s.expr(match key.direction {
            Direction::Asc => Func::min(c),
            Direction::Desc => Func::max(c),
        });
        Some(Expr::SubQuery(None, Box::new(s.into())))
    }
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
