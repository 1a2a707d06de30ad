//! A delete leaves to the database the link rows and `_cmps` rows that its foreign keys
//! delete with the row (`ON DELETE CASCADE`, as Strapi's layout declares them; see
//! `store::cascade`), and deletes them itself where the database lacks such a key. On
//! SQLite, PostgreSQL and MariaDB, from Strapi's own databases:
//! * the keys are found, and a delete sends no statement to those tables;
//! * with one key dropped, the delete sends its statement for that table again;
//! * either way no row of any table is left pointing at a row that is gone.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use strata::schema::{Model, OnDelete};
use strata::store::sea_query::{Alias, Expr, ExprTrait, Query};
use strata::store::seam::{count_rows, record_statements};
use strata::store::{DatabaseUrl, Store};
use strata::write::WriteStatus;

/// Has tags, an author and components (with components of their own) in three locales.
const FIRST: &str = "article00000000000000001";
/// Has tags and a component in two locales.
const SECOND: &str = "article00000000000000004";

fn model() -> Arc<Model> {
    Arc::new(strata::schema::load(&common::blog().join("schemas")).unwrap())
}

/// The rows of `table` whose `column` holds an id that `parent` does not have.
fn dangling(store: &Store, table: &str, column: &str, parent: &str) -> u64 {
    let ids = Query::select()
        .column(Alias::new("id"))
        .from(Alias::new(parent))
        .to_owned();
    let mut q = Query::select();
    q.expr(Expr::cust("COUNT(*)"))
        .from(Alias::new(table))
        .and_where(Expr::col(Alias::new(column)).is_not_null())
        .and_where(Expr::col(Alias::new(column)).not_in_subquery(ids));
    store.pool().with(|e| count_rows(e, &q)).unwrap()
}

/// The link rows of `table` whose `column` points at a row of `document` in `parent`.
fn links_of(store: &Store, table: &str, column: &str, parent: &str, document: &str) -> u64 {
    let ids = Query::select()
        .column(Alias::new("id"))
        .from(Alias::new(parent))
        .and_where(Expr::col(Alias::new("document_id")).eq(document))
        .to_owned();
    let mut q = Query::select();
    q.expr(Expr::cust("COUNT(*)"))
        .from(Alias::new(table))
        .and_where(Expr::col(Alias::new(column)).in_subquery(ids));
    store.pool().with(|e| count_rows(e, &q)).unwrap()
}

/// No row of any table points at a row that is gone, through any foreign key the
/// model's layout says cascades.
fn nothing_dangles(store: &Store, model: &Model) {
    for table in &model.database_layout().tables {
        for fk in &table.foreign_keys {
            if fk.on_delete == OnDelete::Cascade {
                let n = dangling(store, &table.name, &fk.column, &fk.ref_table);
                assert_eq!(n, 0, "{}.{} -> {}", table.name, fk.column, fk.ref_table);
            }
        }
    }
}

/// Deletes `document` in every locale; the tables the statements deleted from.
fn delete(store: &Store, model: &Model, document: &str) -> Vec<String> {
    let article = model.by_uid("api::article.article").unwrap().id;
    let (deleted, statements) = record_statements(|| {
        strata::write::delete(
            store,
            article,
            Some(document),
            Some("*"),
            WriteStatus::Published,
            1_800_000_000_000,
        )
    });
    assert_eq!(deleted.unwrap().as_deref(), Some(document));
    statements
        .iter()
        .filter(|s| s.sql.starts_with("DELETE FROM "))
        .filter_map(|s| s.sql.split(['"', '`']).nth(1).map(str::to_string))
        .collect()
}

/// The whole check on one database; `drop_tags_key` drops the foreign key of
/// `articles_tags_lnk.article_id`.
fn deletes_leave_cascades_to_the_database(url: &str, drop_tags_key: impl FnOnce()) {
    let model = model();
    let url = DatabaseUrl::parse(url).unwrap();
    let store = Store::open_existing(&url, model.clone(), 2).unwrap();
    let cascades = store.cascades();
    assert!(cascades.deletes("articles_tags_lnk", "article_id"));
    assert!(cascades.deletes("articles_tags_lnk", "tag_id"));
    assert!(cascades.deletes("articles_cmps", "entity_id"));
    assert!(cascades.deletes("components_shared_quotes_author_lnk", "quote_id"));
    // Polymorphic: no foreign key, always deleted explicitly.
    assert!(!cascades.deletes("files_related_mph", "related_id"));

    assert!(links_of(&store, "articles_tags_lnk", "article_id", "articles", FIRST) > 0);
    assert!(links_of(&store, "articles_cmps", "entity_id", "articles", FIRST) > 0);
    let tables = delete(&store, &model, FIRST);
    // The component rows and the media links (of the types with media) are deleted
    // explicitly; no link or `_cmps` table is.
    assert!(
        !tables
            .iter()
            .any(|t| t.ends_with("_lnk") || t.ends_with("_cmps")),
        "{tables:?}"
    );
    assert!(
        tables.iter().any(|t| t == "components_shared_seos"),
        "{tables:?}"
    );
    assert_eq!(
        tables.last().map(String::as_str),
        Some("articles"),
        "{tables:?}"
    );
    assert_eq!(
        links_of(&store, "articles_tags_lnk", "article_id", "articles", FIRST),
        0
    );
    nothing_dangles(&store, &model);
    drop(store);

    drop_tags_key();
    let store = Store::open_existing(&url, model.clone(), 2).unwrap();
    assert!(!store.cascades().deletes("articles_tags_lnk", "article_id"));
    assert!(store.cascades().deletes("articles_tags_lnk", "tag_id"));
    let tagged = links_of(
        &store,
        "articles_tags_lnk",
        "article_id",
        "articles",
        SECOND,
    );
    assert!(tagged > 0);
    let tables = delete(&store, &model, SECOND);
    assert!(
        tables.iter().any(|t| t == "articles_tags_lnk"),
        "{tables:?}"
    );
    nothing_dangles(&store, &model);
    assert_eq!(
        dangling(&store, "articles_tags_lnk", "article_id", "articles"),
        0
    );
}

#[test]
fn deletes_leave_cascades_to_sqlite() {
    let (dir, db) = common::blog_db_copy("write-cascades");
    let url = format!("sqlite://{}", db.display());
    deletes_leave_cascades_to_the_database(&url, || {
        // SQLite cannot drop a constraint: the table is made again without it.
        let conn = rusqlite::Connection::open(&db).unwrap();
        let (create, indexes): (String, Vec<String>) = {
            let create = conn
                .query_row(
                    "select sql from sqlite_master where name = 'articles_tags_lnk'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            let mut stmt = conn
                .prepare(
                    "select sql from sqlite_master where tbl_name = 'articles_tags_lnk' \
                     and type = 'index' and sql is not null",
                )
                .unwrap();
            let indexes = stmt
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            (create, indexes)
        };
        // Strapi's SQLite layout declares it twice; both go.
        let key = ", CONSTRAINT `articles_tags_lnk_fk` FOREIGN KEY (`article_id`) \
                   REFERENCES `articles` (`id`) ON DELETE CASCADE";
        assert!(create.contains(key), "{create}");
        let without = create
            .replace(key, "")
            .replace("\"articles_tags_lnk\"", "\"articles_tags_lnk_new\"");
        let mut script = format!(
            "pragma foreign_keys = off; begin; {without}; \
             insert into articles_tags_lnk_new select * from articles_tags_lnk; \
             drop table articles_tags_lnk; \
             alter table articles_tags_lnk_new rename to articles_tags_lnk; "
        );
        for ix in indexes {
            script.push_str(&ix);
            script.push_str("; ");
        }
        script.push_str("commit;");
        conn.execute_batch(&script).unwrap();
    });
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn deletes_leave_cascades_to_postgres() {
    let Some(db) = common::pg::strapi_blog("write_cascades") else {
        return;
    };
    deletes_leave_cascades_to_the_database(&db.url, || {
        db.execute("ALTER TABLE articles_tags_lnk DROP CONSTRAINT articles_tags_lnk_fk");
    });
}

#[test]
fn deletes_leave_cascades_to_mysql() {
    let Some(db) = common::my::strapi_blog("write_cascades") else {
        return;
    };
    deletes_leave_cascades_to_the_database(&db.url, || {
        db.execute("ALTER TABLE articles_tags_lnk DROP FOREIGN KEY articles_tags_lnk_fk");
    });
}
