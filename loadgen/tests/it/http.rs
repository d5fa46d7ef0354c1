//! The response parser over a table of responses, each fed whole, split at every byte, and a
//! byte at a time: the result must not depend on how the bytes arrive.

use std::time::{Duration, Instant};

use loadgen::http::{BodyChecks, Feed, ParseError, Response, ResponseParser};

/// Feeds `pieces` in order; the response, or the error, or `None` if it never completed.
fn parse(
    pieces: &[&[u8]],
    head: bool,
    close_at_end: bool,
    checks: &BodyChecks,
) -> Result<Option<Response>, ParseError> {
    let mut parser = ResponseParser::new();
    parser.start(head, false);
    for piece in pieces {
        if let Feed::Complete { consumed } = parser.feed(piece, checks)? {
            assert_eq!(
                consumed,
                piece.len(),
                "the test responses have no trailing bytes"
            );
            return Ok(Some(*parser.response()));
        }
    }
    Ok(if close_at_end {
        parser.finish_at_close(checks)
    } else {
        None
    })
}

#[track_caller]
fn check(
    name: &str,
    bytes: &str,
    head: bool,
    close_at_end: bool,
    checks: &BodyChecks,
    expected: Result<Option<Response>, ParseError>,
) {
    let bytes = bytes.as_bytes();
    assert_eq!(
        parse(&[bytes], head, close_at_end, checks),
        expected,
        "{name}: whole"
    );
    for split in 1..bytes.len() {
        let (a, b) = bytes.split_at(split);
        assert_eq!(
            parse(&[a, b], head, close_at_end, checks),
            expected,
            "{name}: split at {split}"
        );
    }
    let bytes: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(
        parse(&bytes, head, close_at_end, checks),
        expected,
        "{name}: a byte at a time"
    );
}

/// The length of the first head in `text`.
fn head(text: &str) -> usize {
    text.find("\r\n\r\n").unwrap() + 4
}

fn ok(
    status: u16,
    head_len: usize,
    body_len: u64,
    keep_alive: bool,
) -> Result<Option<Response>, ParseError> {
    Ok(Some(Response {
        status,
        head_len: head_len as u64,
        body_len,
        keep_alive,
        expected_found: true,
        rejected_found: false,
        body_cut: false,
    }))
}

/// (name, response, HEAD request, the server closes after it, expected result from the text)
type Case = (&'static str, &'static str, bool, bool, fn(&str) -> Expected);
type Expected = Result<Option<Response>, ParseError>;

#[test]
fn responses() {
    let none = BodyChecks::default();
    let cases: Vec<Case> = vec![
        (
            "content-length",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
            false,
            false,
            |t| ok(200, head(t), 5, true),
        ),
        (
            "look-alike names are other headers; no space after the colon",
            "HTTP/1.1 200 OK\r\nContent-Lengthy: 9\r\nX-Content-Length: 9\r\nCONTENT-LENGTH:2\r\nConnections: close\r\n\r\nhi",
            false,
            false,
            |t| ok(200, head(t), 2, true),
        ),
        (
            "HTTP/1.0 keep-alive",
            "HTTP/1.0 200 OK\r\nconnection: Keep-Alive\r\ncontent-length: 2\r\n\r\nhi",
            false,
            false,
            |t| ok(200, head(t), 2, true),
        ),
        (
            "HTTP/1.0 without keep-alive",
            "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi",
            false,
            false,
            |t| ok(200, head(t), 2, false),
        ),
        (
            "Connection: close",
            "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
            false,
            false,
            |t| ok(503, head(t), 0, false),
        ),
        (
            "chunked, extension and trailer",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n",
            false,
            false,
            |t| ok(200, head(t), 15, true),
        ),
        (
            "chunked, no trailer",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            false,
            false,
            |t| ok(200, head(t), 0, true),
        ),
        (
            "100-continue, then the response",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx",
            false,
            false,
            |t| ok(201, t.len() - 1, 1, true),
        ),
        (
            "HEAD has no body",
            "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n",
            true,
            false,
            |t| ok(200, head(t), 0, true),
        ),
        (
            "204 has no body",
            "HTTP/1.1 204 No Content\r\n\r\n",
            false,
            false,
            |t| ok(204, head(t), 0, true),
        ),
        (
            "close-delimited",
            "HTTP/1.0 200 OK\r\n\r\nuntil the end",
            false,
            true,
            |t| ok(200, head(t), 13, false),
        ),
        (
            "cut short",
            "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
            false,
            true,
            |_| Ok(None),
        ),
        (
            "bad status line",
            "HTTX/1.1 200 OK\r\n\r\n",
            false,
            false,
            |_| Err(ParseError::StatusLine),
        ),
        (
            "bad length",
            "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
            false,
            false,
            |_| Err(ParseError::ContentLength),
        ),
        (
            "bad chunk size",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            false,
            false,
            |_| Err(ParseError::Chunked),
        ),
    ];
    for (name, text, head_request, close, expected) in cases {
        check(name, text, head_request, close, &none, expected(text));
    }
}

#[test]
fn body_checks_see_across_splits_and_chunks() {
    let fault = BodyChecks::new(Some("Envelope>"), Some("Fault>"));
    let body = "<soap:Envelope><soap:Fault></soap:Fault></soap:Envelope>";
    let response = format!(
        "HTTP/1.1 500 Error\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let expected = |status: u16,
                    head_len: usize,
                    body_len: u64,
                    expected_found: bool,
                    rejected_found: bool| {
        Ok(Some(Response {
            status,
            head_len: head_len as u64,
            body_len,
            keep_alive: true,
            expected_found,
            rejected_found,
            body_cut: false,
        }))
    };
    check(
        "fault",
        &response,
        false,
        false,
        &fault,
        expected(500, head(&response), body.len() as u64, true, true),
    );
    // "Fault>" split over two chunks.
    let chunked =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nFaul\r\n2\r\nt>\r\n0\r\n\r\n";
    check(
        "a needle across chunks",
        chunked,
        false,
        false,
        &fault,
        expected(200, head(chunked), 6, false, true),
    );
    let clean = "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n<e:Envelope/ok>";
    check(
        "clean",
        clean,
        false,
        false,
        &fault,
        expected(200, head(clean), 15, false, false),
    );
    let ok = "HTTP/1.1 200 OK\r\nContent-Length: 19\r\n\r\n<e:Envelope></e:Env";
    check(
        "found",
        ok,
        false,
        false,
        &fault,
        expected(200, head(ok), 19, true, false),
    );
}

#[test]
fn a_huge_head_is_refused() {
    let mut parser = ResponseParser::new();
    parser.start(false, false);
    let line = format!("X-Filler: {}\r\n", "y".repeat(1000));
    let mut result = parser.feed(b"HTTP/1.1 200 OK\r\n", &BodyChecks::default());
    for _ in 0..100 {
        result = parser.feed(line.as_bytes(), &BodyChecks::default());
        if result.is_err() {
            break;
        }
    }
    assert_eq!(result, Err(ParseError::HeadTooLarge));
}

#[test]
fn hostile_bytes_never_panic_and_never_overrun() {
    let seeds: &[&[u8]] = &[
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 204 No\r\nConnection: keep-alive\r\n\r\n",
        b"HTTP/1.0 200 OK\r\n\r\nuntil close",
    ];
    let alphabet = b"HTTP/1.0 2\r\n:;-0123456789abcdefxX Content-Length Transfer-Encoding chunked";
    let checks = BodyChecks::new(Some("ll"), Some("\r\n"));
    let mut rng = testkit::Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..100_000 {
        let mut bytes = seeds[round % seeds.len()].to_vec();
        for _ in 0..=rng.below(4) {
            let at = rng.below(bytes.len() + 1);
            match rng.below(3) {
                0 if at < bytes.len() => bytes[at] = alphabet[rng.below(alphabet.len())],
                1 => bytes.insert(at, alphabet[rng.below(alphabet.len())]),
                _ if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => {}
            }
        }
        let mut parser = ResponseParser::new();
        parser.start(rng.below(8) == 0, true);
        let mut offset = 0;
        while offset < bytes.len() {
            let end = (offset + 1 + rng.below(16)).min(bytes.len());
            match parser.feed(&bytes[offset..end], &checks) {
                Ok(Feed::Complete { consumed }) => {
                    assert!(
                        consumed <= end - offset,
                        "round {round}: consumed past the feed"
                    );
                    assert!(
                        parser.response().body_len as usize <= bytes.len(),
                        "round {round}: a body longer than the bytes fed"
                    );
                    break;
                }
                Ok(Feed::NeedMore) => offset = end,
                Err(_) => break,
            }
        }
        let _ = parser.finish_at_close(&checks);
    }
}

/// A reader that hands out at most `step` bytes a read, as a slow socket does.
struct Trickle<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(out.len()).min(self.bytes.len());
        out[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// `read_whole`, which the suite's check reads an answer with: the status and the whole body
/// (de-chunked), from any split of the bytes; it stops at the response's end, not at the close;
/// a response cut short is an error, not an answer.
#[test]
fn read_whole_keeps_the_body_of_one_response() {
    use loadgen::http::{ReadError, read_whole};
    /// (what it is, the bytes, the status and body read, or the error's text)
    type Case<'a> = (&'a str, &'a [u8], Result<(u16, &'a [u8]), &'a str>);
    let cases: &[Case] = &[
        (
            "content-length, then bytes of a next response that are not read",
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 500",
            Ok((200, b"hello")),
        ),
        (
            "chunked with a trailer",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n",
            Ok((200, b"abcde")),
        ),
        (
            "close-delimited",
            b"HTTP/1.0 500 Oops\r\n\r\nfault text",
            Ok((500, b"fault text")),
        ),
        (
            "an interim 100 first",
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
            Ok((201, b"ok")),
        ),
        (
            "cut short",
            b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nhello",
            Err("closed before the response was whole"),
        ),
        ("not HTTP", b"SSH-2.0-OpenSSH\r\n\r\n", Err("malformed status line")),
        (
            "a length past the limit, refused before its body",
            b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\nx",
            Err("larger than 64 bytes"),
        ),
        (
            "chunks past the limit",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n0123456789012345678901234567890123456789012345678901234567890123\r\n1\r\nx\r\n0\r\n\r\n",
            Err("larger than 64 bytes"),
        ),
        (
            "chunks at the limit",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n0123456789012345678901234567890123456789012345678901234567890123\r\n0\r\n\r\n",
            Ok((200, b"0123456789012345678901234567890123456789012345678901234567890123")),
        ),
    ];
    for (name, bytes, expected) in cases {
        for step in [1, 7, usize::MAX] {
            let mut reader = Trickle { bytes, step };
            let got = read_whole(&mut reader, false, 64);
            match (expected, got) {
                (Ok((status, body)), Ok((response, kept))) => {
                    assert_eq!(
                        (response.status, kept.as_slice()),
                        (*status, *body),
                        "{name}, {step}"
                    );
                }
                (
                    Err(message),
                    Err(error @ (ReadError::Closed | ReadError::Parse(_) | ReadError::TooLarge(_))),
                ) => {
                    assert!(
                        error.to_string().contains(message),
                        "{name}, {step}: {error}"
                    );
                }
                (expected, got) => panic!("{name}, {step}: expected {expected:?}, got {got:?}"),
            }
        }
    }
}

/// `exchange`, the one-shot request of the suite's check, the WSDL fetch and remote write: a
/// server that never answers, drips or never ends is cut at the deadline or the body limit,
/// and a header or path that would put bytes of its own on the wire is refused before any is
/// sent.
#[test]
fn exchanges_end_within_their_limits() {
    use loadgen::exchange::{Limits, exchange};
    use testkit::servers::{Behaviour, TestServer};
    let limits = Limits {
        deadline: Duration::from_millis(400),
        max_body: 64 << 10,
    };
    // (server, header, path, what the error says)
    let cases: &[(Behaviour, &str, &str, &str)] = &[
        (
            Behaviour::Stall,
            "X-A: 1",
            "/",
            "no whole answer within 400ms",
        ),
        (
            Behaviour::Drip,
            "X-A: 1",
            "/",
            "no whole answer within 400ms",
        ),
        (
            Behaviour::EndlessChunked,
            "X-A: 1",
            "/",
            "larger than 65536 bytes",
        ),
        (Behaviour::HugeHead, "X-A: 1", "/", "the answer of"),
        (
            Behaviour::Stall,
            "X-A: 1\r\nX-Injected: 1",
            "/",
            "holds '\\r'",
        ),
        (
            Behaviour::Stall,
            "X-A: 1\nX-Injected: 1",
            "/",
            "holds '\\n'",
        ),
        (Behaviour::Stall, "X-A: a\0b", "/", "holds '\\0'"),
        (Behaviour::Stall, "X A: 1", "/", "not an HTTP token"),
        (Behaviour::Stall, "X-A: 1", "/a b", "holds ' '"),
        (Behaviour::Stall, "X-A: 1", "/a\rb", "holds '\\r'"),
    ];
    for (behaviour, header, path, message) in cases {
        let server = TestServer::start(*behaviour);
        let mut url = loadgen::url::Url::parse(&server.url()).unwrap();
        url.path = (*path).to_owned();
        let started = Instant::now();
        let error = exchange(&url, None, "POST", &[(*header).to_owned()], b"x", limits)
            .map(|(status, _)| status)
            .expect_err(header);
        let text = format!("{error:#}");
        assert!(
            text.contains(message),
            "{behaviour:?} {header:?} {path:?}: {text}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{behaviour:?}: took {:?}",
            started.elapsed()
        );
        if !message.contains("within")
            && !message.contains("larger")
            && *behaviour == Behaviour::Stall
        {
            assert_eq!(
                server.requests(),
                0,
                "{header:?} {path:?}: a request was sent"
            );
        }
    }
}
