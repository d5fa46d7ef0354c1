//! `cargo xtask delay-line`: a TCP forwarder that holds every chunk for a fixed time in each
//! direction, the link's delay where the kernel has no netem (this VM's has none: `tc qdisc
//! add ... netem` says "Specified qdisc kind is unknown"). scripts/lib-link.sh puts it on the
//! client's side of a veth pair whose rate tc's tbf limits, so a request crosses the delay,
//! then the shaped link.
//!
//! What it does not emulate: the TCP connections on either side of it see no delay, so a
//! sender's window and slow start behave as on a short link; the delay is added to each
//! chunk's delivery, as it would be to each segment's. For request-answer exchanges of
//! documents smaller than a window, which is what wsperf and the suite send, the time a
//! request takes is the same.

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// Forwards connections to ADDR on to TO, each chunk delayed by DELAY in each direction.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Address to listen on; port 0 picks a free one (the listening line on stderr names it).
    #[arg(long, alias = "listen")]
    addr: String,
    /// Where to forward each connection.
    #[arg(long)]
    to: String,
    /// The delay each way (`10ms`, `0.1ms`): half the round trip the link adds.
    #[arg(long, value_parser = host::duration::parse)]
    delay: Duration,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let listener =
        TcpListener::bind(&args.addr).with_context(|| format!("listening on {}", args.addr))?;
    eprintln!(
        "{}",
        host::listening::line("delay-line", listener.local_addr()?)
    );
    for client in listener.incoming() {
        let Ok(client) = client else { continue };
        let server = match TcpStream::connect(&args.to) {
            Ok(server) => server,
            Err(error) => {
                eprintln!("delay-line: connecting to {}: {error}", args.to);
                continue;
            }
        };
        for stream in [&client, &server] {
            let _ = stream.set_nodelay(true);
        }
        let delay = args.delay;
        let (client_read, server_read) = (client.try_clone()?, server.try_clone()?);
        std::thread::spawn(move || pump(client_read, server, delay));
        std::thread::spawn(move || pump(server_read, client, delay));
    }
    Ok(())
}

/// A sleep here overshoots by some 60 µs, a third of the lan profile's whole round trip: so
/// the last stretch is spun, no longer than that, since every connection's two writers spin
/// on the client's core (measured: 100 µs each way came out at 280 µs a round trip with the
/// relay's own 90).
const SPIN: Duration = Duration::from_micros(80);

fn wait_until(at: Instant) {
    let now = Instant::now();
    if at > now + SPIN {
        std::thread::sleep(at - now - SPIN);
    }
    while Instant::now() < at {
        std::hint::spin_loop();
    }
}

/// Copies `from` into `to`, each chunk written `delay` after it was read: a reader thread
/// stamps the chunks, this one writes them when due.
fn pump(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (chunks, due) = mpsc::channel::<(Instant, Vec<u8>)>();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if chunks
                        .send((Instant::now() + delay, buf[..n].to_vec()))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
        // Dropping the sender tells the writer that the stream ended.
    });
    for (at, chunk) in due {
        wait_until(at);
        if to.write_all(&chunk).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
    let _ = reader.join();
}
