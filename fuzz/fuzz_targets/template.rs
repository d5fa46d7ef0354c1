//! loadgen's templates and data files on any bytes (the first NUL separates the template from
//! the data, read as CSV and as JSON lines): a template, a data file or a clear error, and a
//! rendering for several requests, never a panic; a template without placeholders renders as
//! itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loadgen::template::{Data, render_body};

fuzz_target!(|input: &[u8]| {
    let (text, data) = match input.iter().position(|&b| b == 0) {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => (input, &[][..]),
    };
    for data in [Data::from_csv(data, "f.csv").ok(), Data::from_json_lines(data, "f.jsonl").ok()] {
        if let Some(data) = &data {
            for row in 0..data.n_rows().min(40) {
                for column in 0..data.names().len() {
                    let _ = data.value(row, column);
                }
            }
        }
        for seq in [0, 1, 17, u64::MAX] {
            if let Ok(out) = render_body(text, data.as_ref(), seq)
                && memchr(text, b"{{").is_none()
            {
                assert_eq!(out, text);
            }
        }
    }
});

fn memchr(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}
