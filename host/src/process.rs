//! What a process tree spends, read from `/proc`: CPU time (user and system, of every live
//! process of the tree and of the children each has reaped) and resident memory, sampled by a
//! thread of its own while a load runs, so that the cost of a cell can be cut to the client's
//! measured interval afterwards.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often [`Sampler`] reads the tree. A server on one core spends 10 ms in 1% of a second;
/// one read of a process's `stat` and `statm` costs about 20 µs, so at this rate the sampler
/// costs the client's core a few hundredths of a percent.
pub const INTERVAL: Duration = Duration::from_millis(100);

/// Why a process cannot be sampled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProcessError {
    #[error("no process {pid} (it is not running, or /proc is not mounted)")]
    Missing { pid: u32 },
}

/// One reading of a process tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Seconds since the Unix epoch.
    pub at_unix: f64,
    /// User and system CPU of the tree so far, seconds (children it reaped included).
    pub cpu_s: f64,
    /// Resident memory of the tree now, kB.
    pub rss_kb: u64,
    /// How many processes the tree has.
    pub processes: usize,
}

/// What a [`Sampler`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The process, every process below it, and the children each has reaped: a server and
    /// whatever it started (a shell's server, php-fpm's workers).
    Tree,
    /// The process alone, its own threads only: a client running in this process.
    Process,
}

/// Reads `pid` (and with [`Scope::Tree`] its descendants) now: CPU and memory.
pub fn read(pid: u32, scope: Scope) -> Result<Reading, ProcessError> {
    match scope {
        Scope::Tree => read_tree(pid),
        Scope::Process => {
            let at_unix = unix_now();
            let stat = Stat::read(pid).ok_or(ProcessError::Missing { pid })?;
            Ok(Reading {
                at_unix,
                cpu_s: (stat.utime + stat.stime) as f64 / clock_ticks(),
                rss_kb: stat.rss_pages * page_kb(),
                processes: 1,
            })
        }
    }
}

/// Reads `pid`'s tree now: the process, its descendants, their CPU and memory.
pub fn read_tree(pid: u32) -> Result<Reading, ProcessError> {
    let at_unix = unix_now();
    let tree = descendants(pid)?;
    let ticks = clock_ticks();
    let mut reading = Reading {
        at_unix,
        cpu_s: 0.0,
        rss_kb: 0,
        processes: 0,
    };
    for process in tree {
        // A process may exit between the listing and the read: it counts no more.
        let Some(stat) = Stat::read(process) else {
            continue;
        };
        reading.cpu_s += (stat.utime + stat.stime + stat.cutime + stat.cstime) as f64 / ticks;
        reading.rss_kb += stat.rss_pages * page_kb();
        reading.processes += 1;
    }
    if reading.processes == 0 {
        return Err(ProcessError::Missing { pid });
    }
    Ok(reading)
}

/// What a tree spent between two instants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Usage {
    /// CPU seconds, user and system.
    pub cpu_s: f64,
    /// The largest resident memory sampled, kB.
    pub peak_rss_kb: u64,
}

/// Reads a process tree every [`INTERVAL`] on a thread of its own until stopped.
#[derive(Debug)]
pub struct Sampler {
    pid: u32,
    scope: Scope,
    readings: Arc<Mutex<Vec<Reading>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling `pid` (its tree, or it alone); an error if `pid` does not run.
    pub fn start(pid: u32, scope: Scope) -> Result<Sampler, ProcessError> {
        let first = read(pid, scope)?;
        let readings = Arc::new(Mutex::new(vec![first]));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (readings, stop) = (Arc::clone(&readings), Arc::clone(&stop));
            std::thread::Builder::new()
                .name(format!("sample-{pid}"))
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::park_timeout(INTERVAL);
                        match read(pid, scope) {
                            Ok(reading) => lock(&readings).push(reading),
                            // Gone: the caller finds out from its own process handle.
                            Err(_) => return,
                        }
                    }
                })
                .ok()
        };
        Ok(Sampler {
            pid,
            scope,
            readings,
            stop,
            thread,
        })
    }

    /// Stops sampling (after one last reading) and returns every reading.
    pub fn stop(mut self) -> Vec<Reading> {
        self.finish();
        if let Ok(last) = read(self.pid, self.scope) {
            lock(&self.readings).push(last);
        }
        std::mem::take(&mut *lock(&self.readings))
    }

    fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.finish();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What the tree spent from `from_unix` to `to_unix`: CPU from the readings on either side,
/// interpolated to the two instants; the peak of the readings within (and the ones next to)
/// the interval. `None` without readings on both sides.
pub fn usage_between(readings: &[Reading], from_unix: f64, to_unix: f64) -> Option<Usage> {
    let cpu_at = |at: f64| -> Option<f64> {
        let after = readings.iter().position(|r| r.at_unix >= at)?;
        let b = readings[after];
        if after == 0 {
            // The first reading is at or after `at`: it is the nearest there is.
            return Some(b.cpu_s);
        }
        let a = readings[after - 1];
        let span = b.at_unix - a.at_unix;
        let share = if span > 0.0 {
            (at - a.at_unix) / span
        } else {
            1.0
        };
        Some(a.cpu_s + (b.cpu_s - a.cpu_s) * share)
    };
    let last = readings.last()?;
    let to_unix = to_unix.min(last.at_unix);
    let cpu_s = (cpu_at(to_unix)? - cpu_at(from_unix)?).max(0.0);
    let peak_rss_kb = readings
        .iter()
        .filter(|r| {
            r.at_unix >= from_unix - INTERVAL.as_secs_f64()
                && r.at_unix <= to_unix + INTERVAL.as_secs_f64()
        })
        .map(|r| r.rss_kb)
        .max()?;
    Some(Usage { cpu_s, peak_rss_kb })
}

/// `pid` and every process below it, from each process's parent in `/proc/N/stat`.
pub fn descendants(pid: u32) -> Result<Vec<u32>, ProcessError> {
    if !Path::new(&format!("/proc/{pid}")).exists() {
        return Err(ProcessError::Missing { pid });
    }
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(child) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse().ok())
            else {
                continue;
            };
            if let Some(stat) = Stat::read(child) {
                parents.push((child, stat.ppid));
            }
        }
    }
    let mut tree = vec![pid];
    let mut at = 0;
    while at < tree.len() {
        let parent = tree[at];
        tree.extend(
            parents
                .iter()
                .filter(|(_, ppid)| *ppid == parent)
                .map(|(child, _)| *child),
        );
        at += 1;
    }
    Ok(tree)
}

/// The fields of `/proc/PID/stat` that matter here.
#[derive(Debug, Clone, Copy)]
struct Stat {
    ppid: u32,
    utime: u64,
    stime: u64,
    cutime: u64,
    cstime: u64,
    rss_pages: u64,
}

impl Stat {
    fn read(pid: u32) -> Option<Stat> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name is in parentheses and may hold spaces and parentheses itself: the
        // fields start after the last ')'.
        let rest = &text[text.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the name: state (3), ppid (4), ... utime (14), stime (15), cutime (16),
        // cstime (17), ... rss (24); numbered from 1 with the pid, so index = number - 3.
        let field = |number: usize| -> Option<u64> { fields.get(number - 3)?.parse().ok() };
        Some(Stat {
            ppid: u32::try_from(field(4)?).ok()?,
            utime: field(14)?,
            stime: field(15)?,
            cutime: field(16)?,
            cstime: field(17)?,
            rss_pages: field(24)?,
        })
    }
}

/// Clock ticks a second (`getconf CLK_TCK`), the unit of `/proc/PID/stat`'s times.
fn clock_ticks() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        match nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK) {
            Ok(Some(ticks)) if ticks > 0 => ticks as f64,
            // Linux's value on every architecture it runs user space on.
            _ => 100.0,
        }
    })
}

/// The page size in kB (`/proc/PID/stat`'s rss is in pages).
fn page_kb() -> u64 {
    static PAGE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *PAGE.get_or_init(
        || match nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE) {
            Ok(Some(bytes)) if bytes >= 1024 => bytes as u64 / 1024,
            _ => 4,
        },
    )
}

/// CPU this process's reaped children have used so far (user, system): a child's cost is the
/// growth across its run, as long as nothing else is reaped meanwhile.
pub fn children_cpu() -> Option<(Duration, Duration)> {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).ok()?;
    let duration = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(t.tv_sec()).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec()).unwrap_or(0))
    };
    Some((duration(usage.user_time()), duration(usage.system_time())))
}

/// Now, in seconds since the Unix epoch: the clock every reading and measured phase uses.
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}
