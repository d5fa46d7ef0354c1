//! Small HTTP servers on 127.0.0.1 port 0 that misbehave on purpose, one thread a connection,
//! over plain TCP or TLS (rustls, with [`TestCerts`]).

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use rustls::{ServerConfig, ServerConnection, StreamOwned};

use crate::certs::TestCerts;

mod h2;

/// What the server does with each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// `200` with [`BODY`] after a fixed delay.
    Delay(Duration),
    /// `200` with bodies of 10 and 11 bytes in turn.
    VaryingLength,
    /// [`BODY`] with this status.
    Status(u16),
    /// [`BODY`] in three chunks, with an extension and a trailer.
    Chunked,
    /// Promises 100 bytes, sends 10, closes.
    CloseMidResponse,
    /// Reads requests and never answers.
    Stall,
    /// [`BODY`], promising keep-alive, then closes without a word.
    CloseAfterEach,
    /// Something that is not HTTP.
    Garbage,
    /// A head that never ends, 100 KiB of it.
    EndlessHead,
    /// [`BODY`] to the first request the server reads; every later one is closed unanswered,
    /// as by a server that died after its first answer.
    AnswerOnce,
    /// [`BODY`], keeping the connection open even when the request asked to close it.
    IgnoreClose,
    /// Resets the connection (RST, SO_LINGER 0) at a point that changes from request to
    /// request: before answering, after the head, in mid-body; every fourth is answered.
    ResetAtRandom,
    /// Promises 100 bytes, sends 10, and then neither sends nor closes.
    ShortBodyThenStall,
    /// A chunked body that never ends: 16 chunks of 1 KiB a millisecond, for as long as it is
    /// read.
    EndlessChunked,
    /// `100 Continue` after `100 Continue` (600 a millisecond), and never the response.
    EndlessInterim,
    /// A response head of header lines that goes on to 100 MB.
    HugeHead,
    /// A good response, one byte every 100 ms.
    Drip,
    /// `200` promising a body of ten billion bytes, a few of them, then nothing more.
    HugeLength,
    /// Accepts connections and never reads from them.
    NeverReads,
    /// A server of known capacity: [`BODY`] at once while the requests that arrived in the
    /// last [`CAPACITY_WINDOW`] number at most its share of this many a second, and after
    /// [`OVERLOAD_DELAY`] past that.
    Capacity(u32),
    /// HTTP/2 (h2c with prior knowledge): [`BODY`] to this many requests a connection, then a
    /// GOAWAY naming the last one answered and the end of the connection; the streams it did
    /// not answer were refused unprocessed (nginx's keepalive_requests does this).
    H2GoAwayAfter(u32),
    /// HTTP/2: each connection's first stream reset with REFUSED_STREAM unprocessed, the rest
    /// answered.
    H2RefuseFirst,
    /// HTTP/2: a GOAWAY with last stream 0 as soon as the preface is in: nothing is ever
    /// processed.
    H2RefuseAll,
    /// HTTP/2: SETTINGS_MAX_CONCURRENT_STREAMS 0, and any stream sent before the client read it
    /// reset with REFUSED_STREAM: no stream may ever open.
    H2NoStreams,
    /// A SOAP service of these operations: a request whose body holds an operation's request
    /// element and whose head its action gets `200` with the operation's response element, in
    /// the request's SOAP version; anything else a `500` Fault.
    Soap(&'static [SoapOperation]),
    /// Documents by request target (path and query, compared without regard to case, as a
    /// WCF host's `/Service.svc?wsdl` and `?xsd=xsd0`): each `200` with its text, `{base}` in
    /// it replaced by `http://` and the request's Host, as a host writes its own address;
    /// any other target `404`.
    Documents(&'static [(&'static str, &'static str)]),
    /// `200` with [`BODY`] to every request, each kept whole (head and body) in
    /// [`TestServer::recorded`] in the order read.
    Record,
    /// `200` with the request's body as its own, so that a test chooses each answer; each
    /// request kept as [`Behaviour::Record`] keeps it.
    Echo,
}

/// One operation of [`Behaviour::Soap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SoapOperation {
    /// The action, as the SOAPAction header (SOAP 1.1) or the content type's `action` (1.2)
    /// carries it.
    pub action: &'static str,
    /// The local name of the Body's child.
    pub request: &'static str,
    pub response: &'static str,
}

/// [`Behaviour::Capacity`]'s window, and the delay it adds once its rate is passed.
pub const CAPACITY_WINDOW: Duration = Duration::from_millis(200);
pub const OVERLOAD_DELAY: Duration = Duration::from_millis(20);

pub const BODY: &[u8] = b"hello world\n";

#[derive(Clone)]
pub struct TestServer {
    pub port: u16,
    /// Requests read so far.
    pub requests: Arc<AtomicU64>,
    /// The bytes of the first request, head and body.
    pub first_request: Arc<Mutex<Option<Vec<u8>>>>,
    /// When the first request's head had arrived, on the wall clock.
    pub first_request_at: Arc<Mutex<Option<SystemTime>>>,
    /// [`Behaviour::Record`] and [`Behaviour::Echo`]: every request read, head and body, in the
    /// order read.
    pub recorded: Arc<Mutex<Vec<Vec<u8>>>>,
    /// When each connection was accepted, on the wall clock.
    pub accepted_at: Arc<Mutex<Vec<SystemTime>>>,
    /// [`Behaviour::Capacity`]: when the requests of the last window arrived.
    arrivals: Arc<Mutex<VecDeque<Instant>>>,
    /// Whether it speaks TLS.
    tls: bool,
}

impl TestServer {
    pub fn start(behaviour: Behaviour) -> TestServer {
        TestServer::listen(behaviour, None)
    }

    /// The same server over TLS, with `certs`' server certificate (TLS 1.3 and 1.2, session
    /// resumption as rustls' defaults, ALPN http/1.1).
    pub fn start_tls(behaviour: Behaviour, certs: &TestCerts) -> TestServer {
        let mut config =
            (*tls::server_config(&certs.cert, &certs.key).expect("the test certificates")).clone();
        config.alpn_protocols = vec![tls::ALPN_HTTP1.to_vec()];
        TestServer::listen(behaviour, Some(Arc::new(config)))
    }

    fn listen(behaviour: Behaviour, tls: Option<Arc<ServerConfig>>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let server = TestServer {
            port,
            requests: Arc::default(),
            first_request: Arc::default(),
            first_request_at: Arc::default(),
            recorded: Arc::default(),
            accepted_at: Arc::default(),
            arrivals: Arc::default(),
            tls: tls.is_some(),
        };
        let seen = server.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                seen.accepted_at.lock().unwrap().push(SystemTime::now());
                let seen = seen.clone();
                let tls = tls.clone();
                std::thread::spawn(move || match tls {
                    Some(config) => {
                        let Ok(connection) = ServerConnection::new(config) else {
                            return;
                        };
                        serve(StreamOwned::new(connection, stream), behaviour, &seen);
                    }
                    None => serve(stream, behaviour, &seen),
                });
            }
        });
        server
    }

    /// `http://127.0.0.1:PORT/test`, or `https://` for a TLS server.
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}/test", self.port)
    }

    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Counts a request arriving now; whether the window's requests are past `per_second`'s share.
fn over_capacity(arrivals: &Mutex<VecDeque<Instant>>, per_second: u32) -> bool {
    let now = Instant::now();
    let mut arrivals = arrivals.lock().unwrap();
    arrivals.push_back(now);
    while arrivals
        .front()
        .is_some_and(|at| now.duration_since(*at) > CAPACITY_WINDOW)
    {
        arrivals.pop_front();
    }
    arrivals.len() as f64 > f64::from(per_second) * CAPACITY_WINDOW.as_secs_f64()
}

/// A port nothing listens on.
pub fn refused_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A connection's stream: TCP, or TLS over it.
trait Wire: Read + Write {
    fn tcp(&self) -> &TcpStream;
}

impl Wire for TcpStream {
    fn tcp(&self) -> &TcpStream {
        self
    }
}

impl Wire for StreamOwned<ServerConnection, TcpStream> {
    fn tcp(&self) -> &TcpStream {
        &self.sock
    }
}

fn serve(mut stream: impl Wire, behaviour: Behaviour, seen: &TestServer) {
    let _ = stream.tcp().set_nodelay(true);
    if let Some(h2) = h2::H2::of(behaviour) {
        h2.serve(&mut stream, &seen.requests);
        return;
    }
    if behaviour == Behaviour::NeverReads {
        // Hold the connection until the client gives up; read nothing.
        let _ = stream.tcp().set_read_timeout(Some(Duration::from_secs(60)));
        let mut byte = [0u8; 1];
        let _ = stream.tcp().peek(&mut byte);
        std::thread::park_timeout(Duration::from_secs(60));
        return;
    }
    let mut pending = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        // One request: head, then a Content-Length body.
        let head_end = loop {
            if let Some(end) = find(&pending, b"\r\n\r\n") {
                break end + 4;
            }
            match stream.read(&mut buffer) {
                Ok(0) | Err(_) => return,
                Ok(n) => pending.extend_from_slice(&buffer[..n]),
            }
        };
        let head = String::from_utf8_lossy(&pending[..head_end]).to_ascii_lowercase();
        let body_len = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse::<usize>().ok())
            .unwrap_or(0);
        while pending.len() < head_end + body_len {
            match stream.read(&mut buffer) {
                Ok(0) | Err(_) => return,
                Ok(n) => pending.extend_from_slice(&buffer[..n]),
            }
        }
        seen.first_request_at
            .lock()
            .unwrap()
            .get_or_insert_with(SystemTime::now);
        seen.first_request
            .lock()
            .unwrap()
            .get_or_insert_with(|| pending[..head_end + body_len].to_vec());
        if matches!(behaviour, Behaviour::Record | Behaviour::Echo) {
            seen.recorded
                .lock()
                .unwrap()
                .push(pending[..head_end + body_len].to_vec());
        }
        let echoed = match behaviour {
            Behaviour::Echo => pending[head_end..head_end + body_len].to_vec(),
            _ => Vec::new(),
        };
        let soap_answer = match behaviour {
            Behaviour::Soap(operations) => Some(soap(
                operations,
                &head,
                &String::from_utf8_lossy(&pending[head_end..head_end + body_len]),
            )),
            _ => None,
        };
        pending.drain(..head_end + body_len);
        let n = seen.requests.fetch_add(1, Ordering::SeqCst);
        let http10 = head
            .lines()
            .next()
            .is_some_and(|line| line.ends_with("http/1.0"));
        let keep_alive = if http10 {
            head.contains("connection: keep-alive")
        } else {
            !head.contains("connection: close")
        };
        let connection = if keep_alive { "keep-alive" } else { "close" };
        let response = match behaviour {
            Behaviour::Capacity(per_second) => {
                if over_capacity(&seen.arrivals, per_second) {
                    std::thread::sleep(OVERLOAD_DELAY);
                }
                response(200, connection, BODY)
            }
            Behaviour::Delay(delay) => {
                std::thread::sleep(delay);
                response(200, connection, BODY)
            }
            Behaviour::VaryingLength => {
                let body: &[u8] = if n.is_multiple_of(2) { b"0123456789" } else { b"0123456789a" };
                response(200, connection, body)
            }
            Behaviour::Status(status) => response(status, connection, BODY),
            Behaviour::Record => response(200, connection, BODY),
            Behaviour::Echo => response(200, connection, &echoed),
            Behaviour::Soap(_) => {
                let (status, body) = soap_answer.unwrap_or_default();
                response(status, connection, body.as_bytes())
            }
            Behaviour::Documents(documents) => {
                let target = head.split_whitespace().nth(1).unwrap_or_default();
                let host = head
                    .lines()
                    .find_map(|line| line.strip_prefix("host:"))
                    .unwrap_or_default()
                    .trim();
                match documents
                    .iter()
                    .find(|(path, _)| path.eq_ignore_ascii_case(target))
                {
                    Some((_, text)) => {
                        let text = text.replace("{base}", &format!("http://{host}"));
                        response(200, connection, text.as_bytes())
                    }
                    None => response(404, connection, b"no such document\n"),
                }
            }
            Behaviour::AnswerOnce if n == 0 => response(200, "close", BODY),
            Behaviour::AnswerOnce => return,
            Behaviour::IgnoreClose => {
                let _ = stream.write_all(&response(200, "keep-alive", BODY));
                continue;
            }
            Behaviour::Garbage => b"SSH-2.0-OpenSSH_9.2\r\n\r\n".to_vec(),
            Behaviour::EndlessHead => {
                let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
                head.extend(std::iter::repeat_n(b"X-Filler: yes\r\n".as_slice(), 7_000).flatten());
                head
            }
            Behaviour::CloseAfterEach => {
                let _ = stream.write_all(&response(200, connection, BODY));
                return;
            }
            Behaviour::Chunked => format!(
                "HTTP/1.1 200 OK\r\nServer: test-server/1.0 (chunked)\r\nTransfer-Encoding: chunked\r\nConnection: {connection}\r\n\r\n\
                 5\r\nhello\r\n1;ext=1\r\n \r\n6\r\nworld\n\r\n0\r\nX-Trailer: yes\r\n\r\n"
            )
            .into_bytes(),
            Behaviour::CloseMidResponse => {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
                return;
            }
            Behaviour::ResetAtRandom => {
                let whole = response(200, connection, b"0123456789abcdefghij0123456789abcdefghij");
                let cut = match n % 4 {
                    0 => None,
                    1 => Some(0),
                    2 => Some(find(&whole, b"\r\n\r\n").unwrap() + 4),
                    _ => Some(whole.len() - 7),
                };
                let Some(cut) = cut else {
                    let _ = stream.write_all(&whole);
                    continue;
                };
                let _ = stream.write_all(&whole[..cut]);
                reset(stream);
                return;
            }
            Behaviour::ShortBodyThenStall => {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
                hold(&mut stream, &mut buffer);
                return;
            }
            Behaviour::EndlessChunked => {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
                // 16 KiB a millisecond: enough that a client keeping the body would show it in
                // its memory within a second, little enough not to starve the other tests.
                let chunk = [b"400\r\n".as_slice(), &[b'x'; 1024], b"\r\n"].concat().repeat(16);
                while stream.write_all(&chunk).is_ok() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                return;
            }
            Behaviour::EndlessInterim => {
                let interim = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(600);
                while stream.write_all(&interim).is_ok() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                return;
            }
            Behaviour::HugeHead => {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\n");
                let lines = b"X-Filler: 0123456789012345678901234567890123456789\r\n".repeat(1000);
                let mut sent = 0;
                while sent < 100_000_000 && stream.write_all(&lines).is_ok() {
                    sent += lines.len();
                }
                return;
            }
            Behaviour::HugeLength => {
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n<?xml ");
                let mut rest = [0u8; 1024];
                while matches!(stream.read(&mut rest), Ok(n) if n > 0) {}
                return;
            }
            Behaviour::Drip => {
                for byte in response(200, connection, BODY) {
                    if stream.write_all(&[byte]).is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                continue;
            }
            Behaviour::NeverReads
            | Behaviour::H2GoAwayAfter(_)
            | Behaviour::H2RefuseFirst
            | Behaviour::H2RefuseAll
            | Behaviour::H2NoStreams => unreachable!("handled before reading"),
            Behaviour::Stall => {
                // Hold the connection and read whatever else comes, answering nothing.
                while let Ok(n) = stream.read(&mut buffer) {
                    if n == 0 {
                        return;
                    }
                }
                return;
            }
        };
        // A response to HEAD has a head only.
        let response = match head.starts_with("head ") {
            true => response[..find(&response, b"\r\n\r\n").map_or(response.len(), |end| end + 4)]
                .to_vec(),
            false => response,
        };
        if stream.write_all(&response).is_err() || !keep_alive {
            return;
        }
    }
}

/// Closes with a reset rather than a FIN.
fn reset(stream: impl Wire) {
    let _ = socket2::SockRef::from(stream.tcp()).set_linger(Some(Duration::ZERO));
    drop(stream);
}

/// Holds the connection, reading whatever comes, until the client closes it.
fn hold(stream: &mut impl Wire, buffer: &mut [u8]) {
    while stream.read(buffer).is_ok_and(|n| n > 0) {}
}

/// [`Behaviour::Soap`]'s answer to a request of `head` (lower case) and `body`.
fn soap(operations: &[SoapOperation], head: &str, body: &str) -> (u16, String) {
    let ns = if body.contains("http://www.w3.org/2003/05/soap-envelope") {
        "http://www.w3.org/2003/05/soap-envelope"
    } else {
        "http://schemas.xmlsoap.org/soap/envelope/"
    };
    let envelope = |inner: &str| {
        format!("<soap:Envelope xmlns:soap=\"{ns}\"><soap:Body>{inner}</soap:Body></soap:Envelope>")
    };
    let called = operations.iter().find(|operation| {
        let starts = [
            format!("<{} ", operation.request),
            format!("<{}>", operation.request),
        ];
        let action = operation.action.to_ascii_lowercase();
        starts.iter().any(|start| body.contains(start.as_str()))
            && (head.contains(&format!("soapaction: \"{action}\""))
                || head.contains(&format!("action=\"{action}\"")))
    });
    match called {
        Some(operation) => (
            200,
            envelope(&format!("<{} xmlns=\"urn:test\"/>", operation.response)),
        ),
        None => (
            500,
            envelope(
                "<soap:Fault><faultcode>soap:Client</faultcode><faultstring>no such operation and action</faultstring></soap:Fault>",
            ),
        ),
    }
}

fn response(status: u16, connection: &str, body: &[u8]) -> Vec<u8> {
    let mut response = format!(
        "HTTP/1.1 {status} Whatever\r\nServer: test-server/1.0 (tests)\r\nContent-Length: {}\r\nConnection: {connection}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(body);
    response
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
