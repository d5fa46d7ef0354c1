//! loadgen's HTTP/2 client on any server bytes, split anywhere: never a panic, a loop or
//! unbounded memory, the same events and error however the bytes arrive, and only whole,
//! well-formed frames queued in answer. The first byte seeds the request body's length and
//! the split points.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use loadgen::http2::client::Windows;
use loadgen::http2::frame::PREFACE;
use loadgen::http2::{Client, Event, Http2Error, Request, hpack};

/// Feeds `data` in pieces of the given sizes (cycled): the events (data added up per stream
/// run), the error, and our output.
fn run(data: &[u8], sizes: &[usize], body: usize) -> (Vec<String>, Option<Http2Error>, Vec<u8>) {
    let request = Request {
        blocks: hpack::encode_request([(":method", "POST"), (":path", "/"), ("x", "y")]),
        body: vec![b'b'; body],
    };
    let windows = Windows {
        stream: 65_535,
        connection: 1 << 20,
    };
    let mut client = Client::<u32>::new(Arc::from([request]), windows);
    for label in 0..3 {
        client.open(label);
    }
    let mut events: Vec<String> = Vec::new();
    let mut at = 0;
    let mut k = 0;
    while at < data.len() {
        let size = sizes[k % sizes.len()].max(1).min(data.len() - at);
        k += 1;
        let result = client.receive(&data[at..at + size], |event| {
            let line = match event {
                Event::Head { user, status, head_len, server } => {
                    format!("head {user} {status} {head_len} {server:?}")
                }
                Event::Data { user, data } => {
                    let previous = events.last().and_then(|last| {
                        let rest = last.strip_prefix(&format!("data {user} "))?;
                        rest.parse::<usize>().ok()
                    });
                    if let Some(previous) = previous {
                        events.pop();
                        format!("data {user} {}", previous + data.len())
                    } else {
                        format!("data {user} {}", data.len())
                    }
                }
                Event::End(user) => format!("end {user}"),
                Event::Reset { user, code } => format!("reset {user} {code}"),
            };
            events.push(line);
        });
        if let Err(error) = result {
            return (events, Some(error), client.output().clone());
        }
        at += size;
    }
    (events, None, client.output().clone())
}

/// Our output is the preface and whole frames, none longer than the default maximum.
fn check_frames(out: &[u8]) {
    let mut rest = out.strip_prefix(PREFACE).expect("the preface first");
    while !rest.is_empty() {
        assert!(rest.len() >= 9, "a cut frame head");
        let len = usize::from(rest[0]) << 16 | usize::from(rest[1]) << 8 | usize::from(rest[2]);
        assert!(len <= 16_384, "a frame of {len} bytes");
        assert!(rest.len() >= 9 + len, "a cut frame");
        rest = &rest[9 + len..];
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&seed, data)) = data.split_first() else {
        return;
    };
    let body = usize::from(seed) * 997;
    let whole = run(data, &[data.len().max(1)], body);
    check_frames(&whole.2);
    let sizes = [usize::from(seed % 7) + 1, usize::from(seed / 7 % 5) + 1, 9];
    let split = run(data, &sizes, body);
    assert_eq!((&whole.0, &whole.1), (&split.0, &split.1), "split {sizes:?}");
    if data.len() <= 4096 {
        let bytewise = run(data, &[1], body);
        assert_eq!((&whole.0, &whole.1), (&bytewise.0, &bytewise.1), "byte by byte");
    }
});
