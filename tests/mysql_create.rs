//! Fresh MySQL/MariaDB databases: `strata import` creates Strapi's MySQL layout (every
//! table, column type, index and constraint of a database Strapi created, compared with a
//! restore of Strapi's own dump) and imports the dataset; the imported blog answers the
//! MariaDB goldens (ids and timestamps aside); a failing import leaves the database empty;
//! a second import is refused; an existing database is migrated additively.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use common::my::TestDb;
use mysql::prelude::Queryable;

/// Every column (with its full type), index and foreign key of the database.
fn layout(db: &TestDb) -> BTreeSet<String> {
    db.pool()
        .with_conn(|c| {
            let err = |e: mysql::Error| strata::store::StoreError::Database(e.to_string());
            let mut out = BTreeSet::new();
            let cols: Vec<(String, String, String)> = c
                .exec(
                    "SELECT table_name, column_name, column_type FROM information_schema.columns \
                     WHERE table_schema = ?",
                    (db.name.clone(),),
                )
                .map_err(err)?;
            for (t, col, ty) in cols {
                out.insert(format!("column {t}.{col} {ty}"));
            }
            let ixs: Vec<(String, String, i64, String, i64)> = c
                .exec(
                    "SELECT table_name, index_name, non_unique, column_name, seq_in_index \
                     FROM information_schema.statistics WHERE table_schema = ?",
                    (db.name.clone(),),
                )
                .map_err(err)?;
            for (t, ix, non_unique, col, seq) in ixs {
                out.insert(format!("index {t}.{ix} unique={} {seq}:{col}", non_unique == 0));
            }
            let fks: Vec<(String, String, String, String, String)> = c
                .exec(
                    "SELECT k.table_name, k.constraint_name, k.column_name, k.referenced_table_name, \
                     r.delete_rule FROM information_schema.key_column_usage k \
                     JOIN information_schema.referential_constraints r \
                     ON r.constraint_schema = k.constraint_schema AND r.constraint_name = k.constraint_name \
                     WHERE k.table_schema = ?",
                    (db.name.clone(),),
                )
                .map_err(err)?;
            for (t, name, col, rt, rule) in fks {
                out.insert(format!("fk {t}.{name} {col} -> {rt} {rule}"));
            }
            Ok(out)
        })
        .unwrap()
}

#[test]
fn import_creates_strapis_layout_and_answers_the_goldens() {
    let Some(strapi) = common::my::strapi_blog("layout") else {
        return;
    };
    let db = TestDb::create("create").unwrap();
    common::fresh_import_answers_as_strapi(
        &db.url,
        &|| layout(&db),
        &layout(&strapi),
        &common::blog().join("mysql/goldens"),
    );
}

#[test]
fn an_existing_database_is_migrated_additively() {
    let Some(db) = common::my::strapi_blog("migrate") else {
        return;
    };
    // The model lost a column, an index and a table since this database was made.
    db.execute(
        "ALTER TABLE articles DROP COLUMN contact_email; \
         ALTER TABLE tags DROP INDEX tags_documents_idx; \
         DROP TABLE components_shared_social_links",
    );
    let model = std::sync::Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let url = strata::store::DatabaseUrl::parse(&db.url).unwrap();
    let (_, opened) = strata::store::Store::open(&url, model.clone(), &Default::default()).unwrap();
    let strata::store::Opened::Existing { migrated } = opened else {
        panic!("an existing database");
    };
    assert_eq!(
        migrated,
        [
            "add column articles.contact_email",
            "create index tags_documents_idx on tags",
            "create table components_shared_social_links",
            // strata's own indexes on the uids that every write looks up.
            "create index strata_articles_slug_lookup on articles",
            "create index strata_categories_slug_lookup on categories",
        ]
    );
    // Now it matches: opening again changes nothing.
    let (_, opened) = strata::store::Store::open(&url, model, &Default::default()).unwrap();
    assert_eq!(opened, strata::store::Opened::Existing { migrated: vec![] });
}

#[test]
fn import_into_an_existing_database_answers_the_goldens() {
    let Some(db) = TestDb::create("existing") else {
        return;
    };
    common::existing_import_answers_as_strapi(&db.url, &common::blog().join("mysql/goldens"));
}

#[test]
fn links_to_rows_further_down_the_file_wait_for_them() {
    let Some(db) = TestDb::create("forward") else {
        return;
    };
    common::forward_links_wait_for_their_rows(&db.url);
}

#[test]
fn a_seeded_creation_reports_its_progress() {
    let Some(db) = TestDb::create("progress") else {
        return;
    };
    common::seed_progress_reaches_the_end(&db.url);
}
