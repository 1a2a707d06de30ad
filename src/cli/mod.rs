//! Command-line parsing (clap) and dispatch to one module per subcommand.
//! Only commands that work are listed; later ones are added with their implementation.

mod check;
mod config;
mod generate;
mod import;
mod openapi;
mod serve;
mod token;

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

/// The default of every command's `--schemas` (`STRATA_SCHEMAS`).
pub const DEFAULT_SCHEMAS: &str = "./schemas";
/// The default of every command's `--database` (`STRATA_DATABASE_URL`): the embedded
/// SQLite file `serve` creates for the bundled example.
pub const DEFAULT_DATABASE: &str = "sqlite://./.strata/data.db";

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate a content model and print the database layout Strapi would use for it.
    Check {
        /// Folder with the schemas: a Strapi project, its `src/`, or a folder holding
        /// `api/` and `components/` (directly or under `schemas/`).
        #[arg(long, env = "STRATA_SCHEMAS", default_value = DEFAULT_SCHEMAS)]
        schemas: PathBuf,
        /// Print only the summary, not every table and column.
        #[arg(long)]
        summary: bool,
        /// Also check this database against the model (read only): every table and
        /// column the model needs must be there.
        #[arg(long, env = "STRATA_DATABASE_URL")]
        database: Option<String>,
    },
    /// Generate typed Rust (structs, enums, the embedded model) for a content model.
    Generate(generate::GenerateArgs),
    /// Import a dataset (strata-dataset/1) into a database, in one transaction.
    Import(import::ImportArgs),
    /// Print the OpenAPI 3.1 document of a content model (served at /openapi.json).
    Openapi(openapi::OpenApiArgs),
    /// Serve the content API (Strapi v5's REST API) over HTTP.
    Serve(serve::ServeArgs),
    /// Create, list and revoke Strapi API tokens.
    #[command(subcommand)]
    Token(token::TokenCommand),
}

/// Parses the command line and runs the command.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check {
            schemas,
            summary,
            database,
        } => check::run(&schemas, summary, database.as_deref()),
        Command::Generate(args) => generate::run(&args),
        Command::Import(args) => import::run(&args),
        Command::Openapi(args) => openapi::run(&args),
        Command::Serve(args) => report(serve::run(args)),
        Command::Token(command) => token::run(command),
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
