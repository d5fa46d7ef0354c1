//! `cargo xtask check-soak`: memory stays flat and nothing fails under millions of requests.
//! wstest-server (one worker, on the first core) answers every WSTest post file at once: one
//! loadgen per post file (on the other cores), 100 keep-alive connections in all, `--requests`
//! requests (10,000,000 by default). The server's resident memory is sampled by
//! `host::process::Sampler`. The first 500,000 requests warm it up; from then on its memory must
//! stay within 10% of its value at that point, and no request may fail. Then `--hostile-mix`
//! requests (1,000,000) of which every tenth is hostile: the `send_corpus` example sends the
//! hostile tenth from the corpus (server/tests/hostile/) while the loadgens send the rest at nine
//! times its pace; the valid ones must all succeed and every hostile one get the corpus
//! manifest's answer. Prints the memory series a second at a time and a verdict; fails when a
//! check does.
//!
//! The figures come from each loadgen's `--json` report, not from its text.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use host::process::{Reading, Sampler, Scope};
use suite::manifest::Case;
use suite::placement::Placement;
use suite::target::TargetSpec;

use crate::workspace;

/// Connections over all loadgens.
const CONNECTIONS: usize = 100;

/// Memory flat under millions of requests, hostile ones among them.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Requests of the soak, the warm-up included.
    #[arg(long, default_value_t = 10_000_000)]
    requests: u64,
    /// Requests of the warm-up, after which memory may grow by 10% at most.
    #[arg(long, default_value_t = 500_000)]
    warmup: u64,
    /// Requests of the hostile mix, a tenth of them hostile.
    #[arg(long, default_value_t = 1_000_000)]
    hostile_mix: u64,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.warmup < args.requests,
        "--warmup ({}) must be fewer than --requests ({})",
        args.warmup,
        args.requests
    );
    let release = workspace::build_release(&["server", "loadgen-cli"])?;
    let send_corpus = workspace::build_example("server", "send_corpus")?;
    let root = workspace::root();
    let cases: Vec<Case> = suite::manifest::read(&root.join("post_files/manifest.toml"))?
        .into_iter()
        .filter(|case| !case.only_when_named)
        .collect();
    let placement = Placement::choose(None, None, false)?;
    let client_cpus = placement
        .as_ref()
        .map_or_else(Vec::new, |placement| placement.client_cpus.clone());
    let spec = TargetSpec::Binary {
        name: "wstest".to_owned(),
        program: release.join("wstest-server"),
        args: vec!["--threads".to_owned(), "1".to_owned()],
    };
    let mut target = workspace::start_server(&spec, placement.as_ref(), None)?;
    let pid = target.pid().context("the server's pid")?;
    let url = target.url.to_string();
    let addr = format!("{}:{}", target.url.host, target.url.port);
    println!("soak of wstest-server at {url}, {}", workspace::stamp());
    if let Some(placement) = &placement {
        println!("{}", placement.describe());
    }
    let sampler = Sampler::start(pid, Scope::Process)?;
    let work = Scratch::new()?;
    let load = Load {
        loadgen: release.join("loadgen"),
        cases: &cases,
        url: &url,
        cpus: &client_cpus,
        dir: &work.0,
        server_pid: pid,
    };
    let mut verdict = Vec::new();
    let started = Instant::now();
    if let Err(error) = load.run("warmup", args.warmup, &[]) {
        verdict.push(format!("{error:#}"));
    }
    let baseline = host::process::read(pid, Scope::Process)?.rss_kb;
    let warm_at = host::process::unix_now();
    if let Err(error) = load.run("soak", args.requests - args.warmup, &[]) {
        verdict.push(format!("{error:#}"));
    }
    let soak_end = host::process::unix_now();
    let readings = sampler.stop();
    println!();
    println!(
        "RSS (kB) every second; the warm-up ended at {baseline} kB (second {:.0}):",
        warm_at - readings.first().map_or(warm_at, |first| first.at_unix)
    );
    print!("{}", series(&readings));
    let after: Vec<u64> = readings
        .iter()
        .filter(|reading| reading.at_unix > warm_at && reading.at_unix <= soak_end)
        .map(|reading| reading.rss_kb)
        .collect();
    let (low, high) = (
        after.iter().copied().min().unwrap_or(baseline),
        after.iter().copied().max().unwrap_or(baseline),
    );
    let limit = baseline + baseline / 10;
    println!(
        "after the warm-up: RSS from {low} to {high} kB; the limit is {limit} kB (the warm-up's end + 10%)"
    );
    if high > limit {
        verdict.push(format!(
            "RSS grew to {high} kB, past the limit of {limit} kB"
        ));
    }
    println!();
    if let Err(error) = hostile_mix(&load, &send_corpus, &addr, args.hostile_mix) {
        verdict.push(format!("{error:#}"));
    }
    println!(
        "server RSS at the end: {} kB; {:.0} s in all",
        host::process::read(pid, Scope::Process)?.rss_kb,
        started.elapsed().as_secs_f64()
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(pid)?),
        nix::sys::signal::Signal::SIGTERM,
    )?;
    match target.exited_within(Duration::from_secs(15)) {
        Some(status) if status == "exit status: 0" => {}
        Some(status) => verdict.push(format!("the server stopped with {status}")),
        None => verdict.push("the server did not stop within 15 s of SIGTERM".to_owned()),
    }
    if !verdict.is_empty() {
        bail!("soak failed: {}", verdict.join("; "));
    }
    println!("soak: passed");
    Ok(())
}

/// The hostile tenth: `send_corpus`'s pace measured alone, then the valid nine tenths at nine
/// times it beside it.
fn hostile_mix(load: &Load<'_>, send_corpus: &Path, addr: &str, n_mix: u64) -> anyhow::Result<()> {
    let probe = Instant::now();
    let status = Command::new(send_corpus)
        .args([addr, "2000"])
        .stdout(Stdio::null())
        .status()
        .context("running send_corpus")?;
    anyhow::ensure!(
        status.success(),
        "send_corpus's pace probe failed ({status})"
    );
    let pace = (2000.0 / probe.elapsed().as_secs_f64()) as u64;
    let n_hostile = n_mix / 10;
    println!(
        "hostile mix: {n_hostile} hostile requests at about {pace} a second beside {} valid ones at {} a second",
        n_mix - n_hostile,
        9 * pace
    );
    let hostile = workspace::pinned(
        load.cpus,
        send_corpus,
        &[addr.to_owned(), n_hostile.to_string()],
    )
    .stdout(Stdio::piped())
    .spawn()
    .context("starting send_corpus")?;
    let per_loadgen_rate = (9 * pace / load.cases.len() as u64).max(1);
    let valid = load.run(
        "mix",
        n_mix - n_hostile,
        &["--rate".to_owned(), per_loadgen_rate.to_string()],
    );
    let output = hostile.wait_with_output()?;
    print!("{}", String::from_utf8_lossy(&output.stdout));
    valid?;
    anyhow::ensure!(
        output.status.success(),
        "hostile requests were answered otherwise than the corpus says"
    );
    Ok(())
}

/// One loadgen per post file, the requests and connections split between them.
struct Load<'a> {
    loadgen: PathBuf,
    cases: &'a [Case],
    url: &'a str,
    cpus: &'a [usize],
    dir: &'a Path,
    /// The server, whose memory the progress lines show.
    server_pid: u32,
}

impl Load<'_> {
    /// Runs `n` requests (with `extra` options for every loadgen) and prints what completed;
    /// an error if any failed or was not 2xx, or fewer completed than were asked for.
    fn run(&self, phase: &str, n: u64, extra: &[String]) -> anyhow::Result<()> {
        let per = n / self.cases.len() as u64;
        let mut children: Vec<(Child, PathBuf)> = Vec::new();
        for (idx, case) in self.cases.iter().enumerate() {
            let connections =
                CONNECTIONS / self.cases.len() + usize::from(idx < CONNECTIONS % self.cases.len());
            let json = self.dir.join(format!("{phase}-{idx}.json"));
            let mut args: Vec<String> = vec![
                "-q".into(),
                "-k".into(),
                "-c".into(),
                connections.to_string(),
                "-n".into(),
                per.to_string(),
                "-T".into(),
                case.content_type.clone(),
                "-p".into(),
                case.body_file.display().to_string(),
                "--json".into(),
                json.display().to_string(),
            ];
            for header in &case.headers {
                args.extend(["-H".to_owned(), header.clone()]);
            }
            args.extend(extra.iter().cloned());
            args.push(self.url.to_owned());
            let child = workspace::pinned(self.cpus, &self.loadgen, &args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .context("starting loadgen (taskset is in util-linux)")?;
            children.push((child, json));
        }
        self.progress(phase, &mut children)?;
        let (mut complete, mut failed, mut non_2xx, mut problems) = (0, 0, 0, Vec::new());
        for ((child, json), case) in children.into_iter().zip(self.cases) {
            let output = child.wait_with_output()?;
            if !output.status.success() {
                problems.push(format!(
                    "{}: loadgen {}: {}",
                    case.test,
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
                continue;
            }
            let report: loadgen::json::JsonReport = serde_json::from_str(
                &std::fs::read_to_string(&json)
                    .with_context(|| format!("reading {}", json.display()))?,
            )?;
            complete += report.counters.complete;
            failed += report.counters.failed;
            non_2xx += report.counters.non_2xx;
        }
        println!("{phase}: {complete} requests, {failed} failed, {non_2xx} not 2xx");
        let expected = per * self.cases.len() as u64;
        if !problems.is_empty() || failed > 0 || non_2xx > 0 || complete != expected {
            problems.push(format!(
                "{phase}: {complete} of {expected} requests complete, {failed} failed, {non_2xx} not 2xx"
            ));
            bail!(problems.join("; "));
        }
        Ok(())
    }
}

impl Load<'_> {
    /// Waits for the loadgens of `phase`, saying every [`PROGRESS_EVERY`] how long it has run
    /// and what the server holds: the soak phase alone takes minutes.
    fn progress(&self, phase: &str, children: &mut [(Child, PathBuf)]) -> anyhow::Result<()> {
        let started = Instant::now();
        let mut said = Duration::ZERO;
        loop {
            let mut running = 0;
            for (child, _) in children.iter_mut() {
                if child.try_wait()?.is_none() {
                    running += 1;
                }
            }
            if running == 0 {
                return Ok(());
            }
            let elapsed = started.elapsed();
            if elapsed >= said + PROGRESS_EVERY {
                said = elapsed;
                let rss = host::process::read(self.server_pid, Scope::Process)
                    .map_or_else(|_| "?".to_owned(), |reading| reading.rss_kb.to_string());
                eprintln!(
                    "check-soak: {phase} {:.0} s, {running} loadgens running, server RSS {rss} kB",
                    elapsed.as_secs_f64()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// How often a long phase says where it is.
const PROGRESS_EVERY: Duration = Duration::from_secs(15);

/// The readings a second apart (the sampler reads ten times a second), fifteen to a line.
fn series(readings: &[Reading]) -> String {
    let Some(first) = readings.first() else {
        return String::new();
    };
    let mut out = String::new();
    let mut next = first.at_unix;
    let mut n = 0;
    for reading in readings {
        if reading.at_unix + 0.05 >= next {
            n += 1;
            out.push_str(&reading.rss_kb.to_string());
            out.push(if n % 15 == 0 { '\n' } else { ' ' });
            while next <= reading.at_unix + 0.05 {
                next += 1.0;
            }
        }
    }
    if n % 15 != 0 {
        out.push('\n');
    }
    out
}

/// A folder for the loadgens' reports, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> anyhow::Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("check-soak-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
