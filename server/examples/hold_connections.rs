//! Holds many connections to a running wstest-server and reports the server's resident memory
//! at each step: idle (after 100 requests on one connection, closed), with N connections that have sent nothing, after each has been served one
//! request, while each sends a request every few seconds, and for ten seconds after they all
//! close. Run by `scripts/connections.sh`, which starts the server and raises the file limits.
//!
//! ```text
//! hold_connections PID ADDR N REQUEST_FILE [ACTIVE_SECONDS] [PERIOD_SECONDS] [SOURCES]
//! ```
//!
//! SOURCES spreads the connections over 127.0.0.1, 127.0.0.2, ... so that more than one
//! address's worth of ephemeral ports (about 28,000) can be open.

use std::io::{Read as _, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [pid, addr, n, request_file, rest @ ..] = args.as_slice() else {
        bail!(
            "usage: hold_connections PID ADDR N REQUEST_FILE [ACTIVE_SECONDS] [PERIOD_SECONDS] [SOURCES]"
        );
    };
    let pid: u32 = pid.parse().context("PID")?;
    let addr: SocketAddr = addr.parse().context("ADDR")?;
    let n: usize = n.parse().context("N")?;
    let number = |idx: usize, default: f64| -> anyhow::Result<f64> {
        rest.get(idx)
            .map_or(Ok(default), |text| text.parse().context("a number"))
    };
    let active = Duration::from_secs_f64(number(0, 20.0)?);
    let period = Duration::from_secs_f64(number(1, 3.0)?);
    let n_sources = number(2, 1.0)? as u8;
    let body = std::fs::read(request_file).with_context(|| request_file.clone())?;
    let request = [
        format!(
            "POST /WSTest HTTP/1.1\r\nHost: {addr}\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes(),
        body,
    ]
    .concat();
    let server = Server { pid };

    // Idle means a server that has served requests and has none open: what one that was just
    // started holds is less (no response buffers, no allocator caches), and not what a burst
    // should be compared with.
    let mut response = vec![0u8; 64 * 1024];
    let mut warm_up = connect(Ipv4Addr::LOCALHOST, addr)?;
    for _ in 0..100 {
        exchange(&mut warm_up, &request, &mut response)?;
    }
    drop(warm_up);
    std::thread::sleep(Duration::from_secs(2));
    let idle = server.rss_kb()?;
    println!("step                                   server RSS   per connection");
    println!("{:<38} {:>7} kB", "idle, after 100 requests", idle);

    let mut connections = Vec::with_capacity(n);
    for idx in 0..n {
        let source = Ipv4Addr::new(127, 0, 0, 1 + (idx % usize::from(n_sources.max(1))) as u8);
        connections.push(connect(source, addr).with_context(|| format!("connection {idx}"))?);
    }
    // Wait until the server holds every connection: its open descriptors say so.
    let base_fds = server.n_fds()?.saturating_sub(n);
    let started = Instant::now();
    while server.n_fds()? < base_fds + n && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let report = |step: &str, rss: u64| {
        println!(
            "{step:<38} {rss:>7} kB   {:>8.1} kB",
            (rss as f64 - idle as f64) / n as f64
        );
    };
    report(&format!("{n} connections, nothing sent"), server.rss_kb()?);

    for connection in &mut connections {
        exchange(connection, &request, &mut response)?;
    }
    report(
        &format!("{n} connections, each served once"),
        server.rss_kb()?,
    );
    // The server's watchdog ticks at most every 2 s; a connection quiet for a whole tick
    // hibernates.
    std::thread::sleep(Duration::from_secs(5));
    report(&format!("{n} connections, then idle 5 s"), server.rss_kb()?);

    // Each connection sends a request every `period`, in turn.
    let started = Instant::now();
    let mut peak = 0;
    let mut n_requests = 0u64;
    while started.elapsed() < active {
        let round = Instant::now();
        for connection in &mut connections {
            exchange(connection, &request, &mut response)?;
            n_requests += 1;
        }
        peak = peak.max(server.rss_kb()?);
        if let Some(rest) = period.checked_sub(round.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    report(&format!("{n} active, {n_requests} requests, peak"), peak);
    report(&format!("{n} active, at the end"), server.rss_kb()?);

    drop(connections);
    let closed = Instant::now();
    let mut back_within_2x = None;
    for second in 1..=10 {
        std::thread::sleep(
            Duration::from_secs(1)
                .saturating_sub(closed.elapsed() - Duration::from_secs(second - 1)),
        );
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
    Ok(())
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

/// Sends the request and reads one response, found by its Content-Length.
fn exchange(stream: &mut TcpStream, request: &[u8], buf: &mut [u8]) -> anyhow::Result<()> {
    stream.write_all(request)?;
    let mut filled = 0;
    loop {
        let n = stream.read(&mut buf[filled..])?;
        if n == 0 {
            bail!("the server closed a connection");
        }
        filled += n;
        let Some(head_end) = buf[..filled].windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .split("content-length: ")
            .nth(1)
            .and_then(|rest| rest.split("\r\n").next())
            .and_then(|n| n.parse().ok())
            .context("a response without Content-Length")?;
        if filled >= head_end + 4 + length {
            anyhow::ensure!(
                head.starts_with("http/1.1 200"),
                "the server answered {head}"
            );
            return Ok(());
        }
    }
}

struct Server {
    pid: u32,
}

impl Server {
    fn rss_kb(&self) -> anyhow::Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid))?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .context("no VmRSS")
    }

    fn n_fds(&self) -> anyhow::Result<usize> {
        Ok(std::fs::read_dir(format!("/proc/{}/fd", self.pid))?.count())
    }
}
