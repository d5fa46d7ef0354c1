//! One request and its whole answer, on a blocking socket of its own (TLS for `https://`): how
//! the suite checks a case, how `loadgen suite cases` fetches a WSDL, and how `--prom-remote-write`
//! pushes. The answer is read by the load's own parser ([`crate::http::read_whole`]).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tls::client::{ClientTls, Verify};

use crate::url::{Scheme, Url};

/// How long an exchange waits to connect, and then for the answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends `method` with `headers` (`Name: value` lines) and `body` to `url` (its certificate
/// verified against `ca` when given) and returns the status and body of the answer.
pub fn exchange(
    url: &Url,
    ca: Option<&Path>,
    method: &str,
    headers: &[String],
    body: &[u8],
) -> anyhow::Result<(u16, Vec<u8>)> {
    let addr = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .with_context(|| format!("resolving {}", url.host))?
        .next()
        .with_context(|| format!("{} has no address", url.host))?;
    let tcp = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
        .with_context(|| format!("connecting to {url}"))?;
    tcp.set_read_timeout(Some(ANSWER_TIMEOUT))?;
    let mut stream: Box<dyn Stream> = match url.scheme {
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
    let (response, body) = crate::http::read_whole(&mut stream, false)
        .with_context(|| format!("the answer of {url} (is it HTTP?)"))?;
    Ok((response.status, body))
}

/// A connection to exchange over: TCP, or TLS over it.
trait Stream: Read + Write {}
impl<S: Read + Write> Stream for S {}
