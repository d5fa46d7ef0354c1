//! Decoding through serde: the envelope checked first ([`crate::envelope`]), then the message
//! deserialized into the shapes of `wire_in.rs` and moved into the model.

use serde::Deserialize as _;
use wstest::decode::Reply;
use wstest::fault::Fault;

use crate::envelope::{self, Expect};

/// The shapes as quick-xml reads them.
pub(crate) mod quick {
    use serde::Deserialize;
    use wstest::decode::{MAX_LIST_NODES, Reply};
    use wstest::fault::{Fault, FaultCode};
    use wstest::model::{self, Synthetic, TestNodes, TestStruct};
    use wstest::operation::{Request, Response};
    use wstest::xsd;

    use crate::decode::Decoded;
    use crate::values::{Base64, Float, Instant, Int, NilOption, NilValue, Str};

    type Nillable<T> = NilOption<T>;

    include!("wire_in.rs");
}

/// The shapes as serde-xml-rs reads them.
pub(crate) mod xml_rs {
    use serde::Deserialize;
    use wstest::decode::{MAX_LIST_NODES, Reply};
    use wstest::fault::{Fault, FaultCode};
    use wstest::model::{self, Synthetic, TestNodes, TestStruct};
    use wstest::operation::{Request, Response};
    use wstest::xsd;

    use crate::decode::Decoded;
    use crate::values::{Base64, Float, Instant, Int, NilElement, NilValue, Str};

    type Nillable<T> = NilElement<T>;

    include!("wire_in.rs");
}

/// The library a serde binding decodes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Library {
    QuickXml,
    XmlRs,
}

/// What came out of a message, before the caller says whether it wanted a request or a response.
// Built once per message and moved out at once, as wstest's `Response`.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Decoded<'x> {
    Request(wstest::Request<'x>),
    Response(Reply<'x>),
}

/// The deepest nesting the serde bindings read. serde recurses once per level, so the stack
/// grows on demand (`serde_stacker`); the limit keeps the time in check: serde-xml-rs's reader
/// is quadratic in the depth (10,000 levels take 0.27 s, 50,000 take 5.4 s), and a list this
/// deep is far past anything a WSTest client sends (ours reads up to `MAX_LIST_NODES`).
pub const MAX_DEPTH: usize = 10_000;

/// Checks the envelope, then deserializes the message with `library`.
pub(crate) fn decode(library: Library, xml: &[u8], expect: Expect) -> Result<Decoded<'_>, Fault> {
    let checked = envelope::check(xml, expect)?;
    let text = std::str::from_utf8(xml)
        .map_err(|error| Fault::client(format!("the message is not UTF-8: {error}")))?;
    match library {
        Library::QuickXml => {
            let mut deserializer = quick_xml::de::Deserializer::from_str(text);
            // quick-xml's own guard, 128 levels by default, would refuse a 200-node list.
            deserializer.recursion_limit(MAX_DEPTH);
            // The stack grows on demand, so a deep TestNode chain cannot overflow it.
            let envelope =
                quick::Envelope::deserialize(serde_stacker::Deserializer::new(&mut deserializer))
                    .map_err(|error| fault(library, error))?;
            envelope
                .into_model()
                .map_err(|reason| fault(library, reason))
        }
        Library::XmlRs => {
            // serde-xml-rs matches names with their prefixes as written: a message with other
            // prefixes than ours is rewritten with ours first.
            // serde-xml-rs has no guard of its own. A level takes three bytes at least, so
            // only a message longer than that can be too deep.
            if text.len() > 3 * MAX_DEPTH && envelope::deeper_than(xml, MAX_DEPTH) {
                return Err(fault(
                    library,
                    format_args!("the XML is nested deeper than {MAX_DEPTH} levels"),
                ));
            }
            let canonical;
            let text = if checked.canonical {
                text
            } else {
                canonical = envelope::canonicalize(xml)?;
                canonical.as_str()
            };
            // serde-xml-rs hands out owned strings only (it reads through `io::Read`), so the
            // shapes can be deserialized for any lifetime, and nothing borrows `text`.
            // Text is kept as written (serde-xml-rs trims it by default, which would change
            // the echo of "  spaced  "). Text of white space alone still reads as nothing:
            // as characters it would break pretty-printed messages (xml-rs cannot tell the
            // white space between elements from a value), so `<s>&#13;</s>` reads as "".
            let config = serde_xml_rs::SerdeXml::new().parser(
                xml::ParserConfig::new()
                    .trim_whitespace(false)
                    .whitespace_to_characters(false)
                    .cdata_to_characters(true)
                    .ignore_comments(true)
                    .coalesce_characters(true),
            );
            let mut deserializer = serde_xml_rs::Deserializer::from_config(config, text.as_bytes());
            let envelope = xml_rs::Envelope::<'static>::deserialize(
                serde_stacker::Deserializer::new(&mut deserializer),
            )
            .map_err(|error| fault(library, error))?;
            envelope
                .into_model()
                .map_err(|reason| fault(library, reason))
        }
    }
    .and_then(|message| agree(message, expect))
}

fn fault(library: Library, error: impl std::fmt::Display) -> Fault {
    let name = match library {
        Library::QuickXml => "quick-xml",
        Library::XmlRs => "serde-xml-rs",
    };
    Fault::client(format!("{name}: {error}"))
}

/// A request must be a request of the operation the SOAPAction named; a response, a response.
fn agree(message: Decoded<'_>, expect: Expect) -> Result<Decoded<'_>, Fault> {
    match (&message, expect) {
        (Decoded::Request(request), Expect::Request(Some(action)))
            if request.operation() != action =>
        {
            Err(Fault::client(format!(
                "the SOAPAction names {action} but the Body holds {}",
                request.operation()
            )))
        }
        (Decoded::Request(_), Expect::Request(_)) | (Decoded::Response(_), Expect::Response) => {
            Ok(message)
        }
        (Decoded::Response(_), Expect::Request(_)) => {
            Err(Fault::client("the Body holds a response, not a request"))
        }
        (Decoded::Request(_), Expect::Response) => {
            Err(Fault::client("the Body holds a request, not a response"))
        }
    }
}
