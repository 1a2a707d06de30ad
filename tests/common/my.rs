//! MySQL/MariaDB for tests: a uniquely named database per test (`utf8mb4_unicode_ci`, as
//! Strapi's recording), dropped afterwards, and restoring a `mysqldump` file into it.
//!
//! The server is the one on 127.0.0.1:3306 (user `root`, no password), or
//! `STRATA_TEST_MYSQL` (a URL whose database part is ignored). When it cannot be reached, a
//! test skips with one loud line, except under `CI=true`, where it fails.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use mysql::prelude::Queryable;
use strata::store::mysql::{MyPool, MyTarget};
use strata::store::seam::PoolOptions;

/// The server's URL with a database to connect to first.
pub fn admin_url() -> String {
    std::env::var("STRATA_TEST_MYSQL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/mysql".to_string())
}

/// A database that exists for the life of this value.
pub struct TestDb {
    /// Its name.
    pub name: String,
    /// Its URL.
    pub url: String,
    admin: MyPool,
}

fn admin_pool() -> Option<MyPool> {
    let target = MyTarget::parse(&admin_url()).unwrap();
    let options = PoolOptions {
        pool_size: 1,
        ..PoolOptions::default()
    };
    match MyPool::connect(&target, options) {
        Ok(p) => Some(p),
        Err(e) => {
            super::unavailable(&format!(
                "MySQL/MariaDB is not reachable at {} ({e}); set STRATA_TEST_MYSQL or start it",
                target.host_port
            ));
            None
        }
    }
}

impl TestDb {
    /// Creates a fresh database named after `tag`, or `None` (after one loud line) when
    /// the server is not reachable outside CI.
    pub fn create(tag: &str) -> Option<TestDb> {
        let admin = admin_pool()?;
        let name = super::unique_database_name(tag);
        admin
            .with_conn(|c| {
                c.query_drop(format!(
                    "CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
                ))
                .map_err(|e| strata::store::StoreError::Database(e.to_string()))
            })
            .unwrap();
        let url = super::url_with_database(&admin_url(), &name);
        Some(TestDb { name, url, admin })
    }

    /// A pool on this database.
    pub fn pool(&self) -> MyPool {
        MyPool::connect(&MyTarget::parse(&self.url).unwrap(), PoolOptions::default()).unwrap()
    }

    /// Runs SQL (several statements) on this database.
    pub fn execute(&self, sql: &str) {
        self.pool()
            .with_conn(|c| {
                c.query_drop(sql)
                    .map_err(|e| strata::store::StoreError::Database(e.to_string()))
            })
            .unwrap();
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = self.name.clone();
        let _ = self.admin.with_conn(|c| {
            c.query_drop(format!("DROP DATABASE IF EXISTS `{name}`"))
                .map_err(|e| strata::store::StoreError::Database(e.to_string()))
        });
    }
}

/// A fresh database holding Strapi's own MariaDB dump of the blog fixture.
pub fn strapi_blog(tag: &str) -> Option<TestDb> {
    let db = TestDb::create(tag)?;
    let dump = std::fs::read_to_string(super::blog().join("mysql/strapi-mysql.sql")).unwrap();
    db.execute(&dump);
    Some(db)
}
