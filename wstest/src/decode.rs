//! The streaming decoder: builds the model straight from a pull lexer's tokens.
//!
//! Names are compared by namespace and local name, never by prefix, so any prefix style
//! (default namespace, `uri:`, `s0:`) reads the same.
//! Tokens come from the fast lexer first; if it meets something it does not read, the message is
//! decoded again from quick-xml's tokens (see [`crate::lexer`]). Both feed this one binding.
//! Nothing here recurses on the input: nesting is walked with loops, and the one structure that
//! nests without bound, the `TestNode` chain of EchoList, is read into a flat vector under the
//! [`MAX_LIST_NODES`] cap.
//!
//! This file holds the envelope, the walk and the values; `payload` reads each operation's
//! payload (structs, lists, synthetics, orders) on the same [`Decoder`].

mod payload;

use std::borrow::Cow;

use crate::envelope::{NS_SOAP11, NS_SOAP12, NS_WSTEST};
use crate::fast_lexer::FastLexer;
use crate::fault::{Fault, FaultCode};
use crate::lexer::{LexError, Lexer, Ns, QuickXmlLexer, Tag, Token};
use crate::model::DateTime;
use crate::operation::{Operation, Request, Response};
use crate::xsd::{parse_date_time, parse_float, parse_int};

/// The most `TestNode`s an EchoList request or response may chain.
///
/// Each node nests one level deeper; past this count the message is refused with a Client fault
/// rather than held in memory.
/// Messages that only quick-xml reads (those with comments, CDATA or a DOCTYPE, see
/// [`crate::lexer`]) are further limited by quick-xml to 65,535 levels of nesting in all.
pub const MAX_LIST_NODES: usize = 100_000;

/// The deepest an element the service does not read (an ignored header entry) may nest.
/// The lexers keep a stack of open elements, so without this cap a million-deep header of
/// 3 MB made quick-xml hold 26 MB (the hostile corpus, `size/million-deep-in-header.http`).
pub const MAX_SKIPPED_DEPTH: usize = 10_000;

/// A decoded response: the operation's answer, or the fault the service sent instead.
// Like `Response`, built once per message and not stored in bulk.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Reply<'a> {
    Response(Response<'a>),
    Fault(Fault),
}

/// Which lexer feeds the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LexerChoice {
    /// The fast lexer, falling back to quick-xml where it gives up: the default.
    Fast,
    /// quick-xml alone.
    QuickXml,
    /// The fast lexer with its shortcuts off: every element read as tokens, the decoder as it
    /// was before the shortcuts for whole structs, nodes and fields were written. For
    /// differential tests against [`LexerChoice::Fast`] (the `lexers_agree` fuzz target).
    FastTokens,
}

/// Decodes a request envelope.
///
/// `soap_action` is the operation the SOAPAction header named, if any: the Body must agree with
/// it. Every problem with the input becomes a Client fault (VersionMismatch for an envelope that
/// is not SOAP 1.1, MustUnderstand for a header entry that demands it) saying what was wrong and
/// where.
pub fn decode_request(xml: &[u8], soap_action: Option<Operation>) -> Result<Request<'_>, Fault> {
    decode_request_with(LexerChoice::Fast, xml, soap_action)
}

/// [`decode_request`] with a chosen lexer, for tests and benchmarks that compare them.
pub fn decode_request_with(
    lexer: LexerChoice,
    xml: &[u8],
    soap_action: Option<Operation>,
) -> Result<Request<'_>, Fault> {
    decode(lexer, xml, ReadRequest(soap_action))
}

/// Decodes a response envelope, as a client reads it.
///
/// A `Fault` in the Body is returned as [`Reply::Fault`]; `Err` means the response itself was
/// malformed.
pub fn decode_response(xml: &[u8]) -> Result<Reply<'_>, Fault> {
    decode_response_with(LexerChoice::Fast, xml)
}

/// [`decode_response`] with a chosen lexer.
pub fn decode_response_with(lexer: LexerChoice, xml: &[u8]) -> Result<Reply<'_>, Fault> {
    decode(lexer, xml, ReadResponse)
}

/// What a message is read as: a request (with the operation its SOAPAction named) or a
/// response.
trait Read<'i> {
    type Output;
    fn read<L: Lexer<'i>>(&self, decoder: Decoder<'i, L>) -> Decoded<Self::Output>;
}

struct ReadRequest(Option<Operation>);

impl<'i> Read<'i> for ReadRequest {
    type Output = Request<'i>;
    fn read<L: Lexer<'i>>(&self, mut decoder: Decoder<'i, L>) -> Decoded<Request<'i>> {
        decoder.request(self.0)
    }
}

struct ReadResponse;

impl<'i> Read<'i> for ReadResponse {
    type Output = Reply<'i>;
    fn read<L: Lexer<'i>>(&self, mut decoder: Decoder<'i, L>) -> Decoded<Reply<'i>> {
        decoder.response()
    }
}

/// Reads `xml` with the fast lexer `lexer` asks for, if any, and with quick-xml where the fast
/// lexer gives up (or none was asked for).
fn decode<'i, R: Read<'i>>(lexer: LexerChoice, xml: &'i [u8], read: R) -> Result<R::Output, Fault> {
    let fast = match lexer {
        LexerChoice::Fast => {
            FastLexer::<true>::new(xml).map(|fast| read.read(Decoder::new(fast, xml.len())))
        }
        LexerChoice::FastTokens => {
            FastLexer::<false>::new(xml).map(|fast| read.read(Decoder::new(fast, xml.len())))
        }
        LexerChoice::QuickXml => None,
    };
    match fast {
        None | Some(Err(DecodeError::Unsupported)) => read
            .read(Decoder::new(QuickXmlLexer::new(xml), xml.len()))
            .map_err(DecodeError::into_fault),
        Some(read) => read.map_err(DecodeError::into_fault),
    }
}

/// Reads every token of `xml` with `lexer` and builds nothing: the most any binding on that
/// lexer could do with the same bytes, which wsperf reports as `tokens-only`.
///
/// Returns how many tokens there were, or `None` when the input is malformed or, for
/// [`LexerChoice::Fast`], when the fast lexer gives up on it (the decoder then hands it to
/// quick-xml). The fast lexer's pass is the decoder's own token stream, without the shortcuts
/// that read a TestStruct's fields in one step.
pub fn count_tokens(lexer: LexerChoice, xml: &[u8]) -> Option<usize> {
    fn count<'i>(mut lexer: impl Lexer<'i>) -> Option<usize> {
        let mut n_tokens = 0;
        loop {
            match lexer.next_token().ok()? {
                Token::Eof => return Some(n_tokens),
                token => {
                    std::hint::black_box(&token);
                    n_tokens += 1;
                }
            }
        }
    }
    match lexer {
        LexerChoice::Fast | LexerChoice::FastTokens => count(FastLexer::<true>::new(xml)?),
        LexerChoice::QuickXml => count(QuickXmlLexer::new(xml)),
    }
}

/// Why decoding stopped: a fault to answer with, or the fast lexer giving up.
#[derive(Debug)]
enum DecodeError {
    Unsupported,
    Fault(Fault),
}

impl DecodeError {
    fn into_fault(self) -> Fault {
        match self {
            DecodeError::Fault(fault) => fault,
            // Only the fast lexer gives up, and the functions above then retry with quick-xml.
            DecodeError::Unsupported => Fault::server("the XML lexer gave up on this message"),
        }
    }
}

impl From<Fault> for DecodeError {
    fn from(fault: Fault) -> DecodeError {
        DecodeError::Fault(fault)
    }
}

impl From<LexError> for DecodeError {
    fn from(error: LexError) -> DecodeError {
        match error {
            LexError::Unsupported => DecodeError::Unsupported,
            LexError::Malformed(message) => DecodeError::Fault(Fault::client(message)),
        }
    }
}

type Decoded<T> = Result<T, DecodeError>;

/// The names of the operation elements' parameters, as requests and responses spell them.
struct Params {
    array: &'static str,
    list: &'static str,
    synth: &'static str,
}

const REQUEST_PARAMS: Params = Params {
    array: "array",
    list: "list",
    synth: "synth",
};
const RESPONSE_PARAMS: Params = Params {
    array: "EchoStructResult",
    list: "EchoListResult",
    synth: "EchoSyntheticResult",
};

impl Tag<'_> {
    fn describe(&self) -> String {
        match self.ns {
            Ns::WsTest => format!("element {}", self.local),
            Ns::None => format!("element {} (in no namespace)", self.local),
            _ => format!("element {} (in another namespace)", self.local),
        }
    }
}

/// One item of element content.
enum Item<'i> {
    Child(Tag<'i>),
    End,
}

struct Decoder<'i, L> {
    lexer: L,
    /// The length of the message, which bounds how many items are left in it.
    input_len: usize,
    _input: std::marker::PhantomData<&'i [u8]>,
}

impl<'i, L: Lexer<'i>> Decoder<'i, L> {
    fn new(lexer: L, input_len: usize) -> Decoder<'i, L> {
        Decoder {
            lexer,
            input_len,
            _input: std::marker::PhantomData,
        }
    }

    fn request(&mut self, soap_action: Option<Operation>) -> Decoded<Request<'i>> {
        self.open_body()?;
        let payload = self.expect_child("Body")?;
        if payload.ns != Ns::WsTest {
            return Err(self.fault(format!(
                "the Body holds {}, which is not a WSTest operation: expected one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder in namespace {NS_WSTEST}",
                payload.describe()
            )));
        }
        let Some(op) = Operation::from_name(&payload.local) else {
            return Err(self.fault(format!(
                "unknown operation {}: expected one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder",
                payload.local
            )));
        };
        if let Some(action) = soap_action.filter(|action| *action != op) {
            return Err(DecodeError::Fault(Fault::client(format!(
                "the SOAPAction names {action} but the Body holds a {op} request"
            ))));
        }
        let p = &REQUEST_PARAMS;
        let request = match op {
            Operation::EchoVoid => {
                self.expect_end(&payload)?;
                Request::EchoVoid
            }
            Operation::EchoStruct => Request::EchoStruct(self.struct_array(&payload, p.array)?),
            Operation::EchoList => Request::EchoList(self.list(&payload, p.list)?),
            Operation::EchoSynthetic => Request::EchoSynthetic(self.synthetic(&payload, p.synth)?),
            Operation::GetOrder => Request::GetOrder(self.get_order(&payload)?),
        };
        self.close_body()?;
        Ok(request)
    }

    fn response(&mut self) -> Decoded<Reply<'i>> {
        self.open_body()?;
        let payload = self.expect_child("Body")?;
        if payload.ns == Ns::Soap11 && payload.local == "Fault" {
            let fault = self.fault_body(&payload)?;
            self.close_body()?;
            return Ok(Reply::Fault(fault));
        }
        let op = match payload.ns {
            Ns::WsTest => Operation::from_response_element(&payload.local),
            _ => None,
        };
        let Some(op) = op else {
            return Err(self.fault(format!(
                "the Body holds {}, which is not a WSTest response",
                payload.describe()
            )));
        };
        let p = &RESPONSE_PARAMS;
        let response = match op {
            Operation::EchoVoid => {
                self.expect_end(&payload)?;
                Response::EchoVoid
            }
            Operation::EchoStruct => Response::EchoStruct(self.struct_array(&payload, p.array)?),
            Operation::EchoList => Response::EchoList(self.list(&payload, p.list)?),
            Operation::EchoSynthetic => Response::EchoSynthetic(self.synthetic(&payload, p.synth)?),
            Operation::GetOrder => {
                let result = self.expect_param(&payload, "GetOrderResult")?;
                let order = self.order(&result)?;
                self.expect_end(&payload)?;
                Response::GetOrder(order)
            }
        };
        self.close_body()?;
        Ok(Reply::Response(response))
    }

    /// A Client fault about the input, naming the byte offset reached.
    fn fault(&self, what: impl std::fmt::Display) -> DecodeError {
        DecodeError::Fault(Fault::client(format!(
            "{what} (at byte {})",
            self.lexer.position()
        )))
    }

    /// The next child of the current element, or `End` when it closes. White space between
    /// elements is skipped; other text is an error.
    #[inline(always)]
    fn next_item(&mut self, parent: &str) -> Decoded<Item<'i>> {
        loop {
            match self.lexer.next_token()? {
                Token::Start(tag) => return Ok(Item::Child(tag)),
                Token::End => return Ok(Item::End),
                Token::Text(text) if is_blank(&text) => continue,
                Token::Text(_) => {
                    return Err(self.fault(format!(
                        "unexpected text in {parent}, which holds only elements"
                    )));
                }
                Token::Eof => {
                    return Err(
                        self.fault(format!("the message ends inside {parent}: it is truncated"))
                    );
                }
            }
        }
    }

    /// The next child element, which must be there.
    fn expect_child(&mut self, parent: &str) -> Decoded<Tag<'i>> {
        match self.next_item(parent)? {
            Item::Child(child) => Ok(child),
            Item::End => Err(self.fault(format!("{parent} ends before its content"))),
        }
    }

    /// Refuses text in an element of elements that the fast lexer read whole, as a
    /// text-only element (quick-xml gives the text as a token, and `next_item` refuses it).
    fn no_text(&self, element: &Tag<'i>) -> Decoded<()> {
        if element.text.as_ref().is_some_and(|text| !is_blank(text)) {
            return Err(self.fault(format!(
                "unexpected text in {}, which holds only elements",
                element.local
            )));
        }
        Ok(())
    }

    /// The next child of a WSTest element, which must be in the WSTest namespace; `None` at the
    /// element's end (at once for an empty element).
    #[inline(always)]
    fn wstest_child(&mut self, parent: &Tag<'i>) -> Decoded<Option<Tag<'i>>> {
        if parent.empty {
            self.no_text(parent)?;
            return Ok(None);
        }
        match self.next_item(&parent.local)? {
            Item::End => Ok(None),
            Item::Child(child) if child.ns == Ns::WsTest => Ok(Some(child)),
            Item::Child(child) => Err(self.fault(format!(
                "{} holds {}: WSTest elements are qualified with {NS_WSTEST}",
                parent.local,
                child.describe()
            ))),
        }
    }

    /// Expects the end of `element`: no more children.
    fn expect_end(&mut self, element: &Tag<'i>) -> Decoded<()> {
        match self.wstest_child(element)? {
            None => Ok(()),
            Some(child) => Err(self.fault(format!(
                "{} holds an unexpected {}",
                element.local,
                child.describe()
            ))),
        }
    }

    /// Skips an element and everything inside it.
    fn skip(&mut self, element: &Tag<'i>) -> Decoded<()> {
        if element.empty {
            return Ok(());
        }
        let mut depth = 1usize;
        while depth > 0 {
            match self.lexer.next_token()? {
                Token::Start(tag) if !tag.empty => {
                    depth += 1;
                    if depth > MAX_SKIPPED_DEPTH {
                        return Err(self.fault(format!(
                            "{} nests deeper than {MAX_SKIPPED_DEPTH} levels, this service's limit",
                            element.local
                        )));
                    }
                }
                Token::End => depth -= 1,
                Token::Eof => return Err(self.fault("the message is truncated")),
                _ => {}
            }
        }
        Ok(())
    }

    /// Reads up to the `Body` start tag: the Envelope, checking its namespace, and an optional
    /// Header.
    fn open_body(&mut self) -> Decoded<()> {
        let envelope = loop {
            match self.lexer.next_token()? {
                Token::Start(tag) => break tag,
                Token::Text(text) if is_blank(&text) => continue,
                Token::Eof => {
                    return Err(DecodeError::Fault(Fault::client(
                        "the message holds no XML: expected a SOAP 1.1 Envelope",
                    )));
                }
                _ => return Err(self.fault("expected a SOAP 1.1 Envelope as the root element")),
            }
        };
        if envelope.local != "Envelope" {
            return Err(self.fault(format!(
                "the root is {}, not a SOAP Envelope",
                envelope.describe()
            )));
        }
        match envelope.ns {
            Ns::Soap11 => {}
            Ns::Soap12 => {
                return Err(DecodeError::Fault(Fault::version_mismatch(format!(
                    "this is a SOAP 1.2 envelope ({NS_SOAP12}); this service speaks SOAP 1.1 ({NS_SOAP11})"
                ))));
            }
            _ => {
                return Err(DecodeError::Fault(Fault::version_mismatch(format!(
                    "the Envelope is not in the SOAP 1.1 namespace {NS_SOAP11}"
                ))));
            }
        }
        if envelope.empty {
            return Err(self.fault("the Envelope is empty: it needs a Body"));
        }
        let mut child = self.expect_child("Envelope")?;
        if child.ns == Ns::Soap11 && child.local == "Header" {
            self.header(&child)?;
            child = self.expect_child("Envelope")?;
        }
        if child.ns != Ns::Soap11 || child.local != "Body" {
            return Err(self.fault(format!(
                "expected the SOAP Body, found {}",
                child.describe()
            )));
        }
        if child.empty {
            return Err(self.fault("the Body is empty: it needs an operation element"));
        }
        Ok(())
    }

    /// Skips the Header, refusing any entry that must be understood (SOAP 1.1 section 4.2.3):
    /// this service understands none.
    fn header(&mut self, header: &Tag<'i>) -> Decoded<()> {
        if header.empty {
            // A Header of text alone was found by the `lexers_agree` fuzz target: the fast
            // lexer read it whole and it was let through, where quick-xml refused the text.
            return self.no_text(header);
        }
        while let Item::Child(entry) = self.next_item("Header")? {
            if entry.must_understand {
                return Err(DecodeError::Fault(Fault {
                    code: FaultCode::MustUnderstand,
                    reason: format!(
                        "header entry {} has mustUnderstand=\"1\", but this service understands no header entries",
                        entry.local
                    ),
                }));
            }
            self.skip(&entry)?;
        }
        Ok(())
    }

    /// Reads what follows the payload element: the ends of Body and Envelope, and of the input.
    fn close_body(&mut self) -> Decoded<()> {
        if let Item::Child(extra) = self.next_item("Body")? {
            return Err(self.fault(format!(
                "the Body holds a second element, {}: a WSTest message has exactly one",
                extra.describe()
            )));
        }
        if let Item::Child(extra) = self.next_item("Envelope")? {
            return Err(self.fault(format!("unexpected {} after the Body", extra.describe())));
        }
        loop {
            match self.lexer.next_token()? {
                Token::Eof => return Ok(()),
                Token::Text(text) if is_blank(&text) => continue,
                _ => return Err(self.fault("unexpected content after the Envelope")),
            }
        }
    }

    /// The text content of a simple element.
    #[inline(always)]
    fn text(&mut self, element: &Tag<'i>) -> Decoded<Cow<'i, str>> {
        if element.empty {
            return Ok(element.text.clone().unwrap_or(Cow::Borrowed("")));
        }
        match self.lexer.next_token()? {
            Token::Text(text) => match self.lexer.next_token()? {
                Token::End => Ok(text),
                _ => Err(self.fault(format!("{} takes text only", element.local))),
            },
            Token::End => Ok(Cow::Borrowed("")),
            Token::Start(_) => Err(self.fault(format!(
                "{} holds an element, but it takes text only",
                element.local
            ))),
            Token::Eof => Err(self.fault("the message is truncated")),
        }
    }

    /// The text of a simple element that is not nillable.
    #[inline(always)]
    fn value(&mut self, element: &Tag<'i>) -> Decoded<Cow<'i, str>> {
        if element.nil {
            return Err(self.fault(format!("{} is not nillable", element.local)));
        }
        self.text(element)
    }

    #[inline(always)]
    fn int(&mut self, element: &Tag<'i>) -> Decoded<i32> {
        let text = self.value(element)?;
        parse_int(&text).ok_or_else(|| self.bad_value(&element.local, &text, "xsd:int"))
    }

    #[inline(always)]
    fn float(&mut self, element: &Tag<'i>) -> Decoded<f32> {
        let text = self.value(element)?;
        parse_float(&text).ok_or_else(|| self.bad_value(&element.local, &text, "xsd:float"))
    }

    fn date_time(&mut self, element: &Tag<'i>) -> Decoded<DateTime> {
        let text = self.value(element)?;
        parse_date_time(&text).ok_or_else(|| self.bad_value(&element.local, &text, "xsd:dateTime"))
    }

    fn bad_value(&self, local: &str, text: &str, type_name: &str) -> DecodeError {
        self.fault(format!(
            "{local} is {:?}, which is not an {type_name}",
            truncated(text)
        ))
    }
}

/// White space only, as between elements.
fn is_blank(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// At most 40 characters of a bad value, for a fault message.
fn truncated(text: &str) -> &str {
    match text.char_indices().nth(40) {
        Some((idx, _)) => &text[..idx],
        None => text,
    }
}
