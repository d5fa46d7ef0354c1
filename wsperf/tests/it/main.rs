//! wsperf end to end: its options, a tiny run in every format (which checks every binding and
//! encoding against our model on every post file and response before timing it), the size
//! table, the chart, `--generate`, and clear errors for files it cannot measure.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use clap::Parser as _;
use wsperf::{Args, Format, Mode, Timing};

/// The timing options of the tiny run: one short batch, no warm-up.
const TINY: [&str; 8] = [
    "--time",
    "1ms",
    "--repeat",
    "1",
    "--warmup",
    "0s",
    "--warmup-calls",
    "0",
];

/// Every implementation's row name, in the order wsperf shows them.
const IMPLEMENTATIONS: [&str; 12] = [
    "streaming",
    "streaming-quick-xml",
    "serde-quick-xml",
    "serde-xml-rs",
    "xml-gzip",
    "json",
    "msgpack",
    "avro",
    "tokens-only-fast",
    "tokens-only-quick-xml",
    "scan",
    "copy",
];

fn wsperf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wsperf"))
        .args(args)
        .output()
        .expect("wsperf runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "wsperf failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wsperf-it-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn post_file(name: &str) -> String {
    format!("{}/../post_files/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// What a command line parses to: its modes, timing and format.
type Parsed = (&'static [Mode], Timing, Format);

#[test]
fn options_parse() {
    let defaults = Timing {
        warmup: Duration::from_millis(200),
        warmup_calls: 100,
        repeat: 10,
        time: Duration::from_millis(1000),
    };
    // Arguments, and the modes, timing and format they give (None: refused).
    let cases: &[(&[&str], Option<Parsed>)] = &[
        (&[], Some((&[Mode::Decode], defaults, Format::Table))),
        (&["-e"], Some((&[Mode::Encode], defaults, Format::Table))),
        (
            &["-d", "-e", "--round-trip", "--format", "latex"],
            Some((
                &[Mode::Decode, Mode::Encode, Mode::RoundTrip],
                defaults,
                Format::Latex,
            )),
        ),
        (
            &[
                "--warmup-calls",
                "3",
                "--warmup",
                "4ms",
                "--repeat",
                "5",
                "--time",
                "6",
                "a.xml",
            ],
            Some((
                &[Mode::Decode],
                Timing {
                    warmup: Duration::from_millis(4),
                    warmup_calls: 3,
                    repeat: 5,
                    // A bare --time is milliseconds, as it always was.
                    time: Duration::from_millis(6),
                },
                Format::Table,
            )),
        ),
        (
            &["--warmup", "1s", "--time", "2s", "--format", "text"],
            Some((
                &[Mode::Decode],
                Timing {
                    warmup: Duration::from_secs(1),
                    time: Duration::from_secs(2),
                    ..defaults
                },
                Format::Table,
            )),
        ),
        // --warmup once counted calls: a bare number is refused, not read as a duration.
        (&["--warmup", "100"], None),
        (&["--warmup-time", "100"], None),
        (
            &[
                "--bindings",
                "streaming,serde-xml-rs",
                "--encodings",
                "xml,avro",
                "--format",
                "csv",
            ],
            Some((&[Mode::Decode], defaults, Format::Csv)),
        ),
        (&["--bindings", "xerces"], None),
        (&["--encodings", "yaml"], None),
        (&["--format", "html"], None),
        (&["--time", "soon"], None),
        (&["--warmup", "-1"], None),
    ];
    for (args, expected) in cases {
        let parsed = Args::try_parse_from(std::iter::once("wsperf").chain(args.iter().copied()));
        match (parsed, expected) {
            (Ok(parsed), Some((modes, timing, format))) => {
                assert_eq!(parsed.modes(), *modes, "{args:?}");
                assert_eq!(parsed.timing(), *timing, "{args:?}");
                assert_eq!(parsed.format, *format, "{args:?}");
            }
            (Err(_), None) => {}
            (parsed, expected) => panic!("{args:?}: parsed {parsed:?}, expected {expected:?}"),
        }
    }
}

/// The tiny run over every post file and response, every implementation, every mode: every row
/// is timed (none is `wrong`), and the JSON says so figure by figure. Through a pipe, stderr
/// has a progress line per document and nothing else.
#[test]
fn every_implementation_reads_every_document_right() {
    let mut args = vec!["-d", "-e", "--round-trip", "--format", "json"];
    args.extend(TINY);
    let output = wsperf(&args);
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&output)).expect("the JSON output parses");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let progress: Vec<&str> = stderr.lines().collect();
    assert_eq!(progress.len(), 16, "{stderr}");
    for (i, line) in progress.iter().enumerate() {
        assert!(
            line.starts_with(&format!("wsperf: [{}/16] ", i + 1)) && line.contains(" measured, "),
            "{stderr}"
        );
    }
    let documents: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter_map(|row| row["document"].as_str())
        .collect();
    assert_eq!(
        documents.len(),
        16,
        "every post file and its response: {documents:?}"
    );
    for row in &rows {
        assert!(row["error"].is_null(), "{row}");
        let median = row["time"]["median_ns"].as_f64().expect("a time");
        assert!(median > 0.0, "{row}");
        let implementation = row["implementation"].as_str().unwrap_or_default();
        assert!(IMPLEMENTATIONS.contains(&implementation), "{row}");
    }
    // Decoding has every implementation; encoding and round trips have no lexer passes.
    for (mode, n_implementations) in [("decode", 12), ("encode", 9), ("round-trip", 9)] {
        let n_rows = rows.iter().filter(|row| row["mode"] == mode).count();
        assert_eq!(n_rows, 16 * n_implementations, "{mode}");
    }
    let streaming = rows
        .iter()
        .find(|row| row["implementation"] == "streaming")
        .expect("a streaming row");
    assert_eq!(streaming["vs_streaming"].as_f64(), Some(1.0));
}

fn check_format(format: &str, output: &str) {
    let lines: Vec<&str> = output.lines().collect();
    match format {
        "text" => {
            assert!(
                lines[0].contains("echostruct20.xml: EchoStruct request"),
                "{output}"
            );
            assert!(lines[0].ends_with("decode"), "{output}");
            assert!(lines[1].starts_with("implementation"), "{output}");
            assert!(lines[2].starts_with("streaming "), "{output}");
        }
        "csv" => {
            assert!(
                lines[0].starts_with("document,kind,mode,implementation,bytes"),
                "{output}"
            );
            let n_columns = lines[0].split(',').count();
            for line in &lines[1..] {
                assert_eq!(line.split(',').count(), n_columns, "{line}");
            }
            assert_eq!(lines.len(), 1 + 2 * 3, "{output}");
        }
        "json" => {
            let rows: serde_json::Value = serde_json::from_str(output).expect("JSON");
            assert_eq!(rows.as_array().map(Vec::len), Some(2 * 3), "{output}");
        }
        "markdown" => {
            assert!(
                lines[0].starts_with("| document | kind | mode | implementation |"),
                "{output}"
            );
            assert!(
                lines[1].starts_with("| :--- |") && lines[1].contains("---: |"),
                "{output}"
            );
            assert_eq!(lines.len(), 2 + 2 * 3, "{output}");
        }
        "latex" => {
            assert!(lines[0].starts_with("\\begin{tabular}{llll"), "{output}");
            assert!(
                output.contains("post\\_files/"),
                "underscores escaped: {output}"
            );
            assert_eq!(lines.last(), Some(&"\\end{tabular}"), "{output}");
        }
        _ => unreachable!("{format}"),
    }
}

#[test]
fn a_tiny_run_produces_each_format() {
    let dir = scratch_dir("formats");
    for format in ["text", "csv", "json", "markdown", "latex"] {
        let file = dir.join(format!("out.{format}"));
        let mut args = vec![
            "--format",
            format,
            "--bindings",
            "streaming,serde-quick-xml",
            "--encodings",
            "xml,json",
            "--no-limits",
        ];
        args.extend(TINY);
        let (echo_struct, get_order) = (post_file("echostruct20.xml"), post_file("getorder20.xml"));
        args.extend([echo_struct.as_str(), get_order.as_str()]);
        check_format(format, &stdout(&wsperf(&args)));
        // The same through -o: the file holds what stdout would.
        let file_text = file.to_str().expect("a UTF-8 path");
        args.extend(["-o", file_text]);
        assert_eq!(
            stdout(&wsperf(&args)),
            "",
            "{format}: -o leaves stdout empty"
        );
        check_format(
            format,
            &std::fs::read_to_string(&file).expect("the -o file"),
        );
    }
}

#[test]
fn sizes_chart_and_generate() {
    let dir = scratch_dir("outputs");
    let generated = dir.join("responses");
    let listed = stdout(&wsperf(&["--generate", generated.to_str().expect("UTF-8")]));
    assert_eq!(
        listed.lines().count(),
        wstest::post_files::all().len(),
        "{listed}"
    );
    let response = generated.join("getorder100-response.xml");
    let xml = std::fs::read_to_string(&response).expect("a generated response");
    assert!(
        xml.contains("<GetOrderResponse") && xml.contains("<ItemId>100</ItemId>"),
        "{xml}"
    );

    let response = response.to_str().expect("UTF-8");
    let sizes = stdout(&wsperf(&["--sizes", "--format", "csv", response]));
    let lines: Vec<&str> = sizes.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    let size = |name: &str| -> usize {
        let column = header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{sizes}"));
        row[column].parse().expect("a size")
    };
    assert_eq!(size("streaming"), xml.len());
    assert!(size("xml-gzip") < size("streaming") / 5, "{sizes}");
    assert!(
        size("json") < size("streaming") && size("avro") < size("json"),
        "{sizes}"
    );

    let chart = dir.join("chart.svg");
    let mut args = vec![
        "-d",
        "-e",
        "--chart",
        chart.to_str().expect("UTF-8"),
        response,
    ];
    args.extend(TINY);
    stdout(&wsperf(&args));
    let svg = std::fs::read_to_string(&chart).expect("the chart");
    for text in [
        "<svg",
        "decode: time per document",
        "encode: time per document",
        "serde-xml-rs",
    ] {
        assert!(svg.contains(text), "the chart lacks {text:?}");
    }
}

#[test]
fn bad_files_are_clear_errors_naming_the_file() {
    let dir = scratch_dir("bad");
    // File name, content (None: missing), and what the error must say.
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("missing.xml", None, "cannot read"),
        ("empty.xml", Some(""), "not XML"),
        ("text.xml", Some("hello"), "not XML"),
        ("broken.xml", Some("<a><b></a>"), "not XML"),
        ("other.xml", Some("<a/>"), "not a WSTest message"),
        (
            "fault.xml",
            Some(
                r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>s:Client</faultcode><faultstring>no</faultstring></s:Fault></s:Body></s:Envelope>"#,
            ),
            "a SOAP fault",
        ),
    ];
    for (name, content, message) in cases {
        let path = dir.join(name);
        if let Some(content) = content {
            std::fs::write(&path, content).expect("a test file");
        }
        let output = wsperf(&[path.to_str().expect("UTF-8")]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{name}: wsperf succeeded");
        assert!(
            stderr.contains(name),
            "{name}: the error does not name the file: {stderr}"
        );
        assert!(stderr.contains(message), "{name}: {stderr}");
        assert!(output.stdout.is_empty(), "{name}: output on stdout");
    }
}

/// An implementation that cannot carry a document is a `wrong` row, named on stderr, the
/// others are timed, and the run exits 3: JSON has no NaN (serde_json writes it as null, which reads back as nil).
#[test]
fn an_implementation_that_gets_a_document_wrong_is_a_wrong_row() {
    let dir = scratch_dir("wrong");
    let path = dir.join("nan.xml");
    std::fs::write(
        &path,
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>1</i><f>NaN</f><s>x</s></l></array></EchoStruct></soap:Body></soap:Envelope>"#,
    )
    .expect("a test file");
    let mut args = vec![
        "--bindings",
        "streaming",
        "--encodings",
        "xml,json",
        "--no-limits",
    ];
    args.extend(["--format", "json", path.to_str().expect("UTF-8")]);
    args.extend(TINY);
    let output = wsperf(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The report is whole, and the run exits 3, as the suite's for a wrong answer.
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("1 row(s) wrong"), "{stderr}");
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&output.stdout).expect("the JSON output parses");
    assert!(
        stderr.contains("nan.xml: json: reads its own encoding back"),
        "{stderr}"
    );
    let row = |name: &str| {
        rows.iter()
            .find(|row| row["implementation"] == name)
            .unwrap_or_else(|| panic!("no {name} row: {rows:?}"))
    };
    assert!(row("streaming")["time"]["median_ns"].as_f64().is_some());
    assert!(row("json")["time"].is_null());
    let error = row("json")["error"].as_str().unwrap_or_default();
    assert!(error.contains("reads its own encoding back"), "{error}");
    assert!(row("json")["bytes"].as_u64().unwrap_or_default() > 0);
}

/// A relay on loopback, killed when dropped.
struct Relay {
    child: std::process::Child,
    addr: String,
}

impl Relay {
    fn start() -> Relay {
        use std::io::BufRead as _;
        let mut child = Command::new(env!("CARGO_BIN_EXE_wsperf"))
            .args(["relay", "--addr", "127.0.0.1:0"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the relay starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = host::listening::Listening::parse(&line)
            .filter(|listening| listening.name == "wsperf relay")
            .unwrap_or_else(|| panic!("no listening line: {line:?}"))
            .addr()
            .to_owned();
        Relay { child, addr }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_network_mode_times_every_row_across_a_relay() {
    let relay = Relay::start();
    for mode in ["--decode", "--encode", "--round-trip"] {
        let mut args = vec!["--net", &relay.addr, mode, "--format", "csv"];
        args.extend(TINY);
        let files = [post_file("echostruct20.xml"), post_file("getorder20.xml")];
        args.extend(files.iter().map(String::as_str));
        let output = stdout(&wsperf(&args));
        for implementation in IMPLEMENTATIONS {
            let decode_only = implementation.starts_with("tokens-only") || implementation == "scan";
            let rows = output
                .lines()
                .filter(|line| line.split(',').nth(3) == Some(implementation))
                .count();
            let expected = if decode_only && mode != "--decode" {
                0
            } else {
                2
            };
            assert_eq!(rows, expected, "{mode} {implementation}: {output}");
        }
        assert!(!output.contains("wrong"), "{mode}: {output}");
    }
}

#[test]
fn the_network_mode_says_what_is_wrong_with_the_relay() {
    // Nothing listening.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    drop(listener);
    let output = wsperf(&["--net", &addr, &post_file("echovoid.xml")]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("is `wsperf relay` running there?"),
        "{stderr}"
    );
    // A server that is not a relay: an HTTP server's answer is not a frame.
    let http = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = http.local_addr().unwrap().to_string();
    let server = std::thread::spawn(move || {
        use std::io::{Read as _, Write as _};
        let (mut stream, _) = http.accept().unwrap();
        let mut buf = [0u8; 1024];
        let _ = stream.read(&mut buf);
        let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
    });
    let output = wsperf(&["--net", &addr, &post_file("echovoid.xml")]);
    server.join().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("does not speak wsperf's relay protocol"),
        "{stderr}"
    );
}
