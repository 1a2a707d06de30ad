//! Database URLs: `sqlite://relative/or/absolute/path.db`, `sqlite:///abs/path.db`,
//! `sqlite::memory:`, with `?mode=ro` (read-only) or `?mode=rwc` (read-write, create; the
//! default) and `synchronous=normal` (the default) or `synchronous=full` (see
//! [`SqliteSync`]); `postgres://user:pass@host:port/db` or `postgresql://…` (libpq's URL syntax,
//! `sslmode` and `connect_timeout` included); `mysql://user:pass@host:port/db` or
//! `mariadb://…` (`ssl-mode`, `ssl-ca`).

use std::path::PathBuf;

use super::StoreError;

/// When an SQLite commit reaches the disk (`PRAGMA synchronous`, in WAL mode).
///
/// **Decision:** the default is [`SqliteSync::Normal`], the durability Strapi itself has on
/// the same file: its driver, better-sqlite3, is built with
/// `SQLITE_DEFAULT_WAL_SYNCHRONOUS=1`, so Strapi on a WAL database (which every database
/// strata has opened is: WAL is a property of the file) commits without an `fsync`. A
/// commit survives a crash of the process at once, and a power cut once the next
/// checkpoint has synced the log (SQLite's documented WAL guarantee; the database is never
/// corrupted either way). `synchronous=full` syncs the log at every commit, for a deployment
/// that must not lose the last writes to a power cut; it costs one `fsync` a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SqliteSync {
    /// `PRAGMA synchronous = NORMAL`: the log is synced at checkpoints.
    #[default]
    Normal,
    /// `PRAGMA synchronous = FULL`: the log is synced at every commit.
    Full,
}

impl SqliteSync {
    /// The value of `PRAGMA synchronous`.
    pub fn pragma_value(self) -> &'static str {
        match self {
            SqliteSync::Normal => "NORMAL",
            SqliteSync::Full => "FULL",
        }
    }
}

/// A parsed database URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// An SQLite database.
    Sqlite {
        /// The file, or `None` for an in-memory database.
        path: Option<PathBuf>,
        /// `mode=ro`: open read-only, never create or migrate.
        read_only: bool,
        /// `synchronous=`: when a commit reaches the disk.
        synchronous: SqliteSync,
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
        let mut synchronous = SqliteSync::default();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair {
                "mode=ro" => read_only = true,
                "mode=rw" | "mode=rwc" => read_only = false,
                "synchronous=normal" => synchronous = SqliteSync::Normal,
                "synchronous=full" => synchronous = SqliteSync::Full,
                other => {
                    return Err(err(&format!(
                        "unknown option `{other}` (supported: mode=ro, mode=rw, mode=rwc, synchronous=normal, synchronous=full)"
                    )));
                }
            }
        }
        if location == ":memory:" {
            return Ok(DatabaseUrl::Sqlite {
                path: None,
                read_only,
                synchronous,
            });
        }
        let path = location.strip_prefix("//").unwrap_or(location);
        if path.is_empty() {
            return Err(err("the path is empty"));
        }
        Ok(DatabaseUrl::Sqlite {
            path: Some(PathBuf::from(path)),
            read_only,
            synchronous,
        })
    }

    /// An SQLite URL with the default options but `read_only`.
    pub fn sqlite(path: Option<PathBuf>, read_only: bool) -> Self {
        DatabaseUrl::Sqlite {
            path,
            read_only,
            synchronous: SqliteSync::default(),
        }
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
                path,
                read_only,
                synchronous,
            } => {
                match path {
                    None => f.write_str("sqlite::memory:")?,
                    Some(p) => write!(f, "sqlite://{}", p.display())?,
                }
                let options: Vec<&str> = [
                    read_only.then_some("mode=ro"),
                    (*synchronous == SqliteSync::Full).then_some("synchronous=full"),
                ]
                .into_iter()
                .flatten()
                .collect();
                if !options.is_empty() {
                    write!(f, "?{}", options.join("&"))?;
                }
                Ok(())
            }
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
            Some(DatabaseUrl::sqlite(Some("./.strata/data.db".into()), false))
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:///tmp/x.db?mode=ro").ok(),
            Some(DatabaseUrl::sqlite(Some("/tmp/x.db".into()), true))
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite::memory:").ok(),
            Some(DatabaseUrl::sqlite(None, false))
        );
        let full = DatabaseUrl::parse("sqlite://x.db?synchronous=full&mode=ro");
        assert_eq!(
            full.as_ref().map(ToString::to_string).ok().as_deref(),
            Some("sqlite://x.db?mode=ro&synchronous=full")
        );
        assert!(matches!(
            full,
            Ok(DatabaseUrl::Sqlite {
                synchronous: SqliteSync::Full,
                ..
            })
        ));
        assert!(DatabaseUrl::parse("sqlite://x.db?synchronous=off").is_err());
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
