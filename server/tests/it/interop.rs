//! Real clients against the server: ApacheBench (Debian's apache2-utils, which scripts/test.sh
//! installs) posts every post file with keep-alive, and must see no failure.

use std::process::Command;

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
