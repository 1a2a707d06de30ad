//! `strata generate`: write the typed Rust module for a content model (the same code a
//! `build.rs` gets from `strata_codegen::Builder`), for projects that commit generated
//! code, with `--lang typescript` the TypeScript types for front ends, or with `--lang
//! graphql` Strapi's GraphQL schema as SDL (for front-end code generators). With `--check`,
//! nothing is written: the command fails when the file is stale.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// Options of `strata generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Folder with the schemas (a Strapi project, its `src/`, or a folder holding `api/`
    /// and `components/`). It is named in the generated file's header as given.
    #[arg(long, env = "STRATA_SCHEMAS", default_value = super::DEFAULT_SCHEMAS)]
    pub schemas: PathBuf,
    /// The file to write (`-` or absent: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write nothing; exit with status 1 when `--out` is missing or differs from what
    /// would be generated (for CI).
    #[arg(long, requires = "out")]
    pub check: bool,
    /// What to generate: `rust` (the typed module), `typescript` (types for front ends) or
    /// `graphql` (the GraphQL schema as SDL).
    #[arg(long, value_enum, default_value = "rust")]
    pub lang: Lang,
}

/// The output language of `strata generate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// Typed Rust: entry structs, filter builders, populate enums.
    Rust,
    /// TypeScript: interfaces and the response envelope.
    Typescript,
    /// GraphQL: the schema Strapi's GraphQL plugin serves for the model, as SDL.
    Graphql,
}

impl Lang {
    /// The value of `--lang` that selects this language.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Typescript => "typescript",
            Lang::Graphql => "graphql",
        }
    }
}

/// The SDL of the model's GraphQL schema.
fn graphql_sdl(schemas: &std::path::Path) -> Result<String, String> {
    let model = strata_runtime::schema::load(schemas).map_err(|e| e.to_string())?;
    // Built first so that a model whose schema the library refuses is an error here too.
    strata_runtime::graphql::schema(&model).map_err(|e| e.to_string())?;
    Ok(strata_runtime::graphql::sdl(&model))
}

/// Runs `strata generate`.
pub fn run(args: &GenerateArgs) -> ExitCode {
    let generated = match args.lang {
        Lang::Rust => strata_codegen::generate_source(&args.schemas).map_err(|e| e.to_string()),
        Lang::Typescript => {
            strata_codegen::generate_typescript(&args.schemas).map_err(|e| e.to_string())
        }
        Lang::Graphql => graphql_sdl(&args.schemas),
    };
    let source = match generated {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}", e.trim_end());
            return ExitCode::FAILURE;
        }
    };
    let out = args.out.as_ref().filter(|p| p.as_os_str() != "-");
    let Some(out) = out else {
        return match std::io::stdout().lock().write_all(source.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            // `strata generate | head` is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: writing to standard output: {e}");
                ExitCode::FAILURE
            }
        };
    };
    if args.check {
        return if std::fs::read_to_string(out).is_ok_and(|old| old == source) {
            ExitCode::SUCCESS
        } else {
            eprintln!(
                "{} is not what `strata generate --lang {} --schemas {} --out {}` produces; \
                 regenerate it by running that command",
                out.display(),
                args.lang.name(),
                args.schemas.display(),
                out.display()
            );
            ExitCode::FAILURE
        };
    }
    match strata_codegen::write_if_changed(out, &source) {
        Ok(()) => {
            eprintln!("wrote {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
