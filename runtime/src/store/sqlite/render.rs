//! SQLite's DDL text, as Strapi 5.54 writes it on SQLite: backtick quoting,
//! `integer not null primary key autoincrement`, declared types from
//! [`ColumnType::sqlite_decl`], `null` columns, named foreign-key constraints, named
//! indexes. Only identifiers the model computed are formatted in; `create` (`ddl.rs`)
//! and `migrate.rs` both render through here.

use crate::schema::{ColumnType, IndexDef, OnDelete, TableDef};

/// Quotes an identifier with backticks, as Strapi's SQLite DDL does.
pub fn quote(ident: &str) -> String {
    format!("`{}`", ident.replace('`', "``"))
}

/// The `create table` statement Strapi issues for `table`.
pub fn create_table_sql(table: &TableDef) -> String {
    create_table_sql_with(table, &[])
}

/// [`create_table_sql`] with extra `(column, declared type)` pairs after the model's
/// columns (used to keep columns strata does not own when a table is rebuilt).
pub fn create_table_sql_with(table: &TableDef, extra: &[(String, String)]) -> String {
    let mut parts: Vec<String> = table
        .columns
        .iter()
        .map(|c| match c.ty {
            ColumnType::Increments => {
                format!(
                    "{} integer not null primary key autoincrement",
                    quote(&c.name)
                )
            }
            ty => format!("{} {} null", quote(&c.name), ty.sqlite_decl()),
        })
        .collect();
    parts.extend(
        extra
            .iter()
            .map(|(name, decl)| format!("{} {decl} null", quote(name))),
    );
    for fk in &table.foreign_keys {
        let action = match fk.on_delete {
            OnDelete::Cascade => "CASCADE",
            OnDelete::SetNull => "SET NULL",
        };
        parts.push(format!(
            "constraint {} foreign key({}) references {}({}) on delete {action}",
            quote(&fk.name),
            quote(&fk.column),
            quote(&fk.ref_table),
            quote(&fk.ref_column)
        ));
    }
    format!("create table {} ({})", quote(&table.name), parts.join(", "))
}

/// The `create [unique] index` statement Strapi issues for `index` on `table`.
pub fn create_index_sql(table: &str, index: &IndexDef) -> String {
    format!(
        "create {}index {} on {} ({})",
        if index.unique { "unique " } else { "" },
        quote(&index.name),
        quote(table),
        index
            .columns
            .iter()
            .map(|c| quote(c))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Every statement that creates `table` and its indexes, in Strapi's order.
pub fn table_statements(table: &TableDef) -> Vec<String> {
    let mut out = vec![create_table_sql(table)];
    out.extend(
        table
            .indexes
            .iter()
            .map(|ix| create_index_sql(&table.name, ix)),
    );
    out
}
