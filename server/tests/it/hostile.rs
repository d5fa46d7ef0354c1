//! The hostile-input corpus, `server/tests/hostile/`: every request file with the answers its
//! manifest expects. The corpus runs against the wstest-server binary, whose peak memory no case
//! may raise by more than a small factor of the case's own size, and which must serve a good
//! request on a new connection after each case; then against every other binding in-process.
//!
//! The case files' format is read by `testkit::corpus` (and told in the corpus's README.md).
//!
//! The manifest gives each file its answers, one per request, comma-separated: an HTTP status,
//! `500/FAULTCODE` for a SOAP fault, or `close` for no answer; `@streaming` after them means
//! they hold for the default binding only.

use std::path::{Path, PathBuf};
use std::time::Duration;

use wstest::{FaultCode, Reply};

use crate::{ChildServer, Client, TEXT_XML, TestServer};

/// What the server must answer to one request.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Answer {
    /// This HTTP status.
    Status(u16),
    /// HTTP 500 with a SOAP fault of this code.
    Fault(FaultCode),
    /// No answer: the connection is closed.
    Close,
    /// HTTP/2 (`h2` in the manifest): the server's SETTINGS frame, then the connection closes.
    Http2,
    /// HTTP/2 ended by a connection error (`h2/COMPRESSION_ERROR`): the server's SETTINGS, then
    /// a GOAWAY with this error code (RFC 9113, 7), read before the close.
    Http2GoAway(u32),
}

#[derive(Debug)]
struct Case {
    file: String,
    answers: Vec<Answer>,
    /// The answers hold for the default binding only (`@streaming` in the manifest): the others
    /// have lower limits, and need only answer with some status.
    streaming_only: bool,
    bytes: Vec<u8>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile")
}

/// Reads the manifest and every case it names.
fn corpus() -> Vec<Case> {
    testkit::corpus::read(&corpus_dir())
        .unwrap_or_else(|error| panic!("the hostile corpus: {error}"))
        .into_iter()
        .map(|entry| {
            let (answers, streaming_only) = match entry.answers.strip_suffix("@streaming") {
                Some(answers) => (answers.to_owned(), true),
                None => (entry.answers.clone(), false),
            };
            let answers = answers
                .split(',')
                .map(|answer| {
                    parse_answer(answer)
                        .unwrap_or_else(|| panic!("{}: bad answer {answer:?}", entry.file))
                })
                .collect();
            Case {
                file: entry.file,
                answers,
                streaming_only,
                bytes: entry.bytes,
            }
        })
        .collect()
}

fn parse_answer(text: &str) -> Option<Answer> {
    match text {
        "close" => return Some(Answer::Close),
        "h2" => return Some(Answer::Http2),
        _ => {}
    }
    if let Some(name) = text.strip_prefix("h2/") {
        return testkit::corpus::h2_error_code(name).map(Answer::Http2GoAway);
    }
    if let Some(code) = text.strip_prefix("500/") {
        return Some(Answer::Fault(match code {
            "Client" => FaultCode::Client,
            "Server" => FaultCode::Server,
            "VersionMismatch" => FaultCode::VersionMismatch,
            "MustUnderstand" => FaultCode::MustUnderstand,
            _ => return None,
        }));
    }
    text.parse().ok().map(Answer::Status)
}

/// The server flags every corpus run uses: a body limit above the largest case, so that the
/// 10 MB ones are read and parsed, and short timeouts, so that the stalling ones end quickly.
const SERVER_ARGS: [&str; 6] = [
    "--max-body",
    "16777216",
    "--header-timeout",
    "2",
    "--body-timeout",
    "2",
];

/// How much a case may raise the server's peak memory above what it held before: this many
/// times the bytes it sent and was answered, plus some slack for the allocator's first pages
/// of a size class.
const MEMORY_FACTOR: u64 = 8;
const MEMORY_SLACK_KB: u64 = 8 * 1024;

/// Sends a case and checks each answer in order; returns the size of the answers, or a
/// description of what went wrong.
fn check(addr: std::net::SocketAddr, case: &Case) -> Result<usize, String> {
    let mut received = 0;
    let mut client = Client::connect(addr);
    client
        .stream
        .set_write_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    // A server that answers early (413) may close before it has read everything; its answer is
    // what matters.
    let _ = std::io::Write::write_all(&mut client.stream, &case.bytes);
    for (n, expected) in case.answers.iter().enumerate() {
        let what = format!("answer {} of {}", n + 1, case.answers.len());
        if let Answer::Http2 | Answer::Http2GoAway(_) = *expected {
            let mut answer = Vec::new();
            let _ = std::io::Read::read_to_end(&mut client.stream, &mut answer);
            // A frame head: 3 bytes of length, then the type, 4 being SETTINGS.
            if answer.get(3) != Some(&4) {
                return Err(format!(
                    "{what}: wanted an HTTP/2 SETTINGS frame, got {answer:?}"
                ));
            }
            if let Answer::Http2GoAway(code) = *expected {
                let codes = testkit::corpus::goaway_codes(&answer);
                if codes.last() != Some(&code) {
                    return Err(format!(
                        "{what}: wanted a GOAWAY with error code {code:#x} last, got the codes {codes:x?}"
                    ));
                }
            }
            received += answer.len();
            continue;
        }
        let response = client.try_read_response();
        received += response.as_ref().map_or(0, |response| response.body.len());
        match (expected, response) {
            // HTTP/2 answers were read above.
            (Answer::Close | Answer::Http2 | Answer::Http2GoAway(_), None) => {}
            (Answer::Close | Answer::Http2 | Answer::Http2GoAway(_), Some(response)) => {
                return Err(format!(
                    "{what}: wanted the connection closed, got {} {}",
                    response.status,
                    response.text()
                ));
            }
            (_, None) => return Err(format!("{what}: the connection closed without an answer")),
            (Answer::Status(status), Some(response)) => {
                if response.status != *status {
                    return Err(format!(
                        "{what}: wanted {status}, got {} {}",
                        response.status,
                        response.text()
                    ));
                }
                // Refusals say why, except hyper's own answers to heads it could not parse.
                if *status >= 400 && !matches!(status, 400 | 431) && response.body.is_empty() {
                    return Err(format!("{what}: {status} without an explanation"));
                }
            }
            (Answer::Fault(code), Some(response)) => {
                if response.status != 500
                    || response.header("content-type") != Some("text/xml; charset=utf-8")
                {
                    return Err(format!(
                        "{what}: wanted a {code:?} fault as text/xml, got {} {:?} {}",
                        response.status,
                        response.header("content-type"),
                        response.text()
                    ));
                }
                match wstest::decode_response(&response.body) {
                    Ok(Reply::Fault(fault)) if fault.code == *code && fault.reason.len() > 10 => {}
                    other => return Err(format!("{what}: wanted a {code:?} fault, got {other:?}")),
                }
            }
        }
    }
    Ok(received)
}

/// The server still answers a good request on a new connection.
fn still_serving(addr: std::net::SocketAddr) -> Result<(), String> {
    let body = wstest::post_files::all()[0].body();
    let response = Client::connect(addr).post("/WSTest", &[TEXT_XML], &body);
    match response.status {
        200 => Ok(()),
        status => Err(format!("then a good request got {status}")),
    }
}

#[test]
fn the_corpus_is_large_and_each_case_is_named_once() {
    let cases = corpus();
    assert!(cases.len() >= 80, "only {} cases", cases.len());
    let mut files: Vec<&str> = cases.iter().map(|case| case.file.as_str()).collect();
    files.sort_unstable();
    files.dedup();
    assert_eq!(
        files.len(),
        cases.len(),
        "a case is named twice in the manifest"
    );
    // Every file in the corpus is in the manifest.
    let mut on_disk = Vec::new();
    for entry in walk(&corpus_dir()) {
        let name = entry
            .strip_prefix(corpus_dir())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".http") {
            on_disk.push(name);
        }
    }
    on_disk.sort_unstable();
    assert_eq!(on_disk, files, "files on disk and in the manifest differ");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Every case against the wstest-server binary, with its memory watched.
#[test]
fn hostile_requests_get_their_answers_in_bounded_memory() {
    let server = ChildServer::start(&SERVER_ARGS, None);
    let mut failures = Vec::new();
    for case in corpus() {
        let resident = server.reset_peak_memory();
        let outcome = check(server.addr, &case)
            .and_then(|received| still_serving(server.addr).map(|()| received));
        let raised = server.memory_kb("VmHWM").saturating_sub(resident);
        // A GetOrder of 300 bytes may ask for a 20 MB answer: what a case may cost is counted
        // on what it sent and what it was answered.
        let traffic = case.bytes.len() + *outcome.as_ref().unwrap_or(&0);
        let allowed = MEMORY_FACTOR * traffic as u64 / 1024 + MEMORY_SLACK_KB;
        if std::env::var_os("HOSTILE_SHOW_MEMORY").is_some() {
            eprintln!("{:>10} B {:>8} kB  {}", case.bytes.len(), raised, case.file);
        }
        if let Err(error) = &outcome {
            failures.push(format!("{}: {error}", case.file));
        } else if raised > allowed {
            failures.push(format!(
                "{}: raised the peak memory by {raised} kB, more than {allowed} kB",
                case.file
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every binding gives the same answers (in-process, without the memory check), except where
/// the manifest says an answer is the default binding's only.
#[test]
fn every_binding_gives_the_corpus_its_answers() {
    let cases = corpus();
    let mut all_failures = Vec::new();
    for binding in server::BindingChoice::ALL.into_iter().skip(1) {
        let server = TestServer::with_config(server::Config {
            binding,
            max_body: 16 * 1024 * 1024,
            header_timeout: Some(Duration::from_secs(2)),
            body_timeout: Some(Duration::from_secs(2)),
            ..server::Config::default()
        });
        let failures: Vec<String> = cases
            .iter()
            .filter_map(|case| {
                let answered_somehow = |addr| {
                    let mut client = Client::connect(addr);
                    let _ = std::io::Write::write_all(&mut client.stream, &case.bytes);
                    client
                        .try_read_response()
                        .map(drop)
                        .ok_or_else(|| "no answer".to_owned())
                };
                let checked = if case.streaming_only {
                    answered_somehow(server.addr)
                } else {
                    check(server.addr, case).map(drop)
                };
                checked
                    .and_then(|()| still_serving(server.addr))
                    .err()
                    .map(|error| format!("{}: {error}", case.file))
            })
            .collect();
        all_failures.extend(
            failures
                .into_iter()
                .map(|failure| format!("{binding:?}: {failure}")),
        );
    }
    assert!(
        all_failures.is_empty(),
        "{} cases failed:\n{}",
        all_failures.len(),
        all_failures.join("\n")
    );
}
