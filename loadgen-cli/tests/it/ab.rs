//! The same run by ab and by loadgen against the same test server: the reports have the same
//! lines in the same order (loadgen's extended section comes after ab's last line), and the
//! request counts agree. `.ci/run` installs ab (Debian package apache2-utils).

use std::process::Command;

use crate::runs::{field, loadgen};
use testkit::servers::{Behaviour, TestServer};

/// A line's label: the text before its colon, or the line with its numbers masked.
fn label(line: &str) -> String {
    match line.split_once(':') {
        Some((label, _)) if !label.trim().is_empty() => label.to_owned(),
        _ => {
            let masked: String = line
                .chars()
                .map(|c| {
                    if c.is_ascii_digit() || c == '.' {
                        '#'
                    } else {
                        c
                    }
                })
                .collect();
            let mut collapsed = masked.split_whitespace().collect::<Vec<_>>().join(" ");
            while collapsed.contains("##") {
                collapsed = collapsed.replace("##", "#");
            }
            collapsed
        }
    }
}

/// The labels of a report after its three banner lines, without ab's timing-dependent
/// warnings (their lines and continuation lines).
fn labels(stdout: &str) -> Vec<String> {
    let mut labels = Vec::new();
    let mut lines = stdout.lines().skip(3).peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("WARNING:") || line.starts_with("ERROR:") {
            lines.next();
            continue;
        }
        labels.push(label(line));
    }
    labels
}

#[test]
fn reports_have_abs_lines_in_abs_order() {
    if !testkit::require_tool("ab", "-V", "apache2-utils") {
        return;
    }
    let post = concat!(env!("CARGO_MANIFEST_DIR"), "/../post_files/echovoid.xml");
    let server = TestServer::start(Behaviour::Status(200));
    let url = server.url();
    let cases: &[&[&str]] = &[
        &["-k", "-c", "3", "-n", "300", "-p", post, "-T", "text/xml"],
        &["-c", "2", "-n", "40"],
        &["-S", "-d", "-k", "-n", "20"],
    ];
    for args in cases {
        let mut with_url = args.to_vec();
        with_url.push(&url);
        let ab = Command::new("ab").args(&with_url).output().unwrap();
        let ours = loadgen(&with_url);
        assert!(
            ab.status.success() && ours.status.success(),
            "{args:?}: {ab:?} {ours:?}"
        );
        let ab_out = String::from_utf8_lossy(&ab.stdout);
        let our_out = String::from_utf8_lossy(&ours.stdout);
        let ab_labels = labels(&ab_out);
        let our_labels = labels(&our_out);
        assert!(
            our_labels.len() > ab_labels.len() && our_labels[..ab_labels.len()] == ab_labels[..],
            "{args:?}\n--- ab\n{ab_out}--- loadgen\n{our_out}"
        );
        for label in [
            "Complete requests",
            "Failed requests",
            "Document Length",
            "HTML transferred",
            "Concurrency Level",
        ] {
            assert_eq!(
                field(&ab_out, label),
                field(&our_out, label),
                "{label} for {args:?}\n--- ab\n{ab_out}--- loadgen\n{our_out}"
            );
        }
        let ab_err = String::from_utf8_lossy(&ab.stderr);
        let our_err = String::from_utf8_lossy(&ours.stderr);
        let progress = |text: &str| {
            text.lines()
                .filter(|l| l.starts_with("Completed") || l.starts_with("Finished"))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            progress(&ab_err),
            progress(&our_err),
            "progress lines for {args:?}"
        );
    }
}

#[test]
fn http10_sends_abs_bytes() {
    if !testkit::require_tool("ab", "-V", "apache2-utils") {
        return;
    }
    let post = concat!(env!("CARGO_MANIFEST_DIR"), "/../post_files/echovoid.xml");
    let args = [
        "-k",
        "-n",
        "1",
        "-C",
        "a=1",
        "-A",
        "user:pw",
        "-H",
        "SOAPAction: x",
        "-p",
        post,
        "-T",
        "text/xml",
    ];
    let request = |tool: &dyn Fn(&[&str]) -> std::process::Output| {
        let server = TestServer::start(Behaviour::Status(200));
        let url = server.url();
        let mut with_url = args.to_vec();
        with_url.push(&url);
        assert!(tool(&with_url).status.success());
        server
            .first_request
            .lock()
            .unwrap()
            .clone()
            .expect("a request")
    };
    let ab = request(&|args| Command::new("ab").args(args).output().unwrap());
    let ours = request(&|args| {
        let mut with_flag = vec!["--http1.0"];
        with_flag.extend_from_slice(args);
        loadgen(&with_flag)
    });
    // The ports differ, so the Host lines do.
    let normalise = |bytes: Vec<u8>| {
        let text = String::from_utf8(bytes).unwrap();
        text.lines()
            .map(|line| {
                if line.starts_with("Host: ") {
                    "Host: 127.0.0.1:PORT\r"
                } else {
                    line
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(normalise(ours), normalise(ab));
}
