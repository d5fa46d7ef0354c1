//! One HTTP/2 connection's client state, without IO: the caller feeds it what the socket
//! read ([`Client::receive`]) and writes what it queued ([`Client::output`]).
//!
//! Every stream sends one of the connection's [`Request`]s (one, or a mix's kinds), each
//! header block encoded once. The server's
//! frames come back as [`Event`]s for the stream they belong to, the caller's value `T` riding
//! with each stream. Flow control both ways: the server's windows bound the request bodies we
//! send (the rest waits for WINDOW_UPDATE); ours are opened wide at the start and topped up
//! when half used. A frame the protocol forbids ends the connection with a GOAWAY queued and
//! an [`Http2Error`] naming it; what concerns one stream only resets that stream.

mod receive;

use std::sync::Arc;

use super::frame::{
    CONTINUATION, DATA, DEFAULT_WINDOW, END_HEADERS, END_STREAM, GOAWAY, HEADERS, MAX_FRAME,
    MAX_STREAM_ID, PREFACE, RST_STREAM, SETTINGS, WINDOW_UPDATE, code,
};
use super::hpack::{self, Decoder, HpackError};

/// The largest header block (HEADERS and its CONTINUATIONs) a server may send us.
pub const MAX_HEADER_BLOCK: usize = hpack::MAX_HEADER_LIST;

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
    /// Which of the connection's requests it sends.
    kind: usize,
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
    requests: Arc<[Request]>,
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
    /// A connection about to send `requests` (a stream sends one of them): the preface, our
    /// settings and the connection window's opening are queued. With more than one, every
    /// header block goes without the dynamic table, since the entries one request's first
    /// block would make are not another's.
    pub fn new(requests: Arc<[Request]>, windows: Windows) -> Client<T> {
        let encoding = if requests.len() > 1 {
            Encoding::Plain
        } else {
            Encoding::First
        };
        let mut client = Client {
            requests,
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
            encoding,
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

    /// Opens a stream sending the (first) request; returns its identifier. Call only when
    /// [`can_open`](Client::can_open).
    pub fn open(&mut self, user: T) -> u32 {
        self.open_kind(user, 0)
    }

    /// Opens a stream sending request `kind` of the connection's.
    pub fn open_kind(&mut self, user: T, kind: usize) -> u32 {
        let id = self.next_id;
        self.next_id += 2;
        let requests = Arc::clone(&self.requests);
        let request = &requests[kind];
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
            kind,
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
        let requests = Arc::clone(&self.requests);
        let body = &requests[self.streams[index].kind].body;
        let body_len = body.len();
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
            self.out.extend_from_slice(&body[from..from + piece]);
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
