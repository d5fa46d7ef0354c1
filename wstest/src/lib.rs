//! The WSTest SOAP 1.1 service, sans IO: bytes in, bytes out.
//!
//! No sockets, no files, no clock: the caller passes the request body, the SOAPAction header and
//! the current time, and gets the response envelope written into its own buffer.
//! Nothing here panics on input; every bad request becomes a [`Fault`].
//!
//! # Map
//! - [`model`]: the data types of `wstest.xsd` (`TestStruct`, `Synthetic`, `Order`, `LineItem`…).
//! - [`operation`]: the five operations, their SOAPActions, request and response messages, and
//!   the GetOrder generator.
//! - [`binding`]: the interface every XML binding offers ([`binding::Binding`]), and ours.
//! - [`decode`]: the streaming decoder, for requests and responses (`decode/payload.rs`: each
//!   operation's payload).
//! - `lexer`, `fast_lexer`: the token streams it reads: quick-xml's, and a fast one for plain XML
//!   that hands anything else to quick-xml (`fast_lexer/text.rs`: character data and
//!   references; `fast_lexer/name.rs`: names; `fast_lexer/plain.rs`: the shortcuts that read a
//!   whole TestStruct, or an EchoList's chain of them, in one pass without tokens).
//! - [`encode`]: the encoder that writes a whole envelope into one `Vec<u8>`; `sink`: where it
//!   and the value writers put bytes, appended to the `Vec` or, for the echoes' items, into room
//!   made once an item (a leaf).
//! - `block`: sixteen bytes compared at a time (SSE2 through `safe_arch`), for the decoder's
//!   text scan and the encoder's escape test (a leaf).
//! - [`envelope`]: namespaces and the SOAP envelope framing.
//! - [`fault`]: SOAP 1.1 faults.
//! - `escape`: text as XML writes it, for the encoder, faults and the WSDL (a leaf).
//! - [`wsdl`]: this service's WSDL, with its address filled in.
//! - [`xsd`]: the xsd value rules (numbers, floats by bits, dates, booleans, base64) that every
//!   binding reads and writes values by.
//! - [`post_files`]: the request bodies for ab and loadgen, and their manifest.

pub mod binding;
mod block;
pub mod decode;
pub mod encode;
pub mod envelope;
mod escape;
mod fast_lexer;
pub mod fault;
mod lexer;
pub mod model;
pub mod operation;
pub mod post_files;
mod sink;
pub mod wsdl;
pub mod xsd;

pub use binding::Binding;
pub use decode::{Reply, decode_request, decode_response};
pub use encode::{encode_request, encode_response};
pub use fault::{Fault, FaultCode};
pub use model::DateTime;
pub use operation::{Operation, Request, Response};

/// Answers one SOAP request: decodes `body`, runs the operation, and appends the response envelope
/// to `out`.
///
/// `soap_action` is the raw SOAPAction header, if the request had one; when it names an operation
/// the Body must agree. `now` stamps GetOrder's dates.
/// On `Err`, `out` is left as it was and the caller sends the fault (see [`Fault::encode`]).
///
/// ```
/// use wstest::{DateTime, FaultCode};
///
/// let request = br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetOrder xmlns="uri:WSTestWeb-TestService"><orderId>1</orderId><customerId>2</customerId><messageSize>1</messageSize></GetOrder></soap:Body></soap:Envelope>"#;
/// let now = DateTime { unix_millis: 0 };
/// let mut out = Vec::new();
/// let op = wstest::respond(Some(b"\"uri:WSTestWeb-TestService/GetOrder\""), request, now, &mut out)?;
/// assert_eq!(op, wstest::Operation::GetOrder);
/// assert!(String::from_utf8(out)?.contains("<OrderDate>1970-01-01T00:00:00.000Z</OrderDate>"));
///
/// let fault = wstest::respond(None, b"<oops", now, &mut Vec::new()).unwrap_err();
/// assert_eq!(fault.code, FaultCode::Client);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn respond(
    soap_action: Option<&[u8]>,
    body: &[u8],
    now: DateTime,
    out: &mut Vec<u8>,
) -> Result<Operation, Fault> {
    respond_with(&binding::STREAMING, soap_action, body, now, out)
}

/// [`respond`] through a chosen binding: the answer is the same whichever it is.
pub fn respond_with<B: Binding + ?Sized>(
    binding: &B,
    soap_action: Option<&[u8]>,
    body: &[u8],
    now: DateTime,
    out: &mut Vec<u8>,
) -> Result<Operation, Fault> {
    let action = match soap_action {
        Some(value) => Operation::from_soap_action(value)?,
        None => None,
    };
    let request = binding.decode_request(body, action)?;
    let op = request.operation();
    match request {
        Request::EchoVoid => binding.encode_response(&Response::EchoVoid, out),
        Request::EchoStruct(items) => binding.encode_response(&Response::EchoStruct(items), out),
        Request::EchoList(nodes) => binding.encode_response(&Response::EchoList(nodes), out),
        Request::EchoSynthetic(synth) => {
            binding.encode_response(&Response::EchoSynthetic(synth), out);
        }
        Request::GetOrder(params) => binding.encode_get_order_response(&params, now, out),
    }
    Ok(op)
}
