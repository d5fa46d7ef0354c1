//! Integration tests of wstest-server: each test starts the server in-process on 127.0.0.1
//! port 0 and speaks raw HTTP/1.x to it, so that malformed and unusual requests can be sent.

mod bad_inputs;
mod http;
mod interop;

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use server::Config;
use tokio::sync::oneshot;

/// A server running on its own thread; dropping it shuts it down and waits for it.
pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<anyhow::Result<()>>>,
}

impl TestServer {
    pub(crate) fn start() -> TestServer {
        TestServer::with_config(Config {
            max_body: 8 * 1024 * 1024,
            ..Config::default()
        })
    }

    /// A server answering through `binding`.
    pub(crate) fn with_binding(binding: server::BindingChoice) -> TestServer {
        TestServer::with_config(Config {
            max_body: 8 * 1024 * 1024,
            binding,
            ..Config::default()
        })
    }

    pub(crate) fn with_config(config: Config) -> TestServer {
        let listener = server::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            server::run(listener, config, async move {
                let _ = stopped.await;
            })
        });
        TestServer {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub(crate) fn connect(&self) -> Client {
        let stream = TcpStream::connect(self.addr).unwrap();
        // A server that hangs fails the test instead of hanging it.
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream.set_nodelay(true).unwrap();
        Client {
            stream,
            buffered: Vec::new(),
        }
    }

    /// Signals shutdown and returns what `run` returned.
    pub(crate) fn stop(mut self) -> anyhow::Result<()> {
        self.stop.take().map(|stop| stop.send(()));
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One HTTP response as read off the wire.
#[derive(Debug)]
pub(crate) struct HttpResponse {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl HttpResponse {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A raw HTTP/1.x connection.
pub(crate) struct Client {
    pub(crate) stream: TcpStream,
    buffered: Vec<u8>,
}

impl Client {
    pub(crate) fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// Sends a POST of `body` to `path` with the given extra header lines.
    pub(crate) fn post(&mut self, path: &str, headers: &[&str], body: &[u8]) -> HttpResponse {
        let mut request = format!(
            "POST {path} HTTP/1.1\r\nHost: test\r\nContent-Length: {}\r\n",
            body.len()
        );
        for header in headers {
            request.push_str(header);
            request.push_str("\r\n");
        }
        request.push_str("\r\n");
        self.send(request.as_bytes());
        // A server that refuses the body may close before reading it all; its answer is what
        // matters.
        let _ = self.stream.write_all(body);
        self.read_response()
    }

    /// Sends the head of a POST of `body_len` bytes with `Expect: 100-continue` and reads the
    /// server's 100 Continue, which it sends once the request has reached the service.
    pub(crate) fn post_head_expecting_continue(&mut self, body_len: usize) {
        self.send(
            format!(
                "POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nExpect: 100-continue\r\nContent-Length: {body_len}\r\n\r\n"
            )
            .as_bytes(),
        );
        assert_eq!(self.read_response().status, 100);
    }

    fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 64 * 1024];
        let n = self
            .stream
            .read(&mut chunk)
            .expect("reading the response (did the server hang?)");
        self.buffered.extend_from_slice(&chunk[..n]);
        n > 0
    }

    /// Reads one response: status line, headers, and a Content-Length, chunked or
    /// close-delimited body.
    pub(crate) fn read_response(&mut self) -> HttpResponse {
        let head_end = loop {
            if let Some(at) = self.buffered.windows(4).position(|w| w == b"\r\n\r\n") {
                break at;
            }
            assert!(self.fill(), "the connection closed before a response");
        };
        let head = String::from_utf8(self.buffered[..head_end].to_vec()).unwrap();
        self.buffered.drain(..head_end + 4);
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap();
        let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|line| {
                let (key, value) = line.split_once(':').unwrap();
                (key.trim().to_owned(), value.trim().to_owned())
            })
            .collect();
        let mut response = HttpResponse {
            status,
            headers,
            body: Vec::new(),
        };
        if status == 100 {
            return response;
        }
        if let Some(len) = response.header("content-length") {
            let len: usize = len.parse().unwrap();
            while self.buffered.len() < len {
                assert!(self.fill(), "the connection closed inside a body");
            }
            response.body = self.buffered.drain(..len).collect();
        } else if response
            .header("transfer-encoding")
            .is_some_and(|te| te.contains("chunked"))
        {
            loop {
                let line_end = loop {
                    if let Some(at) = self.buffered.windows(2).position(|w| w == b"\r\n") {
                        break at;
                    }
                    assert!(self.fill());
                };
                let size = usize::from_str_radix(
                    std::str::from_utf8(&self.buffered[..line_end]).unwrap(),
                    16,
                )
                .unwrap();
                self.buffered.drain(..line_end + 2);
                while self.buffered.len() < size + 2 {
                    assert!(self.fill());
                }
                response.body.extend(self.buffered.drain(..size));
                self.buffered.drain(..2);
                if size == 0 {
                    break;
                }
            }
        } else {
            while self.fill() {}
            response.body = std::mem::take(&mut self.buffered);
        }
        response
    }

    /// Whether the server has closed the connection (reads end of stream).
    pub(crate) fn is_closed(&mut self) -> bool {
        self.stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut byte = [0u8; 1];
        matches!(self.stream.read(&mut byte), Ok(0) | Err(_))
    }
}

/// The SOAPAction header line for an operation.
pub(crate) fn soap_action(op: wstest::Operation) -> String {
    format!("SOAPAction: \"{}\"", op.soap_action())
}

pub(crate) const TEXT_XML: &str = "Content-Type: text/xml; charset=utf-8";
