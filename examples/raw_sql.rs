//! The store against the same SQL run bare, per request kind, on a large database: for
//! each `NAME URL` line on standard input, the mean time of the whole read in the store
//! (parse, plan, SQL, JSON) and of the same statements on bare rusqlite (on a connection
//! with the store's settings, in one read transaction, prepared, every column read, no
//! JSON: `sqlite::run_bare`), one request at a time. `bench/load.sh` prints it beside the
//! load figures.
//!
//! ```sh
//! echo "plain /api/articles?pagination[pageSize]=25" |
//!   cargo run --release --example raw_sql -- target/bench/100000.db schemas 50
//! ```

use std::io::BufRead;
use std::sync::Arc;
use std::time::Instant;

use strata::query::{Permissions, QueryConfig, parse_query};
use strata::store::seam::record_statements;
use strata::store::{DatabaseUrl, Store, sqlite};

/// The server's allocator (src/main.rs), so the store's figure is the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let db = args
        .next()
        .ok_or("usage: raw_sql DB SCHEMAS [RUNS] < kinds")?;
    let schemas = args
        .next()
        .ok_or("usage: raw_sql DB SCHEMAS [RUNS] < kinds")?;
    let runs: u32 = args.next().map(|r| r.parse()).transpose()?.unwrap_or(50);
    let model =
        Arc::new(strata::schema::load(std::path::Path::new(&schemas)).map_err(|e| e.to_string())?);
    let url = DatabaseUrl::parse(&format!("sqlite://{db}?mode=ro"))?;
    let store = Store::open_existing(&url, model.clone(), 1)?;
    let mut raw = sqlite::open_connection(&url, false)?;
    let perms = Permissions::all(&model);
    let config = QueryConfig::default();
    println!("| kind | store | same SQL, bare | ratio | statements |");
    println!("|---|---|---|---|---|");
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let Some((name, target)) = line.split_once(' ') else {
            continue;
        };
        let (path, qs) = target.split_once('?').unwrap_or((target, ""));
        let plural = path.trim_start_matches("/api/");
        let Some(schema) = model.by_plural(plural) else {
            continue;
        };
        let q = parse_query(qs, &model, schema.id, &perms, &config)?;
        store.find_page(&q)?; // warm: the count cache and the page cache of SQLite
        let (_, statements) = record_statements(|| store.find_page(&q));
        let started = Instant::now();
        for _ in 0..runs {
            let q = parse_query(qs, &model, schema.id, &perms, &config)?;
            std::hint::black_box(store.find_page(&q)?);
        }
        let store_us = started.elapsed().as_secs_f64() * 1e6 / f64::from(runs);
        let started = Instant::now();
        for _ in 0..runs {
            std::hint::black_box(sqlite::run_bare(&mut raw, &statements)?);
        }
        let raw_us = started.elapsed().as_secs_f64() * 1e6 / f64::from(runs);
        println!(
            "| {name} | {store_us:.0} µs | {raw_us:.0} µs | {:.2}x | {} |",
            store_us / raw_us.max(1e-9),
            statements.len()
        );
    }
    Ok(())
}
