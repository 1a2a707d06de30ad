//! The shapes of Strapi's database layout: a schema's table and columns
//! ([`SchemaLayout`]), how a relation is stored ([`RelationStorage`]), and the flattened
//! list of tables, columns, indexes and foreign keys ([`DatabaseLayout`]) that the store
//! creates and checks. `layout.rs` computes them from the model.

use super::ids::{AttrId, SchemaId};

/// The column types of Strapi's layout (see `ColumnType::sqlite_decl` for the declared names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// Auto-increment integer primary key.
    Increments,
    /// `varchar(255)`.
    String,
    /// `text`.
    Text,
    /// `json` (SQLite) / `jsonb` (PostgreSQL).
    Json,
    /// `integer`.
    Integer,
    /// `bigint`.
    BigInteger,
    /// `float` (SQLite) / `double precision` (PostgreSQL).
    Float,
    /// `float` (SQLite) / `decimal(10, 2)` (PostgreSQL).
    Decimal,
    /// `boolean`.
    Boolean,
    /// `date`.
    Date,
    /// `time`.
    Time,
    /// `datetime` (SQLite) / `timestamp(6)` (PostgreSQL).
    DateTime,
}

impl ColumnType {
    /// The type as Strapi declares it in SQLite DDL.
    pub fn sqlite_decl(self) -> &'static str {
        match self {
            ColumnType::Increments | ColumnType::Integer => "integer",
            ColumnType::String => "varchar(255)",
            ColumnType::Text => "text",
            ColumnType::Json => "json",
            ColumnType::BigInteger => "bigint",
            ColumnType::Float | ColumnType::Decimal => "float",
            ColumnType::Boolean => "boolean",
            ColumnType::Date => "date",
            ColumnType::Time => "time",
            ColumnType::DateTime => "datetime",
        }
    }

    /// The type as Strapi declares it in PostgreSQL DDL.
    pub fn postgres_decl(self) -> &'static str {
        match self {
            ColumnType::Increments => "serial",
            ColumnType::Integer => "integer",
            ColumnType::String => "varchar(255)",
            ColumnType::Text => "text",
            ColumnType::Json => "jsonb",
            ColumnType::BigInteger => "bigint",
            ColumnType::Float => "double precision",
            ColumnType::Decimal => "decimal(10, 2)",
            ColumnType::Boolean => "boolean",
            ColumnType::Date => "date",
            ColumnType::Time => "time",
            ColumnType::DateTime => "timestamp(6)",
        }
    }
}

/// The layout of one schema.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchemaLayout {
    /// The (shortened) table name.
    pub table: String,
    /// The table's columns, in creation order.
    pub columns: Vec<Column>,
    /// The `<collectionName>_cmps` table, when the schema has components or dynamic zones.
    pub cmps_table: Option<String>,
}

/// One column of a schema's own table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The column name.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// What the column holds.
    pub role: ColumnRole,
}

/// What a column of a schema table holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnRole {
    /// `id`.
    Id,
    /// `document_id`.
    DocumentId,
    /// A scalar attribute.
    Attribute(AttrId),
    /// `created_at`.
    CreatedAt,
    /// `updated_at`.
    UpdatedAt,
    /// `published_at`.
    PublishedAt,
    /// `created_by_id` (admin user).
    CreatedBy,
    /// `updated_by_id` (admin user).
    UpdatedBy,
    /// `locale`.
    Locale,
}

/// Where the links of a relation are stored.
#[derive(Debug, Clone, PartialEq)]
pub enum RelationStorage {
    /// Not computed (only while the model is being resolved) or not applicable.
    None,
    /// This side owns a link table.
    LinkTable(LinkTable),
    /// This is the `mappedBy` side: the links live in the owner's link table, read swapped.
    MappedBy {
        /// The owning schema.
        owner: SchemaId,
        /// The owning attribute.
        owner_attribute: AttrId,
    },
    /// A `morphToMany` relation (the upload file's `related`): a `_mph` table.
    Morph(MorphTable),
}

/// A relation's link (join) table, seen from its owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTable {
    /// Table name, e.g. `articles_tags_lnk`.
    pub table: String,
    /// Column holding the owner row id, e.g. `article_id`.
    pub owner_column: String,
    /// Column holding the target row id, e.g. `tag_id` (`inv_…` for self relations).
    pub target_column: String,
    /// Orders the targets of one owner row (to-many relations only), e.g. `tag_ord`.
    pub owner_order: Option<String>,
    /// Orders the owner rows of one target row (two-way manyToOne/manyToMany), e.g. `article_ord`.
    pub inverse_order: Option<String>,
}

/// A polymorphic link table such as `files_related_mph`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MorphTable {
    /// Table name.
    pub table: String,
    /// Column holding the owning row (`file_id`).
    pub owner_column: String,
    /// Column holding the related row id (`related_id`).
    pub id_column: String,
    /// Column holding the related uid (`related_type`).
    pub type_column: String,
}

/// A table of the database layout.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDef {
    /// Table name.
    pub name: String,
    /// Columns in creation order.
    pub columns: Vec<ColumnDef>,
    /// Indexes, in creation order.
    pub indexes: Vec<IndexDef>,
    /// Foreign keys.
    pub foreign_keys: Vec<ForeignKeyDef>,
}

/// A column of a [`TableDef`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    /// Column name.
    pub name: String,
    /// Column type.
    pub ty: ColumnType,
}

/// An index of a [`TableDef`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDef {
    /// Index name.
    pub name: String,
    /// Indexed columns.
    pub columns: Vec<String>,
    /// Whether the index is unique.
    pub unique: bool,
}

/// What a foreign key does when the referenced row is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDelete {
    /// `ON DELETE CASCADE`.
    Cascade,
    /// `ON DELETE SET NULL`.
    SetNull,
}

/// A foreign key of a [`TableDef`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKeyDef {
    /// Constraint name.
    pub name: String,
    /// The referencing column.
    pub column: String,
    /// The referenced table.
    pub ref_table: String,
    /// The referenced column.
    pub ref_column: String,
    /// Delete behaviour.
    pub on_delete: OnDelete,
}

/// An index strata adds to Strapi's layout, on a column every write looks values up in
/// (see `Model::lookup_indexes`). It is not part of the [`DatabaseLayout`] Strapi's own
/// layout is compared with: a database without it is complete, only slower to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupIndex {
    /// The table indexed.
    pub table: String,
    /// The index (one column, not unique).
    pub index: IndexDef,
}

/// Every table the model needs, in a deterministic order.
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseLayout {
    /// The tables.
    pub tables: Vec<TableDef>,
}

impl DatabaseLayout {
    /// Looks a table up by name.
    pub fn table(&self, name: &str) -> Option<&TableDef> {
        self.tables.iter().find(|t| t.name == name)
    }
}
