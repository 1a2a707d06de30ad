//! `strata import` against the real thing: importing the blog dataset (converted from the
//! seed the lab's Strapi was loaded with) into a fresh database gives the rows Strapi wrote
//! in `tests/fixtures/blog/strapi.db` (compared by documentId, locale and status, not by
//! numeric id); a dataset with mistakes reports every one and changes nothing; an error
//! late in a file writes nothing either.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OpenFlags};
use strata::schema::{self, AttributeKind, Model, RelationStorage};
use strata::store::import::ImportError;
use strata::store::sqlite::import::import_dataset;
use strata::store::sqlite::{ddl, migrate};

fn root(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "strata-import-{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn blog_model() -> Model {
    schema::load(&root("tests/fixtures/blog/schemas")).unwrap_or_else(|e| panic!("{e}"))
}

fn fresh(dir: &Path, model: &Model) -> Connection {
    let conn = Connection::open(dir.join("data.db")).unwrap();
    ddl::create_database(&conn, model).unwrap();
    conn
}

fn strapi_db() -> Connection {
    Connection::open_with_flags(
        root("tests/fixtures/blog/strapi.db"),
        OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap()
}

fn count(conn: &Connection, table: &str) -> i64 {
    conn.query_row(&format!("select count(*) from `{table}`"), [], |r| r.get(0))
        .unwrap()
}

fn all_counts(conn: &Connection) -> BTreeMap<String, i64> {
    let mut stmt = conn
        .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")
        .unwrap();
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    names
        .into_iter()
        .map(|n| (n.clone(), count(conn, &n)))
        .collect()
}

/// Every index of the database that a statement made, with that statement.
fn indexes(conn: &Connection) -> Vec<(String, String)> {
    let mut stmt = conn
        .prepare("select name, sql from sqlite_master where type = 'index' and sql is not null order by name")
        .unwrap();
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

fn foreign_keys_on(conn: &Connection) -> bool {
    conn.query_row("pragma foreign_keys", [], |r| r.get(0))
        .unwrap()
}

fn select(conn: &Connection, sql: &str) -> Vec<Vec<Sql>> {
    let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let n = stmt.column_count();
    stmt.query_map([], |r| (0..n).map(|i| r.get::<_, Sql>(i)).collect())
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

fn text(v: &Sql) -> String {
    match v {
        Sql::Null => "NULL".into(),
        Sql::Integer(i) => i.to_string(),
        Sql::Real(f) => format!("{f:?}"),
        Sql::Text(s) => format!("{s:?}"),
        Sql::Blob(b) => format!("{b:?}"),
    }
}

/// A stable name for every content and component row of a database, independent of
/// numeric ids: `uid|documentId|locale|draft` for content rows, and for a component row
/// its parent's name with the field, order and component type.
struct Names {
    rows: HashMap<(String, i64), String>,
}

impl Names {
    fn new(conn: &Connection, model: &Model) -> Names {
        let mut rows = HashMap::new();
        for s in model.content_types() {
            // Roles are created with the database (random documentIds): named by type.
            let id_col = if s.layout.table == "up_roles" {
                "type"
            } else {
                "document_id"
            };
            for r in select(
                conn,
                &format!(
                    "select id, {id_col}, locale, published_at is not null from `{}`",
                    s.layout.table
                ),
            ) {
                let Sql::Integer(id) = r[0] else { panic!() };
                let status = if r[3] == Sql::Integer(1) {
                    "published"
                } else {
                    "draft"
                };
                rows.insert(
                    (s.layout.table.clone(), id),
                    format!("{}|{}|{}|{status}", s.uid, text(&r[1]), text(&r[2])),
                );
            }
        }
        // Component rows, parents first (content types come before components).
        let table_of: HashMap<String, String> = model
            .schemas()
            .iter()
            .map(|s| (s.uid.to_string(), s.layout.table.clone()))
            .collect();
        for _depth in 0..4 {
            for s in model.schemas() {
                let Some(cmps) = &s.layout.cmps_table else {
                    continue;
                };
                for r in select(
                    conn,
                    &format!(
                        "select entity_id, cmp_id, component_type, field, `order` from `{cmps}`"
                    ),
                ) {
                    let (Sql::Integer(entity), Sql::Integer(cmp), Sql::Text(ty)) =
                        (&r[0], &r[1], &r[2])
                    else {
                        panic!()
                    };
                    let Some(parent) = rows.get(&(s.layout.table.clone(), *entity)).cloned() else {
                        continue;
                    };
                    rows.insert(
                        (table_of[ty].clone(), *cmp),
                        format!("{parent}/{}#{}:{ty}", text(&r[3]), text(&r[4])),
                    );
                }
            }
        }
        Names { rows }
    }

    fn name(&self, table: &str, id: &Sql) -> String {
        let Sql::Integer(id) = id else {
            return text(id);
        };
        self.rows
            .get(&(table.to_string(), *id))
            .cloned()
            .unwrap_or_else(|| format!("{table}#{id}?"))
    }
}

/// Rows of `table` with their ids replaced by names, sorted: comparable across databases.
fn named_rows(conn: &Connection, names: &Names, table: &str, skip: &[&str]) -> Vec<String> {
    let cols: Vec<String> = select(
        conn,
        &format!("select name from pragma_table_info('{table}')"),
    )
    .into_iter()
    .map(|r| match &r[0] {
        Sql::Text(s) => s.clone(),
        _ => panic!(),
    })
    .filter(|c| !skip.contains(&c.as_str()))
    .collect();
    let list = cols
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut out: Vec<String> = select(conn, &format!("select {list} from `{table}`"))
        .into_iter()
        .map(|r| {
            cols.iter()
                .zip(&r)
                .map(|(c, v)| {
                    if c == "id" {
                        names.name(table, v)
                    } else {
                        format!("{c}={}", text(v))
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    out.sort();
    out
}

#[test]
fn blog_dataset_imports_as_strapi_wrote_it() {
    let dir = temp_dir("blog");
    let model = blog_model();
    let mut conn = fresh(&dir, &model);
    let layout_before = indexes(&conn);
    assert!(layout_before.len() > 50, "{layout_before:?}");
    let report = import_dataset(
        &mut conn,
        &model,
        &root("examples/blog/dataset.json"),
        &|_, _| {},
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (report.documents, report.files, report.users, report.locales),
        (51, 9, 3, 3)
    );
    // A bulk load (a fresh database): its indexes were dropped for the load and built
    // again, the same statements; foreign keys are on again and hold everywhere.
    assert_eq!(indexes(&conn), layout_before);
    assert!(foreign_keys_on(&conn));
    let broken: i64 = conn
        .query_row("select count(*) from pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(broken, 0);
    let strapi = strapi_db();

    // The same number of rows in every content table.
    let layout = model.database_layout();
    for t in &layout.tables {
        if t.name.starts_with("up_permissions") || t.name == "up_roles" {
            continue; // Strapi's default permissions are not part of the dataset.
        }
        assert_eq!(
            count(&conn, &t.name),
            count(&strapi, &t.name),
            "rows of {}",
            t.name
        );
    }

    let ours = Names::new(&conn, &model);
    let theirs = Names::new(&strapi, &model);
    let mut compared = 0;

    // Content and component rows: every column, by (documentId, locale, status).
    for s in model.schemas() {
        let table = &s.layout.table;
        if ["up_roles", "up_permissions"].contains(&table.as_str()) {
            continue;
        }
        let skip: &[&str] = if table == "up_users" {
            &["password"]
        } else {
            &[]
        };
        let a = named_rows(&conn, &ours, table, skip);
        let b = named_rows(&strapi, &theirs, table, skip);
        assert_eq!(a, b, "rows of {table}");
        compared += a.len();
    }
    // Passwords are bcrypt hashes as bcryptjs writes them.
    for r in select(&conn, "select password from up_users") {
        let Sql::Text(h) = &r[0] else { panic!() };
        assert!(h.starts_with("$2a$10$") && h.len() == 60, "{h}");
    }

    // Link tables, `_cmps` tables and media links: the same structure. Strapi's inverse
    // order of `articles_tags_lnk` keeps the draft's position for some tags and not for
    // others on publish; strata always keeps it, so that column is left out there.
    let mut link_tables = Vec::new();
    for s in model.schemas() {
        if let Some(c) = &s.layout.cmps_table {
            link_tables.push((c.clone(), s.layout.table.clone(), None, None));
        }
        for a in &s.attributes {
            if let AttributeKind::Relation(rel) = &a.kind
                && let RelationStorage::LinkTable(lt) = &rel.storage
            {
                let target = model.schema(rel.target.unwrap()).layout.table.clone();
                link_tables.push((
                    lt.table.clone(),
                    s.layout.table.clone(),
                    Some((lt.owner_column.clone(), lt.target_column.clone(), target)),
                    lt.inverse_order.clone(),
                ));
            }
        }
    }
    for (table, owner_table, cols, inverse) in &link_tables {
        if table.starts_with("up_permissions") {
            continue;
        }
        let rows_of = |conn: &Connection, names: &Names| -> Vec<String> {
            let mut out: Vec<String> = match cols {
                None => select(
                    conn,
                    &format!(
                        "select entity_id, cmp_id, component_type, field, `order` from `{table}`"
                    ),
                )
                .into_iter()
                .map(|r| {
                    let Sql::Text(ty) = &r[2] else { panic!() };
                    let comp_table = &model.by_uid(ty).unwrap().layout.table;
                    format!(
                        "{} -> {} {} {}",
                        names.name(owner_table, &r[0]),
                        names.name(comp_table, &r[1]),
                        text(&r[3]),
                        text(&r[4])
                    )
                })
                .collect(),
                Some((owner_col, target_col, target_table)) => {
                    let extra: Vec<String> = select(
                        conn,
                        &format!(
                            "select name from pragma_table_info('{table}') where name like '%_ord'"
                        ),
                    )
                    .into_iter()
                    .map(|r| match &r[0] {
                        Sql::Text(s) => s.clone(),
                        _ => panic!(),
                    })
                    .filter(|c| !(table == "articles_tags_lnk" && Some(c) == inverse.as_ref()))
                    .collect();
                    let list = std::iter::once(format!("`{owner_col}`"))
                        .chain(std::iter::once(format!("`{target_col}`")))
                        .chain(extra.iter().map(|c| format!("`{c}`")))
                        .collect::<Vec<_>>()
                        .join(", ");
                    select(conn, &format!("select {list} from `{table}`"))
                        .into_iter()
                        .map(|r| {
                            let mut s = format!(
                                "{} -> {}",
                                names.name(owner_table, &r[0]),
                                names.name(target_table, &r[1])
                            );
                            for (c, v) in extra.iter().zip(&r[2..]) {
                                s.push_str(&format!(" {c}={}", text(v)));
                            }
                            s
                        })
                        .collect()
                }
            };
            out.sort();
            out
        };
        let a = rows_of(&conn, &ours);
        let b = rows_of(&strapi, &theirs);
        assert_eq!(a, b, "links of {table}");
        compared += a.len();
    }
    let media = |conn: &Connection, names: &Names| -> Vec<String> {
        let mut out: Vec<String> = select(
            conn,
            "select f.document_id, m.related_id, m.related_type, m.field, m.`order` from files_related_mph m join files f on f.id = m.file_id",
        )
        .into_iter()
        .map(|r| {
            let Sql::Text(ty) = &r[2] else { panic!() };
            let related = &model.by_uid(ty).unwrap().layout.table;
            format!(
                "{} -> {} {} {}",
                text(&r[0]),
                names.name(related, &r[1]),
                text(&r[3]),
                text(&r[4])
            )
        })
        .collect();
        out.sort();
        out
    };
    assert_eq!(
        media(&conn, &ours),
        media(&strapi, &theirs),
        "files_related_mph"
    );
    let locales = |conn: &Connection| {
        select(
            conn,
            "select document_id, name, code, created_at from i18n_locale order by id",
        )
    };
    assert_eq!(locales(&conn), locales(&strapi));
    let default_locale: String = conn
        .query_row(
            "select value from strapi_core_store_settings where key = 'plugin_i18n_default_locale'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(default_locale, "\"en\"");
    println!("blog dataset: {compared} rows and links identical to strapi.db");
}

fn problems_of(err: ImportError) -> Vec<String> {
    match err {
        ImportError::Invalid { problems, omitted } => {
            assert_eq!(omitted, 0);
            problems.iter().map(|p| p.to_string()).collect()
        }
        other => panic!("expected validation problems, got {other}"),
    }
}

#[test]
fn a_dataset_with_mistakes_reports_each_and_changes_nothing() {
    let dir = temp_dir("mistakes");
    let model = blog_model();
    let mut conn = fresh(&dir, &model);
    import_dataset(
        &mut conn,
        &model,
        &root("examples/blog/dataset.json"),
        &|_, _| {},
    )
    .unwrap();
    let before = all_counts(&conn);
    let err = import_dataset(
        &mut conn,
        &model,
        &root("tests/fixtures/dataset/mistakes.json"),
        &|_, _| {},
    )
    .unwrap_err();
    let message = err.to_string();
    let problems = problems_of(err);
    let expected = [
        "api::tag.tag `rust`: $.documents[1].key: another `api::tag.tag` document has the same key",
        "`g1`: $.documents[2].type: unknown content type `api::gadget.gadget`",
        "api::category.category `c1`: $.documents[5]: `api::category.category` has draft and publish: give `published` and/or `draft`",
        "$.documents[4].locales.xx: locale `xx` is not declared in `locales` and not in the database",
        "file `pic`: $.files[0].width: expected an integer, got a string",
        "user `u1`: $.users[0].email: `not-an-email` is not an email address",
        "user `u1`: $.users[0].role: no users-permissions role of type `superhero` in the database",
        "api::author.author `ada`: $.documents[3].data.nickname: unknown attribute `nickname` of `api::author.author`",
        "api::author.author `ada`: $.documents[3].data.avatar: no file with key `missing-pic` in `files`",
        "api::article.article `a1`: $.documents[4].data.views: expected an integer, got a string",
        "api::article.article `a1`: $.documents[4].data.author: no `api::author.author` document with key `nobody`",
        "api::article.article `a1`: $.documents[4].data.tags[1]: no `api::tag.tag` document with key `go`",
        "api::article.article `a1`: $.documents[4].data.kind: `rant` is not one of the allowed values (news, tutorial, opinion)",
        "api::article.article `a1`: $.documents[4].data.publishDate: `2024-13-01` is not a date (YYYY-MM-DD)",
        "api::article.article `a1`: $.documents[4].locales.en.published.blocks[0].__component: `shared.hero` is not allowed in this dynamic zone",
        "api::article.article `a1`: $.documents[4].locales.en.published.seo.metaTitle: expected a string, got a number",
    ];
    for e in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(e)),
            "missing problem `{e}` in:\n{}",
            problems.join("\n")
        );
    }
    assert_eq!(problems.len(), expected.len(), "{}", problems.join("\n"));
    assert!(message.contains("nothing was imported"), "{message}");
    assert_eq!(all_counts(&conn), before, "the database must be unchanged");
}

#[test]
fn an_error_late_in_the_file_writes_nothing() {
    let dir = temp_dir("late");
    let model = blog_model();
    let mut conn = fresh(&dir, &model);
    let before = all_counts(&conn);
    let layout_before = indexes(&conn);
    // The blog dataset, then one more article whose relation points nowhere: only the
    // writing pass can see it, after every other row was written.
    let mut dataset: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root("examples/blog/dataset.json")).unwrap())
            .unwrap();
    let docs = dataset["documents"].as_array_mut().unwrap();
    docs.push(serde_json::json!({
        "type": "api::article.article", "key": "last",
        "data": {"author": "ghost"},
        "locales": {"en": {"published": {"title": "Late"}}}
    }));
    let n = docs.len() - 1;
    let file = dir.join("late.json");
    std::fs::write(&file, serde_json::to_string(&dataset).unwrap()).unwrap();
    let problems = problems_of(import_dataset(&mut conn, &model, &file, &|_, _| {}).unwrap_err());
    assert_eq!(
        problems,
        vec![format!(
            "api::article.article `last`: $.documents[{n}].data.author: no `api::author.author` document with key `ghost`"
        )]
    );
    assert_eq!(all_counts(&conn), before);
    // The bulk load's dropped indexes come back with the rollback.
    assert_eq!(indexes(&conn), layout_before);
    assert!(foreign_keys_on(&conn));
    // A syntax error at the very end: nothing either.
    let mut text = serde_json::to_string(&dataset).unwrap();
    text.pop();
    std::fs::write(&file, text).unwrap();
    let err = import_dataset(&mut conn, &model, &file, &|_, _| {}).unwrap_err();
    assert!(matches!(err, ImportError::Json { .. }), "{err}");
    assert_eq!(all_counts(&conn), before);
}

#[test]
fn importing_into_an_existing_database_appends() {
    let dir = temp_dir("append");
    let model = blog_model();
    let mut conn = fresh(&dir, &model);
    let first = dir.join("a.json");
    std::fs::write(
        &first,
        r#"{"format": "strata-dataset/1",
            "users": [{"key": "u", "username": "user", "email": "u@example.com", "password": "secret123"}],
            "documents": [
              {"type": "api::tag.tag", "key": "t", "data": {"name": "one"}},
              {"type": "api::author.author", "key": "a", "data": {"name": "Ann", "articles": ["x"]}},
              {"type": "api::article.article", "key": "x", "data": {"tags": ["t"]},
               "locales": {"en": {"published": {"title": "X"}, "draft": {"title": "X2"}}}}
            ]}"#,
    )
    .unwrap();
    import_dataset(&mut conn, &model, &first, &|_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    // The inverse side (`author.articles`) was written into the owner's link table, for the
    // draft and the published row of the default locale.
    let links = select(
        &conn,
        "select a.published_at is not null, l.article_ord from articles_author_lnk l join articles a on a.id = l.article_id order by a.id",
    );
    assert_eq!(
        links,
        vec![
            vec![Sql::Integer(0), Sql::Real(1.0)],
            vec![Sql::Integer(1), Sql::Real(2.0)]
        ]
    );
    // A second import continues the ids, and the inverse order of rows that were there
    // before (the `authenticated` role's users).
    import_dataset(&mut conn, &model, &first, &|_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&conn, "articles"), 4);
    assert_eq!(
        select(&conn, "select id from articles order by id"),
        (1..=4).map(|i| vec![Sql::Integer(i)]).collect::<Vec<_>>()
    );
    assert_eq!(
        select(
            &conn,
            "select user_id, role_id, user_ord from up_users_role_lnk order by id"
        ),
        vec![
            vec![Sql::Integer(1), Sql::Integer(1), Sql::Real(1.0)],
            vec![Sql::Integer(2), Sql::Integer(1), Sql::Real(2.0)]
        ]
    );
    assert_eq!(
        count(&conn, "i18n_locale"),
        1,
        "the default locale is created once"
    );
    // A documentId that already exists is refused.
    let dup = dir.join("dup.json");
    let doc_id: String = conn
        .query_row("select document_id from tags limit 1", [], |r| r.get(0))
        .unwrap();
    std::fs::write(
        &dup,
        format!(
            r#"{{"format": "strata-dataset/1", "documents": [{{"type": "api::tag.tag", "key": "t", "documentId": "{doc_id}", "data": {{"name": "again"}}}}]}}"#
        ),
    )
    .unwrap();
    let problems = problems_of(import_dataset(&mut conn, &model, &dup, &|_, _| {}).unwrap_err());
    assert_eq!(
        problems,
        vec![format!(
            "api::tag.tag `t`: $.documents[0].documentId: the database already has a `api::tag.tag` document `{doc_id}`"
        )]
    );
    assert!(migrate::verify(&conn, &model).is_empty());
}

#[test]
fn the_cli_imports_and_reports_problems() {
    let dir = temp_dir("cli");
    let url = format!("sqlite://{}", dir.join("cli.db").display());
    let out = common::strata_cli(&[
        "import",
        "examples/blog/dataset.json",
        "--schemas",
        "tests/fixtures/blog/schemas",
        "--config",
        "strata.toml",
        "--database",
        &url,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("imported 51 documents (129 rows), 9 files, 3 users, 3 new locales"),
        "{stdout}"
    );
    assert!(stderr.contains("created"), "{stderr}");
    // The database the import created has the public grants of the configuration
    // (./strata.toml, the bundled blog's), so a `strata serve` on it answers the public
    // role (not 401).
    let model = std::sync::Arc::new(
        strata::schema::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/blog/schemas"
        )))
        .unwrap(),
    );
    let store = strata::store::Store::open_existing(
        &strata::store::DatabaseUrl::parse(&url).unwrap(),
        model,
        1,
    )
    .unwrap();
    let public = store.role_actions("public").unwrap();
    for action in ["api::article.article.find", "api::tag.tag.findOne"] {
        assert!(public.iter().any(|a| a == action), "{action} in {public:?}");
    }
    assert!(
        !public.iter().any(|a| a.starts_with("api::secret")),
        "{public:?}"
    );
    drop(store);

    let out = common::strata_cli(&[
        "import",
        "tests/fixtures/dataset/mistakes.json",
        "--schemas",
        "tests/fixtures/blog/schemas",
        "--database",
        &url,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the dataset has 16 problems (nothing was imported):"),
        "{stderr}"
    );
    assert!(
        stderr.contains("  api::article.article `a1`: $.documents[4].data.tags[1]: no `api::tag.tag` document with key `go`"),
        "{stderr}"
    );
}

/// A generated dataset: `n` articles in two locales with tags and authors.
fn synthetic(n: usize) -> String {
    let mut docs = Vec::new();
    for t in 0..20 {
        docs.push(serde_json::json!({"type": "api::tag.tag", "key": format!("t{t}"), "data": {"name": format!("tag {t}")}}));
    }
    for a in 0..100 {
        docs.push(serde_json::json!({"type": "api::author.author", "key": format!("a{a}"), "data": {"name": format!("author {a}")}}));
    }
    for i in 0..n {
        docs.push(serde_json::json!({
            "type": "api::article.article", "key": format!("x{i}"),
            "data": {"views": i, "author": format!("a{}", i % 100), "tags": [format!("t{}", i % 20), format!("t{}", (i + 7) % 20)]},
            "locales": {
                "en": {"published": {"title": format!("Article {i}"), "seo": {"metaTitle": format!("seo {i}")}}},
                "fr": {"draft": {"title": format!("Article {i} (fr)")}}
            }
        }));
    }
    serde_json::json!({
        "format": "strata-dataset/1",
        "locales": [{"code": "en", "name": "English (en)", "default": true}, {"code": "fr", "name": "French (fr)"}],
        "documents": docs
    })
    .to_string()
}

#[test]
fn a_generated_dataset_imports_with_every_row() {
    let dir = temp_dir("generated");
    let model = blog_model();
    let mut conn = fresh(&dir, &model);
    let file = dir.join("gen.json");
    let n = 2000;
    std::fs::write(&file, synthetic(n)).unwrap();
    // Another connection has the database open: the bulk load keeps the write-ahead log
    // (SQLite refuses to leave it) and loads all the same.
    let reader = Connection::open(dir.join("data.db")).unwrap();
    let _: i64 = reader
        .query_row("select count(*) from articles", [], |r| r.get(0))
        .unwrap();
    let calls = std::cell::Cell::new(0u32);
    let started = std::time::Instant::now();
    let report = import_dataset(&mut conn, &model, &file, &|done, total| {
        assert!(done <= total);
        calls.set(calls.get() + 1);
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} documents in {secs:.2} s ({:.0} documents/s, debug build)",
        report.documents,
        report.documents as f64 / secs
    );
    assert!(calls.get() > 1);
    assert_eq!(report.documents as usize, n + 120);
    assert_eq!(count(&conn, "articles") as usize, 3 * n);
    assert_eq!(count(&conn, "articles_tags_lnk") as usize, 2 * 3 * n);
    assert_eq!(count(&conn, "components_shared_seos") as usize, 2 * n);
    let fk_problems = select(&conn, "select * from pragma_foreign_key_check");
    assert!(fk_problems.is_empty());
    let seen: i64 = reader
        .query_row("select count(*) from articles", [], |r| r.get(0))
        .unwrap();
    assert_eq!(seen as usize, 3 * n);
    let mode: String = conn
        .query_row("pragma journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
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

#[test]
fn a_single_type_holds_one_document_and_the_cli_migrates_first() {
    let dir = temp_dir("single");
    let schemas = dir.join("schemas");
    copy_dir(&root("tests/fixtures/blog/schemas"), &schemas);
    let url = format!("sqlite://{}", dir.join("single.db").display());
    let schemas_arg = schemas.display().to_string();
    common::succeeded(common::strata_cli(&[
        "import",
        "examples/blog/dataset.json",
        "--schemas",
        &schemas_arg,
        "--database",
        &url,
    ]));

    // The model gains a single type: the next import migrates the database first.
    common::write_content_type(
        &schemas,
        "homepage",
        r#"{"kind": "singleType", "collectionName": "homepages",
            "info": {"singularName": "homepage", "pluralName": "homepages", "displayName": "Homepage"},
            "options": {"draftAndPublish": true},
            "attributes": {"headline": {"type": "string", "required": true}}}"#,
    );
    let two = dir.join("two.json");
    std::fs::write(
        &two,
        r#"{"format": "strata-dataset/1", "documents": [
             {"type": "api::homepage.homepage", "key": "home", "published": {}},
             {"type": "api::homepage.homepage", "key": "home2", "draft": {}}
           ]}"#,
    )
    .unwrap();
    let out = common::strata_cli(&[
        "import",
        two.to_str().unwrap(),
        "--schemas",
        &schemas_arg,
        "--database",
        &url,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("migrating: create table `homepages`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("api::homepage.homepage `home2`: $.documents[1]: `api::homepage.homepage` is a single type: it holds one document, and the dataset already has it"),
        "{stderr}"
    );
    assert!(
        stderr.contains("api::homepage.homepage `home`: $.documents[0].published: required attribute `headline` has no value"),
        "{stderr}"
    );

    let one = dir.join("one.json");
    std::fs::write(
        &one,
        r#"{"format": "strata-dataset/1", "documents": [
             {"type": "api::homepage.homepage", "key": "home", "published": {"headline": "Hi"}}]}"#,
    )
    .unwrap();
    common::succeeded(common::strata_cli(&[
        "import",
        one.to_str().unwrap(),
        "--schemas",
        &schemas_arg,
        "--database",
        &url,
    ]));
    let out = common::strata_cli(&[
        "import",
        one.to_str().unwrap(),
        "--schemas",
        &schemas_arg,
        "--database",
        &url,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("and the database already has it"),
        "{stderr}"
    );
}

/// Every row of every table, ids included, in id order (tables without an `id` column by
/// all their columns).
fn every_row(conn: &Connection, skip: &[&str]) -> BTreeMap<String, Vec<Vec<Sql>>> {
    let tables: Vec<String> = conn
        .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables
        .into_iter()
        .filter(|t| !skip.contains(&t.as_str()))
        .map(|t| {
            let rows = select(conn, &format!("select * from `{t}` order by 1"));
            (t, rows)
        })
        .collect()
}

/// A bulk load (into a database without content: foreign keys checked at the end, indexes
/// built after the rows, a rollback journal) writes exactly the rows, ids included, that
/// the load into a database that already holds content writes (foreign keys checked at
/// commit, every index kept).
#[test]
fn a_bulk_load_writes_the_rows_a_load_into_content_writes() {
    let dir = temp_dir("bulk");
    let schemas = dir.join("schemas");
    copy_dir(&root("tests/fixtures/blog/schemas"), &schemas);
    common::write_content_type(
        &schemas,
        "extra",
        r#"{"kind": "collectionType", "collectionName": "extras",
            "info": {"singularName": "extra", "pluralName": "extras", "displayName": "Extra"},
            "options": {"draftAndPublish": false}, "attributes": {"name": {"type": "string"}}}"#,
    );
    let model = schema::load(&schemas).unwrap_or_else(|e| panic!("{e}"));
    let dataset = dir.join("gen.json");
    std::fs::write(&dataset, synthetic(300)).unwrap();
    let blog = root("examples/blog/dataset.json");

    // Into content: one content row is already there.
    let row_dir = dir.join("row");
    std::fs::create_dir_all(&row_dir).unwrap();
    let mut row_by_row = fresh(&row_dir, &model);
    row_by_row
        .execute_batch("insert into extras (document_id, name) values ('x', 'there before')")
        .unwrap();
    let bulk_dir = dir.join("bulk");
    std::fs::create_dir_all(&bulk_dir).unwrap();
    let mut bulk = fresh(&bulk_dir, &model);
    for file in [&blog, &dataset] {
        import_dataset(&mut row_by_row, &model, file, &|_, _| {}).unwrap_or_else(|e| panic!("{e}"));
        // The second file goes into a database with content: no longer a bulk load.
        import_dataset(&mut bulk, &model, file, &|_, _| {}).unwrap_or_else(|e| panic!("{e}"));
        // Timestamps, documentIds and salted password hashes are generated: compare the rest.
        let strip = |conn: &Connection| {
            conn.execute_batch(
                &every_row(conn, &["extras"])
                    .keys()
                    .filter_map(|t| {
                        let cols = select(conn, &format!("select name from pragma_table_info('{t}') where name in ('created_at', 'updated_at', 'published_at', 'document_id', 'password')"));
                        (!cols.is_empty()).then(|| {
                            let sets: Vec<String> = cols
                                .iter()
                                .map(|c| {
                                    let Sql::Text(c) = &c[0] else { panic!("{c:?}") };
                                    format!("`{c}` = case when `{c}` is null then null else 'x' end")
                                })
                                .collect();
                            format!("update `{t}` set {};", sets.join(", "))
                        })
                    })
                    .collect::<String>(),
            )
            .unwrap();
        };
        let (a, b) = (
            row_by_row.unchecked_transaction().unwrap(),
            bulk.unchecked_transaction().unwrap(),
        );
        strip(&a);
        strip(&b);
        let (rows_a, rows_b) = (every_row(&a, &["extras"]), every_row(&b, &["extras"]));
        assert!(rows_a["articles"].len() > 10);
        // The model's tables (the system tables hold their creation times).
        let layout = model.database_layout();
        for table in layout
            .tables
            .iter()
            .map(|t| &t.name)
            .filter(|t| *t != "extras")
        {
            assert_eq!(rows_a[table], rows_b[table], "rows of {table}");
        }
        // And `AUTOINCREMENT` goes on from the same ids.
        let sequence = "select name, seq from sqlite_sequence where name <> 'extras' order by name";
        assert_eq!(select(&a, sequence), select(&b, sequence));
        drop((a, b)); // rolled back
    }
    let mode: String = bulk
        .query_row("pragma journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    assert!(foreign_keys_on(&bulk));
}

#[test]
fn a_seeded_creation_reports_its_progress() {
    let dir = temp_dir("progress");
    common::seed_progress_reaches_the_end(&format!("sqlite://{}", dir.join("p.db").display()));
}
