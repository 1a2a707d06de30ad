//! A fresh database created by strata has exactly the layout Strapi 5.54 creates (the
//! model's tables as predicted, Strapi's own tables as in the real `strapi.db`) and the rows
//! Strapi expects at boot; schema changes migrate additively, and destructive ones are
//! refused unless allowed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use rusqlite::{Connection, OpenFlags};
use strata::schema::{self, Model, OnDelete};
use strata::store::StoreError;
use strata::store::sqlite::{ddl, migrate};

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

/// A fresh, empty directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "strata-create-migrate-{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn blog_model() -> Model {
    schema::load(&fixture("blog/schemas")).unwrap_or_else(|e| panic!("{e}"))
}

fn fresh_db(dir: &Path, model: &Model) -> Connection {
    let conn = Connection::open(dir.join("data.db")).unwrap();
    ddl::create_database(&conn, model).unwrap();
    conn
}

fn rows<T>(
    conn: &Connection,
    sql: &str,
    f: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Vec<T> {
    let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    stmt.query_map([], |r| f(r))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

fn tables(conn: &Connection) -> BTreeSet<String> {
    rows(
        conn,
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'",
        |r| r.get(0),
    )
    .into_iter()
    .collect()
}

fn columns(conn: &Connection, table: &str) -> Vec<(String, String)> {
    rows(
        conn,
        &format!("select name, lower(type) from pragma_table_info('{table}') order by cid"),
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

type Indexes = BTreeMap<String, (Vec<String>, bool)>;

/// A core-store row: key, value, type, environment, tag.
type Setting = (String, String, String, Option<String>, Option<String>);

fn indexes(conn: &Connection, table: &str) -> Indexes {
    rows(
        conn,
        &format!("select name, \"unique\" from pragma_index_list('{table}') where origin = 'c'"),
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)),
    )
    .into_iter()
    .map(|(name, unique)| {
        let cols = rows(
            conn,
            &format!("select name from pragma_index_info('{name}') order by seqno"),
            |r| r.get(0),
        );
        (name, (cols, unique))
    })
    .collect()
}

fn foreign_keys(conn: &Connection, table: &str) -> BTreeSet<(String, String, String, String)> {
    rows(
        conn,
        &format!(
            "select \"from\", \"table\", \"to\", upper(on_delete) from pragma_foreign_key_list('{table}')"
        ),
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )
    .into_iter()
    .collect()
}

#[test]
fn fresh_database_has_the_predicted_layout() {
    let dir = temp_dir("layout");
    let model = blog_model();
    let conn = fresh_db(&dir, &model);
    let layout = model.database_layout();
    let (mut n_cols, mut n_ix, mut n_fk) = (0, 0, 0);
    for table in &layout.tables {
        let expected: Vec<(String, String)> = table
            .columns
            .iter()
            .map(|c| (c.name.clone(), c.ty.sqlite_decl().to_string()))
            .collect();
        assert_eq!(
            columns(&conn, &table.name),
            expected,
            "columns of {}",
            table.name
        );
        n_cols += expected.len();
        let expected_ix: Indexes = table
            .indexes
            .iter()
            .map(|ix| (ix.name.clone(), (ix.columns.clone(), ix.unique)))
            .collect();
        assert_eq!(
            indexes(&conn, &table.name),
            expected_ix,
            "indexes of {}",
            table.name
        );
        n_ix += expected_ix.len();
        let expected_fk: BTreeSet<_> = table
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
            foreign_keys(&conn, &table.name),
            expected_fk,
            "foreign keys of {}",
            table.name
        );
        n_fk += expected_fk.len();
    }
    // The primary keys are Strapi's `integer not null primary key autoincrement`.
    let articles_sql: String = conn
        .query_row(
            "select sql from sqlite_master where type = 'table' and name = 'articles'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        articles_sql.starts_with(
            "CREATE TABLE `articles` (`id` integer not null primary key autoincrement, `document_id` varchar(255) null,"
        ),
        "{articles_sql}"
    );
    println!(
        "fresh database: {} tables, {n_cols} columns, {n_ix} indexes, {n_fk} foreign keys as predicted",
        layout.tables.len()
    );
}

#[test]
fn fresh_database_has_every_table_of_a_real_strapi_database() {
    let dir = temp_dir("strapi");
    let model = blog_model();
    let conn = fresh_db(&dir, &model);
    let strapi =
        Connection::open_with_flags(fixture("blog/strapi.db"), OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let ours = tables(&conn);
    let theirs = tables(&strapi);
    let missing: Vec<_> = theirs.difference(&ours).collect();
    assert!(
        missing.is_empty(),
        "tables Strapi has and strata does not create: {missing:?}"
    );
    let extra: Vec<_> = ours.difference(&theirs).collect();
    assert_eq!(extra, vec!["strata_schema"], "tables only strata creates");
    for t in &theirs {
        assert_eq!(columns(&conn, t), columns(&strapi, t), "columns of {t}");
        assert_eq!(indexes(&conn, t), indexes(&strapi, t), "indexes of {t}");
        assert_eq!(
            foreign_keys(&conn, t),
            foreign_keys(&strapi, t),
            "foreign keys of {t}"
        );
    }
    // Foreign keys are on, the journal is WAL.
    let fk: i64 = conn
        .query_row("pragma foreign_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(fk, 1);
    let mode: String = conn
        .query_row("pragma journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn fresh_database_has_the_rows_strapi_expects_at_boot() {
    let dir = temp_dir("rows");
    let model = blog_model();
    let conn = fresh_db(&dir, &model);
    let migrations: Vec<String> = rows(
        &conn,
        "select name from strapi_migrations_internal order by id",
        |r| r.get(0),
    );
    assert_eq!(migrations, ddl::STRAPI_INTERNAL_MIGRATIONS.to_vec());
    let settings: Vec<Setting> = rows(
        &conn,
        "select key, value, type, environment, tag from strapi_core_store_settings order by key",
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    );
    assert_eq!(
        settings,
        vec![
            (
                "plugin_i18n_default_locale".into(),
                "\"en\"".into(),
                "string".into(),
                None,
                None
            ),
            (
                "strapi_unidirectional-join-table-repair-ran".into(),
                "true".into(),
                "boolean".into(),
                None,
                None
            ),
        ]
    );
    let roles: Vec<(i64, String, String)> = rows(
        &conn,
        "select id, name, type from up_roles order by id",
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    );
    assert_eq!(
        roles,
        vec![
            (1, "Authenticated".into(), "authenticated".into()),
            (2, "Public".into(), "public".into())
        ]
    );
    let schema_rows: i64 = conn
        .query_row("select count(*) from strapi_database_schema", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(schema_rows, 0, "strapi_database_schema must stay empty");
    let content_types_schema: i64 = conn
        .query_row(
            "select count(*) from strapi_core_store_settings where key = 'strapi_content_types_schema'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(content_types_schema, 0);
    // Creating over an existing database is refused.
    let err = ddl::create_database(&conn, &model).unwrap_err();
    assert!(err.to_string().contains("already has"), "{err}");
    // A fresh database needs no migration.
    let plan = migrate::plan(&conn, &model).unwrap();
    assert!(plan.is_empty(), "{plan:?}");
    assert!(migrate::verify(&conn, &model).is_empty());
}

#[test]
fn locales_and_public_permissions_are_seeded_from_a_list() {
    let dir = temp_dir("seed");
    let model = blog_model();
    let conn = fresh_db(&dir, &model);
    let locales = [
        ddl::LocaleSeed::new("en", "English (en)", false),
        ddl::LocaleSeed::new("fr", "French (fr)", true),
    ];
    assert_eq!(ddl::seed_locales(&conn, &model, &locales).unwrap(), 2);
    assert_eq!(
        ddl::seed_locales(&conn, &model, &locales).unwrap(),
        0,
        "idempotent"
    );
    let default: String = conn
        .query_row(
            "select value from strapi_core_store_settings where key = 'plugin_i18n_default_locale'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(default, "\"fr\"");
    let actions: Vec<String> = [
        "api::article.article.find",
        "api::article.article.findOne",
        "api::tag.tag.find",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        ddl::seed_public_permissions(&conn, &model, &actions).unwrap(),
        3
    );
    assert_eq!(
        ddl::seed_public_permissions(&conn, &model, &actions).unwrap(),
        0
    );
    // The query Strapi runs on every public request finds them, in order.
    let granted: Vec<(String, f64)> = rows(
        &conn,
        "select t0.action, t1.permission_ord from up_permissions t0 left join up_permissions_role_lnk t1 on t0.id = t1.permission_id left join up_roles t2 on t1.role_id = t2.id where t2.type = 'public' order by t0.id",
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(
        granted,
        vec![
            ("api::article.article.find".to_string(), 1.0),
            ("api::article.article.findOne".to_string(), 2.0),
            ("api::tag.tag.find".to_string(), 3.0)
        ]
    );
    let err = ddl::seed_public_permissions(&conn, &model, &["api::nope.nope.find".to_string()])
        .unwrap_err();
    assert!(err.to_string().contains("api::nope.nope.find"), "{err}");
}

/// Edits a schema file as JSON.
fn edit_schema(path: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn additive_changes_migrate_automatically() {
    let dir = temp_dir("additive");
    let schemas = dir.join("schemas");
    copy_dir(&fixture("blog/schemas"), &schemas);
    let conn = fresh_db(&dir, &schema::load(&schemas).unwrap());
    conn.execute(
        "insert into articles (document_id, title, locale) values ('a1', 'Kept', 'en')",
        [],
    )
    .unwrap();

    // A new attribute on an existing type, and a new type with a relation.
    edit_schema(
        &schemas.join("api/article/content-types/article/schema.json"),
        |v| {
            v["attributes"]["subtitle"] = serde_json::json!({"type": "string"});
        },
    );
    common::write_content_type(
        &schemas,
        "page",
        r#"{"kind": "collectionType", "collectionName": "pages",
            "info": {"singularName": "page", "pluralName": "pages", "displayName": "Page"},
            "options": {"draftAndPublish": false},
            "attributes": {"title": {"type": "string"},
                           "author": {"type": "relation", "relation": "manyToOne", "target": "api::author.author"}}}"#,
    );
    let model = schema::load(&schemas).unwrap_or_else(|e| panic!("{e}"));
    assert!(!migrate::verify(&conn, &model).is_empty());

    let plan = migrate::plan(&conn, &model).unwrap();
    assert!(plan.destructive.is_empty(), "{plan:?}");
    let described: Vec<String> = plan.additive.iter().map(|c| c.to_string()).collect();
    assert!(
        described.contains(&"add column `articles`.`subtitle` (varchar(255))".to_string()),
        "{described:?}"
    );
    assert!(
        described.contains(&"create table `pages`".to_string()),
        "{described:?}"
    );
    assert!(
        described.contains(&"create table `pages_author_lnk`".to_string()),
        "{described:?}"
    );
    migrate::apply(&conn, &plan, false).unwrap();

    assert!(migrate::verify(&conn, &model).is_empty());
    assert!(migrate::plan(&conn, &model).unwrap().is_empty());
    let cols: Vec<String> = columns(&conn, "articles")
        .into_iter()
        .map(|c| c.0)
        .collect();
    assert!(cols.contains(&"subtitle".to_string()));
    let kept: String = conn
        .query_row(
            "select title from articles where document_id = 'a1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, "Kept");
    let layout = model.database_layout();
    for t in ["pages", "pages_author_lnk"] {
        let def = layout.table(t).unwrap();
        let expected_ix: Indexes = def
            .indexes
            .iter()
            .map(|ix| (ix.name.clone(), (ix.columns.clone(), ix.unique)))
            .collect();
        assert_eq!(indexes(&conn, t), expected_ix, "indexes of {t}");
    }
}

#[test]
fn destructive_changes_are_refused_unless_allowed() {
    let dir = temp_dir("destructive");
    let schemas = dir.join("schemas");
    copy_dir(&fixture("blog/schemas"), &schemas);
    let conn = fresh_db(&dir, &schema::load(&schemas).unwrap());
    conn.execute(
        "insert into authors (document_id, name, bio) values ('a1', 'Ada', 'First programmer.')",
        [],
    )
    .unwrap();
    conn.execute(
        "insert into secrets (document_id, label) values ('s1', 'x')",
        [],
    )
    .unwrap();

    // Remove an attribute (`bio`) and a whole type (`secret`, and the article's relation to it).
    edit_schema(
        &schemas.join("api/author/content-types/author/schema.json"),
        |v| {
            v["attributes"].as_object_mut().unwrap().remove("bio");
        },
    );
    edit_schema(
        &schemas.join("api/article/content-types/article/schema.json"),
        |v| {
            v["attributes"].as_object_mut().unwrap().remove("secret");
        },
    );
    std::fs::remove_dir_all(schemas.join("api/secret")).unwrap();
    let model = schema::load(&schemas).unwrap_or_else(|e| panic!("{e}"));

    let plan = migrate::plan(&conn, &model).unwrap();
    let lost: Vec<String> = plan.destructive.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        lost,
        vec![
            "drop column `authors`.`bio` (1 non-null values)".to_string(),
            "drop table `articles_secret_lnk` (0 rows)".to_string(),
            "drop table `secrets` (1 rows)".to_string(),
        ]
    );
    let err = migrate::apply(&conn, &plan, false).unwrap_err();
    assert!(matches!(err, StoreError::Destructive(_)));
    let msg = err.to_string();
    assert!(msg.contains("`authors`.`bio`"), "{msg}");
    assert!(msg.contains("--allow-destructive"), "{msg}");
    // Nothing changed.
    assert!(columns(&conn, "authors").iter().any(|(c, _)| c == "bio"));
    assert!(tables(&conn).contains("secrets"));

    migrate::apply(&conn, &plan, true).unwrap();
    assert!(!columns(&conn, "authors").iter().any(|(c, _)| c == "bio"));
    assert!(!tables(&conn).contains("secrets"));
    assert!(!tables(&conn).contains("articles_secret_lnk"));
    let name: String = conn
        .query_row(
            "select name from authors where document_id = 'a1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(name, "Ada", "the other columns keep their data");
    assert!(migrate::plan(&conn, &model).unwrap().is_empty());
    // Strapi's own tables are never touched.
    assert!(tables(&conn).contains("admin_users"));
}

#[test]
fn type_changes_rebuild_the_table_when_allowed() {
    let dir = temp_dir("retype");
    let schemas = dir.join("schemas");
    copy_dir(&fixture("blog/schemas"), &schemas);
    let conn = fresh_db(&dir, &schema::load(&schemas).unwrap());
    conn.execute(
        "insert into tags (document_id, name) values ('t1', '42')",
        [],
    )
    .unwrap();
    conn.execute(
        "insert into articles (document_id, title) values ('a1', 'x')",
        [],
    )
    .unwrap();
    conn.execute(
        "insert into articles_tags_lnk (article_id, tag_id, tag_ord, article_ord) values (1, 1, 1, 1)",
        [],
    )
    .unwrap();
    edit_schema(
        &schemas.join("api/tag/content-types/tag/schema.json"),
        |v| {
            v["attributes"]["name"] = serde_json::json!({"type": "integer"});
        },
    );
    let model = schema::load(&schemas).unwrap_or_else(|e| panic!("{e}"));
    let plan = migrate::plan(&conn, &model).unwrap();
    assert_eq!(plan.destructive.len(), 1, "{plan:?}");
    assert!(
        plan.destructive[0]
            .to_string()
            .contains("`name` varchar(255) → integer")
    );
    migrate::apply(&conn, &plan, true).unwrap();
    assert_eq!(
        columns(&conn, "tags")[2],
        ("name".to_string(), "integer".to_string())
    );
    let (name, links): (i64, i64) = conn
        .query_row(
            "select name, (select count(*) from articles_tags_lnk) from tags",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (name, links),
        (42, 1),
        "data and links pointing at the table survive"
    );
    assert!(migrate::plan(&conn, &model).unwrap().is_empty());
}

#[test]
fn verify_reports_missing_tables_and_columns() {
    let model = blog_model();
    let strapi =
        Connection::open_with_flags(fixture("blog/strapi.db"), OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    assert_eq!(migrate::verify(&strapi, &model), Vec::<String>::new());
    // A real Strapi database with no record of strata's: nothing would be dropped.
    let plan = migrate::plan(&strapi, &model).unwrap();
    assert!(
        plan.destructive.is_empty() && plan.additive.is_empty(),
        "{plan:?}"
    );

    let dir = temp_dir("verify");
    let conn = fresh_db(&dir, &model);
    conn.execute_batch("drop table articles_tags_lnk; alter table tags drop column name;")
        .unwrap();
    let problems = migrate::verify(&conn, &model);
    assert_eq!(
        problems,
        vec![
            "missing table `articles_tags_lnk`".to_string(),
            "table `tags` (the table of `api::tag.tag`) has no column `name` (varchar(255))"
                .to_string(),
        ]
    );
}

/// strata's lookup indexes (`Model::lookup_indexes`): a Strapi database gets one on each
/// uid of the blog when strata opens it, and nothing else of its layout changes; the
/// uniqueness check of a write goes through it instead of reading the whole table; a
/// second open adds nothing; a database that refuses them (here a connection that may
/// only read) is left as it is.
#[test]
fn a_strapi_database_gets_lookup_indexes_that_unique_checks_use() {
    use strata::store::{DatabaseUrl, OpenOptions, Opened, Store};
    let dir = temp_dir("lookup");
    let path = dir.join("strapi.db");
    std::fs::copy(fixture("blog/strapi.db"), &path).unwrap();
    let names = |conn: &Connection| -> BTreeSet<String> {
        rows(
            conn,
            "select name from sqlite_master where type = 'index'",
            |r| r.get(0),
        )
        .into_iter()
        .collect()
    };
    let before = names(&Connection::open(&path).unwrap());

    // Refused: nothing is created, and nothing fails.
    let read_only = Connection::open(&path).unwrap();
    read_only.pragma_update(None, "query_only", "ON").unwrap();
    let model = std::sync::Arc::new(blog_model());
    assert!(migrate::add_lookup_indexes(&read_only, &model).is_empty());
    assert_eq!(names(&read_only), before);
    drop(read_only);

    let url = DatabaseUrl::parse(&format!("sqlite://{}", path.display())).unwrap();
    let (store, opened) = Store::open(&url, model.clone(), &OpenOptions::default()).unwrap();
    assert_eq!(
        opened,
        Opened::Existing {
            migrated: vec![
                "create index `strata_articles_slug_lookup` on `articles`".into(),
                "create index `strata_categories_slug_lookup` on `categories`".into(),
            ]
        }
    );
    let conn = Connection::open(&path).unwrap();
    let added: Vec<String> = names(&conn).difference(&before).cloned().collect();
    assert_eq!(
        added,
        [
            "strata_articles_slug_lookup",
            "strata_categories_slug_lookup"
        ]
    );

    // Publishing an article with a slug checks it against the other documents' rows.
    let data = serde_json::json!({ "views": 5 });
    let article = model.by_uid("api::article.article").unwrap().id;
    let readable = strata::query::Permissions::all(&model);
    let request = strata::write::WriteRequest {
        schema: article,
        document_id: Some("article00000000000000002"),
        locale: None,
        status: strata::write::WriteStatus::Published,
        data: data.as_object().unwrap(),
        readable: &readable,
        now_ms: 1_800_000_000_000,
        fields_omit_locale: false,
        shows_localizations: false,
        refuses_unknown_keys: true,
        answers_before_self_sync: true,
        shows_far_end_lists: false,
    };
    let (written, statements) =
        strata::store::seam::record_statements(|| strata::write::update(&store, &request));
    written.unwrap();
    let check = statements
        .iter()
        .find(|s| s.sql.starts_with("SELECT") && s.sql.contains("\"slug\" = ?"))
        .expect("the uniqueness check of the slug");
    let params: Vec<_> = check
        .values
        .iter()
        .map(strata::store::sqlite::sql_value)
        .collect();
    let plan: Vec<String> = conn
        .prepare(&format!("explain query plan {}", check.sql))
        .unwrap()
        .query_map(rusqlite::params_from_iter(params), |r| r.get(3))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert!(
        plan.iter()
            .any(|step| step.contains("USING INDEX strata_articles_slug_lookup (slug=?)")),
        "{}: {plan:?}",
        check.sql
    );

    // Nothing left to add.
    drop(store);
    let (_, again) = Store::open(&url, model, &OpenOptions::default()).unwrap();
    assert_eq!(again, Opened::Existing { migrated: vec![] });
}
