//! Character data on the fast path: one scan that finds the text's end and classifies its
//! bytes, and the predefined entities and character references resolved off it.

use std::borrow::Cow;

use super::UNSUPPORTED;
use crate::block::Block;
use crate::lexer::{LexError, is_xml_char};

pub(super) const PLAIN: u8 = 0;
pub(super) const AMPERSAND: u8 = 1;
const GIVE_UP: u8 = 2;

/// How the text scanner treats each byte.
static TEXT_CLASS: [u8; 256] = {
    let mut table = [PLAIN; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = GIVE_UP;
        byte += 1;
    }
    table[b'\t' as usize] = PLAIN;
    table[b'\n' as usize] = PLAIN;
    table[b'&' as usize] = AMPERSAND;
    table[b']' as usize] = GIVE_UP;
    table[0xEF] = GIVE_UP;
    table
};

/// Finds the `<` that ends the text starting at `from`, in one pass that also classifies the
/// text's bytes (the `|` of their [`TEXT_CLASS`]); `None` if the input ends first.
#[inline(always)]
pub(super) fn scan_text(bytes: &[u8], from: usize) -> Option<(usize, u8)> {
    let mut at = from;
    let mut class = PLAIN;
    loop {
        let byte = *bytes.get(at)?;
        if byte == b'<' {
            return Some((at, class));
        }
        class |= TEXT_CLASS[usize::from(byte)];
        at += 1;
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` that is zero: exact for the lowest such byte (a byte
/// above a zero byte may be flagged too, through the borrow), which is all the callers use.
#[inline(always)]
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGH
}

/// The high bit of each byte of `word` that equals `byte` (exact for the lowest, as above).
#[inline(always)]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    zero_bytes(word ^ (ONES * u64::from(byte)))
}

/// The eight bytes at `at`, little-endian, if there are eight.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(*bytes.get(at..)?.first_chunk::<8>()?))
}

/// The mask of the bytes below the lowest flagged one in `flags` (all bytes when none is).
#[inline(always)]
fn below_lowest(flags: u64) -> u64 {
    if flags == 0 {
        u64::MAX
    } else {
        ((flags & flags.wrapping_neg()) >> 7).wrapping_sub(1)
    }
}

/// [`scan_text`], sixteen bytes at a time (see [`Block`]) while the text is plain printable
/// ASCII, then eight at a time near the input's end; a block with anything else in the text
/// (`&`, `]`, a control character, a byte past ASCII) goes to the byte loop, which classifies it
/// exactly. Measured with callgrind on EchoStruct-100 (texts like "wstest 17"), eight bytes at a
/// time cost 54 instructions a text, sixteen about 25.
#[inline(always)]
pub(super) fn scan_text_blocks(bytes: &[u8], from: usize) -> Option<(usize, u8)> {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..).and_then(|rest| rest.first_chunk::<16>()) {
        let block = Block::load(chunk);
        let lt = block.eq(b'<').mask();
        let special = (block.eq(b'&') | block.eq(b']') | block.below_or_high(0x20)).mask();
        // The bytes below the first `<`, all of them when there is none.
        let before_lt = lt.wrapping_sub(1) & !lt;
        if special & before_lt != 0 {
            return scan_text(bytes, at);
        }
        if lt != 0 {
            return Some((at + lt.trailing_zeros() as usize, PLAIN));
        }
        at += 16;
    }
    scan_text_words(bytes, at)
}

/// [`scan_text`], eight bytes at a time while the text is plain printable ASCII; a word with
/// anything else in the text (`&`, `]`, a control character, a byte past ASCII) goes to the
/// byte loop, which classifies it exactly.
#[inline(always)]
fn scan_text_words(bytes: &[u8], from: usize) -> Option<(usize, u8)> {
    let mut at = from;
    while let Some(word) = word_at(bytes, at) {
        let lt = bytes_equal(word, b'<');
        let special = bytes_equal(word, b'&')
            | bytes_equal(word, b']')
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGH)
            | (word & HIGH);
        if special & below_lowest(lt) != 0 {
            return scan_text(bytes, at);
        }
        if lt != 0 {
            return Some((at + (lt.trailing_zeros() / 8) as usize, PLAIN));
        }
        at += 8;
    }
    scan_text(bytes, at)
}

/// Checks character data and resolves its references: borrowed when there are none.
/// Gives up on what needs quick-xml: carriage returns (end-of-line normalisation), `]`
/// (`]]>` may not stand in text), control characters, and U+FFFE/U+FFFF (behind 0xEF).
#[inline(always)]
pub(super) fn unescape(raw: &str) -> Result<Cow<'_, str>, LexError> {
    let mut class = PLAIN;
    for &byte in raw.as_bytes() {
        class |= TEXT_CLASS[usize::from(byte)];
    }
    match class {
        PLAIN => Ok(Cow::Borrowed(raw)),
        AMPERSAND => resolve_references(raw),
        _ => Err(UNSUPPORTED),
    }
}

#[cold]
#[inline(never)]
pub(super) fn resolve_references(raw: &str) -> Result<Cow<'_, str>, LexError> {
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        text.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after.find(';').ok_or(UNSUPPORTED)?;
        text.push(resolve_reference(&after[..semi]).ok_or(UNSUPPORTED)?);
        rest = &after[semi + 1..];
    }
    text.push_str(rest);
    Ok(Cow::Owned(text))
}

/// Resolves the text between `&` and `;`.
fn resolve_reference(name: &str) -> Option<char> {
    let ch = match name {
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "quot" => '"',
        "apos" => '\'',
        _ => {
            let code = if let Some(hex) = name.strip_prefix("#x") {
                u32::from_str_radix(hex, 16).ok()?
            } else {
                name.strip_prefix('#')?.parse().ok()?
            };
            char::from_u32(code)?
        }
    };
    is_xml_char(ch).then_some(ch)
}
