//! Text as XML writes it: the one escaping of every text our encoder, faults and the WSDL
//! write. It uses no other modules but the leaves `block` and `sink`.

use crate::block::Block;
use crate::sink::Sink;

/// The bytes [`write_text`] escapes.
static NEEDS_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    table[b'<' as usize] = true;
    table[b'>' as usize] = true;
    table[b'&' as usize] = true;
    table[b'\r' as usize] = true;
    table
};

/// The most bytes [`write_text`] writes for each byte of its text (`\r` as `&#13;`).
pub(crate) const ESCAPED_MAX: usize = 5;

/// Puts `text` with the characters that XML text cannot hold literally escaped.
///
/// `\r` is written as a character reference, because a parser would otherwise fold `\r\n` into
/// `\n` and the echo would not be exact.
#[inline(always)]
pub(crate) fn write_text(out: &mut impl Sink, text: &str) {
    let bytes = text.as_bytes();
    // Nearly every text needs no escape: one pass that only looks, then one copy.
    if !needs_escape(bytes) {
        out.put_slice(bytes);
        return;
    }
    out.put_with(bytes.len() * ESCAPED_MAX, |room| escape_into(room, bytes));
}

/// Writes `bytes` escaped at the start of `out`, which has room for [`ESCAPED_MAX`] times as
/// many: how many bytes it wrote. Out of line, and on a slice rather than the sink, so that the
/// sink of the hot path stays in registers.
#[inline(never)]
fn escape_into(out: &mut [u8], bytes: &[u8]) -> usize {
    let mut at = 0;
    for &byte in bytes {
        let escaped: &[u8] = match byte {
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'&' => b"&amp;",
            b'\r' => b"&#13;",
            _ => std::slice::from_ref(&byte),
        };
        out[at..at + escaped.len()].copy_from_slice(escaped);
        at += escaped.len();
    }
    at
}

/// Whether `bytes` holds a byte [`write_text`] escapes: sixteen at a time, the last sixteen
/// overlapping those before. Measured with callgrind on EchoStruct-100's strings ("wstest 17"),
/// a look-up a byte cost 5 instructions a byte, eight bytes at a time in a `u64` about 50 for
/// the nine.
#[inline(always)]
fn needs_escape(bytes: &[u8]) -> bool {
    let len = bytes.len();
    let word = |at: usize| {
        bytes[at..]
            .first_chunk::<8>()
            .map_or(0, |word| u64::from_le_bytes(*word))
    };
    let half = |at: usize| {
        bytes[at..]
            .first_chunk::<4>()
            .map_or(0, |half| u32::from_le_bytes(*half))
    };
    match len {
        0..4 => bytes.iter().any(|&byte| NEEDS_ESCAPE[usize::from(byte)]),
        4..8 => {
            let both = u64::from(half(0)) | u64::from(half(len - 4)) << 32;
            block_needs_escape(both, both)
        }
        _ => {
            let mut at = 0;
            while at + 16 < len {
                if block_needs_escape(word(at), word(at + 8)) {
                    return true;
                }
                at += 16;
            }
            block_needs_escape(word(at.min(len - 8)), word(len - 8))
        }
    }
}

/// Whether a byte of the sixteen in `low` and `high` is `\r`, `&`, `<` or `>` (`(byte | 2) ==
/// '>'` catches both `<` and `>`).
#[inline(always)]
fn block_needs_escape(low: u64, high: u64) -> bool {
    let block = Block::from_words(low, high);
    (block.eq(b'\r') | block.eq(b'&') | block.with_bits(2).eq(b'>')).mask() != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte at every place of texts of 0 to 24 bytes: the word test says what the
    /// table says.
    #[test]
    fn needs_escape_is_the_table() {
        for len in 0..=24 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    let expected = NEEDS_ESCAPE[usize::from(byte)];
                    assert_eq!(
                        needs_escape(&text),
                        expected,
                        "{len} bytes, {byte:#x} at {at}"
                    );
                }
            }
        }
    }
}
