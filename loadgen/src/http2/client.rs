//! One HTTP/2 connection's client state, without IO: the caller feeds it what the socket
//! read ([`Client::receive`]) and writes what it queued ([`Client::output`]).
//!
//! Every stream sends the same [`Request`], its header block encoded once. The server's
//! frames come back as [`Event`]s for the stream they belong to, the caller's value `T` riding
//! with each stream. Flow control both ways: the server's windows bound the request bodies we
//! send (the rest waits for WINDOW_UPDATE); ours are opened wide at the start and topped up
//! when half used. A frame the protocol forbids ends the connection with a GOAWAY queued and
//! an [`Http2Error`] naming it; what concerns one stream only resets that stream.

use std::sync::Arc;

use super::hpack::{self, Decoder, HpackError};

/// The client connection preface (RFC 9113, 3.4).
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Our SETTINGS_MAX_FRAME_SIZE: the protocol's default and smallest.
pub const MAX_FRAME: usize = 16_384;
/// The largest header block (HEADERS and its CONTINUATIONs) a server may send us.
pub const MAX_HEADER_BLOCK: usize = hpack::MAX_HEADER_LIST;

const FRAME_HEAD: usize = 9;
const DEFAULT_WINDOW: i64 = 65_535;
const MAX_WINDOW: i64 = (1 << 31) - 1;
const MAX_STREAM_ID: u32 = (1 << 31) - 1;

const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const PRIORITY: u8 = 0x2;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PUSH_PROMISE: u8 = 0x5;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;

const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY_FLAG: u8 = 0x20;

/// HTTP/2's error codes (RFC 9113, 7) that this side sends or names.
pub mod code {
    pub const NO_ERROR: u32 = 0x0;
    pub const PROTOCOL_ERROR: u32 = 0x1;
    pub const FLOW_CONTROL_ERROR: u32 = 0x3;
    pub const FRAME_SIZE_ERROR: u32 = 0x6;
    pub const REFUSED_STREAM: u32 = 0x7;
    pub const CANCEL: u32 = 0x8;
    pub const COMPRESSION_ERROR: u32 = 0x9;

    /// The code's name as RFC 9113 spells it.
    pub fn name(code: u32) -> String {
        const NAMES: [&str; 14] = [
            "NO_ERROR",
            "PROTOCOL_ERROR",
            "INTERNAL_ERROR",
            "FLOW_CONTROL_ERROR",
            "SETTINGS_TIMEOUT",
            "STREAM_CLOSED",
            "FRAME_SIZE_ERROR",
            "REFUSED_STREAM",
            "CANCEL",
            "COMPRESSION_ERROR",
            "CONNECT_ERROR",
            "ENHANCE_YOUR_CALM",
            "INADEQUATE_SECURITY",
            "HTTP_1_1_REQUIRED",
        ];
        NAMES.get(code as usize).map_or_else(
            || format!("error code {code:#x}"),
            |name| (*name).to_owned(),
        )
    }
}

/// The request every stream sends: its header block in its forms (see
/// [`hpack::encode_request`]) and its body.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub blocks: hpack::Blocks,
    pub body: Vec<u8>,
}

/// Which of the request's blocks the next stream sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    /// The first: it fills the server's table.
    First,
    /// Every later one: by index.
    Indexed,
    /// The server's table shrank below what `First` put in it: a size update, then `plain`.
    Shrink(usize),
    Plain,
}

/// Our receive windows: the stream's (SETTINGS_INITIAL_WINDOW_SIZE) and the connection's.
#[derive(Debug, Clone, Copy)]
pub struct Windows {
    pub stream: u32,
    pub connection: u32,
}

/// What the server's frames meant for a stream.
#[derive(Debug)]
pub enum Event<'a, T> {
    /// The response's final head (informational 1xx heads are passed over). `head_len`: its
    /// size as HTTP/1.1 text would have it, which ab's byte counts use.
    Head {
        user: &'a mut T,
        status: u16,
        head_len: u64,
        server: Option<&'a [u8]>,
    },
    /// A piece of the response's body.
    Data { user: &'a mut T, data: &'a [u8] },
    /// The response is complete.
    End(T),
    /// The stream ended without a complete response: the server reset it, or its GOAWAY said
    /// it will not process it (`code` then REFUSED_STREAM), or its frames broke the rules for
    /// a stream (we reset it with `code`).
    Reset { user: T, code: u32 },
}

/// A connection error: the server broke HTTP/2's rules, or does not speak it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Http2Error {
    #[error("the server answered in HTTP/1 (it does not speak HTTP/2 here)")]
    Http1,
    #[error("the server's first frame is not SETTINGS (it does not speak HTTP/2 here)")]
    NoSettings,
    #[error("PROTOCOL_ERROR: {0}")]
    Protocol(&'static str),
    #[error("FRAME_SIZE_ERROR: {0}")]
    FrameSize(&'static str),
    #[error("FLOW_CONTROL_ERROR: {0}")]
    FlowControl(&'static str),
    #[error("COMPRESSION_ERROR: {0}")]
    Compression(#[from] HpackError),
}

impl Http2Error {
    fn code(&self) -> u32 {
        match self {
            Http2Error::Http1 | Http2Error::NoSettings | Http2Error::Protocol(_) => {
                code::PROTOCOL_ERROR
            }
            Http2Error::FrameSize(_) => code::FRAME_SIZE_ERROR,
            Http2Error::FlowControl(_) => code::FLOW_CONTROL_ERROR,
            Http2Error::Compression(_) => code::COMPRESSION_ERROR,
        }
    }
}

/// The server's GOAWAY, as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoAway {
    pub last_stream: u32,
    pub code: u32,
    /// Its debug data, cut to 256 bytes.
    pub debug: Vec<u8>,
}

#[derive(Debug)]
struct Stream<T> {
    id: u32,
    user: T,
    send_window: i64,
    body_sent: usize,
    recv_window: i64,
    recv_unacked: u32,
    /// The final head has arrived.
    head: bool,
}

/// One connection's HTTP/2 state; `T` is the caller's value for each stream.
#[derive(Debug)]
pub struct Client<T> {
    request: Arc<Request>,
    windows: Windows,
    out: Vec<u8>,
    /// The start of a frame the last read cut short.
    partial: Vec<u8>,
    decoder: Decoder,
    streams: Vec<Stream<T>>,
    next_id: u32,
    /// Whether the server's first frame (its SETTINGS) has arrived.
    settings_seen: bool,
    peer_max_frame: usize,
    peer_initial_window: i64,
    peer_max_streams: usize,
    send_window: i64,
    recv_window: i64,
    recv_unacked: u32,
    /// A HEADERS frame waiting for its CONTINUATIONs: stream and END_STREAM, and the block.
    continuation: Option<(u32, bool)>,
    block: Vec<u8>,
    /// The `server` field of the head in hand.
    server: Vec<u8>,
    goaway: Option<GoAway>,
    encoding: Encoding,
}

impl<T> Client<T> {
    /// A connection about to send `request`: the preface, our settings and the connection
    /// window's opening are queued.
    pub fn new(request: Arc<Request>, windows: Windows) -> Client<T> {
        let mut client = Client {
            request,
            windows,
            out: Vec::with_capacity(64 * 1024),
            partial: Vec::new(),
            decoder: Decoder::default(),
            streams: Vec::new(),
            next_id: 1,
            settings_seen: false,
            peer_max_frame: MAX_FRAME,
            peer_initial_window: DEFAULT_WINDOW,
            peer_max_streams: usize::MAX,
            send_window: DEFAULT_WINDOW,
            recv_window: DEFAULT_WINDOW,
            recv_unacked: 0,
            continuation: None,
            block: Vec::new(),
            server: Vec::new(),
            goaway: None,
            encoding: Encoding::First,
        };
        client.out.extend_from_slice(PREFACE);
        let settings: [(u16, u32); 2] = [
            (0x2, 0), // SETTINGS_ENABLE_PUSH: off
            (0x4, windows.stream),
        ];
        client.frame_head(settings.len() * 6, SETTINGS, 0, 0);
        for (id, value) in settings {
            client.out.extend_from_slice(&id.to_be_bytes());
            client.out.extend_from_slice(&value.to_be_bytes());
        }
        let opening = i64::from(windows.connection) - DEFAULT_WINDOW;
        if opening > 0 {
            client.window_update(0, opening as u32);
            client.recv_window += opening;
        }
        client
    }

    /// Bytes to write to the socket.
    pub fn output(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }

    /// Whether another stream may open now: the server's limit on concurrent streams, its
    /// GOAWAY, and the stream identifiers left.
    pub fn can_open(&self) -> bool {
        self.goaway.is_none()
            && self.streams.len() < self.peer_max_streams
            && self.next_id <= MAX_STREAM_ID
    }

    /// Whether no stream will ever open on this connection again.
    pub fn exhausted(&self) -> bool {
        self.goaway.is_some() || self.next_id > MAX_STREAM_ID
    }

    /// The streams in flight.
    pub fn open_streams(&self) -> usize {
        self.streams.len()
    }

    /// The server's limit on concurrent streams, as its SETTINGS said (unlimited until then).
    pub fn peer_max_streams(&self) -> usize {
        self.peer_max_streams
    }

    /// Whether any frame has come from the server.
    pub fn heard_from(&self) -> bool {
        self.settings_seen
    }

    /// The server's GOAWAY, if one came.
    pub fn goaway(&self) -> Option<&GoAway> {
        self.goaway.as_ref()
    }

    /// The streams in flight, by identifier.
    pub fn streams(&self) -> impl Iterator<Item = (u32, &T)> {
        self.streams.iter().map(|stream| (stream.id, &stream.user))
    }

    /// Opens a stream sending the request; returns its identifier. Call only when
    /// [`can_open`](Client::can_open).
    pub fn open(&mut self, user: T) -> u32 {
        let id = self.next_id;
        self.next_id += 2;
        let request = Arc::clone(&self.request);
        let end_stream = if request.body.is_empty() {
            END_STREAM
        } else {
            0
        };
        let blocks = &request.blocks;
        let shrunk;
        let mut block = match self.encoding {
            Encoding::First => {
                self.encoding = Encoding::Indexed;
                blocks.first.as_slice()
            }
            Encoding::Indexed => blocks.indexed.as_slice(),
            Encoding::Shrink(size) => {
                self.encoding = Encoding::Plain;
                let mut block = Vec::with_capacity(blocks.plain.len() + 4);
                hpack::put_table_size(&mut block, size);
                block.extend_from_slice(&blocks.plain);
                shrunk = block;
                shrunk.as_slice()
            }
            Encoding::Plain => blocks.plain.as_slice(),
        };
        let first = block.len().min(self.peer_max_frame);
        let more = first < block.len();
        let flags = end_stream | if more { 0 } else { END_HEADERS };
        self.frame_head(first, HEADERS, flags, id);
        self.out.extend_from_slice(&block[..first]);
        block = &block[first..];
        while !block.is_empty() {
            let piece = block.len().min(self.peer_max_frame);
            let flags = if piece == block.len() { END_HEADERS } else { 0 };
            self.frame_head(piece, CONTINUATION, flags, id);
            self.out.extend_from_slice(&block[..piece]);
            block = &block[piece..];
        }
        self.streams.push(Stream {
            id,
            user,
            send_window: self.peer_initial_window,
            body_sent: 0,
            recv_window: i64::from(self.windows.stream),
            recv_unacked: 0,
            head: false,
        });
        if end_stream == 0 {
            self.send_body(self.streams.len() - 1);
        }
        id
    }

    /// Gives up on stream `id` (a timeout): RST_STREAM(CANCEL) is queued.
    pub fn cancel(&mut self, id: u32) -> Option<T> {
        let index = self.streams.iter().position(|stream| stream.id == id)?;
        self.rst_stream(id, code::CANCEL);
        Some(self.streams.swap_remove(index).user)
    }

    /// Takes every stream in flight (the connection is going away).
    pub fn take_streams(&mut self) -> impl Iterator<Item = T> + '_ {
        self.streams.drain(..).map(|stream| stream.user)
    }

    /// Reads what the socket gave, calling `on_event` for each stream event. A connection
    /// error queues a GOAWAY and is returned; the connection is then done.
    pub fn receive(
        &mut self,
        input: &[u8],
        mut on_event: impl FnMut(Event<'_, T>),
    ) -> Result<(), Http2Error> {
        let result = if self.partial.is_empty() {
            self.frames(input, &mut on_event).map(|used| {
                self.partial.extend_from_slice(&input[used..]);
            })
        } else {
            let mut partial = std::mem::take(&mut self.partial);
            partial.extend_from_slice(input);
            let result = self.frames(&partial, &mut on_event);
            if let Ok(used) = result {
                partial.drain(..used);
                self.partial = partial;
            }
            result.map(|_| ())
        };
        if let Err(error) = &result {
            self.goaway_frame(error.code());
        }
        result
    }

    /// Reads the whole frames at the start of `input`; returns the bytes they took.
    fn frames(
        &mut self,
        input: &[u8],
        on_event: &mut impl FnMut(Event<'_, T>),
    ) -> Result<usize, Http2Error> {
        let mut used = 0;
        loop {
            let rest = &input[used..];
            if !self.settings_seen {
                let http1 = b"HTTP/";
                let n = rest.len().min(http1.len());
                if n > 0 && rest[..n] == http1[..n] {
                    if n == http1.len() {
                        return Err(Http2Error::Http1);
                    }
                    return Ok(used);
                }
            }
            if rest.len() < FRAME_HEAD {
                return Ok(used);
            }
            let length =
                usize::from(rest[0]) << 16 | usize::from(rest[1]) << 8 | usize::from(rest[2]);
            let kind = rest[3];
            let flags = rest[4];
            let stream = u32::from_be_bytes([rest[5], rest[6], rest[7], rest[8]]) & MAX_STREAM_ID;
            if length > MAX_FRAME {
                if !self.settings_seen {
                    return Err(Http2Error::NoSettings);
                }
                return Err(Http2Error::FrameSize(
                    "a frame longer than our SETTINGS_MAX_FRAME_SIZE",
                ));
            }
            if rest.len() < FRAME_HEAD + length {
                return Ok(used);
            }
            used += FRAME_HEAD + length;
            let payload = &rest[FRAME_HEAD..FRAME_HEAD + length];
            self.frame(kind, flags, stream, payload, on_event)?;
        }
    }

    fn frame(
        &mut self,
        kind: u8,
        flags: u8,
        stream: u32,
        payload: &[u8],
        on_event: &mut impl FnMut(Event<'_, T>),
    ) -> Result<(), Http2Error> {
        if !self.settings_seen {
            if kind != SETTINGS || flags & ACK != 0 {
                return Err(Http2Error::NoSettings);
            }
            self.settings_seen = true;
        }
        if let Some((expected, _)) = self.continuation
            && (kind != CONTINUATION || stream != expected)
        {
            return Err(Http2Error::Protocol(
                "a header block interrupted before its END_HEADERS",
            ));
        }
        match kind {
            DATA => self.data(flags, stream, payload, on_event),
            HEADERS => self.headers(flags, stream, payload, on_event),
            PRIORITY => match (stream, payload.len()) {
                (0, _) => Err(Http2Error::Protocol("PRIORITY on stream 0")),
                (_, 5) => Ok(()),
                _ => Err(Http2Error::FrameSize("PRIORITY of other than 5 bytes")),
            },
            RST_STREAM => {
                if stream == 0 {
                    return Err(Http2Error::Protocol("RST_STREAM on stream 0"));
                }
                let code = u32_at(payload, 0)
                    .filter(|_| payload.len() == 4)
                    .ok_or(Http2Error::FrameSize("RST_STREAM of other than 4 bytes"))?;
                self.check_opened(stream, "RST_STREAM on a stream never opened")?;
                if let Some(index) = self.index(stream) {
                    let user = self.streams.swap_remove(index).user;
                    on_event(Event::Reset { user, code });
                }
                Ok(())
            }
            SETTINGS => self.settings(flags, stream, payload),
            PUSH_PROMISE => Err(Http2Error::Protocol(
                "PUSH_PROMISE, though our SETTINGS disabled push",
            )),
            PING => {
                if stream != 0 {
                    return Err(Http2Error::Protocol("PING on a stream"));
                }
                if payload.len() != 8 {
                    return Err(Http2Error::FrameSize("PING of other than 8 bytes"));
                }
                if flags & ACK == 0 {
                    self.frame_head(8, PING, ACK, 0);
                    self.out.extend_from_slice(payload);
                }
                Ok(())
            }
            GOAWAY => self.goaway_received(stream, payload, on_event),
            WINDOW_UPDATE => self.window_update_received(stream, payload, on_event),
            CONTINUATION => {
                let Some((id, end_stream)) = self.continuation else {
                    return Err(Http2Error::Protocol("CONTINUATION after no HEADERS"));
                };
                if self.block.len() + payload.len() > MAX_HEADER_BLOCK {
                    return Err(Http2Error::Compression(HpackError::TooLarge));
                }
                self.block.extend_from_slice(payload);
                if flags & END_HEADERS != 0 {
                    self.continuation = None;
                    self.end_of_headers(id, end_stream, on_event)?;
                }
                Ok(())
            }
            // Unknown frame types are ignored (RFC 9113, 4.1).
            _ => Ok(()),
        }
    }

    fn headers(
        &mut self,
        flags: u8,
        stream: u32,
        payload: &[u8],
        on_event: &mut impl FnMut(Event<'_, T>),
    ) -> Result<(), Http2Error> {
        if stream == 0 {
            return Err(Http2Error::Protocol("HEADERS on stream 0"));
        }
        if stream.is_multiple_of(2) {
            return Err(Http2Error::Protocol(
                "HEADERS on a stream the server opened, though push is off",
            ));
        }
        self.check_opened(stream, "HEADERS on a stream never opened")?;
        let mut fragment = unpad(flags, payload)?;
        if flags & PRIORITY_FLAG != 0 {
            fragment = fragment
                .get(5..)
                .ok_or(Http2Error::FrameSize("HEADERS too short for its priority"))?;
        }
        self.block.clear();
        self.block.extend_from_slice(fragment);
        let end_stream = flags & END_STREAM != 0;
        if flags & END_HEADERS == 0 {
            self.continuation = Some((stream, end_stream));
            return Ok(());
        }
        self.end_of_headers(stream, end_stream, on_event)
    }

    /// A whole header block: decoded (always, to keep the table in step), then told.
    fn end_of_headers(
        &mut self,
        stream: u32,
        end_stream: bool,
        on_event: &mut impl FnMut(Event<'_, T>),
    ) -> Result<(), Http2Error> {
        let mut status = None;
        let mut bad_status = false;
        // The head as HTTP/1.1 text: "HTTP/1.1 200 OK\r\n" and "\r\n" around "name: value\r\n"s.
        let mut head_len = 17u64;
        let mut has_server = false;
        self.server.clear();
        let server = &mut self.server;
        self.decoder.decode(&self.block, |name, value| {
            if name == b":status" {
                status = std::str::from_utf8(value)
                    .ok()
                    .filter(|text| text.len() == 3)
                    .and_then(|text| text.parse::<u16>().ok());
                bad_status |= status.is_none();
                return;
            }
            head_len += (name.len() + value.len() + 4) as u64;
            if name == b"server" {
                has_server = true;
                server.clear();
                server.extend_from_slice(value);
            }
        })?;
        let Some(index) = self.index(stream) else {
            return Ok(());
        };
        if !self.streams[index].head {
            match status {
                Some(100..=199) if !end_stream && !bad_status => return Ok(()),
                Some(status) if !bad_status => {
                    let Client {
                        streams, server, ..
                    } = self;
                    streams[index].head = true;
                    on_event(Event::Head {
                        user: &mut streams[index].user,
                        status,
                        head_len,
                        server: has_server.then_some(server.as_slice()),
                    });
                }
                _ => {
                    self.reset(index, code::PROTOCOL_ERROR, on_event);
                    return Ok(());
                }
            }
        } else if !end_stream {
            // Trailers must end the stream.
            self.reset(index, code::PROTOCOL_ERROR, on_event);
            return Ok(());
        }
        if end_stream {
            let user = self.streams.swap_remove(index).user;
            on_event(Event::End(user));
        }
        Ok(())
    }

    fn data(
        &mut self,
        flags: u8,
        stream: u32,
        payload: &[u8],
        on_event: &mut impl FnMut(Event<'_, T>),
    ) -> Result<(), Http2Error> {
        if stream == 0 {
            return Err(Http2Error::Protocol("DATA on stream 0"));
        }
        self.check_opened(stream, "DATA on a stream never opened")?;
        // The whole frame, padding too, counts against the windows.
        let size = payload.len() as u32;
        self.recv_window -= i64::from(size);
        if self.recv_window < 0 {
            return Err(Http2Error::FlowControl(
                "DATA beyond the connection's window",
            ));
        }
        self.recv_unacked += size;
        if self.recv_unacked >= self.windows.connection / 2 {
            let increment = std::mem::take(&mut self.recv_unacked);
            self.window_update(0, increment);
            self.recv_window += i64::from(increment);
        }
        let data = unpad(flags, payload)?;
        let Some(index) = self.index(stream) else {
            return Ok(());
        };
        let entry = &mut self.streams[index];
        entry.recv_window -= i64::from(size);
        if entry.recv_window < 0 {
            self.reset(index, code::FLOW_CONTROL_ERROR, on_event);
            return Ok(());
        }
        if !entry.head {
            self.reset(index, code::PROTOCOL_ERROR, on_event);
            return Ok(());
        }
        if !data.is_empty() {
            on_event(Event::Data {
                user: &mut entry.user,
                data,
            });
        }
        if flags & END_STREAM != 0 {
            let user = self.streams.swap_remove(index).user;
            on_event(Event::End(user));
            return Ok(());
        }
        entry.recv_unacked += size;
        if entry.recv_unacked >= self.windows.stream / 2 {
            let increment = std::mem::take(&mut entry.recv_unacked);
            entry.recv_window += i64::from(increment);
            self.window_update(stream, increment);
        }
        Ok(())
    }

    fn settings(&mut self, flags: u8, stream: u32, payload: &[u8]) -> Result<(), Http2Error> {
        if stream != 0 {
            return Err(Http2Error::Protocol("SETTINGS on a stream"));
        }
        if flags & ACK != 0 {
            if !payload.is_empty() {
                return Err(Http2Error::FrameSize(
                    "a SETTINGS acknowledgement with a payload",
                ));
            }
            return Ok(());
        }
        if !payload.len().is_multiple_of(6) {
            return Err(Http2Error::FrameSize("SETTINGS not a multiple of 6 bytes"));
        }
        for setting in payload.chunks_exact(6) {
            let id = u16::from_be_bytes([setting[0], setting[1]]);
            let value = u32::from_be_bytes([setting[2], setting[3], setting[4], setting[5]]);
            match id {
                0x2 if value > 1 => {
                    return Err(Http2Error::Protocol("SETTINGS_ENABLE_PUSH above 1"));
                }
                0x3 => self.peer_max_streams = value as usize,
                0x4 => {
                    let value = i64::from(value);
                    if value > MAX_WINDOW {
                        return Err(Http2Error::FlowControl(
                            "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1",
                        ));
                    }
                    let delta = value - self.peer_initial_window;
                    self.peer_initial_window = value;
                    for stream in &mut self.streams {
                        stream.send_window += delta;
                        if stream.send_window > MAX_WINDOW {
                            return Err(Http2Error::FlowControl(
                                "SETTINGS_INITIAL_WINDOW_SIZE overflows a stream's window",
                            ));
                        }
                    }
                }
                0x5 => {
                    if !(MAX_FRAME as u32..=(1 << 24) - 1).contains(&value) {
                        return Err(Http2Error::Protocol(
                            "SETTINGS_MAX_FRAME_SIZE outside 16384..16777215",
                        ));
                    }
                    self.peer_max_frame = value as usize;
                }
                0x1 => {
                    let size = (value as usize).min(hpack::TABLE_SIZE);
                    if size < self.request.blocks.table_size && self.encoding != Encoding::Plain {
                        self.encoding = Encoding::Shrink(size);
                    }
                }
                _ => {}
            }
        }
        self.frame_head(0, SETTINGS, ACK, 0);
        self.send_bodies();
        Ok(())
    }

    fn goaway_received(
        &mut self,
        stream: u32,
        payload: &[u8],
        on_event: &mut impl FnMut(Event<'_, T>),
    ) -> Result<(), Http2Error> {
        if stream != 0 {
            return Err(Http2Error::Protocol("GOAWAY on a stream"));
        }
        let (Some(last), Some(code)) = (u32_at(payload, 0), u32_at(payload, 4)) else {
            return Err(Http2Error::FrameSize("GOAWAY shorter than 8 bytes"));
        };
        let last_stream = last & MAX_STREAM_ID;
        let debug = payload[8..payload.len().min(8 + 256)].to_vec();
        self.goaway = Some(GoAway {
            last_stream,
            code,
            debug,
        });
        // Streams above the last one the server will process were never handled.
        let mut index = 0;
        while index < self.streams.len() {
            if self.streams[index].id > last_stream {
                let user = self.streams.swap_remove(index).user;
                on_event(Event::Reset {
                    user,
                    code: code::REFUSED_STREAM,
                });
            } else {
                index += 1;
            }
        }
        Ok(())
    }

    fn window_update_received(
        &mut self,
        stream: u32,
        payload: &[u8],
        on_event: &mut impl FnMut(Event<'_, T>),
    ) -> Result<(), Http2Error> {
        let increment = u32_at(payload, 0)
            .filter(|_| payload.len() == 4)
            .ok_or(Http2Error::FrameSize("WINDOW_UPDATE of other than 4 bytes"))?;
        let increment = i64::from(increment & MAX_STREAM_ID);
        if stream == 0 {
            if increment == 0 {
                return Err(Http2Error::Protocol("WINDOW_UPDATE of 0 on the connection"));
            }
            self.send_window += increment;
            if self.send_window > MAX_WINDOW {
                return Err(Http2Error::FlowControl(
                    "WINDOW_UPDATE opens the connection's window past 2^31-1",
                ));
            }
        } else {
            self.check_opened(stream, "WINDOW_UPDATE on a stream never opened")?;
            let Some(index) = self.index(stream) else {
                return Ok(());
            };
            let entry = &mut self.streams[index];
            entry.send_window += increment;
            if increment == 0 {
                self.reset(index, code::PROTOCOL_ERROR, on_event);
                return Ok(());
            }
            if entry.send_window > MAX_WINDOW {
                self.reset(index, code::FLOW_CONTROL_ERROR, on_event);
                return Ok(());
            }
        }
        self.send_bodies();
        Ok(())
    }

    /// A frame on a stream we never opened is a connection error (RFC 9113, 5.1: idle);
    /// `error` says which frame.
    fn check_opened(&self, stream: u32, error: &'static str) -> Result<(), Http2Error> {
        if stream >= self.next_id {
            return Err(Http2Error::Protocol(error));
        }
        Ok(())
    }

    fn index(&self, stream: u32) -> Option<usize> {
        self.streams.iter().position(|entry| entry.id == stream)
    }

    /// A stream error: RST_STREAM queued, the stream told.
    fn reset(&mut self, index: usize, code: u32, on_event: &mut impl FnMut(Event<'_, T>)) {
        let stream = self.streams.swap_remove(index);
        self.rst_stream(stream.id, code);
        on_event(Event::Reset {
            user: stream.user,
            code,
        });
    }

    /// Sends what the windows allow of every stream's body.
    fn send_bodies(&mut self) {
        for index in 0..self.streams.len() {
            if self.send_window <= 0 {
                return;
            }
            self.send_body(index);
        }
    }

    fn send_body(&mut self, index: usize) {
        let body_len = self.request.body.len();
        loop {
            let stream = &self.streams[index];
            let left = body_len - stream.body_sent;
            let allowed = stream.send_window.min(self.send_window).max(0) as usize;
            let piece = left.min(allowed).min(self.peer_max_frame);
            if piece == 0 {
                return;
            }
            let (id, from) = (stream.id, stream.body_sent);
            let flags = if piece == left { END_STREAM } else { 0 };
            self.frame_head(piece, DATA, flags, id);
            self.out
                .extend_from_slice(&self.request.body[from..from + piece]);
            let stream = &mut self.streams[index];
            stream.body_sent += piece;
            stream.send_window -= piece as i64;
            self.send_window -= piece as i64;
        }
    }

    fn frame_head(&mut self, length: usize, kind: u8, flags: u8, stream: u32) {
        let length = (length as u32).to_be_bytes();
        self.out.extend_from_slice(&length[1..]);
        self.out.push(kind);
        self.out.push(flags);
        self.out.extend_from_slice(&stream.to_be_bytes());
    }

    fn window_update(&mut self, stream: u32, increment: u32) {
        self.frame_head(4, WINDOW_UPDATE, 0, stream);
        self.out.extend_from_slice(&increment.to_be_bytes());
    }

    fn rst_stream(&mut self, stream: u32, code: u32) {
        self.frame_head(4, RST_STREAM, 0, stream);
        self.out.extend_from_slice(&code.to_be_bytes());
    }

    fn goaway_frame(&mut self, code: u32) {
        self.frame_head(8, GOAWAY, 0, 0);
        self.out.extend_from_slice(&0u32.to_be_bytes());
        self.out.extend_from_slice(&code.to_be_bytes());
    }
}

/// The payload without its padding, when the frame is PADDED.
fn unpad(flags: u8, payload: &[u8]) -> Result<&[u8], Http2Error> {
    if flags & PADDED == 0 {
        return Ok(payload);
    }
    let (&pad, rest) = payload.split_first().ok_or(Http2Error::FrameSize(
        "a PADDED frame without its pad length",
    ))?;
    rest.len()
        .checked_sub(usize::from(pad))
        .map(|len| &rest[..len])
        .ok_or(Http2Error::Protocol("padding longer than the frame"))
}

/// The big-endian `u32` at `at`, if the payload is long enough.
fn u32_at(payload: &[u8], at: usize) -> Option<u32> {
    let bytes = payload.get(at..at + 4)?;
    Some(u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}
