//! `--metrics ADDR` end to end: loadgen and wstest-server both serving Prometheus text while
//! a 70/30 mix runs; scrapes in the run move towards the end, and the last ones (loadgen's
//! held open by `--metrics-hold`) hold the counts the report prints.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use host::listening::Listening;

use crate::mix::mix_file;

/// A child killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The URLs of the listening lines `child` prints on stderr, in order, until `count` of them.
fn listening(child: &mut Child, count: usize) -> Vec<String> {
    let stderr = child.stderr.take().expect("stderr piped");
    let mut urls = Vec::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("stderr");
        if let Some(listening) = Listening::parse(&line) {
            urls.push(listening.url.to_owned());
            if urls.len() == count {
                break;
            }
        }
    }
    assert_eq!(urls.len(), count, "listening lines");
    urls
}

/// `GET /metrics` at `url`'s address: the body.
fn scrape(url: &str) -> String {
    let line = format!("listening on {url}");
    let addr = Listening::parse(&line).expect("a URL").addr();
    let mut stream = std::net::TcpStream::connect(addr).expect("connect to the metrics");
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").expect("a whole answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_owned()
}

/// The value of the sample `name` (labels included, as written) in `text`.
fn sample(text: &str, name: &str) -> u64 {
    testkit::prometheus_sample(text, name)
}

#[test]
fn the_last_scrapes_of_loadgen_and_the_server_hold_the_reports_counts() {
    let mut server = Command::new(testkit::workspace_bin("wstest-server", "server"))
        .args(["--addr", "127.0.0.1:0", "--metrics", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("start wstest-server");
    let urls = listening(&mut server, 2);
    let _server = Killed(server);
    let (service, server_metrics) = (&urls[0], &urls[1]);
    let mix = mix_file("metrics-mix.txt", false);
    let mut loadgen = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(["-q", "-k", "-c", "4", "-n", "4000", "--rate", "2000"])
        .args(["--metrics", "127.0.0.1:0", "--metrics-hold", "60s", "--mix"])
        .arg(&mix)
        .arg(service)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start loadgen");
    let loadgen_metrics = listening(&mut loadgen, 1).remove(0);
    let stdout = loadgen.stdout.take().expect("stdout piped");
    let loadgen = Killed(loadgen);
    let kinds = [
        "loadgen_responses_total{kind=\"EchoStruct-20\"}",
        "loadgen_responses_total{kind=\"GetOrder-20\"}",
    ];
    let responses = |text: &str| kinds.iter().map(|kind| sample(text, kind)).sum::<u64>();
    // In the run (2 s at this rate): a scrape that has some of the responses but not all.
    let until = Instant::now() + Duration::from_secs(20);
    let during = loop {
        let text = scrape(&loadgen_metrics);
        let seen = responses(&text);
        if (1..4000).contains(&seen) || Instant::now() > until {
            break seen;
        }
    };
    assert!((1..4000).contains(&during), "{during} responses in the run");
    // The report, printed whole before the hold.
    let mut report = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        report.push_str(&line);
        report.push('\n');
        if line.starts_with("Failures by cause:") {
            break;
        }
    }
    let last = scrape(&loadgen_metrics);
    let row = |name: &str| -> (u64, u64) {
        let words: Vec<&str> = report
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row {name} in {report}"))
            .split_whitespace()
            .collect();
        (words[4].parse().unwrap(), words[5].parse().unwrap())
    };
    for name in ["EchoStruct-20", "GetOrder-20"] {
        let (complete, failed) = row(name);
        let labels = format!("{{kind=\"{name}\"}}");
        assert_eq!(
            sample(&last, &format!("loadgen_responses_total{labels}")),
            complete,
            "{name}: {last}\n{report}"
        );
        assert_eq!(
            sample(&last, &format!("loadgen_failures_total{labels}")),
            failed
        );
        assert_eq!(
            sample(
                &last,
                &format!("loadgen_request_duration_seconds_count{labels}")
            ),
            complete
        );
    }
    assert_eq!(responses(&last), 4000, "{last}");
    assert_eq!(sample(&last, "loadgen_requests_sent_total"), 4000);
    assert_eq!(sample(&last, "loadgen_requests_offered_total"), 4000);
    // The server read exactly the requests the report counts, all over HTTP/1.1.
    let server_text = scrape(server_metrics);
    assert_eq!(
        sample(&server_text, "wstest_requests_total{protocol=\"http1\"}"),
        4000,
        "{server_text}"
    );
    assert_eq!(
        sample(&server_text, "wstest_responses_total{code=\"200\"}"),
        4000
    );
    drop(loadgen);
    dashboard_queries_what_is_served(&format!("{last}{server_text}"));
}

/// Every metric deploy/grafana's dashboard queries is one that the two endpoints serve.
fn dashboard_queries_what_is_served(served: &str) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/grafana/wstest-dashboard.json"
    );
    let dashboard: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("the dashboard");
    let mut queried = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            let expr = target["expr"].as_str().unwrap();
            for word in expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if word.starts_with("loadgen_") || word.starts_with("wstest_") {
                    queried.push(word.to_owned());
                }
            }
        }
    }
    assert!(queried.len() >= 10, "{queried:?}");
    for name in queried {
        assert!(
            served.lines().any(|line| line.starts_with(&name)),
            "the dashboard queries {name}, which neither endpoint serves"
        );
    }
}

/// A remote-write receiver on a port of its own: every request's status line is answered with
/// `status`, and each body (snappy, then a protobuf `WriteRequest`) decoded into its series.
struct Receiver {
    url: String,
    pushes: std::sync::mpsc::Receiver<Vec<PushedSeries>>,
}

/// A series as pushed: its labels (`__name__` among them) and its one sample's value.
#[derive(Debug)]
struct PushedSeries {
    labels: Vec<(String, String)>,
    value: f64,
}

impl Receiver {
    fn start(status: u16) -> Receiver {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/api/v1/write", listener.local_addr().unwrap());
        let (sender, pushes) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (head, body) = read_request(&mut stream);
                assert!(head.starts_with("POST /api/v1/write HTTP/1.1"), "{head}");
                for field in [
                    "Content-Encoding: snappy",
                    "Content-Type: application/x-protobuf",
                    "X-Prometheus-Remote-Write-Version: 0.1.0",
                ] {
                    assert!(head.contains(field), "no {field} in {head}");
                }
                let request = snap::raw::Decoder::new().decompress_vec(&body).unwrap();
                let _ = sender.send(decode_write_request(&request));
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno"
                );
            }
        });
        Receiver { url, pushes }
    }
}

/// A request's head and its Content-Length body.
fn read_request(stream: &mut std::net::TcpStream) -> (String, Vec<u8>) {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let n = stream.read(&mut buffer).unwrap();
        assert!(n > 0, "the request ended early");
        bytes.extend_from_slice(&buffer[..n]);
        let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("Content-Length: "))
            .expect("a Content-Length")
            .parse()
            .unwrap();
        if bytes.len() >= end + 4 + length {
            return (head, bytes[end + 4..end + 4 + length].to_vec());
        }
    }
}

/// Protobuf's fields of `message`: (number, varint or length-delimited bytes or fixed64).
fn fields(mut message: &[u8]) -> Vec<(u64, Vec<u8>)> {
    let varint = |bytes: &mut &[u8]| {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = bytes[0];
            *bytes = &bytes[1..];
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                break;
            }
        }
        value
    };
    let mut fields = Vec::new();
    while !message.is_empty() {
        let key = varint(&mut message);
        let value = match key & 7 {
            0 => varint(&mut message).to_le_bytes().to_vec(),
            1 => {
                let (value, rest) = message.split_at(8);
                message = rest;
                value.to_vec()
            }
            2 => {
                let length = varint(&mut message) as usize;
                let (value, rest) = message.split_at(length);
                message = rest;
                value.to_vec()
            }
            other => panic!("wire type {other}"),
        };
        fields.push((key >> 3, value));
    }
    fields
}

fn decode_write_request(request: &[u8]) -> Vec<PushedSeries> {
    let text = |bytes: &[u8]| String::from_utf8(bytes.to_vec()).unwrap();
    fields(request)
        .into_iter()
        .filter(|(number, _)| *number == 1)
        .map(|(_, timeseries)| {
            let mut series = PushedSeries {
                labels: Vec::new(),
                value: f64::NAN,
            };
            for (number, value) in fields(&timeseries) {
                let inner = fields(&value);
                if number == 1 {
                    series.labels.push((text(&inner[0].1), text(&inner[1].1)));
                } else if number == 2 {
                    series.value = f64::from_le_bytes(inner[0].1.clone().try_into().unwrap());
                }
            }
            series
        })
        .collect()
}

#[test]
fn remote_write_pushes_the_reports_counts_last() {
    let receiver = Receiver::start(204);
    let server = crate::mix::wstest_server();
    let mix = mix_file("remote-write-mix.txt", false);
    let output = crate::runs::loadgen(&[
        "-k".to_owned(),
        "-c".to_owned(),
        "4".to_owned(),
        "-n".to_owned(),
        "3000".to_owned(),
        "--shard".to_owned(),
        "1/2".to_owned(),
        "--prom-remote-write".to_owned(),
        receiver.url.clone(),
        "--mix".to_owned(),
        mix.display().to_string(),
        server.url.to_string(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let pushes: Vec<Vec<PushedSeries>> = receiver.pushes.try_iter().collect();
    let last = pushes.last().expect("a push after the report");
    let value = |name: &str, kind: &str| {
        last.iter()
            .find(|series| {
                series
                    .labels
                    .contains(&("__name__".to_owned(), name.to_owned()))
                    && series
                        .labels
                        .contains(&("kind".to_owned(), kind.to_owned()))
            })
            .unwrap_or_else(|| panic!("no {name} of {kind} in {last:?}"))
            .value
    };
    // Shard 1 of 2 sends 1,500: 1,050 and 450.
    assert_eq!(value("loadgen_responses_total", "EchoStruct-20"), 1050.0);
    assert_eq!(value("loadgen_responses_total", "GetOrder-20"), 450.0);
    assert_eq!(value("loadgen_failures_total", "GetOrder-20"), 0.0);
    assert_eq!(
        value("loadgen_request_duration_seconds_count", "GetOrder-20"),
        450.0
    );
    for series in last {
        let names: Vec<&str> = series
            .labels
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted, "labels sorted by name");
        for label in [("job", "loadgen"), ("shard", "1/2")] {
            assert!(
                series
                    .labels
                    .contains(&(label.0.to_owned(), label.1.to_owned())),
                "{series:?}"
            );
        }
        assert!(names.contains(&"instance"), "{series:?}");
    }
    // A receiver that refuses: said once, and the run is not failed by it.
    let refusing = Receiver::start(500);
    let output = crate::runs::loadgen(&[
        "-k".to_owned(),
        "-n".to_owned(),
        "100".to_owned(),
        "--prom-remote-write".to_owned(),
        refusing.url.clone(),
        "-p".to_owned(),
        format!("{}/../post_files/echovoid.xml", env!("CARGO_MANIFEST_DIR")),
        server.url.to_string(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("status 500: no"), "{stderr}");
    assert!(stderr.contains("1 of 1 pushes failed"), "{stderr}");
}

/// Receivers that never answer, drip their answer, or answer without end: the report comes,
/// each failure is said, and the process ends within twice a push's deadline (2 s) after the
/// run; before, a silent receiver held it 66 s and a dripping one without end.
#[test]
fn remote_write_receivers_cannot_hold_the_exit() {
    use testkit::servers::{Behaviour, TestServer};
    let server = crate::mix::wstest_server();
    for behaviour in [
        Behaviour::Stall,
        Behaviour::Drip,
        Behaviour::EndlessChunked,
        Behaviour::HugeLength,
    ] {
        let receiver = TestServer::start(behaviour);
        let started = Instant::now();
        let output = crate::runs::loadgen(&[
            "-k".to_owned(),
            "-n".to_owned(),
            "100".to_owned(),
            "--prom-remote-write".to_owned(),
            format!("{}api/v1/write", receiver.url()),
            "-p".to_owned(),
            format!("{}/../post_files/echovoid.xml", env!("CARGO_MANIFEST_DIR")),
            server.url.to_string(),
        ]);
        let took = started.elapsed();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert!(output.status.success(), "{behaviour:?}: {stderr}");
        assert!(
            stdout.contains("Complete requests:      100"),
            "{behaviour:?}: {stdout}"
        );
        assert!(stderr.contains("pushes failed"), "{behaviour:?}: {stderr}");
        assert!(
            took < Duration::from_secs(8),
            "{behaviour:?}: the process took {took:?}"
        );
    }
}
