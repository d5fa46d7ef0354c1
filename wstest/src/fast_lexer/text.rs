//! Character data on the fast path: one scan that finds the text's end and classifies its
//! bytes, and the predefined entities and character references resolved off it.

use std::borrow::Cow;

use super::UNSUPPORTED;
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
