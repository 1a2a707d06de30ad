//! `strata serve`: load the model, open (or create, seed and migrate) the database, and
//! serve the content API until SIGINT or SIGTERM, letting in-flight requests finish.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use strata_runtime::http::{self, AppState};
use strata_runtime::schema::{self, Model, Origin, SchemaKind};
use strata_runtime::store::{self, DatabaseUrl, Store, ddl, migrate, sqlite};

use super::config::Config;

/// Options of `strata serve` (flags and their environment variables).
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Folder with the content-type schemas.
    #[arg(long, env = "STRATA_SCHEMAS", default_value = "./schemas")]
    pub schemas: PathBuf,
    /// Database URL: `sqlite://path.db` (created and migrated if new), `?mode=ro` to only read.
    #[arg(
        long,
        env = "STRATA_DATABASE_URL",
        default_value = "sqlite://./.strata/data.db"
    )]
    pub database: String,
    /// Address to listen on.
    #[arg(long, env = "STRATA_HOST", default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on.
    #[arg(long, env = "STRATA_PORT", default_value_t = 1337)]
    pub port: u16,
    /// Configuration file (default: ./strata.toml when present).
    #[arg(long, env = "STRATA_CONFIG")]
    pub config: Option<PathBuf>,
    /// Dataset to import when strata creates the database (overrides `seed` in the config).
    #[arg(long, env = "STRATA_SEED")]
    pub seed: Option<PathBuf>,
    /// Apply schema changes that lose data (dropped attributes or types).
    #[arg(long, env = "STRATA_ALLOW_DESTRUCTIVE")]
    pub allow_destructive: bool,
}

/// Runs the server (blocks until shutdown).
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    init_logging();
    let explicit = args.config.is_some();
    let config_path = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from("strata.toml"));
    let (config, config_file) = Config::load(&config_path, explicit)?;
    let model = Arc::new(schema::load(&args.schemas).map_err(|e| anyhow::anyhow!("{e}"))?);
    let url = DatabaseUrl::parse(&args.database)?;
    let seed = args.seed.clone().or_else(|| {
        config
            .seed
            .as_ref()
            .map(|p| resolve(config_file.as_deref(), p))
    });
    prepare_database(
        &url,
        &model,
        &config,
        seed.as_deref(),
        args.allow_destructive,
    )?;
    let readers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(2);
    let store = Arc::new(Store::open_existing(&url, model.clone(), readers)?);
    let state = AppState::new(store, config.server_config());
    let app = http::router(state);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let addr: SocketAddr = format!("{}:{}", args.host, args.port)
            .parse()
            .with_context(|| format!("invalid address {}:{}", args.host, args.port))?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr()?;
        tracing::info!(
            "strata listening on http://{local} — model: {} — database: {url}",
            describe(&model)
        );
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown_signal())
            .await?;
        tracing::info!("strata stopped");
        Ok::<(), anyhow::Error>(())
    })
}

/// A path in the config file is relative to the file's folder.
fn resolve(config_file: Option<&Path>, p: &Path) -> PathBuf {
    match config_file.and_then(Path::parent) {
        Some(dir) if p.is_relative() && !dir.as_os_str().is_empty() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

/// Creates a new database (layout, public grants, seed dataset), migrates an existing one
/// additively, or only checks it when it is read-only.
fn prepare_database(
    url: &DatabaseUrl,
    model: &Model,
    config: &Config,
    seed: Option<&Path>,
    allow_destructive: bool,
) -> anyhow::Result<()> {
    let DatabaseUrl::Sqlite { path, read_only } = url;
    let is_new = match path {
        Some(p) => !p.exists(),
        None => true,
    };
    if *read_only {
        if is_new {
            bail!("{url}: the database does not exist, and mode=ro cannot create it");
        }
        let conn = sqlite::open_connection(url, false)?;
        let problems = migrate::verify(&conn, model);
        if !problems.is_empty() {
            return Err(store::StoreError::Layout(problems).into());
        }
        return Ok(());
    }
    if path.is_none() {
        bail!(
            "sqlite::memory: is not supported by `strata serve`: each connection would see its own empty database; use a file"
        );
    }
    let mut conn = sqlite::open_connection(url, true)?;
    if is_new {
        ddl::create_database(&conn, model)?;
        ddl::seed_public_permissions(&conn, model, &config.permissions.public.actions())?;
        if let Some(seed) = seed {
            let report = store::import_dataset(&mut conn, model, seed, &|_, _| {})
                .map_err(|e| anyhow::anyhow!("{e}"))
                .with_context(|| format!("cannot import {}", seed.display()))?;
            tracing::info!(
                "imported {}: {} documents ({} rows), {} files, {} users",
                seed.display(),
                report.documents,
                report.rows,
                report.files,
                report.users
            );
        }
    } else {
        migrate::migrate(&conn, model, allow_destructive)?;
    }
    Ok(())
}

fn describe(model: &Model) -> String {
    let user = || model.schemas().iter().filter(|s| s.origin == Origin::Api);
    let collections = user()
        .filter(|s| s.kind == SchemaKind::CollectionType)
        .count();
    let singles = user().filter(|s| s.kind == SchemaKind::SingleType).count();
    format!(
        "{collections} collection types, {singles} single types, {} components",
        model.components().count()
    )
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("STRATA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::stdout().is_terminal())
        .try_init();
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
