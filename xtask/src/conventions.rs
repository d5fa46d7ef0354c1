//! The workspace's binaries keep one convention (GUIDE.md, "Exit codes"): the exit code of a
//! usage error and of a wrong answer in each, and each `--help` as committed in
//! `xtask/expect/help/` (a snapshot: a change to an option shows in review, and GUIDE.md's
//! tables are checked against it by whoever changes it). Tests only.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A binary of the workspace: its name and its package.
#[derive(Debug, Clone, Copy)]
struct Binary {
    name: &'static str,
    package: &'static str,
}

const LOADGEN: Binary = Binary {
    name: "loadgen",
    package: "loadgen-cli",
};
const SERVER: Binary = Binary {
    name: "wstest-server",
    package: "server",
};
const CEILING: Binary = Binary {
    name: "ceiling",
    package: "ceiling",
};
const WSPERF: Binary = Binary {
    name: "wsperf",
    package: "wsperf",
};

fn run(binary: Binary, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(testkit::workspace_bin(binary.name, binary.package))
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("{} runs: {error}", binary.name));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Every usage error exits 2, but in ab's front end, which keeps ab's 22.
#[test]
fn usage_errors_exit_with_the_convention_s_code() {
    let cases: &[(Binary, &[&str], i32)] = &[
        (LOADGEN, &["suite", "--no-such-option"], 2),
        (LOADGEN, &["suite", "--client", "wrk"], 2),
        (LOADGEN, &["suite", "--duration", "5x"], 2),
        (LOADGEN, &["suite", "--target", "nourl"], 2),
        (LOADGEN, &["suite", "cases", "--out", "/tmp/x"], 2),
        (
            LOADGEN,
            &["suite", "cases", "--wsdl", "x", "--out", "y", "--size", "0"],
            2,
        ),
        (LOADGEN, &["-Q", "http://127.0.0.1:9/"], 22),
        (LOADGEN, &["merge"], 22),
        (SERVER, &["--no-such-option"], 2),
        (SERVER, &["--header-timeout", "5x"], 2),
        (SERVER, &["--idle-timeout", "-1s"], 2),
        (CEILING, &["--no-such-option"], 2),
        (WSPERF, &["--no-such-option"], 2),
        (WSPERF, &["relay", "--no-such-option"], 2),
        (WSPERF, &["--warmup", "100"], 2),
    ];
    for (binary, args, code) in cases {
        let (actual, _, stderr) = run(*binary, args);
        assert_eq!(actual, Some(*code), "{} {args:?}: {stderr}", binary.name);
        assert!(
            !stderr.trim().is_empty(),
            "{} {args:?} says nothing",
            binary.name
        );
    }
}

/// Each binary's help, as committed.
#[test]
fn every_help_is_as_committed() {
    let cases: &[(Binary, &[&str], &str)] = &[
        (LOADGEN, &["-h"], "loadgen.txt"),
        (LOADGEN, &["suite", "--help"], "loadgen-suite.txt"),
        (
            LOADGEN,
            &["suite", "cases", "--help"],
            "loadgen-suite-cases.txt",
        ),
        (SERVER, &["--help"], "wstest-server.txt"),
        (CEILING, &["--help"], "ceiling.txt"),
        (WSPERF, &["--help"], "wsperf.txt"),
        (WSPERF, &["relay", "--help"], "wsperf-relay.txt"),
    ];
    let dir = expect_dir();
    for (binary, args, file) in cases {
        let (_, stdout, stderr) = run(*binary, args);
        // ab's front end prints its usage on stderr, as ab; clap on stdout.
        let help = if stdout.is_empty() { stderr } else { stdout };
        testkit::check_expected(&dir.join(file), &help);
    }
}

fn expect_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("expect/help")
}
