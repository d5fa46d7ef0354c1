//! A document of the WSDL parsed, within the limits that keep reading it linear and its
//! recursion bounded: no tag of more than [`crate::MAX_ATTRIBUTES`] attributes, no nesting past
//! [`crate::MAX_XML_DEPTH`].

use roxmltree::Document;

use crate::WsdlError;
use crate::schema::line_of;

/// `text` parsed, and no deeper than [`crate::MAX_XML_DEPTH`]: everything that reads the schema
/// after this recurses at most once a level.
pub(super) fn parse<'a>(text: &'a str, document: &str) -> Result<Document<'a>, WsdlError> {
    if let Some(line) = crowded_tag(text.as_bytes()) {
        return Err(WsdlError::Malformed {
            what: format!(
                "an element has more than {} attributes",
                crate::MAX_ATTRIBUTES
            ),
            document: document.to_owned(),
            line,
        });
    }
    let parsed = Document::parse(text).map_err(|error| WsdlError::Malformed {
        what: format!("not well-formed XML: {error}"),
        document: document.to_owned(),
        line: error.pos().row,
    })?;
    // Each node's depth from its parent's: nodes come in document order, parents first.
    let mut depths = vec![0usize; parsed.descendants().count()];
    for node in parsed.descendants() {
        let Some(parent) = node.parent() else {
            continue;
        };
        let depth = depths[parent.id().get_usize()] + 1;
        depths[node.id().get_usize()] = depth;
        if depth > crate::MAX_XML_DEPTH {
            return Err(WsdlError::Malformed {
                what: format!("elements nest more than {} deep", crate::MAX_XML_DEPTH),
                document: document.to_owned(),
                line: line_of(node),
            });
        }
    }
    Ok(parsed)
}

/// The line of the first tag with more than [`crate::MAX_ATTRIBUTES`] attributes, if any: the
/// XML parser checks each attribute against the ones before it, so a tag of 100,000 costs
/// minutes. One pass over the bytes: comments, CDATA, processing instructions and declarations
/// are passed over, quoted values are not counted in.
fn crowded_tag(text: &[u8]) -> Option<u32> {
    let mut at = 0;
    let mut line = 1u32;
    let skip_to = |from: usize, end: &[u8]| {
        text[from..]
            .windows(end.len())
            .position(|w| w == end)
            .map_or(text.len(), |found| from + found + end.len())
    };
    while at < text.len() {
        let Some(open) = text[at..].iter().position(|&b| b == b'<') else {
            break;
        };
        let start = at + open;
        let rest = &text[start..];
        let end = if rest.starts_with(b"<!--") {
            skip_to(start, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_to(start, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_to(start, b"?>")
        } else if rest.starts_with(b"<!") {
            skip_to(start, b">")
        } else {
            let (mut quote, mut attributes, mut end) = (None, 0usize, text.len());
            for (offset, &byte) in rest.iter().enumerate().skip(1) {
                match (quote, byte) {
                    (Some(q), b) if b == q => quote = None,
                    (Some(_), _) => {}
                    (None, b'"' | b'\'') => quote = Some(byte),
                    (None, b'=') => attributes += 1,
                    (None, b'>') => {
                        end = start + offset + 1;
                        break;
                    }
                    _ => {}
                }
            }
            if attributes > crate::MAX_ATTRIBUTES {
                line += text[at..start].iter().filter(|&&b| b == b'\n').count() as u32;
                return Some(line);
            }
            end
        };
        line += text[at..end.min(text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32;
        at = end;
    }
    None
}
