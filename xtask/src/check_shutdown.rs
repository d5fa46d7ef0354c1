//! `cargo xtask check-shutdown`: graceful shutdown under full load, round after round.
//! wstest-server (one worker, core 0) answers twenty one-connection loadgens (core 1) posting
//! GetOrders of 50,000 line items, a 10 MB answer each, so that many answers are being written
//! at any moment; after a second it gets SIGTERM. Each round must end with exit code 0 within
//! the drain deadline (10 s), with no answer cut off (the server counts the requests it read and
//! the answers it could not write whole, and prints both when it stops), and a connection
//! attempted once the server says it accepts no more must be refused. A row a round; the check
//! fails if any round misses.
//!
//! Twenty loadgens of one connection each, rather than one of twenty: a loadgen aborts after ten
//! refused connections (as ab does) and closes all of its connections then, which would cut
//! answers the server was still writing. With one connection each, a loadgen can only be
//! refused once the server has closed its connection, its last answer written.

use std::io::BufRead as _;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use host::listening::Listening;

use crate::workspace;

/// The drain deadline a round must meet (the server's default `--shutdown-grace`).
const DRAIN_LIMIT: Duration = Duration::from_secs(10);
const LOADGENS: usize = 20;

/// SIGTERM under load, every request read answered.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Rounds.
    #[arg(long, default_value_t = 20)]
    rounds: u32,
    /// Options for the server, after `--` (`-- --shutdown-grace 0s` shows cut answers counted).
    #[arg(last = true)]
    server_args: Vec<String>,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let release = workspace::build_release(&["server", "loadgen-cli"])?;
    let root = workspace::root();
    let cases = suite::manifest::read(&root.join("post_files/manifest.toml"))?;
    let case = cases
        .iter()
        .find(|case| case.body_file.ends_with("getorder20.xml"))
        .context("the manifest has no getorder20.xml")?;
    let body = std::fs::read_to_string(&case.body_file)?;
    anyhow::ensure!(
        body.contains("<messageSize>20</messageSize>"),
        "post_files/getorder20.xml has no messageSize 20"
    );
    let post = std::env::temp_dir().join(format!("check-shutdown-{}.xml", std::process::id()));
    std::fs::write(
        &post,
        body.replace(
            "<messageSize>20</messageSize>",
            "<messageSize>50000</messageSize>",
        ),
    )?;
    let mut loadgen_args: Vec<String> = ["-q", "-r", "-k", "-c", "1", "-t", "10", "-T"]
        .map(str::to_owned)
        .to_vec();
    loadgen_args.push(case.content_type.clone());
    for header in &case.headers {
        loadgen_args.extend(["-H".to_owned(), header.clone()]);
    }
    loadgen_args.extend(["-p".to_owned(), post.display().to_string()]);
    println!(
        "Graceful shutdown under load, {}, {} rounds",
        host::utc_minute(),
        args.rounds
    );
    println!(
        "{:>5} {:>10} {:>10} {:>6} {:>9} {:>5} {:>12}",
        "round", "read", "answered", "cut", "drain_ms", "exit", "after_stop"
    );
    let mut missed = 0;
    for round in 1..=args.rounds {
        let outcome = self::round(&release, &args.server_args, &loadgen_args);
        let row = outcome?;
        println!(
            "{round:>5} {:>10} {:>10} {:>6} {:>9} {:>5} {:>12}",
            row.read,
            row.read.saturating_sub(row.cut),
            row.cut,
            row.drain.as_millis(),
            row.exit
                .map_or("signal".to_owned(), |code| code.to_string()),
            if row.accepted_after_stop {
                "accepted"
            } else {
                "refused"
            }
        );
        if row.exit != Some(0) || row.cut != 0 || row.drain > DRAIN_LIMIT || row.accepted_after_stop
        {
            missed += 1;
        }
    }
    let _ = std::fs::remove_file(&post);
    if missed > 0 {
        bail!(
            "{missed} of {} rounds missed (exit code, answers cut, drain time or a connection accepted after the signal)",
            args.rounds
        );
    }
    println!(
        "all {} rounds: exit 0, no answer cut, no connection accepted after the signal",
        args.rounds
    );
    Ok(())
}

/// What one round saw.
struct Row {
    read: u64,
    cut: u64,
    drain: Duration,
    exit: Option<i32>,
    accepted_after_stop: bool,
}

fn round(release: &Path, server_args: &[String], loadgen_args: &[String]) -> anyhow::Result<Row> {
    let (mut server, lines) = start_server(release, server_args)?;
    let addr = loop {
        let line = lines
            .recv_timeout(Duration::from_secs(30))
            .context("wstest-server printed no listening line")?;
        if let Some(listening) = Listening::parse(&line) {
            break listening.addr().to_owned();
        }
    };
    let url = format!("http://{addr}/WSTest");
    let mut loadgens: Vec<Child> = (0..LOADGENS)
        .map(|_| {
            Command::new("taskset")
                .args(["-c", "1"])
                .arg(release.join("loadgen"))
                .args(loadgen_args)
                .arg(&url)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .context("starting loadgen under taskset (util-linux)")
        })
        .collect::<anyhow::Result<_>>()?;
    // Full load for a second, then the signal.
    std::thread::sleep(Duration::from_secs(1));
    let started = Instant::now();
    let pid = nix::unistd::Pid::from_raw(i32::try_from(server.id())?);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM)?;
    let mut seen = Vec::new();
    // Once the server says it accepts no more, a new connection must be refused, while it
    // drains or after it has gone.
    loop {
        match lines.recv_timeout(Duration::from_millis(1)) {
            Ok(line) if line.contains("stopping: no new connections") => break,
            Ok(line) => seen.push(line),
            Err(RecvTimeoutError::Timeout) => {
                if server.try_wait()?.is_some() {
                    break;
                }
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    let accepted_after_stop = TcpStream::connect(&addr).is_ok();
    let status = server.wait()?;
    let drain = started.elapsed();
    seen.extend(lines.iter());
    for loadgen in &mut loadgens {
        let _ = loadgen.wait();
    }
    let (read, cut) = seen
        .iter()
        .find_map(|line| served(line))
        .context("the server printed no `stopped:` line")?;
    Ok(Row {
        read,
        cut,
        drain,
        exit: status.code(),
        accepted_after_stop,
    })
}

/// The server pinned to core 0 with one worker, its stderr's lines on a channel.
fn start_server(
    release: &Path,
    server_args: &[String],
) -> anyhow::Result<(Child, Receiver<String>)> {
    let program: PathBuf = release.join("wstest-server");
    let mut server = Command::new("taskset")
        .args(["-c", "0"])
        .arg(&program)
        .args(["--addr", "127.0.0.1:0", "--threads", "1"])
        .args(server_args)
        .stderr(Stdio::piped())
        .spawn()
        .context("starting wstest-server under taskset (util-linux)")?;
    let stderr = server.stderr.take().context("the server's stderr")?;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    Ok((server, receiver))
}

/// `... stopped: N requests read, M answers cut off ...`: N and M.
fn served(line: &str) -> Option<(u64, u64)> {
    let rest = line.split("stopped: ").nth(1)?;
    let mut numbers = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|word| !word.is_empty())
        .map(str::parse::<u64>);
    Some((numbers.next()?.ok()?, numbers.next()?.ok()?))
}
