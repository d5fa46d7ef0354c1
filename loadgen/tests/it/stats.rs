//! ab's accounting, apart from the engine: what each complete response and each failure adds
//! to the counters, and when a complete response counts as failed.

use loadgen::http::Response;
use loadgen::stats::{Completion, Counters, Failure, Sample, ThreadStats};

/// A 200 with a 100-byte body that passed its body checks.
const OK: Response = Response {
    status: 200,
    head_len: 80,
    body_len: 100,
    keep_alive: true,
    expected_found: true,
    rejected_found: false,
    body_cut: false,
};

/// A name, a response, the Document Length (`None` under `-l`), `--expect-status`, whether it
/// counts as failed, and the counters it leaves.
type Case = (
    &'static str,
    Response,
    Option<u64>,
    Option<u16>,
    bool,
    Counters,
);

/// Counts `response` once and checks the verdict and the counters it leaves.
fn check(
    name: &str,
    response: Response,
    document_length: Option<u64>,
    expect_status: Option<u16>,
    failed: bool,
    expected: Counters,
) {
    let mut stats = ThreadStats::new(10);
    let verdict = stats.count_complete(Completion {
        response: &response,
        bytes_in: 180,
        kept_alive: response.keep_alive,
        document_length,
        expect_status,
        sample: Sample {
            start_s: 2,
            connect_us: 0,
            wait_us: 300,
            total_us: 400,
        },
        corrected_us: None,
        at_us: 2_500_000,
        kind: 0,
        verdict: &Default::default(),
    });
    assert_eq!(verdict, failed, "{name}: failed");
    assert_eq!(stats.counters, expected, "{name}: counters");
    assert_eq!(stats.status_codes.get(&response.status), Some(&1), "{name}");
    assert_eq!(stats.samples.len(), 1, "{name}: the sample is kept");
    assert_eq!(
        stats.histograms.total.len(),
        1,
        "{name}: the histogram has it"
    );
    // The third second of the measured phase, as a request or as an error.
    let second = &stats.seconds[2];
    assert_eq!(
        (second.requests, second.errors),
        (u64::from(!failed), u64::from(failed)),
        "{name}"
    );
    assert_eq!(stats.last_activity_us, 2_500_000, "{name}");
}

#[test]
fn complete_responses_count_as_ab_counts_them() {
    let base = Counters {
        complete: 1,
        bytes_received: 180,
        body_bytes_received: 100,
        keep_alive_requests: 1,
        ..Counters::default()
    };
    let closed = Response {
        keep_alive: false,
        ..OK
    };
    let not_found = Response { status: 404, ..OK };
    let short = Response { body_len: 90, ..OK };
    let missing = Response {
        expected_found: false,
        ..OK
    };
    let rejected = Response {
        rejected_found: true,
        body_cut: false,
        ..OK
    };
    let cases: [Case; 9] = [
        ("ok", OK, Some(100), None, false, base),
        ("ok under -l", OK, None, None, false, base),
        (
            "not kept alive",
            closed,
            Some(100),
            None,
            false,
            Counters {
                keep_alive_requests: 0,
                ..base
            },
        ),
        // ab counts a non-2xx apart, not as a failure.
        (
            "404",
            not_found,
            Some(100),
            None,
            false,
            Counters { non_2xx: 1, ..base },
        ),
        (
            "404 with --expect-status 200",
            not_found,
            Some(100),
            Some(200),
            true,
            Counters {
                non_2xx: 1,
                status_mismatches: 1,
                failed: 1,
                ..base
            },
        ),
        (
            "other length",
            short,
            Some(100),
            None,
            true,
            Counters {
                body_bytes_received: 90,
                length_errors: 1,
                failed: 1,
                ..base
            },
        ),
        (
            "other length under -l",
            short,
            None,
            None,
            false,
            Counters {
                body_bytes_received: 90,
                ..base
            },
        ),
        (
            "--expect-body missing",
            missing,
            Some(100),
            None,
            true,
            Counters {
                body_mismatches: 1,
                failed: 1,
                ..base
            },
        ),
        (
            "--reject-body found",
            rejected,
            Some(100),
            Some(200),
            true,
            Counters {
                body_mismatches: 1,
                failed: 1,
                ..base
            },
        ),
    ];
    for (name, response, document_length, expect_status, failed, expected) in cases {
        check(
            name,
            response,
            document_length,
            expect_status,
            failed,
            expected,
        );
    }
}

#[test]
fn failures_count_by_cause() {
    let cases = [
        (
            Failure::Connect,
            Counters {
                connect_errors: 1,
                ..Counters::default()
            },
        ),
        (
            Failure::Receive,
            Counters {
                receive_errors: 1,
                ..Counters::default()
            },
        ),
        (
            Failure::Write,
            Counters {
                write_errors: 1,
                ..Counters::default()
            },
        ),
        (
            Failure::Timeout,
            Counters {
                timeouts: 1,
                ..Counters::default()
            },
        ),
        (
            Failure::Exception,
            Counters {
                exceptions: 1,
                ..Counters::default()
            },
        ),
    ];
    for (failure, expected) in cases {
        let mut stats = ThreadStats::new(10);
        stats.count_failure(failure, 1_200_000, 0);
        assert_eq!(
            stats.counters,
            Counters {
                failed: 1,
                ..expected
            },
            "{failure:?}"
        );
        assert_eq!(stats.seconds[1].errors, 1, "{failure:?}");
        assert!(stats.samples.is_empty(), "{failure:?}: no sample");
        assert_eq!(stats.last_activity_us, 1_200_000, "{failure:?}");
    }
}
