//! The servers a suite measures: ours (`wstest`, the `wstest-server` binary beside loadgen),
//! the HTTP ceiling (`ceiling`), a stack under `scripts/stacks/NAME/` (its `setup.sh`, then
//! `start.sh 0`), or a server already running at a URL. A server the suite starts binds port 0
//! and prints `listening on http://HOST:PORT/PATH`, which the suite reads; it runs in a process
//! group of its own, which the suite stops (SIGTERM, then SIGKILL) when done.

use std::io::{BufRead as _, BufReader, Read};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, Once, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use loadgen::url::{Scheme, Url};

use crate::placement::Placement;
use crate::terminator;

/// How a target comes to be.
#[derive(Debug, Clone)]
pub enum TargetSpec {
    /// A binary of this workspace (`wstest-server`, `ceiling`), started with `--addr 127.0.0.1:0`
    /// and `args` (`--binding serde-quick-xml`).
    Binary {
        name: String,
        program: PathBuf,
        args: Vec<String>,
    },
    /// A stack's folder with `setup.sh` and `start.sh`.
    Stack { name: String, dir: PathBuf },
    /// A server someone else runs; with `--target-pid`, its process, for its resources.
    Url {
        name: String,
        url: Url,
        pid: Option<u32>,
    },
}

impl TargetSpec {
    pub fn name(&self) -> &str {
        match self {
            TargetSpec::Binary { name, .. }
            | TargetSpec::Stack { name, .. }
            | TargetSpec::Url { name, .. } => name,
        }
    }
}

/// `--tls`: the certificate and key the servers serve, and the CA the clients trust.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTls {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: PathBuf,
    /// The clients will speak HTTP/2 (`--http2`): a stack is told (`WSTEST_HTTP2=1`), so that
    /// one whose own TLS offers HTTP/1.1 alone listens for plain HTTP and gets the terminator,
    /// which speaks h2 to the clients.
    pub http2: bool,
}

impl ServerTls {
    /// A throwaway CA and server certificate in the repository `repo`'s target/certs, made
    /// (or kept, if there) by its scripts/certs.sh.
    pub fn throwaway(repo: &Path) -> anyhow::Result<ServerTls> {
        let script = repo.join("scripts/certs.sh");
        let dir = repo.join("target/certs");
        let status = Command::new("bash")
            .arg(&script)
            .arg(&dir)
            .stdout(std::io::stderr())
            .status()
            .with_context(|| format!("running {}", script.display()))?;
        if !status.success() {
            bail!("{} failed ({status})", script.display());
        }
        Ok(ServerTls {
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
            ca: dir.join("ca.pem"),
            http2: false,
        })
    }
}

/// A target ready to be measured.
#[derive(Debug)]
pub struct Target {
    pub name: String,
    pub url: Url,
    pub version: String,
    /// `--tls`: the CA that signed the certificate of a server the suite started.
    pub ca: Option<PathBuf>,
    /// The server process, when the suite started it; stopped on drop.
    process: Option<ServerProcess>,
    /// `--target-pid`: the process of a server someone else runs.
    given_pid: Option<u32>,
    /// `--tls` for a stack of plain HTTP: the nginx in front of it (stopped after the stack,
    /// being declared after it).
    terminator: Option<ServerProcess>,
}

impl Target {
    /// Starts the target (servers on the placement's server cores), or takes its URL. With
    /// `tls`, a server the suite starts serves TLS with its certificate: ours and the ceiling
    /// by their options, a stack by `WSTEST_TLS_CERT` and `WSTEST_TLS_KEY`.
    pub fn start(
        spec: &TargetSpec,
        placement: Option<&Placement>,
        tls: Option<&ServerTls>,
    ) -> anyhow::Result<Target> {
        match spec {
            TargetSpec::Url { name, url, pid } => {
                if let Some(pid) = pid {
                    host::process::read(*pid, host::process::Scope::Process)
                        .with_context(|| format!("--target-pid {name}={pid}"))?;
                }
                Ok(Target {
                    name: name.clone(),
                    url: url.clone(),
                    version: "running at the URL given".to_owned(),
                    ca: None,
                    process: None,
                    given_pid: *pid,
                    terminator: None,
                })
            }
            TargetSpec::Binary {
                name,
                program,
                args,
            } => {
                let version = command_output(Command::new(program).arg("--version"))
                    .unwrap_or_else(|| "unknown".to_owned());
                let mut command = Command::new(program);
                command.args(["--addr", "127.0.0.1:0"]).args(args);
                if let Some(tls) = tls {
                    command.arg("--tls-cert").arg(&tls.cert);
                    command.arg("--tls-key").arg(&tls.key);
                }
                let (process, url) =
                    ServerProcess::start(name, command, placement, Duration::from_secs(30))?;
                Ok(Target {
                    name: name.clone(),
                    url,
                    version,
                    ca: tls.map(|tls| tls.ca.clone()),
                    process: Some(process),
                    given_pid: None,
                    terminator: None,
                })
            }
            TargetSpec::Stack { name, dir } => {
                setup_stack(name, dir)?;
                let version =
                    command_output(Command::new("bash").arg("version.sh").current_dir(dir))
                        .unwrap_or_else(|| "unknown".to_owned());
                let mut command = Command::new("bash");
                command.args(["start.sh", "0"]).current_dir(dir);
                if let Some(tls) = tls {
                    command.env("WSTEST_TLS_CERT", &tls.cert);
                    command.env("WSTEST_TLS_KEY", &tls.key);
                    if tls.http2 {
                        command.env("WSTEST_HTTP2", "1");
                    }
                }
                // A JIT or an interpreter may take a while to start.
                let (process, url) =
                    ServerProcess::start(name, command, placement, Duration::from_secs(120))?;
                let mut target = Target {
                    name: name.clone(),
                    url,
                    version,
                    ca: tls.map(|tls| tls.ca.clone()),
                    process: Some(process),
                    given_pid: None,
                    terminator: None,
                };
                if let Some(tls) = tls
                    && target.url.scheme == Scheme::Http
                {
                    target.terminate_tls(tls, placement)?;
                }
                Ok(target)
            }
        }
    }

    /// `--tls` for a stack that listens for plain HTTP: nginx terminates TLS in front of it,
    /// on its cores, and the target is named for it (`NAME+nginx`), so the table says which
    /// stacks served TLS themselves.
    fn terminate_tls(
        &mut self,
        tls: &ServerTls,
        placement: Option<&Placement>,
    ) -> anyhow::Result<()> {
        let dir =
            std::env::temp_dir().join(format!("wstest-nginx-{}-{}", self.name, std::process::id()));
        let workers = placement.map_or(1, |placement| placement.server_cpus.len().max(1));
        let command = terminator::command(&self.url, &tls.cert, &tls.key, &dir, workers)?;
        let name = format!("{}+nginx", self.name);
        let started = ServerProcess::start(&name, command, placement, Duration::from_secs(30));
        let (mut process, url) = started.inspect_err(|_| {
            let _ = std::fs::remove_dir_all(&dir);
        })?;
        process.scratch = Some(dir);
        self.name = name;
        self.url = url;
        self.version = format!("{}; TLS by the suite's nginx terminator", self.version);
        self.terminator = Some(process);
        Ok(())
    }

    /// The process id of the nginx in front of a stack of plain HTTP under `--tls`: its CPU
    /// and memory are the stack's as much as the stack's own (it does the TLS).
    pub fn terminator_pid(&self) -> Option<u32> {
        self.terminator.as_ref().map(|process| process.child.id())
    }

    /// The server's process id: the one the suite started, or `--target-pid`'s.
    pub fn pid(&self) -> Option<u32> {
        self.process
            .as_ref()
            .map(|process| process.child.id())
            .or(self.given_pid)
    }

    /// Whether the server the suite started exits within `patience` (with its status).
    pub fn exited_within(&mut self, patience: Duration) -> Option<String> {
        let process = self.process.as_mut()?;
        let deadline = Instant::now() + patience;
        loop {
            match process.child.try_wait() {
                Ok(Some(status)) => return Some(status.to_string()),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => return None,
            }
        }
    }
}

/// Whether `dir` holds a stack: its `start.sh` is what the suite runs.
pub(crate) fn check_stack(name: &str, dir: &Path) -> anyhow::Result<()> {
    if !dir.join("start.sh").is_file() {
        bail!("no stack {name:?}: {} has no start.sh", dir.display());
    }
    Ok(())
}

/// Runs a stack's `setup.sh` (idempotent, quiet when already done), its output on stderr.
fn setup_stack(name: &str, dir: &Path) -> anyhow::Result<()> {
    check_stack(name, dir)?;
    if dir.join("setup.sh").is_file() {
        let status = Command::new("bash")
            .arg("setup.sh")
            .current_dir(dir)
            .stdout(std::io::stderr())
            .status()
            .with_context(|| format!("running {}/setup.sh", dir.display()))?;
        if !status.success() {
            bail!("{}/setup.sh failed ({status})", dir.display());
        }
    }
    Ok(())
}

fn command_output(command: &mut Command) -> Option<String> {
    let output = command.stderr(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    (output.status.success() && !text.is_empty()).then_some(text)
}

/// The process groups of the servers running now. They are groups of their own (so that one
/// signal stops a stack's shell and everything it started), which a terminal's Ctrl-C does not
/// reach: the suite stops them itself when it is interrupted.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// The signal that interrupted the suite, or 0.
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

/// The signal that interrupted the suite, if one did: the run's exit code is then 128 + it,
/// whatever the stopped servers made the run fail with.
pub fn interrupted() -> Option<i32> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Once, before the first server starts: a thread that, on SIGINT, SIGTERM or SIGHUP, stops
/// every running server (SIGTERM, and SIGKILL a second later) and exits with 128 + the signal,
/// as the shell would report a process the signal killed.
fn stop_servers_on_signals() -> anyhow::Result<()> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        match signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
            Ok(mut signals) => {
                std::thread::spawn(move || {
                    let Some(signal) = signals.forever().next() else {
                        return;
                    };
                    INTERRUPTED.store(signal, Ordering::SeqCst);
                    let groups: Vec<i32> = RUNNING
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .clone();
                    for &group in &groups {
                        let _ = killpg(Pid::from_raw(group), Signal::SIGTERM);
                    }
                    if !groups.is_empty() {
                        eprintln!("loadgen suite: stopped by signal {signal}; stopping the servers it started");
                        std::thread::sleep(Duration::from_secs(1));
                        for &group in &groups {
                            let _ = killpg(Pid::from_raw(group), Signal::SIGKILL);
                        }
                    }
                    std::process::exit(128 + signal);
                });
            }
            Err(error) => result = Err(anyhow::anyhow!("cannot watch for signals: {error}")),
        }
    });
    result
}

/// A server process in a process group of its own.
#[derive(Debug)]
struct ServerProcess {
    child: Child,
    /// A folder of the process's own (the terminator's configuration and logs), removed once
    /// the process has stopped.
    scratch: Option<PathBuf>,
}

impl ServerProcess {
    /// Starts `command` and waits up to `patience` for its listening line on stdout or stderr.
    fn start(
        name: &str,
        mut command: Command,
        placement: Option<&Placement>,
        patience: Duration,
    ) -> anyhow::Result<(ServerProcess, Url)> {
        command
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        stop_servers_on_signals()?;
        if let Some(placement) = placement {
            placement.enter_server()?;
        }
        // Held across the spawn, so that a signal that comes as the server starts waits for
        // it to be listed.
        let mut running = RUNNING
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let spawned = command.spawn();
        if let Ok(child) = &spawned {
            running.push(child.id() as i32);
        }
        drop(running);
        if let Some(placement) = placement {
            placement.enter_client()?;
        }
        let mut child = spawned.with_context(|| format!("starting {name}: {command:?}"))?;
        let (lines_tx, lines_rx) = mpsc::channel::<String>();
        forward_lines(child.stdout.take(), lines_tx.clone());
        forward_lines(child.stderr.take(), lines_tx);
        let mut process = ServerProcess {
            child,
            scratch: None,
        };
        let deadline = Instant::now() + patience;
        let mut output = Vec::new();
        loop {
            match lines_rx.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    if let Some(url) = listening_url(&line) {
                        let url = Url::parse(&url).with_context(|| {
                            format!("{name} listens at {url}, which loadgen cannot load")
                        })?;
                        return Ok((process, url));
                    }
                    output.push(line);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // Both pipes closed: the process is gone or soon will be.
                    let status = process.child.wait()?;
                    bail!(
                        "{name} exited ({status}) before listening:\n{}",
                        output.join("\n")
                    );
                }
            }
            if let Ok(Some(status)) = process.child.try_wait() {
                bail!(
                    "{name} exited ({status}) before listening:\n{}",
                    output.join("\n")
                );
            }
            if Instant::now() >= deadline {
                bail!(
                    "{name} printed no \"listening on http://...\" line in {} s:\n{}",
                    patience.as_secs(),
                    output.join("\n")
                );
            }
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let group = Pid::from_raw(self.child.id() as i32);
        self.stop(group);
        if let Some(scratch) = &self.scratch {
            let _ = std::fs::remove_dir_all(scratch);
        }
        // Only once it is stopped: a signal before then finds it in the list, and stops it.
        RUNNING
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .retain(|running| *running != group.as_raw());
    }
}

impl ServerProcess {
    /// SIGTERM to the group, and SIGKILL to what is left once the leader has gone or after 10 s.
    fn stop(&mut self, group: Pid) {
        let _ = killpg(group, Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                // The group may hold more than its leader (a shell's child).
                let _ = killpg(group, Signal::SIGKILL);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = killpg(group, Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// Sends each line of `stream` to `lines` until the receiver goes; then reads on and drops
/// them, so that the server never blocks on a full pipe.
fn forward_lines(stream: Option<impl Read + Send + 'static>, lines: mpsc::Sender<String>) {
    let Some(stream) = stream else {
        return;
    };
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else {
                return;
            };
            let _ = lines.send(line);
        }
    });
}

/// The URL of a `... listening on http[s]://HOST:PORT[/PATH] ...` line, with `/WSTest` where
/// it names no path.
pub fn listening_url(line: &str) -> Option<String> {
    let listening = host::listening::Listening::parse(line).filter(|l| l.is_http())?;
    let url = listening.url;
    let rest = url.split_once("://").map_or("", |(_, rest)| rest);
    Some(if rest.contains('/') {
        url.to_owned()
    } else {
        format!("{url}/WSTest")
    })
}
