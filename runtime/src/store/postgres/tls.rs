//! TLS for PostgreSQL connections, with libpq's `sslmode` meanings, on rustls (ring).
//!
//! | `sslmode` | strata |
//! |---|---|
//! | `disable`, `prefer` (the default) | no TLS (as libpq with a server that offers none) |
//! | `require` | encrypted; the certificate is not checked (libpq's meaning, unless `sslrootcert` is given, which makes it `verify-ca`) |
//! | `verify-ca` | encrypted; the chain must lead to a trusted root |
//! | `verify-full` | `verify-ca`, and the certificate must name the host |
//!
//! Trusted roots are `sslrootcert=PATH` (PEM) when given, else the Mozilla roots compiled
//! in (webpki-roots), which cover the public CAs of managed PostgreSQL services.
//! tokio-postgres knows only `disable`/`prefer`/`require`, so [`SslChoice::from_url`]
//! takes `sslmode` and `sslrootcert` out of the URL and hands it `require` when TLS is on.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres_rustls::MakeRustlsConnect;

/// What the URL asks of TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SslChoice {
    /// `disable` or `prefer`: plain connections.
    Off,
    /// `require` without `sslrootcert`: encrypted, certificate unchecked.
    Encrypt,
    /// `verify-ca` (or `require` with `sslrootcert`): the chain is checked.
    VerifyCa(Option<PathBuf>),
    /// `verify-full`: the chain and the host name are checked.
    VerifyFull(Option<PathBuf>),
}

impl SslChoice {
    /// Reads `sslmode` and `sslrootcert` from a URL; returns the choice and the URL for
    /// tokio-postgres (both removed, `sslmode=require` added when TLS is on).
    pub fn from_url(url: &str) -> Result<(SslChoice, String), String> {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut mode = None;
        let mut root = None;
        let mut rest = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("sslmode", v)) => mode = Some(v.to_string()),
                Some(("sslrootcert", v)) => root = Some(PathBuf::from(v)),
                _ => rest.push(pair.to_string()),
            }
        }
        let choice = match (mode.as_deref(), root) {
            (None | Some("disable" | "prefer" | "allow"), _) => SslChoice::Off,
            (Some("require"), None) => SslChoice::Encrypt,
            (Some("require" | "verify-ca"), root) => SslChoice::VerifyCa(root),
            (Some("verify-full"), root) => SslChoice::VerifyFull(root),
            (Some(other), _) => {
                return Err(format!(
                    "unknown sslmode `{other}` (disable, prefer, require, verify-ca, verify-full)"
                ));
            }
        };
        match mode.as_deref() {
            Some("disable") => rest.push("sslmode=disable".into()),
            _ if choice != SslChoice::Off => rest.push("sslmode=require".into()),
            _ => {}
        }
        let rewritten = if rest.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", rest.join("&"))
        };
        Ok((choice, rewritten))
    }

    /// The connector for this choice (`None` for plain connections).
    pub fn connector(&self) -> Result<Option<MakeRustlsConnect>, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?;
        let config = match self {
            SslChoice::Off => return Ok(None),
            SslChoice::Encrypt => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
                .with_no_client_auth(),
            SslChoice::VerifyFull(root) => builder
                .with_root_certificates(roots(root.as_ref())?)
                .with_no_client_auth(),
            SslChoice::VerifyCa(root) => {
                let inner = WebPkiServerVerifier::builder_with_provider(
                    Arc::new(roots(root.as_ref())?),
                    provider,
                )
                .build()
                .map_err(|e| e.to_string())?;
                builder
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(AnyName(inner)))
                    .with_no_client_auth()
            }
        };
        Ok(Some(MakeRustlsConnect::new(config)))
    }
}

/// `sslrootcert` (PEM), or the compiled-in Mozilla roots.
fn roots(path: Option<&PathBuf>) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match path {
        Some(p) => {
            let certs = CertificateDer::pem_file_iter(p)
                .map_err(|e| format!("cannot read sslrootcert {}: {e}", p.display()))?;
            for cert in certs {
                let cert =
                    cert.map_err(|e| format!("cannot read sslrootcert {}: {e}", p.display()))?;
                store
                    .add(cert)
                    .map_err(|e| format!("bad certificate in {}: {e}", p.display()))?;
            }
        }
        None => store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    Ok(store)
}

/// `require`: any certificate (the signatures of the handshake are still checked).
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain is verified, the host name is not.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslmodes_from_urls() {
        let p = |u: &str| SslChoice::from_url(u);
        assert_eq!(
            p("postgres://h/db"),
            Ok((SslChoice::Off, "postgres://h/db".into()))
        );
        assert_eq!(
            p("postgres://h/db?sslmode=require&application_name=x"),
            Ok((
                SslChoice::Encrypt,
                "postgres://h/db?application_name=x&sslmode=require".into()
            ))
        );
        assert_eq!(
            p("postgres://h/db?sslmode=verify-full&sslrootcert=/ca.pem"),
            Ok((
                SslChoice::VerifyFull(Some("/ca.pem".into())),
                "postgres://h/db?sslmode=require".into()
            ))
        );
        assert_eq!(
            p("postgres://h/db?sslmode=require&sslrootcert=/ca.pem").map(|c| c.0),
            Ok(SslChoice::VerifyCa(Some("/ca.pem".into())))
        );
        assert_eq!(
            p("postgres://h/db?sslmode=disable").map(|c| c.1),
            Ok("postgres://h/db?sslmode=disable".into())
        );
        assert!(p("postgres://h/db?sslmode=sometimes").is_err());
    }
}
