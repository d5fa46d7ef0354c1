//! The fast lexer against quick-xml, and the fast lexer's shortcuts (whole structs, list
//! chains, fields) against its own tokens: for any input, the decoder reads the same request and
//! the same response three ways, or refuses it three ways. The second is the differential
//! between the decoder with the shortcuts and the decoder as it was before them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wstest::decode::{LexerChoice, decode_request_with, decode_response_with};

const OTHERS: [LexerChoice; 2] = [LexerChoice::FastTokens, LexerChoice::QuickXml];

fuzz_target!(|data: &[u8]| {
    let fast = decode_request_with(LexerChoice::Fast, data, None);
    for lexer in OTHERS {
        let other = decode_request_with(lexer, data, None);
        match (&fast, &other) {
            (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "requests differ: {lexer:?}"),
            (Err(_), Err(_)) => {}
            _ => panic!("as a request: fast {fast:?}, {lexer:?} {other:?}"),
        }
    }
    let fast = decode_response_with(LexerChoice::Fast, data);
    for lexer in OTHERS {
        let other = decode_response_with(lexer, data);
        match (&fast, &other) {
            (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "responses differ: {lexer:?}"),
            (Err(_), Err(_)) => {}
            _ => panic!("as a response: fast {fast:?}, {lexer:?} {other:?}"),
        }
    }
});
