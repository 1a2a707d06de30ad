//! Checking an existing database against the content model, and migrating it.
//!
//! [`plan`] reads the database (`pragma table_info`, `index_list`, `index_info`) and compares
//! it with [`Model::database_layout`]. Additive changes (missing tables, columns and
//! indexes; indexes that no longer match) lose nothing and [`apply`] makes them
//! automatically. Destructive changes (a column or table that the *previous* model had and
//! the new one lacks, a column whose declared type changed, orphaned component or media
//! links) are refused with [`StoreError::Destructive`], listing exactly what would be lost,
//! unless the caller allows them.
//!
//! Which tables and columns belong to the model is remembered in a small `strata_schema`
//! table (one row holding the layout strata last created or migrated to). Only those are
//! ever dropped: tables and columns strata never created, and Strapi's `admin_*` and
//! `strapi_*` tables, are never touched. A Strapi database opened for the first time has
//! no `strata_schema`, so nothing in it is dropped.
//!
//! [`verify`] lists the tables and columns a database lacks, for read-only opening.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::render::{create_index_sql, create_table_sql, create_table_sql_with, quote};
use crate::clock::now_ms;
use crate::schema::{AttributeKind, ColumnType, DatabaseLayout, IndexDef, Model, TableDef};
use crate::store::StoreError;

/// The table where strata records the layout it created or last migrated to.
pub const STRATA_SCHEMA_TABLE: &str = "strata_schema";

/// The layout as recorded in `strata_schema`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct StoredLayout {
    version: u32,
    tables: Vec<StoredTable>,
    schemas: Vec<StoredSchema>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredTable {
    name: String,
    columns: Vec<(String, String)>,
    indexes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredSchema {
    uid: String,
    table: String,
    component: bool,
    /// Component and dynamic-zone attributes (rows in the `_cmps` table by `field`).
    component_fields: Vec<String>,
    /// Media attributes (rows in `files_related_mph` by `related_type` and `field`).
    media_fields: Vec<String>,
    cmps_table: Option<String>,
}

fn stored_layout(model: &Model, layout: &DatabaseLayout) -> StoredLayout {
    StoredLayout {
        version: 1,
        tables: layout
            .tables
            .iter()
            .map(|t| StoredTable {
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
            .map(|s| StoredSchema {
                uid: s.uid.to_string(),
                table: s.layout.table.clone(),
                component: !s.is_content_type(),
                component_fields: s
                    .attributes
                    .iter()
                    .filter(|a| {
                        matches!(
                            a.kind,
                            AttributeKind::Component(_) | AttributeKind::DynamicZone(_)
                        )
                    })
                    .map(|a| a.name.clone())
                    .collect(),
                media_fields: s
                    .attributes
                    .iter()
                    .filter(|a| matches!(a.kind, AttributeKind::Media(_)))
                    .map(|a| a.name.clone())
                    .collect(),
                cmps_table: s.layout.cmps_table.clone(),
            })
            .collect(),
    }
}

fn layout_json(model: &Model, layout: &DatabaseLayout) -> Result<String, StoreError> {
    serde_json::to_string(&stored_layout(model, layout))
        .map_err(|e| StoreError::Other(format!("cannot encode the layout: {e}")))
}

/// Records the model's layout in `strata_schema` (creating the table if needed).
pub(crate) fn record_layout(conn: &Connection, model: &Model) -> Result<(), StoreError> {
    record_json(conn, &layout_json(model, &model.database_layout())?)
}

fn record_json(conn: &Connection, json: &str) -> Result<(), StoreError> {
    conn.execute(
        &format!(
            "create table if not exists {} (`id` integer not null primary key autoincrement, `layout` json null, `time` datetime null)",
            quote(STRATA_SCHEMA_TABLE)
        ),
        [],
    )?;
    conn.execute(&format!("delete from {}", quote(STRATA_SCHEMA_TABLE)), [])?;
    conn.execute(
        &format!(
            "insert into {} (`layout`, `time`) values (?1, ?2)",
            quote(STRATA_SCHEMA_TABLE)
        ),
        params![json, now_ms()],
    )?;
    Ok(())
}

fn read_stored(conn: &Connection) -> Result<Option<StoredLayout>, StoreError> {
    if !table_exists(conn, STRATA_SCHEMA_TABLE)? {
        return Ok(None);
    }
    let json: Option<String> = conn
        .query_row(
            &format!(
                "select `layout` from {} order by id desc limit 1",
                quote(STRATA_SCHEMA_TABLE)
            ),
            [],
            |r| r.get(0),
        )
        .optional()?;
    match json {
        None => Ok(None),
        Some(j) => serde_json::from_str(&j).map(Some).map_err(|e| {
            StoreError::Other(format!(
                "the `{STRATA_SCHEMA_TABLE}` table holds an unreadable layout ({e}); delete its row to let strata treat the database as unknown"
            ))
        }),
    }
}

fn table_exists(conn: &Connection, name: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "select 1 from sqlite_master where type = 'table' and name = ?1",
            [name],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// A column as the database declares it.
fn db_columns(conn: &Connection, table: &str) -> Result<Vec<(String, String)>, StoreError> {
    let mut stmt =
        conn.prepare_cached("select name, type from pragma_table_info(?1) order by cid")?;
    let rows = stmt.query_map([table], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?.to_lowercase(),
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The indexes created by `create index` on `table`: name → (columns, unique).
fn db_indexes(
    conn: &Connection,
    table: &str,
) -> Result<BTreeMap<String, (Vec<String>, bool)>, StoreError> {
    let mut stmt = conn
        .prepare_cached("select name, \"unique\" from pragma_index_list(?1) where origin = 'c'")?;
    let names: Vec<(String, bool)> = stmt
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut out = BTreeMap::new();
    let mut info = conn.prepare_cached("select name from pragma_index_info(?1) order by seqno")?;
    for (name, unique) in names {
        let cols: Vec<String> = info
            .query_map([&name], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        out.insert(name, (cols, unique));
    }
    Ok(out)
}

/// How a table is rebuilt when column types change (SQLite cannot alter a column type).
#[derive(Debug, Clone, PartialEq)]
pub struct Rebuild {
    /// The table.
    pub table: String,
    /// `(column, declared type now, type the model needs)` for each changed column.
    pub columns: Vec<(String, String, ColumnType)>,
    /// Non-null values in the changed columns, which will be converted by SQLite's affinity.
    pub values: u64,
    create_sql: String,
    copy_columns: Vec<String>,
    index_sql: Vec<String>,
}

/// One change of a [`MigrationPlan`].
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A table the model needs and the database lacks.
    CreateTable(TableDef),
    /// A column the model needs and the table lacks (added with `alter table … add column`).
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
        /// The index.
        index: String,
    },
    /// Columns whose declared type differs from the model's: the table is rebuilt.
    ChangeColumnTypes(Rebuild),
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
            Change::DropIndex { index } => write!(f, "drop index `{index}`"),
            Change::ChangeColumnTypes(r) => {
                let cols = r
                    .columns
                    .iter()
                    .map(|(c, from, to)| format!("`{c}` {from} → {}", to.sqlite_decl()))
                    .collect::<Vec<_>>()
                    .join(", ");
                write!(
                    f,
                    "change the type of column(s) of `{}`: {cols} (the table is rebuilt; {} non-null values are converted and may lose precision or become NULL-like text)",
                    r.table, r.values
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
    /// Changes that lose no data, applied automatically.
    pub additive: Vec<Change>,
    /// Changes that lose data, applied only when explicitly allowed.
    pub destructive: Vec<Change>,
    /// Whether the recorded layout needs writing even if no change is needed.
    record: bool,
    /// The layout to record in `strata_schema` once applied.
    layout: String,
}

impl MigrationPlan {
    /// True when the database already matches the model.
    pub fn is_empty(&self) -> bool {
        self.additive.is_empty() && self.destructive.is_empty()
    }

    /// One line per destructive change, saying what would be lost.
    pub fn destructive_lines(&self) -> Vec<String> {
        self.destructive.iter().map(|c| format!("  {c}")).collect()
    }
}

fn count(conn: &Connection, sql: &str, params: &[&dyn rusqlite::ToSql]) -> Result<u64, StoreError> {
    let n: i64 = conn.query_row(sql, params, |r| r.get(0))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Compares the database with the model's layout (see the module docs).
pub fn plan(conn: &Connection, model: &Model) -> Result<MigrationPlan, StoreError> {
    let layout = model.database_layout();
    let previous = read_stored(conn)?;
    let mut additive = Vec::new();
    let mut destructive = Vec::new();
    let wanted: BTreeSet<&str> = layout.tables.iter().map(|t| t.name.as_str()).collect();

    for table in &layout.tables {
        if !table_exists(conn, &table.name)? {
            additive.push(Change::CreateTable(table.clone()));
            continue;
        }
        let cols = db_columns(conn, &table.name)?;
        let have: BTreeMap<&str, &str> =
            cols.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        let mut retyped = Vec::new();
        for c in &table.columns {
            match have.get(c.name.as_str()) {
                None => additive.push(Change::AddColumn {
                    table: table.name.clone(),
                    column: c.name.clone(),
                    ty: c.ty,
                }),
                Some(decl) if *decl != c.ty.sqlite_decl() => {
                    retyped.push((c.name.clone(), (*decl).to_string(), c.ty));
                }
                Some(_) => {}
            }
        }
        let prev_table = previous
            .as_ref()
            .and_then(|p| p.tables.iter().find(|t| t.name == table.name));
        let mut dropped_cols = BTreeSet::new();
        if let Some(prev) = prev_table {
            for (name, _) in &prev.columns {
                if have.contains_key(name.as_str())
                    && !table.columns.iter().any(|c| &c.name == name)
                {
                    let values = count(
                        conn,
                        &format!(
                            "select count(*) from {} where {} is not null",
                            quote(&table.name),
                            quote(name)
                        ),
                        &[],
                    )?;
                    dropped_cols.insert(name.clone());
                    destructive.push(Change::DropColumn {
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
                values += count(
                    conn,
                    &format!(
                        "select count(*) from {} where {} is not null",
                        quote(&table.name),
                        quote(c)
                    ),
                    &[],
                )?;
            }
            // Keep the columns strata does not own (they are not in the model) after the
            // model's own; columns being dropped are left out.
            let extra: Vec<(String, String)> = cols
                .iter()
                .filter(|(n, _)| {
                    !table.columns.iter().any(|c| &c.name == n) && !dropped_cols.contains(n)
                })
                .cloned()
                .collect();
            let create_sql = create_table_sql_with(table, &extra);
            let mut copy_columns: Vec<String> = table
                .columns
                .iter()
                .filter(|c| have.contains_key(c.name.as_str()))
                .map(|c| c.name.clone())
                .collect();
            copy_columns.extend(extra.iter().map(|(n, _)| n.clone()));
            // Every index of the model, plus the ones strata does not own, are created again.
            let prev_indexes: BTreeSet<&str> = prev_table
                .map(|p| p.indexes.iter().map(String::as_str).collect())
                .unwrap_or_default();
            let mut index_sql: Vec<String> = table
                .indexes
                .iter()
                .map(|ix| create_index_sql(&table.name, ix))
                .collect();
            let mut stmt = conn.prepare_cached(
                "select name, sql from sqlite_master where type = 'index' and tbl_name = ?1 and sql is not null",
            )?;
            let foreign: Vec<(String, String)> = stmt
                .query_map([&table.name], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            for (name, sql) in foreign {
                if !table.indexes.iter().any(|ix| ix.name == name)
                    && !prev_indexes.contains(name.as_str())
                {
                    index_sql.push(sql);
                }
            }
            destructive.push(Change::ChangeColumnTypes(Rebuild {
                table: table.name.clone(),
                columns: retyped,
                values,
                create_sql,
                copy_columns,
                index_sql,
            }));
        }

        let indexes = db_indexes(conn, &table.name)?;
        for ix in &table.indexes {
            match indexes.get(&ix.name) {
                None => additive.push(Change::CreateIndex {
                    table: table.name.clone(),
                    index: ix.clone(),
                }),
                Some((cols, unique)) if *cols != ix.columns || *unique != ix.unique => additive
                    .push(Change::RecreateIndex {
                        table: table.name.clone(),
                        index: ix.clone(),
                    }),
                Some(_) => {}
            }
        }
        if let Some(prev) = prev_table {
            for name in &prev.indexes {
                if indexes.contains_key(name) && !table.indexes.iter().any(|i| &i.name == name) {
                    additive.push(Change::DropIndex {
                        index: name.clone(),
                    });
                }
            }
        }
    }

    if let Some(prev) = &previous {
        // Component and media links of attributes and schemas the model no longer has.
        let media = model.media_table();
        for ps in &prev.schemas {
            let now = model.by_uid(&ps.uid);
            if let (Some(cmps), Some(now)) = (&ps.cmps_table, now)
                && wanted.contains(cmps.as_str())
                && table_exists(conn, cmps)?
            {
                for field in &ps.component_fields {
                    let kept = now.attribute(field).is_some_and(|a| {
                        matches!(
                            a.kind,
                            AttributeKind::Component(_) | AttributeKind::DynamicZone(_)
                        )
                    });
                    if !kept {
                        let rows = count(
                            conn,
                            &format!("select count(*) from {} where `field` = ?1", quote(cmps)),
                            &[field],
                        )?;
                        if rows > 0 {
                            destructive.push(Change::DeleteComponentLinks {
                                table: cmps.clone(),
                                field: Some(field.clone()),
                                component_type: None,
                                rows,
                            });
                        }
                    }
                }
            }
            if ps.component && now.is_none() {
                for s in model.schemas() {
                    if let Some(cmps) = &s.layout.cmps_table
                        && table_exists(conn, cmps)?
                    {
                        let rows = count(
                            conn,
                            &format!(
                                "select count(*) from {} where `component_type` = ?1",
                                quote(cmps)
                            ),
                            &[&ps.uid],
                        )?;
                        if rows > 0 {
                            destructive.push(Change::DeleteComponentLinks {
                                table: cmps.clone(),
                                field: None,
                                component_type: Some(ps.uid.clone()),
                                rows,
                            });
                        }
                    }
                }
            }
            if let Some(m) = media
                && table_exists(conn, &m.table)?
            {
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
                    let rows = match field {
                        Some(fl) => count(
                            conn,
                            &format!(
                                "select count(*) from {} where {} = ?1 and `field` = ?2",
                                quote(&m.table),
                                quote(&m.type_column)
                            ),
                            &[&ps.uid, fl],
                        )?,
                        None => count(
                            conn,
                            &format!(
                                "select count(*) from {} where {} = ?1",
                                quote(&m.table),
                                quote(&m.type_column)
                            ),
                            &[&ps.uid],
                        )?,
                    };
                    if rows > 0 {
                        destructive.push(Change::DeleteMediaLinks {
                            table: m.table.clone(),
                            related_type: ps.uid.clone(),
                            field: field.cloned(),
                            rows,
                        });
                    }
                }
            }
        }
        // Tables the previous model had and this one does not.
        for t in &prev.tables {
            if !wanted.contains(t.name.as_str()) && table_exists(conn, &t.name)? {
                let rows = count(
                    conn,
                    &format!("select count(*) from {}", quote(&t.name)),
                    &[],
                )?;
                destructive.push(Change::DropTable {
                    table: t.name.clone(),
                    rows,
                });
            }
        }
    }

    let json = layout_json(model, &layout)?;
    let record = match &previous {
        None => true,
        Some(p) => serde_json::to_string(p).ok().as_deref() != Some(json.as_str()),
    };
    Ok(MigrationPlan {
        additive,
        destructive,
        record,
        layout: json,
    })
}

/// Applies `plan` in one transaction: the additive changes always, the destructive ones
/// only when `allow_destructive` is true (otherwise nothing is applied and the error lists
/// what would be lost). Records the new layout in `strata_schema`. Must not be called inside
/// an open transaction.
pub fn apply(
    conn: &Connection,
    plan: &MigrationPlan,
    allow_destructive: bool,
) -> Result<(), StoreError> {
    if !plan.destructive.is_empty() && !allow_destructive {
        return Err(StoreError::Destructive(plan.destructive_lines()));
    }
    if plan.is_empty() && !plan.record {
        return Ok(());
    }
    let rebuilding = !plan.destructive.is_empty();
    if rebuilding {
        // Dropping or rebuilding a table must not cascade into the tables that point at it.
        conn.pragma_update(None, "foreign_keys", "OFF")?;
    }
    let result = apply_in_transaction(conn, plan, rebuilding);
    if rebuilding {
        conn.pragma_update(None, "foreign_keys", "ON")?;
    }
    result
}

fn apply_in_transaction(
    conn: &Connection,
    plan: &MigrationPlan,
    check_fks: bool,
) -> Result<(), StoreError> {
    let tx = conn.unchecked_transaction()?;
    for change in plan.additive.iter().chain(&plan.destructive) {
        apply_change(&tx, change)?;
    }
    if check_fks {
        let broken: Option<String> = tx
            .query_row(
                "select \"table\" from pragma_foreign_key_check limit 1",
                [],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(t) = broken {
            return Err(StoreError::Other(format!(
                "the migration would leave rows of `{t}` pointing at missing rows; nothing was changed"
            )));
        }
    }
    record_json(&tx, &plan.layout)?;
    tx.commit()?;
    Ok(())
}

fn apply_change(conn: &Connection, change: &Change) -> Result<(), StoreError> {
    match change {
        Change::CreateTable(t) => {
            conn.execute(&create_table_sql(t), [])?;
            for ix in &t.indexes {
                conn.execute(&create_index_sql(&t.name, ix), [])?;
            }
        }
        Change::AddColumn { table, column, ty } => {
            conn.execute(
                &format!(
                    "alter table {} add column {} {} null",
                    quote(table),
                    quote(column),
                    ty.sqlite_decl()
                ),
                [],
            )?;
        }
        Change::CreateIndex { table, index } => {
            conn.execute(&create_index_sql(table, index), [])?;
        }
        Change::RecreateIndex { table, index } => {
            conn.execute(&format!("drop index if exists {}", quote(&index.name)), [])?;
            conn.execute(&create_index_sql(table, index), [])?;
        }
        Change::DropIndex { index } => {
            conn.execute(&format!("drop index if exists {}", quote(index)), [])?;
        }
        Change::ChangeColumnTypes(r) => {
            let tmp = format!("{}__strata_rebuild", r.table);
            let create = r.create_sql.replacen(&quote(&r.table), &quote(&tmp), 1);
            conn.execute(&create, [])?;
            let cols = r
                .copy_columns
                .iter()
                .map(|c| quote(c))
                .collect::<Vec<_>>()
                .join(", ");
            conn.execute(
                &format!(
                    "insert into {} ({cols}) select {cols} from {}",
                    quote(&tmp),
                    quote(&r.table)
                ),
                [],
            )?;
            conn.execute(&format!("drop table {}", quote(&r.table)), [])?;
            conn.execute(
                &format!("alter table {} rename to {}", quote(&tmp), quote(&r.table)),
                [],
            )?;
            for sql in &r.index_sql {
                conn.execute(sql, [])?;
            }
        }
        Change::DropColumn { table, column, .. } => {
            // Indexes on the column go first (SQLite refuses to drop an indexed column).
            let indexes = db_indexes(conn, table)?;
            for (name, (cols, _)) in indexes {
                if cols.iter().any(|c| c == column) {
                    conn.execute(&format!("drop index if exists {}", quote(&name)), [])?;
                }
            }
            conn.execute(
                &format!("alter table {} drop column {}", quote(table), quote(column)),
                [],
            )?;
        }
        Change::DropTable { table, .. } => {
            conn.execute(&format!("drop table if exists {}", quote(table)), [])?;
        }
        Change::DeleteComponentLinks {
            table,
            field,
            component_type,
            ..
        } => match (field, component_type) {
            (Some(f), _) => {
                conn.execute(
                    &format!("delete from {} where `field` = ?1", quote(table)),
                    [f],
                )?;
            }
            (None, Some(ct)) => {
                conn.execute(
                    &format!("delete from {} where `component_type` = ?1", quote(table)),
                    [ct],
                )?;
            }
            (None, None) => {}
        },
        Change::DeleteMediaLinks {
            table,
            related_type,
            field,
            ..
        } => {
            let type_col = "`related_type`";
            match field {
                Some(f) => conn.execute(
                    &format!(
                        "delete from {} where {type_col} = ?1 and `field` = ?2",
                        quote(table)
                    ),
                    params![related_type, f],
                )?,
                None => conn.execute(
                    &format!("delete from {} where {type_col} = ?1", quote(table)),
                    [related_type],
                )?,
            };
        }
    }
    Ok(())
}

/// Plans and applies the additive changes; refuses destructive ones unless allowed.
pub fn migrate(
    conn: &Connection,
    model: &Model,
    allow_destructive: bool,
) -> Result<MigrationPlan, StoreError> {
    let p = plan(conn, model)?;
    apply(conn, &p, allow_destructive)?;
    Ok(p)
}

/// The tables and columns the model needs that the database lacks, one readable line each
/// (empty when the database can serve the model). Used when a database is opened read-only.
pub fn verify(conn: &Connection, model: &Model) -> Vec<String> {
    let mut problems = Vec::new();
    let owners: BTreeMap<&str, &str> = model
        .schemas()
        .iter()
        .map(|s| (s.layout.table.as_str(), s.uid.as_str()))
        .collect();
    for table in &model.database_layout().tables {
        let needed_by = owners
            .get(table.name.as_str())
            .map(|uid| format!(" (the table of `{uid}`)"))
            .unwrap_or_default();
        match table_exists(conn, &table.name) {
            Err(e) => {
                problems.push(format!("cannot inspect table `{}`: {e}", table.name));
                continue;
            }
            Ok(false) => {
                problems.push(format!("missing table `{}`{needed_by}", table.name));
                continue;
            }
            Ok(true) => {}
        }
        match db_columns(conn, &table.name) {
            Err(e) => problems.push(format!("cannot inspect table `{}`: {e}", table.name)),
            Ok(cols) => {
                for c in &table.columns {
                    if !cols.iter().any(|(n, _)| n == &c.name) {
                        problems.push(format!(
                            "table `{}`{needed_by} has no column `{}` ({})",
                            table.name,
                            c.name,
                            c.ty.sqlite_decl()
                        ));
                    }
                }
            }
        }
    }
    problems
}
