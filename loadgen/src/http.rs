//! A sans-IO HTTP/1.x response parser: bytes in as they arrive, one [`Response`] out when the
//! message is complete. It frames bodies by Content-Length, chunked transfer coding or the
//! close of the connection, skips `1xx` interim responses, and looks for the `--expect-body` and
//! `--reject-body` texts as the body streams past (even across reads and chunk boundaries),
//! so it never has to keep a body in memory.

use std::sync::LazyLock;

use memchr::memmem;

mod head;
use head::{header_value, parse_decimal, parse_status_line};

/// The end of a head; built once, as building a searcher costs more than most searches.
static HEAD_END: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"\r\n\r\n"));

/// A response head larger than this is refused (ab's limit is 8 KiB; real servers send less
/// than 1 KiB).
pub const MAX_HEAD: usize = 64 * 1024;

/// A kept body's buffer larger than this is let go before the next response.
const MAX_KEPT_BETWEEN: usize = 1 << 20;

/// Why a response could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("response head larger than {MAX_HEAD} bytes")]
    HeadTooLarge,
    #[error("malformed status line")]
    StatusLine,
    #[error("malformed Content-Length")]
    ContentLength,
    #[error("malformed chunked body")]
    Chunked,
}

/// A complete response, as the statistics need it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Bytes of the final head, interim `1xx` heads included.
    pub head_len: u64,
    /// The body as delivered, after chunked decoding.
    pub body_len: u64,
    /// Whether the connection may carry another request.
    pub keep_alive: bool,
    /// `--expect-body` seen (true when none was asked for).
    pub expected_found: bool,
    /// `--reject-body` seen.
    pub rejected_found: bool,
    /// The body was longer than [`BodyChecks`] keeps: what was kept is its start only.
    pub body_cut: bool,
}

/// What [`ResponseParser::feed`] made of the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// Every byte was taken; the response goes on.
    NeedMore,
    /// The response ended after `consumed` bytes of this feed.
    Complete { consumed: usize },
}

/// What to look for in bodies; shared by every connection of a thread.
#[derive(Debug, Clone, Default)]
pub struct BodyChecks {
    expect: Option<memmem::Finder<'static>>,
    reject: Option<memmem::Finder<'static>>,
    /// Keep each body whole ([`ResponseParser::take_body`], [`ResponseParser::kept_body`]), to
    /// this many bytes: for the checks that judge a whole answer.
    keep: bool,
    keep_limit: usize,
}

impl BodyChecks {
    pub fn new(expect: Option<&str>, reject: Option<&str>) -> BodyChecks {
        let finder = |text: &str| {
            (!text.is_empty()).then(|| memmem::Finder::new(text.as_bytes()).into_owned())
        };
        BodyChecks {
            expect: expect.and_then(finder),
            reject: reject.and_then(finder),
            keep: false,
            keep_limit: 0,
        }
    }

    /// No texts to look for, and each body kept whole.
    pub fn keep_body() -> BodyChecks {
        BodyChecks::default().keeping(usize::MAX)
    }

    /// The same checks, each body kept to `limit` bytes.
    pub fn keeping(self, limit: usize) -> BodyChecks {
        BodyChecks {
            keep: true,
            keep_limit: limit,
            ..self
        }
    }

    /// Whether bodies are kept.
    pub fn keeps(&self) -> bool {
        self.keep
    }

    fn is_empty(&self) -> bool {
        self.expect.is_none() && self.reject.is_none() && !self.keep
    }

    /// The longest needle less one: how much of a body's tail must be kept to find a needle
    /// that straddles two reads.
    fn overlap(&self) -> usize {
        let len = |finder: &Option<memmem::Finder<'static>>| {
            finder.as_ref().map_or(0, |finder| finder.needle().len())
        };
        len(&self.expect).max(len(&self.reject)).saturating_sub(1)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    Length {
        remaining: u64,
    },
    ChunkSize {
        size: u64,
        digits: u32,
        in_extension: bool,
    },
    ChunkData {
        remaining: u64,
    },
    ChunkDataEnd {
        seen_cr: bool,
    },
    Trailers {
        line_len: usize,
    },
    UntilClose,
}

/// The parser of one connection: reset by [`ResponseParser::start`] for every request.
#[derive(Debug)]
pub struct ResponseParser {
    state: State,
    /// The head so far, when it did not arrive in one read.
    head: Vec<u8>,
    response: Response,
    head_request: bool,
    /// Keep the `Server` header of this response (the report shows the first one's).
    capture_server: bool,
    server: Option<Vec<u8>>,
    /// The tail of the body kept for needles that straddle reads.
    carry: Vec<u8>,
    /// The whole body, with [`BodyChecks::keep_body`].
    kept: Vec<u8>,
}

impl Default for ResponseParser {
    fn default() -> Self {
        ResponseParser::new()
    }
}

impl ResponseParser {
    pub fn new() -> ResponseParser {
        ResponseParser {
            state: State::Head,
            head: Vec::new(),
            response: Response::default(),
            head_request: false,
            capture_server: false,
            server: None,
            carry: Vec::new(),
            kept: Vec::new(),
        }
    }

    /// Prepares for the response to a new request; a `HEAD` response has no body.
    pub fn start(&mut self, head_request: bool, capture_server: bool) {
        self.capture_server = capture_server;
        self.state = State::Head;
        self.head.clear();
        self.carry.clear();
        // A body kept for the checks is not held at its largest between answers.
        if self.kept.capacity() > MAX_KEPT_BETWEEN {
            self.kept = Vec::new();
        }
        self.kept.clear();
        self.response = Response::default();
        self.head_request = head_request;
    }

    /// The response so far (status and head are known once the head is in).
    pub fn response(&self) -> &Response {
        &self.response
    }

    /// The `Server` header of the last response, when it was asked for and present.
    pub fn take_server(&mut self) -> Option<Vec<u8>> {
        self.server.take()
    }

    /// A response framed by another layer (HTTP/2's HEADERS and DATA frames): its status, and
    /// the size its head would have as HTTP/1.1 text; [`framed_data`] and [`framed_end`]
    /// follow, with the same body checks as a parsed response.
    ///
    /// [`framed_data`]: ResponseParser::framed_data
    /// [`framed_end`]: ResponseParser::framed_end
    pub fn framed_head(&mut self, status: u16, head_len: u64, server: Option<&[u8]>) {
        self.response.status = status;
        self.response.head_len = head_len;
        self.response.keep_alive = true;
        if self.capture_server {
            self.server = server.map(<[u8]>::to_vec);
        }
    }

    /// A piece of a framed response's body.
    pub fn framed_data(&mut self, data: &[u8], checks: &BodyChecks) {
        self.body(data, checks);
    }

    /// The framed response ended.
    pub fn framed_end(&mut self, checks: &BodyChecks) {
        self.complete(checks);
    }

    /// The body of the response so far, as kept (empty unless [`BodyChecks::keeps`]).
    pub fn kept_body(&self) -> &[u8] {
        &self.kept
    }

    /// The body of the last response, with [`BodyChecks::keep_body`] (empty otherwise).
    pub fn take_body(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.kept)
    }

    /// Whether any byte of the response has been seen.
    pub fn started(&self) -> bool {
        self.state != State::Head || !self.head.is_empty()
    }

    /// The response of a close-delimited body ends when the server closes: the caller says so.
    /// Returns the response if the close was a valid end of it.
    pub fn finish_at_close(&mut self, checks: &BodyChecks) -> Option<Response> {
        (self.state == State::UntilClose).then(|| {
            self.complete(checks);
            self.response
        })
    }

    /// Takes the next bytes of the response.
    pub fn feed(&mut self, data: &[u8], checks: &BodyChecks) -> Result<Feed, ParseError> {
        let mut at = 0;
        loop {
            match self.state {
                State::Head => {
                    let Some(used) = self.feed_head(&data[at..])? else {
                        return Ok(Feed::NeedMore);
                    };
                    at += used;
                    if self.state == State::Head {
                        // An interim 1xx response: the real one follows.
                        continue;
                    }
                    if self.is_done_now() {
                        self.complete(checks);
                        return Ok(Feed::Complete { consumed: at });
                    }
                }
                State::Length { remaining } => {
                    let take = remaining.min((data.len() - at) as u64) as usize;
                    self.body(&data[at..at + take], checks);
                    at += take;
                    let remaining = remaining - take as u64;
                    self.state = State::Length { remaining };
                    if remaining == 0 {
                        self.complete(checks);
                        return Ok(Feed::Complete { consumed: at });
                    }
                    return Ok(Feed::NeedMore);
                }
                State::UntilClose => {
                    self.body(&data[at..], checks);
                    return Ok(Feed::NeedMore);
                }
                State::ChunkData { remaining } => {
                    let take = remaining.min((data.len() - at) as u64) as usize;
                    self.body(&data[at..at + take], checks);
                    at += take;
                    let remaining = remaining - take as u64;
                    self.state = if remaining == 0 {
                        State::ChunkDataEnd { seen_cr: false }
                    } else {
                        State::ChunkData { remaining }
                    };
                    if remaining != 0 {
                        return Ok(Feed::NeedMore);
                    }
                }
                State::ChunkSize { .. } | State::ChunkDataEnd { .. } | State::Trailers { .. } => {
                    // Chunk framing is a few bytes a chunk: byte at a time is fine.
                    let Some(&byte) = data.get(at) else {
                        return Ok(Feed::NeedMore);
                    };
                    at += 1;
                    if self.chunk_framing(byte)? {
                        self.complete(checks);
                        return Ok(Feed::Complete { consumed: at });
                    }
                }
            }
            if at == data.len() {
                return Ok(Feed::NeedMore);
            }
        }
    }

    fn is_done_now(&self) -> bool {
        matches!(self.state, State::Length { remaining: 0 })
    }

    /// Returns how many bytes of `data` the head took, once it is complete.
    fn feed_head(&mut self, data: &[u8]) -> Result<Option<usize>, ParseError> {
        if self.head.is_empty() {
            // The common case: the whole head in one read, parsed in place.
            if let Some(end) = HEAD_END.find(data) {
                self.parse_head(&data[..end + 4])?;
                return Ok(Some(end + 4));
            }
            if data.len() > MAX_HEAD {
                return Err(ParseError::HeadTooLarge);
            }
            self.head.extend_from_slice(data);
            return Ok(None);
        }
        // Look again from a little before the old end, in case the blank line straddles.
        let search_from = self.head.len().saturating_sub(3);
        let old_len = self.head.len();
        self.head.extend_from_slice(data);
        if let Some(end) = HEAD_END.find(&self.head[search_from..]) {
            let head_len = search_from + end + 4;
            let head = std::mem::take(&mut self.head);
            let result = self.parse_head(&head[..head_len]);
            self.head = head;
            self.head.clear();
            result?;
            return Ok(Some(head_len - old_len));
        }
        if self.head.len() > MAX_HEAD {
            return Err(ParseError::HeadTooLarge);
        }
        Ok(None)
    }

    fn parse_head(&mut self, head: &[u8]) -> Result<(), ParseError> {
        self.response.head_len += head.len() as u64;
        // Lines are found with memchr, and a line is one of the four headers we read only if
        // its name's length is followed by the colon: most lines are turned away by one byte.
        // Splitting a byte at a time and comparing every name with every header we look for
        // was 40% of loadgen's user instructions (callgrind).
        let status_end = memchr::memchr(b'\n', head).ok_or(ParseError::StatusLine)?;
        let (http11, status) = parse_status_line(&head[..status_end])?;
        let mut content_length = None;
        let mut chunked = false;
        let mut close = false;
        let mut keep_alive = false;
        let mut start = status_end + 1;
        while start < head.len() {
            let end = memchr::memchr(b'\n', &head[start..]).map_or(head.len(), |at| start + at);
            let line = &head[start..end];
            start = end + 1;
            if let Some(value) = header_value(line, b"content-length") {
                content_length = Some(parse_decimal(value).ok_or(ParseError::ContentLength)?);
            } else if let Some(value) = header_value(line, b"transfer-encoding") {
                chunked = value
                    .rsplit(|&byte| byte == b',')
                    .next()
                    .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"chunked"));
            } else if let Some(value) = header_value(line, b"connection") {
                for token in value.split(|&byte| byte == b',') {
                    let token = token.trim_ascii();
                    close |= token.eq_ignore_ascii_case(b"close");
                    keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
                }
            } else if self.capture_server
                && let Some(value) = header_value(line, b"server")
            {
                self.server = Some(value.to_vec());
            }
        }
        if (100..200).contains(&status) && status != 101 {
            // Interim: stay in Head for the final response.
            return Ok(());
        }
        self.response.status = status;
        self.response.keep_alive = !close && (http11 || keep_alive);
        let no_body = self.head_request || status == 204 || status == 304;
        self.state = if no_body {
            State::Length { remaining: 0 }
        } else if chunked {
            State::ChunkSize {
                size: 0,
                digits: 0,
                in_extension: false,
            }
        } else if let Some(length) = content_length {
            State::Length { remaining: length }
        } else {
            self.response.keep_alive = false;
            State::UntilClose
        };
        Ok(())
    }

    /// One byte of chunk framing; true when the message ends.
    fn chunk_framing(&mut self, byte: u8) -> Result<bool, ParseError> {
        match &mut self.state {
            State::ChunkSize {
                size,
                digits,
                in_extension,
            } => match byte {
                b'\n' => {
                    if *digits == 0 {
                        return Err(ParseError::Chunked);
                    }
                    self.state = if *size == 0 {
                        State::Trailers { line_len: 0 }
                    } else {
                        State::ChunkData { remaining: *size }
                    };
                }
                b'\r' => {}
                b';' | b' ' | b'\t' => *in_extension = true,
                _ if *in_extension => {}
                _ => {
                    let digit = (byte as char).to_digit(16).ok_or(ParseError::Chunked)?;
                    if *digits >= 15 {
                        return Err(ParseError::Chunked);
                    }
                    *size = *size * 16 + u64::from(digit);
                    *digits += 1;
                }
            },
            State::ChunkDataEnd { seen_cr } => match byte {
                b'\r' if !*seen_cr => *seen_cr = true,
                b'\n' => {
                    self.state = State::ChunkSize {
                        size: 0,
                        digits: 0,
                        in_extension: false,
                    }
                }
                _ => return Err(ParseError::Chunked),
            },
            State::Trailers { line_len } => match byte {
                b'\n' if *line_len == 0 => return Ok(true),
                b'\n' => *line_len = 0,
                b'\r' => {}
                _ => *line_len += 1,
            },
            _ => unreachable!("chunk_framing is called in framing states only"),
        }
        Ok(false)
    }

    fn body(&mut self, data: &[u8], checks: &BodyChecks) {
        self.response.body_len += data.len() as u64;
        if checks.is_empty() || data.is_empty() {
            return;
        }
        if checks.keep {
            if self.kept.len().saturating_add(data.len()) <= checks.keep_limit {
                self.kept.extend_from_slice(data);
            } else {
                self.response.body_cut = true;
            }
        }
        let overlap = checks.overlap();
        let search = |haystack: &[u8], response: &mut Response| {
            if let Some(finder) = &checks.expect {
                response.expected_found |= finder.find(haystack).is_some();
            }
            if let Some(finder) = &checks.reject {
                response.rejected_found |= finder.find(haystack).is_some();
            }
        };
        // The seam: the kept tail of earlier bytes followed by the head of these.
        let mut seam = std::mem::take(&mut self.carry);
        if !seam.is_empty() {
            seam.extend_from_slice(&data[..data.len().min(overlap)]);
            search(&seam, &mut self.response);
        }
        search(data, &mut self.response);
        if data.len() >= overlap {
            seam.clear();
            seam.extend_from_slice(&data[data.len() - overlap..]);
        } else {
            if seam.is_empty() {
                seam.extend_from_slice(data);
            }
            let excess = seam.len().saturating_sub(overlap);
            seam.drain(..excess);
        }
        self.carry = seam;
    }

    fn complete(&mut self, checks: &BodyChecks) {
        if checks.expect.is_none() {
            self.response.expected_found = true;
        }
    }
}

/// Why [`read_whole`] could not read a response.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Parse(#[from] ParseError),
    #[error("the connection closed before the response was whole")]
    Closed,
    #[error("the answer's body is larger than {0} bytes")]
    TooLarge(usize),
}

/// Reads one whole response to a request of `method` from `reader` (a blocking socket, say) and
/// keeps its body: how a check that judges one answer reads it, with the parser the load uses.
/// It stops at the response's end, not at the close, so a server that keeps the connection open
/// despite `Connection: close` does not hold it.
/// A body past `max_body` bytes is refused: as soon as its Content-Length says so, else once
/// that much has come.
pub fn read_whole(
    reader: &mut impl std::io::Read,
    head_request: bool,
    max_body: usize,
) -> Result<(Response, Vec<u8>), ReadError> {
    let checks = BodyChecks::keep_body();
    let mut parser = ResponseParser::new();
    parser.start(head_request, false);
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            let response = parser.finish_at_close(&checks).ok_or(ReadError::Closed)?;
            return Ok((response, parser.take_body()));
        }
        let fed = parser.feed(&buffer[..n], &checks)?;
        let promised = match parser.state {
            State::Length { remaining } => remaining,
            _ => 0,
        };
        if parser.kept.len() as u64 + promised > max_body as u64 {
            return Err(ReadError::TooLarge(max_body));
        }
        if let Feed::Complete { .. } = fed {
            let response = *parser.response();
            return Ok((response, parser.take_body()));
        }
    }
}
