//! The encodings crate: its post files are what it generates; every encoding's answer to every
//! post file is the XML answer's model; bodies in the wrong encoding, with bytes after the
//! document, or naming no operation are Client faults that say so; gzip stops at its limit.

use std::path::PathBuf;

use encodings::format::{self, Encoding};
use encodings::post_files::{self, XML_GZIP};
use encodings::serve::respond;
use encodings::wire::Shape;
use encodings::{AvroSchemas, Kind, Message};
use wstest::{DateTime, FaultCode, Reply};

const NOW: DateTime = DateTime {
    unix_millis: 1_764_676_800_000,
};

fn post_files_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../post_files")
}

#[test]
fn checked_in_files_match_the_generator() {
    let dir = post_files_dir();
    for file in post_files::all() {
        let path = dir.join(&file.name);
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&path, &file.body).unwrap();
        }
        let actual = std::fs::read(&path)
            .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
        assert!(
            actual == file.body,
            "{} differs from what encodings::post_files makes; run UPDATE_EXPECT=1 cargo test -p encodings",
            path.display()
        );
    }
    testkit::check_expected(&dir.join("manifest.toml"), &post_files::manifest());
}

/// The model of the XML answer to a post file, as our binding reads it.
fn xml_answer(body: &[u8], action: &str) -> String {
    let mut out = Vec::new();
    wstest::respond(Some(action.as_bytes()), body, NOW, &mut out).unwrap();
    match wstest::decode_response(&out).unwrap() {
        Reply::Response(response) => format!("{:?}", Message::Response(response)),
        Reply::Fault(fault) => panic!("{fault}"),
    }
}

#[test]
fn every_encoding_answers_every_post_file_with_the_xml_answers_model() {
    let avro = AvroSchemas::new();
    for file in post_files::all() {
        let Some(encoding) = file.encoding else {
            continue;
        };
        let action = file.source.operation.soap_action();
        let expected = xml_answer(&file.source.body(), action);
        let mut out = Vec::new();
        let operation = respond(
            encoding,
            &avro,
            Some(action.as_bytes()),
            &file.body,
            NOW,
            &mut out,
        )
        .unwrap_or_else(|fault| panic!("{}: {fault}", file.name));
        assert_eq!(operation, file.source.operation, "{}", file.name);
        let kind = Kind {
            operation,
            response: true,
        };
        let answer = format::read(encoding, Shape::of(kind), &out, &avro, |payload| {
            format!("{:?}", payload.into_message(kind))
        })
        .unwrap_or_else(|error| panic!("{}: the answer does not read back: {error}", file.name));
        assert_eq!(answer, expected, "{}", file.name);
        // The manifest's texts are in the answer.
        let text = String::from_utf8_lossy(&out);
        let manifest = post_files::manifest();
        let entry = manifest
            .split("[[file]]")
            .find(|entry| entry.contains(&format!("name = \"{}\"", file.name)))
            .unwrap();
        if let Some(line) = entry
            .lines()
            .find(|line| line.starts_with("expect_body = "))
        {
            let expected = line.trim_start_matches("expect_body = ").trim_matches('"');
            assert!(
                text.contains(expected),
                "{}: no {expected:?} in {text}",
                file.name
            );
        }
    }
}

/// What is sent, as which encoding, with which SOAPAction, the body, and what the fault says.
type BadBody<'a> = (&'a str, Encoding, Option<&'a [u8]>, Vec<u8>, &'a str);

#[test]
fn bad_bodies_are_client_faults_that_say_why() {
    let avro = AvroSchemas::new();
    let files = post_files::all();
    let find = |name: &str| files.iter().find(|file| file.name == name).unwrap();
    let json = &find("echostruct20.json").body;
    let msgpack = &find("echostruct20.msgpack").body;
    let avro_body = &find("echostruct20.avro").body;
    let action = Some(wstest::Operation::EchoStruct.soap_action().as_bytes());
    let with_tail = |body: &[u8]| [body, b"!".as_slice()].concat();
    let cases: Vec<BadBody> = vec![
        (
            "JSON sent as MessagePack",
            Encoding::MsgPack,
            action,
            json.clone(),
            "not a MessagePack EchoStruct request",
        ),
        (
            "JSON sent as Avro",
            Encoding::Avro,
            action,
            json.clone(),
            "not an Avro EchoStruct request",
        ),
        (
            "MessagePack sent as JSON",
            Encoding::Json,
            action,
            msgpack.clone(),
            "not a JSON EchoStruct request",
        ),
        (
            "MessagePack sent as Avro",
            Encoding::Avro,
            action,
            msgpack.clone(),
            "not an Avro EchoStruct request",
        ),
        (
            "Avro sent as JSON",
            Encoding::Json,
            action,
            avro_body.clone(),
            "not a JSON EchoStruct request",
        ),
        (
            "Avro sent as MessagePack",
            Encoding::MsgPack,
            action,
            avro_body.clone(),
            "not a MessagePack EchoStruct request",
        ),
        (
            "XML sent as JSON",
            Encoding::Json,
            action,
            find("echostruct20.json").source.body(),
            "not a JSON",
        ),
        (
            "JSON with a byte after it",
            Encoding::Json,
            action,
            with_tail(json),
            "trailing characters",
        ),
        (
            "MessagePack with a byte after it",
            Encoding::MsgPack,
            action,
            with_tail(msgpack),
            "bytes follow the document",
        ),
        (
            "Avro with a byte after it",
            Encoding::Avro,
            action,
            with_tail(avro_body),
            "bytes follow the document",
        ),
        (
            "no SOAPAction",
            Encoding::Json,
            None,
            json.clone(),
            "names its operation in the SOAPAction header",
        ),
        (
            "an empty body",
            Encoding::MsgPack,
            action,
            Vec::new(),
            "not a MessagePack EchoStruct request",
        ),
        (
            "a truncated Avro body",
            Encoding::Avro,
            action,
            avro_body[..avro_body.len() / 2].to_vec(),
            "not an Avro EchoStruct request",
        ),
        (
            "GetOrder past its size limit",
            Encoding::Json,
            Some(wstest::Operation::GetOrder.soap_action().as_bytes()),
            br#"{"orderId":1,"customerId":2,"messageSize":100001}"#.to_vec(),
            "messageSize is 100001",
        ),
        (
            "an Avro array claiming a billion items",
            Encoding::Avro,
            action,
            vec![0x80, 0xa8, 0xd6, 0xb9, 0x07],
            "not an Avro EchoStruct request",
        ),
    ];
    for (what, encoding, soap_action, body, expected) in cases {
        let mut out = Vec::new();
        let fault = respond(encoding, &avro, soap_action, &body, NOW, &mut out).expect_err(what);
        assert_eq!(fault.code, FaultCode::Client, "{what}: {fault}");
        assert!(fault.to_string().contains(expected), "{what}: {fault}");
    }
}

#[test]
fn gzip_stops_at_its_limit() {
    let body = vec![b'<'; 10 << 20];
    let mut bomb = Vec::new();
    encodings::gzip::deflate(&body, &mut bomb);
    assert!(bomb.len() < body.len() / 50, "{} bytes", bomb.len());
    let mut out = Vec::new();
    let error = encodings::gzip::inflate(&bomb, 1 << 20, &mut out).unwrap_err();
    assert!(
        error.to_string().contains("inflates past 1048576 bytes"),
        "{error}"
    );
    assert!(out.len() <= (1 << 20) + 1);
    encodings::gzip::inflate(&bomb, 10 << 20, &mut out).unwrap();
    assert_eq!(out, body);
    let error = encodings::gzip::inflate(b"not gzip", 1 << 20, &mut out).unwrap_err();
    assert!(error.to_string().contains("not gzip"), "{error}");
    // Every gzipped post file inflates to its XML.
    for file in post_files::all()
        .iter()
        .filter(|file| file.test.ends_with(XML_GZIP))
    {
        encodings::gzip::inflate(&file.body, 1 << 20, &mut out).unwrap();
        assert_eq!(out, file.source.body(), "{}", file.name);
    }
}

/// A JSON float is the f32 nearest its decimal, as `str::parse::<f32>` reads it: not rounded to
/// f64 first, which lands on the wrong side of an f32 midpoint when the decimal is just off one.
#[test]
fn json_floats_are_the_nearest_f32() {
    let avro = AvroSchemas::new();
    let kind = Kind {
        operation: wstest::Operation::EchoStruct,
        response: false,
    };
    let mut decimals = vec!["2.66307270526886".to_owned(), "2.5".to_owned()];
    // Decimals a hair above and below f32 midpoints: each rounds to the midpoint in f64.
    let mut x = 1.1f32;
    for _ in 0..2_000 {
        let next = f32::from_bits(x.to_bits() + 1);
        let midpoint = (f64::from(x) + f64::from(next)) / 2.0;
        let exact = format!("{midpoint:.40}");
        decimals.push(format!("{exact}1"));
        decimals.push(format!("{:.40}", midpoint - midpoint * 1e-20));
        x = x * 1.37 + 0.013;
        if x > 1e6 {
            x = 0.0071;
        }
    }
    for decimal in &decimals {
        let body = format!(r#"[{{"i":1,"f":{decimal},"s":"x"}}]"#);
        let read = format::read(
            Encoding::Json,
            Shape::of(kind),
            body.as_bytes(),
            &avro,
            |payload| match payload.into_message(kind) {
                Message::Request(wstest::Request::EchoStruct(items)) => items[0].f.unwrap(),
                other => panic!("{other:?}"),
            },
        )
        .unwrap();
        let nearest: f32 = decimal.parse().unwrap();
        assert_eq!(
            read.to_bits(),
            nearest.to_bits(),
            "{decimal}: {read} against {nearest}"
        );
    }
}
