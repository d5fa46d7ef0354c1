//! Time per call of `respond` (decode + operate + encode) for every post file, in process.
//!
//! Run with `cargo bench -p wstest`. A hand-written loop, not criterion: it prints one line per
//! file, which is what comparing bindings needs, and builds in seconds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use wstest::DateTime;

fn main() {
    if let Some(name) = std::env::var_os("ENCODE_ONLY") {
        let file = wstest::post_files::all()
            .into_iter()
            .find(|file| file.name == name)
            .unwrap();
        let body = file.body();
        let mut out = Vec::new();
        let ns = time_it(|| {
            out.clear();
            black_box(
                wstest::respond(
                    None,
                    black_box(&body),
                    DateTime { unix_millis: 0 },
                    &mut out,
                )
                .is_ok(),
            );
        });
        println!("{} respond {ns:.0} ns", file.name);
        return;
    }
    if let Some(name) = std::env::var_os("DECODE_ONLY") {
        let file = wstest::post_files::all()
            .into_iter()
            .find(|file| file.name == name)
            .unwrap();
        let body = file.body();
        let ns = time_it(|| {
            black_box(wstest::decode_request(black_box(&body), None).is_ok());
        });
        println!("{} decode {ns:.0} ns", file.name);
        return;
    }
    if std::env::var_os("RAW").is_some() {
        raw_scan();
        return;
    }
    let now = DateTime {
        unix_millis: 1_764_676_800_000,
    };
    let mut out = Vec::with_capacity(64 * 1024);
    println!(
        "{:<22} {:>8} {:>10} {:>12}",
        "post file", "bytes", "resp bytes", "ns/respond"
    );
    for file in wstest::post_files::all() {
        let body = file.body();
        let action = file.operation.soap_action().as_bytes();
        let mut n_calls = 0u64;
        let started = Instant::now();
        while started.elapsed() < Duration::from_millis(500) {
            for _ in 0..100 {
                out.clear();
                let result = wstest::respond(Some(action), black_box(&body), now, &mut out);
                black_box(result.is_ok());
            }
            n_calls += 100;
        }
        let per_call = started.elapsed().as_nanos() as f64 / n_calls as f64;
        let decode_ns = time_it(|| {
            black_box(wstest::decode_request(black_box(&body), None).is_ok());
        });
        let quick_ns = time_it(|| {
            black_box(
                wstest::decode::decode_request_with(
                    wstest::decode::LexerChoice::QuickXml,
                    black_box(&body),
                    None,
                )
                .is_ok(),
            );
        });
        let request = wstest::decode_request(&body, None).unwrap();
        let encode_ns = time_it(|| {
            out.clear();
            wstest::encode_request(black_box(&request), &mut out);
        });
        println!("   decode {decode_ns:.0} (quick-xml alone {quick_ns:.0}) encode {encode_ns:.0}");
        println!(
            "{:<22} {:>8} {:>10} {:>12.0}",
            file.name,
            body.len(),
            out.len(),
            per_call
        );
    }
}

fn time_it(mut f: impl FnMut()) -> f64 {
    let mut n = 0u64;
    let started = Instant::now();
    while started.elapsed()
        < Duration::from_millis(if std::env::var_os("DECODE_ONLY").is_some() {
            3000
        } else {
            300
        })
    {
        for _ in 0..100 {
            f();
        }
        n += 100;
    }
    started.elapsed().as_nanos() as f64 / n as f64
}

#[allow(dead_code)]
pub fn raw_scan() {
    for file in wstest::post_files::all() {
        let body = file.body();
        let mut n = 0u64;
        let started = Instant::now();
        while started.elapsed() < Duration::from_millis(300) {
            for _ in 0..100 {
                let mut reader = quick_xml::Reader::from_reader(black_box(&body[..]));
                let mut n_events = 0;
                loop {
                    match reader.read_event() {
                        Ok(quick_xml::events::Event::Eof) | Err(_) => break,
                        Ok(_) => n_events += 1,
                    }
                }
                black_box(n_events);
            }
            n += 100;
        }
        println!(
            "raw {:<22} {:>8.0} ns",
            file.name,
            started.elapsed().as_nanos() as f64 / n as f64
        );
        let mut n = 0u64;
        let started = Instant::now();
        while started.elapsed() < Duration::from_millis(300) {
            for _ in 0..100 {
                let mut reader = quick_xml::NsReader::from_reader(black_box(&body[..]));
                let mut n_events = 0;
                loop {
                    match reader.read_resolved_event() {
                        Ok((_, quick_xml::events::Event::Eof)) | Err(_) => break,
                        Ok(_) => n_events += 1,
                    }
                }
                black_box(n_events);
            }
            n += 100;
        }
        println!(
            "ns  {:<22} {:>8.0} ns",
            file.name,
            started.elapsed().as_nanos() as f64 / n as f64
        );
    }
}
