//! The request bytes, serialised once before the run and sent unchanged for every request.
//! `--http1.0` gives exactly ab's bytes (header order included); the default is the same
//! request as HTTP/1.1, where keep-alive is the default and `Connection: close` asks for the
//! opposite.

use base64::Engine as _;

use crate::options::{RequestOptions, Target};

/// ab's User-Agent, sent with `--http1.0` so that the server sees exactly ab's request.
const AB_USER_AGENT: &str = "ApacheBench/2.3";
const USER_AGENT: &str = concat!("loadgen/", env!("CARGO_PKG_VERSION"));

/// The request of a run.
#[derive(Debug, Clone)]
pub struct Request {
    /// Head and body, ready to write.
    pub bytes: Vec<u8>,
    /// The head alone, for `-v 2`.
    pub head_len: usize,
    /// Whether the response will have no body (HEAD).
    pub head_method: bool,
}

/// Builds the request that `request` describes to `target`, with `body` from `-p`/`-u`.
pub(crate) fn build(target: &Target, request: &RequestOptions, body: Option<&[u8]>) -> Request {
    let url = &target.url;
    let mut head = String::with_capacity(256);
    let uri = match &target.proxy {
        Some(_) => format!("http://{}{}", url.host_field(), url.path),
        None => url.path.clone(),
    };
    let version = if request.http10 { "1.0" } else { "1.1" };
    head.push_str(&format!("{} {uri} HTTP/{version}\r\n", request.method));
    match (request.keep_alive, request.http10) {
        (true, true) => head.push_str("Connection: Keep-Alive\r\n"),
        (false, false) => head.push_str("Connection: close\r\n"),
        _ => {}
    }
    if let Some(cookie) = &request.cookie {
        head.push_str(&format!("Cookie: {cookie}\r\n"));
    }
    let basic = |credentials: &str| base64::engine::general_purpose::STANDARD.encode(credentials);
    if let Some(credentials) = &request.basic_auth {
        head.push_str(&format!("Authorization: Basic {}\r\n", basic(credentials)));
    }
    if let Some(credentials) = &request.proxy_auth {
        head.push_str(&format!(
            "Proxy-Authorization: Basic {}\r\n",
            basic(credentials)
        ));
    }
    if let Some(body) = body {
        // ab's spelling, lower-case l and t.
        head.push_str(&format!(
            "Content-length: {}\r\nContent-type: {}\r\n",
            body.len(),
            request.content_type
        ));
    }
    let overridden = |name: &str| {
        request
            .headers
            .iter()
            .any(|header| header.name.eq_ignore_ascii_case(name))
    };
    for header in &request.headers {
        head.push_str(&header.line());
        head.push_str("\r\n");
    }
    if !overridden("Host") {
        head.push_str(&format!("Host: {}\r\n", url.host_field()));
    }
    if !overridden("User-Agent") {
        let agent = if request.http10 {
            AB_USER_AGENT
        } else {
            USER_AGENT
        };
        head.push_str(&format!("User-Agent: {agent}\r\n"));
    }
    if !overridden("Accept") {
        head.push_str("Accept: */*\r\n");
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    let head_len = bytes.len();
    if let Some(body) = body {
        bytes.extend_from_slice(body);
    }
    Request {
        bytes,
        head_len,
        head_method: request.method == http::Method::HEAD,
    }
}
