//! The namespaces WSTest speaks and the framing of a SOAP 1.1 envelope around a body.

/// The SOAP 1.1 envelope namespace.
pub const NS_SOAP11: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// The SOAP 1.2 envelope namespace, recognised only to answer with a VersionMismatch fault.
pub const NS_SOAP12: &str = "http://www.w3.org/2003/05/soap-envelope";
/// The WSTest payload namespace; every payload element is qualified with it.
pub const NS_WSTEST: &str = "uri:WSTestWeb-TestService";
/// The XML Schema instance namespace, for `xsi:nil`.
pub const NS_XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";

/// Everything before the payload element: the envelope, with `soap` and `xsi` declared, and `Body`.
pub(crate) const ENVELOPE_OPEN: &[u8] = b"<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soap:Body>";
/// Everything after the payload element.
pub(crate) const ENVELOPE_CLOSE: &[u8] = b"</soap:Body></soap:Envelope>";
/// The default-namespace declaration written on the payload element.
pub(crate) const XMLNS_WSTEST: &[u8] = b" xmlns=\"uri:WSTestWeb-TestService\"";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_uses_the_declared_namespaces() {
        let open = std::str::from_utf8(ENVELOPE_OPEN).unwrap();
        assert!(open.contains(NS_SOAP11) && open.contains(NS_XSI));
        assert!(
            std::str::from_utf8(XMLNS_WSTEST)
                .unwrap()
                .contains(NS_WSTEST)
        );
    }
}
