//! A response head's pieces: the status line, a header's value, a decimal length.

use super::ParseError;

pub(super) fn parse_status_line(line: &[u8]) -> Result<(bool, u16), ParseError> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let rest = line
        .strip_prefix(b"HTTP/1.")
        .ok_or(ParseError::StatusLine)?;
    let http11 = rest.first() != Some(&b'0');
    match rest.get(1..6) {
        Some([b' ', a, b, c, ..]) if [a, b, c].iter().all(|digit| digit.is_ascii_digit()) => {
            let status = u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0');
            Ok((http11, status))
        }
        // "HTTP/1.1 200" with nothing after the code is allowed too.
        _ => match rest.get(1..5) {
            Some([b' ', a, b, c]) if [a, b, c].iter().all(|digit| digit.is_ascii_digit()) => Ok((
                http11,
                u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0'),
            )),
            _ => Err(ParseError::StatusLine),
        },
    }
}

/// The trimmed value of header line `line` (without its `\n`) if the header is `name`
/// (lowercase), in any case.
pub(super) fn header_value<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    (line.get(name.len()) == Some(&b':') && line[..name.len()].eq_ignore_ascii_case(name))
        .then(|| line[name.len() + 1..].trim_ascii())
}

pub(super) fn parse_decimal(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > 19 {
        return None;
    }
    bytes.iter().try_fold(0u64, |value, &byte| {
        byte.is_ascii_digit()
            .then(|| value * 10 + u64::from(byte - b'0'))
    })
}
