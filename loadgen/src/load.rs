//! The load and nothing else: a plan from the settings, then [`execute`], which starts one
//! engine thread per event loop and returns their merged figures. Nothing here prints (ab's
//! `-v` lines go to the [`Log`] the caller gives), writes files, or touches process-wide state
//! such as signal handlers (the open-file limit is raised by [`allow_connections`], for a
//! caller that chooses to): ab's front end and `loadgen suite` each do that around it.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context as _, bail};

use crate::check::{AnswerChecks, MAX_CHECKED_BODY};
use crate::engine::{self, Http2Plan, TlsPlan};
use crate::flow::{self, FlowPlan};
use crate::http::BodyChecks;
use crate::live::{Live, Offered};
use crate::mix::{Mix, Part};
use crate::options::{Checks, Options, RequestOptions, Target};
use crate::pace::Pace;
use crate::report::RunInfo;
use crate::request;
use crate::stats::{self, MAX_SAMPLES, Results};
use crate::template::{Data, Filler, Scope, TemplateError};
use crate::url::Scheme;

pub use crate::engine::{Abort, Kind, Log, Plan, Shared};

/// Raises the open-file limit so that `concurrency` connections fit (the default 1024 would
/// fail `-c 2000` with "Too many open files"); `Err` holds the limit it got when that is less,
/// for the caller to say.
pub fn allow_connections(concurrency: u32) -> Result<(), host::FileLimit> {
    host::raise_open_file_limit(u64::from(concurrency) + 64)
}

/// How often `execute` calls its `on_tick`.
pub const TICK: Duration = Duration::from_millis(100);

/// How a run ended.
#[derive(Debug)]
pub struct Outcome {
    pub results: Results,
    /// An ab-style fatal error (the `-s` stall, a receive error without `-r`, connect
    /// failures), with ab's message and exit code.
    pub abort: Option<Abort>,
    /// `stop` was set before the work was done.
    pub stopped: bool,
}

/// The engine's plan and the report's description of the run `options` describe: reads the
/// body file, resolves the target, builds the request bytes. `-v`'s lines go to `log`.
pub fn plan_of(options: &Options, log: Log) -> anyhow::Result<(Arc<Plan>, RunInfo)> {
    let Options {
        target,
        load,
        request,
        checks,
        output,
    } = options;
    let addr = resolve(target)?;
    let alpn = if request.http2 {
        tls::ALPN_H2
    } else {
        tls::ALPN_HTTP1
    };
    let tls = match target.url.scheme {
        Scheme::Https => {
            let name = target.tls_name(&request.headers);
            Some(TlsPlan {
                config: tls::client::client_config(&target.tls, &[alpn])?,
                server_name: tls::client::server_name(&name)?,
            })
        }
        Scheme::Http => None,
    };
    let data = match request.templating.as_ref().and_then(|t| t.data.as_deref()) {
        Some(path) => Some(Data::read(path)?),
        None => None,
    };
    let mut answer_checks =
        AnswerChecks::new(&checks.check_xpath, &checks.check_regex, checks.soap_faults)?;
    let flow = request.mix.as_ref().and_then(|mix| mix.flow.as_ref());
    let variables = variables_of(request)?;
    let scope = Scope {
        data: data.as_ref(),
        variables: &variables,
    };
    let mut kinds = kinds_of(target, request, checks, scope, &mut answer_checks)?;
    let flow = match (flow, &request.mix) {
        (Some(flow), Some(mix)) => Some(flow_plan(flow, &mix.parts, &variables, &kinds)?),
        _ => None,
    };
    let http2 = match request.http2 {
        true => Some(Http2Plan {
            requests: kinds
                .iter_mut()
                .map(|kind| kind.http2.take().unwrap_or_default())
                .collect(),
            streams: load.streams.unwrap_or(1) as usize,
        }),
        false => None,
    };
    let bind = match &target.bind_address {
        Some(address) => Some(
            (address.as_str(), 0)
                .to_socket_addrs()
                .ok()
                .and_then(|mut addrs| addrs.find(|a| a.is_ipv4() == addr.is_ipv4()))
                .with_context(|| format!("cannot bind to {address}: no such local address"))?,
        ),
        None => None,
    };
    let share = load.share();
    let concurrency = share.concurrency as usize;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let n_threads = load.n_threads.unwrap_or(cores).min(concurrency).max(1);
    let live = (output.metrics.is_some() || output.remote_write.is_some())
        .then(|| live_counts(options, n_threads, kinds.len()));
    let filler = request.templating.as_ref().map(|templating| {
        Filler::new(
            data,
            templating.order,
            templating.seed,
            share.shard,
            n_threads,
        )
    });
    let plan = Arc::new(Plan {
        kinds,
        flow,
        filler,
        picker: request.mix.as_ref().map(Mix::picker),
        live,
        addr,
        tls,
        http2,
        bind,
        socket_buffer: target.socket_buffer,
        keep_alive: request.keep_alive,
        n_requests: share.n_requests,
        time_limit: load.time_limit(),
        warmup: load.warmup.unwrap_or_default(),
        rate: load.rate,
        shard: share.shard,
        start_at: load.start_at.and_then(instant_of),
        checks: checks.clone(),
        answer_checks,
        verbosity: output.verbosity,
        log,
        n_threads,
        concurrency,
        sample_cap: MAX_SAMPLES,
    });
    let info = RunInfo {
        settings: options.settings(),
        // Requests at a time, as ab's Concurrency Level: with --http2, each connection's
        // streams.
        concurrency: (concurrency * plan.http2.as_ref().map_or(1, |h2| h2.streams)) as u64,
        n_threads,
        rate: share.rate,
    };
    Ok((plan, info))
}

/// `--metrics`' and `--prom-remote-write`'s counts, with the offered rate of `--rate`.
fn live_counts(options: &Options, n_threads: usize, n_kinds: usize) -> Arc<Live> {
    let (load, request) = (&options.load, &options.request);
    let share = load.share();
    let names = match &request.mix {
        Some(mix) => mix.parts.iter().map(|part| part.name.clone()).collect(),
        None => Vec::new(),
    };
    let warmup = load.warmup.unwrap_or_default();
    let offered = share.rate.map(|rate| {
        let pace = Pace::new(rate, warmup, load.time_limit());
        let warm_up_sends = pace.count_until(warmup.as_secs_f64()).floor() as u64;
        Offered {
            pace,
            end_s: load
                .time_limit()
                .map(|limit| (warmup + limit).as_secs_f64()),
            most: share.n_requests.map(|n| n + warm_up_sends),
        }
    });
    Arc::new(Live::new(n_threads, n_kinds, names, offered))
}

/// The kinds of request: a mix's parts, or the one request.
fn kinds_of(
    target: &Target,
    request: &RequestOptions,
    checks: &Checks,
    scope: Scope<'_>,
    answer_checks: &mut AnswerChecks,
) -> anyhow::Result<Vec<Kind>> {
    // The command line's checks, the first of the run's (all 64 of them at most).
    let run_checks = u64::MAX
        .checked_shr(64 - answer_checks.checks.len() as u32)
        .unwrap_or(0);
    match &request.mix {
        Some(mix) => mix
            .parts
            .iter()
            .map(|part| {
                let (target, request, checks) = part_options(part, target, request, checks);
                let bits = run_checks | answer_checks.add(&part.check_xpath, &part.check_regex)?;
                let mut kind = kind(
                    (part.name.clone(), part.weight),
                    &target,
                    &request,
                    &checks,
                    scope,
                )
                .with_context(|| format!("in the mix's part {}", part.name))?;
                kind.check_answers(answer_checks, bits);
                kind.saves = flow::savers(part, scope.variables)?;
                if !kind.saves.is_empty() {
                    kind.body_checks =
                        std::mem::take(&mut kind.body_checks).keeping(MAX_CHECKED_BODY);
                }
                Ok(kind)
            })
            .collect(),
        None => {
            let mut kind = kind((String::new(), 1), target, request, checks, scope)?;
            kind.check_answers(answer_checks, run_checks);
            Ok(vec![kind])
        }
    }
}

/// One kind of request: its bytes (and HTTP/2 blocks when `--http2`), its templates when
/// `--template` (with `scope`'s names), and its checks.
fn kind(
    (name, weight): (String, u32),
    target: &Target,
    request: &RequestOptions,
    checks: &Checks,
    scope: Scope<'_>,
) -> anyhow::Result<Kind> {
    let body = match &request.body_file {
        Some(path) => Some(
            host::file::read_limited(path, crate::options::MAX_BODY_FILE)
                .with_context(|| format!("Invalid postfile name ({})", path.display()))?,
        ),
        None => None,
    };
    let http2 = match request.http2 {
        true => Some(crate::http2::Request {
            blocks: request::build_h2(target, request, body.as_deref())
                .map_err(anyhow::Error::msg)?,
            body: body.clone().unwrap_or_default(),
        }),
        false => None,
    };
    let mut built = request::build(target, request, body.as_deref()).map_err(anyhow::Error::msg)?;
    let mut template = None;
    if request.templating.is_some() {
        if request.http2 {
            // The command line refuses this; a plan made in code must not send a template's
            // placeholders as they are either.
            return Err(TemplateError {
                place: "--template".into(),
                what: "templates are sent over HTTP/1.x only, so far".into(),
            }
            .into());
        }
        let source = request
            .body_file
            .as_ref()
            .map_or_else(|| "the body".to_owned(), |path| path.display().to_string());
        let templates = request::build_template(target, request, body.as_deref(), &source, scope)?;
        if templates.fills_values() {
            template = Some(templates);
        } else {
            // Only literals (a `{{{{` among them): the same bytes for every request.
            built.bytes = templates.render_fixed();
        }
    }
    Ok(Kind {
        name,
        weight,
        request: built,
        template,
        http2,
        body_checks: BodyChecks::new(checks.expect_body.as_deref(), checks.reject_body.as_deref()),
        checks: 0,
        saves: Vec::new(),
        expect_status: checks.expect_status.map(|status| status.as_u16()),
    })
}

impl Kind {
    /// The kind's answers are judged by `bits` of `checks` (and for faults, when asked): its
    /// bodies are kept to [`MAX_CHECKED_BODY`] then.
    fn check_answers(&mut self, checks: &AnswerChecks, bits: u64) {
        self.checks = bits;
        if checks.reads_bodies(bits) {
            self.body_checks = std::mem::take(&mut self.body_checks).keeping(MAX_CHECKED_BODY);
        }
    }
}

/// A flow's saved values, which its parts' templates may name (none without a flow).
fn variables_of(request: &RequestOptions) -> anyhow::Result<Vec<crate::template::Variable>> {
    let Some(mix) = request.mix.as_ref().filter(|mix| mix.flow.is_some()) else {
        return Ok(Vec::new());
    };
    if request.http2 {
        bail!("a [flow] with --http2: flows are run over HTTP/1.x only, so far");
    }
    let variables = flow::variables(&mix.parts)?;
    if !variables.is_empty() && request.templating.is_none() {
        // The command line implies it; a plan made in code must not send `{{token}}` as is.
        bail!("--save carries values into templates: give --template");
    }
    Ok(variables)
}

/// The run's flow over `kinds` (a part's index is its kind's).
fn flow_plan(
    flow: &crate::options::Flow,
    parts: &[Part],
    variables: &[crate::template::Variable],
    kinds: &[Kind],
) -> anyhow::Result<FlowPlan> {
    let templates: Vec<_> = kinds.iter().map(|kind| kind.template.as_ref()).collect();
    let savers: Vec<&[flow::Saver]> = kinds.iter().map(|kind| kind.saves.as_slice()).collect();
    let names: Vec<&str> = parts.iter().map(|part| part.name.as_str()).collect();
    Ok(FlowPlan::new(flow, variables, &templates, &savers, &names)?)
}

/// A mix's part as a whole request: the command line's, with what the part sets in place of
/// its path, method, body, content type and checks, and its headers after the command line's.
fn part_options(
    part: &Part,
    target: &Target,
    request: &RequestOptions,
    checks: &Checks,
) -> (Target, RequestOptions, Checks) {
    let mut target = target.clone();
    if let Some(path) = &part.path {
        target.url.path.clone_from(path);
    }
    let mut request = request.clone();
    request.method = part.method.clone();
    request.body_file.clone_from(&part.body_file);
    if let Some(content_type) = &part.content_type {
        request.content_type.clone_from(content_type);
    }
    request.headers.extend(part.headers.iter().cloned());
    request.mix = None;
    let mut checks = checks.clone();
    checks.expect_status = part.expect_status.or(checks.expect_status);
    if part.expect_body.is_some() {
        checks.expect_body.clone_from(&part.expect_body);
    }
    if part.reject_body.is_some() {
        checks.reject_body.clone_from(&part.reject_body);
    }
    // The part's path and regex checks are added to the command line's by `kinds_of`.
    (target, request, checks)
}

/// The monotonic instant of the wall-clock time `at`, if `at` is still ahead.
pub fn instant_of(at: SystemTime) -> Option<Instant> {
    let ahead = at.duration_since(SystemTime::now()).ok()?;
    Some(Instant::now() + ahead)
}

/// Runs `plan` to its end (its requests done, its time up, an abort, or `stop` set) and returns
/// the merged figures. `on_tick` sees the shared counters every [`TICK`] and once at the end,
/// for progress lines.
pub fn execute(
    plan: &Arc<Plan>,
    stop: &AtomicBool,
    on_tick: &mut dyn FnMut(&Shared),
) -> anyhow::Result<Outcome> {
    let started = plan.start_at.unwrap_or_else(Instant::now);
    if let Some(live) = &plan.live {
        live.start(started);
    }
    let shared = Arc::new(Shared::new(plan, started));
    let threads = run_threads(plan, &shared, stop, on_tick)?;
    let stopped = stop.load(Ordering::Relaxed);
    let mut results = Results::merge(threads);
    first_response(plan, &shared, &mut results);
    if stopped && results.time_taken == 0.0 {
        results.time_taken = started.elapsed().as_secs_f64();
    }
    let abort = shared
        .abort
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone();
    Ok(Outcome {
        results,
        abort,
        stopped,
    })
}

/// Starts one worker a thread, ticks until they end, and returns their statistics.
fn run_threads(
    plan: &Arc<Plan>,
    shared: &Arc<Shared>,
    stop: &AtomicBool,
    on_tick: &mut dyn FnMut(&Shared),
) -> anyhow::Result<Vec<stats::ThreadStats>> {
    let (n_threads, concurrency) = (plan.n_threads, plan.concurrency);
    // Each thread says once that it has ended, so that a short run ends at once rather than at
    // the next progress tick.
    let (ended_tx, ended_rx) = std::sync::mpsc::channel::<()>();
    let mut handles = Vec::with_capacity(n_threads);
    for index in 0..n_threads {
        // Connections split evenly; the first threads take the remainder.
        let n_connections = concurrency / n_threads + usize::from(index < concurrency % n_threads);
        let ended = ended_tx.clone();
        let (plan, shared) = (Arc::clone(plan), Arc::clone(shared));
        let handle = std::thread::Builder::new()
            .name(format!("loadgen-{index}"))
            .spawn(move || {
                let stats = engine::run_thread(index, n_connections, plan, Arc::clone(&shared));
                let _ = ended.send(());
                stats.unwrap_or_else(|error| {
                    shared.abort(format!("cannot create an event loop: {error}"), 1);
                    stats::ThreadStats::new(0)
                })
            })
            .context("cannot start a thread")?;
        handles.push(handle);
    }
    drop(ended_tx);
    let mut running = n_threads;
    while running > 0 {
        match ended_rx.recv_timeout(TICK) {
            Ok(()) => running -= 1,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            // A thread that panicked sends nothing; join below reports it.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if stop.load(Ordering::Relaxed) {
            shared.stop.store(true, Ordering::Relaxed);
        }
        on_tick(shared);
    }
    let mut threads = Vec::with_capacity(n_threads);
    for handle in handles {
        match handle.join() {
            Ok(stats) => threads.push(stats),
            Err(_) => bail!("a load thread panicked"),
        }
    }
    on_tick(shared);
    Ok(threads)
}

/// The first response's `Server` header and body length, which the threads left in `shared`,
/// and a mix's kinds' names, weights and lengths.
fn first_response(plan: &Plan, shared: &Shared, results: &mut Results) {
    if let Some(server) = shared
        .server_software
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .as_deref()
    {
        // ab shows the value up to its first space or control character.
        let text = String::from_utf8_lossy(server);
        results.server_software = text
            .split(|c: char| c <= ' ')
            .next()
            .unwrap_or("")
            .to_owned();
    }
    results.tls = shared.negotiated.get().cloned();
    let length = |kind: usize| match shared.document_lengths[kind].load(Ordering::Relaxed) {
        u64::MAX => 0,
        length => length,
    };
    results.document_length = length(0);
    for (index, kind) in results.kinds.iter_mut().enumerate() {
        kind.name.clone_from(&plan.kinds[index].name);
        kind.weight = plan.kinds[index].weight;
        kind.document_length = length(index);
    }
    let names = plan.answer_checks.checks.iter();
    results.checks.name(names.map(|check| check.name.clone()));
    if let (Some(flows), Some(flow)) = (&mut results.flows, &plan.flow) {
        for (step, &(kind, times)) in flows.steps.iter_mut().zip(&flow.steps) {
            step.name = match times {
                1 => plan.kinds[kind].name.clone(),
                times => format!("{} x{times}", plan.kinds[kind].name),
            };
        }
    }
}

fn resolve(target: &Target) -> anyhow::Result<SocketAddr> {
    let (host, port) = match &target.proxy {
        Some(proxy) => (&proxy.host, proxy.port),
        None => (&target.url.host, target.url.port),
    };
    (host.as_str(), port)
        .to_socket_addrs()
        .with_context(|| format!("apr_sockaddr_info_get() for {host}"))?
        .next()
        .with_context(|| format!("apr_sockaddr_info_get() for {host}: no address"))
}
