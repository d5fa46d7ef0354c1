//! `encodings::serve::respond` on any bytes, as the server calls it for JSON, MessagePack and
//! Avro bodies: never a panic or an abort (apache-avro's reservations bounded as the server
//! bounds them), and every answer it gives reads back in its encoding as the response of the
//! operation it ran. The first byte picks the encoding and the operation named in SOAPAction.
#![no_main]

use encodings::format::{self, Encoding};
use encodings::wire::Shape;
use encodings::{AvroSchemas, Kind};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use wstest::DateTime;
use wstest::operation::Operation;

const OPERATIONS: [Operation; 5] = [
    Operation::EchoVoid,
    Operation::EchoStruct,
    Operation::EchoList,
    Operation::EchoSynthetic,
    Operation::GetOrder,
];

static AVRO: LazyLock<AvroSchemas> = LazyLock::new(|| {
    // The server's default --max-body.
    format::limit_avro_allocations(4 * 1024 * 1024);
    AvroSchemas::new()
});

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let encoding = Encoding::ALL[usize::from(pick % 3)];
    let operation = OPERATIONS[usize::from(pick / 3 % 5)];
    let action = format!("\"{}\"", operation.soap_action());
    let mut out = Vec::new();
    let now = DateTime {
        unix_millis: 1_764_676_800_000,
    };
    let avro = &*AVRO;
    if let Ok(ran) =
        encodings::serve::respond(encoding, avro, Some(action.as_bytes()), body, now, &mut out)
    {
        assert_eq!(ran, operation);
        let kind = Kind {
            operation,
            response: true,
        };
        if let Err(error) = format::read(encoding, Shape::of(kind), &out, avro, |_| ()) {
            panic!("our {encoding:?} answer does not read back: {error}");
        }
    }
});
