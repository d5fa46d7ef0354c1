//! What every tool of this workspace shares (loadgen, its suite, wstest-server, the ceiling,
//! wsperf and xtask): the machine it runs on, how it reads a duration, its median, and the line
//! a server prints when it listens. A leaf: it uses no crate of the workspace.
//!
//! # Map
//! - [`printable`]: a text read from a file or a peer, its control characters escaped for a
//!   terminal.
//! - [`file`]: a file a user names, read only when it is a regular file within a limit.
//! - [`duration`]: `30s`, `500ms`, `2m`, `1h`, and what a bare number means to each option;
//!   serde for durations as seconds.
//! - [`median`](mod@median): the one median (the middle pair averaged).
//! - [`listening`]: `NAME listening on URL`, written and read.
//! - [`utc_minute`]: the time a result is stamped with.
//! - [`Machine`]: what a results file says of the machine (hostname, cores, CPU model, kernel,
//!   OS, architecture), read from `/proc` and the standard library.
//! - [`raise_open_file_limit`]: the soft limit of open files raised as far as a tool needs,
//!   with the limit it got when that is less.
//! - [`process`]: a process tree's CPU time and resident memory from `/proc`, sampled while a
//!   load runs.
//! - [`prometheus`]: Prometheus text (a family's lines, a latency histogram) and the
//!   `GET /metrics` endpoint of `--metrics ADDR`.
//! - [`write_stdout`] and its macros [`out!`] and [`outln!`]: what a tool prints on standard
//!   output, ending the process quietly when the reader has gone.

pub mod duration;
pub mod file;
pub mod listening;
pub mod median;
pub mod process;
pub mod prometheus;

use serde::{Deserialize, Serialize};

/// Writes `args` on standard output. A reader that has gone (`loadgen ... | head`) ends the
/// process with 141, quietly, as SIGPIPE ends a C tool such as ab, where `print!` would panic
/// (Rust ignores SIGPIPE, and only `unsafe` code could restore it); any other failure ends it
/// with 1, saying why on standard error.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    if let Err(error) = std::io::stdout().lock().write_fmt(args) {
        stdout_failed(&error);
    }
}

/// Flushes standard output, as [`write_stdout`] writes: a reader that has gone ends the
/// process with 141.
pub fn flush_stdout() {
    use std::io::Write as _;
    if let Err(error) = std::io::stdout().flush() {
        stdout_failed(&error);
    }
}

fn stdout_failed(error: &std::io::Error) -> ! {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(141);
    }
    eprintln!("cannot write to standard output: {error}");
    std::process::exit(1);
}

/// `print!` through [`write_stdout`].
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))
    };
}

/// `println!` through [`write_stdout`].
#[macro_export]
macro_rules! outln {
    () => {
        $crate::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `text` with its control characters escaped (`\u{1b}`), so that a name read from a file or
/// a peer cannot move the cursor, clear a terminal or forge a line when it is printed.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for ch in text.chars() {
        if ch.is_control() {
            out.extend(ch.escape_default());
        } else {
            out.push(ch);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The machine a run was made on, as its results record it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    pub hostname: String,
    /// The cores this process may run on.
    pub cores: usize,
    /// `/proc/cpuinfo`'s first model name.
    #[serde(default)]
    pub cpu: String,
    /// The kernel release.
    #[serde(default)]
    pub kernel: String,
    #[serde(default)]
    pub os: String,
    #[serde(default)]
    pub arch: String,
}

impl Machine {
    /// This machine, now (the cores are those this process may use at the moment of the call).
    pub fn this() -> Machine {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        let cpu = read("/proc/cpuinfo")
            .lines()
            .find_map(|line| line.strip_prefix("model name"))
            .map(|rest| rest.trim_start_matches([' ', '\t', ':']).to_owned())
            .unwrap_or_default();
        Machine {
            hostname: read("/proc/sys/kernel/hostname").trim().to_owned(),
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            cpu,
            kernel: read("/proc/sys/kernel/osrelease").trim().to_owned(),
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
        }
    }
}

/// Now on the UTC clock, as every result of the workspace is stamped: `2026-12-03 07:30 UTC`.
pub fn utc_minute() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%d %H:%M UTC")
        .to_string()
}

/// The open-file limit is below what was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileLimit {
    /// The descriptors asked for.
    pub needed: u64,
    /// The soft limit now in force.
    pub limit: u64,
}

impl std::fmt::Display for FileLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "needs about {} open files, but the limit is {} (ulimit -n)",
            self.needed, self.limit
        )
    }
}

/// Raises the soft limit of open files to `needed` where the hard limit allows (the usual 1024
/// stops a client or server at about a thousand connections). `Err` holds the limit it got
/// when that is less than `needed`; the caller says what that means for it.
pub fn raise_open_file_limit(needed: u64) -> Result<(), FileLimit> {
    match rlimit::increase_nofile_limit(needed) {
        Ok(limit) if limit < needed => Err(FileLimit { needed, limit }),
        // Where the limit cannot be read or set, there is nothing to say that the first
        // "Too many open files" will not say better.
        _ => Ok(()),
    }
}
