//! A program's peak resident memory. `getrusage(RUSAGE_CHILDREN)` gives the largest of every
//! child a process has reaped, so the measurement runs in a helper process (`cargo xtask
//! peak-rss PROGRAM ARGS...`, this binary again) whose only child is the program.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context as _, bail};
use nix::sys::resource::{UsageWho, getrusage};

/// Runs `program args` in a helper process and returns its peak resident memory in kB.
pub(crate) fn of(program: &Path, args: &[String]) -> anyhow::Result<u64> {
    let output = Command::new(std::env::current_exe()?)
        .arg("peak-rss")
        .arg(program)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .context("running the peak-rss helper")?;
    if !output.status.success() {
        bail!("{} {} failed", program.display(), args.join(" "));
    }
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .context("the peak-rss helper printed no number")
}

/// The helper: runs `command` (its output discarded) and prints its peak resident memory in kB.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let status = Command::new(&args.command[0])
        .args(&args.command[1..])
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("running {}", args.command[0]))?;
    if !status.success() {
        bail!("{} exited {status}", args.command.join(" "));
    }
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).context("getrusage")?;
    // Linux reports ru_maxrss in kB.
    println!("{}", usage.max_rss());
    Ok(())
}
