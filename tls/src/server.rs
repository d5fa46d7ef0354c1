//! The servers' side (wstest-server and the ceiling, `--tls-cert` and `--tls-key`): PEM files
//! into a rustls server configuration offering HTTP/2 and HTTP/1.1 by ALPN.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::{ALPN_H2, ALPN_HTTP1, provider};

/// A PEM certificate chain and its private key (in one file or two): a server's, or a
/// client's for `-E`.
pub(crate) fn identity(
    cert: &Path,
    key: &Path,
) -> anyhow::Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)> {
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
    Ok((chain, key))
}

/// Reads a PEM certificate chain and its private key into a server configuration.
pub fn server_config(cert: &Path, key: &Path) -> anyhow::Result<Arc<ServerConfig>> {
    let (chain, key) = identity(cert, key)?;
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .context("choosing TLS versions")?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .context("the certificate and the key do not make a pair")?;
    config.alpn_protocols = vec![ALPN_H2.to_vec(), ALPN_HTTP1.to_vec()];
    Ok(Arc::new(config))
}
