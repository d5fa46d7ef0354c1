//! A lexer for the plain XML that SOAP clients send, written for speed.
//!
//! It reads elements, attributes, namespace declarations, text with the predefined entities and
//! character references, and an XML declaration at the very start.
//! Anything else (comments, CDATA, processing instructions, DOCTYPE, references in attribute
//! values, non-ASCII names, carriage returns, malformed input) makes it give up with
//! [`LexError::Unsupported`], and the decoder starts again with quick-xml, which reads all of XML
//! and words the errors.
//! So this lexer never has to explain a problem; it only has to be right about what it accepts.
//!
//! Why not quick-xml alone: on a 1 KB EchoStruct request quick-xml's reader takes about 4 µs,
//! two thirds of what hyper spends on the whole request; this lexer takes well under 1 µs.

use std::borrow::Cow;

mod name;
mod plain;
mod text;

use crate::lexer::{LexError, Lexer, Ns, PlainFields, Tag, Token};
use name::scan_name;
use text::{AMPERSAND, PLAIN, resolve_references, scan_text, unescape};

/// The most attributes one element may carry on the fast path.
const MAX_ATTRIBUTES: usize = 8;

/// `SHORTCUTS` false turns off the shortcuts of [`Lexer`]: the decoder then reads every element
/// as tokens (`LexerChoice::FastTokens`). A parameter of the type, not a field, because a check
/// of a field at each shortcut cost 4% of EchoStruct-100's decode (callgrind).
pub(crate) struct FastLexer<'i, const SHORTCUTS: bool> {
    xml: &'i str,
    pos: usize,
    /// The qualified names of the open elements, innermost last.
    open: Vec<&'i str>,
    /// Namespace bindings in scope, innermost last: prefix ("" for the default namespace) and
    /// namespace.
    bindings: Vec<(&'i str, Ns)>,
    /// For each open element, where its bindings start in `bindings`.
    scopes: Vec<usize>,
    root_closed: bool,
    /// Bindings of an empty element, dropped before the next token.
    pending_pop: Option<usize>,
    /// Bumped whenever `bindings` changes, to know when `wstest_prefix` must be looked up again.
    bindings_epoch: u32,
    /// The prefix that names the WSTest namespace ("" for the default namespace), as of
    /// `bindings_epoch`.
    wstest_prefix: Option<(u32, Option<&'i str>)>,
}

const UNSUPPORTED: LexError = LexError::Unsupported;

/// The namespace only the `xml` prefix names, and the one of `xmlns` declarations themselves.
const NS_XML: &str = "http://www.w3.org/XML/1998/namespace";
const NS_XMLNS: &str = "http://www.w3.org/2000/xmlns/";

impl<'i, const SHORTCUTS: bool> FastLexer<'i, SHORTCUTS> {
    /// A lexer over `xml`, or `None` when the bytes are not UTF-8 or open with something other than
    /// a plain XML declaration (quick-xml will read those).
    pub(crate) fn new(xml: &'i [u8]) -> Option<FastLexer<'i, SHORTCUTS>> {
        let xml = xml.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(xml);
        let xml = simdutf8::basic::from_utf8(xml).ok()?;
        let mut lexer = FastLexer {
            xml,
            pos: 0,
            open: Vec::with_capacity(16),
            bindings: Vec::with_capacity(8),
            scopes: Vec::with_capacity(16),
            root_closed: false,
            pending_pop: None,
            bindings_epoch: 0,
            wstest_prefix: None,
        };
        if xml.starts_with("<?") {
            let end = xml.find("?>")? + 2;
            if !is_plain_declaration(&xml[..end]) {
                return None;
            }
            lexer.pos = end;
        }
        Some(lexer)
    }

    fn bytes(&self) -> &'i [u8] {
        self.xml.as_bytes()
    }

    fn text(&mut self) -> Result<Token<'i>, LexError> {
        let bytes = self.bytes();
        let start = self.pos;
        let end = memchr(b'<', &bytes[start..]).map_or(bytes.len(), |offset| start + offset);
        self.pos = end;
        let raw = &self.xml[start..end];
        if self.open.is_empty() {
            // Outside the root element only white space may stand.
            return if raw.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n')) {
                Ok(Token::Text(Cow::Borrowed(raw)))
            } else {
                Err(UNSUPPORTED)
            };
        }
        unescape(raw).map(Token::Text)
    }

    fn end_tag(&mut self) -> Result<Token<'i>, LexError> {
        let bytes = self.bytes();
        let name_start = self.pos + 2;
        let close = memchr(b'>', &bytes[name_start..]).ok_or(UNSUPPORTED)? + name_start;
        let mut name = &self.xml[name_start..close];
        if name.ends_with([' ', '\t', '\n']) {
            name = name.trim_end_matches([' ', '\t', '\n']);
        }
        let open = self.open.pop().ok_or(UNSUPPORTED)?;
        if !same(name, open) {
            return Err(UNSUPPORTED);
        }
        let scope = self.scopes.pop().ok_or(UNSUPPORTED)?;
        self.truncate_bindings(scope);
        if self.open.is_empty() {
            self.root_closed = true;
        }
        self.pos = close + 1;
        Ok(Token::End)
    }

    fn start_tag(&mut self) -> Result<Token<'i>, LexError> {
        if self.root_closed {
            return Err(UNSUPPORTED);
        }
        let bytes = self.bytes();
        let name_start = self.pos + 1;
        let (name_len, colon) = scan_name(&bytes[name_start..]).ok_or(UNSUPPORTED)?;
        let name_end = name_start + name_len;
        let qname = &self.xml[name_start..name_end];
        let scope = self.bindings.len();
        let mut attributes: [(&str, &str); MAX_ATTRIBUTES] = [("", ""); MAX_ATTRIBUTES];
        let mut n_attributes = 0;
        let mut pos = name_end;
        let empty = loop {
            let before_space = pos;
            while pos < bytes.len() && matches!(bytes[pos], b' ' | b'\t' | b'\n') {
                pos += 1;
            }
            match bytes.get(pos) {
                Some(b'>') => {
                    pos += 1;
                    break false;
                }
                Some(b'/') if bytes.get(pos + 1) == Some(&b'>') => {
                    pos += 2;
                    break true;
                }
                Some(_) if pos > before_space => {}
                // Attributes must be separated by white space.
                _ => return Err(UNSUPPORTED),
            }
            let (attr_name_len, _) = scan_name(&bytes[pos..]).ok_or(UNSUPPORTED)?;
            let attr_name_end = pos + attr_name_len;
            let attr_name = &self.xml[pos..attr_name_end];
            if bytes.get(attr_name_end) != Some(&b'=') {
                return Err(UNSUPPORTED);
            }
            let quote = *bytes.get(attr_name_end + 1).ok_or(UNSUPPORTED)?;
            if quote != b'"' && quote != b'\'' {
                return Err(UNSUPPORTED);
            }
            let value_start = attr_name_end + 2;
            let value_end = memchr(quote, &bytes[value_start.min(bytes.len())..])
                .ok_or(UNSUPPORTED)?
                + value_start;
            let value = &self.xml[value_start..value_end];
            // The namespaces SOAP messages declare are known to be clean; anything else is
            // checked byte by byte.
            let value_ns = Ns::of_uri(value);
            let known = !matches!(value_ns, Ns::Other | Ns::None);
            if !known && value.bytes().any(|b| b < 0x20 || b == b'<' || b == b'&') {
                return Err(UNSUPPORTED);
            }
            if n_attributes == MAX_ATTRIBUTES
                || attributes[..n_attributes]
                    .iter()
                    .any(|(name, _)| *name == attr_name)
            {
                return Err(UNSUPPORTED);
            }
            attributes[n_attributes] = (attr_name, value);
            n_attributes += 1;
            // The two reserved namespaces may not be declared (but for `xml` bound to its own),
            // which quick-xml enforces: found by the `lexers_agree` fuzz target.
            let reserved = matches!(value, NS_XML | NS_XMLNS);
            if attr_name == "xmlns" {
                if reserved {
                    return Err(UNSUPPORTED);
                }
                self.bindings.push(("", value_ns));
                self.bindings_epoch += 1;
            } else if let Some(prefix) = attr_name.strip_prefix("xmlns:") {
                if value.is_empty() || prefix == "xml" || prefix == "xmlns" || reserved {
                    return Err(UNSUPPORTED);
                }
                self.bindings.push((prefix, value_ns));
                self.bindings_epoch += 1;
            }
            pos = value_end + 1;
        };
        let (prefix, local) = match colon {
            Some(at) => (&qname[..at], &qname[at + 1..]),
            None => ("", qname),
        };
        let ns = self.resolve(prefix).ok_or(UNSUPPORTED)?;
        let (mut nil, mut must_understand) = (false, false);
        for (name, value) in &attributes[..n_attributes] {
            let Some(colon) = name.bytes().position(|b| b == b':') else {
                continue;
            };
            let (prefix, local) = (&name[..colon], &name[colon + 1..]);
            if prefix == "xmlns" || prefix == "xml" {
                continue;
            }
            let value = value.trim_matches([' ', '\t', '\n']);
            match (self.resolve(prefix).ok_or(UNSUPPORTED)?, local) {
                (Ns::Xsi, "nil") => nil = crate::xsd::parse_boolean(value) == Some(true),
                (Ns::Soap11, "mustUnderstand") => must_understand = value == "1",
                _ => {}
            }
        }
        let mut text = None;
        let mut whole = empty;
        if !empty && !self.open.is_empty() {
            // An element that holds only text, `<i>1</i>`, is read whole: one token, and no
            // trip through the stack of open elements.
            if let Some(lt) = memchr(b'<', &bytes[pos..]).map(|offset| pos + offset) {
                let close = &bytes[lt..];
                if close.len() > qname.len() + 2
                    && close[1] == b'/'
                    && close[2 + qname.len()] == b'>'
                    && same_bytes(&close[2..2 + qname.len()], qname.as_bytes())
                {
                    text = Some(unescape(&self.xml[pos..lt])?);
                    pos = lt + qname.len() + 3;
                    whole = true;
                }
            }
        }
        self.pos = pos;
        if whole {
            self.pending_pop = Some(scope);
        } else {
            self.open.push(qname);
            self.scopes.push(scope);
        }
        if empty && self.open.is_empty() {
            self.root_closed = true;
        }
        Ok(Token::Start(Tag {
            local: Cow::Borrowed(local),
            ns,
            empty: whole,
            nil,
            must_understand,
            text,
        }))
    }

    fn truncate_bindings(&mut self, len: usize) {
        if self.bindings.len() != len {
            self.bindings.truncate(len);
            self.bindings_epoch += 1;
        }
    }

    /// The prefix bound to the WSTest namespace in the current scope ("" when it is the default
    /// namespace), if any.
    fn wstest_prefix(&mut self) -> Option<&'i str> {
        if let Some((epoch, prefix)) = self.wstest_prefix
            && epoch == self.bindings_epoch
        {
            return prefix;
        }
        let prefix = self
            .bindings
            .iter()
            .rev()
            .map(|(prefix, _)| *prefix)
            .find(|prefix| self.resolve(prefix) == Some(Ns::WsTest));
        self.wstest_prefix = Some((self.bindings_epoch, prefix));
        prefix
    }

    /// Where every shortcut starts: with the shortcuts on and the bindings of an element read
    /// whole dropped, the prefix bound to WSTest here (empty for the default namespace), if any.
    #[inline(always)]
    fn shortcut_prefix(&mut self) -> Option<&'i [u8]> {
        if !SHORTCUTS {
            return None;
        }
        if let Some(scope) = self.pending_pop.take() {
            self.truncate_bindings(scope);
        }
        Some(self.wstest_prefix()?.as_bytes())
    }

    /// The namespace of an element prefix ("" for none), if bound.
    fn resolve(&self, prefix: &str) -> Option<Ns> {
        match self
            .bindings
            .iter()
            .rev()
            .find(|(bound, _)| same(bound, prefix))
        {
            Some((_, ns)) => Some(*ns),
            None if prefix.is_empty() => Some(Ns::None),
            None => None,
        }
    }
}

/// String equality for the short names of XML, compared in line: a call to libc's `memcmp` per
/// comparison made this lexer several times slower.
#[inline]
fn same(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    memchr::memchr(needle, haystack)
}

/// Whether `decl` (from `<?xml` to `?>`) is a declaration of XML 1.0 in UTF-8, the only kind
/// this lexer reads.
fn is_plain_declaration(decl: &str) -> bool {
    let Some(rest) = decl
        .strip_prefix("<?xml")
        .and_then(|rest| rest.strip_suffix("?>"))
    else {
        return false;
    };
    let mut words = rest.split_ascii_whitespace();
    let version_ok = matches!(words.next(), Some("version=\"1.0\"" | "version='1.0'"));
    version_ok
        && rest.starts_with([' ', '\t', '\n'])
        && words.all(|word| {
            let lower = word.to_ascii_lowercase();
            matches!(
                lower.as_str(),
                "encoding=\"utf-8\""
                    | "encoding='utf-8'"
                    | "standalone=\"yes\""
                    | "standalone='yes'"
                    | "standalone=\"no\""
                    | "standalone='no'"
            )
        })
}

impl<'i, const SHORTCUTS: bool> Lexer<'i> for FastLexer<'i, SHORTCUTS> {
    #[inline(always)]
    fn next_token(&mut self) -> Result<Token<'i>, LexError> {
        if let Some(scope) = self.pending_pop.take() {
            self.truncate_bindings(scope);
        }
        let bytes = self.bytes();
        match bytes.get(self.pos) {
            None if self.open.is_empty() && self.root_closed => Ok(Token::Eof),
            None => Err(UNSUPPORTED),
            Some(b'<') => match bytes.get(self.pos + 1) {
                Some(b'/') => self.end_tag(),
                Some(b'!' | b'?') | None => Err(UNSUPPORTED),
                Some(_) => self.start_tag(),
            },
            Some(_) => self.text(),
        }
    }

    fn position(&self) -> u64 {
        self.pos as u64
    }

    #[inline]
    fn simple_wstest_element(&mut self, local: &str) -> Option<Cow<'i, str>> {
        let prefix = self.shortcut_prefix()?;
        let bytes = self.bytes();
        let name = local.as_bytes();
        let text_start = plain::tag_end(bytes, self.pos, prefix, name, false)?;
        let (lt, class) = scan_text(bytes, text_start)?;
        let end = plain::tag_end(bytes, lt, prefix, name, true)?;
        let raw = &self.xml[text_start..lt];
        let text = match class {
            PLAIN => Cow::Borrowed(raw),
            AMPERSAND => resolve_references(raw).ok()?,
            _ => return None,
        };
        self.pos = end;
        Some(text)
    }

    #[inline]
    fn plain_fields(&mut self) -> Option<PlainFields<'i>> {
        let prefix = self.shortcut_prefix()?;
        let (texts, end) = plain::fields(self.xml, self.pos, prefix, None)?;
        self.pos = end;
        Some(texts)
    }

    #[inline]
    fn plain_structs(&mut self, local: &str, mut each: impl FnMut(PlainFields<'i>)) -> usize {
        let (Some(prefix), &[wrapper]) = (self.shortcut_prefix(), local.as_bytes()) else {
            return 0;
        };
        let mut n_read = 0;
        let mut at = self.pos;
        while let Some((fields, end)) = plain::fields(self.xml, at, prefix, Some(wrapper)) {
            each(fields);
            at = end;
            n_read += 1;
        }
        self.pos = at;
        n_read
    }

    fn plain_chain(&mut self, max_nodes: usize, mut each: impl FnMut(PlainFields<'i>)) -> bool {
        let Some(prefix) = self.shortcut_prefix() else {
            return false;
        };
        let bytes = self.bytes();
        let mut at = self.pos;
        let mut n_links = 0;
        loop {
            let Some((fields, end)) = plain::fields(self.xml, at, prefix, None) else {
                return false;
            };
            each(fields);
            at = end;
            let Some(end) = plain::next_tag_end(bytes, at, prefix, false) else {
                break;
            };
            n_links += 1;
            if n_links >= max_nodes {
                return false;
            }
            at = end;
        }
        for _ in 0..n_links {
            let Some(end) = plain::next_tag_end(bytes, at, prefix, true) else {
                return false;
            };
            at = end;
        }
        let start = std::mem::replace(&mut self.pos, at);
        if self.leave_element() {
            return true;
        }
        // Something follows the chain: nothing is taken, and the tokens tell what.
        self.pos = start;
        false
    }

    #[inline]
    fn enter_wstest_element(&mut self, local: &str) -> bool {
        let Some(prefix) = self.shortcut_prefix() else {
            return false;
        };
        let Some(end) = plain::tag_end(self.bytes(), self.pos, prefix, local.as_bytes(), false)
        else {
            return false;
        };
        // The qualified name, between `<` and `>`.
        self.open.push(&self.xml[self.pos + 1..end - 1]);
        self.scopes.push(self.bindings.len());
        self.pos = end;
        true
    }

    #[inline]
    fn leave_element(&mut self) -> bool {
        if !SHORTCUTS {
            return false;
        }
        let Some(&open) = self.open.last() else {
            return false;
        };
        let bytes = self.bytes();
        let end = self.pos + 2 + open.len();
        let at_end_tag = bytes.get(self.pos..self.pos + 2) == Some(b"</")
            && bytes.get(end) == Some(&b'>')
            && same_bytes(&bytes[self.pos + 2..end], open.as_bytes());
        if !at_end_tag || self.open.len() == 1 {
            return false;
        }
        self.open.pop();
        if let Some(scope) = self.scopes.pop() {
            self.truncate_bindings(scope);
        }
        self.pos = end + 1;
        true
    }
}
