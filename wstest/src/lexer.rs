//! The token stream the decoder reads, and its quick-xml implementation.
//!
//! The decoder sees XML as start tags (already resolved to a namespace, with `xsi:nil` read),
//! end tags, joined and unescaped text, and the end of input.
//! Two lexers produce it: the fast lexer (module `fast_lexer`), which reads the plain XML that
//! SOAP clients send at memory speed and gives up on anything else, and [`QuickXmlLexer`],
//! quick-xml's full parser, which reads everything XML allows and says precisely what is wrong
//! with what it refuses.

use std::borrow::Cow;

use quick_xml::events::Event;
use quick_xml::name::ResolveResult;
use quick_xml::reader::NsReader;

use crate::envelope::{NS_SOAP11, NS_SOAP12, NS_WSTEST, NS_XSI};

/// The namespaces the decoder tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ns {
    Soap11,
    Soap12,
    WsTest,
    /// XML Schema instance, for `xsi:nil`.
    Xsi,
    /// No namespace: no prefix and no default namespace in scope.
    None,
    Other,
}

impl Ns {
    pub(crate) fn of_uri(uri: &str) -> Ns {
        match uri {
            NS_WSTEST => Ns::WsTest,
            NS_SOAP11 => Ns::Soap11,
            NS_SOAP12 => Ns::Soap12,
            NS_XSI => Ns::Xsi,
            "" => Ns::None,
            _ => Ns::Other,
        }
    }
}

/// A start tag.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Tag<'i> {
    pub(crate) local: Cow<'i, str>,
    pub(crate) ns: Ns,
    /// No End token follows: `<x/>`, or an element the lexer read whole (see `text`).
    pub(crate) empty: bool,
    /// `xsi:nil="true"` or `"1"`.
    pub(crate) nil: bool,
    /// `soap:mustUnderstand="1"`, which matters on Header entries.
    pub(crate) must_understand: bool,
    /// The content of an element that holds only text, when the lexer read the element whole
    /// (`<i>1</i>` as one token rather than three); `empty` is then set.
    pub(crate) text: Option<Cow<'i, str>>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Token<'i> {
    Start(Tag<'i>),
    End,
    /// Character data, with references resolved and CDATA sections and adjacent runs joined.
    Text(Cow<'i, str>),
    Eof,
}

/// Why a lexer stopped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LexError {
    /// The fast lexer met something it does not read; quick-xml must.
    Unsupported,
    /// The input is not well-formed XML; the message says what and where.
    Malformed(String),
}

/// A TestStruct read by a shortcut (see [`Lexer::plain_fields`]).
pub(crate) struct PlainFields<'i> {
    pub(crate) i: i32,
    pub(crate) f: f32,
    pub(crate) s: &'i str,
}

pub(crate) trait Lexer<'i> {
    fn next_token(&mut self) -> Result<Token<'i>, LexError>;
    /// The byte offset reached, for messages.
    fn position(&self) -> u64;

    /// If the next thing in the input is exactly `<local>text</local>` in the WSTest namespace,
    /// with no attributes and nothing before it, consumes it and returns the text; otherwise
    /// consumes nothing and returns `None`, and the caller reads tokens as usual.
    /// A shortcut for the hottest shape of all, the fields of a TestStruct.
    fn simple_wstest_element(&mut self, local: &str) -> Option<Cow<'i, str>> {
        let _ = local;
        None
    }

    /// If the next thing in the input is exactly `<i>…</i><f>…</f><s>…</s>` (WSTest elements, no
    /// attributes, `i` and `f` numbers as canonical as `-?digits(.digits)?`, `s` text without
    /// references), consumes it and returns the fields; anything else, a bad number too, is left
    /// for the tokens. The shortcut for a whole TestStruct, the shape that dominates EchoStruct
    /// and EchoList.
    fn plain_fields(&mut self) -> Option<PlainFields<'i>> {
        None
    }

    /// While the next thing in the input is exactly `<local><i>…</i><f>…</f><s>…</s></local>`
    /// (its fields as for `plain_fields`), consumes it and calls `each` with its fields; returns
    /// how many it consumed. The shortcut for the `l`s of an EchoStruct array, read in one loop;
    /// `local` is one letter.
    fn plain_structs(&mut self, local: &str, each: impl FnMut(PlainFields<'i>)) -> usize {
        let _ = (local, each);
        0
    }

    /// If the rest of the innermost open element is exactly a chain of plain TestStruct
    /// fields (as for `plain_fields`) each but the last followed by a WSTest `<Next>` that holds
    /// the next, every `Next` closed right after its chain, then the element's end tag: calls
    /// `each` with each node's fields in order, consumes it all with the end tag, and returns
    /// true. Otherwise, or past `max_nodes` nodes, consumes nothing and returns false (`each`
    /// may have been called: the caller drops what it gathered). The shortcut for an EchoList,
    /// whose nodes nest one level a node and would otherwise each be entered and left.
    fn plain_chain(&mut self, max_nodes: usize, each: impl FnMut(PlainFields<'i>)) -> bool {
        let _ = (max_nodes, each);
        false
    }

    /// If the next thing in the input is exactly the start tag `<local>` of a WSTest element,
    /// with no attributes, consumes it and returns true: the element is then open, as if its
    /// Start token had been read.
    fn enter_wstest_element(&mut self, local: &str) -> bool {
        let _ = local;
        false
    }

    /// If the next thing in the input is the end tag of the innermost open element (not the
    /// root), consumes it and returns true, as if its End token had been read.
    fn leave_element(&mut self) -> bool {
        false
    }
}

/// quick-xml's namespace-aware reader, adapted to [`Token`]s.
pub(crate) struct QuickXmlLexer<'i> {
    reader: NsReader<&'i [u8]>,
    /// A token read while joining text, to be returned next.
    peeked: Option<Token<'i>>,
    /// Where the document proper starts: after a UTF-8 byte-order mark, if there is one. An XML
    /// declaration may stand only there.
    start: u64,
}

impl<'i> QuickXmlLexer<'i> {
    pub(crate) fn new(xml: &'i [u8]) -> QuickXmlLexer<'i> {
        let mut reader = NsReader::from_reader(xml);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.check_comments = true;
        QuickXmlLexer {
            reader,
            peeked: None,
            start: if xml.starts_with(&[0xEF, 0xBB, 0xBF]) {
                3
            } else {
                0
            },
        }
    }

    fn malformed(&self, what: impl std::fmt::Display) -> LexError {
        LexError::Malformed(format!(
            "{what} (at byte {})",
            self.reader.buffer_position()
        ))
    }
}

impl<'i> Lexer<'i> for QuickXmlLexer<'i> {
    fn next_token(&mut self) -> Result<Token<'i>, LexError> {
        if let Some(token) = self.peeked.take() {
            return Ok(token);
        }
        let mut text: Option<Cow<'i, str>> = None;
        loop {
            let event_start = self.reader.buffer_position();
            let (ns, event) = match self.reader.read_resolved_event() {
                Ok((resolved, event)) => (classify(resolved), event),
                Err(error) => {
                    let at = self.reader.error_position();
                    return Err(LexError::Malformed(match error {
                        quick_xml::Error::Encoding(_) => {
                            format!("the message is not valid UTF-8 (at byte {at})")
                        }
                        other => format!("malformed XML: {other} (at byte {at})"),
                    }));
                }
            };
            let ns = ns.map_err(|prefix| {
                self.malformed(format!(
                    "namespace prefix {prefix:?} is used but never declared"
                ))
            })?;
            let token = match event {
                Event::Text(chunk) => {
                    join(&mut text, chunk.xml10_content());
                    continue;
                }
                Event::CData(chunk) => {
                    join(&mut text, chunk.xml10_content());
                    continue;
                }
                Event::GeneralRef(reference) => {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(ch)) => ch,
                        Ok(None) => {
                            let name = reference.xml10_content();
                            let Some(value) = quick_xml::escape::resolve_predefined_entity(&name)
                            else {
                                return Err(self.malformed(format!(
                                    "unknown entity &{name};: only the five predefined XML entities are allowed"
                                )));
                            };
                            value.chars().next().unwrap_or_default()
                        }
                        Err(error) => {
                            return Err(self.malformed(format!("bad character reference: {error}")));
                        }
                    };
                    if !is_xml_char(resolved) {
                        return Err(self.malformed(format!(
                            "a character reference to U+{:04X}, which XML 1.0 does not allow",
                            u32::from(resolved)
                        )));
                    }
                    text.get_or_insert(Cow::Borrowed(""))
                        .to_mut()
                        .push(resolved);
                    continue;
                }
                Event::Comment(_) | Event::PI(_) => continue,
                // quick-xml reads `<?xml` anywhere and any version; XML 1.0 (section 2.8) allows
                // the declaration only at the start, and this service reads XML 1.0 and 1.1.
                Event::Decl(ref decl) => {
                    if event_start > self.start {
                        return Err(self.malformed("an XML declaration may only open the message"));
                    }
                    let version = decl.version().map_err(|error| {
                        self.malformed(format!("malformed XML declaration: {error}"))
                    })?;
                    if !matches!(&*version, "1.0" | "1.1") {
                        return Err(
                            self.malformed(format!("XML version {version:?} is not 1.0 or 1.1"))
                        );
                    }
                    continue;
                }
                Event::DocType(_) => {
                    return Err(self.malformed(
                        "a DOCTYPE declaration is not allowed in a SOAP message (SOAP 1.1 section 3)",
                    ));
                }
                Event::Start(ref start) | Event::Empty(ref start) => {
                    let empty = matches!(event, Event::Empty(_));
                    let (mut nil, mut must_understand) = (false, false);
                    if !start.attributes_raw().trim_ascii().is_empty() {
                        for attr in start.attributes() {
                            let attr = attr.map_err(|error| {
                                self.malformed(format!("malformed attribute: {error}"))
                            })?;
                            let (attr_ns, local) =
                                self.reader.resolver().resolve_attribute(attr.key);
                            let attr_ns = classify(attr_ns).map_err(|prefix| {
                                self.malformed(format!(
                                    "namespace prefix {prefix:?} is used but never declared"
                                ))
                            })?;
                            let value = attr.value.trim_matches([' ', '\t', '\r', '\n']);
                            match (attr_ns, local.as_ref()) {
                                (Ns::Xsi, "nil") => {
                                    nil = crate::xsd::parse_boolean(value) == Some(true)
                                }
                                (Ns::Soap11, "mustUnderstand") => must_understand = value == "1",
                                _ => {}
                            }
                        }
                    }
                    let local = start.local_name().as_ref().to_owned();
                    Token::Start(Tag {
                        local: Cow::Owned(local),
                        ns,
                        empty,
                        nil,
                        must_understand,
                        text: None,
                    })
                }
                Event::End(_) => Token::End,
                Event::Eof => Token::Eof,
            };
            return Ok(match text {
                Some(text) if text.chars().any(|ch| !is_xml_char(ch)) => {
                    return Err(
                        self.malformed("the text holds a character that XML 1.0 does not allow")
                    );
                }
                Some(text) => {
                    self.peeked = Some(token);
                    Token::Text(text)
                }
                None => token,
            });
        }
    }

    fn position(&self) -> u64 {
        self.reader.buffer_position()
    }
}

fn classify(resolved: ResolveResult<'_>) -> Result<Ns, String> {
    match resolved {
        ResolveResult::Bound(ns) => Ok(Ns::of_uri(ns.into_inner())),
        ResolveResult::Unbound => Ok(Ns::None),
        ResolveResult::Unknown(prefix) => Err(prefix),
    }
}

fn join<'i>(text: &mut Option<Cow<'i, str>>, chunk: Cow<'i, str>) {
    match text {
        None => *text = Some(chunk),
        Some(text) => text.to_mut().push_str(&chunk),
    }
}

/// The characters XML 1.0 allows in a document.
pub(crate) fn is_xml_char(ch: char) -> bool {
    matches!(ch, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}
