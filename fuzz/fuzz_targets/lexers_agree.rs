//! The fast lexer against quick-xml: for any input, the decoder on either lexer reads the same
//! request and the same response, or both refuse it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wstest::decode::{LexerChoice, decode_request_with, decode_response_with};

fuzz_target!(|data: &[u8]| {
    let fast = decode_request_with(LexerChoice::Fast, data, None);
    let quick_xml = decode_request_with(LexerChoice::QuickXml, data, None);
    match (&fast, &quick_xml) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "requests differ"),
        (Err(_), Err(_)) => {}
        _ => panic!("as a request: fast {fast:?}, quick-xml {quick_xml:?}"),
    }
    let fast = decode_response_with(LexerChoice::Fast, data);
    let quick_xml = decode_response_with(LexerChoice::QuickXml, data);
    match (&fast, &quick_xml) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "responses differ"),
        (Err(_), Err(_)) => {}
        _ => panic!("as a response: fast {fast:?}, quick-xml {quick_xml:?}"),
    }
});
