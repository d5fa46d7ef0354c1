//! `cargo xtask suite-vs-direct`: what `loadgen suite` reports for a cell of our server against
//! a direct loadgen run of the same cell (the command line the suite's loadgen client builds),
//! the server alone on the server core and the client on a client core in both, alternating
//! ROUNDS times; prints the medians and every round's ratio.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use suite::client::CellSpec;
use suite::placement::Placement;
use suite::target::TargetSpec;

use crate::workspace::{self, append_result, field, median_of, run_pinned};

/// The suite's figure against a direct run's.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A test of the manifest.
    #[arg(long, default_value = "EchoStruct-20")]
    test: String,
    #[arg(long, default_value_t = 5)]
    rounds: u32,
    /// Where the result is appended (default: docs/results/suite-vs-direct.md).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

const DURATION: Duration = Duration::from_secs(3);
const WARMUP: Duration = Duration::from_secs(1);

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    // Before anything pins this process, which narrows the cores it sees.
    let stamp = workspace::stamp();
    let release = workspace::build_release(&["server", "loadgen-cli"])?;
    let placement = Placement::choose(None, None, false)?
        .context("suite-vs-direct pins the server and the client apart: it needs two cores")?;
    let manifest = workspace::root().join("post_files/manifest.toml");
    let case = suite::manifest::select(
        suite::manifest::read(&manifest)?,
        std::slice::from_ref(&args.test),
    )?
    .remove(0);
    let server = TargetSpec::Binary {
        name: "wstest".to_owned(),
        program: release.join("wstest-server"),
        args: Vec::new(),
    };
    let (mut suites, mut directs) = (Vec::new(), Vec::new());
    let dir = std::env::temp_dir().join(format!("xtask-suite-vs-direct-{}", std::process::id()));
    for _ in 0..args.rounds {
        let suite_args: Vec<String> = [
            "--tests",
            &args.test,
            "--duration",
            "3s",
            "--warmup",
            "1s",
            "--repeat",
            "1",
            "--format",
            "csv",
            "--server-bin",
        ]
        .iter()
        .map(|arg| (*arg).to_owned())
        .chain([
            release.join("wstest-server").display().to_string(),
            "--out".to_owned(),
            dir.display().to_string(),
        ])
        .collect();
        let results = workspace::suite_results(&suite_args, &dir)?;
        let cell = results
            .cells
            .first()
            .and_then(|cell| cell.summary.as_ref())
            .context("no cell")?;
        suites.push(cell.requests_per_second);

        let target = workspace::start_server(&server, Some(&placement), None)?;
        let spec = CellSpec {
            url: target.url.clone(),
            body_file: case.body_file.clone(),
            content_type: case.content_type.clone(),
            headers: case.headers.clone(),
            concurrency: 30,
            duration: DURATION,
            warmup: WARMUP,
            expect_body: case.expect_body.clone(),
            reject_body: case.reject_body.clone(),
            mix_file: None,
            cacert: target.ca.clone(),
            http2: None,
            variable_length: case.variable_length,
        };
        let command = suite::loadgen_client::command_line(&spec);
        let measured = run_pinned(&placement.client_cpus, &release.join("loadgen"), &command)?;
        directs.push(field(&measured.stdout(), "Requests per second:").context("no rate")?);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let ratios: Vec<f64> = suites.iter().zip(&directs).map(|(s, d)| s / d).collect();
    let rounds: Vec<String> = ratios.iter().map(|r| format!("{r:.3}")).collect();
    let text = format!(
        "\n## {}\n\nCommand: `cargo xtask suite-vs-direct --test {} --rounds {}`\n\nsuite median {:.0} req/s, direct median {:.0} req/s; suite ÷ direct per round: {}; median {:.3}\n",
        stamp,
        args.test,
        args.rounds,
        median_of(suites),
        median_of(directs),
        rounds.join(", "),
        median_of(ratios)
    );
    append_result("suite-vs-direct.md", args.output.as_deref(), &text)
}
