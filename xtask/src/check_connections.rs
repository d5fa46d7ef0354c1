//! `cargo xtask check-connections`: many keep-alive connections at once. wstest-server (one
//! worker, on the first core) holds N connections opened by this process (on the other cores),
//! and its resident memory is read at each step: idle (after 100 requests on one connection,
//! closed), with N connections that have sent nothing, after each was served once, after they
//! all idled 5 s (hibernated), while each sends a GetOrder every 3 s, and for 10 s after they all
//! close. It runs N = 10,000, then 50,000 when the open-file limit can be raised that far (as
//! root it raises it; otherwise it says so and stops).
//!
//! The targets (issue 12), checked: at most 8 KB per idle keep-alive connection once
//! hibernated, and memory back within 2x of idle within 10 s of the connections closing.

use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use host::process::Scope;
use nix::sys::resource::{Resource, getrlimit, setrlimit};
use suite::placement::Placement;
use suite::target::TargetSpec;

use crate::workspace;

/// At most this much memory per hibernated connection.
const IDLE_LIMIT_KB: f64 = 8.0;
/// Ephemeral ports per source address are about 28,000: a source address per this many.
const PER_SOURCE: usize = 20_000;

/// The server's memory with many connections, and after they close.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Connection counts, one run each.
    #[arg(default_values_t = [10_000_usize, 50_000])]
    counts: Vec<usize>,
    /// How long every connection sends a GetOrder each period.
    #[arg(long, default_value = "10s", value_parser = host::duration::parse)]
    active: Duration,
    /// The period of each connection's GetOrders while active.
    #[arg(long, default_value = "3s", value_parser = host::duration::parse)]
    period: Duration,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let release = workspace::build_release(&["server"])?;
    let body = std::fs::read(workspace::root().join("post_files/getorder20.xml"))?;
    let placement = Placement::choose(None, None, false)?;
    let mut missed = Vec::new();
    for &n in &args.counts {
        // Each side needs a descriptor per connection, plus some.
        let want = n as u64 + 1000;
        if let Err(error) = raise_file_limit(want) {
            missed.push(format!("N={n}: {error:#}"));
            break;
        }
        let sources = n.div_ceil(PER_SOURCE);
        println!(
            "== {n} connections ({}, {sources} source addresses)",
            workspace::stamp()
        );
        let spec = TargetSpec::Binary {
            name: "wstest".to_owned(),
            program: release.join("wstest-server"),
            args: ["--threads", "1", "--max-connections", &want.to_string()]
                .map(str::to_owned)
                .to_vec(),
        };
        let target = workspace::start_server(&spec, placement.as_ref(), None)?;
        if let Some(placement) = &placement {
            placement.enter_client()?;
        }
        let server = Server {
            pid: target.pid().context("the server's pid")?,
            addr: format!("{}:{}", target.url.host, target.url.port).parse()?,
        };
        let steps = hold(&server, &body, n, sources, args)?;
        missed.extend(steps.missed(n));
        drop(target);
        println!();
    }
    if !missed.is_empty() {
        bail!("{}", missed.join("; "));
    }
    Ok(())
}

/// Raises the soft limit of open files to `want`, and the hard one when it must (as root).
fn raise_file_limit(want: u64) -> anyhow::Result<()> {
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE)?;
    if soft >= want {
        return Ok(());
    }
    if hard < want && setrlimit(Resource::RLIMIT_NOFILE, want, want).is_err() {
        bail!("the open-file limit is {hard} and cannot be raised to {want} here (run as root)");
    }
    setrlimit(Resource::RLIMIT_NOFILE, want, hard.max(want))?;
    Ok(())
}

/// The server as this process sees it: its memory and its open descriptors.
struct Server {
    pid: u32,
    addr: SocketAddr,
}

impl Server {
    fn rss_kb(&self) -> anyhow::Result<u64> {
        Ok(host::process::read(self.pid, Scope::Process)?.rss_kb)
    }

    fn n_fds(&self) -> anyhow::Result<usize> {
        Ok(std::fs::read_dir(format!("/proc/{}/fd", self.pid))?.count())
    }
}

/// What the run measured, for the targets.
struct Steps {
    idle_kb: u64,
    hibernated_kb: u64,
    back_within_2x: Option<u64>,
}

impl Steps {
    fn missed(&self, n: usize) -> Vec<String> {
        let mut missed = Vec::new();
        let per = per_connection(self.hibernated_kb, self.idle_kb, n);
        if per > IDLE_LIMIT_KB {
            missed.push(format!(
                "N={n}: {per:.1} kB per hibernated connection, more than {IDLE_LIMIT_KB} kB"
            ));
        }
        if self.back_within_2x.is_none() {
            missed.push(format!(
                "N={n}: memory not back within 2x of idle within 10 s of the connections closing"
            ));
        }
        missed
    }
}

fn per_connection(rss_kb: u64, idle_kb: u64, n: usize) -> f64 {
    (rss_kb as f64 - idle_kb as f64) / n as f64
}

/// Opens `n` connections, takes them through the steps, and prints the server's memory at each.
fn hold(
    server: &Server,
    body: &[u8],
    n: usize,
    sources: usize,
    args: &Args,
) -> anyhow::Result<Steps> {
    let addr = server.addr;
    let request = [
        format!(
            "POST /WSTest HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes(),
        body.to_vec(),
    ]
    .concat();
    // Idle means a server that has served requests and has none open: what one that was just
    // started holds is less (no response buffers, no allocator caches), and not what a burst
    // should be compared with.
    let mut warm_up = connect(Ipv4Addr::LOCALHOST, addr)?;
    for _ in 0..100 {
        exchange(&mut warm_up, &request)?;
    }
    drop(warm_up);
    std::thread::sleep(Duration::from_secs(2));
    let idle = server.rss_kb()?;
    println!("step                                   server RSS   per connection");
    println!("{:<38} {:>7} kB", "idle, after 100 requests", idle);
    let report = |step: &str, rss: u64| {
        println!(
            "{step:<38} {rss:>7} kB   {:>8.1} kB",
            per_connection(rss, idle, n)
        );
    };

    let mut connections = Vec::with_capacity(n);
    for idx in 0..n {
        let source = Ipv4Addr::new(127, 0, 0, 1 + (idx % sources.max(1)) as u8);
        connections.push(connect(source, addr).with_context(|| format!("connection {idx}"))?);
    }
    // Wait until the server holds every connection: its open descriptors say so.
    let base_fds = server.n_fds()?.saturating_sub(n);
    let started = Instant::now();
    while server.n_fds()? < base_fds + n && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    report(&format!("{n} connections, nothing sent"), server.rss_kb()?);
    for connection in &mut connections {
        exchange(connection, &request)?;
    }
    report(
        &format!("{n} connections, each served once"),
        server.rss_kb()?,
    );
    // The server's watchdog ticks at most every 2 s; a connection quiet for a whole tick
    // hibernates.
    std::thread::sleep(Duration::from_secs(5));
    let hibernated = server.rss_kb()?;
    report(&format!("{n} connections, then idle 5 s"), hibernated);

    // Each connection sends a request every period, in turn.
    let started = Instant::now();
    let mut peak = 0;
    let mut n_requests = 0u64;
    while started.elapsed() < args.active {
        let round = Instant::now();
        for connection in &mut connections {
            exchange(connection, &request)?;
            n_requests += 1;
        }
        peak = peak.max(server.rss_kb()?);
        if let Some(rest) = args.period.checked_sub(round.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    report(&format!("{n} active, {n_requests} requests, peak"), peak);
    report(&format!("{n} active, at the end"), server.rss_kb()?);

    drop(connections);
    let closed = Instant::now();
    let mut back_within_2x = None;
    for second in 1..=10 {
        std::thread::sleep(Duration::from_secs(second).saturating_sub(closed.elapsed()));
        let rss = server.rss_kb()?;
        if back_within_2x.is_none() && rss <= 2 * idle {
            back_within_2x = Some(second);
        }
        if second == 1 || second == 10 {
            println!("{:<38} {rss:>7} kB", format!("{second} s after all closed"));
        }
    }
    match back_within_2x {
        Some(second) => println!("back within 2x of idle after {second} s"),
        None => println!("not back within 2x of idle ({} kB) after 10 s", 2 * idle),
    }
    Ok(Steps {
        idle_kb: idle,
        hibernated_kb: hibernated,
        back_within_2x,
    })
}

fn connect(source: Ipv4Addr, addr: SocketAddr) -> anyhow::Result<TcpStream> {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    socket.bind(&SocketAddr::from((source, 0)).into())?;
    socket.connect(&addr.into())?;
    socket.set_tcp_nodelay(true)?;
    let stream: TcpStream = socket.into();
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    Ok(stream)
}

/// Sends the request and reads its whole response with loadgen's parser; an error unless 200.
fn exchange(stream: &mut TcpStream, request: &[u8]) -> anyhow::Result<()> {
    stream.write_all(request)?;
    let (response, _) = loadgen::http::read_whole(stream, false, 64 << 20)?;
    anyhow::ensure!(
        response.status == 200,
        "the server answered {}",
        response.status
    );
    Ok(())
}
