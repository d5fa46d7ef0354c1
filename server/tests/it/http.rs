//! The HTTP shell: every post file, keep-alive in both HTTP versions, chunked bodies,
//! `Expect: 100-continue`, the WSDL, the served paths, timeouts and graceful shutdown.

use std::time::Duration;

use server::BindingChoice;
use wstest::{Reply, Request, Response};

use crate::{Client, HttpResponse, TEXT_XML, TestServer, soap_action};

/// Checks a 200 SOAP response field by field against the request it answers.
#[track_caller]
pub(crate) fn check_answer(what: &str, request_body: &[u8], response: &HttpResponse) {
    assert_eq!(response.status, 200, "{what}: {}", response.text());
    assert_eq!(
        response.header("content-type"),
        Some("text/xml; charset=utf-8"),
        "{what}"
    );
    let reply = wstest::decode_response(&response.body).unwrap();
    let Reply::Response(actual) = reply else {
        panic!("{what}: {reply:?}")
    };
    check_model(what, request_body, &actual);
}

/// Checks that `actual` is the answer to the XML request `request_body` (GetOrder at the
/// server's own clock).
#[track_caller]
pub(crate) fn check_model(what: &str, request_body: &[u8], actual: &Response<'_>) {
    let request = wstest::decode_request(request_body, None).unwrap();
    let description;
    let expected = match request {
        Request::EchoVoid => Response::EchoVoid,
        Request::EchoStruct(items) => Response::EchoStruct(items),
        Request::EchoList(nodes) => Response::EchoList(nodes),
        Request::EchoSynthetic(synth) => Response::EchoSynthetic(synth),
        Request::GetOrder(params) => {
            // The server stamps its own clock; take its date and check everything else.
            let Response::GetOrder(order) = actual else {
                panic!("{what}: {actual:?}")
            };
            assert_eq!(order.order_date, order.customer.last_activity_date);
            description = params.product_description();
            Response::GetOrder(params.generate(order.order_date, &description))
        }
    };
    assert_eq!(format!("{actual:?}"), format!("{expected:?}"), "{what}");
}

#[test]
fn every_post_file_is_answered_on_one_keep_alive_connection() {
    for binding in BindingChoice::ALL {
        let server = TestServer::with_binding(binding);
        let mut client = server.connect();
        for _ in 0..3 {
            for file in wstest::post_files::all() {
                let body = file.body();
                let response =
                    client.post("/WSTest", &[TEXT_XML, &soap_action(file.operation)], &body);
                check_answer(&format!("{} with {binding:?}", file.name), &body, &response);
            }
        }
    }
}

/// ab sends HTTP/1.0 with `Connection: Keep-Alive` and reuses the connection only if the
/// response says keep-alive and carries a Content-Length.
#[test]
fn http_1_0_keep_alive_as_ab_sends_it() {
    let server = TestServer::start();
    let mut client = server.connect();
    let body = wstest::post_files::all()[6].body();
    for _ in 0..3 {
        client.send(
            format!(
                "POST /WSTest HTTP/1.0\r\nConnection: Keep-Alive\r\nContent-length: {}\r\nContent-type: text/xml\r\nSOAPAction: \"uri:WSTestWeb-TestService/GetOrder\"\r\nHost: 127.0.0.1\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        );
        client.send(&body);
        let response = client.read_response();
        check_answer("HTTP/1.0", &body, &response);
        assert!(
            response
                .header("connection")
                .is_some_and(|value| value.eq_ignore_ascii_case("keep-alive"))
        );
        assert!(response.header("content-length").is_some());
    }
}

#[test]
fn chunked_request_bodies_are_read() {
    let server = TestServer::start();
    let mut client = server.connect();
    let body = wstest::post_files::all()[1].body();
    let (first, second) = body.split_at(body.len() / 3);
    let mut request = format!(
        "POST /wstest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n",
        first.len()
    )
    .into_bytes();
    request.extend_from_slice(first);
    request.extend_from_slice(format!("\r\n{:x}\r\n", second.len()).as_bytes());
    request.extend_from_slice(second);
    request.extend_from_slice(b"\r\n0\r\n\r\n");
    client.send(&request);
    check_answer("chunked", &body, &client.read_response());
}

#[test]
fn expect_100_continue_is_honoured() {
    let server = TestServer::start();
    let mut client = server.connect();
    let body = wstest::post_files::all()[3].body();
    client.post_head_expecting_continue(body.len());
    client.send(&body);
    check_answer("100-continue", &body, &client.read_response());
}

/// One request for the WSDL: the transport, `--trust-proxy`, the path and the headers sent
/// beside Host, and the address the WSDL must give (`PORT` standing for the server's).
struct WsdlCase {
    tls: bool,
    trust_proxy: bool,
    path: &'static str,
    headers: &'static str,
    address: &'static str,
}

/// The WSDL's address is the one the client used: its scheme (https over TLS), its Host, its
/// path; a proxy's forwarding headers count only with `--trust-proxy`, the first hop's first.
#[test]
fn the_wsdl_address_follows_the_connection() {
    let case = |tls, trust_proxy, path, headers, address| WsdlCase {
        tls,
        trust_proxy,
        path,
        headers,
        address,
    };
    let cases = [
        case(
            false,
            false,
            "/WSTest?wsdl",
            "",
            "http://localhost:PORT/WSTest",
        ),
        case(
            false,
            false,
            "/wstest?WSDL",
            "",
            "http://localhost:PORT/wstest",
        ),
        case(
            true,
            false,
            "/WSTest?wsdl",
            "",
            "https://localhost:PORT/WSTest",
        ),
        // Any client can send these: without --trust-proxy they change nothing.
        case(
            false,
            false,
            "/WSTest?wsdl",
            "X-Forwarded-Proto: https\r\nForwarded: proto=https;host=evil.example\r\n",
            "http://localhost:PORT/WSTest",
        ),
        case(
            true,
            false,
            "/WSTest?wsdl",
            "X-Forwarded-Proto: http\r\n",
            "https://localhost:PORT/WSTest",
        ),
        case(
            false,
            true,
            "/WSTest?wsdl",
            "X-Forwarded-Proto: https\r\n",
            "https://localhost:PORT/WSTest",
        ),
        case(
            false,
            true,
            "/WSTest?wsdl",
            "X-Forwarded-Proto: https, http\r\nX-Forwarded-Host: bench.example:8443, inner\r\n",
            "https://bench.example:8443/WSTest",
        ),
        case(
            false,
            true,
            "/WSTest?wsdl",
            "Forwarded: proto=https;host=\"bench.example\", proto=http\r\nX-Forwarded-Proto: http\r\n",
            "https://bench.example/WSTest",
        ),
        case(
            true,
            true,
            "/WSTest?wsdl",
            "X-Forwarded-Proto: http\r\n",
            "http://localhost:PORT/WSTest",
        ),
    ];
    let certs = testkit::certs::TestCerts::new("wsdl-address");
    for case in cases {
        let config = server::Config {
            trust_proxy: case.trust_proxy,
            ..server::Config::default()
        };
        let server = if case.tls {
            crate::secure::tls_server(&certs, config)
        } else {
            TestServer::with_config(config)
        };
        let request = format!(
            "GET {} HTTP/1.1\r\nHost: localhost:{}\r\n{}Connection: close\r\n\r\n",
            case.path,
            server.addr.port(),
            case.headers
        );
        let response = get(&server, case.tls.then_some(&certs), &request);
        let what = format!("{request:?} (TLS {}, trust {})", case.tls, case.trust_proxy);
        assert!(response.starts_with("HTTP/1.1 200"), "{what}: {response}");
        assert!(
            response.contains("Content-Type: text/xml; charset=utf-8")
                || response.contains("content-type: text/xml; charset=utf-8"),
            "{what}: {response}"
        );
        let body = &response[response.find("\r\n\r\n").unwrap() + 4..];
        let wsdl = roxmltree::Document::parse(body).unwrap();
        let location = wsdl
            .descendants()
            .find(|node| node.has_tag_name("address"))
            .and_then(|node| node.attribute("location"))
            .unwrap();
        let port = server.addr.port().to_string();
        assert_eq!(location, case.address.replace("PORT", &port), "{what}");
    }
}

/// Sends `request` (one with Connection: close), over TLS trusting `certs` when given, and
/// reads the whole answer.
fn get(server: &TestServer, certs: Option<&testkit::certs::TestCerts>, request: &str) -> String {
    use std::io::{Read as _, Write as _};
    let mut tcp = std::net::TcpStream::connect(server.addr).unwrap();
    tcp.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut answer = Vec::new();
    match certs {
        None => {
            tcp.write_all(request.as_bytes()).unwrap();
            tcp.read_to_end(&mut answer).unwrap();
        }
        Some(certs) => {
            let config = crate::secure::client_config(certs, &[b"http/1.1"]);
            let name = rustls_pki_types::ServerName::try_from("localhost").unwrap();
            let connection = rustls::ClientConnection::new(config, name).unwrap();
            let mut tls = rustls::StreamOwned::new(connection, tcp);
            tls.write_all(request.as_bytes()).unwrap();
            // The server may close without close_notify after Connection: close.
            let _ = tls.read_to_end(&mut answer);
        }
    }
    String::from_utf8(answer).unwrap()
}

#[test]
fn served_paths_are_matched_without_case() {
    let server = TestServer::with_config(server::Config {
        paths: server::Config::default()
            .paths
            .into_iter()
            .chain(["/custom/soap".to_owned()])
            .collect(),
        ..server::Config::default()
    });
    let body = wstest::post_files::all()[0].body();
    for path in [
        "/WSTest",
        "/wstest",
        "/WSTEST",
        "/wstest-soap",
        "/WSTest/services/TestServiceSoap",
        "/Custom/SOAP",
    ] {
        let response = server.connect().post(path, &[TEXT_XML], &body);
        check_answer(path, &body, &response);
    }
    assert_eq!(
        server
            .connect()
            .post("/WSTest/extra", &[TEXT_XML], &body)
            .status,
        404
    );
}

/// A request the server refuses: its head (without Content-Length), the length of its body,
/// the status, and whether the connection carries another request after it.
struct Refusal {
    what: &'static str,
    head: &'static str,
    body_len: usize,
    status: u16,
    carries_on: bool,
}

/// A refused request's body is read and dropped before the answer, so that a keep-alive client
/// keeps its connection however its writes arrive (the body comes in a write of its own,
/// longer than one read); a body over `--max-body`, or one the client waits to send after
/// `100 Continue`, is not read, and the connection says it closes.
#[test]
fn refusals_keep_the_connection_when_they_can() {
    let max_body = 1024 * 1024;
    let server = TestServer::with_config(server::Config {
        max_body,
        ..server::Config::default()
    });
    let cases = [
        Refusal {
            what: "a path not served",
            head: "POST /nope HTTP/1.1\r\nHost: t\r\nContent-Type: text/xml\r\n",
            body_len: 200_000,
            status: 404,
            carries_on: true,
        },
        Refusal {
            what: "a method not served",
            head: "PUT /WSTest HTTP/1.1\r\nHost: t\r\nContent-Type: text/xml\r\n",
            body_len: 200_000,
            status: 405,
            carries_on: true,
        },
        Refusal {
            what: "a media type not served",
            head: "POST /WSTest HTTP/1.1\r\nHost: t\r\nContent-Type: application/soap+xml\r\n",
            body_len: 200_000,
            status: 415,
            carries_on: true,
        },
        Refusal {
            what: "a body over --max-body",
            head: "POST /nope HTTP/1.1\r\nHost: t\r\nContent-Type: text/xml\r\n",
            body_len: max_body + 1,
            status: 404,
            carries_on: false,
        },
        Refusal {
            what: "a body awaiting 100 Continue",
            head: "POST /nope HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n",
            body_len: 1_000,
            status: 404,
            carries_on: false,
        },
    ];
    let echo = wstest::post_files::all()[0].body();
    for case in cases {
        let mut client = server.connect();
        client.send(format!("{}Content-Length: {}\r\n\r\n", case.head, case.body_len).as_bytes());
        if case.carries_on {
            client.send(&vec![b'x'; case.body_len]);
        }
        let refused = client.read_response();
        assert_eq!(
            refused.status,
            case.status,
            "{}: {}",
            case.what,
            refused.text()
        );
        assert_eq!(
            refused.header("connection") == Some("close"),
            !case.carries_on,
            "{}",
            case.what
        );
        if case.carries_on {
            let response = client.post("/WSTest", &[TEXT_XML], &echo);
            check_answer(case.what, &echo, &response);
        } else {
            assert!(client.is_closed(), "{}", case.what);
        }
    }
}

#[test]
fn idle_connections_are_closed() {
    let server = TestServer::with_config(server::Config {
        idle_timeout: Some(Duration::from_millis(200)),
        ..server::Config::default()
    });
    let mut client = server.connect();
    let body = wstest::post_files::all()[0].body();
    check_answer(
        "before idling",
        &body,
        &client.post("/WSTest", &[TEXT_XML], &body),
    );
    assert!(client.is_closed(), "an idle connection stayed open");
}

#[test]
fn slow_headers_are_cut_off() {
    let server = TestServer::with_config(server::Config {
        header_timeout: Some(Duration::from_millis(200)),
        ..server::Config::default()
    });
    let mut client = server.connect();
    client.send(b"POST /WSTest HTTP/1.1\r\nHost: t\r\n");
    assert!(
        client.is_closed(),
        "a client that never finished its headers kept the connection"
    );
}

/// Shutdown stops accepting, answers the request in flight, and `run` returns.
#[test]
fn shutdown_finishes_in_flight_requests() {
    let server = TestServer::start();
    let addr = server.addr;
    let mut client: Client = server.connect();
    let body = wstest::post_files::all()[1].body();
    // A request is in flight when the signal comes: the server has its head (it said
    // 100 Continue, which it does once the request reached the service) and part of its body.
    client.post_head_expecting_continue(body.len());
    client.send(&body[..100]);
    let stopping = std::thread::spawn(move || server.stop());
    // Wait until the server has stopped accepting: from then on it is shutting down.
    while std::net::TcpStream::connect(addr).is_ok() {
        std::thread::yield_now();
    }
    client.send(&body[100..]);
    check_answer("in flight", &body, &client.read_response());
    let served = stopping.join().unwrap().unwrap();
    assert_eq!(
        served,
        server::Served {
            requests: 1,
            cut: 0
        }
    );
}
