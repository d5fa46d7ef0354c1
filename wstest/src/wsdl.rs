//! This service's WSDL, served at `GET <path>?wsdl` with the address of the request filled in.

/// The WSDL, with `{{ADDRESS}}` where the service's location goes.
pub const WSDL_TEMPLATE: &str = include_str!("../wstest.wsdl");

/// The WSDL with `address` (e.g. `http://127.0.0.1:8082/WSTest`) as the service location.
///
/// The address is escaped for an XML attribute, since it comes from the request's Host header.
pub fn wsdl(address: &str) -> String {
    let mut escaped = Vec::with_capacity(address.len());
    crate::escape::write_text(&mut escaped, address);
    let escaped = String::from_utf8(escaped)
        .unwrap_or_default()
        .replace('"', "&quot;");
    WSDL_TEMPLATE.replace("{{ADDRESS}}", &escaped)
}
