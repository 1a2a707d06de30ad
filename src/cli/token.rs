//! `strata token create|list|revoke`: Strapi API tokens, written to the same tables, with
//! the same columns and hash as Strapi's admin writes them, so that Strapi's admin lists
//! them and both Strapi and strata accept them.
//!
//! Decisions:
//! * The key is printed once, on stdout alone (so `KEY=$(strata token create …)` works);
//!   everything else goes to stderr. Only its hash is stored.
//! * Lifespans are Strapi's choices (7, 30 or 90 days, or unlimited); Strapi refuses
//!   others. `encrypted_key` (which lets Strapi's admin show a key again) is left empty:
//!   it needs the admin's encryption key, and a key shown once is the safer default.
//! * A custom token's grants are `<uid>.<action>` of the model's content types, checked
//!   before anything is written; a read-only or full-access token takes none.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use strata_runtime::auth::api_token::{self, DAY_MS, LIFESPAN_DAYS, TokenType};
use strata_runtime::schema::{self, Model, SchemaKind};
use strata_runtime::store::credentials::{NewToken, StoredToken};
use strata_runtime::store::{DatabaseUrl, Store};

use super::config::Config;

/// Where the tokens live (shared by the three subcommands).
#[derive(Debug, clap::Args)]
pub struct Target {
    /// Folder with the content-type schemas.
    #[arg(long, env = "STRATA_SCHEMAS", default_value = super::DEFAULT_SCHEMAS)]
    pub schemas: PathBuf,
    /// Database URL (`sqlite://…`, `postgres://…` or `mysql://…`); it must exist.
    #[arg(long, env = "STRATA_DATABASE_URL")]
    pub database: Option<String>,
    /// Configuration file (default: `strata.toml` beside the schemas or in their project
    /// folder, when present), for `[auth]`.
    #[arg(long, env = "STRATA_CONFIG")]
    pub config: Option<PathBuf>,
}

/// `strata token …`.
#[derive(Debug, clap::Subcommand)]
pub enum TokenCommand {
    /// Create a content-API token and print its key (once).
    Create {
        /// The token's name (unique).
        #[arg(long)]
        name: String,
        /// read-only, full-access or custom.
        #[arg(long = "type", value_name = "TYPE")]
        token_type: String,
        /// An action a custom token may perform, e.g. `api::article.article.find`
        /// (repeat the flag for more).
        #[arg(long = "grant", value_name = "ACTION")]
        grants: Vec<String>,
        /// Days until it expires: 7, 30 or 90 (default: never).
        #[arg(long, value_name = "DAYS")]
        lifespan: Option<u32>,
        /// A description shown in Strapi's admin.
        #[arg(long, default_value = "")]
        description: String,
        #[command(flatten)]
        target: Target,
    },
    /// List the tokens (never their keys).
    List {
        #[command(flatten)]
        target: Target,
    },
    /// Delete a token (by name, or by id), with its grants.
    Revoke {
        /// The token's name or id.
        name_or_id: String,
        #[command(flatten)]
        target: Target,
    },
}

/// Runs a token subcommand.
pub fn run(command: TokenCommand) -> ExitCode {
    super::report(match command {
        TokenCommand::Create {
            name,
            token_type,
            grants,
            lifespan,
            description,
            target,
        } => create(&target, &name, &token_type, &grants, lifespan, &description),
        TokenCommand::List { target } => list(&target),
        TokenCommand::Revoke { name_or_id, target } => revoke(&target, &name_or_id),
    })
}

fn open(target: &Target) -> anyhow::Result<(Store, Config)> {
    let (config, _) = Config::for_project(target.config.as_deref(), &target.schemas)?;
    let model = Arc::new(schema::load(&target.schemas).map_err(|e| anyhow::anyhow!("{e}"))?);
    let database = target
        .database
        .clone()
        .unwrap_or_else(|| super::default_database(&target.schemas));
    let url = DatabaseUrl::parse(&database)?;
    let store =
        Store::open_existing(&url, model, 1).with_context(|| format!("cannot open {url}"))?;
    Ok((store, config))
}

/// The actions a custom token may be granted: `<uid>.<action>` of a content type.
fn check_grants(model: &Model, grants: &[String]) -> anyhow::Result<()> {
    const ACTIONS: [&str; 5] = ["find", "findOne", "create", "update", "delete"];
    for grant in grants {
        let known = grant.rsplit_once('.').is_some_and(|(uid, action)| {
            ACTIONS.contains(&action)
                && model
                    .by_uid(uid)
                    .is_some_and(|s| s.kind != SchemaKind::Component)
        });
        if !known {
            bail!(
                "unknown grant {grant:?}: expected <content-type uid>.<find|findOne|create|update|delete>, \
                 e.g. api::article.article.find"
            );
        }
    }
    Ok(())
}

fn create(
    target: &Target,
    name: &str,
    token_type: &str,
    grants: &[String],
    lifespan: Option<u32>,
    description: &str,
) -> anyhow::Result<()> {
    let token_type: TokenType = token_type.parse()?;
    if name.trim().is_empty() {
        bail!("--name must not be empty");
    }
    match (token_type, grants.is_empty()) {
        (TokenType::Custom, true) => bail!("a custom token needs at least one --grant ACTION"),
        (TokenType::ReadOnly | TokenType::FullAccess, false) => {
            bail!("--grant applies to custom tokens only; a {token_type} token has fixed grants")
        }
        _ => {}
    }
    if let Some(days) = lifespan
        && !LIFESPAN_DAYS.contains(&days)
    {
        bail!(
            "--lifespan must be 7, 30 or 90 days (Strapi's choices); leave it out for a token that never expires"
        );
    }
    let (store, config) = open(target)?;
    check_grants(store.model(), grants)?;
    let salt = config.auth_secrets()?.api_token_salt.context(
        "no API token salt: set API_TOKEN_SALT (as in the Strapi project's .env) or [auth] api_token_salt",
    )?;
    let key = api_token::new_key().map_err(|e| anyhow::anyhow!("no randomness for a key: {e}"))?;
    let now_ms = strata_runtime::clock::now_ms();
    let token = store.create_api_token(&NewToken {
        name,
        description,
        token_type,
        actions: grants,
        lifespan_ms: lifespan.map(|d| i64::from(d) * DAY_MS),
        access_key: &api_token::access_key(&salt, key.expose()),
        now_ms,
    })?;
    eprintln!(
        "created token {} {:?} ({}, {}); its key, shown this once:",
        token.id,
        token.name,
        token.token_type,
        expiry(&token)
    );
    println!("{}", key.expose());
    Ok(())
}

fn expiry(token: &StoredToken) -> String {
    match token.expires_at {
        Some(ms) => format!("expires {}", strata_runtime::query::values::iso_string(ms)),
        None => "never expires".to_string(),
    }
}

fn list(target: &Target) -> anyhow::Result<()> {
    let (store, _) = open(target)?;
    let tokens = store.api_tokens()?;
    println!(
        "{:>4}  {:<12}  {:<11}  {:<26}  name",
        "id", "type", "kind", "expiry"
    );
    for t in &tokens {
        println!(
            "{:>4}  {:<12}  {:<11}  {:<26}  {}",
            t.id,
            t.token_type,
            t.kind.as_deref().unwrap_or("content-api"),
            expiry(t),
            t.name
        );
    }
    eprintln!("{} tokens", tokens.len());
    Ok(())
}

fn revoke(target: &Target, name_or_id: &str) -> anyhow::Result<()> {
    let (store, _) = open(target)?;
    let token = store.revoke_api_token(name_or_id)?;
    eprintln!(
        "revoked token {} {:?}: strata refuses it within its cache time (1 s), Strapi at once",
        token.id, token.name
    );
    Ok(())
}
