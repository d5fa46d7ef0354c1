//! Integration tests of wstest-server: each test starts the server in-process on 127.0.0.1
//! port 0 and speaks raw HTTP/1.x to it, so that malformed and unusual requests can be sent.

mod formats;
mod h2;
mod hostile;
mod http;
mod interop;
mod limits;
mod metrics;
mod secure;

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use server::Config;
use tokio::sync::oneshot;

/// A server running on its own thread; dropping it shuts it down and waits for it.
pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<anyhow::Result<server::Served>>>,
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
        Client::connect(self.addr)
    }

    /// Signals shutdown and returns what `run` returned.
    pub(crate) fn stop(mut self) -> anyhow::Result<server::Served> {
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

/// The wstest-server binary running as a child process, for what an in-process server cannot
/// show: its own memory, its own file limit, and what it prints. Killed when dropped.
pub(crate) struct ChildServer {
    pub(crate) addr: SocketAddr,
    child: std::process::Child,
    /// What the server printed on stderr after its banner, gathered by a thread.
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl ChildServer {
    /// Starts `wstest-server --addr 127.0.0.1:0 --threads 1 ARGS`, with the open-file limit
    /// set to `max_files` when given.
    pub(crate) fn start(args: &[&str], max_files: Option<u32>) -> ChildServer {
        use std::io::BufRead as _;
        let exe = env!("CARGO_BIN_EXE_wstest-server");
        let mut command = match max_files {
            Some(n) => {
                let mut sh = std::process::Command::new("sh");
                sh.args(["-c", &format!("ulimit -n {n} && exec \"$0\" \"$@\""), exe]);
                sh
            }
            None => std::process::Command::new(exe),
        };
        let mut child = command
            .args(["--addr", "127.0.0.1:0", "--threads", "1"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("starting wstest-server");
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut banner = String::new();
        stderr.read_line(&mut banner).unwrap();
        let addr = banner
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("no address in the banner {banner:?}"));
        let rest = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let gathered = std::sync::Arc::clone(&rest);
        std::thread::spawn(move || {
            let mut line = String::new();
            while stderr.read_line(&mut line).is_ok_and(|n| n > 0) {
                gathered.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        ChildServer {
            addr,
            child,
            stderr: rest,
        }
    }

    pub(crate) fn connect(&self) -> Client {
        Client::connect(self.addr)
    }

    /// A field of /proc/PID/status in kilobytes (`VmRSS`, `VmHWM`).
    pub(crate) fn memory_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc/PID/status"))
    }

    /// Resets the peak resident memory (`VmHWM`) to the current one, which it returns in
    /// kilobytes: so a test can see the peak of what it does next.
    pub(crate) fn reset_peak_memory(&self) -> u64 {
        std::fs::write(format!("/proc/{}/clear_refs", self.child.id()), "5").unwrap();
        self.memory_kb("VmRSS")
    }

    /// What the server printed after its banner so far.
    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
    pub(crate) fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
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

    /// Reads more of the stream; false at its end, or when the server reset it.
    fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 64 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(n) => {
                self.buffered.extend_from_slice(&chunk[..n]);
                n > 0
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => false,
            Err(e) => panic!("reading the response (did the server hang?): {e}"),
        }
    }

    /// Reads one response: status line, headers, and a Content-Length, chunked or
    /// close-delimited body.
    pub(crate) fn read_response(&mut self) -> HttpResponse {
        self.try_read_response()
            .expect("the connection closed before a response")
    }

    /// Reads one response, or `None` when the connection ends before one begins.
    pub(crate) fn try_read_response(&mut self) -> Option<HttpResponse> {
        let head_end = loop {
            if let Some(at) = self.buffered.windows(4).position(|w| w == b"\r\n\r\n") {
                break at;
            }
            if !self.fill() {
                assert!(
                    self.buffered.is_empty(),
                    "the connection closed inside a response head: {:?}",
                    String::from_utf8_lossy(&self.buffered)
                );
                return None;
            }
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
            return Some(response);
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
        Some(response)
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
