//! `strata.toml`: the server's configuration, mirroring Strapi's `config/api.js` plus
//! strata's limits and the public role's grants for databases strata creates.
//!
//! ```toml
//! seed = "examples/blog/dataset.json"   # imported when strata creates the database
//!
//! [api]
//! prefix = "/api"
//! [api.rest]
//! default_limit = 25
//! max_limit = 100
//! with_count = true
//! strict_params = false
//! [api.documents]
//! strict_params = false
//! [api.graphql]                # Strapi's GraphQL queries and mutations at /graphql (off by default)
//! enabled = false
//! default_limit = 25
//! max_limit = 100
//! introspection = true         # false refuses `__schema` and `__type`, as Strapi in production
//!
//! [limits]
//! max_query_length = 32768
//! max_depth = 16
//! max_conditions = 500
//! max_in_values = 1000
//! max_populate_depth = 10
//!
//! [server]
//! request_timeout_secs = 30
//! max_body_bytes = 1048576     # a write's body (Strapi's koa-body `1mb`); 413 past it
//! inline_budget_ms = 1         # SQLite: time a request may run on the event loop
//! answer_cache_mb = 64         # REST answers kept while the data stands (0: none)
//! docs = true                  # the API explorer (Swagger UI) at /docs
//!
//! [server.cors]                # Strapi's `strapi::cors`; these are its defaults
//! origin = "*"                 # or ["https://app.example", "https://admin.example"]
//! credentials = true
//! max_age = 31536000
//! methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
//! headers = ["Content-Type", "Authorization", "Origin", "Accept"]
//! expose = []
//!
//! [permissions.public]         # seeded into up_permissions when strata creates the database
//! find = ["api::article.article"]
//! find_one = ["api::article.article"]
//!
//! [auth]                       # Strapi's secrets; each is taken from, in order: the
//! env_file = ".env"            # environment (API_TOKEN_SALT, JWT_SECRET), this Strapi
//! api_token_salt = "…"         # `.env` file (default `.env`, when it exists), then here
//! jwt_secret = "…"
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde::Deserialize;
use strata_runtime::auth::{AuthSecrets, Secret};
use strata_runtime::http::ServerConfig;
use strata_runtime::http::cors::CorsConfig;
use strata_runtime::query::{QueryConfig, QueryLimits};

/// The whole file. Every key is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A dataset imported when strata creates the database.
    pub seed: Option<PathBuf>,
    /// `[api]`.
    #[serde(default)]
    pub api: Api,
    /// `[limits]`.
    #[serde(default)]
    pub limits: Limits,
    /// `[server]`.
    #[serde(default)]
    pub server: Server,
    /// `[permissions.<role>]`.
    #[serde(default)]
    pub permissions: Permissions,
    /// `[auth]`.
    #[serde(default)]
    pub auth: Auth,
}

/// `[auth]`: the secrets that check API tokens and JWTs.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Auth {
    /// A Strapi project's `.env` to read `API_TOKEN_SALT` and `JWT_SECRET` from (default
    /// `.env` in the working directory, when it exists).
    pub env_file: Option<PathBuf>,
    /// `admin.apiToken.salt`.
    pub api_token_salt: Option<String>,
    /// users-permissions' `jwtSecret`.
    pub jwt_secret: Option<String>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("env_file", &self.env_file)
            .field(
                "api_token_salt",
                &self.api_token_salt.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "jwt_secret",
                &self.jwt_secret.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

/// `[api]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Api {
    /// Route prefix (default `/api`).
    pub prefix: Option<String>,
    /// `[api.rest]`.
    #[serde(default)]
    pub rest: Rest,
    /// `[api.documents]`.
    #[serde(default)]
    pub documents: Documents,
    /// `[api.graphql]`.
    #[serde(default)]
    pub graphql: Graphql,
}

/// `[api.graphql]`: Strapi's GraphQL read queries at `/graphql` (the plugin's
/// `defaultLimit` and `maxLimit`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Graphql {
    /// Serve `POST /graphql` and `GET /graphql` (false).
    pub enabled: Option<bool>,
    /// Entries of a list without `pagination` (25).
    pub default_limit: Option<u64>,
    /// Largest page size (100).
    pub max_limit: Option<u64>,
    /// Answer introspection (`__schema`, `__type`) (true).
    pub introspection: Option<bool>,
}

/// `[api.rest]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rest {
    /// Default page size (25).
    pub default_limit: Option<u64>,
    /// Largest page size (100; 0 means none).
    pub max_limit: Option<u64>,
    /// Count totals by default (true).
    pub with_count: Option<bool>,
    /// Reject unknown top-level query keys (false).
    pub strict_params: Option<bool>,
}

/// `[api.documents]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Documents {
    /// Strict `status`/`locale` checks (false).
    pub strict_params: Option<bool>,
}

/// `[limits]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Bytes of query string.
    pub max_query_length: Option<usize>,
    /// Filter nesting.
    pub max_depth: Option<usize>,
    /// Filter conditions per query.
    pub max_conditions: Option<usize>,
    /// Values of one `$in`.
    pub max_in_values: Option<usize>,
    /// Populate nesting.
    pub max_populate_depth: Option<usize>,
}

/// `[server]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    /// Request time limit in seconds.
    pub request_timeout_secs: Option<u64>,
    /// Largest body of a write, in bytes (default 1 MiB, as Strapi).
    pub max_body_bytes: Option<usize>,
    /// Allowed CORS origins (empty: any). Kept for older files; `[server.cors]` says more.
    #[serde(default)]
    pub cors_origins: Vec<String>,
    /// `[server.cors]`: Strapi's `strapi::cors` settings.
    #[serde(default)]
    pub cors: Cors,
    /// Whether `/docs` serves the API explorer (default true).
    pub docs: Option<bool>,
    /// Largest total size of a request's headers (431 beyond it).
    pub max_header_bytes: Option<usize>,
    /// On SQLite, milliseconds a request (a read, or a write with the database to itself)
    /// may run on the event loop before it is answered on a blocking thread instead
    /// (default 1; 0: always on a blocking thread).
    pub inline_budget_ms: Option<u64>,
    /// MiB of REST answers kept while the data they were read from stands (default 64;
    /// 0: none). Only where the database offers a data generation (SQLite, PostgreSQL).
    pub answer_cache_mb: Option<usize>,
}

/// `[server.cors]`, as Strapi's `strapi::cors` configuration (`config/middlewares.js`);
/// every key defaults to Strapi's default.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cors {
    /// Allowed origins: `"*"` (any), one origin, a comma-separated list, or a list.
    pub origin: Option<OneOrMany>,
    /// Whether credentials may be sent (`Access-Control-Allow-Credentials`).
    pub credentials: Option<bool>,
    /// Seconds a browser may keep a preflight's answer.
    pub max_age: Option<u64>,
    /// `Access-Control-Allow-Methods`.
    pub methods: Option<Vec<String>>,
    /// `Access-Control-Allow-Headers` (empty: what the preflight asks for).
    pub headers: Option<Vec<String>>,
    /// `Access-Control-Expose-Headers`.
    pub expose: Option<Vec<String>>,
}

/// A string or a list of strings.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    /// One string (may hold a comma-separated list).
    One(String),
    /// A list.
    Many(Vec<String>),
}

impl Cors {
    /// The server's CORS settings: these keys over Strapi's defaults; `cors_origins` of
    /// `[server]` (older files) gives the origins when `origin` is not set.
    pub fn config(&self, legacy_origins: &[String]) -> CorsConfig {
        let d = CorsConfig::default();
        let origins = match &self.origin {
            Some(OneOrMany::One(o)) => vec![o.clone()],
            Some(OneOrMany::Many(list)) => list.clone(),
            None if !legacy_origins.is_empty() => legacy_origins.to_vec(),
            None => d.origins,
        };
        CorsConfig {
            origins,
            credentials: self.credentials.unwrap_or(d.credentials),
            max_age: self.max_age.or(d.max_age),
            methods: self.methods.clone().unwrap_or(d.methods),
            headers: self.headers.clone().unwrap_or(d.headers),
            expose: self.expose.clone().unwrap_or(d.expose),
        }
    }
}

/// `[permissions]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    /// `[permissions.public]`.
    #[serde(default)]
    pub public: RoleGrants,
}

/// The grants of one role, as content-type uids.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleGrants {
    /// Types the role may list.
    #[serde(default)]
    pub find: Vec<String>,
    /// Types the role may read one document of.
    #[serde(default)]
    pub find_one: Vec<String>,
}

impl RoleGrants {
    /// The grants as users-permissions actions (`api::article.article.find`).
    pub fn actions(&self) -> Vec<String> {
        self.find
            .iter()
            .map(|u| format!("{u}.find"))
            .chain(self.find_one.iter().map(|u| format!("{u}.findOne")))
            .collect()
    }
}

impl Config {
    /// The configuration of the project whose schemas are in `schemas`: the file given
    /// with `--config` (it must exist); else `strata.toml` in the schemas folder; else in
    /// the project's folder ([`super::project_dir`]: the parent of a `src/` or `schemas/`
    /// folder); else the defaults. So each project's settings (its seed, its public
    /// grants) apply to it alone: the bundled example's `./strata.toml` is found for
    /// `./schemas`, never for another project's schemas.
    pub fn for_project(
        explicit: Option<&Path>,
        schemas: &Path,
    ) -> anyhow::Result<(Config, Option<PathBuf>)> {
        if let Some(path) = explicit {
            return Config::load(path, true);
        }
        let beside = schemas.join("strata.toml");
        let in_project = super::project_dir(schemas).join("strata.toml");
        for candidate in [beside, in_project] {
            if candidate.is_file() {
                return Config::load(&candidate, true);
            }
        }
        Ok((Config::default(), None))
    }

    /// Reads `path`; when `explicit` is false a missing file means the defaults.
    pub fn load(path: &Path, explicit: bool) -> anyhow::Result<(Config, Option<PathBuf>)> {
        if !path.exists() && !explicit {
            return Ok((Config::default(), None));
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config {}", path.display()))?;
        let config: Config =
            toml::from_str(&text).with_context(|| format!("invalid config {}", path.display()))?;
        Ok((config, Some(path.to_path_buf())))
    }

    /// The server settings.
    pub fn server_config(&self) -> ServerConfig {
        let d = ServerConfig::default();
        let q = QueryConfig::default();
        let l = QueryLimits::default();
        ServerConfig {
            prefix: self.api.prefix.clone().unwrap_or(d.prefix),
            query: QueryConfig {
                default_limit: self
                    .api
                    .rest
                    .default_limit
                    .unwrap_or(q.default_limit)
                    .max(1),
                max_limit: match self.api.rest.max_limit {
                    Some(0) => None,
                    Some(n) => Some(n),
                    None => q.max_limit,
                },
                with_count: self.api.rest.with_count.unwrap_or(q.with_count),
                strict_params: self.api.rest.strict_params.unwrap_or(q.strict_params),
                documents_strict_params: self
                    .api
                    .documents
                    .strict_params
                    .unwrap_or(q.documents_strict_params),
                operator_objects: q.operator_objects,
                limits: QueryLimits {
                    max_query_length: self.limits.max_query_length.unwrap_or(l.max_query_length),
                    max_depth: self.limits.max_depth.unwrap_or(l.max_depth),
                    max_conditions: self.limits.max_conditions.unwrap_or(l.max_conditions),
                    max_in_values: self.limits.max_in_values.unwrap_or(l.max_in_values),
                    max_populate_depth: self
                        .limits
                        .max_populate_depth
                        .unwrap_or(l.max_populate_depth),
                },
            },
            cors: self.server.cors.config(&self.server.cors_origins),
            docs: self.server.docs.unwrap_or(d.docs),
            request_timeout: self
                .server
                .request_timeout_secs
                .map_or(d.request_timeout, Duration::from_secs),
            max_body_bytes: self.server.max_body_bytes.unwrap_or(d.max_body_bytes),
            permission_ttl: d.permission_ttl,
            auth: AuthSecrets::default(),
            max_header_bytes: self.server.max_header_bytes.unwrap_or(d.max_header_bytes),
            inline_budget: match self.server.inline_budget_ms {
                None => d.inline_budget,
                Some(0) => None,
                Some(ms) => Some(Duration::from_millis(ms)),
            },
            answer_cache_bytes: self
                .server
                .answer_cache_mb
                .map_or(d.answer_cache_bytes, |mb| mb.saturating_mul(1 << 20)),
            graphql: strata_runtime::http::GraphqlConfig {
                enabled: self.api.graphql.enabled.unwrap_or(d.graphql.enabled),
                default_limit: self
                    .api
                    .graphql
                    .default_limit
                    .unwrap_or(d.graphql.default_limit),
                max_limit: self.api.graphql.max_limit.unwrap_or(d.graphql.max_limit),
                introspection: self
                    .api
                    .graphql
                    .introspection
                    .unwrap_or(d.graphql.introspection),
            },
        }
    }

    /// Strapi's secrets: the environment first, then the project's `.env`, then `[auth]`.
    /// An `env_file` that was named but cannot be read is an error.
    pub fn auth_secrets(&self) -> anyhow::Result<AuthSecrets> {
        let env_file = match &self.auth.env_file {
            Some(path) => Some(
                std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read [auth] env_file {}", path.display()))?,
            ),
            None => std::fs::read_to_string(".env").ok(),
        };
        let from_file = env_file.as_deref().map(dotenv_secrets).unwrap_or_default();
        let from_config = AuthSecrets {
            api_token_salt: self.auth.api_token_salt.clone().and_then(Secret::new),
            jwt_secret: self.auth.jwt_secret.clone().and_then(Secret::new),
        };
        Ok(AuthSecrets::from_env().or(from_file).or(from_config))
    }
}

/// `API_TOKEN_SALT` and `JWT_SECRET` of a dotenv file (`KEY=value`, optional `export`,
/// quotes, `#` comments), as Strapi's `.env` holds them.
pub fn dotenv_secrets(text: &str) -> AuthSecrets {
    let mut secrets = AuthSecrets::default();
    for line in text.lines() {
        let line = line.trim();
        let line = line.strip_prefix("export ").unwrap_or(line);
        if line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let value = match (value.chars().next(), value.chars().last()) {
            (Some(q @ ('"' | '\'')), Some(e)) if q == e && value.len() >= 2 => {
                &value[1..value.len() - 1]
            }
            _ => value.split(" #").next().unwrap_or("").trim(),
        };
        match key.trim() {
            "API_TOKEN_SALT" => secrets.api_token_salt = Secret::new(value),
            "JWT_SECRET" => secrets.jwt_secret = Secret::new(value),
            _ => {}
        }
    }
    secrets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphql_is_off_unless_switched_on() {
        let off: Config = toml::from_str("").unwrap();
        assert!(!off.server_config().graphql.enabled);
        let on: Config = toml::from_str("[api.graphql]\nenabled = true\nmax_limit = 50\n").unwrap();
        let config = on.server_config();
        assert!(config.graphql.enabled);
        assert_eq!(config.graphql.max_limit, 50);
        assert_eq!(config.graphql.default_limit, 25);
        assert!(config.graphql.introspection);
        let closed: Config = toml::from_str("[api.graphql]\nintrospection = false\n").unwrap();
        assert!(!closed.server_config().graphql.introspection);
        assert!(toml::from_str::<Config>("[api.graphql]\nenable = true\n").is_err());
    }

    #[test]
    fn reads_a_strapi_dotenv() {
        let s = dotenv_secrets(
            "HOST=0.0.0.0\n# API_TOKEN_SALT=commented\nAPI_TOKEN_SALT=tobemodified==\n\
             export JWT_SECRET=\"quoted secret\"\n",
        );
        assert_eq!(
            s.api_token_salt.as_ref().map(Secret::expose),
            Some("tobemodified==")
        );
        assert_eq!(
            s.jwt_secret.as_ref().map(Secret::expose),
            Some("quoted secret")
        );
        assert_eq!(dotenv_secrets("JWT_SECRET=\n"), AuthSecrets::default());
    }
}
