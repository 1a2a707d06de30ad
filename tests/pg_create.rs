//! Fresh PostgreSQL databases: `strata import` (and `strata serve` with a seed) create
//! Strapi's exact PostgreSQL layout (every table, column type, index and constraint of a
//! database Strapi created, compared with a restore of Strapi's own dump) and import the
//! dataset in one transaction; the imported blog answers the PostgreSQL goldens (ids and
//! timestamps aside); a failing import leaves the database empty; a second import into
//! a database with tables is refused.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use common::pg::TestDb;

/// Every column (with its type), index and constraint name of the current schema.
fn layout(db: &TestDb) -> BTreeSet<String> {
    db.pool()
        .with_client(async |c| {
            let mut out = BTreeSet::new();
            for row in c
                .query(
                    "SELECT table_name::text, column_name::text, data_type::text, \
                     coalesce(numeric_precision, 0)::int, coalesce(numeric_scale, 0)::int, \
                     coalesce(character_maximum_length, 0)::int \
                     FROM information_schema.columns WHERE table_schema = current_schema()",
                    &[],
                )
                .await
                .map_err(common::pg::pg_error)?
            {
                out.insert(format!(
                    "column {}.{} {} {} {} {}",
                    row.get::<_, String>(0),
                    row.get::<_, String>(1),
                    row.get::<_, String>(2),
                    row.get::<_, i32>(3),
                    row.get::<_, i32>(4),
                    row.get::<_, i32>(5)
                ));
            }
            for row in c
                .query(
                    "SELECT tablename::text, indexname::text, indexdef FROM pg_indexes \
                     WHERE schemaname = current_schema()",
                    &[],
                )
                .await
                .map_err(common::pg::pg_error)?
            {
                out.insert(format!("index {}", row.get::<_, String>(2)));
            }
            for row in c
                .query(
                    "SELECT conrelid::regclass::text, conname::text, pg_get_constraintdef(oid) \
                     FROM pg_constraint WHERE connamespace = current_schema()::regnamespace",
                    &[],
                )
                .await
                .map_err(common::pg::pg_error)?
            {
                out.insert(format!(
                    "constraint {} {} {}",
                    row.get::<_, String>(0),
                    row.get::<_, String>(1),
                    row.get::<_, String>(2)
                ));
            }
            Ok(out)
        })
        .unwrap()
}

#[test]
fn import_creates_strapis_layout_and_answers_the_goldens() {
    let Some(strapi) = common::pg::strapi_blog("layout") else {
        return;
    };
    let db = TestDb::create("create").unwrap();
    common::fresh_import_answers_as_strapi(
        &db.url,
        &|| layout(&db),
        &layout(&strapi),
        &common::blog().join("pg/goldens"),
    );
}

#[test]
fn an_existing_database_is_migrated_additively() {
    let Some(db) = common::pg::strapi_blog("migrate") else {
        return;
    };
    let before = layout(&db);
    // A table, a column and an index the model has, gone (as after an older model).
    db.execute(
        "DROP TABLE components_shared_faq_items CASCADE; \
         ALTER TABLE authors DROP COLUMN bio; \
         DROP INDEX articles_documents_idx",
    );
    let model = std::sync::Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap());
    let options = strata::store::OpenOptions::default();
    let (_, opened) =
        strata::store::Store::open(&db.database_url(), model.clone(), &options).unwrap();
    let strata::store::Opened::Existing { migrated } = opened else {
        panic!("{opened:?}")
    };
    assert_eq!(
        migrated,
        [
            "create index articles_documents_idx on articles",
            "add column authors.bio",
            "create table components_shared_faq_items",
            // strata's own indexes on the uids that every write looks up.
            "create index strata_articles_slug_lookup on articles",
            "create index strata_categories_slug_lookup on categories",
        ]
    );
    // Strapi's layout again, plus those two.
    let own: std::collections::BTreeSet<String> =
        layout(&db).difference(&before).cloned().collect();
    assert_eq!(
        own.into_iter().collect::<Vec<_>>(),
        [
            "index CREATE INDEX strata_articles_slug_lookup ON public.articles USING btree (slug)",
            "index CREATE INDEX strata_categories_slug_lookup ON public.categories USING btree (slug)",
        ]
    );
    assert!(before.is_subset(&layout(&db)));
    // Nothing left to do: a matching database is not written to.
    let (_, again) = strata::store::Store::open(&db.database_url(), model, &options).unwrap();
    assert_eq!(again, strata::store::Opened::Existing { migrated: vec![] });
}

#[test]
fn import_into_an_existing_database_answers_the_goldens() {
    let Some(db) = TestDb::create("existing") else {
        return;
    };
    common::existing_import_answers_as_strapi(&db.url, &common::blog().join("pg/goldens"));
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
