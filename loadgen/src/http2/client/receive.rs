//! The server's bytes read: frames cut from the stream, each checked against the protocol and
//! turned into [`Event`]s for its stream or into the connection's state (settings, windows,
//! GOAWAY).

use super::{Client, Encoding, Event, GoAway, Http2Error, MAX_HEADER_BLOCK, code};
use crate::http2::frame::{
    ACK, CONTINUATION, DATA, END_HEADERS, END_STREAM, FRAME_HEAD, GOAWAY, HEADERS, MAX_FRAME,
    MAX_STREAM_ID, MAX_WINDOW, PADDED, PING, PRIORITY, PRIORITY_FLAG, PUSH_PROMISE, RST_STREAM,
    SETTINGS, WINDOW_UPDATE,
};
use crate::http2::hpack::{self, HpackError};

impl<T> Client<T> {
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
                    if size < self.requests[0].blocks.table_size && self.encoding != Encoding::Plain
                    {
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
