//! The in-process cost of the binding, per post file: decoding the request (fast lexer, and
//! quick-xml alone for comparison), encoding the response, and `respond`, which does both.
//!
//! Run with `cargo bench -p wstest`; `FILE=echostruct20.xml cargo bench -p wstest` times one
//! file for longer, which is what a profiler wants. A hand-written loop, not criterion: it prints
//! one table, which is what comparing bindings needs, and builds in seconds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use wstest::decode::{LexerChoice, decode_request_with};
use wstest::{DateTime, Reply};

const NOW: DateTime = DateTime {
    unix_millis: 1_764_676_800_000,
};

fn main() {
    let only = std::env::var("FILE").ok();
    let budget = Duration::from_millis(if only.is_some() { 3000 } else { 300 });
    println!(
        "{:<20} {:>7} {:>7} {:>12} {:>14} {:>12} {:>12}",
        "post file", "bytes", "answer", "decode ns", "quick-xml ns", "encode ns", "respond ns"
    );
    for file in wstest::post_files::all() {
        if only.as_deref().is_some_and(|only| only != file.name) {
            continue;
        }
        let body = file.body();
        let action = file.operation.soap_action().as_bytes();
        let mut out = Vec::with_capacity(64 * 1024);
        let decode = time_per_call(budget, || {
            black_box(decode_request_with(LexerChoice::Fast, black_box(&body), None).is_ok());
        });
        let quick_xml = time_per_call(budget, || {
            black_box(decode_request_with(LexerChoice::QuickXml, black_box(&body), None).is_ok());
        });
        wstest::respond(Some(action), &body, NOW, &mut out).expect("a post file is answered");
        let answer = out.clone();
        let Ok(Reply::Response(response)) = wstest::decode_response(&answer) else {
            panic!("{}: the answer does not decode", file.name);
        };
        let encode = time_per_call(budget, || {
            out.clear();
            wstest::encode_response(black_box(&response), &mut out);
        });
        let respond = time_per_call(budget, || {
            out.clear();
            black_box(wstest::respond(Some(action), black_box(&body), NOW, &mut out).is_ok());
        });
        println!(
            "{:<20} {:>7} {:>7} {decode:>12.0} {quick_xml:>14.0} {encode:>12.0} {respond:>12.0}",
            file.name,
            body.len(),
            answer.len()
        );
    }
}

/// Calls `f` for about `budget` and returns the nanoseconds per call.
fn time_per_call(budget: Duration, mut f: impl FnMut()) -> f64 {
    let mut n_calls = 0u64;
    let started = Instant::now();
    while started.elapsed() < budget {
        for _ in 0..100 {
            f();
        }
        n_calls += 100;
    }
    started.elapsed().as_nanos() as f64 / n_calls as f64
}
