//! Every binding decodes every post file, every response our server writes and every client
//! sample to the same model as ours, and what each encodes decodes back to that model.

use std::path::{Path, PathBuf};

use serde_bindings::{SERDE_QUICK_XML, SERDE_XML_RS};
use wstest::binding::{STREAMING, STREAMING_QUICK_XML};
use wstest::{Binding, DateTime, FaultCode, Reply};

const BINDINGS: [&dyn Binding; 4] = [
    &STREAMING,
    &STREAMING_QUICK_XML,
    &SERDE_QUICK_XML,
    &SERDE_XML_RS,
];

/// GetOrder's dates, fixed so that responses compare.
const NOW: DateTime = DateTime {
    unix_millis: 1_764_763_200_123,
};

/// Where a binding cannot match the contract, and why: (binding, file). The .NET sample's
/// `<s>&#13;</s>`, a string of one carriage return: serde-xml-rs reads text of white space
/// alone as nothing (as characters, the white space between the elements of a pretty-printed
/// message would break it), and writes a carriage return raw (xml-rs escapes only `<>&'"`),
/// which any XML parser reads back as a line feed.
const CANNOT: [(&str, &str); 1] = [("serde-xml-rs", "clients/dotnet-echosynthetic.xml")];

fn can(binding: &dyn Binding, name: &str) -> bool {
    !CANNOT.contains(&(binding.name(), name))
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The XML files in `dir`, by name.
fn xml_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("reading {}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "xml"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// The requests every binding must read: the post files and the client samples ours answers.
fn requests() -> Vec<(String, Vec<u8>)> {
    let mut requests = xml_files(&workspace().join("post_files"));
    for (name, body) in xml_files(&workspace().join("wstest/tests/data/clients")) {
        if wstest::decode_request(&body, None).is_ok() {
            requests.push((format!("clients/{name}"), body));
        }
    }
    assert!(requests.len() >= 25, "{} requests", requests.len());
    requests
}

/// Compares models by their debug text, which shows floats by value and sign (NaN equal to
/// NaN, -0 apart from 0) and nil apart from absent.
fn same(a: &impl std::fmt::Debug, b: &impl std::fmt::Debug) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

#[test]
fn every_binding_reads_every_request_as_ours_does_and_round_trips_it() {
    for (name, body) in requests() {
        let ours = STREAMING.decode_request(&body, None).unwrap();
        for binding in BINDINGS.into_iter().filter(|binding| can(*binding, &name)) {
            let label = format!("{name} through {}", binding.name());
            let decoded = binding
                .decode_request(&body, Some(ours.operation()))
                .unwrap_or_else(|fault| panic!("{label}: {fault}"));
            assert!(same(&decoded, &ours), "{label}: {decoded:?}\n!= {ours:?}");
            let mut encoded = Vec::new();
            binding.encode_request(&decoded, &mut encoded);
            for reader in BINDINGS.into_iter().filter(|reader| can(*reader, &name)) {
                let again = reader
                    .decode_request(&encoded, None)
                    .unwrap_or_else(|fault| {
                        panic!(
                            "{label}, read back by {}: {fault}\n{}",
                            reader.name(),
                            String::from_utf8_lossy(&encoded)
                        )
                    });
                assert!(
                    same(&again, &ours),
                    "{label}, read back by {}",
                    reader.name()
                );
            }
        }
    }
}

#[test]
fn every_binding_answers_with_the_response_ours_writes() {
    for (name, body) in requests() {
        let mut ours = Vec::new();
        wstest::respond(None, &body, NOW, &mut ours).unwrap();
        let model = STREAMING.decode_response(&ours).unwrap();
        for binding in BINDINGS.into_iter().filter(|binding| can(*binding, &name)) {
            let label = format!("{name} answered by {}", binding.name());
            let mut answer = Vec::new();
            wstest::respond_with(binding, None, &body, NOW, &mut answer)
                .unwrap_or_else(|fault| panic!("{label}: {fault}"));
            for reader in BINDINGS.into_iter().filter(|reader| can(*reader, &name)) {
                let read = reader.decode_response(&answer).unwrap_or_else(|fault| {
                    panic!(
                        "{label}, read by {}: {fault}\n{}",
                        reader.name(),
                        String::from_utf8_lossy(&answer)
                    )
                });
                assert!(
                    same(&read, &model),
                    "{label}, read by {}: {read:?}",
                    reader.name()
                );
            }
            // Our response, read by this binding.
            let read = binding
                .decode_response(&ours)
                .unwrap_or_else(|fault| panic!("{label}: {fault}"));
            assert!(same(&read, &model), "{label}: our response read back");
        }
    }
}

/// Bad input is a fault with the right code from every binding, never a panic.
#[test]
fn every_binding_faults_on_bad_envelopes() {
    let deep_list = {
        let mut body = String::from(
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoList xmlns="uri:WSTestWeb-TestService"><list>"#,
        );
        let depth = wstest::decode::MAX_LIST_NODES;
        for _ in 0..depth {
            body.push_str("<i>1</i><f>1</f><s/><Next>");
        }
        body.push_str("<i>1</i><f>1</f><s/>");
        for _ in 0..depth {
            body.push_str("</Next>");
        }
        body.push_str("</list></EchoList></soap:Body></soap:Envelope>");
        body
    };
    let cases: [(&str, &str, FaultCode); 7] = [
        ("not XML", "<oops", FaultCode::Client),
        (
            "SOAP 1.2",
            r#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"/></e:Body></e:Envelope>"#,
            FaultCode::VersionMismatch,
        ),
        (
            "mustUnderstand",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><t:Tx xmlns:t="urn:t" soap:mustUnderstand="1"/></soap:Header><soap:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"/></soap:Body></soap:Envelope>"#,
            FaultCode::MustUnderstand,
        ),
        (
            "foreign namespace",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoVoid xmlns="urn:other"/></soap:Body></soap:Envelope>"#,
            FaultCode::Client,
        ),
        (
            "bad int",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><GetOrder xmlns="uri:WSTestWeb-TestService"><orderId>x</orderId><customerId>1</customerId><messageSize>1</messageSize></GetOrder></soap:Body></soap:Envelope>"#,
            FaultCode::Client,
        ),
        (
            "unknown operation",
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoNothing xmlns="uri:WSTestWeb-TestService"/></soap:Body></soap:Envelope>"#,
            FaultCode::Client,
        ),
        (
            "a list deeper than the limit",
            &deep_list,
            FaultCode::Client,
        ),
    ];
    for (name, body, code) in cases {
        for binding in BINDINGS {
            let fault = binding
                .decode_request(body.as_bytes(), None)
                .err()
                .unwrap_or_else(|| panic!("{name}: {} took it", binding.name()));
            assert_eq!(
                fault.code,
                code,
                "{name} through {}: {fault}",
                binding.name()
            );
        }
    }
}

/// A fault in a response reads as a fault.
#[test]
fn every_binding_reads_a_fault_response() {
    let mut out = Vec::new();
    wstest::Fault::client("no such thing").encode(&mut out);
    for binding in BINDINGS {
        match binding.decode_response(&out) {
            Ok(Reply::Fault(fault)) => {
                assert_eq!(fault.code, FaultCode::Client, "{}", binding.name());
                assert_eq!(fault.reason, "no such thing", "{}", binding.name());
            }
            other => panic!("{}: {other:?}", binding.name()),
        }
    }
}

/// Lists far longer than the post files' read alike through every binding, up to the serde
/// bindings' nesting limit.
#[test]
fn long_lists_read_alike() {
    let nodes: Vec<wstest::model::TestStruct<'_>> = (0..serde_bindings::MAX_DEPTH as i32 - 10)
        .map(|i| wstest::model::TestStruct {
            i,
            f: Some(i as f32 / 2.0),
            s: Some(format!("node {i}").into()),
        })
        .collect();
    let request = wstest::Request::EchoList(nodes);
    let mut body = Vec::new();
    wstest::encode_request(&request, &mut body);
    for binding in BINDINGS {
        let read = binding
            .decode_request(&body, None)
            .unwrap_or_else(|fault| panic!("{}: {fault}", binding.name()));
        assert!(same(&read, &request), "{}", binding.name());
        let mut written = Vec::new();
        binding.encode_request(&read, &mut written);
        assert!(
            same(&STREAMING.decode_request(&written, None).unwrap(), &request),
            "{}",
            binding.name()
        );
    }
}
