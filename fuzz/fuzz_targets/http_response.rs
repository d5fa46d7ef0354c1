//! loadgen's response parser on any bytes, split anywhere: never a panic or a loop, and the same
//! outcome however the bytes arrive. The first byte seeds the split points.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loadgen::http::{BodyChecks, Feed, ParseError, Response, ResponseParser};

/// Feeds `data` in pieces of the given sizes (cycled), then closes: where the response ended
/// (its absolute length) and what it was, or the error.
fn run(
    data: &[u8],
    sizes: &[usize],
    checks: &BodyChecks,
) -> Result<Option<(usize, Response)>, ParseError> {
    let mut parser = ResponseParser::new();
    parser.start(false, false);
    let mut at = 0;
    let mut k = 0;
    while at < data.len() {
        let size = sizes[k % sizes.len()].max(1).min(data.len() - at);
        k += 1;
        match parser.feed(&data[at..at + size], checks)? {
            Feed::NeedMore => at += size,
            Feed::Complete { consumed } => {
                assert!(consumed <= size, "consumed more than it was given");
                return Ok(Some((at + consumed, *parser.response())));
            }
        }
    }
    Ok(parser
        .finish_at_close(checks)
        .map(|response| (data.len(), response)))
}

fuzz_target!(|data: &[u8]| {
    let Some((&seed, data)) = data.split_first() else {
        return;
    };
    let checks = BodyChecks::new(Some("Response"), Some("Fault>"));
    let whole = run(data, &[data.len().max(1)], &checks);
    let sizes = [usize::from(seed % 7) + 1, usize::from(seed / 7 % 5) + 1, 3];
    let split = run(data, &sizes, &checks);
    let bytewise = run(data, &[1], &checks);
    assert_eq!(whole, split, "split {sizes:?}");
    assert_eq!(whole, bytewise, "byte by byte");
});
