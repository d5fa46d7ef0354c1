//! What OpenSSL calls the things a handshake negotiates, so that loadgen takes ab's `-Z` and
//! `-f` words and prints ab's `SSL/TLS Protocol` and `Server Temp Key` lines: cipher suites
//! under OpenSSL's and IANA's names with their key bits, protocol versions, key exchange
//! groups, and a certificate's key size. A leaf: it uses no other module.

use rustls::{CipherSuite, NamedGroup, ProtocolVersion};
use x509_parser::prelude::{FromDer as _, X509Certificate};

/// A cipher suite the crypto provider implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suite {
    pub id: CipherSuite,
    /// OpenSSL's name, as ab prints it and `-Z` takes it.
    pub openssl: &'static str,
    /// IANA's name (RFC 8446, RFC 5289), which `-Z` takes too.
    pub iana: &'static str,
    /// The symmetric cipher's key bits (OpenSSL's `SSL_CIPHER_get_bits`).
    pub bits: u16,
}

/// Every suite of aws-lc-rs' provider, TLS 1.3's first.
#[rustfmt::skip]
pub const SUITES: &[Suite] = &[
    suite(CipherSuite::TLS13_AES_256_GCM_SHA384, "TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384", 256),
    suite(CipherSuite::TLS13_AES_128_GCM_SHA256, "TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", 128),
    suite(CipherSuite::TLS13_CHACHA20_POLY1305_SHA256, "TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256", 256),
    suite(CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, "ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", 256),
    suite(CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, "ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 128),
    suite(CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, "ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 256),
    suite(CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, "ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", 256),
    suite(CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, "ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", 128),
    suite(CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, "ECDHE-RSA-CHACHA20-POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 256),
];

const fn suite(id: CipherSuite, openssl: &'static str, iana: &'static str, bits: u16) -> Suite {
    Suite {
        id,
        openssl,
        iana,
        bits,
    }
}

impl Suite {
    /// A suite by either of its names, in any case.
    pub fn by_name(name: &str) -> Option<&'static Suite> {
        SUITES.iter().find(|suite| {
            suite.openssl.eq_ignore_ascii_case(name) || suite.iana.eq_ignore_ascii_case(name)
        })
    }

    pub fn by_id(id: CipherSuite) -> Option<&'static Suite> {
        SUITES.iter().find(|suite| suite.id == id)
    }
}

/// The key exchange groups a client may offer (`--tls-groups`), by OpenSSL's and IANA's
/// names, in the order browsers and OpenSSL 3.5 prefer them: the hybrid post-quantum group,
/// then X25519 before the NIST curves.
pub const GROUPS: &[(NamedGroup, &[&str])] = &[
    (NamedGroup::X25519MLKEM768, &["X25519MLKEM768"]),
    (NamedGroup::X25519, &["X25519"]),
    (NamedGroup::secp256r1, &["P-256", "secp256r1", "prime256v1"]),
    (NamedGroup::secp384r1, &["P-384", "secp384r1"]),
];

/// A group of [`GROUPS`] by any of its names, in any case.
pub fn group_by_name(name: &str) -> Option<NamedGroup> {
    GROUPS
        .iter()
        .find(|(_, names)| names.iter().any(|known| known.eq_ignore_ascii_case(name)))
        .map(|(group, _)| *group)
}

/// OpenSSL's name of a protocol version: `TLSv1.3`.
pub fn version_name(version: ProtocolVersion) -> String {
    match version {
        ProtocolVersion::TLSv1_3 => "TLSv1.3".to_owned(),
        ProtocolVersion::TLSv1_2 => "TLSv1.2".to_owned(),
        other => format!("{other:?}"),
    }
}

/// ab's `Server Temp Key` for a key exchange group: `X25519 253 bits`, `ECDH P-256 256 bits`
/// (OpenSSL's names and `EVP_PKEY_bits`). A hybrid post-quantum group has no such key in
/// OpenSSL, and is shown by its name alone.
pub fn temp_key(group: NamedGroup) -> String {
    match group {
        NamedGroup::X25519 => "X25519 253 bits".to_owned(),
        NamedGroup::X448 => "X448 448 bits".to_owned(),
        NamedGroup::secp256r1 => "ECDH P-256 256 bits".to_owned(),
        NamedGroup::secp384r1 => "ECDH P-384 384 bits".to_owned(),
        NamedGroup::secp521r1 => "ECDH P-521 521 bits".to_owned(),
        NamedGroup::X25519MLKEM768 => "X25519MLKEM768".to_owned(),
        NamedGroup::secp256r1MLKEM768 => "SecP256r1MLKEM768".to_owned(),
        other => format!("{other:?}"),
    }
}

/// The bits of the public key in a DER certificate, as OpenSSL's `EVP_PKEY_bits` counts them
/// (an RSA modulus's bits, a curve's size, 253 for Ed25519); `None` for a key it cannot tell.
pub fn certificate_key_bits(der: &[u8]) -> Option<u32> {
    let (_, certificate) = X509Certificate::from_der(der).ok()?;
    let spki = certificate.public_key();
    let algorithm = spki.algorithm.algorithm.to_id_string();
    match algorithm.as_str() {
        // rsaEncryption and RSASSA-PSS: the modulus's bits.
        "1.2.840.113549.1.1.1" | "1.2.840.113549.1.1.10" => match spki.parsed().ok()? {
            x509_parser::public_key::PublicKey::RSA(rsa) => {
                let modulus = rsa.modulus;
                let first = modulus.iter().position(|&byte| byte != 0)?;
                let significant = &modulus[first..];
                Some(significant.len() as u32 * 8 - significant[0].leading_zeros())
            }
            _ => None,
        },
        // id-ecPublicKey: the named curve's size.
        "1.2.840.10045.2.1" => {
            let curve = spki.algorithm.parameters.as_ref()?.as_oid().ok()?;
            match curve.to_id_string().as_str() {
                "1.2.840.10045.3.1.7" => Some(256),
                "1.3.132.0.34" => Some(384),
                "1.3.132.0.35" => Some(521),
                _ => None,
            }
        }
        "1.3.101.112" => Some(253),
        "1.3.101.113" => Some(456),
        _ => None,
    }
}
