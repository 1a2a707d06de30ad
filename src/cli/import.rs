//! `strata import FILE`: load a dataset (`strata-dataset/1`) into a database. A new database
//! is created with Strapi's exact DDL; an existing one is migrated additively first
//! (destructive changes are refused unless `--allow-destructive`). The import runs in one
//! transaction: a dataset with problems changes nothing and every problem is printed.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use strata_runtime::schema;
use strata_runtime::store::{DatabaseUrl, ddl, import, migrate, sqlite};

/// Options of `strata import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The dataset file (JSON, format `strata-dataset/1`).
    pub file: PathBuf,
    /// Folder with the schemas (a Strapi project, its `src/`, or a folder holding `api/`
    /// and `components/`).
    #[arg(long, env = "STRATA_SCHEMAS", default_value = "./schemas")]
    pub schemas: PathBuf,
    /// The database: `sqlite://path/to/file.db` (created when missing).
    #[arg(
        long,
        env = "STRATA_DATABASE",
        default_value = "sqlite://./.strata/data.db"
    )]
    pub database: String,
    /// Apply schema changes that lose data (dropped columns and tables) before importing.
    #[arg(long)]
    pub allow_destructive: bool,
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

fn is_new(path: Option<&Path>) -> bool {
    match path {
        None => true,
        Some(p) => std::fs::metadata(p).map(|m| m.len() == 0).unwrap_or(true),
    }
}

fn import_file(args: &ImportArgs) -> anyhow::Result<()> {
    let model = match schema::load(&args.schemas) {
        Ok(m) => m,
        Err(errors) => bail!("{errors}"),
    };
    let url = DatabaseUrl::parse(&args.database)?;
    let DatabaseUrl::Sqlite { path, read_only } = &url;
    if *read_only {
        bail!("the database {url} is opened read-only (mode=ro); importing needs write access");
    }
    if !args.file.is_file() {
        bail!("no dataset at {}", args.file.display());
    }
    let fresh = is_new(path.as_deref());
    let mut conn =
        sqlite::open_connection(&url, true).with_context(|| format!("cannot open {url}"))?;
    if fresh {
        ddl::create_database(&conn, &model)
            .with_context(|| format!("cannot create the database {url}"))?;
        eprintln!(
            "created {url} with {} tables for the model",
            model.database_layout().tables.len()
        );
    } else {
        let plan = migrate::plan(&conn, &model)?;
        for change in &plan.additive {
            eprintln!("migrating: {change}");
        }
        migrate::apply(&conn, &plan, args.allow_destructive)?;
    }
    let bar = progress_bar();
    let started = Instant::now();
    let result = import::import_dataset(&mut conn, &model, &args.file, &|done, total| {
        bar.set_length(total);
        bar.set_position(done);
    });
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
