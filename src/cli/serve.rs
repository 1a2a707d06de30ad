//! `strata serve`: load the model, open (or create, seed and migrate) the database, and
//! serve the content API until SIGINT or SIGTERM, letting in-flight requests finish.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use strata_runtime::http::{self, AppState};
use strata_runtime::schema::{self, Model, Origin, SchemaKind};
use strata_runtime::store::Opened;
use strata_runtime::store::{DatabaseUrl, OpenOptions, Store};

use super::config::Config;

/// Options of `strata serve` (flags and their environment variables).
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Folder with the content-type schemas.
    #[arg(long, env = "STRATA_SCHEMAS", default_value = super::DEFAULT_SCHEMAS)]
    pub schemas: PathBuf,
    /// Database URL: `sqlite://path.db` (created if new, migrated additively), `?mode=ro` to
    /// only read; or `postgres://user:pass@host:port/db` (created if it has no tables).
    /// Default: `sqlite://<project>/.strata/data.db`.
    #[arg(long, env = "STRATA_DATABASE_URL")]
    pub database: Option<String>,
    /// Address to listen on.
    #[arg(long, env = "STRATA_HOST", default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on.
    #[arg(long, env = "STRATA_PORT", default_value_t = 1337)]
    pub port: u16,
    /// Configuration file (default: `strata.toml` beside the schemas or in their project
    /// folder, when present).
    #[arg(long, env = "STRATA_CONFIG")]
    pub config: Option<PathBuf>,
    /// Dataset to import when strata creates the database (overrides `seed` in the config).
    #[arg(long, env = "STRATA_SEED")]
    pub seed: Option<PathBuf>,
    /// Connections in the pool (SQLite readers, PostgreSQL or MySQL connections); 0 = on
    /// SQLite one per core (at least 2), on a server four per core (at least 4).
    #[arg(long, env = "STRATA_POOL_SIZE", default_value_t = 0)]
    pub pool_size: usize,
    /// Apply schema changes that lose data (dropped attributes or types).
    #[arg(long, env = "STRATA_ALLOW_DESTRUCTIVE")]
    pub allow_destructive: bool,
    /// MiB of REST answers kept while the data stands (overrides `[server]
    /// answer_cache_mb`; 0: none, so that every request runs its query).
    #[arg(long, env = "STRATA_ANSWER_CACHE_MB")]
    pub answer_cache_mb: Option<usize>,
}

/// Runs the server (blocks until shutdown).
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    init_logging();
    let (config, config_file) = Config::for_project(args.config.as_deref(), &args.schemas)?;
    let model = Arc::new(schema::load(&args.schemas).map_err(|e| anyhow::anyhow!("{e}"))?);
    let database = args
        .database
        .clone()
        .unwrap_or_else(|| super::default_database(&args.schemas));
    let url = DatabaseUrl::parse(&database)?;
    let seed = args.seed.clone().or_else(|| {
        config
            .seed
            .as_ref()
            .map(|p| resolve(config_file.as_deref(), p))
    });
    let options = OpenOptions {
        connections: args.pool_size,
        public_actions: config.permissions.public.actions(),
        seed,
        allow_destructive: args.allow_destructive,
        ..OpenOptions::default()
    };
    let (store, opened) = Store::open(&url, model.clone(), &options)?;
    match opened {
        Opened::Created { seeded } => {
            tracing::info!("created {url} for the model");
            if let Some(report) = seeded {
                tracing::info!("{report}");
            }
        }
        Opened::Existing { migrated } => {
            for change in migrated {
                tracing::info!("migrated: {change}");
            }
        }
    }
    let store = Arc::new(store);
    let mut server = config.server_config();
    if let Some(mb) = args.answer_cache_mb {
        server.answer_cache_bytes = mb.saturating_mul(1 << 20);
    }
    server.auth = config.auth_secrets()?;
    warn_about_secrets(&store, &server.auth);
    let state = AppState::new(store, server);
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
        axum::serve(http::target::EscapingListener(listener), app)
            .with_graceful_shutdown(shutdown_signal())
            .await?;
        tracing::info!("strata stopped");
        Ok::<(), anyhow::Error>(())
    })
}

/// One line when a secret is missing: without the salt the database's API tokens cannot
/// be checked, so only the public role is served to their holders.
fn warn_about_secrets(store: &Store, secrets: &strata_runtime::auth::AuthSecrets) {
    if secrets.api_token_salt.is_none() {
        let tokens = store.api_tokens().map(|t| t.len()).unwrap_or(0);
        if tokens > 0 {
            tracing::warn!(
                "the database holds {tokens} API tokens but no salt is set (API_TOKEN_SALT, \
                 .env or [auth] api_token_salt): API tokens are refused, only the public role is served"
            );
        }
    }
    if secrets.jwt_secret.is_none() {
        tracing::info!("no JWT_SECRET set: users-permissions JWTs are refused");
    }
}

/// A path in the config file is relative to the file's folder.
fn resolve(config_file: Option<&Path>, p: &Path) -> PathBuf {
    match config_file.and_then(Path::parent) {
        Some(dir) if p.is_relative() && !dir.as_os_str().is_empty() => dir.join(p),
        _ => p.to_path_buf(),
    }
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
