//! Real clients against the server: ApacheBench (Debian's apache2-utils, which scripts/test.sh
//! installs) posts every post file with keep-alive, and must see no failure; PHP's SoapClient
//! reads the WSDL over TLS and calls every operation where it says.

use std::process::Command;

use testkit::certs::TestCerts;

use crate::TestServer;

#[test]
fn ab_posts_every_post_file_without_failures() {
    if !testkit::require_tool("ab", "-V", "apache2-utils") {
        return;
    }
    let server = TestServer::start();
    let post_files = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../post_files");
    for file in wstest::post_files::all() {
        let output = Command::new("ab")
            .args([
                "-q",
                "-k",
                "-n",
                "300",
                "-c",
                "4",
                "-T",
                "text/xml; charset=utf-8",
            ])
            .arg("-H")
            .arg(format!("SOAPAction: \"{}\"", file.operation.soap_action()))
            .arg("-p")
            .arg(post_files.join(file.name))
            .arg(format!("http://{}/WSTest", server.addr))
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{}: {report}{}",
            file.name,
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            report.contains("Complete requests:      300"),
            "{}: {report}",
            file.name
        );
        assert!(
            report.contains("Failed requests:        0"),
            "{}: {report}",
            file.name
        );
        assert!(
            report.contains("Keep-Alive requests:    300"),
            "{}: {report}",
            file.name
        );
        assert!(!report.contains("Non-2xx"), "{}: {report}", file.name);
    }
}

/// PHP's SoapClient, a client generated from the WSDL at run time, calls every operation over
/// TLS at the address the WSDL gives (which was `http://` on the TLS port, so that every such
/// client failed: "Error Fetching http headers"). Debian's php-cli and php-soap, which
/// scripts/test.sh installs.
#[test]
fn a_php_soap_client_calls_every_operation_over_tls_through_the_wsdl() {
    // `php -r CODE` with the code attached: SoapClient is there only with php-soap.
    if !testkit::require_tool(
        "php",
        "-rexit(class_exists('SoapClient') ? 0 : 1);",
        "php-cli and php-soap",
    ) {
        return;
    }
    let certs = TestCerts::new("php-soap-client");
    let server = crate::secure::tls_server(&certs, server::Config::default());
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/php/wsdl_client.php");
    let output = Command::new("php")
        .arg(script)
        .arg(format!(
            "https://localhost:{}/WSTest?wsdl",
            server.addr.port()
        ))
        .arg(&certs.ca_cert)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let replies: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let expected = serde_json::json!({
        "EchoVoid": "ok",
        "EchoStruct": [
            {"i": 1, "f": 1.5, "s": "one"},
            {"i": -2, "f": 2.25, "s": "two & <three>"},
        ],
        "EchoList": {"i": 1, "f": 0.5, "s": "a", "Next": {"i": 2, "f": 1.5, "s": "b"}},
        "EchoSynthetic": {"Strng": "hello", "Strct": {"i": 3, "f": 3.5, "s": "x"}, "Barray": "AAH/"},
        "GetOrder": {"OrderId": 7, "CustomerId": 9, "LineItems": 3},
        "last_request": "POST /WSTest HTTP/1.1",
    });
    assert_eq!(replies, expected);
}
