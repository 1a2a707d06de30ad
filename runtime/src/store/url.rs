//! Database URLs: `sqlite://relative/or/absolute/path.db`, `sqlite:///abs/path.db`,
//! `sqlite::memory:`, with `?mode=ro` (read-only) or `?mode=rwc` (read-write, create; the
//! default).

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
}

impl DatabaseUrl {
    /// Parses a URL.
    pub fn parse(url: &str) -> Result<Self, StoreError> {
        let err = |reason: &str| StoreError::Url {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let rest = url.strip_prefix("sqlite:").ok_or_else(|| {
            err("only sqlite URLs are supported: sqlite://path/to/file.db or sqlite::memory:")
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
        assert!(DatabaseUrl::parse("postgres://x").is_err());
        assert!(DatabaseUrl::parse("sqlite://x.db?mode=zz").is_err());
    }
}
