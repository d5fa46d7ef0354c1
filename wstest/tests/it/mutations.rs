//! The fast lexer must accept only what quick-xml accepts, and read it the same, and its
//! shortcuts must read what its tokens read: every truncation and many one-byte edits of real
//! requests are decoded three ways, which must agree (the `respond` helper asserts it).

use crate::respond;

fn corpus() -> Vec<Vec<u8>> {
    let mut bodies: Vec<Vec<u8>> = wstest::post_files::all()
        .iter()
        .map(|file| file.body())
        .collect();
    bodies.push(
        br#"<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:x="http://www.w3.org/2001/XMLSchema-instance"><s:Header/><s:Body><w:EchoStruct xmlns:w="uri:WSTestWeb-TestService"><w:array><w:l><w:i>1</w:i><w:f x:nil="true"/><w:s>a&amp;b&#65;</w:s></w:l></w:array></w:EchoStruct></s:Body></s:Envelope>"#
            .to_vec(),
    );
    // Prefixed elements throughout, as soapUI writes them, but compact, so that the fast
    // lexer's shortcuts for whole structs and list nodes are the ones that read them.
    bodies.push(
        br#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" xmlns:uri="uri:WSTestWeb-TestService"><e:Body><uri:EchoStruct><uri:array><uri:l><uri:i>-7</uri:i><uri:f>2.5</uri:f><uri:s>a</uri:s></uri:l><uri:l><uri:i>8</uri:i><uri:f>1E3</uri:f><uri:s></uri:s></uri:l></uri:array></uri:EchoStruct></e:Body></e:Envelope>"#
            .to_vec(),
    );
    bodies.push(
        br#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><w:EchoList xmlns:w="uri:WSTestWeb-TestService"><w:list><w:i>1</w:i><w:f>2</w:f><w:s>x</w:s><w:Next><w:i>2</w:i><w:f>3</w:f><w:s>y</w:s></w:Next></w:list></w:EchoList></e:Body></e:Envelope>"#
            .to_vec(),
    );
    // The numbers of the shortcuts for whole structs and list nodes, read raw: references,
    // white space and carriage returns in them, which must send the message to quick-xml or be
    // read as it reads them.
    for (i, f) in [
        ("&#49;2", "2&#46;5"),
        (" 7\r\n", "\t2.5 "),
        ("x", "1"),
        ("1", "&amp;"),
        ("1]", "1"),
        ("99999999999", "1e40"),
        ("-0", "-0.000000001"),
    ] {
        bodies.push(
            format!(r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>1</i><f>2.0</f><s>a</s></l><l><i>{i}</i><f>{f}</f><s>b</s></l></array></EchoStruct></soap:Body></soap:Envelope>"#)
                .into_bytes(),
        );
        bodies.push(
            format!(r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoList xmlns="uri:WSTestWeb-TestService"><list><i>{i}</i><f>{f}</f><s>a</s><Next><i>2</i><f>3</f><s>y</s></Next></list></EchoList></soap:Body></soap:Envelope>"#)
                .into_bytes(),
        );
    }
    // A Header of text alone (found by the `lexers_agree` fuzz target: the fast lexer let it
    // through).
    bodies.push(
        br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header>x</soap:Header><soap:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"/></soap:Body></soap:Envelope>"#
            .to_vec(),
    );
    // Declarations of the reserved namespaces, which only quick-xml judges (the first was found
    // by the `lexers_agree` fuzz target).
    for declaration in [
        r#"xmlns:xsd="http://www.w3.org/XML/1998/namespace""#,
        r#"xmlns:xml="http://www.w3.org/XML/1998/namespace""#,
        r#"xmlns:x="http://www.w3.org/2000/xmlns/""#,
    ] {
        bodies.push(
            format!(r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" {declaration}><soap:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"/></soap:Body></soap:Envelope>"#)
                .into_bytes(),
        );
    }
    bodies.push(
        br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoVoid xmlns="http://www.w3.org/XML/1998/namespace"/></soap:Body></soap:Envelope>"#
            .to_vec(),
    );
    bodies
}

/// Every body of the corpus whole: the two lexers read it alike (`respond` asserts it).
#[test]
fn whole_bodies_are_read_alike() {
    for body in corpus() {
        let _ = respond(None, &body);
    }
}

/// The raw numbers of the struct shortcuts: a reference or white space in one is read as
/// quick-xml reads it, and a bad one is a Client fault naming the field.
#[test]
fn raw_numbers_are_read_as_xml_reads_them() {
    /// The texts of i and f, and the values read or what the fault says.
    type Case = (&'static str, &'static str, Result<(i32, f32), &'static str>);
    let cases: [Case; 6] = [
        ("&#49;2", "2&#46;5", Ok((12, 2.5))),
        (" 7\r\n", "\t2.5 ", Ok((7, 2.5))),
        ("-0", "-0.000000001", Ok((0, -0.000_000_001))),
        ("x", "1", Err("i is \"x\"")),
        ("1", "&amp;", Err("f is \"&\"")),
        ("99999999999", "1", Err("i is \"99999999999\"")),
    ];
    for (i, f, expected) in cases {
        let body = format!(
            r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>{i}</i><f>{f}</f><s>b</s></l></array></EchoStruct></soap:Body></soap:Envelope>"#
        );
        let decoded = wstest::decode_request(body.as_bytes(), None);
        match (decoded, expected) {
            (Ok(wstest::Request::EchoStruct(items)), Ok((int, float))) => {
                assert_eq!((items[0].i, items[0].f), (int, Some(float)), "{i:?} {f:?}");
            }
            (Err(fault), Err(said)) => {
                assert_eq!(fault.code, wstest::FaultCode::Client, "{i:?} {f:?}");
                assert!(fault.to_string().contains(said), "{i:?} {f:?}: {fault}");
            }
            (other, expected) => panic!("{i:?} {f:?}: {other:?}, expected {expected:?}"),
        }
    }
}

#[test]
fn every_truncation_is_read_alike() {
    for body in corpus() {
        for len in 0..body.len() {
            let result = respond(None, &body[..len]);
            assert!(result.is_err(), "a request cut at byte {len} was answered");
        }
    }
}

#[test]
fn one_byte_edits_are_read_alike() {
    const EDITS: &[u8] = b"<>&\"':/= x1\t\r\x01\xFF";
    for body in corpus() {
        // Every offset of the small files, and a spread of offsets in the larger ones, which
        // repeat the same shapes.
        let step = if body.len() > 600 { 7 } else { 1 };
        for at in (0..body.len()).step_by(step) {
            for &edit in EDITS {
                let mut edited = body.clone();
                edited[at] = edit;
                let _ = respond(None, &edited);
            }
        }
    }
}

/// Our GetOrder response, with and without its fields' shortcuts in play: every truncation and
/// a spread of one-byte edits must decode alike with both lexers.
#[test]
fn response_edits_are_read_alike() {
    use wstest::decode::{LexerChoice, decode_response_with};

    let body = wstest::post_files::all()
        .into_iter()
        .find(|file| file.name == "getorder20.xml")
        .expect("a GetOrder post file")
        .body();
    let response = respond(None, &body).expect("GetOrder is answered");
    let check = |xml: &[u8], what: &str| {
        let fast = decode_response_with(LexerChoice::Fast, xml);
        for lexer in [LexerChoice::FastTokens, LexerChoice::QuickXml] {
            let other = decode_response_with(lexer, xml);
            match (&fast, &other) {
                (Ok(fast), Ok(other)) => assert_eq!(fast, other, "{what}, {lexer:?}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{what}: the fast lexer read {fast:?}, {lexer:?} {other:?}"),
            }
        }
    };
    check(&response, "the whole response");
    for len in (0..response.len()).step_by(3) {
        check(&response[..len], &format!("cut at byte {len}"));
    }
    for at in (0..response.len()).step_by(5) {
        for &edit in b"<>/ x1" {
            let mut edited = response.clone();
            edited[at] = edit;
            check(&edited, &format!("byte {at} set to {:?}", edit as char));
        }
    }
}
