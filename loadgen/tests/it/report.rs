//! The report's text from fixed samples: ab's block, loadgen's section, `-e` and `-g`, compared
//! with files under `tests/it/expect/`. `UPDATE_EXPECT=1 cargo test -p loadgen` rewrites them.

use std::path::Path;

use host::median::median;
use loadgen::cli::{Invocation, parse};
use loadgen::options::Display;
use loadgen::pace::Rate;
use loadgen::report::{self, RunInfo};
use loadgen::stats::{Counters, Results, Sample, Table, ThreadStats, round_ms};

#[track_caller]
fn check(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/expect")
        .join(name);
    testkit::check_expected(&path, actual);
}

fn info(rate: Option<Rate>) -> RunInfo {
    let command_line = "-k -c 3 -n 7 -p body.xml http://127.0.0.1:8082/WSTest";
    let args: Vec<String> = command_line.split(' ').map(str::to_owned).collect();
    let Ok(Invocation::Run(options)) = parse(&args) else {
        panic!("{command_line} is a run");
    };
    RunInfo {
        settings: options.settings(),
        concurrency: 3,
        n_threads: 1,
        rate,
    }
}

/// Seven requests, two on new connections, one slow: enough for every line and a warning.
fn results() -> Results {
    let mut stats = ThreadStats::new(1000);
    let samples = [
        (0, 310, 820, 1_450),
        (0, 290, 700, 1_300),
        (0, 0, 610, 950),
        (0, 0, 640, 990),
        (1, 0, 15_200, 15_600),
        (1, 0, 580, 1_010),
        (1, 0, 660, 1_120),
    ];
    for (start_s, connect_us, wait_us, total_us) in samples {
        stats.record(
            Sample {
                start_s,
                connect_us,
                wait_us,
                total_us,
            },
            Some(u64::from(total_us) + 400),
        );
        stats.status(200);
    }
    stats.last_activity_us = 1_234_567;
    let mut results = Results::merge(vec![stats]);
    results.counters = Counters {
        complete: 7,
        failed: 2,
        length_errors: 1,
        exceptions: 1,
        non_2xx: 1,
        keep_alive_requests: 7,
        bytes_received: 7 * 1_203,
        body_bytes_received: 7 * 981,
        bytes_sent: 7 * 1_500,
        ..Counters::default()
    };
    results.server_software = "test-server/1.0".to_owned();
    results.document_length = 981;
    results
}

#[test]
fn ab_text_report() {
    let mut results = results();
    let table = Table::from_samples(&mut results.samples);
    let display = Display {
        confidence: true,
        percentiles: true,
        ..Display::default()
    };
    let mut text = report::ab_text(&info(None), &results, Some(&table), &display);
    text.push_str(&report::extended(&info(None), &results, Some(&table)));
    check("report.txt", &text);
    let terse = Display {
        confidence: false,
        percentiles: false,
        ..Display::default()
    };
    check(
        "report-S-d.txt",
        &report::ab_text(&info(None), &results, Some(&table), &terse),
    );
    check(
        "report-rate.txt",
        &report::extended(&info(Some(Rate::Fixed(1000.0))), &results, Some(&table)),
    );
    let html = Display {
        html: true,
        cell_attributes: "bgcolor=white".to_owned(),
        ..Display::default()
    };
    check(
        "report.html",
        &report::ab_html(&info(None), &results, Some(&table), &html),
    );
    check("percentiles.csv", &report::csv(&table));
    check(
        "gnuplot.tsv",
        &report::gnuplot(&results.samples, 1_796_212_756),
    );
}

#[test]
fn ab_rounds_and_dates_as_ab_does() {
    let roundings: &[(u64, u64)] = &[(0, 0), (499, 0), (500, 1), (1_499, 1), (1_500, 2)];
    for (us, ms) in roundings {
        assert_eq!(round_ms(*us), *ms, "{us} µs");
    }
    assert_eq!(
        loadgen::clock::ctime(1_796_212_756),
        "Wed Dec 02 11:59:16 2026"
    );
    assert_eq!(loadgen::clock::ctime(0), "Thu Jan 01 00:00:00 1970");
}

#[test]
fn rows_match_sorted_values_whatever_the_order() {
    // Rows other than the total take their median by selection, not by sorting: the same
    // figures as sorting each column, for odd and even counts and many ties.
    let sorted_row = |mut values: Vec<u64>| {
        values.sort_unstable();
        let n = values.len() as u64;
        let mean = values.iter().sum::<u64>() / n;
        (
            values[0],
            mean,
            median(&values).unwrap(),
            values[values.len() - 1],
        )
    };
    let mut rng = testkit::Rng(0x5eed);
    for (n, spread) in [
        (1, 10),
        (2, 10),
        (3, 3),
        (4, 1),
        (9, 1_000),
        (10, 2),
        (1_001, 50_000),
    ] {
        let mut samples: Vec<Sample> = (0..n)
            .map(|_| {
                let connect_us = rng.below(spread) as u32;
                Sample {
                    start_s: 0,
                    connect_us,
                    wait_us: rng.below(spread) as u32,
                    total_us: connect_us + rng.below(spread) as u32,
                }
            })
            .collect();
        let column = |value: fn(&Sample) -> u64| samples.iter().map(value).collect::<Vec<u64>>();
        let connect = sorted_row(column(|s| u64::from(s.connect_us)));
        let processing = sorted_row(column(|s| u64::from(s.total_us - s.connect_us)));
        let waiting = sorted_row(column(|s| u64::from(s.wait_us)));
        let total = sorted_row(column(|s| u64::from(s.total_us)));
        let table = Table::from_samples(&mut samples);
        let got = |row: &loadgen::stats::Row| (row.min, row.mean, row.median, row.max);
        assert_eq!(got(&table.connect), connect, "connect, {n} samples");
        assert_eq!(
            got(&table.processing),
            processing,
            "processing, {n} samples"
        );
        assert_eq!(got(&table.waiting), waiting, "waiting, {n} samples");
        assert_eq!(got(&table.total), total, "total, {n} samples");
    }
}

/// The report's one line on a saturated client: late sends with a connection free (under
/// `--rate`) past 1%, or an event loop busy past 95%, or both; nothing otherwise.
#[test]
fn a_saturated_client_is_said_in_one_line() {
    // (paced, late with a connection free, of complete, busiest loop, the line's causes)
    let cases: &[(bool, u64, u64, f64, Option<&str>)] = &[
        (true, 0, 1000, 0.5, None),
        (true, 10, 1000, 0.5, None),
        (
            true,
            11,
            1000,
            0.5,
            Some(
                "1.1% of requests left more than 1 ms after their scheduled time with a connection free",
            ),
        ),
        (false, 500, 1000, 0.95, None),
        (
            false,
            0,
            1000,
            0.97,
            Some("an event loop was busy 97% of the time"),
        ),
        (
            true,
            50,
            1000,
            0.99,
            Some(
                "5.0% of requests left more than 1 ms after their scheduled time with a connection free, and an event loop was busy 99% of the time",
            ),
        ),
    ];
    for &(paced, late_client, complete, busiest, expected) in cases {
        let mut results = results();
        results.counters.late_client = late_client;
        results.counters.late = late_client;
        results.counters.complete = complete;
        results.counters.failed = 0;
        results.busiest_thread = busiest;
        let rate = paced.then_some(Rate::Fixed(1000.0));
        let text = report::extended(&info(rate), &results, None);
        let line = text
            .lines()
            .find(|line| line.starts_with("client saturated: "));
        match expected {
            Some(causes) => assert_eq!(
                line,
                Some(format!("client saturated: {causes}; the figures may be the client's limit, not the server's").as_str()),
                "{text}"
            ),
            None => assert_eq!(line, None, "{text}"),
        }
    }
}

/// Kinds named by a results file (`loadgen merge` reads any): a name of 70,000 characters, and
/// one with terminal escapes, are shown without a panic (a width past 65,535 was one, and the
/// report was lost), the escapes escaped.
#[test]
fn any_kind_name_is_shown_and_escaped() {
    let mut results = results();
    let long = "n".repeat(70_000);
    for name in [long.as_str(), "a\u{1b}[2Jb\r\n"] {
        results.kinds.push(loadgen::stats::KindResults {
            name: name.to_owned(),
            weight: 1,
            document_length: 981,
            stats: loadgen::stats::KindStats::default(),
        });
    }
    let table = Table::from_samples(&mut results.samples);
    let text = report::extended(&info(None), &results, Some(&table));
    assert!(text.contains(&long), "the long name is shown whole");
    assert!(text.contains(r"a\u{1b}[2Jb\r\n"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
}
