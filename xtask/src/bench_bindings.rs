//! `cargo xtask bench-bindings`: the end-to-end cost of each XML binding. Four wstest-servers,
//! one per `--binding`, each alone on the first core, measured by `loadgen suite` on every post
//! file (loadgen on the other cores), the repeats interleaved across the four. The table (requests
//! per second, median and min-max spread) is appended to docs/results/bindings.md with its
//! stamp; the suite's results.json, results.md and charts go into docs/results/bindings/.

use std::path::PathBuf;
use std::time::Duration;

use suite::output::Show;
use suite::placement::Placement;
use suite::target::TargetSpec;

use crate::workspace::{self, append_result};

/// The bindings of `wstest-server --binding`, ours first.
const BINDINGS: [&str; 4] = [
    "streaming",
    "streaming-quick-xml",
    "serde-quick-xml",
    "serde-xml-rs",
];

/// The four bindings through the server.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Measured time per cell (after a 1-s warm-up).
    #[arg(long, default_value = "3s", value_parser = host::duration::parse)]
    duration: Duration,
    /// Interleaved repeats of each cell.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    /// Where the table is appended (default: docs/results/bindings.md); the suite's report goes
    /// into the folder `bindings/` beside it.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let stamp = workspace::stamp();
    let release = workspace::build_release(&["server"])?;
    let placement = Placement::choose(None, None, false)?;
    let mut targets = Vec::new();
    for binding in BINDINGS {
        let spec = TargetSpec::Binary {
            name: binding.to_owned(),
            program: release.join("wstest-server"),
            args: vec!["--binding".to_owned(), binding.to_owned()],
        };
        targets.push(workspace::start_server(&spec, placement.as_ref(), None)?);
    }
    let table_path = args
        .output
        .clone()
        .unwrap_or_else(|| workspace::root().join("docs/results/bindings.md"));
    let dir = table_path.with_file_name("bindings");
    let seconds = args.duration.as_secs_f64();
    let mut suite_args: Vec<String> = vec![
        "--duration".to_owned(),
        format!("{seconds}s"),
        "--warmup".to_owned(),
        "1s".to_owned(),
        "--repeat".to_owned(),
        args.repeat.to_string(),
        "--format".to_owned(),
        "csv".to_owned(),
        "--out".to_owned(),
        dir.display().to_string(),
    ];
    for target in &targets {
        suite_args.extend([
            "--target".to_owned(),
            format!("{}={}", target.name, target.url),
        ]);
    }
    let results = workspace::suite_results(&suite_args, &dir)?;
    drop(targets);
    let text = format!(
        "\n## {stamp}, {seconds} s per cell, median of {repeat}\n\n\
         Command: `cargo xtask bench-bindings --duration {seconds}s --repeat {repeat}` (each server alone on the first core, loadgen on the others)\n\n{}",
        results.markdown(Show::default()),
        repeat = args.repeat
    );
    append_result("bindings.md", args.output.as_deref(), &text)
}
