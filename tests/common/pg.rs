//! PostgreSQL for tests: a uniquely named database per test (created with the ICU
//! `en-US` collation of the recording, dropped afterwards), and restoring a `pg_dump`
//! file into it (plain SQL and `COPY … FROM stdin` blocks).
//!
//! The server is the one on 127.0.0.1:5432 (user `postgres`, trust auth), or
//! `STRATA_TEST_PG` (a URL to its maintenance database). When it cannot be reached, a
//! test skips with one loud line, except under `CI=true`, where it fails.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use strata::store::DatabaseUrl;
use strata::store::postgres::{PgPool, PgTarget};
use strata::store::seam::PoolOptions;

/// The maintenance database URL of the test server.
pub fn admin_url() -> String {
    std::env::var("STRATA_TEST_PG")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
}

/// A database that exists for the life of this value.
pub struct TestDb {
    /// Its name.
    pub name: String,
    /// Its URL.
    pub url: String,
    admin: PgPool,
}

fn admin_pool() -> Option<PgPool> {
    let target = PgTarget::parse(&admin_url()).unwrap();
    let options = PoolOptions {
        pool_size: 1,
        ..PoolOptions::default()
    };
    match PgPool::connect(&target, options) {
        Ok(p) => Some(p),
        Err(e) => {
            super::unavailable(&format!(
                "PostgreSQL is not reachable at {} ({e}); set STRATA_TEST_PG or start it",
                target.host_port
            ));
            None
        }
    }
}

impl TestDb {
    /// Creates a fresh database named after `tag`, or `None` (after one loud line) when
    /// PostgreSQL is not reachable outside CI.
    pub fn create(tag: &str) -> Option<TestDb> {
        let admin = admin_pool()?;
        let name = super::unique_database_name(tag);
        let sql = format!(
            "CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"
        );
        admin
            .with_client(async |c| c.batch_execute(&sql).await.map_err(pg_error))
            .unwrap();
        let url = super::url_with_database(&admin_url(), &name);
        Some(TestDb { name, url, admin })
    }

    /// The database URL, parsed.
    pub fn database_url(&self) -> DatabaseUrl {
        DatabaseUrl::parse(&self.url).unwrap()
    }

    /// A pool on this database.
    pub fn pool(&self) -> PgPool {
        PgPool::connect(&PgTarget::parse(&self.url).unwrap(), PoolOptions::default()).unwrap()
    }

    /// Runs SQL (several statements) on the maintenance database (for `ALTER DATABASE`,
    /// terminating connections, …).
    pub fn admin_execute(&self, sql: &str) {
        self.admin
            .with_client(async |c| c.batch_execute(sql).await.map_err(pg_error))
            .unwrap();
    }

    /// Runs SQL (several statements) on this database.
    pub fn execute(&self, sql: &str) {
        let pool = self.pool();
        pool.with_client(async |c| c.batch_execute(sql).await.map_err(pg_error))
            .unwrap();
    }

    /// Restores a plain-format `pg_dump` file: SQL statements, and `COPY … FROM stdin`
    /// blocks sent through the COPY protocol. psql's own `\` commands are skipped.
    pub fn restore(&self, dump: &str) {
        let pool = self.pool();
        pool.with_client(async |c| {
            let err = pg_error;
            let mut sql = String::new();
            let mut lines = dump.lines();
            while let Some(line) = lines.next() {
                if line.starts_with("COPY ") && line.ends_with("FROM stdin;") {
                    c.batch_execute(&sql).await.map_err(err)?;
                    sql.clear();
                    let mut data = String::new();
                    for row in lines.by_ref() {
                        if row == "\\." {
                            break;
                        }
                        data.push_str(row);
                        data.push('\n');
                    }
                    let copy = line.trim_end_matches(';');
                    let sink = c.copy_in::<_, bytes::Bytes>(copy).await.map_err(err)?;
                    futures_util::pin_mut!(sink);
                    use futures_util::SinkExt;
                    sink.send(bytes::Bytes::from(data)).await.map_err(err)?;
                    sink.finish().await.map_err(err)?;
                } else if !line.starts_with('\\') {
                    sql.push_str(line);
                    sql.push('\n');
                }
            }
            c.batch_execute(&sql).await.map_err(err)?;
            Ok(())
        })
        .unwrap();
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let _ = self
            .admin
            .with_client(async |c| c.batch_execute(&sql).await.map_err(pg_error));
    }
}

/// A driver error with the server's message.
pub fn pg_error(e: tokio_postgres::Error) -> strata::store::StoreError {
    let msg = match e.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => e.to_string(),
    };
    strata::store::StoreError::Database(msg)
}

/// A database holding Strapi's own seeded PostgreSQL dump of the blog fixture.
pub fn strapi_blog(tag: &str) -> Option<TestDb> {
    let db = TestDb::create(tag)?;
    let dump = std::fs::read_to_string(super::blog().join("pg/strapi-postgres.sql")).unwrap();
    db.restore(&dump);
    Some(db)
}
