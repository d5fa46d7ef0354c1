//! Decode, encode, decode: anything our binding reads, it writes so that it reads back the same
//! model (compared by debug text: floats by value and sign, nil apart from absent).
#![no_main]

use libfuzzer_sys::fuzz_target;
use wstest::Reply;

fuzz_target!(|data: &[u8]| {
    if let Ok(request) = wstest::decode_request(data, None) {
        let mut out = Vec::new();
        wstest::encode_request(&request, &mut out);
        let again = wstest::decode_request(&out, None).expect("our request reads back");
        assert_eq!(format!("{request:?}"), format!("{again:?}"));
    }
    if let Ok(Reply::Response(response)) = wstest::decode_response(data) {
        let mut out = Vec::new();
        wstest::encode_response(&response, &mut out);
        let again = wstest::decode_response(&out).expect("our response reads back");
        assert_eq!(
            format!("{:?}", Reply::Response(response)),
            format!("{again:?}")
        );
    }
});
