//! The other encodings over HTTP: every post file in JSON, MessagePack and Avro answered in
//! its own encoding with the XML answer's model; gzipped XML both ways; and the refusals a
//! client sees (the hostile corpus holds the rest: bombs, nesting, huge counts).

use encodings::format;
use encodings::post_files;
use encodings::wire::Shape;
use encodings::{AvroSchemas, Kind, Message};
use wstest::Reply;

use crate::http::check_model;
use crate::{TEXT_XML, TestServer, soap_action};

#[test]
fn every_encoded_post_file_is_answered_in_its_encoding() {
    let server = TestServer::start();
    let mut client = server.connect();
    let avro = AvroSchemas::new();
    for file in post_files::all() {
        let source = file.source.body();
        let action = soap_action(file.source.operation);
        match file.encoding {
            Some(encoding) => {
                let content_type = format!("Content-Type: {}", encoding.media_type());
                let response = client.post("/WSTest", &[&content_type, &action], &file.body);
                assert_eq!(response.status, 200, "{}: {}", file.name, response.text());
                assert_eq!(response.header("content-type"), Some(encoding.media_type()));
                let kind = Kind {
                    operation: file.source.operation,
                    response: true,
                };
                format::read(
                    encoding,
                    Shape::of(kind),
                    &response.body,
                    &avro,
                    |payload| {
                        let Message::Response(actual) = payload.into_message(kind) else {
                            panic!("{}: not a response", file.name)
                        };
                        check_model(&file.name, &source, &actual);
                    },
                )
                .unwrap_or_else(|error| panic!("{}: {error}", file.name));
            }
            None => {
                // Gzipped both ways; and a gzipped request answered plain when gzip is not
                // accepted.
                for accept in [true, false] {
                    let mut headers = vec![TEXT_XML, &action, "Content-Encoding: gzip"];
                    if accept {
                        headers.push("Accept-Encoding: br;q=1.0, gzip;q=0.8");
                    }
                    let response = client.post("/WSTest", &headers, &file.body);
                    assert_eq!(response.status, 200, "{}: {}", file.name, response.text());
                    let mut xml = response.body.clone();
                    if accept {
                        assert_eq!(response.header("content-encoding"), Some("gzip"));
                        encodings::gzip::inflate(&response.body, 1 << 24, &mut xml).unwrap();
                    } else {
                        assert_eq!(response.header("content-encoding"), None);
                    }
                    let Reply::Response(actual) = wstest::decode_response(&xml).unwrap() else {
                        panic!("{}: a fault", file.name)
                    };
                    check_model(&file.name, &source, &actual);
                }
            }
        }
    }
}

/// What is sent, the headers, the body; the status, content type and a text of the answer.
type Refusal<'a> = (&'a str, Vec<&'a str>, &'a [u8], u16, &'a str, &'a str);

#[test]
fn refusals_say_why_in_the_encoding_asked() {
    let server = TestServer::start();
    let files = post_files::all();
    let body_of = |name: &str| &files.iter().find(|file| file.name == name).unwrap().body;
    let echo_struct = soap_action(wstest::Operation::EchoStruct);
    let cases: [Refusal; 5] = [
        (
            "MessagePack sent as JSON",
            vec!["Content-Type: application/json", &echo_struct],
            body_of("echostruct20.msgpack"),
            400,
            "application/json",
            r#"{"fault":"Client","reason":"the body is not a JSON EchoStruct request"#,
        ),
        (
            "JSON sent as Avro",
            vec!["Content-Type: application/avro", &echo_struct],
            body_of("echostruct20.json"),
            400,
            "application/json",
            "the body is not an Avro EchoStruct request",
        ),
        (
            "a JSON field of the wrong type",
            vec![
                "Content-Type: application/json; charset=utf-8",
                &echo_struct,
            ],
            b"[{\"i\": \"one\"}]",
            400,
            "application/json",
            "invalid type: string",
        ),
        (
            "SOAP 1.2",
            vec!["Content-Type: application/soap+xml", &echo_struct],
            b"<x/>",
            415,
            "text/plain; charset=utf-8",
            "application/soap+xml is SOAP 1.2",
        ),
        (
            "deflate, not gzip",
            vec![TEXT_XML, &echo_struct, "Content-Encoding: deflate"],
            b"x",
            415,
            "text/plain; charset=utf-8",
            "Content-Encoding \"deflate\" is not supported: gzip is",
        ),
    ];
    for (what, headers, body, status, content_type, text) in cases {
        let response = server.connect().post("/WSTest", &headers, body);
        assert_eq!(response.status, status, "{what}: {}", response.text());
        assert_eq!(
            response.header("content-type"),
            Some(content_type),
            "{what}"
        );
        assert!(
            response.text().contains(text),
            "{what}: {}",
            response.text()
        );
    }
    // A gzip bomb is cut (at 200 times its size or --max-body), and the connection goes on.
    let mut bomb = Vec::new();
    encodings::gzip::deflate(&vec![0; 32 << 20], &mut bomb);
    let mut client = server.connect();
    let response = client.post("/WSTest", &[TEXT_XML, "Content-Encoding: gzip"], &bomb);
    assert_eq!(response.status, 413, "{}", response.text());
    assert!(
        response.text().contains("inflates past"),
        "{}",
        response.text()
    );
    let void = wstest::post_files::all()[0].body();
    let response = client.post(
        "/WSTest",
        &[TEXT_XML, &soap_action(wstest::Operation::EchoVoid)],
        &void,
    );
    assert_eq!(response.status, 200);
}
