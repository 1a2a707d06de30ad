//! Import throughput, and the large databases of the load benchmark: generates a dataset
//! of N articles (en published with a draft, fr and de drafts; an author, two tags, a
//! cover image, an SEO component and a dynamic zone of two items each) plus 20 tags, 100
//! authors and 10 image files, imports it into a fresh SQLite file with the blog model
//! (the public role may find and findOne articles, authors and tags), and prints
//! documents/s.
//!
//! ```sh
//! cargo run --release --example import_bench -- 100000
//! cargo run --release --example import_bench -- 100000 /tmp/100k.db   # keep the database
//! cargo run --release --example import_bench -- 100000 /tmp/100k.db /tmp/100k.json  # and the dataset
//! ```

use std::io::{BufWriter, Write};
use std::time::Instant;

use strata::schema;
use strata::store::sqlite::{ddl, import};

/// The allocator of the `strata` binary, whose `import` this measures.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(100_000);
    let dir = std::env::temp_dir().join(format!("strata-import-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("dataset.json");
    let started = Instant::now();
    {
        let mut out = BufWriter::new(std::fs::File::create(&file)?);
        write!(
            out,
            r#"{{"format": "strata-dataset/1", "locales": [{{"code": "en", "name": "English (en)", "default": true}}, {{"code": "fr", "name": "French (fr)"}}, {{"code": "de", "name": "German (de)"}}], "files": ["#
        )?;
        for f in 0..10 {
            if f > 0 {
                out.write_all(b",")?;
            }
            write!(
                out,
                r#"{{"key": "img{f}", "name": "img{f}.jpg", "width": 800, "height": 600, "hash": "img{f}_h", "ext": ".jpg", "mime": "image/jpeg", "size": 42.5, "url": "/uploads/img{f}.jpg", "provider": "local"}}"#
            )?;
        }
        out.write_all(br#"], "documents": ["#)?;
        for t in 0..20 {
            write!(
                out,
                r#"{{"type": "api::tag.tag", "key": "t{t}", "data": {{"name": "tag {t}"}}}},"#
            )?;
        }
        for a in 0..100 {
            write!(
                out,
                r#"{{"type": "api::author.author", "key": "a{a}", "data": {{"name": "author {a}"}}}},"#
            )?;
        }
        for i in 0..n {
            if i > 0 {
                out.write_all(b",")?;
            }
            write!(
                out,
                r#"{{"type": "api::article.article", "key": "x{i}", "data": {{"views": {i}, "author": "a{a}", "tags": ["t{}", "t{}"], "cover": "img{}"}}, "locales": {{"en": {{"published": {{"title": "Article {i}", "seo": {{"metaTitle": "seo {i}"}}, "blocks": [{{"__component": "shared.rich-text", "body": "Body of {i}"}}, {{"__component": "shared.quote", "title": "Quote {i}", "author": "a{a}"}}]}}, "draft": {{"title": "Article {i} (draft)"}}}}, "fr": {{"draft": {{"title": "Article {i} (fr)"}}}}, "de": {{"draft": {{"title": "Artikel {i}"}}}}}}}}"#,
                i % 20,
                (i + 7) % 20,
                i % 10,
                a = i % 100,
            )?;
        }
        out.write_all(b"]}")?;
    }
    let size = std::fs::metadata(&file)?.len();
    eprintln!(
        "generated {n} articles ({:.1} MB) in {:.1} s",
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    let model = schema::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/schemas"
    )))
    .map_err(|e| e.to_string())?;
    let db = dir.join("bench.db");
    let _ = std::fs::remove_file(&db);
    let mut conn = rusqlite::Connection::open(&db)?;
    ddl::create_database(&conn, &model)?;
    let grants: Vec<String> = ["article", "author", "tag"]
        .iter()
        .flat_map(|t| {
            [
                format!("api::{t}.{t}.find"),
                format!("api::{t}.{t}.findOne"),
            ]
        })
        .collect();
    ddl::seed_public_permissions(&conn, &model, &grants)?;
    let started = Instant::now();
    let report = import::import_dataset(&mut conn, &model, &file, &|_, _| {})?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "imported {report} in {secs:.2} s: {:.0} documents/s, {:.0} rows/s",
        report.documents as f64 / secs,
        report.rows as f64 / secs
    );
    drop(conn);
    if let Some(keep) = std::env::args().nth(3) {
        std::fs::copy(&file, &keep)?;
        eprintln!("kept the dataset at {keep}");
    }
    if let Some(keep) = std::env::args().nth(2) {
        std::fs::copy(&db, &keep)?;
        eprintln!("kept the database at {keep}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
