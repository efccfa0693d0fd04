//! TLS to the shop's PostgreSQL: one rustls client configuration per [`SslMode`], on the
//! *ring* provider the rest of paydesk uses (reqwest's; no second crypto library).
//!
//! tokio-postgres only knows `disable`, `prefer` and `require` and leaves checking the server
//! to the TLS connector it is given, so the connector is where paydesk's `sslmode` lives:
//! - `verify-full`: rustls's WebPKI verifier over the roots of `sslrootcert`: chain, validity
//!   and host name;
//! - `verify-ca`: the same verifier, with one answer forgiven: "not valid for this name".
//!   WebPKI checks the chain before the name, so that answer means the chain was good;
//! - `require` / `prefer`: any certificate, but the handshake's signatures are still checked,
//!   so the session key belongs to whoever holds the presented certificate's key.

use std::path::Path;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

use super::ShopError;
use super::url::SslMode;

/// The rustls configuration for `mode`; `root` is the `sslrootcert` file of a verifying mode.
pub fn client_config(mode: SslMode, root: Option<&Path>) -> Result<ClientConfig, ShopError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = match (mode, root) {
        (SslMode::VerifyFull | SslMode::VerifyCa, Some(root)) => {
            let roots = read_roots(root)?;
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
                    .build()
                    .map_err(|e| ShopError::RootCert {
                        path: root.display().to_string(),
                        reason: e.to_string(),
                    })?;
            if mode == SslMode::VerifyFull {
                webpki
            } else {
                Arc::new(Lenient {
                    chain: Some(webpki),
                    provider: Arc::clone(&provider),
                })
            }
        }
        _ => Arc::new(Lenient {
            chain: None,
            provider: Arc::clone(&provider),
        }),
    };
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(ShopError::Tls)?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(config)
}

/// The certificates of a PEM file, as trust anchors.
fn read_roots(path: &Path) -> Result<RootCertStore, ShopError> {
    let failed = |reason: String| ShopError::RootCert {
        path: path.display().to_string(),
        reason,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| failed(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| failed(e.to_string()))?;
    if certs.is_empty() {
        return Err(failed("no certificate in the file".to_owned()));
    }
    let mut roots = RootCertStore::empty();
    for cert in certs {
        roots.add(cert).map_err(|e| failed(e.to_string()))?;
    }
    Ok(roots)
}

/// `verify-ca` and `require` / `prefer`: the handshake's signatures checked with the
/// provider's algorithms (as WebPKI's verifier checks them), the certificate by `chain`:
/// `verify-ca` takes WebPKI's answer except that a certificate for another name passes;
/// `require` / `prefer` (no chain) do not check it (docs/design.md §8).
#[derive(Debug)]
struct Lenient {
    /// `verify-ca`'s verifier over the `sslrootcert` roots; `None`: the certificate unchecked.
    chain: Option<Arc<WebPkiServerVerifier>>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Lenient {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(chain) = &self.chain else {
            return Ok(ServerCertVerified::assertion());
        };
        match chain.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
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
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
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
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
