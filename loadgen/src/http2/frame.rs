//! HTTP/2's framing constants (RFC 9113, 4 and 6): the preface, frame types and flags, the
//! protocol's limits, and its error codes.

/// The client connection preface (RFC 9113, 3.4).
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Our SETTINGS_MAX_FRAME_SIZE: the protocol's default and smallest.
pub const MAX_FRAME: usize = 16_384;

pub(super) const FRAME_HEAD: usize = 9;
pub(super) const DEFAULT_WINDOW: i64 = 65_535;
pub(super) const MAX_WINDOW: i64 = (1 << 31) - 1;
pub(super) const MAX_STREAM_ID: u32 = (1 << 31) - 1;

pub(super) const DATA: u8 = 0x0;
pub(super) const HEADERS: u8 = 0x1;
pub(super) const PRIORITY: u8 = 0x2;
pub(super) const RST_STREAM: u8 = 0x3;
pub(super) const SETTINGS: u8 = 0x4;
pub(super) const PUSH_PROMISE: u8 = 0x5;
pub(super) const PING: u8 = 0x6;
pub(super) const GOAWAY: u8 = 0x7;
pub(super) const WINDOW_UPDATE: u8 = 0x8;
pub(super) const CONTINUATION: u8 = 0x9;

pub(super) const END_STREAM: u8 = 0x1;
pub(super) const ACK: u8 = 0x1;
pub(super) const END_HEADERS: u8 = 0x4;
pub(super) const PADDED: u8 = 0x8;
pub(super) const PRIORITY_FLAG: u8 = 0x20;

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
