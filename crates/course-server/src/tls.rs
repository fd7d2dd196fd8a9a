//! HTTPS: rustls on the *ring* provider, with a certificate and key from PEM files.
use std::path::Path;

use axum_server::tls_rustls::RustlsConfig;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

pub async fn config(cert: &Path, key: &Path) -> Result<RustlsConfig, String> {
    // Fails only if a provider is installed already, which is then the same one. rustls
    // deprecates ring for lacking post-quantum key exchange; aws-lc-rs has it but needs cmake.
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
    // A file without one (the key given as --cert, say) would be "peer sent no certificates".
    let pem = std::fs::read(cert)
        .map_err(|e| format!("could not read the certificate {}: {e}", cert.display()))?;
    if CertificateDer::pem_slice_iter(&pem).next().is_none() {
        return Err(format!(
            "{} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
            cert.display()
        ));
    }
    RustlsConfig::from_pem_file(cert, key).await.map_err(|e| {
        format!(
            "could not use the certificate {} with the key {}: {e}",
            cert.display(),
            key.display()
        )
    })
}
