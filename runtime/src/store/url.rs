//! Database URLs: `sqlite://relative/or/absolute/path.db`, `sqlite:///abs/path.db`,
//! `sqlite::memory:`, with `?mode=ro` (read-only) or `?mode=rwc` (read-write, create; the
//! default); `postgres://user:pass@host:port/db` or `postgresql://…` (libpq's URL syntax,
//! `sslmode` and `connect_timeout` included); `mysql://user:pass@host:port/db` or
//! `mariadb://…` (`ssl-mode`, `ssl-ca`).

use std::path::PathBuf;

use super::StoreError;

/// A parsed database URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// An SQLite database.
    Sqlite {
        /// The file, or `None` for an in-memory database.
        path: Option<PathBuf>,
        /// `mode=ro`: open read-only, never create or migrate.
        read_only: bool,
    },
    /// A PostgreSQL database.
    Postgres(super::postgres::PgTarget),
    /// A MySQL or MariaDB database.
    Mysql(super::mysql::MyTarget),
}

impl DatabaseUrl {
    /// Parses a URL.
    pub fn parse(url: &str) -> Result<Self, StoreError> {
        let err = |reason: &str| StoreError::Url {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return super::postgres::PgTarget::parse(url)
                .map(DatabaseUrl::Postgres)
                .map_err(|reason| StoreError::Url {
                    url: super::postgres::PgTarget::mask(url),
                    reason,
                });
        }
        if url.starts_with("mysql://") || url.starts_with("mariadb://") {
            return super::mysql::MyTarget::parse(url)
                .map(DatabaseUrl::Mysql)
                .map_err(|reason| StoreError::Url {
                    url: super::mysql::MyTarget::mask(url),
                    reason,
                });
        }
        let rest = url.strip_prefix("sqlite:").ok_or_else(|| {
            err("supported URLs: sqlite://path/to/file.db, sqlite::memory:, postgres://user:pass@host:port/db, mysql://user:pass@host:port/db")
        })?;
        let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
        let mut read_only = false;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair {
                "mode=ro" => read_only = true,
                "mode=rw" | "mode=rwc" => read_only = false,
                other => {
                    return Err(err(&format!(
                        "unknown option `{other}` (supported: mode=ro, mode=rw, mode=rwc)"
                    )));
                }
            }
        }
        if location == ":memory:" {
            return Ok(DatabaseUrl::Sqlite {
                path: None,
                read_only,
            });
        }
        let path = location.strip_prefix("//").unwrap_or(location);
        if path.is_empty() {
            return Err(err("the path is empty"));
        }
        Ok(DatabaseUrl::Sqlite {
            path: Some(PathBuf::from(path)),
            read_only,
        })
    }

    /// Whether writes are refused.
    pub fn read_only(&self) -> bool {
        match self {
            DatabaseUrl::Sqlite { read_only, .. } => *read_only,
            DatabaseUrl::Postgres(_) | DatabaseUrl::Mysql(_) => false,
        }
    }
}

impl std::fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatabaseUrl::Sqlite {
                path: None,
                read_only,
            } => {
                write!(
                    f,
                    "sqlite::memory:{}",
                    if *read_only { "?mode=ro" } else { "" }
                )
            }
            DatabaseUrl::Sqlite {
                path: Some(p),
                read_only,
            } => write!(
                f,
                "sqlite://{}{}",
                p.display(),
                if *read_only { "?mode=ro" } else { "" }
            ),
            DatabaseUrl::Postgres(t) => f.write_str(&t.redacted()),
            DatabaseUrl::Mysql(t) => f.write_str(&t.redacted()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sqlite_urls() {
        assert_eq!(
            DatabaseUrl::parse("sqlite://./.strata/data.db").ok(),
            Some(DatabaseUrl::Sqlite {
                path: Some("./.strata/data.db".into()),
                read_only: false
            })
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:///tmp/x.db?mode=ro").ok(),
            Some(DatabaseUrl::Sqlite {
                path: Some("/tmp/x.db".into()),
                read_only: true
            })
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite::memory:").ok(),
            Some(DatabaseUrl::Sqlite {
                path: None,
                read_only: false
            })
        );
        assert!(matches!(
            DatabaseUrl::parse("postgres://u:pw@db.example:6543/blog"),
            Ok(DatabaseUrl::Postgres(_))
        ));
        assert_eq!(
            DatabaseUrl::parse("postgresql://u:pw@h/blog")
                .map(|u| u.to_string())
                .ok(),
            Some("postgresql://u:***@h/blog".to_string())
        );
        assert!(DatabaseUrl::parse("mysql://x").is_err());
        assert!(DatabaseUrl::parse("sqlite://x.db?mode=zz").is_err());
    }
}
