//! One small interface for the XML bindings of the WSTest messages, so that the server's
//! `--binding` and wsperf drive ours and the serde-based ones (in the `serde-bindings` crate)
//! alike. Every binding reads and writes values by the rules of [`crate::xsd`].

use crate::decode::{self, LexerChoice, Reply};
use crate::encode;
use crate::fault::Fault;
use crate::model::{DateTime, GetOrder};
use crate::operation::{Operation, Request, Response};

/// Decodes and encodes the request and response envelopes of the five operations.
pub trait Binding: Send + Sync {
    /// The name `--binding` and wsperf know it by.
    fn name(&self) -> &'static str;

    /// Decodes a request envelope; `soap_action` is the operation the SOAPAction header named,
    /// which the Body must agree with. Bad input is a Client fault saying what was wrong.
    fn decode_request<'x>(
        &self,
        xml: &'x [u8],
        soap_action: Option<Operation>,
    ) -> Result<Request<'x>, Fault>;

    /// Decodes a response envelope, as a client reads it; a Fault in the Body is
    /// [`Reply::Fault`].
    fn decode_response<'x>(&self, xml: &'x [u8]) -> Result<Reply<'x>, Fault>;

    /// Appends a request envelope to `out`.
    fn encode_request(&self, request: &Request<'_>, out: &mut Vec<u8>);

    /// Appends a response envelope to `out`.
    fn encode_response(&self, response: &Response<'_>, out: &mut Vec<u8>);

    /// Appends the GetOrder response for `params` at `now`: by default the generated order
    /// through [`Binding::encode_response`].
    fn encode_get_order_response(&self, params: &GetOrder, now: DateTime, out: &mut Vec<u8>) {
        let description = params.product_description();
        let order = params.generate(now, &description);
        self.encode_response(&Response::GetOrder(order), out);
    }
}

/// Ours: the streaming decoder on a chosen lexer, and the encoder that writes in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Streaming {
    pub lexer: LexerChoice,
}

/// `streaming`: the fast lexer, falling back to quick-xml, as the server runs by default.
pub const STREAMING: Streaming = Streaming {
    lexer: LexerChoice::Fast,
};

/// `streaming-quick-xml`: the same binding on quick-xml's reader alone.
pub const STREAMING_QUICK_XML: Streaming = Streaming {
    lexer: LexerChoice::QuickXml,
};

impl Binding for Streaming {
    fn name(&self) -> &'static str {
        match self.lexer {
            LexerChoice::Fast => "streaming",
            LexerChoice::QuickXml => "streaming-quick-xml",
            LexerChoice::FastTokens => "streaming-tokens",
        }
    }

    fn decode_request<'x>(
        &self,
        xml: &'x [u8],
        soap_action: Option<Operation>,
    ) -> Result<Request<'x>, Fault> {
        decode::decode_request_with(self.lexer, xml, soap_action)
    }

    fn decode_response<'x>(&self, xml: &'x [u8]) -> Result<Reply<'x>, Fault> {
        decode::decode_response_with(self.lexer, xml)
    }

    fn encode_request(&self, request: &Request<'_>, out: &mut Vec<u8>) {
        encode::encode_request(request, out);
    }

    fn encode_response(&self, response: &Response<'_>, out: &mut Vec<u8>) {
        encode::encode_response(response, out);
    }

    /// Straight from the generator's data, without building the order (the same bytes).
    fn encode_get_order_response(&self, params: &GetOrder, now: DateTime, out: &mut Vec<u8>) {
        encode::encode_get_order_response(params, now, out);
    }
}
