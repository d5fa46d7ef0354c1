//! The ceiling binary as the benchmark scripts run it: started on port 0, its address read from
//! its listening line, every post file answered with the canned response of its operation.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use ceiling::CannedResponses;
use wstest::{Operation, Reply};

/// The ceiling process; killed when dropped.
struct Ceiling {
    child: Child,
    addr: String,
}

impl Ceiling {
    fn start() -> Ceiling {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ceiling"))
            .args(["--addr", "127.0.0.1:0", "--threads", "1"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let listening = host::listening::Listening::parse(&line)
            .filter(|listening| listening.name == "ceiling" && listening.url.starts_with("http://"))
            .unwrap_or_else(|| panic!("unexpected listening line {line:?}"));
        assert!(listening.url.ends_with("/WSTest"), "{line:?}");
        let addr = listening.addr().to_owned();
        Ceiling { child, addr }
    }

    /// POSTs `body` with `soap_action`; the status line and the body.
    fn post(&self, soap_action: &str, body: &[u8]) -> (String, Vec<u8>) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        let head = format!(
            "POST /WSTest HTTP/1.1\r\nHost: t\r\nConnection: close\r\nSOAPAction: \"{soap_action}\"\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        let split = response
            .windows(4)
            .position(|window| window == b"\r\n\r\n")
            .unwrap();
        let status = String::from_utf8_lossy(&response[..split])
            .lines()
            .next()
            .unwrap()
            .to_owned();
        (status, response[split + 4..].to_vec())
    }
}

impl Drop for Ceiling {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn every_post_file_gets_a_response_of_its_operation() {
    let ceiling = Ceiling::start();
    for file in wstest::post_files::all() {
        let (status, body) = ceiling.post(file.operation.soap_action(), &file.body());
        assert_eq!(status, "HTTP/1.1 200 OK", "{}", file.name);
        match wstest::decode_response(&body) {
            Ok(Reply::Response(response)) => {
                assert_eq!(response.operation(), file.operation, "{}", file.name)
            }
            other => panic!("{}: {other:?}", file.name),
        }
    }
}

#[test]
fn a_request_gets_the_response_of_the_nearest_size() {
    let canned = CannedResponses::from_post_files();
    let files = wstest::post_files::all();
    let response_of = |name: &str| {
        let file = files.iter().find(|file| file.name == name).unwrap();
        canned.pick(Some(file.operation), file.body().len())
    };
    let cases: &[(Option<Operation>, usize, &str)] = &[
        (Some(Operation::EchoList), 1_100, "echolist20.xml"),
        (Some(Operation::EchoList), 4_900, "echolist100.xml"),
        (Some(Operation::GetOrder), 0, "getorder20.xml"),
        (Some(Operation::EchoStruct), usize::MAX, "echostruct100.xml"),
        (None, 300, "echovoid.xml"),
    ];
    for &(operation, body_len, name) in cases {
        assert_eq!(
            canned.pick(operation, body_len),
            response_of(name),
            "{operation:?} {body_len}"
        );
    }
}
