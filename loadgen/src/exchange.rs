//! One request and its whole answer, on a blocking socket of its own (TLS for `https://`): how
//! the suite checks a case, how `loadgen suite cases` fetches a WSDL, and how `--prom-remote-write`
//! pushes. The answer is read by the load's own parser ([`crate::http::read_whole`]).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tls::client::{ClientTls, Verify};

use crate::url::{Scheme, Url};

/// How long an exchange waits to connect, at most (less when its deadline is nearer).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// What an exchange may take: its whole time, connecting included, and its answer's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From the first byte of the connection to the last of the answer: a server that drips
    /// an answer a byte at a time is cut here, not only one that stops.
    pub deadline: Duration,
    /// The answer's body, refused up front when its Content-Length says more.
    pub max_body: usize,
}

/// Sends `method` with `headers` (`Name: value` lines) and `body` to `url` (its certificate
/// verified against `ca` when given) and returns the status and body of the answer, within
/// `limits`. A header line with a control character, or a path with a space or one, is refused
/// before anything is sent.
pub fn exchange(
    url: &Url,
    ca: Option<&Path>,
    method: &str,
    headers: &[String],
    body: &[u8],
    limits: Limits,
) -> anyhow::Result<(u16, Vec<u8>)> {
    for header in headers {
        crate::field::check_header_line(header).map_err(anyhow::Error::msg)?;
    }
    crate::field::check_target(&url.path).map_err(anyhow::Error::msg)?;
    let deadline = Instant::now() + limits.deadline;
    let addr = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .with_context(|| format!("resolving {}", url.host))?
        .next()
        .with_context(|| format!("{} has no address", url.host))?;
    let tcp = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT.min(limits.deadline))
        .with_context(|| format!("connecting to {url}"))?;
    let socket = tcp.try_clone()?;
    let stream: Box<dyn Stream> = match url.scheme {
        Scheme::Http => Box::new(tcp),
        Scheme::Https => {
            let settings = ClientTls {
                verify: ca.map_or(Verify::Off, |ca| Verify::CaFile(ca.to_path_buf())),
                ..ClientTls::default()
            };
            let config = tls::client::client_config(&settings, &[tls::ALPN_HTTP1])?;
            let name = tls::client::server_name(&url.host)?;
            let connection = rustls::ClientConnection::new(Arc::clone(&config), name)?;
            Box::new(rustls::StreamOwned::new(connection, tcp))
        }
    };
    let mut stream = Timed {
        stream,
        socket,
        deadline,
        limit: limits.deadline,
    };
    let mut request = format!(
        "{method} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
        url.path,
        url.host_field(),
        body.len()
    );
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes())?;
    stream.write_all(body)?;
    let (response, body) = crate::http::read_whole(&mut stream, false, limits.max_body)
        .with_context(|| format!("the answer of {url} (is it HTTP?)"))?;
    Ok((response.status, body))
}

/// A connection to exchange over: TCP, or TLS over it.
trait Stream: Read + Write {}
impl<S: Read + Write> Stream for S {}

/// A stream whose every read and write waits at most until the exchange's deadline.
struct Timed {
    stream: Box<dyn Stream>,
    /// The stream's socket (a clone of its descriptor), whose timeouts are set.
    socket: TcpStream,
    deadline: Instant,
    limit: Duration,
}

impl Timed {
    /// The time left, as the socket's timeout; an error once none is.
    fn arm(&self) -> std::io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no whole answer within {:?}", self.limit),
            ));
        }
        self.socket.set_read_timeout(Some(left))?;
        self.socket.set_write_timeout(Some(left))
    }

    /// A socket timeout (EAGAIN) said as the deadline it is.
    fn said<T>(&self, result: std::io::Result<T>) -> std::io::Result<T> {
        result.map_err(|error| match error.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no whole answer within {:?}", self.limit),
            ),
            _ => error,
        })
    }
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.arm()?;
        let read = self.stream.read(buf);
        self.said(read)
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.arm()?;
        let written = self.stream.write(buf);
        self.said(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.arm()?;
        let flushed = self.stream.flush();
        self.said(flushed)
    }
}
