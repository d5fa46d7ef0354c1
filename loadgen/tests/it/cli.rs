//! ab's command line, quirks included, mapped to typed options; merge's command line; the one
//! duration parser every option uses.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use loadgen::cli::{Invocation, MergeOptions, UsageError, parse, parse_merge};
use loadgen::options::{ClientTls, Header, JsonOut, Options, Verify, Versions};
use loadgen::pace::Rate;
use loadgen::shard::Shard;
use loadgen::url::{Authority, Scheme, Url};

fn args(command_line: &str) -> Vec<String> {
    command_line
        .split(' ')
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The options of a command line that runs.
#[track_caller]
fn options(command_line: &str) -> Options {
    match parse(&args(command_line)) {
        Ok(Invocation::Run(options)) => *options,
        other => panic!("{command_line}: {other:?}"),
    }
}

/// The options of `ab http://127.0.0.1:8082/WSTest` with nothing else.
fn defaults() -> Options {
    options(URL)
}

#[track_caller]
fn check(command_line: &str, expected: impl FnOnce(&mut Options)) {
    let mut options = defaults();
    expected(&mut options);
    assert_eq!(
        parse(&args(command_line)),
        Ok(Invocation::Run(Box::new(options))),
        "{command_line}"
    );
}

#[track_caller]
fn check_error(command_line: &str, message: &str, exit_code: i32) {
    let expected = UsageError {
        message: message.to_owned(),
        exit_code,
    };
    assert_eq!(parse(&args(command_line)), Err(expected), "{command_line}");
}

const URL: &str = "http://127.0.0.1:8082/WSTest";
const HTTPS: &str = "https://localhost:8443/WSTest";

fn header(name: &str, raw_value: &str) -> Header {
    Header {
        name: name.into(),
        raw_value: raw_value.into(),
    }
}

#[test]
fn defaults_are_abs() {
    let options = defaults();
    assert_eq!(
        options.target.url,
        Url {
            scheme: Scheme::Http,
            host: "127.0.0.1".into(),
            port: 8082,
            path: "/WSTest".into()
        }
    );
    assert_eq!(options.load.n_requests, Some(1));
    assert_eq!(options.load.concurrency, 1);
    assert_eq!(options.checks.stall_timeout, Duration::from_secs(30));
    assert_eq!(options.request.content_type, "text/plain");
    assert_eq!(options.request.method, http::Method::GET);
    assert!(options.output.display.confidence && options.output.display.percentiles);
    assert_eq!(options.output.display.cell_attributes, "bgcolor=white");
}

#[test]
fn command_lines_map_to_options() {
    check(
        &format!("-k -c30 -n500000 -p post_files/getorder20.xml -T text/xml {URL}"),
        |o| {
            o.request.keep_alive = true;
            o.load.concurrency = 30;
            o.load.n_requests = Some(500_000);
            o.request.method = http::Method::POST;
            o.request.body_file = Some("post_files/getorder20.xml".into());
            o.request.content_type = "text/xml".into();
        },
    );
    check(&format!("-kq -n 10 {URL}"), |o| {
        o.request.keep_alive = true;
        o.output.quiet = true;
        o.load.n_requests = Some(10);
    });
    check(&format!("-n10 -c 10 -dSlr {URL}"), |o| {
        o.load.n_requests = Some(10);
        o.load.concurrency = 10;
        o.output.display.percentiles = false;
        o.output.display.confidence = false;
        o.checks.variable_length = true;
        o.checks.continue_on_receive_errors = true;
    });
    check(
        &format!("-H SOAPAction:x -H X-Other:y -C a=1 -C b=2 {URL}"),
        |o| {
            o.request.headers = vec![header("SOAPAction", "x"), header("X-Other", "y")];
            // ab keeps only the last cookie.
            o.request.cookie = Some("b=2".into());
        },
    );
    // -t alone: a time limit and no cap on the count (ab would stop at 50,000).
    check(&format!("-t 5 {URL}"), |o| {
        o.load.ab_time_limit = Some(Duration::from_secs(5));
        o.load.n_requests = None;
    });
    // -t then -n: both hold, as in ab.
    check(&format!("-t 1 -n 10 {URL}"), |o| {
        o.load.ab_time_limit = Some(Duration::from_secs(1));
        o.load.n_requests = Some(10);
    });
    // -n then -t: -t forgets the count, as in ab (which then caps at 50,000; loadgen does not).
    check(&format!("-n 10 -t 1 {URL}"), |o| {
        o.load.ab_time_limit = Some(Duration::from_secs(1));
        o.load.n_requests = None;
    });
    check(&format!("-s 2.5 -v 2 -i {URL}"), |o| {
        o.checks.stall_timeout = Duration::from_millis(2500);
        o.output.verbosity = 2;
        o.request.method = http::Method::HEAD;
    });
    check(&format!("-u body.xml -m PATCH {URL}"), |o| {
        o.request.body_file = Some("body.xml".into());
        o.request.method = http::Method::PATCH;
    });
    check(&format!("-x border=1 -g plot.tsv -e pct.csv {URL}"), |o| {
        o.output.display.html = true;
        o.output.display.table_attributes = "border=1".into();
        o.output.gnuplot_file = Some("plot.tsv".into());
        o.output.csv_file = Some("pct.csv".into());
    });
    check(
        &format!("-A user:pw -P proxy:pw -X proxy:3128 -B 127.0.0.2 -b 65536 {URL}"),
        |o| {
            o.request.basic_auth = Some("user:pw".into());
            o.request.proxy_auth = Some("proxy:pw".into());
            o.target.proxy = Some(Authority {
                host: "proxy".into(),
                port: 3128,
            });
            o.target.bind_address = Some("127.0.0.2".into());
            o.target.socket_buffer = Some(65536);
        },
    );
    check(
        &format!(
            "--threads 2 --rate 5000 --duration 30s --warmup 500ms --timeout 2 --json run.json --expect-status 200 --reject-body Fault> --http1.0 {URL}"
        ),
        |o| {
            o.load.n_threads = Some(2);
            o.load.rate = Some(Rate::Fixed(5000.0));
            o.load.duration = Some(Duration::from_secs(30));
            // --duration without -n: as many requests as the time allows.
            o.load.n_requests = None;
            o.load.warmup = Some(Duration::from_millis(500));
            o.checks.request_timeout = Some(Duration::from_secs(2));
            o.output.json = Some(JsonOut::File("run.json".into()));
            o.checks.expect_status = Some(http::StatusCode::OK);
            o.checks.reject_body = Some("Fault>".into());
            o.request.http10 = true;
        },
    );
    check(
        &format!("--rate 1000..20000 --duration 4s --series s.csv {URL}"),
        |o| {
            o.load.rate = Some(Rate::Ramp {
                from: 1000.0,
                to: 20000.0,
            });
            o.load.duration = Some(Duration::from_secs(4));
            o.load.n_requests = None;
            o.output.series_file = Some("s.csv".into());
        },
    );
    check(
        &format!(
            "-I -f TLS1.2 -Z ecdhe-rsa-aes128-gcm-sha256:TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 -E me.pem --cacert ca.pem --verify --tls-resume --tls-groups prime256v1:x25519 {HTTPS}"
        ),
        |o| {
            o.target.url = Url::parse(HTTPS).unwrap();
            o.target.tls = ClientTls {
                versions: Versions::Tls12,
                // OpenSSL's names, whichever were given.
                cipher_suites: vec![
                    "ECDHE-RSA-AES128-GCM-SHA256".into(),
                    "ECDHE-RSA-AES256-GCM-SHA384".into(),
                ],
                // The first of each group's names.
                groups: vec!["P-256".into(), "X25519".into()],
                sni: false,
                // --verify after --cacert keeps the file.
                verify: Verify::CaFile("ca.pem".into()),
                client_cert: Some("me.pem".into()),
                resume: true,
            };
        },
    );
    check(&format!("--http2 --streams 10 -c 4 -n 100 {HTTPS}"), |o| {
        o.target.url = Url::parse(HTTPS).unwrap();
        o.request.http2 = true;
        o.load.streams = Some(10);
        o.load.concurrency = 4;
        o.load.n_requests = Some(100);
    });
    check(&format!("-Z DEFAULT --verify {HTTPS}"), |o| {
        o.target.url = Url::parse(HTTPS).unwrap();
        o.target.tls.verify = Verify::SystemRoots;
    });
    check(&format!("--json - {URL}"), |o| {
        o.output.json = Some(JsonOut::Stdout);
    });
    // --duration with -n: whichever ends first.
    check(&format!("-n 100 --duration 2s {URL}"), |o| {
        o.load.n_requests = Some(100);
        o.load.duration = Some(Duration::from_secs(2));
    });
    assert_eq!(parse(&args("-V")), Ok(Invocation::Version));
    assert_eq!(parse(&args(&format!("-k -h {URL}"))), Ok(Invocation::Help));
    assert_eq!(parse(&args("-h -V")), Ok(Invocation::Version));
}

#[test]
fn urls_are_read_as_ab_reads_them() {
    for (url, scheme, host, port, path) in [
        (
            "http://example.test/",
            Scheme::Http,
            "example.test",
            80,
            "/",
        ),
        (
            "https://example.test/",
            Scheme::Https,
            "example.test",
            443,
            "/",
        ),
        ("https://[::1]:8443/x", Scheme::Https, "::1", 8443, "/x"),
        (
            "example.test:8080/a/b?c=1",
            Scheme::Http,
            "example.test",
            8080,
            "/a/b?c=1",
        ),
        (
            "http://[::1]:9000/WSTest",
            Scheme::Http,
            "::1",
            9000,
            "/WSTest",
        ),
        ("[::1]/x", Scheme::Http, "::1", 80, "/x"),
    ] {
        let expected = Url {
            scheme,
            host: host.into(),
            port,
            path: path.into(),
        };
        assert_eq!(
            options(&format!("-n 1 {url}")).target.url,
            expected,
            "{url}"
        );
        assert_eq!(Url::parse(url), Ok(expected.clone()), "{url}");
        // What it prints is what it reads.
        assert_eq!(Url::parse(&expected.to_string()), Ok(expected), "{url}");
    }
}

/// merge's command line, read by the same getopt as a run's.
#[test]
fn merge_command_lines() {
    let merge = |line: &str| parse_merge(&args(line));
    assert_eq!(
        merge("a.json -e pct.csv b.json --json -"),
        Ok(MergeOptions {
            json: Some(JsonOut::Stdout),
            csv_file: Some(PathBuf::from("pct.csv")),
            files: vec!["a.json".into(), "b.json".into()],
        })
    );
    assert_eq!(
        merge("--json=all.json a.json").map(|options| options.json),
        Ok(Some(JsonOut::File("all.json".into())))
    );
    for (line, message) in [
        ("", "usage: loadgen merge"),
        ("-g x.tsv a.json", "-g needs each request's times"),
        (
            "--bogus a.json",
            "unknown option --bogus; usage: loadgen merge",
        ),
        ("-q a.json", "unknown option -q; usage: loadgen merge"),
        ("a.json --json", "--json needs a file; usage: loadgen merge"),
        ("a.json -e", "-e needs a file; usage: loadgen merge"),
        (
            "a.json --bogus",
            "unknown option --bogus; usage: loadgen merge",
        ),
        ("-e", "-e needs a file; usage: loadgen merge"),
    ] {
        let error = merge(line).unwrap_err();
        assert!(error.message.contains(message), "{line:?}: {error}");
        assert_eq!(error.exit_code, 22, "{line:?}");
    }
}

#[test]
fn bad_command_lines_are_refused_as_ab_does() {
    check_error(
        &format!("--shard 3/3 {URL}"),
        "loadgen: --shard \"3/3\": expected I/N with 0 <= I < N, such as 0/3",
        22,
    );
    check_error(
        &format!("--shard x {URL}"),
        "loadgen: --shard \"x\": expected I/N with 0 <= I < N, such as 0/3",
        22,
    );
    check_error(
        &format!("-c 2 -n 10 --shard 2/3 {URL}"),
        "loadgen: -c 2 cannot be split into 3 shards: each needs a connection",
        22,
    );
    check_error("", "ab: wrong number of arguments", 22);
    check_error(&format!("{URL} -n 1"), "ab: wrong number of arguments", 22);
    check_error("-n", "ab: option requires an argument -- n", 22);
    check_error(&format!("-Q {URL}"), "ab: illegal option -- Q", 22);
    check_error(&format!("-n 0 {URL}"), "Invalid number of requests", 1);
    check_error(&format!("-n abc {URL}"), "Invalid number of requests", 1);
    check_error(
        &format!("-n 5 -c 10 {URL}"),
        "ab: Cannot use concurrency level greater than total number of requests",
        22,
    );
    check_error(
        &format!("-c 0 -n 5 {URL}"),
        "ab: Invalid Concurrency [Range 0..200000]",
        22,
    );
    check_error(
        &format!("-c 300000 -n 500000 {URL}"),
        "ab: Invalid Concurrency [Range 0..200000]",
        22,
    );
    check_error(
        &format!("-m PATCH -p body.xml {URL}"),
        "ab: Cannot mix POST/PUT with other methods",
        22,
    );
    check_error(
        &format!("-i -p body.xml {URL}"),
        "ab: Cannot mix HEAD with POST/PUT",
        22,
    );
    check_error("http://127.0.0.1", "ab: invalid URL", 22);
    check_error("http://:80/x", "ab: invalid URL", 22);
    check_error(
        &format!("-Z ALL {URL}"),
        "loadgen: -Z is a TLS option, for an https:// URL",
        22,
    );
    check_error(
        &format!("--verify {URL}"),
        "loadgen: --verify is a TLS option, for an https:// URL",
        22,
    );
    check_error(
        &format!("-f TLS1.1 {HTTPS}"),
        "loadgen: -f: TLS1.1 is not offered: SSL 2 and 3 and TLS 1.0 and 1.1 are broken and deprecated (RFC 8996), and rustls implements none of them; use TLS1.2, TLS1.3 or ALL",
        22,
    );
    check_error(
        &format!("-f TLS2 {HTTPS}"),
        "loadgen: -f: TLS2: expected TLS1.2, TLS1.3 or ALL",
        22,
    );
    check_error(
        &format!("-Z ECDHE-RSA-AES128-GCM-SHA256:DES-CBC3-SHA {HTTPS}"),
        "loadgen: -Z: unknown cipher suite \"DES-CBC3-SHA\"; loadgen's (rustls on aws-lc-rs) are TLS_AES_256_GCM_SHA384, TLS_AES_128_GCM_SHA256, TLS_CHACHA20_POLY1305_SHA256, ECDHE-ECDSA-AES256-GCM-SHA384, ECDHE-ECDSA-AES128-GCM-SHA256, ECDHE-ECDSA-CHACHA20-POLY1305, ECDHE-RSA-AES256-GCM-SHA384, ECDHE-RSA-AES128-GCM-SHA256, ECDHE-RSA-CHACHA20-POLY1305",
        22,
    );
    check_error(
        &format!("--streams 4 {URL}"),
        "loadgen: --streams is for --http2 (HTTP/1.1 carries one request at a time)",
        22,
    );
    check_error(
        &format!("--http2 --streams 0 {URL}"),
        "loadgen: --streams \"0\": expected 1 to 10000 streams a connection",
        22,
    );
    check_error(
        &format!("--http2 --http1.0 {URL}"),
        "loadgen: --http2 and --http1.0 ask for two protocols",
        22,
    );
    check_error(
        &format!("--tls-groups x448 {HTTPS}"),
        "loadgen: --tls-groups \"x448\": unknown key exchange group \"x448\"; loadgen's are X25519MLKEM768, X25519, P-256, P-384",
        22,
    );
    check_error(
        &format!("-X proxy:3128 {HTTPS}"),
        "loadgen: -X with an https:// URL: loadgen does not tunnel TLS through a proxy",
        22,
    );
    check_error(
        &format!("-t x {URL}"),
        "ab: -t expects a number of seconds, not \"x\"",
        22,
    );
    check_error(
        &format!("--threads 0 {URL}"),
        "loadgen: --threads \"0\": expected at least one thread",
        22,
    );
    // A rate is R or A..B, each positive; a ramp needs the time it ramps over.
    for rate in ["-5", "0", "fast", "1000..", "..5", "5..0"] {
        check_error(
            &format!("--rate {rate} {URL}"),
            &format!(
                "loadgen: --rate \"{rate}\": expected requests per second (R) or a ramp (A..B), each a positive number"
            ),
            22,
        );
    }
    check_error(
        &format!("-n 1000 --rate 10..20 {URL}"),
        "loadgen: --rate 10.00..20.00 is a ramp, which runs over the measured phase: give its length with --duration or -t",
        22,
    );
    check_error(
        &format!("--duration soon {URL}"),
        "loadgen: --duration \"soon\": expected a duration such as 30s, 500ms, 2m, 1h or 1.5 (seconds)",
        22,
    );
    check_error(
        &format!("--expect-status 42 {URL}"),
        "loadgen: --expect-status \"42\": expected an HTTP status code",
        22,
    );
    check_error(
        &format!("--bogus 1 {URL}"),
        "loadgen: unknown option --bogus",
        22,
    );
    check_error("--json", "loadgen: option --json requires an argument", 22);
    // What the typed options refuse that ab would send as given.
    check_error(
        &format!("-H NoColon {URL}"),
        "loadgen: -H \"NoColon\": expected Name: value",
        22,
    );
    check_error(
        &format!("-H :value {URL}"),
        "loadgen: -H \":value\": the header name \"\" is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)",
        22,
    );
    check_error(
        &format!("-m GE(T {URL}"),
        "loadgen: -m \"GE(T\": not an HTTP method",
        22,
    );
    check_error(
        &format!("-X proxy:port {URL}"),
        "loadgen: -X \"proxy:port\": expected host:port",
        22,
    );
}

/// A header, content type, cookie or URL that would put bytes of its own on the wire (a CR, an
/// LF, a NUL: a line ended early, a field injected) is refused, where ab sends it as written.
#[test]
fn what_would_inject_bytes_is_refused() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-H", "X-A: 1\r\nX-Injected: 1"],
            r#"loadgen: -H "X-A: 1\r\nX-Injected: 1": the value of the header X-A holds '\r', which a header cannot carry"#,
        ),
        (
            &["-H", "X-A: 1\nX-Injected: 1"],
            r#"loadgen: -H "X-A: 1\nX-Injected: 1": the value of the header X-A holds '\n', which a header cannot carry"#,
        ),
        (
            &["-H", "X-A: a\0b"],
            r#"loadgen: -H "X-A: a\0b": the value of the header X-A holds '\0', which a header cannot carry"#,
        ),
        (
            &["-H", "X\rA: 1"],
            r#"loadgen: -H "X\rA: 1": the header name "X\rA" is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"#,
        ),
        (
            &["-T", "text/xml\r\nX-Injected: 1"],
            r#"loadgen: -T: the value of the header Content-type holds '\r', which a header cannot carry"#,
        ),
        (
            &["-C", "a=b\nX-Injected: 1"],
            r#"loadgen: -C: the value of the header Cookie holds '\n', which a header cannot carry"#,
        ),
    ];
    for (before, message) in cases {
        let mut argv: Vec<String> = before.iter().map(|word| (*word).to_owned()).collect();
        argv.push(URL.to_owned());
        let expected = UsageError {
            message: (*message).to_owned(),
            exit_code: 22,
        };
        assert_eq!(parse(&argv), Err(expected), "{before:?}");
    }
    for url in [
        "http://127.0.0.1:8082/a b",
        "http://127.0.0.1:8082/a\rb",
        "http://127.0.0.1:8082/a\nGET /x",
        "http://127.0.0.1:8082/a\0",
        "http://127.0.0.1\r\nX: 1:8082/a",
    ] {
        let expected = UsageError {
            message: "ab: invalid URL: it holds a space or a control character (percent-encode it)"
                .to_owned(),
            exit_code: 22,
        };
        assert_eq!(parse(&[url.to_owned()]), Err(expected), "{url:?}");
    }
    let remote_write = "http://127.0.0.1:9090/api/v1/write\r\nX-Injected: 1";
    let expected = UsageError {
        message: format!(
            "loadgen: --prom-remote-write {remote_write:?}: invalid URL: it holds a space or a control character (percent-encode it)"
        ),
        exit_code: 22,
    };
    assert_eq!(
        parse(&[
            "--prom-remote-write".to_owned(),
            remote_write.to_owned(),
            URL.to_owned()
        ]),
        Err(expected)
    );
}

/// For many tests and shard counts, the shares of -n and -c add up to the whole exactly, no
/// share is empty, and they differ by at most one; the whole test is kept beside the share.
#[test]
fn shards_split_the_test_exactly() {
    for (n, c, n_shards) in [
        (1u64, 1u32, 1u32),
        (10, 3, 3),
        (1000, 30, 4),
        (7, 7, 7),
        (100_001, 16, 16),
        (500_000, 30, 7),
    ] {
        let mut shares = Vec::new();
        for index in 0..n_shards {
            let load = options(&format!(
                "-k -n {n} -c {c} --rate 1000 --shard {index}/{n_shards} {URL}"
            ))
            .load;
            // The whole test as asked, and the share apart from it.
            assert_eq!(
                (load.n_requests, load.concurrency, load.rate, load.shard),
                (
                    Some(n),
                    c,
                    Some(Rate::Fixed(1000.0)),
                    Some(Shard {
                        index,
                        count: n_shards
                    })
                )
            );
            let share = load.share();
            assert_eq!(share.rate, Some(Rate::Fixed(1000.0 / f64::from(n_shards))));
            shares.push((share.n_requests.unwrap(), share.concurrency));
        }
        let what = format!("-n {n} -c {c} in {n_shards}: {shares:?}");
        assert_eq!(shares.iter().map(|s| s.0).sum::<u64>(), n, "{what}");
        assert_eq!(
            shares.iter().map(|s| u64::from(s.1)).sum::<u64>(),
            u64::from(c),
            "{what}"
        );
        assert!(shares.iter().all(|s| s.0 > 0 && s.1 > 0), "{what}");
        let spread = |f: fn(&(u64, u32)) -> u64| {
            shares.iter().map(f).max().unwrap() - shares.iter().map(f).min().unwrap()
        };
        assert!(
            spread(|s| s.0) <= 1 && spread(|s| u64::from(s.1)) <= 1,
            "{what}"
        );
    }
}

/// `--start-at`'s three forms, read at a fixed `now`: the time each means, or why it is refused.
#[test]
fn start_at_takes_rfc3339_unix_seconds_and_now_plus() {
    use loadgen::clock::{StartAtError, parse_start_at};
    use std::time::UNIX_EPOCH;
    let now = UNIX_EPOCH + Duration::from_secs(1_796_378_400); // 2026-12-04T10:00:00Z
    let at = |seconds: f64| UNIX_EPOCH + Duration::from_secs_f64(seconds);
    let cases: &[(&str, Result<SystemTime, StartAtError>)] = &[
        ("2026-12-04T10:00:30Z", Ok(at(1_796_378_430.0))),
        ("2026-12-04T10:00:30.25Z", Ok(at(1_796_378_430.25))),
        ("2026-12-04T11:00:30+01:00", Ok(at(1_796_378_430.0))),
        ("2026-12-04 10:00:30z", Ok(at(1_796_378_430.0))),
        ("1796378430", Ok(at(1_796_378_430.0))),
        ("1796378430.5", Ok(at(1_796_378_430.5))),
        ("now", Ok(now)),
        ("now+30s", Ok(at(1_796_378_430.0))),
        ("now+500ms", Ok(at(1_796_378_400.5))),
        ("now+1h", Ok(at(1_796_382_000.0))),
        // The past is taken: the run starts at once, with a warning.
        ("2026-12-04T09:00:00Z", Ok(at(1_796_374_800.0))),
        ("0", Ok(UNIX_EPOCH)),
        (
            "now+61m",
            Err(StartAtError::TooFar {
                at: at(1_796_382_060.0),
                ahead: Duration::from_secs(3660),
            }),
        ),
        (
            "2026-12-05T10:00:00Z",
            Err(StartAtError::TooFar {
                at: at(1_796_464_800.0),
                ahead: Duration::from_secs(86_400),
            }),
        ),
        ("2026-12-04T10:00:30", Err(StartAtError::Unparsable)),
        ("2026-13-04T10:00:30Z", Err(StartAtError::Unparsable)),
        ("tomorrow", Err(StartAtError::Unparsable)),
        ("now-30s", Err(StartAtError::Unparsable)),
        ("now+", Err(StartAtError::Unparsable)),
        ("1.2.3", Err(StartAtError::Unparsable)),
        ("", Err(StartAtError::Unparsable)),
    ];
    for (text, expected) in cases {
        assert_eq!(&parse_start_at(text, now), expected, "{text:?}");
    }
    assert_eq!(
        StartAtError::TooFar {
            at: at(1_796_464_800.0),
            ahead: Duration::from_secs(86_400)
        }
        .to_string(),
        "2026-12-05T10:00:00.000Z is 24 h 0 min from now, and at most 1 h 0 min ahead is accepted (a mistyped date, or a local time written as UTC?)"
    );
    // On the command line: a usage error naming the option and the forms.
    check_error(
        &format!("--start-at tomorrow {URL}"),
        "loadgen: --start-at \"tomorrow\": expected an RFC 3339 time (2026-12-04T10:00:00Z), Unix seconds (1796378400) or now+30s",
        22,
    );
    let far = parse(&args(&format!("--start-at now+2h {URL}"))).unwrap_err();
    assert_eq!(far.exit_code, 22);
    assert!(far.message.contains("at most 1 h 0 min ahead"), "{far}");
    check(&format!("--start-at 1000000000 {URL}"), |o| {
        o.load.start_at = Some(UNIX_EPOCH + Duration::from_secs(1_000_000_000));
    });
}

/// The one table of options: its letters are ab 2.4's getopt string (built with TLS), each
/// with a value where ab takes one, and GUIDE.md's table of long options is the one it makes.
#[test]
fn the_flag_table_is_ab_s_letters_and_the_guide_s_long_options() {
    use loadgen::cli::flags::{FLAGS, Spelling, guide_table};
    let mut letters: Vec<(u8, bool)> = FLAGS
        .iter()
        .filter_map(|flag| match flag.spelling {
            Spelling::Letter(letter) => Some((letter, flag.value.is_some())),
            Spelling::Long(_) => None,
        })
        .collect();
    letters.sort_unstable();
    let mut ab: Vec<(u8, bool)> = b"nctsbTpuvxyzCHPAgXeBmZfE"
        .iter()
        .map(|&letter| (letter, true))
        .chain(b"lrkVhwidSqI".iter().map(|&letter| (letter, false)))
        .collect();
    ab.sort_unstable();
    assert_eq!(letters, ab);
    for flag in FLAGS {
        let is_long = matches!(flag.spelling, Spelling::Long(_));
        assert_eq!(!flag.guide.is_empty(), is_long, "{}", flag.synopsis());
    }
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../GUIDE.md"))
        .expect("GUIDE.md");
    assert!(
        guide.contains(&guide_table()),
        "GUIDE.md's table of long options is not loadgen/src/cli/flags.rs's; it should read:\n{}",
        guide_table()
    );
}
