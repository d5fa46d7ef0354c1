//! The HTTP/2 behaviours: a server of raw frames (no HPACK decoding: a request's fields do not
//! matter here), enough to refuse streams the ways real servers do.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{BODY, Behaviour};

use crate::h2_frames::{
    DATA, END_HEADERS, END_STREAM, GOAWAY, HEADERS, PREFACE, REFUSED_STREAM, RST_STREAM, SETTINGS,
    frame,
};

#[derive(Debug, Clone, Copy)]
pub(super) enum H2 {
    GoAwayAfter(u32),
    RefuseFirst,
    RefuseAll,
    NoStreams,
}

impl H2 {
    pub(super) fn of(behaviour: Behaviour) -> Option<H2> {
        match behaviour {
            Behaviour::H2GoAwayAfter(n) => Some(H2::GoAwayAfter(n)),
            Behaviour::H2RefuseFirst => Some(H2::RefuseFirst),
            Behaviour::H2RefuseAll => Some(H2::RefuseAll),
            Behaviour::H2NoStreams => Some(H2::NoStreams),
            _ => None,
        }
    }

    /// Serves one connection: each request complete (END_STREAM) gets `:status 200` and
    /// [`BODY`], or a refusal.
    pub(super) fn serve(self, stream: &mut impl ReadWrite, requests: &AtomicU64) {
        let mut preface = [0u8; 24];
        if stream.read_exact(&mut preface).is_err() || preface != PREFACE {
            return;
        }
        let mut out = match self {
            // SETTINGS_MAX_CONCURRENT_STREAMS (0x3): 0.
            H2::NoStreams => frame(SETTINGS, 0, 0, &[0, 3, 0, 0, 0, 0]),
            _ => frame(SETTINGS, 0, 0, &[]),
        };
        if let H2::RefuseAll = self {
            out.extend(frame(GOAWAY, 0, 0, &[0, 0, 0, 0, 0, 0, 0, 0]));
            let _ = stream.write_all(&out);
            // Read what comes until the client closes, so that it reads the GOAWAY.
            let _ = std::io::copy(stream, &mut std::io::sink());
            return;
        }
        if stream.write_all(&out).is_err() {
            return;
        }
        let mut answered = 0u32;
        let mut seen = 0u32;
        loop {
            let mut head = [0u8; 9];
            if stream.read_exact(&mut head).is_err() {
                return;
            }
            let len = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
            let mut payload = vec![0u8; len];
            if stream.read_exact(&mut payload).is_err() {
                return;
            }
            let (kind, flags) = (head[3], head[4]);
            let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
            if !matches!(kind, HEADERS | DATA) || flags & END_STREAM == 0 {
                continue;
            }
            seen += 1;
            let out = match self {
                // A stream sent before the client read the limit is refused (RFC 9113, 5.1.2).
                H2::NoStreams => frame(RST_STREAM, 0, id, &REFUSED_STREAM.to_be_bytes()),
                H2::RefuseFirst if seen == 1 => {
                    frame(RST_STREAM, 0, id, &REFUSED_STREAM.to_be_bytes())
                }
                _ => {
                    requests.fetch_add(1, Ordering::SeqCst);
                    answered += 1;
                    // `:status 200` is static entry 8.
                    let mut out = frame(HEADERS, END_HEADERS, id, &[0x88]);
                    out.extend(frame(DATA, END_STREAM, id, BODY));
                    out
                }
            };
            if stream.write_all(&out).is_err() {
                return;
            }
            if let H2::GoAwayAfter(limit) = self
                && answered == limit
            {
                let mut payload = id.to_be_bytes().to_vec();
                payload.extend(0u32.to_be_bytes());
                let _ = stream.write_all(&frame(GOAWAY, 0, 0, &payload));
                return;
            }
        }
    }
}

/// What a connection's stream needs here.
pub(super) trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}
