//! loadgen over TLS against test servers with certificates made in the test: ab's report lines,
//! handshakes per connection and resumed sessions, `--verify` and `--cacert`, ab's TLS options
//! and the refusals, and servers that do not speak TLS or never finish the handshake.

use std::time::Duration;

use testkit::servers::Behaviour;

use crate::runs::{Case, FAST, Wire, case, check_each_within};

const fn tls(name: &'static str, behaviour: Behaviour, args: &'static str) -> Case {
    Case {
        wire: Wire::Tls,
        ..case(name, behaviour, args)
    }
}

#[test]
fn runs_over_tls() {
    let cases = [
        Case {
            lines: &[
                "Complete requests:      200",
                "Failed requests:        0",
                "Keep-Alive requests:    200",
                // The test certificate's key is ECDSA P-256.
                "SSL/TLS Protocol:       TLSv1.3,TLS_AES_256_GCM_SHA384,256,256",
                "Server Temp Key:        X25519MLKEM768",
                "TLS handshakes:         4 (0 resumed sessions; none offered: each connection a full handshake, as with ab; --tls-resume offers them)",
            ],
            server_requests: Some(200),
            stderr: &["loadgen: the server's TLS certificate is not verified (as with ab)"],
            ..tls("keep-alive over TLS", FAST, "-k -n 200 -c 4")
        },
        Case {
            lines: &[
                "Complete requests:      50",
                "Failed requests:        0",
                "TLS handshakes:         50 (0 resumed sessions; none offered: each connection a full handshake, as with ab; --tls-resume offers them)",
            ],
            ..tls("a handshake a request without -k", FAST, "-n 50 -c 2")
        },
        Case {
            lines: &[
                "Complete requests:      30",
                "TLS handshakes:         30 (29 resumed sessions; --tls-resume)",
            ],
            ..tls("--tls-resume", FAST, "-n 30 --tls-resume")
        },
        Case {
            lines: &[
                "SSL/TLS Protocol:       TLSv1.2,ECDHE-ECDSA-AES128-GCM-SHA256,256,128",
                "Failed requests:        0",
            ],
            ..tls(
                "-f and -Z choose the protocol and the cipher",
                FAST,
                "-n 4 -f TLS1.2 -Z ECDHE-ECDSA-AES128-GCM-SHA256",
            )
        },
        Case {
            lines: &[
                "SSL/TLS Protocol:       TLSv1.3,TLS_CHACHA20_POLY1305_SHA256,256,256",
                "TLS Server Name:        localhost",
            ],
            ..tls(
                "IANA's names and SNI from -H Host",
                FAST,
                "-n 4 -Z TLS_CHACHA20_POLY1305_SHA256 -HHost:localhost:8443",
            )
        },
        Case {
            lines: &["Complete requests:      4", "Failed requests:        0"],
            ..tls(
                "--cacert verifies the certificate",
                FAST,
                "-n 4 --cacert {ca} -HHost:localhost",
            )
        },
        Case {
            exit_code: 1,
            lines: &["Complete requests:      0"],
            stderr: &["TLS handshake with localhost failed: invalid peer certificate"],
            server_requests: Some(0),
            ..tls(
                "--cacert with another CA refuses the certificate",
                FAST,
                "-n 20 --cacert {other-ca} -HHost:localhost",
            )
        },
        Case {
            lines: &[
                "Failed requests:        2",
                "Failures by cause:      connect 0, receive 0, length 0, exceptions 0, write 0, timeout 2, status 0, body 0",
            ],
            ..Case {
                wire: Wire::HttpsToPlain,
                ..case(
                    "a handshake that never finishes, and --timeout",
                    Behaviour::Stall,
                    "-n 2 --timeout 300ms",
                )
            }
        },
        Case {
            lines: &[
                "Complete requests:      10",
                "Failed requests:        0",
                "TLS handshakes:         10 (0 resumed sessions; none offered: each connection a full handshake, as with ab; --tls-resume offers them)",
            ],
            ..tls(
                "a server that closes after each answer without a close_notify",
                Behaviour::CloseAfterEach,
                "-k -n 10",
            )
        },
        Case {
            exit_code: 22,
            stderr: &[
                "loadgen: -f: TLS1.1 is not offered: SSL 2 and 3 and TLS 1.0 and 1.1 are broken and deprecated (RFC 8996)",
            ],
            ..tls("-f TLS1.1 is refused, saying why", FAST, "-f TLS1.1")
        },
        Case {
            exit_code: 22,
            stderr: &[
                "loadgen: -Z: unknown cipher suite \"RC4-MD5\"; loadgen's (rustls on aws-lc-rs) are TLS_AES_256_GCM_SHA384",
            ],
            ..tls("-Z with a cipher rustls lacks", FAST, "-Z RC4-MD5")
        },
        Case {
            exit_code: 22,
            stderr: &["loadgen: -Z is a TLS option, for an https:// URL"],
            ..case("-Z on http://", FAST, "-Z ECDHE-RSA-AES128-GCM-SHA256")
        },
    ];
    check_each_within(&cases, Duration::from_secs(20));
}
