//! The row operations of a document write, as sea-query statements run through a
//! [`Writer`]: the versions of a document, a row inserted, updated, copied or deleted with
//! everything that hangs off it (component rows and their `_cmps` links, relation link
//! rows on either side, media links in `files_related_mph`), and the link rows a copy
//! needs. What to do with them (Strapi's create, update, publish and delete) is
//! `crate::write`'s business; this module only knows Strapi's layout.
//!
//! Invariants:
//! * every value is bound; identifiers come from the model's layout;
//! * rows are read and written in a fixed order (attribute order, then `order`, then id),
//!   so a write numbers its new rows as Strapi numbers them.

use sea_query::{Alias, Condition, Expr, ExprTrait, Order, Query as Sql, SelectStatement};

use super::StoreError;
use super::cascade::Cascades;
use super::decode::Decode;
use super::seam::{Cell, Change, RowRef, StoredValue, Writer, query_map};
use super::sql::{Dialect, mysql_datetime};
use crate::schema::{
    AttributeKind, ColumnRole, ColumnType, LinkTable, Model, MorphTable, Relation, RelationStorage,
    Schema, SchemaId,
};

/// Rows by id, each with some of its values as the API shows them (a JSON object).
pub type ShownRows = Vec<(i64, serde_json::Map<String, serde_json::Value>)>;

/// One row of a document: a locale's draft or published version.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    /// The row id.
    pub id: i64,
    /// Its `locale` (NULL for types that are not localized).
    pub locale: Option<String>,
    /// Whether `published_at` is set.
    pub published: bool,
}

/// A `_cmps` row: one component instance of an entity.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentLink {
    /// The component row's id.
    pub cmp_id: i64,
    /// The component's uid (`shared.seo`).
    pub component_type: String,
    /// The attribute it fills.
    pub field: String,
    /// Its place in a repeatable component or dynamic zone (NULL for a single component
    /// written on create).
    pub order: Option<f64>,
}

/// A `files_related_mph` row: one file attached to a media attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaLink {
    /// The file's id.
    pub file_id: i64,
    /// The media attribute.
    pub field: String,
    /// Its place in the attribute's list.
    pub order: Option<f64>,
}

/// One link row seen from one of its two ends.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkRow {
    /// The link row's own id.
    pub id: i64,
    /// The row at the other end.
    pub other: i64,
    /// The owner-side order column (`tag_ord`), when the table has one.
    pub owner_order: Option<f64>,
    /// The inverse-side order column (`article_ord`), when the table has one.
    pub inverse_order: Option<f64>,
}

/// Which end of a link table a row id is looked up by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The owner column (`article_id` of `articles_tags_lnk`).
    Owner,
    /// The target column (`tag_id`).
    Target,
}

impl End {
    fn column(self, lt: &LinkTable) -> &str {
        match self {
            End::Owner => &lt.owner_column,
            End::Target => &lt.target_column,
        }
    }

    fn other(self) -> End {
        match self {
            End::Owner => End::Target,
            End::Target => End::Owner,
        }
    }
}

/// A link table that touches a schema's rows, and which end holds them.
#[derive(Debug, Clone)]
pub struct Touching<'m> {
    /// The link table.
    pub table: &'m LinkTable,
    /// The end that holds this schema's rows.
    pub end: End,
    /// The schema that owns the relation.
    pub owner: SchemaId,
    /// The owning attribute's name.
    pub attribute: &'m str,
}

/// Row operations inside one write transaction.
pub struct Rows<'a> {
    /// The transaction.
    pub w: &'a dyn Writer,
    /// The content model.
    pub model: &'a Model,
    /// The link rows the database deletes by itself ([`Rows::delete_rows`] leaves them).
    pub cascades: &'a Cascades,
    /// How many changing statements these operations have sent ([`Rows::changes`]).
    changes: std::cell::Cell<u64>,
    /// How many component rows [`Rows::copy_component`] and its kin have copied.
    copied_rows: std::cell::Cell<u64>,
    /// The steps of work that ran beside others in lists made side by side: what those
    /// lists' work counted beyond the time they took ([`Rows::in_strapi_order_from`]).
    overlapped: std::cell::Cell<u64>,
    /// How side-by-side work is timed now ([`Timing`]).
    timing: std::cell::Cell<Timing>,
}

/// Where the work of a [`Rows`] stood at one moment ([`Rows::work_mark`]).
#[derive(Clone, Copy, Debug)]
struct WorkMark {
    changes: u64,
    copied: u64,
    overlapped: u64,
}

/// How Strapi times the items it makes side by side ([`Rows::in_strapi_order`]), which
/// decides whose row is inserted first and so gets the lower id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Timing {
    /// Inside the request's transaction, where every statement waits for the one before:
    /// each changing statement is one step of work.
    #[default]
    InTransaction,
    /// Outside any transaction: i18n's sync of shared attributes to the other locales runs
    /// after the document service's transaction has committed. There the entity
    /// manager's `create` attaches each new row's relations in a transaction of its own
    /// (`BEGIN`, the links, `COMMIT`), which holds SQLite's one connection while the
    /// other items wait in line. So a row costs two steps (its insert and that
    /// transaction) however many links it has, and its links are written at once.
    OwnTransactions,
}

fn alias(name: &str) -> Alias {
    Alias::new(name)
}

/// The rows of `document_id` in other locales than `locale`, in one state (published or
/// draft).
fn other_locales(document_id: &str, locale: &str, published: bool) -> Condition {
    let published_at = Expr::col(alias("published_at"));
    Condition::all()
        .add(Expr::col(alias("document_id")).eq(document_id))
        .add(Expr::col(alias("locale")).ne(locale))
        .add(if published {
            published_at.is_not_null()
        } else {
            published_at.is_null()
        })
}

/// The columns of a link row of `lt` (its order columns when the table has them).
fn link_values(
    lt: &LinkTable,
    owner: i64,
    target: i64,
    owner_order: Option<f64>,
    inverse_order: Option<f64>,
) -> Vec<(&str, StoredValue)> {
    let mut values = vec![
        (lt.owner_column.as_str(), StoredValue::Integer(owner)),
        (lt.target_column.as_str(), StoredValue::Integer(target)),
    ];
    values.extend(order_values(lt, owner_order, inverse_order));
    values
}

/// The values of `lt`'s order columns (those it has), NULL for a missing order.
fn order_values(
    lt: &LinkTable,
    owner_order: Option<f64>,
    inverse_order: Option<f64>,
) -> Vec<(&str, StoredValue)> {
    let order = |o: Option<f64>| o.map_or(StoredValue::Null, StoredValue::Real);
    let mut values = Vec::new();
    if let Some(c) = &lt.owner_order {
        values.push((c.as_str(), order(owner_order)));
    }
    if let Some(c) = &lt.inverse_order {
        values.push((c.as_str(), order(inverse_order)));
    }
    values
}

fn sea_error(e: sea_query::error::Error) -> StoreError {
    StoreError::Other(format!("cannot build the statement: {e}"))
}

/// A stored value as a bound expression, in the form `dialect` writes its column: a
/// timestamp is epoch milliseconds on SQLite (Strapi's storage) and PostgreSQL (the
/// binder encodes it in the column's type), UTC text on MySQL.
pub fn stored_expr(dialect: Dialect, v: &StoredValue) -> Expr {
    match v {
        StoredValue::Null => Expr::val(Option::<i64>::None),
        StoredValue::Integer(i) => Expr::val(*i),
        StoredValue::Real(f) => Expr::val(*f),
        StoredValue::Text(t) => Expr::val(t.clone()),
        StoredValue::Blob(b) => Expr::val(b.clone()),
        StoredValue::JsonBoolean(b) => match dialect {
            Dialect::Mysql | Dialect::Sqlite => Expr::val(i64::from(*b)),
            Dialect::Postgres => Expr::val(b.to_string()),
        },
        StoredValue::Timestamp(ms) => match dialect {
            Dialect::Mysql => Expr::val(mysql_datetime(*ms)),
            Dialect::Sqlite | Dialect::Postgres => Expr::val(*ms),
        },
    }
}

/// A cell read back as the value to store again.
pub fn stored_from_cell(c: Cell<'_>) -> StoredValue {
    match c {
        Cell::Null => StoredValue::Null,
        Cell::Int(i) | Cell::BigInt(i) => StoredValue::Integer(i),
        Cell::Float(f) => StoredValue::Real(f),
        Cell::Bool(b) => StoredValue::Integer(i64::from(b)),
        Cell::Text(t) => StoredValue::Text(t.into_owned()),
        Cell::Bytes(b) => StoredValue::Blob(b.to_vec()),
        Cell::DateTime(ms) => StoredValue::Timestamp(ms),
    }
}

/// A cell as Strapi stores it again after reading it into JavaScript. An integer its
/// driver hands over as a JavaScript number ([`Cell::Int`]: better-sqlite3's; node-postgres
/// and mysql2 hand a `bigint` over as exact text) goes through a double, so past 2^53 it
/// is rounded; SQLite's integer affinity then stores the double as an integer again when
/// it is one strictly inside 64 bits, else as a real (`9223372036854775807` comes back
/// as `9.223372036854776e18`, as Strapi's publish stores it). Anything else is kept.
pub fn through_javascript(c: Cell<'_>) -> StoredValue {
    match c {
        Cell::Int(i) if i.unsigned_abs() > 1 << 53 => {
            let f = i as f64;
            match f > i64::MIN as f64 && f < i64::MAX as f64 {
                true => StoredValue::Integer(f as i64),
                false => StoredValue::Real(f),
            }
        }
        c => stored_from_cell(c),
    }
}

fn opt_f64(r: &dyn RowRef, i: usize) -> Result<Option<f64>, StoreError> {
    Ok(match r.cell(i)? {
        Cell::Null => None,
        Cell::Int(n) | Cell::BigInt(n) => Some(n as f64),
        Cell::Float(f) => Some(f),
        Cell::Text(t) => t.trim().parse().ok(),
        _ => None,
    })
}

impl<'a> Rows<'a> {
    /// Row operations on `w` for `model`, deleting every link row explicitly.
    pub fn new(w: &'a dyn Writer, model: &'a Model) -> Self {
        Rows {
            w,
            model,
            cascades: Cascades::none(),
            changes: std::cell::Cell::new(0),
            copied_rows: std::cell::Cell::new(0),
            overlapped: std::cell::Cell::new(0),
            timing: std::cell::Cell::new(Timing::InTransaction),
        }
    }

    /// Runs `work` with side-by-side items timed as `timing` says ([`Timing`]), then
    /// restores the timing before it.
    pub fn timed<T>(&self, timing: Timing, work: impl FnOnce() -> T) -> T {
        let before = self.timing.replace(timing);
        let out = work();
        self.timing.set(before);
        out
    }

    /// Where the work stands now, to measure the time taken since ([`Rows::work_since`]).
    fn work_mark(&self) -> WorkMark {
        WorkMark {
            changes: self.changes(),
            copied: self.copied_rows.get(),
            overlapped: self.overlapped.get(),
        }
    }

    /// The steps of time the work done since `mark` took ([`Timing`]): its steps, less
    /// those that ran beside others in lists made side by side.
    fn work_since(&self, mark: WorkMark) -> u64 {
        let steps = match self.timing.get() {
            Timing::InTransaction => self.changes() - mark.changes,
            Timing::OwnTransactions => 2 * (self.copied_rows.get() - mark.copied),
        };
        steps.saturating_sub(self.overlapped.get() - mark.overlapped)
    }

    /// How many changing statements (inserts, updates, deletes) these operations have sent
    /// so far: the measure of work by which items created side by side are ordered
    /// ([`Rows::in_strapi_order`]).
    pub fn changes(&self) -> u64 {
        self.changes.get()
    }

    fn count_change(&self) {
        self.changes.set(self.changes.get() + 1);
    }

    /// These row operations, leaving to the database the link rows it deletes by itself.
    pub fn with_cascades(self, cascades: &'a Cascades) -> Self {
        Rows { cascades, ..self }
    }

    fn dialect(&self) -> Dialect {
        self.w.dialect()
    }

    fn run(&self, change: Change<'_>) -> Result<u64, StoreError> {
        self.count_change();
        self.w.execute(change)
    }

    /// Runs a changing statement built elsewhere (the relations' link and `_cmps`
    /// statements), counted as one statement of work ([`Rows::changes`]).
    pub fn execute(&self, change: Change<'_>) -> Result<u64, StoreError> {
        self.run(change)
    }

    fn select_from(&self, table: &str) -> SelectStatement {
        let mut s = Sql::select();
        s.from(alias(table));
        s
    }

    /// Every version (row) of a document, by id.
    pub fn versions(&self, schema: &Schema, document_id: &str) -> Result<Vec<Version>, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.columns(["id", "locale", "published_at"].map(alias))
            .and_where(Expr::col(alias("document_id")).eq(document_id))
            .order_by(alias("id"), Order::Asc);
        query_map(self.w, &s, |r| {
            Ok(Version {
                id: r.int(0)?,
                locale: r.opt_text(1)?,
                published: !matches!(r.cell(2)?, Cell::Null),
            })
        })
    }

    /// Whether the database sorts NULL before any value in an ascending order (SQLite and
    /// MySQL; PostgreSQL sorts it last).
    pub fn nulls_sort_first(&self) -> bool {
        !matches!(self.dialect(), Dialect::Postgres)
    }

    /// The other locales' rows of `document_id` in one state (published or draft), each
    /// with its locale, in the order Strapi's i18n sync finds and then writes them
    /// (`findMany` without an order): the documents index's (by locale) on SQLite and
    /// MySQL, the table's physical order on PostgreSQL, whose planner scans a small table
    /// instead (`ctid`).
    pub fn other_locale_rows(
        &self,
        schema: &Schema,
        document_id: &str,
        locale: &str,
        published: bool,
    ) -> Result<Vec<(i64, Option<String>)>, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("id"))
            .column(alias("locale"))
            .cond_where(other_locales(document_id, locale, published));
        match self.dialect() {
            Dialect::Postgres => s.order_by_expr(Expr::cust("ctid"), Order::Asc),
            Dialect::Sqlite | Dialect::Mysql => s.order_by(alias("locale"), Order::Asc),
        };
        query_map(self.w, &s, |r| Ok((r.int(0)?, r.opt_text(1)?)))
    }

    /// The row a new localization of `document_id` copies its non-localized attributes
    /// from: Strapi's `copyNonLocalizedFields` takes the first row by `published_at`
    /// descending, in the database's own order of NULLs (a published row first on SQLite
    /// and MySQL, a draft first on PostgreSQL), so the database orders it here too. Its
    /// query names no second key, so rows that tie come in the order the database reads
    /// them, which is the order of the documents index it scans (`document_id`,
    /// `locale`, `published_at`): by `locale`. On PostgreSQL that decides between the
    /// drafts, which come first (`gen-i18n-lifecycle-42#25`: with `en` and `de` drafts
    /// the `de` draft is copied, the index scan's first; `EXPLAIN` shows it).
    pub fn localization_source(
        &self,
        schema: &Schema,
        document_id: &str,
    ) -> Result<Option<i64>, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("id"))
            .and_where(Expr::col(alias("document_id")).eq(document_id))
            .order_by(alias("published_at"), Order::Desc)
            .order_by(alias("locale"), Order::Asc)
            .order_by(alias("id"), Order::Asc)
            .limit(1);
        Ok(query_map(self.w, &s, |r| r.int(0))?.into_iter().next())
    }

    /// The first row of a type, if any (the document of a single type).
    pub fn any_document(&self, schema: &Schema) -> Result<Option<String>, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("document_id"))
            .order_by(alias("id"), Order::Asc)
            .limit(1);
        Ok(query_map(self.w, &s, |r| r.opt_text(0))?
            .into_iter()
            .flatten()
            .next())
    }

    /// Inserts a row of `table` and returns its id.
    pub fn insert(&self, table: &str, values: &[(&str, StoredValue)]) -> Result<i64, StoreError> {
        let dialect = self.dialect();
        let mut ins = Sql::insert();
        ins.into_table(alias(table));
        if values.is_empty() {
            // A component without attributes (`shared.media` with only a file): a row with
            // its id alone.
            ins.or_default_values();
        } else {
            ins.columns(values.iter().map(|(c, _)| alias(c)))
                .values(values.iter().map(|(_, v)| stored_expr(dialect, v)))
                .map_err(sea_error)?;
        }
        self.count_change();
        self.w.insert_id(&ins)
    }

    /// Sets columns of one row.
    pub fn update(
        &self,
        table: &str,
        id: i64,
        values: &[(&str, StoredValue)],
    ) -> Result<(), StoreError> {
        if values.is_empty() {
            return Ok(());
        }
        let dialect = self.dialect();
        let mut up = Sql::update();
        up.table(alias(table))
            .values(
                values
                    .iter()
                    .map(|(c, v)| (alias(c), stored_expr(dialect, v))),
            )
            .and_where(Expr::col(alias("id")).eq(id));
        self.run(Change::Update(&up))?;
        Ok(())
    }

    /// Sets columns of the rows of a document in every locale but `locale`, draft or
    /// published (`published`): Strapi's copy of non-localized attributes.
    pub fn update_other_locales(
        &self,
        schema: &Schema,
        document_id: &str,
        locale: &str,
        published: bool,
        values: &[(&str, StoredValue)],
    ) -> Result<(), StoreError> {
        if values.is_empty() {
            return Ok(());
        }
        let dialect = self.dialect();
        let mut up = Sql::update();
        up.table(alias(&schema.layout.table))
            .values(
                values
                    .iter()
                    .map(|(c, v)| (alias(c), stored_expr(dialect, v))),
            )
            .cond_where(other_locales(document_id, locale, published));
        self.run(Change::Update(&up))?;
        Ok(())
    }

    /// The other locales' rows of `document_id` in one state with some of their values
    /// as the API shows them (`columns`: each column, the key it is shown under and how it
    /// decodes), each row a JSON object.
    pub fn shown_other_locales(
        &self,
        schema: &Schema,
        document_id: &str,
        locale: &str,
        published: bool,
        columns: &[(&str, &str, Decode)],
    ) -> Result<ShownRows, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("id"))
            .columns(columns.iter().map(|(c, ..)| alias(c)))
            .cond_where(other_locales(document_id, locale, published));
        query_map(self.w, &s, |r| Ok((r.int(0)?, shown_cells(r, columns)?)))
    }

    /// Some values of row `id` of `schema`, as the API shows them (see
    /// [`Rows::shown_other_locales`]); `None` when there is no such row.
    pub fn shown_row(
        &self,
        schema: &Schema,
        id: i64,
        columns: &[(&str, &str, Decode)],
    ) -> Result<Option<serde_json::Map<String, serde_json::Value>>, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("id"))
            .columns(columns.iter().map(|(c, ..)| alias(c)))
            .and_where(Expr::col(alias("id")).eq(id));
        Ok(query_map(self.w, &s, |r| shown_cells(r, columns))?
            .into_iter()
            .next())
    }

    /// The values of some columns of one row, as values to store again.
    pub fn values(
        &self,
        table: &str,
        id: i64,
        columns: &[&str],
    ) -> Result<Vec<StoredValue>, StoreError> {
        self.values_with(table, id, columns, stored_from_cell)
    }

    /// The values of some columns of one row as Strapi holds them once it has read the
    /// row into JavaScript ([`through_javascript`]), as values to store again.
    pub fn values_as_read(
        &self,
        table: &str,
        id: i64,
        columns: &[&str],
    ) -> Result<Vec<StoredValue>, StoreError> {
        self.values_with(table, id, columns, through_javascript)
    }

    fn values_with(
        &self,
        table: &str,
        id: i64,
        columns: &[&str],
        stored: fn(Cell<'_>) -> StoredValue,
    ) -> Result<Vec<StoredValue>, StoreError> {
        if columns.is_empty() {
            return Ok(Vec::new());
        }
        let mut s = self.select_from(table);
        s.columns(columns.iter().map(|c| alias(c)))
            .and_where(Expr::col(alias("id")).eq(id));
        let n = columns.len();
        let rows = query_map(self.w, &s, |r| {
            (0..n)
                .map(|i| Ok(stored(r.cell(i)?)))
                .collect::<Result<Vec<_>, StoreError>>()
        })?;
        rows.into_iter()
            .next()
            .ok_or_else(|| StoreError::Other(format!("row {id} of {table} is gone")))
    }

    /// Inserts a copy of row `id` of `schema`'s table (every column but `id`), with the
    /// columns of `set` given new values in the same statement; returns the new row's id.
    ///
    /// The copy is the row as Strapi makes it again (a publish's `createEntry`, a
    /// component's `createComponent`): from the row read into JavaScript. So its
    /// bigintegers are the numbers JavaScript read ([`through_javascript`]: rounded past
    /// 2^53 where the driver hands them over as numbers, SQLite's, read here first); the
    /// other columns are copied by the database as they are.
    pub fn copy_row(
        &self,
        schema: &Schema,
        id: i64,
        set: &[(&str, StoredValue)],
    ) -> Result<i64, StoreError> {
        let table = schema.layout.table.as_str();
        let rounded = self.dialect().reads_bigint_as_number();
        let read_back: Vec<&str> = schema
            .layout
            .columns
            .iter()
            .filter(|c| rounded && c.ty == ColumnType::BigInteger)
            .filter(|c| !set.iter().any(|(s, _)| *s == c.name))
            .map(|c| c.name.as_str())
            .collect();
        let mut set = set.to_vec();
        if !read_back.is_empty() {
            let values = self.values_as_read(table, id, &read_back)?;
            set.extend(read_back.into_iter().zip(values));
        }
        let copied: Vec<&str> = copied_columns(schema)
            .into_iter()
            .filter(|c| !set.iter().any(|(s, _)| s == c))
            .collect();
        if copied.is_empty() {
            // Nothing to copy but the row itself.
            return self.insert(table, &set);
        }
        let dialect = self.dialect();
        let mut s = self.select_from(table);
        s.columns(copied.iter().map(|c| alias(c)))
            .exprs(set.iter().map(|(_, v)| stored_expr(dialect, v)))
            .and_where(Expr::col(alias("id")).eq(id));
        let mut ins = Sql::insert();
        ins.into_table(alias(table))
            .columns(
                copied
                    .iter()
                    .chain(set.iter().map(|(c, _)| c))
                    .map(|c| alias(c)),
            )
            .select_from(s)
            .map_err(sea_error)?;
        self.count_change();
        self.w.insert_id(&ins)
    }

    /// The `_cmps` rows of an entity, in attribute order, then `order` (NULL first), then id.
    pub fn components_of(
        &self,
        schema: &Schema,
        entity: i64,
    ) -> Result<Vec<ComponentLink>, StoreError> {
        let Some(cmps) = &schema.layout.cmps_table else {
            return Ok(Vec::new());
        };
        let mut s = self.select_from(cmps);
        s.columns(["cmp_id", "component_type", "field", "order", "id"].map(alias))
            .and_where(Expr::col(alias("entity_id")).eq(entity))
            .order_by(alias("id"), Order::Asc);
        let rows = query_map(self.w, &s, |r| {
            Ok((
                ComponentLink {
                    cmp_id: r.int(0)?,
                    component_type: r.opt_text(1)?.unwrap_or_default(),
                    field: r.opt_text(2)?.unwrap_or_default(),
                    order: opt_f64(r, 3)?,
                },
                r.int(4)?,
            ))
        })?;
        Ok(in_attribute_order(schema, rows, |c| (&c.field, c.order)))
    }

    /// The `_cmps` rows of an entity ([`Rows::components_of`]) whose component the model
    /// knows and whose row exists, each with its component's schema: what Strapi's
    /// populate loads. A `_cmps` row may point at nothing (Strapi leaves those behind
    /// when a dynamic zone is emptied: `relations::write_components`); a read of the
    /// entry leaves it out, so its validation, its copies and its comparisons do too.
    pub fn present_components_of(
        &self,
        schema: &Schema,
        entity: i64,
    ) -> Result<Vec<(&'a Schema, ComponentLink)>, StoreError> {
        let mut out = Vec::new();
        for link in self.components_of(schema, entity)? {
            if let Some(cs) = self.model.by_uid(&link.component_type)
                && self.row_exists(cs, link.cmp_id)?
            {
                out.push((cs, link));
            }
        }
        Ok(out)
    }

    /// Inserts a `_cmps` row.
    pub fn insert_component_link(
        &self,
        schema: &Schema,
        entity: i64,
        link: &ComponentLink,
    ) -> Result<(), StoreError> {
        let Some(cmps) = &schema.layout.cmps_table else {
            return Err(StoreError::Other(format!(
                "{} has no components table",
                schema.uid
            )));
        };
        self.insert(
            cmps,
            &[
                ("entity_id", StoredValue::Integer(entity)),
                ("cmp_id", StoredValue::Integer(link.cmp_id)),
                (
                    "component_type",
                    StoredValue::Text(link.component_type.clone()),
                ),
                ("field", StoredValue::Text(link.field.clone())),
                (
                    "order",
                    link.order.map_or(StoredValue::Null, StoredValue::Real),
                ),
            ],
        )?;
        Ok(())
    }

    fn media_table(&self) -> Option<&'a MorphTable> {
        self.model.media_table()
    }

    /// The media table, when `schema` has a media attribute: Strapi attaches files to a
    /// row only through one, so a schema without any has no rows there to read or delete.
    fn media_table_of(&self, schema: &Schema) -> Option<&'a MorphTable> {
        let has_media = schema
            .attributes
            .iter()
            .any(|a| matches!(a.kind, AttributeKind::Media(_)));
        if has_media { self.media_table() } else { None }
    }

    /// The files attached to a row, by attribute order, then `order`, then id.
    pub fn media_of(&self, schema: &Schema, id: i64) -> Result<Vec<MediaLink>, StoreError> {
        let Some(m) = self.media_table_of(schema) else {
            return Ok(Vec::new());
        };
        let mut s = self.select_from(&m.table);
        s.columns([m.owner_column.as_str(), "field", "order", "id"].map(alias))
            .and_where(Expr::col(alias(&m.id_column)).eq(id))
            .and_where(Expr::col(alias(&m.type_column)).eq(schema.uid.as_str()))
            .order_by(alias("id"), Order::Asc);
        let rows = query_map(self.w, &s, |r| {
            Ok((
                MediaLink {
                    file_id: r.int(0)?,
                    field: r.opt_text(1)?.unwrap_or_default(),
                    order: opt_f64(r, 2)?,
                },
                r.int(3)?,
            ))
        })?;
        Ok(in_attribute_order(schema, rows, |m| (&m.field, m.order)))
    }

    /// Attaches a file to a row.
    pub fn insert_media(
        &self,
        schema: &Schema,
        id: i64,
        link: &MediaLink,
    ) -> Result<(), StoreError> {
        let Some(m) = self.media_table() else {
            return Err(StoreError::Other("the model has no media table".into()));
        };
        self.insert(
            &m.table,
            &[
                (m.owner_column.as_str(), StoredValue::Integer(link.file_id)),
                (m.id_column.as_str(), StoredValue::Integer(id)),
                (
                    m.type_column.as_str(),
                    StoredValue::Text(schema.uid.as_str().to_string()),
                ),
                ("field", StoredValue::Text(link.field.clone())),
                (
                    "order",
                    link.order.map_or(StoredValue::Null, StoredValue::Real),
                ),
            ],
        )?;
        Ok(())
    }

    /// Detaches every file of one attribute of a row (`field`), or of every attribute.
    pub fn delete_media(
        &self,
        schema: &Schema,
        id: i64,
        field: Option<&str>,
    ) -> Result<(), StoreError> {
        let Some(m) = self.media_table_of(schema) else {
            return Ok(());
        };
        let mut del = Sql::delete();
        del.from_table(alias(&m.table))
            .and_where(Expr::col(alias(&m.id_column)).eq(id))
            .and_where(Expr::col(alias(&m.type_column)).eq(schema.uid.as_str()));
        if let Some(field) = field {
            del.and_where(Expr::col(alias("field")).eq(field));
        }
        self.run(Change::Delete(&del))?;
        Ok(())
    }

    /// Detaches `files` from media attribute `field` of row `id` (those attached).
    pub fn delete_media_files(
        &self,
        schema: &Schema,
        id: i64,
        field: &str,
        files: &[i64],
    ) -> Result<(), StoreError> {
        let Some(m) = self.media_table_of(schema) else {
            return Ok(());
        };
        if files.is_empty() {
            return Ok(());
        }
        let mut del = Sql::delete();
        del.from_table(alias(&m.table))
            .and_where(Expr::col(alias(&m.id_column)).eq(id))
            .and_where(Expr::col(alias(&m.type_column)).eq(schema.uid.as_str()))
            .and_where(Expr::col(alias("field")).eq(field))
            .and_where(Expr::col(alias(&m.owner_column)).is_in(files.iter().copied()));
        self.run(Change::Delete(&del))?;
        Ok(())
    }

    /// The largest `order` of the files attached to row `id`, over all its media
    /// attributes (0 when it has none): where Strapi's `connect` starts.
    pub fn max_media_order(&self, schema: &Schema, id: i64) -> Result<f64, StoreError> {
        let Some(m) = self.media_table_of(schema) else {
            return Ok(0.0);
        };
        let mut s = self.select_from(&m.table);
        s.expr(Expr::col(alias("order")).max())
            .and_where(Expr::col(alias(&m.id_column)).eq(id))
            .and_where(Expr::col(alias(&m.type_column)).eq(schema.uid.as_str()));
        Ok(query_map(self.w, &s, |r| opt_f64(r, 0))?
            .into_iter()
            .flatten()
            .next()
            .unwrap_or(0.0))
    }

    /// Every link table that holds rows of `schema`, with the end that holds them: the
    /// relations it owns, and those of other schemas (and its own) that target it.
    pub fn touching(&self, schema: SchemaId) -> Vec<Touching<'a>> {
        let mut out = Vec::new();
        for s in self.model.schemas() {
            for a in &s.attributes {
                let AttributeKind::Relation(r) = &a.kind else {
                    continue;
                };
                let RelationStorage::LinkTable(lt) = &r.storage else {
                    continue;
                };
                if s.id == schema {
                    out.push(Touching {
                        table: lt,
                        end: End::Owner,
                        owner: s.id,
                        attribute: &a.name,
                    });
                }
                if r.target == Some(schema) {
                    out.push(Touching {
                        table: lt,
                        end: End::Target,
                        owner: s.id,
                        attribute: &a.name,
                    });
                }
            }
        }
        out
    }

    /// The link rows of `id` at `end` of `lt`, ordered by that end's order column
    /// (`tag_ord` for the owner, `article_ord` for the target), then id.
    pub fn links(&self, lt: &LinkTable, end: End, id: i64) -> Result<Vec<LinkRow>, StoreError> {
        let mut s = self.select_from(&lt.table);
        let null = || Expr::val(Option::<f64>::None);
        s.column(alias("id"))
            .column(alias(end.other().column(lt)))
            .expr(
                lt.owner_order
                    .as_deref()
                    .map_or_else(null, |c| Expr::col(alias(c))),
            )
            .expr(
                lt.inverse_order
                    .as_deref()
                    .map_or_else(null, |c| Expr::col(alias(c))),
            )
            .and_where(Expr::col(alias(end.column(lt))).eq(id))
            .order_by(alias("id"), Order::Asc);
        let mut rows = query_map(self.w, &s, |r| {
            Ok(LinkRow {
                id: r.int(0)?,
                other: r.int(1)?,
                owner_order: opt_f64(r, 2)?,
                inverse_order: opt_f64(r, 3)?,
            })
        })?;
        let key = |l: &LinkRow| match end {
            End::Owner => l.owner_order,
            End::Target => l.inverse_order,
        };
        rows.sort_by(|a, b| {
            key(a)
                .unwrap_or(f64::INFINITY)
                .total_cmp(&key(b).unwrap_or(f64::INFINITY))
                .then(a.id.cmp(&b.id))
        });
        Ok(rows)
    }

    /// Inserts a link row; returns its id.
    pub fn insert_link(
        &self,
        lt: &LinkTable,
        owner: i64,
        target: i64,
        owner_order: Option<f64>,
        inverse_order: Option<f64>,
    ) -> Result<i64, StoreError> {
        let values = link_values(lt, owner, target, owner_order, inverse_order);
        self.insert(&lt.table, &values)
    }

    /// Sets the order values of link row `link_id` of `lt` (the columns it has).
    pub fn set_link_orders(
        &self,
        lt: &LinkTable,
        link_id: i64,
        owner_order: Option<f64>,
        inverse_order: Option<f64>,
    ) -> Result<(), StoreError> {
        self.update(
            &lt.table,
            link_id,
            &order_values(lt, owner_order, inverse_order),
        )
    }

    /// Puts back a link another row holds to a row of this type that was replaced (the old
    /// published row, when a publish re-creates it), now pointing at `target`: the same row
    /// id, owner and order values, as Strapi's `unidirectional-relations.js` re-inserts the
    /// rows it read (`{ ...relation, [inverseJoinColumn]: newId }`).
    pub fn restore_incoming_link(
        &self,
        lt: &LinkTable,
        link: &LinkRow,
        target: i64,
    ) -> Result<(), StoreError> {
        let mut values = vec![("id", StoredValue::Integer(link.id))];
        values.extend(link_values(
            lt,
            link.other,
            target,
            link.owner_order,
            link.inverse_order,
        ));
        self.insert(&lt.table, &values)?;
        Ok(())
    }

    /// The largest inverse order of the links to `target` (0 when there is none): a new
    /// link goes after it in the target's list.
    pub fn max_inverse_order(&self, lt: &LinkTable, target: i64) -> Result<f64, StoreError> {
        let Some(c) = &lt.inverse_order else {
            return Ok(0.0);
        };
        let mut s = self.select_from(&lt.table);
        s.expr(Expr::col(alias(c)).max())
            .and_where(Expr::col(alias(&lt.target_column)).eq(target));
        Ok(query_map(self.w, &s, |r| opt_f64(r, 0))?
            .into_iter()
            .flatten()
            .next()
            .unwrap_or(0.0))
    }

    /// Deletes the link rows of `id` at `end` of `lt`.
    pub fn delete_links(&self, lt: &LinkTable, end: End, id: i64) -> Result<(), StoreError> {
        let mut del = Sql::delete();
        del.from_table(alias(&lt.table))
            .and_where(Expr::col(alias(end.column(lt))).eq(id));
        self.run(Change::Delete(&del))?;
        Ok(())
    }

    /// Deletes one link row by its id.
    pub fn delete_link(&self, lt: &LinkTable, link_id: i64) -> Result<(), StoreError> {
        let mut del = Sql::delete();
        del.from_table(alias(&lt.table))
            .and_where(Expr::col(alias("id")).eq(link_id));
        self.run(Change::Delete(&del))?;
        Ok(())
    }

    /// The row of `schema`'s document `document_id` in `locale` with the given publication
    /// state, if there is one.
    pub fn version_row(
        &self,
        schema: &Schema,
        document_id: &str,
        locale: Option<&str>,
        published: bool,
    ) -> Result<Option<i64>, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("id"))
            .and_where(Expr::col(alias("document_id")).eq(document_id))
            .order_by(alias("id"), Order::Asc)
            .limit(1);
        if let Some(l) = locale {
            s.and_where(Expr::col(alias("locale")).eq(l));
        }
        if schema.draft_and_publish {
            let p = Expr::col(alias("published_at"));
            s.and_where(if published {
                p.is_not_null()
            } else {
                p.is_null()
            });
        }
        Ok(query_map(self.w, &s, |r| r.int(0))?.into_iter().next())
    }

    /// The `document_id` and `locale` of a row.
    pub fn identity(
        &self,
        schema: &Schema,
        id: i64,
    ) -> Result<Option<(String, Option<String>)>, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.columns(["document_id", "locale"].map(alias))
            .and_where(Expr::col(alias("id")).eq(id));
        Ok(query_map(self.w, &s, |r| {
            Ok((r.opt_text(0)?.unwrap_or_default(), r.opt_text(1)?))
        })?
        .into_iter()
        .next())
    }

    /// Whether row `id` of `schema` exists.
    pub fn row_exists(&self, schema: &Schema, id: i64) -> Result<bool, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("id"))
            .and_where(Expr::col(alias("id")).eq(id));
        Ok(!query_map(self.w, &s, |r| r.int(0))?.is_empty())
    }

    /// Which of `ids` name rows of `schema`, looked up a chunk of ids at a time (one
    /// `IN` each), so a list of many ids costs a few statements, not one each.
    pub fn existing_ids(
        &self,
        schema: &Schema,
        ids: &[i64],
    ) -> Result<std::collections::HashSet<i64>, StoreError> {
        const CHUNK: usize = 500;
        let mut found = std::collections::HashSet::new();
        for chunk in ids.chunks(CHUNK) {
            let mut s = self.select_from(&schema.layout.table);
            s.column(alias("id"))
                .and_where(Expr::col(alias("id")).is_in(chunk.iter().copied()));
            found.extend(query_map(self.w, &s, |r| r.int(0))?);
        }
        Ok(found)
    }

    /// Whether another document holds `value` in `column`, in the same locale and
    /// publication state (Strapi's `unique`).
    pub fn value_taken(
        &self,
        schema: &Schema,
        column: &str,
        value: &StoredValue,
        document_id: &str,
        locale: Option<&str>,
        published: bool,
    ) -> Result<bool, StoreError> {
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("id"))
            .and_where(Expr::col(alias(column)).eq(stored_expr(self.dialect(), value)))
            .and_where(Expr::col(alias("document_id")).ne(document_id))
            .limit(1);
        if let Some(l) = locale {
            s.and_where(Expr::col(alias("locale")).eq(l));
        }
        if schema.draft_and_publish {
            let p = Expr::col(alias("published_at"));
            s.and_where(if published {
                p.is_not_null()
            } else {
                p.is_null()
            });
        }
        Ok(!query_map(self.w, &s, |r| r.int(0))?.is_empty())
    }

    /// Whether another document's row of `schema` in `locale` (its published row, in a
    /// draft-and-publish type) holds `held`: in an attribute, a component whose column
    /// has a value: Strapi's `unique` inside a component
    /// (`validateUniqueFieldWithinComponent`, the `…DynamicZoneComponent` query).
    pub fn component_value_taken(
        &self,
        schema: &Schema,
        held: &HeldValue<'_>,
        document_id: &str,
        locale: Option<&str>,
    ) -> Result<bool, StoreError> {
        let HeldValue {
            field,
            component: cs,
            column,
            value,
        } = *held;
        let Some(cmps) = &schema.layout.cmps_table else {
            return Ok(false);
        };
        let mut items = Sql::select();
        items
            .column(alias("id"))
            .from(alias(&cs.layout.table))
            .and_where(Expr::col(alias(column)).eq(stored_expr(self.dialect(), value)));
        let mut holders = Sql::select();
        holders
            .column(alias("entity_id"))
            .from(alias(cmps))
            .and_where(Expr::col(alias("field")).eq(field))
            .and_where(Expr::col(alias("component_type")).eq(cs.uid.as_str()))
            .and_where(Expr::col(alias("cmp_id")).in_subquery(items));
        let mut s = self.select_from(&schema.layout.table);
        s.column(alias("id"))
            .and_where(Expr::col(alias("id")).in_subquery(holders))
            .and_where(Expr::col(alias("document_id")).ne(document_id))
            .limit(1);
        if let Some(l) = locale {
            s.and_where(Expr::col(alias("locale")).eq(l));
        }
        if schema.draft_and_publish {
            s.and_where(Expr::col(alias("published_at")).is_not_null());
        }
        Ok(!query_map(self.w, &s, |r| r.int(0))?.is_empty())
    }

    /// Deletes a row of `schema` and everything that hangs off it: its components
    /// (recursively), its link rows on either side of every relation, and its media links.
    /// Link and `_cmps` rows that the database deletes by itself ([`Rows::cascades`]) are
    /// left to it.
    pub fn delete_row(&self, schema: &Schema, id: i64) -> Result<(), StoreError> {
        self.delete_rows(schema, &[id])
    }

    /// [`Rows::delete_row`] for several rows of one schema, with one statement a table
    /// (`IN (…)`) however many rows there are: a document's versions go together.
    pub fn delete_rows(&self, schema: &Schema, ids: &[i64]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let of_ids = |column: &str| Expr::col(alias(column)).is_in(ids.iter().copied());
        if let Some(cmps) = &schema.layout.cmps_table {
            for (component, children) in self.component_rows(cmps, ids)? {
                if let Some(cs) = self.model.by_uid(&component) {
                    self.delete_rows(cs, &children)?;
                }
            }
            if !self.cascades.deletes(cmps, "entity_id") {
                let mut del = Sql::delete();
                del.from_table(alias(cmps)).and_where(of_ids("entity_id"));
                self.run(Change::Delete(&del))?;
            }
        }
        for t in self.touching(schema.id) {
            if self.cascades.deletes(&t.table.table, t.end.column(t.table)) {
                continue;
            }
            let mut del = Sql::delete();
            del.from_table(alias(&t.table.table))
                .and_where(of_ids(t.end.column(t.table)));
            self.run(Change::Delete(&del))?;
        }
        if let Some(m) = self.media_table_of(schema) {
            let mut del = Sql::delete();
            del.from_table(alias(&m.table))
                .and_where(of_ids(&m.id_column))
                .and_where(Expr::col(alias(&m.type_column)).eq(schema.uid.as_str()));
            self.run(Change::Delete(&del))?;
        }
        let mut del = Sql::delete();
        del.from_table(alias(&schema.layout.table))
            .and_where(of_ids("id"));
        self.run(Change::Delete(&del))?;
        Ok(())
    }

    /// The component rows the `_cmps` table `cmps` links to the entities `ids`, grouped by
    /// component uid (in first-seen order).
    fn component_rows(
        &self,
        cmps: &str,
        ids: &[i64],
    ) -> Result<Vec<(String, Vec<i64>)>, StoreError> {
        let mut s = self.select_from(cmps);
        s.columns(["component_type", "cmp_id"].map(alias))
            .and_where(Expr::col(alias("entity_id")).is_in(ids.iter().copied()))
            .order_by(alias("id"), Order::Asc);
        let rows = query_map(self.w, &s, |r| {
            Ok((r.opt_text(0)?.unwrap_or_default(), r.int(1)?))
        })?;
        let mut grouped: Vec<(String, Vec<i64>)> = Vec::new();
        for (component, id) in rows {
            match grouped.iter_mut().find(|(c, _)| *c == component) {
                Some((_, list)) => list.push(id),
                None => grouped.push((component, vec![id])),
            }
        }
        Ok(grouped)
    }

    /// Copies a component row with its own components, links and media; returns the new
    /// row's id. Link targets go through `target_row` (a publish points them at the
    /// published version); `None` drops the link.
    pub fn copy_component(
        &self,
        schema: &Schema,
        id: i64,
        target_row: &mut dyn FnMut(SchemaId, i64) -> Result<Option<i64>, StoreError>,
    ) -> Result<i64, StoreError> {
        let children = self.copy_components(schema, id, target_row)?;
        let (new, attachments) = self.copy_component_row(schema, id, children, target_row)?;
        for attach in attachments {
            attach()?;
        }
        Ok(new)
    }

    /// The second half of [`Rows::copy_component`]: the row itself; then, as the work
    /// that follows it ([`Attachment`]s, one per attribute in schema order, as
    /// `attachRelations` writes a create's), its `_cmps` rows to the copies of its
    /// components (`children`), its links and its files. Targets are mapped now; the
    /// attachments only insert.
    fn copy_component_row<'x>(
        &'x self,
        schema: &'x Schema,
        id: i64,
        children: Vec<ComponentLink>,
        target_row: &mut dyn FnMut(SchemaId, i64) -> Result<Option<i64>, StoreError>,
    ) -> Result<(i64, Vec<Attachment<'x, StoreError>>), StoreError> {
        let new = self.copy_row(schema, id, &[])?;
        self.copied_rows.set(self.copied_rows.get() + 1);
        let mut steps = self.component_link_steps(schema, new, &children);
        for (index, lt, links) in self.copied_links(schema, id, target_row)? {
            steps.push((
                index,
                Box::new(move || {
                    links.iter().try_for_each(|&(target, owner, inverse)| {
                        self.insert_link(lt, new, target, owner, inverse).map(drop)
                    })
                }),
            ));
        }
        let files = self.copied_media(schema, id)?;
        let mut rest = files.as_slice();
        while let Some(first) = rest.first() {
            let n = rest.iter().take_while(|m| m.field == first.field).count();
            let (field, after) = rest.split_at(n);
            rest = after;
            let field = field.to_vec();
            let index = schema.attribute_id(&first.field).map_or(0, |a| a.index());
            steps.push((
                index,
                Box::new(move || {
                    field
                        .iter()
                        .try_for_each(|m| self.insert_media(schema, new, m))
                }),
            ));
        }
        steps.sort_by_key(|(index, _)| *index);
        Ok((new, steps.into_iter().map(|(_, step)| step).collect()))
    }

    /// The `_cmps` rows of entity `entity` of `schema` to its components `links`, as the
    /// [`Attachment`]s of its attributes (one per attribute that has any, with the
    /// attribute's index, for `attachRelations`' order).
    pub fn component_link_steps<'x, E: From<StoreError> + 'x>(
        &'x self,
        schema: &'x Schema,
        entity: i64,
        links: &[ComponentLink],
    ) -> Vec<(usize, Attachment<'x, E>)> {
        let mut steps: Vec<(usize, Attachment<'x, E>)> = Vec::new();
        for a in &schema.attributes {
            let of_attribute: Vec<ComponentLink> = links
                .iter()
                .filter(|c| c.field == a.name)
                .cloned()
                .collect();
            if !of_attribute.is_empty() {
                steps.push((
                    a.id.index(),
                    Box::new(move || {
                        of_attribute
                            .iter()
                            .try_for_each(|c| self.insert_component_link(schema, entity, c))
                            .map_err(E::from)
                    }),
                ));
            }
        }
        steps
    }

    /// Attaches row `id`'s files to row `new` as Strapi re-creates them from the loaded
    /// entry ([`Rows::copied_media`]).
    pub fn copy_media(&self, schema: &Schema, id: i64, new: i64) -> Result<(), StoreError> {
        for link in self.copied_media(schema, id)? {
            self.insert_media(schema, new, &link)?;
        }
        Ok(())
    }

    /// Row `id`'s files as a copy of it gets them, grouped by attribute: each media
    /// attribute's files in order, numbered 1..n, and a single media attribute only its
    /// first (one that `connect` gave a second keeps that one).
    fn copied_media(&self, schema: &Schema, id: i64) -> Result<Vec<MediaLink>, StoreError> {
        let mut field = String::new();
        let mut order = 0.0;
        let mut multiple = false;
        let mut out = Vec::new();
        for m in self.media_of(schema, id)? {
            if m.field != field {
                field.clone_from(&m.field);
                order = 0.0;
                // Looked up once per field: the links come grouped by field.
                multiple = matches!(schema.attribute(&m.field).map(|a| &a.kind),
                    Some(AttributeKind::Media(f)) if f.multiple);
            }
            if order > 0.0 && !multiple {
                continue;
            }
            order += 1.0;
            out.push(MediaLink {
                order: Some(order),
                ..m
            });
        }
        Ok(out)
    }

    /// Copies the components of row `id` (recursively); returns the `_cmps` rows the
    /// copy needs, pointing at the new component rows.
    pub fn copy_components(
        &self,
        schema: &Schema,
        id: i64,
        target_row: &mut dyn FnMut(SchemaId, i64) -> Result<Option<i64>, StoreError>,
    ) -> Result<Vec<ComponentLink>, StoreError> {
        // What is copied, attribute by attribute; then each attribute's items are copied
        // side by side, as a create makes them (`Rows::in_strapi_order`).
        let mut kept: Vec<(ComponentLink, &Schema)> = Vec::new();
        // A `_cmps` row that points at nothing has nothing to copy.
        for (cs, c) in self.present_components_of(schema, id)? {
            // A zone item of a component the zone does not list is stored (Strapi does not
            // check) but not read back, so a copy leaves it out (`cmp-invalid`).
            if let Some(AttributeKind::DynamicZone(z)) = schema.attribute(&c.field).map(|a| &a.kind)
                && !z.components.contains(&cs.id)
            {
                continue;
            }
            kept.push((c, cs));
        }
        let mut out: Vec<ComponentLink> = Vec::new();
        let mut rest = kept.as_slice();
        while let Some((first, _)) = rest.first() {
            let n = rest
                .iter()
                .take_while(|(c, _)| c.field == first.field)
                .count();
            let (list, after) = rest.split_at(n);
            rest = after;
            let rows: Vec<(&Schema, i64, ())> =
                list.iter().map(|(c, cs)| (*cs, c.cmp_id, ())).collect();
            let copies = self.copy_list(&rows, &[], &mut |(), s, r| target_row(s, r))?;
            // The copy is made as a create makes it: NULL for a single component, 1..n in
            // each list.
            let single = matches!(
                schema.attribute(&first.field).map(|a| &a.kind),
                Some(AttributeKind::Component(f)) if !f.repeatable
            );
            for (place, ((c, _), new)) in list.iter().zip(copies).enumerate() {
                out.push(ComponentLink {
                    cmp_id: new,
                    order: (!single).then_some((place + 1) as f64),
                    ..c.clone()
                });
            }
        }
        Ok(out)
    }

    /// Copies the component rows of one list (an attribute's items, in order), side by
    /// side as a create makes them ([`Rows::in_strapi_order_from`], item `i` starting
    /// `starts[i]` statements late), each with everything under it; returns the copies'
    /// ids in list order. Each item carries a tag `T` (what its copy is for: the row it
    /// goes to), which `target_row` gets with each link target it maps for that item.
    pub fn copy_list<'s, T: Copy>(
        &'s self,
        list: &'s [(&'s Schema, i64, T)],
        starts: &[u64],
        target_row: &mut dyn FnMut(T, SchemaId, i64) -> Result<Option<i64>, StoreError>,
    ) -> Result<Vec<i64>, StoreError> {
        // Both halves map targets; they never run at once.
        let target = std::cell::RefCell::new(target_row);
        let nested = |(cs, id, tag): &(&Schema, i64, T)| {
            let mut t = target.borrow_mut();
            self.copy_components(cs, *id, &mut |s, r| (*t)(*tag, s, r))
        };
        let row = |&(cs, id, tag): &'s (&'s Schema, i64, T), children: Vec<ComponentLink>| {
            let mut t = target.borrow_mut();
            self.copy_component_row(cs, id, children, &mut |s, r| (*t)(tag, s, r))
        };
        self.in_strapi_order_from(list, starts, nested, row)
    }

    /// Makes the items of one component list (a repeatable component or a dynamic zone)
    /// as Strapi's document service does: side by side (`async.map`, no limit), each item
    /// first making its own components (`nested`), then its row (`row`), then the row's
    /// links one attribute at a time (the [`Attachment`]s `row` returns: the entity
    /// manager's `attachRelations`, one statement per attribute). So an item whose
    /// components took less work has its row inserted first, and its id is the lower;
    /// and an item with fewer links before an attribute writes that attribute's links
    /// first. Each item's work is placed in time by its statements: its nested parts at
    /// 0, its row once they are done (at the number of statements they took), each
    /// attachment one statement after the one before; the work is done in that order,
    /// items in list order at a tie. So a list `[panel, step holding a panel]` stores the
    /// first panel before the inner one, and `[step holding a panel, panel]` the inner
    /// one first. What an item's row waits for is the time its components took, not
    /// their number: a list of them is made side by side too, so an item holding two
    /// components in a list waits as long as one holding one, and less than one holding
    /// a chain of two (`edge-zone-items-side-by-side`). Returns the rows' ids in list
    /// order.
    pub fn in_strapi_order<'x, I, N, E>(
        &self,
        items: &'x [I],
        nested: impl FnMut(&'x I) -> Result<N, E>,
        row: impl FnMut(&'x I, N) -> Result<(i64, Vec<Attachment<'x, E>>), E>,
    ) -> Result<Vec<i64>, E> {
        self.in_strapi_order_from(items, &[], nested, row)
    }

    /// [`Rows::in_strapi_order`] for items that do not all start at once: item `i` starts
    /// `starts[i]` statements late (the items of several rows Strapi updates side by
    /// side, each row one step after the one before). The work is simulated in the
    /// statements' order: an item's nested parts at its start, its row once they are
    /// done (start + their statements), its attachments one statement apart after it; at
    /// a tie, items in list order. Outside a transaction ([`Timing::OwnTransactions`])
    /// each copied row is two steps and a row's attachments are done at once. `starts`
    /// may be empty (all 0).
    pub fn in_strapi_order_from<'x, I, N, E>(
        &self,
        items: &'x [I],
        starts: &[u64],
        mut nested: impl FnMut(&'x I) -> Result<N, E>,
        mut row: impl FnMut(&'x I, N) -> Result<(i64, Vec<Attachment<'x, E>>), E>,
    ) -> Result<Vec<i64>, E> {
        if let [item] = items {
            let parts = nested(item)?;
            let (id, attachments) = row(item, parts)?;
            for attach in attachments {
                attach()?;
            }
            return Ok(vec![id]);
        }
        const NESTED: u8 = 0;
        const ROW: u8 = 1;
        const ATTACH: u8 = 2;
        let mark = self.work_mark();
        // When the last item's work ends: the time the whole list takes.
        let mut end = 0;
        // (time, item, step)
        let mut due: std::collections::BTreeSet<(u64, usize, u8)> = (0..items.len())
            .map(|i| (starts.get(i).copied().unwrap_or(0), i, NESTED))
            .collect();
        let mut made: Vec<Option<N>> = items.iter().map(|_| None).collect();
        let mut pending: Vec<std::collections::VecDeque<Attachment<'x, E>>> =
            items.iter().map(|_| Default::default()).collect();
        let mut ids = vec![0; items.len()];
        while let Some((time, i, step)) = due.pop_first() {
            match step {
                NESTED => {
                    let before = self.work_mark();
                    made[i] = Some(nested(&items[i])?);
                    due.insert((time + self.work_since(before), i, ROW));
                }
                ROW => {
                    let Some(parts) = made[i].take() else {
                        continue;
                    };
                    let before = self.work_mark();
                    let (id, attachments) = row(&items[i], parts)?;
                    end = Ord::max(end, time + self.work_since(before));
                    ids[i] = id;
                    pending[i] = attachments.into();
                    if !pending[i].is_empty() {
                        due.insert((time + 1, i, ATTACH));
                    }
                }
                _ => {
                    // In a transaction of its own, a row's links are written at once.
                    let waiting = pending[i].len();
                    let at_once = match self.timing.get() {
                        Timing::InTransaction => waiting.min(1),
                        Timing::OwnTransactions => waiting,
                    };
                    let before = self.work_mark();
                    for attach in pending[i].drain(..at_once) {
                        attach()?;
                    }
                    end = Ord::max(end, time + self.work_since(before));
                    if !pending[i].is_empty() {
                        due.insert((time + 1, i, ATTACH));
                    }
                }
            }
        }
        // The list took `end` steps of time for the steps its items' work counted.
        let steps = self.work_since(mark);
        self.overlapped
            .set(self.overlapped.get() + steps.saturating_sub(end));
        Ok(ids)
    }

    /// The link rows a copy of row `from` gets, for each relation attribute it owns
    /// links of (attribute index, link table, `(target, owner order, inverse order)`),
    /// each target mapped through `target_row`: the owner's order numbered 1..n, the
    /// inverse order kept. An attribute with nothing to link is left out.
    fn copied_links<'s>(
        &self,
        schema: &'s Schema,
        from: i64,
        target_row: &mut dyn FnMut(SchemaId, i64) -> Result<Option<i64>, StoreError>,
    ) -> Result<Vec<CopiedLinks<'s>>, StoreError> {
        let mut out = Vec::new();
        for a in &schema.attributes {
            let AttributeKind::Relation(Relation {
                storage: RelationStorage::LinkTable(lt),
                target: Some(target),
                ..
            }) = &a.kind
            else {
                continue;
            };
            // Strapi makes the copy from the loaded entry, whose relation is a list: a
            // `set`, so the copy's links are numbered 1..n in the row's order, the
            // targets that have no row in the copy's state left out.
            let mut order = 0.0;
            let mut links = Vec::new();
            for l in self.links(lt, End::Owner, from)? {
                if let Some(t) = target_row(*target, l.other)? {
                    let owner_order = lt.owner_order.is_some().then(|| {
                        order += 1.0;
                        order
                    });
                    links.push((t, owner_order, l.inverse_order));
                }
            }
            if !links.is_empty() {
                out.push((a.id.index(), lt, links));
            }
        }
        Ok(out)
    }
}

/// One relation attribute's links in a copy ([`Rows::copied_links`]).
type CopiedLinks<'s> = (usize, &'s LinkTable, Vec<(i64, Option<f64>, Option<f64>)>);

/// Work an item of a component list does once its row is inserted, one attribute's links
/// ([`Rows::in_strapi_order`]).
pub type Attachment<'x, E> = Box<dyn FnOnce() -> Result<(), E> + 'x>;

/// Rows of an entity's attributes (`_cmps`, `files_related_mph`), each with its row id,
/// sorted by attribute (schema order), then `order` (NULL first), then id.
fn in_attribute_order<T>(
    schema: &Schema,
    mut rows: Vec<(T, i64)>,
    key: impl Fn(&T) -> (&str, Option<f64>),
) -> Vec<T> {
    let place = |field: &str| schema.attribute_id(field).map_or(usize::MAX, |a| a.index());
    rows.sort_by(|(a, ia), (b, ib)| {
        let ((fa, oa), (fb, ob)) = (key(a), key(b));
        place(fa)
            .cmp(&place(fb))
            .then(
                oa.unwrap_or(f64::NEG_INFINITY)
                    .total_cmp(&ob.unwrap_or(f64::NEG_INFINITY)),
            )
            .then(ia.cmp(ib))
    });
    rows.into_iter().map(|(t, _)| t).collect()
}

/// The columns a copy of a row carries: all but `id`.
pub fn copied_columns(schema: &Schema) -> Vec<&str> {
    schema
        .layout
        .columns
        .iter()
        .filter(|c| c.role != ColumnRole::Id)
        .map(|c| c.name.as_str())
        .collect()
}

/// A value in a component that a document holds in one of its attributes
/// ([`Rows::component_value_taken`]).
#[derive(Debug, Clone, Copy)]
pub struct HeldValue<'a> {
    /// The document's attribute (the `field` of its `_cmps` rows).
    pub field: &'a str,
    /// The component.
    pub component: &'a Schema,
    /// The component's column.
    pub column: &'a str,
    /// The value.
    pub value: &'a StoredValue,
}

/// The cells after the id of a row selected with `columns`, each decoded as the API
/// shows it, under its key.
fn shown_cells(
    r: &dyn RowRef,
    columns: &[(&str, &str, Decode)],
) -> Result<serde_json::Map<String, serde_json::Value>, StoreError> {
    let mut shown = serde_json::Map::new();
    for (i, (_, key, decode)) in columns.iter().enumerate() {
        let mut text = Vec::new();
        decode.write(r.cell(i + 1)?, &mut text);
        let value = serde_json::from_slice(&text).unwrap_or(serde_json::Value::Null);
        shown.insert((*key).to_string(), value);
    }
    Ok(shown)
}

#[cfg(test)]
mod tests {
    use super::{Cell, StoredValue, through_javascript};

    /// What Strapi's publish stored on SQLite (`edge-biginteger-extremes`, `gen-products-15`).
    #[test]
    fn integers_read_as_javascript_numbers_are_rounded_and_stored_back_as_sqlite_does() {
        let back = |i: i64| through_javascript(Cell::Int(i));
        assert_eq!(
            back(9_007_199_254_740_992),
            StoredValue::Integer(9_007_199_254_740_992)
        );
        assert_eq!(
            back(9_007_199_254_740_993),
            StoredValue::Integer(9_007_199_254_740_992)
        );
        assert_eq!(
            back(123_456_789_012_345_679),
            StoredValue::Integer(123_456_789_012_345_680)
        );
        assert_eq!(back(i64::MAX), StoredValue::Real(9.223_372_036_854_776e18));
        assert_eq!(back(i64::MIN), StoredValue::Real(-9.223_372_036_854_776e18));
        // node-postgres and mysql2 hand a bigint over as exact text.
        assert_eq!(
            through_javascript(Cell::BigInt(9_007_199_254_740_993)),
            StoredValue::Integer(9_007_199_254_740_993)
        );
    }
}
