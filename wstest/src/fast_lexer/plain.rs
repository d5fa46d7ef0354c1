//! The shortcuts for a TestStruct as nearly every client sends it, `<i>…</i><f>…</f><s>…</s>`
//! with or without its `<l>…</l>`: read in one pass over the bytes, with no token and no trip
//! through the stack of open elements. Anything else is left for the tokens.

use super::same_bytes;
use super::text::{PLAIN, find_text_end, scan_text_words};
use crate::lexer::PlainFields;

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

/// `<i>…</i><f>…</f><s>…</s>` at `at`, WSTest elements with `prefix` and no attributes (and,
/// with `wrapper`, inside `<wrapper>…</wrapper>`): the three texts and where the last end tag
/// ends. The text of `s` is plain (no reference, nothing the fast lexer gives up on); those of
/// `i` and `f` are raw, for the number parsers, which read nothing but digits, signs, points
/// and white space: a text they read is plain, and one they refuse must be checked
/// ([`super::text::is_plain`]) before it is called a bad value.
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
            let (texts, at) = unprefixed(xml, at)?;
            Some((texts, expect(bytes, at, &[b'<', b'/', wrapper, b'>'])?))
        }
        (true, None) => unprefixed(xml, at),
        (false, _) => {
            let wrapper = wrapper.map(|byte| [byte]);
            let at = match &wrapper {
                Some(name) => tag_end(bytes, at, prefix, name, false)?,
                None => at,
            };
            let (i, at) = field(xml, at, prefix, b"i", false)?;
            let (f, at) = field(xml, at, prefix, b"f", false)?;
            let (s, at) = field(xml, at, prefix, b"s", true)?;
            let (i, f) = (i.as_bytes(), f.as_bytes());
            let at = match &wrapper {
                Some(name) => tag_end(bytes, at, prefix, name, true)?,
                None => at,
            };
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
    let i_start = expect(bytes, at, b"<i>")?;
    let i_end = find_text_end(bytes, i_start)?;
    let f_start = expect(bytes, i_end, b"</i><f>")?;
    let f_end = find_text_end(bytes, f_start)?;
    let s_start = expect(bytes, f_end, b"</f><s>")?;
    let (s_end, class) = scan_text_words(bytes, s_start)?;
    if class != PLAIN {
        return None;
    }
    let end = expect(bytes, s_end, b"</s>")?;
    let fields = PlainFields {
        i: bytes.get(i_start..i_end)?,
        f: bytes.get(f_start..f_end)?,
        // Between a `>` and a `<`: always a boundary, so this never refuses.
        s: xml.get(s_start..s_end)?,
    };
    Some((fields, end))
}

/// Where `markup` ends if it stands at `at`.
#[inline(always)]
fn expect<const N: usize>(bytes: &[u8], at: usize, markup: &[u8; N]) -> Option<usize> {
    (bytes.get(at..)?.first_chunk::<N>()? == markup).then_some(at + N)
}

/// `<name>text</name>` at `at`: the text, checked plain when `checked`, and where it ends.
#[inline(always)]
fn field<'i>(
    xml: &'i str,
    at: usize,
    prefix: &[u8],
    name: &[u8],
    checked: bool,
) -> Option<(&'i str, usize)> {
    let bytes = xml.as_bytes();
    let start = tag_end(bytes, at, prefix, name, false)?;
    let lt = if checked {
        let (lt, class) = scan_text_words(bytes, start)?;
        if class != PLAIN {
            return None;
        }
        lt
    } else {
        find_text_end(bytes, start)?
    };
    let end = tag_end(bytes, lt, prefix, name, true)?;
    // Between a `>` and a `<`: always a boundary, so this never refuses.
    Some((xml.get(start..lt)?, end))
}
