//! Command-line parsing (clap) and dispatch to one module per subcommand.
//! Only commands that work are listed; later ones are added with their implementation.

mod check;
mod config;
mod generate;
mod import;
mod openapi;
mod serve;
mod token;

use std::process::ExitCode;

use std::path::{Path, PathBuf};

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
/// The folder of the project whose schemas are in `schemas`: the folder itself, or its
/// parent when it is the project's `src/` or `schemas/` (as `./schemas` of the bundled
/// example is). Its `strata.toml` and its default database belong to that project alone.
pub fn project_dir(schemas: &Path) -> PathBuf {
    let parent = schemas.parent().unwrap_or(Path::new(""));
    match schemas.file_name().and_then(|n| n.to_str()) {
        Some("src" | "schemas") if parent.as_os_str().is_empty() => PathBuf::from("."),
        Some("src" | "schemas") => parent.to_path_buf(),
        _ => schemas.to_path_buf(),
    }
}

/// The default of every command's `--database` (`STRATA_DATABASE_URL`): an embedded
/// SQLite file in the project's folder, `.strata/data.db` (for the bundled example,
/// `./.strata/data.db`).
pub fn default_database(schemas: &Path) -> String {
    format!(
        "sqlite://{}",
        project_dir(schemas)
            .join(".strata")
            .join("data.db")
            .display()
    )
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_is_its_schemas_folder_or_the_parent_of_src_and_schemas() {
        for (schemas, project) in [
            ("./schemas", "."),
            ("schemas", "."),
            ("../my-project", "../my-project"),
            ("../my-project/src", "../my-project"),
            ("/srv/cms/schemas", "/srv/cms"),
            (".", "."),
        ] {
            assert_eq!(
                project_dir(Path::new(schemas)),
                Path::new(project),
                "{schemas}"
            );
        }
        assert_eq!(
            default_database(Path::new("./schemas")),
            "sqlite://./.strata/data.db"
        );
        assert_eq!(
            default_database(Path::new("../my-project/src")),
            "sqlite://../my-project/.strata/data.db"
        );
    }
}
