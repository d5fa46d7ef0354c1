//! `loadgen suite`: the WSTest matrix (test x concurrency x target x client) from a manifest,
//! every answer checked before any cell is timed, and the results as a table, Markdown, CSV,
//! JSON and SVG charts. The suite knows no SOAP (its cases are the manifest's data); it sits
//! above the loadgen library, whose engine it runs in-process, and runs ab as a child process.
//!
//! # Map
//! - `args`: the command line.
//! - `cases`: `loadgen suite cases`: a manifest and post files from any WSDL (the `wsdl` crate).
//! - [`manifest`]: the cases, read from `post_files/manifest.toml` or `--manifest`.
//! - [`placement`]: servers and clients on separate cores.
//! - [`target`]: servers the suite starts (ours, the ceiling, stacks) or finds at a URL.
//! - `terminator`: `--tls` for a stack of plain HTTP: nginx in front of it.
//! - `check`: one request per case and target, judged before any timing.
//! - [`client`]: the [`client::LoadClient`] interface, and ab as one.
//! - [`loadgen_client`]: loadgen as one, in this process through its library.
//! - [`matrix`]: the cells, run in interleaved repeats, with medians and spreads.
//! - [`knee`]: `--slo`: the highest rate within latency objectives, by a ramp and bisection.
//! - [`change`]: each cell's change against an earlier run, with a confidence interval and a
//!   verdict; [`baseline`]: `--baseline`, which reads that run and compares.
//! - [`output`]: the results document and its table in each format.
//! - `chart`: the SVG charts.
//! - `report`: `index.html`, one self-contained page of the table, the charts and each cell.

mod args;
pub mod baseline;
mod cases;
pub mod change;
mod chart;
mod check;
pub mod client;
pub mod knee;
pub mod loadgen_client;
pub mod manifest;
pub mod matrix;
pub mod output;
pub mod placement;
mod report;
pub mod target;
mod terminator;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Parser as _;

use crate::args::{Args, ClientName, Format};
use crate::baseline::{Baseline, REGRESSION_EXIT_CODE};
use crate::client::{AbClient, LoadClient};
use crate::loadgen_client::Loadgen;
use crate::matrix::Matrix;
use crate::output::{Described, Protocol, Show, SuiteResults};
use crate::placement::Placement;
use crate::target::{ServerTls, Target, TargetSpec};

/// The exit code when the suite ran to the end but some target answered a case wrongly or
/// some request failed.
pub const WRONG_EXIT_CODE: i32 = 3;

/// The exit code of a command line the suite cannot run: an unknown option or value, or
/// options that cannot go together.
pub const USAGE_EXIT_CODE: i32 = 2;

/// Runs `loadgen suite ARGS...` (`argv` without the `suite` word): prints the table and writes
/// `--out`. Returns the exit code: 128 + the signal when one interrupted it (its servers
/// stopped, the run's own error, if any, is that interruption's effect).
pub fn run(argv: &[String]) -> anyhow::Result<i32> {
    if argv.first().map(String::as_str) == Some("cases") {
        return cases::run(&argv[1..]);
    }
    let outcome = run_suite(argv);
    match target::interrupted() {
        Some(signal) => Ok(128 + signal),
        None => match outcome {
            Err(error) if error.is::<UsageError>() => {
                eprintln!("loadgen suite: {error:#}");
                Ok(USAGE_EXIT_CODE)
            }
            other => other,
        },
    }
}

/// A command line the suite cannot run, found before anything starts (a value clap cannot
/// judge alone: a target, a core, a test the manifest lacks, options that cannot go
/// together): exit 2, as clap's own usage errors.
#[derive(Debug)]
struct UsageError(anyhow::Error);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for UsageError {}

fn usage(error: anyhow::Error) -> anyhow::Error {
    anyhow::Error::new(UsageError(error))
}

fn run_suite(argv: &[String]) -> anyhow::Result<i32> {
    let args = match Args::try_parse_from(
        std::iter::once("loadgen suite".to_owned()).chain(argv.iter().cloned()),
    ) {
        Ok(args) => args,
        Err(error) => {
            let _ = error.print();
            // `--help` and `--version` come this way too, and are no error.
            let usage_error = error.use_stderr();
            return Ok(if usage_error { USAGE_EXIT_CODE } else { 0 });
        }
    };
    let show = Show {
        latency: args.latency,
        resources: args.resources,
    };
    if let Some(dir) = &args.redraw {
        return redraw(dir, show).map(|()| 0);
    }
    let manifest_path = args.manifest.clone().map_or_else(default_manifest, Ok)?;
    let mut cases =
        manifest::select(manifest::read(&manifest_path)?, &args.tests).map_err(usage)?;
    let _mix_files = manifest::MixFiles::write(&mut cases)?;
    // Before the suite pins itself, which narrows what this process sees; the cores this
    // thread had come back when the run ends, however it ends.
    let machine = host::Machine::this();
    let _restore = placement::SavedAffinity::save()?;
    let placement = Placement::choose(
        args.server_cpus.as_deref(),
        args.client_cpus.as_deref(),
        args.no_pin,
    )
    .map_err(usage)?;
    if let Some(placement) = &placement {
        placement.enter_client()?;
    }
    let ab = AbClient {
        program: "ab".to_owned(),
    };
    let clients = clients(&args, &ab)?;
    let baseline = args.baseline.as_deref().map(Baseline::read).transpose()?;
    let protocol = Protocol {
        tls: args.tls,
        http2: args.http2,
        streams: args.streams,
    };
    let repo = repo_of(&manifest_path);
    let specs = target_specs(&args, &repo)?;
    let tls = args
        .tls
        .then(|| {
            ServerTls::throwaway(&repo).map(|tls| ServerTls {
                http2: args.http2,
                ..tls
            })
        })
        .transpose()?;
    let mut targets = start_targets(&args, &specs, placement.as_ref(), tls.as_ref())?;
    let (described_targets, described_clients) = described(&targets, &clients);
    let baseline_notes = match &baseline {
        Some(baseline) => baseline.check_plan(
            &cases
                .iter()
                .map(|case| case.test.clone())
                .collect::<Vec<_>>(),
            &args.concurrency,
            &names(&described_targets),
            &names(&described_clients),
            protocol,
        )?,
        None => Vec::new(),
    };
    for note in &baseline_notes {
        eprintln!("loadgen suite: --baseline: {note}");
    }
    let matrix = Matrix {
        cases: &cases,
        concurrencies: &args.concurrency,
        clients: &clients,
        duration: args.duration,
        warmup: args.warmup,
        repeat: args.repeat,
        objectives: &args.objectives,
        http2: args.http2.then_some(args.streams),
    };
    let cells = matrix.run(&mut targets)?;
    let mut results = SuiteResults {
        format: 1,
        command_line: std::iter::once("loadgen suite".to_owned())
            .chain(argv.iter().cloned())
            .collect(),
        date: host::utc_minute(),
        machine,
        placement,
        duration_s: args.duration.as_secs_f64(),
        warmup_s: args.warmup.as_secs_f64(),
        repeat: args.repeat,
        targets: described_targets,
        clients: described_clients,
        tests: cases.iter().map(|case| case.test.clone()).collect(),
        concurrencies: args.concurrency.clone(),
        protocol,
        cells,
        baseline: None,
    };
    drop(targets);
    if let Some(baseline) = &baseline {
        results.baseline = Some(baseline.compare(&results, baseline_notes));
    }
    host::out!("{}", render(&results, args.format, show)?);
    if let Some(dir) = &args.out {
        write_out(&results, dir, show)?;
    }
    Ok(exit_code(&results, args.fail_on_regression))
}

/// What `--format` prints on stdout.
fn render(results: &SuiteResults, format: Format, show: Show) -> anyhow::Result<String> {
    Ok(match format {
        Format::Table => results.text(show),
        Format::Markdown => results.markdown(show),
        Format::Csv => results.csv(),
        Format::Json => serde_json::to_string_pretty(results)? + "\n",
    })
}

/// `--redraw DIR`: the charts, results.md and index.html of DIR again from its results.json.
fn redraw(dir: &Path, show: Show) -> anyhow::Result<()> {
    let path = dir.join("results.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let results: SuiteResults = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a suite's results.json", path.display()))?;
    write_out(&results, dir, show)
}

/// The targets and clients as results.json describes them.
fn described(targets: &[Target], clients: &[&dyn LoadClient]) -> (Vec<Described>, Vec<Described>) {
    let targets = targets
        .iter()
        .map(|target| Described {
            name: target.name.clone(),
            url: Some(target.url.to_string()),
            version: target.version.clone(),
        })
        .collect();
    let clients = clients
        .iter()
        .map(|client| Described {
            name: client.name().to_owned(),
            url: None,
            version: client.version(),
        })
        .collect();
    (targets, clients)
}

fn names(described: &[Described]) -> Vec<String> {
    described.iter().map(|one| one.name.clone()).collect()
}

/// The clients `--client` names; ab refused with `--http2`, as a usage error.
fn clients<'a>(args: &Args, ab: &'a AbClient) -> anyhow::Result<Vec<&'a dyn LoadClient>> {
    let mut clients: Vec<&dyn LoadClient> = Vec::new();
    for name in &args.clients {
        match name {
            ClientName::Loadgen => clients.push(&Loadgen),
            ClientName::Ab if args.http2 => {
                return Err(usage(anyhow::anyhow!(
                    "--http2: ab speaks no HTTP/2; use --client loadgen"
                )));
            }
            ClientName::Ab => clients.push(ab),
        }
    }
    Ok(clients)
}

/// Every target, the stacks started; with `--tls`, each must listen over TLS. Started ones stop
/// when the returned targets are dropped, also on an error.
fn start_targets(
    args: &Args,
    specs: &[TargetSpec],
    placement: Option<&Placement>,
    tls: Option<&ServerTls>,
) -> anyhow::Result<Vec<Target>> {
    let mut targets = Vec::with_capacity(specs.len());
    for spec in specs {
        let target = Target::start(spec, placement, tls)?;
        if args.tls && target.url.scheme != loadgen::url::Scheme::Https {
            bail!(
                "--tls: {} listens at {}, not over TLS (a --target must be an https:// URL)",
                target.name,
                target.url
            );
        }
        targets.push(target);
    }
    Ok(targets)
}

/// 0, or 3 when some answer was wrong or some request failed, else 4 when `--fail-on-regression`
/// found a cell slower than the baseline (said on stderr).
fn exit_code(results: &SuiteResults, fail_on_regression: Option<f64>) -> i32 {
    let clean = results.cells.iter().all(|cell| {
        cell.wrong.is_none()
            && cell
                .summary
                .as_ref()
                .is_none_or(|summary| summary.failed + summary.non_2xx == 0)
    });
    let regressed: Vec<String> = match (&results.baseline, fail_on_regression) {
        (Some(comparison), Some(pct)) => comparison
            .cells
            .iter()
            .filter(|change| change.regressed_by_more_than(pct))
            .map(|change| change.key.describe())
            .collect(),
        _ => Vec::new(),
    };
    if !regressed.is_empty() {
        eprintln!(
            "loadgen suite: slower than the baseline by more than {}% with confidence: {}",
            fail_on_regression.unwrap_or_default(),
            regressed.join("; ")
        );
    }
    if !clean {
        WRONG_EXIT_CODE
    } else if !regressed.is_empty() {
        REGRESSION_EXIT_CODE
    } else {
        0
    }
}

/// `results.json` (unless it is there already: `--redraw` reads it), `results.md` (the table,
/// then the charts), the SVG charts and `index.html`.
fn write_out(results: &SuiteResults, dir: &Path, show: Show) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let json_path = dir.join("results.json");
    let json = serde_json::to_string_pretty(results)? + "\n";
    if std::fs::read_to_string(&json_path).ok().as_deref() != Some(json.as_str()) {
        std::fs::write(&json_path, json)
            .with_context(|| format!("writing {}", json_path.display()))?;
    }
    let charts = chart::write_all(results, dir)?;
    report::write(results, dir, &charts)?;
    let mut markdown = results.markdown(show);
    markdown.push('\n');
    for chart in charts {
        markdown.push_str(&format!("![{chart}]({chart})\n"));
    }
    std::fs::write(dir.join("results.md"), markdown)
        .with_context(|| format!("writing {}", dir.join("results.md").display()))?;
    Ok(())
}

/// The folder above the manifest's: the repository, with scripts/ and target/.
fn repo_of(manifest_path: &Path) -> PathBuf {
    manifest_path
        .canonicalize()
        .unwrap_or_else(|_| manifest_path.to_path_buf())
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// What `--stack` and `--target` name, or ours alone.
fn target_specs(args: &Args, repo: &Path) -> anyhow::Result<Vec<TargetSpec>> {
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let stacks_dir = match &args.stacks_dir {
        Some(dir) => dir.clone(),
        None => repo.join("scripts/stacks"),
    };
    let mut specs = Vec::new();
    let stacks: Vec<String> = if args.stacks.is_empty() && args.targets.is_empty() {
        vec!["wstest".to_owned()]
    } else {
        args.stacks.clone()
    };
    for name in stacks {
        let spec = match name.as_str() {
            "wstest" => TargetSpec::Binary {
                program: match &args.server_bin {
                    Some(path) => path.clone(),
                    None => beside(&exe_dir, "wstest-server", "cargo build --release -p server")?,
                },
                name,
                args: Vec::new(),
            },
            "ceiling" => TargetSpec::Binary {
                program: beside(&exe_dir, "ceiling", "cargo build --release -p ceiling")?,
                name,
                args: Vec::new(),
            },
            _ => {
                let dir = stacks_dir.join(&name);
                target::check_stack(&name, &dir).map_err(usage)?;
                TargetSpec::Stack { dir, name }
            }
        };
        specs.push(spec);
    }
    let mut pids = Vec::new();
    for given in &args.target_pids {
        let pid = given
            .split_once('=')
            .and_then(|(name, pid)| Some((name, pid.parse::<u32>().ok()?)))
            .with_context(|| format!("--target-pid {given:?}: expected NAME=PID"))
            .map_err(usage)?;
        if !args
            .targets
            .iter()
            .any(|target| target.split_once('=').map(|t| t.0) == Some(pid.0))
        {
            return Err(usage(anyhow::anyhow!(
                "--target-pid {given:?}: no --target is named {:?}",
                pid.0
            )));
        }
        pids.push(pid);
    }
    for target in &args.targets {
        let Some((name, url)) = target.split_once('=') else {
            return Err(usage(anyhow::anyhow!(
                "--target {target:?}: expected NAME=URL"
            )));
        };
        let url = loadgen::url::Url::parse(url)
            .with_context(|| format!("--target {target:?}: expected http[s]://HOST:PORT/PATH"))
            .map_err(usage)?;
        specs.push(TargetSpec::Url {
            name: name.to_owned(),
            url,
            pid: pids
                .iter()
                .find(|(given, _)| *given == name)
                .map(|(_, pid)| *pid),
        });
    }
    for (idx, spec) in specs.iter().enumerate() {
        if specs[..idx]
            .iter()
            .any(|earlier| earlier.name() == spec.name())
        {
            return Err(usage(anyhow::anyhow!(
                "two targets are named {:?}",
                spec.name()
            )));
        }
    }
    Ok(specs)
}

/// A binary of the workspace beside loadgen's own.
fn beside(exe_dir: &Path, name: &str, build: &str) -> anyhow::Result<PathBuf> {
    let path = exe_dir.join(name);
    if !path.is_file() {
        bail!(
            "no {name} beside loadgen in {} ({build}, or pass --server-bin / --target)",
            exe_dir.display()
        );
    }
    Ok(path)
}

/// `post_files/manifest.toml` of the workspace loadgen was built in (above the binary, which
/// sits in `target/PROFILE/`, or where its sources were when the target folder is elsewhere),
/// or of the current folder or one above it.
fn default_manifest() -> anyhow::Result<PathBuf> {
    const MANIFEST: &str = "post_files/manifest.toml";
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        candidates.extend(
            exe.ancestors()
                .skip(1)
                .take(4)
                .map(|dir| dir.join(MANIFEST)),
        );
    }
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(MANIFEST),
    );
    if let Ok(here) = std::env::current_dir() {
        candidates.extend(here.ancestors().map(|dir| dir.join(MANIFEST)));
    }
    candidates
        .into_iter()
        .find(|path| path.is_file())
        .context("no post_files/manifest.toml in loadgen's workspace or above this folder; pass --manifest FILE")
}
