//! Sends cases of the hostile-input corpus (`server/tests/hostile/`) to a running wstest-server,
//! each on a new connection, and checks the status of every answer against the manifest: the
//! hostile tenth of `cargo xtask check-soak`.
//!
//! ```text
//! send_corpus ADDR COUNT
//! send_corpus --bodies DIR
//! ```
//!
//! With `--bodies`, it writes the body of each case's first request, up to 64 KiB, to DIR
//! instead: seeds for the fuzz targets (`scripts/fuzz.sh`).
//!
//! It cycles through the cases that answer at once and are at most 1 MB, so that it keeps pace
//! with the valid load beside it: the cases that end only by a timeout (`close`, and `h2`, cut
//! by the header timeout) and the 10 MB ones are left to the test suite. An HTTP/1 case is
//! judged by its answers' statuses, an HTTP/2 one (`h2/CODE`) by the GOAWAY it ends with.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use anyhow::{Context as _, bail};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    if let [flag, out] = args.as_slice()
        && flag == "--bodies"
    {
        return write_bodies(&dir, std::path::Path::new(out));
    }
    let [addr, count] = args.as_slice() else {
        bail!("usage: send_corpus ADDR COUNT, or send_corpus --bodies DIR");
    };
    let addr: SocketAddr = addr.parse().context("ADDR")?;
    let count: usize = count.parse().context("COUNT")?;
    let cases: Vec<(testkit::corpus::Entry, Expected)> = testkit::corpus::read(&dir)
        .map_err(anyhow::Error::msg)?
        .into_iter()
        .filter(|entry| entry.bytes.len() <= 1024 * 1024)
        .filter_map(|entry| {
            let expected = Expected::of(&entry.answers)?;
            Some((entry, expected))
        })
        .collect();
    anyhow::ensure!(!cases.is_empty(), "no quick cases in {}", dir.display());
    let mut wrong = 0usize;
    for idx in 0..count {
        let (entry, expected) = &cases[idx % cases.len()];
        let answered = match expected {
            Expected::Statuses(statuses) => Expected::Statuses(
                exchange(addr, &entry.bytes, statuses.len())
                    .with_context(|| format!("{}: sending it", entry.file))?,
            ),
            Expected::GoAway(_) => Expected::GoAway(
                exchange_h2(addr, &entry.bytes)
                    .with_context(|| format!("{}: sending it", entry.file))?,
            ),
        };
        if &answered != expected {
            wrong += 1;
            if wrong <= 10 {
                eprintln!(
                    "{}: answered {answered:?}, the manifest says {expected:?}",
                    entry.file
                );
            }
        }
    }
    println!(
        "sent {count} hostile requests ({} distinct cases): {} answered as the manifest says, {wrong} otherwise",
        cases.len(),
        count - wrong
    );
    if wrong > 0 {
        bail!("{wrong} answers differed from the manifest");
    }
    Ok(())
}

/// What a case must be answered with, as far as this client judges it.
#[derive(Debug, PartialEq, Eq)]
enum Expected {
    /// HTTP/1 answers' statuses, in order.
    Statuses(Vec<u16>),
    /// HTTP/2 ended by a GOAWAY with this error code (0 when none came).
    GoAway(u32),
}

impl Expected {
    /// The manifest's answers (`500/Client,200`, `h2/PROTOCOL_ERROR`), or `None` for a case that
    /// ends only by a timeout (`close`, `h2`).
    fn of(answers: &str) -> Option<Expected> {
        let answers = answers.trim_end_matches("@streaming");
        if let Some(name) = answers.strip_prefix("h2/") {
            return testkit::corpus::h2_error_code(name).map(Expected::GoAway);
        }
        if answers
            .split(',')
            .any(|answer| answer == "close" || answer == "h2")
        {
            return None;
        }
        // Only the status is checked here; the test suite checks the rest.
        answers
            .split(',')
            .map(|answer| answer.split('/').next().unwrap_or_default().parse().ok())
            .collect::<Option<Vec<u16>>>()
            .map(Expected::Statuses)
    }
}

fn write_bodies(corpus: &std::path::Path, out: &std::path::Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| out.display().to_string())?;
    for entry in testkit::corpus::read(corpus).map_err(anyhow::Error::msg)? {
        let Some(head_end) = entry.bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let body = &entry.bytes[head_end + 4..];
        if body.is_empty() || body.len() > 64 * 1024 {
            continue;
        }
        let name = entry.file.replace('/', "-").replace(".http", ".xml");
        std::fs::write(out.join(&name), body).with_context(|| name.clone())?;
    }
    Ok(())
}

/// Sends `bytes` (an HTTP/2 connection's start) on a new connection, reads until the server
/// closes it, and returns the error code of the last GOAWAY (0 when there was none or the answer
/// did not start with the server's SETTINGS frame).
fn exchange_h2(addr: SocketAddr, bytes: &[u8]) -> anyhow::Result<u32> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.set_write_timeout(Some(Duration::from_secs(30)))?;
    let _ = stream.write_all(bytes);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    // A frame head: 3 bytes of length, then the type, 4 being SETTINGS.
    if answer.get(3) != Some(&4) {
        return Ok(0);
    }
    Ok(testkit::corpus::goaway_codes(&answer)
        .last()
        .copied()
        .unwrap_or(0))
}

/// Sends `bytes` on a new connection and reads `n_answers` responses (or until the server
/// closes), returning their statuses.
fn exchange(addr: SocketAddr, bytes: &[u8], n_answers: usize) -> anyhow::Result<Vec<u16>> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.set_write_timeout(Some(Duration::from_secs(30)))?;
    // A server that refuses early (413) may close before it has read everything.
    let _ = stream.write_all(bytes);
    let mut buffered = Vec::new();
    let mut statuses = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    while statuses.len() < n_answers {
        let Some(head_end) = buffered.windows(4).position(|w| w == b"\r\n\r\n") else {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => buffered.extend_from_slice(&chunk[..n]),
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buffered[..head_end]).to_ascii_lowercase();
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|status| status.parse().ok())
            .context("a response without a status")?;
        let length: usize = head
            .split("content-length: ")
            .nth(1)
            .and_then(|rest| rest.split("\r\n").next())
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        while buffered.len() < head_end + 4 + length {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => bail!("the connection closed inside an answer"),
                Ok(n) => buffered.extend_from_slice(&chunk[..n]),
            }
        }
        buffered.drain(..head_end + 4 + length);
        statuses.push(status);
    }
    Ok(statuses)
}
