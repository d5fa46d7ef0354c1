//! Load from many machines, tried on one: `--shard`, `--start-at` and `loadgen merge` with
//! loadgen processes on loopback.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use testkit::servers::TestServer;

use crate::runs::{FAST, field, loadgen, temp};

/// `--start-at`: the connections open first, the first request reaches the server at the
/// time given and not before, and the JSON holds the time asked for and the run's interval.
#[test]
fn start_at_connects_first_then_sends_at_that_time() {
    let server = TestServer::start(FAST);
    let start_at = SystemTime::now() + Duration::from_millis(1500);
    let start_at = format!(
        "{:.3}",
        start_at.duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
    );
    let start: f64 = start_at.parse().unwrap();
    let json_file = temp("start-at.json");
    let output = loadgen(&[
        "-q",
        "-k",
        "-c",
        "4",
        "-n",
        "200",
        "--start-at",
        &start_at,
        "--json",
        json_file.to_str().unwrap(),
        &server.url(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stderr.contains("loadgen: connecting, then starting at "),
        "{stderr}"
    );
    let unix = |at: SystemTime| at.duration_since(UNIX_EPOCH).unwrap().as_secs_f64();
    let first_request = unix(server.first_request_at.lock().unwrap().expect("a request"));
    let accepted: Vec<f64> = server
        .accepted_at
        .lock()
        .unwrap()
        .iter()
        .map(|&at| unix(at))
        .collect();
    assert_eq!(accepted.len(), 4, "one connection each, kept alive");
    assert!(
        accepted.iter().all(|&at| at < start),
        "connections opened after the start: {accepted:?}, start {start}"
    );
    assert!(
        first_request >= start,
        "the first request came {:.3} s early",
        start - first_request
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    assert_eq!(json["start_at_unix"].as_f64(), Some(start), "{json}");
    assert_eq!(json["started_unix"].as_f64(), Some(start), "{json}");
    let ended = json["ended_unix"].as_f64().unwrap();
    assert!(ended > start && ended < start + 60.0, "{json}");
}

/// `--start-at` in the past: a warning, and the run starts at once.
#[test]
fn start_at_in_the_past_starts_at_once_with_a_warning() {
    let server = TestServer::start(FAST);
    let output = loadgen(&[
        "-q",
        "-c",
        "2",
        "-n",
        "50",
        "--start-at",
        "2001-09-09T01:46:40Z",
        &server.url(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stderr.contains("loadgen: warning: --start-at 2001-09-09T01:46:40.000Z passed ")
            && stderr.contains(" ago; starting now"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(field(&stdout, "Complete requests"), Some("50"), "{stdout}");
}

/// Three loadgen processes, each a shard of one test against the same server, merged: the counts
/// add up to the whole test's, and every JSON names its shard and the whole test.
#[test]
fn three_shards_merged_add_up_to_the_whole() {
    let server = TestServer::start(FAST);
    let url = server.url();
    let mut files: Vec<PathBuf> = (0..3).map(|i| temp(&format!("shard-{i}.json"))).collect();
    let shards: Vec<_> = files
        .iter()
        .enumerate()
        .map(|(index, file)| {
            Command::new(env!("CARGO_BIN_EXE_loadgen"))
                .args(["-q", "-k", "-c", "5", "-n", "1000", "--rate", "3000"])
                .args(["--shard", &format!("{index}/3"), "--json"])
                .arg(file)
                .arg(&url)
                .output()
                .unwrap()
        })
        .collect();
    for (index, output) in shards.iter().enumerate() {
        assert!(output.status.success(), "shard {index}: {output:?}");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&files[index]).unwrap()).unwrap();
        // The whole test as asked, the shard beside it.
        let load = &json["run"]["settings"]["load"];
        assert_eq!(load["shard"]["index"], index, "{load}");
        assert_eq!(load["shard"]["count"], 3);
        assert_eq!(
            (load["n_requests"].as_u64(), load["concurrency"].as_u64()),
            (Some(1000), Some(5))
        );
        // 1000 and 5 in three: 334, 333, 333 requests; 2, 2, 1 connections.
        let expected = [(334, 2), (333, 2), (333, 1)][index];
        assert_eq!(
            (
                json["counters"]["complete"].as_u64(),
                json["run"]["concurrency"].as_u64()
            ),
            (Some(expected.0), Some(expected.1)),
            "shard {index}"
        );
    }
    // A run's output with `--json -` (a container's log) is read as its JSON file.
    let log = temp("shard-2.log");
    let output = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args([
            "-k", "-c", "5", "-n", "1000", "--rate", "3000", "--shard", "2/3",
        ])
        .args(["--json", "-"])
        .arg(&url)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("Complete requests:      333\n")
            && stdout.contains("\n--- loadgen json begin ---\n{")
            && stdout.ends_with("}\n--- loadgen json end ---\n"),
        "{stdout}"
    );
    std::fs::write(&log, format!("a line before\n{stdout}a line after\n")).unwrap();
    files[2] = log;
    let (merged_json, merged_csv) = (temp("merged.json"), temp("merged.csv"));
    let merged = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .arg("merge")
        .arg("--json")
        .arg(&merged_json)
        .arg("-e")
        .arg(&merged_csv)
        .args(&files)
        .output()
        .unwrap();
    assert!(merged.status.success(), "{merged:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_json).unwrap()).unwrap();
    assert_eq!(json["counters"]["complete"], 1000, "{json}");
    assert_eq!(
        json["run"]["settings"]["load"]["n_requests"], 1000,
        "{json}"
    );
    assert!(json["run"]["settings"]["load"]["shard"].is_null(), "{json}");
    assert_eq!(json["run"]["concurrency"], 5, "{json}");
    assert_eq!(json["merged"].as_array().map(Vec::len), Some(3), "{json}");
    let csv = std::fs::read_to_string(&merged_csv).unwrap();
    assert_eq!(csv.lines().count(), 102, "{csv}");
    let merged = String::from_utf8(merged.stdout).unwrap();
    assert_eq!(
        field(&merged, "Complete requests"),
        Some("1000"),
        "{merged}"
    );
    assert_eq!(field(&merged, "Failed requests"), Some("0"), "{merged}");
    assert_eq!(field(&merged, "Concurrency Level"), Some("5"), "{merged}");
    assert_eq!(field(&merged, "Shards"), Some("0, 1, 2 of 3"), "{merged}");
    // The three shards, and shard 2 again for its log.
    assert_eq!(server.requests(), 1333);
    // The shards ran one after another here, each paced to its third of 3000/s (at least
    // 0.33 s): the merged run spans all three on the wall clock, and says how far apart they
    // started.
    let seconds = |label: &str, unit: &str| -> f64 {
        field(&merged, label)
            .and_then(|value| value.split(unit).next())
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {label} in {merged}"))
    };
    assert!(
        seconds("Time taken for tests", "seconds") >= 0.99,
        "{merged}"
    );
    assert!(seconds("Start skew", "ms") >= 660.0, "{merged}");

    // A run of another test, and a shard given twice, are refused, naming the file.
    let other = temp("other-test.json");
    let output = loadgen(&[
        "-q",
        "-k",
        "-c",
        "5",
        "-n",
        "1000",
        "--rate",
        "3000",
        "--shard",
        "2/3",
        "--expect-status",
        "201",
        "--json",
        other.to_str().unwrap(),
        &url,
    ]);
    assert!(output.status.success(), "{output:?}");
    let refused = |files: &[&PathBuf], message: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_loadgen"))
            .arg("merge")
            .args(files)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(message), "wanted {message:?} in {stderr}");
    };
    refused(
        &[&files[0], &files[1], &other],
        &format!(
            "{} is not a run of the same test as {}: its checks.expect_status is Some(201), not None",
            other.display(),
            files[0].display()
        ),
    );
    refused(
        &[&files[0], &files[1], &files[1]],
        &format!("{} is shard 1 again", files[1].display()),
    );
}

#[test]
fn merge_refuses_what_it_cannot_read() {
    let not_json = temp("not.json");
    std::fs::write(&not_json, "Requests per second: 5").unwrap();
    let other_format = temp("other.json");
    std::fs::write(&other_format, r#"{"format": 99}"#).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["merge"],
            "usage: loadgen merge [--json FILE] [-e FILE] FILE.json",
        ),
        (
            &["merge", "-g", "x.tsv", "a.json"],
            "-g needs each request's times",
        ),
        (
            &["merge", "--bogus", "a.json"],
            "unknown option --bogus; usage: loadgen merge",
        ),
        (
            &["merge", "a.json", "--json"],
            "--json needs a file; usage: loadgen merge",
        ),
        (
            &["merge", "/nonexistent/run.json"],
            "cannot read /nonexistent/run.json",
        ),
        (
            &["merge", not_json.to_str().unwrap()],
            "not a loadgen JSON file",
        ),
        (
            &["merge", other_format.to_str().unwrap()],
            "not a loadgen JSON file",
        ),
    ];
    for (args, message) in cases {
        let output = loadgen(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Usage errors exit 22 as a run's do; files that cannot be read, 1.
        let code = if message.contains("usage") || message.starts_with('-') {
            22
        } else {
            1
        };
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}
