//! Strapi v5's database layout for a content model: the table of each schema, its columns,
//! the link tables of relations, the `_cmps` join tables of components and dynamic zones,
//! and the `files_related_mph` morph table of media. Names follow
//! [`crate::schema::naming`], so they match what Strapi creates byte for byte.
//!
//! The layout is computed once, while the model is resolved, and stored on each
//! [`Schema`](super::Schema) and [`Relation`](super::Relation). [`DatabaseLayout`] flattens it
//! into the list of tables, columns, indexes and foreign keys that a database must have.

use super::error::{Problem, SchemaError};
use super::ids::{AttrId, SchemaId};
use super::model::*;
use super::naming;
use super::tables::*;

/// Fills in [`SchemaLayout`]s and [`RelationStorage`]s. Returns naming problems.
pub(crate) fn compute(model: &mut Model) -> Vec<SchemaError> {
    let mut errors = Vec::new();
    let mut collisions = Vec::new();
    let mut name = |r: Result<String, naming::NamingError>, s: &Schema, at: &str| match r {
        Ok(n) => n,
        Err(e) => {
            errors.push(SchemaError {
                file: s.source.clone(),
                path: at.to_string(),
                problem: Problem::Naming(e.to_string()),
            });
            String::new()
        }
    };

    // Pass 1: tables, columns and cmps tables.
    let mut layouts = Vec::with_capacity(model.schemas.len());
    for s in &model.schemas {
        let table = name(
            naming::table_name(&s.collection_name),
            s,
            "$.collectionName",
        );
        let mut columns = vec![Column {
            name: "id".into(),
            ty: ColumnType::Increments,
            role: ColumnRole::Id,
        }];
        let content = s.is_content_type();
        if content {
            columns.push(Column {
                name: "document_id".into(),
                ty: ColumnType::String,
                role: ColumnRole::DocumentId,
            });
        }
        for a in &s.attributes {
            if let (AttributeKind::Scalar(st), Some(col)) = (&a.kind, &a.column) {
                columns.push(Column {
                    name: col.clone(),
                    ty: st.column_type(),
                    role: ColumnRole::Attribute(a.id),
                });
            }
        }
        if content {
            for (n, ty, role) in [
                ("created_at", ColumnType::DateTime, ColumnRole::CreatedAt),
                ("updated_at", ColumnType::DateTime, ColumnRole::UpdatedAt),
                (
                    "published_at",
                    ColumnType::DateTime,
                    ColumnRole::PublishedAt,
                ),
                ("created_by_id", ColumnType::Integer, ColumnRole::CreatedBy),
                ("updated_by_id", ColumnType::Integer, ColumnRole::UpdatedBy),
                ("locale", ColumnType::String, ColumnRole::Locale),
            ] {
                columns.push(Column {
                    name: n.into(),
                    ty,
                    role,
                });
            }
        }
        // Two attributes (or an attribute and a managed column) must not share a column.
        for (i, c) in columns.iter().enumerate() {
            if let Some(prev) = columns[..i].iter().find(|p| p.name == c.name) {
                let label = |col: &Column| match col.role {
                    ColumnRole::Attribute(id) => s
                        .attributes
                        .get(id.index())
                        .map(|a| a.name.clone())
                        .unwrap_or_default(),
                    _ => format!("(managed column {})", col.name),
                };
                let at = match c.role {
                    ColumnRole::Attribute(id) => s
                        .attributes
                        .get(id.index())
                        .map(|a| format!("$.attributes.{}", a.name))
                        .unwrap_or_else(|| "$.attributes".into()),
                    _ => "$.attributes".into(),
                };
                collisions.push(SchemaError {
                    file: s.source.clone(),
                    path: at,
                    problem: Problem::ColumnCollision(label(prev), label(c), c.name.clone()),
                });
            }
        }
        let has_cmps = s.attributes.iter().any(|a| {
            matches!(
                a.kind,
                AttributeKind::Component(_) | AttributeKind::DynamicZone(_)
            )
        });
        let cmps_table = has_cmps.then(|| {
            name(
                naming::cmps_table_name(&s.collection_name),
                s,
                "$.collectionName",
            )
        });
        layouts.push(SchemaLayout {
            table,
            columns,
            cmps_table,
        });
    }

    // Pass 2: relation storage (needs every table name and singular name).
    let mut storages: Vec<(SchemaId, AttrId, RelationStorage)> = Vec::new();
    for s in &model.schemas {
        for a in &s.attributes {
            let AttributeKind::Relation(rel) = &a.kind else {
                continue;
            };
            let at = format!("$.attributes.{}", a.name);
            let storage = match (&rel.side, rel.kind, rel.target) {
                (_, RelationKind::MorphToMany, _) => {
                    let table = name(
                        naming::morph_table_name(&layouts[s.id.index()].table, &a.name),
                        s,
                        &at,
                    );
                    let owner_column =
                        name(naming::join_column_name(&s.singular_name, false), s, &at);
                    let id_column = name(naming::morph_id_column_name(&a.name), s, &at);
                    let type_column = name(naming::morph_type_column_name(&a.name), s, &at);
                    RelationStorage::Morph(MorphTable {
                        table,
                        owner_column,
                        id_column,
                        type_column,
                    })
                }
                (_, k, _) if k.is_morph() => RelationStorage::None,
                (RelationSide::Inverse { mapped_by }, _, Some(target)) => {
                    match model.schema(target).attribute_id(mapped_by) {
                        Some(owner_attribute) => RelationStorage::MappedBy {
                            owner: target,
                            owner_attribute,
                        },
                        None => RelationStorage::None,
                    }
                }
                (_, kind, Some(target)) => {
                    let t = model.schema(target);
                    let table = name(
                        naming::link_table_name(&layouts[s.id.index()].table, &a.name),
                        s,
                        &at,
                    );
                    let owner_column =
                        name(naming::join_column_name(&s.singular_name, false), s, &at);
                    let mut target_column =
                        name(naming::join_column_name(&t.singular_name, false), s, &at);
                    if target_column == owner_column {
                        target_column =
                            name(naming::join_column_name(&t.singular_name, true), s, &at);
                    }
                    let owner_order =
                        matches!(kind, RelationKind::OneToMany | RelationKind::ManyToMany).then(
                            || name(naming::order_column_name(&t.singular_name, false), s, &at),
                        );
                    let two_way = matches!(rel.side, RelationSide::Owner { .. });
                    let inverse_order = (two_way
                        && matches!(kind, RelationKind::ManyToOne | RelationKind::ManyToMany))
                    .then(|| {
                        let plain =
                            name(naming::order_column_name(&s.singular_name, false), s, &at);
                        if owner_order.as_deref() == Some(plain.as_str()) {
                            name(naming::order_column_name(&s.singular_name, true), s, &at)
                        } else {
                            plain
                        }
                    });
                    RelationStorage::LinkTable(LinkTable {
                        table,
                        owner_column,
                        target_column,
                        owner_order,
                        inverse_order,
                    })
                }
                _ => RelationStorage::None,
            };
            storages.push((s.id, a.id, storage));
        }
    }

    for (s, layout) in model.schemas.iter_mut().zip(layouts) {
        s.layout = layout;
    }
    for (sid, aid, storage) in storages {
        if let Some(AttributeKind::Relation(rel)) = model
            .schemas
            .get_mut(sid.index())
            .and_then(|s| s.attributes.get_mut(aid.index()))
            .map(|a| &mut a.kind)
        {
            rel.storage = storage;
        }
    }
    errors.extend(collisions);
    errors
}

impl Model {
    /// The upload plugin's file type, which every media attribute points to.
    pub fn upload_file(&self) -> Option<&Schema> {
        self.by_uid("plugin::upload.file")
    }

    /// The morph table that holds media links (`files_related_mph`).
    pub fn media_table(&self) -> Option<&MorphTable> {
        let file = self.upload_file()?;
        match &file.attribute("related")?.kind {
            AttributeKind::Relation(Relation {
                storage: RelationStorage::Morph(m),
                ..
            }) => Some(m),
            _ => None,
        }
    }

    /// The full database layout: for each schema its table, then its `_cmps` table,
    /// then its link and morph tables.
    pub fn database_layout(&self) -> DatabaseLayout {
        let mut tables = Vec::new();
        for s in &self.schemas {
            let l = &s.layout;
            let mut own = TableDef {
                name: l.table.clone(),
                columns: l
                    .columns
                    .iter()
                    .map(|c| ColumnDef {
                        name: c.name.clone(),
                        ty: c.ty,
                    })
                    .collect(),
                indexes: Vec::new(),
                foreign_keys: Vec::new(),
            };
            for ix in &s.declared_indexes {
                own.indexes.push(IndexDef {
                    name: ix.name.clone(),
                    columns: ix.columns.clone(),
                    unique: ix.unique,
                });
            }
            if s.is_content_type() {
                if let Ok(n) = naming::documents_index_name(&s.collection_name) {
                    own.indexes.push(IndexDef {
                        name: n,
                        columns: vec!["document_id".into(), "locale".into(), "published_at".into()],
                        unique: false,
                    });
                }
                for col in ["created_by_id", "updated_by_id"] {
                    if let Ok(n) = naming::join_column_fk_name(&l.table, col) {
                        own.indexes.push(IndexDef {
                            name: n.clone(),
                            columns: vec![col.into()],
                            unique: false,
                        });
                        own.foreign_keys.push(ForeignKeyDef {
                            name: n,
                            column: col.into(),
                            ref_table: "admin_users".into(),
                            ref_column: "id".into(),
                            on_delete: OnDelete::SetNull,
                        });
                    }
                }
            }
            tables.push(own);

            if let Some(cmps) = &l.cmps_table {
                let c = &s.collection_name;
                let n = |r: Result<String, naming::NamingError>| r.unwrap_or_default();
                let entity_fk = n(naming::cmps_index_name(c, naming::CmpsIndex::EntityFk));
                tables.push(TableDef {
                    name: cmps.clone(),
                    columns: vec![
                        col("id", ColumnType::Increments),
                        col("entity_id", ColumnType::Integer),
                        col("cmp_id", ColumnType::Integer),
                        col("component_type", ColumnType::String),
                        col("field", ColumnType::String),
                        col("order", ColumnType::Float),
                    ],
                    indexes: vec![
                        index(
                            n(naming::cmps_index_name(c, naming::CmpsIndex::Field)),
                            &["field"],
                            false,
                        ),
                        index(
                            n(naming::cmps_index_name(c, naming::CmpsIndex::ComponentType)),
                            &["component_type"],
                            false,
                        ),
                        index(entity_fk.clone(), &["entity_id"], false),
                        index(
                            n(naming::cmps_index_name(c, naming::CmpsIndex::Unique)),
                            &["entity_id", "cmp_id", "field", "component_type"],
                            true,
                        ),
                    ],
                    foreign_keys: vec![ForeignKeyDef {
                        name: entity_fk,
                        column: "entity_id".into(),
                        ref_table: l.table.clone(),
                        ref_column: "id".into(),
                        on_delete: OnDelete::Cascade,
                    }],
                });
            }

            for a in &s.attributes {
                let AttributeKind::Relation(rel) = &a.kind else {
                    continue;
                };
                match &rel.storage {
                    RelationStorage::LinkTable(lt) => {
                        let target_table = rel
                            .target
                            .map(|t| self.schema(t).layout.table.clone())
                            .unwrap_or_default();
                        tables.push(link_table_def(lt, &l.table, &target_table));
                    }
                    RelationStorage::Morph(m) => {
                        let n = |kind: naming::MorphIndex| {
                            naming::morph_index_name(&m.table, kind).unwrap_or_default()
                        };
                        let fk = n(naming::MorphIndex::Fk);
                        tables.push(TableDef {
                            name: m.table.clone(),
                            columns: vec![
                                col("id", ColumnType::Increments),
                                col(&m.owner_column, ColumnType::Integer),
                                col(&m.id_column, ColumnType::Integer),
                                col(&m.type_column, ColumnType::String),
                                col("field", ColumnType::String),
                                col("order", ColumnType::Float),
                            ],
                            indexes: vec![
                                index(fk.clone(), &[&m.owner_column], false),
                                index(n(naming::MorphIndex::Order), &["order"], false),
                                index(n(naming::MorphIndex::IdColumn), &[&m.id_column], false),
                            ],
                            foreign_keys: vec![ForeignKeyDef {
                                name: fk,
                                column: m.owner_column.clone(),
                                ref_table: l.table.clone(),
                                ref_column: "id".into(),
                                on_delete: OnDelete::Cascade,
                            }],
                        });
                    }
                    RelationStorage::MappedBy { .. } | RelationStorage::None => {}
                }
            }
        }
        DatabaseLayout { tables }
    }
}

impl Model {
    /// strata's own indexes: one on the column of each `api::` content type's attribute that every
    /// write looks values up in ([`Attribute::is_unique_checked`]: `unique` attributes and
    /// uids). Strapi's layout has none there, so its uniqueness check, and strata's
    /// (`Rows::value_taken`), read the whole table: 0.1 s a write at 1M rows.
    ///
    /// Only columns that every database indexes as they are (not `text` or JSON, which
    /// MySQL cannot index without a prefix length). Strapi keeps them: its schema sync
    /// drops only the indexes of its own stored schema (`@strapi/database`'s
    /// `diffTableIndexes`), and knex drops an SQLite index with its column.
    pub fn lookup_indexes(&self) -> Vec<LookupIndex> {
        let mut out = Vec::new();
        // The content API writes the project's own types (`api::…`) only.
        let written = |s: &&Schema| s.is_content_type() && s.uid.as_str().starts_with("api::");
        for s in self.schemas.iter().filter(written) {
            for a in s.attributes.iter().filter(|a| a.is_unique_checked()) {
                let (Some(column), AttributeKind::Scalar(ty)) = (&a.column, &a.kind) else {
                    continue;
                };
                if matches!(ty.column_type(), ColumnType::Text | ColumnType::Json) {
                    continue;
                }
                let Ok(name) = naming::lookup_index_name(&s.layout.table, column) else {
                    continue;
                };
                out.push(LookupIndex {
                    table: s.layout.table.clone(),
                    index: index(name, &[column], false),
                });
            }
        }
        out
    }
}

fn col(name: &str, ty: ColumnType) -> ColumnDef {
    ColumnDef {
        name: name.to_string(),
        ty,
    }
}

fn index(name: String, columns: &[&str], unique: bool) -> IndexDef {
    IndexDef {
        name,
        columns: columns.iter().map(|c| (*c).to_string()).collect(),
        unique,
    }
}

fn link_table_def(lt: &LinkTable, owner_table: &str, target_table: &str) -> TableDef {
    let n = |kind: naming::LinkIndex| naming::link_index_name(&lt.table, kind).unwrap_or_default();
    let mut columns = vec![
        col("id", ColumnType::Increments),
        col(&lt.owner_column, ColumnType::Integer),
        col(&lt.target_column, ColumnType::Integer),
    ];
    let fk = n(naming::LinkIndex::Fk);
    let ifk = n(naming::LinkIndex::InverseFk);
    let mut indexes = vec![
        index(fk.clone(), &[&lt.owner_column], false),
        index(ifk.clone(), &[&lt.target_column], false),
        index(
            n(naming::LinkIndex::Unique),
            &[&lt.owner_column, &lt.target_column],
            true,
        ),
    ];
    if let Some(o) = &lt.owner_order {
        columns.push(col(o, ColumnType::Float));
        indexes.push(index(n(naming::LinkIndex::OrderFk), &[o], false));
    }
    if let Some(o) = &lt.inverse_order {
        columns.push(col(o, ColumnType::Float));
        indexes.push(index(n(naming::LinkIndex::InverseOrderFk), &[o], false));
    }
    TableDef {
        name: lt.table.clone(),
        columns,
        indexes,
        foreign_keys: vec![
            ForeignKeyDef {
                name: fk,
                column: lt.owner_column.clone(),
                ref_table: owner_table.to_string(),
                ref_column: "id".into(),
                on_delete: OnDelete::Cascade,
            },
            ForeignKeyDef {
                name: ifk,
                column: lt.target_column.clone(),
                ref_table: target_table.to_string(),
                ref_column: "id".into(),
                on_delete: OnDelete::Cascade,
            },
        ],
    }
}
