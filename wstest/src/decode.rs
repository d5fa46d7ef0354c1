//! The streaming decoder: builds the model straight from quick-xml's pull events.
//!
//! Names are compared by namespace URI and local name, never by prefix, so any prefix style
//! (default namespace, `uri:`, `s0:`) reads the same.
//! Nothing here recurses on the input: element nesting is walked with loops, and the one
//! structure that nests without bound, the `TestNode` chain of EchoList, is read into a flat
//! vector under the [`MAX_LIST_NODES`] cap.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::reader::NsReader;

use crate::encode::days_from_civil;
use crate::envelope::{NS_SOAP11, NS_SOAP12, NS_WSTEST};
use crate::fault::{Fault, FaultCode};
use crate::model::{
    Address, Customer, DateTime, GetOrder, LineItem, Order, Synthetic, TestNodes, TestStruct,
};
use crate::operation::{Operation, Request, Response};

/// The most `TestNode`s an EchoList request or response may chain.
///
/// Each node nests one level deeper; past this count the message is refused with a Client fault
/// rather than held in memory.
pub const MAX_LIST_NODES: usize = 100_000;

/// A decoded response: the operation's answer, or the fault the service sent instead.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply<'a> {
    Response(Response<'a>),
    Fault(Fault),
}

/// Decodes a request envelope.
///
/// `soap_action` is the operation the SOAPAction header named, if any: the Body must agree with
/// it. Every problem with the input becomes a Client fault (or VersionMismatch for an envelope
/// that is not SOAP 1.1) that says what was wrong and where.
pub fn decode_request(xml: &[u8], soap_action: Option<Operation>) -> Result<Request<'_>, Fault> {
    let mut decoder = Decoder::new(xml);
    decoder.open_body()?;
    let payload = decoder.expect_child("Body")?;
    if payload.ns != Ns::WsTest {
        return Err(decoder.fault_at(format!(
            "the Body holds {}, which is not a WSTest operation: expected one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder in namespace {NS_WSTEST}",
            payload.describe()
        )));
    }
    let Some(op) = Operation::from_name(payload.local()) else {
        return Err(decoder.fault_at(format!(
            "unknown operation {}: expected one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder",
            payload.local()
        )));
    };
    if let Some(action) = soap_action.filter(|action| *action != op) {
        return Err(Fault::client(format!(
            "the SOAPAction names {action} but the Body holds a {op} request"
        )));
    }
    let request = match op {
        Operation::EchoVoid => {
            decoder.expect_no_children(&payload)?;
            Request::EchoVoid
        }
        Operation::EchoStruct => Request::EchoStruct(decoder.read_struct_array(&payload, "array")?),
        Operation::EchoList => Request::EchoList(decoder.read_list_wrapper(&payload, "list")?),
        Operation::EchoSynthetic => {
            Request::EchoSynthetic(decoder.read_synthetic_wrapper(&payload, "synth")?)
        }
        Operation::GetOrder => Request::GetOrder(decoder.read_get_order(&payload)?),
    };
    decoder.close_body()?;
    Ok(request)
}

/// Decodes a response envelope, as a client reads it.
///
/// A `Fault` in the Body is returned as [`Reply::Fault`]; `Err` means the response itself was
/// malformed.
pub fn decode_response(xml: &[u8]) -> Result<Reply<'_>, Fault> {
    let mut decoder = Decoder::new(xml);
    decoder.open_body()?;
    let payload = decoder.expect_child("Body")?;
    if payload.ns == Ns::Soap11 && payload.local() == "Fault" {
        let fault = decoder.read_fault(&payload)?;
        decoder.close_body()?;
        return Ok(Reply::Fault(fault));
    }
    let op = match payload.ns {
        Ns::WsTest => Operation::from_response_element(payload.local()),
        _ => None,
    };
    let Some(op) = op else {
        return Err(decoder.fault_at(format!(
            "the Body holds {}, which is not a WSTest response",
            payload.describe()
        )));
    };
    let response = match op {
        Operation::EchoVoid => {
            decoder.expect_no_children(&payload)?;
            Response::EchoVoid
        }
        Operation::EchoStruct => {
            Response::EchoStruct(decoder.read_struct_array(&payload, "EchoStructResult")?)
        }
        Operation::EchoList => {
            Response::EchoList(decoder.read_list_wrapper(&payload, "EchoListResult")?)
        }
        Operation::EchoSynthetic => Response::EchoSynthetic(
            decoder.read_synthetic_wrapper(&payload, "EchoSyntheticResult")?,
        ),
        Operation::GetOrder => Response::GetOrder(decoder.read_order_wrapper(&payload)?),
    };
    decoder.close_body()?;
    Ok(Reply::Response(response))
}

/// The namespaces the decoder tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ns {
    Soap11,
    Soap12,
    WsTest,
    None,
    Other,
}

/// A start tag, with what the decoder needs to know of it resolved while it was read.
struct Element<'i> {
    start: BytesStart<'i>,
    ns: Ns,
    /// `<x/>`: there will be no End event.
    empty: bool,
    /// `xsi:nil="true"` (or `"1"`).
    nil: bool,
}

impl Element<'_> {
    fn local(&self) -> &str {
        let name = self.start.name().0;
        name.rsplit_once(':').map_or(name, |(_, local)| local)
    }

    fn describe(&self) -> String {
        match self.ns {
            Ns::WsTest => format!("element {}", self.local()),
            Ns::None => format!("element {} (in no namespace)", self.local()),
            _ => format!("element {} (in another namespace)", self.start.name().0),
        }
    }
}

/// One content item inside an element.
enum Item<'i> {
    Child(Element<'i>),
    End,
}

struct Decoder<'i> {
    reader: NsReader<&'i [u8]>,
}

impl<'i> Decoder<'i> {
    fn new(xml: &'i [u8]) -> Decoder<'i> {
        let mut reader = NsReader::from_reader(xml);
        let config = reader.config_mut();
        config.check_end_names = true;
        config.check_comments = true;
        Decoder { reader }
    }

    /// A Client fault that names the byte offset the reader has reached.
    fn fault_at(&self, what: impl std::fmt::Display) -> Fault {
        Fault::client(format!("{what} (at byte {})", self.reader.buffer_position()))
    }

    fn xml_error(&self, error: quick_xml::Error) -> Fault {
        let at = self.reader.error_position();
        match error {
            quick_xml::Error::Encoding(_) => {
                Fault::client(format!("the request is not valid UTF-8 (at byte {at})"))
            }
            other => Fault::client(format!("malformed XML: {other} (at byte {at})")),
        }
    }

    /// Reads the next event that matters: skips comments, processing instructions and the XML
    /// declaration, refuses DTDs, and hands text and entity references to the caller.
    fn next_event(&mut self) -> Result<(Ns, Event<'i>), Fault> {
        loop {
            let (ns, event) = match self.reader.read_resolved_event() {
                Ok((resolved, event)) => (classify(resolved), event),
                Err(error) => return Err(self.xml_error(error)),
            };
            let ns = match ns {
                Ok(ns) => ns,
                Err(prefix) => {
                    return Err(self.fault_at(format!(
                        "namespace prefix {prefix:?} is used but never declared"
                    )));
                }
            };
            match event {
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) => continue,
                Event::DocType(_) => {
                    return Err(self.fault_at(
                        "a DOCTYPE declaration is not allowed in a SOAP message (SOAP 1.1 section 3)",
                    ));
                }
                event => return Ok((ns, event)),
            }
        }
    }

    fn element(&self, ns: Ns, start: BytesStart<'i>, empty: bool) -> Element<'i> {
        // Most elements carry no attributes, so look for xsi:nil only where there are some.
        let nil = !start.attributes_raw().trim_ascii().is_empty()
            && start.attributes().has_nil(self.reader.resolver());
        Element { start, ns, empty, nil }
    }

    /// The next child of the current element, or `End` when the element closes.
    /// Whitespace between elements is skipped; other text is an error.
    fn next_item(&mut self, parent: &str) -> Result<Item<'i>, Fault> {
        loop {
            match self.next_event()? {
                (ns, Event::Start(start)) => return Ok(Item::Child(self.element(ns, start, false))),
                (ns, Event::Empty(start)) => return Ok(Item::Child(self.element(ns, start, true))),
                (_, Event::End(_)) => return Ok(Item::End),
                (_, Event::Text(text)) if text.trim_ascii().is_empty() => continue,
                (_, Event::Text(_) | Event::CData(_) | Event::GeneralRef(_)) => {
                    return Err(self.fault_at(format!(
                        "unexpected text in {parent}, which holds only elements"
                    )));
                }
                (_, Event::Eof) => {
                    return Err(self.fault_at(format!(
                        "the message ends inside {parent}: it is truncated"
                    )));
                }
                (_, _) => continue,
            }
        }
    }

    /// Reads up to the `Body` start tag: the Envelope (checking its namespace) and an optional
    /// Header.
    fn open_body(&mut self) -> Result<(), Fault> {
        let envelope = loop {
            match self.next_event()? {
                (ns, Event::Start(start)) => break self.element(ns, start, false),
                (ns, Event::Empty(start)) => break self.element(ns, start, true),
                (_, Event::Text(text)) if text.trim_ascii().is_empty() => continue,
                (_, Event::Eof) => {
                    return Err(Fault::client(
                        "the request holds no XML: expected a SOAP 1.1 Envelope",
                    ));
                }
                (_, _) => {
                    return Err(self.fault_at("expected a SOAP 1.1 Envelope as the root element"));
                }
            }
        };
        if envelope.local() != "Envelope" {
            return Err(self.fault_at(format!(
                "the root is {}, not a SOAP Envelope",
                envelope.describe()
            )));
        }
        match envelope.ns {
            Ns::Soap11 => {}
            Ns::Soap12 => {
                return Err(Fault::version_mismatch(format!(
                    "this is a SOAP 1.2 envelope ({NS_SOAP12}); this service speaks SOAP 1.1 ({NS_SOAP11})"
                )));
            }
            _ => {
                return Err(Fault::version_mismatch(format!(
                    "the Envelope is not in the SOAP 1.1 namespace {NS_SOAP11}"
                )));
            }
        }
        if envelope.empty {
            return Err(self.fault_at("the Envelope is empty: it needs a Body"));
        }
        let mut child = self.expect_child("Envelope")?;
        if child.ns == Ns::Soap11 && child.local() == "Header" {
            self.check_header(&child)?;
            child = self.expect_child("Envelope")?;
        }
        if child.ns != Ns::Soap11 || child.local() != "Body" {
            return Err(self.fault_at(format!(
                "expected the SOAP Body, found {}",
                child.describe()
            )));
        }
        if child.empty {
            return Err(self.fault_at("the Body is empty: it needs an operation element"));
        }
        Ok(())
    }

    /// Skips the Header, refusing any entry that demands to be understood (SOAP 1.1 section 4.2.3):
    /// this service understands none.
    fn check_header(&mut self, header: &Element<'i>) -> Result<(), Fault> {
        if header.empty {
            return Ok(());
        }
        while let Item::Child(entry) = self.next_item("Header")? {
            let must_understand = entry.start.attributes().flatten().any(|attr| {
                let (ns, local) = self.reader.resolver().resolve_attribute(attr.key);
                matches!(ns, ResolveResult::Bound(ns) if ns.into_inner() == NS_SOAP11)
                    && local.as_ref() == "mustUnderstand"
                    && attr.value.as_ref().trim_ascii() == "1"
            });
            if must_understand {
                return Err(Fault {
                    code: FaultCode::MustUnderstand,
                    reason: format!(
                        "header entry {} has mustUnderstand=\"1\", but this service understands no header entries",
                        entry.start.name().0
                    ),
                });
            }
            self.skip(&entry)?;
        }
        Ok(())
    }

    /// Reads what follows the payload element: the end of Body, of Envelope, and of the input.
    fn close_body(&mut self) -> Result<(), Fault> {
        if let Item::Child(extra) = self.next_item("Body")? {
            return Err(self.fault_at(format!(
                "the Body holds a second element, {}: a WSTest request has exactly one",
                extra.describe()
            )));
        }
        if let Item::Child(extra) = self.next_item("Envelope")? {
            return Err(self.fault_at(format!(
                "unexpected {} after the Body",
                extra.describe()
            )));
        }
        loop {
            match self.next_event()? {
                (_, Event::Eof) => return Ok(()),
                (_, Event::Text(text)) if text.trim_ascii().is_empty() => continue,
                (_, _) => return Err(self.fault_at("unexpected content after the Envelope")),
            }
        }
    }

    /// The next child element, which must exist.
    fn expect_child(&mut self, parent: &str) -> Result<Element<'i>, Fault> {
        match self.next_item(parent)? {
            Item::Child(child) => Ok(child),
            Item::End => Err(self.fault_at(format!("{parent} ends before its content"))),
        }
    }

    /// Skips an element and everything inside it.
    fn skip(&mut self, element: &Element<'i>) -> Result<(), Fault> {
        if element.empty {
            return Ok(());
        }
        let mut depth = 1usize;
        while depth > 0 {
            match self.next_event()? {
                (_, Event::Start(_)) => depth += 1,
                (_, Event::End(_)) => depth -= 1,
                (_, Event::Eof) => return Err(self.fault_at("the message is truncated")),
                _ => {}
            }
        }
        Ok(())
    }

    fn expect_no_children(&mut self, element: &Element<'i>) -> Result<(), Fault> {
        if element.empty {
            return Ok(());
        }
        match self.next_item(element.local())? {
            Item::End => Ok(()),
            Item::Child(child) => Err(self.fault_at(format!(
                "{} takes no parameters, but holds {}",
                element.local(),
                child.describe()
            ))),
        }
    }

    /// The next child of a WSTest element, which must be in the WSTest namespace.
    fn next_wstest_child(&mut self, parent: &str) -> Result<Option<Element<'i>>, Fault> {
        match self.next_item(parent)? {
            Item::End => Ok(None),
            Item::Child(child) if child.ns == Ns::WsTest => Ok(Some(child)),
            Item::Child(child) => Err(self.fault_at(format!(
                "{parent} holds {}: WSTest elements are qualified with {NS_WSTEST}",
                child.describe()
            ))),
        }
    }

    /// Reads the text content of a simple element, joining text split by entity and character
    /// references.
    fn read_text(&mut self, element: &Element<'i>) -> Result<Cow<'i, str>, Fault> {
        if element.empty {
            return Ok(Cow::Borrowed(""));
        }
        let mut text: Cow<'i, str> = Cow::Borrowed("");
        loop {
            match self.next_event()? {
                (_, Event::Text(chunk)) => append(&mut text, chunk.xml10_content()),
                (_, Event::CData(chunk)) => append(&mut text, chunk.xml10_content()),
                (_, Event::GeneralRef(reference)) => {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(ch)) => ch,
                        Ok(None) => {
                            let name = reference.xml10_content();
                            let Some(value) = quick_xml::escape::resolve_predefined_entity(&name)
                            else {
                                return Err(self.fault_at(format!(
                                    "unknown entity &{name}; in {}: only the five XML entities are allowed",
                                    element.local()
                                )));
                            };
                            value.chars().next().unwrap_or_default()
                        }
                        Err(error) => {
                            return Err(self.fault_at(format!(
                                "bad character reference in {}: {error}",
                                element.local()
                            )));
                        }
                    };
                    if !is_xml_char(resolved) {
                        return Err(self.fault_at(format!(
                            "character reference to U+{:04X} in {}: not allowed in XML 1.0",
                            u32::from(resolved),
                            element.local()
                        )));
                    }
                    text.to_mut().push(resolved);
                }
                (_, Event::End(_)) => break,
                (_, Event::Start(_) | Event::Empty(_)) => {
                    return Err(self.fault_at(format!(
                        "{} holds an element, but it takes text only",
                        element.local()
                    )));
                }
                (_, Event::Eof) => return Err(self.fault_at("the message is truncated")),
                (_, _) => {}
            }
        }
        if let Some(bad) = text.chars().find(|&ch| !is_xml_char(ch)) {
            return Err(self.fault_at(format!(
                "{} holds U+{:04X}, which XML 1.0 does not allow",
                element.local(),
                u32::from(bad)
            )));
        }
        Ok(text)
    }

    /// Reads the text of a simple element that must not be nil.
    fn read_value(&mut self, element: &Element<'i>) -> Result<Cow<'i, str>, Fault> {
        if element.nil {
            return Err(self.fault_at(format!("{} is not nillable", element.local())));
        }
        self.read_text(element)
    }

    fn read_int(&mut self, element: &Element<'i>) -> Result<i32, Fault> {
        let text = self.read_value(element)?;
        parse_int(&text).ok_or_else(|| {
            self.fault_at(format!(
                "{} is {:?}, which is not an xsd:int",
                element.local(),
                truncated(&text)
            ))
        })
    }

    fn read_float(&mut self, element: &Element<'i>) -> Result<f32, Fault> {
        let text = self.read_value(element)?;
        parse_float(&text).ok_or_else(|| {
            self.fault_at(format!(
                "{} is {:?}, which is not an xsd:float",
                element.local(),
                truncated(&text)
            ))
        })
    }

    fn read_date_time(&mut self, element: &Element<'i>) -> Result<DateTime, Fault> {
        let text = self.read_value(element)?;
        parse_date_time(&text).ok_or_else(|| {
            self.fault_at(format!(
                "{} is {:?}, which is not an xsd:dateTime",
                element.local(),
                truncated(&text)
            ))
        })
    }

    /// Reads the children of a TestStruct-like element into `item`, stopping at its end or at a
    /// `Next` child, which it returns.
    fn read_struct_fields(
        &mut self,
        element: &Element<'i>,
        item: &mut TestStruct<'i>,
    ) -> Result<Option<Element<'i>>, Fault> {
        let owner = element.local();
        let mut seen = [false; 3];
        let mut next = None;
        if !element.empty {
            while let Some(child) = self.next_wstest_child(owner)? {
                let slot = match child.local() {
                    "i" => 0,
                    "f" => 1,
                    "s" => 2,
                    "Next" => {
                        next = Some(child);
                        break;
                    }
                    other => {
                        return Err(self.fault_at(format!(
                            "{owner} holds an unexpected element {other}: a TestStruct holds i, f and s"
                        )));
                    }
                };
                if std::mem::replace(&mut seen[slot], true) {
                    return Err(self.fault_at(format!(
                        "{owner} holds {} twice",
                        child.local()
                    )));
                }
                match slot {
                    0 => item.i = self.read_int(&child)?,
                    1 => item.f = self.read_nillable(&child, Self::read_float)?,
                    _ => {
                        item.s = if child.nil {
                            self.skip(&child)?;
                            None
                        } else {
                            Some(self.read_text(&child)?)
                        };
                    }
                }
            }
        }
        if let Some(missing) = ["i", "f", "s"].iter().zip(seen).find(|(_, seen)| !seen) {
            return Err(self.fault_at(format!(
                "{owner} is missing its required element {}",
                missing.0
            )));
        }
        Ok(next)
    }

    fn read_nillable<T>(
        &mut self,
        element: &Element<'i>,
        read: fn(&mut Self, &Element<'i>) -> Result<T, Fault>,
    ) -> Result<Option<T>, Fault> {
        if element.nil {
            self.skip(element)?;
            Ok(None)
        } else {
            read(self, element).map(Some)
        }
    }

    fn read_struct(&mut self, element: &Element<'i>) -> Result<TestStruct<'i>, Fault> {
        let mut item = TestStruct::default();
        if let Some(next) = self.read_struct_fields(element, &mut item)? {
            return Err(self.fault_at(format!(
                "{} holds {}: only a TestNode has Next",
                element.local(),
                next.describe()
            )));
        }
        Ok(item)
    }

    /// Reads the single child `name` of an operation element, which must be present.
    fn expect_param(&mut self, payload: &Element<'i>, name: &str) -> Result<Element<'i>, Fault> {
        let found = if payload.empty { None } else { self.next_wstest_child(payload.local())? };
        match found {
            Some(child) if child.local() == name => Ok(child),
            Some(child) => Err(self.fault_at(format!(
                "{} holds {}, expected {name}",
                payload.local(),
                child.describe()
            ))),
            None => Err(self.fault_at(format!("{} is missing {name}", payload.local()))),
        }
    }

    /// Reads the optional single child `name` of an operation element, and the operation
    /// element's end.
    fn optional_param(
        &mut self,
        payload: &Element<'i>,
        name: &str,
    ) -> Result<Option<Element<'i>>, Fault> {
        if payload.empty {
            return Ok(None);
        }
        match self.next_wstest_child(payload.local())? {
            None => Ok(None),
            Some(child) if child.local() == name => Ok(Some(child)),
            Some(child) => Err(self.fault_at(format!(
                "{} holds {}, expected {name}",
                payload.local(),
                child.describe()
            ))),
        }
    }

    fn close_payload(&mut self, payload: &Element<'i>) -> Result<(), Fault> {
        if payload.empty {
            return Ok(());
        }
        match self.next_item(payload.local())? {
            Item::End => Ok(()),
            Item::Child(child) => Err(self.fault_at(format!(
                "{} holds an unexpected {}",
                payload.local(),
                child.describe()
            ))),
        }
    }

    /// `EchoStruct/array` or `EchoStructResponse/EchoStructResult`: one or more `l`.
    fn read_struct_array(
        &mut self,
        payload: &Element<'i>,
        name: &str,
    ) -> Result<Vec<TestStruct<'i>>, Fault> {
        let array = self.expect_param(payload, name)?;
        if array.nil {
            return Err(self.fault_at(format!("{name} is not nillable")));
        }
        let mut items = Vec::new();
        if !array.empty {
            while let Some(child) = self.next_wstest_child(name)? {
                if child.local() != "l" {
                    return Err(self.fault_at(format!(
                        "{name} holds {}, expected l",
                        child.describe()
                    )));
                }
                items.push(self.read_struct(&child)?);
            }
        }
        if items.is_empty() {
            return Err(self.fault_at(format!("{name} must hold at least one l")));
        }
        self.close_payload(payload)?;
        Ok(items)
    }

    /// `EchoList/list` or `EchoListResponse/EchoListResult`: an optional TestNode chain.
    ///
    /// Each `Next` must be the last child of its node. The chain is read with a loop: descend
    /// into every `Next`, then expect one end tag per level.
    fn read_list_wrapper(
        &mut self,
        payload: &Element<'i>,
        name: &str,
    ) -> Result<TestNodes<'i>, Fault> {
        let Some(mut node) = self.optional_param(payload, name)? else {
            return Ok(Vec::new());
        };
        let mut nodes = Vec::new();
        loop {
            if node.nil {
                return Err(self.fault_at(format!("{} is not nillable", node.local())));
            }
            let mut item = TestStruct::default();
            let next = self.read_struct_fields(&node, &mut item)?;
            nodes.push(item);
            match next {
                Some(next) => {
                    if nodes.len() >= MAX_LIST_NODES {
                        return Err(self.fault_at(format!(
                            "the list is longer than {MAX_LIST_NODES} nodes, this service's limit"
                        )));
                    }
                    node = next;
                }
                None => break,
            }
        }
        // The innermost node has closed; every enclosing node must close right after its Next.
        for _ in 1..nodes.len() {
            if let Item::Child(child) = self.next_item("TestNode")? {
                return Err(self.fault_at(format!(
                    "{} follows Next: Next must be the last child of a TestNode",
                    child.describe()
                )));
            }
        }
        self.close_payload(payload)?;
        Ok(nodes)
    }

    /// `EchoSynthetic/synth` or `EchoSyntheticResponse/EchoSyntheticResult`.
    fn read_synthetic_wrapper(
        &mut self,
        payload: &Element<'i>,
        name: &str,
    ) -> Result<Option<Synthetic<'i>>, Fault> {
        let Some(element) = self.optional_param(payload, name)? else {
            return Ok(None);
        };
        if element.nil {
            return Err(self.fault_at(format!("{name} is not nillable")));
        }
        let mut synth = Synthetic::default();
        if !element.empty {
            let mut rank = 0;
            while let Some(child) = self.next_wstest_child(name)? {
                let child_rank = match child.local() {
                    "Strng" => 1,
                    "Strct" => 2,
                    "Barray" => 3,
                    other => {
                        return Err(self.fault_at(format!(
                            "{name} holds an unexpected element {other}: a Synthetic holds Strng, Strct and Barray"
                        )));
                    }
                };
                if child_rank <= rank {
                    return Err(self.fault_at(format!(
                        "{name} holds {} out of order or twice: the order is Strng, Strct, Barray",
                        child.local()
                    )));
                }
                rank = child_rank;
                match child_rank {
                    1 => synth.strng = Some(self.read_value(&child)?),
                    2 => {
                        if child.nil {
                            return Err(self.fault_at("Strct is not nillable"));
                        }
                        synth.strct = Some(self.read_struct(&child)?);
                    }
                    _ => {
                        let text = self.read_value(&child)?;
                        let bytes = decode_base64(&text).ok_or_else(|| {
                            self.fault_at("Barray is not valid xsd:base64Binary")
                        })?;
                        synth.barray = Some(bytes);
                    }
                }
            }
        }
        self.close_payload(payload)?;
        Ok(Some(synth))
    }

    fn read_get_order(&mut self, payload: &Element<'i>) -> Result<GetOrder, Fault> {
        let mut params = GetOrder::default();
        let names = ["orderId", "customerId", "messageSize"];
        let mut seen = [false; 3];
        if !payload.empty {
            while let Some(child) = self.next_wstest_child("GetOrder")? {
                let Some(slot) = names.iter().position(|name| *name == child.local()) else {
                    return Err(self.fault_at(format!(
                        "GetOrder holds an unexpected element {}: it takes orderId, customerId and messageSize",
                        child.local()
                    )));
                };
                if std::mem::replace(&mut seen[slot], true) {
                    return Err(self.fault_at(format!("GetOrder holds {} twice", names[slot])));
                }
                let value = self.read_int(&child)?;
                match slot {
                    0 => params.order_id = value,
                    1 => params.customer_id = value,
                    _ => params.message_size = value,
                }
            }
        }
        if let Some((name, _)) = names.iter().zip(seen).find(|(_, seen)| !seen) {
            return Err(self.fault_at(format!("GetOrder is missing its required element {name}")));
        }
        params.validate()?;
        Ok(params)
    }

    fn read_fault(&mut self, element: &Element<'i>) -> Result<Fault, Fault> {
        let mut code = None;
        let mut reason = String::new();
        if !element.empty {
            while let Item::Child(child) = self.next_item("Fault")? {
                match child.local() {
                    "faultcode" => {
                        let text = self.read_text(&child)?;
                        let local = text.trim().rsplit(':').next().unwrap_or_default();
                        code = FaultCode::from_local_name(local.split('.').next().unwrap_or(""));
                    }
                    "faultstring" => reason = self.read_text(&child)?.into_owned(),
                    _ => self.skip(&child)?,
                }
            }
        }
        let code = code.ok_or_else(|| self.fault_at("the Fault has no known faultcode"))?;
        Ok(Fault { code, reason })
    }

    fn read_order_wrapper(&mut self, payload: &Element<'i>) -> Result<Order<'i>, Fault> {
        let element = self.expect_param(payload, "GetOrderResult")?;
        let order = self.read_order(&element)?;
        self.close_payload(payload)?;
        Ok(order)
    }

    /// Reads the children of `element` in schema order, calling `read` with each one's index in
    /// `names`; every name must appear exactly once, in order.
    fn read_sequence(
        &mut self,
        element: &Element<'i>,
        names: &[&str],
        mut read: impl FnMut(&mut Self, usize, &Element<'i>) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        let owner = element.local();
        if element.nil {
            return Err(self.fault_at(format!("{owner} is not nillable")));
        }
        for (idx, name) in names.iter().enumerate() {
            let child = if element.empty { None } else { self.next_wstest_child(owner)? };
            match child {
                Some(child) if child.local() == *name => read(self, idx, &child)?,
                Some(child) => {
                    return Err(self.fault_at(format!(
                        "{owner} holds {} where {name} was expected",
                        child.describe()
                    )));
                }
                None => return Err(self.fault_at(format!("{owner} is missing {name}"))),
            }
        }
        if !element.empty
            && let Some(child) = self.next_wstest_child(owner)?
        {
            return Err(self.fault_at(format!(
                "{owner} holds an unexpected {}",
                child.describe()
            )));
        }
        Ok(())
    }

    fn read_order(&mut self, element: &Element<'i>) -> Result<Order<'i>, Fault> {
        const NAMES: [&str; 6] =
            ["OrderId", "OrderStatus", "OrderDate", "OrderTotalAmount", "Customer", "LineItems"];
        let mut order = Order::default();
        self.read_sequence(element, &NAMES, |this, idx, child| {
            match idx {
                0 => order.order_id = this.read_int(child)?,
                1 => order.order_status = this.read_int(child)?,
                2 => order.order_date = this.read_date_time(child)?,
                3 => order.order_total_amount = this.read_float(child)?,
                4 => order.customer = this.read_customer(child)?,
                _ => order.line_items = this.read_line_items(child)?,
            }
            Ok(())
        })?;
        Ok(order)
    }

    fn read_customer(&mut self, element: &Element<'i>) -> Result<Customer<'i>, Fault> {
        const NAMES: [&str; 9] = [
            "CustomerId",
            "ContactFirstName",
            "ContactLastName",
            "ContactPhone",
            "LastActivityDate",
            "CreditCardNumber",
            "CreditCardExpirationDate",
            "BillingAddress",
            "ShippingAddress",
        ];
        let mut customer = Customer::default();
        self.read_sequence(element, &NAMES, |this, idx, child| {
            match idx {
                0 => customer.customer_id = this.read_int(child)?,
                1 => customer.contact_first_name = this.read_value(child)?,
                2 => customer.contact_last_name = this.read_value(child)?,
                3 => customer.contact_phone = this.read_value(child)?,
                4 => customer.last_activity_date = this.read_date_time(child)?,
                5 => customer.credit_card_number = this.read_value(child)?,
                6 => customer.credit_card_expiration_date = this.read_value(child)?,
                7 => customer.billing_address = this.read_address(child)?,
                _ => customer.shipping_address = this.read_address(child)?,
            }
            Ok(())
        })?;
        Ok(customer)
    }

    fn read_address(&mut self, element: &Element<'i>) -> Result<Address<'i>, Fault> {
        const NAMES: [&str; 7] =
            ["FirstName", "LastName", "Address1", "Address2", "City", "State", "Zip"];
        let mut address = Address::default();
        self.read_sequence(element, &NAMES, |this, idx, child| {
            let value = this.read_value(child)?;
            match idx {
                0 => address.first_name = value,
                1 => address.last_name = value,
                2 => address.address1 = value,
                3 => address.address2 = value,
                4 => address.city = value,
                5 => address.state = value,
                _ => address.zip = value,
            }
            Ok(())
        })?;
        Ok(address)
    }

    fn read_line_items(
        &mut self,
        element: &Element<'i>,
    ) -> Result<Vec<Option<LineItem<'i>>>, Fault> {
        const NAMES: [&str; 6] = [
            "OrderId",
            "ItemId",
            "ProductId",
            "ProductDescription",
            "OrderQuantity",
            "UnitPrice",
        ];
        if element.nil {
            return Err(self.fault_at("LineItems is not nillable"));
        }
        let mut items = Vec::new();
        if element.empty {
            return Ok(items);
        }
        while let Some(child) = self.next_wstest_child("LineItems")? {
            if child.local() != "LineItem" {
                return Err(self.fault_at(format!(
                    "LineItems holds {}, expected LineItem",
                    child.describe()
                )));
            }
            if child.nil {
                self.skip(&child)?;
                items.push(None);
                continue;
            }
            let mut item = LineItem::default();
            self.read_sequence(&child, &NAMES, |this, idx, field| {
                match idx {
                    0 => item.order_id = this.read_int(field)?,
                    1 => item.item_id = this.read_int(field)?,
                    2 => item.product_id = this.read_int(field)?,
                    3 => item.product_description = this.read_value(field)?,
                    4 => item.order_quantity = this.read_int(field)?,
                    _ => item.unit_price = this.read_float(field)?,
                }
                Ok(())
            })?;
            items.push(Some(item));
        }
        Ok(items)
    }
}

/// Sorts a resolved namespace into the ones the decoder tells apart; an undeclared prefix is
/// returned as the error.
fn classify(resolved: ResolveResult<'_>) -> Result<Ns, String> {
    match resolved {
        ResolveResult::Bound(ns) => Ok(match ns.into_inner() {
            NS_WSTEST => Ns::WsTest,
            NS_SOAP11 => Ns::Soap11,
            NS_SOAP12 => Ns::Soap12,
            _ => Ns::Other,
        }),
        ResolveResult::Unbound => Ok(Ns::None),
        ResolveResult::Unknown(prefix) => Err(prefix),
    }
}

fn append<'i>(text: &mut Cow<'i, str>, chunk: Cow<'i, str>) {
    if text.is_empty() {
        *text = chunk;
    } else {
        text.to_mut().push_str(&chunk);
    }
}

/// The characters XML 1.0 allows in a document.
fn is_xml_char(ch: char) -> bool {
    matches!(ch, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// At most 40 characters of a bad value, for a fault message.
fn truncated(text: &str) -> &str {
    match text.char_indices().nth(40) {
        Some((idx, _)) => &text[..idx],
        None => text,
    }
}

/// Parses xsd:int: optional sign, digits, surrounding whitespace allowed (xsd collapses it).
pub(crate) fn parse_int(text: &str) -> Option<i32> {
    text.trim_matches(is_xml_space).parse().ok()
}

/// Parses xsd:float: decimal and exponent forms, `INF`, `-INF`, `+INF` and `NaN`, exactly as
/// xsd spells them (Rust would also take `inf` and `infinity`, which xsd does not).
pub(crate) fn parse_float(text: &str) -> Option<f32> {
    let text = text.trim_matches(is_xml_space);
    match text {
        "INF" | "+INF" => return Some(f32::INFINITY),
        "-INF" => return Some(f32::NEG_INFINITY),
        "NaN" => return Some(f32::NAN),
        _ => {}
    }
    let valid = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        && text.bytes().any(|b| b.is_ascii_digit());
    if valid { text.parse().ok() } else { None }
}

/// Parses xsd:dateTime: `YYYY-MM-DDThh:mm:ss[.fff…][Z|±hh:mm]`; without a zone it is read as UTC.
pub(crate) fn parse_date_time(text: &str) -> Option<DateTime> {
    let text = text.trim_matches(is_xml_space);
    let (date, time) = text.split_once('T')?;
    let (year, rest) = date.split_at_checked(date.len().checked_sub(6)?)?;
    let year: i64 = if year.len() >= 4 && year.bytes().all(|b| b.is_ascii_digit()) {
        year.parse().ok()?
    } else {
        return None;
    };
    let month = two_digits(rest.strip_prefix('-')?.get(..2)?)?;
    let day = two_digits(rest.get(4..6)?)?;
    if rest.get(3..4)? != "-" || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let hour = two_digits(time.get(0..2)?)?;
    let minute = two_digits(time.get(3..5)?)?;
    let second = two_digits(time.get(6..8)?)?;
    if time.get(2..3)? != ":" || time.get(5..6)? != ":" || hour > 24 || minute > 59 || second > 60
    {
        return None;
    }
    let mut rest = &time[8..];
    let mut millis = 0i64;
    if let Some(fraction) = rest.strip_prefix('.') {
        let n_digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if n_digits == 0 {
            return None;
        }
        for (idx, digit) in fraction.bytes().take(3).take_while(u8::is_ascii_digit).enumerate() {
            millis += i64::from(digit - b'0') * 10i64.pow(2 - idx as u32);
        }
        rest = &fraction[n_digits..];
    }
    let offset_minutes = match rest {
        "" | "Z" => 0,
        zone => {
            let sign = match zone.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            if zone.len() != 6 || zone.get(3..4)? != ":" {
                return None;
            }
            sign * i64::from(two_digits(&zone[1..3])? * 60 + two_digits(&zone[4..6])?)
        }
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second) - offset_minutes * 60;
    Some(DateTime { unix_millis: secs * 1000 + millis })
}

fn two_digits(text: &str) -> Option<u32> {
    let bytes = text.as_bytes();
    if bytes.len() == 2 && bytes.iter().all(u8::is_ascii_digit) {
        Some(u32::from(bytes[0] - b'0') * 10 + u32::from(bytes[1] - b'0'))
    } else {
        None
    }
}

fn is_xml_space(ch: char) -> bool {
    matches!(ch, ' ' | '\t' | '\n' | '\r')
}

/// Decodes xsd:base64Binary, allowing the line breaks and spaces that clients wrap it with.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    if text.bytes().any(|b| b.is_ascii_whitespace()) {
        let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        BASE64.decode(compact).ok()
    } else {
        BASE64.decode(text).ok()
    }
}
