//! TLS for the workspace's tools, on one crypto provider: the servers' PEM files into a rustls
//! configuration, loadgen's ab-style TLS options into a client configuration, and OpenSSL's
//! names for what a handshake negotiated, so that loadgen's report reads as ab's.
//!
//! # Map
//! - [`names`]: a leaf: cipher suites, protocol versions and key exchange groups under
//!   OpenSSL's names and IANA's, and a certificate's key size.
//! - [`server`]: `--tls-cert` and `--tls-key` into a [`rustls::ServerConfig`].
//! - [`client`]: [`client::ClientTls`] (ab's `-Z`, `-f`, `-I`, `-E`, loadgen's `--verify`,
//!   `--cacert`, `--tls-resume`) into a [`rustls::ClientConfig`]; what a handshake came to
//!   ([`client::Negotiated`]).
//!
//! The crypto provider is aws-lc-rs, rustls' default: rustls 0.23.48 deprecates its ring
//! provider ("no support for post-quantum algorithms"), and aws-lc-rs offers the hybrid
//! X25519MLKEM768 key exchange first, as current browsers and OpenSSL 3.5 do. Its price is
//! the build: aws-lc-sys compiles in 40 s a profile on 2 cores (measured, release).

pub mod client;
pub mod names;
pub mod server;

use std::sync::Arc;

pub use server::server_config;

/// The crypto provider every tool of the workspace uses.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// ALPN protocol ids, in the server's order of preference.
pub const ALPN_H2: &[u8] = b"h2";
pub const ALPN_HTTP1: &[u8] = b"http/1.1";
