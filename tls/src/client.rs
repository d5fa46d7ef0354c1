//! The client's side, for loadgen: ab's TLS options (`-Z` cipher suites, `-f` protocol, `-I`
//! no SNI, `-E` client certificate) and loadgen's (`--verify`, `--cacert`, `--tls-resume`) as
//! one typed [`ClientTls`], made into a [`rustls::ClientConfig`]; and what a handshake came to
//! ([`Negotiated`]), under OpenSSL's names.
//!
//! As ab does, the client does not verify the server's certificate unless asked
//! (`--verify`): a load test usually meets a throwaway certificate. The handshake's signatures
//! are still checked, so an unverified server must still hold its certificate's key.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use rustls::client::Resumption;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::{
    ClientConfig, CommonState, DigitallySignedStruct, RootCertStore, SignatureScheme,
    SupportedProtocolVersion,
};
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};
use serde::{Deserialize, Serialize};

use crate::names::{self, GROUPS, SUITES, Suite};

/// A word of `-f` or `-Z` that cannot be used, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error(
        "{0} is not offered: SSL 2 and 3 and TLS 1.0 and 1.1 are broken and deprecated (RFC 8996), and rustls implements none of them; use TLS1.2, TLS1.3 or ALL"
    )]
    Deprecated(String),
    #[error("{0}: expected TLS1.2, TLS1.3 or ALL")]
    UnknownVersion(String),
    #[error("unknown cipher suite {0:?}; loadgen's (rustls on aws-lc-rs) are {list}", list = suite_list())]
    UnknownSuite(String),
    #[error("unknown key exchange group {0:?}; loadgen's are {list}", list = group_list())]
    UnknownGroup(String),
    #[error("{0:?} is not a name a server certificate can be checked against")]
    ServerName(String),
}

fn group_list() -> String {
    GROUPS
        .iter()
        .map(|(_, names)| names[0])
        .collect::<Vec<_>>()
        .join(", ")
}

fn suite_list() -> String {
    SUITES
        .iter()
        .map(|suite| suite.openssl)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `-f`: the protocol versions to offer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Versions {
    /// `ALL` (and ab's default): TLS 1.3 and 1.2.
    #[default]
    All,
    Tls12,
    Tls13,
}

impl Versions {
    /// ab's `-f` words; the ones for protocols rustls does not have are refused with the reason.
    pub fn parse(word: &str) -> Result<Versions, NameError> {
        match word.to_ascii_uppercase().as_str() {
            "ALL" => Ok(Versions::All),
            "TLS1.2" => Ok(Versions::Tls12),
            "TLS1.3" => Ok(Versions::Tls13),
            "SSL2" | "SSL3" | "TLS1" | "TLS1.1" => Err(NameError::Deprecated(word.to_owned())),
            _ => Err(NameError::UnknownVersion(word.to_owned())),
        }
    }

    fn rustls(self) -> &'static [&'static SupportedProtocolVersion] {
        static TLS12: [&SupportedProtocolVersion; 1] = [&rustls::version::TLS12];
        static TLS13: [&SupportedProtocolVersion; 1] = [&rustls::version::TLS13];
        match self {
            Versions::All => rustls::ALL_VERSIONS,
            Versions::Tls12 => &TLS12,
            Versions::Tls13 => &TLS13,
        }
    }
}

/// Whether and against what the server's certificate is verified.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verify {
    /// ab's way: any certificate (the handshake's signatures are still checked).
    #[default]
    Off,
    /// `--verify`: against the system's trusted roots.
    SystemRoots,
    /// `--cacert FILE`: against the PEM certificates in the file.
    CaFile(PathBuf),
}

/// What a TLS client is asked to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientTls {
    /// `-f`.
    pub versions: Versions,
    /// `-Z`: OpenSSL's names of the suites to offer; empty offers them all.
    pub cipher_suites: Vec<String>,
    /// `--tls-groups`: the key exchange groups to offer, in order (first names of
    /// [`GROUPS`]); empty offers them all, in that table's order.
    #[serde(default)]
    pub groups: Vec<String>,
    /// Not `-I`: the host's name goes in the handshake (never an IP address, as with ab).
    pub sni: bool,
    pub verify: Verify,
    /// `-E`: a PEM file with the client's certificate chain and its key.
    pub client_cert: Option<PathBuf>,
    /// `--tls-resume`: resume sessions on new connections. Off by default as in ab, where
    /// every connection pays a full handshake.
    pub resume: bool,
}

impl Default for ClientTls {
    fn default() -> ClientTls {
        ClientTls {
            versions: Versions::All,
            cipher_suites: Vec::new(),
            groups: Vec::new(),
            sni: true,
            verify: Verify::Off,
            client_cert: None,
            resume: false,
        }
    }
}

/// `-Z`'s list: suite names, OpenSSL's or IANA's, split by colons, commas or spaces as
/// OpenSSL splits them; `ALL`, `DEFAULT` and `HIGH` stand for every suite. Returns OpenSSL's
/// names, empty for every suite.
pub fn parse_cipher_list(text: &str) -> Result<Vec<String>, NameError> {
    let mut names = Vec::new();
    for word in text.split([':', ',', ' ']).filter(|word| !word.is_empty()) {
        if ["ALL", "DEFAULT", "HIGH"].contains(&word.to_ascii_uppercase().as_str()) {
            return Ok(Vec::new());
        }
        let suite = Suite::by_name(word).ok_or_else(|| NameError::UnknownSuite(word.to_owned()))?;
        if !names.iter().any(|name| name == suite.openssl) {
            names.push(suite.openssl.to_owned());
        }
    }
    Ok(names)
}

/// `--tls-groups`'s list, split as `-Z`'s: the groups' first names in [`GROUPS`].
pub fn parse_group_list(text: &str) -> Result<Vec<String>, NameError> {
    let mut names = Vec::new();
    for word in text.split([':', ',', ' ']).filter(|word| !word.is_empty()) {
        let group =
            names::group_by_name(word).ok_or_else(|| NameError::UnknownGroup(word.to_owned()))?;
        let name = GROUPS
            .iter()
            .find(|(known, _)| *known == group)
            .map_or(word, |(_, names)| names[0]);
        if !names.iter().any(|given| given == name) {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

/// The name a connection to `host` verifies the certificate against, and sends as SNI when it
/// is a DNS name.
pub fn server_name(host: &str) -> Result<ServerName<'static>, NameError> {
    ServerName::try_from(host.to_owned()).map_err(|_| NameError::ServerName(host.to_owned()))
}

/// A rustls client configuration for `tls`, offering the ALPN protocols `alpn`.
pub fn client_config(tls: &ClientTls, alpn: &[&[u8]]) -> anyhow::Result<Arc<ClientConfig>> {
    let mut provider = rustls::crypto::aws_lc_rs::default_provider();
    if !tls.cipher_suites.is_empty() {
        provider.cipher_suites.retain(|offered| {
            tls.cipher_suites
                .iter()
                .filter_map(|name| Suite::by_name(name))
                .any(|suite| suite.id == offered.suite())
        });
    }
    // The groups in the order asked, or in GROUPS' order: aws-lc-rs puts P-384 before X25519,
    // which no browser does, and which would make TLS 1.2 handshakes slower than a browser's.
    let order: Vec<_> = if tls.groups.is_empty() {
        GROUPS.iter().map(|(group, _)| *group).collect()
    } else {
        tls.groups
            .iter()
            .filter_map(|name| names::group_by_name(name))
            .collect()
    };
    let available = std::mem::take(&mut provider.kx_groups);
    provider.kx_groups = order
        .iter()
        .filter_map(|wanted| available.iter().find(|group| group.name() == *wanted))
        .copied()
        .collect();
    let provider = Arc::new(provider);
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(tls.versions.rustls())
        .with_context(|| {
            format!(
                "-Z {} offers no cipher suite of -f {:?}",
                tls.cipher_suites.join(":"),
                tls.versions
            )
        })?;
    let builder = match &tls.verify {
        Verify::Off => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unverified(provider))),
        Verify::SystemRoots => builder.with_root_certificates(system_roots()?),
        Verify::CaFile(path) => builder.with_root_certificates(roots_from(path)?),
    };
    let mut config = match &tls.client_cert {
        Some(path) => {
            let (chain, key) = crate::server::identity(path, path)
                .with_context(|| format!("-E {}", path.display()))?;
            builder
                .with_client_auth_cert(chain, key)
                .with_context(|| format!("-E {}: the certificate and key", path.display()))?
        }
        None => builder.with_no_client_auth(),
    };
    config.enable_sni = tls.sni;
    config.resumption = if tls.resume {
        Resumption::default()
    } else {
        Resumption::disabled()
    };
    config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
    Ok(Arc::new(config))
}

fn system_roots() -> anyhow::Result<RootCertStore> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    anyhow::ensure!(
        added > 0,
        "--verify: no trusted root certificate found on this system{}; give one with --cacert FILE",
        found
            .errors
            .first()
            .map(|error| format!(" ({error})"))
            .unwrap_or_default()
    );
    Ok(roots)
}

fn roots_from(path: &Path) -> anyhow::Result<RootCertStore> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .with_context(|| format!("--cacert {}", path.display()))?;
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(certs);
    anyhow::ensure!(
        added > 0,
        "--cacert {}: no PEM certificate in it",
        path.display()
    );
    Ok(roots)
}

/// ab's way with certificates: any is taken, but the handshake's signatures are checked with
/// the provider's algorithms, so the server must hold the key of the certificate it shows.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
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

/// What a handshake came to, under OpenSSL's names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Negotiated {
    /// `TLSv1.3`.
    pub protocol: String,
    /// `TLS_AES_256_GCM_SHA384`.
    pub cipher: String,
    pub cipher_bits: u16,
    /// The server certificate's key bits; 0 when they cannot be told, as OpenSSL's figure.
    pub server_key_bits: u32,
    /// ab's `Server Temp Key`: `X25519 253 bits`.
    pub temp_key: Option<String>,
    /// The ALPN protocol the server chose.
    pub alpn: Option<String>,
}

impl Negotiated {
    /// What the finished handshake of `connection` agreed; `None` while it is under way.
    pub fn of(connection: &CommonState) -> Option<Negotiated> {
        let suite = connection.negotiated_cipher_suite()?.suite();
        let (cipher, cipher_bits) = match Suite::by_id(suite) {
            Some(known) => (known.openssl.to_owned(), known.bits),
            None => (format!("{suite:?}"), 0),
        };
        Some(Negotiated {
            protocol: names::version_name(connection.protocol_version()?),
            cipher,
            cipher_bits,
            server_key_bits: connection
                .peer_certificates()
                .and_then(|chain| chain.first())
                .and_then(|leaf| names::certificate_key_bits(leaf))
                .unwrap_or(0),
            temp_key: connection
                .negotiated_key_exchange_group()
                .map(|group| names::temp_key(group.name())),
            alpn: connection
                .alpn_protocol()
                .map(|protocol| String::from_utf8_lossy(protocol).into_owned()),
        })
    }

    /// ab's `SSL/TLS Protocol` value: version, cipher, the server key's bits and the cipher's.
    pub fn ab_protocol(&self) -> String {
        format!(
            "{},{},{},{}",
            self.protocol, self.cipher, self.server_key_bits, self.cipher_bits
        )
    }
}
