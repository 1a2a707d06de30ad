//! `strata openapi`: print the OpenAPI 3.1 document of a content model (the one `serve`
//! answers at `/openapi.json`), for client generators and API tools.

use std::path::PathBuf;
use std::process::ExitCode;

use strata_runtime::http::openapi;
use strata_runtime::schema;

use super::config::Config;

/// Options of `strata openapi`.
#[derive(Debug, clap::Args)]
pub struct OpenApiArgs {
    /// Folder with the content-type schemas.
    #[arg(long, env = "STRATA_SCHEMAS", default_value = super::DEFAULT_SCHEMAS)]
    pub schemas: PathBuf,
    /// Configuration file (default: `strata.toml` beside the schemas or in their project
    /// folder, when present), for the route prefix.
    #[arg(long, env = "STRATA_CONFIG")]
    pub config: Option<PathBuf>,
    /// The file to write (`-` or absent: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs `strata openapi`.
pub fn run(args: &OpenApiArgs) -> ExitCode {
    super::report(write(args))
}

fn write(args: &OpenApiArgs) -> anyhow::Result<()> {
    let (config, _) = Config::for_project(args.config.as_deref(), &args.schemas)?;
    let model = schema::load(&args.schemas).map_err(|e| anyhow::anyhow!("{e}"))?;
    let prefix = config.server_config().prefix;
    let text = serde_json::to_string_pretty(&openapi::document(&model, &prefix))?;
    match args.out.as_ref().filter(|p| p.as_os_str() != "-") {
        Some(out) => {
            std::fs::write(out, format!("{text}\n"))?;
            eprintln!("wrote {}", out.display());
        }
        None => println!("{text}"),
    }
    Ok(())
}
