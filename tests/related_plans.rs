//! The two ways of tying a relation filter to its root rows (`RelatedPlan::SemiJoin`, an
//! `IN` sub-select, and `Correlated`, an `EXISTS` per row) give the same page and total
//! for every golden list request, on SQLite and on PostgreSQL. The goldens' small tables
//! take the correlated plan in production; large ones take the semi-join.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use strata::query::{QueryConfig, parse_query};
use strata::schema::{self, Model};
use strata::store::sql::RelatedPlan;
use strata::store::{DatabaseUrl, Store};

/// Compares the plans on every golden list request; returns how many were compared.
fn plans_agree(store: &Store, model: &Model) -> usize {
    let perms = common::public_permissions(model);
    let mut compared = 0;
    for golden in common::goldens() {
        let line = common::encode(golden["line"].as_str().unwrap());
        let (path, raw) = line.split_once('?').unwrap_or((&line, ""));
        let segments: Vec<&str> = path.trim_start_matches("/api/").split('/').collect();
        let Some(schema) = model.by_plural(segments[0]) else {
            continue;
        };
        if segments.len() > 1 {
            continue;
        }
        let Ok(q) = parse_query(raw, model, schema.id, &perms, &QueryConfig::default()) else {
            continue;
        };
        let semi = store
            .read(|r| r.find_with_plan(&q, RelatedPlan::SemiJoin))
            .unwrap();
        let correlated = store
            .read(|r| r.find_with_plan(&q, RelatedPlan::Correlated))
            .unwrap();
        assert_eq!(semi, correlated, "{line}");
        compared += 1;
    }
    compared
}

fn model() -> Arc<Model> {
    Arc::new(schema::load(&common::blog().join("schemas")).unwrap())
}

#[test]
fn plans_agree_on_sqlite() {
    let url = DatabaseUrl::parse(&format!(
        "sqlite://{}?mode=ro",
        common::blog().join("strapi.db").display()
    ))
    .unwrap();
    let model = model();
    let store = Store::open_existing(&url, model.clone(), 1).unwrap();
    assert!(plans_agree(&store, &model) > 150);
}

#[test]
fn plans_agree_on_postgres() {
    let Some(db) = common::pg::strapi_blog("plans") else {
        return;
    };
    let model = model();
    let store = Store::open_existing(&db.database_url(), model.clone(), 2).unwrap();
    assert!(plans_agree(&store, &model) > 150);
}

/// A database of 6,000 articles (more than `RelatedPlan::SMALL_TABLE`, so relation
/// filters take the semi-join): author `sparse` wrote only the last; every seventh has no
/// author; of the others, every eleventh is by `twin` (also named "Dense"), every third
/// by `middle`, the rest by `dense`. Its path.
fn large_database() -> std::path::PathBuf {
    let dir = common::temp_dir("plans");
    let n = 6000;
    let mut dataset = String::from(
        r#"{"format": "strata-dataset/1", "documents": [
        {"type": "api::author.author", "key": "dense", "data": {"name": "Dense"}},
        {"type": "api::author.author", "key": "sparse", "data": {"name": "Sparse"}},
        {"type": "api::author.author", "key": "twin", "data": {"name": "Dense"}},
        {"type": "api::author.author", "key": "middle", "data": {"name": "Middle"}}"#,
    );
    for i in 0..n {
        let author = match i {
            _ if i == n - 1 => r#", "author": "sparse""#,
            _ if i % 7 == 0 => "",
            _ if i % 11 == 0 => r#", "author": "twin""#,
            _ if i % 3 == 0 => r#", "author": "middle""#,
            _ => r#", "author": "dense""#,
        };
        dataset.push_str(&format!(
            r#",{{"type": "api::article.article", "key": "a{i}", "data": {{"views": {}{author}}}, "locales": {{"en": {{"published": {{"title": "Article {i:05}"}}}}}}}}"#,
            i % 13
        ));
    }
    dataset.push_str("]}");
    let file = dir.join("dataset.json");
    std::fs::write(&file, dataset).unwrap();
    let db = dir.join("large.db");
    let mut conn = rusqlite::Connection::open(&db).unwrap();
    let model = model();
    strata::store::sqlite::ddl::create_database(&conn, &model).unwrap();
    strata::store::sqlite::import::import_dataset(&mut conn, &model, &file, &|_, _| {}).unwrap();
    db
}

/// Runs each query string on articles of [`large_database`]: its page through
/// `find_page` must be the one statement's (`find_with_plan` with the semi-join), and not
/// empty. Returns, per query, the SQL of the statements `find_page` ran.
fn statements_on_large_database(queries: &[&str]) -> Vec<Vec<String>> {
    use strata::store::seam::record_statements;
    let db = large_database();
    let url = DatabaseUrl::parse(&format!("sqlite://{}?mode=ro", db.display())).unwrap();
    let model = model();
    let store = Store::open_existing(&url, model.clone(), 1).unwrap();
    let articles = model.by_plural("articles").unwrap().id;
    let perms = common::public_permissions(&model);
    let mut out = Vec::new();
    for raw in queries {
        let q = parse_query(raw, &model, articles, &perms, &QueryConfig::default()).unwrap();
        let (page, statements) = record_statements(|| store.find_page(&q).unwrap());
        let one = store
            .read(|r| r.find_with_plan(&q, RelatedPlan::SemiJoin))
            .unwrap();
        assert_eq!(page, one, "{raw}");
        assert!(!page.entries.is_empty(), "{raw}");
        out.push(statements.into_iter().map(|s| s.sql).collect());
    }
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
    out
}

/// On a large table a page of a relation filter is first looked for by probing the root
/// rows in order, within a budget of steps, then by the semi-join when that runs out. The
/// page and total are the semi-join's in every case: matches that come early (the probe
/// finishes), a single match at the very end and a page in another order (it runs out).
#[test]
fn a_page_probed_first_is_the_semi_joins_page() {
    let cases = [
        ("filters[author][name][$eq]=Dense", true),
        (
            "filters[author][name][$eq]=Dense&pagination[withCount]=false",
            true,
        ),
        ("filters[author][name][$eq]=Sparse", false),
        ("filters[author][name][$eq]=Dense&sort=title:desc", false),
    ];
    let queries: Vec<&str> = cases.iter().map(|(q, _)| *q).collect();
    for ((raw, probe_finishes), statements) in
        cases.iter().zip(statements_on_large_database(&queries))
    {
        let pages: Vec<&String> = statements
            .iter()
            .filter(|sql| sql.starts_with("SELECT \"t0\".\"id\""))
            .collect();
        let probed = pages.iter().any(|sql| sql.contains("EXISTS"));
        let semi_joined = pages.iter().any(|sql| sql.contains("IN (SELECT"));
        assert!(probed, "{raw}: the probe was not tried");
        assert_eq!(semi_joined, !probe_finishes, "{raw}: {pages:#?}");
    }
}

/// On a large table a page sorted first through a relation (descending) is read group by
/// group of the related value, from the largest down, entries without one last. The page
/// is the one statement's in every case: the first page, pages that skip whole groups or
/// start inside one, a page past the values (entries without an author), ties on the
/// name across two authors, and other keys after the first.
#[test]
fn a_page_read_by_sort_groups_is_the_sorted_statements_page() {
    let cases = [
        ("sort=author.name:desc", true),
        (
            "sort=author.name:desc&pagination[page]=7&pagination[pageSize]=100",
            true,
        ),
        (
            "sort=author.name:desc&pagination[start]=1490&pagination[limit]=30",
            true,
        ),
        (
            "sort=author.name:desc&pagination[start]=5990&pagination[limit]=20",
            true,
        ),
        (
            "sort[0]=author.name:desc&sort[1]=views:asc&pagination[pageSize]=50",
            true,
        ),
        (
            "sort[0]=author.name:desc&sort[1]=title:desc&pagination[start]=4000",
            true,
        ),
        (
            "sort=author.name:desc&filters[views][$lt]=3&fields[0]=title",
            true,
        ),
        (
            "sort=author.name:desc&pagination[withCount]=false&populate=author",
            true,
        ),
        // Ascending, entries without an author come first: one statement.
        ("sort=author.name:asc&pagination[page]=2", false),
    ];
    let queries: Vec<&str> = cases.iter().map(|(q, _)| *q).collect();
    for ((raw, walks), statements) in cases.iter().zip(statements_on_large_database(&queries)) {
        let walked = statements
            .iter()
            .any(|sql| sql.starts_with("SELECT DISTINCT"));
        // One statement orders the root rows by a sub-select of each one's related value.
        let sorted_in_one = statements
            .iter()
            .any(|sql| sql.contains("ORDER BY (SELECT"));
        assert_eq!(walked, *walks, "{raw}");
        assert_eq!(sorted_in_one, !walks, "{raw}: the walk ran out");
    }
}
