//! Bad input gets a clear answer (a SOAP fault or an HTTP status), never a panic or a hang, and
//! the server keeps serving afterwards.

use wstest::{FaultCode, Operation, Reply};

use crate::{TEXT_XML, TestServer, soap_action};

const ENV_OPEN: &str =
    r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>"#;
const ENV_CLOSE: &str = "</soap:Body></soap:Envelope>";

/// A request body wrapped in a SOAP 1.1 envelope.
fn soap(payload: &str) -> Vec<u8> {
    format!("{ENV_OPEN}{payload}{ENV_CLOSE}").into_bytes()
}

fn struct_request(l: &str) -> Vec<u8> {
    soap(&format!(
        r#"<EchoStruct xmlns="uri:WSTestWeb-TestService"><array>{l}</array></EchoStruct>"#
    ))
}

fn get_order(message_size: &str) -> Vec<u8> {
    soap(&format!(
        r#"<GetOrder xmlns="uri:WSTestWeb-TestService"><orderId>1</orderId><customerId>2</customerId><messageSize>{message_size}</messageSize></GetOrder>"#
    ))
}

fn deep_list(n_nodes: usize) -> Vec<u8> {
    let mut body = String::from(ENV_OPEN);
    body.push_str(r#"<EchoList xmlns="uri:WSTestWeb-TestService"><list><i>0</i><f>1</f><s/>"#);
    for _ in 1..n_nodes {
        body.push_str("<Next><i>1</i><f>1</f><s/>");
    }
    body.push_str(&"</Next>".repeat(n_nodes - 1));
    body.push_str("</list></EchoList>");
    body.push_str(ENV_CLOSE);
    body.into_bytes()
}

/// What the server must answer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// HTTP 500 with a SOAP fault of this code.
    Fault(FaultCode),
    /// This HTTP status, with a plain-text explanation.
    Status(u16),
}

struct Case {
    name: &'static str,
    /// The whole request head, or `None` for a POST to /WSTest with text/xml and these headers.
    head: Head,
    body: Vec<u8>,
    expect: Expect,
}

enum Head {
    Post(Vec<String>),
    Raw(String),
}

fn post(extra: &[&str]) -> Head {
    let mut headers = vec![TEXT_XML.to_owned()];
    headers.extend(extra.iter().map(|h| (*h).to_owned()));
    Head::Post(headers)
}

fn cases() -> Vec<Case> {
    use Expect::{Fault, Status};
    use FaultCode::{Client, MustUnderstand, VersionMismatch};
    let echo_struct = soap_action(Operation::EchoStruct);
    let l = "<l><i>1</i><f>1</f><s>x</s></l>";
    let mut cases = vec![
        Case { name: "malformed XML", head: post(&[]), body: soap("<EchoVoid xmlns=\"uri:WSTestWeb-TestService\">"), expect: Fault(Client) },
        Case { name: "truncated body", head: post(&[]), body: struct_request(l)[..150].to_vec(), expect: Fault(Client) },
        Case { name: "not XML at all", head: post(&[]), body: b"hello".to_vec(), expect: Fault(Client) },
        Case { name: "empty body", head: post(&[]), body: Vec::new(), expect: Fault(Client) },
        Case { name: "wrong envelope namespace", head: post(&[]), body: br#"<e:Envelope xmlns:e="urn:not-soap"><e:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"/></e:Body></e:Envelope>"#.to_vec(), expect: Fault(VersionMismatch) },
        Case { name: "SOAP 1.2 envelope", head: post(&[]), body: br#"<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"/></e:Body></e:Envelope>"#.to_vec(), expect: Fault(VersionMismatch) },
        Case { name: "root is not an Envelope", head: post(&[]), body: br#"<EchoVoid xmlns="uri:WSTestWeb-TestService"/>"#.to_vec(), expect: Fault(Client) },
        Case { name: "DOCTYPE with entities", head: post(&[]), body: format!(r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>{}"#, String::from_utf8(soap(r#"<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>1</i><f>1</f><s>&lol2;</s></l></array></EchoStruct>"#)).unwrap()).into_bytes(), expect: Fault(Client) },
        Case { name: "200,000-deep EchoList", head: post(&[]), body: deep_list(200_000), expect: Fault(Client) },
        Case { name: "invalid UTF-8", head: post(&[]), body: struct_request("<l><i>1</i><f>1</f><s>\u{FFFD}</s></l>").into_iter().map(|b| if b == 0xEF { 0xC3 } else { b }).collect(), expect: Fault(Client) },
        Case { name: "non-numeric i", head: post(&[]), body: struct_request("<l><i>one</i><f>1</f><s>x</s></l>"), expect: Fault(Client) },
        Case { name: "non-numeric f", head: post(&[]), body: struct_request("<l><i>1</i><f>inf</f><s>x</s></l>"), expect: Fault(Client) },
        Case { name: "int out of range", head: post(&[]), body: struct_request("<l><i>2147483648</i><f>1</f><s>x</s></l>"), expect: Fault(Client) },
        Case { name: "huge messageSize", head: post(&[]), body: get_order("1000000000"), expect: Fault(Client) },
        Case { name: "negative messageSize", head: post(&[]), body: get_order("-1"), expect: Fault(Client) },
        Case { name: "messageSize beyond xsd:int", head: post(&[]), body: get_order("99999999999"), expect: Fault(Client) },
        Case { name: "wrong SOAPAction", head: post(&[&soap_action(Operation::GetOrder)]), body: struct_request(l), expect: Fault(Client) },
        Case { name: "unknown SOAPAction", head: post(&["SOAPAction: \"uri:WSTestWeb-TestService/EchoNothing\""]), body: struct_request(l), expect: Fault(Client) },
        Case { name: "unknown operation", head: post(&[]), body: soap(r#"<EchoNothing xmlns="uri:WSTestWeb-TestService"/>"#), expect: Fault(Client) },
        Case { name: "operation in no namespace", head: post(&[]), body: soap("<EchoVoid/>"), expect: Fault(Client) },
        Case { name: "Envelope without Body", head: post(&[]), body: br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"></soap:Envelope>"#.to_vec(), expect: Fault(Client) },
        Case { name: "empty Body", head: post(&[]), body: soap(""), expect: Fault(Client) },
        Case { name: "two operations in the Body", head: post(&[]), body: soap(r#"<EchoVoid xmlns="uri:WSTestWeb-TestService"/><EchoVoid xmlns="uri:WSTestWeb-TestService"/>"#), expect: Fault(Client) },
        Case { name: "missing required element", head: post(&[]), body: struct_request("<l><i>1</i><f>1</f></l>"), expect: Fault(Client) },
        Case { name: "duplicate element", head: post(&[]), body: struct_request("<l><i>1</i><i>2</i><f>1</f><s>x</s></l>"), expect: Fault(Client) },
        Case { name: "empty array", head: post(&[]), body: struct_request(""), expect: Fault(Client) },
        Case { name: "undeclared prefix", head: post(&[]), body: soap(r#"<w:EchoVoid/>"#), expect: Fault(Client) },
        Case { name: "nil on a non-nillable element", head: post(&[]), body: soap(r#"<EchoStruct xmlns="uri:WSTestWeb-TestService" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><array><l><i xsi:nil="true"/><f>1</f><s>x</s></l></array></EchoStruct>"#), expect: Fault(Client) },
        Case { name: "bad base64", head: post(&[]), body: soap(r#"<EchoSynthetic xmlns="uri:WSTestWeb-TestService"><synth><Barray>!!notbase64</Barray></synth></EchoSynthetic>"#), expect: Fault(Client) },
        Case { name: "unknown entity", head: post(&[]), body: struct_request("<l><i>1</i><f>1</f><s>&nbsp;</s></l>"), expect: Fault(Client) },
        Case { name: "control character reference", head: post(&[]), body: struct_request("<l><i>1</i><f>1</f><s>&#1;</s></l>"), expect: Fault(Client) },
        Case { name: "content after the Envelope", head: post(&[]), body: [soap(r#"<EchoVoid xmlns="uri:WSTestWeb-TestService"/>"#), b"<x/>".to_vec()].concat(), expect: Fault(Client) },
        Case { name: "mustUnderstand header", head: post(&[]), body: br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><t:Tx xmlns:t="urn:t" soap:mustUnderstand="1"/></soap:Header><soap:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"/></soap:Body></soap:Envelope>"#.to_vec(), expect: Fault(MustUnderstand) },
        Case { name: "Next is not the last child", head: post(&[]), body: soap(r#"<EchoList xmlns="uri:WSTestWeb-TestService"><list><i>1</i><f>1</f><s/><Next><i>2</i><f>1</f><s/></Next><i>3</i></list></EchoList>"#), expect: Fault(Client) },
        Case { name: "oversized body, declared", head: post(&[&echo_struct]), body: vec![b' '; 9 * 1024 * 1024], expect: Status(413) },
        Case { name: "oversized body, chunked", head: Head::Raw(format!("POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nTransfer-Encoding: chunked\r\n\r\n")), body: chunked(&vec![b' '; 9 * 1024 * 1024]), expect: Status(413) },
        Case { name: "bad chunked encoding", head: Head::Raw(format!("POST /WSTest HTTP/1.1\r\nHost: t\r\n{TEXT_XML}\r\nTransfer-Encoding: chunked\r\n\r\n")), body: b"zz\r\nabc\r\n0\r\n\r\n".to_vec(), expect: Status(400) },
        Case { name: "JSON content type", head: Head::Post(vec!["Content-Type: application/json".to_owned()]), body: b"{}".to_vec(), expect: Status(415) },
        Case { name: "SOAP 1.2 content type", head: Head::Post(vec!["Content-Type: application/soap+xml; charset=utf-8".to_owned()]), body: soap(r#"<EchoVoid xmlns="uri:WSTestWeb-TestService"/>"#), expect: Status(415) },
        Case { name: "PUT", head: Head::Raw("PUT /WSTest HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n".to_owned()), body: Vec::new(), expect: Status(405) },
        Case { name: "DELETE", head: Head::Raw("DELETE /WSTest HTTP/1.1\r\nHost: t\r\n\r\n".to_owned()), body: Vec::new(), expect: Status(405) },
        Case { name: "GET without ?wsdl", head: Head::Raw("GET /WSTest HTTP/1.1\r\nHost: t\r\n\r\n".to_owned()), body: Vec::new(), expect: Status(405) },
        Case { name: "unknown path", head: Head::Raw("POST /nothing HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n".to_owned()), body: Vec::new(), expect: Status(404) },
    ];
    cases.retain(|case| !case.name.is_empty());
    cases
}

fn chunked(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in body.chunks(64 * 1024) {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

#[track_caller]
fn check(server: &TestServer, case: &Case, binding: server::BindingChoice) {
    let mut client = server.connect();
    let response = match &case.head {
        Head::Post(headers) => {
            let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
            client.post("/WSTest", &headers, &case.body)
        }
        Head::Raw(head) => {
            client.send(head.as_bytes());
            // A refused upload may be cut short by the server; what matters is its answer.
            let _ = std::io::Write::write_all(&mut client.stream, &case.body);
            client.read_response()
        }
    };
    match case.expect {
        Expect::Fault(code) => {
            assert_eq!(
                response.status,
                500,
                "{} with {binding:?}: {}",
                case.name,
                response.text()
            );
            assert_eq!(
                response.header("content-type"),
                Some("text/xml; charset=utf-8"),
                "{}",
                case.name
            );
            match wstest::decode_response(&response.body) {
                Ok(Reply::Fault(fault)) => {
                    assert_eq!(
                        fault.code, code,
                        "{} with {binding:?}: {}",
                        case.name, fault.reason
                    );
                    assert!(
                        fault.reason.len() > 10,
                        "{}: {:?} says too little",
                        case.name,
                        fault.reason
                    );
                }
                other => panic!("{}: not a fault: {other:?}", case.name),
            }
        }
        Expect::Status(status) => {
            assert_eq!(
                response.status,
                status,
                "{}: {}",
                case.name,
                response.text()
            );
            assert!(!response.body.is_empty(), "{}: no explanation", case.name);
        }
    }
}

#[test]
fn bad_inputs_get_clear_answers() {
    let cases = cases();
    assert!(cases.len() >= 30);
    let void = soap(r#"<EchoVoid xmlns="uri:WSTestWeb-TestService"/>"#);
    for binding in server::BindingChoice::ALL {
        let server = TestServer::with_binding(binding);
        for case in &cases {
            check(&server, case, binding);
            // The server is still there and well.
            let response = server.connect().post("/WSTest", &[TEXT_XML], &void);
            assert_eq!(response.status, 200, "after {} with {binding:?}", case.name);
        }
    }
}
