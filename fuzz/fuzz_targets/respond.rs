//! `wstest::respond` on any bytes: never a panic, and every answer it gives decodes as the
//! response of the operation it says it ran. The first byte picks the SOAPAction: none, one of
//! the five operations', or a made-up one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wstest::operation::Operation;
use wstest::{DateTime, Reply};

const OPERATIONS: [Operation; 5] = [
    Operation::EchoVoid,
    Operation::EchoStruct,
    Operation::EchoList,
    Operation::EchoSynthetic,
    Operation::GetOrder,
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let action = match pick % 8 {
        0 => None,
        k @ 1..=5 => Some(format!(
            "\"{}\"",
            OPERATIONS[usize::from(k - 1)].soap_action()
        )),
        6 => Some("\"uri:WSTestWeb-TestService/Nothing\"".to_owned()),
        _ => Some(String::new()),
    };
    let mut out = Vec::new();
    let now = DateTime {
        unix_millis: 1_764_676_800_000,
    };
    if let Ok(operation) =
        wstest::respond(action.as_deref().map(str::as_bytes), body, now, &mut out)
    {
        match wstest::decode_response(&out) {
            Ok(Reply::Response(response)) => assert_eq!(response.operation(), operation),
            other => panic!("our answer does not read back: {other:?}"),
        }
    }
});
