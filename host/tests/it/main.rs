//! The process sampler against processes of known cost (the `burn` example: a known CPU time by
//! its own getrusage, a known memory), one alone and two under a shell as a tree; the
//! arithmetic of cutting readings to an interval; a process that is not there. The shared
//! helpers in `shared`.

mod shared;

use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use host::process::{ProcessError, Reading, Sampler, Scope, Usage, read_tree, usage_between};

/// The `burn` example, built by `cargo test` beside the test binary.
fn burn() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let path = dir.join("examples/burn");
    assert!(
        path.is_file(),
        "{} (cargo test builds the examples)",
        path.display()
    );
    path
}

/// Runs `command` with stdin held open; returns it and the CPU each `done` line reported,
/// once there are `burners` of them.
fn run_until_done(mut command: Command, burners: usize) -> (Child, Sampler, Vec<f64>) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let sampler = Sampler::start(child.id(), Scope::Tree).unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut reported = Vec::new();
    while reported.len() < burners {
        let line = lines.next().expect("a done line").unwrap();
        let cpu = line
            .strip_prefix("done ")
            .expect("done CPU")
            .parse()
            .unwrap();
        reported.push(cpu);
    }
    (child, sampler, reported)
}

#[track_caller]
fn check(usage: Usage, cpu_s: f64, memory_mb: u64) {
    // Clock ticks are 10 ms; the readings on either side add at most one each.
    assert!(
        (usage.cpu_s - cpu_s).abs() < 0.05,
        "sampled {} s of CPU, the processes used {cpu_s} s",
        usage.cpu_s
    );
    let mb = usage.peak_rss_kb / 1024;
    assert!(
        mb >= memory_mb && mb < memory_mb + 40,
        "sampled a peak of {mb} MB, the processes held {memory_mb} MB and their code"
    );
}

#[test]
fn a_busy_process_costs_what_it_used() {
    let mut command = Command::new(burn());
    command.args(["600", "64"]);
    let (mut child, sampler, reported) = run_until_done(command, 1);
    let readings = sampler.stop();
    drop(child.stdin.take());
    child.wait().unwrap();
    let (first, last) = (readings[0], readings[readings.len() - 1]);
    assert!(readings.len() >= 3, "{readings:?}");
    check(
        usage_between(&readings, first.at_unix, last.at_unix).unwrap(),
        reported[0],
        64,
    );
}

/// A shell with two burners below it: the tree is three processes, its cost theirs together.
#[test]
fn a_tree_costs_what_its_processes_used() {
    let mut command = Command::new("sh");
    command.arg("-c").arg(format!(
        // Background commands read /dev/null unless told otherwise; these hold the stdin.
        "exec 3<&0; {burn} 300 16 <&3 & {burn} 400 16 <&3 & wait",
        burn = burn().display()
    ));
    let (mut child, sampler, reported) = run_until_done(command, 2);
    let tree = read_tree(child.id()).unwrap();
    assert_eq!(tree.processes, 3, "{tree:?}");
    let readings = sampler.stop();
    drop(child.stdin.take());
    child.wait().unwrap();
    let (first, last) = (readings[0], readings[readings.len() - 1]);
    check(
        usage_between(&readings, first.at_unix, last.at_unix).unwrap(),
        reported.iter().sum(),
        32,
    );
}

#[test]
fn a_missing_process_is_an_error_naming_it() {
    // Above the kernel's pid_max (4,194,304 at most).
    let pid = 4_194_305;
    assert_eq!(
        Sampler::start(pid, Scope::Tree).map(|_| ()),
        Err(ProcessError::Missing { pid })
    );
    assert!(
        ProcessError::Missing { pid }
            .to_string()
            .contains("no process 4194305")
    );
}

/// Readings cut to an interval: CPU interpolated between the readings on either side, the peak
/// of the readings in and next to it.
#[test]
fn usage_is_cut_to_the_interval() {
    let reading = |at_unix: f64, cpu_s: f64, rss_kb: u64| Reading {
        at_unix,
        cpu_s,
        rss_kb,
        processes: 1,
    };
    let readings = [
        reading(10.0, 1.0, 100),
        reading(10.1, 1.1, 900),
        reading(10.2, 1.2, 200),
        reading(10.3, 1.2, 300),
        reading(12.0, 2.9, 250),
    ];
    /// (from, to, the CPU and peak expected)
    type Case = (f64, f64, Option<(f64, u64)>);
    let cases: &[Case] = &[
        // Whole readings.
        (10.0, 10.3, Some((0.2, 900))),
        // Halfway between readings: half of each step.
        (10.05, 10.15, Some((0.1, 900))),
        // Past the last reading: cut at it.
        (10.3, 99.0, Some((1.7, 300))),
        // Before the first reading: from the first.
        (9.0, 10.1, Some((0.1, 900))),
    ];
    for &(from, to, expected) in cases {
        let got = usage_between(&readings, from, to).map(|u| (u.cpu_s, u.peak_rss_kb));
        match (got, expected) {
            (Some((cpu, peak)), Some((want_cpu, want_peak))) => {
                assert!((cpu - want_cpu).abs() < 1e-9, "{from}..{to}: {cpu}");
                assert_eq!(peak, want_peak, "{from}..{to}");
            }
            _ => assert_eq!(got, expected, "{from}..{to}"),
        }
    }
    assert_eq!(usage_between(&[], 0.0, 1.0), None);
}
