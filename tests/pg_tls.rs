//! TLS to PostgreSQL with libpq's `sslmode` meanings, against the test server's own
//! certificate (Debian's PostgreSQL serves TLS with a self-signed `localhost`
//! certificate; the test reads which one from `ssl_cert_file`): `require` encrypts
//! without checking, `verify-full` refuses an unknown issuer and a wrong host name,
//! `verify-ca` checks the chain only, and `prefer` (the default) stays plain.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use strata::store::StoreError;
use strata::store::postgres::{PgPool, PgTarget};
use strata::store::seam::PoolOptions;

/// Whether the connection of `url` is encrypted (`pg_stat_ssl`).
fn encrypted(url: &str) -> Result<bool, StoreError> {
    let pool = PgPool::connect(&PgTarget::parse(url).unwrap(), PoolOptions::default())?;
    pool.with_client(async |c| {
        let row = c
            .query_one(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .await
            .map_err(common::pg::pg_error)?;
        Ok(row.get::<_, bool>(0))
    })
}

#[test]
fn sslmodes_against_the_servers_certificate() {
    let Some(db) = common::pg::TestDb::create("tls") else {
        return;
    };
    let pool = db.pool();
    let (ssl, cert) = pool
        .with_client(async |c| {
            let ssl: String = c.query_one("SHOW ssl", &[]).await.unwrap().get(0);
            let cert: String = c.query_one("SHOW ssl_cert_file", &[]).await.unwrap().get(0);
            Ok((ssl, cert))
        })
        .unwrap();
    if ssl != "on" {
        eprintln!("\n!!!!! SKIPPED: the test PostgreSQL serves no TLS (ssl = {ssl})\n");
        return;
    }
    let with =
        |host: &str, query: &str| format!("postgres://postgres@{host}:5432/{}?{query}", db.name);
    assert!(encrypted(&with("127.0.0.1", "sslmode=require")).unwrap());
    assert!(!encrypted(&with("127.0.0.1", "sslmode=prefer")).unwrap());
    assert!(!encrypted(&with("127.0.0.1", "application_name=t")).unwrap());
    // A self-signed certificate is not among the compiled-in public roots.
    let err = encrypted(&with("127.0.0.1", "sslmode=verify-full")).unwrap_err();
    assert!(
        matches!(&err, StoreError::Unavailable(m) if m.contains("127.0.0.1:5432") && m.contains("certificate")),
        "{err}"
    );
    if std::fs::read(&cert).is_err() {
        eprintln!("\n!!!!! SKIPPED the sslrootcert cases: {cert} is not readable here\n");
        return;
    }
    let root = format!("sslrootcert={cert}");
    // Trusted as a root, but issued to `localhost`: the chain passes, the name does not.
    assert!(encrypted(&with("127.0.0.1", &format!("sslmode=verify-ca&{root}"))).unwrap());
    let err = encrypted(&with("127.0.0.1", &format!("sslmode=verify-full&{root}"))).unwrap_err();
    assert!(err.to_string().contains("not valid for name"), "{err}");
    assert!(encrypted(&with("localhost", &format!("sslmode=verify-full&{root}"))).unwrap());
    let err = PgTarget::parse(&with("127.0.0.1", "sslmode=sometimes")).unwrap_err();
    assert!(err.contains("unknown sslmode `sometimes`"), "{err}");
}
