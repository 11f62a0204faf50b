//! Encrypted connections: what a URL's `sslmode` and `sslrootcert` ask for, read as libpq reads
//! them (so the URL a managed PostgreSQL service hands out works as it is), carried out by
//! rustls.
//!
//! | `sslmode` | encrypted | the server's certificate |
//! | --- | --- | --- |
//! | `disable` | never | — |
//! | `prefer` (the default) | when the server offers it | not checked |
//! | `require` | always, or no connection | not checked, unless `sslrootcert` is given: then as `verify-ca` |
//! | `verify-ca` | always | must chain to a trusted root |
//! | `verify-full` | always | must chain to a trusted root and name the host connected to |
//!
//! The trusted roots are the PEM certificates of the file `sslrootcert` names; without it (or
//! with `sslrootcert=system`, which, as in libpq, means `verify-full`), the Mozilla root
//! certificates cairn carries (webpki-roots), to which the certificates of public services
//! chain. (libpq reads `~/.postgresql/root.crt`
//! instead; name that file to get its behaviour.) A certificate that is "not checked" still
//! proves, by the handshake's signature, that the server holds its key; it does not prove who the
//! server is, which is why `verify-full` is the mode for networks you do not trust.
//!
//! The PostgreSQL client library reads `disable`, `prefer` and `require` itself; the rest of
//! the settings are taken out of the URL here ([`TlsSettings::from_url`]) before it parses it.

use std::path::PathBuf;
use std::sync::Arc;

use percent_encoding::percent_decode_str;
use postgres::config::SslMode;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::PostgresError;

/// The values `sslmode` may take.
const MODES: &str = "disable, prefer, require, verify-ca or verify-full";

/// How much of the server's certificate is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Nothing (`prefer`, `require`): the connection is encrypted, the server not identified.
    Nothing,
    /// The chain to a trusted root (`verify-ca`).
    Chain,
    /// The chain and the host name (`verify-full`).
    ChainAndHost,
}

/// Where trusted roots come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Roots {
    /// The Mozilla root certificates cairn carries.
    Mozilla,
    /// The PEM certificates of a file.
    File(PathBuf),
}

/// A URL's TLS settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    /// Whether to encrypt, as the client library applies it.
    pub mode: SslMode,
    pub check: Check,
    pub roots: Roots,
}

impl TlsSettings {
    /// Reads `sslmode` and `sslrootcert` from `url`; returns the settings and the URL without
    /// what the client library cannot read (`verify-*` modes, `sslrootcert`).
    pub fn from_url(url: &str) -> Result<(Self, String), PostgresError> {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut kept = Vec::new();
        let mut mode = None;
        let mut root_file = None;
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let decoded = percent_decode_str(value).decode_utf8_lossy().into_owned();
            match key {
                "sslmode" => mode = Some(decoded),
                "sslrootcert" => root_file = Some(decoded),
                _ => kept.push(pair),
            }
        }
        let system = root_file.as_deref() == Some("system");
        let roots = match root_file.as_deref() {
            None | Some("system") => Roots::Mozilla,
            Some("") => return Err(tls_error("sslrootcert is empty: name a PEM file")),
            Some(path) => Roots::File(PathBuf::from(path)),
        };
        // As libpq: the system's roots are for checking the server in full, and ask for it.
        let default = if system { "verify-full" } else { "prefer" };
        if system && mode.as_deref().is_some_and(|mode| mode != "verify-full") {
            return Err(tls_error(
                "sslrootcert=system needs sslmode=verify-full (or no sslmode)",
            ));
        }
        let (mode, check) = match mode.as_deref().unwrap_or(default) {
            "disable" => (SslMode::Disable, Check::Nothing),
            "prefer" => (SslMode::Prefer, Check::Nothing),
            // As libpq: a root certificate given makes `require` check the chain.
            "require" if roots != Roots::Mozilla => (SslMode::Require, Check::Chain),
            "require" => (SslMode::Require, Check::Nothing),
            "verify-ca" => (SslMode::Require, Check::Chain),
            "verify-full" => (SslMode::Require, Check::ChainAndHost),
            other => {
                return Err(tls_error(format!(
                    "sslmode '{other}' is not one of {MODES}"
                )));
            }
        };
        let url = match kept.is_empty() {
            true => base.to_string(),
            false => format!("{base}?{}", kept.join("&")),
        };
        Ok((TlsSettings { mode, check, roots }, url))
    }

    /// The connector every connection of a store is made with.
    pub fn connector(&self) -> Result<MakeRustlsConnect, PostgresError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| tls_error(format!("cannot set up TLS: {e}")))?;
        let config = match self.check {
            Check::Nothing => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(KeyHolder {
                    algorithms: provider.signature_verification_algorithms,
                }))
                .with_no_client_auth(),
            Check::Chain => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(ChainOnly {
                    verifier: WebPkiServerVerifier::builder_with_provider(
                        Arc::new(self.root_store()?),
                        provider,
                    )
                    .build()
                    .map_err(|e| tls_error(format!("cannot set up TLS: {e}")))?,
                }))
                .with_no_client_auth(),
            Check::ChainAndHost => builder
                .with_root_certificates(self.root_store()?)
                .with_no_client_auth(),
        };
        Ok(MakeRustlsConnect::new(config))
    }

    fn root_store(&self) -> Result<RootCertStore, PostgresError> {
        let path = match &self.roots {
            Roots::Mozilla => {
                return Ok(RootCertStore {
                    roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
                });
            }
            Roots::File(path) => path,
        };
        let unreadable = |reason: String| {
            tls_error(format!(
                "cannot read the root certificates sslrootcert names ({}): {reason}",
                path.display()
            ))
        };
        let certificates = CertificateDer::pem_file_iter(path)
            .map_err(|e| unreadable(e.to_string()))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| unreadable(e.to_string()))?;
        if certificates.is_empty() {
            return Err(unreadable("it holds no PEM certificate".into()));
        }
        let mut store = RootCertStore::empty();
        for certificate in certificates {
            store
                .add(certificate)
                .map_err(|e| unreadable(e.to_string()))?;
        }
        Ok(store)
    }
}

fn tls_error(message: impl Into<String>) -> PostgresError {
    PostgresError::Tls(message.into())
}

/// `prefer` and `require`: any certificate is taken, but the handshake must be signed with its
/// key.
#[derive(Debug)]
struct KeyHolder {
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for KeyHolder {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain is checked as for `verify-full`, and only a certificate issued for
/// another name is taken.
#[derive(Debug)]
struct ChainOnly {
    verifier: Arc<WebPkiServerVerifier>,
}

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.verifier.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
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
        self.verifier.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.verifier.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn settings(url: &str) -> (TlsSettings, String) {
        TlsSettings::from_url(url).unwrap()
    }

    #[test]
    fn libpq_modes_are_read_and_taken_out_of_the_url() {
        let (tls, url) = settings("postgres://u@db:5432/app");
        assert_eq!((tls.mode, tls.check), (SslMode::Prefer, Check::Nothing));
        assert_eq!(url, "postgres://u@db:5432/app");

        let (tls, url) = settings("postgres://u@db/app?sslmode=require&channel_binding=require");
        assert_eq!((tls.mode, tls.check), (SslMode::Require, Check::Nothing));
        assert_eq!(url, "postgres://u@db/app?channel_binding=require");

        let (tls, url) = settings(
            "postgres://u@db/app?options=-c%20search_path%3Dx&sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem",
        );
        assert_eq!(
            (tls.mode, tls.check),
            (SslMode::Require, Check::ChainAndHost)
        );
        assert_eq!(tls.roots, Roots::File("/etc/ca.pem".into()));
        assert_eq!(url, "postgres://u@db/app?options=-c%20search_path%3Dx");

        let (tls, _) = settings("postgres://u@db/app?sslrootcert=system");
        assert_eq!(
            (tls.check, tls.roots),
            (Check::ChainAndHost, Roots::Mozilla)
        );
        let (tls, _) = settings("postgres://u@db/app?sslmode=disable");
        assert_eq!(tls.mode, SslMode::Disable);
        // A root certificate makes `require` check the chain, as in libpq.
        let (tls, _) = settings("postgres://u@db/app?sslmode=require&sslrootcert=ca.pem");
        assert_eq!(tls.check, Check::Chain);
    }

    #[test]
    fn an_unknown_mode_or_an_unreadable_root_file_is_refused_by_name() {
        let error = TlsSettings::from_url("postgres://u@db/app?sslmode=verify").unwrap_err();
        assert!(
            error.to_string().contains("sslmode 'verify' is not one of"),
            "{error}"
        );
        let error = TlsSettings::from_url("postgres://u@db/app?sslrootcert=").unwrap_err();
        assert!(error.to_string().contains("sslrootcert"), "{error}");
        let error = TlsSettings::from_url("postgres://u@db/app?sslmode=require&sslrootcert=system")
            .unwrap_err();
        assert!(
            error.to_string().contains("needs sslmode=verify-full"),
            "{error}"
        );

        let dir = tempfile::tempdir().unwrap();
        let connector_error = |mode: &str, root: &Path| {
            let url = format!(
                "postgres://u@db/app?sslmode={mode}&sslrootcert={}",
                root.display()
            );
            let (tls, _) = TlsSettings::from_url(&url).unwrap();
            tls.connector().err().unwrap().to_string()
        };
        let error = connector_error("verify-full", &dir.path().join("missing.pem"));
        assert!(error.contains("missing.pem"), "{error}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let error = connector_error("verify-ca", &empty);
        assert!(error.contains("no PEM certificate"), "{error}");
    }

    #[test]
    fn every_mode_builds_a_connector() {
        for mode in ["disable", "prefer", "require", "verify-ca", "verify-full"] {
            let url = format!("postgres://u@db/app?sslmode={mode}");
            TlsSettings::from_url(&url).unwrap().0.connector().unwrap();
        }
    }
}
