//! What every task needs of the workspace: its folder, release builds of its binaries, children
//! run pinned with their CPU time counted, the date and commit a result is stamped with, and
//! the results files under `docs/results/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use anyhow::{Context as _, bail};

/// The workspace's folder.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ sits in the workspace")
        .to_path_buf()
}

/// Builds `packages` in release mode; returns the release folder, where the xtask runs too.
pub(crate) fn build_release(packages: &[&str]) -> anyhow::Result<PathBuf> {
    let mut args = Vec::new();
    for package in packages {
        args.extend(["-p", package]);
    }
    cargo_build(&args, &packages.join(", "))?;
    Ok(root().join("target/release"))
}

/// Builds `package`'s example `example` in release mode (into `target/release/examples/`).
pub(crate) fn build_example(package: &str, example: &str) -> anyhow::Result<PathBuf> {
    cargo_build(
        &["-p", package, "--example", example],
        &format!("{package}'s example {example}"),
    )?;
    Ok(root().join("target/release/examples").join(example))
}

/// `cargo build --release -q ARGS` of the workspace; `what` names it in the error.
fn cargo_build(args: &[&str], what: &str) -> anyhow::Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(["build", "--release", "-q", "--manifest-path"])
        .arg(root().join("Cargo.toml"))
        .args(args)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release of {what} failed");
    }
    Ok(())
}

/// What a child did: its output, and the CPU it and its own children used (user, system).
pub(crate) struct Measured {
    pub output: Output,
    pub user: Duration,
    pub system: Duration,
}

impl Measured {
    pub(crate) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub(crate) fn cpu(&self) -> Duration {
        self.user + self.system
    }
}

/// Runs `program args` pinned to `cpus` (with `taskset`), waits for it, and returns its output
/// and CPU time: the growth of this process's reaped children's usage across the wait, so
/// nothing else may be reaped meanwhile (the tasks run one child at a time).
pub(crate) fn run_pinned(
    cpus: &[usize],
    program: &Path,
    args: &[String],
) -> anyhow::Result<Measured> {
    let before = host::process::children_cpu().context("getrusage")?;
    let output = pinned(cpus, program, args)
        .output()
        .with_context(|| format!("running {} (taskset is in util-linux)", program.display()))?;
    let after = host::process::children_cpu().context("getrusage")?;
    if !output.status.success() {
        bail!(
            "{} {} failed ({}): {}",
            program.display(),
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(Measured {
        user: after.0.saturating_sub(before.0),
        system: after.1.saturating_sub(before.1),
        output,
    })
}

/// `taskset -c CPUS program args`, to be run; without cores (a machine of one, where nothing
/// is pinned), `program args`.
pub(crate) fn pinned(cpus: &[usize], program: &Path, args: &[String]) -> Command {
    if cpus.is_empty() {
        let mut command = Command::new(program);
        command.args(args);
        return command;
    }
    let cpus: Vec<String> = cpus.iter().map(usize::to_string).collect();
    let mut command = Command::new("taskset");
    command
        .arg("-c")
        .arg(cpus.join(","))
        .arg(program)
        .args(args);
    command
}

/// The first number after `label` on a line of `text` (`Requests per second:    123.45`).
pub(crate) fn field(text: &str, label: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.trim_start().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|value| value.parse().ok())
}

/// The median of `values` (the workspace's one median), 0 for none.
pub(crate) fn median_of(values: Vec<f64>) -> f64 {
    host::median::median_of(values).unwrap_or(0.0)
}

/// `2026-12-04 15:02 UTC on 2 cores (6.1.0), at commit abc1234`: what a result is stamped with.
pub(crate) fn stamp() -> String {
    let machine = host::Machine::this();
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map_or_else(
            || "unknown".to_owned(),
            |output| String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        );
    format!(
        "{} on {} cores ({}), at commit {commit}",
        host::utc_minute(),
        machine.cores,
        machine.kernel
    )
}

/// Prints `text` and appends it to `docs/results/NAME` (or `path` when given).
pub(crate) fn append_result(name: &str, path: Option<&Path>, text: &str) -> anyhow::Result<()> {
    print!("{text}");
    let path = path.map_or_else(|| root().join("docs/results").join(name), Path::to_path_buf);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut old = std::fs::read_to_string(&path).unwrap_or_default();
    old.push_str(text);
    std::fs::write(&path, old).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("appended to {}", path.display());
    Ok(())
}

/// Starts a server as the suite does (on the placement's server cores, its address read from
/// its listening line), leaving this thread's cores as they were: the suite's next
/// `Placement::choose` must see every core.
pub(crate) fn start_server(
    spec: &suite::target::TargetSpec,
    placement: Option<&suite::placement::Placement>,
    tls: Option<&suite::target::ServerTls>,
) -> anyhow::Result<suite::target::Target> {
    let _restore = suite::placement::SavedAffinity::save()?;
    suite::target::Target::start(spec, placement, tls)
}

/// Runs `loadgen suite ARGS` in this process (ARGS name `--out dir`) and reads the results it
/// wrote there.
pub(crate) fn suite_results(
    suite_args: &[String],
    dir: &Path,
) -> anyhow::Result<suite::output::SuiteResults> {
    let code = suite::run(suite_args)?;
    if code != 0 {
        anyhow::bail!("loadgen suite {} exited {code}", suite_args.join(" "));
    }
    Ok(serde_json::from_str(
        &std::fs::read_to_string(dir.join("results.json"))
            .context("reading the suite's results")?,
    )?)
}
