//! The helpers every tool shares: durations and what a bare number means to each option, the
//! median, and the listening line written and read back.

use std::time::Duration;

use host::duration::{Bare, parse, parse_bare};
use host::listening::{self, Listening};
use host::median::{median, median_of};

/// One set of units for every duration of the workspace (loadgen's `--duration`, `--warmup`,
/// `--timeout`, `--start-at now+D`, the suite's, the server's limits, wsperf's times), and a
/// bare number in each option's own unit.
#[test]
fn durations_take_one_set_of_units() {
    let ms = Duration::from_millis;
    let refused = Bare::Refused("--warmup-calls counts calls");
    let cases: &[(&str, Bare, Option<Duration>)] = &[
        ("30s", Bare::Seconds, Some(Duration::from_secs(30))),
        ("500ms", Bare::Seconds, Some(ms(500))),
        ("250us", Bare::Seconds, Some(Duration::from_micros(250))),
        ("2m", Bare::Seconds, Some(Duration::from_secs(120))),
        ("1h", Bare::Seconds, Some(Duration::from_secs(3600))),
        ("1.5", Bare::Seconds, Some(ms(1500))),
        ("0", Bare::Seconds, Some(Duration::ZERO)),
        (" 2s ", Bare::Seconds, Some(Duration::from_secs(2))),
        ("-1s", Bare::Seconds, None),
        ("5x", Bare::Seconds, None),
        ("s", Bare::Seconds, None),
        ("", Bare::Seconds, None),
        ("inf", Bare::Seconds, None),
        ("1e30h", Bare::Seconds, None),
        ("1000", Bare::Millis, Some(ms(1000))),
        ("2s", Bare::Millis, Some(ms(2000))),
        ("-5", Bare::Millis, None),
        ("200ms", refused, Some(ms(200))),
        ("1s", refused, Some(ms(1000))),
        ("100", refused, None),
        ("x", refused, None),
    ];
    for &(text, bare, expected) in cases {
        assert_eq!(parse_bare(text, bare).ok(), expected, "{text:?} {bare:?}");
    }
    assert_eq!(parse("1.5").ok(), Some(ms(1500)));
}

/// Each error says what the option takes; a refused bare number names the option to use.
#[test]
fn a_bad_duration_says_what_was_expected() {
    let cases: &[(&str, Bare, &str)] = &[
        (
            "5x",
            Bare::Seconds,
            "\"5x\": expected a duration such as 30s",
        ),
        ("5x", Bare::Millis, "bare number of milliseconds"),
        (
            "100",
            Bare::Refused("--warmup-calls counts calls"),
            "\"100\": a duration needs its unit (200ms, 2s); --warmup-calls counts calls",
        ),
    ];
    for &(text, bare, expected) in cases {
        let error = parse_bare(text, bare).unwrap_err().to_string();
        assert!(error.contains(expected), "{text:?}: {error}");
    }
}

#[test]
fn medians_average_the_middle_pair_of_an_even_count() {
    let cases: &[(&[u64], Option<u64>)] = &[
        (&[], None),
        (&[7], Some(7)),
        (&[1, 3], Some(2)),
        (&[1, 2, 10], Some(2)),
        (&[1, 2, 4, 10], Some(3)),
        // Integers round down, as ab's arithmetic.
        (&[1, 2], Some(1)),
        (&[u64::MAX - 1, u64::MAX], Some(u64::MAX - 1)),
    ];
    for (values, expected) in cases {
        assert_eq!(median(values), *expected, "{values:?}");
    }
    let floats: &[(&[f64], Option<f64>)] = &[
        (&[], None),
        (&[1.5], Some(1.5)),
        (&[1.0, 2.0], Some(1.5)),
        (&[1.0, 2.0, 9.0], Some(2.0)),
    ];
    for (values, expected) in floats {
        assert_eq!(median(values), *expected, "{values:?}");
        // In any order.
        let reversed: Vec<f64> = values.iter().rev().copied().collect();
        assert_eq!(median_of(reversed), *expected, "{values:?} reversed");
    }
}

/// What a listening line reads as: name, URL, address, and whether the URL is HTTP.
type Read<'a> = Option<(&'a str, &'a str, &'a str, bool)>;

/// Every server's line, as it prints it, read back; other lines are not listening lines.
#[test]
fn listening_lines_read_back() {
    let server = format!(
        "{} (1 threads, binding streaming); try: ab -k ...",
        listening::line("wstest-server", "http://127.0.0.1:8082/WSTest")
    );
    let cases: &[(&str, Read)] = &[
        (
            &server,
            Some((
                "wstest-server",
                "http://127.0.0.1:8082/WSTest",
                "127.0.0.1:8082",
                true,
            )),
        ),
        (
            "ceiling listening on https://127.0.0.1:9/WSTest",
            Some(("ceiling", "https://127.0.0.1:9/WSTest", "127.0.0.1:9", true)),
        ),
        (
            "wsperf relay listening on 127.0.0.1:7300",
            Some(("wsperf relay", "127.0.0.1:7300", "127.0.0.1:7300", false)),
        ),
        (
            "Go stack listening on http://[::1]:80/, pid 7",
            Some(("Go stack", "http://[::1]:80/", "[::1]:80", true)),
        ),
        (
            "listening on http://x:1/",
            Some(("", "http://x:1/", "x:1", true)),
        ),
        ("still glistening on http://x:1/", None),
        ("wstest-server listening on ", None),
        ("starting", None),
    ];
    for &(line, expected) in cases {
        let read = Listening::parse(line).map(|listening| {
            (
                listening.name,
                listening.url,
                listening.addr(),
                listening.is_http(),
            )
        });
        assert_eq!(read, expected, "{line:?}");
    }
}

/// The metrics endpoint answers a scrape while idle, dripping and never-reading connections
/// hold as many places as they like: it serves each connection on its own, and a newcomer past
/// the bound closes the oldest. Each scrape here must be whole within 1.5 s, less than the 2 s
/// a connection is given for its head: served one at a time, it waited behind each holder.
#[test]
fn scrapes_are_answered_whatever_other_connections_do() {
    use std::io::{Read as _, Write as _};
    use std::net::TcpStream;

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    host::prometheus::serve(
        listener,
        "test-metrics",
        std::sync::Arc::new(|| "up 1\n".to_owned()),
    )
    .unwrap();
    let scrape = || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(1500)))
            .unwrap();
        stream
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("a whole answer within 1.5 s");
        answer
    };
    assert!(scrape().ends_with("\r\n\r\nup 1\n"));
    // Idle connections, ten times the bound.
    let idle: Vec<TcpStream> = (0..host::prometheus::MAX_SCRAPE_CONNECTIONS * 10)
        .map(|_| TcpStream::connect(addr).unwrap())
        .collect();
    // Connections that drip a head, a byte at a time, without end.
    let mut drippers: Vec<TcpStream> = (0..10).map(|_| TcpStream::connect(addr).unwrap()).collect();
    for round in 0..5 {
        for dripper in &mut drippers {
            let _ = dripper.write_all(b"G");
        }
        let answer = scrape();
        assert!(
            answer.starts_with("HTTP/1.1 200 OK\r\n"),
            "round {round}: {answer}"
        );
        assert!(answer.ends_with("up 1\n"), "round {round}: {answer}");
    }
    // Anything but GET /metrics: 404, also while the others hold on.
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    drop(idle);
}
