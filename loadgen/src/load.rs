//! The load and nothing else: a plan from the settings, then [`execute`], which starts one
//! engine thread per event loop and returns their merged figures. Nothing here prints (but for
//! ab's `-v` logs, which the engine writes as ab does), writes files, or touches process-wide
//! state such as signal handlers or limits: the ab front end ([`crate::run`]) and `loadgen
//! suite` each do that around it.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context as _, bail};

use crate::cli::Settings;
use crate::engine::{Abort, Plan, Shared, Worker};
use crate::http::BodyChecks;
use crate::report::RunInfo;
use crate::request;
use crate::shard::Shard;
use crate::stats::{self, MAX_SAMPLES, Results};

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

/// The engine's plan and the report's description of the run `settings` describe: reads the
/// body file, resolves the target, builds the request bytes.
pub fn plan_of(settings: &Settings) -> anyhow::Result<(Arc<Plan>, RunInfo)> {
    let body = match &settings.body_file {
        Some(file) => Some(
            std::fs::read(&file.path)
                .with_context(|| format!("Invalid postfile name ({})", file.path))?,
        ),
        None => None,
    };
    let addr = resolve(settings)?;
    let bind = match &settings.bind_address {
        Some(address) => Some(
            (address.as_str(), 0)
                .to_socket_addrs()
                .ok()
                .and_then(|mut addrs| addrs.find(|a| a.is_ipv4() == addr.is_ipv4()))
                .with_context(|| format!("cannot bind to {address}: no such local address"))?,
        ),
        None => None,
    };
    let request = request::build(settings, body.as_deref());
    let concurrency = settings.concurrency as usize;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let n_threads = settings.n_threads.unwrap_or(cores).min(concurrency).max(1);
    let plan = Arc::new(Plan {
        request,
        addr,
        bind,
        socket_buffer: settings.socket_buffer_size,
        keep_alive: settings.keep_alive,
        n_requests: settings.n_requests,
        time_limit: settings.time_limit(),
        warmup: settings.warmup.unwrap_or_default(),
        rate: settings.rate,
        shard: settings.whole.map_or(Shard::WHOLE, |whole| whole.shard),
        start_at: settings.start_at.and_then(instant_of),
        request_timeout: settings.request_timeout,
        stall_timeout: settings.stall_timeout,
        continue_on_receive_errors: settings.continue_on_receive_errors,
        variable_length: settings.variable_length,
        expect_status: settings.expect_status,
        checks: BodyChecks::new(
            settings.expect_body.as_deref(),
            settings.reject_body.as_deref(),
        ),
        verbosity: settings.verbosity,
        n_threads,
        concurrency,
        sample_cap: MAX_SAMPLES,
    });
    let info = RunInfo {
        hostname: settings.target.host.clone(),
        port: settings.target.port,
        path: settings.target.path.clone(),
        proxy: settings.proxy.clone(),
        concurrency: concurrency as u64,
        keep_alive: settings.keep_alive,
        send_body: body.is_some(),
        variable_length: settings.variable_length,
        // A shard sends its share of the whole test's rate.
        rate: settings.rate.map(|rate| {
            rate / settings
                .whole
                .map_or(1.0, |whole| f64::from(whole.shard.count))
        }),
        n_threads,
        method: settings.method.clone(),
    };
    Ok((plan, info))
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
    let shared = Arc::new(Shared::new(plan, started));
    let threads = run_threads(plan, &shared, stop, on_tick)?;
    let stopped = stop.load(Ordering::Relaxed);
    let mut results = Results::merge(threads);
    first_response(&shared, &mut results);
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
        let worker = Worker::new(index, n_connections, Arc::clone(plan), Arc::clone(shared))
            .context("cannot create an event loop")?;
        let ended = ended_tx.clone();
        let handle = std::thread::Builder::new()
            .name(format!("loadgen-{index}"))
            .spawn(move || {
                let stats = worker.run();
                let _ = ended.send(());
                stats
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

/// The first response's `Server` header and body length, which the threads left in `shared`.
fn first_response(shared: &Shared, results: &mut Results) {
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
    let document_length = shared.document_length.load(Ordering::Relaxed);
    results.document_length = if document_length == u64::MAX {
        0
    } else {
        document_length
    };
}

fn resolve(settings: &Settings) -> anyhow::Result<SocketAddr> {
    let (host, port) = match &settings.proxy {
        Some(proxy) => {
            let (host, port) = proxy
                .rsplit_once(':')
                .with_context(|| format!("proxy {proxy:?}: expected host:port"))?;
            let port = port
                .parse::<u16>()
                .with_context(|| format!("proxy {proxy:?}: bad port"))?;
            (
                host.trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_owned(),
                port,
            )
        }
        None => (settings.target.host.clone(), settings.target.port),
    };
    (host.as_str(), port)
        .to_socket_addrs()
        .with_context(|| format!("apr_sockaddr_info_get() for {host}"))?
        .next()
        .with_context(|| format!("apr_sockaddr_info_get() for {host}: no address"))
}
