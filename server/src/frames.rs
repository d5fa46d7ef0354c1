//! Where an HTTP/2 client's bytes stand between frames, as the watchdog needs it: whether the
//! connection preface, a frame other than DATA, or a header block (HEADERS or PUSH_PROMISE up to
//! the CONTINUATION that ends it) is part-way. hyper's h2 decodes the frames; this only follows
//! their boundaries (RFC 9113, 4.1), reading each byte once, so that the header timeout means
//! "a head has begun and is not whole" over HTTP/2 as over HTTP/1.1.

/// HTTP/2's client connection preface (RFC 9113, 3.4).
pub(crate) const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

const HEADER_LEN: usize = 9;
const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const PUSH_PROMISE: u8 = 0x5;
const CONTINUATION: u8 = 0x9;
const END_HEADERS: u8 = 0x4;

/// The frame boundaries of one direction of a connection, from its first byte.
#[derive(Debug, Clone)]
pub(crate) struct FrameTracker {
    /// Bytes of the preface still to come.
    preface_left: usize,
    /// The header of the frame being read, and how much of it has come.
    header: [u8; HEADER_LEN],
    header_len: usize,
    /// The type of the frame whose payload is being read, and how much of it is left.
    kind: u8,
    payload_left: usize,
    /// A header block has begun and its END_HEADERS has not come.
    in_header_block: bool,
}

impl Default for FrameTracker {
    fn default() -> FrameTracker {
        FrameTracker {
            preface_left: PREFACE.len(),
            header: [0; HEADER_LEN],
            header_len: 0,
            kind: DATA,
            payload_left: 0,
            in_header_block: false,
        }
    }
}

impl FrameTracker {
    /// Follows `bytes`, the next ones the client sent.
    pub(crate) fn read(&mut self, mut bytes: &[u8]) {
        let skip = self.preface_left.min(bytes.len());
        self.preface_left -= skip;
        bytes = &bytes[skip..];
        while !bytes.is_empty() {
            if self.payload_left > 0 {
                let skip = self.payload_left.min(bytes.len());
                self.payload_left -= skip;
                bytes = &bytes[skip..];
                continue;
            }
            let take = (HEADER_LEN - self.header_len).min(bytes.len());
            self.header[self.header_len..self.header_len + take].copy_from_slice(&bytes[..take]);
            self.header_len += take;
            bytes = &bytes[take..];
            if self.header_len == HEADER_LEN {
                self.header_len = 0;
                let [l0, l1, l2, kind, flags, ..] = self.header;
                self.kind = kind;
                self.payload_left = u32::from_be_bytes([0, l0, l1, l2]) as usize;
                match kind {
                    HEADERS | PUSH_PROMISE | CONTINUATION => {
                        self.in_header_block = flags & END_HEADERS == 0;
                    }
                    _ => {}
                }
            }
        }
    }

    /// Whether the preface, a frame other than DATA, or a header block is part-way. A DATA
    /// frame part-way is a stream's body, which the body timeout holds.
    pub(crate) fn head_part_way(&self) -> bool {
        self.preface_left > 0
            || self.header_len > 0
            || (self.payload_left > 0 && self.kind != DATA)
            || self.in_header_block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, flags: u8, payload: &[u8]) -> Vec<u8> {
        let mut frame = (payload.len() as u32).to_be_bytes()[1..].to_vec();
        frame.extend([kind, flags, 0, 0, 0, 1]);
        frame.extend(payload);
        frame
    }

    /// (what, the bytes, whether a head is part-way after them, fed whole and byte by byte)
    #[test]
    fn part_way_heads_are_told_from_whole_frames_and_bodies() {
        let settings = frame(0x4, 0, &[]);
        let window_update = frame(0x8, 0, &[0, 0, 0x40, 0]);
        let cases: Vec<(&str, Vec<u8>, bool)> = vec![
            ("nothing yet", vec![], true),
            ("half the preface", PREFACE[..10].to_vec(), true),
            ("the preface", PREFACE.to_vec(), false),
            (
                "the preface and SETTINGS",
                [&PREFACE[..], &settings].concat(),
                false,
            ),
            (
                "half a frame header",
                [&PREFACE[..], &settings[..4]].concat(),
                true,
            ),
            (
                "a WINDOW_UPDATE cut short",
                [&PREFACE[..], &window_update[..11]].concat(),
                true,
            ),
            (
                "WINDOW_UPDATEs",
                [&PREFACE[..], &window_update, &window_update].concat(),
                false,
            ),
            (
                "HEADERS without END_HEADERS",
                [&PREFACE[..], &frame(HEADERS, 0, &[0x83])].concat(),
                true,
            ),
            (
                "HEADERS and a CONTINUATION that ends them",
                [
                    &PREFACE[..],
                    &frame(HEADERS, 0, &[0x83]),
                    &frame(CONTINUATION, END_HEADERS, &[0x84]),
                ]
                .concat(),
                false,
            ),
            (
                "a DATA frame part-way (a body)",
                [
                    &PREFACE[..],
                    &frame(HEADERS, END_HEADERS, &[0x83]),
                    &frame(DATA, 0, &[1; 100])[..50],
                ]
                .concat(),
                false,
            ),
            (
                "DATA then a PING cut short",
                [
                    &PREFACE[..],
                    &frame(DATA, 0, &[1; 100]),
                    &frame(0x6, 0, &[0; 8])[..12],
                ]
                .concat(),
                true,
            ),
        ];
        for (what, bytes, part_way) in cases {
            let mut whole = FrameTracker::default();
            whole.read(&bytes);
            assert_eq!(whole.head_part_way(), part_way, "{what}, whole");
            let mut drip = FrameTracker::default();
            for byte in &bytes {
                drip.read(std::slice::from_ref(byte));
            }
            assert_eq!(drip.head_part_way(), part_way, "{what}, byte by byte");
        }
    }
}
