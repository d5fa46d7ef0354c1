//! Every limit means the same over HTTP/2 as over HTTP/1.1: a client making progress, however
//! slowly, is never cut by a timeout meant for a silent one, and one that stalls is ended by the
//! timeout named for what it stalls on, with a GOAWAY it can read before the close.
//!
//! The clients write raw frames (`testkit::h2_frames`), so nothing smooths what they send.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use server::Config;
use testkit::h2_frames::{
    CONTINUATION, DATA, END_HEADERS, END_STREAM, GOAWAY, HEADERS, PING, PREFACE, RST_STREAM,
    SETTINGS, WINDOW_UPDATE, frame,
};

use crate::TestServer;
use crate::http::check_model;
use crate::secure::{LIMIT, PATIENCE, POST_ROOT, h2_raw, limited};

/// A frame as read: type, flags, stream, payload.
pub(crate) type Frame = (u8, u8, u32, Vec<u8>);

const SETTINGS_INITIAL_WINDOW_SIZE: u16 = 0x4;
const ACK: u8 = 0x1;
const NO_ERROR: u32 = 0x0;

/// A limit the cases do not test, long enough that it cannot be what ended a connection within
/// the tested limit and its second of slack.
const LONG: Duration = Duration::from_secs(5);

/// HPACK for `POST /WSTest` with `content-type: text/xml`: literals without indexing, names
/// from the static table (`:path` is 4; `content-type` is 31, past the 4-bit prefix: 15 and then
/// 16), values without Huffman coding.
pub(crate) fn post_wstest_headers() -> Vec<u8> {
    let mut block = vec![0x83, 0x86, 0x04, 7];
    block.extend_from_slice(b"/WSTest");
    block.extend_from_slice(&[0x0f, 16, 8]);
    block.extend_from_slice(b"text/xml");
    block
}

/// Reads the next frame; `None` when the connection ended (closed or reset). A read that times
/// out is a hang, and fails the test.
pub(crate) fn read_frame(stream: &mut TcpStream) -> Option<Frame> {
    let mut head = [0u8; 9];
    if let Err(error) = stream.read_exact(&mut head) {
        assert!(
            !matches!(
                error.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
            "nothing from the server for {PATIENCE:?}"
        );
        return None;
    }
    let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
    let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
    let mut payload = vec![0u8; len];
    stream.read_exact(&mut payload).ok()?;
    Some((head[3], head[4], id, payload))
}

/// Reads until the connection ends: the GOAWAY's error code if one came, and how long after
/// `started` the end came.
fn read_to_end(stream: &mut TcpStream, started: Instant) -> (Option<u32>, Duration) {
    let mut code = None;
    while let Some((kind, _, _, payload)) = read_frame(stream) {
        if kind == GOAWAY {
            code = Some(u32::from_be_bytes(payload[4..8].try_into().unwrap()));
        }
    }
    (code, started.elapsed())
}

/// A client that stalls in one way, the limit that must end it, and no other limit shorter
/// than [`LONG`].
struct Stall {
    name: &'static str,
    config: Config,
    /// Connections stalling at once, each on its own thread.
    n_connections: usize,
    /// The first SETTINGS' (id, value) pairs.
    settings: &'static [(u16, u32)],
    /// What the client sends after its preface and SETTINGS, then nothing.
    send: fn() -> Vec<u8>,
}

fn only(limit: fn(&mut Config)) -> Config {
    let mut config = Config {
        header_timeout: Some(LONG),
        body_timeout: Some(LONG),
        write_timeout: Some(LONG),
        idle_timeout: Some(LONG),
        ..Config::default()
    };
    limit(&mut config);
    config
}

fn write_only() -> Config {
    only(|config| config.write_timeout = Some(LIMIT))
}

fn stalls() -> Vec<Stall> {
    let zero_window = |n_connections| Stall {
        name: "a client that keeps every window shut (write timeout)",
        config: write_only(),
        n_connections,
        settings: &[(SETTINGS_INITIAL_WINDOW_SIZE, 0)],
        // A request for an unserved path, answered 404 with a body that may never be sent.
        send: || frame(HEADERS, END_HEADERS | END_STREAM, 1, POST_ROOT),
    };
    vec![
        zero_window(1),
        zero_window(2),
        zero_window(4),
        Stall {
            name: "a client that stops reading a large answer (write timeout)",
            config: write_only(),
            n_connections: 1,
            settings: &[],
            // GetOrder of 1,300 line items: about 260 KB, past the socket's buffers and the
            // first window. The client reads nothing more.
            send: || {
                let mut bytes = frame(HEADERS, END_HEADERS, 1, &post_wstest_headers());
                bytes.extend(frame(DATA, END_STREAM, 1, &get_order(1300)));
                bytes
            },
        },
        Stall {
            name: "a header block left open (header timeout)",
            config: only(|config| config.header_timeout = Some(LIMIT)),
            n_connections: 1,
            settings: &[],
            send: || frame(HEADERS, 0, 1, POST_ROOT),
        },
        Stall {
            name: "a header block whose CONTINUATION stops half-way (header timeout)",
            config: only(|config| config.header_timeout = Some(LIMIT)),
            n_connections: 1,
            settings: &[],
            send: || {
                let mut bytes = frame(HEADERS, 0, 1, &POST_ROOT[..1]);
                bytes.extend(&frame(CONTINUATION, END_HEADERS, 1, &POST_ROOT[1..])[..10]);
                bytes
            },
        },
        Stall {
            name: "a PING cut short (header timeout)",
            config: only(|config| config.header_timeout = Some(LIMIT)),
            n_connections: 1,
            settings: &[],
            send: || frame(PING, 0, 0, &[7; 8])[..12].to_vec(),
        },
        Stall {
            name: "a request whose body never comes (body timeout: 408, then idle)",
            config: only(|config| {
                config.body_timeout = Some(LIMIT);
                config.idle_timeout = Some(LIMIT);
            }),
            n_connections: 1,
            settings: &[],
            send: || frame(HEADERS, END_HEADERS, 1, &post_wstest_headers()),
        },
        Stall {
            name: "a connection with no stream (idle timeout)",
            config: only(|config| config.idle_timeout = Some(LIMIT)),
            n_connections: 1,
            settings: &[],
            send: Vec::new,
        },
    ]
}

/// Each stalling client is ended by its limit, with a GOAWAY (NO_ERROR) read before the close,
/// within the limit and a second; the server then serves others.
#[test]
fn each_stall_over_h2_is_ended_by_its_own_limit_with_a_goaway() {
    let certs = testkit::certs::TestCerts::new("h2-stalls");
    for stall in stalls() {
        let name = format!("{} on {} connections", stall.name, stall.n_connections);
        let server = TestServer::with_config(stall.config);
        let ends: Vec<_> = (0..stall.n_connections)
            .map(|_| {
                let addr = server.addr;
                let (settings, send) = (stall.settings, stall.send);
                std::thread::spawn(move || {
                    let mut stream = h2_raw(addr, settings);
                    stream.write_all(&send()).unwrap();
                    read_to_end(&mut stream, Instant::now())
                })
            })
            .collect();
        for end in ends {
            let (code, took) = end.join().unwrap();
            assert_eq!(code, Some(NO_ERROR), "{name}: GOAWAY");
            assert!(
                took >= LIMIT - Duration::from_millis(50) && took <= LIMIT + Duration::from_secs(1),
                "{name}: ended after {took:?}, the limit being {LIMIT:?}"
            );
        }
        crate::secure::check_still_serves(&name, &server, &certs, false);
    }
}

/// A GetOrder request for `n` line items.
fn get_order(n: u32) -> Vec<u8> {
    wstest::post_files::all()
        .into_iter()
        .find(|file| file.operation == wstest::Operation::GetOrder)
        .map(|file| {
            String::from_utf8(file.body())
                .unwrap()
                .replacen(
                    &format!("<messageSize>{}</messageSize>", file.size),
                    &format!("<messageSize>{n}</messageSize>"),
                    1,
                )
                .into_bytes()
        })
        .unwrap()
}

/// A client that reads a large answer slowly but steadily (16 KB of window every 100 ms, well
/// inside every limit, for longer than all of them) gets it whole: WINDOW_UPDATEs are not the
/// start of a head, and each frame taken is progress for the write timeout.
#[test]
fn a_steady_slow_reader_over_h2_gets_its_whole_answer() {
    const WINDOW: u32 = 16 * 1024;
    const PACE: Duration = Duration::from_millis(100);
    let server = TestServer::with_config(limited());
    let mut stream = h2_raw(server.addr, &[(SETTINGS_INITIAL_WINDOW_SIZE, WINDOW)]);
    let request = get_order(1300);
    let mut bytes = frame(HEADERS, END_HEADERS, 1, &post_wstest_headers());
    bytes.extend(frame(DATA, END_STREAM, 1, &request));
    stream.write_all(&bytes).unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    loop {
        let Some((kind, flags, id, payload)) = read_frame(&mut stream) else {
            panic!(
                "the connection ended after {:?} and {} bytes of the answer",
                started.elapsed(),
                answer.len()
            );
        };
        match kind {
            SETTINGS if flags & ACK == 0 => {
                stream.write_all(&frame(SETTINGS, ACK, 0, &[])).unwrap()
            }
            GOAWAY | RST_STREAM => panic!(
                "frame {kind} {payload:?} after {:?} and {} bytes",
                started.elapsed(),
                answer.len()
            ),
            DATA if id == 1 => {
                answer.extend_from_slice(&payload);
                if flags & END_STREAM != 0 {
                    break;
                }
                std::thread::sleep(PACE);
                let n = (payload.len() as u32).to_be_bytes();
                let mut update = frame(WINDOW_UPDATE, 0, 0, &n);
                update.extend(frame(WINDOW_UPDATE, 0, 1, &n));
                stream.write_all(&update).unwrap();
            }
            _ => {}
        }
    }
    let took = started.elapsed();
    assert!(
        took > 3 * LIMIT,
        "the answer came in {took:?}: too fast to show anything"
    );
    let reply = wstest::decode_response(&answer).unwrap();
    let wstest::Reply::Response(actual) = reply else {
        panic!("{reply:?}")
    };
    check_model("the slow reader's answer", &request, &actual);
}

/// A client that the server ends (here for DATA after its stream's end, a connection error)
/// while it still floods the server with frames and has not read for a while reads the GOAWAY
/// that says why: the server closes its side and drains what comes before it closes the
/// socket. (Closing with unread bytes resets the connection and throws away the server's send
/// queue, where the GOAWAY waits behind the answer the client has not read: the client's
/// receive buffer is made small so that it does.)
#[test]
fn a_flooding_client_reads_the_goaway_that_ends_it() {
    let server = TestServer::with_config(limited());
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.connect(&server.addr.into()).unwrap();
    let mut stream: TcpStream = socket.into();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut hello = PREFACE.to_vec();
    hello.extend(frame(SETTINGS, 0, 0, &[]));
    hello.extend(frame(HEADERS, END_HEADERS, 1, &post_wstest_headers()));
    hello.extend(frame(DATA, END_STREAM, 1, &get_order(1300)));
    stream.write_all(&hello).unwrap();
    let mut flood_stream = stream.try_clone().unwrap();
    let flood = std::thread::spawn(move || {
        let burst: Vec<u8> = (0..1000).flat_map(|_| frame(DATA, 0, 1, &[])).collect();
        let started = Instant::now();
        while flood_stream.write_all(&burst).is_ok() && started.elapsed() < PATIENCE {}
    });
    // The client reads a while after the server has ended its connection (this is the case
    // under test, not a wait for something to happen).
    std::thread::sleep(Duration::from_millis(200));
    let (code, _) = read_to_end(&mut stream, Instant::now());
    flood.join().unwrap();
    assert!(
        code.is_some_and(|code| code != NO_ERROR),
        "the connection ended without an error GOAWAY read ({code:?})"
    );
}

/// A stream whose answer does not move while the others on its connection do is reset on its
/// own (RST_STREAM CANCEL) at the write timeout; the connection goes on serving.
#[test]
fn a_stalled_stream_among_moving_ones_is_reset_alone() {
    const CANCEL: u32 = 0x8;
    let server = TestServer::with_config(write_only());
    // Stream windows of 16 KB; the connection's window opened wide.
    let mut stream = h2_raw(server.addr, &[(SETTINGS_INITIAL_WINDOW_SIZE, 16 * 1024)]);
    let mut bytes = frame(WINDOW_UPDATE, 0, 0, &(1u32 << 30).to_be_bytes());
    // Stream 1: about 260 KB of answer, of which the client lets 16 KB come.
    bytes.extend(frame(HEADERS, END_HEADERS, 1, &post_wstest_headers()));
    bytes.extend(frame(DATA, END_STREAM, 1, &get_order(1300)));
    stream.write_all(&bytes).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let started = Instant::now();
    let (mut next_id, mut answered, mut reset) = (3u32, 0, None);
    // A small request every 100 ms on new streams, whose answers move.
    while started.elapsed() < LIMIT * 3 + Duration::from_secs(1) {
        stream
            .write_all(&frame(
                HEADERS,
                END_HEADERS | END_STREAM,
                next_id,
                POST_ROOT,
            ))
            .unwrap();
        next_id += 2;
        let mut head = [0u8; 9];
        loop {
            match stream.read_exact(&mut head) {
                Ok(()) => {}
                Err(error)
                    if matches!(
                        error.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    break;
                }
                Err(error) => panic!("the connection ended: {error}"),
            }
            let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
            let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
            let mut payload = vec![0u8; len];
            stream.read_exact(&mut payload).unwrap();
            match head[3] {
                GOAWAY => panic!("GOAWAY {payload:?} after {:?}", started.elapsed()),
                RST_STREAM if id == 1 => {
                    let code = u32::from_be_bytes(payload[..4].try_into().unwrap());
                    reset = Some((code, started.elapsed()));
                }
                RST_STREAM => panic!("stream {id} reset"),
                DATA if id > 1 && head[4] & END_STREAM != 0 => answered += 1,
                _ => {}
            }
        }
    }
    let (code, took) = reset.expect("stream 1 was never reset");
    assert_eq!(code, CANCEL);
    assert!(
        took >= LIMIT - Duration::from_millis(50) && took <= LIMIT + Duration::from_secs(1),
        "reset after {took:?}"
    );
    assert!(
        answered >= 10,
        "only {answered} answers on the other streams"
    );
}
