//! TLS and HTTP/2: the same answers over every transport (TLS with ALPN h2 or http/1.1, TLS
//! without ALPN, h2c with prior knowledge), and the hostile cases of the two protocols, each
//! cut within its limit while the server goes on serving others.
//!
//! Certificates are made in the test (`testkit::certs`); the clients verify them against the
//! test CA. Abusive HTTP/2 clients write raw frames, so nothing smooths what they send.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls_pki_types::pem::PemObject as _;
use server::Config;
use testkit::certs::TestCerts;
use testkit::h2_frames::{
    END_HEADERS, GOAWAY, HEADERS, PING, PREFACE, RST_STREAM, SETTINGS, frame,
};

use crate::h2::Frame;
use crate::http::check_answer;
use crate::{HttpResponse, TestServer};

/// The limit under test in the timeout cases, short so that the tests are quick.
pub(crate) const LIMIT: Duration = Duration::from_millis(300);
/// How long a cut-off may take at most before the test calls it a hang.
pub(crate) const PATIENCE: Duration = Duration::from_secs(10);

/// How a client reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    Plain,
    /// HTTP/2 with prior knowledge on the plain port.
    H2c,
    /// TLS offering these ALPN protocols.
    Tls(&'static [&'static [u8]]),
}

pub(crate) fn tls_server(certs: &TestCerts, config: Config) -> TestServer {
    TestServer::with_config(Config {
        tls: Some(tls::server_config(&certs.cert, &certs.key).unwrap()),
        ..config
    })
}

/// A client configuration that trusts the test CA and offers `alpn`.
pub(crate) fn client_config(certs: &TestCerts, alpn: &[&[u8]]) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    let pem = std::fs::read(&certs.ca_cert).unwrap();
    for cert in rustls_pki_types::CertificateDer::pem_slice_iter(&pem) {
        roots.add(cert.unwrap()).unwrap();
    }
    let mut config = rustls::ClientConfig::builder_with_provider(tls::provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
    Arc::new(config)
}

/// Posts `body` as `operation` over `transport`: the response, and the HTTP version it came in.
async fn post(
    addr: SocketAddr,
    certs: &TestCerts,
    transport: Transport,
    operation: wstest::Operation,
    body: &[u8],
) -> (HttpResponse, http::Version) {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = http::Request::post(format!("http://localhost:{}/WSTest", addr.port()))
        .header("content-type", "text/xml; charset=utf-8")
        .header("soapaction", format!("\"{}\"", operation.soap_action()))
        .body(Full::new(Bytes::copy_from_slice(body)))
        .unwrap();
    match transport {
        Transport::Plain => send_http1(TokioIo::new(tcp), request).await,
        Transport::H2c => send_h2(TokioIo::new(tcp), request).await,
        Transport::Tls(alpn) => {
            let connector = tokio_rustls::TlsConnector::from(client_config(certs, alpn));
            let name = rustls_pki_types::ServerName::try_from("localhost").unwrap();
            let stream = connector.connect(name, tcp).await.unwrap();
            if stream.get_ref().1.alpn_protocol() == Some(b"h2") {
                send_h2(TokioIo::new(stream), request).await
            } else {
                send_http1(TokioIo::new(stream), request).await
            }
        }
    }
}

async fn send_http1<I>(io: I, request: http::Request<Full<Bytes>>) -> (HttpResponse, http::Version)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let mut request = request;
    // hyper's HTTP/1.1 client sends the URI's path alone; HTTP/2 carries :authority instead.
    let host = request.uri().authority().unwrap().to_string();
    request
        .headers_mut()
        .insert(http::header::HOST, host.parse().unwrap());
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await.unwrap();
    tokio::spawn(connection);
    collect(sender.send_request(request).await.unwrap()).await
}

async fn send_h2<I>(io: I, request: http::Request<Full<Bytes>>) -> (HttpResponse, http::Version)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
        .await
        .unwrap();
    tokio::spawn(connection);
    collect(sender.send_request(request).await.unwrap()).await
}

async fn collect(response: http::Response<hyper::body::Incoming>) -> (HttpResponse, http::Version) {
    let version = response.version();
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap_or("").to_owned()))
        .collect();
    let body = response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    (
        HttpResponse {
            status,
            headers,
            body,
        },
        version,
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn every_transport_gets_the_same_answers() {
    let certs = TestCerts::new("transports");
    let plain = TestServer::start();
    let secure = tls_server(&certs, Config::default());
    let cases: &[(&str, Transport, http::Version)] = &[
        (
            "TLS, ALPN h2",
            Transport::Tls(&[b"h2", b"http/1.1"]),
            http::Version::HTTP_2,
        ),
        (
            "TLS, ALPN http/1.1",
            Transport::Tls(&[b"http/1.1"]),
            http::Version::HTTP_11,
        ),
        (
            "TLS without ALPN",
            Transport::Tls(&[]),
            http::Version::HTTP_11,
        ),
        (
            "h2c, prior knowledge",
            Transport::H2c,
            http::Version::HTTP_2,
        ),
        ("plain HTTP/1.1", Transport::Plain, http::Version::HTTP_11),
    ];
    let runtime = runtime();
    for (name, transport, version) in cases {
        let addr = match transport {
            Transport::Tls(_) => secure.addr,
            _ => plain.addr,
        };
        for file in wstest::post_files::all() {
            let body = file.body();
            let what = format!("{name}, {}", file.name);
            let (response, got) =
                runtime.block_on(post(addr, &certs, *transport, file.operation, &body));
            assert_eq!(got, *version, "{what}");
            check_answer(&what, &body, &response);
        }
    }
}

/// HPACK, static table only: `:method: POST`, `:path: /`, `:scheme: http`. The path is not
/// served (404), which needs no body: enough for the stream cases.
pub(crate) const POST_ROOT: &[u8] = &[0x83, 0x84, 0x86];

/// A raw HTTP/2 connection: the preface, then `settings` (id, value pairs).
pub(crate) fn h2_raw(addr: SocketAddr, settings: &[(u16, u32)]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut payload = Vec::new();
    for (id, value) in settings {
        payload.extend_from_slice(&id.to_be_bytes());
        payload.extend_from_slice(&value.to_be_bytes());
    }
    let mut hello = PREFACE.to_vec();
    hello.extend(frame(SETTINGS, 0, 0, &payload));
    stream.write_all(&hello).unwrap();
    stream
}

/// Reads frames until `stop` says so or the connection ends: every frame's (kind, flags,
/// stream, payload), and whether the connection ended.
fn read_frames(
    stream: &mut TcpStream,
    mut stop: impl FnMut(u8, u32, &[u8]) -> bool,
) -> (Vec<Frame>, bool) {
    let mut frames = Vec::new();
    while let Some(frame) = crate::h2::read_frame(stream) {
        let done = stop(frame.0, frame.2, &frame.3);
        frames.push(frame);
        if done {
            return (frames, false);
        }
    }
    (frames, true)
}

/// Reads until the server closes the connection; how long that took, or `None` past
/// [`PATIENCE`].
pub(crate) fn closes_within(stream: &mut TcpStream) -> Option<Duration> {
    let started = Instant::now();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => {}
            Err(error)
                if error.kind() == std::io::ErrorKind::WouldBlock
                    || error.kind() == std::io::ErrorKind::TimedOut =>
            {
                return None;
            }
            Err(_) => return Some(started.elapsed()),
        }
        if started.elapsed() > PATIENCE {
            return None;
        }
    }
}

/// One hostile case: a server with `config` (over TLS when `tls`), and what the abuser does
/// and checks.
struct Abuse {
    name: &'static str,
    tls: bool,
    config: Config,
    abuse: fn(SocketAddr, &TestCerts),
}

pub(crate) fn limited() -> Config {
    Config {
        header_timeout: Some(LIMIT),
        body_timeout: Some(LIMIT),
        write_timeout: Some(LIMIT),
        idle_timeout: Some(LIMIT),
        tls_handshake_timeout: Some(LIMIT),
        ..Config::default()
    }
}

fn abuses() -> Vec<Abuse> {
    vec![
        Abuse {
            name: "a TLS handshake that never starts is cut at the handshake timeout",
            tls: true,
            config: Config {
                idle_timeout: None,
                ..limited()
            },
            abuse: |addr, _| {
                let mut stream = TcpStream::connect(addr).unwrap();
                let took = closes_within(&mut stream).expect("never cut");
                assert!(
                    took >= LIMIT - Duration::from_millis(50),
                    "cut after {took:?}"
                );
            },
        },
        Abuse {
            name: "a ClientHello dripped a byte at a time is cut at the handshake timeout",
            tls: true,
            config: limited(),
            abuse: |addr, _| {
                let mut stream = TcpStream::connect(addr).unwrap();
                // A TLS record header announcing a 512-byte handshake message, then a drip.
                stream
                    .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
                    .unwrap();
                let started = Instant::now();
                while stream.write_all(&[0]).is_ok() && started.elapsed() < PATIENCE {
                    std::thread::sleep(Duration::from_millis(50));
                }
                let took = started.elapsed();
                assert!(took < PATIENCE, "the drip was never cut");
            },
        },
        Abuse {
            name: "plain HTTP sent to the TLS port is refused at once",
            tls: true,
            config: Config::default(),
            abuse: |addr, _| {
                let mut stream = TcpStream::connect(addr).unwrap();
                stream
                    .write_all(b"POST /WSTest HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
                    .unwrap();
                let took = closes_within(&mut stream).expect("never cut");
                assert!(took < Duration::from_secs(2), "cut after {took:?}");
            },
        },
        Abuse {
            name: "garbage after the TLS handshake ends the connection",
            tls: true,
            config: Config::default(),
            abuse: |addr, certs| {
                let config = client_config(certs, &[b"http/1.1"]);
                let name = rustls_pki_types::ServerName::try_from("localhost").unwrap();
                let connection = rustls::ClientConnection::new(config, name).unwrap();
                let mut tls =
                    rustls::StreamOwned::new(connection, TcpStream::connect(addr).unwrap());
                tls.sock.set_read_timeout(Some(PATIENCE)).unwrap();
                while tls.conn.is_handshaking() {
                    tls.conn.complete_io(&mut tls.sock).unwrap();
                }
                tls.sock
                    .write_all(b"\x17\x03\x03\x00\x05hello, not a record")
                    .unwrap();
                let took = closes_within(&mut tls.sock).expect("never cut");
                assert!(took < Duration::from_secs(2), "cut after {took:?}");
            },
        },
        Abuse {
            name: "HTTP/2 rapid reset (CVE-2023-44487): streams opened and reset at once",
            tls: false,
            config: Config::default(),
            abuse: |addr, _| {
                let mut stream = h2_raw(addr, &[]);
                let mut burst = Vec::new();
                for n in 0..5_000u32 {
                    let id = 2 * n + 1;
                    burst.extend(frame(HEADERS, END_HEADERS, id, POST_ROOT));
                    burst.extend(frame(RST_STREAM, 0, id, &8u32.to_be_bytes()));
                }
                // The server may close before it has read the whole burst.
                let _ = stream.write_all(&burst);
                let (frames, closed) = read_frames(&mut stream, |kind, _, _| kind == GOAWAY);
                let goaway = frames.iter().find(|frame| frame.0 == GOAWAY);
                assert!(
                    goaway.is_some() || closed,
                    "neither GOAWAY nor a close after 5,000 resets"
                );
                if let Some((.., payload)) = goaway {
                    // ENHANCE_YOUR_CALM (11) or PROTOCOL_ERROR (1).
                    let code = u32::from_be_bytes(payload[4..8].try_into().unwrap());
                    assert!([1, 11].contains(&code), "GOAWAY code {code}");
                }
            },
        },
        Abuse {
            name: "a SETTINGS flood from a client that reads nothing",
            tls: false,
            config: limited(),
            abuse: |addr, _| {
                let mut stream = h2_raw(addr, &[]);
                stream
                    .set_write_timeout(Some(Duration::from_millis(500)))
                    .unwrap();
                let flood: Vec<u8> = (0..1000).flat_map(|_| frame(SETTINGS, 0, 0, &[])).collect();
                let started = Instant::now();
                while stream.write_all(&flood).is_ok() && started.elapsed() < PATIENCE {}
                assert!(started.elapsed() < PATIENCE, "the flood was never stopped");
            },
        },
        Abuse {
            name: "a PING flood from a client that reads nothing",
            tls: false,
            config: limited(),
            abuse: |addr, _| {
                let mut stream = h2_raw(addr, &[]);
                stream
                    .set_write_timeout(Some(Duration::from_millis(500)))
                    .unwrap();
                let flood: Vec<u8> = (0..1000).flat_map(|_| frame(PING, 0, 0, &[7; 8])).collect();
                let started = Instant::now();
                while stream.write_all(&flood).is_ok() && started.elapsed() < PATIENCE {}
                assert!(started.elapsed() < PATIENCE, "the flood was never stopped");
            },
        },
        Abuse {
            name: "streams past --max-streams are refused (REFUSED_STREAM)",
            tls: false,
            config: Config {
                max_streams: 4,
                ..Config::default()
            },
            abuse: |addr, _| {
                let mut stream = h2_raw(addr, &[]);
                // Six requests whose bodies never come: four are open at once, two too many.
                let mut burst = Vec::new();
                for n in 0..6u32 {
                    burst.extend(frame(HEADERS, END_HEADERS, 2 * n + 1, POST_ROOT));
                }
                stream.write_all(&burst).unwrap();
                let mut refused = 0;
                let (_, closed) = read_frames(&mut stream, |kind, _, payload| {
                    if kind == RST_STREAM && payload == 7u32.to_be_bytes() {
                        refused += 1;
                    }
                    refused == 2
                });
                assert!(
                    !closed && refused == 2,
                    "refused {refused}, closed {closed}"
                );
            },
        },
        Abuse {
            name: "a stream that never sends its body gets 408 at the body timeout",
            tls: false,
            config: limited(),
            abuse: |addr, _| {
                let mut stream = h2_raw(addr, &[]);
                let block = crate::h2::post_wstest_headers();
                stream
                    .write_all(&frame(HEADERS, END_HEADERS, 1, &block))
                    .unwrap();
                let started = Instant::now();
                let (frames, closed) =
                    read_frames(&mut stream, |kind, id, _| kind == HEADERS && id == 1);
                assert!(!closed, "closed instead of answering: {frames:?}");
                let took = started.elapsed();
                assert!(
                    took >= LIMIT - Duration::from_millis(50),
                    "answered after {took:?}"
                );
                let (.., payload) = frames.last().unwrap();
                // :status 408 is not in HPACK's static table: a literal (high bit clear) whose
                // name is index 8 (`:status`), where 200, 400 or 500 would be indexed whole.
                assert!(
                    payload
                        .first()
                        .is_some_and(|byte| byte & 0x80 == 0 && byte & 0x0f == 8),
                    "{payload:?}"
                );
            },
        },
    ]
}

#[test]
fn tls_and_h2_abuse_is_cut_and_the_server_keeps_serving() {
    let certs = TestCerts::new("abuse");
    for case in abuses() {
        let server = if case.tls {
            tls_server(&certs, case.config)
        } else {
            TestServer::with_config(case.config)
        };
        (case.abuse)(server.addr, &certs);
        check_still_serves(case.name, &server, &certs, case.tls);
    }
}

/// The server answers a good request over HTTP/2 (TLS or h2c) after `what`.
pub(crate) fn check_still_serves(what: &str, server: &TestServer, certs: &TestCerts, tls: bool) {
    let transport = if tls {
        Transport::Tls(&[b"h2"])
    } else {
        Transport::H2c
    };
    let file = &wstest::post_files::all()[1];
    let body = file.body();
    let (response, _) =
        runtime().block_on(post(server.addr, certs, transport, file.operation, &body));
    check_answer(&format!("after {what}"), &body, &response);
}
