//! The machine a tool runs on, for the tools of this workspace alike (loadgen, its suite and
//! wstest-server).
//!
//! # Map
//! - [`Machine`]: what a results file says of the machine (hostname, cores, CPU model, kernel,
//!   OS, architecture), read from `/proc` and the standard library.
//! - [`raise_open_file_limit`]: the soft limit of open files raised as far as a tool needs,
//!   with the limit it got when that is less.
//! - [`process`]: a process tree's CPU time and resident memory from `/proc`, sampled while a
//!   load runs.

pub mod process;

use serde::{Deserialize, Serialize};

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
