//! The least CPU a closed-loop HTTP client can spend per request: the floor that
//! `cargo xtask bench-loadgen` sets beside loadgen, ab, wrk and oha.
//!
//! It keeps C keep-alive connections busy with one `send` and (usually) one `recv` per request on
//! edge-triggered epoll, and does nothing else: no clocks, no statistics, no header parsing beyond
//! learning the response length from the first response. Whatever a real load generator spends
//! above this is its own; what this spends is the kernel's price for a request and its response
//! on this machine, and no client can go below it without sending fewer segments.
//!
//! Usage: syscall_floor HOST:PORT PATH POST_FILE SOAP_ACTION REQUESTS CONNECTIONS
//! It prints `Complete requests: N`, the line the bench script reads from ab's report too.
//! It assumes a server that answers every request with the same fixed-length response, as the
//! ceiling server does.

use std::io::{self, Read as _, Write as _};
use std::net::{SocketAddr, ToSocketAddrs as _};

use anyhow::{Context as _, bail};
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [
        host_port,
        path,
        post_file,
        action,
        n_requests,
        n_connections,
    ] = &args[..]
    else {
        bail!("usage: syscall_floor HOST:PORT PATH POST_FILE SOAP_ACTION REQUESTS CONNECTIONS");
    };
    let addr: SocketAddr = host_port.to_socket_addrs()?.next().context("no address")?;
    let body = std::fs::read(post_file).with_context(|| format!("reading {post_file}"))?;
    let n_requests: u64 = n_requests.parse().context("REQUESTS")?;
    let n_connections: usize = n_connections.parse().context("CONNECTIONS")?;
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host_port}\r\nContent-Type: text/xml; charset=utf-8\r\n\
         SOAPAction: \"{action}\"\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);

    let mut streams = Vec::with_capacity(n_connections);
    let mut response_len = 0;
    for _ in 0..n_connections {
        // Blocking connect first, so every connection is up before the measured loop.
        let mut stream = std::net::TcpStream::connect(addr).context("connecting")?;
        stream.set_nodelay(true)?;
        if response_len == 0 {
            response_len = learn_response_len(&mut stream, &request)?;
        }
        stream.set_nonblocking(true)?;
        streams.push(TcpStream::from_std(stream));
    }

    let mut poll = Poll::new()?;
    for (index, stream) in streams.iter_mut().enumerate() {
        poll.registry()
            .register(stream, Token(index), Interest::READABLE)?;
    }
    // Bytes of the current response read so far, per connection.
    let mut received = vec![0_usize; n_connections];
    let mut buffer = vec![0_u8; 64 * 1024];
    let (mut sent, mut completed) = (0_u64, 0_u64);
    for stream in &mut streams {
        if sent < n_requests {
            send_whole(stream, &request)?;
            sent += 1;
        }
    }
    let mut events = Events::with_capacity(1024);
    while completed < n_requests {
        poll.poll(&mut events, None)?;
        for event in &events {
            let index = event.token().0;
            let stream = &mut streams[index];
            loop {
                match stream.read(&mut buffer) {
                    Ok(0) => bail!("the server closed connection {index}"),
                    Ok(n) => received[index] += n,
                    Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
                    Err(error) => return Err(error.into()),
                }
                if received[index] >= response_len {
                    received[index] -= response_len;
                    completed += 1;
                    if sent < n_requests {
                        send_whole(stream, &request)?;
                        sent += 1;
                    }
                    // The answer cannot be here yet; epoll says when it is.
                    break;
                }
            }
        }
    }
    println!("Complete requests: {completed}");
    Ok(())
}

/// Sends one request and reads its whole response, returning the response's length in bytes.
fn learn_response_len(blocking: &mut std::net::TcpStream, request: &[u8]) -> anyhow::Result<usize> {
    blocking.write_all(request)?;
    let mut head = Vec::new();
    let mut byte = [0_u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        blocking
            .read_exact(&mut byte)
            .context("reading the first response")?;
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let length: usize = text
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .context("the first response has no Content-Length")?
        .trim()
        .parse()?;
    let mut rest = vec![0_u8; length];
    blocking.read_exact(&mut rest)?;
    Ok(head.len() + length)
}

fn send_whole(stream: &mut TcpStream, bytes: &[u8]) -> io::Result<()> {
    // A request of a few kilobytes fits an empty send buffer: one call, as in loadgen.
    let written = stream.write(bytes)?;
    if written != bytes.len() {
        return Err(io::Error::other("short write"));
    }
    Ok(())
}
