//! Reading XML's bytes where a check needs them, without a parser: where a tag or a comment
//! ends, an attribute's value, text with its references replaced. What they do not check
//! (names' characters, a second root) a check does not need.

use memchr::{memchr, memchr3, memmem};

/// How far a plain loop looks before [`find`] and [`tag_end`] hand the search to `memchr`.
const NEAR: usize = 24;

/// The first `byte` in `hay`. An answer's tags and texts are mostly a few bytes apart, where a
/// loop beats `memchr`'s call and set-up: a check reading all of EchoStruct-20's answer took
/// 7.4 µs of user CPU a request with `memchr` alone (perf: most of it in its entry), 3.3 µs
/// with this (2026-12-07; eight bytes a step by SWAR measured the same, so the plain loop
/// stays). Long texts still go to `memchr`.
#[inline]
pub(crate) fn find(hay: &[u8], byte: u8) -> Option<usize> {
    let near = hay.len().min(NEAR);
    if let Some(i) = hay[..near].iter().position(|&b| b == byte) {
        return Some(i);
    }
    memchr(byte, &hay[near..]).map(|i| i + near)
}

/// Where a start tag ends: the index of its `>` in `rest`, past quoted attribute values.
pub(crate) fn tag_end(rest: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let near = rest.len().min(at + NEAR);
        let i = match rest[at..near]
            .iter()
            .position(|&b| matches!(b, b'>' | b'"' | b'\''))
        {
            Some(i) => at + i,
            None => near + memchr3(b'>', b'"', b'\'', &rest[near..])?,
        };
        match rest[i] {
            b'>' => return Some(i),
            quote => at = i + 1 + find(&rest[i + 1..], quote)? + 1,
        }
    }
}

/// A start tag's name length and the index of its `>`, in `rest` (after the `<`).
pub(crate) fn start_tag(rest: &[u8]) -> Option<(usize, usize)> {
    let name_len = rest
        .iter()
        .position(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'/' | b'>'))
        .unwrap_or(rest.len());
    if name_len == 0 {
        return None;
    }
    Some((name_len, tag_end(rest, name_len)?))
}

/// Past the rest of an element whose start tag ended just before `from`, following only the
/// nesting (`budget` levels at most): the index after its end tag, which must close `name`.
pub(crate) fn skip_element(body: &[u8], from: usize, name: &[u8], budget: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = from;
    loop {
        let lt = at + find(&body[at..], b'<')?;
        match body.get(lt + 1)? {
            b'/' => {
                let gt = lt + find(&body[lt..], b'>')?;
                if depth == 0 {
                    return (body[lt + 2..gt].trim_ascii_end() == name).then_some(gt + 1);
                }
                depth -= 1;
                at = gt + 1;
            }
            b'!' | b'?' => at = skip_markup(body, lt)?,
            _ => {
                // Read as the walk reads a start tag, so that both end it at the same `>`.
                let (_, gt) = start_tag(&body[lt + 1..])?;
                let gt = lt + 1 + gt;
                if body[gt - 1] != b'/' {
                    depth += 1;
                    if depth > budget {
                        return None;
                    }
                }
                at = gt + 1;
            }
        }
    }
}

/// Past a comment, CDATA section, processing instruction or declaration starting at
/// `lt`: the index after its end.
pub(crate) fn skip_markup(body: &[u8], lt: usize) -> Option<usize> {
    let rest = &body[lt..];
    let (close, from): (&[u8], usize) = if rest.starts_with(b"<!--") {
        (b"-->", 4)
    } else if rest.starts_with(b"<![CDATA[") {
        (b"]]>", 9)
    } else if rest.starts_with(b"<?") {
        (b"?>", 2)
    } else {
        // A declaration (DOCTYPE): to its `>`, past an internal subset in brackets.
        let bracket = memchr(b'[', rest);
        let gt = memchr(b'>', rest)?;
        return match bracket {
            Some(open) if open < gt => {
                let close = open + memmem::find(&rest[open..], b"]")?;
                Some(lt + close + memchr(b'>', &rest[close..])? + 1)
            }
            _ => Some(lt + gt + 1),
        };
    };
    memmem::find(&rest[from..], close).map(|i| lt + from + i + close.len())
}

pub(crate) fn local_name(qname: &[u8]) -> &[u8] {
    memchr(b':', qname).map_or(qname, |colon| &qname[colon + 1..])
}

/// The value of attribute `name` (by local name; namespace declarations are not attributes)
/// among a start tag's attributes.
pub(crate) fn attribute(mut attributes: &[u8], name: &[u8]) -> Option<Vec<u8>> {
    loop {
        let start = attributes
            .iter()
            .position(|b| !b.is_ascii_whitespace() && *b != b'/')?;
        attributes = &attributes[start..];
        let eq = memchr(b'=', attributes)?;
        let qname = attributes[..eq].trim_ascii_end();
        let after = &attributes[eq + 1..];
        let quote_at = after.iter().position(|b| !b.is_ascii_whitespace())?;
        let quote = after[quote_at];
        if quote != b'"' && quote != b'\'' {
            return None;
        }
        let value_start = quote_at + 1;
        let value_len = memchr(quote, &after[value_start..])?;
        let value = &after[value_start..value_start + value_len];
        let is_namespace = qname == b"xmlns" || qname.starts_with(b"xmlns:");
        if !is_namespace && local_name(qname) == name {
            let mut out = Vec::with_capacity(value.len());
            unescape_into(value, &mut out);
            return Some(out);
        }
        attributes = &after[value_start + value_len + 1..];
    }
}

/// Appends `raw` with XML's five entities and character references replaced; an unknown
/// reference is kept as written.
pub(crate) fn unescape_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut at = 0;
    while let Some(amp) = memchr(b'&', &raw[at..]).map(|i| at + i) {
        out.extend_from_slice(&raw[at..amp]);
        let Some(semi) = memchr(b';', &raw[amp..]).map(|i| amp + i) else {
            // A bare `&` with no `;` after it: the rest as written.
            at = amp;
            break;
        };
        let entity = &raw[amp + 1..semi];
        let replaced: Option<char> = match entity {
            b"lt" => Some('<'),
            b"gt" => Some('>'),
            b"amp" => Some('&'),
            b"quot" => Some('"'),
            b"apos" => Some('\''),
            [b'#', b'x', hex @ ..] => std::str::from_utf8(hex)
                .ok()
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .and_then(char::from_u32),
            [b'#', decimal @ ..] => std::str::from_utf8(decimal)
                .ok()
                .and_then(|decimal| decimal.parse().ok())
                .and_then(char::from_u32),
            _ => None,
        };
        match replaced {
            Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            None => out.extend_from_slice(&raw[amp..=semi]),
        }
        at = semi + 1;
    }
    out.extend_from_slice(&raw[at..]);
}
