//! loadgen's HTTP/2 client without IO: HPACK against RFC 7541's own examples, the request's
//! blocks, and a table of server byte sequences, each fed whole, split at every byte and a
//! byte at a time, with the events and the error they must give and the frames we answer.

use std::sync::Arc;

use loadgen::http2::client::Windows;
use loadgen::http2::frame::{MAX_FRAME, code};
use loadgen::http2::hpack::{self, Decoder, HpackError};
use loadgen::http2::huffman;
use loadgen::http2::{Client, Event, Http2Error, Request};
use testkit::h2_frames::{
    CONTINUATION, DATA, GOAWAY, HEADERS, PING, PREFACE, PUSH_PROMISE, RST_STREAM, SETTINGS,
    WINDOW_UPDATE, frame,
};

fn hex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap())
        .collect()
}

/// Decodes `blocks` in order on one decoder: each block's fields as "name: value" lines.
fn decode_all(decoder: &mut Decoder, blocks: &[Vec<u8>]) -> Result<Vec<Vec<String>>, HpackError> {
    blocks
        .iter()
        .map(|block| {
            let mut fields = Vec::new();
            decoder.decode(block, |name, value| {
                fields.push(format!(
                    "{}: {}",
                    String::from_utf8_lossy(name),
                    String::from_utf8_lossy(value)
                ));
            })?;
            Ok(fields)
        })
        .collect()
}

#[test]
fn hpack_decodes_rfc_7541s_examples() {
    let requests = [
        vec![
            ":method: GET",
            ":scheme: http",
            ":path: /",
            ":authority: www.example.com",
        ],
        vec![
            ":method: GET",
            ":scheme: http",
            ":path: /",
            ":authority: www.example.com",
            "cache-control: no-cache",
        ],
        vec![
            ":method: GET",
            ":scheme: https",
            ":path: /index.html",
            ":authority: www.example.com",
            "custom-key: custom-value",
        ],
    ];
    let responses = [
        vec![
            ":status: 302",
            "cache-control: private",
            "date: Mon, 21 Oct 2013 20:13:21 GMT",
            "location: https://www.example.com",
        ],
        vec![
            ":status: 307",
            "cache-control: private",
            "date: Mon, 21 Oct 2013 20:13:21 GMT",
            "location: https://www.example.com",
        ],
        vec![
            ":status: 200",
            "cache-control: private",
            "date: Mon, 21 Oct 2013 20:13:22 GMT",
            "location: https://www.example.com",
            "content-encoding: gzip",
            "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
        ],
    ];
    // C.5 and C.6 run with a 256-byte table: a size update opens their first block.
    let table_256 = "3fe101";
    // Name, blocks in hex, and each block's fields.
    type Example<'a> = (&'a str, Vec<&'a str>, &'a [Vec<&'a str>]);
    let cases: [Example; 4] = [
        (
            "C.3 requests, literals",
            vec![
                "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                "8286 84be 5808 6e6f 2d63 6163 6865",
                "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
            ],
            &requests,
        ),
        (
            "C.4 requests, Huffman",
            vec![
                "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
                "8286 84be 5886 a8eb 1064 9cbf",
                "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
            ],
            &requests,
        ),
        (
            "C.5 responses, literals, evictions",
            vec![
                "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
                "4803 3330 37c1 c0bf",
                "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31",
            ],
            &responses,
        ),
        (
            "C.6 responses, Huffman, evictions",
            vec![
                "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
                "4883 640e ffc1 c0bf",
                "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
            ],
            &responses,
        ),
    ];
    for (name, blocks, expected) in cases {
        let mut blocks: Vec<Vec<u8>> = blocks.into_iter().map(hex).collect();
        if name.starts_with("C.5") || name.starts_with("C.6") {
            blocks[0].splice(0..0, hex(table_256));
        }
        let decoded = decode_all(&mut Decoder::default(), &blocks)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        assert_eq!(decoded, expected, "{name}");
    }
}

#[test]
fn hpack_refuses_broken_blocks() {
    let cases: [(&str, &str, HpackError); 7] = [
        ("index 0", "80", HpackError::BadIndex(0)),
        ("an index past both tables", "be", HpackError::BadIndex(62)),
        (
            "a literal cut short",
            "400a 6375 7374",
            HpackError::Truncated,
        ),
        (
            "an endless integer",
            "ff ff ff ff ff ff 01",
            HpackError::Overflow,
        ),
        (
            "a table above our setting",
            "3fe2 1f",
            HpackError::TableSize(4097),
        ),
        (
            "a size update after a field",
            "82 20",
            HpackError::LateTableSize,
        ),
        // "a" is 00011, padded with 0s instead of EOS's 1s.
        ("Huffman padded with zeros", "0081 18", HpackError::Huffman),
    ];
    for (name, block, expected) in cases {
        let result = decode_all(&mut Decoder::default(), &[hex(block)]);
        assert_eq!(result, Err(expected), "{name}");
    }
    // A list past the limit: the same indexed field, again and again.
    let long = vec![0x82; hpack::MAX_HEADER_LIST / 40 + 1];
    assert_eq!(
        decode_all(&mut Decoder::default(), &[long]),
        Err(HpackError::TooLarge)
    );
}

#[test]
fn huffman_round_trips_and_refuses_eos() {
    for text in [
        "",
        "a",
        "www.example.com",
        "no-cache",
        "\u{0}\u{ff}~ binary \t",
        "x".repeat(300).as_str(),
    ] {
        let mut coded = Vec::new();
        huffman::encode(text.as_bytes(), &mut coded);
        assert_eq!(
            coded.len(),
            huffman::encoded_len(text.as_bytes()),
            "{text:?}"
        );
        let mut decoded = Vec::new();
        huffman::decode(&coded, &mut decoded).unwrap();
        assert_eq!(decoded, text.as_bytes());
    }
    // EOS (30 ones) inside the string, and 8 bits of padding.
    for bad in [&[0xff, 0xff, 0xff, 0xff][..], &[0x1f, 0xff]] {
        assert!(huffman::decode(bad, &mut Vec::new()).is_err(), "{bad:?}");
    }
}

/// What a request's fields give through the forms a connection sends.
#[test]
fn request_blocks_decode_to_the_fields() {
    let fields = [
        (":method", "POST"),
        (":scheme", "http"),
        (":authority", "127.0.0.1:8080"),
        (":path", "/WSTest/Service"),
        ("content-length", "1063"),
        ("content-type", "text/xml; charset=utf-8"),
        ("soapaction", "\"uri:WSTestWeb-TestService/EchoStruct\""),
    ];
    let lines: Vec<String> = fields.iter().map(|(n, v)| format!("{n}: {v}")).collect();
    let blocks = hpack::encode_request(fields);
    // Two static entries, then one byte a field by index.
    assert_eq!(blocks.indexed.len(), fields.len());
    assert!(blocks.first.len() > 60);
    let mut decoder = Decoder::default();
    let decoded = decode_all(
        &mut decoder,
        &[
            blocks.first.clone(),
            blocks.indexed.clone(),
            blocks.indexed.clone(),
        ],
    )
    .unwrap();
    assert!(decoded.iter().all(|fields| *fields == lines));
    let decoded = decode_all(&mut Decoder::default(), std::slice::from_ref(&blocks.plain)).unwrap();
    assert_eq!(decoded, [lines]);
    // Fields too large for the default table: the plain form for all three.
    let long = "v".repeat(5000);
    let blocks = hpack::encode_request([(":method", "GET"), ("x-long", long.as_str())]);
    assert_eq!(blocks.table_size, 0);
    assert_eq!(blocks.first, blocks.plain);
    assert_eq!(blocks.indexed, blocks.plain);
}

// --- The connection ---

fn settings(pairs: &[(u16, u32)]) -> Vec<u8> {
    let payload: Vec<u8> = pairs
        .iter()
        .flat_map(|(id, value)| [id.to_be_bytes().to_vec(), value.to_be_bytes().to_vec()].concat())
        .collect();
    frame(SETTINGS, 0, 0, &payload)
}

/// A response head: `:status` and `server`, literals the decoder does not keep.
fn head(stream: u32, status: &str, end_stream: bool) -> Vec<u8> {
    let block = hpack::encode_request([(":status", status), ("server", "wstest")]).plain;
    frame(HEADERS, 0x4 | u8::from(end_stream), stream, &block)
}

fn data(stream: u32, bytes: &[u8], end_stream: bool) -> Vec<u8> {
    frame(DATA, u8::from(end_stream), stream, bytes)
}

fn u32s(values: &[u32]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|value| value.to_be_bytes())
        .collect()
}

/// The frames of our output, after the preface: (type, flags, stream, payload length).
fn sent(out: &[u8]) -> Vec<(u8, u8, u32, usize)> {
    let mut out = out.strip_prefix(PREFACE).unwrap_or(out);
    let mut frames = Vec::new();
    while out.len() >= 9 {
        let len = usize::from(out[0]) << 16 | usize::from(out[1]) << 8 | usize::from(out[2]);
        let stream = u32::from_be_bytes([out[5], out[6], out[7], out[8]]);
        frames.push((out[3], out[4], stream, len));
        out = &out[9 + len..];
    }
    frames
}

struct Case {
    name: &'static str,
    /// Request body; streams opened before the server's bytes arrive.
    body: usize,
    streams: usize,
    server: Vec<u8>,
    events: &'static [&'static str],
    error: Option<Http2Error>,
    /// Frames we must have queued in answer: (type, flags, stream, payload length).
    answers: &'static [(u8, u8, u32, usize)],
}

const fn case(name: &'static str) -> Case {
    Case {
        name,
        body: 0,
        streams: 1,
        server: Vec::new(),
        events: &[],
        error: None,
        answers: &[],
    }
}

/// Runs a case's bytes in `pieces`: the events, the error, and our output after opening.
fn run(case: &Case, pieces: &[&[u8]]) -> (Vec<String>, Option<Http2Error>, Vec<u8>) {
    let request = Request {
        blocks: hpack::encode_request([(":method", "POST"), (":path", "/")]),
        body: vec![b'x'; case.body],
    };
    let windows = Windows {
        stream: 1 << 20,
        connection: 16 << 20,
    };
    let mut client = Client::<u32>::new(Arc::from([request]), windows);
    for label in 0..case.streams {
        client.open(label as u32 * 2 + 1);
    }
    client.output().clear();
    let mut events = Vec::new();
    let mut error = None;
    for piece in pieces {
        let result = client.receive(piece, |event| {
            events.push(match event {
                Event::Head {
                    user,
                    status,
                    head_len,
                    server,
                } => format!(
                    "head {user} {status} {head_len} {}",
                    String::from_utf8_lossy(server.unwrap_or(b"-"))
                ),
                Event::Data { user, data } => format!("data {user} {}", data.len()),
                Event::End(user) => format!("end {user}"),
                Event::Reset { user, code } => format!("reset {user} {}", code::name(code)),
            });
        });
        if let Err(failure) = result {
            error = Some(failure);
            break;
        }
    }
    // Data events may come in more pieces when the bytes do: add them up.
    let mut merged: Vec<String> = Vec::new();
    for event in events {
        if let (Some(last), Some(rest)) = (merged.last_mut(), event.strip_prefix("data "))
            && let Some(previous) = last.strip_prefix("data ")
        {
            let (user, n) = previous.rsplit_once(' ').unwrap();
            let (user2, m) = rest.rsplit_once(' ').unwrap();
            if user == user2 {
                let total: usize = n.parse::<usize>().unwrap() + m.parse::<usize>().unwrap();
                *last = format!("data {user} {total}");
                continue;
            }
        }
        merged.push(event);
    }
    (merged, error, client.output().clone())
}

#[track_caller]
fn check(case: &Case) {
    let bytes = case.server.as_slice();
    let whole = run(case, &[bytes]);
    assert_eq!(whole.0, case.events, "{}: events", case.name);
    assert_eq!(whole.1, case.error, "{}: error", case.name);
    let frames = sent(&whole.2);
    for answer in case.answers {
        assert!(
            frames.contains(answer),
            "{}: {answer:?} not among our frames {frames:?}",
            case.name
        );
    }
    // Every split of a short case; a few hundred spread over a long one (each split runs the
    // whole case again).
    let step = (bytes.len() / 400).max(1);
    for split in (1..bytes.len()).step_by(step) {
        let (a, b) = bytes.split_at(split);
        let split_run = run(case, &[a, b]);
        assert_eq!(
            (&split_run.0, &split_run.1),
            (&whole.0, &whole.1),
            "{}: split at {split}",
            case.name
        );
    }
    // A byte at a time over a megabyte would be slow and prove nothing the short cases do not.
    if bytes.len() <= 64 * 1024 {
        let single: Vec<&[u8]> = bytes.chunks(1).collect();
        let single_run = run(case, &single);
        assert_eq!(
            (&single_run.0, &single_run.1),
            (&whole.0, &whole.1),
            "{}: a byte at a time",
            case.name
        );
    }
}

#[test]
fn the_client_reads_the_servers_frames() {
    let hello = settings(&[(3, 100), (4, 65_535)]);
    let with = |frames: &[Vec<u8>]| [hello.clone(), frames.concat()].concat();
    // A head's length as HTTP/1.1 text: 17, and "server" + "wstest" + 4 = 33.
    let cases = [
        Case {
            server: with(&[head(1, "200", false), data(1, b"hello", true)]),
            events: &["head 1 200 33 wstest", "data 1 5", "end 1"],
            answers: &[(SETTINGS, 1, 0, 0)],
            ..case("a response in HEADERS and DATA")
        },
        Case {
            streams: 2,
            server: with(&[
                head(3, "200", true),
                head(1, "100", false),
                head(1, "500", false),
                data(1, b"", true),
            ]),
            events: &[
                "head 3 200 33 wstest",
                "end 3",
                "head 1 500 33 wstest",
                "end 1",
            ],
            ..case("an informational head passed over; streams in any order")
        },
        Case {
            server: with(&[frame(PING, 0, 0, b"12345678")]),
            answers: &[(PING, 1, 0, 8)],
            ..case("PING is answered")
        },
        Case {
            streams: 3,
            server: with(&[frame(GOAWAY, 0, 0, &u32s(&[1, 0]))]),
            events: &["reset 3 REFUSED_STREAM", "reset 5 REFUSED_STREAM"],
            ..case("GOAWAY refuses the streams above its last")
        },
        Case {
            server: with(&[frame(RST_STREAM, 0, 1, &u32s(&[2]))]),
            events: &["reset 1 INTERNAL_ERROR"],
            ..case("RST_STREAM fails the stream")
        },
        Case {
            server: with(&[frame(DATA, 0, 1, b"early")]),
            events: &["reset 1 PROTOCOL_ERROR"],
            answers: &[(RST_STREAM, 0, 1, 4)],
            ..case("DATA before the head resets the stream")
        },
        Case {
            server: with(&[{
                let block = hpack::encode_request([(":status", "200")]).plain;
                let mut headers = frame(HEADERS, 0, 1, &block[..0]);
                headers.extend(frame(CONTINUATION, 0, 1, &block[..1]));
                headers.extend(frame(CONTINUATION, 0x4 | 0x1, 1, &block[1..]));
                headers
            }]),
            events: &["head 1 200 17 -"],
            ..case("END_STREAM is HEADERS' flag, not CONTINUATION's")
        },
        Case {
            server: with(&[{
                let block = hpack::encode_request([(":status", "204")]).plain;
                let mut headers = frame(HEADERS, 0x1, 1, &[]);
                headers.extend(frame(CONTINUATION, 0x4, 1, &block));
                headers
            }]),
            events: &["head 1 204 17 -", "end 1"],
            ..case("a head in HEADERS and CONTINUATION")
        },
        Case {
            body: 100_000,
            server: with(&[
                frame(WINDOW_UPDATE, 0, 0, &u32s(&[40_000])),
                frame(WINDOW_UPDATE, 0, 1, &u32s(&[40_000])),
            ]),
            // 65,535 went at once; the updates let 34,465 more go, in frames of 16,384.
            answers: &[(DATA, 0, 1, 16_384), (DATA, 1, 1, 1_697)],
            ..case("a body beyond the windows waits for WINDOW_UPDATE")
        },
        Case {
            server: b"HTTP/1.1 400 Bad Request\r\n\r\n".to_vec(),
            error: Some(Http2Error::Http1),
            ..case("an HTTP/1.1 answer")
        },
        Case {
            server: frame(PING, 0, 0, b"12345678"),
            error: Some(Http2Error::NoSettings),
            answers: &[(GOAWAY, 0, 0, 8)],
            ..case("a first frame other than SETTINGS")
        },
        Case {
            server: with(&[frame(DATA, 0, 1, &vec![0; MAX_FRAME + 1])]),
            error: Some(Http2Error::FrameSize(
                "a frame longer than our SETTINGS_MAX_FRAME_SIZE",
            )),
            ..case("a frame past our maximum")
        },
        Case {
            server: with(&[frame(PUSH_PROMISE, 0x4, 1, &u32s(&[2]))]),
            error: Some(Http2Error::Protocol(
                "PUSH_PROMISE, though our SETTINGS disabled push",
            )),
            ..case("a push")
        },
        Case {
            server: with(&[head(9, "200", true)]),
            error: Some(Http2Error::Protocol("HEADERS on a stream never opened")),
            ..case("HEADERS on a stream never opened")
        },
        Case {
            server: with(&[frame(HEADERS, 0, 1, &[0x88]), data(1, b"x", true)]),
            error: Some(Http2Error::Protocol(
                "a header block interrupted before its END_HEADERS",
            )),
            ..case("a header block interrupted")
        },
        Case {
            server: with(&[
                frame(HEADERS, 0, 1, &[]),
                (0..5)
                    .flat_map(|_| frame(CONTINUATION, 0, 1, &[0x88; MAX_FRAME]))
                    .collect(),
            ]),
            error: Some(Http2Error::Compression(HpackError::TooLarge)),
            ..case("a CONTINUATION flood")
        },
        Case {
            server: with(&[
                head(1, "200", false),
                (0..65)
                    .flat_map(|_| data(1, &[0; MAX_FRAME], false))
                    .collect(),
            ]),
            events: &["head 1 200 33 wstest", "data 1 1064960"],
            answers: &[(WINDOW_UPDATE, 0, 1, 4)],
            ..case("a long body tops up the stream's window")
        },
        Case {
            server: with(&[frame(WINDOW_UPDATE, 0, 0, &u32s(&[0x7fff_ffff]))]),
            error: Some(Http2Error::FlowControl(
                "WINDOW_UPDATE opens the connection's window past 2^31-1",
            )),
            ..case("a window past 2^31-1")
        },
        Case {
            server: settings(&[(5, 100)]),
            error: Some(Http2Error::Protocol(
                "SETTINGS_MAX_FRAME_SIZE outside 16384..16777215",
            )),
            ..case("a frame size below the least")
        },
        Case {
            server: [settings(&[]), frame(SETTINGS, 0, 0, &[0; 5])].concat(),
            error: Some(Http2Error::FrameSize("SETTINGS not a multiple of 6 bytes")),
            ..case("SETTINGS of 5 bytes")
        },
    ];
    for case in &cases {
        check(case);
    }
}

/// A server that shrinks its table below what the first request filled gets a size update
/// and literals from then on.
#[test]
fn a_smaller_table_gets_a_size_update_and_literals() {
    let blocks =
        hpack::encode_request([(":method", "POST"), (":path", "/a"), ("x-field", "value")]);
    let request = Request {
        blocks: blocks.clone(),
        body: Vec::new(),
    };
    let windows = Windows {
        stream: 65_535,
        connection: 65_535,
    };
    let mut client = Client::<()>::new(Arc::from([request]), windows);
    let mut decoder = Decoder::default();
    let mut sent_blocks = Vec::new();
    let mut take = |client: &mut Client<()>| {
        let out = std::mem::take(client.output());
        let out = out.strip_prefix(PREFACE).unwrap_or(&out).to_vec();
        let mut rest = out.as_slice();
        while rest.len() >= 9 {
            let len = usize::from(rest[1]) << 8 | usize::from(rest[2]);
            if rest[3] == HEADERS {
                sent_blocks.push(rest[9..9 + len].to_vec());
            }
            rest = &rest[9 + len..];
        }
    };
    client.open(());
    client.open(());
    take(&mut client);
    client.receive(&settings(&[(1, 0)]), |_| {}).unwrap();
    client.open(());
    client.open(());
    take(&mut client);
    assert_eq!(sent_blocks[0], blocks.first);
    assert_eq!(sent_blocks[1], blocks.indexed);
    assert_eq!(sent_blocks[2], [&[0x20][..], &blocks.plain].concat());
    assert_eq!(sent_blocks[3], blocks.plain);
    let decoded = decode_all(&mut decoder, &sent_blocks).unwrap();
    assert!(decoded.windows(2).all(|pair| pair[0] == pair[1]));
}
