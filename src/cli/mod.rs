//! Command-line parsing (clap) and dispatch to one module per subcommand.
//! Only commands that work are listed; later ones are added with their implementation.

mod check;
mod config;
mod generate;
mod import;
mod serve;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// strata: a schema-first content API, wire-compatible with Strapi v5.
#[derive(Debug, Parser)]
#[command(name = "strata", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate a content model and print the database layout Strapi would use for it.
    Check {
        /// Folder with the schemas: a Strapi project, its `src/`, or a folder holding
        /// `api/` and `components/` (directly or under `schemas/`).
        #[arg(long, env = "STRATA_SCHEMAS", default_value = "./schemas")]
        schemas: PathBuf,
        /// Print only the summary, not every table and column.
        #[arg(long)]
        summary: bool,
    },
    /// Generate typed Rust (structs, enums, the embedded model) for a content model.
    Generate(generate::GenerateArgs),
    /// Import a dataset (strata-dataset/1) into a database, in one transaction.
    Import(import::ImportArgs),
    /// Serve the content API (Strapi v5's REST API) over HTTP.
    Serve(serve::ServeArgs),
}

/// Parses the command line and runs the command.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { schemas, summary } => check::run(&schemas, summary),
        Command::Generate(args) => generate::run(&args),
        Command::Import(args) => import::run(&args),
        Command::Serve(args) => report(serve::run(args)),
    }
}

/// Prints an error chain and turns it into the exit status.
fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
