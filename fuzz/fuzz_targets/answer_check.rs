//! loadgen's `--check-xpath` on any expression and any answer (the first NUL separates them):
//! an expression is read or refused, never a panic; a check read judges any bytes without a
//! panic or a hang, the same way twice with one scratch, and `not(...)` of a well-formed
//! answer's check is its opposite.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loadgen::check::{PathCheck, Scratch};

fuzz_target!(|input: &[u8]| {
    let (text, body) = match input.iter().position(|&b| b == 0) {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => (input, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(check) = PathCheck::parse(text) else {
        return;
    };
    let mut scratch = Scratch::default();
    let first = check.holds(body, &mut scratch);
    assert_eq!(first, check.holds(body, &mut scratch), "judged twice");
    let _ = check.first_value(body, &mut scratch);
    // A body the walk reads whole (one root, every tag closed) decides `not` both ways.
    let wrapped: Vec<u8> = [b"<r>".as_slice(), body, b"</r>"].concat();
    let well_formed = PathCheck::parse("count(//*) > 0").is_ok_and(|all| all.holds(&wrapped, &mut scratch));
    if well_formed && let Ok(negated) = PathCheck::parse(&format!("not({text})")) {
        assert_ne!(
            check.holds(&wrapped, &mut scratch),
            negated.holds(&wrapped, &mut scratch),
            "not() of a well-formed answer"
        );
    }
});
