//! Where the suite's processes run: the servers it starts on some cores, its load clients on
//! others, so that they never compete for one. Children inherit the affinity of the thread that
//! starts them, and loadgen's threads that of the suite's main thread, so the suite pins itself:
//! to the server cores while it starts a server, to the client cores the rest of the time.

use anyhow::{Context as _, bail};
use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

/// The cores for servers and for clients; `None` when pinning is off.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Placement {
    pub server_cpus: Vec<usize>,
    pub client_cpus: Vec<usize>,
}

impl Placement {
    /// The placement for the command line's `--server-cpus`, `--client-cpus` and `--no-pin`:
    /// by default the first core this process may use for servers and the rest for clients, or
    /// no pinning on a machine with one core.
    pub fn choose(
        server: Option<&str>,
        client: Option<&str>,
        no_pin: bool,
    ) -> anyhow::Result<Option<Placement>> {
        if no_pin {
            return Ok(None);
        }
        let allowed = allowed_cpus()?;
        let (server_cpus, client_cpus) = match (server, client) {
            (Some(server), Some(client)) => (parse_cpus(server)?, parse_cpus(client)?),
            (Some(server), None) => {
                let server = parse_cpus(server)?;
                let rest = allowed.iter().copied().filter(|cpu| !server.contains(cpu));
                (server.clone(), rest.collect())
            }
            (None, Some(client)) => {
                let client = parse_cpus(client)?;
                let rest = allowed.iter().copied().filter(|cpu| !client.contains(cpu));
                (rest.collect(), client)
            }
            (None, None) if allowed.len() < 2 => return Ok(None),
            (None, None) => (vec![allowed[0]], allowed[1..].to_vec()),
        };
        for cpu in server_cpus.iter().chain(&client_cpus) {
            if !allowed.contains(cpu) {
                bail!("core {cpu} is not one this process may use ({allowed:?})");
            }
        }
        if server_cpus.is_empty() || client_cpus.is_empty() {
            bail!("servers and clients each need at least one core (--server-cpus, --client-cpus)");
        }
        Ok(Some(Placement {
            server_cpus,
            client_cpus,
        }))
    }

    /// Pins this thread (and what it starts from now on) to the server cores.
    pub fn enter_server(&self) -> anyhow::Result<()> {
        pin(&self.server_cpus)
    }

    /// Pins this thread (and what it starts from now on) to the client cores.
    pub fn enter_client(&self) -> anyhow::Result<()> {
        pin(&self.client_cpus)
    }

    /// `server on cpu 0, client on cpu 1`.
    pub fn describe(&self) -> String {
        format!(
            "servers on cpu {}, clients on cpu {}",
            list(&self.server_cpus),
            list(&self.client_cpus)
        )
    }
}

/// The cores this thread may run on, saved, and set again when it is dropped: so that a caller
/// of the suite (or of `Target::start`, which leaves the thread on the client
/// cores) gets back the placement it had, and a later [`Placement::choose`] sees every core.
#[derive(Debug)]
pub struct SavedAffinity {
    cpus: Vec<usize>,
}

impl SavedAffinity {
    pub fn save() -> anyhow::Result<SavedAffinity> {
        Ok(SavedAffinity {
            cpus: allowed_cpus()?,
        })
    }
}

impl Drop for SavedAffinity {
    fn drop(&mut self) {
        if let Err(error) = pin(&self.cpus) {
            eprintln!("loadgen suite: cannot restore this thread's cores: {error:#}");
        }
    }
}

fn list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The cores this thread may run on.
pub fn allowed_cpus() -> anyhow::Result<Vec<usize>> {
    let set = sched_getaffinity(Pid::from_raw(0)).context("sched_getaffinity")?;
    Ok((0..CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .collect())
}

fn pin(cpus: &[usize]) -> anyhow::Result<()> {
    let mut set = CpuSet::new();
    for &cpu in cpus {
        set.set(cpu).with_context(|| format!("core {cpu}"))?;
    }
    sched_setaffinity(Pid::from_raw(0), &set).context("sched_setaffinity")
}

/// `0`, `1-3`, `0,2,4-5`.
pub fn parse_cpus(text: &str) -> anyhow::Result<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.split(',').filter(|part| !part.is_empty()) {
        let bad = || format!("{text:?}: expected cores like 0, 1-3 or 0,2");
        match part.split_once('-') {
            Some((first, last)) => {
                let first: usize = first.trim().parse().with_context(bad)?;
                let last: usize = last.trim().parse().with_context(bad)?;
                if last < first {
                    bail!(bad());
                }
                cpus.extend(first..=last);
            }
            None => cpus.push(part.trim().parse().with_context(bad)?),
        }
    }
    if cpus.is_empty() {
        bail!("{text:?}: no cores");
    }
    Ok(cpus)
}
