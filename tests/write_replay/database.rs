//! The database each sequence runs on: a fresh copy of the blog seed (Strapi's own SQLite
//! file, or its PostgreSQL or MariaDB dump), migrated by strata's `Store::open` when the
//! sequence runs on the `ext` model, then given the recorder's tokens and grants. And what
//! the replays of one run on one backend share ([`Run`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mysql::prelude::Queryable;
use strata::store::mysql::MyPool;
use strata::store::postgres::{PgPool, PgTarget};
use strata::store::seam::PoolOptions;
use strata::store::{DatabaseUrl, OpenOptions, Store, StoreError};

use super::common::{self, pg::pg_error};
use super::{Backend, Model, Recording, db, snapshot};

/// What the replays of one run on one backend share: on PostgreSQL the blog seed restored
/// once (the template of every sequence's database), and the schemas folder of each model
/// that extends the blog.
pub struct Run {
    pub backend: Backend,
    /// The server's event-loop budget ([`strata::http::ServerConfig::inline_budget`]).
    pub inline_budget: Option<std::time::Duration>,
    template: Option<common::pg::TestDb>,
    extended_schemas: std::collections::HashMap<Model, PathBuf>,
}

impl Run {
    /// A run on `backend`, or `None` when its server cannot be reached (after
    /// `common::unavailable`'s loud line; under `CI=true` that fails the test instead).
    pub fn start(backend: Backend) -> Option<Run> {
        let template = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(common::pg::strapi_blog("replay_seed")?),
            Backend::Mysql => {
                common::my::TestDb::create("replay_probe")?;
                None
            }
        };
        Some(Run {
            backend,
            inline_budget: strata::http::ServerConfig::default().inline_budget,
            template,
            extended_schemas: Default::default(),
        })
    }

    /// The schemas folder of `model`.
    pub fn schemas(&mut self, model: &Model) -> PathBuf {
        match model.extension() {
            None => common::blog().join("schemas"),
            Some(extension) => self
                .extended_schemas
                .entry(*model)
                .or_insert_with(|| extended_schemas(extension))
                .clone(),
        }
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        for dir in self.extended_schemas.values() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A new folder holding the blog's schemas and the types of `writes/<extension>/schemas`
/// (as the recorder's copy of the oracle holds them).
fn extended_schemas(extension: &str) -> PathBuf {
    let dir = common::temp_dir(&format!("replay-{extension}-schemas"));
    copy_dir(&common::blog().join("schemas"), &dir);
    copy_dir(
        &common::blog().join(format!("writes/{extension}/schemas")),
        &dir,
    );
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        match entry.file_type().unwrap().is_dir() {
            true => copy_dir(&entry.path(), &target),
            false => {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
}

/// A database prepared for one sequence; dropping it removes it.
pub enum Database {
    Sqlite {
        dir: PathBuf,
        file: PathBuf,
        /// A read-only connection kept for the snapshots (a new one would parse the
        /// schema again each time).
        reader: Box<rusqlite::Connection>,
    },
    Postgres {
        pool: Box<PgPool>,
        copy: Box<PgCopy>,
    },
    Mysql {
        pool: Box<MyPool>,
        db: Box<common::my::TestDb>,
    },
}

impl Database {
    /// A copy of the blog seed, migrated to the sequence's model, with the recorder's
    /// tokens and `setup:` grants.
    pub fn prepare(run: &mut Run, recording: &Recording) -> Database {
        let database = Database::seed_copy(run);
        if recording.model.extension().is_some() {
            database.migrate(&run.schemas(&recording.model));
        }
        let salt = super::lab_secrets().api_token_salt.unwrap();
        database.execute(&db::seed_statements(&recording.json, &salt, run.backend));
        database
    }

    /// A fresh copy of the blog seed.
    fn seed_copy(run: &Run) -> Database {
        match run.backend {
            Backend::Sqlite => {
                let (dir, file) = common::blog_db_copy("replay");
                let reader = Box::new(snapshot::sqlite_reader(&file));
                Database::Sqlite { dir, file, reader }
            }
            Backend::Postgres => {
                let copy = PgCopy::create(run.template.as_ref().unwrap());
                let target = PgTarget::parse(&copy.url).unwrap();
                let pool = PgPool::connect(&target, one_connection()).unwrap();
                Database::Postgres {
                    pool: Box::new(pool),
                    copy: Box::new(copy),
                }
            }
            Backend::Mysql => {
                let db = common::my::strapi_blog("replay").unwrap();
                Database::Mysql {
                    pool: Box::new(db.pool()),
                    db: Box::new(db),
                }
            }
        }
    }

    /// What strata does to an existing database when it serves a model with more types:
    /// `Store::open` creates the missing tables (additively). On SQLite, the new tables
    /// with a foreign key then get the `sqlite_sequence` rows (seq 0) Strapi's boot leaves
    /// for them (knex adds a foreign key to an SQLite table by copying it into a new one,
    /// which writes the row; strata does not, and no later step could tell, but the
    /// recordings show them changing from 0). Tables without one (components without
    /// relations) get theirs at their first insert, on both sides.
    fn migrate(&self, schemas: &Path) {
        let model = Arc::new(strata::schema::load(schemas).unwrap());
        let url = DatabaseUrl::parse(&self.url()).unwrap();
        let options = OpenOptions {
            connections: 1,
            ..OpenOptions::default()
        };
        let before = self.snapshot();
        let (store, _) = Store::open(&url, model, &options).unwrap();
        drop(store);
        if let Database::Sqlite { .. } = self {
            let after = self.snapshot();
            let created = after.0.keys().filter(|t| !before.0.contains_key(*t));
            let names: Vec<String> = created.map(|t| format!("'{t}'")).collect();
            self.execute(&[format!(
                "insert into sqlite_sequence (name, seq) select name, 0 from sqlite_master \
                 where type = 'table' and name in ({}) and sql like '%autoincrement%' \
                 and sql like '%references%'",
                names.join(", ")
            )]);
        }
    }

    pub fn url(&self) -> String {
        match self {
            Database::Sqlite { file, .. } => format!("sqlite://{}", file.display()),
            Database::Postgres { copy, .. } => copy.url.clone(),
            Database::Mysql { db, .. } => db.url.clone(),
        }
    }

    /// Every table, as the recorder reads it.
    pub fn snapshot(&self) -> db::Snapshot {
        self.snapshot_since(None)
    }

    /// [`Database::snapshot`], given the snapshot before: on MariaDB the tables it finds
    /// unchanged are taken from `previous` instead of being read again ([`snapshot::mysql`]).
    pub fn snapshot_since(&self, previous: Option<&db::Snapshot>) -> db::Snapshot {
        match self {
            Database::Sqlite { reader, .. } => snapshot::sqlite(reader),
            Database::Postgres { pool, .. } => snapshot::postgres(pool),
            Database::Mysql { pool, .. } => snapshot::mysql(pool, previous),
        }
    }

    /// Runs `statements` in one transaction.
    fn execute(&self, statements: &[String]) {
        let sql = format!("begin;\n{};\ncommit;", statements.join(";\n"));
        match self {
            Database::Sqlite { file, .. } => {
                let conn = rusqlite::Connection::open(file).unwrap();
                conn.execute_batch(&sql).unwrap();
            }
            Database::Postgres { pool, .. } => pool
                .with_client(async |c| c.batch_execute(&sql).await.map_err(pg_error))
                .unwrap(),
            Database::Mysql { pool, .. } => pool
                .with_conn(|c| c.query_drop(&sql).map_err(my_error))
                .unwrap(),
        }
    }

    /// Writes `values` (order columns, see [`super::order::Tolerance::alignment`]) into
    /// their rows, in one transaction. A value or key that is not a number or null is
    /// left alone (order columns and the ids of link and component tables are numbers).
    pub fn align(&self, values: &[super::order::Alignment]) {
        let quote = |name: &str| match self {
            Database::Mysql { .. } => format!("`{name}`"),
            _ => format!("\"{name}\""),
        };
        let literal = |v: &serde_json::Value| match v {
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Null => Some("null".to_string()),
            _ => None,
        };
        let statements: Vec<String> = values
            .iter()
            .filter_map(|a| {
                let key: Option<Vec<String>> = a
                    .key
                    .iter()
                    .map(|(c, v)| Some(format!("{} = {}", quote(c), literal(v)?)))
                    .collect();
                Some(format!(
                    "update {} set {} = {} where {}",
                    quote(&a.table),
                    quote(&a.column),
                    literal(&a.value)?,
                    key?.join(" and ")
                ))
            })
            .collect();
        if !statements.is_empty() {
            self.execute(&statements);
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Database::Sqlite { dir, .. } = self {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn one_connection() -> PoolOptions {
    PoolOptions {
        pool_size: 1,
        ..PoolOptions::default()
    }
}

fn my_error(e: mysql::Error) -> StoreError {
    StoreError::Database(e.to_string())
}

/// A PostgreSQL database created from a template (a fast copy), dropped with this value.
pub struct PgCopy {
    name: String,
    url: String,
    admin: PgPool,
}

impl PgCopy {
    fn create(template: &common::pg::TestDb) -> PgCopy {
        let target = PgTarget::parse(&common::pg::admin_url()).unwrap();
        let admin = PgPool::connect(&target, one_connection()).unwrap();
        let name = common::unique_database_name("replay");
        // A template must have no other session (the restore's may still be closing), and
        // CREATE DATABASE runs outside a transaction: two statements, two round trips.
        for sql in [
            format!(
                "select pg_terminate_backend(pid) from pg_stat_activity where datname = '{}'",
                template.name
            ),
            format!("create database {name} template {}", template.name),
        ] {
            admin
                .with_client(async |c| c.batch_execute(&sql).await.map_err(pg_error))
                .unwrap();
        }
        let url = common::url_with_database(&common::pg::admin_url(), &name);
        PgCopy { name, url, admin }
    }
}

impl Drop for PgCopy {
    fn drop(&mut self) {
        let sql = format!("drop database if exists {} with (force)", self.name);
        let _ = self
            .admin
            .with_client(async |c| c.batch_execute(&sql).await.map_err(pg_error));
    }
}
