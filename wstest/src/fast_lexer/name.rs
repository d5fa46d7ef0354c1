//! The names of elements and attributes: where one ends and where its `:` is, sixteen bytes at
//! a time where it fits in them.

use crate::block::Block;

/// Bytes allowed in the names this lexer reads: ASCII letters, digits, `_`, `-`, `.` and `:`.
static NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.' || b == b':';
        byte += 1;
    }
    table
};

/// Whether `byte` may end a name: white space, `=`, `/` or `>`.
fn ends_name(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'=' | b'/' | b'>')
}

/// Scans the name at the start of `bytes`, which ends at white space, `=`, `/` or `>`.
///
/// Returns its length and where its `:` is, or `None` if it is not a name this lexer reads:
/// ASCII letters, digits, `_`, `-` and `.`, a letter or `_` first, and at most one `:` with a
/// name on each side. A name shorter than sixteen bytes (every one of a WSTest message but
/// the operations' longest) is classified as one block: on EchoVoid, a byte at a time cost
/// 11 instructions a byte of its names (callgrind, the server).
#[inline]
pub(super) fn scan_name(bytes: &[u8]) -> Option<(usize, Option<usize>)> {
    let (len, colon) = match bytes.first_chunk::<16>().and_then(scan_block) {
        Some(scanned) => scanned?,
        None => scan_bytes(bytes)?,
    };
    let starts_name = |at: usize| {
        bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
    };
    let ok = match colon {
        None => starts_name(0),
        Some(at) => starts_name(0) && starts_name(at + 1),
    };
    ok.then_some((len, colon))
}

/// [`scan_name`]'s length and colon (`Some(None)` for no name) for a name that ends inside
/// `chunk`; `None` for a longer one, which the byte loop reads.
#[inline(always)]
fn scan_block(chunk: &[u8; 16]) -> Option<Option<(usize, Option<usize>)>> {
    let block = Block::load(chunk);
    // `byte | 0x20` is a lower-case letter just when `byte` is a letter.
    let letters = !block.with_bits(0x20).outside(b'a', b'z').mask();
    // `-`, `.`, the digits and `:` are 0x2D to 0x3A, but for `/`.
    let marks = !block.outside(b'-', b':').mask() & !block.eq(b'/').mask();
    let name = (letters | marks | block.eq(b'_').mask()) & 0xFFFF;
    let len = (!name).trailing_zeros() as usize;
    if len == 16 {
        return None;
    }
    if !ends_name(chunk[len]) {
        return Some(None);
    }
    let colons = block.eq(b':').mask() & ((1 << len) - 1);
    Some(match colons.count_ones() {
        0 => Some((len, None)),
        1 => Some((len, Some(colons.trailing_zeros() as usize))),
        _ => None,
    })
}

/// [`scan_name`]'s length and colon, a byte at a time.
fn scan_bytes(bytes: &[u8]) -> Option<(usize, Option<usize>)> {
    let mut colon = None;
    let mut len = 0;
    while let Some(&byte) = bytes.get(len) {
        if !NAME_BYTE[usize::from(byte)] {
            if ends_name(byte) {
                break;
            }
            return None;
        }
        if byte == b':' {
            if colon.is_some() {
                return None;
            }
            colon = Some(len);
        }
        len += 1;
    }
    Some((len, colon))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`scan_name`] says what the byte loop alone says, for every start of texts made of name
    /// bytes, the bytes that end a name and bytes that may not stand in one, names shorter and
    /// longer than a block, with the input ending anywhere.
    #[test]
    fn blocks_read_names_as_the_byte_loop_does() {
        const OTHERS: &[u8] = b"_-.:/09 =>\t\n<\"\x7f\xc3\x80@[`{";
        let by_bytes = |bytes: &[u8]| {
            let (len, colon) = scan_bytes(bytes)?;
            let starts_name = |at: usize| {
                bytes
                    .get(at)
                    .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            };
            let ok = starts_name(0) && colon.is_none_or(|at| starts_name(at + 1));
            ok.then_some((len, colon))
        };
        let mut rng = testkit::Rng(0x2F69_3E9B_A2B4_C8D1);
        for _ in 0..100_000 {
            let len = rng.below(40);
            let text: Vec<u8> = (0..len)
                .map(|_| match rng.below(4) {
                    0 => rng.pick(OTHERS),
                    _ => rng.pick(b"abcXYZ"),
                })
                .collect();
            for at in 0..=len {
                let rest = &text[at..];
                let text = String::from_utf8_lossy(rest);
                assert_eq!(scan_name(rest), by_bytes(rest), "{text:?}");
            }
        }
    }
}
