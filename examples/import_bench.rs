//! Import throughput: generates a dataset of N articles (two locales, a published and a
//! draft version, an author, two tags and a component each) plus 20 tags and 100 authors,
//! imports it into a fresh SQLite file with the blog model, and prints documents/s.
//!
//! ```sh
//! cargo run --release --example import_bench -- 100000
//! ```

use std::io::{BufWriter, Write};
use std::time::Instant;

use strata::schema;
use strata::store::{ddl, import};

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
            r#"{{"format": "strata-dataset/1", "locales": [{{"code": "en", "name": "English (en)", "default": true}}, {{"code": "fr", "name": "French (fr)"}}], "documents": ["#
        )?;
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
                r#"{{"type": "api::article.article", "key": "x{i}", "data": {{"views": {i}, "author": "a{}", "tags": ["t{}", "t{}"]}}, "locales": {{"en": {{"published": {{"title": "Article {i}", "seo": {{"metaTitle": "seo {i}"}}}}}}, "fr": {{"draft": {{"title": "Article {i} (fr)"}}}}}}}}"#,
                i % 100,
                i % 20,
                (i + 7) % 20
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
    let started = Instant::now();
    let report = import::import_dataset(&mut conn, &model, &file, &|_, _| {})?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "imported {report} in {secs:.2} s: {:.0} documents/s, {:.0} rows/s",
        report.documents as f64 / secs,
        report.rows as f64 / secs
    );
    drop(conn);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
