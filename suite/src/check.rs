//! Before a target is timed, every case is posted to it once and the answer judged: status 200,
//! `expect_body` and every `check_body` text present, `reject_body` absent, and (with
//! `expect_xml`) well-formed XML. A
//! target that cannot be reached at all is an error within seconds.

use std::io::{Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use anyhow::{Context as _, bail};

use crate::manifest::Case;

/// How long a check waits to connect and for the answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// An HTTP response's status and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Posts `case` to `url` once. `Err` when the target cannot be reached or does not speak HTTP.
pub fn post(url: &str, case: &Case) -> anyhow::Result<Answer> {
    let (authority, path) = split_url(url)?;
    let body = std::fs::read(&case.body_file)
        .with_context(|| format!("reading {}", case.body_file.display()))?;
    let addr = authority
        .to_socket_addrs()
        .with_context(|| format!("resolving {authority}"))?
        .next()
        .with_context(|| format!("{authority} has no address"))?;
    let mut stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
        .with_context(|| format!("connecting to {url}"))?;
    stream.set_read_timeout(Some(ANSWER_TIMEOUT))?;
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Type: {}\r\nContent-Length: {}\r\n",
        case.content_type,
        body.len()
    );
    for header in &case.headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes())?;
    stream.write_all(&body)?;
    // Read until the answer is whole, not until the close: a server that keeps the connection
    // open despite `Connection: close` must not hold the check for its whole timeout.
    let mut response = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let n = stream
            .read(&mut chunk)
            .with_context(|| format!("reading the answer of {url}"))?;
        response.extend_from_slice(&chunk[..n]);
        if n == 0 || is_whole(&response) {
            break;
        }
    }
    parse_response(&response).with_context(|| format!("the answer of {url}"))
}

/// Whether `bytes` hold a whole response: its head, and a body of its Content-Length or
/// chunked up to the last chunk. A body delimited by the close is never whole before it.
fn is_whole(bytes: &[u8]) -> bool {
    let Some(head_end) = bytes.windows(4).position(|window| window == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_ascii_lowercase();
    let body = &bytes[head_end + 4..];
    for line in head.split("\r\n") {
        if let Some(value) = line.strip_prefix("content-length:") {
            return value
                .trim()
                .parse::<usize>()
                .is_ok_and(|len| body.len() >= len);
        }
        if line.starts_with("transfer-encoding:") && line.contains("chunked") {
            return dechunk(body).is_ok();
        }
    }
    false
}

/// Why `answer` is not a right answer to `case`, if it is not.
pub fn judge(case: &Case, answer: &Answer) -> Option<String> {
    if answer.status != 200 {
        return Some(format!(
            "status {} ({})",
            answer.status,
            snippet(&answer.body)
        ));
    }
    let body = String::from_utf8_lossy(&answer.body);
    if let Some(expected) = &case.expect_body
        && !body.contains(expected.as_str())
    {
        return Some(format!(
            "no {expected:?} in the answer ({})",
            snippet(&answer.body)
        ));
    }
    for expected in &case.check_body {
        if !body.contains(expected.as_str()) {
            return Some(format!("no {expected:?} in the answer: it is not whole"));
        }
    }
    if let Some(rejected) = &case.reject_body
        && body.contains(rejected.as_str())
    {
        return Some(format!(
            "{rejected:?} in the answer ({})",
            snippet(&answer.body)
        ));
    }
    if case.expect_xml
        && let Err(error) = well_formed(&answer.body)
    {
        return Some(format!("not well-formed XML: {error}"));
    }
    None
}

fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(160) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

/// Reads every event of `bytes` as XML; the first error, if any.
fn well_formed(bytes: &[u8]) -> Result<(), String> {
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut buffer = Vec::new();
    let mut depth = 0usize;
    let mut roots = 0usize;
    loop {
        match reader.read_event_into(&mut buffer) {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Start(_)) => {
                roots += usize::from(depth == 0);
                depth += 1;
            }
            Ok(quick_xml::events::Event::End(_)) => depth = depth.saturating_sub(1),
            Ok(quick_xml::events::Event::Empty(_)) => roots += usize::from(depth == 0),
            Ok(_) => {}
            Err(error) => {
                return Err(format!("{error} at byte {}", reader.buffer_position()));
            }
        }
        buffer.clear();
    }
    match (depth, roots) {
        (0, 1) => Ok(()),
        (0, 0) => Err("no element".to_owned()),
        (0, _) => Err("more than one root element".to_owned()),
        _ => Err("the document ends inside an element".to_owned()),
    }
}

/// `http://host:port/path` into (`host:port`, `/path`).
pub fn split_url(url: &str) -> anyhow::Result<(String, String)> {
    let Some(rest) = url.strip_prefix("http://") else {
        bail!("{url}: only http:// URLs are supported");
    };
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        bail!("{url}: no host");
    }
    let authority = if authority.contains(':') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    Ok((authority, path.to_owned()))
}

/// A whole HTTP/1.x response (read to the close): status and body, de-chunked.
fn parse_response(bytes: &[u8]) -> anyhow::Result<Answer> {
    let head_end = bytes
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .context("no end of the response head (is it HTTP?)")?;
    let head = String::from_utf8_lossy(&bytes[..head_end]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse().ok())
        .with_context(|| format!("not an HTTP status line: {status_line:?}"))?;
    let mut chunked = false;
    let mut length = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.to_ascii_lowercase().contains("chunked");
        } else if name.trim().eq_ignore_ascii_case("content-length") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let rest = &bytes[head_end + 4..];
    let body = if chunked {
        dechunk(rest)?
    } else {
        let end = length.map_or(rest.len(), |length| length.min(rest.len()));
        rest[..end].to_vec()
    };
    Ok(Answer { status, body })
}

fn dechunk(mut bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = bytes
            .windows(2)
            .position(|window| window == b"\r\n")
            .context("a chunk size line without its end")?;
        let size_text = String::from_utf8_lossy(&bytes[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .with_context(|| format!("bad chunk size {size_text:?}"))?;
        bytes = &bytes[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        let chunk = bytes.get(..size).context("a chunk cut short")?;
        body.extend_from_slice(chunk);
        bytes = bytes.get(size + 2..).context("a chunk without its end")?;
    }
}
