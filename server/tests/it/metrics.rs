//! `--metrics`: the counts match what was sent, by protocol and status, and the binary serves
//! them as Prometheus text at GET /metrics.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use server::Config;
use server::metrics::{Metrics, Registry};

use crate::{ChildServer, TEXT_XML, TestServer, soap_action};

fn echo_void() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../post_files/echovoid.xml"
    ))
    .unwrap()
}

/// Waits (up to 10 s) until `done` holds; false if it never did.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::yield_now();
    }
    done()
}

/// The value of the sample `name` (labels included, as written) in `text`.
fn sample(text: &str, name: &str) -> f64 {
    testkit::prometheus_sample(text, name)
}

#[test]
fn the_counts_are_what_was_sent() {
    let registry = Registry::new(1);
    let server = TestServer::with_config(Config {
        metrics: Some(Metrics::new(std::sync::Arc::clone(&registry))),
        ..Config::default()
    });
    let action = soap_action(wstest::Operation::EchoVoid);
    let mut client = server.connect();
    // (path, body, status): three answers, two refusals of the path, one fault.
    let requests: [(&str, &[u8], u16); 6] = [
        ("/WSTest", &echo_void(), 200),
        ("/WSTest", &echo_void(), 200),
        ("/WSTest", &echo_void(), 200),
        ("/nope", b"x", 404),
        ("/nope", b"x", 404),
        ("/WSTest", b"<not-xml", 500),
    ];
    for (path, body, status) in requests {
        let response = client.post(path, &[TEXT_XML, &action], body);
        assert_eq!(response.status, status, "{path}");
    }
    // Over HTTP/2 (h2c with prior knowledge), two more answers.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let (mut h2, connection) = h2::client::handshake(tcp).await.unwrap();
        tokio::spawn(connection);
        for _ in 0..2 {
            let request = http::Request::post(format!("http://{}/WSTest", server.addr))
                .header("content-type", "text/xml; charset=utf-8")
                .header("soapaction", wstest::Operation::EchoVoid.soap_action())
                .body(())
                .unwrap();
            let (answer, mut stream) = h2.send_request(request, false).unwrap();
            stream.send_data(echo_void().into(), true).unwrap();
            let answer = answer.await.unwrap();
            assert_eq!(answer.status(), 200);
            let mut body = answer.into_body();
            while let Some(chunk) = body.data().await {
                let chunk = chunk.unwrap();
                let _ = body.flow_control().release_capacity(chunk.len());
            }
        }
        // The HTTP/1.1 connection and this one are both open now.
        let text = registry.render();
        assert_eq!(
            sample(&text, r#"wstest_connections_open{protocol="h2"}"#),
            1.0,
            "{text}"
        );
        assert_eq!(
            sample(&text, r#"wstest_connections_open{protocol="http1"}"#),
            1.0,
            "{text}"
        );
    });
    let text = registry.render();
    for (name, value) in [
        (r#"wstest_requests_total{protocol="http1"}"#, 6.0),
        (r#"wstest_requests_total{protocol="h2"}"#, 2.0),
        (r#"wstest_responses_total{code="200"}"#, 5.0),
        (r#"wstest_responses_total{code="404"}"#, 2.0),
        (r#"wstest_responses_total{code="500"}"#, 1.0),
        ("wstest_faults_total", 1.0),
        (r#"wstest_request_duration_seconds_bucket{le="+Inf"}"#, 8.0),
        ("wstest_request_duration_seconds_count", 8.0),
        (r#"wstest_requests_in_flight{protocol="http1"}"#, 0.0),
        (r#"wstest_requests_in_flight{protocol="h2"}"#, 0.0),
    ] {
        assert_eq!(sample(&text, name), value, "{name} in\n{text}");
    }
    assert!(sample(&text, "wstest_request_duration_seconds_sum") > 0.0);
    // Both clients gone (the h2 connection's task with its runtime).
    drop(runtime);
    drop(client);
    assert!(
        eventually(|| {
            let text = registry.render();
            sample(&text, r#"wstest_connections_open{protocol="http1"}"#) == 0.0
                && sample(&text, r#"wstest_connections_open{protocol="h2"}"#) == 0.0
        }),
        "connections still counted open after they closed:\n{}",
        registry.render()
    );
}

/// The binary prints where its metrics are, serves them at GET /metrics (after a silent client
/// has had its time), and 404 elsewhere.
#[test]
fn the_binary_serves_its_metrics() {
    let server = ChildServer::start(&["--metrics", "127.0.0.1:0"], None);
    let mut metrics_addr = None;
    assert!(
        eventually(|| {
            metrics_addr = server.stderr().lines().find_map(|line| {
                let listening = host::listening::Listening::parse(line)?;
                let url = listening.url.strip_prefix("http://")?;
                url.strip_suffix("/metrics").map(str::to_owned)
            });
            metrics_addr.is_some()
        }),
        "no metrics line in {}",
        server.stderr()
    );
    let metrics_addr = metrics_addr.unwrap();
    let action = soap_action(wstest::Operation::EchoVoid);
    let mut client = server.connect();
    for _ in 0..3 {
        assert_eq!(
            client
                .post("/WSTest", &[TEXT_XML, &action], &echo_void())
                .status,
            200
        );
    }
    let get = |path: &str| {
        let mut stream = TcpStream::connect(&metrics_addr).unwrap();
        stream
            .write_all(format!("GET {path} HTTP/1.1\r\nHost: m\r\n\r\n").as_bytes())
            .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    // A client that connects and says nothing holds the endpoint for its 2 s, not for ever.
    let silent = TcpStream::connect(&metrics_addr).unwrap();
    let answer = get("/metrics");
    drop(silent);
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(
        answer.contains("Content-Type: text/plain; version=0.0.4"),
        "{answer}"
    );
    assert_eq!(
        sample(&answer, r#"wstest_requests_total{protocol="http1"}"#),
        3.0
    );
    assert!(get("/other").starts_with("HTTP/1.1 404 "));
}
