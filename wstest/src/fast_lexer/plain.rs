//! The shortcuts for a TestStruct as nearly every client sends it, `<i>…</i><f>…</f><s>…</s>`
//! with or without its `<l>…</l>`: read in one pass over the bytes, with no token and no trip
//! through the stack of open elements. Anything else is left for the tokens.

use super::same_bytes;
use super::text::{PLAIN, scan_text_blocks};
use crate::lexer::PlainFields;
use crate::xsd::{scan_float, scan_int};

/// Where the tag `<prefix:name>` (`</prefix:name>` when `closing`; no prefix when it is empty)
/// that starts at `at` ends, or `None` if something else starts there.
#[inline(always)]
pub(super) fn tag_end(
    bytes: &[u8],
    at: usize,
    prefix: &[u8],
    name: &[u8],
    closing: bool,
) -> Option<usize> {
    let open = 1 + usize::from(closing);
    let qualified = if prefix.is_empty() {
        name.len()
    } else {
        prefix.len() + 1 + name.len()
    };
    let tag = bytes.get(at..at + open + qualified + 1)?;
    let (markup, rest) = tag.split_at(open);
    let (qname, close) = rest.split_at(qualified);
    let name_matches = if prefix.is_empty() {
        same_bytes(qname, name)
    } else {
        let (bound, local) = qname.split_at(prefix.len());
        same_bytes(bound, prefix) && local[0] == b':' && same_bytes(&local[1..], name)
    };
    let markup_matches = markup[0] == b'<' && (!closing || markup[1] == b'/');
    (markup_matches && name_matches && close[0] == b'>').then_some(at + tag.len())
}

/// Where the tag `<Next>` (`</Next>` when `closing`), with `prefix`, that starts at `at` ends:
/// in the default namespace compared as a fixed array, which on EchoList-100 costs about 65
/// instructions a node less than [`tag_end`] (callgrind, both tags).
#[inline(always)]
pub(super) fn next_tag_end(bytes: &[u8], at: usize, prefix: &[u8], closing: bool) -> Option<usize> {
    match (prefix.is_empty(), closing) {
        (true, false) => expect(bytes, at, b"<Next>"),
        (true, true) => expect(bytes, at, b"</Next>"),
        (false, _) => tag_end(bytes, at, prefix, b"Next", closing),
    }
}

/// `<i>…</i><f>…</f><s>…</s>` at `at`, WSTest elements with `prefix` and no attributes (and,
/// with `wrapper`, inside `<wrapper>…</wrapper>`), `i` and `f` canonical numbers (see
/// [`scan_int`], [`scan_float`]) and `s` plain text (no reference, nothing the fast lexer gives
/// up on): the fields and where the last end tag ends.
#[inline(always)]
pub(super) fn fields<'i>(
    xml: &'i str,
    at: usize,
    prefix: &[u8],
    wrapper: Option<u8>,
) -> Option<(PlainFields<'i>, usize)> {
    let bytes = xml.as_bytes();
    match (prefix.is_empty(), wrapper) {
        (true, Some(wrapper)) => {
            let at = expect(bytes, at, &[b'<', wrapper, b'>'])?;
            let (fields, at) = unprefixed(xml, at)?;
            Some((fields, expect(bytes, at, &[b'<', b'/', wrapper, b'>'])?))
        }
        (true, None) => unprefixed(xml, at),
        (false, _) => {
            let wrapper = wrapper.map(|byte| [byte]);
            let mut at = at;
            if let Some(name) = &wrapper {
                at = tag_end(bytes, at, prefix, name, false)?;
            }
            let (i, i_end) = scan_int(bytes, tag_end(bytes, at, prefix, b"i", false)?)?;
            let at = tag_end(bytes, i_end, prefix, b"i", true)?;
            let (f, f_end) = scan_float(bytes, tag_end(bytes, at, prefix, b"f", false)?)?;
            let at = tag_end(bytes, f_end, prefix, b"f", true)?;
            let s_start = tag_end(bytes, at, prefix, b"s", false)?;
            let s_end = plain_text_end(bytes, s_start)?;
            let mut at = tag_end(bytes, s_end, prefix, b"s", true)?;
            if let Some(name) = &wrapper {
                at = tag_end(bytes, at, prefix, name, true)?;
            }
            let s = between(xml, s_start, s_end)?;
            Some((PlainFields { i, f, s }, at))
        }
    }
}

/// The fields in the default namespace, as nearly every client sends them: each run of markup
/// between two texts compared at once as a fixed array. Measured with callgrind on
/// EchoStruct-100, the general [`tag_end`] cost 13 instructions a tag.
#[inline(always)]
fn unprefixed(xml: &str, at: usize) -> Option<(PlainFields<'_>, usize)> {
    let bytes = xml.as_bytes();
    let (i, i_end) = scan_int(bytes, expect(bytes, at, b"<i>")?)?;
    let (f, f_end) = scan_float(bytes, expect(bytes, i_end, b"</i><f>")?)?;
    let s_start = expect(bytes, f_end, b"</f><s>")?;
    let s_end = plain_text_end(bytes, s_start)?;
    let end = expect(bytes, s_end, b"</s>")?;
    let s = between(xml, s_start, s_end)?;
    Some((PlainFields { i, f, s }, end))
}

/// Where the plain text at `at` ends (its `<`); `None` if it holds anything the fast lexer
/// does not read as it stands.
#[inline(always)]
fn plain_text_end(bytes: &[u8], at: usize) -> Option<usize> {
    let (end, class) = scan_text_blocks(bytes, at)?;
    (class == PLAIN).then_some(end)
}

/// `xml[start..end]`, a text between a `>` and a `<`, so on character boundaries: this never
/// refuses. Cut by `split_at_checked`, which inlines, where `str::get` was a call of 21
/// instructions an item (callgrind, EchoStruct-100).
#[inline(always)]
fn between(xml: &str, start: usize, end: usize) -> Option<&str> {
    let (head, _) = xml.split_at_checked(end)?;
    Some(head.split_at_checked(start)?.1)
}

/// Where `markup` ends if it stands at `at`.
#[inline(always)]
fn expect<const N: usize>(bytes: &[u8], at: usize, markup: &[u8; N]) -> Option<usize> {
    (bytes.get(at..)?.first_chunk::<N>()? == markup).then_some(at + N)
}
