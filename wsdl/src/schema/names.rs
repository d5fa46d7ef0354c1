//! Names: a namespace and a local name, a prefix resolved where it is written, whether a
//! name may be an element's or an attribute's, and where a node is.

use roxmltree::Node;

/// A namespace and a local name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct QName {
    pub(crate) ns: String,
    pub(crate) local: String,
}

impl QName {
    pub(crate) fn new(ns: &str, local: &str) -> QName {
        QName {
            ns: ns.to_owned(),
            local: local.to_owned(),
        }
    }
}

impl std::fmt::Display for QName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.ns.is_empty() {
            f.write_str(&self.local)
        } else {
            write!(f, "{{{}}}{}", self.ns, self.local)
        }
    }
}

/// Whether `name` is an XML NCName (a name without a colon): a letter or `_`, then letters,
/// digits, `.`, `-`, `_` and the other name characters of XML 1.0 fifth edition.
pub(crate) fn check_ncname(name: &str) -> Result<(), String> {
    let start = |ch: char| {
        ch.is_ascii_alphabetic()
            || ch == '_'
            || matches!(ch as u32, 0xC0..=0xD6 | 0xD8..=0xF6 | 0xF8..=0x2FF | 0x370..=0x37D
                | 0x37F..=0x1FFF | 0x200C..=0x200D | 0x2070..=0x218F | 0x2C00..=0x2FEF
                | 0x3001..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFFD | 0x10000..=0xEFFFF)
    };
    let rest = |ch: char| {
        start(ch)
            || ch.is_ascii_digit()
            || matches!(ch, '-' | '.' | '\u{B7}')
            || matches!(ch as u32, 0x300..=0x36F | 0x203F..=0x2040)
    };
    let mut chars = name.chars();
    match chars.next() {
        Some(first) if start(first) && chars.all(rest) => Ok(()),
        _ => Err(format!("{name:?} is not an XML name (an NCName)")),
    }
}

/// `prefix:local` (or `local`, in the default namespace) resolved at `node`.
pub(crate) fn resolve(node: Node<'_, '_>, text: &str) -> Option<QName> {
    let (prefix, local) = match text.split_once(':') {
        Some((prefix, local)) => (Some(prefix), local),
        None => (None, text),
    };
    let ns = node.lookup_namespace_uri(prefix).unwrap_or_default();
    if prefix.is_some() && ns.is_empty() {
        return None;
    }
    Some(QName::new(ns, local))
}

/// The 1-based line of `node` in its document.
pub(crate) fn line_of(node: Node<'_, '_>) -> u32 {
    node.document().text_pos_at(node.range().start).row
}
