//! loadgen `--http2` against wstest-server (h2c with prior knowledge, and h2 by ALPN over TLS
//! with certificates made in the test): the report's counts, streams, `--rate` and the body
//! checks; and servers that speak HTTP/1.1 only, which end the run saying so.

use std::time::Duration;

use testkit::servers::Behaviour;

use crate::runs::{Case, FAST, Wire, case, check_each_within};

const fn ours(wire: Wire, name: &'static str, args: &'static str) -> Case {
    Case {
        wire,
        behaviour: None,
        ..case(name, FAST, args)
    }
}

#[test]
fn runs_over_http2() {
    // Built (if need be) before the clock starts.
    testkit::workspace_bin("wstest-server", "server");
    let cases = [
        Case {
            lines: &[
                "Complete requests:      400",
                "Failed requests:        0",
                // Requests at a time: 4 connections of 8 streams.
                "Concurrency Level:      32",
                "  [200] 400 responses",
            ],
            ..ours(
                Wire::Ours,
                "h2c with prior knowledge, 8 streams a connection",
                "--http2 --streams 8 -c 4 -n 400 -T text/xml --reject-body Fault> --expect-status 200 -p {post}",
            )
        },
        Case {
            lines: &[
                "Complete requests:      200",
                "Failed requests:        0",
                "TLS Server Name:        localhost",
                "TLS handshakes:         2 (0 resumed sessions; none offered: each connection a full handshake, as with ab; --tls-resume offers them)",
            ],
            ..ours(
                Wire::OursTls,
                "h2 over TLS, verified",
                "--http2 --streams 4 -c 2 -n 200 --cacert {ca} -HHost:localhost -T text/xml -p {post}",
            )
        },
        Case {
            lines: &["Complete requests:      60", "Failed requests:        0"],
            ..ours(
                Wire::Ours,
                "--rate over HTTP/2",
                "--http2 -c 2 --rate 300 -n 60 -T text/xml -p {post}",
            )
        },
        Case {
            lines: &[
                "Failed requests:        20",
                "Failures by cause:      connect 0, receive 0, length 0, exceptions 0, write 0, timeout 0, status 0, body 20",
            ],
            ..ours(
                Wire::Ours,
                "body checks over HTTP/2",
                "--http2 -n 20 --expect-body NoSuchText -T text/xml -p {post}",
            )
        },
        Case {
            exit_code: 1,
            stderr: &[
                "--http2: the server does not speak HTTP/2 (h2c with prior knowledge; it may speak HTTP/1.1 only)",
            ],
            ..case("h2c to a server of HTTP/1.1 only", FAST, "--http2 -n 5")
        },
        Case {
            exit_code: 1,
            stderr: &[
                "--http2: the server did not agree to HTTP/2 over TLS (it refused ALPN h2); it may speak HTTP/1.1 only",
            ],
            ..Case {
                wire: Wire::Tls,
                ..case("h2 to a TLS server of HTTP/1.1 only", FAST, "--http2 -n 5")
            }
        },
    ];
    check_each_within(&cases, Duration::from_secs(30));
}

/// Streams a server refused unprocessed (above a GOAWAY's last stream, or reset with
/// REFUSED_STREAM) are sent again, on the same connection or a new one, each request
/// processed once; a server that refuses everything fails each request after three tries.
#[test]
fn refused_streams_are_sent_again() {
    let cases = [
        Case {
            lines: &["Complete requests:      400", "Failed requests:        0"],
            server_requests: Some(400),
            ..case(
                "GOAWAY after 50 answers a connection",
                Behaviour::H2GoAwayAfter(50),
                "--http2 --streams 8 -c 2 -n 400",
            )
        },
        Case {
            lines: &["Complete requests:      200", "Failed requests:        0"],
            server_requests: Some(200),
            ..case(
                "GOAWAY after 30 answers, under --rate",
                Behaviour::H2GoAwayAfter(30),
                "--http2 --streams 4 -c 2 --rate 2000 -n 200",
            )
        },
        Case {
            lines: &["Complete requests:      100", "Failed requests:        0"],
            server_requests: Some(100),
            ..case(
                "REFUSED_STREAM on each connection's first stream",
                Behaviour::H2RefuseFirst,
                "--http2 --streams 4 -c 2 -n 100",
            )
        },
        Case {
            lines: &[
                "Failed requests:        5",
                "Failures by cause:      connect 0, receive 5, length 0, exceptions 0, write 0, timeout 0, status 0, body 0",
            ],
            server_requests: Some(0),
            ..case(
                "a server that refuses everything",
                Behaviour::H2RefuseAll,
                "--http2 -c 1 -n 5",
            )
        },
        Case {
            exit_code: 1,
            stderr: &[
                "--http2: the server allows no streams (its SETTINGS_MAX_CONCURRENT_STREAMS is 0), so it takes no request",
            ],
            server_requests: Some(0),
            ..case(
                "a server that allows no streams",
                Behaviour::H2NoStreams,
                "--http2 -c 2 -n 5",
            )
        },
    ];
    check_each_within(&cases, Duration::from_secs(20));
}
