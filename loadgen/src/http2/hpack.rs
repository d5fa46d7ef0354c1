//! HPACK (RFC 7541): the decoder for the server's header blocks, and the one-time encoding of
//! the request's.
//!
//! The request's block uses no dynamic table (literals without indexing, or static-table
//! entries), so one block serves every request of every connection and costs a copy to send.
//! The decoder keeps the full dynamic table, since a server's encoder uses it.

use std::collections::VecDeque;

use super::huffman;

/// Our SETTINGS_HEADER_TABLE_SIZE: HPACK's default, which we never change.
pub const TABLE_SIZE: usize = 4096;
/// The largest header list we decode (names, values and 32 bytes each, as RFC 9113 counts).
pub const MAX_HEADER_LIST: usize = 64 * 1024;

/// RFC 7541, Appendix A.
const STATIC: [(&str, &str); 61] = [
    (":authority", ""),
    (":method", "GET"),
    (":method", "POST"),
    (":path", "/"),
    (":path", "/index.html"),
    (":scheme", "http"),
    (":scheme", "https"),
    (":status", "200"),
    (":status", "204"),
    (":status", "206"),
    (":status", "304"),
    (":status", "400"),
    (":status", "404"),
    (":status", "500"),
    ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"),
    ("accept-language", ""),
    ("accept-ranges", ""),
    ("accept", ""),
    ("access-control-allow-origin", ""),
    ("age", ""),
    ("allow", ""),
    ("authorization", ""),
    ("cache-control", ""),
    ("content-disposition", ""),
    ("content-encoding", ""),
    ("content-language", ""),
    ("content-length", ""),
    ("content-location", ""),
    ("content-range", ""),
    ("content-type", ""),
    ("cookie", ""),
    ("date", ""),
    ("etag", ""),
    ("expect", ""),
    ("expires", ""),
    ("from", ""),
    ("host", ""),
    ("if-match", ""),
    ("if-modified-since", ""),
    ("if-none-match", ""),
    ("if-range", ""),
    ("if-unmodified-since", ""),
    ("last-modified", ""),
    ("link", ""),
    ("location", ""),
    ("max-forwards", ""),
    ("proxy-authenticate", ""),
    ("proxy-authorization", ""),
    ("range", ""),
    ("referer", ""),
    ("refresh", ""),
    ("retry-after", ""),
    ("server", ""),
    ("set-cookie", ""),
    ("strict-transport-security", ""),
    ("transfer-encoding", ""),
    ("user-agent", ""),
    ("vary", ""),
    ("via", ""),
    ("www-authenticate", ""),
];

/// Why a header block does not decode (a connection error: COMPRESSION_ERROR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HpackError {
    #[error("a header block ends inside a field")]
    Truncated,
    #[error("an integer in a header block is too large")]
    Overflow,
    #[error("a header block names table entry {0}, which does not exist")]
    BadIndex(usize),
    #[error("a header block's Huffman string does not decode")]
    Huffman,
    #[error("a header block sets the table size to {0}, above the {TABLE_SIZE} allowed")]
    TableSize(usize),
    #[error("a table size update after the first field of a header block")]
    LateTableSize,
    #[error("a header list larger than {MAX_HEADER_LIST} bytes")]
    TooLarge,
}

/// A dynamic table entry: name and value.
type Entry = (Box<[u8]>, Box<[u8]>);

/// The server-to-us decoding context of one connection.
#[derive(Debug)]
pub struct Decoder {
    /// Newest first, as HPACK indexes it.
    table: VecDeque<Entry>,
    size: usize,
    max_size: usize,
    /// Decoded strings of the field in hand.
    name: Vec<u8>,
    value: Vec<u8>,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder {
            table: VecDeque::new(),
            size: 0,
            max_size: TABLE_SIZE,
            name: Vec::new(),
            value: Vec::new(),
        }
    }
}

/// Where a field's name or value is: a table entry, or the decoder's scratch string.
#[derive(Clone, Copy)]
enum Source {
    Table(usize),
    Scratch,
}

impl Decoder {
    /// Decodes one complete header block, calling `on_field` with each name and value in
    /// order. The table stays in step with the server's even when the caller ignores fields.
    pub fn decode(
        &mut self,
        mut block: &[u8],
        mut on_field: impl FnMut(&[u8], &[u8]),
    ) -> Result<(), HpackError> {
        let mut list_size = 0usize;
        let mut first = true;
        while let Some(&byte) = block.first() {
            if byte & 0x80 != 0 {
                let index = integer(&mut block, 7)?;
                let (name, value) = self.entry(index)?;
                list_size += name.len() + value.len() + 32;
                if list_size > MAX_HEADER_LIST {
                    return Err(HpackError::TooLarge);
                }
                on_field(name, value);
            } else if byte & 0xe0 == 0x20 {
                if !first {
                    return Err(HpackError::LateTableSize);
                }
                let size = integer(&mut block, 5)?;
                if size > TABLE_SIZE {
                    return Err(HpackError::TableSize(size));
                }
                self.max_size = size;
                self.evict(0);
                continue;
            } else {
                let (prefix, indexing) = if byte & 0xc0 == 0x40 {
                    (6, true)
                } else {
                    (4, false)
                };
                let index = integer(&mut block, prefix)?;
                let name = if index == 0 {
                    self.name.clear();
                    string(&mut block, &mut self.name)?;
                    Source::Scratch
                } else {
                    self.entry(index)?;
                    Source::Table(index)
                };
                self.value.clear();
                string(&mut block, &mut self.value)?;
                let name: &[u8] = match name {
                    Source::Table(index) => self.entry(index)?.0,
                    Source::Scratch => &self.name,
                };
                list_size += name.len() + self.value.len() + 32;
                if list_size > MAX_HEADER_LIST {
                    return Err(HpackError::TooLarge);
                }
                on_field(name, &self.value);
                if indexing {
                    let name: Box<[u8]> = name.into();
                    let value: Box<[u8]> = self.value.as_slice().into();
                    self.insert(name, value);
                }
            }
            first = false;
        }
        Ok(())
    }

    /// Entry `index` (1-based: the static table, then the dynamic one, newest first).
    fn entry(&self, index: usize) -> Result<(&[u8], &[u8]), HpackError> {
        match index {
            0 => Err(HpackError::BadIndex(0)),
            1..=61 => {
                let (name, value) = STATIC[index - 1];
                Ok((name.as_bytes(), value.as_bytes()))
            }
            _ => self
                .table
                .get(index - 62)
                .map(|(name, value)| (&name[..], &value[..]))
                .ok_or(HpackError::BadIndex(index)),
        }
    }

    fn insert(&mut self, name: Box<[u8]>, value: Box<[u8]>) {
        let size = name.len() + value.len() + 32;
        if size > self.max_size {
            // An entry larger than the table empties it (RFC 7541, 4.4).
            self.table.clear();
            self.size = 0;
            return;
        }
        self.evict(size);
        self.size += size;
        self.table.push_front((name, value));
    }

    /// Evicts the oldest entries until `room` more bytes fit.
    fn evict(&mut self, room: usize) {
        while self.size + room > self.max_size {
            let Some((name, value)) = self.table.pop_back() else {
                break;
            };
            self.size -= name.len() + value.len() + 32;
        }
    }
}

/// An HPACK integer with an `prefix`-bit prefix (RFC 7541, 5.1).
fn integer(block: &mut &[u8], prefix: u8) -> Result<usize, HpackError> {
    let (&first, rest) = block.split_first().ok_or(HpackError::Truncated)?;
    *block = rest;
    let max = (1usize << prefix) - 1;
    let mut value = usize::from(first) & max;
    if value < max {
        return Ok(value);
    }
    let mut shift = 0u32;
    loop {
        let (&byte, rest) = block.split_first().ok_or(HpackError::Truncated)?;
        *block = rest;
        // Four continuation bytes hold 28 bits: more than any size here needs.
        if shift > 21 {
            return Err(HpackError::Overflow);
        }
        value += usize::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
}

/// An HPACK string literal (RFC 7541, 5.2), appended to `out`.
fn string(block: &mut &[u8], out: &mut Vec<u8>) -> Result<(), HpackError> {
    let huffman = block.first().ok_or(HpackError::Truncated)? & 0x80 != 0;
    let len = integer(block, 7)?;
    if len > block.len() {
        return Err(HpackError::Truncated);
    }
    let (bytes, rest) = block.split_at(len);
    *block = rest;
    if huffman {
        huffman::decode(bytes, out).map_err(|_| HpackError::Huffman)
    } else {
        out.extend_from_slice(bytes);
        Ok(())
    }
}

/// A request's header block, encoded once, in the three forms a connection sends it in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Blocks {
    /// The connection's first request: each field a static entry where one matches whole,
    /// else a literal with incremental indexing (as nghttp2 encodes a new field).
    pub first: Vec<u8>,
    /// Every later request: the same fields, each by its index (one or two bytes a field).
    pub indexed: Vec<u8>,
    /// For a server whose table is smaller than `table_size`: literals without indexing.
    pub plain: Vec<u8>,
    /// What `first` puts in the server's table (RFC 7541, 4.1).
    pub table_size: usize,
}

/// Encodes a request's header fields (pseudo-fields first, names in lower case): values
/// Huffman-coded where that is shorter, names by static index where one matches. `indexed`
/// names the entries `first` made, so the server decodes a request in a few table lookups;
/// when they would not fit the default table, `first` and `indexed` are `plain`.
pub fn encode_request<'a>(fields: impl IntoIterator<Item = (&'a str, &'a str)>) -> Blocks {
    let mut blocks = Blocks::default();
    // Per field: its static index (a whole match), or its place among the inserted ones.
    let mut places: Vec<Result<usize, usize>> = Vec::new();
    for (name, value) in fields {
        if let Some(index) = STATIC.iter().position(|&entry| entry == (name, value)) {
            put_integer(&mut blocks.first, 0x80, 7, index + 1);
            put_integer(&mut blocks.plain, 0x80, 7, index + 1);
            places.push(Ok(index + 1));
            continue;
        }
        let name_index = STATIC
            .iter()
            .position(|&(static_name, _)| static_name == name);
        for (block, flags, prefix) in [(&mut blocks.first, 0x40, 6), (&mut blocks.plain, 0x00, 4)] {
            match name_index {
                Some(index) => put_integer(block, flags, prefix, index + 1),
                None => {
                    block.push(flags);
                    put_string(block, name.as_bytes());
                }
            }
            put_string(block, value.as_bytes());
        }
        blocks.table_size += name.len() + value.len() + 32;
        places.push(Err(places.iter().filter(|place| place.is_err()).count()));
    }
    let n_inserted = places.iter().filter(|place| place.is_err()).count();
    for place in places {
        // The newest entry is 62: the last inserted.
        let index = place.unwrap_or_else(|order| 62 + (n_inserted - 1 - order));
        put_integer(&mut blocks.indexed, 0x80, 7, index);
    }
    if blocks.table_size > TABLE_SIZE {
        blocks.first = blocks.plain.clone();
        blocks.indexed = blocks.plain.clone();
        blocks.table_size = 0;
    }
    blocks
}

/// A dynamic table size update (RFC 7541, 6.3).
pub fn put_table_size(out: &mut Vec<u8>, size: usize) {
    put_integer(out, 0x20, 5, size);
}

fn put_integer(out: &mut Vec<u8>, flags: u8, prefix: u8, value: usize) {
    let max = (1usize << prefix) - 1;
    if value < max {
        out.push(flags | value as u8);
        return;
    }
    out.push(flags | max as u8);
    let mut rest = value - max;
    while rest >= 0x80 {
        out.push((rest as u8 & 0x7f) | 0x80);
        rest >>= 7;
    }
    out.push(rest as u8);
}

fn put_string(out: &mut Vec<u8>, bytes: &[u8]) {
    let coded = huffman::encoded_len(bytes);
    if coded < bytes.len() {
        put_integer(out, 0x80, 7, coded);
        huffman::encode(bytes, out);
    } else {
        put_integer(out, 0x00, 7, bytes.len());
        out.extend_from_slice(bytes);
    }
}
