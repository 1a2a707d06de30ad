//! The one schema planner: it compares the model's layout with what a database has,
//! plans the steps that bring the database to the model, refuses the steps that lose
//! data unless they are allowed, and has the database apply them in one transaction and
//! record the layout. Each database folder is a [`Provisioner`]: it reads its existing
//! layout, counts rows, and renders and runs the steps in its own DDL. There is one
//! planner and one renderer per database.
//!
//! Additive steps (missing tables, columns and indexes; indexes whose columns changed)
//! lose nothing and are always applied. Destructive steps (a column or table that the
//! *previous* model had and this one lacks, a column whose declared type changed,
//! orphaned component or media links) are applied only when allowed, and otherwise
//! refused with [`StoreError::Destructive`], listing exactly what would be lost.
//!
//! What counts as "previous" is the layout a database recorded when strata last created
//! or migrated it ([`RecordedLayout`], SQLite's `strata_schema` table). Only what it
//! names is ever dropped: tables and columns strata never created, and Strapi's own
//! `admin_*` and `strapi_*` tables, are never touched. A database that records nothing
//! (a Strapi database opened for the first time; PostgreSQL and MySQL, which record
//! nothing so that a matching database is never written to) only gets additive steps.
//! Likewise only a database whose declared column types compare ([`Provisioner::declared_type`]:
//! SQLite keeps the declared text) is checked for changed types.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use sea_query::{Alias, Asterisk, Expr, ExprTrait, Func, Query as Sql, SelectStatement};
use serde::{Deserialize, Serialize};

use super::StoreError;
use crate::schema::{AttributeKind, ColumnType, DatabaseLayout, IndexDef, Model, TableDef};

/// What a database has now: its tables, with their columns and indexes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExistingLayout {
    /// Each table by name.
    pub tables: BTreeMap<String, ExistingTable>,
}

impl ExistingLayout {
    /// A layout known only by names, as the server databases report it: `(table,
    /// column)` and `(table, index or constraint)` pairs, without declared types or index
    /// shapes (so the planner compares neither).
    pub fn from_names(
        columns: impl IntoIterator<Item = (String, String)>,
        indexes: impl IntoIterator<Item = (String, String)>,
    ) -> ExistingLayout {
        let mut layout = ExistingLayout::default();
        for (t, c) in columns {
            layout.tables.entry(t).or_default().columns.push((c, None));
        }
        for (t, i) in indexes {
            layout.tables.entry(t).or_default().indexes.insert(i, None);
        }
        layout
    }
}

/// One existing table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExistingTable {
    /// Each column's name and, where the database keeps it comparably, its declared type
    /// (lower case).
    pub columns: Vec<(String, Option<String>)>,
    /// Each index (and constraint) by name, with its columns and uniqueness where the
    /// database reports them.
    pub indexes: BTreeMap<String, Option<IndexShape>>,
}

/// The columns and uniqueness of an existing index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexShape {
    /// The indexed columns, in order.
    pub columns: Vec<String>,
    /// Whether it is unique.
    pub unique: bool,
}

/// The layout strata recorded when it created or last migrated a database.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RecordedLayout {
    version: u32,
    tables: Vec<RecordedTable>,
    schemas: Vec<RecordedSchema>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RecordedTable {
    name: String,
    columns: Vec<(String, String)>,
    indexes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RecordedSchema {
    uid: String,
    table: String,
    component: bool,
    /// Component and dynamic-zone attributes (rows in the `_cmps` table by `field`).
    component_fields: Vec<String>,
    /// Media attributes (rows in `files_related_mph` by `related_type` and `field`).
    media_fields: Vec<String>,
    cmps_table: Option<String>,
}

impl RecordedLayout {
    /// The record of `model`'s layout.
    pub fn of(model: &Model) -> RecordedLayout {
        RecordedLayout::with(model, &model.database_layout())
    }

    fn with(model: &Model, layout: &DatabaseLayout) -> RecordedLayout {
        let fields = |s: &crate::schema::Schema, media: bool| -> Vec<String> {
            s.attributes
                .iter()
                .filter(|a| match a.kind {
                    AttributeKind::Media(_) => media,
                    AttributeKind::Component(_) | AttributeKind::DynamicZone(_) => !media,
                    _ => false,
                })
                .map(|a| a.name.clone())
                .collect()
        };
        RecordedLayout {
            version: 1,
            tables: layout
                .tables
                .iter()
                .map(|t| RecordedTable {
                    name: t.name.clone(),
                    columns: t
                        .columns
                        .iter()
                        .map(|c| (c.name.clone(), c.ty.sqlite_decl().to_string()))
                        .collect(),
                    indexes: t.indexes.iter().map(|i| i.name.clone()).collect(),
                })
                .collect(),
            schemas: model
                .schemas()
                .iter()
                .map(|s| RecordedSchema {
                    uid: s.uid.to_string(),
                    table: s.layout.table.clone(),
                    component: !s.is_content_type(),
                    component_fields: fields(s, false),
                    media_fields: fields(s, true),
                    cmps_table: s.layout.cmps_table.clone(),
                })
                .collect(),
        }
    }

    /// The record as JSON text, as it is stored.
    pub fn to_json(&self) -> Result<String, StoreError> {
        serde_json::to_string(self)
            .map_err(|e| StoreError::Other(format!("cannot encode the layout: {e}")))
    }

    /// Reads a stored record; `table` names where it was read, for the message.
    pub fn from_json(json: &str, table: &str) -> Result<RecordedLayout, StoreError> {
        serde_json::from_str(json).map_err(|e| {
            StoreError::Other(format!(
                "the `{table}` table holds an unreadable layout ({e}); delete its row to let strata treat the database as unknown"
            ))
        })
    }
}

/// One step of a [`MigrationPlan`].
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A table the model needs and the database lacks.
    CreateTable(TableDef),
    /// A column the model needs and the table lacks.
    AddColumn {
        /// The table.
        table: String,
        /// The column.
        column: String,
        /// Its type.
        ty: ColumnType,
    },
    /// An index the model needs and the table lacks.
    CreateIndex {
        /// The table.
        table: String,
        /// The index.
        index: IndexDef,
    },
    /// An index whose columns or uniqueness differ from the model's: dropped and created again.
    RecreateIndex {
        /// The table.
        table: String,
        /// The index as the model wants it.
        index: IndexDef,
    },
    /// An index the previous model had and the new one does not (no data is lost).
    DropIndex {
        /// The table.
        table: String,
        /// The index.
        index: String,
    },
    /// Columns whose declared type differs from the model's: the table is rebuilt with
    /// the model's types.
    ChangeColumnTypes {
        /// The table as the model wants it.
        table: TableDef,
        /// `(column, declared type now, type the model needs)` for each changed column.
        columns: Vec<(String, String, ColumnType)>,
        /// Non-null values in the changed columns, which the database converts.
        values: u64,
    },
    /// A column the previous model had and the new one lacks.
    DropColumn {
        /// The table.
        table: String,
        /// The column.
        column: String,
        /// How many rows hold a non-null value in it.
        values: u64,
    },
    /// A table the previous model had and the new one lacks.
    DropTable {
        /// The table.
        table: String,
        /// How many rows it holds.
        rows: u64,
    },
    /// Component links of an attribute (or a component type) the new model no longer has.
    DeleteComponentLinks {
        /// The `_cmps` table.
        table: String,
        /// `field = ?` (the attribute) or, when `None`, every field.
        field: Option<String>,
        /// `component_type = ?`, when a component type was removed.
        component_type: Option<String>,
        /// How many rows.
        rows: u64,
    },
    /// Media links of a media attribute (or a schema) the new model no longer has.
    DeleteMediaLinks {
        /// The morph table (`files_related_mph`).
        table: String,
        /// The column holding the related uid.
        type_column: String,
        /// The related uid.
        related_type: String,
        /// The attribute, or `None` for every field of a removed schema.
        field: Option<String>,
        /// How many rows.
        rows: u64,
    },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::CreateTable(t) => write!(f, "create table `{}`", t.name),
            Change::AddColumn { table, column, ty } => {
                write!(f, "add column `{table}`.`{column}` ({})", ty.sqlite_decl())
            }
            Change::CreateIndex { table, index } => {
                write!(f, "create index `{}` on `{table}`", index.name)
            }
            Change::RecreateIndex { table, index } => write!(
                f,
                "recreate index `{}` on `{table}` ({})",
                index.name,
                index.columns.join(", ")
            ),
            Change::DropIndex { index, .. } => write!(f, "drop index `{index}`"),
            Change::ChangeColumnTypes {
                table,
                columns,
                values,
            } => {
                let cols = columns
                    .iter()
                    .map(|(c, from, to)| format!("`{c}` {from} → {}", to.sqlite_decl()))
                    .collect::<Vec<_>>()
                    .join(", ");
                write!(
                    f,
                    "change the type of column(s) of `{}`: {cols} (the table is rebuilt; {values} non-null values are converted and may lose precision or become NULL-like text)",
                    table.name
                )
            }
            Change::DropColumn {
                table,
                column,
                values,
            } => write!(
                f,
                "drop column `{table}`.`{column}` ({values} non-null values)"
            ),
            Change::DropTable { table, rows } => write!(f, "drop table `{table}` ({rows} rows)"),
            Change::DeleteComponentLinks {
                table,
                field,
                component_type,
                rows,
            } => {
                let what = match (field, component_type) {
                    (Some(fl), _) => format!("field `{fl}`"),
                    (None, Some(ct)) => format!("component `{ct}`"),
                    (None, None) => "every field".to_string(),
                };
                write!(f, "delete {rows} component links of {what} from `{table}`")
            }
            Change::DeleteMediaLinks {
                table,
                related_type,
                field,
                rows,
                ..
            } => match field {
                Some(fl) => write!(
                    f,
                    "delete {rows} media links of `{related_type}`.`{fl}` from `{table}`"
                ),
                None => write!(
                    f,
                    "delete {rows} media links of `{related_type}` from `{table}`"
                ),
            },
        }
    }
}

/// What it takes to bring a database to the model's layout.
#[derive(Debug, Clone, PartialEq)]
pub struct MigrationPlan {
    /// Steps that lose no data, applied automatically.
    pub additive: Vec<Change>,
    /// Steps that lose data, applied only when explicitly allowed.
    pub destructive: Vec<Change>,
    /// Whether the recorded layout needs writing even if no step is needed.
    record: bool,
    /// The layout to record once applied (JSON).
    layout: String,
}

impl MigrationPlan {
    /// True when the database already matches the model.
    pub fn is_empty(&self) -> bool {
        self.additive.is_empty() && self.destructive.is_empty()
    }

    /// One line per destructive step, saying what would be lost.
    pub fn destructive_lines(&self) -> Vec<String> {
        self.destructive.iter().map(|c| format!("  {c}")).collect()
    }
}

/// What a database folder offers the planner: its existing layout, counts, and the
/// rendering and running of steps in its own DDL.
pub trait Provisioner {
    /// The tables, columns and indexes the database has now.
    fn existing(&self) -> Result<ExistingLayout, StoreError>;

    /// The layout strata recorded in this database, if it records one.
    fn recorded(&self) -> Result<Option<RecordedLayout>, StoreError> {
        Ok(None)
    }

    /// The declared type this database shows for a column of type `ty`, when declared
    /// types are compared (SQLite); `None` when they are not.
    fn declared_type(&self, ty: ColumnType) -> Option<&'static str> {
        let _ = ty;
        None
    }

    /// Runs a `SELECT COUNT(*)` and returns the count.
    fn count(&self, stmt: &SelectStatement) -> Result<u64, StoreError>;

    /// One line saying what a step does, for the caller to show.
    fn describe(&self, change: &Change) -> String {
        change.to_string()
    }

    /// Renders and runs `changes` in order, in one transaction where the database's DDL
    /// is transactional, and records `layout` (JSON) when it is given and the database
    /// records layouts. `destructive` says whether any change loses data (a database
    /// may then relax and check its foreign keys around the changes).
    fn apply(
        &self,
        changes: &[&Change],
        layout: Option<&str>,
        destructive: bool,
    ) -> Result<(), StoreError>;
}

/// A `SELECT COUNT(*) FROM table WHERE …` over the given equalities (`Some`) and
/// not-nulls (`None`).
fn count_stmt(table: &str, terms: &[(&str, Option<&str>)]) -> SelectStatement {
    let mut stmt = Sql::select();
    stmt.expr(Func::count(Expr::col(Asterisk)))
        .from(Alias::new(table));
    for (column, value) in terms {
        let c = Expr::col(Alias::new(*column));
        match value {
            Some(v) => stmt.and_where(c.eq(v.to_string())),
            None => stmt.and_where(c.is_not_null()),
        };
    }
    stmt
}

/// Compares the database with the model's layout (see the module docs).
pub fn plan(db: &dyn Provisioner, model: &Model) -> Result<MigrationPlan, StoreError> {
    let layout = model.database_layout();
    let existing = db.existing()?;
    let previous = db.recorded()?;
    let mut planner = Planner {
        db,
        existing: &existing,
        previous: previous.as_ref(),
        additive: Vec::new(),
        destructive: Vec::new(),
    };
    for table in &layout.tables {
        planner.table(table)?;
    }
    if let Some(prev) = &previous {
        planner.links(model, prev)?;
        let wanted: BTreeSet<&str> = layout.tables.iter().map(|t| t.name.as_str()).collect();
        // Tables the previous model had and this one does not.
        for t in &prev.tables {
            if !wanted.contains(t.name.as_str()) && existing.tables.contains_key(&t.name) {
                let rows = db.count(&count_stmt(&t.name, &[]))?;
                planner.destructive.push(Change::DropTable {
                    table: t.name.clone(),
                    rows,
                });
            }
        }
    }
    let recorded = RecordedLayout::with(model, &layout);
    let json = recorded.to_json()?;
    let record = match &previous {
        None => true,
        Some(p) => p.to_json().ok().as_deref() != Some(json.as_str()),
    };
    Ok(MigrationPlan {
        additive: planner.additive,
        destructive: planner.destructive,
        record,
        layout: json,
    })
}

/// Applies `plan`: the additive steps always, the destructive ones only when
/// `allow_destructive` is true (otherwise nothing is applied and the error lists what
/// would be lost), in one transaction where the database allows, recording the layout.
pub fn apply(
    db: &dyn Provisioner,
    plan: &MigrationPlan,
    allow_destructive: bool,
) -> Result<(), StoreError> {
    if !plan.destructive.is_empty() && !allow_destructive {
        return Err(StoreError::Destructive(plan.destructive_lines()));
    }
    if plan.is_empty() && !plan.record {
        return Ok(());
    }
    let changes: Vec<&Change> = plan.additive.iter().chain(&plan.destructive).collect();
    db.apply(&changes, Some(&plan.layout), !plan.destructive.is_empty())
}

/// Plans, then applies the plan ([`plan`], [`apply`]); returns the plan.
pub fn migrate(
    db: &dyn Provisioner,
    model: &Model,
    allow_destructive: bool,
) -> Result<MigrationPlan, StoreError> {
    let p = plan(db, model)?;
    apply(db, &p, allow_destructive)?;
    Ok(p)
}

/// Brings an existing database up to the model, as each folder's `prepare` does: the
/// plan's steps ([`plan`], [`apply`]), then strata's lookup indexes
/// ([`add_lookup_indexes`]). Returns one line per step taken.
pub fn bring_up_to_date(
    db: &dyn Provisioner,
    model: &Model,
    allow_destructive: bool,
) -> Result<Vec<String>, StoreError> {
    let p = plan(db, model)?;
    let mut taken: Vec<String> = p.additive.iter().map(|c| db.describe(c)).collect();
    apply(db, &p, allow_destructive)?;
    taken.extend(add_lookup_indexes(db, model));
    Ok(taken)
}

/// Adds strata's lookup indexes ([`Model::lookup_indexes`]) that the database lacks, on
/// tables and columns it has, in their own transaction after the layout is in place.
/// Returns what it created, one line each.
///
/// They are optional: the layout Strapi reads is complete without them, so a database
/// that refuses them (a read replica, a user without the right to create indexes) is
/// served as it is, only slower to write; the refusal is logged, not returned. They are
/// not part of the recorded layout either, so the planner never drops them.
pub fn add_lookup_indexes(db: &dyn Provisioner, model: &Model) -> Vec<String> {
    let missing = match db.existing() {
        Ok(existing) => missing_lookup_indexes(&existing, model),
        Err(e) => {
            tracing::warn!("cannot read the layout to add strata's lookup indexes: {e}");
            return Vec::new();
        }
    };
    if missing.is_empty() {
        return Vec::new();
    }
    let steps: Vec<&Change> = missing.iter().collect();
    match db.apply(&steps, None, false) {
        Ok(()) => missing.iter().map(|c| db.describe(c)).collect(),
        Err(e) => {
            tracing::warn!(
                "strata's lookup indexes were not created ({e}); writes check `unique` \
                 attributes and uids by reading the whole table"
            );
            Vec::new()
        }
    }
}

/// The `CreateIndex` steps of the lookup indexes `existing` lacks.
fn missing_lookup_indexes(existing: &ExistingLayout, model: &Model) -> Vec<Change> {
    model
        .lookup_indexes()
        .into_iter()
        .filter(|l| {
            existing.tables.get(&l.table).is_some_and(|t| {
                !t.indexes.contains_key(&l.index.name)
                    && l.index
                        .columns
                        .iter()
                        .all(|c| t.columns.iter().any(|(have, _)| have == c))
            })
        })
        .map(|l| Change::CreateIndex {
            table: l.table,
            index: l.index,
        })
        .collect()
}

/// The planner's working state.
struct Planner<'p> {
    db: &'p dyn Provisioner,
    existing: &'p ExistingLayout,
    previous: Option<&'p RecordedLayout>,
    additive: Vec<Change>,
    destructive: Vec<Change>,
}

impl Planner<'_> {
    /// The steps of one table of the model.
    fn table(&mut self, table: &TableDef) -> Result<(), StoreError> {
        let Some(have) = self.existing.tables.get(&table.name) else {
            self.additive.push(Change::CreateTable(table.clone()));
            return Ok(());
        };
        let declared: BTreeMap<&str, Option<&str>> = have
            .columns
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_deref()))
            .collect();
        let mut retyped = Vec::new();
        for c in &table.columns {
            match declared.get(c.name.as_str()) {
                None => self.additive.push(Change::AddColumn {
                    table: table.name.clone(),
                    column: c.name.clone(),
                    ty: c.ty,
                }),
                Some(Some(decl)) => {
                    if let Some(want) = self.db.declared_type(c.ty)
                        && *decl != want
                    {
                        retyped.push((c.name.clone(), (*decl).to_string(), c.ty));
                    }
                }
                Some(None) => {}
            }
        }
        let prev_table = self
            .previous
            .and_then(|p| p.tables.iter().find(|t| t.name == table.name));
        if let Some(prev) = prev_table {
            for (name, _) in &prev.columns {
                if declared.contains_key(name.as_str())
                    && !table.columns.iter().any(|c| &c.name == name)
                {
                    let values = self
                        .db
                        .count(&count_stmt(&table.name, &[(name.as_str(), None)]))?;
                    self.destructive.push(Change::DropColumn {
                        table: table.name.clone(),
                        column: name.clone(),
                        values,
                    });
                }
            }
        }
        if !retyped.is_empty() {
            let mut values = 0;
            for (c, _, _) in &retyped {
                values += self
                    .db
                    .count(&count_stmt(&table.name, &[(c.as_str(), None)]))?;
            }
            self.destructive.push(Change::ChangeColumnTypes {
                table: table.clone(),
                columns: retyped,
                values,
            });
        }
        for ix in &table.indexes {
            let wanted = IndexShape {
                columns: ix.columns.clone(),
                unique: ix.unique,
            };
            match have.indexes.get(&ix.name) {
                None => self.additive.push(Change::CreateIndex {
                    table: table.name.clone(),
                    index: ix.clone(),
                }),
                Some(Some(shape)) if *shape != wanted => {
                    self.additive.push(Change::RecreateIndex {
                        table: table.name.clone(),
                        index: ix.clone(),
                    })
                }
                Some(_) => {}
            }
        }
        if let Some(prev) = prev_table {
            for name in &prev.indexes {
                if have.indexes.contains_key(name) && !table.indexes.iter().any(|i| &i.name == name)
                {
                    self.additive.push(Change::DropIndex {
                        table: table.name.clone(),
                        index: name.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Component and media links of attributes and schemas the model no longer has.
    fn links(&mut self, model: &Model, prev: &RecordedLayout) -> Result<(), StoreError> {
        let wanted: BTreeSet<String> = model
            .database_layout()
            .tables
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let exists = |t: &str| self.existing.tables.contains_key(t);
        let media = model.media_table();
        for ps in &prev.schemas {
            let now = model.by_uid(&ps.uid);
            if let (Some(cmps), Some(now)) = (&ps.cmps_table, now)
                && wanted.contains(cmps.as_str())
                && exists(cmps)
            {
                for field in &ps.component_fields {
                    let kept = now.attribute(field).is_some_and(|a| {
                        matches!(
                            a.kind,
                            AttributeKind::Component(_) | AttributeKind::DynamicZone(_)
                        )
                    });
                    if kept {
                        continue;
                    }
                    let rows = self
                        .db
                        .count(&count_stmt(cmps, &[("field", Some(field.as_str()))]))?;
                    if rows > 0 {
                        self.destructive.push(Change::DeleteComponentLinks {
                            table: cmps.clone(),
                            field: Some(field.clone()),
                            component_type: None,
                            rows,
                        });
                    }
                }
            }
            if ps.component && now.is_none() {
                for s in model.schemas() {
                    let Some(cmps) = &s.layout.cmps_table else {
                        continue;
                    };
                    if !exists(cmps) {
                        continue;
                    }
                    let rows = self.db.count(&count_stmt(
                        cmps,
                        &[("component_type", Some(ps.uid.as_str()))],
                    ))?;
                    if rows > 0 {
                        self.destructive.push(Change::DeleteComponentLinks {
                            table: cmps.clone(),
                            field: None,
                            component_type: Some(ps.uid.clone()),
                            rows,
                        });
                    }
                }
            }
            let Some(m) = media else {
                continue;
            };
            if !exists(&m.table) {
                continue;
            }
            let fields: Vec<Option<&String>> = match now {
                None => vec![None],
                Some(now) => ps
                    .media_fields
                    .iter()
                    .filter(|f| {
                        !now.attribute(f)
                            .is_some_and(|a| matches!(a.kind, AttributeKind::Media(_)))
                    })
                    .map(Some)
                    .collect(),
            };
            for field in fields {
                let mut terms = vec![(m.type_column.as_str(), Some(ps.uid.as_str()))];
                if let Some(fl) = field {
                    terms.push(("field", Some(fl.as_str())));
                }
                let rows = self.db.count(&count_stmt(&m.table, &terms))?;
                if rows > 0 {
                    self.destructive.push(Change::DeleteMediaLinks {
                        table: m.table.clone(),
                        type_column: m.type_column.clone(),
                        related_type: ps.uid.clone(),
                        field: field.cloned(),
                        rows,
                    });
                }
            }
        }
        Ok(())
    }
}
