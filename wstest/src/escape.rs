//! Text as XML writes it: the one escaping of every text our encoder, faults and the WSDL
//! write. A leaf: it uses no other module.

/// Appends `text` with the characters that XML text cannot hold literally escaped.
///
/// `\r` is written as a character reference, because a parser would otherwise fold `\r\n` into
/// `\n` and the echo would not be exact.
pub(crate) fn write_text(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    let mut copied = 0;
    for (idx, &byte) in bytes.iter().enumerate() {
        let escaped: &[u8] = match byte {
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'&' => b"&amp;",
            b'\r' => b"&#13;",
            _ => continue,
        };
        out.extend_from_slice(&bytes[copied..idx]);
        out.extend_from_slice(escaped);
        copied = idx + 1;
    }
    out.extend_from_slice(&bytes[copied..]);
}
