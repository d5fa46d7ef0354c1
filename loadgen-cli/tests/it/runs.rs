//! The loadgen binary against the misbehaving servers of [`crate::servers`]: a table of runs,
//! each with the exit code, report lines and stderr text it must give.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use suite::target::{ServerTls, Target, TargetSpec};
use testkit::certs::TestCerts;
use testkit::servers::{BODY, Behaviour, TestServer, refused_port};

pub(crate) fn loadgen<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(args)
        .output()
        .expect("run loadgen")
}

/// The value after `label:` on the report line that starts with it.
pub(crate) fn field<'a>(stdout: &'a str, label: &str) -> Option<&'a str> {
    stdout.lines().find_map(|line| {
        line.strip_prefix(label)
            .and_then(|rest| rest.strip_prefix(':'))
            .map(str::trim)
    })
}

/// The min, mean, sd, median and max of a Connection Times row, in ms.
fn row(stdout: &str, label: &str) -> Vec<f64> {
    let values = field(stdout, label).unwrap_or_else(|| panic!("no {label} row in\n{stdout}"));
    values
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

/// The report's "Complete requests" count.
fn complete_requests(stdout: &str) -> u64 {
    field(stdout, "Complete requests")
        .unwrap_or_else(|| panic!("no Complete requests line in\n{stdout}"))
        .parse()
        .unwrap()
}

pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) behaviour: Option<Behaviour>,
    /// How the server speaks, and the URL's scheme.
    pub(crate) wire: Wire,
    /// The arguments before the URL; `{ca}` stands for the test CA's certificate file and
    /// `{other-ca}` for one that signed nothing the server shows.
    pub(crate) args: &'static str,
    pub(crate) exit_code: i32,
    /// Lines that must be in the report, exactly.
    pub(crate) lines: &'static [&'static str],
    /// Text that must be on stderr.
    pub(crate) stderr: &'static [&'static str],
    /// Requests the server must have read, when that is exact.
    pub(crate) server_requests: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    Plain,
    /// A TLS server and an `https://` URL.
    Tls,
    /// A plain server and an `https://` URL.
    HttpsToPlain,
    /// wstest-server (HTTP/1.1 and h2c), not a test server: `{post}` in the arguments stands
    /// for EchoVoid's post file.
    Ours,
    /// wstest-server over TLS (ALPN h2 and http/1.1).
    OursTls,
}

pub(crate) const fn case(name: &'static str, behaviour: Behaviour, args: &'static str) -> Case {
    Case {
        name,
        behaviour: Some(behaviour),
        wire: Wire::Plain,
        args,
        exit_code: 0,
        lines: &[],
        stderr: &[],
        server_requests: None,
    }
}

pub(crate) const FAST: Behaviour = Behaviour::Delay(Duration::ZERO);

/// [`check`]s every case, each of which must end within `limit`: a run that ends only at a
/// stall timeout would pass its checks too late to be right.
#[track_caller]
pub(crate) fn check_each_within(cases: &[Case], limit: Duration) {
    for case in cases {
        let started = std::time::Instant::now();
        check(case);
        assert!(
            started.elapsed() < limit,
            "{}: took {:?}",
            case.name,
            started.elapsed()
        );
    }
}

#[track_caller]
pub(crate) fn check(case: &Case) -> String {
    let certs = (case.wire != Wire::Plain).then(|| TestCerts::new("loadgen-runs"));
    let other = (case.wire != Wire::Plain).then(|| TestCerts::new("loadgen-runs-other"));
    let server = case.behaviour.map(|behaviour| match (case.wire, &certs) {
        (Wire::Tls, Some(certs)) => TestServer::start_tls(behaviour, certs),
        _ => TestServer::start(behaviour),
    });
    let ours = matches!(case.wire, Wire::Ours | Wire::OursTls).then(|| {
        let tls = match (case.wire, &certs) {
            (Wire::OursTls, Some(certs)) => Some(ServerTls {
                cert: certs.cert.clone(),
                key: certs.key.clone(),
                ca: certs.ca_cert.clone(),
                http2: false,
            }),
            _ => None,
        };
        let spec = TargetSpec::Binary {
            name: "wstest".to_owned(),
            program: testkit::workspace_bin("wstest-server", "server"),
            args: Vec::new(),
        };
        Target::start(&spec, None, tls.as_ref()).expect("starting wstest-server")
    });
    let mut url = match (&ours, &server) {
        (Some(ours), _) => ours.url.to_string(),
        (None, Some(server)) => server.url(),
        (None, None) => format!("http://127.0.0.1:{}/test", refused_port()),
    };
    if case.wire == Wire::HttpsToPlain {
        url = url.replacen("http://", "https://", 1);
    }
    let mut args: Vec<String> = case
        .args
        .split_whitespace()
        .map(|arg| match (arg, &certs, &other) {
            ("{ca}", Some(certs), _) => certs.ca_cert.display().to_string(),
            ("{other-ca}", _, Some(other)) => other.ca_cert.display().to_string(),
            ("{post}", _, _) => {
                concat!(env!("CARGO_MANIFEST_DIR"), "/../post_files/echovoid.xml").to_owned()
            }
            _ => arg.to_owned(),
        })
        .collect();
    args.push(url);
    let output = loadgen(&args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let context = format!(
        "{}: loadgen {}\n--- stdout\n{stdout}--- stderr\n{stderr}",
        case.name,
        args.join(" ")
    );
    assert_eq!(output.status.code(), Some(case.exit_code), "{context}");
    for line in case.lines {
        assert!(
            stdout.lines().any(|l| l == *line),
            "missing line {line:?} in {context}"
        );
    }
    for text in case.stderr {
        assert!(
            stderr.contains(text),
            "missing {text:?} on stderr in {context}"
        );
    }
    if let (Some(server), Some(expected)) = (&server, case.server_requests) {
        assert_eq!(
            server.requests(),
            expected,
            "requests the server read, {context}"
        );
    }
    stdout
}

#[test]
fn runs_against_test_servers() {
    let cases = [
        Case {
            lines: &[
                "Complete requests:      1000",
                "Failed requests:        0",
                "Keep-Alive requests:    1000",
                "Document Length:        12 bytes",
                "HTML transferred:       12000 bytes",
                "Server Software:        test-server/1.0",
                "  [200] 1000 responses",
            ],
            // Exactly -n requests leave, however the threads share them.
            server_requests: Some(1000),
            stderr: &[
                "Completed 100 requests",
                "Completed 1000 requests",
                "Finished 1000 requests",
            ],
            ..case(
                "keep-alive, two threads",
                FAST,
                "-k -c 10 -n 1000 --threads 2",
            )
        },
        Case {
            lines: &["Complete requests:      20", "Failed requests:        0"],
            server_requests: Some(20),
            ..case("a new connection a request", FAST, "-c 4 -n 20")
        },
        Case {
            lines: &["Complete requests:      10", "Keep-Alive requests:    10"],
            ..case("ab's own request bytes", FAST, "--http1.0 -k -n 10")
        },
        Case {
            lines: &["Complete requests:      5", "Failed requests:        0"],
            server_requests: Some(5),
            ..case("HTTP/1.0 without keep-alive", FAST, "--http1.0 -n 5")
        },
        Case {
            lines: &[
                "Complete requests:      5",
                "Failed requests:        0",
                "Document Length:        0 bytes",
                "Keep-Alive requests:    5",
            ],
            ..case("HEAD", FAST, "-i -k -n 5")
        },
        Case {
            // Every reuse finds the connection closed: retried on a new one, not a failure.
            lines: &["Complete requests:      30", "Failed requests:        0"],
            server_requests: Some(30),
            ..case(
                "keep-alive connections the server closes",
                Behaviour::CloseAfterEach,
                "-k -c 3 -n 30",
            )
        },
        Case {
            lines: &[
                "Failed requests:        3",
                "   (Connect: 0, Receive: 0, Length: 0, Exceptions: 3)",
            ],
            ..case("not HTTP", Behaviour::Garbage, "-k -n 3")
        },
        Case {
            lines: &[
                "Failed requests:        2",
                "   (Connect: 0, Receive: 0, Length: 0, Exceptions: 2)",
            ],
            ..case("a head that never ends", Behaviour::EndlessHead, "-k -n 2")
        },
        Case {
            lines: &["LOG: header received:", "LOG: Response code = 200", "---"],
            ..case("-v 3", FAST, "-v 3 -n 2")
        },
        Case {
            lines: &[
                "Failed requests:        5",
                "   (Connect: 0, Receive: 0, Length: 5, Exceptions: 0)",
                "Document Length:        10 bytes",
            ],
            ..case(
                "varying lengths are Length failures",
                Behaviour::VaryingLength,
                "-k -n 10",
            )
        },
        Case {
            lines: &[
                "Failed requests:        0",
                "Document Length:        Variable",
            ],
            ..case("but not with -l", Behaviour::VaryingLength, "-l -k -n 10")
        },
        Case {
            lines: &[
                "Failed requests:        0",
                "Non-2xx responses:      10",
                "  [500] 10 responses",
            ],
            ..case(
                "500s are Non-2xx, not failures",
                Behaviour::Status(500),
                "-k -n 10",
            )
        },
        Case {
            lines: &[
                "Complete requests:      20",
                "Failed requests:        0",
                "Keep-Alive requests:    20",
                "Document Length:        12 bytes",
                "Server Software:        test-server/1.0",
            ],
            server_requests: Some(20),
            ..case(
                "chunked responses with -k",
                Behaviour::Chunked,
                "-k -c 2 -n 20",
            )
        },
        Case {
            lines: &[
                "Complete requests:      0",
                "Failed requests:        5",
                "   (Connect: 0, Receive: 5, Length: 0, Exceptions: 0)",
            ],
            ..case(
                "a close in mid-response",
                Behaviour::CloseMidResponse,
                "-k -n 5",
            )
        },
        Case {
            behaviour: None,
            lines: &[
                "Failed requests:        5",
                "   (Connect: 5, Receive: 0, Length: 0, Exceptions: 0)",
            ],
            ..case("connection refused", FAST, "-n 5")
        },
        Case {
            behaviour: None,
            exit_code: 111,
            lines: &["   (Connect: 11, Receive: 0, Length: 0, Exceptions: 0)"],
            stderr: &[
                "Test aborted after 10 failures",
                "apr_socket_connect(): Connection refused (111)",
            ],
            ..case("connection refused, more than ten times", FAST, "-n 50")
        },
        Case {
            exit_code: 119,
            stderr: &["apr_pollset_poll: The timeout specified has expired (70007)"],
            ..case("a stalled server and -s", Behaviour::Stall, "-s 0.5 -n 3")
        },
        Case {
            lines: &["Failed requests:        3", "Complete requests:      0"],
            ..case(
                "a stalled server and --timeout",
                Behaviour::Stall,
                "--timeout 200ms -n 3",
            )
        },
        Case {
            lines: &["Failed requests:        4"],
            ..case("--expect-status", FAST, "-k -n 4 --expect-status 201")
        },
        Case {
            lines: &["Failed requests:        0"],
            ..case("--expect-body found", FAST, "-k -n 4 --expect-body world")
        },
        Case {
            lines: &["Failed requests:        4"],
            ..case(
                "--reject-body found",
                Behaviour::Chunked,
                "-k -n 4 --reject-body=world",
            )
        },
        Case {
            lines: &["Complete requests:      10"],
            ..case("--warmup does not count", FAST, "-k -n 10 --warmup 100ms")
        },
        Case {
            lines: &["Complete requests:      20", "Failed requests:        0"],
            server_requests: Some(20),
            ..case("--rate", FAST, "-k -c 2 -n 20 --rate 200")
        },
    ];
    for case in &cases {
        check(case);
    }
}

#[test]
fn a_fixed_delay_is_the_mean_and_the_median() {
    let stdout = check(&case(
        "delay",
        Behaviour::Delay(Duration::from_millis(20)),
        "-k -c 2 -n 20",
    ));
    let total = row(&stdout, "Total");
    let (mean, median) = (total[1], total[3]);
    // No request can take less than the delay. The upper bound leaves room for a loaded
    // machine's scheduling and still catches a unit error (microseconds read as milliseconds).
    assert!((20.0..200.0).contains(&mean), "mean {mean} in\n{stdout}");
    assert!(
        (20.0..200.0).contains(&median),
        "median {median} in\n{stdout}"
    );
}

#[test]
fn a_time_limit_ends_the_run() {
    let stdout = check(&case(
        "-t",
        Behaviour::Delay(Duration::from_millis(5)),
        "-k -c 2 -t 0.3",
    ));
    let taken: f64 = field(&stdout, "Time taken for tests")
        .unwrap()
        .trim_end_matches(" seconds")
        .parse()
        .unwrap();
    // The run ends at the limit; a loaded machine may add to it, but not ten times over.
    assert!((0.25..3.0).contains(&taken), "{stdout}");
    let complete = complete_requests(&stdout);
    assert!(complete > 10, "{stdout}");
}

#[test]
fn a_request_longer_than_the_measured_phase_counts_when_it_ends_in_it() {
    // Three requests leave at once in the warm-up and end at 600 ms, inside the phase from
    // 300 to 900 ms; the three that leave then end after it. Counting only the requests that
    // start in the phase would count none, where ab (no warm-up) counts what ends in it.
    let stdout = check(&case(
        "warm-up requests ending in the phase",
        Behaviour::Delay(Duration::from_millis(600)),
        "-k -c 3 --warmup 300ms --duration 600ms",
    ));
    let complete = complete_requests(&stdout);
    assert_eq!(complete, 3, "{stdout}");
    let total = row(&stdout, "Total");
    // Their latency is the whole request's, from when it left in the warm-up.
    assert!((600.0..3000.0).contains(&total[3]), "{stdout}");
}

#[test]
fn a_time_limit_reports_progress_by_tenths_of_the_time() {
    // At a few hundred requests a second, a count-based heartbeat (ab's 5,000 for -t) would
    // print nothing; tenths of the time print up to ten lines, whatever the rate.
    let server = TestServer::start(Behaviour::Delay(Duration::from_millis(5)));
    let output = loadgen(&["-k", "-c", "2", "-t", "1.2", &server.url()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let counts: Vec<u64> = stderr
        .lines()
        .filter_map(|line| line.strip_prefix("Completed "))
        .map(|rest| rest.trim_end_matches(" requests").parse().unwrap())
        .collect();
    assert_eq!(counts.len(), 10, "{stderr}");
    assert!(counts.windows(2).all(|pair| pair[0] <= pair[1]), "{stderr}");
    assert!(
        stderr.lines().last().unwrap().starts_with("Finished "),
        "{stderr}"
    );
}

#[test]
fn a_rate_paces_the_run() {
    let stdout = check(&case("rate", FAST, "-k -c 2 -n 30 --rate 300"));
    let taken: f64 = field(&stdout, "Time taken for tests")
        .unwrap()
        .trim_end_matches(" seconds")
        .parse()
        .unwrap();
    // 30 requests at 300 a second: the last leaves at 97 ms.
    assert!(taken >= 0.09, "{stdout}");
    assert!(stdout.contains("corrected  uncorrected"), "{stdout}");
    assert!(
        field(&stdout, "Target rate").is_some_and(|v| v.starts_with("300.00")),
        "{stdout}"
    );
}

/// `--rate A..B`: the offered rate rises second by second as the ramp says, the requests sent
/// follow it, and each second has its corrected p50 and p99, in the JSON and in `--series`.
#[test]
fn a_ramp_rises_second_by_second() {
    let server = TestServer::start(FAST);
    let (json_path, series_path) = (temp("ramp.json"), temp("ramp.csv"));
    let output = loadgen(&[
        "-q",
        "-k",
        "-c",
        "8",
        "--rate",
        "500..4000",
        "--duration",
        "3s",
        "--json",
        json_path.to_str().unwrap(),
        "--series",
        series_path.to_str().unwrap(),
        &server.url(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(
        field(&stdout, "Target rate")
            .is_some_and(|v| v.starts_with("500.00..4000.00 [#/sec] (a linear ramp)")),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let seconds = json["seconds"].as_array().unwrap();
    // The mean rate of each second of a ramp from 500 to 4000 over 3 s.
    let expected = [1083.33, 2250.0, 3416.67];
    assert_eq!(seconds.len(), expected.len(), "{json}");
    let mut previous = 0.0;
    for (second, offered) in seconds.iter().zip(expected) {
        let rate = second["offered_rate"].as_f64().unwrap();
        assert!((rate - offered).abs() < 0.01, "{second}");
        // Sent at the ramp's pace: each second more than the one before, near what was offered.
        let requests = second["requests"].as_f64().unwrap();
        assert!(requests > previous, "{second} after {previous}");
        assert!((requests - offered).abs() < 0.25 * offered, "{second}");
        previous = requests;
        assert!(second["corrected_p99_us"].as_u64().is_some(), "{second}");
        assert!(
            second["corrected_p50_us"].as_u64() <= second["corrected_p99_us"].as_u64(),
            "{second}"
        );
    }
    let series = std::fs::read_to_string(&series_path).unwrap();
    let lines: Vec<&str> = series.lines().collect();
    assert_eq!(
        lines[0],
        "second,requests,errors,offered_rate,corrected_p50_us,corrected_p99_us"
    );
    assert_eq!(lines.len(), 4, "{series}");
    assert!(
        lines[3].starts_with("2,") && lines[3].contains(",3416.7,"),
        "{series}"
    );
    // Whether the client kept up is the machine's business (other tests run beside this one),
    // but the JSON says it either way.
    assert!(
        json["client_saturation"]["saturated"].is_boolean(),
        "{json}"
    );
}

pub(crate) fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("loadgen-it-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn files_csv_gnuplot_json_and_merge() {
    let server = TestServer::start(FAST);
    let (csv, tsv, json_a, json_b) = (temp("p.csv"), temp("g.tsv"), temp("a.json"), temp("b.json"));
    let body = temp("body.txt");
    std::fs::write(&body, "a body").unwrap();
    let url = server.url();
    let run = |json: &PathBuf| {
        let output = loadgen(&[
            "-k",
            "-c",
            "2",
            "-n",
            "50",
            "-p",
            body.to_str().unwrap(),
            "-T",
            "text/plain",
            "-e",
            csv.to_str().unwrap(),
            "-g",
            tsv.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            &url,
        ]);
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let stdout = run(&json_a);
    run(&json_b);
    assert_eq!(
        field(&stdout, "Total body sent").map(|v| v.parse::<u64>().is_ok()),
        Some(true)
    );
    assert!(stdout.contains(" kb/s sent\n"), "{stdout}");

    let csv = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 102);
    assert_eq!(lines[0], "Percentage served,Time in ms");
    assert!(lines[1].starts_with("0,") && lines[101].starts_with("100,"));

    let tsv = std::fs::read_to_string(&tsv).unwrap();
    let rows: Vec<&str> = tsv.lines().collect();
    assert_eq!(rows[0], "starttime\tseconds\tctime\tdtime\tttime\twait");
    assert_eq!(rows.len(), 51);
    assert_eq!(rows[1].split('\t').count(), 6);

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_a).unwrap()).unwrap();
    assert_eq!(json["counters"]["complete"], 50);
    assert_eq!(json["summary"]["document_length"], BODY.len());
    assert_eq!(json["status_codes"]["200"], 50);
    assert!(json["latency_us"]["p99"].as_u64().is_some());
    assert_eq!(json["format"], 2);
    assert_eq!(json["run"]["settings"]["load"]["n_requests"], 50);
    assert_eq!(
        json["run"]["settings"]["request"]["content_type"],
        "text/plain"
    );
    assert_eq!(json["run"]["settings"]["request"]["method"], "POST");
    assert_eq!(json["run"]["concurrency"], 2);
    let per_second: u64 = json["seconds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["requests"].as_u64().unwrap())
        .sum();
    assert_eq!(per_second, 50);

    let merged = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(["merge", json_a.to_str().unwrap(), json_b.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(merged.status.success(), "{merged:?}");
    let merged = String::from_utf8(merged.stdout).unwrap();
    assert_eq!(field(&merged, "Complete requests"), Some("100"), "{merged}");
    assert_eq!(field(&merged, "Concurrency Level"), Some("4"), "{merged}");
    assert!(merged.contains("  [200] 100 responses"), "{merged}");
    assert!(
        merged.contains("Percentage of the requests served"),
        "{merged}"
    );
}

#[test]
fn quiet_means_no_progress_lines() {
    let server = TestServer::start(FAST);
    let output = loadgen(&["-q", "-k", "-n", "200", &server.url()]);
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("(be patient)...") && stdout.contains("..done\n"),
        "{stdout}"
    );
}

#[test]
fn html_output() {
    let stdout = check(&case("html", FAST, "-w -k -n 5"));
    assert!(stdout.contains("<table >"), "{stdout}");
    assert!(stdout.contains("<tr ><th colspan=2 bgcolor=white>Complete requests:</th><td colspan=2 bgcolor=white>5</td></tr>"), "{stdout}");
    assert!(stdout.ends_with("</table>\n"), "{stdout}");
}

#[test]
fn bad_files_and_hosts_are_clear_errors() {
    let output = loadgen(&["-p", "/nonexistent/post.xml", "http://127.0.0.1:1/x"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Invalid postfile name (/nonexistent/post.xml)"),
        "{stderr}"
    );
    // Nothing listens: a connect failure over TLS too, counted as ab counts it.
    let url = format!("https://127.0.0.1:{}/x", refused_port());
    let output = loadgen(&[url.as_str()]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("   (Connect: 1, Receive: 0"), "{stdout}");
}

#[test]
fn a_reader_that_goes_ends_loadgen_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // 200 requests of a millisecond each: the report comes well after the banner is read.
    let server = TestServer::start(Behaviour::Delay(Duration::from_millis(1)));
    let mut child = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(["-n", "200", &server.url()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run loadgen");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The pipe's reader is gone (as `loadgen ... | head -1` leaves it).
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(first.starts_with("This is loadgen"), "{first}");
    assert_eq!(output.status.code(), Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn ctrl_c_prints_the_partial_report() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let server = TestServer::start(FAST);
    let mut child = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(["-k", "-c", "2", "-n", "1500000", &server.url()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first progress line says the run is under way; then Ctrl-C.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.starts_with("Completed "), "{line}");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let complete = complete_requests(&stdout);
    assert!(complete >= 150_000, "{stdout}");
    assert!(
        stdout.contains("Percentage of the requests served"),
        "{stdout}"
    );
}

/// Servers that attack the client: each failure is counted under its cause, the run ends within
/// its limits, the partial report is printed, and loadgen's memory stays bounded.
#[test]
fn hostile_servers_are_counted_and_survived() {
    let big_body = temp("big-body.xml");
    std::fs::write(&big_body, vec![b'x'; 8 * 1024 * 1024]).unwrap();
    let big_body_arg: &'static str =
        format!("-k -n 2 --timeout 500ms -p {}", big_body.display()).leak();
    let cases = [
        // The server resets 3 requests in 4: before a byte of the answer, after its head, in
        // mid-body. A reset before any byte on a reused keep-alive connection is the race of a
        // server closing an idle connection, and is sent again on a new one (7 times here);
        // every other reset is a receive failure.
        Case {
            lines: &[
                "Complete requests:      7",
                "Failed requests:        13",
                "   (Connect: 0, Receive: 13, Length: 0, Exceptions: 0)",
            ],
            server_requests: Some(27),
            ..case(
                "resets at random points, with -r",
                Behaviour::ResetAtRandom,
                "-r -k -n 20",
            )
        },
        Case {
            exit_code: 104,
            stderr: &["apr_socket_recv: Connection reset by peer (104)"],
            lines: &["Failed requests:        1"],
            ..case(
                "resets, without -r: ab's abort",
                Behaviour::ResetAtRandom,
                "-k -n 20",
            )
        },
        Case {
            lines: &[
                "Complete requests:      0",
                "Failed requests:        3",
                "Failures by cause:      connect 0, receive 0, length 0, exceptions 0, write 0, timeout 3, status 0, body 0",
            ],
            ..case(
                "a short body, then a stall, and --timeout",
                Behaviour::ShortBodyThenStall,
                "-k -n 3 --timeout 300ms",
            )
        },
        Case {
            exit_code: 119,
            stderr: &["apr_pollset_poll: The timeout specified has expired (70007)"],
            ..case(
                "a short body, then a stall, and -s",
                Behaviour::ShortBodyThenStall,
                "-k -n 3 -s 0.5",
            )
        },
        Case {
            lines: &[
                "Failed requests:        2",
                "Failures by cause:      connect 0, receive 0, length 0, exceptions 0, write 0, timeout 2, status 0, body 0",
            ],
            ..case(
                "an endless chunked body and --timeout",
                Behaviour::EndlessChunked,
                "-k -n 2 --timeout 500ms",
            )
        },
        Case {
            lines: &["Complete requests:      0", "Failed requests:        0"],
            ..case(
                "an endless chunked body and -t",
                Behaviour::EndlessChunked,
                "-q -k -t 1",
            )
        },
        Case {
            lines: &[
                "Failed requests:        2",
                "Failures by cause:      connect 0, receive 0, length 0, exceptions 0, write 0, timeout 2, status 0, body 0",
            ],
            ..case(
                "endless 100 Continue and --timeout",
                Behaviour::EndlessInterim,
                "-k -n 2 --timeout 500ms",
            )
        },
        Case {
            lines: &[
                "Failed requests:        2",
                "   (Connect: 0, Receive: 0, Length: 0, Exceptions: 2)",
            ],
            ..case("a 100 MB head", Behaviour::HugeHead, "-k -n 2")
        },
        Case {
            lines: &[
                "Failed requests:        3",
                "Failures by cause:      connect 0, receive 0, length 0, exceptions 0, write 0, timeout 3, status 0, body 0",
            ],
            ..case(
                "a drip of a byte per 100 ms and --timeout",
                Behaviour::Drip,
                "-k -n 3 --timeout 500ms",
            )
        },
        Case {
            lines: &["Complete requests:      0"],
            ..case("a drip and -t", Behaviour::Drip, "-q -k -c 2 -t 1")
        },
        Case {
            lines: &[
                "Failed requests:        2",
                "Failures by cause:      connect 0, receive 0, length 0, exceptions 0, write 0, timeout 2, status 0, body 0",
            ],
            ..case(
                "a server that never reads an 8 MB body",
                Behaviour::NeverReads,
                big_body_arg,
            )
        },
    ];
    check_each_within(&cases, Duration::from_secs(20));
}

/// loadgen's peak memory stays small against servers that send without end: it keeps no body
/// and at most 64 KiB of a head.
#[test]
fn endless_answers_do_not_grow_loadgen() {
    for (behaviour, args) in [
        (Behaviour::EndlessChunked, "-q -k -c 4 -t 2"),
        (Behaviour::EndlessInterim, "-q -k -c 4 -t 2"),
        (Behaviour::HugeHead, "-q -k -c 4 -t 2"),
    ] {
        let server = TestServer::start(behaviour);
        let url = server.url();
        let mut child = Command::new(env!("CARGO_BIN_EXE_loadgen"))
            .args(args.split_whitespace())
            .arg(&url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Sampled while it runs: the kernel's peak (VmHWM) is read just before the end.
        let mut peak_kb = 0u64;
        while child.try_wait().unwrap().is_none() {
            if let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
                let hwm = status
                    .lines()
                    .find_map(|line| line.strip_prefix("VmHWM:"))
                    .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok());
                peak_kb = peak_kb.max(hwm.unwrap_or(0));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            (1..64 * 1024).contains(&peak_kb),
            "{behaviour:?}: loadgen peaked at {peak_kb} kB"
        );
    }
}
