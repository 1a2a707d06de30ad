//! `strata import FILE`: load a dataset (`strata-dataset/1`) into a database. A new database
//! is created with Strapi's exact DDL; an existing one is migrated additively first
//! (destructive changes are refused unless `--allow-destructive`). The import runs in one
//! transaction: a dataset with problems changes nothing and every problem is printed.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use strata_runtime::schema;
use strata_runtime::store::Opened;
use strata_runtime::store::{DatabaseUrl, OpenOptions, SeedProgress, Store};
use strata_runtime::store::{import, sqlite};

use super::config::Config;

/// Options of `strata import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The dataset file (JSON, format `strata-dataset/1`).
    pub file: PathBuf,
    /// Folder with the schemas (a Strapi project, its `src/`, or a folder holding `api/`
    /// and `components/`).
    #[arg(long, env = "STRATA_SCHEMAS", default_value = super::DEFAULT_SCHEMAS)]
    pub schemas: PathBuf,
    /// The database: `sqlite://path/to/file.db` (created when missing), `postgres://…` or
    /// `mysql://…`. Default: `sqlite://<project>/.strata/data.db`.
    #[arg(long, env = "STRATA_DATABASE_URL")]
    pub database: Option<String>,
    /// Apply schema changes that lose data (dropped columns and tables) before importing.
    #[arg(long)]
    pub allow_destructive: bool,
    /// Configuration file (default: `strata.toml` beside the schemas or in their project
    /// folder, when present): a database that the
    /// import creates gets its `[permissions.public]`.
    #[arg(long, env = "STRATA_CONFIG")]
    pub config: Option<PathBuf>,
}

/// Runs `strata import`.
pub fn run(args: &ImportArgs) -> ExitCode {
    match import_file(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn progress_bar() -> ProgressBar {
    let hidden = !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some();
    let bar = ProgressBar::with_draw_target(
        Some(0),
        if hidden {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} importing [{elapsed_precise}] {wide_bar} {percent:>3}% (two passes, {binary_bytes_per_sec}, eta {eta})",
    ) {
        bar.set_style(style);
    }
    bar
}

fn import_file(args: &ImportArgs) -> anyhow::Result<()> {
    let model = match schema::load(&args.schemas) {
        Ok(m) => Arc::new(m),
        Err(errors) => bail!("{errors}"),
    };
    let database = args
        .database
        .clone()
        .unwrap_or_else(|| super::default_database(&args.schemas));
    let url = DatabaseUrl::parse(&database)?;
    if url.read_only() {
        bail!("the database {url} is opened read-only (mode=ro); importing needs write access");
    }
    if !args.file.is_file() {
        bail!("no dataset at {}", args.file.display());
    }
    let (config, _) = Config::for_project(args.config.as_deref(), &args.schemas)?;
    // A new server database (PostgreSQL, MySQL) is created and imported at once, so that a
    // failed import leaves it empty (PostgreSQL in the creating transaction; MySQL, which
    // cannot take back a `CREATE TABLE`, by dropping the tables it made), and so that the
    // rows go into bare tables whose indexes and foreign keys come after them.
    let server_database = matches!(url, DatabaseUrl::Postgres(_) | DatabaseUrl::Mysql(_));
    let bar = progress_bar();
    let shown = bar.clone();
    let options = OpenOptions {
        connections: 1,
        public_actions: config.permissions.public.actions(),
        allow_destructive: args.allow_destructive,
        seed: server_database.then(|| args.file.clone()),
        seed_progress: SeedProgress::new(move |done, total| {
            shown.set_length(total);
            shown.set_position(done);
        }),
        ..OpenOptions::default()
    };
    let started = Instant::now();
    let opening = Store::open(&url, model.clone(), &options);
    bar.finish_and_clear();
    let (store, opened) = opening.with_context(|| format!("cannot open {url}"))?;
    match opened {
        Opened::Created { seeded } => {
            eprintln!(
                "created {url} with {} tables for the model",
                model.database_layout().tables.len()
            );
            if let Some(report) = seeded {
                println!("{report} in {:.2} s", started.elapsed().as_secs_f64());
                return Ok(());
            }
        }
        Opened::Existing { migrated } => {
            for change in &migrated {
                eprintln!("migrating: {change}");
            }
        }
    }
    let bar = progress_bar();
    let started = Instant::now();
    let progress = |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    };
    let result = match url {
        // SQLite loads on a connection of its own, tuned for the load (`sqlite::import`).
        DatabaseUrl::Sqlite { .. } => {
            drop(store);
            let mut conn = sqlite::open_connection(&url, true)
                .with_context(|| format!("cannot open {url}"))?;
            sqlite::import::import_dataset(&mut conn, &model, &args.file, &progress)
        }
        _ => import::import_into(store.pool(), &model, &args.file, &progress),
    };
    bar.finish_and_clear();
    let report = result?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "imported {report} into {url} in {secs:.2} s ({:.0} documents/s)",
        report.documents as f64 / secs.max(1e-9),
    );
    for (uid, n) in &report.per_type {
        println!("  {uid}: {n}");
    }
    Ok(())
}
