//! `--baseline` and `index.html`: the change statistics on made-up repeats with known
//! differences, baseline folders that do not fit, and end to end a slower server found slower
//! (exit 4 with `--fail-on-regression`) while the same server is not, with the page holding
//! every test, target and chart and fetching nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use suite::baseline::Baseline;
use suite::change::{Change, Verdict};
use suite::output::Protocol;
use testkit::servers::{Behaviour, TestServer};

use crate::runs::{HELLO_MANIFEST, loadgen_bin, one_at_a_time, text, write_manifest};

/// One case of the statistics: the runs of each side, and what must be found.
struct Repeats {
    name: &'static str,
    baseline: &'static [f64],
    current: &'static [f64],
    higher_is_faster: bool,
    verdict: Verdict,
    /// The interval's confidence, when there is one.
    confidence: Option<f64>,
}

const REPEATS: &[Repeats] = &[
    Repeats {
        name: "a 30% drop in requests per second, three runs a side",
        baseline: &[100.0, 102.0, 98.0],
        current: &[70.0, 71.4, 68.6],
        higher_is_faster: true,
        verdict: Verdict::Slower,
        confidence: Some(0.90),
    },
    Repeats {
        name: "a 30% rise",
        baseline: &[100.0, 102.0, 98.0],
        current: &[130.0, 132.6, 127.4],
        higher_is_faster: true,
        verdict: Verdict::Faster,
        confidence: Some(0.90),
    },
    Repeats {
        name: "5% noise, samples overlapping",
        baseline: &[100.0, 105.0, 95.0],
        current: &[97.0, 103.0, 99.0],
        higher_is_faster: true,
        verdict: Verdict::WithinNoise,
        confidence: Some(0.90),
    },
    Repeats {
        name: "5% noise around a 3% shift, overlapping",
        baseline: &[100.0, 105.0, 95.0, 101.0, 99.0],
        current: &[97.0, 102.0, 93.0, 98.0, 100.0],
        higher_is_faster: true,
        verdict: Verdict::WithinNoise,
        confidence: Some(1.0 - 8.0 / 252.0),
    },
    Repeats {
        name: "a 30% drop, five runs a side: the 95% interval is within reach",
        baseline: &[100.0, 102.0, 98.0, 101.0, 99.0],
        current: &[70.0, 71.4, 68.6, 70.7, 69.3],
        higher_is_faster: true,
        verdict: Verdict::Slower,
        confidence: Some(1.0 - 8.0 / 252.0),
    },
    Repeats {
        name: "p99 down 30%: faster",
        baseline: &[1.0, 1.02, 0.98],
        current: &[0.7, 0.714, 0.686],
        higher_is_faster: false,
        verdict: Verdict::Faster,
        confidence: Some(0.90),
    },
    Repeats {
        name: "two runs a side cannot reach 90%",
        baseline: &[100.0, 102.0],
        current: &[70.0, 71.0],
        higher_is_faster: true,
        verdict: Verdict::TooFewRuns,
        confidence: None,
    },
    Repeats {
        name: "identical runs",
        baseline: &[100.0, 100.0, 100.0],
        current: &[100.0, 100.0, 100.0],
        higher_is_faster: true,
        verdict: Verdict::WithinNoise,
        confidence: Some(0.90),
    },
];

#[test]
fn changes_are_found_where_they_are_and_noise_is_not() {
    for case in REPEATS {
        let change = Change::between(case.baseline, case.current, case.higher_is_faster)
            .unwrap_or_else(|| panic!("{}: no change computed", case.name));
        assert_eq!(change.verdict, case.verdict, "{}: {change:?}", case.name);
        let confidence = change.shift.map(|shift| shift.confidence);
        match (confidence, case.confidence) {
            (Some(found), Some(expected)) => {
                assert!((found - expected).abs() < 1e-9, "{}: {change:?}", case.name)
            }
            (found, expected) => assert_eq!(found, expected, "{}: {change:?}", case.name),
        }
        // The interval holds the estimate, and a shift made exactly is estimated exactly.
        if let Some(shift) = change.shift {
            assert!(
                shift.low <= shift.estimate && shift.estimate <= shift.high,
                "{}",
                case.name
            );
        }
    }
    let exact = Change::between(&[100.0, 110.0, 90.0], &[70.0, 77.0, 63.0], true).unwrap();
    let shift = exact.shift.unwrap();
    assert!((shift.estimate + 0.3).abs() < 1e-9, "{shift:?}");
    assert!((exact.median_change + 0.3).abs() < 1e-9, "{exact:?}");
}

/// Runs `loadgen suite` on the Hello case against `server` named `name`, three short runs,
/// writing `out`, with `extra` arguments.
fn suite_run(
    manifest: &Path,
    name: &str,
    server: &TestServer,
    out: &Path,
    extra: &[&str],
) -> Output {
    let target = format!("{name}={}", server.url());
    Command::new(loadgen_bin())
        .args([
            "suite",
            "--duration",
            "300ms",
            "--warmup",
            "0s",
            "--repeat",
            "3",
        ])
        .args([
            "--concurrency",
            "10",
            "--manifest",
            manifest.to_str().unwrap(),
        ])
        .args(["--target", &target, "--out", out.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn a_slower_server_is_found_slower_and_the_same_one_is_not() {
    let _lock = one_at_a_time();
    let manifest = write_manifest("baseline", HELLO_MANIFEST);
    let dir = manifest.parent().unwrap().to_path_buf();
    // Every answer waits: 10 connections at 2 ms a request is some 5,000 a second, at 8 ms
    // some 1,250, whatever else the machine does.
    let fast = TestServer::start(Behaviour::Delay(Duration::from_millis(2)));
    let slow = TestServer::start(Behaviour::Delay(Duration::from_millis(8)));
    let base = dir.join("base");
    let output = suite_run(&manifest, "srv", &fast, &base, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let page = std::fs::read_to_string(base.join("index.html")).unwrap();
    check_page(&page, &["Hello"], &["srv"]);

    let slower = dir.join("slower");
    let output = suite_run(
        &manifest,
        "srv",
        &slow,
        &slower,
        &[
            "--baseline",
            base.to_str().unwrap(),
            "--fail-on-regression",
            "10",
        ],
    );
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(4), "{stdout}{stderr}");
    assert!(stdout.contains(" slower"), "{stdout}");
    assert!(
        stderr.contains("slower than the baseline by more than 10%"),
        "{stderr}"
    );
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(slower.join("results.json")).unwrap())
            .unwrap();
    let change = &results["baseline"]["cells"][0]["requests_per_second"];
    assert_eq!(change["verdict"], "slower", "{change}");
    // Four times the delay is some 75% slower; a loaded machine slows the fast baseline more
    // than the slow run (seen: 65%), so the bound is well inside that.
    assert!(change["shift"]["high"].as_f64().unwrap() < -0.3, "{change}");
    let page = std::fs::read_to_string(slower.join("index.html")).unwrap();
    check_page(&page, &["Hello"], &["srv"]);
    assert!(
        page.contains("id=\"changes\"") && page.contains("slower"),
        "no changes section"
    );
    assert!(slower.join("changes.svg").is_file());
    // --redraw rebuilds the page, changes included.
    std::fs::remove_file(slower.join("index.html")).unwrap();
    let redraw = Command::new(loadgen_bin())
        .args(["suite", "--redraw", slower.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(redraw.status.code(), Some(0), "{}", text(&redraw.stderr));
    assert_eq!(
        std::fs::read_to_string(slower.join("index.html")).unwrap(),
        page
    );

    let same = dir.join("same");
    let output = suite_run(
        &manifest,
        "srv",
        &fast,
        &same,
        &[
            "--baseline",
            base.to_str().unwrap(),
            "--fail-on-regression",
            "10",
        ],
    );
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("Against the baseline of"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The page names every test and target, inlines its charts, and refers to nothing outside
/// itself.
fn check_page(page: &str, tests: &[&str], targets: &[&str]) {
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..100]);
    for name in tests.iter().chain(targets) {
        assert!(
            page.contains(&format!(">{name}<")),
            "{name} is not in the page"
        );
    }
    assert!(
        page.contains("alt=\"Bars of requests per second"),
        "no tps chart"
    );
    assert!(page.contains("latency at each percentile"), "no spectrum");
    for attribute in ["src=\"", "href=\""] {
        for (at, _) in page.match_indices(attribute) {
            let value = &page[at + attribute.len()..];
            assert!(
                value.starts_with("data:") || value.starts_with('#'),
                "{attribute}{} refers outside the page",
                &value[..value.len().min(60)]
            );
        }
    }
    assert!(!page.contains("url("), "a style fetches something");
}

/// Writes a baseline folder whose results.json is `json`.
fn baseline_folder(name: &str, json: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("loadgen-baseline-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(json) = json {
        std::fs::write(dir.join("results.json"), json).unwrap();
    }
    dir
}

#[test]
fn baselines_that_do_not_fit_are_clear_errors() {
    let made_up = serde_json::json!({
        "format": 1, "command_line": ["loadgen suite"], "date": "2026-12-01 10:00 UTC",
        "machine": {"hostname": "elsewhere", "cores": 2},
        "placement": null, "duration_s": 5.0, "warmup_s": 1.0, "repeat": 3,
        "targets": [{"name": "gsoap", "url": null, "version": "2.8"}],
        "clients": [{"name": "loadgen", "url": null, "version": "0.4.0"}],
        "tests": ["EchoList-100"], "concurrencies": [30],
        "cells": [{"test": "EchoList-100", "concurrency": 30, "target": "gsoap", "client": "loadgen",
                   "wrong": null, "summary": null, "runs": []}]
    })
    .to_string();
    let names = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // (folder name, results.json, what the error must say)
    let cases: [(&str, Option<&str>, &str); 4] = [
        (
            "empty",
            None,
            "cannot read its results.json (the folder must be one that `loadgen suite --out` wrote)",
        ),
        (
            "garbage",
            Some("{\"not\": 1}"),
            "is not a suite's results.json",
        ),
        (
            "other",
            Some(&made_up),
            "no cell in common with this run, which would measure tests EchoVoid at c=30 on wstest with loadgen; the baseline measured tests EchoList-100 at c=30 on gsoap with loadgen",
        ),
        ("missing", None, "no such folder"),
    ];
    for (name, json, expected) in cases {
        let mut dir = baseline_folder(name, json);
        if name == "missing" {
            std::fs::remove_dir_all(&dir).unwrap();
            dir = dir.join("gone");
        }
        let error = Baseline::read(&dir).and_then(|baseline| {
            baseline.check_plan(
                &names(&["EchoVoid"]),
                &[30],
                &names(&["wstest"]),
                &names(&["loadgen"]),
                Protocol::default(),
            )
        });
        let message = format!("{:#}", error.expect_err(name));
        assert!(message.contains(expected), "{name}: {message}");
        let _ = std::fs::remove_dir_all(baseline_folder(name, None));
    }
    // A baseline over another protocol is compared, with a note saying so: (what the
    // baseline's results.json says of it, this run's protocol, the note).
    let h2 = |streams| Protocol {
        tls: false,
        http2: true,
        streams,
    };
    let cases = [
        (
            "\"tls\": true,",
            Protocol::default(),
            "over HTTP/1.1 over TLS, this run over HTTP/1.1:",
        ),
        (
            "\"http2\": true, \"streams\": 10,",
            h2(1),
            "over HTTP/2 (h2c), 10 streams a connection, this run over HTTP/2 (h2c):",
        ),
        // A results.json from before --streams carried one stream a connection.
        ("\"http2\": true,", h2(1), ""),
    ];
    for (fields, protocol, expected) in cases {
        let other = made_up.replace("\"cells\":", &format!("{fields} \"cells\":"));
        let dir = baseline_folder("protocol", Some(&other));
        let notes = Baseline::read(&dir)
            .unwrap()
            .check_plan(
                &names(&["EchoList-100"]),
                &[30],
                &names(&["gsoap"]),
                &names(&["loadgen"]),
                protocol,
            )
            .unwrap();
        if expected.is_empty() {
            assert!(notes.is_empty(), "{fields}: {notes:?}");
        } else {
            assert!(
                notes.iter().any(|note| note.contains(expected)),
                "{fields}: {notes:?}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
