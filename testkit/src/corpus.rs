//! The hostile-input corpus's files (`server/tests/hostile/`): the manifest, and the bytes each
//! case sends. Shared by the server's tests and by `server/examples/send_corpus.rs`
//! (`cargo xtask check-soak`'s hostile tenth): the files, and how an HTTP/2 answer is read.
//!
//! A case file holds the bytes sent, written for people:
//! - the head's lines (up to the first empty line) end in CRLF on the wire;
//! - one newline at the end of the file is not sent;
//! - `{{"text"}}` sends text with the escapes \r \n \t \" \\ \xHH, `{{N * "text"}}` sends it N
//!   times, and `{{length}}` in a head is the length of the body that follows it;
//! - a line `{{next}}` starts another request sent on the same connection (pipelining).

use std::path::Path;

/// One case of the manifest.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The file, relative to the corpus folder.
    pub file: String,
    /// Its answers as the manifest writes them (`500/Client`, `200,200`, `close`, ...).
    pub answers: String,
    /// What it sends.
    pub bytes: Vec<u8>,
}

/// Reads `dir/manifest` (lines of FILE ANSWERS WHY...; `#` starts a comment) and every file it
/// names.
pub fn read(dir: &Path) -> Result<Vec<Entry>, String> {
    let manifest = std::fs::read_to_string(dir.join("manifest"))
        .map_err(|error| format!("{}: {error}", dir.join("manifest").display()))?;
    let mut entries = Vec::new();
    for (n, line) in manifest.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let (Some(file), Some(answers)) = (fields.next(), fields.next()) else {
            return Err(format!(
                "manifest line {}: want FILE ANSWERS [WHY...]: {line}",
                n + 1
            ));
        };
        let text = std::fs::read(dir.join(file)).map_err(|error| format!("{file}: {error}"))?;
        entries.push(Entry {
            file: file.to_owned(),
            answers: answers.to_owned(),
            bytes: expand(&text).map_err(|error| format!("{file}: {error}"))?,
        });
    }
    Ok(entries)
}

/// The HTTP/2 error codes a corpus answer may name (`h2/COMPRESSION_ERROR`; RFC 9113, 7).
pub const H2_ERRORS: [(&str, u32); 4] = [
    ("PROTOCOL_ERROR", 0x1),
    ("FRAME_SIZE_ERROR", 0x6),
    ("COMPRESSION_ERROR", 0x9),
    ("ENHANCE_YOUR_CALM", 0xb),
];

/// The code of an answer `h2/NAME`'s NAME, if it is one of [`H2_ERRORS`].
pub fn h2_error_code(name: &str) -> Option<u32> {
    H2_ERRORS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, code)| *code)
}

/// The error codes of the GOAWAY frames in `bytes`, a server's side of an HTTP/2 connection.
pub fn goaway_codes(mut bytes: &[u8]) -> Vec<u32> {
    let mut codes = Vec::new();
    while bytes.len() >= 9 {
        let len = u32::from_be_bytes([0, bytes[0], bytes[1], bytes[2]]) as usize;
        let Some(payload) = bytes.get(9..9 + len) else {
            break;
        };
        if bytes[3] == 0x7 && len >= 8 {
            codes.push(u32::from_be_bytes([
                payload[4], payload[5], payload[6], payload[7],
            ]));
        }
        bytes = &bytes[9 + len..];
    }
    codes
}

/// Turns a case file into the bytes sent.
pub fn expand(text: &[u8]) -> Result<Vec<u8>, String> {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    let mut out = Vec::new();
    for request in split_on(text, b"\n{{next}}\n") {
        let (head, body) = match find(request, b"\n\n") {
            Some(at) => (&request[..at], Some(&request[at + 2..])),
            None => (request, None),
        };
        let body = expand_macros(body.unwrap_or_default(), None)?;
        // The file's newlines end head lines; a `{{"\n"}}` inside a line stays a bare LF.
        let lines = head
            .split(|&b| b == b'\n')
            .map(|line| expand_macros(line, Some(body.len())))
            .collect::<Result<Vec<_>, _>>()?;
        let head = lines.join(&b"\r\n"[..]);
        out.extend_from_slice(&head);
        if !body.is_empty() || find(request, b"\n\n").is_some() {
            out.extend_from_slice(b"\r\n\r\n");
        }
        out.extend_from_slice(&body);
    }
    Ok(out)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn split_on<'a>(mut text: &'a [u8], separator: &[u8]) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    while let Some(at) = find(text, separator) {
        parts.push(&text[..at]);
        text = &text[at + separator.len()..];
    }
    parts.push(text);
    parts
}

/// Expands the `{{...}}` in `text`; `body_length` is what `{{length}}` stands for.
fn expand_macros(text: &[u8], body_length: Option<usize>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = find(rest, b"{{") {
        out.extend_from_slice(&rest[..open]);
        let close = find(&rest[open..], b"}}").ok_or("an unclosed {{")? + open;
        let inner = std::str::from_utf8(&rest[open + 2..close]).map_err(|e| e.to_string())?;
        match inner.trim() {
            "length" => {
                let length = body_length.ok_or("{{length}} outside a head")?;
                out.extend_from_slice(length.to_string().as_bytes());
            }
            inner => {
                let (count, quoted) = match inner.split_once('*') {
                    Some((count, quoted)) => (
                        count
                            .trim()
                            .parse::<usize>()
                            .map_err(|e| format!("{count:?}: {e}"))?,
                        quoted.trim(),
                    ),
                    None => (1, inner),
                };
                let literal = unescape(quoted)?;
                for _ in 0..count {
                    out.extend_from_slice(&literal);
                }
            }
        }
        rest = &rest[close + 2..];
    }
    out.extend_from_slice(rest);
    Ok(out)
}

fn unescape(quoted: &str) -> Result<Vec<u8>, String> {
    let inner = quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .ok_or_else(|| format!("{quoted:?} is not a quoted string"))?;
    let mut out = Vec::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match chars.next() {
            Some('r') => out.push(b'\r'),
            Some('n') => out.push(b'\n'),
            Some('t') => out.push(b'\t'),
            Some('"') => out.push(b'"'),
            Some('\\') => out.push(b'\\'),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(u8::from_str_radix(&hex, 16).map_err(|e| format!("\\x{hex}: {e}"))?);
            }
            other => return Err(format!("unknown escape \\{other:?}")),
        }
    }
    Ok(out)
}
