//! The database layout that strata predicts for the blog model must be exactly the one
//! Strapi 5.54.0 created in `tests/fixtures/blog/strapi.db`: every table, every column in
//! order with its declared type, every index and every foreign key.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use strata::schema::{self, OnDelete};

/// Tables Strapi creates for its admin panel and internal features, which are not part of a
/// content model strata serves (see ARCHITECTURE.md, "Database layout").
fn is_strapi_internal(table: &str) -> bool {
    table.starts_with("admin_") || table.starts_with("strapi_") || table == "sqlite_sequence"
}

fn fixture(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

fn open_db() -> Connection {
    let path = fixture("blog/strapi.db");
    match Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY) {
        Ok(c) => c,
        Err(e) => panic!("cannot open {}: {e}", path.display()),
    }
}

fn query_rows<T>(
    conn: &Connection,
    sql: &str,
    f: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Vec<T> {
    let mut stmt = match conn.prepare(sql) {
        Ok(s) => s,
        Err(e) => panic!("{sql}: {e}"),
    };
    let rows = match stmt.query_map([], |r| f(r)) {
        Ok(r) => r,
        Err(e) => panic!("{sql}: {e}"),
    };
    rows.map(|r| r.unwrap_or_else(|e| panic!("{sql}: {e}")))
        .collect()
}

#[test]
fn predicted_layout_equals_strapi_database() {
    let model = schema::load(&fixture("blog/schemas")).unwrap_or_else(|e| panic!("{e}"));
    let layout = model.database_layout();
    let db = open_db();

    let db_tables: BTreeSet<String> = query_rows(
        &db,
        "select name from sqlite_master where type = 'table'",
        |r| r.get::<_, String>(0),
    )
    .into_iter()
    .collect();
    let predicted: BTreeSet<String> = layout.tables.iter().map(|t| t.name.clone()).collect();

    let missing_in_db: Vec<_> = predicted.difference(&db_tables).collect();
    assert!(
        missing_in_db.is_empty(),
        "predicted but not in strapi.db: {missing_in_db:?}"
    );
    let unpredicted: Vec<_> = db_tables
        .difference(&predicted)
        .filter(|t| !is_strapi_internal(t))
        .collect();
    assert!(
        unpredicted.is_empty(),
        "in strapi.db but not predicted: {unpredicted:?}"
    );

    let (mut columns_checked, mut indexes_checked, mut fks_checked) = (0, 0, 0);
    for table in &layout.tables {
        // Columns, in order, with Strapi's declared types.
        let actual: Vec<(String, String)> = query_rows(
            &db,
            &format!(
                "select name, type from pragma_table_info('{}') order by cid",
                table.name
            ),
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?.to_lowercase(),
                ))
            },
        );
        let expected: Vec<(String, String)> = table
            .columns
            .iter()
            .map(|c| (c.name.clone(), c.ty.sqlite_decl().to_string()))
            .collect();
        assert_eq!(actual, expected, "columns of table {}", table.name);
        columns_checked += expected.len();

        // Indexes: name → (columns, unique).
        let actual_ix: BTreeMap<String, (Vec<String>, bool)> = query_rows(
            &db,
            &format!(
                "select name, \"unique\" from pragma_index_list('{}') where origin = 'c'",
                table.name
            ),
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)),
        )
        .into_iter()
        .map(|(name, unique)| {
            let cols = query_rows(
                &db,
                &format!("select name from pragma_index_info('{name}') order by seqno"),
                |r| r.get::<_, String>(0),
            );
            (name, (cols, unique))
        })
        .collect();
        let expected_ix: BTreeMap<String, (Vec<String>, bool)> = table
            .indexes
            .iter()
            .map(|ix| (ix.name.clone(), (ix.columns.clone(), ix.unique)))
            .collect();
        assert_eq!(actual_ix, expected_ix, "indexes of table {}", table.name);
        indexes_checked += expected_ix.len();

        // Foreign keys (Strapi's SQLite tables list each one twice; compare as a set).
        let actual_fk: BTreeSet<(String, String, String, String)> = query_rows(
            &db,
            &format!(
                "select \"from\", \"table\", \"to\", on_delete from pragma_foreign_key_list('{}')",
                table.name
            ),
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get::<_, String>(3)?.to_uppercase(),
                ))
            },
        )
        .into_iter()
        .collect();
        let expected_fk: BTreeSet<(String, String, String, String)> = table
            .foreign_keys
            .iter()
            .map(|fk| {
                let on_delete = match fk.on_delete {
                    OnDelete::Cascade => "CASCADE",
                    OnDelete::SetNull => "SET NULL",
                };
                (
                    fk.column.clone(),
                    fk.ref_table.clone(),
                    fk.ref_column.clone(),
                    on_delete.to_string(),
                )
            })
            .collect();
        assert_eq!(
            actual_fk, expected_fk,
            "foreign keys of table {}",
            table.name
        );
        fks_checked += expected_fk.len();
    }
    println!(
        "layout matches strapi.db: {} tables, {columns_checked} columns, {indexes_checked} indexes, {fks_checked} foreign keys",
        layout.tables.len()
    );
}
