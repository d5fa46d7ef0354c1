//! Integration tests of the wstest core: post files, real clients' requests, schema validity,
//! round trips, and bad inputs.
//!
//! Everything they read is in the repository: `post_files/`, `wstest/wstest.wsdl`,
//! `wstest/wstest.xsd` and the client samples in `tests/data/clients/`.

mod mutations;
mod post_files;
mod requests;
mod round_trip;

use std::path::PathBuf;

use wstest::decode::{LexerChoice, decode_request_with};
use wstest::{DateTime, Fault, Operation, Reply, Request, Response};

/// The instant every test answers GetOrder at.
pub(crate) const NOW: DateTime = DateTime {
    unix_millis: 1_764_676_800_123,
};

pub(crate) fn repo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The core crate's folder: `wstest.wsdl`, `wstest.xsd`, `tests/data/`.
pub(crate) fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Answers `body` as the server would, checks that both lexers read the request alike, and
/// returns the response bytes or the fault.
pub(crate) fn respond(soap_action: Option<&[u8]>, body: &[u8]) -> Result<Vec<u8>, Fault> {
    let action = soap_action.and_then(|value| Operation::from_soap_action(value).ok().flatten());
    let fast = decode_request_with(LexerChoice::Fast, body, action);
    // The shortcuts against the fast lexer's tokens, and the fast lexer against quick-xml.
    for (other, what) in [
        (LexerChoice::FastTokens, "its tokens"),
        (LexerChoice::QuickXml, "quick-xml"),
    ] {
        let other = decode_request_with(other, body, action);
        match (&fast, &other) {
            (Ok(fast), Ok(other)) => {
                assert_eq!(format!("{fast:?}"), format!("{other:?}"), "{what}")
            }
            (Err(fast), Err(other)) => assert_eq!(fast.code, other.code, "{fast} / {other}"),
            _ => panic!("the fast lexer and {what} disagree: {fast:?}, {other:?}"),
        }
    }
    let mut out = Vec::new();
    wstest::respond(soap_action, body, NOW, &mut out).map(|_| out)
}

/// What the service must answer to `request`.
pub(crate) fn expected_response<'a>(request: &Request<'a>, description: &'a str) -> Response<'a> {
    match request.clone() {
        Request::EchoVoid => Response::EchoVoid,
        Request::EchoStruct(items) => Response::EchoStruct(items),
        Request::EchoList(nodes) => Response::EchoList(nodes),
        Request::EchoSynthetic(synth) => Response::EchoSynthetic(synth),
        Request::GetOrder(params) => Response::GetOrder(params.generate(NOW, description)),
    }
}

/// Answers `body` and checks the response field by field against the request (echoes) or the
/// generator (GetOrder). Returns the response bytes.
#[track_caller]
pub(crate) fn check_answer(what: &str, soap_action: Option<&[u8]>, body: &[u8]) -> Vec<u8> {
    let request = wstest::decode_request(body, None)
        .unwrap_or_else(|fault| panic!("{what}: the request does not decode: {fault}"));
    let response = respond(soap_action, body).unwrap_or_else(|fault| panic!("{what}: {fault}"));
    let description = match &request {
        Request::GetOrder(params) => params.product_description(),
        _ => String::new(),
    };
    let expected = expected_response(&request, &description);
    match wstest::decode_response(&response) {
        // Debug text compares floats bit for bit, NaN included.
        Ok(Reply::Response(actual)) => {
            assert_eq!(format!("{actual:?}"), format!("{expected:?}"), "{what}")
        }
        other => panic!("{what}: the response does not decode: {other:?}"),
    }
    response
}
