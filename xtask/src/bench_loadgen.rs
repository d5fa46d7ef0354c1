//! `cargo xtask bench-loadgen`: loadgen beside ab, wrk, oha (when on PATH) and the syscall floor
//! (`loadgen/examples/syscall_floor.rs`: one send and one recv a request and nothing else, the
//! least a closed-loop client can spend), each alone on one client core with one thread and 30
//! keep-alive connections, against the HTTP ceiling on the server core, posting EchoStruct-20.
//! For each tool: requests per second and CPU time (user + system) per completed request. The
//! tools run in turns, ROUNDS times; every ratio is taken within a round and the table shows
//! the median over the rounds. Then loadgen's peak memory on `-n 1000000 -c 100 -k`.
//!
//! `--tls`: the ceiling serves TLS (a certificate from scripts/certs.sh) and the clients speak
//! https, loadgen offering X25519 alone, as ab's OpenSSL 3.0 does, so that both make the same
//! key exchange. `--new-connections`: no keep-alive, each request on a connection of its own
//! (over TLS, a full handshake each, as ab makes them). The floor speaks neither.
//! `--http2`: loadgen `--http2 --streams 10` beside h2load `-m 10` (h2c, or h2 with `--tls`),
//! both on one thread with 30 connections; over TLS loadgen asks for TLS_AES_128_GCM_SHA256,
//! the suite h2load (nghttp2) puts first, where loadgen's default is ab's (OpenSSL's)
//! TLS_AES_256_GCM_SHA384, so that both pay for the same cipher.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use suite::manifest::Case;
use suite::placement::Placement;
use suite::target::{ServerTls, Target, TargetSpec};

use crate::workspace::{self, Measured, append_result, field, median_of, run_pinned};

mod inputs;
use inputs::{flow_file, template_files, wrk_script};

/// loadgen's cost per request beside the other clients'.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Requests per tool and round (wrk runs for as long as loadgen took).
    #[arg(long, default_value_t = 300_000)]
    requests: u64,
    /// Rounds.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Another loadgen binary to measure beside this one, as `before` (an A/B of a change).
    #[arg(long)]
    before: Option<PathBuf>,
    /// Only loadgen (and `--before`) and the floor: no ab, wrk or oha.
    #[arg(long)]
    loadgen_only: bool,
    /// Over TLS (HTTP/1.1).
    #[arg(long)]
    tls: bool,
    /// Each request on a new connection (no -k); only loadgen and ab then.
    #[arg(long)]
    new_connections: bool,
    /// HTTP/2 with 10 streams a connection: loadgen and h2load only.
    #[arg(long, conflicts_with = "new_connections")]
    http2: bool,
    /// Also loadgen posting EchoStruct-20 as a template: its 20 ints and 20 strings filled from
    /// a 10,000-row CSV (`--data`), the rows in turn; only loadgen's two runs and the floor.
    #[arg(long, conflicts_with_all = ["tls", "new_connections", "http2"])]
    template: bool,
    /// Also loadgen judging each answer with `--check-xpath` ([`XPATH_CHECK`], which reads
    /// the whole answer); only loadgen's runs and the floor.
    #[arg(long, conflicts_with_all = ["tls", "new_connections", "http2"])]
    xpath: bool,
    /// Also loadgen running a flow (`--mix` with a `[flow]`): a login (EchoStruct-20, its
    /// answer's first string saved by `--save`) then nine calls (EchoStruct-20 with the saved
    /// value in its body, a template); only loadgen's runs and the floor.
    #[arg(long, conflicts_with_all = ["tls", "new_connections", "http2"])]
    flow: bool,
    /// Where the table is appended (default: docs/results/bench-loadgen.md).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// `--xpath`'s check: a count over the whole answer, so the walk reads every tag of it.
const XPATH_CHECK: &str = "count(/Envelope/Body/EchoStructResponse/EchoStructResult/l) = 20";

/// One round of one tool.
#[derive(Debug, Clone, Copy)]
struct Round {
    requests_per_second: f64,
    cpu_us_per_request: f64,
    user_us_per_request: f64,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    // Before anything pins this process, which narrows the cores it sees.
    let stamp = workspace::stamp();
    let release = workspace::build_release(&["ceiling", "loadgen-cli"])?;
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args([
            "build",
            "--release",
            "-q",
            "-p",
            "loadgen",
            "--example",
            "syscall_floor",
        ])
        .arg("--manifest-path")
        .arg(workspace::root().join("Cargo.toml"))
        .status()?;
    if !status.success() {
        bail!("building the syscall floor failed");
    }
    let placement = Placement::choose(None, None, false)?.context(
        "bench-loadgen pins the server and the client to cores of their own: it needs two",
    )?;
    let client_cpu = [placement.client_cpus[0]];
    let tls = args
        .tls
        .then(|| ServerTls::throwaway(&workspace::root()))
        .transpose()?;
    let ceiling = workspace::start_server(
        &TargetSpec::Binary {
            name: "ceiling".to_owned(),
            program: release.join("ceiling"),
            args: Vec::new(),
        },
        Some(&placement),
        tls.as_ref(),
    )?;
    let manifest = workspace::root().join("post_files/manifest.toml");
    let case = suite::manifest::select(
        suite::manifest::read(&manifest)?,
        &["EchoStruct-20".to_owned()],
    )?
    .remove(0);
    let tools = tools(args, &release);
    let template = args
        .template
        .then(|| template_files(&case, 10_000))
        .transpose()?;
    let flow = args.flow.then(|| flow_file(&case)).transpose()?;
    let lua = std::env::temp_dir().join(format!("xtask-wrk-{}.lua", std::process::id()));
    std::fs::write(&lua, wrk_script(&case)?)?;
    let mut rounds: BTreeMap<&str, Vec<Round>> = BTreeMap::new();
    let mut loadgen_seconds = 5.0f64;
    for round in 1..=args.rounds {
        // Every other round in reverse (ABBA), so that no tool always runs first or last.
        let mut order: Vec<&(&str, PathBuf)> = tools.iter().collect();
        if round % 2 == 0 {
            order.reverse();
        }
        for (name, program) in order {
            let mut command = command_of(name, args, &case, &ceiling, &lua, loadgen_seconds);
            with_inputs(name, &mut command, template.as_ref(), flow.as_deref())?;
            let measured = run_pinned(&client_cpu, program, &command)?;
            // A flow's pass that fails (a save that finds nothing) fails no request.
            let flows_failed = *name == "flow"
                && !(measured.stdout().lines()).any(|line| {
                    line.starts_with("Flows:")
                        && line.contains(" done (")
                        && line.contains(", 0 failed (")
                });
            if flows_failed
                || matches!(*name, "xpath" | "flow")
                    && field(&measured.stdout(), "Failed requests:") != Some(0.0)
            {
                bail!(
                    "the {name} run failed on some answers:\n{}",
                    measured.stdout()
                );
            }
            let (done, rps) = figures(name, &measured)?;
            if *name == "loadgen" {
                loadgen_seconds = field(&measured.stdout(), "Time taken for tests:").unwrap_or(5.0);
            }
            let per = |d: std::time::Duration| d.as_secs_f64() * 1e6 / done;
            let figures = Round {
                requests_per_second: rps,
                cpu_us_per_request: per(measured.cpu()),
                user_us_per_request: per(measured.user),
            };
            eprintln!(
                "round {round} {name}: {done} requests, {rps:.0} req/s, {:.2} µs CPU a request",
                figures.cpu_us_per_request
            );
            rounds.entry(name).or_default().push(figures);
        }
    }
    let _ = std::fs::remove_file(&lua);
    if let Some((body, data)) = &template {
        let _ = (std::fs::remove_file(body), std::fs::remove_file(data));
    }
    if let Some(mix) = &flow {
        let _ = std::fs::remove_file(mix);
    }
    let mut text = table(&stamp, args, &tools, &rounds);
    drop(ceiling);
    if !args.tls && !args.new_connections && !args.http2 {
        text.push_str(&peak_memory(&release, &case, args.template)?);
    }
    append_result("bench-loadgen.md", args.output.as_deref(), &text)
}

/// Turns loadgen's command into `name`'s: the template's body and data, the xpath check, or
/// the flow's mix file in place of the fixed body.
fn with_inputs(
    name: &str,
    command: &mut Vec<String>,
    template: Option<&(PathBuf, PathBuf)>,
    flow: Option<&Path>,
) -> anyhow::Result<()> {
    let at = command.iter().position(|word| word == "-p");
    match (name, template, flow) {
        ("template", Some((body, data)), _) => {
            // The fixed body's -p replaced by the template's, fed by the data.
            let at = at.context("-p")?;
            command[at + 1] = body.display().to_string();
            command.splice(at..at, ["--data".to_owned(), data.display().to_string()]);
        }
        ("xpath", ..) => {
            let at = at.context("-p")?;
            command.splice(at..at, ["--check-xpath".to_owned(), XPATH_CHECK.to_owned()]);
        }
        ("flow", _, Some(mix)) => {
            let at = at.context("-p")?;
            command[at] = "--mix".to_owned();
            command[at + 1] = mix.display().to_string();
        }
        _ => {}
    }
    Ok(())
}

/// The tools in the order they run in each round.
fn tools(args: &Args, release: &Path) -> Vec<(&'static str, PathBuf)> {
    let mut tools = vec![("loadgen", release.join("loadgen"))];
    if args.template {
        tools.push(("template", release.join("loadgen")));
    }
    if args.xpath {
        tools.push(("xpath", release.join("loadgen")));
    }
    if args.flow {
        tools.push(("flow", release.join("loadgen")));
    }
    if let Some(before) = &args.before {
        tools.push(("before", before.clone()));
    }
    if args.http2 {
        if !args.loadgen_only {
            tools.push(("h2load", PathBuf::from("h2load")));
        }
        return tools;
    }
    if !args.loadgen_only && !args.template && !args.xpath && !args.flow {
        tools.push(("ab", PathBuf::from("ab")));
        if !args.new_connections {
            tools.push(("wrk", PathBuf::from("wrk")));
            if Command::new("oha").arg("--version").output().is_ok() {
                tools.push(("oha", PathBuf::from("oha")));
            }
        }
    }
    if !args.tls && !args.new_connections {
        tools.push(("floor", release.join("examples/syscall_floor")));
    }
    tools
}

/// The command line of `tool` for one round.
fn command_of(
    tool: &str,
    args: &Args,
    case: &Case,
    ceiling: &Target,
    lua: &Path,
    loadgen_seconds: f64,
) -> Vec<String> {
    let url = ceiling.url.to_string();
    let body = case.body_file.display().to_string();
    let n = args.requests.to_string();
    let keep_alive = || (!args.new_connections).then(|| "-k".to_owned());
    let mut command: Vec<String> = match tool {
        "loadgen" | "before" | "template" | "xpath" | "flow" => {
            ["--threads", "1", "-q", "-c", "30", "-n"]
                .map(String::from)
                .into_iter()
                .chain([n])
                .chain(keep_alive())
                .chain(
                    args.tls
                        .then(|| ["--tls-groups".to_owned(), "X25519".to_owned()])
                        .into_iter()
                        .flatten(),
                )
                .chain(
                    (args.tls && args.http2)
                        .then(|| ["-Z".to_owned(), "TLS_AES_128_GCM_SHA256".to_owned()])
                        .into_iter()
                        .flatten(),
                )
                .chain(
                    args.http2
                        .then(|| ["--http2".to_owned(), "--streams=10".to_owned()])
                        .into_iter()
                        .flatten(),
                )
                .collect()
        }
        "h2load" => {
            let mut command: Vec<String> = ["-t", "1", "-c", "30", "-m", "10", "-n"]
                .map(String::from)
                .into_iter()
                .chain([n, "-d".to_owned(), body])
                .collect();
            command.extend([
                "-H".to_owned(),
                format!("content-type: {}", case.content_type),
            ]);
            for header in &case.headers {
                command.extend(["-H".to_owned(), header.clone()]);
            }
            command.push(url);
            return command;
        }
        "ab" => ["-q", "-c", "30", "-n"]
            .map(String::from)
            .into_iter()
            .chain([n])
            .chain(keep_alive())
            .collect(),
        "wrk" => {
            return vec![
                "-t1".into(),
                "-c30".into(),
                format!("-d{}s", loadgen_seconds.round().max(1.0)),
                "-s".into(),
                lua.display().to_string(),
                url,
            ];
        }
        "oha" => vec![
            "--no-tui".into(),
            "--output-format".into(),
            "json".into(),
            "-n".into(),
            n,
            "-c".into(),
            "30".into(),
            "-m".into(),
            "POST".into(),
            "-D".into(),
            body.clone(),
        ],
        _ => {
            // The floor: HOST:PORT PATH POST_FILE HEADER_VALUE REQUESTS CONNECTIONS.
            let action = case
                .headers
                .iter()
                .find_map(|header| header.strip_prefix("SOAPAction:"))
                .unwrap_or("")
                .trim()
                .trim_matches('"')
                .to_owned();
            return vec![
                format!("{}:{}", ceiling.url.host, ceiling.url.port),
                ceiling.url.path.clone(),
                body,
                action,
                args.requests.to_string(),
                "30".into(),
            ];
        }
    };
    if tool != "oha" {
        command.extend(["-p".into(), body]);
    }
    command.extend(["-T".into(), case.content_type.clone()]);
    for header in &case.headers {
        command.extend(["-H".into(), header.clone()]);
    }
    command.push(url);
    command
}

/// Requests completed and requests per second, from a tool's output (the floor reports no rate).
fn figures(tool: &str, measured: &Measured) -> anyhow::Result<(f64, f64)> {
    let stdout = measured.stdout();
    let missing = || format!("{tool}'s output has no request count:\n{stdout}");
    Ok(match tool {
        // "finished in 1.23s, 81234.56 req/s, ..." and "requests: N total, N started, N done,
        // N succeeded, ...".
        "h2load" => {
            let succeeded = stdout
                .lines()
                .find_map(|line| line.strip_prefix("requests: "))
                .and_then(|line| {
                    line.split(", ")
                        .find_map(|part| part.strip_suffix(" succeeded"))
                        .and_then(|n| n.trim().parse::<f64>().ok())
                })
                .with_context(missing)?;
            let rps = stdout
                .lines()
                .find_map(|line| line.strip_prefix("finished in "))
                .and_then(|line| line.split(", ").nth(1))
                .and_then(|part| part.strip_suffix(" req/s"))
                .and_then(|n| n.trim().parse::<f64>().ok())
                .unwrap_or(0.0);
            (succeeded, rps)
        }
        "wrk" => {
            let done = stdout
                .lines()
                .find_map(|line| {
                    line.trim()
                        .split_once(" requests in ")
                        .map(|(n, _)| n.parse::<f64>())
                })
                .with_context(missing)??;
            (done, field(&stdout, "Requests/sec:").unwrap_or(0.0))
        }
        "oha" => {
            let json: serde_json::Value = serde_json::from_str(&stdout).with_context(missing)?;
            let done: f64 = json["statusCodeDistribution"]
                .as_object()
                .with_context(missing)?
                .values()
                .filter_map(serde_json::Value::as_f64)
                .sum();
            (
                done,
                json["summary"]["requestsPerSec"].as_f64().unwrap_or(0.0),
            )
        }
        _ => (
            field(&stdout, "Complete requests:").with_context(missing)?,
            field(&stdout, "Requests per second:").unwrap_or(0.0),
        ),
    })
}

/// The table: medians over the rounds, and ratios taken within each round.
fn table(
    stamp: &str,
    args: &Args,
    tools: &[(&str, PathBuf)],
    rounds: &BTreeMap<&str, Vec<Round>>,
) -> String {
    let of = |tool: &str, get: fn(&Round) -> f64| -> Vec<f64> {
        rounds
            .get(tool)
            .map(|list| list.iter().map(get).collect())
            .unwrap_or_default()
    };
    let ratio = |a: &str, b: &str| -> (f64, Vec<f64>) {
        let per_round: Vec<f64> = of(a, |r| r.cpu_us_per_request)
            .iter()
            .zip(of(b, |r| r.cpu_us_per_request))
            .map(|(a, b)| a / b)
            .collect();
        (median_of(per_round.clone()), per_round)
    };
    let show = |(median, rounds): (f64, Vec<f64>)| {
        if rounds.is_empty() {
            return "-".to_owned();
        }
        let rounds: Vec<String> = rounds.iter().map(|r| format!("{r:.2}")).collect();
        format!("{median:.2} ({})", rounds.join("/"))
    };
    let mut out = format!(
        "\n## {}, median of {} rounds{}\n\nCommand: `cargo xtask bench-loadgen --requests {} --rounds {}{}{}{}{}{}` (ceiling on the server core; each client alone on one client core, one thread, {} -c 30, EchoStruct-20; every other round in reverse order)\n\n| tool | req/s | CPU µs per request | of which user | loadgen's CPU per request ÷ this (rounds) | the floor's ÷ this (rounds) |\n|---|---:|---:|---:|---:|---:|\n",
        stamp,
        args.rounds,
        match (args.tls, args.new_connections, args.http2) {
            (true, true, _) => ", over TLS, a new connection (a full handshake) a request",
            (true, false, true) => ", HTTP/2 over TLS, 10 streams a connection",
            (false, _, true) => ", HTTP/2 (h2c), 10 streams a connection",
            (true, false, false) => ", over TLS",
            (false, true, false) => ", a new connection a request",
            (false, false, false) => "",
        },
        args.requests,
        args.rounds,
        if args.tls { " --tls" } else { "" },
        if args.http2 { " --http2" } else { "" },
        if args.new_connections {
            " --new-connections"
        } else {
            ""
        },
        if args.before.is_some() {
            " --before BIN"
        } else {
            ""
        },
        match (args.loadgen_only, args.template, args.xpath, args.flow) {
            (true, ..) => " --loadgen-only",
            (false, true, ..) => " --template",
            (false, false, true, _) => " --xpath",
            (false, false, false, true) => " --flow",
            (false, false, false, false) => "",
        },
        if args.new_connections { "no -k" } else { "-k" },
    );
    for (tool, _) in tools {
        let rps = if *tool == "floor" {
            "-".to_owned()
        } else {
            format!("{:.0}", median_of(of(tool, |r| r.requests_per_second)))
        };
        out.push_str(&format!(
            "| {tool} | {rps} | {:.2} | {:.2} | {} | {} |\n",
            median_of(of(tool, |r| r.cpu_us_per_request)),
            median_of(of(tool, |r| r.user_us_per_request)),
            show(ratio("loadgen", tool)),
            show(ratio("floor", tool)),
        ));
    }
    if rounds.contains_key("template") {
        out.push_str(&format!(
            "\ntemplate's CPU a request ÷ the fixed body's (loadgen's): {}\n",
            show(ratio("template", "loadgen"))
        ));
    }
    if rounds.contains_key("xpath") {
        out.push_str(&format!(
            "\nxpath's CPU a request ÷ the unchecked run's (loadgen's): {} (`--check-xpath '{XPATH_CHECK}'`)\n",
            show(ratio("xpath", "loadgen"))
        ));
    }
    if rounds.contains_key("flow") {
        out.push_str(&format!(
            "\nflow's CPU a request ÷ the fixed body's (loadgen's): {} (a pass: a login whose answer's twentieth string, near its end, is saved by `--save`, then nine calls that send it in their body)\n",
            show(ratio("flow", "loadgen"))
        ));
    }
    for other in ["before", "wrk"] {
        if rounds.contains_key(other) {
            let per_round: Vec<f64> = of("loadgen", |r| r.requests_per_second)
                .iter()
                .zip(of(other, |r| r.requests_per_second))
                .map(|(a, b)| a / b)
                .collect();
            out.push_str(&format!(
                "\nloadgen's req/s ÷ {other}'s: {}\n",
                show((median_of(per_round.clone()), per_round))
            ));
        }
    }
    out
}

/// loadgen's peak resident memory on a million requests over 100 keep-alive connections,
/// measured by a helper process whose only child it is (`cargo xtask peak-rss`).
fn peak_memory(release: &Path, case: &Case, template: bool) -> anyhow::Result<String> {
    let server = workspace::start_server(
        &TargetSpec::Binary {
            name: "ceiling".to_owned(),
            program: release.join("ceiling"),
            args: Vec::new(),
        },
        None,
        None,
    )?;
    let mut command = vec![
        "-q".to_owned(),
        "-k".to_owned(),
        "-c100".to_owned(),
        "-n1000000".to_owned(),
        "-T".to_owned(),
        case.content_type.clone(),
    ];
    for header in &case.headers {
        command.extend(["-H".to_owned(), header.clone()]);
    }
    command.push(server.url.to_string());
    let measure = |body: &Path, data: Option<&Path>| -> anyhow::Result<u64> {
        let mut command = command.clone();
        command.splice(0..0, ["-p".to_owned(), body.display().to_string()]);
        if let Some(data) = data {
            command.splice(0..0, ["--data".to_owned(), data.display().to_string()]);
        }
        crate::peak_rss::of(&release.join("loadgen"), &command)
    };
    let kb = measure(&case.body_file, None)?;
    let mut text = format!(
        "\nloadgen -n 1000000 -c 100 -k: peak resident memory {} MB ({kb} kB)\n",
        kb / 1024
    );
    if template {
        // A million rows: the data's share of the memory stands out of the run's own.
        let (body, data) = template_files(case, 1_000_000)?;
        let file_kb = std::fs::metadata(&data)?.len() / 1024;
        let templated = measure(&body, Some(&data))?;
        text.push_str(&format!(
            "\nthe same with the template and a million-row CSV of {file_kb} kB: peak resident memory {templated} kB, {} kB above the fixed body's ({:.2} of the file)\n",
            templated.saturating_sub(kb),
            templated.saturating_sub(kb) as f64 / file_kb as f64,
        ));
        let _ = (std::fs::remove_file(body), std::fs::remove_file(data));
    }
    Ok(text)
}
