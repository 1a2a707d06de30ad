//! Fresh PostgreSQL databases: `strata import` (and `strata serve` with a seed) create
//! Strapi's exact PostgreSQL layout (every table, column type, index and constraint of a
//! database Strapi created, compared with a restore of Strapi's own dump) and import the
//! dataset in one transaction; the imported blog answers the PostgreSQL goldens (ids and
//! timestamps aside); a failing import leaves the database empty; a second import into
//! a database with tables is refused.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::pg::TestDb;

fn strata(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("STRATA_DATABASE_URL")
        .env_remove("STRATA_CONFIG")
        .env_remove("STRATA_SCHEMAS")
        .output()
        .unwrap()
}

fn import(db: &TestDb, dataset: &str) -> std::process::Output {
    strata(&[
        "import",
        dataset,
        "--schemas",
        "tests/fixtures/blog/schemas",
        "--database",
        &db.url,
    ])
}

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

    // A dataset with problems changes nothing, not even the layout.
    let out = import(&db, "tests/fixtures/dataset/mistakes.json");
    assert_eq!(out.status.code(), Some(1));
    assert!(layout(&db).is_empty(), "a failed import left tables behind");

    let out = import(&db, "examples/blog/dataset.json");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("51 documents (129 rows)"), "{stdout}");

    // Exactly what Strapi creates: same columns and types, indexes and constraints.
    let (ours, theirs) = (layout(&db), layout(&strapi));
    let missing: Vec<_> = theirs.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&theirs).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing: {missing:#?}\nextra: {extra:#?}"
    );

    // The imported content answers as Strapi on PostgreSQL, ids and timestamps aside.
    // Two known differences come from the inputs, not from strata: the bundled dataset
    // holds the published `wordCount` Strapi showed on SQLite (9007199254740992, rounded by
    // JavaScript) where the PostgreSQL seed has ...993 (#097 filters on it), and
    // `localizations` come in the table's physical order, which follows insertion order
    // (#210).
    let addr = common::start_server_on(&db.url);
    let ignored = ["id", "createdAt", "updatedAt", "publishedAt", "wordCount"];
    let (passed, failures) = common::replay_goldens_ignoring(
        addr,
        &common::blog().join("pg/goldens"),
        &ignored,
        &[97, 210],
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(passed, 234);

    // The public role of ./strata.toml was granted.
    let (status, _, _) = common::http_get(addr, "/api/articles", &[]);
    assert_eq!(status, 200);

    // A database with tables takes no second import.
    let out = import(&db, "examples/blog/dataset.json");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already has tables"));
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
    let strata::store::open::Opened::Existing { migrated } = opened else {
        panic!("{opened:?}")
    };
    assert_eq!(
        migrated,
        [
            "create index articles_documents_idx on articles",
            "add column authors.bio",
            "create table components_shared_faq_items",
        ]
    );
    assert_eq!(layout(&db), before);
    // Nothing left to do: a matching database is not written to.
    let (_, again) = strata::store::Store::open(&db.database_url(), model, &options).unwrap();
    assert_eq!(
        again,
        strata::store::open::Opened::Existing { migrated: vec![] }
    );
}
