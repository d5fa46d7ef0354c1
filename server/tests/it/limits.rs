//! Limits that hold under abuse, each against a real socket that abuses it: the header and body
//! timeouts against clients that drip one byte at a time, the write timeout against a client
//! that never reads, `--max-connections`, running out of file descriptors, and clients that
//! reset or half-close their connections.

use std::io::{ErrorKind, Read as _, Write as _};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use server::Config;

use crate::http::check_answer;
use crate::{ChildServer, Client, TEXT_XML, TestServer};

/// The timeout under test in every case: short, so that the tests are quick.
const LIMIT: Duration = Duration::from_millis(300);
/// How long a cut-off may take at most before the test calls it a hang.
const PATIENCE: Duration = Duration::from_secs(10);

/// A client that sends `prefix`, then one byte of `drip` every 50 ms.
struct Drip {
    name: &'static str,
    config: Config,
    prefix: String,
    drip: &'static [u8],
}

fn drips() -> Vec<Drip> {
    let off = Config {
        header_timeout: None,
        body_timeout: None,
        write_timeout: None,
        idle_timeout: None,
        ..Config::default()
    };
    let body = String::from_utf8(wstest::post_files::all()[1].body()).unwrap();
    vec![
        Drip {
            name: "headers, one byte at a time",
            config: Config {
                header_timeout: Some(LIMIT),
                ..off.clone()
            },
            prefix: String::new(),
            drip: b"POST /WSTest HTTP/1.1\r\nHost: t\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        },
        Drip {
            name: "a body, one byte at a time",
            config: Config {
                body_timeout: Some(LIMIT),
                ..off.clone()
            },
            prefix: format!(
                "POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nContent-Length: {}\r\n\r\n",
                body.len()
            ),
            drip: body.as_bytes().to_vec().leak(),
        },
        Drip {
            name: "a chunked body, one byte at a time",
            config: Config {
                body_timeout: Some(LIMIT),
                ..off.clone()
            },
            prefix: format!(
                "POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nTransfer-Encoding: chunked\r\n\r\n"
            ),
            drip: b"1\r\na\r\n1\r\nb\r\n1\r\nc\r\n1\r\nd\r\n1\r\ne\r\n1\r\nf\r\n1\r\ng\r\n1\r\nh\r\n1\r\ni\r\n1\r\nj\r\n1\r\nk\r\n1\r\nl\r\n",
        },
        Drip {
            name: "the next request's headers after an answered one",
            config: Config {
                header_timeout: Some(LIMIT),
                ..off
            },
            prefix: format!(
                "POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
            drip: b"POST /WSTest HTTP/1.1\r\nHost: t\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        },
    ]
}

/// The server must close a dripping connection after the limit, not before and not never.
#[track_caller]
fn check_drip(case: &Drip) {
    let server = TestServer::with_config(case.config.clone());
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream.set_nodelay(true).unwrap();
    // The read timeout is the drip's pace: one byte per read that finds nothing.
    stream
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    stream.write_all(case.prefix.as_bytes()).unwrap();
    let started = Instant::now();
    let mut received = Vec::new();
    let mut drip = case.drip.iter();
    loop {
        let mut buf = [0u8; 4096];
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => received.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
        let Some(&byte) = drip.next() else {
            panic!(
                "{}: the client ran out of bytes before it was cut off",
                case.name
            );
        };
        if stream.write_all(&[byte]).is_err() {
            break;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "{}: still connected after {PATIENCE:?}",
            case.name
        );
    }
    assert!(
        started.elapsed() >= LIMIT,
        "{}: cut off after {:?}, before the limit of {LIMIT:?}",
        case.name,
        started.elapsed()
    );
    // The only bytes a dripping client may see are the answer to its earlier complete request.
    let text = String::from_utf8_lossy(&received);
    assert!(
        received.is_empty()
            || (text.starts_with("HTTP/1.1 200") && text.matches("HTTP/").count() == 1),
        "{}: {text}",
        case.name
    );
}

#[test]
fn dripping_clients_are_cut_off() {
    for case in drips() {
        check_drip(&case);
    }
}

/// A GetOrder whose answer (tens of megabytes) cannot fit the socket buffers.
fn huge_get_order() -> Vec<u8> {
    br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetOrder xmlns="uri:WSTestWeb-TestService"><orderId>1</orderId><customerId>2</customerId><messageSize>100000</messageSize></GetOrder></soap:Body></soap:Envelope>"#.to_vec()
}

/// With one connection allowed, a second client is served only once the first is gone; and a
/// first client that never reads its answer is gone after the write timeout.
#[test]
fn a_client_that_never_reads_is_cut_off_and_frees_its_place() {
    let server = TestServer::with_config(Config {
        max_connections: 1,
        write_timeout: Some(LIMIT),
        idle_timeout: None,
        max_body: 8 * 1024 * 1024,
        ..Config::default()
    });
    let mut stalled = server.connect();
    let request = huge_get_order();
    stalled.send(
        format!(
            "POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nContent-Length: {}\r\n\r\n",
            request.len()
        )
        .as_bytes(),
    );
    stalled.send(&request);
    // The second connection waits in the accept queue until the first is cut off.
    let body = wstest::post_files::all()[0].body();
    let response = server.connect().post("/WSTest", &[TEXT_XML], &body);
    check_answer("after the stalled client", &body, &response);
    // What the stalled client can still read is a truncated answer, then the end.
    let mut received = Vec::new();
    let _ = stalled.stream.read_to_end(&mut received);
    let head_end = received.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&received[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .split("content-length: ")
        .nth(1)
        .and_then(|rest| rest.split("\r\n").next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        received.len() - head_end - 4 < length,
        "the stalled client got all {length} bytes"
    );
    // The server counts the answer it could not finish.
    let served = server.stop().unwrap();
    assert_eq!(
        served,
        server::Served {
            requests: 2,
            cut: 1
        }
    );
}

#[test]
fn connections_past_the_limit_wait_until_one_closes() {
    let server = TestServer::with_config(Config {
        max_connections: 2,
        ..Config::default()
    });
    let body = wstest::post_files::all()[0].body();
    let mut held: Vec<Client> = (0..2).map(|_| server.connect()).collect();
    for client in &mut held {
        check_answer("held", &body, &client.post("/WSTest", &[TEXT_XML], &body));
    }
    // The third is connected by the kernel but not served.
    let mut waiting = server.connect();
    waiting
        .stream
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    waiting.send(
        format!(
            "POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    waiting.send(&body);
    let mut byte = [0u8; 1];
    let early = waiting.stream.read(&mut byte);
    assert!(
        early
            .as_ref()
            .is_err_and(|e| matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)),
        "a connection past the limit was served: {early:?}"
    );
    drop(held.pop());
    waiting
        .stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    check_answer("once a place was free", &body, &waiting.read_response());
}

/// A server that runs out of file descriptors keeps the connections it has, and accepts again
/// once some close.
#[test]
fn running_out_of_file_descriptors_does_not_stop_the_server() {
    let server = ChildServer::start(&[], Some(40));
    let body = wstest::post_files::all()[0].body();
    // Far more connections than the server has descriptors for: the kernel accepts them all,
    // the server the first few dozen, and the first of them is served.
    let mut clients: Vec<Client> = (0..80).map(|_| server.connect()).collect();
    check_answer(
        "at the limit",
        &body,
        &clients[0].post("/WSTest", &[TEXT_XML], &body),
    );
    // Once they close, the server accepts again.
    clients.clear();
    for round in 0..20 {
        let response = server.connect().post("/WSTest", &[TEXT_XML], &body);
        check_answer(&format!("round {round} after the flood"), &body, &response);
    }
    assert!(
        server.stderr().contains("open files"),
        "the server did not say its file limit is too low: {}",
        server.stderr()
    );
}

/// How a client abandons its connection.
#[derive(Debug, Clone, Copy)]
enum Fault {
    /// Reset (SO_LINGER 0) after this many bytes of the request.
    ResetMidRequest(usize),
    /// Reset after sending the whole request, before reading the answer.
    ResetBeforeAnswer,
    /// Reset after reading this many bytes of the answer.
    ResetMidAnswer(usize),
    /// Shut down its sending side after the request, then read the answer.
    HalfClose,
}

#[test]
fn clients_that_reset_or_half_close_leave_the_server_serving_and_silent() {
    let server = ChildServer::start(&[], None);
    let request = huge_get_order();
    let head = format!(
        "POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nContent-Length: {}\r\n\r\n",
        request.len()
    );
    let whole = [head.as_bytes(), &request].concat();
    let faults = [
        Fault::ResetMidRequest(10),
        Fault::ResetMidRequest(head.len()),
        Fault::ResetMidRequest(whole.len() - 5),
        Fault::ResetBeforeAnswer,
        Fault::ResetMidAnswer(100),
        Fault::ResetMidAnswer(1_000_000),
        Fault::HalfClose,
    ];
    let body = wstest::post_files::all()[0].body();
    for fault in faults.iter().cycle().take(faults.len() * 5) {
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let sent = match *fault {
            Fault::ResetMidRequest(n) => n,
            _ => whole.len(),
        };
        stream.write_all(&whole[..sent]).unwrap();
        match *fault {
            Fault::ResetMidAnswer(n) => {
                let mut answer = vec![0u8; n];
                stream.read_exact(&mut answer).unwrap();
            }
            Fault::HalfClose => {
                stream.shutdown(Shutdown::Write).unwrap();
                let mut answer = Vec::new();
                stream.read_to_end(&mut answer).unwrap();
                assert!(
                    answer.starts_with(b"HTTP/1.1 200"),
                    "{fault:?}: {}",
                    String::from_utf8_lossy(&answer[..answer.len().min(200)])
                );
            }
            _ => {}
        }
        socket2::SockRef::from(&stream)
            .set_linger(Some(Duration::ZERO))
            .unwrap();
        drop(stream);
        let response = server.connect().post("/WSTest", &[TEXT_XML], &body);
        check_answer(&format!("after {fault:?}"), &body, &response);
    }
    assert_eq!(server.stderr(), "", "the server logged connection faults");
}

/// An idle keep-alive connection hibernates (hyper lets go of it) after a watchdog tick, here
/// 50 ms; requests that come at any moment around it, pipelined or not, are all answered.
#[test]
fn keep_alive_connections_that_hibernate_are_served_whenever_they_speak() {
    let server = TestServer::with_config(Config {
        header_timeout: Some(Duration::from_millis(200)),
        ..Config::default()
    });
    let files = wstest::post_files::all();
    let mut rng = testkit::Rng(0x5EED_1DE5);
    let mut client = server.connect();
    for round in 0..120 {
        // Pauses from none to three ticks, so that requests meet hibernation before, during
        // and after.
        std::thread::sleep(Duration::from_millis(rng.below(150) as u64));
        let file = &files[rng.below(files.len())];
        let body = file.body();
        if round % 10 == 9 {
            // Two at once: the second is in hyper's buffer when the first is answered.
            let head = format!(
                "POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let one = [head.as_bytes(), &body].concat();
            client.send(&[one.as_slice(), one.as_slice()].concat());
            check_answer("first of two", &body, &client.read_response());
            check_answer("second of two", &body, &client.read_response());
        } else {
            let response = client.post("/WSTest", &[TEXT_XML], &body);
            check_answer(&format!("round {round}: {}", file.name), &body, &response);
        }
    }
}
