//! The WSTest messages through serde, behind [`wstest::Binding`]: what a Rust team would write
//! first, for wsperf and `wstest-server --binding` to set beside ours.
//!
//! # Map
//! - [`SERDE_QUICK_XML`]: serde derive with quick-xml's deserializer and serializer.
//! - [`SERDE_XML_RS`]: the same shapes with serde-xml-rs.
//! - `values`: the xsd values as serde newtypes, read and written by [`wstest::xsd`]'s rules.
//! - `envelope`: what serde cannot check (SOAP version, mustUnderstand, the namespace of the
//!   Body's element), and prefixes rewritten for serde-xml-rs.
//! - `decode` and `wire_in.rs`: the shapes serde reads, moved into the model.
//! - `encode`: the shapes serde writes, borrowing the model.
//!
//! Deep `TestNode` chains recurse in serde, so decoding and encoding grow the stack on demand
//! (`serde_stacker`, `stacker`) rather than overflow it.

mod decode;

pub use decode::MAX_DEPTH;
mod encode;
mod envelope;
mod values;

use wstest::decode::Reply;
use wstest::fault::Fault;
use wstest::operation::{Operation, Request, Response};

use crate::decode::{Decoded, Library};
use crate::envelope::Expect;

/// A serde binding: one library's deserializer and serializer over the same shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SerdeBinding {
    library: Library,
}

/// `serde-quick-xml`: `quick_xml::de` and `quick_xml::se`.
pub const SERDE_QUICK_XML: SerdeBinding = SerdeBinding {
    library: Library::QuickXml,
};

/// `serde-xml-rs`: `serde_xml_rs`'s deserializer and serializer.
pub const SERDE_XML_RS: SerdeBinding = SerdeBinding {
    library: Library::XmlRs,
};

impl wstest::Binding for SerdeBinding {
    fn name(&self) -> &'static str {
        match self.library {
            Library::QuickXml => "serde-quick-xml",
            Library::XmlRs => "serde-xml-rs",
        }
    }

    fn decode_request<'x>(
        &self,
        xml: &'x [u8],
        soap_action: Option<Operation>,
    ) -> Result<Request<'x>, Fault> {
        match decode::decode(self.library, xml, Expect::Request(soap_action))? {
            Decoded::Request(request) => Ok(request),
            Decoded::Response(_) => Err(Fault::client("the Body holds a response, not a request")),
        }
    }

    fn decode_response<'x>(&self, xml: &'x [u8]) -> Result<Reply<'x>, Fault> {
        match decode::decode(self.library, xml, Expect::Response)? {
            Decoded::Response(reply) => Ok(reply),
            Decoded::Request(_) => Err(Fault::client("the Body holds a request, not a response")),
        }
    }

    fn encode_request(&self, request: &Request<'_>, out: &mut Vec<u8>) {
        encode::encode(self.library, encode::Message::Request(request), out);
    }

    fn encode_response(&self, response: &Response<'_>, out: &mut Vec<u8>) {
        encode::encode(self.library, encode::Message::Response(response), out);
    }
}
