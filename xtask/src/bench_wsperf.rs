//! `cargo xtask bench-wsperf`: every binding and encoding in memory, wsperf pinned to one core:
//! the size table, decoding and encoding of every post file and of our server's response to it,
//! and the chart of the documents the performance targets name. The tables are appended to
//! docs/results/wsperf.md with the stamp and the command; the chart goes beside it as
//! wsperf.svg. wsperf's progress lines pass through to stderr.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context as _, bail};

use crate::workspace::{self, append_result};

/// The documents of the targets (issue 33), and the largest of the others, for the chart; a
/// name ending `-response.xml` is one of the generated responses.
const CHARTED: [&str; 4] = [
    "echostruct100.xml",
    "echolist100.xml",
    "getorder100-response.xml",
    "echosynthetic1k.xml",
];

/// wsperf's tables and chart, appended to the results.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// wsperf's --time per row (`1s`, `500ms`; a bare number is milliseconds, as wsperf's).
    #[arg(long, default_value = "1s", value_parser = host::duration::parse_millis)]
    time: Duration,
    /// The core wsperf is pinned to.
    #[arg(long, default_value_t = 1)]
    cpu: usize,
    /// Where the tables are appended (default: docs/results/wsperf.md); the chart is written
    /// beside it as wsperf.svg.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let stamp = workspace::stamp();
    let wsperf = workspace::build_release(&["wsperf"])?.join("wsperf");
    let root = workspace::root();
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| root.join("docs/results/wsperf.md"));
    let chart = out.with_file_name("wsperf.svg");
    // Before the long run, not after it: the chart is written into this folder mid-way.
    if let Some(dir) = chart.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let responses = Scratch::new()?;
    let pinned = |words: &[String]| pinned(args.cpu, &wsperf, words);
    pinned(&["--generate".to_owned(), path(&responses.0)])?;
    let ms = args.time.as_millis();
    let timed = |extra: &[String]| {
        let mut words: Vec<String> = ["-d", "-e", "--time", &format!("{ms}ms")]
            .map(str::to_owned)
            .to_vec();
        words.extend(["--format", "markdown"].map(str::to_owned));
        words.extend_from_slice(extra);
        pinned(&words)
    };
    eprintln!("bench-wsperf: every post file and response");
    let full = timed(&[])?;
    eprintln!("bench-wsperf: the charted documents");
    let mut charted = vec!["--chart".to_owned(), path(&chart)];
    charted.extend(
        CHARTED.map(|name| match name.strip_suffix("-response.xml") {
            Some(_) => path(&responses.0.join(name)),
            None => path(&root.join("post_files").join(name)),
        }),
    );
    let chart_table = timed(&charted)?
        .replace(&format!("{}/", path(&responses.0)), "")
        .replace(&format!("{}/", path(&root)), "");
    let sizes = pinned(&["--sizes", "--format", "markdown"].map(str::to_owned))?;
    let cpu_model = host::Machine::this().cpu;
    let text = format!(
        "\n## {stamp}, {cpu_model}, --time {ms} ms per row\n\n\
         Command: `cargo xtask bench-wsperf --time {ms}ms --cpu {cpu}` (wsperf pinned to core {cpu})\n\n\
         ### Bytes per document in each encoding\n\n{sizes}\n\
         ### Every post file and response, decode and encode\n\n{full}\n\
         ### The documents of the targets, in the run drawn in wsperf.svg\n\n{chart_table}",
        cpu = args.cpu
    );
    append_result("wsperf.md", args.output.as_deref(), &text)?;
    eprintln!("wrote {}", chart.display());
    Ok(())
}

/// Runs wsperf pinned to `cpu`, its stderr (the progress lines) passed through; its stdout.
fn pinned(cpu: usize, wsperf: &Path, words: &[String]) -> anyhow::Result<String> {
    let output = workspace::pinned(&[cpu], wsperf, words)
        .stderr(Stdio::inherit())
        .output()
        .context("running wsperf under taskset (util-linux)")?;
    if !output.status.success() {
        bail!("wsperf {} failed ({})", words.join(" "), output.status);
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn path(path: &Path) -> String {
    path.display().to_string()
}

/// A folder of this run's own, removed when the run ends however it ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> anyhow::Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("bench-wsperf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
