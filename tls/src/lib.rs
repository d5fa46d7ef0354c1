//! TLS for the workspace's servers (wstest-server and the ceiling, `--tls-cert` and
//! `--tls-key`): PEM files into a rustls server configuration offering HTTP/2 and HTTP/1.1 by
//! ALPN, on one crypto provider for every tool.
//!
//! The crypto provider is aws-lc-rs, rustls' default: rustls 0.23.48 deprecates its ring
//! provider ("no support for post-quantum algorithms"), and aws-lc-rs offers the hybrid
//! X25519MLKEM768 key exchange first, as current browsers and OpenSSL 3.5 do. Its price is
//! the build: aws-lc-sys compiles in 40 s a profile on 2 cores (measured, release).

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// The crypto provider every tool of the workspace uses.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// ALPN protocol ids, in the server's order of preference.
pub const ALPN_H2: &[u8] = b"h2";
pub const ALPN_HTTP1: &[u8] = b"http/1.1";

/// Reads a PEM certificate chain and its private key into a server configuration.
pub fn server_config(cert: &Path, key: &Path) -> anyhow::Result<Arc<ServerConfig>> {
    let chain = CertificateDer::pem_file_iter(cert)
        .with_context(|| format!("reading the certificate chain {}", cert.display()))?
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("reading the certificate chain {}", cert.display()))?;
    anyhow::ensure!(
        !chain.is_empty(),
        "{} holds no PEM certificate",
        cert.display()
    );
    let key = PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("reading the private key {}", key.display()))?;
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .context("choosing TLS versions")?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .context("the certificate and the key do not make a pair")?;
    config.alpn_protocols = vec![ALPN_H2.to_vec(), ALPN_HTTP1.to_vec()];
    Ok(Arc::new(config))
}
