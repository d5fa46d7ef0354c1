//! Throwaway certificates for TLS tests, made in the test (nothing is checked in): a CA, and a
//! server certificate it signs for `localhost` and 127.0.0.1, written as PEM files into a
//! folder of the test's own.

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};

/// A CA and a server certificate signed by it, as PEM files in `dir`.
pub struct TestCerts {
    pub dir: PathBuf,
    /// The CA's certificate, which a verifying client trusts.
    pub ca_cert: PathBuf,
    /// The server's certificate and its key.
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl TestCerts {
    /// Makes the certificates in a new folder under the system's temporary folder, named
    /// after `name` and this process.
    pub fn new(name: &str) -> TestCerts {
        let dir = std::env::temp_dir().join(format!("wstest-certs-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("making the certificates' folder");
        let ca_key = KeyPair::generate().expect("a CA key");
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "wstest test CA");
        let ca = ca_params.self_signed(&ca_key).expect("the CA certificate");
        let issuer = Issuer::new(ca_params, ca_key);
        let key = KeyPair::generate().expect("a server key");
        let params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .expect("server parameters");
        let cert = params
            .signed_by(&key, &issuer)
            .expect("the server certificate");
        let certs = TestCerts {
            ca_cert: dir.join("ca.pem"),
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
            dir,
        };
        write(&certs.ca_cert, &ca.pem());
        write(&certs.cert, &cert.pem());
        write(&certs.key, &key.serialize_pem());
        certs
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text)
        .unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
}

impl Drop for TestCerts {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
