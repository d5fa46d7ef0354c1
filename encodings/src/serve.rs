//! The server's answer in an encoding other than XML: the request read as the payload its
//! SOAPAction names, the operation run, and the answer written in the same encoding. The
//! echoes write back the payload they read (it is their response's payload too); GetOrder's
//! order is generated from the request as the XML path generates it.

use wstest::decode::MAX_LIST_NODES;
use wstest::operation::{Operation, Request, Response};
use wstest::{DateTime, Fault};

use crate::format::{self, AvroSchemas, Encoding};
use crate::message::{Kind, Message};
use crate::wire::{Payload, Shape};

/// Answers one request in `encoding`: appends the response to `out`, or returns the fault
/// (a Client one for a body that is not this encoding's payload of the named operation; `out`
/// may then hold part of an answer, which the caller clears).
pub fn respond(
    encoding: Encoding,
    avro: &AvroSchemas,
    soap_action: Option<&[u8]>,
    body: &[u8],
    now: DateTime,
    out: &mut Vec<u8>,
) -> Result<Operation, Fault> {
    let named = match soap_action {
        Some(value) => Operation::from_soap_action(value)?,
        None => None,
    };
    let operation = named.ok_or_else(|| {
        Fault::client(format!(
            "{} request names its operation in the SOAPAction header, as SOAP 1.1 does (e.g. SOAPAction: \"{}\")",
            encoding.a_title(),
            Operation::EchoStruct.soap_action()
        ))
    })?;
    let kind = Kind {
        operation,
        response: false,
    };
    let read = format::read(encoding, Shape::of(kind), body, avro, |payload| {
        answer(encoding, avro, kind, payload, now, out)
    });
    match read {
        Ok(answered) => answered.map(|()| operation),
        Err(error) => Err(Fault::client(format!(
            "the body is not {} {operation} request: {error}",
            encoding.a_title()
        ))),
    }
}

fn answer(
    encoding: Encoding,
    avro: &AvroSchemas,
    kind: Kind,
    payload: Payload<'_>,
    now: DateTime,
    out: &mut Vec<u8>,
) -> Result<(), Fault> {
    let written = match payload {
        Payload::GetOrder(_) => {
            let Message::Request(Request::GetOrder(params)) = payload.into_message(kind) else {
                unreachable!("a GetOrder payload is a GetOrder request")
            };
            params.validate()?;
            let description = params.product_description();
            let order = Message::Response(Response::GetOrder(params.generate(now, &description)));
            format::write(encoding, &Payload::of(&order), avro, out)
        }
        Payload::Structs(ref items)
            if kind.operation == Operation::EchoList && items.len() > MAX_LIST_NODES =>
        {
            return Err(Fault::client(format!(
                "the list is longer than {MAX_LIST_NODES} nodes, this service's limit"
            )));
        }
        echo => format::write(encoding, &echo, avro, out),
    };
    written.map_err(|error| Fault::server(format!("cannot write the answer: {error}")))
}
