//! What serde cannot say about an envelope, checked with quick-xml's namespace-aware reader
//! before the message is deserialized: that the envelope is SOAP 1.1 (VersionMismatch if not),
//! that no header entry demands to be understood (MustUnderstand), and that the Body's element
//! is in the WSTest namespace. It reads only as far as that element. It also says whether the
//! prefixes are ours (`soap` for the envelope, none for WSTest), which serde-xml-rs needs, and
//! [`canonicalize`] rewrites a message that has others.

use quick_xml::NsReader;
use quick_xml::events::{BytesEnd, BytesStart, Event};
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::writer::Writer;
use wstest::envelope::{NS_SOAP11, NS_SOAP12, NS_WSTEST, NS_XSI};
use wstest::fault::{Fault, FaultCode};
use wstest::operation::Operation;
use wstest::xsd;

/// What the caller decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expect {
    /// A request, with the operation its SOAPAction named, if any.
    Request(Option<Operation>),
    Response,
}

/// What the check found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Checked {
    /// The envelope and Body are `soap:` and the Body's element has no prefix.
    pub canonical: bool,
}

fn malformed(error: impl std::fmt::Display) -> Fault {
    Fault::client(format!("malformed XML: {error}"))
}

/// Checks the envelope of `xml` as far as the Body's element, and that the message ends with
/// the Envelope's end tag (neither library looks past the root element's end).
pub(crate) fn check(xml: &[u8], expect: Expect) -> Result<Checked, Fault> {
    let end = xml.trim_ascii_end();
    let last_tag = memchr::memrchr(b'<', end).map_or(&[][..], |at| &end[at..]);
    if !(last_tag.starts_with(b"</") && last_tag.ends_with(b"Envelope>")) {
        return Err(Fault::client(
            "the message does not end with the Envelope's end tag",
        ));
    }
    let mut reader = NsReader::from_reader(xml);
    let mut depth = 0usize;
    let mut canonical = true;
    let mut in_header = false;
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(malformed)?;
        let ns = match ns {
            ResolveResult::Bound(Namespace(ns)) => Some(ns),
            _ => None,
        };
        let empty = matches!(event, Event::Empty(_));
        match event {
            Event::Start(start) | Event::Empty(start) => {
                let name = start.name();
                let prefix = name.prefix().map(|p| p.into_inner());
                let local = name.local_name();
                match depth {
                    0 => {
                        if local.as_ref() != "Envelope" {
                            return Err(Fault::client(format!(
                                "the root is {}, not a SOAP Envelope",
                                local.as_ref()
                            )));
                        }
                        if ns != Some(NS_SOAP11) {
                            return Err(Fault {
                                code: FaultCode::VersionMismatch,
                                reason: if ns == Some(NS_SOAP12) {
                                    "the envelope is SOAP 1.2; this service speaks SOAP 1.1"
                                        .to_owned()
                                } else {
                                    format!(
                                        "the Envelope is not in the SOAP 1.1 namespace {NS_SOAP11}"
                                    )
                                },
                            });
                        }
                        canonical &= prefix == Some("soap");
                    }
                    1 if ns == Some(NS_SOAP11) && local.as_ref() == "Header" => {
                        in_header = true;
                    }
                    1 if ns == Some(NS_SOAP11) && local.as_ref() == "Body" => {
                        canonical &= prefix == Some("soap");
                    }
                    2 if in_header => {
                        for attribute in start.attributes().flatten() {
                            let (attribute_ns, attribute_local) =
                                reader.resolver().resolve_attribute(attribute.key);
                            if attribute_local.as_ref() == "mustUnderstand"
                                && matches!(attribute_ns, ResolveResult::Bound(Namespace(n)) if n == NS_SOAP11)
                                && xsd::parse_boolean(&attribute.value) == Some(true)
                            {
                                return Err(Fault {
                                    code: FaultCode::MustUnderstand,
                                    reason: format!(
                                        "header entry {} must be understood, and this service understands no header entries",
                                        local.as_ref()
                                    ),
                                });
                            }
                        }
                    }
                    2 => {
                        let fault = ns == Some(NS_SOAP11) && local.as_ref() == "Fault";
                        if !fault && ns != Some(NS_WSTEST) {
                            return Err(Fault::client(format!(
                                "the Body's element {} is not in the WSTest namespace {NS_WSTEST}",
                                local.as_ref()
                            )));
                        }
                        if matches!(expect, Expect::Request(_)) && fault {
                            return Err(Fault::client("the Body holds a Fault, not a request"));
                        }
                        canonical &= if fault {
                            prefix == Some("soap")
                        } else {
                            prefix.is_none()
                        };
                        return Ok(Checked { canonical });
                    }
                    _ => {}
                }
                if !empty {
                    depth += 1;
                } else if depth == 1 {
                    in_header = false;
                }
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    in_header = false;
                }
            }
            Event::Eof => return Err(Fault::client("the envelope has no Body element")),
            // SOAP 1.1 (section 3) forbids a DTD, and xml-rs would expand its entities.
            Event::DocType(_) => {
                return Err(Fault::client("a SOAP message must not hold a DOCTYPE"));
            }
            _ => {}
        }
    }
}

/// Rewrites a message with our prefixes: `soap:` for the envelope's elements, none for
/// WSTest's (declared as the default namespace on the root), `xsi:` for `xsi:nil`; other
/// attributes and namespace declarations, comments and processing instructions are dropped,
/// since nothing downstream reads them.
pub(crate) fn canonicalize(xml: &[u8]) -> Result<String, Fault> {
    let mut reader = NsReader::from_reader(xml);
    let mut writer = Writer::new(Vec::with_capacity(xml.len() + 128));
    let mut names: Vec<String> = Vec::new();
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(malformed)?;
        match event {
            Event::Start(ref start) | Event::Empty(ref start) => {
                let local = start.name().local_name().as_ref().to_owned();
                let name = match ns {
                    ResolveResult::Bound(Namespace(ns)) if ns == NS_SOAP11 => {
                        format!("soap:{local}")
                    }
                    _ => local,
                };
                let mut out = BytesStart::new(name.clone());
                if names.is_empty() {
                    out.push_attribute(("xmlns:soap", NS_SOAP11));
                    out.push_attribute(("xmlns:xsi", NS_XSI));
                    out.push_attribute(("xmlns", NS_WSTEST));
                }
                for attribute in start.attributes().flatten() {
                    let (attribute_ns, attribute_local) =
                        reader.resolver().resolve_attribute(attribute.key);
                    if attribute_local.as_ref() == "nil"
                        && matches!(attribute_ns, ResolveResult::Bound(Namespace(n)) if n == NS_XSI)
                    {
                        out.push_attribute(("xsi:nil", &*attribute.value));
                    }
                }
                if matches!(event, Event::Empty(_)) {
                    writer.write_event(Event::Empty(out))
                } else {
                    names.push(name);
                    writer.write_event(Event::Start(out))
                }
            }
            Event::End(_) => {
                let name = names.pop().unwrap_or_default();
                writer.write_event(Event::End(BytesEnd::new(name)))
            }
            Event::Text(text) => writer.write_event(Event::Text(text)),
            Event::CData(data) => writer.write_event(Event::CData(data)),
            Event::GeneralRef(reference) => writer.write_event(Event::GeneralRef(reference)),
            Event::Eof => break,
            _ => Ok(()),
        }
        .map_err(malformed)?;
    }
    String::from_utf8(writer.into_inner())
        .map_err(|error| Fault::client(format!("the message is not UTF-8: {error}")))
}

/// Whether elements nest deeper than `limit` anywhere in `xml`: a count of start and end tags
/// that reads no names (`<?`, `<!` and `/>` taken into account; a `>` inside an attribute
/// value can only make the count lower than it is, and the deserializer then still fails).
pub(crate) fn deeper_than(xml: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    for at in memchr::memchr_iter(b'<', xml) {
        match xml.get(at + 1) {
            Some(b'/') => depth = depth.saturating_sub(1),
            Some(b'?' | b'!') => {}
            _ => {
                let self_closing = memchr::memchr(b'>', &xml[at..])
                    .is_some_and(|end| end > 0 && xml[at + end - 1] == b'/');
                if !self_closing {
                    depth += 1;
                    if depth > limit {
                        return true;
                    }
                }
            }
        }
    }
    false
}
