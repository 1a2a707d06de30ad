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
//! max_body_bytes = 65536
//! cors_origins = []            # empty: any origin
//!
//! [permissions.public]         # seeded into up_permissions when strata creates the database
//! find = ["api::article.article"]
//! find_one = ["api::article.article"]
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde::Deserialize;
use strata_runtime::http::ServerConfig;
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
    /// Body size limit.
    pub max_body_bytes: Option<usize>,
    /// Allowed CORS origins (empty: any).
    #[serde(default)]
    pub cors_origins: Vec<String>,
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
            cors_origins: self.server.cors_origins.clone(),
            request_timeout: self
                .server
                .request_timeout_secs
                .map_or(d.request_timeout, Duration::from_secs),
            max_body_bytes: self.server.max_body_bytes.unwrap_or(d.max_body_bytes),
            permission_ttl: d.permission_ttl,
        }
    }
}
