//! `loadgen merge`'s arithmetic on made-up shards: merged counts and histograms equal one run of
//! every sample, and what a merge refuses names the file at fault.

use loadgen::cli::{Invocation, parse};
use loadgen::http::Response;
use loadgen::json;
use loadgen::merge::{self, MergeError, Run};
use loadgen::report::RunInfo;
use loadgen::stats::{Completion, Results, Sample, Table, ThreadStats};

/// A test's made-up samples: deterministic, spread over four seconds and three orders of
/// magnitude, a few of them failures by status.
fn samples(count: u32) -> Vec<(Sample, u16, u64)> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    };
    (0..count)
        .map(|i| {
            let connect_us = next(300) as u32;
            let wait_us = 50 + next(5_000) as u32 * (1 + next(100) as u32 / 90 * 100);
            let sample = Sample {
                start_s: i * 4 / count,
                connect_us,
                wait_us,
                total_us: connect_us + wait_us + next(200) as u32,
            };
            let status = if next(50) == 0 { 500 } else { 200 };
            let at_us = u64::from(i) * 4_000_000 / u64::from(count);
            (sample, status, at_us)
        })
        .collect()
}

/// What one client machine counted of `samples`.
fn results_of(samples: &[(Sample, u16, u64)]) -> Results {
    let mut stats = ThreadStats::new(samples.len());
    for &(sample, status, at_us) in samples {
        let response = Response {
            status,
            head_len: 80,
            body_len: 100,
            keep_alive: true,
            expected_found: true,
            rejected_found: false,
            body_cut: false,
        };
        stats.count_complete(Completion {
            response: &response,
            bytes_in: 180,
            kept_alive: true,
            document_length: Some(100),
            expect_status: Some(200),
            sample,
            corrected_us: None,
            at_us,
            kind: 0,
            verdict: &Default::default(),
        });
    }
    Results::merge(vec![stats])
}

/// Shard `index` of `count` of a made-up test of `total` requests (these `samples` its
/// share), through its JSON file and back, as `loadgen merge` reads it.
fn shard_run(
    samples: &[(Sample, u16, u64)],
    (index, count, total): (u32, u32, usize),
    started_unix: f64,
) -> Run {
    let mut results = results_of(samples);
    let table = results.table();
    let command_line: Vec<String> = format!(
        "-k -n {total} -c {count} --shard {index}/{count} -p body.xml http://127.0.0.1:8080/WSTest"
    )
    .split(' ')
    .map(str::to_owned)
    .collect();
    let Ok(Invocation::Run(options)) = parse(&command_line) else {
        panic!("{command_line:?} is a run");
    };
    assert_eq!(options.load.share().n_requests, Some(samples.len() as u64));
    let info = RunInfo {
        settings: options.settings(),
        concurrency: 1,
        n_threads: 1,
        rate: None,
    };
    let context = json::Context {
        command_line: &command_line,
        started_unix,
        start_at_unix: None,
        info: &info,
    };
    let text = serde_json::to_string(&json::build(&context, &results, table.as_ref())).unwrap();
    let (report, results) = json::read(&text).unwrap();
    Run {
        path: format!("shard-{index}.json"),
        report,
        results,
    }
}

/// Merging the shards of a test gives the whole test's counts, and the percentiles of one
/// histogram of every sample: HDR histograms add exactly. Checked for several splits, the
/// samples dealt round-robin as loadgen's shards share a test.
#[test]
fn merged_shards_equal_one_histogram_of_all_samples() {
    let all = samples(20_000);
    let whole = results_of(&all);
    for count in [1u32, 2, 3, 7, 16] {
        let runs = (0..count)
            .map(|index| {
                let share: Vec<_> = all
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i as u32 % count == index)
                    .map(|(_, sample)| *sample)
                    .collect();
                shard_run(&share, (index, count, all.len()), 1_800_000_000.0)
            })
            .collect();
        let merged = merge::merge(runs).unwrap();
        let results = &merged.results;
        assert_eq!(results.counters, whole.counters, "{count} shards");
        assert_eq!(results.status_codes, whole.status_codes, "{count} shards");
        assert_eq!(results.seconds, whole.seconds, "{count} shards");
        let (ours, theirs) = (&results.histograms, &whole.histograms);
        for (name, a, b) in [
            ("connect", &ours.connect, &theirs.connect),
            ("processing", &ours.processing, &theirs.processing),
            ("waiting", &ours.waiting, &theirs.waiting),
            ("total", &ours.total, &theirs.total),
        ] {
            assert!(a == b, "{count} shards: the {name} histograms differ");
            for quantile in [0.5, 0.9, 0.99, 0.999, 1.0] {
                assert_eq!(
                    a.value_at_quantile(quantile),
                    b.value_at_quantile(quantile),
                    "{count} shards: {name} at {quantile}"
                );
            }
        }
        assert_eq!(
            Table::from_histograms(ours),
            Table::from_histograms(theirs),
            "{count} shards: ab's table"
        );
        assert_eq!(merged.info.settings.load.n_requests, Some(20_000));
        assert!(merged.missing_shards.is_empty());
    }
}

/// The missing shards of a merge, or why it was refused.
type MergeOutcome = Result<Vec<u32>, MergeError>;

/// What `merge` refuses or reports, on made-up shards: a run of another test and a repeated
/// shard name their file; missing shards are listed; the runs' start skew is measured.
#[test]
fn merge_names_the_file_at_fault_and_the_missing_shards() {
    let all = samples(300);
    let shard =
        |index: u32, started_unix: f64| shard_run(&all[..100], (index, 3, 300), started_unix);
    let mut other = shard(2, 1_800_000_000.0);
    other.report.run.settings.request.content_type = "text/xml".to_owned();
    other.path = "other.json".to_owned();
    let cases: Vec<(&str, Vec<Run>, MergeOutcome)> = vec![
        (
            "another test",
            vec![shard(0, 1_800_000_000.0), other],
            Err(MergeError::OtherTest {
                path: "other.json".to_owned(),
                first: "shard-0.json".to_owned(),
                difference: "request.content_type is \"text/xml\", not \"text/plain\"".to_owned(),
            }),
        ),
        (
            "a shard twice",
            vec![shard(1, 1_800_000_000.0), shard(1, 1_800_000_000.0)],
            Err(MergeError::RepeatedShard {
                path: "shard-1.json".to_owned(),
                index: 1,
            }),
        ),
        (
            "one missing",
            vec![shard(0, 1_800_000_000.0), shard(2, 1_800_000_000.25)],
            Ok(vec![1]),
        ),
        ("none", Vec::new(), Err(MergeError::Empty)),
    ];
    for (name, runs, expected) in cases {
        let merged = merge::merge(runs);
        assert_eq!(
            merged
                .as_ref()
                .map(|merged| merged.missing_shards.clone())
                .map_err(Clone::clone),
            expected,
            "{name}"
        );
        if let Ok(merged) = merged {
            assert!((merged.start_skew - 0.25).abs() < 1e-6, "{name}");
            assert_eq!(merged.results.counters.complete, 200, "{name}");
        }
    }
}
